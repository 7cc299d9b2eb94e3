// Attaching animations to a skeleton: by joint name, or by index with a count and parent check
// (more in test_clips.cpp: duplicates, retargeting).
#include <meshport/meshport.h>

#include <gtest/gtest.h>

namespace meshport_test_attach {

using namespace meshport;

namespace {

Scene skeleton(std::initializer_list<std::pair<const char*, int>> joints) {
  Scene s;
  for (auto [name, parent] : joints) {
    Joint j;
    j.name = name;
    j.parent = parent;
    j.rest.translation = {static_cast<float>(s.joints.size()), 0, 0};
    s.joints.push_back(j);
  }
  return s;
}

Animation anim(const char* name, uint32_t channels, uint32_t frames) {
  Animation a;
  a.name = name;
  a.framerate = 10;
  a.channels = channels;
  for (uint32_t f = 0; f < frames; ++f)
    for (uint32_t c = 0; c < channels; ++c) {
      Transform t;
      t.translation = {static_cast<float>(f), static_cast<float>(c), 0};
      a.poses.push_back(t);
    }
  return a;
}

}  // namespace

TEST(Attach, ByNameReordersChannels) {
  Scene target = skeleton({{"root", -1}, {"arm", 0}, {"hand", 1}});
  Scene source = skeleton({{"root", -1}, {"hand", 2}, {"arm", 0}});
  source.joints[1].parent = 2;  // hand's parent is arm (index 2 here)
  // The same rest transforms by name: the channels are copied (other rests retarget: test_clips.cpp).
  source.joints[1].rest = target.joints[2].rest;
  source.joints[2].rest = target.joints[1].rest;
  // keep parents valid for a reader (parent before child) is not required for matching
  source.animations.push_back(anim("walk", 3, 2));
  Diagnostics d;
  attach_animations(target, source, "walk.iqe", &d);
  ASSERT_EQ(target.animations.size(), 1u);
  const Animation& a = target.animations[0];
  EXPECT_EQ(a.name, "walk");
  EXPECT_EQ(a.channels, 3u);
  ASSERT_EQ(a.frame_count(), 2u);
  // target joint 1 "arm" is source channel 2; target 2 "hand" is source channel 1
  EXPECT_EQ(a.poses[1 * 3 + 1].translation[1], 2.0f);
  EXPECT_EQ(a.poses[1 * 3 + 2].translation[1], 1.0f);
  EXPECT_EQ(a.poses[1 * 3 + 0].translation[0], 1.0f);
}

TEST(Attach, MissingJointsKeepRestPoseWithWarning) {
  Scene target = skeleton({{"root", -1}, {"tail", 0}});
  Scene source = skeleton({{"root", -1}});
  source.animations.push_back(anim("idle", 1, 1));
  Diagnostics d;
  attach_animations(target, source, "idle.iqe", &d);
  ASSERT_EQ(target.animations.size(), 1u);
  EXPECT_EQ(target.animations[0].poses[1], target.joints[1].rest);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(), "idle.iqe: warning: joints not animated here keep their rest pose: 'tail'");
}

TEST(Attach, NoMatchingNameIsAnError) {
  // The reference compiler silently attaches a 3-joint animation to a 1-joint mesh by index.
  Scene target = skeleton({{"r", -1}});
  Scene source = skeleton({{"x", -1}, {"y", 0}, {"z", 1}});
  source.animations.push_back(anim("walk", 3, 2));
  try {
    attach_animations(target, source, "anim3.iqe", nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "anim3.iqe: error: cannot attach animations: none of its 3 joints is named like one of the "
                 "skeleton's 1 joints");
  }
  EXPECT_TRUE(target.animations.empty());
}

TEST(Attach, ByIndexNeedsMatchingCount) {
  Scene target = skeleton({{"a", -1}, {"b", 0}});
  Scene source;  // animation-only: no joints
  source.animations.push_back(anim("run", 3, 1));
  try {
    attach_animations(target, source, "run.iqm", nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "run.iqm: error: cannot attach animations by joint index (it has no joints, only poses): it has 3 "
                 "poses per frame but the skeleton has 2 joints");
  }
  source.animations[0] = anim("run", 2, 4);
  attach_animations(target, source, "run.iqm", nullptr);
  ASSERT_EQ(target.animations.size(), 1u);
  EXPECT_EQ(target.animations[0].frame_count(), 4u);
  EXPECT_EQ(target.animations[0].poses[3 * 2 + 1].translation[0], 3.0f);
}

TEST(Attach, ByIndexChecksPoseParents) {
  Scene target = skeleton({{"a", -1}, {"b", 0}});
  Scene source;
  source.iqm.emplace().pose_parents = {-1, -1};
  source.animations.push_back(anim("run", 2, 1));
  EXPECT_THROW(attach_animations(target, source, "run.iqm", nullptr), Error);
  source.iqm->pose_parents = {-1, 0};
  EXPECT_NO_THROW(attach_animations(target, source, "run.iqm", nullptr));
}

TEST(Attach, TargetWithoutSkeletonIsAnError) {
  Scene target;
  Scene source = skeleton({{"a", -1}});
  source.animations.push_back(anim("x", 1, 1));
  EXPECT_THROW(attach_animations(target, source, "x.iqe", nullptr), Error);
}

TEST(Attach, SourceWithoutAnimationsWarns) {
  Scene target = skeleton({{"a", -1}});
  Scene source = skeleton({{"a", -1}});
  Diagnostics d;
  attach_animations(target, source, "x.iqe", &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].message, "no animations to attach");
}

}  // namespace meshport_test_attach
