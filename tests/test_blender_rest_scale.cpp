// Issue 32, item 1: a joint's rest scale through Blender (Swordsman.qmsh's root, 0.22222). Blender's
// bones have no rest scale: its importer keeps it in the pose, binds the mesh to the unscaled bones
// (4.5 times larger) and its exporter resets the pose between actions. meshport writes the rest
// scale as an animation channel and binds the mesh back to the kept rests (docs/gltf-obj.md,
// "Blender"). Also the .qmsh.tmp writer's fps (keys on whole frames) and the animations' order.
// The first test runs Blender (tests/blender/roundtrip.py): without it, it fails.
#include <meshport/diff.h>
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

namespace meshport_test_blender_rest_scale {

using namespace meshport;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kScript = std::string(MESHPORT_TEST_DATA) + "/../blender/roundtrip.py";

bool through_blender(const fs::path& in, const fs::path& out, int fps, std::string& log) {
  const std::string cmd = "blender -b --factory-startup --python-exit-code 1 --python '" + kScript + "' -- --fps " +
                          std::to_string(fps) + " '" + in.string() + "' '" + out.string() + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  return ::pclose(p) == 0 && fs::exists(out);
}

// meshport::diff's differences whose path starts with one of `prefixes`.
std::string differences(const Scene& a, const Scene& b, float tolerance, std::initializer_list<const char*> prefixes) {
  DiffOptions o;
  o.tolerance = tolerance;
  std::string r;
  for (const Difference& d : diff(a, b, o))
    for (const char* p : prefixes)
      if (d.path.starts_with(p)) r += to_string(d) + "\n";
  return r;
}

std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

}  // namespace

// Swordsman.qmsh -> .glb -> Blender (5 fps: its keys' grid) -> .glb: the same skeleton (the kept
// rests, root scale 0.22222), the same triangles (not 4.5 times larger), the animations in the
// file's order (Blender writes them by name), and every frame but each animation's last (a key
// just before a whole frame, docs/gltf-obj.md) the source's.
TEST(BlenderRoundTrip, RootRestScaleComesBack) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const Scene s = read(testutil::corpus("qmsh/Swordsman.qmsh"));
  ASSERT_EQ(s.joints[0].rest.scale, (std::array<float, 3>{0.22222f, 0.22222f, 0.22222f}));
  write(s, dir / "in.glb");
  std::string log;
  ASSERT_TRUE(through_blender(dir / "in.glb", dir / "out.glb", 5, log)) << log;
  Diagnostics d;
  const Scene back = read(dir / "out.glb", {}, &d);
  ASSERT_EQ(back.joints.size(), s.joints.size());
  for (size_t j = 0; j < s.joints.size(); ++j) {
    EXPECT_EQ(back.joints[j].name, s.joints[j].name);
    EXPECT_EQ(back.joints[j].rest, s.joints[j].rest) << j;
  }
  EXPECT_EQ(differences(s, back, 5e-3f, {"meshes", "joints"}), "");
  ASSERT_EQ(back.animations.size(), 3u);
  Scene a = s, b = back;
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(back.animations[k].name, s.animations[k].name);
    for (Scene* x : {&a, &b}) {
      Animation& an = x->animations[k];
      const size_t keep = an.frame_count() - 1;
      an.poses.resize(keep * an.channels);
      an.times.resize(keep);
    }
  }
  EXPECT_EQ(differences(a, b, 5e-3f, {"animations"}), "");
}

// The glTF writer writes a joint's rest scale as a scale channel of every animation (Swordsman's
// animations do not change the root's scale: before, no channel).
TEST(GltfWriteRestScale, IsAnAnimationChannel) {
  REQUIRE_CORPUS();
  const Scene s = read(testutil::corpus("qmsh/Swordsman.qmsh"));
  const std::vector<uint8_t> bytes = write_memory(s, Format::Gltf);
  const json j = json::parse(text_of(bytes));
  ASSERT_EQ(j["nodes"][0]["name"], "Main");
  ASSERT_EQ(j["animations"].size(), 3u);
  for (const json& a : j["animations"]) {
    size_t scale_channels = 0, root_scale = 0;
    for (const json& c : a["channels"]) {
      if (c["target"]["path"] != "scale") continue;
      ++scale_channels;
      root_scale += c["target"]["node"] == 0;
    }
    EXPECT_EQ(scale_channels, 1u) << a["name"];
    EXPECT_EQ(root_scale, 1u) << a["name"];
  }
  // Read back: the same poses.
  const Scene g = read_memory({bytes.data(), bytes.size()}, Format::Gltf, "s.gltf");
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(g.animations[k].poses, s.animations[k].poses) << k;
}

// The .qmsh.tmp writer's `fps =` puts every key on a whole frame: Swordsman's keys (0, 0.2, 0.6,
// 0.8 s; "Die" at 2.5 fps) at 5 fps (before: 3, the first framerate rounded, which moved keys to
// frames 1.2 and 1.8). Read back, the frames at the keys are the source's poses.
TEST(QmshTmpWriteFps, KeysOnWholeFrames) {
  REQUIRE_CORPUS();
  const Scene s = read(testutil::corpus("qmsh/Swordsman.qmsh"));
  Diagnostics d;
  const std::vector<uint8_t> bytes = write_memory(s, Format::QmshTmp, {}, &d);
  EXPECT_TRUE(d.items.empty()) << d.items[0].message;
  EXPECT_NE(text_of(bytes).find("\tfps = 5\n"), std::string::npos);
  const Scene t = read_memory({bytes.data(), bytes.size()}, Format::QmshTmp, "s.qmsh.tmp");
  ASSERT_EQ(t.animations.size(), 3u);
  const size_t frames[] = {3, 4, 5};  // every whole frame from 0 to the last key
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(s.animations[k].name);
    EXPECT_EQ(t.animations[k].framerate, 5.0f);
    ASSERT_EQ(t.animations[k].frame_count(), frames[k]);
    const Animation& a = s.animations[k];
    for (size_t f = 0; f < a.frame_count(); ++f) {
      const size_t at = size_t(std::lround(a.times[f] * 5));
      for (size_t j = 0; j < a.channels; ++j) {
        const Transform& p = a.poses[f * a.channels + j];
        const Transform& q = t.animations[k].poses[at * a.channels + j];
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(q.translation[c], p.translation[c], 1e-4f) << f << " " << j;
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(q.scale[c], p.scale[c], 1e-4f) << f << " " << j;
        float dot = 0;
        for (int c = 0; c < 4; ++c) dot += q.rotation[c] * p.rotation[c];
        EXPECT_NEAR(std::fabs(dot), 1.0f, 1e-5f) << f << " " << j;
      }
    }
  }
}

// Keys on no whole-frame grid up to 240 fps: the first framerate, and a warning counting them.
TEST(QmshTmpWriteFps, KeysOffEveryGridWarn) {
  REQUIRE_CORPUS();
  Scene s = read(testutil::corpus("qmsh/Swordsman.qmsh"));
  s.animations[2].times = {0.0f, 0.2f, 0.6f, 0.8037f};
  Diagnostics d;
  const std::vector<uint8_t> bytes = write_memory(s, Format::QmshTmp, {}, &d);
  EXPECT_NE(text_of(bytes).find("\tfps = 3\n"), std::string::npos);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].message,
            "6 animation keys fall between whole frames at 3 fps (and at every rate up to 240): the reader samples "
            "the curves at whole frames");
}

}  // namespace meshport_test_blender_rest_scale
