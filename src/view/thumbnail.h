// `meshport thumbnail`: Chromium's screenshot cut to the thumbnail (thumbnail.cpp). Chromium's
// window has a minimum size, so the page draws a size x size canvas at its top left inside a
// window of at least kMinWindow pixels, and the PNG is cropped afterwards.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace meshport::view {

inline constexpr uint32_t kMinWindow = 256;

// The top-left size x size pixels of the screenshot `png` as a PNG; throws meshport::Error (naming
// `name`) when the screenshot cannot be decoded, is smaller, or has nothing drawn (every pixel
// transparent).
std::vector<uint8_t> crop_thumbnail(std::span<const uint8_t> png, uint32_t size, const std::string& name);

}  // namespace meshport::view
