#include <meshport/scene.h>

#include <bit>
#include <cstring>
#include <type_traits>

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

const char* alpha_mode_name(AlphaMode m) {
  switch (m) {
    case AlphaMode::Opaque: return "OPAQUE";
    case AlphaMode::Mask: return "MASK";
    case AlphaMode::Blend: return "BLEND";
  }
  return "OPAQUE";
}

const char* blend_op_name(BlendOp b) {
  switch (b) {
    case BlendOp::Over: return "over";
    case BlendOp::Additive: return "additive";
    case BlendOp::Premultiplied: return "premultiplied";
  }
  return "over";
}

bool is_format_stream(const VertexStream& s) {
  if (s.attribute != Attribute::Custom) return false;
  for (const char* prefix : {"pie.", "qmsh.", "iqm.", "iqe.", "modedef.", "obj.", "gltf."})
    if (s.name.starts_with(prefix)) return true;
  return false;
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

const FaceChannel* Mesh::find_channel(std::string_view name) const {
  for (const auto& c : face_channels)
    if (c.name == name) return &c;
  return nullptr;
}

FaceChannel* Mesh::find_channel(std::string_view name) {
  for (auto& c : face_channels)
    if (c.name == name) return &c;
  return nullptr;
}

namespace {

// A 64-bit hash of the bytes of every value (8 bytes at a time: xor, multiply, xor-shift), with
// lengths before sequences so that moving a value from one vector to the next changes it. It
// detects change, nothing more: the input cannot choose what processing does to the Scene.
struct Hasher {
  uint64_t h = 0xcbf29ce484222325ull;
  void word(uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, b + i, 8);
      word(w);
    }
    uint64_t tail = 0;
    if (n > i) std::memcpy(&tail, b + i, n - i);  // b is null for an empty vector
    word(tail ^ (uint64_t(n - i) << 56));
  }
  template <class T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void add(T v) {
    bytes(&v, sizeof v);
  }
  void add(const std::string& s) {
    add(uint64_t(s.size()));
    bytes(s.data(), s.size());
  }
  template <class T, size_t N>
  void add(const std::array<T, N>& a) {
    for (const T& v : a) add(v);
  }
  template <class T>
  void add(const std::vector<T>& v) {
    add(uint64_t(v.size()));
    if constexpr (std::is_arithmetic_v<T>)
      bytes(v.data(), v.size() * sizeof(T));
    else
      for (const T& x : v) add(x);
  }
  void add(const Transform& t) {
    add(t.translation);
    add(t.rotation);
    add(t.scale);
  }
  void add(const VertexStream& s) {
    add(s.attribute), add(s.name), add(s.custom_slot), add(s.format), add(s.source_size), add(s.components);
    add(s.data);
  }
  void add(const SmoothingRules& r) {
    add(r.face_group), add(r.face_angle), add(r.face_uv), add(r.corner_edge), add(r.vertex_key);
  }
  void add(const MorphTarget& t) { add(t.name), add(t.positions), add(t.normals), add(t.tangents); }
  void add(const FaceChannel& c) { add(c.name), add(c.components), add(c.data); }
  void add(const Mesh& m) {
    add(m.name), add(m.material), add(m.streams), add(m.triangles), add(m.polygon_sizes);
    add(m.smoothing), add(m.morph_targets), add(m.morph_weights), add(m.face_channels), add(m.topology);
    add(m.instances);
  }
  void add(const Material& m) {
    add(m.name), add(m.base_color_texture), add(m.base_color), add(m.normal_texture), add(m.specular_texture);
    add(m.team_colour_texture), add(m.emissive), add(m.metallic), add(m.roughness);
    add(m.base_color_texcoord), add(m.normal_texcoord), add(m.specular_texcoord);
    add(m.base_color_transform), add(m.normal_transform), add(m.specular_transform);
    add(m.alpha_mode), add(m.alpha_cutoff), add(m.blend);
  }
  void add(const TextureTransform& t) { add(t.offset), add(t.rotation), add(t.scale), add(t.texcoord); }
  void add(const Joint& j) { add(j.name), add(j.parent), add(j.rest); }
  void add(const MorphWeightTrack& t) { add(t.mesh), add(t.times), add(t.weights); }
  void add(const Animation& a) {
    add(a.name), add(a.framerate), add(a.loop), add(a.interpolation), add(a.channels);
    add(a.poses), add(a.times), add(a.morph_weights);
  }
  void add(const Attachment& a) { add(a.name), add(a.mesh), add(a.joint), add(a.transform); }
};

}  // namespace

uint64_t content_fingerprint(const Scene& scene) {
  Hasher h;
  h.add(scene.meshes);
  h.add(scene.materials);
  h.add(scene.joints);
  h.add(scene.animations);
  h.add(scene.attachments);
  h.add(scene.comment);
  return h.h;
}

}  // namespace meshport
