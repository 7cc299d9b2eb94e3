// Rigid bodies of `meshport simulate` (simulate_world.h): semi-implicit Euler with the inertia
// tensor rotated to world each substep, quaternion orientation, and path-driven poses.
#include "ops/animation/euler_zyx.h"
#include "ops/animation/path_keys.h"
#include "physics/simulate_world.h"

namespace meshport::sim {

M3 matrix_of(const DQ& q) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
          2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
          2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
}

DQ normalized(DQ q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n == 0) return {0, 0, 0, 1};
  return {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
}

bool alive(const Object& o, double t) {
  const bool born = o.birth < 0 || t >= o.birth - 1e-6;
  const bool living = o.death < 0 || t <= o.death + 1e-6;
  return born && living;
}

D3 origin_of(const Body& b) { return b.x - mul(matrix_of(b.q), b.com_model * b.scale); }

void pose_from_path(Object& o, double t) {
  D3 pos = o.pos0;
  DQ rot = o.rot0;
  if (!o.path->translation.empty()) {
    const auto p = ops::sample_path_keys(o.path->translation, t);
    pos = {p[0], p[1], p[2]};
  }
  if (!o.path->rotation.empty()) {
    // The Scene's rotation is float; the simulator keeps the quaternion the reader's animation shows.
    const Quat r = ops::quat_from_euler_zyx(ops::sample_path_keys(o.path->rotation, t));
    rot = normalized({r[0], r[1], r[2], r[3]});
  }
  o.body.q = rot;
  o.body.x = pos + mul(matrix_of(rot), o.body.com_model * o.body.scale);
}

namespace {

// R A R^T for a body-frame matrix A.
M3 to_world(const M3& r, const M3& a) {
  M3 ra{}, out{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) ra[i * 3 + j] += r[i * 3 + k] * a[k * 3 + j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) out[i * 3 + j] += ra[i * 3 + k] * r[j * 3 + k];
  return out;
}

// The angular velocity that turns a into b over h (b a^-1 = exp(w h / 2)).
D3 angular_velocity(const DQ& a, const DQ& b, double h) {
  // d = b * conj(a)
  const double ax = -a[0], ay = -a[1], az = -a[2], aw = a[3];
  DQ d{b[3] * ax + b[0] * aw + b[1] * az - b[2] * ay, b[3] * ay - b[0] * az + b[1] * aw + b[2] * ax,
       b[3] * az + b[0] * ay - b[1] * ax + b[2] * aw, b[3] * aw - b[0] * ax - b[1] * ay - b[2] * az};
  if (d[3] < 0) d = {-d[0], -d[1], -d[2], -d[3]};
  const double s = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (s < 1e-300) return {0, 0, 0};
  const double angle = 2 * std::atan2(s, d[3]);
  return D3{d[0], d[1], d[2]} * (angle / (s * h));
}

}  // namespace

void integrate_rigid(Object& o, const D3& gravity, double h, double t) {
  Body& b = o.body;
  if (b.motion == Motion::Static) return;
  if (b.motion == Motion::Path) {
    const D3 x0 = b.x;
    const DQ q0 = b.q;
    pose_from_path(o, t + h);
    b.v = (b.x - x0) * (1 / h);
    b.w = angular_velocity(q0, b.q, h);
    return;
  }
  // Semi-implicit Euler: velocities from the forces at the start of the substep, then positions
  // from the new velocities.
  b.v += (b.force * b.inv_mass + gravity) * h;
  const M3 r = matrix_of(b.q);
  const M3 iw = to_world(r, b.inertia);
  const M3 iw_inv = to_world(r, b.inv_inertia);
  const D3 gyro = cross(b.w, mul(iw, b.w));
  b.w += mul(iw_inv, b.torque - gyro) * h;
  b.x += b.v * h;
  // q' = 1/2 (w, 0) q
  const D3& w = b.w;
  const DQ& q = b.q;
  const DQ dq{w[0] * q[3] + w[1] * q[2] - w[2] * q[1], -w[0] * q[2] + w[1] * q[3] + w[2] * q[0],
              w[0] * q[1] - w[1] * q[0] + w[2] * q[3], -w[0] * q[0] - w[1] * q[1] - w[2] * q[2]};
  b.q = normalized({q[0] + 0.5 * h * dq[0], q[1] + 0.5 * h * dq[1], q[2] + 0.5 * h * dq[2], q[3] + 0.5 * h * dq[3]});
}

double kinetic_energy(const Body& b) {
  if (b.motion == Motion::Static) return 0;
  const M3 iw = to_world(matrix_of(b.q), b.inertia);
  return 0.5 * b.mass * dot(b.v, b.v) + 0.5 * dot(b.w, mul(iw, b.w));
}

double effective_mass(const Body& b, D3 r) {
  if (b.motion != Motion::Dynamic) return 0;  // infinite: the caller treats 0 as "does not move"
  return 1 / (b.inv_mass + dot(r, r) / b.min_inertia);
}

}  // namespace meshport::sim
