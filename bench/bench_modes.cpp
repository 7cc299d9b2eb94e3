// `meshport modes` (issue 21): 20 modes of a carton of about 5,000 nodes, built from a closed box.
//   BM_Modes      a 4 x 1 x 1 bar, resolution 40: 40 x 10 x 10 cells, 4,961 nodes, 24,000 tetrahedra
//   BM_ModesCube  a cube, resolution 16: 16^3 cells, 4,913 nodes (the densest factorisation)
#include <benchmark/benchmark.h>
#include <meshport/modes.h>

#include <array>
#include <exception>

namespace meshport::bench {
namespace {

Scene box_scene(float sx, float sy, float sz) {
  Mesh m;
  m.name = "box";
  VertexStream p;
  p.attribute = Attribute::Position;
  p.components = 3;
  for (int i = 0; i < 8; ++i) p.data.insert(p.data.end(), {(i & 1) ? sx : 0.0f, (i & 2) ? sy : 0.0f, (i & 4) ? sz : 0.0f});
  m.streams.push_back(std::move(p));
  const int f[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : f)
    m.triangles.insert(m.triangles.end(), {uint32_t(q[0]), uint32_t(q[1]), uint32_t(q[2]), uint32_t(q[0]),
                                           uint32_t(q[2]), uint32_t(q[3])});
  Scene s;
  s.meshes.push_back(std::move(m));
  return s;
}

void run(benchmark::State& state, const Scene& in, uint32_t resolution) {
  ModesOptions o;
  o.count = 20;
  o.resolution = resolution;
  ModesReport r;
  for (auto _ : state) {
    try {
      Scene s = compute_modes(in, o, nullptr, &r);
      benchmark::DoNotOptimize(s);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
  state.counters["nodes"] = double(r.nodes);
  state.counters["tets"] = double(r.tets);
}

void BM_Modes(benchmark::State& state) { run(state, box_scene(4, 1, 1), 40); }
BENCHMARK(BM_Modes)->Unit(benchmark::kMillisecond);

void BM_ModesCube(benchmark::State& state) { run(state, box_scene(1, 1, 1), 16); }
BENCHMARK(BM_ModesCube)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
