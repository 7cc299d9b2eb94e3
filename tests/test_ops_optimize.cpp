// optimize_meshes (src/ops/mesh/optimize.cpp): vertex cache and fetch optimisation.
#include <meshport/process.h>

#include "ops/mesh/triangulate.h"

#include <gtest/gtest.h>
#include <meshoptimizer.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace meshport_test_ops_optimize {

using namespace meshport;

namespace {

constexpr int kGrid = 48;  // vertices per side

VertexStream stream(Attribute a, uint32_t components) {
  VertexStream s;
  s.attribute = a;
  s.components = components;
  return s;
}

// Every attribute is a function of the grid point, so after any reordering each vertex can be
// checked against its own position.
int grid_id(float x, float y) { return int(y) * kGrid + int(x); }
std::array<float, 2> uv_of(int id) { return {float(id % 7) / 8, float(id % 5) / 4}; }
std::array<float, 4> color_of(int id) { return {float(id % 3), float(id % 11), 0.5f, float(id)}; }
int32_t key_of(int id) { return id * 3 + 1; }
// Per face and per directed grid edge values.
int32_t group_of(int cell) { return cell * 7 + 2; }
float angle_of(int cell) { return float(cell % 90); }
uint8_t uv_flag_of(int cell) { return uint8_t(cell % 2); }
uint8_t edge_flag(int from, int to) { return uint8_t((from * 31 + to * 17) % 3 == 0); }

// A kGrid x kGrid grid of quads (random first corner), in random face order over randomly
// numbered vertices, with a few unused vertices; per-face and per-corner smoothing rules.
Mesh shuffled_grid(std::mt19937& rng) {
  const int unused = 5;
  const int vertices = kGrid * kGrid + unused;
  std::vector<uint32_t> slot(vertices);  // grid id -> vertex index
  std::iota(slot.begin(), slot.end(), 0u);
  std::shuffle(slot.begin(), slot.end(), rng);

  Mesh m;
  m.name = "grid";
  VertexStream pos = stream(Attribute::Position, 3), uv = stream(Attribute::Texcoord, 2),
               col = stream(Attribute::Color, 4);
  pos.data.resize(vertices * 3);
  uv.data.resize(vertices * 2);
  col.data.resize(vertices * 4);
  m.smoothing.vertex_key.resize(vertices);
  for (int id = 0; id < vertices; ++id) {
    uint32_t v = slot[id];
    // Unused vertices sit off the grid.
    float x = id < kGrid * kGrid ? float(id % kGrid) : 100.0f + float(id), y = float(id / kGrid);
    pos.data[v * 3 + 0] = x, pos.data[v * 3 + 1] = y, pos.data[v * 3 + 2] = 0;
    int gid = id < kGrid * kGrid ? id : grid_id(x, y);
    std::copy_n(uv_of(gid).begin(), 2, &uv.data[v * 2]);
    std::copy_n(color_of(gid).begin(), 4, &col.data[v * 4]);
    m.smoothing.vertex_key[v] = key_of(gid);
  }
  m.streams = {pos, uv, col};

  std::vector<int> cells((kGrid - 1) * (kGrid - 1));
  std::iota(cells.begin(), cells.end(), 0);
  std::shuffle(cells.begin(), cells.end(), rng);
  for (int cell : cells) {
    int x = cell % (kGrid - 1), y = cell / (kGrid - 1);
    int id0 = y * kGrid + x;
    std::array<int, 4> ids{id0, id0 + 1, id0 + kGrid + 1, id0 + kGrid};  // counter-clockwise
    std::rotate(ids.begin(), ids.begin() + rng() % 4, ids.end());
    std::array<uint32_t, 4> corners;
    for (int k = 0; k < 4; ++k) corners[k] = slot[ids[k]];
    ops::append_polygon(m, corners);
    m.smoothing.face_group.push_back(group_of(cell));
    m.smoothing.face_angle.push_back(angle_of(cell));
    m.smoothing.face_uv.push_back(uv_flag_of(cell));
    for (int k = 0; k < 4; ++k) m.smoothing.corner_edge.push_back(edge_flag(ids[k], ids[(k + 1) % 4]));
  }
  return m;
}

int vertex_grid_id(const Mesh& m, uint32_t v) {
  const VertexStream* p = m.find(Attribute::Position);
  return grid_id(p->get(v, 0), p->get(v, 1));
}

// A triangle as grid ids, rotated to start at the smallest: independent of vertex numbering.
std::array<int, 3> tri_ids(const Mesh& m, size_t t) {
  std::array<int, 3> a;
  for (int k = 0; k < 3; ++k) a[k] = vertex_grid_id(m, m.triangles[t * 3 + k]);
  std::rotate(a.begin(), std::min_element(a.begin(), a.end()), a.end());
  return a;
}

std::vector<std::array<int, 3>> sorted_tris(const Mesh& m) {
  std::vector<std::array<int, 3>> out;
  for (size_t t = 0; t < m.triangles.size() / 3; ++t) out.push_back(tri_ids(m, t));
  std::sort(out.begin(), out.end());
  return out;
}

float acmr(const Mesh& m) {
  return meshopt_analyzeVertexCache(m.triangles.data(), m.triangles.size(), m.vertex_count(), 16, 0, 0).acmr;
}

}  // namespace

TEST(OpsOptimize, ShuffledGrid) {
  std::mt19937 rng(1234);
  Scene s;
  s.meshes.push_back(shuffled_grid(rng));
  const Mesh before = s.meshes[0];
  optimize_meshes(s);
  const Mesh& m = s.meshes[0];

  // Better vertex cache use, the same triangles, no polygons left.
  EXPECT_LT(acmr(m), acmr(before) * 0.8f) << acmr(before) << " -> " << acmr(m);
  EXPECT_EQ(sorted_tris(m), sorted_tris(before));
  EXPECT_TRUE(m.polygon_sizes.empty());

  // Unused vertices dropped; the rest numbered in order of first use.
  ASSERT_EQ(m.vertex_count(), size_t(kGrid * kGrid));
  uint32_t next = 0;
  for (uint32_t v : m.triangles) {
    ASSERT_LE(v, next);
    if (v == next) ++next;
  }
  EXPECT_EQ(next, uint32_t(kGrid * kGrid));

  // Every stream and vertex key follows its vertex.
  const VertexStream* uv = m.find(Attribute::Texcoord);
  const VertexStream* col = m.find(Attribute::Color);
  ASSERT_EQ(m.smoothing.vertex_key.size(), m.vertex_count());
  for (uint32_t v = 0; v < m.vertex_count(); ++v) {
    int id = vertex_grid_id(m, v);
    EXPECT_EQ(m.find(Attribute::Position)->get(v, 2), 0.0f);
    for (uint32_t c = 0; c < 2; ++c) ASSERT_EQ(uv->get(v, c), uv_of(id)[c]) << v;
    for (uint32_t c = 0; c < 4; ++c) ASSERT_EQ(col->get(v, c), color_of(id)[c]) << v;
    ASSERT_EQ(m.smoothing.vertex_key[v], key_of(id)) << v;
  }

  // Per-triangle rules follow their triangles: the face values of the triangle's cell, and per
  // corner the flag of that grid edge, or 1 for the quad's diagonal.
  const size_t tris = m.triangles.size() / 3;
  ASSERT_EQ(m.smoothing.face_group.size(), tris);
  ASSERT_EQ(m.smoothing.face_angle.size(), tris);
  ASSERT_EQ(m.smoothing.face_uv.size(), tris);
  ASSERT_EQ(m.smoothing.corner_edge.size(), tris * 3);
  for (size_t t = 0; t < tris; ++t) {
    std::array<int, 3> ids;
    for (int k = 0; k < 3; ++k) ids[k] = vertex_grid_id(m, m.triangles[t * 3 + k]);
    int x = kGrid, y = kGrid;
    for (int id : ids) x = std::min(x, id % kGrid), y = std::min(y, id / kGrid);
    int cell = y * (kGrid - 1) + x;
    ASSERT_EQ(m.smoothing.face_group[t], group_of(cell)) << t;
    ASSERT_EQ(m.smoothing.face_angle[t], angle_of(cell)) << t;
    ASSERT_EQ(m.smoothing.face_uv[t], uv_flag_of(cell)) << t;
    for (int k = 0; k < 3; ++k) {
      int from = ids[k], to = ids[(k + 1) % 3];
      bool diagonal = from % kGrid != to % kGrid && from / kGrid != to / kGrid;
      ASSERT_EQ(m.smoothing.corner_edge[t * 3 + k], diagonal ? 1 : edge_flag(from, to)) << t << " " << k;
    }
  }
}

TEST(OpsOptimize, DuplicateTrianglesKeepTheirRules) {
  // The same triangle three times with different groups: each value survives exactly once.
  Scene s;
  Mesh m;
  m.streams.push_back(stream(Attribute::Position, 3));
  m.streams[0].data = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  m.triangles = {0, 1, 2, 1, 3, 2, 2, 0, 1, 0, 1, 2};  // the third is the first, rotated
  m.smoothing.face_group = {10, 20, 30, 40};
  s.meshes.push_back(m);
  optimize_meshes(s);
  const Mesh& r = s.meshes[0];
  std::map<std::array<float, 9>, std::vector<int32_t>> groups;
  for (size_t t = 0; t < 4; ++t) {
    std::array<std::array<float, 3>, 3> c;
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) c[k][i] = r.streams[0].get(r.triangles[t * 3 + k], i);
    std::rotate(c.begin(), std::min_element(c.begin(), c.end()), c.end());
    std::array<float, 9> key;
    for (int k = 0; k < 9; ++k) key[k] = c[k / 3][k % 3];
    groups[key].push_back(r.smoothing.face_group[t]);
  }
  ASSERT_EQ(groups.size(), 2u);
  for (auto& [key, g] : groups) {
    std::sort(g.begin(), g.end());
    if (g.size() == 3)
      EXPECT_EQ(g, (std::vector<int32_t>{10, 30, 40}));
    else
      EXPECT_EQ(g, (std::vector<int32_t>{20}));
  }
}

TEST(OpsOptimize, MeshWithoutTrianglesIsKept) {
  Scene s;
  Mesh m;
  m.streams.push_back(stream(Attribute::Position, 3));
  m.streams[0].data = {0, 0, 0, 1, 0, 0};
  s.meshes.push_back(m);
  optimize_meshes(s);
  EXPECT_EQ(s.meshes[0], m);
}

TEST(OpsOptimize, RejectsInconsistentMeshesBeforeChangingAny) {
  std::mt19937 rng(5);
  Scene s;
  s.meshes.push_back(shuffled_grid(rng));
  Mesh bad;
  bad.name = "bad";
  bad.streams.push_back(stream(Attribute::Position, 3));
  bad.streams[0].data = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  bad.triangles = {0, 1, 3};
  s.meshes.push_back(bad);
  const Scene before = s;
  try {
    optimize_meshes(s);
    ADD_FAILURE() << "accepted an out-of-range index";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mesh \"bad\": triangle index 3 out of range"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(s, before);

  // A stream shorter than the positions.
  s.meshes[1].triangles = {0, 1, 2};
  s.meshes[1].streams.push_back(stream(Attribute::Texcoord, 2));
  s.meshes[1].streams[1].data = {0, 0, 1, 1};
  EXPECT_THROW(optimize_meshes(s), Error);
}

}  // namespace meshport_test_ops_optimize
