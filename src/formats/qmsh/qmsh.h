// TFQMSH10: The Final Quest engine's binary mesh (../shared/specs/qmsh-notes.md, "Binary QMSH").
// Mapping and choices: docs/qmsh.md.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace meshport::qmsh {

// Throws meshport::Error with the byte offset of the problem; every count and offset is checked
// against the file size before anything is allocated.
Scene read(std::span<const uint8_t> data, const std::string& name, Diagnostics& diags);

// TFQMSH10 -> Scene -> TFQMSH10 is byte-identical. Throws meshport::Error for what the format
// cannot hold (more than 65,535 vertices or triangles, more than 255-byte names, ...).
std::vector<uint8_t> write(const Scene& scene, Diagnostics& diags);

}  // namespace meshport::qmsh
