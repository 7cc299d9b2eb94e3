// Welding and unused-vertex removal on one mesh, shared by weld_vertices /
// remove_unused_vertices (process.h) and generate_normals.
#pragma once

#include <meshport/scene.h>

#include <cstddef>

namespace meshport::ops {

// Merges vertices whose every stream value and vertex_key are bit-identical (so +0 and -0
// differ, and NaNs with equal bits are equal). The merged vertex keeps the place of its first
// occurrence. Triangles are renumbered, never reordered. Returns the number of vertices removed.
// Requires a consistent mesh (ops::check_mesh).
size_t weld_mesh(Mesh& m);

// Drops vertices no triangle uses, keeping the order of the rest. Returns the number removed.
size_t remove_unused(Mesh& m);

}  // namespace meshport::ops
