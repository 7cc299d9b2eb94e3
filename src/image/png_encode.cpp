// PNG encoding through stb_image_write (Debian's libstb-dev), built here from its header.
#include "image/image.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#pragma clang diagnostic ignored "-Wunused-parameter"
#pragma clang diagnostic ignored "-Wmissing-field-initializers"
#pragma clang diagnostic ignored "-Wsign-compare"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_image_write.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace meshport::image {

std::vector<uint8_t> encode_png(const Pixels& pixels) {
  std::vector<uint8_t> out;
  const uint32_t w = pixels.width, h = pixels.height;
  if (w == 0 || h == 0 || w > 65536 || h > 65536 || pixels.rgba.size() != size_t(w) * h * 4) return out;
  auto append = [](void* context, void* data, int size) {
    auto* v = static_cast<std::vector<uint8_t>*>(context);
    const auto* p = static_cast<const uint8_t*>(data);
    v->insert(v->end(), p, p + size);
  };
  if (!stbi_write_png_to_func(append, &out, int(w), int(h), 4, pixels.rgba.data(), int(w * 4))) out.clear();
  return out;
}

}  // namespace meshport::image
