// ModeDef .model: parse, read into a Scene (morph targets per mode), print, and deform a large
// synthetic model: a 40 x 10 x 10 node bar (4,000 nodes) split into 15,795 tetrahedra,
// 20 modes, and a 200 x 200 render grid (40,000 vertices, 79,202 triangles) embedded by carton.
#include "formats/modedef/modedef.h"

#include <benchmark/benchmark.h>
#include <meshport/meshport.h>
#include <meshport/modal.h>

#include <cmath>
#include <exception>
#include <string>

namespace meshport::bench {
namespace {

constexpr int kNx = 40, kNy = 10, kNz = 10;  // nodes along each axis
constexpr int kModes = 20;
constexpr int kGrid = 200;  // render grid vertices per side

int node(int x, int y, int z) { return (x * kNy + y) * kNz + z; }

const ModeDefModel& bench_model() {
  static const ModeDefModel model = [] {
    ModeDefModel m;
    const int nodes = kNx * kNy * kNz;
    for (int x = 0; x < kNx; ++x)
      for (int y = 0; y < kNy; ++y)
        for (int z = 0; z < kNz; ++z) {
          m.rest.push_back(float(x) * 0.25f);
          m.rest.push_back(float(y) * 0.25f);
          m.rest.push_back(float(z) * 0.25f);
        }
    // Five tetrahedra per cube cell.
    for (int x = 0; x + 1 < kNx; ++x)
      for (int y = 0; y + 1 < kNy; ++y)
        for (int z = 0; z + 1 < kNz; ++z) {
          int c[8];
          for (int i = 0; i < 8; ++i) c[i] = node(x + (i & 1), y + ((i >> 1) & 1), z + ((i >> 2) & 1));
          m.tets.push_back({c[0], c[1], c[2], c[4]});
          m.tets.push_back({c[1], c[3], c[2], c[7]});
          m.tets.push_back({c[1], c[4], c[5], c[7]});
          m.tets.push_back({c[2], c[4], c[7], c[6]});
          m.tets.push_back({c[1], c[2], c[4], c[7]});
        }
    for (int k = 0; k < kModes; ++k) {
      m.eigenvalues.push_back(float((k + 1) * (k + 1)) * 39.478f);
      for (int i = 0; i < nodes; ++i) {
        float x = m.rest[size_t(3 * i)];
        m.eigenvectors.push_back(0.01f * std::sin(float(k + 1) * x));
        m.eigenvectors.push_back(0.02f * std::cos(float(k + 1) * x));
        m.eigenvectors.push_back(0.005f * float(k));
      }
    }
    // The render grid on the bar's top face, each vertex in the tetrahedron of its cell.
    for (int j = 0; j < kGrid; ++j)
      for (int i = 0; i < kGrid; ++i) {
        float u = float(i) / (kGrid - 1), v = float(j) / (kGrid - 1);
        m.vertices.push_back({u * 0.25f * (kNx - 1), 0.25f * (kNy - 1), v * 0.25f * (kNz - 1)});
        m.texcoords.push_back({u, v});
        int cx = std::min(int(u * (kNx - 1)), kNx - 2), cz = std::min(int(v * (kNz - 1)), kNz - 2);
        int cell = (cx * (kNy - 1) + (kNy - 2)) * (kNz - 1) + cz;
        m.carton_vertices.push_back({cell * 5, {0.25f, 0.25f, 0.25f, 0.25f}});
      }
    m.normals.push_back({0, 1, 0});
    for (int j = 0; j + 1 < kGrid; ++j)
      for (int i = 0; i + 1 < kGrid; ++i) {
        int a = j * kGrid + i, b = a + 1, c = a + kGrid, d = c + 1;
        m.faces.push_back({{a, c, b}, {0, 0, 0}, {a, c, b}});
        m.faces.push_back({{b, c, d}, {0, 0, 0}, {b, c, d}});
      }
    m.materials.push_back({});
    m.groups.push_back({0, int32_t(m.faces.size()) - 1, 0});
    m.carton = true;
    return m;
  }();
  return model;
}

const std::string& bench_text() {
  static const std::string text = modedef::print_model(bench_model());
  return text;
}

void BM_ModeDefParse(benchmark::State& state) {
  const std::string& text = bench_text();
  try {
    for (auto _ : state) {
      Diagnostics d;
      ModeDefModel m = modedef::parse_model(text, "bench.model", d);
      benchmark::DoNotOptimize(m.eigenvectors.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(int64_t(state.iterations() * text.size()));
}
BENCHMARK(BM_ModeDefParse)->Unit(benchmark::kMillisecond);

// Parse plus the Scene: de-indexed meshes and one morph target per mode.
void BM_ModeDefRead(benchmark::State& state) {
  const std::string& text = bench_text();
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = modedef::read_model(text, "bench.model", d);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(int64_t(state.iterations() * text.size()));
}
BENCHMARK(BM_ModeDefRead)->Unit(benchmark::kMillisecond);

void BM_ModeDefPrint(benchmark::State& state) {
  const ModeDefModel& m = bench_model();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string t = modedef::print_model(m);
    bytes = t.size();
    benchmark::DoNotOptimize(t.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
}
BENCHMARK(BM_ModeDefPrint)->Unit(benchmark::kMillisecond);

// Every mode at once: node displacements, carton blend, recomputed normals. Items: render
// vertices deformed.
void BM_ModalDeform(benchmark::State& state) {
  const ModeDefModel& m = bench_model();
  std::vector<float> q(kModes);
  for (int k = 0; k < kModes; ++k) q[size_t(k)] = 0.1f * float(k + 1);
  try {
    for (auto _ : state) {
      ModalDeformation d = deform_model(m, q);
      benchmark::DoNotOptimize(d.vertices.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetItemsProcessed(int64_t(state.iterations() * m.vertices.size()));
}
BENCHMARK(BM_ModalDeform)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
