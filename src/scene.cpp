#include <meshport/scene.h>

namespace meshport {

size_t Mesh::vertex_count() const {
  for (const auto& s : streams)
    if (s.attribute == Attribute::Position) return s.vertex_count();
  return streams.empty() ? 0 : streams.front().vertex_count();
}

const VertexStream* Mesh::find(Attribute a) const {
  for (const auto& s : streams)
    if (s.attribute == a) return &s;
  return nullptr;
}

VertexStream* Mesh::find(Attribute a) {
  for (auto& s : streams)
    if (s.attribute == a) return &s;
  return nullptr;
}

}  // namespace meshport
