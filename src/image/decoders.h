// Internals of src/image: byte readers and the per-format header readers and decoders.
#pragma once

#include "image/image.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace meshport::image::detail {

using Bytes = std::span<const uint8_t>;

// Callers check the bounds first.
inline uint32_t le16(Bytes b, size_t at) { return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8; }
inline uint32_t le32(Bytes b, size_t at) { return le16(b, at) | le16(b, at + 2) << 16; }
inline uint32_t be16(Bytes b, size_t at) { return uint32_t(b[at]) << 8 | uint32_t(b[at + 1]); }
inline uint32_t be32(Bytes b, size_t at) { return be16(b, at) << 16 | be16(b, at + 2); }

// a * b, or UINT64_MAX when that overflows (sizes compared with a file's length).
inline uint64_t mul_sat(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
inline uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// "<FORMAT> header truncated at byte <size> (it needs <need> bytes)".
std::string header_truncated(ImageFormat f, size_t size, uint64_t need);
// "<FORMAT> pixel data truncated: W x H needs at least N bytes from byte S, the file ends at byte E".
std::string data_truncated(ImageFormat f, uint32_t w, uint32_t h, uint64_t need, uint64_t start, size_t size);

// Header readers (header.cpp, pcx.cpp, dds.cpp): format, size, and whether the bytes can hold
// the pixel data.
ImageInfo png_info(Bytes b);
ImageInfo jpeg_info(Bytes b);
ImageInfo tga_info(Bytes b);
ImageInfo bmp_info(Bytes b);
ImageInfo psd_info(Bytes b);
ImageInfo gif_info(Bytes b);
ImageInfo pcx_info(Bytes b);
ImageInfo dds_info(Bytes b);

// Decoders, called after the header reader and the limits passed (error in the result if not).
DecodedImage decode_stb(Bytes b, const ImageInfo& info);  // PNG, JPEG, TGA, BMP, PSD, GIF
DecodedImage decode_pcx(Bytes b, const ImageInfo& info);
DecodedImage decode_dds(Bytes b, const ImageInfo& info);

}  // namespace meshport::image::detail
