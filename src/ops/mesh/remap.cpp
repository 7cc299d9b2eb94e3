#include "ops/mesh/remap.h"

#include "ops/mesh/check.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace meshport::ops {

void check_mesh(const Mesh& m) {
  const size_t vertices = m.vertex_count();
  const uint32_t per = topology_size(m.topology);  // lines and points: 2 and 1 indices each
  if (m.triangles.size() % per)
    fail("", fmt::format("mesh \"{}\": {} {} indices is not a multiple of {}", m.name, m.triangles.size(),
                         per == 3 ? "triangle" : "line", per));
  for (const VertexStream& s : m.streams)
    if (s.data.size() != vertices * s.components)
      fail("", fmt::format("mesh \"{}\": a vertex stream does not have {} vertices", m.name, vertices));
  if (!indices_below(m.triangles, vertices))
    for (uint32_t i : m.triangles)
      if (i >= vertices)
      fail("", fmt::format("mesh \"{}\": triangle index {} out of range ({} vertices)", m.name, i, vertices));
  for (const MorphTarget& t : m.morph_targets)
    if ((!t.positions.empty() && t.positions.size() != vertices * 3) ||
        (!t.normals.empty() && t.normals.size() != vertices * 3) ||
        (!t.tangents.empty() && t.tangents.size() != vertices * 3))
      fail("", fmt::format("mesh \"{}\": morph target \"{}\" does not have 3 values per vertex ({} vertices)", m.name,
                           t.name, vertices));
  const size_t tris = m.triangles.size() / per;
  for (const FaceChannel& c : m.face_channels)
    if (c.components == 0 || c.data.size() != tris * c.components)
      fail("", fmt::format("mesh \"{}\": face channel \"{}\" does not have {} values per triangle ({} triangles)",
                           m.name, c.name, c.components, tris));
}

namespace {

template <class T>
std::vector<T> gather(const std::vector<T>& data, uint32_t stride, std::span<const uint32_t> source) {
  std::vector<T> out(source.size() * stride);
  T* o = out.data();
  for (uint32_t v : source) {
    const T* in = data.data() + size_t(v) * stride;
    for (uint32_t c = 0; c < stride; ++c) *o++ = in[c];
  }
  return out;
}

}  // namespace

void gather_vertices(Mesh& m, std::span<const uint32_t> source) {
  const size_t old_count = m.vertex_count();
  for (uint32_t v : source)
    if (v >= old_count) throw std::invalid_argument("gather_vertices: source vertex out of range");
  for (const MorphTarget& t : m.morph_targets)
    if ((!t.positions.empty() && t.positions.size() != old_count * 3) ||
        (!t.normals.empty() && t.normals.size() != old_count * 3) ||
        (!t.tangents.empty() && t.tangents.size() != old_count * 3))
      throw std::invalid_argument("gather_vertices: a morph target does not have 3 values per vertex");
  for (VertexStream& s : m.streams) s.data = gather(s.data, s.components, source);
  for (MorphTarget& t : m.morph_targets) {
    if (!t.positions.empty()) t.positions = gather(t.positions, 3, source);
    if (!t.normals.empty()) t.normals = gather(t.normals, 3, source);
    if (!t.tangents.empty()) t.tangents = gather(t.tangents, 3, source);
  }
  std::vector<int32_t>& keys = m.smoothing.vertex_key;
  if (keys.size() == old_count)
    keys = gather(keys, 1, source);
  else
    keys.clear();
}

void remap_vertices(Mesh& m, std::span<const uint32_t> remap, size_t new_count) {
  const size_t old_count = m.vertex_count();
  if (remap.size() != old_count) throw std::invalid_argument("remap_vertices: one entry per vertex needed");
  std::vector<uint32_t> source(new_count, kDropped);
  for (size_t v = 0; v < old_count; ++v) {
    uint32_t n = remap[v];
    if (n == kDropped) continue;
    if (n >= new_count) throw std::invalid_argument("remap_vertices: target past new_count");
    if (source[n] == kDropped) source[n] = uint32_t(v);
  }
  for (uint32_t s : source)
    if (s == kDropped) throw std::invalid_argument("remap_vertices: a new vertex has no source");
  for (uint32_t i : m.triangles)
    if (i >= old_count || remap[i] == kDropped)
      throw std::invalid_argument("remap_vertices: a triangle uses a dropped vertex");
  for (uint32_t& i : m.triangles) i = remap[i];
  gather_vertices(m, source);
}

}  // namespace meshport::ops
