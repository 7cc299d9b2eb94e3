// Diagnostics: every reader reports where a problem is, as `file:line:col` for text formats and
// as a byte offset for binary ones.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace meshport {

// Note: information that needs no action (a duplicate clip dropped); not counted as a warning.
enum class Severity { Warning, Error, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;
  uint32_t line = 0;    // 1-based; 0 when the location is not a text position
  uint32_t column = 0;  // 1-based
  int64_t offset = -1;  // byte offset into a binary file; -1 when not binary
  std::string message;

  // "file:line:col: error: message", "file: offset N: warning: message" or "file: error: message".
  std::string to_string() const;
};

// Collects warnings (and, for validation, errors) up to a bound so hostile input cannot flood it.
struct Diagnostics {
  std::vector<Diagnostic> items;
  size_t limit = 200;
  size_t dropped = 0;  // diagnostics past the limit, counted but not kept

  void add(Diagnostic d);
  bool has_errors() const;
  size_t warning_count() const;
};

// Thrown by readers and writers on a fatal problem; carries the located diagnostic.
class Error : public std::runtime_error {
 public:
  explicit Error(Diagnostic d);
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

// Helpers for readers.
[[noreturn]] void fail_at_line(const std::string& file, uint32_t line, uint32_t column, std::string message);
[[noreturn]] void fail_at_offset(const std::string& file, int64_t offset, std::string message);
[[noreturn]] void fail(const std::string& file, std::string message);
Diagnostic warning_at_line(const std::string& file, uint32_t line, uint32_t column, std::string message);
Diagnostic warning_at_offset(const std::string& file, int64_t offset, std::string message);
Diagnostic warning(const std::string& file, std::string message);
Diagnostic note(const std::string& file, std::string message);

}  // namespace meshport
