// Animation frame quantisation as IQM stores it (../shared/specs/iqm-notes.md).
//
// Per pose and channel (IQM v2: Tx Ty Tz Qx Qy Qz Qw Sx Sy Sz; v1 has 9, without Qw), over
// every frame: offset = min. A channel whose range (max - min) is below kConstantEpsilon is
// constant: its mask bit is clear, its value is `offset` (the minimum, so the error is below the
// epsilon) and no frame stores it. Otherwise scale is the smallest float for which
// offset + 65535 * scale (in float, as loaders decode) reaches the maximum (range / 65535 give or
// take float rounding), and each frame stores round((v - offset) / scale), so the error is at most
// half a step (plus float rounding of offset + q * scale). Non-finite values are left out of min
// and max and stored as 0. Quantising decoded frames again gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace meshport::ops {

inline constexpr float kConstantEpsilon = 1e-6f;

struct QuantizedFrames {
  size_t poses = 0, channels = 0, frames = 0;
  std::vector<uint32_t> masks;  // per pose: bit c set when channel c is stored per frame
  std::vector<float> offsets;   // [pose * channels + channel]
  std::vector<float> scales;    // [pose * channels + channel]; 0 for constant channels
  std::vector<uint16_t> data;   // frame-major; per frame, per pose, its stored channels in order

  size_t stored_channels() const;  // set mask bits (bits below `channels` only) = values per frame
};

// values: frame-major, values[(frame * poses + pose) * channels + channel]; channels <= 32.
QuantizedFrames quantize_frames(std::span<const float> values, size_t poses, size_t channels, size_t frames);

// Writes frames [first, first + count) to out in the layout quantize_frames takes, for the first
// P = min(max_poses, q.poses) poses of each frame:
// out[((frame - first) * P + pose) * channels + channel] = offset + q * scale (float math, as IQM
// loaders do). Requires first + count <= q.frames and data.size() == frames * stored.
void dequantize_frames(const QuantizedFrames& q, size_t first, size_t count, float* out,
                       size_t max_poses = SIZE_MAX);

}  // namespace meshport::ops
