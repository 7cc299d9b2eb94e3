// Affine transforms in double precision (dmath.h).
#include "core/dmath.h"

#include <cmath>

namespace meshport::ops {

D34 d_identity() { return {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}; }

D34 d_from_trs(const Transform& t) {
  double x = t.rotation[0], y = t.rotation[1], z = t.rotation[2], w = t.rotation[3];
  const double l = std::sqrt(x * x + y * y + z * z + w * w);
  if (l > 0) x /= l, y /= l, z /= l, w /= l;
  else x = y = z = 0, w = 1;
  return d_from_unit_trs(t, {x, y, z, w});
}

D34 d_from_unit_trs(const Transform& t, const std::array<double, 4>& q) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  D34 m{1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
        2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
        2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y),
        t.translation[0],        t.translation[1],        t.translation[2]};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m[c * 3 + r] *= t.scale[c];
  return m;
}

D34 d_mul(const D34& a, const D34& b) {
  D34 m{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) {
      double v = a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2];
      if (c == 3) v += a[9 + r];
      m[c * 3 + r] = v;
    }
  return m;
}

D34 d_inverse(const D34& m) {
  const double a00 = m[0], a10 = m[1], a20 = m[2], a01 = m[3], a11 = m[4], a21 = m[5], a02 = m[6], a12 = m[7],
               a22 = m[8];
  const double c00 = a11 * a22 - a12 * a21, c01 = a02 * a21 - a01 * a22, c02 = a01 * a12 - a02 * a11;
  const double det = a00 * c00 + a10 * c01 + a20 * c02;
  if (det == 0.0 || !std::isfinite(det)) return d_identity();
  const double inv = 1.0 / det;
  D34 r{};
  r[0] = c00 * inv;
  r[3] = c01 * inv;
  r[6] = c02 * inv;
  r[1] = (a12 * a20 - a10 * a22) * inv;
  r[4] = (a00 * a22 - a02 * a20) * inv;
  r[7] = (a02 * a10 - a00 * a12) * inv;
  r[2] = (a10 * a21 - a11 * a20) * inv;
  r[5] = (a01 * a20 - a00 * a21) * inv;
  r[8] = (a00 * a11 - a01 * a10) * inv;
  for (int row = 0; row < 3; ++row) r[9 + row] = -(r[row] * m[9] + r[3 + row] * m[10] + r[6 + row] * m[11]);
  return r;
}

}  // namespace meshport::ops
