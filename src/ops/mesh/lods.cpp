// Levels of detail (process.h make_lods, add_lod_meshes).
//
// Each level is simplified from the full Scene, never from the level before (decision: a chain
// would add the errors of every step and make level n depend on level n - 1's choices; from the
// full mesh each level's error is its own, and the levels can run at the same time). A level's
// steps after simplification are those of ProcessOptions that follow it in process() (normals,
// tangents, optimisation, modes animation), so a level is exactly what `convert --simplify RATIO`
// with the same flags gives. The work runs on threads: each (level, mesh) pair is a task of its
// own (meshoptimizer's simplifier takes most of the time, and one call is one mesh), each with
// its own Diagnostics, appended to the caller's in order, so the result is the same for any
// thread count.
#include <meshport/process.h>

#include "ops/mesh/remap.h"
#include "ops/mesh/simplify.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>

namespace meshport {

namespace {

// The steps of `after` that follow simplification.
ProcessOptions steps_after_simplify(const ProcessOptions& after, unsigned threads) {
  ProcessOptions p = after;
  p.expand_instances = p.flip_winding = p.flip_v = p.weld = false;
  p.transform = TransformOptions{};
  p.simplify = SimplifyOptions{};
  p.threads = threads;
  return p;
}

// Runs task(i) for i in 0 .. count-1 on `workers` threads (the calling thread is one; where no
// more threads can be started, as in the WebAssembly build, on those there are).
template <class Task>
void run_tasks(size_t count, size_t workers, Task task) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) task(i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min(workers, count); ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the tasks left are done by those running
    }
  }
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace

std::vector<LodLevel> make_lods(const Scene& scene, const std::vector<float>& ratios, const ProcessOptions& after,
                                Diagnostics* diags, const std::vector<std::string>& files) {
  for (float r : ratios)
    if (!(r > 0.0f && r <= 1.0f)) fail("", fmt::format("--lods {}: every ratio must be in (0, 1]", r));
  for (const Mesh& m : scene.meshes) ops::check_mesh(m);
  const size_t nl = ratios.size(), nm = scene.meshes.size();
  std::vector<LodLevel> levels(nl);
  for (size_t i = 0; i < nl; ++i) levels[i].ratio = ratios[i];
  const size_t workers = after.threads ? after.threads : std::max(1u, std::thread::hardware_concurrency());
  // Diagnostics and errors per task, appended / rethrown in order afterwards.
  std::vector<Diagnostics> local(nl * (nm + 1));
  std::vector<std::exception_ptr> errors(local.size());
  auto guarded = [&](size_t slot, auto&& f) {
    try {
      f(local[slot]);
    } catch (...) {
      errors[slot] = std::current_exception();
    }
  };
  // Three rounds on the threads: the copies; every (level, mesh) pair, largest first, so that the
  // threads share the work of a model with one huge mesh as well as of many small ones; then the
  // steps after simplification per level (with the threads left over when there are few levels).
  run_tasks(nl, workers, [&](size_t l) { guarded(l * (nm + 1) + nm, [&](Diagnostics&) { levels[l].scene = scene; }); });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<std::pair<size_t, size_t>> pairs;  // (level, mesh)
  for (size_t l = 0; l < nl; ++l)
    for (size_t m = 0; m < nm; ++m)
      if (scene.meshes[m].topology == Topology::Triangles && !scene.meshes[m].triangles.empty()) pairs.emplace_back(l, m);
  std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
    return scene.meshes[a.second].triangles.size() > scene.meshes[b.second].triangles.size();
  });
  std::vector<std::vector<SimplifyResult>> results(local.size());
  run_tasks(pairs.size(), workers, [&](size_t k) {
    const size_t l = pairs[k].first, m = pairs[k].second;  // not a structured binding: the lambda below uses them
    const size_t slot = l * (nm + 1) + m;
    guarded(slot, [&](Diagnostics& d) {
      SimplifyOptions o;
      o.ratio = levels[l].ratio;
      ops::simplify_one(levels[l].scene, m, o, &d, &results[slot]);
    });
  });
  const ProcessOptions steps = steps_after_simplify(after, nl >= workers ? 1 : after.threads);
  run_tasks(nl, workers, [&](size_t l) {
    guarded(l * (nm + 1) + nm, [&](Diagnostics& d) {
      for (size_t m = 0; m < nm; ++m)
        for (const SimplifyResult& r : results[l * (nm + 1) + m]) levels[l].error = std::max(levels[l].error, r.error);
      process(levels[l].scene, steps, &d);
      for (const Mesh& mesh : levels[l].scene.meshes)
        if (mesh.topology == Topology::Triangles) levels[l].triangles += mesh.triangles.size() / 3;
    });
  });
  for (size_t i = 0; i < local.size(); ++i) {
    const size_t l = i / (nm + 1);
    if (diags)
      for (Diagnostic& item : local[i].items) {
        item.message = fmt::format("LOD {}: {}", l + 1, item.message);
        if (item.file.empty() && files.size() == nl) item.file = files[l];
        diags->add(std::move(item));
      }
    if (errors[i]) std::rethrow_exception(errors[i]);
  }
  return levels;
}

namespace {

// A level keeps its mesh's morph targets, so it moves as the mesh does: each animation's morph
// weight tracks of mesh `from` are copied for mesh `to` (else a viewer switching to the level
// would show it still).
void copy_morph_weight_tracks(Scene& scene, int32_t from, int32_t to) {
  for (Animation& a : scene.animations)
    for (size_t t = 0, n = a.morph_weights.size(); t < n; ++t)
      if (a.morph_weights[t].mesh == from) {
        MorphWeightTrack copy = a.morph_weights[t];
        copy.mesh = to;
        a.morph_weights.push_back(std::move(copy));
      }
}

}  // namespace

void add_lod_meshes(Scene& scene, const std::vector<LodLevel>& levels) {
  const size_t base = scene.meshes.size();
  for (size_t l = 0; l < levels.size(); ++l) {
    const Scene& s = levels[l].scene;
    for (size_t i = 0; i < std::min(base, s.meshes.size()); ++i) {
      const Mesh& full = scene.meshes[i];
      const Mesh& m = s.meshes[i];
      if (full.lod != 0 || m.topology != Topology::Triangles || m.triangles.size() >= full.triangles.size()) continue;
      Mesh lod = m;
      lod.lod = uint32_t(l + 1);
      lod.lod_of = int32_t(i);
      const bool morphs = !lod.morph_targets.empty();
      scene.meshes.push_back(std::move(lod));
      if (morphs) copy_morph_weight_tracks(scene, int32_t(i), int32_t(scene.meshes.size() - 1));
    }
  }
}

}  // namespace meshport
