// Polygons as triangle fans (src/ops/mesh/triangulate.h).
#include "ops/mesh/triangulate.h"

#include <gtest/gtest.h>

#include <vector>

namespace meshport_test_ops_triangulate {

using namespace meshport;
using namespace meshport::ops;

namespace {

using Ids = std::vector<uint32_t>;

bool append(Mesh& m, Ids corners) { return append_polygon(m, corners); }

// A triangle, a pentagon and a quad.
Mesh mixed() {
  Mesh m;
  append(m, {0, 1, 2});
  append(m, {3, 4, 5, 6, 7});
  append(m, {8, 9, 10, 11});
  return m;
}

}  // namespace

TEST(OpsTriangulate, TrianglesNeedNoPolygons) {
  Mesh m;
  EXPECT_TRUE(append(m, {0, 1, 2}));
  EXPECT_TRUE(append(m, {2, 1, 3}));
  EXPECT_EQ(m.triangles, (Ids{0, 1, 2, 2, 1, 3}));
  EXPECT_TRUE(m.polygon_sizes.empty());
  EXPECT_EQ(m.face_count(), 2u);
}

TEST(OpsTriangulate, QuadBackFillsEarlierTriangles) {
  Mesh m;
  append(m, {0, 1, 2});
  append(m, {2, 1, 3});
  EXPECT_TRUE(append(m, {4, 5, 6, 7}));
  EXPECT_EQ(m.triangles, (Ids{0, 1, 2, 2, 1, 3, 4, 5, 6, 4, 6, 7}));
  EXPECT_EQ(m.polygon_sizes, (Ids{3, 3, 4}));
  // Once polygons are in use, a triangle is recorded too.
  append(m, {8, 9, 10});
  EXPECT_EQ(m.polygon_sizes, (Ids{3, 3, 4, 3}));
  EXPECT_EQ(m.triangles.size(), 15u);
  EXPECT_EQ(m.face_count(), 4u);
}

TEST(OpsTriangulate, PentagonFan) {
  Mesh m;
  append(m, {10, 11, 12, 13, 14});
  EXPECT_EQ(m.triangles, (Ids{10, 11, 12, 10, 12, 13, 10, 13, 14}));
  EXPECT_EQ(m.polygon_sizes, (Ids{5}));
}

TEST(OpsTriangulate, RejectsFewerThanThreeCorners) {
  Mesh m = mixed();
  Mesh before = m;
  EXPECT_FALSE(append(m, {}));
  EXPECT_FALSE(append(m, {1}));
  EXPECT_FALSE(append(m, {1, 2}));
  EXPECT_EQ(m, before);
}

TEST(OpsTriangulate, CornersRecoveredFromFans) {
  Mesh m = mixed();
  ASSERT_TRUE(polygons_fit(m));
  EXPECT_EQ(polygon_corners(m, 0), (Ids{0, 1, 2}));
  EXPECT_EQ(polygon_corners(m, 1), (Ids{3, 4, 5, 6, 7}));
  EXPECT_EQ(polygon_corners(m, 2), (Ids{8, 9, 10, 11}));
  EXPECT_EQ(face_first_triangle(m, 0), 0u);
  EXPECT_EQ(face_first_triangle(m, 1), 1u);
  EXPECT_EQ(face_first_triangle(m, 2), 4u);

  std::vector<Face> faces;
  for_each_face(m, [&](const Face& f) { faces.push_back(f); });
  ASSERT_EQ(faces.size(), 3u);
  EXPECT_EQ(faces[2].index, 2u);
  EXPECT_EQ(faces[2].first_triangle, 4u);
  EXPECT_EQ(faces[2].first_corner, 8u);
  EXPECT_EQ(faces[2].size, 4u);
  EXPECT_EQ(polygon_corners(m, faces[1]), (Ids{3, 4, 5, 6, 7}));

  // Without polygons every triangle is a face.
  Mesh t;
  append(t, {0, 1, 2});
  append(t, {5, 4, 3});
  EXPECT_EQ(face_first_triangle(t, 1), 1u);
  EXPECT_EQ(polygon_corners(t, 1), (Ids{5, 4, 3}));
  size_t count = 0;
  for_each_face(t, [&](const Face& f) {
    EXPECT_EQ(f.first_triangle, f.index);
    EXPECT_EQ(f.first_corner, f.index * 3);
    EXPECT_EQ(f.size, 3u);
    ++count;
  });
  EXPECT_EQ(count, 2u);
}

TEST(OpsTriangulate, PolygonsFit) {
  Mesh m = mixed();
  EXPECT_TRUE(polygons_fit(m));
  m.polygon_sizes = {3, 5, 3};  // covers 5 of 6 triangles
  EXPECT_FALSE(polygons_fit(m));
  m.polygon_sizes = {3, 2, 6, 3};  // a face of 2 corners
  EXPECT_FALSE(polygons_fit(m));
  m.polygon_sizes = {3, 5, 5};  // covers 7
  EXPECT_FALSE(polygons_fit(m));
  m.polygon_sizes.clear();
  EXPECT_TRUE(polygons_fit(m));
}

TEST(OpsTriangulate, ClearPolygonsExpandsRules) {
  Mesh m = mixed();
  SmoothingRules& s = m.smoothing;
  s.face_group = {7, 8, 9};
  s.face_angle = {10, 20, 30};
  s.face_uv = {0, 1, 0};
  // Triangle 0 1 2, pentagon a0..a4, quad b0..b3.
  s.corner_edge = {0, 1, 0, /**/ 0, 1, 0, 0, 1, /**/ 0, 0, 1, 0};
  s.vertex_key = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const Ids tris = m.triangles;
  clear_polygons(m);
  EXPECT_TRUE(m.polygon_sizes.empty());
  EXPECT_EQ(m.triangles, tris);
  EXPECT_EQ(s.face_group, (std::vector<int32_t>{7, 8, 8, 8, 9, 9}));
  EXPECT_EQ(s.face_angle, (std::vector<float>{10, 20, 20, 20, 30, 30}));
  EXPECT_EQ(s.face_uv, (std::vector<uint8_t>{0, 1, 1, 1, 0, 0}));
  // Pentagon triangles (q0 q1 q2) (q0 q2 q3) (q0 q3 q4): a0 a1 1 | 1 a2 1 | 1 a3 a4.
  // Quad triangles (q0 q1 q2) (q0 q2 q3): b0 b1 1 | 1 b2 b3.
  EXPECT_EQ(s.corner_edge, (std::vector<uint8_t>{0, 1, 0, /**/ 0, 1, 1, 1, 0, 1, 1, 0, 1, /**/ 0, 0, 1, 1, 1, 0}));
  EXPECT_EQ(s.vertex_key.size(), 12u);
}

TEST(OpsTriangulate, ClearPolygonsDropsRulesThatDoNotFit) {
  Mesh m = mixed();
  m.smoothing.face_group = {7, 8};           // wrong length: dropped
  m.smoothing.face_angle = {10, 20, 30};     // kept, expanded
  m.smoothing.corner_edge = {1, 1, 1, 1};    // wrong length: dropped
  clear_polygons(m);
  EXPECT_TRUE(m.smoothing.face_group.empty());
  EXPECT_TRUE(m.smoothing.corner_edge.empty());
  EXPECT_EQ(m.smoothing.face_angle.size(), 6u);

  // Polygons that do not cover the triangles: every per-face rule is dropped.
  Mesh bad = mixed();
  bad.polygon_sizes = {3, 5};
  bad.smoothing.face_group = {1, 2};
  bad.smoothing.vertex_key = {1, 2, 3};
  clear_polygons(bad);
  EXPECT_TRUE(bad.polygon_sizes.empty());
  EXPECT_TRUE(bad.smoothing.face_group.empty());
  EXPECT_EQ(bad.smoothing.vertex_key, (std::vector<int32_t>{1, 2, 3}));
}

TEST(OpsTriangulate, ClearPolygonsWithoutPolygonsIsANoOp) {
  Mesh m;
  append(m, {0, 1, 2});
  append(m, {2, 1, 3});
  m.smoothing.face_group = {4, 5};
  m.smoothing.corner_edge = {0, 1, 0, 1, 0, 1};
  Mesh before = m;
  clear_polygons(m);
  EXPECT_EQ(m, before);
}

}  // namespace meshport_test_ops_triangulate
