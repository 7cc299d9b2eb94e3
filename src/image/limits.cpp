// The memory limit, and the texts of the errors every format shares.
#include "image/decoders.h"

#include <fmt/format.h>

#include <algorithm>

namespace meshport::image {

namespace {
// The largest side any limit allows; also stb_image's STBI_MAX_DIMENSIONS (stb_decode.cpp).
constexpr uint32_t kMaxDimension = 65536;
}  // namespace

std::string check_limits(uint32_t width, uint32_t height, const ImageLimits& limits) {
  if (width == 0 || height == 0) return fmt::format("the image has no pixels ({} x {})", width, height);
  const uint32_t max_side = std::min(limits.max_dimension, kMaxDimension);
  if (width > max_side || height > max_side)
    return fmt::format("{} x {}: a side exceeds the limit of {} pixels", width, height, max_side);
  const uint64_t pixels = uint64_t(width) * height;
  if (pixels > limits.max_pixels)
    return fmt::format("{} pixels ({} x {}) exceed the limit of {} pixels", pixels, width, height, limits.max_pixels);
  return "";
}

namespace detail {

std::string header_truncated(ImageFormat f, size_t size, uint64_t need) {
  return fmt::format("{} header truncated at byte {} (it needs {} bytes)", format_name(f), size, need);
}

std::string data_truncated(ImageFormat f, uint32_t w, uint32_t h, uint64_t need, uint64_t start, size_t size) {
  return fmt::format("{} pixel data truncated: {} x {} needs at least {} bytes from byte {}, the file ends at byte {}",
                     format_name(f), w, h, need, start, size);
}

}  // namespace detail
}  // namespace meshport::image
