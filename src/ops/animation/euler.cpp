// Euler angles <-> quaternions (euler.h).
#include "ops/animation/euler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace meshport::ops {

static Quat axis_quat(int axis, double degrees) {
  double half = degrees * std::numbers::pi / 360.0;
  Quat q{0, 0, 0, float(std::cos(half))};
  q[size_t(axis)] = float(std::sin(half));
  return q;
}

Quat quat_from_euler_xyz(Vec3 d) {
  return quat_normalize(quat_mul(quat_mul(axis_quat(0, d[0]), axis_quat(1, d[1])), axis_quat(2, d[2])));
}

Vec3 euler_xyz_from_quat(Quat qf) {
  double x = qf[0], y = qf[1], z = qf[2], w = qf[3];
  double n = std::sqrt(x * x + y * y + z * z + w * w);
  if (n > 0) x /= n, y /= n, z /= n, w /= n;
  // Rotation matrix entries r<row><col> of the unit quaternion.
  double r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - z * w), r02 = 2 * (x * z + y * w);
  double r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
  double r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
  const double to_deg = 180.0 / std::numbers::pi;
  double sy = std::clamp(r02, -1.0, 1.0);
  double ay = std::asin(sy), ax, az;
  if (std::abs(sy) < 1 - 1e-12) {
    ax = std::atan2(-r12, r22);
    az = std::atan2(-r01, r00);
  } else {
    ax = std::atan2(r21, r11);
    az = 0;
  }
  return {float(ax * to_deg), float(ay * to_deg), float(az * to_deg)};
}

}  // namespace meshport::ops
