// libFuzzer targets for the decoders of compressed glTF data (issue 18), compiled twice
// (fuzz/CMakeLists.txt):
//   fuzz_gltf_meshopt (MESHPORT_FUZZ_DRACO=0): the input is one EXT_meshopt_compression view:
//     byte 0 the mode (ATTRIBUTES, TRIANGLES, INDICES), byte 1 the stride (ATTRIBUTES: 4 to 256
//     in steps of 4; else 2 or 4), byte 2 the filter (NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL),
//     bytes 3-4 the element count, the rest the compressed data. The view is a primitive's
//     POSITION (ATTRIBUTES) or its indices.
//   fuzz_gltf_draco (MESHPORT_FUZZ_DRACO=1): the input is a KHR_draco_mesh_compression
//     primitive: bytes 0-1 the accessors' point count, bytes 2-3 the index count (0: none), the
//     rest the Draco data, whose attributes 0..4 are POSITION, NORMAL, TEXCOORD_0, JOINTS_0
//     (ubyte) and WEIGHTS_0.
// The .glb around the bytes is built here; reading it must give a Scene or throw
// meshport::Error. Seeds: fuzz/make_compression_seeds.cpp.
#include <meshport/meshport.h>

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#ifndef MESHPORT_FUZZ_DRACO
#error "MESHPORT_FUZZ_DRACO must be 0 (meshopt) or 1 (Draco)"
#endif

namespace {

std::vector<uint8_t> glb(std::string text, std::vector<uint8_t> bin) {
  while (text.size() % 4) text += ' ';
  while (bin.size() % 4) bin.push_back(0);
  std::vector<uint8_t> out;
  auto u32 = [&](uint32_t v) {
    for (int k = 0; k < 4; ++k) out.push_back(uint8_t(v >> (8 * k)));
  };
  u32(0x46546C67), u32(2), u32(uint32_t(28 + text.size() + bin.size()));
  u32(uint32_t(text.size())), u32(0x4E4F534A);
  out.insert(out.end(), text.begin(), text.end());
  u32(uint32_t(bin.size())), u32(0x004E4942);
  out.insert(out.end(), bin.begin(), bin.end());
  return out;
}

// Three float positions, the plain data of the indices' primitive.
const float kTriangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

std::vector<uint8_t> meshopt_glb(const uint8_t* data, size_t size) {
  if (size < 5) return {};
  static const char* modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
  static const char* filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
  const int mode = data[0] % 3;
  const uint32_t stride = mode == 0 ? 4u * (1u + data[1] % 64u) : (data[1] & 1) ? 4u : 2u;
  const char* filter = filters[data[2] % 4];
  const uint32_t count = uint32_t(data[3]) | uint32_t(data[4]) << 8;
  std::vector<uint8_t> bin(reinterpret_cast<const uint8_t*>(kTriangle), reinterpret_cast<const uint8_t*>(kTriangle) + 36);
  bin.insert(bin.end(), data + 5, data + size);
  const uint64_t len = uint64_t(count) * stride;
  std::string view = fmt::format(
      R"({{"buffer":1,"byteLength":{}{},"extensions":{{"EXT_meshopt_compression":{{"buffer":0,"byteOffset":36,)"
      R"("byteLength":{},"byteStride":{},"count":{},"mode":"{}","filter":"{}"}}}}}})",
      len, mode == 0 && stride <= 252 ? fmt::format(R"(,"byteStride":{})", stride) : "", size - 5, stride, count,
      modes[mode], filter);
  std::string accessors, prim;
  const uint32_t n = count ? count : 1;
  if (mode == 0) {
    const char* type = stride >= 12 ? "VEC3" : stride == 8 ? "VEC2" : "SCALAR";
    accessors = fmt::format(R"({{"bufferView":1,"componentType":5126,"type":"{}","count":{}}})", type, n);
    prim = R"({"attributes":{"POSITION":0}})";
  } else {
    accessors = fmt::format(
        R"({{"bufferView":0,"componentType":5126,"type":"VEC3","count":3}},)"
        R"({{"bufferView":1,"componentType":{},"type":"SCALAR","count":{}}})",
        stride == 2 ? 5123 : 5125, n);
    prim = R"({"attributes":{"POSITION":0},"indices":1})";
  }
  std::string text = fmt::format(
      R"({{"asset":{{"version":"2.0"}},"extensionsUsed":["EXT_meshopt_compression"],)"
      R"("extensionsRequired":["EXT_meshopt_compression"],)"
      R"("buffers":[{{"byteLength":{}}},{{"byteLength":{},"extensions":{{"EXT_meshopt_compression":{{"fallback":true}}}}}}],)"
      R"("bufferViews":[{{"buffer":0,"byteLength":36}},{}],"accessors":[{}],"meshes":[{{"primitives":[{}]}}]}})",
      bin.size(), len, view, accessors, prim);
  return glb(text, bin);
}

std::vector<uint8_t> draco_glb(const uint8_t* data, size_t size) {
  if (size < 4) return {};
  const uint32_t points = std::max(1u, uint32_t(data[0]) | uint32_t(data[1]) << 8);
  const uint32_t corners = uint32_t(data[2]) | uint32_t(data[3]) << 8;
  std::vector<uint8_t> bin(data + 4, data + size);
  auto acc = [&](int ct, const char* type, uint32_t count) {
    return fmt::format(R"({{"componentType":{},"type":"{}","count":{}}})", ct, type, count);
  };
  std::string accessors = acc(5126, "VEC3", points) + "," + acc(5126, "VEC3", points) + "," +
                          acc(5126, "VEC2", points) + "," + acc(5121, "VEC4", points) + "," + acc(5126, "VEC4", points);
  if (corners) accessors += "," + acc(5123, "SCALAR", corners);
  std::string text = fmt::format(
      R"({{"asset":{{"version":"2.0"}},"extensionsUsed":["KHR_draco_mesh_compression"],)"
      R"("extensionsRequired":["KHR_draco_mesh_compression"],"buffers":[{{"byteLength":{}}}],)"
      R"("bufferViews":[{{"buffer":0,"byteLength":{}}}],"accessors":[{}],"meshes":[{{"primitives":[{{)"
      R"("attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2,"JOINTS_0":3,"WEIGHTS_0":4}}{},)"
      R"("extensions":{{"KHR_draco_mesh_compression":{{"bufferView":0,"attributes":)"
      R"({{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2,"JOINTS_0":3,"WEIGHTS_0":4}}}}}}}}]}}]}})",
      bin.size(), bin.size(), accessors, corners ? R"(,"indices":5)" : "");
  return glb(text, bin);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> file = MESHPORT_FUZZ_DRACO ? draco_glb(data, size) : meshopt_glb(data, size);
  if (file.empty()) return 0;
  meshport::Diagnostics d;
  try {
    meshport::read_memory(file, meshport::Format::Glb, "fuzz.glb", &d);
  } catch (const meshport::Error&) {
  }
  return 0;
}
