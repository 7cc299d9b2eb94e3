// Batch conversion of a Warzone 2100-shaped tree of 1,046 PIE files to .glb (issue 19): in one
// process on 2 threads (meshport::batch), and one `meshport convert` process per file, two at a
// time (what a shell loop with `xargs -P 2` does).
#include "generate_tree.h"

#include <meshport/batch.h>

#include <benchmark/benchmark.h>

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

extern char** environ;

namespace {

using namespace meshport;

struct Tree {
  fs::path root;
  bench::TreeStats stats;
  std::vector<std::string> files;
};

const Tree& tree() {
  static const Tree t = [] {
    Tree t;
    t.root = fs::temp_directory_path() / "meshport-bench-tree";
    fs::remove_all(t.root);
    t.stats = bench::write_pie_tree((t.root / "in").string());
    for (const auto& e : fs::recursive_directory_iterator(t.root / "in"))
      if (e.path().extension() == ".pie") t.files.push_back(e.path().string());
    return t;
  }();
  static const struct Remove {
    fs::path root;
    ~Remove() { fs::remove_all(root); }
  } remove{t.root};
  return t;
}

void BM_BatchPieTreeToGlb(benchmark::State& state) {
  const Tree& t = tree();
  BatchOptions o;
  o.inputs = {(t.root / "in").string()};
  o.output_dir = (t.root / "out").string();
  o.to = Format::Glb;
  o.jobs = unsigned(state.range(0));
  o.force = true;
  size_t failed = 0;
  for (auto _ : state) failed += batch(o).failed;
  if (failed) state.SkipWithError("files failed");
  state.SetItemsProcessed(int64_t(state.iterations()) * t.stats.files);
  state.SetBytesProcessed(int64_t(state.iterations() * t.stats.bytes));
  state.counters["files"] = double(t.stats.files);
}
BENCHMARK(BM_BatchPieTreeToGlb)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// The same tree, one `meshport convert` per file, two processes at a time.
void BM_BatchPieTreeProcessPerFile(benchmark::State& state) {
  const Tree& t = tree();
  const std::string cli = MESHPORT_CLI;
  const fs::path out = t.root / "out-processes";
  fs::create_directories(out);
  for (auto _ : state) {
    std::vector<pid_t> running;
    size_t next = 0, failed = 0;
    while (next < t.files.size() || !running.empty()) {
      while (running.size() < 2 && next < t.files.size()) {
        const std::string output = (out / (std::to_string(next) + ".glb")).string();
        std::vector<std::string> args{cli, "convert", "-q", t.files[next], "-o", output};
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = 0;
        if (posix_spawn(&pid, cli.c_str(), nullptr, nullptr, argv.data(), environ) == 0) running.push_back(pid);
        else ++failed;
        ++next;
      }
      int status = 0;
      const pid_t done = wait(&status);
      if (done < 0) break;
      running.erase(std::remove(running.begin(), running.end(), done), running.end());
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
    }
    if (failed) state.SkipWithError("conversions failed");
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * t.stats.files);
  state.SetBytesProcessed(int64_t(state.iterations() * t.stats.bytes));
}
BENCHMARK(BM_BatchPieTreeProcessPerFile)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace
