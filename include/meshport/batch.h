// meshport batch: convert or validate whole asset trees on several threads (docs/batch.md).
//
// Inputs are files, folders (searched recursively) and globs (`*`, `?`, `[...]` within one path
// component, `**` across components). Each model found is one item; IQM/IQE files holding only
// animations are attached to their mesh file (docs/batch.md, "Animation files"). Outputs mirror
// the tree below each input's root. Items run on `jobs` threads; one failing item never stops
// the others unless `fail_fast` is set.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/meshport.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshport {

// Part K of N (0 <= K < N) of a tree: an item belongs to shard hash(relative path) % N, so adding
// files elsewhere in the tree never moves an item to another shard.
struct Shard {
  uint32_t index = 0;
  uint32_t count = 1;
};

// "K/N" (K from 0), or "auto": K and N from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX and
// MESHPORT_SHARD_COUNT, which the Job sets to its completions) or a Slurm job array
// (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT). `getenv` looks up a
// variable (std::getenv when empty). Throws meshport::Error with a message saying what is wrong.
Shard parse_shard(std::string_view text,
                  const std::function<const char*(const char*)>& getenv = {});
uint32_t shard_of(std::string_view relative_path, uint32_t count);

enum class BatchTask { Convert, Validate };

// Convert: Done = converted without warnings, Warned = converted with warnings, Failed = not
// written. Validate: Done = valid, Warned = valid with warnings, Failed = invalid (errors, or
// warnings with `strict`). Skipped: up to date, or never started (fail_fast, cancel).
enum class BatchStatus { Done, Warned, Failed, Skipped };

struct BatchItem {
  std::string input;                    // the model file, as found (root joined with `relative`)
  std::string relative;                 // below its root, '/'-separated
  std::vector<std::string> animations;  // animation-only files attached to it
  std::string output;                   // convert: the file written (empty for validate)
  BatchStatus status = BatchStatus::Skipped;
  std::string note;  // why skipped ("up to date", "not started: ..."), or how animations were found
  std::vector<Diagnostic> diagnostics;
  size_t dropped = 0;  // diagnostics past the per-file limit
  uint64_t input_bytes = 0;   // the model and its animation files
  uint64_t output_bytes = 0;  // main output and side files (.bin, .mtl, images written beside)
  double milliseconds = 0;
  // What was read (after processing, for convert).
  size_t meshes = 0, vertices = 0, triangles = 0, materials = 0, joints = 0, animations_count = 0;
};

struct BatchProgress {
  size_t total = 0;     // items in this run (this shard)
  size_t finished = 0;  // items done, warned, failed or skipped so far
  size_t failed = 0, warned = 0, skipped = 0;
  double seconds = 0;                // since the run started
  std::string current;               // an item being worked on (the latest started), relative
  const BatchItem* item = nullptr;   // the item that just finished; nullptr on a start event
};

struct BatchOptions {
  BatchTask task = BatchTask::Convert;
  std::vector<std::string> inputs;  // files, folders, globs
  std::optional<Format> from;       // read every input as this format (default: by extension)
  // Convert: the output folder and format. Per-file read/process/write options come from
  // `convert` (its format fields are ignored; texture_model is set per file).
  std::string output_dir;
  std::optional<Format> to;
  ConvertOptions convert;
  // Copy the texture files a model uses (found by the texture rules) into the output tree, at
  // their place relative to the input root, so that outputs naming textures by path (OBJ, IQM,
  // IQE, PIE, QMSH) keep working. Off for glTF, which embeds or writes its images itself.
  bool copy_textures = true;
  bool force = false;  // convert even when the output is up to date
  // Texture pages are read once per run and shared by the models that use them (docs/batch.md,
  // "Texture pages"), holding at most this many bytes (mapped files and converted images; least
  // recently used evicted first). 0: convert.read.max_memory, or kDefaultMaxMemory when unset.
  uint64_t texture_memory = 0;
  // Validate: warnings count as errors; engine profiles checked (profiles.h names).
  bool strict = false;
  std::vector<std::string> profiles;
  unsigned jobs = 0;  // threads; 0: all cores
  bool fail_fast = false;
  Shard shard;
  // Called on one thread at a time (under a lock), when an item starts and when it finishes; it
  // must not throw.
  std::function<void(const BatchProgress&)> progress;
  // Set (from a signal handler, say) to stop starting items; those running finish.
  const std::atomic<bool>* cancel = nullptr;
};

struct BatchResult {
  BatchTask task = BatchTask::Convert;
  std::vector<BatchItem> items;  // in path order
  size_t done = 0, warned = 0, failed = 0, skipped = 0;
  bool cancelled = false;
  double seconds = 0;
  Shard shard;
  std::string error;  // set when the batch could not start (no input, unreadable folder, ...)
  // Texture pages (docs/batch.md, "Texture pages"): files read, requests served without reading,
  // pages converted (TGA, PCX, DDS, ... to PNG), entries evicted for texture_memory, and pages
  // written once into the output tree (--external-textures).
  uint64_t texture_reads = 0, texture_hits = 0, texture_conversions = 0, texture_evictions = 0,
           texture_pages_written = 0;
  // 0 when nothing failed, 1 otherwise (also when `error` is set).
  int exit_code() const;
};

// Runs the batch. Never throws for a bad model (that item fails); throws meshport::Error for
// bad options (no output folder for a conversion, unknown profile).
BatchResult batch(const BatchOptions& options);

// "converted" / "valid", "warned", "failed" / "invalid", "skipped".
std::string_view status_name(BatchTask task, BatchStatus status);
// "1046 files: 1040 converted, 4 warned, 1 failed, 1 skipped in 0.62 s (1687 files/s)".
std::string summary_line(const BatchResult& result);

// The JSON report (docs/batch.md, "Report"), and reading one back.
std::string report_json(const BatchResult& result);
// One item as the report's "items" hold it (for a progress display or a binding).
std::string report_item_json(BatchTask task, const BatchItem& item);
BatchResult parse_report(std::string_view json, const std::string& file);
// Joins reports of the shards of one tree: items merged in path order; an item present in two
// reports is an error (the shards overlap). Throws meshport::Error naming the file.
BatchResult merge_reports(const std::vector<BatchResult>& reports, const std::vector<std::string>& files);

}  // namespace meshport
