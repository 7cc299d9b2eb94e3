// Header readers for the formats stb_image decodes: size, the checks stb's own format tests
// make (so stb never falls through to another format's decoder), and whether the file can hold
// the pixel data (stb reads zeros past the end of a truncated TGA, BMP or PSD and reports
// success).
#include "image/decoders.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace meshport::image::detail {

namespace {

ImageInfo fail(ImageFormat f, std::string error) {
  ImageInfo info;
  info.format = f;
  info.error = std::move(error);
  return info;
}

ImageInfo ok(ImageFormat f, uint32_t w, uint32_t h) {
  ImageInfo info;
  info.format = f;
  info.width = w;
  info.height = h;
  return info;
}

// Checks that `need` bytes of pixel data fit from `start`; sets the error if not.
ImageInfo with_data(ImageInfo info, Bytes b, uint64_t start, uint64_t need) {
  if (add_sat(start, need) > b.size())
    info.error = data_truncated(info.format, info.width, info.height, need, start, b.size());
  return info;
}

// stb_image removes the white matte Photoshop puts under the merged image's colours where
// alpha is neither 0 nor full: c' = (c - full) / a * full + full, converted from float without a
// range check, which is undefined (and a sanitizer report) when c + a < full. So colours
// below their matte are refused before stb sees them (raw data: checked here; RLE data with
// alpha cannot be checked without decoding, so it is refused by the caller).
std::string psd_matte_error(Bytes b, size_t start, uint32_t w, uint32_t h, uint32_t bytes_per_channel) {
  const size_t plane = size_t(w) * h * bytes_per_channel;
  const uint32_t full = bytes_per_channel == 2 ? 65535 : 255;
  auto value = [&](size_t at) { return bytes_per_channel == 2 ? be16(b, at) : uint32_t(b[at]); };
  for (size_t i = 0; i < size_t(w) * h; ++i) {
    const uint32_t a = value(start + 3 * plane + i * bytes_per_channel);
    if (a == 0 || a == full) continue;
    for (size_t c = 0; c < 3; ++c)
      if (value(start + c * plane + i * bytes_per_channel) + a < full)
        return fmt::format("PSD pixel ({}, {}) has a colour below its white matte (alpha {})", i % w, i / w, a);
  }
  return "";
}

// Debian's stb_image (2.27) builds a Huffman table from its 16 code counts without checking
// that they add up to 256 at most, and writes past its arrays when they do not. So every
// Huffman table stb can reach is checked first: each DHT segment of the header (read as stb
// reads it: tables while the segment's length lasts, possibly past its end), and from the first
// scan on (entropy-coded data, where a valid file has no FF C4, and the segments between
// progressive scans) every FF C4.
std::string jpeg_dht_error(Bytes b, uint64_t marker) {  // `marker`: the FF of FF C4
  auto at = [&](uint64_t i) -> uint32_t { return i < b.size() ? b[size_t(i)] : 0; };  // stb reads 0 past the end
  int64_t left = int64_t(at(marker + 2) << 8 | at(marker + 3)) - 2;
  uint64_t pos = marker + 4;
  while (left > 0 && pos <= b.size()) {
    uint32_t n = 0;
    for (uint64_t i = 1; i <= 16; ++i) n += at(pos + i);
    if (n > 256) return fmt::format("JPEG Huffman table at byte {} has {} codes (256 at most)", pos, n);
    pos += 17 + n;
    left -= 17 + int64_t(n);
  }
  return "";
}

std::string jpeg_scan_dht_error(Bytes b, size_t from) {
  for (size_t i = from; i + 1 < b.size(); ++i) {
    if (b[i] != 0xFF) continue;
    size_t j = i + 1;
    while (j < b.size() && b[j] == 0xFF) ++j;  // fill bytes
    if (j < b.size() && b[j] == 0xC4) {
      std::string e = jpeg_dht_error(b, j - 1);
      if (!e.empty()) return e;
    }
    i = j - 1;
  }
  return "";
}

bool is_sof(uint8_t m) { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC; }

}  // namespace

ImageInfo png_info(Bytes b) {
  const auto f = ImageFormat::Png;
  if (b.size() < 33) return fail(f, header_truncated(f, b.size(), 33));
  if (be32(b, 8) != 13 || b[12] != 'I' || b[13] != 'H' || b[14] != 'D' || b[15] != 'R')
    return fail(f, "PNG does not start with a 13-byte IHDR chunk");
  const uint32_t w = be32(b, 16), h = be32(b, 20);
  if (w > 0x7FFFFFFF || h > 0x7FFFFFFF) return fail(f, fmt::format("PNG size {} x {} is invalid (over 2^31 - 1)", w, h));
  // The chunks up to IEND must all be there (stb does not check the last one's CRC).
  for (uint64_t pos = 8; pos < b.size();) {
    if (pos + 8 > b.size()) return fail(f, fmt::format("PNG truncated at byte {}: a chunk header at byte {}", b.size(), pos));
    const uint64_t end = pos + 12 + be32(b, size_t(pos));
    std::string type(reinterpret_cast<const char*>(b.data()) + pos + 4, 4);
    for (char& c : type)
      if (!std::isalpha(static_cast<unsigned char>(c))) c = '?';
    if (end > b.size())
      return fail(f, fmt::format("PNG truncated at byte {}: chunk '{}' at byte {} needs {} bytes", b.size(),
                                 type, pos, end - pos));
    if (type == "IEND") return ok(f, w, h);
    pos = end;
  }
  return fail(f, fmt::format("PNG truncated at byte {}: no IEND chunk", b.size()));
}

ImageInfo jpeg_info(Bytes b) {
  const auto f = ImageFormat::Jpeg;
  ImageInfo info = fail(f, "");
  bool have_frame = false;
  size_t pos = 2;
  while (true) {
    if (pos >= b.size())
      return fail(f, have_frame ? fmt::format("JPEG truncated at byte {}: no scan after the frame header", b.size())
                                : header_truncated(f, b.size(), pos + 1));
    if (b[pos] != 0xFF) return fail(f, fmt::format("JPEG marker expected at byte {}, found {:#04x}", pos, b[pos]));
    while (pos < b.size() && b[pos] == 0xFF) ++pos;  // fill bytes
    if (pos >= b.size()) continue;
    const uint8_t m = b[pos++];
    if ((m >= 0xD0 && m <= 0xD7) || m == 0x01) continue;  // markers without a length
    if (m == 0xD9) return fail(f, fmt::format("JPEG ends (EOI at byte {}) before any scan", pos - 2));
    if (m == 0xDA) {
      if (!have_frame) return fail(f, fmt::format("JPEG scan at byte {} comes before any frame header (SOFn)", pos - 2));
      const std::string dht = jpeg_scan_dht_error(b, pos);
      return dht.empty() ? info : fail(f, dht);
    }
    if (pos + 2 > b.size()) return fail(f, header_truncated(f, b.size(), pos + 2));
    const uint32_t len = be16(b, pos);
    if (len < 2) return fail(f, fmt::format("JPEG segment at byte {} has length {}", pos - 2, len));
    if (m == 0xC4) {
      const std::string dht = jpeg_dht_error(b, pos - 2);
      if (!dht.empty()) return fail(f, dht);
    }
    if (is_sof(m) && !have_frame) {
      if (len < 8 || pos + 7 > b.size()) return fail(f, header_truncated(f, b.size(), pos + 7));
      info = ok(f, be16(b, pos + 5), be16(b, pos + 3));
      have_frame = true;
    }
    pos += len;
  }
}

ImageInfo tga_info(Bytes b) {
  const auto f = ImageFormat::Tga;
  if (b.size() < 18) return fail(f, header_truncated(f, b.size(), 18));
  const uint8_t id_len = b[0], cmap_type = b[1], type = b[2], cmap_bits = b[7], bpp = b[16];
  const bool paletted = type == 1 || type == 9;
  if (cmap_type > 1 || !(paletted || type == 2 || type == 3 || type == 10 || type == 11))
    return fail(f, fmt::format("TGA image type {} with colour map type {} is not supported (or this is not a TGA file)",
                               type, cmap_type));
  if ((cmap_type == 1) != paletted)
    return fail(f, fmt::format("TGA image type {} {} a colour map", type, paletted ? "needs" : "cannot have"));
  if (bpp != 8 && bpp != 15 && bpp != 16 && bpp != 24 && bpp != 32)
    return fail(f, fmt::format("TGA with {} bits per pixel is not supported", bpp));
  if (paletted && bpp != 8 && bpp != 16)
    return fail(f, fmt::format("TGA colour-mapped with {}-bit indices is not supported", bpp));
  if (paletted && cmap_bits != 8 && cmap_bits != 15 && cmap_bits != 16 && cmap_bits != 24 && cmap_bits != 32)
    return fail(f, fmt::format("TGA colour map with {}-bit entries is not supported", cmap_bits));
  const uint32_t w = le16(b, 12), h = le16(b, 14);
  const uint64_t start = 18 + uint64_t(id_len) + (paletted ? uint64_t(le16(b, 5)) * ((cmap_bits + 7) / 8) : 0);
  if (start > b.size()) return fail(f, header_truncated(f, b.size(), start));
  const uint64_t pixels = uint64_t(w) * h, bytes_per_pixel = (bpp + 7) / 8;
  if (type < 9) return with_data(ok(f, w, h), b, start, pixels * bytes_per_pixel);
  // RLE: an RLE packet (1 byte + one pixel) stands for at most 128 pixels; then the packets
  // are walked (stb reads zeros past the end of a truncated file).
  ImageInfo info = with_data(ok(f, w, h), b, start, (pixels + 127) / 128 * (1 + bytes_per_pixel));
  uint64_t pos = start, done = 0;
  while (info.error.empty() && done < pixels) {
    if (pos >= b.size()) {
      info.error = fmt::format("TGA pixel data truncated at byte {}: {} of {} pixels decoded", b.size(), done, pixels);
      break;
    }
    const uint8_t head = b[size_t(pos)];
    const uint64_t count = (head & 0x7F) + 1;
    pos += 1 + (head & 0x80 ? 1 : count) * bytes_per_pixel;
    done += count;
    if (pos > b.size())
      info.error = fmt::format("TGA pixel data truncated at byte {}: a packet needs {} more bytes", b.size(), pos - b.size());
  }
  return info;
}

ImageInfo bmp_info(Bytes b) {
  const auto f = ImageFormat::Bmp;
  if (b.size() < 18) return fail(f, header_truncated(f, b.size(), 18));
  const uint32_t hsz = le32(b, 14);
  if (hsz != 12 && hsz != 40 && hsz != 56 && hsz != 108 && hsz != 124)
    return fail(f, fmt::format("BMP info header of {} bytes is not supported", hsz));
  if (b.size() < 14 + hsz) return fail(f, header_truncated(f, b.size(), 14 + hsz));
  uint32_t w = 0, h = 0, bpp = 0, compression = 0;
  if (hsz == 12) {
    w = le16(b, 18);
    h = le16(b, 20);
    bpp = le16(b, 24);
  } else {
    const auto sw = int32_t(le32(b, 18)), sh = int32_t(le32(b, 22));
    if (sw < 0) return fail(f, fmt::format("BMP width {} is negative", sw));
    if (sh == INT32_MIN) return fail(f, fmt::format("BMP height {} is invalid", sh));
    w = uint32_t(sw);
    h = uint32_t(std::abs(sh));  // negative: rows top to bottom
    bpp = le16(b, 28);
    compression = le32(b, 30);
  }
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
    return fail(f, fmt::format("BMP with {} bits per pixel is not supported", bpp));
  if (compression != 0 && compression != 3 && compression != 6)
    return fail(f, fmt::format("BMP compression {} is not supported (only uncompressed and bit-field BMPs are)", compression));
  const uint64_t row = (uint64_t(w) * bpp + 31) / 32 * 4;
  return with_data(ok(f, w, h), b, le32(b, 10), mul_sat(row, h));
}

ImageInfo psd_info(Bytes b) {
  const auto f = ImageFormat::Psd;
  if (b.size() < 26) return fail(f, header_truncated(f, b.size(), 26));
  if (be16(b, 4) != 1) return fail(f, fmt::format("PSD version {} is not supported (PSB files are version 2)", be16(b, 4)));
  const uint32_t channels = be16(b, 12), h = be32(b, 14), w = be32(b, 18), depth = be16(b, 22), mode = be16(b, 24);
  if (channels < 1 || channels > 16) return fail(f, fmt::format("PSD with {} channels is invalid", channels));
  if (depth != 8 && depth != 16) return fail(f, fmt::format("PSD with {} bits per channel is not supported", depth));
  if (mode != 3) return fail(f, fmt::format("PSD colour mode {} is not supported (only RGB, mode 3)", mode));
  uint64_t pos = 26;
  for (int section = 0; section < 3; ++section) {  // colour mode data, image resources, layers
    if (pos + 4 > b.size()) return fail(f, header_truncated(f, b.size(), pos + 4));
    pos += 4 + uint64_t(be32(b, size_t(pos)));
  }
  if (pos + 2 > b.size()) return fail(f, header_truncated(f, b.size(), pos + 2));
  const uint32_t compression = be16(b, size_t(pos));
  pos += 2;
  const uint64_t rows = mul_sat(channels, h);
  if (compression == 0) {
    ImageInfo info = with_data(ok(f, w, h), b, pos, mul_sat(mul_sat(rows, w), depth / 8));
    if (info.error.empty() && channels >= 4) info.error = psd_matte_error(b, size_t(pos), w, h, depth / 8);
    return info;
  }
  if (channels >= 4) return fail(f, "PSD with an alpha channel and RLE compression is not supported");
  if (compression == 1) {
    if (depth != 8) return fail(f, "PSD with 16-bit channels and RLE compression is not supported");
    // A byte count per row, then for each channel read (4 at most) at least 2 bytes per 128 pixels.
    const uint64_t pixels = mul_sat(w, h), per_channel = (pixels / 128 + (pixels % 128 != 0)) * 2;
    return with_data(ok(f, w, h), b, pos, add_sat(mul_sat(rows, 2), mul_sat(std::min<uint64_t>(channels, 4), per_channel)));
  }
  return fail(f, fmt::format("PSD compression {} is not supported", compression));
}

ImageInfo gif_info(Bytes b) {
  const auto f = ImageFormat::Gif;
  if (b.size() < 13) return fail(f, header_truncated(f, b.size(), 13));
  // The blocks up to the end of the first image's data must all be there (stb reads zeros past
  // the end and reports success).
  uint64_t pos = 13 + (b[10] & 0x80 ? 3u << ((b[10] & 7) + 1) : 0);
  auto sub_blocks = [&]() {  // skips data sub-blocks up to their terminator; false if cut
    while (pos < b.size() && b[size_t(pos)] != 0) pos += 1 + uint64_t(b[size_t(pos)]);
    return pos++ < b.size();
  };
  while (true) {
    if (pos >= b.size()) return fail(f, fmt::format("GIF truncated at byte {} before its first image", b.size()));
    const uint8_t block = b[size_t(pos)];
    if (block == 0x21) {
      pos += 2;
      if (!sub_blocks()) return fail(f, fmt::format("GIF truncated at byte {} in an extension", b.size()));
    } else if (block == 0x2C) {
      if (pos + 10 > b.size()) return fail(f, header_truncated(f, b.size(), pos + 10));
      const uint8_t flags = b[size_t(pos + 9)];
      pos += 10 + (flags & 0x80 ? 3u << ((flags & 7) + 1) : 0) + 1;  // local colours, LZW code size
      if (!sub_blocks()) return fail(f, fmt::format("GIF truncated at byte {} in the first image's data", b.size()));
      return ok(f, le16(b, 6), le16(b, 8));  // the logical screen, which stb allocates
    } else {
      return fail(f, fmt::format("GIF block {:#04x} at byte {} is not an image or an extension", block, pos));
    }
  }
}

}  // namespace meshport::image::detail
