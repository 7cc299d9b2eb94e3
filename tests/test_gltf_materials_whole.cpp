// glTF materials kept whole (issue 33): every texture slot with its texCoord and
// KHR_texture_transform, alphaMode / alphaCutoff, doubleSided, the KHR_materials_* extensions
// (their textures renumbered with the images), KHR_materials_variants with the variant
// materials' textures; a quantized-UV glb whose texture file is missing keeps its dequantization;
// image references keep their extension (.jpeg); other formats warn about what they cannot keep.
// The inputs are built here, shaped like the Khronos samples the issue names (MultiUVTest,
// GlamVelvetSofa, SheenChair, Lantern-Quantized, LightsPunctualLamp).
#include "gltf_builder.h"
#include "image/image.h"
#include "image_samples.h"
#include "test_util.h"

#include <meshport/meshport.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace meshport_test_gltf_materials_whole {

using namespace meshport;
using json = nlohmann::json;

namespace {

using testutil::bytes_of;
using testutil::GltfBuilder;

void write_file(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// A distinct 2x2 PNG for every k.
std::vector<uint8_t> png(uint32_t k) {
  image::Pixels p;
  p.width = p.height = 2;
  for (uint32_t i = 0; i < 4; ++i) p.rgba.insert(p.rgba.end(), {uint8_t(k * 17), uint8_t(i * 60), uint8_t(255 - k), 255});
  return image::encode_png(p);
}

// A glb's JSON and binary chunk.
struct Glb {
  json doc;
  std::vector<uint8_t> bin;
};
Glb parse_glb(const std::vector<uint8_t>& g) {
  Glb r;
  uint32_t len = 0;
  std::memcpy(&len, g.data() + 12, 4);
  r.doc = json::parse(g.begin() + 20, g.begin() + 20 + len);
  if (g.size() > 20 + len + 8) r.bin.assign(g.begin() + 20 + len + 8, g.end());
  return r;
}
Glb read_glb(const std::string& path) {
  const std::string t = testutil::slurp(path);
  return parse_glb(std::vector<uint8_t>(t.begin(), t.end()));
}

// The bytes of glTF texture `t` of `g` (its image in the buffer), as a string.
std::string texture_bytes(const Glb& g, size_t t) {
  const json& img = g.doc["images"][g.doc["textures"][t]["source"].get<size_t>()];
  const json& v = g.doc["bufferViews"][img["bufferView"].get<size_t>()];
  const size_t off = v.value("byteOffset", size_t(0)), n = v["byteLength"].get<size_t>();
  return std::string(g.bin.begin() + long(off), g.bin.begin() + long(off + n));
}

// `m` with every textureInfo's index replaced by its image's bytes and meshport's extras removed:
// two materials are the same when these are equal, however the textures are numbered.
json normalized(const Glb& g, json m) {
  std::function<void(json&)> walk = [&](json& o) {
    if (o.is_array())
      for (json& x : o) walk(x);
    if (!o.is_object()) return;
    for (auto& [key, v] : o.items()) {
      if (key.size() > 7 && key.substr(key.size() - 7) == "Texture" && v.is_object() && v.contains("index")) {
        const std::string b = texture_bytes(g, v["index"].get<size_t>());
        v["index"] = testutil::base64(std::vector<uint8_t>(b.begin(), b.end()));
      }
      walk(v);
    }
  };
  walk(m);
  if (m.contains("extras")) {
    m["extras"].erase("meshport");
    if (m["extras"].empty()) m.erase("extras");
  }
  return m;
}

// A quad with normals and two texture coordinate sets, using `material`; `extensions` on its
// primitive when given.
void add_quad(GltfBuilder& b, int material, json prim_extensions = nullptr) {
  const size_t pos = b.floats({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, "VEC3");
  b.doc["accessors"][pos]["min"] = {0, 0, 0};
  b.doc["accessors"][pos]["max"] = {1, 1, 0};
  const size_t nrm = b.floats({0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  const size_t tan = b.floats({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, "VEC4");
  const size_t uv0 = b.floats({0, 1, 1, 1, 1, 0, 0, 0}, "VEC2");
  const size_t uv1 = b.floats({0.5f, 0.5f, 1, 0.5f, 1, 0, 0.5f, 0}, "VEC2");
  const size_t idx = b.ushorts({0, 1, 2, 0, 2, 3});
  json prim = {{"attributes", {{"POSITION", pos}, {"NORMAL", nrm}, {"TANGENT", tan}, {"TEXCOORD_0", uv0}, {"TEXCOORD_1", uv1}}},
               {"indices", idx},
               {"material", material}};
  if (!prim_extensions.is_null()) prim["extensions"] = prim_extensions;
  b.mesh(json::array({prim}), "quad");
  b.node({{"mesh", 0}, {"name", "quad"}});
  b.scene({0});
}

// Images 0..n-1 (distinct PNGs in the buffer) and textures 0..n-1.
void add_textures(GltfBuilder& b, uint32_t n) {
  for (uint32_t k = 0; k < n; ++k) {
    const size_t v = b.view(png(k));
    b.doc["images"].push_back({{"bufferView", v}, {"mimeType", "image/png"}, {"name", fmt::format("t{}", k)}});
    b.doc["textures"].push_back({{"source", k}});
  }
}

json tt(json o) { return {{"KHR_texture_transform", std::move(o)}}; }

// Every slot, texCoord set, transform and the extensions real exporters write (texture 8 is
// not used: KHR_materials_volume, which the validator wants on single-sided materials, is on a
// variant material below).
json whole_material() {
  return {
      {"name", "whole"},
      {"pbrMetallicRoughness",
       {{"baseColorFactor", {0.5, 0.25, 1, 1}},
        {"baseColorTexture", {{"index", 0}, {"extensions", tt({{"offset", {0.25, 0.5}}, {"scale", {2, 2}}})}}},
        {"metallicFactor", 0.5},
        {"roughnessFactor", 0.75},
        {"metallicRoughnessTexture", {{"index", 1}, {"texCoord", 1}, {"extensions", tt({{"rotation", 0.5}})}}}}},
      {"normalTexture", {{"index", 2}, {"scale", 0.5}}},
      {"occlusionTexture", {{"index", 3}, {"strength", 0.25}, {"texCoord", 1}}},
      {"emissiveTexture", {{"index", 4}, {"texCoord", 1}, {"extensions", tt({{"offset", {0.5, 0}}})}}},
      {"emissiveFactor", {1, 0.5, 0.25}},
      {"alphaMode", "MASK"},
      {"alphaCutoff", 0.25},
      {"doubleSided", true},
      {"extensions",
       {{"KHR_materials_emissive_strength", {{"emissiveStrength", 5.5}}},
        {"KHR_materials_specular",
         {{"specularFactor", 0.8},
          {"specularColorFactor", {1, 0.9, 0.8}},
          {"specularColorTexture", {{"index", 5}}},
          {"specularTexture", {{"index", 6}, {"texCoord", 1}}}}},
        {"KHR_materials_ior", {{"ior", 1.45}}},
        {"KHR_materials_transmission", {{"transmissionFactor", 0.5}, {"transmissionTexture", {{"index", 7}}}}},
        {"KHR_materials_clearcoat",
         {{"clearcoatFactor", 1},
          {"clearcoatTexture", {{"index", 9}}},
          {"clearcoatRoughnessFactor", 0.25},
          {"clearcoatRoughnessTexture", {{"index", 10}}},
          {"clearcoatNormalTexture", {{"index", 11}, {"scale", 0.5}, {"extensions", tt({{"scale", {4, 4}}})}}}}},
        {"KHR_materials_sheen",
         {{"sheenColorFactor", {0.5, 0.5, 1}},
          {"sheenColorTexture", {{"index", 12}}},
          {"sheenRoughnessFactor", 0.5},
          {"sheenRoughnessTexture", {{"index", 13}}}}}}},
      {"extras", {{"author", "test"}}}};
}

const char* kWholeExtensions[] = {"KHR_texture_transform",      "KHR_materials_emissive_strength",
                                  "KHR_materials_specular",     "KHR_materials_ior",
                                  "KHR_materials_transmission", "KHR_materials_clearcoat",
                                  "KHR_materials_sheen"};

GltfBuilder whole_model() {
  GltfBuilder b;
  add_textures(b, 14);
  b.doc["materials"] = json::array({whole_material()});
  // TextureSettingsTest's kind: samplers with wrap modes and filters.
  b.doc["samplers"] = json::array({{{"magFilter", 9728}, {"wrapS", 33071}}, {{"wrapT", 33648}, {"minFilter", 9987}}});
  b.doc["textures"][0]["sampler"] = 0;
  b.doc["textures"][9]["sampler"] = 1;
  add_quad(b, 0);
  for (const char* e : kWholeExtensions) b.doc["extensionsUsed"].push_back(e);
  return b;
}

bool contains(const json& list, const std::string& s) {
  return list.is_array() && std::find(list.begin(), list.end(), s) != list.end();
}

// ---- glb -> glb ----------------------------------------------------------------------------------

TEST(GltfMaterialsWhole, EverySlotTexCoordTransformAndExtensionRoundTripsGlbToGlb) {
  testutil::TempDir dir;
  const GltfBuilder b = whole_model();
  write_file(dir / "in.glb", b.glb());
  auto r = testutil::run_cli("convert '" + dir / "in.glb" + "' -o '" + dir / "out.glb" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const Glb in = parse_glb(b.glb()), out = read_glb(dir / "out.glb");
  ASSERT_EQ(out.doc["materials"].size(), 1u);
  EXPECT_EQ(normalized(out, out.doc["materials"][0]), normalized(in, in.doc["materials"][0]));
  EXPECT_EQ(out.doc["images"].size(), 13u);  // the 13 the material uses
  EXPECT_EQ(out.doc["textures"].size(), 13u);
  // Each texture keeps its sampler.
  auto sampler = [](const Glb& g, const json& info) {
    const json& t = g.doc["textures"][info["index"].get<size_t>()];
    return t.contains("sampler") ? g.doc["samplers"][t["sampler"].get<size_t>()] : json();
  };
  const json& mi = in.doc["materials"][0];
  const json& mo = out.doc["materials"][0];
  ASSERT_TRUE(mo["pbrMetallicRoughness"].contains("baseColorTexture"));
  ASSERT_TRUE(mo.contains("extensions") && mo["extensions"].contains("KHR_materials_clearcoat"));
  EXPECT_EQ(sampler(out, mo["pbrMetallicRoughness"]["baseColorTexture"]), in.doc["samplers"][0]);
  EXPECT_EQ(sampler(out, mo["extensions"]["KHR_materials_clearcoat"]["clearcoatTexture"]),
            sampler(in, mi["extensions"]["KHR_materials_clearcoat"]["clearcoatTexture"]));
  EXPECT_EQ(sampler(out, mo["normalTexture"]), json());
  EXPECT_EQ(out.doc["samplers"].size(), 2u);
  for (const char* e : kWholeExtensions) EXPECT_TRUE(contains(out.doc.value("extensionsUsed", json()), e)) << e;
  EXPECT_FALSE(out.doc.contains("extensionsRequired"));

  // A second pass gives the same material again, and the output is validator-clean.
  r = testutil::run_cli("convert '" + dir / "out.glb" + "' -o '" + dir / "again.glb" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const Glb again = read_glb(dir / "again.glb");
  EXPECT_EQ(normalized(again, again.doc["materials"][0]), normalized(in, in.doc["materials"][0]));
  std::string report;
  EXPECT_TRUE(testutil::validate_gltf({dir / "out.glb"}, report)) << report;
}

TEST(GltfMaterialsWhole, SceneHoldsTheSlotsAndTheExtensionsAsData) {
  Diagnostics d;
  const Scene s = read_memory(whole_model().glb(), Format::Glb, "in.glb", &d);
  ASSERT_EQ(s.materials.size(), 1u);
  const Material& m = s.materials[0];
  EXPECT_EQ(m.metallic_roughness_texture.texture, "t1.png");
  EXPECT_EQ(m.metallic_roughness_texture.texcoord, 1u);
  EXPECT_EQ(m.metallic_roughness_texture.transform.rotation, 0.5f);
  EXPECT_EQ(m.occlusion_texture.texture, "t3.png");
  EXPECT_EQ(m.occlusion_texture.texcoord, 1u);
  EXPECT_EQ(m.occlusion_strength, 0.25f);
  EXPECT_EQ(m.emissive_texture.texture, "t4.png");
  EXPECT_EQ(m.emissive_texture.texcoord, 1u);  // MultiUVTest: the emissive map on set 1
  EXPECT_EQ(m.emissive_texture.transform.offset, (std::array<float, 2>{0.5f, 0}));
  EXPECT_EQ(m.normal_scale, 0.5f);
  EXPECT_TRUE(m.double_sided);
  EXPECT_EQ(m.alpha_mode, AlphaMode::Mask);
  EXPECT_EQ(m.alpha_cutoff, 0.25f);
  EXPECT_EQ(m.specular_texture, "t5.png");
  // The extension textures in the order the (sorted) extensions list them.
  EXPECT_EQ(m.extension_textures, (std::vector<std::string>{"t11.png", "t10.png", "t9.png", "t12.png", "t13.png",
                                                            "t6.png", "t7.png"}));
  const json ext = json::parse(m.gltf_extensions);
  EXPECT_EQ(ext["KHR_materials_clearcoat"]["clearcoatTexture"]["index"], 2);
  EXPECT_FALSE(ext["KHR_materials_specular"].contains("specularColorTexture"));  // in specular_texture
  EXPECT_EQ(ext["KHR_materials_emissive_strength"]["emissiveStrength"], 5.5);
  EXPECT_EQ(json::parse(m.gltf_extras), (json{{"author", "test"}}));
  TextureSampler base, clearcoat;
  base.mag_filter = 9728, base.wrap_s = 33071;
  clearcoat.min_filter = 9987, clearcoat.wrap_t = 33648;
  EXPECT_EQ(m.samplers, (std::vector<std::pair<std::string, TextureSampler>>{{"base colour", base},
                                                                             {"extension texture 2", clearcoat}}));
}

// ---- KHR_materials_variants ----------------------------------------------------------------------

TEST(GltfMaterialsWhole, VariantMaterialsKeepTheirTexturesAndTransforms) {
  testutil::TempDir dir;
  GltfBuilder b;
  add_textures(b, 5);
  b.doc["materials"] = json::array(
      {{{"name", "default"}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}},
       {{"name", "red"},
        {"pbrMetallicRoughness",
         {{"baseColorTexture", {{"index", 1}, {"extensions", tt({{"offset", {0.25, 0}}, {"scale", {0.5, 0.5}}})}}}}}},
       {{"name", "blue"},
        {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 2}, {"extensions", tt({{"rotation", 0.25}})}}}}},
        {"normalTexture", {{"index", 3}, {"texCoord", 1}}},
        {"extensions",
         {{"KHR_materials_sheen", {{"sheenColorFactor", {1, 1, 1}}}},
          {"KHR_materials_transmission", {{"transmissionFactor", 1}}},
          {"KHR_materials_volume",
           {{"thicknessFactor", 0.1},
            {"thicknessTexture", {{"index", 4}, {"texCoord", 1}}},
            {"attenuationDistance", 2.5},
            {"attenuationColor", {1, 0.5, 0.5}}}}}}}});
  const json mappings = {{"KHR_materials_variants",
                          {{"mappings", {{{"material", 1}, {"variants", {0}}}, {{"material", 2}, {"variants", {1, 2}}}}}}}};
  add_quad(b, 0, mappings);
  b.doc["extensions"]["KHR_materials_variants"]["variants"] = {{{"name", "Red"}}, {{"name", "Blue"}}, {{"name", "Navy"}}};
  b.doc["extensionsUsed"] = {"KHR_materials_variants", "KHR_texture_transform", "KHR_materials_sheen",
                             "KHR_materials_transmission", "KHR_materials_volume"};
  write_file(dir / "in.glb", b.glb());
  auto r = testutil::run_cli("convert '" + dir / "in.glb" + "' -o '" + dir / "out.glb" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const Glb in = parse_glb(b.glb()), out = read_glb(dir / "out.glb");
  ASSERT_EQ(out.doc["materials"].size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(normalized(out, out.doc["materials"][i]), normalized(in, in.doc["materials"][i])) << i;
  EXPECT_EQ(out.doc.value("extensions", json()), b.doc["extensions"]);
  EXPECT_EQ(out.doc["meshes"][0]["primitives"][0].value("extensions", json()), mappings);
  EXPECT_TRUE(contains(out.doc.value("extensionsUsed", json()), "KHR_materials_variants"));
  std::string report;
  EXPECT_TRUE(testutil::validate_gltf({dir / "out.glb"}, report)) << report;
}

// ---- Quantized texture coordinates whose texture file is missing -----------------------------------

// Lantern-Quantized's shape: ushort TEXCOORD_0 dequantized by the base colour texture's
// KHR_texture_transform, the texture a file that is not there.
const std::vector<uint16_t> kQuantizedUv = {0, 0, 4095, 0, 4095, 2048, 1024, 4095};
const std::array<float, 2> kOffset = {0.125f, 0.25f}, kScale = {0.5f / 4095, 0.25f / 4095};

GltfBuilder quantized_missing_texture() {
  GltfBuilder b;
  const size_t pos = b.floats({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, "VEC3");
  b.doc["accessors"][pos]["min"] = {0, 0, 0};
  b.doc["accessors"][pos]["max"] = {1, 1, 0};
  const size_t uv = b.add(kQuantizedUv, 5123, "VEC2");
  const size_t idx = b.ushorts({0, 1, 2, 0, 2, 3});
  b.doc["images"] = json::array({{{"uri", "Lantern_baseColor.png"}}});
  b.doc["textures"] = json::array({{{"source", 0}}});
  b.doc["materials"] = json::array(
      {{{"name", "lantern"},
        {"pbrMetallicRoughness",
         {{"baseColorTexture",
           {{"index", 0},
            {"extensions", tt({{"offset", {kOffset[0], kOffset[1]}}, {"scale", {kScale[0], kScale[1]}}})}}}}}}});
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}, {"TEXCOORD_0", uv}}}, {"indices", idx}, {"material", 0}}}),
         "lantern");
  b.node({{"mesh", 0}});
  b.scene({0});
  b.doc["extensionsUsed"] = {"KHR_mesh_quantization", "KHR_texture_transform"};
  b.doc["extensionsRequired"] = {"KHR_mesh_quantization"};
  return b;
}

// uv' = offset + scale * uv, as the bake computes it (double, rounded once).
std::vector<float> dequantized() {
  std::vector<float> r;
  for (size_t i = 0; i < kQuantizedUv.size(); i += 2) {
    r.push_back(float(double(kOffset[0]) + double(kScale[0]) * kQuantizedUv[i]));
    r.push_back(float(double(kOffset[1]) + double(kScale[1]) * kQuantizedUv[i + 1]));
  }
  return r;
}

TEST(GltfMaterialsWhole, QuantizedUvsWithAMissingTextureAreDequantizedInGlbAndObj) {
  testutil::TempDir dir;
  write_file(dir / "lantern.glb", quantized_missing_texture().glb());
  auto r = testutil::run_cli("convert '" + dir / "lantern.glb" + "' -o '" + dir / "out.glb" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("material 'lantern': base colour texture 'Lantern_baseColor.png' not found: its texture "
                       "coordinate mapping (texCoord / KHR_texture_transform) is baked into the texture coordinates "
                       "of the meshes using it"),
            std::string::npos)
      << r.out;
  const Scene s = read(dir / "out.glb");
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].find(Attribute::Texcoord)->data, dequantized());
  EXPECT_TRUE(s.materials[0].base_color_transform.is_identity());
  EXPECT_EQ(s.materials[0].base_color_texture, "Lantern_baseColor.png");  // the reference is kept

  r = testutil::run_cli("convert '" + dir / "out.glb" + "' -o '" + dir / "out.obj" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const Scene o = read(dir / "out.obj");
  ASSERT_EQ(o.meshes.size(), 1u);
  // OBJ keeps each vertex's texture coordinates exactly (obj.cpp); compare as sets of pairs.
  std::vector<std::array<float, 2>> got, want;
  const VertexStream* t = o.meshes[0].find(Attribute::Texcoord);
  ASSERT_NE(t, nullptr);
  for (size_t v = 0; v < t->vertex_count(); ++v) got.push_back({t->get(v, 0), t->get(v, 1)});
  const std::vector<float> d = dequantized();
  for (size_t v = 0; v < d.size() / 2; ++v) want.push_back({d[v * 2], d[v * 2 + 1]});
  std::sort(got.begin(), got.end()), std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

// ---- Image references keep their extension ------------------------------------------------------

TEST(GltfMaterialsWhole, JpegReferenceKeepsItsExtension) {
  testutil::TempDir dir;
  const std::vector<uint8_t> jpg = image_samples::jpeg(image_samples::picture(8, 8, false));
  write_file(dir / "lamp_basecolor.jpeg", jpg);
  GltfBuilder b;
  b.doc["images"] = json::array({{{"uri", "lamp_basecolor.jpeg"}, {"mimeType", "image/jpeg"}}});
  b.doc["textures"] = json::array({{{"source", 0}}});
  b.doc["materials"] = json::array({{{"name", "lamp"}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}});
  add_quad(b, 0);
  {
    std::ofstream f(dir / "lamp.gltf");
    f << b.gltf();
  }
  auto r = testutil::run_cli("convert '" + dir / "lamp.gltf" + "' -o '" + dir / "out/lamp.gltf" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const json out = json::parse(testutil::slurp(dir / "out/lamp.gltf"));
  EXPECT_EQ(out["images"][0]["uri"], "lamp_basecolor.jpeg");
  EXPECT_TRUE(std::filesystem::exists(dir / "out/lamp_basecolor.jpeg"));

  // Embedded (glb -> glb): the Scene's image keeps the name, and so does the reference written.
  r = testutil::run_cli("convert '" + dir / "lamp.gltf" + "' -o '" + dir / "lamp.glb" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  r = testutil::run_cli("convert '" + dir / "lamp.glb" + "' -o '" + dir / "again.glb" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const Scene s = read(dir / "again.glb");
  ASSERT_EQ(s.images.size(), 1u);
  EXPECT_EQ(s.images[0].path, "lamp_basecolor.jpeg");
  EXPECT_EQ(s.materials[0].base_color_texture, "lamp_basecolor.jpeg");
  EXPECT_EQ(s.images[0].data, jpg);
}

// ---- Other formats: what they cannot keep is named ---------------------------------------------

TEST(GltfMaterialsWhole, ObjNamesTheMaterialDataItCannotKeep) {
  testutil::TempDir dir;
  write_file(dir / "in.glb", whole_model().glb());
  auto r = testutil::run_cli("convert '" + dir / "in.glb" + "' -o '" + dir / "out.obj" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("material 'whole': metallic-roughness texture, occlusion texture, double-sided, clearcoat, "
                       "emissive_strength, ior, sheen, specular, transmission, glTF extras, texture wrap modes "
                       "(clamp or mirror) not kept by OBJ"),
            std::string::npos)
      << r.out;
  // The emissive map is on another set and transform than the base colour's, which OBJ bakes.
  EXPECT_NE(r.out.find("material 'whole': the emissive texture is mapped differently from the base colour texture"),
            std::string::npos)
      << r.out;
  // MTL keeps the emissive colour and map (Ke, map_Ke), written beside it and read back.
  const std::string mtl = testutil::slurp(dir / "out.mtl");
  EXPECT_NE(mtl.find("\nKe 1 0.5 0.25\nmap_Kd t0.png\nmap_Ke t4.png\n"), std::string::npos) << mtl;
  EXPECT_TRUE(std::filesystem::exists(dir / "t4.png"));
  const Scene o = read(dir / "out.obj");
  ASSERT_EQ(o.materials.size(), 1u);
  EXPECT_EQ(o.materials[0].emissive, (std::array<float, 3>{1, 0.5f, 0.25f}));
  EXPECT_EQ(o.materials[0].emissive_texture.texture, "t4.png");
  EXPECT_EQ(o.materials[0].base_color_texture, "t0.png");
}

TEST(GltfMaterialsWhole, IqmNamesTheVariantsItCannotKeep) {
  Scene s;
  Mesh m;
  m.name = "quad";
  m.material = 0;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 1, 1, 0}));
  m.triangles = {0, 1, 2};
  m.material_variants = {{1, {0}}};
  s.meshes.push_back(m);
  s.materials.push_back(testutil::material("a"));
  s.materials.push_back(testutil::material("b"));
  s.materials[1].double_sided = true;
  s.material_variants = {"Red"};
  Diagnostics d;
  write_memory(s, Format::Iqm, WriteOptions{}, &d);
  std::string all;
  for (const auto& x : d.items) all += x.message + "\n";
  EXPECT_NE(all.find("material variants 'Red' not kept by IQM: each mesh keeps its default material"),
            std::string::npos)
      << all;
}

}  // namespace

}  // namespace meshport_test_gltf_materials_whole
