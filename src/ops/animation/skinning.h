// Linear blend skinning shared by the per-frame bounds (ops/mesh/bounds.cpp) and `meshport diff`
// (src/summary/diff.cpp).
#pragma once

#include "core/math.h"

#include <meshport/scene.h>

#include <vector>

namespace meshport::ops {

// World matrices of every joint: the product down the hierarchy of parent-relative T * R * S
// matrices, from poses[j] for j < channels and from the joint's rest transform otherwise
// (poses may be null when channels is 0: the rest pose). A parent that does not precede its
// child is ignored (the joint is treated as a root).
std::vector<Mat3x4> joint_world_matrices(const std::vector<Joint>& joints, const Transform* poses, size_t channels);

// Inverses of the rest-pose world matrices (identity where singular).
std::vector<Mat3x4> inverse_rest_matrices(const std::vector<Joint>& joints);

// Skinning matrices W_j * R_j^-1 of one animation frame (frame < anim.frame_count()).
std::vector<Mat3x4> frame_skinning_matrices(const Scene& scene, const std::vector<Mat3x4>& inverse_rest,
                                            const Animation& anim, size_t frame);

// Position of vertex v of a mesh skinned by `matrices` (one per joint), with the rule of
// ops/mesh/bounds.h: p' = sum_i w_i * M_i * p over influences with weight != 0 and a joint index in
// range, weights not renormalised; a vertex whose weights sum to 0, or a mesh without both blend
// arrays, stays at its rest position. `pos` must have at least 3 components.
struct SkinStreams {
  const VertexStream* pos = nullptr;
  const VertexStream* idx = nullptr;  // nullptr when the mesh is not skinned
  const VertexStream* wgt = nullptr;
};
SkinStreams skin_streams(const Mesh& mesh);  // idx/wgt null unless both cover every vertex
Vec3 skin_position(const SkinStreams& s, size_t v, const std::vector<Mat3x4>& matrices);

}  // namespace meshport::ops
