// The CLI with PIE (Warzone 2100) files: info shows levels, connectors, animation and texture
// pages; convert writes the version asked for and goes through glTF and back.
#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include <sys/wait.h>

namespace meshport_test_cli_pie {

using testutil::slurp;
using testutil::TempDir;

namespace {

using testutil::CliRun;
CliRun run(const std::string& args) { return testutil::run_cli(args); }

std::string turret() { return std::string(MESHPORT_TEST_DATA) + "/cli/turret.pie"; }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(CliPie, InfoShowsLevelsConnectorsAnimationAndPages) {
  CliRun r = run("info " + turret());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "pie (Warzone 2100")) << r.out;
  EXPECT_TRUE(has(r.out, "PIE 3: TYPE 200\n")) << r.out;
  EXPECT_TRUE(has(r.out, "TEXTURE tileset 0: page-17-droid-weapons.png\n")) << r.out;
  EXPECT_TRUE(has(r.out, "EVENT 2: turret_fire.pie\n")) << r.out;
  EXPECT_TRUE(has(r.out, "level 1: 4 points, 2 polygons, 1 connectors\n")) << r.out;
  EXPECT_TRUE(has(r.out, "level 2: 3 points, 1 polygons, 0 connectors\n")) << r.out;
  EXPECT_TRUE(has(r.out, "texture animation on 1 polygons\n")) << r.out;
  EXPECT_TRUE(has(r.out, "ANIMOBJECT: 3 frames, 100 ms per frame, looping\n")) << r.out;
  // The connector (0 0 12), Z up, is Scene (0, 12, -0).
  EXPECT_TRUE(has(r.out, "\"turret_level1_connector1\" on \"turret_level1\" at (0 12 -0)\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\"turret\": 3 frames at 10 fps, looping\n")) << r.out;
}

TEST(CliPie, InfoJson) {
  CliRun r = run("info --json " + turret());
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "pie");
  EXPECT_EQ(j["meshes"].size(), 2u);
  EXPECT_EQ(j["joints"], 1);
  EXPECT_EQ(j["pie"]["version"], 3);
  EXPECT_EQ(j["pie"]["type"], "200");
  ASSERT_EQ(j["pie"]["levels"].size(), 2u);
  EXPECT_EQ(j["pie"]["levels"][0]["connectors"], 1);
  EXPECT_EQ(j["pie"]["levels"][1]["animobject"]["frames"], 3);
  EXPECT_EQ(j["pie"]["levels"][1]["animobject"]["time_ms"], 100);
  EXPECT_EQ(j["pie"]["levels"][1]["texture_animated_polygons"], 1);
  ASSERT_EQ(j["attachments"].size(), 1u);
  EXPECT_EQ(j["attachments"][0]["translation"], nlohmann::json::parse("[0, 12, 0]"));
  EXPECT_EQ(j["attachments"][0]["mesh"], "turret_level1");
}

TEST(CliPie, ConvertToPie2WritesIntegerCoordinates) {
  TempDir tmp;
  CliRun r = run("convert -q " + turret() + " -o " + tmp / "t2.pie --pie-version 2");
  ASSERT_EQ(r.status, 0) << r.out;
  std::string text = slurp(tmp / "t2.pie");
  EXPECT_EQ(text.rfind("PIE 2\n", 0), 0u) << text;
  // 0.5 and 0.25 are 128 and 64 out of 256.
  EXPECT_TRUE(has(text, "\t200 3 0 1 2 0 0 128 0 128 128\n")) << text;
  EXPECT_TRUE(has(text, "4200 3 0 1 2 4 50 64 64 128 128 192 128 192 192\n")) << text;
  CliRun back = run("info " + tmp / "t2.pie");
  EXPECT_EQ(back.status, 0) << back.out;
  EXPECT_TRUE(has(back.out, "PIE 2: TYPE 200\n")) << back.out;
}

TEST(CliPie, BadVersionIsRefused) {
  TempDir tmp;
  CliRun r = run("convert " + turret() + " -o " + tmp / "t.pie --pie-version 5");
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.out, "--pie-version")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(tmp / "t.pie"));
}

TEST(CliPie, ThroughGlbAndBack) {
  TempDir tmp;
  ASSERT_EQ(run("convert -q " + turret() + " -o " + tmp / "t.glb").status, 0);
  // Named as the source so that mesh and connector names (from the file name) agree.
  CliRun r = run("convert -q " + tmp / "t.glb" + " -o " + tmp / "turret.pie");
  ASSERT_EQ(r.status, 0) << r.out;
  CliRun a = run("info --json " + turret());
  CliRun b = run("info --json " + tmp / "turret.pie");
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(jb["pie"], ja["pie"]);
  EXPECT_EQ(jb["attachments"], ja["attachments"]);
  EXPECT_EQ(jb["animations"][0]["frames"], 3);
}

}  // namespace meshport_test_cli_pie
