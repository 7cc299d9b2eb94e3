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
  int pages = 12;    // texture pages (PNG) in texpages/
  // Their size: `page_side` square (256: a smooth gradient, a few KB), every `large_every`-th
  // page 2048 square (0: none). Pages over 256 carry noise in their low bits, so that their
  // files have the game's size per pixel or a little more (0.83 MB for 1024 x 1024, 3.3 MB for
  // 2048 x 2048; generate_tree.cpp).
  int page_side = 256;
  int large_every = 0;
  uint64_t seed = 7;
};

struct TreeStats {
  int files = 0;
  uint64_t bytes = 0;  // of the models
  int pages = 0;
  uint64_t page_bytes = 0;  // of the texture pages
};

// Writes the tree under `root` (created; existing files overwritten).
TreeStats write_pie_tree(const std::string& root, const TreeParams& params = {});

}  // namespace meshport::bench
