// The tokenizer of QMSH TMP 10 (.qmsh.tmp), with the rules of the engine's CommonLib tokenizer
// (../shared/specs/qmsh-notes.md; choices in docs/qmsh.md, "Tokenizer and grammar").
//
// Tokens are produced one at a time (no token list is built), so an error is reported at the
// first problem in file order. Errors throw meshport::Error located at a 1-based row and column
// (columns count bytes; `\r\n`, `\n` and a lone `\r` each end a line).
//
// As in CommonLib, a backslash directly before a line end is removed together with the line end
// below the token level ("line splice", like C's translation phase 2): it joins the two lines
// anywhere, also inside a number, an identifier, a string or a `//` comment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace meshport::qmsh_tmp {

enum class TokenKind : uint8_t { End, Symbol, Identifier, Integer, Float, String };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;   // Symbol, Identifier, Integer, Float: the lexeme (splices removed)
  std::string value;  // String: the content, escapes resolved
  uint32_t row = 1, column = 1;
};

class Tokenizer {
 public:
  Tokenizer(std::string_view text, std::string file) : text_(text), file_(std::move(file)) { settle(); }

  // The next token into `t` (End, repeatedly, once the text is exhausted).
  void next(Token& t);
  // Bytes not yet read: an upper bound for what later entries can need.
  size_t remaining() const { return text_.size() - pos_; }
  [[noreturn]] void fail_at(uint32_t row, uint32_t column, std::string message) const;

 private:
  // The character layer: pos_ never rests on a splice.
  bool at_end() const { return pos_ >= text_.size(); }
  char ch() const { return at_end() ? '\0' : text_[pos_]; }
  char peek() const;  // the character after the current one ('\0' at the end)
  size_t line_end_length(size_t pos) const;  // 0, or the length of the line end at pos (1 or 2)
  size_t skip_splices(size_t pos) const;
  void settle();  // moves pos_ past splices, counting their rows
  void step();    // consumes the current character
  uint32_t row() const;
  uint32_t column() const;

  void skip_blank();  // whitespace, line ends, comments
  void skip_block_comment();
  void read_string(Token& t);
  void read_escape(Token& t, uint32_t open_row, uint32_t open_column);
  void read_number(Token& t);

  std::string_view text_;
  std::string file_;  // a copy: the name may be a temporary
  size_t pos_ = 0;
  size_t line_start_ = 0;
  uint64_t row_ = 1;
};

// The value of an Integer or Float lexeme as a float, correctly rounded; magnitudes below the
// smallest float become a signed zero. False when the magnitude is beyond the float range.
bool lexeme_float(std::string_view lexeme, float& out);

// The value of an Integer lexeme: its sign and magnitude, the magnitude saturated at 2^64 - 1.
struct IntegerValue {
  bool negative = false;
  uint64_t magnitude = 0;
};
IntegerValue lexeme_integer(std::string_view lexeme);

// Appends `s` as a string token: in double quotes, with `\\`, `\"` and control bytes escaped
// (bytes from 0x80 are written as they are).
void append_quoted(std::string& out, std::string_view s);

// A lexeme for a message, cut after 32 bytes ("..." appended).
std::string shown(std::string_view lexeme);

// A token for a message: `end of file`, `'{'`, `'mesh'`, `number 1.5`, `string "abc"`; long
// lexemes are cut.
std::string describe(const Token& t);

}  // namespace meshport::qmsh_tmp
