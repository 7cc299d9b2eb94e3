// A contact sheet: thumbnails in a grid, each with its model's name under it (`meshport
// thumbnail --sheet`, docs/viewer.md). The text is drawn with stb_easy_font (Debian's libstb-dev).
#pragma once

#include "image/image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace meshport::view {

struct SheetEntry {
  std::string name;     // written under the picture (shortened from the left to fit)
  image::Pixels image;  // size x size RGBA, or empty (a failed model: a crossed cell)
};

// Columns: ceil(sqrt(n)); each cell is size pixels wide and size + kSheetLabel high, on a dark
// grey background.
inline constexpr uint32_t kSheetLabel = 16;
image::Pixels contact_sheet(const std::vector<SheetEntry>& entries, uint32_t size);

// `text` drawn in `colour` (RGBA) with its top left at (x, y), clipped to the image.
void draw_text(image::Pixels& image, const std::string& text, int x, int y, const uint8_t colour[4]);
// The width of `text` in pixels as draw_text draws it.
int text_width(const std::string& text);

}  // namespace meshport::view
