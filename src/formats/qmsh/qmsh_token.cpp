// QMSH TMP 10 tokenizer (qmsh_token.h).
#include "formats/qmsh/qmsh_token.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <system_error>

namespace meshport::qmsh_tmp {
namespace {

constexpr std::string_view kSymbols = "`~!@#$%^&*()=[]{};:,.<>?\\|/";
constexpr size_t kMaxShown = 32;  // bytes of a lexeme or string quoted in a message

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

// A character for a message: 'x' when printable ASCII, else its byte value.
std::string show_char(char c) {
  auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7f ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02X}", unsigned(u));
}

size_t skip_digits(std::string_view s, size_t& i) {
  size_t b = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  return i - b;
}

// Integer or Float for a well-formed number, End otherwise:
// [+-]? digit+ ('.' digit*)? ([eE] [+-]? digit+)?
TokenKind number_kind(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (skip_digits(s, i) == 0) return TokenKind::End;
  bool is_float = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    skip_digits(s, i);
    is_float = true;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (skip_digits(s, i) == 0) return TokenKind::End;
    is_float = true;
  }
  if (i != s.size()) return TokenKind::End;
  return is_float ? TokenKind::Float : TokenKind::Integer;
}

// The power of ten of the leading digit of a well-formed, non-zero number (saturating far beyond
// the float range); 0 for a zero.
int64_t decimal_magnitude(std::string_view s) {
  size_t i = s.empty() || (s[0] != '-' && s[0] != '+') ? 0 : 1;
  size_t int_begin = i;
  skip_digits(s, i);
  int64_t mag = 0;
  bool found = false;
  for (size_t k = int_begin; k < i && !found; ++k)
    if (s[k] != '0') mag = int64_t(i - k - 1), found = true;
  if (i < s.size() && s[i] == '.') {
    size_t frac_begin = ++i;
    skip_digits(s, i);
    for (size_t k = frac_begin; k < i && !found; ++k)
      if (s[k] != '0') mag = -int64_t(k - frac_begin + 1), found = true;
  }
  if (!found) return 0;
  int64_t e = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    for (; i < s.size() && is_digit(s[i]); ++i) e = std::min<int64_t>(e * 10 + (s[i] - '0'), int64_t(1) << 40);
  }
  return mag + (negative ? -e : e);
}

char simple_escape(char e) {
  switch (e) {
    case '\\': return '\\';
    case '?': return '?';
    case '"': return '"';
    case '\'': return '\'';
    case '0': return '\0';
    case 'r': return '\r';
    case 'n': return '\n';
    case 't': return '\t';
    case 'v': return '\v';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'a': return '\a';
    default: return 'x';  // not a one-character escape (\x is handled by the caller)
  }
}

}  // namespace

void Tokenizer::fail_at(uint32_t row, uint32_t column, std::string message) const {
  fail_at_line(file_, row, column, std::move(message));
}

size_t Tokenizer::line_end_length(size_t pos) const {
  if (pos >= text_.size()) return 0;
  if (text_[pos] == '\n') return 1;
  if (text_[pos] != '\r') return 0;
  return pos + 1 < text_.size() && text_[pos + 1] == '\n' ? 2 : 1;
}

size_t Tokenizer::skip_splices(size_t pos) const {
  while (pos < text_.size() && text_[pos] == '\\') {
    size_t n = line_end_length(pos + 1);
    if (!n) break;
    pos += 1 + n;
  }
  return pos;
}

void Tokenizer::settle() {
  while (pos_ < text_.size() && text_[pos_] == '\\') {
    size_t n = line_end_length(pos_ + 1);
    if (!n) return;
    pos_ += 1 + n;
    line_start_ = pos_;
    ++row_;
  }
}

void Tokenizer::step() {
  if (size_t n = line_end_length(pos_)) {
    pos_ += n;
    line_start_ = pos_;
    ++row_;
  } else if (pos_ < text_.size()) {
    ++pos_;
  }
  settle();
}

char Tokenizer::peek() const {
  if (at_end()) return '\0';
  size_t n = line_end_length(pos_);
  size_t p = skip_splices(pos_ + (n ? n : 1));
  return p < text_.size() ? text_[p] : '\0';
}

uint32_t Tokenizer::row() const { return uint32_t(std::min<uint64_t>(row_, std::numeric_limits<uint32_t>::max())); }
uint32_t Tokenizer::column() const {
  return uint32_t(std::min<uint64_t>(pos_ - line_start_ + 1, std::numeric_limits<uint32_t>::max()));
}

void Tokenizer::skip_block_comment() {
  uint32_t r = row(), c = column();
  step();  // '/'
  step();  // '*'
  bool star = false;
  for (;;) {
    if (at_end()) fail_at(r, c, "unterminated comment: '/*' without '*/'");
    char x = ch();
    step();
    if (star && x == '/') return;
    star = x == '*';
  }
}

void Tokenizer::skip_blank() {
  while (!at_end()) {
    char c = ch();
    if (c == ' ' || c == '\t' || c == '\v' || c == '\r' || c == '\n') {
      step();
    } else if (c == '/' && peek() == '/') {
      while (!at_end() && !line_end_length(pos_)) step();
    } else if (c == '/' && peek() == '*') {
      skip_block_comment();
    } else {
      return;
    }
  }
}

void Tokenizer::read_escape(Token& t, uint32_t open_row, uint32_t open_column) {
  uint32_t r = row(), c = column();  // the backslash
  step();
  if (at_end()) fail_at(open_row, open_column, "unterminated string: end of file before '\"'");
  if (line_end_length(pos_)) fail_at(row(), column(), "line end inside a string");
  char e = ch();
  step();
  if (e == 'x') {
    int value = 0;
    for (int i = 0; i < 2; ++i) {
      if (!is_hex(ch())) fail_at(r, c, "escape '\\x' must be followed by two hexadecimal digits");
      value = value * 16 + hex_value(ch());
      step();
    }
    t.value += char(value);
    return;
  }
  char v = simple_escape(e);
  if (v == 'x') fail_at(r, c, fmt::format("unknown escape '\\' followed by {}", show_char(e)));
  t.value += v;
}

void Tokenizer::read_string(Token& t) {
  uint32_t open_row = row(), open_column = column();
  step();
  for (;;) {
    if (at_end()) fail_at(open_row, open_column, "unterminated string: end of file before '\"'");
    char c = ch();
    if (c == '"') break;
    if (line_end_length(pos_)) fail_at(row(), column(), "line end inside a string");
    if (c == '\\') {
      read_escape(t, open_row, open_column);
    } else {
      t.value += c;
      step();
    }
  }
  step();
  t.kind = TokenKind::String;
}

// Like CommonLib, a number is the longest run of digits, letters, '+', '-' and '.'; it is then
// checked against the decimal syntax (number_kind).
void Tokenizer::read_number(Token& t) {
  while (!at_end()) {
    char c = ch();
    if (!is_digit(c) && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && c != '+' && c != '-' && c != '.')
      break;
    t.text += c;
    step();
  }
  t.kind = number_kind(t.text);
  if (t.kind != TokenKind::End) return;
  if ((t.text[0] == '+' || t.text[0] == '-') && (t.text.size() == 1 || !is_digit(t.text[1])))
    fail_at(t.row, t.column, fmt::format("'{}' must be followed by a digit", t.text[0]));
  fail_at(t.row, t.column, fmt::format("invalid number '{}'", shown(t.text)));
}

void Tokenizer::next(Token& t) {
  skip_blank();
  t.row = row();
  t.column = column();
  t.text.clear();
  t.value.clear();
  if (at_end()) {
    t.kind = TokenKind::End;
    return;
  }
  char c = ch();
  if (c == '"') {
    read_string(t);
  } else if (is_digit(c) || c == '+' || c == '-') {
    read_number(t);
  } else if (is_alpha(c)) {
    while (!at_end() && is_alnum(ch())) {
      t.text += ch();
      step();
    }
    t.kind = TokenKind::Identifier;
  } else if (kSymbols.find(c) != std::string_view::npos) {
    t.text += c;
    step();
    t.kind = TokenKind::Symbol;
  } else {
    fail_at(t.row, t.column, fmt::format("unexpected character {}", show_char(c)));
  }
}

std::string shown(std::string_view s) {
  return s.size() <= kMaxShown ? std::string(s) : fmt::format("{}...", s.substr(0, kMaxShown));
}

bool lexeme_float(std::string_view s, float& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  float v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size()) {
    out = v;
    return true;
  }
  // from_chars reports both overflow and underflow to zero as out of range.
  if (r.ec == std::errc::result_out_of_range && decimal_magnitude(s) < 0) {
    out = !s.empty() && s[0] == '-' ? -0.0f : 0.0f;
    return true;
  }
  return false;
}

IntegerValue lexeme_integer(std::string_view s) {
  IntegerValue v;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) v.negative = s[i++] == '-';
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  for (; i < s.size() && is_digit(s[i]); ++i) {
    uint64_t d = uint64_t(s[i] - '0');
    v.magnitude = v.magnitude > (kMax - d) / 10 ? kMax : v.magnitude * 10 + d;
  }
  return v;
}

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\0': out += "\\0"; break;
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\a': out += "\\a"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02X}", unsigned(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::End:
      return "end of file";
    case TokenKind::Symbol:
    case TokenKind::Identifier:
      return fmt::format("'{}'", shown(t.text));
    case TokenKind::Integer:
    case TokenKind::Float:
      return fmt::format("number {}", shown(t.text));
    case TokenKind::String: {
      std::string s = "string ";
      append_quoted(s, t.value.substr(0, kMaxShown));
      if (t.value.size() > kMaxShown) s += "...";
      return s;
    }
  }
  return {};
}

}  // namespace meshport::qmsh_tmp
