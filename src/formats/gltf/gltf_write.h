// Internal header of the glTF writer (gltf_write*.cpp, one file per concern): the writer's state
// (struct Writer), the buffer that collects buffer views and accessors, and the functions each
// file provides. What is written (and the extras schema) is described at the top of
// gltf_write.cpp. Not for use outside the writer.
#pragma once

#include "core/dmath.h"
#include "core/math.h"
#include "formats/gltf/gltf.h"
#include "formats/gltf/gltf_morph_ranges.h"

#include <meshport/textures.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshport::gltf::write_impl {

using json = nlohmann::json;
static_assert(std::endian::native == std::endian::little, "the glTF writer copies little-endian data as it is");

constexpr int kUByte = 5121, kUShort = 5123, kUInt = 5125, kFloat = 5126;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;
constexpr float kDefaultKeyframeRate = 30.0f;
constexpr const char* kStaticName = "meshport_static";

[[noreturn]] inline void wfail(std::string msg) { fail("", std::move(msg)); }
inline void wwarn(Diagnostics& d, std::string msg) { d.add(warning("", std::move(msg))); }

inline json num(float f) { return json(static_cast<double>(f)); }  // the float's exact value

template <size_t N>
json num_array(const std::array<float, N>& a) {
  json r = json::array();
  for (float f : a) r.push_back(num(f));
  return r;
}

// Percent-encodes everything but RFC 3986 unreserved characters and '/' (gltf_write.cpp).
std::string uri_encode(std::string_view s);

// ---------------------------------------------------------------------------------------------
// Affine matrices in double precision (core/dmath.h), and node transforms (gltf_write_skins.cpp)

using ops::D34;
using ops::d_from_trs;
using ops::d_identity;
using ops::d_inverse;
using ops::d_mul;
// A unit quaternion; one of unit length within float rounding is kept bit for bit (see
// gltf_write_skins.cpp).
Quat unit_quat(Quat q);
// Whether a vector whose squared length is `l2` is of unit length within float rounding
// (|l2 - 1| <= 1e-6): normals, tangents and rotations that are are written bit for bit, so that
// rewriting meshport's own output gives the same bytes (normalising again moves them a float step).
inline bool unit_within_rounding(double l2) { return std::abs(l2 - 1) <= 1e-6; }
// A node's translation / rotation / scale, each omitted when it is the identity.
void put_trs(json& n, const Transform& t);
bool finite(const Transform& t);

// ---------------------------------------------------------------------------------------------
// Buffer, buffer views and accessors (gltf_write.cpp)

// Buffer views and accessors are kept as their JSON text, not as a JSON tree: a Scene of many
// small meshes makes hundreds of thousands of them, and a tree costs about ten times the text
// (a 9 MB IQE of 170,000 one-triangle meshes needed over 1 GB to write as GLB).
struct Buffer {
  std::vector<uint8_t> bin;
  std::string views, accessors;  // the arrays' items, comma-separated
  size_t view_count = 0, accessor_count = 0;

  // WriteOptions::compress (EXT_meshopt_compression, gltf_write_meshopt.cpp): views of elements
  // (stride > 0) hold their data compressed in `bin` and refer to the fallback buffer (buffer 1,
  // no data) of `fallback` bytes.
  bool compress = false;
  uint64_t fallback = 0;

  size_t counted_accessor();
  static void append(std::string& list, const json& item);
  // A new buffer view over `bytes` bytes, starting on a 4-byte boundary. target 0: none.
  // `stride`: the size of an element (0: not elements, e.g. an image), for compression.
  size_t view(const void* data, size_t bytes, int target, size_t stride = 0);
  // The compressed view of `bytes` bytes of `stride`-byte elements, or nothing when they cannot be
  // compressed (gltf_write_meshopt.cpp).
  std::optional<json> compressed_view(const void* data, size_t bytes, int target, size_t stride);
  static const char* type_name(uint32_t components);
  // Float accessor of `values.size() / components` elements; min/max when `bounds`.
  size_t floats(const std::vector<float>& values, uint32_t components, int target, bool bounds,
                const char* type = nullptr);
  // Unsigned integer accessor (ubyte, ushort or uint) from 32-bit values.
  size_t integers(const std::vector<uint32_t>& values, uint32_t components, int component_type, int target);
};

// ---------------------------------------------------------------------------------------------
// The writer

struct Writer {
  Writer(const Scene& s, const WriteOptions& o, const std::string& dir, Diagnostics& d)
      : scene(s), options(o), output_dir(dir), diags(d) {}
  const Scene& scene;
  const WriteOptions& options;
  const std::string& output_dir;  // empty: writing to memory
  Diagnostics& diags;
  bool binary = false;  // .glb

  std::vector<OutputFile> image_files;  // images written beside the output (gltf_write_materials.cpp)
  std::vector<TextureLookup> textures;  // material_textures()

  // PIE polygon materials (gltf_pie_polygons.h): `polygon_base[i]`, Scene material i stands for
  // the plain polygon of a level; `polygon_materials`, the copies the levels' other polygons use
  // (the Scene material and the polygon), written after the Scene's materials.
  std::vector<bool> polygon_base;
  std::vector<std::pair<int32_t, PiePolygon>> polygon_materials;
  std::map<std::pair<int32_t, std::array<uint32_t, 5>>, size_t> polygon_material_index;  // into polygon_materials

  Buffer buf;
  json root;
  json nodes = json::array();
  std::string meshes;  // the meshes array's items as JSON text (as Buffer keeps accessors)
  size_t mesh_count = 0;
  std::vector<size_t> scene_nodes;

  size_t joint_nodes = 0;          // nodes 0 .. joint_nodes-1 are the skeleton
  bool animation_only = false;     // ... synthesised from animation channels
  std::vector<int32_t> parents;    // per skeleton node
  std::vector<Transform> rests;    // per skeleton node
  std::optional<size_t> static_node;
  bool static_is_joint = false;
  bool bad_names = false;
  std::vector<int32_t> gltf_mesh;  // per Scene mesh: its glTF mesh, -1: not written
  std::vector<int32_t> mesh_node;  // per Scene mesh: its node, -1: not written
  std::vector<json> modedef_mesh;  // per Scene mesh: its ModeDef source's extras (gltf_modedef.h), or null
  std::vector<std::optional<MorphRanges>> morph_ranges;  // per Scene mesh: out-of-range weights encoded
  std::vector<std::string> mesh_names;  // per glTF mesh: its name as written
  json animation_extras = json::array();  // per glTF animation: its extras.meshport, with its name

  std::string text(const std::string& s) {
    if (valid_utf8(s)) return s;
    bad_names = true;
    std::string r;
    for (char c : s) r += static_cast<unsigned char>(c) < 0x80 ? c : '?';
    return r;
  }
};

inline bool written(const Mesh& m) { return m.vertex_count() > 0 && !m.triangles.empty(); }

inline bool skinnable(const Writer& w, const Mesh& m) {
  return !w.animation_only && w.joint_nodes > 0 && m.find(Attribute::BlendIndices) && m.find(Attribute::BlendWeights);
}

// ---------------------------------------------------------------------------------------------
// The parts of the document, by the file that writes them

// gltf_write_skins.cpp: skinning influences, the skeleton's nodes, the skin, attachment nodes
struct Influences {
  uint32_t sets = 0;               // JOINTS_n / WEIGHTS_n pairs
  std::vector<uint32_t> joints;    // vertex_count * sets * 4
  std::vector<float> weights;
  size_t unweighted = 0;           // vertices bound to the static joint
  size_t dropped = 0;              // influences on joints outside the skeleton, or negative / not finite
  size_t renormalised = 0;         // vertices whose weights did not sum to 1 (within 1e-3)
};
// Merged, filtered, normalised influences of every vertex; unweighted ones get `static_joint`.
Influences influences(const Mesh& m, size_t num_joints, uint32_t static_joint);
void plan_skeleton(Writer& w);
void emit_skeleton(Writer& w, bool skinned, bool any_unweighted);
json emit_skin(Writer& w);
void emit_attachments(Writer& w);

// gltf_write_materials.cpp: materials, textures, images (embedded in the buffer, as data URIs,
// or as files beside the output in w.image_files); sets root images / textures / extensionsUsed.
json emit_materials(Writer& w);
// find_textures() for the materials written meshes use (the others get no glTF textures).
std::vector<TextureLookup> material_textures(const Scene& s, const WriteOptions& o);
// A copy of `s` with tangents generated (ops) when a mesh without them uses a material whose
// normal map was found (the validator warns about tangent spaces left to the viewer); nothing
// when none does.
// A copy of `s` whose used materials' base colour mapping (texCoord, KHR_texture_transform) is
// baked into the texture coordinates (ops/materials/texture_transform.h, warning) where the base colour
// texture is not found, so not written, and the mapping would be lost with it (gltfpack's
// dequantizing transform of quantized texture coordinates); nothing when there is none.
std::optional<Scene> with_unwritten_mappings_baked(const Scene& s, const std::vector<TextureLookup>& textures,
                                                   Diagnostics& d);
std::optional<Scene> with_normal_map_tangents(const Scene& s, const std::vector<TextureLookup>& textures,
                                              Diagnostics& d);

// A copy of `s` whose PIE levels' triangles that name a vertex twice or share all three vertices
// with another have vertices of their own (ops::separate_repeated_faces), so that Blender, whose
// mesh validation deletes such faces, keeps them (back faces, degenerate polygons); nothing when
// no level has any. Only PIE levels: their point stream keeps every copy on its point.
std::optional<Scene> with_repeated_faces_apart(const Scene& s);

// gltf_write_meshes.cpp: one glTF mesh (and its node) per written Scene mesh
void emit_mesh(Writer& w, size_t mi, const Influences* inf_in);
// The PIE polygon materials the meshes asked for: extras on the levels' own materials, and the
// copies for their other polygons appended to `materials` (the Scene's, as emit_materials made them).
void add_polygon_materials(Writer& w, json& materials);
// The glTF TEXCOORD set each of the mesh's streams is written as, -1 for the others: its Texcoord
// streams in order (0, 1, ...), then its 2-component custom streams "texcoord<n>" (what the reader
// makes of TEXCOORD_n, n > 0) while n is the next set.
std::vector<int> texcoord_sets(const Mesh& m);

// gltf_write_animations.cpp
void emit_animations(Writer& w);

// gltf_write_lods.cpp: MSFT_lod on the nodes of meshes with levels of detail (Mesh::lod)
void emit_lods(Writer& w);

// gltf_write_meshopt.cpp: the root's buffers (the BIN / .bin buffer and, when views were
// compressed, the fallback buffer) and EXT_meshopt_compression in extensionsUsed / Required.
void emit_buffers(Writer& w, json buffer0);
// Adds `name` to the root's `key` list ("extensionsUsed", "extensionsRequired") once.
void list_extension(json& root, const char* key, const char* name);

// gltf_write_extras.cpp: extras.meshport of meshes and primitives, and the document-level one
json stream_entry(Writer& w, const VertexStream& s, const std::string& gltf_name);
json smoothing_json(const SmoothingRules& r);
json format_data_json(const Mesh& m);
// scenes[0].extras.meshport: the document-level data (schema at the top of gltf_write.cpp).
json scene_extras(Writer& w);

}  // namespace meshport::gltf::write_impl
