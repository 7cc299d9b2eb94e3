// Planning a batch: the models found under the inputs, their animation files and outputs.
#pragma once

#include <meshport/batch.h>

#include <string>
#include <string_view>
#include <vector>

namespace meshport::batch_detail {

struct PlannedItem {
  std::string root;      // the folder the item's relative path starts from ("" for the current one)
  std::string relative;  // '/'-separated
  std::string input;     // root joined with relative
  Format format = Format::Iqe;
  std::vector<std::string> animations;
  std::string output;  // convert only
  std::string note;
  std::string error;  // the item fails with this (missing input, output clash, ...)
};

// Every model under `options.inputs`, in path order, with IQM/IQE animation-only files attached
// to their meshes (which reads those folders' IQM/IQE files once: `jobs` threads) and outputs
// under `options.output_dir` (named with `extension` when given, e.g. ".png" for thumbnails,
// else with options.to's). Not yet sharded.
std::vector<PlannedItem> plan(const BatchOptions& options, unsigned jobs, std::string_view extension = {});

// `*` and `?` match within one path component, `[abc]`, `[a-z]`, `[!a]` one character, `**` any
// number of whole components; '/' separates.
bool glob_match(std::string_view pattern, std::string_view path);
bool has_glob(std::string_view text);

// Sets r's done / warned / failed / skipped counts from its items (report.cpp).
void tally(BatchResult& r);

// Runs fn(i) for i in [0, n) on `jobs` threads; fn must not throw.
void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn);

// Counts one event of a run into `p`: an item that finished (`finished`), or, without one, the
// item `current` that started; `seconds` since the run started. Batch and thumbnail runs share it.
void record_progress(BatchProgress& p, const BatchItem* finished, const std::string& current, double seconds);

}  // namespace meshport::batch_detail
