// Penalty contacts and Coulomb friction of `meshport simulate` (simulate_world.h): every point of
// an alive object's (deformed) shape below a plane is a contact pushed out along the plane's
// normal; contacts closer than CLUSRAD form clusters scaled by CLUSFAC.
#include "physics/simulate_world.h"

#include <algorithm>

namespace meshport::sim {
namespace {

struct Contact {
  size_t point = 0;
  D3 r{0, 0, 0};      // world offset from the centre of mass
  double depth = 0;
  double weight = 1;  // cluster scale n^(CLUSFAC - 1)
};

// The body-frame position of point v with the object's current modal displacement.
D3 local_point(const Shape& s, const Modal& m, size_t v) {
  D3 p = s.points[v];
  if (!m.deform) return p;
  const D3* d = s.modes.data() + v * s.mode_count;
  const double* q = m.q.data();
  double x = p[0], y = p[1], z = p[2];
  for (size_t k = 0; k < s.mode_count; ++k) {
    x += d[k][0] * q[k];
    y += d[k][1] * q[k];
    z += d[k][2] * q[k];
  }
  return {x, y, z};
}

double mode_bound(const Shape& s, const Modal& m) {
  if (!m.deform) return 0;
  double b = 0;
  for (size_t k = 0; k < s.mode_count; ++k) b += std::abs(m.q[k]) * s.mode_max[k];
  return b;
}

// The contacts of object o with plane p.
void find_contacts(const World& w, const Object& o, size_t p, const M3& r, std::vector<Contact>& out) {
  out.clear();
  const Shape& s = w.shapes[o.shape];
  const D3 n = w.plane_normals[p];
  const D3 at = w.plane_points[p];
  // depth = (at - x - R p) . n = base - p . (R^T n)
  const double base = dot(at - o.body.x, n);
  const double bound = mode_bound(s, o.modal);
  if (-base > s.radius + bound) return;
  const D3 nb = mul_transposed(r, n);
  for (size_t v = 0; v < s.points.size(); ++v) {
    // The modes move a point by at most `bound` along any direction: a point that far above the
    // plane at rest is no contact, and its modal sum need not be formed.
    if (base - dot(s.points[v], nb) + bound < 0) continue;
    const D3 p = local_point(s, o.modal, v);
    const double depth = base - dot(p, nb);
    if (depth > 0) out.push_back({v, mul(r, p), depth, 1});
  }
}

// Greedy clusters: each contact not yet taken starts one and takes every later contact within
// CLUSRAD of it; every member's force is scaled by n^(CLUSFAC - 1), so a cluster pushes like
// n^CLUSFAC of its points (CLUSFAC 1: their sum, 0: their mean).
void cluster(std::vector<Contact>& cs, double radius, double factor) {
  if (!(radius > 0) || cs.size() < 2) return;
  std::vector<int32_t> id(cs.size(), -1);
  std::vector<size_t> sizes;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (id[i] >= 0) continue;
    id[i] = int32_t(sizes.size());
    size_t n = 1;
    for (size_t j = i + 1; j < cs.size(); ++j)
      if (id[j] < 0 && norm(cs[j].r - cs[i].r) <= radius) id[j] = id[i], ++n;
    sizes.push_back(n);
  }
  for (size_t i = 0; i < cs.size(); ++i) cs[i].weight = std::pow(double(sizes[size_t(id[i])]), factor - 1);
}

// R I^-1 R^T.
M3 inverse_inertia_world(const Body& b, const M3& r) {
  M3 ri{}, out{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) ri[i * 3 + j] += r[i * 3 + k] * b.inv_inertia[k * 3 + j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) out[i * 3 + j] += ri[i * 3 + k] * r[j * 3 + k];
  return out;
}

}  // namespace

double add_contact_forces(World& w, double h) {
  double deepest = 0;
  std::vector<Contact> cs;
  for (Object& o : w.objects) {
    o.contacts = 0;
    o.penetration = 0;
    o.contact_energy = 0;
    if (!o.active || o.kp <= 0) continue;
    const Shape& s = w.shapes[o.shape];
    Body& b = o.body;
    const M3 r = matrix_of(b.q);
    const bool dynamic = b.motion == Motion::Dynamic;
    const M3 iw_inv = dynamic ? inverse_inertia_world(b, r) : M3{};
    for (size_t p = 0; p < w.plane_normals.size(); ++p) {
      find_contacts(w, o, p, r, cs);
      if (cs.empty()) continue;
      cluster(cs, w.cluster_radius, w.cluster_factor);
      const D3 n = w.plane_normals[p];
      const double share = 1.0 / double(cs.size());
      for (const Contact& c : cs) {
        o.contacts++;
        o.penetration = std::max(o.penetration, c.depth);
        o.contact_energy += 0.5 * o.kp * c.depth * c.depth * c.weight;
        // The point's velocity: rigid motion and modal velocity.
        D3 vp = b.v + cross(b.w, c.r);
        if (o.modal.deform) {
          D3 local{0, 0, 0};
          for (size_t k = 0; k < s.mode_count; ++k) local += s.modes[c.point * s.mode_count + k] * o.modal.qd[k];
          vp += mul(r, local);
        }
        const double vn = dot(vp, n);
        // KV damps motion into the plane, KB motion out of it; the force never pulls.
        const double fn = std::max(0.0, (o.kp * c.depth - (vn < 0 ? o.kv : o.kb) * vn) * c.weight);
        D3 f = n * fn;
        const D3 vt = vp - n * vn;
        const double st = norm(vt);
        if (w.friction > 0 && fn > 0 && st > 0) {
          const D3 t = vt * (1 / st);
          // Coulomb: at most KF fn, and no more than stops this point's sliding within the substep
          // (its share of the contacts, with the body's effective mass along t), so a resting
          // body stays put instead of jittering.
          double ft = w.friction * fn;
          if (dynamic) {
            const D3 rt = cross(c.r, t);
            const double meff = 1 / (b.inv_mass + dot(rt, mul(iw_inv, rt)));
            ft = std::min(ft, meff * st / h * share);
          }
          f -= t * ft;
        }
        if (dynamic) {
          b.force += f;
          b.torque += cross(c.r, f);
        }
        if (o.modal.deform) {
          const D3 fb = mul_transposed(r, f);
          for (size_t k = 0; k < s.mode_count; ++k) o.modal.force[k] += dot(s.modes[c.point * s.mode_count + k], fb);
        }
      }
    }
    o.frame_penetration = std::max(o.frame_penetration, o.penetration);
    deepest = std::max(deepest, o.penetration);
  }
  return deepest;
}

double deepest_penetration(const World& w) {
  double deepest = 0;
  std::vector<Contact> cs;
  for (const Object& o : w.objects) {
    if (!o.active || o.kp <= 0) continue;
    const M3 r = matrix_of(o.body.q);
    for (size_t p = 0; p < w.plane_normals.size(); ++p) {
      find_contacts(w, o, p, r, cs);
      for (const Contact& c : cs) deepest = std::max(deepest, c.depth);
    }
  }
  return deepest;
}

int32_t plane_reached(const World& w, const Object& o) {
  std::vector<Contact> cs;
  const M3 r = matrix_of(o.body.q);
  for (size_t p = 0; p < w.plane_normals.size(); ++p) {
    find_contacts(w, o, p, r, cs);
    if (!cs.empty()) return int32_t(p);
  }
  return -1;
}

}  // namespace meshport::sim
