// ModeDef .prop, .state and .path (src/formats/modedef/modedef_scene.cpp, docs/modedef.md): every field of
// the hand-written fixtures in tests/data/modedef/state with exact values, print / parse round
// trips, one fixture per error with its exact location, truncation, the .state Scene (joints,
// mesh copies, planes, constraints, animation), the writers and the .state -> .state round trip
// through files.
#include <meshport/meshport.h>

#include "formats/modedef/modedef.h"
#include "ops/animation/euler_zyx.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <string>
#include <vector>

namespace meshport_test_modedef_scene {

using namespace meshport;
using namespace meshport::modedef;

namespace {

const std::string kDir = std::string(MESHPORT_TEST_DATA) + "/modedef/state";

std::string fixture_text(const std::string& name) { return testutil::slurp(kDir + "/" + name); }

// Loads side files from the fixture folder, counting the loads of each name.
struct CountingLoader {
  std::map<std::string, int> loads;
  SideFileLoader loader() {
    return [this](const std::string& rel) {
      ++loads[rel];
      const std::string p = kDir + "/" + rel;
      if (!std::filesystem::exists(p)) fail(rel, "not found");
      std::string t = testutil::slurp(p);
      return std::vector<uint8_t>(t.begin(), t.end());
    };
  }
};

std::string read_error(const std::string& fixture) {
  try {
    meshport::read(kDir + "/" + fixture);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

Scene read_fixture(const std::string& name, Diagnostics* d = nullptr) { return meshport::read(kDir + "/" + name, {}, d); }

std::vector<float> positions(const Mesh& m) {
  const VertexStream* s = m.find(Attribute::Position);
  return s ? s->data : std::vector<float>{};
}

void expect_floats(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "index " << i;
}
template <size_t N>
void expect_array(const std::array<float, N>& got, const std::array<float, N>& want, float tol = 1e-5f) {
  for (size_t i = 0; i < N; ++i) EXPECT_NEAR(got[i], want[i], tol) << "component " << i;
}

// Byte offsets just past each token (comments skipped).
std::vector<size_t> token_ends(const std::string& t) {
  std::vector<size_t> ends;
  size_t i = 0;
  while (i < t.size()) {
    if (std::isspace(static_cast<unsigned char>(t[i]))) {
      ++i;
      continue;
    }
    if (t[i] == '#' || t.compare(i, 2, "//") == 0) {
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    ends.push_back(i);
  }
  return ends;
}

}  // namespace

// ---- Parsers --------------------------------------------------------------------------------

TEST(ModeDefSceneParse, PropEveryField) {
  Diagnostics d;
  ModeDefProp p = parse_prop(fixture_text("box.prop"), "box.prop", d);
  EXPECT_EQ(p.model_file, "tri.obj");
  EXPECT_EQ(p.rigid_body, 1);
  EXPECT_EQ(p.deform, 0);
  EXPECT_EQ(p.mass, 2.5f);
  EXPECT_EQ(p.center_of_mass, (std::array<float, 3>{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(p.inertia, (std::array<float, 9>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(p.unused1, 0.5f);
  EXPECT_EQ(p.lame, 1000.0f);
  EXPECT_EQ(p.damping1, 0.01f);
  EXPECT_EQ(p.damping2, 0.02f);
  EXPECT_EQ(p.scale, 2.0f);
  EXPECT_EQ(p.unused2, 0.75f);
  EXPECT_EQ(p.kp, 100.0f);
  EXPECT_EQ(p.kv, 10.0f);
  EXPECT_EQ(p.kb, 5.0f);
  EXPECT_TRUE(d.items.empty());
  // true / false flags read as 1 / 0.
  ModeDefProp ball = parse_prop(fixture_text("props/ball.prop"), "ball.prop", d);
  EXPECT_EQ(ball.model_file, "../tri.model");
  EXPECT_EQ(ball.rigid_body, 1);
  EXPECT_EQ(ball.deform, 0);
}

TEST(ModeDefSceneParse, StateEveryField) {
  Diagnostics d;
  ModeDefState s = parse_state(fixture_text("scene.state"), "scene.state", d);
  EXPECT_EQ(s.fps, 30);
  EXPECT_EQ(s.use_penalty, 1);
  EXPECT_EQ(s.gravity, (std::array<float, 3>{0, -9.8f, 0}));
  EXPECT_EQ(s.friction, 0.3f);
  EXPECT_EQ(s.max_penetration, 0.01f);
  EXPECT_EQ(s.cluster_factor, 0.5f);
  EXPECT_EQ(s.cluster_radius, 0.2f);
  ASSERT_EQ(s.objects.size(), 3u);
  const ModeDefObject& a = s.objects[0];
  EXPECT_EQ(a.name, "box.prop");
  EXPECT_TRUE(a.animated);
  EXPECT_EQ(a.position, (std::array<float, 3>{1, 2, 3}));
  EXPECT_EQ(a.rotation, (std::array<float, 4>{0.70710678f, 0, 0.70710678f, 0}));
  EXPECT_EQ(a.velocity, (std::array<float, 3>{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(a.angular_velocity, (std::array<float, 3>{0.4f, 0.5f, 0.6f}));
  EXPECT_EQ(a.birth, -1.0f);
  EXPECT_EQ(a.death, -1.0f);
  EXPECT_EQ(a.path_file, "fly.path");
  const ModeDefObject& b = s.objects[1];
  EXPECT_EQ(b.name, "./box.prop");
  EXPECT_FALSE(b.animated);
  EXPECT_EQ(b.rotation, (std::array<float, 4>{2, 0, 0, 0}));
  EXPECT_EQ(b.birth, 0.5f);
  EXPECT_EQ(b.death, 0.8f);
  EXPECT_EQ(b.path_file, "");
  EXPECT_EQ(s.objects[2].name, "props/ball.prop");
  EXPECT_EQ(s.objects[2].position, (std::array<float, 3>{-1, 0, 0}));
  ASSERT_EQ(s.planes.size(), 2u);
  EXPECT_EQ(s.planes[0].normal, (std::array<float, 3>{0, 1, 0}));
  EXPECT_EQ(s.planes[0].point, (std::array<float, 3>{0, -1, 0}));
  EXPECT_EQ(s.planes[1].normal, (std::array<float, 3>{0, 0, 2}));
  EXPECT_EQ(s.planes[1].point, (std::array<float, 3>{0, 0, -5}));
  ASSERT_EQ(s.constraints.size(), 2u);
  EXPECT_EQ(s.constraints[0].body1, -1);
  EXPECT_EQ(s.constraints[0].body2, 0);
  EXPECT_EQ(s.constraints[0].point, (std::array<float, 3>{1, 2, 3}));
  EXPECT_EQ(s.constraints[1].body1, 0);
  EXPECT_EQ(s.constraints[1].body2, 2);
  EXPECT_EQ(s.constraints[1].point, (std::array<float, 3>{4, 5, 6}));
}

TEST(ModeDefSceneParse, PathEveryField) {
  Diagnostics d;
  ModeDefPath p = parse_path(fixture_text("fly.path"), "fly.path", d);
  ASSERT_EQ(p.translation.size(), 2u);
  ASSERT_EQ(p.rotation.size(), 2u);
  EXPECT_EQ(p.translation[0], (ModeDefPathKey{0, {0, 0, 0}}));
  EXPECT_EQ(p.translation[1], (ModeDefPathKey{1, {2, 4, 6}}));
  EXPECT_EQ(p.rotation[0], (ModeDefPathKey{0.5f, {0, 0, 0}}));
  EXPECT_EQ(p.rotation[1], (ModeDefPathKey{1, {0, 0, 1.5707963f}}));
}

TEST(ModeDefSceneParse, PrintExact) {
  Diagnostics d;
  EXPECT_EQ(print_prop(parse_prop(fixture_text("box.prop"), "box.prop", d)),
            "tri.obj\n1 0\n2.5\n0.1 0.2 0.3\n1 2 3\n4 5 6\n7 8 9\n0.5 1000 0.01 0.02\n2 0.75\n100 10 5\n");
  EXPECT_EQ(print_path(parse_path(fixture_text("fly.path"), "fly.path", d)),
            "2 2\n0  0 0 0\n1  2 4 6\n0.5  0 0 0\n1  0 0 1.5707963\n");
  ModeDefState s;
  s.objects.resize(2);
  s.objects[0].name = "a.prop";
  s.objects[0].animated = true;
  s.objects[0].path_file = "a.path";
  s.objects[1].name = "b.prop";
  s.planes.resize(1);
  s.constraints.resize(1);
  EXPECT_EQ(print_state(s),
            "30\n0\n0 -9.8 0\n0\n0 0 0\n2\n"
            "a.prop a\n0 0 0\n1 0 0 0\n0 0 0\n0 0 0\n-1 -1\na.path\n"
            "b.prop\n0 0 0\n1 0 0 0\n0 0 0\n0 0 0\n-1 -1\n"
            "1\n0 1 0\n0 0 0\n1\n-1 0\n0 0 0\n");
}

TEST(ModeDefSceneParse, PrintParseRoundTrip) {
  Diagnostics d;
  for (const char* f : {"box.prop", "props/ball.prop"}) {
    ModeDefProp p = parse_prop(fixture_text(f), f, d);
    EXPECT_EQ(parse_prop(print_prop(p), f, d), p) << f;
  }
  ModeDefState s = parse_state(fixture_text("scene.state"), "scene.state", d);
  EXPECT_EQ(parse_state(print_state(s), "scene.state", d), s);
  ModeDefPath path = parse_path(fixture_text("fly.path"), "fly.path", d);
  EXPECT_EQ(parse_path(print_path(path), "fly.path", d), path);

  // Awkward values: extreme floats, flags kept as written, an object named "b", an empty state.
  ModeDefProp p;
  p.model_file = "m";
  p.rigid_body = 7;
  p.deform = -3;
  p.mass = 1e38f;
  p.center_of_mass = {1e-38f, -1e-45f, 0.1f};
  p.inertia = {1.0f / 3, 2.0f / 3, 1e10f, -0.0f, 5, 6, 7, 8, 123456789.0f};
  p.kb = -1e-7f;
  EXPECT_EQ(parse_prop(print_prop(p), "p", d), p);
  ModeDefState e;
  EXPECT_EQ(parse_state(print_state(e), "e", d), e);
  e.fps = -5;
  e.use_penalty = 12;
  e.objects.resize(1);
  e.objects[0].name = "b";
  e.objects[0].rotation = {0, 0, 0, 1e-30f};
  e.objects[0].birth = 1e30f;
  e.planes.push_back({{1e-20f, 0, 0}, {1, 2, 3}});
  e.constraints.push_back({0, 0, {0, 0, 0}});
  EXPECT_EQ(parse_state(print_state(e), "e", d), e);
  ModeDefPath q;
  q.rotation = {{-1, {1, 2, 3}}, {-1, {4, 5, 6}}, {2, {0.1f, 0.2f, 0.3f}}};
  EXPECT_EQ(parse_path(print_path(q), "q", d), q);
  EXPECT_EQ(parse_path(print_path(ModeDefPath{}), "q", d), ModeDefPath{});
}

// ---- Errors ---------------------------------------------------------------------------------

TEST(ModeDefSceneErrors, ParseErrors) {
  const std::string D = kDir + "/";
  EXPECT_EQ(read_error("err-quat.state"),
            D + "err-quat.state:9:1: error: the rotation ROT of object 0 is the zero quaternion");
  EXPECT_EQ(read_error("err-body1.state"),
            D + "err-body1.state:15:1: error: the first body B1 -2 of constraint 0 is neither -1 (static) nor an "
                "object index (the .state has 1 object)");
  EXPECT_EQ(read_error("err-body1-high.state"),
            D + "err-body1-high.state:15:1: error: the first body B1 1 of constraint 0 is neither -1 (static) nor an "
                "object index (the .state has 1 object)");
  EXPECT_EQ(read_error("err-body2.state"),
            D + "err-body2.state:15:3: error: the second body B2 1 of constraint 0 is not an object index (the "
                ".state has 1 object)");
  EXPECT_EQ(read_error("err-plane.state"), D + "err-plane.state:14:1: error: the normal N of plane 0 is zero");
  EXPECT_EQ(read_error("err-trailing.state"),
            D + "err-trailing.state:15:1: error: unexpected 'extra' after the last value of the .state");
  EXPECT_EQ(read_error("err-count.state"),
            D + "err-count.state:6:1: error: the object count #OBJ 99999999 is more than the rest of the file can "
                "hold");
  EXPECT_EQ(read_error("err-trailing.prop"),
            D + "err-trailing.prop:11:1: error: unexpected 'x' after the last value of the .prop (KB)");
  EXPECT_EQ(read_error("err-time.path"),
            D + "err-time.path:4:1: error: the time 1 of rotation key 2 is before the previous key's 2: key times "
                "must not decrease");
  EXPECT_EQ(read_error("err-trailing.path"),
            D + "err-trailing.path:3:1: error: unexpected '4' after the last key of the .path");
  EXPECT_EQ(read_error("err-huge.path"),
            D + "err-huge.path:1:1: error: the translation key count #T 1000000 is more than the rest of the file "
                "can hold");
  EXPECT_EQ(read_error("err-long.path"),
            D + "err-long.path:2:1: error: the animation would be 1e+30 s long: at 30 fps, more than 2097152 poses "
                "for 1 object");
  Diagnostics d;
  try {
    parse_state("30 0 0 0 0 0 0 0 0 x", "t.state", d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "t.state:1:20: error: expected the object count #OBJ (an integer), found 'x'");
  }
  try {
    parse_prop("m 1 1 1 0 0", "t.prop", d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "t.prop:1:12: error: unexpected end of file: expected the centre of mass COM z");
  }
}

TEST(ModeDefSceneErrors, ReferencedFiles) {
  const std::string D = kDir + "/";
  EXPECT_EQ(read_error("err-self.state"), D + "err-self.state:7:1: error: object 0 'err-self.state' is this .state file itself");
  EXPECT_EQ(read_error("err-missing-prop.state"),
            D + "err-missing-prop.state:7:1: error: cannot load the .prop 'nothere.prop': " + D +
                "nothere.prop: error: cannot open: No such file or directory");
  EXPECT_EQ(read_error("err-missing-model.state"),
            D + "err-missing-model.state:7:1: error: in the .prop 'missing-model.prop': " + D +
                "missing-model.prop:1:1: error: cannot load the model 'missing.model': " + D +
                "missing.model: error: cannot open: No such file or directory");
  EXPECT_EQ(read_error("missing-model.prop"),
            D + "missing-model.prop:1:1: error: cannot load the model 'missing.model': " + D +
                "missing.model: error: cannot open: No such file or directory");
  EXPECT_EQ(read_error("err-missing-path.state"),
            D + "err-missing-path.state:13:1: error: cannot load the .path 'nothere.path': " + D +
                "nothere.path: error: cannot open: No such file or directory");
  EXPECT_EQ(read_error("err-prop-cycle.state"),
            D + "err-prop-cycle.state:7:1: error: in the .prop 'err-prop-state.prop': " + D +
                "err-prop-state.prop:1:1: error: MODELFILE 'scene.state' names a .state file, not a model (a .prop "
                "cannot include itself or a scene)");
  EXPECT_EQ(read_error("err-prop-self.prop"),
            D + "err-prop-self.prop:1:1: error: MODELFILE 'err-prop-self.prop' names a .prop file, not a model (a "
                ".prop cannot include itself or a scene)");
  EXPECT_EQ(read_error("err-broken-prop.state"),
            D + "err-broken-prop.state:7:1: error: in the .prop 'err-trailing.prop': " + D +
                "err-trailing.prop:11:1: error: unexpected 'x' after the last value of the .prop (KB)");
  EXPECT_EQ(read_error("err-broken-path.state"),
            D + "err-broken-path.state:13:1: error: in the .path 'err-time.path': " + D +
                "err-time.path:4:1: error: the time 1 of rotation key 2 is before the previous key's 2: key times "
                "must not decrease");
  // From memory there is no folder to load from.
  std::string t = fixture_text("scene.state");
  try {
    read_memory(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(t.data()), t.size()), Format::ModeDefState,
                "mem.state");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "mem.state:7:1: error: cannot load the .prop 'box.prop': mem.state: error: cannot load "
                           "'box.prop': side files are only found when reading from a file");
  }
}

TEST(ModeDefSceneErrors, ObjectThatIsAState) {
  CountingLoader c;
  Diagnostics d;
  ModeDefState st;
  st.objects.resize(1);
  st.objects[0].name = "other.state";
  try {
    read_state(print_state(st), "x.state", c.loader(), d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x.state:7:1: error: object 0 'other.state' is a .state file, not a .prop");
  }
  EXPECT_TRUE(c.loads.empty());
}

TEST(ModeDefSceneState, NonPositiveScaleWarns) {
  CountingLoader c;
  Diagnostics d;
  ModeDefState st;
  st.objects.resize(1);
  st.objects[0].name = "mirrored.prop";
  Scene s = read_state(print_state(st), "x.state", c.loader(), d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(),
            "mirrored.prop:9:1: warning: SCALE -1 is not positive: the object's meshes are degenerate or mirrored");
  expect_floats(positions(s.meshes[0]), {0, 0, 0, -1, 0, 0, 0, -1, 0});
  expect_array(s.joints[0].rest.scale, {-1, -1, -1});
}

TEST(ModeDefSceneErrors, TruncationFailsCleanly) {
  for (const char* f : {"scene.state", "box.prop", "fly.path"}) {
    const std::string text = fixture_text(f);
    const std::vector<size_t> ends = token_ends(text);
    ASSERT_GT(ends.size(), 3u);
    Diagnostics d;
    auto parse = [&](const std::string& t) {
      std::string ext = std::filesystem::path(f).extension().string();
      if (ext == ".state") parse_state(t, f, d);
      else if (ext == ".prop") parse_prop(t, f, d);
      else parse_path(t, f, d);
    };
    // At every token boundary but the last: an error about the missing values.
    for (size_t k = 0; k + 1 < ends.size(); ++k) {
      try {
        parse(text.substr(0, ends[k]));
        ADD_FAILURE() << f << " cut after token " << k << " parsed";
      } catch (const Error& e) {
        // Or, cut inside a list, the count found too large for what is left.
        const std::string m = e.what();
        EXPECT_TRUE(m.find("unexpected end of file") != std::string::npos ||
                    m.find("more than the rest of the file can hold") != std::string::npos)
            << m;
      }
    }
    // At every byte: a meshport::Error or a file that still parses, nothing else.
    for (size_t n = 0; n < text.size(); ++n) {
      try {
        parse(text.substr(0, n));
      } catch (const Error&) {
      }
    }
    EXPECT_NO_THROW(parse(text));
  }
}

TEST(ModeDefSceneErrors, HugeCountsFailWithoutAllocating) {
  Diagnostics d;
  EXPECT_THROW(parse_state("30 0 0 0 0 0 0 0 0 2147483647 a", "h", d), Error);
  EXPECT_THROW(parse_state("30 0 0 0 0 0 0 0 0 0 2147483647 0 0 0 0 0 0", "h", d), Error);
  EXPECT_THROW(parse_state("30 0 0 0 0 0 0 0 0 0 0 2147483647 0 0 0 0 0", "h", d), Error);
  EXPECT_THROW(parse_path("2147483647 2147483647 0 0 0 0", "h", d), Error);
  // Each count alone fits, both together do not.
  try {
    parse_path("2 2 0 0 0 0 0 0 0 0", "h", d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "h:1:3: error: 2 translation and 2 rotation keys are more than the rest of the file can hold");
  }
}

// ---- .state into the Scene --------------------------------------------------------------------

TEST(ModeDefSceneState, KeptData) {
  Scene s = read_fixture("scene.state");
  const ModeDefData& md = *s.modedef;
  EXPECT_EQ(md.kind, ModeDefData::Kind::State);
  Diagnostics d;
  EXPECT_EQ(md.state, parse_state(fixture_text("scene.state"), "s", d));
  ASSERT_EQ(md.props.size(), 2u);
  EXPECT_EQ(md.props[0].file, "box.prop");
  EXPECT_EQ(md.props[0].prop, parse_prop(fixture_text("box.prop"), "p", d));
  EXPECT_EQ(md.props[0].model, 0);
  EXPECT_EQ(md.props[1].file, "props/ball.prop");
  EXPECT_EQ(md.props[1].model, 0);  // ../tri.model from props/ is the same file
  ASSERT_EQ(md.models.size(), 1u);
  EXPECT_EQ(md.models[0].file, "tri.model");
  EXPECT_EQ(md.models[0].model, parse_model(fixture_text("tri.model"), "m", d));
  ASSERT_EQ(md.paths.size(), 1u);
  EXPECT_EQ(md.paths[0].file, "fly.path");
  EXPECT_EQ(md.paths[0].path, parse_path(fixture_text("fly.path"), "f", d));
  EXPECT_EQ(md.object_prop, (std::vector<int32_t>{0, 0, 1}));
  EXPECT_EQ(md.object_path, (std::vector<int32_t>{0, -1, -1}));
  EXPECT_EQ(md.object_joint, (std::vector<int32_t>{0, 1, 2}));
  ASSERT_EQ(md.mesh_sources.size(), 3u);
  for (int32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(md.mesh_sources[size_t(i)].mesh, i);
    EXPECT_EQ(md.mesh_sources[size_t(i)].model, 0);
    EXPECT_EQ(md.mesh_sources[size_t(i)].object, i);
    EXPECT_EQ(md.mesh_sources[size_t(i)].vertex, (std::vector<uint32_t>{0, 1, 2}));
  }
}

TEST(ModeDefSceneState, EachFileLoadedOnce) {
  CountingLoader c;
  Diagnostics d;
  Scene s = read_state(fixture_text("scene.state"), "scene.state", c.loader(), d);
  EXPECT_EQ(c.loads, (std::map<std::string, int>{{"box.prop", 1}, {"fly.path", 1}, {"props/ball.prop", 1}, {"tri.model", 1}}));
  EXPECT_EQ(s.meshes.size(), 5u);
}

TEST(ModeDefSceneState, JointsAtObjectRest) {
  Scene s = read_fixture("scene.state");
  ASSERT_EQ(s.joints.size(), 3u);
  EXPECT_EQ(s.joints[0].name, "box.0");
  EXPECT_EQ(s.joints[1].name, "box.1");
  EXPECT_EQ(s.joints[2].name, "ball");
  for (const Joint& j : s.joints) EXPECT_EQ(j.parent, -1);
  // 90 degrees about Y, written w x y z.
  expect_array(s.joints[0].rest.translation, {1, 2, 3});
  expect_array(s.joints[0].rest.rotation, {0, 0.70710678f, 0, 0.70710678f});
  expect_array(s.joints[0].rest.scale, {2, 2, 2});
  // 2 0 0 0 normalised.
  expect_array(s.joints[1].rest.rotation, {0, 0, 0, 1});
  expect_array(s.joints[1].rest.scale, {2, 2, 2});
  expect_array(s.joints[2].rest.translation, {-1, 0, 0});
  expect_array(s.joints[2].rest.scale, {1, 1, 1});
}

TEST(ModeDefSceneState, MeshCopiesPlacedAndBound) {
  Scene s = read_fixture("scene.state");
  ASSERT_EQ(s.meshes.size(), 5u);
  EXPECT_EQ(s.meshes[0].name, "box.0/tri");
  EXPECT_EQ(s.meshes[1].name, "box.1/tri");
  EXPECT_EQ(s.meshes[2].name, "ball/tri");
  // tri (0 0 0) (1 0 0) (0 1 0), scaled 2, turned 90 degrees about Y, moved to (1 2 3).
  expect_floats(positions(s.meshes[0]), {1, 2, 3, 1, 2, 1, 1, 4, 3});
  expect_floats(positions(s.meshes[1]), {0, 0, 0, 2, 0, 0, 0, 2, 0});
  expect_floats(positions(s.meshes[2]), {-1, 0, 0, 0, 0, 0, -1, 1, 0});
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2}));
  for (uint32_t m = 0; m < 3; ++m) {
    const VertexStream* bi = s.meshes[m].find(Attribute::BlendIndices);
    const VertexStream* bw = s.meshes[m].find(Attribute::BlendWeights);
    ASSERT_TRUE(bi && bw);
    EXPECT_EQ(bi->components, 1u);
    EXPECT_EQ(bw->components, 1u);
    EXPECT_EQ(bi->format, ComponentType::Float);
    EXPECT_EQ(bi->data, (std::vector<float>{float(m), float(m), float(m)}));
    EXPECT_EQ(bw->data, (std::vector<float>{1, 1, 1}));
  }
  // The mode (+Z per node) turned with the object and scaled: +2 X for box.0.
  ASSERT_EQ(s.meshes[0].morph_targets.size(), 1u);
  expect_floats(s.meshes[0].morph_targets[0].positions, {2, 0, 0, 2, 0, 0, 2, 0, 0});
  expect_floats(s.meshes[2].morph_targets[0].positions, {0, 0, 1, 0, 0, 1, 0, 0, 1});
  EXPECT_EQ(s.meshes[0].morph_targets[0].name, s.meshes[2].morph_targets[0].name);
  // Planes are not skinned.
  EXPECT_EQ(s.meshes[3].find(Attribute::BlendIndices), nullptr);
}

TEST(ModeDefSceneState, PlaneQuads) {
  Scene s = read_fixture("scene.state");
  ASSERT_EQ(s.meshes.size(), 5u);
  const Mesh& p0 = s.meshes[3];
  EXPECT_EQ(p0.name, "plane0");
  EXPECT_EQ(p0.material, -1);
  EXPECT_EQ(p0.triangles, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
  // Half side max(10, 2 R): the farthest object vertex from (0 -1 0) is (1 4 3), R = sqrt(35).
  const float h = 2 * std::sqrt(35.0f);
  expect_floats(positions(p0), {-h, -1, -h, -h, -1, h, h, -1, h, h, -1, -h}, 1e-4f);
  expect_floats(p0.find(Attribute::Normal)->data, {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0});
  // Normal (0 0 2) at (0 0 -5): farthest vertex (1 4 3), R = 9.
  const Mesh& p1 = s.meshes[4];
  EXPECT_EQ(p1.name, "plane1");
  expect_floats(positions(p1), {-18, 18, -5, -18, -18, -5, 18, -18, -5, 18, 18, -5}, 1e-4f);
  expect_floats(p1.find(Attribute::Normal)->data, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1});
}

TEST(ModeDefSceneState, ConstraintAttachments) {
  Scene s = read_fixture("scene.state");
  ASSERT_EQ(s.attachments.size(), 2u);
  EXPECT_EQ(s.attachments[0].name, "constraint0");
  EXPECT_EQ(s.attachments[0].joint, -1);
  EXPECT_EQ(s.attachments[0].mesh, -1);
  EXPECT_EQ(s.attachments[0].transform.translation, (std::array<float, 3>{1, 2, 3}));
  EXPECT_EQ(s.attachments[1].name, "constraint1");
  EXPECT_EQ(s.attachments[1].transform.translation, (std::array<float, 3>{4, 5, 6}));
  EXPECT_EQ(s.attachments[1].transform.rotation, (std::array<float, 4>{0, 0, 0, 1}));
}

TEST(ModeDefSceneState, Animation) {
  Scene s = read_fixture("scene.state");
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "scene");
  EXPECT_EQ(a.framerate, 30.0f);
  EXPECT_EQ(a.channels, 3u);
  EXPECT_TRUE(a.times.empty());
  ASSERT_EQ(a.frame_count(), 31u);  // 0 .. 1 s (the last key and the death time)
  auto pose = [&](size_t f, size_t j) { return a.poses[f * 3 + j]; };
  // Object 0 follows fly.path: translation keys (0: 0 0 0) (1: 2 4 6), rotation keys
  // (0.5: 0 0 0) (1: 0 0 pi/2).
  expect_array(pose(0, 0).translation, {0, 0, 0});
  expect_array(pose(0, 0).rotation, {0, 0, 0, 1});
  expect_array(pose(15, 0).translation, {1, 2, 3});
  expect_array(pose(15, 0).rotation, {0, 0, 0, 1});
  expect_array(pose(30, 0).translation, {2, 4, 6});
  expect_array(pose(30, 0).rotation, {0, 0, 0.70710678f, 0.70710678f});
  // Halfway between the rotation keys: pi/4 about Z.
  expect_array(pose(23, 0).rotation, {0, 0, std::sin(float(std::numbers::pi) * (23.0f / 30 - 0.5f) / 2),
                                      std::cos(float(std::numbers::pi) * (23.0f / 30 - 0.5f) / 2)});
  expect_array(pose(30, 0).scale, {2, 2, 2});
  // Object 1: born at 0.5 s, dead after 0.8 s; otherwise at rest.
  for (size_t f = 0; f < 31; ++f) {
    const float want = f >= 15 && f <= 24 ? 2.0f : 0.0f;
    EXPECT_EQ(pose(f, 1).scale, (std::array<float, 3>{want, want, want})) << "frame " << f;
    EXPECT_EQ(pose(f, 1).translation, (std::array<float, 3>{0, 0, 0}));
  }
  // Object 2: always at rest.
  for (size_t f = 0; f < 31; ++f) EXPECT_EQ(pose(f, 2), s.joints[2].rest);
}

TEST(ModeDefSceneState, NoAnimationWithoutPathsOrTimes) {
  CountingLoader c;
  Diagnostics d;
  ModeDefState st;
  st.objects.resize(1);
  st.objects[0].name = "box.prop";
  Scene s = read_state(print_state(st), "still.state", c.loader(), d);
  EXPECT_TRUE(s.animations.empty());
  EXPECT_EQ(s.joints.size(), 1u);
  EXPECT_EQ(s.joints[0].name, "box");
  EXPECT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].name, "box/tri");
}

TEST(ModeDefSceneState, RoundTripThroughFiles) {
  testutil::TempDir dir;
  Scene s = read_fixture("scene.state");
  // Side files go into the folders the references name (props/ is created).
  Diagnostics d;
  meshport::write(s, dir / "out.state", {}, &d);
  EXPECT_EQ(d.warning_count(), 0u);
  for (const char* f : {"out.state", "box.prop", "props/ball.prop", "tri.model", "fly.path"})
    EXPECT_TRUE(std::filesystem::exists(dir.path / f)) << f;
  Scene back = meshport::read(dir / "out.state");
  EXPECT_EQ(back.modedef->state, s.modedef->state);
  EXPECT_EQ(back.modedef->props, s.modedef->props);
  EXPECT_EQ(back.modedef->models, s.modedef->models);
  EXPECT_EQ(back.modedef->paths, s.modedef->paths);
  EXPECT_EQ(back.modedef->object_prop, s.modedef->object_prop);
  EXPECT_EQ(back.modedef->object_path, s.modedef->object_path);
  EXPECT_EQ(back.joints, s.joints);
  EXPECT_EQ(back.meshes.size(), s.meshes.size());
  EXPECT_EQ(back.attachments, s.attachments);
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].poses, s.animations[0].poses);
  // The written files are the kept ones, printed.
  EXPECT_EQ(testutil::slurp(dir.path / "out.state"), print_state(s.modedef->state));
  EXPECT_EQ(testutil::slurp(dir.path / "box.prop"), print_prop(s.modedef->props[0].prop));
  EXPECT_EQ(testutil::slurp(dir.path / "tri.model"), print_model(s.modedef->models[0].model));
}

// ---- Writers --------------------------------------------------------------------------------

TEST(ModeDefSceneWrite, StateFlattensReferencesOutsideTheFolder) {
  Scene s = read_fixture("scene.state");
  s.modedef->state.objects[2].name = "../props/ball.prop";
  s.modedef->state.objects[0].path_file = "/abs/fly.path";
  Diagnostics d;
  std::vector<OutputFile> files = write_state(s, d);
  std::vector<std::string> names;
  for (const OutputFile& f : files) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"", "box.prop", "tri.model", "ball.prop", "fly.path"}));
  ModeDefState st = parse_state(std::string(files[0].bytes.begin(), files[0].bytes.end()), "o", d);
  EXPECT_EQ(st.objects[0].name, "box.prop");
  EXPECT_EQ(st.objects[1].name, "./box.prop");
  EXPECT_EQ(st.objects[2].name, "ball.prop");
  EXPECT_EQ(st.objects[0].path_file, "fly.path");
  // ball.prop, now beside the .state, names its model (../tri.model would leave the folder).
  ModeDefProp ball = parse_prop(std::string(files[3].bytes.begin(), files[3].bytes.end()), "b", d);
  EXPECT_EQ(ball.model_file, "tri.model");
  std::vector<std::string> warnings;
  for (const Diagnostic& w : d.items) warnings.push_back(w.to_string());
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          ": warning: the prop '../props/ball.prop' is outside the output's folder: written as "
                          "'ball.prop' instead",
                          ": warning: the model '../tri.model' is outside the output's folder: written as "
                          "'tri.model' instead",
                          ": warning: the path '/abs/fly.path' is outside the output's folder: written as 'fly.path' "
                          "instead"}));
}

TEST(ModeDefSceneWrite, StateNeedsAState) {
  Scene s;
  Diagnostics d;
  try {
    write_state(s, d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ": error: ModeDef .state: only a Scene read from a .state can be written as one (this "
                           "Scene has no kept .state; write its meshes as .model or .prop instead)");
  }
  Scene st = read_fixture("scene.state");
  st.modedef->state.objects[0].name = "has space.prop";
  EXPECT_THROW(write_state(st, d), Error);
}

// ---- .prop --------------------------------------------------------------------------------------

TEST(ModeDefSceneProp, ReadUnscaledWithProperties) {
  Scene s = read_fixture("box.prop");
  const ModeDefData& md = *s.modedef;
  EXPECT_EQ(md.kind, ModeDefData::Kind::Prop);
  ASSERT_EQ(md.props.size(), 1u);
  EXPECT_EQ(md.props[0].file, "box.prop");
  EXPECT_EQ(md.props[0].prop.scale, 2.0f);
  EXPECT_EQ(md.props[0].model, 0);
  ASSERT_EQ(md.models.size(), 1u);
  EXPECT_EQ(md.models[0].file, "tri.model");
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].name, "tri");
  expect_floats(positions(s.meshes[0]), {0, 0, 0, 1, 0, 0, 0, 1, 0});
  EXPECT_TRUE(s.joints.empty());
  ASSERT_EQ(md.mesh_sources.size(), 1u);
  EXPECT_EQ(md.mesh_sources[0].object, -1);
}

TEST(ModeDefSceneProp, WriteKeptPropAndModel) {
  Scene s = read_fixture("box.prop");
  Diagnostics d;
  std::vector<OutputFile> files = write_prop(s, "out", d);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "");
  EXPECT_EQ(std::string(files[0].bytes.begin(), files[0].bytes.end()), print_prop(s.modedef->props[0].prop));
  EXPECT_EQ(files[1].name, "tri.model");
  EXPECT_EQ(std::string(files[1].bytes.begin(), files[1].bytes.end()), print_model(s.modedef->models[0].model));

  testutil::TempDir dir;
  meshport::write(s, dir / "out.prop");
  Scene back = meshport::read(dir / "out.prop");
  EXPECT_EQ(back.modedef->props[0].prop, s.modedef->props[0].prop);
  EXPECT_EQ(back.modedef->models, s.modedef->models);

  // A MODELFILE outside the output's folder is written beside the .prop instead.
  s.modedef->props[0].prop.model_file = "../models/tri.obj";
  Diagnostics w;
  files = write_prop(s, "out", w);
  EXPECT_EQ(files[1].name, "tri.model");
  EXPECT_EQ(parse_prop(std::string(files[0].bytes.begin(), files[0].bytes.end()), "p", d).model_file, "tri.model");
  EXPECT_EQ(w.warning_count(), 1u);
}

TEST(ModeDefSceneProp, WriteFromAnyScene) {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  Diagnostics d;
  std::vector<OutputFile> files = write_prop(s, "thing", d);
  ASSERT_EQ(files.size(), 2u);
  ModeDefProp p = parse_prop(std::string(files[0].bytes.begin(), files[0].bytes.end()), "p", d);
  ModeDefProp want;
  want.model_file = "thing.model";
  EXPECT_EQ(p, want);
  EXPECT_EQ(files[1].name, "thing.model");
  EXPECT_EQ(files[1].bytes, write_model(s, d).front().bytes);
}

// ---- .path ----------------------------------------------------------------------------------------

TEST(ModeDefScenePath, ReadAsJointAnimation) {
  Scene s = read_fixture("fly.path");
  EXPECT_EQ(s.modedef->kind, ModeDefData::Kind::Path);
  ASSERT_EQ(s.modedef->paths.size(), 1u);
  EXPECT_EQ(s.modedef->paths[0].file, "fly.path");
  ASSERT_EQ(s.joints.size(), 1u);
  EXPECT_EQ(s.joints[0].name, "path");
  EXPECT_EQ(s.joints[0].rest, Transform{});
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "fly");
  EXPECT_EQ(a.framerate, 30.0f);
  EXPECT_EQ(a.channels, 1u);
  ASSERT_EQ(a.frame_count(), 31u);
  expect_array(a.poses[15].translation, {1, 2, 3});
  expect_array(a.poses[6].translation, {0.4f, 0.8f, 1.2f});
  expect_array(a.poses[30].rotation, {0, 0, 0.70710678f, 0.70710678f});
  expect_array(a.poses[10].rotation, {0, 0, 0, 1});
  EXPECT_EQ(a.poses[30].scale, (std::array<float, 3>{1, 1, 1}));
}

TEST(ModeDefScenePath, WriteKeptOrSampled) {
  Scene s = read_fixture("fly.path");
  Diagnostics d;
  std::vector<OutputFile> files = write_path(s, d);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(std::string(files[0].bytes.begin(), files[0].bytes.end()), print_path(s.modedef->paths[0].path));

  // Any other Scene: joint 0 of animation 0, a key per frame.
  s.modedef = ModeDefData{};
  files = write_path(s, d);
  ModeDefPath p = parse_path(std::string(files[0].bytes.begin(), files[0].bytes.end()), "p", d);
  ASSERT_EQ(p.translation.size(), 31u);
  ASSERT_EQ(p.rotation.size(), 31u);
  EXPECT_NEAR(p.translation[15].time, 0.5f, 1e-6f);
  expect_array(p.translation[15].value, {1, 2, 3});
  EXPECT_NEAR(p.rotation[30].time, 1.0f, 1e-6f);
  expect_array(p.rotation[30].value, {0, 0, float(std::numbers::pi / 2)});
  expect_array(p.rotation[0].value, {0, 0, 0});

  Scene empty;
  try {
    write_path(empty, d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ": error: ModeDef .path: the Scene has no animated joint to write (a .path is joint 0 of "
                           "animation 0)");
  }
}

TEST(ModeDefScenePath, EulerOrder) {
  const float h = float(std::numbers::pi / 2);
  expect_array(ops::quat_from_euler_zyx({0, 0, h}), {0, 0, 0.70710678f, 0.70710678f});
  expect_array(ops::quat_from_euler_zyx({h, 0, 0}), {0.70710678f, 0, 0, 0.70710678f});
  // X first, then Y (fixed axes): +Y turns to +Z about X, then to +X about Y.
  Quat q = ops::quat_from_euler_zyx({h, h, 0});
  expect_array(quat_rotate(q, {0, 1, 0}), {1, 0, 0});
  for (Vec3 e : {Vec3{0.1f, 0.2f, 0.3f}, Vec3{-2.0f, 1.0f, 3.0f}, Vec3{1.0f, -1.5f, -0.5f}})
    expect_array(ops::euler_zyx_from_quat(ops::quat_from_euler_zyx(e)), e, 1e-5f);
}

}  // namespace meshport_test_modedef_scene
