// Cropping and checking thumbnails (thumbnail.h).
#include "view/thumbnail.h"

#include "image/image.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <algorithm>

namespace meshport::view {

std::vector<uint8_t> crop_thumbnail(std::span<const uint8_t> png, uint32_t size, const std::string& name) {
  const image::DecodedImage shot = image::decode_image(png, name, image::ImageLimits{});
  if (!shot.error.empty()) fail(name, "the page's picture cannot be read: " + shot.error);
  if (shot.pixels.width < size || shot.pixels.height < size)
    fail(name, fmt::format("the page's picture is {}x{}, smaller than {}x{}", shot.pixels.width, shot.pixels.height,
                           size, size));
  image::Pixels out;
  out.width = out.height = size;
  out.rgba.resize(size_t(size) * size * 4);
  for (uint32_t y = 0; y < size; ++y)
    std::copy_n(shot.pixels.rgba.begin() + ptrdiff_t((size_t(y) * shot.pixels.width) * 4), size_t(size) * 4,
                out.rgba.begin() + ptrdiff_t(size_t(y) * size * 4));
  bool drawn = false;
  for (size_t i = 3; i < out.rgba.size() && !drawn; i += 4) drawn = out.rgba[i] != 0;
  if (!drawn) fail(name, "the thumbnail is empty: the page drew nothing (see `meshport view` for the model)");
  return image::encode_png(out);
}

}  // namespace meshport::view
