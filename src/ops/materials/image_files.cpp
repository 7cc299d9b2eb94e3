// Scene::images written beside an output (image_files.h).
#include "core/text.h"
#include "ops/materials/image_files.h"

#include "image/image.h"
#include "ops/materials/textures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace meshport::ops {

namespace {

enum class Kind { Base, Normal, Specular, TeamColour, Emissive };

bool page_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

// The number NN of a name starting "page-NN", or -1.
int page_number(std::string_view name) {
  if (name.substr(0, 5) != "page-") return -1;
  size_t i = 5;
  int n = 0;
  while (i < name.size() && i < 12 && name[i] >= '0' && name[i] <= '9') n = n * 10 + (name[i++] - '0');
  if (i == 5 || i >= 12) return -1;
  return n;
}

// The slots of `m` the rules write, with their kind.
template <class M>
auto slots(M& m, const ImageFileRules& r) {
  std::vector<std::pair<decltype(&m.base_color_texture), Kind>> out;
  if (r.base) out.emplace_back(&m.base_color_texture, Kind::Base);
  if (r.normal) out.emplace_back(&m.normal_texture, Kind::Normal);
  if (r.specular) out.emplace_back(&m.specular_texture, Kind::Specular);
  if (r.team_colour) out.emplace_back(&m.team_colour_texture, Kind::TeamColour);
  if (r.emissive) out.emplace_back(&m.emissive_texture.texture, Kind::Emissive);
  return out;
}

std::vector<bool> written_materials(const Scene& s, const ImageFileRules& r) {
  std::vector<bool> w(s.materials.size(), r.every_material);
  for (const Mesh& m : s.meshes)
    if (m.material >= 0 && size_t(m.material) < w.size()) w[size_t(m.material)] = true;
  return w;
}

std::map<std::string, size_t> images_by_path(const Scene& s) {
  std::map<std::string, size_t> by;
  for (size_t i = 0; i < s.images.size(); ++i) by.emplace(s.images[i].path, i);  // the first of a path
  return by;
}

struct Ref {
  size_t image = 0;
  size_t material = 0;
  Kind kind = Kind::Base;
};

// The referenced images in order of first reference, each with its first reference.
std::vector<Ref> references(const Scene& s, const ImageFileRules& r) {
  const std::vector<bool> w = written_materials(s, r);
  const std::map<std::string, size_t> by = images_by_path(s);
  std::vector<Ref> refs;
  std::vector<bool> seen(s.images.size(), false);
  for (size_t m = 0; m < s.materials.size(); ++m) {
    if (!w[m]) continue;
    for (auto [slot, kind] : slots(s.materials[m], r)) {
      auto it = slot->empty() ? by.end() : by.find(*slot);
      if (it == by.end() || seen[it->second]) continue;
      seen[it->second] = true;
      refs.push_back({it->second, m, kind});
    }
  }
  return refs;
}

// "textures/My Skin.png" -> "My_Skin"
std::string page_stem(std::string_view path) {
  std::string file = image::image_file_name(path, "");
  std::string stem;
  for (char c : file) stem += page_char(c) ? c : '_';
  if (stem.empty()) stem = "image";
  return stem;
}

std::string with_suffix(const std::string& name, size_t k) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return fmt::format("{}-{}", name, k);
  return fmt::format("{}-{}{}", name.substr(0, dot), k, name.substr(dot));
}

std::string stem_of(std::string_view file) {
  size_t dot = file.rfind('.');
  return std::string(dot == std::string_view::npos || dot == 0 ? file : file.substr(0, dot));
}

}  // namespace

bool is_pie_texture_file(std::string_view name) {
  return name.size() > 4 && name.substr(name.size() - 4) == ".png" && std::all_of(name.begin(), name.end(), page_char);
}

bool is_pie_page_name(std::string_view name) {
  return page_number(name) >= 0 && name.size() > 4 && name.substr(name.size() - 4) == ".png" &&
         std::all_of(name.begin(), name.end(), page_char);
}

size_t referenced_images(const Scene& scene, const ImageFileRules& rules) {
  return references(scene, rules).size();
}

std::vector<OutputFile> image_files(Scene& scene, const ImageFileRules& rules, const std::vector<std::string>& reserved,
                                    Diagnostics& diags) {
  const std::vector<Ref> refs = references(scene, rules);
  if (refs.empty()) return {};
  std::set<std::string> taken;
  for (const std::string& r : reserved) taken.insert(text::lower(r));
  // PIE: the page numbers in use, and the names the kept PIE lines give (pages as the file says).
  std::set<int> numbers;
  std::set<std::string> kept_pages;
  if (rules.pie_pages) {
    for (const Material& m : scene.materials)
      for (const std::string* t : {&m.base_color_texture, &m.normal_texture, &m.specular_texture,
                                   &m.team_colour_texture})
        numbers.insert(page_number(image::image_file_name(*t, "")));
    for (const Image& im : scene.images) numbers.insert(page_number(image::image_file_name(im.path, "")));
    if (scene.pie) {
      for (const PieTexture& t : scene.pie->global.textures) kept_pages.insert(t.file);
      for (const PieLevel& l : scene.pie->levels)
        for (const PieTexture& t : l.overrides.textures) kept_pages.insert(t.file);
    }
  }
  std::map<size_t, int> material_page;  // PIE: the number given to a material's new pages
  int next_number = 100;
  std::map<std::string, std::string> renamed;  // old path -> file written ("" not written)
  std::vector<OutputFile> files;
  for (const Ref& ref : refs) {
    Image& im = scene.images[ref.image];
    const std::string old = im.path;
    const image::ImageFormat format = image::detect_image(im.data, "");
    if (format != image::ImageFormat::Png && format != image::ImageFormat::Jpeg) {
      diags.add(warning("", fmt::format("image '{}' is not a PNG or JPEG image: not written", old)));
      continue;
    }
    std::string mime = format == image::ImageFormat::Png ? "image/png" : "image/jpeg";
    std::vector<uint8_t> bytes = im.data;
    std::string name, why;
    if (rules.pie_pages) {
      if (format == image::ImageFormat::Jpeg) {
        image::DecodedImage d = image::decode_image(im.data, "", image::ImageLimits{});
        if (!d.error.empty()) {
          diags.add(warning("", fmt::format("image '{}': {}: not written (PIE pages are PNG)", old, d.error)));
          continue;
        }
        bytes = image::encode_png(d.pixels);
        mime = "image/png";
        why = "PIE pages are PNG: converted from JPEG";
      }
      const std::string file = image::image_file_name(old, mime);
      if (file == old && (is_pie_page_name(file) || kept_pages.count(file))) {
        name = file;
      } else {
        auto [it, added] = material_page.try_emplace(ref.material, 0);
        if (added) {
          while (numbers.count(next_number)) ++next_number;
          numbers.insert(next_number);
          it->second = next_number;
        }
        name = ref.kind == Kind::TeamColour ? fmt::format("page-{}_tcmask.png", it->second)
                                            : fmt::format("page-{}-{}.png", it->second, page_stem(old));
        if (why.empty()) why = "PIE pages are named page-NN-name.png";
      }
    } else {
      name = image::image_file_name(old, mime);
      if (name != old) why = "images are written in the output's folder under their file name";
    }
    if (taken.count(text::lower(name))) {
      const std::string base = name;
      for (size_t k = 2; taken.count(text::lower(name)); ++k) name = with_suffix(base, k);
      why = "another file has that name";
    }
    taken.insert(text::lower(name));
    if (!why.empty())
      diags.add(warning("", fmt::format("image '{}' is written beside the output as '{}' ({}); the materials "
                                        "reference that name",
                                        old, name, why)));
    renamed[old] = name;
    im.path = name;
    im.mime_type = mime;
    if (rules.pie_pages) im.data = bytes;
    files.push_back({name, std::move(bytes), nullptr});
  }
  // The materials follow.
  const std::vector<bool> w = written_materials(scene, rules);
  for (size_t m = 0; m < scene.materials.size(); ++m) {
    Material& mat = scene.materials[m];
    for (std::string* t : {&mat.base_color_texture, &mat.normal_texture, &mat.specular_texture,
                           &mat.team_colour_texture, &mat.emissive_texture.texture})
      if (auto it = renamed.find(*t); it != renamed.end()) *t = it->second;
    if (rules.name_references && w[m] && !mat.base_color_texture.empty()) {
      const bool written = std::any_of(files.begin(), files.end(),
                                       [&](const OutputFile& f) { return f.name == mat.base_color_texture; });
      if (written && mat.name != mat.base_color_texture && mat.name != stem_of(mat.base_color_texture))
        mat.name = mat.base_color_texture;
    }
  }
  return files;
}

size_t load_texture_files(Scene& scene, const ImageFileRules& rules, const TextureSearch& search,
                          bool (*usable)(std::string_view reference), Diagnostics& diags) {
  const std::vector<bool> w = written_materials(scene, rules);
  std::set<std::string> taken;
  for (const Image& im : scene.images) taken.insert(text::lower(im.path));
  std::map<std::string, std::string> loaded;  // file -> image path
  size_t count = 0;
  for (const TextureLookup& l : find_textures(scene, search)) {
    if (l.material < 0 || size_t(l.material) >= w.size() || !w[size_t(l.material)] || l.image >= 0 || l.file.empty())
      continue;
    Material& mat = scene.materials[size_t(l.material)];
    std::string* slot = nullptr;
    for (auto [s, kind] : slots(mat, rules)) {
      const char* name = kind == Kind::Base ? "base colour" : kind == Kind::Normal ? "normal"
                         : kind == Kind::Specular ? "specular" : kind == Kind::Emissive ? "emissive" : "team colour";
      if (l.slot == name) slot = s;
    }
    if (!slot || (!slot->empty() && usable(*slot))) continue;
    auto [it, added] = loaded.try_emplace(l.file);
    if (added) {
      std::string error;
      std::vector<uint8_t> bytes = read_texture_file(l.file, error);
      image::ConvertedImage c;
      if (error.empty()) c = image::to_gltf_image(bytes, l.file, image::ImageLimits{});
      if (error.empty()) error = c.error;
      if (!error.empty()) {
        diags.add(warning("", fmt::format("material '{}': {} texture file '{}': {}: not written", mat.name, l.slot,
                                          l.file, error)));
        continue;
      }
      std::string path = image::image_file_name(l.file, c.mime_type);
      for (size_t k = 2; taken.count(text::lower(path)); ++k) path = with_suffix(image::image_file_name(l.file, c.mime_type), k);
      taken.insert(text::lower(path));
      scene.images.push_back({path, c.mime_type, std::move(c.bytes)});
      it->second = path;
    }
    if (it->second.empty()) continue;
    *slot = it->second;
    ++count;
  }
  return count;
}

}  // namespace meshport::ops
