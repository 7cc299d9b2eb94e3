#include <meshport/scene.h>

namespace meshport {

const char* attribute_name(Attribute a) {
  switch (a) {
    case Attribute::Position: return "position";
    case Attribute::Texcoord: return "texcoord";
    case Attribute::Normal: return "normal";
    case Attribute::Tangent: return "tangent";
    case Attribute::BlendIndices: return "blendindexes";
    case Attribute::BlendWeights: return "blendweights";
    case Attribute::Color: return "color";
    case Attribute::Custom: return "custom";
  }
  return "custom";
}

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
