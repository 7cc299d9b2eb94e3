#include "ops/mesh/axes.h"

#include <algorithm>
#include <utility>

namespace meshport::axes {

void stream_zup_to_scene(VertexStream& s, size_t first, size_t last) {
  if (s.components < 3) return;
  last = std::min(last, s.data.size() / s.components);
  for (size_t i = first * s.components; i < last * s.components; i += s.components) {
    float y = s.data[i + 1];
    s.data[i + 1] = s.data[i + 2];
    s.data[i + 2] = -y;
  }
}

void stream_zup_to_scene(VertexStream& s) { stream_zup_to_scene(s, 0, s.data.size()); }

void stream_scene_to_zup(VertexStream& s) {
  if (s.components < 3) return;
  for (size_t i = 0; i + s.components <= s.data.size(); i += s.components) {
    float y = s.data[i + 1];
    s.data[i + 1] = -s.data[i + 2];
    s.data[i + 2] = y;
  }
}

}  // namespace meshport::axes
