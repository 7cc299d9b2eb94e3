#include "ops/mesh/face_channels.h"

#include <algorithm>
#include <vector>

namespace meshport::ops {

bool face_channels_fit(const Mesh& m) {
  const size_t tris = m.triangles.size() / 3;
  return std::all_of(m.face_channels.begin(), m.face_channels.end(), [&](const FaceChannel& c) {
    return c.components > 0 && c.data.size() == tris * c.components;
  });
}

void select_face_channels(Mesh& m, std::span<const uint32_t> source) {
  uint32_t highest = 0;
  for (uint32_t t : source) highest = std::max(highest, t);
  std::erase_if(m.face_channels, [&](const FaceChannel& c) {
    return c.components == 0 || c.data.size() % c.components != 0 || (!source.empty() && highest >= c.face_count());
  });
  for (FaceChannel& c : m.face_channels) {
    std::vector<uint32_t> out(source.size() * c.components);
    auto o = out.begin();
    for (uint32_t t : source) o = std::copy_n(c.data.begin() + ptrdiff_t(size_t(t) * c.components), c.components, o);
    c.data = std::move(out);
  }
}

}  // namespace meshport::ops
