// Number scanning shared by the text format readers: see text.h.
#include "text.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>

namespace meshport::text {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr uint64_t kMaxMantissa = 999999999999999;  // 15 digits: exact in a double

// How many of the 8 bytes of x (the first in the lowest byte) are ASCII digits before the
// first that is not. A byte b is a digit when b & 0xF0 == 0x30 and (b + 6) & 0xF0 == 0x30; the
// addition can carry only out of a byte that is no digit, into later bytes, past the answer.
int digit_run(uint64_t x) {
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull, kZeros = 0x3030303030303030ull;
  const uint64_t not_digit = ((x & kHigh) ^ kZeros) | (((x + 0x0606060606060606ull) & kHigh) ^ kZeros);
  return not_digit ? std::countr_zero(not_digit) / 8 : 8;
}

// The value of the first n (1..8) digits in x: shifted up, they are the last digits of an
// 8-digit number whose first ones are 0; adjacent digits, pairs and quadruples are then combined
// by one multiplication each (10 * 256 + 1, 100 * 65536 + 1, 10000 * 2^32 + 1).
uint64_t digits_value(uint64_t x, int n) {
  x <<= 8 * (8 - n);
  x = ((x & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
  x = ((x & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
  return ((x & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

// Appends the digits at q to the mantissa m, counting them; false when m would pass 15
// significant digits. Eight bytes are looked at once where the text has them (and m is small
// enough that eight more digits cannot overflow it), one at a time otherwise.
bool mantissa_digits(const char*& q, const char* end, uint64_t& m, int64_t& count) {
  static constexpr uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  for (;;) {
    if constexpr (std::endian::native == std::endian::little) {
      if (end - q >= 8 && m < 100000000000ull) {
        uint64_t x;
        std::memcpy(&x, q, 8);
        const int n = digit_run(x);
        if (n == 0) return true;
        m = m * kPow10[n] + digits_value(x, n);
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
bool scan_decimal(const char*& p, const char* end, Decimal& out) {
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

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
}  // namespace

// Both m and 10^exp10 (exp10 >= 0) are exact doubles, so one multiplication or division gives
// the correctly rounded double (Clinger).
bool fast_decimal(const char*& p, const char* end, double& out) {
  Decimal d;
  if (!scan_decimal(p, end, d)) return false;
  const double v = d.exp10 < 0 ? double(d.m) / kPow10[-d.exp10] : double(d.m) * kPow10[d.exp10];
  out = d.negative ? -v : v;
  return true;
}

// 10^-k as the doubles nearest them (each within half a unit in the last place).
constexpr double kNegPow10[] = {1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,  1e-8,  1e-9,  1e-10, 1e-11,
                                1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};

// A float needs no correctly rounded double, only a double close enough to the exact value that
// both round to the same float. m * 10^k with k >= 0 is exact before its one rounding; for k < 0,
// m times the nearest double to 10^k is within 2 units in the last place of the exact value (one
// half from 10^k, one half from the product, with a margin for the binade), and a multiplication
// takes a third of a division's time. The double then rounds to the float nearest the exact value
// unless it lies within 4 units of halfway between two floats: those cases (the 29 bits a float
// drops within 4 of 0x10000000), and results outside the normal float range, are deferred.
bool fast_decimal(const char*& p, const char* end, float& out) {
  const char* q = p;
  Decimal d;
  if (!scan_decimal(q, end, d)) return false;
  const double v = double(d.m) * (d.exp10 < 0 ? kNegPow10[-d.exp10] : kPow10[d.exp10]);
  if (v != 0 && (v < double(std::numeric_limits<float>::min()) || v > double(std::numeric_limits<float>::max())))
    return false;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  if ((bits & 0x1FFFFFFF) - (0x10000000 - 4) <= 8) return false;  // near halfway
  out = d.negative ? -float(v) : float(v);
  p = q;
  return true;
}

bool fast_integer(const char*& p, const char* end, int64_t& out) {
  const char* q = p;
  const bool neg = q < end && *q == '-';
  if (neg) ++q;
  const char* first = q;
  int64_t v = 0;
  for (; q < end && is_digit(*q); ++q) {
    if (q - first == 18) return false;
    v = v * 10 + (*q - '0');
  }
  if (q == first) return false;
  out = neg ? -v : v;
  p = q;
  return true;
}

bool ends_with_nocase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return r;
}

std::string u128_string(unsigned __int128 v) {
  std::string s;
  do {
    s.insert(s.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v);
  return s;
}

void append_float(std::string& out, float f) {
  if (f == 0) f = 0;
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  out.append(buf, size_t(r.ptr - buf));
}

namespace {

// The length of the UTF-8 sequence at the start of `s`; 0 when it is not one.
size_t utf8_length(std::string_view s) {
  const auto c = static_cast<unsigned char>(s[0]);
  const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n > s.size()) return 0;
  for (size_t i = 1; i < n; ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string quoted(std::string_view s, size_t max) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  size_t i = 0;
  while (i < s.size() && i < max) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c >= 0x80 ? utf8_length(s.substr(i)) : 0;
    if (c >= 0x20 && c < 0x7F) {
      out += char(c);
      ++i;
    } else if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    }
  }
  if (i < s.size()) out += "...";
  out += '"';
  return out;
}

std::string clip(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t n = max;
  while (n > 0 && (uint8_t(s[n]) & 0xC0) == 0x80) --n;
  std::string out(s.substr(0, n));
  out += "... (";
  out += std::to_string(s.size());
  out += " bytes)";
  return out;
}

}  // namespace meshport::text
