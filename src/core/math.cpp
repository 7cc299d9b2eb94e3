#include "core/math.h"

#include <algorithm>

namespace meshport {

Mat3x4 mat_inverse(const Mat3x4& m) {
  // 3x3 part by cofactors; a = m[c*3+r].
  float a00 = m[0], a10 = m[1], a20 = m[2];
  float a01 = m[3], a11 = m[4], a21 = m[5];
  float a02 = m[6], a12 = m[7], a22 = m[8];
  float c00 = a11 * a22 - a12 * a21, c01 = a02 * a21 - a01 * a22, c02 = a01 * a12 - a02 * a11;
  float det = a00 * c00 + a10 * c01 + a20 * c02;
  if (det == 0.0f) return mat_identity();
  float inv = 1.0f / det;
  Mat3x4 r{};
  // r[col*3+row]
  r[0] = c00 * inv;
  r[3] = c01 * inv;
  r[6] = c02 * inv;
  r[1] = (a12 * a20 - a10 * a22) * inv;
  r[4] = (a00 * a22 - a02 * a20) * inv;
  r[7] = (a02 * a10 - a00 * a12) * inv;
  r[2] = (a10 * a21 - a11 * a20) * inv;
  r[5] = (a01 * a20 - a00 * a21) * inv;
  r[8] = (a00 * a11 - a01 * a10) * inv;
  Vec3 t{m[9], m[10], m[11]};
  for (int row = 0; row < 3; ++row)
    r[9 + row] = -(r[row] * t[0] + r[3 + row] * t[1] + r[6 + row] * t[2]);
  return r;
}

Quat quat_slerp(Quat a, Quat b, float u) {
  double d = double(a[0]) * b[0] + double(a[1]) * b[1] + double(a[2]) * b[2] + double(a[3]) * b[3];
  double sign = 1.0;
  if (d < 0) d = -d, sign = -1.0;
  double wa = 1.0 - u, wb = u;
  if (d <= 0.9995) {
    double th = std::acos(std::min(d, 1.0)), s = std::sin(th);
    wa = std::sin((1.0 - u) * th) / s;
    wb = std::sin(u * th) / s;
  }
  wb *= sign;
  return quat_normalize({float(wa * a[0] + wb * b[0]), float(wa * a[1] + wb * b[1]), float(wa * a[2] + wb * b[2]),
                         float(wa * a[3] + wb * b[3])});
}

}  // namespace meshport
