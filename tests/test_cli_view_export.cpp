// `meshport view --export DIR` (every build, the WebAssembly one too): the page's model.glb and
// info.json written instead of served, equal to what `convert` to .glb, `info --json` and
// `assemble` give for the same files; errors write nothing.
#include "image/image.h"
#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace meshport_test_cli_view_export {

namespace fs = std::filesystem;
using testutil::CliRun;
using testutil::slurp;
using testutil::TempDir;

namespace {

CliRun run(const std::string& args) { return testutil::run_cli(args); }

// A textured PIE part, with connectors at `connectors` (PIE's Z-up coordinates).
std::string part(const std::string& page, const std::string& connectors = "") {
  std::string s = "PIE 3\nTYPE 10200\nTEXTURE 0 " + page + " 256 256\nLEVELS 1\nLEVEL 1\nPOINTS 4\n\t0 0 0\n\t10 0 0\n"
                  "\t10 10 0\n\t0 10 0\nPOLYGONS 2\n\t200 3 0 1 2 0 0 256 0 256 256\n\t200 3 0 2 3 0 0 256 256 0 256\n";
  if (!connectors.empty()) s += "CONNECTORS 1\n\t" + connectors + "\n";
  return s;
}

void write_png(const fs::path& p, uint8_t alpha) {
  meshport::image::Pixels px{4, 4, std::vector<uint8_t>(64, 200)};
  px.rgba[3] = alpha;
  const std::vector<uint8_t> png = meshport::image::encode_png(px);
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
}

// A Warzone-shaped tree: body, propulsion and weapon under components/, their page (with a team
// colour mask) under texpages/.
struct Tree {
  TempDir t;
  fs::path body, prop, gun;
  Tree() {
    const fs::path c = t.path / "base" / "components";
    fs::create_directories(c / "bodies");
    fs::create_directories(c / "prop");
    fs::create_directories(c / "weapons");
    fs::create_directories(t.path / "base" / "texpages");
    body = c / "bodies" / "body.pie";
    prop = c / "prop" / "prop.pie";
    gun = c / "weapons" / "gun.pie";
    std::ofstream(body) << part("page-7-units.png", "0 0 12");
    std::ofstream(prop) << part("page-7-units.png");
    std::ofstream(gun) << part("page-7-units.png");
    write_png(t.path / "base" / "texpages" / "page-7-units.png", 255);
    write_png(t.path / "base" / "texpages" / "page-7_tcmask.png", 128);
  }
};

}  // namespace

TEST(CliViewExport, ModelIsConvertsGlbAndInfoIsInfoJson) {
  Tree tree;
  const fs::path out = tree.t.path / "page";
  CliRun r = run("view -q " + tree.body.string() + " --export " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");  // serves nothing, prints no address
  r = run("convert -q " + tree.body.string() + " -o " + (tree.t.path / "body.glb").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string glb = slurp(out / "model.glb");
  ASSERT_GT(glb.size(), 100u);
  EXPECT_EQ(glb, slurp(tree.t.path / "body.glb"));

  r = run("info --json " + tree.body.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json info = nlohmann::json::parse(slurp(out / "info.json"));
  EXPECT_EQ(info["title"], "body.pie");
  EXPECT_EQ(info["team_colour"], true);  // the page has a mask beside it
  EXPECT_EQ(info["summary"], nlohmann::json::parse(r.out));
  EXPECT_EQ(info.size(), 3u);
}

TEST(CliViewExport, TeamColourIsBakedAsConvertBakesIt) {
  Tree tree;
  const fs::path out = tree.t.path / "page";
  CliRun r = run("view -q " + tree.body.string() + " --export " + out.string() + " --team-colour 255,0,0");
  ASSERT_EQ(r.status, 0) << r.out;
  r = run("convert -q " + tree.body.string() + " -o " + (tree.t.path / "red.glb").string() + " --team-colour 255,0,0");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(out / "model.glb"), slurp(tree.t.path / "red.glb"));
  r = run("convert -q " + tree.body.string() + " -o " + (tree.t.path / "plain.glb").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(slurp(out / "model.glb"), slurp(tree.t.path / "plain.glb"));
  for (const char* bad : {"255,0", "256,0,0", "a,b,c"}) {
    r = run("view -q " + tree.body.string() + " --export " + (tree.t.path / "bad").string() + " --team-colour " + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("--team-colour"), std::string::npos) << r.out;
  }
  EXPECT_FALSE(fs::exists(tree.t.path / "bad"));
  // Without --export, where it would do nothing: refused, nothing served.
  r = run("view -q " + tree.body.string() + " --team-colour 255,0,0 --timeout 1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--team-colour goes with --export"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("http://"), std::string::npos) << r.out;
}

TEST(CliViewExport, PartsAreTheAssembledUnit) {
  Tree tree;
  const fs::path out = tree.t.path / "unit";
  const std::string parts = tree.body.string() + " " + tree.prop.string() + " " + tree.gun.string();
  CliRun r = run("view -q " + parts + " --export " + out.string());
  ASSERT_EQ(r.status, 0) << r.out;
  r = run("assemble -q " + parts + " -o " + (tree.t.path / "unit.glb").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(slurp(out / "model.glb"), slurp(tree.t.path / "unit.glb"));
  const nlohmann::json info = nlohmann::json::parse(slurp(out / "info.json"));
  EXPECT_EQ(info["title"], "body (assembled from 3 parts)");
  EXPECT_EQ(info["summary"]["meshes"].size(), 3u);
}

TEST(CliViewExport, AnUnreadableModelWritesNothing) {
  TempDir t;
  const fs::path bad = t.path / "bad.pie";
  std::ofstream(bad) << "PIE 3\nTYPE 200\nLEVELS 1\nLEVEL 1\nPOINTS 9\n\t0 0 0\n";
  const fs::path out = t.path / "page";
  const CliRun r = run("view " + bad.string() + " --export " + out.string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("bad.pie:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error:"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace meshport_test_cli_view_export
