// IQE text: parse and write.
#include "bench_common.h"

namespace meshport::bench {
namespace {

void BM_IqeParse(benchmark::State& state) {
  const Model& m = model();
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = iqe::read(m.iqe, "model.iqe", d);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, m.iqe.size());
}
BENCHMARK(BM_IqeParse)->Unit(benchmark::kMillisecond);

// The parse on N threads (iqe_chunks.h): chunks parsed on threads, replayed in order.
void BM_IqeParseThreads(benchmark::State& state) {
  const Model& m = model();
  iqe::ReadThreads threads;
  threads.threads = unsigned(state.range(0));
  threads.min_bytes = 0;
  try {
    for (auto _ : state) {
      Diagnostics d;
      Scene s = iqe::read(m.iqe, "model.iqe", d, threads);
      benchmark::DoNotOptimize(s.meshes.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, m.iqe.size());
}
BENCHMARK(BM_IqeParseThreads)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_IqeWrite(benchmark::State& state) {
  std::string error;
  const Scene* s = scene(error);
  if (!s) return state.SkipWithError(error.c_str());
  size_t bytes = 0;
  try {
    for (auto _ : state) {
      Diagnostics d;
      std::string text = iqe::write(*s, d);
      bytes = text.size();
      benchmark::DoNotOptimize(text.data());
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_rates(state, bytes);
}
BENCHMARK(BM_IqeWrite)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
