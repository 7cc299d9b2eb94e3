// Text files the CLI writes (text_output.h).
#include "text_output.h"
#include "../../src/core/utf8_path.h"

#include <meshport/diagnostics.h>

#include <filesystem>
#include <fstream>
#include <system_error>

namespace meshport::cli {

void write_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  {
    std::ofstream f(utf8_path(tmp), std::ios::binary | std::ios::trunc);
    if (!f || !(f << text) || !f.flush()) {
      std::filesystem::remove(utf8_path(tmp), ec);
      fail(path, "cannot write it");
    }
  }
  std::filesystem::rename(utf8_path(tmp), utf8_path(path), ec);
  if (ec) {
    std::filesystem::remove(utf8_path(tmp), ec);
    fail(path, "cannot write it");
  }
}

}  // namespace meshport::cli
