// Internal header of the glTF reader (gltf_read*.cpp, one file per concern): the reader's state
// (struct Reader, with its diagnostics and JSON access), the decoded glTF objects, and the
// functions each file provides. The reader's behaviour and its mapping to the Scene are described
// at the top of gltf_read.cpp. Not for use outside the reader.
#pragma once

#include "core/text.h"
#include "formats/gltf/gltf.h"
#include "formats/shared/gltf_json.h"
#include "formats/shared/gltf_pie_polygons.h"
#include <meshport/options.h>
#include "core/math.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshport::gltf::read_impl {

using json = nlohmann::json;
using json_util::field;   // the member of an object, or null (gltf_json.h)
using json_util::narrow;  // a JSON number as float: beyond the float range an infinity (gltf_json.h)
using u128 = unsigned __int128;

constexpr uint32_t kGlbMagic = 0x46546C67;  // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
// The memory budget (docs/limits.md, "Memory budget"). What the Scene may grow to: the limit
// (ReadOptions::max_memory, else kDefaultMaxMemory or this many bytes per byte of input, the file
// and the buffers it loads, plus a fixed allowance, whichever is more). Memory whose size the input
// does not hold (accessors without a bufferView, sampled animation curves, image copies, the JSON
// document) must also fit the proportional part alone, so a small file cannot claim the limit.
constexpr uint64_t kBudgetFactor = 12;
constexpr uint64_t kBudgetSlack = uint64_t(32) << 20;

inline uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// ---- Small JSON helpers (gltf_read.cpp) -----------------------------------------------------

// A short description of a JSON value for messages.
std::string describe(const json& v);
std::optional<uint64_t> as_uint(const json& v);

// ---- Small math (gltf_read_nodes.cpp) -------------------------------------------------------

float det3(const Mat3x4& m);
// Inverse transpose of the 3x3 part (translation 0): transforms normals.
Mat3x4 normal_matrix(const Mat3x4& m);
// A glTF 4x4 column-major matrix as an affine matrix (the bottom row is ignored).
Mat3x4 affine_from_mat4(const float* m);
// Translation, rotation and scale of an affine matrix. A mirroring matrix gets a negative x
// scale. `exact` is false when the matrix has shear (or a zero scale): the rotation is then the
// Gram-Schmidt orthonormalisation of its basis, a best effort.
Transform decompose(const Mat3x4& m, bool& exact);
// Unit quaternion: values within float rounding of unit length are kept bit for bit.
Quat unit(Quat q);

// ---- URIs (gltf_read_buffers.cpp) -----------------------------------------------------------

std::string percent_decode(std::string_view u);

// ---------------------------------------------------------------------------------------------
// Decoded glTF objects

struct View {
  std::span<const uint8_t> bytes;
  uint32_t stride = 0;  // 0: tightly packed
};

struct Accessor {
  std::string path;  // "accessors[3]"
  uint32_t index = 0;
  uint32_t gl_component = 0;
  ComponentType type = ComponentType::Float;
  bool normalized = false;
  std::string type_name;  // "VEC3"
  uint32_t comps = 1;     // values per element
  uint32_t columns = 1;   // matrices: columns of `rows` values, each padded to 4 bytes
  uint32_t rows = 1;
  uint32_t column_stride = 0;
  uint32_t element_size = 0;
  uint64_t count = 0;
  const uint8_t* base = nullptr;  // element i at base + i * stride; null: all zeros
  uint64_t stride = 0;
  struct Sparse {
    uint64_t count = 0;
    ComponentType index_type = ComponentType::UInt;
    const uint8_t* indices = nullptr;
    const uint8_t* values = nullptr;
  };
  std::optional<Sparse> sparse;
};

// One glTF primitive decoded, before instancing.
struct Primitive {
  std::string path;  // "meshes[0].primitives[1]"
  Mesh mesh;
  bool has_blend = false;
  std::string joints_path;  // for messages: the JOINTS_0 accessor
};

struct Node {
  std::string name;
  int32_t parent = -1;
  std::vector<uint32_t> children;
  Mat3x4 local = mat_identity();
  Transform trs;
  bool trs_exact = true;  // false: `matrix` with shear, decomposed best-effort
  bool has_matrix = false;
  std::optional<uint32_t> mesh, skin;
  Mat3x4 world = mat_identity();
  bool active = false;
  int32_t joint = -1;  // Scene joint index
  bool camera = false, light = false;  // has a camera / a KHR_lights_punctual light
  bool attachment = false;             // extras.meshport.attachment
  std::optional<uint32_t> attachment_mesh;  // extras.meshport.mesh: a glTF mesh
  bool is_static = false;              // extras.meshport.static: the writer's meshport_static
  int32_t scene_mesh = -1;             // the Scene mesh of its first primitive, when it has a mesh
};

struct Skin {
  std::vector<int32_t> joints;  // skin-local -> Scene joint; -1: no influence (meshport_static)
  std::vector<Mat3x4> rebind;    // empty when the bind pose is the rest pose: RestWorld_k * IBM_k
};

struct BufferSlot {
  bool loaded = false;
  std::vector<uint8_t> owned;
  std::span<const uint8_t> bytes;
};

// The bytes of a glTF image held in the file (a buffer view, or a base64 data: URI decoded into
// `owned`), checked to be PNG or JPEG (gltf_read_materials.cpp).
struct ImageBytes {
  std::vector<uint8_t> owned;
  std::span<const uint8_t> bytes;
  std::string mime_type;  // "image/png" or "image/jpeg", from the bytes' magic
};

// The Scene images made so far: per (glTF image, file name wanted) the Scene image, the paths
// taken (lower case: unique on case-insensitive file systems too) and the next suffix to try
// per file name wanted.
struct SceneImages {
  std::vector<std::optional<ImageBytes>> bytes;  // per glTF image, once read
  std::vector<uint8_t> tried;                    // per glTF image: read attempted
  std::vector<std::string> why;                  // per glTF image: why it cannot be used, once tried
  std::map<std::pair<uint32_t, std::string>, size_t> of;
  std::map<std::string, size_t> taken;
  std::map<std::string, size_t> next_suffix;
};

// The writer's document-level extras (gltf_write.cpp): scenes[0].extras.meshport, or the root
// extras.meshport of older files.
struct MeshportRoot {
  bool present = false;
  const json* extras = nullptr;  // the object, when present
  std::string path;              // its JSON path
  bool mapped = false;           // `nodes` are the Scene's joints (or an animation-only file's poses)
  std::vector<uint32_t> nodes;   // per Scene joint (pose): its node
  std::vector<int32_t> pose_of;  // per node: its index in `nodes`, -1
  std::optional<uint32_t> static_node;
  bool animation_only = false;
  std::vector<int32_t> written_mesh;  // per glTF mesh index the writer used: the glTF mesh now
};

// ---- JSON access ----------------------------------------------------------------------------

inline const json* meshport_extras(const json& o) {
  const json* e = field(o, "extras");
  return e ? field(*e, "meshport") : nullptr;
}

// ---------------------------------------------------------------------------------------------
// The reader's state: the input, the document, what has been decoded so far and the Scene being
// built. Its member functions report errors (with the JSON path) and read JSON values checked.

struct Reader {
  Reader(std::span<const uint8_t> data, const std::string& name, const SideFileLoader& load, Diagnostics& diags,
         uint64_t max_memory = 0)
      : data(data), name(name), load(load), diags(diags), input_bytes(data.size()), max_memory(max_memory) {}

  std::span<const uint8_t> data;
  const std::string& name;
  const SideFileLoader& load;
  Diagnostics& diags;
  // ---- the memory budget
  uint64_t input_bytes = 0;       // the file and the buffers loaded so far
  uint64_t max_memory = 0;        // ReadOptions::max_memory; 0: the default
  uint64_t spent = 0;             // counted by spend() so far
  uint64_t spent_proportional = 0;  // of which by spend_proportional()
  std::string part;               // the part being read ("meshes[2].primitives[0]"), for out-of-memory errors
  json doc;
  bool glb = false;
  bool has_bin = false;
  std::span<const uint8_t> bin;
  Scene scene;

  std::vector<BufferSlot> buffers;
  std::vector<std::optional<View>> views;
  std::vector<std::unique_ptr<Accessor>> accessors;
  std::map<uint32_t, std::vector<float>> shared_floats;  // shared_floats(): per accessor, decoded once
  std::vector<Node> nodes;
  std::vector<uint32_t> topo;  // parents before children
  std::vector<std::vector<Primitive>> meshes;
  std::vector<std::optional<PolygonMaterial>> polygon_materials;  // per glTF material (gltf_pie_polygons.h)
  std::vector<int32_t> mesh_scene;  // per glTF mesh: the Scene mesh of its first instance's first primitive
  std::vector<Skin> skins;
  MeshportRoot mp;
  SceneImages images;
  std::optional<uint32_t> scene_choice;        // --scene N
  ResampleOptions resample;                    // --resample FPS|off (gltf_read_animations.cpp)
  // MSFT_lod (read_lod_nodes), kept out of Node (whose size the memory budget counts per node):
  // per node with the extension, the level nodes its ids list; per level node read as one, its
  // level (1, 2, ...) and base node.
  std::map<uint32_t, std::vector<uint32_t>> lod_ids;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> lod_levels;
  std::vector<SceneEntry>* scene_list = nullptr;  // filled with the file's scenes when set
  std::vector<std::vector<uint8_t>> decoded_views;  // EXT/KHR_meshopt_compression data (gltf_read_meshopt.cpp)
  std::map<uint32_t, Accessor> draco_accessors;     // the Draco primitive being read (gltf_read_draco.cpp)

  // ---- diagnostics
  [[noreturn]] void error(const std::string& path, const std::string& msg) const {
    fail(name, fmt::format("{}: {}", path, msg));
  }
  void warn(std::string msg) { diags.add(warning(name, std::move(msg))); }
  // The budget's two limits (the comment at kBudgetFactor).
  uint64_t proportional_limit() const {
    return max_memory ? max_memory : input_bytes * kBudgetFactor + kBudgetSlack;
  }
  uint64_t limit() const { return max_memory ? max_memory : std::max(kDefaultMaxMemory, proportional_limit()); }
  uint64_t remaining() const { return limit() > spent ? limit() - spent : 0; }
  uint64_t remaining_proportional() const {
    const uint64_t l = proportional_limit();
    return std::min(remaining(), l > spent_proportional ? l - spent_proportional : 0);
  }
  // What the limit is, and the option that raises it, for messages.
  std::string limit_text() const {
    if (max_memory) return fmt::format("the {} bytes --max-memory allows; --max-memory raises it", max_memory);
    return fmt::format("the {} a read may use (1 GiB, or 12 bytes per byte of the input and 32 MiB when that is "
                       "more; the input is {} bytes with the buffers it loads); --max-memory raises it",
                       limit(), input_bytes);
  }
  // Counts `bytes` against the budget; fails, quoting what remains of it, when they do not fit.
  void spend(u128 bytes, const std::string& path, std::string_view what) {
    check_temporary(bytes, path, what);
    spent += uint64_t(bytes);
  }
  // Fails, as spend(), when `bytes` would not fit, without counting them: memory freed again before
  // the next part is read.
  // `reserved`: bytes of the budget already promised to what is about to be built.
  void check_temporary(u128 bytes, const std::string& path, std::string_view what, u128 reserved = 0) const {
    const u128 left = reserved < remaining() ? remaining() - reserved : 0;
    if (bytes > left)
      error(path, fmt::format("{} would need {} bytes of memory, but only {} bytes remain of {}", what,
                              text::u128_string(bytes), text::u128_string(left), limit_text()));
  }
  // spend() for memory whose size the input does not hold: it must fit the proportional part too.
  void spend_proportional(u128 bytes, const std::string& path, std::string_view what) {
    if (bytes > remaining_proportional() && !max_memory)
      error(path, fmt::format("{} would need {} bytes of memory, but only {} bytes remain of the {} that the input "
                              "({} bytes with the buffers it loads) can justify for data it does not hold; "
                              "--max-memory raises it",
                              what, text::u128_string(bytes), remaining_proportional(), proportional_limit(),
                              input_bytes));
    spend(bytes, path, what);
    spent_proportional += uint64_t(bytes);
  }
  // A buffer file loaded: the input grows.
  void add_input(uint64_t bytes) { input_bytes += bytes; }

  // ---- JSON access
  const json& top(const char* key) const {
    static const json empty = json::array();
    const json* v = field(doc, key);
    if (!v) return empty;
    if (!v->is_array()) error(key, fmt::format("is {}, not an array", v->type_name()));
    return *v;
  }
  const json& object_at(const json& arr, size_t i, const std::string& path) const {
    const json& v = arr[i];
    if (!v.is_object()) error(path, fmt::format("is {}, not an object", v.type_name()));
    return v;
  }
  const json& element(const char* array, size_t i) const {
    return object_at(top(array), i, fmt::format("{}[{}]", array, i));
  }
  uint64_t get_uint(const json& o, const char* key, const std::string& path, std::optional<uint64_t> def) const {
    const json* v = field(o, key);
    if (!v) {
      if (def) return *def;
      error(path, fmt::format("the required property '{}' is missing", key));
    }
    auto u = as_uint(*v);
    if (!u) error(fmt::format("{}.{}", path, key), fmt::format("{} is not a non-negative integer", describe(*v)));
    return *u;
  }
  double get_number(const json& o, const char* key, const std::string& path, double def) const {
    const json* v = field(o, key);
    if (!v) return def;
    if (!v->is_number()) error(fmt::format("{}.{}", path, key), fmt::format("{} is not a number", describe(*v)));
    return v->get<double>();
  }
  bool get_bool(const json& o, const char* key, const std::string& path, bool def) const {
    const json* v = field(o, key);
    if (!v) return def;
    if (!v->is_boolean()) error(fmt::format("{}.{}", path, key), fmt::format("{} is not a boolean", describe(*v)));
    return v->get<bool>();
  }
  // A boolean of meshport's extras: true / false, or 1 / 0 as Blender writes booleans back.
  bool get_flag(const json& o, const char* key, const std::string& path, bool def) const {
    const json* v = field(o, key);
    if (!v) return def;
    if (v->is_number() && (v->get<double>() == 0 || v->get<double>() == 1)) return v->get<double>() == 1;
    return get_bool(o, key, path, def);
  }
  std::string get_string(const json& o, const char* key, const std::string& path, bool required = false) const {
    const json* v = field(o, key);
    if (!v) {
      if (required) error(path, fmt::format("the required property '{}' is missing", key));
      return {};
    }
    if (!v->is_string()) error(fmt::format("{}.{}", path, key), fmt::format("{} is not a string", describe(*v)));
    return v->get<std::string>();
  }
  uint32_t check_index(uint64_t v, const std::string& path, const char* array) const {
    size_t n = top(array).size();
    if (v >= n) error(path, fmt::format("{}[{}] does not exist (the file has {})", array, v, n));
    return uint32_t(v);
  }
  uint32_t get_index(const json& o, const char* key, const std::string& path, const char* array) const {
    return check_index(get_uint(o, key, path, std::nullopt), fmt::format("{}.{}", path, key), array);
  }
  std::optional<uint32_t> opt_index(const json& o, const char* key, const std::string& path, const char* array) const {
    if (!field(o, key)) return std::nullopt;
    return get_index(o, key, path, array);
  }
  // A fixed-size array of numbers.
  bool get_floats(const json& o, const char* key, const std::string& path, float* out, size_t n) const {
    const json* v = field(o, key);
    if (!v) return false;
    std::string p = fmt::format("{}.{}", path, key);
    if (!v->is_array() || v->size() != n) error(p, fmt::format("is not an array of {} numbers", n));
    for (size_t i = 0; i < n; ++i) {
      if (!(*v)[i].is_number()) error(fmt::format("{}[{}]", p, i), fmt::format("{} is not a number", describe((*v)[i])));
      out[i] = narrow((*v)[i].get<double>());
    }
    return true;
  }
  const json& get_array(const json& o, const char* key, const std::string& path) const {
    static const json empty = json::array();
    const json* v = field(o, key);
    if (!v) return empty;
    if (!v->is_array()) error(fmt::format("{}.{}", path, key), fmt::format("is {}, not an array", v->type_name()));
    return *v;
  }
};

// ---------------------------------------------------------------------------------------------
// The stages, in the order run() calls them, by the file that defines them

// gltf_read.cpp: GLB framing, JSON, asset; the whole file
void split_glb(Reader& rd);
void parse_json(Reader& rd, std::span<const uint8_t> text, int64_t file_offset);
void check_asset(Reader& rd);
Scene run(Reader& rd);

// gltf_read_buffers.cpp: buffers, buffer views, accessors (read within the memory budget)
std::span<const uint8_t> buffer(Reader& rd, uint32_t i);
const View& view(Reader& rd, uint32_t i);
const Accessor& accessor(Reader& rd, uint32_t i);
inline const Accessor& accessor_at(Reader& rd, const json& o, const char* key, const std::string& path) {
  return accessor(rd, rd.get_index(o, key, path, "accessors"));
}
std::vector<float> floats(Reader& rd, const Accessor& a);
// floats(), decoded and counted once per accessor and kept: for vertex arrays several primitives
// share, each taking only the vertices its indices use.
const std::vector<float>& shared_floats(Reader& rd, const Accessor& a);
std::vector<uint32_t> indices(Reader& rd, const Accessor& a, const std::string& use);

// gltf_read_meshopt.cpp: a buffer view with EXT_meshopt_compression or KHR_meshopt_compression,
// decoded (its layout is the view's); nothing when it has neither. `len` and `stride` are the
// view's byteLength and byteStride (0: none).
std::optional<View> meshopt_view(Reader& rd, const json& v, const std::string& path, uint64_t len, uint64_t stride);
// True when buffer `b` is a meshopt fallback buffer (extensions.*_meshopt_compression.fallback).
bool meshopt_fallback(const json& b);

// gltf_read_draco.cpp: while a primitive with KHR_draco_mesh_compression is read, its accessors
// (attributes and indices) are the decoded data (Reader::draco_accessors, which accessor()
// returns first); nothing for other primitives.
struct DracoScope {
  DracoScope(Reader& rd, const json& prim, const std::string& path);
  ~DracoScope() { rd.draco_accessors.clear(); }
  DracoScope(const DracoScope&) = delete;
  DracoScope& operator=(const DracoScope&) = delete;
  Reader& rd;
  std::vector<std::vector<uint8_t>> data;
};

// gltf_read_materials.cpp
void read_materials(Reader& rd);
// KHR_materials_variants of a primitive (Mesh::material_variants); read_materials read the names.
void read_variant_mappings(Reader& rd, const json& prim, const std::string& path, Mesh& m);
std::string texture_name(Reader& rd, uint32_t texture);
// The bytes of glTF image `i` when they are in the file and are a PNG or JPEG as declared; null
// (with a warning saying why) otherwise.
const ImageBytes* image_bytes(Reader& rd, uint32_t i);

// gltf_read_nodes.cpp: nodes, skins and the skeleton, attachments
void read_nodes(Reader& rd);
void read_node_extras(Reader& rd, Node& node, const json& o, const std::string& path);
void read_lod_nodes(Reader& rd);  // MSFT_lod level nodes of active nodes: activated, levels set
void read_skeleton(Reader& rd);
bool is_attachment(const Reader& rd, uint32_t n);
Attachment attachment(Reader& rd, uint32_t n);
void read_attachments(Reader& rd);
// Node animation: a static mesh instance of node `n` under a joint (the node itself or its
// nearest joint ancestor) is bound to that joint rigidly (blend index = the joint, weight 1).
void bind_to_joint(Reader& rd, uint32_t n, Mesh& m);

// gltf_read_meshes.cpp: meshes, primitives, morph targets, instancing
// Scene components: positions and normals at least 3, tangents 4.
uint32_t scene_components(Attribute a, uint32_t size);
Primitive read_primitive(Reader& rd, uint32_t m, uint32_t p, const json& mesh, const json& prim, bool compact);
void read_meshes(Reader& rd);
void instance_meshes(Reader& rd);
// gltf_read_instancing.cpp: node n's EXT_mesh_gpu_instancing as Scene instances (empty: none).
std::vector<Transform> read_instances(Reader& rd, uint32_t n);

// gltf_read_pie_polygons.cpp: PIE polygon materials (gltf_pie_polygons.h)
// rd.polygon_materials from the materials' extras (a malformed one is a warning, not a polygon).
void read_polygon_materials(Reader& rd);
// Whether every primitive of glTF mesh `mesh` uses a polygon material, all of one level material.
bool polygon_mesh(const Reader& rd, const json& mesh);
// The primitives of a polygon mesh (read) joined into one, each triangle's polygon from its
// material, in the first order when the mesh extras' channels give it; the mesh extras' other
// data when it fits.
void join_polygon_primitives(Reader& rd, uint32_t m, const json& mesh);
// After instance_meshes: meshes of a polygon material use its level material (made from a
// polygon material when the file has none of that name), and the polygon materials go.
void resolve_polygon_materials(Reader& rd);

// gltf_read_animations.cpp
void read_animations(Reader& rd);
void read_animation(Reader& rd, uint32_t a);
// Per node: an animation channel moves it (translation, rotation or scale). Malformed channels
// are skipped here; read_animation reports them.
std::vector<bool> animated_nodes(const Reader& rd);

// gltf_read_meshes.cpp: moves a skinned mesh's vertices (positions, normals, tangents, morph
// deltas) by the blend of `rebind[j]` over its influences j (`joints`, when given: skip j whose
// entry is negative). Vertices without influences stay.
void rebind_vertices(Mesh& m, const std::vector<Mat3x4>& rebind, const std::vector<int32_t>* joints);

// gltf_read_extras.cpp: the writer's extras.meshport (restore_*), joint rests
void read_root_extras(Reader& rd);
void map_extras_nodes(Reader& rd, const json& mp, uint64_t count);
void map_extras_meshes(Reader& rd, const json& mp);
const json* kept_animation_extras(Reader& rd, uint32_t ai, const std::string& name);
void rebase_joints(Reader& rd);
void restore_animation_order(Reader& rd);
void restore_primitive(Reader& rd, Mesh& m, const std::vector<std::string>& keys, const json& mp,
                       const std::string& path);
// `polygon_materials`: the mesh's primitives use PIE polygon materials (gltf_pie_polygons.h), which
// give its "pie.*" face channels when the kept ones do not fit.
void restore_format_data(Reader& rd, Mesh& m, const json& mp, const std::string& path, bool polygon_materials = false);
void restore_extras(Reader& rd);
void restore_pie(Reader& rd, const json& mp);

// gltf_read_morph_ranges.cpp: mesh extras.meshport.morph_ranges (gltf_morph_ranges.h): the "+"
// and "-" targets of out-of-range weights merged back into the Scene's targets and tracks.
void restore_morph_ranges(Reader& rd);

}  // namespace meshport::gltf::read_impl
