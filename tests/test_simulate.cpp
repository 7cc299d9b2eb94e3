// `meshport simulate` (issue 21): free fall against the discrete symplectic Euler value, an
// undamped mode's period and energy, a bar coming to rest on a plane, the friction stopping
// distance, birth and death, path-driven objects, joint constraints, the animation and trace the
// CLI writes, and bad input. Every scene is written to a temp dir by the builders below.
#include <meshport/meshport.h>
#include <meshport/simulate.h>

#include "core/math.h"
#include "ops/animation/euler_zyx.h"
#include "physics/simulate_world.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

namespace meshport_test_simulate {

using namespace meshport;
using testutil::TempDir;

namespace {

namespace fs = std::filesystem;
using V3 = std::array<double, 3>;

void spit(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string v3(const V3& v) { return fmt::format("{} {} {}", v[0], v[1], v[2]); }

// A box of the given size centred on the origin: its 8 corners are the nodes and the render
// vertices (no carton), with the given modes (24 values each: corner i's displacement at 3 i).
std::string box_model(const V3& size, const std::vector<double>& eigenvalues = {},
                      const std::vector<std::vector<double>>& modes = {}) {
  std::vector<V3> corners;
  for (int i = 0; i < 8; ++i)
    corners.push_back({((i & 1) ? 0.5 : -0.5) * size[0], ((i & 2) ? 0.5 : -0.5) * size[1],
                       ((i & 4) ? 0.5 : -0.5) * size[2]});
  std::string s = fmt::format("{} 24\n", eigenvalues.size());
  for (double e : eigenvalues) s += fmt::format("{}\n", e);
  for (const auto& m : modes) {
    for (double x : m) s += fmt::format("{} ", x);
    s += "\n";
  }
  for (const V3& c : corners) s += v3(c) + "\n";
  s += "8 0 0 12 0 0\n";
  for (const V3& c : corners) s += v3(c) + "\n";
  const int f[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : f) {
    s += fmt::format("{} 0 0 {} 0 0 {} 0 0\n", q[0], q[1], q[2]);
    s += fmt::format("{} 0 0 {} 0 0 {} 0 0\n", q[0], q[2], q[3]);
  }
  s += "0\n0\n";
  return s;
}

struct PropSpec {
  std::string model = "box.model";
  int rb = 1, deform = 1;
  double mass = 1;
  V3 size{1, 1, 1};  // for the box inertia
  double lame = 1, a1 = 0, a2 = 0, scale = 1, kp = 0, kv = 0, kb = 0;
};

std::string prop_text(const PropSpec& p) {
  const V3& d = p.size;
  const double m = p.mass / 12;
  return fmt::format("{}\n{} {}\n{}\n0 0 0\n{} 0 0  0 {} 0  0 0 {}\n0 {} {} {}\n{} 0\n{} {} {}\n", p.model, p.rb,
                     p.deform, p.mass, m * (d[1] * d[1] + d[2] * d[2]), m * (d[0] * d[0] + d[2] * d[2]),
                     m * (d[0] * d[0] + d[1] * d[1]), p.lame, p.a1, p.a2, p.scale, p.kp, p.kv, p.kb);
}

struct ObjectSpec {
  std::string prop = "box.prop";
  V3 pos{0, 0, 0};
  std::array<double, 4> rot{1, 0, 0, 0};  // w x y z
  V3 vel{0, 0, 0}, avel{0, 0, 0};
  double birth = -1, death = -1;
  std::string path;
};

struct StateSpec {
  int fps = 30, penalty = 1;
  V3 gravity{0, -9.8, 0};
  double kf = 0, maxpen = 0, clusfac = 1, clusrad = 0;
  std::vector<ObjectSpec> objects;
  std::vector<std::pair<V3, V3>> planes;  // normal, point
  struct Cons {
    int b1 = -1, b2 = 0;
    V3 p{0, 0, 0};
  };
  std::vector<Cons> constraints;
};

std::string state_text(const StateSpec& s) {
  std::string t = fmt::format("{}\n{}\n{}\n{}\n{} {} {}\n{}\n", s.fps, s.penalty, v3(s.gravity), s.kf, s.maxpen,
                              s.clusfac, s.clusrad, s.objects.size());
  for (const ObjectSpec& o : s.objects) {
    t += o.prop + (o.path.empty() ? "" : " a") + "\n";
    t += fmt::format("{}\n{} {} {} {}\n{}\n{}\n{} {}\n", v3(o.pos), o.rot[0], o.rot[1], o.rot[2], o.rot[3], v3(o.vel),
                     v3(o.avel), o.birth, o.death);
    if (!o.path.empty()) t += o.path + "\n";
  }
  t += fmt::format("{}\n", s.planes.size());
  for (const auto& [n, p] : s.planes) t += v3(n) + "  " + v3(p) + "\n";
  t += fmt::format("{}\n", s.constraints.size());
  for (const auto& c : s.constraints) t += fmt::format("{} {} {}\n", c.b1, c.b2, v3(c.p));
  return t;
}

// Writes box.model, box.prop and scene.state into dir and reads the scene.
Scene scene_of(const TempDir& dir, const StateSpec& st, const PropSpec& prop, const std::string& model) {
  spit(dir / "box.model", model);
  spit(dir / "box.prop", prop_text(prop));
  spit(dir / "scene.state", state_text(st));
  return read(dir / "scene.state");
}

double mode_energy_of(const SimulatedObject& o) { return o.modal; }

double norm_of(const V3& v) { return std::hypot(v[0], v[1], v[2]); }

}  // namespace

// Semi-implicit Euler from rest: v_n = -g n h, y_n = y_0 - g h^2 n (n + 1) / 2 = y_0 - g (t^2 + t h) / 2,
// which the simulator must give to rounding (the continuous g t^2 / 2 differs by g t h / 2).
TEST(Simulate, FreeFallIsTheDiscreteSymplecticEulerValue) {
  TempDir dir;
  StateSpec st;
  st.objects.push_back({});
  st.objects[0].pos = {1, 10, -2};
  PropSpec p;
  p.kp = 1000;
  const Scene s = scene_of(dir, st, p, box_model({1, 1, 1}));
  SimulateOptions o;
  o.seconds = 1;
  const SimulationResult r = simulate(s, o);
  ASSERT_EQ(r.frame_count, 31u);
  ASSERT_EQ(r.substeps_per_frame, 34u);  // ceil((1 / 30) / 1 ms): nothing stiffer than the 1 ms cap
  const double h = r.substep, g = double(9.8f);  // GRAV is read as a float
  for (size_t f = 0; f < r.frame_count; f += 5) {
    const double t = double(f) / 30, n = double(f) * r.substeps_per_frame;
    const SimulatedObject& x = r.at(f, 0);
    EXPECT_NEAR(x.position[1], 10 - g * h * h * n * (n + 1) / 2, 1e-9) << f;
    EXPECT_NEAR(x.velocity[1], -g * h * n, 1e-9) << f;
    EXPECT_NEAR(x.position[0], 1, 1e-12);
    EXPECT_NEAR(x.position[2], -2, 1e-12);
    // Within g t h / 2 of the exact parabola.
    EXPECT_NEAR(x.position[1], 10 - g * t * t / 2, g * t * h / 2 + 1e-9);
  }
  EXPECT_EQ(r.at(30, 0).rotation, (std::array<double, 4>{0, 0, 0, 1}));
}

// One mode of 10 Hz, undamped, started at amplitude 0.01: period 0.1 s from the zero crossings
// (sampled at 1000 fps, linearly interpolated) within 0.5 %, energy kept within 1 % for 100 periods.
TEST(Simulate, UndampedModeOscillatesAtItsFrequencyAndKeepsItsEnergy) {
  for (double lame : {1.0, 4.0}) {
    TempDir dir;
    StateSpec st;
    st.gravity = {0, 0, 0};
    st.objects.push_back({});
    PropSpec p;
    p.lame = lame;
    const double omega = 2 * std::numbers::pi * 10;
    std::vector<double> mode(24, 0.0);
    for (int i = 0; i < 8; ++i) mode[size_t(i) * 3 + 1] = (i & 1) ? 0.3 : -0.3;
    const Scene s = scene_of(dir, st, p, box_model({1, 1, 1}, {omega * omega}, {mode}));
    SimulateOptions o;
    o.seconds = 10;
    o.fps = 1000;
    o.initial_modes = {{0.01}};
    const SimulationResult r = simulate(s, o);
    ASSERT_EQ(r.frame_count, 10001u);
    std::vector<double> crossings;
    const double e0 = mode_energy_of(r.at(0, 0));
    EXPECT_NEAR(e0, 0.5 * omega * omega * lame * 1e-4, 1e-6 * e0);  // lambda is read as a float
    double worst = 0;
    for (size_t f = 1; f < r.frame_count; ++f) {
      const double a = r.at(f - 1, 0).modes[0], b = r.at(f, 0).modes[0];
      if ((a < 0) != (b < 0)) crossings.push_back((double(f - 1) + a / (a - b)) / 1000);
      worst = std::max(worst, std::abs(mode_energy_of(r.at(f, 0)) - e0) / e0);
    }
    ASSERT_GE(crossings.size(), 100u);
    const double period = 2 * (crossings.back() - crossings.front()) / double(crossings.size() - 1);
    const double expected = 0.1 / std::sqrt(lame);
    EXPECT_NEAR(period, expected, 0.005 * expected) << "LAME " << lame;
    EXPECT_LT(worst, 0.01);
    EXPECT_LT(worst, 1e-9);  // exact integration: rounding only
  }
}

// Rayleigh damping A1 + A2 LAME lambda: the amplitude decays as exp(-c t / 2).
TEST(Simulate, DampedModeDecaysAtTheRayleighRate) {
  TempDir dir;
  StateSpec st;
  st.gravity = {0, 0, 0};
  st.objects.push_back({});
  PropSpec p;
  p.a1 = 0.5;
  p.a2 = 0.001;
  const double lambda = std::pow(2 * std::numbers::pi * 5, 2);
  std::vector<double> mode(24, 0.0);
  for (int i = 0; i < 8; ++i) mode[size_t(i) * 3] = (i & 2) ? 0.2 : -0.2;
  const Scene s = scene_of(dir, st, p, box_model({1, 1, 1}, {lambda}, {mode}));
  SimulateOptions o;
  o.seconds = 2;
  o.initial_modes = {{0.02}};
  const SimulationResult r = simulate(s, o);
  const double c = 0.5 + 0.001 * lambda;
  // Energy of a lightly damped oscillator ~ exp(-c t) (averaged over a period: compare at whole periods).
  const double e0 = r.at(0, 0).modal;
  const double e2 = r.at(60, 0).modal;  // t = 2 s = 10 periods
  EXPECT_NEAR(std::log(e2 / e0), -c * 2, 0.02 * c * 2);
}

// A 1 x 0.1 x 0.1 bar dropped 5 cm, slightly tilted, onto y = 0 settles: penetration under MAXPEN,
// velocities near zero, and its stretch mode (top corners up, bottom corners down) squashed by its
// weight to the static q = Q / lambda, Q = -0.5 m g (the bottom corners carry m g, displacement -0.5).
TEST(Simulate, DroppedBarComesToRest) {
  TempDir dir;
  StateSpec st;
  st.maxpen = 1e-3;
  st.kf = 0.5;
  ObjectSpec ob;
  ob.pos = {0, 0.1, 0};
  ob.rot = {std::cos(0.05), 0, 0, std::sin(0.05)};
  st.objects.push_back(ob);
  st.planes.push_back({{0, 1, 0}, {0, 0, 0}});
  PropSpec p;
  p.size = {1, 0.1, 0.1};
  p.kp = 1e4;
  p.kv = p.kb = 20;
  p.a1 = 10;
  std::vector<double> mode(24, 0.0);
  for (int i = 0; i < 8; ++i) mode[size_t(i) * 3 + 1] = (i & 2) ? 0.5 : -0.5;
  const Scene s = scene_of(dir, st, p, box_model({1, 0.1, 0.1}, {400}, {mode}));
  SimulateOptions o;
  o.seconds = 3;
  const SimulationResult r = simulate(s, o);
  const double g = double(9.8f);
  const SimulatedObject& end = r.at(r.frame_count - 1, 0);
  EXPECT_EQ(end.contacts, 4u);
  EXPECT_LT(end.max_penetration, 1e-3);
  EXPECT_NEAR(end.max_penetration, g / (4 * 1e4), 1e-6);  // m g / (4 KP)
  EXPECT_LT(norm_of(end.velocity), 1e-4);
  EXPECT_LT(norm_of(end.angular_velocity), 1e-3);
  const double q = -0.5 * g / 400;
  EXPECT_NEAR(end.modes[0], q, 0.01 * std::abs(q));
  // The bottom corners (body y = -0.05 - 0.5 q) sit at the resting depth.
  EXPECT_NEAR(end.center_of_mass[1], 0.05 + 0.5 * q - g / (4 * 1e4), 1e-5);
  EXPECT_GT(r.rollbacks, 0u);  // the impact went past MAXPEN: substeps were redone in halves
}

// CLUSRAD / CLUSFAC: the 4 resting corners of a box, one cluster, push like 4^CLUSFAC points, so
// with CLUSFAC 0 the box sinks m g / KP instead of m g / (4 KP). USEPENALTY 0 is a warning.
TEST(Simulate, ClustersScaleTheContactForce) {
  TempDir dir;
  for (double clusfac : {1.0, 0.0, 0.5}) {
    StateSpec st;
    st.penalty = 0;
    st.clusrad = 2;
    st.clusfac = clusfac;
    st.kf = 0.5;
    ObjectSpec ob;
    ob.pos = {0, 0.1, 0};
    st.objects.push_back(ob);
    st.planes.push_back({{0, 1, 0}, {0, 0, 0}});
    PropSpec p;
    p.size = {0.2, 0.2, 0.2};
    p.kp = 1e4;
    p.kv = p.kb = 20;
    p.deform = 0;
    const Scene s = scene_of(dir, st, p, box_model({0.2, 0.2, 0.2}));
    SimulateOptions o;
    o.seconds = 3;
    Diagnostics d;
    const SimulationResult r = simulate(s, o, &d);
    const double g = double(9.8f);
    const SimulatedObject& end = r.at(r.frame_count - 1, 0);
    EXPECT_EQ(end.contacts, 4u);
    EXPECT_NEAR(end.max_penetration, g / (std::pow(4.0, clusfac) * 1e4), 1e-6) << clusfac;
    ASSERT_EQ(d.items.size(), 1u);
    EXPECT_NE(d.items[0].message.find("USEPENALTY is 0"), std::string::npos) << d.items[0].message;
  }
}

// A box sliding at v on a plane with friction KF stops after v^2 / (2 KF g) (within 5 %).
TEST(Simulate, FrictionStopsASlidingBoxAtTheCoulombDistance) {
  for (double kf : {0.3, 0.6}) {
    TempDir dir;
    StateSpec st;
    st.kf = kf;
    ObjectSpec ob;
    const double m = 2, kp = 1e5, v = 2, g = 9.8;
    ob.pos = {0, 0.1 - m * g / (4 * kp), 0};  // resting on y = 0
    ob.vel = {v, 0, 0};
    st.objects.push_back(ob);
    st.planes.push_back({{0, 1, 0}, {0, 0, 0}});
    PropSpec p;
    p.mass = m;
    p.size = {0.2, 0.2, 0.2};
    p.kp = kp;
    p.kv = p.kb = 200;
    p.deform = 0;
    const Scene s = scene_of(dir, st, p, box_model({0.2, 0.2, 0.2}));
    SimulateOptions o;
    o.seconds = 1.5;
    const SimulationResult r = simulate(s, o);
    const SimulatedObject& end = r.at(r.frame_count - 1, 0);
    const double expected = v * v / (2 * kf * g);
    EXPECT_NEAR(end.position[0], expected, 0.05 * expected) << "KF " << kf;
    EXPECT_LT(std::abs(end.velocity[0]), 1e-4);
    // Still: the last half second does not move it.
    EXPECT_NEAR(r.at(r.frame_count - 16, 0).position[0], end.position[0], 1e-5);
  }
}

// Birth and death: before TBIRTH the object waits at its initial state, after TDEATH it stops; the
// animation hides it (scale 0) outside.
TEST(Simulate, BirthAndDeath) {
  TempDir dir;
  StateSpec st;
  ObjectSpec a;
  a.pos = {0, 5, 0};
  a.birth = 0.5;
  a.death = 1.5;
  ObjectSpec b;
  b.pos = {3, 5, 0};
  st.objects = {a, b};
  PropSpec p;
  p.scale = 2;
  Scene s = scene_of(dir, st, p, box_model({1, 1, 1}));
  const SimulationResult r = simulate(s);
  EXPECT_DOUBLE_EQ(r.seconds, 1.5);  // the latest birth or death time
  ASSERT_EQ(r.frame_count, 46u);
  for (size_t f = 0; f < 15; ++f) {
    EXPECT_FALSE(r.at(f, 0).alive) << f;
    EXPECT_EQ(r.at(f, 0).position[1], 5) << f;
  }
  EXPECT_TRUE(r.at(15, 0).alive);
  EXPECT_TRUE(r.at(45, 0).alive);
  // Alive for 1 s: fell as object b did in its first second.
  EXPECT_NEAR(r.at(45, 0).position[1], r.at(30, 1).position[1], 1e-9);
  EXPECT_NEAR(r.at(45, 1).velocity[1], -double(9.8f) * 1.5, 1e-9);

  apply_simulation(s, r, "scene");
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& anim = s.animations[0];
  EXPECT_EQ(anim.name, "scene");
  EXPECT_EQ(anim.frame_count(), 46u);
  EXPECT_EQ(anim.poses[10 * 2 + 0].scale, (std::array<float, 3>{0, 0, 0}));
  EXPECT_EQ(anim.poses[20 * 2 + 0].scale, (std::array<float, 3>{2, 2, 2}));
  EXPECT_EQ(anim.poses[10 * 2 + 1].scale, (std::array<float, 3>{2, 2, 2}));
  EXPECT_FLOAT_EQ(anim.poses[45 * 2 + 1].translation[1], float(r.at(45, 1).position[1]));

  // Past death: frozen and hidden.
  st.objects[0].death = 0.8;
  const Scene s2 = scene_of(dir, st, p, box_model({1, 1, 1}));
  SimulateOptions o;
  o.seconds = 1.5;
  const SimulationResult r2 = simulate(s2, o);
  EXPECT_FALSE(r2.at(30, 0).alive);
  EXPECT_EQ(r2.at(30, 0).position, r2.at(45, 0).position);
  EXPECT_TRUE(r2.at(24, 0).alive);
}

// A path-driven object shows exactly the pose the .state's own animation gives it.
TEST(Simulate, PathDrivenObjectFollowsItsPath) {
  TempDir dir;
  spit(dir / "fly.path", "3 2\n0 0 1 0\n1 2 1 0\n2 2 3 -1\n0 0 0 0\n2 0.5 1 1.5\n");
  StateSpec st;
  ObjectSpec a;
  a.path = "fly.path";
  a.pos = {9, 9, 9};
  st.objects.push_back(a);
  st.planes.push_back({{0, 1, 0}, {0, -10, 0}});
  PropSpec p;
  p.kp = 100;
  Scene s = scene_of(dir, st, p, box_model({1, 1, 1}));
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation read_anim = s.animations[0];
  const SimulationResult r = simulate(s);
  EXPECT_DOUBLE_EQ(r.seconds, 2);
  ASSERT_EQ(r.frame_count, read_anim.frame_count());
  for (size_t f = 0; f < r.frame_count; ++f) {
    const Transform& want = read_anim.poses[f];
    for (size_t c = 0; c < 3; ++c) EXPECT_NEAR(r.at(f, 0).position[c], want.translation[c], 1e-6) << f;
    for (size_t c = 0; c < 4; ++c) EXPECT_NEAR(r.at(f, 0).rotation[c], want.rotation[c], 1e-6) << f;
  }
  // Frame 15 (t = 0.5): halfway along the first translation segment.
  EXPECT_NEAR(r.at(15, 0).position[0], 1, 1e-6);
  const Quat q = ops::quat_from_euler_zyx({0.125f, 0.25f, 0.375f});  // t = 0.5 of 2 s
  EXPECT_NEAR(r.at(15, 0).rotation[2], q[2], 1e-6);
  // Its velocity is the path's: 2 units/s along x during the first second (the float key values
  // sampled over one substep: to 1e-4).
  EXPECT_NEAR(r.at(15, 0).velocity[0], 2, 1e-4);
}

// A box hanging from a static joint at one corner swings, the corner staying at the joint; two
// boxes joined by a joint tumble together.
TEST(Simulate, ConstraintsKeepTheirPointsTogether) {
  TempDir dir;
  StateSpec st;
  ObjectSpec a;
  a.pos = {0, 0, 0};
  a.avel = {0, 0, 2};
  ObjectSpec b;
  b.pos = {1, 0, 0};
  b.avel = {1, 0, 0};
  ObjectSpec c;
  c.pos = {5, 0, 0};
  st.objects = {a, b, c};
  st.constraints.push_back({-1, 0, {0.5, 0.5, 0.5}});  // a's corner to the world
  st.constraints.push_back({0, 1, {0.5, 0, 0}});       // a's face centre to b's
  st.constraints.push_back({-1, 2, {5, 0, 0}});        // c hangs by its centre: it does not fall
  PropSpec p;
  const Scene s = scene_of(dir, st, p, box_model({1, 1, 1}));
  SimulateOptions o;
  o.seconds = 2;
  const SimulationResult r = simulate(s, o);
  auto world = [&](size_t f, size_t i, const V3& local) {
    const SimulatedObject& x = r.at(f, i);
    Quat q{float(x.rotation[0]), float(x.rotation[1]), float(x.rotation[2]), float(x.rotation[3])};
    const auto d = quat_rotate(q, {float(local[0]), float(local[1]), float(local[2])});
    return V3{x.position[0] + d[0], x.position[1] + d[1], x.position[2] + d[2]};
  };
  auto dist = [](const V3& u, const V3& v) { return std::hypot(u[0] - v[0], u[1] - v[1], u[2] - v[2]); };
  double worst0 = 0, worst1 = 0;
  for (size_t f = 0; f < r.frame_count; ++f) {
    worst0 = std::max(worst0, dist(world(f, 0, {0.5, 0.5, 0.5}), {0.5, 0.5, 0.5}));
    worst1 = std::max(worst1, dist(world(f, 0, {0.5, 0, 0}), world(f, 1, {-0.5, 0, 0})));
  }
  EXPECT_LT(worst0, 5e-3);
  EXPECT_LT(worst1, 5e-3);
  EXPECT_GT(dist(r.at(r.frame_count - 1, 0).center_of_mass, {0, 0, 0}), 0.1);  // it swung
  EXPECT_NEAR(r.at(r.frame_count - 1, 2).center_of_mass[1], 0, 1e-3);
}

TEST(Simulate, MorphWeightsAreTheModeAmplitudes) {
  TempDir dir;
  StateSpec st;
  st.gravity = {0, 0, 0};
  st.objects.push_back({});
  PropSpec p;
  std::vector<double> m0(24, 0.0), m1(24, 0.0);
  for (int i = 0; i < 8; ++i) m0[size_t(i) * 3] = (i & 1) ? 0.1 : -0.1, m1[size_t(i) * 3 + 2] = (i & 4) ? 0.1 : -0.1;
  Scene s = scene_of(dir, st, p, box_model({1, 1, 1}, {100, 900}, {m0, m1}));
  SimulateOptions o;
  o.seconds = 1;
  o.initial_modes = {{0.5, -0.25}};
  const SimulationResult r = simulate(s, o);
  apply_simulation(s, r);
  const Animation& a = s.animations[0];
  ASSERT_EQ(a.morph_weights.size(), 1u);
  const MorphWeightTrack& t = a.morph_weights[0];
  ASSERT_EQ(s.meshes[size_t(t.mesh)].morph_targets.size(), 2u);
  ASSERT_EQ(t.times.size(), r.frame_count);
  EXPECT_FLOAT_EQ(t.weights[0], 0.5f);
  EXPECT_FLOAT_EQ(t.weights[1], -0.25f);
  for (size_t f = 0; f < r.frame_count; ++f) {
    EXPECT_FLOAT_EQ(t.weights[f * 2], float(r.at(f, 0).modes[0]));
    EXPECT_FLOAT_EQ(t.weights[f * 2 + 1], float(r.at(f, 0).modes[1]));
    // q0 = 0.5 cos(10 t)
    EXPECT_NEAR(r.at(f, 0).modes[0], 0.5 * std::cos(10.0 * double(f) / 30), 1e-9);
  }
  // Morph target 0 is mode 0's displacement for unit amplitude (corner 1 moves +0.1 in x).
  EXPECT_NEAR(s.meshes[size_t(t.mesh)].morph_targets[0].positions[0], -0.1f, 1e-6);
}

TEST(Simulate, ErrorsOnBadInput) {
  TempDir dir;
  StateSpec st;
  PropSpec p;
  Scene empty = scene_of(dir, st, p, box_model({1, 1, 1}));
  EXPECT_THROW(simulate(empty), Error);
  st.objects.push_back({});
  const Scene s = scene_of(dir, st, p, box_model({1, 1, 1}));
  SimulateOptions o;
  o.seconds = -1;
  EXPECT_THROW(simulate(s, o), Error);
  o.seconds = 1e7;
  try {
    simulate(s, o);
    ADD_FAILURE() << "no error past the pose limit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("poses, more than"), std::string::npos) << e.what();
  }
  o.seconds = 1;
  o.initial_modes = {{1}};  // the model has no modes
  EXPECT_THROW(simulate(s, o), Error);
  Scene not_state;
  EXPECT_THROW(simulate(not_state), Error);
  // A moving object with zero mass.
  p.mass = 0;
  const Scene massless = scene_of(dir, st, p, box_model({1, 1, 1}));
  try {
    simulate(massless);
    ADD_FAILURE() << "no error for MASS 0";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MASS"), std::string::npos) << e.what();
  }
}

TEST(SimulateCli, WritesAValidGlbAndATrace) {
  TempDir dir;
  StateSpec st;
  st.kf = 0.4;
  st.maxpen = 0.01;
  ObjectSpec a;
  a.pos = {0, 0.6, 0};
  a.avel = {1, 0, 0.5};
  ObjectSpec b;
  b.pos = {2, 0.6, 0};
  b.birth = 0.2;
  st.objects = {a, b};
  st.planes.push_back({{0, 1, 0}, {0, 0, 0}});
  PropSpec p;
  p.kp = 2000;
  p.kv = p.kb = 10;
  p.a1 = 1;
  std::vector<double> mode(24, 0.0);
  for (int i = 0; i < 8; ++i) mode[size_t(i) * 3 + 1] = (i & 1) ? 0.3 : -0.3;
  scene_of(dir, st, p, box_model({1, 1, 1}, {2000}, {mode}));
  const std::string out = dir / "out.glb", trace = dir / "trace.json";
  const auto run = testutil::run_cli(fmt::format("simulate '{}' --seconds 1 -o '{}' --trace '{}'",
                                                 dir / "scene.state", out, trace));
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("31 frames at 30 fps"), std::string::npos) << run.out;
  std::string vout;
  EXPECT_TRUE(testutil::validate_gltf({out}, vout)) << vout;
  const Scene back = read(out);
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].name, "scene");
  EXPECT_EQ(back.animations[0].frame_count(), 31u);
  EXPECT_EQ(back.animations[0].morph_weights.size(), 2u);
  // The box model has no normals: as convert does for another format, the glTF gets them
  // (Blender would shade it flat); the ModeDef output stays as the .state's files are.
  for (const Mesh& m : back.meshes) EXPECT_NE(m.find(Attribute::Normal), nullptr) << m.name;
  fs::create_directories(dir / "kept");
  const auto kept = testutil::run_cli(fmt::format("simulate '{}' --seconds 1 -o '{}'", dir / "scene.state",
                                                  dir / "kept/scene.state"));
  ASSERT_EQ(kept.status, 0) << kept.out;
  EXPECT_TRUE(read(dir / "kept/box.model").modedef->models[0].model.normals.empty());
  const auto j = nlohmann::json::parse(testutil::slurp(trace));
  ASSERT_EQ(j["frames"].size(), 31u);
  const auto& o = j["frames"][30]["objects"][0];
  for (const char* key : {"position", "rotation", "velocity", "angular_velocity", "modes", "contacts", "max_penetration"})
    EXPECT_TRUE(o.contains(key)) << key;
  EXPECT_TRUE(o["energy"].contains("kinetic"));
  EXPECT_TRUE(o["energy"].contains("modal"));
  EXPECT_GT(o["contacts"].get<int>(), 0);
  EXPECT_EQ(j["objects"][1], "box.1");
  EXPECT_FALSE(j["frames"][3]["objects"][1]["alive"].get<bool>());
}

TEST(SimulateCli, BadInputGivesAnErrorAndNoOutput) {
  TempDir dir;
  StateSpec st;
  PropSpec p;
  scene_of(dir, st, p, box_model({1, 1, 1}));  // no objects
  const std::string out = dir / "out.glb";
  auto r = testutil::run_cli(fmt::format("simulate '{}' -o '{}'", dir / "scene.state", out));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("scene.state: error: simulate: the .state has no objects"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  r = testutil::run_cli(fmt::format("simulate '{}' -o '{}'", dir / "missing.state", out));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("missing.state"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  st.objects.push_back({});
  scene_of(dir, st, p, box_model({1, 1, 1}));
  r = testutil::run_cli(fmt::format("simulate '{}' --seconds -2 -o '{}'", dir / "scene.state", out));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("0 or more seconds"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  r = testutil::run_cli(fmt::format("simulate '{}' --seconds 1e6 --fps 100 -o '{}' --trace '{}'", dir / "scene.state",
                                    out, dir / "t.json"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("more than 2097152"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir / "t.json"));
  // A model that cannot be written leaves no trace either (the output's folder is missing).
  r = testutil::run_cli(fmt::format("simulate '{}' --seconds 0.1 -o '{}' --trace '{}'", dir / "scene.state",
                                    dir / "missing/out.glb", dir / "t.json"));
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(fs::exists(dir / "t.json"));
  EXPECT_FALSE(fs::exists(dir / "t.json.simulate-tmp"));
  // A trace that cannot be written: an error naming it, and no model.
  r = testutil::run_cli(fmt::format("simulate '{}' --seconds 0.1 -o '{}' --trace '{}'", dir / "scene.state", out,
                                    dir / "missing/t.json"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("missing/t.json"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
}

// A strongly overdamped mode (a h = 1000: cosh(s h) alone overflows and exp(-a h) underflows)
// follows the closed form q(h) = (r1 e^(r2 h) - r2 e^(r1 h)) / (r1 - r2), r = -a +- s, from q = 1 at rest.
TEST(Simulate, StronglyOverdampedModeStaysFinite) {
  const double omega2 = 1e7, c = 2e6, h = 1e-3;
  const sim::ModeStep step = sim::mode_step(omega2, c, h);
  double q = 1, qd = 0;
  sim::propagate_mode(q, qd, step, 0);
  const double a = c / 2, s = std::sqrt(a * a - omega2), r1 = -a + s, r2 = -a - s;
  const double expect = (r1 * std::exp(r2 * h) - r2 * std::exp(r1 * h)) / (r1 - r2);
  const double expect_v = r1 * r2 * (std::exp(r2 * h) - std::exp(r1 * h)) / (r1 - r2);
  ASSERT_TRUE(std::isfinite(q));
  ASSERT_TRUE(std::isfinite(qd));
  EXPECT_NEAR(q, expect, 1e-9);
  EXPECT_NEAR(qd, expect_v, 1e-6 * std::abs(expect_v));
  EXPECT_GT(q, 0.99);  // the slow root: e^(-5 h)
  // Moderately overdamped, where cosh and exp are both finite: the same as before the rewrite.
  const sim::ModeStep mid = sim::mode_step(100, 40, 0.01);
  double q2 = 1, qd2 = 0;
  sim::propagate_mode(q2, qd2, mid, 0);
  const double a2 = 20, s2 = std::sqrt(300.0), p1 = -a2 + s2, p2 = -a2 - s2;
  EXPECT_NEAR(q2, (p1 * std::exp(p2 * 0.01) - p2 * std::exp(p1 * 0.01)) / (p1 - p2), 1e-12);
}

// A small file cannot ask for hours of work: a very stiff contact spring over a long time is an
// error before anything runs (the substep count times the frames times the points and modes).
TEST(Simulate, HugeWorkIsRefusedBeforeItStarts) {
  TempDir dir;
  StateSpec st;
  ObjectSpec o;
  o.pos = {0, 0.5, 0};
  o.death = 69000;  // 2.07 M frames by default
  st.objects = {o};
  st.planes.push_back({{0, 1, 0}, {0, 0, 0}});
  PropSpec p;
  p.kp = 1e10;  // omega = sqrt(KP / m): some 20,000 substeps per frame
  const Scene s = scene_of(dir, st, p, box_model({1, 1, 1}));
  try {
    simulate(s);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 3.44e+10"), std::string::npos) << e.what();
  }
  // The same scene for a second runs.
  SimulateOptions one;
  one.seconds = 0.01;
  EXPECT_NO_THROW(simulate(s, one));
}

}  // namespace meshport_test_simulate
