// transform_scene, flip_v and flip_winding (src/ops/mesh/transform.cpp).
#include <meshport/process.h>

#include "core/math.h"
#include "ops/mesh/triangulate.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace meshport_test_ops_transform {

using namespace meshport;

namespace {

Transform trs(Vec3 t, Quat q, Vec3 s = {1, 1, 1}) {
  Transform x;
  x.translation = t;
  x.rotation = quat_normalize(q);
  x.scale = s;
  return x;
}

Quat axis_angle(Vec3 axis, float degrees) {
  float h = degrees * std::numbers::pi_v<float> / 360.0f;
  Vec3 a = normalize(axis);
  return {a[0] * std::sin(h), a[1] * std::sin(h), a[2] * std::sin(h), std::cos(h)};
}

// A skinned two-joint scene: three vertices with positions, normals, tangents (w = -1 on one),
// texture coordinates and weights; a root and a child joint with non-uniform scales; a two-frame
// animation.
Scene skinned_scene() {
  Scene s;
  Mesh m;
  m.name = "m";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0.1f, 0.2f, 0.3f, -0.5f, 0.25f, 0.75f, 0.6f, -0.4f, 0.9f}));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0.6f, 0.8f, 0, 0, -1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Tangent, 4, {1, 0, 0, 1, 0, 0, 1, -1, 0.8f, -0.6f, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0.5f, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 2, {0, 1, 0, 1, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 2, {1, 0, 0.5f, 0.5f, 0.75f, 0.25f}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  s.joints.push_back({"root", -1, trs({0.1f, 0.3f, -0.2f}, axis_angle({0, 1, 0}, 20), {1, 1.5f, 1})});
  s.joints.push_back({"child", 0, trs({0, 0.5f, 0.1f}, axis_angle({1, 0, 1}, -35), {0.8f, 1, 1.2f})});
  Animation a;
  a.name = "a";
  a.channels = 2;
  a.poses = {trs({0.2f, 0.3f, -0.1f}, axis_angle({0, 1, 0}, 40), {1, 1.25f, 1}),
             trs({0, 0.6f, 0.1f}, axis_angle({1, 0, 0}, 50), {0.9f, 1, 1.1f}),
             trs({-0.3f, 0.1f, 0.2f}, axis_angle({1, 1, 0}, -70)),
             trs({0.1f, 0.4f, 0}, axis_angle({0, 0, 1}, 25), {1, 0.7f, 1})};
  s.animations.push_back(a);
  return s;
}

TransformOptions rotate(float x, float y, float z) {
  TransformOptions o;
  o.rotate_degrees = {x, y, z};
  return o;
}
TransformOptions scale(float s) {
  TransformOptions o;
  o.scale = s;
  return o;
}
TransformOptions translate(float x, float y, float z) {
  TransformOptions o;
  o.translate = {x, y, z};
  return o;
}

void expect_near(const std::vector<float>& a, const std::vector<float>& b, float tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << what << " [" << i << "]";
}

// Quaternions q and -q are the same rotation.
void expect_quat_near(Quat a, Quat b, float tol, const std::string& what) {
  float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(a[c], d < 0 ? -b[c] : b[c], tol) << what << " [" << c << "]";
}

void expect_transform_near(const Transform& a, const Transform& b, float tol, const std::string& what) {
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(a.translation[c], b.translation[c], tol) << what << " t" << c;
  expect_quat_near(a.rotation, b.rotation, tol, what + " q");
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(a.scale[c], b.scale[c], tol) << what << " s" << c;
}

void expect_scene_near(const Scene& a, const Scene& b, float tol) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t i = 0; i < a.meshes.size(); ++i) {
    ASSERT_EQ(a.meshes[i].streams.size(), b.meshes[i].streams.size());
    for (size_t k = 0; k < a.meshes[i].streams.size(); ++k)
      expect_near(a.meshes[i].streams[k].data, b.meshes[i].streams[k].data, tol, "stream " + std::to_string(k));
    EXPECT_EQ(a.meshes[i].triangles, b.meshes[i].triangles);
  }
  ASSERT_EQ(a.joints.size(), b.joints.size());
  for (size_t j = 0; j < a.joints.size(); ++j)
    expect_transform_near(a.joints[j].rest, b.joints[j].rest, tol, "joint " + std::to_string(j));
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t k = 0; k < a.animations.size(); ++k) {
    ASSERT_EQ(a.animations[k].poses.size(), b.animations[k].poses.size());
    for (size_t p = 0; p < a.animations[k].poses.size(); ++p)
      expect_transform_near(a.animations[k].poses[p], b.animations[k].poses[p], tol, "pose " + std::to_string(p));
  }
}

// ---- Linear blend skinning, written out plainly for the test ---------------------------------

std::vector<Mat3x4> world(const Scene& s, const std::vector<Transform>& local) {
  std::vector<Mat3x4> w(local.size());
  for (size_t j = 0; j < local.size(); ++j) {
    const Transform& t = local[j];
    Mat3x4 l = mat_from_trs(t.translation, t.rotation, t.scale);
    w[j] = s.joints[j].parent >= 0 ? mat_mul(w[s.joints[j].parent], l) : l;
  }
  return w;
}

// Positions of mesh 0 skinned at `frame` of animation 0: p' = sum w_i * W_i * Rest_i^-1 * p.
std::vector<Vec3> skin(const Scene& s, size_t frame) {
  std::vector<Transform> rest_local, pose_local;
  for (const Joint& j : s.joints) rest_local.push_back(j.rest);
  const Animation& a = s.animations[0];
  for (size_t j = 0; j < a.channels; ++j) pose_local.push_back(a.poses[frame * a.channels + j]);
  std::vector<Mat3x4> rest = world(s, rest_local), pose = world(s, pose_local);
  const Mesh& m = s.meshes[0];
  const VertexStream* p = m.find(Attribute::Position);
  const VertexStream* bi = m.find(Attribute::BlendIndices);
  const VertexStream* bw = m.find(Attribute::BlendWeights);
  std::vector<Vec3> out;
  for (size_t v = 0; v < p->vertex_count(); ++v) {
    Vec3 q{p->get(v, 0), p->get(v, 1), p->get(v, 2)};
    Vec3 sum{0, 0, 0};
    for (uint32_t c = 0; c < bw->components; ++c) {
      size_t j = size_t(bi->get(v, c));
      sum = sum + mat_apply(mat_mul(pose[j], mat_inverse(rest[j])), q) * bw->get(v, c);
    }
    out.push_back(sum);
  }
  return out;
}

// The transform independently: translate + R * (scale * p), R from qz * qy * qx.
Mat3x4 option_matrix(const TransformOptions& o) {
  Quat q = quat_mul(axis_angle({0, 0, 1}, o.rotate_degrees[2]),
                    quat_mul(axis_angle({0, 1, 0}, o.rotate_degrees[1]), axis_angle({1, 0, 0}, o.rotate_degrees[0])));
  return mat_from_trs(o.translate, q, {o.scale, o.scale, o.scale});
}

}  // namespace

// ---- transform_scene -------------------------------------------------------------------------

TEST(OpsTransform, InverseRestoresEverything) {
  const Scene original = skinned_scene();
  Scene s = original;
  TransformOptions o;
  o.scale = 2;
  o.rotate_degrees = {30, -45, 60};
  o.translate = {0.5f, -0.25f, 0.75f};
  transform_scene(s, o);
  // M = T * Rz * Ry * Rx * S, so M^-1 = S^-1 * Rx^-1 * Ry^-1 * Rz^-1 * T^-1, applied right to left.
  transform_scene(s, translate(-0.5f, 0.25f, -0.75f));
  transform_scene(s, rotate(0, 0, -60));
  transform_scene(s, rotate(0, 45, 0));
  transform_scene(s, rotate(-30, 0, 0));
  transform_scene(s, scale(0.5f));
  expect_scene_near(s, original, 1e-6f);
}

TEST(OpsTransform, RotationOrderIsXThenYThenZ) {
  // Rotating by (x, y, z) at once equals rotating about X, then Y, then Z in three steps.
  Scene once = skinned_scene(), steps = skinned_scene();
  transform_scene(once, rotate(30, -45, 60));
  transform_scene(steps, rotate(30, 0, 0));
  transform_scene(steps, rotate(0, -45, 0));
  transform_scene(steps, rotate(0, 0, 60));
  expect_scene_near(once, steps, 1e-6f);
}

TEST(OpsTransform, RightAngleRotationsAreExact) {
  struct Case {
    TransformOptions o;
    Vec3 p, n;      // (1, 2, 3) and normal (0.6, 0.8, 0) rotated
    Quat q;         // the root's identity rotation becomes the rotation itself
  };
  const float h = std::sqrt(0.5f);
  const Case cases[] = {
      {rotate(90, 0, 0), {1, -3, 2}, {0.6f, 0, 0.8f}, {h, 0, 0, h}},
      {rotate(0, 90, 0), {3, 2, -1}, {0, 0.8f, -0.6f}, {0, h, 0, h}},
      {rotate(0, 0, 90), {-2, 1, 3}, {-0.8f, 0.6f, 0}, {0, 0, h, h}},
      {rotate(90, 90, 0), {2, -3, -1}, {0.8f, 0, -0.6f}, {0.5f, 0.5f, -0.5f, 0.5f}},  // X first, then Y
      {rotate(-90, 180, 450), {-3, -1, 2}, {0, -0.6f, 0.8f}, {}},
  };
  for (const Case& c : cases) {
    Scene s;
    Mesh m;
    m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {1, 2, 3}));
    m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0.6f, 0.8f, 0}));
    m.streams.push_back(testutil::float_stream(Attribute::Tangent, 4, {0.6f, 0.8f, 0, -1}));
    s.meshes.push_back(m);
    s.joints.push_back({"root", -1, trs({1, 2, 3}, {0, 0, 0, 1})});
    s.joints.push_back({"child", 0, trs({1, 2, 3}, axis_angle({1, 0, 0}, 30), {1, 2, 3})});
    const Joint child = s.joints[1];
    transform_scene(s, c.o);
    const Mesh& r = s.meshes[0];
    EXPECT_EQ(r.find(Attribute::Position)->data, (std::vector<float>{c.p[0], c.p[1], c.p[2]}));
    EXPECT_EQ(r.find(Attribute::Normal)->data, (std::vector<float>{c.n[0], c.n[1], c.n[2]}));
    EXPECT_EQ(r.find(Attribute::Tangent)->data, (std::vector<float>{c.n[0], c.n[1], c.n[2], -1}));
    EXPECT_EQ(s.joints[0].rest.translation, c.p);
    if (c.q != Quat{}) expect_quat_near(s.joints[0].rest.rotation, c.q, 1e-7f, "root rotation");
    EXPECT_EQ(s.joints[1], child);  // a child is unchanged by a rotation
  }
}

TEST(OpsTransform, ScaleAndTranslate) {
  Scene s = skinned_scene();
  const Scene before = s;
  transform_scene(s, scale(2));
  const Mesh& m = s.meshes[0];
  for (size_t i = 0; i < 9; ++i)
    EXPECT_EQ(m.find(Attribute::Position)->data[i], 2 * before.meshes[0].find(Attribute::Position)->data[i]);
  EXPECT_EQ(m.find(Attribute::Normal)->data, before.meshes[0].find(Attribute::Normal)->data);
  EXPECT_EQ(m.find(Attribute::Tangent)->data, before.meshes[0].find(Attribute::Tangent)->data);
  EXPECT_EQ(m.find(Attribute::Texcoord)->data, before.meshes[0].find(Attribute::Texcoord)->data);
  for (size_t j = 0; j < 2; ++j) {
    const Transform &a = s.joints[j].rest, &b = before.joints[j].rest;
    EXPECT_EQ(a.translation, (Vec3{2 * b.translation[0], 2 * b.translation[1], 2 * b.translation[2]}));
    EXPECT_EQ(a.rotation, b.rotation);
    EXPECT_EQ(a.scale, b.scale);
  }
  for (size_t p = 0; p < 4; ++p) {
    const Transform &a = s.animations[0].poses[p], &b = before.animations[0].poses[p];
    EXPECT_EQ(a.translation, (Vec3{2 * b.translation[0], 2 * b.translation[1], 2 * b.translation[2]}));
    EXPECT_EQ(a.rotation, b.rotation);
    EXPECT_EQ(a.scale, b.scale);
  }

  // Translation: positions and roots move (each sum rounded once, as float addition rounds it).
  s = before;
  const Vec3 t{1, -2, 0.5f};
  transform_scene(s, translate(t[0], t[1], t[2]));
  const std::vector<float>& p0 = before.meshes[0].find(Attribute::Position)->data;
  const std::vector<float>& p1 = s.meshes[0].find(Attribute::Position)->data;
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(p1[i], p0[i] + t[i % 3]);
  EXPECT_EQ(s.meshes[0].find(Attribute::Normal)->data, before.meshes[0].find(Attribute::Normal)->data);
  EXPECT_EQ(s.joints[0].rest.translation, before.joints[0].rest.translation + t);
  EXPECT_EQ(s.joints[0].rest.rotation, before.joints[0].rest.rotation);
  EXPECT_EQ(s.joints[1], before.joints[1]);  // only roots move
  const std::vector<Transform>& poses = before.animations[0].poses;
  EXPECT_EQ(s.animations[0].poses[0].translation, poses[0].translation + t);
  EXPECT_EQ(s.animations[0].poses[1], poses[1]);
  EXPECT_EQ(s.animations[0].poses[2].translation, poses[2].translation + t);
  EXPECT_EQ(s.animations[0].poses[3], poses[3]);
  EXPECT_EQ(s.animations[0].poses[2].rotation, poses[2].rotation);
}

TEST(OpsTransform, SkinnedResultsTransformToo) {
  TransformOptions o;
  o.scale = 1.7f;
  o.rotate_degrees = {25, -130, 70};
  o.translate = {0.4f, -1.2f, 2.5f};
  const Scene before = skinned_scene();
  Scene after = before;
  transform_scene(after, o);
  const Mat3x4 m = option_matrix(o);
  for (size_t frame = 0; frame < 2; ++frame) {
    std::vector<Vec3> a = skin(before, frame), b = skin(after, frame);
    ASSERT_EQ(a.size(), b.size());
    for (size_t v = 0; v < a.size(); ++v) {
      Vec3 expected = mat_apply(m, a[v]);
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(b[v][c], expected[c], 1e-5f) << "frame " << frame << " vertex " << v;
    }
  }
  // The rest positions are transformed by the same matrix.
  const VertexStream* p0 = before.meshes[0].find(Attribute::Position);
  const VertexStream* p1 = after.meshes[0].find(Attribute::Position);
  for (size_t v = 0; v < 3; ++v) {
    Vec3 expected = mat_apply(m, {p0->get(v, 0), p0->get(v, 1), p0->get(v, 2)});
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(p1->get(v, c), expected[c], 1e-5f);
  }
}

TEST(OpsTransform, AnimationOnlyChannelsUsePoseParents) {
  Scene s;
  Animation a;
  a.channels = 2;
  a.poses = {trs({1, 0, 0}, {0, 0, 0, 1}), trs({1, 0, 0}, {0, 0, 0, 1})};
  s.animations.push_back(a);
  s.iqm.emplace().pose_parents = {-1, 0};
  TransformOptions o = rotate(0, 0, 90);
  o.scale = 2;
  Scene t = s;
  transform_scene(t, o);
  EXPECT_EQ(t.animations[0].poses[0].translation, (Vec3{0, 2, 0}));  // root: rotated and scaled
  EXPECT_EQ(t.animations[0].poses[1].translation, (Vec3{2, 0, 0}));  // child: scaled
  EXPECT_EQ(t.animations[0].poses[1].rotation, (Quat{0, 0, 0, 1}));
  // Without pose parents every channel is a root.
  s.iqm->pose_parents.clear();
  transform_scene(s, o);
  EXPECT_EQ(s.animations[0].poses[0].translation, (Vec3{0, 2, 0}));
  EXPECT_EQ(s.animations[0].poses[1].translation, (Vec3{0, 2, 0}));
}

TEST(OpsTransform, RejectsBadOptions) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const Scene before = skinned_scene();
  Scene s = before;
  for (float bad : {0.0f, -1.0f, nan, inf}) {
    try {
      transform_scene(s, scale(bad));
      ADD_FAILURE() << "scale " << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--scale must be a positive finite number"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(transform_scene(s, rotate(0, nan, 0)), Error);
  EXPECT_THROW(transform_scene(s, translate(0, 0, -inf)), Error);
  EXPECT_EQ(s, before);
}

TEST(OpsTransform, IdentityKeepsEveryBit) {
  Scene s = skinned_scene();
  s.meshes[0].streams[0].data[0] = -0.0f;
  const Scene before = s;
  transform_scene(s, TransformOptions{});
  EXPECT_EQ(s, before);
  EXPECT_TRUE(std::signbit(s.meshes[0].streams[0].data[0]));
}

// ---- flip_v ----------------------------------------------------------------------------------

TEST(OpsTransform, FlipV) {
  Scene s;
  Mesh m;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0.25f, 0, 0.5f, 0.875f}));
  m.streams.push_back(testutil::float_stream(Attribute::Tangent, 4, {1, 0, 0, 1, 0, 1, 0, -1}));
  m.streams.push_back(testutil::float_stream(Attribute::Custom, 2, {0.25f, 0, 0.5f, 0.875f}));
  s.meshes.push_back(m);
  Mesh plain;  // tangents without texture coordinates: nothing is mirrored
  plain.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0}));
  plain.streams.push_back(testutil::float_stream(Attribute::Tangent, 4, {1, 0, 0, 1}));
  s.meshes.push_back(plain);
  const Scene before = s;
  flip_v(s);
  EXPECT_EQ(s.meshes[0].streams[1].data, (std::vector<float>{0.25f, 1, 0.5f, 0.125f}));
  EXPECT_EQ(s.meshes[0].streams[2].data, (std::vector<float>{1, 0, 0, -1, 0, 1, 0, 1}));
  EXPECT_EQ(s.meshes[0].streams[3], before.meshes[0].streams[3]);
  EXPECT_EQ(s.meshes[0].streams[0], before.meshes[0].streams[0]);
  EXPECT_EQ(s.meshes[1], before.meshes[1]);
  flip_v(s);
  EXPECT_EQ(s, before);
}

// ---- flip_winding ----------------------------------------------------------------------------

TEST(OpsTransform, FlipWindingTriangles) {
  Scene s;
  Mesh m;
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.triangles = {0, 1, 2, 3, 4, 5};
  // Triangle 0: edges 0->1 sharp-free (1), 1->2 sharp (0), 2->0 sharp (0).
  m.smoothing.corner_edge = {1, 0, 0, 0, 1, 1};
  m.smoothing.face_group = {3, 4};
  s.meshes.push_back(m);
  const Scene before = s;
  flip_winding(s);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1, 3, 5, 4}));
  // (0 2 1): 0->2 is the old edge 2->0, 2->1 the old 1->2, 1->0 the old 0->1.
  EXPECT_EQ(s.meshes[0].smoothing.corner_edge, (std::vector<uint8_t>{0, 0, 1, 1, 1, 0}));
  EXPECT_EQ(s.meshes[0].smoothing.face_group, before.meshes[0].smoothing.face_group);
  EXPECT_EQ(s.meshes[0].streams, before.meshes[0].streams);  // normals kept
  flip_winding(s);
  EXPECT_EQ(s, before);
}

TEST(OpsTransform, FlipWindingPolygons) {
  Scene s;
  Mesh m;
  using Ids = std::vector<uint32_t>;
  ops::append_polygon(m, Ids{0, 1, 2});
  ops::append_polygon(m, Ids{3, 4, 5, 6, 7});
  ops::append_polygon(m, Ids{8, 9, 10, 11});
  // Pentagon flags: 3->4 1, 4->5 0, 5->6 1, 6->7 1, 7->3 0.
  m.smoothing.corner_edge = {1, 1, 0, /**/ 1, 0, 1, 1, 0, /**/ 0, 1, 1, 1};
  m.smoothing.face_angle = {10, 20, 30};
  s.meshes.push_back(m);
  const Scene before = s;
  flip_winding(s);
  const Mesh& r = s.meshes[0];
  EXPECT_EQ(r.polygon_sizes, (Ids{3, 5, 4}));
  EXPECT_EQ(r.triangles, (Ids{0, 2, 1, /**/ 3, 7, 6, 3, 6, 5, 3, 5, 4, /**/ 8, 11, 10, 8, 10, 9}));
  EXPECT_EQ(ops::polygon_corners(r, 1), (Ids{3, 7, 6, 5, 4}));
  EXPECT_EQ(ops::polygon_corners(r, 2), (Ids{8, 11, 10, 9}));
  // Pentagon (3 7 6 5 4): 3->7 is old 7->3 (0), 7->6 old 6->7 (1), 6->5 (1), 5->4 (0), 4->3 (1).
  EXPECT_EQ(r.smoothing.corner_edge, (std::vector<uint8_t>{0, 1, 1, /**/ 0, 1, 1, 0, 1, /**/ 1, 1, 1, 0}));
  EXPECT_EQ(r.smoothing.face_angle, before.meshes[0].smoothing.face_angle);
  flip_winding(s);
  EXPECT_EQ(s, before);
}

TEST(OpsTransform, FlipWindingWithPolygonsThatDoNotFit) {
  Scene s;
  Mesh m;
  m.triangles = {0, 1, 2, 3, 4, 5};
  m.polygon_sizes = {5};  // claims 3 triangles
  m.smoothing.corner_edge = {1, 0, 0, 0, 1};
  s.meshes.push_back(m);
  flip_winding(s);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1, 3, 5, 4}));
  EXPECT_EQ(s.meshes[0].polygon_sizes, m.polygon_sizes);
  EXPECT_EQ(s.meshes[0].smoothing, m.smoothing);
}

TEST(OpsTransform, NarrowStreamsAreWidened) {
  // A 2-component position gains z = 0 before rotating; a 3-component tangent gains w = +1
  // before flip_v negates it.
  Scene s;
  Mesh m;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 2, {1, 2}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0.25f, 0.25f}));
  m.streams.push_back(testutil::float_stream(Attribute::Tangent, 3, {1, 0, 0}));
  s.meshes.push_back(m);
  transform_scene(s, rotate(90, 0, 0));
  EXPECT_EQ(s.meshes[0].streams[0].components, 3u);
  EXPECT_EQ(s.meshes[0].streams[0].data, (std::vector<float>{1, 0, 2}));
  flip_v(s);
  EXPECT_EQ(s.meshes[0].streams[2].components, 4u);
  EXPECT_EQ(s.meshes[0].streams[2].data, (std::vector<float>{1, 0, 0, -1}));
}

// ---- Attachments and PIE points ------------------------------------------------------------------

TEST(OpsTransform, AttachmentsExactValues) {
  // Model space: like a position (translation), rotation composed, scale multiplied. Joint
  // relative: translation and scale multiplied by the scale, as the joint's frame keeps its size.
  Scene s;
  s.meshes.push_back(Mesh{});
  s.joints.push_back({"j", -1, trs({0, 0, 0}, {0, 0, 0, 1})});
  s.attachments.push_back({"model", 0, -1, trs({1, 0, 0}, {0, 0, 0, 1})});
  s.attachments.push_back({"joint", -1, 0, trs({1, 0, 0}, {0, 0, 0, 1}, {1, 0.5f, 1})});
  TransformOptions o = rotate(0, 90, 0);
  o.scale = 2;
  o.translate = {1, 2, 3};
  transform_scene(s, o);
  const float h = std::sqrt(0.5f);
  EXPECT_EQ(s.attachments[0].transform.translation, (Vec3{1, 2, 1}));  // (1, 0, 0) -> (0, 0, -2) + t
  expect_quat_near(s.attachments[0].transform.rotation, {0, h, 0, h}, 1e-7f, "model rotation");
  EXPECT_EQ(s.attachments[0].transform.scale, (Vec3{2, 2, 2}));
  EXPECT_EQ(s.attachments[0].mesh, 0);
  EXPECT_EQ(s.attachments[1].transform, trs({2, 0, 0}, {0, 0, 0, 1}, {2, 1, 2}));
  EXPECT_EQ(s.attachments[1].joint, 0);
}

TEST(OpsTransform, AttachmentsFollowTheModel) {
  // After the transform M, every attachment's world matrix is M times its old one (scale included),
  // whether it is in model space or under a joint.
  Scene s = skinned_scene();
  s.attachments.push_back({"model", 0, -1, trs({0.3f, -0.2f, 0.9f}, axis_angle({1, 2, 3}, 40), {1, 1.5f, 0.5f})});
  s.attachments.push_back({"on_child", 0, 1, trs({0.1f, 0.4f, -0.3f}, axis_angle({0, 1, 1}, -25), {2, 1, 1})});
  s.attachments.push_back({"on_root", -1, 0, trs({-0.5f, 0, 0.2f}, {0, 0, 0, 1})});
  TransformOptions o;
  o.scale = 1.7f;
  o.rotate_degrees = {25, -130, 70};
  o.translate = {0.4f, -1.2f, 2.5f};
  auto worlds = [](const Scene& x) {
    std::vector<Transform> rest;
    for (const Joint& j : x.joints) rest.push_back(j.rest);
    const std::vector<Mat3x4> joint_world = world(x, rest);
    std::vector<Mat3x4> r;
    for (const Attachment& a : x.attachments) {
      const Mat3x4 local = mat_from_trs(a.transform.translation, a.transform.rotation, a.transform.scale);
      r.push_back(a.joint >= 0 ? mat_mul(joint_world[size_t(a.joint)], local) : local);
    }
    return r;
  };
  const std::vector<Mat3x4> before = worlds(s);
  transform_scene(s, o);
  const std::vector<Mat3x4> after = worlds(s);
  const Mat3x4 m = option_matrix(o);
  for (size_t k = 0; k < before.size(); ++k) {
    const Mat3x4 expected = mat_mul(m, before[k]);
    for (int c = 0; c < 12; ++c) EXPECT_NEAR(after[k][c], expected[c], 1e-5f) << "attachment " << k << " [" << c << "]";
  }
}

TEST(OpsTransform, PiePointsMoveWithTheirVertices) {
  // PIE points are in PIE axes (Z mirrored): each stays exactly on its transformed vertex.
  Scene s;
  Mesh m;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0.1f, 0.2f, -0.3f, -5, 7.5f, 1.25f}));
  s.meshes.push_back(m);
  PieLevel l;
  l.mesh = 0;
  l.points = {{0.1f, 0.2f, 0.3f}, {-5, 7.5f, -1.25f}};
  l.shadow_points = l.points;
  s.pie.emplace().version = 3;
  s.pie->levels.push_back(l);
  TransformOptions o;
  o.scale = 1.7f;
  o.rotate_degrees = {25, -130, 70};
  o.translate = {0.4f, -1.2f, 2.5f};
  transform_scene(s, o);
  const std::vector<float>& p = s.meshes[0].streams[0].data;
  for (size_t v = 0; v < 2; ++v) {
    const std::array<float, 3> expected{p[v * 3], p[v * 3 + 1], -p[v * 3 + 2]};
    EXPECT_EQ(s.pie->levels[0].points[v], expected) << v;
    EXPECT_EQ(s.pie->levels[0].shadow_points[v], expected) << v;
  }
}

}  // namespace meshport_test_ops_transform
