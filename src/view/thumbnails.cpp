// Thumbnails of whole trees (thumbnails.h).
#include "view/thumbnails.h"

#include "batch/plan.h"
#include "batch/stamp.h"
#include "core/io.h"
#include "core/utf8_path.h"
#include "image/image.h"
#include "view/browser.h"
#include "view/server.h"
#include "view/sheet.h"
#include "view/thumbnail.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace fs = std::filesystem;

namespace meshport::view {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::optional<fs::file_time_type> mtime(const std::string& path) {
  std::error_code ec;
  auto t = fs::last_write_time(utf8_path(path), ec);
  if (ec) return std::nullopt;
  return t;
}

struct Job {
  BatchItem item;
  std::vector<std::string> files;  // what the viewer loads (the model, or a unit's parts)
  std::string error;               // from planning
};

// The items: `batch`'s planning (models under folders and globs, outputs mirroring the tree as
// .png), or one unit's parts.
std::vector<Job> plan_jobs(const ThumbnailOptions& o, unsigned jobs) {
  std::vector<Job> out;
  if (o.assemble) {
    Job j;
    j.files = o.inputs;
    j.item.input = o.inputs.front();
    j.item.relative = generic_utf8(utf8_path(j.item.input).filename());
    j.item.output = generic_utf8(utf8_path(o.output_dir) / utf8_path(path_utf8(utf8_path(j.item.input).stem()) + ".png"));
    out.push_back(std::move(j));
    return out;
  }
  BatchOptions b;
  b.task = BatchTask::Convert;
  b.inputs = o.inputs;
  b.from = o.load.from;
  b.output_dir = o.output_dir;
  b.to = Format::Glb;
  b.convert.read.max_memory = o.load.max_memory;
  for (batch_detail::PlannedItem& p : batch_detail::plan(b, jobs, ".png")) {
    Job j;
    j.item.input = p.input;
    j.item.relative = p.relative;
    j.item.output = p.output;
    j.item.note = p.note;
    j.files = {p.input};  // animation-only files attached to it are not drawn (the rest pose is)
    j.error = p.error;
    out.push_back(std::move(j));
  }
  return out;
}

bool up_to_date(const ThumbnailOptions& o, const batch_detail::Stamp& stamp, const Job& job) {
  if (o.force || stamp.changed) return false;
  const auto out = mtime(job.item.output);
  if (!out || *out < stamp.time) return false;
  return std::none_of(job.files.begin(), job.files.end(), [&](const std::string& in) {
    const auto t = mtime(in);
    return !t || *t > *out;
  });
}

// One model: read and converted to .glb, drawn by the worker's page (opened on first use, and
// again after an error, which may leave a page in any state).
void draw(const ThumbnailOptions& o, Browser& browser, const std::string& url, std::unique_ptr<PoolPage>& page,
          Job& job, Diagnostics& d) {
  LoadOptions lo = o.load;
  lo.files = job.files;
  const Model model = load_model(lo, &d);
  const std::string glb = model_glb(model, std::nullopt, &d);
  if (!page) page = std::make_unique<PoolPage>(browser, url, job.item.input, o.timeout);
  std::vector<uint8_t> picture;
  try {
    picture = page->draw(glb, job.item.input, o.timeout);
  } catch (const Error&) {
    page.reset();
    throw;
  }
  const std::vector<uint8_t> png = crop_thumbnail(picture, o.size, job.item.input);
  std::error_code ec;
  fs::create_directories(utf8_path(job.item.output).parent_path(), ec);
  io::write_file_atomic(job.item.output, png, false);
  job.item.output_bytes = png.size();
}

void finish(Job& job, Diagnostics& d, bool ran, Clock::time_point t0) {
  job.item.milliseconds = seconds_since(t0) * 1000.0;
  const bool errors = d.has_errors(), warnings = d.warning_count() > 0 || d.dropped > 0;
  job.item.diagnostics = std::move(d.items);
  job.item.dropped = d.dropped;
  if (!ran) {
    job.item.status = BatchStatus::Skipped;
    job.item.note = "up to date";
  } else {
    job.item.status = errors ? BatchStatus::Failed : warnings ? BatchStatus::Warned : BatchStatus::Done;
  }
}

void write_sheet(const ThumbnailOptions& o, const std::vector<Job>& jobs) {
  std::vector<SheetEntry> entries;
  for (const Job& j : jobs) {
    SheetEntry e;
    e.name = j.item.relative;
    if (j.item.status != BatchStatus::Failed) {
      std::ifstream in(utf8_path(j.item.output), std::ios::binary);
      const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      image::DecodedImage img = image::decode_image(bytes, j.item.output, image::ImageLimits{});
      if (img.error.empty()) e.image = std::move(img.pixels);
    }
    entries.push_back(std::move(e));
  }
  const std::vector<uint8_t> png = image::encode_png(contact_sheet(entries, o.size));
  std::error_code ec;
  if (utf8_path(o.sheet).has_parent_path()) fs::create_directories(utf8_path(o.sheet).parent_path(), ec);
  io::write_file_atomic(o.sheet, png, false);
}

}  // namespace

std::string thumbnail_fingerprint(const ThumbnailOptions& o) {
  return fmt::format("meshport {}\nthumbnail size {}\nfrom {}\nassemble {} vtol {}\ntextures {}\n", MESHPORT_VERSION,
                     o.size, o.load.from ? std::string(format_info(*o.load.from).name) : "by-extension", o.assemble,
                     o.load.assemble.vtol, fmt::join(o.load.texture_dirs, "|"));
}

BatchResult thumbnails(const ThumbnailOptions& o) {
  const auto t0 = Clock::now();
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  BatchResult result;
  if (o.inputs.empty()) fail("thumbnail", "no model given");
  // Refused before anything is written (the output folder's stamp included).
  if (!os::can_start_piped())
    fail(o.chromium, "`meshport thumbnail` cannot start Chromium on this system yet (Linux only: docs/viewer.md)");
  std::vector<Job> list = plan_jobs(o, jobs);
  const batch_detail::Stamp stamp = batch_detail::update_stamp(o.output_dir, ".meshport-thumbnail", thumbnail_fingerprint(o));
  std::vector<size_t> todo;
  for (size_t i = 0; i < list.size(); ++i)
    if (!list[i].error.empty() || !up_to_date(o, stamp, list[i])) todo.push_back(i);
  // One browser and one server (the page's files only) for the run; `jobs` pages at once.
  std::unique_ptr<Browser> browser;
  const Site site = make_page_site();
  Server server(site);
  std::thread serving;
  std::string url;
  if (std::any_of(todo.begin(), todo.end(), [&](size_t i) { return list[i].error.empty(); })) {
    browser = std::make_unique<Browser>(o.chromium);
    ServeOptions so;
    so.first_seconds = so.idle_seconds = 1e9;  // stopped at the end of the run
    url = fmt::format("http://127.0.0.1:{}/?thumbnail={}&pool", server.bind(so), o.size);
    serving = std::thread([&server] { server.run(); });
  }

  std::mutex lock;
  BatchProgress progress;
  progress.total = list.size();
  auto report = [&](const std::string& current, const BatchItem* done) {
    std::lock_guard<std::mutex> g(lock);
    batch_detail::record_progress(progress, done, current, seconds_since(t0));
    if (o.progress) o.progress(progress);
  };
  for (size_t i = 0; i < list.size(); ++i)
    if (!std::binary_search(todo.begin(), todo.end(), i)) {
      Diagnostics d;
      finish(list[i], d, false, Clock::now());
      report("", &list[i].item);
    }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    std::unique_ptr<PoolPage> page;
    for (size_t k; (k = next++) < todo.size();) {
      Job& job = list[todo[k]];
      const auto started = Clock::now();
      if (o.cancel && o.cancel->load()) {
        job.item.status = BatchStatus::Skipped;
        job.item.note = "not started: interrupted";
        report("", &job.item);
        continue;
      }
      report(job.item.relative, nullptr);
      Diagnostics d;
      try {
        if (!job.error.empty()) fail(job.item.input, job.error);
        draw(o, *browser, url, page, job, d);
      } catch (const Error& e) {
        d.add(e.diagnostic());
      } catch (const std::exception& e) {
        d.add(Diagnostic{Severity::Error, job.item.input, 0, 0, -1, e.what()});
      }
      finish(job, d, true, started);
      report("", &job.item);
    }
  };
  std::vector<std::thread> workers;
  for (unsigned w = 1; w < std::min<size_t>(jobs, todo.size()); ++w) workers.emplace_back(worker);
  worker();
  for (std::thread& t : workers) t.join();
  if (serving.joinable()) {
    server.stop();
    serving.join();
  }
  browser.reset();
  for (Job& j : list) result.items.push_back(j.item);
  result.cancelled = o.cancel && o.cancel->load();
  if (!o.sheet.empty() && !result.cancelled) write_sheet(o, list);
  batch_detail::tally(result);
  result.seconds = seconds_since(t0);
  return result;
}

}  // namespace meshport::view
