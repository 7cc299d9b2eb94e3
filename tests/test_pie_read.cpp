// PIE reader: every error and warning of docs/pie.md with its exact location (tests/data/pie),
// the exact Scene of small hand-written files, the line and token leniency the engine has, the
// shipped corpus against MANIFEST.tsv, and hostile input.
#include <meshport/meshport.h>

#include "formats/pie/pie.h"
#include "formats/pie/pie_common.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace meshport_test_pie_read {

using namespace meshport;
using testutil::corpus;

namespace {

std::string fixture_text(const std::string& name) {
  return testutil::slurp(std::string(MESHPORT_TEST_DATA) + "/pie/" + name);
}

Scene read_text(const std::string& text, const std::string& name, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return pie::read(text, name, diags ? *diags : local);
}

Scene read_fixture(const std::string& name, Diagnostics* diags = nullptr) {
  std::string text = fixture_text(name);
  EXPECT_FALSE(text.empty()) << name;
  return read_text(text, name, diags);
}

std::string error_of_text(const std::string& text, const std::string& name) {
  Diagnostics d;
  try {
    pie::read(text, name, d);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string error_of(const std::string& fixture) { return error_of_text(fixture_text(fixture), fixture); }

std::vector<std::string> messages(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const Diagnostic& i : d.items) out.push_back(i.to_string());
  return out;
}

std::vector<float> values(const Mesh& m, Attribute a) {
  const VertexStream* s = m.find(a);
  return s ? s->data : std::vector<float>{};
}

// Level L's polygons (the "pie.flags" / "pie.texanim" face channels of its mesh).
std::vector<PiePolygon> polygons_of(const Scene& s, const PieLevel& L) {
  return L.mesh < 0 ? std::vector<PiePolygon>{} : pie::mesh_polygons(s.meshes.at(size_t(L.mesh)));
}
// Level L's point of each vertex (the "pie.point" stream of its mesh).
std::vector<uint32_t> points_of(const Scene& s, const PieLevel& L) {
  std::vector<uint32_t> out;
  if (L.mesh < 0) return out;
  if (const VertexStream* p = pie::point_stream(s.meshes.at(size_t(L.mesh))))
    for (float f : p->data) out.push_back(uint32_t(f));
  return out;
}

void expect_quat_near(const std::array<float, 4>& q, const std::array<float, 4>& expected) {
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(q[c], expected[c], 1e-6f) << "component " << c;
}

// A level with POINTS and POLYGONS lines generated: `points` points, `polygons` triangles 0 1 2.
std::string generated_level(size_t points, size_t polygons) {
  std::string s = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 0 0\nLEVELS 1\nLEVEL 1\n";
  s += "POINTS " + std::to_string(points) + "\n";
  for (size_t i = 0; i < points; ++i) s += "\t" + std::to_string(i) + " 0 0\n";
  s += "POLYGONS " + std::to_string(polygons) + "\n";
  for (size_t i = 0; i < polygons; ++i) s += "\t200 3 0 1 2 0 0 1 0 0 1\n";
  return s;
}

// ---- Errors --------------------------------------------------------------------------------------

struct ErrorCase {
  const char* file;
  const char* message;
};

TEST(PieRead, EveryErrorFixtureHasItsExactMessageAndLocation) {
  const ErrorCase cases[] = {
      {"err-header.pie",
       "err-header.pie:1:1: error: not a PIE file: the first line must be \"PIE 2\", \"PIE 3\" or \"PIE 4\""},
      {"err-version.pie", "err-version.pie:1:5: error: unsupported PIE version \"5\": 2, 3 or 4 expected"},
      {"err-no-type.pie", "err-no-type.pie:3:1: error: TYPE missing before LEVELS"},
      {"err-no-levels.pie", "err-no-levels.pie:4:1: error: LEVELS missing before LEVEL"},
      {"err-eof-before-levels.pie", "err-eof-before-levels.pie:4:1: error: end of file before LEVELS"},
      {"err-levels-zero.pie", "err-levels-zero.pie:4:8: error: LEVELS 0: at least 1 level expected"},
      {"err-no-level.pie", "err-no-level.pie:12:1: error: end of file: LEVEL 2 missing (LEVELS 2)"},
      {"err-level-sequence.pie", "err-level-sequence.pie:5:7: error: LEVEL 2 out of sequence: LEVEL 1 expected"},
      {"err-no-points.pie", "err-no-points.pie:6:1: error: POINTS missing in level 1 before POLYGONS"},
      {"err-no-polygons.pie", "err-no-polygons.pie:10:1: error: POLYGONS missing in level 1 before CONNECTORS"},
      {"err-eof-in-points.pie",
       "err-eof-in-points.pie:6:1: error: end of file inside POINTS: 4 lines announced, 2 left"},
      {"err-polygon-points.pie",
       "err-polygon-points.pie:11:6: error: polygon with 4 points: only triangles (3 points) are supported"},
      {"err-index-range.pie", "err-index-range.pie:11:12: error: point index 3 out of range: POINTS 3"},
      {"err-4000-without-200.pie",
       "err-4000-without-200.pie:11:2: error: polygon flags 4000: flag 4000 (texture animation) needs flag 200 "
       "(textured)"},
      {"err-not-textured.pie",
       "err-not-textured.pie:11:2: error: polygon flags 0: every polygon needs flag 200 (textured)"},
      {"err-bad-point.pie", "err-bad-point.pie:8:4: error: expected a point coordinate, found \"x\""},
      {"err-bad-uv.pie", "err-bad-uv.pie:11:23: error: expected a texture coordinate, found the end of the line"},
      {"err-texanim-frames.pie",
       "err-texanim-frames.pie:11:15: error: texture animation with 0 frames: at least 1 expected"},
      {"err-texanim-rate.pie", "err-texanim-rate.pie:11:17: error: texture animation rate 0: at least 1 expected"},
      {"err-texanim-size.pie",
       "err-texanim-size.pie:11:20: error: texture animation frame width 0 is not positive"},
      {"err-animobject-time0.pie",
       "err-animobject-time0.pie:12:12: error: ANIMOBJECT time 0: at least 1 millisecond per frame expected"},
      {"err-animobject-frames0.pie",
       "err-animobject-frames0.pie:12:18: error: ANIMOBJECT with 0 frames: at least 1 expected"},
      {"err-animobject-value.pie",
       "err-animobject-value.pie:13:8: error: expected an ANIMOBJECT position (integer thousandths), found \"1.5\""},
      {"err-texture-not-png.pie",
       "err-texture-not-png.pie:3:11: error: texture name \"page-1.jpg\" does not end in \".png\""},
      {"err-texture-chars.pie",
       "err-texture-chars.pie:3:11: error: texture name \"page@1.png\" contains \"@\": only A-Z a-z 0-9 . _ - are "
       "allowed"},
      {"err-tileset.pie", "err-tileset.pie:3:9: error: tileset 3 out of range: 0, 1 or 2 expected"},
      {"err-event-type.pie", "err-event-type.pie:4:7: error: EVENT type 4: 1, 2 or 3 expected"},
      {"err-shadow-points0.pie", "err-shadow-points0.pie:12:14: error: SHADOWPOINTS 0: at least 1 point expected"},
      {"err-shadow-polygons0.pie",
       "err-shadow-polygons0.pie:14:16: error: SHADOWPOLYGONS 0: at least 1 polygon expected"},
      {"err-shadow-order.pie", "err-shadow-order.pie:12:1: error: SHADOWPOLYGONS before SHADOWPOINTS"},
      {"err-shadow-flags.pie", "err-shadow-flags.pie:17:2: error: shadow polygon flags 200: must be 0"},
      {"err-shadow-index.pie",
       "err-shadow-index.pie:17:10: error: shadow point index 3 out of range: SHADOWPOINTS 3"},
      {"err-unknown-directive.pie",
       "err-unknown-directive.pie:12:1: error: unknown or misplaced directive \"BOGUS\" in level 1"},
      {"err-unknown-global.pie",
       "err-unknown-global.pie:3:1: error: unknown or misplaced directive \"BOGUS\" before LEVELS"},
  };
  for (const ErrorCase& c : cases) EXPECT_EQ(error_of(c.file), c.message) << c.file;
}

TEST(PieRead, MoreThan8192PolygonsIsAnError) {
  EXPECT_EQ(error_of_text(generated_level(3, 8193), "big.pie"),
            "big.pie:10:10: error: POLYGONS 8193: more than 8192 polygons in a level");
  Diagnostics d;
  Scene s = read_text(generated_level(3, 8192), "max.pie", &d);
  EXPECT_EQ(s.meshes[0].triangles.size(), 8192u * 3);
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
  EXPECT_EQ(messages(d), std::vector<std::string>{
                             "max.pie:10:10: note: POLYGONS 8192: more than 512, the limit of the PIE 2/3 "
                             "specification (Warzone 2100's doc/PIE.md); Warzone 2100 4.4+ accepts up to 8192"});
}

TEST(PieRead, OldPointAndPolygonLimitsAreNotes) {
  Diagnostics d;
  Scene s = read_text(generated_level(769, 513), "old.pie", &d);
  std::vector<std::string> expected = {
      "old.pie:6:8: note: POINTS 769: more than 768, the limit of the PIE 2/3 specification (Warzone 2100's "
      "doc/PIE.md); Warzone 2100 4.x reads any count",
      "old.pie:776:10: note: POLYGONS 513: more than 512, the limit of the PIE 2/3 specification (Warzone 2100's "
      "doc/PIE.md); Warzone 2100 4.4+ accepts up to 8192"};
  EXPECT_EQ(messages(d), expected);
  EXPECT_EQ(s.pie->levels[0].points.size(), 769u);
  EXPECT_EQ(polygons_of(s, s.pie->levels[0]).size(), 513u);
  d.items.clear();
  read_text(generated_level(768, 512), "limit.pie", &d);
  EXPECT_TRUE(d.items.empty());
}

TEST(PieRead, MoreErrorsInMemory) {
  const std::string head = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 0 0\nLEVELS 1\nLEVEL 1\n";
  const std::string tri = "POINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\n";
  const std::string poly = "POLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n";
  EXPECT_EQ(error_of_text("", "e.pie"),
            "e.pie:1:1: error: not a PIE file: the first line must be \"PIE 2\", \"PIE 3\" or \"PIE 4\"");
  EXPECT_EQ(error_of_text("PIE\n", "e.pie"), "e.pie:1:4: error: PIE version missing: 2, 3 or 4 expected");
  EXPECT_EQ(error_of_text("PIE 3.0\n", "e.pie"), "e.pie:1:5: error: unsupported PIE version \"3.0\": 2, 3 or 4 expected");
  // End of file inside POLYGONS, CONNECTORS and ANIMOBJECT; at the directive, before any allocation.
  EXPECT_EQ(error_of_text(head + tri + "POLYGONS 2\n\t200 3 0 1 2 0 0 1 0 0 1", "e.pie"),
            "e.pie:10:1: error: end of file inside POLYGONS: 2 lines announced, 1 left");
  EXPECT_EQ(error_of_text(head + tri + poly + "CONNECTORS 99999999999999\n", "e.pie"),
            "e.pie:12:1: error: end of file inside CONNECTORS: 99999999999999 lines announced, 0 left");
  EXPECT_EQ(error_of_text(head + tri + poly + "ANIMOBJECT 1 0 2000000000\n\t0 0 0 0 0 0 0 1 1 1\n", "e.pie"),
            "e.pie:12:1: error: end of file inside ANIMOBJECT: 2000000000 lines announced, 1 left");
  EXPECT_EQ(error_of_text(head + "POINTS 4000000000\n", "e.pie"),
            "e.pie:6:1: error: end of file inside POINTS: 4000000000 lines announced, 0 left");
  EXPECT_EQ(error_of_text(head + tri + "NORMALS 5\n" + poly, "e.pie"),
            "e.pie:10:1: error: end of file inside NORMALS: 5 lines announced, 2 left");
  // End of file where a directive is required.
  EXPECT_EQ(error_of_text(head, "e.pie"), "e.pie:6:1: error: end of file: POINTS missing in level 1");
  EXPECT_EQ(error_of_text(head + tri, "e.pie"), "e.pie:10:1: error: end of file: POLYGONS missing in level 1");
  // Unreadable numbers.
  EXPECT_EQ(error_of_text(head + "POINTS -1\n", "e.pie"), "e.pie:6:8: error: expected the number of points, found \"-1\"");
  EXPECT_EQ(error_of_text(head + "POINTS 1\n\t0 0 nan\n", "e.pie"),
            "e.pie:7:6: error: expected a point coordinate, found \"nan\"");
  EXPECT_EQ(error_of_text(head + tri + "POLYGONS 1\n\t0x200 3 0 1 2 0 0 1 0 0 1\n", "e.pie"),
            "e.pie:11:2: error: expected the polygon flags (hexadecimal), found \"0x200\"");
  EXPECT_EQ(error_of_text(head + tri + "POLYGONS 1\n\t200 3 0 -1 2 0 0 1 0 0 1\n", "e.pie"),
            "e.pie:11:10: error: point index -1 out of range: POINTS 3");
  EXPECT_EQ(error_of_text(head + tri + "POLYGONS 1\n\t4200 3 0 1 2 4 66 0.5 -0.5 0 0 1 0 0 1\n", "e.pie"),
            "e.pie:11:24: error: texture animation frame height -0.5 is not positive");
  EXPECT_EQ(error_of_text(head + tri + poly + "CONNECTORS 1\n\t1 2\n", "e.pie"),
            "e.pie:13:5: error: expected a connector coordinate, found the end of the line");
  EXPECT_EQ(error_of_text(head + tri + "NORMALS 1\n\t0 0 1 0 0 1 0 0\n" + poly, "e.pie"),
            "e.pie:11:17: error: expected a normal component, found the end of the line");
  EXPECT_EQ(error_of_text("PIE 3\nTYPE 2g0\n", "e.pie"),
            "e.pie:2:6: error: expected the TYPE flags (hexadecimal), found \"2g0\"");
  EXPECT_EQ(error_of_text("PIE 3\nTYPE 200\nTYPE 200\n", "e.pie"), "e.pie:3:1: error: TYPE given twice");
  EXPECT_EQ(error_of_text("PIE 3\nTYPE 200\nTEXTURE 0\n", "e.pie"),
            "e.pie:3:10: error: expected a texture file name, found the end of the line");
  EXPECT_EQ(error_of_text("PIE 3\nTYPE 200\nTCMASK -1 page-1_tcmask.png\n", "e.pie"),
            "e.pie:3:8: error: tileset -1 out of range: 0, 1 or 2 expected");
  EXPECT_EQ(error_of_text("PIE 3\nTYPE 200\nNORMALMAP 0 normal.tga\n", "e.pie"),
            "e.pie:3:13: error: texture name \"normal.tga\" does not end in \".png\"");
  EXPECT_EQ(error_of_text("PIE 3\nTYPE 200\nEVENT 1\n", "e.pie"),
            "e.pie:3:8: error: expected the EVENT's model file name, found the end of the line");
  // A level's per-level settings come before POINTS only.
  EXPECT_EQ(error_of_text(head + tri + "TEXTURE 0 page-2.png\n" + poly, "e.pie"),
            "e.pie:10:1: error: POLYGONS missing in level 1 before TEXTURE");
  EXPECT_EQ(error_of_text(head + "FOO\n" + tri + poly, "e.pie"),
            "e.pie:6:1: error: unknown or misplaced directive \"FOO\" in level 1");
  // Shadow polygons need 3 points, like polygons.
  EXPECT_EQ(error_of_text(head + tri + poly + "SHADOWPOINTS 1\n\t0 0 0\nSHADOWPOLYGONS 1\n\t0 2 0 0\n", "e.pie"),
            "e.pie:15:4: error: polygon with 2 points: only triangles (3 points) are supported");
  // A repeated block in a level that is not the last.
  std::string two = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 0 0\nLEVELS 2\nLEVEL 1\n" + tri + poly;
  EXPECT_EQ(error_of_text(two + "CONNECTORS 1\n\t0 0 0\nCONNECTORS 1\n\t0 0 0\n", "e.pie"),
            "e.pie:14:1: error: CONNECTORS given twice in level 1");
  // Control bytes in a directive are escaped in the message.
  EXPECT_EQ(error_of_text("PIE 3\nTYPE 200\nTEX\x01TURE\n", "e.pie"),
            "e.pie:3:1: error: unknown or misplaced directive \"TEX\\x01TURE\" before LEVELS");
}

// ---- Warnings ------------------------------------------------------------------------------------

TEST(PieRead, NormalsCountMismatchDiscardsThem) {
  Diagnostics d;
  Scene s = read_fixture("warn-normals-count.pie", &d);
  EXPECT_EQ(messages(d), std::vector<std::string>{"warn-normals-count.pie:10:9: warning: NORMALS 2 differs from "
                                                  "POLYGONS 1: the normals are discarded"});
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].find(Attribute::Normal), nullptr);
  EXPECT_FALSE(s.pie->levels[0].normals);
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1}));
}

TEST(PieRead, MaterialsAndShadersAreKeptWithAWarning) {
  Diagnostics d;
  Scene s = read_fixture("warn-materials.pie", &d);
  EXPECT_EQ(messages(d),
            std::vector<std::string>{"warn-materials.pie:6:1: warning: MATERIALS is ignored by the engine (kept)"});
  EXPECT_EQ(s.pie->levels[0].materials, std::vector<std::string>{"1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 20"});
  EXPECT_TRUE(s.pie->levels[0].shaders.empty());
  EXPECT_EQ(s.meshes.size(), 1u);

  Diagnostics d2;
  Scene s2 = read_fixture("warn-shaders.pie", &d2);
  EXPECT_EQ(messages(d2),
            std::vector<std::string>{"warn-shaders.pie:6:1: warning: SHADERS is ignored by the engine (kept)"});
  EXPECT_EQ(s2.pie->levels[0].shaders, std::vector<std::string>{"2 vertex.vert fragment.frag"});
  EXPECT_TRUE(s2.pie->levels[0].materials.empty());
}

TEST(PieRead, ShadowPointsWithoutPolygonsAreKeptWithAWarning) {
  Diagnostics d;
  Scene s = read_fixture("warn-shadowpoints-only.pie", &d);
  EXPECT_EQ(messages(d), std::vector<std::string>{"warn-shadowpoints-only.pie:12:1: warning: SHADOWPOINTS without "
                                                  "SHADOWPOLYGONS: the engine ignores them"});
  const PieLevel& L = s.pie->levels[0];
  EXPECT_TRUE(L.has_shadow_points);
  EXPECT_FALSE(L.has_shadow_polygons);
  EXPECT_EQ(L.shadow_points, (std::vector<std::array<float, 3>>{{0, 0, 0}, {1, 1, 1}}));
  EXPECT_TRUE(L.shadow_polygons.empty());
}

TEST(PieRead, UnknownDirectiveAfterTheLastLevelIgnoresTheRest) {
  Diagnostics d;
  Scene s = read_fixture("warn-unknown-after-last.pie", &d);
  EXPECT_EQ(messages(d), std::vector<std::string>{"warn-unknown-after-last.pie:12:1: warning: unknown or misplaced "
                                                  "directive \"BOGUS\" after the last level: it and the rest of the "
                                                  "file are ignored"});
  EXPECT_TRUE(s.attachments.empty());
  EXPECT_EQ(s.meshes.size(), 1u);

  // An extra LEVEL after the last one is such a directive too.
  Diagnostics d2;
  std::string text = fixture_text("feat-shadow.pie") + "LEVEL 2\nPOINTS 1\n\t0 0 0\n";
  Scene s2 = read_text(text, "extra.pie", &d2);
  EXPECT_EQ(messages(d2), std::vector<std::string>{"extra.pie:20:1: warning: unknown or misplaced directive \"LEVEL\" "
                                                   "after the last level: it and the rest of the file are ignored"});
  EXPECT_EQ(s2.pie->levels.size(), 1u);
}

TEST(PieRead, EmptyLevelsHaveNoMesh) {
  Diagnostics d;
  Scene s = read_fixture("warn-empty-level.pie", &d);
  std::vector<std::string> expected = {
      "warn-empty-level.pie:6:8: warning: level 1 is empty (POINTS 0): it gets no mesh",
      "warn-empty-level.pie:18:10: warning: level 3 is empty (POLYGONS 0): it gets no mesh"};
  EXPECT_EQ(messages(d), expected);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].name, "warn-empty-level_level2");
  ASSERT_EQ(s.pie->levels.size(), 3u);
  EXPECT_EQ(s.pie->levels[0].mesh, -1);
  EXPECT_EQ(s.pie->levels[1].mesh, 0);
  EXPECT_EQ(s.pie->levels[2].mesh, -1);
  EXPECT_EQ(s.pie->levels[2].points, (std::vector<std::array<float, 3>>{{5, 5, 5}}));
  EXPECT_TRUE(polygons_of(s, s.pie->levels[2]).empty());
  EXPECT_TRUE(points_of(s, s.pie->levels[2]).empty());
}

TEST(PieRead, AnimObjectFrameOutOfSequenceOnlyWarns) {
  Diagnostics d;
  Scene s = read_fixture("warn-frame-sequence.pie", &d);
  EXPECT_EQ(messages(d), std::vector<std::string>{"warn-frame-sequence.pie:14:2: warning: ANIMOBJECT frame 5 out of "
                                                  "sequence: frame 1 expected"});
  ASSERT_EQ(s.pie->levels[0].animobject.frames.size(), 2u);
  EXPECT_EQ(s.pie->levels[0].animobject.frames[1].frame, 5);
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].frame_count(), 2u);
}

TEST(PieRead, DuplicateTextureForATilesetWarnsAndTheFirstIsUsed) {
  Diagnostics d;
  Scene s = read_fixture("warn-duplicate-texture.pie", &d);
  EXPECT_EQ(messages(d), std::vector<std::string>{"warn-duplicate-texture.pie:4:1: warning: TEXTURE for tileset 0 "
                                                  "given twice: the first one is used"});
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "page-1");
  EXPECT_EQ(s.materials[1].name, "page-2");
  EXPECT_EQ(s.meshes[0].material, 0);
  EXPECT_EQ(s.pie->global.textures.size(), 2u);
}

// ---- Exact data ----------------------------------------------------------------------------------

TEST(PieRead, Pie2QuadExactScene) {
  Diagnostics d;
  Scene s = read_fixture("feat-pie2.pie", &d);
  EXPECT_TRUE(d.items.empty());
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "feat-pie2_level1");
  EXPECT_EQ(m.material, 0);
  // Corners in file order: (0,uv00) (1,uv.5 0) (2,uv.5 1) | (0,uv00) (2,uv.5 1) (3,uv0 1).
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 2, 1, 0, 3, 2}));
  EXPECT_EQ(values(m, Attribute::Position), (std::vector<float>{0, 0, 0, 10, 0, 0, 10, 20, -30, 0, 20, -30}));
  EXPECT_EQ(values(m, Attribute::Texcoord), (std::vector<float>{0, 0, 0.5f, 0, 0.5f, 1, 0, 1}));
  EXPECT_EQ(m.find(Attribute::Normal), nullptr);
  ASSERT_EQ(m.streams.size(), 3u);  // position, texcoord, "pie.point"
  for (const VertexStream& st : m.streams) {
    EXPECT_EQ(st.format, ComponentType::Float);
    EXPECT_EQ(st.source_size, 0u);
  }
  EXPECT_EQ(m.streams[0].components, 3u);
  EXPECT_EQ(m.streams[1].components, 2u);
  EXPECT_EQ(m.streams[2].attribute, Attribute::Custom);
  EXPECT_EQ(m.streams[2].name, "pie.point");
  EXPECT_EQ(m.streams[2].components, 1u);
  // No NORMALS: generated normals are faceted, as the engine shades the level.
  EXPECT_EQ(m.smoothing.face_angle, (std::vector<float>{0, 0}));
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "page-7-test");
  EXPECT_EQ(s.materials[0].base_color_texture, "page-7-test.png");
  ASSERT_EQ(s.attachments.size(), 1u);
  EXPECT_EQ(s.attachments[0].name, "feat-pie2_level1_connector1");
  EXPECT_EQ(s.attachments[0].mesh, 0);
  EXPECT_EQ(s.attachments[0].joint, -1);
  EXPECT_EQ(s.attachments[0].transform.translation, (std::array<float, 3>{1, 3, -2}));
  EXPECT_TRUE(s.joints.empty());
  EXPECT_TRUE(s.animations.empty());

  const PieData& p = *s.pie;
  EXPECT_EQ(p.version, 2);
  EXPECT_TRUE(p.global.has_type);
  EXPECT_EQ(p.global.type, 0x10200u);
  EXPECT_FALSE(p.global.has_interpolate);
  ASSERT_EQ(p.global.textures.size(), 1u);
  PieTexture t;
  t.file = "page-7-test.png";
  t.has_size = true;
  t.width = t.height = 256;
  EXPECT_EQ(p.global.textures[0], t);
  ASSERT_EQ(p.levels.size(), 1u);
  const PieLevel& L = p.levels[0];
  EXPECT_EQ(L.mesh, 0);
  EXPECT_EQ(L.joint, -1);
  EXPECT_EQ(L.points, (std::vector<std::array<float, 3>>{{0, 0, 0}, {10, 0, 0}, {10, 20, 30}, {0, 20, 30}, {99, 99, 99}}));
  EXPECT_EQ(points_of(s, L), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_FALSE(L.normals);
  const std::vector<PiePolygon> polygons = polygons_of(s, L);
  ASSERT_EQ(polygons.size(), 2u);
  EXPECT_EQ(polygons[0], PiePolygon{});
  PiePolygon anim;
  anim.flags = 0x4200;
  anim.anim_frames = 4;
  anim.anim_rate = 66;
  anim.anim_width = 0.125f;
  anim.anim_height = 0.0625f;
  EXPECT_EQ(polygons[1], anim);
  EXPECT_FALSE(L.has_animobject);
  EXPECT_TRUE(L.comment.empty());
}

TEST(PieRead, NormalsBecomeAStreamAndSplitVertices) {
  Diagnostics d;
  Scene s = read_fixture("feat-normals.pie", &d);
  EXPECT_TRUE(d.items.empty());
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 2, 1, 3, 5, 4}));
  EXPECT_EQ(points_of(s, s.pie->levels[0]), (std::vector<uint32_t>{0, 1, 2, 0, 2, 1}));
  EXPECT_EQ(values(m, Attribute::Normal),
            (std::vector<float>{0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(values(m, Attribute::Texcoord),
            (std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.1f, 0.2f, 0.5f, 0.6f, 0.3f, 0.4f}));
  EXPECT_EQ(values(m, Attribute::Position),
            (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0}));
  ASSERT_EQ(m.streams.size(), 4u);
  EXPECT_EQ(m.streams[2].attribute, Attribute::Normal);
  EXPECT_EQ(m.streams[2].components, 3u);
  EXPECT_TRUE(m.smoothing.empty());  // the file's normals are kept as they are
  EXPECT_TRUE(s.pie->levels[0].normals);
}

TEST(PieRead, AnimObjectBecomesJointsBlendStreamsAndOneAnimation) {
  Diagnostics d;
  Scene s = read_fixture("feat-anim.pie", &d);
  EXPECT_TRUE(d.items.empty());
  ASSERT_EQ(s.meshes.size(), 3u);
  ASSERT_EQ(s.joints.size(), 2u);
  EXPECT_EQ(s.joints[0].name, "feat-anim_level1");
  EXPECT_EQ(s.joints[1].name, "feat-anim_level2");
  for (const Joint& j : s.joints) {
    EXPECT_EQ(j.parent, -1);
    EXPECT_EQ(j.rest, Transform{});
  }
  EXPECT_EQ(values(s.meshes[0], Attribute::BlendIndices), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(values(s.meshes[0], Attribute::BlendWeights), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(values(s.meshes[1], Attribute::BlendIndices), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(s.meshes[1].find(Attribute::BlendIndices)->components, 1u);
  EXPECT_EQ(s.meshes[1].find(Attribute::BlendWeights)->components, 1u);
  EXPECT_EQ(s.meshes[2].find(Attribute::BlendIndices), nullptr);
  EXPECT_EQ(s.pie->levels[0].joint, 0);
  EXPECT_EQ(s.pie->levels[1].joint, 1);
  EXPECT_EQ(s.pie->levels[2].joint, -1);

  ASSERT_EQ(s.attachments.size(), 1u);
  EXPECT_EQ(s.attachments[0].name, "feat-anim_level1_connector1");
  EXPECT_EQ(s.attachments[0].mesh, 0);
  EXPECT_EQ(s.attachments[0].joint, 0);
  EXPECT_EQ(s.attachments[0].transform.translation, (std::array<float, 3>{5, 7, -6}));

  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "feat-anim");
  EXPECT_EQ(a.framerate, 10.0f);
  EXPECT_TRUE(a.loop);
  EXPECT_EQ(a.channels, 2u);
  ASSERT_EQ(a.poses.size(), 4u);
  EXPECT_EQ(a.poses[0], Transform{});
  EXPECT_EQ(a.poses[1].translation, (std::array<float, 3>{0, 0, 0}));
  EXPECT_EQ(a.poses[1].scale, (std::array<float, 3>{0, 0, 0}));  // legacy scale -1: not drawn
  // Frame 1, level 1: position x z y = 1000 2000 3000 -> (1, 3, -2); rx = 90 degrees.
  EXPECT_EQ(a.poses[2].translation, (std::array<float, 3>{1, 3, -2}));
  const float h = std::sqrt(0.5f);
  expect_quat_near(a.poses[2].rotation, {h, 0, 0, h});
  EXPECT_EQ(a.poses[2].scale, (std::array<float, 3>{2, 3, 4}));
  // Frame 1, level 2: rotation x z y = 0 90000 0, rz = 90 degrees -> Scene Rz(-90).
  expect_quat_near(a.poses[3].rotation, {0, 0, -h, h});
  EXPECT_EQ(a.poses[3].scale, (std::array<float, 3>{1, 1, 1}));

  const PieAnimObject& raw = s.pie->levels[0].animobject;
  EXPECT_TRUE(s.pie->levels[0].has_animobject);
  EXPECT_EQ(raw.time, 100);
  EXPECT_EQ(raw.cycles, 0);
  ASSERT_EQ(raw.frames.size(), 2u);
  PieAnimFrame f1;
  f1.frame = 1;
  f1.position = {1000, 2000, 3000};
  f1.rotation = {90000, 0, 0};
  f1.scale = {2, 3, 4};
  EXPECT_EQ(raw.frames[1], f1);
  EXPECT_EQ(s.pie->levels[1].animobject.frames[0].scale, (std::array<float, 3>{-1, -1, -1}));
  EXPECT_FALSE(s.pie->levels[2].has_animobject);
}

TEST(PieRead, DifferentAnimObjectsMakeSeparateAnimations) {
  Scene s = read_fixture("feat-anim-groups.pie");
  ASSERT_EQ(s.animations.size(), 2u);
  const Animation& a = s.animations[0];
  const Animation& b = s.animations[1];
  EXPECT_EQ(a.name, "feat-anim-groups_level1");
  EXPECT_EQ(a.framerate, 10.0f);
  EXPECT_TRUE(a.loop);
  EXPECT_EQ(b.name, "feat-anim-groups_level2");
  EXPECT_EQ(b.framerate, 20.0f);
  EXPECT_FALSE(b.loop);
  ASSERT_EQ(a.channels, 2u);
  ASSERT_EQ(b.channels, 2u);
  ASSERT_EQ(a.poses.size(), 2u);
  ASSERT_EQ(b.poses.size(), 2u);
  EXPECT_EQ(a.poses[0].scale, (std::array<float, 3>{2, 2, 2}));
  EXPECT_EQ(a.poses[1], Transform{});
  EXPECT_EQ(b.poses[0], Transform{});
  EXPECT_EQ(b.poses[1].scale, (std::array<float, 3>{3, 3, 3}));
}

TEST(PieRead, ShadowMeshIsKeptRaw) {
  Diagnostics d;
  Scene s = read_fixture("feat-shadow.pie", &d);
  EXPECT_TRUE(d.items.empty());
  const PieLevel& L = s.pie->levels[0];
  EXPECT_TRUE(L.has_shadow_points);
  EXPECT_TRUE(L.has_shadow_polygons);
  EXPECT_EQ(L.shadow_points, (std::vector<std::array<float, 3>>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5f, 0.5f, 0.5f}}));
  EXPECT_EQ(L.shadow_polygons, (std::vector<std::array<uint32_t, 3>>{{0, 1, 2}, {3, 2, 1}}));
  EXPECT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
}

TEST(PieRead, Pie4TilesetsOverridesAndLevelComments) {
  Diagnostics d;
  Scene s = read_fixture("feat-pie4.pie", &d);
  EXPECT_TRUE(d.items.empty());
  const PieData& p = *s.pie;
  EXPECT_EQ(p.version, 4);
  EXPECT_EQ(p.global.type, 0x10200u);
  EXPECT_TRUE(p.global.has_interpolate);
  EXPECT_EQ(p.global.interpolate, 0);
  using K = PieTexture::Kind;
  auto tex = [](K kind, int tileset, const char* file, bool size = false, int wh = 0) {
    PieTexture t;
    t.kind = kind;
    t.tileset = tileset;
    t.file = file;
    t.has_size = size;
    t.width = t.height = wh;
    return t;
  };
  std::vector<PieTexture> global = {tex(K::Texture, 0, "page-10-arizona.png"),
                                    tex(K::Texture, 1, "page-10-urban.png"),
                                    tex(K::Texture, 2, "page-10-rockies.png", true, 512),
                                    tex(K::TcMask, 0, "page-10_tcmask.png"),
                                    tex(K::TcMask, 1, "page-10-urban_tcmask.png"),
                                    tex(K::NormalMap, 0, "page-10_normal.png"),
                                    tex(K::SpecularMap, 0, "page-10_specular.png")};
  EXPECT_EQ(p.global.textures, global);
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_EQ(p.events[0].type, 1);
  EXPECT_EQ(p.events[0].file, "anim.pie");
  EXPECT_EQ(p.events[1].type, 3);
  EXPECT_EQ(p.events[1].file, "die.pie");
  ASSERT_EQ(p.levels.size(), 3u);
  EXPECT_EQ(p.levels[0].comment, "body");
  EXPECT_EQ(p.levels[1].comment, "muzzle flash");
  EXPECT_EQ(p.levels[2].comment, "");
  EXPECT_EQ(p.levels[0].overrides, PieSettings{});
  PieSettings o1;
  o1.has_type = true;
  o1.type = 0x200;
  o1.has_interpolate = true;
  o1.interpolate = 1;
  o1.textures = {tex(K::Texture, 0, "page-21-fx.png"), tex(K::TcMask, 0, "page-21_tcmask.png")};
  EXPECT_EQ(p.levels[1].overrides, o1);
  PieSettings o2;
  o2.textures = {tex(K::Texture, 2, "page-99-snow.png"), tex(K::NormalMap, 1, "page-99_normal.png")};
  EXPECT_EQ(p.levels[2].overrides, o2);

  // Materials: every TEXTURE page in order of appearance; a mesh uses its tileset-0 page.
  std::vector<std::string> names;
  for (const Material& m : s.materials) names.push_back(m.name + "=" + m.base_color_texture);
  EXPECT_EQ(names, (std::vector<std::string>{"page-10-arizona=page-10-arizona.png", "page-10-urban=page-10-urban.png",
                                             "page-10-rockies=page-10-rockies.png", "page-21-fx=page-21-fx.png",
                                             "page-99-snow=page-99-snow.png"}));
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[0].material, 0);
  EXPECT_EQ(s.meshes[1].material, 3);
  EXPECT_EQ(s.meshes[2].material, 0);
}

TEST(PieRead, MeshMaterialFallsBackToTheLowestTileset) {
  std::string text = fixture_text("feat-shadow.pie");
  text.replace(text.find("TEXTURE 0 page-1.png"), 20, "TEXTURE 2 page-3.png\nTEXTURE 1 page-2.png");
  Scene s = read_text(text, "t.pie");
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[1].name, "page-2");
  EXPECT_EQ(s.meshes[0].material, 1);

  std::string none = fixture_text("feat-shadow.pie");
  none.replace(none.find("TEXTURE 0 page-1.png 0 0\n"), 25, "");
  Scene s2 = read_text(none, "t.pie");
  EXPECT_TRUE(s2.materials.empty());
  EXPECT_EQ(s2.meshes[0].material, -1);
  EXPECT_TRUE(s2.pie->global.textures.empty());
}

TEST(PieRead, EveryDirectiveIsAcceptedInEveryVersion) {
  std::string pie4 = fixture_text("feat-pie4.pie");
  Scene s4 = read_text(pie4, "v.pie");
  for (const char* v : {"PIE 2", "PIE 3"}) {
    std::string text = pie4;
    text.replace(0, 5, v);
    Diagnostics d;
    Scene s = read_text(text, "v.pie", &d);
    EXPECT_TRUE(d.items.empty()) << v;
    EXPECT_EQ(s.pie->version, v[4] - '0');
    s.pie->version = 4;
    EXPECT_EQ(s.pie, s4.pie) << v;
    EXPECT_EQ(s.materials, s4.materials) << v;
  }
}

TEST(PieRead, Pie2FloatPointsAndIntegerTextureCoordinates) {
  const std::string text =
      "PIE 2\nTYPE 200\nTEXTURE 0 page-1.png 256 256\nLEVELS 1\nLEVEL 1\nPOINTS 3\n\t1.5 -2.25 3e1\n\t-0 0 0\n"
      "\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 256 0 64 128 0 255\n";
  Scene s = read_text(text, "p.pie");
  EXPECT_EQ(values(s.meshes[0], Attribute::Position), (std::vector<float>{1.5f, -2.25f, -30, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values(s.meshes[0], Attribute::Texcoord), (std::vector<float>{1, 0, 0.25f, 0.5f, 0, 255.0f / 256}));
  // PIE 3 keeps coordinates as they are, outside 0..1 too.
  std::string pie3 = text;
  pie3.replace(0, 5, "PIE 3");
  Scene s3 = read_text(pie3, "p.pie");
  EXPECT_EQ(values(s3.meshes[0], Attribute::Texcoord), (std::vector<float>{256, 0, 64, 128, 0, 255}));
}

// CR, LF, CRLF, indentation, blank lines, comments, trailing tokens, no final newline: the same
// Scene every time.
TEST(PieRead, LineAndTokenLeniency) {
  const std::string base = fixture_text("feat-pie2.pie");
  const Scene expected = read_text(base, "feat-pie2.pie");
  auto replace_all = [](std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
  };
  std::string trailing;  // every line with extra tokens, except LEVEL's comment-free form
  std::istringstream in(base);
  for (std::string line; std::getline(in, line);) trailing += line + " 7 extra\n";
  std::string comments;
  std::istringstream in2(base);
  for (std::string line; std::getline(in2, line);)
    comments += "# a comment line\n" + line + (line.rfind("LEVEL ", 0) == 0 ? "\n" : " # trailing comment\n");
  const std::vector<std::pair<const char*, std::string>> variants = {
      {"crlf", replace_all(base, "\n", "\r\n")},
      {"cr", replace_all(base, "\n", "\r")},
      {"no final newline", base.substr(0, base.size() - 1)},
      {"crlf, no final newline", replace_all(base.substr(0, base.size() - 1), "\n", "\r\n")},
      {"spaces", replace_all(base, "\t", "    ")},
      {"no indentation", replace_all(base, "\t", "")},
      {"tabs between tokens", replace_all(base, " ", "\t")},
      {"blank lines", replace_all(base, "\n", "\n\n \t\n")},
      {"trailing tokens", trailing},
      {"comments", comments},
  };
  for (const auto& [what, text] : variants) {
    Diagnostics d;
    Scene s;
    try {
      s = read_text(text, "feat-pie2.pie", &d);
    } catch (const Error& e) {
      ADD_FAILURE() << what << ": " << e.what();
      continue;
    }
    EXPECT_TRUE(d.items.empty()) << what;
    EXPECT_EQ(s, expected) << what;
  }
}

TEST(PieRead, LineNumbersCountCrLfAndCrAsOneBreak) {
  const std::string head = "PIE 3\r\nTYPE 200\r\rTEXTURE 0 page-1.png 0 0\nLEVELS 1\n\nLEVEL 1\n";
  // Lines: 1 PIE, 2 TYPE, 3 (empty), 4 TEXTURE, 5 LEVELS, 6 (empty), 7 LEVEL, 8 POINTS.
  EXPECT_EQ(error_of_text(head + "POINTS 1\n\t0 zero 0\n", "n.pie"),
            "n.pie:9:4: error: expected a point coordinate, found \"zero\"");
  EXPECT_EQ(error_of_text(head + "POINTS 3\r\n\t0 0 0", "n.pie"),
            "n.pie:8:1: error: end of file inside POINTS: 3 lines announced, 1 left");
  EXPECT_EQ(error_of_text(head + "POINTS 1\r\n\t0 0 0\r\n", "n.pie"),
            "n.pie:10:1: error: end of file: POLYGONS missing in level 1");
  EXPECT_EQ(error_of_text(head + "POINTS 1\r\n\t0 0 0\r\n# the end", "n.pie"),
            "n.pie:10:10: error: end of file: POLYGONS missing in level 1");
}

// ---- Hostile input -------------------------------------------------------------------------------

TEST(PieRead, TooManyAnimationPosesIsAnError) {
  // 2100 animated levels: 2099 with one frame, the last with 2001 (a group of its own).
  std::string text = "PIE 3\nTYPE 200\nLEVELS 2100\n";
  for (int i = 1; i <= 2100; ++i) {
    text += "LEVEL " + std::to_string(i) + "\nPOINTS 0\nPOLYGONS 0\n";
    int frames = i == 2100 ? 2001 : 1;
    text += "ANIMOBJECT 1 0 " + std::to_string(frames) + "\n";
    for (int f = 0; f < frames; ++f) text += "\t" + std::to_string(f) + " 0 0 0 0 0 0 1 1 1\n";
  }
  Diagnostics d;
  d.limit = 5;
  std::string err;
  try {
    pie::read(text, "poses.pie", d);
  } catch (const Error& e) {
    err = e.what();
  }
  // Level 2100 starts at line 3 + 2099 * 5 + 1; its ANIMOBJECT is 3 lines later.
  EXPECT_EQ(err, "poses.pie:10502:1: error: ANIMOBJECT: the model's animations would need more than 1048576 poses "
                 "(animated levels x frames)");
  EXPECT_EQ(d.items.size(), 5u);  // bounded: 2100 empty-level warnings
  EXPECT_EQ(d.dropped, 2095u);
}

// Every prefix of a shipped file, and random byte changes, either read or fail with a located
// Error: never a crash, a hang or another exception.
TEST(PieRead, TruncatedAndMutatedFilesFailCleanly) {
  REQUIRE_CORPUS();
  const std::string text = testutil::slurp(corpus("pie/wz2100-4.5.5/base/structs/blfact0.pie"));
  ASSERT_FALSE(text.empty());
  size_t ok = 0, failed = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    Diagnostics d;
    try {
      pie::read(std::string_view(text).substr(0, n), "prefix.pie", d);
      ++ok;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("prefix.pie:", 0), 0u) << e.what();
      ++failed;
    }
  }
  EXPECT_GT(ok, 0u);
  EXPECT_GT(failed, 0u);
  std::mt19937 rng(1234);
  const char bytes[] = {'0', '9', '-', ' ', '\t', '\n', '\r', '#', '.', 'e', 'x', '\0', '\xff', 'L'};
  for (int i = 0; i < 3000; ++i) {
    std::string m = text;
    for (int k = 0; k < 3; ++k) m[rng() % m.size()] = bytes[rng() % sizeof bytes];
    Diagnostics d;
    try {
      pie::read(m, "mutated.pie", d);
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("mutated.pie:", 0), 0u) << e.what();
    }
  }
}

// ---- Corpus --------------------------------------------------------------------------------------

struct ManifestRow {
  std::string path;
  int version = 0;
  size_t levels = 0, points = 0, polygons = 0, connectors = 0;
};

std::vector<ManifestRow> manifest() {
  std::vector<ManifestRow> rows;
  std::ifstream f(corpus("pie/MANIFEST.tsv"));
  std::string line;
  std::getline(f, line);  // header: path bytes sha256 pie_version levels points polygons connectors note
  while (std::getline(f, line)) {
    std::vector<std::string> cols;
    std::istringstream in(line);
    for (std::string c; std::getline(in, c, '\t');) cols.push_back(c);
    if (cols.size() < 8) continue;
    ManifestRow r;
    r.path = cols[0];
    r.version = std::stoi(cols[3]);
    r.levels = std::stoul(cols[4]);
    r.points = std::stoul(cols[5]);
    r.polygons = std::stoul(cols[6]);
    r.connectors = std::stoul(cols[7]);
    rows.push_back(r);
  }
  return rows;
}

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

TEST(PieReadCorpus, EveryShippedFileReadsWithTheManifestCounts) {
  REQUIRE_CORPUS();
  std::vector<ManifestRow> rows = manifest();
  ASSERT_EQ(rows.size(), 42u);
  for (const ManifestRow& r : rows) {
    SCOPED_TRACE(r.path);
    std::string text = testutil::slurp(corpus("pie/" + r.path));
    ASSERT_FALSE(text.empty());
    Diagnostics d;
    Scene s;
    try {
      s = pie::read(text, base_name(r.path), d);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    EXPECT_FALSE(d.has_errors());
    EXPECT_EQ(s.pie->version, r.version);
    EXPECT_EQ(s.pie->levels.size(), r.levels);
    size_t points = 0, polygons = 0, triangles = 0;
    for (const PieLevel& L : s.pie->levels) {
      points += L.points.size();
      polygons += polygons_of(s, L).size();
    }
    for (const Mesh& m : s.meshes) {
      triangles += m.triangles.size() / 3;
      EXPECT_EQ(m.find(Attribute::Position)->vertex_count(), m.vertex_count());
      EXPECT_EQ(m.find(Attribute::Texcoord)->vertex_count(), m.vertex_count());
    }
    EXPECT_EQ(points, r.points);
    EXPECT_EQ(polygons, r.polygons);
    EXPECT_EQ(triangles, r.polygons);
    EXPECT_EQ(s.attachments.size(), r.connectors);
  }
}

Scene read_corpus(const std::string& rel, Diagnostics* d = nullptr) {
  return read_text(testutil::slurp(corpus("pie/" + rel)), base_name(rel), d);
}

TEST(PieReadCorpus, EmptyModelWarnsOnce) {
  REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = read_corpus("wz2100-4.5.5/base/components/prop/prslvtl1.pie", &d);
  EXPECT_EQ(messages(d),
            std::vector<std::string>{"prslvtl1.pie:6:8: warning: level 1 is empty (POINTS 0): it gets no mesh"});
  EXPECT_TRUE(s.meshes.empty());
  ASSERT_EQ(s.pie->levels.size(), 1u);
  EXPECT_EQ(s.pie->levels[0].mesh, -1);
  EXPECT_EQ(s.pie->global.type, 0x10200u);
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "page-16-droid-drives");
}

TEST(PieReadCorpus, Mirnum1SmallestFile) {
  REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = read_corpus("wz2100-4.5.5/base/misc/mirnum1.pie", &d);
  EXPECT_TRUE(d.items.empty());
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "mirnum1_level1");
  EXPECT_EQ(s.pie->levels[0].points, (std::vector<std::array<float, 3>>{{-64, 0, -63}, {65, 0, -63}, {0, 0, 66}}));
  // `200 3 2 1 0 26 13 0 26 0 0`: corners point 2, 1, 0 become vertices 0, 1, 2.
  EXPECT_EQ(points_of(s, s.pie->levels[0]), (std::vector<uint32_t>{2, 1, 0}));
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(values(m, Attribute::Position), (std::vector<float>{0, 0, -66, 65, 0, 63, -64, 0, 63}));
  EXPECT_EQ(values(m, Attribute::Texcoord), (std::vector<float>{26.0f / 256, 13.0f / 256, 0, 26.0f / 256, 0, 0}));
  EXPECT_EQ(s.materials[0].base_color_texture, "page-12-player-buildings.png");
}

TEST(PieReadCorpus, FxmsteamTextureAnimation) {
  REQUIRE_CORPUS();
  Scene s = read_corpus("wz2100-4.5.5/base/effects/fxmsteam.pie");
  ASSERT_EQ(polygons_of(s, s.pie->levels[0]).size(), 4u);
  for (const PiePolygon& p : polygons_of(s, s.pie->levels[0])) {
    EXPECT_EQ(p.flags, 0x4200u);
    EXPECT_EQ(p.anim_frames, 14u);
    EXPECT_EQ(p.anim_rate, 66u);
    EXPECT_EQ(p.anim_width, 28.0f / 256);
    EXPECT_EQ(p.anim_height, 49.0f / 256);
  }
  EXPECT_EQ(s.pie->global.type, 0x201u);
}

TEST(PieReadCorpus, ExblokeAnimation) {
  REQUIRE_CORPUS();
  Scene s = read_corpus("wz2100-4.5.5/base/components/bodies/exbloke.pie");
  EXPECT_EQ(s.pie->levels.size(), 10u);
  EXPECT_EQ(s.meshes.size(), 10u);
  EXPECT_EQ(s.joints.size(), 10u);
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "exbloke");
  EXPECT_EQ(a.framerate, float(1000.0 / 66));
  EXPECT_EQ(a.frame_count(), 11u);
  EXPECT_EQ(a.channels, 10u);
  EXPECT_TRUE(a.loop);
  EXPECT_TRUE(s.pie->global.has_interpolate);
  EXPECT_EQ(s.pie->global.interpolate, 0);
  ASSERT_EQ(s.pie->events.size(), 3u);
  EXPECT_EQ(s.pie->events[1].type, 2);
  EXPECT_EQ(s.pie->events[1].file, "fireknee.pie");
  ASSERT_EQ(s.attachments.size(), 1u);
  EXPECT_EQ(s.attachments[0].name, "exbloke_level1_connector1");
  EXPECT_EQ(s.attachments[0].joint, 0);
  EXPECT_EQ(s.attachments[0].transform.translation, (std::array<float, 3>{0, 33, 0}));
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(s.pie->levels[i].joint, int32_t(i));
    EXPECT_EQ(values(s.meshes[i], Attribute::BlendIndices),
              std::vector<float>(s.meshes[i].vertex_count(), float(i)));
  }
}

TEST(PieReadCorpus, FlamfallLegacyScaleFramesHaveScaleZero) {
  REQUIRE_CORPUS();
  Scene s = read_corpus("wz2100-4.5.5/base/components/bodies/flamfall.pie");
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.framerate, 4.0f);
  EXPECT_FALSE(a.loop);
  ASSERT_EQ(a.channels, 4u);
  ASSERT_EQ(a.frame_count(), 4u);
  // Level 1 is drawn in frame 0 only, level 2 in frame 1 only.
  EXPECT_EQ(a.poses[0 * 4 + 0].scale, (std::array<float, 3>{1, 1, 1}));
  EXPECT_EQ(a.poses[1 * 4 + 0].scale, (std::array<float, 3>{0, 0, 0}));
  EXPECT_EQ(a.poses[0 * 4 + 1].scale, (std::array<float, 3>{0, 0, 0}));
  EXPECT_EQ(a.poses[1 * 4 + 1].scale, (std::array<float, 3>{1, 1, 1}));
  EXPECT_EQ(s.pie->levels[0].animobject.frames[1].scale, (std::array<float, 3>{-1, -1, -1}));
}

TEST(PieReadCorpus, FirekneePie4LevelOverrideAndComment) {
  REQUIRE_CORPUS();
  Scene s = read_corpus("wz2100-4.5.5/base/components/bodies/fireknee.pie");
  ASSERT_EQ(s.pie->levels.size(), 11u);
  const PieLevel& L = s.pie->levels[10];
  EXPECT_EQ(L.comment, "muzzle flash");
  EXPECT_TRUE(L.overrides.has_type);
  EXPECT_EQ(L.overrides.type, 0x200u);
  ASSERT_EQ(L.overrides.textures.size(), 1u);
  EXPECT_EQ(L.overrides.textures[0].file, "page-21-fx.png");
  EXPECT_FALSE(L.overrides.textures[0].has_size);
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "page-32-soldier");
  EXPECT_EQ(s.materials[1].name, "page-21-fx");
  ASSERT_EQ(s.meshes.size(), 11u);
  EXPECT_EQ(s.meshes[10].material, 1);
  EXPECT_EQ(s.meshes[0].material, 0);
  EXPECT_EQ(s.joints.size(), 10u);
  EXPECT_EQ(L.joint, -1);
  EXPECT_EQ(s.meshes[10].find(Attribute::BlendIndices), nullptr);
  for (size_t i = 0; i < 10; ++i) EXPECT_TRUE(s.pie->levels[i].comment.empty());
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].name, "fireknee");
  EXPECT_EQ(s.animations[0].frame_count(), 15u);
}

TEST(PieReadCorpus, NormalsAndMapsOfZnullbody) {
  REQUIRE_CORPUS();
  Scene s = read_corpus("wz2100-4.5.5/base/components/bodies/znullbody.pie");
  EXPECT_TRUE(s.pie->levels[0].normals);
  ASSERT_NE(s.meshes[0].find(Attribute::Normal), nullptr);
  using K = PieTexture::Kind;
  ASSERT_EQ(s.pie->global.textures.size(), 3u);
  EXPECT_EQ(s.pie->global.textures[1].kind, K::NormalMap);
  EXPECT_EQ(s.pie->global.textures[1].file, "znull_norm.png");
  EXPECT_EQ(s.pie->global.textures[2].kind, K::SpecularMap);
  EXPECT_EQ(s.materials.size(), 1u);
}

}  // namespace

}  // namespace meshport_test_pie_read
