// Text in glTF JSON: UTF-8 checks and base64 (data URIs, extras holding bytes). Shared by the glTF
// reader and writer and the formats' glTF side-data codecs (docs/architecture.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshport::gltf {

bool valid_utf8(std::string_view s);
std::string base64_encode(const uint8_t* p, size_t n);  // with '=' padding
// Decodes base64 (padding optional, '-' and '_' accepted). Returns the position of the first
// invalid character, or std::string_view::npos when the text is valid.
size_t base64_decode(std::string_view s, std::vector<uint8_t>& out);

}  // namespace meshport::gltf
