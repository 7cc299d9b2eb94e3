// Modal oscillators of `meshport simulate` (simulate_world.h): each mode q'' + c q' + omega2 q = f
// advanced over a substep by its exact solution for a force held constant, so an undamped mode
// keeps its energy to rounding and any step is stable.
#include "ops/simulate_world.h"

namespace meshport::sim {

void propagate_mode(double& q, double& qd, double omega2, double c, double f, double h) {
  if (!(omega2 > 0)) return;  // frozen (a rigid mode of the file, or LAME 0)
  const double a = c / 2;
  const double disc = omega2 - a * a;  // > 0 underdamped, < 0 overdamped
  const double y0 = q - f / omega2;    // about the static equilibrium under f
  const double v0 = qd;
  // C = cos(s h) and S = sin(s h) / s for s^2 = disc (cosh and sinh / s when disc < 0), with
  // series near disc h^2 = 0 (critical damping).
  double cs, sn;
  const double x = disc * h * h;
  if (std::abs(x) < 1e-6) {
    cs = 1 - x / 2 + x * x / 24;
    sn = h * (1 - x / 6 + x * x / 120);
  } else if (disc > 0) {
    const double s = std::sqrt(disc);
    cs = std::cos(s * h);
    sn = std::sin(s * h) / s;
  } else {
    const double s = std::sqrt(-disc);
    cs = std::cosh(s * h);
    sn = std::sinh(s * h) / s;
  }
  const double e = std::exp(-a * h);
  const double y = e * (y0 * cs + (v0 + a * y0) * sn);
  const double v = e * (v0 * cs - (a * v0 + omega2 * y0) * sn);
  q = y + f / omega2;
  qd = v;
}

void integrate_modes(Modal& m, double h) {
  for (size_t k = 0; k < m.q.size(); ++k) propagate_mode(m.q[k], m.qd[k], m.omega2[k], m.damping[k], m.force[k], h);
}

double modal_energy(const Modal& m) {
  double e = 0;
  for (size_t k = 0; k < m.q.size(); ++k) e += 0.5 * m.qd[k] * m.qd[k] + 0.5 * m.omega2[k] * m.q[k] * m.q[k];
  return e;
}

}  // namespace meshport::sim
