// The glTF writer's images (src/formats/gltf/gltf_write_materials.cpp, docs/textures.md "glTF output"):
// textures found by find_textures() embedded in a .glb (byte for byte, or converted to PNG),
// written beside a .gltf or with --external-textures, as data URIs in memory; the normal,
// specular and emissive slots; the team colour baked in; warnings for what cannot be used; the
// Khronos validator over the results; the CLI in a Warzone 2100-like tree. Every image is made
// by the test.
#include "image_samples.h"

#include "image/image.h"
#include "test_util.h"

#include <meshport/meshport.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace meshport_test_gltf_textures {

using namespace meshport;
using json = nlohmann::json;
using testutil::TempDir;
namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

namespace {

void write_bytes(const fs::path& p, const Bytes& b) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

Bytes read_bytes(const fs::path& p) {
  const std::string s = testutil::slurp(p);
  return Bytes(s.begin(), s.end());
}

uint32_t u32(const Bytes& b, size_t off) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}

struct Glb {
  json j;
  Bytes bin;
  // The bytes of image i, from its buffer view.
  Bytes image(size_t i) const {
    const json& v = j["bufferViews"][j["images"][i]["bufferView"].get<size_t>()];
    const size_t off = v.value("byteOffset", size_t(0)), len = v["byteLength"];
    EXPECT_LE(off + len, bin.size());
    if (off + len > bin.size()) return {};
    return Bytes(bin.begin() + std::ptrdiff_t(off), bin.begin() + std::ptrdiff_t(off + len));
  }
};

Glb parse_glb(const Bytes& b) {
  Glb g;
  EXPECT_GE(b.size(), 20u);
  if (b.size() < 20) return g;
  EXPECT_EQ(u32(b, 0), 0x46546C67u);
  const uint32_t json_len = u32(b, 12);
  g.j = json::parse(std::string(b.begin() + 20, b.begin() + 20 + json_len));
  const size_t at = 20 + json_len;
  if (at + 8 <= b.size()) g.bin.assign(b.begin() + std::ptrdiff_t(at + 8), b.begin() + std::ptrdiff_t(at + 8 + u32(b, at)));
  return g;
}

image::Pixels decode(const Bytes& b) {
  image::DecodedImage d = image::decode_image(b, "", image::ImageLimits{});
  EXPECT_EQ(d.error, "");
  return d.pixels;
}

// One quad per material (positions, normals, texture coordinates; no tangents).
Scene quads(std::vector<Material> materials) {
  Scene s;
  s.materials = std::move(materials);
  for (size_t i = 0; i < s.materials.size(); ++i) {
    Mesh m;
    m.name = fmt::format("quad{}", i);
    m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
    m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
    m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 1, 1, 1, 1, 0, 0, 0}));
    m.triangles = {0, 1, 2, 0, 2, 3};
    m.material = int32_t(i);
    s.meshes.push_back(std::move(m));
  }
  return s;
}

Material slots(std::string name, std::string base, std::string normal = {}, std::string specular = {},
               std::string team = {}) {
  Material m = testutil::material(std::move(name), std::move(base));
  m.normal_texture = std::move(normal);
  m.specular_texture = std::move(specular);
  m.team_colour_texture = std::move(team);
  return m;
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items)
    if (x.message.find(part) != std::string::npos) return true;
  return false;
}

std::string all_warnings(const Diagnostics& d) {
  std::string r;
  for (const auto& x : d.items) r += x.message + "\n";
  return r;
}

// Validator: 0 errors, 0 warnings, and nothing reported unused but the JSON pointers `unused`
// (texture coordinates of a material whose texture could not be used).
void expect_valid(const std::vector<std::string>& files, const std::vector<std::string>& unused = {}) {
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf(files, out)) << out;
  std::vector<std::string> reported;
  for (size_t at = out.find("UNUSED_OBJECT "); at != std::string::npos; at = out.find("UNUSED_OBJECT ", at + 1)) {
    const size_t from = at + 14;
    reported.push_back(out.substr(from, out.find(':', from) - from));
  }
  EXPECT_EQ(reported, unused) << out;
}

// The sample pages: a 4 x 4 picture as PNG and as TGA, and another picture as BMP.
struct Pages {
  image::Pixels picture = image_samples::picture(4, 4);
  image::Pixels other = image_samples::picture(4, 4, false);
  Bytes png = image::encode_png(picture);
  Bytes tga = image_samples::tga(other, 32, true);
  Bytes bmp = image_samples::bmp(other, 24);
};

}  // namespace

// ---- Where the images go ------------------------------------------------------------------------

TEST(GltfTextures, GlbEmbedsPngAsItIsAndConvertsTga) {
  TempDir t;
  Pages p;
  write_bytes(t.path / "tex" / "skin.png", p.png);
  write_bytes(t.path / "tex" / "copy.png", p.png);  // another file, the same bytes
  write_bytes(t.path / "tex" / "old.tga", p.tga);
  Scene s = quads({slots("a", "skin.png"), slots("b", "old.tga"), slots("c", "skin"), slots("d", "copy.png")});
  WriteOptions o;
  o.texture_dirs = {(t.path / "tex").string()};
  Diagnostics d;
  fs::create_directories(t.path / "out");
  write(s, t / "out/model.glb", o, &d);
  EXPECT_EQ(all_warnings(d), "");
  const Bytes file = read_bytes(t.path / "out" / "model.glb");
  Glb g = parse_glb(file);
  ASSERT_EQ(g.j["images"].size(), 2u) << g.j["images"];
  EXPECT_EQ(g.j["images"][0], json({{"name", "skin"}, {"mimeType", "image/png"}, {"bufferView", 0}}));
  EXPECT_EQ(g.j["images"][1]["name"], "old");
  EXPECT_EQ(g.j["images"][1]["mimeType"], "image/png");
  EXPECT_FALSE(g.j["images"][1].contains("uri"));
  EXPECT_FALSE(g.j["bufferViews"][0].contains("target"));
  EXPECT_EQ(g.image(0), p.png);  // byte for byte
  const image::Pixels tga = decode(g.image(1));
  EXPECT_EQ(tga.width, 4u);
  EXPECT_EQ(tga.rgba, p.other.rgba);
  EXPECT_EQ(g.j["textures"], json::parse(R"([{"source": 0}, {"source": 1}])"));
  const json& m = g.j["materials"];
  for (int i : {0, 2, 3}) EXPECT_EQ(m[i]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0) << i;
  EXPECT_EQ(m[1]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 1);
  EXPECT_FALSE(g.j.contains("extensionsUsed"));
  // Nothing written beside it, no path in it.
  EXPECT_EQ(std::distance(fs::directory_iterator(t.path / "out"), fs::directory_iterator()), 1);
  EXPECT_EQ(std::string(file.begin(), file.end()).find(t.path.string()), std::string::npos);
  expect_valid({t / "out/model.glb"});
}

TEST(GltfTextures, ExternalTexturesAndGltfWriteFilesBeside) {
  TempDir t;
  Pages p;
  write_bytes(t.path / "in" / "skin.png", p.png);
  write_bytes(t.path / "in" / "old.bmp", p.bmp);
  const Bytes other_skin = image::encode_png(image_samples::picture(4, 2));
  write_bytes(t.path / "in" / "b" / "skin.png", other_skin);  // same stem, other bytes
  write_bytes(t.path / "in" / "my skin.png", image::encode_png(image_samples::picture(2, 2)));
  Scene s = quads({slots("a", "skin.png"), slots("b", "old.bmp"), slots("c", "b/skin.png"), slots("d", "my skin.png")});
  WriteOptions o;
  o.texture_dir = (t.path / "in").string();
  for (const char* out : {"glb/model.glb", "gltf/model.gltf"}) {
    SCOPED_TRACE(out);
    o.external_textures = std::string(out).ends_with(".glb");
    Diagnostics d;
    fs::create_directories((t.path / out).parent_path());
    write(s, t / out, o, &d);
    EXPECT_EQ(all_warnings(d), "");
    const fs::path dir = (t.path / out).parent_path();
    json j;
    if (o.external_textures) {
      j = parse_glb(read_bytes(t / out)).j;
    } else {
      j = json::parse(testutil::slurp(t / out));
      EXPECT_TRUE(fs::exists(dir / "model.bin"));
    }
    ASSERT_EQ(j["images"].size(), 4u);
    const char* uris[] = {"skin.png", "old.png", "skin-2.png", "my%20skin.png"};
    const char* names[] = {"skin", "old", "skin", "my skin"};
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(j["images"][i]["uri"], uris[i]);
      EXPECT_EQ(j["images"][i]["name"], names[i]);
      EXPECT_FALSE(j["images"][i].contains("bufferView"));
    }
    EXPECT_EQ(read_bytes(dir / "skin.png"), p.png);
    EXPECT_EQ(read_bytes(dir / "skin-2.png"), other_skin);
    EXPECT_EQ(decode(read_bytes(dir / "old.png")).rgba, p.other.rgba);
    EXPECT_TRUE(fs::exists(dir / "my skin.png"));
    // No leftover temporaries, no absolute path.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), o.external_textures ? 5 : 6);
    EXPECT_EQ(testutil::slurp(t / out).find(t.path.string()), std::string::npos);
    expect_valid({t / out});
  }
}

TEST(GltfTextures, ConvertedImageNeverReplacesATextureTheModelUses) {
  // skin.tga converts to skin.png, but skin.png beside the output is another material's texture.
  TempDir t;
  Pages p;
  write_bytes(t.path / "skin.tga", p.tga);
  write_bytes(t.path / "skin.png", p.png);
  Scene s = quads({slots("a", "skin.tga"), slots("b", "skin.png")});
  WriteOptions o;
  o.texture_dir = t.path.string();
  Diagnostics d;
  write(s, t / "model.gltf", o, &d);
  const json j = json::parse(testutil::slurp(t / "model.gltf"));
  ASSERT_EQ(j["images"].size(), 2u);
  EXPECT_EQ(j["images"][0]["uri"], "skin-2.png");
  EXPECT_EQ(j["images"][1]["uri"], "skin.png");
  EXPECT_EQ(read_bytes(t.path / "skin.png"), p.png);
  EXPECT_EQ(decode(read_bytes(t.path / "skin-2.png")).rgba, p.other.rgba);
  expect_valid({t / "model.gltf"});
}

TEST(GltfTextures, WriteMemoryEmbedsInTheBufferOrAsDataUris) {
  TempDir t;
  Pages p;
  write_bytes(t.path / "skin.png", p.png);
  Scene s = quads({slots("a", "skin.png")});
  WriteOptions o;
  o.texture_dir = t.path.string();
  o.external_textures = true;  // no folder in memory: embedded all the same
  Glb g = parse_glb(write_memory(s, Format::Glb, o));
  ASSERT_EQ(g.j["images"].size(), 1u);
  EXPECT_EQ(g.image(0), p.png);
  const Bytes text = write_memory(s, Format::Gltf, o);
  write_bytes(t.path / "out" / "memory.gltf", text);
  expect_valid({t / "out/memory.gltf"});
  const json j = json::parse(text);
  ASSERT_EQ(j["images"].size(), 1u);
  const std::string uri = j["images"][0]["uri"];
  ASSERT_EQ(uri.rfind("data:image/png;base64,", 0), 0u) << uri.substr(0, 40);
  EXPECT_EQ(testutil::base64_decode(uri.substr(22)), p.png);
}

TEST(GltfTextures, SceneImagesAreEmbedded) {
  Pages p;
  Scene s = quads({slots("a", "textures/Skin.png")});
  Image img;
  img.path = "textures/Skin.png";
  img.mime_type = "image/png";
  img.data = p.png;
  s.images.push_back(img);
  Glb g = parse_glb(write_memory(s, Format::Glb, {}));
  ASSERT_EQ(g.j["images"].size(), 1u);
  EXPECT_EQ(g.j["images"][0]["name"], "Skin");
  EXPECT_EQ(g.image(0), p.png);
  EXPECT_EQ(g.j["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
}

// ---- Material slots ---------------------------------------------------------------------------

TEST(GltfTextures, NormalSpecularEmissiveRoughness) {
  TempDir t;
  Pages p;
  write_bytes(t.path / "page.png", p.png);
  write_bytes(t.path / "page_nm.tga", p.tga);
  const image::Pixels specular = image_samples::picture(2, 4, false);
  write_bytes(t.path / "page_sm.bmp", image_samples::bmp(specular, 24));
  write_bytes(t.path / "page_tcmask.png", image::encode_png(image_samples::picture(2, 2)));
  Material a = slots("a", "page.png", "page_nm.tga", "page_sm.bmp", "page_tcmask.png");
  a.emissive = {0.5f, 0.25f, 0};
  a.roughness = 0.5f;
  Material b = slots("b", "page.png");
  b.metallic = 0.25f;
  Scene s = quads({a, b});
  WriteOptions o;
  o.texture_dir = t.path.string();
  Diagnostics d;
  write(s, t / "model.glb", o, &d);
  // The validator warns about tangent spaces left to the viewer: the writer makes them.
  EXPECT_EQ(all_warnings(d),
            "tangents generated for 2 meshes without them: a mesh with a normal map needs them in glTF\n");
  Glb g = parse_glb(read_bytes(t / "model.glb"));
  EXPECT_TRUE(g.j["meshes"][0]["primitives"][0]["attributes"].contains("TANGENT"));
  // page, normal map, specular map, and the team colour mask, which no glTF slot uses: the
  // material's extras name it by index (its texture is reported unused).
  ASSERT_EQ(g.j["images"].size(), 4u);
  EXPECT_EQ(g.j["images"][1]["name"], "page_nm");
  EXPECT_EQ(g.j["images"][2]["name"], "page_sm");
  EXPECT_EQ(g.j["images"][3]["name"], "page_tcmask");
  const json& ma = g.j["materials"][0];
  EXPECT_EQ(ma["pbrMetallicRoughness"], json::parse(R"({"metallicFactor": 0.0, "roughnessFactor": 0.5,
                                                       "baseColorTexture": {"index": 0}})"));
  EXPECT_EQ(ma["normalTexture"], json::parse(R"({"index": 1})"));
  EXPECT_EQ(ma["extensions"], json::parse(R"({"KHR_materials_specular": {"specularColorTexture": {"index": 2}}})"));
  EXPECT_EQ(ma["emissiveFactor"], json::parse("[0.5, 0.25, 0.0]"));
  EXPECT_EQ(ma["extras"]["meshport"], json::parse(R"({"name": "a", "base_color_texture": "page.png",
      "normal_texture": "page_nm.tga", "specular_texture": "page_sm.bmp", "team_colour_texture": "page_tcmask.png",
      "team_colour_image": 3})"));
  const json& mb = g.j["materials"][1];
  EXPECT_EQ(mb["pbrMetallicRoughness"], json::parse(R"({"metallicFactor": 0.25, "baseColorTexture": {"index": 0}})"));
  EXPECT_FALSE(mb.contains("emissiveFactor"));
  EXPECT_FALSE(mb.contains("normalTexture"));
  EXPECT_FALSE(mb.contains("extensions"));
  EXPECT_EQ(mb["extras"]["meshport"], json::parse(R"({"name": "b", "base_color_texture": "page.png"})"));
  EXPECT_EQ(g.j["extensionsUsed"], json::parse(R"(["KHR_materials_specular"])"));
  EXPECT_EQ(decode(g.image(1)).rgba, p.other.rgba);
  EXPECT_EQ(decode(g.image(2)).rgba, specular.rgba);
  expect_valid({t / "model.glb"}, {"/textures/3"});
  // Without normals there are no tangents: the normal map is left out.
  Scene bare = quads({a});
  bare.meshes[0].streams.erase(bare.meshes[0].streams.begin() + 1);
  Diagnostics db;
  write(bare, t / "bare.glb", o, &db);
  EXPECT_TRUE(has_warning(db, "material 'a': normal texture 'page_nm.tga' not used: mesh 'quad0' has no tangents"))
      << all_warnings(db);
  Glb gb = parse_glb(read_bytes(t / "bare.glb"));
  EXPECT_FALSE(gb.j["materials"][0].contains("normalTexture"));
  EXPECT_EQ(gb.j["images"].size(), 3u);  // page, specular map, team colour mask
  expect_valid({t / "bare.glb"}, {"/textures/2"});
  // Blender keeps the extras: the slots come back by name.
  Scene r = read(t / "model.glb");
  ASSERT_EQ(r.materials.size(), 2u);
  EXPECT_EQ(r.materials[0].name, "a");
  EXPECT_EQ(r.materials[0].base_color_texture, "page.png");
}

TEST(GltfTextures, UnusedMaterialsGetNoImages) {
  TempDir t;
  Pages p;
  write_bytes(t.path / "page-1.png", p.png);
  write_bytes(t.path / "page-2.png", image::encode_png(p.other));
  Scene s = quads({slots("a", "page-1.png")});
  s.materials.push_back(slots("tileset 1", "page-2.png"));  // no mesh uses it
  WriteOptions o;
  o.texture_dir = t.path.string();
  Glb g = parse_glb(write_memory(s, Format::Glb, o));
  ASSERT_EQ(g.j["images"].size(), 1u);
  EXPECT_EQ(g.j["images"][0]["name"], "page-1");
  EXPECT_EQ(g.j["materials"][1]["extras"]["meshport"]["base_color_texture"], "page-2.png");
}

// ---- Team colour ------------------------------------------------------------------------------

TEST(GltfTextures, TeamColourChangesExactlyTheMaskedPixels) {
  TempDir t;
  Pages p;
  write_bytes(t.path / "page.png", p.png);
  // The mask: alpha 255 on the left column, 128 at (3, 3), 0 elsewhere.
  image::Pixels mask{4, 4, std::vector<uint8_t>(64, 0)};
  for (uint32_t y = 0; y < 4; ++y) mask.rgba[(y * 4) * 4 + 3] = 255;
  mask.rgba[(3 * 4 + 3) * 4 + 3] = 128;
  write_bytes(t.path / "page_tcmask.png", image::encode_png(mask));
  Scene s = quads({slots("a", "page.png", "", "", "page_tcmask.png")});
  WriteOptions o;
  o.texture_dir = t.path.string();
  o.team_colour = std::array<uint8_t, 3>{255, 0, 40};
  Diagnostics d;
  write(s, t / "model.glb", o, &d);
  EXPECT_EQ(all_warnings(d), "");
  Glb g = parse_glb(read_bytes(t / "model.glb"));
  ASSERT_EQ(g.j["images"].size(), 1u);
  EXPECT_EQ(g.j["images"][0]["name"], "page-team");
  EXPECT_EQ(g.j["materials"][0]["extras"]["meshport"]["team_colour_applied"], json::parse("[255, 0, 40]"));
  EXPECT_EQ(g.j["materials"][0]["extras"]["meshport"]["team_colour_texture"], "page_tcmask.png");
  const image::Pixels out = decode(g.image(0));
  ASSERT_EQ(out.rgba.size(), p.picture.rgba.size());
  const uint8_t team[3] = {255, 0, 40};
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      const uint8_t* a = image_samples::at(p.picture, x, y);
      const uint8_t* b = image_samples::at(out, x, y);
      const int alpha = x == 0 ? 255 : (x == 3 && y == 3) ? 128 : 0;
      for (int c = 0; c < 3; ++c) {
        const long want = std::clamp(std::lround(a[c] + (team[c] - 127.5) * alpha / 255.0), 0L, 255L);
        EXPECT_EQ(b[c], want) << x << "," << y << " channel " << c;
      }
      EXPECT_EQ(b[3], a[3]);
      if (alpha == 0) {
        EXPECT_EQ(std::memcmp(a, b, 4), 0) << x << "," << y;
      }
    }
  expect_valid({t / "model.glb"});

  // A mask that cannot be found: the plain page, and a warning.
  Scene s2 = quads({slots("a", "page.png", "", "", "nothing_tcmask.png")});
  Diagnostics d2;
  Glb g2 = parse_glb(write_memory(s2, Format::Glb, o, &d2));
  EXPECT_TRUE(has_warning(d2, "material 'a': team colour not applied: mask 'nothing_tcmask.png' not found"))
      << all_warnings(d2);
  ASSERT_EQ(g2.j["images"].size(), 1u);
  EXPECT_EQ(g2.image(0), p.png);
  EXPECT_FALSE(g2.j["materials"][0]["extras"]["meshport"].contains("team_colour_applied"));
  // A mask that cannot be decoded likewise.
  write_bytes(t.path / "bad_tcmask.png", {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0});
  Scene s3 = quads({slots("a", "page.png", "", "", "bad_tcmask.png")});
  Diagnostics d3;
  Glb g3 = parse_glb(write_memory(s3, Format::Glb, o, &d3));
  EXPECT_TRUE(has_warning(d3, "material 'a': team colour not applied: mask file '")) << all_warnings(d3);
  EXPECT_EQ(g3.image(0), p.png);
}

// ---- What cannot be used ----------------------------------------------------------------------

TEST(GltfTextures, MissingOrUndecodableTexturesWarnAndTheOutputStaysValid) {
  TempDir t;
  Pages p;
  write_bytes(t.path / "skin.png", p.png);
  write_bytes(t.path / "bad.tga", {0, 0, 2, 0, 0, 0, 0, 0});
  write_bytes(t.path / "cut.png", Bytes(p.png.begin(), p.png.begin() + 30));
  Scene s = quads({slots("a", "skin.png", "missing_nm.png"), slots("b", "bad.tga"), slots("c", "cut.png")});
  WriteOptions o;
  o.texture_dir = t.path.string();
  Diagnostics d;
  write(s, t / "model.gltf", o, &d);
  const std::string w = all_warnings(d);
  EXPECT_TRUE(has_warning(d, "material 'a': normal texture 'missing_nm.png' not found: ")) << w;
  EXPECT_TRUE(has_warning(d, fmt::format("material 'b': base colour texture 'bad.tga' cannot be used: file '{}/bad.tga': ",
                                         t.path.string())))
      << w;
  EXPECT_TRUE(has_warning(d, "material 'c': base colour texture 'cut.png' cannot be used: file '")) << w;
  const json j = json::parse(testutil::slurp(t / "model.gltf"));
  ASSERT_EQ(j["images"].size(), 1u);
  EXPECT_FALSE(j["materials"][0].contains("normalTexture"));
  EXPECT_FALSE(j["materials"][1]["pbrMetallicRoughness"].contains("baseColorTexture"));
  // The texture coordinates of b and c have no texture to serve.
  expect_valid({t / "model.gltf"},
               {"/meshes/1/primitives/0/attributes/TEXCOORD_0", "/meshes/2/primitives/0/attributes/TEXCOORD_0"});
}

TEST(GltfTextures, TooLargeFileIsAWarning) {
  TempDir t;
  // A sparse file past the 256 MiB cap: refused before reading.
  {
    std::ofstream f(t.path / "huge.png", std::ios::binary);
    f.seekp((std::streamoff(256) << 20) + 1);
    f.put('x');
  }
  Scene s = quads({slots("a", "huge.png")});
  WriteOptions o;
  o.texture_dir = t.path.string();
  Diagnostics d;
  Glb g = parse_glb(write_memory(s, Format::Glb, o, &d));
  EXPECT_TRUE(has_warning(d, "bytes, more than the 256 MiB a texture may have")) << all_warnings(d);
  EXPECT_FALSE(g.j.contains("images"));
}

// ---- The command line in a Warzone 2100 data tree ---------------------------------------------

TEST(GltfTextures, CliConvertsAWarzoneModelToATexturedGlb) {
  TempDir t;
  Pages p;
  const fs::path body = t.path / "data" / "base" / "components" / "bodies" / "body.pie";
  fs::create_directories(body.parent_path());
  std::ofstream(body) << "PIE 3\nTYPE 10200\nTEXTURE 0 page-7-barbarians-arizona.png 256 256\nLEVELS 1\nLEVEL 1\n"
                         "POINTS 4\n\t0 0 0\n\t10 0 0\n\t10 10 0\n\t0 10 0\nPOLYGONS 2\n"
                         "\t200 3 0 1 2 0 0 256 0 256 256\n\t200 3 0 2 3 0 0 256 256 0 256\n";
  const fs::path pages = t.path / "data" / "base" / "texpages";
  write_bytes(pages / "page-7-barbarians-arizona.png", p.png);
  image::Pixels mask{4, 4, std::vector<uint8_t>(64, 0)};
  mask.rgba[3] = 255;  // pixel (0, 0)
  write_bytes(pages / "page-7_tcmask.png", image::encode_png(mask));
  for (const char* d : {"out", "ext", "tc"}) fs::create_directories(t.path / d);

  testutil::CliRun r = testutil::run_cli("convert -q " + body.string() + " -o " + (t / "out/body.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  Glb g = parse_glb(read_bytes(t.path / "out" / "body.glb"));
  // The page, and the team colour mask the material's extras name by index.
  ASSERT_EQ(g.j["images"].size(), 2u);
  EXPECT_EQ(g.j["images"][0]["name"], "page-7-barbarians-arizona");
  EXPECT_EQ(g.j["images"][1]["name"], "page-7_tcmask");
  EXPECT_EQ(g.image(0), p.png);
  EXPECT_EQ(g.image(1), image::encode_png(mask));
  EXPECT_EQ(g.j["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
  EXPECT_EQ(g.j["materials"][0]["extras"]["meshport"]["team_colour_texture"], "page-7_tcmask.png");
  EXPECT_EQ(g.j["materials"][0]["extras"]["meshport"]["team_colour_image"], 1);
  expect_valid({t / "out/body.glb"}, {"/textures/1"});

  r = testutil::run_cli("convert -q " + body.string() + " -o " + (t / "ext/body.glb") + " --external-textures");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(parse_glb(read_bytes(t.path / "ext" / "body.glb")).j["images"][0]["uri"], "page-7-barbarians-arizona.png");
  EXPECT_EQ(read_bytes(t.path / "ext" / "page-7-barbarians-arizona.png"), p.png);
  expect_valid({t / "ext/body.glb"}, {"/textures/1"});

  r = testutil::run_cli("convert -q " + body.string() + " -o " + (t / "tc/body.glb") + " --team-colour 255,0,0");
  ASSERT_EQ(r.status, 0) << r.out;
  Glb tc = parse_glb(read_bytes(t.path / "tc" / "body.glb"));
  EXPECT_EQ(tc.j["materials"][0]["extras"]["meshport"]["team_colour_applied"], json::parse("[255, 0, 0]"));
  const image::Pixels px = decode(tc.image(0));
  EXPECT_NE(std::memcmp(image_samples::at(px, 0, 0), image_samples::at(p.picture, 0, 0), 3), 0);
  EXPECT_EQ(std::memcmp(image_samples::at(px, 1, 0), image_samples::at(p.picture, 1, 0), 4), 0);

  r = testutil::run_cli("convert -q " + body.string() + " -o " + (t / "bad.glb") + " --team-colour 255,0");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--team-colour"), std::string::npos) << r.out;
  r = testutil::run_cli("convert -q " + body.string() + " -o " + (t / "bad.glb") + " --team-colour 256,0,0");
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(fs::exists(t.path / "bad.glb"));
}

}  // namespace meshport_test_gltf_textures
