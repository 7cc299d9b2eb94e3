// Glob patterns for batch inputs (plan.h glob_match).
#include "batch/plan.h"

namespace meshport::batch_detail {

bool has_glob(std::string_view text) { return text.find_first_of("*?[") != std::string_view::npos; }

namespace {

// One bracket expression at p[0] == '[' against c; sets `end` past it. A '[' without its ']'
// matches itself.
bool bracket_match(std::string_view p, char c, size_t& end) {
  size_t i = 1;
  const bool negate = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negate) ++i;
  bool hit = false;
  for (bool first = true; i < p.size() && (first || p[i] != ']'); first = false, ++i) {
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      hit |= p[i] <= c && c <= p[i + 2];
      i += 2;
    } else {
      hit |= p[i] == c;
    }
  }
  if (i >= p.size()) {
    end = 1;
    return c == '[';
  }
  end = i + 1;
  return hit != negate;
}

// Pattern and path components without '/'.
bool component_match(std::string_view p, std::string_view s) {
  if (p.empty()) return s.empty();
  if (p[0] == '*') {
    for (size_t k = 0; k <= s.size(); ++k)
      if (component_match(p.substr(1), s.substr(k))) return true;
    return false;
  }
  if (s.empty()) return false;
  if (p[0] == '?') return component_match(p.substr(1), s.substr(1));
  if (p[0] == '[') {
    size_t end = 0;
    return bracket_match(p, s[0], end) && component_match(p.substr(end), s.substr(1));
  }
  return p[0] == s[0] && component_match(p.substr(1), s.substr(1));
}

std::string_view head(std::string_view s) { return s.substr(0, s.find('/')); }
std::string_view tail(std::string_view s) {
  size_t k = s.find('/');
  return k == std::string_view::npos ? std::string_view() : s.substr(k + 1);
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  if (pattern.empty()) return path.empty();
  if (head(pattern) == "**") {
    const std::string_view rest = tail(pattern);
    for (std::string_view s = path;; s = tail(s)) {
      if (glob_match(rest, s)) return true;
      if (s.empty()) return false;
    }
  }
  if (path.empty() || !component_match(head(pattern), head(path))) return false;
  const bool pattern_last = pattern.find('/') == std::string_view::npos;
  const bool path_last = path.find('/') == std::string_view::npos;
  if (pattern_last || path_last) return pattern_last && path_last;
  return glob_match(tail(pattern), tail(path));
}

}  // namespace meshport::batch_detail
