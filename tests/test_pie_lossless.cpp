// Issue 16, PIE: per-polygon data on the mesh's face channels survives --optimize (PIE -> PIE and
// through .glb); duplicate points survive PIE -> PIE; levels without NORMALS get faceted normals
// (as Warzone 2100 shades them); INTERPOLATE 0 is a STEP animation in glTF and comes back.
#include <meshport/meshport.h>
#include <meshport/process.h>

#include "formats/pie/pie_common.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace meshport_test_pie_lossless {

using namespace meshport;
using testutil::corpus;
using json = nlohmann::json;

namespace {

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

Scene read_pie(const std::string& text, Diagnostics* d = nullptr) {
  return read_memory(bytes_of(text), Format::Pie, "model.pie", d);
}

std::string write_pie(const Scene& s, Diagnostics* d = nullptr) {
  std::vector<uint8_t> b = write_memory(s, Format::Pie, {}, d);
  return std::string(b.begin(), b.end());
}

Scene through_glb(const Scene& s, Diagnostics* d = nullptr) {
  return read_memory(write_memory(s, Format::Glb, {}, d), Format::Glb, "model.glb", d);
}

void save(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// A PIE 3 strip of `n` quads (2n polygons, n not a multiple of 7); polygon k is texture-animated with k + 1 frames when
// k % 3 == 1, else plain (flags 200 or, when k % 3 == 2, 200 with an extra bit kept as it is).
std::string strip_pie(size_t n) {
  std::string s = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 256 256\nLEVELS 1\nLEVEL 1\n";
  s += fmt::format("POINTS {}\n", 2 * (n + 1));
  for (size_t x = 0; x <= n; ++x) s += fmt::format("\t{} 0 0\n\t{} 10 {}\n", x * 10, x * 10, x);
  // Polygons listed in a scrambled order (k = 7 i mod 2n, n not a multiple of 7), so that the
  // optimiser has something to reorder.
  s += fmt::format("POLYGONS {}\n", 2 * n);
  for (size_t i = 0; i < 2 * n; ++i) {
    const size_t k = (7 * i) % (2 * n), x = k / 2, h = k % 2;
    size_t a = 2 * x, b = 2 * x + 2, c = 2 * x + 3, d = 2 * x + 1;
    std::string corners = h == 0 ? fmt::format("{} {} {}", a, b, c) : fmt::format("{} {} {}", a, c, d);
    std::string uv = h == 0 ? "0 0 1 0 1 1" : "0 0 1 1 0 1";
    if (k % 3 == 1)
      s += fmt::format("\t4200 3 {} {} {} 0.25 0.5 {}\n", corners, k + 1, 10 + k, uv);
    else
      s += fmt::format("\t{} 3 {} {}\n", k % 3 == 2 ? "10200" : "200", corners, uv);
  }
  return s;
}

// Polygon geometry (its corner points in PIE axes, rotated to start at the smallest) -> its
// flags and texture animation, for every polygon of every level.
using Key = std::array<std::array<float, 3>, 3>;
std::map<Key, PiePolygon> polygons_by_geometry(const Scene& s) {
  std::map<Key, PiePolygon> out;
  for (const Mesh& m : s.meshes) {
    const std::vector<PiePolygon> polys = pie::mesh_polygons(m);
    EXPECT_EQ(polys.size(), m.triangles.size() / 3) << m.name;
    const VertexStream* p = m.find(Attribute::Position);
    for (size_t t = 0; t < polys.size(); ++t) {
      Key k;
      for (size_t c = 0; c < 3; ++c) {
        uint32_t v = m.triangles[t * 3 + c];
        k[c] = {p->get(v, 0), p->get(v, 1), p->get(v, 2)};
      }
      size_t first = 0;
      for (size_t c = 1; c < 3; ++c)
        if (k[c] < k[first]) first = c;
      Key r = {k[first], k[(first + 1) % 3], k[(first + 2) % 3]};
      EXPECT_TRUE(out.emplace(r, polys[t]).second) << "two polygons with the same corners";
    }
  }
  return out;
}

ProcessOptions optimize_only() {
  ProcessOptions o;
  o.normals = o.tangents = Generate::Off;
  o.optimize = true;
  return o;
}

}  // namespace

// ---- --optimize and polygon flags ------------------------------------------------------------

TEST(PieLossless, OptimizeKeepsEachPolygonsFlagsOnItsGeometry) {
  const Scene src = read_pie(strip_pie(12));
  const auto expected = polygons_by_geometry(src);
  ASSERT_EQ(expected.size(), 24u);
  Scene s = src;
  process(s, optimize_only());
  // The triangles were reordered (else this proves nothing), and the flags moved with them.
  EXPECT_NE(s.meshes[0].face_channels, src.meshes[0].face_channels);
  EXPECT_EQ(polygons_by_geometry(s), expected);
  // PIE -> PIE.
  Diagnostics d;
  const std::string text = write_pie(s, &d);
  EXPECT_TRUE(d.items.empty()) << d.items.front().message;
  EXPECT_EQ(polygons_by_geometry(read_pie(text)), expected);
  // PIE -> .glb -> PIE, optimised before the .glb and after it.
  Scene glb = through_glb(s, &d);
  EXPECT_EQ(polygons_by_geometry(glb), expected);
  EXPECT_EQ(polygons_by_geometry(read_pie(write_pie(glb))), expected);
  Scene plain = through_glb(src, &d);
  process(plain, optimize_only());
  EXPECT_EQ(polygons_by_geometry(read_pie(write_pie(plain))), expected);
}

TEST(PieLossless, OptimizeThroughTheCli) {
  testutil::TempDir dir;
  save(dir / "strip.pie", strip_pie(9));
  const auto expected = polygons_by_geometry(read(dir / "strip.pie"));
  for (const char* out : {"out.pie", "out.glb"}) {
    testutil::CliRun r = testutil::run_cli(fmt::format("convert {} -o {} --optimize", dir / "strip.pie", dir / out));
    ASSERT_EQ(r.status, 0) << r.out;
  }
  EXPECT_EQ(polygons_by_geometry(read(dir / "out.pie")), expected);
  EXPECT_EQ(polygons_by_geometry(read(dir / "out.glb")), expected);
  testutil::CliRun r = testutil::run_cli(fmt::format("convert {} -o {}", dir / "out.glb", dir / "back.pie"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(polygons_by_geometry(read(dir / "back.pie")), expected);
}

// glTF files of the older schema kept the polygons and vertex points per level in the root
// extras: they are still read onto the meshes.
TEST(PieLossless, OlderGltfSchemaIsStillRead) {
  const Scene src = read_pie(strip_pie(4));
  // The older writer: one primitive of the level's material, no polygon materials.
  Scene flat = src;
  flat.meshes[0].face_channels.clear();
  std::vector<uint8_t> gltf = write_memory(flat, Format::Gltf);
  json doc = json::parse(gltf.begin(), gltf.end());
  ASSERT_EQ(doc["meshes"][0]["primitives"].size(), 1u);
  doc["meshes"][0].erase("extras");
  json polygons = json::array();
  for (const PiePolygon& p : pie::mesh_polygons(src.meshes[0]))
    polygons.push_back(p.flags & 0x4000 ? json::array({p.flags, p.anim_frames, p.anim_rate, p.anim_width, p.anim_height})
                                        : json::array({p.flags}));
  json points = json::array();
  for (float f : pie::point_stream(src.meshes[0])->data) points.push_back(uint32_t(f));
  doc["scenes"][0]["extras"]["meshport"]["pie"]["levels"][0]["polygons"] = polygons;
  doc["scenes"][0]["extras"]["meshport"]["pie"]["levels"][0]["vertex_point"] = points;
  const std::string text = doc.dump();
  Diagnostics d;
  Scene back = read_memory(bytes_of(text), Format::Gltf, "old.gltf", &d);
  EXPECT_EQ(back.meshes[0].face_channels, src.meshes[0].face_channels);
  ASSERT_NE(pie::point_stream(back.meshes[0]), nullptr);
  EXPECT_EQ(pie::point_stream(back.meshes[0])->data, pie::point_stream(src.meshes[0])->data);
  EXPECT_EQ(write_pie(back), write_pie(src));
}

TEST(PieLossless, MalformedMeshExtrasAreIgnoredWithAWarning) {
  const Scene src = read_pie(strip_pie(2));
  // With polygon materials (docs/pie.md "Through Blender"), a channel that does not fit is no loss:
  // the materials give the polygons, the mesh extras the points.
  {
    std::vector<uint8_t> gltf = write_memory(src, Format::Gltf);
    json doc = json::parse(gltf.begin(), gltf.end());
    doc["meshes"][0]["extras"]["meshport"]["face_channels"][0]["data"].erase(0);
    const std::string text = doc.dump();
    Diagnostics d;
    Scene back = read_memory(bytes_of(text), Format::Gltf, "bad.gltf", &d);
    EXPECT_TRUE(d.items.empty()) << d.items.front().message;
    EXPECT_EQ(polygons_by_geometry(back), polygons_by_geometry(src));
    ASSERT_NE(pie::point_stream(back.meshes[0]), nullptr);
    Diagnostics w;
    write_pie(back, &w);
    EXPECT_TRUE(w.items.empty()) << w.items.front().message;
  }
  // Without them (the older writer: one primitive, the level's material without PIE extras).
  std::vector<uint8_t> gltf = write_memory(src, Format::Gltf);
  json doc = json::parse(gltf.begin(), gltf.end());
  {
    std::vector<uint8_t> one = write_memory([&] {
      Scene x = src;
      x.meshes[0].face_channels.clear();
      return x;
    }(), Format::Gltf);
    json single = json::parse(one.begin(), one.end());
    single["meshes"][0]["extras"] = doc["meshes"][0]["extras"];
    for (json& m : single["materials"]) m["extras"]["meshport"].erase("pie_polygon");
    doc = std::move(single);
  }
  doc["meshes"][0]["extras"]["meshport"]["face_channels"][0]["data"].erase(0);
  const std::string text = doc.dump();
  Diagnostics d;
  Scene back = read_memory(bytes_of(text), Format::Gltf, "bad.gltf", &d);
  EXPECT_TRUE(back.meshes[0].face_channels.empty());
  EXPECT_EQ(pie::point_stream(back.meshes[0]), nullptr);
  bool warned = false;
  for (const Diagnostic& x : d.items)
    warned = warned || x.message.find("meshes[0].extras.meshport.face_channels[0].data: has 3 values, 3 triangles "
                                      "of 1, but the primitive has 4 triangles") != std::string::npos;
  EXPECT_TRUE(warned);
  // The PIE writer says the flags are lost.
  Diagnostics w;
  write_pie(back, &w);
  ASSERT_FALSE(w.items.empty());
  EXPECT_NE(w.items[0].message.find("every polygon written as 200"), std::string::npos) << w.items[0].message;
}

// The format stream "pie.point" is not written as a glTF attribute nor into other formats.
TEST(PieLossless, PointStreamStaysOutOfOtherFormats) {
  const Scene src = read_pie(strip_pie(2));
  std::vector<uint8_t> gltf = write_memory(src, Format::Gltf);
  json doc = json::parse(gltf.begin(), gltf.end());
  for (auto& [key, value] : doc["meshes"][0]["primitives"][0]["attributes"].items()) EXPECT_EQ(key[0] == '_', false) << key;
  for (Format f : {Format::Iqe, Format::Obj}) {
    std::vector<uint8_t> out = write_memory(src, f);
    std::string text(out.begin(), out.end());
    EXPECT_EQ(text.find("pie.point"), std::string::npos);
  }
  Diagnostics d;
  Scene iqm = read_memory(write_memory(src, Format::Iqm, {}, &d), Format::Iqm, "m.iqm", &d);
  for (const VertexStream& st : iqm.meshes.at(0).streams) EXPECT_NE(st.attribute, Attribute::Custom) << st.name;
}

// ---- Duplicate points ------------------------------------------------------------------------

// Points 4 and 5 repeat points 0 and 2; polygon 2 uses the copies.
const char* kDuplicates =
    "PIE 3\n"
    "TYPE 200\n"
    "TEXTURE 0 page-1.png 256 256\n"
    "LEVELS 1\n"
    "LEVEL 1\n"
    "POINTS 6\n"
    "\t0 0 0\n"
    "\t10 0 0\n"
    "\t10 10 0\n"
    "\t0 10 0\n"
    "\t0 0 0\n"
    "\t10 10 0\n"
    "POLYGONS 2\n"
    "\t200 3 0 1 2 0 0 1 0 1 1\n"
    "\t200 3 4 5 3 0 0 1 1 0 1\n";

TEST(PieLossless, DuplicatePointsSurviveConvert) {
  testutil::TempDir dir;
  save(dir / "dup.pie", kDuplicates);
  const Scene src = read(dir / "dup.pie");
  for (const char* out : {"a.pie", "b.glb"}) {
    Diagnostics d;
    convert({dir / "dup.pie"}, dir / out, {}, &d);  // default processing: normals, tangents
  }
  EXPECT_EQ(testutil::slurp(dir / "a.pie"), kDuplicates);
  convert({dir / "b.glb"}, dir / "c.pie");
  EXPECT_EQ(testutil::slurp(dir / "c.pie"), kDuplicates);
  ConvertOptions o;
  o.process.weld = true;
  o.process.optimize = true;
  convert({dir / "dup.pie"}, dir / "d.pie", o);
  const Scene back = read(dir / "d.pie");
  EXPECT_EQ(back.pie->levels[0].points, src.pie->levels[0].points);
  EXPECT_EQ(back.meshes[0].vertex_count(), src.meshes[0].vertex_count());
  EXPECT_NE(testutil::slurp(dir / "d.pie").find("\t200 3 4 5 3 0 0 1 1 0 1\n"), std::string::npos);
}

// Every corpus PIE through `convert` (default processing) and back to PIE gives the same tokens:
// the same directives, counts, indices and numbers (compared as values) in the same order. The
// text differs only where meshport writes one spelling for many: tab indentation and single
// spaces (trailing spaces and tabs go), "\n" line breaks, the shortest float spelling ("-0" and
// "0." become 0, "1e-005" becomes 1e-05), and no comments other than a LEVEL line's.
TEST(PieLosslessCorpus, EveryFileRewritesToTheSameTokens) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  auto tokens = [](const std::string& text) {
    std::vector<std::vector<std::string>> lines;
    std::string t = text;
    for (char& c : t)
      if (c == '\r') c = '\n';
    std::istringstream in(t);
    std::string line;
    while (std::getline(in, line)) {
      std::string body = line.substr(0, line.find('#'));
      std::istringstream words(body);
      std::vector<std::string> w;
      for (std::string x; words >> x;) {
        char* end = nullptr;
        double v = std::strtod(x.c_str(), &end);
        bool number = end && *end == 0 && !x.empty() && (std::isdigit(uint8_t(x[0])) || x[0] == '-' || x[0] == '+');
        w.push_back(number ? fmt::format("{}", v == 0 ? 0.0 : v) : x);
      }
      if (!w.empty()) lines.push_back(w);
    }
    return lines;
  };
  size_t files = 0, identical = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(corpus("pie"))) {
    if (!e.is_regular_file() || e.path().extension() != ".pie") continue;
    SCOPED_TRACE(e.path().string());
    ++files;
    const std::string out = dir / "out.pie";
    Diagnostics d;
    convert({e.path().string()}, out, {}, &d);
    const std::string a = testutil::slurp(e.path()), b = testutil::slurp(out);
    EXPECT_EQ(tokens(a), tokens(b));
    identical += a == b;
    // Rewriting meshport's own text changes nothing.
    convert({out}, dir / "again.pie", {}, &d);
    EXPECT_EQ(testutil::slurp(dir / "again.pie"), b);
  }
  EXPECT_EQ(files, 42u);
  EXPECT_GE(identical, 10u);  // those already written in meshport's spelling come back byte for byte
}

// ---- Faceted normals -------------------------------------------------------------------------

// The normal of every corner of every triangle equals its triangle's face normal.
void expect_faceted(const Mesh& m) {
  const VertexStream* p = m.find(Attribute::Position);
  const VertexStream* n = m.find(Attribute::Normal);
  ASSERT_TRUE(p && n);
  size_t checked = 0;
  for (size_t t = 0; t + 2 < m.triangles.size(); t += 3) {
    double q[3][3];
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) q[c][k] = p->get(m.triangles[t + size_t(c)], uint32_t(k));
    double e1[3] = {q[1][0] - q[0][0], q[1][1] - q[0][1], q[1][2] - q[0][2]};
    double e2[3] = {q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]};
    double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double l = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (l == 0) continue;  // degenerate
    for (int c = 0; c < 3; ++c) {
      uint32_t v = m.triangles[t + size_t(c)];
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(n->get(v, uint32_t(k)), f[k] / l, 1e-5) << "triangle " << t / 3;
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(PieLossless, GeneratedNormalsAreFacetedAsTheEngineShades) {
  // A cube as mibuild1.pie has it (8 shared corners, no NORMALS): no corner normal (0.577, ...).
  std::string cube = "PIE 2\nTYPE 200\nTEXTURE 0 page-1.png 256 256\nLEVELS 1\nLEVEL 1\nPOINTS 8\n";
  for (int i = 0; i < 8; ++i) cube += fmt::format("\t{} {} {}\n", i & 1 ? 10 : -10, i & 2 ? 10 : -10, i & 4 ? 10 : -10);
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  cube += "POLYGONS 12\n";
  for (const auto& f : faces) {
    cube += fmt::format("\t200 3 {} {} {} 0 0 256 0 256 256\n", f[0], f[1], f[2]);
    cube += fmt::format("\t200 3 {} {} {} 0 0 256 256 0 256\n", f[0], f[2], f[3]);
  }
  testutil::TempDir dir;
  save(dir / "cube.pie", cube);
  convert({dir / "cube.pie"}, dir / "cube.glb");
  const Scene glb = read(dir / "cube.glb");
  expect_faceted(glb.meshes.at(0));
  EXPECT_EQ(glb.meshes[0].vertex_count(), 24u);  // 4 corners per side
  for (float v : glb.meshes[0].find(Attribute::Normal)->data) EXPECT_TRUE(v == 0 || v == 1 || v == -1) << v;
  // PIE -> PIE still writes no NORMALS for such a level.
  convert({dir / "cube.pie"}, dir / "back.pie");
  EXPECT_EQ(testutil::slurp(dir / "back.pie").find("NORMALS"), std::string::npos);
  EXPECT_EQ(testutil::slurp(dir / "back.pie"), cube);
  // --normal-angle style overrides still win: one angle for every face smooths the corners.
  Scene smooth = read(dir / "cube.pie");
  NormalOptions o;
  o.angle = 180.0f;
  generate_normals(smooth, o);
  EXPECT_NEAR(std::fabs(smooth.meshes[0].find(Attribute::Normal)->data[0]), 0.57735f, 1e-4f);
}

TEST(PieLosslessCorpus, BoxWithoutNormalsGetsFaceNormals) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const std::string box = corpus("pie/wz2100-4.5.5/base/structs/blbrbcr1.pie");
  ASSERT_EQ(testutil::slurp(box).find("NORMALS"), std::string::npos);
  convert({box}, dir / "box.glb");
  expect_faceted(read(dir / "box.glb").meshes.at(0));
  convert({box}, dir / "box.pie");
  EXPECT_EQ(testutil::slurp(dir / "box.pie").find("NORMALS"), std::string::npos);
  // A level with NORMALS keeps the file's normals (not faceted by meshport).
  const Scene with = read(corpus("pie/wz2100-4.5.5/base/features/mipipe1.pie"));
  for (const Mesh& m : with.meshes) EXPECT_TRUE(m.smoothing.face_angle.empty() == (m.find(Attribute::Normal) != nullptr));
}

// ---- INTERPOLATE 0 -> STEP -------------------------------------------------------------------

TEST(PieLosslessCorpus, Interpolate0IsAStepAnimationInGltf) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const std::string src = corpus("pie/wz2100-4.5.5/base/components/bodies/exbloke.pie");
  const Scene a = read(src);
  ASSERT_FALSE(a.animations.empty());
  for (const Animation& x : a.animations) EXPECT_EQ(x.interpolation, Interpolation::Step) << x.name;
  convert({src}, dir / "m.gltf");
  const json doc = json::parse(testutil::slurp(dir / "m.gltf"));
  size_t samplers = 0;
  for (const json& anim : doc["animations"])
    for (const json& s : anim["samplers"]) {
      EXPECT_EQ(s["interpolation"], "STEP");
      ++samplers;
    }
  EXPECT_GT(samplers, 0u);
  const Scene b = read(dir / "m.gltf");
  ASSERT_EQ(b.animations.size(), a.animations.size());
  for (size_t i = 0; i < a.animations.size(); ++i) {
    EXPECT_EQ(b.animations[i].interpolation, Interpolation::Step);
    EXPECT_EQ(b.animations[i].frame_count(), a.animations[i].frame_count());
  }
  convert({dir / "m.gltf"}, dir / "back.pie");
  convert({src}, dir / "direct.pie");
  const std::string back = testutil::slurp(dir / "back.pie");
  EXPECT_NE(back.find("\nINTERPOLATE 0\n"), std::string::npos);
  EXPECT_EQ(back, testutil::slurp(dir / "direct.pie"));
}

TEST(PieLossless, InterpolatePerLevelAndWithoutPieExtras) {
  const std::string text =
      "PIE 4\nTYPE 200\nTEXTURE 0 page-1.png\nLEVELS 2\n"
      "LEVEL 1\nINTERPOLATE 0\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n"
      "ANIMOBJECT 100 0 2\n\t0 0 0 0 0 0 0 1 1 1\n\t1 1000 0 0 0 0 0 1 1 1\n"
      "LEVEL 2\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n"
      "ANIMOBJECT 100 0 2\n\t0 0 0 0 0 0 0 1 1 1\n\t1 0 1000 0 0 0 0 1 1 1\n";
  Scene s = read_pie(text);
  ASSERT_EQ(s.animations.size(), 2u);  // same time, cycles and frames, but not the same INTERPOLATE
  EXPECT_EQ(s.animations[0].interpolation, Interpolation::Step);
  EXPECT_EQ(s.animations[1].interpolation, Interpolation::Linear);
  Scene g = through_glb(s);
  EXPECT_EQ(g.animations[0].interpolation, Interpolation::Step);
  EXPECT_EQ(g.animations[1].interpolation, Interpolation::Linear);
  EXPECT_EQ(write_pie(g), write_pie(s));
  // A Scene not from PIE whose animations all hold their frames gets INTERPOLATE 0.
  Scene plain = s;
  plain.pie.reset();
  plain.animations.pop_back();
  EXPECT_NE(write_pie(plain).find("TYPE 200\nINTERPOLATE 0\n"), std::string::npos) << write_pie(plain);
  plain.animations[0].interpolation = Interpolation::Linear;
  EXPECT_EQ(write_pie(plain).find("INTERPOLATE"), std::string::npos);
}

// A glTF STEP animation with evenly spaced keys (written by another tool: no meshport extras)
// comes back as those keys, one frame each, with Interpolation::Step.
TEST(PieLossless, GltfStepKeysBecomeFrames) {
  Scene s;
  Mesh m;
  m.name = "m";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 1, {0, 0, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  s.joints.push_back({"j", -1, {}});
  Animation a;
  a.name = "steps";
  a.framerate = 4;
  a.channels = 1;
  a.interpolation = Interpolation::Step;
  for (int f = 0; f < 5; ++f) {
    Transform t;
    t.translation = {float(f * f), 0, 0};
    a.poses.push_back(t);
  }
  s.animations.push_back(a);
  std::vector<uint8_t> gltf = write_memory(s, Format::Gltf);
  json doc = json::parse(gltf.begin(), gltf.end());
  doc["animations"][0].erase("extras");
  const std::string text = doc.dump();
  Scene back = read_memory(bytes_of(text), Format::Gltf, "step.gltf");
  ASSERT_EQ(back.animations.size(), 1u);
  const Animation& b = back.animations[0];
  EXPECT_EQ(b.interpolation, Interpolation::Step);
  EXPECT_FLOAT_EQ(b.framerate, 4.0f);
  ASSERT_EQ(b.frame_count(), 5u);
  for (size_t f = 0; f < 5; ++f) EXPECT_EQ(b.poses[f].translation, a.poses[f].translation) << f;
}

TEST(PieLossless, StepGltfPassesTheValidator) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  save(dir / "strip.pie", strip_pie(5));
  ConvertOptions o;
  o.process.optimize = true;
  convert({dir / "strip.pie"}, dir / "strip.glb", o);
  convert({corpus("pie/wz2100-4.5.5/base/components/bodies/exbloke.pie")}, dir / "exbloke.glb");
  std::string output;
  EXPECT_TRUE(testutil::validate_gltf({dir / "strip.glb", dir / "exbloke.glb"}, output)) << output;
}

}  // namespace meshport_test_pie_lossless
