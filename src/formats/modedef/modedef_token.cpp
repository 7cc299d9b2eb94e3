#include "formats/modedef/modedef_token.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace meshport::modedef {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// The length of the well-formed UTF-8 sequence at s[i] (1 for printable ASCII), 0 for a control
// byte or a byte that does not start a well-formed sequence.
size_t text_char_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x20 || c == 0x7f) return 0;
  if (c < 0x80) return 1;
  const size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string shown(std::string_view token) {
  const std::string_view cut = token.substr(0, 32);
  std::string s;
  for (size_t i = 0; i < cut.size();) {
    const size_t n = text_char_length(cut, i);
    if (n == 0) {
      s += fmt::format("\\x{:02X}", unsigned(static_cast<unsigned char>(cut[i])));
      ++i;
    } else {
      s += cut.substr(i, n);
      i += n;
    }
  }
  if (token.size() > 32) s += "...";
  return s;
}

bool is_text(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = text_char_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string format_float(float v) {
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

TokenReader::TokenReader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

void TokenReader::scan() {
  for (;;) {
    // Blanks, counting lines.
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      char c = text_[pos_++];
      if (c == '\n' || (c == '\r' && (pos_ >= text_.size() || text_[pos_] != '\n'))) {
        ++line_;
        line_start_ = pos_;
      }
    }
    if (pos_ < text_.size() &&
        (text_[pos_] == '#' || (text_[pos_] == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/'))) {
      while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '\r') ++pos_;
      continue;
    }
    break;
  }
  next_.line = line_;
  next_.column = uint32_t(std::min<size_t>(pos_ - line_start_ + 1, std::numeric_limits<uint32_t>::max()));
  size_t start = pos_;
  while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
  next_.text = text_.substr(start, pos_ - start);
  peeked_ = true;
}

const Token& TokenReader::peek() {
  if (!peeked_) scan();
  return next_;
}

Token TokenReader::next(std::string_view what) {
  Token t = peek();
  if (t.text.empty()) fail_at(t, fmt::format("unexpected end of file: expected {}", what));
  peeked_ = false;
  return t;
}

void TokenReader::fail_at(const Token& t, std::string message) const {
  fail_at_line(file_, t.line, t.column, std::move(message));
}

Diagnostic TokenReader::warning_at(const Token& t, std::string message) const {
  return warning_at_line(file_, t.line, t.column, std::move(message));
}

int32_t TokenReader::read_int(std::string_view what) {
  Token t = next(what);
  std::string_view s = t.text;
  const bool plus = !s.empty() && s[0] == '+';
  if (plus) s.remove_prefix(1);
  int32_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  // One sign at most: "+-5" and "++5" are not integers.
  if (s.empty() || (s[0] == '-' && (s.size() == 1 || plus)) || s[0] == '+') r.ec = std::errc::invalid_argument;
  if (r.ec == std::errc::result_out_of_range)
    fail_at(t, fmt::format("{}: '{}' is beyond the 32-bit integer range", what, shown(t.text)));
  if (r.ec != std::errc() || r.ptr != s.data() + s.size())
    fail_at(t, fmt::format("expected {} (an integer), found '{}'", what, shown(t.text)));
  return v;
}

uint32_t TokenReader::read_count(std::string_view what, size_t min_tokens) {
  Token t = peek();
  int32_t v = read_int(what);
  if (v < 0) fail_at(t, fmt::format("{} {} is negative", what, v));
  // Every token needs at least one byte and one separator.
  const size_t most = remaining() / 2 + 1;
  if (min_tokens > 0 && uint64_t(v) * min_tokens > most)
    fail_at(t, fmt::format("{} {} is more than the rest of the file can hold", what, v));
  return uint32_t(v);
}

float TokenReader::read_float(std::string_view what) {
  Token t = next(what);
  std::string_view s = t.text;
  const bool plus = !s.empty() && s[0] == '+';
  if (plus) s.remove_prefix(1);
  bool ok = !s.empty() && s[0] != '+' && !(plus && s[0] == '-');  // one sign at most
  // from_chars also takes "inf" and "nan": only digits, '.', sign, and exponents are numbers here.
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) ok = false;
  float v = 0;
  if (ok) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec == std::errc::result_out_of_range && r.ptr == s.data() + s.size()) {
      // Underflow (a negative exponent) is a zero; overflow is an error.
      double d = 0;
      auto rd = std::from_chars(s.data(), s.data() + s.size(), d);
      size_t e = s.find_first_of("eE");
      bool tiny = rd.ec == std::errc() ? std::fabs(d) < 1.0
                                       : e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
      if (!tiny) fail_at(t, fmt::format("{}: '{}' is beyond the float range", what, shown(t.text)));
      v = s[0] == '-' ? -0.0f : 0.0f;
    } else if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
      ok = false;
    }
  }
  if (!ok) fail_at(t, fmt::format("expected {} (a number), found '{}'", what, shown(t.text)));
  if (!std::isfinite(v)) fail_at(t, fmt::format("{}: '{}' is beyond the float range", what, shown(t.text)));
  return v;
}

int32_t TokenReader::read_flag(std::string_view what) {
  const Token& t = peek();
  if (t.text == "true" || t.text == "false") {
    bool v = t.text == "true";
    next(what);
    return v ? 1 : 0;
  }
  return read_int(what);
}

std::string TokenReader::read_string(std::string_view what) { return std::string(next(what).text); }

void TokenReader::expect_end(std::string_view after) {
  const Token& t = peek();
  if (!t.text.empty()) fail_at(t, fmt::format("unexpected '{}' after {}", shown(t.text), after));
}

}  // namespace meshport::modedef
