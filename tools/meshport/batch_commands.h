// `meshport batch`, `meshport validate` and `meshport merge-reports` (docs/batch.md).
#pragma once

#include "conversion_options.h"

#include <meshport/batch.h>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace meshport::cli {

struct BatchArgs {
  std::vector<std::string> inputs;
  std::string output_dir, report, shard;
  unsigned jobs = 0;
  bool fail_fast = false, keep_going = false, force = false, no_copy_textures = false;
  bool quiet = false, verbose = false, json = false, strict = false;
  std::string progress = "auto";
  double progress_interval = 5;
  std::vector<std::string> profiles;
  ConversionArgs conversion;  // batch only
  std::string from;           // validate only
};

struct MergeArgs {
  std::vector<std::string> reports;
  std::string output;
};

CLI::App* add_batch_command(CLI::App& app, BatchArgs& args, const std::string& from_help, const std::string& to_help);
CLI::App* add_validate_command(CLI::App& app, BatchArgs& args);
CLI::App* add_merge_command(CLI::App& app, MergeArgs& args);

// Exit codes: 0 all good, 1 a file failed (or the batch could not run), 130 interrupted.
int run_batch(const BatchArgs& args, BatchTask task);
int run_merge(const MergeArgs& args);

}  // namespace meshport::cli
