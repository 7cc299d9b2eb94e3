// Renumbering a mesh's vertices: every vertex stream and SmoothingRules::vertex_key follow, so a
// step that welds, splits, drops or reorders vertices cannot forget one of them. Triangle order
// (and so polygon_sizes, the per-face / per-corner smoothing rules and Mesh::face_channels) is
// never changed here.
#pragma once

#include <meshport/scene.h>

#include <cstdint>
#include <span>

namespace meshport::ops {

inline constexpr uint32_t kDropped = 0xFFFFFFFFu;

// Fails (meshport::Error naming the mesh) when the triangle count is not a multiple of 3, a
// stream does not hold vertex_count() vertices, a triangle names a vertex past them, or a face
// channel does not hold one tuple per triangle.
void check_mesh(const Mesh& m);

// New vertex i is a copy of old vertex source[i] (an old vertex may be copied several times or
// not at all). Streams and vertex_key are rebuilt; triangles are NOT touched: the caller
// renumbers them. A vertex_key whose length is not the old vertex count is cleared.
void gather_vertices(Mesh& m, std::span<const uint32_t> source);

// The old-to-new form (meshoptimizer's "remap table"): old vertex v becomes new vertex remap[v],
// or is dropped when remap[v] == kDropped. New vertex i takes the values of the first old vertex
// mapped to it; every index 0..new_count-1 must be the target of some old vertex. Triangles are
// renumbered; a triangle naming a dropped vertex throws std::invalid_argument.
void remap_vertices(Mesh& m, std::span<const uint32_t> remap, size_t new_count);

}  // namespace meshport::ops
