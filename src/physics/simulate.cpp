// `meshport simulate` (simulate.h): the world built from a .state Scene, the substep choice, and
// the stepping loop with MAXPEN rollbacks. Forces: simulate_contact.cpp and
// simulate_constraint.cpp; integration: simulate_rigid.cpp and simulate_modal.cpp.
#include <meshport/modal.h>
#include <meshport/simulate.h>

#include "physics/simulate_world.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

namespace meshport {
namespace {

using namespace sim;

// Substeps are at most this long (seconds): constraint springs and friction need a fine step
// even where no spring asks for one.
constexpr double kMaxSubstep = 1e-3;
// omega * h for the stiffest spring: semi-implicit Euler is stable below 2.
constexpr double kOmegaStep = 0.5;
// A substep that passes MAXPEN is redone as two halves, at most this many times nested.
constexpr int kMaxRollbackDepth = 4;
// Contacts assumed to share a body's weight when choosing the substep.
constexpr double kContactsAssumed = 4;

[[noreturn]] void sim_fail(std::string message) { fail("", "simulate: " + std::move(message)); }

D3 d3(const std::array<float, 3>& v) { return {v[0], v[1], v[2]}; }

double default_seconds(const ModeDefData& md) {
  double t = 0;
  for (size_t i = 0; i < md.state.objects.size(); ++i) {
    const ModeDefObject& o = md.state.objects[i];
    t = std::max({t, double(o.birth), double(o.death)});
    if (i < md.object_path.size() && md.object_path[i] >= 0) {
      const ModeDefPath& p = md.paths[size_t(md.object_path[i])].path;
      if (!p.translation.empty()) t = std::max(t, double(p.translation.back().time));
      if (!p.rotation.empty()) t = std::max(t, double(p.rotation.back().time));
    }
  }
  return t > 0 ? t : 5.0;
}

// The contact points of a model with the prop's scale and centre of mass (simulate_world.h Shape).
Shape make_shape(const ModeDefModel& m, const ModeDefProp& p) {
  Shape s;
  const double scale = p.scale;
  const D3 c = d3(p.center_of_mass);
  const bool render = !m.vertices.empty();
  const size_t n = render ? m.vertices.size() : m.node_count();
  s.points.resize(n);
  for (size_t v = 0; v < n; ++v) {
    const D3 x = render ? d3(m.vertices[v]) : D3{m.rest[v * 3], m.rest[v * 3 + 1], m.rest[v * 3 + 2]};
    s.points[v] = (x - c) * scale;
    s.radius = std::max(s.radius, norm(s.points[v]));
  }
  s.mode_count = m.mode_count();
  s.modes.assign(n * s.mode_count, D3{0, 0, 0});
  s.mode_max.assign(s.mode_count, 0);
  const size_t len = m.rest.size();
  for (size_t k = 0; k < s.mode_count; ++k) {
    const std::span<const float> node(m.eigenvectors.data() + k * len, len);
    std::vector<float> moved;
    if (render) moved = render_displacements(m, node);
    const std::span<const float> d = render ? std::span<const float>(moved) : node;
    for (size_t v = 0; v < n; ++v) {
      const D3 u = D3{d[v * 3], d[v * 3 + 1], d[v * 3 + 2]} * scale;
      s.modes[v * s.mode_count + k] = u;
      s.mode_max[k] = std::max(s.mode_max[k], norm(u));
    }
  }
  return s;
}

// Inverse of a symmetric positive definite 3x3 matrix; false when it is not one.
bool invert_spd(const M3& a, M3& inv) {
  const double m1 = a[0], m2 = a[0] * a[4] - a[1] * a[3];
  const double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                     a[2] * (a[3] * a[7] - a[4] * a[6]);
  if (!(m1 > 0 && m2 > 0 && det > 0) || !std::isfinite(det)) return false;
  // Symmetric within 1e-4 of the matrix's scale (its largest entry): products of inertia that are
  // zero up to rounding (1e-15 of the moments) may differ by their whole size.
  double scale = 0;
  for (double x : a) scale = std::max(scale, std::abs(x));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (std::abs(a[i * 3 + j] - a[j * 3 + i]) > 1e-4 * scale) return false;
  inv = {(a[4] * a[8] - a[5] * a[7]) / det, (a[2] * a[7] - a[1] * a[8]) / det, (a[1] * a[5] - a[2] * a[4]) / det,
         (a[5] * a[6] - a[3] * a[8]) / det, (a[0] * a[8] - a[2] * a[6]) / det, (a[2] * a[3] - a[0] * a[5]) / det,
         (a[3] * a[7] - a[4] * a[6]) / det, (a[1] * a[6] - a[0] * a[7]) / det, (a[0] * a[4] - a[1] * a[3]) / det};
  return true;
}

Object make_object(const ModeDefData& md, size_t i, size_t shape, const Shape& s) {
  const ModeDefObject& so = md.state.objects[i];
  const ModeDefProp& p = md.props[size_t(md.object_prop[i])].prop;
  const ModeDefModel& m = md.models[size_t(md.props[size_t(md.object_prop[i])].model)].model;
  Object o;
  o.shape = shape;
  Body& b = o.body;
  const bool path = i < md.object_path.size() && md.object_path[i] >= 0;
  b.motion = path ? Motion::Path : p.rigid_body != 0 ? Motion::Dynamic : Motion::Static;
  if (path) o.path = &md.paths[size_t(md.object_path[i])].path;
  b.scale = p.scale;
  b.com_model = d3(p.center_of_mass);
  b.mass = p.mass;
  const double s2 = double(p.scale) * double(p.scale);
  for (size_t k = 0; k < 9; ++k) b.inertia[k] = double(p.inertia[k]) * s2;
  if (b.motion == Motion::Dynamic) {
    if (!(b.mass > 0) || !std::isfinite(b.mass))
      sim_fail(fmt::format("object {} ('{}'): MASS is {}, a moving object needs a positive mass", i, so.name, p.mass));
    if (!invert_spd(b.inertia, b.inv_inertia))
      sim_fail(fmt::format("object {} ('{}'): INERTIA times SCALE^2 is not a symmetric positive definite matrix", i,
                           so.name));
    b.inv_mass = 1 / b.mass;
    // A lower bound on the smallest principal moment: 1 / trace(I^-1).
    b.min_inertia = 1 / (b.inv_inertia[0] + b.inv_inertia[4] + b.inv_inertia[8]);
  } else {
    b.inv_mass = 0;
    b.inv_inertia = {};
  }
  o.pos0 = d3(so.position);
  o.rot0 = normalized({so.rotation[1], so.rotation[2], so.rotation[3], so.rotation[0]});
  b.q = o.rot0;
  b.x = o.pos0 + mul(matrix_of(b.q), b.com_model * b.scale);
  if (b.motion == Motion::Dynamic) {
    b.v = d3(so.velocity);
    b.w = d3(so.angular_velocity);
  }
  if (path) pose_from_path(o, 0);
  o.kp = p.kp, o.kv = p.kv, o.kb = p.kb;
  o.birth = so.birth, o.death = so.death;
  Modal& mo = o.modal;
  const size_t k = s.mode_count;
  mo.deform = p.deform != 0 && k > 0;
  mo.q.assign(k, 0);
  mo.qd.assign(k, 0);
  mo.force.assign(k, 0);
  mo.omega2.assign(k, 0);
  mo.damping.assign(k, 0);
  for (size_t j = 0; j < k && mo.deform; ++j) {
    const double lambda = double(m.eigenvalues[j]) * double(p.lame);
    if (lambda > 0) mo.omega2[j] = lambda;
    mo.damping[j] = double(p.damping1) + double(p.damping2) * std::max(0.0, lambda);
  }
  return o;
}

// The fastest angular frequency a substep must follow (springs: omega h <= kOmegaStep) and the
// largest damping rate (explicit damping: c h <= 1) (docs/modedef.md "Substeps").
struct Stiffness {
  double omega = 0, damping = 0;
};
Stiffness stiffest(const World& w) {
  Stiffness st;
  for (const Object& o : w.objects) {
    const Shape& s = w.shapes[o.shape];
    const Body& b = o.body;
    const bool touches = !w.plane_normals.empty() && o.kp > 0 && !s.points.empty();
    const double kd = std::max(o.kv, o.kb);
    if (touches && b.motion == Motion::Dynamic) {
      // kContactsAssumed points carrying the weight, plus the lever of the farthest point.
      const double inv_m = kContactsAssumed * b.inv_mass + s.radius * s.radius / b.min_inertia;
      st.omega = std::max(st.omega, std::sqrt(o.kp * inv_m));
      st.damping = std::max(st.damping, kd * inv_m);
    }
    if (o.modal.deform)
      for (size_t k = 0; k < s.mode_count; ++k) {
        const double d2 = touches ? kContactsAssumed * s.mode_max[k] * s.mode_max[k] : 0.0;
        const double w2 = o.modal.omega2[k] + o.kp * d2;
        if (w2 > 0) st.omega = std::max(st.omega, std::sqrt(w2));
        st.damping = std::max(st.damping, kd * d2);
      }
  }
  return st;
}

// The state a rolled-back substep restores: bodies and mode amplitudes (storage reused).
struct Snapshot {
  std::vector<Body> bodies;
  std::vector<double> modes;
  std::vector<double> penetration;  // each object's deepest so far in the frame (the trace's)

  void save(const World& w) {
    bodies.clear();
    modes.clear();
    penetration.clear();
    for (const Object& o : w.objects) {
      bodies.push_back(o.body);
      modes.insert(modes.end(), o.modal.q.begin(), o.modal.q.end());
      modes.insert(modes.end(), o.modal.qd.begin(), o.modal.qd.end());
      penetration.push_back(o.frame_penetration);
    }
  }
  // Back to the saved state; penetrations seen in the undone motion are forgotten too.
  void restore(World& w) const {
    size_t at = 0;
    for (size_t i = 0; i < w.objects.size(); ++i) {
      Object& o = w.objects[i];
      o.body = bodies[i];
      o.frame_penetration = penetration[i];
      for (double& x : o.modal.q) x = modes[at++];
      for (double& x : o.modal.qd) x = modes[at++];
    }
  }
};

// Substeps with MAXPEN rollbacks. A substep that starts with every point within MAXPEN and ends
// with one deeper is undone and redone as two halves (nested at most kMaxRollbackDepth times).
// Within a frame the check is the next substep's own contact pass (`step`); the frame's last
// substep and the halves check with an extra pass (`substep`).
struct Stepper {
  World& w;
  uint64_t rollbacks = 0;
  double deepest = 0;
  std::vector<Snapshot> saved = std::vector<Snapshot>(kMaxRollbackDepth + 1);
  bool have_previous = false;
  double previous_t = 0, previous_h = 0, previous_depth = 0;

  // The forces at the current state (time t); returns the deepest penetration.
  double forces(double t, double h) {
    for (Object& o : w.objects) {
      o.active = alive(o, t);
      o.body.force = {0, 0, 0};
      o.body.torque = {0, 0, 0};
      std::fill(o.modal.force.begin(), o.modal.force.end(), 0.0);
    }
    const double before = add_contact_forces(w, h);
    deepest = std::max(deepest, before);
    add_constraint_forces(w);
    return before;
  }

  void integrate(double t, double h) {
    for (Object& o : w.objects) {
      // Path-driven objects follow their path whether alive or not.
      if (o.body.motion == Motion::Path || o.active) integrate_rigid(o, w.gravity, h, t);
      if (o.active && o.modal.deform) integrate_modes(o.modal, h);
    }
  }

  // One substep checked by an extra contact pass at its end; forces already at t when `before` >= 0.
  void substep(double t, double h, int depth, double before = -1) {
    if (before < 0) before = forces(t, h);
    const bool may_roll_back = w.max_penetration > 0 && depth < kMaxRollbackDepth && before <= w.max_penetration;
    if (may_roll_back) saved[size_t(depth)].save(w);
    integrate(t, h);
    if (may_roll_back && deepest_penetration(w) > w.max_penetration) {
      saved[size_t(depth)].restore(w);
      ++rollbacks;
      substep(t, h / 2, depth + 1);
      substep(t + h / 2, h / 2, depth + 1);
    }
  }

  // A top-level substep of a frame (`last`: the frame's last).
  void step(double t, double h, bool last) {
    if (!(w.max_penetration > 0)) {
      forces(t, h);
      integrate(t, h);
      return;
    }
    double before = forces(t, h);
    if (have_previous && before > w.max_penetration && previous_depth <= w.max_penetration) {
      // The previous substep went past MAXPEN: redo it in halves, then the forces again.
      saved[kMaxRollbackDepth].restore(w);
      ++rollbacks;
      substep(previous_t, previous_h / 2, 1);
      substep(previous_t + previous_h / 2, previous_h / 2, 1);
      before = forces(t, h);
    }
    if (last) {
      have_previous = false;
      substep(t, h, 0, before);
      return;
    }
    saved[kMaxRollbackDepth].save(w);
    have_previous = true;
    previous_t = t, previous_h = h, previous_depth = before;
    integrate(t, h);
  }
};

SimulatedObject record(const World& w, const Object& o, double t) {
  SimulatedObject r;
  const Body& b = o.body;
  r.alive = alive(o, t);
  r.position = origin_of(b);
  r.rotation = b.q;
  r.center_of_mass = b.x;
  r.velocity = b.v;
  r.angular_velocity = b.w;
  r.modes = o.modal.q;
  r.contacts = o.contacts;
  r.max_penetration = o.frame_penetration;
  r.kinetic = kinetic_energy(b);
  r.potential = (b.motion == Motion::Dynamic ? -b.mass * dot(w.gravity, b.x) : 0.0) + o.contact_energy;
  r.modal = modal_energy(o.modal);
  return r;
}

}  // namespace

SimulationResult simulate(const Scene& scene, const SimulateOptions& options, Diagnostics* diags) {
  if (!scene.modedef || scene.modedef->kind != ModeDefData::Kind::State)
    sim_fail("the input is not a ModeDef scene: read a .state (or a glTF written from one)");
  const ModeDefData& md = *scene.modedef;
  const ModeDefState& st = md.state;
  const size_t n = st.objects.size();
  if (n == 0) sim_fail("the .state has no objects to simulate");
  if (md.object_prop.size() != n)
    sim_fail(fmt::format("the scene's ModeDef data has {} object properties for {} objects", md.object_prop.size(), n));
  for (size_t i = 0; i < n; ++i) {
    const int32_t p = md.object_prop[i];
    if (p < 0 || size_t(p) >= md.props.size() || md.props[size_t(p)].model < 0 ||
        size_t(md.props[size_t(p)].model) >= md.models.size())
      sim_fail(fmt::format("object {} has no .prop or model in the scene's ModeDef data", i));
  }

  SimulationResult res;
  if (!std::isfinite(options.fps) || options.fps < 0) sim_fail(fmt::format("the frame rate {} is not valid", options.fps));
  res.fps = options.fps > 0 ? options.fps : st.fps > 0 ? double(st.fps) : 30.0;
  if (options.seconds && (!std::isfinite(*options.seconds) || *options.seconds < 0))
    sim_fail(fmt::format("the simulated time must be 0 or more seconds, not {}", *options.seconds));
  res.seconds = options.seconds ? *options.seconds : default_seconds(md);
  const double frames = std::max(0.0, std::ceil(res.seconds * res.fps - 1e-6)) + 1;
  if (frames * double(n) > kMaxSimulatedPoses)
    sim_fail(fmt::format("{} s at {} fps for {} objects would be {} poses, more than {}", res.seconds, res.fps, n,
                         frames * double(n), kMaxSimulatedPoses));
  res.frame_count = size_t(frames);
  res.object_count = n;

  World w;
  w.gravity = d3(st.gravity);
  w.friction = st.friction;
  w.max_penetration = st.max_penetration;
  w.cluster_factor = st.cluster_factor;
  w.cluster_radius = st.cluster_radius;
  for (size_t k = 0; k < st.planes.size(); ++k) {
    const D3 nrm = d3(st.planes[k].normal);
    const double len = norm(nrm);
    if (!(len > 0)) sim_fail(fmt::format("plane {} has a zero normal", k));
    w.plane_normals.push_back(nrm * (1 / len));
    w.plane_points.push_back(d3(st.planes[k].point));
  }
  // One shape per .prop (its scale and centre of mass place the model's points).
  std::vector<int64_t> shape_of_prop(md.props.size(), -1);
  for (size_t i = 0; i < n; ++i) {
    const size_t p = size_t(md.object_prop[i]);
    if (shape_of_prop[p] < 0) {
      shape_of_prop[p] = int64_t(w.shapes.size());
      w.shapes.push_back(make_shape(md.models[size_t(md.props[p].model)].model, md.props[p].prop));
    }
    w.objects.push_back(make_object(md, i, size_t(shape_of_prop[p]), w.shapes[size_t(shape_of_prop[p])]));
  }
  for (size_t i = 0; i < n; ++i) {
    Modal& m = w.objects[i].modal;
    auto init = [&](const std::vector<std::vector<double>>& values, std::vector<double>& into, const char* what) {
      if (i >= values.size()) return;
      if (values[i].size() > into.size())
        sim_fail(fmt::format("object {}: {} initial mode {} for {} modes", i, values[i].size(), what, into.size()));
      for (size_t k = 0; k < values[i].size(); ++k) {
        if (!std::isfinite(values[i][k])) sim_fail(fmt::format("object {}: initial mode {} {} is not finite", i, what, k));
        into[k] = values[i][k];
      }
    };
    init(options.initial_modes, m.q, "amplitudes");
    init(options.initial_mode_velocities, m.qd, "velocities");
  }
  if (options.initial_modes.size() > n || options.initial_mode_velocities.size() > n)
    sim_fail(fmt::format("initial modes are given for more objects than the scene's {}", n));

  // Substeps: the stiffest spring at omega h = kOmegaStep, and no longer than kMaxSubstep.
  const double frame_dt = 1 / res.fps;
  uint32_t substeps = options.substeps;
  if (substeps == 0) {
    const Stiffness k = stiffest(w);
    double h = kMaxSubstep;
    if (k.omega > 0) h = std::min(h, kOmegaStep / k.omega);
    if (k.damping > 0) h = std::min(h, 1 / k.damping);
    const double count = std::ceil(frame_dt / h - 1e-9);
    if (!(count <= double(kMaxSubstepsPerFrame)))
      sim_fail(fmt::format("the stiffest spring (omega = {:.6g} rad/s from KP with the masses or a mode's "
                           "sqrt(LAME lambda), damping rate {:.6g} /s from KV, KB) needs {} substeps per frame at "
                           "{} fps, more than {}",
                           k.omega, k.damping, count, res.fps, kMaxSubstepsPerFrame));
    substeps = uint32_t(std::max(1.0, count));
  } else if (substeps > kMaxSubstepsPerFrame) {
    sim_fail(fmt::format("{} substeps per frame is more than {}", substeps, kMaxSubstepsPerFrame));
  }
  // Bounds on what the run keeps and does, so a small hostile file cannot take hours or gigabytes.
  double modes = 0, per_substep = 0;
  for (const Object& o : w.objects) {
    const Shape& s = w.shapes[o.shape];
    modes += double(s.mode_count);
    per_substep += double(s.points.size()) * double(s.mode_count + 1) + double(s.mode_count);
  }
  if (frames * modes > kMaxSimulatedModeValues)
    sim_fail(fmt::format("{} frames of {} mode amplitudes (all objects) would be {} values, more than {}: simulate "
                         "fewer seconds or at a lower --fps",
                         frames, modes, frames * modes, kMaxSimulatedModeValues));
  const double work = frames * double(substeps) * per_substep;
  if (work > kMaxSimulationWork)
    sim_fail(fmt::format("{} frames x {} substeps x {} point-mode updates per substep is {:.3g}, more than {:.3g}: "
                         "simulate fewer seconds, or soften the stiffest spring (KP, KV, KB or the modes)",
                         frames, substeps, per_substep, work, kMaxSimulationWork));
  res.substeps_per_frame = substeps;
  w.h = res.substep = frame_dt / double(substeps);
  setup_constraints(w, st);

  if (diags) {
    if (st.use_penalty == 0 && !w.plane_normals.empty())
      diags->add(warning("", "simulate: USEPENALTY is 0, but meshport has only the penalty method: contacts use it"));
  }
  // Objects without contact springs (KP <= 0) that move: a warning when one first reaches a plane.
  std::vector<uint8_t> unwarned(n, 0);
  for (size_t i = 0; i < n; ++i)
    unwarned[i] = diags && !w.plane_normals.empty() && w.objects[i].kp <= 0 && w.objects[i].body.motion == Motion::Dynamic;
  auto warn_passing = [&](double t) {
    for (size_t i = 0; i < n; ++i) {
      if (!unwarned[i] || !w.objects[i].active) continue;
      const int32_t p = plane_reached(w, w.objects[i]);
      if (p < 0) continue;
      unwarned[i] = 0;
      diags->add(warning("", fmt::format("simulate: object {} ('{}') reaches plane {} at {:.6g} s with KP {}: no contact "
                                         "force, it passes through (give its .prop a KP > 0)",
                                         i, st.objects[i].name, p, t, w.objects[i].kp)));
    }
  };

  Stepper stepper{w};
  res.states.reserve(res.frame_count * n);
  // Frame 0: the contact statistics of the initial state.
  for (Object& o : w.objects) o.active = alive(o, 0);
  add_contact_forces(w, w.h);
  for (const Object& o : w.objects) res.states.push_back(record(w, o, 0));
  warn_passing(0);
  for (size_t f = 1; f < res.frame_count; ++f) {
    for (Object& o : w.objects) o.frame_penetration = 0;
    const double t0 = double(f - 1) / res.fps;
    for (uint32_t s = 0; s < substeps; ++s) stepper.step(t0 + double(s) * w.h, w.h, s + 1 == substeps);
    const double t = double(f) / res.fps;
    for (Object& o : w.objects) {
      if (o.body.motion == Motion::Path) pose_from_path(o, t);  // exactly the path's value at the frame
      res.states.push_back(record(w, o, t));
    }
    warn_passing(t);
  }
  res.rollbacks = stepper.rollbacks;
  res.max_penetration = stepper.deepest;
  return res;
}

}  // namespace meshport
