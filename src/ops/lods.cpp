// Levels of detail (process.h make_lods, add_lod_meshes).
//
// Each level is simplified from the full Scene, never from the level before (decision: a chain
// would add the errors of every step and make level n depend on level n - 1's choices; from the
// full mesh each level's error is its own, and the levels can run at the same time). A level's
// steps after simplification are those of ProcessOptions that follow it in process() (normals,
// tangents, optimisation, modes animation), so a level is exactly what `convert --simplify RATIO`
// with the same flags gives. Levels run on threads of their own; each has its own Diagnostics,
// appended to the caller's in level order, so the result is the same for any thread count.
#include <meshport/process.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
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

void make_level(const Scene& scene, LodLevel& level, const ProcessOptions& after, Diagnostics& d) {
  level.scene = scene;
  SimplifyOptions o;
  o.ratio = level.ratio;
  std::vector<SimplifyResult> results;
  simplify_meshes(level.scene, o, &d, &results);
  for (const SimplifyResult& r : results) level.error = std::max(level.error, r.error);
  process(level.scene, after, &d);
  level.triangles = 0;
  for (const Mesh& m : level.scene.meshes)
    if (m.topology == Topology::Triangles) level.triangles += m.triangles.size() / 3;
}

}  // namespace

std::vector<LodLevel> make_lods(const Scene& scene, const std::vector<float>& ratios, const ProcessOptions& after,
                                Diagnostics* diags) {
  for (float r : ratios)
    if (!(r > 0.0f && r <= 1.0f)) fail("", fmt::format("--lods {}: every ratio must be in (0, 1]", r));
  std::vector<LodLevel> levels(ratios.size());
  for (size_t i = 0; i < ratios.size(); ++i) levels[i].ratio = ratios[i];
  const unsigned cores = after.threads ? after.threads : std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>(cores, levels.size());
  // One level per thread at a time; a level's own steps get the threads left over.
  const ProcessOptions steps = steps_after_simplify(after, workers > 1 ? 1 : after.threads);
  std::vector<Diagnostics> local(levels.size());
  std::vector<std::exception_ptr> errors(levels.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < levels.size();) {
      try {
        make_level(scene, levels[i], steps, local[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    if (diags)
      for (Diagnostic& item : local[i].items) diags->add(std::move(item));
    if (errors[i]) std::rethrow_exception(errors[i]);
  }
  return levels;
}

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
      scene.meshes.push_back(std::move(lod));
    }
  }
}

}  // namespace meshport
