// IQE chunks parsed on threads (iqe_chunks.h). Each function here mirrors the reader's
// own scanning (iqe.cpp: command, more, next_float, next_int, blend, face) and leaves a line to
// the reader wherever the reader would warn or fail.
#include "formats/iqe/iqe_chunks.h"

#include "core/os.h"
#include "core/text.h"
#include "core/text_window.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif


namespace meshport::iqe {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

enum Next { kEnd, kValue, kGiveUp };

// The next value, as Reader::next_float reads it without a diagnostic.
template <class T>
Next next_value(const char*& p, const char* end, T& out) {
  while (p < end && is_blank(*p)) ++p;
  if (p == end || *p == '#') return kEnd;
  if (*p == '+') return kGiveUp;  // the reader's skip_plus, and its message for "+-"
  const char* q = p;
  bool fast = false;
  if constexpr (std::is_same_v<T, float>) fast = text::fast_decimal(q, end, out);
  if constexpr (std::is_same_v<T, int64_t>) fast = text::fast_integer(q, end, out);
  if (!fast) {
    auto r = std::from_chars(p, end, out);
    if (r.ec != std::errc()) return kGiveUp;  // malformed, or out of range (a warning or an error)
    q = r.ptr;
  }
  if (q < end && !is_blank(*q) && *q != '#') return kGiveUp;  // malformed number
  p = q;
  return kValue;
}

// Reads up to `max` values (0: no limit) into `values`; false when the line is left to the reader.
// The bytes up to `limit` (the chunk's end) may be read.
template <class T>
bool values(const char* p, const char* end, const char* limit, size_t max, Filled<T>& values) {
  size_t n = 0;
  if (text::kHaveWindow && end - p <= 64 && limit - p >= 72) {
    // Most lines: every value by text::window_numbers, straight into the array (room for 32 is
    // made without filling it, then the array is cut to what was read); the reader's general path
    // from the first token it leaves (32 values may not be all of the line's).
    const int cap = max == 0 || max > 32 ? 32 : int(max);
    const size_t at = values.size();
    values.resize(at + size_t(cap));
    const text::WindowRead r = text::window_numbers(p, end, values.data() + at, cap);
    values.resize(at + size_t(r.count));
    n = size_t(r.count);
    p = r.at;
    if (!r.general && (r.count < cap || size_t(cap) == max)) return true;
  }
  for (; max == 0 || n < max; ++n) {
    T v;
    Next r = next_value(p, end, v);
    if (r == kEnd) break;
    if (r == kGiveUp) return false;
    values.push_back(v);
  }
  return true;
}

// Reader::blend's checks: an even count (else a warning), indices whole, >= 0, <= 2^24.
bool blend_ok(const float* v, size_t n) {
  if (n % 2) return false;
  for (size_t i = 0; i < n; i += 2)
    if (!(v[i] >= 0 && v[i] == std::floor(v[i])) || v[i] > 16777216.0f) return false;
  return true;
}

// One line [b, e) without its line break; `n` counts from the chunk's first line.
void line(const char* b, const char* e, const char* limit, uint32_t n, PreChunk& out) {
  const char* p = b;
  while (p < e && is_blank(*p)) ++p;
  if (p == e) return;  // blank
  if (*p == '#') {
    if (std::string_view(p, size_t(e - p)).starts_with(kFilledMarker))
      out.lines.push_back({b, 0, 0, n, LineKind::Serial});
    return;  // a comment
  }
  const char* cmd = p;
  while (p < e && !is_blank(*p)) ++p;
  const PreLine serial{b, 0, 0, n, LineKind::Serial};
  if (p - cmd != 2) return out.lines.push_back(serial);
  const char a = cmd[0], c = cmd[1];
  if (a == 'f' && (c == 'a' || c == 'm')) {
    const size_t first = out.ints.size();
    if (!values(p, e, limit, 0, out.ints) || out.ints.size() - first < 3) {
      out.ints.resize(first);
      return out.lines.push_back(serial);
    }
    out.lines.push_back({b, uint32_t(first), uint32_t(out.ints.size() - first), n, c == 'a' ? LineKind::Fa : LineKind::Fm});
    return;
  }
  if (a != 'v') return out.lines.push_back(serial);
  size_t max;
  LineKind kind;
  switch (c) {
    case 'p':
      max = 4, kind = LineKind::Vp;
      break;
    case 't':
      max = 4, kind = LineKind::Vt;
      break;
    case 'n':
      max = 4, kind = LineKind::Vn;
      break;
    case 'c':
      max = 4, kind = LineKind::Vc;
      break;
    case 'x':
      max = 6, kind = LineKind::Vx;
      break;
    case 'b':
      max = 0, kind = LineKind::Vb;
      break;
    default:
      return out.lines.push_back(serial);
  }
  const size_t first = out.floats.size();
  if (!values(p, e, limit, max, out.floats) ||
      (c == 'b' && !blend_ok(out.floats.data() + first, out.floats.size() - first))) {
    out.floats.resize(first);
    return out.lines.push_back(serial);
  }
  out.lines.push_back({b, uint32_t(first), uint32_t(out.floats.size() - first), n, kind});
}

// The start of the line after the one holding `at` (at <= end), or end.
const char* next_line(const char* at, const char* end) {
  if (at >= end) return end;
  const void* nl = std::memchr(at, '\n', size_t(end - at));
  return nl ? static_cast<const char*>(nl) + 1 : end;
}

}  // namespace

namespace {

// The first '\n' in [b, end), or null. Lines are short (20-40 bytes in exporters' files): the
// first 64 bytes are looked at with four SSE2 comparisons, without a call; memchr does the rest.
const char* find_newline(const char* b, const char* end) {
#if defined(__SSE2__)
  if (end - b >= 64) {
    const __m128i nl = _mm_set1_epi8('\n');
    uint64_t bits = 0;
    for (int i = 0; i < 4; ++i) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * i));
      bits |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(x, nl)))) << (16 * i);
    }
    if (bits) return b + std::countr_zero(bits);
    b += 64;
  }
#endif
  return static_cast<const char*>(std::memchr(b, '\n', size_t(end - b)));
}

}  // namespace

void drop_pages(const char* begin, const char* end) { os::discard_pages(begin, end); }

void preparse_chunk(const char* begin, const char* end, PreChunk& out) {
  out.end = end;
  out.lines.clear();
  out.floats.clear();
  out.ints.clear();
  uint32_t n = 0;
  const char* b = begin;
  for (; b < end; ++n) {
    const char* nl = find_newline(b, end);
    const char* e = nl ? nl : end;
    line(b, e > b && e[-1] == '\r' ? e - 1 : e, end, n, out);
    b = nl ? nl + 1 : end;
  }
  out.line_count = n;
}

const char* window_end(const char* begin, const char* end, size_t bytes) {
  if (bytes >= size_t(end - begin)) return end;
  return next_line(begin + bytes, end);
}

ChunkPipeline::ChunkPipeline(const char* begin, const char* end, unsigned threads, size_t chunk_bytes) {
  threads = threads ? threads : 1;
  for (const char* c = begin; c < end; c = window_end(c, end, chunk_bytes ? chunk_bytes : 1)) cuts_.push_back(c);
  cuts_.push_back(end);
  // Four chunks a thread may be parsed ahead of the reader (about 2 MB of numbers and line records
  // each). With two, the threads waited on each other a quarter of the time: reading the 2,000-
  // mesh model took 0.29 s (541 ms of CPU) against 0.26 s (463 ms) with four; eight gave no more.
  slots_.resize(size_t(threads) * 4);
  for (unsigned t = 1; t < threads && t < cuts_.size() - 1; ++t) {
    try {
      workers_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the caller parses the rest
    }
  }
}

ChunkPipeline::~ChunkPipeline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool ChunkPipeline::can_claim() const {
  return claimed_ + 1 < cuts_.size() && claimed_ < released_ + slots_.size();
}

void ChunkPipeline::parse(size_t index) {
  Slot& s = slots_[index % slots_.size()];
  try {
    preparse_chunk(cuts_[index], cuts_[index + 1], s.chunk);
  } catch (...) {
    s.error = std::current_exception();
  }
}

void ChunkPipeline::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || can_claim() || claimed_ + 1 >= cuts_.size(); });
    if (stop_ || !can_claim()) return;
    const size_t i = claimed_++;
    lock.unlock();
    parse(i);
    lock.lock();
    slots_[i % slots_.size()].done = true;
    changed_.notify_all();
  }
}

const PreChunk* ChunkPipeline::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  released_ = taken_;  // the chunk the caller held
  changed_.notify_all();
  if (taken_ + 1 >= cuts_.size()) return nullptr;
  Slot& s = slots_[taken_ % slots_.size()];
  while (!s.done) {
    if (can_claim()) {
      const size_t i = claimed_++;
      lock.unlock();
      parse(i);
      lock.lock();
      slots_[i % slots_.size()].done = true;
      changed_.notify_all();
    } else {
      changed_.wait(lock);
    }
  }
  s.done = false;
  ++taken_;
  if (std::exception_ptr e = std::exchange(s.error, nullptr)) std::rethrow_exception(e);
  return &s.chunk;
}

}  // namespace meshport::iqe
