// IQE reading on several threads. The body is cut at line breaks into chunks of about
// ReadThreads::chunk_bytes; threads (the reader's own among them) parse chunks, in any order but
// at most a few ahead of the reader, into per-chunk typed arrays: for each plain line of the
// common commands (vp vt vn vx vc vb fa fm) its numbers and its line number; for any other line
// only where it is (a Serial record); blank lines and plain comments only count. The reader
// (iqe.cpp) replays the chunks in file order, appending the numbers of runs of plain lines to its
// arrays, and reads every Serial line itself as the serial reader does.
// Only lines the reader would parse without a warning or an error are plain: any other line (a
// malformed or out-of-range number, a '+' sign, a short face, an odd blend list, a 6-value vx)
// is left to the reader, which reports it exactly as the serial reader does, so the Scene and
// the diagnostics are those of a read on one thread.
#pragma once

#include "core/filled.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace meshport::iqe {

// The comment line after a `mesh` line naming the commands whose values the writer filled in
// (iqe.cpp): a comment the reader reads.
inline constexpr std::string_view kFilledMarker = "# meshport filled:";

// How iqe::read uses threads. Reading is serial when threads <= 1 or the text is smaller than
// min_bytes; otherwise the text is parsed in chunks of about chunk_bytes each (whole lines).
struct ReadThreads {
  unsigned threads = 1;
  size_t min_bytes = size_t(4) << 20;
  size_t chunk_bytes = size_t(1) << 20;
  // The text is a read-only mapping of a file: the pages of chunks already read are dropped from
  // memory as the reading goes (drop_pages), so a large file does not stay resident beside the
  // Scene it becomes. Never set it for text in ordinary memory (dropping would zero it).
  bool drop_read_pages = false;
};

// Tells the system that [begin, end) of a read-only file mapping is not needed now: its whole
// pages leave memory (and are read again from the file if touched). Does nothing where that
// cannot be done.
void drop_pages(const char* begin, const char* end);

// What a line of a chunk is: a plain line of a common command, or a line for the reader.
enum class LineKind : uint8_t { Vp, Vt, Vn, Vx, Vc, Vb, Fa, Fm, Serial };

// One line: its `count` numbers from `first` in the chunk's floats (vp vt vn vx vc vb) or ints
// (fa fm); `line` is its number counted from the chunk's first line (0).
struct PreLine {
  const char* begin;  // the line's first byte
  uint32_t first;
  uint32_t count;
  uint32_t line;
  LineKind kind;
};

struct PreChunk {
  std::vector<PreLine> lines;  // in file order; blank lines and plain comments are left out
  Filled<float> floats;        // the numbers are parsed straight into these (no zero-filling)
  Filled<int64_t> ints;
  uint32_t line_count = 0;  // lines that start in the chunk
  const char* end = nullptr;  // where the chunk's text ends
};

// Parses the lines of [begin, end), which starts at a line's start and ends after a LF (or at
// the end of the text).
void preparse_chunk(const char* begin, const char* end, PreChunk& out);

// The end of a window starting at `begin` of about `bytes` bytes: just after the LF that ends the
// line holding begin + bytes, or `end`.
const char* window_end(const char* begin, const char* end, size_t bytes);

// The chunks of [begin, end) parsed on `threads` threads (the caller's included), handed to the
// caller in file order by next(). At most a few chunks per thread are parsed ahead of the one
// the caller holds, which bounds the memory. The destructor stops and joins the threads, so no
// thread outlives the buffers it writes (also when the caller stops early or throws).
class ChunkPipeline {
 public:
  ChunkPipeline(const char* begin, const char* end, unsigned threads, size_t chunk_bytes);
  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;
  ~ChunkPipeline();

  // The next chunk in file order (the previous one is given back), or nullptr after the last;
  // rethrows an exception of the thread that parsed it. Parses chunks itself while it waits.
  const PreChunk* next();

 private:
  struct Slot {
    PreChunk chunk;
    bool done = false;
    std::exception_ptr error;
  };
  void work();
  bool can_claim() const;  // under mutex_
  void parse(size_t index);

  std::vector<const char*> cuts_;  // chunk i is [cuts_[i], cuts_[i + 1])
  std::vector<Slot> slots_;        // chunk i in slots_[i % slots_.size()]
  size_t claimed_ = 0;             // chunks handed to a thread
  size_t taken_ = 0;               // chunks handed to the caller
  size_t released_ = 0;            // chunks the caller gave back
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::thread> workers_;
};

}  // namespace meshport::iqe
