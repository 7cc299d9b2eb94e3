// The layout of src/ keeps the rules of docs/architecture.md: every #include points down the
// parts (core, image, ops, physics, formats, summary and profiles, api, batch, view), formats never
// include each other (only their own folder and formats/shared), the parts below summary never
// include the headers of what reads, writes or judges whole files, the public headers never include
// the library's sources, and only core/os_*.cpp include the operating system's headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace meshport_test_architecture {

namespace fs = std::filesystem;

namespace {

// The part a path under src/ belongs to ("formats/iqm", "ops", "core", ...).
std::string part_of(const std::string& rel) {
  const size_t a = rel.find('/');
  const std::string top = rel.substr(0, a);
  if (top != "formats" || a == std::string::npos) return top;
  const size_t b = rel.find('/', a + 1);
  return b == std::string::npos ? top : rel.substr(0, b);
}

int rank_of(const std::string& part) {
  static const std::map<std::string, int> ranks = {
      {"core", 0},    {"image", 1},    {"ops", 2}, {"physics", 3}, {"summary", 5},
      {"profiles", 5}, {"api", 6}, {"batch", 7},   {"view", 8}};
  if (part.rfind("formats", 0) == 0) return 4;
  const auto it = ranks.find(part);
  return it == ranks.end() ? -1 : it->second;
}

// The public headers only summary, profiles and the parts above may include: they declare what
// reads and writes files (meshport.h) or works on whole files (batch, summary, diff, validate,
// profiles).
bool api_header(const std::string& h) {
  static const std::vector<std::string> api = {"meshport.h", "batch.h", "summary.h", "diff.h", "validate.h",
                                               "profiles.h"};
  return std::find(api.begin(), api.end(), h) != api.end();
}

// A header of the operating system (not of C++ or a library): only src/core/os_*.cpp include
// them (core/os.h is the one interface to the system).
bool system_header(const std::string& h) {
  static const std::vector<std::string> names = {"unistd.h", "fcntl.h", "io.h", "windows.h", "winsock2.h",
                                                 "ws2tcpip.h", "direct.h", "pthread.h", "dirent.h", "poll.h",
                                                 "termios.h", "dlfcn.h", "spawn.h", "signal.h"};
  for (const char* dir : {"sys/", "netinet/", "arpa/", "linux/", "mach/"})
    if (h.rfind(dir, 0) == 0) return true;
  return std::find(names.begin(), names.end(), h) != names.end();
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every include of `root`/src and `root`/include that breaks a rule, as "file: includes x (why)".
std::vector<std::string> violations(const fs::path& root) {
  std::vector<std::string> out;
  const std::regex inc(R"(#include\s*([<"])([^">]+)[">])");
  for (const char* top : {"src", "include"}) {
    if (!fs::exists(root / top)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root / top))
      if (e.is_regular_file() && (e.path().extension() == ".cpp" || e.path().extension() == ".h"))
        files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const std::string rel = fs::relative(f, root / top).generic_string();
      const std::string text = read_file(f);
      for (auto it = std::sregex_iterator(text.begin(), text.end(), inc); it != std::sregex_iterator(); ++it) {
        const bool quoted = (*it)[1] == "\"";
        const std::string target = (*it)[2];
        const std::string where = std::string(top) + "/" + rel + ": includes " + target;
        if (std::string(top) == "include") {
          if (quoted) out.push_back(where + " (a public header includes a library source)");
          continue;
        }
        const std::string from = part_of(rel);
        const bool os_file = rel.rfind("core/os_", 0) == 0;
        if (!quoted && system_header(target) && !os_file) {
          out.push_back(where + " (only core/os_*.cpp include the system's headers: use core/os.h)");
          continue;
        }
        if (!quoted) {
          if (target.rfind("meshport/", 0) == 0 && rank_of(from) < rank_of("summary") && api_header(target.substr(9)))
            out.push_back(where + " (" + from + " is below the parts that read, write or judge whole files)");
          continue;
        }
        if (target.find('/') == std::string::npos) continue;  // a header of the same folder
        const std::string to = part_of(target);
        if (rank_of(to) < 0) {
          out.push_back(where + " (not a part of src/)");
        } else if (rank_of(to) > rank_of(from)) {
          out.push_back(where + " (" + from + " may not include " + to + ", a part above it)");
        } else if (from == "formats/shared" && to != from && to.rfind("formats/", 0) == 0) {
          out.push_back(where + " (formats/shared includes no format)");
        } else if (from.rfind("formats/", 0) == 0 && to.rfind("formats/", 0) == 0 && to != from &&
                   to != "formats/shared") {
          out.push_back(where + " (formats never include each other)");
        }
      }
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST(Architecture, EveryIncludePointsDown) {
  const fs::path root = fs::path(MESHPORT_TEST_DATA) / ".." / "..";
  ASSERT_TRUE(fs::exists(root / "src" / "formats" / "iqm" / "iqm.cpp"));
  const std::vector<std::string> v = violations(root);
  EXPECT_TRUE(v.empty()) << joined(v);
}

// Every folder of src/ is a part the rules know, and every format has its own folder.
TEST(Architecture, EveryFolderIsAKnownPart) {
  const fs::path src = fs::path(MESHPORT_TEST_DATA) / ".." / ".." / "src";
  std::vector<std::string> unknown, formats;
  for (const auto& e : fs::directory_iterator(src)) {
    if (!e.is_directory()) {
      unknown.push_back(e.path().filename().string() + " (a file directly in src/)");
      continue;
    }
    if (rank_of(e.path().filename().string()) < 0 && e.path().filename() != "formats")
      unknown.push_back(e.path().filename().string());
  }
  for (const auto& e : fs::directory_iterator(src / "formats")) formats.push_back(e.path().filename().string());
  std::sort(formats.begin(), formats.end());
  EXPECT_TRUE(unknown.empty()) << joined(unknown);
  EXPECT_EQ(formats, (std::vector<std::string>{"gltf", "iqe", "iqm", "modedef", "obj", "pie", "qmsh", "shared"}));
}

// The check finds each kind of break: a format including another, a step including a format, a
// format including the api header, a public header including a source, formats/shared a format,
// a system header outside core/os_*.cpp.
TEST(Architecture, TheCheckFindsEachKindOfBreak) {
  const fs::path root = fs::temp_directory_path() / ("meshport_arch_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(root);
  write(root / "src/formats/pie/pie_read.cpp", "#include \"formats/pie/pie.h\"\n#include \"formats/gltf/gltf.h\"\n");
  write(root / "src/formats/pie/gltf_pie.cpp", "#include \"formats/shared/gltf_json.h\"\n#include \"ops/mesh/x.h\"\n");
  write(root / "src/ops/mesh/normals.cpp", "#include \"ops/animation/curves.h\"\n#include \"formats/iqm/iqm.h\"\n");
  write(root / "src/formats/iqm/iqm.h", "#include <meshport/options.h>\n#include <meshport/meshport.h>\n");
  write(root / "src/formats/shared/gltf_json.h", "#include \"formats/gltf/gltf.h\"\n");
  write(root / "src/api/meshport.cpp", "#include <meshport/meshport.h>\n#include \"formats/iqm/iqm.h\"\n");
  write(root / "include/meshport/scene.h", "#include <vector>\n#include \"core/text.h\"\n");
  write(root / "src/batch/run.cpp", "#include <cstdio>\n#include <sys/stat.h>\n");
  write(root / "src/core/os_posix.cpp", "#include <unistd.h>\n#include <sys/mman.h>\n");
  write(root / "src/view/browser.cpp", "#include <httplib.h>\n#include <sys/socket.h>\n");
  const std::vector<std::string> v = violations(root);
  fs::remove_all(root);
  EXPECT_EQ(v, (std::vector<std::string>{
                   "src/batch/run.cpp: includes sys/stat.h (only core/os_*.cpp include the system's headers: use "
                   "core/os.h)",
                   "src/formats/iqm/iqm.h: includes meshport/meshport.h (formats/iqm is below the parts that read, write "
                   "or judge whole files)",
                   "src/formats/pie/pie_read.cpp: includes formats/gltf/gltf.h (formats never include each other)",
                   "src/formats/shared/gltf_json.h: includes formats/gltf/gltf.h (formats/shared includes no format)",
                   "src/ops/mesh/normals.cpp: includes formats/iqm/iqm.h (ops may not include formats/iqm, a part "
                   "above it)",
                   "src/view/browser.cpp: includes sys/socket.h (only core/os_*.cpp include the system's headers: use "
                   "core/os.h)",
                   "include/meshport/scene.h: includes core/text.h (a public header includes a library source)"}))
      << joined(v);
}

// The README is a front door a newcomer reads in two minutes: under 250 lines, no table cell over
// 40 words; the rest lives in docs/, and every docs/ page it links exists.
TEST(Architecture, ReadmeIsAFrontDoor) {
  const fs::path root = fs::path(MESHPORT_TEST_DATA) / ".." / "..";
  const std::string readme = read_file(root / "README.md");
  ASSERT_FALSE(readme.empty());
  size_t lines = 0, widest = 0;
  std::vector<std::string> missing;
  std::istringstream in(readme);
  for (std::string line; std::getline(in, line); ++lines) {
    if (line.rfind("|", 0) == 0) {
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, '|');) {
        std::istringstream words(cell);
        size_t n = 0;
        for (std::string w; words >> w;) ++n;
        widest = std::max(widest, n);
      }
    }
    for (size_t at = line.find("](docs/"); at != std::string::npos; at = line.find("](docs/", at + 1)) {
      const size_t end = line.find_first_of(")#", at + 2);
      const std::string page = line.substr(at + 2, end - at - 2);
      if (!fs::exists(root / page)) missing.push_back(page);
    }
  }
  EXPECT_LT(lines, 250u);
  EXPECT_LE(widest, 40u);
  EXPECT_TRUE(missing.empty()) << joined(missing);
}

// The test sources compile in batches, each batch one translation unit (tests/CMakeLists.txt,
// MESHPORT_TEST_UNITY_BATCH): each keeps everything after its #include lines in a namespace of its
// own, meshport_test_<name> for test_<name>.cpp, closed on its last line, so that no helper,
// constant or `using namespace` of one source meets another's.
TEST(Architecture, TestSourcesKeepToTheirNamespace) {
  const fs::path tests = fs::path(MESHPORT_TEST_DATA) / "..";
  std::vector<std::string> bad;
  size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(tests)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("test_", 0) != 0 || entry.path().extension() != ".cpp") continue;
    ++checked;
    const std::string ns = "meshport_test_" + name.substr(5, name.size() - 9);
    std::vector<std::string> lines;
    std::istringstream in(read_file(entry.path()));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    size_t open = lines.size(), last_include = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].rfind("#include", 0) == 0) last_include = i;
      if (open == lines.size() && lines[i] == "namespace " + ns + " {") open = i;
    }
    // Only blank lines between the last #include and the namespace; the file ends by closing it.
    bool ok = open < lines.size() && open > last_include && lines.back() == "}  // namespace " + ns;
    for (size_t i = last_include + 1; ok && i < open; ++i) ok = lines[i].empty();
    if (!ok) bad.push_back(name + " (expected `namespace " + ns + " {` after its #include lines, closed last)");
  }
  EXPECT_GT(checked, 90u);
  EXPECT_TRUE(bad.empty()) << joined(bad);
}

}  // namespace meshport_test_architecture
