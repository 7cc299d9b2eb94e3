#pragma once
// std::filesystem paths from and to meshport's UTF-8 strings. A path built from a narrow
// std::string is read in the C library's locale encoding on Windows (libstdc++ with MinGW's
// msvcrt: not UTF-8, even with meshport.exe's UTF-8 code page manifest), so "modèle ✓" became
// another name; built from a std::u8string it is read as UTF-8 everywhere. On Linux both are the
// same bytes. Every std::filesystem use with a std::string path goes through these (path.string(),
// .generic_string() and a path made from a std::string are not UTF-8 on Windows).
#include <filesystem>
#include <string>
#include <string_view>

namespace meshport {

inline std::filesystem::path utf8_path(std::string_view utf8) {
  return std::filesystem::path(std::u8string(utf8.begin(), utf8.end()));
}

inline std::string path_utf8(const std::filesystem::path& path) {
  const std::u8string s = path.u8string();
  return std::string(s.begin(), s.end());
}

// path.generic_string() in UTF-8: '/' between the parts on Windows too.
inline std::string generic_utf8(const std::filesystem::path& path) {
  const std::u8string s = path.generic_u8string();
  return std::string(s.begin(), s.end());
}

}  // namespace meshport
