// The options stamp of a batch conversion's output folder (docs/batch.md, "Incremental").
#pragma once

#include <meshport/batch.h>

#include <filesystem>
#include <string>

namespace meshport::batch_detail {

// Every option that changes what a conversion writes, as text (one "name value" line each),
// with meshport's version.
std::string fingerprint(const BatchOptions& options);

struct Stamp {
  std::filesystem::file_time_type time;  // an output older than this is out of date
  bool changed = false;                  // rewritten now: every output of this run is out of date
};

// Creates the output folder and its `.meshport-batch` stamp, rewriting the stamp only when the
// fingerprint differs. (`changed` matters because file times are coarse: an output written in the
// same clock tick as the new stamp would otherwise look up to date.) Throws meshport::Error when
// the folder or stamp cannot be written.
Stamp update_stamp(const BatchOptions& options);
// The same for any command writing a tree into `dir` (thumbnails: `.meshport-thumbnail`): the
// stamp file `dir/name` holds `fingerprint`.
Stamp update_stamp(const std::string& dir, const std::string& name, const std::string& fingerprint);

}  // namespace meshport::batch_detail
