// meshport_bench: IQE / IQM read, write and conversion on a generated model.
// MESHPORT_BENCH_VERTICES chooses its size (default 200000; 1000000 for the headline figures).
#include "bench_common.h"

#include <cstdio>

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const auto& m = meshport::bench::model();
  char desc[200];
  std::snprintf(desc, sizeof desc, "%llu vertices, %llu triangles, %d joints, %d x %d frames, IQE %.1f MB",
                (unsigned long long)m.stats.vertices, (unsigned long long)m.stats.triangles, m.params.joints,
                m.params.animations, m.params.frames, m.iqe.size() / 1e6);
  benchmark::AddCustomContext("model", desc);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
