// The files of web/ (the page, its script, three.js modules) compiled into the binary by
// cmake/embed_files.cmake, so that `meshport view` needs no file beside it.
#pragma once

#include <span>
#include <string_view>

namespace meshport::view {

struct EmbeddedFile {
  std::string_view route;         // "/", "/viewer.js", "/three/three.module.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view data;
};

std::span<const EmbeddedFile> embedded_files();

}  // namespace meshport::view
