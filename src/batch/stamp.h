// The options stamp of a batch conversion's output folder (docs/batch.md, "Incremental").
#pragma once

#include <meshport/batch.h>

#include <filesystem>
#include <string>

namespace meshport::batch_detail {

// Every option that changes what a conversion writes, as text (one "name value" line each),
// with meshport's version.
std::string fingerprint(const BatchOptions& options);

// Creates the output folder and its `.meshport-batch` stamp, rewriting the stamp only when the
// fingerprint differs; returns the stamp's modification time. An output older than the stamp
// is out of date. Throws meshport::Error when the folder or stamp cannot be written.
std::filesystem::file_time_type update_stamp(const BatchOptions& options);

}  // namespace meshport::batch_detail
