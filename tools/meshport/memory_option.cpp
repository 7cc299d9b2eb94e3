// --max-memory (memory_option.h).
#include "memory_option.h"

#include <cctype>
#include <charconv>

namespace meshport::cli {

void add_max_memory_option(CLI::App* cmd, std::string& value) {
  cmd->add_option("--max-memory", value,
                  "Let a read build the model into at most SIZE bytes (K, M, G suffixes; default: 1G, or 12 bytes per "
                  "input byte + 32M when that is more); raise it for a file that reuses its data very often")
      ->type_name("SIZE");
}

uint64_t parse_max_memory(const std::string& value) {
  if (value.empty()) return 0;
  uint64_t n = 0;
  const char* begin = value.data();
  const char* end = begin + value.size();
  auto r = std::from_chars(begin, end, n);
  std::string unit;
  for (const char* p = r.ptr; p != end; ++p) unit += char(std::toupper(static_cast<unsigned char>(*p)));
  int shift = -1;
  for (auto [names, s] : {std::pair{"|B", 0}, std::pair{"K|KB|KIB", 10}, std::pair{"M|MB|MIB", 20},
                          std::pair{"G|GB|GIB", 30}, std::pair{"T|TB|TIB", 40}}) {
    const std::string list = std::string("|") + names + "|";
    if (list.find("|" + unit + "|") != std::string::npos) shift = s;
  }
  if (r.ec != std::errc() || r.ptr == begin || shift < 0 || n == 0 || n > (UINT64_MAX >> shift))
    throw CLI::ValidationError("--max-memory", "expects a size in bytes above 0, with an optional K, M, G or T "
                                               "suffix (2G, 512M), got '" + value + "'");
  return n << shift;
}

}  // namespace meshport::cli
