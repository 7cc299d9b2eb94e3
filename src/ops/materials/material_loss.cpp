// Warnings for glTF-only material data other formats cannot keep (material_loss.h).
#include "ops/materials/material_loss.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace meshport::ops {

namespace {
std::string joined(const std::vector<std::string>& v) {
  std::string r;
  for (const std::string& s : v) r += (r.empty() ? "" : ", ") + s;
  return r;
}
}  // namespace

std::vector<std::string> gltf_only_material_data(const Material& m, const MaterialKeeps& keeps) {
  std::vector<std::string> out;
  if (!m.metallic_roughness_texture.texture.empty()) out.push_back("metallic-roughness texture");
  if (!m.occlusion_texture.texture.empty()) out.push_back("occlusion texture");
  if (!m.emissive_texture.texture.empty() && !keeps.emissive_texture) out.push_back("emissive texture");
  if (m.double_sided) out.push_back("double-sided");
  if (!m.gltf_extensions.empty()) {
    const nlohmann::json e = nlohmann::json::parse(m.gltf_extensions, nullptr, false);
    if (e.is_object()) {
      for (const auto& [name, v] : e.items()) {
        (void)v;
        constexpr std::string_view prefix = "KHR_materials_";
        out.push_back(name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name);
      }
    } else {
      out.push_back("glTF extensions");
    }
  }
  if (!m.gltf_extras.empty()) out.push_back("glTF extras");
  for (const auto& [slot, smp] : m.samplers)
    if (smp.wrap_s != 10497 || smp.wrap_t != 10497) {
      out.push_back("texture wrap modes (clamp or mirror)");
      break;
    }
  return out;
}

void warn_material_data_not_kept(const Scene& scene, std::string_view format, const MaterialKeeps& keeps,
                                 Diagnostics& diags) {
  std::vector<bool> used(scene.materials.size(), false);
  bool variants = false;
  for (const Mesh& m : scene.meshes) {
    if (m.material >= 0 && size_t(m.material) < used.size()) used[size_t(m.material)] = true;
    variants = variants || !m.material_variants.empty();
  }
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    if (!used[i]) continue;
    const std::vector<std::string> lost = gltf_only_material_data(scene.materials[i], keeps);
    if (!lost.empty())
      diags.add(warning("", fmt::format("material '{}': {} not kept by {}", scene.materials[i].name,
                                        joined(lost), format)));
  }
  if (variants && !scene.material_variants.empty()) {
    std::vector<std::string> names;
    for (const std::string& v : scene.material_variants) names.push_back("'" + v + "'");
    diags.add(warning("", fmt::format("material variants {} not kept by {}: each mesh keeps its default material",
                                      joined(names), format)));
  }
}

}  // namespace meshport::ops
