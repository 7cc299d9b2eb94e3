// Engine validation profiles (include/meshport/profiles.h, docs/profiles.md): the rule table, one
// breaking Scene per rule with its exact diagnostic, clean Scenes, and the corpora.
#include <meshport/meshport.h>
#include <meshport/profiles.h>
#include <meshport/source/pie_mesh.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace meshport_test_profiles {

using namespace meshport;

namespace {

Diagnostics run(std::string_view profile, const Scene& scene) {
  const ProfileInfo* p = find_profile(profile);
  EXPECT_NE(p, nullptr);
  Diagnostics d;
  if (p) check_profile(*p, scene, "model.x", d);
  return d;
}

// The one diagnostic a Scene gives: its severity and message.
void expect_one(const Diagnostics& d, Severity severity, const std::string& message) {
  ASSERT_EQ(d.items.size(), 1u) << (d.items.empty() ? std::string("none") : d.items[0].message);
  EXPECT_EQ(d.items[0].severity, severity);
  EXPECT_EQ(d.items[0].message, message);
  EXPECT_EQ(d.items[0].file, "model.x");
  EXPECT_EQ(d.items[0].to_string(),
            "model.x: " + std::string(severity == Severity::Error ? "error" : "warning") + ": " + message);
}

void expect_clean(const Diagnostics& d) {
  EXPECT_TRUE(d.items.empty()) << d.items.size() << " diagnostics, first: " << d.items[0].message;
}

// A triangle mesh: `vertices` positions (i, i % 7, 0) and `triangles` triangles (0 1 2) (1 2 3) ...
// wrapped around the vertices, with texture coordinates.
Mesh mesh(std::string name, size_t vertices, size_t triangles, int32_t material = 0) {
  Mesh m;
  m.name = std::move(name);
  m.material = material;
  std::vector<float> pos, uv;
  for (size_t i = 0; i < vertices; ++i) {
    pos.insert(pos.end(), {float(i), float(i % 7), 0});
    uv.insert(uv.end(), {0, 0});
  }
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, uv));
  for (size_t t = 0; t < triangles; ++t)
    for (size_t k = 0; k < 3; ++k) m.triangles.push_back(uint32_t((t + k) % vertices));
  return m;
}

void add_normals(Mesh& m) {
  std::vector<float> n;
  for (size_t v = 0; v < m.vertex_count(); ++v) n.insert(n.end(), {0, 0, 1});
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, n));
}

// A model the wz2100 profile accepts: one level of 2 triangles with a page texture.
Scene wz_scene() {
  Scene s;
  s.meshes.push_back(mesh("body", 4, 2));
  s.materials.push_back(testutil::material("body", "textures/page-7-barbarians-arizona.png"));
  return s;
}

// A PIE model as the PIE reader gives it: one level, TEXTURE 0 page-7-... .
Scene wz_pie_scene() {
  Scene s = wz_scene();
  PieData pie;
  PieTexture t;
  t.file = "page-7-barbarians-arizona.png";
  pie.global.textures.push_back(t);
  PieLevel l;
  l.mesh = 0;
  l.points = {{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 3, 0}};
  pie.levels.push_back(l);
  s.pie = pie;
  s.meshes[0].face_channels = pie::polygon_channels({PiePolygon{}, PiePolygon{}});
  return s;
}

// A skinned model the iqm-engines profile accepts: 2 joints, 3 vertices weighted 1 to one joint
// each, one animation posing both joints.
Scene iqm_scene() {
  Scene s;
  Mesh m = mesh("body", 3, 1);
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 4, {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 4, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  s.meshes.push_back(m);
  s.materials.push_back(testutil::material("body", "body.tga"));
  Joint root;
  root.name = "root";
  Joint arm;
  arm.name = "arm";
  arm.parent = 0;
  s.joints = {root, arm};
  Animation a;
  a.name = "idle";
  a.framerate = 10;
  a.channels = 2;
  a.poses.resize(2);
  s.animations.push_back(a);
  return s;
}

std::vector<Joint> chain(size_t n) {
  std::vector<Joint> joints(n);
  for (size_t j = 0; j < n; ++j) {
    joints[j].name = "j" + std::to_string(j);
    joints[j].parent = int32_t(j) - 1;
  }
  return joints;
}

}  // namespace

// ---- The table ---------------------------------------------------------------------------------

TEST(ProfileTable, ProfilesInFixedOrderFoundCaseInsensitively) {
  ASSERT_EQ(profiles().size(), 2u);
  EXPECT_EQ(profiles()[0].name, "wz2100");
  EXPECT_EQ(profiles()[1].name, "iqm-engines");
  EXPECT_EQ(find_profile("wz2100"), &profiles()[0]);
  EXPECT_EQ(find_profile("WZ2100"), &profiles()[0]);
  EXPECT_EQ(find_profile("IQM-Engines"), &profiles()[1]);
  EXPECT_EQ(find_profile("wz2100 "), nullptr);
  EXPECT_EQ(find_profile("quake"), nullptr);
  EXPECT_EQ(find_profile(""), nullptr);
}

TEST(ProfileTable, EveryRuleHasIdTextSourceAndUniquePrefixedId) {
  std::set<std::string_view> ids;
  for (const ProfileInfo& p : profiles()) {
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_GE(p.rules.size(), 9u) << p.name;
    for (const ProfileRule& r : p.rules) {
      EXPECT_TRUE(r.id.starts_with(std::string(p.name) + ".")) << r.id;
      EXPECT_GT(r.id.size(), p.name.size() + 1) << r.id;
      EXPECT_FALSE(r.text.empty()) << r.id;
      EXPECT_FALSE(r.source.empty()) << r.id;
      EXPECT_TRUE(ids.insert(r.id).second) << "duplicate " << r.id;
    }
  }
  EXPECT_EQ(ids.size(), 26u);
}

TEST(ProfileTable, SeveritiesOfTheLimitsTheIssueNames) {
  auto severity = [](std::string_view id) {
    for (const ProfileInfo& p : profiles())
      for (const ProfileRule& r : p.rules)
        if (r.id == id) return r.severity;
    ADD_FAILURE() << "no rule " << id;
    return Severity::Warning;
  };
  EXPECT_EQ(severity("wz2100.polygons-per-level"), Severity::Error);
  EXPECT_EQ(severity("wz2100.texture-name"), Severity::Error);
  EXPECT_EQ(severity("wz2100.normals-per-polygon"), Severity::Warning);
  EXPECT_EQ(severity("iqm-engines.joints"), Severity::Error);
  EXPECT_EQ(severity("iqm-engines.influences"), Severity::Warning);
}

// ---- wz2100 ------------------------------------------------------------------------------------

TEST(ProfileWz2100, CleanScenesGiveNothing) {
  expect_clean(run("wz2100", wz_scene()));
  expect_clean(run("wz2100", wz_pie_scene()));
}

TEST(ProfileWz2100, PolygonsPerLevel) {
  Scene s = wz_scene();
  s.meshes[0] = mesh("body", 4, 8192);
  expect_clean(run("wz2100", s));
  s.meshes.push_back(mesh("big", 4, 8193));
  expect_one(run("wz2100", s), Severity::Error,
             "[wz2100.polygons-per-level] level 2 has 8193 polygons; the engine refuses more than 8192");
}

TEST(ProfileWz2100, PointsPerLevel) {
  Scene s = wz_scene();
  s.meshes[0] = mesh("body", 768, 1);
  expect_clean(run("wz2100", s));
  s.meshes[0] = mesh("body", 769, 1);
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.points-per-level] level 1 has 769 points; doc/PIE.md allows at most 768");
  // A PIE level counts its POINTS, used or not.
  Scene p = wz_pie_scene();
  p.pie->levels[0].points.resize(800);
  expect_one(run("wz2100", p), Severity::Warning,
             "[wz2100.points-per-level] level 1 has 800 points; doc/PIE.md allows at most 768");
}

TEST(ProfileWz2100, TextureNameFromMaterialAndFromPieLines) {
  Scene s = wz_scene();
  s.materials[0].base_color_texture = "textures/body.tga";
  expect_one(run("wz2100", s), Severity::Error,
             "[wz2100.texture-name] material \"body\": base colour texture \"body.tga\" is not a .png page of the "
             "characters A-Z a-z 0-9 . _ -; the engine refuses it");
  s.materials[0].base_color_texture = "page-7-a b.png";
  EXPECT_EQ(run("wz2100", s).items.at(0).message.substr(0, 28), "[wz2100.texture-name] materi");
  s.materials[0].base_color_texture = "page-7-a.PNG";
  EXPECT_EQ(run("wz2100", s).items.size(), 1u);

  Scene p = wz_pie_scene();
  PieTexture t;
  t.kind = PieTexture::Kind::TcMask;
  t.file = "page-7_tcmask.tga";
  p.pie->levels[0].overrides.textures.push_back(t);
  expect_one(run("wz2100", p), Severity::Error,
             "[wz2100.texture-name] level 1: TCMASK \"page-7_tcmask.tga\": not a .png page of the characters A-Z "
             "a-z 0-9 . _ -; the engine refuses it");
}

TEST(ProfileWz2100, TexturePagePrefix) {
  Scene s = wz_scene();
  s.materials[0].base_color_texture = "skin.png";
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.texture-page-prefix] material \"body\": texture page \"skin.png\" does not start with "
             "page-NN-: the tileset replacement cannot swap it");
  s.materials[0].base_color_texture = "page-x-skin.png";
  EXPECT_EQ(run("wz2100", s).items.size(), 1u);
  s.materials[0].base_color_texture = "page-12-skin.png";
  expect_clean(run("wz2100", s));

  Scene p = wz_pie_scene();
  p.pie->global.textures[0].file = "helirotor.png";
  expect_one(run("wz2100", p), Severity::Warning,
             "[wz2100.texture-page-prefix] TEXTURE \"helirotor.png\" does not start with page-NN-: the tileset "
             "replacement cannot swap it");
}

TEST(ProfileWz2100, MapName) {
  Scene s = wz_scene();
  add_normals(s.meshes[0]);
  s.materials[0].normal_texture = "maps/body_n.tga";
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.map-name] material \"body\": normal map \"body_n.tga\" is not a .png page; it is left out");
  s.materials[0].normal_texture = "page-7_normal.png";
  expect_clean(run("wz2100", s));
}

TEST(ProfileWz2100, NoTexture) {
  Scene s = wz_scene();
  s.materials[0].base_color_texture.clear();
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.no-texture] no level has a base colour texture: the model draws untextured");
  Scene p = wz_pie_scene();
  p.pie->global.textures.clear();
  expect_one(run("wz2100", p), Severity::Warning,
             "[wz2100.no-texture] the model has no TEXTURE page: it draws untextured");
}

TEST(ProfileWz2100, PolygonFlags) {
  Scene s = wz_pie_scene();
  PiePolygon bare;
  bare.flags = 0;
  s.meshes[0].face_channels = pie::polygon_channels({PiePolygon{}, bare});
  expect_one(run("wz2100", s), Severity::Error,
             "[wz2100.polygon-flags] level 1: 1 of 2 polygons lack flag 0x200 (textured)");
}

namespace {
PiePolygon animated(uint32_t frames, uint32_t rate, float w, float h) {
  PiePolygon p;
  p.flags = 0x4200;
  p.anim_frames = frames;
  p.anim_rate = rate;
  p.anim_width = w;
  p.anim_height = h;
  return p;
}
}  // namespace

TEST(ProfileWz2100, TexanimFrameSize) {
  Scene s = wz_pie_scene();
  s.meshes[0].face_channels = pie::polygon_channels({animated(4, 100, 0.25f, 0.5f), animated(4, 100, 0, 0.5f)});
  expect_one(run("wz2100", s), Severity::Error,
             "[wz2100.texanim-frame-size] level 1: 1 texture-animated polygons have a frame width or height that is "
             "not positive; the engine divides by it");
}

TEST(ProfileWz2100, TexanimFrames) {
  Scene s = wz_pie_scene();
  s.meshes[0].face_channels = pie::polygon_channels({animated(1, 100, 0.25f, 0.5f), animated(1, 100, 0.25f, 0.5f)});
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.texanim-frames] level 1: 2 texture-animated polygons have fewer than 2 frames or a rate "
             "below 1");
  s.meshes[0].face_channels = pie::polygon_channels({animated(4, 100, 0.25f, 0.5f), animated(4, 100, 0.25f, 0.5f)});
  expect_clean(run("wz2100", s));
}

TEST(ProfileWz2100, TexanimUniform) {
  Scene s = wz_pie_scene();
  s.meshes[0].face_channels = pie::polygon_channels({animated(4, 100, 0.25f, 0.5f), animated(8, 100, 0.25f, 0.5f)});
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.texanim-uniform] level 1: 1 texture-animated polygons differ from the first one's 4 frames at "
             "100 ms; the engine uses the first one's for the whole level");
}

TEST(ProfileWz2100, NormalsPerPolygon) {
  Scene p = wz_pie_scene();
  p.pie->levels[0].normals = true;
  expect_one(run("wz2100", p), Severity::Warning,
             "[wz2100.normals-per-polygon] level 1 had NORMALS but its mesh has no normals: they are lost");
  add_normals(p.meshes[0]);
  expect_clean(run("wz2100", p));

  Scene s = wz_scene();
  s.meshes[0].streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1}));
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.normals-per-polygon] level 1: normals cover 2 of 4 vertices, so NORMALS cannot give 3 per "
             "polygon; the engine discards them");
}

TEST(ProfileWz2100, NormalMapNeedsNormals) {
  Scene s = wz_scene();
  s.materials[0].normal_texture = "page-7_normal.png";
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.normalmap-needs-normals] level 1 has a normal map but no NORMALS: the engine reads it as an "
             "object-space map");
  Scene p = wz_pie_scene();
  PieTexture n;
  n.kind = PieTexture::Kind::NormalMap;
  n.file = "page-7_normal.png";
  p.pie->global.textures.push_back(n);
  expect_one(run("wz2100", p), Severity::Warning,
             "[wz2100.normalmap-needs-normals] level 1 has a normal map but no NORMALS: the engine reads it as an "
             "object-space map");
  p.pie->levels[0].normals = true;
  add_normals(p.meshes[0]);
  expect_clean(run("wz2100", p));
}

TEST(ProfileWz2100, ConnectorInteger) {
  Scene s = wz_scene();
  Attachment a;
  a.name = "turret";
  a.mesh = 0;
  a.transform.translation = {1.5f, 2, 3};  // connector (x, -z, y) = (1.5, -3, 2)
  s.attachments.push_back(a);
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.connector-integer] connector \"turret\" at (1.5, -3, 2): the engine reads whole numbers and "
             "drops the fraction");
  // On a joint: the model-space rest position counts.
  s.joints = chain(1);
  s.joints[0].rest.translation = {0.5f, 0, 0};
  s.attachments[0].joint = 0;
  expect_clean(run("wz2100", s));
}

TEST(ProfileWz2100, ConnectorRotation) {
  Scene s = wz_scene();
  Attachment a;
  a.name = "turret";
  a.transform.rotation = {0, 0, 0.70710677f, 0.70710677f};
  s.attachments.push_back(a);
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.connector-rotation] connector \"turret\" has a rotation or scale: a PIE connector is a point, "
             "they are lost");
}

TEST(ProfileWz2100, Skinning) {
  Scene s = iqm_scene();
  s.materials[0].base_color_texture = "page-7-body.png";
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.skinning] level 1 is skinned to several joints (or partly weighted): a PIE level moves "
             "rigidly, so it is kept in its rest pose");
  // Bound entirely to one joint with weight 1: an ANIMOBJECT level.
  s.meshes[0].streams[2].data = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  expect_clean(run("wz2100", s));
}

TEST(ProfileWz2100, TrianglesOnly) {
  Scene s = wz_scene();
  Mesh lines = mesh("wire", 2, 0);
  lines.topology = Topology::Lines;
  lines.triangles = {0, 1};
  s.meshes.push_back(lines);
  expect_one(run("wz2100", s), Severity::Warning,
             "[wz2100.triangles-only] mesh \"wire\" is made of lines: PIE levels are triangles, it is left out");
}

TEST(ProfileWz2100, EmptyLevel) {
  const Diagnostics none = run("wz2100", Scene{});
  ASSERT_EQ(none.items.size(), 2u);  // nothing to draw, and no texture either
  EXPECT_EQ(none.items[0].severity, Severity::Warning);
  EXPECT_EQ(none.items[0].message, "[wz2100.empty-level] the model has no triangles: it is one empty level");
  EXPECT_EQ(none.items[1].message,
            "[wz2100.no-texture] no level has a base colour texture: the model draws untextured");
  Scene p = wz_pie_scene();
  p.pie->levels.push_back(PieLevel{});
  expect_one(run("wz2100", p), Severity::Warning, "[wz2100.empty-level] level 2 has no polygons: it draws nothing");
}

// A PIE file read with meshport::read: the reader accepts it, the profile finds what the engine
// would do to it.
TEST(ProfileWz2100, PieFileReadFromDisk) {
  const auto dir = std::filesystem::temp_directory_path() / "meshport_profiles";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "turret.pie").string();
  std::ofstream(path) << "PIE 3\nTYPE 200\nTEXTURE 0 turret.png 0 0\nLEVELS 1\nLEVEL 1\nPOINTS 3\n"
                         "\t0 0 0\n\t10 0 0\n\t0 10 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n"
                         "CONNECTORS 1\n\t1.5 2 3\n";
  Diagnostics read_diags;
  const Scene s = meshport::read(path, {}, &read_diags);
  EXPECT_TRUE(read_diags.items.empty());
  const Diagnostics d = run("wz2100", s);
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_EQ(d.items[0].severity, Severity::Warning);
  EXPECT_EQ(d.items[0].message,
            "[wz2100.texture-page-prefix] TEXTURE \"turret.png\" does not start with page-NN-: the tileset "
            "replacement cannot swap it");
  EXPECT_EQ(d.items[1].message,
            "[wz2100.connector-integer] connector \"turret_level1_connector1\" at (1.5, 2, 3): the engine reads "
            "whole numbers and drops the fraction");
  std::filesystem::remove_all(dir);
}

// ---- iqm-engines -------------------------------------------------------------------------------

TEST(ProfileIqmEngines, CleanSceneGivesNothing) { expect_clean(run("iqm-engines", iqm_scene())); }

TEST(ProfileIqmEngines, Joints) {
  Scene s = iqm_scene();
  s.joints = chain(128);
  s.animations[0].channels = 128;
  s.animations[0].poses.resize(128);
  expect_clean(run("iqm-engines", s));
  s.joints = chain(129);
  s.animations[0].channels = 129;
  s.animations[0].poses.resize(129);
  expect_one(run("iqm-engines", s), Severity::Warning,
             "[iqm-engines.joints-ioq3] the model has 129 joints; ioquake3-based engines refuse more than 128");
  s.joints = chain(257);
  s.animations[0].channels = 257;
  s.animations[0].poses.resize(257);
  const Diagnostics d = run("iqm-engines", s);
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_EQ(d.items[0].severity, Severity::Error);
  EXPECT_EQ(d.items[0].message,
            "[iqm-engines.joints] the model has 257 joints; blend indices stored as bytes reach only 256");
  EXPECT_EQ(d.items[1].severity, Severity::Warning);
  EXPECT_EQ(d.items[1].message.substr(0, 25), "[iqm-engines.joints-ioq3]");
}

TEST(ProfileIqmEngines, Influences) {
  Scene s = iqm_scene();
  s.meshes[0].streams[2] = testutil::float_stream(Attribute::BlendIndices, 5, {0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0});
  s.meshes[0].streams[3] =
      testutil::float_stream(Attribute::BlendWeights, 5, {.2f, .2f, .2f, .2f, .2f, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0});
  expect_one(run("iqm-engines", s), Severity::Warning,
             "[iqm-engines.influences] mesh \"body\": 1 vertices have more than 4 influences (up to 5); only the 4 "
             "largest are kept");
}

TEST(ProfileIqmEngines, MeshJoints) {
  Scene s = iqm_scene();
  s.meshes[0].streams[2].data[4] = 5;  // vertex 1 names joint 5 with weight 1
  s.meshes[0].streams[2].data[9] = 7;  // weight 0: not an influence
  expect_one(run("iqm-engines", s), Severity::Error,
             "[iqm-engines.mesh-joints] mesh \"body\": 1 weighted influences name no joint (the first names 5; the "
             "model has 2 joints)");
  Scene none = iqm_scene();
  none.joints.clear();
  none.animations.clear();
  const Diagnostics d = run("iqm-engines", none);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].message,
            "[iqm-engines.mesh-joints] mesh \"body\": 3 weighted influences name no joint (the first names 0; the "
            "model has 0 joints)");
}

TEST(ProfileIqmEngines, UnweightedVertex) {
  Scene s = iqm_scene();
  s.meshes[0].streams[3].data[8] = 0;  // vertex 2 loses its only weight
  expect_one(run("iqm-engines", s), Severity::Warning,
             "[iqm-engines.unweighted-vertex] mesh \"body\": 1 of 3 vertices have no weight: they collapse to the "
             "origin when skinned");
}

TEST(ProfileIqmEngines, AnimationChannels) {
  Scene s = iqm_scene();
  s.animations[0].channels = 1;
  expect_one(run("iqm-engines", s), Severity::Error,
             "[iqm-engines.animation-channels] animation \"idle\" poses 1 joints; the model has 2");
}

TEST(ProfileIqmEngines, AnimationOnlyJoints) {
  Scene s = iqm_scene();
  s.meshes.clear();
  expect_clean(run("iqm-engines", s));  // an animation-only file with its joints
  s.joints.clear();
  s.iqm = IqmData{};
  s.iqm->pose_parents = {-1, 0};
  expect_one(run("iqm-engines", s), Severity::Warning,
             "[iqm-engines.animation-only-joints] the animation-only file has no joints: an engine can match its "
             "poses to a skeleton only by index");
}

TEST(ProfileIqmEngines, JointOrder) {
  Scene s = iqm_scene();
  s.joints[0].parent = 1;
  s.joints[1].parent = -1;
  expect_one(run("iqm-engines", s), Severity::Error,
             "[iqm-engines.joint-order] joint 0 \"root\" has parent 1, which does not come before it");
}

TEST(ProfileIqmEngines, TrianglesOnly) {
  Scene s = iqm_scene();
  Mesh points = mesh("dots", 2, 0);
  points.topology = Topology::Points;
  points.triangles = {0, 1};
  s.meshes.push_back(points);
  expect_one(run("iqm-engines", s), Severity::Warning,
             "[iqm-engines.triangles-only] mesh \"dots\" is made of points: IQM meshes are triangles, it is left "
             "out");
}

// ---- The corpora -------------------------------------------------------------------------------

// Every shipped Warzone 2100 model loads in the engine: no errors under wz2100. The two warnings
// are real: fxheli01.pie's page helirotor.png is not named page-NN- (the tileset replacement
// cannot swap it), and prslvtl1.pie is an empty model (POINTS 0, POLYGONS 0: MANIFEST.tsv).
TEST(ProfileCorpus, ShippedWarzoneModelsHaveNoErrors) {
  REQUIRE_CORPUS();
  size_t files = 0;
  std::vector<std::string> warnings;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testutil::corpus("pie"))) {
    if (e.path().extension() != ".pie") continue;
    ++files;
    const Scene s = meshport::read(e.path().string());
    Diagnostics d;
    check_profile(*find_profile("wz2100"), s, e.path().filename().string(), d);
    for (const Diagnostic& x : d.items) {
      EXPECT_EQ(x.severity, Severity::Warning) << x.to_string();
      warnings.push_back(x.to_string());
    }
  }
  EXPECT_EQ(files, 42u);
  std::sort(warnings.begin(), warnings.end());
  std::string all;
  for (const std::string& w : warnings) all += w + "\n";
  ASSERT_EQ(warnings.size(), 2u) << all;
  EXPECT_EQ(warnings[0],
            "fxheli01.pie: warning: [wz2100.texture-page-prefix] TEXTURE \"helirotor.png\" does not start with "
            "page-NN-: the tileset replacement cannot swap it");
  EXPECT_EQ(warnings[1], "prslvtl1.pie: warning: [wz2100.empty-level] level 1 has no polygons: it draws nothing");
}

TEST(ProfileCorpus, MrfixitPassesIqmEngines) {
  REQUIRE_CORPUS();
  const Scene s = meshport::read(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  ASSERT_EQ(s.joints.size(), 75u);
  Diagnostics d;
  check_profile(*find_profile("iqm-engines"), s, "mrfixit.iqm", d);
  EXPECT_TRUE(d.items.empty()) << d.items.size() << ": " << (d.items.empty() ? "" : d.items[0].to_string());
  // Its IQE form too.
  Diagnostics e;
  check_profile(*find_profile("iqm-engines"), meshport::read(testutil::corpus("iqm/derived/mrfixit.iqe")),
                "mrfixit.iqe", e);
  EXPECT_TRUE(e.items.empty());
}

// Both profiles run over every readable corpus file of every format without throwing, and the
// same Scene always gives the same diagnostics.
TEST(ProfileCorpus, EveryProfileRunsOnEveryReadableFile) {
  REQUIRE_CORPUS();
  size_t checked = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testutil::corpus(""))) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (ext != ".pie" && ext != ".iqm" && ext != ".iqe" && ext != ".qmsh" && ext != ".obj") continue;
    Scene s;
    try {
      s = meshport::read(e.path().string());
    } catch (const meshport::Error&) {
      continue;  // the edge cases a reader refuses
    }
    for (const ProfileInfo& p : profiles()) {
      Diagnostics a, b;
      EXPECT_NO_THROW(check_profile(p, s, "f", a)) << e.path() << " " << p.name;
      check_profile(p, s, "f", b);
      ASSERT_EQ(a.items.size(), b.items.size());
      for (size_t i = 0; i < a.items.size(); ++i) EXPECT_EQ(a.items[i].message, b.items[i].message);
    }
    ++checked;
  }
  EXPECT_GT(checked, 80u);
}

// A skinned IQM model under wz2100: what its PIE conversion would meet (docs/profiles.md).
TEST(ProfileCorpus, MrfixitUnderWz2100) {
  REQUIRE_CORPUS();
  const Scene s = meshport::read(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  Diagnostics d;
  check_profile(*find_profile("wz2100"), s, "mrfixit.iqm", d);
  std::vector<std::string> got;
  for (const Diagnostic& x : d.items) got.push_back(x.to_string());
  const std::vector<std::string> want{
      "mrfixit.iqm: warning: [wz2100.points-per-level] level 1 has 1199 points; doc/PIE.md allows at most 768",
      "mrfixit.iqm: warning: [wz2100.skinning] level 1 is skinned to several joints (or partly weighted): a PIE "
      "level moves rigidly, so it is kept in its rest pose",
      "mrfixit.iqm: warning: [wz2100.skinning] level 2 is skinned to several joints (or partly weighted): a PIE "
      "level moves rigidly, so it is kept in its rest pose",
      "mrfixit.iqm: error: [wz2100.texture-name] material \"Body.tga\": base colour texture \"Body.tga\" is not a "
      ".png page of the characters A-Z a-z 0-9 . _ -; the engine refuses it",
      "mrfixit.iqm: error: [wz2100.texture-name] material \"Head.tga\": base colour texture \"Head.tga\" is not a "
      ".png page of the characters A-Z a-z 0-9 . _ -; the engine refuses it"};
  EXPECT_EQ(got, want);
}

// The IQM edge cases the profile is about: 6 influences on joint 300 of a 1-joint model, and a
// vertex without weights.
TEST(ProfileCorpus, IqmEdgeCasesUnderIqmEngines) {
  REQUIRE_CORPUS();
  auto diags = [](const std::string& name) {
    Diagnostics d;
    check_profile(*find_profile("iqm-engines"), meshport::read(testutil::corpus("iqm/edge-cases/" + name)), name, d);
    std::vector<std::string> out;
    for (const Diagnostic& x : d.items) out.push_back(x.to_string());
    return out;
  };
  EXPECT_EQ(diags("bone.iqe"),
            (std::vector<std::string>{
                "bone.iqe: warning: [iqm-engines.influences] mesh \"m\": 1 vertices have more than 4 influences (up "
                "to 6); only the 4 largest are kept",
                "bone.iqe: error: [iqm-engines.mesh-joints] mesh \"m\": 1 weighted influences name no joint (the "
                "first names 300; the model has 1 joints)"}));
  EXPECT_EQ(diags("unweighted.iqe"),
            (std::vector<std::string>{"unweighted.iqe: warning: [iqm-engines.unweighted-vertex] mesh \"A\": 1 of 3 "
                                      "vertices have no weight: they collapse to the origin when skinned"}));
}

}  // namespace meshport_test_profiles
