// glTF KHR_texture_transform (read, written back, baked for the other formats: src/ops/
// texture_transform.h) and KHR_mesh_quantization (every integer attribute type the extension
// allows, decoded to the Scene's values, with the node's dequantization transform and sparse
// accessors). Test files are built in the tests, like gltfpack's output of the Khronos Duck:
// ushort positions dequantized by the node's scale and translation, byte normals, ushort
// texture coordinates dequantized by the base colour texture's KHR_texture_transform.
#include "gltf_builder.h"
#include "image/image.h"
#include "ops/materials/texture_transform.h"
#include "test_util.h"

#include <meshport/diff.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_gltf_texture_transform {

using namespace meshport;
using json = nlohmann::json;

namespace {

using testutil::bytes_of;

// The shared builder (gltf_builder.h), with accessors made from raw bytes.
struct Builder : testutil::GltfBuilder {
  using GltfBuilder::accessor;
  // `count` elements of `type` with componentType `ct`, from `bytes` laid out with `stride`.
  size_t accessor(const std::vector<uint8_t>& bytes, int ct, const std::string& type, size_t count,
                  bool normalized = false, uint32_t stride = 0) {
    json a = {{"bufferView", view(bytes, stride)}, {"componentType", ct}, {"type", type}, {"count", count}};
    if (normalized) a["normalized"] = true;
    return GltfBuilder::accessor(a);
  }
};

std::vector<uint8_t> png_bytes() {
  image::Pixels p;
  p.width = p.height = 4;
  for (uint32_t i = 0; i < 16; ++i) p.rgba.insert(p.rgba.end(), {uint8_t(i * 16), uint8_t(255 - i * 16), 40, 255});
  return image::encode_png(p);
}

// Adds image 0 (a PNG in the buffer) and texture 0.
void add_texture(Builder& b) {
  const size_t v = b.view(png_bytes());
  b.doc["images"] = json::array({{{"bufferView", v}, {"mimeType", "image/png"}, {"name", "duck"}}});
  b.doc["textures"] = json::array({{{"source", 0}}});
}

// The quantized quad: 4 vertices with distinct positions, as gltfpack writes them.
const std::vector<std::array<uint16_t, 3>> kPos = {{0, 0, 0}, {1000, 0, 0}, {1000, 2000, 0}, {0, 2000, 16383}};
const std::vector<std::array<int8_t, 3>> kNormal = {{0, 0, 127}, {0, 0, -128}, {127, 0, 0}, {0, -127, 0}};
const std::vector<std::array<uint16_t, 2>> kUv = {{0, 0}, {4095, 0}, {4095, 2048}, {1024, 4095}};
const std::array<float, 3> kNodeScale = {1.0f / 1024, 1.0f / 1024, 1.0f / 1024};
const std::array<float, 3> kNodeTranslation = {0.5f, -0.25f, 2.0f};
const std::array<float, 2> kOffset = {0.25f, 0.75f};
const float kRotation = 1.5707964f;
const std::array<float, 2> kScale = {0.5f / 4095, 0.5f / 4095};

// gltfpack's layout: positions ushort VEC3 padded to 8 bytes, normals byte VEC3 padded to 4,
// texture coordinates ushort VEC2; a node scale and translation dequantize the positions, the
// base colour texture's KHR_texture_transform the texture coordinates.
Builder quantized_duck() {
  Builder b;
  std::vector<uint8_t> pos, nor, uv;
  for (const auto& p : kPos) {
    const uint16_t q[4] = {p[0], p[1], p[2], 0};
    pos.insert(pos.end(), reinterpret_cast<const uint8_t*>(q), reinterpret_cast<const uint8_t*>(q) + 8);
  }
  for (const auto& n : kNormal) nor.insert(nor.end(), {uint8_t(n[0]), uint8_t(n[1]), uint8_t(n[2]), 0});
  for (const auto& t : kUv) {
    const uint16_t q[2] = {t[0], t[1]};
    uv.insert(uv.end(), reinterpret_cast<const uint8_t*>(q), reinterpret_cast<const uint8_t*>(q) + 4);
  }
  const size_t ap = b.accessor(pos, 5123, "VEC3", 4, false, 8);
  b.doc["accessors"][ap]["min"] = {0, 0, 0};
  b.doc["accessors"][ap]["max"] = {1000, 2000, 16383};
  const size_t an = b.accessor(nor, 5120, "VEC3", 4, true, 4);
  const size_t at = b.accessor(uv, 5123, "VEC2", 4);
  const size_t ai = b.accessor(bytes_of(std::vector<uint16_t>{0, 1, 2, 0, 2, 3}), 5123, "SCALAR", 6);
  add_texture(b);
  b.doc["materials"] = json::array(
      {{{"name", "duck"},
        {"pbrMetallicRoughness",
         {{"baseColorTexture",
           {{"index", 0},
            {"texCoord", 0},
            {"extensions",
             {{"KHR_texture_transform",
               {{"offset", {kOffset[0], kOffset[1]}},
                {"rotation", kRotation},
                {"scale", {kScale[0], kScale[1]}},
                {"texCoord", 0}}}}}}}}}}});
  b.doc["meshes"] = json::array(
      {{{"name", "duck"},
        {"primitives",
         {{{"attributes", {{"POSITION", ap}, {"NORMAL", an}, {"TEXCOORD_0", at}}}, {"indices", ai}, {"material", 0}}}}}});
  b.doc["nodes"] = json::array({{{"mesh", 0},
                                 {"scale", {kNodeScale[0], kNodeScale[1], kNodeScale[2]}},
                                 {"translation", {kNodeTranslation[0], kNodeTranslation[1], kNodeTranslation[2]}}}});
  b.doc["scenes"] = json::array({{{"nodes", {0}}}});
  b.doc["scene"] = 0;
  b.doc["extensionsUsed"] = {"KHR_mesh_quantization", "KHR_texture_transform"};
  b.doc["extensionsRequired"] = {"KHR_mesh_quantization"};
  return b;
}

Scene read_glb(const std::vector<uint8_t>& glb, Diagnostics* d = nullptr) {
  return read_memory(glb, Format::Glb, "duck.glb", d);
}

// The extension's transform, computed here independently: u' = ox + cos r sx u + sin r sy v,
// v' = oy - sin r sx u + cos r sy v (KHR_texture_transform as its implementations and sample
// models apply it; the GLSL listing of the spec rotates the other way, KhronosGroup/glTF#1563).
std::array<float, 2> transformed(std::array<float, 2> o, float r, std::array<float, 2> s, double u, double v) {
  const double c = std::cos(double(r)), sn = std::sin(double(r));
  return {float(o[0] + c * s[0] * u + sn * s[1] * v), float(o[1] - sn * s[0] * u + c * s[1] * v)};
}

std::array<float, 2> duck_uv(size_t i) { return transformed(kOffset, kRotation, kScale, kUv[i][0], kUv[i][1]); }

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items)
    if (x.message.find(part) != std::string::npos) return true;
  return false;
}

std::string warnings(const Diagnostics& d) {
  std::string r;
  for (const auto& x : d.items) r += x.message + "\n";
  return r;
}

void write_file(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// ---- Reading ---------------------------------------------------------------------------------

TEST(GltfTextureTransform, QuantizedDuckReadsExactPositionsNormalsAndRawUvs) {
  Diagnostics d;
  const Scene s = read_glb(quantized_duck().glb(), &d);
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  const VertexStream* pos = m.find(Attribute::Position);
  const VertexStream* nor = m.find(Attribute::Normal);
  const VertexStream* uv = m.find(Attribute::Texcoord);
  ASSERT_TRUE(pos && nor && uv);
  for (size_t v = 0; v < 4; ++v) {
    for (uint32_t c = 0; c < 3; ++c)  // exact: scale 2^-10 and the translations are exact in float
      EXPECT_EQ(pos->get(v, c), kNodeTranslation[c] + float(kPos[v][c]) / 1024) << v << " " << c;
    EXPECT_EQ(uv->get(v, 0), float(kUv[v][0]));  // the transform is in the material, not applied
    EXPECT_EQ(uv->get(v, 1), float(kUv[v][1]));
  }
  const std::vector<std::array<float, 3>> normals = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0, -1, 0}};
  for (size_t v = 0; v < 4; ++v)
    for (uint32_t c = 0; c < 3; ++c) EXPECT_EQ(nor->get(v, c), normals[v][c]) << v << " " << c;
  // Declarations: positions dequantized by the node hold floats; byte normals stay normalised
  // bytes; ushort texture coordinates that are not normalised hold plain numbers.
  EXPECT_EQ(pos->format, ComponentType::Float);
  EXPECT_EQ(nor->format, ComponentType::Byte);
  EXPECT_EQ(uv->format, ComponentType::Float);

  ASSERT_EQ(s.materials.size(), 1u);
  const Material& mat = s.materials[0];
  EXPECT_EQ(mat.base_color_transform.offset, kOffset);
  EXPECT_EQ(mat.base_color_transform.rotation, kRotation);
  EXPECT_EQ(mat.base_color_transform.scale, kScale);
  EXPECT_EQ(mat.base_color_transform.texcoord, 0);
  EXPECT_EQ(mat.base_color_texcoord, 0u);
  EXPECT_TRUE(mat.normal_transform.is_identity());
  EXPECT_FALSE(has_warning(d, "extensionsRequired")) << warnings(d);
}

TEST(GltfTextureTransform, ReadsEverySlotsTransformAndTexCoord) {
  Builder b = quantized_duck();
  json& mat = b.doc["materials"][0];
  mat["normalTexture"] = {{"index", 0},
                          {"texCoord", 1},
                          {"extensions", {{"KHR_texture_transform", {{"rotation", -0.25}}}}}};
  mat["extensions"]["KHR_materials_specular"]["specularColorTexture"] = {
      {"index", 0}, {"extensions", {{"KHR_texture_transform", {{"offset", {2, 3}}, {"texCoord", 1}}}}}};
  const Scene s = read_glb(b.glb());
  const Material& m = s.materials.at(0);
  EXPECT_EQ(m.normal_texcoord, 1u);
  EXPECT_EQ(m.normal_transform.rotation, -0.25f);
  EXPECT_EQ(m.normal_transform.offset, (std::array<float, 2>{0, 0}));
  EXPECT_EQ(m.normal_transform.scale, (std::array<float, 2>{1, 1}));
  EXPECT_EQ(m.normal_transform.texcoord, -1);
  EXPECT_EQ(m.specular_texcoord, 0u);
  EXPECT_EQ(m.specular_transform.offset, (std::array<float, 2>{2, 3}));
  EXPECT_EQ(m.specular_transform.texcoord, 1);
  EXPECT_EQ(m.specular_transform.set(m.specular_texcoord), 1u);
}

TEST(GltfTextureTransform, MalformedTransformIsIgnoredWithAWarning) {
  for (const json& bad : {json{{"offset", {1}}}, json{{"rotation", "1"}}, json{{"scale", {1, "x"}}},
                          json{{"texCoord", -1}}, json{{"rotation", 1e300}}, json::array()}) {
    Builder b = quantized_duck();
    b.doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"] = bad;
    Diagnostics d;
    const Scene s = read_glb(b.glb(), &d);
    EXPECT_TRUE(s.materials.at(0).base_color_transform.is_identity()) << bad.dump();
    EXPECT_TRUE(has_warning(d, "KHR_texture_transform")) << bad.dump() << "\n" << warnings(d);
    EXPECT_TRUE(has_warning(d, "the texture transform is ignored")) << bad.dump();
  }
}

TEST(GltfTextureTransform, MalformedTexCoordIsSetZeroWithAWarning) {
  for (const json& bad : {json(-1), json(1.5), json("1"), json(70000)}) {
    Builder b = quantized_duck();
    b.doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"] = bad;
    Diagnostics d;
    const Scene s = read_glb(b.glb(), &d);
    EXPECT_EQ(s.materials.at(0).base_color_texcoord, 0u) << bad.dump();
    EXPECT_TRUE(has_warning(d, "baseColorTexture.texCoord")) << bad.dump() << "\n" << warnings(d);
    EXPECT_TRUE(has_warning(d, "set 0 is used")) << bad.dump();
    EXPECT_EQ(s.materials.at(0).base_color_transform.offset, kOffset);  // the transform still reads
  }
}

// ---- KHR_mesh_quantization: every attribute type ----------------------------------------------

// One triangle whose attribute `key` is `type` x3 vertices of componentType `ct`, read back.
struct OneAttribute {
  std::string key;
  int ct;
  std::string type;
  bool normalized;
  std::vector<int64_t> values;  // 3 vertices * components
};

template <class T>
std::vector<uint8_t> packed(const std::vector<int64_t>& v, uint32_t comps) {
  // Each element padded to 4 bytes, as the spec requires of vertex attributes.
  const size_t elem = (comps * sizeof(T) + 3) / 4 * 4;
  std::vector<uint8_t> out(v.size() / comps * elem, 0);
  for (size_t i = 0; i < v.size(); ++i) {
    const T x = T(v[i]);
    std::memcpy(out.data() + i / comps * elem + i % comps * sizeof(T), &x, sizeof(T));
  }
  return out;
}

std::vector<uint8_t> packed_any(int ct, const std::vector<int64_t>& v, uint32_t comps) {
  switch (ct) {
    case 5120: return packed<int8_t>(v, comps);
    case 5121: return packed<uint8_t>(v, comps);
    case 5122: return packed<int16_t>(v, comps);
    default: return packed<uint16_t>(v, comps);
  }
}

uint32_t comps_of(const std::string& t) { return t == "VEC2" ? 2 : t == "VEC3" ? 3 : 4; }

// The value glTF defines for component c of type ct.
float expected_value(int ct, bool normalized, int64_t c) {
  if (!normalized) return float(c);
  switch (ct) {
    case 5120: return std::max(float(c) / 127.0f, -1.0f);
    case 5121: return float(c) / 255.0f;
    case 5122: return std::max(float(c) / 32767.0f, -1.0f);
    default: return float(c) / 65535.0f;
  }
}

size_t add_attribute(Builder& b, int ct, const std::string& type, bool normalized, const std::vector<int64_t>& values) {
  const uint32_t n = comps_of(type);
  const uint32_t cs = ct == 5120 || ct == 5121 ? 1 : 2;
  return b.accessor(packed_any(ct, values, n), ct, type, values.size() / n, normalized, (n * cs + 3) / 4 * 4);
}

// A triangle with float positions plus `extra` as attribute `key`; node without transform.
Scene read_with_attribute(const std::string& key, int ct, const std::string& type, bool normalized,
                          const std::vector<int64_t>& values) {
  Builder b;
  std::vector<uint8_t> pos = bytes_of(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0});
  const size_t ap = b.accessor(pos, 5126, "VEC3", 3);
  b.doc["accessors"][ap]["min"] = {0, 0, 0};
  b.doc["accessors"][ap]["max"] = {1, 1, 0};
  json attrs = {{"POSITION", ap}};
  attrs[key] = add_attribute(b, ct, type, normalized, values);
  b.doc["meshes"] = json::array({{{"primitives", {{{"attributes", attrs}}}}}});
  b.doc["nodes"] = json::array({{{"mesh", 0}}});
  b.doc["scenes"] = json::array({{{"nodes", {0}}}});
  b.doc["extensionsRequired"] = {"KHR_mesh_quantization"};
  return read_glb(b.glb());
}

TEST(GltfMeshQuantization, EveryAttributeTypeDecodesToGltfsValues) {
  struct Case {
    std::string key;
    int ct;
    bool normalized;
    std::vector<int64_t> values;
  };
  const std::vector<int64_t> sbyte = {-128, -127, -1, 0, 1, 64, 126, 127, 5};
  const std::vector<int64_t> ubyte = {0, 1, 127, 128, 200, 254, 255, 17, 3};
  const std::vector<int64_t> sshort = {-32768, -32767, -1, 0, 1, 12345, 32766, 32767, 77};
  const std::vector<int64_t> ushort = {0, 1, 32767, 32768, 40000, 65534, 65535, 999, 4095};
  std::vector<Case> cases;
  for (bool norm : {false, true}) {
    cases.push_back({"POSITION", 5120, norm, sbyte});
    cases.push_back({"POSITION", 5121, norm, ubyte});
    cases.push_back({"POSITION", 5122, norm, sshort});
    cases.push_back({"POSITION", 5123, norm, ushort});
    for (const char* uv : {"TEXCOORD_0", "TEXCOORD_1"}) {
      cases.push_back({uv, 5120, norm, {sbyte.begin(), sbyte.begin() + 6}});
      cases.push_back({uv, 5121, norm, {ubyte.begin(), ubyte.begin() + 6}});
      cases.push_back({uv, 5122, norm, {sshort.begin(), sshort.begin() + 6}});
      cases.push_back({uv, 5123, norm, {ushort.begin(), ushort.begin() + 6}});
    }
  }
  cases.push_back({"NORMAL", 5120, true, sbyte});
  cases.push_back({"NORMAL", 5122, true, sshort});
  std::vector<int64_t> sbyte4 = sbyte, sshort4 = sshort;
  sbyte4.insert(sbyte4.end(), {127, -127, 127}), sshort4.insert(sshort4.end(), {32767, -32767, -32768});
  cases.push_back({"TANGENT", 5120, true, sbyte4});
  cases.push_back({"TANGENT", 5122, true, sshort4});
  for (const Case& k : cases) {
    const std::string type = k.key == "TANGENT" ? "VEC4" : k.key.compare(0, 8, "TEXCOORD") == 0 ? "VEC2" : "VEC3";
    const std::string label = fmt::format("{} ct {} normalized {}", k.key, k.ct, k.normalized);
    Scene s;
    if (k.key == "POSITION") {
      // The attribute is the positions themselves.
      Builder b;
      const size_t ap = add_attribute(b, k.ct, type, k.normalized, k.values);
      b.doc["meshes"] = json::array({{{"primitives", {{{"attributes", {{"POSITION", ap}}}}}}}});
      b.doc["nodes"] = json::array({{{"mesh", 0}}});
      b.doc["scenes"] = json::array({{{"nodes", {0}}}});
      s = read_glb(b.glb());
    } else {
      s = read_with_attribute(k.key, k.ct, type, k.normalized, k.values);
    }
    ASSERT_EQ(s.meshes.size(), 1u) << label;
    const Mesh& m = s.meshes[0];
    const VertexStream* st = nullptr;
    if (k.key == "POSITION") st = m.find(Attribute::Position);
    if (k.key == "NORMAL") st = m.find(Attribute::Normal);
    if (k.key == "TANGENT") st = m.find(Attribute::Tangent);
    if (k.key == "TEXCOORD_0") st = m.find(Attribute::Texcoord);
    for (const VertexStream& x : m.streams)
      if (k.key == "TEXCOORD_1" && x.name == "texcoord1") st = &x;
    ASSERT_TRUE(st) << label;
    const uint32_t n = comps_of(type);
    ASSERT_EQ(st->vertex_count(), 3u) << label;
    for (size_t v = 0; v < 3; ++v)
      for (uint32_t c = 0; c < n; ++c)
        EXPECT_EQ(st->get(v, c), expected_value(k.ct, k.normalized, k.values[v * n + c]))
            << label << " vertex " << v << " component " << c;
    // Declared format: normalised integers keep theirs (positions excepted: a node may move
    // them out of range); plain integers are numbers, declared float.
    const ComponentType declared = k.ct == 5120 ? ComponentType::Byte
                                   : k.ct == 5121 ? ComponentType::UByte
                                   : k.ct == 5122 ? ComponentType::Short
                                                  : ComponentType::UShort;
    EXPECT_EQ(st->format, k.normalized && k.key != "POSITION" ? declared : ComponentType::Float) << label;
  }
}

TEST(GltfMeshQuantization, MorphTargetDeltasOfEveryTypeAndNodeScale) {
  // Positions ushort dequantized by a node scale of 1/4 (and a translation); morph target
  // position deltas of each integer type (normalised or not) scale with the node; normal deltas
  // (byte / short normalised) turn with the normals and are not scaled by the normal matrix's
  // 1 / scale.
  struct Delta {
    int ct;
    bool normalized;
  };
  for (Delta pd : {Delta{5120, false}, Delta{5120, true}, Delta{5122, false}, Delta{5122, true}})
    for (int nct : {5120, 5122}) {
      const std::string label = fmt::format("position deltas {} {} normal deltas {}", pd.ct, pd.normalized, nct);
      Builder b;
      const size_t ap = add_attribute(b, 5123, "VEC3", false, {0, 0, 0, 8, 0, 0, 0, 8, 0});
      const size_t an = add_attribute(b, 5120, "VEC3", true, {0, 0, 127, 0, 0, 127, 0, 0, 127});
      const std::vector<int64_t> pv = {-4, 2, 1, 0, 0, 0, 100, -100, 7};
      const size_t dp = add_attribute(b, pd.ct, "VEC3", pd.normalized, pv);
      const int64_t big = nct == 5120 ? 127 : 32767;
      const std::vector<int64_t> nv = {big, 0, 0, 0, -big, 0, 0, 0, 0};
      const size_t dn = add_attribute(b, nct, "VEC3", true, nv);
      json prim;
      prim["attributes"] = {{"POSITION", ap}, {"NORMAL", an}};
      json target;
      target["POSITION"] = dp;
      target["NORMAL"] = dn;
      prim["targets"] = json::array({target});
      json mesh;
      mesh["primitives"] = json::array({prim});
      b.doc["meshes"] = json::array({mesh});
      b.doc["nodes"] = json::array({{{"mesh", 0}, {"scale", {0.25, 0.25, 0.25}}, {"translation", {1, 2, 3}}}});
      b.doc["scenes"] = json::array({{{"nodes", {0}}}});
      const Scene s = read_glb(b.glb());
      ASSERT_EQ(s.meshes.size(), 1u) << label;
      const Mesh& m = s.meshes[0];
      ASSERT_EQ(m.morph_targets.size(), 1u) << label;
      const MorphTarget& t = m.morph_targets[0];
      ASSERT_EQ(t.positions.size(), 9u);
      ASSERT_EQ(t.normals.size(), 9u);
      for (size_t i = 0; i < 9; ++i) {
        EXPECT_EQ(t.positions[i], expected_value(pd.ct, pd.normalized, pv[i]) * 0.25f) << label << " " << i;
        EXPECT_NEAR(t.normals[i], expected_value(nct, true, nv[i]), 1e-6f) << label << " " << i;
      }
      const VertexStream* pos = m.find(Attribute::Position);
      EXPECT_EQ(pos->get(1, 0), 3.0f);  // 1 + 8 / 4
      EXPECT_EQ(pos->get(2, 1), 4.0f);  // 2 + 8 / 4
    }
}

TEST(GltfMeshQuantization, SparseAccessorOfQuantizedValues) {
  // ushort positions (not normalised) with two sparse substitutions, and sparse normalised
  // short texture coordinates without a base view (zeros elsewhere).
  Builder b;
  const size_t ap = add_attribute(b, 5123, "VEC3", false, {0, 0, 0, 10, 0, 0, 0, 10, 0, 10, 10, 0});
  json& pa = b.doc["accessors"][ap];
  const size_t iv = b.view(bytes_of(std::vector<uint8_t>{1, 3}));
  const size_t vv = b.view(bytes_of(std::vector<uint16_t>{500, 600, 700, 65535, 1, 2}));
  pa["sparse"] = {{"count", 2},
                  {"indices", {{"bufferView", iv}, {"componentType", 5121}}},
                  {"values", {{"bufferView", vv}}}};
  const size_t iv2 = b.view(bytes_of(std::vector<uint16_t>{2}));
  const size_t vv2 = b.view(bytes_of(std::vector<int16_t>{-32768, 16384}));
  json sparse_uv;
  sparse_uv["componentType"] = 5122;
  sparse_uv["normalized"] = true;
  sparse_uv["type"] = "VEC2";
  sparse_uv["count"] = 4;
  sparse_uv["sparse"]["count"] = 1;
  sparse_uv["sparse"]["indices"] = {{"bufferView", iv2}, {"componentType", 5123}};
  sparse_uv["sparse"]["values"] = {{"bufferView", vv2}};
  b.doc["accessors"].push_back(sparse_uv);
  const size_t at = b.doc["accessors"].size() - 1;
  json prim;
  prim["attributes"] = {{"POSITION", ap}, {"TEXCOORD_0", at}};
  json mesh;
  mesh["primitives"] = json::array({prim});
  b.doc["meshes"] = json::array({mesh});
  b.doc["nodes"] = json::array({{{"mesh", 0}, {"scale", {0.5, 0.5, 0.5}}}});
  b.doc["scenes"] = json::array({{{"nodes", {0}}}});
  const Scene s = read_glb(b.glb());
  const VertexStream* pos = s.meshes.at(0).find(Attribute::Position);
  const VertexStream* uv = s.meshes.at(0).find(Attribute::Texcoord);
  ASSERT_TRUE(pos && uv);
  const std::vector<float> want_pos = {0, 0, 0, 250, 300, 350, 0, 5, 0, 32767.5f, 0.5f, 1};
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(pos->data[i], want_pos[i]) << i;
  const std::vector<float> want_uv = {0, 0, 0, 0, -1, 16384.0f / 32767, 0, 0};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(uv->data[i], want_uv[i]) << i;
  EXPECT_EQ(uv->format, ComponentType::Short);
}

// ---- Writing glTF: the transform is kept --------------------------------------------------------

TEST(GltfTextureTransform, GlbToGlbKeepsTheTransformAndValidates) {
  testutil::TempDir dir;
  write_file(dir / "duck.glb", quantized_duck().glb());
  auto r = testutil::run_cli("convert '" + dir / "duck.glb" + "' -o '" + dir / "out.glb" + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  r = testutil::run_cli("diff '" + dir / "duck.glb" + "' '" + dir / "out.glb" + "'");
  EXPECT_EQ(r.out, "same\n");
  std::string report;
  EXPECT_TRUE(testutil::validate_gltf({dir / "out.glb"}, report)) << report;

  const Scene a = read_glb(quantized_duck().glb());
  const Scene b = read(dir / "out.glb");
  ASSERT_EQ(b.materials.size(), 1u);
  EXPECT_EQ(b.materials[0].base_color_transform, a.materials[0].base_color_transform);
  EXPECT_EQ(b.materials[0].base_color_texcoord, 0u);
  EXPECT_EQ(b.meshes.at(0).find(Attribute::Texcoord)->data, a.meshes.at(0).find(Attribute::Texcoord)->data);

  // The written JSON: the extension on the textureInfo, in extensionsUsed, not required.
  const std::string text = testutil::slurp(dir / "out.glb");
  const uint32_t json_len = testutil::peek<uint32_t>(std::vector<uint8_t>(text.begin(), text.end()), 12);
  const json doc = json::parse(text.substr(20, json_len));
  const json& tt = doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"];
  EXPECT_EQ(tt["offset"], json::array({kOffset[0], kOffset[1]}));
  EXPECT_EQ(tt["rotation"].get<double>(), double(kRotation));
  EXPECT_EQ(tt["scale"][0].get<double>(), double(kScale[0]));
  EXPECT_EQ(tt["texCoord"], 0);
  EXPECT_NE(std::find(doc["extensionsUsed"].begin(), doc["extensionsUsed"].end(), "KHR_texture_transform"),
            doc["extensionsUsed"].end());
  EXPECT_FALSE(doc.contains("extensionsRequired"));
}

TEST(GltfTextureTransform, SecondTexcoordSetIsWrittenAsTexcoord1AndValidates) {
  // A Scene whose base colour texture samples set 1 (custom "texcoord1") through a transform
  // whose texCoord override names set 0, and a normal map on set 1.
  Scene s;
  Mesh m;
  m.name = "quad";
  m.material = 0;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 1, 1, 0, 1}));
  VertexStream second = testutil::float_stream(Attribute::Custom, 2, {0.5f, 0.5f, 1, 0.5f, 1, 1, 0.5f, 1});
  second.name = "texcoord1";
  m.streams.push_back(second);
  m.triangles = {0, 1, 2, 0, 2, 3};
  s.meshes.push_back(m);
  Material mat = testutil::material("quad", "quad.png");
  mat.base_color_texcoord = 1;
  mat.base_color_transform.offset = {0.5f, 0};
  mat.base_color_transform.texcoord = 0;
  mat.normal_texture = "quad.png";
  mat.normal_texcoord = 1;
  s.materials.push_back(mat);
  Image img;
  img.path = "quad.png";
  img.mime_type = "image/png";
  img.data = png_bytes();
  s.images.push_back(img);
  testutil::TempDir dir;
  Diagnostics d;
  write(s, dir / "quad.glb", {}, &d);
  std::string report;
  EXPECT_TRUE(testutil::validate_gltf({dir / "quad.glb"}, report)) << report;
  const Scene back = read(dir / "quad.glb");
  const Material& b = back.materials.at(0);
  EXPECT_EQ(b.base_color_texcoord, 1u);
  EXPECT_EQ(b.base_color_transform, mat.base_color_transform);
  EXPECT_EQ(b.normal_texcoord, 1u);
  const Mesh& bm = back.meshes.at(0);
  bool found = false;
  for (const VertexStream& x : bm.streams)
    if (x.attribute == Attribute::Custom && x.name == "texcoord1") found = x.data == second.data;
  EXPECT_TRUE(found);
  const std::string text = testutil::slurp(dir / "quad.glb");
  EXPECT_NE(text.find("\"TEXCOORD_1\""), std::string::npos);

  // A set the mesh lacks is not written (the validator would reject it): set 0, with a warning.
  s.materials[0].base_color_texcoord = 3;
  Diagnostics d2;
  write(s, dir / "lacking.glb", {}, &d2);
  EXPECT_TRUE(has_warning(d2, "texture coordinate set 3 not written")) << warnings(d2);
  report.clear();
  EXPECT_TRUE(testutil::validate_gltf({dir / "lacking.glb"}, report)) << report;
  EXPECT_EQ(read(dir / "lacking.glb").materials.at(0).base_color_texcoord, 0u);
}

TEST(GltfTextureTransform, DiffReportsAChangedTransformOrSet) {
  const Scene a = read_glb(quantized_duck().glb());
  EXPECT_TRUE(diff(a, a).empty());
  Scene b = a;
  b.materials[0].base_color_transform.rotation += 0.5f;
  std::vector<Difference> d = diff(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].path, "materials[duck].base_color_uv");
  b = a;
  b.materials[0].normal_texcoord = 1;
  d = diff(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].path, "materials[duck].normal_uv");
}

// ---- Baking for the other formats -------------------------------------------------------------

TEST(GltfTextureTransform, BakedIntoObjIqmIqePieAndReadBack) {
  testutil::TempDir dir;
  const Scene duck = read_glb(quantized_duck().glb());
  for (const char* ext : {"obj", "iqm", "iqe", "pie"}) {
    const std::string path = dir / (std::string("duck.") + ext);
    Diagnostics d;
    write(duck, path, {}, &d);
    const Scene back = read(path);
    ASSERT_EQ(back.meshes.size(), 1u) << ext;
    const Mesh& m = back.meshes[0];
    const VertexStream* uv = m.find(Attribute::Texcoord);
    const VertexStream* pos = m.find(Attribute::Position);
    ASSERT_TRUE(uv && pos) << ext;
    ASSERT_EQ(uv->vertex_count(), 4u) << ext;
    // PIE writes texture coordinates with limited precision; the others exactly. Vertices may
    // be reordered and positions converted: each vertex read back has one of the expected
    // coordinates, and every expected one is found.
    const float tol = std::string(ext) == "pie" ? 1e-4f : 0.0f;
    std::vector<bool> seen(4, false);
    for (size_t v = 0; v < 4; ++v) {
      bool match = false;
      for (size_t k = 0; k < 4; ++k) {
        const std::array<float, 2> want = duck_uv(k);
        if (std::fabs(uv->get(v, 0) - want[0]) <= tol && std::fabs(uv->get(v, 1) - want[1]) <= tol)
          match = true, seen[k] = true;
      }
      EXPECT_TRUE(match) << ext << " vertex " << v << ": " << uv->get(v, 0) << " " << uv->get(v, 1);
      EXPECT_GE(uv->get(v, 0), 0.0f);
      EXPECT_LE(uv->get(v, 0), 1.0f);
    }
    EXPECT_EQ(seen, std::vector<bool>(4, true)) << ext;
    // Nothing of the transform is left in the file read back.
    for (const Material& mat : back.materials) EXPECT_TRUE(mat.base_color_transform.is_identity()) << ext;
  }
}

TEST(GltfTextureTransform, BakeOpTransformsTheSetTheSlotUses) {
  Scene s;
  Mesh m;
  m.name = "m";
  m.material = 0;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  VertexStream uv0 = testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1});
  uv0.format = ComponentType::UShort;  // normalised: the baked values leave its range
  m.streams.push_back(uv0);
  VertexStream uv1 = testutil::float_stream(Attribute::Custom, 2, {0.25f, 0.5f, 0.75f, 0.5f, 0.25f, 1});
  uv1.name = "texcoord1";
  m.streams.push_back(uv1);
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  Mesh other = m;  // a second mesh of the material, without set 1
  other.name = "other";
  other.streams.pop_back();
  s.meshes.push_back(other);
  Material mat = testutil::material("mat", "a.png");
  mat.base_color_transform.offset = {1, 2};
  mat.base_color_transform.scale = {2, 3};
  mat.base_color_transform.rotation = 0.3f;
  mat.base_color_transform.texcoord = 1;
  mat.normal_texture = "n.png";  // mapped as is: differs from the base colour's
  s.materials.push_back(mat);
  Material plain = testutil::material("plain", "b.png");
  s.materials.push_back(plain);

  EXPECT_TRUE(ops::has_texture_transforms(s));
  Diagnostics d;
  ops::bake_texture_transforms(s, d);
  EXPECT_FALSE(ops::has_texture_transforms(s));
  const Mesh& a = s.meshes[0];
  const VertexStream* t = a.find(Attribute::Texcoord);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->format, ComponentType::Float);
  for (size_t v = 0; v < 3; ++v) {
    const auto want = transformed({1, 2}, 0.3f, {2, 3}, uv1.data[v * 2], uv1.data[v * 2 + 1]);
    EXPECT_EQ(t->get(v, 0), want[0]) << v;
    EXPECT_EQ(t->get(v, 1), want[1]) << v;
  }
  // The former set 0 is kept as "texcoord0"; set 1 itself is unchanged.
  const VertexStream* kept = nullptr;
  const VertexStream* set1 = nullptr;
  for (const VertexStream& x : a.streams) {
    if (x.name == "texcoord0") kept = &x;
    if (x.name == "texcoord1") set1 = &x;
  }
  ASSERT_TRUE(kept && set1);
  EXPECT_EQ(kept->data, uv0.data);
  EXPECT_EQ(set1->data, uv1.data);
  EXPECT_TRUE(has_warning(d, "set 0 is kept as the custom array 'texcoord0'")) << warnings(d);
  // The mesh without set 1 is left as it is, with a warning.
  EXPECT_EQ(s.meshes[1].find(Attribute::Texcoord)->data, uv0.data);
  EXPECT_TRUE(has_warning(d, "mesh 'other': material 'mat' maps its base colour texture through texture coordinate "
                             "set 1, which the mesh does not have"))
      << warnings(d);
  EXPECT_TRUE(has_warning(d, "material 'mat': the normal texture is mapped differently")) << warnings(d);
  EXPECT_FALSE(has_warning(d, "material 'plain'"));

  // Set 0 in place: a rotation of a quarter turn maps (1, 0) to (0, -1) (u' = cos u + sin v).
  Scene q;
  q.meshes.push_back(m);
  q.materials.push_back(testutil::material("q", "a.png"));
  q.materials[0].base_color_transform.rotation = float(M_PI / 2);
  Diagnostics d2;
  ops::bake_texture_transforms(q, d2);
  const VertexStream* r = q.meshes[0].find(Attribute::Texcoord);
  EXPECT_NEAR(r->get(1, 0), 0.0f, 1e-7f);
  EXPECT_NEAR(r->get(1, 1), -1.0f, 1e-7f);
  EXPECT_NEAR(r->get(2, 0), 1.0f, 1e-7f);  // (0, 1) -> (1, 0)
  EXPECT_NEAR(r->get(2, 1), 0.0f, 1e-7f);
  EXPECT_TRUE(d2.items.empty()) << warnings(d2);
}

// ---- gltfpack ---------------------------------------------------------------------------------

TEST(GltfTextureTransform, GltfpackDefaultQuantizationReadsBackWithinQuantizationError) {
  namespace fs = std::filesystem;
  const fs::path cli = fs::path(MESHPORT_TEST_DATA).parent_path() / "gltf_tools" / "node_modules" / "gltfpack" / "cli.js";
  ASSERT_TRUE(fs::exists(cli)) << "gltfpack is not installed: run `npm ci --prefix tests/gltf_tools` (make npm-deps)";
  // A 6 x 6 grid with distinct positions and texture coordinates spread over 0..1.
  Scene s;
  Mesh m;
  m.name = "grid";
  m.material = 0;
  std::vector<float> pos, nor, uv;
  const int n = 6;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      pos.insert(pos.end(), {float(x) * 0.37f, float(y) * 0.41f + float(x) * 0.01f, float(x * y) * 0.03f});
      nor.insert(nor.end(), {0, 0, 1});
      uv.insert(uv.end(), {0.013f + float(x) * 0.19f, 0.021f + float(y) * 0.187f + float(x) * 0.001f});
    }
  for (int y = 0; y + 1 < n; ++y)
    for (int x = 0; x + 1 < n; ++x) {
      const uint32_t a = uint32_t(y * n + x), b = a + 1, c = a + uint32_t(n), e = c + 1;
      m.triangles.insert(m.triangles.end(), {a, b, e, a, e, c});
    }
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, nor));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, uv));
  s.meshes.push_back(m);
  s.materials.push_back(testutil::material("skin", "skin.png"));
  Image img;
  img.path = "skin.png";
  img.mime_type = "image/png";
  img.data = png_bytes();
  s.images.push_back(img);

  testutil::TempDir dir;
  write(s, dir / "in.glb");
  const std::string cmd = "node '" + cli.string() + "' -i '" + dir / "in.glb" + "' -o '" + dir / "packed.glb" + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_TRUE(p);
  std::string out;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, got);
  ASSERT_EQ(::pclose(p), 0) << out;

  Diagnostics d;
  Scene packed = read(dir / "packed.glb", {}, &d);
  ASSERT_EQ(packed.meshes.size(), 1u);
  ASSERT_EQ(packed.materials.size(), 1u);
  // gltfpack quantizes the texture coordinates and puts their dequantization in the transform.
  EXPECT_FALSE(packed.materials[0].base_color_transform.is_identity());
  const VertexStream* raw = packed.meshes[0].find(Attribute::Texcoord);
  ASSERT_TRUE(raw);
  // gltfpack 1.3 stores them as normalised ushort of 12 significant bits (0..4095 / 65535), the
  // transform's scale spreading them over their range: read as they are, not yet in place.
  EXPECT_EQ(raw->format, ComponentType::UShort);
  EXPECT_LE(*std::max_element(raw->data.begin(), raw->data.end()), 4095.0f / 65535);
  EXPECT_GT(packed.materials[0].base_color_transform.scale[0], 10.0f);
  // As OBJ: the transform baked; compared with the original, vertex by vertex (by position).
  write(packed, dir / "packed.obj");
  const Scene check = read(dir / "packed.obj");
  const Mesh& pm = check.meshes.at(0);
  const VertexStream* pp = pm.find(Attribute::Position);
  const VertexStream* pu = pm.find(Attribute::Texcoord);
  ASSERT_TRUE(pp && pu);
  EXPECT_EQ(pu->vertex_count(), size_t(n * n));
  // 12-bit texture coordinates over a range below 1: error at most half a step of 1 / 4095.
  const float tol = 0.5f / 4095 + 1e-5f;
  for (size_t v = 0; v < pu->vertex_count(); ++v) {
    size_t w = 0;
    float best = INFINITY;
    for (size_t k = 0; k < size_t(n * n); ++k) {
      float dist = 0;
      for (uint32_t c = 0; c < 3; ++c) dist += std::fabs(pp->get(v, c) - pos[k * 3 + c]);
      if (dist < best) best = dist, w = k;
    }
    EXPECT_LT(best, 1e-2f) << v;
    EXPECT_NEAR(pu->get(v, 0), uv[w * 2], tol) << v;
    EXPECT_NEAR(pu->get(v, 1), uv[w * 2 + 1], tol) << v;
  }
}

}  // namespace

}  // namespace meshport_test_gltf_texture_transform
