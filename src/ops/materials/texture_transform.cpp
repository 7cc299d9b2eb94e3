// Baking texture coordinate transforms into texture coordinates (texture_transform.h).
#include "ops/materials/texture_transform.h"

#include "ops/mesh/components.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace meshport::ops {

namespace {

// A slot's mapping: the set it samples and its transform without the set override.
struct Mapping {
  uint32_t set = 0;
  TextureTransform transform;
  bool operator==(const Mapping&) const = default;
  bool as_is() const { return set == 0 && transform.is_identity(); }
};

Mapping mapping(uint32_t slot_set, const TextureTransform& t) {
  Mapping m;
  m.set = t.set(slot_set);
  m.transform = t;
  m.transform.texcoord = -1;
  return m;
}

// The stream holding texture coordinate set `set` of the mesh (scene.h, TextureTransform).
VertexStream* set_stream(Mesh& m, uint32_t set) {
  if (set == 0) return m.find(Attribute::Texcoord);
  const std::string name = fmt::format("texcoord{}", set);
  for (VertexStream& s : m.streams)
    if (s.attribute == Attribute::Custom && s.name == name && s.components >= 2) return &s;
  return nullptr;
}

std::string mesh_label(const Mesh& m) { return m.name.empty() ? std::string("(unnamed)") : m.name; }

// uv' = offset + R * (scale * uv), R = [cos r, sin r; -sin r, cos r] (row-major), in double.
void transform_uvs(VertexStream& s, const TextureTransform& t) {
  const double c = std::cos(double(t.rotation)), sn = std::sin(double(t.rotation));
  const size_t nv = s.vertex_count();
  for (size_t v = 0; v < nv; ++v) {
    float* p = &s.data[v * s.components];
    const double u = double(t.scale[0]) * p[0], w = double(t.scale[1]) * p[1];
    p[0] = float(double(t.offset[0]) + c * u + sn * w);
    p[1] = float(double(t.offset[1]) - sn * u + c * w);
  }
  if (is_integer(s.format)) s.format = ComponentType::Float;
}

void bake_mesh(Mesh& m, const Material& mat, const Mapping& base, Diagnostics& d) {
  VertexStream* src = set_stream(m, base.set);
  if (!src) {
    d.add(warning("", fmt::format("mesh '{}': material '{}' maps its base colour texture through texture coordinate "
                                  "set {}, which the mesh does not have: its texture coordinates are not transformed",
                                  mesh_label(m), mat.name, base.set)));
    return;
  }
  if (base.set == 0) {
    transform_uvs(*src, base.transform);
    return;
  }
  VertexStream uv;
  uv.attribute = Attribute::Texcoord;
  uv.format = ComponentType::Float;
  uv.source_size = uv.components = 2;
  const size_t nv = src->vertex_count();
  uv.data.resize(nv * 2);
  for (size_t v = 0; v < nv; ++v)
    uv.data[v * 2] = src->data[v * src->components], uv.data[v * 2 + 1] = src->data[v * src->components + 1];
  transform_uvs(uv, base.transform);
  if (VertexStream* old = m.find(Attribute::Texcoord)) {
    d.add(warning("", fmt::format("mesh '{}': material '{}' maps its base colour texture through texture coordinate "
                                  "set {}: it becomes the mesh's texture coordinates, set 0 is kept as the custom "
                                  "array 'texcoord0'",
                                  mesh_label(m), mat.name, base.set)));
    VertexStream kept = std::exchange(*old, std::move(uv));
    kept.attribute = Attribute::Custom;
    kept.name = "texcoord0";
    kept.custom_slot = -1;
    m.streams.push_back(std::move(kept));
    return;
  }
  // Before the first stream that sorts after texture coordinates (readers' order).
  auto at = std::find_if(m.streams.begin(), m.streams.end(),
                         [](const VertexStream& s) { return s.attribute > Attribute::Texcoord; });
  m.streams.insert(at, std::move(uv));
}

}  // namespace

bool has_texture_transforms(const Scene& scene) {
  return std::any_of(scene.materials.begin(), scene.materials.end(), [](const Material& m) {
    return !mapping(m.base_color_texcoord, m.base_color_transform).as_is() ||
           !mapping(m.normal_texcoord, m.normal_transform).as_is() ||
           !mapping(m.specular_texcoord, m.specular_transform).as_is() ||
           (!m.emissive_texture.texture.empty() &&
            !mapping(m.emissive_texture.texcoord, m.emissive_texture.transform).as_is());
  });
}

bool base_color_mapped(const Material& m) { return !mapping(m.base_color_texcoord, m.base_color_transform).as_is(); }

void bake_texture_transforms(Scene& scene, Diagnostics& diags) {
  bake_texture_transforms(scene, std::vector<bool>(scene.materials.size(), true), diags);
}

void bake_texture_transforms(Scene& scene, const std::vector<bool>& only, Diagnostics& diags) {
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    if (i >= only.size() || !only[i]) continue;
    Material& mat = scene.materials[i];
    const Mapping base = mapping(mat.base_color_texcoord, mat.base_color_transform);
    if (!base.as_is())
      for (Mesh& m : scene.meshes)
        if (m.material == int32_t(i)) bake_mesh(m, mat, base, diags);
    struct Other {
      const char* name;
      const std::string& texture;
      Mapping map;
    };
    for (const Other& o : {Other{"normal", mat.normal_texture, mapping(mat.normal_texcoord, mat.normal_transform)},
                           Other{"specular", mat.specular_texture,
                                 mapping(mat.specular_texcoord, mat.specular_transform)},
                           Other{"emissive", mat.emissive_texture.texture,
                                 mapping(mat.emissive_texture.texcoord, mat.emissive_texture.transform)}})
      if (!(o.map == base) && !o.texture.empty())
        diags.add(warning("", fmt::format("material '{}': the {} texture is mapped differently from the base colour "
                                          "texture (texture coordinate set or KHR_texture_transform); only the base "
                                          "colour's mapping is kept, in the texture coordinates",
                                          mat.name, o.name)));
    mat.base_color_texcoord = mat.normal_texcoord = mat.specular_texcoord = 0;
    mat.base_color_transform = mat.normal_transform = mat.specular_transform = TextureTransform{};
    mat.emissive_texture.texcoord = 0, mat.emissive_texture.transform = TextureTransform{};
  }
}

}  // namespace meshport::ops
