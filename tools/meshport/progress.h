// Printing a batch's progress: a bar redrawn in place on a terminal, plain lines at intervals
// otherwise; each finished file's diagnostics printed whole, never interleaved.
#pragma once

#include <meshport/batch.h>

#include <chrono>
#include <cstdio>

namespace meshport::cli {

struct ProgressStyle {
  bool terminal = false;  // redraw a bar on `out` (else plain lines)
  bool verbose = false;   // a line for every file, not only those with diagnostics
  bool quiet = false;     // no diagnostics, only failed files' status lines
  double interval = 5;    // seconds between plain progress lines (0: after every file)
  bool status_to_stdout = false;  // validate: per-file status lines on stdout
  const char* done_word = nullptr;  // instead of "converted" (thumbnail: "drawn")
};

class ProgressPrinter {
 public:
  ProgressPrinter(BatchTask task, ProgressStyle style, std::FILE* out);
  // The batch's progress callback (called on one thread at a time).
  void operator()(const BatchProgress& p);
  // Clears the bar (call before printing the summary).
  void finish();

 private:
  void print_item(const BatchItem& item);
  void draw_bar(const BatchProgress& p);
  void clear_bar();

  BatchTask task_;
  ProgressStyle style_;
  std::FILE* out_;
  bool bar_shown_ = false;
  double last_draw_ = -1;
};

}  // namespace meshport::cli
