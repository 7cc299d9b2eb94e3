// decode_image: header, limits, then the format's decoder.
#include "image/decoders.h"

namespace meshport::image {

using namespace detail;

DecodedImage decode_image(Bytes bytes, std::string_view name_hint, const ImageLimits& limits) {
  const ImageInfo info = read_image_info(bytes, name_hint);
  DecodedImage out;
  out.format = info.format;
  out.error = info.error.empty() ? check_limits(info.width, info.height, limits) : info.error;
  if (!out.error.empty()) return out;
  switch (info.format) {
    case ImageFormat::Pcx: return decode_pcx(bytes, info);
    case ImageFormat::Dds: return decode_dds(bytes, info);
    default: return decode_stb(bytes, info);
  }
}

}  // namespace meshport::image
