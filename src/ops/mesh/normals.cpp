// Normal generation (process.h, generate_normals), following iqe.txt's "Smoothing" section.
//
// Which meshes: every mesh without a Normal stream (every mesh with NormalOptions::recompute)
// that has positions. Only those take part, and smoothing crosses mesh boundaries among them
// (iqe.txt: "Smoothing operates across mesh boundaries").
//
// A face is a polygon of Mesh::polygon_sizes (a fan of triangles), else a triangle. Its normal
// is normalize(sum of its fan triangles' cross(b - a, c - a)) (Scene winding, counter-clockwise),
// which for a triangle is its own normal; a face whose sum is zero (or not finite) is degenerate.
//
// A corner's normal is the normalised sum, over the corners compatible with it (itself
// included), of their triangle's normal times the corner's interior angle in that triangle:
// face normals "weighted by corner angle". Candidates are the corners at the same smoothing
// node: the same position (exact float equality of x, y, z; -0 == +0; NaNs equal when their bits
// are) or, in a mesh with vs keys, the same key (see below). Two candidate corners are compatible
// when they pass every test in force for both faces:
//   1. smoothgroup: equal keys (default -1, so by default all match);
//   2. smoothangle: the angle between the two face normals is at most the smaller of the two
//      faces' angles, in degrees (default 180 smooths everything, even opposite faces; 0 only
//      parallel ones). Angles are compared as angles (never |cos|: the reference compiler's bug
//      made 170 act like 10), with a tolerance of 1e-4 degrees so that coplanar triangles whose
//      computed normals differ by rounding count as parallel. Corners of one face always pass;
//      a degenerate face passes (its angle is undefined); a NaN smoothangle fails.
//   3. smoothuv: when on for either face, the two corners' texture coordinates (u, v) must be
//      equal (bitwise, -0 == +0); a mesh without texture coordinates reads (0, 0).
//   4. vs keys: in a mesh with SmoothingRules::vertex_key, corners are candidates by equal key
//      instead of equal position ("any triangle corners whose vertexes have matching smoothing
//      indexes will become smoothed"): a key names the exporter's original vertex. Keys of
//      different meshes match when both meshes have keys; a keyed corner never smooths with a
//      corner of a mesh without keys, even at the same position.
//   5. fs: edges are identified by their two ends' nodes. A fan's inner diagonals are always
//      smooth; a polygon edge is hard when the face's corner_edge flag for it is 0. Among the
//      corners of one smoothgroup at a node, the test is in force only when one of them touches
//      a hard edge (so fs flags that are all 1 change nothing). Then two corners are compatible
//      only if (a) no edge through the node that both faces have is hard in either of them, and
//      (b) they are connected around the node through faces sharing smooth edges (the "wedge"
//      of the node they lie in). (b) keeps a crease running through a vertex from being bridged
//      by faces that touch only at the vertex; the reference compiler, too, smooths only faces
//      linked through shared edges.
// NormalOptions::angle replaces all of this: every face gets that smoothangle and groups, uv,
// keys and fs are ignored.
//
// Degenerate triangles contribute nothing but still receive the sum of their compatible corners.
// A corner whose sum is zero (opposite faces cancelling, or nothing but degenerate faces) gets
// its own face's normal, or (0, 1, 0) when that is degenerate too.
//
// Cost. When every test reduces to "everything at a node smooths" (the defaults) one sum per
// node is made: O(corners) after hashing the positions (ops::position_ids). Otherwise each
// node's corners are split into buckets by smoothgroup key (and by texture coordinates when
// smoothuv is on for all of them), and each bucket that needs tests is compared pairwise,
// k * k tests for k corners, within a budget of 2^22 + 32 tests per corner of the processed
// meshes shared by all buckets in order of first appearance. A bucket that does not fit (only
// hostile input: thousands of corners at one position in one smoothgroup) is summed whole,
// ignoring smoothangle, smoothuv and fs, with one warning for all such buckets.
//
// Output: each (vertex, normal) pair becomes a vertex: a vertex whose corners got different
// normals is split, the copies placed right after it in order of first use. Then vertices of
// the mesh whose every attribute (and vs key) is bit-identical are welded (ops::weld_mesh), so
// duplicated vertices that smoothed together become one. Unused vertices are kept, with normal
// (0, 1, 0). Triangle order never changes, so polygon_sizes and the smoothing rules stay valid;
// vertex_key follows the vertices. The Normal stream is float, 3 components.
#include <meshport/process.h>

#include "core/angle.h"
#include "core/math.h"
#include "ops/mesh/adjacency.h"
#include "ops/mesh/remap.h"
#include "ops/mesh/triangulate.h"
#include "ops/mesh/weld.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

namespace meshport {

namespace {

using ops::kDropped;

constexpr float kSmoothAll = 180.0f;
constexpr double kAngleTolerance = 1e-4;  // degrees
constexpr Vec3 kUp{0, 1, 0};
constexpr uint64_t kPairBase = uint64_t(1) << 22;
constexpr uint64_t kPairsPerCorner = 32;

void warn(Diagnostics* d, std::string message) {
  if (d) d->add(warning("", std::move(message)));
}

bool is_zero(const Vec3& v) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }

// The unit vector along a sum of contributions, -0 written as +0; zero when the sum is zero or
// not finite. Both paths normalise with this, so equal sums give equal bits.
Vec3 unit_sum(Vec3 s) {
  float l = length(s);
  if (!(l > 0) || !std::isfinite(l)) return {0, 0, 0};
  float r = 1.0f / l;
  if (!std::isfinite(r)) return {0, 0, 0};  // a sum that cancelled to a subnormal length
  return {s[0] * r + 0.0f, s[1] * r + 0.0f, s[2] * r + 0.0f};
}

// A corner's normal from its sum: its own face normal when the sum is zero, or (0, 1, 0) when
// that is degenerate too.
Vec3 finish(Vec3 s, Vec3 face) {
  Vec3 n = unit_sum(s);
  if (!is_zero(n)) return n;
  return is_zero(face) ? kUp : face;
}

// ---- The processed meshes and the rules in force ----------------------------------------------

// One processed mesh's rules; null / false where a rule is absent, ignored or overridden.
struct MeshRules {
  bool polygons = false;  // polygon_sizes is valid and used
  const int32_t* group = nullptr;
  const float* angle = nullptr;
  const uint8_t* uv = nullptr;
  const uint8_t* edge = nullptr;  // corner_edge
  bool keyed = false;             // vertex_key used
};

// The processed meshes flattened into one numbering: global vertex = vertex_base[i] + v, global
// triangle = triangle_base[i] + t, global corner = 3 * global triangle + k, global face =
// face_base[i] + f. Each base vector has one entry more than the meshes: the total.
struct Work {
  std::vector<Mesh*> meshes;
  std::vector<MeshRules> rules;
  std::vector<size_t> vertex_base{0}, triangle_base{0}, face_base{0};
  std::optional<float> angle;  // NormalOptions::angle
  bool any_hard = false;       // some corner_edge flag in force is 0
  bool any_uv = false;         // some face has smoothuv on
  bool simple = false;         // the fast path: every test passes (is_simple)

  uint32_t nodes = 0;
  std::vector<uint32_t> position;  // per global vertex: position class (ops::position_ids)
  std::vector<uint32_t> node;      // per corner: smoothing node
  std::vector<Vec3> face_of_tri;   // per triangle: its face's normal, unit or zero (degenerate)
  std::vector<Vec3> sums;          // fast path: per node, the normalised sum (zero if none)

  // General path only.
  std::vector<int32_t> group;  // per face: smoothgroup key
  std::vector<float> limit;    // per face: smoothangle, degrees
  std::vector<float> cos_limit;  // per face: its cosine (1 at or below 0, -1 at or above 180)
  std::vector<uint8_t> uv;     // per face: smoothuv
  std::vector<uint32_t> tri_face;
  std::vector<Vec3> tri_normal;  // unit, or zero when degenerate
  std::vector<uint8_t> hard;     // bit k: edge k -> k+1 is hard; empty unless any_hard
  std::vector<float> weight;     // per corner: interior angle in radians

  size_t corners() const { return triangle_base.back() * 3; }
  size_t mesh_of_triangle(size_t t) const {
    return size_t(std::upper_bound(triangle_base.begin(), triangle_base.end(), t) - triangle_base.begin()) - 1;
  }
};

// Sizes sum to the triangles (n - 2 each) and each is at least 3.
template <class T>
const T* rule(const std::vector<T>& v, size_t n, const Mesh& m, const char* what, Diagnostics* diags) {
  if (v.empty()) return nullptr;
  if (v.size() == n) return v.data();
  warn(diags, fmt::format("mesh \"{}\": smoothing {} has {} entries for {}: ignored for normals", m.name, what,
                          v.size(), n));
  return nullptr;
}

// Decision: rule arrays of the wrong length, and per-face rules of a mesh whose polygon_sizes do
// not add up to its triangles, are ignored with a warning (the faces are then its triangles).
MeshRules mesh_rules(const Mesh& m, const NormalOptions& o, Diagnostics* diags) {
  MeshRules r;
  r.polygons = !m.polygon_sizes.empty() && ops::polygons_fit(m);
  if (!m.polygon_sizes.empty() && !r.polygons)
    warn(diags, fmt::format("mesh \"{}\": polygon_sizes do not add up to its triangles: normals treat each "
                            "triangle as a face",
                            m.name));
  if (o.angle) return r;
  const size_t faces = r.polygons ? m.polygon_sizes.size() : m.triangles.size() / 3;
  const size_t corners = r.polygons ? m.triangles.size() / 3 + 2 * faces : m.triangles.size();
  const SmoothingRules& s = m.smoothing;
  r.group = rule(s.face_group, faces, m, "face_group", diags);
  r.angle = rule(s.face_angle, faces, m, "face_angle", diags);
  r.uv = rule(s.face_uv, faces, m, "face_uv", diags);
  r.edge = rule(s.corner_edge, corners, m, "corner_edge", diags);
  r.keyed = rule(s.vertex_key, m.vertex_count(), m, "vertex_key", diags) != nullptr;
  return r;
}

// Decision: a mesh without positions is skipped (with a warning when it has anything else);
// every selected mesh is checked (ops::check_mesh) before any is changed.
Work select_meshes(Scene& scene, const NormalOptions& o, Diagnostics* diags) {
  Work w;
  w.angle = o.angle;
  for (Mesh& m : scene.meshes) {
    if (m.topology != Topology::Triangles) continue;  // lines and points have no faces to shade
    if (m.find(Attribute::Normal) && !o.recompute) continue;
    if (!m.find(Attribute::Position)) {
      if (!m.streams.empty() || !m.triangles.empty())
        warn(diags, fmt::format("mesh \"{}\" has no positions: no normals generated", m.name));
      continue;
    }
    ops::check_mesh(m);
    w.meshes.push_back(&m);
  }
  for (Mesh* m : w.meshes) {
    w.rules.push_back(mesh_rules(*m, o, diags));
    const MeshRules& r = w.rules.back();
    w.vertex_base.push_back(w.vertex_base.back() + m->vertex_count());
    w.triangle_base.push_back(w.triangle_base.back() + m->triangles.size() / 3);
    w.face_base.push_back(w.face_base.back() + (r.polygons ? m->polygon_sizes.size() : m->triangles.size() / 3));
  }
  if (w.corners() >= 0xFFFFFFFFu || w.vertex_base.back() >= 0xFFFFFFFFu)
    fail("", "generate_normals: more than 2^32 vertices or triangle corners");
  return w;
}

// True when no test can separate two corners of a node: one smoothgroup key, every smoothangle
// at least 180, no smoothuv, no hard edge. Sets any_hard and any_uv.
void classify(Work& w) {
  bool one_group = true, all_smooth = !w.angle || *w.angle >= kSmoothAll;
  int32_t first_group = 0;
  bool have_group = false;
  auto see_group = [&](int32_t g) {
    if (!have_group) first_group = g, have_group = true;
    one_group = one_group && g == first_group;
  };
  for (size_t i = 0; i < w.meshes.size(); ++i) {
    const MeshRules& r = w.rules[i];
    const size_t faces = w.face_base[i + 1] - w.face_base[i];
    const size_t corners = w.meshes[i]->smoothing.corner_edge.size();
    if (faces == 0) continue;
    if (r.group)
      std::for_each(r.group, r.group + faces, see_group);
    else
      see_group(-1);
    auto smooths_all = [](float a) { return a >= kSmoothAll; };
    if (r.angle) all_smooth = all_smooth && std::all_of(r.angle, r.angle + faces, smooths_all);
    if (r.uv) w.any_uv = w.any_uv || std::find(r.uv, r.uv + faces, uint8_t(1)) != r.uv + faces;
    if (r.edge) w.any_hard = w.any_hard || std::find(r.edge, r.edge + corners, uint8_t(0)) != r.edge + corners;
  }
  w.simple = one_group && all_smooth && !w.any_uv && !w.any_hard;
}

// ---- Smoothing nodes -------------------------------------------------------------------------

// Position classes of every processed vertex (ops::position_ids), and the node of every corner:
// its position class, or in keyed meshes one class per distinct vs key, numbered after them.
void build_nodes(Work& w) {
  std::vector<float> xyz(w.vertex_base.back() * 3);
  for (size_t i = 0; i < w.meshes.size(); ++i) {
    const VertexStream& p = *w.meshes[i]->find(Attribute::Position);
    float* out = xyz.data() + w.vertex_base[i] * 3;
    for (size_t v = 0; v < p.vertex_count(); ++v)
      for (uint32_t c = 0; c < 3; ++c) *out++ = p.get(v, c);
  }
  w.position = ops::position_ids(xyz, &w.nodes);
  xyz = {};
  std::vector<int32_t> keys;
  for (size_t i = 0; i < w.meshes.size(); ++i)
    if (w.rules[i].keyed) keys.insert(keys.end(), w.meshes[i]->smoothing.vertex_key.begin(),
                                      w.meshes[i]->smoothing.vertex_key.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  w.node.resize(w.corners());
  for (size_t i = 0; i < w.meshes.size(); ++i) {
    const std::vector<uint32_t>& tris = w.meshes[i]->triangles;
    uint32_t* out = w.node.data() + w.triangle_base[i] * 3;
    if (!w.rules[i].keyed) {
      const uint32_t* pos = w.position.data() + w.vertex_base[i];
      for (size_t c = 0; c < tris.size(); ++c) out[c] = pos[tris[c]];
      continue;
    }
    const std::vector<int32_t>& vk = w.meshes[i]->smoothing.vertex_key;
    for (size_t c = 0; c < tris.size(); ++c)
      out[c] = w.nodes + uint32_t(std::lower_bound(keys.begin(), keys.end(), vk[tris[c]]) - keys.begin());
  }
  w.nodes += uint32_t(keys.size());
}

// ---- Faces, triangles, corner angles ---------------------------------------------------------

// A triangle's unit normal and corner angles, computed in double (so neither slivers nor huge or
// tiny coordinates lose the normal). The angle at a corner is atan2(|cross|, dot of its two
// edges), accurate for thin triangles where acos is not; portable_atan2 (core/angle.h), not the
// C library's, so the normals are the same bits on every platform, rounded to float.
struct TriangleGeometry {
  Vec3 normal{0, 0, 0};                  // zero when degenerate
  float angle[3] = {0, 0, 0};            // zero when degenerate
  std::array<double, 3> cross{0, 0, 0};  // cross(b - a, c - a), for the face normal
};

TriangleGeometry triangle_geometry(const VertexStream& p, const uint32_t* tri) {
  using D = std::array<double, 3>;
  auto at = [&p](uint32_t v) { return D{p.get(v, 0), p.get(v, 1), p.get(v, 2)}; };
  auto sub = [](const D& x, const D& y) { return D{x[0] - y[0], x[1] - y[1], x[2] - y[2]}; };
  auto dot = [](const D& x, const D& y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; };
  const D a = at(tri[0]), b = at(tri[1]), c = at(tri[2]);
  const D ab = sub(b, a), bc = sub(c, b), ac = sub(c, a);
  const D n{ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
  TriangleGeometry g;
  const double l = std::sqrt(dot(n, n));
  if (!(l > 0) || !std::isfinite(l)) return g;  // degenerate: contributes nothing
  g.cross = n;
  g.normal = {float(n[0] / l) + 0.0f, float(n[1] / l) + 0.0f, float(n[2] / l) + 0.0f};
  g.angle[0] = float(portable_atan2(l, dot(ab, ac)));
  g.angle[1] = float(portable_atan2(l, -dot(ab, bc)));
  g.angle[2] = float(portable_atan2(l, dot(ac, bc)));
  return g;
}

// The unit vector along a sum of triangle cross products, zero when degenerate.
Vec3 face_unit(const std::array<double, 3>& s) {
  double l = std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  if (!(l > 0) || !std::isfinite(l)) return {0, 0, 0};
  return {float(s[0] / l) + 0.0f, float(s[1] / l) + 0.0f, float(s[2] / l) + 0.0f};
}

// Hard-edge bits of fan triangle i (1..n-2) of a face with corner flags e[0..n-1]: its edge
// 0 -> 1 is polygon edge 0 only for i == 1, edge 1 -> 2 is polygon edge i, edge 2 -> 0 is polygon
// edge n-1 only for i == n-2; the others are inner diagonals, always smooth.
uint8_t hard_bits(const uint8_t* e, uint32_t n, uint32_t i) {
  uint8_t bits = 0;
  if (i == 1 && !e[0]) bits |= 1;
  if (!e[i]) bits |= 2;
  if (i == n - 2 && !e[n - 1]) bits |= 4;
  return bits;
}

float cos_degrees(float a) {
  if (!(a > 0)) return 1;
  if (a >= kSmoothAll) return -1;
  return float(std::cos(double(a) * (3.14159265358979323846 / 180.0)));
}

// The general path's per-face rules and per-triangle edge flags of mesh i's face f.
void face_rules(Work& w, size_t i, size_t f, size_t first_tri, size_t first_corner, uint32_t n) {
  const MeshRules& r = w.rules[i];
  const size_t F = w.face_base[i] + f;
  w.group[F] = r.group ? r.group[f] : -1;
  const float limit = w.angle ? *w.angle : r.angle ? r.angle[f] : kSmoothAll;
  w.limit[F] = limit;
  w.cos_limit[F] = F > 0 && w.limit[F - 1] == limit ? w.cos_limit[F - 1] : cos_degrees(limit);
  w.uv[F] = r.uv && r.uv[f];
  for (uint32_t k = 1; k + 1 < n; ++k) {
    const size_t T = w.triangle_base[i] + first_tri + k - 1;
    w.tri_face[T] = uint32_t(F);
    if (!w.hard.empty()) w.hard[T] = r.edge ? hard_bits(r.edge + first_corner, n, k) : 0;
  }
}

// Every triangle's normal and corner angles. Fast path: added straight into the node sums;
// general path: kept per triangle and corner, with the per-face rules.
void build_mesh_geometry(Work& w, size_t i) {
  const Mesh& m = *w.meshes[i];
  const MeshRules& r = w.rules[i];
  const VertexStream& p = *m.find(Attribute::Position);
  const size_t faces = w.face_base[i + 1] - w.face_base[i];
  size_t t = 0, corner = 0;
  for (size_t f = 0; f < faces; ++f) {
    const uint32_t n = r.polygons ? m.polygon_sizes[f] : 3;
    if (!w.simple) face_rules(w, i, f, t, corner, n);
    std::array<double, 3> sum{0, 0, 0};
    const size_t first_tri = w.triangle_base[i] + t;
    for (uint32_t k = 1; k + 1 < n; ++k, ++t) {
      const size_t T = w.triangle_base[i] + t;
      TriangleGeometry g = triangle_geometry(p, &m.triangles[t * 3]);
      for (int a = 0; a < 3; ++a) sum[a] += g.cross[a];
      if (w.simple) {
        for (int c = 0; c < 3; ++c) {
          Vec3& s = w.sums[w.node[T * 3 + c]];
          s = s + g.normal * g.angle[c];
        }
      } else {
        w.tri_normal[T] = g.normal;
        for (int c = 0; c < 3; ++c) w.weight[T * 3 + c] = g.angle[c];
      }
    }
    const Vec3 fn = face_unit(sum);
    for (size_t T = first_tri; T < w.triangle_base[i] + t; ++T) w.face_of_tri[T] = fn;
    corner += n;
  }
}

void build_geometry(Work& w) {
  const size_t tris = w.triangle_base.back();
  w.face_of_tri.resize(tris);
  if (w.simple) {
    w.sums.assign(w.nodes, Vec3{0, 0, 0});
  } else {
    const size_t faces = w.face_base.back();
    w.group.resize(faces);
    w.limit.resize(faces);
    w.cos_limit.resize(faces);
    w.uv.resize(faces);
    w.tri_face.resize(tris);
    w.tri_normal.resize(tris);
    w.weight.resize(tris * 3);
    if (w.any_hard) w.hard.resize(tris);
  }
  for (size_t i = 0; i < w.meshes.size(); ++i) build_mesh_geometry(w, i);
  for (Vec3& s : w.sums) s = unit_sum(s);
}

// ---- The general path: pairwise tests per bucket ---------------------------------------------

struct Corner {
  uint32_t id;  // global corner
  uint32_t face;
  int32_t group;
  float limit, cos_limit;
  bool uv_on;
  bool hard_next, hard_prev;  // the edges leaving and reaching this corner
  uint32_t u, v;              // texture coordinate bits, -0 folded onto +0
  uint32_t next, prev;        // nodes at the other ends of those edges
  uint32_t wedge;
  Vec3 face_normal;
  Vec3 contrib;  // triangle normal * corner angle
};

uint32_t uv_bits(float f) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  return b == 0x80000000u ? 0u : b;
}

Corner make_corner(const Work& w, uint32_t id) {
  const uint32_t t = id / 3, k = id % 3, f = w.tri_face[t];
  Corner c{};
  c.id = id;
  c.face = f;
  c.group = w.group[f];
  c.limit = w.limit[f];
  c.cos_limit = w.cos_limit[f];
  c.uv_on = w.uv[f] != 0;
  uint8_t hard = w.hard.empty() ? 0 : w.hard[t];
  c.hard_next = (hard >> k) & 1;
  c.hard_prev = (hard >> ((k + 2) % 3)) & 1;
  c.next = w.node[t * 3 + (k + 1) % 3];
  c.prev = w.node[t * 3 + (k + 2) % 3];
  c.face_normal = w.face_of_tri[t];
  c.contrib = w.tri_normal[t] * w.weight[id];
  if (w.any_uv) {
    size_t i = w.mesh_of_triangle(t);
    const Mesh& m = *w.meshes[i];
    if (const VertexStream* tc = m.find(Attribute::Texcoord)) {
      uint32_t vertex = m.triangles[(t - w.triangle_base[i]) * 3 + k];
      c.u = uv_bits(tc->get(vertex, 0));
      c.v = uv_bits(tc->get(vertex, 1));
    }
  }
  return c;
}

// Test 2: the angle between the face normals within the smaller smoothangle. The dot product
// decides unless it is within 1e-5 of the limit's cosine; near the limit the angle itself is
// computed. (Unit normals in float: the dot is within 3e-7 of the angle's cosine, so outside the
// band the decision is the angle's, tolerance included.)
bool angle_ok(const Corner& a, const Corner& b) {
  if (a.face == b.face) return true;
  if (std::isnan(a.limit) || std::isnan(b.limit)) return false;
  const float limit = std::min(a.limit, b.limit);
  if (limit >= kSmoothAll) return true;
  if (is_zero(a.face_normal) || is_zero(b.face_normal)) return true;
  const Vec3& x = a.face_normal;
  const Vec3& y = b.face_normal;
  const double d = double(x[0]) * y[0] + double(x[1]) * y[1] + double(x[2]) * y[2];
  const double cos_limit = std::max(a.cos_limit, b.cos_limit);  // the cosine of the smaller angle
  if (d > cos_limit + 1e-5) return true;
  if (d < cos_limit - 1e-5) return false;
  double c0 = double(x[1]) * y[2] - double(x[2]) * y[1], c1 = double(x[2]) * y[0] - double(x[0]) * y[2],
         c2 = double(x[0]) * y[1] - double(x[1]) * y[0];
  double angle = portable_atan2(std::sqrt(c0 * c0 + c1 * c1 + c2 * c2), d) * (180.0 / 3.14159265358979323846);
  return angle <= double(limit) + kAngleTolerance;
}

// Test 5a: an edge through `node` that both corners' faces have, hard in either.
bool share_hard_edge(const Corner& a, const Corner& b, uint32_t node) {
  auto hit = [node](uint32_t x, bool hx, uint32_t y, bool hy) { return x == y && x != node && (hx || hy); };
  return hit(a.next, a.hard_next, b.next, b.hard_next) || hit(a.next, a.hard_next, b.prev, b.hard_prev) ||
         hit(a.prev, a.hard_prev, b.next, b.hard_next) || hit(a.prev, a.hard_prev, b.prev, b.hard_prev);
}

bool compatible(const Corner& a, const Corner& b, bool edges, uint32_t node) {
  if (!angle_ok(a, b)) return false;
  if ((a.uv_on || b.uv_on) && (a.u != b.u || a.v != b.v)) return false;
  if (edges && (a.wedge != b.wedge || share_hard_edge(a, b, node))) return false;
  return true;
}

uint32_t find_root(std::vector<uint32_t>& parent, uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// Test 5b: wedges, the classes of corners connected around `node` through smooth shared edges.
void set_wedges(std::span<Corner> b, uint32_t node) {
  struct End {
    uint32_t other, index;
    bool hard;
  };
  std::vector<End> ends;
  for (uint32_t i = 0; i < b.size(); ++i) {
    if (b[i].next != node) ends.push_back({b[i].next, i, b[i].hard_next});
    if (b[i].prev != node) ends.push_back({b[i].prev, i, b[i].hard_prev});
  }
  std::sort(ends.begin(), ends.end(),
            [](const End& x, const End& y) { return x.other != y.other ? x.other < y.other : x.index < y.index; });
  std::vector<uint32_t> parent(b.size());
  std::iota(parent.begin(), parent.end(), 0u);
  for (size_t r = 0; r < ends.size();) {
    size_t q = r;
    uint32_t first = kDropped;
    for (; q < ends.size() && ends[q].other == ends[r].other; ++q) {
      if (ends[q].hard) continue;
      if (first == kDropped)
        first = ends[q].index;
      else
        parent[find_root(parent, ends[q].index)] = find_root(parent, first);
    }
    r = q;
  }
  for (uint32_t i = 0; i < b.size(); ++i) b[i].wedge = find_root(parent, i);
}

struct Budget {
  uint64_t left = 0;
  size_t exceeded = 0;
};

// One bucket: corners of one node and smoothgroup key (and texture coordinates when every one
// of them has smoothuv). Each corner sums its compatible corners in bucket order. `edges`: the fs
// test is in force (wedges are set).
void smooth_bucket(std::span<Corner> b, uint32_t node, bool edges, Budget& budget, Vec3* out) {
  const uint64_t k = b.size();
  bool angles = false, uvs = false;
  for (const Corner& c : b) {
    angles = angles || !(c.limit >= kSmoothAll);
    uvs = uvs || c.uv_on;
  }
  bool pairwise = k > 1 && (angles || uvs || edges);
  if (pairwise && k * k > budget.left) {
    pairwise = false;
    ++budget.exceeded;
  }
  if (!pairwise) {
    Vec3 sum{0, 0, 0};
    for (const Corner& c : b) sum = sum + c.contrib;
    for (const Corner& c : b) out[c.id] = finish(sum, c.face_normal);
    return;
  }
  budget.left -= k * k;
  for (const Corner& c : b) {
    Vec3 sum{0, 0, 0};
    for (const Corner& d : b)
      if (&d == &c || compatible(c, d, edges, node)) sum = sum + d.contrib;
    out[c.id] = finish(sum, c.face_normal);
  }
}

// std::stable_sort without its buffer allocation for the usual handful of corners.
template <class It, class Less>
void stable_sort_small(It b, It e, Less less) {
  if (e - b < 2) return;  // also an empty range, whose iterators may hold null
  if (e - b > 16) return std::stable_sort(b, e, less);
  for (It i = b + 1; i < e; ++i)
    for (It j = i; j > b && less(*j, *(j - 1)); --j) std::iter_swap(j, j - 1);
}

// A node's corners (in corner order): runs by smoothgroup key; in a run where some corner
// touches a hard edge the fs test is in force and wedges are found over the whole run; then
// buckets by texture coordinates where every corner of the run has smoothuv on. Stable sorts
// keep corner order within a bucket.
void smooth_node(std::vector<Corner>& cs, uint32_t node, Budget& budget, Vec3* out) {
  stable_sort_small(cs.begin(), cs.end(), [](const Corner& a, const Corner& b) { return a.group < b.group; });
  // The corners [a, b) (a pointer and a count: Emscripten's libc++ has no span of two iterators).
  auto part = [&cs](std::vector<Corner>::iterator a, std::vector<Corner>::iterator b) {
    return std::span<Corner>(cs.data() + (a - cs.begin()), size_t(b - a));
  };
  for (auto r = cs.begin(); r != cs.end();) {
    auto q = std::find_if(r, cs.end(), [&](const Corner& c) { return c.group != r->group; });
    const bool edges = std::any_of(r, q, [](const Corner& c) { return c.hard_next || c.hard_prev; });
    if (edges) set_wedges(part(r, q), node);
    if (std::all_of(r, q, [](const Corner& c) { return c.uv_on; })) {
      stable_sort_small(r, q, [](const Corner& a, const Corner& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
      for (auto s = r; s != q;) {
        auto e = std::find_if(s, q, [&](const Corner& c) { return c.u != s->u || c.v != s->v; });
        smooth_bucket(part(s, e), node, edges, budget, out);
        s = e;
      }
    } else {
      smooth_bucket(part(r, q), node, edges, budget, out);
    }
    r = q;
  }
}

std::vector<Vec3> general_normals(const Work& w, Diagnostics* diags) {
  const size_t corners = w.corners();
  // Corners grouped by node, in corner order (counting sort).
  std::vector<uint32_t> start(size_t(w.nodes) + 1, 0);
  for (uint32_t n : w.node) ++start[n + 1];
  for (size_t n = 0; n < w.nodes; ++n) start[n + 1] += start[n];
  std::vector<uint32_t> order(corners);
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t c = 0; c < corners; ++c) order[fill[w.node[c]]++] = uint32_t(c);
  }
  std::vector<Vec3> out(corners);
  Budget budget{kPairBase + kPairsPerCorner * corners, 0};
  std::vector<Corner> cs;
  for (uint32_t n = 0; n < w.nodes; ++n) {
    cs.clear();
    for (uint32_t i = start[n]; i < start[n + 1]; ++i) cs.push_back(make_corner(w, order[i]));
    smooth_node(cs, n, budget, out.data());
  }
  if (budget.exceeded)
    warn(diags, fmt::format("normals: {} positions are shared by too many corners to test pairwise: their corners "
                            "were smoothed together, ignoring smoothangle, smoothuv and fs",
                            budget.exceeded));
  return out;
}

// ---- Output ----------------------------------------------------------------------------------

bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(a.data(), b.data(), sizeof(Vec3)) == 0; }

void set_normal_stream(Mesh& m, const std::vector<Vec3>& normals) {
  VertexStream* s = m.find(Attribute::Normal);
  if (!s) {
    m.streams.emplace_back();
    s = &m.streams.back();
    s->attribute = Attribute::Normal;
  }
  s->name.clear();
  s->custom_slot = -1;
  s->format = ComponentType::Float;
  s->source_size = 3;
  s->components = 3;
  s->data.resize(normals.size() * 3);
  float* out = s->data.data();
  for (const Vec3& n : normals) out = std::copy(n.begin(), n.end(), out);
}

// Whether two vertices of mesh i share a position: only then can welding find anything, as a
// split copy differs from its vertex's other copies by its normal. `seen` has one entry per
// position class, reused across meshes.
bool shares_positions(const Work& w, size_t i, std::vector<uint32_t>& seen) {
  for (size_t v = w.vertex_base[i]; v < w.vertex_base[i + 1]; ++v) {
    uint32_t& s = seen[w.position[v]];
    if (s == uint32_t(i)) return true;
    s = uint32_t(i);
  }
  return false;
}

// A corner whose normal differs from the first normal its vertex got.
struct Extra {
  uint32_t vertex, corner;
  std::array<uint32_t, 3> bits;
  bool operator<(const Extra& o) const {
    if (vertex != o.vertex) return vertex < o.vertex;
    if (bits != o.bits) return bits < o.bits;
    return corner < o.corner;
  }
  bool same_normal(const Extra& o) const { return vertex == o.vertex && bits == o.bits; }
};

// Splits the vertices listed in `extras` (sorted): one copy per distinct normal, right after
// the vertex, in order of first use. `normals` holds each vertex's first normal.
void split_vertices(Mesh& m, std::vector<Extra>& extras, const std::vector<Vec3>& normals) {
  const size_t count = normals.size();
  std::vector<uint32_t> leads;  // index of each run of equal (vertex, normal) in extras
  for (size_t e = 0; e < extras.size(); ++e)
    if (e == 0 || !extras[e].same_normal(extras[e - 1])) leads.push_back(uint32_t(e));
  std::sort(leads.begin(), leads.end(), [&](uint32_t a, uint32_t b) {
    return extras[a].vertex != extras[b].vertex ? extras[a].vertex < extras[b].vertex
                                                : extras[a].corner < extras[b].corner;
  });
  std::vector<uint32_t> source, primary(count), copy_index(extras.size());
  std::vector<Vec3> out;
  source.reserve(count + leads.size());
  out.reserve(count + leads.size());
  size_t u = 0;
  for (uint32_t v = 0; v < count; ++v) {
    primary[v] = uint32_t(source.size());
    source.push_back(v);
    out.push_back(normals[v]);
    for (; u < leads.size() && extras[leads[u]].vertex == v; ++u) {
      copy_index[leads[u]] = uint32_t(source.size());
      source.push_back(v);
      out.push_back(std::bit_cast<Vec3>(extras[leads[u]].bits));
    }
  }
  for (uint32_t& i : m.triangles) i = primary[i];
  for (size_t e = 0, lead = 0; e < extras.size(); ++e) {
    if (!extras[e].same_normal(extras[lead])) lead = e;
    m.triangles[extras[e].corner] = copy_index[lead];
  }
  ops::gather_vertices(m, source);
  set_normal_stream(m, out);
}

// Gives mesh i the normals of its corners, normal_of(c) for global corner c: each (vertex,
// normal) pair becomes a vertex; an unused vertex gets (0, 1, 0). Then bit-identical vertices
// are welded.
template <class NormalOf>
void apply_normals(const Work& w, size_t i, NormalOf normal_of, std::vector<uint32_t>& seen) {
  Mesh& m = *w.meshes[i];
  const size_t count = m.vertex_count(), base = w.triangle_base[i] * 3;
  std::vector<Vec3> normals(count, kUp);
  std::vector<uint32_t> first(count, kDropped);  // first corner of each vertex
  std::vector<Extra> extras;
  for (size_t c = 0; c < m.triangles.size(); ++c) {
    const uint32_t v = m.triangles[c];
    const Vec3 n = normal_of(base + c);
    if (first[v] == kDropped) {
      first[v] = uint32_t(c);
      normals[v] = n;
    } else if (!same_bits(n, normals[v])) {
      extras.push_back({v, uint32_t(c), std::bit_cast<std::array<uint32_t, 3>>(n)});
    }
  }
  const bool weld = shares_positions(w, i, seen);
  if (extras.empty()) {
    set_normal_stream(m, normals);
  } else {
    std::sort(extras.begin(), extras.end());
    split_vertices(m, extras, normals);
  }
  if (weld) ops::weld_mesh(m);
}

}  // namespace

size_t generate_normals(Scene& scene, const NormalOptions& options, Diagnostics* diags) {
  if (options.angle && std::isnan(*options.angle))
    fail("", "the normal smoothing angle must be a number of degrees, got NaN");
  Work w = select_meshes(scene, options, diags);
  if (w.meshes.empty()) return 0;
  classify(w);
  build_nodes(w);
  build_geometry(w);
  std::vector<uint32_t> seen(w.nodes, kDropped);
  if (w.simple) {
    auto normal_of = [&w](size_t c) {
      const Vec3& n = w.sums[w.node[c]];
      return is_zero(n) ? finish(n, w.face_of_tri[c / 3]) : n;
    };
    for (size_t i = 0; i < w.meshes.size(); ++i) apply_normals(w, i, normal_of, seen);
  } else {
    std::vector<Vec3> cn = general_normals(w, diags);
    for (size_t i = 0; i < w.meshes.size(); ++i) apply_normals(w, i, [&cn](size_t c) { return cn[c]; }, seen);
  }
  return w.meshes.size();
}

}  // namespace meshport
