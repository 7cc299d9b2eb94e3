// Animation frame quantisation (src/ops/quantize.h).
#include "ops/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

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
