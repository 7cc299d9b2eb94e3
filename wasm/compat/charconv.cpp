// std::to_chars and std::from_chars of float and double for the WebAssembly build (declared in
// wasm/compat/libcxx.h; Emscripten 3.1.6's libc++ has only the integer ones). They give what GCC
// 12's libstdc++ gives, which the native builds use, so that the text meshport writes is the same
// in both (tests/wasm compare every output byte for byte; tests/test_wasm_charconv.cpp compares
// these functions with libstdc++'s over a million values, natively).
//  - Shortest: the digits of fmt's Dragonbox (the shortest decimal that reads back as the value,
//    the nearest of those), written fixed or scientific, whichever is shorter (fixed on a tie);
//    an integer written fixed is written exactly.
//  - With a precision: the C library's printf (musl's is exact, as libstdc++'s Ryu printf is).
//  - Reading: the syntax of from_chars checked here, the value from strtod/strtof (musl's are
//    correctly rounded); out of range (overflow, or a nonzero number that rounds to zero) leaves
//    the value unchanged and says result_out_of_range, as libstdc++ does.
#include "core/text.h"

#include <fmt/format.h>

#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace {

template <class T>
std::to_chars_result put(char* first, char* last, const char* text, size_t n) {
  if (size_t(last - first) < n) return {last, std::errc::value_too_large};
  std::memcpy(first, text, n);
  return {first + n, std::errc()};
}

int digit_count(unsigned long long v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

template <class T>
unsigned __int128 exact_integer(T value) {
  int exponent = 0;
  const T m = std::frexp(value, &exponent);  // value = m * 2^exponent, 0.5 <= m < 1
  constexpr int bits = std::numeric_limits<T>::digits;
  const auto mantissa = (unsigned __int128)(unsigned long long)std::ldexp(m, bits);
  const int shift = exponent - bits;
  return shift >= 0 ? mantissa << shift : mantissa >> -shift;
}

template <class T>
std::to_chars_result shortest(char* first, char* last, T value) {
  if (std::isnan(value)) return std::signbit(value) ? put<T>(first, last, "-nan", 4) : put<T>(first, last, "nan", 3);
  std::string out = std::signbit(value) ? "-" : "";
  const T a = std::fabs(value);
  if (std::isinf(a)) return out += "inf", put<T>(first, last, out.data(), out.size());
  if (a == 0) return out += "0", put<T>(first, last, out.data(), out.size());
  const auto dec = fmt::detail::dragonbox::to_decimal(a);
  const std::string digits = fmt::format("{}", dec.significand);
  const int n = int(digits.size()), e = dec.exponent, x = e + n - 1;  // value = digits * 10^e = d.ddd * 10^x
  const int scientific = n + (n > 1 ? 1 : 0) + 2 + std::max(2, digit_count((unsigned long long)std::abs(x)));
  const int fixed = e >= 0 ? n + e : x >= 0 ? n + 1 : 1 + n - x;
  if (fixed <= scientific) {
    if (e >= 0) out += meshport::text::u128_string(exact_integer(a));
    else if (x >= 0) out += digits.substr(0, size_t(x + 1)) + "." + digits.substr(size_t(x + 1));
    else out += "0." + std::string(size_t(-x - 1), '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", x < 0 ? '-' : '+', std::abs(x));
  }
  return put<T>(first, last, out.data(), out.size());
}

std::to_chars_result with_precision(char* first, char* last, double value, std::chars_format fmt, int precision) {
  const char* conversion = fmt == std::chars_format::scientific ? "%.*e"
                           : fmt == std::chars_format::fixed   ? "%.*f"
                           : fmt == std::chars_format::hex     ? "%.*a"
                                                               : "%.*g";
  if (precision < 0) precision = 6;
  const int n = std::snprintf(nullptr, 0, conversion, precision, value);
  std::string text(size_t(n) + 1, '\0');
  std::snprintf(text.data(), text.size(), conversion, precision, value);
  if (fmt == std::chars_format::hex && text.size() > 3 && text[text[0] == '-' ? 2 : 1] == 'x')  // no 0x
    text.erase(size_t(text[0] == '-' ? 1 : 0), 2);
  return put<double>(first, last, text.data(), std::strlen(text.data()));
}

bool digit(char c) { return c >= '0' && c <= '9'; }
bool same_letters(const char* p, const char* end, const char* word) {
  for (; *word; ++p, ++word)
    if (p == end || (*p | 0x20) != *word) return false;
  return true;
}

template <class T>
std::from_chars_result read(const char* first, const char* last, T& value, std::chars_format fmt) {
  const char* p = first;
  if (p != last && *p == '-') ++p;
  // inf, infinity, nan, nan(chars)
  if (same_letters(p, last, "inf")) {
    const char* end = same_letters(p, last, "infinity") ? p + 8 : p + 3;
    value = *first == '-' ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    return {end, std::errc()};
  }
  if (same_letters(p, last, "nan")) {
    const char* end = p + 3;
    if (end != last && *end == '(') {
      const char* q = end + 1;
      while (q != last && (digit(*q) || ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z') || *q == '_')) ++q;
      if (q != last && *q == ')') end = q + 1;
    }
    value = *first == '-' ? -std::numeric_limits<T>::quiet_NaN() : std::numeric_limits<T>::quiet_NaN();
    return {end, std::errc()};
  }
  if (fmt == std::chars_format::hex) return {first, std::errc::invalid_argument};  // not used by meshport
  const char* start = p;
  bool any = false, nonzero = false;
  for (; p != last && digit(*p); ++p) any = true, nonzero = nonzero || *p != '0';
  if (p != last && *p == '.') {
    ++p;
    for (; p != last && digit(*p); ++p) any = true, nonzero = nonzero || *p != '0';
  }
  if (!any) return {first, std::errc::invalid_argument};
  const bool can_fixed = (unsigned(fmt) & unsigned(std::chars_format::fixed)) != 0;
  const bool can_scientific = (unsigned(fmt) & unsigned(std::chars_format::scientific)) != 0;
  if (can_scientific && p != last && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    if (q != last && (*q == '+' || *q == '-')) ++q;
    if (q != last && digit(*q)) {
      while (q != last && digit(*q)) ++q;
      p = q;
    } else if (!can_fixed) {
      return {first, std::errc::invalid_argument};
    }
  } else if (!can_fixed) {
    return {first, std::errc::invalid_argument};  // scientific alone needs an exponent
  }
  const std::string text(first, p);
  (void)start;
  T v;
  if constexpr (std::is_same_v<T, float>) v = std::strtof(text.c_str(), nullptr);
  else v = std::strtod(text.c_str(), nullptr);
  if (std::isinf(v) || (v == 0 && nonzero)) return {p, std::errc::result_out_of_range};
  value = v;
  return {p, std::errc()};
}

}  // namespace

// std in the WebAssembly build; another namespace where tests/test_wasm_charconv.cpp compiles this
// file natively to compare it with libstdc++.
#ifndef MESHPORT_CHARCONV_NAMESPACE
#define MESHPORT_CHARCONV_NAMESPACE std
#endif
namespace MESHPORT_CHARCONV_NAMESPACE {
using std::chars_format;
using std::from_chars_result;
using std::to_chars_result;

to_chars_result to_chars(char* first, char* last, float value) { return shortest(first, last, value); }
to_chars_result to_chars(char* first, char* last, double value) { return shortest(first, last, value); }
to_chars_result to_chars(char* first, char* last, float value, chars_format fmt, int precision) {
  return with_precision(first, last, double(value), fmt, precision);
}
to_chars_result to_chars(char* first, char* last, double value, chars_format fmt, int precision) {
  return with_precision(first, last, value, fmt, precision);
}
from_chars_result from_chars(const char* first, const char* last, float& value, chars_format fmt) {
  return read(first, last, value, fmt);
}
from_chars_result from_chars(const char* first, const char* last, double& value, chars_format fmt) {
  return read(first, last, value, fmt);
}

}  // namespace MESHPORT_CHARCONV_NAMESPACE
