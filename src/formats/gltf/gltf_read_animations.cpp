// glTF reader: animations, sampled at a fixed framerate (joint TRS channels) and morph weight
// channels.
#include "formats/gltf/gltf_read.h"

#include "ops/animation/rotation_error.h"
#include "ops/mesh/bounds.h"
#include "ops/mesh/components.h"

#include <meshport/options.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace meshport::gltf::read_impl {

namespace {

enum class Interp { Step, Linear, Cubic };

// One animated property of one joint.
struct Channel {
  uint32_t joint = 0;  // Scene joint
  uint32_t node = 0;   // glTF node
  uint32_t index = 0;  // in the animation's channels
  int path = 0;        // 0 translation, 1 rotation, 2 scale
  Interp interp = Interp::Linear;
  std::shared_ptr<const std::vector<float>> times;
  std::shared_ptr<const std::vector<float>> values;  // comps per element (x3 for cubic)
  uint32_t comps = 3;

  const float* value(size_t k) const {
    return values->data() + (interp == Interp::Cubic ? (3 * k + 1) : k) * comps;
  }
};

// The channel's value at time t (seconds) into v: LINEAR blends (rotations by slerp), STEP holds
// the key before, CUBICSPLINE is the Hermite spline of the glTF specification (rotations
// normalised); before the first key the first value, after the last the last. A time within
// eps of a key is that key.
void evaluate(const Channel& c, double t, double eps, float* v) {
  const std::vector<float>& times = *c.times;
  const size_t n = times.size();
  auto set = [&](const float* x) { std::copy_n(x, c.comps, v); };
  auto it = std::upper_bound(times.begin(), times.end(), t + eps, [](double a, float b) { return a < double(b); });
  if (it == times.begin()) return set(c.value(0));
  size_t k = size_t(it - times.begin()) - 1;
  double dt = k + 1 < n ? double(times[k + 1]) - times[k] : 0;
  double u = dt > 0 ? (t - times[k]) / dt : 0;
  if (k + 1 >= n || c.interp == Interp::Step || u <= 0 || t - times[k] <= eps) return set(c.value(k));  // on key k
  u = std::min(u, 1.0);
  const float* a = c.value(k);
  const float* b = c.value(k + 1);
  if (c.interp == Interp::Linear) {
    if (c.path == 1) {
      Quat q = quat_slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, float(u));
      return set(q.data());
    }
    for (uint32_t i = 0; i < c.comps; ++i) v[i] = float(a[i] + (double(b[i]) - a[i]) * u);
    return;
  }
  const float* out_tangent = c.values->data() + (3 * k + 2) * c.comps;
  const float* in_tangent = c.values->data() + (3 * (k + 1)) * c.comps;
  const double u2 = u * u, u3 = u2 * u;
  const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
  for (uint32_t i = 0; i < c.comps; ++i)
    v[i] = float(h00 * a[i] + h10 * dt * out_tangent[i] + h01 * b[i] + h11 * dt * in_tangent[i]);
  if (c.path == 1) {
    Quat q = quat_normalize({v[0], v[1], v[2], v[3]});
    set(q.data());
  }
}

// How far the channel sampled at `fps` (frames 0 .. frames-1, blended between frames, or held
// when `held`) is from the channel itself, at its keys and midway between frames; `err` keeps the
// largest (translation distance, rotation degrees, scale component).
// The channel's values a (at u = 0) and b (at u = 1) as a player blends them: slerp for rotations.
void blend_values(const Channel& c, const float* a, const float* b, float u, float* got) {
  if (u == 0) {
    std::copy_n(a, c.comps, got);
  } else if (c.path == 1) {
    const Quat q = quat_slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, u);
    std::copy_n(q.data(), 4, got);
  } else {
    for (uint32_t i = 0; i < c.comps; ++i) got[i] = a[i] + (b[i] - a[i]) * u;
  }
}

// Keeps in `err` the larger of its value and the difference between `want` and `got`.
void add_error(const Channel& c, const float* want, const float* got, ResampleError& err) {
  if (c.path == 1) {
    err.degrees = std::max(err.degrees, ops::rotation_degrees(want, got));
  } else if (c.path == 0) {
    double d2 = 0;
    for (int i = 0; i < 3; ++i) d2 += (double(want[i]) - got[i]) * (double(want[i]) - got[i]);
    err.translation = std::max(err.translation, std::sqrt(d2));
  } else {
    for (int i = 0; i < 3; ++i) err.scale = std::max(err.scale, std::fabs(double(want[i]) - got[i]));
  }
}

void channel_error(const Channel& c, double fps, size_t frames, bool held, double eps, ResampleError& err) {
  if (frames == 0) return;
  std::vector<double> at(c.times->begin(), c.times->end());
  for (size_t f = 0; f + 1 < frames; ++f) at.push_back((double(f) + 0.5) / fps);
  for (double t : at) {
    const double x = std::clamp(t * fps, 0.0, double(frames - 1));
    const size_t f0 = size_t(std::floor(x)), f1 = std::min(f0 + 1, frames - 1);
    const float u = float(x - double(f0));
    float a[4], b[4], want[4], got[4];
    evaluate(c, double(f0) / fps, eps, a);
    evaluate(c, double(f1) / fps, eps, b);
    evaluate(c, t, eps, want);
    blend_values(c, a, b, held ? 0.0f : u, got);
    add_error(c, want, got, err);
  }
}

// ---- CUBICSPLINE curves within a bound (docs/animations.md "Curves within a bound") ----------

// Points inside every frame interval where the error of a sampled curve is measured: u = k / 8,
// k = 1..7. Between two frames inside one cubic segment the error is a cubic in u that is 0 at
// both frames, whose largest value these points miss by at most about 2%; the search aims at
// kAim of the bound so that the curve's true largest error stays under it.
constexpr int kProbes = 8;
constexpr double kAim = 0.98;
// Frames the search may give one animation: at most kMaxCurveFrames, kMaxCurvePoses poses of all
// its joints, and kMaxCurveProbes frames times CUBICSPLINE channels (the work of one measurement).
constexpr size_t kMaxCurveFrames = size_t(1) << 16;
constexpr size_t kMaxCurvePoses = size_t(1) << 21;
constexpr size_t kMaxCurveProbes = size_t(1) << 22;

struct CurveBound {
  double size = 1;          // the model's size: the diagonal of its rest-pose box
  double translation = 0;   // tolerance * size
  double degrees = 0;
  double scale = 0;         // tolerance (scale factors are relative already)
};

// How far over its bound an error is: the largest of error / bound over the three kinds.
double over(const ResampleError& e, const CurveBound& b) {
  return std::max({e.translation / b.translation, e.degrees / b.degrees, e.scale / b.scale});
}

// The model's size: the diagonal of the meshes' rest-pose box; without vertices, of the box of
// the joints' rest translations and the translation keys; 1 when that is empty too.
double model_size(const Scene& scene, const std::vector<Channel>& used) {
  const Bounds b = ops::rest_bounds(scene);
  auto diagonal = [](const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
    return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  };
  if (!b.empty) {
    const double d = diagonal({b.min[0], b.min[1], b.min[2]}, {b.max[0], b.max[1], b.max[2]});
    if (d > 0 && std::isfinite(d)) return d;
  }
  std::array<double, 3> lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  auto add = [&](const float* v) {
    for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], double(v[i])), hi[i] = std::max(hi[i], double(v[i]));
  };
  for (const Joint& j : scene.joints) add(j.rest.translation.data());
  for (const Channel& c : used)
    if (c.path == 0)
      for (size_t k = 0; k < c.times->size(); ++k) add(c.value(k));
  const double d = lo[0] <= hi[0] ? diagonal(lo, hi) : 0;
  return d > 0 && std::isfinite(d) ? d : 1;
}

// Frame times at `m` times the base rate: frames f / (fps m) from 0 to the last key (`keys`
// empty), else every interval of `keys` (the union of the key times, --resample off) cut into m.
std::vector<double> curve_frame_times(double fps, double max_time, const std::vector<float>& keys, uint32_t m) {
  std::vector<double> t;
  if (keys.empty()) {
    const size_t frames = size_t(std::round(max_time * fps * m)) + 1;
    for (size_t f = 0; f < frames; ++f) t.push_back(double(f) / (fps * m));
    return t;
  }
  for (size_t k = 0; k + 1 < keys.size(); ++k)
    for (uint32_t i = 0; i < m; ++i) t.push_back(keys[k] + (double(keys[k + 1]) - keys[k]) * i / m);
  t.push_back(keys.back());
  return t;
}

// The largest error of channel c sampled at `times` and blended between them, against its own
// curve, at kProbes - 1 points inside every interval.
ResampleError frames_error(const Channel& c, const std::vector<double>& times, double eps) {
  ResampleError e;
  float a[4]{}, b[4]{}, want[4]{}, got[4]{};
  if (times.empty()) return e;
  evaluate(c, times[0], eps, b);
  for (size_t f = 0; f + 1 < times.size(); ++f) {
    std::copy_n(b, 4, a);
    evaluate(c, times[f + 1], eps, b);
    for (int k = 1; k < kProbes; ++k) {
      const double u = double(k) / kProbes;
      evaluate(c, times[f] + (times[f + 1] - times[f]) * u, eps, want);
      blend_values(c, a, b, float(u), got);
      add_error(c, want, got, e);
    }
  }
  return e;
}

// The search's result: the rate multiple chosen and the error it reaches.
struct CurveFit {
  uint32_t multiple = 1;
  size_t frames = 0;
  ResampleError err;       // the largest of every CUBICSPLINE channel, per kind
  size_t worst = 0;        // index into `used` of the channel furthest over (or nearest) its bound
  double worst_over = 0;   // its error / bound
  bool checked = true;     // false: the base rate already needs more frames than the cap
  bool reached = true;     // the bound holds
  size_t cap = 0;
};

// The smallest multiple m of the base rate (m = 1, 2, ..., each try guessed from the last error:
// linear blending of a smooth curve errs as 1 / m^2) whose frames keep every CUBICSPLINE channel
// within `bound`, up to the frame cap.
CurveFit fit_curves(const std::vector<Channel>& used, double fps, double max_time, const std::vector<float>& keys,
                    size_t joints, const CurveBound& bound) {
  CurveFit fit;
  size_t cubic = 0;
  for (const Channel& c : used) cubic += c.interp == Interp::Cubic;
  fit.cap = std::min({kMaxCurveFrames, kMaxCurvePoses / std::max<size_t>(joints, 1), kMaxCurveProbes / cubic});
  const double span = keys.empty() ? max_time * fps : double(keys.size() - 1);  // frames - 1 at m = 1
  const double most = span > 0 ? std::floor(double(fit.cap - 1) / span) : 1;   // the largest m in the cap
  if (!(most >= 1)) {
    fit.checked = fit.reached = false;
    fit.frames = size_t(std::round(span)) + 1;
    return fit;
  }
  const double eps = 1e-4 / fps;
  uint32_t m = 1;
  int tries = 0;
  for (;;) {
    const std::vector<double> times = curve_frame_times(fps, max_time, keys, m);
    fit.multiple = m, fit.frames = times.size(), fit.err = {}, fit.worst_over = -1;
    for (size_t i = 0; i < used.size(); ++i) {
      if (used[i].interp != Interp::Cubic) continue;
      const ResampleError e = frames_error(used[i], times, eps / m);
      fit.err.translation = std::max(fit.err.translation, e.translation);
      fit.err.degrees = std::max(fit.err.degrees, e.degrees);
      fit.err.scale = std::max(fit.err.scale, e.scale);
      if (over(e, bound) > fit.worst_over) fit.worst_over = over(e, bound), fit.worst = i;
    }
    if (fit.worst_over <= kAim || !std::isfinite(fit.worst_over)) break;
    if (double(m) >= most) {
      fit.reached = false;
      break;
    }
    // After a few tries (an error that does not fall as 1 / m^2: a jump between keys sharing a
    // time) m at least doubles, so the search ends within about 20 measurements.
    const double guess = std::ceil(m * std::sqrt(fit.worst_over / kAim));
    m = uint32_t(std::min(most, std::max(double(m) * (++tries > 4 ? 2 : 1) + 1, guess)));
  }
  fit.reached = fit.reached && fit.worst_over <= 1;
  return fit;
}

const char* path_name(int path) { return path == 0 ? "translation" : path == 1 ? "rotation" : "scale"; }

// Picks the frames of an animation with CUBICSPLINE channels (fit_curves), sets `fps` (and cuts
// `keys`, the union of key times under --resample off) to them, and reports: a note naming the
// rate and the largest error (at the channel nearest its bound), or a warning when the frame cap
// stops the search above the bound.
void fit_cubic_curves(Reader& rd, const std::string& path, const std::string& anim_name,
                      const std::vector<Channel>& used, size_t joints, double max_time, double& fps,
                      std::vector<float>& keys) {
  CurveBound bound;
  bound.size = model_size(rd.scene, used);
  bound.translation = rd.resample.tolerance * bound.size;
  bound.degrees = rd.resample.degrees;
  bound.scale = rd.resample.tolerance;
  const CurveFit fit = fit_curves(used, fps, max_time, keys, joints, bound);
  const double base = fps;
  if (fit.multiple > 1) {
    fps *= fit.multiple;
    if (!keys.empty()) {
      const std::vector<double> t = curve_frame_times(base, max_time, keys, fit.multiple);
      keys.assign(t.begin(), t.end());
    }
  }
  const std::string head = fmt::format("{} ('{}')", path, text::clip(anim_name));
  const std::string rate = keys.empty() ? fmt::format("sampled at {:.6g} fps ({} times the keys' {:.6g} fps; {} frames)",
                                                      fps, fit.multiple, base, fit.frames)
                                        : fmt::format("sampled at {} frames ({} per interval of the key times)",
                                                      fit.frames, fit.multiple);
  if (!fit.checked) {
    rd.warn(fmt::format("{}: CUBICSPLINE curves {}, without checking their error: even these are more than the cap "
                        "of {} frames",
                        head, rate, fit.cap));
    return;
  }
  const Channel& c = used[fit.worst];
  const Node& node = rd.nodes[c.node];
  const std::string where =
      fmt::format("{}.channels[{}] (node {}{}{}, {})", path, c.index, c.node, node.name.empty() ? "" : " '",
                  node.name.empty() ? std::string() : text::clip(node.name) + "'", path_name(c.path));
  const double worst = c.path == 0 ? fit.err.translation : c.path == 1 ? fit.err.degrees : fit.err.scale;
  const double limit = c.path == 0 ? bound.translation : c.path == 1 ? bound.degrees : bound.scale;
  const std::string bound_text =
      c.path == 0   ? fmt::format("{:.4g} ({:.4g} of the model's size {:.4g})", limit, rd.resample.tolerance, bound.size)
      : c.path == 1 ? fmt::format("{:.4g} degrees", limit)
                    : fmt::format("{:.4g}", limit);
  const std::string errors =
      fmt::format("largest error {:.4g} in translation, {:.4g} degrees in rotation, {:.4g} in scale; nearest its "
                  "bound: {}, error {:.4g} {} the bound {}",
                  fit.err.translation, fit.err.degrees, fit.err.scale, where, worst,
                  fit.reached ? "within" : "above", bound_text);
  if (fit.reached)
    rd.diags.add(note(rd.name, fmt::format("{}: CUBICSPLINE curves {}: {}", head, rate, errors)));
  else
    rd.warn(fmt::format("{}: CUBICSPLINE curves {}, the most the cap of {} frames allows: {} (--curve-tolerance "
                        "sets the bound)",
                        head, rate, fit.cap, errors));
}

}  // namespace

// ---- Animations ------------------------------------------------------------------------------

std::vector<bool> animated_nodes(const Reader& rd) {
  std::vector<bool> out(rd.nodes.size(), false);
  const json* anims = field(rd.doc, "animations");
  if (!anims || !anims->is_array()) return out;
  for (const json& a : *anims) {
    const json* channels = field(a, "channels");
    if (!channels || !channels->is_array()) continue;
    for (const json& c : *channels) {
      const json* target = field(c, "target");
      const json* node = target ? field(*target, "node") : nullptr;
      const json* prop = target ? field(*target, "path") : nullptr;
      const uint64_t n = node ? as_uint(*node).value_or(UINT64_MAX) : UINT64_MAX;
      if (n >= out.size() || !prop || !prop->is_string()) continue;
      const std::string& p = prop->get_ref<const std::string&>();
      if (p == "translation" || p == "rotation" || p == "scale") out[size_t(n)] = true;
    }
  }
  return out;
}

void read_animations(Reader& rd) {
  const json& anims = rd.top("animations");
  for (size_t a = 0; a < anims.size(); ++a) read_animation(rd, uint32_t(a));
}

void read_animation(Reader& rd, uint32_t ai) {
  const std::string path = fmt::format("animations[{}]", ai);
  rd.part = path;
  const json& o = rd.element("animations", ai);
  const json& channels = rd.get_array(o, "channels", path);
  const json& samplers = rd.get_array(o, "samplers", path);
  std::string anim_name = rd.get_string(o, "name", path);
  // The writer's animation extras; where another tool dropped them (Blender), the copy in the
  // document-level extras of the animation of the same name.
  const json* mp = meshport_extras(o);
  const bool resampled = !mp;
  if (!mp) mp = kept_animation_extras(rd, ai, anim_name);
  const bool made_up = anim_name.empty() && !mp;
  if (made_up) anim_name = fmt::format("animation{}", ai);  // meshport omits only empty names
  // What a node's channels animate: a Scene joint, or in an animation-only file a pose.
  const bool poses_only = rd.mp.mapped && rd.mp.animation_only;
  auto channel_of = [&](uint32_t node) -> int32_t {
    if (poses_only) return rd.mp.pose_of[node];
    return rd.nodes[node].joint;
  };
  std::vector<Channel> used;
  std::map<uint32_t, std::pair<std::shared_ptr<const std::vector<float>>, std::shared_ptr<const std::vector<float>>>>
      sampled;  // sampler -> (times, values)
  // A sampler's key times (checked: finite, >= 0, not decreasing) and output values, read once.
  auto load = [&](uint64_t s, const json& smp, const std::string& sp, bool& fresh) {
    auto it = sampled.find(uint32_t(s));
    fresh = it == sampled.end();
    if (!fresh) return it;
    const Accessor& in = accessor_at(rd, smp, "input", sp);
    if (in.comps != 1 || in.columns != 1 || in.type != ComponentType::Float)
      rd.error(sp + ".input",
               fmt::format("{} is {} {}, not SCALAR float", in.path, in.type_name, ops::component_name(in.type)));
    auto times = std::make_shared<std::vector<float>>(floats(rd, in));
    for (size_t k = 0; k < times->size(); ++k) {
      float t = (*times)[k];
      if (!std::isfinite(t) || t < 0)
        rd.error(sp + ".input", fmt::format("key {} of {} is at time {}, not a finite time >= 0", k, in.path, t));
      if (k && t < (*times)[k - 1])
        rd.error(sp + ".input",
                 fmt::format("key times of {} decrease: key {} at {} follows {}", in.path, k, t, (*times)[k - 1]));
    }
    const Accessor& outa = accessor_at(rd, smp, "output", sp);
    auto values = std::make_shared<std::vector<float>>(floats(rd, outa));
    it = sampled.emplace(uint32_t(s), std::make_pair(std::move(times), std::move(values))).first;
    if (outa.columns != 1) rd.error(sp + ".output", fmt::format("{} is {}", outa.path, outa.type_name));
    return it;
  };
  auto interpolation = [&](const json& smp, const std::string& sp) {
    std::string interp = rd.get_string(smp, "interpolation", sp);
    if (interp.empty() || interp == "LINEAR") return Interp::Linear;
    if (interp == "STEP") return Interp::Step;
    if (interp == "CUBICSPLINE") return Interp::Cubic;
    rd.error(sp + ".interpolation", fmt::format("'{}' is not LINEAR, STEP or CUBICSPLINE", text::clip(interp)));
  };
  struct WeightChannel {
    uint32_t node = 0;
    uint64_t sampler = 0;
    std::string path;  // the channel's JSON path
  };
  std::vector<WeightChannel> weight_channels;
  size_t ignored = 0;
  for (size_t c = 0; c < channels.size(); ++c) {
    const std::string cp = fmt::format("{}.channels[{}]", path, c);
    const json& ch = rd.object_at(channels, c, cp);
    uint64_t s = rd.get_uint(ch, "sampler", cp, std::nullopt);
    if (s >= samplers.size())
      rd.error(cp + ".sampler", fmt::format("samplers[{}] does not exist (the animation has {})", s, samplers.size()));
    const json* target = field(ch, "target");
    if (!target || !target->is_object()) rd.error(cp, "has no 'target' object");
    const std::string tp = cp + ".target";
    std::optional<uint32_t> node = rd.opt_index(*target, "node", tp, "nodes");
    std::string prop = rd.get_string(*target, "path", tp, true);
    int which = prop == "translation" ? 0 : prop == "rotation" ? 1 : prop == "scale" ? 2 : -1;
    if (which < 0 && prop != "weights")
      rd.error(tp + ".path", fmt::format("'{}' is not an animation path", text::clip(prop)));
    if (which < 0) {
      // Morph weights of the Scene meshes of the node's own mesh instance.
      const bool targets = node && rd.nodes[*node].scene_mesh >= 0 &&
                           !rd.scene.meshes[size_t(rd.nodes[*node].scene_mesh)].morph_targets.empty();
      if (targets)
        weight_channels.push_back({*node, s, cp});
      else
        ++ignored;
      continue;
    }
    if (!node || channel_of(*node) < 0) {
      ++ignored;
      continue;
    }
    const std::string sp = fmt::format("{}.samplers[{}]", path, s);
    const json& smp = rd.object_at(samplers, s, sp);
    Channel out;
    out.joint = uint32_t(channel_of(*node));
    out.node = *node;
    out.index = uint32_t(c);
    out.path = which;
    out.comps = which == 1 ? 4 : 3;
    out.interp = interpolation(smp, sp);
    bool fresh = false;
    auto it = load(s, smp, sp, fresh);
    if (fresh) {
      const Accessor& outa = accessor_at(rd, smp, "output", sp);
      const size_t need = it->second.first->size() * (out.interp == Interp::Cubic ? 3 : 1);
      if (outa.count != need)
        rd.error(sp + ".output", fmt::format("{} has {} elements but {} keys need {}", outa.path, outa.count,
                                             it->second.first->size(), need));
      if (outa.comps != out.comps)
        rd.error(sp + ".output",
                 fmt::format("{} is {}, but {} needs {} values per key", outa.path, outa.type_name, prop, out.comps));
    } else {
      // The same sampler for another channel: check it fits this path as well.
      const size_t per = it->second.second->size() / std::max<size_t>(1, it->second.first->size());
      const size_t want = size_t(out.comps) * (out.interp == Interp::Cubic ? 3 : 1);
      if (per != want) rd.error(sp + ".output", fmt::format("does not hold {} values per key as {} needs", want, prop));
    }
    out.times = it->second.first;
    out.values = it->second.second;
    used.push_back(std::move(out));
  }
  // Morph weight tracks: one per Scene mesh of the node's mesh instance (one per primitive).
  std::vector<MorphWeightTrack> tracks;
  {
    std::vector<bool> seen(rd.nodes.size(), false);
    size_t step = 0, cubic = 0, repeated = 0;
    for (const WeightChannel& wc : weight_channels) {
      if (seen[wc.node]) {
        rd.warn(fmt::format("{}: nodes[{}] already has a weights channel; this one is ignored", wc.path, wc.node));
        continue;
      }
      seen[wc.node] = true;
      const std::string sp = fmt::format("{}.samplers[{}]", path, wc.sampler);
      const json& smp = rd.object_at(samplers, wc.sampler, sp);
      const Interp interp = interpolation(smp, sp);
      bool fresh = false;
      auto it = load(wc.sampler, smp, sp, fresh);
      const std::vector<float>& times = *it->second.first;
      const std::vector<float>& values = *it->second.second;
      const Node& node = rd.nodes[wc.node];
      const size_t first = size_t(node.scene_mesh);
      const size_t prims = rd.meshes[*node.mesh].size();
      const size_t targets = rd.scene.meshes[first].morph_targets.size();
      const size_t per = interp == Interp::Cubic ? 3 : 1;
      const Accessor& outa = accessor_at(rd, smp, "output", sp);
      if (outa.comps != 1)
        rd.error(sp + ".output",
                 fmt::format("{} is {}, but morph weights need SCALAR values", outa.path, outa.type_name));
      if (values.size() != times.size() * targets * per)
        rd.error(sp + ".output", fmt::format("{} has {} elements but {} keys of {} morph targets need {}", outa.path,
                                             values.size(), times.size(), targets, times.size() * targets * per));
      if (times.empty()) continue;
      step += interp == Interp::Step;
      cubic += interp == Interp::Cubic;
      MorphWeightTrack t;
      rd.spend_proportional(u128(values.size()) * 8 * prims, sp, "morph weights");
      for (size_t k = 0; k < times.size(); ++k) {
        const float* v = values.data() + (k * per + (per == 3 ? 1 : 0)) * targets;
        if (k && times[k] == times[k - 1]) {  // a key at the same time replaces the one before
          ++repeated;
          std::copy_n(v, targets, t.weights.end() - ptrdiff_t(targets));
          continue;
        }
        t.times.push_back(times[k]);
        t.weights.insert(t.weights.end(), v, v + targets);
      }
      for (size_t p = 0; p < prims; ++p) {
        if (rd.scene.meshes[first + p].morph_targets.size() != targets) continue;
        t.mesh = int32_t(first + p);
        tracks.push_back(t);
      }
    }
    if (step)
      rd.warn(fmt::format("{} ('{}'): {} STEP morph weight channels are read as LINEAR between their keys", path,
                          text::clip(anim_name), step));
    if (cubic)
      rd.warn(
          fmt::format("{} ('{}'): {} CUBICSPLINE morph weight channels are read as LINEAR between their keys "
                      "(tangents dropped)",
                      path, text::clip(anim_name), cubic));
    if (repeated)
      rd.warn(fmt::format("{} ('{}'): {} morph weight keys at the time of the key before them replace it", path,
                          text::clip(anim_name), repeated));
  }

  // One warning per animation for what is not read.
  if (used.empty() && tracks.empty()) {
    if (!channels.empty())
      rd.warn(
          fmt::format("{} ('{}') animates no joint (its {} channels animate other nodes or morph weights of meshes "
                      "without morph targets) and is not read",
                      path, text::clip(anim_name), channels.size()));
    return;
  }
  if (ignored)
    rd.warn(
        fmt::format("{} ('{}'): {} channels animate nodes that are not joints, or morph weights of meshes without "
                    "morph targets; they are ignored",
                    path, text::clip(anim_name), ignored));

  // Framerate: the writer's, else the key grid's, else 30.
  Animation anim;
  anim.name = anim_name;
  anim.name_made_up = made_up;
  double fps = 0;
  // A value and a flag rather than std::optional<float>: GCC 12 -O2 warns (falsely) that the
  // optional's value may be used uninitialised.
  float stored_rate = 0;
  bool has_stored_rate = false;
  uint64_t stored_channels = UINT64_MAX;  // a value, not an optional: the same GCC 12 warning
  bool kept_step = false;  // the document-level copy says Interpolation::Step
  bool own_times = false;
  std::vector<float> kept_times;  // the document-level copy's key times
  uint64_t kept_frames = 0;       // ... and frame count (0: from the keys)
  if (mp) {
    const std::string xp = path + ".extras.meshport";
    try {
      double key_rate = rd.get_number(*mp, "keyframe_rate", xp, 0);
      double rate = rd.get_number(*mp, "framerate", xp, 0);
      if (field(*mp, "framerate")) stored_rate = narrow(rate), has_stored_rate = true;
      fps = key_rate > 0 && std::isfinite(key_rate) ? key_rate : rate > 0 && std::isfinite(rate) ? rate : 0;
      anim.loop = rd.get_flag(*mp, "loop", xp, false);
      if (field(*mp, "channels")) stored_channels = rd.get_uint(*mp, "channels", xp, 0);
      const json* times = field(*mp, "times");
      if (times && times->is_array()) {
        // Another tool resampled the keys: the frames are at the writer's times again.
        for (size_t k = 0; k < times->size(); ++k) {
          const json& t = (*times)[k];
          if (!t.is_number() || !std::isfinite(t.get<double>()) || t.get<double>() < 0 ||
              (k && narrow(t.get<double>()) <= kept_times.back()))
            rd.error(fmt::format("{}.times[{}]", xp, k),
                     fmt::format("{} is not a time after the one before", describe(t)));
          kept_times.push_back(narrow(t.get<double>()));
        }
        if (!resampled) own_times = !kept_times.empty(), kept_times.clear();
      } else {
        own_times = rd.get_flag(*mp, "times", xp, false);
      }
      if (resampled) {
        kept_frames = rd.get_uint(*mp, "frames", xp, 0);
        if (kept_frames > (uint64_t(1) << 24))
          rd.error(xp + ".frames", fmt::format("{} frames are too many", kept_frames));
        const std::string interp = rd.get_string(*mp, "interpolation", xp);
        if (interp == "step") kept_step = true;
      }
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; ignored", e.diagnostic().message));
      fps = 0, has_stored_rate = false, stored_channels = UINT64_MAX, anim.loop = false, own_times = false;
      kept_times.clear(), kept_frames = 0, kept_step = false;
    }
  }
  // The key times that set the frames: the joint channels', else the morph weight tracks'.
  std::vector<const std::vector<float>*> timing;
  for (const Channel& c : used) timing.push_back(c.times.get());
  if (used.empty())
    for (const MorphWeightTrack& t : tracks) timing.push_back(&t.times);
  double max_time = 0;
  for (const Channel& c : used) max_time = std::max(max_time, double(c.times->back()));
  const ResampleOptions& resample = rd.resample;
  if (resample.fps > 0) {  // --resample FPS: the curves at FPS, whatever the file's own timing
    fps = resample.fps, has_stored_rate = false, own_times = false, kept_times.clear(), kept_frames = 0;
    kept_step = false;
  }
  // Every joint channel STEP: the frames are held, not blended (PIE's INTERPOLATE 0).
  const bool all_step = !used.empty() && std::all_of(used.begin(), used.end(), [](const Channel& c) {
    return c.interp == Interp::Step;
  });
  std::vector<float> union_times;  // --resample off, or STEP only: the keys of every channel
  if (fps <= 0) {
    double h = 0;
    for (const std::vector<float>* times : timing)
      for (size_t k = 1; k < times->size(); ++k) {
        double d = double((*times)[k]) - (*times)[k - 1];
        if (d > 0 && (h == 0 || d < h)) h = d;
      }
    bool grid = h > 0;
    for (size_t ci = 0; grid && ci < timing.size(); ++ci)
      for (float t : *timing[ci]) {
        double q = t / h;
        if (std::fabs(q - std::round(q)) > 1e-3) {
          grid = false;
          break;
        }
      }
    fps = 30;
    if (grid && 1 / h >= 1 - 1e-6 && 1 / h <= 240 + 1e-6) {
      fps = 1 / h;
      if (std::fabs(fps - std::round(fps)) <= 1e-4 * fps) fps = std::round(fps);
    } else if ((resample.off || all_step) && !used.empty() && !own_times && kept_times.empty()) {
      // Keys off one grid: kept as they are (--resample off, or STEP channels only, which frames
      // at a fixed rate would move to the next frame).
      for (const Channel& c : used) union_times.insert(union_times.end(), c.times->begin(), c.times->end());
      std::sort(union_times.begin(), union_times.end());
      union_times.erase(std::unique(union_times.begin(), union_times.end()), union_times.end());
    }
  }
  size_t nj = poses_only ? rd.mp.nodes.size() : rd.scene.joints.size();
  // CUBICSPLINE curves: frames at a multiple of the rate (or keys cut into parts) that keeps
  // them within the bound, unless --resample FPS set the rate or the writer's extras the frames.
  const bool any_cubic =
      std::any_of(used.begin(), used.end(), [](const Channel& c) { return c.interp == Interp::Cubic; });
  if (any_cubic && !mp && resample.fps <= 0) fit_cubic_curves(rd, path, anim_name, used, nj, max_time, fps, union_times);
  anim.framerate = has_stored_rate ? stored_rate : float(fps);
  // Sampled at the frame times, the keys of evenly spaced STEP channels are the frames themselves.
  if (all_step) anim.interpolation = Interpolation::Step;
  const size_t steps =
      size_t(std::count_if(used.begin(), used.end(), [](const Channel& c) { return c.interp == Interp::Step; }));
  if (steps && !all_step && !kept_step)
    rd.warn(fmt::format("{} ('{}'): {} STEP channels among blended ones: a clip holds or blends all its channels, so "
                        "they are sampled as frames that players blend (each step a ramp over one frame)",
                        path, text::clip(anim_name), steps));
  if (kept_step && !used.empty()) anim.interpolation = Interpolation::Step;  // Blender samples STEP bones as LINEAR
  anim.morph_weights = std::move(tracks);
  if (used.empty()) {  // morph weights only: no frames
    rd.scene.animations.push_back(std::move(anim));
    return;
  }
  // The writer's Animation::times: frame f is key f.
  const std::vector<float>* key_times = own_times            ? used[0].times.get()
                                        : !kept_times.empty()  ? &kept_times
                                        : !union_times.empty() ? &union_times
                                                               : nullptr;
  std::vector<bool> on_keys(used.size(), false);
  for (size_t ci = 0; own_times && ci < used.size(); ++ci) on_keys[ci] = *used[ci].times == *key_times;
  const double frames_d = key_times    ? double(key_times->size())
                          : kept_frames ? double(kept_frames)
                          : resample.fps > 0 ? std::ceil(max_time * fps - 1e-4) + 1  // the last key in a frame
                                        : std::round(max_time * fps) + 1;
  if (!(frames_d <= double(UINT32_MAX)))
    rd.error(path, fmt::format("{} frames ({} s at {} fps) are too many", frames_d, max_time, fps));
  const size_t frames = size_t(frames_d);
  rd.spend_proportional(u128(frames) * nj * sizeof(Transform), path, fmt::format("{} frames of {} joints", frames, nj));
  anim.channels = uint32_t(nj);

  // Local rest transforms: joints whose parent is not a joint hold their world transform as
  // rest; their channels are local to that parent, whose world matrix is composed back in.
  std::vector<Transform> local(nj), rest(nj);
  std::vector<const Mat3x4*> parent_world(nj, nullptr);
  if (poses_only) {
    for (size_t j = 0; j < nj; ++j) local[j] = rest[j] = rd.nodes[rd.mp.nodes[j]].trs;
  } else {
    for (size_t j = 0; j < nj; ++j) rest[j] = rd.scene.joints[j].rest;
    for (const Node& node : rd.nodes)
      if (node.joint >= 0) {
        local[size_t(node.joint)] = node.trs;
        if (node.parent >= 0 && rd.nodes[node.parent].joint < 0 && rd.nodes[node.parent].world != mat_identity())
          parent_world[size_t(node.joint)] = &rd.nodes[node.parent].world;
      }
  }
  std::vector<bool> animated(nj);
  for (const Channel& c : used) animated[c.joint] = true;
  anim.poses.resize(frames * nj);
  for (size_t j = 0; j < nj; ++j)
    for (size_t f = 0; f < frames; ++f) anim.poses[f * nj + j] = rest[j];
  const double eps = 1e-4 / fps;
  for (size_t f = 0; f < frames; ++f) {
    const double t = key_times ? double((*key_times)[f]) : double(f) / fps;
    Transform* pose = &anim.poses[f * nj];
    for (size_t j = 0; j < nj; ++j)
      if (animated[j] && parent_world[j]) pose[j] = local[j];
    for (const Channel& c : used) {
      float v[4];
      if (on_keys[size_t(&c - used.data())])
        std::copy_n(c.value(f), c.comps, v);
      else
        evaluate(c, t, eps, v);
      Transform& p = pose[c.joint];
      if (c.path == 0)
        p.translation = {v[0], v[1], v[2]};
      else if (c.path == 1)
        p.rotation = unit({v[0], v[1], v[2], v[3]});
      else
        p.scale = {v[0], v[1], v[2]};
    }
    for (size_t j = 0; j < nj; ++j)
      if (animated[j] && parent_world[j]) {
        bool exact;
        pose[j] = decompose(mat_mul(*parent_world[j], mat_from_trs(pose[j].translation, pose[j].rotation,
                                                                   pose[j].scale)),
                            exact);
      }
  }
  if (resample.fps > 0) {
    ResampleError err;
    for (const Channel& c : used)
      channel_error(c, fps, frames, anim.interpolation == Interpolation::Step, eps, err);
    rd.warn(fmt::format("note: animation '{}' sampled at {} fps (--resample): largest error {:.4g} in translation, "
                        "{:.4g} degrees in rotation, {:.4g} in scale (at the keys and midway between frames)",
                        text::clip(anim_name), fps, err.translation, err.degrees, err.scale));
  }
  // The writer drops channels past the skeleton; fewer channels than joints are restored.
  if (stored_channels < nj) {
    const size_t keep = size_t(stored_channels);
    std::vector<Transform> poses(frames * keep);
    for (size_t f = 0; f < frames; ++f)
      std::copy_n(anim.poses.begin() + ptrdiff_t(f * nj), keep, poses.begin() + ptrdiff_t(f * keep));
    anim.poses = std::move(poses);
    anim.channels = uint32_t(keep);
  }
  if (key_times) anim.times = *key_times;
  rd.scene.animations.push_back(std::move(anim));
}

}  // namespace meshport::gltf::read_impl
