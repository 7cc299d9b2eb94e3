// File input and atomic file output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/files.h"

namespace meshport::io {

// Reads a whole file; throws meshport::Error ("file: error: cannot open: ...") on failure.
std::vector<uint8_t> read_file(const std::string& path);
// Standard input until its end, and standard output (errors name "<stdin>" / "<stdout>").
std::vector<uint8_t> read_stdin();
void write_stdout(std::span<const uint8_t> data);

// Writes `data` to a temporary file in the destination's folder, flushes it, then renames it over
// `path`. On any failure the temporary file is removed, an existing `path` is left untouched,
// and meshport::Error is thrown.
// With `sync`, the data is flushed to the disk (fsync) before the rename, so that not even a
// crash of the machine can leave an empty file in place of the old one.
void write_file_atomic(const std::string& path, std::span<const uint8_t> data, bool sync = true);

// Writes several files (the main one at `main_path`, side files named relative to its folder)
// each to a temporary file first, then renames them all into place; on failure no temporary
// is left and no destination is touched (a failure in the final renames, rare, can leave the
// side files renamed but not the main file). Folders that side file names use are created (and
// removed again, when still empty, on failure); a side file name that is absolute or climbs out
// of the main file's folder with `..` is an error.
void write_files_atomic(const std::string& main_path, const std::vector<OutputFile>& files, bool sync = true);

}  // namespace meshport::io
