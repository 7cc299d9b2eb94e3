// glTF writer: materials (pbrMetallicRoughness, normalTexture, KHR_materials_specular, emissive;
// each texture with its texture coordinate set and KHR_texture_transform), textures and images. docs/textures.md "glTF output".
//
// Every texture slot find_textures() resolves (a file on disk or one of Scene::images) of a
// material some written mesh uses becomes a glTF image: PNG and JPEG as they are, other formats
// converted to PNG (image::to_gltf_image), equal bytes stored once. Where the images go:
//   .glb: in the buffer (bufferView + mimeType); with WriteOptions::external_textures, files
//         beside the output referenced by relative URI;
//   .gltf: files beside the output, referenced by relative URI;
//   in a batch with external_textures (.glb and .gltf): a texture file's page written once into
//   the output tree by WriteOptions::texture_cache, referenced by relative URI;
//   in memory (write_memory): .glb in the buffer, .gltf as data: URIs.
// Side-file names are image::image_file_name(file, mime), made unique ("x.png", "x-2.png", any
// case) and never the name of a different texture this write reads. The team colour mask has no
// glTF slot: it is kept by name in the extras, or baked into the base colour page when
// WriteOptions::team_colour is set.
#include "core/text.h"
#include "core/utf8_path.h"
#include "formats/gltf/gltf_write.h"
#include "formats/shared/gltf_json.h"

#include "image/image.h"
#include "ops/materials/team_colour.h"
#include "ops/materials/texture_cache.h"
#include "ops/materials/texture_transform.h"
#include "ops/materials/textures.h"

#include <meshport/process.h>
#include <meshport/textures.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

namespace meshport::gltf::write_impl {

namespace {

namespace fs = std::filesystem;


// The bytes of one texture: a file read (capped; through WriteOptions::texture_cache when set)
// or one of Scene::images.
struct Source {
  std::span<const uint8_t> bytes;
  std::vector<uint8_t> owned;                    // a file read without the cache
  std::shared_ptr<const CachedTexture> cached;  // a file read through the cache
  std::string hint;   // the file name or image path: names the glTF image, tells a TGA
  std::string label;  // for messages: "file 'x'" or "embedded image 'x'"
  std::string canonical;  // the file's canonical path; empty for Scene images
  std::string error;
};

// One glTF image.
struct Entry {
  std::span<const uint8_t> bytes;               // into `owned` or `cached`
  std::vector<uint8_t> owned;
  std::shared_ptr<const CachedTexture> cached;  // a file's page as it is, or converted once
  std::string mime;
  std::string stem;       // glTF image name; the side file is stem + extension
  std::string extension;  // ".png", ".jpg", or the reference's own (".jpeg", ".PNG")
  std::string canonical;  // the file it is a byte-for-byte copy of, if any
};

// What a source key gave: an image index, or why not.
struct Made {
  int index = -1;
  std::string error;
};

struct Images {
  std::vector<Entry> list;
  std::map<std::string, Made> made;               // by source key
  std::unordered_multimap<size_t, size_t> by_hash;  // bytes hash -> index into list
  std::set<std::string> inputs;                    // canonical paths of every texture file read
  // glTF textures: (image, sampler) in order of first use.
  std::vector<std::pair<size_t, TextureSampler>> textures;
  std::map<std::array<uint32_t, 5>, size_t> texture_index;
};

// The glTF texture of image `image` sampled by `sampler`, added when new.
int texture_for(Images& im, int image, const TextureSampler& sampler) {
  const std::array<uint32_t, 5> key = {uint32_t(image), sampler.mag_filter, sampler.min_filter, sampler.wrap_s,
                                       sampler.wrap_t};
  auto [it, added] = im.texture_index.emplace(key, im.textures.size());
  if (added) im.textures.emplace_back(size_t(image), sampler);
  return int(it->second);
}

// The sampler of material `m`'s slot (Material::samplers), default when it has none.
TextureSampler slot_sampler(const Material& m, const std::string& slot) {
  for (const auto& [name, s] : m.samplers)
    if (name == slot) return s;
  return {};
}

std::string canonical_of(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? path_utf8(fs::absolute(p, ec).lexically_normal()) : path_utf8(c);
}

Source load(const Writer& w, const TextureLookup& l) {
  Source s;
  if (l.image >= 0 && size_t(l.image) < w.scene.images.size()) {
    const Image& img = w.scene.images[size_t(l.image)];
    s.bytes = img.data;
    s.hint = img.path;
    s.label = fmt::format("embedded image '{}'", img.path);
    return s;
  }
  s.hint = l.file;
  s.label = fmt::format("file '{}'", l.file);
  if (w.options.texture_cache) {
    s.cached = w.options.texture_cache->get(l.file);
    s.error = s.cached->read_error;
    s.bytes = s.cached->bytes();
  } else {
    s.owned = ops::read_texture_file(l.file, s.error);
    s.bytes = s.owned;
  }
  if (!s.error.empty()) return s;
  s.canonical = canonical_of(utf8_path(l.file));
  return s;
}

std::string source_key(const TextureLookup& l) {
  return l.image >= 0 ? fmt::format("image:{}", l.image) : "file:" + l.file;
}

// The image name: the file name's stem (image_file_name without its extension).
std::string stem_of(std::string_view hint, std::string_view mime) {
  std::string n = image::image_file_name(hint, mime);
  const size_t dot = n.rfind('.');
  return dot == std::string::npos || dot == 0 ? n : n.substr(0, dot);
}

// The side file's extension: the one the reference gives when it fits the type (".jpeg" stays).
std::string extension_of(std::string_view hint, std::string_view mime) {
  std::string n = image::image_file_name(hint, mime);
  const size_t dot = n.rfind('.');
  return dot == std::string::npos || dot == 0 ? image::image_file_extension(mime) : n.substr(dot);
}

// The index of an image with these bytes, adding it when new.
size_t add(Images& im, Entry e) {
  const size_t h = e.cached ? e.cached->hash  // hashed once by the cache
                            : std::hash<std::string_view>()(
                                  std::string_view(reinterpret_cast<const char*>(e.bytes.data()), e.bytes.size()));
  auto [lo, hi] = im.by_hash.equal_range(h);
  for (auto it = lo; it != hi; ++it)
    if (im.list[it->second].bytes.size() == e.bytes.size() &&
        std::equal(e.bytes.begin(), e.bytes.end(), im.list[it->second].bytes.begin()) && im.list[it->second].mime == e.mime)
      return it->second;
  im.list.push_back(std::move(e));
  im.by_hash.emplace(h, im.list.size() - 1);
  return im.list.size() - 1;
}

// A file's glTF image from the cache: a view of the page (PNG, JPEG) or of its conversion.
Entry cached_entry(const Source& src) {
  Entry e;
  e.cached = src.cached;
  e.bytes = src.cached->gltf_bytes();
  e.mime = src.cached->mime;
  e.canonical = src.cached->is_converted() ? std::string() : src.canonical;
  return e;
}

// The glTF image of a source read without the cache (PNG and JPEG copied, others converted).
Entry converted_entry(const Source& src, std::string& error) {
  Entry e;
  image::ConvertedImage c = image::to_gltf_image(src.bytes, src.hint, image::ImageLimits{});
  if (!c.error.empty()) {
    error = fmt::format("{}: {}", src.label, c.error);
    return e;
  }
  e.mime = c.mime_type;
  e.canonical = c.converted ? std::string() : src.canonical;
  e.owned = std::move(c.bytes);
  e.bytes = e.owned;
  return e;
}

// The glTF image of one texture, or -1 with the reason in `why`.
int image_for(Writer& w, Images& im, const TextureLookup& l, std::string& why) {
  const std::string key = source_key(l);
  if (auto it = im.made.find(key); it != im.made.end()) {
    why = it->second.error;
    return it->second.index;
  }
  Made made;
  Source src = load(w, l);
  if (!src.canonical.empty()) im.inputs.insert(src.canonical);
  if (!src.error.empty()) {
    made.error = fmt::format("{}: {}", src.label, src.error);
  } else if (std::string error = src.cached ? src.cached->image_error : ""; !error.empty()) {
    made.error = fmt::format("{}: {}", src.label, error);
  } else {
    Entry e = src.cached ? cached_entry(src) : converted_entry(src, made.error);
    if (made.error.empty()) {
      e.stem = stem_of(src.hint, e.mime);
      e.extension = extension_of(src.hint, e.mime);
      made.index = int(add(im, std::move(e)));
    }
  }
  why = made.error;
  im.made.emplace(key, made);
  return made.index;
}

// The base colour page with `team` baked in through the mask (ops/materials/team_colour.h), or -1 with the
// reason in `why`.
int team_coloured(Writer& w, Images& im, const TextureLookup& base, const TextureLookup& mask,
                  std::array<uint8_t, 3> team, std::string& why) {
  const std::string key = fmt::format("team:{}|{}|{},{},{}", source_key(base), source_key(mask), team[0], team[1], team[2]);
  if (auto it = im.made.find(key); it != im.made.end()) {
    why = it->second.error;
    return it->second.index;
  }
  Made made;
  Source page = load(w, base), tc = load(w, mask);
  if (!page.canonical.empty()) im.inputs.insert(page.canonical);
  if (!tc.canonical.empty()) im.inputs.insert(tc.canonical);
  image::DecodedImage p, m;
  if (!page.error.empty()) {
    made.error = fmt::format("{}: {}", page.label, page.error);
  } else if (!tc.error.empty()) {
    made.error = fmt::format("mask {}: {}", tc.label, tc.error);
  } else if (p = image::decode_image(page.bytes, page.hint, image::ImageLimits{}); !p.error.empty()) {
    made.error = fmt::format("{}: {}", page.label, p.error);
  } else if (m = image::decode_image(tc.bytes, tc.hint, image::ImageLimits{}); !m.error.empty()) {
    made.error = fmt::format("mask {}: {}", tc.label, m.error);
  } else if (std::string e = ops::apply_team_colour(p.pixels, m.pixels, team); !e.empty()) {
    made.error = e;
  } else {
    Entry entry;
    entry.owned = image::encode_png(p.pixels);
    entry.bytes = entry.owned;
    entry.mime = "image/png";
    entry.stem = stem_of(page.hint, entry.mime) + "-team";
    entry.extension = ".png";
    made.index = entry.bytes.empty() ? -1 : int(add(im, std::move(entry)));
    if (made.index < 0) made.error = "the team-coloured page cannot be encoded as PNG";
  }
  why = made.error;
  im.made.emplace(key, made);
  return made.index;
}

// A batch's .glb or .gltf with external textures: the page's file, written once into the output
// tree by the texture cache, as a path relative to the output's folder; empty when the image is
// not such a page (or the page cannot be written: a warning, and it goes beside the output).
std::string shared_page_uri(Writer& w, const Entry& e) {
  TextureCache* cache = w.options.texture_cache;
  if (!cache || !cache->shares_pages() || !e.cached || !w.options.external_textures) return {};
  std::string error;
  const std::string dest = cache->place(e.cached, error);
  if (dest.empty()) {
    wwarn(w.diags, fmt::format("texture '{}' not written into the output tree ({}): written beside the output",
                               e.cached->path, error));
    return {};
  }
  std::error_code ec;
  const fs::path dir = fs::absolute(utf8_path(w.output_dir), ec).lexically_normal();
  return generic_utf8(utf8_path(dest).lexically_relative(dir));
}

// Writes the images where they go (see the top of the file) and sets root images / textures.
void emit_images(Writer& w, Images& im) {
  if (im.list.empty()) return;
  const bool in_buffer = w.binary && (w.output_dir.empty() || !w.options.external_textures);
  const bool data_uri = !w.binary && w.output_dir.empty();
  json images = json::array(), textures = json::array();
  std::set<std::string> names;  // lower case: unique on case-insensitive file systems too
  for (size_t i = 0; i < im.list.size(); ++i) {
    Entry& e = im.list[i];
    json img = {{"name", w.text(e.stem)}, {"mimeType", e.mime}};
    if (in_buffer) {
      img["bufferView"] = w.buf.view(e.bytes.data(), e.bytes.size(), 0);
    } else if (data_uri) {
      img["uri"] = "data:" + e.mime + ";base64," + base64_encode(e.bytes.data(), e.bytes.size());
    } else if (std::string uri = shared_page_uri(w, e); !uri.empty()) {
      img["uri"] = uri_encode(uri);
    } else {
      // A unique name that is not another texture this write reads (a converted skin.tga must
      // not replace a skin.png beside the output that the model also uses).
      const std::string& ext = e.extension;
      std::string name;
      for (size_t n = 1;; ++n) {
        name = n == 1 ? e.stem + ext : fmt::format("{}-{}{}", e.stem, n, ext);
        if (names.count(text::lower(name))) continue;
        const std::string dest = canonical_of(utf8_path(w.output_dir) / utf8_path(name));
        if (im.inputs.count(dest) && dest != e.canonical) continue;
        break;
      }
      names.insert(text::lower(name));
      img["uri"] = uri_encode(name);  // every non-ASCII byte percent-encoded
      if (e.owned.empty()) e.owned.assign(e.bytes.begin(), e.bytes.end());
      w.image_files.push_back({name, std::move(e.owned), nullptr});
    }
    e = Entry();
    images.push_back(std::move(img));
  }
  // The textures the materials use, then one for each image none uses (the team colour mask).
  std::vector<bool> textured(im.list.size(), false);
  for (const auto& t : im.textures) textured[t.first] = true;
  for (size_t i = 0; i < im.list.size(); ++i)
    if (!textured[i]) im.textures.emplace_back(i, TextureSampler{});
  json samplers = json::array();
  std::map<std::array<uint32_t, 4>, size_t> sampler_index;
  for (const auto& [image, smp] : im.textures) {
    json t = {{"source", image}};
    if (!smp.is_default()) {
      auto [it, added] = sampler_index.emplace(
          std::array<uint32_t, 4>{smp.mag_filter, smp.min_filter, smp.wrap_s, smp.wrap_t}, samplers.size());
      if (added) {
        json j = json::object();
        if (smp.mag_filter) j["magFilter"] = smp.mag_filter;
        if (smp.min_filter) j["minFilter"] = smp.min_filter;
        if (smp.wrap_s != 10497) j["wrapS"] = smp.wrap_s;
        if (smp.wrap_t != 10497) j["wrapT"] = smp.wrap_t;
        samplers.push_back(std::move(j));
      }
      t["sampler"] = it->second;
    }
    textures.push_back(std::move(t));
  }
  w.root["images"] = std::move(images);
  w.root["textures"] = std::move(textures);
  if (!samplers.empty()) w.root["samplers"] = std::move(samplers);
}

// The materials a written mesh uses (Mesh::material or one of its KHR_materials_variants).
template <class F>
void for_each_material(const Mesh& m, size_t count, F f) {
  if (m.material >= 0 && size_t(m.material) < count) f(size_t(m.material));
  for (const Mesh::VariantMapping& v : m.material_variants)
    if (v.material >= 0 && size_t(v.material) < count && v.material != m.material) f(size_t(v.material));
}

// Which materials a written mesh uses.
std::vector<bool> used_materials(const Scene& s) {
  std::vector<bool> used(s.materials.size(), false);
  for (const Mesh& m : s.meshes)
    if (written(m)) for_each_material(m, s.materials.size(), [&](size_t i) { used[i] = true; });
  return used;
}

// Material::gltf_extensions with every textureInfo's index k (Material::extension_textures[k])
// replaced by `index[k]`, the glTF texture written, or the textureInfo removed when it is -1.
// Sets `transform` when a textureInfo uses KHR_texture_transform.
void remap_extension_textures(json& e, const std::vector<int>& index, bool& transform) {
  if (e.is_array()) {
    for (json& x : e) remap_extension_textures(x, index, transform);
    return;
  }
  if (!e.is_object()) return;
  std::vector<std::string> gone;
  for (auto& [key, v] : e.items()) {
    const json* k = v.is_object() ? json_util::field(v, "index") : nullptr;
    if (key.size() > 7 && key.compare(key.size() - 7, 7, "Texture") == 0 && k && k->is_number_unsigned()) {
      const size_t at = k->get<size_t>();
      if (at >= index.size() || index[at] < 0) {
        gone.push_back(key);
        continue;
      }
      v["index"] = index[at];
      const json* x = json_util::field(v, "extensions");
      if (x && x->is_object() && json_util::field(*x, "KHR_texture_transform")) transform = true;
      continue;
    }
    remap_extension_textures(v, index, transform);
  }
  for (const std::string& k : gone) e.erase(k);
}

// Whether the material's specular texture is its KHR_materials_specular.specularTexture (read
// so where the file has no specularColorTexture) rather than a colour texture of its own.
bool specular_is_strength(const Material& m, const json& ext) {
  const json* spec = json_util::field(ext, "KHR_materials_specular");
  const json* t = spec ? json_util::field(*spec, "specularTexture") : nullptr;
  const json* k = t ? json_util::field(*t, "index") : nullptr;
  return k && k->is_number_unsigned() && k->get<size_t>() < m.extension_textures.size() &&
         m.extension_textures[k->get<size_t>()] == m.specular_texture;
}

float clamp01(float v, float otherwise) { return std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : otherwise; }

// The team colour mask of material `i` as an image of the file, named by its index in the
// material's extras ("team_colour_image"; glTF has no slot for it), unless the mask was baked
// into the page (WriteOptions::team_colour). Warns when it is found but cannot be embedded.
void embed_team_colour_mask(Writer& w, Images& im, size_t i, const TextureLookup* mask, const std::string& lacking,
                            json& extras) {
  const Material& m = w.scene.materials[i];
  if (!mask || m.team_colour_texture.empty() || w.options.team_colour) return;
  if (!mask->found()) return;  // textures_not_found_message names it with the material's other slots
  if (!lacking.empty()) return;  // the base colour slot's warning says it: no texture coordinates
  std::string why;
  const int index = image_for(w, im, *mask, why);
  if (index < 0) {
    wwarn(w.diags, fmt::format("material '{}': team colour mask '{}' cannot be embedded: {}; the file keeps only its "
                               "name",
                               m.name, mask->reference, why));
    return;
  }
  extras["team_colour_image"] = index;
}

// alphaMode and alphaCutoff; a blend other than "over" in the extras ("blend").
void write_alpha(Writer& w, const Material& m, json& mat, json& extras) {
  if (m.alpha_mode == AlphaMode::Mask) {
    mat["alphaMode"] = "MASK";
    float cutoff = m.alpha_cutoff;
    if (!std::isfinite(cutoff) || cutoff < 0) {
      wwarn(w.diags, fmt::format("material '{}': alpha cut-off {} is not a number >= 0: 0.5 written", m.name, cutoff));
      cutoff = 0.5f;
    }
    if (cutoff != 0.5f) mat["alphaCutoff"] = num(cutoff);
  } else if (m.alpha_mode == AlphaMode::Blend) {
    mat["alphaMode"] = "BLEND";
    if (m.blend != BlendOp::Over) extras["blend"] = blend_op_name(m.blend);
  }
}

// A material's kept glTF `what` ("extensions", "extras": JSON text, "" for none) as an object;
// text that is not a JSON object is left out with a warning.
json kept_object(Writer& w, const Material& m, const std::string& text, const char* what) {
  if (text.empty()) return json::object();
  json j = json::parse(text, nullptr, false);
  if (j.is_object()) return j;
  wwarn(w.diags, fmt::format("material '{}': its glTF {} are not a JSON object: not written", m.name, what));
  return json::object();
}

}  // namespace

std::vector<TextureLookup> material_textures(const Scene& s, const WriteOptions& o) {
  const std::vector<bool> used = used_materials(s);
  std::vector<TextureLookup> r;
  if (std::find(used.begin(), used.end(), true) == used.end()) return r;
  for (TextureLookup& l : find_textures(s, texture_search(o)))
    if (l.material >= 0 && size_t(l.material) < used.size() && used[size_t(l.material)]) r.push_back(std::move(l));
  return r;
}

std::optional<Scene> with_unwritten_mappings_baked(const Scene& s, const std::vector<TextureLookup>& textures,
                                                   Diagnostics& d) {
  const std::vector<bool> used = used_materials(s);
  std::vector<bool> found(s.materials.size(), false), bake(s.materials.size(), false);
  for (const TextureLookup& l : textures)
    if (l.slot == "base colour" && l.found()) found[size_t(l.material)] = true;
  bool any = false;
  for (size_t i = 0; i < s.materials.size(); ++i) {
    const Material& m = s.materials[i];
    if (!used[i] || found[i] || !ops::base_color_mapped(m)) continue;
    bake[i] = any = true;
    wwarn(d, fmt::format("material '{}': base colour texture {}: its texture coordinate mapping (texCoord / "
                         "KHR_texture_transform) is baked into the texture coordinates of the meshes using it",
                         m.name,
                         m.base_color_texture.empty() ? std::string("none")
                                                      : fmt::format("'{}' not found", m.base_color_texture)));
  }
  if (!any) return std::nullopt;
  std::optional<Scene> r = s;
  ops::bake_texture_transforms(*r, bake, d);
  return r;
}

std::optional<Scene> with_normal_map_tangents(const Scene& s, const std::vector<TextureLookup>& textures,
                                              Diagnostics& d) {
  std::vector<bool> normal_mapped(s.materials.size(), false);
  for (const TextureLookup& l : textures)
    if (l.slot == "normal" && l.found()) normal_mapped[size_t(l.material)] = true;
  size_t lacking = 0;
  for (const Mesh& m : s.meshes)
    if (written(m) && m.material >= 0 && size_t(m.material) < s.materials.size() && normal_mapped[size_t(m.material)] &&
        !m.find(Attribute::Tangent) && m.find(Attribute::Normal) && m.find(Attribute::Texcoord))
      ++lacking;
  if (!lacking) return std::nullopt;
  std::optional<Scene> r = s;
  const size_t n = generate_tangents(*r, {}, &d);
  if (n)
    wwarn(d, fmt::format("tangents generated for {} meshes without them: a mesh with a normal map needs them in glTF",
                         n));
  return r;
}

json emit_materials(Writer& w) {
  const Scene& s = w.scene;
  // A material's textures need texture coordinates in every mesh that uses it; materials no
  // written mesh uses get none (PIE's other tileset pages).
  // A normal map needs tangents too (with_normal_map_tangents made them where it could).
  std::vector<std::string> lacking(s.materials.size()), no_tangents(s.materials.size());
  // The fewest TEXCOORD sets a mesh using the material is written with, and that mesh's name.
  std::vector<uint32_t> uv_sets(s.materials.size(), UINT32_MAX);
  std::vector<std::string> fewest(s.materials.size());
  const std::vector<bool> used = used_materials(s);
  for (const Mesh& m : s.meshes) {
    if (!written(m)) continue;
    const std::string name = m.name.empty() ? std::string("(unnamed)") : m.name;
    const std::vector<int> sets = texcoord_sets(m);
    const uint32_t n = sets.empty() ? 0 : uint32_t(*std::max_element(sets.begin(), sets.end()) + 1);
    for_each_material(m, s.materials.size(), [&](size_t i) {
      if (!m.find(Attribute::Texcoord) && lacking[i].empty()) lacking[i] = name;
      if (!m.find(Attribute::Tangent) && no_tangents[i].empty()) no_tangents[i] = name;
      if (n < uv_sets[i]) uv_sets[i] = n, fewest[i] = name;
    });
  }
  std::map<std::pair<int32_t, std::string>, const TextureLookup*> lookups;
  for (const TextureLookup& l : w.textures) lookups.emplace(std::make_pair(l.material, l.slot), &l);
  auto lookup = [&](size_t mi, const std::string& slot) -> const TextureLookup* {
    auto it = lookups.find({int32_t(mi), slot});
    return it == lookups.end() ? nullptr : it->second;
  };

  Images im;
  bool transform_used = false;
  // A written slot's textureInfo: its texture coordinate set and KHR_texture_transform, each only
  // when every mesh using the material has that set.
  auto texture_info = [&](size_t i, const std::string& slot, int index, uint32_t set, const TextureTransform& t) {
    const Material& m = s.materials[i];
    json info = {{"index", texture_for(im, index, slot_sampler(m, slot))}};
    auto has = [&](uint32_t k, const char* what) {
      if (k < uv_sets[i]) return true;
      wwarn(w.diags, fmt::format("material '{}': {} texture: texture coordinate set {}{} not written (set 0 is used): "
                                 "mesh '{}' has no set {}",
                                 m.name, slot, k, what, fewest[i], k));
      return false;
    };
    if (set && has(set, "")) info["texCoord"] = set;
    if (t.is_identity()) return info;
    if (!std::isfinite(t.offset[0]) || !std::isfinite(t.offset[1]) || !std::isfinite(t.rotation) ||
        !std::isfinite(t.scale[0]) || !std::isfinite(t.scale[1])) {
      wwarn(w.diags, fmt::format("material '{}': the {} texture's transform has values that are not finite: not written",
                                 m.name, slot));
      return info;
    }
    json e = json::object();
    if (t.offset != std::array<float, 2>{0, 0}) e["offset"] = {num(t.offset[0]), num(t.offset[1])};
    if (t.rotation != 0) e["rotation"] = num(t.rotation);
    if (t.scale != std::array<float, 2>{1, 1}) e["scale"] = {num(t.scale[0]), num(t.scale[1])};
    if (t.texcoord >= 0 && has(uint32_t(t.texcoord), " (the transform's texCoord)")) e["texCoord"] = t.texcoord;
    info["extensions"]["KHR_texture_transform"] = std::move(e);
    transform_used = true;
    return info;
  };
  json materials = json::array();
  // A material name tried as a file is a texture reference only where the input format names
  // textures so (IQM, IQE, QMSH); elsewhere its absence is no news.
  const bool names_are_textures = material_names_are_textures(w.options.texture_model);
  for (size_t i = 0; i < s.materials.size(); ++i) {
    const Material& m = s.materials[i];
    // metallicFactor is left out at glTF's default (1), as the source did; the Scene's default is
    // 0 (game models are not metal), written.
    json pbr = json::object();
    if (const float metal = clamp01(m.metallic, 0); metal != 1) pbr["metallicFactor"] = num(metal);
    if (m.base_color != std::array<float, 4>{1, 1, 1, 1}) {
      json factor = json::array();
      for (float c : m.base_color) factor.push_back(num(clamp01(c, 1)));
      pbr["baseColorFactor"] = std::move(factor);
    }
    if (const float r = clamp01(m.roughness, 1); r != 1) pbr["roughnessFactor"] = num(r);
    json mat = json::object();
    if (!m.name.empty()) mat["name"] = w.text(m.name);
    json extras = {{"name", w.text(m.name)}, {"base_color_texture", w.text(m.base_color_texture)}};
    if (!m.normal_texture.empty()) extras["normal_texture"] = w.text(m.normal_texture);
    if (!m.specular_texture.empty()) extras["specular_texture"] = w.text(m.specular_texture);
    if (!m.team_colour_texture.empty()) extras["team_colour_texture"] = w.text(m.team_colour_texture);
    for (const auto& [key, slot] : {std::pair{"metallic_roughness_texture", &m.metallic_roughness_texture},
                                    std::pair{"occlusion_texture", &m.occlusion_texture},
                                    std::pair{"emissive_texture", &m.emissive_texture}})
      if (!slot->texture.empty()) extras[key] = w.text(slot->texture);
    if (!m.extension_textures.empty()) {
      json x = json::array();
      for (const std::string& t : m.extension_textures) x.push_back(w.text(t));
      extras["extension_textures"] = std::move(x);
    }
    json ext = kept_object(w, m, m.gltf_extensions, "extensions");
    std::vector<int> extension_index(m.extension_textures.size(), -1);
    std::vector<std::string> slots = {"base colour", "normal", "specular", "metallic roughness", "occlusion", "emissive"};
    for (size_t k = 0; k < m.extension_textures.size(); ++k) slots.push_back(extension_slot(k));
    const bool specular_strength = specular_is_strength(m, ext);

    if (used[i] && w.options.warn_textures_not_found) {
      const std::string missing = textures_not_found_message(s, int32_t(i), w.textures, names_are_textures);
      if (!missing.empty()) wwarn(w.diags, missing);
    }
    for (const std::string& slot : slots) {
      if (slot == "specular" && specular_strength) continue;  // written with the extension
      const TextureLookup* l = used[i] ? lookup(i, slot) : nullptr;
      if (!l) continue;
      if (!l->found()) continue;  // warned once for the material, above
      if (!lacking[i].empty()) {
        wwarn(w.diags, fmt::format("material '{}': {} texture '{}' not used: mesh '{}' has no texture coordinates",
                                   m.name, slot, l->reference, lacking[i]));
        continue;
      }
      const bool base = slot == "base colour";
      if (slot == "normal" && !no_tangents[i].empty()) {
        wwarn(w.diags, fmt::format("material '{}': normal texture '{}' not used: mesh '{}' has no tangents (nor "
                                   "normals to make them from)",
                                   m.name, l->reference, no_tangents[i]));
        continue;
      }
      std::string why;
      int index = -1;
      if (base && w.options.team_colour && !m.team_colour_texture.empty()) {
        const TextureLookup* mask = lookup(i, "team colour");
        if (!mask || !mask->found()) {
          wwarn(w.diags, fmt::format("material '{}': team colour not applied: mask '{}' not found{}", m.name,
                                     m.team_colour_texture, mask ? ": " + mask->reason : std::string()));
        } else if (index = team_coloured(w, im, *l, *mask, *w.options.team_colour, why); index < 0) {
          wwarn(w.diags, fmt::format("material '{}': team colour not applied: {}", m.name, why));
        } else {
          const auto& t = *w.options.team_colour;
          extras["team_colour_applied"] = json::array({t[0], t[1], t[2]});
        }
      }
      if (index < 0) index = image_for(w, im, *l, why);
      if (index < 0) {
        wwarn(w.diags, fmt::format("material '{}': {} texture '{}' cannot be used: {}", m.name, slot, l->reference, why));
        continue;
      }
      if (base) {
        pbr["baseColorTexture"] = texture_info(i, slot, index, m.base_color_texcoord, m.base_color_transform);
      } else if (slot == "normal") {
        mat["normalTexture"] = texture_info(i, slot, index, m.normal_texcoord, m.normal_transform);
        if (m.normal_scale != 1 && std::isfinite(m.normal_scale)) mat["normalTexture"]["scale"] = num(m.normal_scale);
      } else if (slot == "specular") {
        ext["KHR_materials_specular"]["specularColorTexture"] =
            texture_info(i, slot, index, m.specular_texcoord, m.specular_transform);
      } else if (slot == "metallic roughness") {
        const TextureSlot& t = m.metallic_roughness_texture;
        pbr["metallicRoughnessTexture"] = texture_info(i, slot, index, t.texcoord, t.transform);
      } else if (slot == "occlusion") {
        const TextureSlot& t = m.occlusion_texture;
        mat["occlusionTexture"] = texture_info(i, slot, index, t.texcoord, t.transform);
        if (m.occlusion_strength != 1 && std::isfinite(m.occlusion_strength))
          mat["occlusionTexture"]["strength"] = num(m.occlusion_strength);
      } else if (slot == "emissive") {
        const TextureSlot& t = m.emissive_texture;
        mat["emissiveTexture"] = texture_info(i, slot, index, t.texcoord, t.transform);
      } else {
        extension_index[std::stoul(slot.substr(slot.rfind(' ') + 1))] = texture_for(im, index, slot_sampler(m, slot));
      }
    }
    remap_extension_textures(ext, extension_index, transform_used);
    if (!ext.empty()) {
      for (auto& [name, v] : ext.items()) {
        (void)v;
        list_extension(w.root, "extensionsUsed", name.c_str());
      }
      mat["extensions"] = std::move(ext);
    }
    if (m.double_sided) mat["doubleSided"] = true;
    if (used[i]) embed_team_colour_mask(w, im, i, lookup(i, "team colour"), lacking[i], extras);
    mat["pbrMetallicRoughness"] = std::move(pbr);
    write_alpha(w, m, mat, extras);
    if (m.emissive != std::array<float, 3>{0, 0, 0}) {
      json e = json::array();
      for (float c : m.emissive) e.push_back(num(clamp01(c, 0)));
      if (e != json::array({0.0, 0.0, 0.0})) mat["emissiveFactor"] = std::move(e);
    }
    json all_extras = kept_object(w, m, m.gltf_extras, "extras");
    all_extras["meshport"] = std::move(extras);
    mat["extras"] = std::move(all_extras);
    materials.push_back(std::move(mat));
  }
  emit_images(w, im);
  if (!s.material_variants.empty()) {
    json variants = json::array();
    for (const std::string& v : s.material_variants) variants.push_back({{"name", w.text(v)}});
    w.root["extensions"]["KHR_materials_variants"] = {{"variants", std::move(variants)}};
    list_extension(w.root, "extensionsUsed", "KHR_materials_variants");
  }
  if (transform_used) list_extension(w.root, "extensionsUsed", "KHR_texture_transform");
  return materials;
}

}  // namespace meshport::gltf::write_impl
