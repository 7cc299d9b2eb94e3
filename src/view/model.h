// Reading what `meshport view`, `thumbnail` and `assemble` show: one model, or a Warzone 2100
// unit assembled from parts (assemble.h).
#pragma once

#include "view/assemble.h"

#include <meshport/meshport.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshport::view {

struct LoadOptions {
  std::vector<std::string> files;  // one model, or BODY PROPULSION WEAPON...
  std::optional<Format> from;      // by extension when unset
  AssembleOptions assemble;
  std::vector<std::string> texture_dirs;  // searched after the model's folder (--textures)
  uint64_t max_memory = 0;                // ReadOptions::max_memory (--max-memory)
};

// The model a viewer shows: the Scene (read, assembled and processed as `convert` to .glb would),
// how to write it (the texture search), its `info --json` summary, and a title.
struct Model {
  Scene scene;
  WriteOptions write;
  nlohmann::json summary;
  std::string title;
};

// Reads (and assembles) the files, summarises the result as `info --json` does, and processes
// it as `convert` to .glb does (normals and tangents generated where missing).
Model load_model(const LoadOptions& options, Diagnostics* diags = nullptr);

// Whether a material of the model has a team colour mask (the page offers a team colour).
bool has_team_colour(const Model& model);
// The model as the viewer's .glb (/model.glb; `view --export`'s model.glb), with `team_colour`
// baked in when given (/model.glb?tc=RRGGBB). Warnings without a file name get the model's title.
std::string model_glb(const Model& model, std::optional<std::array<uint8_t, 3>> team_colour = std::nullopt,
                      Diagnostics* diags = nullptr);
// What the page shows beside the model (/info.json; `view --export`'s info.json): its title,
// whether it has a team colour, and its `info --json` summary.
nlohmann::json page_info(const Model& model);

}  // namespace meshport::view
