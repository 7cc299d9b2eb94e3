// glTF 2.0 reader: .gltf (JSON with data-URI or external buffers) and .glb (binary container).
// Specification: Khronos glTF 2.0.
//
// Safety: every index is range-checked; every buffer view is checked against its buffer and
// every accessor's extent (byteOffset + stride * (count - 1) + element size, in 128-bit
// arithmetic) against its view before anything is read; what the Scene may grow to is bounded
// by a budget proportional to the input (the file and the buffers it loads), so a hostile count
// fails before it allocates; the node graph is checked for cycles and for nodes with two parents
// and walked iteratively. Errors name the JSON path of the offending value
// ("accessors[3].count: ..."), the line and column of a JSON syntax error, or the byte offset of
// a GLB framing error.
//
// Mapping to the Scene (glTF's conventions are the Scene's, so values are not converted):
// - every primitive of every mesh instance (nodes of the default scene, in node order) becomes a
//   Scene mesh named after the glTF mesh, with ".N" when the mesh has several primitives. Meshes
//   no node uses are read untransformed (warning); nodes outside the scene read are ignored.
// - static meshes are baked into world space by their node's world matrix: normals by its inverse
//   transpose, renormalised; tangents by the matrix, renormalised. A mirroring matrix (negative
//   determinant) flips the winding and negates the tangent handedness w: the mirrored frame is
//   left-handed, so bitangent = w * cross(n, t) needs the opposite sign to stay the mirrored
//   bitangent.
// - triangle strips and fans become triangles; their degenerate triangles (strip joins) are
//   dropped. Points and lines are an error.
// - attributes: TEXCOORD_n (n > 0) and COLOR_n become custom arrays "texcoordN" / "colorN",
//   "_NAME" the custom array "NAME"; JOINTS_n / WEIGHTS_n pairs merge into one blend pair of
//   4 * n components. VertexStream::format is the accessor's type when normalised (and for
//   joints); integer data that is not normalised holds plain numbers, which the Scene's integer
//   formats would misread as normalised, so it is declared Float.
// - primitives sharing one POSITION accessor keep only the vertices their indices use.
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
//   channel keep their rest value. A weights channel becomes a MorphWeightTrack (its keys as they
//   are, linear; CUBICSPLINE keeps the values, STEP is read as linear, each with a warning) of
//   every Scene mesh of that node's instance of the mesh (one per primitive); a second weights
//   channel of the same node is ignored (warning). An animation of morph weights only has no
//   frames (channels 0), its framerate the writer's, else its keys' grid as above.
// - materials: name, baseColorFactor (Material::base_color), and the baseColorTexture's image.
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
#include "formats/gltf.h"

#include "formats/gltf_modedef.h"
#include "formats/gltf_pie.h"
#include "text.h"
#include "ops/components.h"
#include "ops/math.h"

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
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace meshport::gltf {

namespace {

using json = nlohmann::json;
using u128 = unsigned __int128;

constexpr uint32_t kGlbMagic = 0x46546C67;  // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
// What the Scene (and the JSON document) may grow to: this many bytes per byte of input (the file
// and the buffers it loads), and a fixed allowance. With the input itself, an input under 10 MB
// then stays well under the 256 MB the project allows.
constexpr uint64_t kBudgetFactor = 12;
constexpr uint64_t kBudgetSlack = uint64_t(32) << 20;


uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// A short description of a JSON value for messages.
std::string describe(const json& v) {
  if (v.is_structured()) return std::string(v.type_name());
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

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

// A JSON number as float: beyond the float range it becomes an infinity (no undefined cast).
float narrow(double d) {
  if (d > double(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
  if (d < -double(std::numeric_limits<float>::max())) return -std::numeric_limits<float>::infinity();
  return float(d);
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

// ---------------------------------------------------------------------------------------------
// Small math

Vec3 linear(const Mat3x4& m, Vec3 v) {
  return {m[0] * v[0] + m[3] * v[1] + m[6] * v[2], m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
          m[2] * v[0] + m[5] * v[1] + m[8] * v[2]};
}

float det3(const Mat3x4& m) {
  return dot(cross(Vec3{m[0], m[1], m[2]}, Vec3{m[3], m[4], m[5]}), Vec3{m[6], m[7], m[8]});
}

// Inverse transpose of the 3x3 part (translation 0): transforms normals.
Mat3x4 normal_matrix(const Mat3x4& m) {
  Mat3x4 a = m;
  a[9] = a[10] = a[11] = 0;
  Mat3x4 inv = mat_inverse(a);
  Mat3x4 t{};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) t[c * 3 + r] = inv[r * 3 + c];
  return t;
}

// A glTF 4x4 column-major matrix as an affine matrix (the bottom row is ignored).
Mat3x4 affine_from_mat4(const float* m) {
  return {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10], m[12], m[13], m[14]};
}

// Quaternion of the rotation matrix with columns x, y, z.
Quat quat_from_basis(const std::array<double, 3>& x, const std::array<double, 3>& y, const std::array<double, 3>& z) {
  const double m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2], m02 = z[0], m12 = z[1],
               m22 = z[2];
  const double tr = m00 + m11 + m22;
  double q[4];
  if (tr > 0) {
    double s = std::sqrt(tr + 1.0) * 2;
    q[3] = 0.25 * s, q[0] = (m21 - m12) / s, q[1] = (m02 - m20) / s, q[2] = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    double s = std::sqrt(1.0 + m00 - m11 - m22) * 2;
    q[3] = (m21 - m12) / s, q[0] = 0.25 * s, q[1] = (m01 + m10) / s, q[2] = (m02 + m20) / s;
  } else if (m11 > m22) {
    double s = std::sqrt(1.0 + m11 - m00 - m22) * 2;
    q[3] = (m02 - m20) / s, q[0] = (m01 + m10) / s, q[1] = 0.25 * s, q[2] = (m12 + m21) / s;
  } else {
    double s = std::sqrt(1.0 + m22 - m00 - m11) * 2;
    q[3] = (m10 - m01) / s, q[0] = (m02 + m20) / s, q[1] = (m12 + m21) / s, q[2] = 0.25 * s;
  }
  double l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(l > 0)) return {0, 0, 0, 1};
  return {float(q[0] / l), float(q[1] / l), float(q[2] / l), float(q[3] / l)};
}

// Translation, rotation and scale of an affine matrix. A mirroring matrix gets a negative x
// scale. `exact` is false when the matrix has shear (or a zero scale): the rotation is then the
// Gram-Schmidt orthonormalisation of its basis, a best effort.
Transform decompose(const Mat3x4& m, bool& exact) {
  using D3 = std::array<double, 3>;
  auto ddot = [](const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  auto dcross = [](const D3& a, const D3& b) {
    return D3{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  auto dnorm = [&](D3 a) {
    double l = std::sqrt(ddot(a, a));
    return l > 0 ? D3{a[0] / l, a[1] / l, a[2] / l} : a;
  };
  D3 c[3];
  for (int i = 0; i < 3; ++i) c[i] = {m[i * 3], m[i * 3 + 1], m[i * 3 + 2]};
  double s[3];
  for (int i = 0; i < 3; ++i) s[i] = std::sqrt(ddot(c[i], c[i]));
  if (ddot(dcross(c[0], c[1]), c[2]) < 0) s[0] = -s[0];
  Transform t;
  t.translation = {m[9], m[10], m[11]};
  t.scale = {float(s[0]), float(s[1]), float(s[2])};
  exact = s[0] != 0 && s[1] != 0 && s[2] != 0;
  if (!exact) {
    t.rotation = {0, 0, 0, 1};
    return t;
  }
  D3 r[3];
  for (int i = 0; i < 3; ++i) r[i] = {c[i][0] / s[i], c[i][1] / s[i], c[i][2] / s[i]};
  const double tol = 1e-4;
  if (std::fabs(ddot(r[0], r[1])) > tol || std::fabs(ddot(r[0], r[2])) > tol || std::fabs(ddot(r[1], r[2])) > tol) {
    exact = false;
    r[0] = dnorm(r[0]);
    double d = ddot(r[0], r[1]);
    r[1] = dnorm(D3{r[1][0] - r[0][0] * d, r[1][1] - r[0][1] * d, r[1][2] - r[0][2] * d});
    r[2] = dcross(r[0], r[1]);
  }
  t.rotation = quat_from_basis(r[0], r[1], r[2]);
  return t;
}

// Unit quaternion: values within float rounding of unit length are kept bit for bit.
Quat unit(Quat q) {
  float l2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (std::fabs(l2 - 1.0f) <= 1e-5f) return q;
  return quat_normalize(q);
}


// ---------------------------------------------------------------------------------------------
// URIs

bool has_scheme(std::string_view u) {
  // RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" before any '/', '?' or '#'. A
  // single letter followed by ':' is taken as a scheme too (a drive letter is absolute anyway).
  for (size_t i = 0; i < u.size(); ++i) {
    char c = u[i];
    if (c == ':') return i > 0;
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) return false;
  }
  return false;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view u) {
  std::string out;
  out.reserve(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    if (u[i] == '%' && i + 2 < u.size()) {
      int h = hex_value(u[i + 1]), l = hex_value(u[i + 2]);
      if (h >= 0 && l >= 0) {
        out += char(h * 16 + l);
        i += 2;
        continue;
      }
    }
    out += u[i];
  }
  return out;
}

}  // namespace

// Decodes base64 (gltf.h).
size_t base64_decode(std::string_view s, std::vector<uint8_t>& out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  size_t end = s.size();
  size_t pad = 0;
  while (end > 0 && s[end - 1] == '=' && pad < 2) --end, ++pad;
  out.clear();
  out.reserve(end / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    int v = value(s[i]);
    if (v < 0) return i;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(uint8_t(acc >> bits));
      acc &= (1u << bits) - 1;
    }
  }
  if (end % 4 == 1) return end;  // a lone sextet cannot encode a byte
  return std::string_view::npos;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Accessors

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

std::optional<ComponentType> component_type(uint64_t gl) {
  switch (gl) {
    case 5120: return ComponentType::Byte;
    case 5121: return ComponentType::UByte;
    case 5122: return ComponentType::Short;
    case 5123: return ComponentType::UShort;
    case 5125: return ComponentType::UInt;
    case 5126: return ComponentType::Float;
    default: return std::nullopt;
  }
}

uint32_t read_uint(ComponentType t, const uint8_t* p) {
  switch (t) {
    case ComponentType::UByte: return p[0];
    case ComponentType::UShort: return uint32_t(p[0]) | uint32_t(p[1]) << 8;
    default: return le32(p);
  }
}

void decode_element(const Accessor& a, const uint8_t* src, float* dst) {
  if (a.columns == 1) {
    ops::decode(a.type, a.normalized, src, a.comps, dst);
    return;
  }
  for (uint32_t c = 0; c < a.columns; ++c)
    ops::decode(a.type, a.normalized, src + size_t(c) * a.column_stride, a.rows, dst + size_t(c) * a.rows);
}

// Scene components: positions and normals at least 3, tangents 4.
uint32_t scene_components(Attribute a, uint32_t size) {
  if (a == Attribute::Position || a == Attribute::Normal) return std::max(size, 3u);
  if (a == Attribute::Tangent) return 4;
  return size;
}

enum class Interp { Step, Linear, Cubic };

// One animated property of one joint.
struct Channel {
  uint32_t joint = 0;  // Scene joint
  int path = 0;        // 0 translation, 1 rotation, 2 scale
  Interp interp = Interp::Linear;
  std::shared_ptr<const std::vector<float>> times;
  std::shared_ptr<const std::vector<float>> values;  // comps per element (x3 for cubic)
  uint32_t comps = 3;

  const float* value(size_t k) const {
    return values->data() + (interp == Interp::Cubic ? (3 * k + 1) : k) * comps;
  }
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

// ---------------------------------------------------------------------------------------------

class Reader {
 public:
  Reader(std::span<const uint8_t> data, const std::string& name, const SideFileLoader& load, Diagnostics& diags)
      : data_(data), name_(name), load_(load), diags_(diags) {
    budget_ = uint64_t(data.size()) * kBudgetFactor + kBudgetSlack;
  }

  Scene run();

 private:
  std::span<const uint8_t> data_;
  const std::string& name_;
  const SideFileLoader& load_;
  Diagnostics& diags_;
  uint64_t budget_ = 0;
  json doc_;
  bool glb_ = false;
  bool has_bin_ = false;
  std::span<const uint8_t> bin_;
  Scene scene_;

  struct BufferSlot {
    bool loaded = false;
    std::vector<uint8_t> owned;
    std::span<const uint8_t> bytes;
  };
  std::vector<BufferSlot> buffers_;
  std::vector<std::optional<View>> views_;
  std::vector<std::unique_ptr<Accessor>> accessors_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> topo_;  // parents before children
  std::vector<std::vector<Primitive>> meshes_;
  std::vector<int32_t> mesh_scene_;  // per glTF mesh: the Scene mesh of its first instance's first primitive
  std::vector<Skin> skins_;
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
  } mp_;

  // ---- diagnostics
  [[noreturn]] void error(const std::string& path, const std::string& msg) const {
    fail(name_, fmt::format("{}: {}", path, msg));
  }
  void warn(std::string msg) { diags_.add(warning(name_, std::move(msg))); }
  void spend(u128 bytes, const std::string& path, std::string_view what) {
    if (bytes > budget_)
      error(path, fmt::format("{} would need {} bytes of memory, more than the input ({} bytes and its buffers) can "
                              "justify",
                              what, text::u128_string(bytes), data_.size()));
    budget_ -= uint64_t(bytes);
  }

  // ---- JSON access
  static const json* member(const json& o, const char* key) {
    if (!o.is_object()) return nullptr;
    auto it = o.find(key);
    return it == o.end() ? nullptr : &*it;
  }
  const json& top(const char* key) const {
    static const json empty = json::array();
    const json* v = member(doc_, key);
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
    const json* v = member(o, key);
    if (!v) {
      if (def) return *def;
      error(path, fmt::format("the required property '{}' is missing", key));
    }
    auto u = as_uint(*v);
    if (!u) error(fmt::format("{}.{}", path, key), fmt::format("{} is not a non-negative integer", describe(*v)));
    return *u;
  }
  double get_number(const json& o, const char* key, const std::string& path, double def) const {
    const json* v = member(o, key);
    if (!v) return def;
    if (!v->is_number()) error(fmt::format("{}.{}", path, key), fmt::format("{} is not a number", describe(*v)));
    return v->get<double>();
  }
  bool get_bool(const json& o, const char* key, const std::string& path, bool def) const {
    const json* v = member(o, key);
    if (!v) return def;
    if (!v->is_boolean()) error(fmt::format("{}.{}", path, key), fmt::format("{} is not a boolean", describe(*v)));
    return v->get<bool>();
  }
  // A boolean of meshport's extras: true / false, or 1 / 0 as Blender writes booleans back.
  bool get_flag(const json& o, const char* key, const std::string& path, bool def) const {
    const json* v = member(o, key);
    if (!v) return def;
    if (v->is_number() && (v->get<double>() == 0 || v->get<double>() == 1)) return v->get<double>() == 1;
    return get_bool(o, key, path, def);
  }
  std::string get_string(const json& o, const char* key, const std::string& path, bool required = false) const {
    const json* v = member(o, key);
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
    if (!member(o, key)) return std::nullopt;
    return get_index(o, key, path, array);
  }
  // A fixed-size array of numbers.
  bool get_floats(const json& o, const char* key, const std::string& path, float* out, size_t n) const {
    const json* v = member(o, key);
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
    const json* v = member(o, key);
    if (!v) return empty;
    if (!v->is_array()) error(fmt::format("{}.{}", path, key), fmt::format("is {}, not an array", v->type_name()));
    return *v;
  }

  // ---- stages
  void split_glb();
  std::span<const uint8_t> check_encoding(std::span<const uint8_t> text, int64_t file_offset);
  void parse_json(std::span<const uint8_t> text, int64_t file_offset);
  void check_asset();
  std::span<const uint8_t> buffer(uint32_t i);
  const View& view(uint32_t i);
  const Accessor& accessor(uint32_t i);
  const Accessor& accessor_at(const json& o, const char* key, const std::string& path) {
    return accessor(get_index(o, key, path, "accessors"));
  }
  template <class T, class Decode>
  std::vector<T> read(const Accessor& a, Decode&& decode, uint32_t width);
  std::vector<float> floats(const Accessor& a);
  std::vector<uint32_t> indices(const Accessor& a, const std::string& use);

  void read_materials();
  std::string texture_name(uint32_t texture);
  void read_nodes();
  void read_node_extras(Node& node, const json& o, const std::string& path);
  void read_skeleton();
  Primitive read_primitive(uint32_t m, uint32_t p, const json& mesh, const json& prim, bool compact);
  void read_meshes();
  void instance_meshes();
  bool is_attachment(uint32_t n) const;
  Attachment attachment(uint32_t n);
  void read_attachments();
  void read_animations();
  void read_animation(uint32_t a);
  void read_root_extras();
  void map_extras_nodes(const json& mp, uint64_t count);
  void map_extras_meshes(const json& mp);
  const json* kept_animation_extras(uint32_t ai, const std::string& name);
  void rebase_joints();
  void restore_primitive(Mesh& m, const std::vector<std::string>& keys, const json& mp, const std::string& path);
  void restore_format_data(Mesh& m, const json& mp, const std::string& path);
  void restore_extras();
  void restore_pie(const json& mp);
  static const json* meshport_extras(const json& o) {
    const json* e = member(o, "extras");
    return e ? member(*e, "meshport") : nullptr;
  }
};

// ---- GLB framing and JSON --------------------------------------------------------------------

void Reader::split_glb() {
  const uint64_t size = data_.size();
  const uint8_t* p = data_.data();
  if (size < 12)
    fail_at_offset(name_, int64_t(size), fmt::format("truncated GLB header: the file has {} bytes, 12 needed", size));
  uint32_t version = le32(p + 4);
  if (version != 2) fail_at_offset(name_, 4, fmt::format("unsupported GLB version {} (version 2 is read)", version));
  uint64_t length = le32(p + 8);
  if (length > size)
    fail_at_offset(name_, 8, fmt::format("the header's length is {} bytes but the file has {} (truncated?)", length,
                                         size));
  if (length < size)
    diags_.add(warning_at_offset(name_, 8, fmt::format("the header's length is {} bytes but the file has {}; the rest "
                                                       "is ignored",
                                                       length, size)));
  if (length < 20)
    fail_at_offset(name_, int64_t(std::min<uint64_t>(length, 12)),
                   fmt::format("truncated GLB: {} bytes hold no JSON chunk header", length));
  uint64_t json_len = le32(p + 12);
  uint32_t json_type = le32(p + 16);
  if (json_type != kChunkJson)
    fail_at_offset(name_, 16, fmt::format("the first chunk's type is 0x{:08x}, not JSON (0x{:08x})", json_type,
                                          kChunkJson));
  // Where the GLB ends: the file's end, or the header's length when that is shorter.
  const std::string end = length == size ? fmt::format("the end of the file ({} bytes)", length)
                                         : fmt::format("the header's length ({} bytes)", length);
  if (json_len > length - 20)
    fail_at_offset(name_, 12,
                   fmt::format("the JSON chunk's {} bytes end at offset {}, past {}", json_len, 20 + json_len, end));
  std::span<const uint8_t> text = data_.subspan(20, json_len);
  if (json_len % 4)
    diags_.add(warning_at_offset(name_, 12, fmt::format("the JSON chunk's length {} is not a multiple of 4 (chunks "
                                                        "must be 4-byte aligned)",
                                                        json_len)));
  uint64_t off = 20 + json_len;
  while (off < length) {
    if (length - off < 8)
      fail_at_offset(name_, int64_t(off), fmt::format("truncated chunk header: {} bytes left, 8 needed", length - off));
    uint64_t len = le32(p + off);
    uint32_t type = le32(p + off + 4);
    if (len > length - off - 8)
      fail_at_offset(name_, int64_t(off),
                     fmt::format("chunk of {} bytes at offset {} ends at {}, past {}", len, off, off + 8 + len, end));
    if (len % 4)
      diags_.add(warning_at_offset(name_, int64_t(off), fmt::format("the chunk's length {} is not a multiple of 4 "
                                                                    "(chunks must be 4-byte aligned)",
                                                                    len)));
    if (type == kChunkBin) {
      if (has_bin_)
        diags_.add(warning_at_offset(name_, int64_t(off), "a second BIN chunk is ignored"));
      else
        bin_ = data_.subspan(off + 8, len), has_bin_ = true;
    } else if (type == kChunkJson) {
      diags_.add(warning_at_offset(name_, int64_t(off), "a second JSON chunk is ignored"));
    }  // other chunk types: ignored, as the specification requires
    off += 8 + len;
  }
  parse_json(text, 20);
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
std::span<const uint8_t> Reader::check_encoding(std::span<const uint8_t> text, int64_t file_offset) {
  auto starts = [&](std::initializer_list<uint8_t> bom) {
    return text.size() >= bom.size() && std::equal(bom.begin(), bom.end(), text.begin());
  };
  if (starts({0xFF, 0xFE}) || starts({0xFE, 0xFF}) || starts({0, 0, 0xFE, 0xFF}))
    json_fail(name_, text, file_offset, 0,
              "the JSON starts with a UTF-16 or UTF-32 byte order mark: glTF JSON must be UTF-8 (without one)");
  if (starts({0xEF, 0xBB, 0xBF})) {
    const std::string msg = "the JSON starts with a UTF-8 byte order mark, which glTF does not allow; read anyway";
    diags_.add(file_offset >= 0 ? warning_at_offset(name_, file_offset, fmt::format("JSON chunk: {}", msg))
                                : warning_at_line(name_, 1, 1, msg));
  }
  size_t end = text.size();
  while (end > 0 && text[end - 1] == 0) --end;
  const uint8_t* nul = std::find(text.data(), text.data() + end, uint8_t(0));
  if (nul != text.data() + end)
    json_fail(name_, text, file_offset, size_t(nul - text.data()),
              "a NUL byte in the JSON text (binary data where JSON is expected?)");
  if (end < text.size()) {
    const std::string msg = fmt::format("the JSON ends with {} NUL bytes (padding must be spaces); they are ignored",
                                        text.size() - end);
    const auto [line, col] = line_column(text, end);
    diags_.add(file_offset >= 0
                   ? warning_at_offset(name_, file_offset + int64_t(end), fmt::format("JSON chunk: {}", msg))
                   : warning_at_line(name_, line, col, msg));
  }
  return text.first(end);
}

void Reader::parse_json(std::span<const uint8_t> all, int64_t file_offset) {
  const std::span<const uint8_t> text = check_encoding(all, file_offset);
  budget_ -= JsonCheck(name_, text, file_offset, budget_).run();
  try {
    doc_ = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    size_t byte = 0;
    if (auto* pe = dynamic_cast<const json::parse_error*>(&e)) byte = pe->byte;
    std::string msg = e.what();
    if (size_t at = msg.find("parse error"); at != std::string::npos)
      if (size_t colon = msg.find(": ", at); colon != std::string::npos) msg = msg.substr(colon + 2);
    json_fail(name_, text, file_offset, byte > 0 ? byte - 1 : 0, printable(text::clip(msg, 200)));  // the last byte read
  }
  if (!doc_.is_object()) {
    const size_t first = size_t(std::find_if(text.begin(), text.end(), [](uint8_t c) { return !std::isspace(c); }) -
                                text.begin());
    json_fail(name_, text, file_offset, first, fmt::format("the JSON document is {}, not an object", doc_.type_name()));
  }
}

void Reader::check_asset() {
  const json* asset = member(doc_, "asset");
  if (!asset) {
    warn("the required 'asset' object is missing; read as glTF 2.0");
  } else {
    if (!asset->is_object()) error("asset", "is not an object");
    std::string v = get_string(*asset, "version", "asset", true);
    if (v.size() < 2 || v[0] != '2' || v[1] != '.')
      error("asset.version", fmt::format("glTF '{}' is not read (only glTF 2.x)", text::clip(v)));
  }
  static const char* unsupported[] = {"KHR_draco_mesh_compression", "EXT_meshopt_compression",
                                      "KHR_meshopt_compression"};
  static const char* supported[] = {"KHR_mesh_quantization", "KHR_materials_unlit", "KHR_texture_transform"};
  const json& req = top("extensionsRequired");
  for (size_t i = 0; i < req.size(); ++i) {
    if (!req[i].is_string()) error(fmt::format("extensionsRequired[{}]", i), "is not a string");
    std::string e = req[i].get<std::string>();
    if (std::any_of(std::begin(unsupported), std::end(unsupported), [&](const char* u) { return e == u; }))
      error(fmt::format("extensionsRequired[{}]", i), fmt::format("{} is not supported: its compressed data cannot be "
                                                                 "read",
                                                                 text::clip(e)));
    if (std::none_of(std::begin(supported), std::end(supported), [&](const char* u) { return e == u; }))
      warn(fmt::format("extensionsRequired[{}]: {} is not supported; what it adds is ignored", i, text::clip(e)));
  }
}

// ---- Buffers, views, accessors ---------------------------------------------------------------

std::span<const uint8_t> Reader::buffer(uint32_t i) {
  BufferSlot& slot = buffers_[i];
  if (slot.loaded) return slot.bytes;
  const std::string path = fmt::format("buffers[{}]", i);
  const json& b = element("buffers", i);
  uint64_t len = get_uint(b, "byteLength", path, std::nullopt);
  const json* uri = member(b, "uri");
  if (!uri) {
    if (i != 0 || !glb_)
      error(path, "has no uri (only buffer 0 of a .glb may omit it, to refer to the BIN chunk)");
    if (!has_bin_) error(path, "refers to the GLB BIN chunk, but the file has none");
    if (len > bin_.size())
      error(path + ".byteLength", fmt::format("{} bytes, but the BIN chunk has {}", len, bin_.size()));
    slot.bytes = bin_.first(len);
  } else {
    if (!uri->is_string()) error(path + ".uri", fmt::format("{} is not a string", describe(*uri)));
    const std::string& u = uri->get_ref<const std::string&>();
    if (u.compare(0, 5, "data:") == 0) {
      size_t comma = u.find(',');
      std::string_view header = std::string_view(u).substr(5, comma == std::string::npos ? 0 : comma - 5);
      if (comma == std::string::npos || header.size() < 7 || header.substr(header.size() - 7) != ";base64")
        error(path + ".uri", "only base64 data URIs are read");
      spend(u128(u.size() - comma) / 4 * 3 + 3, path + ".uri", "the decoded data");
      size_t bad = base64_decode(std::string_view(u).substr(comma + 1), slot.owned);
      if (bad != std::string_view::npos)
        error(path + ".uri", fmt::format("invalid base64 data at character {} of the data", bad));
    } else {
      if (has_scheme(u) || u.empty() || u[0] == '/' || u[0] == '\\')
        error(path + ".uri", fmt::format("'{}' is not a relative path: only data URIs and files beside the model are "
                                         "read",
                                         text::clip(u)));
      std::string rel = percent_decode(u);
      try {
        slot.owned = load_(rel);
      } catch (const Error& e) {
        error(path + ".uri", fmt::format("cannot load '{}': {}", text::clip(rel), e.diagnostic().message));
      }
      budget_ += uint64_t(slot.owned.size()) * kBudgetFactor;
    }
    if (slot.owned.size() < len)
      error(path + ".byteLength", fmt::format("{} bytes, but its data has {}", len, slot.owned.size()));
    slot.bytes = std::span<const uint8_t>(slot.owned.data(), len);
  }
  slot.loaded = true;
  return slot.bytes;
}

const View& Reader::view(uint32_t i) {
  if (views_[i]) return *views_[i];
  const std::string path = fmt::format("bufferViews[{}]", i);
  const json& v = element("bufferViews", i);
  uint32_t b = get_index(v, "buffer", path, "buffers");
  uint64_t off = get_uint(v, "byteOffset", path, 0);
  uint64_t len = get_uint(v, "byteLength", path, std::nullopt);
  uint64_t stride = get_uint(v, "byteStride", path, 0);
  if (member(v, "byteStride") && (stride < 4 || stride > 252 || stride % 4))
    error(path + ".byteStride", fmt::format("{} is not a multiple of 4 from 4 to 252", stride));
  std::span<const uint8_t> bytes = buffer(b);
  if (u128(off) + len > bytes.size())
    error(path, fmt::format("byteOffset {} + byteLength {} = {} is past the end of buffers[{}] ({} bytes)", off, len,
                            text::u128_string(u128(off) + len), b, bytes.size()));
  views_[i] = View{bytes.subspan(off, len), uint32_t(stride)};
  return *views_[i];
}

const Accessor& Reader::accessor(uint32_t i) {
  if (accessors_[i]) return *accessors_[i];
  auto a = std::make_unique<Accessor>();
  a->index = i;
  a->path = fmt::format("accessors[{}]", i);
  const std::string& path = a->path;
  const json& o = element("accessors", i);
  uint64_t ct = get_uint(o, "componentType", path, std::nullopt);
  auto type = component_type(ct);
  if (!type) error(path + ".componentType", fmt::format("{} is not a glTF component type", ct));
  a->gl_component = uint32_t(ct);
  a->type = *type;
  a->normalized = get_bool(o, "normalized", path, false);
  if (a->normalized && (a->type == ComponentType::Float || a->type == ComponentType::UInt))
    error(path + ".normalized", fmt::format("{} components cannot be normalized", ops::component_name(a->type)));
  a->type_name = get_string(o, "type", path, true);
  static const std::pair<const char*, uint32_t> types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
                                                           {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
  auto t = std::find_if(std::begin(types), std::end(types), [&](auto& x) { return a->type_name == x.first; });
  if (t == std::end(types)) error(path + ".type", fmt::format("'{}' is not an accessor type", text::clip(a->type_name)));
  a->comps = t->second;
  const uint32_t cs = uint32_t(ops::component_size(a->type));
  if (a->type_name.compare(0, 3, "MAT") == 0) {
    a->rows = a->columns = uint32_t(a->type_name[3] - '0');
    a->column_stride = (a->rows * cs + 3) / 4 * 4;  // columns start on 4-byte boundaries
    a->element_size = a->columns * a->column_stride;
  } else {
    a->element_size = a->comps * cs;
  }
  a->count = get_uint(o, "count", path, std::nullopt);
  if (a->count == 0) error(path + ".count", "is 0 (at least 1 element is required)");
  uint64_t offset = get_uint(o, "byteOffset", path, 0);
  if (auto bv = opt_index(o, "bufferView", path, "bufferViews")) {
    const View& v = view(*bv);
    a->stride = v.stride ? v.stride : a->element_size;
    if (a->stride < a->element_size)
      error(fmt::format("bufferViews[{}].byteStride", *bv),
            fmt::format("{} is less than the {} bytes of an element of {} ({} {})", a->stride, a->element_size, path,
                        a->type_name, ops::component_name(a->type)));
    u128 need = u128(offset) + u128(a->stride) * (a->count - 1) + a->element_size;
    if (need > v.bytes.size())
      error(path + ".count", fmt::format("{} elements do not fit bufferViews[{}] ({} bytes): from byteOffset {} with "
                                         "stride {} they need {} bytes",
                                         a->count, *bv, v.bytes.size(), offset, a->stride, text::u128_string(need)));
    a->base = v.bytes.data() + offset;
  } else if (offset) {
    error(path + ".byteOffset", "is set but the accessor has no bufferView");
  }
  if (const json* sp = member(o, "sparse")) {
    const std::string sparse_path = path + ".sparse";
    Accessor::Sparse s;
    s.count = get_uint(*sp, "count", sparse_path, std::nullopt);
    if (s.count == 0 || s.count > a->count)
      error(sparse_path + ".count", fmt::format("{} is not between 1 and the accessor's count ({})", s.count, a->count));
    const json* idx = member(*sp, "indices");
    const json* val = member(*sp, "values");
    if (!idx || !idx->is_object()) error(sparse_path, "has no 'indices' object");
    if (!val || !val->is_object()) error(sparse_path, "has no 'values' object");
    const std::string ip = sparse_path + ".indices", vp = sparse_path + ".values";
    uint64_t ict = get_uint(*idx, "componentType", ip, std::nullopt);
    if (ict != 5121 && ict != 5123 && ict != 5125)
      error(ip + ".componentType", fmt::format("{} is not an unsigned integer type (5121, 5123 or 5125)", ict));
    s.index_type = *component_type(ict);
    uint32_t ibv = get_index(*idx, "bufferView", ip, "bufferViews");
    uint64_t ioff = get_uint(*idx, "byteOffset", ip, 0);
    const View& iv = view(ibv);
    u128 ineed = u128(ioff) + u128(s.count) * ops::component_size(s.index_type);
    if (ineed > iv.bytes.size())
      error(ip, fmt::format("{} indices from byteOffset {} need {} bytes, but bufferViews[{}] has {}", s.count, ioff,
                            text::u128_string(ineed), ibv, iv.bytes.size()));
    uint32_t vbv = get_index(*val, "bufferView", vp, "bufferViews");
    uint64_t voff = get_uint(*val, "byteOffset", vp, 0);
    const View& vv = view(vbv);
    u128 vneed = u128(voff) + u128(s.count) * a->element_size;
    if (vneed > vv.bytes.size())
      error(vp, fmt::format("{} values from byteOffset {} need {} bytes, but bufferViews[{}] has {}", s.count, voff,
                            text::u128_string(vneed), vbv, vv.bytes.size()));
    s.indices = iv.bytes.data() + ioff;
    s.values = vv.bytes.data() + voff;
    a->sparse = s;
  }
  accessors_[i] = std::move(a);
  return *accessors_[i];
}

// Reads an accessor as `width` values of T per element: the base data (or zeros), then the
// sparse substitutions. `decode(src, dst)` decodes one element.
template <class T, class Decode>
std::vector<T> Reader::read(const Accessor& a, Decode&& decode, uint32_t width) {
  spend(u128(a.count) * width * sizeof(T), a.path, fmt::format("{} elements of {}", a.count, a.type_name));
  std::vector<T> out(size_t(a.count) * width, T(0));
  if (a.base)
    for (size_t i = 0; i < a.count; ++i) decode(a.base + i * a.stride, out.data() + i * width);
  if (a.sparse) {
    const size_t isz = ops::component_size(a.sparse->index_type);
    for (size_t k = 0; k < a.sparse->count; ++k) {
      uint32_t target = read_uint(a.sparse->index_type, a.sparse->indices + k * isz);
      if (target >= a.count)
        error(a.path + ".sparse.indices",
              fmt::format("index {} (entry {}) is not below the accessor's count ({})", target, k, a.count));
      decode(a.sparse->values + k * a.element_size, out.data() + size_t(target) * width);
    }
  }
  return out;
}

std::vector<float> Reader::floats(const Accessor& a) {
  std::vector<float> v = read<float>(a, [&](const uint8_t* src, float* dst) { decode_element(a, src, dst); }, a.comps);
  if (a.type == ComponentType::Float) {
    const size_t bad = size_t(std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); }));
    if (bad) warn(fmt::format("{}: {} values are NaN or infinite, which glTF does not allow", a.path, bad));
  }
  return v;
}

std::vector<uint32_t> Reader::indices(const Accessor& a, const std::string& use) {
  if (a.comps != 1 || a.columns != 1 || a.normalized ||
      !(a.type == ComponentType::UByte || a.type == ComponentType::UShort || a.type == ComponentType::UInt))
    error(use, fmt::format("{} is {}{} {}, not SCALAR unsigned byte, short or int", a.path,
                           a.normalized ? "normalized " : "", a.type_name, ops::component_name(a.type)));
  return read<uint32_t>(a, [&](const uint8_t* src, uint32_t* dst) { *dst = read_uint(a.type, src); }, 1);
}

// ---- Materials -------------------------------------------------------------------------------

std::string Reader::texture_name(uint32_t t) {
  const std::string tp = fmt::format("textures[{}]", t);
  const json& tex = element("textures", t);
  opt_index(tex, "sampler", tp, "samplers");
  std::optional<uint32_t> src = opt_index(tex, "source", tp, "images");
  if (!src)
    if (const json* ext = member(tex, "extensions"); ext && ext->is_object())
      for (auto& [k, v] : ext->items())
        if (member(v, "source")) {
          src = get_index(v, "source", fmt::format("{}.extensions.{}", tp, k), "images");
          break;
        }
  if (!src) return {};
  const std::string ip = fmt::format("images[{}]", *src);
  const json& img = element("images", *src);
  opt_index(img, "bufferView", ip, "bufferViews");
  std::string uri = get_string(img, "uri", ip);
  if (!uri.empty() && uri.compare(0, 5, "data:") != 0) return percent_decode(uri);
  return get_string(img, "name", ip);
}

void Reader::read_materials() {
  const json& mats = top("materials");
  for (size_t i = 0; i < mats.size(); ++i) {
    const std::string path = fmt::format("materials[{}]", i);
    const json& m = object_at(mats, i, path);
    Material mat;
    mat.name = get_string(m, "name", path);
    if (const json* pbr = member(m, "pbrMetallicRoughness")) {
      if (const json* bct = member(*pbr, "baseColorTexture")) {
        std::string bp = path + ".pbrMetallicRoughness.baseColorTexture";
        mat.base_color_texture = texture_name(get_index(*bct, "index", bp, "textures"));
      }
      get_floats(*pbr, "baseColorFactor", path + ".pbrMetallicRoughness", mat.base_color.data(), 4);
    }
    if (const json* mp = meshport_extras(m)) {
      try {
        const std::string xp = path + ".extras.meshport";
        std::string name = get_string(*mp, "name", xp), tex = get_string(*mp, "base_color_texture", xp);
        mat.name = std::move(name);
        mat.base_color_texture = std::move(tex);
      } catch (const Error& e) {
        warn(fmt::format("{}; ignored", e.diagnostic().message));
      }
    }
    scene_.materials.push_back(std::move(mat));
  }
  // Every texture's and image's indices are checked, used or not.
  const json& texs = top("textures");
  for (size_t t = 0; t < texs.size(); ++t) texture_name(uint32_t(t));
  const json& imgs = top("images");
  for (size_t i = 0; i < imgs.size(); ++i) {
    const std::string ip = fmt::format("images[{}]", i);
    opt_index(object_at(imgs, i, ip), "bufferView", ip, "bufferViews");
  }
}

// ---- Nodes -----------------------------------------------------------------------------------

void Reader::read_nodes() {
  const json& arr = top("nodes");
  const size_t n = arr.size();
  spend(u128(n) * sizeof(Node), "nodes", fmt::format("{} nodes", n));
  nodes_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string path = fmt::format("nodes[{}]", i);
    const json& o = object_at(arr, i, path);
    Node& node = nodes_[i];
    node.name = get_string(o, "name", path);
    node.mesh = opt_index(o, "mesh", path, "meshes");
    node.skin = opt_index(o, "skin", path, "skins");
    node.camera = member(o, "camera") != nullptr;
    const json* ext = member(o, "extensions");
    node.light = ext && member(*ext, "KHR_lights_punctual");
    read_node_extras(node, o, path);
    const json& ch = get_array(o, "children", path);
    for (size_t k = 0; k < ch.size(); ++k) {
      const std::string cp = fmt::format("{}.children[{}]", path, k);
      auto c = as_uint(ch[k]);
      if (!c) error(cp, fmt::format("{} is not a node index", describe(ch[k])));
      uint32_t child = check_index(*c, cp, "nodes");
      if (child == i) error(cp, fmt::format("node {} lists itself as a child (a cycle)", i));
      if (nodes_[child].parent >= 0)
        error(cp, fmt::format("node {} already has a parent, nodes[{}] (a node may have only one)", child,
                              nodes_[child].parent));
      nodes_[child].parent = int32_t(i);
      node.children.push_back(child);
    }
    float m[16];
    if (get_floats(o, "matrix", path, m, 16)) {
      node.has_matrix = true;
      node.local = affine_from_mat4(m);
      if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1)
        warn(fmt::format("{}.matrix: the bottom row is not (0, 0, 0, 1); the projective part is ignored", path));
      if (member(o, "translation") || member(o, "rotation") || member(o, "scale"))
        warn(fmt::format("{}: has both a matrix and translation/rotation/scale; the matrix is used", path));
      node.trs = decompose(node.local, node.trs_exact);
    } else {
      get_floats(o, "translation", path, node.trs.translation.data(), 3);
      if (get_floats(o, "rotation", path, node.trs.rotation.data(), 4)) node.trs.rotation = unit(node.trs.rotation);
      get_floats(o, "scale", path, node.trs.scale.data(), 3);
      node.local = mat_from_trs(node.trs.translation, node.trs.rotation, node.trs.scale);
    }
  }
  // Parents before children; a node never reached from a root is on (or under) a cycle.
  topo_.reserve(n);
  std::vector<uint32_t> stack;
  for (size_t i = 0; i < n; ++i)
    if (nodes_[i].parent < 0) stack.push_back(uint32_t(i));
  while (!stack.empty()) {
    uint32_t x = stack.back();
    stack.pop_back();
    topo_.push_back(x);
    for (auto it = nodes_[x].children.rbegin(); it != nodes_[x].children.rend(); ++it) stack.push_back(*it);
  }
  if (topo_.size() < n) {
    std::vector<bool> seen(n);
    for (uint32_t x : topo_) seen[x] = true;
    size_t first = 0;
    while (seen[first]) ++first;
    uint32_t x = uint32_t(first);
    for (size_t k = 0; k < n; ++k) x = uint32_t(nodes_[x].parent);  // now on the cycle
    error(fmt::format("nodes[{}].children", nodes_[x].parent),
          fmt::format("the node hierarchy has a cycle: node {} is its own ancestor", x));
  }
  for (uint32_t x : topo_) {
    Node& node = nodes_[x];
    node.world = node.parent >= 0 ? mat_mul(nodes_[node.parent].world, node.local) : node.local;
  }
  // The active scene: `scene`, else scenes[0]; every node when the file has no scenes.
  const json& scenes = top("scenes");
  if (scenes.empty()) {
    for (Node& node : nodes_) node.active = true;
    return;
  }
  uint32_t s = 0;
  if (const json* sc = member(doc_, "scene")) {
    auto v = as_uint(*sc);
    if (!v) error("scene", fmt::format("{} is not a scene index", describe(*sc)));
    s = check_index(*v, "scene", "scenes");
  }
  const std::string sp = fmt::format("scenes[{}]", s);
  const json& roots = get_array(object_at(scenes, s, sp), "nodes", sp);
  for (size_t k = 0; k < roots.size(); ++k) {
    const std::string rp = fmt::format("{}.nodes[{}]", sp, k);
    auto r = as_uint(roots[k]);
    if (!r) error(rp, fmt::format("{} is not a node index", describe(roots[k])));
    stack.push_back(check_index(*r, rp, "nodes"));
  }
  while (!stack.empty()) {
    uint32_t x = stack.back();
    stack.pop_back();
    if (nodes_[x].active) continue;
    nodes_[x].active = true;
    for (uint32_t c : nodes_[x].children) stack.push_back(c);
  }
  size_t ignored = 0;
  for (const Node& node : nodes_) ignored += !node.active && node.mesh;
  if (ignored)
    warn(fmt::format("{} nodes with a mesh are not in {}, the scene read; they are ignored", ignored, sp));
}

// A node's extras.meshport: whether the writer made it an attachment, and of which mesh.
// Malformed: a warning, and the node is read as any other.
void Reader::read_node_extras(Node& node, const json& o, const std::string& path) {
  const json* mp = meshport_extras(o);
  if (!mp) return;
  const std::string xp = path + ".extras.meshport";
  try {
    if (!mp->is_object()) error(xp, "is not an object");
    node.attachment = get_flag(*mp, "attachment", xp, false);
    node.is_static = get_flag(*mp, "static", xp, false);
    node.attachment_mesh = opt_index(*mp, "mesh", xp, "meshes");
    // The writer's glTF mesh index, where another tool moved that mesh.
    if (node.attachment_mesh && *node.attachment_mesh < mp_.written_mesh.size()) {
      const int32_t now = mp_.written_mesh[*node.attachment_mesh];
      if (now < 0)
        node.attachment_mesh.reset();
      else
        node.attachment_mesh = uint32_t(now);
    }
  } catch (const Error& e) {
    warn(fmt::format("{}; ignored", e.diagnostic().message));
    node.attachment = node.is_static = false;
    node.attachment_mesh.reset();
  }
}

// ---- Skins -----------------------------------------------------------------------------------

void Reader::read_skeleton() {
  const json& skins = top("skins");
  const size_t nn = nodes_.size();
  std::vector<uint32_t> order;  // joint nodes, first seen first
  std::vector<bool> is_joint(nn);
  std::vector<std::vector<uint32_t>> skin_nodes(skins.size());
  for (size_t s = 0; s < skins.size(); ++s) {
    const std::string path = fmt::format("skins[{}]", s);
    const json& o = object_at(skins, s, path);
    const json& joints = get_array(o, "joints", path);
    if (joints.empty()) error(path + ".joints", "is missing or empty");
    opt_index(o, "skeleton", path, "nodes");
    for (size_t k = 0; k < joints.size(); ++k) {
      const std::string jp = fmt::format("{}.joints[{}]", path, k);
      auto j = as_uint(joints[k]);
      if (!j) error(jp, fmt::format("{} is not a node index", describe(joints[k])));
      uint32_t node = check_index(*j, jp, "nodes");
      skin_nodes[s].push_back(node);
    }
  }
  // A meshport file names its joints: nodes 0 .. joint_nodes - 1, in Scene order. Its skins use
  // only those (and meshport_static); a file edited since, where they do not, is read as any other.
  // The writer's meshport_static, also where another tool (Blender) kept only its node extras.
  if (!mp_.static_node)
    for (uint32_t n = 0; n < nn; ++n)
      if (nodes_[n].is_static) {
        mp_.static_node = n;
        break;
      }
  if (mp_.mapped) {
    const bool fits = std::all_of(skin_nodes.begin(), skin_nodes.end(), [&](const std::vector<uint32_t>& list) {
      return std::all_of(list.begin(), list.end(), [&](uint32_t n) {
        return (!mp_.animation_only && mp_.pose_of[n] >= 0) || (mp_.static_node && n == *mp_.static_node);
      });
    });
    if (!fits) {
      warn(mp_.path + ": the skins use nodes that are not the joint nodes it names; the joints are read from the skins");
      mp_.mapped = false, mp_.animation_only = false;
      mp_.nodes.clear();
      mp_.pose_of.assign(nn, -1);
    }
  }
  if (mp_.mapped && !mp_.animation_only) {
    for (uint32_t n : mp_.nodes) is_joint[n] = true, order.push_back(n);
  } else if (!mp_.mapped) {
    for (const auto& list : skin_nodes)
      for (uint32_t n : list)
        if (!is_joint[n] && !(mp_.static_node && n == *mp_.static_node)) is_joint[n] = true, order.push_back(n);
  }
  // Non-joint nodes between a joint and a joint ancestor become joints.
  std::vector<int32_t> joint_above(nn, -1);  // nearest joint ancestor
  for (uint32_t x : topo_) {
    int32_t p = nodes_[x].parent;
    joint_above[x] = p < 0 ? -1 : is_joint[p] ? p : joint_above[p];
  }
  const size_t skin_joint_count = order.size();
  size_t bridged = 0;
  for (size_t k = 0; k < skin_joint_count; ++k) {
    uint32_t j = order[k];
    if (joint_above[j] < 0) continue;
    for (int32_t p = nodes_[j].parent; p >= 0 && !is_joint[p]; p = nodes_[p].parent) {
      is_joint[p] = true;
      order.push_back(uint32_t(p));
      ++bridged;
    }
  }
  if (bridged)
    warn(fmt::format("{} nodes that are not joints lie between joints; they are read as joints so the skeleton stays "
                     "connected",
                     bridged));
  // Parents before children, otherwise in the order first seen.
  spend(u128(order.size()) * sizeof(Joint), "skins", fmt::format("{} joints", order.size()));
  std::vector<uint32_t> chain;
  for (uint32_t j : order) {
    for (int32_t x = int32_t(j); x >= 0 && is_joint[x] && nodes_[x].joint < 0; x = nodes_[x].parent)
      chain.push_back(uint32_t(x));
    while (!chain.empty()) {
      uint32_t x = chain.back();
      chain.pop_back();
      Node& node = nodes_[x];
      node.joint = int32_t(scene_.joints.size());
      Joint joint;
      joint.name = node.name.empty() && !mp_.mapped ? fmt::format("node{}", x) : node.name;
      const int32_t p = node.parent;
      joint.parent = p >= 0 && is_joint[p] ? nodes_[p].joint : -1;
      bool exact = node.trs_exact;
      if (p < 0 || is_joint[p] || nodes_[p].world == mat_identity())
        joint.rest = node.trs;
      else
        joint.rest = decompose(node.world, exact);
      if (!exact)
        warn(fmt::format("nodes[{}] (joint '{}'): its transform has shear or a zero scale, which a joint's translation, "
                         "rotation and scale cannot express; decomposed approximately",
                         x, text::clip(joint.name)));
      scene_.joints.push_back(std::move(joint));
    }
  }
  // Per skin: the Scene joints, and the re-binding matrices when the bind pose is not the rest pose.
  skins_.resize(skins.size());
  for (size_t s = 0; s < skins.size(); ++s) {
    const std::string path = fmt::format("skins[{}]", s);
    const json& o = skins[s];
    Skin& skin = skins_[s];
    for (uint32_t node : skin_nodes[s]) skin.joints.push_back(nodes_[node].joint);  // -1: meshport_static
    if (!member(o, "inverseBindMatrices")) {
      // Identity inverse bind matrices: the rest pose is the bind pose only if every joint's
      // rest world matrix is the identity.
      bool all_identity = std::all_of(skin_nodes[s].begin(), skin_nodes[s].end(),
                                      [&](uint32_t n) { return nodes_[n].world == mat_identity(); });
      if (!all_identity)
        for (uint32_t n : skin_nodes[s]) skin.rebind.push_back(nodes_[n].world);
    } else {
      const Accessor& a = accessor_at(o, "inverseBindMatrices", path);
      const std::string ap = path + ".inverseBindMatrices";
      if (a.type_name != "MAT4") error(ap, fmt::format("{} is {}, not MAT4", a.path, a.type_name));
      if (a.count < skin_nodes[s].size())
        error(ap, fmt::format("{} has {} matrices for {} joints", a.path, a.count, skin_nodes[s].size()));
      std::vector<float> m = floats(a);
      bool differs = false;
      std::vector<Mat3x4> fix;
      for (size_t k = 0; k < skin_nodes[s].size(); ++k) {
        if (skin.joints[k] < 0) {
          fix.push_back(mat_identity());
          continue;
        }
        const Mat3x4 ibm = affine_from_mat4(&m[k * 16]);
        const Mat3x4& world = nodes_[skin_nodes[s][k]].world;
        const Mat3x4 inv = mat_inverse(world);
        for (int c = 0; c < 12 && !differs; ++c)
          differs = !(std::fabs(ibm[c] - inv[c]) <= 1e-5f * std::max({1.0f, std::fabs(ibm[c]), std::fabs(inv[c])}));
        fix.push_back(mat_mul(world, ibm));
      }
      if (differs) skin.rebind = std::move(fix);
    }
    if (!skin.rebind.empty())
      warn(fmt::format("note: {}: the inverse bind matrices are not the inverse of the joints' rest transforms; its "
                       "meshes are re-bound so that their rest pose is the bind pose",
                       path));
  }
}

// ---- Meshes ----------------------------------------------------------------------------------

Primitive Reader::read_primitive(uint32_t m, uint32_t p, const json& mesh, const json& prim, bool compact) {
  Primitive out;
  out.path = fmt::format("meshes[{}].primitives[{}]", m, p);
  const std::string& path = out.path;
  Mesh& mm = out.mesh;
  const json& prims = mesh["primitives"];
  std::string base = get_string(mesh, "name", fmt::format("meshes[{}]", m));
  mm.name = prims.size() > 1 ? fmt::format("{}.{}", base, p) : base;
  uint64_t mode = get_uint(prim, "mode", path, 4);
  static const char* modes[] = {"points", "lines", "line loop", "line strip", "triangles", "triangle strip",
                                "triangle fan"};
  if (mode > 6) error(path + ".mode", fmt::format("{} is not a primitive mode", mode));
  if (mode < 4)
    error(path + ".mode", fmt::format("{} ({}) cannot be read: only triangles, triangle strips and triangle fans are",
                                      modes[mode], mode));
  const json* attrs = member(prim, "attributes");
  if (!attrs || !attrs->is_object()) error(path, "has no 'attributes' object");
  const std::string ap = path + ".attributes";
  if (!member(*attrs, "POSITION")) error(ap, "has no POSITION");
  const Accessor& pos = accessor_at(*attrs, "POSITION", ap);
  const uint64_t nv = pos.count;
  mm.material = -1;
  if (auto mat = opt_index(prim, "material", path, "materials")) mm.material = int32_t(*mat);

  struct Set {
    uint32_t joints = 0, weights = 0;
    bool has_joints = false, has_weights = false;
  };
  std::map<uint32_t, Set> blend;
  using Keyed = std::pair<std::string, VertexStream>;  // glTF attribute name, stream
  std::vector<Keyed> standard, customs;
  auto parse_set = [](const std::string& key, const char* prefix) -> std::optional<uint32_t> {
    size_t n = std::strlen(prefix);
    if (key.compare(0, n, prefix) != 0 || key.size() == n || key.size() > n + 6) return std::nullopt;
    uint32_t v = 0;
    for (size_t i = n; i < key.size(); ++i) {
      if (key[i] < '0' || key[i] > '9') return std::nullopt;
      v = v * 10 + uint32_t(key[i] - '0');
    }
    return v;
  };
  auto decode_stream = [&](const Accessor& a, Attribute attr, const std::string& name, const std::string& kp) {
    if (a.columns != 1) error(kp, fmt::format("{} is {}: matrices are not vertex attributes", a.path, a.type_name));
    VertexStream s;
    s.attribute = attr;
    s.name = name;
    // Integer data that is not normalised holds plain numbers; the Scene reads integer formats as
    // normalised (except blend indices), so such data is declared as float.
    s.format = (ops::is_integer(a.type) && !a.normalized && attr != Attribute::BlendIndices) ? ComponentType::Float
                                                                                             : a.type;
    s.source_size = a.comps;
    s.components = scene_components(attr, a.comps);
    std::vector<float> v = floats(a);
    if (s.components == a.comps) {
      s.data = std::move(v);
    } else {
      spend(u128(nv) * s.components * 4, kp, "widening");
      s.data.assign(size_t(nv) * s.components, 0.0f);
      for (size_t i = 0; i < nv; ++i) {
        for (uint32_t c = 0; c < a.comps; ++c) s.data[i * s.components + c] = v[i * a.comps + c];
        if (attr == Attribute::Tangent && a.comps < 4) s.data[i * s.components + 3] = 1.0f;
      }
    }
    return s;
  };

  for (auto& [key, val] : attrs->items()) {
    const std::string kp = fmt::format("{}.{}", ap, text::clip(key));
    auto idx = as_uint(val);
    if (!idx) error(kp, fmt::format("{} is not an accessor index", describe(val)));
    const Accessor& a = accessor(check_index(*idx, kp, "accessors"));
    if (a.count != nv) error(kp, fmt::format("{} has {} elements but POSITION has {}", a.path, a.count, nv));
    if (auto n = parse_set(key, "JOINTS_")) {
      blend[*n].joints = uint32_t(*idx), blend[*n].has_joints = true;
    } else if (auto w = parse_set(key, "WEIGHTS_")) {
      blend[*w].weights = uint32_t(*idx), blend[*w].has_weights = true;
    } else if (key == "POSITION") {
      standard.emplace_back(key, decode_stream(a, Attribute::Position, "", kp));
    } else if (key == "NORMAL") {
      standard.emplace_back(key, decode_stream(a, Attribute::Normal, "", kp));
    } else if (key == "TANGENT") {
      standard.emplace_back(key, decode_stream(a, Attribute::Tangent, "", kp));
    } else if (key == "TEXCOORD_0") {
      standard.emplace_back(key, decode_stream(a, Attribute::Texcoord, "", kp));
    } else if (key == "COLOR_0") {
      standard.emplace_back(key, decode_stream(a, Attribute::Color, "", kp));
    } else if (auto t = parse_set(key, "TEXCOORD_")) {
      customs.emplace_back(key, decode_stream(a, Attribute::Custom, fmt::format("texcoord{}", *t), kp));
    } else if (auto c = parse_set(key, "COLOR_")) {
      customs.emplace_back(key, decode_stream(a, Attribute::Custom, fmt::format("color{}", *c), kp));
    } else {
      if (key.empty() || key[0] != '_')
        warn(fmt::format("{}: '{}' is not a glTF attribute semantic (application-specific ones start with '_'); read "
                         "as a custom array",
                         kp, text::clip(key)));
      customs.emplace_back(key, decode_stream(a, Attribute::Custom, key[0] == '_' ? key.substr(1) : key, kp));
    }
  }
  // Joint and weight sets, merged into one pair of streams of 4 * sets components.
  std::vector<std::pair<const Accessor*, const Accessor*>> sets;
  for (auto& [n, s] : blend) {
    if (s.has_joints != s.has_weights) {
      warn(fmt::format("{}: {}_{} has no matching {}_{}; it is ignored", ap, s.has_joints ? "JOINTS" : "WEIGHTS", n,
                       s.has_joints ? "WEIGHTS" : "JOINTS", n));
      continue;
    }
    sets.emplace_back(&accessor(s.joints), &accessor(s.weights));
  }
  if (!sets.empty()) {
    out.has_blend = true;
    out.joints_path = fmt::format("{}.JOINTS_{}", ap, blend.begin()->first);
    const uint32_t width = uint32_t(sets.size()) * 4;
    spend(u128(nv) * width * 8, ap, "joints and weights");
    VertexStream bi, bw;
    bi.attribute = Attribute::BlendIndices;
    bw.attribute = Attribute::BlendWeights;
    bi.components = bi.source_size = bw.components = bw.source_size = width;
    bi.data.assign(size_t(nv) * width, 0.0f);
    bw.data.assign(size_t(nv) * width, 0.0f);
    bi.format = bw.format = ComponentType::UByte;
    for (size_t k = 0; k < sets.size(); ++k) {
      const Accessor* ja = sets[k].first;
      const Accessor* wa = sets[k].second;
      for (const Accessor* a : {ja, wa})
        if (a->columns != 1 || a->comps > 4)
          error(ap, fmt::format("{} is {}, not a vector of up to 4 values", a->path, a->type_name));
      if (ja->normalized || ja->type == ComponentType::Float || ja->type == ComponentType::Byte ||
          ja->type == ComponentType::Short)
        error(ap, fmt::format("{} (joints) is {}{}, not unsigned byte or short", ja->path,
                              ja->normalized ? "normalized " : "", ops::component_name(ja->type)));
      if (ops::component_size(ja->type) > ops::component_size(bi.format)) bi.format = ja->type;
      // Weights: normalised integers keep their type (the widest when sets differ), else float.
      const ComponentType wf = wa->normalized ? wa->type : ComponentType::Float;
      if (k == 0 || wf == ComponentType::Float || bw.format == ComponentType::Float)
        bw.format = k == 0 ? wf : ComponentType::Float;
      else if (ops::component_size(wf) > ops::component_size(bw.format))
        bw.format = wf;
      std::vector<float> j = floats(*ja), w = floats(*wa);
      for (size_t i = 0; i < nv; ++i)
        for (uint32_t c = 0; c < ja->comps; ++c) {
          bi.data[i * width + k * 4 + c] = j[i * ja->comps + c];
          if (c < wa->comps) bw.data[i * width + k * 4 + c] = w[i * wa->comps + c];
        }
    }
    standard.emplace_back("JOINTS_0", std::move(bi));
    standard.emplace_back("WEIGHTS_0", std::move(bw));
  }
  std::stable_sort(standard.begin(), standard.end(),
                   [](const Keyed& a, const Keyed& b) { return a.second.attribute < b.second.attribute; });
  std::stable_sort(customs.begin(), customs.end(),
                   [](const Keyed& a, const Keyed& b) { return a.second.name < b.second.name; });
  std::vector<std::string> keys;
  for (auto* list : {&standard, &customs})
    for (Keyed& k : *list) {
      keys.push_back(k.first);
      mm.streams.push_back(std::move(k.second));
    }

  // Triangles.
  std::vector<uint32_t> list;
  if (member(prim, "indices")) {
    const Accessor& a = accessor_at(prim, "indices", path);
    list = indices(a, path + ".indices");
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i] >= nv)
        error(path + ".indices", fmt::format("index {} (element {} of {}) is not below the vertex count ({})", list[i],
                                             i, a.path, nv));
  } else {
    spend(u128(nv) * 4, path, "vertex list");
    list.resize(nv);
    for (size_t i = 0; i < nv; ++i) list[i] = uint32_t(i);
  }
  if (mode == 4) {
    if (list.size() % 3)
      warn(fmt::format("{}: {} indices are not whole triangles; the last {} are ignored", path, list.size(),
                       list.size() % 3));
    list.resize(list.size() / 3 * 3);
    mm.triangles = std::move(list);
  } else {
    const size_t n = list.size() >= 3 ? list.size() - 2 : 0;
    spend(u128(n) * 12, path, "triangles");
    mm.triangles.reserve(n * 3);
    for (size_t i = 0; i < n; ++i) {
      uint32_t a, b, c;
      if (mode == 5)
        a = list[i], b = list[i + 1 + i % 2], c = list[i + 2 - i % 2];
      else
        a = list[0], b = list[i + 1], c = list[i + 2];
      if (a == b || b == c || a == c) continue;  // degenerate: joins strips, draws nothing
      mm.triangles.insert(mm.triangles.end(), {a, b, c});
    }
  }

  // Morph targets.
  const json& targets = get_array(prim, "targets", path);
  const json* extras = member(mesh, "extras");
  const json* names = extras ? member(*extras, "targetNames") : nullptr;
  bool dropped_tangents = false;
  for (size_t t = 0; t < targets.size(); ++t) {
    const std::string tp = fmt::format("{}.targets[{}]", path, t);
    const json& tgt = object_at(targets, t, tp);
    MorphTarget mt;
    if (names && names->is_array() && t < names->size() && (*names)[t].is_string())
      mt.name = (*names)[t].get<std::string>();
    auto delta = [&](const char* key) {
      const Accessor& a = accessor_at(tgt, key, tp);
      if (a.count != nv || a.columns != 1)
        error(fmt::format("{}.{}", tp, key),
              fmt::format("{} has {} elements of {}; the target needs {} of VEC3", a.path, a.count, a.type_name, nv));
      std::vector<float> v = floats(a);
      std::vector<float> d(size_t(nv) * 3, 0.0f);
      for (size_t i = 0; i < nv; ++i)
        for (uint32_t c = 0; c < std::min(a.comps, 3u); ++c) d[i * 3 + c] = v[i * a.comps + c];
      return d;
    };
    if (member(tgt, "POSITION"))
      mt.positions = delta("POSITION");
    else
      mt.positions.assign(size_t(nv) * 3, 0.0f);
    if (member(tgt, "NORMAL")) mt.normals = delta("NORMAL");
    if (member(tgt, "TANGENT")) dropped_tangents = true;
    mm.morph_targets.push_back(std::move(mt));
  }
  if (dropped_tangents) warn(fmt::format("{}: morph target tangent displacements are not kept", path));
  if (!targets.empty())
    if (const json* w = member(mesh, "weights")) {
      if (!w->is_array() || w->size() != targets.size() ||
          !std::all_of(w->begin(), w->end(), [](const json& x) { return x.is_number(); }))
        warn(fmt::format("meshes[{}].weights: not {} numbers, one per morph target; ignored", m, targets.size()));
      else
        for (const json& x : *w) mm.morph_weights.push_back(narrow(x.get<double>()));
    }

  // What the writer kept in extras: stream declarations, polygons, smoothing rules.
  if (const json* mp = meshport_extras(prim)) {
    Mesh restored = mm;
    try {
      restore_primitive(restored, keys, *mp, path);
      mm = std::move(restored);
    } catch (const Error& e) {
      warn(fmt::format("{}; the meshport extras of the primitive are ignored", e.diagnostic().message));
    }
  }

  // The mesh's face channels and format streams (mesh extras): they describe its only primitive.
  if (const json* mp = meshport_extras(mesh); mp && prims.size() == 1) {
    Mesh restored = mm;
    try {
      restore_format_data(restored, *mp, fmt::format("meshes[{}]", m));
      mm = std::move(restored);
    } catch (const Error& e) {
      warn(fmt::format("{}; the mesh's face channels and format streams are ignored", e.diagnostic().message));
    }
  }

  out.has_blend = mm.find(Attribute::BlendIndices) && mm.find(Attribute::BlendWeights);
  if (out.has_blend && out.joints_path.empty()) out.joints_path = ap;

  // A vertex array shared with other primitives: keep only the vertices this one uses.
  if (compact) {
    std::vector<uint32_t> remap(nv, UINT32_MAX);
    uint32_t used = 0;
    for (uint32_t v : mm.triangles)
      if (remap[v] == UINT32_MAX) remap[v] = used++;
    if (used < nv) {
      std::vector<uint32_t> keep(used);
      for (size_t v = 0; v < nv; ++v)
        if (remap[v] != UINT32_MAX) keep[remap[v]] = uint32_t(v);
      auto pick = [&](std::vector<float>& d, uint32_t k) {
        std::vector<float> o(size_t(used) * k);
        for (size_t i = 0; i < used; ++i)
          std::copy_n(d.begin() + ptrdiff_t(size_t(keep[i]) * k), k, o.begin() + ptrdiff_t(i * k));
        d = std::move(o);
      };
      for (VertexStream& s : mm.streams) pick(s.data, s.components);
      for (MorphTarget& t : mm.morph_targets) {
        pick(t.positions, 3);
        if (!t.normals.empty()) pick(t.normals, 3);
      }
      if (!mm.smoothing.vertex_key.empty()) {
        std::vector<int32_t> k(used);
        for (size_t i = 0; i < used; ++i) k[i] = mm.smoothing.vertex_key[keep[i]];
        mm.smoothing.vertex_key = std::move(k);
      }
      for (uint32_t& v : mm.triangles) v = remap[v];
    }
  }
  return out;
}

void Reader::read_meshes() {
  const json& meshes = top("meshes");
  // POSITION accessors used by more than one primitive: those primitives keep only their vertices.
  std::unordered_map<uint64_t, uint32_t> position_users;
  for (size_t m = 0; m < meshes.size(); ++m) {
    const std::string path = fmt::format("meshes[{}]", m);
    const json& mesh = object_at(meshes, m, path);
    const json& prims = get_array(mesh, "primitives", path);
    if (prims.empty()) error(path + ".primitives", "is missing or empty");
    for (size_t p = 0; p < prims.size(); ++p) {
      const json* attrs = member(prims[p], "attributes");
      const json* pos = attrs ? member(*attrs, "POSITION") : nullptr;
      if (pos)
        if (auto i = as_uint(*pos)) ++position_users[*i];
    }
  }
  meshes_.resize(meshes.size());
  for (size_t m = 0; m < meshes.size(); ++m) {
    const json& mesh = meshes[m];
    const json& prims = mesh["primitives"];
    for (size_t p = 0; p < prims.size(); ++p) {
      const std::string pp = fmt::format("meshes[{}].primitives[{}]", m, p);
      const json& prim = object_at(prims, p, pp);
      const json* attrs = member(prim, "attributes");
      const json* pos = attrs ? member(*attrs, "POSITION") : nullptr;
      auto pi = pos ? as_uint(*pos) : std::nullopt;
      bool shared = pi && position_users[*pi] > 1;
      meshes_[m].push_back(read_primitive(uint32_t(m), uint32_t(p), mesh, prim, shared));
    }
  }
}

void Reader::instance_meshes() {
  std::vector<bool> used(meshes_.size());
  size_t unskinned_blend = 0, skinless = 0;
  auto charge = [&](const Mesh& m, const std::string& path) {
    u128 bytes = u128(m.triangles.size()) * 4;
    for (const VertexStream& s : m.streams) bytes += u128(s.data.size()) * 4;
    for (const MorphTarget& t : m.morph_targets) bytes += u128(t.positions.size() + t.normals.size()) * 4;
    spend(bytes, path, "an instance of the mesh");
  };
  auto drop_blend = [](Mesh& m) {
    std::erase_if(m.streams, [](const VertexStream& s) {
      return s.attribute == Attribute::BlendIndices || s.attribute == Attribute::BlendWeights;
    });
  };
  mesh_scene_.assign(meshes_.size(), -1);
  for (size_t n = 0; n < nodes_.size(); ++n) {
    Node& node = nodes_[n];
    if (!node.mesh) continue;
    used[*node.mesh] = true;
    if (!node.active) continue;
    const std::string np = fmt::format("nodes[{}]", n);
    node.scene_mesh = int32_t(scene_.meshes.size());
    if (mesh_scene_[*node.mesh] < 0) mesh_scene_[*node.mesh] = node.scene_mesh;
    for (const Primitive& prim : meshes_[*node.mesh]) {
      charge(prim.mesh, np);
      Mesh m = prim.mesh;
      const Skin* skin = node.skin && prim.has_blend ? &skins_[*node.skin] : nullptr;
      if (skin) {
        VertexStream* bi = m.find(Attribute::BlendIndices);
        VertexStream* bw = m.find(Attribute::BlendWeights);
        const size_t nv = m.vertex_count();
        const uint32_t k = bi->components;
        if (!skin->rebind.empty()) {
          VertexStream* pos = m.find(Attribute::Position);
          VertexStream* nor = m.find(Attribute::Normal);
          VertexStream* tan = m.find(Attribute::Tangent);
          for (size_t v = 0; v < nv; ++v) {
            Mat3x4 b{};
            float total = 0;
            for (uint32_t c = 0; c < k; ++c) {
              float w = bw->data[v * k + c];
              float j = bi->data[v * k + c];
              if (!(w != 0) || !(j >= 0 && j < float(skin->rebind.size())) || skin->joints[size_t(j)] < 0) continue;
              const Mat3x4& r = skin->rebind[size_t(j)];
              for (int e = 0; e < 12; ++e) b[e] += w * r[e];
              total += w;
            }
            if (total == 0) continue;
            float* p = &pos->data[v * pos->components];
            Vec3 q = mat_apply(b, {p[0], p[1], p[2]});
            p[0] = q[0], p[1] = q[1], p[2] = q[2];
            const Mat3x4 nm = normal_matrix(b);
            if (nor) {
              float* x = &nor->data[v * nor->components];
              Vec3 r = normalize(linear(nm, {x[0], x[1], x[2]}));
              x[0] = r[0], x[1] = r[1], x[2] = r[2];
            }
            if (tan) {
              float* x = &tan->data[v * tan->components];
              Vec3 r = normalize(linear(b, {x[0], x[1], x[2]}));
              x[0] = r[0], x[1] = r[1], x[2] = r[2];
              if (det3(b) < 0) x[3] = -x[3];
            }
            for (MorphTarget& t : m.morph_targets) {
              float* d = &t.positions[v * 3];
              Vec3 r = linear(b, {d[0], d[1], d[2]});
              d[0] = r[0], d[1] = r[1], d[2] = r[2];
              if (!t.normals.empty()) {
                float* e = &t.normals[v * 3];
                Vec3 s = linear(nm, {e[0], e[1], e[2]});
                e[0] = s[0], e[1] = s[1], e[2] = s[2];
              }
            }
          }
        }
        // Skin-local joint indices -> Scene joints.
        for (size_t i = 0; i < bi->data.size(); ++i) {
          float j = bi->data[i];
          if (j >= 0 && j < float(skin->joints.size()) && j == std::floor(j)) {
            int32_t target = skin->joints[size_t(j)];
            bi->data[i] = float(std::max(target, 0));
            if (target < 0) bw->data[i] = 0;  // meshport_static: no influence
          } else if (bw->data[i] != 0) {
            error(prim.joints_path, fmt::format("vertex {} names joint {}, but skins[{}] has {} joints (instanced "
                                                "by {})",
                                                i / k, j, *node.skin, skin->joints.size(), np));
          } else {
            bi->data[i] = 0;  // unweighted: any valid index
          }
        }
      } else {
        if (prim.has_blend) {
          drop_blend(m);
          ++unskinned_blend;
        } else if (node.skin) {
          ++skinless;
        }
        if (node.world != mat_identity()) {
          const Mat3x4& w = node.world;
          const Mat3x4 nm = normal_matrix(w);
          const bool mirror = det3(w) < 0;
          for (VertexStream& s : m.streams) {
            const size_t nv = s.vertex_count();
            if (s.attribute == Attribute::Position) {
              for (size_t v = 0; v < nv; ++v) {
                float* p = &s.data[v * s.components];
                Vec3 q = mat_apply(w, {p[0], p[1], p[2]});
                p[0] = q[0], p[1] = q[1], p[2] = q[2];
              }
            } else if (s.attribute == Attribute::Normal || s.attribute == Attribute::Tangent) {
              const bool normal = s.attribute == Attribute::Normal;
              for (size_t v = 0; v < nv; ++v) {
                float* p = &s.data[v * s.components];
                Vec3 q = normalize(linear(normal ? nm : w, {p[0], p[1], p[2]}));
                p[0] = q[0], p[1] = q[1], p[2] = q[2];
                if (!normal && mirror) p[3] = -p[3];
              }
            }
          }
          for (MorphTarget& t : m.morph_targets) {
            for (size_t i = 0; i + 3 <= t.positions.size(); i += 3) {
              Vec3 q = linear(w, {t.positions[i], t.positions[i + 1], t.positions[i + 2]});
              std::copy(q.begin(), q.end(), t.positions.begin() + ptrdiff_t(i));
            }
            for (size_t i = 0; i + 3 <= t.normals.size(); i += 3) {
              Vec3 q = linear(nm, {t.normals[i], t.normals[i + 1], t.normals[i + 2]});
              std::copy(q.begin(), q.end(), t.normals.begin() + ptrdiff_t(i));
            }
          }
          if (mirror) {
            Scene tmp;
            tmp.meshes.push_back(std::move(m));
            flip_winding(tmp);
            m = std::move(tmp.meshes.front());
          }
        }
      }
      scene_.meshes.push_back(std::move(m));
    }
  }
  size_t unused = 0;
  for (size_t m = 0; m < meshes_.size(); ++m) {
    if (used[m]) continue;
    ++unused;
    mesh_scene_[m] = int32_t(scene_.meshes.size());
    for (const Primitive& prim : meshes_[m]) {
      charge(prim.mesh, fmt::format("meshes[{}]", m));
      Mesh mesh = prim.mesh;
      if (prim.has_blend) drop_blend(mesh), ++unskinned_blend;
      scene_.meshes.push_back(std::move(mesh));
    }
  }
  if (unused) warn(fmt::format("{} meshes are used by no node; they are read untransformed", unused));
  if (unskinned_blend)
    warn(fmt::format("{} primitives have joints and weights but no skin to interpret them; they are dropped",
                     unskinned_blend));
  if (skinless)
    warn(fmt::format("{} skinned nodes' primitives have no joints and weights; they are read as static meshes",
                     skinless));
}

// ---- Attachments -----------------------------------------------------------------------------

// The writer's attachment nodes, and every other empty leaf (no mesh, skin, camera, light or
// children, not a joint): what Blender exports for an empty. Never meshport_static or the
// "pose N" nodes of an animation-only file.
bool Reader::is_attachment(uint32_t n) const {
  const Node& node = nodes_[n];
  if (!node.active || node.joint >= 0 || (mp_.static_node && *mp_.static_node == n)) return false;
  if (mp_.animation_only && mp_.pose_of[n] >= 0) return false;
  if (node.attachment) return true;
  return !node.mesh && !node.skin && !node.camera && !node.light && node.children.empty();
}

Attachment Reader::attachment(uint32_t n) {
  const Node& node = nodes_[n];
  Attachment a;
  a.name = node.name;
  int32_t above = node.parent;  // the nearest joint ancestor, if any
  while (above >= 0 && nodes_[above].joint < 0) above = nodes_[above].parent;
  bool exact = node.trs_exact;
  if (above >= 0) {
    a.joint = nodes_[above].joint;
    a.transform = above == node.parent ? node.trs
                                       : decompose(mat_mul(mat_inverse(nodes_[above].world), node.world), exact);
  } else {
    const bool at_origin = node.parent < 0 || nodes_[node.parent].world == mat_identity();
    a.transform = at_origin ? node.trs : decompose(node.world, exact);
  }
  if (!exact)
    warn(fmt::format("nodes[{}] (attachment '{}'): its transform has shear or a zero scale; decomposed approximately",
                     n, text::clip(a.name)));
  if (node.attachment) {
    if (node.attachment_mesh) a.mesh = mesh_scene_[*node.attachment_mesh];
    return a;
  }
  for (int32_t p = node.parent; p >= 0 && a.mesh < 0; p = nodes_[p].parent) a.mesh = nodes_[p].scene_mesh;
  return a;
}

void Reader::read_attachments() {
  std::vector<uint32_t> found;
  for (uint32_t n = 0; n < nodes_.size(); ++n)
    if (is_attachment(n)) found.push_back(n);
  spend(u128(found.size()) * sizeof(Attachment), "nodes", fmt::format("{} attachments", found.size()));
  for (uint32_t n : found) scene_.attachments.push_back(attachment(n));
}

// ---- Animations ------------------------------------------------------------------------------

void Reader::read_animations() {
  const json& anims = top("animations");
  for (size_t a = 0; a < anims.size(); ++a) read_animation(uint32_t(a));
}

void Reader::read_animation(uint32_t ai) {
  const std::string path = fmt::format("animations[{}]", ai);
  const json& o = element("animations", ai);
  const json& channels = get_array(o, "channels", path);
  const json& samplers = get_array(o, "samplers", path);
  std::string anim_name = get_string(o, "name", path);
  // The writer's animation extras; where another tool dropped them (Blender), the copy in the
  // document-level extras of the animation of the same name.
  const json* mp = meshport_extras(o);
  const bool resampled = !mp;
  if (!mp) mp = kept_animation_extras(ai, anim_name);
  if (anim_name.empty() && !mp) anim_name = fmt::format("animation{}", ai);  // meshport omits only empty names
  // What a node's channels animate: a Scene joint, or in an animation-only file a pose.
  const bool poses_only = mp_.mapped && mp_.animation_only;
  auto channel_of = [&](uint32_t node) -> int32_t {
    if (poses_only) return mp_.pose_of[node];
    return nodes_[node].joint;
  };
  std::vector<Channel> used;
  std::map<uint32_t, std::pair<std::shared_ptr<const std::vector<float>>, std::shared_ptr<const std::vector<float>>>>
      sampled;  // sampler -> (times, values)
  // A sampler's key times (checked: finite, >= 0, not decreasing) and output values, read once.
  auto load = [&](uint64_t s, const json& smp, const std::string& sp, bool& fresh) {
    auto it = sampled.find(uint32_t(s));
    fresh = it == sampled.end();
    if (!fresh) return it;
    const Accessor& in = accessor_at(smp, "input", sp);
    if (in.comps != 1 || in.columns != 1 || in.type != ComponentType::Float)
      error(sp + ".input", fmt::format("{} is {} {}, not SCALAR float", in.path, in.type_name,
                                       ops::component_name(in.type)));
    auto times = std::make_shared<std::vector<float>>(floats(in));
    for (size_t k = 0; k < times->size(); ++k) {
      float t = (*times)[k];
      if (!std::isfinite(t) || t < 0)
        error(sp + ".input", fmt::format("key {} of {} is at time {}, not a finite time >= 0", k, in.path, t));
      if (k && t < (*times)[k - 1])
        error(sp + ".input", fmt::format("key times of {} decrease: key {} at {} follows {}", in.path, k, t,
                                         (*times)[k - 1]));
    }
    const Accessor& outa = accessor_at(smp, "output", sp);
    auto values = std::make_shared<std::vector<float>>(floats(outa));
    it = sampled.emplace(uint32_t(s), std::make_pair(std::move(times), std::move(values))).first;
    if (outa.columns != 1) error(sp + ".output", fmt::format("{} is {}", outa.path, outa.type_name));
    return it;
  };
  auto interpolation = [&](const json& smp, const std::string& sp) {
    std::string interp = get_string(smp, "interpolation", sp);
    if (interp.empty() || interp == "LINEAR") return Interp::Linear;
    if (interp == "STEP") return Interp::Step;
    if (interp == "CUBICSPLINE") return Interp::Cubic;
    error(sp + ".interpolation", fmt::format("'{}' is not LINEAR, STEP or CUBICSPLINE", text::clip(interp)));
  };
  struct WeightChannel {
    uint32_t node = 0;
    uint64_t sampler = 0;
    std::string path;  // the channel's JSON path
  };
  std::vector<WeightChannel> weight_channels;
  size_t ignored = 0;
  for (size_t c = 0; c < channels.size(); ++c) {
    const std::string cp = fmt::format("{}.channels[{}]", path, c);
    const json& ch = object_at(channels, c, cp);
    uint64_t s = get_uint(ch, "sampler", cp, std::nullopt);
    if (s >= samplers.size())
      error(cp + ".sampler", fmt::format("samplers[{}] does not exist (the animation has {})", s, samplers.size()));
    const json* target = member(ch, "target");
    if (!target || !target->is_object()) error(cp, "has no 'target' object");
    const std::string tp = cp + ".target";
    std::optional<uint32_t> node = opt_index(*target, "node", tp, "nodes");
    std::string prop = get_string(*target, "path", tp, true);
    int which = prop == "translation" ? 0 : prop == "rotation" ? 1 : prop == "scale" ? 2 : -1;
    if (which < 0 && prop != "weights") error(tp + ".path", fmt::format("'{}' is not an animation path", text::clip(prop)));
    if (which < 0) {
      // Morph weights of the Scene meshes of the node's own mesh instance.
      const bool targets = node && nodes_[*node].scene_mesh >= 0 &&
                           !scene_.meshes[size_t(nodes_[*node].scene_mesh)].morph_targets.empty();
      if (targets)
        weight_channels.push_back({*node, s, cp});
      else
        ++ignored;
      continue;
    }
    if (!node || channel_of(*node) < 0) {
      ++ignored;
      continue;
    }
    const std::string sp = fmt::format("{}.samplers[{}]", path, s);
    const json& smp = object_at(samplers, s, sp);
    Channel out;
    out.joint = uint32_t(channel_of(*node));
    out.path = which;
    out.comps = which == 1 ? 4 : 3;
    out.interp = interpolation(smp, sp);
    bool fresh = false;
    auto it = load(s, smp, sp, fresh);
    if (fresh) {
      const Accessor& outa = accessor_at(smp, "output", sp);
      const size_t need = it->second.first->size() * (out.interp == Interp::Cubic ? 3 : 1);
      if (outa.count != need)
        error(sp + ".output", fmt::format("{} has {} elements but {} keys need {}", outa.path, outa.count,
                                          it->second.first->size(), need));
      if (outa.comps != out.comps)
        error(sp + ".output", fmt::format("{} is {}, but {} needs {} values per key", outa.path, outa.type_name, prop,
                                          out.comps));
    } else {
      // The same sampler for another channel: check it fits this path as well.
      const size_t per = it->second.second->size() / std::max<size_t>(1, it->second.first->size());
      const size_t want = size_t(out.comps) * (out.interp == Interp::Cubic ? 3 : 1);
      if (per != want) error(sp + ".output", fmt::format("does not hold {} values per key as {} needs", want, prop));
    }
    out.times = it->second.first;
    out.values = it->second.second;
    used.push_back(std::move(out));
  }
  // Morph weight tracks: one per Scene mesh of the node's mesh instance (one per primitive).
  std::vector<MorphWeightTrack> tracks;
  {
    std::vector<bool> seen(nodes_.size(), false);
    size_t step = 0, cubic = 0, repeated = 0;
    for (const WeightChannel& wc : weight_channels) {
      if (seen[wc.node]) {
        warn(fmt::format("{}: nodes[{}] already has a weights channel; this one is ignored", wc.path, wc.node));
        continue;
      }
      seen[wc.node] = true;
      const std::string sp = fmt::format("{}.samplers[{}]", path, wc.sampler);
      const json& smp = object_at(samplers, wc.sampler, sp);
      const Interp interp = interpolation(smp, sp);
      bool fresh = false;
      auto it = load(wc.sampler, smp, sp, fresh);
      const std::vector<float>& times = *it->second.first;
      const std::vector<float>& values = *it->second.second;
      const Node& node = nodes_[wc.node];
      const size_t first = size_t(node.scene_mesh);
      const size_t prims = meshes_[*node.mesh].size();
      const size_t targets = scene_.meshes[first].morph_targets.size();
      const size_t per = interp == Interp::Cubic ? 3 : 1;
      const Accessor& outa = accessor_at(smp, "output", sp);
      if (outa.comps != 1)
        error(sp + ".output", fmt::format("{} is {}, but morph weights need SCALAR values", outa.path, outa.type_name));
      if (values.size() != times.size() * targets * per)
        error(sp + ".output", fmt::format("{} has {} elements but {} keys of {} morph targets need {}", outa.path,
                                          values.size(), times.size(), targets, times.size() * targets * per));
      if (times.empty()) continue;
      step += interp == Interp::Step;
      cubic += interp == Interp::Cubic;
      MorphWeightTrack t;
      spend(u128(values.size()) * 8 * prims, sp, "morph weights");
      for (size_t k = 0; k < times.size(); ++k) {
        const float* v = values.data() + (k * per + (per == 3 ? 1 : 0)) * targets;
        if (k && times[k] == times[k - 1]) {  // a key at the same time replaces the one before
          ++repeated;
          std::copy_n(v, targets, t.weights.end() - ptrdiff_t(targets));
          continue;
        }
        t.times.push_back(times[k]);
        t.weights.insert(t.weights.end(), v, v + targets);
      }
      for (size_t p = 0; p < prims; ++p) {
        if (scene_.meshes[first + p].morph_targets.size() != targets) continue;
        t.mesh = int32_t(first + p);
        tracks.push_back(t);
      }
    }
    if (step)
      warn(fmt::format("{} ('{}'): {} STEP morph weight channels are read as LINEAR between their keys", path,
                       text::clip(anim_name), step));
    if (cubic)
      warn(fmt::format("{} ('{}'): {} CUBICSPLINE morph weight channels are read as LINEAR between their keys "
                       "(tangents dropped)",
                       path, text::clip(anim_name), cubic));
    if (repeated)
      warn(fmt::format("{} ('{}'): {} morph weight keys at the time of the key before them replace it", path,
                       text::clip(anim_name), repeated));
  }

  // One warning per animation for what is not read.
  if (used.empty() && tracks.empty()) {
    if (!channels.empty())
      warn(fmt::format("{} ('{}') animates no joint (its {} channels animate other nodes or morph weights of meshes "
                       "without morph targets) and is not read",
                       path, text::clip(anim_name), channels.size()));
    return;
  }
  if (ignored)
    warn(fmt::format("{} ('{}'): {} channels animate nodes that are not joints, or morph weights of meshes without "
                     "morph targets; they are ignored",
                     path, text::clip(anim_name), ignored));

  // Framerate: the writer's, else the key grid's, else 30.
  Animation anim;
  anim.name = anim_name;
  double fps = 0;
  // A value and a flag rather than std::optional<float>: GCC 12 -O2 warns (falsely) that the
  // optional's value may be used uninitialised.
  float stored_rate = 0;
  bool has_stored_rate = false;
  uint64_t stored_channels = UINT64_MAX;  // a value, not an optional: the same GCC 12 warning
  bool kept_step = false;  // the document-level copy says Interpolation::Step
  bool own_times = false;
  std::vector<float> kept_times;  // the document-level copy's key times
  uint64_t kept_frames = 0;       // ... and frame count (0: from the keys)
  if (mp) {
    const std::string xp = path + ".extras.meshport";
    try {
      double key_rate = get_number(*mp, "keyframe_rate", xp, 0);
      double rate = get_number(*mp, "framerate", xp, 0);
      if (member(*mp, "framerate")) stored_rate = narrow(rate), has_stored_rate = true;
      fps = key_rate > 0 && std::isfinite(key_rate) ? key_rate : rate > 0 && std::isfinite(rate) ? rate : 0;
      anim.loop = get_flag(*mp, "loop", xp, false);
      if (member(*mp, "channels")) stored_channels = get_uint(*mp, "channels", xp, 0);
      const json* times = member(*mp, "times");
      if (times && times->is_array()) {
        // Another tool resampled the keys: the frames are at the writer's times again.
        for (size_t k = 0; k < times->size(); ++k) {
          const json& t = (*times)[k];
          if (!t.is_number() || !std::isfinite(t.get<double>()) || t.get<double>() < 0 ||
              (k && narrow(t.get<double>()) <= kept_times.back()))
            error(fmt::format("{}.times[{}]", xp, k), fmt::format("{} is not a time after the one before", describe(t)));
          kept_times.push_back(narrow(t.get<double>()));
        }
        if (!resampled) own_times = !kept_times.empty(), kept_times.clear();
      } else {
        own_times = get_flag(*mp, "times", xp, false);
      }
      if (resampled) {
        kept_frames = get_uint(*mp, "frames", xp, 0);
        if (kept_frames > (uint64_t(1) << 24)) error(xp + ".frames", fmt::format("{} frames are too many", kept_frames));
        const std::string interp = get_string(*mp, "interpolation", xp);
        if (interp == "step") kept_step = true;
      }
    } catch (const Error& e) {
      warn(fmt::format("{}; ignored", e.diagnostic().message));
      fps = 0, has_stored_rate = false, stored_channels = UINT64_MAX, anim.loop = false, own_times = false;
      kept_times.clear(), kept_frames = 0, kept_step = false;
    }
  }
  // The key times that set the frames: the joint channels', else the morph weight tracks'.
  std::vector<const std::vector<float>*> timing;
  for (const Channel& c : used) timing.push_back(c.times.get());
  if (used.empty())
    for (const MorphWeightTrack& t : tracks) timing.push_back(&t.times);
  double max_time = 0;
  for (const Channel& c : used) max_time = std::max(max_time, double(c.times->back()));
  if (fps <= 0) {
    double h = 0;
    for (const std::vector<float>* times : timing)
      for (size_t k = 1; k < times->size(); ++k) {
        double d = double((*times)[k]) - (*times)[k - 1];
        if (d > 0 && (h == 0 || d < h)) h = d;
      }
    bool grid = h > 0;
    for (size_t ci = 0; grid && ci < timing.size(); ++ci)
      for (float t : *timing[ci]) {
        double q = t / h;
        if (std::fabs(q - std::round(q)) > 1e-3) {
          grid = false;
          break;
        }
      }
    fps = 30;
    if (grid && 1 / h >= 1 - 1e-6 && 1 / h <= 240 + 1e-6) {
      fps = 1 / h;
      if (std::fabs(fps - std::round(fps)) <= 1e-4 * fps) fps = std::round(fps);
    }
  }
  anim.framerate = has_stored_rate ? stored_rate : float(fps);
  // Every joint channel STEP: the frames are held, not blended (PIE's INTERPOLATE 0). Sampled at
  // the frame times, the keys of evenly spaced STEP channels are the frames themselves.
  if (!used.empty() &&
      std::all_of(used.begin(), used.end(), [](const Channel& c) { return c.interp == Interp::Step; }))
    anim.interpolation = Interpolation::Step;
  if (kept_step && !used.empty()) anim.interpolation = Interpolation::Step;  // Blender samples STEP bones as LINEAR
  anim.morph_weights = std::move(tracks);
  if (used.empty()) {  // morph weights only: no frames
    scene_.animations.push_back(std::move(anim));
    return;
  }
  // The writer's Animation::times: frame f is key f.
  const std::vector<float>* key_times =
      own_times ? used[0].times.get() : !kept_times.empty() ? &kept_times : nullptr;
  std::vector<bool> on_keys(used.size(), false);
  for (size_t ci = 0; own_times && ci < used.size(); ++ci) on_keys[ci] = *used[ci].times == *key_times;
  const double frames_d = key_times    ? double(key_times->size())
                          : kept_frames ? double(kept_frames)
                                        : std::round(max_time * fps) + 1;
  size_t nj = poses_only ? mp_.nodes.size() : scene_.joints.size();
  if (!(frames_d <= double(UINT32_MAX)))
    error(path, fmt::format("{} frames ({} s at {} fps) are too many", frames_d, max_time, fps));
  const size_t frames = size_t(frames_d);
  spend(u128(frames) * nj * sizeof(Transform), path, fmt::format("{} frames of {} joints", frames, nj));
  anim.channels = uint32_t(nj);

  // Local rest transforms: joints whose parent is not a joint hold their world transform as
  // rest; their channels are local to that parent, whose world matrix is composed back in.
  std::vector<Transform> local(nj), rest(nj);
  std::vector<const Mat3x4*> parent_world(nj, nullptr);
  if (poses_only) {
    for (size_t j = 0; j < nj; ++j) local[j] = rest[j] = nodes_[mp_.nodes[j]].trs;
  } else {
    for (size_t j = 0; j < nj; ++j) rest[j] = scene_.joints[j].rest;
    for (const Node& node : nodes_)
      if (node.joint >= 0) {
        local[size_t(node.joint)] = node.trs;
        if (node.parent >= 0 && nodes_[node.parent].joint < 0 && nodes_[node.parent].world != mat_identity())
          parent_world[size_t(node.joint)] = &nodes_[node.parent].world;
      }
  }
  std::vector<bool> animated(nj);
  for (const Channel& c : used) animated[c.joint] = true;
  anim.poses.resize(frames * nj);
  for (size_t j = 0; j < nj; ++j)
    for (size_t f = 0; f < frames; ++f) anim.poses[f * nj + j] = rest[j];
  const double eps = 1e-4 / fps;
  for (size_t f = 0; f < frames; ++f) {
    const double t = key_times ? double((*key_times)[f]) : double(f) / fps;
    Transform* pose = &anim.poses[f * nj];
    for (size_t j = 0; j < nj; ++j)
      if (animated[j] && parent_world[j]) pose[j] = local[j];
    for (const Channel& c : used) {
      const std::vector<float>& times = *c.times;
      const size_t n = times.size();
      float v[4];
      auto set = [&](const float* x) { std::copy_n(x, c.comps, v); };
      auto it = std::upper_bound(times.begin(), times.end(), t + eps,
                                 [](double a, float b) { return a < double(b); });
      if (on_keys[size_t(&c - used.data())]) {
        set(c.value(f));
      } else if (it == times.begin()) {
        set(c.value(0));
      } else {
        size_t k = size_t(it - times.begin()) - 1;
        double dt = k + 1 < n ? double(times[k + 1]) - times[k] : 0;
        double u = dt > 0 ? (t - times[k]) / dt : 0;
        if (k + 1 >= n || c.interp == Interp::Step || u <= 0 || t - times[k] <= eps) {  // on key k
          set(c.value(k));
        } else {
          u = std::min(u, 1.0);
          const float* a = c.value(k);
          const float* b = c.value(k + 1);
          if (c.interp == Interp::Linear) {
            if (c.path == 1) {
              Quat q = quat_slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, float(u));
              set(q.data());
            } else {
              for (uint32_t i = 0; i < c.comps; ++i) v[i] = float(a[i] + (double(b[i]) - a[i]) * u);
            }
          } else {
            const float* out_tangent = c.values->data() + (3 * k + 2) * c.comps;
            const float* in_tangent = c.values->data() + (3 * (k + 1)) * c.comps;
            const double u2 = u * u, u3 = u2 * u;
            const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
            for (uint32_t i = 0; i < c.comps; ++i)
              v[i] = float(h00 * a[i] + h10 * dt * out_tangent[i] + h01 * b[i] + h11 * dt * in_tangent[i]);
            if (c.path == 1) {
              Quat q = quat_normalize({v[0], v[1], v[2], v[3]});
              set(q.data());
            }
          }
        }
      }
      Transform& p = pose[c.joint];
      if (c.path == 0)
        p.translation = {v[0], v[1], v[2]};
      else if (c.path == 1)
        p.rotation = unit({v[0], v[1], v[2], v[3]});
      else
        p.scale = {v[0], v[1], v[2]};
    }
    for (size_t j = 0; j < nj; ++j)
      if (animated[j] && parent_world[j]) {
        bool exact;
        pose[j] = decompose(mat_mul(*parent_world[j], mat_from_trs(pose[j].translation, pose[j].rotation,
                                                                   pose[j].scale)),
                            exact);
      }
  }
  // The writer drops channels past the skeleton; fewer channels than joints are restored.
  if (stored_channels < nj) {
    const size_t keep = size_t(stored_channels);
    std::vector<Transform> poses(frames * keep);
    for (size_t f = 0; f < frames; ++f)
      std::copy_n(anim.poses.begin() + ptrdiff_t(f * nj), keep, poses.begin() + ptrdiff_t(f * keep));
    anim.poses = std::move(poses);
    anim.channels = uint32_t(keep);
  }
  if (key_times) anim.times = *key_times;
  scene_.animations.push_back(std::move(anim));
}

// ---- Extras ----------------------------------------------------------------------------------

// The document-level extras: scenes[scene].extras.meshport (where Blender keeps them), else the
// root extras.meshport of files written before (which Blender drops).
void Reader::read_root_extras() {
  mp_.pose_of.assign(top("nodes").size(), -1);
  const json* mp = meshport_extras(doc_);
  std::string path = "extras.meshport";
  if (!mp) {
    uint64_t si = 0;
    if (const json* sc = member(doc_, "scene"); sc && as_uint(*sc)) si = *as_uint(*sc);
    const json& scenes = top("scenes");
    const json* x = si < scenes.size() ? meshport_extras(scenes[si]) : nullptr;
    if (!x || !member(*x, "version")) return;  // none, or ModeDef data only (files written before)
    mp = x;
    path = fmt::format("scenes[{}].extras.meshport", si);
  }
  try {
    if (!mp->is_object()) error(path, "is not an object");
    uint64_t version = get_uint(*mp, "version", path, 1);
    if (version != 1) {
      warn(fmt::format("{}.version: {} is not a known version of the meshport extras (1); they are ignored", path,
                       version));
      return;
    }
    uint64_t j = get_uint(*mp, "joint_nodes", path, 0);
    if (j > top("nodes").size())
      error(path + ".joint_nodes", fmt::format("{} joint nodes, but the file has {} nodes", j, top("nodes").size()));
    mp_.animation_only = get_flag(*mp, "animation_only", path, false);
    mp_.static_node = opt_index(*mp, "static_node", path, "nodes");
    mp_.present = true;
    mp_.extras = mp;
    mp_.path = path;
  } catch (const Error& e) {
    warn(fmt::format("{}; the meshport extras are ignored", e.diagnostic().message));
    mp_ = {};
    mp_.pose_of.assign(top("nodes").size(), -1);
    return;
  }
  map_extras_nodes(*mp, get_uint(*mp, "joint_nodes", path, 0));
  map_extras_meshes(*mp);
}

// The Scene's joints: nodes 0 .. count-1 as the writer wrote them, or, where another tool
// reordered the nodes (Blender), the nodes of the names the extras list (the one of that name
// that has no mesh, preferring skin joints). Unmatched: the joints are read from the skins.
void Reader::map_extras_nodes(const json& mp, uint64_t count) {
  const json& nodes = top("nodes");
  auto name_of = [&](size_t n) -> std::string {
    const json* v = nodes[n].is_object() ? member(nodes[n], "name") : nullptr;
    return v && v->is_string() ? v->get<std::string>() : std::string();
  };
  const json* names = member(mp, "joints");
  auto listed = [&](size_t k) -> const json* {
    return names && names->is_array() && k < names->size() && (*names)[k].is_string() ? &(*names)[k] : nullptr;
  };
  bool in_place = true;
  for (size_t k = 0; k < count && names; ++k) in_place = listed(k) && listed(k)->get<std::string>() == name_of(k);
  if (mp_.static_node && names && name_of(*mp_.static_node) != "meshport_static") mp_.static_node.reset();
  std::vector<uint32_t> found;
  if (in_place) {
    for (uint32_t n = 0; n < count; ++n) found.push_back(n);
  } else {
    mp_.static_node.reset();  // the node extras say which it is (read_skeleton)
    std::unordered_set<uint64_t> skin_joint;
    const json& skins = top("skins");
    for (const json& s : skins)
      if (const json* js = s.is_object() ? member(s, "joints") : nullptr; js && js->is_array())
        for (const json& x : *js)
          if (auto u = as_uint(x)) skin_joint.insert(*u);
    std::unordered_map<std::string, std::vector<uint32_t>> by_name;
    for (uint32_t n = 0; n < nodes.size(); ++n)
      if (nodes[n].is_object() && !member(nodes[n], "mesh")) by_name[name_of(n)].push_back(n);
    std::unordered_set<uint32_t> taken;
    for (size_t k = 0; k < count; ++k) {
      const json* name = listed(k);
      auto it = name ? by_name.find(name->get<std::string>()) : by_name.end();
      std::vector<uint32_t> c;
      if (it != by_name.end()) {
        for (uint32_t n : it->second)
          if (skin_joint.count(n)) c.push_back(n);
        if (c.empty()) c = it->second;
      }
      if (c.size() != 1 || !taken.insert(c[0]).second) {
        warn(fmt::format("{}.joints[{}]: no single node of that name; the joints are read from the skins", mp_.path, k));
        mp_.animation_only = false;
        return;
      }
      found.push_back(c[0]);
    }
  }
  mp_.nodes = std::move(found);
  for (size_t k = 0; k < mp_.nodes.size(); ++k) mp_.pose_of[mp_.nodes[k]] = int32_t(k);
  mp_.mapped = true;
}

// The writer's glTF mesh indices (PIE levels, attachments) to the glTF meshes now: the same
// index while the names the extras list still match, else the one mesh of that name, else none.
void Reader::map_extras_meshes(const json& mp) {
  const json* names = member(mp, "meshes");
  const json& meshes = top("meshes");
  auto name_of = [&](size_t g) -> std::string {
    const json* v = meshes[g].is_object() ? member(meshes[g], "name") : nullptr;
    return v && v->is_string() ? v->get<std::string>() : std::string();
  };
  mp_.written_mesh.clear();
  if (!names || !names->is_array()) {  // files written before: the indices as they are
    for (size_t g = 0; g < meshes.size(); ++g) mp_.written_mesh.push_back(int32_t(g));
    return;
  }
  bool in_place = names->size() == meshes.size();
  for (size_t g = 0; g < names->size() && in_place; ++g)
    in_place = (*names)[g].is_string() && (*names)[g].get<std::string>() == name_of(g);
  std::unordered_map<std::string, int32_t> by_name;  // -2: several
  for (size_t g = 0; g < meshes.size(); ++g) {
    auto [it, fresh] = by_name.emplace(name_of(g), int32_t(g));
    if (!fresh) it->second = -2;
  }
  for (size_t g = 0; g < names->size(); ++g) {
    if (in_place) {
      mp_.written_mesh.push_back(int32_t(g));
      continue;
    }
    auto it = (*names)[g].is_string() ? by_name.find((*names)[g].get<std::string>()) : by_name.end();
    mp_.written_mesh.push_back(it == by_name.end() || it->second < 0 ? -1 : it->second);
  }
}

// The document-level copy of animation `ai`'s extras: the k-th entry named `name` for the k-th
// animation of that name, or null.
const json* Reader::kept_animation_extras(uint32_t ai, const std::string& name) {
  if (!mp_.present) return nullptr;
  const json* list = member(*mp_.extras, "animations");
  if (!list || !list->is_array()) return nullptr;
  size_t before = 0;  // animations named `name` before this one
  const json& anims = top("animations");
  for (uint32_t a = 0; a < ai; ++a) {
    const json* n = anims[a].is_object() ? member(anims[a], "name") : nullptr;
    before += n && n->is_string() && n->get<std::string>() == name;
  }
  for (const json& e : *list) {
    const json* n = e.is_object() ? member(e, "name") : nullptr;
    if (n && n->is_string() && n->get<std::string>() == name && before-- == 0) return &e;
  }
  return nullptr;
}

void Reader::restore_primitive(Mesh& m, const std::vector<std::string>& keys, const json& mp,
                               const std::string& path) {
  const std::string xp = path + ".extras.meshport";
  if (!mp.is_object()) error(xp, "is not an object");
  const size_t nv = m.vertex_count();
  if (const json* st = member(mp, "streams")) {
    if (!st->is_array()) error(xp + ".streams", "is not an array");
    static const char* labels[] = {"position", "texcoord", "normal", "tangent", "blendindexes", "blendweights",
                                   "color", "custom"};
    std::vector<VertexStream> out;
    std::vector<bool> taken(m.streams.size());
    for (size_t k = 0; k < st->size(); ++k) {
      const std::string ep = fmt::format("{}.streams[{}]", xp, k);
      const json& e = (*st)[k];
      if (!e.is_object()) error(ep, "is not an object");
      const std::string g = get_string(e, "gltf", ep, true);
      size_t i = 0;
      while (i < keys.size() && (taken[i] || keys[i] != g)) ++i;
      if (i == keys.size()) continue;  // not written (blend streams without a skeleton)
      VertexStream s = m.streams[i];
      taken[i] = true;
      const std::string label = get_string(e, "attribute", ep, true);
      auto at = std::find(std::begin(labels), std::end(labels), label);
      if (at == std::end(labels)) error(ep + ".attribute", fmt::format("'{}' is not an attribute", text::clip(label)));
      s.attribute = Attribute(at - std::begin(labels));
      const std::string format = get_string(e, "format", ep);
      if (!format.empty()) {
        int f = 0;
        while (f <= int(ComponentType::Double) && format != ops::component_name(ComponentType(f))) ++f;
        if (f > int(ComponentType::Double)) error(ep + ".format", fmt::format("'{}' is not a format", text::clip(format)));
        s.format = ComponentType(f);
      }
      uint64_t source_size = get_uint(e, "source_size", ep, s.source_size);
      uint64_t components = get_uint(e, "components", ep, s.components);
      if (source_size > 1024 || components < 1 || components > 1024)
        error(ep, fmt::format("source_size {} / components {} are out of range", source_size, components));
      s.source_size = uint32_t(source_size);
      s.name = s.attribute == Attribute::Custom ? get_string(e, "name", ep) : std::string();
      s.custom_slot = -1;
      if (const json* slot = member(e, "custom_slot")) {
        if (!slot->is_number_integer() || slot->get<int64_t>() < -1 || slot->get<int64_t>() > INT32_MAX)
          error(ep + ".custom_slot", fmt::format("{} is not a slot number", describe(*slot)));
        s.custom_slot = int(slot->get<int64_t>());
      }
      // The Scene's component count: glTF may have held fewer (padded back with the defaults) or
      // more (padding, dropped). Blend streams only widen: their influences were merged.
      const bool blend = s.attribute == Attribute::BlendIndices || s.attribute == Attribute::BlendWeights;
      const uint32_t n = scene_components(s.attribute, uint32_t(components));
      if (n != s.components && (!blend || n > s.components)) {
        spend(u128(nv) * n * 4, ep, "the stream");
        std::vector<float> d(nv * n);
        for (size_t v = 0; v < nv; ++v)
          for (uint32_t c = 0; c < n; ++c)
            d[v * n + c] = s.get(v, c, c == 3 && (s.attribute == Attribute::Tangent || s.attribute == Attribute::Color)
                                           ? 1.0f
                                           : 0.0f);
        s.data = std::move(d);
        s.components = n;
      }
      out.push_back(std::move(s));
    }
    for (size_t i = 0; i < m.streams.size(); ++i)
      if (!taken[i]) out.push_back(std::move(m.streams[i]));
    m.streams = std::move(out);
    // The declarations must leave a mesh the rest of the reader (and the Scene) can rely on.
    const VertexStream* pos = m.find(Attribute::Position);
    const VertexStream* bi = m.find(Attribute::BlendIndices);
    const VertexStream* bw = m.find(Attribute::BlendWeights);
    if (!pos || pos->vertex_count() != nv || (!bi != !bw) || (bi && bi->components != bw->components))
      error(xp + ".streams", "the declared streams do not match the primitive's attributes");
  }
  const size_t tris = m.triangles.size() / 3;
  if (const json* ps = member(mp, "polygon_sizes")) {
    const std::string pp = xp + ".polygon_sizes";
    if (!ps->is_array()) error(pp, "is not an array");
    std::vector<uint32_t> sizes;
    u128 covered = 0;
    for (size_t k = 0; k < ps->size(); ++k) {
      auto n = as_uint((*ps)[k]);
      if (!n || *n < 3 || *n > UINT32_MAX) error(fmt::format("{}[{}]", pp, k), "is not a polygon size (3 or more)");
      sizes.push_back(uint32_t(*n));
      covered += *n - 2;
    }
    if (covered != tris)
      error(pp, fmt::format("the polygons hold {} triangles, but the primitive has {}", text::u128_string(covered), tris));
    m.polygon_sizes = std::move(sizes);
  }
  if (const json* sm = member(mp, "smoothing")) {
    const std::string sp = xp + ".smoothing";
    if (!sm->is_object()) error(sp, "is not an object");
    const size_t faces = m.polygon_sizes.empty() ? tris : m.polygon_sizes.size();
    size_t corners = m.polygon_sizes.empty() ? tris * 3 : 0;
    for (uint32_t n : m.polygon_sizes) corners += n;
    auto numbers = [&](const char* key, size_t want, auto&& convert) {
      const json& a = get_array(*sm, key, sp);
      if (a.empty()) return;
      const std::string kp = fmt::format("{}.{}", sp, key);
      if (a.size() != want) error(kp, fmt::format("has {} entries, but {} are needed", a.size(), want));
      for (size_t k = 0; k < a.size(); ++k)
        if (!a[k].is_number()) error(fmt::format("{}[{}]", kp, k), "is not a number");
      for (const json& x : a) convert(x);
    };
    SmoothingRules& r = m.smoothing;
    r = {};
    auto to_int = [](const json& x) {
      double d = x.get<double>();
      return int32_t(std::clamp(d, double(INT32_MIN), double(INT32_MAX)));
    };
    numbers("face_group", faces, [&](const json& x) { r.face_group.push_back(to_int(x)); });
    numbers("face_angle", faces, [&](const json& x) { r.face_angle.push_back(narrow(x.get<double>())); });
    numbers("face_uv", faces, [&](const json& x) { r.face_uv.push_back(x.get<double>() != 0); });
    numbers("corner_edge", corners, [&](const json& x) { r.corner_edge.push_back(x.get<double>() != 0); });
    numbers("vertex_key", nv, [&](const json& x) { r.vertex_key.push_back(to_int(x)); });
  }
}

// Mesh extras.meshport "face_channels" and "format_streams" (gltf_write.cpp): one tuple per
// triangle / vertex of the primitive, else the whole set is ignored with a warning.
void Reader::restore_format_data(Mesh& m, const json& mp, const std::string& path) {
  const std::string xp = path + ".extras.meshport";
  if (!mp.is_object()) error(xp, "is not an object");
  const size_t tris = m.triangles.size() / 3, nv = m.vertex_count();
  // {"name", "components", "data"} with `count` tuples; each value checked by `value`.
  auto entries = [&](const char* key, size_t count, auto&& value) {
    const json& list = get_array(mp, key, xp);
    for (size_t k = 0; k < list.size(); ++k) {
      const std::string ep = fmt::format("{}.{}[{}]", xp, key, k);
      const json& e = list[k];
      if (!e.is_object()) error(ep, "is not an object");
      const std::string name = get_string(e, "name", ep, true);
      const uint64_t components = get_uint(e, "components", ep, std::nullopt);
      if (components < 1 || components > 64) error(ep + ".components", fmt::format("{} is not 1..64", components));
      const json& data = get_array(e, "data", ep);
      if (data.size() != count * components) {
        const std::string msg = fmt::format("{}.data: has {} values, but {} {} of {} need {}", ep, data.size(), count,
                                            key[0] == 'f' ? "triangles" : "vertices", components, count * components);
        // A tool that split or merged vertices (Blender) leaves the face channels usable.
        if (key[0] != 'f') {
          warn(fmt::format("{}; the format stream is ignored", msg));
          continue;
        }
        error(ep + ".data", msg.substr(ep.size() + 7));
      }
      spend(u128(data.size()) * 4, ep, "the values");
      value(name, uint32_t(components), data, ep + ".data");
    }
  };
  std::vector<FaceChannel> channels;
  entries("face_channels", tris, [&](const std::string& name, uint32_t n, const json& data, const std::string& dp) {
    FaceChannel c{name, n, {}};
    c.data.reserve(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      // -2^31..-1: the uint32 of the same bits (Blender keeps 32-bit signed integers only).
      const json& x = data[i];
      const bool negative = x.is_number_integer() && !x.is_number_unsigned() && x.get<int64_t>() < 0 &&
                            x.get<int64_t>() >= INT32_MIN;
      auto u = negative ? std::optional<uint64_t>(uint32_t(int32_t(x.get<int64_t>()))) : as_uint(x);
      if (!u || *u > UINT32_MAX) error(fmt::format("{}[{}]", dp, i), fmt::format("{} is not a uint32", describe(x)));
      c.data.push_back(uint32_t(*u));
    }
    channels.push_back(std::move(c));
  });
  std::vector<VertexStream> streams;
  entries("format_streams", nv, [&](const std::string& name, uint32_t n, const json& data, const std::string& dp) {
    VertexStream s;
    s.attribute = Attribute::Custom;
    s.name = name;
    s.components = n;
    if (!is_format_stream(s)) error(dp, fmt::format("'{}' is not a format stream name", text::clip(name)));
    s.data.reserve(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      if (!data[i].is_number()) error(fmt::format("{}[{}]", dp, i), fmt::format("{} is not a number", describe(data[i])));
      s.data.push_back(narrow(data[i].get<double>()));
    }
    streams.push_back(std::move(s));
  });
  m.face_channels = std::move(channels);
  for (VertexStream& s : streams) m.streams.push_back(std::move(s));
}

void Reader::restore_extras() {
  const json* mp = mp_.extras;
  if (!mp_.present || !mp) return;
  const std::string& path = mp_.path;
  try {
    std::string comment = get_string(*mp, "comment", path);
    if (member(*mp, "comment_base64")) {
      std::vector<uint8_t> raw;
      if (base64_decode(get_string(*mp, "comment_base64", path), raw) != std::string_view::npos)
        error(path + ".comment_base64", "is not base64");
      comment.assign(raw.begin(), raw.end());
    }
    std::vector<IqmExtension> exts;
    const json& xs = get_array(*mp, "iqm_extensions", path);
    for (size_t k = 0; k < xs.size(); ++k) {
      const std::string xp = fmt::format("{}.iqm_extensions[{}]", path, k);
      if (!xs[k].is_object()) error(xp, "is not an object");
      IqmExtension x;
      x.name = get_string(xs[k], "name", xp);
      if (base64_decode(get_string(xs[k], "data", xp), x.data) != std::string_view::npos)
        error(xp + ".data", "is not base64");
      exts.push_back(std::move(x));
    }
    std::vector<int32_t> parents;
    const json& pp = get_array(*mp, "iqm_pose_parents", path);
    for (size_t k = 0; k < pp.size(); ++k) {
      if (!pp[k].is_number_integer() || pp[k].get<int64_t>() < -1 || pp[k].get<int64_t>() >= int64_t(k))
        error(fmt::format("{}.iqm_pose_parents[{}]", path, k), fmt::format("{} is not -1 or a preceding pose",
                                                                          describe(pp[k])));
      parents.push_back(int32_t(pp[k].get<int64_t>()));
    }
    scene_.comment = std::move(comment);
    if (!exts.empty() || !parents.empty()) {
      IqmData& iqm = scene_.iqm.emplace();
      iqm.extensions = std::move(exts);
      iqm.pose_parents = std::move(parents);
    }
  } catch (const Error& e) {
    warn(fmt::format("{}; ignored", e.diagnostic().message));
  }
  restore_pie(*mp);
}

// extras.meshport.pie (gltf_pie.h): its levels name glTF meshes, mapped to the Scene's.
void Reader::restore_pie(const json& mp) {
  const json* pie = member(mp, "pie");
  if (!pie) return;
  try {
    std::vector<PieLegacyLevel> legacy;
    // Its levels name the glTF meshes the writer wrote: their Scene meshes now.
    std::vector<int32_t> scene_mesh;
    for (int32_t g : mp_.written_mesh) scene_mesh.push_back(g < 0 || size_t(g) >= mesh_scene_.size() ? -1 : mesh_scene_[size_t(g)]);
    scene_.pie = pie_from_json(*pie, mp_.path + ".pie", scene_mesh, scene_.joints.size(), &legacy);
    apply_pie_legacy(*scene_.pie, legacy, scene_.meshes);
  } catch (const Error& e) {
    warn(fmt::format("{}; the PIE data is ignored", e.diagnostic().message));
    scene_.pie = {};
  }
}

// A tool that re-oriented the bones (Blender's importer turns each bone's axes towards its child,
// and its exporter writes those axes back) changed every joint's rest by a rotation C_j of its own
// frame: world rest W'_j = W_j C_j. The extras' "joint_rests" give W_j back: rests, poses
// (P_j = P'_j C_j^-1) and joint-relative attachments (C_j T) are re-expressed in the writer's
// frames, which leaves every skinned position as it is. Nothing changes unless every C_j is a
// rotation (within 1e-4; a skeleton edited since keeps the file's rests); entries of C_j within
// 1e-5 of 0 or +-1 are snapped, as the tool's turns are quarter turns re-read from floats.
void Reader::rebase_joints() {
  if (!mp_.present || !mp_.mapped || mp_.animation_only) return;
  const json* list = member(*mp_.extras, "joint_rests");
  const size_t nj = scene_.joints.size();
  if (!list || !list->is_array() || list->size() != nj || nj == 0) return;
  std::vector<Transform> kept(nj);
  for (size_t j = 0; j < nj; ++j) {
    const json& r = (*list)[j];
    if (!r.is_array() || r.size() != 10) return;
    float v[10];
    for (size_t k = 0; k < 10; ++k) {
      if (!r[k].is_number()) return;
      v[k] = narrow(r[k].get<double>());
      if (!std::isfinite(v[k])) return;
    }
    kept[j] = {{v[0], v[1], v[2]}, {v[3], v[4], v[5], v[6]}, {v[7], v[8], v[9]}};
  }
  auto world_of = [&](const std::vector<Transform>& local, std::vector<Mat3x4>& world) {
    world.resize(nj);
    for (size_t j = 0; j < nj; ++j) {
      const Mat3x4 m = mat_from_trs(local[j].translation, local[j].rotation, local[j].scale);
      const int32_t p = scene_.joints[j].parent;
      world[j] = p >= 0 ? mat_mul(world[size_t(p)], m) : m;
    }
  };
  // Without a skin the joints are plain nodes (Blender: empties), whose transform another tool
  // may write at its current frame of the animation: the rests are the writer's.
  if (top("skins").empty()) {
    for (size_t j = 0; j < nj; ++j) scene_.joints[j].rest = kept[j];
    return;
  }
  std::vector<Transform> now(nj);
  for (size_t j = 0; j < nj; ++j) now[j] = scene_.joints[j].rest;
  std::vector<Mat3x4> w_now, w_kept;
  world_of(now, w_now);
  world_of(kept, w_kept);
  std::vector<Mat3x4> fix(nj), unfix(nj);  // C_j and C_j^-1
  bool same = true;
  for (size_t j = 0; j < nj; ++j) {
    Mat3x4 c = mat_mul(mat_inverse(w_kept[j]), w_now[j]);
    float size = 1;
    for (int k = 9; k < 12; ++k) size = std::max(size, std::fabs(w_kept[j][k]));
    for (int k = 9; k < 12; ++k) {
      if (std::fabs(c[k]) > 1e-4f * size) return;
      c[k] = 0;
    }
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        float d = c[a * 3] * c[b * 3] + c[a * 3 + 1] * c[b * 3 + 1] + c[a * 3 + 2] * c[b * 3 + 2];
        if (std::fabs(d - (a == b ? 1.0f : 0.0f)) > 1e-4f) return;
      }
    if (det3(c) < 0) return;
    for (int k = 0; k < 9; ++k)
      for (float snap : {-1.0f, 0.0f, 1.0f})
        if (std::fabs(c[k] - snap) <= 1e-5f) c[k] = snap;
    same = same && c == mat_identity();
    fix[j] = c;
    unfix[j] = mat_inverse(c);
  }
  if (same) {  // the same frames within float rounding: the rests as written
    for (size_t j = 0; j < nj; ++j) scene_.joints[j].rest = kept[j];
    return;
  }
  // A scale within float rounding of a 6-digit decimal is that decimal (the tool's float noise:
  // 1.0000001 for 1).
  auto tidy = [](float x) {
    if (!(std::fabs(x) > 0) || !std::isfinite(x)) return x;
    const double e = std::pow(10.0, 5 - std::floor(std::log10(std::fabs(double(x)))));
    const float r = float(std::round(double(x) * e) / e);
    return std::fabs(r - x) <= 4 * std::numeric_limits<float>::epsilon() * std::fabs(x) ? r : x;
  };
  // A pose's translation, rotation or scale within float rounding (1e-6) of the rest's is the
  // rest's (the tool's float noise on what the writer wrote as the rest).
  auto snap_to_rest = [](Transform& p, const Transform& r) {
    auto close = [](float a, float b) { return std::fabs(a - b) <= 1e-6f * std::max(1.0f, std::fabs(b)); };
    bool q = true, nq = true, t = true, sc = true;
    for (int k = 0; k < 4; ++k) q = q && close(p.rotation[k], r.rotation[k]), nq = nq && close(-p.rotation[k], r.rotation[k]);
    for (int k = 0; k < 3; ++k) t = t && close(p.translation[k], r.translation[k]), sc = sc && close(p.scale[k], r.scale[k]);
    if (q || nq) p.rotation = r.rotation;
    if (t) p.translation = r.translation;
    if (sc) p.scale = r.scale;
  };
  auto local_of = [&](const std::vector<Mat3x4>& world, size_t j) {
    const int32_t p = scene_.joints[j].parent;
    bool exact;
    return decompose(p >= 0 ? mat_mul(mat_inverse(world[size_t(p)]), world[j]) : world[j], exact);
  };
  for (Animation& a : scene_.animations) {
    if (a.channels != nj) continue;
    for (size_t f = 0; f < a.frame_count(); ++f) {
      Transform* pose = &a.poses[f * nj];
      std::vector<Mat3x4> w;
      world_of(std::vector<Transform>(pose, pose + nj), w);
      for (size_t j = 0; j < nj; ++j) w[j] = mat_mul(w[j], unfix[j]);
      for (size_t j = 0; j < nj; ++j) {
        pose[j] = local_of(w, j);
        for (float& x : pose[j].scale) x = tidy(x);
        snap_to_rest(pose[j], kept[j]);
      }
    }
  }
  for (Attachment& at : scene_.attachments) {
    if (at.joint < 0 || size_t(at.joint) >= nj) continue;
    const Transform& t = at.transform;
    bool exact;
    Transform r = decompose(mat_mul(fix[size_t(at.joint)], mat_from_trs(t.translation, t.rotation, t.scale)), exact);
    // What is left of the tool's turn within float rounding: none.
    for (float& x : r.scale) x = tidy(x);
    const Quat& q = r.rotation;
    if (std::fabs(std::fabs(q[3]) - 1) <= 1e-6f && std::fabs(q[0]) + std::fabs(q[1]) + std::fabs(q[2]) <= 1e-6f)
      r.rotation = {0, 0, 0, 1};
    at.transform = r;
  }
  for (size_t j = 0; j < nj; ++j) scene_.joints[j].rest = kept[j];
}

// ---- The whole file --------------------------------------------------------------------------

Scene Reader::run() {
  // GLB by its magic; a .glb too short to hold it, but starting like it, is a truncated GLB.
  const bool named_glb = text::ends_with_nocase(name_, ".glb");
  if (data_.size() >= 4 ? le32(data_.data()) == kGlbMagic
                        : named_glb && (data_.empty() || std::memcmp(data_.data(), "glTF", data_.size()) == 0)) {
    glb_ = true;
    split_glb();
  } else {
    // A .glb without the magic is not a glTF JSON file either: say what is wrong with it.
    if (named_glb) fail_at_offset(name_, 0, "not a GLB file: the magic is not \"glTF\"");
    parse_json(data_, -1);
  }
  check_asset();
  read_root_extras();
  // A slot per buffer, view and accessor, filled when first used.
  spend(u128(top("buffers").size()) * sizeof(BufferSlot), "buffers", "the buffers");
  spend(u128(top("bufferViews").size()) * sizeof(std::optional<View>), "bufferViews", "the buffer views");
  spend(u128(top("accessors").size()) * sizeof(std::unique_ptr<Accessor>), "accessors", "the accessors");
  buffers_.resize(top("buffers").size());
  views_.resize(top("bufferViews").size());
  accessors_.resize(top("accessors").size());
  read_materials();
  read_nodes();
  read_skeleton();
  read_meshes();
  instance_meshes();
  read_attachments();
  read_animations();
  rebase_joints();
  restore_extras();
  restore_modedef(scene_, doc_, mesh_scene_, name_, diags_);  // scene and mesh extras, kept by Blender
  return std::move(scene_);
}

}  // namespace

Scene read(std::span<const uint8_t> data, const std::string& name, const SideFileLoader& load, Diagnostics& diags) {
  Reader r(data, name, load, diags);
  return r.run();
}

}  // namespace meshport::gltf
