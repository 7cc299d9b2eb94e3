// Placeholder until the glTF writer lands.
#include "formats/gltf.h"

namespace meshport::gltf {
std::vector<OutputFile> write(const Scene&, const WriteOptions&, bool, const std::string&, const std::string&,
                              Diagnostics&) {
  fail("", "glTF writer not built yet");
}
}  // namespace meshport::gltf
