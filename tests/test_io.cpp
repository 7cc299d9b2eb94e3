// Atomic output: a failed write never leaves a partial file or clobbers an existing one.
#include <meshport/meshport.h>

#include "io.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using testutil::slurp;
using testutil::TempDir;
using namespace meshport;

namespace {

}  // namespace

TEST(Io, AtomicWriteReplacesFileAndLeavesNoTemporary) {
  TempDir t;
  fs::path out = t.path / "a.bin";
  std::vector<uint8_t> one{1, 2, 3};
  io::write_file_atomic(out.string(), one);
  std::vector<uint8_t> two{9, 8};
  io::write_file_atomic(out.string(), two);
  EXPECT_EQ(slurp(out), std::string("\x09\x08", 2));
  size_t files = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(t.path)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(Io, WriteIntoMissingFolderFailsCleanly) {
  TempDir t;
  fs::path out = t.path / "no" / "such" / "x.iqm";
  std::vector<uint8_t> data{1};
  try {
    io::write_file_atomic(out.string(), data);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, "cannot create output: No such file or directory");
    EXPECT_EQ(e.diagnostic().file, out.string());
  }
}

TEST(Io, ReadMissingFileIsAnError) {
  try {
    io::read_file("/nonexistent/meshport.iqe");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/meshport.iqe: error: cannot open: No such file or directory");
  }
}

TEST(Io, ReadDirectoryIsAnError) {
  TempDir t;
  EXPECT_THROW(io::read_file(t.path.string()), Error);
}

TEST(Io, FailedWriteKeepsExistingDestination) {
  // A Scene that cannot be written (unknown format from the name) must leave the file as it was.
  TempDir t;
  fs::path out = t.path / "keep.unknown";
  { std::ofstream(out) << "precious"; }
  Scene s;
  EXPECT_THROW(meshport::write(s, out.string()), Error);
  EXPECT_EQ(slurp(out), "precious");
}

TEST(Io, SideFilesInSubfoldersCreateThemAndStayInside) {
  TempDir t;
  const std::string main = (t.path / "scene.state").string();
  std::vector<OutputFile> files(3);
  files[0].bytes = {'m'};
  files[1].name = "props/deep/ball.prop";
  files[1].bytes = {'p'};
  files[2].name = "tri.model";
  files[2].bytes = {'t'};
  io::write_files_atomic(main, files);
  EXPECT_EQ(slurp(t.path / "props/deep/ball.prop"), "p");
  EXPECT_EQ(slurp(t.path / "tri.model"), "t");
  EXPECT_EQ(slurp(main), "m");

  // Escaping the folder is refused before anything is written, and folders made are removed.
  TempDir u;
  const std::string main2 = (u.path / "scene.state").string();
  std::vector<OutputFile> bad(3);
  bad[0].bytes = {'m'};
  bad[1].name = "made/here.prop";
  bad[1].bytes = {'p'};
  bad[2].name = "../outside.path";
  bad[2].bytes = {'x'};
  EXPECT_THROW(io::write_files_atomic(main2, bad), Error);
  EXPECT_FALSE(fs::exists(u.path / "made"));
  EXPECT_FALSE(fs::exists(u.path.parent_path() / "outside.path"));
  EXPECT_TRUE(fs::is_empty(u.path));
  bad[2].name = "/tmp/absolute.path";
  EXPECT_THROW(io::write_files_atomic(main2, bad), Error);
  EXPECT_TRUE(fs::is_empty(u.path));
}
