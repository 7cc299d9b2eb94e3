// glTF reader: materials (name, base colour, the base colour texture's image), textures and images.
#include "formats/gltf_read.h"

namespace meshport::gltf::read_impl {

// ---- Materials -------------------------------------------------------------------------------

std::string texture_name(Reader& rd, uint32_t t) {
  const std::string tp = fmt::format("textures[{}]", t);
  const json& tex = rd.element("textures", t);
  rd.opt_index(tex, "sampler", tp, "samplers");
  std::optional<uint32_t> src = rd.opt_index(tex, "source", tp, "images");
  if (!src)
    if (const json* ext = field(tex, "extensions"); ext && ext->is_object())
      for (auto& [k, v] : ext->items())
        if (field(v, "source")) {
          src = rd.get_index(v, "source", fmt::format("{}.extensions.{}", tp, k), "images");
          break;
        }
  if (!src) return {};
  const std::string ip = fmt::format("images[{}]", *src);
  const json& img = rd.element("images", *src);
  rd.opt_index(img, "bufferView", ip, "bufferViews");
  std::string uri = rd.get_string(img, "uri", ip);
  if (!uri.empty() && uri.compare(0, 5, "data:") != 0) return percent_decode(uri);
  return rd.get_string(img, "name", ip);
}

void read_materials(Reader& rd) {
  const json& mats = rd.top("materials");
  for (size_t i = 0; i < mats.size(); ++i) {
    const std::string path = fmt::format("materials[{}]", i);
    const json& m = rd.object_at(mats, i, path);
    Material mat;
    mat.name = rd.get_string(m, "name", path);
    if (const json* pbr = field(m, "pbrMetallicRoughness")) {
      if (const json* bct = field(*pbr, "baseColorTexture")) {
        std::string bp = path + ".pbrMetallicRoughness.baseColorTexture";
        mat.base_color_texture = texture_name(rd, rd.get_index(*bct, "index", bp, "textures"));
      }
      rd.get_floats(*pbr, "baseColorFactor", path + ".pbrMetallicRoughness", mat.base_color.data(), 4);
    }
    if (const json* mp = meshport_extras(m)) {
      try {
        const std::string xp = path + ".extras.meshport";
        std::string name = rd.get_string(*mp, "name", xp), tex = rd.get_string(*mp, "base_color_texture", xp);
        mat.name = std::move(name);
        mat.base_color_texture = std::move(tex);
      } catch (const Error& e) {
        rd.warn(fmt::format("{}; ignored", e.diagnostic().message));
      }
    }
    rd.scene.materials.push_back(std::move(mat));
  }
  // Every texture's and image's indices are checked, used or not.
  const json& texs = rd.top("textures");
  for (size_t t = 0; t < texs.size(); ++t) texture_name(rd, uint32_t(t));
  const json& imgs = rd.top("images");
  for (size_t i = 0; i < imgs.size(); ++i) {
    const std::string ip = fmt::format("images[{}]", i);
    rd.opt_index(rd.object_at(imgs, i, ip), "bufferView", ip, "bufferViews");
  }
}

}  // namespace meshport::gltf::read_impl
