// Vertex welding (process.h, weld_vertices / remove_unused_vertices).
//
// Welding compares whole vertices bit for bit: every stream's values, every morph target's
// position and normal displacements, and the vs key (SmoothingRules::vertex_key). A hash of each
// vertex is computed stream by stream, then an open-addressing table finds the first earlier
// vertex with the same bits. O(vertices) expected time; the renumbering itself is
// ops::remap_vertices, so every stream, morph target and the keys follow.
#include "ops/mesh/weld.h"

#include "ops/mesh/remap.h"

#include <meshport/process.h>

#include <bit>
#include <cstring>
#include <vector>

namespace meshport::ops {

namespace {

uint64_t mix(uint64_t h, uint32_t bits) {
  h = (h ^ bits) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

std::vector<uint64_t> vertex_hashes(const Mesh& m, size_t count, bool keys) {
  std::vector<uint64_t> h(count, 0xC2B2AE3D27D4EB4Full);
  for (const VertexStream& s : m.streams) {
    const float* d = s.data.data();
    for (size_t v = 0; v < count; ++v)
      for (uint32_t c = 0; c < s.components; ++c) h[v] = mix(h[v], std::bit_cast<uint32_t>(*d++));
  }
  for (const MorphTarget& t : m.morph_targets)
    for (const std::vector<float>* a : {&t.positions, &t.normals, &t.tangents}) {
      if (a->empty()) continue;
      const float* d = a->data();
      for (size_t v = 0; v < count; ++v)
        for (uint32_t c = 0; c < 3; ++c) h[v] = mix(h[v], std::bit_cast<uint32_t>(*d++));
    }
  if (keys)
    for (size_t v = 0; v < count; ++v) h[v] = mix(h[v], uint32_t(m.smoothing.vertex_key[v]));
  return h;
}

bool same_vertex(const Mesh& m, bool keys, size_t a, size_t b) {
  for (const VertexStream& s : m.streams) {
    const float* d = s.data.data();
    if (s.components && std::memcmp(d + a * s.components, d + b * s.components, s.components * sizeof(float)) != 0)
      return false;
  }
  for (const MorphTarget& t : m.morph_targets)
    for (const std::vector<float>* d : {&t.positions, &t.normals, &t.tangents})
      if (!d->empty() && std::memcmp(d->data() + a * 3, d->data() + b * 3, 3 * sizeof(float)) != 0) return false;
  return !keys || m.smoothing.vertex_key[a] == m.smoothing.vertex_key[b];
}

}  // namespace

size_t weld_mesh(Mesh& m) {
  const size_t count = m.vertex_count();
  if (count < 2) return 0;
  const bool keys = m.smoothing.vertex_key.size() == count;
  std::vector<uint64_t> h = vertex_hashes(m, count, keys);
  size_t cap = 16;
  while (cap < count * 2) cap <<= 1;
  std::vector<uint32_t> table(cap, kDropped);  // a vertex index per used slot
  std::vector<uint32_t> remap(count);
  uint32_t next = 0;
  for (size_t v = 0; v < count; ++v) {
    size_t slot = h[v] & (cap - 1);
    for (;;) {
      uint32_t u = table[slot];
      if (u == kDropped) {
        table[slot] = uint32_t(v);
        remap[v] = next++;
        break;
      }
      if (h[u] == h[v] && same_vertex(m, keys, u, v)) {
        remap[v] = remap[u];
        break;
      }
      slot = (slot + 1) & (cap - 1);
    }
  }
  if (next == count) return 0;
  remap_vertices(m, remap, next);
  return count - next;
}

size_t remove_unused(Mesh& m) {
  const size_t count = m.vertex_count();
  std::vector<uint32_t> remap(count, kDropped);
  for (uint32_t i : m.triangles) remap[i] = 0;
  uint32_t next = 0;
  for (uint32_t& r : remap)
    if (r != kDropped) r = next++;
  if (next == count) return 0;
  remap_vertices(m, remap, next);
  return count - next;
}

}  // namespace meshport::ops

namespace meshport {

// Decision: an inconsistent mesh is an error; every mesh is checked before any is changed.
size_t weld_vertices(Scene& scene) {
  for (const Mesh& m : scene.meshes) ops::check_mesh(m);
  size_t removed = 0;
  for (Mesh& m : scene.meshes) removed += ops::weld_mesh(m) + ops::remove_unused(m);
  return removed;
}

size_t remove_unused_vertices(Scene& scene) {
  for (const Mesh& m : scene.meshes) ops::check_mesh(m);
  size_t removed = 0;
  for (Mesh& m : scene.meshes) removed += ops::remove_unused(m);
  return removed;
}

}  // namespace meshport
