// `meshport anims FILE [--json]` (anims_command.h).
#include "anims_command.h"

#include "conversion_options.h"
#include "memory_option.h"

#include <meshport/clips.h>
#include <meshport/meshport.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace meshport::cli {

CLI::App* add_anims_command(CLI::App& app, AnimsArgs& args) {
  auto* cmd = app.add_subcommand("anims", "List a model's animation clips");
  cmd->footer(
      "One line per clip: name, frames, frames per second, looping, joints animated (joints whose pose changes\n"
      "over the clip) and duration in seconds (first key to last). convert picks, renames and cuts clips with\n"
      "--anim, --rename-anim, --clip, --fps and --loop (docs/animations.md). Example:\n"
      "  meshport anims guy.iqm --json");
  cmd->add_option("file", args.input, "Model or animation file (- reads standard input; give --from)")->required();
  cmd->add_option("--from", args.from, "Input format (default: by extension)");
  add_max_memory_option(cmd, args.max_memory);
  cmd->add_option("--scene", args.scene, "glTF: scene N (default: the file's default scene)")->type_name("N");
  cmd->add_flag("--json", args.json,
                "Print one JSON object: {\"file\", \"joints\", \"clips\": [{\"name\", \"frames\", \"fps\", \"loop\", "
                "\"joints_animated\", \"morph_weight_tracks\", \"duration\"}]}");
  return cmd;
}

int run_anims(const AnimsArgs& args) {
  ReadOptions ro;
  ro.format = parse_format(args.from, "--from");
  ro.scene = args.scene;
  ro.max_memory = parse_max_memory(args.max_memory);
  Diagnostics d;
  const Scene s = read(args.input, ro, &d);
  for (const auto& item : d.items) fmt::print(stderr, "{}\n", item.to_string());
  const std::vector<ClipInfo> clips = list_clips(s);
  if (args.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const ClipInfo& c : clips)
      list.push_back({{"name", c.name},
                      {"frames", c.frames},
                      {"fps", c.fps},
                      {"loop", c.loop},
                      {"joints_animated", c.joints_animated},
                      {"morph_weight_tracks", c.morph_weight_tracks},
                      {"duration", c.duration}});
    fmt::print("{}\n", nlohmann::json{{"file", args.input}, {"joints", s.joints.size()}, {"clips", list}}.dump(2));
    return 0;
  }
  fmt::print("{}: {} clip{}, {} joints\n", args.input, clips.size(), clips.size() == 1 ? "" : "s", s.joints.size());
  if (clips.empty()) return 0;
  size_t w = 4;
  for (const ClipInfo& c : clips) w = std::max(w, c.name.size() + 2);
  fmt::print("  {:<{}} {:>7} {:>8} {:>5} {:>8} {:>10}\n", "name", w, "frames", "fps", "loop", "joints", "duration");
  for (const ClipInfo& c : clips)
    fmt::print("  {:<{}} {:>7} {:>8} {:>5} {:>8} {:>9.3f}s{}\n", "\"" + c.name + "\"", w, c.frames,
               c.fps > 0 ? fmt::format("{:g}", c.fps) : std::string("-"), c.loop ? "yes" : "no", c.joints_animated,
               c.duration,
               c.morph_weight_tracks ? fmt::format("  ({} morph weight tracks)", c.morph_weight_tracks) : std::string());
  return 0;
}

}  // namespace meshport::cli
