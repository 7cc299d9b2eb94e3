#include "hostile_cases.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace hostile {

fs::path root() { return fs::path(MESHPORT_TEST_DATA).parent_path() / "hostile"; }

std::string relative(std::string text) {
  const std::string prefix = root().string() + "/";
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at))
    text.erase(at, prefix.size());
  return text;
}

std::string outcome(const fs::path& path) {
  meshport::Diagnostics diags;
  try {
    (void)meshport::read(path.string(), {}, &diags);
  } catch (const meshport::Error& e) {
    return "error\t" + relative(e.what());
  }
  std::string out = "ok";
  for (const meshport::Diagnostic& d : diags.items) out += "\twarning\t" + relative(d.to_string());
  return out;
}

namespace {

struct Case {
  std::string file, expected;
  int line = 0;
};

// cases.tsv: "# comment" lines; otherwise `file<TAB>error<TAB>message`, `file<TAB>ok`, or
// `file<TAB>ok<TAB>warning<TAB>message[<TAB>warning<TAB>message...]` (every warning, in order).
std::vector<Case> load(const fs::path& tsv) {
  std::ifstream in(tsv);
  std::vector<Case> cases;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      ADD_FAILURE() << tsv.string() << ":" << n << ": no tab";
      continue;
    }
    cases.push_back({line.substr(0, tab), line.substr(tab + 1), n});
  }
  return cases;
}

}  // namespace

size_t run_cases(const std::string& folder) {
  const fs::path dir = root() / folder;
  const fs::path tsv = dir / "cases.tsv";
  EXPECT_TRUE(fs::exists(tsv)) << tsv.string();
  const std::vector<Case> cases = load(tsv);
  std::set<std::string> listed;
  for (const Case& c : cases) {
    SCOPED_TRACE(folder + "/cases.tsv:" + std::to_string(c.line) + ": " + c.file);
    EXPECT_TRUE(listed.insert(c.file).second) << "listed twice";
    const fs::path file = dir / c.file;
    if (!fs::exists(file)) {
      ADD_FAILURE() << "no such file";
      continue;
    }
    const std::string got = outcome(file);
    EXPECT_EQ(got, c.expected);
    // MESHPORT_HOSTILE_PRINT=1 prints each case's outcome as a cases.tsv line, for review.
    if (std::getenv("MESHPORT_HOSTILE_PRINT")) std::printf("%s\t%s\n", c.file.c_str(), got.c_str());
  }
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() || name == "cases.tsv" || name == "README.md") continue;
    EXPECT_TRUE(listed.count(name)) << folder << "/" << name << " is not in cases.tsv";
  }
  return cases.size();
}

}  // namespace hostile
