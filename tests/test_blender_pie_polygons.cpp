// PIE polygon flags and texture animation through Blender (docs/pie.md, "Through Blender: polygon
// materials"): every corpus PIE through an unedited Blender round trip comes back as the same
// model with the same polygons and no warning; an edited round trip (a vertex moved, a face
// deleted in each mesh) keeps the polygons of the faces left. Blender is a test dependency:
// without it these tests fail.
#include <meshport/diff.h>
#include <meshport/meshport.h>

#include "blender_run.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace meshport_test_blender_pie_polygons {

using namespace meshport;
namespace fs = std::filesystem;

namespace {

const std::string kData = MESHPORT_TEST_DATA;

struct Job {
  std::string in, out;
  std::string fps = "24";  // Blender's frame rate: N or N/D
};

// Every job through one headless Blender running `script` (roundtrip.py takes --fps N[/D] before
// a pair; edit_roundtrip.py none). False, with Blender's output in `log`, on failure.
bool through_blender(const std::string& script, const std::vector<Job>& jobs, bool fps, std::string& log) {
  std::string args;
  std::vector<std::string> outputs;
  for (const Job& j : jobs) {
    args += (fps ? " --fps " + j.fps : std::string()) + " '" + j.in + "' '" + j.out + "'";
    outputs.push_back(j.out);
  }
  return testutil::run_blender(script, args, outputs, log);
}

std::string all(const Diagnostics& d) {
  std::string r;
  for (const auto& x : d.items) r += x.message + "\n";
  return r;
}

size_t warnings(const Diagnostics& d) {
  return size_t(std::count_if(d.items.begin(), d.items.end(), [](const auto& x) { return x.severity != Severity::Note; }));
}

// Per level of a PIE text: its polygons' flags and animation values (the polygon line without its
// point indices and texture coordinates), counted.
std::vector<std::map<std::string, int>> polygons_of(const std::string& pie) {
  std::vector<std::map<std::string, int>> levels;
  std::istringstream in(pie);
  std::string line;
  int left = 0;
  while (std::getline(in, line)) {
    if (line.rfind("LEVEL ", 0) == 0) levels.emplace_back();
    if (line.rfind("POLYGONS ", 0) == 0) {
      left = std::stoi(line.substr(9));
      continue;
    }
    if (left <= 0) continue;
    --left;
    std::istringstream words(line);
    std::string flags, count;
    words >> flags >> count;
    std::string key = flags;
    if (std::stoul(flags, nullptr, 16) & 0x4000) {
      std::string skip;
      for (int c = 0; c < std::stoi(count); ++c) words >> skip;
      for (int k = 0; k < 4; ++k) {
        std::string v;
        words >> v;
        key += " " + v;
      }
    }
    ++levels.back()[key];
  }
  return levels;
}

// testutil::blender_differences with the PIE data's level -> mesh indices of `a` (Blender orders
// meshes its own way); Blender gives normals back within a few thousandths (docs/gltf-obj.md),
// hence 5e-3.
std::string differences(const Scene& a, Scene b) {
  b.pie = a.pie;
  return testutil::blender_differences(a, b, 5e-3f);
}

std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

std::vector<std::string> corpus_pies() {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(testutil::corpus("pie")))
    if (e.is_regular_file() && e.path().extension() == ".pie") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

// Every corpus PIE: PIE -> .glb -> Blender (import, export) -> .glb -> PIE gives the same model
// (meshport::diff), the same polygons per level (flags and texture animation) and no warning.
TEST(BlenderRoundTrip, EveryCorpusPieComesBackUnchangedWithoutWarnings) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const std::vector<std::string> files = corpus_pies();
  ASSERT_EQ(files.size(), 42u);
  std::vector<Job> jobs;
  std::vector<Scene> scenes;
  for (size_t i = 0; i < files.size(); ++i) {
    scenes.push_back(read(files[i]));
    write(scenes.back(), dir / (std::to_string(i) + ".glb"));
    // Blender's scene at the ANIMOBJECT's frame rate exactly (1000 / time), as docs/gltf-obj.md
    // tells users to set it.
    std::string fps = "24";
    if (scenes.back().pie)
      for (const PieLevel& l : scenes.back().pie->levels)
        if (l.has_animobject) fps = "1000/" + std::to_string(l.animobject.time);
    jobs.push_back({dir / (std::to_string(i) + ".glb"), dir / (std::to_string(i) + ".out.glb"), fps});
  }
  std::string log;
  ASSERT_TRUE(through_blender("roundtrip.py", jobs, true, log)) << log;
  size_t empty = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    Diagnostics d;
    const Scene back = read(jobs[i].out, {}, &d);
    // A model of empty levels only (prslvtl1.pie): Blender writes no mesh, and the PIE data alone
    // is no model to write; counted below.
    if (scenes[i].meshes.empty()) {
      ++empty;
      EXPECT_TRUE(back.meshes.empty());
      continue;
    }
    const std::string pie = text_of(write_memory(back, Format::Pie, {}, &d));
    EXPECT_EQ(warnings(d), 0u) << all(d);
    EXPECT_EQ(polygons_of(pie), polygons_of(text_of(write_memory(scenes[i], Format::Pie))));
    EXPECT_EQ(differences(scenes[i], back), "");
  }
  EXPECT_EQ(empty, 1u);
}

// A vertex moved and a face deleted in every mesh in Blender: every other polygon keeps its
// flags and texture animation (the levels of texture-animated and mixed polygons, a level of one
// animated polygon kind, the factory of the issue).
TEST(BlenderRoundTrip, PiePolygonsSurviveEdits) {
  REQUIRE_CORPUS();
  testutil::TempDir dir;
  const std::vector<std::string> files = {kData + "/pie/feat-pie2.pie", kData + "/cli/turret.pie",
                                          testutil::corpus("pie/wz2100-4.5.5/base/structs/blfact0_col.pie")};
  std::vector<Job> jobs;
  std::vector<std::string> sources;
  for (size_t i = 0; i < files.size(); ++i) {
    const Scene s = read(files[i]);
    sources.push_back(text_of(write_memory(s, Format::Pie)));
    write(s, dir / (std::to_string(i) + ".glb"));
    jobs.push_back({dir / (std::to_string(i) + ".glb"), dir / (std::to_string(i) + ".out.glb")});
  }
  std::string log;
  ASSERT_TRUE(through_blender("edit_roundtrip.py", jobs, false, log)) << log;
  size_t animated = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    Diagnostics d;
    const std::string pie = text_of(write_memory(read(jobs[i].out, {}, &d), Format::Pie, {}, &d));
    EXPECT_EQ(pie.find("every polygon written as 200"), std::string::npos);
    EXPECT_FALSE(all(d).find("do not match its triangles") != std::string::npos) << all(d);
    const auto before = polygons_of(sources[i]);
    const auto after = polygons_of(pie);
    ASSERT_EQ(after.size(), before.size()) << pie;
    for (size_t l = 0; l < before.size(); ++l) {
      // One polygon fewer (the deleted face) where the level had more than one; the others as they were.
      int lost = 0;
      for (const auto& [key, n] : before[l]) {
        const auto it = after[l].find(key);
        const int now = it == after[l].end() ? 0 : it->second;
        EXPECT_LE(now, n) << "level " << l + 1 << ": " << key;
        lost += n - now;
        animated += key.find(' ') != std::string::npos ? size_t(now) : 0;
      }
      int total = 0;
      for (const auto& [key, n] : before[l]) total += n;
      EXPECT_EQ(lost, total > 1 ? 1 : 0) << "level " << l + 1 << "\n" << pie;
    }
    EXPECT_NE(pie, sources[i]);  // the moved vertex
  }
  EXPECT_GE(animated, 2u);  // texture-animated polygons came back
}

}  // namespace meshport_test_blender_pie_polygons
