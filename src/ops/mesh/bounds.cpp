#include "ops/mesh/bounds.h"

#include "core/math.h"
#include "ops/animation/skinning.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <system_error>
#include <thread>

namespace meshport {

namespace ops {

Bounds rest_bounds(const Scene& scene) {
  Bounds b;
  for (const auto& m : scene.meshes) {
    const VertexStream* p = m.find(Attribute::Position);
    if (!p) continue;
    // GPU instances (Mesh::instances): the vertices of every copy.
    const size_t copies = std::max<size_t>(m.instances.size(), 1);
    for (size_t k = 0; k < copies; ++k) {
      const Mat3x4 t = m.instances.empty() ? mat_identity()
                                           : mat_from_trs(m.instances[k].translation, m.instances[k].rotation,
                                                          m.instances[k].scale);
      for (size_t v = 0, n = p->vertex_count(); v < n; ++v) {
        const Vec3 q = mat_apply(t, {p->get(v, 0), p->get(v, 1), p->get(v, 2)});
        for (uint32_t c = 0; c < 3; ++c) {
          const float x = m.instances.empty() ? p->get(v, c) : q[c];
          if (b.empty) b.min[c] = b.max[c] = x;
          b.min[c] = std::min(b.min[c], x);
          b.max[c] = std::max(b.max[c], x);
          if (c == 2) b.empty = false;
        }
      }
    }
  }
  return b;
}

namespace {

constexpr size_t kBlock = 16;  // frames skinned together: the inner loops run over them (SIMD)

// Skinning matrices of one block of frames, laid out [joint][element 0..11][frame in block].
using BlockMatrices = std::vector<float>;

// Per-frame accumulators of one thread: 8 arrays of `frames` floats.
struct Accum {
  size_t frames = 0;
  std::vector<float> v;  // minx miny minz maxx maxy maxz r2 h2
  explicit Accum(size_t f) : frames(f), v(f * 8) {
    const float inf = std::numeric_limits<float>::infinity();
    std::fill(v.begin(), v.begin() + f * 3, inf);
    std::fill(v.begin() + f * 3, v.begin() + f * 6, -inf);
    std::fill(v.begin() + f * 6, v.end(), 0.0f);
  }
  float* a(int k) { return v.data() + size_t(k) * frames; }
};

struct FrameRef {
  const Animation* anim;
  size_t frame;
};

BlockMatrices block_matrices(const Scene& scene, const std::vector<Mat3x4>& inv_rest, const std::vector<FrameRef>& refs,
                             size_t first) {
  const size_t nj = scene.joints.size();
  BlockMatrices m(nj * 12 * kBlock, 0.0f);
  for (size_t f = 0; f < kBlock && first + f < refs.size(); ++f) {
    const FrameRef& r = refs[first + f];
    std::vector<Mat3x4> skin = frame_skinning_matrices(scene, inv_rest, *r.anim, r.frame);
    for (size_t j = 0; j < nj; ++j)
      for (int e = 0; e < 12; ++e) m[(j * 12 + e) * kBlock + f] = skin[j][e];
  }
  return m;
}

// Skins vertices [begin, end) of one mesh for one block of frames into the accumulators, by the
// rule of skin_position (ops/animation/skinning.h) vectorised over frames: the inner loops run over the
// block's frames; an AVX-512 or AVX2 build of this function is picked at run time where the CPU
// has it (same operations in the same order, so the same results: no FMA, CMakeLists.txt). The
// AVX-512 build skins 560 M vertex-frames/s on one core against the AVX2 build's 349 M
// (BM_FrameBounds).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)  // ifunc: ELF only
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void skin_range(const SkinArrays& mr, size_t begin, size_t end, size_t step, const float* mats, size_t joints,
                size_t block_first, size_t block_count, Accum& acc) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  float x[kBlock], y[kBlock], z[kBlock];
  float mnx[kBlock], mny[kBlock], mnz[kBlock], mxx[kBlock], mxy[kBlock], mxz[kBlock], r2[kBlock], h2[kBlock];
  for (size_t f = 0; f < kBlock; ++f) {
    mnx[f] = mny[f] = mnz[f] = inf;
    mxx[f] = mxy[f] = mxz[f] = -inf;
    r2[f] = h2[f] = 0;
  }
  const size_t pc = mr.position_stride, nc = mr.influences, ic = mr.index_stride, wc = mr.weight_stride;
  const float* pos = mr.positions;
  const float* ids = mr.indices;
  const uint8_t* idb = mr.index_bytes;
  const float* wts = mr.weights;
  const uint8_t* wtb = mr.weight_bytes;
  const float* lut = mr.weight_values;
  const float njoints = float(joints);
  for (size_t v = begin; v < end; v += step) {
    const float px = pos[v * pc], py = pos[v * pc + 1], pz = pos[v * pc + 2];
    float wsum = 0;
    for (size_t f = 0; f < kBlock; ++f) x[f] = y[f] = z[f] = 0;
    for (size_t c = 0; c < nc; ++c) {
      const float w = wtb ? lut[wtb[v * wc + c]] : wts[v * wc + c];
      const float jf = idb ? float(idb[v * ic + c]) : ids[v * ic + c];
      if (w == 0 || !(jf >= 0) || !(jf < njoints)) continue;
      wsum += w;
      const float* m = mats + size_t(jf) * 12 * kBlock;
      for (size_t f = 0; f < kBlock; ++f) {
        x[f] += w * (m[0 * kBlock + f] * px + m[3 * kBlock + f] * py + m[6 * kBlock + f] * pz + m[9 * kBlock + f]);
        y[f] += w * (m[1 * kBlock + f] * px + m[4 * kBlock + f] * py + m[7 * kBlock + f] * pz + m[10 * kBlock + f]);
        z[f] += w * (m[2 * kBlock + f] * px + m[5 * kBlock + f] * py + m[8 * kBlock + f] * pz + m[11 * kBlock + f]);
      }
    }
    if (wsum == 0)
      for (size_t f = 0; f < kBlock; ++f) x[f] = px, y[f] = py, z[f] = pz;
    for (size_t f = 0; f < kBlock; ++f) {
      mnx[f] = x[f] < mnx[f] ? x[f] : mnx[f];
      mny[f] = y[f] < mny[f] ? y[f] : mny[f];
      mnz[f] = z[f] < mnz[f] ? z[f] : mnz[f];
      mxx[f] = x[f] > mxx[f] ? x[f] : mxx[f];
      mxy[f] = y[f] > mxy[f] ? y[f] : mxy[f];
      mxz[f] = z[f] > mxz[f] ? z[f] : mxz[f];
      const float h = x[f] * x[f] + z[f] * z[f], r = h + y[f] * y[f];
      r2[f] = r > r2[f] ? r : r2[f];
      h2[f] = h > h2[f] ? h : h2[f];
    }
  }
  float* out[8] = {mnx, mny, mnz, mxx, mxy, mxz, r2, h2};
  for (int k = 0; k < 8; ++k) {
    float* a = acc.a(k) + block_first;
    for (size_t f = 0; f < block_count; ++f) a[f] = k < 3 ? std::min(a[f], out[k][f]) : std::max(a[f], out[k][f]);
  }
}

// ---- Clusters that cannot move the bounds ------------------------------------------------------
// Most vertices lie well inside a frame's bounds. A cluster of kCluster consecutive vertices is
// described once by the box of its positions, the joints its influences use and the range of its
// weight sums; for a block of frames, the union of that box moved by each of its joints, scaled by
// the weight sums (a skinned position is sum w_i M_i p = s * (a convex combination of the M_i p),
// s = sum w_i), plus a margin far above the rounding of the skinning's float operations, bounds
// every position the cluster's vertices can take. When that lies within the bounds found so far
// (values of real vertices) in every frame of the block, no vertex of the cluster can change them
// and its skinning is skipped: the result is the same to the bit. Those bounds start from a
// sample (every kSample-th vertex, skinned exactly first), so the extremes are mostly known
// before the clusters are looked at.
constexpr size_t kCluster = 64, kSample = 32, kClusterJoints = 8;
constexpr float kMargin = 1e-5f;  // relative; the skinning's rounding is under 1e-6 of its terms

struct Cluster {
  size_t begin = 0, end = 0;
  bool testable = false;  // finite positions and weights >= 0, at most kClusterJoints joints
  bool rest = false;      // a vertex with no influence: it stays at its rest position
  float lo[3] = {}, hi[3] = {};  // the box of the positions, exactly
  float center[3] = {}, extent[3] = {}, size[3] = {};  // the box again, widened a little; size: |center| + extent
  float s_min = 0, s_max = 0;
  uint32_t joints[kClusterJoints] = {};
  uint32_t joint_count = 0;
};

// The joints of the influences skin_range uses (weight != 0, joint inside the skeleton) of
// vertices [begin, end), as a bit set (skeletons of up to 64 joints), and the weight sums; false
// when a weight is negative or not finite. Without branches on the data: this runs once per vertex.
bool cluster_influences(const SkinArrays& mr, size_t begin, size_t end, size_t joints, Cluster& c) {
  uint64_t set = 0;
  float s_min = std::numeric_limits<float>::infinity(), s_max = 0;
  bool bad = false, rest = false;
  if (mr.weight_bytes && mr.index_bytes) {  // what the IQM writer passes: by tables of the 256 bytes
    float usable[256];
    bool wrong[256];
    for (int b = 0; b < 256; ++b) {
      const float w = mr.weight_values[b];
      const bool ok = w > 0 && w < std::numeric_limits<float>::infinity();
      usable[b] = ok ? w : 0.0f;
      wrong[b] = w != 0 && !ok;
    }
    for (size_t v = begin; v < end; ++v) {
      float sum = 0;
      for (size_t k = 0; k < mr.influences; ++k) {
        const uint8_t b = mr.weight_bytes[v * mr.weight_stride + k], j = mr.index_bytes[v * mr.index_stride + k];
        const bool inside = j < joints;
        bad |= inside && wrong[b];
        const float w = inside ? usable[b] : 0.0f;
        set |= uint64_t(w != 0) << (j & 63);
        sum += w;
      }
      rest |= sum == 0;
      s_min = sum > 0 && sum < s_min ? sum : s_min;
      s_max = sum > s_max ? sum : s_max;
    }
  } else {
    const float njoints = float(joints);
    for (size_t v = begin; v < end; ++v) {
      float sum = 0;
      for (size_t k = 0; k < mr.influences; ++k) {
        const float w = mr.weight_bytes ? mr.weight_values[mr.weight_bytes[v * mr.weight_stride + k]]
                                        : mr.weights[v * mr.weight_stride + k];
        const float jf = mr.index_bytes ? float(mr.index_bytes[v * mr.index_stride + k]) : mr.indices[v * mr.index_stride + k];
        const bool used = w != 0 && jf >= 0 && jf < njoints;
        bad |= used && !(w > 0 && w < std::numeric_limits<float>::infinity());
        set |= uint64_t(used) << (used ? size_t(jf) & 63 : 0);
        sum += used ? w : 0.0f;
      }
      rest |= sum == 0;
      s_min = sum > 0 && sum < s_min ? sum : s_min;
      s_max = sum > s_max ? sum : s_max;
    }
  }
  if (bad || !(s_max < std::numeric_limits<float>::infinity())) return false;
  c.rest = rest;
  c.s_min = set ? s_min : 0;
  c.s_max = set ? s_max : 0;
  for (; set && c.joint_count < kClusterJoints; set &= set - 1) c.joints[c.joint_count++] = uint32_t(std::countr_zero(set));
  return set == 0;
}

Cluster describe(const SkinArrays& mr, size_t begin, size_t end, size_t joints) {
  Cluster c;
  c.begin = begin;
  c.end = end;
  if (joints > 64) return c;  // not tested: skinned as always
  float lo[3], hi[3];
  for (int k = 0; k < 3; ++k) lo[k] = std::numeric_limits<float>::infinity(), hi[k] = -lo[k];
  bool nan = false;  // a NaN is neither below nor above the box, and not inside it either
  for (size_t v = begin; v < end; ++v) {
    const float* p = mr.positions + v * mr.position_stride;
    for (int k = 0; k < 3; ++k) {
      lo[k] = p[k] < lo[k] ? p[k] : lo[k];
      hi[k] = p[k] > hi[k] ? p[k] : hi[k];
      nan |= p[k] != p[k];
    }
  }
  for (int k = 0; k < 3; ++k)
    if (nan || !(std::isfinite(lo[k]) && std::isfinite(hi[k]))) return c;
  if (!cluster_influences(mr, begin, end, joints, c)) return c;
  for (int k = 0; k < 3; ++k) {
    c.lo[k] = lo[k];
    c.hi[k] = hi[k];
    c.center[k] = lo[k] + (hi[k] - lo[k]) * 0.5f;
    c.extent[k] = std::max(hi[k] - c.center[k], c.center[k] - lo[k]) * (1 + kMargin);
    c.size[k] = std::fabs(c.center[k]) + c.extent[k];
  }
  c.testable = true;
  return c;
}

// Whether no vertex of `c` can move the bounds in `acc` for the frames [first, first + count):
// every frame of the block is computed at once (the inner loops run over the frames) and the
// answer is the AND of all of them.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
bool cluster_inside(const Cluster& c, const float* mats, const Accum& acc, size_t first, size_t count) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  float lo[3][kBlock], hi[3][kBlock], mag[kBlock];
  for (size_t f = 0; f < kBlock; ++f) {
    mag[f] = 0;
    for (int r = 0; r < 3; ++r) lo[r][f] = inf, hi[r][f] = -inf;
  }
  for (uint32_t k = 0; k < c.joint_count; ++k) {
    const float* m = mats + size_t(c.joints[k]) * 12 * kBlock;
    for (int r = 0; r < 3; ++r) {
      const float* a = m + r * kBlock;
      const float* b = m + (3 + r) * kBlock;
      const float* d = m + (6 + r) * kBlock;
      const float* t = m + (9 + r) * kBlock;
      for (size_t f = 0; f < kBlock; ++f) {
        const float mid = a[f] * c.center[0] + b[f] * c.center[1] + d[f] * c.center[2] + t[f];
        const float ext = std::fabs(a[f]) * c.extent[0] + std::fabs(b[f]) * c.extent[1] + std::fabs(d[f]) * c.extent[2];
        const float size = std::fabs(a[f]) * c.size[0] + std::fabs(b[f]) * c.size[1] + std::fabs(d[f]) * c.size[2] +
                           std::fabs(t[f]);
        lo[r][f] = mid - ext < lo[r][f] ? mid - ext : lo[r][f];
        hi[r][f] = mid + ext > hi[r][f] ? mid + ext : hi[r][f];
        mag[f] = size > mag[f] ? size : mag[f];
      }
    }
  }
  const float* a = acc.v.data() + first;
  const size_t n = acc.frames;
  bool inside = true;
  for (size_t f = 0; f < count; ++f) {
    const float margin = kMargin * c.s_max * mag[f] + 1e-30f;
    float e[3];
    bool ok = true;
    for (int r = 0; r < 3; ++r) {
      float l = c.joint_count ? std::min(c.s_min * lo[r][f], c.s_max * lo[r][f]) - margin : inf;
      float h = c.joint_count ? std::max(c.s_min * hi[r][f], c.s_max * hi[r][f]) + margin : -inf;
      if (c.rest) {  // vertices at their rest positions: the box itself
        l = std::min(l, c.lo[r]);
        h = std::max(h, c.hi[r]);
      }
      ok &= l >= a[r * n + f] && h <= a[(3 + r) * n + f];
      e[r] = std::max(std::fabs(l), std::fabs(h));
    }
    const float hz = (e[0] * e[0] + e[2] * e[2]) * (1 + kMargin);
    const float r2 = (e[0] * e[0] + e[2] * e[2] + e[1] * e[1]) * (1 + kMargin);
    ok &= r2 <= a[6 * n + f] && hz <= a[7 * n + f];
    inside &= ok;
  }
  return inside;
}

// Thread `t` of `threads` handles that share of every mesh's vertices, for every block: the
// sample first, then each cluster that could move the bounds (runs of them in one call).
// `skipped` counts the vertex-frames whose skinning was skipped.
void skin_share(const Scene& scene, std::span<const SkinArrays> meshes, const std::vector<BlockMatrices>& blocks,
                size_t frames, unsigned t, unsigned threads, bool cull, Accum& acc, uint64_t& skipped) {
  const size_t joints = scene.joints.size();
  std::vector<std::vector<Cluster>> clusters(meshes.size());
  for (size_t i = 0; i < meshes.size(); ++i) {
    const size_t n = meshes[i].count, begin = n * t / threads, end = n * (t + 1) / threads;
    for (size_t v = begin; v < end; v += kCluster) {
      Cluster c;  // untestable: always skinned
      c.begin = v;
      c.end = std::min(end, v + kCluster);
      clusters[i].push_back(cull ? describe(meshes[i], c.begin, c.end, joints) : c);
    }
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    const size_t first = b * kBlock, count = std::min(kBlock, frames - first);
    const float* mats = blocks[b].data();
    for (size_t i = 0; cull && i < meshes.size(); ++i) {
      const size_t n = meshes[i].count;
      skin_range(meshes[i], n * t / threads, n * (t + 1) / threads, kSample, mats, joints, first, count, acc);
    }
    for (size_t i = 0; i < meshes.size(); ++i) {
      size_t run = 0, run_end = 0;  // clusters to skin, not yet skinned
      for (const Cluster& c : clusters[i]) {
        if (c.testable && cluster_inside(c, mats, acc, first, count)) {
          skipped += (c.end - c.begin) * count;
          continue;
        }
        if (run_end != c.begin) {
          if (run_end > run) skin_range(meshes[i], run, run_end, 1, mats, joints, first, count, acc);
          run = c.begin;
        }
        run_end = c.end;
      }
      if (run_end > run) skin_range(meshes[i], run, run_end, 1, mats, joints, first, count, acc);
    }
  }
}

}  // namespace

std::vector<FrameBounds> skinned_frame_bounds(const Scene& scene, unsigned threads) {
  std::vector<SkinArrays> meshes;
  for (const Mesh& m : scene.meshes) {
    const SkinStreams r = skin_streams(m);
    if (!r.pos || r.pos->components < 3 || r.pos->vertex_count() == 0) continue;
    SkinArrays a;
    a.positions = r.pos->data.data();
    a.position_stride = r.pos->components;
    a.count = r.pos->vertex_count();
    if (r.idx) {
      a.influences = std::min(r.idx->components, r.wgt->components);
      a.indices = r.idx->data.data();
      a.index_stride = r.idx->components;
      a.weights = r.wgt->data.data();
      a.weight_stride = r.wgt->components;
    }
    meshes.push_back(a);
  }
  return skinned_frame_bounds(scene, meshes, threads);
}

std::vector<FrameBounds> skinned_frame_bounds(const Scene& scene, std::span<const SkinArrays> given, unsigned threads,
                                              bool cull, uint64_t* skipped) {
  std::vector<FrameRef> refs;
  for (const Animation& a : scene.animations)
    for (size_t f = 0; f < a.frame_count(); ++f) refs.push_back({&a, f});
  const size_t frames = refs.size();
  std::vector<FrameBounds> out(frames);

  std::vector<SkinArrays> meshes;
  size_t vertices = 0;
  for (const SkinArrays& m : given) {
    if (!m.count || m.position_stride < 3) continue;
    meshes.push_back(m);
    vertices += m.count;
  }
  if (frames == 0 || vertices == 0) return out;

  std::vector<Mat3x4> inv_rest = inverse_rest_matrices(scene.joints);
  std::vector<BlockMatrices> blocks;
  for (size_t first = 0; first < frames; first += kBlock)
    blocks.push_back(block_matrices(scene, inv_rest, refs, first));

  const size_t padded = blocks.size() * kBlock;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (vertices * frames < (1u << 20)) threads = 1;
  threads = unsigned(std::min<size_t>(threads, vertices));
  std::vector<Accum> acc(threads, Accum(padded));
  std::vector<uint64_t> skips(threads, 0);
  // skin_share allocates nothing, so no share can throw; only starting a thread can (under a
  // memory limit), and then this thread does that share too.
  std::vector<std::thread> pool;
  unsigned started = 1;
  for (; started < threads; ++started) {
    try {
      pool.emplace_back([&, t = started] { skin_share(scene, meshes, blocks, frames, t, threads, cull, acc[t], skips[t]); });
    } catch (const std::system_error&) {
      break;
    }
  }
  skin_share(scene, meshes, blocks, frames, 0, threads, cull, acc[0], skips[0]);
  for (unsigned t = started; t < threads; ++t) skin_share(scene, meshes, blocks, frames, t, threads, cull, acc[t], skips[t]);
  for (std::thread& t : pool) t.join();
  if (skipped)
    for (uint64_t k : skips) *skipped += k;

  for (size_t f = 0; f < frames; ++f) {
    FrameBounds& b = out[f];
    float r2 = 0, h2 = 0;
    for (size_t c = 0; c < 3; ++c) {
      b.min[c] = std::numeric_limits<float>::infinity();
      b.max[c] = -std::numeric_limits<float>::infinity();
    }
    for (Accum& a : acc) {
      for (int c = 0; c < 3; ++c) {
        b.min[c] = std::min(b.min[c], a.a(c)[f]);
        b.max[c] = std::max(b.max[c], a.a(3 + c)[f]);
      }
      r2 = std::max(r2, a.a(6)[f]);
      h2 = std::max(h2, a.a(7)[f]);
    }
    b.radius = std::sqrt(r2);
    b.horizontal_radius = std::sqrt(h2);
  }
  return out;
}

}  // namespace ops

std::vector<FrameBounds> frame_bounds(const Scene& scene) { return ops::skinned_frame_bounds(scene); }

}  // namespace meshport
