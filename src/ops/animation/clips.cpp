// Animation clips (meshport/clips.h): listing, cutting, retiming, selecting, renaming, and
// retargeting poses between skeletons by world transforms.
#include <meshport/clips.h>

#include "core/dmath.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <set>
#include <span>
#include <vector>

namespace meshport {

namespace {

// ---- Double-precision affine transforms (core/dmath.h) ----------------------------------------

using ops::D34;
using ops::d_inverse;
using ops::d_mul;

// Translation, rotation and scale of an affine matrix: scales are the basis columns' lengths
// (the first negated for a mirroring matrix), the rotation that of the normalised columns.
Transform d_decompose(const D34& m) {
  Transform t;
  t.translation = {float(m[9]), float(m[10]), float(m[11])};
  std::array<double, 3> s{};
  for (size_t c = 0; c < 3; ++c) s[c] = std::sqrt(m[c * 3] * m[c * 3] + m[c * 3 + 1] * m[c * 3 + 1] + m[c * 3 + 2] * m[c * 3 + 2]);
  const double det = m[0] * (m[4] * m[8] - m[7] * m[5]) - m[3] * (m[1] * m[8] - m[7] * m[2]) +
                     m[6] * (m[1] * m[5] - m[4] * m[2]);
  if (det < 0) s[0] = -s[0];
  double r[3][3];  // r[row][col]
  for (size_t c = 0; c < 3; ++c)
    for (size_t row = 0; row < 3; ++row) r[row][c] = s[c] != 0 ? m[c * 3 + row] / s[c] : (row == c ? 1.0 : 0.0);
  double x, y, z, w;
  const double trace = r[0][0] + r[1][1] + r[2][2];
  if (trace > 0) {
    const double k = 0.5 / std::sqrt(trace + 1);
    w = 0.25 / k, x = (r[2][1] - r[1][2]) * k, y = (r[0][2] - r[2][0]) * k, z = (r[1][0] - r[0][1]) * k;
  } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
    const double k = 2 * std::sqrt(1 + r[0][0] - r[1][1] - r[2][2]);
    w = (r[2][1] - r[1][2]) / k, x = 0.25 * k, y = (r[0][1] + r[1][0]) / k, z = (r[0][2] + r[2][0]) / k;
  } else if (r[1][1] > r[2][2]) {
    const double k = 2 * std::sqrt(1 + r[1][1] - r[0][0] - r[2][2]);
    w = (r[0][2] - r[2][0]) / k, x = (r[0][1] + r[1][0]) / k, y = 0.25 * k, z = (r[1][2] + r[2][1]) / k;
  } else {
    const double k = 2 * std::sqrt(1 + r[2][2] - r[0][0] - r[1][1]);
    w = (r[1][0] - r[0][1]) / k, x = (r[0][2] + r[2][0]) / k, y = (r[1][2] + r[2][1]) / k, z = 0.25 * k;
  }
  const double l = std::sqrt(x * x + y * y + z * z + w * w);
  t.rotation = {float(x / l), float(y / l), float(z / l), float(w / l)};
  t.scale = {float(s[0]), float(s[1]), float(s[2])};
  return t;
}

// World matrices of a skeleton posed by `poses` (rest transforms where null).
std::vector<D34> world_of(const std::vector<Joint>& joints, const Transform* poses) {
  std::vector<D34> w(joints.size());
  for (size_t j = 0; j < joints.size(); ++j) {
    const D34 local = ops::d_from_trs(poses ? poses[j] : joints[j].rest);
    const int p = joints[j].parent;
    w[j] = p >= 0 && size_t(p) < j ? d_mul(w[size_t(p)], local) : local;
  }
  return w;
}

std::string quoted_list(const std::vector<Animation>& anims) {
  if (anims.empty()) return "none";
  std::string s;
  for (const Animation& a : anims) s += (s.empty() ? "'" : ", '") + a.name + "'";
  return s;
}

Animation* find_clip(std::vector<Animation>& anims, std::string_view name) {
  for (Animation& a : anims)
    if (a.name == name) return &a;
  return nullptr;
}

Animation& need_clip(std::vector<Animation>& anims, std::string_view name, const char* option, const std::string& file) {
  if (Animation* a = find_clip(anims, name)) return *a;
  fail(file, fmt::format("{}: no clip named '{}'; the clips are: {}", option, name, quoted_list(anims)));
}

// Seconds of frame f of a clip (its key time, else f / fps); nullopt when it has neither.
std::optional<double> frame_time(const Animation& a, size_t f) {
  if (!a.times.empty()) return f < a.times.size() ? std::optional<double>(a.times[f]) : std::nullopt;
  if (a.framerate > 0 && std::isfinite(a.framerate)) return double(f) / double(a.framerate);
  return std::nullopt;
}

// The `n` weights of track `t` at time `x` as a player shows them: the first key's before it, the
// last key's after it, between two keys linear (or the earlier key's, for step interpolation).
std::vector<float> weights_at(const MorphWeightTrack& t, size_t n, double x, bool step) {
  const auto key = [&](size_t k) { return t.weights.begin() + std::ptrdiff_t(k * n); };
  const size_t after = size_t(std::upper_bound(t.times.begin(), t.times.end(), x) - t.times.begin());
  if (after == 0) return {key(0), key(1)};
  if (after == t.times.size() || step) return {key(after - 1), key(after)};
  const double a = t.times[after - 1], b = t.times[after];
  const double f = b > a ? (x - a) / (b - a) : 0.0;
  std::vector<float> w(n);
  for (size_t c = 0; c < n; ++c)
    w[c] = float(double(t.weights[(after - 1) * n + c]) * (1 - f) + double(t.weights[after * n + c]) * f);
  return w;
}

// Track `t` over [t0, t1], shifted to start at 0 and scaled by `speed`: its keys inside, and at
// each end the weights there (interpolated) unless a key is there already.
MorphWeightTrack cut_track(const MorphWeightTrack& t, double t0, double t1, double speed, bool step) {
  MorphWeightTrack c;
  c.mesh = t.mesh;
  const size_t n = t.times.empty() ? 0 : t.weights.size() / t.times.size();
  if (n == 0) return c;
  const double eps = 1e-6 * std::max(1.0, std::abs(t1));
  auto add = [&](double time, std::span<const float> w) {
    c.times.push_back(float((time - t0) * speed));
    c.weights.insert(c.weights.end(), w.begin(), w.end());
  };
  auto near = [&](double x) {
    return std::any_of(t.times.begin(), t.times.end(), [&](float k) { return std::abs(k - x) <= eps; });
  };
  if (!near(t0)) add(t0, weights_at(t, n, t0, step));
  for (size_t k = 0; k < t.times.size(); ++k)
    if (t.times[k] >= t0 - eps && t.times[k] <= t1 + eps)
      add(t.times[k], std::span<const float>(t.weights.data() + k * n, n));
  if (t1 > t0 + eps && !near(t1)) add(t1, weights_at(t, n, t1, step));
  return c;
}

Animation cut_clip(const Animation& src, const ClipCut& cut, const std::string& file, Diagnostics* diags) {
  const size_t frames = src.frame_count();
  if (frames == 0) fail(file, fmt::format("--clip {}: clip '{}' has no pose frames to cut", cut.name, src.name));
  const size_t end = cut.end ? *cut.end : frames - 1;
  if (cut.start > end)
    fail(file, fmt::format("--clip {}: START {} is after END {}", cut.name, cut.start, end));
  if (end >= frames)
    fail(file, fmt::format("--clip {}: END {} is past the last frame of '{}', {} (frames are numbered from 0)", cut.name,
                           end, src.name, frames - 1));
  if (cut.fps && !src.times.empty())
    fail(file, fmt::format("--clip {}: '{}' has unevenly spaced key times; @FPS sets the rate of evenly spaced frames",
                           cut.name, src.name));
  Animation out;
  out.name = cut.name;
  out.framerate = cut.fps ? *cut.fps : src.framerate;
  out.loop = cut.loop;
  out.interpolation = src.interpolation;
  out.channels = src.channels;
  out.poses.assign(src.poses.begin() + std::ptrdiff_t(cut.start * src.channels),
                   src.poses.begin() + std::ptrdiff_t((end + 1) * src.channels));
  if (!src.times.empty())
    for (size_t f = cut.start; f <= end; ++f) out.times.push_back(src.times[f] - src.times[cut.start]);
  // Morph weight keys inside the cut's time span and the weights at its ends, shifted to start at
  // 0 (and scaled to a new rate).
  if (!src.morph_weights.empty()) {
    const auto t0 = frame_time(src, cut.start), t1 = frame_time(src, end);
    if (!t0 || !t1) {
      if (diags)
        diags->add(warning(file, fmt::format("--clip {}: morph weights of '{}' dropped: it has no framerate to place "
                                             "frames in time",
                                             cut.name, src.name)));
      return out;
    }
    const double speed = cut.fps && src.framerate > 0 ? double(src.framerate) / double(*cut.fps) : 1.0;
    for (const MorphWeightTrack& t : src.morph_weights) {
      MorphWeightTrack c = cut_track(t, *t0, *t1, speed, src.interpolation == Interpolation::Step);
      if (!c.times.empty()) out.morph_weights.push_back(std::move(c));
    }
  }
  return out;
}

// "NAME=VALUE" split at the first '='; both parts must be non-empty.
std::pair<std::string, std::string> split_eq(std::string_view text, const char* option, const char* form) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    fail(option, fmt::format("expects {}, got '{}'", form, text));
  return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

bool parse_uint(std::string_view s, uint32_t& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_rate(std::string_view s, float& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(v) && v > 0;
}

}  // namespace

// ---- Listing -------------------------------------------------------------------------------

// A pose away from `first` by more than float noise: a translation or scale component by more
// than 1e-5 of its size (at least 1e-5), a rotation by more than 1e-5 in a quaternion component
// (about 0.001 degrees; q and -q are one rotation). An IQM's quantisation leaves noise of about
// 1e-6 on joints that do not move (raylib's guy.iqm: 14 and 7 joints "moved" bit for bit, 8 and 4
// after a rewrite that quantised the noise away; 6 and 1 move).
static bool moves(const Transform& p, const Transform& first) {
  auto off = [](float a, float b) { return !(std::fabs(a - b) <= 1e-5f * std::max({1.0f, std::fabs(a), std::fabs(b)})); };
  bool plus = false, minus = false;
  for (int k = 0; k < 3; ++k)
    if (off(p.translation[k], first.translation[k]) || off(p.scale[k], first.scale[k])) return true;
  for (int k = 0; k < 4; ++k) {
    plus = plus || !(std::fabs(p.rotation[k] - first.rotation[k]) <= 1e-5f);
    minus = minus || !(std::fabs(p.rotation[k] + first.rotation[k]) <= 1e-5f);
  }
  return plus && minus;
}

std::vector<ClipInfo> list_clips(const Scene& scene) {
  std::vector<ClipInfo> out;
  for (const Animation& a : scene.animations) {
    ClipInfo c;
    c.name = a.name;
    c.frames = a.frame_count();
    // A clip of morph weights only (no pose channels): its frames are the weight tracks' keys.
    if (a.channels == 0)
      for (const MorphWeightTrack& t : a.morph_weights) c.frames = std::max(c.frames, t.times.size());
    c.fps = a.framerate;
    c.loop = a.loop;
    c.morph_weight_tracks = a.morph_weights.size();
    // Joints: channels past the skeleton (an animation with more channels than joints) are no
    // joint's; an animation-only Scene (no joints) counts its channels.
    const size_t joints = scene.joints.empty() ? a.channels : std::min<size_t>(a.channels, scene.joints.size());
    for (size_t j = 0; j < joints; ++j)
      for (size_t f = 1; f < a.frame_count(); ++f)
        if (moves(a.poses[f * a.channels + j], a.poses[j])) {
          ++c.joints_animated;
          break;
        }
    double d = 0;
    if (!a.times.empty()) d = double(a.times.back()) - double(a.times.front());
    else if (a.frame_count() > 1 && a.framerate > 0 && std::isfinite(a.framerate))
      d = double(a.frame_count() - 1) / a.framerate;
    for (const MorphWeightTrack& t : a.morph_weights)
      if (!t.times.empty()) d = std::max(d, double(t.times.back()) - double(t.times.front()));
    c.duration = float(d);
    out.push_back(std::move(c));
  }
  return out;
}

// Content: meshes (even without vertices), animations, attachments, or a format's own model data
// (PIE levels, QMSH / ModeDef files), which those formats write back even with no mesh in the
// Scene (Warzone 2100 ships PIE files with one empty level as invisible props; a QMSH TMP file
// may hold only curves). IQM side data alone (array formats, a comment) is not content.
bool has_content(const Scene& scene) {
  return !scene.meshes.empty() || !scene.animations.empty() || !scene.attachments.empty() || scene.pie ||
         scene.qmsh_tmp || scene.qmsh || scene.modedef;
}

// ---- Parsing the command-line forms ----------------------------------------------------------

ClipCut parse_clip_cut(std::string_view text) {
  const char* form = "NAME=SRC:START:END[@FPS][,loop]";
  auto [name, rest] = split_eq(text, "--clip", form);
  ClipCut c;
  c.name = name;
  std::string_view r = rest;
  if (r.size() >= 5 && r.substr(r.size() - 5) == ",loop") {
    c.loop = true;
    r = r.substr(0, r.size() - 5);
  }
  // @FPS follows END: an '@' before the last ':' belongs to SRC's name.
  const size_t last_colon = r.rfind(':');
  if (const size_t at = r.rfind('@'); at != std::string_view::npos && (last_colon == std::string_view::npos || at > last_colon)) {
    float fps = 0;
    if (!parse_rate(r.substr(at + 1), fps))
      fail("--clip", fmt::format("expects a positive frame rate after '@', got '{}'", text));
    c.fps = fps;
    r = r.substr(0, at);
  }
  // SRC may itself contain ':': START and END are the last two fields.
  const size_t c2 = r.rfind(':');
  const size_t c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : r.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0) fail("--clip", fmt::format("expects {}, got '{}'", form, text));
  c.source = std::string(r.substr(0, c1));
  uint32_t start = 0, end = 0;
  const std::string_view s_start = r.substr(c1 + 1, c2 - c1 - 1), s_end = r.substr(c2 + 1);
  if (!parse_uint(s_start, start) || (!s_end.empty() && !parse_uint(s_end, end)))
    fail("--clip", fmt::format("START and END are frame numbers from 0 (END may be empty for the last frame), got '{}'",
                               text));
  c.start = start;
  if (!s_end.empty()) c.end = end;
  return c;
}

std::pair<std::string, std::string> parse_clip_rename(std::string_view text) {
  return split_eq(text, "--rename-anim", "OLD=NEW");
}

std::pair<std::string, float> parse_clip_fps(std::string_view text) {
  auto [name, value] = split_eq(text, "--fps", "NAME=FPS");
  float fps = 0;
  if (!parse_rate(value, fps)) fail("--fps", fmt::format("expects a positive frame rate, got '{}'", text));
  return {name, fps};
}

// ---- Editing -------------------------------------------------------------------------------

void edit_clips(Scene& scene, const ClipOptions& o, const std::string& file, Diagnostics* diags) {
  if (o.empty()) return;
  std::vector<Animation>& anims = scene.animations;
  for (const ClipCut& cut : o.cuts) {
    if (find_clip(anims, cut.name))
      fail(file, fmt::format("--clip {}: a clip named '{}' already exists", cut.name, cut.name));
    Animation out = cut_clip(need_clip(anims, cut.source, "--clip", file), cut, file, diags);
    anims.push_back(std::move(out));
  }
  for (const auto& [name, fps] : o.fps) {
    Animation& a = need_clip(anims, name, "--fps", file);
    if (!a.times.empty())
      fail(file, fmt::format("--fps {}: '{}' has unevenly spaced key times; --fps sets the rate of evenly spaced frames",
                             name, name));
    // Morph weight keys are in seconds: they keep pace with the frames.
    if (a.framerate > 0 && std::isfinite(a.framerate))
      for (MorphWeightTrack& t : a.morph_weights)
        for (float& x : t.times) x = float(double(x) * a.framerate / fps);
    a.framerate = fps;
  }
  std::set<std::string> looped;
  for (const auto& [name, loop] : o.loop) {
    if (!looped.insert(name).second)
      fail(file, fmt::format("--loop / --no-loop: clip '{}' is named twice", name));
    need_clip(anims, name, loop ? "--loop" : "--no-loop", file).loop = loop;
  }
  if (!o.keep.empty()) {
    std::vector<Animation> kept;
    std::vector<bool> taken(anims.size(), false);
    std::string missing;
    for (const std::string& name : o.keep) {
      Animation* a = find_clip(anims, name);
      if (!a) {
        missing += (missing.empty() ? "'" : ", '") + name + "'";
        continue;
      }
      const size_t i = size_t(a - anims.data());
      if (taken[i]) continue;  // named twice: kept once
      taken[i] = true;
      kept.push_back(*a);
    }
    if (!missing.empty())
      fail(file, fmt::format("--anim: no clip named {}; the clips are: {}", missing, quoted_list(anims)));
    anims = std::move(kept);
  }
  for (const auto& [from, to] : o.renames) {
    Animation& a = need_clip(anims, from, "--rename-anim", file);
    if (from != to && find_clip(anims, to))
      fail(file, fmt::format("--rename-anim {}={}: a clip named '{}' already exists", from, to, to));
    a.name = to;
  }
}

// ---- Retargeting ---------------------------------------------------------------------------

std::vector<Transform> retarget_poses(const std::vector<Joint>& source, const std::vector<Joint>& target,
                                      const std::vector<int64_t>& map, const std::vector<Transform>& poses) {
  const size_t ns = source.size(), nt = target.size();
  const size_t frames = ns ? poses.size() / ns : 0;
  const std::vector<D34> rest_s = world_of(source, nullptr), rest_t = world_of(target, nullptr);
  // offset[t] = B_s^-1 * B_t: the target joint's rest frame seen from its source joint's.
  std::vector<D34> offset(nt);
  for (size_t t = 0; t < nt; ++t)
    if (map[t] >= 0) offset[t] = d_mul(d_inverse(rest_s[size_t(map[t])]), rest_t[t]);
  std::vector<Transform> out(frames * nt);
  std::vector<D34> world_t(nt);
  for (size_t f = 0; f < frames; ++f) {
    const std::vector<D34> world_s = world_of(source, poses.data() + f * ns);
    for (size_t t = 0; t < nt; ++t) {
      const int p = target[t].parent;
      const bool has_parent = p >= 0 && size_t(p) < t;
      if (map[t] < 0) {
        out[f * nt + t] = target[t].rest;
        world_t[t] = has_parent ? d_mul(world_t[size_t(p)], ops::d_from_trs(target[t].rest)) : ops::d_from_trs(target[t].rest);
        continue;
      }
      world_t[t] = d_mul(world_s[size_t(map[t])], offset[t]);
      out[f * nt + t] = d_decompose(has_parent ? d_mul(d_inverse(world_t[size_t(p)]), world_t[t]) : world_t[t]);
    }
  }
  return out;
}

}  // namespace meshport
