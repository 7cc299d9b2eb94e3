// Consistency of a Scene before a writer encodes it: what readers guarantee, checked again for
// Scenes built or changed by library users.
#pragma once

#include <meshport/scene.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace meshport::ops {

// Throws meshport::Error (no file name: the caller's write() adds the path) naming the first
// problem: a stream whose length is not whole vertices of the mesh, triangle indices that are
// not a multiple of 3 or out of range, a material that does not exist, a morph target without 3
// values per vertex, a joint whose parent does not precede it, an animation that is not whole
// frames, an attachment whose mesh or joint does not exist.
void check_scene(const Scene& s);

// Whether every index is below `count`: one pass that compilers vectorise (a compare and branch
// per index took 8 ms of a serial step for 6M indices); callers look for the first index out of
// range only when this is false, to name it.
inline bool indices_below(std::span<const uint32_t> indices, size_t count) {
  uint32_t largest = 0;
  for (const uint32_t i : indices) largest = i > largest ? i : largest;
  return indices.empty() || largest < count;
}

}  // namespace meshport::ops
