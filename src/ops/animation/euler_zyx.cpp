// Euler angles (radians, X then Y then Z about fixed axes) <-> quaternions (euler_zyx.h).
#include "ops/animation/euler_zyx.h"

#include <algorithm>
#include <cmath>

namespace meshport::ops {

Quat quat_from_euler_zyx(Vec3 r) {
  const double hx = double(r[0]) / 2, hy = double(r[1]) / 2, hz = double(r[2]) / 2;
  const double cx = std::cos(hx), sx = std::sin(hx), cy = std::cos(hy), sy = std::sin(hy);
  const double cz = std::cos(hz), sz = std::sin(hz);
  // qz * qy * qx, expanded (x y z w).
  const double x = cz * cy * sx - sz * sy * cx;
  const double y = cz * sy * cx + sz * cy * sx;
  const double z = sz * cy * cx - cz * sy * sx;
  const double w = cz * cy * cx + sz * sy * sx;
  return {float(x), float(y), float(z), float(w)};
}

Vec3 euler_zyx_from_quat(Quat qf) {
  double x = qf[0], y = qf[1], z = qf[2], w = qf[3];
  const double n = std::sqrt(x * x + y * y + z * z + w * w);
  if (n > 0) x /= n, y /= n, z /= n, w /= n;
  // R = Rz(c) Ry(b) Rx(a): r20 = -sin b, r21 = sin a cos b, r22 = cos a cos b, r10 = cos b sin c,
  // r00 = cos b cos c.
  const double r00 = 1 - 2 * (y * y + z * z), r10 = 2 * (x * y + z * w), r20 = 2 * (x * z - y * w);
  const double r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
  const double r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
  const double sb = std::clamp(-r20, -1.0, 1.0);
  const double b = std::asin(sb);
  double a, c;
  if (std::fabs(sb) > 1 - 1e-9) {
    // Gimbal lock: only a - c (or a + c) is defined; c = 0, R = Ry(b) Rx(a).
    c = 0;
    a = std::atan2(-r12, r11);
  } else {
    a = std::atan2(r21, r22);
    c = std::atan2(r10, r00);
  }
  return {float(a), float(b), float(c)};
}

}  // namespace meshport::ops
