// Triangle adjacency by position, as IQM stores it.
//
// Edge k of triangle t runs from corner k to corner (k + 1) % 3. Two triangles are adjacent
// across an edge when they share that edge's two end positions (in either direction). Positions
// are compared by exact value (+0 and -0 are the same position; NaNs are equal when their bits
// are), never by vertex index, so vertices split by normals or texture seams still link. An edge
// shared by exactly two different triangles links them; an edge shared by three or more, by
// none, an edge whose two ends are the same position, and the two edges of a degenerate triangle
// that coincide all get kNoAdjacent.
//
// Cost: O(vertices + triangles) time plus a sort of each position's (small) edge list; besides
// the 12-byte-per-triangle result, about 12 bytes per triangle and 16-24 per vertex of temporary
// memory. Throws std::out_of_range when a triangle names a vertex past the positions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace meshport::ops {

inline constexpr uint32_t kNoAdjacent = 0xFFFFFFFFu;

// positions: x y z per vertex; triangles: 3 vertex indices each (all < positions.size() / 3).
// Returns 3 entries per triangle: the adjacent triangle's index across edges 0, 1, 2.
std::vector<uint32_t> triangle_adjacency(std::span<const float> positions, std::span<const uint32_t> triangles);
// The same, written into `adjacency` (3 entries per triangle; std::length_error otherwise), so a
// writer can fill its output buffer in place.
void triangle_adjacency(std::span<const float> positions, std::span<const uint32_t> triangles,
                        std::span<uint32_t> adjacency);

// Unique-position numbering: ids[v] is equal for vertices at the same position, numbered
// 0.. in order of first appearance; `count` receives the number of distinct positions.
std::vector<uint32_t> position_ids(std::span<const float> positions, uint32_t* count = nullptr);

}  // namespace meshport::ops
