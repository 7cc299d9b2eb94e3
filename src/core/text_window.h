// The numbers of a short line read from bit masks of its bytes (IQE vertex and face lines).
//
// Reading numbers one after another chains each to the last: where a number starts is known only
// once the one before has been read byte by byte, so the processor waits on every load. Here the
// bytes of up to 64 characters are classified at once (SSE2: white space, digit, '.', '-'), and
// every number's start, end, sign and point come from bit operations on those masks. Each number
// is then read from its own position, independently of the others, in two 8-byte loads.
//
// Only the plain form "[-]D.D" (at most 8 digits before and after the point, either part empty
// but not both, at most 15 significant digits) and plain integers "[-]D" (at most 8 digits) are
// read here. Any other token stops the reading at that token, for the caller's general reader
// (text_decimal.h, std::from_chars) to read it and report what is wrong with it.
#pragma once

#include "core/text_decimal.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace meshport::text {

// Whether the readers use window_numbers: where SSE2 classifies the bytes (elsewhere it works,
// one byte at a time, but is no faster than the readers' own loops). Little-endian loads only.
inline constexpr bool kHaveWindow =
#if defined(__SSE2__)
    std::endian::native == std::endian::little;
#else
    false;
#endif

// How a window_numbers call ended.
struct WindowRead {
  int count = 0;               // numbers read into out
  const char* at = nullptr;    // where the caller goes on: after the last number read, at the token
                               // it must read itself, or at the end of the numbers
  bool general = false;        // `at` is a token the general reader must read
  const char* last = nullptr;  // the start of the last number read (when count > 0)
};

namespace detail {

#if defined(__SSE2__)
// Bits of the 16 bytes at p: those equal to c.
inline uint32_t equal16(__m128i x, char c) { return uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c)))); }
// Bits of the 16 bytes at p: those within lo..lo+span (unsigned).
inline uint32_t within16(__m128i x, char lo, char span) {
  const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8(lo));
  return uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(span)), d)));
}
#endif

struct Masks {
  uint64_t space = 0, digit = 0, point = 0, minus = 0, hash = 0;
};

// The masks of the first `len` (<= 64) bytes at p, in blocks of 16 (the 64 bytes are readable);
// the bits of bytes after the last block are 0.
inline Masks masks(const char* p, int len) {
  Masks m;
#if defined(__SSE2__)
  for (int i = 0; i < (len + 15) / 16; ++i) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    const int shift = 16 * i;
    // The reader's white space within a line: ' ' and \t \v \f \r (\n ends the line before this).
    m.space |= uint64_t(equal16(x, ' ') | within16(x, '\t', 4)) << shift;
    m.digit |= uint64_t(within16(x, '0', 9)) << shift;
    m.point |= uint64_t(equal16(x, '.')) << shift;
    m.minus |= uint64_t(equal16(x, '-')) << shift;
    m.hash |= uint64_t(equal16(x, '#')) << shift;
  }
#else
  // The same one byte at a time (slower than the readers' own loops: kHaveWindow is false).
  for (int i = 0; i < len; ++i) {
    const char c = p[i];
    const uint64_t bit = uint64_t(1) << i;
    if (c == ' ' || (c >= '\t' && c <= '\r')) m.space |= bit;
    if (c >= '0' && c <= '9') m.digit |= bit;
    if (c == '.') m.point |= bit;
    if (c == '-') m.minus |= bit;
    if (c == '#') m.hash |= bit;
  }
#endif
  return m;
}

// The bits below bit n (0..64).
inline uint64_t low_bits(int n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

inline uint64_t load8(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

// The value of the n (0..8) digits at p; 8 bytes at p are readable.
inline uint64_t digits_at(const char* p, int n) { return n ? digits_value(load8(p), n) : 0; }

// The token [s, e) of the window at p, with its masks: false when it is not of the plain form.
inline bool window_float(const char* p, const Masks& w, int s, int e, float& out) {
  const uint64_t token = low_bits(e) & ~low_bits(s);
  const bool negative = (w.minus >> s) & 1;
  const int ds = s + negative;
  const uint64_t other = token & ~w.digit & ~(uint64_t(negative) << s);  // not a digit, nor the sign
  if (other & ~w.point || (other & (other - 1))) return false;  // at most one point
  const int point = other ? std::countr_zero(other) : e;
  const int n1 = point - ds, n2 = other ? e - point - 1 : 0;
  if (n1 > 8 || n2 > 8 || n1 + n2 == 0) return false;
  uint64_t m;
  if (n1 + n2 <= 8) {
    // Up to 8 digits: the bytes before the point and those after it (read one byte further on)
    // joined into one 8-byte word, read in one go.
    const uint64_t before = n1 ? low_bits(8 * n1) : 0;  // n1 <= 8: 8 * n1 <= 64
    m = digits_value((load8(p + ds) & before) | (load8(p + ds + 1) & ~before), n1 + n2);
  } else {
    m = digits_at(p + ds, n1) * kScale[n2] + digits_at(p + point + 1, n2);
  }
  if (m > kMaxMantissa) return false;
  if (m < kFloatExactMantissa) {  // as fast_decimal: one float division, correctly rounded
    const float f = float(uint32_t(m)) / kFloatScale10[n2];
    out = negative ? -f : f;
    return true;
  }
  // As fast_decimal: within 2 units of the exact value, deferred when near halfway between floats.
  const double v = double(m) * kScale10[22 - n2];
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  if ((bits & 0x1FFFFFFF) - (0x10000000 - 4) <= 8) return false;
  out = negative ? -float(v) : float(v);
  return true;
}

inline bool window_int(const char* p, const Masks& w, int s, int e, int64_t& out) {
  const uint64_t token = low_bits(e) & ~low_bits(s);
  const bool negative = (w.minus >> s) & 1;
  const int ds = s + negative;
  if (token & ~w.digit & ~(uint64_t(negative) << s)) return false;
  const int n = e - ds;
  if (n == 0 || n > 8) return false;
  const auto v = int64_t(digits_at(p + ds, n));
  out = negative ? -v : v;
  return true;
}

}  // namespace detail

// Reads up to `max` numbers from [p, end), a line (or the rest of one) of at most 64 bytes, where
// the bytes up to p + 72 may be read. Numbers are separated by white space and end at `end` or at
// a '#' (a comment). See WindowRead for where it stops.
template <class T>
WindowRead window_numbers(const char* p, const char* end, T* out, int max) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, int64_t>);
  WindowRead r;
  r.at = p;
  r.last = p;
  int len = int(end - p);
  const detail::Masks w = detail::masks(p, len);
  if (const uint64_t hash = w.hash & detail::low_bits(len)) len = std::countr_zero(hash);
  uint64_t tokens = ~w.space & detail::low_bits(len);
  while (r.count < max) {
    if (!tokens) {
      r.at = p + len;
      return r;
    }
    const int s = std::countr_zero(tokens);
    const int e = s + std::countr_zero(~(tokens >> s));
    bool ok;
    if constexpr (std::is_same_v<T, float>) ok = detail::window_float(p, w, s, e, out[r.count]);
    else ok = detail::window_int(p, w, s, e, out[r.count]);
    if (!ok) {
      r.at = p + s;
      r.general = true;
      return r;
    }
    r.last = p + s;
    r.at = p + e;
    ++r.count;
    tokens &= ~detail::low_bits(e);
  }
  return r;
}

}  // namespace meshport::text
