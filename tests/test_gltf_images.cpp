// glTF images read into Scene::images (src/formats/gltf/gltf_read_materials.cpp) and written beside
// the outputs of formats that reference texture files (src/ops/materials/image_files.cpp, meshport.cpp):
// docs/textures.md, "glTF input and extraction". The GLBs are built here, with PNG and JPEG
// images made by the tests.
#include "gltf_builder.h"
#include "image_samples.h"
#include "ops/materials/image_files.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_gltf_images {

using namespace meshport;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void put_file(const fs::path& p, const Bytes& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

const Bytes& png_a() {
  static const Bytes b = image_samples::png(image_samples::picture(4, 3));
  return b;
}
const Bytes& png_b() {
  static const Bytes b = image_samples::png(image_samples::picture(2, 5, false));
  return b;
}
const Bytes& jpeg_a() {
  static const Bytes b = image_samples::jpeg(image_samples::picture(8, 8, false));
  return b;
}

// A GLB of one textured triangle using material 0, with images in buffer views or data URIs.
struct Glb {
  json doc;
  Bytes bin;

  Glb() {
    doc["asset"] = {{"version", "2.0"}};
    const std::vector<float> pos = {0, 0, 0, 1, 0, 0, 0, 1, 0}, uv = {0, 0, 1, 0, 0, 1};
    size_t p = view(to_bytes(pos)), t = view(to_bytes(uv));
    doc["accessors"] = json::array(
        {{{"bufferView", p}, {"componentType", 5126}, {"count", 3}, {"type", "VEC3"}, {"min", {0, 0, 0}}, {"max", {1, 1, 0}}},
         {{"bufferView", t}, {"componentType", 5126}, {"count", 3}, {"type", "VEC2"}}});
    doc["meshes"] = json::array(
        {{{"name", "tri"}, {"primitives", {{{"attributes", {{"POSITION", 0}, {"TEXCOORD_0", 1}}}, {"material", 0}}}}}});
    doc["nodes"] = json::array({{{"mesh", 0}}});
    doc["scenes"] = json::array({{{"nodes", {0}}}});
    doc["scene"] = 0;
    doc["materials"] = json::array();
    doc["textures"] = json::array();
    doc["images"] = json::array();
  }
  static Bytes to_bytes(const std::vector<float>& v) {
    Bytes b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  }
  size_t view(const Bytes& b) {
    while (bin.size() % 4) bin.push_back(0);
    doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", b.size()}});
    bin.insert(bin.end(), b.begin(), b.end());
    return doc["bufferViews"].size() - 1;
  }
  // An image in a buffer view (mime "" leaves mimeType out); returns its texture.
  size_t image(const Bytes& b, const std::string& mime, const std::string& name = "") {
    json im = {{"bufferView", view(b)}};
    if (!mime.empty()) im["mimeType"] = mime;
    if (!name.empty()) im["name"] = name;
    return texture(std::move(im));
  }
  size_t data_uri_image(const Bytes& b, const std::string& mime, const std::string& name = "") {
    json im = {{"uri", "data:" + mime + ";base64," + testutil::base64(b)}};
    if (!name.empty()) im["name"] = name;
    return texture(std::move(im));
  }
  size_t texture(json im) {
    doc["images"].push_back(std::move(im));
    doc["textures"].push_back({{"source", doc["images"].size() - 1}});
    return doc["textures"].size() - 1;
  }
  Bytes glb() const {
    json d = doc;
    d["buffers"] = json::array({{{"byteLength", bin.size()}}});
    return testutil::GltfBuilder::make_glb(d.dump(), bin);
  }
  Scene read(Diagnostics* d = nullptr) const { return read_memory(glb(), Format::Glb, "t.glb", d); }
};

// The standard test model: a material with an embedded PNG base colour ("skin"), a JPEG normal
// map (no name) and a PNG specular map also named "skin", and PBR factors.
Glb textured() {
  Glb g;
  size_t base = g.image(png_a(), "image/png", "skin");
  size_t normal = g.image(jpeg_a(), "image/jpeg");
  size_t spec = g.image(png_b(), "image/png", "skin.tga");
  g.doc["materials"].push_back(
      {{"name", "Body"},
       {"pbrMetallicRoughness",
        {{"baseColorTexture", {{"index", base}}}, {"metallicFactor", 0.25}, {"roughnessFactor", 0.5}}},
       {"normalTexture", {{"index", normal}}},
       {"emissiveFactor", {0.5, 0.25, 1}},
       {"extensions", {{"KHR_materials_specular", {{"specularColorTexture", {{"index", spec}}}}}}}});
  return g;
}

std::string joined(const Diagnostics& d) {
  std::string s;
  for (const auto& i : d.items) s += i.to_string() + "\n";
  return s;
}

}  // namespace

// ---- Reading ---------------------------------------------------------------------------------

TEST(GltfImages, EmbeddedImagesAreReadWithTheirBytesAndSlots) {
  Diagnostics d;
  Scene s = textured().read(&d);
  EXPECT_TRUE(d.items.empty()) << joined(d);
  ASSERT_EQ(s.images.size(), 3u);
  EXPECT_EQ(s.images[0].path, "skin.png");
  EXPECT_EQ(s.images[0].mime_type, "image/png");
  EXPECT_EQ(s.images[0].data, png_a());
  EXPECT_EQ(s.images[1].path, "image1.jpg");
  EXPECT_EQ(s.images[1].mime_type, "image/jpeg");
  EXPECT_EQ(s.images[1].data, jpeg_a());
  // "skin.tga" holding PNG bytes: the file name takes the image's extension, made unique.
  EXPECT_EQ(s.images[2].path, "skin-2.png");
  EXPECT_EQ(s.images[2].data, png_b());
  ASSERT_EQ(s.materials.size(), 1u);
  const Material& m = s.materials[0];
  EXPECT_EQ(m.name, "Body");
  EXPECT_EQ(m.base_color_texture, "skin.png");
  EXPECT_EQ(m.normal_texture, "image1.jpg");
  EXPECT_EQ(m.specular_texture, "skin-2.png");
  EXPECT_EQ(m.team_colour_texture, "");
  EXPECT_EQ(m.metallic, 0.25f);
  EXPECT_EQ(m.roughness, 0.5f);
  EXPECT_EQ(m.emissive, (std::array<float, 3>{0.5f, 0.25f, 1}));
}

TEST(GltfImages, PbrDefaultsAreGltfs) {
  Glb g;
  g.doc["materials"].push_back({{"name", "plain"}});
  g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorFactor", {1, 0, 0, 1}}}}});
  g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"metallicFactor", 0}, {"roughnessFactor", 0.75}}}});
  Scene s = g.read();
  ASSERT_EQ(s.materials.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(s.materials[i].metallic, 1.0f) << i;  // glTF's default, not the Scene's 0
    EXPECT_EQ(s.materials[i].roughness, 1.0f) << i;
    EXPECT_EQ(s.materials[i].emissive, (std::array<float, 3>{0, 0, 0})) << i;
  }
  EXPECT_EQ(s.materials[2].metallic, 0.0f);
  EXPECT_EQ(s.materials[2].roughness, 0.75f);
  EXPECT_TRUE(s.images.empty());
}

TEST(GltfImages, SpecularTextureIsTheFallback) {
  Glb g;
  size_t t = g.image(png_a(), "image/png", "spec");
  g.doc["materials"].push_back(
      {{"extensions", {{"KHR_materials_specular", {{"specularTexture", {{"index", t}}}}}}}});
  Scene s = g.read();
  ASSERT_EQ(s.images.size(), 1u);
  EXPECT_EQ(s.materials[0].specular_texture, "spec.png");
  EXPECT_EQ(s.materials[0].base_color_texture, "");
}

TEST(GltfImages, DataUriImages) {
  Glb g;
  size_t a = g.data_uri_image(png_a(), "image/png", "textures/Skin.PNG");
  size_t b = g.data_uri_image(jpeg_a(), "image/jpeg");
  g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", a}}}}},
                                {"normalTexture", {{"index", b}}}});
  Diagnostics d;
  Scene s = g.read(&d);
  EXPECT_TRUE(d.items.empty()) << joined(d);
  ASSERT_EQ(s.images.size(), 2u);
  EXPECT_EQ(s.images[0].path, "Skin.PNG");  // an extension that fits is kept as given (issue 33)
  EXPECT_EQ(s.images[0].data, png_a());
  EXPECT_EQ(s.images[1].path, "image1.jpg");
  EXPECT_EQ(s.images[1].data, jpeg_a());
  EXPECT_EQ(s.materials[0].base_color_texture, "Skin.PNG");
  EXPECT_EQ(s.materials[0].normal_texture, "image1.jpg");
}

TEST(GltfImages, RelativeFileUrisStayReferences) {
  Glb g;
  size_t t = g.texture({{"uri", "maps/my%20skin.png"}});
  g.doc["materials"].push_back({{"normalTexture", {{"index", t}}}});
  Scene s = g.read();
  EXPECT_TRUE(s.images.empty());
  EXPECT_EQ(s.materials[0].normal_texture, "maps/my skin.png");
}

TEST(GltfImages, OneImageUsedTwiceIsOneSceneImage) {
  Glb g;
  size_t t = g.image(png_a(), "image/png", "shared");
  g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", t}}}}}});
  g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", t}}}}},
                                {"normalTexture", {{"index", t}}}});
  Scene s = g.read();
  ASSERT_EQ(s.images.size(), 1u);
  EXPECT_EQ(s.materials[0].base_color_texture, "shared.png");
  EXPECT_EQ(s.materials[1].base_color_texture, "shared.png");
  EXPECT_EQ(s.materials[1].normal_texture, "shared.png");
}

TEST(GltfImages, BadImagesWarnAndAreSkipped) {
  Glb g;
  size_t wrong_mime = g.image(png_a(), "image/jpeg", "liar");
  size_t not_image = g.image(Bytes(64, 0x41), "image/png", "text");
  size_t bmp = g.image(image_samples::bmp(image_samples::picture(2, 2), 24), "image/bmp", "old");
  Bytes cut(png_a().begin(), png_a().begin() + 20);
  size_t truncated = g.image(cut, "image/png", "cut");
  size_t no_mime = g.image(png_b(), "", "nomime");
  size_t bad_b64 = g.texture({{"uri", "data:image/png;base64,@@@@"}});
  const size_t texs[] = {wrong_mime, not_image, bmp, truncated, no_mime, bad_b64};
  for (size_t t : texs) g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", t}}}}}});
  Diagnostics d;
  Scene s = g.read(&d);
  const std::string w = joined(d);
  // Each names the material and slot that wanted the image (issue 18).
  EXPECT_NE(w.find("materials[0] (''): its base colour texture, images[0], is not read: mimeType 'image/jpeg' but its "
                   "bytes are PNG; the material keeps only its name 'liar'"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("materials[1] (''): its base colour texture, images[1], is not read: its bytes are of no known "
                   "image format, not PNG or JPEG"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("materials[2] (''): its base colour texture, images[2], is not read: its bytes are BMP, not PNG or "
                   "JPEG"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("materials[3] (''): its base colour texture, images[3], is not read: bad PNG"), std::string::npos) << w;
  EXPECT_NE(w.find("images[4]: no mimeType: taken as image/png from its bytes"), std::string::npos) << w;
  EXPECT_NE(w.find("materials[5] (''): its base colour texture, images[5], is not read: invalid base64 data at "
                   "character 0 of the data; the material has none"),
            std::string::npos)
      << w;
  // Only the image without a mimeType (but PNG bytes) is read; the others keep their names.
  ASSERT_EQ(s.images.size(), 1u);
  EXPECT_EQ(s.images[0].path, "nomime.png");
  EXPECT_EQ(s.images[0].data, png_b());
  EXPECT_EQ(s.materials[0].base_color_texture, "liar");
  EXPECT_EQ(s.materials[2].base_color_texture, "old");
  EXPECT_EQ(s.materials[4].base_color_texture, "nomime.png");
  EXPECT_EQ(s.materials[5].base_color_texture, "");
}

TEST(GltfImages, MeshportExtrasRestoreReferencesAndNameTheImages) {
  Glb g;
  size_t base = g.image(png_a(), "image/png", "whatever");
  g.doc["materials"].push_back(
      {{"name", "page-7-barbarians-arizona"},
       {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", base}}}, {"metallicFactor", 0}}},
       {"extras",
        {{"meshport",
          {{"name", "page-7-barbarians-arizona"},
           {"base_color_texture", "page-7-barbarians-arizona.png"},
           {"normal_texture", "page-7-barbarians-arizona_normal.png"},
           {"team_colour_texture", "page-7_tcmask.png"}}}}}});
  Scene s = g.read();
  ASSERT_EQ(s.images.size(), 1u);
  EXPECT_EQ(s.images[0].path, "page-7-barbarians-arizona.png");
  EXPECT_EQ(s.images[0].data, png_a());
  const Material& m = s.materials[0];
  EXPECT_EQ(m.base_color_texture, "page-7-barbarians-arizona.png");
  EXPECT_EQ(m.normal_texture, "page-7-barbarians-arizona_normal.png");
  EXPECT_EQ(m.team_colour_texture, "page-7_tcmask.png");
  EXPECT_EQ(m.specular_texture, "");
  EXPECT_EQ(m.metallic, 0.0f);
}

TEST(GltfImages, HostileImageCountsDoNotAllocate) {
  // 200,000 images, all in one small buffer view, none used: nothing is read.
  {
    Glb g;
    size_t t = g.image(png_a(), "image/png");
    json im = g.doc["images"][0];
    for (int i = 0; i < 200000; ++i) g.doc["images"].push_back(im);
    g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", t}}}}}});
    Scene s = g.read();
    EXPECT_EQ(s.images.size(), 1u);
  }
  // 20,000 materials, each restoring another name for one 160 kB image: the copies stop at the
  // reader's memory budget (12 x the input + 32 MiB) with warnings.
  Glb g;
  Bytes noise(400 * 100 * 4);
  uint32_t x = 12345;
  for (auto& b : noise) x = x * 1103515245u + 12345u, b = uint8_t(x >> 24);
  const Bytes big = image_samples::png(image_samples::Pixels{400, 100, noise});
  ASSERT_GT(big.size(), 150000u);
  size_t t = g.image(big, "image/png");
  for (int i = 0; i < 20000; ++i)
    g.doc["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", t}}}}},
                                  {"extras", {{"meshport", {{"base_color_texture", fmt::format("t{}.png", i)}}}}}});
  const Bytes file = g.glb();
  Diagnostics d;
  Scene s = read_memory(file, Format::Glb, "t.glb", &d);
  size_t total = 0;
  for (const Image& im : s.images) total += im.data.size();
  EXPECT_LE(total, file.size() * 12 + (size_t(32) << 20));
  EXPECT_LT(s.images.size(), 20000u);
  EXPECT_GT(s.images.size(), 10u);
  EXPECT_NE(joined(d).find("would need more memory than the input can justify"), std::string::npos);
  // The materials whose copy was refused keep their restored reference.
  EXPECT_EQ(s.materials.back().base_color_texture, "t19999.png");
}

// ---- Writing beside the output -------------------------------------------------------------

TEST(GltfImages, GlbToIqmIqeObjQmshWritesTheImagesBesideTheOutput) {
  testutil::TempDir dir;
  const fs::path in = dir.path / "model.glb";
  put_file(in, textured().glb());
  for (const char* ext : {"iqm", "iqe", "obj", "qmsh", "qmsh.tmp"}) {
    const fs::path out = dir.path / ext / fmt::format("out.{}", ext);
    fs::create_directories(out.parent_path());
    Diagnostics d;
    convert({in.string()}, out.string(), {}, &d);
    // The base colour map (what these formats reference) is written byte for byte.
    EXPECT_EQ(file_bytes(out.parent_path() / "skin.png"), png_a()) << ext;
    EXPECT_FALSE(fs::exists(out.parent_path() / "image1.jpg")) << ext;  // no normal map slot
    Scene back = read(out.string());
    ASSERT_EQ(back.materials.size(), 1u) << ext;
    if (std::string(ext) == "obj") {
      EXPECT_EQ(back.materials[0].base_color_texture, "skin.png");
      EXPECT_NE(testutil::slurp(out.parent_path() / "out.mtl").find("map_Kd skin.png\n"), std::string::npos);
    } else {
      // IQM, IQE and QMSH name a texture by the material's name: it becomes the file's name.
      EXPECT_EQ(back.materials[0].name, "skin.png") << ext;
      // (the QMSH readers keep material names only; the texture finder resolves them)
      if (std::string(ext).rfind("qmsh", 0) != 0) {
        EXPECT_EQ(back.materials[0].base_color_texture, "skin.png") << ext;
      }
    }
  }
}

TEST(GltfImages, GlbToPieWritesPagesNamedAsPieExpects) {
  testutil::TempDir dir;
  const fs::path in = dir.path / "model.glb";
  put_file(in, textured().glb());
  const fs::path out = dir.path / "out.pie";
  Diagnostics d;
  convert({in.string()}, out.string(), {}, &d);
  const std::string pie = testutil::slurp(out);
  EXPECT_NE(pie.find("TEXTURE 0 page-100-skin.png\n"), std::string::npos) << pie;
  EXPECT_NE(pie.find("NORMALMAP 0 page-100-image1.png\n"), std::string::npos) << pie;
  EXPECT_NE(pie.find("SPECULARMAP 0 page-100-skin-2.png\n"), std::string::npos) << pie;
  EXPECT_EQ(file_bytes(dir.path / "page-100-skin.png"), png_a());
  EXPECT_EQ(file_bytes(dir.path / "page-100-skin-2.png"), png_b());
  // The JPEG normal map becomes a PNG page of the same size.
  image::DecodedImage n = image::decode_image(file_bytes(dir.path / "page-100-image1.png"), "", {});
  EXPECT_EQ(n.format, image::ImageFormat::Png) << n.error;
  EXPECT_EQ(n.pixels.width, 8u);
  EXPECT_EQ(n.pixels.height, 8u);
  EXPECT_NE(joined(d).find("image 'skin.png' is written beside the output as 'page-100-skin.png' (PIE pages are "
                           "named page-NN-name.png)"),
            std::string::npos)
      << joined(d);
  // Read back, the material names the pages written.
  Scene back = read(out.string());
  ASSERT_FALSE(back.materials.empty());
  EXPECT_EQ(back.materials[0].base_color_texture, "page-100-skin.png");
  EXPECT_EQ(back.materials[0].normal_texture, "page-100-image1.png");
}

TEST(GltfImages, PiePageNamesAreKept) {
  Glb g;
  size_t base = g.image(png_a(), "image/png");
  size_t tc = g.image(png_b(), "image/png");
  g.doc["materials"].push_back(
      {{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", base}}}}},
       {"normalTexture", {{"index", tc}}},
       {"extras",
        {{"meshport", {{"base_color_texture", "page-7-barbarians-arizona.png"}, {"normal_texture", "page-7-n.png"}}}}}});
  testutil::TempDir dir;
  put_file(dir.path / "m.glb", g.glb());
  Diagnostics d;
  convert({(dir.path / "m.glb").string()}, (dir.path / "m.pie").string(), {}, &d);
  const std::string pie = testutil::slurp(dir.path / "m.pie");
  EXPECT_NE(pie.find("TEXTURE 0 page-7-barbarians-arizona.png\n"), std::string::npos) << pie;
  EXPECT_NE(pie.find("NORMALMAP 0 page-7-n.png\n"), std::string::npos) << pie;
  EXPECT_EQ(file_bytes(dir.path / "page-7-barbarians-arizona.png"), png_a());
  EXPECT_EQ(file_bytes(dir.path / "page-7-n.png"), png_b());
  EXPECT_EQ(joined(d).find("is written beside the output as"), std::string::npos) << joined(d);
}

TEST(GltfImages, ExistingFilesAreOverwritten) {
  testutil::TempDir dir;
  put_file(dir.path / "model.glb", textured().glb());
  put_file(dir.path / "skin.png", Bytes{1, 2, 3});
  convert({(dir.path / "model.glb").string()}, (dir.path / "out.iqe").string(), {});
  EXPECT_EQ(file_bytes(dir.path / "skin.png"), png_a());
}

TEST(GltfImages, WritingToMemoryWarnsThatImagesAreNotWritten) {
  Scene s = textured().read();
  for (Format f : {Format::Iqm, Format::Iqe, Format::Obj, Format::Pie}) {
    Diagnostics d;
    write_memory(s, f, {}, &d);
    const size_t n = f == Format::Pie ? 3 : 1;
    EXPECT_NE(joined(d).find(fmt::format("{} images of the Scene were not written", n)), std::string::npos)
        << joined(d);
  }
  // glTF holds its images itself; nothing is said here.
  Diagnostics d;
  write_memory(s, Format::Glb, {}, &d);
  EXPECT_EQ(joined(d).find("images of the Scene were not written"), std::string::npos);
}

TEST(GltfImages, ReferencesOutsideTheFolderAreWrittenInsideIt) {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}));
  m.triangles = {0, 1, 2};
  m.material = 0;
  s.meshes.push_back(m);
  s.materials.push_back(testutil::material("mat", "../up.png"));
  s.materials.push_back(testutil::material("abs", "/abs/olute.png"));
  s.meshes.push_back(m);
  s.meshes.back().material = 1;
  Image a;
  a.path = "../up.png";
  a.mime_type = "image/png";
  a.data = png_a();
  Image b = a;
  b.path = "/abs/olute.png";
  b.data = png_b();
  s.images = {a, b};
  testutil::TempDir dir;
  fs::create_directories(dir.path / "sub");
  Diagnostics d;
  write(s, (dir.path / "sub" / "m.iqe").string(), {}, &d);
  EXPECT_EQ(file_bytes(dir.path / "sub" / "up.png"), png_a());
  EXPECT_EQ(file_bytes(dir.path / "sub" / "olute.png"), png_b());
  EXPECT_FALSE(fs::exists(dir.path / "up.png"));
  EXPECT_NE(joined(d).find("image '../up.png' is written beside the output as 'up.png'"), std::string::npos)
      << joined(d);
  Scene back = read((dir.path / "sub" / "m.iqe").string());
  ASSERT_EQ(back.materials.size(), 2u);
  EXPECT_EQ(back.materials[0].name, "up.png");
  EXPECT_EQ(back.materials[1].name, "olute.png");
}

TEST(GltfImages, ImageFileNamesAvoidEachOtherAndTheOutput) {
  Scene s;
  Mesh m;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  m.material = 0;
  s.meshes.push_back(m);
  s.meshes.push_back(m);
  s.meshes.back().material = 1;
  s.materials.push_back(testutil::material("a", "x/skin.png"));
  s.materials.push_back(testutil::material("b", "y/SKIN.png"));
  Image a;
  a.path = "x/skin.png";
  a.mime_type = "image/png";
  a.data = png_a();
  Image b = a;
  b.path = "y/SKIN.png";
  b.data = png_b();
  s.images = {a, b};
  Diagnostics d;
  std::vector<OutputFile> files = ops::image_files(s, ops::ImageFileRules{}, {"out.obj"}, d);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "skin.png");
  EXPECT_EQ(files[0].bytes, png_a());
  EXPECT_EQ(files[1].name, "SKIN-2.png");  // unique on case-insensitive file systems too
  EXPECT_EQ(files[1].bytes, png_b());
  EXPECT_EQ(s.materials[0].base_color_texture, "skin.png");
  EXPECT_EQ(s.materials[1].base_color_texture, "SKIN-2.png");
  EXPECT_EQ(s.images[1].path, "SKIN-2.png");
  // An image no written material references is not written.
  s.materials[1].base_color_texture.clear();
  EXPECT_EQ(ops::referenced_images(s, ops::ImageFileRules{}), 1u);
}

TEST(GltfImages, PiePageNames) {
  EXPECT_TRUE(ops::is_pie_page_name("page-7-barbarians-arizona.png"));
  EXPECT_TRUE(ops::is_pie_page_name("page-7_tcmask.png"));
  EXPECT_TRUE(ops::is_pie_page_name("page-12.png"));
  EXPECT_FALSE(ops::is_pie_page_name("skin.png"));
  EXPECT_FALSE(ops::is_pie_page_name("page-x.png"));
  EXPECT_FALSE(ops::is_pie_page_name("page-7-a b.png"));
  EXPECT_FALSE(ops::is_pie_page_name("page-7-a.jpg"));
}

// Issue 18: a KHR_texture_basisu texture (KTX2 bytes, its only source in the extension) and a
// WebP one are named as such, with the material that uses them.
TEST(GltfImages, Ktx2AndWebpImagesAreNamedWithTheirMaterial) {
  Glb g;
  Bytes ktx2 = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n', 0, 0, 0, 0};
  Bytes webp = {'R', 'I', 'F', 'F', 8, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', ' '};
  g.doc["images"].push_back({{"bufferView", g.view(ktx2)}, {"mimeType", "image/ktx2"}, {"name", "basis"}});
  g.doc["textures"].push_back({{"extensions", {{"KHR_texture_basisu", {{"source", 0}}}}}});
  g.doc["images"].push_back({{"bufferView", g.view(webp)}, {"mimeType", "image/webp"}});
  g.doc["textures"].push_back({{"extensions", {{"EXT_texture_webp", {{"source", 1}}}}}});
  g.doc["materials"].push_back({{"name", "Hull"}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}});
  g.doc["materials"].push_back({{"name", "Deck"}, {"normalTexture", {{"index", 1}}}});
  Diagnostics d;
  Scene s = g.read(&d);
  const std::string w = joined(d);
  EXPECT_NE(w.find("materials[0] ('Hull'): its base colour texture, images[0], is not read: its bytes are KTX2 "
                   "(KHR_texture_basisu), which meshport does not decode; the material keeps only its name 'basis'"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("materials[1] ('Deck'): its normal texture, images[1], is not read: its bytes are WebP "
                   "(EXT_texture_webp), which meshport does not decode; the material has none"),
            std::string::npos)
      << w;
  EXPECT_TRUE(s.images.empty());
  EXPECT_EQ(s.materials[0].base_color_texture, "basis");
  EXPECT_EQ(s.materials[1].normal_texture, "");
}

}  // namespace meshport_test_gltf_images
