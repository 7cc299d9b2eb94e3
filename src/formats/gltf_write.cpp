// glTF 2.0 writer: .gltf (JSON, with a .bin beside it or the buffer as a base64 data URI) and
// .glb (binary). Specification: Khronos glTF 2.0. The output is meant to pass the Khronos glTF
// Validator with no errors (tests/gltf_validate).
//
// ===== Layout of what is written =====
// - nodes[0 .. J-1]: the Scene's joints, in Scene order (node j = Scene::joints[j]); name, children
//   from Joint::parent, translation / rotation / scale from Joint::rest, each omitted when it is
//   the identity. A Scene without joints whose animations have channels (an animation-only
//   file) gets J synthesised nodes "pose N" instead, with identity rest and parents from
//   Scene::iqm.pose_parents when it has one per channel (extras: "animation_only").
// - nodes[J] (only when needed): "meshport_static", identity transform, the parent of every root
//   joint. glTF requires (and the validator checks) that a skin's joints have a common root; this
//   node is that root when the skeleton has several. Vertices of a skinned mesh without any
//   weight (IQM: they stay at rest) are bound to it with weight 1: it never moves, so they stay
//   where they are, as in IQM. It is a skin joint (the last one) only when such vertices exist.
// - then one node per written mesh (named after the mesh, no transform; skinned meshes reference
//   the skin). scenes[0].nodes: the mesh nodes, then the root joints (or meshport_static), then
//   the root attachments.
// - then one node per Scene attachment, in Scene order (they are the last nodes): name, translation
//   / rotation / scale from Attachment::transform (each omitted when the identity; a rotation of
//   unit length within float rounding is written bit for bit; a transform that is not finite is
//   written as the identity with a warning). Its parent is the joint's node when Attachment::joint
//   >= 0 (the transform is relative to the joint, as in the Scene), else the node of its mesh when
//   the mesh was written (mesh nodes have identity transforms, so the model-space transform stays
//   model space), else it is a scene root. Empty nodes: the validator reports them as information
//   (NODE_EMPTY), not as warnings.
// - meshes: one per Scene mesh with vertices and triangles (others are skipped with a warning),
//   one triangle primitive each; Scene winding (counter-clockwise) is glTF's, so indices are
//   written as they are (UNSIGNED_SHORT up to 65535 vertices, as 65535 is that type's primitive
//   restart value, UNSIGNED_INT above); vertices keep their order. Attributes: POSITION (with
//   min/max), NORMAL (renormalised; zero ones (0, 1, 0)), TANGENT (xyz renormalised, w +-1),
//   TEXCOORD_n (2 components), COLOR_n (VEC3 or VEC4, clamped to 0..1), JOINTS_n / WEIGHTS_n
//   (ubyte or ushort joints, float weights, 4 influences per set), custom arrays as "_NAME"
//   (float, 1 to 4 components), all float; values that are not finite are written as 0.
// - skins: at most one, over every joint (plus meshport_static when a vertex is bound to it),
//   inverse bind matrices = inverse rest world matrices (computed in double), skeleton = the
//   common root. Written only when a mesh is skinned.
// - materials: one per Scene material, pbrMetallicRoughness with metallicFactor 0 (game models are
//   not metals), baseColorFactor = Material::base_color when it is not (1, 1, 1, 1) (each value
//   clamped to 0..1, a value that is not finite written as 1), and a baseColorTexture when the
//   texture is a PNG or JPEG file found in WriteOptions::texture_dir (referenced by a relative URI
//   from the output folder).
// - animations: one per Scene animation with frames; per joint, translation / rotation / scale
//   channels (LINEAR, or STEP when Animation::interpolation is Step (PIE's INTERPOLATE 0);
//   keyframe f at time f / framerate, or f / 30 when the framerate is 0) except
//   those whose every frame equals the joint's rest value exactly; at least one channel is kept.
//   An animation with Animation::times (unevenly spaced keys, binary QMSH) has keyframe f at
//   times[f] instead, when it has one time per frame, finite, >= 0 and strictly increasing as
//   glTF requires (otherwise f / framerate, with a warning).
//   Animation::morph_weights: one "weights" channel per track on the node of its mesh (LINEAR,
//   input = the track's times, output = its weights, non-finite ones 0); a track whose mesh is not
//   written or has no morph targets, without keys, starting before time 0, or animating a mesh
//   another track of the animation already animates is skipped with a warning. An animation
//   with morph weight tracks and no frames (channels 0) has only weights channels; one with
//   frames also has its joint channels. An animation with neither is not written.
// - rotations (joint rests, attachments, animation keys) are normalised, except that one of unit
//   length within float rounding (|length^2 - 1| <= 1e-6) is written bit for bit.
// - one buffer; one buffer view per accessor, each starting on a 4-byte boundary, no byteStride.
//
// ===== Extras: what glTF cannot say, for a meshport reader to restore the Scene =====
// Every meshport object lives under the key "meshport" of an `extras` object. Floats are the
// exact float values (JSON doubles); absent keys take the default in brackets.
//
// scenes[0].extras.meshport, always written (scenes[0] too, even without nodes): the document-
// level data, where Blender keeps it (it drops the root extras, where files written before
// issue 16 had it; readers still take those):
//   "version": 1                      schema version
//   "joint_nodes": J                  nodes 0..J-1 are Scene::joints in order [0]
//   "joints": [string]                the names of nodes 0..J-1 as written: a reader finds the
//                                     joints by name where a tool reordered the nodes
//   "joint_rests": [[tx ty tz qx qy qz qw sx sy sz]]   per joint its rest as written (not for
//                                     animation-only files): a reader undoes a tool's
//                                     re-orientation of the bones (Blender's)
//   "static_node": n                  index of the meshport_static node, when written; a reader
//                                     drops it (its children become roots) and treats influences
//                                     on it as no influence (the vertex is unweighted)
//   "animation_only": true            nodes 0..J-1 were synthesised for animations of a Scene
//                                     without joints: Scene::joints stays empty [false]
//   "meshes": [string]                the glTF meshes' names in order: maps the glTF mesh
//                                     indices below (PIE levels, attachments) where a tool
//                                     reordered the meshes
//   "animations": [object]            per glTF animation its extras.meshport (below) and "name",
//                                     "frames" (count), "interpolation" ("step" | "linear"), and
//                                     "times" as the list of key times when the animation has
//                                     its own: Blender drops animation extras and resamples
//   "comment": string                 Scene::comment when it is valid UTF-8 [""]
//   "comment_base64": string          Scene::comment as base64 when it is not valid UTF-8
//   "iqm_extensions": [{"name": string, "data": base64 string}]   Scene::iqm.extensions [[]]
//   "iqm_pose_parents": [int]         Scene::iqm.pose_parents [[]]
//   "pie": object                     Scene::pie when the Scene came from PIE, schema in
//                                     gltf_pie.h; its levels name glTF meshes (-1 for a level
//                                     without a written mesh), which a reader maps back to its
//                                     Scene meshes
//   "modedef": object                 Scene::modedef, schema in gltf_modedef.h (with the mesh
//                                     extras' "modedef")
// Blender keeps 32-bit signed integers only (a larger one turns the whole object into a
// string): uint32 words from 2^31 up (face channels, PIE TYPE) are written as the int32 of the
// same bits.
// Node meshport_static: extras.meshport = {"static": true}.
// Attachment nodes: extras.meshport = {"attachment": true, "mesh": the glTF mesh of
//   Attachment::mesh}; "mesh" is omitted when the attachment has no mesh or its mesh was not
//   written (then the attachment is read back with mesh -1, and the writer warns).
// Material extras.meshport: {"name": Material::name, "base_color_texture": the texture string as
//   the Scene had it} (both always written, possibly "").
// Mesh extras: {"targetNames": [MorphTarget::name]} when the mesh has morph targets (the common
//   glTF convention); mesh.weights = Mesh::morph_weights when not empty. Mesh extras.meshport
//   (mesh level, which Blender keeps, unlike primitive extras), when the mesh has any:
//   "face_channels": [{"name": FaceChannel::name, "components": uint, "data": [uint]}]
//                                     Mesh::face_channels, one tuple per triangle of the
//                                     primitive in index order
//   "format_streams": [{"name": string, "components": uint, "data": [float]}]
//                                     the format streams (is_format_stream, scene.h: "pie.point"),
//                                     one tuple per vertex, not written as glTF attributes
// Mesh primitive extras.meshport:
//   "streams": one entry per VertexStream written, in the Scene's stream order:
//     {"attribute": "position" | "texcoord" | "normal" | "tangent" | "blendindexes" |
//                   "blendweights" | "color" | "custom",
//      "gltf": the glTF attribute holding it: "POSITION", "TEXCOORD_n", "COLOR_n", "_NAME", and
//              for blend streams the first set, "JOINTS_0" / "WEIGHTS_0",
//      "sets": number of JOINTS_n / WEIGHTS_n sets (blend streams only),
//      "format": VertexStream::format in IQM spelling ("byte" "ubyte" "short" "ushort" "int"
//                "uint" "half" "float" "double"),
//      "source_size": VertexStream::source_size,
//      "components": VertexStream::components,
//      "name": VertexStream::name (custom streams only),
//      "custom_slot": VertexStream::custom_slot (only when >= 0)}
//     glTF's own data is float whatever "format" says (joints ubyte / ushort); a writer of a
//     format with component types uses "format" and "source_size" to encode as the source did.
//     "components" tells padding from data: a 1- or 2-component colour is written as VEC3, and a
//     texture coordinate or custom array wider than glTF allows (2 / 4) lost the rest.
//     Blend streams: influences are written merged (a joint listed twice gets the sum), without
//     zero weights and out-of-range joints, normalised to sum 1, in their original order;
//     unweighted vertices use the static node (see above).
//   "polygon_sizes": [uint]           Mesh::polygon_sizes [[]]
//   "smoothing": {"face_group": [int], "face_angle": [float], "face_uv": [0|1],
//                 "corner_edge": [0|1], "vertex_key": [int]}   Mesh::smoothing; each key only
//                                     when its vector is not empty; the object only when any is
// Animation extras.meshport:
//   "framerate": Animation::framerate (may be 0), "keyframe_rate": the frames per second of the
//   keyframe times (the framerate, or 30 when it is not positive and finite), "loop": bool,
//   "channels": Animation::channels. A joint without a channel for a path keeps its rest value
//   in every frame.
//   "times": true                     the keyframe times are Animation::times (one key per
//                                     frame, shared by every sampler), not f / keyframe_rate; a
//                                     reader restores them and takes frame f at key f [false]
#include "formats/gltf.h"

#include "formats/gltf_modedef.h"
#include "formats/gltf_pie.h"
#include "ops/check.h"
#include "ops/components.h"
#include "ops/math.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

namespace meshport::gltf {

namespace {

using json = nlohmann::json;
static_assert(std::endian::native == std::endian::little, "the glTF writer copies little-endian data as it is");

constexpr int kUByte = 5121, kUShort = 5123, kUInt = 5125, kFloat = 5126;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;
constexpr float kDefaultKeyframeRate = 30.0f;
constexpr const char* kStaticName = "meshport_static";

[[noreturn]] void wfail(std::string msg) { fail("", std::move(msg)); }
void wwarn(Diagnostics& d, std::string msg) { d.add(warning("", std::move(msg))); }

json num(float f) { return json(static_cast<double>(f)); }  // the float's exact value

template <size_t N>
json num_array(const std::array<float, N>& a) {
  json r = json::array();
  for (float f : a) r.push_back(num(f));
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Text helpers (gltf.h)

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n;  // continuation bytes
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c >> 5) == 0x6) {
      n = 1, cp = c & 0x1F;
    } else if ((c >> 4) == 0xE) {
      n = 2, cp = c & 0x0F;
    } else if ((c >> 3) == 0x1E) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

std::string base64_encode(const uint8_t* p, size_t n) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string r;
  r.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = uint32_t(p[i]) << 16;
    if (i + 1 < n) v |= uint32_t(p[i + 1]) << 8;
    if (i + 2 < n) v |= p[i + 2];
    r += t[(v >> 18) & 63];
    r += t[(v >> 12) & 63];
    r += i + 1 < n ? t[(v >> 6) & 63] : '=';
    r += i + 2 < n ? t[v & 63] : '=';
  }
  return r;
}

namespace {

// Percent-encodes everything but RFC 3986 unreserved characters and '/'.
std::string uri_encode(std::string_view s) {
  std::string r;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
      r += ch;
    else
      r += fmt::format("%{:02X}", c);
  }
  return r;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

// glTF application-specific attribute name: "_" + upper case, other characters '_'.
std::string custom_attribute(const VertexStream& s) {
  std::string base = !s.name.empty()             ? s.name
                     : s.custom_slot >= 0 ? fmt::format("custom{}", s.custom_slot)
                                          : std::string("custom");
  std::string r = "_";
  for (char ch : base) {
    const auto c = static_cast<unsigned char>(ch);
    r += std::isalnum(c) && c < 0x80 ? char(std::toupper(c)) : '_';
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Affine matrices in double precision (column-major 3x4, as ops/math.h)

using D34 = std::array<double, 12>;

D34 d_identity() { return {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}; }

D34 d_from_trs(const Transform& t) {
  double x = t.rotation[0], y = t.rotation[1], z = t.rotation[2], w = t.rotation[3];
  const double l = std::sqrt(x * x + y * y + z * z + w * w);
  if (l > 0) x /= l, y /= l, z /= l, w /= l;
  else x = y = z = 0, w = 1;
  D34 m{1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
        2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
        2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y),
        t.translation[0],        t.translation[1],        t.translation[2]};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m[c * 3 + r] *= t.scale[c];
  return m;
}

D34 d_mul(const D34& a, const D34& b) {
  D34 m{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) {
      double v = a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2];
      if (c == 3) v += a[9 + r];
      m[c * 3 + r] = v;
    }
  return m;
}

D34 d_inverse(const D34& m) {
  const double a00 = m[0], a10 = m[1], a20 = m[2], a01 = m[3], a11 = m[4], a21 = m[5], a02 = m[6], a12 = m[7],
               a22 = m[8];
  const double c00 = a11 * a22 - a12 * a21, c01 = a02 * a21 - a01 * a22, c02 = a01 * a12 - a02 * a11;
  const double det = a00 * c00 + a10 * c01 + a20 * c02;
  if (det == 0.0 || !std::isfinite(det)) return d_identity();
  const double inv = 1.0 / det;
  D34 r{};
  r[0] = c00 * inv;
  r[3] = c01 * inv;
  r[6] = c02 * inv;
  r[1] = (a12 * a20 - a10 * a22) * inv;
  r[4] = (a00 * a22 - a02 * a20) * inv;
  r[7] = (a02 * a10 - a00 * a12) * inv;
  r[2] = (a10 * a21 - a11 * a20) * inv;
  r[5] = (a01 * a20 - a00 * a21) * inv;
  r[8] = (a00 * a11 - a01 * a10) * inv;
  for (int row = 0; row < 3; ++row) r[9 + row] = -(r[row] * m[9] + r[3 + row] * m[10] + r[6 + row] * m[11]);
  return r;
}

// A quaternion normalised in double; the identity when it has no length or is not finite. One of
// unit length within float rounding (|length^2 - 1| <= 1e-6) is kept bit for bit, so that a
// reader gets the Scene's values back exactly.
Quat unit_quat(Quat q) {
  const double l2 = double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3];
  const double l = std::sqrt(l2);
  if (!(l > 0) || !std::isfinite(l)) return {0, 0, 0, 1};
  if (std::fabs(l2 - 1) <= 1e-6) return q;
  Quat r;
  for (int c = 0; c < 4; ++c) r[c] = std::clamp(float(q[c] / l), -1.0f, 1.0f);
  return r;
}

// A node's translation / rotation / scale, each omitted when it is the identity.
void put_trs(json& n, const Transform& t) {
  if (t.translation != std::array<float, 3>{0, 0, 0}) n["translation"] = num_array(t.translation);
  if (t.rotation != std::array<float, 4>{0, 0, 0, 1}) n["rotation"] = num_array(unit_quat(t.rotation));
  if (t.scale != std::array<float, 3>{1, 1, 1}) n["scale"] = num_array(t.scale);
}

bool finite(const Transform& t) {
  auto ok = [](auto& a) { return std::all_of(a.begin(), a.end(), [](float f) { return std::isfinite(f); }); };
  return ok(t.translation) && ok(t.rotation) && ok(t.scale);
}

// ---------------------------------------------------------------------------------------------
// Buffer, buffer views and accessors

// Buffer views and accessors are kept as their JSON text, not as a JSON tree: a Scene of many
// small meshes makes hundreds of thousands of them, and a tree costs about ten times the text
// (a 9 MB IQE of 170,000 one-triangle meshes needed over 1 GB to write as GLB).
struct Buffer {
  std::vector<uint8_t> bin;
  std::string views, accessors;  // the arrays' items, comma-separated
  size_t view_count = 0, accessor_count = 0;

  size_t counted_accessor() {
    if (accessor_count == kMaxGltfAccessors)
      wfail(fmt::format("the Scene needs more than {} glTF accessors, meshport's limit for one glTF file",
                        kMaxGltfAccessors));
    return accessor_count++;
  }

  static void append(std::string& list, const json& item) {
    if (!list.empty()) list += ',';
    list += item.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  // A new buffer view over `bytes` bytes, starting on a 4-byte boundary. target 0: none.
  size_t view(const void* data, size_t bytes, int target) {
    while (bin.size() % 4) bin.push_back(0);
    json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", bytes}};
    if (target) v["target"] = target;
    const auto* p = static_cast<const uint8_t*>(data);
    bin.insert(bin.end(), p, p + bytes);
    append(views, v);
    return view_count++;
  }

  static const char* type_name(uint32_t components) {
    switch (components) {
      case 1: return "SCALAR";
      case 2: return "VEC2";
      case 3: return "VEC3";
      case 4: return "VEC4";
      case 16: return "MAT4";
    }
    return "SCALAR";
  }

  // Float accessor of `values.size() / components` elements; min/max when `bounds`.
  size_t floats(const std::vector<float>& values, uint32_t components, int target, bool bounds,
                const char* type = nullptr) {
    const size_t count = values.size() / components;
    json a = {{"bufferView", view(values.data(), values.size() * 4, target)},
              {"componentType", kFloat},
              {"count", count},
              {"type", type ? type : type_name(components)}};
    if (bounds) {
      std::vector<float> lo(components, std::numeric_limits<float>::infinity()),
          hi(components, -std::numeric_limits<float>::infinity());
      for (size_t i = 0; i < values.size(); ++i) {
        lo[i % components] = std::min(lo[i % components], values[i]);
        hi[i % components] = std::max(hi[i % components], values[i]);
      }
      a["min"] = json::array();
      a["max"] = json::array();
      for (uint32_t c = 0; c < components; ++c) {
        a["min"].push_back(num(lo[c]));
        a["max"].push_back(num(hi[c]));
      }
    }
    append(accessors, a);
    return counted_accessor();
  }

  // Unsigned integer accessor (ubyte, ushort or uint) from 32-bit values.
  size_t integers(const std::vector<uint32_t>& values, uint32_t components, int component_type, int target) {
    std::vector<uint8_t> bytes;
    const size_t size = component_type == kUByte ? 1 : component_type == kUShort ? 2 : 4;
    bytes.resize(values.size() * size);
    for (size_t i = 0; i < values.size(); ++i) {
      if (size == 1) bytes[i] = uint8_t(values[i]);
      if (size == 2) {
        const auto v = uint16_t(values[i]);
        std::memcpy(bytes.data() + i * 2, &v, 2);
      }
      if (size == 4) std::memcpy(bytes.data() + i * 4, &values[i], 4);
    }
    json a = {{"bufferView", view(bytes.data(), bytes.size(), target)},
              {"componentType", component_type},
              {"count", values.size() / components},
              {"type", type_name(components)}};
    append(accessors, a);
    return counted_accessor();
  }
};

// The root object as JSON text appended to `out` (after `reserve` further bytes), with `arrays`
// (key, the items of an array as JSON text) merged in key order, as the tree's own dump orders
// its keys. Each array's text is released once copied, so the peak is about one copy.
void dump_root(const json& root, std::vector<std::pair<std::string, std::string>> arrays, std::vector<uint8_t>& out,
               size_t reserve) {
  struct Part {
    std::string key, text;
    bool array;
  };
  std::vector<Part> parts;
  for (auto& [key, items] : arrays) parts.push_back({key, std::move(items), true});
  for (const auto& [key, value] : root.items())
    parts.push_back({key, value.dump(-1, ' ', false, json::error_handler_t::replace), false});
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.key < b.key; });
  size_t size = out.size() + reserve + 2;
  for (const Part& p : parts) size += p.key.size() + p.text.size() + 6;
  out.reserve(size);
  const auto put = [&out](std::string_view t) { out.insert(out.end(), t.begin(), t.end()); };
  put("{");
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) put(",");
    put(json(parts[i].key).dump());
    put(parts[i].array ? ":[" : ":");
    put(parts[i].text);
    if (parts[i].array) put("]");
    parts[i].text = std::string();
  }
  put("}");
}

// ---------------------------------------------------------------------------------------------
// The writer

struct Writer {
  Writer(const Scene& s, const WriteOptions& o, const std::string& dir, Diagnostics& d)
      : scene(s), options(o), output_dir(dir), diags(d) {}
  const Scene& scene;
  const WriteOptions& options;
  const std::string& output_dir;
  Diagnostics& diags;

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

bool written(const Mesh& m) { return m.vertex_count() > 0 && !m.triangles.empty(); }

bool skinnable(const Writer& w, const Mesh& m) {
  return !w.animation_only && w.joint_nodes > 0 && m.find(Attribute::BlendIndices) && m.find(Attribute::BlendWeights);
}

// ---- Skinning influences -------------------------------------------------------------------

struct Influences {
  uint32_t sets = 0;               // JOINTS_n / WEIGHTS_n pairs
  std::vector<uint32_t> joints;    // vertex_count * sets * 4
  std::vector<float> weights;
  size_t unweighted = 0;           // vertices bound to the static joint
  size_t dropped = 0;              // influences on joints outside the skeleton, or negative / not finite
  size_t renormalised = 0;         // vertices whose weights did not sum to 1 (within 1e-3)
};

// Merged, filtered, normalised influences of every vertex; unweighted ones get `static_joint`.
Influences influences(const Mesh& m, size_t num_joints, uint32_t static_joint) {
  const VertexStream& bi = *m.find(Attribute::BlendIndices);
  const VertexStream& bw = *m.find(Attribute::BlendWeights);
  const size_t nv = m.vertex_count();
  const uint32_t k = std::max(1u, std::min(bi.components, bw.components));
  Influences r;
  // Pass 1: each vertex's merged list in a flat k-wide slot array.
  std::vector<uint32_t> fj(nv * k);
  std::vector<double> fw(nv * k);
  std::vector<uint32_t> count(nv);
  size_t widest = 1;
  for (size_t v = 0; v < nv; ++v) {
    uint32_t* lj = fj.data() + v * k;
    double* lw = fw.data() + v * k;
    uint32_t n = 0;
    for (uint32_t c = 0; c < std::min(bi.components, bw.components); ++c) {
      const float j = bi.data[v * bi.components + c];
      const float wt = bw.data[v * bw.components + c];
      if (wt == 0) continue;
      if (!(wt > 0) || !std::isfinite(wt) || !(j >= 0) || j >= float(num_joints) || j != std::floor(j)) {
        ++r.dropped;
        continue;
      }
      const auto ji = static_cast<uint32_t>(j);
      uint32_t e = 0;
      while (e < n && lj[e] != ji) ++e;
      if (e < n) {
        lw[e] += wt;
      } else {
        lj[n] = ji;
        lw[n++] = wt;
      }
    }
    double sum = 0;
    for (uint32_t e = 0; e < n; ++e) sum += lw[e];
    if (n == 0 || !(sum > 0)) {
      lj[0] = static_joint;
      lw[0] = 1.0;
      count[v] = 1;
      ++r.unweighted;
      continue;
    }
    if (std::fabs(sum - 1.0) > 1e-3) ++r.renormalised;
    for (uint32_t e = 0; e < n; ++e) lw[e] /= sum;
    count[v] = n;
    widest = std::max<size_t>(widest, n);
  }
  // Pass 2: slot s of a vertex is set s / 4, component s % 4; unused slots joint 0, weight 0.
  r.sets = uint32_t((widest + 3) / 4);
  const size_t slots = size_t(r.sets) * 4;
  r.joints.assign(nv * slots, 0);
  r.weights.assign(nv * slots, 0.0f);
  for (size_t v = 0; v < nv; ++v) {
    uint32_t* oj = r.joints.data() + v * slots;
    float* ow = r.weights.data() + v * slots;
    size_t largest = 0;
    for (size_t e = 0; e < count[v]; ++e) {
      oj[e] = fj[v * k + e];
      ow[e] = float(fw[v * k + e]);
      if (ow[e] > ow[largest]) largest = e;
    }
    // Make the float sum, accumulated as the validator does (component-major across sets), 1.
    for (int pass = 0; pass < 4; ++pass) {
      float sum = 0;
      for (size_t c = 0; c < 4; ++c)
        for (size_t set = 0; set < r.sets; ++set) sum += ow[set * 4 + c];
      if (sum == 1.0f) break;
      ow[largest] = std::max(0.0f, ow[largest] + (1.0f - sum));
    }
  }
  return r;
}

// Interleaves slot data (vertex-major, sets * 4 per vertex) into set `set`'s VEC4 array.
template <class T>
std::vector<T> set_values(const std::vector<T>& all, size_t nv, uint32_t sets, uint32_t set) {
  std::vector<T> r(nv * 4);
  for (size_t v = 0; v < nv; ++v)
    for (uint32_t c = 0; c < 4; ++c) r[v * 4 + c] = all[(v * sets + set) * 4 + c];
  return r;
}

// ---- Skeleton ------------------------------------------------------------------------------

void plan_skeleton(Writer& w) {
  const Scene& s = w.scene;
  if (!s.joints.empty()) {
    w.joint_nodes = s.joints.size();
    for (const Joint& j : s.joints) {
      w.parents.push_back(j.parent);
      w.rests.push_back(j.rest);
    }
    return;
  }
  uint32_t channels = 0;
  for (const Animation& a : s.animations)
    if (a.frame_count()) channels = std::max(channels, a.channels);
  if (!channels) return;
  w.animation_only = true;
  w.joint_nodes = channels;
  w.parents.assign(channels, -1);
  w.rests.assign(channels, Transform{});
  if (value_or_empty(s.iqm).pose_parents.size() == channels) {
    for (uint32_t p = 0; p < channels; ++p)
      if (value_or_empty(s.iqm).pose_parents[p] >= -1 && value_or_empty(s.iqm).pose_parents[p] < int32_t(p)) w.parents[p] = value_or_empty(s.iqm).pose_parents[p];
  }
  wwarn(w.diags, fmt::format("the Scene has no skeleton: the animations' {} channels animate nodes named \"pose N\" "
                             "with identity rest transforms",
                             channels));
}

void emit_skeleton(Writer& w, bool skinned, bool any_unweighted) {
  const Scene& s = w.scene;
  size_t bad = 0;
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    json n = json::object();
    n["name"] = w.animation_only ? fmt::format("pose {}", j) : w.text(s.joints[j].name);
    Transform t = w.rests[j];
    if (!finite(t)) {
      ++bad;
      t = Transform{};
      w.rests[j] = t;
    }
    put_trs(n, t);
    w.nodes.push_back(std::move(n));
  }
  if (bad) wwarn(w.diags, fmt::format("{} joints have rest transforms that are not finite: written as the identity", bad));
  size_t roots = 0;
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    if (w.parents[j] >= 0)
      w.nodes[size_t(w.parents[j])]["children"].push_back(j);
    else
      ++roots;
  }
  // A skin's joints need a common root: meshport_static when there are several roots, or
  // when unweighted vertices are bound to it.
  if (skinned && (roots > 1 || any_unweighted)) {
    w.static_node = w.nodes.size();
    w.static_is_joint = any_unweighted;
    json n = {{"name", kStaticName}, {"children", json::array()}, {"extras", {{"meshport", {{"static", true}}}}}};
    for (size_t j = 0; j < w.joint_nodes; ++j)
      if (w.parents[j] < 0) n["children"].push_back(j);
    w.nodes.push_back(std::move(n));
    w.scene_nodes.push_back(*w.static_node);
  } else {
    for (size_t j = 0; j < w.joint_nodes; ++j)
      if (w.parents[j] < 0) w.scene_nodes.push_back(j);
  }
}

json emit_skin(Writer& w) {
  std::vector<D34> world(w.joint_nodes);
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    const D34 local = d_from_trs(w.rests[j]);
    world[j] = w.parents[j] >= 0 ? d_mul(world[size_t(w.parents[j])], local) : local;
  }
  json joints = json::array();
  std::vector<float> ibm;
  auto push = [&](const D34& inv) {
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 3; ++r) ibm.push_back(float(inv[c * 3 + r]));
      ibm.push_back(c == 3 ? 1.0f : 0.0f);
    }
  };
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    joints.push_back(j);
    push(d_inverse(world[j]));
  }
  if (w.static_is_joint) {
    joints.push_back(*w.static_node);
    push(d_identity());
  }
  json skin = {{"joints", joints}, {"inverseBindMatrices", w.buf.floats(ibm, 16, 0, false, "MAT4")}};
  if (w.static_node) {
    skin["skeleton"] = *w.static_node;
  } else {
    for (size_t j = 0; j < w.joint_nodes; ++j)
      if (w.parents[j] < 0) skin["skeleton"] = j;  // the only root
  }
  return skin;
}

// ---- Materials -----------------------------------------------------------------------------

enum class ImageKind { None, Png, Jpeg };

ImageKind image_kind(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  unsigned char b[8] = {};
  f.read(reinterpret_cast<char*>(b), 8);
  if (f.gcount() >= 8 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') return ImageKind::Png;
  if (f.gcount() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return ImageKind::Jpeg;
  return ImageKind::None;
}

// The image URI for a material's texture, or nothing (with a warning saying why).
std::optional<std::pair<std::string, ImageKind>> texture_uri(Writer& w, const Material& m) {
  namespace fs = std::filesystem;
  const std::string& tex = m.base_color_texture;
  auto skip = [&](const std::string& why) -> std::optional<std::pair<std::string, ImageKind>> {
    wwarn(w.diags, fmt::format("material '{}': texture '{}' not referenced: {}", m.name, tex, why));
    return std::nullopt;
  };
  if (tex.find("://") != std::string::npos || tex.rfind("data:", 0) == 0) return skip("only files are referenced");
  if (!ends_with_ci(tex, ".png") && !ends_with_ci(tex, ".jpg") && !ends_with_ci(tex, ".jpeg"))
    return skip("glTF images are PNG or JPEG");
  if (w.output_dir.empty()) return skip("writing to memory, there is no folder to reference it from");
  std::string rel = tex;
  std::replace(rel.begin(), rel.end(), '\\', '/');
  std::error_code ec;
  const fs::path base = w.options.texture_dir.empty() ? fs::path(".") : fs::path(w.options.texture_dir);
  const fs::path file = fs::absolute(base / fs::path(rel), ec).lexically_normal();
  if (ec || !fs::is_regular_file(file, ec))
    return skip(fmt::format("no such file in the texture folder '{}'", base.string()));
  const ImageKind kind = image_kind(file);
  if (kind == ImageKind::None) return skip("the file is not a PNG or JPEG image");
  const fs::path out = fs::absolute(fs::path(w.output_dir), ec).lexically_normal();
  fs::path r = ec ? fs::path() : file.lexically_relative(out);
  if (r.empty()) return skip("it cannot be reached by a relative path from the output folder");
  return std::make_pair(uri_encode(r.generic_string()), kind);
}

json emit_materials(Writer& w) {
  const Scene& s = w.scene;
  // A material's texture needs texture coordinates in every mesh that uses it.
  std::vector<std::string> lacking(s.materials.size());
  for (const Mesh& m : s.meshes)
    if (written(m) && m.material >= 0 && !m.find(Attribute::Texcoord) && lacking[size_t(m.material)].empty())
      lacking[size_t(m.material)] = m.name.empty() ? std::string("(unnamed)") : m.name;
  json materials = json::array();
  json images = json::array();
  json textures = json::array();
  std::vector<std::string> image_uris;
  for (size_t i = 0; i < s.materials.size(); ++i) {
    const Material& m = s.materials[i];
    json pbr = {{"metallicFactor", 0.0}};
    if (m.base_color != std::array<float, 4>{1, 1, 1, 1}) {
      json factor = json::array();
      for (float c : m.base_color) factor.push_back(std::isfinite(c) ? num(std::clamp(c, 0.0f, 1.0f)) : json(1.0));
      pbr["baseColorFactor"] = std::move(factor);
    }
    if (!m.base_color_texture.empty()) {
      if (!lacking[i].empty()) {
        wwarn(w.diags, fmt::format("material '{}': texture '{}' not referenced: mesh '{}' has no texture coordinates",
                                   m.name, m.base_color_texture, lacking[i]));
      } else if (auto uri = texture_uri(w, m)) {
        auto it = std::find(image_uris.begin(), image_uris.end(), uri->first);
        if (it == image_uris.end()) {
          image_uris.push_back(uri->first);
          images.push_back({{"uri", uri->first}, {"mimeType", uri->second == ImageKind::Png ? "image/png" : "image/jpeg"}});
          textures.push_back({{"source", images.size() - 1}});
          it = image_uris.end() - 1;
        }
        pbr["baseColorTexture"] = {{"index", size_t(it - image_uris.begin())}};
      }
    }
    json mat = json::object();
    if (!m.name.empty()) mat["name"] = w.text(m.name);
    mat["pbrMetallicRoughness"] = pbr;
    mat["extras"] = {{"meshport", {{"name", w.text(m.name)}, {"base_color_texture", w.text(m.base_color_texture)}}}};
    materials.push_back(std::move(mat));
  }
  if (!images.empty()) {
    w.root["images"] = std::move(images);
    w.root["textures"] = std::move(textures);
  }
  return materials;
}

// ---- Meshes --------------------------------------------------------------------------------

// A stream's values as `n` floats per vertex (missing components `fill`, except a 4th of 1 for
// colours), non-finite values replaced by 0 (counted).
std::vector<float> stream_floats(const VertexStream& s, uint32_t n, size_t& non_finite) {
  const size_t nv = s.vertex_count();
  std::vector<float> r(nv * n);
  for (size_t v = 0; v < nv; ++v)
    for (uint32_t c = 0; c < n; ++c) {
      float x = s.get(v, c, (c == 3 && (s.attribute == Attribute::Color || s.attribute == Attribute::Tangent)) ? 1.0f : 0.0f);
      if (!std::isfinite(x)) {
        x = 0;
        ++non_finite;
      }
      r[v * n + c] = x;
    }
  return r;
}

json stream_entry(Writer& w, const VertexStream& s, const std::string& gltf_name) {
  json e = {{"attribute", attribute_name(s.attribute)},
            {"gltf", gltf_name},
            {"format", ops::component_name(s.format)},
            {"source_size", s.source_size},
            {"components", s.components}};
  if (s.attribute == Attribute::Custom) e["name"] = w.text(s.name);
  if (s.custom_slot >= 0) e["custom_slot"] = s.custom_slot;
  return e;
}

json smoothing_json(const SmoothingRules& r) {
  json o = json::object();
  if (!r.face_group.empty()) o["face_group"] = r.face_group;
  if (!r.face_angle.empty()) {
    json a = json::array();
    for (float f : r.face_angle) a.push_back(std::isfinite(f) ? num(f) : json(180.0));
    o["face_angle"] = std::move(a);
  }
  if (!r.face_uv.empty()) o["face_uv"] = r.face_uv;
  if (!r.corner_edge.empty()) o["corner_edge"] = r.corner_edge;
  if (!r.vertex_key.empty()) o["vertex_key"] = r.vertex_key;
  return o;
}

// Mesh extras.meshport of a mesh's face channels and format streams (schema at the top), or null.
// A uint32 as Blender can keep it: its custom properties hold 32-bit signed integers, and one
// value beyond makes it drop the whole extras object; words from 2^31 up are written as the
// int32 of the same bits (readers take -2^31..2^32-1 modulo 2^32).
json word(uint32_t v) { return v <= uint32_t(INT32_MAX) ? json(v) : json(int32_t(v)); }

json format_data_json(const Mesh& m) {
  json mp = json::object();
  if (!m.face_channels.empty()) {
    json channels = json::array();
    for (const FaceChannel& c : m.face_channels) {
      json data = json::array();
      for (uint32_t v : c.data) data.push_back(word(v));
      channels.push_back({{"name", c.name}, {"components", c.components}, {"data", std::move(data)}});
    }
    mp["face_channels"] = std::move(channels);
  }
  json streams = json::array();
  for (const VertexStream& st : m.streams) {
    if (!is_format_stream(st)) continue;
    json data = json::array();
    for (float f : st.data) data.push_back(std::isfinite(f) ? num(f) : json(0.0));
    streams.push_back({{"name", st.name}, {"components", st.components}, {"data", std::move(data)}});
  }
  if (!streams.empty()) mp["format_streams"] = std::move(streams);
  return mp.empty() ? json() : mp;
}

// `inf_in`: the mesh's influences when it is skinned.
void emit_mesh(Writer& w, size_t mi, const Influences* inf_in) {
  const Scene& s = w.scene;
  const Mesh& m = s.meshes[mi];
  const size_t nv = m.vertex_count();
  const std::string label = fmt::format("mesh {} ('{}')", mi, m.name);
  json attributes = json::object();
  json streams = json::array();
  size_t non_finite = 0;
  uint32_t texcoords = 0, colors = 0;
  bool has_position = false, has_normal = false, has_tangent = false, has_blend = false;
  uint32_t blend_sets = 0;
  std::set<std::string> customs;
  const bool skinned = inf_in != nullptr;  // skinnable(w, m)
  if (!skinned && (m.find(Attribute::BlendIndices) || m.find(Attribute::BlendWeights)))
    wwarn(w.diags, fmt::format("{}: blend indices and weights not written: {}", label,
                               w.joint_nodes == 0 || w.animation_only ? "the Scene has no skeleton"
                                                                      : "the mesh lacks one of the two"));
  auto ignored = [&](const VertexStream& st) {
    wwarn(w.diags, fmt::format("{}: a second {} stream is not written", label, attribute_name(st.attribute)));
  };
  for (const VertexStream& st : m.streams) {
    switch (st.attribute) {
      case Attribute::Position: {
        if (has_position) {
          ignored(st);
          break;
        }
        has_position = true;
        attributes["POSITION"] = w.buf.floats(stream_floats(st, 3, non_finite), 3, kArrayBuffer, true);
        streams.push_back(stream_entry(w, st, "POSITION"));
        break;
      }
      case Attribute::Normal: {
        if (has_normal) {
          ignored(st);
          break;
        }
        has_normal = true;
        std::vector<float> n = stream_floats(st, 3, non_finite);
        size_t zero = 0;
        for (size_t v = 0; v < nv; ++v) {
          Vec3 x{n[v * 3], n[v * 3 + 1], n[v * 3 + 2]};
          const double l = std::sqrt(double(x[0]) * x[0] + double(x[1]) * x[1] + double(x[2]) * x[2]);
          if (!(l > 0)) {
            ++zero;
            x = {0, 1, 0};
          } else {
            for (int c = 0; c < 3; ++c) x[c] = float(x[c] / l);
          }
          std::copy(x.begin(), x.end(), n.begin() + long(v * 3));
        }
        if (zero) wwarn(w.diags, fmt::format("{}: {} zero-length normals written as (0, 1, 0)", label, zero));
        attributes["NORMAL"] = w.buf.floats(n, 3, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, "NORMAL"));
        break;
      }
      case Attribute::Tangent: {
        if (has_tangent) {
          ignored(st);
          break;
        }
        has_tangent = true;
        std::vector<float> t = stream_floats(st, 4, non_finite);
        size_t zero = 0, sign = 0;
        for (size_t v = 0; v < nv; ++v) {
          float* x = t.data() + v * 4;
          const double l = std::sqrt(double(x[0]) * x[0] + double(x[1]) * x[1] + double(x[2]) * x[2]);
          if (!(l > 0)) {
            ++zero;
            x[0] = 1, x[1] = 0, x[2] = 0;
          } else {
            for (int c = 0; c < 3; ++c) x[c] = float(x[c] / l);
          }
          if (x[3] != 1.0f && x[3] != -1.0f) {
            ++sign;
            x[3] = x[3] < 0 ? -1.0f : 1.0f;
          }
        }
        if (zero) wwarn(w.diags, fmt::format("{}: {} zero-length tangents written as (1, 0, 0)", label, zero));
        if (sign) wwarn(w.diags, fmt::format("{}: {} tangent handedness values that are not +-1 written as their sign",
                                             label, sign));
        attributes["TANGENT"] = w.buf.floats(t, 4, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, "TANGENT"));
        break;
      }
      case Attribute::Texcoord: {
        const std::string name = fmt::format("TEXCOORD_{}", texcoords++);
        if (st.components > 2)
          wwarn(w.diags, fmt::format("{}: texture coordinates have {} components; glTF keeps 2", label, st.components));
        attributes[name] = w.buf.floats(stream_floats(st, 2, non_finite), 2, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, name));
        break;
      }
      case Attribute::Color: {
        const std::string name = fmt::format("COLOR_{}", colors++);
        const uint32_t n = st.components >= 4 ? 4 : 3;
        if (st.components > 4)
          wwarn(w.diags, fmt::format("{}: colours have {} components; glTF keeps 4", label, st.components));
        std::vector<float> c = stream_floats(st, n, non_finite);
        size_t clamped = 0;
        for (float& x : c)
          if (x < 0 || x > 1) {
            x = std::clamp(x, 0.0f, 1.0f);
            ++clamped;
          }
        if (clamped) wwarn(w.diags, fmt::format("{}: {} colour values outside 0..1 clamped", label, clamped));
        attributes[name] = w.buf.floats(c, n, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, name));
        break;
      }
      case Attribute::Custom: {
        if (is_format_stream(st)) break;  // in the mesh extras (format_streams_json)
        std::string name = custom_attribute(st);
        if (customs.count(name)) {
          size_t k = 2;
          while (customs.count(fmt::format("{}_{}", name, k))) ++k;
          name = fmt::format("{}_{}", name, k);
        }
        customs.insert(name);
        const uint32_t n = std::clamp(st.components, 1u, 4u);
        if (st.components > 4)
          wwarn(w.diags, fmt::format("{}: custom array '{}' has {} components; glTF keeps 4", label, st.name,
                                     st.components));
        attributes[name] = w.buf.floats(stream_floats(st, n, non_finite), n, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, name));
        break;
      }
      case Attribute::BlendIndices:
      case Attribute::BlendWeights: {
        if (!skinned) break;
        if (m.find(st.attribute) != &st) {
          ignored(st);
          break;
        }
        if (!has_blend) {  // both streams are written at the first of them
          has_blend = true;
          const Influences& inf = *inf_in;
          if (inf.dropped)
            wwarn(w.diags, fmt::format("{}: {} influences on joints outside the skeleton ({} joints) or with negative "
                                       "or non-finite weights not written",
                                       label, inf.dropped, w.joint_nodes));
          if (inf.renormalised)
            wwarn(w.diags, fmt::format("{}: the weights of {} vertices did not sum to 1 and were renormalised", label,
                                       inf.renormalised));
          const size_t skin_joints = w.joint_nodes + (w.static_is_joint ? 1 : 0);
          if (skin_joints > 65536)
            wfail(fmt::format("{} joints are more than glTF joint indices can hold", skin_joints));
          const int jtype = skin_joints <= 256 ? kUByte : kUShort;
          blend_sets = inf.sets;
          for (uint32_t set = 0; set < inf.sets; ++set) {
            attributes[fmt::format("JOINTS_{}", set)] =
                w.buf.integers(set_values(inf.joints, nv, inf.sets, set), 4, jtype, kArrayBuffer);
            attributes[fmt::format("WEIGHTS_{}", set)] =
                w.buf.floats(set_values(inf.weights, nv, inf.sets, set), 4, kArrayBuffer, false);
          }
        }
        json e = stream_entry(w, st, st.attribute == Attribute::BlendIndices ? "JOINTS_0" : "WEIGHTS_0");
        e["sets"] = blend_sets;
        streams.push_back(std::move(e));
        break;
      }
    }
  }

  json prim = {{"attributes", attributes}, {"mode", 4}};
  {
    const bool wide = nv > 65535;  // 65535 is the primitive restart value of UNSIGNED_SHORT
    prim["indices"] = w.buf.integers(m.triangles, 1, wide ? kUInt : kUShort, kElementArrayBuffer);
  }
  if (m.material >= 0) prim["material"] = m.material;

  json mesh = json::object();
  if (!m.name.empty()) mesh["name"] = w.text(m.name);
  if (!m.morph_targets.empty()) {
    json targets = json::array();
    json names = json::array();
    size_t dropped_normals = 0;
    for (const MorphTarget& t : m.morph_targets) {
      json tj = json::object();
      auto sanitize = [&](const std::vector<float>& in) {
        std::vector<float> r(nv * 3, 0.0f);
        for (size_t i = 0; i < in.size(); ++i) {
          r[i] = in[i];
          if (!std::isfinite(r[i])) {
            r[i] = 0;
            ++non_finite;
          }
        }
        return r;
      };
      if (!t.positions.empty() || t.normals.empty() || !has_normal)
        tj["POSITION"] = w.buf.floats(sanitize(t.positions), 3, kArrayBuffer, true);
      if (!t.normals.empty()) {
        if (has_normal)
          tj["NORMAL"] = w.buf.floats(sanitize(t.normals), 3, kArrayBuffer, false);
        else
          ++dropped_normals;
      }
      targets.push_back(std::move(tj));
      names.push_back(w.text(t.name));
    }
    if (dropped_normals)
      wwarn(w.diags, fmt::format("{}: normal displacements of {} morph targets not written: the mesh has no normals",
                                 label, dropped_normals));
    prim["targets"] = std::move(targets);
    if (!m.morph_weights.empty()) {
      json weights = json::array();
      for (size_t k = 0; k < m.morph_targets.size(); ++k) {
        const float x = k < m.morph_weights.size() ? m.morph_weights[k] : 0.0f;
        weights.push_back(std::isfinite(x) ? num(x) : json(0.0));
      }
      if (m.morph_weights.size() != m.morph_targets.size())
        wwarn(w.diags, fmt::format("{}: {} morph weights for {} targets; written as {}", label, m.morph_weights.size(),
                                   m.morph_targets.size(), m.morph_targets.size()));
      mesh["weights"] = std::move(weights);
    }
    mesh["extras"] = {{"targetNames", std::move(names)}};
  }
  if (json fd = format_data_json(m); !fd.is_null()) mesh["extras"]["meshport"] = std::move(fd);
  if (non_finite) wwarn(w.diags, fmt::format("{}: {} values that are not finite written as 0", label, non_finite));
  if (mi < w.modedef_mesh.size() && !w.modedef_mesh[mi].is_null())
    mesh["extras"]["meshport"]["modedef"] = std::move(w.modedef_mesh[mi]);
  json extras = {{"streams", std::move(streams)}};
  if (!m.polygon_sizes.empty()) extras["polygon_sizes"] = m.polygon_sizes;
  if (!m.smoothing.empty()) extras["smoothing"] = smoothing_json(m.smoothing);
  prim["extras"] = {{"meshport", std::move(extras)}};
  mesh["primitives"] = json::array({std::move(prim)});
  Buffer::append(w.meshes, mesh);
  const size_t index = w.mesh_count++;
  w.mesh_names.push_back(m.name.empty() ? std::string() : w.text(m.name));

  json node = json::object();
  if (!m.name.empty()) node["name"] = w.text(m.name);
  node["mesh"] = index;
  if (skinned) node["skin"] = 0;
  w.scene_nodes.insert(w.scene_nodes.begin() + long(index), w.nodes.size());
  w.gltf_mesh[mi] = int32_t(index);
  w.mesh_node[mi] = int32_t(w.nodes.size());
  w.nodes.push_back(std::move(node));
}

// ---- Attachments ---------------------------------------------------------------------------

// The node of attachment `a`: a child of its joint's node, else of its mesh's node, else a root.
void emit_attachment(Writer& w, size_t ai, size_t& bad, size_t& lost_meshes) {
  const Attachment& a = w.scene.attachments[ai];
  json n = json::object();
  if (!a.name.empty()) n["name"] = w.text(a.name);
  if (finite(a.transform))
    put_trs(n, a.transform);
  else
    ++bad;
  const int32_t mesh = a.mesh >= 0 ? w.gltf_mesh[size_t(a.mesh)] : -1;
  if (a.mesh >= 0 && mesh < 0) ++lost_meshes;
  json mp = {{"attachment", true}};
  if (mesh >= 0) mp["mesh"] = mesh;
  n["extras"] = {{"meshport", std::move(mp)}};
  const size_t index = w.nodes.size();
  w.nodes.push_back(std::move(n));
  if (a.joint >= 0)
    w.nodes[size_t(a.joint)]["children"].push_back(index);
  else if (mesh >= 0)
    w.nodes[size_t(w.mesh_node[size_t(a.mesh)])]["children"].push_back(index);
  else
    w.scene_nodes.push_back(index);
}

void emit_attachments(Writer& w) {
  size_t bad = 0, lost_meshes = 0;
  for (size_t i = 0; i < w.scene.attachments.size(); ++i) emit_attachment(w, i, bad, lost_meshes);
  if (bad)
    wwarn(w.diags, fmt::format("{} attachments have transforms that are not finite: written as the identity", bad));
  if (lost_meshes)
    wwarn(w.diags, fmt::format("{} attachments belong to meshes that are not written: written without a mesh",
                               lost_meshes));
}

// ---- Animations ----------------------------------------------------------------------------

// The "weights" channels of animation ai: one per MorphWeightTrack, on the node of its mesh,
// LINEAR, input = the track's times (the joint channels' input when they are the same times),
// output = its weights. Tracks that glTF cannot hold are skipped with a warning.
void emit_morph_weights(Writer& w, size_t ai, const std::vector<float>& joint_times, std::optional<size_t>& joint_input,
                        json& samplers, json& chans) {
  const Animation& a = w.scene.animations[ai];
  std::vector<bool> animated(w.scene.meshes.size(), false);
  size_t non_finite = 0;
  for (size_t k = 0; k < a.morph_weights.size(); ++k) {
    const MorphWeightTrack& t = a.morph_weights[k];
    const Mesh& m = w.scene.meshes[size_t(t.mesh)];  // ops::check_scene checked the index
    const int32_t node = w.mesh_node[size_t(t.mesh)];
    const char* why = node < 0                  ? "its mesh is not written"
                      : m.morph_targets.empty() ? "its mesh has no morph targets"
                      : t.times.empty()         ? "it has no keys"
                      : t.times[0] < 0          ? "its first key is before time 0"
                      : animated[size_t(t.mesh)] ? "another track of the animation animates the same mesh"
                                                 : nullptr;
    if (why) {
      wwarn(w.diags, fmt::format("animation {} ('{}'): morph weight track {} (mesh {}) not written: {}", ai, a.name, k,
                                 t.mesh, why));
      continue;
    }
    animated[size_t(t.mesh)] = true;
    size_t input;
    if (joint_input && t.times == joint_times) {
      input = *joint_input;
    } else {
      input = w.buf.floats(t.times, 1, 0, true);
      if (!joint_input && t.times == joint_times) joint_input = input;
    }
    std::vector<float> values(t.weights);
    for (float& x : values)
      if (!std::isfinite(x)) x = 0, ++non_finite;
    samplers.push_back({{"input", input}, {"interpolation", "LINEAR"}, {"output", w.buf.floats(values, 1, 0, false)}});
    chans.push_back({{"sampler", samplers.size() - 1}, {"target", {{"node", node}, {"path", "weights"}}}});
  }
  if (non_finite)
    wwarn(w.diags, fmt::format("animation {} ('{}'): {} morph weights that are not finite written as 0", ai, a.name,
                               non_finite));
}

void emit_animations(Writer& w) {
  const Scene& s = w.scene;
  json animations = json::array();
  for (size_t ai = 0; ai < s.animations.size(); ++ai) {
    const Animation& a = s.animations[ai];
    const size_t frames = a.frame_count();
    if (!frames && a.morph_weights.empty()) {
      wwarn(w.diags, fmt::format("animation {} ('{}') has no frames: not written", ai, a.name));
      continue;
    }
    const size_t channels = frames ? std::min<size_t>(a.channels, w.joint_nodes) : 0;
    if (frames && a.channels > w.joint_nodes)
      wwarn(w.diags, fmt::format("animation {} ('{}'): {} channels for {} joints; the others are not written", ai,
                                 a.name, a.channels, w.joint_nodes));
    const bool rate_ok = a.framerate > 0 && std::isfinite(a.framerate);
    const float rate = rate_ok ? a.framerate : kDefaultKeyframeRate;
    bool own_times = frames && a.times.size() == frames && std::isfinite(a.times[0]) && a.times[0] >= 0;
    for (size_t f = 1; own_times && f < frames; ++f)
      own_times = std::isfinite(a.times[f]) && a.times[f] > a.times[f - 1];
    if (frames && !a.times.empty() && !own_times)
      wwarn(w.diags, fmt::format("animation {} ('{}'): its key times are not one per frame, finite and increasing; "
                                 "keys are written at frame / framerate",
                                 ai, a.name));
    std::vector<float> times(frames);
    for (size_t f = 0; f < frames; ++f) times[f] = own_times ? a.times[f] : float(double(f) / double(rate));
    std::optional<size_t> input;
    json samplers = json::array();
    json chans = json::array();
    size_t non_finite = 0;
    auto add = [&](size_t joint, const char* path, std::vector<float> values, uint32_t comps) {
      if (!input) input = w.buf.floats(times, 1, 0, true);
      const char* interpolation = a.interpolation == Interpolation::Step ? "STEP" : "LINEAR";
      samplers.push_back(
          {{"input", *input}, {"interpolation", interpolation}, {"output", w.buf.floats(values, comps, 0, false)}});
      chans.push_back({{"sampler", samplers.size() - 1}, {"target", {{"node", joint}, {"path", path}}}});
    };
    auto pose = [&](size_t f, size_t j) -> const Transform& { return a.poses[f * a.channels + j]; };
    auto clean = [&](float x, float fallback) {
      if (std::isfinite(x)) return x;
      ++non_finite;
      return fallback;
    };
    // Rotations normalised, and sign-continuous: q and -q are the same rotation, and keeping
    // consecutive keyframes in one hemisphere makes every interpolation take the short path.
    auto rotations = [&](size_t j) {
      std::vector<float> v;
      Quat prev{0, 0, 0, 1};
      for (size_t f = 0; f < frames; ++f) {
        Quat q = pose(f, j).rotation;
        for (int c = 0; c < 4; ++c) q[c] = clean(q[c], w.rests[j].rotation[c]);
        q = unit_quat(q);
        if (f > 0 && q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0)
          for (float& c : q) c = -c;
        prev = q;
        v.insert(v.end(), q.begin(), q.end());
      }
      add(j, "rotation", std::move(v), 4);
    };
    for (size_t j = 0; j < channels; ++j) {
      const Transform& rest = w.rests[j];
      bool same_t = true, same_r = true, same_s = true;
      for (size_t f = 0; f < frames; ++f) {
        same_t = same_t && pose(f, j).translation == rest.translation;
        same_r = same_r && pose(f, j).rotation == rest.rotation;
        same_s = same_s && pose(f, j).scale == rest.scale;
      }
      if (!same_t) {
        std::vector<float> v;
        for (size_t f = 0; f < frames; ++f)
          for (int c = 0; c < 3; ++c) v.push_back(clean(pose(f, j).translation[c], rest.translation[c]));
        add(j, "translation", std::move(v), 3);
      }
      if (!same_r) rotations(j);
      if (!same_s) {
        std::vector<float> v;
        for (size_t f = 0; f < frames; ++f)
          for (int c = 0; c < 3; ++c) v.push_back(clean(pose(f, j).scale[c], rest.scale[c]));
        add(j, "scale", std::move(v), 3);
      }
    }
    // An animation that holds the rest pose still needs a channel to be valid (and to keep its
    // length): joint 0's rotation.
    if (chans.empty() && channels > 0) rotations(0);
    emit_morph_weights(w, ai, times, input, samplers, chans);
    if (chans.empty()) {
      wwarn(w.diags, fmt::format("animation {} ('{}') animates no joint: not written", ai, a.name));
      continue;
    }
    if (non_finite)
      wwarn(w.diags, fmt::format("animation {} ('{}'): {} values that are not finite written as the rest value", ai,
                                 a.name, non_finite));
    json anim = json::object();
    if (!a.name.empty()) anim["name"] = w.text(a.name);
    anim["channels"] = std::move(chans);
    anim["samplers"] = std::move(samplers);
    json mp = {{"framerate", std::isfinite(a.framerate) ? num(a.framerate) : json(0.0)},
               {"keyframe_rate", num(rate)},
               {"loop", a.loop},
               {"channels", a.channels}};
    if (own_times) mp["times"] = true;
    anim["extras"] = {{"meshport", mp}};
    // Blender drops animation extras: the scene extras keep a copy, matched by name.
    mp["name"] = a.name.empty() ? std::string() : w.text(a.name);
    mp["frames"] = frames;
    mp["interpolation"] = a.interpolation == Interpolation::Step ? "step" : "linear";
    if (own_times) {
      json t = json::array();
      for (float x : times) t.push_back(num(x));
      mp["times"] = std::move(t);
    }
    w.animation_extras.push_back(std::move(mp));
    animations.push_back(std::move(anim));
  }
  if (!animations.empty()) w.root["animations"] = std::move(animations);
}

// ---- Scene extras and assembly -------------------------------------------------------------

// scenes[0].extras.meshport: the document-level data (schema at the top).
json scene_extras(Writer& w) {
  const Scene& s = w.scene;
  json e = {{"version", 1}, {"joint_nodes", w.joint_nodes}};
  json names = json::array();
  for (size_t j = 0; j < w.joint_nodes; ++j)
    names.push_back(w.animation_only ? fmt::format("pose {}", j) : w.text(s.joints[j].name));
  e["joints"] = std::move(names);
  if (!w.animation_only && w.joint_nodes) {
    // The rests as written: a reader undoes a tool's re-orientation of the bones (Blender's).
    json rests = json::array();
    for (size_t j = 0; j < w.joint_nodes; ++j) {
      const Transform& r = w.rests[j];
      json x = json::array();
      for (float f : r.translation) x.push_back(num(f));
      for (float f : unit_quat(r.rotation)) x.push_back(num(f));
      for (float f : r.scale) x.push_back(num(f));
      rests.push_back(std::move(x));
    }
    e["joint_rests"] = std::move(rests);
  }
  if (w.static_node) e["static_node"] = *w.static_node;
  if (w.animation_only) e["animation_only"] = true;
  e["meshes"] = w.mesh_names;
  if (!w.animation_extras.empty()) e["animations"] = w.animation_extras;
  if (!s.comment.empty()) {
    if (valid_utf8(s.comment))
      e["comment"] = s.comment;
    else
      e["comment_base64"] = base64_encode(reinterpret_cast<const uint8_t*>(s.comment.data()), s.comment.size());
  }
  if (!value_or_empty(s.iqm).extensions.empty()) {
    json x = json::array();
    for (const IqmExtension& ext : value_or_empty(s.iqm).extensions)
      x.push_back({{"name", w.text(ext.name)}, {"data", base64_encode(ext.data.data(), ext.data.size())}});
    e["iqm_extensions"] = std::move(x);
  }
  if (!value_or_empty(s.iqm).pose_parents.empty()) e["iqm_pose_parents"] = value_or_empty(s.iqm).pose_parents;
  if (s.pie) e["pie"] = pie_to_json(*s.pie, w.gltf_mesh);
  if (s.modedef) e["modedef"] = modedef_to_json(*s.modedef);  // gltf_modedef.h
  return e;
}

void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  uint8_t x[4];
  std::memcpy(x, &v, 4);
  b.insert(b.end(), x, x + 4);
}

}  // namespace

std::vector<OutputFile> write(const Scene& scene, const WriteOptions& options, bool binary, const std::string& bin_name,
                              const std::string& output_dir, Diagnostics& diags) {
  ops::check_scene(scene);
  Writer w(scene, options, output_dir, diags);
  w.root["asset"] = {{"generator", "meshport"}, {"version", "2.0"}};

  plan_skeleton(w);
  // Which meshes are written, which are skinned, and whether any skinned vertex is unweighted.
  bool any_skinned = false, any_unweighted = false;
  std::vector<std::optional<Influences>> blend(scene.meshes.size());
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    const Mesh& m = scene.meshes[i];
    if (!written(m)) {
      wwarn(diags, fmt::format("mesh {} ('{}') has {} vertices and {} triangles: not written", i, m.name,
                               m.vertex_count(), m.triangles.size() / 3));
      continue;
    }
    if (!skinnable(w, m)) continue;
    any_skinned = true;
    // The static joint's index: right after the skeleton's joints.
    blend[i] = influences(m, w.joint_nodes, uint32_t(w.joint_nodes));
    any_unweighted = any_unweighted || blend[i]->unweighted > 0;
  }
  emit_skeleton(w, any_skinned, any_unweighted);
  json skin;
  if (any_skinned) skin = emit_skin(w);
  json materials = emit_materials(w);
  w.gltf_mesh.assign(scene.meshes.size(), -1);
  w.mesh_node.assign(scene.meshes.size(), -1);
  if (scene.modedef) w.modedef_mesh = modedef_mesh_json(*scene.modedef, scene.meshes.size());
  for (size_t i = 0; i < scene.meshes.size(); ++i)
    if (written(scene.meshes[i])) emit_mesh(w, i, blend[i] ? &*blend[i] : nullptr);
  emit_attachments(w);
  emit_animations(w);
  if (w.bad_names) wwarn(diags, "names that are not valid UTF-8 written with '?' for their non-ASCII bytes");

  if (!w.nodes.empty()) w.root["nodes"] = std::move(w.nodes);
  if (!materials.empty()) w.root["materials"] = std::move(materials);
  if (any_skinned) w.root["skins"] = json::array({std::move(skin)});
  if (!w.scene_nodes.empty()) {
    w.root["scene"] = 0;
    w.root["scenes"] = json::array({{{"nodes", w.scene_nodes}}});
  }
  // The document-level extras in scenes[0] (written even without nodes), which Blender keeps.
  if (!w.root.contains("scenes")) w.root["scenes"] = json::array({json::object()});
  w.root["scenes"][0]["extras"] = {{"meshport", scene_extras(w)}};
  while (w.buf.bin.size() % 4) w.buf.bin.push_back(0);
  if (!w.buf.bin.empty()) {
    if (w.buf.bin.size() > 0xFFFFFFF0u) wfail(fmt::format("{} bytes of data are more than glTF can hold", w.buf.bin.size()));
    json b = {{"byteLength", w.buf.bin.size()}};
    if (!binary)
      b["uri"] = bin_name.empty()
                     ? "data:application/octet-stream;base64," + base64_encode(w.buf.bin.data(), w.buf.bin.size())
                     : uri_encode(bin_name);
    w.root["buffers"] = json::array({std::move(b)});
  }

  std::vector<std::pair<std::string, std::string>> arrays;
  if (w.mesh_count) arrays.emplace_back("meshes", std::exchange(w.meshes, std::string()));
  if (!w.buf.bin.empty()) {
    arrays.emplace_back("accessors", std::exchange(w.buf.accessors, std::string()));
    arrays.emplace_back("bufferViews", std::exchange(w.buf.views, std::string()));
  }
  std::vector<OutputFile> out(1);
  std::vector<uint8_t>& b = out[0].bytes;
  if (!binary) {
    dump_root(w.root, std::move(arrays), b, 0);
    if (!bin_name.empty() && !w.buf.bin.empty()) out.push_back({bin_name, std::move(w.buf.bin)});
    return out;
  }
  // GLB: the JSON chunk is written in place after a 20-byte header filled in once its size is known.
  b.resize(20);
  dump_root(w.root, std::move(arrays), b, 3 + (w.buf.bin.empty() ? 0 : 8 + w.buf.bin.size()));
  while (b.size() % 4) b.push_back(' ');
  const uint64_t json_size = b.size() - 20;
  const uint64_t total = b.size() + (w.buf.bin.empty() ? 0 : 8 + w.buf.bin.size());
  if (total > 0xFFFFFFFFu) wfail(fmt::format("a GLB of {} bytes is more than its 32-bit length can hold", total));
  const uint32_t header[5] = {0x46546C67, 2, uint32_t(total), uint32_t(json_size), 0x4E4F534A};  // "glTF" 2 .. "JSON"
  for (size_t i = 0; i < 5; ++i)
    for (size_t k = 0; k < 4; ++k) b[i * 4 + k] = uint8_t(header[i] >> (8 * k));
  if (!w.buf.bin.empty()) {
    put_u32(b, uint32_t(w.buf.bin.size()));
    put_u32(b, 0x004E4942);  // "BIN\0"
    b.insert(b.end(), w.buf.bin.begin(), w.buf.bin.end());
  }
  return out;
}

}  // namespace meshport::gltf
