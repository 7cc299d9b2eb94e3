// IQE (Inter-Quake Export, text): ../shared/specs/iqe.txt.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <string>
#include <string_view>

namespace meshport::iqe {

// Parses a whole IQE file. `name` is used in diagnostics (file:line:col). Throws meshport::Error.
Scene read(std::string_view text, const std::string& name, Diagnostics& diags);

// Writes every command the Scene can express; read(write(s)) == s for a Scene read from IQE.
std::string write(const Scene& scene, Diagnostics& diags);

}  // namespace meshport::iqe
