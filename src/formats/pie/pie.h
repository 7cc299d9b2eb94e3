// PIE 2, 3 and 4 (Warzone 2100 models, text): ../shared/specs/pie.md and pie-notes.md.
// How a PIE file maps onto the Scene, and every choice made where the specification is silent,
// is in docs/pie.md.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/options.h>

#include <string>
#include <string_view>

namespace meshport::pie {

// Parses a whole PIE file. `name` is the file's path: diagnostics (file:line:col) name it and the
// model name (its stem) names the meshes. Throws meshport::Error where the engine is fatal;
// warnings (where the engine only logs) go to `diags`.
Scene read(std::string_view text, const std::string& name, Diagnostics& diags);

// Writes PIE options.pie_version (0: scene.pie's version when the Scene has one, else 4). Throws meshport::Error
// for what that version cannot hold (more than 8192 polygons in a level, texture pages that are
// not .png, ...).
std::string write(const Scene& scene, const WriteOptions& options, Diagnostics& diags);

}  // namespace meshport::pie
