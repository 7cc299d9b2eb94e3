// Issue 16: a conversion to the input's own format with no processing flag adds, drops and
// changes nothing the source did not lack for its own format. Default normals and tangents are
// for other formats only.
#include "test_util.h"

#include <meshport/meshport.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

namespace meshport_test_same_format {

using namespace meshport;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> files_in(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().string().ends_with(ext)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint8_t> bytes_of(const std::string& path) {
  const std::string s = testutil::slurp(path);
  return {s.begin(), s.end()};
}

// The attributes each mesh has, in order.
std::vector<std::set<Attribute>> attribute_sets(const Scene& s) {
  std::vector<std::set<Attribute>> out;
  for (const Mesh& m : s.meshes) {
    std::set<Attribute> a;
    for (const VertexStream& st : m.streams) a.insert(st.attribute);
    out.push_back(a);
  }
  return out;
}

// Converts `in` to a file of the same name in `dir` with default options; returns its path.
std::string rewrite(const testutil::TempDir& dir, const std::string& in) {
  const std::string out = dir / fs::path(in).filename().string();
  Diagnostics d;
  convert({in}, out, {}, &d);
  return out;
}

}  // namespace

TEST(SameFormat, TfqmshSamplesRewriteByteForByte) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const auto files = files_in(testutil::corpus("qmsh"), ".qmsh");
  ASSERT_EQ(files.size(), 16u);
  for (const std::string& f : files) {
    const std::string out = rewrite(dir, f);
    EXPECT_TRUE(bytes_of(out) == bytes_of(f)) << f;
  }
}

TEST(SameFormat, QmshTmpRewriteIsTheSameText) {
  testutil::TempDir dir;
  for (const char* name : {"cube", "skinned", "minimal", "curves", "materials16"}) {
    const std::string in = std::string(MESHPORT_TEST_DATA) + "/qmsh/" + name + ".qmsh.tmp";
    const std::string out = rewrite(dir, in);
    // The text comes back as written, but for its comment lines, which the grammar drops.
    std::string want, line;
    std::istringstream lines(testutil::slurp(in));
    while (std::getline(lines, line))
      if (!line.starts_with("//")) want += line + "\n";
    EXPECT_TRUE(testutil::slurp(out) == want) << name;
    EXPECT_TRUE(read(out) == read(in)) << name;
  }
}

TEST(SameFormat, ModeDefModelRewriteIsTheSameText) {
  testutil::TempDir dir;
  for (const char* name : {"full", "bar", "no-carton", "one-based", "fend-exclusive"}) {
    const std::string in = std::string(MESHPORT_TEST_DATA) + "/modedef/" + name + ".model";
    const std::string out = rewrite(dir, in);
    // The printer writes its own layout (no comments, shortest floats), so the Scene is compared.
    const Scene a = read(in), b = read(out);
    ASSERT_TRUE(a.modedef && b.modedef) << name;
    EXPECT_TRUE(a == b) << name;
  }
}

// Formats whose files may lack normals or tangents: a same-format rewrite adds neither.
TEST(SameFormat, NoNormalsOrTangentsAdded) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& f : files_in(testutil::corpus("pie"), ".pie")) inputs.emplace_back(f, ".pie");
  for (const auto& f : files_in(testutil::corpus("iqm/edge-cases"), ".iqe")) inputs.emplace_back(f, ".iqe");
  inputs.emplace_back(testutil::corpus("iqm/lsalzman-iqm/mrfixit.iqm"), ".iqm");
  inputs.emplace_back(std::string(MESHPORT_TEST_DATA) + "/obj/polygons.obj", ".obj");
  ASSERT_GT(inputs.size(), 40u);
  size_t without_normals = 0;
  for (const auto& [in, ext] : inputs) {
    Diagnostics d;
    Scene a;
    try {
      a = read(in, {}, &d);
    } catch (const Error&) {
      continue;  // the edge cases include files meshport rightly refuses
    }
    for (const auto& set : attribute_sets(a)) without_normals += !set.contains(Attribute::Normal);
    std::string out;
    try {
      out = rewrite(dir, in);
    } catch (const Error& e) {
      ADD_FAILURE() << in << ": " << e.what();
      continue;
    }
    EXPECT_EQ(attribute_sets(read(out)), attribute_sets(a)) << in;
  }
  EXPECT_GT(without_normals, 10u);  // the check has something to check
}

// Explicit flags still act on a same-format rewrite; other formats still get the defaults.
TEST(SameFormat, FlagsAndOtherFormatsStillGenerate) {
  testutil::TempDir dir;
  const std::string in = std::string(MESHPORT_TEST_DATA) + "/obj/polygons.obj";
  ASSERT_EQ(read(in).meshes[0].find(Attribute::Normal), nullptr);
  ConvertOptions o;
  o.process.normals = Generate::Missing;
  convert({in}, dir / "a.obj", o);
  EXPECT_NE(read(dir / "a.obj").meshes[0].find(Attribute::Normal), nullptr);
  convert({in}, dir / "b.iqe");
  EXPECT_NE(read(dir / "b.iqe").meshes[0].find(Attribute::Normal), nullptr);
  ConvertOptions angle;
  angle.process.normal.angle = 30;
  convert({in}, dir / "c.obj", angle);
  EXPECT_NE(read(dir / "c.obj").meshes[0].find(Attribute::Normal), nullptr);
  const auto cli = testutil::run_cli(fmt::format("convert {} -o {} --normals --no-normals", in, dir / "d.obj"));
  EXPECT_NE(cli.status, 0);
  EXPECT_NE(cli.out.find("excludes"), std::string::npos) << cli.out;
}

// Kept whole-file data (.qmsh.tmp text, TFQMSH10 values) is used only while the Scene is what the
// reader made of it: every processing flag has a visible effect, with a warning that the kept
// data was not used.
TEST(SameFormat, ProcessingFlagsChangeQmshTmpOutput) {
  testutil::TempDir dir;
  const std::string in = std::string(MESHPORT_TEST_DATA) + "/qmsh/cube.qmsh.tmp";
  ConvertOptions o;
  o.process.transform.scale = 2;
  o.process.flip_winding = true;
  o.process.optimize = true;
  Diagnostics d;
  convert({in}, dir / "cube.qmsh.tmp", o, &d);
  const Scene src = read(in), out = read(dir / "cube.qmsh.tmp");
  bool warned = false;
  for (const Diagnostic& x : d.items) warned |= x.message.find("not from the kept text") != std::string::npos;
  EXPECT_TRUE(warned);
  // Twice the size, and the same number of triangles.
  const Bounds a = scene_bounds(src), b = scene_bounds(out);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(b.max[c] - b.min[c], 2 * (a.max[c] - a.min[c]), 1e-4f) << c;
  }
  size_t ta = 0, tb = 0;
  for (const Mesh& m : src.meshes) ta += m.triangles.size();
  for (const Mesh& m : out.meshes) tb += m.triangles.size();
  EXPECT_EQ(ta, tb);
  // Without flags the kept text is written, without a warning.
  Diagnostics quiet;
  convert({in}, dir / "same.qmsh.tmp", {}, &quiet);
  EXPECT_TRUE(quiet.items.empty());
  EXPECT_NE(testutil::slurp(dir / "cube.qmsh.tmp"), testutil::slurp(dir / "same.qmsh.tmp"));
}

TEST(SameFormat, ProcessingFlagsChangeTfqmshOutput) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const std::string in = testutil::corpus("qmsh/Gem.qmsh");
  ConvertOptions o;
  o.process.transform.scale = 2;
  Diagnostics d;
  convert({in}, dir / "Gem.qmsh", o, &d);
  bool warned = false;
  for (const Diagnostic& x : d.items) warned |= x.message.find("the Scene changed since it was read") != std::string::npos;
  EXPECT_TRUE(warned);
  const Bounds a = scene_bounds(read(in)), b = scene_bounds(read(dir / "Gem.qmsh"));
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(b.max[c], 2 * a.max[c], 1e-5f * (1 + std::fabs(a.max[c]))) << c;
}

}  // namespace meshport_test_same_format
