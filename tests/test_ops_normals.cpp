// Normal generation (process.h generate_normals, src/ops/mesh/normals.cpp).
#include <meshport/meshport.h>
#include <meshport/process.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <vector>

namespace meshport_test_ops_normals {

using namespace meshport;

namespace {

using V3 = std::array<double, 3>;

Mesh make_mesh(std::vector<float> positions, std::vector<uint32_t> triangles) {
  Mesh m;
  m.name = "m";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, std::move(positions)));
  m.triangles = std::move(triangles);
  return m;
}

Scene one(Mesh m) {
  Scene s;
  s.meshes.push_back(std::move(m));
  return s;
}

V3 pos(const Mesh& m, uint32_t v) {
  const VertexStream* p = m.find(Attribute::Position);
  return {p->get(v, 0), p->get(v, 1), p->get(v, 2)};
}
V3 nrm(const Mesh& m, uint32_t v) {
  const VertexStream* n = m.find(Attribute::Normal);
  return {n->get(v, 0), n->get(v, 1), n->get(v, 2)};
}
V3 sub(V3 a, V3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 add(V3 a, V3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
V3 scale(V3 a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
double dot(V3 a, V3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V3 cross(V3 a, V3 b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
V3 unit(V3 a) { return scale(a, 1.0 / std::sqrt(dot(a, a))); }
// Interior angle at p between the edges to q and r.
double angle(V3 p, V3 q, V3 r) { return std::acos(dot(unit(sub(q, p)), unit(sub(r, p)))); }

#define EXPECT_V3(actual, expected, tol)             \
  do {                                               \
    V3 a_ = (actual), e_ = (expected);               \
    for (int i_ = 0; i_ < 3; ++i_)                   \
      EXPECT_NEAR(a_[i_], e_[i_], tol) << "[" << i_ << "]"; \
  } while (0)

// The pair used throughout: A is a floor triangle (normal +Y), B a wall (normal -Z) meeting it
// along (0,0,0)-(1,0,0) at 90 degrees, consistently wound. Each triangle has its own vertices.
// Corner angles: at (0,0,0) 90 degrees in both, at (1,0,0) 45 in both, so the smooth normal
// there is (0, 1, -1) / sqrt 2.
const V3 kA{0, 1, 0}, kB{0, 0, -1};
const double kS = 1.0 / std::sqrt(2.0);
const V3 kSmooth{0, kS, -kS};

Mesh pair() {
  return make_mesh({0, 0, 0, 1, 0, 0, 0, 0, -1, /* B */ 0, 0, 0, 0, 1, 0, 1, 0, 0}, {0, 1, 2, 3, 4, 5});
}

// Normal at the corner of `m` at triangle t, corner k.
V3 corner_normal(const Mesh& m, size_t t, int k) { return nrm(m, m.triangles[t * 3 + k]); }

void expect_faceted_pair(const Mesh& m) {
  EXPECT_EQ(m.vertex_count(), 6u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(corner_normal(m, 0, k), kA);
    EXPECT_EQ(corner_normal(m, 1, k), kB);
  }
}

void expect_smooth_pair(const Mesh& m) {
  EXPECT_EQ(m.vertex_count(), 4u);
  EXPECT_V3(corner_normal(m, 0, 0), kSmooth, 1e-6);
  EXPECT_V3(corner_normal(m, 0, 1), kSmooth, 1e-6);
  EXPECT_EQ(corner_normal(m, 0, 2), kA);
  EXPECT_EQ(corner_normal(m, 1, 1), kB);
  EXPECT_EQ(m.triangles[0], m.triangles[3]);  // (0,0,0) welded
  EXPECT_EQ(m.triangles[1], m.triangles[5]);  // (1,0,0) welded
}

// A unit cube, 8 shared vertices, 12 counter-clockwise triangles (outward normals).
Mesh cube() {
  return make_mesh({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1},
                   {0, 3, 2, 0, 2, 1,   // z = 0, normal -Z
                    4, 5, 6, 4, 6, 7,   // z = 1, +Z
                    0, 1, 5, 0, 5, 4,   // y = 0, -Y
                    3, 7, 6, 3, 6, 2,   // y = 1, +Y
                    0, 4, 7, 0, 7, 3,   // x = 0, -X
                    1, 2, 6, 1, 6, 5}); // x = 1, +X
}

std::string edge_case(const std::string& name) { return testutil::corpus("iqm/edge-cases/" + name); }

}  // namespace

// ---- iqe.txt smoothing on the corpus files ---------------------------------------------------

TEST(OpsNormals, CorpusSmoothFilesAreSmoothed) {
  REQUIRE_CORPUS();
  // Two faces at about 11 degrees. smoothangle 180 and 170 must smooth (the reference compiler's
  // |cos| bug facets them), 30 and the default too.
  for (const char* name : {"smooth.iqe", "smooth170.iqe", "smooth30.iqe", "smoothdef.iqe"}) {
    SCOPED_TRACE(name);
    Scene s = read(edge_case(name));
    ASSERT_EQ(s.meshes.size(), 1u);
    Mesh before = s.meshes[0];
    ASSERT_EQ(before.vertex_count(), 6u);
    EXPECT_EQ(generate_normals(s), 1u);
    const Mesh& m = s.meshes[0];
    ASSERT_EQ(m.vertex_count(), 4u);
    ASSERT_EQ(m.triangles.size(), 6u);
    // Expected, by hand from the input: face normals and the corner angles at the two shared
    // positions (file vertices 0/3 and 2/4).
    V3 p[6];
    for (uint32_t v = 0; v < 6; ++v) p[v] = pos(before, v);
    const uint32_t* t = before.triangles.data();
    V3 n0 = unit(cross(sub(p[t[1]], p[t[0]]), sub(p[t[2]], p[t[0]])));
    V3 n1 = unit(cross(sub(p[t[4]], p[t[3]]), sub(p[t[5]], p[t[3]])));
    EXPECT_GT(dot(n0, n1), std::cos(12 * 3.14159265 / 180));
    EXPECT_LT(dot(n0, n1), std::cos(10 * 3.14159265 / 180));
    for (int k = 0; k < 3; ++k) {
      V3 at = pos(m, m.triangles[k]);
      EXPECT_EQ(at, p[t[k]]);  // positions kept, triangle order kept
      // Corner k of face 0 and the corner of face 1 at the same position, if any.
      int other = -1;
      for (int j = 0; j < 3; ++j)
        if (p[t[3 + j]] == p[t[k]]) other = j;
      V3 expected = n0;
      if (other >= 0) {
        double w0 = angle(p[t[k]], p[t[(k + 1) % 3]], p[t[(k + 2) % 3]]);
        double w1 = angle(p[t[3 + other]], p[t[3 + (other + 1) % 3]], p[t[3 + (other + 2) % 3]]);
        expected = unit(add(scale(n0, w0), scale(n1, w1)));
        EXPECT_EQ(m.triangles[k], m.triangles[3 + other]);
      }
      EXPECT_V3(nrm(m, m.triangles[k]), expected, 1e-6);
    }
    const VertexStream* n = m.find(Attribute::Normal);
    EXPECT_EQ(n->format, ComponentType::Float);
    EXPECT_EQ(n->source_size, 3u);
    EXPECT_EQ(n->components, 3u);
    // Faceted (an angle below the faces' 11.3 degrees overrides the file's rules): 6 vertices.
    NormalOptions o;
    o.angle = 10;
    o.recompute = true;
    generate_normals(s, o);
    EXPECT_EQ(s.meshes[0].vertex_count(), 6u);
  }
}

TEST(OpsNormals, NinetyDegreesAndSmoothangle) {
  Scene s = one(pair());
  s.meshes[0].smoothing.face_angle = {30, 30};
  generate_normals(s);
  expect_faceted_pair(s.meshes[0]);

  s = one(pair());
  s.meshes[0].smoothing.face_angle = {30, 180};  // the smaller angle of the two faces rules
  generate_normals(s);
  expect_faceted_pair(s.meshes[0]);

  s = one(pair());
  s.meshes[0].smoothing.face_angle = {90, 90};  // exactly the limit: smoothed
  generate_normals(s);
  expect_smooth_pair(s.meshes[0]);

  s = one(pair());  // default 180
  generate_normals(s);
  expect_smooth_pair(s.meshes[0]);
}

TEST(OpsNormals, SmoothangleAbove90IsNotMirrored) {
  // Faces at 170 degrees to each other (a sharp fold): smoothangle 170 smooths them, 10 and 169
  // do not. The reference compiler compared |cos| and got this backwards.
  // A: the floor, normal +Y. B: folded 10 degrees above it, sharing (0,0,0)-(1,0,0); its normal
  // (0, -cos 10, -sin 10) is 170 degrees from A's.
  const double a = 10 * 3.14159265358979 / 180;
  auto fold = [&] {
    float y = float(std::sin(a)), z = float(std::cos(a));
    return make_mesh({0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, y, -z, 1, 0, 0}, {0, 1, 2, 3, 4, 5});
  };
  for (float limit : {10.0f, 169.0f, 170.5f, 180.0f}) {
    SCOPED_TRACE(limit);
    Scene s = one(fold());
    s.meshes[0].smoothing.face_angle = {limit, limit};
    generate_normals(s);
    EXPECT_EQ(s.meshes[0].vertex_count(), limit > 170 ? 4u : 6u);
  }
}

TEST(OpsNormals, SmoothangleZeroFacetsACube) {
  Scene s = one(cube());
  s.meshes[0].smoothing.face_angle.assign(12, 0.0f);
  generate_normals(s);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.vertex_count(), 24u);  // the two triangles of a side are parallel and share 2 vertices
  for (size_t t = 0; t < 12; ++t) {
    V3 p0 = pos(m, m.triangles[t * 3]), p1 = pos(m, m.triangles[t * 3 + 1]), p2 = pos(m, m.triangles[t * 3 + 2]);
    V3 fn = unit(cross(sub(p1, p0), sub(p2, p0)));
    for (int k = 0; k < 3; ++k) EXPECT_EQ(corner_normal(m, t, k), fn);
  }
}

TEST(OpsNormals, CubeAt180GivesCornerAngleWeightedAverage) {
  // Each cube corner touches three sides, each with 90 degrees of corner angle in total (one
  // triangle's right angle, or two 45s): the normal is (+-1, +-1, +-1) / sqrt 3.
  for (bool as_quads : {false, true}) {
    SCOPED_TRACE(as_quads);
    Mesh c = cube();
    if (as_quads) c.polygon_sizes.assign(6, 4);
    Scene s = one(c);
    s.meshes[0].smoothing.face_angle.assign(as_quads ? 6 : 12, 180.0f);
    generate_normals(s);
    const Mesh& m = s.meshes[0];
    ASSERT_EQ(m.vertex_count(), 8u);
    EXPECT_EQ(m.triangles, cube().triangles);
    const double r = 1.0 / std::sqrt(3.0);
    for (uint32_t v = 0; v < 8; ++v) {
      V3 p = pos(m, v);
      EXPECT_V3(nrm(m, v), (V3{(p[0] * 2 - 1) * r, (p[1] * 2 - 1) * r, (p[2] * 2 - 1) * r}), 1e-6);
    }
  }
}

TEST(OpsNormals, SmoothgroupKeys) {
  Scene s = one(pair());
  s.meshes[0].smoothing.face_group = {3, 3};
  generate_normals(s);
  expect_smooth_pair(s.meshes[0]);

  s = one(pair());
  s.meshes[0].smoothing.face_group = {3, 4};
  generate_normals(s);
  expect_faceted_pair(s.meshes[0]);

  s = one(pair());
  s.meshes[0].smoothing.face_group = {-1, 0};  // the default key is -1, an ordinary key
  generate_normals(s);
  expect_faceted_pair(s.meshes[0]);
}

TEST(OpsNormals, SmoothUv) {
  // Shared corners: (0,0,0) is vertex 0 / 3, (1,0,0) is vertex 1 / 5. `differ`: B's UV at
  // (0,0,0) differs, and at (1,0,0) it is (1, -0) against A's (1, 0), which counts as equal.
  auto with_uv = [](bool differ, uint8_t on) {
    Mesh m = pair();
    float u = differ ? 0.5f : 0.0f, z = differ ? -0.0f : 0.0f;
    m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1, /* B */ u, 0, 0, 1, 1, z}));
    m.smoothing.face_uv = {on, on};
    return one(m);
  };
  Scene s = with_uv(false, 1);
  generate_normals(s);
  expect_smooth_pair(s.meshes[0]);

  s = with_uv(true, 1);
  generate_normals(s);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.vertex_count(), 6u);  // the UVs keep all six apart
  EXPECT_EQ(corner_normal(m, 0, 0), kA);
  EXPECT_EQ(corner_normal(m, 1, 0), kB);
  EXPECT_V3(corner_normal(m, 0, 1), kSmooth, 1e-6);
  EXPECT_V3(corner_normal(m, 1, 2), kSmooth, 1e-6);

  // smoothuv on for only one of the faces is enough.
  s = with_uv(true, 0);
  s.meshes[0].smoothing.face_uv = {0, 1};
  generate_normals(s);
  EXPECT_EQ(corner_normal(s.meshes[0], 0, 0), kA);

  // Off: differing UVs still smooth.
  s = with_uv(true, 0);
  generate_normals(s);
  EXPECT_EQ(s.meshes[0].vertex_count(), 6u);
  EXPECT_V3(corner_normal(s.meshes[0], 0, 0), kSmooth, 1e-6);
  EXPECT_V3(corner_normal(s.meshes[0], 1, 0), kSmooth, 1e-6);
}

TEST(OpsNormals, VertexKeysGroupCornersInsteadOfPositions) {
  // Equal keys at the shared positions: smoothed; the keys follow the welded vertices.
  Scene s = one(pair());
  s.meshes[0].smoothing.vertex_key = {0, 1, 2, 0, 3, 1};
  generate_normals(s);
  expect_smooth_pair(s.meshes[0]);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.smoothing.vertex_key.size(), 4u);
  EXPECT_EQ(m.smoothing.vertex_key[m.triangles[0]], 0);
  EXPECT_EQ(m.smoothing.vertex_key[m.triangles[1]], 1);
  EXPECT_EQ(m.smoothing.vertex_key[m.triangles[2]], 2);
  EXPECT_EQ(m.smoothing.vertex_key[m.triangles[4]], 3);

  // Different keys at the same position: not smoothed.
  s = one(pair());
  s.meshes[0].smoothing.vertex_key = {0, 1, 2, 3, 4, 5};
  generate_normals(s);
  expect_faceted_pair(s.meshes[0]);

  // Equal keys at different positions: smoothed (the key names the original vertex).
  s = one(make_mesh({0, 0, 0, 1, 0, 0, 0, 1, 0, /* far away, facing +X */ 5, 0, 0, 5, 0, -1, 5, 1, 0},
                    {0, 1, 2, 3, 4, 5}));
  s.meshes[0].smoothing.vertex_key = {7, 1, 2, 7, 4, 5};
  generate_normals(s);
  EXPECT_V3(corner_normal(s.meshes[0], 0, 0), (V3{kS, 0, kS}), 1e-6);
  EXPECT_V3(corner_normal(s.meshes[0], 1, 0), (V3{kS, 0, kS}), 1e-6);
  EXPECT_EQ(corner_normal(s.meshes[0], 0, 1), (V3{0, 0, 1}));

  // A keyed mesh and an unkeyed one at the same positions do not smooth together; two keyed
  // meshes do.
  Mesh a = make_mesh({0, 0, 0, 1, 0, 0, 0, 0, -1}, {0, 1, 2});
  Mesh b = make_mesh({0, 0, 0, 0, 1, 0, 1, 0, 0}, {0, 1, 2});
  a.smoothing.vertex_key = {0, 1, 2};
  s = Scene{};
  s.meshes = {a, b};
  EXPECT_EQ(generate_normals(s), 2u);
  EXPECT_EQ(corner_normal(s.meshes[0], 0, 0), kA);
  EXPECT_EQ(corner_normal(s.meshes[1], 0, 0), kB);
  b.smoothing.vertex_key = {0, 3, 1};
  s.meshes = {a, b};
  generate_normals(s);
  EXPECT_V3(corner_normal(s.meshes[0], 0, 0), kSmooth, 1e-6);
  EXPECT_V3(corner_normal(s.meshes[1], 0, 2), kSmooth, 1e-6);
}

TEST(OpsNormals, HardEdges) {
  // A's edge 0 -> 1 and B's edge 2 -> 0 are the shared edge. A 0 on either side keeps the faces
  // apart; a 0 elsewhere does not.
  for (auto flags : {std::vector<uint8_t>{0, 1, 1, 1, 1, 1}, std::vector<uint8_t>{1, 1, 1, 1, 1, 0}}) {
    Scene s = one(pair());
    s.meshes[0].smoothing.corner_edge = flags;
    generate_normals(s);
    expect_faceted_pair(s.meshes[0]);
  }
  Scene s = one(pair());
  s.meshes[0].smoothing.corner_edge = {1, 0, 0, 0, 0, 1};
  generate_normals(s);
  expect_smooth_pair(s.meshes[0]);

  // Flags that are all 1 change nothing: a bow tie (two triangles touching only at (0,0,0))
  // smooths there as it does without fs.
  Mesh bow = make_mesh({0, 0, 0, 1, 0, 0, 0, 0, -1, /* B */ 0, 0, 0, 0, 1, 0, -1, 0, 0}, {0, 1, 2, 3, 4, 5});
  Scene plain = one(bow);
  bow.smoothing.corner_edge.assign(6, 1);
  s = one(bow);
  generate_normals(plain);
  generate_normals(s);
  EXPECT_EQ(s.meshes[0], [&] {
    Mesh m = plain.meshes[0];
    m.smoothing.corner_edge.assign(6, 1);
    return m;
  }());
  EXPECT_EQ(s.meshes[0].vertex_count(), 5u);
}

TEST(OpsNormals, PolygonInnerDiagonalStaysSmooth) {
  // A non-planar quad q0..q3 (fan (q0 q1 q2) (q0 q2 q3)) with every polygon edge hard: its two
  // triangles still smooth across the diagonal q0-q2, so no vertex splits.
  Mesh m = make_mesh({0, 0, 0, 1, 0, 0, 1, 0.5f, -1, 0, 0, -1}, {0, 1, 2, 0, 2, 3});
  m.polygon_sizes = {4};
  m.smoothing.corner_edge = {0, 0, 0, 0};
  Scene s = one(m);
  generate_normals(s);
  const Mesh& r = s.meshes[0];
  EXPECT_EQ(r.vertex_count(), 4u);
  EXPECT_EQ(r.triangles, m.triangles);
  V3 p[4];
  for (uint32_t v = 0; v < 4; ++v) p[v] = pos(m, v);
  V3 n0 = unit(cross(sub(p[1], p[0]), sub(p[2], p[0])));
  V3 n1 = unit(cross(sub(p[2], p[0]), sub(p[3], p[0])));
  EXPECT_V3(nrm(r, 0), unit(add(scale(n0, angle(p[0], p[1], p[2])), scale(n1, angle(p[0], p[2], p[3])))), 1e-6);
  EXPECT_V3(nrm(r, 2), unit(add(scale(n0, angle(p[2], p[0], p[1])), scale(n1, angle(p[2], p[3], p[0])))), 1e-6);
  EXPECT_V3(nrm(r, 1), n0, 1e-6);
  EXPECT_V3(nrm(r, 3), n1, 1e-6);
}

TEST(OpsNormals, PolygonEdgeFlagsMapToFanTriangles) {
  // The quad of the previous test next to the floor triangle A across the quad's edge q0 -> q1
  // (corner_edge[0]); making it hard splits (0,0,0) and (1,0,0), making another edge hard does not.
  auto scene = [](std::vector<uint8_t> quad_flags) {
    Mesh m = make_mesh({0, 0, 0, 1, 0, 0, 1, 0.5f, -1, 0, 0, -1, /* tri */ 0, 0, 0, 0, 1, 0, 1, 0, 0},
                       {0, 1, 2, 0, 2, 3, 4, 5, 6});
    m.polygon_sizes = {4, 3};
    quad_flags.insert(quad_flags.end(), {1, 1, 1});
    m.smoothing.corner_edge = quad_flags;
    return one(m);
  };
  Scene s = scene({0, 1, 1, 1});
  generate_normals(s);
  EXPECT_EQ(s.meshes[0].vertex_count(), 7u);
  s = scene({1, 0, 0, 0});
  generate_normals(s);
  EXPECT_EQ(s.meshes[0].vertex_count(), 5u);
}

TEST(OpsNormals, CreaseThroughAVertexIsNotBridged) {
  // A tent of four triangles around a centre vertex; the two spokes along X are hard. Each
  // side's two triangles smooth together; the triangles touching the other side only at the
  // centre must not be summed in (they are connected around the centre only through hard edges).
  Mesh m = make_mesh({0, 0.5f, 0, 1, 0, 0, 0, 0, -1, -1, 0, 0, 0, 0, 1},
                     {0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 1});
  // Spokes: 0-1 (edge leaving corner 0 of triangle 0, reached in triangle 3) and 0-3.
  m.smoothing.corner_edge = {0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0};
  Scene s = one(m);
  generate_normals(s);
  const Mesh& r = s.meshes[0];
  V3 p[5];
  for (uint32_t v = 0; v < 5; ++v) p[v] = pos(m, v);
  auto contrib = [&](int t) {
    const uint32_t* c = &m.triangles[t * 3];
    V3 n = unit(cross(sub(p[c[1]], p[c[0]]), sub(p[c[2]], p[c[0]])));
    return scale(n, angle(p[c[0]], p[c[1]], p[c[2]]));
  };
  EXPECT_V3(corner_normal(r, 0, 0), unit(add(contrib(0), contrib(1))), 1e-6);
  EXPECT_V3(corner_normal(r, 1, 0), unit(add(contrib(0), contrib(1))), 1e-6);
  EXPECT_V3(corner_normal(r, 2, 0), unit(add(contrib(2), contrib(3))), 1e-6);
  EXPECT_EQ(r.triangles[0], r.triangles[3]);
  EXPECT_EQ(r.triangles[6], r.triangles[9]);
  EXPECT_NE(r.triangles[0], r.triangles[6]);
}

TEST(OpsNormals, SmoothingCrossesMeshBoundaries) {
  Scene s;
  s.meshes = {make_mesh({0, 0, 0, 1, 0, 0, 0, 0, -1}, {0, 1, 2}), make_mesh({0, 0, 0, 0, 1, 0, 1, 0, 0}, {0, 1, 2})};
  EXPECT_EQ(generate_normals(s), 2u);
  EXPECT_V3(nrm(s.meshes[0], 0), kSmooth, 1e-6);
  EXPECT_V3(nrm(s.meshes[0], 1), kSmooth, 1e-6);
  EXPECT_EQ(nrm(s.meshes[0], 2), kA);
  EXPECT_EQ(nrm(s.meshes[1], 0), nrm(s.meshes[0], 0));
  EXPECT_EQ(nrm(s.meshes[1], 2), nrm(s.meshes[0], 1));
  EXPECT_EQ(nrm(s.meshes[1], 1), kB);
  // With smoothangle 30 in one mesh, faceted across the boundary.
  s.meshes = {make_mesh({0, 0, 0, 1, 0, 0, 0, 0, -1}, {0, 1, 2}), make_mesh({0, 0, 0, 0, 1, 0, 1, 0, 0}, {0, 1, 2})};
  s.meshes[1].smoothing.face_angle = {30};
  generate_normals(s);
  EXPECT_EQ(nrm(s.meshes[0], 0), kA);
  EXPECT_EQ(nrm(s.meshes[1], 0), kB);
}

TEST(OpsNormals, AngleOptionOverridesTheRules) {
  NormalOptions smooth;
  smooth.angle = 180;
  Scene s = one(pair());
  s.meshes[0].smoothing.face_group = {1, 2};
  s.meshes[0].smoothing.face_angle = {0, 0};
  s.meshes[0].smoothing.corner_edge = {0, 0, 0, 0, 0, 0};
  generate_normals(s, smooth);
  expect_smooth_pair(s.meshes[0]);
  EXPECT_EQ(s.meshes[0].smoothing.face_group, (std::vector<int32_t>{1, 2}));  // rules kept
  // vs keys are ignored too (they still keep the vertices apart when welding).
  s = one(pair());
  s.meshes[0].smoothing.vertex_key = {0, 1, 2, 3, 4, 5};
  generate_normals(s, smooth);
  EXPECT_EQ(s.meshes[0].vertex_count(), 6u);
  EXPECT_V3(corner_normal(s.meshes[0], 1, 0), kSmooth, 1e-6);

  NormalOptions faceted;
  faceted.angle = 0;
  s = one(pair());
  generate_normals(s, faceted);
  expect_faceted_pair(s.meshes[0]);

  NormalOptions sixty;
  sixty.angle = 60;
  s = one(pair());
  generate_normals(s, sixty);
  expect_faceted_pair(s.meshes[0]);
  sixty.angle = 95;
  s = one(pair());
  generate_normals(s, sixty);
  expect_smooth_pair(s.meshes[0]);

  NormalOptions nan;
  nan.angle = NAN;
  s = one(pair());
  EXPECT_THROW(generate_normals(s, nan), Error);
}

TEST(OpsNormals, ExistingNormalsKeptUnlessRecompute) {
  Mesh m = pair();
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, std::vector<float>(18, 0.25f)));
  m.streams.back().format = ComponentType::Byte;
  Scene s = one(m);
  s.meshes.push_back(pair());
  s.meshes[1].name = "bare";
  Scene before = s;
  EXPECT_EQ(generate_normals(s), 1u);
  EXPECT_EQ(s.meshes[0], before.meshes[0]);  // bit-identical, not even welded
  expect_smooth_pair(s.meshes[1]);

  NormalOptions o;
  o.recompute = true;
  s = before;
  EXPECT_EQ(generate_normals(s, o), 2u);
  expect_smooth_pair(s.meshes[0]);
  size_t normal_streams = 0;
  for (const VertexStream& st : s.meshes[0].streams) normal_streams += st.attribute == Attribute::Normal;
  EXPECT_EQ(normal_streams, 1u);
  const VertexStream* n = s.meshes[0].find(Attribute::Normal);
  EXPECT_EQ(n->format, ComponentType::Float);
  EXPECT_EQ(n->source_size, 3u);
  EXPECT_EQ(n->components, 3u);
}

TEST(OpsNormals, DegenerateTriangles) {
  // T: normal +Z. D: collinear, sharing T's (0,0,0) and (1,0,0), plus (2,0,0) alone.
  Scene s = one(make_mesh({0, 0, 0, 1, 0, 0, 0, 1, 0, /* D */ 0, 0, 0, 1, 0, 0, 2, 0, 0}, {0, 1, 2, 3, 4, 5}));
  generate_normals(s);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.vertex_count(), 4u);  // D's first two corners take T's normal and weld with T's
  EXPECT_EQ(corner_normal(m, 1, 0), (V3{0, 0, 1}));
  EXPECT_EQ(corner_normal(m, 1, 1), (V3{0, 0, 1}));
  EXPECT_EQ(corner_normal(m, 1, 2), (V3{0, 1, 0}));  // nothing to sum: (0, 1, 0)
  // All three corners at one point.
  s = one(make_mesh({1, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 1, 2}));
  generate_normals(s);
  EXPECT_EQ(s.meshes[0].vertex_count(), 1u);
  EXPECT_EQ(nrm(s.meshes[0], 0), (V3{0, 1, 0}));
}

TEST(OpsNormals, OppositeFacesFallBackToTheirOwnNormal) {
  // Two back-to-back copies of a triangle: at 180 degrees they smooth, their sums cancel, and
  // each corner gets its own face normal.
  Scene s = one(make_mesh({0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 1, 2, 0, 2, 1}));
  generate_normals(s);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.vertex_count(), 6u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(corner_normal(m, 0, k), (V3{0, 0, 1}));
    EXPECT_EQ(corner_normal(m, 1, k), (V3{0, 0, -1}));
  }
}

TEST(OpsNormals, SplitVerticesFollowTheirOriginal) {
  // Shared vertices: 0 (0,0,0), 1 (1,0,0), 2 floor tip, 3 wall tip. Faceted, 0 and 1 split;
  // each copy comes right after its vertex. The unused vertex 4 stays, with (0, 1, 0).
  Mesh in = make_mesh({0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 1, 0, 9, 9, 9}, {0, 1, 2, 0, 3, 1});
  in.smoothing.face_angle = {10, 10};
  in.smoothing.vertex_key = {10, 11, 12, 13, 14};
  Scene s = one(in);
  generate_normals(s);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.vertex_count(), 7u);
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 2, 4, 1, 5, 3}));
  EXPECT_EQ(m.smoothing.vertex_key, (std::vector<int32_t>{10, 10, 11, 11, 12, 13, 14}));
  const std::vector<float> expected_normals = {0, 1, 0, 0, 0, -1, 0, 1, 0, 0, 0, -1, 0, 1, 0, 0, 0, -1, 0, 1, 0};
  EXPECT_EQ(m.find(Attribute::Normal)->data, expected_normals);
  EXPECT_EQ(m.find(Attribute::Position)->data,
            (std::vector<float>{0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, -1, 0, 1, 0, 9, 9, 9}));
  EXPECT_EQ(m.smoothing.face_angle, in.smoothing.face_angle);
}

TEST(OpsNormals, HostilePositionSharedBy50kCorners) {
  // 50,000 triangles fanning around (0,0,0), each in its own smoothgroup: each corner there keeps
  // its own face normal.
  const uint32_t n = 50000;
  std::vector<float> p = {0, 0, 0};
  std::vector<uint32_t> t;
  std::vector<int32_t> groups;
  for (uint32_t i = 0; i < n; ++i) {
    float a = float(i) * 0.0001f, b = a + 0.00005f;
    p.insert(p.end(), {std::cos(a), std::sin(a), 1, std::cos(b), std::sin(b), 1.0f + float(i % 7)});
    t.insert(t.end(), {0, 1 + 2 * i, 2 + 2 * i});
    groups.push_back(int32_t(i));
  }
  Mesh m = make_mesh(p, t);
  m.smoothing.face_group = groups;
  Scene s = one(m);
  generate_normals(s);
  const Mesh& r = s.meshes[0];
  for (uint32_t i = 0; i < n; i += 997) {
    V3 a = pos(m, t[i * 3]), b = pos(m, t[i * 3 + 1]), c = pos(m, t[i * 3 + 2]);
    V3 fn = unit(cross(sub(b, a), sub(c, a)));
    EXPECT_V3(corner_normal(r, i, 0), fn, 1e-5);
  }
  EXPECT_EQ(r.triangles.size(), t.size());

  // The same fan in one smoothgroup with smoothangle 30: too many corners to test pairwise, so
  // they are smoothed together, with a warning.
  m.smoothing.face_group.clear();
  m.smoothing.face_angle.assign(n, 30.0f);
  s = one(m);
  Diagnostics d;
  generate_normals(s, {}, &d);
  EXPECT_EQ(d.warning_count(), 1u);
  const Mesh& q = s.meshes[0];
  V3 centre = corner_normal(q, 0, 0);
  for (uint32_t i = 0; i < n; i += 997) EXPECT_EQ(corner_normal(q, i, 0), centre);
}

TEST(OpsNormals, MeshesWithoutPositionsOrTrianglesAndBadInput) {
  Scene s;
  EXPECT_EQ(generate_normals(s), 0u);
  Mesh empty;
  empty.name = "empty";
  s.meshes.push_back(empty);
  EXPECT_EQ(generate_normals(s), 0u);
  // Vertices without triangles: every vertex gets (0, 1, 0); duplicates weld.
  s = one(make_mesh({0, 0, 0, 1, 1, 1, 0, 0, 0}, {}));
  EXPECT_EQ(generate_normals(s), 1u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 2u);
  EXPECT_EQ(nrm(s.meshes[0], 1), (V3{0, 1, 0}));
  // A triangle past the vertices: an error, nothing changed.
  s = one(make_mesh({0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 1, 3}));
  Scene before = s;
  EXPECT_THROW(generate_normals(s), Error);
  EXPECT_EQ(s, before);
  // Rules of the wrong length are ignored with a warning.
  s = one(pair());
  s.meshes[0].smoothing.face_angle = {0};
  Diagnostics d;
  generate_normals(s, {}, &d);
  EXPECT_EQ(d.warning_count(), 1u);
  expect_smooth_pair(s.meshes[0]);
}

TEST(OpsNormals, FastAndGeneralPathsAgree) {
  // A smooth-everything rule that forces the general path (smoothgroup keys all equal but one
  // far-away face with another key) gives the same bits as the fast path.
  Mesh grid;
  std::vector<float> p;
  std::vector<uint32_t> t;
  const uint32_t n = 20;
  for (uint32_t y = 0; y <= n; ++y)
    for (uint32_t x = 0; x <= n; ++x)
      p.insert(p.end(), {float(x), std::sin(float(x * y) * 0.1f), float(y)});
  for (uint32_t y = 0; y < n; ++y)
    for (uint32_t x = 0; x < n; ++x) {
      uint32_t a = y * (n + 1) + x;
      t.insert(t.end(), {a, a + n + 1, a + 1, a + 1, a + n + 1, a + n + 2});
    }
  Scene fast = one(make_mesh(p, t));
  Scene general = fast;
  general.meshes[0].smoothing.face_angle.assign(t.size() / 3, 180.0f);
  general.meshes[0].smoothing.face_angle[0] = 179.0f;
  generate_normals(fast);
  generate_normals(general);
  EXPECT_EQ(fast.meshes[0].find(Attribute::Normal)->data, general.meshes[0].find(Attribute::Normal)->data);
  EXPECT_EQ(fast.meshes[0].vertex_count(), size_t((n + 1) * (n + 1)));
}

}  // namespace meshport_test_ops_normals
