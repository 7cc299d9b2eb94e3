// `meshport simulate SCENE.state -o OUT.glb` (docs/modedef.md "Simulating scenes").
#pragma once

#include <meshport/simulate.h>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace meshport::cli {

struct SimulateArgs {
  std::string input, output, trace, from;
  std::string max_memory;  // --max-memory
  std::optional<double> seconds;
  double fps = 0;
  uint32_t substeps = 0;
  bool quiet = false;
};

CLI::App* add_simulate_command(CLI::App& app, SimulateArgs& args);
// Exit code (0); throws meshport::Error on failure.
int run_simulate(const SimulateArgs& args);

}  // namespace meshport::cli
