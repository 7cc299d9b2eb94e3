// Batch progress output (progress.h).
#include "progress.h"

#include "terminal.h"

#include <fmt/format.h>

#include <algorithm>

namespace meshport::cli {

namespace {

std::string duration(double seconds) {
  const long s = long(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

// "523/1046 50%, 1 failed, 210 files/s, ETA 0:02"
std::string counts(const BatchProgress& p) {
  std::string s = fmt::format("{}/{} {:.0f}%", p.finished, p.total, p.total ? 100.0 * double(p.finished) / double(p.total) : 100.0);
  if (p.failed) s += fmt::format(", {} failed", p.failed);
  if (p.warned) s += fmt::format(", {} warned", p.warned);
  if (p.seconds > 0 && p.finished > 0) {
    const double rate = double(p.finished) / p.seconds;
    // One decimal below 10 files/s (thumbnails draw a few a second: not "0 files/s").
    s += fmt::format(", {:.{}f} files/s, ETA {}", rate, rate < 10 ? 1 : 0, duration(double(p.total - p.finished) / rate));
  }
  return s;
}

}  // namespace

ProgressPrinter::ProgressPrinter(BatchTask task, ProgressStyle style, std::FILE* out)
    : task_(task), style_(style), out_(out) {}

void ProgressPrinter::clear_bar() {
  if (!bar_shown_) return;
  fmt::print(out_, "\r\033[K");
  bar_shown_ = false;
}

// `path` in at most `room` columns: shortened from the left ("...d7/m73.pie"), so the file name,
// which is what changes, stays readable.
static std::string fit_left(const std::string& path, size_t room) {
  if (path.size() <= room) return path;
  if (room <= 3) return path.substr(path.size() - room);
  return "..." + path.substr(path.size() - (room - 3));
}

void ProgressPrinter::draw_bar(const BatchProgress& p) {
  const size_t width = terminal_width(out_);
  // The bar narrows (or goes) on narrow terminals so that the current file keeps ~24 columns.
  const std::string c = counts(p);
  const size_t wanted = c.size() + 2 + 24 + 1;
  const size_t bar = width >= wanted + 26 ? 24 : width >= wanted + 12 ? 10 : 0;
  const size_t filled = p.total ? bar * p.finished / p.total : bar;
  std::string line = bar ? fmt::format("[{}{}] {}", std::string(filled, '#'), std::string(bar - filled, '.'), c) : c;
  if (!p.current.empty() && line.size() + 2 < width - 1) line += "  " + fit_left(p.current, width - 1 - line.size() - 2);
  if (line.size() > width - 1) line = line.substr(0, width - 1);
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
  bar_shown_ = true;
}

void ProgressPrinter::print_item(const BatchItem& item) {
  const bool problem = item.status == BatchStatus::Failed || !item.diagnostics.empty();
  if (!style_.verbose && !problem) return;
  if (style_.quiet && item.status != BatchStatus::Failed) return;
  clear_bar();
  if (!style_.quiet)
    for (const Diagnostic& d : item.diagnostics) fmt::print(stderr, "{}\n", d.to_string());
  if (item.dropped && !style_.quiet) fmt::print(stderr, "note: {} more diagnostics not shown\n", item.dropped);
  size_t errors = 0, warnings = 0;
  for (const Diagnostic& d : item.diagnostics)
    if (d.severity != Severity::Note) (d.severity == Severity::Error ? errors : warnings)++;
  const std::string status = style_.done_word && item.status == BatchStatus::Done
                                 ? std::string(style_.done_word)
                                 : std::string(status_name(task_, item.status));
  std::string line = task_ == BatchTask::Convert && !item.output.empty()
                         ? fmt::format("{} -> {}: {}", item.input, item.output, status)
                         : fmt::format("{}: {}", item.input, status);
  if (item.status != BatchStatus::Skipped) line += fmt::format(" ({} errors, {} warnings)", errors, warnings);
  if (!item.note.empty() && (item.status == BatchStatus::Skipped || style_.verbose)) line += " — " + item.note;
  std::FILE* to = style_.status_to_stdout ? stdout : stderr;
  fmt::print(to, "{}\n", line);
  std::fflush(to);
}

void ProgressPrinter::operator()(const BatchProgress& p) {
  if (p.item) print_item(*p.item);
  const bool last = p.finished == p.total;
  if (style_.terminal) {
    if (last || last_draw_ < 0 || p.seconds - last_draw_ >= 0.1) {
      draw_bar(p);
      last_draw_ = p.seconds;
    }
  } else if (p.item && !last && p.seconds - std::max(last_draw_, 0.0) >= style_.interval) {
    fmt::print(out_, "progress: {}\n", counts(p));
    std::fflush(out_);
    last_draw_ = p.seconds;
  }
}

void ProgressPrinter::finish() { clear_bar(); }

}  // namespace meshport::cli
