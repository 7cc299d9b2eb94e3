// The CLI contract later issues rely on: exit codes, diagnostics format, no partial output,
// `info --json` fields, `validate`, `formats`.
#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace meshport_test_cli {

namespace fs = std::filesystem;
using testutil::slurp;
using testutil::TempDir;

namespace {

using testutil::CliRun;
CliRun run(const std::string& args) { return testutil::run_cli(args); }

std::string data(const std::string& name) { return std::string(MESHPORT_TEST_DATA) + "/cli/" + name; }

}  // namespace

TEST(Cli, HelpForEveryCommand) {
  for (const char* c : {"", "convert ", "info ", "validate ", "formats "}) {
    CliRun r = run(std::string(c) + "--help");
    EXPECT_EQ(r.status, 0) << c;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
}

TEST(Cli, NoCommandIsAnError) { EXPECT_NE(run("").status, 0); }

TEST(Cli, FormatsListsReadAndWrite) {
  CliRun r = run("formats");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("iqe           yes   yes   .iqe "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iqm           yes   yes   .iqm "), std::string::npos) << r.out;
}

TEST(Cli, ConvertIqeToIqmAndInfoJson) {
  TempDir t;
  CliRun c = run("convert " + data("skinned.iqe") + " -o " + (t / "hinge.iqm"));
  ASSERT_EQ(c.status, 0) << c.out;
  CliRun i = run("info --json " + (t / "hinge.iqm"));
  ASSERT_EQ(i.status, 0) << i.out;
  const std::string& j = i.out;
  EXPECT_NE(j.find("\"format\": \"iqm\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"name\": \"hinge\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"material\": \"hinge.png\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"vertices\": 6"), std::string::npos) << j;
  EXPECT_NE(j.find("\"triangles\": 4"), std::string::npos) << j;
  EXPECT_NE(j.find("\"joints\": 2"), std::string::npos) << j;
  EXPECT_NE(j.find("\"name\": \"bend\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"frames\": 2"), std::string::npos) << j;
  EXPECT_NE(j.find("\"framerate\": 12.0"), std::string::npos) << j;
  EXPECT_NE(j.find("\"loop\": true"), std::string::npos) << j;
  // Z-up (x, y, z) becomes Scene (x, z, -y): the hinge spans z 0..2 in the file, y 0..2 here.
  std::string flat;
  for (char ch : j)
    if (ch != ' ' && ch != '\n') flat += ch;
  EXPECT_NE(flat.find("\"max\":[0.5,2.0,0.0],\"min\":[-0.5,0.0,0.0]"), std::string::npos) << j;
}

TEST(Cli, InfoHumanReadable) {
  CliRun i = run("info " + data("skinned.iqe"));
  ASSERT_EQ(i.status, 0) << i.out;
  EXPECT_NE(i.out.find("meshes: 1  vertices: 6  triangles: 4"), std::string::npos) << i.out;
  EXPECT_NE(i.out.find("\"bend\": 2 frames at 12 fps, looping"), std::string::npos) << i.out;
}

TEST(Cli, ConvertFailureLeavesNoOutputAndKeepsExistingFile) {
  TempDir t;
  CliRun c = run("convert " + data("badindex.iqe") + " -o " + (t / "out.iqm"));
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("badindex.iqe:6:8: error: face index 7 out of range: fm counts from this mesh's first "
                       "vertex, and there are 3"),
            std::string::npos)
      << c.out;
  EXPECT_FALSE(fs::exists(t / "out.iqm"));
  { std::ofstream(t / "keep.iqm") << "precious"; }
  c = run("convert " + data("badindex.iqe") + " -o " + (t / "keep.iqm"));
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(slurp(t / "keep.iqm"), "precious");
  size_t files = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(t.path)) ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
}

TEST(Cli, ConvertUnknownExtensionNeedsTo) {
  TempDir t;
  CliRun c = run("convert " + data("skinned.iqe") + " -o " + (t / "out.xyz"));
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("out.xyz: error: unknown format"), std::string::npos) << c.out;
  EXPECT_FALSE(fs::exists(t / "out.xyz"));
  c = run("convert " + data("skinned.iqe") + " --to iqm -o " + (t / "out.xyz"));
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_EQ(slurp(t / "out.xyz").substr(0, 15), "INTERQUAKEMODEL");
  c = run("convert " + data("skinned.iqe") + " --to bogus -o " + (t / "out.xyz"));
  EXPECT_NE(c.status, 0);
  EXPECT_NE(c.out.find("unknown format 'bogus'"), std::string::npos) << c.out;
}

// The conventions (issue 34): exit 0 success, 1 failure, 2 usage error; an unknown command says so;
// usage lines name "meshport", not the binary's path.
TEST(Cli, ExitStatusIsZeroOneOrTwo) {
  CliRun u = run("frobnicate x");
  EXPECT_EQ(u.status, 2);
  EXPECT_NE(u.out.find("meshport: unknown command 'frobnicate'; see meshport --help"), std::string::npos) << u.out;
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("convert").status, 2);
  EXPECT_EQ(run("info --no-such-option x.iqm").status, 2);
  EXPECT_EQ(run("diff a.iqm").status, 2);
  EXPECT_EQ(run("convert " + data("skinned.iqe") + " --to bogus -o x.iqm").status, 2);
  EXPECT_EQ(run("--version").status, 0);
  EXPECT_EQ(run("info --help").status, 0);
  EXPECT_EQ(run("info /nonexistent/model.iqm").status, 1);
  const CliRun h = run("convert --help");
  EXPECT_NE(h.out.find("Usage: meshport convert"), std::string::npos) << h.out;
  EXPECT_EQ(h.out.find(MESHPORT_CLI), std::string::npos) << h.out;
}

// An output whose extension names another format than --to is an error (IQM bytes in a .glb would
// mislead every tool), unless --force-format; a folder given as a model says it is a folder.
TEST(Cli, OutputExtensionMustAgreeWithTo) {
  TempDir t;
  CliRun c = run("convert " + data("skinned.iqe") + " -o " + (t / "a.glb") + " --to iqm");
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("a.glb: error: the file name says glb but the format asked for is iqm: name the file .iqm or "
                       "give --force-format"),
            std::string::npos)
      << c.out;
  EXPECT_FALSE(fs::exists(t / "a.glb"));
  c = run("convert " + data("skinned.iqe") + " -o " + (t / "a.glb") + " --to iqm --force-format");
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_EQ(slurp(t / "a.glb").substr(0, 15), "INTERQUAKEMODEL");
  c = run("convert " + data("skinned.iqe") + " -o " + (t / "b.glb") + " --to glb");
  EXPECT_EQ(c.status, 0) << c.out;
  c = run("info " + t.path.string());
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find(t.path.string() + ": error: is a directory, not a model file"), std::string::npos) << c.out;
}

// `formats` aligns every row (the ModeDef names are longer than the others).
TEST(Cli, FormatsTableAligns) {
  std::istringstream in(run("formats").out);
  std::string line;
  size_t read_column = std::string::npos, rows = 0;
  while (std::getline(in, line)) {
    const size_t at = line.find(rows == 0 ? " read " : line.find(" yes ") != std::string::npos ? " yes " : " no ");
    ASSERT_NE(at, std::string::npos) << line;
    if (rows++ == 0) read_column = at;
    EXPECT_EQ(at, read_column) << line;
  }
  EXPECT_GE(rows, 13u);
}

TEST(Cli, ConvertMissingInput) {
  TempDir t;
  CliRun c = run("convert " + (t / "nope.iqe") + " -o " + (t / "out.iqm"));
  EXPECT_EQ(c.status, 1);
  EXPECT_NE(c.out.find("nope.iqe: error: cannot open: No such file or directory"), std::string::npos) << c.out;
}

TEST(Cli, ConvertAttachesAnimationsByName) {
  TempDir t;
  CliRun c = run("convert " + data("skinned.iqe") + " " + data("walk.iqe") + " -o " + (t / "both.iqm"));
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("walk.iqe: warning: 1 of its joints are not in the skeleton and are dropped"),
            std::string::npos)
      << c.out;
  CliRun i = run("info --json " + (t / "both.iqm"));
  EXPECT_NE(i.out.find("\"name\": \"walk\""), std::string::npos) << i.out;
  EXPECT_NE(i.out.find("\"framerate\": 30.0"), std::string::npos) << i.out;
  EXPECT_NE(i.out.find("\"joints\": 2"), std::string::npos) << i.out;
}

TEST(Cli, ValidateExitCodes) {
  CliRun ok = run("validate -v " + data("skinned.iqe"));
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("skinned.iqe: valid (0 errors, 0 warnings)"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("1 file: 1 valid, 0 warned, 0 invalid, 0 skipped in "), std::string::npos) << ok.out;
  CliRun bad = run("validate " + data("skinned.iqe") + " " + data("badindex.iqe"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("badindex.iqe:6:8: error: face index 7"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("badindex.iqe: invalid (1 errors, 0 warnings)"), std::string::npos) << bad.out;
}

TEST(Cli, ValidateStrictCountsWarnings) {
  TempDir t;
  { std::ofstream(t / "hdr.iqe") << "#Inter-Quake Export\nmesh m\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n"; }
  CliRun lax = run("validate " + (t / "hdr.iqe"));
  EXPECT_EQ(lax.status, 0) << lax.out;
  EXPECT_NE(lax.out.find("hdr.iqe:1:1: warning: the header should be \"# Inter-Quake Export\""), std::string::npos)
      << lax.out;
  CliRun strict = run("validate --strict " + (t / "hdr.iqe"));
  EXPECT_EQ(strict.status, 1) << strict.out;
}

// ---- processing flags (issue 3) -------------------------------------------------------------

namespace {

std::string flat_info(const std::string& path) {
  CliRun i = run("info --json " + path);
  std::string flat;
  for (char ch : i.out)
    if (ch != ' ' && ch != '\n') flat += ch;
  return flat;
}

}  // namespace

TEST(CliProcess, NormalsAreGeneratedWhereMissing) {
  REQUIRE_CORPUS();
  TempDir t;
  std::string in = testutil::corpus("iqm/edge-cases/smooth.iqe");
  ASSERT_EQ(run("convert " + in + " -o " + (t / "s.iqm")).status, 0);
  std::string j = flat_info(t / "s.iqm");
  EXPECT_NE(j.find("\"attributes\":[\"position\",\"normal\"]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"vertices\":4"), std::string::npos) << j;  // smoothed: the shared edge welds
  ASSERT_EQ(run("convert --smooth-angle 0 " + in + " -o " + (t / "f.iqm")).status, 0);
  EXPECT_NE(flat_info(t / "f.iqm").find("\"vertices\":6"), std::string::npos);  // faceted
  ASSERT_EQ(run("convert --no-normals " + in + " -o " + (t / "n.iqm")).status, 0);
  EXPECT_NE(flat_info(t / "n.iqm").find("\"attributes\":[\"position\"]"), std::string::npos);
}

TEST(CliProcess, TangentsForTexturedMeshes) {
  TempDir t;
  ASSERT_EQ(run("convert " + data("skinned.iqe") + " -o " + (t / "h.iqm")).status, 0);
  std::string j = flat_info(t / "h.iqm");
  EXPECT_NE(j.find("\"position\",\"texcoord\",\"normal\",\"tangent\""), std::string::npos) << j;
  ASSERT_EQ(run("convert --no-tangents " + data("skinned.iqe") + " -o " + (t / "n.iqm")).status, 0);
  EXPECT_EQ(flat_info(t / "n.iqm").find("\"tangent\""), std::string::npos);
}

TEST(CliProcess, TransformsMoveTheBounds) {
  TempDir t;
  // the hinge: Scene bounds x -0.5..0.5, y 0..2, z 0
  ASSERT_EQ(run("convert --scale 2 --translate 1,0,0 " + data("skinned.iqe") + " -o " + (t / "a.iqm")).status, 0);
  EXPECT_NE(flat_info(t / "a.iqm").find("\"bounds\":{\"max\":[2.0,4.0,0.0],\"min\":[0.0,0.0,0.0]}"),
            std::string::npos)
      << flat_info(t / "a.iqm");
  // 90 degrees about X takes +Y to +Z
  CliRun r = run("convert --rotate=90,0,0 " + data("skinned.iqe") + " -o " + (t / "b.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  std::string j = flat_info(t / "b.iqm");
  EXPECT_NE(j.find("\"max\":[0.5,"), std::string::npos) << j;
  EXPECT_NE(j.find(",2.0]"), std::string::npos) << j;
  EXPECT_NE(run("convert --scale 0 " + data("skinned.iqe") + " -o " + (t / "c.iqm")).status, 0);
  EXPECT_FALSE(fs::exists(t / "c.iqm"));
  EXPECT_NE(run("convert --rotate 1,2 " + data("skinned.iqe") + " -o " + (t / "d.iqm")).status, 0);
}

TEST(CliProcess, FlipsOptimizeAndWeldRun) {
  TempDir t;
  for (const char* flag : {"--flip-v", "--flip-winding", "--optimize", "--weld", "--recompute-normals",
                           "--recompute-tangents"}) {
    CliRun r = run(std::string("convert ") + flag + " " + data("skinned.iqe") + " -o " + (t / "x.iqe"));
    EXPECT_EQ(r.status, 0) << flag << ": " << r.out;
    EXPECT_NE(flat_info(t / "x.iqe").find("\"triangles\":4"), std::string::npos) << flag;
  }
}

TEST(Cli, InfoJsonHasSkinnedAnimationBounds) {
  // bend turns the tip joint 45 degrees about the file's X axis: the top vertices swing to
  // Scene z = sin 45 (file y = -sin 45), and the farthest vertex stays sqrt(0.25 + 4) away.
  std::string j = flat_info(data("skinned.iqe"));
  EXPECT_NE(j.find("\"bounds\":{\"max\":[0.5,2.0,0.7071068],\"min\":[-0.5,0.0,0.0],\"radius\":2.0615528}"),
            std::string::npos)
      << j;
}

TEST(CliGltf, MrfixitToGlbAndBackKeepsCounts) {
  REQUIRE_CORPUS();
  TempDir t;
  std::string in = testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm");
  ASSERT_EQ(run("convert " + in + " -o " + (t / "m.glb")).status, 0);
  ASSERT_EQ(run("convert " + (t / "m.glb") + " -o " + (t / "m.iqm")).status, 0);
  ASSERT_EQ(run("convert " + in + " -o " + (t / "m.gltf")).status, 0);
  EXPECT_TRUE(fs::exists(t / "m.bin"));
  for (const char* f : {"m.glb", "m.iqm", "m.gltf"}) {
    std::string j = flat_info(t / f);
    EXPECT_NE(j.find("\"vertices\":1861"), std::string::npos) << f;
    EXPECT_NE(j.find("\"triangles\":2988"), std::string::npos) << f;
    EXPECT_NE(j.find("\"joints\":75"), std::string::npos) << f;
    EXPECT_NE(j.find("\"frames\":101,\"interpolation\":\"linear\",\"loop\":false,\"name\":\"idle\""), std::string::npos) << f << j.substr(0, 400);
  }
}

TEST(CliGltf, ObjRoundTripThroughGlb) {
  REQUIRE_CORPUS();
  TempDir t;
  ASSERT_EQ(run("convert " + testutil::corpus("iqm/edge-cases/tri.obj") + " -o " + (t / "tri.glb")).status, 0);
  ASSERT_EQ(run("convert " + (t / "tri.glb") + " -o " + (t / "tri.obj")).status, 0);
  std::string j = flat_info(t / "tri.obj");
  EXPECT_NE(j.find("\"triangles\":1"), std::string::npos) << j;
  EXPECT_NE(j.find("\"vertices\":3"), std::string::npos) << j;
}

}  // namespace meshport_test_cli
