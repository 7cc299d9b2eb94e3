// ModeDef .model: parse / print, the render mesh as Scene meshes, Scene -> .model.
#include "formats/modedef.h"
#include "formats/modedef_token.h"

namespace meshport::modedef {

ModeDefModel parse_model(std::string_view, const std::string& name, Diagnostics&) { fail(name, "ModeDef .model: not implemented yet"); }
std::string print_model(const ModeDefModel&) { return {}; }
void append_model_meshes(Scene&, int32_t, int32_t, const std::string& stem, Diagnostics&) { fail(stem, "ModeDef: not implemented yet"); }
Scene read_model(std::string_view, const std::string& name, Diagnostics&) { fail(name, "ModeDef .model: not implemented yet"); }
std::vector<OutputFile> write_model(const Scene&, Diagnostics&) { fail("", "ModeDef .model: not implemented yet"); }

}  // namespace meshport::modedef
