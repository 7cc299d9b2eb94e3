// glTF 2.0 reader: src/formats/gltf/gltf_read.cpp. Test files are built in the tests: JSON text with
// the binary data in a base64 data URI (or a .glb, or a .bin beside the file in a temp folder).
#include "core/math.h"
#include "gltf_builder.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace meshport_test_gltf_read {

using namespace meshport;
using json = nlohmann::json;

namespace {

using testutil::bytes_of;
using Builder = testutil::GltfBuilder;

std::vector<uint8_t> to_bytes(const std::string& s) { return {s.begin(), s.end()}; }

Scene read_text(const std::string& text, Diagnostics* d = nullptr) {
  return read_memory(to_bytes(text), Format::Gltf, "test.gltf", d);
}
Scene read_builder(const Builder& b, Diagnostics* d = nullptr) { return read_text(b.gltf(), d); }

// The error reading `data` gives ("" when it reads).
Diagnostic error_of(const std::vector<uint8_t>& data, Format f = Format::Gltf) {
  try {
    read_memory(data, f, "bad.gltf");
  } catch (const Error& e) {
    return e.diagnostic();
  }
  return Diagnostic{Severity::Warning, "", 0, 0, -1, "(no error)"};
}
std::string error_text(const std::string& text) { return error_of(to_bytes(text)).to_string(); }

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items)
    if (x.message.find(part) != std::string::npos) return true;
  return false;
}

#define EXPECT_CONTAINS(haystack, needle)                                                  \
  do {                                                                                     \
    std::string h_ = (haystack);                                                           \
    EXPECT_NE(h_.find(needle), std::string::npos) << "'" << h_ << "' lacks '" << (needle) << "'"; \
  } while (0)

const std::vector<float> kTriPos = {0, 0, 0, 2, 0, 0, 0, 3, 0};

// One triangle mesh in one node: the base of many tests.
Builder triangle(json extra_attrs = json::object()) {
  Builder b;
  json attrs = extra_attrs;
  attrs["POSITION"] = b.floats(kTriPos, "VEC3");
  size_t idx = b.ushorts({0, 1, 2});
  b.mesh(json::array({{{"attributes", attrs}, {"indices", idx}}}), "tri");
  b.node({{"mesh", 0}});
  b.scene({0});
  return b;
}

void expect_vec(const VertexStream* s, size_t v, std::vector<float> want, float tol = 0) {
  ASSERT_NE(s, nullptr);
  ASSERT_LT(v, s->vertex_count());
  for (size_t c = 0; c < want.size(); ++c)
    EXPECT_NEAR(s->get(v, uint32_t(c)), want[c], tol) << "vertex " << v << " component " << c;
}

}  // namespace

// ---- Basics ---------------------------------------------------------------------------------

TEST(GltfRead, MinimalTriangleExactValues) {
  // Hand-written file: 3 ushort indices (+2 bytes padding), then 3 float positions.
  std::vector<uint8_t> data = bytes_of(std::vector<uint16_t>{0, 1, 2, 0});
  auto pos = bytes_of(std::vector<float>{0, 0, 0, 2, 0, 0, 0, 3, 0.5f});
  data.insert(data.end(), pos.begin(), pos.end());
  std::string text = fmt::format(R"({{
  "asset": {{"version": "2.0", "generator": "hand"}},
  "scene": 0,
  "scenes": [{{"nodes": [0]}}],
  "nodes": [{{"mesh": 0}}],
  "meshes": [{{"name": "tri", "primitives": [{{"attributes": {{"POSITION": 1}}, "indices": 0}}]}}],
  "buffers": [{{"uri": "data:application/octet-stream;base64,{}", "byteLength": {}}}],
  "bufferViews": [{{"buffer": 0, "byteOffset": 0, "byteLength": 6, "target": 34963}},
                  {{"buffer": 0, "byteOffset": 8, "byteLength": 36, "target": 34962}}],
  "accessors": [{{"bufferView": 0, "componentType": 5123, "count": 3, "type": "SCALAR", "max": [99], "min": [0]}},
                {{"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3", "max": [1, 1, 1], "min": [0, 0, 0]}}]
}})",
                                 testutil::base64(data), data.size());
  Diagnostics d;
  Scene s = read_text(text, &d);
  EXPECT_EQ(d.items.size(), 0u) << (d.items.empty() ? "" : d.items[0].to_string());
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "tri");
  EXPECT_EQ(m.material, -1);
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 1, 2}));
  ASSERT_EQ(m.streams.size(), 1u);
  const VertexStream& p = m.streams[0];
  EXPECT_EQ(p.attribute, Attribute::Position);
  EXPECT_EQ(p.format, ComponentType::Float);
  EXPECT_EQ(p.source_size, 3u);
  EXPECT_EQ(p.components, 3u);
  EXPECT_EQ(p.data, (std::vector<float>{0, 0, 0, 2, 0, 0, 0, 3, 0.5f}));
  EXPECT_TRUE(s.joints.empty());
  EXPECT_TRUE(s.animations.empty());
  EXPECT_TRUE(s.materials.empty());
}

TEST(GltfRead, GltfBufferMimeTypeAndNoScenes) {
  Builder b = triangle();
  b.doc.erase("scenes");
  b.doc.erase("scene");
  Scene s = read_text(b.gltf("application/gltf-buffer"));
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].find(Attribute::Position)->data, kTriPos);
}

TEST(GltfRead, GlbFraming) {
  Builder b = triangle();
  std::vector<uint8_t> glb = b.glb();
  Diagnostics d;
  Scene s = read_memory(glb, Format::Glb, "t.glb", &d);
  EXPECT_EQ(d.items.size(), 0u);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].find(Attribute::Position)->data, kTriPos);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2}));
  // Detected by the magic, whatever the format says; unknown chunks are skipped.
  std::vector<uint8_t> extra = glb;
  for (uint32_t v : {4u, 0x12345678u, 0xAABBCCDDu})
    for (int k = 0; k < 4; ++k) extra.push_back(uint8_t(v >> (8 * k)));
  uint32_t total = uint32_t(extra.size());
  std::memcpy(extra.data() + 8, &total, 4);
  Scene s2 = read_memory(extra, Format::Gltf, "t.gltf");
  EXPECT_EQ(s2.meshes[0].find(Attribute::Position)->data, kTriPos);
}

TEST(GltfRead, GlbFramingErrorsGiveOffsets) {
  std::vector<uint8_t> glb = triangle().glb();
  // Truncated: the header's length is past the end.
  std::vector<uint8_t> cut(glb.begin(), glb.end() - 10);
  Diagnostic d = error_of(cut, Format::Glb);
  EXPECT_EQ(d.offset, 8) << d.to_string();
  EXPECT_CONTAINS(d.message, "truncated");
  // Truncated and the header length fixed up: the BIN chunk runs past the end.
  uint32_t len = uint32_t(cut.size());
  std::memcpy(cut.data() + 8, &len, 4);
  uint32_t json_len;
  std::memcpy(&json_len, glb.data() + 12, 4);
  d = error_of(cut, Format::Glb);
  EXPECT_EQ(d.offset, int64_t(20 + json_len)) << d.to_string();
  EXPECT_CONTAINS(d.message, "past the end");
  // A JSON chunk longer than the file.
  std::vector<uint8_t> big = glb;
  uint32_t huge = 0xFFFFFF00u;
  std::memcpy(big.data() + 12, &huge, 4);
  d = error_of(big, Format::Glb);
  EXPECT_EQ(d.offset, 12) << d.to_string();
  // A chunk header cut in half.
  std::vector<uint8_t> half(glb.begin(), glb.begin() + 20 + json_len + 4);
  len = uint32_t(half.size());
  std::memcpy(half.data() + 8, &len, 4);
  d = error_of(half, Format::Glb);
  EXPECT_EQ(d.offset, int64_t(20 + json_len)) << d.to_string();
  // Too short for a header; wrong version; first chunk not JSON.
  d = error_of(std::vector<uint8_t>(glb.begin(), glb.begin() + 7), Format::Glb);
  EXPECT_GE(d.offset, 0) << d.to_string();
  std::vector<uint8_t> v1 = glb;
  v1[4] = 1;
  d = error_of(v1, Format::Glb);
  EXPECT_EQ(d.offset, 4);
  std::vector<uint8_t> nojson = glb;
  nojson[16] = 'X';
  d = error_of(nojson, Format::Glb);
  EXPECT_EQ(d.offset, 16);
  // A JSON syntax error inside a GLB is located by its file offset.
  std::vector<uint8_t> broken = glb;
  broken[20] = '[';
  broken[21] = '}';
  d = error_of(broken, Format::Glb);
  EXPECT_GE(d.offset, 20) << d.to_string();
  EXPECT_CONTAINS(d.message, "JSON chunk");
}

TEST(GltfRead, GlbBufferLongerThanBinChunk) {
  Builder b = triangle();
  json d = b.doc;
  d["buffers"] = json::array({{{"byteLength", b.bin.size() + 100}}});
  Diagnostic diag = error_of(Builder::make_glb(d.dump(), b.bin), Format::Glb);
  EXPECT_CONTAINS(diag.message, "buffers[0].byteLength");
  EXPECT_CONTAINS(diag.message, "BIN chunk");
  // No BIN chunk at all; a buffer without uri in a .gltf.
  d["buffers"][0]["byteLength"] = 4;
  diag = error_of(Builder::make_glb(d.dump(), {}), Format::Glb);
  EXPECT_CONTAINS(diag.message, "buffers[0]: refers to the GLB BIN chunk, but the file has none");
  EXPECT_CONTAINS(error_text(d.dump()), "buffers[0]: has no uri");
}

TEST(GltfRead, ExternalBinThroughSideFiles) {
  testutil::TempDir dir;
  Builder b = triangle();
  json d = b.doc;
  d["buffers"] = json::array({{{"byteLength", b.bin.size()}, {"uri", "my%20data.bin"}}});
  {
    std::ofstream f(dir / "model.gltf", std::ios::binary);
    f << d.dump(2);
    std::ofstream g(dir / "my data.bin", std::ios::binary);
    g.write(reinterpret_cast<const char*>(b.bin.data()), std::streamsize(b.bin.size()));
  }
  Scene s = read(dir / "model.gltf");
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].find(Attribute::Position)->data, kTriPos);
  // From memory the side file cannot be found.
  std::string msg = error_text(d.dump());
  EXPECT_CONTAINS(msg, "buffers[0].uri: cannot load 'my data.bin'");
  // A missing file, a too-short file, an absolute path and a remote URI are errors naming the buffer.
  d["buffers"][0]["uri"] = "missing.bin";
  {
    std::ofstream f(dir / "model.gltf", std::ios::binary);
    f << d.dump();
  }
  try {
    read(dir / "model.gltf");
    ADD_FAILURE() << "read a missing buffer";
  } catch (const Error& e) {
    EXPECT_CONTAINS(e.diagnostic().message, "buffers[0].uri: cannot load 'missing.bin'");
  }
  d["buffers"][0]["uri"] = "my%20data.bin";
  d["buffers"][0]["byteLength"] = b.bin.size() + 1;
  {
    std::ofstream f(dir / "model.gltf", std::ios::binary);
    f << d.dump();
  }
  try {
    read(dir / "model.gltf");
    ADD_FAILURE() << "read a short buffer";
  } catch (const Error& e) {
    EXPECT_CONTAINS(e.diagnostic().message, "buffers[0].byteLength");
  }
  d["buffers"][0]["uri"] = "https://example.com/x.bin";
  EXPECT_CONTAINS(error_text(d.dump()), "not a relative path");
  d["buffers"][0]["uri"] = "/etc/x.bin";
  EXPECT_CONTAINS(error_text(d.dump()), "not a relative path");
}

TEST(GltfRead, BadDataUris) {
  Builder b = triangle();
  json d = b.with_buffer();
  d["buffers"][0]["uri"] = "data:application/octet-stream;base64,AAA*";
  EXPECT_CONTAINS(error_text(d.dump()), "buffers[0].uri: invalid base64");
  d["buffers"][0]["uri"] = "data:application/octet-stream,abc";
  EXPECT_CONTAINS(error_text(d.dump()), "only base64 data URIs");
  d = b.with_buffer();
  d["buffers"][0]["byteLength"] = b.bin.size() + 4;
  EXPECT_CONTAINS(error_text(d.dump()), "buffers[0].byteLength");
}

TEST(GltfRead, JsonSyntaxErrorGivesLineAndColumn) {
  std::string text = "{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [ {\"mesh\" 0} ]\n}\n";
  Diagnostic d = error_of(to_bytes(text));
  EXPECT_EQ(d.line, 3u) << d.to_string();
  EXPECT_EQ(d.column, 22u) << d.to_string();  // at the 0 where the colon belongs
  EXPECT_EQ(d.file, "bad.gltf");
  EXPECT_EQ(d.message.find("[json.exception"), std::string::npos) << d.message;
  // Not an object; wrong version.
  EXPECT_CONTAINS(error_text("[1, 2]"), "not an object");
  EXPECT_CONTAINS(error_text(R"({"asset": {"version": "1.0"}})"), "asset.version");
  Diagnostics w;
  read_text("{}", &w);
  EXPECT_TRUE(has_warning(w, "asset"));
  // The compression extensions are read (issue 18, test_gltf_compression.cpp): required, no warning.
  for (const char* e : {"KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_meshopt_compression"}) {
    Diagnostics x;
    read_text(fmt::format(R"({{"asset": {{"version": "2.0"}}, "extensionsRequired": ["{}"]}})", e), &x);
    EXPECT_TRUE(x.items.empty()) << e;
  }
}

// ---- Accessors ------------------------------------------------------------------------------

TEST(GltfRead, EveryComponentTypeNormalizedOrNot) {
  struct Case {
    int ct;
    bool normalized;
    std::vector<uint8_t> raw;  // 4 values
    std::vector<float> want;
    ComponentType format;
  };
  auto b8 = [](std::vector<int8_t> v) { return bytes_of(v); };
  auto u8 = [](std::vector<uint8_t> v) { return v; };
  auto s16 = [](std::vector<int16_t> v) { return bytes_of(v); };
  auto u16 = [](std::vector<uint16_t> v) { return bytes_of(v); };
  auto u32 = [](std::vector<uint32_t> v) { return bytes_of(v); };
  auto f32 = [](std::vector<float> v) { return bytes_of(v); };
  std::vector<Case> cases = {
      {5120, true, b8({-128, -127, 0, 127}), {-1, -1, 0, 1}, ComponentType::Byte},
      {5120, false, b8({-128, -127, 0, 127}), {-128, -127, 0, 127}, ComponentType::Float},
      {5121, true, u8({0, 1, 128, 255}), {0, 1 / 255.0f, 128 / 255.0f, 1}, ComponentType::UByte},
      {5121, false, u8({0, 1, 128, 255}), {0, 1, 128, 255}, ComponentType::Float},
      {5122, true, s16({-32768, -32767, 0, 32767}), {-1, -1, 0, 1}, ComponentType::Short},
      {5122, false, s16({-32768, -32767, 0, 32767}), {-32768, -32767, 0, 32767}, ComponentType::Float},
      {5123, true, u16({0, 1, 32768, 65535}), {0, 1 / 65535.0f, 32768 / 65535.0f, 1}, ComponentType::UShort},
      {5123, false, u16({0, 1, 32768, 65535}), {0, 1, 32768, 65535}, ComponentType::Float},
      {5125, false, u32({0, 1, 16777216, 7}), {0, 1, 16777216, 7}, ComponentType::Float},
      {5126, false, f32({0.5f, -2, 1e-3f, 3}), {0.5f, -2, 1e-3f, 3}, ComponentType::Float},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("componentType {} normalized {}", c.ct, c.normalized));
    Builder b = triangle();
    std::vector<uint8_t> raw;
    for (int v = 0; v < 3; ++v) raw.insert(raw.end(), c.raw.begin(), c.raw.end());
    json a = {{"bufferView", b.view(raw)}, {"componentType", c.ct}, {"type", "VEC4"}, {"count", 3}};
    if (c.normalized) a["normalized"] = true;
    b.doc["meshes"][0]["primitives"][0]["attributes"]["_VALUES"] = b.accessor(a);
    Scene s = read_builder(b);
    const Mesh& m = s.meshes[0];
    const VertexStream* cs = nullptr;
    for (const auto& st : m.streams)
      if (st.attribute == Attribute::Custom) cs = &st;
    ASSERT_NE(cs, nullptr);
    EXPECT_EQ(cs->name, "VALUES");
    EXPECT_EQ(cs->format, c.format);
    EXPECT_EQ(cs->source_size, 4u);
    for (int v = 0; v < 3; ++v) expect_vec(cs, v, c.want, 1e-7f);
  }
  // Normalised float or uint and unknown component types are errors naming the accessor.
  Builder b = triangle();
  b.doc["accessors"][0]["normalized"] = true;
  EXPECT_CONTAINS(error_text(b.gltf()), "accessors[0].normalized");
  b = triangle();
  b.doc["accessors"][0]["componentType"] = 5124;
  EXPECT_CONTAINS(error_text(b.gltf()), "accessors[0].componentType: 5124");
  b = triangle();
  b.doc["accessors"][0]["type"] = "VEC5";
  EXPECT_CONTAINS(error_text(b.gltf()), "accessors[0].type");
}

TEST(GltfRead, NormalizedAttributesKeepTheirFormat) {
  Builder b = triangle();
  auto& attrs = b.doc["meshes"][0]["primitives"][0]["attributes"];
  attrs["TEXCOORD_0"] = b.add(std::vector<uint16_t>{0, 65535, 65535, 0, 0, 0}, 5123, "VEC2", true);
  attrs["COLOR_0"] = b.add(std::vector<uint8_t>{255, 0, 0, 0, 255, 0, 0, 0, 255}, 5121, "VEC3", true);
  attrs["TEXCOORD_1"] = b.floats({1, 2, 3, 4, 5, 6}, "VEC2");
  Scene s = read_builder(b);
  const Mesh& m = s.meshes[0];
  const VertexStream* uv = m.find(Attribute::Texcoord);
  ASSERT_NE(uv, nullptr);
  EXPECT_EQ(uv->format, ComponentType::UShort);
  EXPECT_EQ(uv->data, (std::vector<float>{0, 1, 1, 0, 0, 0}));
  const VertexStream* col = m.find(Attribute::Color);
  ASSERT_NE(col, nullptr);
  EXPECT_EQ(col->format, ComponentType::UByte);
  EXPECT_EQ(col->components, 3u);
  EXPECT_EQ(col->data, (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  const VertexStream* uv1 = m.find(Attribute::Custom);
  ASSERT_NE(uv1, nullptr);
  EXPECT_EQ(uv1->name, "texcoord1");
  EXPECT_EQ(uv1->data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(GltfRead, ByteStrideInterleaved) {
  Builder b;
  // Per vertex: position (3 floats), 1 float of padding, texcoord (2 floats): stride 24.
  std::vector<float> inter = {0, 0, 0, -1, 0.25f, 0.5f, 1, 0, 0, -1, 0.75f, 0.5f, 0, 1, 0, -1, 0.5f, 1};
  size_t v = b.view(bytes_of(inter), 24);
  size_t pos = b.accessor({{"bufferView", v}, {"componentType", 5126}, {"type", "VEC3"}, {"count", 3}});
  size_t uv =
      b.accessor({{"bufferView", v}, {"byteOffset", 16}, {"componentType", 5126}, {"type", "VEC2"}, {"count", 3}});
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}, {"TEXCOORD_0", uv}}}}}));
  b.node({{"mesh", 0}});
  Scene s = read_builder(b);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.find(Attribute::Position)->data, (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(m.find(Attribute::Texcoord)->data, (std::vector<float>{0.25f, 0.5f, 0.75f, 0.5f, 0.5f, 1}));
  // The last element must end inside the view: from byteOffset 20 it would end at byte 76 of 72.
  b.doc["accessors"][1]["byteOffset"] = 20;
  EXPECT_CONTAINS(error_text(b.gltf()), "accessors[1].count: 3 elements do not fit bufferViews[0] (72 bytes)");
  // A stride smaller than an element, or not a multiple of 4.
  b.doc["accessors"][1]["byteOffset"] = 16;
  b.doc["bufferViews"][0]["byteStride"] = 8;
  EXPECT_CONTAINS(error_text(b.gltf()), "bufferViews[0].byteStride: 8 is less than the 12 bytes");
  b.doc["bufferViews"][0]["byteStride"] = 22;
  EXPECT_CONTAINS(error_text(b.gltf()), "bufferViews[0].byteStride: 22 is not a multiple of 4");
}

TEST(GltfRead, SparseAccessors) {
  Builder b = triangle();
  // Over the base data: vertex 1 becomes (9, 8, 7).
  size_t iv = b.view(bytes_of(std::vector<uint8_t>{1}));
  size_t vv = b.view(bytes_of(std::vector<float>{9, 8, 7}));
  b.doc["accessors"][0]["sparse"] = {{"count", 1},
                                     {"indices", {{"bufferView", iv}, {"componentType", 5121}}},
                                     {"values", {{"bufferView", vv}}}};
  // Over zeros (no bufferView): a custom scalar array (0, 0, 5) with ushort indices.
  size_t iv2 = b.view(bytes_of(std::vector<uint16_t>{2}));
  size_t vv2 = b.view(bytes_of(std::vector<float>{5}));
  b.doc["meshes"][0]["primitives"][0]["attributes"]["_S"] =
      b.accessor({{"componentType", 5126},
                  {"type", "SCALAR"},
                  {"count", 3},
                  {"sparse",
                   {{"count", 1},
                    {"indices", {{"bufferView", iv2}, {"componentType", 5123}}},
                    {"values", {{"bufferView", vv2}}}}}});
  Scene s = read_builder(b);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.find(Attribute::Position)->data, (std::vector<float>{0, 0, 0, 9, 8, 7, 0, 3, 0}));
  EXPECT_EQ(m.find(Attribute::Custom)->data, (std::vector<float>{0, 0, 5}));
  // A sparse index past the count, and a sparse count past the accessor's.
  Builder c = b;
  c.bin[c.doc["bufferViews"][iv2]["byteOffset"].get<size_t>()] = 3;
  EXPECT_CONTAINS(error_text(c.gltf()), "sparse.indices: index 3 (entry 0) is not below the accessor's count (3)");
  c = b;
  c.doc["accessors"][0]["sparse"]["count"] = 4;
  EXPECT_CONTAINS(error_text(c.gltf()), "accessors[0].sparse.count: 4");
  c = b;
  c.doc["accessors"][0]["sparse"]["count"] = 2;
  EXPECT_CONTAINS(error_text(c.gltf()), "accessors[0].sparse.indices: 2 indices");
}

TEST(GltfRead, NonIndexedTriangles) {
  Builder b;
  size_t pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1}, "VEC3");
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}}}), "soup");
  b.node({{"mesh", 0}});
  Scene s = read_builder(b);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(GltfRead, TriangleStripAndFan) {
  Builder b;
  size_t pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0}, "VEC3");
  size_t strip = b.ushorts({0, 1, 2, 3, 4});
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}, {"indices", strip}, {"mode", 5}}}), "strip");
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}, {"mode", 6}}}), "fan");
  b.node({{"mesh", 0}});
  b.node({{"mesh", 1}});
  Scene s = read_builder(b);
  ASSERT_EQ(s.meshes.size(), 2u);
  // Strip: (0 1 2) (1 3 2) (2 3 4): every other triangle swaps its last two corners.
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2, 1, 3, 2, 2, 3, 4}));
  // Fan around vertex 0.
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3, 0, 3, 4}));
  // Degenerate strip triangles (joining strips) are dropped.
  Builder c;
  size_t p2 = c.floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, "VEC3");
  size_t s2 = c.ushorts({0, 1, 2, 2, 3, 3});
  c.mesh(json::array({{{"attributes", {{"POSITION", p2}}}, {"indices", s2}, {"mode", 5}}}));
  c.node({{"mesh", 0}});
  EXPECT_EQ(read_builder(c).meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2}));
}

// Issue 18: points and lines are read as Lines / Points meshes (loops and strips as segments).
TEST(GltfRead, PointsAndLinesAreRead) {
  const std::pair<int, std::vector<uint32_t>> cases[] = {
      {0, {0, 1, 2}}, {1, {0, 1}}, {2, {0, 1, 1, 2, 2, 0}}, {3, {0, 1, 1, 2}}};
  for (const auto& [mode, want] : cases) {
    Builder b = triangle();
    b.doc["meshes"][0]["primitives"][0]["mode"] = mode;
    Scene s = read_builder(b);
    ASSERT_EQ(s.meshes.size(), 1u);
    EXPECT_EQ(s.meshes[0].topology, mode == 0 ? Topology::Points : Topology::Lines) << mode;
    EXPECT_EQ(s.meshes[0].triangles, want) << mode;
  }
  Builder b = triangle();
  b.doc["meshes"][0]["primitives"][0]["mode"] = 9;
  EXPECT_CONTAINS(error_text(b.gltf()), "mode: 9 is not a primitive mode");
}

TEST(GltfRead, MultiplePrimitivesAndMaterials) {
  Builder b;
  size_t pos = b.floats(kTriPos, "VEC3");
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}, {"material", 1}},
                      {{"attributes", {{"POSITION", pos}}}, {"material", 0}}}),
         "body");
  b.node({{"mesh", 0}});
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G'};
  size_t img_view = b.view(png);
  b.doc["materials"] = json::array({{{"name", "skin"}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}},
                                    {{"name", "cloth"}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 1}}}}}},
                                    {{"name", "plain"}}});
  b.doc["textures"] = json::array({{{"source", 0}, {"sampler", 0}}, {{"source", 1}}});
  b.doc["samplers"] = json::array({json::object()});
  b.doc["images"] = json::array({{{"uri", "tex%20ture.png"}},
                                 {{"bufferView", img_view}, {"mimeType", "image/png"}, {"name", "embedded"}}});
  Scene s = read_builder(b);
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].name, "body.0");
  EXPECT_EQ(s.meshes[1].name, "body.1");
  EXPECT_EQ(s.meshes[0].material, 1);
  EXPECT_EQ(s.meshes[1].material, 0);
  ASSERT_EQ(s.materials.size(), 3u);
  EXPECT_EQ(s.materials[0].name, "skin");
  EXPECT_EQ(s.materials[0].base_color_texture, "tex ture.png");
  EXPECT_EQ(s.materials[1].name, "cloth");
  EXPECT_EQ(s.materials[1].base_color_texture, "embedded");
  EXPECT_EQ(s.materials[2].base_color_texture, "");
  // The primitives share their vertices: each keeps only what it uses (here: all 3).
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
}

TEST(GltfRead, SharedVertexArrayIsCompactedPerPrimitive) {
  Builder b;
  size_t pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5, 6, 5, 5, 5, 6, 5}, "VEC3");
  size_t i0 = b.ushorts({0, 1, 2});
  size_t i1 = b.ushorts({3, 5, 4});
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}, {"indices", i0}},
                      {{"attributes", {{"POSITION", pos}}}, {"indices", i1}}}),
         "m");
  b.node({{"mesh", 0}});
  Scene s = read_builder(b);
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[1].find(Attribute::Position)->data, (std::vector<float>{5, 5, 5, 5, 6, 5, 6, 5, 5}));
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(GltfRead, MorphTargets) {
  Builder b = triangle();
  size_t dp = b.floats({0, 0, 1, 0, 0, 2, 0, 0, 3}, "VEC3");
  size_t dn = b.floats({0, 1, 0, 0, 1, 0, 0, 1, 0}, "VEC3");
  size_t dp2 = b.floats({1, 0, 0, 1, 0, 0, 1, 0, 0}, "VEC3");
  b.doc["meshes"][0]["primitives"][0]["targets"] =
      json::array({{{"POSITION", dp}, {"NORMAL", dn}}, {{"POSITION", dp2}}});
  b.doc["meshes"][0]["weights"] = {0.25, 0.5};
  b.doc["meshes"][0]["extras"] = {{"targetNames", {"smile", "frown"}}};
  Scene s = read_builder(b);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.morph_targets.size(), 2u);
  EXPECT_EQ(m.morph_targets[0].name, "smile");
  EXPECT_EQ(m.morph_targets[0].positions, (std::vector<float>{0, 0, 1, 0, 0, 2, 0, 0, 3}));
  EXPECT_EQ(m.morph_targets[0].normals, (std::vector<float>{0, 1, 0, 0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(m.morph_targets[1].name, "frown");
  EXPECT_TRUE(m.morph_targets[1].normals.empty());
  EXPECT_EQ(m.morph_weights, (std::vector<float>{0.25f, 0.5f}));
}

// ---- Node transforms ------------------------------------------------------------------------

TEST(GltfRead, StaticMeshUnderTransformedParent) {
  Builder b;
  size_t pos = b.floats({1, 1, 1, 0, 0, 0, 1, 0, 0}, "VEC3");
  const float r = std::sqrt(0.5f);
  size_t nor = b.floats({r, r, 0, 0, 0, 1, 0, 0, 1}, "VEC3");
  size_t tan = b.floats({1, 0, 0, 1, 1, 0, 0, -1, 0, 1, 0, 1}, "VEC4");
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}, {"NORMAL", nor}, {"TANGENT", tan}}}}}), "m");
  // Parent: T(1 2 3) R(90 degrees about Z) S(2 3 4); child: T(0 0 1) holding the mesh.
  b.node({{"translation", {1, 2, 3}}, {"rotation", {0, 0, r, r}}, {"scale", {2, 3, 4}}, {"children", {1}}});
  b.node({{"translation", {0, 0, 1}}, {"mesh", 0}});
  b.scene({0});
  Scene s = read_builder(b);
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  // p' = T + Rz90(S (p + (0 0 1))); Rz90 (x y z) = (-y x z).
  // (1 1 1) -> (1 1 2) -> (2 3 8) -> (-3 2 8) -> (-2 4 11).
  expect_vec(m.find(Attribute::Position), 0, {-2, 4, 11}, 1e-6f);
  // (0 0 0) -> (0 0 1) -> (0 0 4) -> (0 0 4) -> (1 2 7).
  expect_vec(m.find(Attribute::Position), 1, {1, 2, 7}, 1e-6f);
  // (1 0 0) -> (1 0 1) -> (2 0 4) -> (0 2 4) -> (1 4 7).
  expect_vec(m.find(Attribute::Position), 2, {1, 4, 7}, 1e-6f);
  // Normals by the inverse transpose R S^-1: (1 1 0) -> (1/2 1/3 0) -> (-1/3 1/2 0), normalised.
  const float k = 1 / std::sqrt(13.0f);
  expect_vec(m.find(Attribute::Normal), 0, {-2 * k, 3 * k, 0}, 1e-6f);
  expect_vec(m.find(Attribute::Normal), 1, {0, 0, 1}, 1e-6f);
  // Tangents by R S, normalised, w kept: (1 0 0) -> (2 0 0) -> (0 2 0).
  expect_vec(m.find(Attribute::Tangent), 0, {0, 1, 0, 1}, 1e-6f);
  expect_vec(m.find(Attribute::Tangent), 1, {0, 1, 0, -1}, 1e-6f);
  // (0 1 0) -> (0 3 0) -> (-3 0 0).
  expect_vec(m.find(Attribute::Tangent), 2, {-1, 0, 0, 1}, 1e-6f);
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(GltfRead, NodeMatrixIsApplied) {
  Builder b = triangle();
  // Column-major: translation (10 20 30), uniform scale 2.
  b.doc["nodes"][0]["matrix"] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 10, 20, 30, 1};
  Scene s = read_builder(b);
  EXPECT_EQ(s.meshes[0].find(Attribute::Position)->data,
            (std::vector<float>{10, 20, 30, 14, 20, 30, 10, 26, 30}));
}

TEST(GltfRead, NegativeScaleFlipsWinding) {
  Builder b;
  size_t pos = b.floats({1, 2, 3, 4, 5, 6, 7, 8, 9}, "VEC3");
  size_t nor = b.floats({1, 0, 0, 0, 0, 1, 0, 0, 1}, "VEC3");
  size_t tan = b.floats({0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, -1}, "VEC4");
  size_t idx = b.ushorts({0, 1, 2});
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}, {"NORMAL", nor}, {"TANGENT", tan}}}, {"indices", idx}}}));
  b.node({{"scale", {-1, 1, 1}}, {"mesh", 0}});
  Scene s = read_builder(b);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(m.find(Attribute::Position)->data, (std::vector<float>{-1, 2, 3, -4, 5, 6, -7, 8, 9}));
  expect_vec(m.find(Attribute::Normal), 0, {-1, 0, 0}, 1e-6f);
  // A mirrored tangent frame needs the opposite handedness to keep its bitangent.
  expect_vec(m.find(Attribute::Tangent), 0, {0, 1, 0, -1}, 1e-6f);
  expect_vec(m.find(Attribute::Tangent), 1, {-1, 0, 0, -1}, 1e-6f);
  expect_vec(m.find(Attribute::Tangent), 2, {-1, 0, 0, 1}, 1e-6f);
}

TEST(GltfRead, MeshInstancedTwiceAndUnusedMesh) {
  Builder b = triangle();
  b.node({{"mesh", 0}, {"translation", {0, 0, 5}}});
  b.doc["scenes"][0]["nodes"] = {0, 1};
  size_t pos = b.floats(kTriPos, "VEC3");
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}}}), "lonely");
  Diagnostics d;
  Scene s = read_builder(b, &d);
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[0].name, "tri");
  EXPECT_EQ(s.meshes[1].name, "tri");
  EXPECT_EQ(s.meshes[0].find(Attribute::Position)->data, kTriPos);
  expect_vec(s.meshes[1].find(Attribute::Position), 1, {2, 0, 5});
  EXPECT_EQ(s.meshes[2].name, "lonely");
  EXPECT_TRUE(has_warning(d, "used by no node"));
}

TEST(GltfRead, NodeCyclesAndSecondParentsAreErrors) {
  Builder b = triangle();
  b.doc["nodes"] = json::array({{{"children", {1}}}, {{"children", {2}}}, {{"children", {0}}, {"mesh", 0}}});
  b.doc.erase("scenes");
  b.doc.erase("scene");
  std::string msg = error_text(b.gltf());
  EXPECT_CONTAINS(msg, "cycle");
  EXPECT_CONTAINS(msg, "nodes[");
  // A cycle below a proper root.
  b.doc["nodes"] = json::array({{{"children", {1}}}, {{"children", {2}}}, {{"children", {1}}}});
  EXPECT_CONTAINS(error_text(b.gltf()), "already has a parent");
  b.doc["nodes"] = json::array({{{"children", {1}}}, {{"children", {2}}}, {{"children", {3}}}, {{"children", {2}}}});
  EXPECT_CONTAINS(error_text(b.gltf()), "nodes[3].children[0]: node 2 already has a parent, nodes[1]");
  b.doc["nodes"] = json::array({{{"children", {0}}}});
  EXPECT_CONTAINS(error_text(b.gltf()), "nodes[0].children[0]: node 0 lists itself");
  // A long chain is walked without recursion.
  Builder c = triangle();
  json nodes = json::array();
  const int n = 100000;
  for (int i = 0; i < n; ++i) nodes.push_back(i + 1 < n ? json{{"children", {i + 1}}} : json{{"mesh", 0}});
  c.doc["nodes"] = nodes;
  Scene s = read_builder(c);
  EXPECT_EQ(s.meshes.size(), 1u);
}

TEST(GltfRead, OutOfRangeIndicesNameTheJsonPath) {
  struct Case {
    std::function<void(json&)> patch;
    std::string want;
  };
  std::vector<Case> cases = {
      {[](json& d) { d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 99; },
       "meshes[0].primitives[0].attributes.POSITION: accessors[99] does not exist (the file has 2)"},
      {[](json& d) { d["meshes"][0]["primitives"][0]["indices"] = 2; },
       "meshes[0].primitives[0].indices: accessors[2] does not exist"},
      {[](json& d) { d["accessors"][0]["bufferView"] = 7; }, "accessors[0].bufferView: bufferViews[7] does not exist"},
      {[](json& d) { d["bufferViews"][0]["buffer"] = 1; }, "bufferViews[0].buffer: buffers[1] does not exist"},
      {[](json& d) { d["nodes"][0]["mesh"] = 3; }, "nodes[0].mesh: meshes[3] does not exist"},
      {[](json& d) { d["nodes"][0]["skin"] = 0; }, "nodes[0].skin: skins[0] does not exist (the file has 0)"},
      {[](json& d) { d["nodes"][0]["children"] = {5}; }, "nodes[0].children[0]: nodes[5] does not exist"},
      {[](json& d) { d["meshes"][0]["primitives"][0]["material"] = 4; },
       "meshes[0].primitives[0].material: materials[4] does not exist"},
      {[](json& d) { d["scene"] = 2; }, "scene: scenes[2] does not exist"},
      {[](json& d) { d["scenes"][0]["nodes"] = {3}; }, "scenes[0].nodes[0]: nodes[3] does not exist"},
      {[](json& d) { d["materials"] = json::parse(R"([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}])"); },
       "materials[0].pbrMetallicRoughness.baseColorTexture.index: textures[1] does not exist"},
      {[](json& d) { d["textures"] = json::parse(R"([{"source": 2}])"); },
       "textures[0].source: images[2] does not exist"},
      {[](json& d) { d["textures"] = json::parse(R"([{"sampler": 0}])"); },
       "textures[0].sampler: samplers[0] does not exist"},
      {[](json& d) { d["images"] = json::parse(R"([{"bufferView": 9}])"); },
       "images[0].bufferView: bufferViews[9] does not exist"},
      {[](json& d) { d["skins"] = json::parse(R"([{"joints": [4]}])"); }, "skins[0].joints[0]: nodes[4] does not exist"},
      {[](json& d) { d["skins"] = json::parse(R"([{"joints": [0], "inverseBindMatrices": 8}])"); },
       "skins[0].inverseBindMatrices: accessors[8] does not exist"},
      {[](json& d) {
         d["animations"] = json::parse(R"([{"channels": [{"sampler": 1, "target": {"node": 0, "path": "rotation"}}],
                                            "samplers": [{"input": 0, "output": 1}]}])");
       },
       "animations[0].channels[0].sampler: samplers[1] does not exist (the animation has 1)"},
      {[](json& d) {
         d["animations"] = json::parse(R"([{"channels": [{"sampler": 0, "target": {"node": 6, "path": "rotation"}}],
                                            "samplers": [{"input": 0, "output": 1}]}])");
       },
       "animations[0].channels[0].target.node: nodes[6] does not exist"},
      {[](json& d) { d["bufferViews"][1]["byteLength"] = 1000; },
       "bufferViews[1]: byteOffset 8 + byteLength 1000 = 1008 is past the end of buffers[0] (44 bytes)"},
      {[](json& d) { d["accessors"][1]["byteOffset"] = 4; },
       "accessors[1].count: 3 elements do not fit bufferViews[1] (36 bytes)"},
      {[](json& d) { d["meshes"][0]["primitives"][0]["attributes"].erase("POSITION"); },
       "meshes[0].primitives[0].attributes: has no POSITION"},
      {[](json& d) { d["accessors"][1]["count"] = -1; }, "accessors[1].count: -1 is not a non-negative integer"},
      {[](json& d) { d["accessors"][1]["count"] = 0; }, "accessors[1].count: is 0"},
      {[](json& d) { d["accessors"][1].erase("componentType"); },
       "accessors[1]: the required property 'componentType' is missing"},
  };
  // The base: indices (accessor 0, view 0) then positions (accessor 1, view 1), 44 bytes.
  Builder b;
  size_t idx = b.ushorts({0, 1, 2});
  size_t pos = b.floats(kTriPos, "VEC3");
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}, {"indices", idx}}}));
  b.node({{"mesh", 0}});
  b.scene({0});
  ASSERT_NO_THROW(read_builder(b));
  for (const Case& c : cases) {
    json d = b.with_buffer();
    c.patch(d);
    EXPECT_CONTAINS(error_text(d.dump()), c.want);
  }
  // An index past the vertex count.
  Builder e = b;
  e.bin[2] = 3;
  EXPECT_CONTAINS(error_text(e.gltf()),
                  "meshes[0].primitives[0].indices: index 3 (element 1 of accessors[0]) is not below the vertex count "
                  "(3)");
}

TEST(GltfRead, HugeCountsFailBeforeAllocating) {
  Builder b = triangle();
  b.doc["accessors"][0]["count"] = 4294967295u;
  EXPECT_CONTAINS(error_text(b.gltf()),
                  "accessors[0].count: 4294967295 elements do not fit bufferViews[0] (36 bytes)");
  b.doc["accessors"][0]["count"] = 18446744073709551615u;
  EXPECT_CONTAINS(error_text(b.gltf()), "accessors[0].count: 18446744073709551615 elements do not fit");
  // Without a bufferView the elements are zeros: the count alone must be justified by the input.
  b = triangle();
  b.doc["accessors"][0].erase("bufferView");
  b.doc["accessors"][0]["count"] = 4000000000u;
  std::string msg = error_text(b.gltf());
  EXPECT_CONTAINS(msg, "accessors[0]");
  EXPECT_CONTAINS(msg, "bytes remain of the");
  // Many instances of a mesh cannot multiply memory past the budget either.
  Builder c;
  std::vector<float> big(300000 * 3, 1.0f);
  c.mesh(json::array({{{"attributes", {{"POSITION", c.floats(big, "VEC3")}}}}}));
  json nodes = json::array();
  for (int i = 0; i < 2000; ++i) nodes.push_back({{"mesh", 0}});
  c.doc["nodes"] = nodes;
  msg = error_text(c.gltf());
  EXPECT_CONTAINS(msg, "bytes remain of the");
}

// ---- Skins ----------------------------------------------------------------------------------

namespace {

// An armature node (non-joint, translated by (1 0 0)) with joints root (T 0 1 0) and tip
// (T 0 1 0); a skinned triangle. The skin lists tip before root.
Builder skinned(bool matching_ibms) {
  Builder b;
  size_t pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
  size_t nor = b.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  size_t joints = b.add(std::vector<uint8_t>{0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}, 5121, "VEC4");
  size_t weights = b.floats({0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0}, "VEC4");
  b.mesh(json::array(
             {{{"attributes", {{"POSITION", pos}, {"NORMAL", nor}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}}}}),
         "skinned");
  b.node({{"name", "Armature"}, {"translation", {1, 0, 0}}, {"children", {1}}});
  b.node({{"name", "root"}, {"translation", {0, 1, 0}}, {"children", {2}}});
  b.node({{"name", "tip"}, {"translation", {0, 1, 0}}});
  b.node({{"name", "body"}, {"mesh", 0}, {"skin", 0}, {"translation", {50, 50, 50}}});
  b.scene({0, 3});
  std::vector<float> ibm(32, 0.0f);
  for (int k = 0; k < 2; ++k)
    for (int d = 0; d < 4; ++d) ibm[k * 16 + d * 5] = 1;
  if (matching_ibms) {
    ibm[12] = -1, ibm[13] = -2;       // tip: world T(1 2 0)
    ibm[16 + 12] = -1, ibm[16 + 13] = -1;  // root: world T(1 1 0)
  }
  b.doc["skins"] = json::array({{{"joints", {2, 1}}, {"inverseBindMatrices", b.floats(ibm, "MAT4")}}});
  // Root rotates 90 degrees about Z over one second.
  const float r = std::sqrt(0.5f);
  size_t times = b.floats({0, 1}, "SCALAR");
  size_t rots = b.floats({0, 0, 0, 1, 0, 0, r, r}, "VEC4");
  b.doc["animations"] =
      json::array({{{"name", "bend"},
                    {"channels", {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "rotation"}}}}}},
                    {"samplers", {{{"input", times}, {"output", rots}, {"interpolation", "LINEAR"}}}}}});
  return b;
}

// World matrices of a Scene's joints for a list of parent-relative transforms.
std::vector<Mat3x4> joint_worlds(const Scene& s, const Transform* poses) {
  std::vector<Mat3x4> w(s.joints.size());
  for (size_t j = 0; j < s.joints.size(); ++j) {
    Mat3x4 l = mat_from_trs(poses[j].translation, poses[j].rotation, poses[j].scale);
    w[j] = s.joints[j].parent >= 0 ? mat_mul(w[size_t(s.joints[j].parent)], l) : l;
  }
  return w;
}

// Linear blend skinning of vertex v of mesh m as the Scene defines it (bind pose = rest pose).
Vec3 skin_scene(const Scene& s, const Mesh& m, size_t v, const Transform* poses) {
  std::vector<Transform> rest;
  for (const Joint& j : s.joints) rest.push_back(j.rest);
  auto world = joint_worlds(s, poses);
  auto rest_world = joint_worlds(s, rest.data());
  const VertexStream* p = m.find(Attribute::Position);
  Vec3 x{p->get(v, 0), p->get(v, 1), p->get(v, 2)};
  Vec3 out{0, 0, 0};
  for (auto [j, w] : testutil::influences(m, v)) {
    Vec3 y = mat_apply(mat_mul(world[size_t(j)], mat_inverse(rest_world[size_t(j)])), x);
    out = out + y * w;
  }
  return out;
}

}  // namespace

TEST(GltfRead, SkinWithMatchingBindMatrices) {
  Builder b = skinned(true);
  Diagnostics d;
  Scene s = read_builder(b, &d);
  EXPECT_FALSE(has_warning(d, "re-bound"));
  ASSERT_EQ(s.joints.size(), 2u);
  EXPECT_EQ(s.joints[0].name, "root");
  EXPECT_EQ(s.joints[0].parent, -1);
  // Its parent, the armature, is not a joint: the rest is the world transform.
  EXPECT_EQ(s.joints[0].rest.translation, (std::array<float, 3>{1, 1, 0}));
  EXPECT_EQ(s.joints[1].name, "tip");
  EXPECT_EQ(s.joints[1].parent, 0);
  EXPECT_EQ(s.joints[1].rest.translation, (std::array<float, 3>{0, 1, 0}));
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  // The skinned node's own transform is ignored; vertices are unchanged.
  EXPECT_EQ(m.find(Attribute::Position)->data, (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}));
  // Skin-local joints (0 = tip, 1 = root) become Scene joints (0 = root, 1 = tip).
  const VertexStream* bi = m.find(Attribute::BlendIndices);
  ASSERT_NE(bi, nullptr);
  EXPECT_EQ(bi->format, ComponentType::UByte);
  EXPECT_EQ(bi->components, 4u);
  EXPECT_EQ(bi->data[0], 1);
  EXPECT_EQ(bi->data[1], 0);
  EXPECT_EQ(bi->data[4], 0);
  EXPECT_EQ(bi->data[8], 1);
  EXPECT_EQ(bi->data[9], 0);
  const VertexStream* bw = m.find(Attribute::BlendWeights);
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->data, (std::vector<float>{0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0}));
  // The animation: 1 fps (keys 1 s apart), 2 frames; the root's pose includes the armature.
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "bend");
  EXPECT_EQ(a.framerate, 1.0f);
  EXPECT_FALSE(a.loop);
  ASSERT_EQ(a.channels, 2u);
  ASSERT_EQ(a.frame_count(), 2u);
  EXPECT_EQ(a.poses[0].translation, (std::array<float, 3>{1, 1, 0}));
  EXPECT_NEAR(a.poses[2].rotation[2], std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(a.poses[2].rotation[3], std::sqrt(0.5f), 1e-6f);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(a.poses[2].translation[c], (std::array<float, 3>{1, 1, 0})[c], 1e-6f);
  EXPECT_EQ(a.poses[3].translation, (std::array<float, 3>{0, 1, 0}));
}

TEST(GltfRead, SkinWithOtherBindPoseIsReBound) {
  // Identity inverse bind matrices: the mesh was bound with both joints at the origin.
  Builder b = skinned(false);
  Diagnostics d;
  Scene s = read_builder(b, &d);
  EXPECT_TRUE(has_warning(d, "note: skins[0]"));
  const Mesh& m = s.meshes[0];
  const std::vector<float> orig = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  // glTF skinning: p = sum w_k J_k IBM_k p0, with IBM = I and J the joints' world matrices.
  auto gltf_skin = [&](size_t v, const Mat3x4& root, const Mat3x4& tip) {
    // Skin-local 0 = tip, 1 = root; weights as in skinned().
    const float w[3][2] = {{0.5f, 0.5f}, {0, 1}, {0.25f, 0.75f}};
    Vec3 p{orig[v * 3], orig[v * 3 + 1], orig[v * 3 + 2]};
    return mat_apply(tip, p) * w[v][0] + mat_apply(root, p) * w[v][1];
  };
  const Mat3x4 arm = mat_from_trs({1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1});
  const Mat3x4 up = mat_from_trs({0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1});
  const float r = std::sqrt(0.5f);
  // At rest: the Scene holds the rest-pose positions.
  for (size_t v = 0; v < 3; ++v) {
    Vec3 want = gltf_skin(v, mat_mul(arm, up), mat_mul(mat_mul(arm, up), up));
    expect_vec(m.find(Attribute::Position), v, {want[0], want[1], want[2]}, 1e-6f);
  }
  // Frame 1 (root turned 90 degrees): a vertex bound to one joint skins exactly as in the glTF.
  // (Re-binding cannot be exact under animation for vertices blended between joints whose bind
  // and rest poses differ: linear blend skinning does not commute with the re-binding.)
  const Mat3x4 root1 = mat_mul(arm, mat_from_trs({0, 1, 0}, {0, 0, r, r}, {1, 1, 1}));
  const Mat3x4 tip1 = mat_mul(root1, up);
  const Animation& a = s.animations[0];
  for (size_t f = 0; f < 2; ++f) {
    Vec3 want = f == 0 ? gltf_skin(1, mat_mul(arm, up), mat_mul(mat_mul(arm, up), up)) : gltf_skin(1, root1, tip1);
    Vec3 got = skin_scene(s, m, 1, &a.poses[f * a.channels]);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[c], want[c], 1e-5f) << "frame " << f;
  }
  // At the rest pose every vertex skins to where the glTF's bind pose puts it.
  for (size_t v = 0; v < 3; ++v) {
    Vec3 want = gltf_skin(v, mat_mul(arm, up), mat_mul(mat_mul(arm, up), up));
    Vec3 got = skin_scene(s, m, v, &a.poses[0]);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[c], want[c], 1e-5f) << "vertex " << v;
  }
  // Normals follow the linear part (here translations only: unchanged).
  expect_vec(m.find(Attribute::Normal), 0, {0, 0, 1}, 1e-6f);
}

TEST(GltfRead, SkinJointErrorsAndMissingBindMatrices) {
  Builder b = skinned(true);
  b.doc["skins"][0].erase("inverseBindMatrices");
  Diagnostics d;
  Scene s = read_builder(b, &d);
  EXPECT_TRUE(has_warning(d, "re-bound"));  // identity IBMs but joints away from the origin
  // A weighted vertex naming a joint the skin does not have.
  b = skinned(true);
  size_t acc = b.doc["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"].get<size_t>();
  size_t view = b.doc["accessors"][acc]["bufferView"].get<size_t>();
  b.bin[b.doc["bufferViews"][view]["byteOffset"].get<size_t>()] = 5;
  EXPECT_CONTAINS(error_text(b.gltf()), "meshes[0].primitives[0].attributes.JOINTS_0: vertex 0 names joint 5");
  // Too few matrices.
  b = skinned(true);
  b.doc["skins"][0]["joints"] = {2, 1, 0};
  EXPECT_CONTAINS(error_text(b.gltf()), "skins[0].inverseBindMatrices: accessors[");
}

TEST(GltfRead, JointAndWeightSetsMerge) {
  Builder b = skinned(true);
  auto& attrs = b.doc["meshes"][0]["primitives"][0]["attributes"];
  attrs["JOINTS_1"] = b.add(std::vector<uint16_t>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 5123, "VEC4");
  attrs["WEIGHTS_1"] = b.add(std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 5121, "VEC4", true);
  Scene s = read_builder(b);
  const VertexStream* bi = s.meshes[0].find(Attribute::BlendIndices);
  const VertexStream* bw = s.meshes[0].find(Attribute::BlendWeights);
  ASSERT_NE(bi, nullptr);
  EXPECT_EQ(bi->components, 8u);
  EXPECT_EQ(bi->source_size, 8u);
  EXPECT_EQ(bi->format, ComponentType::UShort);
  EXPECT_EQ(bw->components, 8u);
  EXPECT_EQ(bi->get(0, 4), 0);  // skin-local 1 = root = Scene joint 0
  EXPECT_EQ(bw->get(0, 0), 0.5f);
  EXPECT_EQ(bw->get(0, 4), 0.0f);
}

TEST(GltfRead, JointMatrixDecomposedAndIntermediateNodesBridged) {
  Builder b = skinned(true);
  const float r = std::sqrt(0.5f);
  // tip: T(1 2 3) Rz90 S(2 2 2) as a matrix, columns: (0 2 0) (-2 0 0) (0 0 2) (1 2 3).
  b.doc["nodes"][2].erase("translation");
  b.doc["nodes"][2]["matrix"] = {0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1};
  Diagnostics d;
  Scene s = read_builder(b, &d);
  const Transform& t = s.joints[1].rest;
  EXPECT_EQ(t.translation, (std::array<float, 3>{1, 2, 3}));
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(t.scale[c], 2, 1e-6f);
  EXPECT_NEAR(std::fabs(t.rotation[2]), r, 1e-6f);
  EXPECT_NEAR(std::fabs(t.rotation[3]), r, 1e-6f);
  EXPECT_GT(t.rotation[2] * t.rotation[3], 0);
  EXPECT_FALSE(has_warning(d, "shear"));
  // Shear: a warning, best effort.
  b.doc["nodes"][2]["matrix"] = {1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  Diagnostics d2;
  read_builder(b, &d2);
  EXPECT_TRUE(has_warning(d2, "shear"));
  // A non-joint node between root and tip becomes a joint.
  Builder c = skinned(true);
  c.doc["nodes"][1]["children"] = {4};
  c.node({{"name", "between"}, {"translation", {0, 0, 1}}, {"children", {2}}});
  Diagnostics d3;
  Scene s3 = read_builder(c, &d3);
  ASSERT_EQ(s3.joints.size(), 3u);
  EXPECT_EQ(s3.joints[0].name, "root");
  EXPECT_EQ(s3.joints[1].name, "between");
  EXPECT_EQ(s3.joints[1].parent, 0);
  EXPECT_EQ(s3.joints[2].name, "tip");
  EXPECT_EQ(s3.joints[2].parent, 1);
  EXPECT_TRUE(has_warning(d3, "lie between joints"));
}

// ---- Animations -----------------------------------------------------------------------------

namespace {

// One joint (node 0, in a skin) animated by `channels`; samplers read times and values.
struct AnimCase {
  Builder b;
  AnimCase() {
    size_t pos = b.floats(kTriPos, "VEC3");
    size_t j = b.add(std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 5121, "VEC4");
    size_t w = b.floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
    b.mesh(json::array({{{"attributes", {{"POSITION", pos}, {"JOINTS_0", j}, {"WEIGHTS_0", w}}}}}));
    b.node({{"name", "bone"}, {"translation", {7, 8, 9}}});
    b.node({{"mesh", 0}, {"skin", 0}});
    b.node({{"name", "not a joint"}});
    b.doc["skins"] = json::array({{{"joints", {0}}}});
    b.doc["animations"] = json::array({{{"channels", json::array()}, {"samplers", json::array()}}});
  }
  void channel(const std::string& path, const std::vector<float>& times, const std::vector<float>& values,
               const std::string& interp, int node = 0) {
    json& a = b.doc["animations"][0];
    size_t s = a["samplers"].size();
    size_t in = b.floats(times, "SCALAR");
    size_t out = b.floats(values, path == "rotation" ? "VEC4" : path == "weights" ? "SCALAR" : "VEC3");
    a["samplers"].push_back({{"input", in}, {"output", out}, {"interpolation", interp}});
    a["channels"].push_back({{"sampler", s}, {"target", {{"node", node}, {"path", path}}}});
  }
  Scene read(Diagnostics* d = nullptr) const { return read_builder(b, d); }
};

}  // namespace

TEST(GltfRead, AnimationLinearStepAndDefaults) {
  AnimCase c;
  // Scale keys every 0.25 s set a 4 fps grid; translation keys at 0 and 1 interpolate.
  c.channel("scale", {0, 0.25f, 0.5f, 0.75f, 1}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5}, "STEP");
  c.channel("translation", {0, 1}, {0, 0, 0, 4, 8, 12}, "LINEAR");
  Scene s = c.read();
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "animation0");
  EXPECT_EQ(a.framerate, 4.0f);
  ASSERT_EQ(a.frame_count(), 5u);
  for (size_t f = 0; f < 5; ++f) {
    const Transform& p = a.poses[f];
    float u = float(f) / 4;
    EXPECT_EQ(p.translation, (std::array<float, 3>{4 * u, 8 * u, 12 * u})) << f;
    EXPECT_EQ(p.scale, (std::array<float, 3>{float(f + 1), float(f + 1), float(f + 1)})) << f;
    EXPECT_EQ(p.rotation, (std::array<float, 4>{0, 0, 0, 1})) << f;  // no channel: the rest value
  }
  // STEP holds the previous key between keys.
  AnimCase d;
  d.channel("scale", {0, 0.25f, 0.5f, 0.75f, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, "LINEAR");
  d.channel("translation", {0, 0.5f, 1}, {0, 0, 0, 4, 8, 12, -1, -1, -1}, "STEP");
  const Scene sd = d.read();
  const Animation& b = sd.animations[0];
  ASSERT_EQ(b.frame_count(), 5u);
  const float want[5][3] = {{0, 0, 0}, {0, 0, 0}, {4, 8, 12}, {4, 8, 12}, {-1, -1, -1}};
  for (size_t f = 0; f < 5; ++f)
    EXPECT_EQ(b.poses[f].translation, (std::array<float, 3>{want[f][0], want[f][1], want[f][2]})) << f;
}

TEST(GltfRead, AnimationRotationSlerpTakesTheShortPath) {
  AnimCase c;
  const float r = std::sqrt(0.5f);
  // Identity to 90 degrees about Y, the second key given with the opposite sign.
  c.channel("rotation", {0, 0.5f, 1}, {0, 0, 0, 1, 0, 0, 0, 1, 0, -r, 0, -r}, "LINEAR");
  c.channel("scale", {0, 0.25f}, {1, 1, 1, 1, 1, 1}, "LINEAR");
  Scene s = c.read();
  const Animation& a = s.animations[0];
  ASSERT_EQ(a.frame_count(), 5u);
  // Frame 3 (0.75 s): half way, 45 degrees about Y (sign free).
  const Quat q = a.poses[3].rotation;
  const float sgn = q[3] < 0 ? -1.0f : 1.0f;
  EXPECT_NEAR(q[0] * sgn, 0, 1e-6f);
  EXPECT_NEAR(q[1] * sgn, std::sin(float(M_PI) / 8), 1e-6f);
  EXPECT_NEAR(q[2] * sgn, 0, 1e-6f);
  EXPECT_NEAR(q[3] * sgn, std::cos(float(M_PI) / 8), 1e-6f);
  EXPECT_EQ(a.poses[4].rotation, (std::array<float, 4>{0, -r, 0, -r}));  // the key itself
}

TEST(GltfRead, AnimationCubicSpline) {
  AnimCase c;
  // Keys at 0 and 2 s (dt = 2): value 0 -> 1 in x, out-tangent 2 at key 0, in-tangent -1 at
  // key 1. Per key: in-tangent, value, out-tangent. A 0.5 s grid from a second channel.
  c.channel("translation", {0, 2},
            {9, 9, 9, 0, 0, 0, 2, 0, 0,  // key 0 (in-tangent ignored)
             -1, 0, 0, 1, 0, 0, 9, 9, 9},  // key 1 (out-tangent ignored)
            "CUBICSPLINE");
  c.channel("scale", {0, 0.5f}, {1, 1, 1, 1, 1, 1}, "LINEAR");
  const Scene s = c.read();
  const Animation& a = s.animations[0];
  // The keys' 2 fps grid times m, the multiple that keeps the curve within the default bound
  // (docs/animations.md "Curves within a bound"): every 0.5 s is frame f * m.
  const size_t m = (a.frame_count() - 1) / 4;
  ASSERT_EQ(a.frame_count(), 4 * m + 1);
  EXPECT_GT(m, 1u);
  EXPECT_EQ(a.framerate, float(2.0 * double(m)));
  // p(u) = h00 p0 + h10 dt m0 + h01 p1 + h11 dt m1, dt = 2, m0 = 2, m1 = -1:
  // u = 0.25: h10 = 0.140625, h01 = 0.15625, h11 = -0.046875 -> 0.5625 + 0.15625 + 0.09375 = 0.8125
  // u = 0.5:  h10 = 0.125,    h01 = 0.5,     h11 = -0.125    -> 0.5 + 0.5 + 0.25 = 1.25
  // u = 0.75: h10 = 0.046875, h01 = 0.84375, h11 = -0.140625 -> 0.1875 + 0.84375 + 0.28125 = 1.3125
  const float want[5] = {0, 0.8125f, 1.25f, 1.3125f, 1};
  for (size_t f = 0; f < 5; ++f) {
    EXPECT_NEAR(a.poses[f * m].translation[0], want[f], 1e-6f) << f;
    EXPECT_EQ(a.poses[f * m].translation[1], 0.0f);
  }
}

TEST(GltfRead, AnimationFramerateDetection) {
  struct Case {
    std::vector<float> times;
    float fps;
    size_t frames;
  };
  std::vector<Case> cases = {
      {{0, 1 / 24.0f, 2 / 24.0f, 10 / 24.0f}, 24, 11},
      {{0, 0.5f, 1.5f}, 2, 4},
      {{0.1f, 0.25f, 0.32f}, 30, 11},  // not on one grid: 30 fps, round(0.32 * 30) + 1 frames
      {{0, 0.001f, 0.002f}, 30, 1},   // 1000 fps is out of range
      {{0, 2.5f}, 30, 76},            // 0.4 fps is out of range
      {{0.75f}, 30, 24},              // a single key
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(fmt::format("{} keys up to {}", k.times.size(), k.times.back()));
    AnimCase c;
    std::vector<float> v;
    for (size_t i = 0; i < k.times.size(); ++i) v.insert(v.end(), {float(i), 0, 0});
    c.channel("translation", k.times, v, "LINEAR");
    const Scene s = c.read();
    const Animation& a = s.animations[0];
    EXPECT_EQ(a.framerate, k.fps);
    EXPECT_EQ(a.frame_count(), k.frames);
  }
}

TEST(GltfRead, AnimationIgnoresNonJointChannelsWithOneWarning) {
  // Node 2 holds a camera: an animated node becomes a joint (node animation), but not one that
  // holds only a camera or a light.
  AnimCase c;
  c.b.doc["nodes"][2]["camera"] = 0;
  c.channel("translation", {0, 1}, {0, 0, 0, 1, 1, 1}, "LINEAR");
  c.channel("translation", {0, 1}, {0, 0, 0, 1, 1, 1}, "LINEAR", 2);
  c.channel("rotation", {0, 1}, {0, 0, 0, 1, 0, 0, 0, 1}, "LINEAR", 2);
  c.channel("weights", {0, 1}, {0, 1}, "LINEAR", 1);
  Diagnostics d;
  Scene s = c.read(&d);
  ASSERT_EQ(s.animations.size(), 1u);
  size_t n = 0;
  for (const auto& x : d.items) n += x.message.find("are ignored") != std::string::npos;
  EXPECT_EQ(n, 1u);
  EXPECT_TRUE(has_warning(d, "3 channels"));
  EXPECT_TRUE(has_warning(d, "1 animated nodes hold only a camera or a light"));
  EXPECT_EQ(s.joints.size(), 1u);
  // An animation of non-joints only is not read.
  AnimCase e;
  e.b.doc["nodes"][2]["camera"] = 0;
  e.channel("translation", {0, 1}, {0, 0, 0, 1, 1, 1}, "LINEAR", 2);
  Diagnostics d2;
  EXPECT_TRUE(e.read(&d2).animations.empty());
  EXPECT_TRUE(has_warning(d2, "animates no joint"));
}

TEST(GltfRead, AnimationSamplerErrors) {
  AnimCase c;
  c.channel("translation", {0, 1, 0.5f}, {0, 0, 0, 1, 1, 1, 2, 2, 2}, "LINEAR");
  EXPECT_CONTAINS(error_text(c.b.gltf()), "animations[0].samplers[0].input: key times of accessors[");
  AnimCase d;
  d.channel("translation", {0, 1}, {0, 0, 0, 1, 1, 1}, "CUBICSPLINE");
  EXPECT_CONTAINS(error_text(d.b.gltf()), "animations[0].samplers[0].output");
  AnimCase e;
  e.channel("translation", {0, 1}, {0, 0, 0, 1, 1, 1}, "BEZIER");
  EXPECT_CONTAINS(error_text(e.b.gltf()), "animations[0].samplers[0].interpolation: 'BEZIER'");
  AnimCase f;
  f.channel("translation", {0, 1e30f}, {0, 0, 0, 1, 1, 1}, "LINEAR");
  EXPECT_CONTAINS(error_text(f.b.gltf()), "animations[0]");
}

// ---- Round trips through the writer ---------------------------------------------------------

namespace {

// Rotations compare as rotations: normalised (IQM's dequantised quaternions are not exactly
// unit; glTF's are) and up to sign (q and -q are the same rotation).
bool rotation_near(Quat a, Quat b, float tol) {
  a = quat_normalize(a), b = quat_normalize(b);
  float d0 = 0, d1 = 0;
  for (int c = 0; c < 4; ++c) d0 = std::max(d0, std::fabs(a[c] - b[c])), d1 = std::max(d1, std::fabs(a[c] + b[c]));
  return std::min(d0, d1) <= tol;
}

void expect_transform_near(const Transform& a, const Transform& b, float tol, const std::string& what) {
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(a.translation[c], b.translation[c], tol) << what;
    EXPECT_NEAR(a.scale[c], b.scale[c], tol) << what;
  }
  EXPECT_TRUE(rotation_near(a.rotation, b.rotation, tol))
      << what << ": (" << a.rotation[0] << " " << a.rotation[1] << " " << a.rotation[2] << " " << a.rotation[3]
      << ") vs (" << b.rotation[0] << " " << b.rotation[1] << " " << b.rotation[2] << " " << b.rotation[3] << ")";
}

void expect_floats_near(const std::vector<float>& a, const std::vector<float>& b, float tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= tol) && bad++ < 5) ADD_FAILURE() << what << "[" << i << "]: " << a[i] << " vs " << b[i];
}

// Everything the Scene holds, in order, values within `tol` (weights within `weight_tol`,
// rotations up to sign).
void expect_same_scene(const Scene& a, const Scene& b, float tol, float weight_tol) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t i = 0; i < a.meshes.size(); ++i) {
    const Mesh& x = a.meshes[i];
    const Mesh& y = b.meshes[i];
    const std::string what = fmt::format("mesh {} ('{}')", i, x.name);
    EXPECT_EQ(x.name, y.name) << what;
    EXPECT_EQ(x.material, y.material) << what;
    EXPECT_EQ(x.triangles, y.triangles) << what;
    EXPECT_EQ(x.polygon_sizes, y.polygon_sizes) << what;
    EXPECT_EQ(x.smoothing, y.smoothing) << what;
    EXPECT_EQ(x.morph_weights, y.morph_weights) << what;
    ASSERT_EQ(x.morph_targets.size(), y.morph_targets.size()) << what;
    for (size_t t = 0; t < x.morph_targets.size(); ++t) {
      EXPECT_EQ(x.morph_targets[t].name, y.morph_targets[t].name);
      expect_floats_near(x.morph_targets[t].positions, y.morph_targets[t].positions, tol, what + " morph");
      expect_floats_near(x.morph_targets[t].normals, y.morph_targets[t].normals, tol, what + " morph normals");
    }
    ASSERT_EQ(x.streams.size(), y.streams.size()) << what;
    for (size_t k = 0; k < x.streams.size(); ++k) {
      const VertexStream& p = x.streams[k];
      const VertexStream& q = y.streams[k];
      const std::string sw = fmt::format("{} stream {}", what, k);
      EXPECT_EQ(p.attribute, q.attribute) << sw;
      EXPECT_EQ(p.name, q.name) << sw;
      EXPECT_EQ(p.custom_slot, q.custom_slot) << sw;
      EXPECT_EQ(p.format, q.format) << sw;
      EXPECT_EQ(p.source_size, q.source_size) << sw;
      EXPECT_EQ(p.components, q.components) << sw;
      if (p.attribute != Attribute::BlendIndices && p.attribute != Attribute::BlendWeights)
        expect_floats_near(p.data, q.data, tol, sw);
    }
    for (size_t v = 0; v < x.vertex_count(); ++v) {
      auto ia = testutil::influences(x, v), ib = testutil::influences(y, v);
      bool same = ia.size() == ib.size();
      for (size_t k = 0; same && k < ia.size(); ++k)
        same = ia[k].first == ib[k].first && std::fabs(ia[k].second - ib[k].second) <= weight_tol;
      if (!same) {
        ADD_FAILURE() << what << ": influences differ at vertex " << v;
        break;
      }
    }
  }
  EXPECT_EQ(a.materials, b.materials);
  ASSERT_EQ(a.joints.size(), b.joints.size());
  for (size_t j = 0; j < a.joints.size(); ++j) {
    EXPECT_EQ(a.joints[j].name, b.joints[j].name);
    EXPECT_EQ(a.joints[j].parent, b.joints[j].parent);
    expect_transform_near(a.joints[j].rest, b.joints[j].rest, tol, fmt::format("joint {}", j));
  }
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t k = 0; k < a.animations.size(); ++k) {
    const Animation& x = a.animations[k];
    const Animation& y = b.animations[k];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.framerate, y.framerate);
    EXPECT_EQ(x.loop, y.loop);
    EXPECT_EQ(x.channels, y.channels);
    ASSERT_EQ(x.poses.size(), y.poses.size());
    size_t bad = 0;
    for (size_t p = 0; p < x.poses.size() && bad < 3; ++p) {
      int before = ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
      expect_transform_near(x.poses[p], y.poses[p], tol,
                            fmt::format("animation {} frame {} joint {}", k, p / std::max(1u, x.channels),
                                        p % std::max(1u, x.channels)));
      bad += ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count() != before;
    }
  }
  EXPECT_EQ(a.comment, b.comment);
  EXPECT_EQ(a.iqm, b.iqm);
}

Scene round_trip(const Scene& s, Format f, Diagnostics* d = nullptr) {
  std::vector<uint8_t> bytes = write_memory(s, f);
  return read_memory(bytes, f, f == Format::Glb ? "rt.glb" : "rt.gltf", d);
}

// A Scene using everything glTF needs the meshport extras for.
Scene rich_scene() {
  using testutil::float_stream;
  const float r = std::sqrt(0.5f);
  Scene s;
  s.comment = "made by hand\nsecond line";
  s.iqm.emplace().extensions = {{"ext.one", {1, 2, 3, 250}}, {"ext.two", {}}};
  s.materials = {testutil::material("skin", "textures/skin.png"), testutil::material("", "")};
  s.joints = {{"root", -1, {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}},
              {"arm", 0, {{0, 1, 0}, {0, 0, r, r}, {1, 2, 1}}},
              {"hand", 1, {{0.5f, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}}};
  Mesh a;
  a.name = "body";
  a.material = 0;
  a.streams.push_back(float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  VertexStream uv = float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 1, 1, 0, 1});
  uv.format = ComponentType::UShort;
  a.streams.push_back(uv);
  a.streams.push_back(float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0}));
  a.streams.push_back(float_stream(Attribute::Tangent, 4, {1, 0, 0, 1, 1, 0, 0, -1, 0, 1, 0, 1, 1, 0, 0, 1}));
  VertexStream bi = float_stream(Attribute::BlendIndices, 4, {0, 1, 0, 0, 1, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0});
  bi.format = ComponentType::UByte;
  a.streams.push_back(bi);
  VertexStream bw =
      float_stream(Attribute::BlendWeights, 4, {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.75f, 0.25f, 0, 0, 0, 0, 0, 0});
  bw.format = ComponentType::UByte;
  a.streams.push_back(bw);
  VertexStream col = float_stream(Attribute::Color, 4, {1, 0, 0, 1, 0, 1, 0, 0.5f, 0, 0, 1, 1, 1, 1, 1, 0});
  col.format = ComponentType::UByte;
  a.streams.push_back(col);
  VertexStream custom = float_stream(Attribute::Custom, 2, {1, 2, 3, 4, 5, 6, 7, 8});
  custom.name = "myattr";
  custom.custom_slot = 3;
  a.streams.push_back(custom);
  a.triangles = {0, 1, 2, 0, 2, 3};
  a.polygon_sizes = {4};
  a.smoothing.face_group = {5};
  a.smoothing.face_angle = {45.5f};
  a.smoothing.face_uv = {1};
  a.smoothing.corner_edge = {1, 0, 1, 1};
  a.smoothing.vertex_key = {0, 1, 2, 0};
  a.morph_targets = {{"smile", {0, 0, 1, 0, 0, 0, 0, 0, 0.5f, 0, 0, 0}, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {}}};
  a.morph_weights = {0.25f};
  s.meshes.push_back(a);
  Mesh b;
  b.name = "prop";
  b.streams.push_back(float_stream(Attribute::Position, 3, {5, 5, 5, 6, 5, 5, 5, 6, 5}));
  b.triangles = {0, 1, 2};
  s.meshes.push_back(b);
  Animation an;
  an.name = "wave";
  an.framerate = 24;
  an.loop = true;
  an.channels = 3;
  for (int f = 0; f < 3; ++f) {
    const float h = 0.2f * float(f);
    an.poses.push_back({{0, 1 + h, 0}, {0, 0, 0, 1}, {1, 1, 1}});
    an.poses.push_back({{0, 1, 0}, quat_normalize({0, 0, r + h, r}), {1, 2, 1}});
    an.poses.push_back({{0.5f, 0, 0}, {0, 0, 0, 1}, {1 + h, 1, 1}});
  }
  s.animations.push_back(an);
  Animation still;  // no framerate: keyframes at 30 fps, framerate 0 restored
  still.name = "";
  still.channels = 3;
  for (const Joint& j : s.joints) still.poses.push_back(j.rest);
  s.animations.push_back(still);
  return s;
}

}  // namespace

TEST(GltfRead, RoundTripThroughGlbAndGltfRestoresTheScene) {
  const Scene s = rich_scene();
  for (Format f : {Format::Glb, Format::Gltf}) {
    SCOPED_TRACE(f == Format::Glb ? "glb" : "gltf");
    Diagnostics d;
    Scene back = round_trip(s, f, &d);
    for (const auto& x : d.items) ADD_FAILURE() << "reader warning: " << x.to_string();
    expect_same_scene(s, back, 1e-6f, 1e-6f);
    // The unweighted vertex (bound to meshport_static in the file) is unweighted again.
    EXPECT_TRUE(testutil::influences(back.meshes[0], 3).empty());
  }
}

TEST(GltfRead, RoundTripOfAnAnimationOnlyScene) {
  Scene s;
  s.iqm.emplace().pose_parents = {-1, 0};
  Animation a;
  a.name = "walk";
  a.framerate = 10;
  a.channels = 2;
  a.poses = {{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}, {{1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}},
             {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}, {{2, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
  s.animations.push_back(a);
  Scene back = round_trip(s, Format::Glb);
  EXPECT_TRUE(back.joints.empty());
  EXPECT_EQ(back.iqm->pose_parents, s.iqm->pose_parents);
  expect_same_scene(s, back, 0, 0);
}

TEST(GltfRead, MrfixitThroughGlbKeepsEverything) {
  REQUIRE_CORPUS();
  const Scene s = read(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  Diagnostics d;
  Scene back = round_trip(s, Format::Glb, &d);
  ASSERT_EQ(back.meshes.size(), 2u);
  EXPECT_EQ(back.meshes[0].vertex_count(), 1476u);
  EXPECT_EQ(back.meshes[1].vertex_count(), 385u);
  EXPECT_EQ(back.joints.size(), 75u);
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].frame_count(), 101u);
  for (const auto& x : d.items) ADD_FAILURE() << "reader warning: " << x.to_string();
  expect_same_scene(s, back, 1e-5f, 1e-5f);
  // And as .gltf with the buffer in a data URI.
  expect_same_scene(s, round_trip(s, Format::Gltf), 1e-5f, 1e-5f);
}

TEST(GltfRead, GltfThroughIqmAndBackKeepsValuesWithinQuantisation) {
  auto through_iqm = [](const Scene& a) {
    Scene iqm = read_memory(write_memory(a, Format::Iqm), Format::Iqm, "rt.iqm");
    return read_memory(write_memory(iqm, Format::Glb), Format::Glb, "rt.glb");
  };
  // A glTF written by another tool (no meshport extras): weights go through IQM's ubyte.
  {
    Scene a = read_builder(skinned(true));
    Scene c = through_iqm(a);
    testutil::expect_scenes_close(a, c, 1e-6f, 1.0f / 255);
  }
}

// mrfixit as glTF, through IQM and back.
TEST(GltfRead, MrfixitGltfThroughIqmAndBackKeepsValuesWithinQuantisation) {
  REQUIRE_CORPUS();
  Scene a = read_memory(write_memory(read(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm")), Format::Glb),
                        Format::Glb, "mrfixit.glb");
  Scene c = read_memory(write_memory(read_memory(write_memory(a, Format::Iqm), Format::Iqm, "rt.iqm"), Format::Glb),
                        Format::Glb, "rt.glb");
  ASSERT_EQ(c.meshes.size(), a.meshes.size());
  testutil::expect_scenes_close(a, c, 1e-5f, 1e-5f);
}

TEST(GltfRead, MalformedOrMismatchedMeshportExtrasAreIgnored) {
  const Scene s = rich_scene();
  std::vector<uint8_t> bytes = write_memory(s, Format::Gltf);
  const json original = json::parse(bytes.begin(), bytes.end());
  // A stream declaration the reader cannot use: the primitive keeps what glTF itself says.
  json d = original;
  d["meshes"][0]["primitives"][0]["extras"]["meshport"]["streams"][0]["attribute"] = "bogus";
  Diagnostics w1;
  Scene a = read_text(d.dump(), &w1);
  EXPECT_TRUE(has_warning(w1, "meshes[0].primitives[0].extras.meshport.streams[0].attribute: 'bogus'"));
  EXPECT_TRUE(a.meshes[0].polygon_sizes.empty());  // all of the primitive's extras are ignored together
  EXPECT_NE(a.meshes[0].find(Attribute::Position), nullptr);
  // Relabelling the joints as a custom array would leave weights without indices: refused.
  d = original;
  for (auto& e : d["meshes"][0]["primitives"][0]["extras"]["meshport"]["streams"])
    if (e["attribute"] == "blendindexes") e["attribute"] = "custom";
  Diagnostics w2;
  Scene b = read_text(d.dump(), &w2);
  EXPECT_TRUE(has_warning(w2, "do not match"));
  EXPECT_NE(b.meshes[0].find(Attribute::BlendIndices), nullptr);
  // Polygons that do not cover the triangles.
  d = original;
  d["meshes"][0]["primitives"][0]["extras"]["meshport"]["polygon_sizes"] = {5};
  Diagnostics w3;
  read_text(d.dump(), &w3);
  EXPECT_TRUE(has_warning(w3, "polygon_sizes: the polygons hold 3 triangles, but the primitive has 2"));
  // Extras naming joints the skins do not use: the skeleton is read as any glTF's (meshport_static,
  // known by its node extras, is not a joint); the rest of the extras still count.
  d = original;
  d["scenes"][0]["extras"]["meshport"]["joint_nodes"] = 1;
  Diagnostics w4;
  Scene c = read_text(d.dump(), &w4);
  EXPECT_TRUE(has_warning(w4, "extras.meshport: the skins use nodes"));
  EXPECT_EQ(c.joints.size(), 3u);
  // An unknown version of the extras.
  d = original;
  d["scenes"][0]["extras"]["meshport"]["version"] = 7;
  Diagnostics w5;
  read_text(d.dump(), &w5);
  EXPECT_TRUE(has_warning(w5, "not a known version"));
  // A broken comment_base64 keeps the rest of the file.
  d = original;
  d["scenes"][0]["extras"]["meshport"]["comment_base64"] = "***";
  Diagnostics w6;
  Scene e = read_text(d.dump(), &w6);
  EXPECT_TRUE(has_warning(w6, "comment_base64"));
  EXPECT_EQ(e.joints.size(), 3u);
}

}  // namespace meshport_test_gltf_read
