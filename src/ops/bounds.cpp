#include "ops/bounds.h"

#include <algorithm>

namespace meshport {

namespace ops {

Bounds rest_bounds(const Scene& scene) {
  Bounds b;
  for (const auto& m : scene.meshes) {
    const VertexStream* p = m.find(Attribute::Position);
    if (!p) continue;
    for (size_t v = 0, n = p->vertex_count(); v < n; ++v)
      for (uint32_t c = 0; c < 3; ++c) {
        float x = p->get(v, c);
        if (b.empty) b.min[c] = b.max[c] = x;
        b.min[c] = std::min(b.min[c], x);
        b.max[c] = std::max(b.max[c], x);
        if (c == 2) b.empty = false;
      }
  }
  return b;
}

}  // namespace ops

Bounds scene_bounds(const Scene& scene) { return ops::rest_bounds(scene); }

}  // namespace meshport
