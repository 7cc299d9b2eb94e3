// The engine's pipeline end to end: a hand-written skinned, animated .qmsh.tmp
// (tests/data/qmsh/skinned.qmsh.tmp) -> binary .qmsh (what the engine's "Tools" made) -> glTF,
// checked by values at each step.
#include "test_util.h"

#include "core/math.h"

#include <cmath>

namespace meshport_test_qmsh_e2e {

using namespace meshport;
using testutil::TempDir;

namespace {

std::string skinned() { return std::string(MESHPORT_TEST_DATA) + "/qmsh/skinned.qmsh.tmp"; }

int joint_index(const Scene& s, const std::string& name) {
  for (size_t j = 0; j < s.joints.size(); ++j)
    if (s.joints[j].name == name) return int(j);
  return -1;
}

const Animation* animation(const Scene& s, const std::string& name) {
  for (const auto& a : s.animations)
    if (a.name == name) return &a;
  return nullptr;
}

// The pose of `joint` at `seconds`: the frame at that time (key times or frame / framerate).
Transform pose_at(const Scene& s, const Animation& a, const std::string& joint, double seconds) {
  int j = joint_index(s, joint);
  EXPECT_GE(j, 0) << joint;
  for (size_t f = 0; f < a.frame_count(); ++f) {
    double t = a.times.empty() ? double(f) / a.framerate : double(a.times[f]);
    if (std::abs(t - seconds) < 1e-4) return a.poses[f * a.channels + size_t(j)];
  }
  ADD_FAILURE() << "no frame at " << seconds << " s in " << a.name;
  return {};
}

void expect_rotation(std::array<float, 4> q, std::array<float, 4> expected, float tol) {
  float dot = q[0] * expected[0] + q[1] * expected[1] + q[2] * expected[2] + q[3] * expected[3];
  EXPECT_NEAR(std::abs(dot), 1.0f, tol) << q[0] << " " << q[1] << " " << q[2] << " " << q[3];
}

void expect_vec(std::array<float, 3> v, std::array<float, 3> e, float tol) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(v[i], e[i], tol) << "component " << i;
}

// What every step must keep: the chain Root -> Mid -> Tip, its rest pose, the Walk animation
// (Blender frames 5..25 at 25 fps: 0.8 s) and its values at Blender frame 15 (0.4 s).
void check_model(const Scene& s, const std::string& step) {
  SCOPED_TRACE(step);
  ASSERT_EQ(s.joints.size(), 3u);
  int root = joint_index(s, "Root"), mid = joint_index(s, "Mid"), tip = joint_index(s, "Tip");
  ASSERT_GE(root, 0);
  ASSERT_GE(mid, 0);
  ASSERT_GE(tip, 0);
  EXPECT_EQ(s.joints[size_t(root)].parent, -1);
  EXPECT_EQ(s.joints[size_t(mid)].parent, root);
  EXPECT_EQ(s.joints[size_t(tip)].parent, mid);
  // Root's rest: the bone's Y axis runs along Blender +Z, i.e. +90 degrees about X; Scene axes
  // (x, z, -y) are a rotation about X too, so the Scene rest is the same +90 degrees about X.
  const float h = std::sqrt(0.5f);
  expect_rotation(s.joints[size_t(root)].rest.rotation, {h, 0, 0, h}, 1e-5f);
  expect_vec(s.joints[size_t(root)].rest.translation, {0, 0, 0}, 1e-6f);
  // Mid's head is 1 unit along Root's bone axis: Blender (0, 0, 1), Scene (0, 1, 0).
  expect_vec(quat_rotate(s.joints[size_t(root)].rest.rotation, s.joints[size_t(mid)].rest.translation), {0, 1, 0},
             1e-5f);
  const Animation* walk = animation(s, "Walk");
  ASSERT_NE(walk, nullptr);
  double last = walk->times.empty() ? double(walk->frame_count() - 1) / walk->framerate : walk->times.back();
  EXPECT_NEAR(last, 0.8, 1e-4);
  // Blender frame 15: Root moved 0.5 along its Y axis (Scene +Y) and turned 30 degrees about
  // its X axis on top of the rest's 90: 120 degrees about X.
  Transform r = pose_at(s, *walk, "Root", 0.4);
  expect_vec(r.translation, {0, 0.5f, 0}, 1e-5f);
  expect_rotation(r.rotation, {std::sin(1.0471976f), 0, 0, std::cos(1.0471976f)}, 1e-5f);
  // Frame 5 (time 0): the rest pose.
  Transform r0 = pose_at(s, *walk, "Root", 0.0);
  expect_rotation(r0.rotation, {h, 0, 0, h}, 1e-5f);
}

}  // namespace

TEST(QmshPipeline, TmpToBinaryToGltfKeepsSkeletonSkinAndAnimation) {
  TempDir tmp;
  Diagnostics d;
  Scene a = read(skinned(), {}, &d);
  check_model(a, "qmsh.tmp");
  ASSERT_EQ(a.meshes.size(), 1u);
  EXPECT_EQ(a.meshes[0].name, "Column");
  EXPECT_TRUE(a.meshes[0].find(Attribute::Normal));
  EXPECT_TRUE(a.meshes[0].find(Attribute::Tangent));

  convert({skinned()}, tmp / "column.qmsh", {}, &d);
  Scene b = read(tmp / "column.qmsh", {}, &d);
  check_model(b, "qmsh");
  EXPECT_EQ(b.qmsh->flags, 3);  // tangents and skinning
  ASSERT_EQ(b.meshes.size(), 1u);
  ASSERT_EQ(b.meshes[0].vertex_count(), a.meshes[0].vertex_count());
  EXPECT_EQ(b.meshes[0].triangles.size(), a.meshes[0].triangles.size());
  // Same vertices in the same order; each vertex keeps its (at most two) influences.
  const VertexStream* pa = a.meshes[0].find(Attribute::Position);
  const VertexStream* pb = b.meshes[0].find(Attribute::Position);
  for (size_t i = 0; i < pa->data.size(); ++i) EXPECT_NEAR(pb->data[i], pa->data[i], 1e-6f) << i;
  for (size_t v = 0; v < a.meshes[0].vertex_count(); ++v) {
    auto ia = testutil::influences(a.meshes[0], v), ib = testutil::influences(b.meshes[0], v);
    ASSERT_EQ(ib.size(), ia.size()) << "vertex " << v;
    for (size_t k = 0; k < ia.size(); ++k) {
      EXPECT_EQ(b.joints[size_t(ib[k].first)].name, a.joints[size_t(ia[k].first)].name) << "vertex " << v;
      EXPECT_NEAR(ib[k].second, ia[k].second, 1e-6f) << "vertex " << v;
    }
  }

  convert({tmp / "column.qmsh"}, tmp / "column.glb", {}, &d);
  Scene c = read(tmp / "column.glb", {}, &d);
  check_model(c, "glb");
  ASSERT_EQ(c.meshes.size(), 1u);
  EXPECT_EQ(c.meshes[0].vertex_count(), a.meshes[0].vertex_count());
}

}  // namespace meshport_test_qmsh_e2e
