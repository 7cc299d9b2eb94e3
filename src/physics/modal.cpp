// Modal deformation and the modes animation (include/meshport/modal.h, docs/modedef.md).
//
// Sums are accumulated in double and rounded to float once. Every function checks the indices it
// follows (faces, tetrahedra, carton, mesh sources) and throws meshport::Error rather than read
// out of range, and deform_scene checks every mesh before it changes any.
//
// Decisions beyond docs/modedef.md:
// - A model without normals whose render vertex is used by no face (or only degenerate ones)
//   gets the normal (0, 1, 0), as generated normals do for unused vertices.
// - deform_scene: a mesh copied for a .state object (ModeDefMeshSource::object >= 0) is bound
//   rigidly to that object's joint, its vertices placed by the joint's rest world transform; the
//   deformed vertices are placed the same way (normals rotated by it, renormalised). Tangents are
//   left as they are.
// - add_modes_animation: the animation loops; a target whose displacements are all 0 (or a
//   Scene whose bounding box is a point) gets amplitude 0.
#include <meshport/diagnostics.h>
#include <meshport/modal.h>

#include "core/math.h"
#include "ops/mesh/bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace meshport {

namespace {

using DVec = std::array<double, 3>;

[[noreturn]] void modal_fail(std::string msg) { fail("", std::move(msg)); }

bool finite3(const std::array<float, 3>& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

// The model's shape as far as deformation needs it: eigenvectors, faces, tetrahedra and carton.
void check_model(const ModeDefModel& m) {
  if (m.rest.size() % 3) modal_fail(fmt::format("modal: {} rest values are not whole nodes of 3", m.rest.size()));
  if (m.eigenvectors.size() != m.eigenvalues.size() * m.rest.size())
    modal_fail(fmt::format("modal: {} eigenvector values for {} modes of {} values", m.eigenvectors.size(),
                           m.eigenvalues.size(), m.rest.size()));
}


DVec sub(const std::array<float, 3>& a, const std::array<float, 3>& b) {
  return {double(a[0]) - b[0], double(a[1]) - b[1], double(a[2]) - b[2]};
}

DVec dcross(const DVec& a, const DVec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// The normalised sum, or `fallback` when it is zero (or not finite).
std::array<float, 3> unit_or(const DVec& s, const std::array<float, 3>& fallback) {
  const double l = std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  if (!(l > 0) || !std::isfinite(l)) return fallback;
  return {float(s[0] / l), float(s[1] / l), float(s[2] / l)};
}

}  // namespace

float mode_frequency(float eigenvalue) {
  if (!(eigenvalue > 0)) return 0;
  return float(std::sqrt(double(eigenvalue)) / (2.0 * 3.14159265358979323846));
}

std::vector<float> modal_displacements(const ModeDefModel& model, std::span<const float> amplitudes) {
  check_model(model);
  const size_t modes = model.mode_count(), len = model.rest.size();
  if (amplitudes.size() > modes)
    modal_fail(fmt::format("modal: {} amplitudes given, but the model has {} modes", amplitudes.size(), modes));
  for (size_t k = 0; k < amplitudes.size(); ++k)
    if (!std::isfinite(amplitudes[k]))
      modal_fail(fmt::format("modal: the amplitude of mode {} is {}, not a finite number", k, amplitudes[k]));
  std::vector<double> sum(len, 0.0);
  for (size_t k = 0; k < amplitudes.size(); ++k) {
    const double q = amplitudes[k];
    if (q == 0) continue;
    const float* phi = model.eigenvectors.data() + k * len;
    for (size_t i = 0; i < len; ++i) sum[i] += q * double(phi[i]);
  }
  std::vector<float> u(len);
  for (size_t i = 0; i < len; ++i) u[i] = float(sum[i]);
  return u;
}

std::vector<float> render_displacements(const ModeDefModel& model, std::span<const float> node_displacements) {
  const size_t nodes = model.node_count(), nv = model.vertices.size();
  if (node_displacements.size() != nodes * 3)
    modal_fail(fmt::format("modal: {} node displacement values for {} nodes", node_displacements.size(), nodes));
  std::vector<float> out(nv * 3, 0.0f);
  if (model.carton) {
    if (model.carton_vertices.size() != nv)
      modal_fail(fmt::format("modal: the carton has {} vertices, the mesh {}", model.carton_vertices.size(), nv));
    for (size_t v = 0; v < nv; ++v) {
      const ModeDefCartonVertex& cv = model.carton_vertices[v];
      if (cv.tet < 0 || size_t(cv.tet) >= model.tets.size())
        modal_fail(fmt::format("modal: carton vertex {} names tetrahedron {} of {}", v, cv.tet, model.tets.size()));
      const std::array<int32_t, 4>& tet = model.tets[size_t(cv.tet)];
      DVec d{0, 0, 0};
      for (int c = 0; c < 4; ++c) {
        if (tet[c] < 0 || size_t(tet[c]) >= nodes)
          modal_fail(fmt::format("modal: tetrahedron {} names node {} of {}", cv.tet, tet[c], nodes));
        const float* u = node_displacements.data() + size_t(tet[c]) * 3;
        for (int x = 0; x < 3; ++x) d[x] += double(cv.bary[c]) * double(u[x]);
      }
      for (int x = 0; x < 3; ++x) out[v * 3 + x] = float(d[x]);
    }
    return out;
  }
  if (nv == nodes) {
    std::copy(node_displacements.begin(), node_displacements.end(), out.begin());
    return out;
  }
  const bool moving = std::any_of(node_displacements.begin(), node_displacements.end(), [](float x) { return x != 0; });
  if (model.mode_count() > 0 || moving)
    modal_fail(fmt::format("modal: the model has no carton and {} render vertices for {} nodes: which node moves "
                           "which vertex is unknown",
                           nv, nodes));
  return out;
}

ModalDeformation deform_model(const ModeDefModel& model, std::span<const float> amplitudes) {
  const std::vector<float> u = modal_displacements(model, amplitudes);
  const std::vector<float> d = render_displacements(model, u);
  const size_t nodes = model.node_count(), nv = model.vertices.size(), nn = model.normals.size();
  ModalDeformation r;
  r.nodes.resize(nodes);
  for (size_t i = 0; i < nodes; ++i)
    for (int x = 0; x < 3; ++x) r.nodes[i][x] = float(double(model.rest[i * 3 + x]) + double(u[i * 3 + x]));
  r.vertices.resize(nv);
  for (size_t v = 0; v < nv; ++v)
    for (int x = 0; x < 3; ++x) r.vertices[v][x] = float(double(model.vertices[v][x]) + double(d[v * 3 + x]));

  // Area-weighted face normals (|cross| = twice the area), summed per file normal or per vertex.
  const bool per_vertex = nn == 0;
  std::vector<DVec> sum(per_vertex ? nv : nn, DVec{0, 0, 0});
  for (size_t f = 0; f < model.faces.size(); ++f) {
    const ModeDefFace& face = model.faces[f];
    for (int c = 0; c < 3; ++c) {
      if (face.vertex[c] < 0 || size_t(face.vertex[c]) >= nv)
        modal_fail(fmt::format("modal: face {} names vertex {} of {}", f, face.vertex[c], nv));
      if (!per_vertex && (face.normal[c] < 0 || size_t(face.normal[c]) >= nn))
        modal_fail(fmt::format("modal: face {} names normal {} of {}", f, face.normal[c], nn));
    }
    const auto& a = r.vertices[size_t(face.vertex[0])];
    const DVec n = dcross(sub(r.vertices[size_t(face.vertex[1])], a), sub(r.vertices[size_t(face.vertex[2])], a));
    for (int c = 0; c < 3; ++c) {
      DVec& s = sum[size_t(per_vertex ? face.vertex[c] : face.normal[c])];
      for (int x = 0; x < 3; ++x) s[x] += n[x];
    }
  }
  r.normals.resize(sum.size());
  for (size_t i = 0; i < sum.size(); ++i)
    r.normals[i] = unit_or(sum[i], per_vertex ? std::array<float, 3>{0, 1, 0} : model.normals[i]);
  return r;
}

void deform_scene(Scene& scene, std::span<const float> amplitudes, size_t model) {
  if (!scene.modedef) modal_fail("modal: the Scene has no ModeDef model (read a .model, .prop or .state)");
  ModeDefData& md = *scene.modedef;
  if (model >= md.models.size())
    modal_fail(md.models.empty() ? std::string("modal: the Scene has no ModeDef model (read a .model, .prop or .state)")
                                 : fmt::format("modal: the Scene has no ModeDef model {} (it has {})", model,
                                               md.models.size()));
  const ModeDefModel& mm = md.models[model].model;
  const ModalDeformation def = deform_model(mm, amplitudes);
  const bool file_normals = !mm.normals.empty();

  // Where each source's vertices are placed: its object's joint's rest world transform.
  auto placement = [&](const ModeDefMeshSource& src, bool& identity) {
    identity = true;
    Mat3x4 m = mat_identity();
    if (src.object < 0 || size_t(src.object) >= md.object_joint.size()) return m;
    int32_t j = md.object_joint[size_t(src.object)];
    if (j < 0 || size_t(j) >= scene.joints.size()) return m;
    identity = false;
    for (size_t guard = 0; j >= 0 && size_t(j) < scene.joints.size() && guard <= scene.joints.size(); ++guard) {
      const Transform& t = scene.joints[size_t(j)].rest;
      m = mat_mul(mat_from_trs(t.translation, t.rotation, t.scale), m);
      j = scene.joints[size_t(j)].parent;
    }
    return m;
  };

  // Check every source first: nothing changes when one does not fit.
  std::vector<const ModeDefMeshSource*> sources;
  for (const ModeDefMeshSource& src : md.mesh_sources) {
    if (src.model != int32_t(model)) continue;
    if (src.mesh < 0 || size_t(src.mesh) >= scene.meshes.size())
      modal_fail(fmt::format("modal: a mesh source names mesh {} of {}", src.mesh, scene.meshes.size()));
    const Mesh& m = scene.meshes[size_t(src.mesh)];
    const size_t nv = m.vertex_count();
    if (nv != src.vertex.size())
      modal_fail(fmt::format("modal: mesh {} ('{}') has {} vertices, but was made from {} model vertices; it no longer "
                             "matches its model",
                             src.mesh, m.name, nv, src.vertex.size()));
    if (!src.normal.empty() && src.normal.size() != src.vertex.size())
      modal_fail(fmt::format("modal: mesh {} ('{}'): {} source normals for {} vertices", src.mesh, m.name,
                             src.normal.size(), src.vertex.size()));
    const VertexStream* p = m.find(Attribute::Position);
    if (!p || p->components < 3)
      modal_fail(fmt::format("modal: mesh {} ('{}') has no positions", src.mesh, m.name));
    for (size_t v = 0; v < nv; ++v) {
      if (src.vertex[v] >= def.vertices.size())
        modal_fail(fmt::format("modal: mesh {} ('{}'): vertex {} comes from model vertex {} of {}", src.mesh, m.name, v,
                               src.vertex[v], def.vertices.size()));
      if (!src.normal.empty() && src.normal[v] >= 0 && size_t(src.normal[v]) >= mm.normals.size())
        modal_fail(fmt::format("modal: mesh {} ('{}'): vertex {} uses model normal {} of {}", src.mesh, m.name, v,
                               src.normal[v], mm.normals.size()));
    }
    sources.push_back(&src);
  }

  for (const ModeDefMeshSource* src : sources) {
    Mesh& m = scene.meshes[size_t(src->mesh)];
    bool identity = true;
    const Mat3x4 place = placement(*src, identity);
    const Mat3x4 normal_place = identity ? place : mat_inverse(place);  // transposed below
    VertexStream& p = *m.find(Attribute::Position);
    VertexStream* n = m.find(Attribute::Normal);
    if (n && n->components < 3) n = nullptr;
    for (size_t v = 0; v < src->vertex.size(); ++v) {
      std::array<float, 3> x = def.vertices[src->vertex[v]];
      if (!identity) x = mat_apply(place, x);
      std::copy(x.begin(), x.end(), p.data.begin() + ptrdiff_t(v * p.components));
      if (!n) continue;
      const std::array<float, 3>* normal = nullptr;
      if (!file_normals)
        normal = &def.normals[src->vertex[v]];
      else if (!src->normal.empty() && src->normal[v] >= 0)
        normal = &def.normals[size_t(src->normal[v])];
      if (!normal) continue;  // no file normal for this vertex: the stream's value stays
      std::array<float, 3> y = *normal;
      if (!identity) {
        // Inverse transpose of the placement's linear part.
        const Mat3x4& q = normal_place;
        y = normalize(Vec3{q[0] * y[0] + q[1] * y[1] + q[2] * y[2], q[3] * y[0] + q[4] * y[1] + q[5] * y[2],
                           q[6] * y[0] + q[7] * y[1] + q[8] * y[2]});
      }
      std::copy(y.begin(), y.end(), n->data.begin() + ptrdiff_t(v * n->components));
    }
  }
}

size_t add_modes_animation(Scene& scene, const ModesAnimationOptions& o) {
  size_t slots = 0;
  for (const Mesh& m : scene.meshes) slots = std::max(slots, m.morph_targets.size());
  if (slots == 0) return 0;
  if (!(std::isfinite(o.seconds_per_mode) && o.seconds_per_mode > 0) || !(std::isfinite(o.fps) && o.fps > 0) ||
      !std::isfinite(o.cycles) || !std::isfinite(o.decay) || !std::isfinite(o.amplitude_fraction))
    modal_fail("modes animation: seconds per mode and fps must be positive, every option finite");

  // Amplitude per slot: the largest displacement of target k over every mesh.
  const Bounds b = ops::rest_bounds(scene);
  double diagonal = 0;
  if (!b.empty && finite3(b.min) && finite3(b.max)) {
    const DVec d = sub(b.max, b.min);
    diagonal = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  }
  std::vector<double> amplitude(slots, 0.0);
  for (size_t k = 0; k < slots; ++k) {
    double largest = 0;
    for (const Mesh& m : scene.meshes) {
      if (k >= m.morph_targets.size()) continue;
      const std::vector<float>& p = m.morph_targets[k].positions;
      for (size_t i = 0; i + 3 <= p.size(); i += 3) {
        const double l = std::sqrt(double(p[i]) * p[i] + double(p[i + 1]) * p[i + 1] + double(p[i + 2]) * p[i + 2]);
        if (std::isfinite(l)) largest = std::max(largest, l);
      }
    }
    if (largest > 0) amplitude[k] = double(o.amplitude_fraction) * diagonal / largest;
  }

  // Frames f / fps for f = 0 .. round(slots * T * fps): the last frame ends the last slot.
  const double period = o.seconds_per_mode, fps = o.fps;
  const double last = std::round(double(slots) * period * fps);
  if (!(last < 1e7)) modal_fail(fmt::format("modes animation: {} frames are too many", last));
  const size_t frames = size_t(last) + 1;
  constexpr double kTwoPi = 2.0 * 3.14159265358979323846;
  std::vector<float> times(frames);
  std::vector<double> value(frames * slots, 0.0);  // [frame][slot]
  for (size_t f = 0; f < frames; ++f) {
    const double t = double(f) / fps;
    times[f] = float(t);
    const size_t k = std::min(slots - 1, size_t(std::max(0.0, std::floor(t / period + 1e-9))));
    const double s = std::max(0.0, t - double(k) * period) / period;  // 0..1 within the slot
    value[f * slots + k] = amplitude[k] * std::sin(kTwoPi * o.cycles * s) * std::exp(-double(o.decay) * s);
  }

  Animation a;
  a.name = "modes";
  a.framerate = o.fps;
  a.loop = true;
  a.channels = uint32_t(scene.joints.size());
  if (a.channels) {
    a.poses.reserve(frames * a.channels);
    for (size_t f = 0; f < frames; ++f)
      for (const Joint& j : scene.joints) a.poses.push_back(j.rest);
  }
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    const size_t targets = scene.meshes[i].morph_targets.size();
    if (!targets) continue;
    MorphWeightTrack track;
    track.mesh = int32_t(i);
    track.times = times;
    track.weights.resize(frames * targets);
    for (size_t f = 0; f < frames; ++f)
      for (size_t k = 0; k < targets; ++k) track.weights[f * targets + k] = float(value[f * slots + k]);
    a.morph_weights.push_back(std::move(track));
  }
  scene.animations.push_back(std::move(a));
  return slots;
}

}  // namespace meshport
