// IQE reading on several threads: the numbers of the common vertex and face lines (vp vt vn vx vc
// vb fa fm) are parsed ahead, chunk by chunk on threads, into per-chunk buffers; the reader
// (iqe.cpp) then walks the lines in order as before and takes those numbers instead of parsing
// them again. Only lines the reader would parse without a warning or an error are parsed ahead:
// any other line (a malformed or out-of-range number, a '+' sign, a short face, an odd blend
// list) is left to the reader, which reports it exactly as the serial reader does, so the Scene
// and the diagnostics are those of a read on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace meshport::iqe {

// How iqe::read uses threads. Reading is serial when threads <= 1 or the text is smaller than
// min_bytes; otherwise the text is parsed ahead in windows of `threads` chunks of about
// chunk_bytes each (whole lines), one chunk per thread, which bounds the extra memory.
struct ReadThreads {
  unsigned threads = 1;
  size_t min_bytes = size_t(4) << 20;
  size_t chunk_bytes = size_t(2) << 20;
};

// The numbers of one line parsed ahead: `count` values from `first` in the chunk's floats (vp vt
// vn vx vc vb) or ints (fa fm).
struct PreLine {
  const char* begin;  // the line's first byte
  uint32_t first;
  uint32_t count;
};

struct PreChunk {
  std::vector<PreLine> lines;  // in file order
  std::vector<float> floats;
  std::vector<int64_t> ints;
};

// Parses ahead the lines of [begin, end), which starts at a line's start and ends after a LF (or
// at the end of the text).
void preparse_chunk(const char* begin, const char* end, PreChunk& out);

// [begin, end) split at line breaks into at most `threads` chunks, each parsed on its own thread
// (the first on the calling thread) into `chunks`, whose buffers are reused from window to
// window. Falls back to fewer threads when none can be started.
void preparse(const char* begin, const char* end, unsigned threads, std::vector<PreChunk>& chunks);

// preparse() on threads of its own, so that the caller can read the previous window meanwhile:
// start() returns at once, finish() waits for the chunks (and rethrows a thread's exception).
// The destructor waits too, so no thread outlives the buffers it writes.
class BackgroundPreparse {
 public:
  BackgroundPreparse() = default;
  BackgroundPreparse(const BackgroundPreparse&) = delete;
  BackgroundPreparse& operator=(const BackgroundPreparse&) = delete;
  ~BackgroundPreparse();
  void start(const char* begin, const char* end, unsigned threads, std::vector<PreChunk>& chunks);
  void finish();

 private:
  std::thread thread_;
  std::exception_ptr error_;
};

// The end of a window starting at `begin` of about `bytes` bytes: just after the LF that ends the
// line holding begin + bytes, or `end`.
const char* window_end(const char* begin, const char* end, size_t bytes);

}  // namespace meshport::iqe
