// Simplification with meshoptimizer (process.h simplify_meshes).
//
// Line and point meshes (Mesh::topology) are left as they are. Per mesh: polygons become
// triangles (ops::clear_polygons: per-face rules become per-triangle);
// meshopt_simplify collapses edges until the target index count (relative error up to 1: the
// target decides), the sloppy simplifier takes over when a limit must hold and the topology
// stops the first one; the error it reports (relative to the mesh's extent) is scaled by
// meshopt_simplifyScale to model units; each new triangle takes its per-triangle data from the original triangle
// sharing most of its corners (ties: the lowest number); unused vertices are dropped with
// meshopt_optimizeVertexFetchRemap + ops::remap_vertices, so every stream follows.
#include <meshport/process.h>

#include "ops/mesh/face_channels.h"
#include "ops/mesh/remap.h"
#include "ops/mesh/simplify.h"
#include "ops/mesh/triangulate.h"

#include <fmt/format.h>
#include <meshoptimizer.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace meshport {

namespace {

// Per new triangle, the original triangle sharing most of its corners.
std::vector<uint32_t> source_triangles(const std::vector<uint32_t>& old_tris, const std::vector<uint32_t>& new_tris,
                                       size_t vertex_count) {
  // Triangles around each vertex (compressed rows).
  std::vector<uint32_t> start(vertex_count + 1, 0), around(old_tris.size());
  for (uint32_t v : old_tris) ++start[v + 1];
  for (size_t v = 0; v < vertex_count; ++v) start[v + 1] += start[v];
  std::vector<uint32_t> fill(start.begin(), start.end() - 1);
  for (size_t i = 0; i < old_tris.size(); ++i) around[fill[old_tris[i]]++] = uint32_t(i / 3);
  std::vector<uint32_t> source(new_tris.size() / 3);
  for (size_t t = 0; t < source.size(); ++t) {
    const uint32_t* c = &new_tris[t * 3];
    uint32_t best = UINT32_MAX;
    int best_shared = 0;
    for (int k = 0; k < 3; ++k)
      for (uint32_t i = start[c[k]]; i < start[c[k] + 1]; ++i) {
        const uint32_t o = around[i];
        const uint32_t* oc = &old_tris[size_t(o) * 3];
        int shared = 0;
        for (int a = 0; a < 3; ++a) shared += oc[a] == c[0] || oc[a] == c[1] || oc[a] == c[2];
        if (shared > best_shared || (shared == best_shared && o < best)) best = o, best_shared = shared;
      }
    source[t] = best == UINT32_MAX ? 0 : best;
  }
  return source;
}

// values (per triangle, `per` values each) taken from the source triangles; empty stays empty.
template <class T>
void select(std::vector<T>& values, const std::vector<uint32_t>& source, size_t per) {
  if (values.empty()) return;
  std::vector<T> out(source.size() * per);
  for (size_t t = 0; t < source.size(); ++t)
    std::copy_n(values.begin() + ptrdiff_t(size_t(source[t]) * per), per, out.begin() + ptrdiff_t(t * per));
  values = std::move(out);
}

// The fs flag of each new corner: the flag of the same vertex's corner in the source triangle,
// else 1 (smooth).
void select_corner_edges(std::vector<uint8_t>& edges, const std::vector<uint32_t>& old_tris,
                         const std::vector<uint32_t>& new_tris, const std::vector<uint32_t>& source) {
  if (edges.empty()) return;
  std::vector<uint8_t> out(new_tris.size(), 1);
  for (size_t t = 0; t < source.size(); ++t)
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a)
        if (old_tris[size_t(source[t]) * 3 + size_t(a)] == new_tris[t * 3 + size_t(k)])
          out[t * 3 + size_t(k)] = edges[size_t(source[t]) * 3 + size_t(a)];
  edges = std::move(out);
}

// The mesh's positions as packed float3.
std::vector<float> positions(const Mesh& m) {
  const VertexStream* p = m.find(Attribute::Position);
  std::vector<float> xyz(m.vertex_count() * 3, 0.0f);
  if (!p) return xyz;
  for (size_t v = 0; v < m.vertex_count(); ++v)
    for (uint32_t c = 0; c < 3; ++c) xyz[v * 3 + c] = p->get(v, c);
  return xyz;
}

// Simplifies one mesh to `target` triangles; true when it changed. `error`: the result error in
// model units.
bool simplify_mesh(Mesh& m, size_t target, bool hard_limit, Diagnostics* diags, float& error) {
  const size_t tris = m.triangles.size() / 3;
  if (tris <= target) return false;
  ops::clear_polygons(m);
  const std::vector<float> xyz = positions(m);
  const size_t vc = m.vertex_count();
  std::vector<uint32_t> out(m.triangles.size());
  float relative = 0;
  size_t n = meshopt_simplify(out.data(), m.triangles.data(), m.triangles.size(), xyz.data(), vc, sizeof(float) * 3,
                              target * 3, 1.0f, 0, &relative);
  if (hard_limit && n > target * 3) {
    n = meshopt_simplifySloppy(out.data(), m.triangles.data(), m.triangles.size(), xyz.data(), vc, sizeof(float) * 3,
                               target * 3, 1.0f, &relative);
    if (diags)
      diags->add(warning("", fmt::format("mesh '{}': the shape-preserving simplifier stopped above {} triangles; "
                                         "simplified coarsely (its borders and UV seams may move)",
                                         m.name, target)));
  }
  out.resize(n);
  if (n == m.triangles.size()) return false;
  error = relative * meshopt_simplifyScale(xyz.data(), vc, sizeof(float) * 3);
  const std::vector<uint32_t> source = source_triangles(m.triangles, out, vc);
  SmoothingRules& s = m.smoothing;
  select(s.face_group, source, 1);
  select(s.face_angle, source, 1);
  select(s.face_uv, source, 1);
  select_corner_edges(s.corner_edge, m.triangles, out, source);
  ops::select_face_channels(m, source);
  m.triangles = std::move(out);
  std::vector<uint32_t> remap(vc);
  const size_t kept = meshopt_optimizeVertexFetchRemap(remap.data(), m.triangles.data(), m.triangles.size(), vc);
  ops::remap_vertices(m, remap, kept);
  return true;
}

}  // namespace

namespace ops {

bool simplify_one(Scene& scene, size_t mi, const SimplifyOptions& o, Diagnostics* diags,
                  std::vector<SimplifyResult>* results) {
  Mesh& m = scene.meshes[mi];
  const size_t tris = m.triangles.size() / 3;
  if (tris == 0 || m.topology != Topology::Triangles) return false;  // lines and points are left as they are
  size_t target = std::max<size_t>(1, size_t(std::ceil(double(o.ratio) * double(tris))));
  if (o.max_triangles > 0) target = std::min(target, o.max_triangles);
  float error = 0;
  if (!simplify_mesh(m, target, o.max_triangles > 0 && target == o.max_triangles, diags, error)) return false;
  if (results) results->push_back({mi, tris, m.triangles.size() / 3, error});
  if (diags)
    diags->add(note("", fmt::format("mesh '{}' simplified from {} to {} triangles (error {:.3g})", m.name, tris,
                                    m.triangles.size() / 3, error)));
  return true;
}

}  // namespace ops

size_t simplify_meshes(Scene& scene, const SimplifyOptions& o, Diagnostics* diags, std::vector<SimplifyResult>* results) {
  if (!(o.ratio > 0.0f && o.ratio <= 1.0f))
    fail("", fmt::format("--simplify {}: the ratio must be in (0, 1]", o.ratio));
  for (const Mesh& m : scene.meshes) ops::check_mesh(m);
  size_t changed = 0;
  for (size_t mi = 0; mi < scene.meshes.size(); ++mi) changed += ops::simplify_one(scene, mi, o, diags, results);
  return changed;
}

}  // namespace meshport
