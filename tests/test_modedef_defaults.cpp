// ModeDef defaults that give physical results (issue 32): `meshport modes` with its defaults on a
// free-free bar against beam theory (quadratic elements), linear elements kept as an option, the
// quadratic carton, the .prop's contact constants from the mass and size, a dropped body resting
// on the floor, `simulate`'s warning for a body without contact stiffness, and the modes
// animation's frame count in `anims` / `info`.
#include <meshport/clips.h>
#include <meshport/meshport.h>
#include <meshport/modal.h>
#include <meshport/modes.h>
#include <meshport/simulate.h>
#include <meshport/summary.h>

#include "physics/carton.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>

namespace meshport_test_modedef_defaults {

using namespace meshport;
using testutil::TempDir;

namespace {

using V3 = std::array<float, 3>;
using Tri = std::array<int32_t, 3>;

// A closed box [o, o + size] with outward counter-clockwise triangles.
void box(const V3& o, const V3& size, std::vector<V3>& v, std::vector<Tri>& t) {
  v.clear();
  t.clear();
  for (int i = 0; i < 8; ++i)
    v.push_back({o[0] + ((i & 1) ? size[0] : 0), o[1] + ((i & 2) ? size[1] : 0), o[2] + ((i & 4) ? size[2] : 0)});
  const int f[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : f) {
    t.push_back({q[0], q[1], q[2]});
    t.push_back({q[0], q[2], q[3]});
  }
}

Scene box_scene(const V3& o, const V3& size) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box(o, size, v, t);
  Mesh m;
  m.name = "box";
  std::vector<float> p;
  for (const V3& x : v) p.insert(p.end(), x.begin(), x.end());
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, p));
  for (const Tri& x : t) m.triangles.insert(m.triangles.end(), {uint32_t(x[0]), uint32_t(x[1]), uint32_t(x[2])});
  Scene s;
  s.meshes.push_back(std::move(m));
  return s;
}

// The bending frequencies of a bar along x (ascending): modes whose displacement is mostly
// transverse (y, z) and, in each cross-section (nodes of one x), mostly the section's mean
// transverse displacement (torsion turns the section about its axis: its mean is 0).
std::vector<double> bending_frequencies(const ModeDefModel& m) {
  const size_t n = m.rest.size() / 3;
  std::map<float, std::vector<size_t>> slices;
  for (size_t i = 0; i < n; ++i) slices[m.rest[3 * i]].push_back(i);
  std::vector<double> out;
  for (size_t k = 0; k < m.mode_count(); ++k) {
    const float* u = &m.eigenvectors[k * m.rest.size()];
    double ex = 0, et = 0, mean = 0;
    for (size_t i = 0; i < n; ++i) {
      ex += double(u[3 * i]) * u[3 * i];
      et += double(u[3 * i + 1]) * u[3 * i + 1] + double(u[3 * i + 2]) * u[3 * i + 2];
    }
    for (const auto& [x, ids] : slices) {
      double y = 0, z = 0;
      for (size_t i : ids) y += u[3 * i + 1], z += u[3 * i + 2];
      y /= double(ids.size());
      z /= double(ids.size());
      mean += (y * y + z * z) * double(ids.size());
    }
    if (et > ex && mean > 0.5 * et) out.push_back(double(mode_frequency(m.eigenvalues[k])));
  }
  return out;
}

// Free-free Euler-Bernoulli bending frequency n (1-based) of a square bar of side h, length l.
double euler_bernoulli(int n, double e, double rho, double l, double h) {
  const double beta_l[4] = {4.7300407, 7.8532046, 10.9956078, 14.1371655};
  const double b = beta_l[n - 1];
  return b * b / (2 * std::numbers::pi * l * l) * std::sqrt(e * h * h / 12 / rho);
}

// Timoshenko beam theory (shear and rotary inertia, which Euler-Bernoulli leaves out; they lower a
// 10:1 bar's bending frequencies by 3 to 22 %): the free-free frequency equation of a square bar
// of side h, length l, Cowper's shear coefficient k = 10 (1 + nu) / (12 + 11 nu). With
// w = W e^(s x), psi = r(s) W e^(s x), s^2 solves E I kGA s^4 + w^2 (E I rho A + rho I kGA) s^2 -
// rho A w^2 (kGA - rho I w^2) = 0 (roots a^2 > 0 > -b^2); the bending moment psi' and the shear
// w' - psi vanish at both ends: det = 0. Returns the first `count` roots in Hz (scan + bisection).
std::vector<double> timoshenko(int count, double e, double nu, double rho, double l, double h) {
  const double area = h * h, inertia = h * h * h * h / 12, kga = 10 * (1 + nu) / (12 + 11 * nu) * e / (2 * (1 + nu)) * area;
  auto det = [&](double f) {
    const double w2 = std::pow(2 * std::numbers::pi * f, 2);
    const double c2 = e * inertia * kga, c1 = w2 * (e * inertia * rho * area + rho * inertia * kga),
                 c0 = -rho * area * w2 * (kga - rho * inertia * w2);
    const double disc = std::sqrt(c1 * c1 - 4 * c2 * c0);
    const double a = std::sqrt((-c1 + disc) / (2 * c2)), b = std::sqrt((c1 + disc) / (2 * c2));
    const double r = (kga * a * a + rho * area * w2) / (kga * a), q = (kga * b * b - rho * area * w2) / (kga * b);
    // Basis w = cosh(a x), sinh(a x), cos(b x), sin(b x); psi = r sinh, r cosh, -q sin, q cos.
    double m[4][4];
    for (int end = 0; end < 2; ++end) {
      const double x = end * l, ch = std::cosh(a * x), sh = std::sinh(a * x), cb = std::cos(b * x), sb = std::sin(b * x);
      const double dpsi[4] = {r * a * ch, r * a * sh, -q * b * cb, -q * b * sb};
      const double shear[4] = {a * sh - r * sh, a * ch - r * ch, -b * sb + q * sb, b * cb - q * cb};
      for (int c = 0; c < 4; ++c) {
        m[2 * end][c] = dpsi[c];
        m[2 * end + 1][c] = shear[c];
      }
    }
    double d = 1;  // Gaussian elimination with partial pivoting
    for (int c = 0; c < 4; ++c) {
      int p = c;
      for (int i = c + 1; i < 4; ++i)
        if (std::fabs(m[i][c]) > std::fabs(m[p][c])) p = i;
      if (p != c) {
        std::swap(m[p], m[c]);
        d = -d;
      }
      d *= m[c][c];
      if (m[c][c] == 0) return 0.0;
      for (int i = c + 1; i < 4; ++i)
        for (int j = 4 - 1; j >= c; --j) m[i][j] -= m[i][c] / m[c][c] * m[c][j];
    }
    return d;
  };
  std::vector<double> roots;
  const double step = 0.002 * euler_bernoulli(1, e, rho, l, h);
  double f = step, prev = det(f);
  while (int(roots.size()) < count && f < 100 * euler_bernoulli(4, e, rho, l, h)) {
    const double g = f + step, v = det(g);
    if ((v > 0) != (prev > 0)) {
      double lo = f, hi = g;
      for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        ((det(mid) > 0) == (det(lo) > 0) ? lo : hi) = mid;
      }
      roots.push_back(0.5 * (lo + hi));
    }
    prev = v;
    f = g;
  }
  return roots;
}

void spit(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// A .state with one object (box.prop) at (0, y, 0) above the plane y = 0, gravity -9.8.
std::string drop_state(double y) {
  return fmt::format("30\n1\n0 -9.8 0\n0\n0 1 0\n1\nbox.prop\n0 {} 0\n1 0 0 0\n0 0 0\n0 0 0\n-1 -1\n1\n0 1 0  0 0 0\n0\n",
                     y);
}

}  // namespace

// The reference: Timoshenko's frequencies tend to Euler-Bernoulli's for a slender bar (1 x 0.01:
// within 0.05 to 0.35 %); for the 1 x 0.1 x 0.1 bar they are 3.4, 8.8, 15.1 and 21.5 % below them.
TEST(ModeDefDefaults, TimoshenkoReferenceMatchesEulerBernoulliWhenSlender) {
  const std::vector<double> slender = timoshenko(4, 1e6, 0.3, 1000, 1, 0.01);
  ASSERT_EQ(slender.size(), 4u);
  for (int n = 1; n <= 4; ++n)
    EXPECT_NEAR(slender[size_t(n - 1)] / euler_bernoulli(n, 1e6, 1000, 1, 0.01), 1.0, 0.004) << n;
  const std::vector<double> bar = timoshenko(4, 1e6, 0.3, 1000, 1, 0.1);
  ASSERT_EQ(bar.size(), 4u);
  const double below[4] = {0.034, 0.088, 0.151, 0.215};
  for (int n = 1; n <= 4; ++n)
    EXPECT_NEAR(1 - bar[size_t(n - 1)] / euler_bernoulli(n, 1e6, 1000, 1, 0.1), below[n - 1], 0.001) << n;
}

// The bar, 1 x 0.1 x 0.1, with every default (E 1e6, nu 0.3, rho 1000, resolution 20, 20
// modes): its first four bending frequencies, each a pair of the two directions, within 1.5 % of
// Timoshenko beam theory, and each pair within 1 %. (Linear elements at resolution 20: +29 % and
// +53 % on the first pair.)
TEST(ModeDefDefaults, BarBendingModesMatchBeamTheoryAtDefaults) {
  ModesReport r;
  const Scene s = compute_modes(box_scene({0, 0, 0}, {1, 0.1f, 0.1f}), ModesOptions{}, nullptr, &r);
  EXPECT_EQ(r.rigid_modes, 6u);
  const ModeDefModel& m = s.modedef->models[0].model;
  const std::vector<double> f = bending_frequencies(m);
  const std::vector<double> theory = timoshenko(4, 1e6, 0.3, 1000, 1, 0.1);
  ASSERT_GE(f.size(), 8u);
  ASSERT_EQ(theory.size(), 4u);
  for (int n = 1; n <= 4; ++n) {
    const double want = theory[size_t(n - 1)];
    const double a = f[size_t(2 * n - 2)], b = f[size_t(2 * n - 1)];
    EXPECT_LT(std::fabs(a - want) / want, 0.015) << "mode " << n << ": " << a << " Hz, theory " << want;
    EXPECT_LT(std::fabs(b - want) / want, 0.015) << "mode " << n << ": " << b << " Hz, theory " << want;
    EXPECT_LT((b - a) / a, 0.01) << "mode " << n << ": " << a << " and " << b << " Hz";
  }
}

// --elements linear keeps the 4-node elements: the carton's corners only, and the old stiff values.
TEST(ModeDefDefaults, LinearElementsStayAnOption) {
  ModesOptions o;
  o.elements = ModeElements::Linear;
  o.count = 2;
  ModesReport r;
  const Scene s = compute_modes(box_scene({0, 0, 0}, {1, 0.1f, 0.1f}), o, nullptr, &r);
  EXPECT_EQ(r.nodes, size_t(21 * 3 * 3));
  EXPECT_EQ(r.tets, size_t(20 * 2 * 2 * 6));
  const ModeDefModel& m = s.modedef->models[0].model;
  ASSERT_EQ(m.mode_count(), 2u);
  EXPECT_NEAR(mode_frequency(m.eigenvalues[0]), 4.058, 0.001);
  EXPECT_NEAR(mode_frequency(m.eigenvalues[1]), 4.806, 0.001);
}

// A quadratic carton: the nodes and 4-node tetrahedra of the half cells (which the .model stores),
// 6 ten-node tetrahedra per cell whose edge nodes are their corners' midpoints, and every 4-node
// tetrahedron inside one ten-node one; the render vertices embedded exactly.
TEST(ModeDefDefaults, QuadraticCartonRefinesTheCells) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({0, 0, 0}, {2, 1, 0.5f}, v, t);
  const Carton c = build_carton(v, t, 4, true);
  EXPECT_EQ(c.cells, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(c.kept_cells, 8u);
  EXPECT_EQ(c.mesh.nodes.size(), size_t(9 * 5 * 3));
  EXPECT_EQ(c.mesh.tets.size(), size_t(8 * 8 * 6));
  ASSERT_EQ(c.mesh.quadratic.size(), size_t(8 * 6));
  const int edges[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
  double volume = 0;
  for (const auto& q : c.mesh.quadratic) {
    for (int e = 0; e < 6; ++e)
      for (int a = 0; a < 3; ++a)
        EXPECT_DOUBLE_EQ(c.mesh.nodes[size_t(q[size_t(4 + e)])][size_t(a)],
                         0.5 * (c.mesh.nodes[size_t(q[size_t(edges[e][0])])][size_t(a)] +
                                c.mesh.nodes[size_t(q[size_t(edges[e][1])])][size_t(a)]));
    fem::TetMesh one;
    one.nodes = c.mesh.nodes;
    one.tets = {{q[0], q[1], q[2], q[3]}};
    volume += fem::mass_properties(one, 1).volume;
  }
  EXPECT_NEAR(volume, 1.0, 1e-12);
  EXPECT_NEAR(fem::mass_properties(c.mesh, 1).volume, 1.0, 1e-12);
  ASSERT_EQ(c.embedding.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& e = c.embedding[i];
    for (int a = 0; a < 3; ++a) {
      double p = 0;
      for (int k = 0; k < 4; ++k)
        p += e.bary[size_t(k)] * c.mesh.nodes[size_t(c.mesh.tets[size_t(e.tet)][size_t(k)])][size_t(a)];
      EXPECT_NEAR(p, v[i][size_t(a)], 1e-6);
    }
  }
}

// Without a --prop, the .prop's contact constants come from the mass and the size:
// KP = m g / (4 l / 5000) (4 contact points sink l / 5000), KV = KB = sqrt(KP m).
TEST(ModeDefDefaults, PropHasContactConstantsFromMassAndSize) {
  ModesOptions o;
  o.count = 2;
  o.resolution = 4;
  const Scene s = compute_modes(box_scene({0, 0, 0}, {2, 1, 1}), o);
  const ModeDefProp& p = s.modedef->props[0].prop;
  EXPECT_FLOAT_EQ(p.mass, 2000.0f);
  const double kp = 2000 * 9.81 / (4 * std::sqrt(6.0) / 5000);
  EXPECT_FLOAT_EQ(p.kp, float(kp));
  EXPECT_FLOAT_EQ(p.kv, float(std::sqrt(kp * 2000)));
  EXPECT_FLOAT_EQ(p.kb, float(std::sqrt(kp * 2000)));
  // A --prop template's values are kept, zeros included.
  o.prop = ModeDefProp{};
  const Scene t = compute_modes(box_scene({0, 0, 0}, {2, 1, 1}), o);
  EXPECT_EQ(t.modedef->props[0].prop.kp, 0.0f);
  EXPECT_EQ(t.modedef->props[0].prop.kv, 0.0f);
}

// The steel bar (E 200 GPa, rho 7850) as `meshport modes` writes it, dropped 0.5 m onto
// a floor, comes to rest on it (with KP = 0 it fell through; its inertia tensor, not exactly
// symmetric from rounding, was refused), without a warning.
TEST(ModeDefDefaults, DroppedModesBarRestsOnTheFloor) {
  TempDir dir;
  ModesOptions o;
  o.youngs = 2e11;
  o.density = 7850;
  o.stem = "box";
  const Scene s = compute_modes(box_scene({-0.5f, -0.05f, -0.05f}, {1, 0.1f, 0.1f}), o);
  const ModeDefProp& p = s.modedef->props[0].prop;
  EXPECT_EQ(p.inertia[1], p.inertia[3]);
  EXPECT_EQ(p.inertia[2], p.inertia[6]);
  EXPECT_EQ(p.inertia[5], p.inertia[7]);
  write(s, dir / "box.prop");
  spit(dir / "scene.state", drop_state(0.55));
  const Scene scene = read(dir / "scene.state");
  SimulateOptions so;
  so.seconds = 1.5;
  Diagnostics d;
  const SimulationResult r = simulate(scene, so, &d);
  EXPECT_EQ(d.items.size(), 0u);
  const SimulatedObject& end = r.at(r.frame_count - 1, 0);
  // Resting on its side: the centre half the thickness above the floor, sunk by at most 1 % of the
  // size (l = 1.01: at rest by l / 5000, 0.2 mm), and still.
  const double l = std::sqrt(1.02);
  EXPECT_NEAR(end.center_of_mass[1], 0.05, 0.01 * l) << end.center_of_mass[1];
  EXPECT_LT(r.max_penetration, 0.01 * l);
  EXPECT_NEAR(end.center_of_mass[1], 0.05 - l / 5000, 1e-4);
  EXPECT_LT(std::fabs(end.velocity[1]), 1e-3);
}

// Products of inertia that are zero up to rounding may differ between I_ab and I_ba by their whole
// size: symmetric enough, against the tensor's scale.
TEST(ModeDefDefaults, InertiaRoundingNoiseIsSymmetricEnough) {
  TempDir dir;
  ModesOptions o;
  o.count = 2;
  o.resolution = 2;
  o.stem = "box";
  Scene s = compute_modes(box_scene({-0.5f, -0.5f, -0.5f}, {1, 1, 1}), o);
  ModeDefProp& p = s.modedef->props[0].prop;
  p.inertia[1] = 3e-14f;
  p.inertia[3] = 1e-14f;
  write(s, dir / "box.prop");
  spit(dir / "scene.state", drop_state(1.0));
  SimulateOptions so;
  so.seconds = 0.1;
  EXPECT_NO_THROW(simulate(read(dir / "scene.state"), so));
  // A real asymmetry is still refused.
  p.inertia[1] = 0.2f * p.inertia[0];
  p.inertia[3] = 0;
  write(s, dir / "box.prop");
  EXPECT_THROW(simulate(read(dir / "scene.state"), so), Error);
}

// A moving body with KP 0 is warned about when it reaches a plane, with the time.
TEST(ModeDefDefaults, SimulateWarnsWhenABodyWithoutStiffnessReachesAPlane) {
  TempDir dir;
  ModesOptions o;
  o.count = 2;
  o.resolution = 2;
  o.stem = "box";
  o.prop = ModeDefProp{};  // KP = KV = KB = 0
  const Scene s = compute_modes(box_scene({-0.5f, -0.5f, -0.5f}, {1, 1, 1}), o);
  write(s, dir / "box.prop");
  spit(dir / "scene.state", drop_state(1.0));
  SimulateOptions so;
  so.seconds = 1;
  Diagnostics d;
  simulate(read(dir / "scene.state"), so, &d);
  ASSERT_EQ(d.items.size(), 1u);
  // The bottom (0.5 m below the centre) falls 0.5 m: past the floor at frame 10 (the discrete fall
  // is g (t^2 + t h) / 2: 0.442 m at 0.3 s, 0.546 m at 0.333 s).
  EXPECT_NE(d.items[0].to_string().find(
                "simulate: object 0 ('box.prop') reaches plane 0 at 0.333333 s with KP 0: no contact force, it "
                "passes through"),
            std::string::npos)
      << d.items[0].to_string();
  // Held above the floor for the whole time: no warning.
  spit(dir / "high.state", drop_state(100.0));
  Diagnostics quiet;
  simulate(read(dir / "high.state"), so, &quiet);
  EXPECT_EQ(quiet.items.size(), 0u);
}

// The modes animation (10 modes, 2 s each at 30 fps) is a clip of morph weights only: its
// frames are its keys, 601, in `anims` and `info`.
TEST(ModeDefDefaults, ModesAnimationCountsItsFrames) {
  Scene s = box_scene({0, 0, 0}, {1, 1, 1});
  Mesh& m = s.meshes[0];
  for (int k = 0; k < 10; ++k) {
    MorphTarget t;
    t.name = fmt::format("mode{}", k);
    t.positions.assign(m.streams[0].data.size(), 0.01f * float(k + 1));
    m.morph_targets.push_back(std::move(t));
  }
  ASSERT_EQ(add_modes_animation(s), 10u);
  const std::vector<ClipInfo> clips = list_clips(s);
  ASSERT_EQ(clips.size(), 1u);
  EXPECT_EQ(clips[0].frames, 601u);
  EXPECT_FLOAT_EQ(clips[0].duration, 20.0f);
  const Summary sum = summarize(s, Format::Gltf);
  ASSERT_EQ(sum.animations.size(), 1u);
  EXPECT_EQ(sum.animations[0].frames, 601u);
  EXPECT_NE(to_text(sum).find("\"modes\": 601 frames at 30 fps"), std::string::npos) << to_text(sum);
}

// Quadratic elements have the nodes of a carton of half cells: the kept cells and the grid are
// bounded by an eighth of the linear limits (the same node count), with a message saying so.
TEST(ModeDefDefaults, QuadraticCartonLimits) {
  auto message = [](uint32_t resolution) -> std::string {
    ModesOptions o;
    o.resolution = resolution;
    try {
      compute_modes(box_scene({0, 0, 0}, {1, 1, 1}), o);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message(21).find("--resolution 21 keeps 9261 cells of the carton (more than 8192 with quadratic elements"),
            std::string::npos)
      << message(21);
  EXPECT_NE(message(81).find("--resolution 81 makes a grid of 81 x 81 x 81 cells (more than 524288 with quadratic "
                             "elements)"),
            std::string::npos)
      << message(81);
}

// The quadratic elements' nested dissection splits at a plane of cell corners, which no 10-node
// tetrahedron crosses: the solves still run on two threads and give what one thread gives.
TEST(ModeDefDefaults, QuadraticSolvesSplitOverTwoThreads) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({0, 0, 0}, {1, 0.5f, 0.25f}, v, t);
  const Carton c = build_carton(v, t, 8, true);
  fem::Material mat;
  fem::ModesOptions o;
  o.count = 6;
  o.threads = 1;
  const fem::Modes one = fem::solve_modes(c.mesh, mat, o);
  o.threads = 2;
  const fem::Modes two = fem::solve_modes(c.mesh, mat, o);
  EXPECT_FALSE(one.split_solves);
  EXPECT_TRUE(two.split_solves);
  EXPECT_EQ(two.rigid_eigenvalues.size(), 6u);
  ASSERT_EQ(one.eigenvalues.size(), 6u);
  ASSERT_EQ(two.eigenvalues.size(), 6u);
  for (size_t k = 0; k < 6; ++k) EXPECT_NEAR(two.eigenvalues[k], one.eigenvalues[k], 1e-9 * one.eigenvalues[k]) << k;
}

}  // namespace meshport_test_modedef_defaults
