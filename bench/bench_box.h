// A closed box mesh for the benchmarks that need a solid (modes, simulate).
#pragma once

#include <meshport/scene.h>

#include <array>
#include <cstdint>
#include <utility>

namespace meshport::bench {

// The box from `lo` to `hi`: 8 vertices, 12 triangles facing out.
inline Scene box_scene(const std::array<float, 3>& lo, const std::array<float, 3>& hi) {
  Mesh m;
  m.name = "box";
  VertexStream p;
  p.attribute = Attribute::Position;
  p.components = 3;
  for (int i = 0; i < 8; ++i)
    p.data.insert(p.data.end(), {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]});
  m.streams.push_back(std::move(p));
  const int f[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : f)
    m.triangles.insert(m.triangles.end(), {uint32_t(q[0]), uint32_t(q[1]), uint32_t(q[2]), uint32_t(q[0]),
                                           uint32_t(q[2]), uint32_t(q[3])});
  Scene s;
  s.meshes.push_back(std::move(m));
  return s;
}

}  // namespace meshport::bench
