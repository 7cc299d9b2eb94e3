#include "ops/mesh/bounds.h"

#include "core/math.h"
#include "ops/animation/skinning.h"

#include <algorithm>
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
void skin_range(const SkinArrays& mr, size_t begin, size_t end, const float* mats, size_t joints, size_t block_first,
                size_t block_count, Accum& acc) {
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
  for (size_t v = begin; v < end; ++v) {
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

// Thread `t` of `threads` handles that share of every mesh's vertices, for every block.
void skin_share(const Scene& scene, std::span<const SkinArrays> meshes, const std::vector<BlockMatrices>& blocks,
                size_t frames, unsigned t, unsigned threads, Accum& acc) {
  for (size_t b = 0; b < blocks.size(); ++b) {
    const size_t first = b * kBlock, count = std::min(kBlock, frames - first);
    for (const SkinArrays& mr : meshes) {
      const size_t n = mr.count;
      skin_range(mr, n * t / threads, n * (t + 1) / threads, blocks[b].data(), scene.joints.size(), first, count, acc);
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

std::vector<FrameBounds> skinned_frame_bounds(const Scene& scene, std::span<const SkinArrays> given, unsigned threads) {
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
  // skin_share allocates nothing, so no share can throw; only starting a thread can (under a
  // memory limit), and then this thread does that share too.
  std::vector<std::thread> pool;
  unsigned started = 1;
  for (; started < threads; ++started) {
    try {
      pool.emplace_back([&, t = started] { skin_share(scene, meshes, blocks, frames, t, threads, acc[t]); });
    } catch (const std::system_error&) {
      break;
    }
  }
  skin_share(scene, meshes, blocks, frames, 0, threads, acc[0]);
  for (unsigned t = started; t < threads; ++t) skin_share(scene, meshes, blocks, frames, t, threads, acc[t]);
  for (std::thread& t : pool) t.join();

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
