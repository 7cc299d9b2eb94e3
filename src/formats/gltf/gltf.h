// glTF 2.0 (.gltf with .bin or data URIs, and binary .glb). Specification: Khronos glTF 2.0.
#pragma once

#include "core/files.h"
#include "formats/shared/base64.h"

#include <meshport/diagnostics.h>
#include <meshport/options.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace meshport::gltf {

// Reads .gltf (JSON) or .glb (detected by its magic). `name` is used in diagnostics; external
// buffers and images are loaded through `load`. Throws meshport::Error.
// `options.scene` picks the scene read; `options.scenes` receives the file's scenes.
Scene read(std::span<const uint8_t> data, const std::string& name, const SideFileLoader& load, Diagnostics& diags,
           const ReadOptions& options = {});

// Writes glTF. `binary`: one .glb. Otherwise .gltf JSON plus `bin_name` beside it (returned as a
// second OutputFile), or with the buffer embedded as a data URI when `bin_name` is empty.
// `output_dir` is the folder the files will be written to (for relative texture URIs; empty
// when writing to memory).
std::vector<OutputFile> write(const Scene& scene, const WriteOptions& options, bool binary,
                              const std::string& bin_name, const std::string& output_dir, Diagnostics& diags);

}  // namespace meshport::gltf
