// Similarity transforms of a whole Scene, texture V flips and winding flips.
//
// transform_scene applies M = T(translate) * R * S(scale) to the meshes, and keeps skinning
// consistent: for every joint (and animation pose) world matrix W it makes the new world matrix
// M * W * S(scale)^-1, so every skinning matrix W * Rest^-1 becomes M * (W * Rest^-1) * M^-1 and
// a skinned vertex M p lands on M (skinned p). In parent-relative terms: a root's transform is
// pre-multiplied by T(translate) * R (rotation R * q, translation s * R * t + translate); every
// other joint only has its translation multiplied by s; scales are unchanged.
//
// Morph targets: position displacements become s * R * d (no translation), normal
// displacements R * d.
//
// GPU instances (Mesh::instances) are model-space transforms of their mesh's vertices: they
// become M * instance, as model-space attachments do, and the instanced mesh's vertices stay.
//
// Attachments follow the same world matrices. A model-space one (joint -1) becomes M * A:
// translation s * R * t + translate, rotation R * q, scale multiplied by s. A joint-relative one
// becomes S(scale) * A (translation and scale multiplied by s, rotation kept), so that under its
// joint's new world matrix M * W * S^-1 it lands at M * W * A: the same place, turn and size as a
// model-space attachment at W * A. PIE points and shadow points (Scene::pie, PIE axes: Scene
// (x, y, z) = PIE (x, y, -z)) are transformed exactly as the vertices, so that a PIE writer still
// finds every vertex on its point.
#include <meshport/process.h>

#include "ops/mesh/face_channels.h"
#include "ops/mesh/triangulate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace meshport {

namespace {

// ---- Rotation, in double precision -----------------------------------------------------------

using DVec3 = std::array<double, 3>;
using DQuat = std::array<double, 4>;  // x y z w
using DMat3 = std::array<double, 9>;  // row-major: m[row * 3 + col]

// Reduces degrees to (-180, 180].
double wrap_degrees(double deg) {
  double r = std::fmod(deg, 360.0);
  if (r > 180) r -= 360;
  if (r <= -180) r += 360;
  return r;
}

// sin and cos of an angle in degrees; exact (0, +-1) for multiples of 90, so right-angle
// rotations permute coordinates exactly, like the axis conversion of src/ops/mesh/axes.h.
void sin_cos_degrees(double deg, double& s, double& c) {
  double r = wrap_degrees(deg);
  if (r == 0) {
    s = 0, c = 1;
  } else if (r == 90) {
    s = 1, c = 0;
  } else if (r == 180) {
    s = 0, c = -1;
  } else if (r == -90) {
    s = -1, c = 0;
  } else {
    double rad = r * (std::numbers::pi / 180.0);
    s = std::sin(rad), c = std::cos(rad);
  }
}

DQuat dquat_mul(const DQuat& a, const DQuat& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

DMat3 dmat_mul(const DMat3& a, const DMat3& b) {
  DMat3 m{};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m[r * 3 + c] = a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c];
  return m;
}

// The rotation of TransformOptions::rotate_degrees (about X, then Y, then Z), both as a matrix
// (built from the angles, so right angles are exact) and as the quaternion qz * qy * qx.
struct Rotation {
  DMat3 m;
  DQuat q;

  DVec3 apply(double x, double y, double z) const {
    return {m[0] * x + m[1] * y + m[2] * z, m[3] * x + m[4] * y + m[5] * z, m[6] * x + m[7] * y + m[8] * z};
  }
};

Rotation make_rotation(const std::array<float, 3>& degrees) {
  double sx, cx, sy, cy, sz, cz;
  sin_cos_degrees(degrees[0], sx, cx);
  sin_cos_degrees(degrees[1], sy, cy);
  sin_cos_degrees(degrees[2], sz, cz);
  DMat3 rx{1, 0, 0, 0, cx, -sx, 0, sx, cx};
  DMat3 ry{cy, 0, sy, 0, 1, 0, -sy, 0, cy};
  DMat3 rz{cz, -sz, 0, sz, cz, 0, 0, 0, 1};
  Rotation r;
  r.m = dmat_mul(rz, dmat_mul(ry, rx));
  // Half angles: wrapping first keeps a 360-degree turn the identity quaternion, not -identity.
  auto axis_quat = [](int axis, double deg) {
    double s, c;
    sin_cos_degrees(wrap_degrees(deg) / 2, s, c);
    DQuat q{0, 0, 0, c};
    q[axis] = s;
    return q;
  };
  r.q = dquat_mul(axis_quat(2, degrees[2]), dquat_mul(axis_quat(1, degrees[1]), axis_quat(0, degrees[0])));
  return r;
}

// ---- Checks ----------------------------------------------------------------------------------

bool all_finite(const std::array<float, 3>& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

void check_options(const TransformOptions& o) {
  if (!(std::isfinite(o.scale) && o.scale > 0))
    fail("", fmt::format("--scale must be a positive finite number, got {}", o.scale));
  if (!all_finite(o.rotate_degrees))
    fail("", fmt::format("--rotate must be finite numbers of degrees, got {} {} {}", o.rotate_degrees[0],
                         o.rotate_degrees[1], o.rotate_degrees[2]));
  if (!all_finite(o.translate))
    fail("", fmt::format("--translate must be finite numbers, got {} {} {}", o.translate[0], o.translate[1],
                         o.translate[2]));
}

bool is_identity(const TransformOptions& o) {
  return o.scale == 1 && o.rotate_degrees == std::array<float, 3>{0, 0, 0} &&
         o.translate == std::array<float, 3>{0, 0, 0};
}

// ---- Meshes ----------------------------------------------------------------------------------

// Pads every vertex of `s` to `n` components: 0, or 1 for a tangent's missing handedness.
void widen(VertexStream& s, uint32_t n) {
  if (s.components >= n) return;
  const size_t count = s.vertex_count();
  std::vector<float> data(count * n);
  for (size_t v = 0; v < count; ++v)
    for (uint32_t c = 0; c < n; ++c) data[v * n + c] = s.get(v, c, c == 3 ? 1.0f : 0.0f);
  s.data = std::move(data);
  s.components = n;
}

// p' = translate + R * (scale * p) over the first three components; others unchanged.
void transform_points(VertexStream& s, const Rotation& r, double scale, const std::array<float, 3>& t) {
  widen(s, 3);
  const uint32_t k = s.components;
  for (size_t i = 0; i + k <= s.data.size(); i += k) {
    float* p = &s.data[i];
    DVec3 q = r.apply(p[0], p[1], p[2]);
    for (int c = 0; c < 3; ++c) p[c] = float(q[c] * scale + t[c]);
  }
}

// v' = R * v over the first three components (normals, tangent directions); others unchanged.
void rotate_vectors(VertexStream& s, const Rotation& r) {
  widen(s, 3);
  const uint32_t k = s.components;
  for (size_t i = 0; i + k <= s.data.size(); i += k) {
    float* p = &s.data[i];
    DVec3 q = r.apply(p[0], p[1], p[2]);
    for (int c = 0; c < 3; ++c) p[c] = float(q[c]);
  }
}

// d' = R * (scale * d) for packed xyz triples (morph target displacements: no translation).
void transform_triples(std::vector<float>& d, const Rotation& r, double scale) {
  for (size_t i = 0; i + 3 <= d.size(); i += 3) {
    const DVec3 q = r.apply(d[i], d[i + 1], d[i + 2]);
    for (int c = 0; c < 3; ++c) d[i + size_t(c)] = float(q[c] * scale);
  }
}

void transform_mesh(Mesh& m, const Rotation& r, double scale, const std::array<float, 3>& t) {
  for (VertexStream& s : m.streams) {
    if (s.attribute == Attribute::Position) transform_points(s, r, scale, t);
    if (s.attribute == Attribute::Normal || s.attribute == Attribute::Tangent) rotate_vectors(s, r);
  }
  // Morph targets are displacements: scaled and rotated, never translated; normal and tangent
  // displacements (differences of unit vectors) are rotated only.
  for (MorphTarget& mt : m.morph_targets) {
    transform_triples(mt.positions, r, scale);
    transform_triples(mt.normals, r, 1.0);
    transform_triples(mt.tangents, r, 1.0);
  }
}

// ---- Skeleton and animations -----------------------------------------------------------------

void transform_root(Transform& x, const Rotation& r, double scale, const std::array<float, 3>& t) {
  DVec3 p = r.apply(x.translation[0], x.translation[1], x.translation[2]);
  for (int c = 0; c < 3; ++c) x.translation[c] = float(p[c] * scale + t[c]);
  DQuat q = dquat_mul(r.q, {x.rotation[0], x.rotation[1], x.rotation[2], x.rotation[3]});
  for (int c = 0; c < 4; ++c) x.rotation[c] = float(q[c]);
}

void transform_child(Transform& x, double scale) {
  for (float& v : x.translation) v = float(v * scale);
}

void transform_attachment(Attachment& a, const Rotation& r, double scale, const std::array<float, 3>& t) {
  if (a.joint < 0)
    transform_root(a.transform, r, scale, t);
  else
    transform_child(a.transform, scale);
  for (float& v : a.transform.scale) v = float(v * scale);
}

// A PIE point (x, y, z) is the Scene position (x, y, -z): transformed as transform_points does.
void transform_pie_points(std::vector<std::array<float, 3>>& points, const Rotation& r, double scale,
                          const std::array<float, 3>& t) {
  for (auto& p : points) {
    const DVec3 q = r.apply(p[0], p[1], -p[2]);
    const std::array<float, 3> v{float(q[0] * scale + t[0]), float(q[1] * scale + t[1]), float(q[2] * scale + t[2])};
    p = {v[0], v[1], -v[2]};
  }
}

// The parent of animation channel j: the joint's parent where the scene has that joint, else
// the IQM pose parent (animation-only files), else none (a root).
int32_t channel_parent(const Scene& scene, size_t j) {
  if (j < scene.joints.size()) return scene.joints[j].parent;
  if (scene.joints.empty() && j < value_or_empty(scene.iqm).pose_parents.size()) return value_or_empty(scene.iqm).pose_parents[j];
  return -1;
}

void transform_animation(const Scene& scene, Animation& a, const Rotation& r, double scale,
                         const std::array<float, 3>& t) {
  if (a.channels == 0) return;
  std::vector<bool> root(a.channels);
  for (size_t j = 0; j < a.channels; ++j) root[j] = channel_parent(scene, j) < 0;
  for (size_t i = 0; i < a.poses.size(); ++i) {
    if (root[i % a.channels])
      transform_root(a.poses[i], r, scale, t);
    else
      transform_child(a.poses[i], scale);
  }
}

}  // namespace

void transform_scene(Scene& scene, const TransformOptions& options) {
  check_options(options);
  if (is_identity(options)) return;  // keeps every bit, including the sign of zeros
  const Rotation r = make_rotation(options.rotate_degrees);
  const double scale = options.scale;
  const std::array<float, 3>& t = options.translate;
  for (Mesh& m : scene.meshes) {
    if (m.instances.empty()) {
      transform_mesh(m, r, scale, t);
      continue;
    }
    // GPU instances: model space is instance * vertex, so M * instance is the new instance (as a
    // model-space attachment: exact in translation, rotation and scale); the vertices stay.
    for (Transform& k : m.instances) {
      Attachment a;
      a.transform = k;
      transform_attachment(a, r, scale, t);
      k = a.transform;
    }
  }
  for (Joint& j : scene.joints) {
    if (j.parent < 0)
      transform_root(j.rest, r, scale, t);
    else
      transform_child(j.rest, scale);
  }
  for (Animation& a : scene.animations) transform_animation(scene, a, r, scale, t);
  for (Attachment& a : scene.attachments) transform_attachment(a, r, scale, t);
  if (scene.pie)
    for (PieLevel& l : scene.pie->levels) {
      transform_pie_points(l.points, r, scale, t);
      transform_pie_points(l.shadow_points, r, scale, t);
    }
}

// ---- flip_v ----------------------------------------------------------------------------------

void flip_v(Scene& scene) {
  for (Mesh& m : scene.meshes) {
    bool flipped = false;
    for (VertexStream& s : m.streams) {
      if (s.attribute != Attribute::Texcoord || s.components < 2) continue;
      for (size_t i = 1; i < s.data.size(); i += s.components) s.data[i] = 1.0f - s.data[i];
      flipped = true;
    }
    // Mirroring texture space reverses the bitangent. Decision: only meshes whose texture
    // coordinates were flipped have their tangents' handedness negated.
    VertexStream* tangents = m.find(Attribute::Tangent);
    if (!flipped || !tangents) continue;
    widen(*tangents, 4);
    for (size_t i = 3; i < tangents->data.size(); i += tangents->components)
      tangents->data[i] = -tangents->data[i];
  }
}

// ---- flip_winding ----------------------------------------------------------------------------

// The polygon q0..qn-1 becomes (q0, qn-1, .., q1). Its fan (q0 qi qi+1), i = 1..n-2, becomes the
// fan (q0 qn-i qn-i-1): triangle i of the new fan is old triangle n-1-i with two corners swapped,
// so each face's triangles are swapped (a b c) -> (a c b) and their order reversed. New corner k
// leaves along the old edge n-1-k reversed, so the face's corner flags are reversed too.
void flip_winding(Scene& scene) {
  for (Mesh& m : scene.meshes) {
    if (m.topology != Topology::Triangles) continue;  // lines and points have no winding
    std::vector<uint32_t>& tris = m.triangles;
    for (size_t i = 0; i + 3 <= tris.size(); i += 3) std::swap(tris[i + 1], tris[i + 2]);
    // Decision: when polygon_sizes does not cover the triangles, only the triangles are flipped
    // and the face data is left as it is.
    if (!ops::polygons_fit(m)) continue;
    SmoothingRules& s = m.smoothing;
    size_t corners = m.polygon_sizes.empty() ? tris.size() : 0;
    for (uint32_t n : m.polygon_sizes) corners += n;
    const bool flags = s.corner_edge.size() == corners;
    // The face channels follow their triangles: order[new] = old triangle.
    std::vector<uint32_t> order(m.polygon_sizes.empty() ? 0 : tris.size() / 3);
    ops::for_each_face(m, [&](const ops::Face& f) {
      auto first = tris.begin() + ptrdiff_t(f.first_triangle * 3);
      for (size_t a = 0, b = f.size - 3; a < b; ++a, --b)
        std::swap_ranges(first + ptrdiff_t(a * 3), first + ptrdiff_t(a * 3 + 3), first + ptrdiff_t(b * 3));
      for (size_t k = 0; k + 2 < f.size && !order.empty(); ++k)
        order[f.first_triangle + k] = uint32_t(f.first_triangle + f.size - 3 - k);
      if (flags) {
        auto c = s.corner_edge.begin() + ptrdiff_t(f.first_corner);
        std::reverse(c, c + f.size);
      }
    });
    if (!order.empty()) ops::select_face_channels(m, order);
  }
}

}  // namespace meshport
