// The man page and bash completion that `meshport gendocs` writes from the CLI's own options
// (tools/meshport/docs.cpp; installed by cmake --install), and `meshport --version`.
#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <sys/wait.h>

namespace meshport_test_cli_docs {

namespace {

using testutil::CliRun;
using testutil::TempDir;

CliRun run(const std::string& args) { return testutil::run_cli(args); }

// A shell command line: exit status, stdout and stderr together.
CliRun run_shell(const std::string& cmd) {
  CliRun r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The words bash completes for `line` (the words typed so far; the last one is being completed).
std::string complete(const std::string& script, const std::string& line) {
  const std::string cmd = "bash -c 'source " + script + " && COMP_WORDS=(" + line +
                          ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _meshport && echo \"${COMPREPLY[*]}\"'";
  return run_shell(cmd).out;
}

}  // namespace

TEST(CliDocs, VersionIsTheProjectVersion) {
  CliRun r = run("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "meshport " MESHPORT_VERSION "\n");
}

TEST(CliDocs, GendocsIsHiddenFromHelp) {
  CliRun r = run("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "convert")) << r.out;
  EXPECT_FALSE(has(r.out, "gendocs")) << r.out;
  const std::string man = run("gendocs man").out;
  EXPECT_FALSE(has(man, ".SS gendocs")) << man;
  EXPECT_FALSE(has(man, "meshport gendocs\\fR")) << man;
}

TEST(CliDocs, ManPageHasEveryCommandWithItsOptionsAndExamples) {
  CliRun r = run("gendocs man");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string& man = r.out;
  EXPECT_TRUE(has(man, ".TH MESHPORT 1 \"\" \"meshport " MESHPORT_VERSION "\" \"User Commands\"\n")) << man;
  EXPECT_TRUE(has(man, ".SH NAME\nmeshport \\- read, write, validate and convert 3D game model formats\n")) << man;
  for (const char* c : {"convert", "deform", "info", "batch", "validate", "merge\\-reports", "diff", "formats"})
    EXPECT_TRUE(has(man, std::string(".SS ") + c + "\n")) << c;
  // convert's synopsis: its required option, then its positional.
  EXPECT_TRUE(has(man, "\\fBmeshport convert\\fR \\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fITEXT\\fR [\\fIoptions\\fR] "
                       "\\fIinputs\\fR...\n"))
      << man;
  EXPECT_TRUE(has(man, ".TP\n\\fB\\-\\-textures\\fR \\fIDIR\\fR...\nSearch DIR for textures")) << man;
  EXPECT_TRUE(has(man, ".TP\n\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\nDo not print warnings\n")) << man;
  // A footer keeps its lines; hyphens are escaped so that the example copies as typed.
  EXPECT_TRUE(has(man, ".nf\n"));
  EXPECT_TRUE(has(man, "  meshport deform bar.model \\-\\-mode 0 \\-\\-amplitude 0.5")) << man;
}

// Every option `meshport CMD --help` lists is in the man page: the page cannot drift from the CLI.
TEST(CliDocs, ManPageHasEveryOptionOfEveryHelpPage) {
  const std::string man = run("gendocs man").out;
  const std::regex option_name(R"((^|[\s,\[])(--?[a-z][a-z0-9-]*))");
  // The commands `meshport --help` lists, and meshport itself.
  std::vector<std::string> commands = {""};
  const std::string top = run("--help").out;
  const std::regex command_line(R"(\n  ([a-z][a-z0-9-]*) {2,})");
  for (std::sregex_iterator i(top.begin(), top.end(), command_line), end; i != end; ++i) commands.push_back((*i)[1]);
  EXPECT_GE(commands.size(), 9u) << top;
  for (const std::string& c : commands) {
    CliRun help = run(c + " --help");
    ASSERT_EQ(help.status, 0) << c;
    std::set<std::string> names;
    for (std::sregex_iterator i(help.out.begin(), help.out.end(), option_name), end; i != end; ++i)
      names.insert((*i)[2]);
    EXPECT_GE(names.size(), 2u) << c;
    for (std::string n : names) {
      std::string escaped;
      for (char ch : n) escaped += ch == '-' ? std::string("\\-") : std::string(1, ch);
      EXPECT_TRUE(has(man, "\\fB" + escaped + "\\fR")) << c << ": " << n;
    }
  }
}

// groff reads the page without a warning (-ww: all warnings).
TEST(CliDocs, ManPageRendersWithGroff) {
  TempDir t;
  ASSERT_EQ(run("gendocs man -o " + (t / "meshport.1")).status, 0);
  CliRun warnings = run_shell("groff -man -Tutf8 -ww -z " + (t / "meshport.1"));
  EXPECT_EQ(warnings.status, 0);
  EXPECT_EQ(warnings.out, "");
  CliRun text = run_shell("groff -man -Tascii -P-c -P-b -P-u " + (t / "meshport.1"));
  EXPECT_TRUE(has(text.out, "meshport deform bar.model --mode 0 --amplitude 0.5")) << text.out;
}

TEST(CliDocs, BashCompletionCompletesCommandsOptionsFormatsAndFolders) {
  TempDir t;
  ASSERT_EQ(run("gendocs bash -o " + (t / "meshport")).status, 0);
  const std::string s = t / "meshport";
  EXPECT_EQ(complete(s, "meshport con"), "convert\n");
  EXPECT_EQ(complete(s, "meshport me"), "merge-reports\n");
  EXPECT_EQ(complete(s, "meshport mo"), "modes\n");
  EXPECT_EQ(complete(s, "meshport --v"), "--version\n");
  EXPECT_EQ(complete(s, "meshport convert a.iqe --no-n"), "--no-normals\n");
  EXPECT_EQ(complete(s, "meshport diff --from-b qmsh"), "qmsh-tmp qmsh\n");
  EXPECT_EQ(complete(s, "meshport convert a.iqe --to modedef-p"), "modedef-prop modedef-path\n");
  // Options of one command are not offered for another (no match: nothing printed).
  EXPECT_EQ(complete(s, "meshport info --no-n"), "");
  EXPECT_EQ(complete(s, "meshport info --j"), "--json\n");
  // --textures takes a folder: only folders are offered.
  ASSERT_EQ(run_shell("mkdir " + (t / "texdir") + " && touch " + (t / "texfile")).status, 0);
  EXPECT_EQ(complete(s, "meshport info x.iqm --textures " + (t / "tex")), (t / "texdir") + "\n");
  // -o takes a file.
  EXPECT_EQ(complete(s, "meshport convert a.iqe -o " + (t / "texf")), (t / "texfile") + "\n");
  // The hidden command is not completed.
  EXPECT_EQ(complete(s, "meshport gen"), "");
  EXPECT_FALSE(has(testutil::slurp(s), "gendocs)")) << testutil::slurp(s);
}

TEST(CliDocs, GendocsReportsAnUnwritableOutput) {
  TempDir t;
  CliRun r = run("gendocs man -o " + (t / "missing/meshport.1"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, t / "missing/meshport.1" + ": error: cannot write\n");
  EXPECT_NE(run("gendocs html").status, 0);
}

// Every environment variable the sources read (getenv("X"), the shard code's getenv lookups
// (getenv, "X"), and TMPDIR where a temporary folder is made) is named in the man page's
// ENVIRONMENT section and in the README.
TEST(CliDocs, EveryEnvironmentVariableIsDocumented) {
  const std::filesystem::path root = std::filesystem::path(MESHPORT_TEST_DATA) / ".." / "..";
  std::set<std::string> names;
  const std::regex read_var(R"(getenv(?:\(|, )\"([A-Z_]+)\")");
  for (const char* top : {"src", "tools"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / top)) {
      if (!e.is_regular_file() || e.path().extension() != ".cpp") continue;
      const std::string text = testutil::slurp(e.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), read_var); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1]);
      if (text.find("temp_directory_path()") != std::string::npos) names.insert("TMPDIR");
    }
  for (const char* known : {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "MESHPORT_SHARD_COUNT", "MESHPORT_CHROMIUM"})
    EXPECT_TRUE(names.count(known)) << known << " is no longer read: the scan of the sources is broken";
  const CliRun r = run("gendocs man");
  ASSERT_EQ(r.status, 0) << r.out;
  const size_t at = r.out.find(".SH ENVIRONMENT\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string section = r.out.substr(at, r.out.find(".SH ", at + 1) - at);
  const std::string readme = testutil::slurp(root / "README.md");
  for (const std::string& n : names) {
    std::string roff_name;
    for (char c : n) roff_name += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(section.find(roff_name), std::string::npos) << n << " is not in the man page:\n" << section;
    EXPECT_NE(readme.find(n), std::string::npos) << n << " is not in the README";
  }
}

}  // namespace meshport_test_cli_docs
