// Tangent frames equal to MikkTSpace's, written from the published description of the algorithm
// (M. S. Mikkelsen, "Simulation of Wrinkled Surfaces Revisited", 2008, and the documentation of
// mikktspace.h as used by Blender and required by glTF 2.0).
//
// CONVENTION. The Scene holds glTF texture coordinates: v grows downwards from the image top.
// Blender runs MikkTSpace on its own coordinates, whose v grows upwards (v_blender = 1 - v_gltf),
// and its glTF exporter writes Blender's tangent xyz and Blender's bitangent sign unchanged (the
// axis change leaves the sign alone), only flipping v to 1 - v. So that our tangents equal Blender's
// exported ones, every UV-derived quantity here is computed with v negated (Blender's v axis);
// the tangent direction (dP/du) does not depend on that choice, the orientation does:
//   w = +1 when the triangle's (u, -v) area is positive ("orientation preserving"), else -1.
// With glTF's bitangent = w * cross(normal, tangent), the bitangent then points the way the
// image's "up" (decreasing glTF v) runs across the surface, which is where glTF's normal textures
// keep +Y. Feeding raw glTF UVs to MikkTSpace would negate every w (glTF-Sample-Models issue 174).
//
// THE STEPS, in MikkTSpace's order, one function each below:
//   weld_vertices       corners with bit-identical position, normal and texcoord are one vertex
//   build_faces         a quad of the Scene's polygons is split along its shorter UV diagonal
//   mark_degenerate     triangles with two corners at one position are left out (DegenPrologue)
//   init_triangles      per-triangle tangent dP/du and orientation from the sign of the UV area;
//                       triangles with no usable derivative "group with any" neighbour
//   build_neighbors     triangles sharing an edge (welded ends, opposite directions) are paired
//   build_groups        the 4-rule groups: per welded vertex, the triangles around it connected
//                       through shared edges and having the same orientation
//   accumulate_groups   group tangent = normalised sum of the face tangents projected into the
//                       plane of the vertex normal, weighted by the corner angle in that plane
//   write_frames        each corner takes its group's frame (quad corners average two)
//   degen_epilogue      corners of left-out triangles copy the frame of a good corner of the same
//                       welded vertex; otherwise they keep the default (x axis, w = -1)
//   split_vertices      each (vertex, frame) pair becomes a vertex
//
// WHERE THIS DIFFERS FROM MIKKTSPACE (deliberately):
//   - No angular "subgroup" split: Blender's current implementation has none either; the original
//     C code splits only projected face tangents that are exactly opposite (cos <= -1 at its
//     default 180 degree threshold).
//   - The corner angle uses a polynomial acos within 5e-7 rad (Blender's is within 4.5e-5).
//   - Normals are normalised before projecting (MikkTSpace assumes unit normals).
//   - Float comparisons are on bits with -0 == +0 and every NaN equal to every NaN, so NaN input
//     welds and sorts deterministically (MikkTSpace never welds NaN).
//   - Polygons of 5+ corners are their fan triangles (Blender tessellates them itself).
//   - The result is projected once more onto the corner's own normal and normalised; a tangent
//     that is zero or not finite (e.g. the default x axis along the normal, NaN input) becomes
//     default_tangent(normal). Vertices no triangle uses get default_tangent with w = +1.
//
// Cost: O(vertices + triangles) plus a sort of each welded vertex's (small) edge list; about 60
// bytes per triangle and 120 per vertex of temporary memory (the weld's keys are not kept).
#include <meshport/process.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/filled.h"
#include "core/math.h"
#include "ops/mesh/remap.h"

namespace meshport {
namespace {

constexpr uint32_t kUnset = 0xFFFFFFFFu;

// Triangle flags (MikkTSpace's names).
constexpr uint8_t kDegenerate = 1;          // MARK_DEGENERATE: two corners at one position
constexpr uint8_t kGroupWithAny = 2;        // GROUP_WITH_ANY: no tangent of its own
constexpr uint8_t kOrientPreserving = 4;    // ORIENT_PRESERVING: positive UV area, w = +1
constexpr uint8_t kQuadOneDegenerate = 8;   // QUAD_ONE_DEGEN_TRI: the other half is degenerate

uint32_t next3(uint32_t i) { return i == 2 ? 0 : i + 1; }
uint32_t prev3(uint32_t i) { return i == 0 ? 2 : i - 1; }

// Bits of a float for equality and hashing: -0 is +0, every NaN is one NaN.
uint32_t canonical_bits(float f) {
  if (std::isnan(f)) return 0x7FC00000u;
  if (f == 0.0f) return 0;
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

bool not_zero(float x) { return std::fabs(x) > FLT_MIN; }

bool finite(Vec3 v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

// v projected into the plane perpendicular to the unit vector n, normalised (zero stays zero).
Vec3 project(Vec3 n, Vec3 v) { return normalize(v - n * dot(n, v)); }

// A unit tangent perpendicular to n for corners without UV information: the x axis (MikkTSpace's
// default) made perpendicular, or the y axis when n is too close to x.
Vec3 default_tangent(Vec3 n) {
  Vec3 axis = std::fabs(n[0]) < 0.9f ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
  Vec3 t = project(n, axis);
  if (!finite(t) || std::fabs(length(t) - 1.0f) > 1e-3f) return {1, 0, 0};
  return t;
}

// Runs fn(begin, end) over [0, n) in `threads` parts, all but the first on threads of their
// own, when n is large enough to pay for threads. Every use writes only elements of its own
// part, so the result is the sequential one for any count; exceptions reach the caller.
constexpr size_t kParallelMin = size_t(1) << 15;

// How many parts in_parts cuts [0, n) into.
size_t part_count(unsigned threads, size_t n) {
  if (threads <= 1 || n < kParallelMin) return 1;
  return std::min<size_t>(threads, n / (kParallelMin / 2));
}

// in_parts with the part's number: fn(part, begin, end), part < part_count(threads, n).
template <class F>
void in_numbered_parts(unsigned threads, size_t n, F&& fn) {
  const size_t parts = part_count(threads, n);
  if (parts == 1) return fn(size_t(0), size_t(0), n);
  std::vector<std::exception_ptr> errors(parts);
  std::vector<std::thread> pool;
  size_t started = 1;
  for (; started < parts; ++started) {
    try {
      pool.emplace_back([&, p = started] {
        try {
          fn(p, n * p / parts, n * (p + 1) / parts);
        } catch (...) {
          errors[p] = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the rest are done here
    }
  }
  try {
    fn(size_t(0), size_t(0), n / parts);
    for (size_t p = started; p < parts; ++p) fn(p, n * p / parts, n * (p + 1) / parts);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

template <class F>
void in_parts(unsigned threads, size_t n, F&& fn) {
  in_numbered_parts(threads, n, [&](size_t, size_t begin, size_t end) { fn(begin, end); });
}

// Arrays written in full right after they are sized are Filled (core/filled.h): each page is
// first touched (and cleared by the system) by the thread that writes it.

// ---- Input ---------------------------------------------------------------------------------

struct Input {
  uint32_t vertex_count = 0;
  unsigned threads = 1;             // for in_parts
  // Positions: the Scene's own array when it has 3 or more components a vertex (read in place:
  // no copy), else position_copy (x y z, 0 for what is missing).
  const float* position = nullptr;
  size_t position_stride = 3;
  Filled<float> position_copy;
  Filled<Vec3> normal;              // normalised, for projections
  Filled<float> texcoord;           // u, -v per vertex: MikkTSpace's (Blender's) v axis
  const VertexStream* given_normal = nullptr;  // the normals as given, which the weld compares

  Vec3 pos(size_t v) const {
    const float* p = position + v * position_stride;
    return {p[0], p[1], p[2]};
  }
};

// Component c of vertex v of a stream, 0 past its components.
float value(const VertexStream& s, size_t v, uint32_t c) {
  return c < s.components ? s.data[v * s.components + c] : 0.0f;
}

void read_vertex(const VertexStream& ps, const VertexStream& ns, const VertexStream& ts, Input& in, size_t v) {
  if (!in.position_copy.empty())
    for (uint32_t c = 0; c < 3; ++c) in.position_copy[3 * v + c] = value(ps, v, c);
  const Vec3 n{value(ns, v, 0), value(ns, v, 1), value(ns, v, 2)};
  const float u = value(ts, v, 0), tv = value(ts, v, 1);
  in.normal[v] = normalize(n);
  in.texcoord[2 * v] = u;
  in.texcoord[2 * v + 1] = -tv;
}

Input read_input(const Mesh& m, unsigned threads) {
  const VertexStream& ps = *m.find(Attribute::Position);
  const VertexStream& ns = *m.find(Attribute::Normal);
  const VertexStream& ts = *m.find(Attribute::Texcoord);
  Input in;
  in.threads = threads;
  in.vertex_count = uint32_t(m.vertex_count());
  if (ps.components >= 3) {
    in.position = ps.data.data();
    in.position_stride = ps.components;
  } else {
    in.position_copy.resize(size_t(in.vertex_count) * 3);
    in.position = in.position_copy.data();
  }
  in.normal.resize(in.vertex_count);
  in.texcoord.resize(size_t(in.vertex_count) * 2);
  in.given_normal = &ns;
  in_parts(in.threads, in.vertex_count, [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) read_vertex(ps, ns, ts, in, v);
  });
  return in;
}

bool same_position(const Input& in, uint32_t a, uint32_t b) {
  const Vec3 p = in.pos(a), q = in.pos(b);
  return canonical_bits(p[0]) == canonical_bits(q[0]) && canonical_bits(p[1]) == canonical_bits(q[1]) &&
         canonical_bits(p[2]) == canonical_bits(q[2]);
}

// The 8 canonical words a vertex is welded by: its position, its normal as given (not
// normalised), u and v. Computed where needed rather than kept (32 bytes a vertex).
struct Key {
  uint32_t w[8];
  bool operator==(const Key& o) const { return std::memcmp(w, o.w, sizeof w) == 0; }
};
Key key_of(const Input& in, uint32_t v) {
  Key k;
  const Vec3 p = in.pos(v);
  for (uint32_t c = 0; c < 3; ++c) k.w[c] = canonical_bits(p[c]);
  for (uint32_t c = 0; c < 3; ++c) k.w[3 + c] = canonical_bits(value(*in.given_normal, v, c));
  k.w[6] = canonical_bits(in.texcoord[2 * size_t(v)]);
  k.w[7] = canonical_bits(-in.texcoord[2 * size_t(v) + 1]);  // v itself: -(-v), exact
  return k;
}

// ---- Step: weld (GenerateSharedVerticesIndexList) ------------------------------------------
// welded[v] = the first vertex whose position, normal and texcoord equal v's. A hash table with
// linear probing over the 8 canonical words, cut into `parts` (a power of two) tables by the
// hash's top bits: equal vertices hash alike, so each lands in one part, whose thread inserts its
// vertices in index order. Every vertex thus meets the first of its equals first, for any count
// of parts; with one core the parts are filled one after another.
Filled<uint32_t> weld_vertices(const Input& in) {
  const uint32_t n = in.vertex_count;
  int bits = 1;
  while ((size_t(1) << bits) < size_t(n) * 2) ++bits;
  const size_t workers = part_count(in.threads, n);
  int part_bits = 0;
  while ((size_t(2) << part_bits) <= std::min<size_t>(workers, 8)) ++part_bits;
  part_bits = std::min(part_bits, bits - 1);
  const size_t parts = size_t(1) << part_bits, part_size = size_t(1) << (bits - part_bits);
  const size_t mask = part_size - 1;
  // Each vertex's hash, its top 32 bits: the top `bits` are its first table slot (the top
  // `part_bits` its part), and all 32 tell most unequal keys apart without looking at them.
  Filled<uint32_t> home(n);
  auto slot_of_hash = [&](uint32_t h) { return size_t(uint64_t(h) >> (32 - bits)); };
  in_parts(in.threads, n, [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) {
      const Key k = key_of(in, uint32_t(v));
      uint64_t h = 0;
      for (int c = 0; c < 8; ++c) h = (h ^ k.w[c]) * 0x9E3779B97F4A7C15ull;
      home[v] = uint32_t(h >> 32);
    }
  });
  Filled<uint32_t> table(parts * part_size);
  Filled<uint32_t> welded(n);
  constexpr uint32_t kAhead = 16;  // the table is large: fetch slots before they are needed
  in_numbered_parts(in.threads, n, [&](size_t worker, size_t, size_t) {
    for (size_t part = worker; part < parts; part += workers) {
      uint32_t* t = table.data() + part * part_size;
      std::fill_n(t, part_size, kUnset);
      for (uint32_t v = 0; v < n; ++v) {
        if (uint64_t(home[v]) >> (32 - part_bits) != part) continue;
        if (v + kAhead < n && uint64_t(home[v + kAhead]) >> (32 - part_bits) == part)
          __builtin_prefetch(&table[slot_of_hash(home[v + kAhead])]);  // another part's slot is another thread's
        // Equal keys have equal hashes: an entry's key is looked at only when its hash is v's.
        const uint32_t hv = home[v];
        for (size_t slot = slot_of_hash(hv) & mask;; slot = (slot + 1) & mask) {
          const uint32_t e = t[slot];
          if (e == kUnset) {
            t[slot] = v;
            welded[v] = v;
            break;
          }
          if (home[e] == hv && key_of(in, e) == key_of(in, v)) {
            welded[v] = e;
            break;
          }
        }
      }
    }
  });
  return welded;
}

// ---- MikkTSpace's triangle list --------------------------------------------------------------

// A group's frame. The frames of quad corners averaged from two groups are appended as extra
// entries, so that every corner's frame is one index into this table.
struct Group {
  uint32_t vertex;  // welded vertex representative
  bool orient;      // orientation preserving: w = +1
  Vec3 tangent;     // set by every initialiser: the table is sized without filling it
};

// Triangle t's corners are 3t..3t+2; there are exactly as many triangles as the Scene has (a quad
// gives two either way, only its diagonal may differ). Each corner writes the frame of a Scene
// corner, its `slot`: itself for triangles; for quads, quad_slot() of its corner in the quad. The
// Scene corners of a quad's second fan triangle that repeat p0 and p2 are filled at the end.
struct Mikk {
  uint32_t tri_count = 0;
  const uint32_t* vertex = nullptr;  // per corner: Scene vertex (the Scene's triangles, or quad_vertex)
  std::vector<uint32_t> quad_vertex; // per corner, when the mesh has quads
  std::vector<uint32_t> slot;        // per corner, when the mesh has quads (else the corner itself)
  std::vector<uint8_t> face_vertex;  // per corner, when the mesh has quads: corner of its face 0..3
  std::vector<uint8_t> quad;         // per triangle, when the mesh has quads: 0 own face, 1 first / 2 second half
  Filled<uint32_t> weld;             // per Scene vertex: its welded vertex (weld_vertices)
  Filled<uint8_t> flags;             // per triangle
  Filled<Vec3> tangent;              // per triangle: unit dP/du
  Filled<uint32_t> neighbor;         // per corner: triangle across the edge leaving that corner
  Filled<uint32_t> start;            // per welded vertex + 1: its corners in `corners` (corners_by_vertex)
  Filled<uint32_t> corners;          // the corners of good triangles, by welded vertex, in triangle order
  Filled<uint32_t> group;            // per corner: its group
  Filled<Group> groups;              // sized in parts, each entry assigned whole
  Filled<uint32_t> frame;            // per Scene corner: index into groups, kUnset for the default
};

// Corner c's welded vertex, through its Scene vertex (a per-corner copy would take 4 bytes a corner).
uint32_t welded(const Mikk& m, size_t c) { return m.weld[m.vertex[c]]; }

bool has_quads(const Mikk& m) { return !m.quad.empty(); }
bool is_quad(const Mikk& m, uint32_t t) { return has_quads(m) && m.quad[t] != 0; }
uint32_t slot_of(const Mikk& m, uint32_t c) { return has_quads(m) ? m.slot[c] : c; }

// Scene corner of corner k (0..3) of the quad whose first Scene triangle is q: p0 p1 p2 p3 =
// (3q, 3q+1, 3q+2, 3q+5) since the fan is (p0 p1 p2) (p0 p2 p3).
uint32_t quad_slot(uint32_t q, uint32_t k) { return k < 3 ? 3 * q + k : 3 * q + 5; }
uint32_t quad_first(const Mikk& m, uint32_t t) { return m.quad[t] == 2 ? t - 1 : t; }

bool polygons_usable(const Mesh& mesh) {
  uint64_t tris = 0;
  bool quads = false;
  for (uint32_t n : mesh.polygon_sizes) {
    if (n < 3) return false;
    tris += n - 2;
    quads |= n == 4;
  }
  return quads && tris * 3 == mesh.triangles.size();
}

void set_triangle(Mikk& m, uint32_t t, uint32_t q, const std::array<uint8_t, 3>& fv, const Mesh& mesh) {
  for (uint32_t i = 0; i < 3; ++i) {
    m.face_vertex[3 * t + i] = fv[i];
    m.slot[3 * t + i] = quad_slot(q, fv[i]);
    m.quad_vertex[3 * t + i] = mesh.triangles[m.slot[3 * t + i]];
  }
}

// Step: faces (GenerateInitialVerticesIndexList). Triangles are their own faces; a 4-corner
// polygon of polygon_sizes is one quad face, split along its shorter texture-space diagonal
// (ties: the shorter position diagonal, then p0-p2).
void build_faces(const Mesh& mesh, const Input& in, Mikk& m) {
  const uint32_t tris = uint32_t(mesh.triangles.size() / 3);
  m.tri_count = tris;
  m.vertex = mesh.triangles.data();
  if (!polygons_usable(mesh)) return;
  m.quad_vertex = mesh.triangles;
  m.vertex = m.quad_vertex.data();
  m.slot.resize(size_t(tris) * 3);
  m.face_vertex.resize(size_t(tris) * 3);
  for (uint32_t c = 0; c < tris * 3; ++c) {
    m.slot[c] = c;
    m.face_vertex[c] = uint8_t(c % 3);
  }
  m.quad.assign(tris, 0);
  auto uv_dist2 = [&](uint32_t a, uint32_t b) {
    const float du = in.texcoord[2 * size_t(a)] - in.texcoord[2 * size_t(b)];
    const float dv = in.texcoord[2 * size_t(a) + 1] - in.texcoord[2 * size_t(b) + 1];
    return du * du + dv * dv;
  };
  auto pos_dist2 = [&](uint32_t a, uint32_t b) {
    const Vec3 d = in.pos(a) - in.pos(b);
    return dot(d, d);
  };
  uint32_t t = 0;
  for (uint32_t n : mesh.polygon_sizes) {
    const uint32_t* tri = &mesh.triangles[size_t(t) * 3];
    if (n == 4 && tri[3] == tri[0] && tri[4] == tri[2]) {  // the fan (p0 p1 p2) (p0 p2 p3)
      const uint32_t p[4] = {tri[0], tri[1], tri[2], tri[5]};
      const float d02 = uv_dist2(p[2], p[0]), d13 = uv_dist2(p[3], p[1]);
      const bool diag02 = d02 != d13 ? d02 < d13 : !(pos_dist2(p[3], p[1]) < pos_dist2(p[2], p[0]));
      set_triangle(m, t, t, diag02 ? std::array<uint8_t, 3>{0, 1, 2} : std::array<uint8_t, 3>{0, 1, 3}, mesh);
      set_triangle(m, t + 1, t, diag02 ? std::array<uint8_t, 3>{0, 2, 3} : std::array<uint8_t, 3>{1, 2, 3}, mesh);
      m.quad[t] = 1;
      m.quad[t + 1] = 2;
    }
    t += n - 2;
  }
}

// ---- Step: degenerate triangles (DegenPrologue) --------------------------------------------
// A triangle with two corners at the same position takes no part in grouping. When only one
// half of a quad is degenerate, the good half later fills the quad's missing corner.
void mark_degenerate(const Input& in, Mikk& m) {
  m.flags.resize(m.tri_count);
  in_parts(in.threads, m.tri_count, [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) {
      const uint32_t* v = m.vertex + t * 3;
      const bool degenerate =
          same_position(in, v[0], v[1]) || same_position(in, v[0], v[2]) || same_position(in, v[1], v[2]);
      m.flags[t] = degenerate ? kDegenerate : 0;
    }
  });
  if (!has_quads(m)) return;
  for (uint32_t t = 0; t < m.tri_count; ++t)
    if (m.quad[t] == 1 && ((m.flags[t] ^ m.flags[t + 1]) & kDegenerate)) {
      m.flags[t] |= kQuadOneDegenerate;
      m.flags[t + 1] |= kQuadOneDegenerate;
    }
}

bool good(const Mikk& m, uint32_t t) { return !(m.flags[t] & kDegenerate); }

// Twice the unsigned UV area of triangle t (CalcTexArea).
float tex_area(const Input& in, const Mikk& m, uint32_t t) {
  const uint32_t* v = m.vertex + size_t(t) * 3;
  const float* t1 = &in.texcoord[2 * size_t(v[0])];
  const float* t2 = &in.texcoord[2 * size_t(v[1])];
  const float* t3 = &in.texcoord[2 * size_t(v[2])];
  const float t21x = t2[0] - t1[0], t21y = t2[1] - t1[1], t31x = t3[0] - t1[0], t31y = t3[1] - t1[1];
  return std::fabs(t21x * t31y - t21y * t31x);
}

// ---- Step: per-triangle tangents (InitTriInfo) -----------------------------------------------
// dP/du = (dv2 * e1 - dv1 * e2) / area and dP/dv = (du1 * e2 - du2 * e1) / area (Mikkelsen's
// equations 18 and 19); orientation preserving when the UV area is positive. A triangle whose
// UV area or either derivative is zero "groups with any": it joins a neighbour's group.
void init_triangle(const Input& in, Mikk& m, uint32_t t) {
  const uint32_t* v = m.vertex + size_t(t) * 3;
  const Vec3 v1 = in.pos(v[0]), v2 = in.pos(v[1]), v3 = in.pos(v[2]);
  const float* t1 = &in.texcoord[2 * size_t(v[0])];
  const float* t2 = &in.texcoord[2 * size_t(v[1])];
  const float* t3 = &in.texcoord[2 * size_t(v[2])];
  const float t21x = t2[0] - t1[0], t21y = t2[1] - t1[1];
  const float t31x = t3[0] - t1[0], t31y = t3[1] - t1[1];
  const Vec3 d1 = v2 - v1, d2 = v3 - v1;
  const float area = t21x * t31y - t21y * t31x;
  const Vec3 os = d1 * t31y - d2 * t21y;
  const Vec3 ot = d2 * t21x - d1 * t31x;
  uint8_t flags = kGroupWithAny;
  if (area > 0) flags |= kOrientPreserving;
  m.tangent[t] = {0, 0, 0};
  if (not_zero(area)) {
    const float os2 = dot(os, os), ot2 = dot(ot, ot);
    const float sign = area > 0 ? 1.0f : -1.0f;
    if (not_zero(os2)) m.tangent[t] = os * (sign / std::sqrt(os2));
    if (not_zero(os2) && not_zero(ot2)) flags &= uint8_t(~kGroupWithAny);
  }
  m.flags[t] |= flags;
}

// The two halves of a quad must agree on orientation: the half that groups with any, or else
// the one with the smaller UV area, takes the other's.
void force_quad_orientation(const Input& in, Mikk& m, uint32_t t) {
  const uint32_t u = t + 1;
  if (!good(m, t) || !good(m, u) || !((m.flags[t] ^ m.flags[u]) & kOrientPreserving)) return;
  const bool first = (m.flags[u] & kGroupWithAny) || tex_area(in, m, t) >= tex_area(in, m, u);
  const uint32_t from = first ? t : u, to = first ? u : t;
  m.flags[to] = uint8_t((m.flags[to] & ~kOrientPreserving) | (m.flags[from] & kOrientPreserving));
}

void init_triangles(const Input& in, Mikk& m) {
  m.tangent.resize(m.tri_count);
  in_parts(in.threads, m.tri_count, [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t)
      if (good(m, uint32_t(t))) init_triangle(in, m, uint32_t(t));
      else m.tangent[t] = {0, 0, 0};
  });
  for (uint32_t t = 0; t < m.tri_count; ++t)
    if (is_quad(m, t) && m.quad[t] == 1) force_quad_orientation(in, m, t);
}

// ---- Step: neighbours (BuildNeighborsFast) ---------------------------------------------------
// Edge i of a triangle runs from corner i to corner i+1, between welded vertices. Each edge, in
// triangle order, is paired with the first later unpaired edge between the same two welded
// vertices running the opposite way. Edges are gathered per lower welded vertex from a list of
// every welded vertex's corners, then sorted by their higher vertex and triangle.

// One run of edges between the same two welded vertices, in triangle order, each entry
// (corner << 1 | forward). Every edge is in exactly one run, so all start unpaired. Greedy
// pairing in O(run): p[d] scans forward for the next unpaired edge of direction d.
void pair_run(Mikk& m, const uint64_t* run, size_t n, std::vector<uint8_t>& paired) {
  if (n == 2) {  // the usual case: the two sides of one edge
    if ((run[0] ^ run[1]) & 1) {
      const uint32_t a = uint32_t(run[0]) >> 1, b = uint32_t(run[1]) >> 1;
      m.neighbor[a] = b / 3;
      m.neighbor[b] = a / 3;
    }
    return;
  }
  paired.assign(n, 0);
  size_t p[2] = {0, 0};
  for (size_t k = 0; k < n; ++k) {
    if (paired[k]) continue;
    const uint32_t want = uint32_t(run[k] & 1) ^ 1;
    size_t& j = p[want];
    if (j <= k) j = k + 1;
    while (j < n && (paired[j] || (run[j] & 1) != want)) ++j;
    if (j == n) continue;
    paired[k] = paired[j] = 1;
    const uint32_t a = uint32_t(run[k]) >> 1, b = uint32_t(run[j]) >> 1;
    m.neighbor[a] = b / 3;
    m.neighbor[b] = a / 3;
    ++j;
  }
}

void sort_bucket(uint64_t* first, uint64_t* last) {
  if (last - first > 16) {
    std::sort(first, last);
    return;
  }
  for (uint64_t* i = first + 1; i < last; ++i)
    for (uint64_t* j = i; j > first && j[-1] > j[0]; --j) std::swap(j[-1], j[0]);
}

// The corners of each welded vertex, in triangle order: corners[start[w] .. start[w + 1]). A
// counting sort in parts of the triangles: each part counts its corners per vertex, then writes
// them after those of the parts before it, so the order is the sequential one.
void corners_by_vertex(const Input& in, Mikk& m) {
  const uint32_t vertices = in.vertex_count;
  const size_t parts = part_count(in.threads, m.tri_count);
  std::vector<std::vector<uint32_t>> count(parts);  // per part and vertex: its corners, then where they go
  in_numbered_parts(in.threads, m.tri_count, [&](size_t p, size_t begin, size_t end) {
    std::vector<uint32_t>& n = count[p];
    n.assign(vertices, 0);
    for (size_t t = begin; t < end; ++t)
      if (good(m, uint32_t(t)))
        for (size_t c = 3 * t; c < 3 * t + 3; ++c) ++n[welded(m, c)];
  });
  m.start.resize(size_t(vertices) + 1);
  uint32_t at = 0;
  for (uint32_t v = 0; v < vertices; ++v) {
    m.start[v] = at;
    for (size_t p = 0; p < parts; ++p) {
      const uint32_t k = count[p][v];
      count[p][v] = at;
      at += k;
    }
  }
  m.start[vertices] = at;
  m.corners.resize(at);
  in_numbered_parts(in.threads, m.tri_count, [&](size_t p, size_t begin, size_t end) {
    std::vector<uint32_t>& next = count[p];
    for (size_t t = begin; t < end; ++t)
      if (good(m, uint32_t(t)))
        for (size_t c = 3 * t; c < 3 * t + 3; ++c) m.corners[next[welded(m, c)]++] = uint32_t(c);
  });
}

void build_neighbors(const Input& in, Mikk& m) {
  m.neighbor.resize(size_t(m.tri_count) * 3);
  in_parts(in.threads, m.neighbor.size(), [&](size_t begin, size_t end) {
    std::fill(m.neighbor.begin() + std::ptrdiff_t(begin), m.neighbor.begin() + std::ptrdiff_t(end), kUnset);
  });
  corners_by_vertex(in, m);
  const Filled<uint32_t>& start = m.start;
  const Filled<uint32_t>& corners = m.corners;
  // Per welded vertex lo, the edges whose other end hi is higher: the edge leaving each corner
  // (forward) and the edge arriving at it, which belongs to the previous corner (backward).
  // Runs are independent, so the vertices are shared out.
  in_parts(in.threads, in.vertex_count, [&](size_t begin, size_t end) {
    std::vector<uint64_t> run;
    std::vector<uint8_t> paired;
    for (uint32_t lo = uint32_t(begin); lo < end; ++lo) {
      run.clear();
      for (uint32_t k = start[lo]; k < start[lo + 1]; ++k) {
        const uint32_t c = corners[k], base = c - c % 3;
        const uint32_t next = base + next3(c % 3), prev = base + prev3(c % 3);
        if (welded(m, next) > lo) run.push_back(uint64_t(welded(m, next)) << 32 | uint64_t(c) << 1 | 1);
        if (welded(m, prev) > lo) run.push_back(uint64_t(welded(m, prev)) << 32 | uint64_t(prev) << 1);
      }
      if (run.size() < 2) continue;
      uint64_t* first = run.data();
      uint64_t* last = first + run.size();
      sort_bucket(first, last);
      while (first < last) {
        uint64_t* stop = first + 1;
        while (stop < last && (*stop >> 32) == (*first >> 32)) ++stop;
        if (stop - first > 1) pair_run(m, first, size_t(stop - first), paired);
        first = stop;
      }
    }
  });
}

// ---- Step: the 4-rule groups (Build4RuleGroups) ----------------------------------------------
// Every corner of a triangle that does not group with any seeds a group at its welded vertex
// unless it already has one; the group grows, depth first (the edge leaving the corner before
// the edge arriving at it), through neighbours around that vertex with the same orientation. A
// group-with-any triangle takes the orientation of the first group that reaches it. An explicit
// stack replaces MikkTSpace's recursion (same visiting order, no stack overflow on huge fans).
// `label` is what the corners of the group get (grow_group_at: its seed corner, numbered later).
void grow_group_at(Mikk& m, uint32_t rep, bool orient, uint32_t label, std::vector<uint32_t>& stack) {
  while (!stack.empty()) {
    const uint32_t t = stack.back();
    stack.pop_back();
    if (t == kUnset) continue;
    uint32_t i = 0;
    while (i < 3 && welded(m, 3 * t + i) != rep) ++i;
    if (i == 3 || m.group[3 * t + i] != kUnset) continue;
    uint8_t& flags = m.flags[t];
    if ((flags & kGroupWithAny) && m.group[3 * t] == kUnset && m.group[3 * t + 1] == kUnset &&
        m.group[3 * t + 2] == kUnset)
      flags = uint8_t((flags & ~kOrientPreserving) | (orient ? kOrientPreserving : 0));
    if (bool(flags & kOrientPreserving) != orient) continue;
    m.group[3 * t + i] = label;
    stack.push_back(m.neighbor[3 * t + prev3(i)]);
    stack.push_back(m.neighbor[3 * t + i]);
  }
}

void grow_group(Mikk& m, uint32_t gid, std::vector<uint32_t>& stack) {
  grow_group_at(m, m.groups[gid].vertex, m.groups[gid].orient, gid, stack);
}

// Without group-with-any triangles no triangle's orientation changes, and a group reaches only
// corners of its own welded vertex, which no other vertex's groups touch: the vertices are shared
// out. Each vertex seeds its groups at its corners in triangle order, as the sequential loop
// does; a group's corners are labelled with its seed corner, and the groups are then numbered in
// the order of their seed corners, which is the sequential loop's. False (nothing done) when the
// mesh has a group-with-any triangle.
bool build_groups_by_vertex(const Input& in, Mikk& m) {
  for (uint32_t t = 0; t < m.tri_count; ++t)
    if (good(m, t) && (m.flags[t] & kGroupWithAny)) return false;
  const size_t corner_count = size_t(m.tri_count) * 3;
  m.group.resize(corner_count);
  in_parts(in.threads, corner_count, [&](size_t begin, size_t end) {
    std::fill(m.group.begin() + std::ptrdiff_t(begin), m.group.begin() + std::ptrdiff_t(end), kUnset);
  });
  in_parts(in.threads, in.vertex_count, [&](size_t begin, size_t end) {
    std::vector<uint32_t> stack;
    for (size_t w = begin; w < end; ++w)
      for (uint32_t k = m.start[w]; k < m.start[w + 1]; ++k) {
        const uint32_t c = m.corners[k], t = c / 3, i = c % 3;
        if (m.group[c] != kUnset) continue;
        m.group[c] = c;
        stack.push_back(m.neighbor[3 * t + prev3(i)]);
        stack.push_back(m.neighbor[3 * t + i]);
        grow_group_at(m, uint32_t(w), bool(m.flags[t] & kOrientPreserving), c, stack);
      }
  });
  // The neighbours are not needed any more: their array maps each seed corner to its group.
  Filled<uint32_t> number = std::move(m.neighbor);
  const size_t parts = part_count(in.threads, corner_count);
  std::vector<uint32_t> first(parts + 1, 0);
  in_numbered_parts(in.threads, corner_count, [&](size_t p, size_t begin, size_t end) {
    uint32_t n = 0;
    for (size_t c = begin; c < end; ++c) n += m.group[c] == c;
    first[p + 1] = n;
  });
  for (size_t p = 0; p < parts; ++p) first[p + 1] += first[p];
  m.groups.resize(first[parts]);
  in_numbered_parts(in.threads, corner_count, [&](size_t p, size_t begin, size_t end) {
    uint32_t gid = first[p];
    for (size_t c = begin; c < end; ++c)
      if (m.group[c] == c) {
        number[c] = gid;
        m.groups[gid++] = {welded(m, c), bool(m.flags[c / 3] & kOrientPreserving), {0, 0, 0}};
      }
  });
  in_parts(in.threads, corner_count, [&](size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c)
      if (m.group[c] != kUnset) m.group[c] = number[m.group[c]];
  });
  return true;
}

void build_groups(const Input& in, Mikk& m) {
  if (in.threads > 1 && build_groups_by_vertex(in, m)) return;
  m.group.assign(size_t(m.tri_count) * 3, kUnset);
  std::vector<uint32_t> stack;
  for (uint32_t t = 0; t < m.tri_count; ++t) {
    if (!good(m, t) || (m.flags[t] & kGroupWithAny)) continue;
    for (uint32_t i = 0; i < 3; ++i) {
      if (m.group[3 * t + i] != kUnset) continue;
      const uint32_t gid = uint32_t(m.groups.size());
      m.groups.push_back({welded(m, 3 * t + i), bool(m.flags[t] & kOrientPreserving), {0, 0, 0}});
      m.group[3 * t + i] = gid;
      stack.push_back(m.neighbor[3 * t + prev3(i)]);
      stack.push_back(m.neighbor[3 * t + i]);
      grow_group(m, gid, stack);
    }
  }
}

// ---- Step: group tangents (GenerateTSpaces / EvalTspace) -------------------------------------
// Each triangle with a tangent of its own adds, at each of its grouped corners, its tangent
// projected into the plane of the corner normal times the corner angle measured in that plane.

// acos by Abramowitz & Stegun 4.4.46 (a polynomial times sqrt(1 - |x|)); within 5e-7 rad of
// std::acos in float, and much cheaper than the library call on millions of corners. fast_acos4
// below is the same, four at a time: they must stay the same operations.
float fast_acos(float x) {
  const float a = std::fabs(x);
  float p = -0.0012624911f;
  p = p * a + 0.0066700901f;
  p = p * a - 0.0170881256f;
  p = p * a + 0.0308918810f;
  p = p * a - 0.0501743046f;
  p = p * a + 0.0889789874f;
  p = p * a - 0.2145988016f;
  p = p * a + 1.5707963050f;
  const float r = std::sqrt(1.0f - a) * p;
  return x < 0 ? 3.14159265358979f - r : r;
}

// The angle between two edges seen along n. An edge that vanishes in that plane counts as
// perpendicular, as MikkTSpace's zero vectors do (their dot product is 0).
float corner_angle(Vec3 n, Vec3 e1, Vec3 e2) {
  const Vec3 a = e1 - n * dot(n, e1), b = e2 - n * dot(n, e2);
  const float aa = dot(a, a), bb = dot(b, b), len2 = aa * bb;
  float cosine = 0;
  if (len2 > FLT_MIN && len2 <= FLT_MAX)
    cosine = dot(a, b) / std::sqrt(len2);
  else if (aa > 0 && bb > 0)  // tiny or huge edges: the product leaves float's range
    cosine = float(double(dot(a, b)) / std::sqrt(double(aa) * double(bb)));
  return fast_acos(std::clamp(cosine, -1.0f, 1.0f));
}

// One corner's contribution to its group: the triangle's tangent projected into the plane of
// the corner normal n, times the corner angle between edges e1 and e2 in that plane.
Vec3 corner_contribution(Vec3 n, Vec3 e1, Vec3 e2, Vec3 tangent) {
  return project(n, tangent) * corner_angle(n, e1, e2);
}

// The inputs of up to kBatch corners, one array per component (so that the arithmetic runs on
// several corners at once), and their results.
constexpr size_t kBatch = 64;
struct CornerBatch {
  size_t size = 0;
  float n[3][kBatch], e1[3][kBatch], e2[3][kBatch], tangent[3][kBatch], out[3][kBatch];
  uint32_t group[kBatch];
};

void add_corner(const Input& in, const Mikk& m, uint32_t t, uint32_t i, const Vec3* p, CornerBatch& b) {
  const size_t k = b.size++;
  const Vec3 n = in.normal[m.vertex[3 * size_t(t) + i]];
  const Vec3 e1 = p[next3(i)] - p[i], e2 = p[prev3(i)] - p[i];
  const Vec3& tangent = m.tangent[t];
  for (int c = 0; c < 3; ++c) {
    b.n[c][k] = n[c];
    b.e1[c][k] = e1[c];
    b.e2[c][k] = e2[c];
    b.tangent[c][k] = tangent[c];
  }
  b.group[k] = m.group[3 * size_t(t) + i];
}

Vec3 batch_vec(const float (&a)[3][kBatch], size_t k) { return {a[0][k], a[1][k], a[2][k]}; }

// corner_contribution of every corner of the batch. With SSE2, four corners at a time by the
// same operations in the same order (IEEE multiplication, addition, division and square root
// round the same in vector and scalar registers; the file is compiled without contraction into
// fused multiply-adds: CMakeLists.txt), so the results are bit-identical to the scalar function,
// which still does the corners whose squared lengths leave the range of the common case.
#if defined(__SSE2__)
struct V3 {
  __m128 x, y, z;
};
V3 load3(const float (&a)[3][kBatch], size_t k) {
  return {_mm_loadu_ps(&a[0][k]), _mm_loadu_ps(&a[1][k]), _mm_loadu_ps(&a[2][k])};
}
__m128 dot4(V3 a, V3 b) {
  return _mm_add_ps(_mm_add_ps(_mm_mul_ps(a.x, b.x), _mm_mul_ps(a.y, b.y)), _mm_mul_ps(a.z, b.z));
}
V3 minus_along(V3 v, V3 n, __m128 d) {  // v - n * d
  return {_mm_sub_ps(v.x, _mm_mul_ps(n.x, d)), _mm_sub_ps(v.y, _mm_mul_ps(n.y, d)), _mm_sub_ps(v.z, _mm_mul_ps(n.z, d))};
}
__m128 fast_acos4(__m128 x) {
  const __m128 a = _mm_andnot_ps(_mm_set1_ps(-0.0f), x);
  __m128 p = _mm_set1_ps(-0.0012624911f);
  p = _mm_add_ps(_mm_mul_ps(p, a), _mm_set1_ps(0.0066700901f));
  p = _mm_sub_ps(_mm_mul_ps(p, a), _mm_set1_ps(0.0170881256f));
  p = _mm_add_ps(_mm_mul_ps(p, a), _mm_set1_ps(0.0308918810f));
  p = _mm_sub_ps(_mm_mul_ps(p, a), _mm_set1_ps(0.0501743046f));
  p = _mm_add_ps(_mm_mul_ps(p, a), _mm_set1_ps(0.0889789874f));
  p = _mm_sub_ps(_mm_mul_ps(p, a), _mm_set1_ps(0.2145988016f));
  p = _mm_add_ps(_mm_mul_ps(p, a), _mm_set1_ps(1.5707963050f));
  const __m128 r = _mm_mul_ps(_mm_sqrt_ps(_mm_sub_ps(_mm_set1_ps(1.0f), a)), p);
  const __m128 negative = _mm_cmplt_ps(x, _mm_setzero_ps());
  const __m128 flipped = _mm_sub_ps(_mm_set1_ps(3.14159265358979f), r);
  return _mm_or_ps(_mm_and_ps(negative, flipped), _mm_andnot_ps(negative, r));
}
#endif

// corner_contribution of corner k of the batch, by the scalar code.
void scalar_contribution(CornerBatch& b, size_t k) {
  const Vec3 r = corner_contribution(batch_vec(b.n, k), batch_vec(b.e1, k), batch_vec(b.e2, k), batch_vec(b.tangent, k));
  for (int d = 0; d < 3; ++d) b.out[d][k] = r[d];
}

void batch_contributions(CornerBatch& b) {
  size_t k = 0;
#if defined(__SSE2__)
  for (; k + 4 <= b.size; k += 4) {
    const V3 n = load3(b.n, k), e1 = load3(b.e1, k), e2 = load3(b.e2, k), tg = load3(b.tangent, k);
    // corner_angle
    const V3 a = minus_along(e1, n, dot4(n, e1)), c = minus_along(e2, n, dot4(n, e2));
    const __m128 aa = dot4(a, a), cc = dot4(c, c), len2 = _mm_mul_ps(aa, cc);
    const __m128 common = _mm_and_ps(_mm_cmpgt_ps(len2, _mm_set1_ps(FLT_MIN)), _mm_cmple_ps(len2, _mm_set1_ps(FLT_MAX)));
    __m128 cosine = _mm_div_ps(dot4(a, c), _mm_sqrt_ps(len2));
    cosine = _mm_min_ps(_mm_max_ps(cosine, _mm_set1_ps(-1.0f)), _mm_set1_ps(1.0f));  // finite here
    const __m128 angle = fast_acos4(cosine);
    // project(n, tangent) * angle
    const V3 w = minus_along(tg, n, dot4(n, tg));
    const __m128 l = _mm_sqrt_ps(dot4(w, w));
    const __m128 positive = _mm_cmpgt_ps(l, _mm_setzero_ps());
    const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), l);
    auto unit = [&](__m128 v) { return _mm_or_ps(_mm_and_ps(positive, _mm_mul_ps(v, inv)), _mm_andnot_ps(positive, v)); };
    _mm_storeu_ps(&b.out[0][k], _mm_mul_ps(unit(w.x), angle));
    _mm_storeu_ps(&b.out[1][k], _mm_mul_ps(unit(w.y), angle));
    _mm_storeu_ps(&b.out[2][k], _mm_mul_ps(unit(w.z), angle));
    const int done = _mm_movemask_ps(common);
    if (done == 0xF) continue;
    for (size_t j = 0; j < 4; ++j)
      if (!((done >> j) & 1)) scalar_contribution(b, k + j);
  }
#endif
  for (; k < b.size; ++k) scalar_contribution(b, k);
}

// The batch's contributions added to their groups in order, which is the sequential order.
void flush_batch(Mikk& m, CornerBatch& b) {
  batch_contributions(b);
  for (size_t k = 0; k < b.size; ++k) {
    Group& g = m.groups[b.group[k]];
    g.tangent = g.tangent + Vec3{b.out[0][k], b.out[1][k], b.out[2][k]};
  }
  b.size = 0;
}

// The triangles holding corners of groups [first, last): groups are numbered in the order of
// their first corners (build_groups), so none lies before the first corner of group `first`,
// and none after the last corner numbered below `last`. Two scans of the group numbers, from
// either end; without them each part would walk every triangle.
std::pair<uint32_t, uint32_t> triangles_of_groups(const Mikk& m, size_t first, size_t last) {
  const size_t corners = size_t(m.tri_count) * 3;
  size_t begin = 0, end = corners;
  if (first > 0)
    while (begin < corners && (m.group[begin] == kUnset || m.group[begin] < first)) ++begin;
  if (last < m.groups.size())
    while (end > begin && (m.group[end - 1] == kUnset || m.group[end - 1] >= last)) --end;
  return {uint32_t(begin / 3), uint32_t((end + 2) / 3)};
}

// The groups are shared out: each part walks the triangles holding its groups' corners in order
// but adds only into its own groups, so every sum is exactly the sequential one. (Summing per
// welded vertex over its corners instead, which walks each triangle once, measured slower: the
// corners of a vertex are far apart in memory.)
void accumulate_groups(const Input& in, Mikk& m) {
  in_parts(in.threads, m.groups.size(), [&](size_t first, size_t last) {
    auto batch = std::make_unique<CornerBatch>();
    const auto [t_begin, t_end] = triangles_of_groups(m, first, last);
    for (uint32_t t = t_begin; t < t_end; ++t) {
      if (!good(m, t) || (m.flags[t] & kGroupWithAny)) continue;
      const uint32_t* g = &m.group[size_t(t) * 3];
      const bool mine0 = g[0] >= first && g[0] < last, mine1 = g[1] >= first && g[1] < last,
                 mine2 = g[2] >= first && g[2] < last;
      if (!(mine0 || mine1 || mine2)) continue;
      const uint32_t* v = m.vertex + size_t(t) * 3;
      const Vec3 p[3] = {in.pos(v[0]), in.pos(v[1]), in.pos(v[2])};
      if (batch->size + 3 > kBatch) flush_batch(m, *batch);
      if (mine0) add_corner(in, m, t, 0, p, *batch);
      if (mine1) add_corner(in, m, t, 1, p, *batch);
      if (mine2) add_corner(in, m, t, 2, p, *batch);
    }
    flush_batch(m, *batch);
    for (size_t g = first; g < last; ++g) m.groups[g].tangent = normalize(m.groups[g].tangent);
  });
}

// ---- Step: corner frames (the output loop of GenerateTSpaces) -------------------------------
// A corner takes its group's frame. A Scene corner written twice (a quad's diagonal corners,
// one group per half) keeps the frame when the second is the same and otherwise takes the
// normalised sum of the two tangents with the second's orientation, as a new table entry.
void add_frame(Mikk& m, uint32_t& frame, uint32_t gid) {
  if (frame == kUnset || frame == gid) {
    frame = gid;
    return;
  }
  const Group a = m.groups[frame], b = m.groups[gid];
  if (a.tangent == b.tangent && a.orient == b.orient) return;
  const Vec3 t = a.tangent == b.tangent ? a.tangent : normalize(a.tangent + b.tangent);
  frame = uint32_t(m.groups.size());
  m.groups.push_back({b.vertex, b.orient, t});
}

void write_frames(Mikk& m) {
  if (!has_quads(m)) {
    m.frame = std::move(m.group);  // triangles: each corner is its own frame slot
    return;
  }
  m.frame.assign(size_t(m.tri_count) * 3, kUnset);
  for (uint32_t t = 0; t < m.tri_count; ++t)
    if (good(m, t))
      for (uint32_t c = 3 * t; c < 3 * t + 3; ++c)
        if (m.group[c] != kUnset) add_frame(m, m.frame[m.slot[c]], m.group[c]);
}

// ---- Step: degenerate triangles again (DegenEpilogue) ----------------------------------------
// A degenerate triangle's corner copies the frame of the first good corner (in triangle order)
// with the same welded vertex. A quad with one degenerate half fills the corner its good half
// lacks from the good half's corner at the same position.
void degen_epilogue(const Mesh& mesh, const Input& in, Mikk& m) {
  bool any = false;
  for (uint32_t t = 0; t < m.tri_count && !any; ++t) any = !good(m, t);
  if (!any) return;
  std::vector<uint32_t> first_good(in.vertex_count, kUnset);
  for (uint32_t t = 0; t < m.tri_count; ++t)
    if (good(m, t))
      for (uint32_t c = 3 * t; c < 3 * t + 3; ++c)
        if (first_good[welded(m, c)] == kUnset) first_good[welded(m, c)] = slot_of(m, c);
  for (uint32_t t = 0; t < m.tri_count; ++t) {
    if (good(m, t) || (m.flags[t] & kQuadOneDegenerate)) continue;
    for (uint32_t c = 3 * t; c < 3 * t + 3; ++c) {
      const uint32_t src = first_good[welded(m, c)];
      if (src != kUnset) m.frame[slot_of(m, c)] = m.frame[src];
    }
  }
  for (uint32_t t = 0; t < m.tri_count; ++t) {
    if (!good(m, t) || !(m.flags[t] & kQuadOneDegenerate)) continue;
    const uint32_t q = quad_first(m, t);
    uint32_t present = 0;
    for (uint32_t i = 0; i < 3; ++i) present |= 1u << m.face_vertex[3 * t + i];
    const uint32_t missing = !(present & 2) ? 1 : !(present & 4) ? 2 : !(present & 8) ? 3 : 0;
    const uint32_t dst = quad_slot(q, missing);
    for (uint32_t i = 0; i < 3; ++i)
      if (same_position(in, m.vertex[3 * t + i], mesh.triangles[dst])) {
        m.frame[dst] = m.frame[quad_slot(q, m.face_vertex[3 * t + i])];
        break;
      }
  }
}

// The Scene corners of a quad's second fan triangle that repeat p0 and p2 of the first.
void fill_quad_repeats(Mikk& m) {
  for (uint32_t t = 0; has_quads(m) && t < m.tri_count; ++t)
    if (m.quad[t] == 1) {
      m.frame[3 * t + 3] = m.frame[3 * t];
      m.frame[3 * t + 4] = m.frame[3 * t + 2];
    }
}

// ---- Step: split vertices ----------------------------------------------------------------------
// The tangent written for a vertex: its frame's tangent made exactly perpendicular to the
// vertex's own normal, x y z w.
struct Frame {
  float v[4];
  bool operator==(const Frame& o) const { return std::memcmp(v, o.v, sizeof v) == 0; }
};

Frame make_frame(Vec3 tangent, Vec3 normal, float w) {
  Vec3 t = project(normal, tangent);
  if (!finite(t) || std::fabs(length(t) - 1.0f) > 1e-3f) t = default_tangent(normal);
  return {{t[0] + 0.0f, t[1] + 0.0f, t[2] + 0.0f, w}};  // + 0.0f turns -0 into +0
}

// Frame `id` (kUnset: MikkTSpace's default, the x axis with w = -1) at a vertex with normal n.
Frame frame_at(const Mikk& m, uint32_t id, Vec3 n) {
  if (id == kUnset) return make_frame({1, 0, 0}, n, -1.0f);
  const Group& g = m.groups[id];
  return make_frame(g.tangent, n, g.orient ? 1.0f : -1.0f);
}

struct SplitKey {
  uint32_t vertex;
  Frame frame;
  bool operator==(const SplitKey& o) const { return vertex == o.vertex && frame == o.frame; }
};
struct SplitKeyHash {
  size_t operator()(const SplitKey& k) const {
    uint32_t w[5];
    w[0] = k.vertex;
    std::memcpy(w + 1, k.frame.v, sizeof k.frame.v);
    uint64_t h = 0;
    for (uint32_t x : w) h = (h ^ x) * 0x9E3779B97F4A7C15ull;
    return size_t(h ^ (h >> 29));
  }
};

// The first corner of a vertex gives it its frame; a corner needing another frame moves to the
// copy of its vertex with that frame, made on first need. Returns the tangents of all vertices,
// old then new, and fills `source` with the original of each new vertex.
constexpr uint32_t kNoCorner = 0xFFFFFFFEu;

// The frame id of each vertex's first corner (kNoCorner: no corner), found in parts of the
// corners: each part notes the first corner it has of each vertex; the earliest part's wins.
std::vector<uint32_t> first_frames(const Mesh& mesh, const Input& in, const Mikk& m) {
  const uint32_t vertices = in.vertex_count;
  const size_t corners = size_t(m.tri_count) * 3;
  const size_t parts = part_count(in.threads, corners);
  std::vector<uint32_t> first(vertices, kNoCorner);
  std::vector<std::vector<uint32_t>> later(parts - 1);  // parts after the first: their own first corners
  in_numbered_parts(in.threads, corners, [&](size_t p, size_t begin, size_t end) {
    std::vector<uint32_t>& mine = p ? later[p - 1] : first;
    if (p) mine.assign(vertices, kNoCorner);
    for (size_t c = begin; c < end; ++c) {
      uint32_t& f = mine[mesh.triangles[c]];
      if (f == kNoCorner) f = m.frame[c];
    }
  });
  for (const std::vector<uint32_t>& part : later)
    in_parts(in.threads, vertices, [&](size_t begin, size_t end) {
      for (size_t v = begin; v < end; ++v)
        if (first[v] == kNoCorner) first[v] = part[v];
    });
  return first;
}

std::vector<float> split_vertices(Mesh& mesh, const Input& in, const Mikk& m, std::vector<uint32_t>& source) {
  const uint32_t vertices = in.vertex_count;
  const std::vector<uint32_t> first = first_frames(mesh, in, m);  // frame id of the vertex's first corner
  // The corners whose frame differs from their vertex's first, found in parts, in corner order.
  const size_t corners = size_t(m.tri_count) * 3;
  std::vector<std::vector<uint32_t>> differ(part_count(in.threads, corners));
  in_numbered_parts(in.threads, corners, [&](size_t p, size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      const uint32_t v = mesh.triangles[c];
      if (m.frame[c] != first[v] && !(frame_at(m, m.frame[c], in.normal[v]) == frame_at(m, first[v], in.normal[v])))
        differ[p].push_back(uint32_t(c));
    }
  });
  std::vector<Frame> extra;
  std::unordered_map<SplitKey, uint32_t, SplitKeyHash> copies;
  for (const std::vector<uint32_t>& part : differ)
    for (const uint32_t c : part) {
      const uint32_t v = mesh.triangles[c];
      const Frame f = frame_at(m, m.frame[c], in.normal[v]);
      auto [it, made] = copies.try_emplace(SplitKey{v, f}, uint32_t(vertices + source.size()));
      if (made) {
        source.push_back(v);
        extra.push_back(f);
      }
      mesh.triangles[c] = it->second;
    }
  std::vector<float> out((size_t(vertices) + extra.size()) * 4);
  in_parts(in.threads, vertices, [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) {
      const Frame f = first[v] == kNoCorner ? make_frame(default_tangent(in.normal[v]), in.normal[v], 1.0f)
                                            : frame_at(m, first[v], in.normal[v]);
      std::memcpy(&out[v * 4], f.v, sizeof f.v);
    }
  });
  for (size_t k = 0; k < extra.size(); ++k) std::memcpy(&out[(vertices + k) * 4], extra[k].v, sizeof extra[k].v);
  return out;
}

// ---- The whole mesh ----------------------------------------------------------------------------

void tangent_mesh(Mesh& mesh, unsigned threads) {
  const Input in = read_input(mesh, threads);
  Mikk m;
  build_faces(mesh, in, m);
  m.weld = weld_vertices(in);
 
  mark_degenerate(in, m);
  init_triangles(in, m);
  build_neighbors(in, m);
  build_groups(in, m);
  m.start = {};  // the corners by vertex are not needed any more
  m.corners = {};
  accumulate_groups(in, m);
  write_frames(m);
  degen_epilogue(mesh, in, m);
  fill_quad_repeats(m);

  // The old tangent stream (recompute) goes before vertices are copied; the new one takes its
  // place in the stream order, or comes last.
  size_t at = mesh.streams.size();
  for (size_t s = 0; s < mesh.streams.size(); ++s)
    if (mesh.streams[s].attribute == Attribute::Tangent) {
      mesh.streams.erase(mesh.streams.begin() + std::ptrdiff_t(s));
      at = s;
      break;
    }
  std::vector<uint32_t> source;
  VertexStream stream;
  stream.attribute = Attribute::Tangent;
  stream.format = ComponentType::Float;
  stream.source_size = 4;
  stream.components = 4;
 
  stream.data = split_vertices(mesh, in, m, source);
 
  if (!source.empty()) {
    std::vector<uint32_t> all(size_t(in.vertex_count) + source.size());
    for (uint32_t v = 0; v < in.vertex_count; ++v) all[v] = v;
    std::copy(source.begin(), source.end(), all.begin() + in.vertex_count);
    ops::gather_vertices(mesh, all);
  }
  mesh.streams.insert(mesh.streams.begin() + std::ptrdiff_t(at), std::move(stream));
 
}

bool wants_tangents(const Mesh& mesh, const TangentOptions& options) {
  return !mesh.find(Attribute::Tangent) || options.recompute;
}

bool can_have_tangents(const Mesh& mesh) {
  return mesh.find(Attribute::Position) && mesh.find(Attribute::Normal) && mesh.find(Attribute::Texcoord);
}

// Meshes in parallel, the largest first, on `threads` threads (the caller's among them).
void tangent_meshes(Scene& scene, std::vector<size_t> todo, unsigned threads) {
  std::stable_sort(todo.begin(), todo.end(), [&](size_t a, size_t b) {
    return scene.meshes[a].vertex_count() > scene.meshes[b].vertex_count();
  });
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(todo.size());
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < todo.size();) {
      try {
        tangent_mesh(scene.meshes[todo[i]], 1);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < todo.size(); ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

size_t generate_tangents(Scene& scene, const TangentOptions& options, Diagnostics* diags, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // Every mesh is checked before any is changed, so a malformed one leaves the Scene untouched.
  for (const Mesh& mesh : scene.meshes) {
    if (mesh.topology != Topology::Triangles) continue;  // lines and points have no faces
    if (!wants_tangents(mesh, options) || !can_have_tangents(mesh)) continue;
    ops::check_mesh(mesh);
    if (mesh.triangles.size() + mesh.vertex_count() >= 0x7FFFFFFFu)
      fail("", fmt::format("mesh \"{}\": too many triangles and vertices for tangent generation", mesh.name));
  }
  std::vector<size_t> todo;
  size_t total = 0, largest = 0;
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    Mesh& mesh = scene.meshes[i];
    if (mesh.topology != Topology::Triangles || !wants_tangents(mesh, options)) continue;
    if (!can_have_tangents(mesh)) {
      if (options.recompute && diags)
        diags->add(warning("", fmt::format("mesh \"{}\": no tangents: it has no {}", mesh.name,
                                           !mesh.find(Attribute::Position) ? "positions"
                                           : !mesh.find(Attribute::Normal) ? "normals"
                                                                           : "texture coordinates")));
      continue;
    }
    todo.push_back(i);
    total += mesh.vertex_count();
    largest = std::max(largest, mesh.vertex_count());
  }
  // Decision: meshes go to threads of their own when they can share the work out evenly (none
  // holds more than half the vertices) and are worth a thread; otherwise one mesh after the
  // other, each on all threads. Either way each mesh's tangents are those of one thread.
  if (threads > 1 && todo.size() > 1 && largest * 2 <= total && total >= kParallelMin)
    tangent_meshes(scene, todo, threads);
  else
    for (size_t i : todo) tangent_mesh(scene.meshes[i], threads);
  return todo.size();
}

}  // namespace meshport
