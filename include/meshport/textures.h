// meshport: finding a model's texture files on disk (docs/textures.md, "Finding textures"). Implementation:
// src/ops/materials/textures.cpp.
//
// Every material texture slot (scene.h Material) holds a reference as the source file gave it.
// find_textures() resolves each one to a file, or says why it could not, by these rules:
//   - a reference equal to Scene::images[i].path is carried in the Scene ("embedded");
//   - folders, in order: the model's own folder, each of TextureSearch::dirs, then the folders of
//     known layouts (Warzone 2100 `texpages/` beside or above `components/`, `structs/`, ...);
//   - within a folder: the reference as a relative path (backslashes as '/'), then its file name
//     alone; each name matches case-insensitively when no exact match exists; a reference without
//     an image extension, or whose file is not there, tries its stem with kTextureExtensions;
//   - a texture assigned by the user (TextureSearch::assigned, convert --texture) wins over all;
//   - sidecar files beside the model name textures per mesh and win over the material's own
//     reference: Tesseract/Red Eclipse `iqm.cfg` (iqmskin, iqmbumpmap; .iqm models; `exec` and
//     `iqmdir` followed inside the game's data tree) and Quake 3 `.skin` files (`<stem>.skin`,
//     `<stem>_default.skin`, `<file>_0.skin`);
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
  // Base colour textures assigned by name (later entries win); they win over sidecars and the
  // material's reference, and are used whether or not the file exists (check_texture_assignments).
  std::vector<TextureAssignment> assigned;
};

// The TextureLookup::slot of Material::extension_textures[k]: "extension texture <k>".
std::string extension_slot(size_t k);

struct TextureLookup {
  int32_t material = -1;  // index into Scene::materials
  std::string slot;       // "base colour", "normal", "specular", "team colour", "metallic
                          // roughness", "occlusion", "emissive", extension_slot(k)
  std::string reference;  // what was looked for: the slot's reference, a sidecar's path, or the name
  std::string source;     // where the reference came from: "material", "material name",
                          // "--texture", "iqm.cfg:LINE" (or an exec'd file, relative to the
                          // model's folder: "../player.cfg:LINE"), "<name>.skin:LINE"
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
  // When not found: the folders searched (as opened, '/'-separated; "." for the current folder)
  // and the names tried in each, in order.
  std::vector<std::string> searched_folders;
  std::vector<std::string> tried_names;
  std::string note;      // e.g. meshes of one material naming different textures in a sidecar

  bool found() const { return image >= 0 || !file.empty(); }
};

// One entry per material slot that names something (in material order, slots in the order
// above), plus sidecar-named slots and material-name fallbacks. Never throws for missing or
// unreadable files; they are reasons.
std::vector<TextureLookup> find_textures(const Scene& scene, const TextureSearch& search);

// The search a writer makes for `options`: model = options.texture_model (else a file in
// options.texture_dir), dirs = options.texture_dirs, assigned = options.texture_assignments.
TextureSearch texture_search(const WriteOptions& options);

// Throws meshport::Error (for `file`, the model) when an assignment names a material the Scene
// does not have (the message lists the ones it has), when one is given but the Scene has no
// material, or when its file does not exist.
void check_texture_assignments(const Scene& scene, const std::vector<TextureAssignment>& assigned,
                               const std::string& file);

// The warning for a material whose textures were not found (docs/textures.md, "Missing
// textures"): "material 'body': texture not found: base colour 'body' (from material name)
// looked for as body, body.png, ... in data/male, textures; ..." naming every slot of
// `material` in `lookups` that was not found, or "" when all were found or none was looked for.
// A material name tried as a file counts only when `names_are_references` (IQM, IQE, QMSH: the
// formats that name a texture by the material's name).
std::string textures_not_found_message(const Scene& scene, int32_t material, const std::vector<TextureLookup>& lookups,
                                       bool names_are_references);

// True when the model at `path` names its textures by its materials' names (IQM, IQE, QMSH).
bool material_names_are_textures(const std::string& model_path);

}  // namespace meshport
