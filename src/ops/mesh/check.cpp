#include "ops/mesh/check.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <cmath>

namespace meshport::ops {

namespace {

[[noreturn]] void bad(std::string msg) { fail("", std::move(msg)); }

void check_mesh_in(const Scene& s, size_t i) {
  const Mesh& m = s.meshes[i];
  const size_t nv = m.vertex_count();
  for (const VertexStream& st : m.streams)
    if ((st.components ? st.data.size() % st.components : st.data.size()) != 0 || st.vertex_count() != nv)
      bad(fmt::format("mesh {} ('{}'): a stream holds {} values of {} components, but the mesh has {} vertices", i,
                      m.name, st.data.size(), st.components, nv));
  const uint32_t per = topology_size(m.topology);  // lines and points: 2 and 1 indices each
  if (m.triangles.size() % per)
    bad(fmt::format("mesh {} ('{}'): {} {} indices are not a multiple of {}", i, m.name, m.triangles.size(),
                    per == 3 ? "triangle" : "line", per));
  for (size_t k = 0; k < m.instances.size(); ++k) {
    const Transform& t = m.instances[k];
    for (float x : {t.translation[0], t.translation[1], t.translation[2], t.rotation[0], t.rotation[1], t.rotation[2],
                    t.rotation[3], t.scale[0], t.scale[1], t.scale[2]})
      if (!std::isfinite(x)) bad(fmt::format("mesh {} ('{}'): instance {} has a transform that is not finite", i, m.name, k));
  }
  if (!indices_below(m.triangles, nv))
    for (size_t t = 0; t < m.triangles.size(); ++t)
      if (m.triangles[t] >= nv)
        bad(fmt::format("mesh {} ('{}'): {} {} uses vertex {}, but the mesh has {} vertices", i, m.name,
                        per == 3 ? "triangle" : per == 2 ? "line" : "point", t / per, m.triangles[t], nv));
  if (m.material < -1 || m.material >= int64_t(s.materials.size()))
    bad(fmt::format("mesh {} ('{}'): material {} does not exist", i, m.name, m.material));
  for (size_t k = 0; k < m.morph_targets.size(); ++k) {
    const MorphTarget& t = m.morph_targets[k];
    if ((!t.positions.empty() && t.positions.size() != nv * 3) || (!t.normals.empty() && t.normals.size() != nv * 3) ||
        (!t.tangents.empty() && t.tangents.size() != nv * 3))
      bad(fmt::format("mesh {} ('{}'): morph target {} ('{}') does not have 3 values per vertex ({} vertices)", i,
                      m.name, k, t.name, nv));
  }
}

void check_track_in(const Scene& s, const Animation& a, size_t k) {
  const MorphWeightTrack& t = a.morph_weights[k];
  if (t.mesh < 0 || t.mesh >= int64_t(s.meshes.size()))
    bad(fmt::format("animation '{}': morph weight track {} names mesh {}, but the Scene has {} meshes", a.name, k,
                    t.mesh, s.meshes.size()));
  for (size_t i = 0; i < t.times.size(); ++i) {
    if (!std::isfinite(t.times[i]))
      bad(fmt::format("animation '{}': morph weight track {} has key {} at time {}, not a finite time", a.name, k, i,
                      t.times[i]));
    if (i && !(t.times[i] > t.times[i - 1]))
      bad(fmt::format("animation '{}': morph weight track {} key times do not increase: key {} at {} follows {}",
                      a.name, k, i, t.times[i], t.times[i - 1]));
  }
  const Mesh& m = s.meshes[size_t(t.mesh)];
  const size_t want = t.times.size() * m.morph_targets.size();
  if (t.weights.size() != want)
    bad(fmt::format("animation '{}': morph weight track {} has {} weights, but {} keys of mesh {} ('{}') with {} "
                    "morph targets need {}",
                    a.name, k, t.weights.size(), t.times.size(), t.mesh, m.name, m.morph_targets.size(), want));
}

void check_attachment_in(const Scene& s, size_t i) {
  const Attachment& a = s.attachments[i];
  if (a.mesh < -1 || a.mesh >= int64_t(s.meshes.size()))
    bad(fmt::format("attachment {} ('{}'): mesh {} does not exist (the Scene has {} meshes)", i, a.name, a.mesh,
                    s.meshes.size()));
  if (a.joint < -1 || a.joint >= int64_t(s.joints.size()))
    bad(fmt::format("attachment {} ('{}'): joint {} does not exist (the Scene has {} joints)", i, a.name, a.joint,
                    s.joints.size()));
}

}  // namespace

void check_scene(const Scene& s) {
  for (size_t i = 0; i < s.meshes.size(); ++i) check_mesh_in(s, i);
  for (size_t j = 0; j < s.joints.size(); ++j)
    if (s.joints[j].parent >= int64_t(j) || s.joints[j].parent < -1)
      bad(fmt::format("joint {} ('{}'): parent {} is not a preceding joint", j, s.joints[j].name, s.joints[j].parent));
  for (const Animation& a : s.animations) {
    if (a.channels ? a.poses.size() % a.channels : a.poses.size())
      bad(fmt::format("animation '{}': {} poses are not whole frames of {}", a.name, a.poses.size(), a.channels));
    for (size_t k = 0; k < a.morph_weights.size(); ++k) check_track_in(s, a, k);
  }
  for (size_t i = 0; i < s.attachments.size(); ++i) check_attachment_in(s, i);
}

}  // namespace meshport::ops
