// IQE read on several threads (src/formats/iqe/iqe_chunks.cpp): the Scene and the diagnostics are
// exactly those of the serial read, on generated text with irregular lines, on the corpus, and
// for errors far into a file.
#include <gtest/gtest.h>

#include <meshport/meshport.h>

#include "core/io.h"
#include "corpus.h"
#include "formats/iqe/iqe.h"
#include "formats/iqe/iqe_chunks.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

namespace meshport_test_iqe_parallel {

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

// The serial reader reads most lines' numbers from byte masks of the whole line
// (text_window.h), which needs 72 bytes of text from the numbers on; near the end of the text it
// reads them one by one. Each line here, read both ways (last in the file, then with comment
// lines after it), gives the same Scene, the same diagnostics and the same error, at the same
// line and column.
TEST(IqeParallel, LineScannerAndOneByOneReadingAgree) {
  const std::string head =
      "# Inter-Quake Export\nmesh \"m\"\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\nvt 0 0\nvn 0 0 1\n";
  const std::string padding = "# " + std::string(100, '.') + "\n# " + std::string(100, '7') + "\n";
  for (const char* line :
       {"vp 1 2x 3", "vb 1.5 1", "vb -1 0.5", "vb 16777217 1", "fm 0 1", "fm 0 1 x", "vn 1 +-2 3", "vb 0 0.5 1",
        "vp 1e40 0 0", "vp +1 2 3", "fm 0 1 2 3", "fm -1 -2 -3", "fa 0 1 2", "vb 0 0.5 1 0 2 0.5", "vp 1 2 3 4 5 6",
        "vx 1 0 0 0 1 0", "vx 1 0 0 -1", "vp 0.123456789 1 2", "vt 1.5#comment", "vp -0 -.5 5.", "fm 0 1 99",
        "vb 0 1 1 0.25 2 0.25 3 0.125 4 0.125 5 0.0625 6 0.0625 7 0.03125 8 0.03125 9 0.5 10 0.5 11 0.5",
        "fm 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 0", "\tvp  1\t2 \v3\r"}) {
    SCOPED_TRACE(line);
    const std::string last = head + line + "\n";
    const Outcome near_end = read_with(last, 1, 1 << 20);
    const Outcome scanned = read_with(last + padding, 1, 1 << 20);
    EXPECT_EQ(scanned.error, near_end.error);
    EXPECT_EQ(scanned.diagnostics, near_end.diagnostics);
    EXPECT_TRUE(same_scene(scanned.scene, near_end.scene));
  }
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
  REQUIRE_CORPUS();
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

// Lines whose meaning depends on the reader's state, among plain lines of every common command:
// vertices before the first mesh, a vertexarray after a mesh's first vp (a warning at the next
// vp), blend lists that grow (the mesh's arrays are widened), zero weights, vx with 3, 4 and 6
// values, a filled-in marker, custom arrays, a face before its vertices (checked at the end),
// negative and polygon faces, CR LF, and a last line without LF.
TEST(IqeParallel, LinesThatDependOnTheReadersStateGiveTheSameResult) {
  std::string s = "# Inter-Quake Export\njoint \"a\" -1\npq 0 0 0 0 0 0 1\njoint \"b\" 0\npq 0 0 1 0 0 0 1\n";
  s += "vp 9 9 9\nvp 8 8 8\nvp 7 7 7\nfa 0 1 2\n";
  s += "vertexarray custom0 float 2 \"heat\"\n";
  for (int m = 0; m < 3; ++m) {
    s += "mesh \"m" + std::to_string(m) + "\"\n# meshport filled: vc\n";
    for (int i = 0; i < 40; ++i) {
      const std::string f = std::to_string(i * 0.25);
      s += "vp " + f + " 1 " + std::to_string(m) + "\r\n\tvt " + f + " 0.5\n\tvn 0 0 1\n";
      s += "\tvx 1 0 0" + std::string(i % 3 == 0 ? " -1" : i % 3 == 1 ? " 0 1 0" : "") + "\n";
      if (i < 10) s += "\tvb 0 1\n";
      else if (i < 20) s += "\tvb 0 0.5 1 0 1 0.5\n";
      else s += "\tvb 1 0.25 0 0.25 1 0.5\n";
      s += "\tvc 0.5 0.5 0.5 1\n\tv0 " + f + " 2\n";
      if (m == 1 && i == 5) s += "vertexarray normal float 3\n";
      if (i >= 2) s += "fm " + std::to_string(i) + " " + std::to_string(i - 1) + " -3\n";
      if (i == 7) s += "fa 10000000 1 2\n";
      if (i == 9) s += "fm 0 1 2 3 4\n# a comment\n\n   \n";
    }
  }
  s += "mesh \"tail\"\nvp 1 2 3\nvp 1 2 3\nvp 1 2 3\nfm 0 1 2";  // no LF at the end
  const std::string ok = std::string(s).replace(s.find("fa 10000000"), 11, "fa 00000001");
  for (const std::string& text : {s, ok}) {
    const Outcome serial = read_with(text, 1, 1 << 20);
    if (&text == &ok) {
      ASSERT_EQ(serial.error, "");
      ASSERT_EQ(serial.scene.meshes.size(), 5u);
      EXPECT_EQ(serial.scene.meshes[1].vertex_count(), 40u);
      EXPECT_EQ(serial.scene.meshes[4].vertex_count(), 3u);
      EXPECT_FALSE(serial.diagnostics.empty());  // the vertexarray after the mesh's first vn
    } else {
      EXPECT_NE(serial.error.find("face index 10000000 out of range"), std::string::npos) << serial.error;
    }
    expect_same_reads(text, {1, 50, 300, 1 << 16});
  }
}

// The chunks come back in file order, whole lines each, their lines counted, on any number of
// threads and with a consumer that stops early.
TEST(IqeParallel, ChunkPipelineHandsBackEveryLineInOrder) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += i % 10 == 0 ? "mesh \"x\"\n" : i % 10 == 1 ? "\n" : "vp 1 2 3\nfa 0 1 2\n";
  const size_t lines = size_t(std::count(text.begin(), text.end(), '\n'));
  for (unsigned threads : {1u, 2u, 3u, 4u})
    for (size_t chunk : {size_t(1), size_t(100), size_t(5000), size_t(1) << 20}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, chunk " + std::to_string(chunk));
      iqe::ChunkPipeline pipe(text.data(), text.data() + text.size(), threads, chunk);
      size_t seen = 0, serial = 0, parsed = 0;
      const char* expect = text.data();
      while (const iqe::PreChunk* c = pipe.next()) {
        for (const iqe::PreLine& l : c->lines) {
          EXPECT_GE(l.begin, expect);
          expect = l.begin + 1;
          EXPECT_EQ(size_t(std::count(static_cast<const char*>(text.data()), l.begin, '\n')), seen + l.line);
          (l.kind == iqe::LineKind::Serial ? serial : parsed) += 1;
        }
        seen += c->line_count;
      }
      EXPECT_EQ(seen, lines);
      EXPECT_EQ(serial, 300u);
      EXPECT_EQ(parsed, 2u * 2400u);
      EXPECT_EQ(pipe.next(), nullptr);
      iqe::ChunkPipeline early(text.data(), text.data() + text.size(), threads, chunk);
      ASSERT_NE(early.next(), nullptr);  // destroyed with chunks still being parsed
    }
}

namespace {

// Resident kB of the mapping holding `p`, from /proc/self/smaps (-1 when not found).
long resident_kb(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's first line
      inside = uintptr_t(p) >= lo && uintptr_t(p) < hi;
      continue;
    }
    long kb = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kb) == 1) return kb;
  }
  return -1;
}

}  // namespace

// The parallel reader drops the pages of a mapped file it has read (ReadThreads::drop_read_pages):
// they leave memory, and reading them again gives the file's bytes.
TEST(IqeParallel, DroppedPagesOfAMappedFileLeaveMemoryAndReadBackTheSame) {
  const auto path = std::filesystem::temp_directory_path() / "meshport_drop_pages.bin";
  std::string bytes(1 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char('a' + i % 23);
  {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
  }
  const io::FileBytes file = io::read_file_bytes(path.string(), 1);
  std::filesystem::remove(path);
  ASSERT_TRUE(file.mapped());
  const char* begin = reinterpret_cast<const char*>(file.bytes().data());
  EXPECT_EQ(std::string(begin, bytes.size()), bytes);  // every page touched
  EXPECT_GE(resident_kb(begin), 1000);
  iqe::drop_pages(begin, begin + bytes.size());
  EXPECT_LE(resident_kb(begin), 4);
  EXPECT_EQ(std::string(begin, bytes.size()), bytes);
}

}  // namespace meshport_test_iqe_parallel
