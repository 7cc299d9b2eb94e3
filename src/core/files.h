// What format readers and writers exchange with the I/O layer: side files in, files out.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace meshport {

namespace io {
class MappedFile;
}

// Loads a file named relative to the model being read (a glTF buffer, an OBJ material library).
// Throws meshport::Error when it cannot.
using SideFileLoader = std::function<std::vector<uint8_t>(const std::string& relative_path)>;

// One file a writer produces. `name` is a path relative to the main output's folder; the main
// file comes first and has an empty name. A writer that encodes straight into a temporary file
// (io::MappedFile) leaves `bytes` empty and hands over `mapped`, which the write renames.
struct OutputFile {
  std::string name;
  std::vector<uint8_t> bytes;
  std::shared_ptr<io::MappedFile> mapped;
};

}  // namespace meshport
