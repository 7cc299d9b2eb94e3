// Distinct material strings for formats that key materials by name (material_names.h).
#include "ops/materials/material_names.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace meshport::ops {

namespace {

// "skin.png", 2 -> "skin_2.png"; "metal", 2 -> "metal_2"
std::string numbered(const std::string& s, size_t k, bool texture) {
  const size_t dot = s.rfind('.');
  const size_t slash = s.find_last_of("/\\");
  if (!texture || dot == std::string::npos || dot == 0 || (slash != std::string::npos && dot < slash))
    return fmt::format("{}_{}", s, k);
  return fmt::format("{}_{}{}", s.substr(0, dot), k, s.substr(dot));
}

}  // namespace

std::vector<std::string> material_keys(const Scene& scene, size_t* renamed) {
  std::vector<std::string> keys;
  keys.reserve(scene.materials.size());
  std::set<std::string> taken;
  std::map<std::string, std::string> texture_key;  // unnamed materials' texture -> the key it got
  size_t count = 0;
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& m = scene.materials[i];
    const bool unnamed = m.name.empty();
    const bool by_texture = unnamed && !m.base_color_texture.empty();
    if (by_texture)
      if (auto it = texture_key.find(m.base_color_texture); it != texture_key.end()) {
        keys.push_back(it->second);
        continue;
      }
    std::string key = !unnamed ? m.name : by_texture ? m.base_color_texture : fmt::format("material{}", i);
    if (taken.count(key)) {
      std::string next;
      for (size_t k = 2; taken.count(next = numbered(key, k, by_texture)); ++k) {
      }
      key = std::move(next);
      ++count;
    }
    taken.insert(key);
    if (by_texture) texture_key[m.base_color_texture] = key;
    keys.push_back(std::move(key));
  }
  if (renamed) *renamed = count;
  return keys;
}

}  // namespace meshport::ops
