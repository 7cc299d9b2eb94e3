// Batch conversion and validation (include/meshport/batch.h, docs/batch.md): planning, statuses,
// incremental skips, sharding, reports, animation files, texture copies.
#include <meshport/batch.h>

#include "batch/plan.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

namespace meshport_test_batch {

namespace fs = std::filesystem;
using namespace meshport;
using testutil::TempDir;

namespace {

const fs::path kCli = fs::path(MESHPORT_TEST_DATA) / "cli";

void place(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

void write_text(const fs::path& to, const std::string& text) {
  fs::create_directories(to.parent_path());
  std::ofstream(to, std::ios::binary) << text;
}

// A tree with models of several formats: good, with warnings, broken, and things that are not
// models.
//   pie/turret.pie          good, with its texture page
//   pie/sub/turret2.pie     good, with its texture page
//   pie/warn.pie            a NORMALS count that does not match POLYGONS: warning
//   hinge/skinned.iqe       with hinge/skinned_walk.iqe (animation only) attached, whose extra
//                           joint is dropped: warning
//   hinge/hinge.png         its texture
//   broken/badindex.iqe     face index out of range: fails
//   notes.txt, .hidden/x.pie  ignored
void make_tree(const fs::path& root) {
  place(kCli / "turret.pie", root / "pie/turret.pie");
  place(kCli / "turret.pie", root / "pie/sub/turret2.pie");
  // The turret's texture page, beside both.
  place(fs::path(MESHPORT_TEST_DATA) / "images/rgba.png", root / "pie/page-17-droid-weapons.png");
  place(fs::path(MESHPORT_TEST_DATA) / "images/rgba.png", root / "pie/sub/page-17-droid-weapons.png");
  std::string warn = testutil::slurp(kCli / "turret.pie");
  const std::string polys = "POLYGONS 2\n";
  warn.insert(warn.find(polys), "NORMALS 1\n\t0 1 0 0 1 0 0 1 0\n");
  write_text(root / "pie/warn.pie", warn);
  place(kCli / "skinned.iqe", root / "hinge/skinned.iqe");
  place(kCli / "walk.iqe", root / "hinge/skinned_walk.iqe");
  place(fs::path(MESHPORT_TEST_DATA) / "images/rgba.png", root / "hinge/hinge.png");
  place(kCli / "badindex.iqe", root / "broken/badindex.iqe");
  write_text(root / "notes.txt", "not a model\n");
  place(kCli / "turret.pie", root / ".hidden/x.pie");
}

BatchOptions convert_options(const fs::path& in, const fs::path& out, Format to) {
  BatchOptions o;
  o.inputs = {in.string()};
  o.output_dir = out.string();
  o.to = to;
  o.jobs = 2;
  return o;
}

std::map<std::string, BatchStatus> statuses(const BatchResult& r) {
  std::map<std::string, BatchStatus> m;
  for (const BatchItem& i : r.items) m[i.relative] = i.status;
  return m;
}

const BatchItem& item(const BatchResult& r, const std::string& relative) {
  auto it = std::find_if(r.items.begin(), r.items.end(), [&](const BatchItem& i) { return i.relative == relative; });
  if (it == r.items.end()) throw std::runtime_error("no item " + relative);
  return *it;
}

// Moves a file's modification time forward by `seconds`.
void touch_later(const fs::path& p, int seconds) {
  fs::last_write_time(p, fs::last_write_time(p) + std::chrono::seconds(seconds));
}

}  // namespace

TEST(Batch, ConvertsATreeWithExactStatusesAndOutputs) {
  TempDir t;
  make_tree(t.path / "in");
  const BatchResult r = batch(convert_options(t.path / "in", t.path / "out", Format::Glb));
  const std::map<std::string, BatchStatus> want{{"broken/badindex.iqe", BatchStatus::Failed},
                                                {"hinge/skinned.iqe", BatchStatus::Warned},
                                                {"pie/sub/turret2.pie", BatchStatus::Done},
                                                {"pie/turret.pie", BatchStatus::Done},
                                                {"pie/warn.pie", BatchStatus::Warned}};
  EXPECT_EQ(statuses(r), want);
  EXPECT_EQ(r.done, 2u);
  EXPECT_EQ(r.warned, 2u);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.skipped, 0u);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(summary_line(r).substr(0, 55), "5 files: 2 converted, 2 warned, 1 failed, 0 skipped in ");
  // Outputs mirror the tree; the failed file has none.
  EXPECT_TRUE(fs::exists(t.path / "out/pie/sub/turret2.glb"));
  EXPECT_TRUE(fs::exists(t.path / "out/hinge/skinned.glb"));
  EXPECT_FALSE(fs::exists(t.path / "out/hinge/skinned_walk.glb"));
  EXPECT_FALSE(fs::exists(t.path / "out/broken/badindex.glb"));
  EXPECT_FALSE(fs::exists(t.path / "out/x.glb"));
  // The failure is located; the warning is the reader's.
  const BatchItem& bad = item(r, "broken/badindex.iqe");
  ASSERT_EQ(bad.diagnostics.size(), 1u);
  EXPECT_EQ(bad.diagnostics[0].line, 6u);
  EXPECT_EQ(bad.diagnostics[0].severity, Severity::Error);
  const BatchItem& warn = item(r, "pie/warn.pie");
  ASSERT_EQ(warn.diagnostics.size(), 1u);
  EXPECT_NE(warn.diagnostics[0].message.find("NORMALS"), std::string::npos) << warn.diagnostics[0].message;
  const BatchItem& hinge = item(r, "hinge/skinned.iqe");
  ASSERT_EQ(hinge.diagnostics.size(), 1u);
  EXPECT_EQ(hinge.diagnostics[0].message, "1 of its joints are not in the skeleton and are dropped");
  // Counts and bytes.
  const BatchItem& turret = item(r, "pie/turret.pie");
  EXPECT_EQ(turret.meshes, 2u);
  EXPECT_EQ(turret.triangles, 3u);
  EXPECT_EQ(turret.input_bytes, fs::file_size(t.path / "in/pie/turret.pie"));
  EXPECT_EQ(turret.output_bytes, fs::file_size(t.path / "out/pie/turret.glb"));
  EXPECT_GT(turret.milliseconds, 0.0);
}

TEST(Batch, AnimationFileAttachesToItsMeshByName) {
  TempDir t;
  make_tree(t.path / "in");
  const BatchResult r = batch(convert_options(t.path / "in/hinge", t.path / "out", Format::Iqm));
  ASSERT_EQ(r.items.size(), 1u);
  const BatchItem& hinge = r.items[0];
  EXPECT_EQ(hinge.relative, "skinned.iqe");
  ASSERT_EQ(hinge.animations.size(), 1u);
  EXPECT_EQ(fs::path(hinge.animations[0]).filename(), "skinned_walk.iqe");
  EXPECT_EQ(hinge.note, "animation files named after the mesh");
  EXPECT_EQ(hinge.animations_count, 2u);  // its own and the walk
  const Scene s = read((t.path / "out/skinned.iqm").string());
  ASSERT_EQ(s.animations.size(), 2u);
  EXPECT_EQ(s.animations[1].name, "walk");
}

TEST(Batch, AnimationFileAttachesToTheFoldersOnlyMeshAndByIqmCfg) {
  TempDir t;
  // anim_run.iqe beside the only mesh file: attached although the names differ.
  place(kCli / "skinned.iqe", t.path / "a/mesh.iqe");
  place(kCli / "walk.iqe", t.path / "a/anim_run.iqe");
  // Two meshes: the animation is named in iqm.cfg (Tesseract).
  place(kCli / "skinned.iqe", t.path / "b/one.iqe");
  place(kCli / "skinned.iqe", t.path / "b/two.iqe");
  place(kCli / "walk.iqe", t.path / "b/anims/go.iqe");
  write_text(t.path / "b/iqm.cfg", "iqmload \"two.iqe\"\niqmanim \"walk\" \"anims/go.iqe:walk\" 30; iqmskin * hinge.png\n");
  // Two meshes and no rule: the animation is converted alone, with a note.
  place(kCli / "skinned.iqe", t.path / "c/x.iqe");
  place(kCli / "skinned.iqe", t.path / "c/y.iqe");
  place(kCli / "walk.iqe", t.path / "c/moves.iqe");
  const BatchResult r = batch(convert_options(t.path, t.path / "out", Format::Iqm));
  EXPECT_EQ(item(r, "a/mesh.iqe").animations.size(), 1u);
  EXPECT_EQ(item(r, "a/mesh.iqe").note, "animation files beside the folder's only mesh file");
  EXPECT_TRUE(item(r, "b/one.iqe").animations.empty());
  ASSERT_EQ(item(r, "b/two.iqe").animations.size(), 1u);
  EXPECT_EQ(item(r, "b/two.iqe").note.substr(0, 16), "animations from ");
  EXPECT_TRUE(item(r, "c/moves.iqe").animations.empty());
  EXPECT_NE(item(r, "c/moves.iqe").note.find("no mesh file to attach it to"), std::string::npos);
  EXPECT_EQ(r.items.size(), 6u);  // a/mesh, b/one, b/two, c/moves, c/x, c/y
  EXPECT_EQ(r.failed, 0u);
}

TEST(Batch, RerunSkipsWhatIsUpToDate) {
  TempDir t;
  make_tree(t.path / "in");
  fs::remove_all(t.path / "in/broken");
  BatchOptions o = convert_options(t.path / "in", t.path / "out", Format::Glb);
  const BatchResult first = batch(o);
  EXPECT_EQ(first.failed + first.skipped, 0u);
  const BatchResult again = batch(o);
  EXPECT_EQ(again.skipped, 4u);
  EXPECT_EQ(again.done + again.warned + again.failed, 0u);
  for (const BatchItem& i : again.items) EXPECT_EQ(i.note, "up to date") << i.relative;
  EXPECT_EQ(again.exit_code(), 0);

  // A newer input (or animation file) is converted again.
  const fs::path walk = t.path / "in/hinge/skinned_walk.iqe", turret = t.path / "in/pie/turret.pie";
  const auto walk_time = fs::last_write_time(walk), turret_time = fs::last_write_time(turret);
  touch_later(walk, 5);
  touch_later(turret, 5);
  const BatchResult touched = batch(o);
  EXPECT_EQ(item(touched, "hinge/skinned.iqe").status, BatchStatus::Warned);
  EXPECT_EQ(item(touched, "pie/turret.pie").status, BatchStatus::Done);
  EXPECT_EQ(touched.skipped, 2u);
  fs::last_write_time(walk, walk_time);  // back from the future, for what follows
  fs::last_write_time(turret, turret_time);

  // Other options convert everything again; so does --force.
  o.convert.write.compress = true;
  const BatchResult changed = batch(o);
  EXPECT_EQ(changed.skipped, 0u);
  EXPECT_EQ(batch(o).skipped, 4u);
  // Levels of detail and resampling change what is written too.
  o.convert.lods.ratios = {0.5f};
  EXPECT_EQ(batch(o).skipped, 0u);
  EXPECT_EQ(batch(o).skipped, 4u);
  o.convert.write.resample.fps = 24;
  EXPECT_EQ(batch(o).skipped, 0u);
  o.force = true;
  EXPECT_EQ(batch(o).skipped, 0u);
}

TEST(Batch, FailedFilesAreTriedAgain) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = convert_options(t.path / "in", t.path / "out", Format::Iqm);
  batch(o);
  const BatchResult again = batch(o);
  EXPECT_EQ(again.skipped, 4u);
  EXPECT_EQ(again.failed, 1u);
  EXPECT_EQ(again.exit_code(), 1);
}

TEST(Batch, FailFastStopsStartingFiles) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = convert_options(t.path / "in", t.path / "out", Format::Iqm);
  o.jobs = 1;  // in path order: broken/badindex.iqe first
  o.fail_fast = true;
  const BatchResult r = batch(o);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(r.skipped, 4u);
  EXPECT_EQ(item(r, "pie/turret.pie").note, "not started: --fail-fast stopped the batch");
  EXPECT_FALSE(fs::exists(t.path / "out/pie/turret.iqm"));
}

TEST(Batch, CancelStopsStartingFiles) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = convert_options(t.path / "in", t.path / "out", Format::Iqm);
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  o.jobs = 1;
  o.progress = [&](const BatchProgress& p) {
    if (p.item) cancel = true;  // after the first file
  };
  const BatchResult r = batch(o);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.skipped, 4u);
  EXPECT_EQ(item(r, "pie/warn.pie").note, "not started: interrupted");
}

TEST(Batch, ProgressIsReportedForEveryFile) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = convert_options(t.path / "in", t.path / "out", Format::Glb);
  std::vector<BatchProgress> seen;
  std::set<std::string> finished;
  o.progress = [&](const BatchProgress& p) {
    seen.push_back(p);
    if (p.item) finished.insert(p.item->relative);
  };
  batch(o);
  ASSERT_EQ(seen.size(), 10u);  // a start and a finish per file
  EXPECT_EQ(finished.size(), 5u);
  EXPECT_EQ(seen.back().finished, 5u);
  EXPECT_EQ(seen.back().total, 5u);
  EXPECT_EQ(seen.back().failed, 1u);
  EXPECT_EQ(seen.back().warned, 2u);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].finished, seen[i - 1].finished);
}

TEST(Batch, CopiesTheTexturesModelsUse) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = convert_options(t.path / "in/hinge", t.path / "out", Format::Iqm);
  batch(o);
  ASSERT_TRUE(fs::exists(t.path / "out/hinge.png"));
  EXPECT_EQ(testutil::slurp(t.path / "out/hinge.png"), testutil::slurp(t.path / "in/hinge/hinge.png"));
  // glTF embeds them instead.
  batch(convert_options(t.path / "in/hinge", t.path / "glb", Format::Glb));
  EXPECT_FALSE(fs::exists(t.path / "glb/hinge.png"));
  o.copy_textures = false;
  o.output_dir = (t.path / "nocopy").string();
  batch(o);
  EXPECT_FALSE(fs::exists(t.path / "nocopy/hinge.png"));
}

TEST(Batch, GlobsAndMissingInputs) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = convert_options(t.path / "in", t.path / "out", Format::Obj);
  o.inputs = {(t.path / "in/**/*.pie").string(), (t.path / "in/nothing/here.iqe").string(),
              (t.path / "in/*.iqm").string()};
  const BatchResult r = batch(o);
  std::vector<std::string> rel;
  for (const BatchItem& i : r.items) rel.push_back(i.relative);
  // Sorted by path; the missing file and the empty pattern fail with a reason.
  const std::vector<std::string> want{"pie/sub/turret2.pie", "pie/turret.pie", "pie/warn.pie",
                                      (t.path / "in/*.iqm").string(), (t.path / "in/nothing/here.iqe").string()};
  std::vector<std::string> sorted_want = want;
  std::sort(sorted_want.begin(), sorted_want.end());
  EXPECT_EQ(rel, sorted_want);
  EXPECT_EQ(item(r, (t.path / "in/nothing/here.iqe").string()).diagnostics.at(0).message, "no such file or folder");
  EXPECT_EQ(item(r, (t.path / "in/*.iqm").string()).diagnostics.at(0).message, "no model file matches this pattern");
  EXPECT_EQ(r.failed, 2u);
  EXPECT_TRUE(fs::exists(t.path / "out/pie/sub/turret2.obj"));
}

TEST(Batch, GlobMatching) {
  using batch_detail::glob_match;
  EXPECT_TRUE(glob_match("*.pie", "a.pie"));
  EXPECT_FALSE(glob_match("*.pie", "d/a.pie"));
  EXPECT_TRUE(glob_match("**/*.pie", "a.pie"));
  EXPECT_TRUE(glob_match("**/*.pie", "d/e/a.pie"));
  EXPECT_TRUE(glob_match("d/**", "d/e/a.pie"));
  EXPECT_TRUE(glob_match("d/**/a.pie", "d/a.pie"));
  EXPECT_FALSE(glob_match("d/**/a.pie", "e/a.pie"));
  EXPECT_TRUE(glob_match("page-[0-9]?.p?e", "page-12.pie"));
  EXPECT_FALSE(glob_match("page-[!0-9]*", "page-1"));
  EXPECT_TRUE(glob_match("[ab]*", "b"));
  EXPECT_TRUE(glob_match("x[", "x["));
  EXPECT_FALSE(glob_match("*", ""));
}

TEST(Batch, OutputClashFailsTheSecondFile) {
  TempDir t;
  place(kCli / "skinned.iqe", t.path / "in/m.iqe");
  ASSERT_EQ(batch(convert_options(t.path / "in", t.path / "tmp", Format::Iqm)).failed, 0u);
  place(t.path / "tmp/m.iqm", t.path / "in/m.iqm");
  const BatchResult r = batch(convert_options(t.path / "in", t.path / "out", Format::Glb));
  ASSERT_EQ(r.items.size(), 2u);
  EXPECT_NE(item(r, "m.iqe").status, BatchStatus::Failed);
  EXPECT_EQ(item(r, "m.iqm").status, BatchStatus::Failed);
  EXPECT_NE(item(r, "m.iqm").diagnostics.at(0).message.find("is also"), std::string::npos);
}

TEST(Batch, OutputFolderInsideTheInputIsNotSearched) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = convert_options(t.path / "in/pie", t.path / "in/pie/out", Format::Pie);
  EXPECT_EQ(batch(o).items.size(), 3u);
  EXPECT_EQ(batch(o).items.size(), 3u);  // the outputs written the first time are not inputs
}

TEST(Batch, ShardsCoverTheTreeExactlyOnce) {
  TempDir t;
  for (int i = 0; i < 40; ++i) place(kCli / "turret.pie", t.path / fmt::format("in/d{}/m{}.pie", i % 4, i));
  BatchOptions o = convert_options(t.path / "in", t.path / "out", Format::Pie);
  const std::set<std::string> all = [&] {
    std::set<std::string> s;
    for (const BatchItem& i : batch(o).items) s.insert(i.relative);
    return s;
  }();
  ASSERT_EQ(all.size(), 40u);
  for (uint32_t n : {2u, 3u, 7u}) {
    std::multiset<std::string> parts;
    std::vector<BatchResult> reports;
    for (uint32_t k = 0; k < n; ++k) {
      o.shard = {k, n};
      o.force = true;
      reports.push_back(batch(o));
      for (const BatchItem& i : reports.back().items) {
        parts.insert(i.relative);
        EXPECT_EQ(shard_of(i.relative, n), k);
      }
    }
    EXPECT_EQ(parts, std::multiset<std::string>(all.begin(), all.end())) << n << " shards";
    const BatchResult merged = merge_reports(reports, {});
    EXPECT_EQ(merged.items.size(), 40u);
    EXPECT_EQ(merged.done, 40u);
    // Overlapping or missing shards are refused.
    std::vector<BatchResult> twice{reports[0], reports[0]};
    EXPECT_THROW(merge_reports(twice, {"a.json", "b.json"}), Error);
    reports.pop_back();
    EXPECT_THROW(merge_reports(reports, {}), Error);
  }
  // Adding files elsewhere moves nobody: the shard is a function of the path alone.
  EXPECT_EQ(shard_of("d1/m5.pie", 7), shard_of("d1/m5.pie", 7));
  EXPECT_EQ(shard_of("d1/m5.pie", 1), 0u);
}

TEST(Batch, ShardFromTextAndEnvironment) {
  std::map<std::string, std::string> env;
  auto get = [&](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const Shard s = parse_shard("2/5", get);
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  EXPECT_THROW(parse_shard("5/5", get), Error);
  EXPECT_THROW(parse_shard("1/0", get), Error);
  EXPECT_THROW(parse_shard("x/2", get), Error);
  EXPECT_THROW(parse_shard("auto", get), Error);
  env = {{"JOB_COMPLETION_INDEX", "3"}, {"MESHPORT_SHARD_COUNT", "4"}};
  EXPECT_EQ(parse_shard("auto", get).index, 3u);
  EXPECT_EQ(parse_shard("auto", get).count, 4u);
  env = {{"JOB_COMPLETION_INDEX", "3"}};
  try {
    parse_shard("auto", get);
    ADD_FAILURE() << "no count: should throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MESHPORT_SHARD_COUNT"), std::string::npos) << e.what();
  }
  env = {{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_COUNT", "2"}};
  EXPECT_EQ(parse_shard("auto", get).index, 1u);
  EXPECT_EQ(parse_shard("auto", get).count, 2u);
  // --array=0-6:2: tasks 0, 2, 4, 6 are shards 0 to 3 of 4.
  env = {{"SLURM_ARRAY_TASK_ID", "6"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_STEP", "2"},
         {"SLURM_ARRAY_TASK_COUNT", "4"}};
  EXPECT_EQ(parse_shard("auto", get).index, 3u);
  EXPECT_EQ(parse_shard("auto", get).count, 4u);
  env["SLURM_ARRAY_TASK_ID"] = "5";  // not on the step
  EXPECT_THROW(parse_shard("auto", get), Error);
  env["SLURM_ARRAY_TASK_ID"] = "4", env["SLURM_ARRAY_TASK_STEP"] = "0";
  EXPECT_THROW(parse_shard("auto", get), Error);
  env = {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "2"}};  // ids 0..1 expected
  EXPECT_THROW(parse_shard("auto", get), Error);
  env = {{"SLURM_ARRAY_TASK_ID", "one"}, {"SLURM_ARRAY_TASK_COUNT", "2"}};
  EXPECT_THROW(parse_shard("auto", get), Error);
}

TEST(Batch, ReportRoundTrips) {
  TempDir t;
  make_tree(t.path / "in");
  const BatchResult r = batch(convert_options(t.path / "in", t.path / "out", Format::Glb));
  const std::string json = report_json(r);
  const BatchResult back = parse_report(json, "r.json");
  EXPECT_EQ(report_json(back), json);
  EXPECT_EQ(back.failed, 1u);
  EXPECT_EQ(back.warned, 2u);
  const nlohmann::json j = nlohmann::json::parse(json);
  EXPECT_EQ(j["summary"]["files"], 5);
  EXPECT_EQ(j["summary"]["converted"], 2);
  EXPECT_EQ(j["task"], "convert");
  EXPECT_EQ(j["items"][0]["relative"], "broken/badindex.iqe");
  EXPECT_EQ(j["items"][0]["status"], "failed");
  EXPECT_EQ(j["items"][0]["diagnostics"][0]["line"], 6);
  EXPECT_THROW(parse_report("{}", "r.json"), Error);
  EXPECT_THROW(parse_report("not json", "r.json"), Error);
  nlohmann::json bad = j;
  bad["items"][1]["status"] = "exploded";
  EXPECT_THROW(parse_report(bad.dump(), "r.json"), Error);
}

TEST(Batch, ValidatesATree) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o;
  o.task = BatchTask::Validate;
  o.inputs = {(t.path / "in").string()};
  const BatchResult r = batch(o);
  // Validation sees every model file, animation files included.
  EXPECT_EQ(r.items.size(), 6u);
  EXPECT_EQ(r.done, 4u);
  EXPECT_EQ(r.warned, 1u);
  EXPECT_EQ(r.failed, 1u);
  EXPECT_EQ(summary_line(r).substr(0, 51), "6 files: 4 valid, 1 warned, 1 invalid, 0 skipped in");
  EXPECT_FALSE(fs::exists(t.path / "in/.meshport-batch"));
  o.strict = true;
  const BatchResult strict = batch(o);
  EXPECT_EQ(strict.failed, 2u);
  EXPECT_EQ(item(strict, "pie/warn.pie").status, BatchStatus::Failed);
}

TEST(Batch, ValidatesWithEngineProfiles) {
  TempDir t;
  place(kCli / "turret.pie", t.path / "turret.pie");
  place(kCli / "skinned.iqe", t.path / "skinned.iqe");
  BatchOptions o;
  o.task = BatchTask::Validate;
  o.inputs = {t.path.string()};
  o.profiles = {"WZ2100", "iqm-engines"};  // names in any case
  const BatchResult r = batch(o);
  EXPECT_EQ(item(r, "turret.pie").status, BatchStatus::Done);
  const BatchItem& hinge = item(r, "skinned.iqe");
  EXPECT_EQ(hinge.status, BatchStatus::Warned);
  ASSERT_EQ(hinge.diagnostics.size(), 2u);
  EXPECT_EQ(hinge.diagnostics[0].message.substr(0, 17), "[wz2100.skinning]");
  EXPECT_EQ(hinge.diagnostics[1].message.substr(0, 28), "[wz2100.texture-page-prefix]");
  o.profiles = {"quake9"};
  try {
    batch(o);
    ADD_FAILURE() << "an unknown profile should throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--profile: error: unknown profile 'quake9' (known: wz2100, iqm-engines)");
  }
}

TEST(Batch, BadOptionsThrow) {
  BatchOptions o;
  o.inputs = {"x"};
  o.to = Format::Glb;
  EXPECT_THROW(batch(o), Error);  // no output folder
  o.output_dir = "out";
  o.to.reset();
  EXPECT_THROW(batch(o), Error);  // no format
  o.to = Format::Glb;
  o.inputs.clear();
  EXPECT_THROW(batch(o), Error);  // no input
}

}  // namespace meshport_test_batch
