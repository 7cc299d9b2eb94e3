// glTF writer: materials (pbrMetallicRoughness, base colour), textures and images.
#include "formats/gltf_write.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>

namespace meshport::gltf::write_impl {

namespace {

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

// ---- Materials -----------------------------------------------------------------------------

enum class ImageKind { None, Png, Jpeg };

ImageKind image_kind(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  unsigned char b[8] = {};
  f.read(reinterpret_cast<char*>(b), 8);
  if (f.gcount() >= 8 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') return ImageKind::Png;
  if (f.gcount() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return ImageKind::Jpeg;
  return ImageKind::None;
}

// The image URI for a material's texture, or nothing (with a warning saying why).
std::optional<std::pair<std::string, ImageKind>> texture_uri(Writer& w, const Material& m) {
  namespace fs = std::filesystem;
  const std::string& tex = m.base_color_texture;
  auto skip = [&](const std::string& why) -> std::optional<std::pair<std::string, ImageKind>> {
    wwarn(w.diags, fmt::format("material '{}': texture '{}' not referenced: {}", m.name, tex, why));
    return std::nullopt;
  };
  if (tex.find("://") != std::string::npos || tex.rfind("data:", 0) == 0) return skip("only files are referenced");
  if (!ends_with_ci(tex, ".png") && !ends_with_ci(tex, ".jpg") && !ends_with_ci(tex, ".jpeg"))
    return skip("glTF images are PNG or JPEG");
  if (w.output_dir.empty()) return skip("writing to memory, there is no folder to reference it from");
  std::string rel = tex;
  std::replace(rel.begin(), rel.end(), '\\', '/');
  std::error_code ec;
  const fs::path base = w.options.texture_dir.empty() ? fs::path(".") : fs::path(w.options.texture_dir);
  const fs::path file = fs::absolute(base / fs::path(rel), ec).lexically_normal();
  if (ec || !fs::is_regular_file(file, ec))
    return skip(fmt::format("no such file in the texture folder '{}'", base.string()));
  const ImageKind kind = image_kind(file);
  if (kind == ImageKind::None) return skip("the file is not a PNG or JPEG image");
  const fs::path out = fs::absolute(fs::path(w.output_dir), ec).lexically_normal();
  fs::path r = ec ? fs::path() : file.lexically_relative(out);
  if (r.empty()) return skip("it cannot be reached by a relative path from the output folder");
  return std::make_pair(uri_encode(r.generic_string()), kind);
}

}  // namespace

json emit_materials(Writer& w) {
  const Scene& s = w.scene;
  // A material's texture needs texture coordinates in every mesh that uses it.
  std::vector<std::string> lacking(s.materials.size());
  for (const Mesh& m : s.meshes)
    if (written(m) && m.material >= 0 && !m.find(Attribute::Texcoord) && lacking[size_t(m.material)].empty())
      lacking[size_t(m.material)] = m.name.empty() ? std::string("(unnamed)") : m.name;
  json materials = json::array();
  json images = json::array();
  json textures = json::array();
  std::vector<std::string> image_uris;
  for (size_t i = 0; i < s.materials.size(); ++i) {
    const Material& m = s.materials[i];
    json pbr = {{"metallicFactor", 0.0}};
    if (m.base_color != std::array<float, 4>{1, 1, 1, 1}) {
      json factor = json::array();
      for (float c : m.base_color) factor.push_back(std::isfinite(c) ? num(std::clamp(c, 0.0f, 1.0f)) : json(1.0));
      pbr["baseColorFactor"] = std::move(factor);
    }
    if (!m.base_color_texture.empty()) {
      if (!lacking[i].empty()) {
        wwarn(w.diags, fmt::format("material '{}': texture '{}' not referenced: mesh '{}' has no texture coordinates",
                                   m.name, m.base_color_texture, lacking[i]));
      } else if (auto uri = texture_uri(w, m)) {
        auto it = std::find(image_uris.begin(), image_uris.end(), uri->first);
        if (it == image_uris.end()) {
          image_uris.push_back(uri->first);
          images.push_back({{"uri", uri->first}, {"mimeType", uri->second == ImageKind::Png ? "image/png" : "image/jpeg"}});
          textures.push_back({{"source", images.size() - 1}});
          it = image_uris.end() - 1;
        }
        pbr["baseColorTexture"] = {{"index", size_t(it - image_uris.begin())}};
      }
    }
    json mat = json::object();
    if (!m.name.empty()) mat["name"] = w.text(m.name);
    mat["pbrMetallicRoughness"] = pbr;
    mat["extras"] = {{"meshport", {{"name", w.text(m.name)}, {"base_color_texture", w.text(m.base_color_texture)}}}};
    materials.push_back(std::move(mat));
  }
  if (!images.empty()) {
    w.root["images"] = std::move(images);
    w.root["textures"] = std::move(textures);
  }
  return materials;
}

}  // namespace meshport::gltf::write_impl
