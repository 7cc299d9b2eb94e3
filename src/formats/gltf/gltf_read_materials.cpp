// glTF reader: materials (name, factors, texture slots with their texture coordinate set and
// KHR_texture_transform), textures and images. Images a material
// uses whose bytes are in the file (a buffer view or a data: URI) become Scene::images; images
// with a relative file URI stay references (docs/textures.md, "glTF input and extraction").
#include "core/text.h"
#include "formats/gltf/gltf_read.h"

#include "image/image.h"

#include <meshport/textures.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

namespace meshport::gltf::read_impl {

namespace {

// A texture slot as the glTF gives it, before the writer's extras are applied.
struct Slot {
  std::string reference;         // relative file URI, or the image's name when its bytes are unusable
  std::optional<uint32_t> image; // glTF image whose bytes are in the file (read below)
  uint32_t texcoord = 0;         // textureInfo.texCoord
  TextureTransform transform;    // KHR_texture_transform
  TextureSampler sampler;        // the texture's sampler
};

// The sampler of texture `t`: its filters and wrap modes (a malformed one: the default, warning).
TextureSampler sampler_of(Reader& rd, uint32_t t) {
  const json& tex = rd.element("textures", t);
  const std::optional<uint32_t> si = rd.opt_index(tex, "sampler", fmt::format("textures[{}]", t), "samplers");
  if (!si) return {};
  const std::string sp = fmt::format("samplers[{}]", *si);
  try {
    const json& smp = rd.element("samplers", *si);
    if (!smp.is_object()) rd.error(sp, "is not an object");
    TextureSampler r;
    auto get = [&](const char* key, uint32_t def) {
      const uint64_t v = rd.get_uint(smp, key, sp, def);
      if (v > 0xFFFF) rd.error(sp + "." + key, fmt::format("{} is not a filter or wrap mode", v));
      return uint32_t(v);
    };
    r.mag_filter = get("magFilter", 0), r.min_filter = get("minFilter", 0);
    r.wrap_s = get("wrapS", 10497), r.wrap_t = get("wrapT", 10497);
    return r;
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; the default sampler is used", e.diagnostic().message));
    return {};
  }
}

// The textureInfo's KHR_texture_transform: offset and scale 2 finite numbers, rotation a finite
// number, texCoord a non-negative integer. A malformed one is ignored with a warning.
TextureTransform texture_transform(Reader& rd, const json& info, const std::string& path) {
  const json* ext = field(info, "extensions");
  const json* tt = ext && ext->is_object() ? field(*ext, "KHR_texture_transform") : nullptr;
  if (!tt) return {};
  const std::string tp = path + ".extensions.KHR_texture_transform";
  try {
    if (!tt->is_object()) rd.error(tp, fmt::format("is {}, not an object", tt->type_name()));
    TextureTransform t;
    rd.get_floats(*tt, "offset", tp, t.offset.data(), 2);
    rd.get_floats(*tt, "scale", tp, t.scale.data(), 2);
    t.rotation = narrow(rd.get_number(*tt, "rotation", tp, 0.0));
    for (float v : {t.offset[0], t.offset[1], t.scale[0], t.scale[1], t.rotation})
      if (!std::isfinite(v)) rd.error(tp, "a value is beyond the float range");
    if (field(*tt, "texCoord")) {
      const uint64_t set = rd.get_uint(*tt, "texCoord", tp, std::nullopt);
      if (set > 0xFFFF) rd.error(tp + ".texCoord", fmt::format("{} is not a texture coordinate set", set));
      t.texcoord = int32_t(set);
    }
    return t;
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; the texture transform is ignored", e.diagnostic().message));
    return {};
  }
}

// The glTF image a texture uses: its `source`, else the first extension's `source`.
std::optional<uint32_t> texture_source(Reader& rd, uint32_t t) {
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
  return src;
}

// Where glTF image `i` is: its relative file URI, else its name with its bytes in the file.
void image_reference(Reader& rd, uint32_t i, Slot& s) {
  const std::string ip = fmt::format("images[{}]", i);
  const json& img = rd.element("images", i);
  std::optional<uint32_t> bv = rd.opt_index(img, "bufferView", ip, "bufferViews");
  std::string uri = rd.get_string(img, "uri", ip);
  if (!uri.empty() && uri.compare(0, 5, "data:") != 0) {
    s.reference = percent_decode(uri);
    return;
  }
  s.reference = rd.get_string(img, "name", ip);
  if (bv || !uri.empty()) s.image = i;
}

// The file name's stem ("textures/page-14_tcmask.png" -> "page-14_tcmask").
std::string stem(std::string_view name) {
  if (size_t slash = name.find_last_of("/\\"); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (size_t dot = name.rfind('.'); dot != std::string_view::npos && dot > 0) name = name.substr(0, dot);
  return std::string(name);
}

// The team colour mask meshport embedded (extras "team_colour_image", an image index; its name is
// the mask's `reference`). A tool may have renumbered the images (Blender keeps only those a
// material uses): the index counts only when that image has the mask's name, else the image so
// named is taken; none, or an index that is not an image: the reference alone, with a warning.
// The stem of each image's name (else URI), first index per stem: built once per file, so that
// finding masks by name costs one pass however many materials ask.
using ImageStems = std::optional<std::unordered_map<std::string, uint32_t>>;
std::string image_stem(const json& img) {
  const json* n = img.is_object() ? field(img, "name") : nullptr;
  const json* u = img.is_object() ? field(img, "uri") : nullptr;
  return stem(n && n->is_string() ? n->get<std::string>() : u && u->is_string() ? percent_decode(u->get<std::string>()) : "");
}

Slot team_colour_slot(Reader& rd, const json& mp, const std::string& xp, const std::string& reference,
                      ImageStems& stems) {
  Slot s;
  const json* v = field(mp, "team_colour_image");
  if (!v) return s;
  const json& imgs = rd.top("images");
  const std::optional<uint64_t> index = as_uint(*v);
  const std::string want = stem(reference);
  std::optional<uint32_t> found;
  if (index && *index < imgs.size() && !want.empty() && image_stem(imgs[size_t(*index)]) == want) found = uint32_t(*index);
  if (!found && !want.empty()) {
    if (!stems) {
      stems.emplace();
      for (size_t i = 0; i < imgs.size(); ++i) stems->emplace(image_stem(imgs[i]), uint32_t(i));
    }
    if (auto it = stems->find(want); it != stems->end()) found = it->second;
  }
  if (!found) {
    rd.warn(fmt::format("{}.team_colour_image: {} is not an image named '{}' (the mask): the material keeps only its "
                        "name",
                        xp, describe(*v), text::clip(reference)));
    return s;
  }
  image_reference(rd, *found, s);
  return s;
}

// alphaMode ("OPAQUE", "MASK", "BLEND"; another value is opaque, with a warning), alphaCutoff
// (a number >= 0, default 0.5) and meshport's "blend" extra of a BLEND material.
void read_alpha(Reader& rd, const json& m, const json* mp, const std::string& path, Material& mat) {
  const std::string mode = rd.get_string(m, "alphaMode", path);
  if (mode == "MASK") {
    mat.alpha_mode = AlphaMode::Mask;
  } else if (mode == "BLEND") {
    mat.alpha_mode = AlphaMode::Blend;
  } else if (!mode.empty() && mode != "OPAQUE") {
    rd.warn(fmt::format("{}.alphaMode: '{}' is not OPAQUE, MASK or BLEND: read as OPAQUE", path, text::clip(mode)));
  }
  const double cutoff = rd.get_number(m, "alphaCutoff", path, 0.5);
  if (cutoff >= 0 && std::isfinite(cutoff))
    mat.alpha_cutoff = narrow(cutoff);
  else
    rd.warn(fmt::format("{}.alphaCutoff: {} is below 0: 0.5 is used", path, cutoff));
  if (!mp || mat.alpha_mode != AlphaMode::Blend) return;
  const std::string blend = rd.get_string(*mp, "blend", path + ".extras.meshport");
  if (blend == "additive") mat.blend = BlendOp::Additive;
  else if (blend == "premultiplied") mat.blend = BlendOp::Premultiplied;
  else if (!blend.empty() && blend != "over")
    rd.warn(fmt::format("{}.extras.meshport.blend: '{}' is not over, additive or premultiplied: over is used", path,
                        text::clip(blend)));
}

Slot texture_slot(Reader& rd, const json& info, const std::string& path) {
  Slot s;
  const uint32_t t = rd.get_index(info, "index", path, "textures");
  std::optional<uint32_t> src = texture_source(rd, t);
  s.sampler = sampler_of(rd, t);
  try {
    const uint64_t set = rd.get_uint(info, "texCoord", path, 0);
    if (set > 0xFFFF) rd.error(path + ".texCoord", fmt::format("{} is not a texture coordinate set", set));
    s.texcoord = uint32_t(set);
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; set 0 is used", e.diagnostic().message));
  }
  s.transform = texture_transform(rd, info, path);
  if (src) image_reference(rd, *src, s);
  return s;
}

// A slot meshport reads only to write it back (metallic-roughness, occlusion, emissive): a
// malformed one is dropped with a warning, as files that read before these slots were kept still do.
Slot optional_slot(Reader& rd, const json& info, const std::string& path) {
  try {
    return texture_slot(rd, info, path);
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; the texture is dropped", e.diagnostic().message));
    return {};
  }
}

// A finite number of a slot (normalTexture.scale, occlusionTexture.strength); otherwise the
// default, with a warning.
float tolerant_number(Reader& rd, const json& o, const char* key, const std::string& path, double def) {
  try {
    const float v = narrow(rd.get_number(o, key, path, def));
    if (!std::isfinite(v)) rd.error(path + "." + key, "is beyond the float range");
    return v;
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; {} is used", e.diagnostic().message, def));
    return float(def);
  }
}

std::string mime_of(image::ImageFormat f) {
  if (f == image::ImageFormat::Png) return "image/png";
  if (f == image::ImageFormat::Jpeg) return "image/jpeg";
  return {};
}

// "skin.png" -> "skin-2.png"
std::string with_suffix(const std::string& name, size_t k) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return fmt::format("{}-{}", name, k);
  return fmt::format("{}-{}{}", name.substr(0, dot), k, name.substr(dot));
}

// Image formats glTF extensions add that meshport does not decode, by their magic.
std::string_view unread_format(std::span<const uint8_t> b) {
  static const uint8_t ktx2[12] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n'};
  if (b.size() >= 12 && std::equal(ktx2, ktx2 + 12, b.begin())) return "KTX2 (KHR_texture_basisu)";
  if (b.size() >= 12 && std::equal(b.begin(), b.begin() + 4, "RIFF") && std::equal(b.begin() + 8, b.begin() + 12, "WEBP"))
    return "WebP (EXT_texture_webp)";
  return {};
}

}  // namespace

const ImageBytes* image_bytes(Reader& rd, uint32_t i) {
  SceneImages& si = rd.images;
  if (si.tried.empty()) {
    si.tried.assign(rd.top("images").size(), 0);
    si.bytes.resize(si.tried.size());
    si.why.resize(si.tried.size());
  }
  if (si.tried[i]) return si.bytes[i] ? &*si.bytes[i] : nullptr;
  si.tried[i] = 1;
  const std::string ip = fmt::format("images[{}]", i);
  const json& img = rd.element("images", i);
  auto skip = [&](const std::string& why) -> const ImageBytes* {
    si.why[i] = why;
    return nullptr;
  };
  std::string declared = rd.get_string(img, "mimeType", ip);
  ImageBytes out;
  if (auto bv = rd.opt_index(img, "bufferView", ip, "bufferViews")) {
    out.bytes = view(rd, *bv).bytes;
  } else {
    const std::string uri = rd.get_string(img, "uri", ip);
    size_t comma = uri.find(',');
    std::string_view header = std::string_view(uri).substr(5, comma == std::string::npos ? 0 : comma - 5);
    if (comma == std::string::npos || header.size() < 7 || header.substr(header.size() - 7) != ";base64")
      return skip("only base64 data URIs are read");
    if (declared.empty()) declared = std::string(header.substr(0, header.find(';')));
    const u128 need = u128(uri.size() - comma) / 4 * 3 + 3;
    if (need > rd.remaining_proportional()) return skip("its data would need more memory than the input can justify");
    rd.spend_proportional(need, ip, "the decoded data");
    size_t bad = base64_decode(std::string_view(uri).substr(comma + 1), out.owned);
    if (bad != std::string_view::npos) return skip(fmt::format("invalid base64 data at character {} of the data", bad));
    out.bytes = out.owned;
  }
  const image::ImageFormat format = image::detect_image(out.bytes, "");
  const std::string actual = mime_of(format);
  if (actual.empty()) {
    if (std::string_view other = unread_format(out.bytes); !other.empty())
      return skip(fmt::format("its bytes are {}, which meshport does not decode", other));
    return skip(fmt::format("its bytes are {}, not PNG or JPEG",
                            format == image::ImageFormat::Unknown ? std::string("of no known image format")
                                                                  : std::string(image::format_name(format))));
  }
  if (declared.empty())
    rd.warn(fmt::format("{}: no mimeType: taken as {} from its bytes", ip, actual));
  else if (declared != actual)
    return skip(fmt::format("mimeType '{}' but its bytes are {}", text::clip(declared), image::format_name(format)));
  if (image::ImageInfo info = image::read_image_info(out.bytes, ""); !info.error.empty())
    return skip(fmt::format("bad {}: {}", image::format_name(format), info.error));
  out.mime_type = actual;
  si.bytes[i] = std::move(out);
  ImageBytes& kept = *si.bytes[i];
  if (!kept.owned.empty()) kept.bytes = kept.owned;
  return &kept;
}

namespace {

// The Scene image for glTF image `i` under the file name made from `name_hint` (the restored
// reference, the image's name, else "image<i>"): the one already made for the same pair, else a
// new one whose path is unique in the Scene (any case; "-2", "-3" before the extension). Its
// path, or "" when the image is not usable.
std::string scene_image(Reader& rd, uint32_t i, const std::string& name_hint) {
  const ImageBytes* b = image_bytes(rd, i);
  if (!b) return {};
  SceneImages& si = rd.images;
  const std::string wanted =
      image::image_file_name(name_hint.empty() ? fmt::format("image{}", i) : name_hint, b->mime_type);
  if (auto it = si.of.find({i, wanted}); it != si.of.end()) return rd.scene.images[it->second].path;
  if (b->bytes.size() > rd.remaining_proportional()) {
    rd.warn(fmt::format("images[{}]: another copy ('{}') would need more memory than the input can justify: not "
                        "read",
                        i, text::clip(wanted)));
    return {};
  }
  rd.spend_proportional(b->bytes.size(), fmt::format("images[{}]", i), "another copy");
  std::string path = wanted;
  if (si.taken.count(text::lower(path))) {
    size_t& k = si.next_suffix[text::lower(wanted)];
    if (k < 2) k = 2;
    for (path = with_suffix(wanted, k); si.taken.count(text::lower(path)); path = with_suffix(wanted, ++k)) {
    }
  }
  si.taken[text::lower(path)] = rd.scene.images.size();
  si.of[{i, wanted}] = rd.scene.images.size();
  Image im;
  im.path = path;
  im.mime_type = b->mime_type;
  im.data.assign(b->bytes.begin(), b->bytes.end());
  rd.scene.images.push_back(std::move(im));
  return path;
}

// The slot's final reference: the extras' reference when it is given (its file name names the
// Scene image), the Scene image, or the reference the glTF gives. An image in the file that
// cannot be used is named in a warning with the material (`material`: "materials[1] ('Head')")
// and the slot.
std::string resolve(Reader& rd, const Slot& s, const std::string& restored, const std::string& material,
                    std::string_view slot) {
  const std::string& reference = restored.empty() ? s.reference : restored;
  if (s.image) {
    std::string p = scene_image(rd, *s.image, reference);
    if (!p.empty()) return p;
    if (const std::string& why = rd.images.why[*s.image]; !why.empty())
      rd.warn(fmt::format("{}: its {}, images[{}], is not read: {}; {}", material, slot, *s.image, why,
                          reference.empty() ? "the material has none"
                                            : fmt::format("the material keeps only its name '{}'", text::clip(reference))));
  }
  return reference;
}

// A slot of the Scene: the resolved reference, the texture coordinate set and transform.
TextureSlot scene_slot(Reader& rd, const Slot& s, const std::string& restored, const std::string& who,
                       std::string_view slot) {
  TextureSlot t;
  t.texture = resolve(rd, s, restored, who, slot);
  t.texcoord = s.texcoord;
  t.transform = s.transform;
  return t;
}

// Every textureInfo (an object member whose name ends in "Texture" and that has an "index") in
// the extensions object `e`: its texture becomes Material::extension_textures[k] and its
// "index" k. A textureInfo whose index is not a texture is dropped with a warning.
void extension_textures(Reader& rd, json& e, const std::string& path, const std::string& who,
                        const std::vector<std::string>& restored, Material& mat) {
  if (!e.is_object()) {
    if (e.is_array())
      for (size_t k = 0; k < e.size(); ++k) extension_textures(rd, e[k], fmt::format("{}[{}]", path, k), who, restored, mat);
    return;
  }
  std::vector<std::string> bad;
  for (auto& [key, v] : e.items()) {
    const std::string p = path + "." + key;
    const bool info = key.size() > 7 && key.compare(key.size() - 7, 7, "Texture") == 0 && v.is_object() &&
                      field(v, "index");
    if (!info) {
      extension_textures(rd, v, p, who, restored, mat);
      continue;
    }
    try {
      const size_t k = mat.extension_textures.size();
      const Slot s = texture_slot(rd, v, p);
      mat.extension_textures.push_back(resolve(rd, s, k < restored.size() ? restored[k] : std::string(), who, p));
      if (!s.sampler.is_default()) mat.samplers.emplace_back(extension_slot(k), s.sampler);
      v["index"] = k;
    } catch (const Error& x) {
      rd.warn(fmt::format("{}; the texture is dropped", x.diagnostic().message));
      bad.push_back(key);
    }
  }
  for (const std::string& k : bad) e.erase(k);
}

// The material's extensions but what the Scene holds elsewhere (the specular colour texture), as
// JSON text with their textures in mat.extension_textures.
void read_extensions(Reader& rd, const json& m, const std::string& path, const std::string& who,
                     const std::vector<std::string>& restored, bool specular_colour, Material& mat) {
  const json* ext = field(m, "extensions");
  if (!ext || !ext->is_object() || ext->empty()) return;
  // The copy is paid for as the document was (about 32 bytes of tree per byte of text at most).
  std::string text = ext->dump();
  rd.spend(u128(text.size()) * 32, path + ".extensions", "the material's extensions");
  json e = json::parse(text);
  text = std::string();
  if (specular_colour) {
    json& spec = e["KHR_materials_specular"];
    spec.erase("specularColorTexture");
    if (spec.empty()) e.erase("KHR_materials_specular");  // the writer's own: nothing but the slot
    if (e.empty()) return;
  }
  extension_textures(rd, e, path + ".extensions", who, restored, mat);
  mat.gltf_extensions = e.dump();
}

// The material's extras but meshport's own, as JSON text.
std::string other_extras(const json& m) {
  const json* x = field(m, "extras");
  if (!x) return {};
  json e = *x;
  if (e.is_object()) e.erase("meshport");
  if (e.is_object() && e.empty()) return {};
  return e.dump();
}

}  // namespace

// ---- Materials -------------------------------------------------------------------------------

std::string texture_name(Reader& rd, uint32_t t) {
  std::optional<uint32_t> src = texture_source(rd, t);
  if (!src) return {};
  const std::string ip = fmt::format("images[{}]", *src);
  const json& img = rd.element("images", *src);
  rd.opt_index(img, "bufferView", ip, "bufferViews");
  std::string uri = rd.get_string(img, "uri", ip);
  if (!uri.empty() && uri.compare(0, 5, "data:") != 0) return percent_decode(uri);
  return rd.get_string(img, "name", ip);
}

// KHR_materials_variants: the root's variant names (Scene::material_variants).
void read_variants(Reader& rd) {
  const json* ext = field(rd.doc, "extensions");
  const json* kv = ext && ext->is_object() ? field(*ext, "KHR_materials_variants") : nullptr;
  if (!kv) return;
  const std::string vp = "extensions.KHR_materials_variants";
  try {
    if (!kv->is_object()) rd.error(vp, "is not an object");
    const json& list = rd.get_array(*kv, "variants", vp);
    std::vector<std::string> names;
    for (size_t i = 0; i < list.size(); ++i)
      names.push_back(rd.get_string(rd.object_at(list, i, fmt::format("{}.variants[{}]", vp, i)), "name",
                                    fmt::format("{}.variants[{}]", vp, i)));
    rd.scene.material_variants = std::move(names);
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; the material variants are not kept", e.diagnostic().message));
  }
}

void read_variant_mappings(Reader& rd, const json& prim, const std::string& path, Mesh& m) {
  const json* ext = field(prim, "extensions");
  const json* kv = ext && ext->is_object() ? field(*ext, "KHR_materials_variants") : nullptr;
  if (!kv) return;
  const std::string vp = path + ".extensions.KHR_materials_variants";
  try {
    if (!kv->is_object()) rd.error(vp, "is not an object");
    const json& list = rd.get_array(*kv, "mappings", vp);
    std::vector<Mesh::VariantMapping> out;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string mp = fmt::format("{}.mappings[{}]", vp, i);
      const json& e = rd.object_at(list, i, mp);
      Mesh::VariantMapping v;
      v.material = int32_t(rd.get_index(e, "material", mp, "materials"));
      const json& vs = rd.get_array(e, "variants", mp);
      for (size_t k = 0; k < vs.size(); ++k) {
        const std::optional<uint64_t> x = as_uint(vs[k]);
        if (!x || *x >= rd.scene.material_variants.size())
          rd.error(fmt::format("{}.variants[{}]", mp, k),
                   fmt::format("{} is not a variant (the file has {})", describe(vs[k]), rd.scene.material_variants.size()));
        v.variants.push_back(uint32_t(*x));
      }
      out.push_back(std::move(v));
    }
    m.material_variants = std::move(out);
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; the primitive's material variants are not kept", e.diagnostic().message));
  }
}

void read_materials(Reader& rd) {
  read_variants(rd);
  const json& mats = rd.top("materials");
  ImageStems stems;
  for (size_t i = 0; i < mats.size(); ++i) {
    rd.part = fmt::format("materials[{}]", i);
    const std::string path = fmt::format("materials[{}]", i);
    const json& m = rd.object_at(mats, i, path);
    Material mat;
    mat.name = rd.get_string(m, "name", path);
    Slot base, normal, specular, metal, occlusion, emissive;
    bool specular_colour = false;
    // glTF's defaults: metallic 1, roughness 1 (the Scene's metallic default is 0).
    mat.metallic = 1;
    mat.roughness = 1;
    if (const json* pbr = field(m, "pbrMetallicRoughness")) {
      const std::string pp = path + ".pbrMetallicRoughness";
      if (const json* bct = field(*pbr, "baseColorTexture")) base = texture_slot(rd, *bct, pp + ".baseColorTexture");
      if (const json* mr = field(*pbr, "metallicRoughnessTexture"))
        metal = optional_slot(rd, *mr, pp + ".metallicRoughnessTexture");
      rd.get_floats(*pbr, "baseColorFactor", pp, mat.base_color.data(), 4);
      mat.metallic = narrow(rd.get_number(*pbr, "metallicFactor", pp, 1.0));
      mat.roughness = narrow(rd.get_number(*pbr, "roughnessFactor", pp, 1.0));
    }
    if (const json* nt = field(m, "normalTexture")) {
      normal = texture_slot(rd, *nt, path + ".normalTexture");
      mat.normal_scale = tolerant_number(rd, *nt, "scale", path + ".normalTexture", 1.0);
    }
    if (const json* ot = field(m, "occlusionTexture")) {
      occlusion = optional_slot(rd, *ot, path + ".occlusionTexture");
      mat.occlusion_strength = tolerant_number(rd, *ot, "strength", path + ".occlusionTexture", 1.0);
    }
    if (const json* et = field(m, "emissiveTexture")) emissive = optional_slot(rd, *et, path + ".emissiveTexture");
    try {
      mat.double_sided = rd.get_bool(m, "doubleSided", path, false);
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; read as false", e.diagnostic().message));
    }
    rd.get_floats(m, "emissiveFactor", path, mat.emissive.data(), 3);
    if (const json* ext = field(m, "extensions"))
      if (const json* spec = field(*ext, "KHR_materials_specular")) {
        const std::string sp = path + ".extensions.KHR_materials_specular";
        if (const json* t = field(*spec, "specularColorTexture")) {
          specular = texture_slot(rd, *t, sp + ".specularColorTexture");
          specular_colour = true;
        } else if (const json* t2 = field(*spec, "specularTexture"))
          specular = texture_slot(rd, *t2, sp + ".specularTexture");
      }
    // meshport's extras restore the Scene's references (a non-empty one wins over the glTF's).
    std::string r_base, r_normal, r_specular, r_team, r_metal, r_occlusion, r_emissive;
    std::vector<std::string> r_extension;
    Slot team;
    const json* mp = meshport_extras(m);
    if (mp) {
      try {
        const std::string xp = path + ".extras.meshport";
        std::string name = rd.get_string(*mp, "name", xp);
        r_base = rd.get_string(*mp, "base_color_texture", xp);
        r_normal = rd.get_string(*mp, "normal_texture", xp);
        r_specular = rd.get_string(*mp, "specular_texture", xp);
        r_team = rd.get_string(*mp, "team_colour_texture", xp);
        r_metal = rd.get_string(*mp, "metallic_roughness_texture", xp);
        r_occlusion = rd.get_string(*mp, "occlusion_texture", xp);
        r_emissive = rd.get_string(*mp, "emissive_texture", xp);
        const json& rx = rd.get_array(*mp, "extension_textures", xp);
        for (size_t k = 0; k < rx.size(); ++k)
          r_extension.push_back(rx[k].is_string() ? rx[k].get<std::string>() : std::string());
        if (!r_team.empty()) team = team_colour_slot(rd, *mp, xp, r_team, stems);
        mat.name = std::move(name);
      } catch (const Error& e) {
        rd.warn(fmt::format("{}; ignored", e.diagnostic().message));
        r_base.clear(), r_normal.clear(), r_specular.clear(), r_team.clear();
        r_metal.clear(), r_occlusion.clear(), r_emissive.clear(), r_extension.clear();
        team = {};
        mp = nullptr;
      }
    }
    try {
      read_alpha(rd, m, mp, path, mat);
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; the material is read as opaque", e.diagnostic().message));
      mat.alpha_mode = AlphaMode::Opaque, mat.alpha_cutoff = 0.5f, mat.blend = BlendOp::Over;
    }
    const std::string who = fmt::format("{} ('{}')", path, text::clip(mat.name));
    mat.base_color_texture = resolve(rd, base, r_base, who, "base colour texture");
    mat.normal_texture = resolve(rd, normal, r_normal, who, "normal texture");
    mat.specular_texture = resolve(rd, specular, r_specular, who, "specular texture");
    mat.team_colour_texture = resolve(rd, team, r_team, who, "team colour mask");
    mat.base_color_texcoord = base.texcoord, mat.base_color_transform = base.transform;
    mat.normal_texcoord = normal.texcoord, mat.normal_transform = normal.transform;
    mat.specular_texcoord = specular.texcoord, mat.specular_transform = specular.transform;
    mat.metallic_roughness_texture = scene_slot(rd, metal, r_metal, who, "metallic-roughness texture");
    mat.occlusion_texture = scene_slot(rd, occlusion, r_occlusion, who, "occlusion texture");
    mat.emissive_texture = scene_slot(rd, emissive, r_emissive, who, "emissive texture");
    try {
      read_extensions(rd, m, path, who, r_extension, specular_colour, mat);
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; the material's extensions are not kept", e.diagnostic().message));
      mat.gltf_extensions.clear(), mat.extension_textures.clear();
    }
    mat.gltf_extras = other_extras(m);
    for (const auto& [slot, from] : {std::pair{"base colour", &base}, std::pair{"normal", &normal},
                                     std::pair{"specular", &specular}, std::pair{"metallic roughness", &metal},
                                     std::pair{"occlusion", &occlusion}, std::pair{"emissive", &emissive}})
      if (!from->sampler.is_default()) mat.samplers.emplace_back(slot, from->sampler);
    std::stable_sort(mat.samplers.begin(), mat.samplers.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
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
