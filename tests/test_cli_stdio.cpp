// Standard input and output (`-`) for every format that is a single file (issue 8).
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace meshport_test_cli_stdio {

namespace {

using namespace meshport;
using testutil::CliRun;
using testutil::TempDir;

const std::string kData = MESHPORT_TEST_DATA;
const std::string kSkinned = kData + "/cli/skinned.iqe";

size_t vertices(const Scene& s) {
  size_t n = 0;
  for (const Mesh& m : s.meshes) n += m.vertex_count();
  return n;
}

}  // namespace

// skinned.iqe -> stdout in each format -> a file; the file reads back, and reading it again
// through stdin gives the same Scene.
TEST(CliStdio, EverySingleFileFormatThroughStdoutAndStdin) {
  TempDir t;
  const Scene source = read(kSkinned);
  const struct {
    const char* name;
    const char* ext;
  } formats[] = {{"iqe", ".iqe"}, {"iqm", ".iqm"},       {"gltf", ".gltf"},     {"glb", ".glb"},
                 {"obj", ".obj"}, {"qmsh", ".qmsh"},     {"qmsh-tmp", ".qmsh.tmp"}, {"modedef-model", ".model"}};
  for (const auto& f : formats) {
    SCOPED_TRACE(f.name);
    const std::string out = t / (std::string("out") + f.ext);
    CliRun r = testutil::run_cli(std::string("convert - --from iqe -o - --to ") + f.name + " -q < '" + kSkinned +
                                 "' | cat > '" + out + "'");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out, "");  // nothing but the model on stdout, and no diagnostics with -q
    const Scene written = read(out);
    EXPECT_EQ(written.meshes.size() > 0, true);
    EXPECT_GE(vertices(written), vertices(source) / 2);
    // Back through stdin, to IQE on stdout.
    const std::string back = t / (std::string("back-") + f.name + ".iqe");
    r = testutil::run_cli(std::string("convert - --from ") + f.name + " -o - --to iqe -q < '" + out + "' | cat > '" +
                          back + "'");
    ASSERT_EQ(r.status, 0) << r.out;
    Scene again = read(back);
    EXPECT_EQ(again.meshes.size(), written.meshes.size());
    EXPECT_EQ(vertices(again), vertices(written));
  }
}

TEST(CliStdio, LosslessFormatsAreByteIdenticalToFileOutput) {
  TempDir t;
  for (const char* to : {"iqm", "iqe", "glb"}) {
    SCOPED_TRACE(to);
    const std::string file = t / (std::string("file.") + to), piped = t / (std::string("piped.") + to);
    ASSERT_EQ(testutil::run_cli("convert '" + kSkinned + "' -o '" + file + "' -q").status, 0);
    ASSERT_EQ(testutil::run_cli("convert '" + kSkinned + "' -o - --to " + to + " -q | cat > '" + piped + "'").status, 0);
    EXPECT_EQ(testutil::slurp(file), testutil::slurp(piped));
  }
}

TEST(CliStdio, InfoReadsStdin) {
  CliRun r = testutil::run_cli("info - --from iqe --json < '" + kSkinned + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"format\": \"iqe\""), std::string::npos) << r.out;
}

TEST(CliStdio, Errors) {
  TempDir t;
  // The format cannot be told from "-".
  CliRun r = testutil::run_cli("convert - -o '" + (t / "x.iqm") + "' < '" + kSkinned + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("<stdin>: error: reading standard input needs its format (--from)"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t / "x.iqm"));
  // With stdout redirected, the run's stdout and stderr both land in `log`: only the error.
  const std::string log = t / "log";
  r = testutil::run_cli("convert '" + kSkinned + "' -o - > '" + log + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(testutil::slurp(log), "<stdout>: error: writing standard output needs its format (--to)\n");
  // Formats that write several files.
  r = testutil::run_cli("convert '" + kData + "/modedef/state/scene.state' -o - --to modedef-state > '" + log + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(testutil::slurp(log), "<stdout>: error: modedef-state writes 5 files; standard output holds one\n");
  // Warnings of a write to standard output name it.
  r = testutil::run_cli("convert '" + kData + "/modedef/bar.model' -o - --to obj > '" + log + "'");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(testutil::slurp(log).find("morph targets are not written: obj has no morph targets"), std::string::npos);
  // Bad input on stdin is located at <stdin>.
  r = testutil::run_cli("convert - --from iqe -o '" + (t / "y.iqm") + "' < '" + kData + "/cli/badindex.iqe'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("<stdin>:"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t / "y.iqm"));
}

}  // namespace meshport_test_cli_stdio
