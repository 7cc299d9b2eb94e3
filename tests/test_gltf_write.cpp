// glTF 2.0 writer: src/formats/gltf/gltf_write.cpp. Every test writes a Scene, parses the JSON (and the
// GLB container or the buffer) back with nlohmann-json, and checks the exact structure and
// values. The Khronos validator run over real files is the separate CTest GltfValidator.
#include "formats/gltf/gltf.h"

#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_gltf_write {

using namespace meshport;
using json = nlohmann::json;
using testutil::float_stream;

namespace {

// ---------------------------------------------------------------------------------------------
// Reading back

uint32_t u32(const std::vector<uint8_t>& b, size_t off) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}

struct Gltf {
  json j;
  std::vector<uint8_t> bin;

  // The values of accessor `a` as doubles (every component type), element-major.
  std::vector<double> values(size_t a) const {
    const json& acc = j["accessors"][a];
    const json& view = j["bufferViews"][acc["bufferView"].get<size_t>()];
    const int type = acc["componentType"];
    const std::string t = acc["type"];
    const size_t comps = t == "SCALAR" ? 1 : t == "VEC2" ? 2 : t == "VEC3" ? 3 : t == "VEC4" ? 4 : 16;
    const size_t size = type == 5121 ? 1 : type == 5123 ? 2 : 4;
    const size_t count = acc["count"];
    const size_t base = view["byteOffset"].get<size_t>() + acc.value("byteOffset", size_t(0));
    EXPECT_FALSE(view.contains("byteStride"));
    EXPECT_LE(base + count * comps * size, view["byteOffset"].get<size_t>() + view["byteLength"].get<size_t>());
    EXPECT_LE(base + count * comps * size, bin.size());
    std::vector<double> r(count * comps);
    for (size_t i = 0; i < r.size(); ++i) {
      const uint8_t* p = bin.data() + base + i * size;
      if (type == 5126) {
        float f;
        std::memcpy(&f, p, 4);
        r[i] = f;
      } else if (type == 5125) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        r[i] = v;
      } else if (type == 5123) {
        uint16_t v;
        std::memcpy(&v, p, 2);
        r[i] = v;
      } else {
        r[i] = *p;
      }
    }
    return r;
  }
  const json& prim(size_t mesh = 0) const { return j["meshes"][mesh]["primitives"][0]; }
  std::vector<double> attr(const std::string& name, size_t mesh = 0) const {
    return values(prim(mesh)["attributes"][name].get<size_t>());
  }
  const json& accessor(size_t a) const { return j["accessors"][a]; }
};

// Parses a GLB, checking its container layout on the way.
Gltf parse_glb(const std::vector<uint8_t>& b) {
  Gltf g;
  EXPECT_GE(b.size(), 20u);
  if (b.size() < 20) return g;
  EXPECT_EQ(u32(b, 0), 0x46546C67u);  // glTF
  EXPECT_EQ(u32(b, 4), 2u);
  EXPECT_EQ(u32(b, 8), b.size());
  const uint32_t json_len = u32(b, 12);
  EXPECT_EQ(u32(b, 16), 0x4E4F534Au);  // JSON
  EXPECT_EQ(json_len % 4, 0u);
  EXPECT_LE(20u + json_len, b.size());
  std::string text(b.begin() + 20, b.begin() + 20 + json_len);
  g.j = json::parse(text);
  if (20 + json_len < b.size()) {
    const size_t at = 20 + json_len;
    const uint32_t bin_len = u32(b, at);
    EXPECT_EQ(u32(b, at + 4), 0x004E4942u);  // BIN
    EXPECT_EQ(bin_len % 4, 0u);
    EXPECT_EQ(at + 8 + bin_len, b.size());
    g.bin.assign(b.begin() + long(at + 8), b.end());
    EXPECT_LE(g.j["buffers"][0]["byteLength"].get<size_t>(), g.bin.size());
    EXPECT_FALSE(g.j["buffers"][0].contains("uri"));
  }
  return g;
}

// Parses a .gltf whose buffer is a data URI.
Gltf parse_gltf(const std::vector<uint8_t>& b) {
  Gltf g;
  g.j = json::parse(std::string(b.begin(), b.end()));
  if (g.j.contains("buffers")) {
    const std::string uri = g.j["buffers"][0]["uri"];
    const std::string prefix = "data:application/octet-stream;base64,";
    EXPECT_EQ(uri.substr(0, prefix.size()), prefix);
    g.bin = testutil::base64_decode(uri.substr(prefix.size()));
    EXPECT_EQ(g.bin.size(), g.j["buffers"][0]["byteLength"].get<size_t>());
  }
  return g;
}

Gltf write_glb(const Scene& s, Diagnostics* d = nullptr, const WriteOptions& o = {}) {
  return parse_glb(write_memory(s, Format::Glb, o, d));
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items)
    if (x.severity == Severity::Warning && x.message.find(part) != std::string::npos) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Scenes

VertexStream stream(Attribute a, uint32_t comps, std::vector<float> data, ComponentType f = ComponentType::Float,
                    uint32_t source_size = 0) {
  VertexStream s = float_stream(a, comps, std::move(data));
  s.format = f;
  s.source_size = source_size ? source_size : comps;
  return s;
}

// A quad of two triangles (0 1 2) (0 2 3) in the XY plane, facing +Z.
Mesh quad(const std::string& name = "quad") {
  Mesh m;
  m.name = name;
  m.streams.push_back(stream(Attribute::Position, 3, {0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, -3}));
  m.triangles = {0, 1, 2, 0, 2, 3};
  return m;
}

Transform trs(std::array<float, 3> t, std::array<float, 4> r = {0, 0, 0, 1}, std::array<float, 3> s = {1, 1, 1}) {
  Transform x;
  x.translation = t;
  x.rotation = r;
  x.scale = s;
  return x;
}

// A skinned quad on a chain root -> mid -> tip, with mixed rest transforms.
Scene skinned_chain() {
  Scene s;
  const float h = std::sqrt(0.5f);
  s.joints.push_back({"root", -1, trs({1, 2, 3}, {0, h, 0, h})});
  s.joints.push_back({"mid", 0, trs({0, 1, 0}, {0, 0, 0, 1}, {2, 2, 2})});
  s.joints.push_back({"tip", 1, trs({0, 0, 0}, {h, 0, 0, h}, {1, 0.5f, 1})});
  Mesh m = quad("body");
  m.streams.push_back(stream(Attribute::BlendIndices, 2, {0, 1, 1, 2, 2, 0, 0, 0}, ComponentType::UByte, 4));
  m.streams.push_back(stream(Attribute::BlendWeights, 2, {0.5f, 0.5f, 1, 0, 0.25f, 0.75f, 1, 0}, ComponentType::UByte, 4));
  s.meshes.push_back(std::move(m));
  return s;
}

using M4 = std::array<double, 16>;  // column-major

M4 mul(const M4& a, const M4& b) {
  M4 r{};
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row)
      for (int k = 0; k < 4; ++k) r[c * 4 + row] += a[k * 4 + row] * b[c * 4 + k];
  return r;
}

// A node's local matrix from its glTF TRS (defaults where absent).
M4 node_matrix(const json& n) {
  std::array<double, 3> t{0, 0, 0}, s{1, 1, 1};
  std::array<double, 4> q{0, 0, 0, 1};
  if (n.contains("translation")) t = n["translation"].get<std::array<double, 3>>();
  if (n.contains("scale")) s = n["scale"].get<std::array<double, 3>>();
  if (n.contains("rotation")) q = n["rotation"].get<std::array<double, 4>>();
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  M4 m{1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),     0,
       2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),     0,
       2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y), 0,
       t[0],                    t[1],                    t[2],                    1};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m[c * 4 + r] *= s[c];
  return m;
}

// World matrix of node `n`, walking up through the parents given by the children lists.
M4 world_matrix(const json& nodes, size_t n) {
  for (size_t p = 0; p < nodes.size(); ++p)
    if (nodes[p].contains("children"))
      for (const auto& c : nodes[p]["children"])
        if (c.get<size_t>() == n) return mul(world_matrix(nodes, p), node_matrix(nodes[n]));
  return node_matrix(nodes[n]);
}

void expect_identity(const M4& m, const std::string& what) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(m[c * 4 + r], c == r ? 1.0 : 0.0, 1e-5) << what << " [" << c << "][" << r << "]";
}

// 1x1 PNG (valid signature and chunks).
const std::vector<uint8_t> kPng = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48,
                                   0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
                                   0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78,
                                   0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99,
                                   0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// ---------------------------------------------------------------------------------------------
// Container

TEST(GltfWrite, GlbChunkLayoutAndAlignment) {
  Scene s = skinned_chain();
  s.meshes[0].streams.push_back(stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 1, 1, 0, 1}));
  s.meshes[0].triangles = {0, 1, 2};  // 3 ushort indices: 6 bytes, so the next view needs padding
  s.meshes.push_back(quad("second"));
  const std::vector<uint8_t> b = write_memory(s, Format::Glb);
  Gltf g = parse_glb(b);
  // JSON padding is spaces, BIN padding zeros.
  const uint32_t json_len = u32(b, 12);
  std::string text(b.begin() + 20, b.begin() + 20 + json_len);
  EXPECT_EQ(text[text.find_last_not_of(' ')], '}');
  EXPECT_LT(text.size() - text.find_last_not_of(' ') - 1, 4u);
  EXPECT_EQ(g.j["asset"]["generator"], "meshport");
  EXPECT_EQ(g.j["asset"]["version"], "2.0");
  ASSERT_EQ(g.j["buffers"].size(), 1u);
  EXPECT_EQ(g.j["buffers"][0]["byteLength"].get<size_t>(), g.bin.size());
  for (const auto& v : g.j["bufferViews"]) {
    EXPECT_EQ(v["buffer"], 0);
    EXPECT_EQ(v["byteOffset"].get<size_t>() % 4, 0u) << v;
    EXPECT_FALSE(v.contains("byteStride"));
  }
  // Vertex data views are ARRAY_BUFFER, indices ELEMENT_ARRAY_BUFFER, the rest untargeted.
  const json& p = g.prim(0);
  for (auto& [name, acc] : p["attributes"].items())
    EXPECT_EQ(g.j["bufferViews"][g.accessor(acc)["bufferView"].get<size_t>()]["target"], 34962) << name;
  EXPECT_EQ(g.j["bufferViews"][g.accessor(p["indices"])["bufferView"].get<size_t>()]["target"], 34963);
  EXPECT_FALSE(g.j["bufferViews"][g.accessor(g.j["skins"][0]["inverseBindMatrices"])["bufferView"].get<size_t>()]
                   .contains("target"));
  // The 6-byte index view is followed by zero padding.
  const json& iv = g.j["bufferViews"][g.accessor(p["indices"])["bufferView"].get<size_t>()];
  EXPECT_EQ(iv["byteLength"], 6);
  const size_t pad = iv["byteOffset"].get<size_t>() + 6;
  EXPECT_EQ(g.bin[pad], 0);
  EXPECT_EQ(g.bin[pad + 1], 0);
}

TEST(GltfWrite, GltfWithSideBinAndDataUri) {
  testutil::TempDir dir;
  Scene s;
  s.meshes.push_back(quad());
  write(s, dir / "my model.gltf");
  ASSERT_TRUE(std::filesystem::exists(dir / "my model.bin"));
  const json j = json::parse(testutil::slurp(dir / "my model.gltf"));
  EXPECT_EQ(j["buffers"][0]["uri"], "my%20model.bin");
  EXPECT_EQ(j["buffers"][0]["byteLength"].get<size_t>(), std::filesystem::file_size(dir / "my model.bin"));
  // In memory the buffer is a data URI holding the same bytes.
  Gltf g = parse_gltf(write_memory(s, Format::Gltf));
  EXPECT_EQ(std::string(g.bin.begin(), g.bin.end()), testutil::slurp(dir / "my model.bin"));
  EXPECT_EQ(g.attr("POSITION"), (std::vector<double>{0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, -3}));
}

TEST(GltfWrite, EmptySceneIsAssetOnly) {
  Diagnostics d;
  Scene s;
  Mesh m;
  m.name = "nothing";
  s.meshes.push_back(m);
  Gltf g = write_glb(s, &d);
  EXPECT_TRUE(has_warning(d, "mesh 0 ('nothing') has 0 vertices and 0 triangles: not written"));
  EXPECT_FALSE(g.j.contains("meshes"));
  EXPECT_FALSE(g.j.contains("buffers"));
  // scenes[0] holds only the document-level extras (where Blender keeps them).
  ASSERT_EQ(g.j["scenes"].size(), 1u);
  EXPECT_FALSE(g.j["scenes"][0].contains("nodes"));
  EXPECT_TRUE(g.bin.empty());
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["version"], 1);
  EXPECT_FALSE(g.j.contains("extras"));
}

// ---------------------------------------------------------------------------------------------
// Meshes

TEST(GltfWrite, PositionsIndicesAndBounds) {
  Scene s;
  s.meshes.push_back(quad());
  Gltf g = write_glb(s);
  ASSERT_EQ(g.j["meshes"].size(), 1u);
  EXPECT_EQ(g.j["meshes"][0]["name"], "quad");
  const json& p = g.prim();
  EXPECT_EQ(p["mode"], 4);
  const json& pos = g.accessor(p["attributes"]["POSITION"]);
  EXPECT_EQ(pos["componentType"], 5126);
  EXPECT_EQ(pos["type"], "VEC3");
  EXPECT_EQ(pos["count"], 4);
  EXPECT_EQ(pos["min"], json::parse("[0, 0, -3]"));
  EXPECT_EQ(pos["max"], json::parse("[2, 1, 0]"));
  const json& idx = g.accessor(p["indices"]);
  EXPECT_EQ(idx["componentType"], 5123);
  EXPECT_EQ(idx["type"], "SCALAR");
  // Scene winding is glTF's: indices unchanged.
  EXPECT_EQ(g.values(p["indices"]), (std::vector<double>{0, 1, 2, 0, 2, 3}));
  // One root node for the mesh, in the scene.
  ASSERT_EQ(g.j["nodes"].size(), 1u);
  EXPECT_EQ(g.j["nodes"][0]["mesh"], 0);
  EXPECT_FALSE(g.j["nodes"][0].contains("skin"));
  EXPECT_EQ(g.j["scenes"][0]["nodes"], json::parse("[0]"));
  EXPECT_EQ(g.j["scene"], 0);
}

TEST(GltfWrite, IndexTypeFollowsVertexCount) {
  for (size_t nv : {size_t(65535), size_t(65536)}) {
    Scene s;
    Mesh m;
    std::vector<float> pos(nv * 3, 0.0f);
    for (size_t v = 0; v < nv; ++v) pos[v * 3] = float(v);
    m.streams.push_back(stream(Attribute::Position, 3, std::move(pos)));
    m.triangles = {0, 1, uint32_t(nv - 1)};
    s.meshes.push_back(std::move(m));
    Gltf g = write_glb(s);
    const json& idx = g.accessor(g.prim()["indices"]);
    EXPECT_EQ(idx["componentType"], nv <= 65535 ? 5123 : 5125) << nv;
    EXPECT_EQ(g.values(g.prim()["indices"]), (std::vector<double>{0, 1, double(nv - 1)}));
  }
}

TEST(GltfWrite, NormalsTangentsColoursTexcoordsAndCustoms) {
  Scene s;
  Mesh m = quad();
  m.streams.push_back(stream(Attribute::Normal, 3, {0, 0, 2, 0, 0, 0, 3, 4, 0, 0, 0, 1}));
  m.streams.push_back(stream(Attribute::Tangent, 4, {1, 0, 0, 1, 2, 0, 0, -1, 0, 0, 0, 1, 1, 0, 0, 0}));
  m.streams.push_back(stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 1, 1, 0, 1}));
  m.streams.push_back(stream(Attribute::Color, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1, 2, -1, 0.5f}, ComponentType::UByte, 3));
  VertexStream lm = stream(Attribute::Custom, 2, {0.5f, 0.25f, 1, 1, 0, 0, 0, 0}, ComponentType::UShort, 2);
  lm.name = "lightmap uv";
  lm.custom_slot = 3;
  m.streams.push_back(lm);
  VertexStream c4 = stream(Attribute::Color, 4, {1, 1, 1, 0.5f, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  m.streams.push_back(c4);
  s.meshes.push_back(std::move(m));
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  const json& attrs = g.prim()["attributes"];
  // Normals renormalised; the zero one becomes (0, 1, 0) with a warning.
  EXPECT_EQ(g.attr("NORMAL"), (std::vector<double>{0, 0, 1, 0, 1, 0, 0.6f, 0.8f, 0, 0, 0, 1}));
  EXPECT_TRUE(has_warning(d, "1 zero-length normals written as (0, 1, 0)"));
  // Tangents: xyz unit, w +-1 (0 becomes +1), a zero tangent (1, 0, 0).
  EXPECT_EQ(g.accessor(attrs["TANGENT"])["type"], "VEC4");
  EXPECT_EQ(g.attr("TANGENT"), (std::vector<double>{1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 1, 0, 0, 1}));
  EXPECT_TRUE(has_warning(d, "1 zero-length tangents"));
  EXPECT_TRUE(has_warning(d, "1 tangent handedness values"));
  EXPECT_EQ(g.accessor(attrs["TEXCOORD_0"])["type"], "VEC2");
  EXPECT_EQ(g.attr("TEXCOORD_0"), (std::vector<double>{0, 0, 1, 0, 1, 1, 0, 1}));
  // Colours: float VEC3 / VEC4, clamped to 0..1.
  EXPECT_EQ(g.accessor(attrs["COLOR_0"])["type"], "VEC3");
  EXPECT_EQ(g.accessor(attrs["COLOR_0"])["componentType"], 5126);
  EXPECT_EQ(g.attr("COLOR_0"), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0.5}));
  EXPECT_TRUE(has_warning(d, "2 colour values outside 0..1 clamped"));
  EXPECT_EQ(g.accessor(attrs["COLOR_1"])["type"], "VEC4");
  EXPECT_EQ(g.attr("COLOR_1")[3], 0.5);
  // Custom arrays: "_" + upper case, other characters '_'.
  ASSERT_TRUE(attrs.contains("_LIGHTMAP_UV"));
  EXPECT_EQ(g.accessor(attrs["_LIGHTMAP_UV"])["type"], "VEC2");
  EXPECT_EQ(g.attr("_LIGHTMAP_UV"), (std::vector<double>{0.5, 0.25, 1, 1, 0, 0, 0, 0}));
  // Every accessor of the primitive has the vertex count.
  for (auto& [name, a] : attrs.items()) EXPECT_EQ(g.accessor(a)["count"], 4) << name;
}

TEST(GltfWrite, NonFiniteValuesAndMissingTexcoordsForATexture) {
  Scene s;
  Mesh m = quad();
  m.streams.push_back(stream(Attribute::Texcoord, 2, {0, NAN, 1, 0, INFINITY, 1, 0, 1}));
  s.meshes.push_back(std::move(m));
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  EXPECT_EQ(g.attr("TEXCOORD_0"), (std::vector<double>{0, 0, 1, 0, 0, 1, 0, 1}));
  EXPECT_TRUE(has_warning(d, "2 values that are not finite written as 0"));
}

TEST(GltfWrite, InconsistentSceneFails) {
  Scene s;
  s.meshes.push_back(quad());
  s.meshes[0].triangles.push_back(9);
  EXPECT_THROW(write_memory(s, Format::Glb), Error);
  s.meshes[0] = quad();
  s.meshes[0].triangles = {0, 1, 7};
  EXPECT_THROW(write_memory(s, Format::Glb), Error);
  s.meshes[0] = quad();
  s.meshes[0].streams.push_back(stream(Attribute::Normal, 3, {0, 0, 1}));
  EXPECT_THROW(write_memory(s, Format::Glb), Error);
}

TEST(GltfWrite, EmptyMeshesAreSkippedWithAWarning) {
  Scene s;
  s.meshes.push_back(quad("a"));
  Mesh none = quad("no triangles");
  none.triangles.clear();
  s.meshes.push_back(none);
  s.meshes.push_back(quad("b"));
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  EXPECT_TRUE(has_warning(d, "mesh 1 ('no triangles') has 4 vertices and 0 triangles: not written"));
  ASSERT_EQ(g.j["meshes"].size(), 2u);
  EXPECT_EQ(g.j["meshes"][1]["name"], "b");
  EXPECT_EQ(g.j["nodes"][1]["mesh"], 1);
  EXPECT_EQ(g.j["scenes"][0]["nodes"], json::parse("[0, 1]"));
}

TEST(GltfWrite, MorphTargets) {
  Scene s;
  Mesh m = quad();
  m.streams.push_back(stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.morph_targets.push_back({"smile", {0, 0, 0, 1, 0, 0, 0, -2, 0, 0, 0, 0.5f}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0.1f, 0, 0}, {}});
  m.morph_targets.push_back({"blink", {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0}, {}, {}});
  m.morph_weights = {0.25f, 1};
  s.meshes.push_back(std::move(m));
  Gltf g = write_glb(s);
  const json& mesh = g.j["meshes"][0];
  EXPECT_EQ(mesh["weights"], json::parse("[0.25, 1]"));
  EXPECT_EQ(mesh["extras"]["targetNames"], json::parse(R"(["smile", "blink"])"));
  const json& t = g.prim()["targets"];
  ASSERT_EQ(t.size(), 2u);
  const json& p0 = g.accessor(t[0]["POSITION"]);
  EXPECT_EQ(p0["count"], 4);
  EXPECT_EQ(p0["min"], json::parse("[0, -2, 0]"));
  EXPECT_EQ(p0["max"], json::parse("[1, 0, 0.5]"));
  EXPECT_EQ(g.values(t[0]["POSITION"]), (std::vector<double>{0, 0, 0, 1, 0, 0, 0, -2, 0, 0, 0, 0.5}));
  EXPECT_EQ(g.values(t[0]["NORMAL"])[9], double(0.1f));
  EXPECT_FALSE(t[1].contains("NORMAL"));
  EXPECT_EQ(g.accessor(t[1]["POSITION"])["min"], json::parse("[0, 1, 0]"));
}

// ---------------------------------------------------------------------------------------------
// Skeleton and skinning

TEST(GltfWrite, SkeletonNodesAndInverseBindMatrices) {
  Gltf g = write_glb(skinned_chain());
  const json& nodes = g.j["nodes"];
  ASSERT_EQ(nodes.size(), 4u);  // 3 joints, then the mesh node
  EXPECT_EQ(nodes[0]["name"], "root");
  EXPECT_EQ(nodes[0]["translation"], json::parse("[1, 2, 3]"));
  EXPECT_NEAR(nodes[0]["rotation"][1].get<double>(), std::sqrt(0.5), 1e-7);
  EXPECT_FALSE(nodes[0].contains("scale"));
  EXPECT_EQ(nodes[0]["children"], json::parse("[1]"));
  EXPECT_EQ(nodes[1]["translation"], json::parse("[0, 1, 0]"));
  EXPECT_FALSE(nodes[1].contains("rotation"));
  EXPECT_EQ(nodes[1]["scale"], json::parse("[2, 2, 2]"));
  EXPECT_EQ(nodes[1]["children"], json::parse("[2]"));
  EXPECT_FALSE(nodes[2].contains("translation"));
  EXPECT_FALSE(nodes[2].contains("children"));
  EXPECT_EQ(nodes[2]["scale"], json::parse("[1, 0.5, 1]"));
  EXPECT_EQ(nodes[3]["name"], "body");
  EXPECT_EQ(nodes[3]["mesh"], 0);
  EXPECT_EQ(nodes[3]["skin"], 0);
  EXPECT_FALSE(nodes[3].contains("translation"));
  EXPECT_EQ(g.j["scenes"][0]["nodes"], json::parse("[3, 0]"));
  const json& skin = g.j["skins"][0];
  EXPECT_EQ(skin["joints"], json::parse("[0, 1, 2]"));
  EXPECT_EQ(skin["skeleton"], 0);
  const json& ibm = g.accessor(skin["inverseBindMatrices"]);
  EXPECT_EQ(ibm["type"], "MAT4");
  EXPECT_EQ(ibm["componentType"], 5126);
  EXPECT_EQ(ibm["count"], 3);
  const std::vector<double> m = g.values(skin["inverseBindMatrices"]);
  for (size_t j = 0; j < 3; ++j) {
    M4 inv;
    std::copy(m.begin() + long(j * 16), m.begin() + long(j * 16 + 16), inv.begin());
    EXPECT_EQ(inv[3], 0.0);  // last row exactly 0 0 0 1
    EXPECT_EQ(inv[7], 0.0);
    EXPECT_EQ(inv[11], 0.0);
    EXPECT_EQ(inv[15], 1.0);
    expect_identity(mul(inv, world_matrix(nodes, j)), fmt::format("joint {}", j));
  }
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["joint_nodes"], 3);
  EXPECT_FALSE(g.j["scenes"][0]["extras"]["meshport"].contains("static_node"));
}

TEST(GltfWrite, InfluencesJointsAndWeights) {
  Scene s = skinned_chain();
  Gltf g = write_glb(s);
  const json& attrs = g.prim()["attributes"];
  EXPECT_FALSE(attrs.contains("JOINTS_1"));
  EXPECT_EQ(g.accessor(attrs["JOINTS_0"])["componentType"], 5121);  // 3 joints fit ubyte
  EXPECT_EQ(g.accessor(attrs["JOINTS_0"])["type"], "VEC4");
  EXPECT_EQ(g.accessor(attrs["WEIGHTS_0"])["componentType"], 5126);
  // Zero-weight slots use joint 0; (2, 0.25) (0, 0.75) keeps its order.
  EXPECT_EQ(g.attr("JOINTS_0"), (std::vector<double>{0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(g.attr("WEIGHTS_0"),
            (std::vector<double>{0.5, 0.5, 0, 0, 1, 0, 0, 0, 0.25, 0.75, 0, 0, 1, 0, 0, 0}));
}

TEST(GltfWrite, SixInfluencesUseASecondSet) {
  Scene s = skinned_chain();
  for (int k = 3; k < 8; ++k) s.joints.push_back({fmt::format("j{}", k), 0, trs({float(k), 0, 0})});
  Mesh& m = s.meshes[0];
  m.streams.resize(1);
  // Vertex 0: 6 influences (unnormalised, sum 2); vertex 1: joint 3 listed twice (merged);
  // vertex 2: a joint outside the skeleton (dropped); vertex 3: one influence.
  m.streams.push_back(stream(Attribute::BlendIndices, 6,
                             {1, 2, 3, 4, 5, 6, 3, 7, 3, 0, 0, 0, 99, 2, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0}));
  m.streams.push_back(stream(Attribute::BlendWeights, 6,
                             {0.2f, 0.2f, 0.4f, 0.4f, 0.4f, 0.4f, 0.25f, 0.5f, 0.25f, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 0,
                              1, 0, 0, 0, 0, 0}));
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  const json& attrs = g.prim()["attributes"];
  ASSERT_TRUE(attrs.contains("JOINTS_1"));
  ASSERT_TRUE(attrs.contains("WEIGHTS_1"));
  EXPECT_FALSE(attrs.contains("JOINTS_2"));
  const auto j0 = g.attr("JOINTS_0"), j1 = g.attr("JOINTS_1"), w0 = g.attr("WEIGHTS_0"), w1 = g.attr("WEIGHTS_1");
  EXPECT_EQ(std::vector<double>(j0.begin(), j0.begin() + 4), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(std::vector<double>(j1.begin(), j1.begin() + 4), (std::vector<double>{5, 6, 0, 0}));
  const double expect_w[8] = {0.1, 0.1, 0.2, 0.2, 0.2, 0.2, 0, 0};
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(w0[c], expect_w[c], 1e-7) << c;
    EXPECT_NEAR(w1[c], expect_w[4 + c], 1e-7) << c;
  }
  EXPECT_EQ(std::vector<double>(j0.begin() + 4, j0.begin() + 8), (std::vector<double>{3, 7, 0, 0}));
  EXPECT_EQ(std::vector<double>(w0.begin() + 4, w0.begin() + 8), (std::vector<double>{0.5, 0.5, 0, 0}));
  EXPECT_EQ(std::vector<double>(j0.begin() + 8, j0.begin() + 12), (std::vector<double>{2, 0, 0, 0}));
  EXPECT_EQ(std::vector<double>(w0.begin() + 8, w0.begin() + 12), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(std::vector<double>(j0.begin() + 12, j0.begin() + 16), (std::vector<double>{5, 0, 0, 0}));
  // Every vertex's float weights sum to 1.
  for (size_t v = 0; v < 4; ++v) {
    float sum = 0;
    for (int c = 0; c < 4; ++c) sum += float(w0[v * 4 + c]) + float(w1[v * 4 + c]);
    EXPECT_NEAR(sum, 1.0f, 1e-6f) << v;
  }
  EXPECT_TRUE(has_warning(d, "1 influences on joints outside the skeleton"));
  EXPECT_TRUE(has_warning(d, "the weights of 2 vertices did not sum to 1"));
  // The extras say where the blend streams went.
  const json& streams = g.prim()["extras"]["meshport"]["streams"];
  EXPECT_EQ(streams[1]["attribute"], "blendindexes");
  EXPECT_EQ(streams[1]["gltf"], "JOINTS_0");
  EXPECT_EQ(streams[1]["sets"], 2);
  EXPECT_EQ(streams[2]["gltf"], "WEIGHTS_0");
  EXPECT_EQ(streams[2]["sets"], 2);
}

TEST(GltfWrite, UnweightedVerticesBindToAStaticRootJoint) {
  Scene s = skinned_chain();
  VertexStream& w = s.meshes[0].streams[2];
  w.data[4] = w.data[5] = 0;  // vertex 2 has no weight: IQM keeps it at rest
  Gltf g = write_glb(s);
  const json& nodes = g.j["nodes"];
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_EQ(nodes[3]["name"], "meshport_static");
  EXPECT_EQ(nodes[3]["children"], json::parse("[0]"));  // the parent of the root joint
  EXPECT_FALSE(nodes[3].contains("translation"));
  EXPECT_FALSE(nodes[3].contains("rotation"));
  EXPECT_FALSE(nodes[3].contains("scale"));
  EXPECT_EQ(nodes[3]["extras"]["meshport"]["static"], true);
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["static_node"], 3);
  EXPECT_EQ(g.j["scenes"][0]["nodes"], json::parse("[4, 3]"));
  const json& skin = g.j["skins"][0];
  EXPECT_EQ(skin["joints"], json::parse("[0, 1, 2, 3]"));
  EXPECT_EQ(skin["skeleton"], 3);
  // The unweighted vertex: joint 3 (the static node) with weight 1; its IBM is the identity.
  const auto j0 = g.attr("JOINTS_0"), w0 = g.attr("WEIGHTS_0");
  EXPECT_EQ(std::vector<double>(j0.begin() + 8, j0.begin() + 12), (std::vector<double>{3, 0, 0, 0}));
  EXPECT_EQ(std::vector<double>(w0.begin() + 8, w0.begin() + 12), (std::vector<double>{1, 0, 0, 0}));
  const auto ibm = g.values(skin["inverseBindMatrices"]);
  ASSERT_EQ(ibm.size(), 64u);
  M4 last;
  std::copy(ibm.begin() + 48, ibm.end(), last.begin());
  expect_identity(last, "static joint");
  // The other joints' matrices still invert their world matrices (unchanged by the new parent).
  for (size_t j = 0; j < 3; ++j) {
    M4 inv;
    std::copy(ibm.begin() + long(j * 16), ibm.begin() + long(j * 16 + 16), inv.begin());
    expect_identity(mul(inv, world_matrix(nodes, j)), fmt::format("joint {}", j));
  }
}

TEST(GltfWrite, SeveralRootJointsGetACommonRoot) {
  Scene s = skinned_chain();
  s.joints[2].parent = -1;  // two roots: root and tip
  Gltf g = write_glb(s);
  const json& nodes = g.j["nodes"];
  EXPECT_EQ(nodes[3]["name"], "meshport_static");
  EXPECT_EQ(nodes[3]["children"], json::parse("[0, 2]"));
  const json& skin = g.j["skins"][0];
  EXPECT_EQ(skin["skeleton"], 3);
  EXPECT_EQ(skin["joints"], json::parse("[0, 1, 2]"));  // no vertex is bound to it
  EXPECT_EQ(g.accessor(skin["inverseBindMatrices"])["count"], 3);
}

TEST(GltfWrite, BlendStreamsWithoutSkeletonAreDropped) {
  Scene s = skinned_chain();
  s.joints.clear();
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  EXPECT_FALSE(g.prim()["attributes"].contains("JOINTS_0"));
  EXPECT_FALSE(g.j.contains("skins"));
  EXPECT_TRUE(has_warning(d, "blend indices and weights not written: the Scene has no skeleton"));
}

// ---------------------------------------------------------------------------------------------
// Animations

Animation chain_animation(float rate, size_t frames) {
  Scene s = skinned_chain();
  Animation a;
  a.name = "wave";
  a.framerate = rate;
  a.loop = true;
  a.channels = 3;
  for (size_t f = 0; f < frames; ++f)
    for (size_t j = 0; j < 3; ++j) a.poses.push_back(s.joints[j].rest);
  return a;
}

TEST(GltfWrite, AnimationSamplersTimesAndValues) {
  Scene s = skinned_chain();
  Animation a = chain_animation(10, 3);
  // Joint 1 translates; joint 2 rotates, with frame 2 stored as -q (must be flipped back).
  for (size_t f = 0; f < 3; ++f) a.poses[f * 3 + 1].translation = {float(f), 1, 0};
  const float h = std::sqrt(0.5f);
  a.poses[1 * 3 + 2].rotation = {0, 0, 0, 2};  // not normalised
  a.poses[2 * 3 + 2].rotation = {-h, 0, 0, -h};
  s.animations.push_back(a);
  Gltf g = write_glb(s);
  ASSERT_EQ(g.j["animations"].size(), 1u);
  const json& an = g.j["animations"][0];
  EXPECT_EQ(an["name"], "wave");
  EXPECT_EQ(an["extras"]["meshport"], json::parse(R"({"framerate": 10, "keyframe_rate": 10, "loop": true, "channels": 3})"));
  // What differs from the rest pose: joint 1 translation, joint 2 rotation; and the scale of the
  // joints with a rest scale (1 and 2; Blender drops it otherwise: issue 32).
  ASSERT_EQ(an["channels"].size(), 4u);
  EXPECT_EQ(an["channels"][0]["target"], json::parse(R"({"node": 1, "path": "translation"})"));
  EXPECT_EQ(an["channels"][1]["target"], json::parse(R"({"node": 1, "path": "scale"})"));
  EXPECT_EQ(an["channels"][2]["target"], json::parse(R"({"node": 2, "path": "rotation"})"));
  EXPECT_EQ(an["channels"][3]["target"], json::parse(R"({"node": 2, "path": "scale"})"));
  const json& s0 = an["samplers"][an["channels"][0]["sampler"].get<size_t>()];
  const json& s1 = an["samplers"][an["channels"][2]["sampler"].get<size_t>()];
  EXPECT_EQ(s0["interpolation"], "LINEAR");
  EXPECT_EQ(s0["input"], s1["input"]);  // one time accessor per animation
  const json& in = g.accessor(s0["input"]);
  EXPECT_EQ(in["count"], 3);
  EXPECT_EQ(in["type"], "SCALAR");
  EXPECT_EQ(in["min"], json::parse("[0]"));
  EXPECT_EQ(in["max"][0].get<double>(), double(0.2f));
  EXPECT_EQ(g.values(s0["input"]), (std::vector<double>{0, double(0.1f), double(0.2f)}));
  EXPECT_EQ(g.values(s0["output"]), (std::vector<double>{0, 1, 0, 1, 1, 0, 2, 1, 0}));
  EXPECT_EQ(g.accessor(s1["output"])["type"], "VEC4");
  const std::vector<double> q = g.values(s1["output"]);
  const std::vector<double> expect_q = {h, 0, 0, h, 0, 0, 0, 1, h, 0, 0, h};  // normalised, sign-continuous
  ASSERT_EQ(q.size(), expect_q.size());
  for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], expect_q[i], 1e-7) << i;
}

TEST(GltfWrite, AnimationWithoutFramerateAndRestOnlyAnimation) {
  Scene s = skinned_chain();
  Animation still = chain_animation(0, 4);
  still.loop = false;
  s.animations.push_back(still);
  Animation empty = chain_animation(24, 0);
  empty.name = "empty";
  s.animations.push_back(empty);
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  ASSERT_EQ(g.j["animations"].size(), 1u);
  EXPECT_TRUE(has_warning(d, "animation 1 ('empty') has no frames: not written"));
  const json& an = g.j["animations"][0];
  EXPECT_EQ(an["extras"]["meshport"]["framerate"], 0);
  EXPECT_EQ(an["extras"]["meshport"]["keyframe_rate"], 30);
  EXPECT_EQ(an["extras"]["meshport"]["loop"], false);
  // Every channel holds the rest pose: only the scales of the joints with a rest scale (1 and 2,
  // issue 32) are written; they keep the animation valid.
  ASSERT_EQ(an["channels"].size(), 2u);
  EXPECT_EQ(an["channels"][0]["target"], json::parse(R"({"node": 1, "path": "scale"})"));
  EXPECT_EQ(an["channels"][1]["target"], json::parse(R"({"node": 2, "path": "scale"})"));
  const json& sm = an["samplers"][0];
  EXPECT_EQ(g.values(sm["input"]), (std::vector<double>{0, double(float(1.0 / 30)), double(float(2.0 / 30)), double(float(3.0 / 30))}));
  EXPECT_EQ(g.accessor(sm["output"])["count"], 4);
}

// Animation::times (unevenly spaced keys, binary QMSH): the keyframe times are the animation's
// own, marked in the extras, and a meshport reader restores them with every frame on its key.
TEST(GltfWrite, AnimationKeyTimesAreWrittenAndRead) {
  Scene s = skinned_chain();
  Animation a = chain_animation(0, 4);
  a.times = {0.0f, 0.4f, 0.405194819f, 0.810389638f};
  for (size_t f = 0; f < 4; ++f) a.poses[f * 3 + 1].translation = {float(f) * 0.5f, 1, 0};
  s.animations.push_back(a);
  Animation bad = a;
  bad.name = "bad times";
  bad.times = {0.0f, 0.5f, 0.5f, 1.0f};  // glTF needs strictly increasing times
  s.animations.push_back(bad);
  Diagnostics d;
  const std::vector<uint8_t> glb = write_memory(s, Format::Glb, {}, &d);
  Gltf g = parse_glb(glb);
  ASSERT_EQ(g.j["animations"].size(), 2u);
  const json& an = g.j["animations"][0];
  EXPECT_EQ(an["extras"]["meshport"],
            json::parse(R"({"framerate": 0, "keyframe_rate": 30, "loop": true, "channels": 3, "times": true})"));
  const json& sm = an["samplers"][0];
  EXPECT_EQ(g.values(sm["input"]),
            (std::vector<double>{0, double(0.4f), double(0.405194819f), double(0.810389638f)}));
  EXPECT_TRUE(has_warning(d, "animation 1 ('bad times'): its key times are not one per frame, finite and increasing"));
  EXPECT_FALSE(g.j["animations"][1]["extras"]["meshport"].contains("times"));
  EXPECT_EQ(g.values(g.j["animations"][1]["samplers"][0]["input"]),
            (std::vector<double>{0, double(float(1.0 / 30)), double(float(2.0 / 30)), double(float(3.0 / 30))}));
  Scene r = read_memory(glb, Format::Glb, "times.glb", &d);
  ASSERT_EQ(r.animations.size(), 2u);
  EXPECT_EQ(r.animations[0].times, a.times);
  EXPECT_EQ(r.animations[0].framerate, 0.0f);
  ASSERT_EQ(r.animations[0].frame_count(), 4u);
  for (size_t f = 0; f < 4; ++f)
    EXPECT_EQ(r.animations[0].poses[f * 3 + 1].translation, a.poses[f * 3 + 1].translation) << f;
  EXPECT_TRUE(r.animations[1].times.empty());
}

TEST(GltfWrite, AnimationOnlySceneGetsPoseNodes) {
  Scene s;
  Animation a;
  a.name = "walk";
  a.framerate = 10;
  a.channels = 2;
  a.poses = {trs({0, 0, 0}), trs({1, 0, 0}), trs({0, 1, 0}), trs({1, 0, 0})};
  s.animations.push_back(a);
  s.iqm.emplace().pose_parents = {-1, 0};
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  ASSERT_EQ(g.j["nodes"].size(), 2u);
  EXPECT_EQ(g.j["nodes"][0]["name"], "pose 0");
  EXPECT_EQ(g.j["nodes"][0]["children"], json::parse("[1]"));
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["animation_only"], true);
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["iqm_pose_parents"], json::parse("[-1, 0]"));
  EXPECT_EQ(g.j["scenes"][0]["nodes"], json::parse("[0]"));
  const json& an = g.j["animations"][0];
  ASSERT_EQ(an["channels"].size(), 2u);
  EXPECT_EQ(an["channels"][0]["target"], json::parse(R"({"node": 0, "path": "translation"})"));
  EXPECT_EQ(an["channels"][1]["target"], json::parse(R"({"node": 1, "path": "translation"})"));
}

// ---------------------------------------------------------------------------------------------
// Materials and textures

// (tests/test_gltf_textures.cpp has the rest: conversion, embedding, slots, team colour.)
TEST(GltfWrite, TexturesFoundAreWrittenBesideAGltf) {
  testutil::TempDir dir;
  write_bytes(dir / "tex/skin.png", kPng);
  write_bytes(dir / "tex/fake.png", {'n', 'o', 't', ' ', 'p', 'n', 'g', '!'});
  write_bytes(dir / "tex/old.tga", {0, 0, 2, 0, 0, 0, 0, 0});
  Scene s;
  const char* textures[] = {"tex/skin.png", "tex/missing.png", "tex/old.tga", "tex/fake.png", "", "tex\\skin.png"};
  for (int i = 0; i < 6; ++i) {
    s.materials.push_back(testutil::material(fmt::format("m{}", i), textures[i]));
    Mesh m = quad(fmt::format("q{}", i));
    m.streams.push_back(stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 1, 1, 0, 1}));
    m.material = i;
    s.meshes.push_back(std::move(m));
  }
  WriteOptions o;
  o.texture_dir = dir.path.string();
  Diagnostics d;
  std::filesystem::create_directories(dir / "out");
  write(s, dir / "out/model.gltf", o, &d);
  const json j = json::parse(testutil::slurp(dir / "out/model.gltf"));
  ASSERT_EQ(j["images"].size(), 1u);  // skin.png, shared by m0 and m5
  EXPECT_EQ(j["images"][0]["uri"], "skin.png");
  EXPECT_EQ(j["images"][0]["name"], "skin");
  EXPECT_EQ(j["images"][0]["mimeType"], "image/png");
  EXPECT_EQ(testutil::slurp(dir / "out/skin.png"), std::string(kPng.begin(), kPng.end()));
  EXPECT_EQ(j["textures"][0]["source"], 0);
  const json& mats = j["materials"];
  ASSERT_EQ(mats.size(), 6u);
  EXPECT_EQ(mats[0]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
  EXPECT_EQ(mats[5]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
  for (int i = 1; i <= 4; ++i) EXPECT_FALSE(mats[i]["pbrMetallicRoughness"].contains("baseColorTexture")) << i;
  EXPECT_EQ(mats[0]["pbrMetallicRoughness"]["metallicFactor"], 0);
  EXPECT_EQ(mats[2]["name"], "m2");
  EXPECT_EQ(mats[5]["extras"]["meshport"], json::parse(R"({"name": "m5", "base_color_texture": "tex\\skin.png"})"));
  EXPECT_EQ(mats[4]["extras"]["meshport"]["base_color_texture"], "");
  EXPECT_EQ(j["meshes"][3]["primitives"][0]["material"], 3);
  EXPECT_TRUE(has_warning(d, "material 'm1': base colour texture 'tex/missing.png' not found: no such file"));
  EXPECT_TRUE(has_warning(d, "material 'm2': base colour texture 'tex/old.tga' cannot be used: file '"));
  EXPECT_TRUE(has_warning(d, "material 'm3': base colour texture 'tex/fake.png' cannot be used: file '"));
  EXPECT_EQ(d.items.size(), 3u);  // m4's name is no file: no news
  // In memory: a data URI.
  Diagnostics dm;
  Gltf g = parse_gltf(write_memory(s, Format::Gltf, o, &dm));
  ASSERT_EQ(g.j["images"].size(), 1u);
  EXPECT_EQ(testutil::base64_decode(g.j["images"][0]["uri"].get<std::string>().substr(22)), kPng);
}

TEST(GltfWrite, TextureNeedsTexcoordsInEveryMeshUsingIt) {
  testutil::TempDir dir;
  write_bytes(dir / "skin.png", kPng);
  Scene s;
  s.materials.push_back(testutil::material("skin", "skin.png"));
  s.meshes.push_back(quad());
  s.meshes[0].material = 0;
  WriteOptions o;
  o.texture_dir = dir.path.string();
  Diagnostics d;
  write(s, dir / "model.glb", o, &d);
  EXPECT_TRUE(has_warning(d, "mesh 'quad' has no texture coordinates"));
  const std::string bytes = testutil::slurp(dir / "model.glb");
  Gltf g = parse_glb(std::vector<uint8_t>(bytes.begin(), bytes.end()));
  EXPECT_FALSE(g.j.contains("images"));
}

// ---------------------------------------------------------------------------------------------
// Extras

TEST(GltfWrite, ExtrasSchema) {
  Scene s;
  s.comment = "made by hand\nline 2";
  s.iqm.emplace().extensions.push_back({"FOO", {0, 1, 2, 250}});
  s.iqm->pose_parents = {-1};
  Mesh m = quad();
  m.streams[0].format = ComponentType::Half;
  m.streams[0].source_size = 4;
  VertexStream c = stream(Attribute::Color, 4, std::vector<float>(16, 1.0f), ComponentType::UByte, 4);
  m.streams.push_back(c);
  VertexStream u = stream(Attribute::Custom, 1, {1, 2, 3, 4}, ComponentType::Int, 1);
  u.custom_slot = 5;
  m.streams.push_back(u);
  m.polygon_sizes = {4};
  m.smoothing.face_group = {7};
  m.smoothing.face_angle = {30};
  m.smoothing.corner_edge = {1, 0, 1, 1};
  s.meshes.push_back(std::move(m));
  Gltf g = write_glb(s);
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"], json::parse(R"({"version": 1, "joint_nodes": 0, "joints": [],
      "meshes": ["quad"], "comment": "made by hand\nline 2", "iqm_extensions": [{"name": "FOO", "data": "AAEC+g=="}],
      "iqm_pose_parents": [-1]})"));
  EXPECT_FALSE(g.j.contains("extras"));
  const json& e = g.prim()["extras"]["meshport"];
  EXPECT_EQ(e["streams"], json::parse(R"([
      {"attribute": "position", "gltf": "POSITION", "format": "half", "source_size": 4, "components": 3},
      {"attribute": "color", "gltf": "COLOR_0", "format": "ubyte", "source_size": 4, "components": 4},
      {"attribute": "custom", "gltf": "_CUSTOM5", "format": "int", "source_size": 1, "components": 1,
       "name": "", "custom_slot": 5}])"));
  EXPECT_EQ(g.accessor(g.prim()["attributes"]["_CUSTOM5"])["type"], "SCALAR");
  EXPECT_EQ(e["polygon_sizes"], json::parse("[4]"));
  EXPECT_EQ(e["smoothing"], json::parse(R"({"face_group": [7], "face_angle": [30], "corner_edge": [1, 0, 1, 1]})"));
  // A comment that is not UTF-8 is kept byte for byte as base64.
  s.comment = std::string("caf\xE9", 4);
  g = write_glb(s);
  EXPECT_FALSE(g.j["scenes"][0]["extras"]["meshport"].contains("comment"));
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["comment_base64"], "Y2Fm6Q==");
}

// ---------------------------------------------------------------------------------------------
// The corpus

TEST(GltfWrite, Mrfixit) {
  REQUIRE_CORPUS();
  Scene s = read(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  Diagnostics d;
  Gltf g = write_glb(s, &d);
  ASSERT_EQ(g.j["meshes"].size(), 2u);
  EXPECT_EQ(g.j["meshes"][0]["name"], "Body");
  EXPECT_EQ(g.j["meshes"][1]["name"], "Head");
  EXPECT_EQ(g.accessor(g.prim(0)["attributes"]["POSITION"])["count"], 1476);
  EXPECT_EQ(g.accessor(g.prim(1)["attributes"]["POSITION"])["count"], 385);
  EXPECT_EQ(g.accessor(g.prim(0)["indices"])["count"], 2386 * 3);
  EXPECT_EQ(g.accessor(g.prim(1)["indices"])["count"], 602 * 3);
  // 75 joint nodes. The skeleton has three roots (joints 0, 73 and 74), so meshport_static is
  // their common root; every vertex is weighted, so it is not a skin joint.
  const json& skin = g.j["skins"][0];
  EXPECT_EQ(skin["joints"].size(), 75u);
  EXPECT_EQ(g.j["nodes"].size(), 78u);
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["joint_nodes"], 75);
  EXPECT_EQ(g.j["scenes"][0]["extras"]["meshport"]["static_node"], 75);
  EXPECT_EQ(g.j["nodes"][75]["children"], json::parse("[0, 73, 74]"));
  EXPECT_EQ(skin["skeleton"], 75);
  EXPECT_EQ(g.j["scenes"][0]["nodes"], json::parse("[76, 77, 75]"));
  const auto ibm = g.values(skin["inverseBindMatrices"]);
  for (size_t j = 0; j < 75; ++j) {
    M4 inv;
    std::copy(ibm.begin() + long(j * 16), ibm.begin() + long(j * 16 + 16), inv.begin());
    expect_identity(mul(inv, world_matrix(g.j["nodes"], j)), fmt::format("joint {}", j));
  }
  ASSERT_EQ(g.j["animations"].size(), 1u);
  const json& an = g.j["animations"][0];
  EXPECT_EQ(an["name"], "idle");
  const json& in = g.accessor(an["samplers"][0]["input"]);
  EXPECT_EQ(in["count"], 101);
  EXPECT_EQ(in["max"][0].get<double>(), double(float(100.0 / 24.0)));
  EXPECT_EQ(an["extras"]["meshport"]["framerate"], 24);
  for (const auto& sm : an["samplers"]) EXPECT_EQ(sm["input"], an["samplers"][0]["input"]);
  // Weights are normalised and every rotation keyframe is a unit quaternion.
  for (size_t mi = 0; mi < 2; ++mi) {
    const auto w = g.attr("WEIGHTS_0", mi);
    for (size_t v = 0; v < w.size() / 4; ++v) EXPECT_NEAR(w[v * 4] + w[v * 4 + 1] + w[v * 4 + 2] + w[v * 4 + 3], 1, 1e-6);
  }
  for (const auto& ch : an["channels"])
    if (ch["target"]["path"] == "rotation") {
      const auto q = g.values(an["samplers"][ch["sampler"].get<size_t>()]["output"]);
      for (size_t k = 0; k < q.size() / 4; ++k)
        EXPECT_NEAR(q[k * 4] * q[k * 4] + q[k * 4 + 1] * q[k * 4 + 1] + q[k * 4 + 2] * q[k * 4 + 2] + q[k * 4 + 3] * q[k * 4 + 3], 1, 1e-5);
    }
  // Tangents: unit xyz, w +-1.
  const auto t = g.attr("TANGENT", 0);
  for (size_t v = 0; v < t.size() / 4; ++v) EXPECT_EQ(std::fabs(t[v * 4 + 3]), 1.0);
}

}  // namespace

// Too many accessors for one glTF (issue 8's memory bound): a clear error, not a huge JSON.
TEST(GltfWrite, AccessorLimitIsAnError) {
  Scene s;
  const size_t meshes = kMaxGltfAccessors / 4 + 1;  // position, normal, texcoord and indices each
  s.meshes.resize(meshes);
  for (Mesh& m : s.meshes) {
    m.streams.push_back(float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
    m.streams.push_back(float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1}));
    m.streams.push_back(float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}));
    m.triangles = {0, 1, 2};
  }
  try {
    (void)write_memory(s, Format::Glb);
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message,
              "the Scene needs more than 131072 glTF accessors, meshport's limit for one glTF file");
  }
}

}  // namespace meshport_test_gltf_write
