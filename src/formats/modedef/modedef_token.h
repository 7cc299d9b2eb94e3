// The token layer shared by the four ModeDef readers (.model, .prop, .state, .path): the files
// are whitespace-separated values read in a fixed order (../shared/specs/modedef.txt).
//
// A token is a run of bytes other than space, tab, CR, LF, VT or FF. `#` or `//` at the start of
// a token comments out the rest of the line (the specification writes no comments, but
// hand-written files carry them). Lines end at `\n`, `\r\n` or a lone `\r`; columns count bytes,
// both 1-based. Every read names what it expected, so errors read
// "file:line:col: error: expected the eigenvalue count, found 'x'".
#pragma once

#include <meshport/diagnostics.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace meshport::modedef {

struct Token {
  std::string_view text;  // empty at the end of the file
  uint32_t line = 1, column = 1;
};

class TokenReader {
 public:
  TokenReader(std::string_view text, std::string file);

  const std::string& file() const { return file_; }
  // The next token without consuming it (text empty at the end of the file).
  const Token& peek();
  bool at_end() { return peek().text.empty(); }
  // Consumes and returns the next token; fails "unexpected end of file: expected <what>".
  Token next(std::string_view what);

  // Typed reads; each fails at the token with "expected <what>, found '<token>'".
  int32_t read_int(std::string_view what);  // decimal, optional sign, within int32
  // A count >= 0 whose items need at least `min_tokens` tokens each: fails when the rest of the
  // file cannot hold that many (2 bytes per token at least), before anything is allocated.
  uint32_t read_count(std::string_view what, size_t min_tokens);
  float read_float(std::string_view what);  // finite decimal or scientific; within float range
  // 0 or 1 (any integer is accepted, non-zero meaning true, and kept as written), true or false.
  int32_t read_flag(std::string_view what);
  std::string read_string(std::string_view what);  // any token

  // Fails when anything but comments follows.
  void expect_end(std::string_view after);

  [[noreturn]] void fail_at(const Token& t, std::string message) const;
  Diagnostic warning_at(const Token& t, std::string message) const;
  // Bytes not yet read.
  size_t remaining() const { return text_.size() - pos_; }

 private:
  void scan();  // fills next_ from pos_

  std::string_view text_;
  std::string file_;
  size_t pos_ = 0;         // first byte after the peeked token (or the scan position)
  size_t line_start_ = 0;  // byte where the current line starts
  uint32_t line_ = 1;
  bool peeked_ = false;
  Token next_;
};

// A token for a message: cut after 32 bytes ("..." appended); control bytes and bytes that are
// not well-formed UTF-8 as \xHH.
std::string shown(std::string_view token);

// Whether `s` is text: well-formed UTF-8 without control bytes (a file name that is not garbage).
bool is_text(std::string_view s);

// Shortest decimal text that reads back as the same float ("0.1", "-2", "1e-07").
std::string format_float(float v);

}  // namespace meshport::modedef
