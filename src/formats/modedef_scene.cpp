// ModeDef .prop, .state and .path: parse / print, .state scenes, their writers.
#include "formats/modedef.h"
#include "formats/modedef_token.h"

namespace meshport::modedef {

ModeDefProp parse_prop(std::string_view, const std::string& name, Diagnostics&) { fail(name, "ModeDef .prop: not implemented yet"); }
std::string print_prop(const ModeDefProp&) { return {}; }
ModeDefState parse_state(std::string_view, const std::string& name, Diagnostics&) { fail(name, "ModeDef .state: not implemented yet"); }
std::string print_state(const ModeDefState&) { return {}; }
ModeDefPath parse_path(std::string_view, const std::string& name, Diagnostics&) { fail(name, "ModeDef .path: not implemented yet"); }
std::string print_path(const ModeDefPath&) { return {}; }
Scene read_prop(std::string_view, const std::string& name, const SideFileLoader&, Diagnostics&) { fail(name, "ModeDef .prop: not implemented yet"); }
Scene read_state(std::string_view, const std::string& name, const SideFileLoader&, Diagnostics&) { fail(name, "ModeDef .state: not implemented yet"); }
Scene read_path(std::string_view, const std::string& name, Diagnostics&) { fail(name, "ModeDef .path: not implemented yet"); }
std::vector<OutputFile> write_prop(const Scene&, const std::string&, Diagnostics&) { fail("", "ModeDef .prop: not implemented yet"); }
std::vector<OutputFile> write_state(const Scene&, Diagnostics&) { fail("", "ModeDef .state: not implemented yet"); }
std::vector<OutputFile> write_path(const Scene&, Diagnostics&) { fail("", "ModeDef .path: not implemented yet"); }

}  // namespace meshport::modedef
