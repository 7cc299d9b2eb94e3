// Wavefront OBJ with its MTL material library.
#pragma once

#include "core/files.h"

#include <meshport/diagnostics.h>
#include <meshport/options.h>

#include <string>
#include <string_view>
#include <vector>

namespace meshport::obj {

// Reads OBJ text; `mtllib` files are loaded through `load` (a missing one is a warning).
Scene read(std::string_view text, const std::string& name, const SideFileLoader& load, Diagnostics& diags);

// Writes OBJ, plus `mtl_name` beside it when non-empty and the Scene has materials (the OBJ
// then says `mtllib mtl_name`). `output_dir` as for glTF.
std::vector<OutputFile> write(const Scene& scene, const WriteOptions& options, const std::string& mtl_name,
                              const std::string& output_dir, Diagnostics& diags);

}  // namespace meshport::obj
