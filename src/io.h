// File input and atomic file output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace meshport::io {

// Reads a whole file; throws meshport::Error ("file: error: cannot open: ...") on failure.
std::vector<uint8_t> read_file(const std::string& path);

// Writes `data` to a temporary file in the destination's folder, flushes it, then renames it over
// `path`. On any failure the temporary file is removed, an existing `path` is left untouched,
// and meshport::Error is thrown.
void write_file_atomic(const std::string& path, std::span<const uint8_t> data);

}  // namespace meshport::io
