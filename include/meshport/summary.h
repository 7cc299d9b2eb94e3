// meshport: what `meshport info` reports about a Scene, as plain numbers (summarize), as JSON
// (`info --json`) and as text (`info`). Implementation: src/summary*.cpp.
#pragma once

#include <meshport/meshport.h>
#include <meshport/textures.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshport {

struct MeshSummary {
  std::string name;
  std::string material;                 // its material's name, "" for none
  size_t vertices = 0;
  size_t triangles = 0;
  std::vector<std::string> attributes;  // "position", "texcoord", ... ; custom streams by name
  size_t morph_targets = 0;
  size_t lines = 0, points = 0;  // a Lines / Points mesh (Mesh::topology): its elements (triangles 0)
  size_t instances = 0;          // GPU instances (Mesh::instances); 0: drawn once
  uint32_t lod = 0;              // level of detail n > 0 (Mesh::lod) of the mesh named `lod_of`
  std::string lod_of;
};

// Where the skinned vertices go over all frames of one animation (process.h frame_bounds).
struct AnimationBoundsSummary {
  std::array<float, 3> min{0, 0, 0};
  std::array<float, 3> max{0, 0, 0};
  float radius = 0;
};

struct AnimationSummary {
  std::string name;
  size_t frames = 0;  // pose frames; for an animation of morph weights only, the most keys of its tracks
  float framerate = 0;
  bool loop = false;
  Interpolation interpolation = Interpolation::Linear;
  size_t morph_weight_tracks = 0;
  size_t morph_weight_keys = 0;  // the most keys of any morph weight track
  std::vector<float> times;      // key times in seconds when the frames are unevenly spaced
  std::optional<AnimationBoundsSummary> bounds;  // when the animation has frames and the Scene meshes
};

struct AttachmentSummary {
  std::string name;
  std::array<float, 3> translation{0, 0, 0};
  std::optional<std::string> mesh;   // the mesh it belongs to, when it names one
  std::optional<std::string> joint;  // the joint it follows, when it names one
};

struct ExtensionSummary {  // an IQM extension
  std::string name;
  size_t bytes = 0;
};

// ---- per format --------------------------------------------------------------------------------

struct PieTextureSummary {
  std::string directive;  // TEXTURE, TCMASK, NORMALMAP, SPECULARMAP
  int32_t tileset = 0;
  std::string file;
};

struct PieEventSummary {
  int32_t type = 0;
  std::string file;
};

struct PieAnimObjectSummary {
  int32_t time_ms = 0;
  int32_t cycles = 0;  // 0: looping
  size_t frames = 0;
};

struct PieShadowSummary {
  size_t points = 0;
  size_t polygons = 0;
};

struct PieLevelSummary {
  std::string mesh;     // the level's mesh name, "" for none
  std::string comment;  // the LEVEL line's comment
  size_t points = 0;
  size_t polygons = 0;  // its mesh's triangles (one "pie.flags" entry each)
  bool normals = false;
  size_t connectors = 0;  // attachments on its mesh or joint
  std::optional<uint32_t> type;             // PIE 4 TYPE override
  std::vector<PieTextureSummary> textures;  // PIE 4 texture overrides
  size_t texture_animated_polygons = 0;     // flag 0x4000 in "pie.flags"
  std::optional<PieAnimObjectSummary> animobject;
  std::optional<PieShadowSummary> shadow;
};

struct PieSummary {
  int32_t version = 0;
  uint32_t type = 0;
  std::optional<int32_t> interpolate;
  std::vector<PieTextureSummary> textures;
  std::vector<PieEventSummary> events;
  std::vector<PieLevelSummary> levels;
};

struct QmshSummary {  // TFQMSH10
  bool tangents = false;
  bool skinning = false;
  float radius = 0;
  std::vector<float> animation_lengths;  // seconds
};

struct QmshTmpObjectSummary {
  std::string mesh;
  size_t vertices = 0;
  size_t faces = 0;
  std::vector<std::string> materials;
  float auto_smooth_angle = 0;  // degrees
};

struct QmshTmpArmatureSummary {
  std::string name;
  size_t bones = 0;
};

struct QmshTmpActionSummary {
  std::string name;
  size_t channels = 0;
  size_t curves = 0;
};

struct QmshTmpSummary {  // QMSH TMP 10
  std::vector<QmshTmpObjectSummary> objects;
  std::optional<QmshTmpArmatureSummary> armature;
  std::vector<QmshTmpActionSummary> actions;
  std::optional<int32_t> fps;  // the last `fps` in params
};

struct ModeDefModeSummary {
  float eigenvalue = 0;
  float frequency_hz = 0;  // modal.h mode_frequency
};

struct ModeDefModelSummary {
  std::string file;
  std::vector<ModeDefModeSummary> modes;
  size_t nodes = 0, vertices = 0, normals = 0, texcoords = 0, faces = 0, materials = 0, groups = 0, tetrahedra = 0;
  bool carton = false;
  ModeDefIndexing indexing;  // index bases and FEND style
};

struct ModeDefPropSummary {
  std::string file;
  std::string model_file;
  float mass = 0;
  float scale = 0;
  bool rigid_body = false;
  bool deform = false;
};

struct ModeDefPathSummary {
  std::string file;
  size_t translation_keys = 0;
  size_t rotation_keys = 0;
};

struct ModeDefObjectSummary {
  std::string prop;
  std::string path;
  float birth = 0, death = 0;
};

struct ModeDefStateSummary {
  int32_t fps = 0;
  bool use_penalty = false;
  std::array<float, 3> gravity{0, 0, 0};
  float friction = 0;
  std::vector<ModeDefObjectSummary> objects;
  size_t planes = 0;
  size_t constraints = 0;
};

struct ModeDefSummary {
  ModeDefData::Kind kind = ModeDefData::Kind::Model;
  std::vector<ModeDefModelSummary> models;
  std::vector<ModeDefPropSummary> props;
  std::vector<ModeDefPathSummary> paths;
  std::optional<ModeDefStateSummary> state;  // kind == State
};

// ---- the whole report --------------------------------------------------------------------------

struct Summary {
  std::string file;  // shown by to_text() in its first line; summarize() leaves it empty
  Format format = Format::Iqe;
  std::vector<MeshSummary> meshes;
  size_t vertices = 0;   // all meshes
  size_t triangles = 0;  // all meshes
  size_t joints = 0;
  std::vector<AnimationSummary> animations;
  Bounds bounds;  // rest pose, Scene convention
  std::vector<std::string> materials;
  size_t comment_bytes = 0;
  std::vector<ExtensionSummary> extensions;
  std::vector<AttachmentSummary> attachments;
  std::optional<PieSummary> pie;
  std::optional<QmshSummary> qmsh;
  std::optional<QmshTmpSummary> qmsh_tmp;
  std::optional<ModeDefSummary> modedef;
  // Where each material's textures were found (textures.h find_textures); summarize() leaves it
  // unset (it reads no files), `meshport info` sets it. to_text() and to_json() show it when set.
  std::optional<std::vector<TextureLookup>> textures;
  // A glTF file's scenes (ReadOptions::scenes); `meshport info` sets it, shown when it has more
  // than one.
  std::vector<SceneEntry> scenes;
};

// The numbers of `scene`, read as `format`. Each animation's bounds (AnimationSummary::bounds)
// skin every vertex in every frame, the most of the work on a large model; to_json() shows them
// and to_text() does not, so `meshport info` without --json asks for none
// (animation_bounds = false leaves them unset).
Summary summarize(const Scene& scene, Format format, bool animation_bounds = true);

// `meshport info --json`: one object (floats as their shortest decimal form; README, The CLI).
nlohmann::json to_json(const Summary& summary);

// `meshport info`: lines ending in '\n', the first "FILE: FORMAT (DESCRIPTION)" ("FORMAT
// (DESCRIPTION)" when `file` is empty).
std::string to_text(const Summary& summary);

// The names of the formats that can be read (or written): "iqe, iqm, ...", from formats().
std::string format_names(bool writable);

// `meshport formats`: a header line and one line per format of formats().
std::string formats_text();

// `meshport formats --json`: an array with one object per format of formats(): name,
// description, extensions, can_read, can_write, family and "holds", its capabilities by name
// (formats.h capability_list).
nlohmann::json formats_json();

// The table of docs/formats.md, "What each format holds": one row per capability, one column per
// format family (FormatInfo::family, in table order), "yes" or "no" in each cell.
std::string capabilities_markdown();

}  // namespace meshport
