#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <algorithm>

namespace meshport {

std::string Diagnostic::to_string() const {
  const char* sev = severity == Severity::Error ? "error" : severity == Severity::Note ? "note" : "warning";
  if (line > 0) return fmt::format("{}:{}:{}: {}: {}", file, line, column, sev, message);
  if (offset >= 0) return fmt::format("{}: offset {}: {}: {}", file, offset, sev, message);
  return fmt::format("{}: {}: {}", file, sev, message);
}

void Diagnostics::add(Diagnostic d) {
  if (items.size() >= limit) {
    ++dropped;
    return;
  }
  items.push_back(std::move(d));
}

bool Diagnostics::has_errors() const {
  return std::any_of(items.begin(), items.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

size_t Diagnostics::warning_count() const {
  return std::count_if(items.begin(), items.end(), [](const Diagnostic& d) { return d.severity == Severity::Warning; });
}

Error::Error(Diagnostic d) : std::runtime_error(d.to_string()), diag_(std::move(d)) {}

static Diagnostic make(Severity s, const std::string& file, uint32_t line, uint32_t col, int64_t off, std::string msg) {
  Diagnostic d;
  d.severity = s;
  d.file = file;
  d.line = line;
  d.column = col;
  d.offset = off;
  d.message = std::move(msg);
  return d;
}

void fail_at_line(const std::string& file, uint32_t line, uint32_t column, std::string message) {
  throw Error(make(Severity::Error, file, line, column, -1, std::move(message)));
}
void fail_at_offset(const std::string& file, int64_t offset, std::string message) {
  throw Error(make(Severity::Error, file, 0, 0, offset, std::move(message)));
}
void fail(const std::string& file, std::string message) {
  throw Error(make(Severity::Error, file, 0, 0, -1, std::move(message)));
}
Diagnostic warning_at_line(const std::string& file, uint32_t line, uint32_t column, std::string message) {
  return make(Severity::Warning, file, line, column, -1, std::move(message));
}
Diagnostic warning_at_offset(const std::string& file, int64_t offset, std::string message) {
  return make(Severity::Warning, file, 0, 0, offset, std::move(message));
}
Diagnostic warning(const std::string& file, std::string message) {
  return make(Severity::Warning, file, 0, 0, -1, std::move(message));
}
Diagnostic note(const std::string& file, std::string message) {
  return make(Severity::Note, file, 0, 0, -1, std::move(message));
}

}  // namespace meshport
