// Compressed glTF geometry (issue 18): KHR_draco_mesh_compression and EXT/KHR_meshopt_compression
// read (gltf_read_draco.cpp, gltf_read_meshopt.cpp), EXT_meshopt_compression written (convert
// --compress, gltf_write_meshopt.cpp). The compressed files are built here with the packaged
// encoders (libdraco, meshoptimizer) next to the same data uncompressed, and compared; then the
// real tools (gltfpack, glTF-Transform) compress a meshport .glb.
#include "gltf_builder.h"
#include "test_util.h"

#include <meshport/diff.h>
#include <meshport/meshport.h>

#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>
#include <draco/point_cloud/point_cloud.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <meshoptimizer.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace meshport_test_gltf_compression {

using namespace meshport;
using json = nlohmann::json;

namespace {

// A 4 x 4 grid, skinned to two joints.
struct Source {
  static constexpr uint32_t kSide = 4;
  std::vector<float> pos, nrm, uv, wgt;
  std::vector<uint8_t> jnt;
  std::vector<uint16_t> idx;
  Source() {
    for (uint32_t y = 0; y < kSide; ++y)
      for (uint32_t x = 0; x < kSide; ++x) {
        const float fx = float(x) * 0.5f, fy = float(y) * 0.25f, fz = std::sin(fx) * 0.3f;
        pos.insert(pos.end(), {fx, fy, fz});
        float n[3] = {-0.3f * std::cos(fx), 0.1f * float(y), 1.0f};
        const float l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        nrm.insert(nrm.end(), {n[0] / l, n[1] / l, n[2] / l});
        uv.insert(uv.end(), {float(x) / 3.0f, 1.0f - float(y) / 3.0f});
        const float w = float(y) / 3.0f;
        jnt.insert(jnt.end(), {0, 1, 0, 0});
        wgt.insert(wgt.end(), {1.0f - w, w, 0.0f, 0.0f});
      }
    for (uint32_t y = 0; y + 1 < kSide; ++y)
      for (uint32_t x = 0; x + 1 < kSide; ++x) {
        const uint16_t a = uint16_t(y * kSide + x), b = uint16_t(a + 1), c = uint16_t(a + kSide), d = uint16_t(c + 1);
        idx.insert(idx.end(), {a, b, d, a, d, c});
      }
  }
  size_t vertices() const { return pos.size() / 3; }
};

using testutil::bytes_of;

std::vector<uint8_t> make_glb(std::string text, std::vector<uint8_t> b) {
  return testutil::GltfBuilder::make_glb(std::move(text), std::move(b));
}

// A glTF document and its BIN chunk. With `meshopt`, views given a mode are compressed into the
// BIN chunk and refer to a fallback buffer (buffers[1]) without data.
struct Doc {
  json doc;
  std::vector<uint8_t> bin;
  bool meshopt = false;
  std::string ext = "EXT_meshopt_compression";
  uint64_t fallback = 0;

  Doc() {
    doc["asset"] = {{"version", "2.0"}};
    // Two joints at the origin (identity inverse bind matrices) and the skinned mesh's node.
    doc["nodes"] = json::array({{{"mesh", 0}, {"skin", 0}, {"name", "grid"}},
                                {{"name", "root"}, {"children", {2}}},
                                {{"name", "tip"}}});
    doc["skins"] = json::array({{{"joints", {1, 2}}}});
    doc["scenes"] = json::array({{{"nodes", {0, 1}}}});
    doc["scene"] = 0;
  }
  void align() {
    while (bin.size() % 4) bin.push_back(0);
  }
  // `raw`: the bytes meshopt encodes (before its filter); `decoded`: what a reader gets.
  size_t view(const std::vector<uint8_t>& decoded, size_t stride, const char* mode = nullptr,
              const std::vector<uint8_t>* raw = nullptr, const char* filter = nullptr, uint32_t view_stride = 0) {
    json v;
    if (meshopt && mode) {
      const std::vector<uint8_t>& src = raw ? *raw : decoded;
      const size_t count = src.size() / stride;
      std::vector<uint8_t> enc;
      if (std::string(mode) == "ATTRIBUTES") {
        enc.resize(meshopt_encodeVertexBufferBound(count, stride));
        enc.resize(meshopt_encodeVertexBuffer(enc.data(), enc.size(), src.data(), count, stride));
      } else {
        std::vector<uint32_t> ix(count);
        for (size_t i = 0; i < count; ++i) {
          uint32_t x = 0;
          std::memcpy(&x, src.data() + i * stride, stride);
          ix[i] = x;
        }
        enc.resize(meshopt_encodeIndexBufferBound(count, 1 << 16));
        if (std::string(mode) == "TRIANGLES")
          enc.resize(meshopt_encodeIndexBuffer(enc.data(), enc.size(), ix.data(), count));
        else
          enc.resize(meshopt_encodeIndexSequence(enc.data(), enc.size(), ix.data(), count));
      }
      align();
      json e = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", enc.size()}, {"byteStride", stride},
                {"count", count}, {"mode", mode}};
      if (filter) e["filter"] = filter;
      bin.insert(bin.end(), enc.begin(), enc.end());
      fallback = (fallback + 3) / 4 * 4;
      v = {{"buffer", 1}, {"byteOffset", fallback}, {"byteLength", decoded.size()}, {"extensions", {{ext, e}}}};
      fallback += decoded.size();
    } else {
      align();
      v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", decoded.size()}};
      bin.insert(bin.end(), decoded.begin(), decoded.end());
    }
    if (view_stride) v["byteStride"] = view_stride;
    doc["bufferViews"].push_back(v);
    return doc["bufferViews"].size() - 1;
  }
  size_t accessor(json a) {
    doc["accessors"].push_back(std::move(a));
    return doc["accessors"].size() - 1;
  }
  std::vector<uint8_t> glb() {
    json d = doc;
    align();
    d["buffers"] = json::array({{{"byteLength", bin.size()}}});
    if (fallback) {
      d["buffers"].push_back({{"byteLength", fallback}, {"extensions", {{ext, {{"fallback", true}}}}}});
      d["extensionsUsed"] = json::array({ext});
      d["extensionsRequired"] = json::array({ext});
    }
    return make_glb(d.dump(), bin);
  }
};

json acc(size_t view, int ct, const char* type, size_t count, bool normalized = false) {
  json a = {{"bufferView", view}, {"componentType", ct}, {"type", type}, {"count", count}};
  if (normalized) a["normalized"] = true;
  return a;
}

// The grid as a glTF file with every view compressed with meshopt (or, `meshopt` false, the
// same data uncompressed): positions and joints / weights as they are, normals with the
// octahedral filter (bytes, 8 bits), texture coordinates with the exponential filter (12-bit
// mantissas), the indices as triangles; a second primitive draws the first row again through
// 32-bit indices in INDICES mode.
std::vector<uint8_t> meshopt_grid(bool meshopt, const std::string& ext = "EXT_meshopt_compression") {
  const Source s;
  Doc d;
  d.meshopt = meshopt;
  d.ext = ext;
  const size_t n = s.vertices();
  std::vector<float> n4;
  for (size_t i = 0; i < n; ++i) n4.insert(n4.end(), {s.nrm[i * 3], s.nrm[i * 3 + 1], s.nrm[i * 3 + 2], 0.0f});
  std::vector<uint8_t> oct(n * 4);
  meshopt_encodeFilterOct(oct.data(), n, 4, 8, n4.data());
  std::vector<uint8_t> oct_dec = oct;
  meshopt_decodeFilterOct(oct_dec.data(), n, 4);
  std::vector<uint8_t> exp(n * 8);
  meshopt_encodeFilterExp(exp.data(), n, 8, 12, s.uv.data());
  std::vector<uint8_t> exp_dec = exp;
  meshopt_decodeFilterExp(exp_dec.data(), n, 8);
  const size_t p = d.accessor(acc(d.view(bytes_of(s.pos), 12, "ATTRIBUTES"), 5126, "VEC3", n));
  const size_t nr = d.accessor(acc(d.view(oct_dec, 4, "ATTRIBUTES", &oct, "OCTAHEDRAL", 4), 5120, "VEC3", n, true));
  const size_t t = d.accessor(acc(d.view(exp_dec, 8, "ATTRIBUTES", &exp, "EXPONENTIAL"), 5126, "VEC2", n));
  const size_t j = d.accessor(acc(d.view(s.jnt, 4, "ATTRIBUTES"), 5121, "VEC4", n));
  const size_t w = d.accessor(acc(d.view(bytes_of(s.wgt), 16, "ATTRIBUTES"), 5126, "VEC4", n));
  // The triangle codec may rotate a triangle's corners: the plain file holds what it decodes to.
  std::vector<uint8_t> tri(meshopt_encodeIndexBufferBound(s.idx.size(), n));
  std::vector<uint32_t> idx32(s.idx.begin(), s.idx.end());
  tri.resize(meshopt_encodeIndexBuffer(tri.data(), tri.size(), idx32.data(), idx32.size()));
  std::vector<uint16_t> tri_dec(s.idx.size());
  EXPECT_EQ(meshopt_decodeIndexBuffer(tri_dec.data(), tri_dec.size(), 2, tri.data(), tri.size()), 0);
  const std::vector<uint8_t> idx_raw = bytes_of(s.idx);
  const size_t i = d.accessor(acc(d.view(bytes_of(tri_dec), 2, "TRIANGLES", &idx_raw), 5123, "SCALAR", s.idx.size()));
  std::vector<uint32_t> row(s.idx.begin(), s.idx.begin() + 18);
  const size_t i2 = d.accessor(acc(d.view(bytes_of(row), 4, "INDICES"), 5125, "SCALAR", row.size()));
  json attrs = {{"POSITION", p}, {"NORMAL", nr}, {"TEXCOORD_0", t}, {"JOINTS_0", j}, {"WEIGHTS_0", w}};
  d.doc["meshes"] = json::array(
      {{{"name", "grid"}, {"primitives", {{{"attributes", attrs}, {"indices", i}}, {{"attributes", attrs}, {"indices", i2}}}}}});
  return d.glb();
}

// A Draco mesh of the grid: float positions, normals, texture coordinates and weights, ubyte
// joints, each attribute's unique id its index. Sequential encoding without quantization is
// lossless and keeps the point and face order; `quantize` uses edgebreaker and quantization.
draco::EncoderBuffer draco_grid(bool quantize, draco::DataType weight_type = draco::DT_FLOAT32) {
  const Source s;
  draco::Mesh m;
  const size_t n = s.vertices();
  m.set_num_points(uint32_t(n));
  auto add = [&](draco::GeometryAttribute::Type type, int comps, draco::DataType dt, const void* data) {
    draco::GeometryAttribute ga;
    ga.Init(type, nullptr, uint8_t(comps), dt, false, int64_t(comps) * draco::DataTypeLength(dt), 0);
    const int id = m.AddAttribute(ga, true, uint32_t(n));
    const size_t esize = size_t(comps) * size_t(draco::DataTypeLength(dt));
    for (size_t i = 0; i < n; ++i)
      m.attribute(id)->SetAttributeValue(draco::AttributeValueIndex(uint32_t(i)),
                                         static_cast<const uint8_t*>(data) + i * esize);
    return id;
  };
  EXPECT_EQ(add(draco::GeometryAttribute::POSITION, 3, draco::DT_FLOAT32, s.pos.data()), 0);
  EXPECT_EQ(add(draco::GeometryAttribute::NORMAL, 3, draco::DT_FLOAT32, s.nrm.data()), 1);
  EXPECT_EQ(add(draco::GeometryAttribute::TEX_COORD, 2, draco::DT_FLOAT32, s.uv.data()), 2);
  EXPECT_EQ(add(draco::GeometryAttribute::GENERIC, 4, draco::DT_UINT8, s.jnt.data()), 3);
  const std::vector<uint8_t> odd(s.wgt.size() * 8, 129);  // bytes no bool holds; room for 64-bit types
  EXPECT_EQ(add(draco::GeometryAttribute::GENERIC, 4, weight_type,
                weight_type == draco::DT_FLOAT32 ? static_cast<const void*>(s.wgt.data()) : odd.data()),
            4);
  for (size_t f = 0; f < s.idx.size() / 3; ++f)
    m.AddFace({draco::PointIndex(s.idx[f * 3]), draco::PointIndex(s.idx[f * 3 + 1]), draco::PointIndex(s.idx[f * 3 + 2])});
  draco::Encoder enc;
  if (quantize) {
    enc.SetEncodingMethod(draco::MESH_EDGEBREAKER_ENCODING);
    enc.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 14);
    enc.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, 10);
    enc.SetAttributeQuantization(draco::GeometryAttribute::TEX_COORD, 12);
  } else {
    enc.SetEncodingMethod(draco::MESH_SEQUENTIAL_ENCODING);
  }
  draco::EncoderBuffer out;
  const draco::Status st = enc.EncodeMeshToBuffer(m, &out);
  EXPECT_TRUE(st.ok()) << st.error_msg_string();
  return out;
}

// The grid with the KHR_draco_mesh_compression extension (`draco`), or uncompressed. The
// accessors of a Draco primitive have no bufferView.
std::vector<uint8_t> draco_glb(const std::vector<uint8_t>* draco, uint32_t points = 0, uint32_t corners = 0) {
  const Source s;
  Doc d;
  const size_t n = points ? points : s.vertices(), ni = corners ? corners : s.idx.size();
  auto a = [&](std::vector<uint8_t> b, int ct, const char* type, size_t count) {
    json x = acc(0, ct, type, count);
    if (draco)
      x.erase("bufferView");
    else
      x["bufferView"] = d.view(b, 0);
    return d.accessor(x);
  };
  const size_t p = a(bytes_of(s.pos), 5126, "VEC3", n), nr = a(bytes_of(s.nrm), 5126, "VEC3", n),
               t = a(bytes_of(s.uv), 5126, "VEC2", n), j = a(s.jnt, 5121, "VEC4", n),
               w = a(bytes_of(s.wgt), 5126, "VEC4", n), i = a(bytes_of(s.idx), 5123, "SCALAR", ni);
  json prim = {{"attributes", {{"POSITION", p}, {"NORMAL", nr}, {"TEXCOORD_0", t}, {"JOINTS_0", j}, {"WEIGHTS_0", w}}},
               {"indices", i}};
  if (draco) {
    prim["extensions"]["KHR_draco_mesh_compression"] = {
        {"bufferView", d.view(*draco, 0)},
        {"attributes", {{"POSITION", 0}, {"NORMAL", 1}, {"TEXCOORD_0", 2}, {"JOINTS_0", 3}, {"WEIGHTS_0", 4}}}};
    d.doc["extensionsUsed"] = json::array({"KHR_draco_mesh_compression"});
    d.doc["extensionsRequired"] = json::array({"KHR_draco_mesh_compression"});
  }
  d.doc["meshes"] = json::array({{{"name", "grid"}, {"primitives", {prim}}}});
  return d.glb();
}

std::vector<uint8_t> draco_bytes(bool quantize) {
  draco::EncoderBuffer b = draco_grid(quantize);
  return std::vector<uint8_t>(b.data(), b.data() + b.size());
}

Scene read_glb(const std::vector<uint8_t>& b, Diagnostics* d = nullptr) {
  return read_memory(b, Format::Glb, "t.glb", d);
}

std::string error_of(const std::vector<uint8_t>& b) {
  try {
    read_glb(b);
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "";
}

// `s` through `f` and back (meshport's writer and reader).
Scene through(const Scene& s, Format f) {
  Diagnostics d;
  return read_memory(write_memory(s, f, {}, &d), f, "t", &d);
}

std::string diffs(const Scene& a, const Scene& b, float tol = 1e-4f) {
  std::string out;
  for (const Difference& x : diff(a, b, {tol})) out += to_string(x) + "\n";
  return out;
}

// Every format meshport writes a skinned mesh to and reads back.
// `tol` > 0: the models compared within it, without the format side data (PIE keeps its
// levels' values verbatim).
void expect_same_through_formats(const Scene& compressed, const Scene& plain, float tol = 0.0f) {
  for (Format f : {Format::Glb, Format::Iqm, Format::Iqe, Format::Pie, Format::Obj}) {
    SCOPED_TRACE(std::string(format_info(f).name));
    Scene a = through(compressed, f), b = through(plain, f);
    if (tol > 0) a.pie.reset(), b.pie.reset();
    EXPECT_EQ(diffs(a, b, tol > 0 ? tol : 1e-4f), "");
  }
}

}  // namespace

// ---- meshopt --------------------------------------------------------------------------------

TEST(GltfCompression, MeshoptReadsAsTheSameDataUncompressed) {
  for (const char* ext : {"EXT_meshopt_compression", "KHR_meshopt_compression"}) {
    SCOPED_TRACE(ext);
    Diagnostics d;
    const Scene c = read_glb(meshopt_grid(true, ext), &d);
    const Scene p = read_glb(meshopt_grid(false));
    EXPECT_TRUE(d.items.empty()) << (d.items.empty() ? "" : d.items.front().message);
    ASSERT_EQ(c.meshes.size(), 2u);
    EXPECT_EQ(c.meshes, p.meshes);
    EXPECT_EQ(c.joints.size(), 2u);
    testutil::expect_scenes_close(c, p);
    // Against the source values: positions, weights and indices exact, the filtered streams
    // within their precision (8-bit octahedral normals, 12-bit mantissas).
    const Source s;
    const Mesh& m = c.meshes[0];
    EXPECT_EQ(m.find(Attribute::Position)->data, s.pos);
    ASSERT_EQ(m.triangles.size(), s.idx.size());
    for (size_t k = 0; k < s.idx.size(); k += 3) {  // the same triangles, maybe rotated
      const uint32_t a = m.triangles[k], b = m.triangles[k + 1], c = m.triangles[k + 2];
      const bool same = (a == s.idx[k] && b == s.idx[k + 1] && c == s.idx[k + 2]) ||
                        (b == s.idx[k] && c == s.idx[k + 1] && a == s.idx[k + 2]) ||
                        (c == s.idx[k] && a == s.idx[k + 1] && b == s.idx[k + 2]);
      EXPECT_TRUE(same) << "triangle " << k / 3;
    }
    EXPECT_EQ(m.find(Attribute::BlendWeights)->data, s.wgt);
    for (size_t v = 0; v < s.vertices(); ++v) {
      for (uint32_t k = 0; k < 3; ++k) EXPECT_NEAR(m.find(Attribute::Normal)->get(v, k), s.nrm[v * 3 + k], 0.02f);
      for (uint32_t k = 0; k < 2; ++k) EXPECT_NEAR(m.find(Attribute::Texcoord)->get(v, k), s.uv[v * 2 + k], 1e-3f);
      EXPECT_EQ(m.find(Attribute::BlendIndices)->get(v, 1), 1.0f);
    }
    EXPECT_EQ(c.meshes[1].triangles.size(), 18u);
    expect_same_through_formats(c, p);
  }
}

TEST(GltfCompression, MeshoptFallbackBufferIsOnlyForCompressedViews) {
  // A plain view on the fallback buffer: a clear error, not "no uri".
  std::vector<uint8_t> g = meshopt_grid(true);
  json doc;
  uint32_t jl;
  std::memcpy(&jl, g.data() + 12, 4);
  doc = json::parse(g.begin() + 20, g.begin() + 20 + jl);
  std::vector<uint8_t> bin(g.begin() + 20 + jl + 8, g.end());
  doc["bufferViews"][0].erase("extensions");
  EXPECT_EQ(error_of(make_glb(doc.dump(), bin)),
            "buffers[1]: is a meshopt fallback buffer (it has no data): only compressed buffer views may refer to it");
}

namespace {

// The meshopt grid's JSON and BIN chunk, edited by `edit`, as a .glb.
std::vector<uint8_t> edited(const std::function<void(json&, std::vector<uint8_t>&)>& edit) {
  std::vector<uint8_t> g = meshopt_grid(true);
  uint32_t jl;
  std::memcpy(&jl, g.data() + 12, 4);
  json doc = json::parse(g.begin() + 20, g.begin() + 20 + jl);
  std::vector<uint8_t> bin(g.begin() + 20 + jl + 8, g.end());
  edit(doc, bin);
  return make_glb(doc.dump(), bin);
}

}  // namespace

TEST(GltfCompression, MeshoptBadOrCorruptDataIsAClearError) {
  const std::string e0 = "bufferViews[0].extensions.EXT_meshopt_compression";
  EXPECT_EQ(error_of(edited([](json& d, auto&) { d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["byteStride"] = 6; })),
            e0 + ".byteStride: 6 is not a multiple of 4 from 4 to 256 (ATTRIBUTES)");
  EXPECT_EQ(error_of(edited([](json& d, auto&) { d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["count"] = 15; })),
            e0 + ": count 15 * byteStride 12 = 180 bytes, but the bufferView's byteLength is 192");
  EXPECT_EQ(error_of(edited([](json& d, auto&) { d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["mode"] = "X"; })),
            e0 + ".mode: 'X' is not ATTRIBUTES, TRIANGLES or INDICES");
  EXPECT_EQ(error_of(edited([](json& d, auto&) { d["bufferViews"][5]["extensions"]["EXT_meshopt_compression"]["filter"] = "OCTAHEDRAL"; })),
            "bufferViews[5].extensions.EXT_meshopt_compression.filter: 'OCTAHEDRAL' is only for ATTRIBUTES (the mode is "
            "TRIANGLES)");
  EXPECT_EQ(error_of(edited([](json& d, auto&) { d["bufferViews"][5]["extensions"]["EXT_meshopt_compression"]["count"] = 53; })),
            "bufferViews[5].extensions.EXT_meshopt_compression.count: 53 is not a multiple of 3 (TRIANGLES)");
  EXPECT_EQ(error_of(edited([](json& d, auto&) { d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["buffer"] = 1; })),
            e0 + ".buffer: buffers[1] is a fallback buffer, which holds no compressed data");
  EXPECT_EQ(error_of(edited([](json& d, auto&) { d["bufferViews"][1]["extensions"]["EXT_meshopt_compression"]["filter"] = "COLOR"; })),
            "bufferViews[1].extensions.EXT_meshopt_compression.filter: 'COLOR' is not NONE, OCTAHEDRAL, QUATERNION or "
            "EXPONENTIAL");
  // Truncated compressed data, for every mode.
  for (int v : {0, 5, 6}) {
    const std::string msg = error_of(edited([v](json& d, auto&) {
      json& e = d["bufferViews"][v]["extensions"]["EXT_meshopt_compression"];
      e["byteLength"] = e["byteLength"].get<int>() - 8;
    }));
    EXPECT_NE(msg.find(fmt::format("bufferViews[{}].extensions.EXT_meshopt_compression: the compressed data is corrupt", v)),
              std::string::npos)
        << msg;
  }
  // Any byte of the compressed data changed: read or a clear error, never a crash.
  std::mt19937 rng(7);
  for (int k = 0; k < 300; ++k) {
    std::vector<uint8_t> g = edited([&](json&, std::vector<uint8_t>& bin) {
      bin[rng() % bin.size()] = uint8_t(rng());
      bin[rng() % bin.size()] = uint8_t(rng());
    });
    try {
      read_glb(g);
    } catch (const Error&) {
    }
  }
}

// ---- Draco ----------------------------------------------------------------------------------

TEST(GltfCompression, DracoLosslessReadsAsTheSameDataUncompressed) {
  const std::vector<uint8_t> dr = draco_bytes(false);
  Diagnostics d;
  const Scene c = read_glb(draco_glb(&dr), &d);
  const Scene p = read_glb(draco_glb(nullptr));
  EXPECT_TRUE(d.items.empty()) << (d.items.empty() ? "" : d.items.front().message);
  ASSERT_EQ(c.meshes.size(), 1u);
  EXPECT_EQ(c.meshes, p.meshes);
  testutil::expect_scenes_close(c, p);
  const Source s;
  EXPECT_EQ(c.meshes[0].find(Attribute::Position)->data, s.pos);
  EXPECT_EQ(c.meshes[0].find(Attribute::Normal)->data, s.nrm);
  EXPECT_EQ(c.meshes[0].find(Attribute::Texcoord)->data, s.uv);
  EXPECT_EQ(c.meshes[0].find(Attribute::BlendWeights)->data, s.wgt);
  expect_same_through_formats(c, p);
}

TEST(GltfCompression, DracoQuantizedReadsWithinItsSteps) {
  const std::vector<uint8_t> dr = draco_bytes(true);
  const Scene c = read_glb(draco_glb(&dr));
  const Scene p = read_glb(draco_glb(nullptr));
  // Edgebreaker reorders points and triangles: compared as models (meshport diff). 14-bit
  // positions over a 1.5 extent, 12-bit texture coordinates, 10-bit normals.
  EXPECT_EQ(diffs(c, p, 3e-3f), "");
  EXPECT_NE(diffs(c, p, 1e-7f), "");  // quantized: not exact
  expect_same_through_formats(c, p, 3e-3f);
}

TEST(GltfCompression, DracoBadOrCorruptDataIsAClearError) {
  const std::vector<uint8_t> dr = draco_bytes(false);
  const std::string ep = "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression";
  EXPECT_EQ(error_of(draco_glb(&dr, 15)), ep + ".attributes.JOINTS_0: accessors[3] has 15 elements, but the Draco mesh has 16 points");
  EXPECT_EQ(error_of(draco_glb(&dr, 0, 51)),
            "meshes[0].primitives[0].indices: accessors[5] has 51 elements, but the Draco mesh has 18 triangles (54 indices)");
  const std::vector<uint8_t> junk(64, 0x41);
  EXPECT_EQ(error_of(draco_glb(&junk)).rfind(ep + " (bufferViews[0]): is not Draco data", 0), 0u) << error_of(draco_glb(&junk));
  // A Draco type no glTF accessor holds, here bool weights for a float accessor (fuzz finding:
  // Draco's own conversion reads any byte as a bool).
  for (draco::DataType t : {draco::DT_BOOL, draco::DT_FLOAT64, draco::DT_INT64}) {
    draco::EncoderBuffer b = draco_grid(false, t);
    const std::vector<uint8_t> x(b.data(), b.data() + b.size());
    EXPECT_EQ(error_of(draco_glb(&x)).rfind(ep + ".attributes.WEIGHTS_0: the Draco attribute holds ", 0), 0u)
        << error_of(draco_glb(&x));
  }
  // A point cloud.
  draco::PointCloud pc;
  pc.set_num_points(3);
  draco::GeometryAttribute ga;
  ga.Init(draco::GeometryAttribute::POSITION, nullptr, 3, draco::DT_FLOAT32, false, 12, 0);
  const int id = pc.AddAttribute(ga, true, 3);
  const float pts[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  for (uint32_t i = 0; i < 3; ++i) pc.attribute(id)->SetAttributeValue(draco::AttributeValueIndex(i), pts + i * 3);
  draco::Encoder enc;
  draco::EncoderBuffer eb;
  ASSERT_TRUE(enc.EncodePointCloudToBuffer(pc, &eb).ok());
  const std::vector<uint8_t> cloud(eb.data(), eb.data() + eb.size());
  EXPECT_EQ(error_of(draco_glb(&cloud)), ep + " (bufferViews[0]): is a Draco point cloud, not a triangle mesh");
  // Truncated, and any bytes changed: a clear error (or a mesh), never a crash.
  for (size_t cut : {dr.size() / 2, dr.size() - 1, size_t(20)}) {
    const std::vector<uint8_t> t(dr.begin(), dr.begin() + ptrdiff_t(cut));
    EXPECT_EQ(error_of(draco_glb(&t)).rfind(ep + " (bufferViews[0]): ", 0), 0u) << cut << ": " << error_of(draco_glb(&t));
  }
  const std::vector<uint8_t> q = draco_bytes(true);
  std::mt19937 rng(3);
  for (int k = 0; k < 300; ++k) {
    std::vector<uint8_t> x = (k % 2) ? q : dr;
    x[rng() % x.size()] = uint8_t(rng());
    try {
      read_glb(draco_glb(&x));
    } catch (const Error&) {
    }
  }
}

// ---- Writing: --compress --------------------------------------------------------------------

namespace {

const std::string kTentacle = std::string(MESHPORT_TEST_DATA) + "/../../examples/tentacle.iqe";

json glb_json(const std::vector<uint8_t>& g) {
  uint32_t jl;
  std::memcpy(&jl, g.data() + 12, 4);
  return json::parse(g.begin() + 20, g.begin() + 20 + jl);
}

}  // namespace

TEST(GltfCompression, CompressWritesLosslessMeshopt) {
  const Scene src = read(kTentacle);
  WriteOptions plain, packed;
  packed.compress = true;
  for (Format f : {Format::Glb, Format::Gltf}) {
    SCOPED_TRACE(std::string(format_info(f).name));
    const std::vector<uint8_t> a = write_memory(src, f, plain), b = write_memory(src, f, packed);
    EXPECT_LT(b.size(), a.size() * 3 / 4);
    Diagnostics d;
    const Scene sa = read_memory(a, f, "a"), sb = read_memory(b, f, "b", &d);
    EXPECT_TRUE(d.items.empty());
    EXPECT_EQ(sa.meshes, sb.meshes);
    testutil::expect_scenes_close(sa, sb);
    EXPECT_EQ(diffs(sa, sb, 0.0f), "");
    ASSERT_EQ(sa.animations.size(), sb.animations.size());
    for (size_t i = 0; i < sa.animations.size(); ++i) EXPECT_TRUE(sa.animations[i].poses == sb.animations[i].poses);
  }
  const std::vector<uint8_t> g = write_memory(src, Format::Glb, packed);
  const json doc = glb_json(g);
  EXPECT_EQ(doc["extensionsRequired"], json::array({"EXT_meshopt_compression"}));
  EXPECT_EQ(doc["buffers"].size(), 2u);
  EXPECT_EQ(doc["buffers"][1]["extensions"]["EXT_meshopt_compression"]["fallback"], true);
  EXPECT_FALSE(doc["buffers"][1].contains("uri"));
  size_t compressed = 0, triangles = 0;
  for (const json& v : doc["bufferViews"])
    if (v.contains("extensions")) {
      ++compressed;
      const json& e = v["extensions"]["EXT_meshopt_compression"];
      EXPECT_EQ(v["buffer"], 1);
      EXPECT_EQ(e["byteStride"].get<uint64_t>() * e["count"].get<uint64_t>(), v["byteLength"].get<uint64_t>());
      EXPECT_FALSE(e.contains("filter"));
      triangles += e["mode"] == "INDICES";
    }
  EXPECT_EQ(compressed + doc.value("images", json::array()).size(), doc["bufferViews"].size());
  EXPECT_EQ(triangles, 2u);  // the tentacle's two meshes (INDICES: the TRIANGLES codec rotates corners)
}

TEST(GltfCompression, CompressIsValidAndOnlyForGltf) {
  testutil::TempDir t;
  auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --compress", kTentacle, t / "c.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --compress", kTentacle, t / "c.gltf"));
  ASSERT_EQ(r.status, 0) << r.out;
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({t / "c.glb", t / "c.gltf"}, out)) << out;
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --compress", kTentacle, t / "c.iqm"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("compression (--compress) is for glTF output (.gltf, .glb) only, not iqm"), std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(t / "c.iqm"));
}

// ---- The tools people compress with ---------------------------------------------------------

namespace {

namespace fs = std::filesystem;
const fs::path kTools = fs::path(MESHPORT_TEST_DATA).parent_path() / "gltf_tools" / "node_modules";

int node(const std::string& args, std::string& out) {
  FILE* p = ::popen(("node " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return ::pclose(p);
}

}  // namespace

TEST(GltfCompression, ToolsCompressedFilesRead) {
  ASSERT_TRUE(fs::exists(kTools / "gltfpack" / "cli.js")) << "run `npm ci --prefix tests/gltf_tools`";
  testutil::TempDir t;
  const std::string src = t / "src.glb";
  auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}'", kTentacle, src));
  ASSERT_EQ(r.status, 0) << r.out;
  const Scene orig = read(src);
  const std::string pack = (kTools / "gltfpack" / "cli.js").string();
  const std::string gt = (kTools / "@gltf-transform" / "cli" / "bin" / "cli.js").string();
  struct Case {
    std::string name, args, ext;
    float tol;
  };
  // gltfpack keeps names and extras (-kn -km -ke), not the vertex order; -c -noq: meshopt on
  // float attributes (compared as models within 1e-4); -cc: quantized attributes (KHR_mesh_
  // quantization) with the codec's filters (octahedral normals and tangents), whose 8-bit normals
  // and UVs scaled per mesh are compared by the bounds only (tol < 0). glTF-Transform's draco
  // and meshopt quantize too (positions 14 bits, normals 10 / 8): within 1e-2.
  const std::vector<Case> cases = {
      {"gltfpack-c", fmt::format("'{}' -kn -km -ke -noq -c -i '{}' -o '{}'", pack, src, t / "gltfpack-c.glb"),
       "EXT_meshopt_compression", 1e-4f},
      {"gltfpack-cc", fmt::format("'{}' -kn -km -ke -cc -i '{}' -o '{}'", pack, src, t / "gltfpack-cc.glb"),
       "EXT_meshopt_compression", -1.0f},
      {"gltf-transform-meshopt", fmt::format("'{}' meshopt '{}' '{}'", gt, src, t / "gltf-transform-meshopt.glb"),
       "EXT_meshopt_compression", 1e-2f},
      {"gltf-transform-draco", fmt::format("'{}' draco '{}' '{}'", gt, src, t / "gltf-transform-draco.glb"),
       "KHR_draco_mesh_compression", 1e-2f},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string out;
    ASSERT_EQ(node(c.args, out), 0) << out;
    const std::string file = t / (c.name + ".glb");
    std::ifstream f(file, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(glb_json(bytes)["extensionsRequired"].dump().find(c.ext) != std::string::npos, true);
    Diagnostics d;
    const Scene s = read_memory(bytes, Format::Glb, file, &d);
    ASSERT_EQ(s.meshes.size(), orig.meshes.size());
    for (size_t m = 0; m < s.meshes.size(); ++m) {
      EXPECT_EQ(s.meshes[m].triangles.size(), orig.meshes[m].triangles.size());
      Scene a, b;  // the meshes alone, compared as models
      a.meshes = {orig.meshes[m]};
      b.meshes = {s.meshes[m]};
      a.meshes[0].material = b.meshes[0].material = -1;
      a.meshes[0].name = b.meshes[0].name = "m";  // gltfpack drops mesh names
      if (c.tol > 0) {
        EXPECT_EQ(diffs(a, b, c.tol), "") << "mesh " << m;
      } else {
        const Bounds ba = scene_bounds(a), bb = scene_bounds(b);
        for (int k = 0; k < 3; ++k) {
          EXPECT_NEAR(ba.min[k], bb.min[k], 1e-3f);
          EXPECT_NEAR(ba.max[k], bb.max[k], 1e-3f);
        }
      }
    }
    EXPECT_EQ(s.joints.size(), orig.joints.size());
    EXPECT_EQ(s.animations.size(), orig.animations.size());
  }
}

}  // namespace meshport_test_gltf_compression
