// Consistency of a Scene before a writer encodes it: what readers guarantee, checked again for
// Scenes built or changed by library users.
#pragma once

#include <meshport/scene.h>

namespace meshport::ops {

// Throws meshport::Error (no file name: the caller's write() adds the path) naming the first
// problem: a stream whose length is not whole vertices of the mesh, triangle indices that are
// not a multiple of 3 or out of range, a material that does not exist, a morph target without 3
// values per vertex, a joint whose parent does not precede it, an animation that is not whole
// frames, an attachment whose mesh or joint does not exist.
void check_scene(const Scene& s);

}  // namespace meshport::ops
