// Modal deformation (src/physics/modal.cpp, include/meshport/modal.h, docs/modedef.md) on the
// hand-written bar of tests/data/modedef/bar.model, built here in memory as well.
#include <meshport/meshport.h>

#include "formats/modedef/modedef.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace meshport_test_ops_modal {

using namespace meshport;

namespace {

using V3 = std::array<float, 3>;

// tests/data/modedef/bar.model. Node n is at (2 * (n & 1), (n >> 1) & 1, (n >> 2) & 1).
// Modes: 0 moves the nodes at x = 2 by (0, 1, 0); 1 moves every node by (0, 0, 1); 2 moves the
// nodes at x = 2 by (0.5, 0, 0). Render vertices: the top face y = 1 (0..5) and the centre of
// tetrahedron 4 (vertex 6), carton-embedded.
ModeDefModel bar_model() {
  ModeDefModel m;
  m.eigenvalues = {39.478418f, 157.91367f, 355.30576f};
  for (int k = 0; k < 3; ++k)
    for (int n = 0; n < 8; ++n) {
      const bool far = n & 1;
      const V3 phi = k == 0 ? V3{0, far ? 1.0f : 0.0f, 0} : k == 1 ? V3{0, 0, 1} : V3{far ? 0.5f : 0.0f, 0, 0};
      m.eigenvectors.insert(m.eigenvectors.end(), phi.begin(), phi.end());
    }
  for (int n = 0; n < 8; ++n)
    m.rest.insert(m.rest.end(), {float(2 * (n & 1)), float((n >> 1) & 1), float((n >> 2) & 1)});
  m.vertices = {{0, 1, 0}, {1, 1, 0}, {2, 1, 0}, {0, 1, 1}, {1, 1, 1}, {2, 1, 1}, {1, 0.5f, 0.5f}};
  m.normals = {{0, 1, 0}, {1, 0, 0}};
  m.texcoords = {{0, 0}, {0.5f, 0}, {1, 0}, {0, 1}, {0.5f, 1}, {1, 1}, {0.5f, 0.5f}};
  auto face = [](int a, int b, int c, int n) {
    ModeDefFace f;
    f.vertex = {a, b, c};
    f.normal = {n, n, n};
    f.texcoord = {a, b, c};
    return f;
  };
  m.faces = {face(0, 3, 1, 0), face(1, 3, 4, 0), face(1, 4, 2, 0), face(2, 4, 5, 0), face(6, 1, 4, 1)};
  ModeDefMaterial red, blue;
  red.ambient = blue.ambient = {0.1f, 0.1f, 0.1f, 1};
  red.diffuse = {0.8f, 0.2f, 0.2f, 1};
  blue.diffuse = {0.2f, 0.2f, 0.8f, 1};
  red.specular = blue.specular = {0.5f, 0.5f, 0.5f, 1};
  red.specular_strength = 20;
  blue.specular_strength = 10;
  m.materials = {red, blue};
  m.groups = {{0, 3, 0}, {4, 4, 1}};
  m.tets = {{0, 1, 2, 4}, {3, 1, 2, 7}, {5, 1, 4, 7}, {6, 2, 4, 7}, {1, 2, 4, 7}};
  m.carton = true;
  m.carton_vertices = {{0, {0, 0, 1, 0}},       {1, {0.5f, 0, 0.5f, 0}}, {1, {1, 0, 0, 0}},
                       {3, {1, 0, 0, 0}},       {3, {0.5f, 0, 0, 0.5f}}, {3, {0, 0, 0, 1}},
                       {4, {0.25f, 0.25f, 0.25f, 0.25f}}};
  return m;
}

// The Scene a .model reader makes of the bar (docs/modedef.md "Into the Scene"): one mesh per
// group, corners de-indexed in order of first use. Group 0 uses render vertices 0 3 1 4 2 5 with
// normal 0, group 1 render vertices 6 1 4 with normal 1.
Scene bar_scene() {
  Scene s;
  s.modedef.emplace().kind = ModeDefData::Kind::Model;
  s.modedef->models.push_back({"bar.model", bar_model()});
  const ModeDefModel& m = s.modedef->models[0].model;
  auto make = [&](const std::string& name, std::vector<uint32_t> render, int32_t normal,
                  std::vector<uint32_t> tris, int32_t group) {
    Mesh mesh;
    mesh.name = name;
    mesh.material = group;
    std::vector<float> p, n;
    for (uint32_t v : render) {
      p.insert(p.end(), m.vertices[v].begin(), m.vertices[v].end());
      n.insert(n.end(), m.normals[size_t(normal)].begin(), m.normals[size_t(normal)].end());
    }
    mesh.streams.push_back(testutil::float_stream(Attribute::Position, 3, p));
    mesh.streams.push_back(testutil::float_stream(Attribute::Normal, 3, n));
    mesh.triangles = std::move(tris);
    ModeDefMeshSource src;
    src.mesh = int32_t(s.meshes.size());
    src.model = 0;
    src.group = group;
    src.vertex = render;
    src.normal.assign(render.size(), normal);
    s.modedef->mesh_sources.push_back(src);
    s.meshes.push_back(std::move(mesh));
  };
  make("bar.group0", {0, 3, 1, 4, 2, 5}, 0, {0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5}, 0);
  make("bar.group1", {6, 1, 4}, 1, {0, 1, 2}, 1);
  s.materials = {testutil::material("material0", "", {0.8f, 0.2f, 0.2f, 1}), testutil::material("material1", "", {0.2f, 0.2f, 0.8f, 1})};
  return s;
}

void expect_v3(const V3& got, const V3& want, float tol = 1e-6f) {
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[c], want[c], tol) << "component " << c;
}

V3 position(const Mesh& m, size_t v) {
  const VertexStream* p = m.find(Attribute::Position);
  return {p->get(v, 0), p->get(v, 1), p->get(v, 2)};
}
V3 normal(const Mesh& m, size_t v) {
  const VertexStream* p = m.find(Attribute::Normal);
  return {p->get(v, 0), p->get(v, 1), p->get(v, 2)};
}


}  // namespace

TEST(ModalOps, ModeFrequency) {
  EXPECT_NEAR(mode_frequency(39.478418f), 1.0f, 1e-5f);  // (2 pi)^2 = 39.478418
  EXPECT_NEAR(mode_frequency(157.91367f), 2.0f, 1e-5f);
  EXPECT_EQ(mode_frequency(0), 0.0f);
  EXPECT_EQ(mode_frequency(-1), 0.0f);
}

TEST(ModalOps, NodeDisplacementsAreTheWeightedSumOfModes) {
  const ModeDefModel m = bar_model();
  const float q[] = {0.5f, -2.0f, 4.0f};
  const std::vector<float> u = modal_displacements(m, q);
  ASSERT_EQ(u.size(), 24u);
  // Node 0 (x = 0): 0.5 * (0,0,0) - 2 * (0,0,1) + 4 * (0,0,0) = (0, 0, -2).
  // Node 7 (x = 2): 0.5 * (0,1,0) - 2 * (0,0,1) + 4 * (0.5,0,0) = (2, 0.5, -2).
  expect_v3({u[0], u[1], u[2]}, {0, 0, -2});
  expect_v3({u[21], u[22], u[23]}, {2, 0.5f, -2});
  // Fewer amplitudes than modes: the others are 0.
  const float one[] = {0.5f};
  const std::vector<float> u1 = modal_displacements(m, one);
  expect_v3({u1[21], u1[22], u1[23]}, {0, 0.5f, 0});
  EXPECT_EQ(modal_displacements(m, {}), std::vector<float>(24, 0.0f));
}

TEST(ModalOps, CartonBlendsTheTetrahedronsNodes) {
  const ModeDefModel m = bar_model();
  const float q[] = {0.5f};
  const std::vector<float> d = render_displacements(m, modal_displacements(m, q));
  ASSERT_EQ(d.size(), 21u);
  // Mode 0 at 0.5 moves nodes 1 3 5 7 by (0, 0.5, 0), the others not at all.
  // v0 = node 2: (0,0,0). v1 = 0.5 node 3 + 0.5 node 2: (0, 0.25, 0). v2 = node 3: (0, 0.5, 0).
  // v6 = (node 1 + node 2 + node 4 + node 7) / 4 = ((0,0.5,0) + 0 + 0 + (0,0.5,0)) / 4 = (0, 0.25, 0).
  expect_v3({d[0], d[1], d[2]}, {0, 0, 0});
  expect_v3({d[3], d[4], d[5]}, {0, 0.25f, 0});
  expect_v3({d[6], d[7], d[8]}, {0, 0.5f, 0});
  expect_v3({d[18], d[19], d[20]}, {0, 0.25f, 0});
}

TEST(ModalOps, DeformModelMovesNodesVerticesAndNormals) {
  const ModeDefModel m = bar_model();
  const float q[] = {0.5f};
  const ModalDeformation r = deform_model(m, q);
  ASSERT_EQ(r.nodes.size(), 8u);
  ASSERT_EQ(r.vertices.size(), 7u);
  ASSERT_EQ(r.normals.size(), 2u);
  expect_v3(r.nodes[0], {0, 0, 0});
  expect_v3(r.nodes[7], {2, 1.5f, 1});  // rest (2,1,1) + (0,0.5,0)
  // Render vertices = file vertex + displacement (see CartonBlendsTheTetrahedronsNodes):
  expect_v3(r.vertices[0], {0, 1, 0});
  expect_v3(r.vertices[1], {1, 1.25f, 0});
  expect_v3(r.vertices[2], {2, 1.5f, 0});
  expect_v3(r.vertices[3], {0, 1, 1});
  expect_v3(r.vertices[4], {1, 1.25f, 1});
  expect_v3(r.vertices[5], {2, 1.5f, 1});
  expect_v3(r.vertices[6], {1, 0.75f, 0.5f});
  // The top face is now the plane y = 1 + 0.25 x: every one of its faces has the normal
  // (-0.25, 1, 0) / sqrt(1.0625) = (-0.2425356, 0.9701425, 0). E.g. face 0 (v0 v3 v1):
  // (v3 - v0) x (v1 - v0) = (0,0,1) x (1,0.25,0) = (-0.25, 1, 0).
  expect_v3(r.normals[0], {-0.2425356f, 0.9701425f, 0});
  // The fin (v6 v1 v4) stays in the plane x = 1: (0,0.5,-0.5) x (0,0.5,0.5) = (0.5, 0, 0).
  expect_v3(r.normals[1], {1, 0, 0});
}

TEST(ModalOps, AmplitudesSuperpose) {
  const ModeDefModel m = bar_model();
  const float a[] = {0.5f, 0, 0}, b[] = {0, -0.75f, 0.25f}, ab[] = {0.5f, -0.75f, 0.25f};
  const ModalDeformation ra = deform_model(m, a), rb = deform_model(m, b), rab = deform_model(m, ab);
  for (size_t v = 0; v < m.vertices.size(); ++v) {
    SCOPED_TRACE(v);
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(rab.vertices[v][c] - m.vertices[v][c],
                  (ra.vertices[v][c] - m.vertices[v][c]) + (rb.vertices[v][c] - m.vertices[v][c]), 1e-6f);
  }
  // By hand, v5 = node 7 = (2,1,1): + 0.5 (0,1,0) - 0.75 (0,0,1) + 0.25 (0.5,0,0) = (2.125, 1.5, 0.25).
  expect_v3(rab.vertices[5], {2.125f, 1.5f, 0.25f});
}

TEST(ModalOps, TranslationModeKeepsFlatNormals) {
  const ModeDefModel m = bar_model();
  const float q[] = {0, 0.5f};  // mode 1: every node moves by (0, 0, 0.5)
  const ModalDeformation r = deform_model(m, q);
  for (size_t v = 0; v < m.vertices.size(); ++v)
    expect_v3(r.vertices[v], {m.vertices[v][0], m.vertices[v][1], m.vertices[v][2] + 0.5f});
  EXPECT_EQ(r.normals[0], (V3{0, 1, 0}));
  EXPECT_EQ(r.normals[1], (V3{1, 0, 0}));
}

TEST(ModalOps, WithoutCartonRenderVertexIsNode) {
  ModeDefModel m = bar_model();
  m.carton = false;
  m.carton_vertices.clear();
  // The render vertices become the 8 nodes; faces: the top quad (nodes 2 6 3, 3 6 7), no normals.
  m.vertices.clear();
  for (size_t n = 0; n < 8; ++n) m.vertices.push_back({m.rest[n * 3], m.rest[n * 3 + 1], m.rest[n * 3 + 2]});
  m.normals.clear();
  m.texcoords.clear();
  ModeDefFace f0, f1;
  f0.vertex = {2, 6, 3};
  f1.vertex = {3, 6, 7};
  m.faces = {f0, f1};
  m.groups.clear();
  const float q[] = {0.5f};
  const ModalDeformation r = deform_model(m, q);
  expect_v3(r.vertices[3], {2, 1.5f, 0});  // node 3 + (0, 0.5, 0)
  expect_v3(r.vertices[2], {0, 1, 0});
  // Per-render-vertex normals: node 2's only face (2 6 3) has (0,0,1) x (2,0.5,0) = (-0.5, 2, 0),
  // normalised (-0.2425356, 0.9701425, 0); an unused node gets (0, 1, 0).
  ASSERT_EQ(r.normals.size(), 8u);
  expect_v3(r.normals[2], {-0.2425356f, 0.9701425f, 0});
  EXPECT_EQ(r.normals[0], (V3{0, 1, 0}));
  // A different vertex count cannot say which node moves which vertex.
  m.vertices.pop_back();
  m.faces.pop_back();
  EXPECT_THROW(deform_model(m, q), Error);
  // ... unless there are no modes.
  m.eigenvalues.clear();
  m.eigenvectors.clear();
  EXPECT_NO_THROW(deform_model(m, {}));
}

TEST(ModalOps, Errors) {
  const ModeDefModel m = bar_model();
  const float four[] = {1, 2, 3, 4};
  EXPECT_THROW(modal_displacements(m, four), Error);
  const float nan[] = {std::nanf("")};
  EXPECT_THROW(modal_displacements(m, nan), Error);
  const float inf[] = {0, INFINITY};
  EXPECT_THROW(deform_model(m, inf), Error);
  EXPECT_THROW(render_displacements(m, std::vector<float>(23, 0.0f)), Error);
  ModeDefModel bad = m;
  bad.carton_vertices[6].tet = 5;
  EXPECT_THROW(render_displacements(bad, std::vector<float>(24, 0.0f)), Error);
  bad = m;
  bad.faces[0].vertex[1] = 7;
  EXPECT_THROW(deform_model(bad, {}), Error);
}

TEST(ModalOps, DeformSceneUsesTheMeshSources) {
  Scene s = bar_scene();
  const float q[] = {0.5f};
  deform_scene(s, q);
  // Group 0 holds render vertices 0 3 1 4 2 5 (see DeformModelMovesNodesVerticesAndNormals).
  const Mesh& top = s.meshes[0];
  expect_v3(position(top, 0), {0, 1, 0});
  expect_v3(position(top, 1), {0, 1, 1});
  expect_v3(position(top, 2), {1, 1.25f, 0});
  expect_v3(position(top, 3), {1, 1.25f, 1});
  expect_v3(position(top, 4), {2, 1.5f, 0});
  expect_v3(position(top, 5), {2, 1.5f, 1});
  for (size_t v = 0; v < 6; ++v) expect_v3(normal(top, v), {-0.2425356f, 0.9701425f, 0});
  // Group 1: render vertices 6 1 4, the fin's normal.
  const Mesh& fin = s.meshes[1];
  expect_v3(position(fin, 0), {1, 0.75f, 0.5f});
  expect_v3(position(fin, 1), {1, 1.25f, 0});
  for (size_t v = 0; v < 3; ++v) expect_v3(normal(fin, v), {1, 0, 0});
  // Amplitude 0 restores the file's shape.
  deform_scene(s, {});
  EXPECT_EQ(s.meshes, bar_scene().meshes);
}

TEST(ModalOps, DeformSceneErrors) {
  Scene plain;
  plain.meshes.push_back(bar_scene().meshes[0]);
  EXPECT_THROW(deform_scene(plain, {}), Error);
  Scene s = bar_scene();
  EXPECT_THROW(deform_scene(s, {}, 1), Error);
  // A mesh whose vertices no longer match its source: nothing changes.
  s.meshes[1].streams[0].data.resize(6);
  s.meshes[1].streams[1].data.resize(6);
  const Scene before = s;
  const float q[] = {0.5f};
  EXPECT_THROW(deform_scene(s, q), Error);
  EXPECT_EQ(s, before);
}

TEST(ModalOps, ModesAnimation) {
  Scene s = bar_scene();
  // Morph targets as the reader makes them: unit-amplitude render displacements per mode.
  const ModeDefModel& m = s.modedef->models[0].model;
  for (size_t k = 0; k < 3; ++k) {
    std::vector<float> q(k + 1, 0.0f);
    q[k] = 1;
    const std::vector<float> d = render_displacements(m, modal_displacements(m, q));
    for (size_t i = 0; i < 2; ++i) {
      MorphTarget t;
      t.name = fmt::format("mode{} {} Hz", k, k + 1);
      for (uint32_t v : s.modedef->mesh_sources[i].vertex) t.positions.insert(t.positions.end(), &d[v * 3], &d[v * 3 + 3]);
      s.meshes[i].morph_targets.push_back(t);
    }
  }
  s.joints.push_back({"root", -1, {}});
  EXPECT_EQ(add_modes_animation(s), 3u);
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "modes");
  EXPECT_EQ(a.framerate, 30.0f);
  // 3 slots of 2 s at 30 fps: frames 0 .. 180.
  ASSERT_EQ(a.channels, 1u);
  ASSERT_EQ(a.frame_count(), 181u);
  for (const Transform& p : a.poses) EXPECT_EQ(p, Transform{});
  ASSERT_EQ(a.morph_weights.size(), 2u);
  const MorphWeightTrack& t = a.morph_weights[1];
  EXPECT_EQ(t.mesh, 1);
  ASSERT_EQ(t.times.size(), 181u);
  ASSERT_EQ(t.weights.size(), 181u * 3);
  EXPECT_FLOAT_EQ(t.times[45], 1.5f);
  // Bounding box (0,0.5,0)..(2,1,1) (the fin reaches down to y = 0.5), diagonal
  // sqrt(4 + 0.25 + 1) = 2.2912878. Largest unit displacement: mode 0 (0, 1, 0) at x = 2 -> 1;
  // mode 1 -> 1; mode 2 (0.5, 0, 0) -> 0.5. Amplitudes a = 0.1 * 2.2912878 / largest.
  const double diag = std::sqrt(5.25);
  const double a0 = 0.1 * diag, a2 = 0.1 * diag / 0.5;
  // Frame 15 (t = 0.5 s) is in slot 0 at s = 0.25: a0 sin(2 pi 3 0.25) e^(-4 0.25) = a0 * (-1) * e^-1.
  EXPECT_NEAR(t.weights[15 * 3 + 0], -a0 * std::exp(-1.0), 1e-6);
  EXPECT_EQ(t.weights[15 * 3 + 1], 0.0f);
  EXPECT_EQ(t.weights[15 * 3 + 2], 0.0f);
  // Frame 125 (t = 4.1667 s) is in slot 2 at s = 1/12: a2 sin(pi / 2) e^(-1/3).
  EXPECT_NEAR(t.weights[125 * 3 + 2], a2 * std::exp(-1.0 / 3), 1e-6);
  EXPECT_EQ(t.weights[125 * 3 + 0], 0.0f);
  // Slot boundaries are at rest.
  for (size_t f : {0, 60, 120, 180})
    for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(t.weights[f * 3 + k], 0.0f, 1e-6f) << f << " " << k;
  // No morph targets: nothing added.
  Scene none = bar_scene();
  EXPECT_EQ(add_modes_animation(none), 0u);
  EXPECT_TRUE(none.animations.empty());
}

TEST(ModalOps, BarModelFileMatchesTheModelBuiltHere) {
  Diagnostics d;
  const ModeDefModel m = modedef::parse_model(testutil::slurp(std::string(MESHPORT_TEST_DATA) + "/modedef/bar.model"),
                                              "bar.model", d);
  EXPECT_EQ(d.items.size(), 0u);
  ModeDefModel want = bar_model();
  want.indexing = m.indexing;
  EXPECT_EQ(m, want);
  EXPECT_EQ(m.indexing.face_base, 0);
  EXPECT_EQ(m.indexing.group_base, 0);
  EXPECT_TRUE(m.indexing.group_end_inclusive);
  // Read as a Scene, deform_scene moves it as the in-memory Scene above.
  Scene s = read(std::string(MESHPORT_TEST_DATA) + "/modedef/bar.model");
  const float q[] = {0.5f};
  deform_scene(s, q);
  ASSERT_EQ(s.meshes.size(), 2u);
  Scene mine = bar_scene();
  deform_scene(mine, q);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(s.meshes[i].vertex_count(), mine.meshes[i].vertex_count());
    for (size_t v = 0; v < mine.meshes[i].vertex_count(); ++v) expect_v3(position(s.meshes[i], v), position(mine.meshes[i], v));
  }
}

}  // namespace meshport_test_ops_modal
