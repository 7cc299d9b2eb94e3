// Joint constraints of `meshport simulate` (simulate_world.h): a stiff, critically damped spring
// between the two bodies' material points that were at the constraint's point at the start.
#include "physics/simulate_world.h"

#include <algorithm>

namespace meshport::sim {
namespace {

// The constraint spring's angular frequency times the substep, with the smallest effective mass
// of the two points: inside semi-implicit Euler's stability with critical damping
// ((omega h)^2 + 4 zeta omega h = 2.25 < 4), and a stiffer spring than the contacts' pick.
constexpr double kOmegaStep = 0.5;

D3 world_point(const World& w, int32_t body, const D3& local) {
  if (body < 0) return local;
  const Body& b = w.objects[size_t(body)].body;
  return b.x + mul(matrix_of(b.q), local);
}

D3 point_velocity(const World& w, int32_t body, const D3& world) {
  if (body < 0) return {0, 0, 0};
  const Body& b = w.objects[size_t(body)].body;
  return b.v + cross(b.w, world - b.x);
}

}  // namespace

void setup_constraints(World& w, const ModeDefState& state) {
  for (const ModeDefConstraint& c : state.constraints) {
    Constraint k;
    k.body1 = c.body1;
    k.body2 = c.body2;
    const D3 p{c.point[0], c.point[1], c.point[2]};
    double inv_mass = 0;
    auto local = [&](int32_t body) -> D3 {
      if (body < 0) return p;
      const Body& b = w.objects[size_t(body)].body;
      const D3 l = mul_transposed(matrix_of(b.q), p - b.x);
      const double m = effective_mass(b, l);
      if (m > 0) inv_mass += 1 / m;
      return l;
    };
    k.local1 = local(k.body1);
    k.local2 = local(k.body2);
    // Stiffness from the two bodies' smallest effective masses at their points (0: neither moves).
    if (inv_mass > 0) {
      const double m = 1 / inv_mass;
      const double omega = kOmegaStep / w.h;
      k.stiffness = m * omega * omega;
      k.damping = 2 * m * omega;
    }
    w.constraints.push_back(k);
  }
}

void add_constraint_forces(World& w) {
  for (const Constraint& c : w.constraints) {
    if (c.stiffness == 0) continue;
    if (c.body1 >= 0 && !w.objects[size_t(c.body1)].active) continue;
    if (!w.objects[size_t(c.body2)].active) continue;
    const D3 p1 = world_point(w, c.body1, c.local1);
    const D3 p2 = world_point(w, c.body2, c.local2);
    const D3 dv = point_velocity(w, c.body2, p2) - point_velocity(w, c.body1, p1);
    const D3 f = (p2 - p1) * (-c.stiffness) - dv * c.damping;  // on body 2; -f on body 1
    auto push = [&](int32_t body, const D3& at, const D3& force) {
      if (body < 0) return;
      Body& b = w.objects[size_t(body)].body;
      if (b.motion != Motion::Dynamic) return;
      b.force += force;
      b.torque += cross(at - b.x, force);
    };
    push(c.body2, p2, f);
    push(c.body1, p1, f * -1);
  }
}

}  // namespace meshport::sim
