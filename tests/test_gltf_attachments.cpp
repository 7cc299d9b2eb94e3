// Attachments (Scene::attachments) and PIE data (Scene::pie) through glTF: src/formats/gltf/gltf_write.cpp,
// gltf_read.cpp and gltf_pie.cpp. A hand-built Scene goes to .gltf and .glb and back exactly; the
// written files pass the Khronos glTF Validator (run here with node, as the CTest GltfValidator
// does: the test fails, not skips, when node or the validator is missing); a hand-written glTF
// like Blender's (an empty under a mesh object) gives attachments; check_scene rejects attachments
// naming meshes or joints that do not exist.
#include "formats/gltf/gltf.h"
#include "formats/shared/gltf_pie.h"
#include "ops/mesh/check.h"

#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace meshport_test_gltf_attachments {

using namespace meshport;
using json = nlohmann::json;
using testutil::float_stream;

namespace {

const float kH = std::sqrt(0.5f);

Transform trs(std::array<float, 3> t, std::array<float, 4> q = {0, 0, 0, 1}, std::array<float, 3> s = {1, 1, 1}) {
  Transform x;
  x.translation = t;
  x.rotation = q;
  x.scale = s;
  return x;
}

Mesh triangle(const std::string& name, float x, bool skinned) {
  Mesh m;
  m.name = name;
  m.material = 0;
  m.streams.push_back(float_stream(Attribute::Position, 3, {x, 0, 0, x + 1, 0, 0, x, 1, 0}));
  m.streams.push_back(float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}));
  if (skinned) {
    m.streams.push_back(float_stream(Attribute::BlendIndices, 1, {0, 0, 0}));
    m.streams.push_back(float_stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  }
  m.triangles = {0, 1, 2};
  return m;
}

PieTexture texture(PieTexture::Kind kind, int32_t tileset, const std::string& file) {
  PieTexture t;
  t.kind = kind;
  t.tileset = tileset;
  t.file = file;
  return t;
}

PieData pie_data() {
  PieData p;
  p.version = 4;
  p.global.has_type = true;
  p.global.type = 0x10200;
  p.global.has_interpolate = true;
  p.global.interpolate = 0;
  PieTexture page = texture(PieTexture::Kind::Texture, 0, "page-7-barbarians-arizona.png");
  page.has_size = true;
  page.width = 256;
  page.height = 128;
  p.global.textures = {page, texture(PieTexture::Kind::Texture, 1, "page-7-barbarians-urban.png"),
                       texture(PieTexture::Kind::TcMask, 0, "page-7_tcmask.png"),
                       texture(PieTexture::Kind::NormalMap, 2, "page-7_nm.png"),
                       texture(PieTexture::Kind::SpecularMap, 0, "page-7_sm.png")};
  p.events = {{1, "fx-active.pie"}, {3, "fx-dying.pie"}};

  PieLevel body;
  body.mesh = 0;
  body.comment = "body";
  body.points = {{0, 0, -0.0f}, {1, 0, 0}, {0, 1, 0}, {0.1f, 1e-7f, -12345.678f}};  // the last one unused
  body.normals = true;
  body.has_shadow_points = true;
  body.shadow_points = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0.5f}};
  body.has_shadow_polygons = true;
  body.shadow_polygons = {{0, 1, 2}};

  PieLevel turret;
  turret.mesh = 1;
  turret.joint = 0;
  turret.comment = std::string("caf\xe9 \xff");  // not UTF-8
  turret.points = {{1, 0, 0}, {2, 0, 0}, {1, 1, 0}};
  turret.has_animobject = true;
  turret.animobject.time = 100;
  turret.animobject.cycles = 0;
  turret.animobject.frames = {{0, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}},
                              {1, {1500, -2000, 250}, {90000, 0, -45500}, {-1, 1, 1}}};
  turret.has_shadow_points = true;  // without shadow polygons
  turret.shadow_points = {{std::numeric_limits<float>::infinity(), 0, -std::numeric_limits<float>::infinity()}};

  PieLevel empty;  // LEVEL with POINTS 0: no mesh
  empty.comment = "muzzle flash";

  PieLevel barrel;
  barrel.mesh = 2;
  barrel.overrides.has_type = true;
  barrel.overrides.type = 0x200;
  barrel.overrides.textures = {texture(PieTexture::Kind::Texture, 0, "page-8.png")};
  barrel.materials = {"0.5 0.5 0.5  1 1 1  0 0 0  10"};
  barrel.shaders = {"2 vert.glsl frag.glsl"};
  barrel.points = {{2, 0, 0}, {3, 0, 0}, {2, 1, 0}};
  p.levels = {body, turret, empty, barrel};
  return p;
}

// Meshes 0 (static), 1 (skinned to the joint) and 2 (static); one joint; attachments of every kind.
Scene attachment_scene() {
  Scene s;
  s.materials.push_back(testutil::material("page", "page-7-barbarians-arizona.png"));
  s.meshes = {triangle("body", 0, false), triangle("turret", 2, true), triangle("barrel", 4, false)};
  s.joints.push_back({"turret", -1, trs({0, 10, 0}, {0, kH, 0, kH})});
  s.attachments = {
      {"body_connector1", 0, -1, trs({1.5f, 2.25f, -3}, {0, 0.6f, 0, 0.8f})},
      {"turret_connector1", 1, 0, trs({0.5f, 0, -1})},
      {"root_socket", -1, -1, trs({0, 0, 5}, {0, 0, 0, 1}, {2, 2, 2})},
      {"barrel_tip", 2, -1, Transform{}},
      {"joint_socket", -1, 0, trs({0, 0.25f, 0}, {kH, 0, 0, kH}, {1, 0.5f, 1})},
      {"body_connector2", 0, -1, trs({-1, 0, 0.75f})},
  };
  s.pie = pie_data();
  return s;
}

std::vector<uint8_t> no_files(const std::string& p) {
  throw std::runtime_error(fmt::format("unexpected side file {}", p));
}

Scene read_back(const std::vector<uint8_t>& bytes, Diagnostics& d) { return gltf::read(bytes, "mem", no_files, d); }

json json_of(const std::vector<uint8_t>& gltf) { return json::parse(gltf.begin(), gltf.end()); }

// The node whose children list `n`, or -1.
int parent_of(const json& doc, size_t n) {
  for (size_t p = 0; p < doc["nodes"].size(); ++p)
    for (const json& c : doc["nodes"][p].value("children", json::array()))
      if (c.get<size_t>() == n) return int(p);
  return -1;
}

bool is_scene_root(const json& doc, size_t n) {
  for (const json& r : doc["scenes"][0]["nodes"])
    if (r.get<size_t>() == n) return true;
  return false;
}

bool validate(const std::vector<std::string>& files, std::string& output) {
  return testutil::validate_gltf(files, output);
}

}  // namespace

// ---- Scene -> glTF -> Scene -------------------------------------------------------------------

TEST(GltfAttachments, RoundTripGltfAndGlbExactly) {
  const Scene s = attachment_scene();
  for (bool binary : {false, true}) {
    SCOPED_TRACE(binary ? "glb" : "gltf");
    Diagnostics d;
    auto out = gltf::write(s, {}, binary, "", "", d);
    ASSERT_EQ(out.size(), 1u);
    Scene r = read_back(out[0].bytes, d);
    EXPECT_EQ(r.attachments, s.attachments);
    EXPECT_EQ(r.pie, s.pie);
    EXPECT_EQ(r.joints, s.joints);
    ASSERT_EQ(r.meshes.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(r.meshes[i].name, s.meshes[i].name);
  }
}

TEST(GltfAttachments, NodesAndExtras) {
  Diagnostics d;
  const Scene s = attachment_scene();
  const json doc = json_of(gltf::write(s, {}, false, "", "", d)[0].bytes);
  const json& nodes = doc["nodes"];
  // Joint 0, then the mesh nodes 1..3, then the six attachments in Scene order.
  ASSERT_EQ(nodes.size(), 10u);
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(nodes[1 + m]["mesh"], m);
    EXPECT_FALSE(nodes[1 + m].contains("translation") || nodes[1 + m].contains("rotation") ||
                 nodes[1 + m].contains("scale"));
  }
  for (size_t k = 0; k < 6; ++k) {
    const json& n = nodes[4 + k];
    const Attachment& a = s.attachments[k];
    EXPECT_EQ(n["name"], a.name);
    EXPECT_EQ(n["extras"]["meshport"]["attachment"], true);
    if (a.mesh >= 0)
      EXPECT_EQ(n["extras"]["meshport"]["mesh"], a.mesh);
    else
      EXPECT_FALSE(n["extras"]["meshport"].contains("mesh"));
    const int parent = parent_of(doc, 4 + k);
    if (a.joint >= 0)
      EXPECT_EQ(parent, a.joint) << a.name;
    else if (a.mesh >= 0)
      EXPECT_EQ(parent, 1 + a.mesh) << a.name;
    else
      EXPECT_TRUE(parent < 0 && is_scene_root(doc, 4 + k)) << a.name;
  }
  EXPECT_EQ(nodes[4]["translation"], json::parse("[1.5, 2.25, -3.0]"));
  EXPECT_EQ(nodes[4]["rotation"], json::array({0.0, double(0.6f), 0.0, double(0.8f)}));
  EXPECT_FALSE(nodes[4].contains("scale"));
  EXPECT_EQ(nodes[6]["scale"], json::parse("[2.0, 2.0, 2.0]"));
  EXPECT_FALSE(nodes[6].contains("rotation"));
  EXPECT_FALSE(nodes[7].contains("translation") || nodes[7].contains("rotation") || nodes[7].contains("scale"));
  EXPECT_EQ(doc["scenes"][0]["nodes"], json::parse("[1, 2, 3, 0, 6]"));

  const json& pie = doc["scenes"][0]["extras"]["meshport"]["pie"];
  EXPECT_EQ(pie["version"], 4);
  ASSERT_EQ(pie["levels"].size(), 4u);
  EXPECT_EQ(pie["levels"][0]["mesh"], 0);
  EXPECT_EQ(pie["levels"][2]["mesh"], -1);
  EXPECT_EQ(pie["levels"][3]["mesh"], 2);
  // Polygon flags and vertex points are the meshes' face channels and format streams, written
  // with the glTF meshes (issue 16), no longer in the root PIE data.
  EXPECT_FALSE(pie["levels"][0].contains("polygons"));
  EXPECT_FALSE(pie["levels"][0].contains("vertex_point"));
  EXPECT_EQ(pie["levels"][1]["comment"], json({{"base64", "Y2Fm6SD/"}}));
  EXPECT_EQ(pie["levels"][1]["shadow_points"], json::parse(R"([["Infinity", 0.0, "-Infinity"]])"));
  EXPECT_EQ(pie["global"]["textures"][2]["kind"], "tcmask");
}

TEST(GltfAttachments, NoPieKeyWithoutPieData) {
  Diagnostics d;
  Scene s = attachment_scene();
  s.pie = {};
  const json doc = json_of(gltf::write(s, {}, false, "", "", d)[0].bytes);
  EXPECT_FALSE(doc["scenes"][0]["extras"]["meshport"].contains("pie"));
  Scene r = read_back(gltf::write(s, {}, true, "", "", d)[0].bytes, d);
  EXPECT_FALSE(r.pie.has_value());
  EXPECT_EQ(r.attachments, s.attachments);
}

// A Scene mesh that is not written (no triangles): PIE levels and attachments naming it lose
// their mesh; the others are renumbered to the glTF meshes and back.
TEST(GltfAttachments, SkippedMeshes) {
  Scene s = attachment_scene();
  s.meshes[0].triangles.clear();
  Diagnostics d;
  auto out = gltf::write(s, {}, false, "", "", d);
  const json doc = json_of(out[0].bytes);
  ASSERT_EQ(doc["meshes"].size(), 2u);
  const json& levels = doc["scenes"][0]["extras"]["meshport"]["pie"]["levels"];
  EXPECT_EQ(levels[0]["mesh"], -1);
  EXPECT_EQ(levels[1]["mesh"], 0);
  EXPECT_EQ(levels[3]["mesh"], 1);
  bool warned = false;
  for (const Diagnostic& x : d.items)
    warned = warned || x.message.find("2 attachments belong to meshes that are not written") != std::string::npos;
  EXPECT_TRUE(warned);

  Scene r = read_back(out[0].bytes, d);
  ASSERT_EQ(r.meshes.size(), 2u);
  std::vector<int32_t> level_mesh;
  for (const PieLevel& l : r.pie->levels) level_mesh.push_back(l.mesh);
  EXPECT_EQ(level_mesh, (std::vector<int32_t>{-1, 0, -1, 1}));
  std::vector<int32_t> att_mesh;
  for (const Attachment& a : r.attachments) att_mesh.push_back(a.mesh);
  EXPECT_EQ(att_mesh, (std::vector<int32_t>{-1, 0, -1, 1, -1, -1}));
  EXPECT_EQ(r.attachments[0].transform, s.attachments[0].transform);  // now a root: still model space
}

// Without meshport's node extras (a file re-exported by another tool), the attachment nodes are
// plain empty leaves: they still come back, in order, with their transforms; those under a mesh
// node get that mesh, those under a joint only the joint.
TEST(GltfAttachments, EmptyLeavesWithoutExtras) {
  Diagnostics d;
  const Scene s = attachment_scene();
  json doc = json_of(gltf::write(s, {}, false, "", "", d)[0].bytes);
  for (json& n : doc["nodes"])
    if (n.contains("extras")) n.erase("extras");
  doc["scenes"][0]["extras"]["meshport"].erase("pie");
  const std::string text = doc.dump();
  Scene r = read_back(std::vector<uint8_t>(text.begin(), text.end()), d);
  ASSERT_EQ(r.attachments.size(), s.attachments.size());
  for (size_t k = 0; k < s.attachments.size(); ++k) {
    Attachment expected = s.attachments[k];
    if (expected.joint >= 0) expected.mesh = -1;
    EXPECT_EQ(r.attachments[k], expected) << k;
  }
  EXPECT_FALSE(r.pie.has_value());
}

TEST(GltfAttachments, ValidatorReportsNoErrorsOrWarnings) {
  testutil::TempDir tmp;
  const Scene s = attachment_scene();
  Diagnostics d;
  write(s, tmp / "att.gltf", {}, &d);
  write(s, tmp / "att.glb", {}, &d);
  ASSERT_TRUE(std::filesystem::exists(tmp / "att.bin"));
  std::string output;
  EXPECT_TRUE(validate({tmp / "att.gltf", tmp / "att.glb"}, output)) << output;
  EXPECT_NE(output.find("att.gltf: 0 errors, 0 warnings"), std::string::npos) << output;
  EXPECT_NE(output.find("att.glb: 0 errors, 0 warnings"), std::string::npos) << output;
  // The files read back as the Scene wrote them.
  for (const char* f : {"att.gltf", "att.glb"}) {
    Scene r = read(tmp / f, {}, &d);
    EXPECT_EQ(r.attachments, s.attachments) << f;
    EXPECT_EQ(r.pie, s.pie) << f;
  }
}

// ---- Files from other tools -------------------------------------------------------------------

// What Blender exports for a mesh object with an empty parented to it, a camera, and a root empty:
// the empties are attachments (the one under the mesh gets that mesh and its world transform);
// the camera is not.
TEST(GltfAttachments, BlenderEmptiesBecomeAttachments) {
  const std::vector<float> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  std::vector<uint8_t> bin(positions.size() * 4);
  std::memcpy(bin.data(), positions.data(), bin.size());
  const std::string uri =
      fmt::format("data:application/octet-stream;base64,{}", gltf::base64_encode(bin.data(), bin.size()));
  const std::string text = fmt::format(R"({{
    "asset": {{"version": "2.0", "generator": "Khronos glTF Blender I/O"}},
    "scene": 0,
    "scenes": [{{"nodes": [0, 3, 4]}}],
    "nodes": [
      {{"name": "Body", "mesh": 0, "translation": [1, 2, 3], "rotation": [0, {h}, 0, {h}], "children": [1, 2]}},
      {{"name": "connector1", "translation": [1, 0, 0], "scale": [0.5, 0.5, 0.5]}},
      {{"name": "Camera", "camera": 0}},
      {{"name": "muzzle", "translation": [0, 0, 4]}},
      {{"name": "Group", "children": [5]}},
      {{"name": "connector2", "translation": [0, 1, 0], "extras": {{"note": "not meshport's"}}}}
    ],
    "cameras": [{{"type": "perspective", "perspective": {{"yfov": 0.7, "znear": 0.1}}}}],
    "meshes": [{{"name": "Body", "primitives": [{{"attributes": {{"POSITION": 0}}}}]}}],
    "accessors": [{{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                    "min": [0, 0, 0], "max": [1, 1, 0]}}],
    "bufferViews": [{{"buffer": 0, "byteLength": 36}}],
    "buffers": [{{"byteLength": 36, "uri": "{uri}"}}]
  }})",
                                       fmt::arg("h", double(kH)), fmt::arg("uri", uri));
  Diagnostics d;
  Scene s = read_back(std::vector<uint8_t>(text.begin(), text.end()), d);
  ASSERT_EQ(s.meshes.size(), 1u);
  ASSERT_EQ(s.attachments.size(), 3u);
  const Attachment& c1 = s.attachments[0];
  EXPECT_EQ(c1.name, "connector1");
  EXPECT_EQ(c1.mesh, 0);
  EXPECT_EQ(c1.joint, -1);
  // World: T(1, 2, 3) * Ry(90) * T(1, 0, 0) * S(0.5): (1, 0, 0) turns to (0, 0, -1).
  const std::array<float, 3> t = c1.transform.translation;
  EXPECT_NEAR(t[0], 1, 1e-6f);
  EXPECT_NEAR(t[1], 2, 1e-6f);
  EXPECT_NEAR(t[2], 2, 1e-6f);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(c1.transform.rotation[k], (std::array<float, 4>{0, kH, 0, kH})[k], 1e-6f);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(c1.transform.scale[k], 0.5f, 1e-6f);
  // The root empty keeps its own TRS bit for bit; the empty under a plain group node, no mesh.
  EXPECT_EQ(s.attachments[1], (Attachment{"muzzle", -1, -1, trs({0, 0, 4})}));
  EXPECT_EQ(s.attachments[2], (Attachment{"connector2", -1, -1, trs({0, 1, 0})}));
  // The mesh itself is baked into world space, as the attachment.
  EXPECT_NEAR(s.meshes[0].find(Attribute::Position)->data[5], 2, 1e-6f);  // (1, 0, 0) -> (1, 2, 2)
}

// An empty under a joint of a skinned file without meshport extras: joint-relative, its own TRS.
TEST(GltfAttachments, EmptyUnderJointIsJointRelative) {
  Scene s;
  s.materials.push_back(testutil::material("page", ""));
  s.meshes = {triangle("m", 0, true)};
  s.joints.push_back({"root", -1, trs({0, 1, 0})});
  s.joints.push_back({"hand", 0, trs({1, 0, 0}, {0, 0, kH, kH})});
  Diagnostics d;
  json doc = json_of(gltf::write(s, {}, false, "", "", d)[0].bytes);
  doc["scenes"][0].erase("extras");
  doc["nodes"].push_back({{"name", "grip"}, {"translation", {0.25, 0.5, 0}}});
  doc["nodes"][1]["children"] = json::array({3});
  const std::string text = doc.dump();
  Scene r = read_back(std::vector<uint8_t>(text.begin(), text.end()), d);
  ASSERT_EQ(r.joints.size(), 2u);
  ASSERT_EQ(r.attachments.size(), 1u);
  EXPECT_EQ(r.attachments[0], (Attachment{"grip", -1, 1, trs({0.25f, 0.5f, 0})}));
}

// Malformed PIE extras: a warning, and the Scene has no PIE data; the rest is read.
TEST(GltfAttachments, MalformedPieExtrasAreIgnored) {
  Diagnostics d;
  const Scene s = attachment_scene();
  json doc = json_of(gltf::write(s, {}, false, "", "", d)[0].bytes);
  doc["scenes"][0]["extras"]["meshport"]["pie"]["levels"][0]["mesh"] = 7;
  const std::string text = doc.dump();
  Diagnostics r_d;
  Scene r = read_back(std::vector<uint8_t>(text.begin(), text.end()), r_d);
  EXPECT_FALSE(r.pie.has_value());
  EXPECT_EQ(r.attachments, s.attachments);
  ASSERT_FALSE(r_d.items.empty());
  EXPECT_NE(r_d.items.back().message.find("extras.meshport.pie.levels[0].mesh: glTF mesh 7 does not exist"),
            std::string::npos)
      << r_d.items.back().message;
  // Other malformed values: each message names the JSON path.
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& p) { p = 5; }, "scenes[0].extras.meshport.pie: is number, not an object"},
      {[](json& p) { p["levels"][0]["polygons"][0] = {1, 2}; }, "levels[0].polygons[0]: has 2 entries, not 1 or 5"},
      {[](json& p) { p["levels"][0]["points"][1][2] = "x"; }, "levels[0].points[1][2]: \"x\" is not a number"},
      {[](json& p) { p["levels"][1]["joint"] = 1; }, "levels[1].joint: joint 1 does not exist (there are 1)"},
      {[](json& p) { p["global"]["textures"][0]["kind"] = "bump"; }, "global.textures[0].kind: 'bump' is not"},
      {[](json& p) { p["levels"][0]["vertex_point"][0] = -1; }, "levels[0].vertex_point[0]: -1 is not an integer"},
      {[](json& p) { p["levels"][1]["comment"] = {{"base64", "!!"}}; }, "levels[1].comment: is not a string"},
      {[](json& p) { p["events"] = json::object(); }, "scenes[0].extras.meshport.pie.events: is object, not an array"},
  };
  for (const auto& [mutate, expected] : cases) {
    json m = json_of(gltf::write(s, {}, false, "", "", d)[0].bytes);
    mutate(m["scenes"][0]["extras"]["meshport"]["pie"]);
    const std::string t = m.dump();
    Diagnostics w;
    Scene x = read_back(std::vector<uint8_t>(t.begin(), t.end()), w);
    EXPECT_FALSE(x.pie.has_value()) << expected;
    EXPECT_EQ(x.attachments, s.attachments) << expected;
    ASSERT_FALSE(w.items.empty()) << expected;
    EXPECT_NE(w.items.back().message.find(expected), std::string::npos) << w.items.back().message;
  }
}

TEST(GltfAttachments, PieJsonRoundTripsEveryField) {
  PieData p = pie_data();
  p.events[0].file = "\x80raw";
  const std::vector<int32_t> identity = {0, 1, 2};
  const json j = gltf::pie_to_json(p, identity);
  const PieData back = gltf::pie_from_json(json::parse(j.dump()), "pie", identity, 1);
  EXPECT_EQ(back, p);
  EXPECT_TRUE(std::signbit(back.levels[0].points[0][2]));
}

// ---- check_scene --------------------------------------------------------------------------------

TEST(GltfAttachments, CheckSceneRejectsBadIndices) {
  auto message = [](const Scene& s) {
    try {
      ops::check_scene(s);
    } catch (const Error& e) {
      return e.diagnostic().message;
    }
    return std::string("no error");
  };
  Scene s = attachment_scene();
  EXPECT_EQ(message(s), "no error");
  s.attachments[2].mesh = 3;
  EXPECT_EQ(message(s), "attachment 2 ('root_socket'): mesh 3 does not exist (the Scene has 3 meshes)");
  s.attachments[2].mesh = -2;
  EXPECT_EQ(message(s), "attachment 2 ('root_socket'): mesh -2 does not exist (the Scene has 3 meshes)");
  s.attachments[2].mesh = -1;
  s.attachments[4].joint = 1;
  EXPECT_EQ(message(s), "attachment 4 ('joint_socket'): joint 1 does not exist (the Scene has 1 joints)");
  Diagnostics d;
  EXPECT_THROW(gltf::write(s, {}, true, "", "", d), Error);
}

// ---- Animations of PIE models --------------------------------------------------------------------

// PIE ANIMOBJECT frames come back exactly (so a PIE writer still recognises them): keys on frames
// at rates like 1000 / 66 are sampled on the key, and unit quaternions keep their bits. A
// rotation may come back as -q (the writer keeps consecutive keys in one hemisphere).
TEST(GltfAttachments, AnimationKeysComeBackExactly) {
  Scene s = attachment_scene();
  Animation a;
  a.name = "turret";
  a.framerate = 1000.0f / 66;
  a.loop = true;
  a.channels = 1;
  for (int f = 0; f < 40; ++f) {
    const float h = 0.05f * float(f) + 0.3f;
    const Transform t = trs({0.001f * float(f * f), -0.019f * float(f), 10.0f - 0.3f * float(f)},
                            {0, std::sin(h) * (f % 7 == 3 ? -1.0f : 1.0f), 0, std::cos(h) * (f % 7 == 3 ? -1.0f : 1.0f)});
    a.poses.push_back(t);
  }
  s.animations.push_back(a);
  Diagnostics d;
  Scene r = read_back(gltf::write(s, {}, true, "", "", d)[0].bytes, d);
  ASSERT_EQ(r.animations.size(), 1u);
  ASSERT_EQ(r.animations[0].poses.size(), a.poses.size());
  for (size_t f = 0; f < a.poses.size(); ++f) {
    const Transform& x = a.poses[f];
    const Transform& y = r.animations[0].poses[f];
    EXPECT_EQ(y.translation, x.translation) << f;
    EXPECT_EQ(y.scale, x.scale) << f;
    const auto& q = y.rotation;
    const std::array<float, 4> minus{-q[0], -q[1], -q[2], -q[3]};
    EXPECT_TRUE(q == x.rotation || minus == x.rotation) << f;
  }
}

}  // namespace meshport_test_gltf_attachments
