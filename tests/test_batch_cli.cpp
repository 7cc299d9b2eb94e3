// `meshport batch`, `validate` over trees and `merge-reports` from the command line: progress on
// a pipe and on a pseudo-terminal, interrupting, exit codes, reports, shards from the
// environment.
#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

namespace meshport_test_batch_cli {

namespace fs = std::filesystem;
using testutil::CliRun;
using testutil::run_cli;
using testutil::TempDir;

namespace {

const fs::path kCli = fs::path(MESHPORT_TEST_DATA) / "cli";

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// A PIE 3 model of `n` separate triangles (large enough to take a few milliseconds).
std::string big_pie(int n) {
  std::string s = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 256 256\nLEVELS 1\nLEVEL 1\nPOINTS " + std::to_string(3 * n) + "\n";
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) s += "\t" + std::to_string(i % 97 + k) + " " + std::to_string(i / 97) + " " + std::to_string(k * i % 13) + "\n";
  s += "POLYGONS " + std::to_string(n) + "\n";
  for (int i = 0; i < n; ++i)
    s += "\t200 3 " + std::to_string(3 * i) + " " + std::to_string(3 * i + 1) + " " + std::to_string(3 * i + 2) +
         " 0 0 0.5 0 0.5 0.5\n";
  return s;
}

// `n` PIE models in folders of 10 (copies of the CLI test turret, or of `model` when given), and
// one broken IQE.
void make_tree(const fs::path& root, int n, const std::string& model = {}) {
  for (int i = 0; i < n; ++i) {
    const fs::path p = root / ("d" + std::to_string(i / 10)) / ("m" + std::to_string(i) + ".pie");
    fs::create_directories(p.parent_path());
    if (model.empty()) fs::copy_file(kCli / "turret.pie", p);
    else std::ofstream(p, std::ios::binary) << model;
    // The texture pages they name, beside them.
    for (const char* page : {"page-17-droid-weapons.png", "page-1.png"})
      fs::copy_file(fs::path(MESHPORT_TEST_DATA) / "images/rgba.png", p.parent_path() / page,
                    fs::copy_options::skip_existing);
  }
  fs::create_directories(root / "broken");
  fs::copy_file(kCli / "badindex.iqe", root / "broken/bad.iqe");
}

// Runs the CLI with argv on a pseudo-terminal (its stdout and stderr); `on_output` sees the
// output so far and may send a signal. Returns the exit status (128 + signal if killed).
int run_on_pty(const std::vector<std::string>& args, std::string& output,
               const std::function<void(pid_t, const std::string&)>& on_output = {}, unsigned short columns = 100) {
  int master = -1;
  winsize ws{};
  ws.ws_col = columns;
  ws.ws_row = 30;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &ws);
  if (pid < 0) return -1;
  if (pid == 0) {
    std::vector<char*> argv;
    std::string exe = MESHPORT_CLI;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  char buf[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      const ssize_t n = read(master, buf, sizeof buf);
      if (n <= 0) break;  // EIO: the child closed the terminal
      output.append(buf, size_t(n));
      if (on_output) on_output(pid, output);
    }
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::set<std::string> files_below(const fs::path& root) {
  std::set<std::string> s;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) s.insert(e.path().lexically_relative(root).generic_string());
  return s;
}

}  // namespace

TEST(BatchCli, PipeGetsPlainProgressLinesAndTheSummary) {
  TempDir t;
  make_tree(t.path / "in", 12);
  const CliRun r = run_cli("batch " + q(t.path / "in") + " -o " + q(t.path / "out") +
                           " --to glb -j 2 --progress-interval 0 --report " + q(t.path / "r.json"));
  EXPECT_EQ(r.status, 1) << r.out;  // one file failed
  // No terminal: no bar, no escape codes; a line per finished file (interval 0) but the last.
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\033["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("progress: 1/13 8%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("progress: 12/13 92%"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("progress: 13/13"), std::string::npos) << r.out;
  // The failure, whole: its diagnostic, then its status line.
  const std::string bad = (t.path / "in/broken/bad.iqe").string();
  EXPECT_NE(r.out.find(bad + ":6:8: error: face index 7 out of range: fm counts from this mesh's first vertex, and there are 3\n" + bad + " -> " +
                       (t.path / "out/broken/bad.glb").string() + ": failed (1 errors, 0 warnings)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("13 files: 12 converted, 0 warned, 1 failed, 0 skipped in "), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(testutil::slurp(t.path / "r.json"));
  EXPECT_EQ(j["summary"]["files"], 13);
  EXPECT_EQ(j["summary"]["failed"], 1);
  EXPECT_EQ(j["items"].size(), 13u);

  // Again: everything converted is up to date; the broken file fails again.
  const CliRun again = run_cli("batch " + q(t.path / "in") + " -o " + q(t.path / "out") + " --to glb");
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.out.find("13 files: 0 converted, 0 warned, 1 failed, 12 skipped in "), std::string::npos)
      << again.out;
  fs::remove_all(t.path / "in/broken");
  const CliRun clean = run_cli("batch " + q(t.path / "in") + " -o " + q(t.path / "out") + " --to glb");
  EXPECT_EQ(clean.status, 0) << clean.out;
  EXPECT_NE(clean.out.find("12 files: 0 converted, 0 warned, 0 failed, 12 skipped in "), std::string::npos)
      << clean.out;
}

TEST(BatchCli, TerminalGetsABarRedrawnInPlace) {
  TempDir t;
  make_tree(t.path / "in", 30);
  std::string out;
  const int status = run_on_pty({"batch", (t.path / "in").string(), "-o", (t.path / "out").string(), "--to", "glb",
                                 "-j", "1"},
                                out);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("\r\033[K["), std::string::npos) << out;  // the bar, drawn over itself
  EXPECT_NE(out.find("files/s, ETA "), std::string::npos) << out;
  EXPECT_EQ(out.find("progress: "), std::string::npos) << out;  // no plain lines
  // The bar is cleared before the summary, which stands on its own line.
  EXPECT_NE(out.find("\r\033[K31 files: 30 converted, 0 warned, 1 failed, 0 skipped in "), std::string::npos) << out;
  // No bar line is wider than the terminal (100 columns).
  size_t pos = 0;
  while ((pos = out.find("\r\033[K[", pos)) != std::string::npos) {
    pos += 4;
    const size_t end = out.find_first_of("\r\n", pos);
    EXPECT_LT((end == std::string::npos ? out.size() : end) - pos, 100u);
  }
}

// On an 80-column terminal the current file stays readable: the bar narrows and the path is
// shortened from the left, keeping the file name (it was cut to about 7 characters of the path).
TEST(BatchCli, NarrowTerminalKeepsTheFileName) {
  TempDir t;
  make_tree(t.path / "in", 30);
  std::string out;
  run_on_pty({"batch", (t.path / "in").string(), "-o", (t.path / "out").string(), "--to", "glb", "-j", "1"}, out, {},
             80);
  size_t pos = 0, named = 0;
  while ((pos = out.find("\r\033[K", pos)) != std::string::npos) {
    pos += 4;
    const size_t end = out.find_first_of("\r\n", pos);
    const std::string line = out.substr(pos, (end == std::string::npos ? out.size() : end) - pos);
    // Bar lines only ("[###...] 12/31 38% ..." or, without the bar, "12/31 38% ..."): not the
    // diagnostics and the summary printed after clearing it.
    if (line.empty() || !(line[0] == '[' || std::isdigit(static_cast<unsigned char>(line[0]))) ||
        line.find('%') == std::string::npos)
      continue;
    EXPECT_LT(line.size(), 80u) << line;
    const size_t m = line.find("/m");
    if (line.find("ETA") != std::string::npos && m != std::string::npos && line.find(".pie", m) != std::string::npos)
      ++named;
  }
  EXPECT_GT(named, 0u) << out;
}

TEST(BatchCli, InterruptLeavesNoPartialFiles) {
  TempDir t;
  make_tree(t.path / "in", 400, big_pie(3000));
  std::string out;
  bool sent = false;
  const int status = run_on_pty({"batch", (t.path / "in").string(), "-o", (t.path / "out").string(), "--to", "iqe",
                                 "-j", "2", "--progress", "lines", "--progress-interval", "0", "--report",
                                 (t.path / "r.json").string()},
                                out, [&](pid_t pid, const std::string& so_far) {
                                  if (!sent && so_far.find("progress: 20/") != std::string::npos) {
                                    kill(pid, SIGINT);
                                    sent = true;
                                  }
                                });
  ASSERT_TRUE(sent) << out;
  EXPECT_EQ(status, 130) << out;
  EXPECT_NE(out.find("interrupted: finishing the files in progress"), std::string::npos) << out;
  EXPECT_NE(out.find("(interrupted)"), std::string::npos) << out;
  // Every file in the output folder is a whole model (no temporary or truncated files), and
  // fewer than all were written.
  const std::set<std::string> files = files_below(t.path / "out");
  size_t models = 0;
  for (const std::string& f : files) {
    if (f == ".meshport-batch" || fs::path(f).extension() == ".png") continue;  // the stamp, copied pages
    ASSERT_EQ(fs::path(f).extension(), ".iqe") << f;
    if (models++ % 10 == 0) {  // one in ten read back whole
      const CliRun check = run_cli("validate " + q(t.path / "out" / f));
      EXPECT_EQ(check.status, 0) << f << ": " << check.out;
    }
  }
  EXPECT_GE(models, 19u);  // 20 finished when the signal went, one of them the broken file
  EXPECT_LT(models, 400u);
  // The report says which were not started.
  const nlohmann::json j = nlohmann::json::parse(testutil::slurp(t.path / "r.json"));
  EXPECT_EQ(j["summary"]["cancelled"], true);
  EXPECT_EQ(j["summary"]["converted"].get<size_t>() + j["summary"]["warned"].get<size_t>(), models);
  EXPECT_EQ(j["summary"]["skipped"].get<size_t>() + j["summary"]["failed"].get<size_t>() + models, 401u);
}

TEST(BatchCli, ValidateTreeJsonAndExitCodes) {
  TempDir t;
  make_tree(t.path / "in", 3);
  const CliRun r = run_cli("validate --json " + q(t.path / "in"));
  EXPECT_EQ(r.status, 1);
  const size_t brace = r.out.find('{');
  ASSERT_NE(brace, std::string::npos) << r.out;
  const size_t end = r.out.rfind('}');
  const nlohmann::json j = nlohmann::json::parse(r.out.substr(brace, end - brace + 1));
  EXPECT_EQ(j["task"], "validate");
  EXPECT_EQ(j["summary"]["valid"], 3);
  EXPECT_EQ(j["summary"]["invalid"], 1);
  EXPECT_EQ(j["items"][0]["status"], "invalid");
  EXPECT_EQ(j["items"][0]["diagnostics"][0]["line"], 6);
  fs::remove_all(t.path / "in/broken");
  const CliRun ok = run_cli("validate " + q(t.path / "in"));
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("3 files: 3 valid, 0 warned, 0 invalid, 0 skipped in "), std::string::npos) << ok.out;
}

// Sets environment variables for the CLI runs of one test (each test runs in its own process),
// clearing the other scheduler's.
struct SchedulerEnv {
  explicit SchedulerEnv(const std::vector<std::pair<const char*, std::string>>& vars) {
    clear();
    for (const auto& [n, v] : vars) setenv(n, v.c_str(), 1);
  }
  ~SchedulerEnv() { clear(); }
  static void clear() {
    for (const char* n : {"JOB_COMPLETION_INDEX", "MESHPORT_SHARD_COUNT", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN",
                          "SLURM_ARRAY_TASK_COUNT"})
      unsetenv(n);
  }
};

TEST(BatchCli, ShardsFromKubernetesAndSlurmMergeIntoTheWholeReport) {
  TempDir t;
  make_tree(t.path / "in", 25);
  const std::string common = "batch " + q(t.path / "in") + " -o " + q(t.path / "out") + " --to pie --shard auto";
  std::vector<std::string> reports;
  for (int k = 0; k < 3; ++k) {
    const std::string report = (t.path / ("k" + std::to_string(k) + ".json")).string();
    SchedulerEnv env({{"JOB_COMPLETION_INDEX", std::to_string(k)}, {"MESHPORT_SHARD_COUNT", "3"}});
    const CliRun r = run_cli(common + " --report '" + report + "'");
    EXPECT_NE(r.out.find("shard " + std::to_string(k) + "/3: "), std::string::npos) << r.out;
    reports.push_back(report);
  }
  const CliRun merged = run_cli("merge-reports '" + reports[0] + "' '" + reports[1] + "' '" + reports[2] + "' -o " +
                                q(t.path / "all.json"));
  EXPECT_EQ(merged.status, 1) << merged.out;  // the broken file failed in its shard
  EXPECT_NE(merged.out.find("26 files: 25 converted, 0 warned, 1 failed, 0 skipped"), std::string::npos) << merged.out;
  const nlohmann::json all = nlohmann::json::parse(testutil::slurp(t.path / "all.json"));
  EXPECT_EQ(all["items"].size(), 26u);
  // Slurm array task ids 1..3 (MIN 1) give the same shards.
  size_t total = 0;
  for (int id = 1; id <= 3; ++id) {
    SchedulerEnv env({{"SLURM_ARRAY_TASK_ID", std::to_string(id)}, {"SLURM_ARRAY_TASK_MIN", "1"},
                      {"SLURM_ARRAY_TASK_COUNT", "3"}});
    run_cli(common + " --force --report " + q(t.path / "s.json"));
    const nlohmann::json s = nlohmann::json::parse(testutil::slurp(t.path / "s.json"));
    const nlohmann::json k = nlohmann::json::parse(testutil::slurp(reports[size_t(id - 1)]));
    ASSERT_EQ(s["items"].size(), k["items"].size()) << id;
    for (size_t i = 0; i < s["items"].size(); ++i) EXPECT_EQ(s["items"][i]["relative"], k["items"][i]["relative"]);
    total += s["items"].size();
  }
  EXPECT_EQ(total, 26u);
  // A missing shard is refused.
  const CliRun partial = run_cli("merge-reports '" + reports[0] + "' '" + reports[1] + "'");
  EXPECT_EQ(partial.status, 1);
  EXPECT_NE(partial.out.find("shards 2 of 3 are missing"), std::string::npos) << partial.out;
  // No scheduler in the environment: a clear error.
  SchedulerEnv none_set({});
  const CliRun none = run_cli(common);
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.out.find("neither a Kubernetes Indexed Job"), std::string::npos) << none.out;
}

TEST(BatchCli, ValidateReadsStandardInput) {
  const CliRun ok = run_cli("validate - --from pie < '" + (kCli / "turret.pie").string() + "'");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("1 file: 1 valid, 0 warned, 0 invalid, 0 skipped"), std::string::npos) << ok.out;
  const CliRun bad = run_cli("validate - < '" + (kCli / "turret.pie").string() + "'");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("-: error: standard input: give its format with --from"), std::string::npos) << bad.out;
}

// Strict means "the engine would refuse or misdraw it": a level above the PIE 2/3 specification's
// 512 polygons, which Warzone 2100 4.x draws, is valid under --strict (a note, named as the
// specification's limit), and one above the engine's 8192 is not.
TEST(BatchCli, StrictValidateAcceptsWhatTheEngineDraws) {
  TempDir t;
  std::ofstream(t.path / "big.pie", std::ios::binary) << big_pie(600);
  fs::copy_file(fs::path(MESHPORT_TEST_DATA) / "images/rgba.png", t.path / "page-1.png");
  const CliRun ok = run_cli("validate --strict " + q(t.path / "big.pie"));
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find("1 file: 1 valid, 0 warned, 0 invalid, 0 skipped"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("note: POLYGONS 600: more than 512, the limit of the PIE 2/3 specification (Warzone 2100's "
                        "doc/PIE.md)"),
            std::string::npos)
      << ok.out;
  std::ofstream(t.path / "huge.pie", std::ios::binary) << big_pie(8193);
  const CliRun bad = run_cli("validate --strict " + q(t.path / "huge.pie"));
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("POLYGONS 8193: more than 8192 polygons in a level"), std::string::npos) << bad.out;
}

TEST(BatchCli, HelpDescribesEveryCommand) {
  for (const char* cmd : {"batch", "validate", "merge-reports"}) {
    const CliRun r = run_cli(std::string(cmd) + " --help");
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_NE(r.out.find("--"), std::string::npos) << r.out;
  }
  const CliRun b = run_cli("batch --help");
  for (const char* opt : {"--jobs", "--fail-fast", "--keep-going", "--report", "--force", "--shard", "--to"})
    EXPECT_NE(b.out.find(opt), std::string::npos) << opt;
}

}  // namespace meshport_test_batch_cli
