// Number scanning shared by the text format readers: see text.h.
#include "text.h"

#include <charconv>

#include <cstdint>
#include <cstring>
#include <limits>

namespace meshport::text {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The correctly rounded double of the decimal at p, when Clinger's fast path applies.
bool fast_double(const char*& p, const char* end, double& out, bool& negative) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* q = p;
  bool neg = q < end && *q == '-';
  if (neg) ++q;
  uint64_t m = 0;
  int digits = 0, exp10 = 0;
  bool any = false;
  for (; q < end && is_digit(*q); ++q, any = true) {
    if (m || *q != '0') ++digits;
    m = m * 10 + uint64_t(*q - '0');
    if (digits > 15) return false;
  }
  if (q < end && *q == '.') {
    for (++q; q < end && is_digit(*q); ++q, any = true) {
      if (m || *q != '0') ++digits;
      m = m * 10 + uint64_t(*q - '0');
      --exp10;
      if (digits > 15) return false;
    }
  }
  if (!any) return false;
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
  out = exp10 < 0 ? double(m) / kPow10[-exp10] : double(m) * kPow10[exp10];
  negative = neg;
  p = q;
  return true;
}

}  // namespace

bool fast_decimal(const char*& p, const char* end, float& out) {
  const char* q = p;
  double d;
  bool neg;
  if (!fast_double(q, end, d, neg)) return false;
  if (d != 0 && (d < double(std::numeric_limits<float>::min()) || d > double(std::numeric_limits<float>::max())))
    return false;
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  if ((bits & 0x1FFFFFFF) == 0x10000000) return false;  // exactly halfway between two floats
  out = neg ? -float(d) : float(d);
  p = q;
  return true;
}

bool fast_decimal(const char*& p, const char* end, double& out) {
  double d;
  bool neg;
  if (!fast_double(p, end, d, neg)) return false;
  out = neg ? -d : d;
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
