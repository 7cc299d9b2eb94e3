// meshport diff (include/meshport/diff.h, docs/diff.md) and `meshport diff`.
#include <meshport/diff.h>
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace meshport_test_diff {

using namespace meshport;

namespace {

Transform translate(float x, float y, float z) {
  Transform t;
  t.translation = {x, y, z};
  return t;
}

// Two quads (four triangles) over two joints; vertex 2 and 3 are shared by both quads. One
// animation of three frames bends the tip joint.
Scene hinge() {
  Scene s;
  s.materials.push_back(testutil::material("skin", "skin.png", {1, 0.5f, 0.25f, 1}));
  s.joints.push_back({"base", -1, {}});
  s.joints.push_back({"tip", 0, translate(0, 1, 0)});
  Mesh m;
  m.name = "body";
  m.material = 0;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3,
                                             {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 2, 0, 0, 2, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 1, 0.5f, 0, 0.5f, 1, 1, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3,
                                             {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 2, {0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 2,
                                             {1, 0, 1, 0, 0.5f, 0.5f, 0.5f, 0.5f, 1, 0, 1, 0}));
  m.triangles = {0, 1, 2, 0, 2, 3, 3, 2, 4, 3, 4, 5};
  s.meshes.push_back(m);
  Animation a;
  a.name = "bend";
  a.framerate = 12;
  a.loop = true;
  a.channels = 2;
  for (int f = 0; f < 3; ++f) {
    Transform tip = translate(0, 1, 0);
    tip.rotation = {0, 0, std::sin(0.2f * float(f)), std::cos(0.2f * float(f))};
    a.poses.push_back(Transform{});
    a.poses.push_back(tip);
  }
  s.animations.push_back(a);
  s.attachments.push_back({"muzzle", -1, 1, translate(0, 0.5f, 0)});
  return s;
}

// The mesh with every triangle's corners on vertices of their own (split at every corner), the
// vertices in reverse order, the triangles in reverse order and each rotated by one corner.
Mesh split_and_reordered(const Mesh& m) {
  Mesh out = m;
  const size_t corners = m.triangles.size();
  for (VertexStream& s : out.streams) {
    s.data.clear();
    for (size_t c = corners; c-- > 0;) {
      const uint32_t v = m.triangles[c];
      const VertexStream& src = *m.find(s.attribute);
      for (uint32_t k = 0; k < s.components; ++k) s.data.push_back(src.get(v, k));
    }
  }
  // Corner c of the input is vertex corners - 1 - c of the output.
  out.triangles.clear();
  for (size_t t = corners / 3; t-- > 0;) {
    auto v = [&](size_t c) { return uint32_t(corners - 1 - (t * 3 + c)); };
    out.triangles.insert(out.triangles.end(), {v(1), v(2), v(0)});
  }
  return out;
}

bool has_path(const std::vector<Difference>& d, const std::string& path) {
  return std::any_of(d.begin(), d.end(), [&](const Difference& x) { return x.path == path; });
}

std::string dump(const std::vector<Difference>& d) {
  std::string s;
  for (const Difference& x : d) s += to_string(x) + "\n";
  return s;
}

}  // namespace

TEST(Diff, IdenticalScenesAreSame) {
  const Scene s = hinge();
  EXPECT_TRUE(diff(s, s).empty()) << dump(diff(s, s));
}

TEST(Diff, SplitAndReorderedVerticesAreSame) {
  const Scene a = hinge();
  Scene b = a;
  b.meshes[0] = split_and_reordered(a.meshes[0]);
  ASSERT_EQ(b.meshes[0].vertex_count(), 12u);
  ASSERT_NE(a.meshes[0].triangles, b.meshes[0].triangles);
  const auto d = diff(a, b);
  EXPECT_TRUE(d.empty()) << dump(d);
  const auto back = diff(b, a);
  EXPECT_TRUE(back.empty()) << dump(back);
  // The corners carry the very same values: same even at tolerance 0.
  const auto exact = diff(a, b, DiffOptions{0.0f});
  EXPECT_TRUE(exact.empty()) << dump(exact);
}

TEST(Diff, MovedVertexBeyondToleranceNamesTheMesh) {
  const Scene a = hinge();
  Scene b = a;
  b.meshes[0].streams[0].data[4 * 3 + 2] = 0.01f;  // vertex 4 (one triangle): z 0 -> 0.01
  const auto d = diff(a, b);
  ASSERT_TRUE(has_path(d, "meshes[body].triangles")) << dump(d);
  const Difference& t = *std::find_if(d.begin(), d.end(), [](auto& x) { return x.path == "meshes[body].triangles"; });
  EXPECT_EQ(t.a, "4 triangles");
  EXPECT_EQ(t.b, "4 triangles");
  EXPECT_NE(t.message.find("2 of A's have no match in B"), std::string::npos) << t.message;
  EXPECT_NE(t.message.find("(1 2 0)"), std::string::npos) << t.message;  // the moved corner's triangle
  // Animations compare the vertices of matched triangles only: the move is reported once.
  EXPECT_EQ(d.size(), 1u) << dump(d);

  // Within tolerance (1e-4 of the diagonal sqrt(5) is 2.2e-4) the move is no difference.
  Scene c = a;
  c.meshes[0].streams[0].data[4 * 3 + 2] = 1e-4f;
  EXPECT_TRUE(diff(a, c).empty()) << dump(diff(a, c));
  // A looser tolerance accepts the larger move.
  EXPECT_TRUE(diff(a, b, DiffOptions{0.01f}).empty());
}

TEST(Diff, ChangedTextureCoordinateAndMissingNormals) {
  const Scene a = hinge();
  Scene b = a;
  b.meshes[0].streams[1].data[0] = 0.5f;
  EXPECT_TRUE(has_path(diff(a, b), "meshes[body].triangles"));
  Scene c = a;
  c.meshes[0].streams.erase(c.meshes[0].streams.begin() + 2);  // normals
  // The flat quads imply the normals a has: a note, no difference (issue 33).
  std::vector<Difference> notes;
  EXPECT_TRUE(diff(a, c, {}, &notes).empty()) << dump(diff(a, c));
  ASSERT_EQ(notes.size(), 1u) << dump(notes);
  EXPECT_EQ(notes[0], (Difference{"meshes[body].normals", "present", "missing",
                                  "the normals B implies (generated by its smoothing rules, as convert makes them) agree"}));
  // Normals that are not the implied ones are a difference.
  c.meshes[0].streams.erase(c.meshes[0].streams.begin() + 1);  // texture coordinates
  Scene e = a;
  e.meshes[0].streams[2].data[5 * 3 + 2] = -1;  // vertex 5 (of one triangle) faces away
  const auto d = diff(e, c);
  ASSERT_EQ(d.size(), 2u) << dump(d);
  EXPECT_EQ(d[1], (Difference{"meshes[body].normals", "present", "missing", "the normals B implies differ at 1 of 4 triangles"}));
}

TEST(Diff, MeshesPairByNameElseByGeometry) {
  const Scene a = hinge();
  Scene b = a;
  b.meshes[0].name = "renamed";
  auto d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0].path, "meshes[body].name");
  EXPECT_EQ(d[0].a, "\"body\"");
  EXPECT_EQ(d[0].b, "\"renamed\"");

  Scene c = a;
  c.meshes.clear();
  d = diff(a, c);
  EXPECT_EQ(d[0], (Difference{"meshes[body]", "present", "missing", ""})) << dump(d);
  d = diff(c, a);
  EXPECT_EQ(d[0], (Difference{"meshes[body]", "missing", "present", ""})) << dump(d);
}

TEST(Diff, RenamedJointIsADifference) {
  const Scene a = hinge();
  Scene b = a;
  b.joints[1].name = "end";
  const auto d = diff(a, b);
  EXPECT_TRUE(has_path(d, "joints[tip]")) << dump(d);
  EXPECT_TRUE(has_path(d, "joints[end]")) << dump(d);
  EXPECT_TRUE(has_path(d, "attachments[muzzle].joint")) << dump(d);
  // The skinned positions are still the same.
  EXPECT_FALSE(has_path(d, "animations[bend].meshes[body].positions")) << dump(d);
}

TEST(Diff, JointParentAndRestTransform) {
  const Scene a = hinge();
  Scene b = a;
  b.joints[1].rest.rotation = {0, 0, -0.0f, -1};  // the same rotation as (0 0 0 1)
  EXPECT_TRUE(diff(a, b).empty()) << dump(diff(a, b));
  b.joints[1].rest.translation = {0, 1.5f, 0};
  auto d = diff(a, b);
  EXPECT_TRUE(has_path(d, "joints[tip].rest.translation")) << dump(d);
  Scene c = a;
  c.joints[1].parent = -1;
  d = diff(a, c);
  ASSERT_TRUE(has_path(d, "joints[tip].parent")) << dump(d);
  EXPECT_EQ(d[0].a, "\"base\"");
  EXPECT_EQ(d[0].b, "none");
}

TEST(Diff, ChangedAnimationFrameIsADifference) {
  const Scene a = hinge();
  Scene b = a;
  b.animations[0].poses[2 * 2 + 1].rotation = {0, 0, 0.7071068f, 0.7071068f};  // frame 2, tip
  const auto d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0].path, "animations[bend].meshes[body].positions");
  EXPECT_NE(d[0].message.find("1 of 3 frames differ"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("first at frame 2"), std::string::npos) << d[0].message;
}

TEST(Diff, AnimationFieldsAndPresence) {
  const Scene a = hinge();
  Scene b = a;
  b.animations[0].framerate = 24;
  b.animations[0].loop = false;
  b.animations[0].poses.resize(4);
  auto d = diff(a, b);
  EXPECT_TRUE(has_path(d, "animations[bend].frames")) << dump(d);
  EXPECT_TRUE(has_path(d, "animations[bend].framerate")) << dump(d);
  EXPECT_TRUE(has_path(d, "animations[bend].loop")) << dump(d);
  EXPECT_EQ(d[0], (Difference{"animations[bend].frames", "3", "2", ""}));
  Scene c = a;
  c.animations[0].name = "wave";
  d = diff(a, c);
  ASSERT_EQ(d.size(), 2u) << dump(d);
  EXPECT_EQ(d[0], (Difference{"animations[bend]", "present", "missing", ""}));
  EXPECT_EQ(d[1], (Difference{"animations[wave]", "missing", "present", ""}));
}

TEST(Diff, AnimationOnlyScenesCompareJointPositions) {
  Scene a = hinge();
  a.meshes.clear();
  Scene b = a;
  EXPECT_TRUE(diff(a, b).empty());
  b.animations[0].poses[2 * 2 + 1].translation = {0, 2, 0};
  const auto d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0].path, "animations[bend].joints[tip].position");
  EXPECT_EQ(d[0].message, "first at frame 2");
}

TEST(Diff, ChangedMaterialColourIsADifference) {
  const Scene a = hinge();
  Scene b = a;
  b.materials[0].base_color = {0, 1, 0, 1};
  auto d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0], (Difference{"materials[skin].base_color", "(1 0.5 0.25 1)", "(0 1 0 1)", ""}));
  b = a;
  b.materials[0].base_color_texture = "other.png";
  d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0].path, "materials[skin].base_color_texture");
}

TEST(Diff, AttachmentsByName) {
  const Scene a = hinge();
  Scene b = a;
  b.attachments[0].transform.translation = {0, 0.75f, 0};
  auto d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0], (Difference{"attachments[muzzle].transform.translation", "(0 0.5 0)", "(0 0.75 0)", ""}));
}

TEST(Diff, PieVersion2Versus4) {
  const Scene v4 = read(std::string(MESHPORT_TEST_DATA) + "/pie/feat-pie4.pie");
  ASSERT_TRUE(v4.pie);
  ASSERT_EQ(v4.pie->version, 4);
  WriteOptions w;
  w.pie_version = 2;
  const std::vector<uint8_t> bytes = write_memory(v4, Format::Pie, w);
  const Scene v2 = read_memory(bytes, Format::Pie, "v2.pie");
  const auto d = diff(v2, v4);
  const auto v = std::find_if(d.begin(), d.end(), [](auto& x) { return x.path == "pie.version"; });
  ASSERT_NE(v, d.end()) << dump(d);
  EXPECT_EQ(*v, (Difference{"pie.version", "2", "4", ""}));
  EXPECT_EQ(to_string(*v), "pie.version: 2 vs 4");
}

TEST(Diff, SideDataOnOneSideOnly) {
  const Scene a = hinge();
  Scene b = a;
  b.iqm.emplace();  // empty: nothing a reader would not make anyway
  EXPECT_TRUE(diff(a, b).empty());
  b.iqm->extensions.push_back({"ext", {1, 2, 3}});
  auto d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0], (Difference{"iqm", "missing", "present", ""}));
  Scene c = b;
  c.iqm->extensions[0].data = {1, 2};
  d = diff(b, c);
  ASSERT_EQ(d.size(), 1u) << dump(d);
  EXPECT_EQ(d[0], (Difference{"iqm.extensions[0].data", "3 items", "2 items", ""}));
}

TEST(Diff, MorphTargetsAndFaceChannelsFollowMatchedTriangles) {
  Scene a = hinge();
  MorphTarget t;
  t.name = "bulge";
  t.positions.assign(6 * 3, 0.0f);
  t.positions[5 * 3 + 2] = 0.25f;  // vertex 5 moves along z
  a.meshes[0].morph_targets.push_back(t);
  a.meshes[0].face_channels.push_back({"pie.flags", 1, {0x200, 0x200, 0x4200, 0x200}});
  Scene b = a;
  b.meshes[0] = split_and_reordered(a.meshes[0]);
  // The split copy's morph target and channel, carried along by hand: output vertex 11 - c is
  // input corner c, output triangle 3 - t is input triangle t.
  MorphTarget& tb = b.meshes[0].morph_targets[0];
  tb.positions.assign(12 * 3, 0.0f);
  for (size_t c = 0; c < 12; ++c)
    if (a.meshes[0].triangles[c] == 5) tb.positions[(11 - c) * 3 + 2] = 0.25f;
  b.meshes[0].face_channels[0].data = {0x200, 0x4200, 0x200, 0x200};
  EXPECT_TRUE(diff(a, b).empty()) << dump(diff(a, b));

  Scene c = b;
  c.meshes[0].face_channels[0].data = {0x200, 0x200, 0x4200, 0x200};
  for (float& x : c.meshes[0].morph_targets[0].positions) x = x != 0 ? 0.5f : 0.0f;
  const auto d = diff(a, c);
  ASSERT_EQ(d.size(), 2u) << dump(d);
  EXPECT_EQ(d[0], (Difference{"meshes[body].morph_targets[bulge].positions", "(0 0 0.25)", "(0 0 0.5)",
                              "displacement of the vertex at (0 2 0)"}));
  EXPECT_EQ(d[1].path, "meshes[body].face_channels[pie.flags]");
  EXPECT_EQ(d[1].message.substr(0, 30), "2 matched triangles differ (fi");
}

TEST(Diff, SideDataFloatsAgreeWithinTolerance) {
  Scene a = hinge();
  a.qmsh.emplace();
  a.qmsh->radius = 2.0083973f;
  a.qmsh->binormals = {0.5f, -1e-7f};
  Scene b = a;
  b.qmsh->fingerprint = 42;  // bookkeeping, not compared
  b.qmsh->radius = 2.008397f;
  b.qmsh->binormals = {0.5f, 1e-6f};
  EXPECT_TRUE(diff(a, b).empty()) << dump(diff(a, b));
  b.qmsh->radius = 2.01f;
  b.qmsh->binormals = {0.5f, 0.001f};
  const auto d = diff(a, b);
  ASSERT_EQ(d.size(), 2u) << dump(d);
  EXPECT_EQ(d[0], (Difference{"qmsh.radius", "2.0083973", "2.01", ""}));
  EXPECT_EQ(d[1], (Difference{"qmsh.binormals[1]", "-1e-07", "0.001", ""}));
}

// IQE -> IQM -> GLB -> IQE keeps the tentacle the same model (vertices may be split or reordered
// on the way). IQM stores blend weights as ubyte (iqm.txt's default, docs/iqe-iqm.md), so from
// IQM on the skinned positions move by up to a weight step (1/255) times a joint's displacement:
// about 4e-4 of the model's size, within a tolerance of 1e-3 and beyond the default 1e-4.
TEST(Diff, TentacleThroughIqmAndGlbIsSame) {
  const std::string src = std::string(MESHPORT_TEST_DATA) + "/../../examples/tentacle.iqe";
  const Scene iqe = read(src);
  ASSERT_EQ(iqe.meshes.size(), 2u);
  ASSERT_EQ(iqe.animations.size(), 1u);
  const Scene iqm = read_memory(write_memory(iqe, Format::Iqm), Format::Iqm, "t.iqm");
  const Scene glb = read_memory(write_memory(iqm, Format::Glb), Format::Glb, "t.glb");
  const Scene back = read_memory(write_memory(glb, Format::Iqe), Format::Iqe, "t.iqe");
  const DiffOptions loose{1e-3f};
  for (const Scene* s : {&iqm, &glb, &back}) {
    const auto d = diff(iqe, *s, loose);
    EXPECT_TRUE(d.empty()) << dump(d);
  }
  // At the default tolerance only the skinned positions differ, by the quantised weights.
  const auto strict = diff(iqe, back);
  ASSERT_EQ(strict.size(), 2u) << dump(strict);
  EXPECT_EQ(strict[0].path, "animations[wave].meshes[tentacle.0].positions");
  EXPECT_EQ(strict[1].path, "animations[wave].meshes[tentacle.1].positions");
  // From IQM on, nothing moves at all at the default tolerance.
  for (const Scene* s : {&glb, &back}) {
    const auto d = diff(iqm, *s);
    EXPECT_TRUE(d.empty()) << dump(d);
  }
  // A real change is found through the conversions.
  Scene moved = glb;
  moved.animations[0].poses[5 * moved.animations[0].channels + 2].translation[0] += 0.5f;
  const auto d = diff(iqe, moved, loose);
  ASSERT_EQ(d.size(), 2u) << dump(d);
  EXPECT_EQ(d[0].path, "animations[wave].meshes[tentacle.0].positions");
  EXPECT_NE(d[0].message.find("first at frame 5"), std::string::npos) << d[0].message;
}

TEST(DiffCli, ExitCodesAndPlainOutput) {
  testutil::TempDir dir;
  const std::string src = std::string(MESHPORT_TEST_DATA) + "/cli/skinned.iqe";
  ASSERT_EQ(testutil::run_cli("convert -q '" + src + "' -o '" + dir / "h.glb" + "'").status, 0);
  auto r = testutil::run_cli("diff '" + src + "' '" + dir / "h.glb" + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "same\n");

  const std::string other = std::string(MESHPORT_TEST_DATA) + "/cli/walk.iqe";
  r = testutil::run_cli("diff '" + src + "' '" + other + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(" differences\n"), std::string::npos) << r.out;

  r = testutil::run_cli("diff '" + src + "' '" + dir / "missing.iqm" + "'");
  EXPECT_EQ(r.status, 2) << r.out;
  r = testutil::run_cli("diff '" + src + "' '" + std::string(MESHPORT_TEST_DATA) + "/cli/badindex.iqe'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("badindex.iqe:"), std::string::npos) << r.out;

  r = testutil::run_cli("diff --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--tolerance"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("never by vertex index"), std::string::npos) << r.out;
}

TEST(DiffCli, JsonShape) {
  testutil::TempDir dir;
  Scene a = hinge();
  write(a, dir / "a.glb");
  a.materials[0].base_color = {0, 1, 0, 1};
  write(a, dir / "b.glb");
  auto r = testutil::run_cli("diff --json '" + dir / "a.glb" + "' '" + dir / "b.glb" + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["same"], false);
  EXPECT_EQ(j["count"], 1);
  ASSERT_EQ(j["differences"].size(), 1u) << r.out;
  const auto& d = j["differences"][0];
  EXPECT_EQ(d["path"], "materials[skin].base_color");
  EXPECT_EQ(d["a"], "(1 0.5 0.25 1)");
  EXPECT_EQ(d["b"], "(0 1 0 1)");
  EXPECT_EQ(d["message"], "");

  r = testutil::run_cli("diff --json '" + dir / "a.glb" + "' '" + dir / "a.glb" + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out), (nlohmann::json{{"same", true},
                                                          {"count", 0},
                                                          {"differences", nlohmann::json::array()},
                                                          {"notes", nlohmann::json::array()}}));

  r = testutil::run_cli("diff --json '" + dir / "a.glb" + "' '" + dir / "none.iqm" + "'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("{\"error\":"), std::string::npos) << r.out;
}

}  // namespace meshport_test_diff
