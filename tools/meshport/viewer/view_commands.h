// `meshport view`, `assemble` and `thumbnail` (docs/viewer.md); serving and `thumbnail` need
// MESHPORT_VIEW_SERVER (view_commands.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace meshport::cli {

struct ViewerArgs {
  std::vector<std::string> view_files, assemble_files, thumbnail_files;
  std::string from, output, out_dir, chromium;
  std::vector<std::string> textures;
  std::string max_memory;  // --max-memory SIZE (memory_option.h)
  bool vtol = false, quiet = false, thumbnail_assemble = false;
  bool open = false;  // view --open: also start the desktop's browser on the address
  unsigned port = 0;
  double idle = 30, timeout = 0;
  unsigned size = 256;
  // thumbnail over trees: pages at once, redraw up-to-date ones, seconds a page has, contact sheet,
  // progress output (as batch's).
  unsigned jobs = 0;
  bool force = false, verbose = false;
  double page_timeout = 60;
  std::string sheet, progress = "auto";
  std::string export_dir;            // view --export DIR
  std::vector<int> team_colour;      // view --export --team-colour R,G,B
  CLI::App* view = nullptr;
  CLI::App* assemble = nullptr;
  CLI::App* thumbnail = nullptr;
};

void add_viewer_commands(CLI::App& app, ViewerArgs& args, const std::string& from_help);
// Runs the command that was given, if one of these; sets `exit_code` and returns true then.
bool run_viewer_commands(const ViewerArgs& args, int& exit_code);

}  // namespace meshport::cli
