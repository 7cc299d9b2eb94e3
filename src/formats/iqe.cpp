// Placeholder until the IQE reader and writer land.
#include "formats/iqe.h"

namespace meshport::iqe {
Scene read(std::string_view, const std::string& name, Diagnostics&) { fail(name, "IQE reader not built yet"); }
std::string write(const Scene&, Diagnostics&) { fail("", "IQE writer not built yet"); }
}  // namespace meshport::iqe
