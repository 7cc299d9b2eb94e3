// What reading and writing take: the formats meshport knows, the limits of what it reads from
// one file, and the options of read() and write(). Below the formats and the processing steps
// (docs/architecture.md): every part of the library may include it; it includes only plain data.
#pragma once

#include <meshport/process.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshport {

class TextureCache;  // src/ops/materials/texture_cache.h: texture files shared by a batch's models

enum class Format { Iqe, Iqm, Gltf, Glb, Obj, Pie, QmshTmp, Qmsh, ModeDefModel, ModeDefProp, ModeDefState, ModeDefPath };

// What meshport reads from one file at most; more is an error naming the file. Real models stay
// far below (thousands of meshes at most); the limits keep a small hostile file from making the
// rest of a conversion huge (docs/limits.md).
inline constexpr size_t kMaxMeshes = size_t(1) << 16;
inline constexpr size_t kMaxMaterials = size_t(1) << 16;
inline constexpr size_t kMaxJoints = size_t(1) << 16;
inline constexpr size_t kMaxAnimations = size_t(1) << 16;
// A glTF/GLB is written with at most this many accessors (an error otherwise): each costs about
// 150 bytes of JSON while it is built.
inline constexpr size_t kMaxGltfAccessors = size_t(1) << 17;
// The memory a reader may build a model into by default (ReadOptions::max_memory, --max-memory),
// unless 12 bytes per input byte + 32 MiB is more: enough for real files that reuse their data
// many times (glTF meshes sharing accessors, instances). Data a file does not hold (glTF
// accessors without a bufferView, counts in compressed streams, copies of images, sampled
// animation curves) stays bounded by the input's size (docs/limits.md, "Memory budget").
inline constexpr uint64_t kDefaultMaxMemory = uint64_t(1) << 30;

// One scene of a glTF file (a file may have several: `info` lists them, `--scene N` picks one).
struct SceneEntry {
  std::string name;
  size_t root_nodes = 0;
  bool is_default = false;  // the file's `scene` (else scenes[0] when it names none)
  bool read = false;        // the one read
};

struct ReadOptions {
  std::optional<Format> format;  // by extension when unset
  // glTF: the scene to read (index into `scenes`); unset: the file's default scene. Other
  // formats have one scene: 0 is accepted, anything else is an error.
  std::optional<uint32_t> scene;
  // glTF: when set, filled with the file's scenes (other formats: left empty).
  std::vector<SceneEntry>* scenes = nullptr;
  // Threads a large file may be read with (IQE of 4 MB or more): 0 uses every core, 1 reads on
  // the calling thread (a batch converting many files at once sets 1 per file). The result is
  // the same for any count.
  unsigned threads = 0;
  // glTF: sample the animation curves at resample.fps, or keep uneven keys (resample.off).
  ResampleOptions resample;
  // glTF: the most memory the reader may build the model into, in bytes (--max-memory); 0: the
  // default, kDefaultMaxMemory or 12 bytes per input byte + 32 MiB, whichever is more. When set,
  // it also bounds what the input alone must justify otherwise (docs/limits.md).
  uint64_t max_memory = 0;
};

// A texture file the user assigns to a material's base colour (convert --texture MATERIAL=FILE),
// where the game does it in code. `material` empty: every material.
struct TextureAssignment {
  std::string material;
  std::string file;  // opened as given (relative to the current folder)
};

struct WriteOptions {
  std::optional<Format> format;  // by extension when unset
  // Write `format` even where the output's extension names another format (else an error).
  bool force_format = false;
  // Folder the materials' relative texture paths are relative to (convert sets it to the first
  // input's folder); a search folder when texture_model is empty. OBJ makes the path relative to
  // the output when found there, else keeps it as stored.
  std::string texture_dir;
  // Finding textures (textures.h find_textures, docs/textures.md, "Finding textures"): the model the Scene was
  // read from (convert sets it to the first input unless that is standard input), whose folder,
  // sidecar files (iqm.cfg, .skin) and layout (Warzone 2100 texpages/) are searched, and further
  // folders searched after the model's own, in order (--textures DIR).
  std::string texture_model;
  std::vector<std::string> texture_dirs;
  // Base colour textures assigned by material name (convert --texture MATERIAL=FILE, FILE for
  // every material): they win over everything the texture finder would find (textures.h).
  std::vector<TextureAssignment> texture_assignments;
  // The glTF writer warns once per material whose textures are not found (docs/textures.md,
  // "Missing textures"); the level-of-detail files convert writes beside the output turn it off.
  bool warn_textures_not_found = true;
  // glTF (docs/textures.md "glTF output"): a .glb embeds its images unless this is set (convert
  // --external-textures); then they are written beside it, as a .gltf always does.
  bool external_textures = false;
  // Texture files read once and shared by several writes (a batch sets it; docs/batch.md,
  // "Texture pages"): the glTF writer reads and converts pages through it, and with
  // external_textures a .glb references the page the cache writes once into the batch's output
  // tree. Null: every write reads its own. Not owned; it must outlive the write.
  TextureCache* texture_cache = nullptr;
  // glTF: compress vertex, index and animation data with EXT_meshopt_compression, losslessly
  // (convert --compress; docs/gltf-obj.md). Other formats refuse it.
  bool compress = false;
  // glTF: bake this team colour (R, G, B) into the base colour page of every material with a team
  // colour mask (Warzone 2100's grain merge, convert --team-colour R,G,B). Unset: the mask is
  // kept only by name in the material's extras.
  std::optional<std::array<uint8_t, 3>> team_colour;
  bool adjacency = true;         // IQM: write triangle adjacency
  bool bounds = true;            // IQM: write per-frame bounds
  int pie_version = 0;           // PIE: 2, 3 or 4; 0: the Scene's source version, else 4
  // Flush each file to the disk before renaming it into place (see write()). A batch turns it
  // off and flushes its output folder's file system once at the end instead.
  bool sync = true;
  // Threads a writer may use on large scenes (IQM: the frame bounds): 0 uses every
  // core, 1 the calling thread only (a batch converting many files at once sets 1). The file is
  // the same for any count.
  unsigned threads = 0;
  // Animations sampled at resample.fps before writing (any format), or never (resample.off: a
  // format of evenly spaced frames refuses uneven keys instead of resampling them at 30 fps).
  ResampleOptions resample;
};

}  // namespace meshport
