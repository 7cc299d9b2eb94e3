// PCX (ZSoft), hand-written: no Debian package decodes it as a small permissive library.
// Supported: 8 bits per pixel in 1 plane (256-colour palette at the end of the file), 3 planes
// (RGB) or 4 planes (RGBA); run-length encoded (encoding 1) or raw (0).
//
// Header (128 bytes, little endian): 0 manufacturer (10), 1 version, 2 encoding, 3 bits per
// pixel per plane, 4..11 xmin ymin xmax ymax, 65 planes, 66 bytes per line per plane.
// A scanline holds each plane's `bytes per line` bytes in turn; runs may cross planes and lines.
#include "image/decoders.h"

#include <fmt/format.h>

namespace meshport::image::detail {

namespace {

constexpr size_t kPcxHeader = 128;
constexpr size_t kPalette = 769;  // 12, then 256 RGB entries

}  // namespace

ImageInfo pcx_info(Bytes b) {
  ImageInfo info;
  info.format = ImageFormat::Pcx;
  if (b.size() < kPcxHeader) {
    info.error = header_truncated(info.format, b.size(), kPcxHeader);
    return info;
  }
  const uint32_t bits = b[3], planes = b[65], line = le16(b, 66), encoding = b[2];
  const uint32_t xmin = le16(b, 4), ymin = le16(b, 6), xmax = le16(b, 8), ymax = le16(b, 10);
  if (xmax < xmin || ymax < ymin) {
    info.error = fmt::format("PCX window ({}, {}) - ({}, {}) is empty", xmin, ymin, xmax, ymax);
    return info;
  }
  info.width = xmax - xmin + 1;
  info.height = ymax - ymin + 1;
  if (bits != 8 || (planes != 1 && planes != 3 && planes != 4)) {
    info.error = fmt::format("PCX with {} bits per pixel in {} planes is not supported (8 bits in 1, 3 or 4 planes are)",
                             bits, planes);
    return info;
  }
  if (line < info.width) {
    info.error = fmt::format("PCX lines of {} bytes cannot hold {} pixels", line, info.width);
    return info;
  }
  const uint64_t data = uint64_t(line) * planes * info.height;
  const uint64_t palette = planes == 1 ? kPalette : 0;
  // A run (2 bytes) stands for at most 63 bytes.
  const uint64_t need = (encoding == 1 ? (data + 62) / 63 * 2 : data) + palette;
  if (add_sat(kPcxHeader, need) > b.size())
    info.error = data_truncated(info.format, info.width, info.height, need, kPcxHeader, b.size());
  else if (planes == 1 && b[b.size() - kPalette] != 12)
    info.error = fmt::format("PCX palette marker (12) missing at byte {}", b.size() - kPalette);
  return info;
}

DecodedImage decode_pcx(Bytes b, const ImageInfo& info) {
  DecodedImage out;
  out.format = ImageFormat::Pcx;
  const uint32_t planes = b[65], line = le16(b, 66), w = info.width, h = info.height;
  const bool rle = b[2] == 1;
  const size_t end = planes == 1 ? b.size() - kPalette : b.size();
  std::vector<uint8_t> scan(size_t(line) * planes);
  out.pixels.width = w;
  out.pixels.height = h;
  out.pixels.rgba.resize(size_t(w) * h * 4);
  size_t pos = kPcxHeader;
  uint32_t run = 0;  // bytes left of a run that crosses a line
  uint8_t value = 0;
  for (uint32_t y = 0; y < h; ++y) {
    for (size_t i = 0; i < scan.size();) {
      if (run == 0) {
        const bool is_run = pos < end && rle && b[pos] >= 0xC0;
        if (pos + is_run >= end) {
          out.error = fmt::format("PCX pixel data ends at byte {} in line {} of {}", end, y, h);
          out.pixels = {};
          return out;
        }
        run = is_run ? b[pos++] & 0x3F : 1;
        value = b[pos++];
      }
      for (; run > 0 && i < scan.size(); --run) scan[i++] = value;
    }
    uint8_t* row = out.pixels.rgba.data() + size_t(y) * w * 4;
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t* p = row + size_t(x) * 4;
      if (planes == 1) {
        const uint8_t* c = b.data() + end + 1 + size_t(scan[x]) * 3;
        p[0] = c[0], p[1] = c[1], p[2] = c[2], p[3] = 255;
      } else {
        for (uint32_t c = 0; c < 3; ++c) p[c] = scan[size_t(c) * line + x];
        p[3] = planes == 4 ? scan[size_t(3) * line + x] : 255;
      }
    }
  }
  return out;
}

}  // namespace meshport::image::detail

