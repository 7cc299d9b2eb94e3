// `meshport modes` (issue 21): 20 modes of a carton of about 5,000 nodes, built from a closed box.
//   BM_Modes      a 4 x 1 x 1 bar, resolution 40: 40 x 10 x 10 cells, 4,961 nodes, 24,000 tetrahedra
//   BM_ModesCube  a cube, resolution 16: 16^3 cells, 4,913 nodes (the densest factorisation)
#include "bench_box.h"

#include <benchmark/benchmark.h>
#include <meshport/modes.h>

#include <array>
#include <exception>

namespace meshport::bench {
namespace {

void run(benchmark::State& state, const Scene& in, uint32_t resolution) {
  ModesOptions o;
  o.count = 20;
  o.resolution = resolution;
  o.elements = ModeElements::Linear;  // the figures in docs/performance.md / docs/modedef.md are the linear elements'
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

void BM_Modes(benchmark::State& state) { run(state, box_scene({0, 0, 0}, {4, 1, 1}), 40); }
BENCHMARK(BM_Modes)->Unit(benchmark::kMillisecond);

void BM_ModesCube(benchmark::State& state) { run(state, box_scene({0, 0, 0}, {1, 1, 1}), 16); }
BENCHMARK(BM_ModesCube)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
