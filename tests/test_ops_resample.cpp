// resample_animation: uneven key times to evenly spaced frames.
#include <meshport/process.h>

#include <gtest/gtest.h>

#include <cmath>

namespace meshport_test_ops_resample {

using namespace meshport;

namespace {

Animation keyed() {
  Animation a;
  a.name = "run";
  a.channels = 1;
  a.times = {0.0f, 0.4f, 0.5f};
  Transform k0, k1, k2;
  k1.translation = {4, 0, 0};
  k2.translation = {4, 2, 0};
  k2.scale = {3, 3, 3};
  k2.rotation = {0, 0, std::sqrt(0.5f), std::sqrt(0.5f)};  // 90 degrees about Z
  a.poses = {k0, k1, k2};
  return a;
}

}  // namespace

TEST(Resample, EvenlySpacedFramesInterpolateBetweenKeys) {
  Animation r = resample_animation(keyed(), 10);
  EXPECT_TRUE(r.times.empty());
  EXPECT_EQ(r.framerate, 10);
  ASSERT_EQ(r.frame_count(), 6u);  // 0, 0.1, ..., 0.5
  EXPECT_FLOAT_EQ(r.poses[1].translation[0], 1.0f);
  EXPECT_FLOAT_EQ(r.poses[3].translation[0], 3.0f);
  EXPECT_EQ(r.poses[4].translation, (std::array<float, 3>{4, 0, 0}));  // exactly the key at 0.4
  EXPECT_EQ(r.poses[5].translation, (std::array<float, 3>{4, 2, 0}));  // the last key
  EXPECT_EQ(r.poses[5].scale, (std::array<float, 3>{3, 3, 3}));
  EXPECT_NEAR(r.poses[5].rotation[2], std::sqrt(0.5f), 1e-6f);
}

TEST(Resample, HalfwayRotationIsSpherical) {
  Animation a = keyed();
  a.times = {0.0f, 1.0f, 2.0f};
  Animation r = resample_animation(a, 2);  // frames at 0, 0.5, ..., 2
  ASSERT_EQ(r.frame_count(), 5u);
  // Halfway between identity and 90 degrees about Z: 45 degrees.
  EXPECT_NEAR(r.poses[3].rotation[2], std::sin(0.3926991f), 1e-6f);
  EXPECT_NEAR(r.poses[3].rotation[3], std::cos(0.3926991f), 1e-6f);
}

TEST(Resample, DurationNotAWholeNumberOfFramesHoldsTheLastKey) {
  Animation a = keyed();
  a.times = {0.0f, 0.4f, 0.45f};
  Animation r = resample_animation(a, 10);
  ASSERT_EQ(r.frame_count(), 6u);  // 0 .. 0.4, then 0.45 held at frame 5
  EXPECT_EQ(r.poses[5].translation, (std::array<float, 3>{4, 2, 0}));
}

TEST(Resample, WithoutTimesNothingChanges) {
  Animation a = keyed();
  a.times.clear();
  a.framerate = 24;
  EXPECT_EQ(resample_animation(a, 10), a);
}

// Key times from hostile files (the fuzz seeds made from tests/hostile found the first: a
// negative span converted to a frame count): decreasing or non-finite times give one frame, a
// span too long for memory is an error.
TEST(Resample, HostileKeyTimes) {
  Animation a;
  a.name = "bad";
  a.channels = 1;
  a.poses.resize(2);
  a.poses[1].translation = {1, 0, 0};
  a.times = {1.0f, -1.0f};
  Animation r = resample_animation(a, 30);
  ASSERT_EQ(r.frame_count(), 1u);
  EXPECT_EQ(r.poses[0], a.poses[1]);  // the last key at or before the first key's time

  a.times = {0.0f, NAN};
  EXPECT_EQ(resample_animation(a, 30).frame_count(), 1u);
  a.times = {NAN, 1.0f};
  EXPECT_EQ(resample_animation(a, 30).frame_count(), 31u);

  a.times = {0.0f, 1e30f};
  try {
    (void)resample_animation(a, 30);
    FAIL() << "resampled";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, "animation 'bad': 1.0000000150474662e+30 s at 30 fps for 1 channels needs more "
                                      "than 2097152 poses");
  }
}

}  // namespace meshport_test_ops_resample
