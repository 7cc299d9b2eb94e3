// Tests: a glTF document built in code (JSON plus one binary buffer), written as .gltf text with
// a data URI or as .glb bytes. Shared by the glTF test files.
#pragma once

#include "test_util.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace testutil {

using json = nlohmann::json;

template <class T>
inline std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  return std::vector<uint8_t>(p, p + v.size() * sizeof(T));
}

inline uint32_t type_size(const std::string& t) {
  if (t == "SCALAR") return 1;
  if (t == "VEC2") return 2;
  if (t == "VEC3") return 3;
  if (t == "VEC4") return 4;
  if (t == "MAT4") return 16;
  return 0;
}

// A glTF document under construction: JSON plus one binary buffer.
struct GltfBuilder {
  json doc;
  std::vector<uint8_t> bin;

  GltfBuilder() { doc["asset"] = {{"version", "2.0"}}; }

  size_t view(const std::vector<uint8_t>& b, uint32_t stride = 0) {
    while (bin.size() % 4) bin.push_back(0);
    size_t off = bin.size();
    bin.insert(bin.end(), b.begin(), b.end());
    json v = {{"buffer", 0}, {"byteOffset", off}, {"byteLength", b.size()}};
    if (stride) v["byteStride"] = stride;
    doc["bufferViews"].push_back(v);
    return doc["bufferViews"].size() - 1;
  }
  size_t accessor(json a) {
    doc["accessors"].push_back(std::move(a));
    return doc["accessors"].size() - 1;
  }
  template <class T>
  size_t add(const std::vector<T>& v, int ct, const std::string& type, bool normalized = false) {
    size_t count = v.size() / type_size(type);
    json a = {{"bufferView", view(bytes_of(v))}, {"componentType", ct}, {"type", type}, {"count", count}};
    if (normalized) a["normalized"] = true;
    return accessor(a);
  }
  size_t floats(const std::vector<float>& v, const std::string& type) { return add(v, 5126, type); }
  size_t ushorts(const std::vector<uint16_t>& v) { return add(v, 5123, "SCALAR"); }

  size_t mesh(json prims, const std::string& name = "") {
    json m = {{"primitives", prims}};
    if (!name.empty()) m["name"] = name;
    doc["meshes"].push_back(m);
    return doc["meshes"].size() - 1;
  }
  size_t node(json n) {
    doc["nodes"].push_back(std::move(n));
    return doc["nodes"].size() - 1;
  }
  void scene(json roots) { doc["scenes"] = json::array({{{"nodes", roots}}}), doc["scene"] = 0; }

  json with_buffer(const std::string& mime = "application/octet-stream") const {
    json d = doc;
    if (!bin.empty())
      d["buffers"] = json::array({{{"byteLength", bin.size()}, {"uri", "data:" + mime + ";base64," + testutil::base64(bin)}}});
    return d;
  }
  std::string gltf(const std::string& mime = "application/octet-stream") const { return with_buffer(mime).dump(); }
  std::vector<uint8_t> glb() const {
    json d = doc;
    if (!bin.empty()) d["buffers"] = json::array({{{"byteLength", bin.size()}}});
    return make_glb(d.dump(), bin);
  }
  static std::vector<uint8_t> make_glb(std::string text, std::vector<uint8_t> b) {
    while (text.size() % 4) text += ' ';
    while (b.size() % 4) b.push_back(0);
    std::vector<uint8_t> out;
    auto u32 = [&](uint32_t v) {
      for (int k = 0; k < 4; ++k) out.push_back(uint8_t(v >> (8 * k)));
    };
    uint32_t total = 12 + 8 + uint32_t(text.size()) + (b.empty() ? 0 : 8 + uint32_t(b.size()));
    u32(0x46546C67), u32(2), u32(total);
    u32(uint32_t(text.size())), u32(0x4E4F534A);
    out.insert(out.end(), text.begin(), text.end());
    if (!b.empty()) {
      u32(uint32_t(b.size())), u32(0x004E4942);
      out.insert(out.end(), b.begin(), b.end());
    }
    return out;
  }
};

}  // namespace testutil
