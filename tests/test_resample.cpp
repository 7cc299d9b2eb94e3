// Resampling (issue 22): glTF curves (LINEAR, STEP, CUBICSPLINE) sampled exactly at the frames
// of --resample FPS, the largest error reported (and equal to the measured one), resample_error
// on Scene animations, and --resample off.
#include "gltf_builder.h"

#include <meshport/meshport.h>
#include <meshport/process.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

namespace meshport_test_resample {

using namespace meshport;
using testutil::json;

namespace {

// One joint (node 0, in a skin) of a one-triangle mesh, animated by the channels added.
struct Curves {
  testutil::GltfBuilder b;
  Curves() {
    const size_t pos = b.floats({0, 0, 0, 2, 0, 0, 0, 3, 0}, "VEC3");
    const size_t j = b.add(std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 5121, "VEC4");
    const size_t w = b.floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
    b.mesh(json::array({{{"attributes", {{"POSITION", pos}, {"JOINTS_0", j}, {"WEIGHTS_0", w}}}}}));
    b.node({{"name", "bone"}});
    b.node({{"mesh", 0}, {"skin", 0}});
    b.scene({0, 1});
    b.doc["skins"] = json::array({{{"joints", {0}}}});
    b.doc["animations"] = json::array({{{"name", "move"}, {"channels", json::array()}, {"samplers", json::array()}}});
  }
  void channel(const std::string& path, const std::vector<float>& times, const std::vector<float>& values,
               const std::string& interp) {
    json& a = b.doc["animations"][0];
    const size_t s = a["samplers"].size();
    const size_t in = b.floats(times, "SCALAR");
    const size_t out = b.floats(values, path == "rotation" ? "VEC4" : "VEC3");
    a["samplers"].push_back({{"input", in}, {"output", out}, {"interpolation", interp}});
    a["channels"].push_back({{"sampler", s}, {"target", {{"node", 0}, {"path", path}}}});
  }
  std::string file(const testutil::TempDir& t) const {
    const std::string p = t / "curves.gltf";
    std::ofstream(p) << b.gltf();
    return p;
  }
  Scene read(const testutil::TempDir& t, ResampleOptions r, Diagnostics* d = nullptr) const {
    ReadOptions o;
    o.resample = r;
    return meshport::read(file(t), o, d);
  }
};

ResampleOptions at(float fps) {
  ResampleOptions r;
  r.fps = fps;
  return r;
}

std::array<float, 4> about_y(double degrees) {
  const double h = degrees * std::numbers::pi / 360;
  return {0, float(std::sin(h)), 0, float(std::cos(h))};
}

void expect_rotation(const std::array<float, 4>& got, const std::array<float, 4>& want, float tol, size_t f) {
  const float s = got[0] * want[0] + got[1] * want[1] + got[2] * want[2] + got[3] * want[3] < 0 ? -1.0f : 1.0f;
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[size_t(i)] * s, want[size_t(i)], tol) << "frame " << f << " [" << i << "]";
}

// The number after `label` in the note, e.g. "largest error 0.1961 in translation".
double reported(const Diagnostics& d, const std::string& before) {
  for (const Diagnostic& x : d.items) {
    const size_t k = x.message.find(before);
    if (k != std::string::npos) {
      const size_t end = x.message.find(' ', k + before.size());
      return std::stod(x.message.substr(k + before.size(), end - k - before.size()));
    }
  }
  ADD_FAILURE() << "no note with '" << before << "'";
  return -1;
}

// Translation x of a linear curve through (times, xs) at t.
double linear(const std::vector<double>& times, const std::vector<double>& xs, double t) {
  if (t <= times.front()) return xs.front();
  for (size_t k = 0; k + 1 < times.size(); ++k)
    if (t <= times[k + 1]) return xs[k] + (xs[k + 1] - xs[k]) * (t - times[k]) / (times[k + 1] - times[k]);
  return xs.back();
}

}  // namespace

TEST(Resample, LinearAndStepExactlyAtTheTargetFrames) {
  testutil::TempDir t;
  Curves c;
  c.channel("translation", {0, 0.3f, 1}, {0, 0, 0, 3, 0, 0, 4, 0, 0}, "LINEAR");
  c.channel("rotation", {0, 0.35f}, {0, 0, 0, 1, 0, std::sqrt(0.5f), 0, std::sqrt(0.5f)}, "LINEAR");
  c.channel("scale", {0, 0.45f}, {1, 1, 1, 2, 2, 2}, "STEP");
  Diagnostics d;
  const Scene s = c.read(t, at(10), &d);
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.framerate, 10.0f);
  EXPECT_TRUE(a.times.empty());
  ASSERT_EQ(a.frame_count(), 11u);
  for (size_t f = 0; f < 11; ++f) {
    const double time = double(f) / 10;
    const Transform& p = a.poses[f];
    EXPECT_NEAR(p.translation[0], linear({0, 0.3, 1}, {0, 3, 4}, time), 2e-6) << f;
    expect_rotation(p.rotation, about_y(90 * std::min(time / 0.35, 1.0)), 2e-6f, f);
    EXPECT_EQ(p.scale[1], time < 0.45 ? 1.0f : 2.0f) << f;
  }
  // The note: STEP at 0.45 s, between frames 4 and 5, is blended there: off by 0.5 at the key.
  EXPECT_NEAR(reported(d, "degrees in rotation, "), 0.5, 1e-9);
}

TEST(Resample, CubicSplineByItsHermiteFormulaNormalised) {
  testutil::TempDir t;
  Curves c;
  // Translation keys at 0 and 2 s: 0 -> 1, out-tangent 2, in-tangent -1 (in, value, out per key).
  c.channel("translation", {0, 2}, {9, 9, 9, 0, 0, 0, 2, 0, 0, -1, 0, 0, 1, 0, 0, 9, 9, 9}, "CUBICSPLINE");
  // Rotation keys at 0 and 2 s: identity -> 90 degrees about Y, zero tangents.
  const float r = std::sqrt(0.5f);
  c.channel("rotation", {0, 2}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, r, 0, r, 0, 0, 0, 0},
            "CUBICSPLINE");
  const Scene s = c.read(t, at(10));
  const Animation& a = s.animations[0];
  ASSERT_EQ(a.frame_count(), 21u);
  for (size_t f = 0; f < 21; ++f) {
    const double u = double(f) / 20, u2 = u * u, u3 = u2 * u;
    const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    EXPECT_NEAR(a.poses[f].translation[0], h10 * 2 * 2 + h01 * 1 + h11 * 2 * -1, 2e-6) << f;
    // h00 * identity + h01 * q1, normalised.
    const double y = h01 * r, w = h00 + h01 * r, l = std::sqrt(y * y + w * w);
    expect_rotation(a.poses[f].rotation, {0, float(y / l), 0, float(w / l)}, 2e-6f, f);
  }
}

// A rotation at a constant rate sampled at a rate whose frames fall on its keys: nothing lost.
TEST(Resample, ConstantRateRotationAtADivisorRateHasNoError) {
  testutil::TempDir t;
  Curves c;
  c.channel("rotation", {0, 0.5f, 1},
            {0, 0, 0, 1, 0, std::sqrt(0.5f), 0, std::sqrt(0.5f), 0, 1, 0, 0}, "LINEAR");  // 0, 90, 180 degrees
  Diagnostics d;
  const Scene s = c.read(t, at(8), &d);
  ASSERT_EQ(s.animations[0].frame_count(), 9u);
  for (size_t f = 0; f < 9; ++f) expect_rotation(s.animations[0].poses[f].rotation, about_y(22.5 * double(f)), 2e-6f, f);
  EXPECT_LT(reported(d, "degrees in rotation, "), 1e-3);
  EXPECT_LT(reported(d, "largest error "), 1e-6);
}

// Uneven keys: the reported error is the largest difference between the curve and its frames,
// measured here densely (every 0.1 ms).
TEST(Resample, ReportedErrorIsTheMeasuredLargest) {
  testutil::TempDir t;
  Curves c;
  c.channel("translation", {0, 0.15f, 1}, {0, 0, 0, 1, 0, 0, 0, 0, 0}, "LINEAR");
  c.channel("rotation", {0, 0.12f, 1}, {0, 0, 0, 1, 0, std::sqrt(0.5f), 0, std::sqrt(0.5f), 0, 0, 0, 1}, "LINEAR");
  Diagnostics d;
  const Scene s = c.read(t, at(10), &d);
  const Animation& a = s.animations[0];
  ASSERT_EQ(a.frame_count(), 11u);
  double max_t = 0, max_deg = 0;
  for (int i = 0; i <= 10000; ++i) {
    const double time = i * 1e-4;
    const double x = time * 10;
    const size_t f0 = std::min<size_t>(size_t(x), 9);
    const double u = x - double(f0);
    const double got = a.poses[f0].translation[0] + (a.poses[f0 + 1].translation[0] - a.poses[f0].translation[0]) * u;
    max_t = std::max(max_t, std::fabs(got - linear({0, 0.15, 1}, {0, 1, 0}, time)));
    // Rotation about Y: the frames' angles blended (slerp about one axis is linear in the angle).
    auto angle = [&](size_t f) { return 2 * std::atan2(double(a.poses[f].rotation[1]), double(a.poses[f].rotation[3])); };
    const double got_deg = (angle(f0) + (angle(f0 + 1) - angle(f0)) * u) * 180 / std::numbers::pi;
    max_deg = std::max(max_deg, std::fabs(got_deg - linear({0, 0.12, 1}, {0, 90, 0}, time)));
  }
  EXPECT_NEAR(max_t, 1 - (2.0 / 3 + (1 - 0.05 / 0.85)) / 2, 1e-5);  // at the key 0.15 s
  EXPECT_NEAR(reported(d, "largest error "), max_t, 1e-3 * max_t);
  EXPECT_NEAR(reported(d, "in translation, "), max_deg, 1e-3 * max_deg);
}

TEST(Resample, ErrorOfSceneAnimations) {
  Animation a;
  a.name = "uneven";
  a.channels = 1;
  a.times = {0, 0.15f, 1};
  a.poses.resize(3);
  a.poses[1].translation = {1, 0, 0};
  const Animation r = resample_animation(a, 10);
  const ResampleError e = resample_error(a, r);
  EXPECT_NEAR(e.translation, 1 - (2.0 / 3 + (1 - 0.05 / 0.85)) / 2, 1e-6);
  EXPECT_EQ(e.degrees, 0.0);
  EXPECT_EQ(e.scale, 0.0);
  // Evenly spaced frames of a steady motion at 24 fps, resampled at 30 fps: nothing lost.
  Animation even;
  even.channels = 1;
  even.framerate = 24;
  for (int f = 0; f <= 24; ++f) {
    Transform p;
    p.translation = {float(f) / 24, 0, 0};
    even.poses.push_back(p);
  }
  Animation timed = even;
  for (int f = 0; f <= 24; ++f) timed.times.push_back(float(f) / 24);
  const Animation r30 = resample_animation(timed, 30);
  EXPECT_EQ(r30.frame_count(), 31u);
  EXPECT_LT(resample_error(even, r30).translation, 1e-6);
}

TEST(Resample, ConvertResamplesAndReportsOtherSourcesToo) {
  testutil::TempDir t;
  Curves c;
  c.channel("translation", {0, 0.15f, 1}, {0, 0, 0, 1, 0, 0, 0, 0, 0}, "LINEAR");
  const std::string in = c.file(t);
  auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --resample 10", in, t / "a.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("note: animation 'move' sampled at 10 fps (--resample): largest error 0.1961 in translation"),
            std::string::npos)
      << r.out;
  const Scene iqm = read(t / "a.iqm");
  ASSERT_EQ(iqm.animations.size(), 1u);
  EXPECT_EQ(iqm.animations[0].framerate, 10.0f);
  EXPECT_EQ(iqm.animations[0].frame_count(), 11u);
  // IQM (10 fps) -> IQE at 4 fps: resampled by the writer, with its error.
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --resample 4", t / "a.iqm", t / "b.iqe"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("note: animation 'move' resampled at 4 fps (--resample): largest error "), std::string::npos)
      << r.out;
  EXPECT_EQ(read(t / "b.iqe").animations[0].frame_count(), 5u);
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --resample fast", in, t / "c.iqm"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("expects frames per second (above 0, at most 1000) or 'off', got 'fast'"), std::string::npos)
      << r.out;
}

// --resample off: uneven glTF keys are kept as key times; a format of evenly spaced frames
// refuses them, glTF keeps them.
TEST(Resample, OffKeepsUnevenKeysAndRefusesFixedRateFormats) {
  testutil::TempDir t;
  Curves c;
  c.channel("translation", {0, 0.15f, 1}, {0, 0, 0, 1, 0, 0, 0, 0, 0}, "LINEAR");
  c.channel("scale", {0, 0.4f}, {1, 1, 1, 2, 2, 2}, "LINEAR");
  ResampleOptions off;
  off.off = true;
  const Scene s = c.read(t, off);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.times, (std::vector<float>{0, 0.15f, 0.4f, 1}));
  ASSERT_EQ(a.frame_count(), 4u);
  EXPECT_EQ(a.poses[1].translation[0], 1.0f);
  EXPECT_EQ(a.poses[2].scale[0], 2.0f);
  WriteOptions w;
  w.resample = off;
  try {
    write(s, t / "x.iqm", w);
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("animation 'move' has unevenly spaced keys, and iqm holds evenly spaced "
                                         "frames only (--resample off)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(t / "x.iqm"));
  write(s, t / "x.glb", w);
  EXPECT_EQ(read(t / "x.glb").animations[0].times, a.times);
  auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --resample off", c.file(t), t / "y.iqe"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("iqe holds evenly spaced frames only"), std::string::npos) << r.out;
}

}  // namespace meshport_test_resample
