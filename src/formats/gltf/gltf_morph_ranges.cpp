// Morph weights outside [0, 1] encoded as "+" and "-" targets of scaled displacements
// (gltf_morph_ranges.h), and merged back.
#include "formats/gltf/gltf_morph_ranges.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace meshport::gltf {

namespace {

// The weights a target takes: its largest magnitude, and whether one is negative.
struct WeightRange {
  float max_abs = 0;
  bool negative = false;
  void add(float w) {
    if (!std::isfinite(w)) return;  // written as 0 (gltf_write_animations.cpp warns)
    max_abs = std::max(max_abs, std::fabs(w));
    negative = negative || w < 0;
  }
  bool needs_encoding() const { return negative || max_abs > 1; }
};

// The smallest power of two >= m (1 for m <= 1).
float power_of_two_above(float m) {
  if (m <= 1) return 1;
  int e = 0;
  const float f = std::frexp(m, &e);  // m = f * 2^e, f in [0.5, 1)
  return std::ldexp(1.0f, f == 0.5f ? e - 1 : e);
}

// Whether every displacement of `t` times `s` stays finite.
bool scales_finitely(const MorphTarget& t, float s) {
  const float limit = std::numeric_limits<float>::max() / s;
  for (const std::vector<float>* v : {&t.positions, &t.normals, &t.tangents})
    for (float x : *v)
      if (std::isfinite(x) && std::fabs(x) > limit) return false;
  return true;
}

MorphTarget scaled(const MorphTarget& t, float s) {
  MorphTarget r = t;
  for (std::vector<float>* v : {&r.positions, &r.normals, &r.tangents})
    for (float& x : *v) x *= s;
  return r;
}

// The ranges of one mesh's targets over its default weights and every track animating it.
std::vector<WeightRange> weight_ranges(const Scene& scene, size_t mi) {
  const Mesh& m = scene.meshes[mi];
  const size_t n = m.morph_targets.size();
  std::vector<WeightRange> r(n);
  for (size_t k = 0; k < n && k < m.morph_weights.size(); ++k) r[k].add(m.morph_weights[k]);
  for (const Animation& a : scene.animations)
    for (const MorphWeightTrack& t : a.morph_weights) {
      if (t.mesh != int32_t(mi) || t.weights.size() != t.times.size() * n) continue;
      for (size_t i = 0; i < t.weights.size(); ++i) r[i % n].add(t.weights[i]);
    }
  return r;
}

// Per glTF target: whether its Scene target is encoded (split in two or scaled), not as it is.
std::vector<uint8_t> encoded_targets(const MorphRanges& r) {
  std::vector<uint32_t> count;
  for (int32_t k : r.source) {
    if (size_t(k) >= count.size()) count.resize(size_t(k) + 1, 0);
    ++count[size_t(k)];
  }
  std::vector<uint8_t> out(r.source.size());
  for (size_t j = 0; j < out.size(); ++j) out[j] = count[size_t(r.source[j])] > 1 || r.scale[j] != 1;
  return out;
}

// The weights of one key (or the defaults) in the encoded form.
std::vector<float> encode_weights(const float* w, const MorphRanges& r, const std::vector<uint8_t>& encoded) {
  std::vector<float> out(r.source.size());
  for (size_t j = 0; j < out.size(); ++j) {
    const float x = w[r.source[j]];
    if (!encoded[j] || !std::isfinite(x))
      out[j] = x;
    else
      out[j] = std::max(r.scale[j] > 0 ? x : -x, 0.0f) / std::fabs(r.scale[j]);
  }
  return out;
}

}  // namespace

std::optional<Scene> with_morph_ranges(const Scene& scene, std::vector<std::optional<MorphRanges>>& ranges,
                                       std::vector<std::string>& warnings) {
  ranges.assign(scene.meshes.size(), std::nullopt);
  bool any = false;
  for (size_t mi = 0; mi < scene.meshes.size(); ++mi) {
    const Mesh& m = scene.meshes[mi];
    if (m.morph_targets.empty()) continue;
    const std::vector<WeightRange> wr = weight_ranges(scene, mi);
    MorphRanges r;
    bool encoded = false;
    for (size_t k = 0; k < wr.size(); ++k) {
      const float s = power_of_two_above(wr[k].max_abs);
      if (wr[k].needs_encoding() && !scales_finitely(m.morph_targets[k], s)) {
        warnings.push_back(fmt::format("mesh {} ('{}'): morph target {} ('{}') written with weights up to {} as they "
                                       "are (its displacements times {} would overflow): Blender shows weights "
                                       "outside [0, 1] clamped",
                                       mi, m.name, k, m.morph_targets[k].name, wr[k].max_abs, s));
        r.source.push_back(int32_t(k)), r.scale.push_back(1);
        continue;
      }
      if (!wr[k].needs_encoding()) {
        r.source.push_back(int32_t(k)), r.scale.push_back(1);
        continue;
      }
      encoded = true;
      r.source.push_back(int32_t(k)), r.scale.push_back(s);
      if (wr[k].negative) r.source.push_back(int32_t(k)), r.scale.push_back(-s);
    }
    if (encoded) ranges[mi] = std::move(r), any = true;
  }
  if (!any) return std::nullopt;

  Scene out = scene;
  for (size_t mi = 0; mi < out.meshes.size(); ++mi) {
    if (!ranges[mi]) continue;
    const MorphRanges& r = *ranges[mi];
    const std::vector<uint8_t> encoded = encoded_targets(r);
    Mesh& m = out.meshes[mi];
    const size_t n = m.morph_targets.size();
    std::vector<MorphTarget> targets;
    targets.reserve(r.source.size());
    for (size_t j = 0; j < r.source.size(); ++j) {
      const MorphTarget& t = scene.meshes[mi].morph_targets[size_t(r.source[j])];
      targets.push_back(r.scale[j] == 1 ? t : scaled(t, r.scale[j]));
      if (r.scale[j] < 0 && !t.name.empty()) targets.back().name += "-neg";
    }
    m.morph_targets = std::move(targets);
    if (m.morph_weights.size() == n) m.morph_weights = encode_weights(m.morph_weights.data(), r, encoded);
    for (Animation& a : out.animations)
      for (MorphWeightTrack& t : a.morph_weights) {
        if (t.mesh != int32_t(mi) || t.weights.size() != t.times.size() * n) continue;
        std::vector<float> w;
        w.reserve(t.times.size() * r.source.size());
        for (size_t key = 0; key < t.times.size(); ++key) {
          const std::vector<float> e = encode_weights(&t.weights[key * n], r, encoded);
          w.insert(w.end(), e.begin(), e.end());
        }
        t.weights = std::move(w);
      }
  }
  return out;
}

nlohmann::json morph_ranges_json(const MorphRanges& r) {
  return {{"source", r.source}, {"scale", r.scale}};
}

MorphRanges morph_ranges_from_json(const nlohmann::json& j, size_t targets) {
  auto bad = [](const std::string& what) { fail("", fmt::format("morph_ranges: {}", what)); };
  if (!j.is_object()) bad(fmt::format("is {}, not an object", j.type_name()));
  const auto source = j.find("source"), scale = j.find("scale");
  if (source == j.end() || scale == j.end() || !source->is_array() || !scale->is_array())
    bad("needs the arrays \"source\" and \"scale\"");
  if (source->size() != targets || scale->size() != targets)
    bad(fmt::format("has {} sources and {} scales for {} morph targets", source->size(), scale->size(), targets));
  MorphRanges r;
  std::vector<uint8_t> seen;
  for (size_t i = 0; i < targets; ++i) {
    const nlohmann::json& a = (*source)[i];
    const nlohmann::json& b = (*scale)[i];
    if (!a.is_number() || !(a.get<double>() >= 0) || a.get<double>() >= double(targets) ||
        a.get<double>() != std::floor(a.get<double>()))
      bad(fmt::format("source[{}] is not a target index below {}", i, targets));
    if (!b.is_number()) bad(fmt::format("scale[{}] is not a number", i));
    const double s = b.get<double>();
    // The writer's scales are powers of two; others would not divide back exactly but still decode.
    if (!std::isfinite(s) || std::fabs(s) < 1 || std::fabs(s) > double(std::numeric_limits<float>::max()))
      bad(fmt::format("scale[{}] is {}, not a finite magnitude of at least 1", i, s));
    const size_t k = size_t(a.get<double>());
    r.source.push_back(int32_t(k));
    r.scale.push_back(float(s));
    if (k >= seen.size()) seen.resize(k + 1, 0);
    seen[k] = 1;
  }
  for (size_t k = 0; k < seen.size(); ++k)
    if (!seen[k]) bad(fmt::format("no glTF target encodes target {} of the {} it names", k, seen.size()));
  return r;
}

void merge_morph_ranges(Mesh& mesh, const MorphRanges& r, const std::vector<MorphWeightTrack*>& tracks) {
  const size_t g = r.source.size();
  size_t n = 0;
  for (int32_t k : r.source) n = std::max(n, size_t(k) + 1);
  std::vector<MorphTarget> targets(n);
  std::vector<uint8_t> done(n, 0);
  for (size_t j = 0; j < g && j < mesh.morph_targets.size(); ++j) {
    const size_t k = size_t(r.source[j]);
    if (done[k]) continue;
    done[k] = 1;
    targets[k] = std::move(mesh.morph_targets[j]);
    if (r.scale[j] != 1)
      for (std::vector<float>* v : {&targets[k].positions, &targets[k].normals, &targets[k].tangents})
        for (float& x : *v) x /= r.scale[j];
  }
  mesh.morph_targets = std::move(targets);
  auto merge = [&](const float* w) {
    std::vector<float> out(n, 0.0f);
    for (size_t j = 0; j < g; ++j) out[size_t(r.source[j])] += r.scale[j] * w[j];
    return out;
  };
  if (mesh.morph_weights.size() == g) mesh.morph_weights = merge(mesh.morph_weights.data());
  for (MorphWeightTrack* t : tracks) {
    if (t->weights.size() != t->times.size() * g) continue;
    std::vector<float> w;
    w.reserve(t->times.size() * n);
    for (size_t key = 0; key < t->times.size(); ++key) {
      const std::vector<float> e = merge(&t->weights[key * g]);
      w.insert(w.end(), e.begin(), e.end());
    }
    t->weights = std::move(w);
  }
}

}  // namespace meshport::gltf
