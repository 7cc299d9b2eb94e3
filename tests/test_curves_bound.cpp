// Animation curves within a stated bound (issue 33, docs/animations.md "Curves within a bound"):
// a glTF CUBICSPLINE channel shaped like InterpolationTest's "CubicSpline Translation" (5 keys
// 10/24 s apart) is sampled at a multiple of its keys' rate that keeps the frames, blended as a
// player blends them, within 1e-4 of the model's size of the exact Hermite curve, for IQM and for
// glTF, and the note names the rate; STEP channels stay STEP with their keys in glTF, and IQM
// (which has no step interpolation) gets frames exact at their times and a warning.
#include "gltf_builder.h"

#include <meshport/meshport.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>

namespace meshport_test_curves_bound {

using namespace meshport;
using testutil::json;

namespace {

constexpr double kKeyGap = 10.0 / 24;
constexpr double kPi = 3.14159265358979323846;  // InterpolationTest's keys: every 10 frames at 24 fps

// A cube (+-1) on node 0 "Cube", animated by one translation channel of animation "move".
struct CubeAnimation {
  testutil::GltfBuilder b;
  CubeAnimation(const std::vector<float>& times, const std::vector<float>& values, const std::string& interp,
                const std::string& path = "translation") {
    std::vector<float> pos;
    for (int i = 0; i < 8; ++i) pos.insert(pos.end(), {i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : -1.0f});
    const std::vector<uint16_t> tris = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                        2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    const size_t p = b.floats(pos, "VEC3");
    const size_t ix = b.ushorts(tris);
    b.mesh(json::array({{{"attributes", {{"POSITION", p}}}, {"indices", ix}}}), "cube");
    b.node({{"name", "Cube"}, {"mesh", 0}});
    b.scene({0});
    const size_t in = b.floats(times, "SCALAR");
    const size_t out = b.floats(values, path == "rotation" ? "VEC4" : "VEC3");
    b.doc["animations"] = json::array(
        {{{"name", "move"},
          {"samplers", json::array({{{"input", in}, {"output", out}, {"interpolation", interp}}})},
          {"channels", json::array({{{"sampler", 0}, {"target", {{"node", 0}, {"path", path}}}}})}}});
  }
  std::string file(const testutil::TempDir& t) const {
    const std::string p = t / "cube.gltf";
    std::ofstream(p) << b.gltf();
    return p;
  }
};

// Five keys 10/24 s apart; per key in-tangent, value, out-tangent (glTF's CUBICSPLINE layout).
// x moves steadily (tangents 2.4 = 1 unit per key), y bounces 0, 2, 0, 2, 0 with steep tangents
// at the bottom and flat ones at the top: between keys the curve is far from a straight line.
const std::vector<float> kCubicTimes = {0, float(kKeyGap), float(2 * kKeyGap), float(3 * kKeyGap),
                                        float(4 * kKeyGap)};
const std::vector<float> kCubicValues = {
    0,   0,  0, 0, 0, 0, 2.4f, 6,  0,  // key 0
    2.4f, 0, 0, 1, 2, 0, 2.4f, 0,  0,  // key 1
    2.4f, -6, 0, 2, 0, 0, 2.4f, 6, 0,  // key 2
    2.4f, 0, 0, 3, 2, 0, 2.4f, 0,  0,  // key 3
    2.4f, -6, 0, 4, 0, 0, 0,   0,  0,  // key 4
};

// The glTF specification's Hermite spline at time t (seconds), in double: with u the fraction of
// the key interval dt, p = (2u^3 - 3u^2 + 1) v_k + (u^3 - 2u^2 + u) dt b_k + (-2u^3 + 3u^2) v_k+1 +
// (u^3 - u^2) dt a_k+1 (b_k key k's out-tangent, a_k+1 key k+1's in-tangent).
std::array<double, 3> hermite(double t) {
  const size_t n = kCubicTimes.size();
  auto at = [&](size_t key, size_t part, int c) { return double(kCubicValues[(key * 3 + part) * 3 + size_t(c)]); };
  if (t <= kCubicTimes[0]) return {at(0, 1, 0), at(0, 1, 1), at(0, 1, 2)};
  if (t >= kCubicTimes[n - 1]) return {at(n - 1, 1, 0), at(n - 1, 1, 1), at(n - 1, 1, 2)};
  size_t k = 0;
  while (t >= kCubicTimes[k + 1]) ++k;
  const double dt = double(kCubicTimes[k + 1]) - kCubicTimes[k], u = (t - kCubicTimes[k]) / dt;
  const double u2 = u * u, u3 = u2 * u;
  std::array<double, 3> p{};
  for (int c = 0; c < 3; ++c)
    p[size_t(c)] = (2 * u3 - 3 * u2 + 1) * at(k, 1, c) + (u3 - 2 * u2 + u) * dt * at(k, 2, c) +
                   (-2 * u3 + 3 * u2) * at(k + 1, 1, c) + (u3 - u2) * dt * at(k + 1, 0, c);
  return p;
}

// The largest distance between the clip's frames, blended linearly as a player does (frame f at
// f / framerate), and the exact curve, every 0.1 ms over the keys' span.
double dense_error(const Animation& a) {
  const size_t frames = a.frame_count();
  double worst = 0;
  for (int i = 0; i <= 16667; ++i) {
    const double t = i * 1e-4;
    const double x = std::min(t * a.framerate, double(frames - 1));
    const size_t f0 = std::min(size_t(x), frames - 2);
    const double u = x - double(f0);
    const std::array<double, 3> want = hermite(t);
    double d2 = 0;
    for (size_t c = 0; c < 3; ++c) {
      const double p0 = a.poses[f0].translation[c], p1 = a.poses[f0 + 1].translation[c];
      d2 += (p0 + (p1 - p0) * u - want[c]) * (p0 + (p1 - p0) * u - want[c]);
    }
    worst = std::max(worst, std::sqrt(d2));
  }
  return worst;
}

// The bound: 1e-4 of the model's size, the diagonal of the cube's box (2 sqrt(3)).
const double kBound = 1e-4 * 2 * std::sqrt(3.0);

// The note the reader prints for the clip: its rate and errors.
const char* kNote =
    "animations[0] ('move'): CUBICSPLINE curves sampled at 122.4 fps (51 times the keys' 2.4 fps; 205 frames): "
    "largest error 0.0003321 in translation, 0 degrees in rotation, 0 in scale; nearest its bound: "
    "animations[0].channels[0] (node 0 'Cube', translation), error 0.0003321 within the bound 0.0003464 (0.0001 of "
    "the model's size 3.464)";

}  // namespace

TEST(CurvesBound, CubicSplineToGltfWithinTheBoundAtTheRateTheNoteNames) {
  testutil::TempDir t;
  const CubeAnimation c(kCubicTimes, kCubicValues, "CUBICSPLINE");
  const auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}'", c.file(t), t / "out.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(std::string("note: ") + kNote), std::string::npos) << r.out;
  const Scene s = read(t / "out.glb");
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_NEAR(a.framerate, 122.4, 1e-4);
  ASSERT_EQ(a.frame_count(), 205u);  // 51 frames per key interval: every key is a frame
  // Measured every 0.1 ms against the exact curve: under the bound (5 frames at 2.4 fps: 0.3369).
  EXPECT_LT(dense_error(a), kBound);
  EXPECT_NEAR(dense_error(a), 3.32e-4, 1e-6);
}

TEST(CurvesBound, CubicSplineToIqmWithinTheBound) {
  testutil::TempDir t;
  const CubeAnimation c(kCubicTimes, kCubicValues, "CUBICSPLINE");
  const auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}'", c.file(t), t / "out.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(std::string("note: ") + kNote), std::string::npos) << r.out;
  const Scene s = read(t / "out.iqm");
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_NEAR(a.framerate, 122.4, 1e-4);
  ASSERT_EQ(a.frame_count(), 205u);
  // IQM stores each channel in 16 bits over its range (x 0..4, y 0..2): at most half a step off.
  EXPECT_LT(dense_error(a), kBound + 0.5 * (4.0 + 2.0) / 65535);
}

TEST(CurvesBound, ToleranceOptionAndTheFrameCap) {
  testutil::TempDir t;
  const CubeAnimation c(kCubicTimes, kCubicValues, "CUBICSPLINE");
  // 10 times the default bound: fewer frames.
  auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --curve-tolerance 1e-3", c.file(t), t / "a.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("note: animations[0] ('move'): CUBICSPLINE curves sampled at 38.4 fps (16 times the keys' 2.4 "
                       "fps; 65 frames)"),
            std::string::npos)
      << r.out;
  const Scene s = read(t / "a.glb");
  EXPECT_EQ(s.animations[0].frame_count(), 65u);
  EXPECT_LT(dense_error(s.animations[0]), 10 * kBound);
  // A bound no rate reaches: the most frames the cap allows, and a warning.
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --curve-tolerance 1e-14", c.file(t), t / "b.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("warning: animations[0] ('move'): CUBICSPLINE curves sampled at 39319.2 fps (16383 times the "
                       "keys' 2.4 fps; 65533 frames), the most the cap of 65536 frames allows: largest error "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("above the bound 3.464e-14 (1e-14 of the model's size 3.464) (--curve-tolerance sets the "
                       "bound)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(read(t / "b.glb").animations[0].frame_count(), 65533u);
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --curve-tolerance 0", c.file(t), t / "c.glb"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--curve-tolerance: expects T[,DEGREES], numbers above 0"), std::string::npos) << r.out;
}

// InterpolationTest's "Step Scale" keys: 1/24 s, then every 10/24 s, off one grid from time 0.
const std::vector<float> kStepTimes = {float(1.0 / 24), float(10.0 / 24), float(20.0 / 24), float(30.0 / 24),
                                       float(40.0 / 24)};
const std::vector<float> kStepValues = {0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0};

TEST(CurvesBound, StepToGltfStaysStepWithItsKeys) {
  testutil::TempDir t;
  const CubeAnimation c(kStepTimes, kStepValues, "STEP");
  const auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}'", c.file(t), t / "out.gltf"));
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream f(t / "out.gltf");
  const json doc = json::parse(f);
  ASSERT_EQ(doc["animations"].size(), 1u);
  const json& smp = doc["animations"][0]["samplers"];
  ASSERT_EQ(smp.size(), 1u);
  EXPECT_EQ(smp[0]["interpolation"], "STEP");
  EXPECT_EQ(doc["accessors"][smp[0]["input"].get<size_t>()]["count"], 5);
  const Scene s = read(t / "out.gltf");
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.interpolation, Interpolation::Step);
  EXPECT_EQ(a.times, kStepTimes);
  ASSERT_EQ(a.frame_count(), 5u);
  for (size_t k = 0; k < 5; ++k)
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(a.poses[k].translation[i], kStepValues[k * 3 + i]) << k;
}

TEST(CurvesBound, StepToIqmExactAtTheFramesWithAWarning) {
  testutil::TempDir t;
  const CubeAnimation c(kStepTimes, kStepValues, "STEP");
  const auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}'", c.file(t), t / "out.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("warning: animation 'move': iqm has no step interpolation: its 51 frames hold the STEP poses "
                       "exactly, but players blend between them instead of holding each until the next"),
            std::string::npos)
      << r.out;
  const Scene s = read(t / "out.iqm");
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.framerate, 30.0f);
  ASSERT_EQ(a.frame_count(), 51u);
  // Frame f at f / 30 s holds the last key at or before it (the first before the first key).
  for (size_t f = 0; f < 51; ++f) {
    size_t k = 0;
    while (k + 1 < kStepTimes.size() && double(kStepTimes[k + 1]) <= double(f) / 30 + 1e-6) ++k;
    EXPECT_EQ(a.poses[f].translation[1], kStepValues[k * 3 + 1]) << f;
  }
}

// A CUBICSPLINE rotation about Y (0, 90, 180 degrees at 0, 0.5, 1 s; in-tangents 0, out-tangents
// 0.8 in x, so the curve leaves the plane of its keys): converted to glb at the rate that keeps it
// within 0.01 degrees of the normalised Hermite curve.
TEST(CurvesBound, CubicSplineRotationWithinDegrees) {
  testutil::TempDir t;
  const float h = std::sqrt(0.5f);
  const std::vector<float> times = {0, 0.5f, 1};
  const std::vector<float> values = {0, 0, 0, 0, 0, 0, 0, 1, 0.8f, 0, 0, 0,   // key 0: in, value, out
                                     0, 0, 0, 0, 0, h, 0, h, 0.8f, 0, 0, 0,   // key 1
                                     0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};     // key 2
  const CubeAnimation c(times, values, "CUBICSPLINE", "rotation");
  const auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}'", c.file(t), t / "out.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("note: animations[0] ('move'): CUBICSPLINE curves sampled at 162 fps (81 times the keys' 2 "
                       "fps; 163 frames): largest error 0 in translation, 0.009774 degrees in rotation, 0 in scale; "
                       "nearest its bound: animations[0].channels[0] (node 0 'Cube', rotation), error 0.009774 "
                       "within the bound 0.01 degrees"),
            std::string::npos)
      << r.out;
  const Scene s = read(t / "out.glb");
  const Animation& a = s.animations[0];
  // The exact curve: the Hermite form of each component, normalised.
  auto curve = [&](double time) {
    const size_t k = time >= 0.5 ? 1 : 0;
    const double dt = 0.5, u = std::min((time - 0.5 * double(k)) / dt, 1.0), u2 = u * u, u3 = u2 * u;
    std::array<double, 4> q{};
    double l = 0;
    for (size_t i = 0; i < 4; ++i) {
      q[i] = (2 * u3 - 3 * u2 + 1) * values[(k * 3 + 1) * 4 + i] + (u3 - 2 * u2 + u) * dt * values[(k * 3 + 2) * 4 + i] +
             (-2 * u3 + 3 * u2) * values[(k * 3 + 4) * 4 + i] + (u3 - u2) * dt * values[(k * 3 + 3) * 4 + i];
      l += q[i] * q[i];
    }
    for (double& x : q) x /= std::sqrt(l);
    return q;
  };
  // The frames slerped (by their own angle), against the curve, every 0.1 ms: the angle between.
  double worst = 0;
  const size_t frames = a.frame_count();
  for (int i = 0; i <= 10000; ++i) {
    const double time = i * 1e-4, x = std::min(time * a.framerate, double(frames - 1));
    const size_t f0 = std::min(size_t(x), frames - 2);
    const double u = x - double(f0);
    std::array<double, 4> p{}, q{};
    for (size_t j = 0; j < 4; ++j) p[j] = a.poses[f0].rotation[j], q[j] = a.poses[f0 + 1].rotation[j];
    double dot = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    if (dot < 0)
      for (double& v : q) v = -v;
    dot = std::min(std::fabs(dot), 1.0);
    const double th = std::acos(dot);
    std::array<double, 4> g{};
    for (size_t j = 0; j < 4; ++j)
      g[j] = th < 1e-9 ? p[j] : (std::sin((1 - u) * th) * p[j] + std::sin(u * th) * q[j]) / std::sin(th);
    const std::array<double, 4> w = curve(time);
    // The angle between the two rotations, 4 atan2(|g - w|, |g + w|) (exact near 0, where acos of a
    // dot product loses it to the floats' rounding), with the sign of w nearer g.
    double dm = 0, dp = 0;
    for (size_t j = 0; j < 4; ++j) dm += (g[j] - w[j]) * (g[j] - w[j]), dp += (g[j] + w[j]) * (g[j] + w[j]);
    const double e = 4 * std::atan2(std::sqrt(std::min(dm, dp)), std::sqrt(std::max(dm, dp))) * 180 / kPi;
    worst = std::max(worst, e);
  }
  EXPECT_LT(worst, 0.01);
  EXPECT_NEAR(worst, 0.009774, 2e-4);  // the error the note reports, measured at 7 points a frame
  EXPECT_EQ(frames, 163u);  // 3 frames at 2 fps before: up to 11.45 degrees off between keys
}

}  // namespace meshport_test_curves_bound
