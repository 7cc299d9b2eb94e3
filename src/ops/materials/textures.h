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
  std::string path;  // as written, relative to the sidecar's folder (iqm.cfg: to the model's)
  size_t line = 0;   // 1-based
  std::string file;  // the sidecar, relative to the model's folder; empty: iqm.cfg or the .skin
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

// An animation an iqm.cfg names: `iqmanim "NAME|NAME..." FILE [FPS ...]`.
struct IqmAnimEntry {
  std::vector<std::string> names;  // the '|'-separated names, in order
  std::string file;                // FILE joined with the iqmdir then in effect
  float fps = 0;                   // 0: not given
  std::string source;              // "iqm.cfg:LINE", "../player.cfg:LINE"
};

// What meshport follows of a model's `iqm.cfg` (Red Eclipse, Tesseract, Sauerbraten):
// iqmskin / iqmbumpmap as parse_iqm_cfg, plus
//   - `exec FILE`: FILE relative to the game's data root, the nearest folder above the model's
//     (at most kMaxDataRootLevels up) that holds it; at most kMaxExecDepth nested, kMaxExecFiles
//     in all, each at most 1 MiB; absolute paths and `..` are not followed (outside the tree);
//   - `iqmdir DIR`: the folder later paths are relative to, DIR relative to that data root;
//   - `iqmanim NAMES FILE [FPS]`: animations, FILE relative to the iqmdir in effect.
// Paths come back relative to the model's folder ("diffuse.png", "../diffuse.png"); `notes`
// say what was not followed and why.
inline constexpr int kMaxDataRootLevels = 8;
inline constexpr int kMaxExecDepth = 4;
inline constexpr int kMaxExecFiles = 32;
struct IqmConfig {
  std::vector<SkinEntry> skins;
  std::vector<IqmAnimEntry> anims;
  std::vector<std::string> notes;
};
IqmConfig read_iqm_config(const std::string& model_path);

// Names and rates the model's iqm.cfg gives the animations of `animation_file` (an input
// attached to `model_path`): each iqmanim naming that file (the same file on disk), in order.
std::vector<IqmAnimEntry> iqm_animations_for(const std::string& model_path, const std::string& animation_file);

// Names and rates the animations of `animation_file`, an input attached to `model_path`, as the
// model's iqm.cfg does (iqm_animations_for): the file's first clip takes the names of every
// iqmanim naming the file, joined by '|' ("switch|use"), and the first FPS given as its
// framerate (evenly spaced frames only). A note says what changed.
void name_animations_from_iqm_cfg(Scene& animations, const std::string& model_path, const std::string& animation_file,
                                  Diagnostics* diags);

// Quake 3 `.skin`: `SURFACE,PATH` lines (tag_ lines and empty paths ignored), DarkPlaces'
// `replace "SURFACE" "PATH"` too; `//` comments.
std::vector<SkinEntry> parse_skin(std::string_view text);

}  // namespace meshport::ops
