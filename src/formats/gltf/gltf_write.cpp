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
//   the root attachments. Level-of-detail meshes (Mesh::lod > 0): their nodes are listed in
//   their level-0 mesh node's extensions.MSFT_lod.ids instead (gltf_write_lods.cpp).
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
// - materials: one per Scene material, pbrMetallicRoughness with metallicFactor =
//   Material::metallic (0 for game models), baseColorFactor = Material::base_color when it is not
//   (1, 1, 1, 1), roughnessFactor when not 1, emissiveFactor when not 0 (each value clamped to
//   0..1, one that is not finite written as the default), baseColorTexture, normalTexture and
//   KHR_materials_specular.specularColorTexture for the textures find_textures() resolves;
//   images embedded, beside the output or as data URIs (gltf_write_materials.cpp). What a
//   material read from glTF kept is written back (docs/gltf-obj.md "Materials kept whole"):
//   metallicRoughnessTexture, occlusionTexture (strength), emissiveTexture, normalTexture.scale,
//   doubleSided, each slot's sampler, the carried extensions with their textures renumbered, other
//   extras, and KHR_materials_variants (root variants, primitive mappings). metallicFactor is
//   left out when it is 1.
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
//   the Scene had it} (both always written, possibly ""), and "normal_texture",
//   "specular_texture", "team_colour_texture" (the slots' strings, each only when not empty),
//   "team_colour_applied": [r, g, b] (WriteOptions::team_colour baked into the base colour image).
// Mesh extras: {"targetNames": [MorphTarget::name]} when the mesh has morph targets (the common
//   glTF convention); mesh.weights = Mesh::morph_weights when not empty. Mesh extras.meshport
//   (mesh level, which Blender keeps, unlike primitive extras), when the mesh has any:
//   "face_channels": [{"name": FaceChannel::name, "components": uint, "data": [uint]}]
//                                     Mesh::face_channels, one tuple per triangle of the
//                                     primitive in index order
//   "format_streams": [{"name": string, "components": uint, "data": [float]}]
//                                     the format streams (is_format_stream, scene.h: "pie.point"),
//                                     one tuple per vertex, not written as glTF attributes
//   "morph_ranges": {"source": [int], "scale": [float]}
//                                     targets whose weights leave [0, 1] written as a "+" and
//                                     a "-" target of scaled displacements, weights in [0, 1]
//                                     (gltf_morph_ranges.h: Blender clamps shape keys to [0, 1])
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
//
// Code layout: this file assembles the document (buffers, GLB / .gltf output); gltf_write.h holds
// the writer's state; gltf_write_skins / _materials / _meshes / _animations / _extras.cpp the parts.
#include "formats/gltf/gltf_write.h"

#include "formats/shared/gltf_modedef.h"
#include "ops/mesh/check.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <utility>

namespace meshport::gltf::write_impl {

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

// ---------------------------------------------------------------------------------------------
// Buffer, buffer views and accessors

size_t Buffer::counted_accessor() {
  if (accessor_count == kMaxGltfAccessors)
    wfail(fmt::format("the Scene needs more than {} glTF accessors, meshport's limit for one glTF file",
                      kMaxGltfAccessors));
  return accessor_count++;
}

void Buffer::append(std::string& list, const json& item) {
  if (!list.empty()) list += ',';
  list += item.dump(-1, ' ', false, json::error_handler_t::replace);
}

size_t Buffer::view(const void* data, size_t bytes, int target, size_t stride) {
  if (compress && stride)
    if (std::optional<json> v = compressed_view(data, bytes, target, stride)) {
      append(views, *v);
      return view_count++;
    }
  while (bin.size() % 4) bin.push_back(0);
  json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", bytes}};
  if (target) v["target"] = target;
  const auto* p = static_cast<const uint8_t*>(data);
  bin.insert(bin.end(), p, p + bytes);
  append(views, v);
  return view_count++;
}

const char* Buffer::type_name(uint32_t components) {
  switch (components) {
    case 1: return "SCALAR";
    case 2: return "VEC2";
    case 3: return "VEC3";
    case 4: return "VEC4";
    case 16: return "MAT4";
  }
  return "SCALAR";
}

size_t Buffer::floats(const std::vector<float>& values, uint32_t components, int target, bool bounds,
                      const char* type) {
  const size_t count = values.size() / components;
  json a = {{"bufferView", view(values.data(), values.size() * 4, target, components * 4)},
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

size_t Buffer::integers(const std::vector<uint32_t>& values, uint32_t components, int component_type, int target) {
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
  json a = {{"bufferView", view(bytes.data(), bytes.size(), target, components * size)},
            {"componentType", component_type},
            {"count", values.size() / components},
            {"type", type_name(components)}};
  append(accessors, a);
  return counted_accessor();
}

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

namespace {

void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  uint8_t x[4];
  std::memcpy(x, &v, 4);
  b.insert(b.end(), x, x + 4);
}

}  // namespace

void list_extension(json& root, const char* key, const char* name) {
  json& list = root[key];
  if (!list.is_array()) list = json::array();
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace meshport::gltf::write_impl

namespace meshport::gltf {

std::vector<OutputFile> write(const Scene& input, const WriteOptions& options, bool binary, const std::string& bin_name,
                              const std::string& output_dir, Diagnostics& diags) {
  using namespace write_impl;
  ops::check_scene(input);
  std::vector<TextureLookup> textures = material_textures(input, options);
  const std::optional<Scene> baked = with_unwritten_mappings_baked(input, textures, diags);
  const Scene& mapped = baked ? *baked : input;
  const std::optional<Scene> tangents = with_normal_map_tangents(mapped, textures, diags);
  const std::optional<Scene> apart = with_repeated_faces_apart(tangents ? *tangents : mapped);
  std::vector<std::optional<MorphRanges>> morph_ranges;
  std::vector<std::string> range_warnings;
  const std::optional<Scene> ranged =
      with_morph_ranges(apart ? *apart : tangents ? *tangents : mapped, morph_ranges, range_warnings);
  for (std::string& m : range_warnings) wwarn(diags, std::move(m));
  const Scene& scene = ranged ? *ranged : apart ? *apart : tangents ? *tangents : mapped;
  Writer w(scene, options, output_dir, diags);
  w.morph_ranges = std::move(morph_ranges);
  w.binary = binary;
  w.buf.compress = options.compress;
  w.textures = std::move(textures);
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
  add_polygon_materials(w, materials);
  emit_lods(w);
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
    emit_buffers(w, std::move(b));
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
    if (!bin_name.empty() && !w.buf.bin.empty()) out.push_back({bin_name, std::move(w.buf.bin), nullptr});
    for (OutputFile& f : w.image_files) out.push_back(std::move(f));
    return out;
  }
  // GLB: the JSON chunk is written in place after a 20-byte header filled in once its size is known;
  // the BIN chunk's header follows, then the buffer, moved in place behind them (no new buffer of
  // the file's size: for pages embedded by a batch, most of the time went to fresh pages).
  b.resize(20);
  dump_root(w.root, std::move(arrays), b, 3 + (w.buf.bin.empty() ? 0 : 8));
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
    w.buf.bin.insert(w.buf.bin.begin(), b.begin(), b.end());
    b = std::move(w.buf.bin);
  }
  for (OutputFile& f : w.image_files) out.push_back(std::move(f));
  return out;
}

}  // namespace meshport::gltf
