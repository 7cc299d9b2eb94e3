// TFQMSH10 binary reader and writer (qmsh.h). Layout: ../shared/specs/qmsh-notes.md, "Binary
// QMSH"; how the file maps onto the Scene and every choice made here: docs/qmsh.md, "Binary
// TFQMSH10".
//
// Reading checks the header's counts and offsets against the size of the file before anything
// is allocated (every count is 16-bit, every record needs at least one byte of the file), then
// reads each section with a bounds-checked cursor. Errors name the byte offset of the offending
// header field or record.
#include "formats/qmsh/qmsh.h"

#include "core/math.h"
#include "ops/mesh/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace meshport::qmsh {

namespace {

// ---------------------------------------------------------------------------------------------
// Layout

constexpr char kMagic[8] = {'T', 'F', 'Q', 'M', 'S', 'H', '1', '0'};
constexpr uint64_t kHeaderSize = 67;
constexpr uint8_t kTangents = 1, kSkinning = 2;
constexpr uint32_t kMax16 = 0xFFFF;
constexpr uint32_t kMaxSkinBones = 255;  // bone index bytes hold index + 1
// What the Scene may grow to: this many bytes per byte of input, and a fixed allowance. With
// the input itself, an input under 10 MB then stays well under the 256 MB the project allows.
constexpr uint64_t kBudgetFactor = 12;
constexpr uint64_t kBudgetSlack = uint64_t(16) << 20;

// Sections, in header order.
enum Section { kVertices, kIndices, kSubmeshes, kBones, kAnimations, kSections };
constexpr const char* kSectionName[kSections] = {"vertex", "index", "submesh", "bone", "animation"};
constexpr const char* kCountName[kSections] = {"vertices", "triangles", "submeshes", "bones", "animations"};
// Fewest bytes one record of each section takes (names empty).
constexpr uint64_t kMinRecord[kSections] = {0, 6, 10, 51, 7};

constexpr int64_t kFlagsField = 8;
constexpr int64_t count_field(int s) { return 9 + 2 * s; }
constexpr int64_t offset_field(int s) { return 47 + 4 * s; }

struct Header {
  uint8_t flags = 0;
  std::array<uint16_t, kSections> count{};
  float radius = 0;
  std::array<float, 6> box{};
  std::array<int32_t, kSections> offset{};
};

uint64_t vertex_size(uint8_t flags) { return 32 + (flags & kSkinning ? 8 : 0) + (flags & kTangents ? 24 : 0); }
uint64_t min_record(const Header& h, int s) { return s == kVertices ? vertex_size(h.flags) : kMinRecord[s]; }

// One vertex as in the file (engine axes).
struct FileVertex {
  Vec3 position{0, 0, 0};
  float weight = 1;     // of the first bone (skinned files)
  uint32_t bones = 0;   // 4 packed bytes: first and second bone, 1-based, 0 = none
  Vec3 normal{0, 0, 0};
  std::array<float, 2> uv{0, 0};
  Vec3 tangent{0, 0, 0}, binormal{0, 0, 0};
};

struct Submesh {
  uint16_t first_triangle = 0, triangles = 0, first_vertex = 0, vertices = 0;
  std::string name, material;
  int64_t record = 0;
};

struct Bone {
  uint16_t parent = 0;  // 1-based, 0 = none
  std::array<float, 12> matrix{};
  std::string name;
  int64_t record = 0;
};

// One key as in the file: translation xyz, rotation xyzw, uniform scale (engine axes).
using Key = std::array<float, 8>;

// ---------------------------------------------------------------------------------------------
// Axes, shared by reading and writing. Scene = engine (x, y, -z), a mirror, so it is its own
// inverse; quaternions (x, y, z, w) <-> (-x, -y, z, w).

Vec3 flip(Vec3 v) { return {v[0], v[1], -v[2]}; }
Quat flip(Quat q) { return {-q[0], -q[1], q[2], q[3]}; }

using D3 = std::array<double, 3>;
using DQ = std::array<double, 4>;

double ddot(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
D3 dcross(const D3& a, const D3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
D3 dscale(const D3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
D3 to_d3(const Vec3& v) { return {v[0], v[1], v[2]}; }
Vec3 to_f3(const D3& v) { return {float(v[0]), float(v[1]), float(v[2])}; }

DQ dnormalize(const DQ& d) {
  double l = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
  if (!(l > 0) || !std::isfinite(l)) return {0, 0, 0, 1};
  return {d[0] / l, d[1] / l, d[2] / l, d[3] / l};
}
DQ dquat_unit(const Quat& q) { return dnormalize({q[0], q[1], q[2], q[3]}); }
DQ dquat_mul(const DQ& a, const DQ& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}
D3 dquat_rotate(const DQ& q, const D3& v) {
  D3 u{q[0], q[1], q[2]};
  D3 t = dscale(dcross(u, v), 2);
  D3 c = dcross(u, t);
  return {v[0] + t[0] * q[3] + c[0], v[1] + t[1] * q[3] + c[1], v[2] + t[2] * q[3] + c[2]};
}
Quat to_fq(const DQ& q) { return {float(q[0]), float(q[1]), float(q[2]), float(q[3])}; }

// Unit quaternion of an orthonormal basis (columns x, y, z), w >= 0.
DQ quat_from_basis(const D3& x, const D3& y, const D3& z) {
  const double m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2], m02 = z[0], m12 = z[1],
               m22 = z[2];
  const double tr = m00 + m11 + m22;
  DQ q;
  if (tr > 0) {
    double s = std::sqrt(tr + 1) * 2;
    q = {(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s};
  } else if (m00 > m11 && m00 > m22) {
    double s = std::sqrt(1 + m00 - m11 - m22) * 2;
    q = {0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s};
  } else if (m11 > m22) {
    double s = std::sqrt(1 + m11 - m00 - m22) * 2;
    q = {(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s};
  } else {
    double s = std::sqrt(1 + m22 - m00 - m11) * 2;
    q = {(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s};
  }
  double l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (q[3] < 0) l = -l;
  return {q[0] / l, q[1] / l, q[2] / l, q[3] / l};
}

// A bone matrix (file: rows = the bone's axes in its parent's space, then the translation; row
// vectors, p' = p M) as the Scene's column-vector matrix S M S, S = diag(1, 1, -1): columns 0..2
// and the translation (column 3).
std::array<D3, 4> scene_columns(const std::array<float, 12>& m) {
  return {D3{m[0], m[1], -double(m[2])}, D3{m[3], m[4], -double(m[5])}, D3{-double(m[6]), -double(m[7]), m[8]},
          D3{m[9], m[10], -double(m[11])}};
}

// Translation, rotation and scale of a Scene matrix, in double. A mirror gets a negative x
// scale; `shear` is set when the axes are not orthogonal (within 1e-4) and the rotation is then
// their Gram-Schmidt orthonormalisation.
Transform decompose(const std::array<D3, 4>& c, bool& shear) {
  Transform t;
  t.translation = to_f3(c[3]);
  double s[3];
  for (int i = 0; i < 3; ++i) s[i] = std::sqrt(ddot(c[i], c[i]));
  if (ddot(dcross(c[0], c[1]), c[2]) < 0) s[0] = -s[0];
  t.scale = {float(s[0]), float(s[1]), float(s[2])};
  shear = false;
  if (!(s[0] != 0 && s[1] != 0 && s[2] != 0) || !std::isfinite(s[0] + s[1] + s[2])) return t;
  D3 r[3];
  for (int i = 0; i < 3; ++i) r[i] = dscale(c[i], 1 / s[i]);
  if (std::fabs(ddot(r[0], r[1])) > 1e-4 || std::fabs(ddot(r[0], r[2])) > 1e-4 || std::fabs(ddot(r[1], r[2])) > 1e-4) {
    shear = true;
    D3 y = {r[1][0] - r[0][0] * ddot(r[0], r[1]), r[1][1] - r[0][1] * ddot(r[0], r[1]),
            r[1][2] - r[0][2] * ddot(r[0], r[1])};
    double l = std::sqrt(ddot(y, y));
    if (!(l > 0)) return t;
    r[1] = dscale(y, 1 / l);
    r[2] = dcross(r[0], r[1]);
  }
  t.rotation = to_fq(quat_from_basis(r[0], r[1], r[2]));
  return t;
}

Transform rest_from_matrix(const std::array<float, 12>& m, bool& shear) { return decompose(scene_columns(m), shear); }

// The file matrix of a Scene rest transform (rows = the Scene columns mirrored back).
std::array<float, 12> matrix_from_rest(const Transform& t) {
  const DQ q = dquat_unit(t.rotation);
  std::array<float, 12> m{};
  for (int c = 0; c < 3; ++c) {
    D3 axis{0, 0, 0};
    axis[c] = t.scale[c];
    D3 col = dquat_rotate(q, axis);
    D3 row = c == 2 ? D3{-col[0], -col[1], col[2]} : D3{col[0], col[1], -col[2]};
    for (int r = 0; r < 3; ++r) m[c * 3 + r] = float(row[r]);
  }
  m[9] = t.translation[0], m[10] = t.translation[1], m[11] = -t.translation[2];
  return m;
}

// A key is relative to its bone's rest (the engine draws Key * BoneToParent, row vectors): in
// the Scene, pose = rest * key, composed as transforms in double.
Transform compose(const Transform& rest, const Transform& key) {
  const DQ qr = dquat_unit(rest.rotation);
  D3 scaled{double(rest.scale[0]) * key.translation[0], double(rest.scale[1]) * key.translation[1],
            double(rest.scale[2]) * key.translation[2]};
  D3 t = dquat_rotate(qr, scaled);
  Transform p;
  p.translation = {float(t[0] + rest.translation[0]), float(t[1] + rest.translation[1]),
                   float(t[2] + rest.translation[2])};
  p.rotation = to_fq(dnormalize(dquat_mul(qr, dquat_unit(key.rotation))));
  for (int c = 0; c < 3; ++c) p.scale[c] = float(double(rest.scale[c]) * key.scale[c]);
  return p;
}

// The key (Scene axes) that composes with `rest` to `pose`; its scale is the mean of the three
// per-axis ratios, and `uniform` says whether they agreed (relative 1e-4).
Transform relative_key(const Transform& rest, const Transform& pose, bool& uniform) {
  const DQ qr = dquat_unit(rest.rotation);
  const DQ inv{-qr[0], -qr[1], -qr[2], qr[3]};
  D3 d{double(pose.translation[0]) - rest.translation[0], double(pose.translation[1]) - rest.translation[1],
       double(pose.translation[2]) - rest.translation[2]};
  D3 local = dquat_rotate(inv, d);
  Transform k;
  double ratio[3];
  for (int c = 0; c < 3; ++c) {
    const double s = rest.scale[c];
    k.translation[c] = s != 0 ? float(local[c] / s) : 0.0f;
    ratio[c] = s != 0 ? pose.scale[c] / s : 1.0;
  }
  k.rotation = to_fq(dnormalize(dquat_mul(inv, dquat_unit(pose.rotation))));
  const double mean = (ratio[0] + ratio[1] + ratio[2]) / 3;
  uniform = true;
  for (double r : ratio) uniform = uniform && std::fabs(r - mean) <= 1e-4 * std::max(1.0, std::fabs(mean));
  k.scale = {float(mean), float(mean), float(mean)};
  return k;
}

Transform key_to_scene(const Key& k) {
  Transform t;
  t.translation = flip(Vec3{k[0], k[1], k[2]});
  t.rotation = flip(Quat{k[3], k[4], k[5], k[6]});
  t.scale = {k[7], k[7], k[7]};
  return t;
}

Key key_from_scene(const Transform& t) {
  Vec3 p = flip(t.translation);
  Quat q = flip(t.rotation);
  return {p[0], p[1], p[2], q[0], q[1], q[2], q[3], t.scale[0]};
}

// Tangent handedness from the binormal, all in Scene axes: the sign of dot(b, cross(n, t)), +1
// when it is 0 or not a number.
float handedness(const Vec3& n, const Vec3& t, const Vec3& b) {
  return ddot(to_d3(b), dcross(to_d3(n), to_d3(t))) < 0 ? -1.0f : 1.0f;
}

// Scene blend values (2 influences) of a packed bone word and its weight: byte k > 0 is joint
// `byte - 1` (mapped through `joint_of`) with weight w (first) or 1 - w (second); 0 is no
// influence: joint 0 with weight 0.
template <class JointOf>
void decode_blend(uint32_t bones, float w, const JointOf& joint_of, float* idx, float* wgt) {
  const uint32_t b[2] = {bones & 0xFFu, (bones >> 8) & 0xFFu};
  const float weight[2] = {w, 1.0f - w};
  for (int k = 0; k < 2; ++k) {
    idx[k] = b[k] ? float(joint_of(b[k] - 1)) : 0.0f;
    wgt[k] = b[k] ? weight[k] : 0.0f;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

struct In {
  std::span<const uint8_t> d;
  const std::string& name;
  Diagnostics& diags;

  uint64_t size() const { return d.size(); }
  [[noreturn]] void fail(int64_t off, std::string msg) const { fail_at_offset(name, off, std::move(msg)); }
  void warn(int64_t off, std::string msg) const { diags.add(warning_at_offset(name, off, std::move(msg))); }
};

// Reads forward from `pos`, failing at the first byte the file does not have.
struct Cursor {
  const In& in;
  uint64_t pos;
  const char* section;

  void need(uint64_t n, std::string_view what) const {
    if (n > in.size() - pos)
      in.fail(int64_t(pos), fmt::format("{} section: {} needs {} bytes at offset {}, but the file ends at {}", section,
                                        what, n, pos, in.size()));
  }
  template <class T>
  T get(std::string_view what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, in.d.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  uint8_t u8(std::string_view what) { return get<uint8_t>(what); }
  uint16_t u16(std::string_view what) { return get<uint16_t>(what); }
  uint32_t u32(std::string_view what) { return get<uint32_t>(what); }
  float f32(std::string_view what) { return get<float>(what); }
  Vec3 vec3(std::string_view what) {
    need(12, what);
    Vec3 v;
    std::memcpy(v.data(), in.d.data() + pos, 12);
    pos += 12;
    return v;
  }
  std::string name(std::string_view what) {
    const uint8_t n = u8(what);
    need(n, what);
    std::string s(reinterpret_cast<const char*>(in.d.data() + pos), n);
    pos += n;
    return s;
  }
};

// The two version bytes of a "TFQMSHxx" magic, printable.
std::string version_text(const uint8_t* p) {
  std::string out;
  for (int i = 0; i < 2; ++i)
    out += p[i] >= 0x20 && p[i] < 0x7F && p[i] != '"' && p[i] != '\\' ? std::string(1, char(p[i]))
                                                                     : fmt::format("\\x{:02x}", p[i]);
  return out;
}

Header read_header(const In& in) {
  const size_t have = std::min<uint64_t>(in.size(), 8);
  if (in.size() >= 8 && std::memcmp(in.d.data(), kMagic, 6) == 0 && std::memcmp(in.d.data(), kMagic, 8) != 0)
    in.fail(6, fmt::format("unsupported version \"TFQMSH{}\" (only TFQMSH10 is read)", version_text(in.d.data() + 6)));
  if (have == 0 || std::memcmp(in.d.data(), kMagic, have) != 0)
    in.fail(0, "not a TFQMSH10 file: the magic is not \"TFQMSH10\"");
  if (in.size() < kHeaderSize)
    in.fail(int64_t(in.size()),
            fmt::format("truncated header: the file has {} bytes, a TFQMSH10 header needs {}", in.size(), kHeaderSize));
  Header h;
  const uint8_t* p = in.d.data();
  h.flags = p[kFlagsField];
  std::memcpy(h.count.data(), p + count_field(0), sizeof h.count);
  std::memcpy(&h.radius, p + 19, 4);
  std::memcpy(h.box.data(), p + 23, sizeof h.box);
  std::memcpy(h.offset.data(), p + offset_field(0), sizeof h.offset);
  if (h.flags & ~(kTangents | kSkinning))
    in.fail(kFlagsField, fmt::format("unknown flags 0x{:02x} (1 tangents and 2 skinning are known)", h.flags));
  return h;
}

// Sections that overlap even at their smallest size (names empty): reading them would read one
// section's bytes as another's, so fail before that with a clear message. (check_overlaps
// checks the real extents once they are known.)
void check_least_overlaps(const In& in, const Header& h) {
  for (int a = 0; a < kSections; ++a)
    for (int b = 0; b < kSections; ++b) {
      if (a == b || !h.offset[a] || !h.offset[b] || h.offset[b] < h.offset[a]) continue;
      const uint64_t end = uint64_t(h.offset[a]) + 1 + h.count[a] * min_record(h, a);
      if (uint64_t(h.offset[b]) < end && (h.offset[b] > h.offset[a] || b > a))
        in.fail(offset_field(b), fmt::format("the {} section at offset {} overlaps the {} section (offsets {} to at "
                                             "least {})",
                                             kSectionName[b], h.offset[b], kSectionName[a], h.offset[a], end));
    }
}

// Each section lies after the header and inside the file, with room for its records.
void check_sections(const In& in, const Header& h) {
  for (int s = 0; s < kSections; ++s) {
    const int64_t ofs = h.offset[s];
    const uint64_t count = h.count[s];
    if (ofs == 0) {
      if (count)
        in.fail(offset_field(s), fmt::format("{} {} but no {} section (its offset is 0)", count, kCountName[s],
                                             kSectionName[s]));
      continue;
    }
    if (ofs < 0)
      in.fail(offset_field(s), fmt::format("the {} section offset {} is negative", kSectionName[s], ofs));
    if (ofs < int64_t(kHeaderSize))
      in.fail(offset_field(s),
              fmt::format("the {} section offset {} points into the header ({} bytes)", kSectionName[s], ofs,
                          kHeaderSize));
    if (uint64_t(ofs) >= in.size())
      in.fail(offset_field(s), fmt::format("the {} section offset {} is past the end of the file ({} bytes)",
                                           kSectionName[s], ofs, in.size()));
    const uint64_t need = 1 + count * min_record(h, s);
    if (need > in.size() - uint64_t(ofs))
      in.fail(count_field(s),
              fmt::format("{} {} need at least {} bytes from offset {}, past the end of the file ({} bytes)", count,
                          kCountName[s], need, ofs, in.size()));
  }
  check_least_overlaps(in, h);
}

// A cursor after the section's leading 0x00 byte (another value is a warning).
Cursor open_section(const In& in, const Header& h, int s) {
  Cursor c{in, uint64_t(h.offset[s]), kSectionName[s]};
  const uint8_t marker = c.u8("the section marker");
  if (marker != 0)
    in.warn(h.offset[s], fmt::format("the {} section starts with byte {} instead of 0; written back as 0",
                                     kSectionName[s], marker));
  return c;
}

// Where each present section was found to end, for the overlap check.
struct Extent {
  uint64_t begin = 0, end = 0;
  int section = 0;
};

void check_overlaps(const In& in, std::vector<Extent> ext) {
  std::erase_if(ext, [](const Extent& e) { return e.end == 0; });  // sections not in the file
  std::sort(ext.begin(), ext.end(), [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ext.size(); ++i)
    if (ext[i].begin < ext[i - 1].end)
      in.fail(offset_field(ext[i].section),
              fmt::format("the {} section at offset {} overlaps the {} section (offsets {} to {})",
                          kSectionName[ext[i].section], ext[i].begin, kSectionName[ext[i - 1].section],
                          ext[i - 1].begin, ext[i - 1].end));
}

bool finite(std::span<const float> v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

std::vector<FileVertex> read_vertices(const In& in, const Header& h, Extent& ext) {
  if (!h.offset[kVertices]) return {};  // no section, no vertices (check_sections)
  Cursor c = open_section(in, h, kVertices);
  const uint32_t nb = h.count[kBones];
  std::vector<FileVertex> out(h.count[kVertices]);
  size_t high_bytes = 0, non_finite = 0;
  for (size_t v = 0; v < out.size(); ++v) {
    FileVertex& x = out[v];
    const int64_t rec = int64_t(c.pos);
    x.position = c.vec3("a vertex");
    if (h.flags & kSkinning) {
      x.weight = c.f32("a vertex");
      x.bones = c.u32("a vertex");
      for (uint32_t b : {x.bones & 0xFFu, (x.bones >> 8) & 0xFFu})
        if (b > nb) in.fail(rec, fmt::format("vertex {}: bone index {} is past the {} bones", v, b, nb));
      high_bytes += (x.bones >> 16) != 0;
    }
    x.normal = c.vec3("a vertex");
    x.uv = {c.f32("a vertex"), c.f32("a vertex")};
    if (h.flags & kTangents) {
      x.tangent = c.vec3("a vertex");
      x.binormal = c.vec3("a vertex");
    }
    non_finite += !finite(x.position);  // (the engine's own files have NaN tangents where UVs degenerate)
  }
  if (non_finite)
    in.warn(h.offset[kVertices], fmt::format("{} vertices have NaN or infinite positions", non_finite));
  if (high_bytes)
    in.warn(h.offset[kVertices], fmt::format("{} vertices have bone index bytes 3 and 4 set; they are ignored (and "
                                             "kept for writing back)",
                                             high_bytes));
  ext = {uint64_t(h.offset[kVertices]), c.pos, kVertices};
  return out;
}

std::vector<uint16_t> read_indices(const In& in, const Header& h, Extent& ext) {
  if (!h.offset[kIndices]) return {};
  Cursor c = open_section(in, h, kIndices);
  std::vector<uint16_t> out(size_t(h.count[kIndices]) * 3);
  for (uint16_t& i : out) i = c.u16("a triangle");
  ext = {uint64_t(h.offset[kIndices]), c.pos, kIndices};
  return out;
}

std::vector<Submesh> read_submeshes(const In& in, const Header& h, Extent& ext) {
  if (!h.offset[kSubmeshes]) return {};
  Cursor c = open_section(in, h, kSubmeshes);
  std::vector<Submesh> out(h.count[kSubmeshes]);
  for (size_t i = 0; i < out.size(); ++i) {
    Submesh& s = out[i];
    s.record = int64_t(c.pos);
    s.first_triangle = c.u16("a submesh");
    s.triangles = c.u16("a submesh");
    s.first_vertex = c.u16("a submesh");
    s.vertices = c.u16("a submesh");
    s.name = c.name("a submesh name");
    s.material = c.name("a submesh material");
    if (uint32_t(s.first_triangle) + s.triangles > h.count[kIndices])
      in.fail(s.record, fmt::format("submesh {} ('{}'): triangles {} to {} are past the {} triangles", i, s.name,
                                    s.first_triangle, uint32_t(s.first_triangle) + s.triangles, h.count[kIndices]));
    if (uint32_t(s.first_vertex) + s.vertices > h.count[kVertices])
      in.fail(s.record, fmt::format("submesh {} ('{}'): vertices {} to {} are past the {} vertices", i, s.name,
                                    s.first_vertex, uint32_t(s.first_vertex) + s.vertices, h.count[kVertices]));
  }
  ext = {uint64_t(h.offset[kSubmeshes]), c.pos, kSubmeshes};
  return out;
}

std::vector<Bone> read_bones(const In& in, const Header& h, Extent& ext) {
  if (!h.offset[kBones]) return {};
  Cursor c = open_section(in, h, kBones);
  std::vector<Bone> out(h.count[kBones]);
  for (size_t i = 0; i < out.size(); ++i) {
    Bone& b = out[i];
    b.record = int64_t(c.pos);
    b.parent = c.u16("a bone");
    for (float& x : b.matrix) x = c.f32("a bone");
    b.name = c.name("a bone name");
    if (!finite(b.matrix))
      in.warn(b.record + 2, fmt::format("bone {} ('{}'): its matrix has NaN or infinite values", i + 1, b.name));
    if (b.parent > out.size())
      in.fail(b.record, fmt::format("bone {} ('{}'): parent {} is past the {} bones", i + 1, b.name, b.parent,
                                    out.size()));
  }
  ext = {uint64_t(h.offset[kBones]), c.pos, kBones};
  return out;
}

// Scene joint order: the file's, except that a bone comes after its parent. Fails on a cycle.
std::vector<uint32_t> bone_order(const In& in, const std::vector<Bone>& bones) {
  const size_t n = bones.size();
  std::vector<uint8_t> state(n, 0);  // 0 unvisited, 1 on the chain being walked, 2 placed
  std::vector<uint32_t> order, chain;
  order.reserve(n);
  for (uint32_t b = 0; b < n; ++b) {
    chain.clear();
    for (uint32_t x = b; state[x] != 2;) {
      if (state[x] == 1)
        in.fail(bones[x].record, fmt::format("bone {} ('{}'): its parents form a cycle", x + 1, bones[x].name));
      state[x] = 1;
      chain.push_back(x);
      if (!bones[x].parent) break;
      x = bones[x].parent - 1u;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      state[*it] = 2;
      order.push_back(*it);
    }
  }
  return order;
}

void read_skeleton(const In& in, const std::vector<Bone>& bones, const std::vector<uint32_t>& order,
                   const std::vector<uint32_t>& joint_of, Scene& s) {
  s.joints.resize(bones.size());
  s.qmsh->bone_matrices.resize(bones.size());
  for (size_t j = 0; j < order.size(); ++j) {
    const Bone& b = bones[order[j]];
    Joint& joint = s.joints[j];
    joint.name = b.name;
    joint.parent = b.parent ? int32_t(joint_of[b.parent - 1u]) : -1;
    bool shear = false;
    joint.rest = rest_from_matrix(b.matrix, shear);
    if (shear)
      in.warn(b.record, fmt::format("bone {} ('{}'): its matrix has shear; the rest transform is approximate",
                                    order[j] + 1, b.name));
    s.qmsh->bone_matrices[j] = b.matrix;
  }
}

// Frames per second when the keys are evenly spaced from 0 (within 1e-4 of a step), snapped to
// a multiple of 1/1000 within 1e-4; otherwise 0.
float even_framerate(const std::vector<float>& times) {
  const size_t n = times.size();
  if (n < 2 || times[0] != 0 || !(times[n - 1] > 0) || !std::isfinite(times[n - 1])) return 0;
  const double step = double(times[n - 1]) / double(n - 1);
  for (size_t f = 0; f < n; ++f)
    if (std::fabs(times[f] - double(f) * step) > 1e-4 * step) return 0;
  double fps = 1 / step;
  const double snapped = std::round(fps * 1000) / 1000;
  if (std::fabs(fps - snapped) <= 1e-4 * fps) fps = snapped;
  return float(fps);
}

void read_animations(const In& in, const Header& h, const std::vector<uint32_t>& order, Scene& s, Extent& ext) {
  if (!h.offset[kAnimations]) return;
  Cursor c = open_section(in, h, kAnimations);
  const size_t nb = h.count[kBones];
  std::vector<float> raw;
  size_t non_finite = 0;
  for (uint32_t a = 0; a < h.count[kAnimations]; ++a) {
    const int64_t rec = int64_t(c.pos);
    Animation anim;
    anim.name = c.name("an animation name");
    const float length = c.f32("an animation");
    const uint16_t keys = c.u16("an animation");
    c.need(uint64_t(keys) * (4 + 32 * nb), fmt::format("animation {} ('{}') with {} keys of {} bones", a, anim.name,
                                                       keys, nb));
    anim.channels = uint32_t(nb);
    anim.times.resize(keys);
    anim.poses.resize(size_t(keys) * nb);
    std::vector<Key> file(nb);
    for (uint16_t k = 0; k < keys; ++k) {
      anim.times[k] = c.f32("a key");
      if (k && !(anim.times[k] >= anim.times[k - 1]))
        in.warn(int64_t(c.pos) - 4, fmt::format("animation {} ('{}'): key {} at {} s does not follow key {} at {} s", a,
                                                anim.name, k, anim.times[k], k - 1, anim.times[k - 1]));
      for (Key& key : file) {
        for (float& x : key) x = c.f32("a key");
        non_finite += !finite(key);
      }
      for (size_t j = 0; j < nb; ++j) {
        const Key& key = file[order[j]];
        anim.poses[k * nb + j] = compose(s.joints[j].rest, key_to_scene(key));
        raw.insert(raw.end(), key.begin(), key.end());
      }
    }
    if (!nb && keys) {
      in.warn(rec, fmt::format("animation {} ('{}'): {} keys but no bones; read without frames", a, anim.name, keys));
      anim.times.clear();
    }
    anim.framerate = even_framerate(anim.times);
    s.qmsh->animation_lengths.push_back(length);
    s.animations.push_back(std::move(anim));
  }
  if (non_finite)
    in.warn(h.offset[kAnimations], fmt::format("{} bone keys have NaN or infinite values", non_finite));
  s.qmsh->keys = std::move(raw);
  ext = {uint64_t(h.offset[kAnimations]), c.pos, kAnimations};
}

// Each submesh becomes a Scene mesh with a copy of its range, so submeshes whose ranges overlap
// could make a small file read into a huge Scene: what they copy is bounded by a budget
// proportional to the file size (as the IQM reader's).
void check_copies(const In& in, const Header& h, const std::vector<Submesh>& subs) {
  uint64_t vertices = 0, triangles = 0;
  for (const Submesh& s : subs) vertices += s.vertices, triangles += s.triangles;
  const uint64_t bytes = vertices * 96 + triangles * 12;  // Scene streams and kept values
  const uint64_t budget = in.size() * kBudgetFactor + kBudgetSlack;
  if (bytes > budget)
    in.fail(h.offset[kSubmeshes],
            fmt::format("the submeshes' ranges ({} vertices and {} triangles in all) overlap so much that the Scene "
                        "would need {} bytes, more than a file of {} bytes can justify",
                        vertices, triangles, bytes, in.size()));
}

// Submeshes that are not one after another over every vertex and triangle are read as they
// are; the writer lays them out again.
void warn_layout(const In& in, const Header& h, const std::vector<Submesh>& subs) {
  uint32_t v = 0, t = 0;
  bool contiguous = true;
  for (const Submesh& s : subs) {
    contiguous = contiguous && s.first_vertex == v && s.first_triangle == t;
    v += s.vertices;
    t += s.triangles;
  }
  if (!contiguous || v != h.count[kVertices] || t != h.count[kIndices])
    in.warn(h.offset[kSubmeshes],
            fmt::format("the submeshes do not cover the {} vertices and {} triangles one after another; each is read "
                        "from its own range (vertices or triangles in none are dropped)",
                        h.count[kVertices], h.count[kIndices]));
}

int32_t material_index(Scene& s, std::unordered_map<std::string, int32_t>& known, const std::string& name) {
  if (name.empty()) return -1;
  auto [it, added] = known.try_emplace(name, int32_t(s.materials.size()));
  if (added) s.materials.emplace_back().name = name;
  return it->second;
}

VertexStream stream(Attribute a, ComponentType format, uint32_t source_size, uint32_t components, size_t n) {
  VertexStream s;
  s.attribute = a;
  s.format = format;
  s.source_size = source_size;
  s.components = components;
  s.data.resize(n * components);
  return s;
}

void fill_streams(const Header& h, const std::vector<FileVertex>& fv, const Submesh& sub,
                  const std::vector<uint32_t>& joint_of, Mesh& m, Scene& s) {
  const size_t n = sub.vertices;
  VertexStream pos = stream(Attribute::Position, ComponentType::Float, 3, 3, n);
  VertexStream nor = stream(Attribute::Normal, ComponentType::Float, 3, 3, n);
  VertexStream uv = stream(Attribute::Texcoord, ComponentType::Float, 2, 2, n);
  VertexStream tan = stream(Attribute::Tangent, ComponentType::Float, 4, 4, (h.flags & kTangents) ? n : 0);
  VertexStream bi = stream(Attribute::BlendIndices, ComponentType::UByte, 2, 2, (h.flags & kSkinning) ? n : 0);
  VertexStream bw = stream(Attribute::BlendWeights, ComponentType::Float, 2, 2, (h.flags & kSkinning) ? n : 0);
  auto put = [](VertexStream& st, size_t v, const Vec3& x) {
    std::copy(x.begin(), x.end(), &st.data[v * st.components]);
  };
  for (size_t v = 0; v < n; ++v) {
    const FileVertex& x = fv[sub.first_vertex + v];
    put(pos, v, flip(x.position));
    put(nor, v, flip(x.normal));
    uv.data[v * 2] = x.uv[0], uv.data[v * 2 + 1] = x.uv[1];
    if (h.flags & kTangents) {
      const Vec3 t = flip(x.tangent), b = flip(x.binormal);
      put(tan, v, t);
      tan.data[v * 4 + 3] = handedness(flip(x.normal), t, b);
      s.qmsh->binormals.insert(s.qmsh->binormals.end(), x.binormal.begin(), x.binormal.end());
    }
    if (h.flags & kSkinning) {
      decode_blend(x.bones, x.weight, [&](uint32_t b) { return joint_of[b]; }, &bi.data[v * 2], &bw.data[v * 2]);
      s.qmsh->bone_indices.push_back(x.bones);
    }
  }
  m.streams.push_back(std::move(pos));
  m.streams.push_back(std::move(nor));
  m.streams.push_back(std::move(uv));
  if (h.flags & kTangents) m.streams.push_back(std::move(tan));
  if (h.flags & kSkinning) {
    m.streams.push_back(std::move(bi));
    m.streams.push_back(std::move(bw));
  }
}

void fill_triangles(const In& in, const Header& h, const std::vector<uint16_t>& idx, size_t si, const Submesh& sub,
                    Mesh& m) {
  m.triangles.resize(size_t(sub.triangles) * 3);
  for (size_t t = 0; t < sub.triangles; ++t) {
    const size_t at = (size_t(sub.first_triangle) + t) * 3;
    uint32_t v[3];
    for (int k = 0; k < 3; ++k) {
      v[k] = idx[at + k];
      if (v[k] < sub.first_vertex || v[k] >= uint32_t(sub.first_vertex) + sub.vertices)
        in.fail(int64_t(h.offset[kIndices]) + 1 + int64_t(at + k) * 2,
                fmt::format("submesh {} ('{}'): triangle {} uses vertex {}, outside the submesh's vertices {} to {}",
                            si, sub.name, sub.first_triangle + t, v[k], sub.first_vertex,
                            uint32_t(sub.first_vertex) + sub.vertices - 1));
      v[k] -= sub.first_vertex;
    }
    m.triangles[t * 3] = v[0];  // file (a b c), clockwise in the mirrored axes -> Scene (a c b)
    m.triangles[t * 3 + 1] = v[2];
    m.triangles[t * 3 + 2] = v[1];
  }
}

}  // namespace

Scene read(std::span<const uint8_t> data, const std::string& name, Diagnostics& diags) {
  const In in{data, name, diags};
  const Header h = read_header(in);
  check_sections(in, h);
  std::vector<Extent> ext(3);
  std::vector<Submesh> subs = read_submeshes(in, h, ext[2]);
  check_copies(in, h, subs);
  std::vector<Bone> bones;
  if (h.offset[kBones]) bones = read_bones(in, h, ext.emplace_back());
  const std::vector<FileVertex> fv = read_vertices(in, h, ext[0]);
  const std::vector<uint16_t> idx = read_indices(in, h, ext[1]);
  const std::vector<uint32_t> order = bone_order(in, bones);
  std::vector<uint32_t> joint_of(order.size());
  for (size_t j = 0; j < order.size(); ++j) joint_of[order[j]] = uint32_t(j);
  if (!std::is_sorted(order.begin(), order.end()))
    in.warn(h.offset[kBones], "some bones come before their parents: the joints are reordered so parents come first");

  Scene s;
  s.qmsh.emplace();
  s.qmsh->flags = h.flags;
  s.qmsh->radius = h.radius;
  s.qmsh->box = h.box;
  read_skeleton(in, bones, order, joint_of, s);
  std::unordered_map<std::string, int32_t> materials;
  for (size_t i = 0; i < subs.size(); ++i) {
    Mesh m;
    m.name = subs[i].name;
    m.material = material_index(s, materials, subs[i].material);
    fill_triangles(in, h, idx, i, subs[i], m);
    fill_streams(h, fv, subs[i], joint_of, m, s);
    s.meshes.push_back(std::move(m));
  }
  warn_layout(in, h, subs);
  if (h.offset[kAnimations]) read_animations(in, h, order, s, ext.emplace_back());
  check_overlaps(in, ext);
  s.qmsh->fingerprint = content_fingerprint(s);
  return s;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Writing

[[noreturn]] void wfail(std::string msg) { fail("", std::move(msg)); }
void wwarn(Diagnostics& d, std::string msg) { d.add(warning("", std::move(msg))); }

void check_name(const std::string& s, std::string_view what) {
  if (s.size() > 255) wfail(fmt::format("{} '{}...' is {} bytes long; TFQMSH10 names hold at most 255", what,
                                        s.substr(0, 32), s.size()));
}

void check_count(uint64_t n, std::string_view what) {
  if (n > kMax16) wfail(fmt::format("{} {}: TFQMSH10 counts them in 16 bits (at most 65,535)", n, what));
}

// Little-endian byte output.
struct Out {
  std::vector<uint8_t> b;
  template <class T>
  void put(T v) {
    const size_t at = b.size();
    b.resize(at + sizeof v);
    std::memcpy(b.data() + at, &v, sizeof v);
  }
  void vec3(const Vec3& v) {
    for (float x : v) put(x);
  }
  void name(const std::string& s) {
    put(uint8_t(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
};

// What is written, gathered from the Scene first.
struct Plan {
  uint8_t flags = 0;
  std::vector<FileVertex> vertices;
  std::vector<uint16_t> indices;
  std::vector<Submesh> submeshes;
  std::vector<Bone> bones;
  struct Anim {
    std::string name;
    float length = 0;
    std::vector<float> times;
    std::vector<Key> keys;  // per key, per bone
  };
  std::vector<Anim> animations;
  float radius = 0;
  std::array<float, 6> box{};
  // The values kept from the file the Scene was read from, while the Scene is still what the
  // reader made of it (content_fingerprint); null once anything changed it.
  const QmshBinaryData* kept = nullptr;
};

const QmshBinaryData& kept(const Plan& p) {
  static const QmshBinaryData none;
  return p.kept ? *p.kept : none;
}

bool is_skinned(const Mesh& m) { return m.find(Attribute::BlendIndices) && m.find(Attribute::BlendWeights); }

uint8_t plan_flags(const Scene& s, Diagnostics& d) {
  bool all_tangents = false, any_skinned = false;
  size_t with = 0, without = 0;
  for (const Mesh& m : s.meshes) {
    if (!m.vertex_count()) continue;
    (m.find(Attribute::Tangent) ? with : without)++;
    any_skinned = any_skinned || is_skinned(m);
  }
  all_tangents = with > 0 && without == 0;
  if (with && without)
    wwarn(d, fmt::format("{} meshes have tangents and {} do not: TFQMSH10 has tangents for all vertices or none, so "
                         "none are written",
                         with, without));
  if (any_skinned && s.joints.size() > kMaxSkinBones)
    wfail(fmt::format("the skeleton has {} joints, but skinned TFQMSH10 vertices name bones in one byte (at most {})",
                      s.joints.size(), kMaxSkinBones));
  return uint8_t((all_tangents ? kTangents : 0) | (any_skinned ? kSkinning : 0));
}

// Up to two influences of a Scene vertex: weights > 0 (finite), repeated joints merged, the two
// largest kept in their order; `dropped` tells when more were there.
struct Influences {
  uint32_t joint[2] = {0, 0};
  float weight[2] = {0, 0};
  int count = 0;
};

Influences influences(const VertexStream& bi, const VertexStream& bw, size_t v, bool& dropped) {
  std::vector<std::pair<uint32_t, float>> all;
  const uint32_t k = std::min(bi.components, bw.components);
  for (uint32_t c = 0; c < k; ++c) {
    const float w = bw.get(v, c), j = bi.get(v, c);
    if (!(w > 0) || !std::isfinite(w)) continue;
    if (!(j >= 0) || !(j < 4294967296.0f))
      wfail(fmt::format("vertex blend index {} is not a joint index", j));
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.first == uint32_t(j); });
    if (it != all.end())
      it->second += w;
    else
      all.emplace_back(uint32_t(j), w);
  }
  dropped = all.size() > 2;
  while (all.size() > 2) {
    auto smallest = all.begin();  // the last of the smallest goes first: ties keep the earlier
    for (auto it = all.begin(); it != all.end(); ++it)
      if (it->second <= smallest->second) smallest = it;
    all.erase(smallest);
  }
  Influences r;
  r.count = int(all.size());
  for (int i = 0; i < r.count; ++i) r.joint[i] = all[i].first, r.weight[i] = all[i].second;
  return r;
}

// The packed bone word and first weight of a Scene vertex.
std::pair<uint32_t, float> encode_blend(const Influences& in, size_t joints, const std::string& mesh, size_t v) {
  for (int i = 0; i < in.count; ++i)
    if (in.joint[i] >= joints)
      wfail(fmt::format("mesh '{}' vertex {}: joint {} does not exist (the skeleton has {} joints)", mesh, v,
                        in.joint[i], joints));
  if (in.count == 0) return {0u, 1.0f};
  const uint32_t a = in.joint[0] + 1;
  if (in.count == 1) return {a | a << 8, 1.0f};
  const uint32_t b = in.joint[1] + 1;
  const float w0 = in.weight[0], w1 = in.weight[1];
  const float w = w1 == 1.0f - w0 ? w0 : float(double(w0) / (double(w0) + w1));
  return {a | b << 8, w};
}

// The file's packed word of this vertex, when decoding it gives the Scene's blend values.
bool raw_blend(uint32_t raw, const VertexStream& bi, const VertexStream& bw, size_t v, float& weight) {
  if (bi.components != 2 || bw.components != 2) return false;
  const uint32_t b0 = raw & 0xFFu, b1 = (raw >> 8) & 0xFFu;
  weight = b0 ? bw.get(v, 0) : b1 ? 1.0f - bw.get(v, 1) : 1.0f;
  float idx[2], wgt[2];
  decode_blend(raw, weight, [](uint32_t b) { return b; }, idx, wgt);
  return idx[0] == bi.get(v, 0) && idx[1] == bi.get(v, 1) && wgt[0] == bw.get(v, 0) && wgt[1] == bw.get(v, 1);
}

struct VertexContext {
  const Scene& scene;
  Plan& plan;
  Diagnostics& diags;
  bool raw_binormals = false, raw_bones = false;
  size_t reduced = 0;  // vertices with more than 2 influences
};

Vec3 vec3_of(const VertexStream* s, size_t v) {
  return s ? Vec3{s->get(v, 0), s->get(v, 1), s->get(v, 2)} : Vec3{0, 0, 0};
}

// Tangent and binormal of Scene vertex v (global vertex g).
void plan_tangent(const VertexContext& c, const VertexStream* tan, const Vec3& normal, size_t v, size_t g,
                  FileVertex& x) {
  const Vec3 t = vec3_of(tan, v);
  const float w = tan && tan->get(v, 3, 1.0f) < 0 ? -1.0f : 1.0f;
  x.tangent = flip(t);
  Vec3 raw{0, 0, 0};
  if (c.raw_binormals) std::copy_n(kept(c.plan).binormals.data() + g * 3, 3, raw.begin());
  if (c.raw_binormals && handedness(normal, t, flip(raw)) == w)
    x.binormal = raw;
  else
    x.binormal = flip(to_f3(dscale(dcross(to_d3(normal), to_d3(t)), w)));
}

// Bone word and weight of Scene vertex v (global vertex g).
void plan_blend(VertexContext& c, const Mesh& m, const VertexStream& bi, const VertexStream& bw, size_t v, size_t g,
                FileVertex& x) {
  if (c.raw_bones && raw_blend(kept(c.plan).bone_indices[g], bi, bw, v, x.weight)) {
    x.bones = kept(c.plan).bone_indices[g];
    return;
  }
  bool dropped = false;
  std::tie(x.bones, x.weight) = encode_blend(influences(bi, bw, v, dropped), c.scene.joints.size(), m.name, v);
  c.reduced += dropped;
}

void plan_mesh_vertices(VertexContext& c, const Mesh& m) {
  const VertexStream* pos = m.find(Attribute::Position);
  const VertexStream* nor = m.find(Attribute::Normal);
  const VertexStream* uv = m.find(Attribute::Texcoord);
  const VertexStream* tan = m.find(Attribute::Tangent);
  const VertexStream* bi = m.find(Attribute::BlendIndices);
  const VertexStream* bw = m.find(Attribute::BlendWeights);
  const size_t n = m.vertex_count();
  if (n && !pos) wwarn(c.diags, fmt::format("mesh '{}' has no positions: its vertices are written at 0", m.name));
  if (n && !nor) wwarn(c.diags, fmt::format("mesh '{}' has no normals: they are written as 0", m.name));
  if (n && !uv) wwarn(c.diags, fmt::format("mesh '{}' has no texture coordinates: they are written as 0", m.name));
  for (size_t v = 0; v < n; ++v) {
    const size_t g = c.plan.vertices.size();
    FileVertex x;  // no bone unless the mesh is skinned
    x.position = flip(vec3_of(pos, v));
    const Vec3 normal = vec3_of(nor, v);
    x.normal = flip(normal);
    if (uv) x.uv = {uv->get(v, 0), uv->get(v, 1)};
    if (c.plan.flags & kTangents) plan_tangent(c, tan, normal, v, g, x);
    if ((c.plan.flags & kSkinning) && bi && bw) plan_blend(c, m, *bi, *bw, v, g, x);
    c.plan.vertices.push_back(x);
  }
}

void plan_meshes(const Scene& s, Plan& p, Diagnostics& d) {
  uint64_t nv = 0, nt = 0;
  for (const Mesh& m : s.meshes) {
    nv += m.vertex_count();
    nt += m.triangles.size() / 3;
    check_name(m.name, "mesh name");
    if (!m.morph_targets.empty())
      wwarn(d, fmt::format("mesh '{}': {} morph targets are not written (TFQMSH10 has none)", m.name,
                           m.morph_targets.size()));
  }
  check_count(nv, "vertices");
  check_count(nt, "triangles");
  check_count(s.meshes.size(), "meshes (submeshes)");
  VertexContext c{s, p, d};
  c.raw_binormals = kept(p).binormals.size() == nv * 3;
  c.raw_bones = kept(p).bone_indices.size() == nv;
  p.vertices.reserve(nv);
  p.indices.reserve(nt * 3);
  for (const Mesh& m : s.meshes) {
    Submesh sub;
    sub.first_triangle = uint16_t(p.indices.size() / 3);
    sub.triangles = uint16_t(m.triangles.size() / 3);
    sub.first_vertex = uint16_t(p.vertices.size());
    sub.vertices = uint16_t(m.vertex_count());
    sub.name = m.name;
    if (m.material >= 0) {
      const Material& mat = s.materials[m.material];
      sub.material = mat.name.empty() ? mat.base_color_texture : mat.name;
      check_name(sub.material, "material name");
    }
    for (size_t t = 0; t + 2 < m.triangles.size(); t += 3) {
      p.indices.push_back(uint16_t(sub.first_vertex + m.triangles[t]));  // Scene (a b c) -> file (a c b)
      p.indices.push_back(uint16_t(sub.first_vertex + m.triangles[t + 2]));
      p.indices.push_back(uint16_t(sub.first_vertex + m.triangles[t + 1]));
    }
    plan_mesh_vertices(c, m);
    p.submeshes.push_back(std::move(sub));
  }
  if (c.reduced)
    wwarn(d, fmt::format("{} vertices have more than 2 influences: the 2 largest are kept, renormalised", c.reduced));
}

// Equal as values, with NaN equal to NaN: a key or bone matrix holding a NaN (real files do) is
// still recognised as the file's own, so it is written back unchanged instead of recomputed (the
// fuzzers' rewrite check found keys recomputed on every write, changing the sign of a zero).
bool same_values(const Transform& a, const Transform& b) {
  const auto same = [](float x, float y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  for (int i = 0; i < 3; ++i)
    if (!same(a.translation[i], b.translation[i]) || !same(a.scale[i], b.scale[i])) return false;
  for (int i = 0; i < 4; ++i)
    if (!same(a.rotation[i], b.rotation[i])) return false;
  return true;
}

void plan_bones(const Scene& s, Plan& p) {
  check_count(s.joints.size(), "joints (bones)");
  const bool raw = kept(p).bone_matrices.size() == s.joints.size();
  for (size_t j = 0; j < s.joints.size(); ++j) {
    const Joint& joint = s.joints[j];
    check_name(joint.name, "joint name");
    Bone b;
    b.parent = uint16_t(joint.parent + 1);
    b.name = joint.name;
    bool shear = false;
    if (raw && same_values(rest_from_matrix(kept(p).bone_matrices[j], shear), joint.rest))
      b.matrix = kept(p).bone_matrices[j];
    else
      b.matrix = matrix_from_rest(joint.rest);
    p.bones.push_back(std::move(b));
  }
}

// Key times of an animation: its own, else frame / framerate (30 when it has none).
std::vector<float> key_times(const Animation& a, size_t frames, Diagnostics& d) {
  if (!a.times.empty()) {
    if (a.times.size() != frames)
      wfail(fmt::format("animation '{}' has {} key times for {} frames", a.name, a.times.size(), frames));
    for (float t : a.times)
      if (!std::isfinite(t)) wfail(fmt::format("animation '{}' has a key time that is not finite", a.name));
    return a.times;
  }
  const bool ok = a.framerate > 0 && std::isfinite(a.framerate);
  if (!ok && frames > 1)
    wwarn(d, fmt::format("animation '{}' has no framerate: its keys are written at 30 frames per second", a.name));
  const double rate = ok ? a.framerate : 30.0;
  std::vector<float> t(frames);
  for (size_t f = 0; f < frames; ++f) t[f] = float(double(f) / rate);
  return t;
}

// The file's key (`raw`, may be null) when it composes with the rest to exactly the pose, else the
// key computed from the pose.
Key plan_key(const Transform& rest, const Transform& pose, const float* raw, size_t& non_uniform) {
  Key k;
  if (raw) {
    std::copy_n(raw, 8, k.begin());
    if (same_values(compose(rest, key_to_scene(k)), pose)) return k;
  }
  bool uniform = true;
  k = key_from_scene(relative_key(rest, pose, uniform));
  non_uniform += !uniform;
  return k;
}

void plan_animations(const Scene& s, Plan& p, Diagnostics& d) {
  const size_t nb = s.joints.size();
  size_t total = 0;
  for (const Animation& a : s.animations) total += a.channels == nb ? a.frame_count() * nb * 8 : 0;
  const float* raw = kept(p).keys.size() == total ? kept(p).keys.data() : nullptr;
  const bool lengths = kept(p).animation_lengths.size() == s.animations.size();
  size_t at = 0, non_uniform = 0;
  for (size_t ai = 0; ai < s.animations.size(); ++ai) {
    const Animation& a = s.animations[ai];
    if (a.channels != nb) {
      wwarn(d, fmt::format("animation '{}' animates {} channels but the skeleton has {} joints: not written", a.name,
                           a.channels, nb));
      continue;
    }
    check_name(a.name, "animation name");
    const size_t frames = a.frame_count();
    check_count(frames, fmt::format("keys in animation '{}'", a.name));
    Plan::Anim out;
    out.name = a.name;
    out.times = key_times(a, frames, d);
    const float last = out.times.empty() ? 0.0f : out.times.back();
    out.length = lengths && kept(p).animation_lengths[ai] >= last ? kept(p).animation_lengths[ai] : last;
    out.keys.resize(frames * nb);
    for (size_t i = 0; i < out.keys.size(); ++i, at += 8)
      out.keys[i] = plan_key(s.joints[i % nb].rest, a.poses[i], raw ? raw + at : nullptr, non_uniform);
    p.animations.push_back(std::move(out));
  }
  check_count(p.animations.size(), "animations");
  if (non_uniform)
    wwarn(d, fmt::format("{} animation poses scale their joint unevenly: TFQMSH10 keys have one scale, the mean is "
                         "written",
                         non_uniform));
}

// Box and radius of the written positions. The box is exact; the radius (the largest distance
// from the origin) is the Scene's stored one when it is within 1e-6 of the computed value.
void plan_bounds(Plan& p) {
  if (p.vertices.empty()) return;
  std::array<float, 6> box{INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  double r2 = 0;
  for (const FileVertex& v : p.vertices) {
    for (int c = 0; c < 3; ++c) {
      box[c] = std::min(box[c], v.position[c]);
      box[3 + c] = std::max(box[3 + c], v.position[c]);
    }
    r2 = std::max(r2, ddot(to_d3(v.position), to_d3(v.position)));
  }
  p.box = box;
  p.radius = float(std::sqrt(r2));
  const float stored = kept(p).radius;
  if (p.kept && std::isfinite(stored) && std::fabs(double(stored) - p.radius) <= 1e-6 * p.radius)
    p.radius = stored;
}

// ---- Bytes

void emit_vertices(const Plan& p, Out& o) {
  o.put(uint8_t(0));
  for (const FileVertex& v : p.vertices) {
    o.vec3(v.position);
    if (p.flags & kSkinning) {
      o.put(v.weight);
      o.put(v.bones);
    }
    o.vec3(v.normal);
    o.put(v.uv[0]);
    o.put(v.uv[1]);
    if (p.flags & kTangents) {
      o.vec3(v.tangent);
      o.vec3(v.binormal);
    }
  }
}

void emit_submeshes(const Plan& p, Out& o) {
  o.put(uint8_t(0));
  for (const Submesh& s : p.submeshes) {
    o.put(s.first_triangle);
    o.put(s.triangles);
    o.put(s.first_vertex);
    o.put(s.vertices);
    o.name(s.name);
    o.name(s.material);
  }
}

void emit_bones(const Plan& p, Out& o) {
  o.put(uint8_t(0));
  for (const Bone& b : p.bones) {
    o.put(b.parent);
    for (float x : b.matrix) o.put(x);
    o.name(b.name);
  }
}

void emit_animations(const Plan& p, Out& o) {
  o.put(uint8_t(0));
  const size_t nb = p.bones.size();
  for (const Plan::Anim& a : p.animations) {
    o.name(a.name);
    o.put(a.length);
    o.put(uint16_t(a.times.size()));
    for (size_t k = 0; k < a.times.size(); ++k) {
      o.put(a.times[k]);
      for (size_t j = 0; j < nb; ++j)
        for (float x : a.keys[k * nb + j]) o.put(x);
    }
  }
}

uint64_t animation_bytes(const Plan& p) {
  uint64_t n = 1;
  for (const Plan::Anim& a : p.animations)
    n += 7 + a.name.size() + a.times.size() * (4 + 32 * uint64_t(p.bones.size()));
  return n;
}

std::vector<uint8_t> emit(const Plan& p) {
  Out sec[kSections];
  emit_vertices(p, sec[kVertices]);
  sec[kIndices].put(uint8_t(0));
  for (uint16_t i : p.indices) sec[kIndices].put(i);
  emit_submeshes(p, sec[kSubmeshes]);
  if (!p.bones.empty()) emit_bones(p, sec[kBones]);
  uint64_t size = kHeaderSize;
  for (const Out& s : sec) size += s.b.size();
  if (!p.animations.empty() && size + animation_bytes(p) > uint64_t(std::numeric_limits<int32_t>::max()))
    wfail(fmt::format("the animations would make the file {} bytes long, past TFQMSH10's 32-bit offsets",
                      size + animation_bytes(p)));
  if (!p.animations.empty()) emit_animations(p, sec[kAnimations]);
  Out o;
  o.b.insert(o.b.end(), kMagic, kMagic + 8);
  o.put(p.flags);
  const uint16_t counts[kSections] = {uint16_t(p.vertices.size()), uint16_t(p.indices.size() / 3),
                                      uint16_t(p.submeshes.size()), uint16_t(p.bones.size()),
                                      uint16_t(p.animations.size())};
  for (uint16_t c : counts) o.put(c);
  o.put(p.radius);
  for (float x : p.box) o.put(x);
  uint64_t at = kHeaderSize;
  for (const Out& s : sec) {
    o.put(int32_t(s.b.empty() ? 0 : at));
    at += s.b.size();
  }
  for (const Out& s : sec) o.b.insert(o.b.end(), s.b.begin(), s.b.end());
  return std::move(o.b);
}

}  // namespace

std::vector<uint8_t> write(const Scene& scene, Diagnostics& diags) {
  ops::check_scene(scene);
  Plan p;
  if (scene.qmsh && scene.qmsh->fingerprint == content_fingerprint(scene))
    p.kept = &*scene.qmsh;
  else if (scene.qmsh)
    wwarn(diags, "the Scene changed since it was read (processing or editing): the TFQMSH10 values kept from the "
                 "file (binormals, bone words, bone matrices, keys, animation lengths, radius) are not used; "
                 "everything is written from the Scene");
  p.flags = plan_flags(scene, diags);
  plan_meshes(scene, p, diags);
  plan_bones(scene, p);
  plan_animations(scene, p, diags);
  plan_bounds(p);
  if (!scene.attachments.empty())
    wwarn(diags, fmt::format("{} attachments are not written (TFQMSH10 has none)", scene.attachments.size()));
  return emit(p);
}

}  // namespace meshport::qmsh
