// Mesh::face_channels stay on the triangles they describe through every step that reorders,
// drops or duplicates triangles (ops/mesh/face_channels.h), and through the steps that only renumber
// vertices (weld, normals, tangents), which leave triangle order alone.
#include <meshport/process.h>

#include "ops/mesh/face_channels.h"
#include "ops/mesh/triangulate.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <array>
#include <map>

namespace meshport_test_ops_face_channels {

using namespace meshport;
using testutil::float_stream;

namespace {

FaceChannel channel(std::string name, uint32_t components, std::vector<uint32_t> data) {
  return FaceChannel{std::move(name), components, std::move(data)};
}

// A grid of n x n quads (2 n^2 triangles) in the XY plane with texture coordinates; every
// triangle's "test.id" channel value is its original index, and "test.pair" (2 words) holds
// (index, index * 7).
Mesh grid(uint32_t n) {
  Mesh m;
  m.name = "grid";
  std::vector<float> pos, uv;
  for (uint32_t y = 0; y <= n; ++y)
    for (uint32_t x = 0; x <= n; ++x) {
      pos.insert(pos.end(), {float(x), float(y), 0});
      uv.insert(uv.end(), {float(x) / float(n), float(y) / float(n)});
    }
  m.streams.push_back(float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(float_stream(Attribute::Texcoord, 2, uv));
  for (uint32_t y = 0; y < n; ++y)
    for (uint32_t x = 0; x < n; ++x) {
      uint32_t a = y * (n + 1) + x, b = a + 1, c = a + n + 2, d = a + n + 1;
      m.triangles.insert(m.triangles.end(), {a, b, c, a, c, d});
    }
  FaceChannel id = channel("test.id", 1, {}), pair = channel("test.pair", 2, {});
  for (uint32_t t = 0; t < m.triangles.size() / 3; ++t) {
    id.data.push_back(t);
    pair.data.insert(pair.data.end(), {t, t * 7});
  }
  m.face_channels = {id, pair};
  return m;
}

using Corners = std::array<std::array<float, 3>, 3>;

// Triangle t's corner positions, rotated to start at the smallest (winding kept).
Corners corners(const Mesh& m, size_t t) {
  const VertexStream* p = m.find(Attribute::Position);
  Corners c;
  for (size_t k = 0; k < 3; ++k) {
    uint32_t v = m.triangles[t * 3 + k];
    c[k] = {p->get(v, 0), p->get(v, 1), p->get(v, 2)};
  }
  size_t first = 0;
  for (size_t k = 1; k < 3; ++k)
    if (c[k] < c[first]) first = k;
  return {c[first], c[(first + 1) % 3], c[(first + 2) % 3]};
}

// Every triangle of `after` has the channel values its geometry had in `before`.
void expect_channels_follow(const Mesh& before, const Mesh& after, bool same_winding = true) {
  std::map<Corners, std::vector<uint32_t>> values;
  const size_t n = before.triangles.size() / 3;
  for (size_t t = 0; t < n; ++t) {
    std::vector<uint32_t> v;
    for (const FaceChannel& c : before.face_channels)
      v.insert(v.end(), c.data.begin() + ptrdiff_t(t * c.components), c.data.begin() + ptrdiff_t((t + 1) * c.components));
    values[corners(before, t)] = v;
  }
  ASSERT_EQ(after.triangles.size(), before.triangles.size());
  ASSERT_EQ(after.face_channels.size(), before.face_channels.size());
  for (size_t i = 0; i < after.face_channels.size(); ++i) {
    EXPECT_EQ(after.face_channels[i].name, before.face_channels[i].name);
    EXPECT_EQ(after.face_channels[i].face_count(), n);
  }
  for (size_t t = 0; t < n; ++t) {
    Corners k = corners(after, t);
    if (!same_winding) {
      std::swap(k[1], k[2]);
      size_t first = 0;
      for (size_t j = 1; j < 3; ++j)
        if (k[j] < k[first]) first = j;
      k = {k[first], k[(first + 1) % 3], k[(first + 2) % 3]};
    }
    auto it = values.find(k);
    ASSERT_NE(it, values.end()) << "triangle " << t;
    std::vector<uint32_t> v;
    for (const FaceChannel& c : after.face_channels)
      v.insert(v.end(), c.data.begin() + ptrdiff_t(t * c.components), c.data.begin() + ptrdiff_t((t + 1) * c.components));
    EXPECT_EQ(v, it->second) << "triangle " << t;
  }
}

}  // namespace

TEST(OpsFaceChannels, SelectReordersDropsAndDuplicates) {
  Mesh m;
  m.face_channels = {channel("a.one", 1, {10, 11, 12}), channel("a.two", 2, {0, 1, 2, 3, 4, 5})};
  ops::select_face_channels(m, std::vector<uint32_t>{2, 0, 0});
  EXPECT_EQ(m.face_channels[0].data, (std::vector<uint32_t>{12, 10, 10}));
  EXPECT_EQ(m.face_channels[1].data, (std::vector<uint32_t>{4, 5, 0, 1, 0, 1}));
  ops::select_face_channels(m, std::vector<uint32_t>{1});
  EXPECT_EQ(m.face_channels[0].data, (std::vector<uint32_t>{10}));
  EXPECT_EQ(m.face_channels[1].data, (std::vector<uint32_t>{0, 1}));
  ops::select_face_channels(m, std::vector<uint32_t>{});
  ASSERT_EQ(m.face_channels.size(), 2u);
  EXPECT_TRUE(m.face_channels[0].data.empty());
}

TEST(OpsFaceChannels, SelectDropsMalformedChannels) {
  Mesh m;
  m.face_channels = {channel("ok", 1, {1, 2}), channel("short", 1, {1}), channel("ragged", 2, {1, 2, 3}),
                     channel("zero", 0, {})};
  ops::select_face_channels(m, std::vector<uint32_t>{1, 0});
  ASSERT_EQ(m.face_channels.size(), 1u);
  EXPECT_EQ(m.face_channels[0].name, "ok");
  EXPECT_EQ(m.face_channels[0].data, (std::vector<uint32_t>{2, 1}));
}

TEST(OpsFaceChannels, FitChecksOneTuplePerTriangle) {
  Mesh m = grid(1);
  EXPECT_TRUE(ops::face_channels_fit(m));
  m.face_channels[1].data.pop_back();
  EXPECT_FALSE(ops::face_channels_fit(m));
}

TEST(OpsFaceChannels, OptimizeCarriesChannelsWithTheirTriangles) {
  Scene s;
  s.meshes.push_back(grid(8));
  const Mesh before = s.meshes[0];
  optimize_meshes(s);
  const Mesh& after = s.meshes[0];
  // The optimiser did reorder the triangles (else this test proves nothing).
  EXPECT_NE(after.face_channels[0].data, before.face_channels[0].data);
  expect_channels_follow(before, after);
}

TEST(OpsFaceChannels, OptimizeRefusesAMalformedChannel) {
  Scene s;
  s.meshes.push_back(grid(2));
  s.meshes[0].face_channels[0].data.pop_back();
  try {
    optimize_meshes(s);
    FAIL() << "optimised";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("face channel \"test.id\" does not have 1 values per triangle (8 triangles)"),
              std::string::npos)
        << e.what();
  }
}

TEST(OpsFaceChannels, WeldNormalsAndTangentsKeepTriangleOrder) {
  Scene s;
  s.meshes.push_back(grid(3));
  // Duplicate every vertex so welding has work to do.
  Mesh& m = s.meshes[0];
  const size_t nv = m.vertex_count();
  for (VertexStream& st : m.streams) {
    std::vector<float> copy = st.data;
    st.data.insert(st.data.end(), copy.begin(), copy.end());
  }
  for (size_t i = 0; i < m.triangles.size(); i += 6) m.triangles[i] += uint32_t(nv);
  const Mesh before = m;
  EXPECT_GT(weld_vertices(s), 0u);
  expect_channels_follow(before, s.meshes[0]);
  EXPECT_EQ(s.meshes[0].face_channels, before.face_channels);
  NormalOptions faceted;
  faceted.angle = 0.0f;
  EXPECT_EQ(generate_normals(s, faceted), 1u);
  EXPECT_EQ(generate_tangents(s), 1u);
  expect_channels_follow(before, s.meshes[0]);
  EXPECT_EQ(s.meshes[0].face_channels, before.face_channels);
}

TEST(OpsFaceChannels, FlipWindingReordersPolygonFans) {
  // One pentagon (3 fan triangles) and one triangle; channel = triangle index.
  Mesh m;
  m.streams.push_back(float_stream(Attribute::Position, 3, {0, 0, 0, 2, 0, 0, 3, 1, 0, 1, 2, 0, -1, 1, 0, 5, 5, 0}));
  ASSERT_TRUE(ops::append_polygon(m, std::vector<uint32_t>{0, 1, 2, 3, 4}));
  ASSERT_TRUE(ops::append_polygon(m, std::vector<uint32_t>{1, 5, 2}));
  m.face_channels = {channel("test.id", 1, {0, 1, 2, 3})};
  Scene s;
  s.meshes.push_back(m);
  flip_winding(s);
  // The pentagon's fan is rebuilt in reverse: new triangle k is old triangle 2 - k.
  EXPECT_EQ(s.meshes[0].face_channels[0].data, (std::vector<uint32_t>{2, 1, 0, 3}));
  expect_channels_follow(m, s.meshes[0], false);
  // Without polygons nothing moves.
  Scene t;
  t.meshes.push_back(grid(2));
  const Mesh before = t.meshes[0];
  flip_winding(t);
  EXPECT_EQ(t.meshes[0].face_channels, before.face_channels);
}

TEST(OpsFaceChannels, ClearPolygonsKeepsPerTriangleChannels) {
  Mesh m;
  m.streams.push_back(float_stream(Attribute::Position, 3, {0, 0, 0, 2, 0, 0, 3, 1, 0, 1, 2, 0}));
  ASSERT_TRUE(ops::append_polygon(m, std::vector<uint32_t>{0, 1, 2, 3}));
  m.face_channels = {channel("test.id", 1, {5, 6})};
  ops::clear_polygons(m);
  EXPECT_TRUE(m.polygon_sizes.empty());
  EXPECT_EQ(m.face_channels[0].data, (std::vector<uint32_t>{5, 6}));
}

}  // namespace meshport_test_ops_face_channels
