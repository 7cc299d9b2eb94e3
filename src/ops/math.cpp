#include "ops/math.h"

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

}  // namespace meshport
