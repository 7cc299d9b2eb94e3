#include "ops/mesh/axes.h"

#include <utility>

namespace meshport::axes {

void stream_zup_to_scene(VertexStream& s) {
  if (s.components < 3) return;
  for (size_t i = 0; i + s.components <= s.data.size(); i += s.components) {
    float y = s.data[i + 1];
    s.data[i + 1] = s.data[i + 2];
    s.data[i + 2] = -y;
  }
}

void stream_scene_to_zup(VertexStream& s) {
  if (s.components < 3) return;
  for (size_t i = 0; i + s.components <= s.data.size(); i += s.components) {
    float y = s.data[i + 1];
    s.data[i + 1] = -s.data[i + 2];
    s.data[i + 2] = y;
  }
}

}  // namespace meshport::axes
