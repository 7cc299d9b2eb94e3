// A .glb's JSON chunk, read and replaced, for tests that edit meshport's output the way another
// tool would.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace testutil {

inline nlohmann::json glb_json(const std::vector<uint8_t>& g) {
  uint32_t len = 0;
  std::memcpy(&len, g.data() + 12, 4);
  return nlohmann::json::parse(g.begin() + 20, g.begin() + 20 + len);
}

// `g` with its JSON chunk replaced by `doc` (the binary chunk kept).
inline std::vector<uint8_t> with_glb_json(const std::vector<uint8_t>& g, const nlohmann::json& doc) {
  uint32_t len = 0;
  std::memcpy(&len, g.data() + 12, 4);
  std::string text = doc.dump();
  while (text.size() % 4) text += ' ';
  std::vector<uint8_t> out(g.begin(), g.begin() + 12);
  auto u32 = [&](uint32_t v) {
    for (int k = 0; k < 4; ++k) out.push_back(uint8_t(v >> (8 * k)));
  };
  u32(uint32_t(text.size())), u32(0x4E4F534A);
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), g.begin() + 20 + len, g.end());
  const uint32_t total = uint32_t(out.size());
  std::memcpy(out.data() + 8, &total, 4);
  return out;
}

}  // namespace testutil
