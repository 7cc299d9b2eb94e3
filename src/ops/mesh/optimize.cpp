// Vertex cache and vertex fetch optimisation with meshoptimizer.
//
// Per mesh: polygons are cleared first (per-face smoothing rules become per-triangle, see
// ops::clear_polygons) so that triangles can be reordered; meshopt_optimizeVertexCache then
// reorders the triangles, and the per-triangle rules and face channels (ops/mesh/face_channels.h)
// follow them; meshopt_optimizeVertexFetchRemap finally renumbers the vertices in order of first
// use, drops unused ones, and every stream and SmoothingRules::vertex_key follows.
#include <meshport/process.h>

#include "ops/mesh/face_channels.h"
#include "ops/mesh/remap.h"
#include "ops/mesh/triangulate.h"

#include <meshoptimizer.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace meshport {

namespace {

// A triangle's corners rotated to start at the smallest index, keeping the winding (equal for
// every rotation of the same triangle), packed with the triangle's number: `hi` holds the first
// two corners, `lo` the third and the triangle. Two integers compare faster than four.
struct TriKey {
  uint64_t hi, lo;
  bool operator<(const TriKey& o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
  bool same_triangle(const TriKey& o) const { return hi == o.hi && (lo >> 32) == (o.lo >> 32); }
  uint32_t triangle() const { return uint32_t(lo); }
};

TriKey tri_key(const uint32_t* t, uint32_t triangle) {
  uint32_t a = t[0], b = t[1], c = t[2];
  if (b < a && b <= c) {
    a = t[1], b = t[2], c = t[0];
  } else if (c < a && c < b) {
    a = t[2], b = t[0], c = t[1];
  }
  return {uint64_t(a) << 32 | b, uint64_t(c) << 32 | triangle};
}

// The keys of an index buffer, sorted.
std::vector<TriKey> sorted_keys(const std::vector<uint32_t>& tris) {
  std::vector<TriKey> keys(tris.size() / 3);
  for (size_t t = 0; t < keys.size(); ++t) keys[t] = tri_key(&tris[t * 3], uint32_t(t));
  std::sort(keys.begin(), keys.end());
  return keys;
}

// meshoptimizer returns the reordered index buffer, not the triangle order. Recovers it by
// matching triangles: after sorting both lists by key, the i-th triangle of one is the i-th of
// the other (duplicates pair up in order, which is as good as any pairing). O(n log n).
// order[new] = old. Empty if the two are not the same triangles (never expected).
std::vector<uint32_t> triangle_order(const std::vector<uint32_t>& before, const std::vector<uint32_t>& after) {
  std::vector<TriKey> a = sorted_keys(before), b = sorted_keys(after);
  std::vector<uint32_t> order(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_triangle(b[i])) return {};
    order[b[i].triangle()] = a[i].triangle();
  }
  return order;
}

// values[new] = values[order[new] ] for `per` values per triangle; drops a wrong-length array.
template <class T>
void permute(std::vector<T>& values, const std::vector<uint32_t>& order, size_t per) {
  if (values.empty()) return;
  if (values.size() != order.size() * per) {
    values.clear();  // Decision: rules that fit no triangle are dropped.
    return;
  }
  std::vector<T> out(values.size());
  for (size_t t = 0; t < order.size(); ++t)
    std::copy_n(values.begin() + ptrdiff_t(order[t] * per), per, out.begin() + ptrdiff_t(t * per));
  values = std::move(out);
}

// Reorders the triangles for the vertex cache. The triangles keep their own corner order
// (only their sequence changes), so per-corner flags move with them unchanged.
void optimize_cache(Mesh& m) {
  std::vector<uint32_t> optimized(m.triangles.size());
  meshopt_optimizeVertexCache(optimized.data(), m.triangles.data(), m.triangles.size(), m.vertex_count());
  std::vector<uint32_t> order = triangle_order(m.triangles, optimized);
  if (order.empty()) return;  // keep the original order rather than lose the rules' pairing
  std::vector<uint32_t> tris(m.triangles.size());
  for (size_t t = 0; t < order.size(); ++t) std::copy_n(&m.triangles[size_t(order[t]) * 3], 3, &tris[t * 3]);
  m.triangles = std::move(tris);
  SmoothingRules& s = m.smoothing;
  permute(s.face_group, order, 1);
  permute(s.face_angle, order, 1);
  permute(s.face_uv, order, 1);
  permute(s.corner_edge, order, 3);
  ops::select_face_channels(m, order);
}

// Renumbers vertices in order of first use, dropping unused ones; every stream and vertex_key
// follow (ops::remap_vertices; a vertex_key of the wrong length is dropped).
void optimize_fetch(Mesh& m) {
  std::vector<uint32_t> remap(m.vertex_count());
  const size_t kept =
      meshopt_optimizeVertexFetchRemap(remap.data(), m.triangles.data(), m.triangles.size(), remap.size());
  ops::remap_vertices(m, remap, kept);
}

}  // namespace

void optimize_meshes(Scene& scene) {
  // Decision: an inconsistent mesh is an error (meshoptimizer would read out of bounds); every
  // mesh is checked before any is changed.
  for (const Mesh& m : scene.meshes) ops::check_mesh(m);
  for (Mesh& m : scene.meshes) {
    // Decision: a mesh without triangles is left as it is (fetch optimisation would drop all
    // of its vertices).
    if (m.triangles.empty() || m.topology != Topology::Triangles) continue;  // lines, points: as they are
    ops::clear_polygons(m);
    optimize_cache(m);
    optimize_fetch(m);
  }
}

}  // namespace meshport
