// Files the fuzzers found problems with (tests/hostile/README.md): each must read or fail with a
// meshport::Error, and whatever reads must write and read again.
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace meshport;

namespace {

const fs::path kHostile = fs::path(MESHPORT_TEST_DATA).parent_path() / "hostile";

}  // namespace

TEST(HostileFuzz, RegressionFilesReadWriteRead) {
  size_t files = 0;
  for (const auto& dir : fs::directory_iterator(kHostile / "fuzz")) {
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      SCOPED_TRACE(entry.path().string());
      ++files;
      const std::string path = entry.path().string();
      const auto format = format_from_path(path);
      ASSERT_TRUE(format.has_value());
      const std::string text = testutil::slurp(entry.path());
      const std::vector<uint8_t> bytes(text.begin(), text.end());
      Scene first;
      try {
        first = read_memory(bytes, *format, path);
      } catch (const Error&) {
        continue;  // a clean error is a right answer
      }
      std::vector<uint8_t> written;
      try {
        written = write_memory(first, *format);
      } catch (const Error&) {
        continue;  // the writer refused, with a message
      }
      Scene second;
      ASSERT_NO_THROW(second = read_memory(written, *format, "rewritten"));
      EXPECT_EQ(second.meshes.size(), first.meshes.size());
      // The formats the round-trip fuzz targets hold to identical bytes on a rewrite.
      const Format lossless[] = {Format::Iqe,    Format::Iqm,          Format::Pie,         Format::QmshTmp,
                                 Format::Qmsh,   Format::ModeDefModel, Format::ModeDefPath};
      if (std::find(std::begin(lossless), std::end(lossless), *format) != std::end(lossless)) {
        EXPECT_EQ(write_memory(second, *format), written);
      }
    }
  }
  EXPECT_GE(files, 1u);
}

// The IQM the adjacency step failed on: a mesh with no triangles beside one with triangles.
TEST(HostileFuzz, IqmMeshWithoutTrianglesGetsAdjacency) {
  const std::string text = testutil::slurp(kHostile / "fuzz/iqm/adjacency-empty-mesh.iqm");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Iqm, "adjacency-empty-mesh.iqm");
  std::vector<uint8_t> out = write_memory(s, Format::Iqm);
  Scene back = read_memory(out, Format::Iqm, "back.iqm");
  EXPECT_EQ(write_memory(back, Format::Iqm), out);
}
