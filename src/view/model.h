// Reading what `meshport view`, `thumbnail` and `assemble` show: one model, or a Warzone 2100
// unit assembled from parts (assemble.h).
#pragma once

#include "view/assemble.h"
#include "view/site.h"

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

// Reads (and assembles) the files, summarises the result as `info --json` does, and processes
// it as `convert` to .glb does (normals and tangents generated where missing).
Model load_model(const LoadOptions& options, Diagnostics* diags = nullptr);

}  // namespace meshport::view
