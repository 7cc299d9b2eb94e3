// Text files the CLI writes (text_output.h).
#include "text_output.h"

#include <meshport/diagnostics.h>

#include <cstdio>
#include <fstream>

namespace meshport::cli {

void write_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f || !(f << text) || !f.flush()) {
      std::remove(tmp.c_str());
      fail(path, "cannot write it");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    fail(path, "cannot write it");
  }
}

}  // namespace meshport::cli
