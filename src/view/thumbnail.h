// `meshport thumbnail`: checking the picture a page gave (thumbnail.cpp). The page's canvas is
// size x size already (thumbnails.cpp reads it in the page); the top-left cut also accepts a
// larger picture, such as a screenshot of a window larger than the canvas.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace meshport::view {

// The top-left size x size pixels of the picture `png` as a PNG; throws meshport::Error (naming
// `name`) when the picture cannot be decoded, is smaller, or has nothing drawn (every pixel
// transparent).
std::vector<uint8_t> crop_thumbnail(std::span<const uint8_t> png, uint32_t size, const std::string& name);

}  // namespace meshport::view
