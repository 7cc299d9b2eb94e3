// `meshport modes MESH -o OUT.model` (docs/modedef.md "Computing modes").
#pragma once

#include <meshport/modes.h>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace meshport::cli {

struct ModesArgs {
  std::string input, output, from, prop;
  std::string max_memory;  // --max-memory
  std::string elements = "quadratic";  // --elements quadratic|linear
  ModesOptions options;
  std::optional<double> density;  // --density (else the .prop's mass, else the default)
  bool quiet = false;
};

CLI::App* add_modes_command(CLI::App& app, ModesArgs& args);
// Exit code (0); throws meshport::Error on failure.
int run_modes(const ModesArgs& args);

}  // namespace meshport::cli
