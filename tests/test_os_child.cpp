// The viewer's part of the operating-system interface (src/core/os.h): a child process joined by a
// stream on its descriptors 3 and 4 (Chromium's DevTools pipe for `meshport thumbnail`), ended
// when it does not exit, and a private temporary folder. POSIX only: Windows refuses start_piped.
#include "core/os.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <string>

namespace meshport_test_os_child {

namespace {

using Clock = std::chrono::steady_clock;

std::string read_all(int stream) {
  std::string got;
  char buffer[256];
  for (long long n; (n = meshport::os::read(stream, buffer, sizeof buffer)) > 0;) got.append(buffer, size_t(n));
  return got;
}

}  // namespace

// The child reads descriptor 3 and writes descriptor 4: what we send comes back, NUL bytes too,
// and its standard output goes nowhere (not into our stream).
TEST(OsChild, TheStreamIsTheChildsDescriptors3And4) {
  meshport::os::PipedChild child;
  ASSERT_EQ(meshport::os::start_piped({"sh", "-c", "echo to-stdout; head -c 9 <&3 >&4; printf done >&4"}, child), 0);
  ASSERT_GT(child.id, 0);
  ASSERT_GE(child.stream, 0);
  const std::string message("ping\0pong", 9);
  EXPECT_EQ(meshport::os::send(child.stream, message.data(), message.size()), 9);
  EXPECT_EQ(read_all(child.stream), message + "done");  // 0 at the end: the child closed both
  meshport::os::end_child(child, 10);
  EXPECT_EQ(child.id, -1);
  EXPECT_EQ(meshport::os::close(child.stream), 0);
}

// A child that does not exit is killed once the time is up; sending to a child gone is EPIPE,
// never SIGPIPE (which would end this process).
TEST(OsChild, AChildThatDoesNotExitIsKilled) {
  meshport::os::PipedChild child;
  ASSERT_EQ(meshport::os::start_piped({"sleep", "60"}, child), 0);
  const auto t0 = Clock::now();
  meshport::os::end_child(child, 0.2);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_LT(seconds, 30);
  EXPECT_GE(seconds, 0.2);
  EXPECT_EQ(child.id, -1);
  EXPECT_EQ(meshport::os::send(child.stream, "x", 1), -1);
  EXPECT_EQ(errno, EPIPE);
  meshport::os::close(child.stream);
}

// A program that cannot be run: the child exits at once (127), the stream ends.
TEST(OsChild, AMissingProgramEndsTheStream) {
  meshport::os::PipedChild child;
  ASSERT_EQ(meshport::os::start_piped({"/nonexistent/meshport-no-such-program"}, child), 0);
  EXPECT_EQ(read_all(child.stream), "");
  meshport::os::end_child(child, 10);
  meshport::os::close(child.stream);
  EXPECT_EQ(meshport::os::start_piped({}, child), EINVAL);
  EXPECT_EQ(child.id, -1);
}

// A new folder each time, the prefix's name with 6 characters after it, readable by its owner only.
TEST(OsChild, TemporaryFolders) {
  const std::string prefix = (std::filesystem::temp_directory_path() / "meshport-os-test-").string();
  const std::string a = meshport::os::create_temporary_folder(prefix);
  const std::string b = meshport::os::create_temporary_folder(prefix);
  ASSERT_EQ(a.size(), prefix.size() + 6);
  EXPECT_EQ(a.substr(0, prefix.size()), prefix);
  EXPECT_NE(a, b);
  EXPECT_TRUE(std::filesystem::is_directory(a));
  EXPECT_EQ(std::filesystem::status(a).permissions(), std::filesystem::perms::owner_all);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  EXPECT_EQ(meshport::os::create_temporary_folder("/nonexistent/folder/x-"), "");
  EXPECT_EQ(errno, ENOENT);
}

}  // namespace meshport_test_os_child
