// QMSH TMP 10 processing (src/formats/qmsh/qmsh_tmp_scene.cpp): build_scene on data built here, and
// scene_to_tmp round trips. Axes: Scene = Blender (x, z, -y).
#include <meshport/meshport.h>

#include "core/math.h"
#include "formats/qmsh/qmsh_tmp.h"
#include "ops/animation/curves.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

namespace meshport_test_qmsh_tmp_scene {

using namespace meshport;

namespace {

constexpr float kPi2 = float(std::numbers::pi / 2);

using V3 = std::array<float, 3>;

QmshTmpFace face(std::vector<uint32_t> v, uint32_t material = 0, std::vector<std::array<float, 2>> uv = {}) {
  QmshTmpFace f;
  f.count = uint32_t(v.size());
  f.material = material;
  for (size_t i = 0; i < v.size(); ++i) {
    f.vertex[i] = v[i];
    if (i < uv.size()) f.uv[i] = uv[i];
  }
  return f;
}

// The unit cube of side 2 around the origin, vertex i = (x > 0) + 2 (y > 0) + 4 (z > 0); quads
// counter-clockwise from outside, each with UVs (0,0) (1,0) (1,1) (0,1).
// Faces: +X -X +Y -Y +Z -Z.
QmshTmpMesh cube(const std::string& name, float angle, bool uvs = true) {
  QmshTmpMesh m;
  m.name = name;
  m.auto_smooth_angle = angle;
  for (int i = 0; i < 8; ++i) m.vertices.push_back({i & 1 ? 1.f : -1.f, i & 2 ? 1.f : -1.f, i & 4 ? 1.f : -1.f});
  const std::vector<std::vector<uint32_t>> quads = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                                    {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& q : quads)
    m.faces.push_back(face(q, 0, uvs ? std::vector<std::array<float, 2>>{{0, 0}, {1, 0}, {1, 1}, {0, 1}}
                                     : std::vector<std::array<float, 2>>{}));
  return m;
}

QmshTmpData data_with(std::vector<QmshTmpMesh> meshes) {
  QmshTmpData d;
  d.meshes = std::move(meshes);
  return d;
}

Scene build(QmshTmpData d, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return qmsh_tmp::build_scene(std::move(d), "test.qmsh.tmp", diags ? *diags : local);
}

V3 get3(const Mesh& m, Attribute a, uint32_t v) {
  const VertexStream* s = m.find(a);
  return {s->get(v, 0), s->get(v, 1), s->get(v, 2)};
}

void expect_v3(V3 a, V3 b, float tol, const std::string& what = "") {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], tol) << what << " component " << i;
}

bool has_warning(const Diagnostics& d, const std::string& text) {
  for (const auto& it : d.items)
    if (it.severity == Severity::Warning && it.message.find(text) != std::string::npos) return true;
  return false;
}

std::string error_of(QmshTmpData d) {
  try {
    build(std::move(d));
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().file, "test.qmsh.tmp");
    return e.diagnostic().message;
  }
  return "(no error)";
}

// A bone from head and tail in armature space with roll 0 around a Y axis that is one of the
// coordinate axes; rows: X, Y (head -> tail), Z = X x Y, then the head.
QmshTmpBone bone(const std::string& name, const std::string& parent, V3 head, V3 tail, V3 x_axis) {
  QmshTmpBone b;
  b.name = name;
  b.parent = parent;
  b.head_armature = head;
  b.tail_armature = tail;
  V3 y = normalize(tail - head);
  V3 z = cross(x_axis, y);
  b.length = length(tail - head);
  b.matrix_armature = {x_axis[0], x_axis[1], x_axis[2], 0, y[0], y[1], y[2], 0,
                       z[0],      z[1],      z[2],      0, head[0], head[1], head[2], 1};
  return b;
}

// Two bones: "root" from the origin up (+Z), "child" from (0, 0, 1) along +Y; the child is
// listed first.
QmshTmpArmature two_bones() {
  QmshTmpArmature a;
  a.name = "Armature";
  a.bones.push_back(bone("child", "root", {0, 0, 1}, {0, 1, 1}, {1, 0, 0}));
  a.bones.push_back(bone("root", "", {0, 0, 0}, {0, 0, 1}, {1, 0, 0}));
  return a;
}

// World rest matrices of the Scene's joints.
std::vector<Mat3x4> joint_worlds(const Scene& s) {
  std::vector<Mat3x4> w;
  for (const Joint& j : s.joints) {
    Mat3x4 local = mat_from_trs(j.rest.translation, j.rest.rotation, j.rest.scale);
    w.push_back(j.parent < 0 ? local : mat_mul(w[size_t(j.parent)], local));
  }
  return w;
}

V3 scene_of(V3 blender) { return {blender[0], blender[2], -blender[1]}; }

QmshTmpCurve curve(const std::string& name, std::vector<std::array<float, 2>> points,
                   QmshTmpCurve::Interpolation i = QmshTmpCurve::Interpolation::Linear) {
  QmshTmpCurve c;
  c.name = name;
  c.interpolation = i;
  c.points = std::move(points);
  return c;
}

}  // namespace

// ---- Meshes ---------------------------------------------------------------------------------

TEST(QmshTmpScene, MaterialSplitNames) {
  QmshTmpMesh c = cube("Cube", 30);
  c.materials = {"Red", "Blue"};
  for (size_t f = 3; f < 6; ++f) c.faces[f].material = 1;
  QmshTmpMesh plain = cube("Plain", 30);
  plain.materials = {"Blue"};
  Scene s = build(data_with({c, plain}));
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[0].name, "Cube.Red");
  EXPECT_EQ(s.meshes[1].name, "Cube.Blue");
  EXPECT_EQ(s.meshes[2].name, "Plain");
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "Red");
  EXPECT_EQ(s.materials[1].name, "Blue");
  EXPECT_EQ(s.meshes[0].material, 0);
  EXPECT_EQ(s.meshes[1].material, 1);
  EXPECT_EQ(s.meshes[2].material, 1);
  EXPECT_EQ(s.meshes[0].face_count(), 3u);
  EXPECT_EQ(s.meshes[1].face_count(), 3u);
  EXPECT_TRUE(s.qmsh_tmp.has_value());
  EXPECT_EQ(s.qmsh_tmp->meshes.size(), 2u);
}

TEST(QmshTmpScene, MaterialPastTheListAndDuplicateNames) {
  QmshTmpMesh c = cube("Cube", 30);
  c.materials = {"Red", "Red"};
  c.faces[1].material = 1;  // same name as 0: same mesh
  c.faces[2].material = 7;  // past the list: no material
  c.faces[3].material = 9;  // past the list too: the same mesh
  Scene s = build(data_with({c}));
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].name, "Cube.Red");
  EXPECT_EQ(s.meshes[0].face_count(), 4u);
  EXPECT_EQ(s.meshes[1].name, "Cube.");
  EXPECT_EQ(s.meshes[1].material, -1);
  EXPECT_EQ(s.meshes[1].face_count(), 2u);
  ASSERT_EQ(s.materials.size(), 1u);

  QmshTmpMesh none = cube("Bare", 30);  // no material list at all
  Scene b = build(data_with({none}));
  ASSERT_EQ(b.meshes.size(), 1u);
  EXPECT_EQ(b.meshes[0].name, "Bare");
  EXPECT_EQ(b.meshes[0].material, -1);
  EXPECT_TRUE(b.materials.empty());
}

TEST(QmshTmpScene, ObjectTransformRotationOrderAndScale) {
  QmshTmpMesh m;
  m.name = "Tri";
  m.vertices = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  m.faces = {face({0, 1, 2}, 0, {{0, 0}, {1, 0}, {0, 1}})};
  m.position = {10, 0, 0};
  m.orientation = {0, 0, kPi2};
  m.size = {2, 2, 2};
  Scene s = build(data_with({m}));
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& r = s.meshes[0];
  // Blender: scale 2, Z 90 degrees (x, y) -> (-y, x), + (10, 0, 0): (10,2,0) (8,0,0) (10,0,2).
  EXPECT_EQ(get3(r, Attribute::Position, r.triangles[0]), (V3{10, 0, -2}));
  EXPECT_EQ(get3(r, Attribute::Position, r.triangles[1]), (V3{8, 0, 0}));
  EXPECT_EQ(get3(r, Attribute::Position, r.triangles[2]), (V3{10, 2, 0}));

  // X applied first, then Z: (1,0,0) -> (0,1,0); (0,1,0) -> (0,0,1); (0,0,1) -> (1,0,0).
  m.position = {0, 0, 0};
  m.size = {1, 1, 1};
  m.orientation = {kPi2, 0, kPi2};
  Scene x = build(data_with({m}));
  const Mesh& q = x.meshes[0];
  EXPECT_EQ(get3(q, Attribute::Position, q.triangles[0]), scene_of({0, 1, 0}));
  EXPECT_EQ(get3(q, Attribute::Position, q.triangles[1]), scene_of({0, 0, 1}));
  EXPECT_EQ(get3(q, Attribute::Position, q.triangles[2]), scene_of({1, 0, 0}));
}

TEST(QmshTmpScene, NegativeScaleKeepsFacesOutward) {
  QmshTmpMesh m;
  m.name = "Tri";
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};  // faces +Z in Blender
  m.faces = {face({0, 1, 2})};
  m.size = {-1, 1, 1};
  Scene s = build(data_with({m}));
  const Mesh& r = s.meshes[0];
  for (uint32_t v = 0; v < 3; ++v) expect_v3(get3(r, Attribute::Normal, v), {0, 1, 0}, 0, "normal");
}

TEST(QmshTmpScene, QuadTriangulationAndTexcoords) {
  QmshTmpMesh m;
  m.name = "Quad";
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  m.faces = {face({0, 1, 2, 3}, 0, {{0, 0}, {1, 0}, {1, 0.75f}, {0.25f, 1}})};
  Scene s = build(data_with({m}));
  const Mesh& r = s.meshes[0];
  EXPECT_EQ(r.triangles, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(r.polygon_sizes, (std::vector<uint32_t>{4}));
  const VertexStream* tc = r.find(Attribute::Texcoord);
  ASSERT_TRUE(tc);
  EXPECT_EQ(tc->data, (std::vector<float>{0, 1, 1, 1, 1, 0.25f, 0.25f, 0}));
  EXPECT_EQ(get3(r, Attribute::Position, 2), (V3{1, 0, -1}));
  EXPECT_EQ(r.smoothing.face_angle, (std::vector<float>{30}));
}

TEST(QmshTmpScene, CornersSplitByTexcoord) {
  // Two triangles share vertices 0 and 2, with different UVs at vertex 2.
  QmshTmpMesh m;
  m.name = "Pair";
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  m.faces = {face({0, 1, 2}, 0, {{0, 0}, {1, 0}, {1, 1}}), face({0, 2, 3}, 0, {{0, 0}, {0.5f, 0.5f}, {0, 1}})};
  m.auto_smooth_angle = 0;
  // Without tangents (which split more, by their own rules), (vertex, uv) pairs are the vertices.
  for (auto& f : m.faces) f.uv = {};
  m.faces[1].uv[1] = {0, 0};
  Scene plain = build(data_with({m}));
  EXPECT_EQ(plain.meshes[0].vertex_count(), 4u);  // uvs all (0, 0): no texcoords, vertex 2 shared
  EXPECT_EQ(plain.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
  m.faces = {face({0, 1, 2}, 0, {{0, 0}, {1, 0}, {1, 1}}), face({0, 2, 3}, 0, {{0, 0}, {0.5f, 0.5f}, {0, 1}})};
  Scene s = build(data_with({m}));
  const Mesh& r = s.meshes[0];
  EXPECT_TRUE(r.polygon_sizes.empty());
  ASSERT_EQ(r.triangles.size(), 6u);
  const VertexStream* tc = r.find(Attribute::Texcoord);
  EXPECT_EQ(get3(r, Attribute::Position, r.triangles[2]), get3(r, Attribute::Position, r.triangles[4]));
  EXPECT_EQ(tc->get(r.triangles[2], 1), 0.0f);
  EXPECT_EQ(tc->get(r.triangles[4], 1), 0.5f);
  EXPECT_EQ(tc->get(r.triangles[5], 0), 0.0f);
  EXPECT_EQ(tc->get(r.triangles[5], 1), 0.0f);
}

TEST(QmshTmpScene, AutoSmoothAngleFacetedCube) {
  Scene s = build(data_with({cube("Cube", 30)}));
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  // Face normals of +X -X +Y -Y +Z -Z in Scene axes.
  const std::array<V3, 6> normals = {V3{1, 0, 0}, V3{-1, 0, 0}, V3{0, 0, -1}, V3{0, 0, 1}, V3{0, 1, 0}, V3{0, -1, 0}};
  ASSERT_EQ(m.triangles.size(), 36u);
  for (size_t t = 0; t < 12; ++t)
    for (int c = 0; c < 3; ++c) expect_v3(get3(m, Attribute::Normal, m.triangles[t * 3 + c]), normals[t / 2], 0);
  EXPECT_EQ(m.vertex_count(), 24u);
}

TEST(QmshTmpScene, AutoSmoothAngleSmoothCube) {
  Scene s = build(data_with({cube("Cube", 100)}));
  const Mesh& m = s.meshes[0];
  const float k = 1.0f / std::sqrt(3.0f);
  for (uint32_t v = 0; v < m.vertex_count(); ++v) {
    V3 p = get3(m, Attribute::Position, v);
    expect_v3(get3(m, Attribute::Normal, v), {p[0] * k, p[1] * k, p[2] * k}, 1e-6f);
  }
}

TEST(QmshTmpScene, NormalsDoNotSmoothAcrossObjects) {
  // Two coincident single triangles facing opposite ways, in different objects.
  QmshTmpMesh a, b;
  a.name = "A";
  b.name = "B";
  a.vertices = b.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  a.faces = {face({0, 1, 2})};
  b.faces = {face({0, 2, 1})};
  a.auto_smooth_angle = b.auto_smooth_angle = 180;
  Scene s = build(data_with({a, b}));
  expect_v3(get3(s.meshes[0], Attribute::Normal, 0), {0, 1, 0}, 0);
  expect_v3(get3(s.meshes[1], Attribute::Normal, 0), {0, -1, 0}, 0);
}

TEST(QmshTmpScene, TangentsOnlyWithValidTexcoords) {
  Scene s = build(data_with({cube("Textured", 30), cube("Untextured", 30, false)}));
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_TRUE(s.meshes[0].find(Attribute::Texcoord));
  EXPECT_TRUE(s.meshes[0].find(Attribute::Tangent));
  EXPECT_FALSE(s.meshes[1].find(Attribute::Texcoord));
  EXPECT_FALSE(s.meshes[1].find(Attribute::Tangent));
  EXPECT_TRUE(s.meshes[1].find(Attribute::Normal));
  // +X face, u along Blender +Y (Scene -Z) as the corners run (0,0) (1,0) on 1 -> 3.
  const Mesh& m = s.meshes[0];
  expect_v3(get3(m, Attribute::Tangent, m.triangles[0]), {0, 0, -1}, 1e-6f);
}

TEST(QmshTmpScene, FaceErrorsNameTheObject) {
  QmshTmpMesh m = cube("Broken", 30);
  m.faces[2].vertex[1] = 8;
  EXPECT_NE(error_of(data_with({m})).find("object \"Broken\": face 2: vertex index 8"), std::string::npos);
  m = cube("Broken", 30);
  m.faces[0].count = 5;
  EXPECT_NE(error_of(data_with({m})).find("face 0 has 5 corners"), std::string::npos);
}

// ---- Skinning -------------------------------------------------------------------------------

namespace {

// A strip of 4 vertices at x = 0..3 (two triangles), vertex i identified by its x.
QmshTmpMesh strip(const std::string& name) {
  QmshTmpMesh m;
  m.name = name;
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {2, 0, 1}, {3, 0, 1}};
  m.faces = {face({0, 1, 2}), face({1, 3, 2})};
  m.parent_armature = "Armature";
  return m;
}

std::vector<std::pair<int, float>> influences_at(const Mesh& m, float x) {
  for (uint32_t v = 0; v < m.vertex_count(); ++v)
    if (get3(m, Attribute::Position, v)[0] == x) return testutil::influences(m, v);
  ADD_FAILURE() << "no vertex at x = " << x;
  return {};
}

}  // namespace

TEST(QmshTmpScene, SkinningFromVertexGroups) {
  QmshTmpData d = data_with({strip("Skin")});
  d.has_armature = true;
  d.armature = two_bones();  // joints: 0 root, 1 child
  d.meshes[0].vertex_groups = {{"root", {0, 1}, {1.0f, 0.5f}}, {"child", {1, 2}, {1.5f, 1.0f}}, {"Other", {0}, {1.0f}}};
  d.armature.envelopes = 1;
  Diagnostics diags;
  Scene s = build(d, &diags);
  EXPECT_TRUE(has_warning(diags, "vertex group \"Other\" names no bone"));
  EXPECT_TRUE(has_warning(diags, "envelopes are not used"));
  const Mesh& m = s.meshes[0];
  using P = std::vector<std::pair<int, float>>;
  EXPECT_EQ(influences_at(m, 0), (P{{0, 1.0f}}));
  EXPECT_EQ(influences_at(m, 1), (P{{0, 0.25f}, {1, 0.75f}}));
  EXPECT_EQ(influences_at(m, 2), (P{{1, 1.0f}}));
  EXPECT_EQ(influences_at(m, 3), P{});
  EXPECT_EQ(m.find(Attribute::BlendWeights)->components, 2u);
  // The larger weight first.
  for (uint32_t v = 0; v < m.vertex_count(); ++v)
    if (get3(m, Attribute::Position, v)[0] == 1) {
      EXPECT_EQ(m.find(Attribute::BlendIndices)->get(v, 0), 1.0f);
      EXPECT_EQ(m.find(Attribute::BlendWeights)->get(v, 0), 0.75f);
    }
}

TEST(QmshTmpScene, ParentBoneWholeMesh) {
  QmshTmpData d = data_with({strip("Rigid")});
  d.has_armature = true;
  d.armature = two_bones();
  d.meshes[0].parent_bone = "child";
  d.meshes[0].vertex_groups = {{"root", {0}, {1.0f}}};  // ignored: the whole mesh hangs on "child"
  Scene s = build(d);
  const Mesh& m = s.meshes[0];
  for (uint32_t v = 0; v < m.vertex_count(); ++v)
    EXPECT_EQ(testutil::influences(m, v), (std::vector<std::pair<int, float>>{{1, 1.0f}}));

  d.meshes[0].parent_bone = "nobody";
  EXPECT_NE(error_of(d).find("object \"Rigid\": parent bone \"nobody\" does not exist"), std::string::npos);
}

TEST(QmshTmpScene, VertexGroupIndexOutOfRange) {
  QmshTmpData d = data_with({strip("Skin")});
  d.has_armature = true;
  d.armature = two_bones();
  d.meshes[0].vertex_groups = {{"root", {0, 4}, {1.0f, 1.0f}}};
  EXPECT_NE(error_of(d).find("object \"Skin\": vertex group \"root\": vertex index 4 out of range (4 vertices)"),
            std::string::npos);
}

TEST(QmshTmpScene, NoSkinningWithoutMatchingGroups) {
  QmshTmpData d = data_with({strip("Static")});
  d.meshes[0].vertex_groups = {{"Other", {0}, {1.0f}}};
  Scene s = build(d);
  EXPECT_FALSE(s.meshes[0].find(Attribute::BlendIndices));
  EXPECT_FALSE(s.meshes[0].find(Attribute::BlendWeights));
}

// ---- Bones ----------------------------------------------------------------------------------

TEST(QmshTmpScene, BoneRestsFromArmatureMatrices) {
  QmshTmpData d = data_with({});
  d.has_armature = true;
  d.armature = two_bones();
  Scene s = build(d);
  ASSERT_EQ(s.joints.size(), 2u);
  EXPECT_EQ(s.joints[0].name, "root");  // moved before its child
  EXPECT_EQ(s.joints[0].parent, -1);
  EXPECT_EQ(s.joints[1].name, "child");
  EXPECT_EQ(s.joints[1].parent, 0);
  const float h = std::sqrt(0.5f);
  // root: Y axis along Blender +Z: 90 degrees about X (Blender and Scene alike).
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(s.joints[0].rest.rotation[c], (std::array<float, 4>{h, 0, 0, h})[c], 1e-6f);
  expect_v3(s.joints[0].rest.translation, {0, 0, 0}, 0);
  // child: -90 degrees about X relative to root; its head is 1 along root's Y axis, which is
  // Blender (0, 1, 0) in root's frame, Scene (0, 0, -1).
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(s.joints[1].rest.rotation[c], (std::array<float, 4>{-h, 0, 0, h})[c], 1e-6f);
  expect_v3(s.joints[1].rest.translation, {0, 0, -1}, 1e-6f);
  // World heads are the armature-space heads. The bone's Y axis (head -> tail) is its local
  // Blender Y, which the axis rotation makes the joint's local -Z: -(column 2) runs head -> tail.
  auto world = joint_worlds(s);
  for (size_t j = 0; j < 2; ++j) {
    const QmshTmpBone& b = d.armature.bones[j == 0 ? 1 : 0];
    expect_v3({world[j][9], world[j][10], world[j][11]}, scene_of(b.head_armature), 1e-6f, b.name);
    expect_v3({-world[j][6], -world[j][7], -world[j][8]}, scene_of(normalize(b.tail_armature - b.head_armature)),
              1e-6f, b.name);
  }
}

TEST(QmshTmpScene, ArmatureObjectTransform) {
  QmshTmpData d = data_with({});
  d.has_armature = true;
  d.armature = two_bones();
  d.armature.position = {1, 2, 3};
  d.armature.orientation = {0, 0, kPi2};
  Scene s = build(d);
  auto world = joint_worlds(s);
  // child head (0, 0, 1) -> rotated about Z (unchanged) -> + (1, 2, 3) = (1, 2, 4).
  expect_v3({world[1][9], world[1][10], world[1][11]}, scene_of({1, 2, 4}), 1e-6f);
  // child Y axis (0, 1, 0) -> (-1, 0, 0); the joint's local -Z.
  expect_v3({-world[1][6], -world[1][7], -world[1][8]}, scene_of({-1, 0, 0}), 1e-6f);
  expect_v3(s.joints[0].rest.translation, scene_of({1, 2, 3}), 0);
}

TEST(QmshTmpScene, BoneErrors) {
  QmshTmpData d = data_with({});
  d.has_armature = true;
  d.armature = two_bones();
  d.armature.bones[0].parent = "ghost";
  EXPECT_NE(error_of(d).find("bone \"child\": parent bone \"ghost\" does not exist"), std::string::npos);
  d.armature = two_bones();
  d.armature.bones[1].parent = "child";  // root <-> child
  EXPECT_NE(error_of(d).find("its parents form a cycle"), std::string::npos);
  d.armature = two_bones();
  d.armature.bones[1].name = "child";
  EXPECT_NE(error_of(d).find("two bones named \"child\""), std::string::npos);
}

// ---- Actions --------------------------------------------------------------------------------

TEST(QmshTmpScene, ActionTimeShiftFpsAndLinearCurve) {
  QmshTmpData d = data_with({});
  d.has_armature = true;
  d.armature.name = "Armature";
  d.armature.bones.push_back(bone("b", "", {0, 0, 0}, {0, 1, 0}, {1, 0, 0}));  // identity rest
  d.fps = {30, 24};
  QmshTmpAction a;
  a.name = "Walk";
  a.channels.push_back({"b", {curve("LocX", {{5, 0}, {9, 4}}), curve("Foo", {{0, 1}, {100, 1}})}});
  a.channels.push_back({"nobody", {curve("LocX", {{0, 1}})}});
  d.actions.push_back(a);
  Diagnostics diags;
  Scene s = build(d, &diags);
  EXPECT_TRUE(has_warning(diags, "curve \"Foo\" is not a bone curve"));
  EXPECT_TRUE(has_warning(diags, "channel \"nobody\" names no bone"));
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& an = s.animations[0];
  EXPECT_EQ(an.name, "Walk");
  EXPECT_EQ(an.framerate, 24);
  EXPECT_FALSE(an.loop);
  EXPECT_EQ(an.channels, 1u);
  EXPECT_TRUE(an.times.empty());
  ASSERT_EQ(an.frame_count(), 5u);  // frames 5..9, the first at time 0
  for (size_t f = 0; f < 5; ++f) {
    expect_v3(an.poses[f].translation, {float(f), 0, 0}, 1e-6f);
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(an.poses[f].rotation[c], c == 3 ? 1 : 0, 1e-6f);
    expect_v3(an.poses[f].scale, {1, 1, 1}, 0);
  }
  // The curve is kept in the data.
  EXPECT_EQ(s.qmsh_tmp->actions[0].channels[0].curves[1].name, "Foo");

  d.fps.clear();
  EXPECT_EQ(build(d).animations[0].framerate, 25);
  d.fps = {24, 0};
  Diagnostics zero;
  EXPECT_EQ(build(d, &zero).animations[0].framerate, 25);
  EXPECT_TRUE(has_warning(zero, "fps = 0 is not positive"));
}

TEST(QmshTmpScene, PoseInBoneRestFrame) {
  // Root bone pointing up (Blender +Z); loc along its own Y moves it up; a quarter turn about
  // its own Y axis.
  QmshTmpData d = data_with({});
  d.has_armature = true;
  d.armature = two_bones();
  const float h = std::sqrt(0.5f);
  QmshTmpAction a;
  a.name = "Pose";
  a.channels.push_back({"root", {curve("LocY", {{0, 2}}), curve("QuatW", {{0, h}}), curve("QuatY", {{0, h}}),
                                 curve("SizeZ", {{0, 3}})}});
  d.actions.push_back(a);
  Scene s = build(d);
  const Animation& an = s.animations[0];
  ASSERT_EQ(an.frame_count(), 1u);
  const Transform& p = an.poses[0];
  expect_v3(p.translation, scene_of({0, 0, 2}), 1e-6f);
  // Blender rotation Rx(90) . Ry(90): (1,0,0) -> (0,1,0); (0,1,0) -> (0,0,1).
  expect_v3(quat_rotate(p.rotation, scene_of({1, 0, 0})), scene_of({0, 1, 0}), 1e-6f);
  expect_v3(quat_rotate(p.rotation, scene_of({0, 1, 0})), scene_of({0, 0, 1}), 1e-6f);
  expect_v3(p.scale, {1, 3, 1}, 1e-6f);  // bone Z scale: the Scene's local Y
  // The child keeps its rest.
  expect_v3(an.poses[1].translation, s.joints[1].rest.translation, 0);
}

TEST(QmshTmpScene, BezierAndCyclicCurvesInPoses) {
  QmshTmpData d = data_with({});
  d.has_armature = true;
  d.armature.bones.push_back(bone("b", "", {0, 0, 0}, {0, 1, 0}, {1, 0, 0}));
  QmshTmpCurve bez = curve("LocZ", {{10, 0}, {20, 10}, {30, 0}}, QmshTmpCurve::Interpolation::Bezier);
  QmshTmpCurve cyc = curve("LocX", {{10, 0}, {12, 2}});
  cyc.extend = QmshTmpCurve::Extend::Cyclic;
  QmshTmpAction a;
  a.name = "Mix";
  a.channels.push_back({"b", {bez, cyc}});
  d.actions.push_back(a);
  Scene s = build(d);
  const Animation& an = s.animations[0];
  ASSERT_EQ(an.frame_count(), 21u);
  const ops::Curve pb = ops::prepare_curve(bez);
  for (size_t f = 0; f < 21; ++f) {
    // LocZ -> Scene y; LocX cycles with period 2: 0 1 (2 at 12 only) 1 ...
    EXPECT_NEAR(an.poses[f].translation[1], float(ops::evaluate(pb, 10.0 + double(f))), 1e-6f) << f;
    EXPECT_NEAR(an.poses[f].translation[0], f == 2 ? 2.0f : float(f % 2), 1e-6f) << f;
  }
  EXPECT_NEAR(an.poses[10].translation[1], 10, 1e-6f);
}

// ---- Back to .qmsh.tmp ----------------------------------------------------------------------

namespace {

// Triangle corners of every mesh: positions and texcoords match within tol.
void expect_same_corners(const Scene& a, const Scene& b, float tol) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t i = 0; i < a.meshes.size(); ++i) {
    const Mesh& ma = a.meshes[i];
    const Mesh& mb = b.meshes[i];
    EXPECT_EQ(ma.name, mb.name);
    EXPECT_EQ(ma.material >= 0 ? a.materials[size_t(ma.material)].name : "",
              mb.material >= 0 ? b.materials[size_t(mb.material)].name : "");
    ASSERT_EQ(ma.triangles.size(), mb.triangles.size()) << ma.name;
    const VertexStream* ta = ma.find(Attribute::Texcoord);
    const VertexStream* tb = mb.find(Attribute::Texcoord);
    ASSERT_EQ(ta == nullptr, tb == nullptr);
    for (size_t k = 0; k < ma.triangles.size(); ++k) {
      const uint32_t va = ma.triangles[k], vb = mb.triangles[k];
      expect_v3(get3(ma, Attribute::Position, va), get3(mb, Attribute::Position, vb), tol, ma.name);
      if (ta) {
        EXPECT_NEAR(ta->get(va, 0), tb->get(vb, 0), tol);
        EXPECT_NEAR(ta->get(va, 1), tb->get(vb, 1), tol);
      }
      auto ia = testutil::influences(ma, va), ib = testutil::influences(mb, vb);
      ASSERT_EQ(ia.size(), ib.size()) << ma.name << " corner " << k;
      for (size_t n = 0; n < ia.size(); ++n) {
        EXPECT_EQ(ia[n].first, ib[n].first);
        EXPECT_NEAR(ia[n].second, ib[n].second, tol);
      }
    }
  }
}

void expect_same_rotation(std::array<float, 4> a, std::array<float, 4> b, float tol, const std::string& what) {
  const float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const float s = d < 0 ? -1.0f : 1.0f;
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(a[c], s * b[c], tol) << what;
}

void expect_same_transform(const Transform& a, const Transform& b, float tol, const std::string& what) {
  expect_v3(a.translation, b.translation, tol, what + " translation");
  expect_same_rotation(a.rotation, b.rotation, tol, what + " rotation");
  expect_v3(a.scale, b.scale, tol, what + " scale");
}

void expect_round_trip(const Scene& original) {
  Diagnostics diags;
  QmshTmpData tmp = qmsh_tmp::scene_to_tmp(original, diags);
  Scene back = qmsh_tmp::build_scene(tmp, "round.qmsh.tmp", diags);
  expect_same_corners(original, back, 1e-4f);
  ASSERT_EQ(original.joints.size(), back.joints.size());
  for (size_t j = 0; j < original.joints.size(); ++j) {
    EXPECT_EQ(original.joints[j].name, back.joints[j].name);
    EXPECT_EQ(original.joints[j].parent, back.joints[j].parent);
    expect_same_transform(original.joints[j].rest, back.joints[j].rest, 1e-4f, original.joints[j].name);
  }
  ASSERT_EQ(original.animations.size(), back.animations.size());
  for (size_t k = 0; k < original.animations.size(); ++k) {
    const Animation& a = original.animations[k];
    const Animation& b = back.animations[k];
    EXPECT_EQ(a.name, b.name);
    ASSERT_EQ(a.poses.size(), b.poses.size());
    for (size_t p = 0; p < a.poses.size(); ++p)
      expect_same_transform(a.poses[p], b.poses[p], 1e-4f, a.name + " pose " + std::to_string(p));
  }
}

// A three-joint chain with rotated, translated rests, a skinned quad pair and a 3-frame animation.
Scene synthetic() {
  Scene s;
  s.materials.push_back(testutil::material("Skin", ""));
  Mesh m;
  m.name = "Body";
  m.material = 0;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3,
                                             {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 2, 0.5f, 0, 2, 0.5f, 0.5f, 3, 0}));
  m.streams.push_back(
      testutil::float_stream(Attribute::Texcoord, 2, {0, 1, 1, 1, 1, 0.5f, 0, 0.5f, 1, 0, 0, 0, 0.5f, 0.1f}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 2, {0, 0, 0, 0, 0, 1, 1, 0, 1, 2, 2, 0, 2, 0}));
  m.streams.push_back(
      testutil::float_stream(Attribute::BlendWeights, 2,
                             {1, 0, 1, 0, 0.5f, 0.5f, 0.5f, 0.5f, 0.25f, 0.75f, 1, 0, 1, 0}));
  m.triangles = {0, 1, 2, 0, 2, 3, 3, 2, 4, 3, 4, 5, 5, 4, 6};
  m.polygon_sizes = {4, 4, 3};
  s.meshes.push_back(m);
  Joint a{"hip", -1, {{0.5f, 0, 0}, {0, 0, 0.3826834f, 0.9238795f}, {1, 1, 1}}};
  Joint b{"knee", 0, {{0, 1, 0.2f}, {0.2f, 0.1f, 0, 0.9746794f}, {1, 1, 1}}};
  Joint c{"foot", 1, {{0.1f, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
  s.joints = {a, b, c};
  Animation an;
  an.name = "kick";
  an.framerate = 10;
  an.channels = 3;
  for (int f = 0; f < 3; ++f) {
    const float t = float(f);
    an.poses.push_back({{0.5f, 0.1f * t, 0}, quat_normalize({0, 0.1f * t, 0.3826834f, 0.9238795f}), {1, 1, 1}});
    an.poses.push_back({{0, 1, 0.2f}, quat_normalize({0.2f + 0.2f * t, 0.1f, 0, 0.9746794f}), {1, 1, 1}});
    const float k = 1 + 0.5f * t;
    an.poses.push_back({{0.1f, 1 + 0.1f * t, 0}, quat_normalize({0, 0, 0.3f * t, 1}), {k, k, k}});
  }
  s.animations.push_back(an);
  return s;
}

}  // namespace

TEST(QmshTmpScene, SceneToTmpContents) {
  Scene s = synthetic();
  Diagnostics diags;
  QmshTmpData d = qmsh_tmp::scene_to_tmp(s, diags);
  EXPECT_TRUE(diags.items.empty());
  ASSERT_EQ(d.meshes.size(), 1u);
  const QmshTmpMesh& o = d.meshes[0];
  EXPECT_EQ(o.name, "Body");
  EXPECT_EQ(o.materials, (std::vector<std::string>{"Skin"}));
  EXPECT_EQ(o.position, (V3{0, 0, 0}));
  EXPECT_EQ(o.size, (V3{1, 1, 1}));
  EXPECT_EQ(o.auto_smooth_angle, 180);
  EXPECT_EQ(o.parent_armature, "Armature");
  ASSERT_EQ(o.faces.size(), 3u);
  EXPECT_EQ(o.faces[0].count, 4u);
  EXPECT_EQ(o.faces[0].vertex, (std::array<uint32_t, 4>{0, 1, 2, 3}));
  EXPECT_EQ(o.faces[2].count, 3u);
  EXPECT_EQ(o.faces[0].uv[0], (std::array<float, 2>{0, 0}));  // v flipped back
  EXPECT_EQ(o.faces[0].uv[2], (std::array<float, 2>{1, 0.5f}));
  EXPECT_EQ(o.vertices[6], (V3{0.5f, 0, 3}));  // Scene (0.5, 3, 0) -> Blender (x, -z, y)
  ASSERT_EQ(o.vertex_groups.size(), 3u);
  EXPECT_EQ(o.vertex_groups[0].name, "hip");
  EXPECT_EQ(o.vertex_groups[0].vertices, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(o.vertex_groups[0].weights, (std::vector<float>{1, 1, 0.5f, 0.5f}));
  EXPECT_EQ(o.vertex_groups[2].vertices, (std::vector<uint32_t>{4, 5, 6}));
  EXPECT_EQ(o.vertex_groups[2].weights, (std::vector<float>{0.75f, 1, 1}));
  ASSERT_TRUE(d.has_armature);
  ASSERT_EQ(d.armature.bones.size(), 3u);
  const QmshTmpBone& knee = d.armature.bones[1];
  EXPECT_EQ(knee.parent, "hip");
  // Head = row 4, Y axis (row 2) points at the tail, length = distance to the first child.
  const auto& m = knee.matrix_armature;
  expect_v3({m[12], m[13], m[14]}, knee.head_armature, 0);
  const V3 y{m[4], m[5], m[6]};
  expect_v3(knee.tail_armature, knee.head_armature + normalize(y) * knee.length, 1e-6f);
  EXPECT_NEAR(knee.length, length(d.armature.bones[2].head_armature - knee.head_armature), 1e-6f);
  EXPECT_EQ(d.armature.bones[2].length, knee.length);  // a leaf takes its parent's length
  EXPECT_EQ(d.fps, (std::vector<int32_t>{10}));
  ASSERT_EQ(d.actions.size(), 1u);
  ASSERT_EQ(d.actions[0].channels.size(), 3u);
  const QmshTmpCurve& loc = d.actions[0].channels[0].curves[0];
  EXPECT_EQ(loc.name, "LocX");
  EXPECT_EQ(loc.interpolation, QmshTmpCurve::Interpolation::Linear);
  ASSERT_EQ(loc.points.size(), 3u);
  EXPECT_EQ(loc.points[2][0], 2);
}

TEST(QmshTmpScene, SceneToTmpRoundTripSynthetic) { expect_round_trip(synthetic()); }

TEST(QmshTmpScene, SceneToTmpRoundTripIqe) {
  for (const char* path : {MESHPORT_TEST_DATA "/cli/skinned.iqe", MESHPORT_TEST_DATA "/../../examples/tentacle.iqe"}) {
    SCOPED_TRACE(path);
    Scene s = meshport::read(path);
    expect_round_trip(s);
  }
}

TEST(QmshTmpScene, SceneToTmpKeepsTimingAndUniqueNames) {
  Scene s = synthetic();
  s.joints[2].name = "hip";  // duplicate
  s.animations[0].times = {0, 0.5f, 0.75f};
  Animation second = s.animations[0];
  second.name = "slow";
  second.times.clear();
  second.framerate = 5;  // 0, 0.2, 0.4 s
  s.animations.push_back(second);
  Diagnostics diags;
  QmshTmpData d = qmsh_tmp::scene_to_tmp(s, diags);
  EXPECT_TRUE(has_warning(diags, "written as bone \"hip.001\""));
  EXPECT_EQ(d.armature.bones[2].name, "hip.001");
  EXPECT_EQ(d.meshes[0].vertex_groups[2].name, "hip.001");
  // The file's fps puts every key on a whole frame (issue 32; at the first framerate, 10, the
  // key at 0.75 s fell on frame 7.5, between the reader's samples): 20.
  EXPECT_EQ(d.fps, std::vector<int32_t>{20});
  const auto& p0 = d.actions[0].channels[0].curves[0].points;
  EXPECT_EQ(p0[1][0], 10);
  EXPECT_EQ(p0[2][0], 15);
  const auto& p1 = d.actions[1].channels[0].curves[0].points;
  EXPECT_EQ(p1[2][0], 8);
}

TEST(QmshTmpScene, WriteUsesKeptData) {
  QmshTmpData d = data_with({cube("Cube", 30)});
  Scene s = build(d);
  EXPECT_EQ(s.qmsh_tmp, [&] {
    QmshTmpData k = d;
    k.fingerprint = content_fingerprint(s);  // what the writer checks before using it
    return k;
  }());
}

// ---- With the parser (tests/data/qmsh) --------------------------------------------------------

TEST(QmshTmpScene, ReadCubeFile) {
  const std::string path = MESHPORT_TEST_DATA "/qmsh/cube.qmsh.tmp";
  Scene s = meshport::read(path);
  EXPECT_TRUE(s.qmsh_tmp.has_value());
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].name, "Cube.Red");
  EXPECT_EQ(s.meshes[1].name, "Cube.Blue");
  EXPECT_EQ(s.meshes[0].triangles.size(), 8u * 3);
  EXPECT_EQ(s.meshes[1].triangles.size(), 4u * 3);
  for (const Mesh& m : s.meshes) {
    EXPECT_TRUE(m.find(Attribute::Normal)) << m.name;
    EXPECT_TRUE(m.find(Attribute::Tangent)) << m.name;
  }
  // Vertex (1, 1, -1): scale (2, 2, 1) -> (2, 2, -1), 45 degrees about Z -> (0, 2 sqrt 2, -1),
  // + (1, 2, 0.5) -> (1, 4.828427, -0.5); Scene (1, -0.5, -4.828427). It is the first corner
  // of the first Red face.
  expect_v3(get3(s.meshes[0], Attribute::Position, s.meshes[0].triangles[0]), {1, -0.5f, -4.8284271f}, 1e-5f);
  const std::string text = testutil::slurp(path);
  Diagnostics diags;
  EXPECT_EQ(qmsh_tmp::write(s, diags), qmsh_tmp::print(qmsh_tmp::parse(text, path, diags)));
}

TEST(QmshTmpScene, ReadSkinnedFile) {
  const std::string path = MESHPORT_TEST_DATA "/qmsh/skinned.qmsh.tmp";
  Scene s = meshport::read(path);
  ASSERT_EQ(s.joints.size(), 3u);
  EXPECT_EQ(s.joints[2].name, "Tip");
  EXPECT_EQ(s.joints[2].parent, 1);
  auto world = joint_worlds(s);
  expect_v3({world[2][9], world[2][10], world[2][11]}, scene_of({0, 0, 2}), 1e-6f);
  expect_v3({-world[2][6], -world[2][7], -world[2][8]}, scene_of(normalize(V3{0, 1, 1})), 1e-6f);
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& walk = s.animations[0];
  EXPECT_EQ(walk.framerate, 25);
  ASSERT_EQ(walk.frame_count(), 21u);  // frames 5..25
  // Frame 15 (time 10): Root moved 0.5 along its Y axis (Blender +Z).
  expect_v3(walk.poses[10 * 3 + 0].translation, scene_of({0, 0, 0.5f}), 1e-6f);
  // Frame 10 (time 5): Mid at its rest offset (0, 1, 0) in Root's frame plus LocZ 0.1.
  expect_v3(walk.poses[5 * 3 + 1].translation, scene_of({0, 1, 0.1f}), 1e-6f);
  bool skinned = false;
  for (const Mesh& m : s.meshes) skinned = skinned || m.find(Attribute::BlendWeights);
  EXPECT_TRUE(skinned);
  for (const Animation& a : s.animations) {
    EXPECT_EQ(a.channels, s.joints.size());
    EXPECT_GT(a.frame_count(), 0u);
  }
  const std::string text = testutil::slurp(path);
  Diagnostics diags;
  EXPECT_EQ(qmsh_tmp::write(s, diags), qmsh_tmp::print(qmsh_tmp::parse(text, path, diags)));
  // The processed Scene, written without the kept data, comes back the same.
  Scene plain = s;
  plain.qmsh_tmp = {};
  expect_round_trip(plain);
}

}  // namespace meshport_test_qmsh_tmp_scene
