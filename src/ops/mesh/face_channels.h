// Keeping Mesh::face_channels (per-triangle format data, scene.h) on the triangles they describe.
// Every step that reorders, drops, splits or duplicates triangles calls select_face_channels with
// the same triangle list it applied, so a channel value never moves to another triangle.
#pragma once

#include <meshport/scene.h>

#include <cstdint>
#include <span>

namespace meshport::ops {

// True when every channel holds one tuple of `components` values per triangle of the mesh (and
// components is at least 1).
bool face_channels_fit(const Mesh& m);

// New triangle t takes the values old triangle source[t] had, in every channel: the order the
// caller gave its triangles (a permutation reorders; a shorter list drops; an index listed twice
// duplicates). Call it with the same list the triangles were rebuilt from, before or after
// rebuilding them. Decision: a malformed channel (components 0, a length that is not whole
// tuples, or fewer tuples than a source index needs) is dropped, as SmoothingRules arrays of the
// wrong length are, rather than paired with the wrong triangles; ops::check_mesh reports such
// channels as errors before the steps that check meshes run.
void select_face_channels(Mesh& m, std::span<const uint32_t> source);

}  // namespace meshport::ops
