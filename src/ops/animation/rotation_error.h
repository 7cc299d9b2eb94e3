// The angle between two rotations, for the errors resampling reports (process.h ResampleError).
#pragma once

#include <cmath>

namespace meshport::ops {

// The angle in degrees of the rotation taking quaternion a to b (both normalised here; q and -q
// are the same rotation): 4 atan2(|a - b|, |a + b|) with b on a's side, exact near 0 where the
// acos of their dot product loses half the digits. 0 when either has no length.
inline double rotation_degrees(const float* qa, const float* qb) {
  double la = 0, lb = 0, dot = 0;
  for (int i = 0; i < 4; ++i) la += double(qa[i]) * qa[i], lb += double(qb[i]) * qb[i], dot += double(qa[i]) * qb[i];
  if (!(la > 0) || !(lb > 0)) return 0;
  la = std::sqrt(la), lb = std::sqrt(lb);
  const double s = dot < 0 ? -1 : 1;
  double dm = 0, dp = 0;
  for (int i = 0; i < 4; ++i) {
    const double a = qa[i] / la, b = s * qb[i] / lb;
    dm += (a - b) * (a - b), dp += (a + b) * (a + b);
  }
  return 4 * std::atan2(std::sqrt(dm), std::sqrt(dp)) * 180 / 3.14159265358979323846;
}

}  // namespace meshport::ops
