// Placeholder until the glTF reader lands.
#include "formats/gltf.h"

namespace meshport::gltf {
Scene read(std::span<const uint8_t>, const std::string& name, const SideFileLoader&, Diagnostics&) {
  fail(name, "glTF reader not built yet");
}
}  // namespace meshport::gltf
