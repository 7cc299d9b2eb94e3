// Format detection by magic numbers, and the header reader for each format.
#include "image/decoders.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace meshport::image {

using namespace detail;

std::string_view format_name(ImageFormat f) {
  switch (f) {
    case ImageFormat::Png: return "PNG";
    case ImageFormat::Jpeg: return "JPEG";
    case ImageFormat::Tga: return "TGA";
    case ImageFormat::Bmp: return "BMP";
    case ImageFormat::Psd: return "PSD";
    case ImageFormat::Gif: return "GIF";
    case ImageFormat::Pcx: return "PCX";
    case ImageFormat::Dds: return "DDS";
    case ImageFormat::Unknown: break;
  }
  return "unknown";
}

namespace {

bool starts_with(Bytes b, std::string_view magic) {
  return b.size() >= magic.size() && std::equal(magic.begin(), magic.end(), b.begin(),
                                                 [](char m, uint8_t c) { return uint8_t(m) == c; });
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

// A TGA header as TGA writers make them (TGA has no magic number).
bool sane_tga_header(Bytes b) {
  if (b.size() < 18) return false;
  const uint8_t cmap_type = b[1], type = b[2], bpp = b[16];
  const bool paletted = type == 1 || type == 9;
  const bool known_type = paletted || type == 2 || type == 3 || type == 10 || type == 11;
  if (!known_type || cmap_type > 1 || (cmap_type == 1) != paletted) return false;
  if (cmap_type == 0 && !std::all_of(b.begin() + 3, b.begin() + 8, [](uint8_t c) { return c == 0; })) return false;
  if (cmap_type == 1 && b[7] != 15 && b[7] != 16 && b[7] != 24 && b[7] != 32) return false;
  if (bpp != 8 && bpp != 15 && bpp != 16 && bpp != 24 && bpp != 32) return false;
  if ((b[17] & 0xC0) != 0) return false;  // interleaving, never used
  return le16(b, 12) > 0 && le16(b, 14) > 0;
}

// Formats recognised only to name them in the error.
std::string_view other_format(Bytes b) {
  if (b.size() >= 12 && starts_with(b, "RIFF") && starts_with(b.subspan(8), "WEBP")) return "WebP";
  if (starts_with(b, "\xABKTX")) return "KTX";
  if (starts_with(b, "#?RADIANCE") || starts_with(b, "#?RGBE")) return "Radiance HDR";
  if (starts_with(b, std::string_view("II*\0", 4)) || starts_with(b, std::string_view("MM\0*", 4))) return "TIFF";
  if (starts_with(b, "\x76\x2f\x31\x01")) return "OpenEXR";
  if (b.size() >= 12 && starts_with(b.subspan(4), "ftypavif")) return "AVIF";
  return "";
}

}  // namespace

ImageFormat detect_image(Bytes b, std::string_view name_hint) {
  if (starts_with(b, "\x89PNG\r\n\x1a\n")) return ImageFormat::Png;
  if (starts_with(b, "\xFF\xD8\xFF")) return ImageFormat::Jpeg;
  if (starts_with(b, "GIF87a") || starts_with(b, "GIF89a")) return ImageFormat::Gif;
  if (starts_with(b, "8BPS")) return ImageFormat::Psd;
  if (starts_with(b, "DDS ")) return ImageFormat::Dds;
  if (starts_with(b, "BM")) return ImageFormat::Bmp;
  // PCX: manufacturer 10, version 0-5, encoding 0 or 1, 1/2/4/8 bits per plane.
  if (b.size() >= 4 && b[0] == 0x0A && b[1] <= 5 && b[1] != 1 && b[2] <= 1 &&
      (b[3] == 1 || b[3] == 2 || b[3] == 4 || b[3] == 8))
    return ImageFormat::Pcx;
  if (ends_with_ci(name_hint, ".tga") || sane_tga_header(b)) return ImageFormat::Tga;
  return ImageFormat::Unknown;
}

ImageInfo read_image_info(Bytes b, std::string_view name_hint) {
  switch (detect_image(b, name_hint)) {
    case ImageFormat::Png: return png_info(b);
    case ImageFormat::Jpeg: return jpeg_info(b);
    case ImageFormat::Tga: return tga_info(b);
    case ImageFormat::Bmp: return bmp_info(b);
    case ImageFormat::Psd: return psd_info(b);
    case ImageFormat::Gif: return gif_info(b);
    case ImageFormat::Pcx: return pcx_info(b);
    case ImageFormat::Dds: return dds_info(b);
    case ImageFormat::Unknown: break;
  }
  ImageInfo info;
  if (b.empty()) {
    info.error = "the file is empty";
    return info;
  }
  const std::string_view other = other_format(b);
  if (!other.empty()) {
    info.error = fmt::format("a {} image: not supported (meshport converts PNG, JPEG, TGA, BMP, PSD, GIF, PCX and DDS)", other);
    return info;
  }
  std::string head;
  for (size_t i = 0; i < std::min<size_t>(b.size(), 8); ++i) head += fmt::format("{}{:02x}", i ? " " : "", b[i]);
  info.error = fmt::format("not a PNG, JPEG, TGA, BMP, PSD, GIF, PCX or DDS image (it starts with {})", head);
  return info;
}

}  // namespace meshport::image
