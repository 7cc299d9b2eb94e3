// IQE (Inter-Quake Export, text): ../shared/specs/iqe.txt.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include "formats/iqe/iqe_chunks.h"

#include <string>
#include <string_view>

namespace meshport::iqe {

// Parses a whole IQE file. `name` is used in diagnostics (file:line:col). Throws meshport::Error.
// With threads (iqe_chunks.h), large files are parsed on several threads; the Scene and the
// diagnostics are exactly those of the serial read.
Scene read(std::string_view text, const std::string& name, Diagnostics& diags, const ReadThreads& threads = {});

// Writes every command the Scene can express; read(write(s)) == s for a Scene read from IQE.
std::string write(const Scene& scene, Diagnostics& diags);

}  // namespace meshport::iqe
