// Position-based triangle adjacency (src/ops/mesh/adjacency.h).
#include "ops/mesh/adjacency.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace meshport_test_ops_adjacency {

using namespace meshport::ops;

namespace {

size_t links(const std::vector<uint32_t>& adj) {
  return size_t(std::count_if(adj.begin(), adj.end(), [](uint32_t a) { return a != kNoAdjacent; }));
}

constexpr uint32_t N = kNoAdjacent;

}  // namespace

TEST(OpsAdjacency, QuadIsLinkedAcrossItsDiagonal) {
  // quadA.iqe: (0,0,0) (1,0,0) (1,1,0) (0,1,0), faces 0 1 3 and 1 2 3; the shared edge joins
  // (1,0,0) and (0,1,0), which are not component-wise ordered.
  std::vector<float> p = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  std::vector<uint32_t> t = {0, 1, 3, 1, 2, 3};
  // edge 1 of triangle 0 runs 1 -> 3; edge 2 of triangle 1 runs 3 -> 1.
  EXPECT_EQ(triangle_adjacency(p, t), (std::vector<uint32_t>{N, 1, N, N, N, 0}));
  // quadB: the other diagonal.
  std::vector<uint32_t> tb = {0, 1, 2, 0, 2, 3};
  EXPECT_EQ(triangle_adjacency(p, tb), (std::vector<uint32_t>{N, N, 1, 0, N, N}));
}

TEST(OpsAdjacency, ComparesPositionsNotIndices) {
  // The same quad with each triangle owning its vertices (as after a normal or UV split), and a
  // -0 against a +0.
  std::vector<float> p = {0, 0, 0, 1, 0, 0, 0, 1, 0, /**/ 1, -0.0f, 0, 1, 1, 0, 0, 1, 0};
  std::vector<uint32_t> t = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(triangle_adjacency(p, t), (std::vector<uint32_t>{N, 1, N, N, N, 0}));
}

TEST(OpsAdjacency, EdgeSharedByThreeTrianglesIsNotLinked) {
  // A fin: three triangles on the edge (0,0,0)-(1,0,0), plus a fourth sharing another edge.
  std::vector<float> p = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 1, 1, 1};
  std::vector<uint32_t> t = {0, 1, 2, 1, 0, 3, 0, 1, 4, 1, 5, 2};
  std::vector<uint32_t> a = triangle_adjacency(p, t);
  EXPECT_EQ(a[0], N);  // edge 0-1 of triangles 0, 1 and 2
  EXPECT_EQ(a[3], N);
  EXPECT_EQ(a[6], N);
  EXPECT_EQ(a[1], 3u);  // edge 1-2 of triangle 0 is edge 2-1 of triangle 3
  EXPECT_EQ(a[11], 0u);
  EXPECT_EQ(links(a), 2u);
}

TEST(OpsAdjacency, DegenerateEdgesAndTrianglesStayUnlinked) {
  std::vector<float> p = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0};
  // triangle 0 has two corners at the same position (vertices 0 and 3): its edge between them is
  // degenerate and its two other edges coincide; it must not link to itself.
  std::vector<uint32_t> t = {0, 3, 1};
  EXPECT_EQ(triangle_adjacency(p, t), (std::vector<uint32_t>{N, N, N}));
  EXPECT_TRUE(triangle_adjacency(p, {}).empty());
  EXPECT_THROW(triangle_adjacency(p, std::vector<uint32_t>{0, 1, 9}), std::out_of_range);
}

TEST(OpsAdjacency, PositionIds) {
  std::vector<float> p = {1, 2, 3, 4, 5, 6, 1, 2, 3, -0.0f, 0, 0, 0, 0, 0};
  uint32_t n = 0;
  EXPECT_EQ(position_ids(p, &n), (std::vector<uint32_t>{0, 1, 0, 2, 2}));
  EXPECT_EQ(n, 3u);
}

TEST(OpsAdjacency, GridLinksEveryInteriorEdge) {
  // A w x h grid of quads, two triangles each, every triangle with its own 3 vertices.
  const int w = 120, h = 90;
  std::vector<float> p;
  std::vector<uint32_t> t;
  auto corner = [&](int x, int y) {
    p.insert(p.end(), {float(x), float(y), 0.0f});
    return uint32_t(p.size() / 3 - 1);
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      t.insert(t.end(), {corner(x, y), corner(x + 1, y), corner(x + 1, y + 1)});
      t.insert(t.end(), {corner(x, y), corner(x + 1, y + 1), corner(x, y + 1)});
    }
  std::vector<uint32_t> a = triangle_adjacency(p, t);
  // interior edges: horizontal (w * (h - 1)), vertical ((w - 1) * h), diagonals (w * h), each 2 links
  EXPECT_EQ(links(a), size_t(2 * (w * (h - 1) + (w - 1) * h + w * h)));
  for (size_t e = 0; e < a.size(); ++e)
    if (a[e] != N) {
      const uint32_t u = a[e];  // symmetric: u links back to e's triangle
      EXPECT_TRUE(a[u * 3] == e / 3 || a[u * 3 + 1] == e / 3 || a[u * 3 + 2] == e / 3);
    }
}

TEST(OpsAdjacency, MrfixitLinks8946Edges) {
  REQUIRE_CORPUS();
  std::ifstream f(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"), std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), {});
  auto h = testutil::iqm_header(b);
  ASSERT_EQ(h.num_vertexes, 1861u);
  const uint32_t pos_ofs = testutil::peek<uint32_t>(b, h.ofs_vertexarrays + 16);  // array 0: position float 3
  std::vector<float> p(h.num_vertexes * 3);
  std::memcpy(p.data(), b.data() + pos_ofs, p.size() * 4);
  std::vector<uint32_t> t(h.num_triangles * 3);
  std::memcpy(t.data(), b.data() + h.ofs_triangles, t.size() * 4);
  EXPECT_EQ(links(triangle_adjacency(p, t)), 8946u);  // the reference compiler: 2,222
}

TEST(OpsAdjacency, TwoMillionTrianglesQuickly) {
  // 1000 x 1000 quads = 2M triangles on ~1M shared vertices.
  const uint32_t w = 1000, h = 1000;
  std::vector<float> p;
  p.reserve(size_t(w + 1) * (h + 1) * 3);
  for (uint32_t y = 0; y <= h; ++y)
    for (uint32_t x = 0; x <= w; ++x) p.insert(p.end(), {float(x), float(y), 1.0f});
  std::vector<uint32_t> t;
  t.reserve(size_t(w) * h * 6);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t a = y * (w + 1) + x, b = a + 1, c = a + w + 2, d = a + w + 1;
      t.insert(t.end(), {a, b, c, a, c, d});
    }
  auto start = std::chrono::steady_clock::now();
  std::vector<uint32_t> a = triangle_adjacency(p, t);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(links(a), size_t(2 * (w * (h - 1) + (w - 1) * h + w * h)));
  EXPECT_LT(seconds, 10.0);  // generous: Debug and sanitizer builds; Release takes ~0.1 s
  RecordProperty("seconds", std::to_string(seconds));
}

}  // namespace meshport_test_ops_adjacency
