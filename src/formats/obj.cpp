// Placeholder until the OBJ reader and writer land.
#include "formats/obj.h"

namespace meshport::obj {
Scene read(std::string_view, const std::string& name, const SideFileLoader&, Diagnostics&) {
  fail(name, "OBJ reader not built yet");
}
std::vector<OutputFile> write(const Scene&, const WriteOptions&, const std::string&, const std::string&, Diagnostics&) {
  fail("", "OBJ writer not built yet");
}
}  // namespace meshport::obj
