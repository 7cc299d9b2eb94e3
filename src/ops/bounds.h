// Bounds: boxes and spheres of meshes at rest and, with skinning, per animation frame.
#pragma once

#include <meshport/meshport.h>

#include <array>
#include <vector>

namespace meshport::ops {

// Axis-aligned box over every mesh's rest positions (Scene convention).
Bounds rest_bounds(const Scene& scene);

// Bounds of the skinned meshes in one animation frame, in Scene space (Y up).
struct FrameBounds {
  std::array<float, 3> min{0, 0, 0};
  std::array<float, 3> max{0, 0, 0};
  float radius = 0;             // max |p|: the sphere around the origin holding every vertex
  float horizontal_radius = 0;  // max sqrt(x^2 + z^2): the circle in the horizontal X-Z plane,
                                // which is the X-Y plane of Z-up formats (IQM's xyradius)
};

// One entry per frame of every animation, in order: animation 0's frames, then animation 1's...
// For each frame, joint j's world matrix is the product down the hierarchy of parent-relative
// T * R * S matrices, from the frame's pose for j < Animation::channels and from the joint's rest
// transform otherwise. Vertices are skinned by linear blending: p' = sum_i w_i * W_i * R_i^-1 * p,
// with W the frame's world matrix and R the rest world matrix of joint i; influences with weight
// 0 or a joint index outside the skeleton are skipped, weights are not renormalised, and a vertex
// whose weights sum to 0 (or a mesh without blend arrays) stays at its rest position. Frames of a
// Scene without vertices get all zeros. Uses a second thread on large inputs.
std::vector<FrameBounds> frame_bounds(const Scene& scene);

}  // namespace meshport::ops
