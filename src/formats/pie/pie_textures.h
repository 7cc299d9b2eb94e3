// PIE texture pages and the Scene's material slots: what the reader puts into a level's material
// and what the writer checks the kept texture lines against (docs/pie.md, "Materials").
#pragma once

#include <meshport/scene.h>
#include <meshport/source/pie.h>

#include <string>
#include <string_view>

namespace meshport::pie {

// The four pages of a material: TEXTURE, TCMASK, NORMALMAP, SPECULARMAP (file names, "" none).
struct PageSet {
  std::string base, tcmask, normal, specular;
  bool operator==(const PageSet&) const = default;
};

// The first line of `kind` and `tileset` in `s`, or (tileset < 0) of the lowest tileset given.
const PieTexture* find_page(const PieSettings& s, PieTexture::Kind kind, int32_t tileset);

// The pages in effect for `level` (an index into d.levels; -1: the global scope). `texture` is the
// scope's TEXTURE line the set is for; null: the level's own page by the reader's rule (its
// tileset 0 page, else the global tileset 0, else the level's lowest tileset, else the global
// lowest). Each map is the level's line of the page's tileset, else the global one, else the
// tileset 0 line of the level, then the global, then the lowest tileset given. A model with TYPE
// flag 10000 (the level's TYPE, else the global) and no TCMASK line gets the mask the engine
// derives: "page-NN_tcmask.png" for a page "page-NN-...".
PageSet pages_in_effect(const PieData& d, int32_t level, const PieTexture* texture);

// The pages a material names: the file names (no folder) of its slots.
PageSet pages_of(const Material& m);

// The TYPE flags in effect for `level` (-1: the global scope): the level's PIE 4 TYPE, else the
// global one.
uint32_t type_in_effect(const PieData& d, int32_t level);

// How Warzone 2100 draws a model's page by its TYPE flags (docs/pie.md "Alpha and blending"):
// 0x4 premultiplied blending, else 0x2 additive blending, else opaque with its alpha test
// (fragments of alpha <= 0.5 discarded): Blend Premultiplied, Blend Additive or Mask 0.5.
void set_alpha(Material& m, uint32_t type);
bool same_alpha(const Material& a, const Material& b);
// The TYPE blending flags (0x2, 0x4) of a material's alpha: what set_alpha() reads back.
uint32_t blend_flags(const Material& m);
inline constexpr uint32_t kBlendFlags = 0x6;

// "page-NN_tcmask.png" for a page "page-NN-anything.png" (or "page-NN.png"); "" otherwise.
std::string derived_tcmask(std::string_view page);

}  // namespace meshport::pie
