// Rest and per-frame skinned bounds (src/ops/mesh/bounds.h).
#include "ops/mesh/bounds.h"

#include "core/math.h"
#include "ops/mesh/axes.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <fstream>
#include <iterator>
#include <random>

namespace meshport_test_ops_bounds {

using namespace meshport;
using namespace meshport::ops;

namespace {

Transform translate(float x, float y, float z) {
  Transform t;
  t.translation = {x, y, z};
  return t;
}

// The unweighted.iqe edge case in Scene space: a triangle at file z = 5 (Scene y = 5) whose
// third vertex has no weights, and a frame that lifts the joint by 1.
Scene unweighted() {
  Scene s;
  s.joints.push_back({"r", -1, {}});
  Mesh m;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 5, 0, 1, 5, 0, 0, 5, -1}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 1, {0, 0, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 1, {1, 1, 0}));
  m.triangles = {0, 2, 1};
  s.meshes.push_back(m);
  Animation a;
  a.name = "a";
  a.channels = 1;
  a.poses = {Transform{}, translate(0, 1, 0)};
  s.animations.push_back(a);
  return s;
}

// Straightforward reference: per frame, per vertex, per influence.
std::vector<FrameBounds> naive(const Scene& s) {
  std::vector<FrameBounds> out;
  const size_t nj = s.joints.size();
  std::vector<Mat3x4> rest(nj);
  for (size_t j = 0; j < nj; ++j) {
    const Transform& t = s.joints[j].rest;
    Mat3x4 l = mat_from_trs(t.translation, t.rotation, t.scale);
    rest[j] = s.joints[j].parent >= 0 ? mat_mul(rest[s.joints[j].parent], l) : l;
  }
  for (const Animation& a : s.animations)
    for (size_t f = 0; f < a.frame_count(); ++f) {
      std::vector<Mat3x4> world(nj);
      for (size_t j = 0; j < nj; ++j) {
        const Transform& t = a.poses[f * a.channels + j];
        Mat3x4 l = mat_from_trs(t.translation, t.rotation, t.scale);
        world[j] = s.joints[j].parent >= 0 ? mat_mul(world[s.joints[j].parent], l) : l;
      }
      FrameBounds b;
      bool first = true;
      float r2 = 0, h2 = 0;
      for (const Mesh& m : s.meshes) {
        const VertexStream* p = m.find(Attribute::Position);
        const VertexStream* bi = m.find(Attribute::BlendIndices);
        const VertexStream* bw = m.find(Attribute::BlendWeights);
        for (size_t v = 0; v < p->vertex_count(); ++v) {
          Vec3 q{p->get(v, 0), p->get(v, 1), p->get(v, 2)};
          Vec3 acc{0, 0, 0};
          float sum = 0;
          for (uint32_t c = 0; bi && c < bi->components; ++c) {
            float w = bw->get(v, c);
            if (w == 0) continue;
            size_t j = size_t(bi->get(v, c));
            acc = acc + mat_apply(mat_mul(world[j], mat_inverse(rest[j])), q) * w;
            sum += w;
          }
          if (sum != 0) q = acc;
          for (int c = 0; c < 3; ++c) {
            b.min[c] = first ? q[c] : std::min(b.min[c], q[c]);
            b.max[c] = first ? q[c] : std::max(b.max[c], q[c]);
          }
          first = false;
          r2 = std::max(r2, dot(q, q));
          h2 = std::max(h2, q[0] * q[0] + q[2] * q[2]);
        }
      }
      b.radius = std::sqrt(r2);
      b.horizontal_radius = std::sqrt(h2);
      out.push_back(b);
    }
  return out;
}

void expect_near(const FrameBounds& a, const FrameBounds& b, float tol) {
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(a.min[c], b.min[c], tol);
    EXPECT_NEAR(a.max[c], b.max[c], tol);
  }
  EXPECT_NEAR(a.radius, b.radius, tol);
  EXPECT_NEAR(a.horizontal_radius, b.horizontal_radius, tol);
}

}  // namespace

TEST(OpsBounds, RestBoundsStillWork) {
  Scene s = unweighted();
  Bounds b = rest_bounds(s);
  EXPECT_FALSE(b.empty);
  EXPECT_EQ(b.min, (std::array<float, 3>{0, 5, -1}));
  EXPECT_EQ(b.max, (std::array<float, 3>{1, 5, 0}));
  EXPECT_TRUE(rest_bounds(Scene{}).empty);
}

TEST(OpsBounds, UnweightedVertexStaysAtItsRestPosition) {
  std::vector<FrameBounds> f = frame_bounds(unweighted());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].min, (std::array<float, 3>{0, 5, -1}));
  EXPECT_EQ(f[0].max, (std::array<float, 3>{1, 5, 0}));
  // frame 1: the weighted vertices rise to y = 6; the unweighted one stays at (0, 5, -1), not the origin.
  EXPECT_EQ(f[1].min, (std::array<float, 3>{0, 5, -1}));
  EXPECT_EQ(f[1].max, (std::array<float, 3>{1, 6, 0}));
  EXPECT_FLOAT_EQ(f[1].radius, std::sqrt(37.0f));
  EXPECT_FLOAT_EQ(f[1].horizontal_radius, 1.0f);  // in the X-Z plane
  EXPECT_FLOAT_EQ(f[0].radius, std::sqrt(26.0f));
}

TEST(OpsBounds, HierarchyAndBlending) {
  Scene s;
  s.joints.push_back({"root", -1, {}});
  Transform child = translate(0, 1, 0);
  child.scale = {2, 2, 2};  // a rest scale, undone by the inverse rest matrix
  s.joints.push_back({"child", 0, child});
  Mesh m;
  // vertex 0 fully on the child, vertex 1 half on each joint
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 2, 0, 1, 0, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 2, {1, 0, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 2, {1, 0, 0.5f, 0.5f}));
  s.meshes.push_back(m);
  Animation a;
  a.channels = 2;
  Transform spin;  // root turned 90 degrees about +Z
  spin.rotation = {0, 0, std::sqrt(0.5f), std::sqrt(0.5f)};
  a.poses = {Transform{}, child, spin, child};
  s.animations.push_back(a);
  std::vector<FrameBounds> f = frame_bounds(s);
  ASSERT_EQ(f.size(), 2u);
  // frame 1: vertex 0 = R90 * (0, 2, 0) = (-2, 0, 0); vertex 1 = R90 * (1, 0, 0) = (0, 1, 0) by both joints
  EXPECT_NEAR(f[1].min[0], -2, 1e-5);
  EXPECT_NEAR(f[1].max[1], 1, 1e-5);
  EXPECT_NEAR(f[1].radius, 2, 1e-5);
  expect_near(f[1], naive(s)[1], 1e-5f);
}

TEST(OpsBounds, MatchesANaiveSkinnerOnARandomRigUsingTwoThreads) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  Scene s;
  const int joints = 12;
  for (int j = 0; j < joints; ++j) {
    Transform t = translate(u(rng), u(rng) + 1, u(rng));
    t.rotation = quat_normalize({u(rng), u(rng), u(rng), 1});
    s.joints.push_back({fmt::format("j{}", j), j ? int(rng() % j) : -1, t});
  }
  for (int mi = 0; mi < 2; ++mi) {
    Mesh m;
    const size_t n = 20000;  // 40k vertices x 27 frames: above the two-thread threshold (2^20)
    std::vector<float> p, bi, bw;
    for (size_t v = 0; v < n; ++v) {
      p.insert(p.end(), {u(rng) * 3, u(rng) * 3, u(rng) * 3});
      float w0 = std::fabs(u(rng)), w1 = std::fabs(u(rng)), w2 = v % 17 == 0 ? 0.0f : std::fabs(u(rng));
      if (v % 29 == 0) w0 = w1 = w2 = 0;  // unweighted
      bi.insert(bi.end(), {float(rng() % joints), float(rng() % joints), float(rng() % joints)});
      bw.insert(bw.end(), {w0, w1, w2});
    }
    m.streams.push_back(testutil::float_stream(Attribute::Position, 3, p));
    m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 3, bi));
    m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 3, bw));
    s.meshes.push_back(m);
  }
  for (int an = 0; an < 2; ++an) {
    Animation a;
    a.channels = joints;
    for (int f = 0; f < 10 + an * 7; ++f)  // 10 + 17 frames: a partial block of 16
      for (int j = 0; j < joints; ++j) {
        Transform t = s.joints[j].rest;
        t.rotation = quat_normalize({u(rng), u(rng), u(rng), 2});
        t.scale = {1 + u(rng) * 0.2f, 1, 1};
        a.poses.push_back(t);
      }
    s.animations.push_back(a);
  }
  std::vector<FrameBounds> fast = frame_bounds(s), ref = naive(s);
  ASSERT_EQ(fast.size(), 27u);
  for (size_t f = 0; f < fast.size(); ++f) expect_near(fast[f], ref[f], 1e-4f);
  // Any thread count gives the same bounds, to the bit.
  const std::vector<FrameBounds> one = ops::skinned_frame_bounds(s, 1);
  for (unsigned threads : {2u, 3u, 5u}) {
    const std::vector<FrameBounds> many = ops::skinned_frame_bounds(s, threads);
    ASSERT_EQ(many.size(), one.size());
    for (size_t f = 0; f < one.size(); ++f) {
      SCOPED_TRACE(fmt::format("{} threads, frame {}", threads, f));
      EXPECT_EQ(many[f].min, one[f].min);
      EXPECT_EQ(many[f].max, one[f].max);
      EXPECT_EQ(many[f].radius, one[f].radius);
      EXPECT_EQ(many[f].horizontal_radius, one[f].horizontal_radius);
    }
  }
}

// Bounds compared to the bit (EXPECT_EQ on floats: -0 and +0 would be equal, so their bits).
void expect_same_bits(const std::vector<FrameBounds>& a, const std::vector<FrameBounds>& b) {
  ASSERT_EQ(a.size(), b.size());
  auto bits = [](float x) { return std::bit_cast<uint32_t>(x); };
  for (size_t f = 0; f < a.size(); ++f) {
    SCOPED_TRACE(fmt::format("frame {}", f));
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(bits(a[f].min[c]), bits(b[f].min[c])) << a[f].min[c] << " " << b[f].min[c];
      EXPECT_EQ(bits(a[f].max[c]), bits(b[f].max[c])) << a[f].max[c] << " " << b[f].max[c];
    }
    EXPECT_EQ(bits(a[f].radius), bits(b[f].radius));
    EXPECT_EQ(bits(a[f].horizontal_radius), bits(b[f].horizontal_radius));
  }
}

// Clusters of vertices that cannot move a frame's bounds are not skinned (bounds.cpp): a bending
// sheet of 25,600 vertices on a chain of 6 joints, weights blending neighbouring joints, as
// floats and as the IQM writer's bytes, with what makes a cluster untestable (a NaN position, a
// negative weight, a joint outside the skeleton, an unweighted vertex, more than 8 joints). Over a
// third of the vertex-frames must be skipped, and the bounds must be those of skinning every
// vertex, to the bit.
TEST(OpsBounds, SkippedClustersGiveTheExactBounds) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  Scene s;
  const int joints = 12;
  for (int j = 0; j < joints; ++j) s.joints.push_back({fmt::format("j{}", j), j - 1, translate(0, j ? 0.5f : 0, 0)});
  const size_t columns = 512, rows = 50, n = columns * rows;
  std::vector<float> p, bi, bw;
  std::vector<uint8_t> ib, wb;
  for (size_t v = 0; v < n; ++v) {
    const float x = float(v % columns) / columns, y = float(v / columns) * 0.06f;
    p.insert(p.end(), {x - 0.5f, y, 0.2f * std::sin(x * 6)});
    const int j = std::min(int(y / 0.5f), 4);
    const float t = std::clamp(y / 0.5f - float(j), 0.0f, 1.0f);
    const uint8_t b0 = uint8_t(std::lround((1 - t) * 255)), b1 = uint8_t(255 - b0);
    bi.insert(bi.end(), {float(j), float(j + 1), 0});
    bw.insert(bw.end(), {b0 / 255.0f, b1 / 255.0f, 0});
    ib.insert(ib.end(), {uint8_t(j), uint8_t(j + 1), 0});
    wb.insert(wb.end(), {b0, b1, 0});
  }
  // The odd vertices, each in a cluster of its own (clusters are 64 vertices).
  p[3 * 700 + 1] = std::numeric_limits<float>::quiet_NaN();
  bw[3 * 1300 + 2] = -0.25f, bi[3 * 1300 + 2] = 3;
  bi[3 * 1900 + 1] = 40, ib[3 * 1900 + 1] = 40;
  bw[3 * 2500] = bw[3 * 2500 + 1] = 0, wb[3 * 2500] = wb[3 * 2500 + 1] = 0;
  for (size_t v = 3100; v < 3100 + 9; ++v) bi[3 * v] = float(v - 3100), ib[3 * v] = uint8_t(v - 3100);
  for (int an = 0; an < 2; ++an) {
    Animation a;
    a.channels = joints;
    for (int f = 0; f < 11 + an * 9; ++f)  // 11 + 20 frames: blocks of 16 and partial ones
      for (int j = 0; j < joints; ++j) {
        Transform t = s.joints[j].rest;
        t.rotation = quat_normalize({0.15f * u(rng), 0.1f * u(rng), 0.15f * u(rng), 1});
        a.poses.push_back(t);
      }
    s.animations.push_back(a);
  }
  float byte_weight[256];
  for (int b = 0; b < 256; ++b) byte_weight[b] = float(b) / 255.0f;
  ops::SkinArrays floats;
  floats.positions = p.data();
  floats.count = n;
  floats.influences = 3;
  floats.indices = bi.data();
  floats.index_stride = 3;
  floats.weights = bw.data();
  floats.weight_stride = 3;
  ops::SkinArrays bytes = floats;
  bytes.indices = nullptr;
  bytes.weights = nullptr;
  bytes.index_bytes = ib.data();
  bytes.weight_bytes = wb.data();
  bytes.weight_values = byte_weight;
  for (const ops::SkinArrays& m : {floats, bytes})
    for (unsigned threads : {1u, 2u}) {
      SCOPED_TRACE(fmt::format("{} arrays, {} threads", m.weights ? "float" : "byte", threads));
      uint64_t skipped = 0;
      const std::vector<FrameBounds> culled = ops::skinned_frame_bounds(s, {&m, 1}, threads, true, &skipped);
      const std::vector<FrameBounds> every = ops::skinned_frame_bounds(s, {&m, 1}, threads, false);
      ASSERT_EQ(culled.size(), 31u);
      expect_same_bits(culled, every);
      EXPECT_GT(skipped, uint64_t(n) * 31 / 3);  // 43 % of the vertex-frames when written
    }
}

TEST(OpsBounds, NoVerticesGiveZeros) {
  Scene s = unweighted();
  s.meshes.clear();
  std::vector<FrameBounds> f = frame_bounds(s);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].max, (std::array<float, 3>{0, 0, 0}));
  EXPECT_EQ(f[1].radius, 0.0f);
  EXPECT_TRUE(frame_bounds(Scene{}).empty());
}

TEST(OpsBounds, MrfixitAgreesWithTheReferenceCompiler) {
  // Every mrfixit vertex is weighted, so the reference compiler's bounds are right there. It
  // computed them from the IQE's poses before quantising them; we skin with the dequantised
  // poses of its output, so they agree to about the quantisation step.
  REQUIRE_CORPUS();
  const std::string path = testutil::corpus("iqm/derived/mrfixit.roundtrip-by-upstream-compiler.iqm");
  Scene s = read(path);
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), {});
  auto h = testutil::iqm_header(b);
  std::vector<FrameBounds> f = frame_bounds(s);
  ASSERT_EQ(f.size(), h.num_frames);
  for (size_t i = 0; i < f.size(); ++i) {
    auto file = [&](int k) { return testutil::peek<float>(b, h.ofs_bounds + i * 32 + k * 4); };
    // Scene -> Z-up (x, -z, y)
    EXPECT_NEAR(file(0), f[i].min[0], 5e-4);
    EXPECT_NEAR(file(1), -f[i].max[2], 5e-4);
    EXPECT_NEAR(file(2), f[i].min[1], 5e-4);
    EXPECT_NEAR(file(3), f[i].max[0], 5e-4);
    EXPECT_NEAR(file(4), -f[i].min[2], 5e-4);
    EXPECT_NEAR(file(5), f[i].max[1], 5e-4);
    EXPECT_NEAR(file(6), f[i].horizontal_radius, 5e-4);
    EXPECT_NEAR(file(7), f[i].radius, 5e-4);
  }
}

}  // namespace meshport_test_ops_bounds
