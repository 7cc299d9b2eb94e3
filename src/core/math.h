// Small vector, quaternion and matrix helpers shared by the ops and formats.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace meshport {

using Vec3 = std::array<float, 3>;
using Quat = std::array<float, 4>;      // x y z w
using Mat4 = std::array<float, 16>;     // column-major, as glTF: m[col * 4 + row]
using Mat3x4 = std::array<float, 12>;   // affine, column-major 3 rows x 4 columns

inline Vec3 operator+(Vec3 a, Vec3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline Vec3 operator*(Vec3 a, float s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline float dot(Vec3 a, Vec3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline float length(Vec3 a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalize(Vec3 a) {
  float l = length(a);
  return l > 0 ? a * (1.0f / l) : a;
}

inline Quat quat_mul(Quat a, Quat b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}
inline Quat quat_normalize(Quat q) {
  float l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  return l > 0 ? Quat{q[0] / l, q[1] / l, q[2] / l, q[3] / l} : Quat{0, 0, 0, 1};
}
inline Vec3 quat_rotate(Quat q, Vec3 v) {
  Vec3 u{q[0], q[1], q[2]};
  Vec3 t = cross(u, v) * 2.0f;
  return v + t * q[3] + cross(u, t);
}

// Spherical interpolation from a (u = 0) to b (u = 1) along the shorter arc; nearly equal
// rotations interpolate linearly. The result is normalised.
Quat quat_slerp(Quat a, Quat b, float u);

// Affine transforms as 3x4 column-major matrices: columns 0..2 are the basis, column 3 the
// translation. Composition follows the usual p' = M p.
inline Mat3x4 mat_identity() { return {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}; }
inline Mat3x4 mat_from_trs(Vec3 t, Quat q, Vec3 s) {
  q = quat_normalize(q);
  float x = q[0], y = q[1], z = q[2], w = q[3];
  Mat3x4 m{1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
           2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
           2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y),
           t[0],                    t[1],                    t[2]};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m[c * 3 + r] *= s[c];
  return m;
}
inline Mat3x4 mat_mul(const Mat3x4& a, const Mat3x4& b) {
  Mat3x4 m{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) {
      float v = a[0 * 3 + r] * b[c * 3 + 0] + a[1 * 3 + r] * b[c * 3 + 1] + a[2 * 3 + r] * b[c * 3 + 2];
      if (c == 3) v += a[9 + r];
      m[c * 3 + r] = v;
    }
  return m;
}
inline Vec3 mat_apply(const Mat3x4& m, Vec3 p) {
  return {m[0] * p[0] + m[3] * p[1] + m[6] * p[2] + m[9],
          m[1] * p[0] + m[4] * p[1] + m[7] * p[2] + m[10],
          m[2] * p[0] + m[5] * p[1] + m[8] * p[2] + m[11]};
}
// The 3x3 part only (a direction or displacement: no translation).
inline Vec3 mat_apply_linear(const Mat3x4& m, Vec3 v) {
  return {m[0] * v[0] + m[3] * v[1] + m[6] * v[2], m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
          m[2] * v[0] + m[5] * v[1] + m[8] * v[2]};
}
// Every packed x y z triple of `xyz` (morph target displacements) by the 3x3 part of `m`.
inline void mat_apply_linear_all(const Mat3x4& m, std::vector<float>& xyz) {
  for (size_t i = 0; i + 3 <= xyz.size(); i += 3) {
    const Vec3 q = mat_apply_linear(m, {xyz[i], xyz[i + 1], xyz[i + 2]});
    xyz[i] = q[0], xyz[i + 1] = q[1], xyz[i + 2] = q[2];
  }
}
// Inverse of an affine matrix (general 3x3 part); identity when singular.
Mat3x4 mat_inverse(const Mat3x4& m);

}  // namespace meshport
