// ops: simplify_meshes (src/ops/mesh/simplify.cpp): fewer triangles, per-triangle data kept on the
// region it described, every stream following the kept vertices, limits that always hold.
#include "test_util.h"

#include <meshport/meshport.h>
#include <meshport/process.h>

#include <gtest/gtest.h>

#include <cmath>

namespace meshport_test_ops_simplify {

using namespace meshport;

namespace {

// An n x n grid of quads in the XZ plane (2 n^2 triangles), slightly bumpy so that the simplifier
// has work to do, with UVs, normals and a face channel: 1 on the left half (x < 0.5), 2 on the right.
Mesh grid(int n) {
  Mesh m;
  m.name = "grid";
  std::vector<float> pos, uv, nrm;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const float x = float(i) / float(n), z = float(j) / float(n);
      pos.insert(pos.end(), {x, 0.01f * std::sin(x * 6.0f) * std::cos(z * 5.0f), z});
      uv.insert(uv.end(), {x, z});
      nrm.insert(nrm.end(), {0, 1, 0});
    }
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, uv));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, nrm));
  FaceChannel ch;
  ch.name = "pie.flags";
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const uint32_t a = uint32_t(j * (n + 1) + i), b = a + 1, c = a + uint32_t(n + 1), d = c + 1;
      m.triangles.insert(m.triangles.end(), {a, c, b, b, c, d});
      const uint32_t flag = i < n / 2 ? 1 : 2;
      ch.data.insert(ch.data.end(), {flag, flag});
    }
  m.face_channels.push_back(ch);
  return m;
}

float centroid_x(const Mesh& m, size_t t) {
  const VertexStream& p = *m.find(Attribute::Position);
  float x = 0;
  for (int k = 0; k < 3; ++k) x += p.get(m.triangles[t * 3 + size_t(k)], 0);
  return x / 3;
}

}  // namespace

TEST(OpsSimplify, MaxTrianglesHoldsAndFaceDataStaysOnItsRegion) {
  Scene s;
  s.meshes.push_back(grid(80));  // 12800 triangles
  Diagnostics d;
  SimplifyOptions o;
  o.max_triangles = 8192;
  EXPECT_EQ(simplify_meshes(s, o, &d), 1u);
  const Mesh& m = s.meshes[0];
  const size_t tris = m.triangles.size() / 3;
  EXPECT_LE(tris, 8192u);
  EXPECT_GT(tris, 4000u);  // it stops near the target, not far below
  const size_t vc = m.vertex_count();
  for (const VertexStream& st : m.streams) EXPECT_EQ(st.vertex_count(), vc);
  for (uint32_t i : m.triangles) ASSERT_LT(i, vc);
  ASSERT_EQ(m.face_channels.size(), 1u);
  ASSERT_EQ(m.face_channels[0].face_count(), tris);
  // Triangles well inside each half keep that half's flag.
  size_t checked = 0;
  for (size_t t = 0; t < tris; ++t) {
    const float x = centroid_x(m, t);
    if (x < 0.45f) {
      EXPECT_EQ(m.face_channels[0].data[t], 1u);
      ++checked;
    }
    if (x > 0.55f) {
      EXPECT_EQ(m.face_channels[0].data[t], 2u);
      ++checked;
    }
  }
  EXPECT_GT(checked, tris / 2);
  // UVs still follow their positions (the grid's uv = (x, z)).
  const VertexStream& p = *m.find(Attribute::Position);
  const VertexStream& uv = *m.find(Attribute::Texcoord);
  for (size_t v = 0; v < vc; ++v) {
    EXPECT_EQ(uv.get(v, 0), p.get(v, 0));
    EXPECT_EQ(uv.get(v, 1), p.get(v, 2));
  }
}

TEST(OpsSimplify, RatioAndMeshesWithinTheTargetAreUntouched) {
  Scene s;
  s.meshes.push_back(grid(40));  // 3200 triangles
  s.meshes.push_back(grid(2));   // 8
  const Mesh small = s.meshes[1];
  SimplifyOptions o;
  o.ratio = 0.25f;
  o.max_triangles = 1000;  // the smaller target wins for the big mesh: min(800, 1000)
  simplify_meshes(s, o);
  EXPECT_LE(s.meshes[0].triangles.size() / 3, 800u);
  EXPECT_GT(s.meshes[0].triangles.size() / 3, 400u);
  // 8 * 0.25 = 2 triangles wanted: the simplifier keeps the flat square's corners, never fewer
  // than the shape needs; whatever it does, the data stays consistent.
  EXPECT_LE(s.meshes[1].triangles.size(), small.triangles.size());
  // Nothing to do: unchanged.
  Scene t;
  t.meshes.push_back(grid(4));
  const Scene before = t;
  SimplifyOptions none;
  none.max_triangles = 100;
  EXPECT_EQ(simplify_meshes(t, none), 0u);
  EXPECT_EQ(t, before);
}

TEST(OpsSimplify, LineMeshesAreLeftAlone) {
  Scene s;
  Mesh lines = grid(4);
  lines.face_channels.clear();
  lines.topology = Topology::Lines;  // its 96 indices read as 48 segments
  s.meshes.push_back(lines);
  SimplifyOptions o;
  o.ratio = 0.1f;
  EXPECT_EQ(simplify_meshes(s, o), 0u);
  EXPECT_EQ(s.meshes[0], lines);
}

TEST(OpsSimplify, BadRatioIsAnError) {
  Scene s;
  s.meshes.push_back(grid(2));
  SimplifyOptions o;
  o.ratio = 0;
  EXPECT_THROW(simplify_meshes(s, o), Error);
  o.ratio = 1.5f;
  EXPECT_THROW(simplify_meshes(s, o), Error);
}

// A PIE level over the engine's limit: refused with the limit, its source and the flag; the
// flag makes it fit.
TEST(OpsSimplify, PieLevelOverTheLimitSuggestsAndTakesSimplifyTo) {
  testutil::TempDir dir;
  Scene s;
  s.meshes.push_back(grid(70));  // 9800 triangles
  const std::string in = (dir.path / "big.iqm").string();
  write(s, in);
  const std::string out = (dir.path / "big.pie").string();
  testutil::CliRun r = testutil::run_cli("convert " + in + " -o " + out);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("a PIE level holds at most 8192 polygons (Warzone 2100 draws a level with 16-bit indices; "
                       "docs/pie.md); simplify it with --simplify-to 8192"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = testutil::run_cli("convert " + in + " -o " + out + " --simplify-to 8192");
  ASSERT_EQ(r.status, 0) << r.out;
  Scene back = read(out);
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_LE(back.meshes[0].triangles.size() / 3, 8192u);
  EXPECT_GT(back.meshes[0].triangles.size() / 3, 4000u);
  r = testutil::run_cli("convert " + in + " -o " + out + " --simplify 2");
  EXPECT_NE(r.status, 0);
}

}  // namespace meshport_test_ops_simplify
