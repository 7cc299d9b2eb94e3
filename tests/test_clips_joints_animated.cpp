// Issue 32, item 3: `meshport anims`' "joints animated" counts joints that move by more than float
// noise (raylib's guy.iqm: 14 and 7 counted bit for bit, 8 and 4 after `convert` to IQM, whose
// quantisation removed noise of about 1e-6; 6 and 1 of its joints move), and the skeleton's joints
// only (not channels past them).
#include <meshport/clips.h>
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>

namespace meshport_test_clips_joints_animated {

using namespace meshport;

namespace {

// `joints` joints, one clip of 3 frames and `channels` channels, each of `moving` moved in frame 2.
Scene clip(size_t joints, uint32_t channels, std::vector<size_t> moving) {
  Scene s;
  for (size_t j = 0; j < joints; ++j) {
    Joint jt;
    jt.name = "j" + std::to_string(j);
    jt.parent = j == 0 ? -1 : 0;
    s.joints.push_back(jt);
  }
  Animation a;
  a.name = "walk";
  a.framerate = 10;
  a.channels = channels;
  a.poses.assign(3 * channels, Transform{});
  for (size_t c : moving) a.poses[2 * channels + c].translation[1] = 1;
  s.animations.push_back(a);
  return s;
}

}  // namespace

TEST(ClipsJointsAnimated, ChannelsPastTheSkeletonAreNotJoints) {
  // 7 joints, 14 channels: joints 0 and 6 move, and channels 7..13 (no joint's).
  const Scene s = clip(7, 14, {0, 6, 7, 8, 9, 10, 11, 12, 13});
  const std::vector<ClipInfo> c = list_clips(s);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].joints_animated, 2u);
  EXPECT_EQ(c[0].frames, 3u);
  // Every joint moving counts each once; an animation-only Scene (no joints) counts its channels.
  EXPECT_EQ(list_clips(clip(4, 4, {0, 1, 2, 3}))[0].joints_animated, 4u);
  EXPECT_EQ(list_clips(clip(0, 4, {1, 3}))[0].joints_animated, 2u);
}

// Float noise (IQM quantisation: about 1e-6) is not motion; 2e-5 is, and a quaternion turned to
// -q is the same rotation.
TEST(ClipsJointsAnimated, FloatNoiseIsNotMotion) {
  Scene s = clip(5, 5, {});
  Animation& a = s.animations[0];
  a.poses[1 * 5 + 0].translation[0] = 1e-6f;           // noise
  a.poses[2 * 5 + 1].rotation = {1e-6f, 0, 0, 1};       // noise
  a.poses[1 * 5 + 2].rotation = {0, 0, 0, -1};          // -q: the same rotation
  a.poses[2 * 5 + 3].scale = {1.000001f, 1, 1};         // noise
  a.poses[2 * 5 + 4].translation[2] = 2e-5f;            // moves
  EXPECT_EQ(list_clips(s)[0].joints_animated, 1u);
  a.poses[1 * 5 + 1].rotation = {2e-5f, 0, 0, 1};       // moves
  EXPECT_EQ(list_clips(s)[0].joints_animated, 2u);
}

}  // namespace meshport_test_clips_joints_animated
