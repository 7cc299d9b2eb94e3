// Modal oscillators of `meshport simulate` (simulate_world.h): each mode q'' + c q' + omega2 q = f
// advanced over a substep by its exact solution for a force held constant, so an undamped mode
// keeps its energy to rounding and any step is stable.
#include "physics/simulate_world.h"

namespace meshport::sim {

ModeStep mode_step(double omega2, double c, double h) {
  ModeStep m;
  if (!(omega2 > 0)) return m;  // frozen (a rigid mode of the file, or LAME 0)
  const double a = c / 2;
  const double disc = omega2 - a * a;  // > 0 underdamped, < 0 overdamped
  // C = cos(s h) and S = sin(s h) / s for s^2 = disc (cosh and sinh / s when disc < 0), with
  // series near disc h^2 = 0 (critical damping); E = exp(-a h).
  const double x = disc * h * h;
  m.e = std::exp(-a * h);
  if (std::abs(x) < 1e-6) {
    m.cs = 1 - x / 2 + x * x / 24;
    m.sn = h * (1 - x / 6 + x * x / 120);
  } else if (disc > 0) {
    const double s = std::sqrt(disc);
    m.cs = std::cos(s * h);
    m.sn = std::sin(s * h) / s;
  } else {
    // Overdamped: E cosh(s h) and E sinh(s h) / s as sums of exp((s - a) h) and exp(-(s + a) h)
    // (s < a), so that a large a h gives no inf * 0; E is then folded in.
    const double s = std::sqrt(-disc);
    const double slow = std::exp((s - a) * h), fast = std::exp(-(s + a) * h);
    m.cs = (slow + fast) / 2;
    m.sn = (slow - fast) / (2 * s);
    m.e = 1;
  }
  m.a = a;
  m.omega2 = omega2;
  return m;
}

void propagate_mode(double& q, double& qd, const ModeStep& m, double f) {
  if (!(m.omega2 > 0)) return;
  const double y0 = q - f / m.omega2;  // about the static equilibrium under f
  const double v0 = qd;
  q = m.e * (y0 * m.cs + (v0 + m.a * y0) * m.sn) + f / m.omega2;
  qd = m.e * (v0 * m.cs - (m.a * v0 + m.omega2 * y0) * m.sn);
}

void integrate_modes(Modal& m, double h) {
  if (m.step_h != h) {
    m.steps.resize(m.q.size());
    for (size_t k = 0; k < m.q.size(); ++k) m.steps[k] = mode_step(m.omega2[k], m.damping[k], h);
    m.step_h = h;
  }
  for (size_t k = 0; k < m.q.size(); ++k) propagate_mode(m.q[k], m.qd[k], m.steps[k], m.force[k]);
}

double modal_energy(const Modal& m) {
  double e = 0;
  for (size_t k = 0; k < m.q.size(); ++k) e += 0.5 * m.qd[k] * m.qd[k] + 0.5 * m.omega2[k] * m.q[k] * m.q[k];
  return e;
}

}  // namespace meshport::sim
