// The Blender edit round trip (issue 16, docs/gltf-obj.md "Blender"): X -> .glb -> Blender 3.4
// import -> glTF export with custom properties (tests/blender/roundtrip.py, headless) -> .glb ->
// X keeps the format's own data and, within Blender's own changes, the model
// (meshport::diff). One Blender process per test handles all of its files. Blender is a test
// dependency: without it these tests fail.
// The last tests need no Blender: they edit meshport's glTF the way Blender writes it back.
#include <meshport/diff.h>
#include <meshport/meshport.h>

#include "blender_run.h"
#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_blender_roundtrip {

using namespace meshport;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kData = MESHPORT_TEST_DATA;

struct Job {
  std::string in, out;
  int fps = 24;  // Blender's scene frame rate while importing (24: its default)
};

// Every job through one headless Blender (roundtrip.py). False (with Blender's output in `log`)
// on failure, Blender missing included.
bool through_blender(const std::vector<Job>& jobs, std::string& log) {
  std::string args;
  std::vector<std::string> outputs;
  for (const Job& j : jobs) {
    args += " --fps " + std::to_string(j.fps) + " '" + j.in + "' '" + j.out + "'";
    outputs.push_back(j.out);
  }
  return testutil::run_blender("roundtrip.py", args, outputs, log);
}

std::string differences(const Scene& a, const Scene& b, float tolerance) {
  return testutil::blender_differences(a, b, tolerance);
}

std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

std::string all(const Diagnostics& d) {
  std::string r;
  for (const auto& x : d.items) r += x.message + "\n";
  return r;
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items)
    if (x.message.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

// PIE -> .glb -> Blender -> .glb -> PIE gives the PIE file the direct PIE -> PIE rewrite gives:
// version, TYPE (team colour 0x10200), INTERPOLATE 0, texture pages, events, levels and their
// comments, connectors, ANIMOBJECT (10 fps: Blender imports at that frame rate, as docs/gltf-obj.md
// tells users; feat-anim-groups' 20 fps group and 10 fps group with the scene at 20 fps).
TEST(BlenderRoundTrip, PieKeepsItsData) {
  testutil::TempDir dir;
  struct Source {
    std::string file;
    int fps;
    bool same_text;  // false: PIE 3 texture coordinates, which Blender gives back within float rounding
  };
  std::vector<Source> sources = {
      {"pie/feat-pie4.pie", 24, true},  {"pie/feat-pie2.pie", 24, true},          {"pie/feat-normals.pie", 24, false},
      {"pie/feat-shadow.pie", 24, true}, {"pie/feat-anim.pie", 10, true}, {"pie/feat-anim-groups.pie", 20, true},
      {"cli/turret.pie", 10, true}};
  // feat-anim.pie stepped: PIE 4 with INTERPOLATE 0 (Blender samples its bones LINEAR).
  {
    std::string t = testutil::slurp(kData + "/pie/feat-anim.pie");
    t.replace(t.find("PIE 3\nTYPE 200\n"), 15, "PIE 4\nTYPE 200\nINTERPOLATE 0\n");
    std::ofstream(dir / "stepped.pie") << t;
  }
  sources.push_back({dir / "stepped.pie", 10, true});
  std::vector<Job> jobs;
  std::vector<Scene> scenes;
  for (size_t i = 0; i < sources.size(); ++i) {
    scenes.push_back(read(sources[i].file.starts_with("/") ? sources[i].file : kData + "/" + sources[i].file));
    write(scenes.back(), dir / (std::to_string(i) + ".glb"));
    jobs.push_back({dir / (std::to_string(i) + ".glb"), dir / (std::to_string(i) + ".out.glb"), sources[i].fps});
  }
  std::string log;
  ASSERT_TRUE(through_blender(jobs, log)) << log;
  for (size_t i = 0; i < sources.size(); ++i) {
    SCOPED_TRACE(sources[i].file);
    Diagnostics d;
    const Scene back = read(jobs[i].out, {}, &d);
    ASSERT_TRUE(back.pie) << all(d);
    EXPECT_EQ(back.pie->version, scenes[i].pie->version);
    EXPECT_EQ(back.pie->global, scenes[i].pie->global);
    EXPECT_EQ(back.pie->events, scenes[i].pie->events);
    ASSERT_EQ(back.pie->levels.size(), scenes[i].pie->levels.size());
    EXPECT_FALSE(has_warning(d, "is not a boolean")) << all(d);
    if (sources[i].same_text) {
      EXPECT_EQ(text_of(write_memory(back, Format::Pie)), text_of(write_memory(scenes[i], Format::Pie)));
    }
    // The Scenes compare the same but for the PIE data's level -> mesh indices (Blender orders
    // the meshes its own way; the PIE files above show the levels name the right meshes).
    Scene same_order = back;
    same_order.pie = scenes[i].pie;
    EXPECT_EQ(differences(scenes[i], same_order, 1e-4f), "");
  }
  // The PIE 4 sample's TYPE keeps its team colour bit; INTERPOLATE 0 comes back as a stepped
  // animation (and in the PIE data).
  EXPECT_EQ(read(jobs[0].out).pie->global.type, 0x10200u);
  const Scene stepped = read(jobs.back().out);
  ASSERT_EQ(stepped.animations.size(), 1u);
  EXPECT_EQ(stepped.animations[0].interpolation, Interpolation::Step);
  EXPECT_EQ(scenes.back().animations[0].interpolation, Interpolation::Step);
  EXPECT_EQ(stepped.pie->global.interpolate, 0);
}

// IQE and IQM through Blender: the same model (meshport::diff at 5e-3: Blender gives normals
// back within a few thousandths), animation names, frame rates and loop flags, joint names and rests
// (Blender's re-oriented bones are turned back), material names; the reference mrfixit model,
// IQM and IQE; an animation-only IQE (walk.iqe: joints, no meshes) keeps its joint names.
TEST(BlenderRoundTrip, IqeAndIqmKeepModelAnimationsAndSkeleton) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  struct Source {
    std::string file;
    int fps;
  };
  // skinned.iqe plays at 12 fps, which divides Blender's default 24; walk.iqe at 30.
  std::vector<Source> sources = {{kData + "/cli/skinned.iqe", 24},
                                 {kData + "/cli/walk.iqe", 30},
                                 {kData + "/../../examples/tentacle.iqe", 24}};
  // An IQM of meshport's own: skinned.iqe written as IQM.
  write(read(kData + "/cli/skinned.iqe"), dir / "skinned.iqm");
  sources.push_back({dir / "skinned.iqm", 24});
  // walk.iqe as IQM: an animation-only IQM (no meshes).
  write(read(kData + "/cli/walk.iqe"), dir / "walk.iqm");
  sources.push_back({dir / "walk.iqm", 30});
  sources.push_back({testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"), 24});
  sources.push_back({testutil::corpus("iqm/derived/mrfixit.iqe"), 24});
  std::vector<Job> jobs;
  std::vector<Scene> scenes;
  for (size_t i = 0; i < sources.size(); ++i) {
    scenes.push_back(read(sources[i].file));
    write(scenes.back(), dir / (std::to_string(i) + ".glb"));
    jobs.push_back({dir / (std::to_string(i) + ".glb"), dir / (std::to_string(i) + ".out.glb"), sources[i].fps});
  }
  std::string log;
  ASSERT_TRUE(through_blender(jobs, log)) << log;
  for (size_t i = 0; i < sources.size(); ++i) {
    SCOPED_TRACE(sources[i].file);
    Diagnostics d;
    const Scene back = read(jobs[i].out, {}, &d);
    const Scene& s = scenes[i];
    EXPECT_EQ(differences(s, back, 5e-3f), "");
    ASSERT_EQ(back.animations.size(), s.animations.size());
    for (size_t a = 0; a < s.animations.size(); ++a) {
      EXPECT_EQ(back.animations[a].name, s.animations[a].name);
      EXPECT_EQ(back.animations[a].framerate, s.animations[a].framerate);
      EXPECT_EQ(back.animations[a].loop, s.animations[a].loop);
      EXPECT_EQ(back.animations[a].frame_count(), s.animations[a].frame_count());
    }
    ASSERT_EQ(back.joints.size(), s.joints.size());
    for (size_t j = 0; j < s.joints.size(); ++j) {
      EXPECT_EQ(back.joints[j].name, s.joints[j].name) << j;
      EXPECT_EQ(back.joints[j].parent, s.joints[j].parent) << j;
      EXPECT_EQ(back.joints[j].rest, s.joints[j].rest) << j;  // the kept rests, exactly
    }
    // Back to the source's format: the IQM / IQE reader sees the same model again.
    const Format f = sources[i].file.ends_with(".iqm") ? Format::Iqm : Format::Iqe;
    const std::vector<uint8_t> bytes = write_memory(back, f);
    const Scene again = read_memory({bytes.data(), bytes.size()}, f, "again");
    EXPECT_EQ(differences(s, again, 5e-3f), "");
  }
}

// Skeletons other tools break: several root joints, joints away from their parent's tail (a bone
// whose child does not start at its tip), animated, IQM -> glTF -> Blender -> IQE.
TEST(BlenderRoundTrip, SeveralRootsAndDetachedJoints) {
  Scene s;
  auto joint = [&](const char* name, int32_t parent, std::array<float, 3> t, std::array<float, 4> r) {
    Joint j;
    j.name = name;
    j.parent = parent;
    j.rest.translation = t;
    j.rest.rotation = r;
    s.joints.push_back(j);
  };
  joint("root_a", -1, {0, 0, 0}, {0, 0, 0, 1});
  joint("arm", 0, {1, 2, 0}, {0, 0, 0.38268343f, 0.92387953f});
  joint("hand", 1, {0.5f, 0, 0.25f}, {0, 0, 0, 1});  // off the arm's axis
  joint("root_b", -1, {3, 0, 0}, {0.70710677f, 0, 0, 0.70710677f});
  joint("tip", 3, {0, 0, 1}, {0, 0, 0, 1});
  Mesh m;
  m.name = "body";
  std::vector<float> pos, idx, wgt;
  for (uint32_t k = 0; k < 5; ++k) {
    pos.insert(pos.end(), {float(k), float(k % 2), 0.5f * float(k)});
    idx.push_back(float(k));
    wgt.push_back(1);
  }
  pos.insert(pos.end(), {0, 1, 1});
  idx.push_back(2);
  wgt.push_back(1);
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 1, idx));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 1, wgt));
  m.triangles = {0, 1, 2, 2, 3, 4, 4, 5, 0};
  s.meshes.push_back(m);
  Animation a;
  a.name = "swing";
  a.framerate = 12;
  a.loop = true;
  a.channels = uint32_t(s.joints.size());
  for (int f = 0; f < 4; ++f)
    for (const Joint& j : s.joints) {
      Transform t = j.rest;
      t.translation[1] += 0.25f * float(f);
      a.poses.push_back(t);
    }
  s.animations.push_back(a);
  testutil::TempDir dir;
  write(s, dir / "tricky.iqm");
  const Scene iqm = read(dir / "tricky.iqm");
  write(iqm, dir / "in.glb");
  std::string log;
  ASSERT_TRUE(through_blender({{dir / "in.glb", dir / "out.glb", 24}}, log)) << log;
  const Scene back = read(dir / "out.glb");
  write(back, dir / "back.iqe");
  const Scene iqe = read(dir / "back.iqe");
  EXPECT_EQ(differences(iqm, iqe, 1e-4f), "");
  ASSERT_EQ(iqe.joints.size(), 5u);
  for (size_t j = 0; j < 5; ++j) {
    EXPECT_EQ(iqe.joints[j].name, s.joints[j].name);
    EXPECT_EQ(iqe.joints[j].parent, s.joints[j].parent);
  }
}

// A TFQMSH10 sample (skinned and animated) through Blender: the same model and skeleton, the
// animation's name, frame count and key times. Its keys are unevenly spaced and fall just before
// whole frames (0.79999995 s): Blender samples up to the last whole frame before the last key, so
// the last pose is Blender's last sample (docs/gltf-obj.md); earlier frames are kept.
TEST(BlenderRoundTrip, TfqmshKeepsModelAndAnimation) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const Scene s = read(testutil::corpus("qmsh/Worm.qmsh"));
  write(s, dir / "in.glb");
  std::string log;
  // Worm's keys are about 0.4 s apart: Blender at 5 fps samples on them.
  ASSERT_TRUE(through_blender({{dir / "in.glb", dir / "out.glb", 5}}, log)) << log;
  Scene back = read(dir / "out.glb");
  back.qmsh = s.qmsh;  // kept only by TFQMSH10 itself
  ASSERT_EQ(back.animations.size(), s.animations.size());
  EXPECT_EQ(back.animations[0].name, s.animations[0].name);
  EXPECT_EQ(back.animations[0].times, s.animations[0].times);
  ASSERT_EQ(back.animations[0].frame_count(), 3u);
  // Every frame but the last is the source's.
  Scene a = s, b = back;
  for (Scene* x : {&a, &b}) {
    Animation& an = x->animations[0];
    an.poses.resize(2 * an.channels);
    an.times.resize(2);
  }
  EXPECT_EQ(differences(a, b, 5e-3f), "");
}

// ---- Without Blender: meshport's glTF as Blender writes it back ------------------------------

namespace {

json json_of(const Scene& s) { return json::parse(text_of(write_memory(s, Format::Gltf))); }

Scene from_json(const json& j, Diagnostics* d = nullptr) {
  const std::string t = j.dump();
  return read_memory({reinterpret_cast<const uint8_t*>(t.data()), t.size()}, Format::Gltf, "x.gltf", d);
}

// Booleans as 0 / 1 and whole floats as integers in every meshport extras object: what Blender's
// custom properties give back.
void blenderize(json& v) {
  if (v.is_boolean()) {
    v = v.get<bool>() ? 1 : 0;
  } else if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 1e9) {
    v = int64_t(v.get<double>());
  } else if (v.is_structured()) {
    for (auto& x : v) blenderize(x);
  }
}

}  // namespace

// Scene extras only (no root, animation or primitive extras), 0/1 booleans, integers for floats,
// nodes and meshes reordered and joints listed in another order: the PIE data, animation data
// and skeleton come back.
TEST(BlenderRoundTrip, ExtrasAsBlenderWritesThem) {
  const Scene s = read(kData + "/pie/feat-anim.pie");
  json j = json_of(s);
  EXPECT_FALSE(j.contains("extras"));
  json& mp = j["scenes"][0]["extras"]["meshport"];
  EXPECT_EQ(mp["pie"]["version"], 3);
  ASSERT_EQ(mp["animations"].size(), 1u);
  EXPECT_EQ(mp["animations"][0]["name"], s.animations[0].name);
  for (json& a : j["animations"]) a.erase("extras");
  for (json& m : j["meshes"]) m["primitives"][0].erase("extras");
  for (json& n : j["nodes"]) blenderize(n);
  blenderize(mp);
  // The meshes in reverse order (every reference follows).
  const size_t nm = j["meshes"].size();
  std::reverse(j["meshes"].begin(), j["meshes"].end());
  for (json& n : j["nodes"])
    if (n.contains("mesh")) n["mesh"] = nm - 1 - n["mesh"].get<size_t>();
  // The joint nodes swapped (nodes 0 and 1), every reference follows.
  std::swap(j["nodes"][0], j["nodes"][1]);
  auto swap01 = [](json& x) {
    if (x == 0) x = 1;
    else if (x == 1) x = 0;
  };
  for (json& n : j["nodes"])
    if (n.contains("children"))
      for (json& c : n["children"]) swap01(c);
  for (json& x : j["scenes"][0]["nodes"]) swap01(x);
  for (json& x : j["skins"][0]["joints"]) swap01(x);
  for (json& a : j["animations"])
    for (json& c : a["channels"]) swap01(c["target"]["node"]);
  Diagnostics d;
  const Scene g = from_json(j, &d);
  EXPECT_FALSE(has_warning(d, "is not a boolean")) << all(d);
  ASSERT_TRUE(g.pie) << all(d);
  EXPECT_EQ(g.pie->levels, s.pie->levels);
  EXPECT_EQ(g.pie->global, s.pie->global);
  ASSERT_EQ(g.joints.size(), s.joints.size());
  for (size_t k = 0; k < s.joints.size(); ++k) EXPECT_EQ(g.joints[k].name, s.joints[k].name);
  ASSERT_EQ(g.animations.size(), 1u);
  EXPECT_EQ(g.animations[0].framerate, s.animations[0].framerate);
  EXPECT_EQ(g.animations[0].loop, s.animations[0].loop);
  ASSERT_EQ(g.attachments.size(), s.attachments.size());
  EXPECT_EQ(g.attachments[0].mesh, s.attachments[0].mesh);
  EXPECT_EQ(text_of(write_memory(g, Format::Pie)), text_of(write_memory(s, Format::Pie)));
  EXPECT_EQ(differences(s, g, 1e-6f), "");
}

// Blender keeps 32-bit signed integers only; one larger value turns the whole extras object into
// a string. Face channel words and TYPE from 2^31 up are written as the int32 of the same bits
// and read back as the words.
TEST(BlenderRoundTrip, WordsFitBlendersIntegers) {
  Scene s = read(kData + "/pie/feat-pie4.pie");
  s.pie->global.type = 0x80010200u;
  s.meshes[0].face_channels[0].data[0] = 0xFFFFFFFEu;
  const json j = json_of(s);
  EXPECT_EQ(j["scenes"][0]["extras"]["meshport"]["pie"]["global"]["type"], int32_t(0x80010200u));
  EXPECT_EQ(j["meshes"][0]["extras"]["meshport"]["face_channels"][0]["data"][0], -2);
  const Scene g = from_json(j);
  EXPECT_EQ(g.pie->global.type, 0x80010200u);
  EXPECT_EQ(g.meshes[0].face_channels[0].data[0], 0xFFFFFFFEu);
}

// Older files: the document-level data in the root extras (meshport before issue 16) is read.
TEST(BlenderRoundTrip, RootExtrasOfOlderFilesStillRead) {
  const Scene s = read(kData + "/pie/feat-anim.pie");
  json j = json_of(s);
  json mp = j["scenes"][0]["extras"]["meshport"];
  for (const char* k : {"joints", "meshes", "animations", "joint_rests"}) mp.erase(k);
  j["scenes"][0].erase("extras");
  j["extras"]["meshport"] = mp;
  Diagnostics d;
  const Scene g = from_json(j, &d);
  ASSERT_TRUE(g.pie) << all(d);
  EXPECT_EQ(text_of(write_memory(g, Format::Pie)), text_of(write_memory(s, Format::Pie)));
  EXPECT_EQ(differences(s, g, 1e-6f), "");
}

// Every value of the document-level extras replaced in turn by hostile ones: the file is still
// read (warnings only), and writing what was accepted back to PIE fails cleanly at worst.
TEST(BlenderRoundTrip, HostileSceneExtrasNeverBreakReading) {
  const json hostile[] = {json(-1), json(2147483648LL), json(1e300), json(0.5), json("x"),
                          json::array(), json::object(), json(nullptr), json(true)};
  for (const char* name : {"pie/feat-anim.pie", "cli/skinned.iqe"}) {
    SCOPED_TRACE(name);
    const json good = json_of(read(kData + "/" + name));
    const json flat = good.flatten();
    size_t cases = 0;
    for (const auto& [pointer, value] : flat.items()) {
      if (pointer.rfind("/scenes/0/extras", 0) != 0 || pointer.find("/pie/") != std::string::npos) continue;
      for (const json& h : hostile) {
        json j = good;
        j[json::json_pointer(pointer)] = h;
        ++cases;
        Diagnostics d;
        Scene g;
        try {
          g = from_json(j, &d);
        } catch (const Error& e) {
          ADD_FAILURE() << pointer << " = " << h.dump() << ": " << e.what();
          continue;
        }
        try {
          write_memory(g, Format::Pie);
        } catch (const Error&) {
        }
      }
    }
    EXPECT_GT(cases, 100u);
  }
}

}  // namespace meshport_test_blender_roundtrip
