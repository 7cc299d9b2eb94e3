// `meshport deform` and `convert --modes-animation` on tests/data/modedef/bar.model.
#include <meshport/meshport.h>

#include "formats/modedef/modedef.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace meshport_test_cli_deform {

using namespace meshport;
using testutil::CliRun;
using testutil::TempDir;

namespace {

using V3 = std::array<float, 3>;

const std::string kBar = std::string(MESHPORT_TEST_DATA) + "/modedef/bar.model";

CliRun run(const std::string& args) { return testutil::run_cli(args); }


// Every position of every mesh of `path`.
std::vector<V3> positions(const std::string& path) {
  std::vector<V3> out;
  for (const Mesh& m : read(path).meshes)
    if (const VertexStream* p = m.find(Attribute::Position))
      for (size_t v = 0; v < p->vertex_count(); ++v) out.push_back({p->get(v, 0), p->get(v, 1), p->get(v, 2)});
  return out;
}

// Each of `got` is one of `want` and each of `want` is among `got`, within 1e-5.
void expect_same_points(const std::vector<V3>& got, const std::vector<V3>& want) {
  auto near = [](const V3& a, const V3& b) {
    return std::fabs(a[0] - b[0]) <= 1e-5f && std::fabs(a[1] - b[1]) <= 1e-5f && std::fabs(a[2] - b[2]) <= 1e-5f;
  };
  for (const V3& g : got)
    EXPECT_TRUE(std::any_of(want.begin(), want.end(), [&](const V3& w) { return near(g, w); }))
        << g[0] << " " << g[1] << " " << g[2] << " is not expected";
  for (const V3& w : want)
    EXPECT_TRUE(std::any_of(got.begin(), got.end(), [&](const V3& g) { return near(g, w); }))
        << w[0] << " " << w[1] << " " << w[2] << " is missing";
}

}  // namespace

TEST(CliDeform, Help) {
  const CliRun r = run("deform --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--amplitude"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--amplitudes"), std::string::npos) << r.out;
  const CliRun c = run("convert --help");
  EXPECT_NE(c.out.find("--modes-animation"), std::string::npos) << c.out;
}

TEST(CliDeform, OneModeToObj) {
  TempDir t;
  const CliRun r = run("deform '" + kBar + "' --mode 0 --amplitude 0.5 -o '" + (t / "out.obj") + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  // Mode 0 moves the nodes at x = 2 by (0, 1, 0): at 0.5 the top face's vertices at x = 1 rise
  // by 0.25 (half of node 3 or node 7), those at x = 2 by 0.5; the centre of tetrahedron 4 by
  // (0.5 + 0 + 0 + 0.5) / 4 = 0.25 (tests/test_ops_modal.cpp works these out).
  expect_same_points(positions(t / "out.obj"), {{0, 1, 0}, {1, 1.25f, 0}, {2, 1.5f, 0}, {0, 1, 1}, {1, 1.25f, 1},
                                                {2, 1.5f, 1}, {1, 0.75f, 0.5f}});
}

TEST(CliDeform, SeveralModesAndAmplitudeList) {
  TempDir t;
  // --amplitudes 0,0.5 (mode 1: +0.5 z) then --mode 2 --amplitude 0.5 (nodes at x = 2: +0.25 x)
  // and --mode 0 --amplitude 0.5: node 7 (2,1,1) -> (2.25, 1.5, 1.5).
  const CliRun r = run("deform '" + kBar + "' --amplitudes 0,0.5 --mode 2 --amplitude 0.5 --mode 0 --amplitude 0.5 -o '" +
                       (t / "out.obj") + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  // x: +0.25 * (share of x = 2 nodes): v1, v4 half, v6 half ((1 + 0 + 0 + 1) / 4).
  expect_same_points(positions(t / "out.obj"),
                     {{0, 1, 0.5f}, {1.125f, 1.25f, 0.5f}, {2.25f, 1.5f, 0.5f}, {0, 1, 1.5f}, {1.125f, 1.25f, 1.5f},
                      {2.25f, 1.5f, 1.5f}, {1.125f, 0.75f, 1}});
}

TEST(CliDeform, Errors) {
  TempDir t;
  const std::string out = t / "out.obj";
  CliRun r = run("deform '" + kBar + "' --mode 3 --amplitude 1 -o '" + out + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--mode 3 is out of range: the model has 3 modes"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run("deform '" + kBar + "' --amplitudes 1,2,3,4 -o '" + out + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("4 amplitudes"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run("deform '" + kBar + "' --mode 0 -o '" + out + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("one amplitude per mode"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  // Not a ModeDef model.
  {
    std::ofstream f(t / "tri.obj");
    f << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  }
  r = run("deform '" + (t / "tri.obj") + "' --mode 0 --amplitude 1 -o '" + out + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("no ModeDef model"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliDeform, ConvertWithModesAnimation) {
  TempDir t;
  const CliRun r = run("convert '" + kBar + "' --modes-animation -o '" + (t / "bar.glb") + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const Scene s = read(t / "bar.glb");
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].name, "modes");
  EXPECT_FALSE(s.animations[0].morph_weights.empty());
}

}  // namespace meshport_test_cli_deform
