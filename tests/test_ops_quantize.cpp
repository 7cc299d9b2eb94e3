// Animation frame quantisation (src/ops/mesh/quantize.h).
#include "ops/mesh/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace meshport_test_ops_quantize {

using namespace meshport::ops;

TEST(OpsQuantize, ErrorIsAtMostHalfAStepAndConstantChannelsAreExact) {
  const size_t poses = 3, channels = 10, frames = 57;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<float> v(frames * poses * channels);
  for (size_t f = 0; f < frames; ++f)
    for (size_t p = 0; p < poses; ++p)
      for (size_t c = 0; c < channels; ++c) {
        float& x = v[(f * poses + p) * channels + c];
        if (c >= 7)
          x = 1.0f;  // scale: constant
        else if (p == 1 && c < 3)
          x = 0.37f;  // constant translation
        else if (p == 2 && c == 0)
          x = 5.0f + (f % 2) * 4e-7f;  // range below the epsilon
        else
          x = u(rng);
      }
  QuantizedFrames q = quantize_frames(v, poses, channels, frames);
  EXPECT_EQ(q.masks[0], 0x7Fu);  // T and Q animated, S constant
  EXPECT_EQ(q.masks[1], 0x78u);  // Q only
  EXPECT_EQ(q.masks[2], 0x7Eu);  // Tx is constant within the epsilon
  EXPECT_EQ(q.stored_channels(), 7u + 4 + 6);
  EXPECT_EQ(q.data.size(), frames * q.stored_channels());
  EXPECT_EQ(q.offsets[1 * 10 + 0], 0.37f);
  EXPECT_EQ(q.offsets[2 * 10 + 0], 5.0f);  // the minimum
  EXPECT_EQ(q.scales[1 * 10 + 0], 0.0f);

  std::vector<float> back(v.size());
  dequantize_frames(q, 0, frames, back.data());
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t pc = i % (poses * channels);
    const float step = q.scales[pc];
    if (step == 0) {
      EXPECT_LE(std::fabs(back[i] - v[i]), kConstantEpsilon);
      if (pc != 20) {
        EXPECT_EQ(back[i], v[i]) << i;  // truly constant: exact
      }
    } else {
      EXPECT_LE(std::fabs(back[i] - v[i]), step * 0.5f + std::fabs(v[i]) * 1.2e-7f) << i;
    }
  }

  // A sub-range of frames.
  std::vector<float> part(2 * poses * channels);
  dequantize_frames(q, 10, 2, part.data());
  for (size_t i = 0; i < part.size(); ++i) EXPECT_EQ(part[i], back[10 * poses * channels + i]);

  // Only the first two poses of frames 5..7: the third pose's stored values are skipped.
  std::vector<float> two(3 * 2 * channels, -1.0f);
  dequantize_frames(q, 5, 3, two.data(), 2);
  for (size_t f = 0; f < 3; ++f)
    for (size_t i = 0; i < 2 * channels; ++i)
      EXPECT_EQ(two[f * 2 * channels + i], back[((5 + f) * poses) * channels + i]) << f << " " << i;
  std::vector<float> none(1, -1.0f);
  dequantize_frames(q, 0, frames, none.data(), 0);
  EXPECT_EQ(none[0], -1.0f);
}

TEST(OpsQuantize, ExtremesAreStoredAsZeroAnd65535) {
  std::vector<float> v = {-1.0f, 2.0f, 0.5f};  // 3 frames, 1 pose, 1 channel
  QuantizedFrames q = quantize_frames(v, 1, 1, 3);
  ASSERT_EQ(q.data.size(), 3u);
  EXPECT_EQ(q.data[0], 0);
  EXPECT_EQ(q.data[1], 65535);
  EXPECT_EQ(q.data[2], 32768);  // round(1.5 / (3 / 65535)) = round(32767.5)
  EXPECT_EQ(q.offsets[0], -1.0f);
  EXPECT_EQ(q.scales[0], float(3.0 / 65535.0));
}

TEST(OpsQuantize, NineChannelsAndNonFiniteValues) {
  std::vector<float> v(2 * 9, 0.0f);
  v[0] = 1.0f;
  v[9] = std::nanf("");  // frame 1, channel 0: left out of the range, stored as the offset
  v[1] = 0.0f;
  v[10] = 2.0f;
  QuantizedFrames q = quantize_frames(v, 1, 9, 2);
  EXPECT_EQ(q.masks[0], 0x2u);  // channel 0 has one finite value only: constant
  std::vector<float> back(18);
  dequantize_frames(q, 0, 2, back.data());
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[9], 1.0f);
  EXPECT_EQ(back[10], 2.0f);
  QuantizedFrames empty = quantize_frames({}, 0, 10, 0);
  EXPECT_EQ(empty.stored_channels(), 0u);
}

// Quantising the decoded frames again (a file read and written again) gives the very same
// offsets, scales and values. The plain range / 65535 scale did not: its decoded top missed the
// maximum by an ulp (0.00198367285 .. 2 decodes to 1.9999999), so the scale drifted on every
// rewrite (a fuzz finding of fuzz_iqm_roundtrip).
TEST(OpsQuantize, RequantisingDecodedFramesKeepsEveryByte) {
  const size_t frames = 5, channels = 10;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-24, 24);
  std::vector<float> v;
  size_t poses = 0;
  auto add_pose = [&](auto value) {
    for (size_t f = 0; f < frames; ++f)
      for (size_t c = 0; c < channels; ++c) v.push_back(value(f, c));
    ++poses;
  };
  // The finding's channel, then lows far from the range, ranges at the epsilon, and many random ones.
  add_pose([](size_t f, size_t) { return f == 0 ? 0.00198367285f : f == 1 ? 2.0f : 1.0f; });
  add_pose([](size_t f, size_t c) { return 1000.0f + float(c) * 1e5f + (f == 2 ? 1.0f : 0.0f); });
  add_pose([](size_t f, size_t c) { return 3.0f + (f == 3 ? float(c + 1) * 1e-6f : 0.0f); });
  for (int i = 0; i < 400; ++i) {
    const float lo = (unit(rng) - 0.5f) * std::ldexp(1.0f, exponent(rng));
    const float range = unit(rng) * std::ldexp(1.0f, exponent(rng));
    add_pose([&](size_t f, size_t) { return f == 0 ? lo : f == 1 ? lo + range : lo + range * unit(rng); });
  }
  // quantize_frames takes frame-major values; the poses above were laid out pose-major.
  std::vector<float> frame_major(v.size());
  for (size_t p = 0; p < poses; ++p)
    for (size_t f = 0; f < frames; ++f)
      for (size_t c = 0; c < channels; ++c)
        frame_major[(f * poses + p) * channels + c] = v[(p * frames + f) * channels + c];

  const QuantizedFrames first = quantize_frames(frame_major, poses, channels, frames);
  std::vector<float> decoded(frame_major.size());
  dequantize_frames(first, 0, frames, decoded.data());
  const QuantizedFrames second = quantize_frames(decoded, poses, channels, frames);
  EXPECT_EQ(second.masks, first.masks);
  EXPECT_EQ(second.offsets, first.offsets);
  size_t scales_differ = 0;
  for (size_t i = 0; i < first.scales.size(); ++i) scales_differ += second.scales[i] != first.scales[i];
  EXPECT_EQ(scales_differ, 0u);
  EXPECT_EQ(second.data, first.data);
  // The finding's channel: the smallest scale whose decoded top reaches its maximum, 2.
  auto top = [&](float scale) {
    float v = first.offsets[2];
    v += 65535.0f * scale;
    return v;
  };
  EXPECT_EQ(first.offsets[2], 0.00198367285f);
  EXPECT_GE(top(first.scales[2]), 2.0f);
  EXPECT_LT(top(std::nextafter(first.scales[2], 0.0f)), 2.0f);
  EXPECT_NEAR(first.scales[2], (2.0 - 0.00198367285) / 65535, 1e-12);
}

}  // namespace meshport_test_ops_quantize
