// The glTF reader's memory budget (issue 33; docs/limits.md, "Memory budget"): files that reuse
// their data many times read (MetalRoughSpheresNoTextures: 98 meshes over the same accessors),
// ReadOptions::max_memory (--max-memory) sets the limit and the messages name it; counts in
// compressed streams (a Draco header, a meshopt view) are checked against what their bytes can
// decode to before anything is allocated from them.
#include "gltf_builder.h"
#include "test_util.h"

#include <meshport/meshport.h>

#include <draco/compression/decode.h>
#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <meshoptimizer.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_gltf_memory {

using namespace meshport;
using json = nlohmann::json;
using testutil::bytes_of;
using testutil::GltfBuilder;

namespace {

std::string error_of(const std::vector<uint8_t>& b, const ReadOptions& o = {}) {
  try {
    read_memory(b, Format::Glb, "t.glb", o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// ---- Reuse: MetalRoughSpheresNoTextures ---------------------------------------------------------

constexpr size_t kSpheres = 98, kVertices = 5374, kIndices = 31800;

// As MetalRoughSpheresNoTextures: 98 meshes, each one primitive drawing the SAME whole POSITION
// and NORMAL accessors (5,374 vertices) through the SAME 31,800-index accessor, each with its
// own material, placed by its node.
std::vector<uint8_t> spheres() {
  GltfBuilder b;
  std::vector<float> pos, nrm;
  for (size_t v = 0; v < kVertices; ++v) {
    pos.insert(pos.end(), {float(v % 73), float(v / 73), float(v % 5)});
    nrm.insert(nrm.end(), {0.0f, 0.0f, 1.0f});
  }
  std::vector<uint16_t> idx;
  for (size_t k = 0; k < kIndices; ++k) idx.push_back(uint16_t(k < kVertices ? k : (k * 7 + k / 3) % kVertices));
  const size_t p = b.floats(pos, "VEC3"), n = b.floats(nrm, "VEC3"), i = b.ushorts(idx);
  json roots = json::array();
  for (size_t m = 0; m < kSpheres; ++m) {
    b.doc["materials"].push_back({{"name", fmt::format("m{}", m)}});
    b.mesh(json::array({{{"attributes", {{"POSITION", p}, {"NORMAL", n}}}, {"indices", i}, {"material", m}}}),
           fmt::format("sphere{}", m));
    roots.push_back(b.node({{"mesh", m}, {"translation", {float(m) * 100.0f, 0.0f, 0.0f}}}));
  }
  b.scene(roots);
  return b.glb();
}

}  // namespace

TEST(GltfMemory, MeshesSharingWholeAccessorsRead) {
  const std::vector<uint8_t> file = spheres();
  ASSERT_LT(file.size(), size_t(300000));
  Diagnostics d;
  const Scene s = read_memory(file, Format::Glb, "spheres.glb", &d);
  ASSERT_EQ(s.meshes.size(), kSpheres);
  for (size_t m : {size_t(0), size_t(20), kSpheres - 1}) {
    const Mesh& mesh = s.meshes[m];
    EXPECT_EQ(mesh.name, fmt::format("sphere{}", m));
    EXPECT_EQ(mesh.material, int32_t(m));
    ASSERT_EQ(mesh.vertex_count(), kVertices);
    ASSERT_EQ(mesh.triangles.size(), kIndices);
    EXPECT_EQ(mesh.triangles[4], 4u);
    EXPECT_EQ(mesh.triangles[kIndices - 1], uint32_t(((kIndices - 1) * 7 + (kIndices - 1) / 3) % kVertices));
    const VertexStream& p = *mesh.find(Attribute::Position);
    EXPECT_EQ(p.get(75, 0), float(75 % 73) + float(m) * 100.0f);  // baked by its node
    EXPECT_EQ(p.get(75, 1), float(75 / 73));
  }
}

TEST(GltfMemory, MaxMemoryLimitsTheReadAndTheMessageNamesIt) {
  const std::vector<uint8_t> file = spheres();
  ReadOptions o;
  o.max_memory = 16 << 20;
  const std::string e = error_of(file, o);
  EXPECT_NE(e.find("t.glb"), std::string::npos) << e;
  EXPECT_NE(e.find(" bytes remain of the 16777216 bytes --max-memory allows; --max-memory raises it"),
            std::string::npos)
      << e;
  o.max_memory = 64 << 20;
  EXPECT_EQ(read_memory(file, Format::Glb, "t.glb", o).meshes.size(), kSpheres);
  // The default: 1 GiB (the input is small); many nodes instancing a large mesh pass it at the
  // node that does, before any copy is made.
  GltfBuilder h;
  std::vector<float> big(200000 * 3, 1.0f);
  h.mesh(json::array({{{"attributes", {{"POSITION", h.floats(big, "VEC3")}}}}}), "big");
  json nodes = json::array();
  for (int i = 0; i < 3000; ++i) nodes.push_back({{"mesh", 0}});
  h.doc["nodes"] = nodes;
  const std::string e2 = error_of(h.glb());
  EXPECT_EQ(e2.rfind("t.glb: error: nodes[", 0), 0u) << e2;
  EXPECT_NE(e2.find("]: an instance of the mesh would need 3199992 bytes of memory, but only "), std::string::npos) << e2;
  EXPECT_NE(e2.find(" a read may use (1 GiB, or 12 bytes per byte of the input and 32 MiB when that is more; the input "
                    "is "),
            std::string::npos)
      << e2;
  EXPECT_NE(e2.find("--max-memory raises it"), std::string::npos) << e2;
}

TEST(GltfMemory, DataTheFileDoesNotHoldStaysProportionalToIt) {
  // 40 million zero positions (an accessor without a bufferView) in a 300-byte file: refused by
  // the proportional part of the budget, not allowed up to the 1 GiB default.
  GltfBuilder b;
  b.accessor({{"componentType", 5126}, {"type", "VEC3"}, {"count", 40000000}});
  b.mesh(json::array({{{"attributes", {{"POSITION", 0}}}, {"indices", b.ushorts({0, 1, 2})}}}), "zeros");
  b.node({{"mesh", 0}});
  const std::string e = error_of(b.glb());
  EXPECT_NE(e.find("accessors[0]: 40000000 elements of VEC3 (no bufferView: zeros) would need 480000000 bytes of "
                   "memory, but only "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("that the input ("), std::string::npos) << e;
  EXPECT_NE(e.find("can justify for data it does not hold; --max-memory raises it"), std::string::npos) << e;
}

// ---- Draco ------------------------------------------------------------------------------------

namespace {

// A Draco grid of `side` x `side` vertices (positions only), Edgebreaker or sequential.
std::vector<uint8_t> draco_grid(bool edgebreaker, int side = 8) {
  draco::Mesh m;
  draco::GeometryAttribute ga;
  ga.Init(draco::GeometryAttribute::POSITION, nullptr, 3, draco::DT_FLOAT32, false, 12, 0);
  const int id = m.AddAttribute(ga, true, uint32_t(side * side));
  for (int v = 0; v < side * side; ++v) {
    const float p[3] = {float(v % side), float(v / side), float((v * 7) % 3)};
    m.attribute(id)->SetAttributeValue(draco::AttributeValueIndex(uint32_t(v)), p);
  }
  m.set_num_points(uint32_t(side * side));
  for (int y = 0; y + 1 < side; ++y)
    for (int x = 0; x + 1 < side; ++x) {
      const uint32_t a = uint32_t(y * side + x), b = a + 1, c = a + uint32_t(side), d = c + 1;
      m.AddFace({draco::PointIndex(a), draco::PointIndex(b), draco::PointIndex(d)});
      m.AddFace({draco::PointIndex(a), draco::PointIndex(d), draco::PointIndex(c)});
    }
  draco::Encoder enc;
  enc.SetEncodingMethod(edgebreaker ? draco::MESH_EDGEBREAKER_ENCODING : draco::MESH_SEQUENTIAL_ENCODING);
  if (edgebreaker) enc.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 12);
  draco::EncoderBuffer out;
  EXPECT_TRUE(enc.EncodeMeshToBuffer(m, &out).ok());
  return std::vector<uint8_t>(out.data(), out.data() + out.size());
}

// The Draco data as a glb primitive whose accessors (without bufferViews) have `points` and
// `corners` elements (0: what the data decodes to).
std::vector<uint8_t> draco_glb(const std::vector<uint8_t>& drc, uint64_t points = 0, uint64_t corners = 0) {
  if (!points || !corners) {
    draco::DecoderBuffer in;
    in.Init(reinterpret_cast<const char*>(drc.data()), drc.size());
    auto decoded = draco::Decoder().DecodeMeshFromBuffer(&in);
    EXPECT_TRUE(decoded.ok());
    if (!points) points = decoded.value()->num_points();
    if (!corners) corners = uint64_t(decoded.value()->num_faces()) * 3;
  }
  GltfBuilder b;
  const size_t p = b.accessor({{"componentType", 5126}, {"type", "VEC3"}, {"count", points}});
  const size_t i = b.accessor({{"componentType", 5125}, {"type", "SCALAR"}, {"count", corners}});
  json prim = {{"attributes", {{"POSITION", p}}}, {"indices", i}};
  prim["extensions"]["KHR_draco_mesh_compression"] = {{"bufferView", b.view(drc)}, {"attributes", {{"POSITION", 0}}}};
  b.doc["extensionsUsed"] = json::array({"KHR_draco_mesh_compression"});
  b.doc["extensionsRequired"] = json::array({"KHR_draco_mesh_compression"});
  b.mesh(json::array({prim}), "grid");
  b.node({{"mesh", 0}});
  return b.glb();
}

std::vector<uint8_t> varint(uint64_t v) {
  std::vector<uint8_t> out;
  do {
    out.push_back(uint8_t((v & 0x7F) | (v > 0x7F ? 0x80 : 0)));
    v >>= 7;
  } while (v);
  return out;
}

// Replaces varint number `k` (from 0) starting at byte `from` with `value`.
std::vector<uint8_t> with_varint(std::vector<uint8_t> b, size_t from, int k, uint64_t value) {
  size_t at = from;
  for (int i = 0; i < k; ++i)
    while (b[at++] & 0x80) {
    }
  size_t end = at;
  while (b[end++] & 0x80) {
  }
  const std::vector<uint8_t> v = varint(value);
  b.erase(b.begin() + long(at), b.begin() + long(end));
  b.insert(b.begin() + long(at), v.begin(), v.end());
  return b;
}

// Draco 2.2: "DRACO", major, minor, type, method, flags (16 bits): 11 bytes; Edgebreaker then has
// its traversal type (1 byte), the varints num_encoded_vertices and num_faces, a byte (the
// attribute connectivity sets: 0 here, which with_varint steps over as one), the varints
// num_encoded_symbols and num_encoded_split_symbols; sequential the varints num_faces, num_points.
constexpr size_t kEdgebreakerCounts = 12, kSequentialCounts = 11;

}  // namespace

TEST(GltfMemory, DracoEdgebreakerHeaderBombsFailBeforeDecoding) {
  const std::vector<uint8_t> good = draco_grid(true);
  ASSERT_EQ(good[5], 2);
  ASSERT_EQ(good[6], 2);
  ASSERT_EQ(good[8], 1);  // Edgebreaker
  EXPECT_EQ(read_memory(draco_glb(good), Format::Glb, "t.glb").meshes[0].triangles.size(), size_t(7 * 7 * 2 * 3));
  for (uint64_t faces : {uint64_t(60000000), uint64_t(200000000)}) {
    SCOPED_TRACE(faces);
    // The triangles and the Edgebreaker symbols (one per triangle): libdraco allocated its corner
    // table for them (1.35 GiB for 60 million) before finding the data short.
    const std::vector<uint8_t> bomb =
        with_varint(with_varint(good, kEdgebreakerCounts, 1, faces), kEdgebreakerCounts, 3, faces);
    const std::string expected = fmt::format(
        "t.glb: error: meshes[0].primitives[0].extensions.KHR_draco_mesh_compression (bufferViews[0]): the Draco data is "
        "corrupt: its Edgebreaker header claims {} triangles, more than its {} bytes can encode (at most 32 per byte, "
        "plus 4096)",
        faces, bomb.size());
    const std::vector<uint8_t> file = draco_glb(bomb, 64, 3);
    EXPECT_LT(file.size(), size_t(1200));
    EXPECT_EQ(error_of(file), expected);
    // With accessors that agree with the header: the same.
    EXPECT_EQ(error_of(draco_glb(bomb, 64, faces * 3)), expected);
  }
  // A count within what the bytes could hold, but not the indices accessor's.
  EXPECT_EQ(error_of(draco_glb(with_varint(good, kEdgebreakerCounts, 1, 5000), 64, 294)),
            "t.glb: error: meshes[0].primitives[0].indices: accessors[1] has 294 elements, but the Draco mesh has 5000 "
            "triangles (15000 indices)");
  // Vertices and split symbols count as points.
  const std::vector<uint8_t> points =
      with_varint(with_varint(good, kEdgebreakerCounts, 0, 50000000), kEdgebreakerCounts, 4, 3);
  EXPECT_EQ(error_of(draco_glb(points, 64, 294)),
            fmt::format("t.glb: error: meshes[0].primitives[0].extensions.KHR_draco_mesh_compression (bufferViews[0]): "
                        "the Draco data is corrupt: its Edgebreaker header claims 50000003 points, more than its {} "
                        "bytes can encode (at most 32 per byte, plus 4096)",
                        points.size()));
}

TEST(GltfMemory, DracoSequentialAndMetadataBombsFailBeforeDecoding) {
  const std::vector<uint8_t> good = draco_grid(false);
  ASSERT_EQ(good[8], 0);  // sequential
  EXPECT_EQ(read_memory(draco_glb(good), Format::Glb, "t.glb").meshes[0].vertex_count(), size_t(64));
  const std::vector<uint8_t> points = with_varint(good, kSequentialCounts, 1, 100000000);
  EXPECT_EQ(error_of(draco_glb(points, 100000000, 294)),
            fmt::format("t.glb: error: meshes[0].primitives[0].extensions.KHR_draco_mesh_compression (bufferViews[0]): "
                        "the Draco data is corrupt: its sequential header claims 100000000 points, more than its {} "
                        "bytes can encode (at most 32 per byte, plus 4096)",
                        points.size()));
  // Metadata (flag 0x8000) whose one entry claims 268 MB of value bytes the data does not hold:
  // libdraco would allocate them before noticing.
  std::vector<uint8_t> meta = good;
  meta[10] |= 0x80;
  const std::vector<uint8_t> entry = {0, 1, 1, 'a', 0xFF, 0xFF, 0xFF, 0x7F};  // no attribute metadata, 1 entry
  meta.insert(meta.begin() + 11, entry.begin(), entry.end());
  EXPECT_EQ(error_of(draco_glb(meta, 64, 294)),
            "t.glb: error: meshes[0].primitives[0].extensions.KHR_draco_mesh_compression (bufferViews[0]): the Draco "
            "metadata is corrupt (at byte 19)");
  // Well-formed metadata is skipped: the counts after it are read.
  std::vector<uint8_t> named = good;
  named[10] |= 0x80;
  const std::vector<uint8_t> ok = {0, 1, 1, 'a', 2, 'x', 'y', 1, 1, 's', 0, 0};  // an entry, a sub-metadata
  named.insert(named.begin() + 11, ok.begin(), ok.end());
  EXPECT_EQ(read_memory(draco_glb(named, 64, 294), Format::Glb, "t.glb").meshes[0].vertex_count(), size_t(64));
}

// ---- meshopt ----------------------------------------------------------------------------------

TEST(GltfMemory, MeshoptViewLargerThanItsBytesCanDecodeToFailsBeforeAllocating) {
  std::vector<float> pos;
  for (int v = 0; v < 16; ++v) pos.insert(pos.end(), {float(v), 0.0f, 1.0f});
  std::vector<uint8_t> enc(meshopt_encodeVertexBufferBound(16, 12));
  enc.resize(meshopt_encodeVertexBuffer(enc.data(), enc.size(), pos.data(), 16, 12));
  auto file = [&](uint64_t count) {
    GltfBuilder b;
    b.view(enc);
    const uint64_t len = count * 12;
    b.doc["bufferViews"][0] = {{"buffer", 1}, {"byteLength", len},
                               {"extensions",
                                {{"EXT_meshopt_compression",
                                  {{"buffer", 0}, {"byteLength", enc.size()}, {"byteStride", 12}, {"count", count},
                                   {"mode", "ATTRIBUTES"}}}}}};
    b.accessor({{"bufferView", 0}, {"componentType", 5126}, {"type", "VEC3"}, {"count", count}});
    b.mesh(json::array({{{"attributes", {{"POSITION", 0}}}}}), "m");
    b.node({{"mesh", 0}});
    json d = b.doc;
    d["buffers"] = json::array({{{"byteLength", b.bin.size()}},
                                {{"byteLength", len}, {"extensions", {{"EXT_meshopt_compression", {{"fallback", true}}}}}}});
    d["extensionsUsed"] = d["extensionsRequired"] = json::array({"EXT_meshopt_compression"});
    return GltfBuilder::make_glb(d.dump(), b.bin);
  };
  EXPECT_EQ(read_memory(file(16), Format::Glb, "t.glb").meshes[0].vertex_count(), size_t(16));
  EXPECT_EQ(error_of(file(75000000)),
            fmt::format("t.glb: error: bufferViews[0].extensions.EXT_meshopt_compression: the compressed data is "
                        "corrupt: its {} bytes cannot decode to the 900000000 bytes of 75000000 12-byte elements "
                        "(ATTRIBUTES decodes at most 64 bytes per compressed byte)",
                        enc.size()));
}

// ---- --max-memory ------------------------------------------------------------------------------

TEST(GltfMemory, EveryReadingCommandTakesMaxMemory) {
  testutil::TempDir t;
  const std::string file = (t.path / "spheres.glb").string();
  const std::vector<uint8_t> b = spheres();
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  const std::string limited = "bytes remain of the 1048576 bytes --max-memory allows; --max-memory raises it";
  for (const std::string& cmd : {"info " + file, "validate " + file, "diff " + file + " " + file,
                                 "anims " + file, "convert " + file + " -o " + (t.path / "o.obj").string(),
                                 "batch " + file + " -o " + (t.path / "out").string() + " --to obj"}) {
    SCOPED_TRACE(cmd);
    const testutil::CliRun low = testutil::run_cli(cmd + " --max-memory 1M");
    EXPECT_NE(low.status, 0) << low.out;
    EXPECT_NE(low.out.find(limited), std::string::npos) << low.out;
  }
  EXPECT_EQ(testutil::run_cli("info " + file + " --max-memory 64MiB").status, 0);
  const testutil::CliRun bad = testutil::run_cli("info " + file + " --max-memory 12X");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("--max-memory: expects a size in bytes above 0, with an optional K, M, G or T suffix (2G, "
                         "512M), got '12X'"),
            std::string::npos)
      << bad.out;
}

}  // namespace meshport_test_gltf_memory
