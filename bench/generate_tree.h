// Generator of a Warzone 2100-shaped data tree for the batch benchmarks: PIE 2 and PIE 3 models in
// the game's folders (base/ and mp/ components, structs, features, effects, misc), sizes drawn
// like the shipped ones (median about 2.5 KB, a few up to 75 KB), and the texture pages they
// name in texpages/.
#pragma once

#include <cstdint>
#include <string>

namespace meshport::bench {

struct TreeParams {
  int files = 1046;  // the number of PIE files Warzone 2100 4.x ships
  int pages = 12;    // texture pages (256 x 256 PNG) in texpages/
  uint64_t seed = 7;
};

struct TreeStats {
  int files = 0;
  uint64_t bytes = 0;  // of the models
};

// Writes the tree under `root` (created; existing files overwritten).
TreeStats write_pie_tree(const std::string& root, const TreeParams& params = {});

}  // namespace meshport::bench
