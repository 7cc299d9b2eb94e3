// Batch conversion to .glb of trees whose models share real-sized texture pages (issue 35):
// a generated Warzone 2100-shaped tree of 870 PIE files over 117 pages (1024 x 1024, every
// fourth 2048 x 2048), and the game's own data where Debian's warzone2100-data is installed.
// Both with the pages embedded in every .glb and with --external-textures; 2 threads.
// items/s is models per second; bytes/s is what the run writes (models and pages).
#include "generate_tree.h"

#include <meshport/batch.h>

#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace {

using namespace meshport;

struct Tree {
  fs::path root;  // in/ and out/ below it
  size_t models = 0, pages = 0;
  std::string label, skipped;  // skipped: why there is no tree
};

struct Remove {
  fs::path root;
  ~Remove() {
    if (!root.empty()) fs::remove_all(root);
  }
};

const Tree& generated() {
  static const Tree t = [] {
    Tree t;
    t.root = fs::temp_directory_path() / "meshport-bench-pages";
    fs::remove_all(t.root);
    bench::TreeParams p;
    p.files = 870;
    p.pages = 117;
    p.page_side = 1024;
    p.large_every = 4;
    const bench::TreeStats s = bench::write_pie_tree((t.root / "in").string(), p);
    t.models = size_t(s.files);
    t.pages = size_t(s.pages);
    t.label = fmt::format("generated: {} PIE, {} pages, {:.0f} MB of pages", s.files, s.pages, s.page_bytes / 1e6);
    return t;
  }();
  static const Remove remove{t.root};
  return t;
}

size_t count_files(const fs::path& dir, std::string_view extension) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += e.is_regular_file() && e.path().extension() == extension;
  return n;
}

// base.wz and mp.wz unzipped once: the models of base/ and mp/ (components, structs, features,
// effects, misc) and the pages of base/texpages.
const Tree& warzone() {
  static const Tree t = [] {
    Tree t;
    const fs::path data = "/usr/share/games/warzone2100";
    if (!fs::exists(data / "base.wz") || !fs::exists(data / "mp.wz")) {
      t.skipped = "warzone2100-data is not installed (/usr/share/games/warzone2100/base.wz, mp.wz)";
      return t;
    }
    t.root = fs::temp_directory_path() / "meshport-bench-wz";
    fs::remove_all(t.root);
    const fs::path in = t.root / "in";
    for (const char* part : {"base", "mp"}) {
      fs::create_directories(in / part);
      const std::string cmd = fmt::format("unzip -q -o '{}' 'components/*' 'structs/*' 'features/*' 'effects/*' "
                                          "'misc/*' 'texpages/*.png' -x 'texpages/*/*' -d '{}' >/dev/null 2>&1",
                                          (data / (std::string(part) + ".wz")).string(), (in / part).string());
      const int status = std::system(cmd.c_str());
      if (status != 0 && !fs::exists(in / part / "components")) {  // mp.wz has no misc/: status 11
        t.skipped = "cannot unzip warzone2100-data (is `unzip` installed?)";
        return t;
      }
    }
    t.models = count_files(in, ".pie");
    t.pages = count_files(in, ".png");
    t.label = fmt::format("warzone2100-data {}: {} PIE, {} pages", data.string(), t.models, t.pages);
    return t;
  }();
  static const Remove remove{t.root};
  return t;
}

uint64_t bytes_below(const fs::path& dir) {
  uint64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

void run(benchmark::State& state, const Tree& t) {
  if (!t.skipped.empty()) {
    state.SkipWithError(t.skipped.c_str());
    return;
  }
  BatchOptions o;
  o.inputs = {(t.root / "in").string()};
  o.output_dir = (t.root / "out").string();
  o.to = Format::Glb;
  o.jobs = 2;
  o.force = true;
  o.convert.write.external_textures = state.range(0) != 0;
  size_t failed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(o.output_dir);
    state.ResumeTiming();
    failed += batch(o).failed;
  }
  if (failed) state.SkipWithError("files failed");
  const uint64_t written = bytes_below(o.output_dir);
  state.SetItemsProcessed(int64_t(state.iterations() * t.models));
  state.SetBytesProcessed(int64_t(state.iterations() * written));
  state.SetLabel(fmt::format("{}; {}", t.label, o.convert.write.external_textures ? "external textures" : "embedded"));
  state.counters["MB_written"] = double(written) / 1e6;
}

void BM_BatchSharedPagesToGlb(benchmark::State& state) { run(state, generated()); }
BENCHMARK(BM_BatchSharedPagesToGlb)->ArgName("external")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BatchWarzoneDataToGlb(benchmark::State& state) { run(state, warzone()); }
BENCHMARK(BM_BatchWarzoneDataToGlb)->ArgName("external")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
