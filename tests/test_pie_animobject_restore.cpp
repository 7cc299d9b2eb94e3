// Issue 32, item 2: PIE ANIMOBJECT frames kept as raw values (docs/pie.md) are written back when
// the poses equal them within the rounding of thousandths (Blender's float noise at the file's
// frame rate), frame by frame otherwise, never silently: a warning names the level, how many
// frames changed and the frame rate to set in Blender. The last test runs Blender (corpus
// runanim.pie, 100 fps: Blender at 24 and at 100 fps).
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

namespace meshport_test_pie_animobject_restore {

using namespace meshport;
namespace fs = std::filesystem;

namespace {

const std::string kData = MESHPORT_TEST_DATA;

std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

// The ANIMOBJECT blocks of a PIE text (header and frame lines).
std::vector<std::string> animobject_lines(const std::string& pie) {
  std::vector<std::string> r;
  size_t left = 0;
  size_t at = 0;
  while (at < pie.size()) {
    size_t end = pie.find('\n', at);
    if (end == std::string::npos) end = pie.size();
    const std::string line = pie.substr(at, end - at);
    if (left > 0) {
      r.push_back(line);
      --left;
    } else if (line.starts_with("ANIMOBJECT ")) {
      r.push_back(line);
      left = std::stoul(line.substr(line.rfind(' ') + 1));
    }
    at = end + 1;
  }
  return r;
}

std::string warnings_with(const Diagnostics& d, const std::string& part) {
  std::string r;
  for (const auto& x : d.items)
    if (x.message.find(part) != std::string::npos) r += x.message + "\n";
  return r;
}

}  // namespace

// Float noise on every pose (what a tool's float rounding leaves): the kept frames, no warning.
// Before, the exact comparison failed and the frames were derived: level 1's 90° about x became
// other numbers.
TEST(PieAnimObjectRestore, FloatNoiseKeepsTheRawFrames) {
  const Scene s = read(kData + "/pie/feat-anim.pie");
  Scene noisy = s;
  for (Transform& t : noisy.animations[0].poses) {
    for (float& x : t.translation) x += 2e-7f;
    t.rotation[0] += 3e-7f;
    t.rotation[3] -= 2e-7f;
    for (float& x : t.scale)
      if (x != 0) x *= 1.0000002f;
  }
  Diagnostics d;
  const std::string back = text_of(write_memory(noisy, Format::Pie, {}, &d));
  EXPECT_EQ(back, text_of(write_memory(s, Format::Pie)));
  EXPECT_EQ(warnings_with(d, "ANIMOBJECT"), "");
}

// A frame moved (as Blender re-sampling at another rate moves every frame between its keys): that
// frame is written from the animation, the others as kept, with a warning naming the level, the
// counts and the frame rate to set (100 ms: 10 fps).
TEST(PieAnimObjectRestore, ChangedFramesWarnAndKeepTheRest) {
  Scene s = read(kData + "/pie/feat-anim.pie");
  ASSERT_EQ(s.animations.size(), 1u);
  Animation& a = s.animations[0];
  const int32_t joint = s.pie->levels[0].joint;
  a.poses[1 * a.channels + size_t(joint)].translation[0] += 0.25f;  // level 1, frame 1: x 1 -> 1.25
  Diagnostics d;
  const std::string back = text_of(write_memory(s, Format::Pie, {}, &d));
  const std::vector<std::string> lines = animobject_lines(back);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "ANIMOBJECT 100 0 2");
  EXPECT_EQ(lines[1], "\t0 0 0 0 0 0 0 1 1 1");  // kept
  EXPECT_TRUE(lines[2].starts_with("\t1 1250 2000 3000 ")) << lines[2];
  EXPECT_EQ(warnings_with(d, "ANIMOBJECT"),
            "level 1: ANIMOBJECT: 1 of its 2 frames differ from the file's kept frames: those written from the "
            "animation, the other 1 as kept; edited, or re-sampled at another frame rate (Blender samples at its "
            "scene frame rate: set the scene to 10 fps before importing to keep the file's keys)\n");
}

// No animation at the kept time and frame count (the frame count changed): the frames are derived
// from the animation, with a warning.
TEST(PieAnimObjectRestore, OtherFrameCountWarns) {
  Scene s = read(kData + "/pie/feat-anim.pie");
  Animation& a = s.animations[0];
  a.poses.resize(a.poses.size() + a.channels);
  std::copy_n(a.poses.begin() + a.channels, a.channels, a.poses.end() - a.channels);
  Diagnostics d;
  write_memory(s, Format::Pie, {}, &d);
  const std::string w = warnings_with(d, "ANIMOBJECT");
  EXPECT_NE(w.find("level 1: ANIMOBJECT: no animation has the file's 2 frames at 100 ms: written from the animation "
                   "(3 frames at 100 ms); edited, or re-sampled at another frame rate (Blender samples at its scene "
                   "frame rate: set the scene to 10 fps before importing to keep the file's keys)\n"),
            std::string::npos)
      << w;
}

// Warzone 2100's runanim.pie (10 levels, ANIMOBJECT 10 ms, 40 frames) through Blender: at 100 fps
// the file's frames come back exactly (before: 309 of 400 frame lines written as other numbers);
// at 24 fps the frames on both grids (0 and 25) come back, the others are re-sampled, with one
// warning per level naming 100 fps.
TEST(BlenderRoundTrip, PieAnimObjectAt100And24Fps) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const Scene s = read(testutil::corpus("pie/wz2100-4.5.5/base/components/bodies/runanim.pie"));
  const std::vector<std::string> direct = animobject_lines(text_of(write_memory(s, Format::Pie)));
  ASSERT_EQ(direct.size(), 410u);
  write(s, dir / "in.glb");
  const std::string script = std::string(MESHPORT_TEST_DATA) + "/../blender/roundtrip.py";
  const std::string cmd = "blender -b --factory-startup --python-exit-code 1 --python '" + script + "' -- --fps 100 '" +
                          (dir / "in.glb") + "' '" + (dir / "100.glb") + "' --fps 24 '" +
                          (dir / "in.glb") + "' '" + (dir / "24.glb") + "' 2>&1";
  std::string log;
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  ASSERT_EQ(::pclose(p), 0) << log;
  {
    Diagnostics d;
    const std::string back = text_of(write_memory(read(dir / "100.glb"), Format::Pie, {}, &d));
    EXPECT_EQ(animobject_lines(back), direct);
    EXPECT_EQ(warnings_with(d, "ANIMOBJECT"), "");
  }
  Diagnostics d;
  const std::vector<std::string> back = animobject_lines(text_of(write_memory(read(dir / "24.glb"), Format::Pie, {}, &d)));
  ASSERT_EQ(back.size(), direct.size());
  size_t differ = 0;
  for (size_t k = 0; k < 10; ++k) {
    const size_t head = k * 41;
    EXPECT_EQ(back[head], direct[head]);
    EXPECT_EQ(back[head + 1], direct[head + 1]) << k;    // frame 0 (0 s)
    EXPECT_EQ(back[head + 26], direct[head + 26]) << k;  // frame 25 (0.25 s = Blender's frame 6)
    for (size_t f = 0; f < 40; ++f) differ += back[head + 1 + f] != direct[head + 1 + f];
  }
  EXPECT_EQ(differ, 380u);
  const std::string w = warnings_with(d, "ANIMOBJECT");
  EXPECT_EQ(std::count(w.begin(), w.end(), '\n'), 10);
  EXPECT_NE(w.find("level 10: ANIMOBJECT: 38 of its 40 frames differ from the file's kept frames: those written from "
                   "the animation, the other 2 as kept; edited, or re-sampled at another frame rate (Blender samples "
                   "at its scene frame rate: set the scene to 100 fps before importing to keep the file's keys)"),
            std::string::npos)
      << w;
}

}  // namespace meshport_test_pie_animobject_restore
