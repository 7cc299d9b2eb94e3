// Team colour baked into a texture page (ops/materials/team_colour.h).
#include "ops/materials/team_colour.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace meshport::ops {

std::string apply_team_colour(image::Pixels& page, const image::Pixels& mask, std::array<uint8_t, 3> team) {
  if (page.width == 0 || page.height == 0 || page.rgba.size() != size_t(page.width) * page.height * 4)
    return "the texture page has no pixels";
  if (mask.width == 0 || mask.height == 0 || mask.rgba.size() != size_t(mask.width) * mask.height * 4)
    return "the team colour mask has no pixels";
  for (uint32_t y = 0; y < page.height; ++y) {
    // The mask texel under this pixel's centre (same texture coordinates, nearest texel).
    const uint32_t my = uint32_t((uint64_t(y) * 2 + 1) * mask.height / (uint64_t(page.height) * 2));
    for (uint32_t x = 0; x < page.width; ++x) {
      const uint32_t mx = uint32_t((uint64_t(x) * 2 + 1) * mask.width / (uint64_t(page.width) * 2));
      const int alpha = mask.rgba[(size_t(my) * mask.width + mx) * 4 + 3];
      uint8_t* p = &page.rgba[(size_t(y) * page.width + x) * 4];
      for (int c = 0; c < 3; ++c) {
        // In 0..255 units: p + (team - 127.5) * alpha / 255, rounded to nearest.
        const double v = double(p[c]) + (double(team[size_t(c)]) - 127.5) * alpha / 255.0;
        p[c] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
      }
    }
  }
  return {};
}

bool parse_team_colour(const std::string& text, std::array<uint8_t, 3>& out) {
  const char* p = text.data();
  const char* end = p + text.size();
  for (size_t c = 0; c < 3; ++c) {
    unsigned v = 0;
    auto r = std::from_chars(p, end, v);
    if (r.ec != std::errc() || v > 255) return false;
    out[c] = uint8_t(v);
    p = r.ptr;
    if (c < 2) {
      if (p == end || *p != ',') return false;
      ++p;
    }
  }
  return p == end;
}

}  // namespace meshport::ops
