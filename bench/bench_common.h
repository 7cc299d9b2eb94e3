// Shared state of the benchmarks: the generated model (made once per process, written to a
// temporary folder removed at exit), its parsed Scene and its IQM bytes.
#pragma once

#include "formats/iqe/iqe.h"
#include "formats/iqm/iqm.h"
#include "generate.h"

#include <benchmark/benchmark.h>
#include <meshport/meshport.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace meshport::bench {

namespace fs = std::filesystem;

struct Model {
  GenParams params;
  GenStats stats;
  std::string iqe;  // the IQE text
  fs::path dir;     // temporary folder
  fs::path iqe_path;

  Model() {
    if (const char* v = std::getenv("MESHPORT_BENCH_VERTICES")) params.vertices = std::strtoull(v, nullptr, 10);
    if (params.vertices == 0) params.vertices = 200000;
    iqe = generate_iqe(params, &stats);
    dir = fs::temp_directory_path() / ("meshport_bench_" + std::to_string(getpid()));
    fs::create_directories(dir);
    iqe_path = dir / "model.iqe";
    std::ofstream(iqe_path, std::ios::binary).write(iqe.data(), std::streamsize(iqe.size()));
  }
  ~Model() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

inline Model& model() {
  static Model m;
  return m;
}

// The model read from IQE; nullptr (and `error` set) when that fails.
inline const Scene* scene(std::string& error) {
  static std::optional<Scene> s;
  static std::string err;
  if (!s && err.empty()) {
    try {
      Diagnostics d;
      s = iqe::read(model().iqe, "model.iqe", d);
    } catch (const std::exception& e) {
      err = e.what();
    }
  }
  error = err;
  return s ? &*s : nullptr;
}

// The model written as IQM with adjacency and bounds; nullptr (and `error` set) when that fails.
inline const std::vector<uint8_t>* iqm_bytes(std::string& error) {
  static std::optional<std::vector<uint8_t>> b;
  static std::string err;
  if (!b && err.empty()) {
    if (const Scene* s = scene(err)) {
      try {
        Diagnostics d;
        b = iqm::write(*s, WriteOptions{}, d);
      } catch (const std::exception& e) {
        err = e.what();
      }
    }
  }
  error = err;
  return b ? &*b : nullptr;
}

// MB/s from `bytes` per iteration; items/s are vertices, plus a triangles/s counter.
inline void set_rates(benchmark::State& state, uint64_t bytes) {
  const auto& st = model().stats;
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
  state.SetItemsProcessed(int64_t(state.iterations() * st.vertices));
  state.counters["tris/s"] = benchmark::Counter(double(state.iterations() * st.triangles), benchmark::Counter::kIsRate);
}

}  // namespace meshport::bench
