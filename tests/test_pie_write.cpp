// PIE writer (src/formats/pie/pie_write.cpp; docs/pie.md, "Out of the Scene"): exact text for
// hand-built Scenes, every error and warning, and round trips over the PIE corpus.
#include "formats/pie/pie.h"
#include "formats/pie/pie_common.h"
#include "test_util.h"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <map>
#include <tuple>

namespace meshport_test_pie_write {

using namespace meshport;
using testutil::float_stream;

namespace {

using Point = std::array<float, 3>;

// ---- Scenes as the PIE reader makes them (docs/pie.md, "Into the Scene") ----------------------

struct Poly {
  std::array<uint32_t, 3> idx;
  std::array<float, 6> uv;
  PiePolygon pie{};
  std::array<float, 9> normals{};  // file axes, corners a b c (used when the level has normals)
};

// A float stream as the PIE reader makes it (no declared size).
VertexStream pie_stream(Attribute a, uint32_t components, std::vector<float> data) {
  VertexStream s = float_stream(a, components, std::move(data));
  s.source_size = 0;
  return s;
}

// A PIE Scene of `version` with TYPE 200 and page-1.png (256 x 256) as its only page.
Scene pie_scene(int version) {
  Scene s;
  s.pie.emplace().version = version;
  s.pie->global.has_type = true;
  s.pie->global.type = 0x200;
  PieTexture t;
  t.file = "page-1.png";
  t.has_size = true;
  t.width = t.height = 256;
  s.pie->global.textures.push_back(t);
  s.materials.push_back(testutil::material("page-1", "page-1.png"));
  return s;
}

// The polygons of level L (its mesh's "pie.flags" / "pie.texanim" face channels).
std::vector<PiePolygon> level_polygons(const Scene& s, const PieLevel& L) {
  return L.mesh < 0 ? std::vector<PiePolygon>{} : pie::mesh_polygons(s.meshes.at(size_t(L.mesh)));
}
void set_polygons(Scene& s, const PieLevel& L, const std::vector<PiePolygon>& polygons) {
  s.meshes.at(size_t(L.mesh)).face_channels = pie::polygon_channels(polygons);
}
// The point of each vertex of level L (its mesh's "pie.point" stream).
std::vector<uint32_t> vertex_points(const Scene& s, const PieLevel& L) {
  std::vector<uint32_t> out;
  if (L.mesh < 0) return out;
  if (const VertexStream* p = pie::point_stream(s.meshes.at(size_t(L.mesh))))
    for (float f : p->data) out.push_back(uint32_t(f));
  return out;
}

// Appends a level: corners become Scene vertices (equal point, uv and normal triples shared, in
// order of first use), Z mirrored, winding reversed. No polygons: an empty level.
PieLevel& add_level(Scene& s, std::vector<Point> points, std::vector<Poly> polys, bool normals = false) {
  PieLevel L;
  L.points = points;
  L.normals = normals;
  if (!polys.empty()) {
    Mesh m;
    m.name = fmt::format("model_level{}", s.pie->levels.size() + 1);
    m.material = s.materials.empty() ? -1 : 0;
    VertexStream pos = pie_stream(Attribute::Position, 3, {});
    VertexStream uv = pie_stream(Attribute::Texcoord, 2, {});
    VertexStream nrm = pie_stream(Attribute::Normal, 3, {});
    VertexStream point = pie_stream(Attribute::Custom, 1, {});
    point.name = "pie.point";
    std::vector<PiePolygon> polygons;
    std::map<std::tuple<uint32_t, float, float, float, float, float>, uint32_t> ids;
    for (const Poly& p : polys) {
      std::array<uint32_t, 3> tri{};
      for (size_t c = 0; c < 3; ++c) {
        Point n = normals ? pie::point_to_scene({p.normals[c * 3], p.normals[c * 3 + 1], p.normals[c * 3 + 2]})
                          : Point{0, 0, 0};
        auto key = std::make_tuple(p.idx[c], p.uv[c * 2], p.uv[c * 2 + 1], n[0], n[1], n[2]);
        auto [it, added] = ids.try_emplace(key, uint32_t(point.data.size()));
        if (added) {
          point.data.push_back(float(p.idx[c]));
          Point q = pie::point_to_scene(points[p.idx[c]]);
          pos.data.insert(pos.data.end(), q.begin(), q.end());
          uv.data.insert(uv.data.end(), {p.uv[c * 2], p.uv[c * 2 + 1]});
          nrm.data.insert(nrm.data.end(), n.begin(), n.end());
        }
        tri[c] = it->second;
      }
      m.triangles.insert(m.triangles.end(), {tri[0], tri[2], tri[1]});
      polygons.push_back(p.pie);
    }
    m.streams.push_back(std::move(pos));
    m.streams.push_back(std::move(uv));
    if (normals) m.streams.push_back(std::move(nrm));
    m.streams.push_back(std::move(point));
    m.face_channels = pie::polygon_channels(polygons);
    if (!normals) m.smoothing.face_angle.assign(polygons.size(), 0.0f);
    L.mesh = int32_t(s.meshes.size());
    s.meshes.push_back(std::move(m));
  }
  s.pie->levels.push_back(std::move(L));
  return s.pie->levels.back();
}

// One triangle (0 1 2) of three points.
Scene one_triangle(int version) {
  Scene s = pie_scene(version);
  add_level(s, {{0, 0, 1}, {1, 0, 2}, {0, 1, 3}, {5, 5, 5}}, {{{0, 1, 2}, {0.5f, 0.25f, 1, 0, 0, 1}}});
  return s;
}

// Binds level `li`'s mesh to a new root joint and gives it the animation ANIMOBJECT `ao` makes.
void animate(Scene& s, size_t li, const PieAnimObject& ao) {
  PieLevel& L = s.pie->levels[li];
  L.has_animobject = true;
  L.animobject = ao;
  L.joint = int32_t(s.joints.size());
  s.joints.push_back({fmt::format("model_level{}", li + 1), -1, {}});
  if (L.mesh >= 0) {
    Mesh& m = s.meshes[size_t(L.mesh)];
    m.streams.push_back(pie_stream(Attribute::BlendIndices, 1, std::vector<float>(m.vertex_count(), float(L.joint))));
    m.streams.push_back(pie_stream(Attribute::BlendWeights, 1, std::vector<float>(m.vertex_count(), 1.0f)));
  }
  Animation a;
  a.name = "model";
  a.framerate = float(1000.0 / ao.time);
  a.loop = ao.cycles == 0;
  a.channels = uint32_t(s.joints.size());
  a.poses.assign(ao.frames.size() * a.channels, Transform{});
  for (size_t f = 0; f < ao.frames.size(); ++f) a.poses[f * a.channels + size_t(L.joint)] = pie::frame_to_scene(ao.frames[f]);
  s.animations.push_back(std::move(a));
}

// ---- Helpers ----------------------------------------------------------------------------------

std::string write_pie(const Scene& s, int version = 0, Diagnostics* d = nullptr) {
  WriteOptions o;
  o.pie_version = version;
  std::vector<uint8_t> bytes = write_memory(s, Format::Pie, o, d);
  return std::string(bytes.begin(), bytes.end());
}

Scene read_pie(const std::string& text, const std::string& name = "model.pie", Diagnostics* d = nullptr) {
  return read_memory(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()), Format::Pie,
                     name, d);
}

// The message of the error writing `s` throws ("" when it does not).
std::string write_error(const Scene& s, int version = 0) {
  try {
    write_pie(s, version);
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "";
}

std::string warnings_of(const Diagnostics& d) {
  std::string all;
  for (const Diagnostic& x : d.items) {
    EXPECT_EQ(x.severity, Severity::Warning) << x.message;
    all += x.message + "\n";
  }
  return all;
}

// Mesh m of a non-PIE Scene from positions and texture coordinates.
Mesh plain_mesh(std::string name, std::vector<float> pos, std::vector<float> uv, std::vector<uint32_t> tris,
                int32_t material = -1) {
  Mesh m;
  m.name = std::move(name);
  m.material = material;
  m.streams.push_back(float_stream(Attribute::Position, 3, std::move(pos)));
  m.streams.push_back(float_stream(Attribute::Texcoord, 2, std::move(uv)));
  m.triangles = std::move(tris);
  return m;
}

const char* kHead3 = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 256 256\nLEVELS 1\nLEVEL 1\n";
const char* kPoints = "POINTS 4\n\t0 0 1\n\t1 0 2\n\t0 1 3\n\t5 5 5\n";

// ---- Versions and texture coordinates --------------------------------------------------------

TEST(PieWrite, Pie3FloatsPie2IntegersPie4) {
  Scene s = one_triangle(3);
  Diagnostics d;
  EXPECT_EQ(write_pie(s, 0, &d), std::string(kHead3) + kPoints + "POLYGONS 1\n\t200 3 0 1 2 0.5 0.25 1 0 0 1\n");
  EXPECT_TRUE(d.items.empty());
  EXPECT_EQ(write_pie(s, 2), "PIE 2\nTYPE 200\nTEXTURE 0 page-1.png 256 256\nLEVELS 1\nLEVEL 1\n" + std::string(kPoints) +
                                 "POLYGONS 1\n\t200 3 0 1 2 128 64 256 0 0 256\n");
  EXPECT_EQ(write_pie(s, 4), "PIE 4\nTYPE 200\nTEXTURE 0 page-1.png 256 256\nLEVELS 1\nLEVEL 1\n" + std::string(kPoints) +
                                 "POLYGONS 1\n\t200 3 0 1 2 0.5 0.25 1 0 0 1\n");
}

TEST(PieWrite, VersionComesFromOptionsThenSceneThenFour) {
  Scene s = one_triangle(2);
  EXPECT_EQ(write_pie(s).substr(0, 6), "PIE 2\n");
  EXPECT_EQ(write_pie(s, 3).substr(0, 6), "PIE 3\n");
  s.pie.reset();
  EXPECT_EQ(write_pie(s).substr(0, 6), "PIE 4\n");
  for (int v : {1, 5, -1}) EXPECT_EQ(write_error(s, v), fmt::format("PIE version {} cannot be written: use 2, 3 or 4", v));
  s = one_triangle(7);
  EXPECT_EQ(write_error(s), "PIE version 7 cannot be written: use 2, 3 or 4");
}

TEST(PieWrite, ShortestFloatsAndNegativeZero) {
  Scene s = pie_scene(3);
  add_level(s, {{-5e-07f, 1.5e-06f, -0.0f}, {0.1f, -3.72529e-07f, 128}, {1e10f, 0, 0}},
            {{{0, 1, 2}, {0.111111f, -0.5f, 1.00000012f, 12.25f, 0, 0}}});
  EXPECT_EQ(write_pie(s), std::string(kHead3) +
                              "POINTS 3\n\t-5e-07 1.5e-06 0\n\t0.1 -3.72529e-07 128\n\t1e+10 0 0\n"
                              "POLYGONS 1\n\t200 3 0 1 2 0.111111 -0.5 1.0000001 12.25 0 0\n");
}

TEST(PieWrite, Pie2RoundingWarnsWhenCoordinatesMove) {
  Scene s = pie_scene(3);
  add_level(s, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{{0, 1, 2}, {0.1f, 0.5f, 0.75f, 1, 0, 0}}});
  Diagnostics d;
  std::string text = write_pie(s, 2, &d);
  EXPECT_NE(text.find("\t200 3 0 1 2 26 128 192 256 0 0\n"), std::string::npos) << text;
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].message, "level 1: 1 texture coordinates or frame sizes move by up to 0.001562 when rounded to "
                                "PIE 2's steps of 1/256");
  // Exact multiples of 1/256 (and float noise below 1/65536) do not warn.
  s.meshes[0].streams[1].data = {0.25f, 0.5f, 0.75f, 1, 0, 1.0f / 256 + 1e-7f};
  Diagnostics quiet;
  EXPECT_NE(write_pie(s, 2, &quiet).find("\t200 3 0 1 2 64 128 192 256 0 1\n"), std::string::npos);
  EXPECT_TRUE(quiet.items.empty());
}

// ---- Winding, points, normals ----------------------------------------------------------------

TEST(PieWrite, WindingReversedAndPointsWeldedInFirstUse) {
  // A mesh from another format: Scene triangle (a, b, c) is PIE polygon (a, c, b); points are
  // the positions (Z negated) welded in the order the PIE corners first use them.
  Scene s;
  s.meshes.push_back(plain_mesh("tri",
                                {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, -1, 1, 0, 0},
                                {0, 0, 1, 0, 0, 1, 1, 1, 0.5f, 0.5f}, {0, 1, 2, 0, 2, 3, 4, 2, 0}));
  Diagnostics d;
  EXPECT_EQ(write_pie(s, 0, &d),
            "PIE 4\nTYPE 200\nLEVELS 1\nLEVEL 1\nPOINTS 4\n\t0 0 0\n\t0 1 0\n\t1 0 0\n\t1 0 1\nPOLYGONS 3\n"
            "\t200 3 0 1 2 0 0 0 1 1 0\n\t200 3 0 3 1 0 0 1 1 0 1\n\t200 3 2 0 1 0.5 0.5 0 0 0 1\n");
  EXPECT_EQ(warnings_of(d), "no material has a texture: written without a TEXTURE line\n");
}

TEST(PieWrite, RestoresTheOriginalPointList) {
  // Duplicate point 3 (= point 0) and unused point 4 are kept; the polygon names point 3.
  Scene s = pie_scene(3);
  add_level(s, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {9, 9, 9}}, {{{3, 1, 2}, {0, 0, 1, 0, 0, 1}}});
  const std::string points = "POINTS 5\n\t0 0 0\n\t1 0 0\n\t0 1 0\n\t0 0 0\n\t9 9 9\n";
  EXPECT_EQ(write_pie(s), kHead3 + points + "POLYGONS 1\n\t200 3 3 1 2 0 0 1 0 0 1\n");
  // Scene vertex 1 is point 1 (corner b). Moving it onto point 2's
  // position matches the first point there; moving it elsewhere appends a point.
  Mesh& m = s.meshes[0];
  ASSERT_EQ(vertex_points(s, s.pie->levels[0]), (std::vector<uint32_t>{3, 1, 2}));
  m.streams[0].data[1 * 3 + 0] = 0;
  m.streams[0].data[1 * 3 + 1] = 1;
  EXPECT_EQ(write_pie(s), kHead3 + points + "POLYGONS 1\n\t200 3 3 2 2 0 0 1 0 0 1\n");
  m.streams[0].data[1 * 3 + 2] = -7;
  EXPECT_EQ(write_pie(s), kHead3 + std::string("POINTS 6") + points.substr(8) + "\t0 1 7\n" +
                              "POLYGONS 1\n\t200 3 3 5 2 0 0 1 0 0 1\n");
  // Without the "pie.point" stream (a mesh edited elsewhere) positions are matched.
  m.streams.pop_back();
  m.streams[0].data[1 * 3 + 2] = 0;
  EXPECT_EQ(write_pie(s), kHead3 + points + "POLYGONS 1\n\t200 3 0 2 2 0 0 1 0 0 1\n");
}

TEST(PieWrite, NormalsOnlyWhenTheLevelHadThem) {
  Scene s = pie_scene(3);
  Poly p{{0, 1, 2}, {0, 0, 1, 0, 0, 1}};
  p.normals = {0, 0, 1, 0, 1, 0, 1, 0, -0.5f};
  add_level(s, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {p}, true);
  const std::string points = "POINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\n";
  const std::string polys = "POLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n";
  EXPECT_EQ(write_pie(s), kHead3 + points + "NORMALS 1\n\t0 0 1 0 1 0 1 0 -0.5\n" + polys);
  // Normals generated later (convert) are not written into a level that had none.
  s.pie->levels[0].normals = false;
  EXPECT_EQ(write_pie(s), kHead3 + points + polys);
  // A level that had NORMALS but lost its normal stream: left out, with a warning.
  s.pie->levels[0].normals = true;
  std::erase_if(s.meshes[0].streams, [](const VertexStream& st) { return st.attribute == Attribute::Normal; });
  Diagnostics d;
  EXPECT_EQ(write_pie(s, 0, &d), kHead3 + points + polys);
  EXPECT_EQ(warnings_of(d), "level 1 had NORMALS but mesh \"model_level1\" has no normals: left out\n");
  // A mesh from another format: normals whenever it has a normal stream.
  Scene o;
  o.meshes.push_back(plain_mesh("m", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, {0, 1, 2}));
  o.meshes[0].streams.push_back(float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0.6f, 0, 0.8f}));
  std::string text = write_pie(o);
  EXPECT_NE(text.find("NORMALS 1\n\t0 0 -1 0.6 0 -0.8 0 0 -1\nPOLYGONS 1\n\t200 3 0 1 2 0 0 0 1 1 0\n"), std::string::npos)
      << text;
}

// ---- Polygons: flags and texture animation ---------------------------------------------------

TEST(PieWrite, TextureAnimationBlock) {
  Scene s = pie_scene(3);
  Poly p{{0, 1, 2}, {0.9375f, 0.19140625f, 0.98046875f, 0.19140625f, 0.98046875f, 0.109375f}};
  p.pie = {0x4200, 2, 333, 0.125f, 0.125f};
  add_level(s, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {p, {{2, 1, 0}, {0, 0, 0, 0, 0, 0}}});
  std::string pie3 = write_pie(s);
  EXPECT_NE(pie3.find("POLYGONS 2\n\t4200 3 0 1 2 2 333 0.125 0.125 0.9375 0.19140625 0.98046875 0.19140625 0.98046875 "
                      "0.109375\n\t200 3 2 1 0 0 0 0 0 0 0\n"),
            std::string::npos)
      << pie3;
  std::string pie2 = write_pie(s, 2);
  EXPECT_NE(pie2.find("\t4200 3 0 1 2 2 333 32 32 240 49 251 49 251 28\n"), std::string::npos) << pie2;
  // Flags that no longer match the triangles: every polygon 200, with a warning.
  s.meshes[0].face_channels[0].data.pop_back();
  Diagnostics d;
  std::string text = write_pie(s, 0, &d);
  EXPECT_NE(text.find("\t200 3 0 1 2 0.9375"), std::string::npos) << text;
  EXPECT_EQ(warnings_of(d), "level 1: the polygon flags of mesh \"model_level1\" (face channel \"pie.flags\") do not "
                            "match its triangles: every polygon written as 200\n");
}

// ---- Header, levels, overrides ----------------------------------------------------------------

Scene full_pie4() {
  Scene s = pie_scene(4);
  PieSettings& g = s.pie->global;
  g.type = 0x10200;
  g.has_interpolate = true;
  g.interpolate = 0;
  g.textures[0].has_size = false;
  g.textures[0].width = g.textures[0].height = 0;
  PieTexture t;
  t.kind = PieTexture::Kind::TcMask;
  t.file = "page-1_tcmask.png";
  g.textures.push_back(t);
  t.kind = PieTexture::Kind::Texture;
  t.tileset = 1;
  t.file = "page-1-urban.png";
  t.has_size = true;
  t.width = 512;
  t.height = 1024;
  g.textures.push_back(t);
  t = {};
  t.kind = PieTexture::Kind::NormalMap;
  t.file = "page-1_nm.png";
  g.textures.push_back(t);
  t.kind = PieTexture::Kind::SpecularMap;
  t.tileset = 2;
  t.file = "page-1_sm.png";
  g.textures.push_back(t);
  s.pie->events = {{1, "model_anim.pie"}, {3, "die.pie"}};
  add_level(s, {}, {});  // empty level 1
  PieLevel& L = add_level(s, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{{0, 1, 2}, {0, 0, 1, 0, 0, 1}}});
  L.comment = "muzzle flash";
  L.overrides.has_type = true;
  L.overrides.type = 0x200;
  t = {};
  t.file = "page-21-fx.png";
  L.overrides.textures.push_back(t);
  L.materials = {"1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 20"};
  L.shaders = {"2 vertex.vert fragment.frag"};
  L.has_shadow_points = true;
  L.shadow_points = {{0, 0, 0}, {1, 0, 0}, {0, 1.5f, 0}};
  L.has_shadow_polygons = true;
  L.shadow_polygons = {{0, 2, 1}};
  add_level(s, {{2, 3, 4}}, {});  // empty level 3 with a point
  return s;
}

const char* kFull4 =
    "PIE 4\nTYPE 10200\nINTERPOLATE 0\nTEXTURE 0 page-1.png\nTCMASK 0 page-1_tcmask.png\n"
    "TEXTURE 1 page-1-urban.png 512 1024\nNORMALMAP 0 page-1_nm.png\nSPECULARMAP 2 page-1_sm.png\n"
    "EVENT 1 model_anim.pie\nEVENT 3 die.pie\nLEVELS 3\n"
    "LEVEL 1\nPOINTS 0\nPOLYGONS 0\n"
    "LEVEL 2 # muzzle flash\nTYPE 200\nTEXTURE 0 page-21-fx.png\nMATERIALS 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 20\n"
    "SHADERS 2 vertex.vert fragment.frag\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n"
    "SHADOWPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1.5 0\nSHADOWPOLYGONS 1\n\t0 3 0 2 1\n"
    "LEVEL 3\nPOINTS 1\n\t2 3 4\nPOLYGONS 0\n";

TEST(PieWrite, HeaderEventsOverridesEmptyLevelsShadows) {
  Scene s = full_pie4();
  Diagnostics d;
  EXPECT_EQ(write_pie(s, 0, &d), kFull4);
  EXPECT_TRUE(d.items.empty()) << warnings_of(d);
}

TEST(PieWrite, Pie4FeaturesInPie3Warn) {
  Scene s = full_pie4();
  Diagnostics d;
  std::string text = write_pie(s, 3, &d);
  EXPECT_EQ(text, "PIE 3" + std::string(kFull4).substr(5));
  EXPECT_EQ(warnings_of(d),
            "TCMASK is PIE 4 only: written into PIE 3 anyway; engines before 4.4 reject it\n"
            "texture pages for tilesets 1 and 2 are PIE 4 only: written into PIE 3 anyway; engines before 4.4 reject "
            "them\n"
            "level 2: per-level TYPE, INTERPOLATE and texture lines are PIE 4 only: written into PIE 3 anyway; engines "
            "before 4.4 reject them\n");
}

TEST(PieWrite, LineBreaksInFreeTextBecomeSpaces) {
  Scene s = one_triangle(4);
  s.pie->levels[0].comment = "two\nlines";
  Diagnostics d;
  EXPECT_NE(write_pie(s, 0, &d).find("LEVEL 1 # two lines\n"), std::string::npos);
  EXPECT_EQ(warnings_of(d), "the comment of level 1 has a line break, which PIE cannot hold: written with a space\n");
}

// ---- Connectors ------------------------------------------------------------------------------

TEST(PieWrite, ConnectorsFromAttachments) {
  Scene s = one_triangle(3);
  add_level(s, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{{0, 1, 2}, {0, 0, 1, 0, 0, 1}}});
  // Scene (x, y, z) -> connector (x, -z, y); level 2's first, then level 1's, in Scene order.
  s.attachments.push_back({"model_level2_connector1", 1, -1, {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}}});
  s.attachments.push_back({"model_level1_connector1", 0, -1, {{-39, 150, 65}, {0, 0, 0, 1}, {1, 1, 1}}});
  s.attachments.push_back({"model_level1_connector2", 0, -1, {{0.5f, 0, -0.25f}, {0, 0, 0, 1}, {1, 1, 1}}});
  Diagnostics d;
  std::string text = write_pie(s, 0, &d);
  EXPECT_NE(text.find("POLYGONS 1\n\t200 3 0 1 2 0.5 0.25 1 0 0 1\nCONNECTORS 2\n\t-39 -65 150\n\t0.5 0.25 0\nLEVEL 2\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(text.ends_with("POLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\nCONNECTORS 1\n\t1 -3 2\n")) << text;
  EXPECT_TRUE(d.items.empty());
}

TEST(PieWrite, ConnectorsOfNoLevelRotatedOrJointRelative) {
  Scene s;
  s.materials.push_back(testutil::material("m", "page-9.png"));
  s.meshes.push_back(plain_mesh("a", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, {0, 1, 2}, 0));
  s.joints.push_back({"root", -1, {{0, 10, 0}, {0, 0, 0, 1}, {1, 1, 1}}});
  s.joints.push_back({"child", 0, {{1, 0, 0}, {0, 0, 0, 1}, {2, 2, 2}}});
  s.attachments.push_back({"loose", -1, -1, {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}}});
  s.attachments.push_back({"on child", -1, 1, {{1, 1, 1}, {0, 0.70710677f, 0, 0.70710677f}, {1, 1, 1}}});
  Diagnostics d;
  std::string text = write_pie(s, 0, &d);
  // child's rest in model space: T(1, 10, 0) S(2): (1, 1, 1) -> (3, 12, 2) -> connector (3, -2, 12).
  EXPECT_TRUE(text.ends_with("CONNECTORS 2\n\t1 -3 2\n\t3 -2 12\n")) << text;
  EXPECT_EQ(warnings_of(d),
            "attachment \"loose\" belongs to no level: written as a connector of level 1\n"
            "attachment \"on child\" belongs to no level: written as a connector of level 1\n"
            "attachment \"on child\": its rotation and scale are left out (PIE connectors are points)\n");
}

TEST(PieWrite, ConnectorOfAnEmptyLevelStaysThere) {
  Scene s = one_triangle(3);
  add_level(s, {}, {});
  s.attachments.push_back({"model_level2_connector1", -1, -1, {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}}});
  Diagnostics d;
  std::string text = write_pie(s, 0, &d);
  EXPECT_TRUE(text.ends_with("LEVEL 2\nPOINTS 0\nPOLYGONS 0\nCONNECTORS 1\n\t1 -3 2\n")) << text;
  EXPECT_TRUE(d.items.empty());
}

// ---- ANIMOBJECT ------------------------------------------------------------------------------

PieAnimObject two_frames() {
  PieAnimObject ao;
  ao.time = 15;
  ao.cycles = 0;
  ao.frames = {{0, {-1471, 3429, -2110}, {10370, -4069, -157121}, {1, 1, 1}},
               {1, {1, 2, 3}, {0, 0, 0}, {-1, -1, -1}}};
  return ao;
}

TEST(PieWrite, AnimObjectRawWhileThePosesMatch) {
  Scene s = one_triangle(3);
  animate(s, 0, two_frames());
  const std::string raw = "ANIMOBJECT 15 0 2\n\t0 -1471 3429 -2110 10370 -4069 -157121 1 1 1\n\t1 1 2 3 0 0 0 -1 -1 -1\n";
  EXPECT_TRUE(write_pie(s).ends_with(raw)) << write_pie(s);
  // cycles other than 0 and 1 survive as long as the animation does not loop.
  s.pie->levels[0].animobject.cycles = 3;
  s.animations[0].loop = false;
  EXPECT_TRUE(write_pie(s).ends_with("ANIMOBJECT 15 3 2\n" + raw.substr(raw.find('\n') + 1)));
  // A rotation stored negated (glTF keeps w >= 0) is the same pose.
  for (float& c : s.animations[0].poses[0].rotation) c = -c;
  EXPECT_TRUE(write_pie(s).ends_with("ANIMOBJECT 15 3 2\n" + raw.substr(raw.find('\n') + 1)));
}

TEST(PieWrite, AnimObjectDerivedWhenThePosesChanged) {
  Scene s = one_triangle(3);
  animate(s, 0, two_frames());
  // Frame 0: 90 degrees about Scene X; frame 1 (scale 0: not drawn) stays as it was.
  s.animations[0].poses[0] = {{0, 0, 0}, {0.70710677f, 0, 0, 0.70710677f}, {1, 1, 1}};
  EXPECT_TRUE(write_pie(s).ends_with("ANIMOBJECT 15 0 2\n\t0 0 0 0 90000 0 0 1 1 1\n\t1 1 2 3 0 0 0 -1 -1 -1\n"))
      << write_pie(s);
  // Translation (x, y, z) -> (x, -z, y) thousandths; Scene Euler (x, y, z) -> (x, -z, y).
  s.animations[0].poses[1] = {{1, 2.5f, -0.25f}, pie::frame_to_scene({1, {0, 0, 0}, {10000, 20000, 30000}, {1, 1, 1}}).rotation,
                              {1, 2, 0.5f}};
  EXPECT_TRUE(write_pie(s).ends_with("\t1 1000 250 2500 10000 20000 30000 1 2 0.5\n")) << write_pie(s);
  // A new frame rate: the raw time no longer holds either.
  s = one_triangle(3);
  animate(s, 0, two_frames());
  s.animations[0].framerate = 12;
  // Frame 0's angles come back in euler_xyz_from_quat's ranges (y within +-90): the same rotation.
  EXPECT_TRUE(write_pie(s).ends_with("ANIMOBJECT 83 0 2\n\t0 -1471 3429 -2110 -169630 175931 -22879 1 1 1\n"
                                     "\t1 1 2 3 0 0 0 -1 -1 -1\n"))
      << write_pie(s);
  Quat a = pie::frame_to_scene(two_frames().frames[0]).rotation;
  Quat b = pie::frame_to_scene({0, {-1471, 3429, -2110}, {-169630, 175931, -22879}, {1, 1, 1}}).rotation;
  float sign = a[3] * b[3] + a[0] * b[0] + a[1] * b[1] + a[2] * b[2] < 0 ? -1.0f : 1.0f;
  for (size_t c = 0; c < 4; ++c) EXPECT_NEAR(a[c], sign * b[c], 2e-5f);
  // No animation moves the joint any more: no ANIMOBJECT.
  s.animations.clear();
  EXPECT_EQ(write_pie(s).find("ANIMOBJECT"), std::string::npos);
}

TEST(PieWrite, AnimObjectOfAnEmptyLevelIsKept) {
  Scene s = one_triangle(3);
  add_level(s, {}, {});
  animate(s, 1, two_frames());
  EXPECT_TRUE(write_pie(s).ends_with("LEVEL 2\nPOINTS 0\nPOLYGONS 0\nANIMOBJECT 15 0 2\n"
                                     "\t0 -1471 3429 -2110 10370 -4069 -157121 1 1 1\n\t1 1 2 3 0 0 0 -1 -1 -1\n"));
}

// A mesh of another format rigidly bound to joint 1 ("arm", rest T(0, 1, 0) under a root).
Scene rigid_arm(float framerate, bool loop) {
  Scene s;
  s.materials.push_back(testutil::material("skin", "textures/page-5.png"));
  s.meshes.push_back(plain_mesh("arm", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, {0, 1, 2}, 0));
  s.meshes[0].streams.push_back(float_stream(Attribute::BlendIndices, 2, {1, 0, 1, 0, 1, 0}));
  s.meshes[0].streams.push_back(float_stream(Attribute::BlendWeights, 2, {1, 0, 1, 0, 1, 0}));
  s.joints.push_back({"root", -1, {}});
  s.joints.push_back({"arm", 0, {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}});
  Animation idle{"idle", 30, true, 2, {}, {}, {}};
  idle.poses.assign(4, Transform{});
  idle.poses[1] = s.joints[1].rest;
  idle.poses[3] = s.joints[1].rest;
  Animation swing{"swing", framerate, loop, 2, {}, {}, {}};
  swing.poses.assign(4, Transform{});
  swing.poses[1] = s.joints[1].rest;
  swing.poses[3] = {{0, 1, 0}, {0.70710677f, 0, 0, 0.70710677f}, {1, 1, 1}};
  s.animations = {idle, swing};
  return s;
}

TEST(PieWrite, AnimObjectDerivedForARigidlyBoundMesh) {
  // Frame 1 turns the arm 90 degrees about X around (0, 1, 0): the model-space motion is
  // translation (0, 1, -1), rotation X 90. "idle" does not move the arm: "swing" is used.
  Diagnostics d;
  std::string text = write_pie(rigid_arm(12, true), 0, &d);
  EXPECT_TRUE(text.ends_with("POLYGONS 1\n\t200 3 0 1 2 0 0 0 1 1 0\n"
                             "ANIMOBJECT 83 0 2\n\t0 0 0 0 0 0 0 1 1 1\n\t1 0 1000 1000 90000 0 0 1 1 1\n"))
      << text;
  EXPECT_NE(text.find("TEXTURE 0 page-5.png\n"), std::string::npos);
  EXPECT_TRUE(d.items.empty()) << warnings_of(d);
  // No frame rate: 30 per second; not looping: 1 cycle.
  text = write_pie(rigid_arm(0, false));
  EXPECT_NE(text.find("ANIMOBJECT 33 1 2\n"), std::string::npos) << text;
}

TEST(PieWrite, SkinningToSeveralJointsIsDropped) {
  Diagnostics d;
  Scene s = read(MESHPORT_TEST_DATA "/cli/skinned.iqe", {}, &d);
  d.items.clear();
  std::string text = write_pie(s, 0, &d);
  EXPECT_EQ(warnings_of(d), "2 vertices have more than 1 joint influence: the largest is kept, renormalised; pie "
                            "holds 1 per vertex ('hinge': 2)\n"
                            "mesh \"hinge\" is skinned to several joints, which PIE cannot hold: written in its rest "
                            "pose without animation\n");
  EXPECT_EQ(text.find("ANIMOBJECT"), std::string::npos);
  EXPECT_TRUE(text.starts_with("PIE 4\nTYPE 200\nTEXTURE 0 hinge.png\nLEVELS 1\n")) << text;
  EXPECT_NE(text.find("POINTS 6\n"), std::string::npos);
  EXPECT_NE(text.find("NORMALS 4\n"), std::string::npos);
  EXPECT_NE(text.find("POLYGONS 4\n"), std::string::npos);
}

// ---- Textures of a Scene not from PIE --------------------------------------------------------

Scene two_pages() {
  Scene s;
  s.materials = {testutil::material("a", "tex/a.png"), testutil::material("b", "C:\\art\\b.png"), testutil::material("a2", "a.png"), testutil::material("plain", "")};
  for (int32_t mat : {3, 0, 1, 2})
    s.meshes.push_back(plain_mesh(fmt::format("m{}", mat), {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, {0, 1, 2}, mat));
  s.meshes.push_back(plain_mesh("no triangles", {0, 0, 0}, {0, 0}, {}, 1));
  return s;
}

TEST(PieWrite, FirstTexturedMaterialIsThePagePie4OverridesTheOthers) {
  std::string text = write_pie(two_pages());
  EXPECT_TRUE(text.starts_with("PIE 4\nTYPE 200\nTEXTURE 0 a.png\nLEVELS 4\nLEVEL 1\nPOINTS")) << text;
  EXPECT_NE(text.find("LEVEL 2\nPOINTS"), std::string::npos);
  EXPECT_NE(text.find("LEVEL 3\nTEXTURE 0 b.png\nPOINTS"), std::string::npos);
  EXPECT_NE(text.find("LEVEL 4\nPOINTS"), std::string::npos);
  EXPECT_EQ(text.find("LEVEL 5"), std::string::npos);
  EXPECT_EQ(write_error(two_pages(), 3),
            "mesh \"m1\" uses texture page \"b.png\" but the model's page is \"a.png\": PIE 3 has one page per model "
            "(PIE 4 can give each level its own)");
  EXPECT_NE(write_error(two_pages(), 2).find("PIE 2 has one page per model"), std::string::npos);
}

TEST(PieWrite, NoTrianglesAtAllIsOneEmptyLevel) {
  Scene s;
  Diagnostics d;
  EXPECT_EQ(write_pie(s, 0, &d), "PIE 4\nTYPE 200\nLEVELS 1\nLEVEL 1\nPOINTS 0\nPOLYGONS 0\n");
  EXPECT_EQ(warnings_of(d),
            "no mesh has triangles: written as one empty level\n"
            "no material has a texture: written without a TEXTURE line\n");
}

// ---- Errors ----------------------------------------------------------------------------------

TEST(PieWrite, ErrorsForWhatPieCannotHold) {
  Scene s = one_triangle(3);
  s.pie->global.textures[0].file = "page-1.tga";
  EXPECT_EQ(write_error(s), "texture page \"page-1.tga\" is not a .png file: PIE pages must be PNG");
  s.pie->global.textures[0].file = "page-1.PNG";
  EXPECT_EQ(write_error(s), "texture page \"page-1.PNG\" is not a .png file: PIE pages must be PNG");
  s.pie->global.textures[0].file = "page 1.png";
  EXPECT_EQ(write_error(s), "texture page \"page 1.png\" has characters outside [A-Za-z0-9._-]");
  s.pie->global.textures[0].file = "p\xc3\xa4ge.png";
  EXPECT_EQ(write_error(s), "texture page \"p\xc3\xa4ge.png\" has characters outside [A-Za-z0-9._-]");
  s.pie->global.textures[0].file = "page-1.png";
  s.pie->global.textures[0].tileset = 3;
  EXPECT_EQ(write_error(s), "texture page \"page-1.png\": tileset 3 is outside 0..2");
  s.pie->global.textures[0].tileset = 0;
  s.pie->events = {{4, "x.pie"}};
  EXPECT_EQ(write_error(s), "EVENT type 4 is not 1, 2 or 3");
  s.pie->events = {{1, "x y.pie"}};
  EXPECT_EQ(write_error(s), "EVENT file \"x y.pie\" is empty or has spaces, line breaks or #");
  s.pie->events.clear();
  EXPECT_EQ(write_error(s), "");
  // Non-PIE Scenes: the page of a material.
  Scene o;
  o.materials.push_back(testutil::material("m", "textures/skin.jpg"));
  o.meshes.push_back(plain_mesh("m", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, {0, 1, 2}, 0));
  EXPECT_EQ(write_error(o), "texture page \"skin.jpg\" is not a .png file: PIE pages must be PNG");
}

TEST(PieWrite, AtMost8192PolygonsPerLevel) {
  Scene s;
  std::vector<uint32_t> tris;
  for (int i = 0; i < 8192; ++i) tris.insert(tris.end(), {0, 1, 2});
  s.meshes.push_back(plain_mesh("big", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, tris));
  EXPECT_EQ(write_error(s), "");
  s.meshes[0].triangles.insert(s.meshes[0].triangles.end(), {0, 1, 2});
  EXPECT_EQ(write_error(s),
            "mesh \"big\" has 8193 triangles: a PIE level holds at most 8192 polygons (Warzone 2100 draws a level "
            "with 16-bit indices; docs/pie.md); simplify it with --simplify-to 8192 (or --simplify RATIO)");
}

TEST(PieWrite, ErrorsForBrokenMeshes) {
  Scene s;
  s.meshes.push_back(plain_mesh("m", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}, {0, 1, 3}));
  EXPECT_EQ(write_error(s), "mesh \"m\": triangle index 3 out of range");
  s.meshes[0].triangles = {0, 1};
  EXPECT_EQ(write_error(s), "mesh \"m\": triangle list is not a multiple of 3");
  s.meshes[0].triangles = {0, 1, 2};
  s.meshes[0].streams[1].data.pop_back();
  EXPECT_EQ(write_error(s), "mesh \"m\": its vertex streams have different lengths");
  s.meshes[0].streams[1].data.push_back(0);
  s.meshes[0].streams[0].data[0] = INFINITY;
  EXPECT_EQ(write_error(s), "mesh \"m\": a position is not finite");
  s.meshes[0].streams[0].data[0] = 0;
  s.meshes[0].streams[1].data[0] = NAN;
  EXPECT_EQ(write_error(s), "mesh \"m\": a texture coordinate is not finite");
  s.meshes[0].streams[1].data[0] = 0;
  s.meshes[0].streams.push_back(float_stream(Attribute::Normal, 3, {0, 1, 0, 0, 1, 0, 0, NAN, 0}));
  EXPECT_EQ(write_error(s), "mesh \"m\": a normal is not finite");
  s.meshes[0].streams.erase(s.meshes[0].streams.begin());
  EXPECT_EQ(write_error(s), "mesh \"m\" has no positions");
}

TEST(PieWrite, ErrorsNameTheFileThroughThePublicApi) {
  testutil::TempDir dir;
  Scene s = one_triangle(3);
  s.pie->global.textures[0].file = "x.bmp";
  try {
    write(s, dir / "out.pie");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().to_string(), dir / "out.pie" + ": error: texture page \"x.bmp\" is not a .png file: PIE "
                                                           "pages must be PNG");
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out.pie"));
}

// PieData equality, part by part so that a failure says where.
void expect_same_pie(const PieData& a, const PieData& b, const std::string& what) {
  EXPECT_EQ(a.version, b.version) << what;
  EXPECT_TRUE(a.global == b.global) << what;
  EXPECT_TRUE(a.events == b.events) << what;
  ASSERT_EQ(a.levels.size(), b.levels.size()) << what;
  for (size_t i = 0; i < a.levels.size(); ++i) {
    const PieLevel& x = a.levels[i];
    const PieLevel& y = b.levels[i];
    std::string where = fmt::format("{} level {}", what, i + 1);
    EXPECT_EQ(x.mesh, y.mesh) << where;
    EXPECT_EQ(x.joint, y.joint) << where;
    EXPECT_EQ(x.comment, y.comment) << where;
    EXPECT_TRUE(x.overrides == y.overrides) << where;
    EXPECT_EQ(x.materials, y.materials) << where;
    EXPECT_EQ(x.shaders, y.shaders) << where;
    EXPECT_EQ(x.points, y.points) << where;
    EXPECT_EQ(x.normals, y.normals) << where;
    EXPECT_EQ(x.has_animobject, y.has_animobject) << where;
    EXPECT_TRUE(x.animobject == y.animobject) << where;
    EXPECT_EQ(x.has_shadow_points, y.has_shadow_points) << where;
    EXPECT_EQ(x.shadow_points, y.shadow_points) << where;
    EXPECT_EQ(x.has_shadow_polygons, y.has_shadow_polygons) << where;
    EXPECT_EQ(x.shadow_polygons, y.shadow_polygons) << where;
    EXPECT_TRUE(x == y) << where;
  }
}

// ---- Reading back (needs the PIE reader) -----------------------------------------------------

TEST(PieWrite, HandBuiltScenesReadBackEqual) {
  Scene s = full_pie4();
  Scene back = read_pie(write_pie(s));
  expect_same_pie(*back.pie, *s.pie, "full_pie4");
  s = one_triangle(2);
  animate(s, 0, two_frames());
  back = read_pie(write_pie(s));
  expect_same_pie(*back.pie, *s.pie, "one_triangle");
  back = testutil::without_made_up(back);  // the reader names the levels and clip after the file
  EXPECT_TRUE(back.animations == s.animations);
  EXPECT_TRUE(back.meshes == s.meshes);
}

// Per triangle corner (PIE order a b c): the position, texture coordinates and normal.
std::vector<std::array<float, 8>> corners(const Mesh& m) {
  std::vector<std::array<float, 8>> out;
  const VertexStream* p = m.find(Attribute::Position);
  const VertexStream* t = m.find(Attribute::Texcoord);
  const VertexStream* n = m.find(Attribute::Normal);
  for (size_t i = 0; i + 2 < m.triangles.size(); i += 3)
    for (size_t c : {0, 2, 1}) {
      uint32_t v = m.triangles[i + c];
      out.push_back({p->get(v, 0), p->get(v, 1), p->get(v, 2), t ? t->get(v, 0) : 0, t ? t->get(v, 1) : 0,
                     n ? n->get(v, 0) : 0, n ? n->get(v, 1) : 0, n ? n->get(v, 2) : 0});
    }
  return out;
}

TEST(PieWrite, ObjFromMemoryReadsBack) {
  const std::string obj =
      "v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nv 0 2 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n"
      "vn 0 1 0\nf 1/1/1 2/2/1 3/3/1 4/4/1\nf 1/1/1 5/5/1 2/2/1\n";
  Diagnostics d;
  Scene s = read_memory(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(obj.data()), obj.size()), Format::Obj,
                        "pyramid.obj", &d);
  ASSERT_EQ(s.meshes.size(), 1u);
  std::string text = write_pie(s, 3);
  EXPECT_NE(text.find("POINTS 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("NORMALS 3\n"), std::string::npos) << text;
  Scene back = read_pie(text, "pyramid.pie");
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_EQ(corners(back.meshes[0]), corners(s.meshes[0]));
  EXPECT_EQ(back.pie->version, 3);
}

TEST(PieWrite, IqeWithARigidJointReadsBackAnimated) {
  Scene s = rigid_arm(12, true);
  Scene back = read_pie(write_pie(s), "arm.pie");
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_EQ(corners(back.meshes[0]), corners(s.meshes[0]));
  ASSERT_EQ(back.animations.size(), 1u);
  ASSERT_EQ(back.animations[0].frame_count(), 2u);
  const Transform& t = back.animations[0].poses[1];
  EXPECT_EQ(t.translation, (std::array<float, 3>{0, 1, -1}));
  EXPECT_NEAR(t.rotation[0], 0.70710677f, 1e-6);
  EXPECT_NEAR(t.rotation[3], 0.70710677f, 1e-6);
  EXPECT_EQ(back.materials.at(0).base_color_texture, "page-5.png");
}

// ---- The corpus ------------------------------------------------------------------------------

std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testutil::corpus("pie")))
    if (e.is_regular_file() && e.path().extension() == ".pie") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Scene equality, part by part so that a failure says where.
void expect_same_scene(const Scene& a, const Scene& b, const std::string& what) {
  ASSERT_EQ(a.pie.has_value(), b.pie.has_value()) << what;
  if (a.pie) expect_same_pie(*a.pie, *b.pie, what);
  ASSERT_EQ(a.meshes.size(), b.meshes.size()) << what;
  for (size_t i = 0; i < a.meshes.size(); ++i) EXPECT_TRUE(a.meshes[i] == b.meshes[i]) << what << " mesh " << i;
  EXPECT_TRUE(a.materials == b.materials) << what;
  EXPECT_TRUE(a.joints == b.joints) << what;
  EXPECT_TRUE(a.animations == b.animations) << what;
  EXPECT_TRUE(a.attachments == b.attachments) << what;
  EXPECT_TRUE(a == b) << what;
}

TEST(PieWriteCorpus, AllFilesListed) {
  REQUIRE_CORPUS();
  EXPECT_EQ(corpus_files().size(), 42u);
}

TEST(PieWriteCorpus, SameVersionRoundTripIsLossless) {
  REQUIRE_CORPUS();
  for (const std::string& path : corpus_files()) {
    Diagnostics d;
    Scene s = read(path, {}, &d);
    Diagnostics wd;
    std::string text = write_pie(s, 0, &wd);
    EXPECT_EQ(wd.items.size(), 0u) << path << ": " << (wd.items.empty() ? "" : wd.items[0].message);
    Scene back = read_pie(text, path);
    expect_same_scene(s, back, path);
    // And writing that again gives the same text.
    EXPECT_EQ(write_pie(back), text) << path;
  }
}

// UVs and frame sizes within `tol`, then everything else exactly.
void expect_same_but_uvs(const Scene& a, Scene b, float tol, const std::string& what) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size()) << what;
  for (size_t i = 0; i < a.meshes.size(); ++i) {
    const VertexStream* ta = a.meshes[i].find(Attribute::Texcoord);
    VertexStream* tb = b.meshes[i].find(Attribute::Texcoord);
    ASSERT_TRUE(ta && tb) << what;
    ASSERT_EQ(ta->data.size(), tb->data.size()) << what;
    for (size_t k = 0; k < ta->data.size(); ++k) EXPECT_NEAR(ta->data[k], tb->data[k], tol) << what;
    tb->data = ta->data;
  }
  for (size_t i = 0; i < a.pie->levels.size() && i < b.pie->levels.size(); ++i) {
    const auto pa = level_polygons(a, a.pie->levels[i]);
    auto pb = level_polygons(b, b.pie->levels[i]);
    if (pb.empty()) continue;
    for (size_t k = 0; k < pa.size() && k < pb.size(); ++k) {
      EXPECT_NEAR(pa[k].anim_width, pb[k].anim_width, tol) << what;
      EXPECT_NEAR(pa[k].anim_height, pb[k].anim_height, tol) << what;
      pb[k].anim_width = pa[k].anim_width;
      pb[k].anim_height = pa[k].anim_height;
    }
    set_polygons(b, b.pie->levels[i], pb);
  }
  expect_same_scene(a, b, what);
}

TEST(PieWriteCorpus, Pie2ThroughPie3AndBack) {
  REQUIRE_CORPUS();
  size_t tested = 0;
  for (const std::string& path : corpus_files()) {
    Scene s = read(path);
    if (s.pie->version != 2) continue;
    ++tested;
    std::string pie3 = write_pie(s, 3);
    ASSERT_EQ(pie3.substr(0, 6), "PIE 3\n") << path;
    Scene mid = read_pie(pie3, path);
    Scene back = read_pie(write_pie(mid, 2), path);
    expect_same_but_uvs(s, back, 1.0f / 256, path);
  }
  EXPECT_EQ(tested, 25u);
}

TEST(PieWriteCorpus, EveryFileAsPie4) {
  REQUIRE_CORPUS();
  for (const std::string& path : corpus_files()) {
    Scene s = read(path);
    Scene back = read_pie(write_pie(s, 4), path);
    EXPECT_EQ(back.pie->version, 4) << path;
    back.pie->version = s.pie->version;
    expect_same_scene(s, back, path);
  }
}

// Per polygon corner of a PIE level: its point (PIE axes) and texture coordinates.
std::vector<std::array<float, 5>> level_corners(const Scene& s, const PieLevel& L) {
  std::vector<std::array<float, 5>> out;
  if (L.mesh < 0) return out;
  const Mesh& m = s.meshes[size_t(L.mesh)];
  const VertexStream* t = m.find(Attribute::Texcoord);
  const std::vector<uint32_t> points = vertex_points(s, L);
  for (size_t i = 0; i + 2 < m.triangles.size(); i += 3)
    for (size_t c : {0, 2, 1}) {
      uint32_t v = m.triangles[i + c];
      const Point& p = L.points.at(points.at(v));
      out.push_back({p[0], p[1], p[2], t->get(v, 0), t->get(v, 1)});
    }
  return out;
}

TEST(PieWriteCorpus, EveryFileAsPie2WithinItsRounding) {
  REQUIRE_CORPUS();
  const float tol = 1.0f / 512 + 1e-6f;
  for (const std::string& path : corpus_files()) {
    Scene s = read(path);
    Diagnostics d;
    Scene back = read_pie(write_pie(s, 2, &d), path);
    EXPECT_EQ(back.pie->version, 2) << path;
    if (s.pie->version == 2) {
      EXPECT_EQ(d.items.size(), 0u) << path;
    }
    ASSERT_EQ(s.pie->levels.size(), back.pie->levels.size()) << path;
    for (size_t i = 0; i < s.pie->levels.size(); ++i) {
      PieLevel x = s.pie->levels[i];
      PieLevel y = back.pie->levels[i];
      std::string what = fmt::format("{} level {}", path, i + 1);
      // Rounding may merge vertices whose coordinates differed by less than a step.
      auto cx = level_corners(s, x), cy = level_corners(back, y);
      ASSERT_EQ(cx.size(), cy.size()) << what;
      for (size_t k = 0; k < cx.size(); ++k) {
        for (size_t c = 0; c < 3; ++c) EXPECT_EQ(cx[k][c], cy[k][c]) << what;
        for (size_t c = 3; c < 5; ++c) EXPECT_NEAR(cx[k][c], cy[k][c], tol) << what;
      }
      const auto px = level_polygons(s, x), py = level_polygons(back, y);
      ASSERT_EQ(px.size(), py.size()) << what;
      for (size_t k = 0; k < px.size(); ++k) {
        EXPECT_EQ(px[k].flags, py[k].flags) << what;
        EXPECT_EQ(px[k].anim_frames, py[k].anim_frames) << what;
        EXPECT_EQ(px[k].anim_rate, py[k].anim_rate) << what;
        EXPECT_NEAR(px[k].anim_width, py[k].anim_width, tol) << what;
        EXPECT_NEAR(px[k].anim_height, py[k].anim_height, tol) << what;
      }
      EXPECT_TRUE(x == y) << what;
    }
    EXPECT_TRUE(s.pie->global == back.pie->global) << path;
    EXPECT_TRUE(s.pie->events == back.pie->events) << path;
    EXPECT_TRUE(s.joints == back.joints) << path;
    EXPECT_TRUE(s.animations == back.animations) << path;
    EXPECT_TRUE(s.attachments == back.attachments) << path;
  }
}

TEST(PieWriteCorpus, ConvertWithProcessingKeepsThePieData) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  size_t renumbered = 0;  // meshes whose vertices the normals and tangents steps split or welded
  for (const std::string& path : corpus_files()) {
    Scene src = read(path);
    std::string out = dir / std::filesystem::path(path).filename().string();
    Diagnostics d;
    ConvertOptions o;  // a same-format rewrite generates nothing unless asked
    o.process.normals = o.process.tangents = Generate::Missing;
    Scene processed = convert({path}, out, o, &d);
    for (size_t i = 0; i < src.meshes.size(); ++i)
      renumbered += processed.meshes.at(i).vertex_count() != src.meshes[i].vertex_count();
    for (const Diagnostic& x : d.items) EXPECT_NE(x.severity, Severity::Error) << path << ": " << x.message;
    Scene back = read(out);
    const PieData& a = *src.pie;
    const PieData& b = *back.pie;
    EXPECT_EQ(a.version, b.version) << path;
    EXPECT_TRUE(a.global == b.global) << path;
    EXPECT_TRUE(a.events == b.events) << path;
    ASSERT_EQ(a.levels.size(), b.levels.size()) << path;
    for (size_t i = 0; i < a.levels.size(); ++i) {
      PieLevel x = a.levels[i];
      PieLevel y = b.levels[i];
      std::string what = fmt::format("{} level {}", path, i + 1);
      EXPECT_EQ(x.points, y.points) << what;
      EXPECT_EQ(x.normals, y.normals) << what;
      EXPECT_EQ(level_corners(src, x), level_corners(back, y)) << what;
      if (x.normals) {
        ASSERT_GE(x.mesh, 0) << what;
        EXPECT_EQ(corners(src.meshes[size_t(x.mesh)]), corners(back.meshes[size_t(y.mesh)])) << what;
      }
      // The rest of the level is the same; only the vertex numbering may differ.
      EXPECT_EQ(level_polygons(src, x), level_polygons(back, y)) << what;
      EXPECT_TRUE(x == y) << what;
    }
    EXPECT_TRUE(src.materials == back.materials) << path;
    EXPECT_TRUE(src.joints == back.joints) << path;
    EXPECT_TRUE(src.animations == back.animations) << path;
    EXPECT_TRUE(src.attachments == back.attachments) << path;
    ASSERT_EQ(src.meshes.size(), back.meshes.size()) << path;
    for (size_t i = 0; i < src.meshes.size(); ++i) {
      EXPECT_EQ(src.meshes[i].name, back.meshes[i].name) << path;
      EXPECT_EQ(src.meshes[i].material, back.meshes[i].material) << path;
      EXPECT_EQ(src.meshes[i].triangles.size(), back.meshes[i].triangles.size()) << path;
    }
  }
  EXPECT_GT(renumbered, 10u);
}

}  // namespace

}  // namespace meshport_test_pie_write
