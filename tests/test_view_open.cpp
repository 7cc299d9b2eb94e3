// `meshport view --open`: the address it prints is given to the desktop's browser opener
// (xdg-open, found in PATH: src/core/os_posix.cpp's open_browser), and a missing opener is a
// warning naming the address to open by hand, the server running all the same.
#include "test_util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include <sys/wait.h>

namespace meshport_test_view_open {

namespace {

using testutil::CliRun;
using testutil::TempDir;

// The CLI with PATH set to `path`: status, stdout and stderr together.
CliRun run_with_path(const std::string& path, const std::string& args) {
  CliRun r;
  FILE* p = ::popen(("PATH='" + path + "' " + MESHPORT_CLI + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

std::string model_path() { return std::string(MESHPORT_TEST_DATA) + "/cli/turret.pie"; }

}  // namespace

TEST(ViewOpen, GivesThePrintedAddressToTheBrowserOpener) {
  TempDir dir;
  const std::string opened = dir / "opened";
  {
    std::ofstream script(dir / "xdg-open");
    script << "#!/bin/sh\nprintf '%s|%s' \"$#\" \"$1\" > '" << opened << ".part' && mv '" << opened << ".part' '"
           << opened << "'\n";
  }
  std::filesystem::permissions(dir / "xdg-open", std::filesystem::perms::owner_all);
  const CliRun r = run_with_path(dir.path.string() + ":/usr/bin:/bin", "view --open --timeout 1 -q " + model_path());
  EXPECT_EQ(r.status, 0) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("^http://127\\.0\\.0\\.1:([0-9]+)/\n"))) << r.out;
  EXPECT_EQ(r.out, m.str(0) + "meshport view: stopped (timeout)\n");
  // The opener runs on its own (nothing waits for it): its file comes within a few seconds.
  for (int i = 0; i < 100 && !std::filesystem::exists(opened); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(testutil::slurp(opened), "1|http://127.0.0.1:" + m.str(1) + "/");
}

TEST(ViewOpen, AMissingOpenerIsAWarningAndTheServerRuns) {
  TempDir dir;  // an empty PATH folder: no xdg-open anywhere
  const CliRun r = run_with_path(dir.path.string(), "view --open --timeout 1 -q " + model_path());
  EXPECT_EQ(r.status, 0) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("^http://127\\.0\\.0\\.1:[0-9]+/"))) << r.out;
  EXPECT_EQ(r.out, m.str(0) + "\nmeshport view: warning: cannot open a browser (No such file or directory): open " +
                       m.str(0) + " yourself\nmeshport view: stopped (timeout)\n");
}

// Without --open nothing is started: the opener's file is never written.
TEST(ViewOpen, NothingOpenedWithoutTheOption) {
  TempDir dir;
  {
    std::ofstream script(dir / "xdg-open");
    script << "#!/bin/sh\ntouch '" << (dir / "opened") << "'\n";
  }
  std::filesystem::permissions(dir / "xdg-open", std::filesystem::perms::owner_all);
  const CliRun r = run_with_path(dir.path.string() + ":/usr/bin:/bin", "view --timeout 1 -q " + model_path());
  EXPECT_EQ(r.status, 0) << r.out;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(std::filesystem::exists(dir / "opened"));
}

}  // namespace meshport_test_view_open
