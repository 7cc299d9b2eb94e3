// Images for textures (issue 17): format detection, decoding to RGBA8 under a memory limit, PNG
// encoding, and the conversion the glTF writer needs (PNG and JPEG kept as they are, every other
// decodable image converted to PNG). docs/textures.md, "Converting images".
//
// Nothing here throws on bad input: errors come back as text (no file name: the caller adds it),
// and every size a header claims is checked against the bytes and the limits before anything
// is allocated for it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace meshport::image {

enum class ImageFormat { Unknown, Png, Jpeg, Tga, Bmp, Psd, Gif, Pcx, Dds };

// "PNG", "JPEG", "TGA", ...; "unknown" for Unknown.
std::string_view format_name(ImageFormat f);

// The format of `bytes`, by their magic numbers. TGA has none: it is recognised by a sane
// header, or by a `.tga` name_hint (any case; then the decoder explains what is wrong with
// the header). Unknown when nothing matches.
ImageFormat detect_image(std::span<const uint8_t> bytes, std::string_view name_hint);

struct ImageLimits {
  uint64_t max_pixels = uint64_t(64) << 20;  // 64 Mi: 8192 x 8192 (256 MiB as RGBA8)
  uint32_t max_dimension = 32768;            // either side; 65536 at most whatever is asked
};

// What a header says, after checking it and that the file is long enough for the pixel data
// it announces (for compressed data, the least any encoding of that many pixels takes).
// `error` is empty when the image looks decodable; the limits are not applied here.
struct ImageInfo {
  ImageFormat format = ImageFormat::Unknown;
  uint32_t width = 0;
  uint32_t height = 0;
  std::string error;
};
ImageInfo read_image_info(std::span<const uint8_t> bytes, std::string_view name_hint);

// "" when width x height is within the limits, else why not (zero size, a side too long, too
// many pixels).
std::string check_limits(uint32_t width, uint32_t height, const ImageLimits& limits);

struct Pixels {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4 bytes, rows top to bottom
};

struct DecodedImage {
  Pixels pixels;
  ImageFormat format = ImageFormat::Unknown;
  std::string error;  // empty on success
};

// Decodes the first image (GIF: first frame; DDS: top mip level) to RGBA8. The header is read
// and the limits applied before any pixel memory is allocated.
DecodedImage decode_image(std::span<const uint8_t> bytes, std::string_view name_hint, const ImageLimits& limits);

// A PNG of `pixels` (8-bit RGBA). Empty when the pixels are inconsistent (rgba size not
// width * height * 4, a zero or over-65536 side).
std::vector<uint8_t> encode_png(const Pixels& pixels);

struct ConvertedImage {
  std::vector<uint8_t> bytes;  // what to embed; empty on error
  std::string mime_type;       // "image/png" or "image/jpeg"; empty on error
  bool converted = false;      // true when `bytes` is a PNG made from another format
  std::string error;           // empty on success
};

// An image glTF can hold: PNG and JPEG pass through byte for byte (after their header is
// checked: signature, dimensions, no truncated header; the limits do not apply, nothing is
// decoded), everything else decodable is decoded under `limits` and encoded as PNG.
// With `copy_kept` false, a PNG or JPEG passed through is not copied: `bytes` stays empty (the
// caller keeps the input's), with `mime_type` set and `converted` false (the texture cache).
ConvertedImage to_gltf_image(std::span<const uint8_t> bytes, std::string_view name, const ImageLimits& limits,
                             bool copy_kept = true);

// ".png" for "image/png", ".jpg" for "image/jpeg", "" for anything else.
std::string image_file_extension(std::string_view mime_type);

// A file name for an image extracted from a model: the last path component of `name` (either
// slash), without a known image extension (.png .jpg .jpeg .tga .bmp .psd .gif .pcx .dds, any
// case), plus image_file_extension(mime_type). "textures/Skin.TGA", "image/png" -> "Skin.png";
// an empty stem gives "image". An extension that fits the type is kept as given:
// "photo.jpeg", "image/jpeg" -> "photo.jpeg"; "Skin.PNG", "image/png" -> "Skin.PNG".
std::string image_file_name(std::string_view name, std::string_view mime_type);

}  // namespace meshport::image
