// DDS (DirectDraw Surface), hand-written: no Debian package decodes it as a small permissive
// library. The top mip level of the first surface is decoded. Supported: uncompressed RGB,
// RGBA, BGRA, ... and luminance of 8 to 32 bits per pixel described by channel masks, and the
// block compressions DXT1 (BC1), DXT2/DXT3 (BC2) and DXT4/DXT5 (BC3); DXT2 and DXT4 (premultiplied
// alpha) are taken as they are stored. Anything else (DX10 headers, BC4-BC7, float formats) is
// refused by name.
//
// File: "DDS ", a 124-byte header (12 height, 16 width, 76 pixel format: 80 flags, 84 FourCC,
// 88 bits per pixel, 92..104 R G B A masks; offsets from the start of the file), data at 128.
#include "image/decoders.h"

#include <fmt/format.h>

#include <bit>
#include <cctype>

namespace meshport::image::detail {

namespace {

constexpr size_t kHeader = 128;
constexpr uint32_t kAlphaPixels = 0x1, kFourCC = 0x4, kRgb = 0x40, kLuminance = 0x20000;

enum class Kind { Masks, Bc1, Bc2, Bc3 };

uint32_t fourcc(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 | uint32_t(uint8_t(s[3])) << 24;
}

std::string fourcc_text(uint32_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    const auto c = char((v >> (8 * i)) & 0xFF);
    if (!std::isprint(static_cast<unsigned char>(c))) return fmt::format("{} (a Direct3D format number)", v);
    s += c;
  }
  return "'" + s + "'";
}

// The kind of data, or an error.
Kind kind_of(Bytes b, std::string& error) {
  const uint32_t flags = le32(b, 80), cc = le32(b, 84), bits = le32(b, 88);
  if (flags & kFourCC) {
    if (cc == fourcc("DXT1")) return Kind::Bc1;
    if (cc == fourcc("DXT2") || cc == fourcc("DXT3")) return Kind::Bc2;
    if (cc == fourcc("DXT4") || cc == fourcc("DXT5")) return Kind::Bc3;
    error = fmt::format("cannot be converted: DDS FourCC {} is not supported", fourcc_text(cc));
    return Kind::Masks;
  }
  if (!(flags & (kRgb | kLuminance))) {
    error = fmt::format("cannot be converted: DDS pixel format flags {:#x} are not supported (RGB, luminance, DXT1-5 are)", flags);
    return Kind::Masks;
  }
  if (bits != 8 && bits != 16 && bits != 24 && bits != 32)
    error = fmt::format("cannot be converted: DDS with {} bits per pixel is not supported", bits);
  return Kind::Masks;
}

uint64_t data_size(Kind k, uint32_t w, uint32_t h, uint32_t bits) {
  if (k == Kind::Masks) return mul_sat((uint64_t(w) * bits + 7) / 8, h);
  const uint64_t blocks = mul_sat((uint64_t(w) + 3) / 4, (uint64_t(h) + 3) / 4);
  return mul_sat(blocks, k == Kind::Bc1 ? 8 : 16);
}

// A channel of a mask-described pixel, scaled to 0..255; `absent` when the mask is 0.
uint8_t channel(uint32_t pixel, uint32_t mask, uint8_t absent) {
  if (mask == 0) return absent;
  const uint64_t max = uint64_t(mask >> std::countr_zero(mask));
  const uint64_t v = (pixel & mask) >> std::countr_zero(mask);
  return uint8_t((v * 255 + max / 2) / max);
}

void decode_masks(Bytes b, Pixels& px, uint32_t flags, uint32_t bits) {
  const uint32_t r = le32(b, 92), g = le32(b, 96), bl = le32(b, 100);
  const uint32_t a = flags & kAlphaPixels ? le32(b, 104) : 0;
  const bool luminance = !(flags & kRgb);
  const size_t bytes = bits / 8, pitch = size_t(px.width) * bytes;
  for (uint32_t y = 0; y < px.height; ++y)
    for (uint32_t x = 0; x < px.width; ++x) {
      const size_t at = kHeader + y * pitch + x * bytes;
      uint32_t pixel = 0;
      for (size_t i = 0; i < bytes; ++i) pixel |= uint32_t(b[at + i]) << (8 * i);
      uint8_t* p = px.rgba.data() + (size_t(y) * px.width + x) * 4;
      p[0] = channel(pixel, r, 0);
      p[1] = luminance ? p[0] : channel(pixel, g, 0);
      p[2] = luminance ? p[0] : channel(pixel, bl, 0);
      p[3] = channel(pixel, a, 255);
    }
}

// The 4 colours of a BC1 colour block (4 bytes: two RGB565 end points); BC2 and BC3 colour
// blocks always use the four-colour mode.
void bc_palette(const uint8_t* block, bool four_always, uint8_t (&out)[4][4]) {
  const uint32_t c0 = uint32_t(block[0]) | uint32_t(block[1]) << 8, c1 = uint32_t(block[2]) | uint32_t(block[3]) << 8;
  auto expand = [](uint32_t c, uint8_t* p) {
    const uint32_t r = c >> 11, g = (c >> 5) & 63, b = c & 31;
    p[0] = uint8_t(r << 3 | r >> 2), p[1] = uint8_t(g << 2 | g >> 4), p[2] = uint8_t(b << 3 | b >> 2), p[3] = 255;
  };
  expand(c0, out[0]);
  expand(c1, out[1]);
  for (int i = 0; i < 3; ++i) {
    if (four_always || c0 > c1) {
      out[2][i] = uint8_t((2 * out[0][i] + out[1][i]) / 3);
      out[3][i] = uint8_t((out[0][i] + 2 * out[1][i]) / 3);
    } else {
      out[2][i] = uint8_t((out[0][i] + out[1][i]) / 2);
      out[3][i] = 0;
    }
  }
  out[2][3] = 255;
  out[3][3] = four_always || c0 > c1 ? 255 : 0;
}

// The 16 alphas of a BC3 alpha block (8 bytes: two end points, 16 3-bit indices).
void bc3_alpha(const uint8_t* block, uint8_t (&out)[16]) {
  const uint32_t a0 = block[0], a1 = block[1];
  uint8_t table[8] = {uint8_t(a0), uint8_t(a1)};
  for (uint32_t i = 1; i < 7; ++i)
    if (a0 > a1) table[i + 1] = uint8_t(((7 - i) * a0 + i * a1) / 7);
  if (a0 <= a1) {
    for (uint32_t i = 1; i < 5; ++i) table[i + 1] = uint8_t(((5 - i) * a0 + i * a1) / 5);
    table[6] = 0;
    table[7] = 255;
  }
  uint64_t bits = 0;
  for (int i = 0; i < 6; ++i) bits |= uint64_t(block[2 + i]) << (8 * i);
  for (int i = 0; i < 16; ++i) out[i] = table[(bits >> (3 * i)) & 7];
}

void decode_blocks(Bytes b, Pixels& px, Kind k) {
  const size_t block_size = k == Kind::Bc1 ? 8 : 16;
  const uint32_t bw = (px.width + 3) / 4, bh = (px.height + 3) / 4;
  for (uint32_t by = 0; by < bh; ++by)
    for (uint32_t bx = 0; bx < bw; ++bx) {
      const uint8_t* block = b.data() + kHeader + (size_t(by) * bw + bx) * block_size;
      const uint8_t* colour = k == Kind::Bc1 ? block : block + 8;
      uint8_t palette[4][4];
      bc_palette(colour, k != Kind::Bc1, palette);
      uint8_t alpha[16];
      if (k == Kind::Bc3) bc3_alpha(block, alpha);
      for (int i = 0; i < 16; ++i) {
        const uint32_t x = bx * 4 + uint32_t(i % 4), y = by * 4 + uint32_t(i / 4);
        if (x >= px.width || y >= px.height) continue;
        const uint32_t index = (colour[4 + i / 4] >> (2 * (i % 4))) & 3;
        uint8_t* p = px.rgba.data() + (size_t(y) * px.width + x) * 4;
        for (int c = 0; c < 4; ++c) p[c] = palette[index][c];
        if (k == Kind::Bc2) p[3] = uint8_t(((block[i / 2] >> (4 * (i % 2))) & 15) * 17);
        if (k == Kind::Bc3) p[3] = alpha[i];
      }
    }
}

}  // namespace

ImageInfo dds_info(Bytes b) {
  ImageInfo info;
  info.format = ImageFormat::Dds;
  if (b.size() < kHeader) {
    info.error = header_truncated(info.format, b.size(), kHeader);
    return info;
  }
  if (le32(b, 4) != 124 || le32(b, 76) != 32) {
    info.error = fmt::format("DDS header size {} or pixel format size {} is not 124 and 32", le32(b, 4), le32(b, 76));
    return info;
  }
  info.height = le32(b, 12);
  info.width = le32(b, 16);
  const Kind k = kind_of(b, info.error);
  if (!info.error.empty()) return info;
  const uint64_t need = data_size(k, info.width, info.height, le32(b, 88));
  if (add_sat(kHeader, need) > b.size())
    info.error = data_truncated(info.format, info.width, info.height, need, kHeader, b.size());
  return info;
}

DecodedImage decode_dds(Bytes b, const ImageInfo& info) {
  DecodedImage out;
  out.format = ImageFormat::Dds;
  const Kind k = kind_of(b, out.error);
  if (!out.error.empty()) return out;
  out.pixels.width = info.width;
  out.pixels.height = info.height;
  out.pixels.rgba.resize(size_t(info.width) * info.height * 4);
  if (k == Kind::Masks)
    decode_masks(b, out.pixels, le32(b, 80), le32(b, 88));
  else
    decode_blocks(b, out.pixels, k);
  return out;
}

}  // namespace meshport::image::detail
