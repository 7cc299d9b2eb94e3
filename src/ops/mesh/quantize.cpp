#include "ops/mesh/quantize.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace meshport::ops {

size_t QuantizedFrames::stored_channels() const {
  const uint32_t low = channels >= 32 ? 0xFFFFFFFFu : (1u << channels) - 1;
  size_t n = 0;
  for (uint32_t m : masks) n += size_t(std::popcount(m & low));
  return n;
}

namespace {

// What stored value q decodes to: offset + q * scale in float, as loaders compute it.
float decode(float lo, float scale, uint16_t q) {
  float v = lo;
  v += float(q) * scale;
  return v;
}

// What a channel's largest stored value decodes to.
float decoded_top(float lo, float scale) { return decode(lo, scale, 65535); }

bool stored(float lo, float top) { return double(top) - double(lo) >= double(kConstantEpsilon); }

// The smallest non-negative float s with pred(s), for a pred that is false at 0, true at +inf and
// monotone in s (positive floats order as their bit patterns).
template <class Pred>
float smallest_float(Pred pred) {
  uint32_t a = 0, b = std::bit_cast<uint32_t>(std::numeric_limits<float>::infinity());
  while (b - a > 1) {
    const uint32_t m = a + (b - a) / 2;
    (pred(std::bit_cast<float>(m)) ? b : a) = m;
  }
  return std::bit_cast<float>(b);
}

// The scale of a channel ranging over [lo, hi], or 0 when it is stored as constant: the smallest
// scale whose decoded top reaches hi. Quantising the decoded frames again (a file read back and
// written again) then finds the same scale: the decoded top is at least hi, and every smaller
// scale decodes below hi. range / 65535 does not have that property; its decoded top can miss hi
// by an ulp, and the scale drifted on every rewrite.
float stable_scale(float lo, float hi) {
  if (!stored(lo, hi)) return 0;
  float s = smallest_float([&](float c) { return decoded_top(lo, c) >= hi; });
  if (!std::isfinite(decoded_top(lo, s))) {  // hi at float's limit: the largest finite top
    const float past = smallest_float([&](float c) { return !std::isfinite(decoded_top(lo, c)); });
    const float top = decoded_top(lo, std::nextafter(past, 0.0f));
    s = smallest_float([&](float c) { return decoded_top(lo, c) >= top; });
  }
  return stored(lo, decoded_top(lo, s)) ? s : 0;
}

}  // namespace

QuantizedFrames quantize_frames(std::span<const float> values, size_t poses, size_t channels, size_t frames) {
  QuantizedFrames q;
  q.poses = poses;
  q.channels = channels;
  q.frames = frames;
  q.masks.assign(poses, 0);
  q.offsets.assign(poses * channels, 0.0f);
  q.scales.assign(poses * channels, 0.0f);
  const size_t per_frame = poses * channels;
  auto at = [&](size_t f, size_t i) { return values[f * per_frame + i]; };

  for (size_t i = 0; i < per_frame; ++i) {
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (size_t f = 0; f < frames; ++f) {
      float v = at(f, i);
      if (!std::isfinite(v)) continue;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    if (lo > hi) lo = hi = 0;  // no finite value at all
    q.offsets[i] = lo;
    if (float scale = stable_scale(lo, hi); scale != 0) {
      q.scales[i] = scale;
      q.masks[i / channels] |= 1u << (i % channels);
    }
  }

  q.data.resize(frames * q.stored_channels());
  size_t k = 0;
  for (size_t f = 0; f < frames; ++f)
    for (size_t i = 0; i < per_frame; ++i) {
      if (!(q.masks[i / channels] >> (i % channels) & 1u)) continue;
      const float v = at(f, i), lo = q.offsets[i], scale = q.scales[i];
      auto index = [&](float x) {
        const double s = std::round((double(x) - double(lo)) / double(scale));
        return uint16_t(s < 0 ? 0 : s > 65535 ? 65535 : s);
      };
      const uint16_t first = std::isfinite(v) ? index(v) : 0;
      // The index nearest to what `first` decodes to: the same one unless float cannot tell
      // neighbouring steps apart (|offset| far above the range), where quantising the decoded
      // value again would pick another index decoding to the same float.
      q.data[k++] = index(decode(lo, scale, first));
    }
  return q;
}

void dequantize_frames(const QuantizedFrames& q, size_t first, size_t count, float* out, size_t max_poses) {
  const size_t stored = q.stored_channels();
  const size_t poses = std::min(max_poses, q.poses);
  if (poses == 0) return;
  for (size_t f = 0; f < count; ++f) {
    const uint16_t* src = q.data.data() + (first + f) * stored;  // poses past `poses` are skipped
    for (size_t p = 0; p < poses; ++p) {
      const uint32_t mask = q.masks[p];
      for (size_t c = 0; c < q.channels; ++c) {
        const size_t i = p * q.channels + c;
        *out++ = mask >> c & 1u ? decode(q.offsets[i], q.scales[i], *src++) : q.offsets[i];
      }
    }
  }
}

}  // namespace meshport::ops
