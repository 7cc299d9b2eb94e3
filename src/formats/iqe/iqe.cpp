// IQE (Inter-Quake Export, text) reader and writer. Specification: ../shared/specs/iqe.txt, with
// the reference compiler's measured behaviour in ../shared/specs/iqm-notes.md. Where the
// specification is silent, the choice made here is stated in a comment starting "Decision:".
//
// Reading is one pass over the text with a hand-written line scanner (no per-line allocation);
// numbers go through std::from_chars. Each mesh collects its own vertex arrays while it is read;
// faces are kept as file-global vertex numbers and resolved to mesh-local ones at the end, when
// every vertex is known (a face may use vertices of another mesh: they are copied in).
// Everything is read in the file's Z-up, clockwise convention and converted to the Scene's at the
// very end (src/ops/mesh/axes.h).
#include "formats/iqe/iqe.h"
#include "formats/iqe/iqe_chunks.h"

#include <meshport/options.h>

#include "core/math.h"
#include "core/text.h"
#include "core/text_window.h"
#include "ops/animation/morph_clips.h"
#include "ops/materials/material_names.h"
#include "ops/mesh/axes.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_map>

namespace meshport::iqe {
namespace {

// ---------------------------------------------------------------------------------------------
// Vertex array kinds, in the order their streams appear in a Mesh.

enum Kind : int {
  kPosition,
  kTexcoord,
  kNormal,
  kTangent,
  kBlendIndexes,
  kBlendWeights,
  kColor,
  kCustom0,
  kKindCount = kCustom0 + 10,
};

constexpr std::array<std::string_view, kKindCount> kTypeNames = {
    "position", "texcoord", "normal",  "tangent", "blendindexes", "blendweights", "color",   "custom0", "custom1",
    "custom2",  "custom3",  "custom4", "custom5", "custom6",      "custom7",      "custom8", "custom9"};
constexpr std::array<std::string_view, kKindCount> kCommandNames = {
    "vp", "vt", "vn", "vx", "vb", "vb", "vc", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"};
// In ComponentType order.
constexpr std::array<std::string_view, 9> kFormatNames = {"byte", "ubyte", "short", "ushort", "int",
                                                          "uint", "half",  "float", "double"};

// Decision: at most this many blend pairs per vertex are kept (the largest weights). iqe.txt allows
// any number, but every vertex of a mesh is padded to its largest count, so an unbounded count
// would let one line of a file multiply the memory of every vertex. Real exporters write <= 8.
constexpr size_t kMaxBlendPairs = 32;

// Decision: at most this many poses of a file's animations are base poses filled in for frames
// with fewer poses than joints (40 MB), so that a few short frames cannot make huge animations.
constexpr size_t kMaxFilledPoses = size_t(1) << 20;

// Decision: the vertex arrays of all meshes (one per attribute and mesh) number at most this many,
// four per mesh at the mesh limit: each costs a few hundred bytes however short it is.
constexpr size_t kMaxArrays = size_t(1) << 18;

// Decision: IQE vertex arrays are file-global (the reference compiler keeps one array per
// attribute for the whole file), so every vertex of a file written by meshport carries the same
// commands. Vertices of unskinned meshes, and unweighted vertices of skinned ones, are bound with
// weight 1 to this joint, appended after the Scene's joints with the identity rest pose and the
// identity in every frame: it never moves, so they stay where they are in every tool. The reader
// recognises it (the last joint, a root, with that name, identity rest and identity poses) and
// drops it again, turning influences on it back into no influence.
constexpr std::string_view kStaticJoint = "meshport_static";
constexpr std::string_view kIdentityPose = "pq 0 0 0 0 0 0 1\n";
// The comment line after a `mesh` line naming the commands whose values the writer filled in
// for that mesh only to keep every vertex's attributes the same (`# meshport filled: vt vn vb`);
// the reader drops those arrays again. Other tools read it as a comment. (kFilledMarker, in
// iqe_chunks.h.)

bool is_custom(int k) { return k >= kCustom0; }
bool is_blend(int k) { return k == kBlendIndexes || k == kBlendWeights; }

Attribute attribute_of(int k) {
  constexpr Attribute table[] = {Attribute::Position, Attribute::Texcoord,     Attribute::Normal,
                                 Attribute::Tangent,  Attribute::BlendIndices, Attribute::BlendWeights,
                                 Attribute::Color};
  return k < kCustom0 ? table[k] : Attribute::Custom;
}

// The IQM specification's recommended formats, which iqe.txt makes the default.
ComponentType default_format(int k) { return is_blend(k) || k == kColor ? ComponentType::UByte : ComponentType::Float; }
uint32_t default_size(int k) {
  constexpr uint32_t sizes[] = {3, 2, 3, 4, 4, 4, 3};
  return k < kCustom0 ? sizes[k] : 0;
}

// A `vertexarray` declaration (or the default when `declared` is false).
struct Decl {
  bool declared = false;
  ComponentType format = ComponentType::Float;
  uint32_t size = 0;
  std::string name;
  uint32_t line = 0;        // reader: where it was declared
  bool used = false;        // reader: some array took it
  bool after_data = false;  // reader: data of its type came before it
};

// Values stored per vertex for a kind under a declaration (blend arrays grow with their pairs).
uint32_t components_for(int k, const Decl& d) {
  switch (k) {
    case kPosition:
    case kNormal:
      return d.declared && d.size == 4 ? 4 : 3;  // at least 3, so that axes can be converted
    case kTexcoord:
      return d.declared ? d.size : 2;
    case kTangent:
      return 4;  // x y z + handedness sign
    case kColor:
      return d.declared ? d.size : 3;  // iqe.txt: colour defaults to 3 components
    case kBlendIndexes:
    case kBlendWeights:
      return 0;
    default:
      return d.size;
  }
}

// Unspecified values: iqe.txt gives W = 1 for positions and A = 1 for colours; a tangent without
// a sign is right-handed (+1); everything else is 0.
float default_value(int k, uint32_t c) {
  return c == 3 && (k == kPosition || k == kTangent || k == kColor) ? 1.0f : 0.0f;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A name or token for a message (text::quoted: cut after 40 bytes, unprintable bytes as \xNN).
std::string iqe_quoted(std::string_view s) { return text::quoted(s); }

bool is_image_name(std::string_view name) {
  for (std::string_view ext : {".png", ".tga", ".jpg", ".jpeg", ".dds", ".bmp"})
    if (text::ends_with_nocase(name, ext)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Poses. Computed in double, stored as float.

// iqe.txt: a pq without Qw gets the negative w that makes the quaternion unit length.
float restore_w(float x, float y, float z) {
  double s = 1.0 - double(x) * x - double(y) * y - double(z) * z;
  return float(-std::sqrt(std::max(0.0, s)));
}

// Rotation matrix (row-major, column-vector convention: rows are iqe.txt's A, B, C) to quaternion.
Quat matrix_to_quat(const double m[3][3]) {
  double x, y, z, w;
  double trace = m[0][0] + m[1][1] + m[2][2];
  if (trace > 0) {
    double r = std::sqrt(1 + trace), inv = 0.5 / r;
    w = 0.5 * r;
    x = (m[2][1] - m[1][2]) * inv;
    y = (m[0][2] - m[2][0]) * inv;
    z = (m[1][0] - m[0][1]) * inv;
  } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
    double r = std::sqrt(1 + m[0][0] - m[1][1] - m[2][2]), inv = 0.5 / r;
    x = 0.5 * r;
    y = (m[1][0] + m[0][1]) * inv;
    z = (m[0][2] + m[2][0]) * inv;
    w = (m[2][1] - m[1][2]) * inv;
  } else if (m[1][1] > m[2][2]) {
    double r = std::sqrt(1 + m[1][1] - m[0][0] - m[2][2]), inv = 0.5 / r;
    x = (m[1][0] + m[0][1]) * inv;
    y = 0.5 * r;
    z = (m[2][1] + m[1][2]) * inv;
    w = (m[0][2] - m[2][0]) * inv;
  } else {
    double r = std::sqrt(1 + m[2][2] - m[0][0] - m[1][1]), inv = 0.5 / r;
    x = (m[0][2] + m[2][0]) * inv;
    y = (m[2][1] + m[1][2]) * inv;
    z = 0.5 * r;
    w = (m[1][0] - m[0][1]) * inv;
  }
  // Decision: like the reference compiler, computed rotations get w <= 0 (the sign pq's
  // restored w has); q and -q are the same rotation.
  if (w > 0) x = -x, y = -y, z = -z, w = -w;
  return quat_normalize({float(x), float(y), float(z), float(w)});
}

// pm: the matrix may include scale. As the reference compiler does, each column's length is that
// axis' scale, all three negated when the determinant is negative (a mirror), and the matrix
// divided by them is the rotation. The optional Sx Sy Sz multiply that scale.
void matrix_pose(const float* v, Transform& t) {
  double m[3][3];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m[r][c] = v[3 + r * 3 + c];
  double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  double s[3];
  for (int c = 0; c < 3; ++c) {
    s[c] = std::sqrt(m[0][c] * m[0][c] + m[1][c] * m[1][c] + m[2][c] * m[2][c]);
    if (det < 0) s[c] = -s[c];
    if (s[c] != 0)
      for (int r = 0; r < 3; ++r) m[r][c] /= s[c];
  }
  t.rotation = matrix_to_quat(m);
  for (int c = 0; c < 3; ++c) t.scale[c] = float(t.scale[c] * s[c]);
}

// pa: Euler angles in radians. Decision (the reference compiler's order): the rotation about X is
// applied first, then Y, then Z, i.e. q = qz * qy * qx.
Quat euler_to_quat(float rx, float ry, float rz) {
  double cx = std::cos(rx / 2.0), sx = std::sin(rx / 2.0);
  double cy = std::cos(ry / 2.0), sy = std::sin(ry / 2.0);
  double cz = std::cos(rz / 2.0), sz = std::sin(rz / 2.0);
  double x = sx * cy * cz - cx * sy * sz;
  double y = cx * sy * cz + sx * cy * sz;
  double z = cx * cy * sz - sx * sy * cz;
  double w = cx * cy * cz + sx * sy * sz;
  if (w > 0) x = -x, y = -y, z = -z, w = -w;  // as matrix_to_quat
  return {float(x), float(y), float(z), float(w)};
}

// ---------------------------------------------------------------------------------------------
// Reading state.

// One vertex array of one mesh while it is read, in file (Z-up) space.
struct Array {
  int kind = 0;
  ComponentType format = ComponentType::Float;
  uint32_t source_size = 0;
  uint32_t comps = 0;
  uint32_t count = 0;  // vertices
  std::string name;
  std::vector<float> data;
  bool stale = false;  // a vertexarray for its kind came after it was created
  const char* since = nullptr;  // where the reading on threads first appended to it (make_room)
};

// Changes the values per vertex, keeping the first ones and filling new ones with defaults.
void restride(Array& a, uint32_t comps) {
  if (comps == a.comps) return;
  std::vector<float> d(size_t(a.count) * comps);
  for (size_t v = 0; v < a.count; ++v)
    for (uint32_t c = 0; c < comps; ++c)
      d[v * comps + c] = c < a.comps ? a.data[v * a.comps + c] : default_value(a.kind, c);
  a.data = std::move(d);
  a.comps = comps;
}

// Appends a few values: one push_back each, inlined, where insert() would call memmove for 3 or
// 4 floats (a tenth of the time of replaying a chunk).
void append(std::vector<float>& d, const float* v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) d.push_back(v[i]);
}

void push(Array& a, const float* v, uint32_t n) {
  if (n >= a.comps) {  // the common case: every value given
    append(a.data, v, a.comps);
    ++a.count;
    return;
  }
  size_t base = a.data.size();
  a.data.resize(base + a.comps);
  float* out = a.data.data() + base;
  for (uint32_t c = 0; c < a.comps; ++c) out[c] = c < n ? v[c] : default_value(a.kind, c);
  ++a.count;
}

// Room for `n` more values in `d`, an array being filled from the text [since, end) whose
// reading has reached `now`. Once a large array is full, its capacity becomes its size
// extrapolated to the end of the text at the rate it grew since `since`, capped at one value per
// 2 bytes of text left, and at least twice its size (what push_back would give): the arrays of a
// large file are then copied about once instead of at every doubling, and the pages of capacity
// left unused are never touched (1M-vertex file: 23,000 fewer page faults). The extrapolation
// overshoots where other lines follow an array's (faces after vertices), which costs only address
// space; where it falls short the doubling goes on.
template <class T>
void make_room(std::vector<T>& d, size_t n, const char* since, const char* now, const char* end) {
  const size_t size = d.size();
  if (size + n <= d.capacity() || size < (size_t(1) << 14) || !since || now <= since) return;
  const double rest = double(end - now);
  const double more = std::min(double(size) / double(now - since) * rest * 1.0625, rest / 2);
  d.reserve(std::max(2 * size + n, size + n + size_t(more)));
}

// Smoothing state (smoothgroup / smoothangle / smoothuv) in effect from face `first_face` on.
struct Run {
  uint32_t first_face = 0;
  int32_t group = -1;
  float angle = 180;
  uint8_t uv = 0;
};

struct Bitangent {
  uint32_t vertex;
  Vec3 b;
};

struct FsCommand {
  uint32_t start, size, line;
};

struct MeshState {
  std::string name;
  bool implicit = false;  // vertices and faces before the first `mesh` command
  uint32_t line = 0;      // its `mesh` line (implicit mesh: its first vertex or face line)
  bool has_material = false;
  std::string material;
  uint32_t first = 0;                   // file-global number of its first vertex
  uint32_t vcount = 0;                  // its own vertices: the longest of its arrays
  std::array<int8_t, kKindCount> slot;  // index into `arrays`, -1 when absent
  std::vector<Array> arrays;
  bool has_vs = false;
  std::vector<int32_t> vs;
  std::vector<Bitangent> bitangents;  // 6-value vx lines, resolved when the mesh ends
  std::vector<uint32_t> tris;         // file-global vertex numbers, Scene winding
  const char* tris_since = nullptr;   // where the reading on threads first appended to tris
  std::vector<uint32_t> polygons;     // corner counts, only once some face has more than 3
  bool has_polygons = false;
  uint32_t faces = 0;
  Run start_state;        // smoothing state when the mesh began
  std::vector<Run> runs;  // changes within the mesh
  std::vector<uint8_t> fs_flags;
  std::vector<FsCommand> fs;
  std::array<bool, kKindCount> filled{};  // kFilledMarker: arrays the writer filled in
  bool filled_vs = false;

  MeshState() { slot.fill(-1); }
  Array* find(int k) { return slot[k] < 0 ? nullptr : &arrays[size_t(slot[k])]; }
};

// A face index past the vertices defined so far; checked once the whole file is read. Only
// those past every earlier one are kept: an earlier one fails whenever a later, smaller one does,
// and the first that fails is reported.
struct ForwardRef {
  uint32_t global;
  uint32_t line, col;
  uint32_t mesh_first;
  bool relative;
};

struct FrameStart {
  uint32_t line;
  size_t first_pose;
};

// Poses and frames are deques: they grow line by line without copying what is there, and the
// poses are freed frame by frame as the animation is built.
struct AnimState {
  std::string name;
  float framerate = 0;
  bool loop = false;
  std::deque<Transform> poses;  // file space
  size_t pose_count = 0;        // poses read (poses.size() shrinks while the animation is built)
  std::deque<FrameStart> frames;
};

std::string mesh_label(const MeshState& m) {
  return m.implicit ? std::string("the vertices before the first mesh command") : "mesh " + iqe_quoted(m.name);
}

bool is_identity(const Transform& t) {
  const Transform id;
  return t.translation == id.translation && t.rotation == id.rotation && t.scale == id.scale;
}

// The writer's kStaticJoint: the last joint, a root named so, at the identity in its rest pose
// and in every frame. Anything else is an ordinary joint.
bool has_static_joint(const Scene& s) {
  if (s.joints.empty()) return false;
  const Joint& j = s.joints.back();
  if (j.name != kStaticJoint || j.parent >= 0 || !is_identity(j.rest)) return false;
  for (const Animation& a : s.animations) {
    if (a.channels != s.joints.size()) return false;
    for (size_t f = 0; f < a.frame_count(); ++f)
      if (!is_identity(a.poses[f * a.channels + a.channels - 1])) return false;
  }
  return true;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& file, Diagnostics& diags, const ReadThreads& threads)
      : text_(text), file_(file), diags_(diags), threads_(threads) {
    meshes_.emplace_back();
    meshes_.back().implicit = true;
  }

  Scene read() {
    size_t pos = header();
    body(pos);
    return finish();
  }

 private:
  std::string_view text_;
  const std::string& file_;
  Diagnostics& diags_;
  ReadThreads threads_;

  // A line parsed on a thread (iqe_chunks.h): its chunk and its record, while it is read.
  const PreChunk* pre_chunk_ = nullptr;
  const PreLine* pre_ = nullptr;

  // Current line.
  const char* begin_ = nullptr;  // first byte of the line
  const char* p_ = nullptr;      // scan position
  const char* end_ = nullptr;    // end of the line (without CR LF)
  const char* tok_ = nullptr;    // start of the last token read
  uint32_t line_ = 0;

  std::array<Decl, kKindCount> decl_;
  std::array<bool, kKindCount> seen_{};  // some mesh has an array of that kind
  std::deque<MeshState> meshes_;         // [0] is the implicit mesh; a deque never moves its elements
  bool any_faces_ = false;
  Run state_;
  bool used_group_ = false, used_angle_ = false, used_uv_ = false, used_fs_ = false;
  std::deque<ForwardRef> forward_;
  std::vector<Joint> joints_;
  std::deque<Transform> base_poses_;
  size_t base_pose_count_ = 0;  // base poses in the file (base_poses_ keeps kMaxJoints + 1 at most)
  std::vector<uint32_t> joint_lines_, base_pose_lines_;  // where each joint and base pose is
  std::vector<AnimState> anims_;
  size_t filled_ = 0;                       // poses filled in with base poses (check_frame)
  size_t blend_values_ = 0;                 // values of all blend arrays (count_blend_values)
  size_t arrays_ = 0;                       // vertex arrays of all meshes (kMaxArrays)
  const AnimState* warned_fill_ = nullptr;  // the animation last warned about it
  std::string comment_;
  std::unordered_map<std::string, int32_t> material_ids_;  // Scene material of a name
  std::unordered_map<std::string, size_t> joint_ids_;      // first joint of a name

  // Scratch buffers reused by every line.
  std::vector<int64_t> indices_;
  std::vector<float> pairs_;
  std::string name_buf_;  // a quoted name whose escaped backslashes were undone

  // Warn-once flags.
  std::array<bool, 10> warned_custom_{};
  bool warned_range_ = false;
  std::vector<std::string> unknown_;

  // ---- Diagnostics -----------------------------------------------------------------------------
  uint32_t col(const char* q) const { return uint32_t(q - begin_) + 1; }
  [[noreturn]] void error(const char* at, std::string msg) const {
    fail_at_line(file_, line_, col(at), std::move(msg));
  }
  void warn(const char* at, std::string msg) { diags_.add(warning_at_line(file_, line_, col(at), std::move(msg))); }
  void warn_line(uint32_t line, std::string msg) { diags_.add(warning_at_line(file_, line, 1, std::move(msg))); }
  std::string_view token_at(const char* q) const {
    const char* e = q;
    while (e < end_ && !is_space(*e)) ++e;
    return {q, size_t(e - q)};
  }
  [[noreturn]] void malformed(const char* at) const { error(at, "malformed number " + iqe_quoted(token_at(at))); }

  // The limits of meshport.h, checked as the file is read so that memory stays bounded.
  [[noreturn]] void over_limit(const char* at, const char* what, size_t limit) const {
    error(at, fmt::format("{} {}: more than meshport reads from one file ({})", what, limit + 1, limit));
  }

  // ---- Tokens ----------------------------------------------------------------------------------
  void skip_space() {
    while (p_ < end_ && is_space(*p_)) ++p_;
  }
  // True when a value follows; `#` starts a comment that runs to the end of the line.
  bool more() {
    skip_space();
    return p_ < end_ && *p_ != '#';
  }
  // A number ends at white space, the end of the line or a `#` comment.
  void check_number_end(const char* ptr, const char* start) const {
    if (ptr < end_ && !is_space(*ptr) && *ptr != '#') malformed(start);
  }
  // from_chars takes no leading '+'; strtod, which other IQE tools use, does.
  const char* skip_plus(const char* q) const {
    if (q < end_ && *q == '+') {
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) malformed(q - 1);
    }
    return q;
  }

  // The common case of next_float / next_int in registers: white space, then a plain number that
  // text::fast_decimal / fast_integer reads, ended by white space, the line's end or '#'. kSlow
  // (p_ and out untouched) for anything else, which next_float / next_int then read and report.
  enum class Scan { kEnd, kValue, kSlow };
  template <class T>
  Scan scan_number(T& out) {
    const char* p = p_;
    while (p < end_ && is_space(*p)) ++p;
    if (p == end_ || *p == '#') {
      p_ = p;
      return Scan::kEnd;
    }
    const char* q = p;
    bool ok;
    if constexpr (std::is_same_v<T, float>) ok = text::fast_decimal(q, end_, out);
    else ok = text::fast_integer(q, end_, out);
    if (!ok || (q < end_ && !is_space(*q) && *q != '#')) return Scan::kSlow;
    tok_ = p;
    p_ = q;
    return Scan::kValue;
  }

  bool next_float(float& out) {
    if (const Scan s = scan_number(out); s != Scan::kSlow) return s == Scan::kValue;
    if (!more()) return false;
    tok_ = p_;
    const char* q = skip_plus(p_);
    if (text::fast_decimal(q, end_, out)) {
      check_number_end(q, tok_);
      p_ = q;
      return true;
    }
    auto r = std::from_chars(q, end_, out);
    if (r.ec == std::errc::invalid_argument) malformed(tok_);
    if (r.ec == std::errc::result_out_of_range) out = out_of_range(q, r.ptr);
    check_number_end(r.ptr, tok_);
    p_ = r.ptr;
    return true;
  }

  // Decision: a value beyond float range becomes +-inf (with one warning per file), one too small
  // becomes 0 or a denormal, as strtof would give.
  float out_of_range(const char* q, const char* e) {
    double d = 0;
    float v;
    auto r = std::from_chars(q, e, d);
    if (r.ec == std::errc()) {
      v = std::fabs(d) > double(std::numeric_limits<float>::max())
              ? std::copysign(std::numeric_limits<float>::infinity(), float(d))
              : float(d);
    } else {
      std::string_view s(q, size_t(e - q));
      size_t ex = s.find_first_of("eE");
      bool tiny = ex != std::string_view::npos && ex + 1 < s.size() && s[ex + 1] == '-';
      float mag = tiny ? 0.0f : std::numeric_limits<float>::infinity();
      v = *q == '-' ? -mag : mag;
    }
    if (std::isinf(v) && !warned_range_) {
      warned_range_ = true;
      warn(tok_, "number " + iqe_quoted(token_at(tok_)) + " is beyond float range: stored as infinity");
    }
    return v;
  }

  bool next_int(int64_t& out) {
    if (const Scan s = scan_number(out); s != Scan::kSlow) return s == Scan::kValue;
    if (!more()) return false;
    tok_ = p_;
    const char* q = skip_plus(p_);
    const char* fast = q;
    if (text::fast_integer(fast, end_, out)) {
      check_number_end(fast, tok_);
      p_ = fast;
      return true;
    }
    auto r = std::from_chars(q, end_, out);
    if (r.ec == std::errc::invalid_argument) malformed(tok_);
    check_number_end(r.ptr, tok_);
    if (r.ec == std::errc::result_out_of_range) error(tok_, "number out of range " + iqe_quoted(token_at(tok_)));
    p_ = r.ptr;
    return true;
  }

  bool next_int32(int32_t& out) {
    int64_t v;
    if (!next_int(v)) return false;
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      error(tok_, "number out of range " + iqe_quoted(token_at(tok_)));
    out = int32_t(v);
    return true;
  }

  // Whether the rest of the line can go to text::window_numbers: at most 64 bytes, and the text
  // holds the 72 bytes it may read.
  bool window_fits() const {
    return text::kHaveWindow && end_ - p_ <= 64 && text_.data() + text_.size() - p_ >= 72;
  }

  // Up to `max` (<= 64) numbers of the rest of the line by text::window_numbers; how many, with
  // p_ and tok_ moved as next_float / next_int move them. `general`: the token at p_ is for them.
  template <class T>
  uint32_t window(T* v, uint32_t max, bool& general) {
    const text::WindowRead r = text::window_numbers(p_, end_, v, int(max));
    if (r.count) tok_ = r.last;
    p_ = r.at;
    general = r.general;
    return uint32_t(r.count);
  }

  // Reads up to `max` numbers; the rest of the line is ignored. Returns how many were read.
  uint32_t floats(float* v, uint32_t max) {
    uint32_t n = 0;
    if (max <= 64 && window_fits()) {
      bool general;
      n = window(v, max, general);
      if (!general) return n;
    }
    while (n < max && next_float(v[n])) ++n;
    return n;
  }

  // A name: either quoted (it ends at the next quote) or up to white space. Empty when the line
  // has none. Decision: iqe.txt has no escapes, and the reference compiler has none, but common
  // IQE tokenisers (Python's shlex, used by the Blender importers) read `\"` as an escaped quote
  // and `\\` as one backslash. The writer doubles the backslashes that end a quoted name, so
  // that those tokenisers see the closing quote: an even run of 2k backslashes right before the
  // closing quote reads as k. An odd run is read as written, as the reference compiler reads
  // it (meshport before issue 16 wrote `"name \"` for `name \`).
  std::string_view next_name() {
    skip_space();
    tok_ = p_;
    if (p_ == end_ || *p_ == '#') return {};
    if (*p_ == '"') {
      const char* s = p_ + 1;
      const char* q = static_cast<const char*>(std::memchr(s, '"', size_t(end_ - s)));
      if (!q) {
        warn(tok_, "quoted name is not closed: it runs to the end of the line");
        p_ = end_;
        return {s, size_t(end_ - s)};
      }
      p_ = q + 1;
      size_t run = 0;
      while (q - run > s && q[-1 - std::ptrdiff_t(run)] == '\\') ++run;
      if (run == 0 || run % 2) return {s, size_t(q - s)};
      name_buf_.assign(s, size_t(q - s) - run / 2);
      return name_buf_;
    }
    const char* s = p_;
    while (p_ < end_ && !is_space(*p_)) ++p_;
    return {s, size_t(p_ - s)};
  }

  void warn_trailing() {
    if (more()) warn(p_, "text after the name ignored: " + iqe_quoted(std::string_view(p_, size_t(end_ - p_))));
  }

  // ---- Header ----------------------------------------------------------------------------------
  // iqe.txt: the first line must be "# Inter-Quake Export"; anything after "Export" is ignored.
  // Decision: a UTF-8 byte order mark, spaces or tabs before the '#', and no or several spaces
  // after it are accepted with a warning.
  size_t header() {
    std::string_view t = text_;
    // An empty file may have no storage at all: memchr must not see its null pointer.
    const char* nl = t.empty() ? nullptr : static_cast<const char*>(std::memchr(t.data(), '\n', t.size()));
    size_t line_end = nl ? size_t(nl - t.data()) : t.size();
    line_ = 1;
    begin_ = t.data();
    end_ = t.data() + line_end;
    size_t i = 0;
    if (t.substr(0, 3) == "\xEF\xBB\xBF") {
      warn(begin_, "UTF-8 byte order mark before the header ignored");
      i = 3;
    }
    size_t lead = i;
    while (i < line_end && (t[i] == ' ' || t[i] == '\t')) ++i;
    if (i > lead) warn(begin_ + lead, "white space before the header \"# Inter-Quake Export\"");
    bool ok = i < line_end && t[i] == '#';
    size_t hash = i++;
    while (i < line_end && (t[i] == ' ' || t[i] == '\t')) ++i;
    ok = ok && t.substr(i, 18) == "Inter-Quake Export";
    if (!ok) fail_at_line(file_, 1, 1, "not an IQE file: the first line must be \"# Inter-Quake Export\"");
    if (i - hash != 2 || t[hash + 1] != ' ')
      warn(begin_ + hash, "the header should be \"# Inter-Quake Export\" with one space after '#'");
    cr_only(i + 18);
    return nl ? line_end + 1 : t.size();
  }

  // Decision: lines end at LF. A file whose lines end with CR alone (classic Mac OS) would be
  // one header line, its commands silently ignored: an error at the first CR followed by text.
  void cr_only(size_t from) const {
    const char* q = begin_ + from;
    while (q < end_ && *q != '\r') ++q;
    const char* cr = q;
    while (q < end_ && is_space(*q)) ++q;
    if (q < end_)
      error(cr, "line break CR without LF (classic Mac OS): IQE lines end with LF or CR LF; convert the file");
  }

  // ---- Body ------------------------------------------------------------------------------------
  void body(size_t pos) {
    if (threads_.threads > 1 && text_.size() >= threads_.min_bytes && text_.size() > pos)
      return body_parallel(pos);
    while (pos < text_.size())
      if (!body_line(pos)) return;
  }

  // The chunks parsed on threads (iqe_chunks.h), replayed in file order.
  void body_parallel(size_t pos) {
    const char* base = text_.data();
    ChunkPipeline chunks(base + pos, base + text_.size(), threads_.threads, threads_.chunk_bytes);
    const char* read_to = base + pos;  // text before this is read (and may be dropped)
    while (const PreChunk* c = chunks.next()) {
      const uint32_t first_line = line_;
      if (!replay(*c, first_line)) return;  // `chunks` stops its threads
      line_ = first_line + c->line_count;
      if (threads_.drop_read_pages && c->end > read_to) {
        drop_pages(read_to, c->end);
        read_to = c->end;
      }
    }
  }

  // The line at `pos`; moves pos to the next one. False at the `comment` command, which ends the
  // commands.
  bool body_line(size_t& pos) {
    const char* base = text_.data();
    const char* b = base + pos;
    const char* nl = static_cast<const char*>(std::memchr(b, '\n', text_.size() - pos));
    const char* e = nl ? nl : base + text_.size();
    size_t next = nl ? size_t(nl - base) + 1 : text_.size();
    ++line_;
    begin_ = p_ = b;
    end_ = (e > b && e[-1] == '\r') ? e - 1 : e;
    pre_ = nullptr;
    if (!command()) {
      // iqe.txt: all text from the line after `comment` to the end of the file, verbatim.
      comment_ = std::string(text_.substr(next));
      return false;
    }
    pos = next;
    return true;
  }

  // ---- Chunks parsed on threads ----------------------------------------------------------------
  // The lines of a chunk whose first line is line first_line + 1: Serial lines are read as
  // body() reads them. A parsed line is appended at once (fast()) when it is plain for the
  // reader's state too: its array exists and needs no message, its face's indices are within
  // the vertices defined so far, and so on; otherwise it is read as body() reads it, with its
  // numbers parsed. False at the `comment` command.
  bool replay(const PreChunk& c, uint32_t first_line) {
    pre_chunk_ = &c;
    for (const PreLine& r : c.lines) {
      if (r.kind == LineKind::Serial) {
        size_t pos = size_t(r.begin - text_.data());
        line_ = first_line + r.line;
        pre_ = nullptr;
        if (!body_line(pos)) return false;
      } else if (!fast(c, r)) {
        pre_line(r, first_line);
      }
    }
    pre_ = nullptr;
    return true;
  }

  // A line parsed on a thread, read as body_line() reads it.
  void pre_line(const PreLine& r, uint32_t first_line) {
    const char* e = static_cast<const char*>(std::memchr(r.begin, '\n', size_t(text_.data() + text_.size() - r.begin)));
    if (!e) e = text_.data() + text_.size();
    line_ = first_line + r.line + 1;
    begin_ = p_ = r.begin;
    end_ = (e > r.begin && e[-1] == '\r') ? e - 1 : e;
    pre_ = &r;
    command();
  }

  // The line appended as body() would, when that gives no message; false (nothing changed)
  // otherwise.
  bool fast(const PreChunk& c, const PreLine& r) {
    MeshState& m = meshes_.back();
    if (m.line == 0) return false;  // cur() would set it
    switch (r.kind) {
      case LineKind::Vp:
        return fast_vertex(c, r, m, kPosition);
      case LineKind::Vt:
        return fast_vertex(c, r, m, kTexcoord);
      case LineKind::Vn:
        return fast_vertex(c, r, m, kNormal);
      case LineKind::Vc:
        return fast_vertex(c, r, m, kColor);
      case LineKind::Vx:
        return fast_tangent(c, r, m);
      case LineKind::Vb:
        return fast_blend(c, r, m);
      case LineKind::Fa:
      case LineKind::Fm:
        return fast_face(c, r, m, r.kind == LineKind::Fm);
      case LineKind::Serial:
        break;
    }
    return false;
  }

  // The array of kind k, when it exists and needs no message; with room for one more vertex.
  Array* plain_array(MeshState& m, int k) {
    Array* a = m.find(k);
    if (!a || a->stale || m.first + uint64_t(a->count) + 1 >= std::numeric_limits<uint32_t>::max()) return nullptr;
    return a;
  }

  // make_room() for an array the replay appends to at line r.
  template <class T>
  void room(std::vector<T>& d, const char*& since, size_t n, const PreLine& r) {
    if (!since) since = r.begin;
    if (d.size() + n > d.capacity()) make_room(d, n, since, r.begin, text_.data() + text_.size());
  }

  bool fast_vertex(const PreChunk& c, const PreLine& r, MeshState& m, int k) {
    Array* a = plain_array(m, k);
    if (!a) return false;
    room(a->data, a->since, a->comps, r);
    const float* v = c.floats.data() + r.first;
    if (r.count == a->comps) {
      append(a->data, v, r.count);
      ++a->count;
    } else {
      push(*a, v, r.count);
    }
    grew(m, a->count);
    return true;
  }

  bool fast_tangent(const PreChunk& c, const PreLine& r, MeshState& m) {
    Array* a = plain_array(m, kTangent);
    if (!a || r.count >= 5) return false;
    room(a->data, a->since, 4, r);
    const float* v = c.floats.data() + r.first;
    const float t[4] = {v[0], r.count > 1 ? v[1] : 0.0f, r.count > 2 ? v[2] : 0.0f,
                        r.count > 3 && v[3] < 0 ? -1.0f : 1.0f};
    push(*a, t, 4);
    grew(m, a->count);
    return true;
  }

  bool fast_blend(const PreChunk& c, const PreLine& r, MeshState& m) {
    Array* ai = plain_array(m, kBlendIndexes);
    Array* aw = plain_array(m, kBlendWeights);
    if (!ai || !aw) return false;
    const float* v = c.floats.data() + r.first;
    size_t n = 0;
    for (uint32_t p = 0; p < r.count; p += 2) n += v[p + 1] != 0;
    const size_t budget = text_.size() / 2 + (size_t(1) << 20);
    if (n > ai->comps || n > kMaxBlendPairs || blend_values_ + 2 * size_t(ai->comps) > budget) return false;
    blend_values_ += 2 * size_t(ai->comps);
    room(ai->data, ai->since, ai->comps, r);
    room(aw->data, aw->since, aw->comps, r);
    const size_t bi = ai->data.size(), bw = aw->data.size();
    ai->data.resize(bi + ai->comps, 0.0f);
    aw->data.resize(bw + aw->comps, 0.0f);
    size_t kept = 0;
    for (uint32_t p = 0; p < r.count; p += 2)
      if (v[p + 1] != 0) {
        ai->data[bi + kept] = v[p];
        aw->data[bw + kept] = v[p + 1];
        ++kept;
      }
    ++ai->count;
    ++aw->count;
    grew(m, ai->count);
    return true;
  }

  bool fast_face(const PreChunk& c, const PreLine& r, MeshState& m, bool relative) {
    if (!any_faces_ || r.count != 3) return false;
    const int64_t total = int64_t(vertex_total());
    const int64_t base = relative ? int64_t(m.first) : 0;
    const int64_t* v = c.ints.data() + r.first;
    uint32_t g[3];
    for (int q = 0; q < 3; ++q) {
      const int64_t x = v[q] < 0 ? total + v[q] : base + v[q];
      if (x < 0 || x >= total) return false;
      g[q] = uint32_t(x);
    }
    room(m.tris, m.tris_since, 3, r);
    m.tris.insert(m.tris.end(), {g[0], g[2], g[1]});
    if (m.has_polygons) m.polygons.push_back(3);
    ++m.faces;
    return true;
  }

  // floats(v, max) for a line parsed ahead (which holds at most `max` numbers).
  uint32_t pre_floats(float* v) const {
    std::copy_n(pre_chunk_->floats.data() + pre_->first, pre_->count, v);
    return pre_->count;
  }

  // One line. Returns false at the `comment` command, which ends the commands.
  bool command() {
    skip_space();
    if (p_ < end_ && *p_ == '#' && std::string_view(p_, size_t(end_ - p_)).starts_with(kFilledMarker)) filled_marker();
    if (p_ == end_ || *p_ == '#') return true;
    const char* cmd = p_;
    while (p_ < end_ && !is_space(*p_)) ++p_;
    std::string_view c(cmd, size_t(p_ - cmd));
    if (c == "comment") return false;
    dispatch(cmd, c);
    return true;
  }

  void dispatch(const char* cmd, std::string_view c) {
    if (c.size() == 2) {
      char a = c[0], b = c[1];
      if (a == 'v') {
        switch (b) {
          case 'p':
            return vertex(cmd, kPosition);
          case 't':
            return vertex(cmd, kTexcoord);
          case 'n':
            return vertex(cmd, kNormal);
          case 'x':
            return tangent(cmd);
          case 'b':
            return blend(cmd);
          case 'c':
            return vertex(cmd, kColor);
          case 's':
            return smoothing_index(cmd);
          default:
            if (b >= '0' && b <= '9') return custom(cmd, b - '0');
        }
      } else if (a == 'f') {
        if (b == 'a' || b == 'm') return face(cmd, b == 'm');
        if (b == 's') return face_smoothing();
      } else if (a == 'p') {
        if (b == 'q' || b == 'm' || b == 'a') return pose(b);
      }
    }
    if (c == "mesh") return mesh();
    if (c == "material") return material();
    if (c == "joint") return joint();
    if (c == "vertexarray") return vertexarray();
    if (c == "animation") return animation();
    if (c == "frame") return frame(cmd);
    if (c == "framerate") return framerate(cmd);
    if (c == "loop") return loop(cmd);
    if (c == "smoothgroup" || c == "smoothangle" || c == "smoothuv") return smoothing(cmd, c);
    unknown(cmd, c);
  }

  void unknown(const char* at, std::string_view c) {
    if (std::find(unknown_.begin(), unknown_.end(), c) != unknown_.end()) return;
    if (unknown_.size() < 100) unknown_.emplace_back(c);
    warn(at, "unknown command " + iqe_quoted(c) + " ignored (commands are case-sensitive)");
  }

  // kFilledMarker: the commands whose arrays the writer filled in for the current mesh.
  void filled_marker() {
    MeshState& m = meshes_.back();
    std::string_view rest(p_ + kFilledMarker.size(), size_t(end_ - p_) - kFilledMarker.size());
    while (!rest.empty()) {
      size_t b = 0;
      while (b < rest.size() && is_space(rest[b])) ++b;
      size_t e = b;
      while (e < rest.size() && !is_space(rest[e])) ++e;
      std::string_view w = rest.substr(b, e - b);
      rest.remove_prefix(e);
      if (w == "vs") m.filled_vs = true;
      for (int k = 0; k < kKindCount; ++k)
        if (!w.empty() && w == kCommandNames[size_t(k)]) m.filled[size_t(k)] = true;
    }
  }

  // ---- Vertices --------------------------------------------------------------------------------
  MeshState& cur() {
    MeshState& m = meshes_.back();
    if (m.line == 0) m.line = line_;
    return m;
  }
  uint32_t vertex_total() const { return meshes_.back().first + meshes_.back().vcount; }

  // The current mesh's array of a kind, created with the declaration in effect.
  Array& array(MeshState& m, int k) {
    if (Array* a = m.find(k)) return *a;
    if (arrays_ >= kMaxArrays) over_limit(begin_, "vertex array", kMaxArrays);
    ++arrays_;
    const Decl& d = decl_[size_t(k)];
    Array a;
    a.kind = k;
    a.format = d.declared ? d.format : default_format(k);
    a.source_size = d.declared ? d.size : default_size(k);
    a.comps = components_for(k, d);
    if (is_custom(k)) a.name = d.name;
    decl_[size_t(k)].used = true;
    seen_[size_t(k)] = true;
    m.slot[size_t(k)] = int8_t(m.arrays.size());
    m.arrays.push_back(std::move(a));
    return m.arrays.back();
  }

  void grew(MeshState& m, uint32_t count) {
    if (count > m.vcount) {
      if (m.first + uint64_t(count) >= std::numeric_limits<uint32_t>::max()) error(begin_, "too many vertices");
      m.vcount = count;
    }
  }

  // vp vt vn vc v0..v9: up to 4 values; iqe.txt: unspecified ones default (W and A to 1).
  void vertex(const char* cmd, int k) {
    float v[4];
    uint32_t n = pre_ ? pre_floats(v) : floats(v, 4);
    MeshState& m = cur();
    Array& a = array(m, k);
    check_stale(a, cmd);
    push(a, v, n);
    grew(m, a.count);
  }

  // iqe.txt: custom attributes without a vertexarray declaration are unused.
  void custom(const char* cmd, int slot) {
    if (!decl_[size_t(kCustom0 + slot)].declared) {
      if (!warned_custom_[size_t(slot)]) {
        warned_custom_[size_t(slot)] = true;
        warn(cmd, "v" + std::to_string(slot) + " ignored: custom" + std::to_string(slot) +
                      " has no vertexarray declaration");
      }
      return;
    }
    vertex(cmd, kCustom0 + slot);
  }

  // vx X Y Z W: W's sign is the handedness. Decision: W >= 0 (and -0, NaN, or no W) gives +1.
  // vx X Y Z A B C: A B C is the bitangent; the sign of dot(cross(normal, tangent), bitangent)
  // is computed when the mesh ends, as its normal may come after the vx line.
  void tangent(const char* cmd) {
    float v[6];
    uint32_t n = pre_ ? pre_floats(v) : floats(v, 6);
    for (uint32_t i = n; i < 6; ++i) v[i] = 0;
    MeshState& m = cur();
    Array& a = array(m, kTangent);
    check_stale(a, cmd);
    float t[4] = {v[0], v[1], v[2], v[3] < 0 ? -1.0f : 1.0f};
    if (n >= 5) {  // iqe.txt: more than 4 values is the bitangent form
      t[3] = 1;
      m.bitangents.push_back({a.count, {v[3], v[4], v[5]}});
    }
    push(a, t, 4);
    grew(m, a.count);
  }

  // vb: any number of (index, weight) pairs. All with a weight other than 0 are kept (up to
  // kMaxBlendPairs); the mesh's arrays hold as many pairs per vertex as its largest vb, shorter
  // ones padded with (0, 0).
  void blend(const char* cmd) {
    pairs_.clear();
    if (pre_) {
      const float* v = pre_chunk_->floats.data() + pre_->first;
      pairs_.assign(v, v + pre_->count);
    }
    if (!pre_ && !window_blend()) read_blend();
    pair_blend(cmd);
  }

  // Every number of the rest of the line by text::window_numbers, when it reads them all (fewer
  // than N) and ok(v, n) accepts them; false with p_ and tok_ untouched otherwise.
  template <class T, size_t N, class Ok>
  bool window_line(T (&v)[N], Ok&& ok) {
    if (!window_fits()) return false;
    const char* start = p_;
    const char* tok = tok_;
    bool general;
    const uint32_t n = window(v, N, general);
    if (!general && n < N && ok(v, n)) return true;
    p_ = start;
    tok_ = tok;
    return false;
  }

  // The vb values by window_line, when all are plain and the indices need no message.
  bool window_blend() {
    float v[32];
    return window_line(v, [&](const float* b, uint32_t n) {
      for (uint32_t i = 0; i < n; i += 2)
        if (!(b[i] >= 0 && b[i] == std::floor(b[i]) && b[i] <= 16777216.0f)) return false;
      pairs_.assign(b, b + n);
      return true;
    });
  }

  void read_blend() {
    float f;
    while (next_float(f)) {
      bool index = pairs_.size() % 2 == 0;
      if (index && !(f >= 0 && f == std::floor(f)))
        error(tok_, "blend index " + iqe_quoted(token_at(tok_)) + " must be a non-negative integer");
      if (index && f > 16777216.0f)
        error(tok_, "blend index " + iqe_quoted(token_at(tok_)) + " out of range: at most 16777216");
      pairs_.push_back(f);
    }
  }

  // The pairs in pairs_, checked, into the mesh's blend arrays.
  void pair_blend(const char* cmd) {
    if (pairs_.size() % 2) {
      warn(tok_, "blend index without a weight: weight 0 used");
      pairs_.push_back(0);
    }
    // Decision: a pair whose weight is 0 is no influence (importers apply pairs one by one, the
    // reference compiler drops weights near 0): it is left out, so that the mesh's pair count is
    // that of its real influences, which the writer writes.
    size_t kept = 0;
    for (size_t i = 0; i < pairs_.size(); i += 2)
      if (pairs_[i + 1] != 0) {
        pairs_[kept++] = pairs_[i];
        pairs_[kept++] = pairs_[i + 1];
      }
    pairs_.resize(kept);
    size_t n = pairs_.size() / 2;
    if (n > kMaxBlendPairs) {
      warn(begin_, "vertex has " + std::to_string(n) + " blend pairs: the " + std::to_string(kMaxBlendPairs) +
                       " largest weights are kept");
      keep_largest_pairs();
      n = kMaxBlendPairs;
    }
    MeshState& m = cur();
    array(m, kBlendIndexes);  // both first: creating one may move the other
    array(m, kBlendWeights);
    Array& ai = *m.find(kBlendIndexes);
    Array& aw = *m.find(kBlendWeights);
    check_stale(ai, cmd);
    check_stale(aw, cmd);
    count_blend_values(ai, n);
    if (n > ai.comps) {
      restride(ai, uint32_t(n));
      restride(aw, uint32_t(n));
    }
    size_t bi = ai.data.size(), bw = aw.data.size();
    ai.data.resize(bi + ai.comps, 0.0f);
    aw.data.resize(bw + aw.comps, 0.0f);
    for (size_t i = 0; i < n; ++i) {
      ai.data[bi + i] = pairs_[2 * i];
      aw.data[bw + i] = pairs_[2 * i + 1];
    }
    ++ai.count;
    ++aw.count;
    grew(m, ai.count);
  }

  // Decision: every vertex of a mesh holds as many blend pairs as its longest vb line, so one long
  // line multiplies the memory of every vertex; the blend arrays of the file may hold at most
  // half a value per byte of the file (plus 1 M), far more than real files need.
  void count_blend_values(const Array& ai, size_t pairs) {
    size_t comps = std::max<size_t>(pairs, ai.comps);
    blend_values_ += 2 * ((comps - ai.comps) * ai.count + comps);
    size_t budget = text_.size() / 2 + (size_t(1) << 20);
    if (blend_values_ > budget)
      error(begin_, fmt::format("blend arrays too large: every vertex of a mesh holds as many pairs as its longest vb "
                                "line ({} here), and the file's would need more than {} values",
                                comps, budget));
  }

  // Keeps the kMaxBlendPairs largest weights, in their file order.
  void keep_largest_pairs() {
    size_t n = pairs_.size() / 2;
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return pairs_[2 * a + 1] > pairs_[2 * b + 1]; });
    order.resize(kMaxBlendPairs);
    std::sort(order.begin(), order.end());
    std::vector<float> kept;
    for (size_t i : order) kept.insert(kept.end(), {pairs_[2 * i], pairs_[2 * i + 1]});
    pairs_ = std::move(kept);
  }

  // vs N: a per-vertex smoothing index, an array like the others.
  void smoothing_index(const char* cmd) {
    int32_t v = 0;
    if (!next_int32(v)) warn(cmd, "vs without a value: 0 used");
    MeshState& m = cur();
    m.has_vs = true;
    m.vs.push_back(v);
    grew(m, uint32_t(m.vs.size()));
  }

  // vertexarray TYPE COMPONENT SIZE NAME. iqe.txt: any other TYPE, COMPONENT or SIZE is ignored
  // (the whole line, with a warning). Decision: a declaration applies to the vertex arrays that
  // start after it (so a file may declare other formats for later meshes); an array the current
  // mesh has already started keeps its layout, with a warning if more of its data follows.
  void vertexarray() {
    std::string_view type = next_name();
    const char* type_at = tok_;
    auto kt = std::find(kTypeNames.begin(), kTypeNames.end(), type);
    if (kt == kTypeNames.end()) return warn(type_at, "unknown vertexarray type " + iqe_quoted(type) + ": line ignored");
    int k = int(kt - kTypeNames.begin());
    std::string_view comp = next_name();
    auto kf = std::find(kFormatNames.begin(), kFormatNames.end(), comp);
    if (kf == kFormatNames.end())
      return warn(tok_, "unknown vertexarray component type " + iqe_quoted(comp) + ": line ignored");
    std::string_view size_text = next_name();
    const char* size_at = tok_;
    uint32_t size = 0;
    auto r = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
    if (size_text.empty() || r.ec != std::errc() || r.ptr != size_text.data() + size_text.size() || size < 1 ||
        size > 4)
      return warn(size_at, "vertexarray size must be 1 to 4, got " + iqe_quoted(size_text) + ": line ignored");
    std::string_view name = next_name();
    Decl& d = decl_[size_t(k)];
    if (d.declared && !d.used)
      warn_line(d.line, "vertexarray " + std::string(type) + " is replaced by a later one before any data uses it");
    d.declared = true;
    d.format = ComponentType(kf - kFormatNames.begin());
    d.size = size;
    d.name = name.empty() ? std::string(type) : std::string(name);
    VertexStream probe;
    probe.attribute = Attribute::Custom;
    probe.name = d.name;
    if (is_custom(k) && is_format_stream(probe))
      warn(tok_, "custom array name " + iqe_quoted(d.name) +
                     " is reserved for another format's data (scene.h is_format_stream): writers leave it out");
    d.line = line_;
    d.used = false;
    d.after_data = seen_[size_t(k)];
    if (Array* a = meshes_.back().find(k)) a->stale = true;
  }

  void check_stale(Array& a, const char* cmd) {
    if (a.stale) [[unlikely]]
      warn_stale(a, cmd);
  }
  [[gnu::noinline]] void warn_stale(Array& a, const char* cmd) {
    a.stale = false;
    decl_[size_t(a.kind)].used = true;  // this warning covers it
    warn(cmd, "vertexarray " + std::string(kTypeNames[size_t(a.kind)]) + " came after this mesh's first " +
                  std::string(kCommandNames[size_t(a.kind)]) + ": it applies from the next mesh on");
  }

  // ---- Faces -----------------------------------------------------------------------------------
  // fa: indices count from the file's first vertex; fm: from the current mesh's first vertex.
  // Negative indices (both) count back from the last vertex defined so far, which is -1.
  // A polygon (p0 .. pn-1) in the file's clockwise winding becomes the Scene polygon
  // (p0, pn-1, .., p1), stored as the fan (p0, pi, pi+1) of that.
  void face(const char* cmd, bool relative) {
    any_faces_ = true;
    MeshState& m = cur();
    uint32_t total = vertex_total();
    if (pre_ && pre_face(m, total, relative)) return add_face(m);
    if (!pre_ && window_face(m, total, relative)) return add_face(m);
    indices_.clear();
    int64_t v;
    while (next_int(v)) {
      int64_t g;
      if (v < 0) {
        g = int64_t(total) + v;
        if (g < 0)
          error(tok_, "face index " + std::to_string(v) + " out of range: only " + std::to_string(total) +
                          " vertices are defined before this line");
      } else {
        g = (relative ? int64_t(m.first) : 0) + v;
        if (g >= int64_t(total)) {
          if (g >= int64_t(std::numeric_limits<uint32_t>::max()))
            error(tok_, "face index " + std::to_string(v) + " out of range");
          if (forward_.empty() || uint32_t(g) > forward_.back().global)
            forward_.push_back({uint32_t(g), line_, col(tok_), m.first, relative});
        }
      }
      indices_.push_back(g);
    }
    size_t n = indices_.size();
    if (n < 3) error(cmd, "a face needs at least 3 vertex indices, got " + std::to_string(n));
    add_face(m);
  }

  // A face read by text::window_numbers whose indices (at least 3) are all plain and within the
  // vertices defined so far; false (p_ untouched) otherwise, for face() to read the line itself.
  bool window_face(const MeshState& m, uint32_t total, bool relative) {
    const int64_t base = relative ? int64_t(m.first) : 0;
    int64_t v[32];
    return window_line(v, [&](const int64_t* f, uint32_t n) {
      indices_.clear();
      for (uint32_t i = 0; i < n; ++i) {
        const int64_t g = f[i] < 0 ? int64_t(total) + f[i] : base + f[i];
        if (g < 0 || g >= int64_t(total)) return false;
        indices_.push_back(g);
      }
      return n >= 3;
    });
  }

  // A face parsed ahead whose indices are all within the vertices defined so far; false (nothing
  // changed) when one is not, for face() to read the line itself and report or remember it.
  bool pre_face(const MeshState& m, uint32_t total, bool relative) {
    const int64_t* v = pre_chunk_->ints.data() + pre_->first;
    const int64_t base = relative ? int64_t(m.first) : 0;
    indices_.clear();
    for (uint32_t i = 0; i < pre_->count; ++i) {
      const int64_t g = v[i] < 0 ? int64_t(total) + v[i] : base + v[i];
      if (g < 0 || g >= int64_t(total)) return false;
      indices_.push_back(g);
    }
    return true;
  }

  // The face in indices_ (at least 3), added to the mesh.
  void add_face(MeshState& m) {
    const size_t n = indices_.size();
    for (size_t i = 1; i + 1 < n; ++i) {
      m.tris.push_back(uint32_t(indices_[0]));
      m.tris.push_back(uint32_t(indices_[n - i]));
      m.tris.push_back(uint32_t(indices_[n - i - 1]));
    }
    if (n > 3 && !m.has_polygons) {
      m.has_polygons = true;
      m.polygons.assign(m.faces, 3);
    }
    if (m.has_polygons) m.polygons.push_back(uint32_t(n));
    ++m.faces;
  }

  // fs A B C ...: one flag per face corner, for the edge leaving that corner. The Nth fs of a
  // mesh belongs to the Nth face of the mesh (like vertex arrays, they may come in any order).
  void face_smoothing() {
    used_fs_ = true;
    MeshState& m = cur();
    FsCommand f{uint32_t(m.fs_flags.size()), 0, line_};
    int64_t v;
    while (next_int(v)) {
      m.fs_flags.push_back(v != 0);
      ++f.size;
    }
    m.fs.push_back(f);
  }

  // smoothgroup N / smoothangle ANGLE / smoothuv N: state for the faces that follow, in every
  // later mesh too. Decision: smoothgroup or smoothangle without a value is ignored with a
  // warning; smoothuv without a value enables it (as the reference compiler does).
  void smoothing(const char* cmd, std::string_view c) {
    if (c == "smoothgroup") {
      int32_t g;
      if (!next_int32(g)) return warn(cmd, "smoothgroup without a value ignored");
      state_.group = g;
      used_group_ = true;
    } else if (c == "smoothangle") {
      float a;
      if (!next_float(a)) return warn(cmd, "smoothangle without a value ignored");
      state_.angle = a;
      used_angle_ = true;
    } else {
      int64_t n = 1;
      next_int(n);
      state_.uv = n > 0;  // iqe.txt: N > 0 enables, N <= 0 disables
      used_uv_ = true;
    }
    MeshState& m = meshes_.back();
    Run r = state_;
    r.first_face = m.faces;
    if (!m.runs.empty() && m.runs.back().first_face == m.faces)
      m.runs.back() = r;
    else
      m.runs.push_back(r);
  }

  // ---- Meshes ----------------------------------------------------------------------------------
  // mesh NAME: starts a mesh; its vertices are those defined from here on. A repeated name is a
  // separate mesh (Decision: meshes are never merged).
  void mesh() {
    std::string_view name = next_name();
    warn_trailing();
    // The implicit mesh counts when it has vertices or faces (it is kept then).
    const MeshState& implicit = meshes_.front();
    size_t count = meshes_.size() - (implicit.vcount == 0 && implicit.faces == 0 ? 1 : 0);
    if (count >= kMaxMeshes) over_limit(begin_, "mesh", kMaxMeshes);
    end_mesh(meshes_.back());
    MeshState m;
    m.name = std::string(name);
    m.line = line_;
    m.first = vertex_total();
    m.start_state = state_;
    meshes_.push_back(std::move(m));
  }

  void material() {
    std::string_view name = next_name();
    warn_trailing();
    MeshState& m = meshes_.back();
    m.has_material = true;
    m.material = std::string(name);
  }

  // When a mesh ends: iqe.txt requires every vertex array to be absent or as long as the others;
  // 6-value vx lines get their handedness.
  void end_mesh(MeshState& m) {
    bool even = true;
    for (const Array& a : m.arrays) even = even && a.count == m.vcount;
    if (m.has_vs) even = even && m.vs.size() == m.vcount;
    if (!even) {
      std::string list;
      for (int k = 0; k < kKindCount; ++k) {
        const Array* a = m.find(k);
        if (!a || k == kBlendWeights) continue;
        list += (list.empty() ? "" : ", ") + std::string(kCommandNames[size_t(k)]) + " " + std::to_string(a->count);
      }
      if (m.has_vs) list += ", vs " + std::to_string(m.vs.size());
      fail_at_line(
          file_, m.line ? m.line : line_, 1,
          mesh_label(m) + ": vertex arrays have different lengths (" + list + "); each must have one entry per vertex");
    }
    Array* t = m.find(kTangent);
    if (t && !m.bitangents.empty()) {
      const Array* n = m.find(kNormal);
      for (const Bitangent& b : m.bitangents) {
        float* tv = &t->data[size_t(b.vertex) * 4];
        Vec3 normal = n ? Vec3{n->data[size_t(b.vertex) * n->comps], n->data[size_t(b.vertex) * n->comps + 1],
                               n->data[size_t(b.vertex) * n->comps + 2]}
                        : Vec3{0, 0, 0};
        // Decision: no normal, or a zero / NaN product, gives +1.
        tv[3] = n && dot(cross(normal, {tv[0], tv[1], tv[2]}), b.b) < 0 ? -1.0f : 1.0f;
      }
    }
    m.bitangents = {};
    m.arrays.shrink_to_fit();
  }

  // ---- Skeleton and animations -----------------------------------------------------------------
  // joint NAME PARENT: PARENT indexes earlier joints; < 0 or absent is a root.
  void joint() {
    if (joints_.size() >= kMaxJoints) over_limit(begin_, "joint", kMaxJoints);
    Joint j;
    j.name = std::string(next_name());
    // Decision: a repeated joint name is kept, with a warning: animations of other files attach
    // to a skeleton by joint name, and they find the first.
    if (auto [it, added] = joint_ids_.try_emplace(j.name, joints_.size()); !added)
      warn(tok_, "joint " + iqe_quoted(j.name) + " has the name of joint " + std::to_string(it->second) +
                     ": animations attached by name use the first");
    int64_t parent = -1;
    if (next_int(parent) && parent >= int64_t(joints_.size()))
      error(tok_, "joint " + iqe_quoted(j.name) + ": parent " + std::to_string(parent) +
                      " must be an earlier joint (this is joint " + std::to_string(joints_.size()) + ")");
    j.parent = parent < 0 ? -1 : int32_t(parent);
    joints_.push_back(std::move(j));
    joint_lines_.push_back(line_);
  }

  // pq / pm / pa: before any animation they are base poses (Nth pose <-> Nth joint), after one
  // they belong to its current frame. Values are read in file space; converted at the end.
  void pose(char kind) {
    float v[15];
    uint32_t n = floats(v, kind == 'm' ? 15 : 10);
    auto at = [&](uint32_t i, float def) { return i < n ? v[i] : def; };
    Transform t;
    t.translation = {at(0, 0), at(1, 0), at(2, 0)};
    if (kind == 'q') {
      float x = at(3, 0), y = at(4, 0), z = at(5, 0);
      t.rotation = {x, y, z, n > 6 ? v[6] : restore_w(x, y, z)};
      t.scale = {at(7, 1), at(8, 1), at(9, 1)};
    } else if (kind == 'm') {
      // Missing matrix values default to the identity's.
      for (uint32_t i = n; i < 12; ++i) v[i] = (i == 3 || i == 7 || i == 11) ? 1.0f : 0.0f;
      t.scale = {at(12, 1), at(13, 1), at(14, 1)};
      matrix_pose(v, t);
    } else {
      t.rotation = euler_to_quat(at(3, 0), at(4, 0), at(5, 0));
      t.scale = {at(6, 1), at(7, 1), at(8, 1)};
    }
    if (anims_.empty()) {
      // Only the first kMaxJoints can belong to a joint; the others are counted for the warning.
      if (base_poses_.size() <= kMaxJoints) {
        base_poses_.push_back(t);
        base_pose_lines_.push_back(line_);
      }
      ++base_pose_count_;
      return;
    }
    AnimState& a = anims_.back();
    if (a.frames.empty()) a.frames.push_back({line_, 0});  // poses before `frame`: first frame
    if (a.pose_count - a.frames.back().first_pose >= kMaxJoints)
      error(begin_, "animation " + iqe_quoted(a.name) + ": a frame with more than " + std::to_string(kMaxJoints) +
                        " poses (one per joint): more joints than meshport reads from one file");
    a.poses.push_back(t);
    ++a.pose_count;
  }

  void animation() {
    if (anims_.size() >= kMaxAnimations) over_limit(begin_, "animation", kMaxAnimations);
    AnimState a;
    a.name = std::string(next_name());
    warn_trailing();
    anims_.push_back(std::move(a));
  }

  void frame(const char* cmd) {
    if (anims_.empty()) return warn(cmd, "frame before any animation command ignored");
    AnimState& a = anims_.back();
    a.frames.push_back({line_, a.pose_count});
  }

  void framerate(const char* cmd) {
    if (anims_.empty()) return warn(cmd, "framerate before any animation command ignored");
    float f = 0;
    if (!next_float(f)) return warn(cmd, "framerate without a value ignored");
    if (!(std::isfinite(f) && f >= 0)) {
      warn(tok_, "framerate must be a finite number >= 0: 0 used");
      f = 0;
    }
    anims_.back().framerate = f;
  }

  void loop(const char* cmd) {
    if (anims_.empty()) return warn(cmd, "loop before any animation command ignored");
    anims_.back().loop = true;
  }

  // ---- End of file -----------------------------------------------------------------------------
  Scene finish() {
    end_mesh(meshes_.back());
    for (size_t k = 0; k < decl_.size(); ++k)
      if (decl_[k].declared && !decl_[k].used && decl_[k].after_data)
        warn_line(decl_[k].line, "vertexarray " + std::string(kTypeNames[k]) +
                                     " has no vertex data after it (a declaration applies to the data that follows)");
    uint32_t total = vertex_total();
    for (const ForwardRef& f : forward_)
      if (f.global >= total)
        fail_at_line(file_, f.line, f.col,
                     "face index " + std::to_string(f.global - (f.relative ? f.mesh_first : 0)) + " out of range: " +
                         (f.relative ? "fm counts from this mesh's first vertex, and there are " +
                                           std::to_string(total - f.mesh_first)
                                     : "the file has " + std::to_string(total) + " vertices"));
    forward_ = {};
    Scene scene;
    scene.animations = build_animations();  // before build_joints, which moves joints_ out
    scene.joints = build_joints();
    if (!any_faces_) implicit_triangles();
    build_meshes(scene);
    unbind_static(scene);
    scene.comment = std::move(comment_);
    to_scene_axes(scene, threads_.threads);
    return scene;
  }

  // Drops kStaticJoint: its frame channels go, and influences on it become no influence (the
  // vertex's other pairs move forward; a mesh keeps as many pairs as its widest vertex needs).
  static void unbind_static(Scene& s) {
    if (!has_static_joint(s)) return;
    const auto sj = float(s.joints.size() - 1);
    s.joints.pop_back();
    for (Animation& a : s.animations) {
      std::vector<Transform> poses;
      poses.reserve(a.frame_count() * (a.channels - 1));
      for (size_t f = 0; f < a.frame_count(); ++f)
        poses.insert(poses.end(), a.poses.begin() + std::ptrdiff_t(f * a.channels),
                     a.poses.begin() + std::ptrdiff_t(f * a.channels + a.channels - 1));
      a.poses = std::move(poses);
      --a.channels;
    }
    for (Mesh& m : s.meshes) {
      VertexStream* bi = m.find(Attribute::BlendIndices);
      VertexStream* bw = m.find(Attribute::BlendWeights);
      if (!bi || !bw || bi->components != bw->components) continue;
      const uint32_t k = bi->components;
      uint32_t widest = 0;
      for (size_t v = 0; v < m.vertex_count(); ++v) {
        float* idx = &bi->data[v * k];
        float* wt = &bw->data[v * k];
        uint32_t n = 0;
        for (uint32_t c = 0; c < k; ++c) {
          if (wt[c] == 0 || idx[c] == sj) continue;
          idx[n] = idx[c];
          wt[n++] = wt[c];
        }
        for (uint32_t c = n; c < k; ++c) idx[c] = wt[c] = 0;
        widest = std::max(widest, n);
      }
      widest = std::max(widest, 1u);
      if (widest < k) {
        for (VertexStream* st : {bi, bw}) {
          std::vector<float> d(m.vertex_count() * widest);
          for (size_t v = 0; v < m.vertex_count(); ++v)
            std::copy_n(&st->data[v * k], widest, &d[v * widest]);
          st->data = std::move(d);
          st->components = widest;
        }
      }
    }
  }

  std::vector<Joint> build_joints() {
    // At the first joint without a base pose, or the first base pose without a joint.
    bool missing = base_pose_count_ < joints_.size();
    if (base_pose_count_ != joints_.size())
      warn_line(missing ? joint_lines_[base_pose_count_] : base_pose_lines_[joints_.size()],
                std::to_string(joints_.size()) + " joints but " + std::to_string(base_pose_count_) +
                    " base poses: " + (missing ? "missing ones are the identity" : "the extra poses are ignored"));
    for (size_t i = 0; i < joints_.size() && i < base_poses_.size(); ++i) joints_[i].rest = base_poses_[i];
    return std::move(joints_);
  }

  // iqe.txt: each frame "should" have one pose per joint (animation-only files: as many as the
  // first frame). Decision: a frame with fewer poses gives the remaining joints their base pose
  // (one warning per animation); a frame with more poses than that is an error. A frame with no
  // poses at all (e.g. two `frame` lines in a row) is dropped with a warning, as the reference
  // compiler ignores it. An unnamed animation is named "animationN", N its 1-based position in
  // the file, or the next number not used by any animation's name.
  std::vector<Animation> build_animations() {
    std::vector<Animation> out;
    for (AnimState& a : anims_) {
      out.push_back(build_animation(a));
      a = AnimState();  // free its frames now
    }
    std::set<std::string> used;
    for (const Animation& a : out) used.insert(a.name);
    size_t next = 1;
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].name.empty()) continue;
      next = std::max(next, i + 1);
      while (used.count("animation" + std::to_string(next))) ++next;
      out[i].name = "animation" + std::to_string(next++);
      out[i].name_made_up = true;
      used.insert(out[i].name);
    }
    return out;
  }

  size_t frame_size(const AnimState& a, size_t i) const {
    size_t end = i + 1 < a.frames.size() ? a.frames[i + 1].first_pose : a.pose_count;
    return end - a.frames[i].first_pose;
  }

  Animation build_animation(AnimState& a) {
    Animation anim;
    anim.name = a.name;
    anim.framerate = a.framerate;
    anim.loop = a.loop;
    size_t frames = 0, first = 0;  // frames with poses; poses of the first
    for (size_t i = 0; i < a.frames.size(); ++i)
      if (size_t n = frame_size(a, i); n > 0 && frames++ == 0) first = n;
    for (size_t i = 0; i < a.frames.size() && frames < a.frames.size(); ++i)
      if (frame_size(a, i) == 0) {  // at the first
        warn_line(a.frames[i].line, "animation " + iqe_quoted(a.name) + ": frames without poses ignored");
        break;
      }
    bool joints = !joints_.empty();
    anim.channels = uint32_t(joints ? joints_.size() : first);
    if (uint64_t(frames) * anim.channels <= a.pose_count + (kMaxFilledPoses - filled_))
      anim.poses.reserve(frames * anim.channels);
    size_t f = 0;  // frame number among those with poses
    for (size_t i = 0; i < a.frames.size(); ++i) {
      size_t count = frame_size(a, i);
      if (count == 0) continue;
      check_frame(a, anim.channels, a.frames[i].line, f++, count);
      // The frames take the poses in order: each is moved out as it is copied.
      for (size_t j = 0; j < anim.channels; ++j) {
        if (j < count) {
          anim.poses.push_back(a.poses.front());
          a.poses.pop_front();
        } else {
          anim.poses.push_back(j < base_poses_.size() ? base_poses_[j] : Transform{});
        }
      }
    }
    return anim;
  }

  // A frame's pose count, as build_animations describes; the poses filled in with base poses
  // number at most kMaxFilledPoses in the file, so that a small file cannot make huge animations.
  void check_frame(const AnimState& a, uint32_t channels, uint32_t line, size_t f, size_t count) {
    bool joints = !joints_.empty();
    if (count > channels || (count < channels && !joints))
      fail_at_line(file_, line, 1,
                   "animation " + iqe_quoted(a.name) + ": frame " + std::to_string(f) + " has " + std::to_string(count) +
                       " poses, expected " + std::to_string(channels) +
                       (joints ? " (one per joint)" : " (as many as the first frame)"));
    if (count == channels) return;
    if (warned_fill_ != &a) {
      warned_fill_ = &a;
      warn_line(line, "animation " + iqe_quoted(a.name) + ": frame " + std::to_string(f) + " has " +
                          std::to_string(count) + " poses for " + std::to_string(channels) +
                          " joints: the others keep their base pose");
    }
    filled_ += channels - count;
    if (filled_ > kMaxFilledPoses)
      fail_at_line(file_, line, 1,
                   "animation " + iqe_quoted(a.name) + ": frame " + std::to_string(f) + " has " + std::to_string(count) +
                       " poses for " + std::to_string(channels) + " joints: more than " +
                       std::to_string(kMaxFilledPoses) +
                       " poses of the file's animations would be base poses filled in (give every frame one pose "
                       "per joint)");
  }

  // iqe.txt: with no face command anywhere in the file, every 3 vertices of a mesh are a triangle.
  void implicit_triangles() {
    for (MeshState& m : meshes_) {
      uint32_t n = m.vcount / 3;
      m.tris.reserve(size_t(n) * 3);
      for (uint32_t t = 0; t < n; ++t) {
        uint32_t v = m.first + 3 * t;
        m.tris.insert(m.tris.end(), {v, v + 2, v + 1});
      }
      m.faces = n;
      if (m.vcount % 3)
        warn_line(m.line, mesh_label(m) + ": the last " + std::to_string(m.vcount % 3) +
                              " vertices do not make a triangle (the file has no faces, so every 3 "
                              "vertices are one)");
    }
  }

  // The mesh whose own vertices contain file-global vertex g (g < total).
  size_t mesh_of(uint32_t g) const {
    auto it =
        std::upper_bound(meshes_.begin(), meshes_.end(), g, [](uint32_t v, const MeshState& m) { return v < m.first; });
    return size_t(it - meshes_.begin()) - 1;
  }

  // Turns file-global face indices into mesh-local ones. Vertices of other meshes are copied in
  // after the mesh's own, in file order.
  void resolve_faces(MeshState& m) {
    // Usually every face uses the mesh's own vertices: one pass (which compilers vectorise) makes
    // the indices local and finds out; only otherwise are they made global again for the rest.
    const uint32_t first = m.first;  // a local: the stores below cannot change it
    uint32_t largest = 0;
    for (uint32_t& g : m.tris) {
      g -= first;
      largest = g > largest ? g : largest;
    }
    if (m.tris.empty() || largest < m.vcount) return;
    for (uint32_t& g : m.tris) g += first;  // unsigned: exactly the global index again
    std::vector<uint32_t> order;
    for (uint32_t g : m.tris)
      if (g - m.first >= m.vcount) order.push_back(g);
    std::sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    for (uint32_t& g : m.tris)
      g = g - m.first < m.vcount ? g - m.first
                                 : m.vcount + uint32_t(std::lower_bound(order.begin(), order.end(), g) - order.begin());
    if (!order.empty()) copy_vertices(m, order);
  }

  // Decision: a face of one mesh may use another mesh's vertices (fa is file-global); they are
  // appended to the mesh, with the arrays the mesh has (a mesh with no vertices of its own takes
  // the arrays of the meshes it borrows from). Values the source lacks get the defaults.
  void copy_vertices(MeshState& m, const std::vector<uint32_t>& order) {
    if (m.vcount == 0) adopt_arrays(m, order);
    bool differ = false;
    for (uint32_t g : order) {
      MeshState& src = meshes_[mesh_of(g)];
      for (int k = 0; k < kKindCount; ++k) {
        Array* sa = src.find(k);
        Array* ta = m.find(k);
        if (bool(sa) != bool(ta)) differ = true;
        if (sa && ta && is_blend(k) && sa->comps > ta->comps) restride(*ta, sa->comps);
      }
      if (src.has_vs != m.has_vs) differ = true;
    }
    if (differ)
      warn_line(m.line, mesh_label(m) +
                            ": its faces use vertices of other meshes that have other vertex arrays; "
                            "missing values are defaulted");
    float v[kMaxBlendPairs];
    for (uint32_t g : order) {
      MeshState& src = meshes_[mesh_of(g)];
      uint32_t local = g - src.first;
      for (Array& ta : m.arrays) {
        const Array* sa = src.find(ta.kind);
        uint32_t n = sa ? std::min(sa->comps, ta.comps) : 0;
        for (uint32_t c = 0; c < n; ++c) v[c] = sa->data[size_t(local) * sa->comps + c];
        push(ta, v, n);
      }
      if (m.has_vs) m.vs.push_back(src.has_vs ? src.vs[local] : -1);
    }
  }

  // Every array any source mesh has, with the layout of the first source that has it.
  void adopt_arrays(MeshState& m, const std::vector<uint32_t>& order) {
    for (uint32_t g : order) {
      MeshState& src = meshes_[mesh_of(g)];
      for (const Array& sa : src.arrays) {
        if (m.find(sa.kind)) continue;
        if (arrays_++ >= kMaxArrays)
          fail_at_line(file_, m.line, 1,
                       fmt::format("{}: its faces use vertices of other meshes, whose vertex arrays would make more "
                                   "than meshport reads from one file ({})",
                                   mesh_label(m), kMaxArrays));
        Array a;
        a.kind = sa.kind;
        a.format = sa.format;
        a.source_size = sa.source_size;
        a.comps = sa.comps;
        a.name = sa.name;
        m.slot[size_t(a.kind)] = int8_t(m.arrays.size());
        m.arrays.push_back(std::move(a));
      }
      m.has_vs = m.has_vs || src.has_vs;
    }
  }

  // Smoothing vectors: empty when the file never used the command, else one entry per face.
  void build_smoothing(MeshState& m, Mesh& out) {
    SmoothingRules& s = out.smoothing;
    if (used_group_ || used_angle_ || used_uv_) {
      size_t r = 0;
      Run state = m.start_state;
      if (used_group_) s.face_group.resize(m.faces);
      if (used_angle_) s.face_angle.resize(m.faces);
      if (used_uv_) s.face_uv.resize(m.faces);
      for (uint32_t f = 0; f < m.faces; ++f) {
        while (r < m.runs.size() && m.runs[r].first_face <= f) state = m.runs[r++];
        if (used_group_) s.face_group[f] = state.group;
        if (used_angle_) s.face_angle[f] = state.angle;
        if (used_uv_) s.face_uv[f] = state.uv;
      }
    }
    if (used_fs_) build_corner_flags(m, s.corner_edge);
    if (m.has_vs && !m.filled_vs) s.vertex_key = std::move(m.vs);
  }

  // fs flags f0..fn-1 are given for the file polygon (p0..pn-1), fi for the edge pi -> pi+1.
  // The Scene polygon is (p0, pn-1, .., p1), whose corner k leaves along the reversed file edge
  // p(n-1-k) -> p(n-k), so its flag is f(n-1-k): the flags reversed.
  void build_corner_flags(const MeshState& m, std::vector<uint8_t>& out) {
    for (uint32_t f = 0; f < m.faces; ++f) {
      uint32_t n = m.has_polygons ? m.polygons[f] : 3;
      const FsCommand* c = f < m.fs.size() ? &m.fs[f] : nullptr;
      if (c && c->size != n)
        warn_line(c->line, "fs has " + std::to_string(c->size) + " flags for a face of " + std::to_string(n) +
                               " corners: missing flags are 1, extra ones ignored");
      for (uint32_t k = 0; k < n; ++k) {
        uint32_t i = n - 1 - k;
        out.push_back(c && i < c->size ? m.fs_flags[c->start + i] : 1);
      }
    }
    if (m.fs.size() != m.faces)
      warn_line(m.line, mesh_label(m) + " has " + std::to_string(m.fs.size()) + " fs commands for " +
                            std::to_string(m.faces) + " faces: missing flags are 1, extra commands ignored");
  }

  // Decision: the implicit mesh is dropped when it has no vertices and no faces; a named mesh is
  // always kept, even empty.
  void build_meshes(Scene& scene) {
    std::vector<bool> keep(meshes_.size(), true);
    keep[0] = meshes_[0].vcount > 0 || meshes_[0].faces > 0;
    for (size_t i = 0; i < meshes_.size(); ++i)
      if (keep[i]) resolve_faces(meshes_[i]);
    for (size_t i = 0; i < meshes_.size(); ++i) {
      if (!keep[i]) continue;
      MeshState& m = meshes_[i];
      Mesh out;
      if (m.has_material) out.material = material_index(scene, m.material);
      for (int k = 0; k < kKindCount; ++k) {
        Array* a = m.find(k);
        if (!a || m.filled[size_t(is_blend(k) ? kBlendIndexes : k)]) continue;
        VertexStream s;
        s.attribute = attribute_of(k);
        s.name = std::move(a->name);
        s.custom_slot = is_custom(k) ? k - kCustom0 : -1;
        s.format = a->format;
        s.source_size = a->source_size;
        s.components = a->comps;
        s.data = std::move(a->data);
        // Decision: a mesh whose vb lines are all empty still gets one (0, 0) pair per vertex.
        if (is_blend(k) && s.components == 0) {
          s.components = 1;
          s.data.assign(a->count, 0.0f);
        }
        out.streams.push_back(std::move(s));
      }
      build_smoothing(m, out);
      out.name = std::move(m.name);
      out.triangles = std::move(m.tris);
      out.polygon_sizes = std::move(m.polygons);
      scene.meshes.push_back(std::move(out));
      m = MeshState();  // free what is left of it now
    }
    meshes_.clear();
  }

  // Materials are found or added by name; a name ending in an image extension is also the
  // base colour texture.
  int32_t material_index(Scene& scene, const std::string& name) {
    auto [it, added] = material_ids_.try_emplace(name, int32_t(scene.materials.size()));
    if (!added) return it->second;
    Material mat;
    mat.name = name;
    if (is_image_name(name)) mat.base_color_texture = name;
    scene.materials.push_back(std::move(mat));
    return int32_t(scene.materials.size() - 1);
  }

  // Positions, normals and tangents turned to Scene axes; with threads and many vertices, a
  // thread turns the second half of each stream while this one turns the first halves.
  static void to_scene_axes(Scene& scene, unsigned threads) {
    std::vector<VertexStream*> spatial;
    size_t values = 0;
    for (Mesh& m : scene.meshes)
      for (VertexStream& s : m.streams)
        if (s.attribute == Attribute::Position || s.attribute == Attribute::Normal || s.attribute == Attribute::Tangent) {
          spatial.push_back(&s);
          values += s.data.size();
        }
    auto turn = [&](bool second) {
      for (VertexStream* s : spatial) {
        const size_t n = s->components ? s->data.size() / s->components : 0, half = n / 2;
        axes::stream_zup_to_scene(*s, second ? half : 0, second ? n : half);
      }
    };
    std::thread helper;
    if (threads > 1 && values >= (size_t(1) << 19)) {  // IqeParallel.ReadOptionsThreadsGiveTheSameScene: 694k
      try {
        helper = std::thread(turn, true);  // turns nothing that can throw
      } catch (const std::system_error&) {
      }
    }
    turn(false);
    if (helper.joinable()) helper.join();
    else turn(true);
    for (Joint& j : scene.joints) j.rest = axes::zup_to_scene(j.rest);
    for (Animation& a : scene.animations)
      for (Transform& t : a.poses) t = axes::zup_to_scene(t);
  }
};

// ---------------------------------------------------------------------------------------------
// Writing.

class Writer {
 public:
  explicit Writer(Diagnostics& diags) : diags_(diags) {}

  std::string write(const Scene& scene) {
    out_.reserve(estimate(scene));
    out_ = "# Inter-Quake Export\n";
    if (!value_or_empty(scene.iqm).extensions.empty() || !value_or_empty(scene.iqm).pose_parents.empty())
      diags_.add(warning("", "IQM extensions and pose parents cannot be written to IQE: left out"));
    plan_file(scene);
    size_t renamed = 0;
    material_keys_ = ops::material_keys(scene, &renamed);
    if (renamed)
      diags_.add(warning("", fmt::format("{} materials have the name of an earlier one: written with a suffix _2, _3, "
                                         "... (IQE keys materials by name)",
                                         renamed)));
    joints(scene);
    for (size_t i = 0; i < scene.meshes.size(); ++i) mesh(scene, i);
    if (aliased_)
      diags_.add(warning("", fmt::format("{} blend influences on joint {}, which the skeleton does not have, are left "
                                         "out: that index is the static joint unskinned vertices are bound to",
                                         aliased_, *static_joint_)));
    for (const Animation& a : scene.animations) animation(scene, a);
    if (!scene.comment.empty()) {
      out_ += "comment\n";
      out_ += scene.comment;
    }
    return std::move(out_);
  }

 private:
  Diagnostics& diags_;
  std::string out_;
  std::array<Decl, kKindCount> decl_;  // what the file written so far declares
  Run smooth_;                         // smoothing state of the file written so far
  bool wrote_group_ = false, wrote_angle_ = false, wrote_uv_ = false;
  std::vector<std::string> material_keys_;  // per Scene material: its distinct string (ops/materials/material_names.h)

  // The whole file's vertex layout (plan_file): every vertex carries the same commands.
  using Picks = std::array<const VertexStream*, kKindCount>;
  std::vector<Picks> picks_;                         // each mesh's streams
  std::array<const VertexStream*, kKindCount> template_{};  // the first stream of each kind
  bool skinned_ = false;                             // some mesh has blend arrays: every vertex gets vb
  bool any_vs_ = false;                              // some mesh has vs: every vertex gets vs
  size_t aliased_ = 0;  // influences left out because their index is static_joint_
  std::optional<uint32_t> static_joint_;             // kStaticJoint's index, when written
  double max_index_ = 0;                             // the largest blend index of a joint written
  uint64_t first_vertex_ = 0;                        // file-global number of the mesh's first vertex

  // Roughly the output size (about 11 bytes per float, 8 per face index), so that the text is
  // not copied while it grows; pages never written are not touched.
  static size_t estimate(const Scene& scene) {
    size_t n = 64 + scene.comment.size() + scene.joints.size() * 128;
    for (const Mesh& m : scene.meshes) {
      for (const VertexStream& s : m.streams) n += s.data.size() * 12 + s.vertex_count() * 4;
      n += m.triangles.size() * 8 + m.smoothing.corner_edge.size() * 2 + m.smoothing.vertex_key.size() * 8 + 64;
    }
    for (const Animation& a : scene.animations) n += a.poses.size() * 96 + 64;
    return n;
  }

  void num(float f) {
    out_ += ' ';
    text::append_float(out_, f);
  }
  void num(int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_ += ' ';
    out_.append(buf, size_t(r.ptr - buf));
  }
  // Names are always quoted. IQE has no escapes, so a quote cannot be written (it becomes ')
  // and neither can a line break (it becomes a space). Backslashes that end the name are
  // doubled, so that tokenisers with escapes (shlex) see the closing quote; see next_name().
  void name(std::string_view s) {
    out_ += " \"";
    bool changed = false;
    for (char c : s) {
      if (c == '"' || c == '\n' || c == '\r') {
        changed = true;
        c = c == '"' ? '\'' : ' ';
      }
      out_ += c;
    }
    size_t run = 0;
    while (run < s.size() && s[s.size() - 1 - run] == '\\') ++run;
    out_.append(run, '\\');
    out_ += '"';
    if (changed)
      diags_.add(warning("", "name " + iqe_quoted(s) +
                                 " has a quote or line break, which IQE cannot hold: "
                                 "written with ' or a space instead"));
  }

  void pose(const Transform& scene_pose) {
    Transform t = axes::scene_to_zup(scene_pose);
    out_ += "pq";
    for (float v : t.translation) num(v);
    for (float v : t.rotation) num(v);
    if (t.scale != Transform().scale)
      for (float v : t.scale) num(v);
    out_ += '\n';
  }

  void joints(const Scene& scene) {
    for (const Joint& j : scene.joints) {
      out_ += "joint";
      name(j.name);
      num(int64_t(j.parent));
      out_ += '\n';
      pose(j.rest);
    }
    if (static_joint_) {
      out_ += "joint";
      name(kStaticJoint);
      num(int64_t(-1));
      out_ += '\n';
      out_ += kIdentityPose;
    }
  }

  // ---- File layout -----------------------------------------------------------------------------
  static bool valid_keys(const Mesh& m) { return m.smoothing.vertex_key.size() == m.vertex_count(); }

  static bool unweighted(const VertexStream* wt, size_t v) {
    if (!wt) return true;
    for (uint32_t c = 0; c < wt->components; ++c)
      if (wt->get(v, c) != 0) return false;
    return true;
  }

  // The vertices a mesh gets in the file: none when IQE holds none of its streams (a mesh whose
  // vertices carry only other formats' data, scene.h is_format_stream), else all of them.
  static size_t written_count(const Mesh& m, const Picks& by) {
    for (const VertexStream* s : by)
      if (s) return m.vertex_count();
    return 0;
  }

  void plan_file(const Scene& scene) {
    bool rigid = false;  // some vertex of a skinned file has no influence
    for (const Mesh& m : scene.meshes) {
      Picks by = pick_streams(m);
      size_t count = written_count(m, by);
      if (count == 0 && m.vertex_count() > 0)
        diags_.add(warning("", fmt::format("mesh {}: its {} vertices hold only data IQE does not (format streams, "
                                           "scene.h): written without vertices or faces",
                                           iqe_quoted(m.name), m.vertex_count())));
      for (int k = 0; k < kKindCount; ++k)
        if (by[size_t(k)] && by[size_t(k)]->vertex_count() != count)
          fail("", "mesh " + iqe_quoted(m.name) + ": its vertex streams have different lengths");
      for (int k = 0; k < kKindCount; ++k)
        if (by[size_t(k)] && !template_[size_t(k)]) template_[size_t(k)] = by[size_t(k)];
      const VertexStream* idx = by[kBlendIndexes];
      const VertexStream* wt = by[kBlendWeights];
      if (idx || wt) {
        skinned_ = true;
        for (size_t v = 0; v < count && !rigid; ++v) rigid = unweighted(wt, v);
        if (idx)
          for (size_t v = 0; v < count; ++v)
            for (uint32_t c = 0; c < idx->components; ++c)
              if ((!wt || wt->get(v, c) != 0) && idx->get(v, c) < float(scene.joints.size()))
                max_index_ = std::max(max_index_, double(idx->get(v, c)));
      } else {
        rigid = rigid || count > 0;
      }
      any_vs_ = any_vs_ || (count > 0 && !m.smoothing.vertex_key.empty() && valid_keys(m));
      picks_.push_back(by);
    }
    // Unskinned meshes and unweighted vertices are bound to kStaticJoint (without a skeleton,
    // their vb lines stay empty).
    // A Scene whose own last joint looks like it (a root of that name, still in every frame)
    // gets one too, after it, so that reading the file drops the writer's joint, not the Scene's.
    if (!scene.joints.empty() && ((skinned_ && rigid) || has_static_joint(scene))) {
      static_joint_ = uint32_t(scene.joints.size());
      max_index_ = std::max(max_index_, double(*static_joint_));
    }
  }

  // Values for a kind a mesh lacks while others have it (documented in docs/iqe-iqm.md): texture
  // coordinates, positions and custom values 0, colours white, tangents +X right-handed, normals
  // the area-weighted average of the mesh's face normals at each vertex (+Y, up, where none).
  static VertexStream filler(int k, const VertexStream& like, const Mesh& m) {
    VertexStream s;
    s.attribute = like.attribute;
    s.name = like.name;
    s.custom_slot = like.custom_slot;
    s.format = like.format;
    s.source_size = like.source_size;
    s.components = like.components;
    const size_t n = m.vertex_count();
    s.data.assign(n * s.components, k == kColor ? 1.0f : 0.0f);
    if (k == kTangent)
      for (size_t v = 0; v < n; ++v) {
        s.data[v * s.components] = 1;
        if (s.components >= 4) s.data[v * s.components + 3] = 1;
      }
    if (k == kNormal) face_normals(m, s);
    return s;
  }

  static void face_normals(const Mesh& m, VertexStream& s) {
    const VertexStream* p = m.find(Attribute::Position);
    const size_t n = m.vertex_count();
    std::vector<double> acc(n * 3, 0.0);
    if (p && p->components >= 3)
      for (size_t t = 0; t + 2 < m.triangles.size(); t += 3) {
        const uint32_t a = m.triangles[t], b = m.triangles[t + 1], c = m.triangles[t + 2];
        double e1[3], e2[3];
        for (uint32_t i = 0; i < 3; ++i) {
          e1[i] = double(p->get(b, i)) - p->get(a, i);
          e2[i] = double(p->get(c, i)) - p->get(a, i);
        }
        const double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                              e1[0] * e2[1] - e1[1] * e2[0]};
        for (uint32_t v : {a, b, c})
          for (uint32_t i = 0; i < 3; ++i) acc[size_t(v) * 3 + i] += cr[i];
      }
    for (size_t v = 0; v < n; ++v) {
      const double* a = &acc[v * 3];
      const double len = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      for (uint32_t i = 0; i < 3 && i < s.components; ++i)
        s.data[v * s.components + i] = len > 0 && std::isfinite(len) ? float(a[i] / len) : (i == 1 ? 1.0f : 0.0f);
    }
  }

  // ---- Vertex arrays ---------------------------------------------------------------------------
  // The vertexarray SIZE that makes the reader store the stream's component count again.
  static uint32_t declared_size(int k, const VertexStream& s) {
    uint32_t src = s.source_size >= 1 && s.source_size <= 4 ? s.source_size : default_size(k);
    switch (k) {
      case kPosition:
      case kNormal:
        return s.components >= 4 ? 4 : (src == 4 ? 3 : src);
      case kTexcoord:
      case kColor:
        return std::clamp<uint32_t>(s.components, 1, 4);
      case kTangent:
      case kBlendIndexes:
      case kBlendWeights:
        return src;
      default:
        return std::clamp<uint32_t>(s.components, 1, 4);
    }
  }

  static bool is_integer(ComponentType t) { return t <= ComponentType::UInt; }
  static double largest(ComponentType t) {
    constexpr double top[] = {127, 255, 32767, 65535, 2147483647.0, 4294967295.0};
    return top[size_t(t)];
  }

  // Decision: blend arrays are declared with integer formats only (engines loading IQM refuse
  // blend arrays that are not ubyte or other integers, and the reference compiler writes what
  // is declared): a float, half or double stream is declared ubyte weights, and indices of the
  // smallest unsigned type holding the largest index of a joint the file has (kStaticJoint
  // included). An integer format too narrow for those is widened the same way (indices outside
  // the skeleton, which validate reports, do not count). Size: the stream's own for an integer
  // format, else iqm.txt's 4.
  ComponentType declared_format(int k, const VertexStream& s) const {
    if (!is_blend(k)) return s.format;
    if (k == kBlendWeights) return is_integer(s.format) ? s.format : ComponentType::UByte;
    if (is_integer(s.format) && max_index_ <= largest(s.format)) return s.format;
    return max_index_ <= 255 ? ComponentType::UByte : max_index_ <= 65535 ? ComponentType::UShort : ComponentType::UInt;
  }

  // Emits `vertexarray` when the stream's format or size differs from what is in effect.
  void declare(int k, const VertexStream& s) {
    Decl want;
    want.declared = true;
    want.format = declared_format(k, s);
    want.size = is_blend(k) && !is_integer(s.format) ? default_size(k) : declared_size(k, s);
    if (is_custom(k)) want.name = s.name.empty() ? std::string(kTypeNames[size_t(k)]) : s.name;
    Decl& have = decl_[size_t(k)];
    bool same = have.declared ? have.format == want.format && have.size == want.size && have.name == want.name
                              : !is_custom(k) && want.format == default_format(k) && want.size == default_size(k);
    if (same) return;
    out_ += "vertexarray ";
    out_ += kTypeNames[size_t(k)];
    out_ += ' ';
    out_ += kFormatNames[size_t(want.format)];
    num(int64_t(want.size));
    if (is_custom(k)) name(want.name);
    out_ += '\n';
    have = want;
  }

  // The stream written for each kind; custom streams without a usable slot get the first free one.
  std::array<const VertexStream*, kKindCount> pick_streams(const Mesh& m) {
    std::array<const VertexStream*, kKindCount> by{};
    std::vector<const VertexStream*> unslotted;
    for (const VertexStream& s : m.streams) {
      if (s.components == 0 || is_format_stream(s)) continue;  // another format's data (scene.h)
      if (s.attribute == Attribute::Custom) {
        int k = kCustom0 + s.custom_slot;
        if (s.custom_slot >= 0 && s.custom_slot < 10 && !by[size_t(k)])
          by[size_t(k)] = &s;
        else
          unslotted.push_back(&s);
        continue;
      }
      int k = int(s.attribute);  // Attribute and Kind share their order up to Color
      if (by[size_t(k)])
        diags_.add(warning("", "mesh " + iqe_quoted(m.name) + ": a second " + std::string(kTypeNames[size_t(k)]) +
                                   " stream cannot be written to IQE: left out"));
      else
        by[size_t(k)] = &s;
    }
    for (const VertexStream* s : unslotted) {
      int k = kCustom0;
      while (k < kKindCount && by[size_t(k)]) ++k;
      if (k == kKindCount) {
        diags_.add(
            warning("", "mesh " + iqe_quoted(m.name) + ": more than 10 custom streams: " + iqe_quoted(s->name) + " left out"));
        continue;
      }
      by[size_t(k)] = s;
    }
    return by;
  }

  void vertex_values(std::string_view cmd, int k, const VertexStream& s, size_t v) {
    uint32_t n = std::min<uint32_t>(s.components, 4);
    float val[4];
    for (uint32_t c = 0; c < 4; ++c) val[c] = s.get(v, c, default_value(k, c));
    if (k == kPosition || k == kNormal || k == kTangent) {
      n = std::max<uint32_t>(n, k == kTangent ? 4 : 3);
      Vec3 z = axes::scene_to_zup(Vec3{val[0], val[1], val[2]});
      val[0] = z[0], val[1] = z[1], val[2] = z[2];
    }
    out_ += cmd;
    for (uint32_t c = 0; c < n; ++c) num(val[c]);
    out_ += '\n';
  }

  // Only real influences (weight other than 0) are written, as the reference exporters do:
  // importers apply each pair in turn, so a padding pair (i, 0) would replace the weight of
  // joint i. A vertex without any is bound to kStaticJoint (an empty vb without a skeleton).
  void blend_values(const VertexStream* idx, const VertexStream* wt, size_t v) {
    out_ += "vb";
    uint32_t pairs = std::max(idx ? idx->components : 0, wt ? wt->components : 0);
    bool any = false;
    for (uint32_t c = 0; c < pairs; ++c) {
      float w = wt ? wt->get(v, c) : 0.0f;
      if (w == 0) continue;
      const float j = idx ? idx->get(v, c) : 0.0f;
      // An index past the skeleton that names the static joint would be read back as unbound.
      if (static_joint_ && j == float(*static_joint_)) {
        ++aliased_;
        continue;
      }
      any = true;
      num(j);
      num(w);
    }
    if (!any && static_joint_) {
      num(int64_t(*static_joint_));
      num(int64_t(1));
    }
    out_ += '\n';
  }

  // ---- Meshes ----------------------------------------------------------------------------------
  void mesh(const Scene& scene, size_t i) {
    const Mesh& m = scene.meshes[i];
    Picks by = picks_[i];
    const size_t count = written_count(m, by);
    const bool dropped = count == 0 && m.vertex_count() > 0;  // plan_file warned
    for (uint32_t t : m.triangles)
      if (!dropped && t >= count) fail("", "mesh " + iqe_quoted(m.name) + ": triangle index " + std::to_string(t) + " out of range");
    if (m.triangles.size() % 3) fail("", "mesh " + iqe_quoted(m.name) + ": triangle list is not a multiple of 3");
    // Kinds other meshes have and this one lacks: filled in, and named in kFilledMarker.
    std::vector<VertexStream> fill;
    fill.reserve(kKindCount);
    std::string filled;
    for (int k = 0; k < kKindCount; ++k) {
      if (by[size_t(k)] || !template_[size_t(k)] || is_blend(k)) continue;
      fill.push_back(filler(k, *template_[size_t(k)], m));
      by[size_t(k)] = &fill.back();
      filled += ' ' + std::string(kCommandNames[size_t(k)]);
    }
    bool blend = by[kBlendIndexes] || by[kBlendWeights];
    if (skinned_ && !blend) filled += " vb";
    bool keys = !dropped && !m.smoothing.vertex_key.empty();  // a mesh written without vertices has none
    if (keys && !valid_keys(m)) {
      keys = false;
      diags_.add(warning("", "mesh " + iqe_quoted(m.name) + ": vertex_key has the wrong length: left out"));
    }
    if (any_vs_ && !keys) filled += " vs";
    out_ += "mesh";
    name(m.name);
    out_ += '\n';
    if (!filled.empty()) {
      out_ += kFilledMarker;
      out_ += filled;
      out_ += '\n';
    }
    // After the mesh line: the reader applies a declaration to the data that follows it.
    for (int k = 0; k < kKindCount; ++k)
      if (by[size_t(k)]) declare(k, *by[size_t(k)]);
    if (m.material >= 0 && size_t(m.material) < scene.materials.size()) {
      out_ += "material";
      name(material_keys_[size_t(m.material)]);
      out_ += '\n';
    } else if (m.material >= 0) {
      diags_.add(warning("", "mesh " + iqe_quoted(m.name) + ": material index out of range: left out"));
    }
    vertices(m, by, count, keys);
    if (!dropped) faces(m);
    first_vertex_ += count;
  }

  void vertices(const Mesh& m, const Picks& by, size_t count, bool keys) {
    const VertexStream* idx = by[kBlendIndexes];
    const VertexStream* wt = by[kBlendWeights];
    for (size_t v = 0; v < count; ++v) {
      for (int k = 0; k < kKindCount; ++k) {
        if (k == kBlendIndexes && skinned_) blend_values(idx, wt, v);
        if (k == kBlendIndexes || k == kBlendWeights || !by[size_t(k)]) continue;
        vertex_values(kCommandNames[size_t(k)], k, *by[size_t(k)], v);
      }
      if (keys || any_vs_) {
        out_ += "vs";
        num(keys ? int64_t(m.smoothing.vertex_key[v]) : int64_t(first_vertex_ + v));
        out_ += '\n';
      }
    }
  }

  // Polygons: the Scene fan (q0 q1 q2) (q0 q2 q3) .. of the polygon (q0 .. qn-1), written back in
  // file winding as (q0, qn-1, .., q1). False when polygon_sizes does not describe such fans.
  static bool fans_ok(const Mesh& m) {
    size_t t = 0, tris = m.triangles.size() / 3;
    for (uint32_t n : m.polygon_sizes) {
      if (n < 3 || t + n - 2 > tris) return false;
      for (uint32_t i = 1; i + 2 < n; ++i) {
        const uint32_t* prev = &m.triangles[(t + i - 1) * 3];
        const uint32_t* next = &m.triangles[(t + i) * 3];
        if (next[0] != prev[0] || next[1] != prev[2]) return false;
      }
      t += n - 2;
    }
    return m.polygon_sizes.empty() || t == tris;
  }

  template <class T>
  bool fits(const std::vector<T>& v, size_t n, const Mesh& m, const char* what) {
    if (v.empty()) return false;
    if (v.size() == n) return true;
    diags_.add(warning("", "mesh " + iqe_quoted(m.name) + ": " + what + " has the wrong length: left out"));
    return false;
  }

  // The smoothing commands a face needs before it. The first face of a mesh always states the
  // rules the mesh has, so that reading the file back sees the command used even when its value
  // is the default.
  void face_state(const SmoothingRules& s, size_t f, bool group, bool angle, bool uv) {
    if (group && (s.face_group[f] != smooth_.group || (f == 0 && !wrote_group_))) {
      smooth_.group = s.face_group[f];
      wrote_group_ = true;
      out_ += "smoothgroup";
      num(int64_t(smooth_.group));
      out_ += '\n';
    }
    if (angle && (!(s.face_angle[f] == smooth_.angle) || (f == 0 && !wrote_angle_))) {
      smooth_.angle = s.face_angle[f];
      wrote_angle_ = true;
      out_ += "smoothangle";
      num(smooth_.angle);
      out_ += '\n';
    }
    if (uv && ((s.face_uv[f] != 0) != (smooth_.uv != 0) || (f == 0 && !wrote_uv_))) {
      smooth_.uv = s.face_uv[f] != 0;
      wrote_uv_ = true;
      out_ += smooth_.uv ? "smoothuv 1\n" : "smoothuv 0\n";
    }
  }

  void faces(const Mesh& m) {
    bool polys = !m.polygon_sizes.empty();
    bool ok = fans_ok(m);
    if (!ok) {
      diags_.add(warning("", "mesh " + iqe_quoted(m.name) +
                                 ": polygon_sizes do not describe fans of its triangles: "
                                 "written as triangles, without per-face smoothing"));
      polys = false;
    }
    size_t faces = polys ? m.polygon_sizes.size() : m.triangles.size() / 3;
    size_t corners = polys ? m.triangles.size() / 3 + 2 * faces : m.triangles.size();
    const SmoothingRules& s = m.smoothing;
    bool group = ok && fits(s.face_group, faces, m, "face_group");
    bool angle = ok && fits(s.face_angle, faces, m, "face_angle");
    bool uv = ok && fits(s.face_uv, faces, m, "face_uv");
    bool edges = ok && fits(s.corner_edge, corners, m, "corner_edge");
    size_t t = 0, c = 0;
    for (size_t f = 0; f < faces; ++f) {
      face_state(s, f, group, angle, uv);
      uint32_t n = polys ? m.polygon_sizes[f] : 3;
      const uint32_t* tri = &m.triangles[t * 3];
      // Scene corners: q0 = tri[0], q1 = tri[1], then each fan triangle's third corner.
      out_ += "fm";
      num(int64_t(tri[0]));
      for (uint32_t k = n - 1; k >= 2; --k) num(int64_t(m.triangles[(t + k - 2) * 3 + 2]));
      num(int64_t(tri[1]));
      out_ += '\n';
      if (edges) {
        // Scene corner k's flag is file flag n-1-k (see the reader): reverse them back.
        out_ += "fs";
        for (uint32_t i = 0; i < n; ++i) num(int64_t(s.corner_edge[c + n - 1 - i] != 0));
        out_ += '\n';
      }
      t += n - 2;
      c += n;
    }
  }

  // ---- Animations ------------------------------------------------------------------------------
  void animation(const Scene& scene, const Animation& a) {
    out_ += "animation";
    name(a.name);
    out_ += '\n';
    if (a.framerate != 0) {
      out_ += "framerate";
      num(a.framerate);
      out_ += '\n';
    }
    if (a.loop) out_ += "loop\n";
    if (a.channels && a.poses.size() % a.channels)
      diags_.add(warning("", "animation " + iqe_quoted(a.name) +
                                 ": pose count is not a multiple of its channels: "
                                 "the last partial frame is left out"));
    if (a.channels && !scene.joints.empty() && a.channels != scene.joints.size())
      diags_.add(warning("", "animation " + iqe_quoted(a.name) + " has " + std::to_string(a.channels) + " channels for " +
                                 std::to_string(scene.joints.size()) + " joints"));
    const bool rigid = static_joint_ && a.channels == scene.joints.size();
    for (size_t f = 0; f < a.frame_count(); ++f) {
      out_ += "frame\n";
      for (size_t j = 0; j < a.channels; ++j) pose(a.poses[f * a.channels + j]);
      if (rigid) out_ += kIdentityPose;
    }
  }
};

}  // namespace

Scene read(std::string_view text, const std::string& name, Diagnostics& diags, const ReadThreads& threads) {
  return Reader(text, name, diags, threads).read();
}

std::string write(const Scene& input, Diagnostics& diags) {
  std::optional<Scene> storage;
  return Writer(diags).write(ops::without_morph_only_clips(input, storage, "IQE", diags));
}

}  // namespace meshport::iqe
