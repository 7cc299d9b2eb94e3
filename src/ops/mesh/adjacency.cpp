#include "ops/mesh/adjacency.h"

#include "core/filled.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace meshport::ops {

namespace {

// The bits of a coordinate with -0 folded onto +0, so equal values have equal keys.
uint32_t key_bits(float f) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  return b == 0x80000000u ? 0u : b;
}

uint64_t hash3(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t h = (uint64_t(a) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(b) * 0xC2B2AE3D27D4EB4Full) ^
               (uint64_t(c) * 0x165667B19E3779F9ull);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

struct HalfEdge {
  uint32_t other;  // position id of the edge's other (larger) end
  uint32_t id;     // triangle * 3 + edge
  bool operator<(const HalfEdge& o) const { return other != o.other ? other < o.other : id < o.id; }
};

void sort_small(HalfEdge* b, HalfEdge* e) {
  if (e - b < 2) return;  // also an empty range, where b may be null
  if (e - b > 16) {
    std::sort(b, e);
    return;
  }
  for (HalfEdge* i = b + 1; i < e; ++i)
    for (HalfEdge* j = i; j > b && *j < *(j - 1); --j) std::swap(*j, *(j - 1));
}

}  // namespace

std::vector<uint32_t> position_ids(std::span<const float> positions, uint32_t* count) {
  const size_t n = positions.size() / 3;
  if (n >= 0xFFFFFFFFu) throw std::length_error("position_ids: too many vertices");
  size_t cap = 16;
  while (cap < n * 2) cap <<= 1;
  std::vector<uint32_t> table(cap, 0xFFFFFFFFu);  // vertex index of each position's first vertex
  std::vector<uint32_t> ids(n);
  uint32_t next = 0;
  const float* p = positions.data();
  auto home = [&](size_t v) {
    return hash3(key_bits(p[v * 3]), key_bits(p[v * 3 + 1]), key_bits(p[v * 3 + 2])) & (cap - 1);
  };
  // The table is large (16 MB for 1M vertices) and each vertex lands anywhere in it: its slot is
  // fetched kAhead vertices before it is needed, so the misses overlap instead of following each
  // other (position_ids of 1M vertices: most of its time was those misses).
  constexpr size_t kAhead = 16;
  size_t ahead[kAhead];
  for (size_t v = 0; v < std::min(n, kAhead); ++v) {
    ahead[v] = home(v);
    __builtin_prefetch(&table[ahead[v]]);
  }
  for (size_t v = 0; v < n; ++v) {
    uint32_t a = key_bits(p[v * 3]), b = key_bits(p[v * 3 + 1]), c = key_bits(p[v * 3 + 2]);
    size_t slot = ahead[v % kAhead];
    if (v + kAhead < n) {
      ahead[v % kAhead] = home(v + kAhead);
      __builtin_prefetch(&table[ahead[v % kAhead]]);
    }
    for (;;) {
      uint32_t u = table[slot];
      if (u == 0xFFFFFFFFu) {
        table[slot] = uint32_t(v);
        ids[v] = next++;
        break;
      }
      if (key_bits(p[u * 3]) == a && key_bits(p[u * 3 + 1]) == b && key_bits(p[u * 3 + 2]) == c) {
        ids[v] = ids[u];
        break;
      }
      slot = (slot + 1) & (cap - 1);
    }
  }
  if (count) *count = next;
  return ids;
}

void triangle_adjacency(std::span<const float> positions, std::span<const uint32_t> triangles, std::span<uint32_t> adj) {
  const size_t nt = triangles.size() / 3;
  if (nt * 3 >= 0xFFFFFFFFu) throw std::length_error("triangle_adjacency: too many triangles");
  if (adj.size() != nt * 3) throw std::length_error("triangle_adjacency: the output needs 3 entries per triangle");
  std::fill(adj.begin(), adj.end(), kNoAdjacent);
  uint32_t npos = 0;
  std::vector<uint32_t> pid = position_ids(positions, &npos);
  for (uint32_t v : triangles)
    if (v >= pid.size()) throw std::out_of_range("triangle_adjacency: vertex index out of range");

  // Bucket every edge (triangle * 3 + edge) by its smaller position id (counting sort); the
  // larger id is looked up again when the bucket is sorted, so the buckets take 4 bytes an edge.
  std::vector<uint32_t> start(size_t(npos) + 1, 0);
  auto ends = [&](size_t id, uint32_t& lo, uint32_t& hi) {
    const size_t t = id / 3, k = id % 3;
    uint32_t a = pid[triangles[t * 3 + k]], b = pid[triangles[t * 3 + (k + 1) % 3]];
    lo = std::min(a, b);
    hi = std::max(a, b);
    return a != b;
  };
  for (size_t id = 0; id < nt * 3; ++id) {
    uint32_t lo, hi;
    if (ends(id, lo, hi)) ++start[lo + 1];
  }
  for (size_t i = 1; i <= npos; ++i) start[i] += start[i - 1];
  Filled<uint32_t> edges(start[npos]);  // every entry written below
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t id = 0; id < nt * 3; ++id) {
      uint32_t lo, hi;
      if (ends(id, lo, hi)) edges[fill[lo]++] = uint32_t(id);
    }
  }

  // Within each bucket, runs of the same other end are the triangles sharing that edge.
  std::vector<HalfEdge> bucket;
  for (size_t p = 0; p < npos; ++p) {
    bucket.clear();
    for (size_t i = start[p]; i < start[p + 1]; ++i) {
      uint32_t lo, hi;
      ends(edges[i], lo, hi);
      bucket.push_back({hi, edges[i]});
    }
    HalfEdge* b = bucket.data();
    HalfEdge* e = b + bucket.size();
    sort_small(b, e);
    for (HalfEdge* r = b; r < e;) {
      HalfEdge* q = r + 1;
      while (q < e && q->other == r->other) ++q;
      if (q - r == 2) {
        uint32_t t0 = r[0].id / 3, t1 = r[1].id / 3;
        if (t0 != t1) {
          adj[r[0].id] = t1;
          adj[r[1].id] = t0;
        }
      }
      r = q;
    }
  }
}

std::vector<uint32_t> triangle_adjacency(std::span<const float> positions, std::span<const uint32_t> triangles) {
  std::vector<uint32_t> adj(triangles.size() / 3 * 3);
  triangle_adjacency(positions, triangles, adj);
  return adj;
}

}  // namespace meshport::ops
