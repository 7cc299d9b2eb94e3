#include "ops/animation/skinning.h"

#include <algorithm>

namespace meshport::ops {

std::vector<Mat3x4> joint_world_matrices(const std::vector<Joint>& joints, const Transform* poses, size_t channels) {
  std::vector<Mat3x4> w(joints.size());
  for (size_t j = 0; j < joints.size(); ++j) {
    const Transform& t = j < channels ? poses[j] : joints[j].rest;
    Mat3x4 local = mat_from_trs(t.translation, t.rotation, t.scale);
    int p = joints[j].parent;
    w[j] = p >= 0 && size_t(p) < j ? mat_mul(w[size_t(p)], local) : local;
  }
  return w;
}

std::vector<Mat3x4> inverse_rest_matrices(const std::vector<Joint>& joints) {
  std::vector<Mat3x4> m = joint_world_matrices(joints, nullptr, 0);
  for (Mat3x4& x : m) x = mat_inverse(x);
  return m;
}

std::vector<Mat3x4> frame_skinning_matrices(const Scene& scene, const std::vector<Mat3x4>& inverse_rest,
                                            const Animation& anim, size_t frame) {
  const Transform* poses = anim.poses.data() + frame * anim.channels;
  std::vector<Mat3x4> m = joint_world_matrices(scene.joints, poses, anim.channels);
  for (size_t j = 0; j < m.size() && j < inverse_rest.size(); ++j) m[j] = mat_mul(m[j], inverse_rest[j]);
  return m;
}

SkinStreams skin_streams(const Mesh& mesh) {
  SkinStreams s{mesh.find(Attribute::Position), mesh.find(Attribute::BlendIndices), mesh.find(Attribute::BlendWeights)};
  const size_t n = s.pos ? s.pos->vertex_count() : 0;
  if (!s.idx || !s.wgt || s.idx->vertex_count() != n || s.wgt->vertex_count() != n) s.idx = s.wgt = nullptr;
  return s;
}

Vec3 skin_position(const SkinStreams& s, size_t v, const std::vector<Mat3x4>& matrices) {
  const Vec3 p{s.pos->get(v, 0), s.pos->get(v, 1), s.pos->get(v, 2)};
  if (!s.idx) return p;
  const uint32_t n = std::min(s.idx->components, s.wgt->components);
  Vec3 out{0, 0, 0};
  float wsum = 0;
  for (uint32_t c = 0; c < n; ++c) {
    const float w = s.wgt->get(v, c), jf = s.idx->get(v, c);
    if (w == 0 || !(jf >= 0) || !(jf < float(matrices.size()))) continue;
    wsum += w;
    out = out + mat_apply(matrices[size_t(jf)], p) * w;
  }
  return wsum == 0 ? p : out;
}

}  // namespace meshport::ops
