// Seeds of fuzz_gltf_meshopt and fuzz_gltf_draco (fuzz/fuzz_gltf_compressed.cpp, which describes
// the input layouts): a 4 x 4 grid's positions, octahedral normals, triangle and index-sequence
// indices compressed with meshoptimizer, and the grid as a Draco mesh (lossless sequential and
// quantized edgebreaker), made with the packaged encoders.
//   make_compression_seeds DIR   writes DIR/gltf_meshopt/* and DIR/gltf_draco/*
#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>
#include <meshoptimizer.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

void put(const std::filesystem::path& p, const std::vector<uint8_t>& head, const uint8_t* data, size_t size) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
  f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_compression_seeds DIR\n");
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path mo = fs::path(argv[1]) / "gltf_meshopt", dr = fs::path(argv[1]) / "gltf_draco";
  fs::create_directories(mo);
  fs::create_directories(dr);
  std::vector<float> pos, nrm;
  std::vector<uint32_t> idx;
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      const float fx = float(x) * 0.5f, fy = float(y) * 0.25f;
      pos.insert(pos.end(), {fx, fy, std::sin(fx) * 0.3f});
      const float l = std::sqrt(1.0f + fx * fx);
      nrm.insert(nrm.end(), {-fx / l, 0.0f, 1.0f / l, 0.0f});
    }
  for (uint32_t y = 0; y < 3; ++y)
    for (uint32_t x = 0; x < 3; ++x) {
      const uint32_t a = y * 4 + x;
      idx.insert(idx.end(), {a, a + 1, a + 5, a, a + 5, a + 4});
    }
  // meshopt: [mode, stride, filter, count lo, count hi] + data
  std::vector<uint8_t> enc(4096);
  size_t n = meshopt_encodeVertexBuffer(enc.data(), enc.size(), pos.data(), 16, 12);
  put(mo / "positions", {0, 2, 0, 16, 0}, enc.data(), n);
  std::vector<uint8_t> oct(16 * 4);
  meshopt_encodeFilterOct(oct.data(), 16, 4, 8, nrm.data());
  n = meshopt_encodeVertexBuffer(enc.data(), enc.size(), oct.data(), 16, 4);
  put(mo / "octahedral", {0, 0, 1, 16, 0}, enc.data(), n);
  std::vector<uint8_t> ex(16 * 12);
  meshopt_encodeFilterExp(ex.data(), 16, 12, 15, pos.data());
  n = meshopt_encodeVertexBuffer(enc.data(), enc.size(), ex.data(), 16, 12);
  put(mo / "exponential", {0, 2, 3, 16, 0}, enc.data(), n);
  meshopt_encodeIndexVersion(1);
  n = meshopt_encodeIndexBuffer(enc.data(), enc.size(), idx.data(), idx.size());
  put(mo / "triangles", {1, 0, 0, uint8_t(idx.size()), 0}, enc.data(), n);
  n = meshopt_encodeIndexSequence(enc.data(), enc.size(), idx.data(), idx.size());
  put(mo / "indices", {2, 1, 0, uint8_t(idx.size()), 0}, enc.data(), n);

  // Draco: [points lo, hi, corners lo, hi] + data; attributes 0..4 as the target expects.
  for (int quantized = 0; quantized < 2; ++quantized) {
    draco::Mesh m;
    m.set_num_points(16);
    std::vector<float> uv, w;
    std::vector<uint8_t> j;
    for (int i = 0; i < 16; ++i) {
      uv.insert(uv.end(), {float(i % 4) / 3.0f, float(i / 4) / 3.0f});
      j.insert(j.end(), {0, 1, 0, 0});
      w.insert(w.end(), {1.0f - float(i / 4) / 3.0f, float(i / 4) / 3.0f, 0.0f, 0.0f});
    }
    std::vector<float> n3;
    for (int i = 0; i < 16; ++i) n3.insert(n3.end(), {nrm[i * 4], nrm[i * 4 + 1], nrm[i * 4 + 2]});
    auto add = [&](draco::GeometryAttribute::Type t, int comps, draco::DataType dt, const void* data) {
      draco::GeometryAttribute ga;
      ga.Init(t, nullptr, uint8_t(comps), dt, false, int64_t(comps) * draco::DataTypeLength(dt), 0);
      const int id = m.AddAttribute(ga, true, 16);
      const size_t es = size_t(comps) * size_t(draco::DataTypeLength(dt));
      for (uint32_t i = 0; i < 16; ++i)
        m.attribute(id)->SetAttributeValue(draco::AttributeValueIndex(i), static_cast<const uint8_t*>(data) + i * es);
    };
    add(draco::GeometryAttribute::POSITION, 3, draco::DT_FLOAT32, pos.data());
    add(draco::GeometryAttribute::NORMAL, 3, draco::DT_FLOAT32, n3.data());
    add(draco::GeometryAttribute::TEX_COORD, 2, draco::DT_FLOAT32, uv.data());
    add(draco::GeometryAttribute::GENERIC, 4, draco::DT_UINT8, j.data());
    add(draco::GeometryAttribute::GENERIC, 4, draco::DT_FLOAT32, w.data());
    for (size_t f = 0; f < idx.size() / 3; ++f)
      m.AddFace({draco::PointIndex(idx[f * 3]), draco::PointIndex(idx[f * 3 + 1]), draco::PointIndex(idx[f * 3 + 2])});
    draco::Encoder e;
    if (quantized) {
      e.SetEncodingMethod(draco::MESH_EDGEBREAKER_ENCODING);
      e.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 14);
      e.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, 10);
      e.SetAttributeQuantization(draco::GeometryAttribute::TEX_COORD, 12);
    } else {
      e.SetEncodingMethod(draco::MESH_SEQUENTIAL_ENCODING);
    }
    draco::EncoderBuffer b;
    if (!e.EncodeMeshToBuffer(m, &b).ok()) return 1;
    put(dr / (quantized ? "edgebreaker" : "sequential"), {16, 0, uint8_t(idx.size()), 0},
        reinterpret_cast<const uint8_t*>(b.data()), b.size());
  }
  return 0;
}
