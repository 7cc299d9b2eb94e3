// `meshport simulate` (issue 21): 10 objects of 20 modes each (a cube's modes from compute_modes,
// resolution 6) dropped in a row onto a plane with friction, 5 simulated seconds at 30 fps.
// Reports simulated seconds per wall second (realtime, target >= 100) and substeps per second.
#include "bench_box.h"

#include <benchmark/benchmark.h>
#include <meshport/meshport.h>
#include <meshport/modes.h>
#include <meshport/simulate.h>

#include <fmt/format.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace meshport::bench {
namespace {

namespace fs = std::filesystem;

// The scene, written to a temp folder and read back as `meshport simulate` reads it.
Scene ten_cubes() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("meshport-bench-simulate-{}", ::getpid());
  fs::create_directories(dir);
  ModesOptions mo;
  mo.count = 20;
  mo.resolution = 6;
  mo.elements = ModeElements::Linear;  // as the figures in docs/performance.md were measured
  mo.stem = "cube";
  Scene modes = compute_modes(box_scene({-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}), mo);
  // Penalty springs and damping for a 1000 kg cube.
  ModeDefProp& prop = modes.modedef->props[0].prop;
  prop.kp = 1e6f;
  prop.kv = prop.kb = 2e4f;
  prop.damping1 = 0.5f;
  write(modes, (dir / "cube.prop").string());
  std::string state = "30\n1\n0 -9.8 0\n0.5\n0.01 1 0\n10\n";
  for (int i = 0; i < 10; ++i)
    state += fmt::format("cube.prop\n{} {} 0\n1 0 0 0\n{} 0 0\n0 0 {}\n-1 -1\n", 2 * i, 1 + 0.2 * i, 0.1 * i, 0.3 * i);
  state += "1\n0 1 0 0 0 0\n0\n";
  std::ofstream((dir / "scene.state").string()) << state;
  Scene s = read((dir / "scene.state").string());
  fs::remove_all(dir);
  return s;
}

void BM_Simulate(benchmark::State& state) {
  Scene s;
  try {
    s = ten_cubes();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  SimulateOptions o;
  o.seconds = 5;
  SimulationResult r;
  for (auto _ : state) {
    r = simulate(s, o);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(r.frame_count - 1) * r.substeps_per_frame);
  state.counters["realtime"] =
      benchmark::Counter(double(state.iterations()) * r.seconds, benchmark::Counter::kIsRate);
  state.counters["substeps_per_frame"] = double(r.substeps_per_frame);
}
BENCHMARK(BM_Simulate)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshport::bench
