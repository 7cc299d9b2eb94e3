// Number scanning shared by the text format readers (IQE, OBJ, PIE): the fast paths, defined
// here so that they inline into each reader's token loop (a call per number cost a tenth of an
// IQE parse).
#pragma once

#include <bit>
#include <cfloat>
#include <cstdint>
#include <cstring>

namespace meshport::text {

// Fast path for the plain decimals exporters write ("-0.70710677", "1.0024396e-06"), correctly
// rounded like std::from_chars, which the caller uses for everything else: returns false (and
// leaves `p` alone) to defer to it. On success `p` is just past the number. No leading '+', no
// "inf" / "nan", no hexadecimal: those are deferred too.
//
// With at most 15 significant digits and a power of ten up to 1e22 both are exact doubles, so
// one multiplication or division gives the correctly rounded double (Clinger). For the float
// overload, rounding that double to float differs from rounding the exact value only when the
// double is exactly halfway between two floats; that case, and results outside the normal float
// range, are deferred too.
inline bool fast_decimal(const char*& p, const char* end, float& out);
inline bool fast_decimal(const char*& p, const char* end, double& out);
// The same for integers: an optional '-' and 1 to 18 digits, exactly as std::from_chars reads
// them; false (p untouched) for anything else, such as 19 digits or more.
inline bool fast_integer(const char*& p, const char* end, int64_t& out);

namespace detail {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline constexpr uint64_t kMaxMantissa = 999999999999999;  // 15 digits: exact in a double

// How many of the 8 bytes of x (the first in the lowest byte) are ASCII digits before the
// first that is not. A byte b is a digit when b & 0xF0 == 0x30 and (b + 6) & 0xF0 == 0x30; the
// addition can carry only out of a byte that is no digit, into later bytes, past the answer.
inline int digit_run(uint64_t x) {
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull, kZeros = 0x3030303030303030ull;
  const uint64_t not_digit = ((x & kHigh) ^ kZeros) | (((x + 0x0606060606060606ull) & kHigh) ^ kZeros);
  return not_digit ? std::countr_zero(not_digit) / 8 : 8;
}

// The value of the first n (1..8) digits in x: shifted up, they are the last digits of an
// 8-digit number whose first ones are 0; adjacent digits, pairs and quadruples are then combined
// by one multiplication each (10 * 256 + 1, 100 * 65536 + 1, 10000 * 2^32 + 1).
inline uint64_t digits_value(uint64_t x, int n) {
  x <<= 8 * (8 - n);
  x = ((x & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
  x = ((x & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
  return ((x & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

inline constexpr uint64_t kScale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

// Appends the digits at q to the mantissa m, counting them; false when m would pass 15
// significant digits. Eight bytes are looked at once where the text has them (and m is small
// enough that eight more digits cannot overflow it), one at a time otherwise.
inline bool mantissa_digits(const char*& q, const char* end, uint64_t& m, int64_t& count) {
  for (;;) {
    if constexpr (std::endian::native == std::endian::little) {
      if (end - q >= 8 && m < 100000000000ull) {
        uint64_t x;
        std::memcpy(&x, q, 8);
        const int n = digit_run(x);
        if (n == 0) return true;
        m = m * kScale[n] + digits_value(x, n);
        q += n;
        count += n;
        if (m > kMaxMantissa) return false;
        if (n < 8) return true;
        continue;
      }
    }
    if (q == end || !is_digit(*q)) return true;
    m = m * 10 + uint64_t(*q - '0');
    ++q;
    ++count;
    if (m > kMaxMantissa) return false;
  }
}

// A decimal at p with at most 15 significant digits and a power of ten within 1e-22..1e22: its
// digits as an integer m (exact in a double), the power exp10, the sign. False otherwise.
struct Decimal {
  uint64_t m = 0;
  int exp10 = 0;
  bool negative = false;
};
inline bool scan_decimal(const char*& p, const char* end, Decimal& out) {
  const char* q = p;
  const bool neg = q < end && *q == '-';
  if (neg) ++q;
  uint64_t m = 0;
  int64_t whole = 0, fraction = 0;
  if (!mantissa_digits(q, end, m, whole)) return false;
  if (q < end && *q == '.') {
    ++q;
    if (!mantissa_digits(q, end, m, fraction)) return false;
  }
  if (whole + fraction == 0) return false;
  int64_t exp10 = -fraction;
  if (q < end && (*q == 'e' || *q == 'E')) {
    ++q;
    bool eneg = q < end && *q == '-';
    if (q < end && (*q == '-' || *q == '+')) ++q;
    if (q == end || !is_digit(*q)) return false;
    int e = 0;
    for (; q < end && is_digit(*q); ++q) {
      e = e * 10 + (*q - '0');
      if (e > 1000) return false;
    }
    exp10 += eneg ? -e : e;
  }
  if (exp10 < -22 || exp10 > 22) return false;
  out = {m, int(exp10), neg};
  p = q;
  return true;
}

// 10^k for k in -22..22 at [k + 22]: for k < 0 the double nearest it (within half a unit in the
// last place), for k >= 0 exactly.
inline constexpr double kScale10[] = {
    1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8,
    1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,  1e7,
    1e8,   1e9,   1e10,  1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21, 1e22};
// Mantissas below 2^24 and 10^0..10^10 are exact floats. The single-precision fast path needs
// float operations rounded to float (not evaluated in a wider format, as x87 does): else it is
// off (a limit of 0).
inline constexpr uint64_t kFloatExactMantissa = FLT_EVAL_METHOD == 0 ? uint64_t(1) << 24 : 0;
inline constexpr float kFloatScale10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
}  // namespace detail

// Both m and 10^exp10 (exp10 >= 0) are exact doubles, so one multiplication or division gives
// the correctly rounded double (Clinger).
inline bool fast_decimal(const char*& p, const char* end, double& out) {
  detail::Decimal d;
  if (!detail::scan_decimal(p, end, d)) return false;
  const double v =
      d.exp10 < 0 ? double(d.m) / detail::kScale10[22 - d.exp10] : double(d.m) * detail::kScale10[22 + d.exp10];
  out = d.negative ? -v : v;
  return true;
}

// A float needs no correctly rounded double, only a double close enough to the exact value that
// both round to the same float. m * 10^k with k >= 0 is exact before its one rounding; for k < 0,
// m times the nearest double to 10^k is within 2 units in the last place of the exact value (one
// half from 10^k, one half from the product, with a margin for the binade), and a multiplication
// takes a third of a division's time. The double then rounds to the float nearest the exact value
// unless it lies within 4 units of halfway between two floats: those cases (the 29 bits a float
// drops within 4 of 0x10000000) are deferred. No range check is needed: scan_decimal gives
// m < 10^15 and |k| <= 22, so a value other than 0 lies within 1e-22..1e37, inside the normal
// float range (1.2e-38..3.4e38).
// Most exporters' numbers have at most 7 significant digits: with m below 2^24 and |k| <= 10,
// m and 10^|k| are exact floats, so one float division or multiplication gives the correctly
// rounded float directly (Clinger's fast path in single precision), with no halfway case.
inline bool fast_decimal(const char*& p, const char* end, float& out) {
  const char* q = p;
  detail::Decimal d;
  if (!detail::scan_decimal(q, end, d)) return false;
  if (d.m < detail::kFloatExactMantissa && d.exp10 >= -10 && d.exp10 <= 10) {
    const float m = float(uint32_t(d.m));
    const float f = d.exp10 < 0 ? m / detail::kFloatScale10[-d.exp10] : m * detail::kFloatScale10[d.exp10];
    out = d.negative ? -f : f;
    p = q;
    return true;
  }
  const double v = double(d.m) * detail::kScale10[d.exp10 + 22];
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  if ((bits & 0x1FFFFFFF) - (0x10000000 - 4) <= 8) return false;  // near halfway
  out = d.negative ? -float(v) : float(v);
  p = q;
  return true;
}

inline bool fast_integer(const char*& p, const char* end, int64_t& out) {
  const char* q = p;
  const bool neg = q < end && *q == '-';
  if (neg) ++q;
  const char* first = q;
  int64_t v = 0;
  for (; q < end && detail::is_digit(*q); ++q) {
    if (q - first == 18) return false;
    v = v * 10 + (*q - '0');
  }
  if (q == first) return false;
  out = neg ? -v : v;
  p = q;
  return true;
}

}  // namespace meshport::text
