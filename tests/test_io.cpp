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
