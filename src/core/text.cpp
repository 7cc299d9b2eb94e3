// Text helpers shared by the format readers: see text.h.
#include "core/text.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace meshport::text {

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
