// Animation clips (issue 22): `meshport anims`, convert's --anim / --rename-anim / --clip / --fps /
// --loop, attaching clips from more inputs (duplicates dropped or renamed, skeletons matched by
// name or checked by index), retargeting by joint name, animation-only files keeping their joints,
// and outputs with nothing in them refused.
#include "test_util.h"

#include "ops/animation/skinning.h"

#include <meshport/clips.h>
#include <meshport/diff.h>
#include <meshport/meshport.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <filesystem>
#include <string>
#include <vector>

namespace meshport_test_clips {

using namespace meshport;
using testutil::CliRun;
using testutil::TempDir;
using testutil::float_stream;
using testutil::run_cli;
using testutil::trs;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::array<float, 4> quat_axis(std::array<float, 3> axis, float degrees) {
  const float h = degrees * 3.14159265358979f / 360.0f;
  return {axis[0] * std::sin(h), axis[1] * std::sin(h), axis[2] * std::sin(h), std::cos(h)};
}

Joint joint(const char* name, int parent, Transform rest) {
  Joint j;
  j.name = name;
  j.parent = parent;
  j.rest = rest;
  return j;
}

// A clip whose pose of joint c at frame f is translation (f + 100 * seed, c, 0) turned f * (c + 1)
// degrees about z: every joint moves.
Animation clip(const char* name, uint32_t channels, uint32_t frames, float fps = 10, float seed = 0) {
  Animation a;
  a.name = name;
  a.framerate = fps;
  a.channels = channels;
  for (uint32_t f = 0; f < frames; ++f)
    for (uint32_t c = 0; c < channels; ++c)
      a.poses.push_back(trs({float(f) + 100 * seed, float(c), 0}, quat_axis({0, 0, 1}, float(f * (c + 1)))));
  return a;
}

std::vector<std::string> names(const Scene& s) {
  std::vector<std::string> n;
  for (const Animation& a : s.animations) n.push_back(a.name);
  return n;
}

// root - spine - head, a two-triangle mesh skinned to them, clips "jump" (4 frames) and "dance" (6).
Scene model_with_clips() {
  Scene s;
  s.joints = {joint("root", -1, trs({0, 0, 0})), joint("spine", 0, trs({0, 1, 0})), joint("head", 1, trs({0, 1, 0}))};
  Mesh m;
  m.name = "body";
  m.streams.push_back(float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0, 1, 2, 0}));
  m.streams.push_back(float_stream(Attribute::BlendIndices, 4, {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0,
                                                                 2, 0, 0, 0, 2, 1, 0, 0}));
  m.streams.push_back(float_stream(Attribute::BlendWeights, 4, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0,
                                                                 1, 0, 0, 0, 0.75, 0.25, 0, 0}));
  m.triangles = {0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5};
  s.meshes.push_back(m);
  s.animations = {clip("jump", 3, 4), clip("dance", 3, 6, 24)};
  s.animations[1].loop = true;
  return s;
}

// raylib's guyanim.iqm: the same clips, no joints, only the poses' parents.
Scene animation_only_without_joints(const Scene& model) {
  Scene s;
  s.animations = model.animations;
  auto& parents = s.iqm.emplace().pose_parents;
  for (const Joint& j : model.joints) parents.push_back(j.parent);
  return s;
}

void write_file(const Scene& s, const std::string& path) { write(s, path); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

// ---- Listing -------------------------------------------------------------------------------

TEST(Clips, ListGivesFramesRateLoopJointsAnimatedAndDuration) {
  Scene s = model_with_clips();
  Animation still = clip("still", 3, 5, 20);
  for (size_t f = 1; f < 5; ++f)  // only joint 1 moves
    for (size_t c : {0u, 2u}) still.poses[f * 3 + c] = still.poses[c];
  s.animations.push_back(still);
  Animation keyed = clip("keyed", 3, 3, 0);
  keyed.times = {0.5f, 1.0f, 2.25f};
  s.animations.push_back(keyed);
  const std::vector<ClipInfo> c = list_clips(s);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].name, "jump");
  EXPECT_EQ(c[0].frames, 4u);
  EXPECT_EQ(c[0].fps, 10.0f);
  EXPECT_FALSE(c[0].loop);
  EXPECT_EQ(c[0].joints_animated, 3u);
  EXPECT_FLOAT_EQ(c[0].duration, 0.3f);
  EXPECT_EQ(c[1].frames, 6u);
  EXPECT_TRUE(c[1].loop);
  EXPECT_FLOAT_EQ(c[1].duration, 5.0f / 24.0f);
  EXPECT_EQ(c[2].joints_animated, 1u);
  EXPECT_FLOAT_EQ(c[2].duration, 0.2f);
  EXPECT_FLOAT_EQ(c[3].duration, 1.75f);
  EXPECT_EQ(c[3].fps, 0.0f);
}

TEST(Clips, AnimsCommandPrintsTextAndJson) {
  TempDir t;
  write_file(model_with_clips(), t / "guy.iqm");
  const CliRun j = run_cli("anims " + (t / "guy.iqm") + " --json");
  ASSERT_EQ(j.status, 0) << j.out;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["joints"], 3);
  ASSERT_EQ(doc["clips"].size(), 2u);
  EXPECT_EQ(doc["clips"][0]["name"], "jump");
  EXPECT_EQ(doc["clips"][0]["frames"], 4);
  EXPECT_EQ(doc["clips"][0]["fps"], 10.0);
  EXPECT_EQ(doc["clips"][0]["loop"], false);
  EXPECT_EQ(doc["clips"][0]["joints_animated"], 3);
  EXPECT_NEAR(doc["clips"][0]["duration"].get<double>(), 0.3, 1e-6);
  EXPECT_EQ(doc["clips"][1]["name"], "dance");
  EXPECT_EQ(doc["clips"][1]["frames"], 6);
  EXPECT_EQ(doc["clips"][1]["fps"], 24.0);
  EXPECT_EQ(doc["clips"][1]["loop"], true);
  const CliRun r = run_cli("anims " + (t / "guy.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "guy.iqm: 2 clips, 3 joints\n")) << r.out;
  EXPECT_TRUE(has(r.out, "  \"jump\"        4       10    no        3     0.300s\n")) << r.out;
  EXPECT_TRUE(has(r.out, "  \"dance\"       6       24   yes        3     0.208s\n")) << r.out;
}

// ---- Selecting, renaming, cutting, retiming -----------------------------------------------------

TEST(Clips, SelectionKeepsTheNamedClipsInItsOrder) {
  Scene s = model_with_clips();
  s.animations.push_back(clip("wave", 3, 2, 10, 1));
  ClipOptions o;
  o.keep = {"wave", "jump", "wave"};
  edit_clips(s, o);
  ASSERT_EQ(names(s), (std::vector<std::string>{"wave", "jump"}));
  EXPECT_EQ(s.animations[0].frame_count(), 2u);
  EXPECT_EQ(s.animations[0].poses[1 * 3 + 2].translation, (std::array<float, 3>{101, 2, 0}));
  EXPECT_EQ(s.animations[1].frame_count(), 4u);
  EXPECT_EQ(s.animations[1].poses[3 * 3 + 1].translation, (std::array<float, 3>{3, 1, 0}));
}

TEST(Clips, SelectionMatchingNothingNamesTheClipsThatExist) {
  Scene s = model_with_clips();
  ClipOptions o;
  o.keep = {"run", "jump", "walk"};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --anim: no clip named 'run', 'walk'; the clips are: 'jump', 'dance'");
  EXPECT_EQ(names(s), (std::vector<std::string>{"jump", "dance"}));  // unchanged
}

TEST(Clips, RenamesComeLastAndTheOtherOptionsNameTheInputClips) {
  Scene s = model_with_clips();
  ClipOptions o;
  o.renames = {{"jump", "Jump"}, {"dance", "jump"}};
  o.fps = {{"jump", 30}};
  o.loop = {{"jump", true}, {"dance", false}};
  edit_clips(s, o);
  ASSERT_EQ(names(s), (std::vector<std::string>{"Jump", "jump"}));
  EXPECT_EQ(s.animations[0].framerate, 30.0f);
  EXPECT_TRUE(s.animations[0].loop);
  EXPECT_EQ(s.animations[1].framerate, 24.0f);
  EXPECT_FALSE(s.animations[1].loop);
  EXPECT_EQ(s.animations[1].frame_count(), 6u);
}

TEST(Clips, RenameErrors) {
  Scene s = model_with_clips();
  ClipOptions o;
  o.renames = {{"jump", "dance"}};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --rename-anim jump=dance: a clip named 'dance' already exists");
  o.renames = {{"fly", "x"}};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --rename-anim: no clip named 'fly'; the clips are: 'jump', 'dance'");
  o = {};
  o.fps = {{"fly", 30}};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --fps: no clip named 'fly'; the clips are: 'jump', 'dance'");
  o = {};
  o.loop = {{"jump", true}, {"jump", false}};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --loop / --no-loop: clip 'jump' is named twice");
}

TEST(Clips, CutTakesFramesStartToEndIncluded) {
  Scene s;
  s.joints = model_with_clips().joints;
  s.animations = {clip("all", 3, 10, 30)};
  ClipOptions o;
  o.cuts = {parse_clip_cut("walk=all:2:5@15,loop"), parse_clip_cut("tail=all:7:"), parse_clip_cut("one=all:4:4")};
  o.keep = {"walk", "tail", "one"};
  edit_clips(s, o);
  ASSERT_EQ(names(s), (std::vector<std::string>{"walk", "tail", "one"}));
  const Animation& walk = s.animations[0];
  ASSERT_EQ(walk.frame_count(), 4u);
  EXPECT_EQ(walk.framerate, 15.0f);
  EXPECT_TRUE(walk.loop);
  EXPECT_EQ(walk.poses[0 * 3 + 1], clip("all", 3, 10, 30).poses[2 * 3 + 1]);
  EXPECT_EQ(walk.poses[3 * 3 + 2].translation, (std::array<float, 3>{5, 2, 0}));
  const Animation& tail = s.animations[1];
  ASSERT_EQ(tail.frame_count(), 3u);
  EXPECT_EQ(tail.framerate, 30.0f);
  EXPECT_FALSE(tail.loop);
  EXPECT_EQ(tail.poses[2 * 3 + 0].translation, (std::array<float, 3>{9, 0, 0}));
  ASSERT_EQ(s.animations[2].frame_count(), 1u);
  EXPECT_EQ(s.animations[2].poses[0].translation, (std::array<float, 3>{4, 0, 0}));
}

TEST(Clips, CutErrors) {
  Scene s = model_with_clips();
  ClipOptions o;
  o.cuts = {parse_clip_cut("x=jump:1:4")};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --clip x: END 4 is past the last frame of 'jump', 3 (frames are numbered from 0)");
  o.cuts = {parse_clip_cut("x=jump:3:1")};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }), "guy.iqm: error: --clip x: START 3 is after END 1");
  o.cuts = {parse_clip_cut("x=run:0:1")};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --clip: no clip named 'run'; the clips are: 'jump', 'dance'");
  o.cuts = {parse_clip_cut("dance=jump:0:1")};
  EXPECT_EQ(error_of([&] { edit_clips(s, o, "guy.iqm"); }),
            "guy.iqm: error: --clip dance: a clip named 'dance' already exists");
}

TEST(Clips, ParsingTheCommandLineForms) {
  ClipCut c = parse_clip_cut("a=b:c:3:12@7.5");
  EXPECT_EQ(c.name, "a");
  EXPECT_EQ(c.source, "b:c");
  EXPECT_EQ(c.start, 3u);
  EXPECT_EQ(c.end, std::optional<uint32_t>(12));
  EXPECT_EQ(c.fps, std::optional<float>(7.5f));
  EXPECT_FALSE(c.loop);
  // An '@' in SRC's name is not a rate: only one after END is.
  c = parse_clip_cut("a=my@clip:0:3");
  EXPECT_EQ(c.source, "my@clip");
  EXPECT_EQ(c.end, std::optional<uint32_t>(3));
  EXPECT_FALSE(c.fps);
  c = parse_clip_cut("a=my@clip:0:3@24,loop");
  EXPECT_EQ(c.source, "my@clip");
  EXPECT_EQ(c.fps, std::optional<float>(24.0f));
  EXPECT_TRUE(c.loop);
  EXPECT_EQ(error_of([] { parse_clip_cut("a=b:1"); }),
            "--clip: error: expects NAME=SRC:START:END[@FPS][,loop], got 'a=b:1'");
  EXPECT_EQ(error_of([] { parse_clip_cut("a=b:x:2"); }),
            "--clip: error: START and END are frame numbers from 0 (END may be empty for the last frame), got 'a=b:x:2'");
  EXPECT_EQ(error_of([] { parse_clip_cut("a=b:1:2@0"); }),
            "--clip: error: expects a positive frame rate after '@', got 'a=b:1:2@0'");
  EXPECT_EQ(parse_clip_rename("old=new"), (std::pair<std::string, std::string>{"old", "new"}));
  EXPECT_EQ(error_of([] { parse_clip_rename("old"); }), "--rename-anim: error: expects OLD=NEW, got 'old'");
  EXPECT_EQ(parse_clip_fps("walk=24"), (std::pair<std::string, float>{"walk", 24.0f}));
  EXPECT_EQ(error_of([] { parse_clip_fps("walk=-3"); }), "--fps: error: expects a positive frame rate, got 'walk=-3'");
}

TEST(Clips, FpsKeepsMorphWeightKeysInStepWithTheFrames) {
  Scene s = model_with_clips();
  Animation& a = s.animations[0];  // 4 frames at 10 fps: 0 .. 0.3 s
  MorphWeightTrack t;
  t.mesh = 0;
  t.times = {0, 0.1f, 0.3f};
  t.weights = {0, 0.5f, 1};
  a.morph_weights.push_back(t);
  ClipOptions o;
  o.fps = {{"jump", 20}};
  o.cuts = {parse_clip_cut("end=jump:1:3")};
  edit_clips(s, o);
  // The cut is taken first, from the 10 fps clip: keys at 0.1 and 0.3 s, shifted to start at 0.
  ASSERT_EQ(s.animations[2].name, "end");
  ASSERT_EQ(s.animations[2].morph_weights.size(), 1u);
  EXPECT_EQ(s.animations[2].morph_weights[0].weights, (std::vector<float>{0.5f, 1}));
  EXPECT_NEAR(s.animations[2].morph_weights[0].times[1], 0.2f, 1e-6f);
  // Then jump plays twice as fast: its keys come at half the time.
  EXPECT_EQ(s.animations[0].framerate, 20.0f);
  EXPECT_NEAR(s.animations[0].morph_weights[0].times[1], 0.05f, 1e-6f);
  EXPECT_NEAR(s.animations[0].morph_weights[0].times[2], 0.15f, 1e-6f);
}

TEST(Clips, ConvertOptionsSelectRenameAndCutFromTheCommandLine) {
  TempDir t;
  write_file(model_with_clips(), t / "guy.iqm");
  const CliRun r = run_cli("convert " + (t / "guy.iqm") +
                           " --clip hop=jump:1:2@5,loop --anim hop,dance --rename-anim dance=boogie --fps dance=12 "
                           "--no-loop dance -o " + (t / "out.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  const Scene s = read(t / "out.iqm");
  ASSERT_EQ(names(s), (std::vector<std::string>{"hop", "boogie"}));
  EXPECT_EQ(s.animations[0].frame_count(), 2u);
  EXPECT_EQ(s.animations[0].framerate, 5.0f);
  EXPECT_TRUE(s.animations[0].loop);
  EXPECT_NEAR(s.animations[0].poses[1 * 3 + 2].translation[0], 2.0f, 1e-4f);
  EXPECT_EQ(s.animations[1].frame_count(), 6u);
  EXPECT_EQ(s.animations[1].framerate, 12.0f);
  EXPECT_FALSE(s.animations[1].loop);

  const CliRun bad = run_cli("convert " + (t / "guy.iqm") + " --anim run -o " + (t / "bad.glb"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(has(bad.out, "error: --anim: no clip named 'run'; the clips are: 'jump', 'dance'")) << bad.out;
  EXPECT_FALSE(std::filesystem::exists(t / "bad.glb"));
  const CliRun form = run_cli("convert " + (t / "guy.iqm") + " --clip hop=jump -o " + (t / "bad.glb"));
  EXPECT_NE(form.status, 0);
  EXPECT_TRUE(has(form.out, "expects NAME=SRC:START:END[@FPS][,loop], got 'hop=jump'")) << form.out;
}

TEST(Clips, BatchTakesTheClipOptionsToo) {
  TempDir t;
  std::filesystem::create_directories(t / "in");
  write_file(model_with_clips(), t / "in/guy.iqm");
  const CliRun r = run_cli("batch " + (t / "in") + " -o " + (t / "out") + " --to iqm --anim dance");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(names(read(t / "out/guy.iqm")), (std::vector<std::string>{"dance"}));
  const CliRun bad = run_cli("batch " + (t / "in") + " -o " + (t / "out2") + " --to iqm --anim run");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_TRUE(has(bad.out, "no clip named 'run'")) << bad.out;
}

// ---- Attaching from more inputs ----------------------------------------------------------------

TEST(Clips, TheSameClipsFromAnAnimationOnlyFileAreDroppedWithANote) {
  TempDir t;
  const Scene model = model_with_clips();
  write_file(model, t / "guy.iqm");
  write_file(animation_only_without_joints(model), t / "guyanim.iqm");
  ASSERT_TRUE(read(t / "guyanim.iqm").joints.empty());
  const CliRun r = run_cli("convert " + (t / "guy.iqm") + " " + (t / "guyanim.iqm") + " -o " + (t / "guy.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "guyanim.iqm: note: animation 'jump' is already attached with the same data: dropped"))
      << r.out;
  EXPECT_TRUE(has(r.out, "guyanim.iqm: note: animation 'dance' is already attached with the same data: dropped"))
      << r.out;
  EXPECT_FALSE(has(r.out, "warning")) << r.out;
  const Scene s = read(t / "guy.glb");
  ASSERT_EQ(names(s), (std::vector<std::string>{"jump", "dance"}));
  EXPECT_EQ(s.animations[0].frame_count(), 4u);
  EXPECT_EQ(s.animations[1].frame_count(), 6u);
  const CliRun list = run_cli("anims " + (t / "guy.glb") + " --json");
  ASSERT_EQ(list.status, 0) << list.out;
  EXPECT_EQ(nlohmann::json::parse(list.out)["clips"].size(), 2u);
}

TEST(Clips, AClipOfATakenNameWithOtherDataIsRenamedWithAWarning) {
  Scene target = model_with_clips();
  Scene source = animation_only_without_joints(target);
  source.animations[0] = clip("jump", 3, 4, 10, 1);  // other poses
  source.animations[1].framerate = 25;               // other rate
  source.animations.push_back(clip("jump", 3, 2, 10, 2));
  Diagnostics d;
  attach_animations(target, source, "more.iqm", &d);
  ASSERT_EQ(names(target), (std::vector<std::string>{"jump", "dance", "jump.2", "dance.2", "jump.3"}));
  EXPECT_EQ(target.animations[2].poses[0].translation, (std::array<float, 3>{100, 0, 0}));
  EXPECT_EQ(target.animations[3].framerate, 25.0f);
  EXPECT_EQ(target.animations[4].frame_count(), 2u);
  ASSERT_EQ(d.items.size(), 3u);
  EXPECT_EQ(d.items[0].to_string(),
            "more.iqm: warning: animation 'jump' differs from the one already attached under that name: renamed "
            "'jump.2'");
  EXPECT_EQ(d.items[2].to_string(),
            "more.iqm: warning: animation 'jump' differs from the one already attached under that name: renamed "
            "'jump.3'");
}

// The same clip written by two IQM compiler runs (or read and written again) differs by up to one
// 16-bit step of each channel's range: still the same data.
TEST(Clips, SameDataMeansEqualUpToOneQuantisationStep) {
  Scene target = model_with_clips();
  Scene source = animation_only_without_joints(target);
  // jump's root translation x spans 0..3: one step is 3 / 65535 = 4.6e-5
  for (size_t f = 0; f < 4; ++f) source.animations[0].poses[f * 3].translation[0] += 2e-5f;
  for (size_t f = 0; f < 6; ++f) source.animations[1].poses[f * 3].translation[0] += 2e-4f;
  Diagnostics d;
  attach_animations(target, source, "guyanim.iqm", &d);
  EXPECT_EQ(names(target), (std::vector<std::string>{"jump", "dance", "dance.2"}));
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_EQ(d.items[0].severity, Severity::Note);
  EXPECT_EQ(d.items[1].severity, Severity::Warning);
  EXPECT_EQ(d.warning_count(), 1u);
}

TEST(Clips, ByIndexNeedsTheSameHierarchyAndNamesTheFirstJointThatDiffers) {
  Scene target = model_with_clips();
  Scene source = animation_only_without_joints(target);
  source.iqm->pose_parents = {-1, 0, 0};
  EXPECT_EQ(error_of([&] { attach_animations(target, source, "guyanim.iqm"); }),
            "guyanim.iqm: error: cannot attach animations by joint index (it has no joints, only poses): joint 2 "
            "('head') has parent 0 here but 1 ('spine') in the skeleton; the first joint that differs");
  // Joints without names: matched by index, checked likewise.
  Scene unnamed = model_with_clips();
  unnamed.meshes.clear();
  for (Joint& j : unnamed.joints) j.name.clear();
  unnamed.joints.push_back(joint("", 0, trs({0, 0, 0})));
  for (Animation& a : unnamed.animations) a = clip(a.name.c_str(), 4, 2);
  EXPECT_EQ(error_of([&] { attach_animations(target, unnamed, "unnamed.iqm"); }),
            "unnamed.iqm: error: cannot attach animations by joint index (its joints are not all named): it has 4 "
            "joints but the skeleton has 3 joints");
  unnamed.joints.pop_back();
  for (Animation& a : unnamed.animations) a = clip(a.name.c_str(), 3, 2);
  unnamed.joints[2].parent = 0;
  EXPECT_EQ(error_of([&] { attach_animations(target, unnamed, "unnamed.iqm"); }),
            "unnamed.iqm: error: cannot attach animations by joint index (its joints are not all named): joint 2 "
            "('head') has parent 0 here but 1 ('spine') in the skeleton; the first joint that differs");
}

// mrfixit (the corpus) and an animation-only copy of it without joints, as raylib ships guy.iqm and
// guyanim.iqm; raylib's own files too when the corpus has them.
TEST(Clips, CorpusModelAndItsAnimationFileGiveEachClipOnce) {
  REQUIRE_CORPUS();
  TempDir t;
  const std::string model = testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm");
  const Scene m = read(model);
  ASSERT_EQ(m.animations.size(), 1u);
  Scene anim;
  anim.animations = m.animations;
  auto& parents = anim.iqm.emplace().pose_parents;
  for (const Joint& j : m.joints) parents.push_back(j.parent);
  write_file(anim, t / "mrfixitanim.iqm");
  const CliRun r = run_cli("convert " + model + " " + (t / "mrfixitanim.iqm") + " -o " + (t / "out.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  const Scene out = read(t / "out.glb");
  ASSERT_EQ(out.animations.size(), 1u);
  EXPECT_EQ(out.animations[0].name, m.animations[0].name);
  EXPECT_EQ(out.animations[0].frame_count(), 101u);

  const std::string guy = testutil::corpus("iqm/raylib/guy.iqm"), guyanim = testutil::corpus("iqm/raylib/guyanim.iqm");
  if (std::filesystem::exists(guy) && std::filesystem::exists(guyanim)) {
    const size_t clips = read(guy).animations.size();
    const CliRun g = run_cli("convert " + guy + " " + guyanim + " -o " + (t / "guy.glb"));
    ASSERT_EQ(g.status, 0) << g.out;
    EXPECT_EQ(read(t / "guy.glb").animations.size(), clips);
  } else {
    RecordProperty("raylib_guy", "not in the corpus: checked with mrfixit only");
    std::printf("note: %s and %s are not in the corpus: checked with mrfixit only\n", guy.c_str(), guyanim.c_str());
  }
}

// ---- Retargeting ---------------------------------------------------------------------------

namespace {

// A tree root -> a -> a1, root -> b -> b1 and a mesh with a vertex on each joint and blends.
Scene source_rig() {
  Scene s;
  s.joints = {joint("root", -1, trs({0, 0, 0})), joint("a", 0, trs({1, 0, 0}, quat_axis({0, 0, 1}, 30))),
              joint("b", 0, trs({-1, 0, 0})), joint("a1", 1, trs({0, 1, 0})),
              joint("b1", 2, trs({0, 1, 0}, quat_axis({1, 0, 0}, 20)))};
  Mesh m;
  m.name = "body";
  m.streams.push_back(float_stream(Attribute::Position, 3,
                                   {0, 0, 0, 1, 0.2f, 0, -1, 0.1f, 0.3f, 0.6f, 1.1f, 0, -1, 1, 0.2f, 0.2f, 0.5f, -0.4f}));
  m.streams.push_back(float_stream(Attribute::BlendIndices, 2, {0, 0, 1, 0, 2, 0, 3, 1, 4, 2, 1, 2}));
  m.streams.push_back(float_stream(Attribute::BlendWeights, 2, {1, 0, 1, 0, 1, 0, 0.7f, 0.3f, 0.6f, 0.4f, 0.5f, 0.5f}));
  m.triangles = {0, 1, 3, 0, 2, 4, 0, 5, 1};
  s.meshes.push_back(m);
  Animation a;
  a.name = "swing";
  a.framerate = 10;
  a.channels = 5;
  for (int f = 0; f < 4; ++f)
    for (size_t j = 0; j < 5; ++j) {
      Transform p = s.joints[j].rest;
      p.rotation = quat_axis({0.6f, 0.8f, 0}, float(f * 15 + int(j) * 7));
      p.translation[1] += 0.1f * float(f);
      p.scale = {1 + 0.05f * float(f), 1 + 0.05f * float(f), 1 + 0.05f * float(f)};
      a.poses.push_back(p);
    }
  s.animations.push_back(a);
  return s;
}

// The same bind geometry on a skeleton in another order (root, b, b1, a, a1) with other rest
// transforms (rotations, a uniform scale, moved joints).
Scene target_rig() {
  Scene s;
  s.joints = {joint("root", -1, trs({0, 0.5f, 0}, quat_axis({0, 1, 0}, 90))), joint("b", 0, trs({0, 0, 1})),
              joint("b1", 1, trs({0, 1.5f, 0}, quat_axis({0, 0, 1}, -40), {2, 2, 2})),
              joint("a", 0, trs({0.2f, 0, -1}, quat_axis({1, 0, 0}, 10))), joint("a1", 3, trs({0, 0.8f, 0}))};
  Mesh m = source_rig().meshes[0];
  // source joint j is target joint to[j]
  const float to[5] = {0, 3, 1, 4, 2};
  for (float& i : m.streams[1].data) i = to[size_t(i)];
  s.meshes.push_back(m);
  return s;
}

// Skinned positions of every vertex of mesh 0 at every frame of animation 0.
std::vector<Vec3> skinned(const Scene& s) {
  std::vector<Vec3> out;
  const std::vector<Mat3x4> inv = ops::inverse_rest_matrices(s.joints);
  const ops::SkinStreams st = ops::skin_streams(s.meshes[0]);
  const Animation& a = s.animations[0];
  for (size_t f = 0; f < a.frame_count(); ++f) {
    const std::vector<Mat3x4> m = ops::frame_skinning_matrices(s, inv, a, f);
    for (size_t v = 0; v < st.pos->vertex_count(); ++v) out.push_back(ops::skin_position(st, v, m));
  }
  return out;
}

void expect_same_skinning(const Scene& a, const Scene& b, float tol) {
  const std::vector<Vec3> pa = skinned(a), pb = skinned(b);
  ASSERT_EQ(pa.size(), pb.size());
  float worst = 0;
  for (size_t i = 0; i < pa.size(); ++i)
    for (size_t c = 0; c < 3; ++c) worst = std::max(worst, std::abs(pa[i][c] - pb[i][c]));
  EXPECT_LE(worst, tol);
}

}  // namespace

TEST(Clips, RetargetingByNameGivesTheSameSkinnedPositions) {
  const Scene source = source_rig();
  Scene target = target_rig();
  // The poses really move the vertices.
  const std::vector<Vec3> moved = skinned(source);
  EXPECT_GT(std::abs(moved[3 * 6 + 4][0] - source.meshes[0].streams[0].data[12]), 0.1f);
  Diagnostics d;
  attach_animations(target, source, "source.iqm", &d);
  ASSERT_EQ(target.animations.size(), 1u);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(),
            "source.iqm: warning: its skeleton differs from the first input's in rest pose or hierarchy: poses are "
            "retargeted so that skinned positions match (docs/animations.md)");
  expect_same_skinning(source, target, 1e-4f);
  // `meshport diff` compares animations by skinned positions: no difference there (the joints'
  // rest transforms do differ).
  bool joints_differ = false;
  for (const Difference& x : diff(source, target)) {
    EXPECT_NE(x.path.rfind("animations", 0), 0u) << to_string(x);
    joints_differ |= x.path.rfind("joints", 0) == 0;
  }
  EXPECT_TRUE(joints_differ);
}

TEST(Clips, RetargetingFromTheCommandLine) {
  TempDir t;
  write_file(source_rig(), t / "source.iqm");
  write_file(target_rig(), t / "target.iqm");
  const CliRun r = run_cli("convert " + (t / "target.iqm") + " " + (t / "source.iqm") + " -o " + (t / "out.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "poses are retargeted")) << r.out;
  // Against the source as stored (IQM quantises poses).
  expect_same_skinning(read(t / "source.iqm"), read(t / "out.glb"), 1e-4f);
  const CliRun dr = run_cli("diff " + (t / "source.iqm") + " " + (t / "out.glb"));
  EXPECT_FALSE(has(dr.out, "animations[")) << dr.out;
}

TEST(Clips, SameRestPosesInAnotherOrderAreCopiedNotRetargeted) {
  Scene source = source_rig();
  Scene target;
  // root, b, b1, a, a1 with the source's rest transforms
  for (int j : {0, 2, 4, 1, 3}) target.joints.push_back(source.joints[size_t(j)]);
  target.joints[2].parent = 1;
  target.joints[3].parent = 0;
  target.joints[4].parent = 3;
  Diagnostics d;
  attach_animations(target, source, "source.iqm", &d);
  EXPECT_TRUE(d.items.empty());
  // exact copies, channel by name
  EXPECT_EQ(target.animations[0].poses[2 * 5 + 3], source.animations[0].poses[2 * 5 + 1]);
  EXPECT_EQ(target.animations[0].poses[3 * 5 + 2], source.animations[0].poses[3 * 5 + 4]);
}

// ---- Animation-only files keep their joints ------------------------------------------------------

TEST(Clips, AnimationOnlyFilesAreWrittenWithJointNamesAndParents) {
  Scene s = model_with_clips();
  s.meshes.clear();
  for (Format f : {Format::Iqm, Format::Glb, Format::Iqe}) {
    Diagnostics d;
    const Scene back = read_memory(write_memory(s, f, {}, &d), f, "anim");
    ASSERT_EQ(back.joints.size(), 3u) << format_info(f).name;
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_EQ(back.joints[j].name, s.joints[j].name) << format_info(f).name;
      EXPECT_EQ(back.joints[j].parent, s.joints[j].parent) << format_info(f).name;
    }
    EXPECT_EQ(names(back), (std::vector<std::string>{"jump", "dance"})) << format_info(f).name;
  }
  // And such a file attaches by name.
  TempDir t;
  write_file(model_with_clips(), t / "guy.iqm");
  Scene renamed = s;
  renamed.animations = {clip("wave", 3, 3)};
  write_file(renamed, t / "wave.iqm");
  const CliRun r = run_cli("convert " + (t / "guy.iqm") + " " + (t / "wave.iqm") + " -o " + (t / "all.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(names(read(t / "all.iqm")), (std::vector<std::string>{"jump", "dance", "wave"}));
}

// ---- Nothing by accident -----------------------------------------------------------------------

TEST(Clips, AnOutputWithNothingInItIsRefusedUnlessAllowed) {
  TempDir t;
  {
    std::ofstream(t / "empty.iqe") << "# Inter-Quake Export\n";
  }
  const CliRun r = run_cli("convert " + (t / "empty.iqe") + " -o " + (t / "empty.glb"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, (t / "empty.glb") + ": error: nothing to write: " + (t / "empty.iqe") +
                       " holds no mesh and no animation (--allow-empty writes it anyway)\n");
  EXPECT_FALSE(std::filesystem::exists(t / "empty.glb"));
  const CliRun ok = run_cli("convert " + (t / "empty.iqe") + " --allow-empty -o " + (t / "empty.glb"));
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_TRUE(std::filesystem::exists(t / "empty.glb"));
  // Library: the same check, and ConvertOptions::allow_empty.
  EXPECT_THROW(convert({t / "empty.iqe"}, t / "x.obj"), Error);
  ConvertOptions o;
  o.allow_empty = true;
  EXPECT_NO_THROW(convert({t / "empty.iqe"}, t / "x.obj", o));
  // A skeleton alone is nothing to write either; with a clip it is an animation file.
  Scene bones = model_with_clips();
  bones.meshes.clear();
  bones.animations.clear();
  EXPECT_FALSE(has_content(bones));
  bones.animations.push_back(clip("wave", 3, 1));
  EXPECT_TRUE(has_content(bones));
}

// A cut between morph weight keys starts and ends with the weights there, as a player shows them:
// linear between keys (step interpolation: the earlier key's), the first key's before it and the
// last key's after it; keys at an end are not doubled.
TEST(Clips, CutInterpolatesMorphWeightsAtItsEnds) {
  auto cut = [](std::vector<float> times, std::vector<float> weights, const char* spec, bool step) {
    Scene s = model_with_clips();
    Animation& a = s.animations[0];  // "jump": 4 frames at 10 fps, 0 .. 0.3 s
    a.interpolation = step ? Interpolation::Step : Interpolation::Linear;
    MorphWeightTrack t;
    t.mesh = 0;
    t.times = std::move(times);
    t.weights = std::move(weights);
    a.morph_weights.push_back(t);
    ClipOptions o;
    o.cuts = {parse_clip_cut(spec)};
    edit_clips(s, o);
    return s.animations.back().morph_weights.at(0);
  };
  // Two targets, keys at 0 and 0.4 s; the cut is frames 1..2 (0.1 .. 0.2 s).
  MorphWeightTrack m = cut({0, 0.4f}, {0, 1, 1, 0}, "mid=jump:1:2", false);
  ASSERT_EQ(m.times.size(), 2u);
  EXPECT_EQ(m.times[0], 0.0f);
  EXPECT_NEAR(m.times[1], 0.1f, 1e-6f);
  ASSERT_EQ(m.weights.size(), 4u);
  const float want[] = {0.25f, 0.75f, 0.5f, 0.5f};
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(m.weights[size_t(k)], want[k], 1e-6f) << k;
  // Step: the key at 0 holds.
  m = cut({0, 0.4f}, {0, 1, 1, 0}, "mid=jump:1:2", true);
  EXPECT_EQ(m.weights, (std::vector<float>{0, 1, 0, 1}));
  // Before the first key and after the last: their weights; a key inside stays between the ends.
  m = cut({0.15f, 0.25f}, {0.5f, 0.5f, 0.8f, 0.2f}, "all=jump:0:3", false);
  ASSERT_EQ(m.times.size(), 4u);
  EXPECT_NEAR(m.times[1], 0.15f, 1e-6f);
  EXPECT_NEAR(m.times[3], 0.3f, 1e-6f);
  EXPECT_EQ(m.weights, (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f, 0.8f, 0.2f, 0.8f, 0.2f}));
  // Keys exactly at both ends: kept as they are, none added.
  m = cut({0.1f, 0.2f}, {0.3f, 0.6f}, "mid=jump:1:2", false);  // one target
  EXPECT_EQ(m.weights, (std::vector<float>{0.3f, 0.6f}));
  EXPECT_EQ(m.times.size(), 2u);
}

}  // namespace meshport_test_clips
