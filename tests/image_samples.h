// Small images written in code, byte by byte from each format's layout, for tests/test_image.cpp
// and the image fuzz seeds (fuzz/make_image_seeds.cpp). Pixels are RGBA8, rows top to bottom.
#pragma once

#include "image/image.h"

#include <cstdint>
#include <string>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>

namespace image_samples {

using Bytes = std::vector<uint8_t>;
using meshport::image::Pixels;

inline void put16(Bytes& b, uint32_t v) {
  b.push_back(uint8_t(v));
  b.push_back(uint8_t(v >> 8));
}
inline void put32(Bytes& b, uint32_t v) {
  put16(b, v & 0xFFFF);
  put16(b, v >> 16);
}
inline void put16be(Bytes& b, uint32_t v) {
  b.push_back(uint8_t(v >> 8));
  b.push_back(uint8_t(v));
}
inline void put32be(Bytes& b, uint32_t v) {
  put16be(b, v >> 16);
  put16be(b, v & 0xFFFF);
}
inline void put(Bytes& b, std::string_view s) {
  for (char c : s) b.push_back(uint8_t(c));  // (insert of a range trips GCC 12's -Wstringop-overflow at -O2)
}

// A w x h picture with distinct pixels: red by x, green by y, blue and alpha varying.
inline Pixels picture(uint32_t w, uint32_t h, bool alpha = true) {
  Pixels p{w, h, {}};
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      p.rgba.push_back(uint8_t(x * 40 + 10));
      p.rgba.push_back(uint8_t(y * 50 + 20));
      p.rgba.push_back(uint8_t(200 - x * 7 - y * 11));
      p.rgba.push_back(alpha ? uint8_t(255 - x * 30 - y * 5) : uint8_t(255));
    }
  return p;
}
inline const uint8_t* at(const Pixels& p, uint32_t x, uint32_t y) { return p.rgba.data() + (size_t(y) * p.width + x) * 4; }

// TGA, true colour (type 2, or 10 with RLE), 24 or 32 bits, rows top to bottom (descriptor
// bit 5) or bottom to top.
inline Bytes tga(const Pixels& p, uint32_t bits, bool rle, bool top_down = true) {
  Bytes b = {0, 0, uint8_t(rle ? 10 : 2), 0, 0, 0, 0, 0, 0, 0, 0, 0};
  put16(b, p.width);
  put16(b, p.height);
  b.push_back(uint8_t(bits));
  b.push_back(uint8_t((top_down ? 0x20 : 0) | (bits == 32 ? 8 : 0)));
  std::vector<Bytes> pixels;
  for (uint32_t r = 0; r < p.height; ++r)
    for (uint32_t x = 0; x < p.width; ++x) {
      const uint8_t* c = at(p, x, top_down ? r : p.height - 1 - r);
      Bytes px = {c[2], c[1], c[0]};
      if (bits == 32) px.push_back(c[3]);
      pixels.push_back(px);
    }
  if (!rle) {
    for (const Bytes& px : pixels) b.insert(b.end(), px.begin(), px.end());
    return b;
  }
  // Runs of equal pixels as run packets, everything else as raw packets (both up to 128).
  for (size_t i = 0; i < pixels.size();) {
    size_t run = 1;
    while (i + run < pixels.size() && run < 128 && pixels[i + run] == pixels[i]) ++run;
    if (run > 1) {
      b.push_back(uint8_t(0x80 | (run - 1)));
      b.insert(b.end(), pixels[i].begin(), pixels[i].end());
      i += run;
      continue;
    }
    size_t raw = 1;
    while (i + raw < pixels.size() && raw < 128 && !(i + raw + 1 < pixels.size() && pixels[i + raw + 1] == pixels[i + raw])) ++raw;
    b.push_back(uint8_t(raw - 1));
    for (size_t k = 0; k < raw; ++k) b.insert(b.end(), pixels[i + k].begin(), pixels[i + k].end());
    i += raw;
  }
  return b;
}

// BMP with a 40-byte info header, uncompressed, 24 or 32 bits, rows bottom to top.
inline Bytes bmp(const Pixels& p, uint32_t bits) {
  const uint32_t row = (p.width * bits + 31) / 32 * 4;
  Bytes b;
  put(b, "BM");
  put32(b, 54 + row * p.height);
  put32(b, 0);
  put32(b, 54);
  put32(b, 40);
  put32(b, p.width);
  put32(b, p.height);
  put16(b, 1);
  put16(b, bits);
  put32(b, 0);
  put32(b, row * p.height);
  put32(b, 2835);
  put32(b, 2835);
  put32(b, 0);
  put32(b, 0);
  for (uint32_t r = 0; r < p.height; ++r) {
    const size_t start = b.size();
    for (uint32_t x = 0; x < p.width; ++x) {
      const uint8_t* c = at(p, x, p.height - 1 - r);
      b.insert(b.end(), {c[2], c[1], c[0]});
      if (bits == 32) b.push_back(c[3]);
    }
    b.resize(start + row, 0);
  }
  return b;
}

inline Bytes pcx_header(uint32_t w, uint32_t h, uint32_t planes, uint32_t line) {
  Bytes b = {10, 5, 1, 8};
  put16(b, 0);
  put16(b, 0);
  put16(b, w - 1);
  put16(b, h - 1);
  put16(b, 72);
  put16(b, 72);
  b.resize(65, 0);
  b.push_back(uint8_t(planes));
  put16(b, line);
  put16(b, 1);
  b.resize(128, 0);
  return b;
}

// PCX RLE of one scanline's bytes: runs (or bytes of 0xC0 and above) as count + value.
inline void pcx_rle(Bytes& b, const Bytes& line) {
  for (size_t i = 0; i < line.size();) {
    size_t run = 1;
    while (i + run < line.size() && run < 63 && line[i + run] == line[i]) ++run;
    if (run > 1 || line[i] >= 0xC0) b.push_back(uint8_t(0xC0 | run));
    b.push_back(line[i]);
    i += run;
  }
}

// PCX, 8 bits in 1 plane: `indices` (w * h) into `palette` (256 RGB entries, 768 bytes).
inline Bytes pcx8(uint32_t w, uint32_t h, const Bytes& indices, const Bytes& palette) {
  const uint32_t line = w + (w & 1);  // even, as the format asks
  Bytes b = pcx_header(w, h, 1, line);
  for (uint32_t y = 0; y < h; ++y) {
    Bytes l(indices.begin() + y * w, indices.begin() + (y + 1) * w);
    l.resize(line, 0);
    pcx_rle(b, l);
  }
  b.push_back(12);
  b.insert(b.end(), palette.begin(), palette.end());
  return b;
}

// PCX, 8 bits in 3 planes (RGB, alpha dropped) or 4 (RGBA).
inline Bytes pcx_rgb(const Pixels& p, uint32_t planes) {
  const uint32_t line = p.width + (p.width & 1);
  Bytes b = pcx_header(p.width, p.height, planes, line);
  for (uint32_t y = 0; y < p.height; ++y) {
    Bytes l;
    for (uint32_t c = 0; c < planes; ++c)
      for (uint32_t x = 0; x < line; ++x) l.push_back(x < p.width ? at(p, x, y)[c] : 0);
    pcx_rle(b, l);
  }
  return b;
}

inline Bytes dds_header(uint32_t w, uint32_t h, uint32_t pf_flags, std::string_view fourcc, uint32_t bits,
                        uint32_t r, uint32_t g, uint32_t bl, uint32_t a) {
  Bytes b;
  put(b, "DDS ");
  put32(b, 124);
  put32(b, 0x1007);  // caps, height, width, pixel format
  put32(b, h);
  put32(b, w);
  put32(b, 0);
  put32(b, 0);
  put32(b, 1);
  b.resize(76, 0);
  put32(b, 32);
  put32(b, pf_flags);
  if (fourcc.empty())
    put32(b, 0);
  else
    put(b, fourcc);
  put32(b, bits);
  put32(b, r);
  put32(b, g);
  put32(b, bl);
  put32(b, a);
  put32(b, 0x1000);  // DDSCAPS_TEXTURE
  b.resize(128, 0);
  return b;
}

// DDS, uncompressed 32-bit BGRA in memory (A8R8G8B8 masks).
inline Bytes dds_bgra(const Pixels& p) {
  Bytes b = dds_header(p.width, p.height, 0x41, "", 32, 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000);
  for (size_t i = 0; i < p.rgba.size(); i += 4) b.insert(b.end(), {p.rgba[i + 2], p.rgba[i + 1], p.rgba[i], p.rgba[i + 3]});
  return b;
}

// DDS, uncompressed 24-bit RGB in memory (R8G8B8 masks, red first), no alpha.
inline Bytes dds_rgb24(const Pixels& p) {
  Bytes b = dds_header(p.width, p.height, 0x40, "", 24, 0x0000FF, 0x00FF00, 0xFF0000, 0);
  for (size_t i = 0; i < p.rgba.size(); i += 4) b.insert(b.end(), {p.rgba[i], p.rgba[i + 1], p.rgba[i + 2]});
  return b;
}

// DDS with a FourCC and the given block bytes.
inline Bytes dds_blocks(uint32_t w, uint32_t h, std::string_view fourcc, const Bytes& blocks) {
  Bytes b = dds_header(w, h, 0x4, fourcc, 0, 0, 0, 0, 0);
  b.insert(b.end(), blocks.begin(), blocks.end());
  return b;
}

// Colours over a white matte, as Photoshop stores a merged image with alpha.
inline Pixels white_matte(Pixels p) {
  for (size_t i = 0; i < p.rgba.size(); i += 4)
    for (size_t c = 0; c < 3; ++c) p.rgba[i + c] = uint8_t((p.rgba[i + c] * p.rgba[i + 3] + 127) / 255 + 255 - p.rgba[i + 3]);
  return p;
}

// PSD, version 1, RGB (3 channels) or RGBA (4), 8 bits, raw (planar) data.
inline Bytes psd(const Pixels& p, uint32_t channels) {
  Bytes b;
  put(b, "8BPS");
  put16be(b, 1);
  b.resize(12, 0);
  put16be(b, channels);
  put32be(b, p.height);
  put32be(b, p.width);
  put16be(b, 8);
  put16be(b, 3);
  put32be(b, 0);  // colour mode data
  put32be(b, 0);  // image resources
  put32be(b, 0);  // layers and masks
  put16be(b, 0);  // raw
  for (uint32_t c = 0; c < channels; ++c)
    for (size_t i = 0; i < p.rgba.size(); i += 4) b.push_back(p.rgba[i + c]);
  return b;
}

// GIF89a, 1 x 1, a 2-colour global palette (red, black), the pixel is colour 0: LZW with a
// 2-bit minimum code size, codes clear (4), 0, end (5) in 3 bits each -> bytes 44 01.
inline Bytes gif_red_pixel() {
  Bytes b;
  put(b, "GIF89a");
  put16(b, 1);
  put16(b, 1);
  b.insert(b.end(), {0x80, 0, 0, 0xFF, 0, 0, 0, 0, 0});
  b.insert(b.end(), {0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0});
  b.insert(b.end(), {2, 2, 0x44, 0x01, 0, 0x3B});
  return b;
}

inline Bytes png(const Pixels& p) { return meshport::image::encode_png(p); }

// JPEG of the RGB of `p` (stb_image_write, quality 95).
inline Bytes jpeg(const Pixels& p) {
  Bytes rgb;
  for (size_t i = 0; i < p.rgba.size(); i += 4) rgb.insert(rgb.end(), {p.rgba[i], p.rgba[i + 1], p.rgba[i + 2]});
  Bytes out;
  auto append = [](void* context, void* data, int size) {
    auto* v = static_cast<Bytes*>(context);
    v->insert(v->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
  };
  stbi_write_jpg_to_func(append, &out, int(p.width), int(p.height), 3, rgb.data(), 95);
  return out;
}

}  // namespace image_samples
