// Finding textures (include/meshport/textures.h): the sidecar file parsers, exposed for tests.
#pragma once

#include <meshport/textures.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshport::ops {

inline constexpr uint64_t kMaxTextureFileBytes = uint64_t(256) << 20;  // a texture file read whole

// The bytes of a texture file (at most kMaxTextureFileBytes); empty with `error` set ("cannot
// read it: ...", "it has N bytes, more than ...") when it cannot be read.
std::vector<uint8_t> read_texture_file(const std::string& file, std::string& error);

// One texture a sidecar file names for a mesh ("*": every mesh).
struct SkinEntry {
  std::string mesh;
  std::string slot;  // "base colour" or "normal"
  std::string path;  // as written, relative to the sidecar's folder
  size_t line = 0;   // 1-based
};

// The commands of a Tesseract / Red Eclipse `.cfg` file: words (quotes removed), `//` comments
// dropped, commands separated by line breaks or `;` outside quotes.
struct CfgCommand {
  size_t line = 0;  // 1-based
  std::vector<std::string> words;  // never empty
};
std::vector<CfgCommand> iqm_cfg_commands(std::string_view text);

// Tesseract / Red Eclipse `iqm.cfg`: `iqmskin MESH DIFFUSE [MASKS ...]` and
// `iqmbumpmap MESH NORMALMAP [DIFFUSE]`, arguments quoted or not, `//` comments, commands
// separated by line breaks or `;`. Commands after an `iqmload FILE` count only when FILE's name
// is `model_file` (case-insensitive); before any iqmload they count. Texture command prefixes
// (`<dds>`, `<mad:...>`) are stripped from paths.
std::vector<SkinEntry> parse_iqm_cfg(std::string_view text, std::string_view model_file);

// Quake 3 `.skin`: `SURFACE,PATH` lines (tag_ lines and empty paths ignored), DarkPlaces'
// `replace "SURFACE" "PATH"` too; `//` comments.
std::vector<SkinEntry> parse_skin(std::string_view text);

}  // namespace meshport::ops
