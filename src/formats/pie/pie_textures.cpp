// PIE texture pages <-> material slots (pie_textures.h).
#include "formats/pie/pie_textures.h"

namespace meshport::pie {
namespace {

std::string file_name(std::string_view path) {
  size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The line of `kind` for `tileset` in effect in `level` (null: global scope).
const PieTexture* map_in_effect(const PieData& d, const PieLevel* level, PieTexture::Kind kind, int32_t tileset) {
  const PieSettings* scopes[2] = {level ? &level->overrides : nullptr, &d.global};
  for (int32_t ts : {tileset, int32_t(0), int32_t(-1)})
    for (const PieSettings* s : scopes)
      if (s)
        if (const PieTexture* t = find_page(*s, kind, ts)) return t;
  return nullptr;
}

}  // namespace

const PieTexture* find_page(const PieSettings& s, PieTexture::Kind kind, int32_t tileset) {
  const PieTexture* best = nullptr;
  for (const PieTexture& t : s.textures) {
    if (t.kind != kind) continue;
    if (tileset >= 0 ? t.tileset == tileset : (!best || t.tileset < best->tileset)) {
      if (tileset >= 0) return &t;
      best = &t;
    }
  }
  return best;
}

std::string derived_tcmask(std::string_view page) {
  if (!page.starts_with("page-")) return {};
  size_t i = 5, digits = 0;
  while (i < page.size() && page[i] >= '0' && page[i] <= '9') ++i, ++digits;
  if (digits == 0 || i >= page.size() || (page[i] != '-' && page.substr(i) != ".png")) return {};
  return std::string(page.substr(0, i)) + "_tcmask.png";
}

PageSet pages_in_effect(const PieData& d, int32_t level, const PieTexture* texture) {
  const PieLevel* L = level >= 0 && size_t(level) < d.levels.size() ? &d.levels[size_t(level)] : nullptr;
  using K = PieTexture::Kind;
  if (!texture) {
    const PieSettings none;
    const PieSettings& own = L ? L->overrides : none;
    texture = find_page(own, K::Texture, 0);
    if (!texture) texture = find_page(d.global, K::Texture, 0);
    if (!texture) texture = find_page(own, K::Texture, -1);
    if (!texture) texture = find_page(d.global, K::Texture, -1);
  }
  PageSet p;
  if (!texture) return p;
  p.base = texture->file;
  auto map = [&](K kind) {
    const PieTexture* t = map_in_effect(d, L, kind, texture->tileset);
    return t ? t->file : std::string();
  };
  p.tcmask = map(K::TcMask);
  p.normal = map(K::NormalMap);
  p.specular = map(K::SpecularMap);
  if (p.tcmask.empty()) {
    if (type_in_effect(d, level) & 0x10000) p.tcmask = derived_tcmask(p.base);
  }
  return p;
}

uint32_t type_in_effect(const PieData& d, int32_t level) {
  const PieLevel* L = level >= 0 && size_t(level) < d.levels.size() ? &d.levels[size_t(level)] : nullptr;
  return L && L->overrides.has_type ? L->overrides.type : d.global.type;
}

void set_alpha(Material& m, uint32_t type) {
  m.alpha_cutoff = 0.5f;
  m.blend = BlendOp::Over;
  m.alpha_mode = type & kBlendFlags ? AlphaMode::Blend : AlphaMode::Mask;
  if (type & 0x4)
    m.blend = BlendOp::Premultiplied;
  else if (type & 0x2)
    m.blend = BlendOp::Additive;
}

bool same_alpha(const Material& a, const Material& b) {
  return a.alpha_mode == b.alpha_mode && a.alpha_cutoff == b.alpha_cutoff && a.blend == b.blend;
}

uint32_t blend_flags(const Material& m) {
  if (m.alpha_mode != AlphaMode::Blend) return 0;
  return m.blend == BlendOp::Premultiplied ? 0x4 : m.blend == BlendOp::Additive ? 0x2 : 0;
}

PageSet pages_of(const Material& m) {
  return {file_name(m.base_color_texture), file_name(m.team_colour_texture), file_name(m.normal_texture),
          file_name(m.specular_texture)};
}

}  // namespace meshport::pie
