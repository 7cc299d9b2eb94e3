// Unevenly spaced animation keys to evenly spaced frames (process.h, resample_animation).
#include "core/math.h"
#include "ops/animation/rotation_error.h"

#include <meshport/diagnostics.h>
#include <meshport/process.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace meshport {

namespace {

// Poses (frames x channels) a resampled animation may hold: 2^21, 84 MB of transforms.
constexpr size_t kMaxResampledPoses = size_t(1) << 21;

Transform blend(const Transform& a, const Transform& b, float u) {
  Transform t;
  for (int i = 0; i < 3; ++i) {
    t.translation[i] = a.translation[i] + (b.translation[i] - a.translation[i]) * u;
    t.scale[i] = a.scale[i] + (b.scale[i] - a.scale[i]) * u;
  }
  t.rotation = quat_slerp(a.rotation, b.rotation, u);
  return t;
}

}  // namespace

Animation resample_animation(const Animation& a, float framerate) {
  if (a.times.empty() || a.channels == 0 || !(framerate > 0)) return a;
  Animation out = a;
  out.times.clear();
  out.framerate = framerate;
  const size_t keys = std::min(a.times.size(), a.frame_count());
  if (keys == 0) return a;
  // Times from a hostile file may decrease, be NaN or span ages: a negative or non-finite span is
  // one frame, and a span that needs more than kMaxResampledPoses poses is an error.
  const double start = std::isfinite(a.times.front()) ? double(a.times.front()) : 0.0;
  double duration = double(a.times[keys - 1]) - start;
  if (!(duration > 0) || !std::isfinite(duration)) duration = 0;
  const double exact = std::ceil(duration * framerate - 1e-4) + 1;
  if (exact * double(a.channels) > double(kMaxResampledPoses))
    fail("", fmt::format("animation '{}': {} s at {} fps for {} channels needs more than {} poses", a.name, duration,
                         framerate, a.channels, kMaxResampledPoses));
  const size_t frames = std::max(size_t(1), size_t(exact));
  out.poses.assign(frames * a.channels, Transform{});
  size_t k = 0;  // a.times[k] <= t < a.times[k + 1]
  // Step: each key is held until the next, so a frame shows the last key at or before it; a key
  // within 1e-4 of a frame of it (float key times) counts as at it.
  const bool held = a.interpolation == Interpolation::Step;
  const double eps = held ? 1e-4 / framerate : 0.0;
  for (size_t f = 0; f < frames; ++f) {
    const double t = start + std::min(double(f) / framerate, duration);
    while (k + 1 < keys && double(a.times[k + 1]) <= t + eps) ++k;
    const size_t next = std::min(k + 1, keys - 1);
    const double span = double(a.times[next]) - double(a.times[k]);
    const float u = span > 0 ? float(std::clamp((t - double(a.times[k])) / span, 0.0, 1.0)) : 0.0f;
    for (size_t c = 0; c < a.channels; ++c) {
      const Transform& p = a.poses[k * a.channels + c];
      const Transform& q = a.poses[next * a.channels + c];
      out.poses[f * a.channels + c] = u == 0.0f || held ? p : blend(p, q, u);
    }
  }
  return out;
}

}  // namespace meshport

namespace meshport {

namespace {

// Frame f's time in seconds: times[f], else f / framerate (30 when it has none).
double frame_seconds(const Animation& a, size_t f) {
  if (!a.times.empty()) return double(a.times[std::min(f, a.times.size() - 1)]);
  return double(f) / (a.framerate > 0 ? double(a.framerate) : 30.0);
}

size_t frames_of(const Animation& a) {
  return a.times.empty() ? a.frame_count() : std::min(a.frame_count(), a.times.size());
}

// Channel c of `a` at time t (from its first frame's time), by its interpolation; clamped.
Transform pose_at(const Animation& a, size_t c, double t) {
  const size_t n = frames_of(a);
  size_t lo = 0, hi = n;  // the last frame at or before t
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    (frame_seconds(a, mid) <= t ? lo : hi) = mid;
  }
  const Transform& p = a.poses[lo * a.channels + c];
  if (lo + 1 >= n || a.interpolation == Interpolation::Step) return p;
  const double t0 = frame_seconds(a, lo), t1 = frame_seconds(a, lo + 1);
  const double u = t1 > t0 ? std::clamp((t - t0) / (t1 - t0), 0.0, 1.0) : 0.0;
  return u == 0 ? p : blend(p, a.poses[(lo + 1) * a.channels + c], float(u));
}

}  // namespace

ResampleError resample_error(const Animation& source, const Animation& resampled) {
  ResampleError e;
  const size_t ns = frames_of(source), nr = frames_of(resampled);
  if (ns == 0 || nr == 0 || source.channels != resampled.channels) return e;
  const double start = frame_seconds(source, 0), start_r = frame_seconds(resampled, 0);
  std::vector<double> at;  // source times
  for (size_t f = 0; f < ns; ++f) at.push_back(frame_seconds(source, f));
  for (size_t f = 0; f + 1 < nr; ++f)
    at.push_back(start + (frame_seconds(resampled, f) + frame_seconds(resampled, f + 1)) / 2 - start_r);
  for (double t : at)
    for (size_t c = 0; c < source.channels; ++c) {
      const Transform want = pose_at(source, c, t), got = pose_at(resampled, c, t - start + start_r);
      double d2 = 0;
      for (int i = 0; i < 3; ++i) {
        d2 += (double(want.translation[i]) - got.translation[i]) * (double(want.translation[i]) - got.translation[i]);
        e.scale = std::max(e.scale, std::fabs(double(want.scale[i]) - got.scale[i]));
      }
      e.translation = std::max(e.translation, std::sqrt(d2));
      e.degrees = std::max(e.degrees, ops::rotation_degrees(want.rotation.data(), got.rotation.data()));
    }
  return e;
}

}  // namespace meshport
