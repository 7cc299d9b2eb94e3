// Component decoding and encoding (src/ops/mesh/components.h).
#include "ops/mesh/components.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace meshport_test_ops_components {

using namespace meshport;
using namespace meshport::ops;

namespace {

const ComponentType kAll[] = {ComponentType::Byte,   ComponentType::UByte, ComponentType::Short,
                              ComponentType::UShort, ComponentType::Int,   ComponentType::UInt,
                              ComponentType::Half,   ComponentType::Float, ComponentType::Double};

std::vector<float> round_trip(ComponentType t, bool norm, const std::vector<float>& in, EncodeStats& st) {
  std::vector<uint8_t> bytes(in.size() * component_size(t));
  encode(t, norm, in.data(), in.size(), bytes.data(), st);
  std::vector<float> out(in.size());
  decode(t, norm, bytes.data(), in.size(), out.data());
  return out;
}

}  // namespace

TEST(OpsComponents, Sizes) {
  const size_t sizes[] = {1, 1, 2, 2, 4, 4, 2, 4, 8};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(component_size(kAll[i]), sizes[i]);
  EXPECT_STREQ(component_name(ComponentType::UShort), "ushort");
  EXPECT_EQ(max_exact_integer(ComponentType::Half), 2048.0);
  EXPECT_EQ(max_exact_integer(ComponentType::UByte), 255.0);
}

TEST(OpsComponents, HalfRoundsToNearestEven) {
  // 1e-7 lies between the subnormals 2^-24 (5.96e-8) and 2^-23: nearest is 2^-23 (truncation gives 2^-24).
  EXPECT_EQ(float_to_half(1e-7f), 2);
  EXPECT_EQ(half_to_float(float_to_half(1e-7f)), 0x1p-23f);
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00);             // tie -> even (down)
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02);         // tie -> even (up)
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);  // above the tie -> up
  EXPECT_EQ(float_to_half(0x1p-25f), 0);                         // tie between 0 and 2^-24 -> 0
  EXPECT_EQ(float_to_half(0x1.8p-25f), 1);                       // above it -> 2^-24
  EXPECT_EQ(float_to_half(3 * 0x1p-25f), 2);                     // 1.5 * 2^-24: tie -> even 2
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(65519.0f), 0x7BFF);  // still rounds down to the largest half
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);  // rounds up to infinity
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  EXPECT_EQ(float_to_half(0x1p-14f), 0x0400);             // smallest normal
  EXPECT_EQ(float_to_half(0x1p-14f - 0x1p-25f), 0x0400);  // rounds up into the normals
}

TEST(OpsComponents, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = half_to_float(uint16_t(h));
    if (std::isnan(f)) {
      EXPECT_TRUE((h & 0x7C00) == 0x7C00 && (h & 0x3FF));
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    ASSERT_EQ(float_to_half(f), h) << h;
  }
  EXPECT_EQ(half_to_float(1), 0x1p-24f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
}

TEST(OpsComponents, NormalisedDecode) {
  const uint8_t ub[] = {0, 128, 255};
  float out[3];
  decode(ComponentType::UByte, true, ub, 3, out);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 128.0f / 255.0f);
  EXPECT_EQ(out[2], 1.0f);
  const int8_t sb[] = {-128, -127, 127};
  decode(ComponentType::Byte, true, reinterpret_cast<const uint8_t*>(sb), 3, out);
  EXPECT_EQ(out[0], -1.0f);  // max(v / max, -1)
  EXPECT_EQ(out[1], -1.0f);
  EXPECT_EQ(out[2], 1.0f);
  const int16_t ss[] = {-32768, 16384};
  decode(ComponentType::Short, true, reinterpret_cast<const uint8_t*>(ss), 2, out);
  EXPECT_EQ(out[0], -1.0f);
  EXPECT_EQ(out[1], 16384.0f / 32767.0f);
  const uint32_t ui[] = {4294967295u, 0};
  decode(ComponentType::UInt, true, reinterpret_cast<const uint8_t*>(ui), 2, out);
  EXPECT_EQ(out[0], 1.0f);
  const int32_t si[] = {std::numeric_limits<int32_t>::min()};
  decode(ComponentType::Int, true, reinterpret_cast<const uint8_t*>(si), 1, out);
  EXPECT_EQ(out[0], -1.0f);
}

TEST(OpsComponents, IntegersThatAreNotNormalisedKeepTheirValue) {
  const uint8_t ub[] = {0, 7, 255};
  float out[3];
  decode(ComponentType::UByte, false, ub, 3, out);
  EXPECT_EQ(out[1], 7.0f);
  EXPECT_EQ(out[2], 255.0f);
  const uint16_t us[] = {300};
  decode(ComponentType::UShort, false, reinterpret_cast<const uint8_t*>(us), 1, out);
  EXPECT_EQ(out[0], 300.0f);
  EncodeStats st;
  uint8_t b[3];
  float in[3] = {300.0f, -2.0f, 44.4f};
  encode(ComponentType::UByte, false, in, 3, b, st);
  EXPECT_EQ(b[0], 255);  // clamped, never wrapped to 44
  EXPECT_EQ(b[1], 0);
  EXPECT_EQ(b[2], 44);
  EXPECT_EQ(st.clamped, 2u);
}

TEST(OpsComponents, NormalisedRoundTripsForEveryType) {
  for (ComponentType t : kAll) {
    if (!is_integer(t)) continue;
    const double max = integer_max(t);
    const bool is_signed = integer_min(t) < 0;
    std::vector<float> in = {0.0f, 1.0f, 0.5f, 0.25f, float(1 / max), float(3 / max)};
    if (is_signed) in.insert(in.end(), {-1.0f, -0.5f, float(-1 / max)});
    EncodeStats st;
    std::vector<float> out = round_trip(t, true, in, st);
    EXPECT_EQ(st.clamped, 0u) << component_name(t);
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_NEAR(out[i], in[i], 0.5 / max + 1e-7) << component_name(t) << " " << in[i];
    // Every representable code decodes and encodes back to itself (all codes for 8/16 bits).
    if (component_size(t) <= 2) {
      const int lo = is_signed ? -int(max) : 0;
      for (int k = lo; k <= int(max); ++k) {
        std::vector<float> one = {float(k) / float(max)};
        EncodeStats s2;
        ASSERT_EQ(round_trip(t, true, one, s2)[0], one[0]) << component_name(t) << " " << k;
      }
    }
  }
}

TEST(OpsComponents, EncodeClampsAndCountsNaN) {
  for (ComponentType t : kAll) {
    std::vector<float> in = {std::nanf(""), 2.0f, -2.0f, 1e30f};
    EncodeStats st;
    std::vector<float> out = round_trip(t, true, in, st);
    if (is_integer(t)) {
      EXPECT_EQ(st.nan, 1u) << component_name(t);
      EXPECT_EQ(out[0], 0.0f) << component_name(t);
      EXPECT_EQ(out[1], 1.0f) << component_name(t);
      EXPECT_EQ(out[2], integer_min(t) < 0 ? -1.0f : 0.0f) << component_name(t);
      EXPECT_EQ(st.clamped, 3u) << component_name(t);
    } else {
      EXPECT_EQ(st.nan, 0u);
      EXPECT_TRUE(std::isnan(out[0])) << component_name(t);  // NaN kept by half, float and double
      EXPECT_EQ(out[1], 2.0f);
      EXPECT_EQ(out[3], t == ComponentType::Half ? 65504.0f : 1e30f);
      EXPECT_EQ(st.clamped, t == ComponentType::Half ? 1u : 0u);
    }
  }
}

TEST(OpsComponents, HalfClampsFiniteOverflowButKeepsInfinity) {
  std::vector<float> in = {70000.0f, -70000.0f, 65519.0f, std::numeric_limits<float>::infinity(), 1e-7f};
  EncodeStats st;
  std::vector<float> out = round_trip(ComponentType::Half, false, in, st);
  EXPECT_EQ(out[0], 65504.0f);
  EXPECT_EQ(out[1], -65504.0f);
  EXPECT_EQ(out[2], 65504.0f);
  EXPECT_TRUE(std::isinf(out[3]));
  EXPECT_EQ(out[4], 0x1p-23f);
  EXPECT_EQ(st.clamped, 2u);
}

TEST(OpsComponents, FloatAndDoubleAreExact) {
  std::vector<float> in = {0.1f, -3.5e-20f, 1e30f, -0.0f, std::numeric_limits<float>::denorm_min()};
  for (ComponentType t : {ComponentType::Float, ComponentType::Double}) {
    EncodeStats st;
    std::vector<float> out = round_trip(t, false, in, st);
    for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(in[i]));
  }
}

TEST(OpsComponents, UnalignedAndStrided) {
  // Three float pairs starting at an odd address, widened to stride 3.
  std::vector<uint8_t> raw(1 + 6 * 4);
  float v[6] = {1, 2, 3, 4, 5, 6};
  std::memcpy(raw.data() + 1, v, sizeof v);
  std::vector<float> out(9, -1.0f);
  decode_strided(ComponentType::Float, false, raw.data() + 1, 3, 2, out.data(), 3);
  EXPECT_EQ(out, (std::vector<float>{1, 2, -1, 3, 4, -1, 5, 6, -1}));
  EXPECT_EQ(decode_one(ComponentType::Float, false, raw.data() + 5), 2.0f);
}

}  // namespace meshport_test_ops_components
