// PNG, JPEG, TGA, BMP, PSD and GIF (first frame) through stb_image (Debian's libstb-dev), built
// here from its header with only those formats, no stdio, and an allocation cap, so our limits
// hold whatever stb would allocate.
#include "image/decoders.h"

#include <fmt/format.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace {

// No single allocation of stb's above 1 GiB: the default limit's largest (64 Mi pixels as
// 16-bit RGBA, 512 MiB) fits; a PNG whose deflate stream inflates past any image's size does not.
constexpr size_t kMaxStbAllocation = size_t(1) << 30;

void* capped_malloc(size_t n) { return n > kMaxStbAllocation ? nullptr : std::malloc(n); }
void* capped_realloc(void* p, size_t n) { return n > kMaxStbAllocation ? nullptr : std::realloc(p, n); }

}  // namespace

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#define STBI_ONLY_PSD
#define STBI_ONLY_GIF
#define STBI_MAX_DIMENSIONS 65536
#define STBI_MALLOC(size) capped_malloc(size)
#define STBI_REALLOC(p, size) capped_realloc(p, size)
#define STBI_FREE(p) std::free(p)

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#pragma clang diagnostic ignored "-Wunused-parameter"
#pragma clang diagnostic ignored "-Wmissing-field-initializers"
#pragma clang diagnostic ignored "-Wsign-compare"
#pragma clang diagnostic ignored "-Wimplicit-fallthrough"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#include <stb/stb_image.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace meshport::image::detail {

DecodedImage decode_stb(Bytes b, const ImageInfo& info) {
  DecodedImage out;
  out.format = info.format;
  if (b.size() > size_t(INT_MAX)) {
    out.error = fmt::format("{} of {} bytes is too large to decode", format_name(info.format), b.size());
    return out;
  }
  int w = 0, h = 0, channels = 0;
  stbi_uc* data = stbi_load_from_memory(b.data(), int(b.size()), &w, &h, &channels, 4);
  if (!data) {
    out.error = fmt::format("{} cannot be decoded: {}", format_name(info.format), stbi_failure_reason());
    return out;
  }
  // The header reader and stb agree on the size (stb reads the same fields); anything else
  // would bypass the limits, so it is refused.
  if (uint32_t(w) != info.width || uint32_t(h) != info.height) {
    stbi_image_free(data);
    out.error = fmt::format("{} decoded as {} x {}, its header says {} x {}", format_name(info.format), w, h, info.width,
                            info.height);
    return out;
  }
  out.pixels.width = uint32_t(w);
  out.pixels.height = uint32_t(h);
  out.pixels.rgba.assign(data, data + size_t(w) * size_t(h) * 4);
  stbi_image_free(data);
  return out;
}

}  // namespace meshport::image::detail
