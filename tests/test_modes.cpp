// `meshport modes` (issue 21): carton, mass properties, modes against beam and rod theory, rigid
// modes, mass normalisation, and the .model / .prop round trip with deformation.
#include <meshport/meshport.h>
#include <meshport/modal.h>
#include <meshport/modes.h>

#include "physics/carton.h"
#include "physics/fem.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

namespace meshport_test_modes {

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

fem::Material material(double nu = 0.3) {
  fem::Material m;
  m.youngs = 1e6;
  m.poisson = nu;
  m.density = 1000;
  return m;
}

double hz(double lambda) { return std::sqrt(lambda) / (2 * std::numbers::pi); }

// phi_a^T M phi_b with the consistent mass matrix assembled here, independently of fem.cpp.
double mass_product(const fem::TetMesh& mesh, double rho, const double* a, const double* b) {
  double sum = 0;
  for (const auto& t : mesh.tets) {
    const auto& p0 = mesh.nodes[size_t(t[0])];
    double e[3][3];
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) e[c][k] = mesh.nodes[size_t(t[size_t(c + 1)])][size_t(k)] - p0[size_t(k)];
    const double vol = std::fabs(e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                                 e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                                 e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
                       6;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 3; ++k)
          sum += rho * vol / 20 * (i == j ? 2 : 1) * a[3 * t[size_t(i)] + k] * b[3 * t[size_t(j)] + k];
  }
  return sum;
}

struct BarResult {
  double bending = 0, bending2 = 0, axial = 0;
  size_t rigid = 0;
};

// A free-free bar 1 x 0.1 x 0.1 along x: its two lowest (bending) modes and its first axial mode
// (the lowest whose displacement is mostly along x).
BarResult bar_modes(uint32_t resolution) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({0, 0, 0}, {1, 0.1f, 0.1f}, v, t);
  const Carton c = build_carton(v, t, resolution);
  fem::ModesOptions o;
  o.count = 12;
  const fem::Modes m = fem::solve_modes(c.mesh, material(), o);
  BarResult r;
  r.rigid = m.rigid_eigenvalues.size();
  r.bending = hz(m.eigenvalues.at(0));
  r.bending2 = hz(m.eigenvalues.at(1));
  const size_t n3 = c.mesh.nodes.size() * 3;
  for (size_t k = 0; k < m.eigenvalues.size() && r.axial == 0; ++k) {
    double s[3] = {0, 0, 0};
    for (size_t i = 0; i < n3; ++i) s[i % 3] += m.vectors[k * n3 + i] * m.vectors[k * n3 + i];
    if (s[0] > 0.9 * (s[0] + s[1] + s[2])) r.axial = hz(m.eigenvalues[k]);
  }
  return r;
}

}  // namespace

TEST(Modes, CartonOfABoxFitsItExactly) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({1, 2, 3}, {2, 1, 0.5f}, v, t);
  const Carton c = build_carton(v, t, 8);
  EXPECT_EQ(c.cells, (std::array<uint32_t, 3>{8, 4, 2}));
  EXPECT_EQ(c.kept_cells, 64u);
  EXPECT_EQ(c.mesh.nodes.size(), size_t(9 * 5 * 3));
  EXPECT_EQ(c.mesh.tets.size(), size_t(64 * 6));
  EXPECT_EQ(open_edge_count(t), 0u);
  // Each render vertex is the barycentric blend of its tetrahedron's nodes.
  ASSERT_EQ(c.embedding.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const ModeDefCartonVertex& e = c.embedding[i];
    ASSERT_GE(e.tet, 0);
    ASSERT_LT(size_t(e.tet), c.mesh.tets.size());
    double p[3] = {0, 0, 0}, sum = 0;
    for (int k = 0; k < 4; ++k) {
      EXPECT_GE(e.bary[size_t(k)], -1e-6f);
      sum += e.bary[size_t(k)];
      for (int a = 0; a < 3; ++a)
        p[a] += e.bary[size_t(k)] * c.mesh.nodes[size_t(c.mesh.tets[size_t(e.tet)][size_t(k)])][size_t(a)];
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(p[a], v[i][size_t(a)], 1e-5) << "vertex " << i;
  }
}

TEST(Modes, CartonOfAnOctahedronKeepsItsInside) {
  // |x| + |y| + |z| <= 1: volume 4/3 in a bounding box of volume 8.
  const std::vector<V3> v = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  const std::vector<Tri> t = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  ASSERT_EQ(open_edge_count(t), 0u);
  const Carton c = build_carton(v, t, 10);
  const fem::MassProperties mp = fem::mass_properties(c.mesh, 1.0);
  EXPECT_GT(mp.volume, 4.0 / 3.0);
  EXPECT_LT(mp.volume, 4.0);  // the cells the surface crosses, not the whole box
  EXPECT_LT(c.kept_cells, 1000u);
  // Near the middle: not exactly, as grid corners on the faces and the cells of the vertices on
  // cell boundaries fall on one side.
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(mp.center[size_t(a)], 0.0, 0.15);
  // Every tetrahedron is positively oriented.
  for (const auto& tet : c.mesh.tets) {
    double e[3][3];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a)
        e[k][a] = c.mesh.nodes[size_t(tet[size_t(k + 1)])][size_t(a)] - c.mesh.nodes[size_t(tet[0])][size_t(a)];
    const double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                       e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    ASSERT_GT(det, 0);
  }
}

TEST(Modes, MassCentreAndInertiaOfABoxAreExact) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({1, 2, 3}, {2, 1, 0.5f}, v, t);
  const Carton c = build_carton(v, t, 8);
  const double rho = 7.5;
  const fem::MassProperties mp = fem::mass_properties(c.mesh, rho);
  const double mass = rho * 2 * 1 * 0.5;
  EXPECT_NEAR(mp.volume, 1.0, 1e-12);
  EXPECT_NEAR(mp.mass, mass, 1e-12);
  EXPECT_NEAR(mp.center[0], 2.0, 1e-12);
  EXPECT_NEAR(mp.center[1], 2.5, 1e-12);
  EXPECT_NEAR(mp.center[2], 3.25, 1e-12);
  const double ixx = mass / 12 * (1 + 0.25), iyy = mass / 12 * (4 + 0.25), izz = mass / 12 * (4 + 1);
  const std::array<double, 9> want{ixx, 0, 0, 0, iyy, 0, 0, 0, izz};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(mp.inertia[size_t(i)], want[size_t(i)], 1e-11) << i;
}

TEST(Modes, PropOfABoxHoldsItsMassProperties) {
  ModesOptions o;
  o.density = 2;
  o.count = 4;
  o.resolution = 4;
  o.stem = "brick";
  ModesReport r;
  const Scene s = compute_modes(box_scene({0, 0, 0}, {4, 2, 2}), o, nullptr, &r);
  ASSERT_TRUE(s.modedef);
  ASSERT_EQ(s.modedef->props.size(), 1u);
  const ModeDefProp& p = s.modedef->props[0].prop;
  EXPECT_EQ(p.model_file, "brick.model");
  EXPECT_FLOAT_EQ(p.mass, 32.0f);
  EXPECT_FLOAT_EQ(p.center_of_mass[0], 2.0f);
  EXPECT_FLOAT_EQ(p.center_of_mass[1], 1.0f);
  EXPECT_FLOAT_EQ(p.center_of_mass[2], 1.0f);
  EXPECT_FLOAT_EQ(p.inertia[0], float(32.0 / 12 * 8));
  EXPECT_FLOAT_EQ(p.inertia[4], float(32.0 / 12 * 20));
  EXPECT_FLOAT_EQ(p.inertia[8], float(32.0 / 12 * 20));
  EXPECT_NEAR(p.inertia[1], 0.0f, 1e-5f);
  EXPECT_EQ(r.rigid_modes, 6u);
  EXPECT_EQ(r.nodes, size_t(9 * 5 * 5));  // quadratic elements: the corners of 8 x 4 x 4 half cells
  EXPECT_EQ(s.modedef->models[0].model.mode_count(), 4u);
}

TEST(Modes, FreeBodyHasExactlySixRigidModes) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({0, 0, 0}, {1, 0.6f, 0.3f}, v, t);
  const Carton c = build_carton(v, t, 10);
  fem::ModesOptions o;
  o.count = 10;
  const fem::Modes m = fem::solve_modes(c.mesh, material(), o);
  ASSERT_EQ(m.rigid_eigenvalues.size(), 6u);
  ASSERT_EQ(m.eigenvalues.size(), 10u);
  double rigid = 0;
  for (double l : m.rigid_eigenvalues) rigid = std::max(rigid, std::fabs(l));
  EXPECT_LT(rigid, 1e-10 * m.lambda_max);
  EXPECT_GT(m.eigenvalues[0], 1e-6 * m.lambda_max);  // a gap of orders of magnitude
  for (size_t k = 1; k < m.eigenvalues.size(); ++k) EXPECT_GE(m.eigenvalues[k], m.eigenvalues[k - 1]);
  EXPECT_EQ(c.parts, 1u);
}

TEST(Modes, SeparatePartsAreReported) {
  // Two boxes of different sizes two cells apart: a carton in 2 parts, each with its own rigid modes.
  Scene s = box_scene({0, 0, 0}, {1, 0.6f, 0.3f});
  Scene other = box_scene({2, 0, 0}, {0.8f, 0.5f, 0.3f});
  Mesh m = other.meshes[0];
  m.name = "other";
  s.meshes.push_back(std::move(m));
  ModesOptions o;
  o.count = 4;
  o.resolution = 30;
  Diagnostics d;
  ModesReport r;
  const Scene out = compute_modes(s, o, &d, &r);
  EXPECT_EQ(r.parts, 2u);
  ASSERT_GE(d.items.size(), 1u);
  EXPECT_NE(d.items[0].to_string().find("2 separate parts"), std::string::npos) << d.items[0].to_string();
  // Lanczos may miss members of the 12-fold zero eigenvalue, never counts an elastic mode as rigid.
  EXPECT_GE(r.rigid_modes, 7u);
  EXPECT_LE(r.rigid_modes, 12u);
  for (float l : out.modedef->models[0].model.eigenvalues) EXPECT_GT(mode_frequency(l), 1.0f);
}

TEST(Modes, ModesAreMassNormalisedAndOrthogonal) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({0, 0, 0}, {1, 0.5f, 0.25f}, v, t);
  const Carton c = build_carton(v, t, 8);
  fem::ModesOptions o;
  o.count = 5;
  const fem::Modes m = fem::solve_modes(c.mesh, material(), o);
  const size_t n3 = c.mesh.nodes.size() * 3;
  ASSERT_EQ(m.vectors.size(), 5 * n3);
  for (size_t a = 0; a < 5; ++a)
    for (size_t b = 0; b < 5; ++b)
      EXPECT_NEAR(mass_product(c.mesh, 1000, &m.vectors[a * n3], &m.vectors[b * n3]), a == b ? 1.0 : 0.0, 1e-8);
}

TEST(Modes, FreeFreeBarMatchesBeamAndRodTheory) {
  // Bar 1 x 0.1 x 0.1, E = 1e6 Pa, nu = 0.3, rho = 1000 kg/m^3.
  const double e = 1e6, rho = 1000, l = 1, h = 0.1, area = h * h, inertia = h * h * h * h / 12;
  const double bending = 4.730 * 4.730 / (2 * std::numbers::pi) * std::sqrt(e * inertia / (rho * area * l * l * l * l));
  const double axial = 1 / (2 * l) * std::sqrt(e / rho);
  EXPECT_NEAR(bending, 3.2505, 1e-4);
  EXPECT_NEAR(axial, 15.8114, 1e-4);
  const BarResult r20 = bar_modes(20), r40 = bar_modes(40), r80 = bar_modes(80);
  for (const BarResult* r : {&r20, &r40, &r80}) EXPECT_EQ(r->rigid, 6u);
  auto err = [](double got, double want) { return std::fabs(got - want) / want; };
  // Resolution 80 (80 x 8 x 8 cells, 6,561 nodes): both bending modes and the axial mode within 5%.
  EXPECT_LT(err(r80.bending, bending), 0.05) << r80.bending;
  EXPECT_LT(err(r80.bending2, bending), 0.05) << r80.bending2;
  EXPECT_LT(err(r80.axial, axial), 0.05) << r80.axial;
  // Converging: the bending error falls as the carton refines (linear tetrahedra are too stiff).
  EXPECT_GT(r20.bending, r40.bending);
  EXPECT_GT(r40.bending, r80.bending);
  EXPECT_GT(err(r20.bending, bending), err(r40.bending, bending));
  EXPECT_GT(err(r40.bending, bending), err(r80.bending, bending));
  EXPECT_GT(err(r20.bending2, bending), err(r40.bending2, bending));
  EXPECT_GT(err(r40.bending2, bending), err(r80.bending2, bending));
  EXPECT_LT(err(r40.axial, axial), 0.05) << r40.axial;
}

TEST(Modes, ModelRoundTripDeformsTheRenderMesh) {
  TempDir dir;
  ModesOptions o;
  o.count = 6;
  o.resolution = 6;
  o.stem = "block";
  Diagnostics d;
  const Scene s = compute_modes(box_scene({-1, 0, 0}, {2, 1, 1}), o, &d);
  EXPECT_EQ(d.items.size(), 0u);
  write(s, dir / "block.prop");
  ASSERT_TRUE(std::filesystem::exists(dir / "block.model"));
  const Scene back = read(dir / "block.model");
  ASSERT_TRUE(back.modedef);
  const ModeDefModel& m = back.modedef->models[0].model;
  const ModeDefModel& want = s.modedef->models[0].model;
  EXPECT_EQ(m, want);  // shortest exact floats: bit for bit
  EXPECT_TRUE(m.carton);
  EXPECT_EQ(m.vertices.size(), 8u);
  EXPECT_EQ(m.mode_count(), 6u);
  const Scene prop = read(dir / "block.prop");
  EXPECT_EQ(prop.modedef->props[0].prop, s.modedef->props[0].prop);

  // Deforming by mode 2 moves each render vertex by the blend of its tetrahedron's mode displacements.
  Scene bent = back;
  const std::vector<float> q = {0, 0, 0.25f};
  deform_scene(bent, q);
  const size_t len = m.rest.size();
  ASSERT_EQ(bent.meshes.size(), 1u);
  const VertexStream* p0 = back.meshes[0].find(Attribute::Position);
  const VertexStream* p1 = bent.meshes[0].find(Attribute::Position);
  ASSERT_TRUE(p0 && p1);
  const std::vector<uint32_t>& rv = back.modedef->mesh_sources[0].vertex;
  double moved = 0;
  for (size_t v = 0; v < p0->vertex_count(); ++v) {
    const ModeDefCartonVertex& cv = m.carton_vertices[rv[v]];
    for (uint32_t a = 0; a < 3; ++a) {
      double u = 0;
      for (int k = 0; k < 4; ++k)
        u += cv.bary[size_t(k)] * m.eigenvectors[2 * len + 3 * size_t(m.tets[size_t(cv.tet)][size_t(k)]) + a];
      EXPECT_NEAR(p1->get(v, a) - p0->get(v, a), 0.25 * u, 1e-5);
      // The morph target of mode 2 is the same displacement for unit amplitude.
      EXPECT_NEAR(back.meshes[0].morph_targets[2].positions[v * 3 + a], u, 1e-5);
      moved = std::max(moved, std::fabs(0.25 * u));
    }
  }
  EXPECT_GT(moved, 1e-4);  // it does move
}

TEST(Modes, OpenMeshWarnsAndFlatMeshFails) {
  Scene s = box_scene({0, 0, 0}, {1, 1, 1});
  s.meshes[0].triangles.resize(s.meshes[0].triangles.size() - 6);  // no top
  ModesOptions o;
  o.count = 3;
  o.resolution = 4;
  Diagnostics d;
  const Scene out = compute_modes(s, o, &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_NE(d.items[0].to_string().find("not closed (4 edges"), std::string::npos) << d.items[0].to_string();
  EXPECT_EQ(out.modedef->models[0].model.mode_count(), 3u);
  Scene flat = box_scene({0, 0, 0}, {1, 1, 0});
  try {
    compute_modes(flat, o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("flat"), std::string::npos) << e.what();
  }
  Scene none;
  EXPECT_THROW(compute_modes(none, o), Error);
  o.poisson = 0.5;
  EXPECT_THROW(compute_modes(box_scene({0, 0, 0}, {1, 1, 1}), o), Error);
}

TEST(Modes, CliWritesModelAndPropThatDeform) {
  TempDir dir;
  write(box_scene({0, 0, 0}, {3, 1, 1}), dir / "beam.obj");
  const testutil::CliRun r = testutil::run_cli("modes " + dir / "beam.obj" + " --youngs 2e6 --poisson 0.25 --density 500 " +
                                               "--count 5 --resolution 9 -o " + dir / "beam.model");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("6 rigid modes dropped, 5 modes"), std::string::npos) << r.out;
  const Scene prop = read(dir / "beam.prop");
  EXPECT_EQ(prop.modedef->props[0].prop.model_file, "beam.model");
  EXPECT_FLOAT_EQ(prop.modedef->props[0].prop.mass, 1500.0f);
  EXPECT_EQ(prop.modedef->models[0].model.mode_count(), 5u);
  const testutil::CliRun d =
      testutil::run_cli("deform " + dir / "beam.model" + " --mode 0 --amplitude 0.1 -o " + dir / "bent.obj");
  ASSERT_EQ(d.status, 0) << d.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "bent.obj"));
  const testutil::CliRun bad = testutil::run_cli("modes " + dir / "beam.obj" + " --poisson 0.5 -o " + dir / "x.model");
  EXPECT_NE(bad.status, 0);
  const testutil::CliRun small =
      testutil::run_cli("modes " + dir / "beam.obj" + " --resolution 1 --elements linear -o " + dir / "x.model");
  EXPECT_EQ(small.status, 1);
  EXPECT_NE(small.out.find(dir / "beam.obj" + ": error: modes: 20 modes (+ 6 rigid) need more than the carton's 24 "
                                              "degrees of freedom"),
            std::string::npos)
      << small.out;
}

// A template .prop: its MASS sets the density (the object keeps its mass), its other values are
// kept; MODELFILE, MASS, COM and INERTIA are computed; --density overrides the mass; the input
// itself can be the template.
TEST(Modes, PropTemplateKeepsItsMassAndValues) {
  ModeDefProp t;
  t.model_file = "old.obj";
  t.rigid_body = 0;
  t.deform = 1;
  t.mass = 64;
  t.unused1 = 7;
  t.lame = 2.5f;
  t.damping1 = 0.125f;
  t.damping2 = 0.0625f;
  t.scale = 3;
  t.unused2 = 9;
  t.kp = 1000;
  t.kv = 10;
  t.kb = 0.5f;
  ModesOptions o;
  o.count = 4;
  o.resolution = 4;
  o.stem = "brick";
  o.prop = t;
  o.density_from_prop = true;
  ModesReport r;
  const Scene s = compute_modes(box_scene({0, 0, 0}, {4, 2, 2}), o, nullptr, &r);
  const ModeDefProp& p = s.modedef->props[0].prop;
  EXPECT_NEAR(r.density, 4.0, 1e-12);  // 64 / (4 * 2 * 2), the volume summed over tetrahedra
  EXPECT_FLOAT_EQ(p.mass, 64.0f);
  EXPECT_FLOAT_EQ(p.inertia[0], float(64.0 / 12 * 8));
  EXPECT_FLOAT_EQ(p.center_of_mass[0], 2.0f);
  EXPECT_EQ(p.model_file, "brick.model");
  ModeDefProp expect = t;  // everything else as in the template
  expect.model_file = p.model_file;
  expect.mass = p.mass;
  expect.center_of_mass = p.center_of_mass;
  expect.inertia = p.inertia;
  EXPECT_EQ(p, expect);

  // Twice the density, twice every eigenvalue's mass: lambda halves.
  o.density_from_prop = false;
  o.density = 8;
  const Scene heavy = compute_modes(box_scene({0, 0, 0}, {4, 2, 2}), o, nullptr, &r);
  EXPECT_FLOAT_EQ(heavy.modedef->props[0].prop.mass, 128.0f);
  EXPECT_NEAR(heavy.modedef->models[0].model.eigenvalues[0], s.modedef->models[0].model.eigenvalues[0] / 2,
              1e-5 * s.modedef->models[0].model.eigenvalues[0]);

  o.prop->mass = 0;
  o.density_from_prop = true;
  EXPECT_THROW(compute_modes(box_scene({0, 0, 0}, {4, 2, 2}), o), Error);

  // CLI: --prop as the template, --density over its mass, and a .prop input as its own template.
  TempDir dir;
  write(box_scene({0, 0, 0}, {4, 2, 2}), dir / "brick.obj");
  write(s, dir / "template.prop");
  const testutil::CliRun a = testutil::run_cli("modes " + dir / "brick.obj" + " --prop " + dir / "template.prop" +
                                               " --count 4 --resolution 4 -o " + dir / "a.model");
  ASSERT_EQ(a.status, 0) << a.out;
  EXPECT_NE(a.out.find("mass 64, volume 16, density 4"), std::string::npos) << a.out;
  ModeDefProp pa = read(dir / "a.prop").modedef->props[0].prop;
  EXPECT_EQ(pa.model_file, "a.model");
  EXPECT_FLOAT_EQ(pa.kp, 1000.0f);
  EXPECT_FLOAT_EQ(pa.damping2, 0.0625f);
  EXPECT_EQ(pa.rigid_body, 0);
  const testutil::CliRun b = testutil::run_cli("modes " + dir / "brick.obj" + " --prop " + dir / "template.prop" +
                                               " --density 0.5 --count 4 --resolution 4 -o " + dir / "b.model");
  ASSERT_EQ(b.status, 0) << b.out;
  EXPECT_FLOAT_EQ(read(dir / "b.prop").modedef->props[0].prop.mass, 8.0f);
  const testutil::CliRun c =
      testutil::run_cli("modes " + dir / "template.prop" + " --count 4 --resolution 4 -o " + dir / "c.model");
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("mass 64, volume 16, density 4"), std::string::npos) << c.out;
  EXPECT_FLOAT_EQ(read(dir / "c.prop").modedef->props[0].prop.scale, 3.0f);
  const testutil::CliRun bad =
      testutil::run_cli("modes " + dir / "brick.obj" + " --prop " + dir / "brick.obj" + " -o " + dir / "d.model");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("brick.obj: error: modes: --prop needs a ModeDef .prop file"), std::string::npos) << bad.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "d.model"));
}

// The two-thread solves give what one thread gives; a mesh whose factor couples the halves of the
// first split (a rotated grid: tetrahedra cross the splitting plane) is solved in one piece.
TEST(Modes, TwoThreadSolvesMatchOneThread) {
  std::vector<V3> v;
  std::vector<Tri> t;
  box({0, 0, 0}, {1, 0.5f, 0.25f}, v, t);
  Carton c = build_carton(v, t, 10);
  auto compare = [](const fem::TetMesh& mesh, bool split_expected) {
    fem::ModesOptions o;
    o.count = 6;
    o.threads = 1;
    const fem::Modes one = fem::solve_modes(mesh, material(), o);
    o.threads = 2;
    const fem::Modes two = fem::solve_modes(mesh, material(), o);
    EXPECT_FALSE(one.split_solves);
    EXPECT_EQ(two.split_solves, split_expected);
    ASSERT_EQ(one.eigenvalues.size(), two.eigenvalues.size());
    for (size_t k = 0; k < one.eigenvalues.size(); ++k)
      EXPECT_NEAR(two.eigenvalues[k], one.eigenvalues[k], 1e-9 * one.eigenvalues[k]) << k;
    ASSERT_EQ(one.vectors.size(), two.vectors.size());
    // With the same sign: the sign rule picks the first component within 1e-6 of the largest, so
    // mirror components of the symmetric box that tie up to rounding do not flip it.
    double diff = 0, big = 0;
    for (size_t i = 0; i < one.vectors.size(); ++i) {
      diff = std::max(diff, std::fabs(one.vectors[i] - two.vectors[i]));
      big = std::max(big, std::fabs(one.vectors[i]));
    }
    EXPECT_LT(diff, 1e-6 * big);
  };
  compare(c.mesh, true);
  const double a = 0.5;  // radians about z
  for (auto& p : c.mesh.nodes) {
    const double x = p[0] * std::cos(a) - p[1] * std::sin(a), y = p[0] * std::sin(a) + p[1] * std::cos(a);
    p[0] = x;
    p[1] = y;
  }
  compare(c.mesh, false);
}

// Small inputs that would ask for too much are refused with a clear error: a fine carton of a
// cube (its factor), many scattered pieces (6 eigenvalues each), many overlapping triangles (the
// inside test's crossings).
TEST(Modes, HostileSizesAreRefused) {
  auto message = [](const Scene& s, uint32_t resolution) -> std::string {
    ModesOptions o;
    o.resolution = resolution;
    o.elements = ModeElements::Linear;  // the linear limits (the quadratic ones: test_modedef_defaults.cpp)
    try {
      compute_modes(s, o);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message(box_scene({0, 0, 0}, {1, 1, 1}), 41).find("keeps 68921 cells of the carton (more than 65536"),
            std::string::npos)
      << message(box_scene({0, 0, 0}, {1, 1, 1}), 41);

  Scene pieces = box_scene({0, 0, 0}, {0.1f, 0.1f, 0.1f});
  for (int i = 1; i < 17; ++i) {
    Mesh m = box_scene({float(i), 0, 0}, {0.1f, 0.1f, 0.1f}).meshes[0];
    m.name = fmt::format("box{}", i);
    pieces.meshes.push_back(std::move(m));
  }
  EXPECT_NE(message(pieces, 170).find("17 separate parts"), std::string::npos) << message(pieces, 170);

  // 2,100 copies of a quad across the box: each crosses ~8,300 grid lines at resolution 512.
  Scene slabs = box_scene({0, 0, 0}, {4, 0.7f, 0.7f});
  Mesh& m = slabs.meshes[0];
  std::vector<float>& p = m.streams[0].data;
  for (int q = 0; q < 2100; ++q) {
    const float x = 0.1f + 3.8f * float(q) / 2100;
    const uint32_t base = uint32_t(p.size() / 3);
    p.insert(p.end(), {x, 0, 0, x, 0.7f, 0, x, 0.7f, 0.7f, x, 0, 0.7f});
    m.triangles.insert(m.triangles.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  EXPECT_NE(message(slabs, 512).find("cross the carton's grid lines more than 16777216 times"), std::string::npos)
      << message(slabs, 512);
}

}  // namespace meshport_test_modes
