// Placeholder until the IQM reader and writer land.
#include "formats/iqm.h"

namespace meshport::iqm {
Scene read(std::span<const uint8_t>, const std::string& name, Diagnostics&) { fail(name, "IQM reader not built yet"); }
std::vector<uint8_t> write(const Scene&, const WriteOptions&, Diagnostics&) { fail("", "IQM writer not built yet"); }
}  // namespace meshport::iqm
