// meshport: finding a model's texture files on disk (docs/textures.md, "Finding textures"). Implementation:
// src/ops/textures.cpp.
//
// Every material texture slot (scene.h Material) holds a reference as the source file gave it.
// find_textures() resolves each one to a file, or says why it could not, by these rules:
//   - a reference equal to Scene::images[i].path is carried in the Scene ("embedded");
//   - folders, in order: the model's own folder, each of TextureSearch::dirs, then the folders of
//     known layouts (Warzone 2100 `texpages/` beside or above `components/`, `structs/`, ...);
//   - within a folder: the reference as a relative path (backslashes as '/'), then its file name
//     alone; each name matches case-insensitively when no exact match exists; a reference without
//     an image extension, or whose file is not there, tries its stem with kTextureExtensions;
//   - sidecar files beside the model name textures per mesh and win over the material's own
//     reference: Tesseract/Red Eclipse `iqm.cfg` (iqmskin, iqmbumpmap; .iqm models) and Quake 3
//     `.skin` files (`<stem>.skin`, `<stem>_default.skin`, `<file>_0.skin`);
//   - a material whose base colour slot is empty tries its name (IQM/IQE/QMSH material names that
//     are paths or stems).
// Only the folders the rules name are listed (never recursively), each at most once per call.
#pragma once

#include <meshport/meshport.h>
#include <meshport/scene.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshport {

// Extensions tried after a reference's stem, in this order.
inline constexpr std::string_view kTextureExtensions[] = {".png", ".tga", ".jpg", ".jpeg", ".bmp",
                                                          ".dds", ".pcx", ".psd"};

struct TextureSearch {
  // The model file. Its folder is searched first, its sidecar files are read, and its path tells
  // the known layouts. Empty: no model folder (standard input), only `dirs` are searched.
  std::string model_path;
  std::vector<std::string> dirs;  // further folders, in order (--textures DIR)
};

struct TextureLookup {
  int32_t material = -1;  // index into Scene::materials
  std::string slot;       // "base colour", "normal", "specular", "team colour"
  std::string reference;  // what was looked for: the slot's reference, a sidecar's path, or the name
  std::string source;     // where the reference came from: "material", "material name",
                          // "iqm.cfg:LINE", "<name>.skin:LINE"
  int32_t image = -1;     // found in the Scene: index into Scene::images ("embedded"), else -1
  // The file found: the search folder joined with the matched relative path, '/'-separated. It is
  // relative when the model path (or that search folder) is relative, so it can be opened from
  // the current folder; empty when not found on disk.
  std::string file;
  std::string relative;  // `file` relative to the model's folder ("../../texpages/page-7.png")
  std::string rule;      // how it was found: "embedded", "model folder", "texture folder 2",
                         // "Warzone 2100 texpages", with ", file name only", ", extension .tga",
                         // ", case differs" when those rules applied
  std::string reason;    // why not found (empty when found)
  std::string note;      // e.g. meshes of one material naming different textures in a sidecar

  bool found() const { return image >= 0 || !file.empty(); }
};

// One entry per material slot that names something (in material order, slots in the order
// above), plus sidecar-named slots and material-name fallbacks. Never throws for missing or
// unreadable files; they are reasons.
std::vector<TextureLookup> find_textures(const Scene& scene, const TextureSearch& search);

// The search a writer makes for `options`: model = options.texture_model (else a file in
// options.texture_dir), dirs = options.texture_dirs.
TextureSearch texture_search(const WriteOptions& options);

}  // namespace meshport
