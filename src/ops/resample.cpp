// Unevenly spaced animation keys to evenly spaced frames (process.h, resample_animation).
#include "ops/math.h"

#include <meshport/diagnostics.h>
#include <meshport/process.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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
  for (size_t f = 0; f < frames; ++f) {
    const double t = start + std::min(double(f) / framerate, duration);
    while (k + 1 < keys && double(a.times[k + 1]) <= t) ++k;
    const size_t next = std::min(k + 1, keys - 1);
    const double span = double(a.times[next]) - double(a.times[k]);
    const float u = span > 0 ? float(std::clamp((t - double(a.times[k])) / span, 0.0, 1.0)) : 0.0f;
    for (size_t c = 0; c < a.channels; ++c) {
      const Transform& p = a.poses[k * a.channels + c];
      const Transform& q = a.poses[next * a.channels + c];
      out.poses[f * a.channels + c] = u == 0.0f ? p : blend(p, q, u);
    }
  }
  return out;
}

}  // namespace meshport
