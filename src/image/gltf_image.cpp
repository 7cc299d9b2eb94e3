// to_gltf_image and the names of extracted image files.
#include "image/decoders.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace meshport::image {

ConvertedImage to_gltf_image(std::span<const uint8_t> bytes, std::string_view name, const ImageLimits& limits,
                             bool copy_kept) {
  ConvertedImage out;
  const ImageFormat format = detect_image(bytes, name);
  if (format == ImageFormat::Png || format == ImageFormat::Jpeg) {
    // Kept as they are: only the header is checked, nothing is decoded or allocated for pixels.
    const ImageInfo info = read_image_info(bytes, name);
    out.error = info.error;
    if (out.error.empty()) out.error = check_limits(info.width, info.height, {UINT64_MAX, 65536});
    if (!out.error.empty()) return out;
    if (copy_kept) out.bytes.assign(bytes.begin(), bytes.end());
    out.mime_type = format == ImageFormat::Png ? "image/png" : "image/jpeg";
    return out;
  }
  DecodedImage decoded = decode_image(bytes, name, limits);
  if (!decoded.error.empty()) {
    out.error = std::move(decoded.error);
    return out;
  }
  out.bytes = encode_png(decoded.pixels);
  if (out.bytes.empty()) {
    out.error = "the PNG encoder failed";
    return out;
  }
  out.mime_type = "image/png";
  out.converted = true;
  return out;
}

std::string image_file_extension(std::string_view mime_type) {
  if (mime_type == "image/png") return ".png";
  if (mime_type == "image/jpeg") return ".jpg";
  return "";
}

std::string image_file_name(std::string_view name, std::string_view mime_type) {
  const size_t slash = name.find_last_of("/\\");
  std::string stem(slash == std::string_view::npos ? name : name.substr(slash + 1));
  const size_t dot = stem.rfind('.');
  if (dot != std::string::npos) {
    std::string ext = stem.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    constexpr std::array<std::string_view, 9> kKnown = {".png", ".jpg", ".jpeg", ".tga", ".bmp",
                                                        ".psd", ".gif", ".pcx", ".dds"};
    // An extension the bytes' type already has is kept as given ("photo.jpeg", "Skin.PNG").
    const bool fits = (mime_type == "image/jpeg" && (ext == ".jpg" || ext == ".jpeg")) ||
                      (mime_type == "image/png" && ext == ".png");
    if (fits && dot > 0) return stem;
    if (std::find(kKnown.begin(), kKnown.end(), ext) != kKnown.end()) stem.resize(dot);
  }
  if (stem.empty()) stem = "image";
  return stem + image_file_extension(mime_type);
}

}  // namespace meshport::image
