// The simulator's state (simulate.h), shared by its files: rigid bodies (simulate_rigid.cpp),
// modal oscillators (simulate_modal.cpp), contacts and friction (simulate_contact.cpp), joint
// constraints (simulate_constraint.cpp), the stepping loop (simulate.cpp) and output
// (simulate_output.cpp). Doubles throughout.
#pragma once

#include <meshport/simulate.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace meshport::sim {

using D3 = std::array<double, 3>;
using DQ = std::array<double, 4>;   // x y z w
using M3 = std::array<double, 9>;   // row-major

inline D3 operator+(D3 a, D3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline D3 operator-(D3 a, D3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline D3 operator*(D3 a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline D3& operator+=(D3& a, D3 b) { return a = a + b; }
inline D3& operator-=(D3& a, D3 b) { return a = a - b; }
inline double dot(D3 a, D3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline D3 cross(D3 a, D3 b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline double norm(D3 a) { return std::sqrt(dot(a, a)); }
inline D3 mul(const M3& m, D3 v) {
  return {m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
          m[6] * v[0] + m[7] * v[1] + m[8] * v[2]};
}
inline D3 mul_transposed(const M3& m, D3 v) {
  return {m[0] * v[0] + m[3] * v[1] + m[6] * v[2], m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
          m[2] * v[0] + m[5] * v[1] + m[8] * v[2]};
}
M3 matrix_of(const DQ& q);  // rotation matrix of a unit quaternion
DQ normalized(DQ q);

// Which motion an object has: simulated, held at its pose (RB = 0), or following its .path.
enum class Motion : uint8_t { Dynamic, Static, Path };

// Points that touch the planes, in the body frame relative to the centre of mass, scaled by
// SCALE: the model's render vertices (its nodes when it has none), with their displacement per
// unit amplitude of each mode (scaled too).
struct Shape {
  std::vector<D3> points;
  std::vector<D3> modes;          // modes[v * mode_count + k]
  std::vector<double> mode_max;   // per mode: the largest |displacement| of a point
  double radius = 0;              // the largest |point|
  size_t mode_count = 0;
};

struct Body {
  Motion motion = Motion::Dynamic;
  double mass = 1, inv_mass = 1;
  M3 inertia{1, 0, 0, 0, 1, 0, 0, 0, 1}, inv_inertia{1, 0, 0, 0, 1, 0, 0, 0, 1};  // body frame, scaled
  double min_inertia = 1;  // smallest eigenvalue bound (for effective masses)
  double scale = 1;
  D3 com_model{0, 0, 0};   // the .prop's COM, model units
  // State: centre of mass, its velocity, orientation (world from body), angular velocity (world).
  D3 x{0, 0, 0}, v{0, 0, 0}, w{0, 0, 0};
  DQ q{0, 0, 0, 1};
  // Accumulated during a substep.
  D3 force{0, 0, 0}, torque{0, 0, 0};
};

// One mode's exact propagator over a substep h (simulate_modal.cpp).
struct ModeStep {
  double cs = 1, sn = 0, e = 1, a = 0, omega2 = 0;
};

struct Modal {
  std::vector<double> q, qd;        // amplitudes and their velocities
  std::vector<double> omega2;       // LAME * lambda (0: the mode is frozen)
  std::vector<double> damping;      // A1 + A2 * LAME * lambda
  std::vector<double> force;        // generalised force, accumulated during a substep
  bool deform = false;
  double step_h = 0;                // the substep `steps` were made for
  std::vector<ModeStep> steps;
};

struct Object {
  Body body;
  Modal modal;
  size_t shape = 0;                 // index into World::shapes
  double kp = 0, kv = 0, kb = 0;
  double birth = -1, death = -1;
  const ModeDefPath* path = nullptr;
  D3 pos0{0, 0, 0};                 // POS as read (a path without translation keys keeps it)
  DQ rot0{0, 0, 0, 1};
  bool active = false;              // alive during the current substep
  // Per substep / frame statistics.
  uint32_t contacts = 0;
  double penetration = 0;           // deepest in the current substep
  double frame_penetration = 0;     // deepest since the last output frame
  double contact_energy = 0;        // sum of 1/2 KP d^2 in the current substep
};

struct Constraint {
  int32_t body1 = -1, body2 = 0;
  D3 local1{0, 0, 0}, local2{0, 0, 0};  // material points in the bodies' frames (or the world point)
  double stiffness = 0, damping = 0;
};

struct World {
  std::vector<Object> objects;
  std::vector<Shape> shapes;
  std::vector<D3> plane_normals, plane_points;
  std::vector<Constraint> constraints;
  D3 gravity{0, -9.8, 0};
  double friction = 0;
  double max_penetration = 0, cluster_factor = 0, cluster_radius = 0;
  double h = 1e-3;  // base substep
};

bool alive(const Object& o, double t);

// simulate_rigid.cpp
// The object's joint pose (translation, rotation) from its centre of mass and orientation.
D3 origin_of(const Body& b);
void pose_from_path(Object& o, double t);  // sets x and q of a path-driven object at time t
void integrate_rigid(Object& o, const D3& gravity, double h, double t);
double kinetic_energy(const Body& b);
double effective_mass(const Body& b, D3 r);  // smallest effective mass at body-frame offset r

// simulate_modal.cpp
// Advances one oscillator q'' + c q' + omega2 q = f over h exactly (f held constant).
ModeStep mode_step(double omega2, double c, double h);
void propagate_mode(double& q, double& qd, const ModeStep& step, double f);
void integrate_modes(Modal& m, double h);
double modal_energy(const Modal& m);

// simulate_contact.cpp
// Adds the penalty and friction forces of every plane contact of the alive objects to their
// bodies and modes; records contact counts, depths and spring energies. Returns the deepest
// penetration.
double add_contact_forces(World& w, double h);
// The deepest penetration of any alive object's point (no forces).
double deepest_penetration(const World& w);
// The first plane (index) a point of object o is below, whatever its KP; -1 for none.
int32_t plane_reached(const World& w, const Object& o);

// simulate_constraint.cpp
void setup_constraints(World& w, const ModeDefState& state);
void add_constraint_forces(World& w);

}  // namespace meshport::sim
