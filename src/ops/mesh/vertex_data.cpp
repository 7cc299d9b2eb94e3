#include "ops/mesh/vertex_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace meshport::ops {

int uv_set_of(const VertexStream& s) {
  if (s.attribute == Attribute::Texcoord) return 0;
  if (s.attribute != Attribute::Custom || s.components != 2 || !s.name.starts_with("texcoord")) return -1;
  const std::string_view digits = std::string_view(s.name).substr(8);
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || n <= 0 || digits[0] == '0') return -1;
  return n;
}

namespace {

bool is_custom_array(const VertexStream& s) {
  return s.attribute == Attribute::Custom && !is_format_stream(s) && uv_set_of(s) < 0;
}

bool alpha_not_one(const VertexStream& s) {
  for (size_t v = 0; v < s.vertex_count(); ++v)
    if (s.get(v, 3, 1.0f) != 1.0f) return true;
  return false;
}

bool drops_stream(const VertexStream& s, const VertexKeeps& k) {
  const int set = uv_set_of(s);
  return (s.attribute == Attribute::Color && !k.colours) || (set >= 0 && uint32_t(set) >= k.uv_sets) ||
         (!k.custom_arrays && is_custom_array(s)) ||
         (k.joints_per_vertex == 0 && (s.attribute == Attribute::BlendIndices || s.attribute == Attribute::BlendWeights));
}

bool too_many_joints(const Mesh& m, uint32_t n) {
  const VertexStream* bi = m.find(Attribute::BlendIndices);
  const VertexStream* bw = m.find(Attribute::BlendWeights);
  return n > 0 && bi && bw && std::max(bi->components, bw->components) > n;
}

bool mesh_fits(const Mesh& m, const VertexKeeps& k) {
  if (!k.morph_targets && !m.morph_targets.empty()) return false;
  if (too_many_joints(m, k.joints_per_vertex)) return false;
  return std::none_of(m.streams.begin(), m.streams.end(), [&](const VertexStream& s) {
    return drops_stream(s, k) || (s.attribute == Attribute::Color && k.colours && !k.colour_alpha && s.components > 3 &&
                                  alpha_not_one(s));
  });
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The influences a vertex keeps, renormalised (see fit_vertex_data in the header).
void keep_largest(const float* idx, const float* in_wgt, uint32_t k, uint32_t n, float* oi, float* ow, bool& reduced) {
  const float sum = largest_influences(idx, in_wgt, k, n, oi, ow, reduced);
  if (!reduced || !(sum > 0) || !std::isfinite(sum)) return;
  if (n == 2) {  // a pair as TFQMSH10 holds it: w0 / (w0 + w1) in double, and its complement
    ow[0] = float(double(ow[0]) / (double(ow[0]) + ow[1]));
    ow[1] = 1.0f - ow[0];
    return;
  }
  for (uint32_t c = 0; c < n; ++c) ow[c] /= sum;
}

// The blend streams of `m` cut to n components; the number of vertices that lost influences.
size_t reduce_influences(Mesh& m, uint32_t n) {
  VertexStream& bi = *m.find(Attribute::BlendIndices);
  VertexStream& bw = *m.find(Attribute::BlendWeights);
  const uint32_t k = std::min(bi.components, bw.components);
  const size_t nv = std::min(bi.vertex_count(), bw.vertex_count());
  std::vector<float> idx(nv * n), wgt(nv * n);
  size_t reduced = 0;
  for (size_t v = 0; v < nv; ++v) {
    bool r = false;
    keep_largest(bi.data.data() + v * bi.components, bw.data.data() + v * bw.components, k, n, idx.data() + v * n,
                 wgt.data() + v * n, r);
    reduced += r;
  }
  for (VertexStream* s : {&bi, &bw}) s->components = n, s->source_size = std::min(s->source_size, n);
  bi.data = std::move(idx);
  bw.data = std::move(wgt);
  return reduced;
}

// What a write left out of each kind, mesh by mesh: one warning per kind names the meshes.
struct Losses {
  struct Where {
    std::string mesh;
    size_t count = 0;          // values of the kind it lost (vertices, targets, arrays)
    std::string what;          // the arrays' names
  };
  std::vector<Where> colours, alpha, uv, custom, skin, joints, morphs;
};

// "'a': 3, 'b': 2" (counts) or "'a': texcoord1, texcoord2" (names), the first 8 meshes.
std::string places(const std::vector<Losses::Where>& w, bool counts) {
  std::string out;
  for (size_t i = 0; i < w.size() && i < 8; ++i) {
    out += (i ? ", '" : "'") + w[i].mesh + "'";
    if (counts) out += fmt::format(": {}", w[i].count);
    if (!w[i].what.empty()) out += ": " + w[i].what;
  }
  if (w.size() > 8) out += fmt::format(" and {} more", w.size() - 8);
  return out;
}

size_t total(const std::vector<Losses::Where>& w) {
  size_t n = 0;
  for (const Losses::Where& x : w) n += x.count;
  return n;
}

std::string meshes(size_t n) { return n == 1 ? "1 mesh" : fmt::format("{} meshes", n); }

void fit_streams(Mesh& m, const VertexKeeps& k, Losses& lost) {
  std::vector<std::string> uv, custom;
  bool colours = false, alpha = false, skin = false;
  std::vector<VertexStream> kept;
  for (VertexStream& s : m.streams) {
    if (!drops_stream(s, k)) {
      if (s.attribute == Attribute::Color && !k.colour_alpha && s.components > 3 && alpha_not_one(s)) {
        std::vector<float> rgb;
        for (size_t v = 0; v < s.vertex_count(); ++v)
          for (uint32_t c = 0; c < 3; ++c) rgb.push_back(s.get(v, c));
        s.data = std::move(rgb), s.components = 3, s.source_size = std::min(s.source_size, 3u);
        alpha = true;
      }
      kept.push_back(std::move(s));
      continue;
    }
    if (s.attribute == Attribute::Color) colours = true;
    else if (uv_set_of(s) >= 0) uv.push_back(s.attribute == Attribute::Texcoord ? "texcoord" : s.name);
    else if (s.attribute == Attribute::Custom) custom.push_back(s.name.empty() ? "custom" : s.name);
    else skin = true;
  }
  m.streams = std::move(kept);
  if (colours) lost.colours.push_back({m.name, 1, ""});
  if (alpha) lost.alpha.push_back({m.name, 1, ""});
  if (!uv.empty()) lost.uv.push_back({m.name, uv.size(), joined_names(uv)});
  if (!custom.empty()) lost.custom.push_back({m.name, custom.size(), joined_names(custom)});
  if (skin) lost.skin.push_back({m.name, 1, ""});
}

void warn(const Losses& l, const VertexKeeps& k, std::string_view format, Diagnostics& d) {
  const auto add = [&](const std::vector<Losses::Where>& w, const std::string& message) {
    if (!w.empty()) d.add(warning("", message));
  };
  add(l.colours, fmt::format("the vertex colours of {} are not written: {} has no vertex colours ({})",
                             meshes(l.colours.size()), format, places(l.colours, false)));
  add(l.alpha, fmt::format("the alpha of the vertex colours of {} is not written: {} colours have no alpha ({})",
                           meshes(l.alpha.size()), format, places(l.alpha, false)));
  add(l.uv, fmt::format("{} texture coordinate sets are not written: {} holds {} ({})", total(l.uv), format,
                        k.uv_sets, places(l.uv, false)));
  add(l.custom, fmt::format("{} custom vertex arrays are not written: {} has no custom vertex arrays ({})",
                            total(l.custom), format, places(l.custom, false)));
  add(l.skin, fmt::format("the joint influences (blend weights) of {} are not written: {} has no skinning ({})",
                          meshes(l.skin.size()), format, places(l.skin, false)));
  const uint32_t n = k.joints_per_vertex;
  add(l.joints, fmt::format("{} vertices have more than {}: {}, renormalised; {} holds {} per vertex ({})",
                            total(l.joints), n == 1 ? "1 joint influence" : fmt::format("{} joint influences", n),
                            n == 1 ? "the largest is kept" : fmt::format("the {} largest are kept", n), format, n,
                            places(l.joints, true)));
  add(l.morphs, fmt::format("{} morph targets are not written: {} has no morph targets ({})", total(l.morphs), format,
                            places(l.morphs, true)));
}

}  // namespace

bool vertex_data_fits(const Scene& scene, const VertexKeeps& keeps) {
  return std::all_of(scene.meshes.begin(), scene.meshes.end(), [&](const Mesh& m) { return mesh_fits(m, keeps); });
}

void fit_vertex_data(Scene& scene, const VertexKeeps& keeps, std::string_view format, Diagnostics& d) {
  Losses lost;
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    Mesh& m = scene.meshes[i];
    if (mesh_fits(m, keeps)) continue;
    fit_streams(m, keeps, lost);
    if (too_many_joints(m, keeps.joints_per_vertex))
      if (const size_t n = reduce_influences(m, keeps.joints_per_vertex)) lost.joints.push_back({m.name, n, ""});
    if (!keeps.morph_targets && !m.morph_targets.empty()) {
      lost.morphs.push_back({m.name, m.morph_targets.size(), ""});
      m.morph_targets.clear();
      m.morph_weights.clear();
      for (Animation& a : scene.animations)
        for (MorphWeightTrack& t : a.morph_weights)
          if (t.mesh == int32_t(i)) t.weights.clear();
    }
  }
  warn(lost, keeps, format, d);
}

float largest_influences(const float* idx, const float* in_wgt, uint32_t k, uint32_t n, float* oi, float* ow,
                         bool& reduced) {
  if (k <= n) {  // every influence fits: all kept, in order (what the selection below gives)
    float sum = 0;
    for (uint32_t c = 0; c < k; ++c) {
      oi[c] = idx[c];
      ow[c] = in_wgt[c];
      sum += in_wgt[c];
    }
    for (uint32_t c = k; c < n; ++c) oi[c] = ow[c] = 0;
    reduced = false;
    return sum;
  }
  float small_wgt[64];
  bool small_keep[64] = {};
  std::vector<float> big_wgt;
  std::vector<char> big_keep;
  float* wgt = small_wgt;
  bool* keep = small_keep;
  if (k > 64) {  // more than any format holds: only a hostile file has them
    big_wgt.resize(k);
    big_keep.assign(k, 0);
    wgt = big_wgt.data();
    keep = reinterpret_cast<bool*>(big_keep.data());
  }
  std::copy(in_wgt, in_wgt + k, wgt);
  uint32_t used = 0;
  for (uint32_t c = 0; c < k; ++c) used += in_wgt[c] != 0;
  reduced = used > n;
  if (reduced)
    for (uint32_t c = 0; c < k; ++c)
      for (uint32_t e = 0; e < c; ++e)
        if (idx[e] == idx[c] && wgt[e] > 0 && wgt[c] > 0) {
          wgt[e] += wgt[c];
          wgt[c] = 0;
          break;
        }
  for (uint32_t r = 0; r < std::min(k, n); ++r) {
    int best = -1;
    for (uint32_t c = 0; c < k; ++c)
      if (!keep[c] && (best < 0 || wgt[c] > wgt[size_t(best)])) best = int(c);
    keep[size_t(best)] = true;
  }
  float sum = 0;
  uint32_t o = 0;
  for (uint32_t c = 0; c < k; ++c)
    if (keep[c]) {
      oi[o] = idx[c];
      ow[o++] = wgt[c];
      sum += wgt[c];
    }
  for (; o < n; ++o) oi[o] = ow[o] = 0;
  return sum;
}

}  // namespace meshport::ops
