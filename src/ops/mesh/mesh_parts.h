// A mesh's triangles picked, reordered or joined with another mesh's, with everything that
// describes a triangle following it: its corners, the per-face and per-corner smoothing rules and
// the face channels (scene.h). The glTF writer splits a PIE level into one primitive per polygon
// material and the reader joins them again (docs/pie.md, "Through Blender").
#pragma once

#include <meshport/scene.h>

#include <cstdint>
#include <span>
#include <vector>

namespace meshport::ops {

// New triangle t is old triangle source[t] (a permutation reorders, a shorter list picks, an index
// twice duplicates): its 3 indices, SmoothingRules face_group / face_angle / face_uv / corner_edge
// and every face channel (select_face_channels). polygon_sizes are cleared (the fans they
// describe are gone). Vertices are not touched.
void select_triangles(Mesh& m, std::span<const uint32_t> source);

// The per-face and per-corner smoothing rules of triangles source[0], source[1], ... of a mesh of
// `triangles` triangles, in time proportional to the list (vertex_key, per vertex, is left empty).
SmoothingRules pick_smoothing(const SmoothingRules& r, size_t triangles, std::span<const uint32_t> source);

// True when `b` can be appended to `a`: the same topology, the same streams in the same order
// (attribute, name, custom slot, components) and the same morph targets (names, and which of
// normals and tangents they displace).
bool same_layout(const Mesh& a, const Mesh& b);

// Appends b's triangles after a's, with their per-face smoothing rules and face channels; b's
// indices are taken + `vertex_offset`. A rule or channel only one side has is given its default
// on the other side (face_group -1, face_angle 180, face_uv 0, corner_edge 1, channel values 0);
// a channel of another component count on either side is dropped. polygon_sizes are cleared.
void append_triangles(Mesh& a, const Mesh& b, uint32_t vertex_offset);

// Appends b (same_layout) to a: its vertices after a's (every stream, vertex_key and morph
// displacement), then its triangles (append_triangles).
void append_mesh(Mesh& a, const Mesh& b);

// Gives every triangle that names a vertex twice, or the same three vertices as an earlier
// triangle (a back face sharing its front face's vertices), vertices of its own: copies of its
// corners' vertices (every stream, morph displacement and vertex_key follow, ops::gather_vertices).
// Tools that keep one face per set of vertices (Blender's mesh validation deletes the others)
// then keep them all. Triangle order and per-face data are unchanged. Returns the number of
// triangles given copies. repeated_faces() lists them (ascending), separate_faces() gives the
// listed triangles their copies.
size_t separate_repeated_faces(Mesh& m);
std::vector<uint32_t> repeated_faces(const Mesh& m);
void separate_faces(Mesh& m, std::span<const uint32_t> triangles);

}  // namespace meshport::ops
