// IQE numbers parsed ahead on threads (iqe_chunks.h). Each function here mirrors the reader's
// own scanning (iqe.cpp: command, more, next_float, next_int, blend, face) and gives up on a line
// wherever the reader would warn or fail, leaving that line to it.
#include "formats/iqe_chunks.h"

#include "text.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

namespace meshport::iqe {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

enum Next { kEnd, kValue, kGiveUp };

// The next value, as Reader::next_float reads it without a diagnostic.
template <class T>
Next next_value(const char*& p, const char* end, T& out) {
  while (p < end && is_space(*p)) ++p;
  if (p == end || *p == '#') return kEnd;
  if (*p == '+') return kGiveUp;  // the reader's skip_plus, and its message for "+-"
  const char* q = p;
  bool fast = false;
  if constexpr (std::is_same_v<T, float>) fast = text::fast_decimal(q, end, out);
  if (!fast) {
    auto r = std::from_chars(p, end, out);
    if (r.ec != std::errc()) return kGiveUp;  // malformed, or out of range (a warning or an error)
    q = r.ptr;
  }
  if (q < end && !is_space(*q) && *q != '#') return kGiveUp;  // malformed number
  p = q;
  return kValue;
}

// Reads up to `max` values (0: no limit) into `values`; false when the line is left to the reader.
template <class T>
bool values(const char* p, const char* end, size_t max, std::vector<T>& values) {
  for (size_t n = 0; max == 0 || n < max; ++n) {
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

// One line [b, e) without its line break.
void line(const char* b, const char* e, PreChunk& out) {
  const char* p = b;
  while (p < e && is_space(*p)) ++p;
  const char* cmd = p;
  while (p < e && !is_space(*p)) ++p;
  if (p - cmd != 2) return;
  const char a = cmd[0], c = cmd[1];
  if (a == 'f' && (c == 'a' || c == 'm')) {
    const size_t first = out.ints.size();
    if (!values(p, e, 0, out.ints) || out.ints.size() - first < 3) return out.ints.resize(first);
    out.lines.push_back({b, uint32_t(first), uint32_t(out.ints.size() - first)});
    return;
  }
  if (a != 'v') return;
  size_t max;
  switch (c) {
    case 'p':
    case 't':
    case 'n':
    case 'c':
      max = 4;
      break;
    case 'x':
      max = 6;
      break;
    case 'b':
      max = 0;
      break;
    default:
      return;
  }
  const size_t first = out.floats.size();
  if (!values(p, e, max, out.floats) ||
      (c == 'b' && !blend_ok(out.floats.data() + first, out.floats.size() - first)))
    return out.floats.resize(first);
  out.lines.push_back({b, uint32_t(first), uint32_t(out.floats.size() - first)});
}

// The start of the line after the one holding `at` (at <= end), or end.
const char* next_line(const char* at, const char* end) {
  if (at >= end) return end;
  const void* nl = std::memchr(at, '\n', size_t(end - at));
  return nl ? static_cast<const char*>(nl) + 1 : end;
}

}  // namespace

void preparse_chunk(const char* begin, const char* end, PreChunk& out) {
  const char* b = begin;
  while (b < end) {
    const char* nl = static_cast<const char*>(std::memchr(b, '\n', size_t(end - b)));
    const char* e = nl ? nl : end;
    line(b, e > b && e[-1] == '\r' ? e - 1 : e, out);
    b = nl ? nl + 1 : end;
  }
}

const char* window_end(const char* begin, const char* end, size_t bytes) {
  if (bytes >= size_t(end - begin)) return end;
  return next_line(begin + bytes, end);
}

void preparse(const char* begin, const char* end, unsigned threads, std::vector<PreChunk>& chunks) {
  threads = threads ? threads : 1;
  const size_t size = size_t(end - begin);
  std::vector<const char*> cuts{begin};
  for (unsigned t = 1; t < threads; ++t) {
    const char* c = next_line(begin + size * t / threads, end);
    if (c > cuts.back() && c < end) cuts.push_back(c);
  }
  cuts.push_back(end);
  const size_t n = cuts.size() - 1;
  chunks.resize(n);
  for (PreChunk& c : chunks) {
    c.lines.clear();
    c.floats.clear();
    c.ints.clear();
  }
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> pool;
  size_t started = 1;  // chunk 0 is this thread's
  for (; started < n; ++started) {
    try {
      pool.emplace_back([&, i = started] {
        try {
          preparse_chunk(cuts[i], cuts[i + 1], chunks[i]);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the rest are parsed here
    }
  }
  try {
    preparse_chunk(cuts[0], cuts[1], chunks[0]);
    for (size_t i = started; i < n; ++i) preparse_chunk(cuts[i], cuts[i + 1], chunks[i]);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

BackgroundPreparse::~BackgroundPreparse() {
  if (thread_.joinable()) thread_.join();
}

void BackgroundPreparse::start(const char* begin, const char* end, unsigned threads, std::vector<PreChunk>& chunks) {
  finish();
  try {
    thread_ = std::thread([this, begin, end, threads, &chunks] {
      try {
        preparse(begin, end, threads, chunks);
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    preparse(begin, end, threads, chunks);  // no thread to be had: now, on this one
  }
}

void BackgroundPreparse::finish() {
  if (thread_.joinable()) thread_.join();
  if (std::exception_ptr e = std::exchange(error_, nullptr)) std::rethrow_exception(e);
}

}  // namespace meshport::iqe
