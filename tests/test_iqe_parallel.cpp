// IQE read on several threads (src/formats/iqe_chunks.cpp): the Scene and the diagnostics are
// exactly those of the serial read, on generated text with irregular lines, on the corpus, and
// for errors far into a file.
#include <gtest/gtest.h>

#include <meshport/meshport.h>

#include "formats/iqe.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

using namespace meshport;

namespace {

// What one read gives: the Scene, or the error; and every diagnostic, as text.
struct Outcome {
  Scene scene;
  std::string error;
  std::vector<std::string> diagnostics;
};

Outcome read_with(const std::string& text, unsigned threads, size_t chunk_bytes) {
  iqe::ReadThreads t;
  t.threads = threads;
  t.min_bytes = 0;
  t.chunk_bytes = chunk_bytes;
  Outcome o;
  Diagnostics d;
  try {
    o.scene = iqe::read(text, "gen.iqe", d, t);
  } catch (const Error& e) {
    o.error = e.what();
  }
  for (const Diagnostic& x : d.items) o.diagnostics.push_back(x.to_string());
  return o;
}

// Equal Scenes; a Scene with NaN values (which never compare equal) is compared by its
// fingerprint and its IQE text instead.
bool same_scene(const Scene& a, const Scene& b) {
  if (a == b) return true;
  Diagnostics d;
  return content_fingerprint(a) == content_fingerprint(b) && iqe::write(a, d) == iqe::write(b, d);
}

// Serial and parallel reads (several thread counts and chunk sizes, down to a few lines a
// chunk) agree in everything.
void expect_same_reads(const std::string& text, std::initializer_list<size_t> chunks = {200, 1 << 16}) {
  const Outcome serial = read_with(text, 1, 1 << 20);
  for (unsigned threads : {2u, 3u, 4u})
    for (size_t chunk : chunks) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", chunk " + std::to_string(chunk));
      const Outcome parallel = read_with(text, threads, chunk);
      EXPECT_EQ(parallel.error, serial.error);
      EXPECT_EQ(parallel.diagnostics, serial.diagnostics);
      EXPECT_TRUE(same_scene(parallel.scene, serial.scene));
    }
}

// A skinned grid per mesh with fa and fm faces (negative indices, quads), and in `odd` mode
// lines the parse ahead leaves to the reader: '+' signs, numbers beyond float range, tiny
// numbers, a blend index without a weight, more than 4 values, comments, CR LF.
std::string generated(int meshes, int side, bool odd) {
  std::string s = "# Inter-Quake Export\njoint \"root\" -1\npq 0 0 0 0 0 0 1\njoint \"arm\" 0\npq 0 0 1 0 0 0 1\n";
  uint32_t first = 0;
  for (int m = 0; m < meshes; ++m) {
    s += "mesh \"m" + std::to_string(m) + "\"\nmaterial \"mat" + std::to_string(m % 2) + "\"\n";
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        const int i = y * side + x;
        s += "vp " + std::to_string(x * 0.125 + m) + " " + std::to_string(y * 0.37) + " 0.1234567\n";
        s += "\tvt " + std::to_string(x / double(side)) + " " + std::to_string(y / double(side)) + "\n";
        s += "\tvn 0 0 1 # normal\n";
        s += "\tvb 0 " + std::to_string(1 - i % 7 / 10.0) + " 1 " + std::to_string(i % 7 / 10.0) + "\n";
        if (odd && i % 5 == 1) s += "\tvc +0.5 1e-45 2.5e+3 1 7 8\r\n";
        else if (odd && i % 5 == 3) s += "\tvc 1e39 0.25\n";
        else s += "\tvc 0.5 0.25 1\n";
      }
    for (int y = 0; y + 1 < side; ++y)
      for (int x = 0; x + 1 < side; ++x) {
        const uint32_t a = uint32_t(y * side + x), b = a + 1, c = a + uint32_t(side), d = c + 1;
        if ((x + y) % 3 == 0)
          s += "fa " + std::to_string(first + a) + " " + std::to_string(first + b) + " " + std::to_string(first + d) +
               " " + std::to_string(first + c) + "\n";
        else
          s += "fm " + std::to_string(a) + " " + std::to_string(d) + " " + std::to_string(c) + "\nfm " +
               std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(d) + "\n";
      }
    if (odd) s += "vp 0 0 0\n\tvt 0 0\n\tvn 0 0 1\n\tvb 1\n\tvc 1 1 1\nfm -1 -2 -3\nfm +0 1 2\n";
    first += uint32_t(side * side) + (odd ? 1 : 0);
  }
  s += "animation \"a\"\nframe\npq 0 0 0 0 0 0 1\npq 0 0 1 0 0 0 1\n";
  return s;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(IqeParallel, GeneratedModelIsReadTheSame) {
  const std::string text = generated(3, 12, false);
  const Outcome serial = read_with(text, 1, 1 << 20);
  ASSERT_EQ(serial.error, "");
  ASSERT_EQ(serial.scene.meshes.size(), 3u);
  EXPECT_EQ(serial.scene.meshes[0].vertex_count(), 144u);
  expect_same_reads(text);
}

TEST(IqeParallel, LinesLeftToTheReaderGiveTheSameWarnings) {
  const std::string text = generated(4, 9, true);
  const Outcome serial = read_with(text, 1, 1 << 20);
  ASSERT_EQ(serial.error, "");
  ASSERT_FALSE(serial.diagnostics.empty());  // beyond float range, blend index without a weight
  expect_same_reads(text);
}

// A malformed number, a bad blend index, a short face and a face past the last vertex, each far
// into a file: the same error at the same line and column.
TEST(IqeParallel, ErrorsFarIntoAFileHaveTheSameLocation) {
  const std::string body = generated(6, 20, false);
  const size_t cut = body.find("mesh \"m5\"");
  ASSERT_NE(cut, std::string::npos);
  for (std::string bad : {"vp 1 2x 3\n", "vb 1.5 1\n", "fm 0 1\n", "fa 0 1 999999\n", "vn 1 +-2 3\n"}) {
    SCOPED_TRACE(bad);
    const std::string text = body.substr(0, cut) + "vp 0 0 0\n" + bad + body.substr(cut);
    const Outcome serial = read_with(text, 1, 1 << 20);
    ASSERT_NE(serial.error, "");
    EXPECT_NE(serial.error.find("gen.iqe:"), std::string::npos);
    expect_same_reads(text, {4096});
  }
  const std::string text = body.substr(0, cut) + "vp 1 2x 3\n" + body.substr(cut);
  const size_t line = size_t(std::count(text.begin(), text.begin() + long(cut), '\n')) + 1;
  EXPECT_EQ(read_with(text, 4, 64).error, "gen.iqe:" + std::to_string(line) + ":6: error: malformed number \"2x\"");
}

TEST(IqeParallel, CommentCommandEndsTheCommandsInAnyWindow) {
  std::string text = generated(2, 10, false);
  text.insert(text.find("mesh \"m1\""), "comment\nvp 1 2 3\nnot a command\n");
  const Outcome serial = read_with(text, 1, 1 << 20);
  ASSERT_EQ(serial.error, "");
  EXPECT_EQ(serial.scene.meshes.size(), 1u);
  EXPECT_NE(serial.scene.comment.find("not a command"), std::string::npos);
  expect_same_reads(text);
}

TEST(IqeParallel, CorpusIsReadTheSame) {
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(MESHPORT_CORPUS)) {
    if (e.path().extension() != ".iqe") continue;
    SCOPED_TRACE(e.path().string());
    const std::string text = read_text(e.path());
    const Outcome serial = read_with(text, 1, 1 << 20);
    for (unsigned threads : {2u, 4u}) {
      const Outcome parallel = read_with(text, threads, 2048);
      EXPECT_EQ(parallel.error, serial.error);
      EXPECT_EQ(parallel.diagnostics, serial.diagnostics);
      EXPECT_TRUE(same_scene(parallel.scene, serial.scene));
    }
    ++files;
  }
  EXPECT_GE(files, 10u);
}

// Through the public API: a file above the 4 MB threshold read with ReadOptions::threads 1 and 2.
TEST(IqeParallel, ReadOptionsThreadsGiveTheSameScene) {
  const std::string text = generated(4, 170, false);
  ASSERT_GT(text.size(), size_t(4) << 20);
  const auto path = std::filesystem::temp_directory_path() / "meshport_iqe_parallel.iqe";
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  ReadOptions one, two;
  one.threads = 1;
  two.threads = 2;
  const Scene a = read(path.string(), one), b = read(path.string(), two);
  std::filesystem::remove(path);
  ASSERT_EQ(a.meshes.size(), 4u);
  EXPECT_EQ(a.meshes[3].vertex_count(), 170u * 170u);
  EXPECT_TRUE(a == b);
}
