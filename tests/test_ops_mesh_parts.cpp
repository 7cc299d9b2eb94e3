// ops/mesh/mesh_parts.h: triangles picked, reordered and joined with their smoothing rules and face
// channels; repeated faces given vertices of their own.
#include "ops/mesh/mesh_parts.h"

#include "test_util.h"

namespace meshport_test_ops_mesh_parts {

using namespace meshport;

namespace {

// Four vertices (positions x = index), triangles as given, a face channel holding each
// triangle's first index * 10, per-face angle = index, per-corner flags alternating.
Mesh sample(std::vector<uint32_t> tris) {
  Mesh m;
  m.name = "m";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0}));
  m.triangles = std::move(tris);
  const size_t n = m.triangles.size() / 3;
  FaceChannel c{"pie.flags", 1, {}};
  for (size_t t = 0; t < n; ++t) {
    c.data.push_back(m.triangles[t * 3] * 10);
    m.smoothing.face_angle.push_back(float(t));
    for (int k = 0; k < 3; ++k) m.smoothing.corner_edge.push_back(uint8_t((t + k) % 2));
  }
  m.face_channels.push_back(c);
  return m;
}

}  // namespace

TEST(OpsMeshParts, SelectTrianglesCarriesWhatDescribesThem) {
  Mesh m = sample({0, 1, 2, 1, 2, 3, 2, 3, 0});
  m.polygon_sizes = {3, 3, 3};
  const std::vector<uint32_t> order = {2, 0};
  ops::select_triangles(m, order);
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{2, 3, 0, 0, 1, 2}));
  EXPECT_EQ(m.face_channels[0].data, (std::vector<uint32_t>{20, 0}));
  EXPECT_EQ(m.smoothing.face_angle, (std::vector<float>{2, 0}));
  EXPECT_EQ(m.smoothing.corner_edge, (std::vector<uint8_t>{0, 1, 0, 0, 1, 0}));
  EXPECT_TRUE(m.polygon_sizes.empty());
  EXPECT_EQ(m.vertex_count(), 4u);
}

TEST(OpsMeshParts, AppendMeshRenumbersAndFillsDefaults) {
  Mesh a = sample({0, 1, 2});
  Mesh b = sample({1, 2, 3});
  b.smoothing.face_angle.clear();          // b has no angles: 180 for its triangle
  b.face_channels.push_back({"pie.texanim", 4, {1, 2, 3, 4}});  // a has none: zeros for its
  ASSERT_TRUE(ops::same_layout(a, b));
  ops::append_mesh(a, b);
  EXPECT_EQ(a.vertex_count(), 8u);
  EXPECT_EQ(a.triangles, (std::vector<uint32_t>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(a.smoothing.face_angle, (std::vector<float>{0, 180}));
  ASSERT_EQ(a.face_channels.size(), 2u);
  EXPECT_EQ(a.face_channels[0].data, (std::vector<uint32_t>{0, 10}));
  EXPECT_EQ(a.face_channels[1].data, (std::vector<uint32_t>{0, 0, 0, 0, 1, 2, 3, 4}));

  Mesh c = sample({0, 1, 2});
  c.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_FALSE(ops::same_layout(a, c));
}

TEST(OpsMeshParts, RepeatedFacesGetVerticesOfTheirOwn) {
  // A front face, its back face on the same vertices, a degenerate one, and an unrelated one.
  Mesh m = sample({0, 1, 2, 0, 2, 1, 3, 3, 1, 1, 2, 3});
  m.morph_targets.push_back({"t", {0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4}, {}, {}});
  const Mesh before = m;
  EXPECT_EQ(ops::repeated_faces(m), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(ops::separate_repeated_faces(m), 2u);
  EXPECT_EQ(m.vertex_count(), 10u);
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 1, 2, 4, 5, 6, 7, 8, 9, 1, 2, 3}));
  // The copies hold their originals' values, in every stream and morph target.
  const std::vector<uint32_t> from = {0, 2, 1, 3, 3, 1};
  for (size_t k = 0; k < from.size(); ++k) {
    EXPECT_EQ(m.streams[0].get(4 + k, 0), before.streams[0].get(from[k], 0)) << k;
    EXPECT_EQ(m.morph_targets[0].positions[(4 + k) * 3 + 2], before.morph_targets[0].positions[from[k] * 3 + 2]) << k;
  }
  EXPECT_EQ(m.face_channels, before.face_channels);
  EXPECT_EQ(m.smoothing.face_angle, before.smoothing.face_angle);
  EXPECT_EQ(ops::separate_repeated_faces(m), 0u);  // nothing repeats now
}

}  // namespace meshport_test_ops_mesh_parts
