// QMSH: parse + process a large .qmsh.tmp (a 180 x 180 grid object of quads, 32,400 vertices,
// 32,041 faces, smooth), and read / write the binary TFQMSH10 it converts to.
#include "bench_common.h"
#include "formats/qmsh/qmsh.h"
#include "formats/qmsh/qmsh_tmp.h"

namespace meshport::bench {
namespace {

constexpr uint32_t kGrid = 180;

const std::string& tmp_text() {
  static const std::string text = [] {
    QmshTmpData d;
    d.fps = {25};
    QmshTmpMesh m;
    m.name = "Grid";
    m.materials = {"Ground"};
    m.auto_smooth_angle = 180;
    for (uint32_t y = 0; y < kGrid; ++y)
      for (uint32_t x = 0; x < kGrid; ++x)
        m.vertices.push_back({float(x) * 0.5f, float(y) * 0.5f, float((x * 7 + y * 3) % 5) * 0.1f});
    for (uint32_t y = 0; y + 1 < kGrid; ++y)
      for (uint32_t x = 0; x + 1 < kGrid; ++x) {
        QmshTmpFace f;
        f.count = 4;
        uint32_t a = y * kGrid + x;
        f.vertex = {a, a + 1, a + 1 + kGrid, a + kGrid};
        float u = float(x) / kGrid, v = float(y) / kGrid, s = 1.0f / kGrid;
        f.uv = {{{u, v}, {u + s, v}, {u + s, v + s}, {u, v + s}}};
        m.faces.push_back(f);
      }
    d.meshes.push_back(std::move(m));
    return qmsh_tmp::print(d);
  }();
  return text;
}

constexpr double kFaces = double(kGrid - 1) * (kGrid - 1);

void BM_QmshTmpParse(benchmark::State& state) {
  const std::string& text = tmp_text();
  try {
    for (auto _ : state) {
      Diagnostics d;
      QmshTmpData q = qmsh_tmp::parse(text, "bench.qmsh.tmp", d);
      benchmark::DoNotOptimize(q.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(int64_t(state.iterations() * text.size()));
  state.SetItemsProcessed(int64_t(double(state.iterations()) * kFaces));  // faces
}
BENCHMARK(BM_QmshTmpParse)->Unit(benchmark::kMillisecond);

// Parse plus the specification's processing (split, transform, triangulate, normals, tangents).
void BM_QmshTmpRead(benchmark::State& state) {
  const std::string& text = tmp_text();
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = qmsh_tmp::read(text, "bench.qmsh.tmp", d);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(int64_t(state.iterations() * text.size()));
  state.SetItemsProcessed(int64_t(double(state.iterations()) * kFaces));
}
BENCHMARK(BM_QmshTmpRead)->Unit(benchmark::kMillisecond);

void BM_QmshBinaryReadWrite(benchmark::State& state) {
  std::vector<uint8_t> bytes;
  try {
    Diagnostics d;
    bytes = qmsh::write(qmsh_tmp::read(tmp_text(), "bench.qmsh.tmp", d), d);
    for (auto _ : state) {
      Scene s = qmsh::read(bytes, "bench.qmsh", d);
      std::vector<uint8_t> out = qmsh::write(s, d);
      benchmark::DoNotOptimize(out.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes.size() * 2));
  state.SetItemsProcessed(int64_t(double(state.iterations()) * kFaces * 2));  // triangles
}
BENCHMARK(BM_QmshBinaryReadWrite)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
