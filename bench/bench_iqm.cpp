// IQM binary: write and read; end to end: IQE file -> IQM file through meshport::convert.
#include "bench_common.h"

namespace meshport::bench {
namespace {

// Arg: 1 with adjacency and bounds (the default), 0 without.
void BM_IqmWrite(benchmark::State& state) {
  std::string error;
  const Scene* s = scene(error);
  if (!s) return state.SkipWithError(error.c_str());
  WriteOptions options;
  options.adjacency = options.bounds = state.range(0) != 0;
  size_t bytes = 0;
  try {
    for (auto _ : state) {
      Diagnostics d;
      std::vector<uint8_t> out = iqm::write(*s, options, d);
      bytes = out.size();
      benchmark::DoNotOptimize(out.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, bytes);
}
BENCHMARK(BM_IqmWrite)->ArgName("adjacency_bounds")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_IqmRead(benchmark::State& state) {
  std::string error;
  const std::vector<uint8_t>* bytes = iqm_bytes(error);
  if (!bytes) return state.SkipWithError(error.c_str());
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = iqm::read(*bytes, "model.iqm", d);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, bytes->size());
}
BENCHMARK(BM_IqmRead)->Unit(benchmark::kMillisecond);

// Bytes are those of the IQE input file.
void BM_ConvertIqeToIqm(benchmark::State& state) {
  const Model& m = model();
  const std::string out = (m.dir / "model.iqm").string();
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = convert({m.iqe_path.string()}, out, ConvertOptions{}, &d);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, m.iqe.size());
}
BENCHMARK(BM_ConvertIqeToIqm)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
