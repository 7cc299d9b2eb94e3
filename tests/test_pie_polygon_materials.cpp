// PIE polygons as glTF materials (docs/pie.md "Through Blender: polygon materials"), without
// Blender: what the writer makes of a level with several polygon kinds, that meshport's own
// reader joins it back exactly, and what it does with the mesh extras a tool left stale.
#include "glb_json.h"
#include "test_util.h"

#include <nlohmann/json.hpp>

#include <cstring>

namespace meshport_test_pie_polygon_materials {

using namespace meshport;
using json = nlohmann::json;

namespace {

const std::string kData = MESHPORT_TEST_DATA;



std::string all(const Diagnostics& d) {
  std::string r;
  for (const auto& x : d.items) r += x.message + "\n";
  return r;
}

std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

}  // namespace

// feat-pie2.pie's level holds a plain polygon and a texture-animated one: two primitives on the
// same vertex arrays, the second with a copy of the page's material carrying the polygon.
TEST(PiePolygonMaterials, ALevelOfTwoPolygonKindsIsTwoPrimitivesOfOneMesh) {
  Diagnostics d;
  const Scene a = read(kData + "/pie/feat-pie2.pie", {}, &d);
  const std::vector<uint8_t> glb = write_memory(a, Format::Glb, {}, &d);
  const json doc = testutil::glb_json(glb);
  ASSERT_EQ(doc["meshes"].size(), 1u);
  const json& prims = doc["meshes"][0]["primitives"];
  ASSERT_EQ(prims.size(), 2u);
  EXPECT_EQ(prims[0]["attributes"], prims[1]["attributes"]);
  const json& plain = doc["materials"][prims[0]["material"].get<size_t>()];
  const json& animated = doc["materials"][prims[1]["material"].get<size_t>()];
  const std::string page = a.materials[0].name;
  EXPECT_EQ(plain["name"], page);
  EXPECT_EQ(plain["extras"]["meshport"]["pie_polygon"], json({{"flags", 512}}));
  EXPECT_EQ(animated["name"], page + " pie 4200");
  EXPECT_EQ(animated["extras"]["meshport"]["pie_base"], page);
  // feat-pie2.pie: 4200 3 0 2 3 4 66 32 16 ... (PIE 2: frame size / 256).
  EXPECT_EQ(animated["extras"]["meshport"]["pie_polygon"],
            json({{"flags", 0x4200}, {"frames", 4}, {"rate", 66}, {"width", 0.125}, {"height", 0.0625}}));
  EXPECT_EQ(animated["pbrMetallicRoughness"], plain["pbrMetallicRoughness"]);
  // Back: one mesh, the same triangles in the same order with the same channels, one material.
  Diagnostics dr;
  const Scene b = read_memory(glb, Format::Glb, "feat-pie2.glb", &dr);
  EXPECT_EQ(b.materials, a.materials);
  ASSERT_EQ(b.meshes.size(), a.meshes.size());
  EXPECT_EQ(b.meshes[0].triangles, a.meshes[0].triangles);
  EXPECT_EQ(b.meshes[0].face_channels, a.meshes[0].face_channels);
  EXPECT_EQ(b.meshes[0].material, 0);
  EXPECT_EQ(b.meshes[0].name, a.meshes[0].name);
  EXPECT_EQ(text_of(write_memory(b, Format::Pie)), text_of(write_memory(a, Format::Pie)));
  EXPECT_EQ(all(dr), "");
}

// Blender splits vertices: the mesh extras' "pie.point" stream no longer fits. It is dropped
// quietly (the PIE writer matches points by position), and the face channels stay: before, the
// stream was taken for a face channel ("44 triangles" for 44 vertices) and both were dropped.
TEST(PiePolygonMaterials, AStalePointStreamLeavesTheChannelsAndIsNoWarning) {
  Diagnostics d;
  const Scene a = read(kData + "/pie/feat-pie2.pie", {}, &d);
  const std::vector<uint8_t> glb = write_memory(a, Format::Glb, {}, &d);
  json doc = testutil::glb_json(glb);
  json& streams = doc["meshes"][0]["extras"]["meshport"]["format_streams"];
  ASSERT_EQ(streams.size(), 1u);
  streams[0]["data"].push_back(0);  // one vertex more than the primitive has
  Diagnostics d2;
  const Scene b = read_memory(testutil::with_glb_json(glb, doc), Format::Glb, "split.glb", &d2);
  EXPECT_EQ(all(d2), "");
  EXPECT_EQ(b.meshes[0].face_channels, a.meshes[0].face_channels);
  EXPECT_EQ(b.meshes[0].streams.size(), a.meshes[0].streams.size() - 1);  // no pie.point
  Diagnostics d3;
  EXPECT_EQ(text_of(write_memory(b, Format::Pie, {}, &d3)), text_of(write_memory(a, Format::Pie)));
  EXPECT_EQ(all(d3), "");

  // A mesh without polygon materials (a file of the older writer): its stale face channels are
  // still an error of the extras, named with true counts.
  json old = testutil::glb_json(glb);
  for (json& m : old["materials"]) m["extras"]["meshport"].erase("pie_polygon");
  old["meshes"][0]["primitives"].erase(1);
  Diagnostics d4;
  read_memory(testutil::with_glb_json(glb, old), Format::Glb, "old.glb", &d4);
  EXPECT_NE(all(d4).find("has 2 values, 2 triangles of 1, but the primitive has 1 triangles"), std::string::npos)
      << all(d4);
}

// A level of one polygon kind only (turret.pie's level 2, all 4200) stays one primitive, with the
// copy of its material; the level's material is the one the Scene gets back.
TEST(PiePolygonMaterials, ALevelOfOneAnimatedKindUsesItsCopy) {
  Diagnostics d;
  const Scene a = read(kData + "/cli/turret.pie", {}, &d);
  const std::vector<uint8_t> glb = write_memory(a, Format::Glb, {}, &d);
  const json doc = testutil::glb_json(glb);
  ASSERT_EQ(doc["meshes"].size(), 2u);
  EXPECT_EQ(doc["meshes"][1]["primitives"].size(), 1u);
  const json& m = doc["materials"][doc["meshes"][1]["primitives"][0]["material"].get<size_t>()];
  EXPECT_EQ(m["extras"]["meshport"]["pie_polygon"]["flags"], 0x4200);
  const Scene b = read_memory(glb, Format::Glb, "turret.glb", &d);
  EXPECT_EQ(b.materials, a.materials);
  EXPECT_EQ(b.meshes[1].material, a.meshes[1].material);
  EXPECT_EQ(b.meshes[1].face_channels, a.meshes[1].face_channels);
  EXPECT_EQ(text_of(write_memory(b, Format::Pie)), text_of(write_memory(a, Format::Pie)));
}

}  // namespace meshport_test_pie_polygon_materials
