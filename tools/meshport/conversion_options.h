// The options `convert` and `batch` share: processing steps and what the writers do.
#pragma once

#include <meshport/meshport.h>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace meshport::cli {

struct ConversionArgs {
  std::string from, to;
  std::optional<uint32_t> scene;
  bool no_adjacency = false, no_bounds = false;
  std::vector<std::string> textures;
  std::vector<std::string> texture_files;  // --texture [MATERIAL=]FILE
  bool external_textures = false, compress = false;
  std::vector<int> team_colour;
  int pie_version = 0;
  ProcessOptions process;
  bool no_normals = false, no_tangents = false, add_normals = false, add_tangents = false;
  float smooth_angle = -1;
  std::string rotate, translate;
  LodOptions lods;
  std::string resample;  // FPS or "off"
  std::string curve_tolerance;  // T[,DEGREES]
  std::string max_memory;  // --max-memory SIZE (memory_option.h)
  // Animation clips (docs/animations.md)
  std::vector<std::string> anims, rename_anims, clips, fps, loop, no_loop;
  bool allow_empty = false;
  bool force_format = false;  // --force-format
};

// Adds --from, --to, --scene and every processing and writing option to `cmd`.
void add_conversion_options(CLI::App* cmd, ConversionArgs& args, const std::string& from_help,
                            const std::string& to_help);
// The library's options for them; throws CLI::ValidationError on a bad value.
ConvertOptions conversion_options(const ConversionArgs& args);

std::optional<Format> parse_format(const std::string& name, const char* option);

}  // namespace meshport::cli
