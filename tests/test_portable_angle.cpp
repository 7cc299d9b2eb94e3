// portable_atan2 (src/core/angle.h): the corner angles of generated normals, computed with
// + - * / only so that every build (glibc, MinGW, Emscripten's musl) gives the same bits. Checked
// here for its exact values and special cases, against angles computed with 300-bit arithmetic
// (mpmath), and against the C library's double atan2 over many inputs.
#include "core/angle.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

namespace meshport_test_portable_angle {

using meshport::portable_atan2;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Units in the last place of `ref` between a and ref.
double ulps(double a, double ref) {
  const double ulp = std::nextafter(std::fabs(ref), kInf) - std::fabs(ref);
  return std::fabs(a - ref) / ulp;
}

// Doubles of any sign and of magnitudes between 2^-40 and 2^40, from a fixed 64-bit sequence
// (the same on every platform: no std:: distribution).
struct Inputs {
  uint64_t s = 0x9E3779B97F4A7C15u;
  uint64_t next() {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return s;
  }
  double value() {
    const uint64_t r = next();
    const double mantissa = double(r >> 11) * 0x1p-53;  // [0, 1)
    const int exponent = int((r >> 3) % 81) - 40;
    return std::ldexp(0.5 + mantissa, exponent) * ((r & 1) ? -1 : 1);
  }
};

}  // namespace

TEST(PortableAngle, ExactValues) {
  // The doubles nearest 0, pi/4, pi/2, 3pi/4 and pi (3pi/4 by mpmath: 0x1.2d97c7f3321d2p+1).
  EXPECT_EQ(portable_atan2(0.0, 1.0), 0.0);
  EXPECT_EQ(portable_atan2(1.0, 1.0), kPi / 4);
  EXPECT_EQ(portable_atan2(1.0, 0.0), kPi / 2);
  EXPECT_EQ(portable_atan2(1.0, -1.0), 0x1.2d97c7f3321d2p+1);
  EXPECT_EQ(portable_atan2(0.0, -1.0), kPi);
  EXPECT_EQ(portable_atan2(-1.0, 0.0), -kPi / 2);
  EXPECT_EQ(portable_atan2(-1.0, -1.0), -0x1.2d97c7f3321d2p+1);
  // Equal sides at any scale, the axes at any length.
  for (double v : {1e-300, 3e-9, 0.1, 0.7, 1.3, 12345.678, 1e300}) {
    EXPECT_EQ(portable_atan2(v, v), kPi / 4) << v;
    EXPECT_EQ(portable_atan2(-v, v), -kPi / 4) << v;
    EXPECT_EQ(portable_atan2(v, -v), 0x1.2d97c7f3321d2p+1) << v;
    EXPECT_EQ(portable_atan2(v, 0.0), kPi / 2) << v;
    EXPECT_EQ(portable_atan2(0.0, v), 0.0) << v;
    EXPECT_EQ(portable_atan2(0.0, -v), kPi) << v;
  }
  // The table's points atan(k / 8) are exact too (their nearest doubles, by mpmath).
  EXPECT_EQ(portable_atan2(1.0, 8.0), 0x1.fd5ba9aac2f6ep-4);
  EXPECT_EQ(portable_atan2(1.0, 2.0), 0x1.dac670561bb4fp-2);
  EXPECT_EQ(portable_atan2(3.0, 4.0), 0x1.4978fa3269ee1p-1);
}

TEST(PortableAngle, SpecialCasesAreCs) {
  EXPECT_TRUE(std::signbit(portable_atan2(-0.0, 1.0)));
  EXPECT_EQ(portable_atan2(-0.0, 1.0), 0.0);
  EXPECT_FALSE(std::signbit(portable_atan2(0.0, 0.0)));
  EXPECT_TRUE(std::signbit(portable_atan2(-0.0, 0.0)));
  EXPECT_EQ(portable_atan2(0.0, -0.0), kPi);
  EXPECT_EQ(portable_atan2(-0.0, -0.0), -kPi);
  EXPECT_EQ(portable_atan2(-0.0, -2.0), -kPi);
  EXPECT_EQ(portable_atan2(kInf, kInf), kPi / 4);
  EXPECT_EQ(portable_atan2(kInf, -kInf), 0x1.2d97c7f3321d2p+1);
  EXPECT_EQ(portable_atan2(-kInf, -kInf), -0x1.2d97c7f3321d2p+1);
  EXPECT_EQ(portable_atan2(kInf, 5.0), kPi / 2);
  EXPECT_EQ(portable_atan2(-kInf, -5.0), -kPi / 2);
  EXPECT_EQ(portable_atan2(5.0, kInf), 0.0);
  EXPECT_EQ(portable_atan2(5.0, -kInf), kPi);
  EXPECT_EQ(portable_atan2(-5.0, -kInf), -kPi);
  EXPECT_TRUE(std::isnan(portable_atan2(std::nan(""), 1.0)));
  EXPECT_TRUE(std::isnan(portable_atan2(1.0, std::nan(""))));
  // A quotient that underflows: the angle is the quotient, here 0 with y's sign.
  EXPECT_EQ(portable_atan2(1e-300, 1e300), 0.0);
  EXPECT_EQ(portable_atan2(1e-300, -1e300), kPi);
}

TEST(PortableAngle, WithinThreeUlpOfTheTrueAngle) {
  // atan2(y, x) with 300-bit arithmetic (mpmath), rounded to the nearest double: the ends of the
  // table's intervals (k / 16), both octants of each quadrant, angles near 0, pi/2 and pi.
  struct Case {
    double y, x, angle;
  };
  const Case cases[] = {{1, 2, 0x1.dac670561bb4fp-2},          {3, -7, 0x1.5e4c36ca0118ap+1},
                        {-5, 11, -0x1.b4ddd66a37b40p-2},       {1e-300, 1, 0x1.56e1fc2f8f359p-997},
                        {0.0625, 1, 0x1.ff55bb72cfdeap-5},      {0.1875, 1, 0x1.7b97b4bce5b02p-3},
                        {0.9375, 1, 0x1.819d0b7158a4dp-1},      {1, 0.9375, 0x1.a2a25f172cfe4p-1},
                        {7, -0.001, 0x1.92291203036eap+0},      {2.5e-8, -1, 0x1.921fb50e92ec5p+1},
                        {1, 3, 0x1.4978fa3269ee1p-2},           {123456.789, -0.001, 0x1.921fb5670cdcep+0}};
  for (const Case& c : cases) EXPECT_LE(ulps(portable_atan2(c.y, c.x), c.angle), 3.0) << c.y << ", " << c.x;
}

TEST(PortableAngle, AgreesWithTheCLibrary) {
  // Against the C library's double atan2 (within an ulp of the true angle itself) over 2 million
  // inputs of every sign and octant: within 4 ulp of it in double, and rounded to float the same
  // float but where the angle lies at a float's rounding boundary (then one float apart).
  Inputs in;
  double worst = 0;
  int float_differs = 0;
  const int n = 2000000;
  for (int i = 0; i < n; ++i) {
    const double y = in.value(), x = in.value();
    const double ours = portable_atan2(y, x), lib = std::atan2(y, x);
    worst = std::max(worst, ulps(ours, lib));
    const float f = float(ours), g = float(lib);
    if (f != g) {
      ++float_differs;
      EXPECT_TRUE(std::nextafter(f, g) == g) << y << ", " << x;
    }
  }
  EXPECT_LE(worst, 4.0);
  EXPECT_LE(float_differs, 2) << "of " << n;
}

TEST(PortableAngle, CornerAnglesOfATriangleSumToPi) {
  // A triangle's three corner angles as generate_normals computes them, atan2(|cross|, dot), in
  // float: they sum to pi within float rounding, for slivers too.
  const double tris[][6] = {{0, 0, 1, 0, 0, 1}, {0, 0, 1, 0, 0.5, 1e-6}, {0, 0, 3, 0, 1, 2}, {0, 0, 1e-5, 0, 5e-6, 1e4}};
  for (const auto& t : tris) {
    const double ab[2] = {t[2] - t[0], t[3] - t[1]}, ac[2] = {t[4] - t[0], t[5] - t[1]},
                 bc[2] = {t[4] - t[2], t[5] - t[3]};
    const double l = std::fabs(ab[0] * ac[1] - ab[1] * ac[0]);
    const double a = float(portable_atan2(l, ab[0] * ac[0] + ab[1] * ac[1]));
    const double b = float(portable_atan2(l, -(ab[0] * bc[0] + ab[1] * bc[1])));
    const double c = float(portable_atan2(l, ac[0] * bc[0] + ac[1] * bc[1]));
    EXPECT_NEAR(a + b + c, kPi, 4e-7) << t[4] << ", " << t[5];
  }
}

}  // namespace meshport_test_portable_angle
