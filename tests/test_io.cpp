// Atomic output: a failed write never leaves a partial file or clobbers an existing one.
#include <meshport/meshport.h>

#include "core/io.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace meshport_test_io {

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

// read_file_bytes: mapped at or above the threshold, read below it, the same bytes either way;
// an empty file, a missing file and a folder as read_file gives them.
TEST(Io, ReadFileBytesMapsLargeFilesWithTheSameBytes) {
  TempDir t;
  fs::path p = t.path / "a.bin";
  std::string text;
  for (int i = 0; i < 10000; ++i) text += char('a' + i % 26);
  { std::ofstream(p, std::ios::binary) << text; }
  const io::FileBytes mapped = io::read_file_bytes(p.string(), 10000);
  const io::FileBytes read = io::read_file_bytes(p.string(), 10001);
  EXPECT_TRUE(mapped.mapped());
  EXPECT_FALSE(read.mapped());
  EXPECT_EQ(std::string(mapped.bytes().begin(), mapped.bytes().end()), text);
  EXPECT_EQ(std::string(read.bytes().begin(), read.bytes().end()), text);
  io::FileBytes moved = io::read_file_bytes(p.string(), 1);
  io::FileBytes target = std::move(moved);
  EXPECT_FALSE(moved.mapped());
  EXPECT_EQ(moved.bytes().size(), 0u);
  EXPECT_EQ(std::string(target.bytes().begin(), target.bytes().end()), text);
  fs::path empty = t.path / "empty.bin";
  { std::ofstream(empty, std::ios::binary); }
  EXPECT_EQ(io::read_file_bytes(empty.string(), 0).bytes().size(), 0u);
  try {
    io::read_file_bytes("/nonexistent/meshport.iqe", 0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/meshport.iqe: error: cannot open: No such file or directory");
  }
  EXPECT_THROW(io::read_file_bytes(t.path.string(), 0), Error);
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

namespace {

// Files in `dir`, by name.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Runs `job` in a child process; returns its exit code (or 128 + signal).
int in_child(const std::function<int()>& job) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 99;
    try {
      code = job();
    } catch (...) {
      code = 98;
    }
    std::_Exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs `write` in a child process whose files may not grow past `bytes` (SIGXFSZ ignored, so the
// write fails with EFBIG partway, as it would with ENOSPC): 0 when it fails with the error for
// `out`, "File too large"; 1 when it succeeds, 2 on another error.
int write_past_file_size_limit(rlim_t bytes, const fs::path& out, const std::function<void()>& write) {
  return in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{bytes, bytes};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    try {
      write();
    } catch (const Error& e) {
      return e.what() == out.string() + ": error: cannot write output: File too large" ? 0 : 2;
    }
    return 1;
  });
}

std::string shell(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = ::pclose(p);
  return out + "[exit " + std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : 128) + "]";
}

}  // namespace

// The main file's rename fails (a folder has its name) after the side files were renamed into
// place: they are removed again, with the folder made for one of them, except one that replaced
// a file already there; nothing else is left.
TEST(Io, FailedMainRenameRemovesTheSideFilesRenamed) {
  TempDir t;
  const std::string main = (t.path / "scene.gltf").string();
  fs::create_directories(main);
  {
    std::ofstream kept(t.path / "page.png");  // there before: replaced, then kept
    kept << 'o';
  }
  std::vector<OutputFile> files(4);
  files[0].bytes = {'m'};
  files[1].name = "scene.bin";
  files[1].bytes = {'b'};
  files[2].name = "textures/skin.png";
  files[2].bytes = {'p'};
  files[3].name = "page.png";
  files[3].bytes = {'n'};
  try {
    io::write_files_atomic(main, files);
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().file, main);
    EXPECT_NE(std::string(e.what()).find("cannot write output"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(t.path / "scene.bin"));
  EXPECT_FALSE(fs::exists(t.path / "textures"));
  EXPECT_TRUE(fs::is_directory(main));
  EXPECT_TRUE(fs::is_empty(main));
  EXPECT_EQ(slurp(t.path / "page.png"), "n");
  size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(t.path))
    entries += entry.path() != fs::path(main) && entry.path() != t.path / "page.png";
  EXPECT_EQ(entries, 0u);  // no temporary left either
}

// A disk that fills up in the middle of a write (a file-size limit makes write() fail with EFBIG
// partway, as ENOSPC would): a clear error, the old file kept, no temporary left behind.
TEST(Io, DiskFullMidWriteKeepsDestinationAndLeavesNoTemporary) {
  TempDir t;
  const fs::path out = t.path / "model.iqm";
  { std::ofstream(out) << "precious"; }
  const int code = write_past_file_size_limit(
      4096, out, [&] { io::write_file_atomic(out.string(), std::vector<uint8_t>(100000, 7)); });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"model.iqm"});
}

// The same through the CLI: non-zero exit, the message, the destination untouched.
TEST(Io, CliDiskFullKeepsDestination) {
  TempDir t;
  const fs::path out = t.path / "tentacle.iqm";
  { std::ofstream(out) << "precious"; }
  const std::string example = fs::path(MESHPORT_TEST_DATA).parent_path().parent_path() / "examples/tentacle.iqe";
  const std::string got = shell("sh -c \"trap '' XFSZ; ulimit -f 8; exec " + std::string(MESHPORT_CLI) + " convert " +
                                example + " -o " + out.string() + "\" 2>&1");
  EXPECT_NE(got.find(out.string() + ": error: cannot write output: File too large"), std::string::npos) << got;
  EXPECT_NE(got.find("[exit 1]"), std::string::npos) << got;
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"tentacle.iqm"});
}

// Standard output on a full device.
TEST(Io, CliStdoutOnFullDevice) {
  const std::string example = fs::path(MESHPORT_TEST_DATA).parent_path().parent_path() / "examples/tentacle.iqe";
  const std::string got =
      shell(std::string(MESHPORT_CLI) + " convert " + example + " --to iqm -o - 2>&1 >/dev/full");
  EXPECT_EQ(got, "<stdout>: error: cannot write output: No space left on device\n[exit 1]");
}

// A folder the user may not write to (as root, the child becomes `nobody` first, since root may
// write anywhere): a clear error and the existing file kept.
TEST(Io, UnwritableFolderIsAClearError) {
  TempDir t;
  const fs::path dir = t.path / "locked";
  fs::create_directories(dir);
  const fs::path out = dir / "model.iqm";
  { std::ofstream(out) << "precious"; }
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const int code = in_child([&] {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) return 3;
    std::vector<uint8_t> data(10, 1);
    try {
      io::write_file_atomic(out.string(), data);
    } catch (const Error& e) {
      return e.what() == out.string() + ": error: cannot create output: Permission denied" ? 0 : 2;
    }
    return 1;
  });
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(listing(dir), std::vector<std::string>{"model.iqm"});
}

namespace {

// A 1.28 MB IQM: 40,000 vertices (positions, normals, texture coordinates) in strips, big enough
// to be encoded straight into its output file (io::MappedFile).
Scene large_iqm_scene() {
  Scene s;
  Mesh m;
  m.name = "strip";
  const uint32_t n = 40000;
  std::vector<float> pos, nrm, uv;
  for (uint32_t i = 0; i < n; ++i) {
    pos.insert(pos.end(), {float(i / 2), float(i % 2), float(i % 7) * 0.25f});
    nrm.insert(nrm.end(), {0, 0, 1});
    uv.insert(uv.end(), {float(i) / n, float(i % 2)});
  }
  for (uint32_t i = 0; i + 2 < n; ++i) m.triangles.insert(m.triangles.end(), {i, i + 1 + i % 2, i + 2 - i % 2});
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, nrm));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, uv));
  s.meshes.push_back(std::move(m));
  return s;
}

}  // namespace

// A large IQM written to a file is encoded in place, in its temporary file: the same bytes as
// written to memory, readable by all (0644), and nothing else left in the folder.
TEST(Io, LargeIqmEncodedInPlaceIsTheFileWrittenToMemory) {
  TempDir t;
  const Scene s = large_iqm_scene();
  const std::vector<uint8_t> memory = write_memory(s, Format::Iqm);
  ASSERT_GE(memory.size(), size_t(1) << 20);
  const fs::path out = t.path / "strip.iqm";
  { std::ofstream(out) << "old"; }
  write(s, out.string());
  EXPECT_EQ(slurp(out), std::string(memory.begin(), memory.end()));
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"strip.iqm"});
}

// io::MappedFile itself: zero-filled, renamed into place once finished, removed when abandoned.
TEST(Io, MappedFileIsRenamedWhenFinishedAndRemovedWhenAbandoned) {
  TempDir t;
  const fs::path out = t.path / "m.bin";
  std::shared_ptr<io::MappedFile> f = io::MappedFile::create(out.string(), 3 << 20);
  ASSERT_NE(f, nullptr) << "the temporary folder's file system cannot allocate ahead";
  std::span<uint8_t> b = f->bytes();
  ASSERT_EQ(b.size(), size_t(3) << 20);
  EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](uint8_t c) { return c == 0; }));
  b[0] = 'M';
  b[b.size() - 1] = 'Z';
  EXPECT_TRUE(listing(t.path).empty());  // unnamed while written (O_TMPFILE)
  const std::string tmp = f->finish(true);
  ASSERT_EQ(listing(t.path), std::vector<std::string>{fs::path(tmp).filename().string()});
  EXPECT_TRUE(fs::path(tmp).filename().string().starts_with(".m.bin.tmp-")) << tmp;
  EXPECT_EQ(fs::path(tmp).parent_path(), t.path);
  fs::rename(tmp, out);
  f.reset();  // finished: the file stays
  const std::string got = slurp(out);
  ASSERT_EQ(got.size(), size_t(3) << 20);
  EXPECT_EQ(got.front(), 'M');
  EXPECT_EQ(got.back(), 'Z');
  EXPECT_EQ(got.find_first_not_of('\0', 1), got.size() - 1);

  std::shared_ptr<io::MappedFile> g = io::MappedFile::create(out.string(), 2 << 20);
  ASSERT_NE(g, nullptr);
  g->bytes()[5] = 1;
  g.reset();  // never finished: removed
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"m.bin"});
  EXPECT_EQ(slurp(out), got);
}

// A large mapped file (16 MB and more) is unmapped on a thread while it is flushed, and that
// thread drops the cached pages of the file it will replace: both leave every byte as it was,
// the old file's until the rename, the new one's after.
TEST(Io, LargeMappedFileFinishedOverAnExistingFileKeepsBothIntact) {
  TempDir t;
  const fs::path out = t.path / "big.bin";
  const std::string old(size_t(5) << 20, 'o');
  { std::ofstream(out, std::ios::binary) << old; }
  std::shared_ptr<io::MappedFile> f = io::MappedFile::create(out.string(), size_t(20) << 20);
  ASSERT_NE(f, nullptr) << "the temporary folder's file system cannot allocate ahead";
  std::span<uint8_t> b = f->bytes();
  for (size_t i = 0; i < b.size(); i += 4096) b[i] = uint8_t(i >> 12);
  const std::string tmp = f->finish(true);
  EXPECT_EQ(slurp(out), old);  // not replaced yet, its cache dropped: the same bytes
  fs::rename(tmp, out);
  f.reset();
  const std::string got = slurp(out);
  ASSERT_EQ(got.size(), size_t(20) << 20);
  for (size_t i = 0; i < got.size(); i += 4096) ASSERT_EQ(uint8_t(got[i]), uint8_t(i >> 12)) << i;
  EXPECT_EQ(got[1], '\0');
}

// A process killed while it writes its output (a second Ctrl-C, a kill): its temporary file has
// no name yet, so nothing is left beside the old file. Written through write(): the file-size
// limit's signal, left at its default, kills the child in the middle of the write. Mapped: the
// child kills itself with the file half filled.
TEST(Io, KilledWhileWritingLeavesNothing) {
  TempDir t;
  const fs::path out = t.path / "model.iqm";
  { std::ofstream(out) << "precious"; }
  const int written = in_child([&] {
    rlimit none{0, 0}, lim{4096, 4096};
    ::setrlimit(RLIMIT_CORE, &none);
    ::setrlimit(RLIMIT_FSIZE, &lim);
    io::write_file_atomic(out.string(), std::vector<uint8_t>(100000, 7));
    return 1;
  });
  EXPECT_EQ(written, 128 + SIGXFSZ);
  const int mapped = in_child([&] {
    std::shared_ptr<io::MappedFile> f = io::MappedFile::create(out.string(), 2 << 20);
    if (!f) return 1;
    std::fill(f->bytes().begin(), f->bytes().begin() + (1 << 20), uint8_t(9));
    ::raise(SIGKILL);
    return 2;
  });
  EXPECT_EQ(mapped, 128 + SIGKILL);
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"model.iqm"});
}

// A disk too small for a large IQM: the error comes when its temporary file is allocated, before
// anything is encoded; the old file is kept and no temporary is left behind.
TEST(Io, DiskFullForLargeIqmKeepsDestinationAndLeavesNoTemporary) {
  TempDir t;
  const fs::path out = t.path / "strip.iqm";
  { std::ofstream(out) << "precious"; }
  const Scene s = large_iqm_scene();
  const int code = write_past_file_size_limit(1 << 20, out, [&] { write(s, out.string()); });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"strip.iqm"});
}

// A writer that fails after it was given its mapped file (the IQM writer refuses a still
// animation that a file this size cannot justify to a reader; the 1 MiB extension makes the
// file large enough to be mapped): the error, the old file kept, no temporary left.
TEST(Io, WriterFailingInItsMappedFileLeavesNoTemporary) {
  TempDir t;
  const fs::path out = t.path / "still.iqm";
  { std::ofstream(out) << "precious"; }
  Scene s = testutil::still_animation(800000);  // 32 MB of poses against 12 x 1 MiB + 16 MiB
  s.iqm.emplace().extensions.push_back({"padding", std::vector<uint8_t>(size_t(1) << 20, 7)});
  try {
    write(s, out.string());
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the animations hold 800000 poses, mostly still"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(listing(t.path), std::vector<std::string>{"still.iqm"});
}

}  // namespace meshport_test_io
