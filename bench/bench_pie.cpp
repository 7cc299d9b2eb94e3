// PIE text: parse and write a large synthetic model (64 levels, each a 64 x 64 grid of points,
// 7,938 textured triangles with normals: near the engine's 8,192-polygon limit per level).
#include "bench_common.h"
#include "formats/pie/pie.h"

#include <fmt/format.h>

namespace meshport::bench {
namespace {

constexpr int kLevels = 64, kGrid = 64;

const std::string& pie_text() {
  static const std::string text = [] {
    std::string t = "PIE 3\nTYPE 10200\nTEXTURE 0 page-1-bench.png 256 256\n";
    t += fmt::format("LEVELS {}\n", kLevels);
    const int cells = kGrid - 1;
    for (int l = 0; l < kLevels; ++l) {
      t += fmt::format("LEVEL {}\nPOINTS {}\n", l + 1, kGrid * kGrid);
      for (int y = 0; y < kGrid; ++y)
        for (int x = 0; x < kGrid; ++x)
          t += fmt::format("\t{:.4f} {:.4f} {:.4f}\n", x * 1.25f, 0.125f * float((x * 7 + y * 3 + l) % 11), y * 1.25f);
      t += fmt::format("NORMALS {}\n", cells * cells * 2);
      for (int i = 0; i < cells * cells * 2; ++i) t += "\t0 1 0 0 1 0 0 1 0\n";
      t += fmt::format("POLYGONS {}\n", cells * cells * 2);
      for (int y = 0; y < cells; ++y)
        for (int x = 0; x < cells; ++x) {
          int a = y * kGrid + x, b = a + 1, c = a + kGrid, d = c + 1;
          float u0 = float(x) / cells, u1 = float(x + 1) / cells, v0 = float(y) / cells, v1 = float(y + 1) / cells;
          t += fmt::format("\t200 3 {} {} {} {:.6f} {:.6f} {:.6f} {:.6f} {:.6f} {:.6f}\n", a, c, b, u0, v0, u0, v1, u1, v0);
          t += fmt::format("\t200 3 {} {} {} {:.6f} {:.6f} {:.6f} {:.6f} {:.6f} {:.6f}\n", b, c, d, u1, v0, u0, v1, u1, v1);
        }
      t += "CONNECTORS 1\n\t0 0 10\n";
    }
    return t;
  }();
  return text;
}

constexpr double kPolygons = double(kLevels) * (kGrid - 1) * (kGrid - 1) * 2;

void BM_PieParse(benchmark::State& state) {
  const std::string& text = pie_text();
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = pie::read(text, "bench.pie", d);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(int64_t(state.iterations() * text.size()));
  state.SetItemsProcessed(int64_t(double(state.iterations()) * kPolygons));  // polygons
}
BENCHMARK(BM_PieParse)->Unit(benchmark::kMillisecond);

void BM_PieWrite(benchmark::State& state) {
  Scene s;
  try {
    Diagnostics d;
    s = pie::read(pie_text(), "bench.pie", d);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  size_t bytes = 0;
  try {
    for (auto _ : state) {
      Diagnostics d;
      std::string text = pie::write(s, {}, d);
      bytes = text.size();
      benchmark::DoNotOptimize(text.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
  state.SetItemsProcessed(int64_t(double(state.iterations()) * kPolygons));  // polygons
}
BENCHMARK(BM_PieWrite)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
