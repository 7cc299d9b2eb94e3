// Issue 18 ("any glTF in"): what real exporters write, carried into the old formats without
// silent loss. This file: unnamed materials, images that cannot be used, PIE texture pages of
// embedded images, the PIE polygon limit and --simplify, several scenes (--scene).
#include "gltf_builder.h"
#include "image/image.h"
#include "image_samples.h"
#include "ops/materials/material_names.h"
#include "test_util.h"

#include <meshport/meshport.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace meshport_test_gltf_any {

using namespace meshport;
using testutil::GltfBuilder;
using json = nlohmann::json;

namespace {

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items)
    if (x.message.find(part) != std::string::npos) return true;
  return false;
}

// A triangle at x offset `x` in the builder, with material `material` (-1: none).
json triangle_primitive(GltfBuilder& b, float x, int material) {
  size_t pos = b.floats({x, 0, 0, x + 1, 0, 0, x, 1, 0}, "VEC3");
  size_t uv = b.floats({0, 0, 1, 0, 0, 1}, "VEC2");
  json p = {{"attributes", {{"POSITION", pos}, {"TEXCOORD_0", uv}}}};
  if (material >= 0) p["material"] = material;
  return p;
}

// `n` unnamed materials (the AnisotropyStrengthTest case), one triangle mesh each.
GltfBuilder unnamed_materials(int n) {
  GltfBuilder b;
  json roots = json::array();
  for (int i = 0; i < n; ++i) {
    b.doc["materials"].push_back({{"pbrMetallicRoughness", {{"roughnessFactor", float(i) / float(n)}}}});
    size_t m = b.mesh(json::array({triangle_primitive(b, float(i) * 2, i)}), fmt::format("m{}", i));
    roots.push_back(b.node({{"mesh", m}}));
  }
  b.scene(roots);
  return b;
}

Scene read_gltf(const GltfBuilder& b, Diagnostics* d = nullptr) {
  std::string t = b.gltf();
  return read_memory(std::vector<uint8_t>(t.begin(), t.end()), Format::Gltf, "test.gltf", d);
}

}  // namespace

// ---- Unnamed materials ---------------------------------------------------------------------

TEST(MaterialNames, DistinctStableStrings) {
  Scene s;
  auto add = [&](std::string name, std::string tex) { s.materials.push_back(testutil::material(name, tex)); };
  add("", "");             // material0
  add("", "skin.png");     // skin.png
  add("", "skin.png");     // same texture, unnamed: skin.png (nothing else tells them apart)
  add("skin.png", "");     // named, and an earlier one has the string: skin.png_2
  add("metal", "a.png");   // metal
  add("metal", "b.png");   // metal_2
  add("", "");             // material6
  add("material6", "");    // taken by the unnamed one before it: material6_2
  add("", "x/y.tga");      // x/y.tga
  add("x/y.tga", "");      // x/y.tga_2
  size_t renamed = 0;
  std::vector<std::string> k = ops::material_keys(s, &renamed);
  EXPECT_EQ(k, (std::vector<std::string>{"material0", "skin.png", "skin.png", "skin.png_2", "metal", "metal_2",
                                         "material6", "material6_2", "x/y.tga", "x/y.tga_2"}));
  EXPECT_EQ(renamed, 4u);
  // Stable: the same Scene gives the same strings.
  EXPECT_EQ(ops::material_keys(s), k);
}

TEST(MaterialNames, FiftyUnnamedGltfMaterialsStayFiftyInIqeAndIqm) {
  const GltfBuilder b = unnamed_materials(50);
  Diagnostics d;
  Scene g = read_gltf(b, &d);
  ASSERT_EQ(g.materials.size(), 50u);
  for (Format f : {Format::Iqe, Format::Iqm}) {
    SCOPED_TRACE(std::string(format_info(f).name));
    std::vector<uint8_t> out = write_memory(g, f);
    Scene back = read_memory(out, f, f == Format::Iqe ? "t.iqe" : "t.iqm");
    ASSERT_EQ(back.meshes.size(), 50u);
    ASSERT_EQ(back.materials.size(), 50u);
    std::set<std::string> names;
    for (size_t i = 0; i < back.meshes.size(); ++i) {
      ASSERT_GE(back.meshes[i].material, 0);
      names.insert(back.materials[size_t(back.meshes[i].material)].name);
    }
    EXPECT_EQ(names.size(), 50u);
    EXPECT_EQ(back.materials[size_t(back.meshes[7].material)].name, "material7");
    // Written again, the names stay.
    Scene again = read_memory(write_memory(back, f), f, f == Format::Iqe ? "t.iqe" : "t.iqm");
    EXPECT_EQ(again.materials, back.materials);
  }
  // A .glb keeps them as they are: 50 materials without names, valid.
  testutil::TempDir dir;
  const std::string glb = (dir.path / "fifty.glb").string();
  write(g, glb);
  const Scene back = read(glb);
  EXPECT_EQ(back.materials, g.materials);
  std::string report;
  EXPECT_TRUE(testutil::validate_gltf({glb}, report)) << report;
  // OBJ names them too (its own rule, material<i>).
  std::vector<uint8_t> obj = write_memory(g, Format::Obj);
  std::string text(obj.begin(), obj.end());
  EXPECT_NE(text.find("usemtl material49"), std::string::npos);
}

TEST(MaterialNames, DuplicateNamesWarnInIqm) {
  Scene s;
  s.materials.push_back(testutil::material("metal"));
  s.materials.push_back(testutil::material("metal"));
  for (int i = 0; i < 2; ++i) {
    Mesh m;
    m.name = fmt::format("m{}", i);
    m.material = i;
    m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
    m.triangles = {0, 1, 2};
    s.meshes.push_back(m);
  }
  Diagnostics d;
  Scene back = read_memory(write_memory(s, Format::Iqm, {}, &d), Format::Iqm, "t.iqm");
  EXPECT_TRUE(has_warning(d, "1 materials have the name of an earlier one"));
  ASSERT_EQ(back.materials.size(), 2u);
  EXPECT_EQ(back.materials[1].name, "metal_2");
}

// ---- Images that cannot be used ------------------------------------------------------------

// A texture file the glTF names but that is not there: the .glb writer, which needs its bytes,
// names the material (KTX2 / WebP: test_gltf_images.cpp).
TEST(GltfImagesMissing, MissingTextureFileIsNamedWithItsMaterial) {
  testutil::TempDir dir;
  GltfBuilder b = unnamed_materials(1);
  b.doc["materials"][0]["name"] = "Body";
  b.doc["images"] = json::array({{{"uri", "missing.png"}}});
  b.doc["textures"] = json::array({{{"source", 0}}});
  b.doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 0}};
  const std::string in = (dir.path / "t.gltf").string();
  {
    std::ofstream f(in);
    f << b.gltf();
  }
  Diagnostics d;
  convert({in}, (dir.path / "t.glb").string(), {}, &d);
  EXPECT_TRUE(has_warning(d, "material 'Body': base colour texture 'missing.png' not found")) << d.items.size();
  Scene back = read((dir.path / "t.glb").string());
  EXPECT_TRUE(back.images.empty());
  EXPECT_EQ(back.materials.at(0).base_color_texture, "missing.png");
}

// ---- PIE texture pages: judged by their bytes, not their names ---------------------------------

namespace {

void write_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

}  // namespace

// A glTF naming its PNG texture "CheckAndX" (no extension) and a TGA: PIE gets PNG pages named
// as PIE expects, with the same pixels.
TEST(PiePagesByBytes, TextureFilesWithoutPngNamesBecomePages) {
  testutil::TempDir dir;
  const image::Pixels a = image_samples::picture(4, 2), b = image_samples::picture(3, 3, false);
  write_bytes(dir.path / "CheckAndX", image_samples::png(a));
  write_bytes(dir.path / "hull.tga", image_samples::tga(b, 24, false));
  GltfBuilder g = unnamed_materials(2);
  g.doc["materials"][0]["name"] = "Check";
  g.doc["materials"][1]["name"] = "Hull";
  g.doc["images"] = json::array({{{"uri", "CheckAndX"}, {"mimeType", "image/png"}}, {{"uri", "hull.tga"}}});
  g.doc["textures"] = json::array({{{"source", 0}}, {{"source", 1}}});
  g.doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 0}};
  g.doc["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"] = {{"index", 1}};
  const std::string in = (dir.path / "t.gltf").string();
  {
    std::ofstream f(in);
    f << g.gltf();
  }
  Diagnostics d;
  convert({in}, (dir.path / "t.pie").string(), {}, &d);
  const std::string pie = testutil::slurp(dir.path / "t.pie");
  EXPECT_NE(pie.find("TEXTURE 0 page-100-CheckAndX.png"), std::string::npos) << pie;
  auto decoded = [&](const char* file) {
    std::vector<uint8_t> bytes;
    const std::string t = testutil::slurp(dir.path / file);
    bytes.assign(t.begin(), t.end());
    return image::decode_image(bytes, file, image::ImageLimits{});
  };
  image::DecodedImage page = decoded("page-100-CheckAndX.png");
  ASSERT_EQ(page.error, "");
  EXPECT_EQ(page.pixels.rgba, a.rgba);
  // The TGA became a PNG page too (PIE 4 writes each level's page as a per-level override).
  image::DecodedImage hull = decoded("page-101-hull.png");
  ASSERT_EQ(hull.error, "");
  EXPECT_EQ(hull.pixels.width, 3u);
  EXPECT_EQ(hull.pixels.rgba, image_samples::picture(3, 3, false).rgba);
  // Reading the PIE back finds its page.
  Scene back = read((dir.path / "t.pie").string());
  ASSERT_FALSE(back.materials.empty());
  EXPECT_EQ(back.materials[0].base_color_texture, "page-100-CheckAndX.png");
}

// ---- Several scenes ------------------------------------------------------------------------

namespace {

// Three scenes: "Small" (one triangle), "Big" (two, the file's default), "Empty".
std::string three_scenes(testutil::TempDir& dir) {
  GltfBuilder b = unnamed_materials(3);
  b.doc["scenes"] = json::array({{{"name", "Small"}, {"nodes", {0}}}, {{"name", "Big"}, {"nodes", {1, 2}}},
                                 {{"name", "Empty"}, {"nodes", json::array()}}});
  b.doc["scene"] = 1;
  const std::string in = (dir.path / "scenes.gltf").string();
  std::ofstream(in) << b.gltf();
  return in;
}

}  // namespace

TEST(GltfScenes, DefaultSceneIsReadWithANoteAndSceneNPicksAnother) {
  testutil::TempDir dir;
  const std::string in = three_scenes(dir);
  Diagnostics d;
  std::vector<SceneEntry> list;
  ReadOptions o;
  o.scenes = &list;
  Scene s = read(in, o, &d);
  EXPECT_EQ(s.meshes.size(), 2u);
  EXPECT_TRUE(has_warning(d, "note: the file has 3 scenes; scenes[1] ('Big') is read (--scene N reads another"));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].name, "Small");
  EXPECT_EQ(list[1].root_nodes, 2u);
  EXPECT_TRUE(list[1].is_default && list[1].read);
  EXPECT_FALSE(list[0].read || list[2].read || list[0].is_default);
  o.scene = 0;
  Scene small = read(in, o);
  ASSERT_EQ(small.meshes.size(), 1u);
  EXPECT_EQ(small.meshes[0].name, "m0");
  EXPECT_TRUE(list[0].read && list[1].is_default && !list[1].read);
  o.scene = 2;
  EXPECT_TRUE(read(in, o).meshes.empty());
  o.scene = 3;
  try {
    read(in, o);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, "--scene 3: the file has 3 scenes (0..2)");
  }
}

TEST(GltfScenes, CliConvertAndInfo) {
  testutil::TempDir dir;
  const std::string in = three_scenes(dir);
  const std::string out = (dir.path / "small.iqe").string();
  testutil::CliRun r = testutil::run_cli("convert " + in + " -o " + out + " --scene 0");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read(out).meshes.size(), 1u);
  r = testutil::run_cli("info " + in);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("  scenes: 3 (--scene N reads another)\n    0: \"Small\", 1 root nodes\n    1: \"Big\", 2 root "
                       "nodes, default, read\n    2: \"Empty\", 0 root nodes\n"),
            std::string::npos)
      << r.out;
  r = testutil::run_cli("info --json --scene 2 " + in);
  ASSERT_EQ(r.status, 0) << r.out;
  json j = json::parse(r.out.substr(r.out.find("{\n"), r.out.rfind("\n}") + 2 - r.out.find("{\n")));
  EXPECT_EQ(j["scenes"][2]["read"], true);
  EXPECT_EQ(j["meshes"].size(), 0u);
  // Other formats have one scene.
  r = testutil::run_cli("convert " + out + " -o " + (dir.path / "x.iqm").string() + " --scene 1");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--scene 1: iqe files have one scene (0)"), std::string::npos) << r.out;
}

}  // namespace meshport_test_gltf_any
