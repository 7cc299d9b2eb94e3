// Running a batch (batch.h): items on threads, incremental skips, texture copies, progress.
#include "batch/plan.h"
#include "batch/stamp.h"

#include "core/io.h"
#include "core/os.h"
#include "core/utf8_path.h"
#include "ops/materials/texture_cache.h"

#include <meshport/profiles.h>
#include <meshport/textures.h>
#include <meshport/validate.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

namespace fs = std::filesystem;

namespace meshport {

namespace batch_detail {

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> threads;
  const size_t extra = std::min<size_t>(jobs, n) > 1 ? std::min<size_t>(jobs, n) - 1 : 0;
  try {
    for (size_t t = 0; t < extra; ++t) threads.emplace_back(work);
  } catch (const std::system_error&) {  // no more threads to be had: go on with those started
  }
  work();
  for (auto& t : threads) t.join();
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

uint64_t size_of(const std::string& path) {
  std::error_code ec;
  const uintmax_t n = fs::file_size(utf8_path(path), ec);
  return ec ? 0 : uint64_t(n);
}

std::optional<fs::file_time_type> mtime(const std::string& path) {
  std::error_code ec;
  auto t = fs::last_write_time(utf8_path(path), ec);
  if (ec) return std::nullopt;
  return t;
}

void count(BatchItem& item, const Scene& s) {
  item.meshes = s.meshes.size();
  for (const Mesh& m : s.meshes) {
    item.vertices += m.vertex_count();
    item.triangles += m.triangles.size() / 3;
  }
  item.materials = s.materials.size();
  item.joints = s.joints.size();
  item.animations_count = s.animations.size();
}

struct Runner {
  const BatchOptions& options;
  std::vector<const ProfileInfo*> profiles;  // validate
  Stamp stamp;
  std::mutex copy_lock;
  std::set<std::string> copied;  // texture destinations claimed by an item
  TextureCache* textures = nullptr;  // texture files shared by the items

  bool up_to_date(const BatchItem& item) const {
    if (options.force || stamp.changed) return false;
    auto out = mtime(item.output);
    if (!out || *out < stamp.time) return false;
    auto newer = [&](const std::string& in) {
      auto t = mtime(in);
      return !t || *t > *out;
    };
    return !newer(item.input) && std::none_of(item.animations.begin(), item.animations.end(), newer);
  }

  // The texture files `scene` uses that lie below `root`, copied to the same place below the
  // output folder (once per run, and only when older or missing there).
  void copy_textures(const Scene& scene, const BatchItem& item, const std::string& root, Diagnostics& d) {
    TextureSearch search;
    search.model_path = item.input;
    search.dirs = options.convert.write.texture_dirs;
    std::error_code ec;
    const fs::path base = fs::weakly_canonical(utf8_path(root.empty() ? "." : root), ec);
    for (const TextureLookup& t : find_textures(scene, search)) {
      if (t.file.empty()) continue;
      const fs::path rel = fs::weakly_canonical(utf8_path(t.file), ec).lexically_relative(base);
      if (ec || rel.empty() || *rel.begin() == "..") continue;  // outside the input tree: named where it is
      const std::string dest = generic_utf8(utf8_path(options.output_dir) / rel);
      {
        std::lock_guard lock(copy_lock);
        if (!copied.insert(dest).second) continue;
      }
      auto src_time = mtime(t.file), dest_time = mtime(dest);
      if (dest_time && src_time && *dest_time >= *src_time && !options.force) continue;
      try {
        const auto page = textures->get(t.file);
        if (!page->read_error.empty()) fail(t.file, page->read_error);
        fs::create_directories(utf8_path(dest).parent_path(), ec);
        io::write_file_atomic(dest, page->bytes(), false);
      } catch (const Error& e) {
        d.add(warning(item.input, fmt::format("texture {} not copied to {}: {}", t.file, dest, e.what())));
      }
    }
  }

  // False when the output is up to date (nothing done).
  bool convert_item(BatchItem& item, const std::string& root, Diagnostics& d) {
    if (up_to_date(item)) return false;
    std::error_code ec;
    fs::create_directories(utf8_path(item.output).parent_path(), ec);
    ConvertOptions o = options.convert;
    o.read.format = options.from;
    o.write.format = options.to;
    o.write.sync = false;  // one flush of the whole file system at the end (flush_outputs)
    o.read.threads = o.process.threads = o.write.threads = 1;  // the batch runs files in parallel instead
    o.write.texture_cache = textures;
    std::vector<std::string> inputs{item.input};
    inputs.insert(inputs.end(), item.animations.begin(), item.animations.end());
    const Scene s = meshport::convert(inputs, item.output, o, &d);
    count(item, s);
    item.output_bytes = size_of(item.output);
    const bool gltf = *options.to == Format::Gltf || *options.to == Format::Glb;
    if (options.copy_textures && !gltf) copy_textures(s, item, root, d);
    return true;
  }

  void validate_item(BatchItem& item, Diagnostics& d) {
    ReadOptions ro;
    ro.format = options.from;
    ro.threads = 1;
    ro.max_memory = options.convert.read.max_memory;
    const Scene s = read(item.input, ro, &d);
    count(item, s);
    validate_scene(s, item.input, d);
    for (const ProfileInfo* p : profiles) check_profile(*p, s, item.input, d);
  }

  void run(BatchItem& item, const std::string& root, const std::string& error) {
    const auto t0 = Clock::now();
    Diagnostics d;
    item.input_bytes = size_of(item.input);
    for (const std::string& a : item.animations) item.input_bytes += size_of(a);
    bool ran = true;
    try {
      if (!error.empty()) fail(item.input, error);
      if (options.task == BatchTask::Convert) ran = convert_item(item, root, d);
      else validate_item(item, d);
    } catch (const Error& e) {
      d.add(e.diagnostic());
    } catch (const std::bad_alloc&) {
      d.add(Diagnostic{Severity::Error, item.input, 0, 0, -1, "out of memory"});
    } catch (const std::exception& e) {
      d.add(Diagnostic{Severity::Error, item.input, 0, 0, -1, e.what()});
    }
    // What writing the output found is about the input the user gave: name it, and the output.
    for (Diagnostic& x : d.items)
      if (x.file == item.output) {
        x.file = item.input;
        x.message += fmt::format(" (writing {})", item.output);
      }
    item.milliseconds = seconds_since(t0) * 1000.0;
    const bool errors = d.has_errors(), warnings = d.warning_count() > 0 || d.dropped > 0;
    item.diagnostics = std::move(d.items);
    item.dropped = d.dropped;
    if (!ran) {
      item.status = BatchStatus::Skipped;
      item.note = "up to date";
    } else if (errors || (options.strict && warnings)) {
      item.status = BatchStatus::Failed;
    } else {
      item.status = warnings ? BatchStatus::Warned : BatchStatus::Done;
    }
  }
};

// Flushes the output folder's file system to the disk once, instead of once per file: after
// the batch, the outputs survive a crash of the machine too.
void flush_outputs(const std::string& dir) { os::flush_file_system(dir); }

}  // namespace
}  // namespace batch_detail

int BatchResult::exit_code() const { return error.empty() && failed == 0 ? 0 : 1; }

std::string_view status_name(BatchTask task, BatchStatus status) {
  const bool convert = task == BatchTask::Convert;
  switch (status) {
    case BatchStatus::Done: return convert ? "converted" : "valid";
    case BatchStatus::Warned: return "warned";
    case BatchStatus::Failed: return convert ? "failed" : "invalid";
    case BatchStatus::Skipped: return "skipped";
  }
  return "skipped";
}

std::string summary_line(const BatchResult& r) {
  const size_t n = r.items.size();
  std::string s = r.shard.count > 1 ? fmt::format("shard {}/{}: ", r.shard.index, r.shard.count) : std::string();
  s += fmt::format("{} file{}: {} {}, {} warned, {} {}, {} skipped in {:.2f} s", n, n == 1 ? "" : "s", r.done,
                   status_name(r.task, BatchStatus::Done), r.warned, r.failed, status_name(r.task, BatchStatus::Failed),
                   r.skipped, r.seconds);
  if (r.seconds > 0 && n > 0) s += fmt::format(" ({:.0f} files/s)", double(n) / r.seconds);
  if (r.cancelled) s += " (interrupted)";
  return s;
}

BatchResult batch(const BatchOptions& options) {
  using namespace batch_detail;
  const auto t0 = Clock::now();
  BatchResult result;
  result.task = options.task;
  result.shard = options.shard;
  if (options.shard.count == 0 || options.shard.index >= options.shard.count)
    fail("--shard", fmt::format("shard {}/{} does not exist", options.shard.index, options.shard.count));
  if (options.task == BatchTask::Convert) {
    if (options.output_dir.empty()) fail("batch", "no output folder: give one with -o");
    if (!options.to) fail("batch", "no output format: give one with --to");
    if (!format_info(*options.to).can_write) fail("batch", fmt::format("cannot write {}", format_info(*options.to).name));
  }
  if (options.inputs.empty()) fail("batch", "no input: give files, folders or patterns");
  std::vector<const ProfileInfo*> checked_profiles;
  for (const std::string& name : options.profiles) {
    const ProfileInfo* p = find_profile(name);
    if (!p) {
      std::string known;
      for (const ProfileInfo& i : meshport::profiles()) known += (known.empty() ? "" : ", ") + std::string(i.name);
      fail("--profile", fmt::format("unknown profile '{}' (known: {})", name, known));
    }
    checked_profiles.push_back(p);
  }
  const unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());

  std::vector<PlannedItem> planned;
  for (PlannedItem& p : plan(options, jobs))
    if (shard_of(p.relative, options.shard.count) == options.shard.index) planned.push_back(std::move(p));

  TextureCache textures(options.texture_memory ? options.texture_memory
                        : options.convert.read.max_memory ? options.convert.read.max_memory
                                                          : kDefaultMaxMemory);
  Runner runner{options, checked_profiles, {}, {}, {}, &textures};
  if (options.task == BatchTask::Convert) {
    try {
      runner.stamp = update_stamp(options);
    } catch (const Error& e) {
      result.error = e.what();
      result.seconds = seconds_since(t0);
      return result;
    }
  }

  if (options.task == BatchTask::Convert && options.convert.write.external_textures) {
    std::vector<std::string> roots;
    for (const PlannedItem& p : planned) roots.push_back(p.root);
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    textures.share_pages(options.output_dir, roots);
  }

  result.items.resize(planned.size());
  for (size_t i = 0; i < planned.size(); ++i) {
    BatchItem& item = result.items[i];
    item.input = planned[i].input;
    item.relative = planned[i].relative;
    item.animations = planned[i].animations;
    item.output = planned[i].output;
    item.note = planned[i].note;
  }

  std::mutex lock;
  BatchProgress progress;
  progress.total = planned.size();
  std::atomic<bool> stop{false};
  auto report = [&](const BatchItem* finished, const std::string& current) {
    std::lock_guard guard(lock);
    record_progress(progress, finished, current, seconds_since(t0));
    if (options.progress) options.progress(progress);
  };
  parallel_for(planned.size(), jobs, [&](size_t i) {
    BatchItem& item = result.items[i];
    const bool cancelled = options.cancel && options.cancel->load();
    if (cancelled || stop.load()) {
      item.status = BatchStatus::Skipped;
      item.note = cancelled ? "not started: interrupted" : "not started: --fail-fast stopped the batch";
    } else {
      report(nullptr, item.relative);
      runner.run(item, planned[i].root, planned[i].error);
      if (item.status == BatchStatus::Failed && options.fail_fast) stop = true;
    }
    report(&item, {});
  });

  if (options.task == BatchTask::Convert) flush_outputs(options.output_dir);
  tally(result);
  const TextureCacheStats ts = textures.stats();
  result.texture_reads = ts.reads;
  result.texture_hits = ts.hits;
  result.texture_conversions = ts.conversions;
  result.texture_evictions = ts.evictions;
  result.texture_pages_written = ts.pages_written;
  result.cancelled = options.cancel && options.cancel->load();
  result.seconds = seconds_since(t0);
  return result;
}

}  // namespace meshport
