// Axis conversion between Z-up formats (IQM, IQE, Blender: X right, Y forward, Z up) and the
// Scene convention (glTF: X right, Y up, Z toward the viewer). The mapping is a proper rotation
// of -90 degrees about X, made of permutation and sign only, so it is exact and reversible:
//   scene = (x, z, -y)      z-up = (x, -z, y)
// Quaternions conjugate by the same rotation (their vector part maps like a vector); per-axis
// scales permute (sx, sz, sy). Winding is handled separately by the formats.
#pragma once

#include <meshport/scene.h>

namespace meshport::axes {

inline std::array<float, 3> zup_to_scene(std::array<float, 3> v) { return {v[0], v[2], -v[1]}; }
inline std::array<float, 3> scene_to_zup(std::array<float, 3> v) { return {v[0], -v[2], v[1]}; }
inline std::array<float, 4> zup_to_scene(std::array<float, 4> q) { return {q[0], q[2], -q[1], q[3]}; }
inline std::array<float, 4> scene_to_zup(std::array<float, 4> q) { return {q[0], -q[2], q[1], q[3]}; }
inline std::array<float, 3> zup_scale_to_scene(std::array<float, 3> s) { return {s[0], s[2], s[1]}; }
inline std::array<float, 3> scene_scale_to_zup(std::array<float, 3> s) { return {s[0], s[2], s[1]}; }

inline Transform zup_to_scene(const Transform& t) {
  return {zup_to_scene(t.translation), zup_to_scene(t.rotation), zup_scale_to_scene(t.scale)};
}
inline Transform scene_to_zup(const Transform& t) {
  return {scene_to_zup(t.translation), scene_to_zup(t.rotation), scene_scale_to_zup(t.scale)};
}

// In place over a whole stream of 3- or 4-component vectors (positions, normals, tangents;
// a 4th component, such as a tangent's handedness, is unchanged). Streams of fewer than 3
// components are padded conceptually with 0, which the mapping would move into another axis,
// so they are left alone and the caller must widen them first if it needs them converted.
void stream_zup_to_scene(VertexStream& s);
void stream_scene_to_zup(VertexStream& s);
// The same over vertices [first, last) of the stream only (a part of it on a thread).
void stream_zup_to_scene(VertexStream& s, size_t first, size_t last);

}  // namespace meshport::axes
