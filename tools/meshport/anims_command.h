// `meshport anims FILE [--json]`: the animation clips of a model (docs/animations.md).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace meshport::cli {

struct AnimsArgs {
  std::string input, from;
  std::string max_memory;  // --max-memory
  std::optional<uint32_t> scene;
  bool json = false;
};

CLI::App* add_anims_command(CLI::App& app, AnimsArgs& args);
// Exit code (0); throws meshport::Error when the file cannot be read.
int run_anims(const AnimsArgs& args);

}  // namespace meshport::cli
