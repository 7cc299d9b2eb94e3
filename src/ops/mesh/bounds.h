// Bounds: boxes and spheres of meshes at rest and, with skinning, per animation frame.
#pragma once

#include <meshport/options.h>
#include <meshport/process.h>

#include <array>
#include <cstdint>
#include <span>
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

// One mesh's vertices for the bounds, as arrays in memory: a writer passes what it encoded, so the
// bounds are those of what a loader sees, without copying the arrays into a Scene. Blend indices
// are floats or bytes; weights floats, or bytes read through `weight_values` (256 entries: the
// value each byte decodes to). influences == 0: not skinned (the rest positions).
struct SkinArrays {
  const float* positions = nullptr;  // x y z at every position_stride floats (stride >= 3)
  size_t position_stride = 3;
  size_t count = 0;
  size_t influences = 0;
  const float* indices = nullptr;
  const uint8_t* index_bytes = nullptr;  // used instead of indices when not null
  size_t index_stride = 0;
  const float* weights = nullptr;
  const uint8_t* weight_bytes = nullptr;  // used instead of weights when not null
  const float* weight_values = nullptr;
  size_t weight_stride = 0;
};

// The same as above for the skeleton and animations of `scene` (its meshes are not used) and
// the vertices of `meshes`. With `cull`, clusters of vertices that provably cannot move a block of
// frames' bounds are not skinned (bounds.cpp: same result to the bit); `skipped`, when given, is
// increased by the vertex-frames left out.
std::vector<FrameBounds> skinned_frame_bounds(const Scene& scene, std::span<const SkinArrays> meshes,
                                              unsigned threads, bool cull = true, uint64_t* skipped = nullptr);

}  // namespace meshport::ops
