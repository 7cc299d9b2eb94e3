// glTF 2.0 reader: .gltf (JSON with data-URI or external buffers) and .glb (binary container).
// Specification: Khronos glTF 2.0.
//
// Safety: every index is range-checked; every buffer view is checked against its buffer and
// every accessor's extent (byteOffset + stride * (count - 1) + element size, in 128-bit
// arithmetic) against its view before anything is read; what the Scene may grow to is bounded
// by the memory budget (gltf_read.h; docs/limits.md "Memory budget": what is built, within 1 GiB
// or 12 x the input + 32 MiB, or ReadOptions::max_memory; data the input does not hold within
// 12 x the input + 32 MiB alone), so a hostile count fails before it allocates; a
// std::bad_alloc anyway is an error naming the part being read; the node graph is checked for
// cycles and for nodes with two parents
// and walked iteratively. Errors name the JSON path of the offending value
// ("accessors[3].count: ..."), the line and column of a JSON syntax error, or the byte offset of
// a GLB framing error.
//
// Mapping to the Scene (glTF's conventions are the Scene's, so values are not converted):
// - every primitive of every mesh instance (nodes of the default scene, in node order) becomes a
//   Scene mesh named after the glTF mesh, with ".N" when the mesh has several primitives. Meshes
//   no node uses are read untransformed (warning); nodes outside the scene read are ignored.
// - static meshes are baked into world space by their node's world matrix: normals by its inverse
//   transpose, renormalised; tangents by the matrix, renormalised (morph target displacements
//   likewise: positions and tangents by the matrix, normals by its inverse transpose). A mirroring matrix (negative
//   determinant) flips the winding and negates the tangent handedness w: the mirrored frame is
//   left-handed, so bitangent = w * cross(n, t) needs the opposite sign to stay the mirrored
//   bitangent.
// - triangle strips and fans become triangles; their degenerate triangles (strip joins) are
//   dropped. Points and lines become Topology::Points / Lines meshes (loops and strips as their
//   segments; points without indices: every vertex).
// - EXT_mesh_gpu_instancing (gltf_read_instancing.cpp): the node's Scene meshes keep the glTF
//   mesh's vertices, not baked, and get Mesh::instances = NodeWorld * Instance each; the memory
//   budget is charged for every instance's copy (a writer without instancing expands them).
// - attributes: TEXCOORD_n (n > 0) and COLOR_n become custom arrays "texcoordN" / "colorN",
//   "_NAME" the custom array "NAME"; JOINTS_n / WEIGHTS_n pairs merge into one blend pair of
//   4 * n components. VertexStream::format is the accessor's type when normalised (and for
//   joints); integer data that is not normalised holds plain numbers, which the Scene's integer
//   formats would misread as normalised, so it is declared Float.
// - primitives sharing one POSITION accessor keep only the vertices their indices use (in order
//   of first use): the shared accessors are decoded and counted once (shared_floats), each
//   primitive is charged for its own vertices.
// - skins: every joint of every skin becomes a Scene joint, parents before children, otherwise in
//   the order first listed; a non-joint node between two joints becomes a joint too (warning) so
//   the chain stays connected. A joint whose parent is not a joint is a root whose rest transform
//   is its world transform (a `matrix` is decomposed; shear: warning, Gram-Schmidt best effort).
//   The Scene's bind pose is its rest pose: a skin whose inverse bind matrices are not the inverse
//   rest world matrices (relative 1e-5) gets its vertices re-bound, p' = sum w_i RestWorld_i
//   IBM_i p, with a note. This is exact at the rest pose and for vertices bound to one joint;
//   blended vertices of such a skin skin slightly differently from the glTF under animation.
// - animations are sampled at a fixed framerate: the writer's keyframe rate, else 1 / h when every
//   key time lies on a grid of step h and 1 / h is within 1..240 fps (snapped to an integer
//   within 1e-4), else 30 fps; frames = round(last key time * rate) + 1. Key times within 1e-4
//   of a frame of a sample count as on it, so keys written at f / rate are reproduced exactly.
//   An animation whose meshport extras say "times" (Animation::times) has one frame per key of its
//   first channel, Animation::times = those key times, and frame f takes key f of every channel
//   with the same key times (others are sampled at times[f]).
//   An animation whose joint channels are all STEP gets Animation::interpolation Step (its frames
//   are sampled as every other's; evenly spaced keys are the frames).
//   Translation / rotation / scale channels of joints are read, and "weights" channels of nodes
//   whose mesh has morph targets (one warning per animation for the rest). Joints without a
//   channel keep their rest value.
//   Node animation: every node of the scene read that a TRS channel moves becomes a joint (after
//   the skins' joints, in node order; nodes between it and a joint ancestor too), except a leaf
//   holding only a camera or a light (warning) and except in files whose extras map the joints.
//   A static mesh instance at or under a joint is bound rigidly to the nearest one (blend index
//   = that joint, weight 1, one component; vertices baked to model space as any static mesh). A weights channel becomes a MorphWeightTrack (its keys as they
//   are, linear; CUBICSPLINE keeps the values, STEP is read as linear, each with a warning) of
//   every Scene mesh of that node's instance of the mesh (one per primitive); a second weights
//   channel of the same node is ignored (warning). An animation of morph weights only has no
//   frames (channels 0), its framerate the writer's, else its keys' grid as above.
// - materials: name, baseColorFactor, emissiveFactor, metallicFactor and roughnessFactor (glTF's
//   defaults 1 when absent), the base colour, normal and KHR_materials_specular textures; images
//   held in the file become Scene::images, file URIs stay references (gltf_read_materials.cpp,
//   docs/textures.md "glTF input and extraction"). Each slot keeps its texCoord and its
//   KHR_texture_transform (Material::*_texcoord / *_transform), not applied to the texture
//   coordinates; a malformed transform is ignored with a warning. Writers of other formats bake
//   the base colour's (ops/materials/texture_transform.h). The rest of the material is kept whole
//   (docs/gltf-obj.md "Materials kept whole"): metallic-roughness, occlusion and emissive slots,
//   samplers, doubleSided, the extensions as JSON text with their textures, other extras, and
//   KHR_materials_variants; a malformed one of these is a warning, never fatal.
// - KHR_mesh_quantization: every integer type is decoded by the accessor rules above (normalised:
//   c / 127, c / 255, c / 32767, c / 65535, signed ones max(.., -1); otherwise the integer), and
//   the node's dequantization transform is baked like any node transform; morph normal deltas
//   turn with the normals without the normal matrix's 1 / scale. Integer positions are declared
//   Float (the node moved them out of any normalised range).
// - attachments (Scene::attachments, in node order): the writer's attachment nodes
//   (extras.meshport.attachment), and every other empty leaf node of the scene read (no mesh, skin,
//   camera, KHR_lights_punctual light or children, not a joint, not meshport_static nor an
//   animation-only file's pose node): what Blender and other tools export for an empty
//   ("connector1" parented to a mesh object). Under a joint (the nearest joint ancestor) the
//   transform is relative to that joint (the node's own TRS when the joint is its parent);
//   otherwise it is the node's world transform (its own TRS, bit for bit, when its parent's world
//   matrix is the identity), model space like the baked static meshes. Mesh: the writer's
//   extras.meshport.mesh (a glTF mesh, mapped to the Scene mesh of its first instance), else -1;
//   for an empty leaf, the Scene mesh (first primitive) of its nearest ancestor with a mesh, else
//   -1.
// - compressed data (extensions required or not): buffer views with EXT_meshopt_compression or
//   KHR_meshopt_compression are decoded with meshoptimizer on first use (gltf_read_meshopt.cpp;
//   fallback buffers without data are never loaded); primitives with KHR_draco_mesh_compression
//   are decoded with libdraco, their accessors then read the decoded values (gltf_read_draco.cpp).
//   Both bound the counts in their streams by what the compressed bytes can decode to and pay
//   the decoded size from the memory budget first; corrupt data is an error.
// - external buffers are relative paths only (percent-decoded, loaded through the SideFileLoader);
//   absolute paths and URIs with a scheme are an error.
// - the writer's `extras` (schema at the top of gltf_write.cpp; the document-level ones in
//   scenes[0].extras.meshport, else the root extras.meshport of older files) restore what glTF
//   cannot express: the joints are nodes 0 .. joint_nodes-1 in order, or the nodes of the names
//   "joints" lists where a tool reordered them (meshport_static, known by its node extras, is
//   dropped and influences on it are none), animation-only files, stream declarations, polygons,
//   smoothing rules, material strings, framerate / loop / channel count (from the animation's
//   extras, else the scene copy of the same name, with frame count, key times and STEP), comment,
//   IQM extensions, pose parents, Scene::pie (gltf_pie.h; its glTF mesh indices mapped to Scene
//   meshes through the names "meshes" lists), Scene::modedef (gltf_modedef.h), and the joints'
//   rests ("joint_rests": a tool's re-orientation of the bones is undone, rebase_joints).
//   Booleans may be 0 / 1 (Blender). Malformed extras are ignored with a warning, never fatal.


#include "core/math.h"
#include "core/text.h"
#include "formats/shared/gltf_modedef.h"
#include "formats/shared/gltf_pie.h"
#include "ops/mesh/components.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
//
// Code layout: this file holds the entry, GLB framing and the JSON document; gltf_read.h the
// reader's state; gltf_read_buffers / _materials / _nodes / _meshes / _animations / _extras.cpp the rest.
#include "formats/gltf/gltf_read.h"

#include "formats/shared/gltf_modedef.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <unordered_set>

namespace meshport::gltf::read_impl {

// A short description of a JSON value for messages.
std::string describe(const json& v) {
  if (v.is_structured()) return std::string(v.type_name());
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::optional<uint64_t> as_uint(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i >= 0) return uint64_t(i);
    return std::nullopt;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (d >= 0 && d < 18446744073709551616.0 && d == std::floor(d)) return uint64_t(d);
  }
  return std::nullopt;
}

namespace {

// `s` with control characters, and the bytes of invalid UTF-8 (which the JSON parser quotes
// from the file in its messages), written as \xNN.
std::string printable(std::string_view s) {
  const bool utf8 = valid_utf8(s);
  std::string out;
  for (char c : s) {
    const uint8_t u = uint8_t(c);
    if (u < 0x20 || u == 0x7F || (u >= 0x80 && !utf8))
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

}  // namespace

// ---- GLB framing and JSON --------------------------------------------------------------------

void split_glb(Reader& rd) {
  const uint64_t size = rd.data.size();
  const uint8_t* p = rd.data.data();
  if (size < 12)
    fail_at_offset(rd.name, int64_t(size), fmt::format("truncated GLB header: the file has {} bytes, 12 needed", size));
  uint32_t version = le32(p + 4);
  if (version != 2) fail_at_offset(rd.name, 4, fmt::format("unsupported GLB version {} (version 2 is read)", version));
  uint64_t length = le32(p + 8);
  if (length > size)
    fail_at_offset(rd.name, 8,
                   fmt::format("the header's length is {} bytes but the file has {} (truncated?)", length, size));
  if (length < size)
    rd.diags.add(warning_at_offset(rd.name, 8,
                                   fmt::format("the header's length is {} bytes but the file has {}; the rest "
                                               "is ignored",
                                               length, size)));
  if (length < 20)
    fail_at_offset(rd.name, int64_t(std::min<uint64_t>(length, 12)),
                   fmt::format("truncated GLB: {} bytes hold no JSON chunk header", length));
  uint64_t json_len = le32(p + 12);
  uint32_t json_type = le32(p + 16);
  if (json_type != kChunkJson)
    fail_at_offset(rd.name, 16,
                   fmt::format("the first chunk's type is 0x{:08x}, not JSON (0x{:08x})", json_type, kChunkJson));
  // Where the GLB ends: the file's end, or the header's length when that is shorter.
  const std::string end = length == size ? fmt::format("the end of the file ({} bytes)", length)
                                         : fmt::format("the header's length ({} bytes)", length);
  if (json_len > length - 20)
    fail_at_offset(rd.name, 12,
                   fmt::format("the JSON chunk's {} bytes end at offset {}, past {}", json_len, 20 + json_len, end));
  std::span<const uint8_t> text = rd.data.subspan(20, json_len);
  if (json_len % 4)
    rd.diags.add(warning_at_offset(rd.name, 12,
                                   fmt::format("the JSON chunk's length {} is not a multiple of 4 (chunks "
                                               "must be 4-byte aligned)",
                                               json_len)));
  uint64_t off = 20 + json_len;
  while (off < length) {
    if (length - off < 8)
      fail_at_offset(rd.name, int64_t(off),
                     fmt::format("truncated chunk header: {} bytes left, 8 needed", length - off));
    uint64_t len = le32(p + off);
    uint32_t type = le32(p + off + 4);
    if (len > length - off - 8)
      fail_at_offset(rd.name, int64_t(off),
                     fmt::format("chunk of {} bytes at offset {} ends at {}, past {}", len, off, off + 8 + len, end));
    if (len % 4)
      rd.diags.add(warning_at_offset(rd.name, int64_t(off),
                                     fmt::format("the chunk's length {} is not a multiple of 4 "
                                                 "(chunks must be 4-byte aligned)",
                                                 len)));
    if (type == kChunkBin) {
      if (rd.has_bin)
        rd.diags.add(warning_at_offset(rd.name, int64_t(off), "a second BIN chunk is ignored"));
      else
        rd.bin = rd.data.subspan(off + 8, len), rd.has_bin = true;
    } else if (type == kChunkJson) {
      rd.diags.add(warning_at_offset(rd.name, int64_t(off), "a second JSON chunk is ignored"));
    }  // other chunk types: ignored, as the specification requires
    off += 8 + len;
  }
  parse_json(rd, text, 20);
}

// Line and column (1-based) of byte `pos` of the JSON text.
std::pair<uint32_t, uint32_t> line_column(std::span<const uint8_t> text, size_t pos) {
  pos = std::min(pos, text.size());
  uint32_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < pos; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return {line, uint32_t(pos - line_start + 1)};
}

// Fails at byte `pos` of the JSON text: "file:line:col" for a .gltf, the file offset and the
// chunk's line and column for a .glb.
[[noreturn]] void json_fail(const std::string& name, std::span<const uint8_t> text, int64_t file_offset, size_t pos,
                            const std::string& msg) {
  pos = std::min(pos, text.size());
  const auto [line, col] = line_column(text, pos);
  if (file_offset >= 0)
    fail_at_offset(name, file_offset + int64_t(pos), fmt::format("JSON chunk, line {} column {}: {}", line, col, msg));
  fail_at_line(name, line, col, msg);
}

// An input iterator over the JSON text that records the furthest byte the parser has read, so
// the checks below can say where they stopped it.
struct TrackedIt {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* p = nullptr;
  const char** reached = nullptr;
  reference operator*() const {
    if (p > *reached) *reached = p;
    return *p;
  }
  TrackedIt& operator++() {
    ++p;
    return *this;
  }
  TrackedIt operator++(int) {
    TrackedIt t = *this;
    ++p;
    return t;
  }
  bool operator==(const TrackedIt& o) const { return p == o.p; }
};

// A first pass over the JSON text, before the document is built: glTF requires unique keys
// in every object; nesting is bounded (the document's own code is recursive in places: copy,
// dump); and the memory the document will take (nlohmann/json: a map node per member, a heap
// string per string, vector slots with growth) is estimated, so that it is paid from the
// reader's memory budget before it is allocated: "[{},{},...]" would take 30 times its size.
// Syntax errors are left to the real parse, which reports them.
class JsonCheck {
 public:
  static constexpr size_t kMaxDepth = 512;

  JsonCheck(const std::string& name, std::span<const uint8_t> text, int64_t file_offset, uint64_t limit)
      : name_(name), text_(text), file_offset_(file_offset), limit_(limit),
        reached_(reinterpret_cast<const char*>(text.data())) {}

  // Returns the memory the document will take (estimated).
  uint64_t run() {
    const char* b = reinterpret_cast<const char*>(text_.data());
    json::sax_parse(TrackedIt{b, &reached_}, TrackedIt{b + text_.size(), &reached_}, this);
    return used_;
  }

  // nlohmann/json SAX interface
  bool null() { return value(16); }
  bool boolean(bool) { return value(16); }
  bool number_integer(json::number_integer_t) { return value(16); }
  bool number_unsigned(json::number_unsigned_t) { return value(16); }
  bool number_float(json::number_float_t, const std::string&) { return value(16); }
  bool string(std::string& s) { return value(64 + heap(s.size())); }
  bool binary(json::binary_t&) { return value(16); }
  bool start_object(size_t) {
    value(64);
    open(false);
    return true;
  }
  bool key(std::string& k) {
    spend(96 + heap(k.size()));
    if (!stack_.back().keys.insert(k).second)
      stop(fmt::format("the key \"{}\" appears twice in one object (glTF requires unique keys)", text::clip(k)));
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(size_t) {
    value(40);
    open(true);
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  struct Level {
    bool array = false;
    std::unordered_set<std::string> keys;
  };
  const std::string& name_;
  std::span<const uint8_t> text_;
  int64_t file_offset_;
  uint64_t limit_, used_ = 0;
  const char* reached_;
  std::vector<Level> stack_;

  static uint64_t heap(size_t n) { return n > 15 ? n + 17 : 0; }  // beyond the small-string buffer
  [[noreturn]] void stop(const std::string& msg) const {
    json_fail(name_, text_, file_offset_, size_t(reached_ - reinterpret_cast<const char*>(text_.data())), msg);
  }
  void spend(uint64_t bytes) {
    used_ += bytes;
    if (used_ > limit_)
      stop(fmt::format("the JSON document would need more than {} bytes of memory, more than the input can justify "
                       "(too many small values)",
                       limit_));
  }
  // A value: its slot in an array (vector growth: up to twice 16 bytes), or in an object's member
  // (paid with the key), and what it allocates itself.
  bool value(uint64_t own) {
    spend(own + (!stack_.empty() && stack_.back().array ? 16 : 0));
    return true;
  }
  void open(bool array) {
    if (stack_.size() >= kMaxDepth) stop(fmt::format("the JSON is nested more than {} levels deep", kMaxDepth));
    stack_.push_back({array, {}});
  }
};

// glTF JSON is UTF-8 without a byte order mark: a UTF-8 one is tolerated (warning), a UTF-16 or
// UTF-32 one means the text is not UTF-8 at all. JSON text has no NUL bytes (nlohmann/json would
// take one for the end of the input and ignore what follows): trailing NULs, a known exporter bug
// in GLB padding, are dropped with a warning; any other is an error. Returns the text to parse.
std::span<const uint8_t> check_encoding(Reader& rd, std::span<const uint8_t> text, int64_t file_offset) {
  auto starts = [&](std::initializer_list<uint8_t> bom) {
    return text.size() >= bom.size() && std::equal(bom.begin(), bom.end(), text.begin());
  };
  if (starts({0xFF, 0xFE}) || starts({0xFE, 0xFF}) || starts({0, 0, 0xFE, 0xFF}))
    json_fail(rd.name, text, file_offset, 0,
              "the JSON starts with a UTF-16 or UTF-32 byte order mark: glTF JSON must be UTF-8 (without one)");
  if (starts({0xEF, 0xBB, 0xBF})) {
    const std::string msg = "the JSON starts with a UTF-8 byte order mark, which glTF does not allow; read anyway";
    rd.diags.add(file_offset >= 0 ? warning_at_offset(rd.name, file_offset, fmt::format("JSON chunk: {}", msg))
                                  : warning_at_line(rd.name, 1, 1, msg));
  }
  size_t end = text.size();
  while (end > 0 && text[end - 1] == 0) --end;
  const uint8_t* nul = std::find(text.data(), text.data() + end, uint8_t(0));
  if (nul != text.data() + end)
    json_fail(rd.name, text, file_offset, size_t(nul - text.data()),
              "a NUL byte in the JSON text (binary data where JSON is expected?)");
  if (end < text.size()) {
    const std::string msg =
        fmt::format("the JSON ends with {} NUL bytes (padding must be spaces); they are ignored", text.size() - end);
    const auto [line, col] = line_column(text, end);
    rd.diags.add(file_offset >= 0
                     ? warning_at_offset(rd.name, file_offset + int64_t(end), fmt::format("JSON chunk: {}", msg))
                     : warning_at_line(rd.name, line, col, msg));
  }
  return text.first(end);
}

void parse_json(Reader& rd, std::span<const uint8_t> all, int64_t file_offset) {
  const std::span<const uint8_t> text = check_encoding(rd, all, file_offset);
  rd.part = "the JSON document";
  const uint64_t json_bytes = JsonCheck(rd.name, text, file_offset, rd.remaining_proportional()).run();
  rd.spent += json_bytes;
  rd.spent_proportional += json_bytes;
  try {
    rd.doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    size_t byte = 0;
    if (auto* pe = dynamic_cast<const json::parse_error*>(&e)) byte = pe->byte;
    std::string msg = e.what();
    if (size_t at = msg.find("parse error"); at != std::string::npos)
      if (size_t colon = msg.find(": ", at); colon != std::string::npos) msg = msg.substr(colon + 2);
    json_fail(rd.name, text, file_offset, byte > 0 ? byte - 1 : 0,
              printable(text::clip(msg, 200)));  // the last byte read
  }
  if (!rd.doc.is_object()) {
    const size_t first =
        size_t(std::find_if(text.begin(), text.end(), [](uint8_t c) { return !std::isspace(c); }) - text.begin());
    json_fail(rd.name, text, file_offset, first,
              fmt::format("the JSON document is {}, not an object", rd.doc.type_name()));
  }
}

void check_asset(Reader& rd) {
  const json* asset = field(rd.doc, "asset");
  if (!asset) {
    rd.warn("the required 'asset' object is missing; read as glTF 2.0");
  } else {
    if (!asset->is_object()) rd.error("asset", "is not an object");
    std::string v = rd.get_string(*asset, "version", "asset", true);
    if (v.size() < 2 || v[0] != '2' || v[1] != '.')
      rd.error("asset.version", fmt::format("glTF '{}' is not read (only glTF 2.x)", text::clip(v)));
  }
  static const char* supported[] = {"KHR_mesh_quantization",   "KHR_materials_unlit",     "KHR_texture_transform",
                                    "EXT_meshopt_compression", "KHR_meshopt_compression", "KHR_draco_mesh_compression",
                                    "EXT_mesh_gpu_instancing"};
  const json& req = rd.top("extensionsRequired");
  for (size_t i = 0; i < req.size(); ++i) {
    if (!req[i].is_string()) rd.error(fmt::format("extensionsRequired[{}]", i), "is not a string");
    std::string e = req[i].get<std::string>();
    if (std::none_of(std::begin(supported), std::end(supported), [&](const char* u) { return e == u; }))
      rd.warn(fmt::format("extensionsRequired[{}]: {} is not supported; what it adds is ignored", i, text::clip(e)));
  }
}

// ---- The whole file --------------------------------------------------------------------------

Scene run(Reader& rd) {
  // GLB by its magic; a .glb too short to hold it, but starting like it, is a truncated GLB.
  const bool named_glb = text::ends_with_nocase(rd.name, ".glb");
  if (rd.data.size() >= 4
          ? le32(rd.data.data()) == kGlbMagic
          : named_glb && (rd.data.empty() || std::memcmp(rd.data.data(), "glTF", rd.data.size()) == 0)) {
    rd.glb = true;
    split_glb(rd);
  } else {
    // A .glb without the magic is not a glTF JSON file either: say what is wrong with it.
    if (named_glb) fail_at_offset(rd.name, 0, "not a GLB file: the magic is not \"glTF\"");
    parse_json(rd, rd.data, -1);
  }
  check_asset(rd);
  read_root_extras(rd);
  // A slot per buffer, view and accessor, filled when first used.
  rd.spend(u128(rd.top("buffers").size()) * sizeof(BufferSlot), "buffers", "the buffers");
  rd.spend(u128(rd.top("bufferViews").size()) * sizeof(std::optional<View>), "bufferViews", "the buffer views");
  rd.spend(u128(rd.top("accessors").size()) * sizeof(std::unique_ptr<Accessor>), "accessors", "the accessors");
  rd.buffers.resize(rd.top("buffers").size());
  rd.views.resize(rd.top("bufferViews").size());
  rd.accessors.resize(rd.top("accessors").size());
  read_materials(rd);
  read_nodes(rd);
  read_skeleton(rd);
  read_polygon_materials(rd);
  read_meshes(rd);
  instance_meshes(rd);
  resolve_polygon_materials(rd);
  read_attachments(rd);
  read_animations(rd);
  restore_morph_ranges(rd);
  restore_animation_order(rd);
  rebase_joints(rd);
  restore_extras(rd);
  restore_modedef(rd.scene, rd.doc, rd.mesh_scene, rd.name, rd.diags);  // scene and mesh extras, kept by Blender
  return std::move(rd.scene);
}

}  // namespace meshport::gltf::read_impl

namespace meshport::gltf {

Scene read(std::span<const uint8_t> data, const std::string& name, const SideFileLoader& load, Diagnostics& diags,
           const ReadOptions& options) {
  read_impl::Reader r(data, name, load, diags, options.max_memory);
  r.scene_choice = options.scene;
  r.resample = options.resample;
  r.scene_list = options.scenes;
  try {
    return read_impl::run(r);
  } catch (const std::bad_alloc&) {
    // Past the budget's estimates (a library's own buffers, the system's limits): named.
    fail(name, fmt::format("out of memory while reading {}{}", r.part.empty() ? std::string("the file") : r.part,
                           r.max_memory ? "" : " (--max-memory lowers what a read may use)"));
  }
}

}  // namespace meshport::gltf
