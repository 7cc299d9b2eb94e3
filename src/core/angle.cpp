// portable_atan2 (angle.h): the angle of (x, y) from a table and a short series, with + - * /
// only. Compiled with -ffp-contract=off (CMakeLists.txt): every operation rounds on its own, as
// IEEE 754 defines it, whatever the target.
#include "core/angle.h"

#include <cmath>

namespace meshport {

namespace {

// atan(k / 8) for k = 0..8 as the sum of two doubles (hi: the nearest double; lo: the rest),
// computed with 200-bit arithmetic (mpmath).
constexpr double kAtanHi[9] = {0.0,
                               0x1.fd5ba9aac2f6ep-4,
                               0x1.f5b75f92c80ddp-3,
                               0x1.6f61941e4def1p-2,
                               0x1.dac670561bb4fp-2,
                               0x1.1e00babdefeb4p-1,
                               0x1.4978fa3269ee1p-1,
                               0x1.700a7c5784634p-1,
                               0x1.921fb54442d18p-1};
constexpr double kAtanLo[9] = {0.0,
                               -0x1.cd37686760c17p-59,
                               0x1.8ab6e3cf7afbdp-57,
                               -0x1.c63aae6f6e918p-56,
                               0x1.a2b7f222f65e2p-56,
                               -0x1.928df287a668fp-58,
                               0x1.2419a87f2a458p-56,
                               -0x1.8c34d25aadef6p-56,
                               0x1.1a62633145c07p-55};
constexpr double kPiHi = 0x1.921fb54442d18p+1, kPiLo = 0x1.1a62633145c07p-53;
constexpr double kHalfPiHi = 0x1.921fb54442d18p+0, kHalfPiLo = 0x1.1a62633145c07p-54;

// atan(t) for t in [0, 1] as hi + lo: hi = atan(c) of the nearest c = k / 8 from the table, lo
// its low part plus atan(u) with u = (t - c) / (1 + t c), |u| <= 1/16, by its Taylor series to
// u^13 (the next term is below 2^-56 u / 15).
struct Split {
  double hi, lo;
};
Split atan_unit(double t) {
  const int k = int(t * 8 + 0.5);
  const double c = k * 0.125;
  const double u = (t - c) / (1 + t * c);  // t - c is exact (Sterbenz), c and t * 8 too
  const double u2 = u * u;
  double p = 1.0 / 13;
  p = p * u2 - 1.0 / 11;
  p = p * u2 + 1.0 / 9;
  p = p * u2 - 1.0 / 7;
  p = p * u2 + 1.0 / 5;
  p = p * u2 - 1.0 / 3;
  return {kAtanHi[k], kAtanLo[k] + (u + u * u2 * p)};
}

}  // namespace

double portable_atan2(double y, double x) {
  if (std::isnan(x) || std::isnan(y)) return x + y;
  double ay = std::fabs(y), ax = std::fabs(x);
  const bool left = std::signbit(x);
  if (std::isinf(ax) || std::isinf(ay)) {  // the direction of the infinite side(s)
    const bool both = std::isinf(ax) && std::isinf(ay);
    ax = both || std::isinf(ax) ? 1 : 0;
    ay = both || std::isinf(ay) ? 1 : 0;
  }
  double r;
  if (ay == 0) {
    r = left ? kPiHi : 0.0;
  } else if (ax == 0) {
    r = kHalfPiHi;
  } else if (ay <= ax) {  // |angle from the x axis| <= pi/4
    const Split a = atan_unit(ay / ax);
    r = left ? (kPiHi - a.hi) + (kPiLo - a.lo) : a.hi + a.lo;
  } else {  // within pi/4 of the y axis: pi/2 -+ atan(|x| / |y|)
    const Split a = atan_unit(ax / ay);
    r = left ? (kHalfPiHi + a.hi) + (kHalfPiLo + a.lo) : (kHalfPiHi - a.hi) + (kHalfPiLo - a.lo);
  }
  return std::copysign(r, y);
}

}  // namespace meshport
