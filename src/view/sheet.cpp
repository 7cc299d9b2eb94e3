// Contact sheets (sheet.h).
#include "view/sheet.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wconversion"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <cmath>

namespace meshport::view {

namespace {

struct Vertex {  // stb_easy_font's vertex: x, y, z, RGBA
  float x, y, z;
  uint8_t c[4];
};

void blend(image::Pixels& img, uint32_t x, uint32_t y, const uint8_t* src) {
  uint8_t* d = &img.rgba[(size_t(y) * img.width + x) * 4];
  const uint32_t a = src[3];
  for (int k = 0; k < 3; ++k) d[k] = uint8_t((src[k] * a + d[k] * (255 - a) + 127) / 255);
  d[3] = uint8_t(a + (d[3] * (255 - a) + 127) / 255);
}

void fill(image::Pixels& img, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const uint8_t colour[4]) {
  for (uint32_t y = y0; y < std::min(y0 + h, img.height); ++y)
    for (uint32_t x = x0; x < std::min(x0 + w, img.width); ++x) blend(img, x, y, colour);
}

// Printable ASCII only (the font has nothing else): other bytes become '?'.
std::string ascii(const std::string& text) {
  std::string s = text;
  for (char& c : s)
    if (c < 32 || c > 126) c = '?';
  return s;
}

// `name` shortened from the left ("...ts/blhq.pie") to fit `room` pixels.
std::string fit(const std::string& name, int room) {
  std::string s = ascii(name);
  if (text_width(s) <= room) return s;
  while (s.size() > 1 && text_width("..." + s) > room) s.erase(0, 1);
  return "..." + s;
}

}  // namespace

int text_width(const std::string& text) {
  std::string s = ascii(text);
  return stb_easy_font_width(s.data());
}

void draw_text(image::Pixels& image, const std::string& text, int x, int y, const uint8_t colour[4]) {
  std::string s = ascii(text);
  std::vector<Vertex> quads(s.size() * 40 + 64);  // stb_easy_font needs ~270 bytes a character
  uint8_t c[4] = {colour[0], colour[1], colour[2], colour[3]};
  const int n = stb_easy_font_print(float(x), float(y), s.data(), c, quads.data(), int(quads.size() * sizeof(Vertex)));
  for (int q = 0; q < n; ++q) {
    const Vertex* v = &quads[size_t(q) * 4];
    const int x0 = int(std::lround(v[0].x)), y0 = int(std::lround(v[0].y));
    const int x1 = int(std::lround(v[2].x)), y1 = int(std::lround(v[2].y));
    for (int py = std::max(y0, 0); py < std::min(y1, int(image.height)); ++py)
      for (int px = std::max(x0, 0); px < std::min(x1, int(image.width)); ++px) blend(image, uint32_t(px), uint32_t(py), c);
  }
}

image::Pixels contact_sheet(const std::vector<SheetEntry>& entries, uint32_t size) {
  const uint32_t n = uint32_t(std::max<size_t>(entries.size(), 1));
  const uint32_t columns = uint32_t(std::ceil(std::sqrt(double(n))));
  const uint32_t rows = (n + columns - 1) / columns;
  const uint32_t cell_h = size + kSheetLabel;
  image::Pixels sheet;
  sheet.width = columns * size;
  sheet.height = rows * cell_h;
  sheet.rgba.resize(size_t(sheet.width) * sheet.height * 4);
  const uint8_t background[4] = {0x20, 0x21, 0x24, 0xff}, text[4] = {0xe8, 0xea, 0xed, 0xff},
                cross[4] = {0xd9, 0x30, 0x25, 0xff};
  fill(sheet, 0, 0, sheet.width, sheet.height, background);
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint32_t x0 = uint32_t(i % columns) * size, y0 = uint32_t(i / columns) * cell_h;
    const image::Pixels& img = entries[i].image;
    if (img.width == size && img.height == size && img.rgba.size() == size_t(size) * size * 4) {
      for (uint32_t y = 0; y < size; ++y)
        for (uint32_t x = 0; x < size; ++x) blend(sheet, x0 + x, y0 + y, &img.rgba[(size_t(y) * size + x) * 4]);
    } else {  // a failed model: a red cross
      for (uint32_t k = 0; k < size; ++k) {  // two pixels wide, inside the cell
        const uint32_t w = k + 2 <= size ? 2 : 1;
        fill(sheet, x0 + k, y0 + k, w, 1, cross);
        fill(sheet, x0 + size - k - w, y0 + k, w, 1, cross);
      }
    }
    const std::string label = fit(entries[i].name, int(size) - 4);
    const int w = text_width(label);
    draw_text(sheet, label, int(x0) + std::max(2, (int(size) - w) / 2), int(y0 + size) + 4, text);
  }
  return sheet;
}

}  // namespace meshport::view
