// Bounds: boxes and spheres of meshes at rest and, with skinning, per animation frame.
#pragma once

#include <meshport/meshport.h>
#include <meshport/process.h>

#include <array>
#include <vector>

namespace meshport::ops {

// Axis-aligned box over every mesh's rest positions (Scene convention).
Bounds rest_bounds(const Scene& scene);

using FrameBounds = meshport::FrameBounds;

// One entry per frame of every animation, in order: animation 0's frames, then animation 1's...
// For each frame, joint j's world matrix is the product down the hierarchy of parent-relative
// T * R * S matrices, from the frame's pose for j < Animation::channels and from the joint's rest
// transform otherwise. Vertices are skinned by linear blending: p' = sum_i w_i * W_i * R_i^-1 * p,
// with W the frame's world matrix and R the rest world matrix of joint i; influences with weight
// 0 or a joint index outside the skeleton are skipped, weights are not renormalised, and a vertex
// whose weights sum to 0 (or a mesh without blend arrays) stays at its rest position. Frames of a
// Scene without vertices get all zeros. On large inputs the vertices are shared out over
// `threads` threads (0: every core, 1: the calling thread only).
std::vector<FrameBounds> skinned_frame_bounds(const Scene& scene, unsigned threads = 0);  // meshport::frame_bounds

}  // namespace meshport::ops
