// Team colour: what Warzone 2100 shows for a texture page with a TCMASK, baked into the page.
#pragma once

#include "image/image.h"

#include <array>
#include <cstdint>
#include <string>

namespace meshport::ops {

// Warzone 2100's "grain merge" of a team colour into a texture page (its model shaders):
// colour = texture + (team - 0.5) * mask.alpha, per RGB channel, clamped to 0..1; the page's
// alpha is kept. The mask is sampled at the same texture coordinates, so a mask of another size
// is read at the nearest texel. Returns "" or why the pixels cannot be combined (empty images).
std::string apply_team_colour(image::Pixels& page, const image::Pixels& mask, std::array<uint8_t, 3> team);

// "R,G,B" (each 0..255) as a colour; false when the text is not three such numbers.
bool parse_team_colour(const std::string& text, std::array<uint8_t, 3>& out);

}  // namespace meshport::ops
