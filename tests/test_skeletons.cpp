// Issue 16: skeletons users report broken in other tools stay right through IQE <-> IQM <-> glTF:
// several root joints, joints that do not sit on their parent's tail (offset sideways, rotated,
// scaled), an animation-only file's joint names. Compared with meshport::diff, which checks
// skinned world-space positions at every frame.
#include "test_util.h"

#include <meshport/diff.h>
#include <meshport/meshport.h>

#include <gtest/gtest.h>

#include <cmath>

namespace meshport_test_skeletons {

using namespace meshport;

namespace {

using testutil::trs;

// Two root chains: "hips" -> "spine" (offset sideways from the hips, rotated 90 degrees about Z)
// and a second root "prop" far from the first, with a child "prop.tip" scaled non-uniformly.
// One quad per joint, each corner bound to one joint (some to two).
Scene awkward() {
  Scene s;
  const float h = std::sqrt(0.5f);
  s.joints = {{"hips", -1, trs({0, 1, 0})},
              {"spine", 0, trs({0.3f, 0.2f, -0.1f}, {0, 0, h, h})},
              {"prop", -1, trs({2, 0, 1}, {h, 0, 0, h})},
              {"prop.tip", 2, trs({0, 0.5f, 0}, {0, 0, 0, 1}, {1, 2, 1})}};
  Mesh m;
  m.name = "body";
  std::vector<float> pos, uv, nrm, bi, bw;
  std::vector<uint32_t> tris;
  for (uint32_t j = 0; j < 4; ++j) {
    const float x = float(j) * 0.5f;
    const float corners[4][3] = {{x, 0, 0}, {x + 0.4f, 0, 0}, {x + 0.4f, 0.4f, 0}, {x, 0.4f, 0}};
    for (int c = 0; c < 4; ++c) {
      pos.insert(pos.end(), corners[c], corners[c] + 3);
      uv.insert(uv.end(), {corners[c][0], corners[c][1]});
      nrm.insert(nrm.end(), {0, 0, 1});
      const float other = float((j + 1) % 4);
      if (c == 2) {
        bi.insert(bi.end(), {float(j), other});
        bw.insert(bw.end(), {0.6f, 0.4f});  // 153 and 102 of 255: exact in IQM's bytes
      } else {
        bi.insert(bi.end(), {float(j), 0});
        bw.insert(bw.end(), {1, 0});
      }
    }
    const uint32_t b = j * 4;
    tris.insert(tris.end(), {b, b + 1, b + 2, b, b + 2, b + 3});
  }
  m.streams = {testutil::float_stream(Attribute::Position, 3, pos), testutil::float_stream(Attribute::Texcoord, 2, uv),
               testutil::float_stream(Attribute::Normal, 3, nrm),
               testutil::float_stream(Attribute::BlendIndices, 2, bi),
               testutil::float_stream(Attribute::BlendWeights, 2, bw)};
  m.streams[3].format = ComponentType::UByte;
  m.streams[4].format = ComponentType::UByte;
  m.triangles = tris;
  s.meshes.push_back(m);
  Animation a;
  a.name = "sway";
  a.framerate = 10;
  a.loop = true;
  a.channels = 4;
  for (int f = 0; f < 5; ++f) {
    const float t = float(f) * 0.3f;
    const float c = std::cos(t / 2), sn = std::sin(t / 2);
    a.poses.push_back(trs({0, 1 + 0.1f * float(f), 0}, {0, sn, 0, c}));
    a.poses.push_back(trs({0.3f, 0.2f, -0.1f}, {0, 0, h, h}));
    a.poses.push_back(trs({2, 0, 1 - 0.2f * float(f)}, {h, 0, 0, h}));
    a.poses.push_back(trs({0, 0.5f, 0}, {sn, 0, 0, c}, {1, 2 - 0.1f * float(f), 1}));
  }
  s.animations.push_back(a);
  return s;
}

Scene through(const Scene& s, Format f, const char* name) {
  Diagnostics d;
  return read_memory(write_memory(s, f, {}, &d), f, name, &d);
}

std::string dump(const std::vector<Difference>& d) {
  std::string out;
  for (const Difference& x : d) out += to_string(x) + "\n";
  return out;
}

}  // namespace

TEST(Skeletons, SeveralRootsAndOffsetJointsThroughEveryFormat) {
  const Scene s = awkward();
  DiffOptions o;
  o.tolerance = 2e-5f;
  const Scene iqe = through(s, Format::Iqe, "a.iqe");
  const Scene iqm = through(iqe, Format::Iqm, "a.iqm");
  const Scene glb = through(iqm, Format::Glb, "a.glb");
  const Scene back = through(glb, Format::Iqe, "b.iqe");
  const Scene gltf_first = through(through(s, Format::Gltf, "c.gltf"), Format::Iqm, "c.iqm");
  for (const Scene* x : {&iqe, &iqm, &glb, &back, &gltf_first}) {
    const auto d = diff(s, *x, o);
    EXPECT_TRUE(d.empty()) << dump(d);
    ASSERT_EQ(x->joints.size(), 4u);
    EXPECT_EQ(x->joints[0].parent, -1);
    EXPECT_EQ(x->joints[2].parent, -1);
    EXPECT_EQ(x->joints[3].name, "prop.tip");
  }
  // The test can fail: moving a root is a difference.
  Scene moved = back;
  moved.animations[0].poses[2].translation[0] += 1;
  EXPECT_FALSE(diff(s, moved, o).empty());
}

// An animation-only file (no meshes) keeps its joint names and hierarchy through IQM, IQE and glTF.
TEST(Skeletons, AnimationOnlyFilesKeepJointNames) {
  Scene s = awkward();
  s.meshes.clear();
  for (Format f : {Format::Iqm, Format::Iqe, Format::Glb}) {
    const Scene r = through(s, f, "anim");
    ASSERT_EQ(r.joints.size(), s.joints.size()) << format_info(f).name;
    for (size_t j = 0; j < s.joints.size(); ++j) {
      EXPECT_EQ(r.joints[j].name, s.joints[j].name) << format_info(f).name;
      EXPECT_EQ(r.joints[j].parent, s.joints[j].parent) << format_info(f).name;
    }
    ASSERT_EQ(r.animations.size(), 1u);
    EXPECT_EQ(r.animations[0].name, "sway");
    EXPECT_EQ(r.animations[0].frame_count(), 5u);
    const auto d = diff(s, r, {});
    EXPECT_TRUE(d.empty()) << format_info(f).name << "\n" << dump(d);
  }
}

}  // namespace meshport_test_skeletons
