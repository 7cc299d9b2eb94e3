// libFuzzer target for src/image: any input must give pixels or an error text, never a crash,
// a sanitizer report, an exception or an allocation past the limit (1 Mi pixels here, so a run
// stays fast). When it decodes, the PNG made from it must decode to the same pixels, and
// to_gltf_image must agree (PNG and JPEG kept as they are, the rest converted).
#include "image/image.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "meshport fuzz finding: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace meshport::image;
  ImageLimits limits;
  limits.max_pixels = uint64_t(1) << 20;
  const std::span<const uint8_t> in(bytes, size);
  // The first byte picks a name, so TGA by extension is reached too.
  const char* name = size > 0 && (bytes[0] & 1) ? "fuzz.tga" : "fuzz";
  const DecodedImage d = decode_image(in, name, limits);
  if (!d.error.empty()) {
    if (!d.pixels.rgba.empty()) finding("an error with pixels", d.error);
  } else {
    const Pixels& p = d.pixels;
    if (p.width == 0 || p.height == 0 || uint64_t(p.width) * p.height > limits.max_pixels ||
        p.rgba.size() != size_t(p.width) * p.height * 4)
      finding("decoded pixels out of the limits or of the wrong size", "");
    const std::vector<uint8_t> png = encode_png(p);
    const DecodedImage again = decode_image(png, "", limits);
    if (!again.error.empty()) finding("cannot decode the PNG made from an image", again.error);
    if (again.pixels.rgba != p.rgba) finding("the PNG made from an image decodes to other pixels", "");
  }
  const ConvertedImage c = to_gltf_image(in, name, limits);
  if (c.error.empty() == c.bytes.empty()) finding("to_gltf_image gave bytes and an error, or neither", c.error);
  if (c.error.empty() && !c.converted && (c.bytes.size() != size || !std::equal(c.bytes.begin(), c.bytes.end(), bytes)))
    finding("a passed-through image is not byte for byte the input", "");
  if (c.converted && !d.error.empty()) finding("to_gltf_image converted what decode_image refused", d.error);
  return 0;
}
