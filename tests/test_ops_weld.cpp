// Welding and unused-vertex removal (process.h weld_vertices / remove_unused_vertices,
// src/ops/mesh/weld.cpp) and the vertex renumbering helpers (src/ops/mesh/remap.h).
#include "ops/mesh/remap.h"
#include "ops/mesh/weld.h"

#include <meshport/process.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace meshport_test_ops_weld {

using namespace meshport;

namespace {

// Vertex i at position (x[i], 0, 0), texcoord (u[i], 0).
Mesh line_mesh(const std::vector<float>& x, const std::vector<float>& u, std::vector<uint32_t> triangles) {
  Mesh m;
  m.name = "m";
  std::vector<float> p, t;
  for (size_t i = 0; i < x.size(); ++i) {
    p.insert(p.end(), {x[i], 0, 0});
    t.insert(t.end(), {u[i], 0});
  }
  m.streams = {testutil::float_stream(Attribute::Position, 3, p), testutil::float_stream(Attribute::Texcoord, 2, t)};
  m.triangles = std::move(triangles);
  return m;
}

std::vector<float> xs(const Mesh& m) {
  std::vector<float> out;
  const VertexStream* p = m.find(Attribute::Position);
  for (size_t v = 0; v < m.vertex_count(); ++v) out.push_back(p->get(v, 0));
  return out;
}

}  // namespace

TEST(OpsWeld, MergesBitIdenticalVerticesInFirstOccurrenceOrder) {
  // 0: x0 u0   1: x1 u0   2: = 0   3: x1 u1 (texcoord differs)   4: = 1   5: -0 (differs from +0)
  // 6: unused   7: = 3
  Mesh m = line_mesh({0, 1, 0, 1, 1, -0.0f, 6, 1}, {0, 0, 0, 1, 0, 0, 0, 1},
                     {2, 4, 7, 0, 1, 3, 5, 7, 1});
  m.polygon_sizes = {3, 3, 3};
  Scene s;
  s.meshes = {m};
  EXPECT_EQ(weld_vertices(s), 4u);  // 2, 4, 7 merged; 6 unused
  const Mesh& r = s.meshes[0];
  // Kept: 0, 1, 3, 5 in that order.
  ASSERT_EQ(r.vertex_count(), 4u);
  EXPECT_EQ(r.triangles, (std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 3, 2, 1}));
  EXPECT_EQ(r.find(Attribute::Position)->data, (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 0, 0, -0.0f, 0, 0}));
  EXPECT_TRUE(std::signbit(r.find(Attribute::Position)->data[9]));
  EXPECT_EQ(r.find(Attribute::Texcoord)->data, (std::vector<float>{0, 0, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(r.polygon_sizes, m.polygon_sizes);
  EXPECT_EQ(weld_vertices(s), 0u);  // idempotent
}

TEST(OpsWeld, VertexKeysKeepVerticesApartAndFollowThem) {
  Mesh m = line_mesh({0, 0, 0, 1}, {0, 0, 0, 0}, {0, 1, 2, 3, 2, 1});
  m.smoothing.vertex_key = {5, 6, 5, 7};
  Scene s;
  s.meshes = {m};
  EXPECT_EQ(weld_vertices(s), 1u);  // 2 merges into 0; 1 has another key
  const Mesh& r = s.meshes[0];
  EXPECT_EQ(r.triangles, (std::vector<uint32_t>{0, 1, 0, 2, 0, 1}));
  EXPECT_EQ(r.smoothing.vertex_key, (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(xs(r), (std::vector<float>{0, 0, 1}));
}

TEST(OpsWeld, NanWithEqualBitsWelds) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Mesh m = line_mesh({nan, nan, 2}, {0, 0, 0}, {0, 1, 2});
  Scene s;
  s.meshes = {m};
  EXPECT_EQ(weld_vertices(s), 1u);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 0, 1}));
}

TEST(OpsWeld, EveryMeshAndEveryStream) {
  Mesh a = line_mesh({0, 0, 1}, {0, 0, 0}, {0, 1, 2});
  Mesh b = line_mesh({0, 0, 1}, {0, 0, 0}, {0, 1, 2});
  b.streams.push_back(testutil::float_stream(Attribute::Color, 3, {1, 0, 0, 1, 0, 1, 0, 0, 0}));  // 0 and 1 differ
  Scene s;
  s.meshes = {a, b};
  EXPECT_EQ(weld_vertices(s), 1u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 2u);
  EXPECT_EQ(s.meshes[1].vertex_count(), 3u);
}

TEST(OpsWeld, RemoveUnusedOnlyRemovesUnused) {
  // 0 and 2 are duplicates but both used: kept. 1, 4 unused.
  Mesh m = line_mesh({0, 9, 0, 3, 8, 5}, {0, 0, 0, 0, 0, 0}, {0, 2, 3, 5, 3, 0});
  m.smoothing.vertex_key = {10, 11, 12, 13, 14, 15};
  Scene s;
  s.meshes = {m};
  EXPECT_EQ(remove_unused_vertices(s), 2u);
  const Mesh& r = s.meshes[0];
  EXPECT_EQ(xs(r), (std::vector<float>{0, 0, 3, 5}));
  EXPECT_EQ(r.triangles, (std::vector<uint32_t>{0, 1, 2, 3, 2, 0}));
  EXPECT_EQ(r.smoothing.vertex_key, (std::vector<int32_t>{10, 12, 13, 15}));
  EXPECT_EQ(remove_unused_vertices(s), 0u);
  // A mesh with no triangles loses every vertex.
  s.meshes = {line_mesh({1, 2}, {0, 0}, {})};
  EXPECT_EQ(remove_unused_vertices(s), 2u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 0u);
}

TEST(OpsWeld, InconsistentMeshIsAnErrorAndNothingChanges) {
  Mesh good = line_mesh({0, 0}, {0, 0}, {0, 1, 1});
  Mesh bad = line_mesh({0, 1}, {0, 0}, {0, 1, 2});
  Scene s;
  s.meshes = {good, bad};
  Scene before = s;
  EXPECT_THROW(weld_vertices(s), Error);
  EXPECT_EQ(s, before);
  EXPECT_THROW(remove_unused_vertices(s), Error);
  s.meshes[1] = line_mesh({0, 1}, {0, 0}, {0, 1, 1});
  s.meshes[1].streams[1].data.pop_back();  // texcoords one value short
  EXPECT_THROW(weld_vertices(s), Error);
}

TEST(OpsWeld, RemapHelpers) {
  Mesh m = line_mesh({0, 1, 2}, {5, 6, 7}, {0, 1, 2});
  m.smoothing.vertex_key = {10, 11, 12};
  // gather: new vertices are copies of old 2, 0, 0; triangles untouched.
  Mesh g = m;
  ops::gather_vertices(g, std::vector<uint32_t>{2, 0, 0});
  EXPECT_EQ(xs(g), (std::vector<float>{2, 0, 0}));
  EXPECT_EQ(g.find(Attribute::Texcoord)->data, (std::vector<float>{7, 0, 5, 0, 5, 0}));
  EXPECT_EQ(g.smoothing.vertex_key, (std::vector<int32_t>{12, 10, 10}));
  EXPECT_EQ(g.triangles, m.triangles);
  // remap (old -> new): 0 -> 1, 1 dropped, 2 -> 0.
  Mesh r = m;
  r.triangles = {0, 2, 2};
  ops::remap_vertices(r, std::vector<uint32_t>{1, ops::kDropped, 0}, 2);
  EXPECT_EQ(xs(r), (std::vector<float>{2, 0}));
  EXPECT_EQ(r.triangles, (std::vector<uint32_t>{1, 0, 0}));
  EXPECT_EQ(r.smoothing.vertex_key, (std::vector<int32_t>{12, 10}));
  // A triangle on a dropped vertex, or a new vertex without a source: rejected, mesh unchanged.
  Mesh bad = m;
  EXPECT_THROW(ops::remap_vertices(bad, std::vector<uint32_t>{0, ops::kDropped, 1}, 2), std::invalid_argument);
  EXPECT_EQ(bad, m);
  EXPECT_THROW(ops::remap_vertices(bad, std::vector<uint32_t>{0, 0, 0}, 2), std::invalid_argument);
  EXPECT_EQ(bad, m);
  // A vertex_key of the wrong length is dropped.
  Mesh k = m;
  k.smoothing.vertex_key = {1};
  ops::gather_vertices(k, std::vector<uint32_t>{0});
  EXPECT_TRUE(k.smoothing.vertex_key.empty());
}

}  // namespace meshport_test_ops_weld
