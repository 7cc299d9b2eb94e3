// What format readers and writers exchange with the I/O layer: side files in, files out.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace meshport {

// Loads a file named relative to the model being read (a glTF buffer, an OBJ material library).
// Throws meshport::Error when it cannot.
using SideFileLoader = std::function<std::vector<uint8_t>(const std::string& relative_path)>;

// One file a writer produces. `name` is a path relative to the main output's folder; the main
// file comes first and has an empty name.
struct OutputFile {
  std::string name;
  std::vector<uint8_t> bytes;
};

}  // namespace meshport
