// Wavefront OBJ + MTL reader and writer: every statement and corner form, material libraries
// through files, smoothing groups, errors with their exact locations, and round trips
// (OBJ -> Scene -> OBJ -> Scene equal, IQE -> OBJ -> IQE positions exact).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <meshport/meshport.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "core/io.h"
#include "formats/iqe/iqe.h"
#include "formats/obj/obj.h"
#include "test_util.h"

namespace meshport_test_obj {

using namespace meshport;

namespace {

Material mat(const std::string& name, const std::string& texture) {
  Material m;
  m.name = name;
  m.base_color_texture = texture;
  return m;
}

std::string data(const std::string& rel) { return std::string(MESHPORT_TEST_DATA) + "/obj/" + rel; }

SideFileLoader no_files() {
  return [](const std::string& rel) -> std::vector<uint8_t> { fail(rel, "cannot open: not found"); };
}

SideFileLoader files(std::map<std::string, std::string> m) {
  return [m](const std::string& rel) -> std::vector<uint8_t> {
    auto it = m.find(rel);
    if (it == m.end()) fail(rel, "cannot open: not found");
    return std::vector<uint8_t>(it->second.begin(), it->second.end());
  };
}

Scene parse(const std::string& text, Diagnostics* diags = nullptr, const SideFileLoader& load = no_files()) {
  Diagnostics local;
  return obj::read(text, "t.obj", load, diags ? *diags : local);
}

std::string error_of(const std::string& text) {
  Diagnostics d;
  try {
    obj::read(text, "t.obj", no_files(), d);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string messages(const Diagnostics& d) {
  std::string all;
  for (const auto& i : d.items) all += i.to_string() + "\n";
  return all;
}

bool has_warning(const Diagnostics& d, const std::string& text) {
  for (const auto& i : d.items)
    if (i.severity == Severity::Warning && i.to_string().find(text) != std::string::npos) return true;
  return false;
}

std::vector<float> values(const Mesh& m, Attribute a) {
  const VertexStream* s = m.find(a);
  return s ? s->data : std::vector<float>{};
}

std::string obj_text(const Scene& s, Diagnostics* diags = nullptr) {
  Diagnostics local;
  std::vector<OutputFile> f = obj::write(s, WriteOptions{}, "", "", diags ? *diags : local);
  return std::string(f.at(0).bytes.begin(), f.at(0).bytes.end());
}

Scene reread(const Scene& s, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return obj::read(obj_text(s, diags), "written.obj", no_files(), diags ? *diags : local);
}

// A stream's values at the triangle corners, triangle by triangle (independent of vertex order).
std::vector<float> corner_values(const Mesh& m, Attribute a) {
  std::vector<float> out;
  const VertexStream* p = m.find(a);
  if (!p) return out;
  for (uint32_t i : m.triangles)
    for (uint32_t c = 0; c < p->components; ++c) out.push_back(p->get(i, c));
  return out;
}
std::vector<float> corner_positions(const Mesh& m) { return corner_values(m, Attribute::Position); }

const std::string kSquare = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

}  // namespace

// ---- Basic reading -------------------------------------------------------------------------------

TEST(ObjRead, CorpusTriangle) {
  REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = read(MESHPORT_CORPUS "/iqm/edge-cases/tri.obj", {}, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "");
  EXPECT_EQ(m.material, -1);
  ASSERT_EQ(m.streams.size(), 1u);
  EXPECT_EQ(m.streams[0].attribute, Attribute::Position);
  EXPECT_EQ(m.streams[0].components, 3u);
  EXPECT_EQ(m.streams[0].source_size, 3u);
  EXPECT_EQ(m.streams[0].format, ComponentType::Float);
  EXPECT_EQ(m.streams[0].data, (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_TRUE(m.polygon_sizes.empty());
  EXPECT_TRUE(m.smoothing.empty());
  EXPECT_TRUE(s.materials.empty());
}

TEST(ObjRead, EveryCornerForm) {
  Diagnostics d;
  Scene s = read(data("corners.obj"), {}, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(s.meshes.size(), 4u);
  const Mesh &plain = s.meshes[0], &tex = s.meshes[1], &nrm = s.meshes[2], &full = s.meshes[3];
  EXPECT_EQ(plain.name, "plain");
  EXPECT_EQ(tex.name, "textured");
  EXPECT_EQ(nrm.name, "normals");
  EXPECT_EQ(full.name, "full");
  for (const Mesh* m : {&plain, &tex, &nrm, &full}) {
    EXPECT_EQ(values(*m, Attribute::Position), (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 1, 0})) << m->name;
    EXPECT_EQ(m->triangles, (std::vector<uint32_t>{0, 1, 2})) << m->name;
  }
  EXPECT_EQ(plain.streams.size(), 1u);
  ASSERT_EQ(tex.streams.size(), 2u);
  EXPECT_EQ(tex.streams[1].attribute, Attribute::Texcoord);
  EXPECT_EQ(tex.streams[1].components, 2u);
  // OBJ (0,0) (1,0) (1,1) -> Scene v = 1 - v.
  EXPECT_EQ(tex.streams[1].data, (std::vector<float>{0, 1, 1, 1, 1, 0}));
  ASSERT_EQ(nrm.streams.size(), 2u);
  EXPECT_EQ(nrm.streams[1].attribute, Attribute::Normal);
  EXPECT_EQ(nrm.streams[1].data, (std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, -1}));
  ASSERT_EQ(full.streams.size(), 3u);
  EXPECT_EQ(values(full, Attribute::Texcoord), (std::vector<float>{0, 1, 1, 1, 0.25f, 0.5f}));
  EXPECT_EQ(values(full, Attribute::Normal), (std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, -1}));
}

TEST(ObjRead, NegativeIndicesCountBackFromTheLast) {
  Scene a = parse(kSquare + "vt 0 0\nvt 1 0\nvn 0 0 1\nf 1/1/1 2/2/1 3/2/1\n");
  Scene b = parse(kSquare + "vt 0 0\nvt 1 0\nvn 0 0 1\nf -4/-2/-1 -3/-1/-1 -2/-1/-1\n");
  EXPECT_TRUE(a == b);
  // Relative to the vertices defined so far, not the whole file.
  Scene c = parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 5 5\nf -4 -3 -1\n");
  ASSERT_EQ(c.meshes.size(), 1u);
  EXPECT_EQ(values(c.meshes[0], Attribute::Position), (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5}));
  EXPECT_EQ(c.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2, 0, 1, 3}));
}

TEST(ObjRead, DistinctTriplesAreVerticesInOrderOfFirstUse) {
  Scene s = parse(kSquare + "vt 0 0\nvt 1 1\nf 3/1 1/1 2/1\nf 3/2 1/1 4/2\n");
  const Mesh& m = s.meshes.at(0);
  // (3,1) (1,1) (2,1) (3,2) (4,2): position 3 with two texcoords is two vertices.
  EXPECT_EQ(values(m, Attribute::Position), (std::vector<float>{1, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(values(m, Attribute::Texcoord), (std::vector<float>{0, 1, 0, 1, 0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 1, 2, 3, 1, 4}));
  // Unused positions do not become vertices.
  Scene u = parse("v 9 9 9\n" + kSquare + "f 2 3 4\n");
  EXPECT_EQ(values(u.meshes.at(0), Attribute::Position), (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 1, 0}));
}

TEST(ObjRead, PolygonsAreFannedAndKept) {
  Diagnostics d;
  Scene s = read(data("polygons.obj"), {}, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  // Vertices in first use: file 1 2 5 6 3 4 7.
  EXPECT_EQ(values(m, Attribute::Position),
            (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 2, 1, 0, 1.5f, 2, 0}));
  EXPECT_EQ(m.polygon_sizes, (std::vector<uint32_t>{4, 5, 3}));
  // quad (0 1 2 3), pentagon (1 4 5 6 2), triangle (3 2 6)
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3, 1, 4, 5, 1, 5, 6, 1, 6, 2, 3, 2, 6}));
  EXPECT_EQ(m.face_count(), 3u);
}

TEST(ObjWrite, PolygonsAreWrittenBackAsPolygons) {
  Scene s = read(data("polygons.obj"));
  EXPECT_EQ(obj_text(s),
            "# meshport\n"
            "o\n"
            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\nv 1.5 2 0\n"
            "f 1 2 3 4\n"
            "f 2 5 6 7 3\n"
            "f 4 3 7\n");
  Scene back = reread(s);
  EXPECT_TRUE(back == s);
}

TEST(ObjRead, TrianglesOnlyHaveNoPolygonSizesUntilAPolygonComes) {
  Scene t = parse(kSquare + "f 1 2 3\nf 1 3 4\n");
  EXPECT_TRUE(t.meshes.at(0).polygon_sizes.empty());
  Scene p = parse(kSquare + "f 1 2 3\nf 1 2 3 4\n");
  EXPECT_EQ(p.meshes.at(0).polygon_sizes, (std::vector<uint32_t>{3, 4}));
}

// ---- Objects, groups, materials -----------------------------------------------------------------

TEST(ObjRead, ObjectsGroupsAndMaterialsSplitMeshes) {
  Diagnostics d;
  Scene s = parse(kSquare +
                      "f 1 2 3\n"  // mesh 0: no name, no material
                      "o first\n"
                      "o renamed\n"  // no faces since: only renames
                      "usemtl a\n"
                      "f 1 2 3\n"   // mesh 1: renamed / a
                      "usemtl a\n"  // same material: no new mesh
                      "f 1 3 4\n"
                      "usemtl b\n"
                      "f 1 2 3\n"  // mesh 2: renamed / b
                      "g part\n"
                      "f 2 3 4\n"  // mesh 3: part / b (material carries over)
                      "g part\n"
                      "f 2 3 4\n"  // mesh 4: a repeated name is another mesh
                      "usemtl b\nusemtl a\nusemtl b\n"
                      "f 1 2 4\n"  // still mesh 4: the material did not change
                      "usemtl\n"
                      "f 1 2 3\n",  // mesh 5: part / no material
                  &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(s.meshes.size(), 6u);
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "a");
  EXPECT_EQ(s.materials[1].name, "b");
  const char* names[] = {"", "renamed", "renamed", "part", "part", "part"};
  int32_t mats[] = {-1, 0, 1, 1, 1, -1};
  size_t tris[] = {1, 2, 1, 1, 2, 1};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(s.meshes[i].name, names[i]) << i;
    EXPECT_EQ(s.meshes[i].material, mats[i]) << i;
    EXPECT_EQ(s.meshes[i].triangles.size() / 3, tris[i]) << i;
  }
  // Each mesh has its own vertices.
  EXPECT_EQ(values(s.meshes[1], Attribute::Position), (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
}

TEST(ObjRead, NamesAreTheRestOfTheLine) {
  Scene s = parse(kSquare + "g  left arm  # a comment\nusemtl skin#2 tone\nf 1 2 3\n");
  EXPECT_EQ(s.meshes.at(0).name, "left arm");
  EXPECT_EQ(s.materials.at(0).name, "skin#2 tone");
}

TEST(ObjMtl, LibrariesThroughATempFolder) {
  testutil::TempDir dir;
  std::filesystem::create_directories(dir.path / "mats");
  std::filesystem::copy_file(data("scene.obj"), dir / "scene.obj");
  std::filesystem::copy_file(data("scene.mtl"), dir / "scene.mtl");
  std::filesystem::copy_file(data("mats/metal.mtl"), dir / "mats/metal.mtl");
  Diagnostics d;
  Scene s = read(dir / "scene.obj", {}, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(s.materials.size(), 3u);
  EXPECT_EQ(s.materials[0], mat("wood", "tex/wood grain.png"));  // options skipped, spaces kept
  EXPECT_EQ(s.materials[1], mat("metal", "mats/metal.png"));     // relative to the OBJ's folder
  EXPECT_EQ(s.materials[2], mat("unused", ""));

  // The meshes of scene.obj.
  ASSERT_EQ(s.meshes.size(), 3u);
  const Mesh &box = s.meshes[0], &box2 = s.meshes[1], &handle = s.meshes[2];
  EXPECT_EQ(box.name, "box");
  EXPECT_EQ(box.material, 0);
  EXPECT_EQ(box.vertex_count(), 15u);
  EXPECT_EQ(box.polygon_sizes, (std::vector<uint32_t>{4, 4, 4, 3}));
  EXPECT_EQ(box.triangles,
            (std::vector<uint32_t>{0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 8, 9, 10, 8, 10, 11, 12, 13, 14}));
  EXPECT_EQ(box.smoothing.face_group, (std::vector<int32_t>{1, 1, -2, -3}));
  EXPECT_EQ(box2.name, "box");
  EXPECT_EQ(box2.material, 1);
  EXPECT_EQ(box2.smoothing.face_group, (std::vector<int32_t>{-4}));
  EXPECT_EQ(handle.name, "handle part");
  EXPECT_EQ(handle.material, 1);
  EXPECT_EQ(handle.smoothing.face_group, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(values(handle, Attribute::Position),
            (std::vector<float>{0, 3, 0, 0, 3, 0.5f, 0.5f, 3, 0, 0, 3, 0.5f, 0.5f, 3, 0, 0, 3, 0}));
  EXPECT_EQ(values(handle, Attribute::Color),
            (std::vector<float>{0.1f, 0.2f, 0.3f, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(values(handle, Attribute::Texcoord), (std::vector<float>{0, 1, 1, 1, 1, 0, 0.25f, 0.25f, 0, 0, 1, 0}));
  EXPECT_EQ(values(handle, Attribute::Normal),
            (std::vector<float>{0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0}));
  std::vector<float> colours = values(box, Attribute::Color);
  ASSERT_EQ(colours.size(), 45u);
  EXPECT_EQ(std::vector<float>(colours.begin(), colours.begin() + 6), (std::vector<float>{1, 0, 0, 0, 1, 0}));
}

TEST(ObjMtl, MissingLibraryIsAWarning) {
  testutil::TempDir dir;
  {
    std::ofstream f(dir / "a.obj");
    f << "mtllib nowhere.mtl\n" << kSquare << "usemtl red\nf 1 2 3\n";
  }
  Diagnostics d;
  Scene s = read(dir / "a.obj", {}, &d);
  ASSERT_EQ(d.items.size(), 1u) << messages(d);
  EXPECT_EQ(d.items[0].severity, Severity::Warning);
  EXPECT_EQ(d.items[0].line, 1u);
  EXPECT_EQ(d.items[0].column, 8u);
  EXPECT_NE(d.items[0].message.find("material library \"nowhere.mtl\" not loaded: cannot open"), std::string::npos)
      << messages(d);
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0], mat("red", ""));
  EXPECT_EQ(s.meshes.at(0).material, 0);
}

TEST(ObjMtl, FromMemoryLibrariesCannotBeLoaded) {
  std::string text = "mtllib a.mtl\n" + kSquare + "f 1 2 3\n";
  Diagnostics d;
  Scene s = read_memory({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, Format::Obj, "mem.obj", &d);
  EXPECT_EQ(s.meshes.size(), 1u);
  EXPECT_TRUE(has_warning(d, "mem.obj:1:8: warning: material library \"a.mtl\" not loaded")) << messages(d);
}

TEST(ObjMtl, SeveralLibrariesOptionsAndUndefinedMaterials) {
  Diagnostics d;
  auto load = files({{"a.mtl", "newmtl one\r\nmap_Kd -blendu off -bm 0.5 -mm 0 1 -t 1 -imfchan r one.png\r\n"},
                     {"b c.mtl", "newmtl two\nmap_Kd two.tga\nmap_Kd -s 2 2 later.tga\nnewmtl one\n"},
                     {"d.mtl", "map_Kd orphan.png\nnewmtl three\nmap_Kd\nmap_Kd -zz 1 2 three.png\n"}});
  Scene s =
      parse("mtllib a.mtl b c.mtl\nmtllib a.mtl d.mtl\n" + kSquare + "usemtl two\nf 1 2 3\nusemtl ghost\nf 1 2 3\n", &d,
            load);
  // "a.mtl b c.mtl": not every word ends in .mtl, so it is one name (and not found).
  ASSERT_EQ(s.materials.size(), 4u) << messages(d);
  EXPECT_EQ(s.materials[0], mat("one", "one.png"));
  EXPECT_EQ(s.materials[1], mat("three", "three.png"));
  EXPECT_EQ(s.materials[2], mat("two", ""));
  EXPECT_EQ(s.materials[3], mat("ghost", ""));
  EXPECT_TRUE(has_warning(d, "t.obj:1:8: warning: material library \"a.mtl b c.mtl\" not loaded")) << messages(d);
  EXPECT_TRUE(has_warning(d, "d.mtl:1:1: warning: map_Kd before the first newmtl ignored")) << messages(d);
  EXPECT_TRUE(has_warning(d, "d.mtl:3:1: warning: map_Kd without a file name ignored")) << messages(d);
  EXPECT_TRUE(has_warning(d, "d.mtl:4:8: warning: unknown map option \"-zz\" skipped")) << messages(d);
  EXPECT_TRUE(has_warning(d, "t.obj:7:1: warning: material \"two\" is not defined")) << messages(d);
  EXPECT_TRUE(has_warning(d, "t.obj:9:1: warning: material \"ghost\" is not defined")) << messages(d);

  // Both names of one line, each loaded once; a redefinition is ignored.
  Diagnostics d2;
  Scene s2 = parse("mtllib x.mtl y.MTL x.mtl\n" + kSquare + "usemtl two\nf 1 2 3\n", &d2,
                   files({{"x.mtl", "newmtl two\nmap_Kd two.png\n"}, {"y.MTL", "newmtl two\nmap_Kd other.png\n"}}));
  ASSERT_EQ(s2.materials.size(), 1u);
  EXPECT_EQ(s2.materials[0], mat("two", "two.png"));
  ASSERT_EQ(d2.items.size(), 1u) << messages(d2);
  EXPECT_EQ(d2.items[0].to_string(),
            "y.MTL:1:1: warning: material \"two\" is defined again: this definition is ignored");
}

// ---- Smoothing groups -----------------------------------------------------------------------------

TEST(ObjRead, SmoothingGroups) {
  Diagnostics d;
  Scene s = parse(kSquare +
                      "f 1 2 3\n"  // before any s: -1
                      "s 1\nf 1 2 3\nf 1 3 4\n"
                      "s off\nf 1 2 3\nf 1 3 4\n"  // own groups
                      "s 7\nf 1 2 3 4\n"
                      "s 0\nf 2 3 4\n"
                      "o next\nf 1 2 3\n",  // the state carries over o
                  &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].smoothing.face_group, (std::vector<int32_t>{-1, 1, 1, -2, -3, 7, -4}));
  EXPECT_EQ(s.meshes[0].polygon_sizes, (std::vector<uint32_t>{3, 3, 3, 3, 3, 4, 3}));
  EXPECT_EQ(s.meshes[1].smoothing.face_group, (std::vector<int32_t>{-5}));
  // A file without `s` has no rules at all.
  EXPECT_TRUE(parse(kSquare + "f 1 2 3\n").meshes.at(0).smoothing.empty());
  EXPECT_TRUE(parse(kSquare + "f 1 2 3\no x\ns 1\nf 1 2 3\n").meshes.at(0).smoothing.empty());
}

TEST(ObjRead, SmoothingGroupsDecideGeneratedNormals) {
  // Two faces folded along the edge 2-3: smoothed in one group, faceted under s off.
  std::string geo = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0.5\nv 2 0 0.5\n";
  Scene smooth = parse(geo + "s 1\nf 1 2 3\nf 2 5 3\n");
  Scene off = parse(geo + "s off\nf 1 2 3\nf 2 5 3\n");
  Scene none = parse(geo + "f 1 2 3\nf 2 5 3\n");
  generate_normals(smooth);
  generate_normals(off);
  generate_normals(none);
  EXPECT_EQ(smooth.meshes[0].vertex_count(), 4u);
  EXPECT_EQ(none.meshes[0].vertex_count(), 4u);
  EXPECT_EQ(off.meshes[0].vertex_count(), 6u);
}

TEST(ObjWrite, SmoothingGroupsRoundTrip) {
  Scene s = parse(kSquare + "f 1 2 3\ns 1\nf 1 2 3\ns off\nf 1 3 4\nf 1 2 4\ns 3\nf 2 3 4\n");
  std::string text = obj_text(s);
  EXPECT_NE(text.find("v 0 1 0\nf 1 2 3\ns 1\nf 1 2 3\ns off\nf 1 3 4\nf 1 2 4\ns 3\nf 2 3 4\n"), std::string::npos)
      << text;
  EXPECT_TRUE(reread(s) == s);
}

TEST(ObjWrite, SmoothingKeysOfOtherFormatsBecomePositiveGroups) {
  // IQE smoothgroup keys are any int32: shared keys <= 0 get free positive numbers, a key of a
  // single face is `s off`, keys >= 1 stay.
  Scene s = parse(kSquare + "f 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\n");
  s.meshes[0].smoothing.face_group = {0, 1, 0, -7, 2, -1};
  Diagnostics d;
  std::string text = obj_text(s, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  EXPECT_NE(text.find("s 3\nf 1 2 3\ns 1\nf 1 2 3\ns 3\nf 1 2 3\ns off\nf 1 2 3\ns 2\nf 1 2 3\ns off\nf 1 2 3\n"),
            std::string::npos)
      << text;
  Scene back = reread(s);
  EXPECT_EQ(back.meshes[0].smoothing.face_group, (std::vector<int32_t>{3, 1, 3, -2, 2, -3}));
}

// ---- Vertex colours, continuation, line endings, long lines ---------------------------------------

TEST(ObjRead, VertexColours) {
  Diagnostics d;
  Scene s = parse(
      "v 0 0 0 1 0.5 0\nv 1 0 0 1\nv 0 1 0 2 0 0 1\nv 5 5 5 0.25 0.25 0.25\nf 1 2 3\no b\nf 2 3 1\n"
      "o c\nv 0 0 1\nf 2 5 3\n",
      &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(s.meshes.size(), 3u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(values(m, Attribute::Position), (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}));  // w ignored
  ASSERT_NE(m.find(Attribute::Color), nullptr);
  EXPECT_EQ(m.find(Attribute::Color)->components, 3u);
  // 6 values: x y z r g b; 4: x y z w (white); 7: x y z w r g b.
  EXPECT_EQ(values(m, Attribute::Color), (std::vector<float>{1, 0.5f, 0, 1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(values(s.meshes[1], Attribute::Color), (std::vector<float>{1, 1, 1, 0, 0, 1, 1, 0.5f, 0}));
  EXPECT_EQ(values(s.meshes[2], Attribute::Color), (std::vector<float>{1, 1, 1, 1, 1, 1, 0, 0, 1}));
  // A mesh whose positions have no colour has no Color stream.
  Scene t = parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1 1 0 0\nf 1 2 3\n");
  EXPECT_EQ(t.meshes.at(0).find(Attribute::Color), nullptr);
  // Written back as v x y z r g b.
  std::string text = obj_text(s);
  EXPECT_NE(text.find("v 0 0 0 1 0.5 0\nv 1 0 0 1 1 1\nv 0 1 0 0 0 1\n"), std::string::npos) << text;
  EXPECT_TRUE(reread(s) == s);
}

TEST(ObjRead, LineContinuation) {
  Diagnostics d;
  Scene s = parse("v 0 0 \\\n0\nv 1\\\n 0 0\nv 0 1 0\nf 1 \\\n2 \\\r\n\\\n 3\n# a comment \\\nv 7 7 7\n", &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  const Mesh& m = s.meshes.at(0);
  EXPECT_EQ(values(m, Attribute::Position), (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 1, 2}));
  // A backslash in a comment does not continue it: `v 7 7 7` is a vertex (position 4).
  Scene t = parse("# c:\\dir\\\nv 7 7 7\nv 0 0 0\nv 1 0 0\nf 1 2 3\n");
  EXPECT_EQ(values(t.meshes.at(0), Attribute::Position), (std::vector<float>{7, 7, 7, 0, 0, 0, 1, 0, 0}));
  // Errors on continued lines name the physical line and column.
  EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nf 1 \\\n  2 \\\n 9\n"),
            "t.obj:5:2: error: position index 9 out of range: 2 defined so far");
  EXPECT_EQ(error_of("v 0 0 0\nv 1 0 \\\n  x\n"), "t.obj:3:3: error: malformed number \"x\"");
  // A final backslash at the end of the file is dropped.
  EXPECT_EQ(parse(kSquare + "f 1 2 3 \\").meshes.at(0).triangles.size(), 3u);
}

TEST(ObjRead, CrlfAndBlankLines) {
  std::string lf =
      "# comment\n\nv 0 0 0\nv 1 0 0 # trailing comment\n  \t\nv 0 1 0\nvt 0.5 0.25\no name\nf 1/1 2/1 3/1\n";
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  Diagnostics d;
  Scene a = parse(lf), b = parse(crlf, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(b.meshes.at(0).name, "name");
  EXPECT_EQ(error_of("v 0 0 0\r\nv 0 0 x\r\n"), "t.obj:2:7: error: malformed number \"x\"");
  // A UTF-8 byte order mark is skipped; no final line break is needed.
  EXPECT_TRUE(parse("\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3") == parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
}

TEST(ObjRead, OneMegabyteLines) {
  // A 100000-gon on one line (over 1 MB), and a 1 MB comment.
  const uint32_t n = 100000;
  std::string text;
  for (uint32_t i = 0; i < n; ++i) {
    double a = 2 * std::numbers::pi * i / n;
    text += fmt::format("v {} 0 {}\n", float(std::cos(a)), float(-std::sin(a)));
  }
  text += '#';
  text += std::string(1 << 20, 'x');
  text += '\n';
  std::string face = "f";
  for (uint32_t i = 1; i <= n; ++i) face += fmt::format("        {}", i);
  ASSERT_GT(face.size(), size_t(1) << 20);
  text += face + "\n";
  Scene s = parse(text);
  const Mesh& m = s.meshes.at(0);
  EXPECT_EQ(m.vertex_count(), n);
  EXPECT_EQ(m.polygon_sizes, std::vector<uint32_t>{n});
  EXPECT_EQ(m.triangles.size(), size_t(n - 2) * 3);
  EXPECT_EQ(m.triangles[m.triangles.size() - 1], n - 1);
  EXPECT_TRUE(reread(s) == s);
}

// ---- Texture coordinates ---------------------------------------------------------------------------

TEST(ObjTexcoords, VIsFlippedExactly) {
  Scene s = parse(kSquare + "vt 0 0\nvt 0.5 0.25\nvt 1 0.5\nvt 0.75 1\nvt 0.125\nf 1/1 2/2 3/3 4/4\nf 1/5 2/2 3/3\n");
  EXPECT_EQ(values(s.meshes.at(0), Attribute::Texcoord),
            (std::vector<float>{0, 1, 0.5f, 0.75f, 1, 0.5f, 0.75f, 0, 0.125f, 1}));
  std::string text = obj_text(s);
  EXPECT_NE(text.find("vt 0 0\nvt 0.5 0.25\nvt 1 0.5\nvt 0.75 1\nvt 0.125 0\n"), std::string::npos) << text;
}

TEST(ObjTexcoords, AnySceneValueRoundTripsExactly) {
  // Scene -> OBJ -> Scene keeps every v for which 1 - v is exact in double (|v| >= 2^-29).
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-3.0f, 4.0f), mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> expo(-28, 20);
  Scene s;
  Mesh m;
  std::vector<float> pos, tex;
  const std::array<float, 8> fixed = {0, 0.1f, 0.3f, 0.7f, 1e-6f, 0.99999994f, 1.0000001f, -0.0f};
  for (int i = 0; i < 3000; ++i) {
    float v = i % 3 == 0 ? std::ldexp(mantissa(rng), expo(rng)) * (rng() % 2 ? 1.0f : -1.0f) : uni(rng);
    float u = uni(rng);
    if (i < 8) v = fixed[size_t(i)], u = 0;
    tex.insert(tex.end(), {u, v});
    pos.insert(pos.end(), {float(i), 0, 0});
  }
  for (uint32_t i = 0; i + 2 < 3000; i += 3) m.triangles.insert(m.triangles.end(), {i, i + 1, i + 2});
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, tex));
  s.meshes.push_back(m);
  Scene back = reread(s);
  EXPECT_EQ(values(back.meshes.at(0), Attribute::Texcoord), tex);
  // Nice numbers stay nice: 0.1 is written as 0.9.
  EXPECT_NE(obj_text(s).find("\nvt 0 1\n"), std::string::npos);
  EXPECT_NE(obj_text(s).find("\nvt 0 0.9\n"), std::string::npos);
}

// ---- Warnings and errors ----------------------------------------------------------------------------

TEST(ObjRead, IgnoredStatementsWarnOncePerKeyword) {
  Diagnostics d;
  Scene s = parse(kSquare + "l 1 2\nl 2 3\np 1\nvp 0.5\ncstype bezier\nfrobnicate 1\nfrobnicate 2\nf 1 2 3\n", &d);
  EXPECT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(messages(d),
            "t.obj:5:1: warning: \"l\" statements ignored: only polygonal faces are converted\n"
            "t.obj:7:1: warning: \"p\" statements ignored: only polygonal faces are converted\n"
            "t.obj:8:1: warning: \"vp\" statements ignored: only polygonal faces are converted\n"
            "t.obj:9:1: warning: \"cstype\" statements ignored: only polygonal faces are converted\n"
            "t.obj:10:1: warning: unknown statement \"frobnicate\" ignored\n");
}

TEST(ObjRead, MixedCornerFormsAreAWarningAndFilledIn) {
  Diagnostics d;
  Scene s = parse(kSquare + "vt 0.5 0.5\nvn 0 0 1\nf 1/1/1 2//1 3/1/1\nf 1 3 4\n", &d);
  EXPECT_EQ(messages(d),
            "t.obj:7:9: warning: face corners in different forms (v, v/vt, v//vn, v/vt/vn): missing values are "
            "filled in\n"
            "t.obj:7:9: warning: mesh \"\": corners without texture coordinates get (0, 0)\n"
            "t.obj:8:3: warning: mesh \"\": corners without normals get (0, 0, 0)\n");
  const Mesh& m = s.meshes.at(0);
  // Vertices (1,1,1) (2,-,1) (3,1,1) (1,-,-) (3,-,-) (4,-,-).
  EXPECT_EQ(values(m, Attribute::Texcoord), (std::vector<float>{0.5f, 0.5f, 0, 1, 0.5f, 0.5f, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(values(m, Attribute::Normal), (std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ObjRead, OtherWarnings) {
  Diagnostics d;
  Scene s = parse("v 0 0 0 1 2\nv 1 0 0 1 1 1 1 9\nv 0 1 0\nvt 1 2 3 4\nvn 0 0 1 0\nv 1e39 0 0\ns\nf 1 2 3\n", &d);
  EXPECT_EQ(messages(d),
            "t.obj:1:11: warning: values after v x y z [w] [r g b] ignored\n"
            "t.obj:4:10: warning: values after vt u v w ignored\n"
            "t.obj:5:10: warning: values after vn x y z ignored\n"
            "t.obj:6:3: warning: number \"1e39\" is beyond float range: stored as infinity\n"
            "t.obj:7:1: warning: \"s\" without a group number ignored\n");
  Diagnostics e;
  parse(kSquare, &e);
  EXPECT_EQ(messages(e), "t.obj: warning: no faces: the file holds no polygonal mesh\n");
}

TEST(ObjRead, ErrorsAreLocated) {
  const std::string tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  EXPECT_EQ(error_of(tri + "f 1 2 0\n"),
            "t.obj:4:7: error: position index 0 is invalid: OBJ indices start at 1 (negative ones count back from "
            "the last)");
  EXPECT_EQ(error_of(tri + "f 1 2 4\n"), "t.obj:4:7: error: position index 4 out of range: 3 defined so far");
  EXPECT_EQ(error_of(tri + "f 1 2 -4\n"), "t.obj:4:7: error: position index -4 out of range: 3 defined so far");
  EXPECT_EQ(error_of(tri + "f 1 2 99999999999999999999999\n"),
            "t.obj:4:7: error: position index 99999999999999999999999 out of range: 3 defined so far");
  EXPECT_EQ(error_of(tri + "vt 0 0\nf 1/1 2/5 3/1\n"),
            "t.obj:5:9: error: texture coordinate index 5 out of range: 1 defined so far");
  EXPECT_EQ(error_of(tri + "f 1//1 2//1 3//1\n"), "t.obj:4:6: error: normal index 1 out of range: 0 defined so far");
  EXPECT_EQ(error_of(tri + "vn 0 0 1\nf 1//0 2//1 3//1\n"),
            "t.obj:5:6: error: normal index 0 is invalid: OBJ indices start at 1 (negative ones count back from the "
            "last)");
  EXPECT_EQ(error_of("v 0 0 x\n"), "t.obj:1:7: error: malformed number \"x\"");
  EXPECT_EQ(error_of("v 0 0.5.5 0\n"), "t.obj:1:5: error: malformed number \"0.5.5\"");
  EXPECT_EQ(error_of("v 0 ++1 0\n"), "t.obj:1:5: error: malformed number \"++1\"");
  EXPECT_EQ(error_of("v 1 2\n"), "t.obj:1:6: error: \"v\" needs x y z: 2 values given");
  EXPECT_EQ(error_of("vn 1 2 # no z\n"), "t.obj:1:8: error: \"vn\" needs x y z: 2 values given");
  EXPECT_EQ(error_of("vt\n"), "t.obj:1:3: error: \"vt\" needs at least u");
  EXPECT_EQ(error_of(tri + "f 1 2\n"), "t.obj:4:1: error: face with 2 corners: at least 3 are needed");
  EXPECT_EQ(error_of(tri + "f\n"), "t.obj:4:1: error: face with 0 corners: at least 3 are needed");
  EXPECT_EQ(error_of(tri + "f 1 2/ 3\n"),
            "t.obj:4:5: error: malformed face corner \"2/\": v, v/vt, v//vn or v/vt/vn expected");
  EXPECT_EQ(error_of(tri + "f 1 2// 3\n"),
            "t.obj:4:5: error: malformed face corner \"2//\": v, v/vt, v//vn or v/vt/vn expected");
  EXPECT_EQ(error_of(tri + "f 1 2/1/1/1 3\n"),
            "t.obj:4:5: error: malformed face corner \"2/1/1/1\": v, v/vt, v//vn or v/vt/vn expected");
  EXPECT_EQ(error_of(tri + "f 1 2.0 3\n"),
            "t.obj:4:5: error: malformed face corner \"2.0\": v, v/vt, v//vn or v/vt/vn expected");
  EXPECT_EQ(error_of(tri + "f 1 x 3\n"),
            "t.obj:4:5: error: malformed face corner \"x\": v, v/vt, v//vn or v/vt/vn expected");
  EXPECT_EQ(error_of("s on\n"), "t.obj:1:3: error: malformed smoothing group \"on\": a number or \"off\" expected");
  EXPECT_EQ(error_of("s -1\n"), "t.obj:1:3: error: malformed smoothing group \"-1\": a number or \"off\" expected");
  EXPECT_EQ(error_of("s 2147483648\n"), "t.obj:1:3: error: smoothing group \"2147483648\" out of range");
  EXPECT_EQ(error_of("v 1e999999 0 0\n"), "no error");  // beyond double: infinity, with a warning
  // The face's own position is the limit: vertices defined later are not visible yet.
  EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n"),
            "t.obj:3:7: error: position index 3 out of range: 2 defined so far");
}

TEST(ObjRead, HostileInputNeverCrashes) {
  // Random mutations of a valid file: reading either succeeds or throws meshport::Error.
  std::string base;
  {
    std::ifstream f(data("scene.obj"), std::ios::binary);
    base.assign(std::istreambuf_iterator<char>(f), {});
  }
  base = base.substr(base.find("\nv ") + 1);  // without mtllib
  std::mt19937 rng(12345);
  const char alphabet[] = "0123456789 /-\\\n\r#.efvntosg+x";
  size_t ok = 0, failed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string t = base;
    int edits = 1 + int(rng() % 8);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0:
          t[at] = alphabet[rng() % (sizeof alphabet - 1)];
          break;
        case 1:
          t.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
          break;
        default:
          t.erase(at, 1 + rng() % 4);
          break;
      }
      if (t.empty()) t = "f";
    }
    Diagnostics d;
    try {
      Scene s = obj::read(t, "fuzz.obj", no_files(), d);
      for (const Mesh& m : s.meshes)
        for (uint32_t i : m.triangles) ASSERT_LT(i, m.vertex_count());
      ++ok;
    } catch (const Error&) {
      ++failed;
    }
  }
  EXPECT_GT(ok, 100u);
  EXPECT_GT(failed, 100u);
}

// ---- Writing -----------------------------------------------------------------------------------------

TEST(ObjWrite, CornerFormsFollowTheAttributes) {
  Scene s = read(data("corners.obj"));
  EXPECT_EQ(obj_text(s),
            "# meshport\n"
            "o plain\nv 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n"
            "o textured\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nf 4/1 5/2 6/3\n"
            "o normals\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvn 0 0 1\nvn 0 0 1\nvn 0 0 -1\nf 7//1 8//2 9//3\n"
            "o full\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0.25 0.5\nvn 0 0 1\nvn 0 0 1\nvn 0 0 -1\n"
            "f 10/4/4 11/5/5 12/6/6\n");
  EXPECT_TRUE(reread(s) == s);
}

TEST(ObjRoundTrip, ObjSceneObjSceneIsEqual) {
  testutil::TempDir dir;
  Diagnostics d;
  Scene a = read(data("scene.obj"), {}, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  write(a, dir / "out.obj", {}, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_TRUE(std::filesystem::exists(dir / "out.mtl"));
  std::string mtl = testutil::slurp(dir.path / "out.mtl");
  EXPECT_EQ(mtl,
            "# meshport\n\nnewmtl wood\nKd 1 1 1\nmap_Kd tex/wood grain.png\n\nnewmtl metal\nKd 1 1 1\n"
            "map_Kd mats/metal.png\n\nnewmtl unused\nKd 1 1 1\n");
  std::string text = testutil::slurp(dir.path / "out.obj");
  EXPECT_EQ(text.rfind("# meshport\nmtllib out.mtl\no box\nusemtl wood\nv -1 0 -1 1 0 0\n", 0), 0u) << text;
  Scene b = read(dir / "out.obj", {}, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  EXPECT_TRUE(a == b);
  // And the text is stable.
  write(b, dir / "again.obj", {}, &d);
  std::string again = testutil::slurp(dir.path / "again.obj");
  EXPECT_EQ(again.substr(again.find("\no ")), text.substr(text.find("\no ")));
}

TEST(ObjRoundTrip, WriteMemoryHasNoLibraryButKeepsMaterialNames) {
  Scene a = read(data("scene.obj"));
  Diagnostics d;
  std::vector<uint8_t> bytes = write_memory(a, Format::Obj, {}, &d);
  std::string text(bytes.begin(), bytes.end());
  EXPECT_EQ(text.find("mtllib"), std::string::npos);
  EXPECT_NE(text.find("usemtl wood\n"), std::string::npos);
  Scene b = read_memory(bytes, Format::Obj, "mem.obj", &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(b.materials.size(), 2u);  // used ones only, without textures
  EXPECT_EQ(b.materials[0], mat("wood", ""));
  EXPECT_TRUE(b.meshes == a.meshes);
}

TEST(ObjRoundTrip, IqeToObjToIqeKeepsPositionsExactly) {
  const std::string iqe_text =
      "# Inter-Quake Export\n"
      "mesh hull\nmaterial hull.png\n"
      "vp 0.1 -2.5 3.3333333\nvt 0.1 0.2\nvn 0 0 1\n"
      "vp 1.0000001 7e-8 -3\nvt 0.7 0.9\nvn 0 0 1\n"
      "vp 5 5 5\nvt 1 1\nvn 0 0 1\n"
      "vp -0.2 12345.678 0.33\nvt 0 0.3\nvn 0 1 0\n"
      "vp 3 2 1\nvt 0.5 0.5\nvn 1 0 0\n"
      "fm 0 1 2 3\nfm 2 1 4\n"
      "mesh fin\n"
      "vp 1 2 3\nvp 4 5 6\nvp 7 8 9.5\nfm 0 1 2\n";
  Diagnostics d;
  Scene a = iqe::read(iqe_text, "a.iqe", d);
  Scene o = obj::read(obj_text(a, &d), "a.obj", no_files(), d);
  Scene b = iqe::read(iqe::write(o, d), "b.iqe", d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  ASSERT_EQ(b.meshes.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.meshes[i].name, b.meshes[i].name);
    EXPECT_EQ(corner_positions(a.meshes[i]), corner_positions(b.meshes[i]));
    EXPECT_EQ(corner_values(a.meshes[i], Attribute::Texcoord), corner_values(b.meshes[i], Attribute::Texcoord));
    EXPECT_EQ(corner_values(a.meshes[i], Attribute::Normal), corner_values(b.meshes[i], Attribute::Normal));
    EXPECT_EQ(a.meshes[i].vertex_count(), b.meshes[i].vertex_count());
    EXPECT_EQ(a.meshes[i].polygon_sizes, b.meshes[i].polygon_sizes);
  }
  EXPECT_EQ(b.materials.at(0).name, "hull.png");
}

TEST(ObjRoundTrip, CorpusIqeMeshesKeepCornerPositions) {
  REQUIRE_CORPUS();
  for (const char* name : {"quadA.iqe", "smooth.iqe", "longpoly.iqe", "dupmesh.iqe", "names.iqe", "m1.iqe"}) {
    Diagnostics d;
    Scene a = read(testutil::corpus(std::string("iqm/edge-cases/") + name), {}, &d);
    Scene o = obj::read(obj_text(a, &d), "a.obj", no_files(), d);
    ASSERT_EQ(o.meshes.size(), a.meshes.size()) << name;
    for (size_t i = 0; i < a.meshes.size(); ++i) {
      EXPECT_EQ(corner_positions(a.meshes[i]), corner_positions(o.meshes[i])) << name;
      EXPECT_EQ(a.meshes[i].polygon_sizes, o.meshes[i].polygon_sizes) << name;
    }
  }
}

TEST(ObjWrite, WhatObjCannotHoldIsAWarning) {
  REQUIRE_CORPUS();
  Scene s = read(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  ASSERT_EQ(s.joints.size(), 75u);
  ASSERT_EQ(s.animations.size(), 1u);
  Diagnostics d;
  std::string text = obj_text(s, &d);
  EXPECT_TRUE(has_warning(d, "OBJ has no skeleton: 75 joints and 1 animation dropped")) << messages(d);
  EXPECT_TRUE(has_warning(d, "OBJ has no blend weights: the weights of 2 meshes dropped")) << messages(d);
  Scene back = parse(text);
  ASSERT_EQ(back.meshes.size(), s.meshes.size());
  for (size_t i = 0; i < s.meshes.size(); ++i)
    EXPECT_EQ(corner_positions(back.meshes[i]), corner_positions(s.meshes[i]));
}

TEST(ObjWrite, NamesAreMadeReadable) {
  Scene s = parse(kSquare + "f 1 2 3\n");
  s.meshes[0].name = " a\nb #c\\";
  s.materials = {testutil::material("m", ""), testutil::material("m", ""), testutil::material("", "x.png")};
  s.meshes[0].material = 1;
  Diagnostics d;
  std::string text = obj_text(s, &d);
  EXPECT_NE(text.find("o a b _c/\nusemtl m_2\n"), std::string::npos) << text;
  EXPECT_TRUE(has_warning(d, "mesh name \" a\\x0ab #c\\\" cannot be written to OBJ as it is: written as \"a b _c/\""))
      << messages(d);
  EXPECT_TRUE(has_warning(d, "material name \"m\" is used twice: the second is written as \"m_2\"")) << messages(d);
  Scene back = parse(text);
  EXPECT_EQ(back.meshes.at(0).name, "a b _c/");
}

TEST(ObjWrite, NoMaterialAfterAMaterialIsAnEmptyUsemtl) {
  Scene s = parse(kSquare + "usemtl a\nf 1 2 3\nusemtl\nf 1 2 3\n");
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[1].material, -1);
  std::string text = obj_text(s);
  EXPECT_NE(text.find("o\nusemtl\n"), std::string::npos) << text;
  EXPECT_TRUE(reread(s) == s);
}

TEST(ObjWrite, TexturePathsRelativeToTheOutputWhenFound) {
  testutil::TempDir dir;
  std::filesystem::create_directories(dir.path / "in" / "tex");
  std::filesystem::create_directories(dir.path / "out" / "deep");
  { std::ofstream(dir.path / "in" / "tex" / "a.png") << "png"; }
  Scene s = parse(kSquare + "f 1 2 3\n");
  s.materials = {testutil::material("found", "tex/a.png"), testutil::material("missing", "tex/b.png")};
  s.meshes[0].material = 0;
  WriteOptions o;
  o.texture_dir = (dir.path / "in").string();
  Diagnostics d;
  write(s, dir / "out/deep/m.obj", o, &d);
  EXPECT_EQ(d.items.size(), 0u) << messages(d);
  EXPECT_EQ(testutil::slurp(dir.path / "out/deep/m.mtl"),
            "# meshport\n\nnewmtl found\nKd 1 1 1\nmap_Kd ../../in/tex/a.png\n\nnewmtl missing\nKd 1 1 1\n"
            "map_Kd tex/b.png\n");
  // Through convert, texture_dir is the input's folder.
  { std::ofstream(dir.path / "in" / "m.mtl") << "newmtl found\nmap_Kd tex/a.png\n"; }
  { std::ofstream(dir.path / "in" / "m.obj") << "mtllib m.mtl\n" << kSquare << "usemtl found\nf 1 2 3\n"; }
  ConvertOptions c;
  c.process.normals = Generate::Off;
  convert({dir / "in/m.obj"}, dir / "out/c.obj", c, &d);
  EXPECT_NE(testutil::slurp(dir.path / "out/c.mtl").find("map_Kd ../in/tex/a.png\n"), std::string::npos);
}

TEST(ObjWrite, PolygonsThatAreNotFansAreWrittenAsTriangles) {
  Scene s = parse(kSquare + "s 1\nf 1 2 3 4\n");
  s.meshes[0].triangles = {0, 1, 2, 1, 2, 3};  // not a fan around corner 0
  Diagnostics d;
  std::string text = obj_text(s, &d);
  EXPECT_TRUE(has_warning(d, "polygon_sizes do not describe fans of its triangles")) << messages(d);
  EXPECT_NE(text.find("f 1 2 3\nf 2 3 4\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("\ns "), std::string::npos) << text;
}

TEST(ObjWrite, InconsistentMeshesFail) {
  Scene s = parse(kSquare + "f 1 2 3\n");
  s.meshes[0].triangles[1] = 7;
  Diagnostics d;
  EXPECT_THROW(obj_text(s, &d), Error);
}

}  // namespace meshport_test_obj
