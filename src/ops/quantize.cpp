#include "ops/quantize.h"

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
    if (double(hi) - double(lo) >= double(kConstantEpsilon)) {
      q.scales[i] = float((double(hi) - double(lo)) / 65535.0);
      q.masks[i / channels] |= 1u << (i % channels);
    }
  }

  q.data.resize(frames * q.stored_channels());
  size_t k = 0;
  for (size_t f = 0; f < frames; ++f)
    for (size_t i = 0; i < per_frame; ++i) {
      if (!(q.masks[i / channels] >> (i % channels) & 1u)) continue;
      float v = at(f, i);
      double s = std::isfinite(v) ? std::round((double(v) - double(q.offsets[i])) / double(q.scales[i])) : 0.0;
      s = s < 0 ? 0 : s > 65535 ? 65535 : s;
      q.data[k++] = uint16_t(s);
    }
  return q;
}

void dequantize_frames(const QuantizedFrames& q, size_t first, size_t count, float* out) {
  const size_t stored = q.stored_channels();
  const uint16_t* src = q.data.data() + first * stored;
  for (size_t f = 0; f < count; ++f)
    for (size_t p = 0; p < q.poses; ++p) {
      const uint32_t mask = q.masks[p];
      for (size_t c = 0; c < q.channels; ++c) {
        const size_t i = p * q.channels + c;
        float v = q.offsets[i];
        if (mask >> c & 1u) v += float(*src++) * q.scales[i];
        *out++ = v;
      }
    }
}

}  // namespace meshport::ops
