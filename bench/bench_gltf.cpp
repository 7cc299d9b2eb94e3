// glTF: reading and writing the generated model as .glb, plain and meshopt-compressed
// (WriteOptions::compress, EXT_meshopt_compression). MB/s are of the .glb bytes.
#include "bench_common.h"

namespace meshport::bench {

namespace {

// The model as .glb, plain (compress = false) or compressed; nullptr (and `error` set) on failure.
const std::vector<uint8_t>* glb_bytes(bool compress, std::string& error) {
  static std::optional<std::vector<uint8_t>> b[2];
  static std::string err[2];
  if (!b[compress] && err[compress].empty()) {
    if (const Scene* s = scene(err[compress])) {
      try {
        WriteOptions o;
        o.compress = compress;
        Diagnostics d;
        b[compress] = write_memory(*s, Format::Glb, o, &d);
      } catch (const std::exception& e) {
        err[compress] = e.what();
      }
    }
  }
  error = err[compress];
  return b[compress] ? &*b[compress] : nullptr;
}

}  // namespace

void BM_GlbRead(benchmark::State& state) {
  std::string error;
  const std::vector<uint8_t>* bytes = glb_bytes(state.range(0) != 0, error);
  if (!bytes) return state.SkipWithError(error.c_str());
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = read_memory(*bytes, Format::Glb, "model.glb", &d);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, bytes->size());
  state.counters["glb_bytes"] = double(bytes->size());
}
BENCHMARK(BM_GlbRead)->ArgName("meshopt")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_GlbWrite(benchmark::State& state) {
  std::string error;
  const Scene* s = scene(error);
  if (!s) return state.SkipWithError(error.c_str());
  WriteOptions o;
  o.compress = state.range(0) != 0;
  size_t size = 0;
  try {
    for (auto _ : state) {
      Diagnostics d;
      std::vector<uint8_t> b = write_memory(*s, Format::Glb, o, &d);
      size = b.size();
      benchmark::DoNotOptimize(b.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, size);
}
BENCHMARK(BM_GlbWrite)->ArgName("meshopt")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace meshport::bench
