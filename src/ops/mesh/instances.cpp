// Expanding GPU instances (Mesh::instances) and removing meshes a format cannot hold
// (Mesh::topology), for the writers of formats without them (called by write(), src/api/meshport.cpp).
//
// Decision: an instanced mesh becomes ONE mesh holding every copy, not one mesh per instance. The
// mesh keeps its index, so attachments, morph weight tracks and format data that name it stay
// right, and the formats meshport writes want it so: a PIE file's meshes are its levels (125
// levels of one cube would be a different model, and PIE readers cap levels), an IQM or IQE mesh
// is one material's draw call, an OBJ group one object.
#include "ops/mesh/instances.h"

#include <meshport/process.h>

#include "core/math.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace meshport::ops {

namespace {

// Inverse transpose of the 3x3 part of a TRS: R * S^-1 (zero scales give zero columns).
Mat3x4 normal_matrix_of(const Transform& t) {
  Vec3 inv{};
  for (int c = 0; c < 3; ++c) inv[c] = t.scale[c] != 0 ? 1.0f / t.scale[c] : 0.0f;
  return mat_from_trs({0, 0, 0}, t.rotation, inv);
}

bool finite(const Transform& t) {
  auto ok = [](const auto& a) { return std::all_of(a.begin(), a.end(), [](float x) { return std::isfinite(x); }); };
  return ok(t.translation) && ok(t.rotation) && ok(t.scale);
}

// Copy `k` of mesh `m` transformed by `t`.
Mesh transformed_copy(const Mesh& m, const Transform& t) {
  Mesh c = m;
  c.instances.clear();
  const Mat3x4 mat = mat_from_trs(t.translation, t.rotation, t.scale);
  const Mat3x4 nm = normal_matrix_of(t);
  const bool mirror = t.scale[0] * t.scale[1] * t.scale[2] < 0;
  for (VertexStream& s : c.streams) {
    if (s.components < 3) continue;
    const size_t nv = s.vertex_count();
    if (s.attribute == Attribute::Position) {
      for (size_t v = 0; v < nv; ++v) {
        float* p = &s.data[v * s.components];
        const Vec3 q = mat_apply(mat, {p[0], p[1], p[2]});
        p[0] = q[0], p[1] = q[1], p[2] = q[2];
      }
    } else if (s.attribute == Attribute::Normal || s.attribute == Attribute::Tangent) {
      const bool normal = s.attribute == Attribute::Normal;
      for (size_t v = 0; v < nv; ++v) {
        float* p = &s.data[v * s.components];
        const Vec3 q = normalize(mat_apply_linear(normal ? nm : mat, {p[0], p[1], p[2]}));
        p[0] = q[0], p[1] = q[1], p[2] = q[2];
        if (!normal && mirror && s.components > 3) p[3] = -p[3];
      }
    }
  }
  for (MorphTarget& mt : c.morph_targets) {
    mat_apply_linear_all(mat, mt.positions);
    mat_apply_linear_all(nm, mt.normals);
    mat_apply_linear_all(mat, mt.tangents);
  }
  if (mirror && c.topology == Topology::Triangles) {
    Scene tmp;
    tmp.meshes.push_back(std::move(c));
    flip_winding(tmp);
    c = std::move(tmp.meshes.front());
  }
  return c;
}

// Appends copy `c` (vertex numbers from 0) to `out` (which holds `base` vertices).
void append_copy(Mesh& out, const Mesh& c, size_t base, int32_t key_offset) {
  for (size_t s = 0; s < out.streams.size(); ++s)
    out.streams[s].data.insert(out.streams[s].data.end(), c.streams[s].data.begin(), c.streams[s].data.end());
  for (uint32_t v : c.triangles) out.triangles.push_back(uint32_t(base + v));
  out.polygon_sizes.insert(out.polygon_sizes.end(), c.polygon_sizes.begin(), c.polygon_sizes.end());
  SmoothingRules& o = out.smoothing;
  const SmoothingRules& r = c.smoothing;
  o.face_group.insert(o.face_group.end(), r.face_group.begin(), r.face_group.end());
  o.face_angle.insert(o.face_angle.end(), r.face_angle.begin(), r.face_angle.end());
  o.face_uv.insert(o.face_uv.end(), r.face_uv.begin(), r.face_uv.end());
  o.corner_edge.insert(o.corner_edge.end(), r.corner_edge.begin(), r.corner_edge.end());
  for (int32_t k : r.vertex_key) o.vertex_key.push_back(k < 0 ? k : k + key_offset);
  for (size_t t = 0; t < out.morph_targets.size(); ++t) {
    MorphTarget& a = out.morph_targets[t];
    const MorphTarget& b = c.morph_targets[t];
    a.positions.insert(a.positions.end(), b.positions.begin(), b.positions.end());
    a.normals.insert(a.normals.end(), b.normals.begin(), b.normals.end());
    a.tangents.insert(a.tangents.end(), b.tangents.begin(), b.tangents.end());
  }
  for (size_t f = 0; f < out.face_channels.size(); ++f)
    out.face_channels[f].data.insert(out.face_channels[f].data.end(), c.face_channels[f].data.begin(),
                                     c.face_channels[f].data.end());
}

}  // namespace

size_t expand_instances(Scene& scene) {
  // Checked first, so that a failure changes nothing.
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    const Mesh& m = scene.meshes[i];
    if (m.instances.empty()) continue;
    if (uint64_t(m.vertex_count()) * m.instances.size() > std::numeric_limits<uint32_t>::max())
      fail("", fmt::format("mesh {} ('{}'): {} instances of {} vertices are more vertices than a mesh can hold", i,
                           m.name, m.instances.size(), m.vertex_count()));
    for (size_t k = 0; k < m.instances.size(); ++k)
      if (!finite(m.instances[k]))
        fail("", fmt::format("mesh {} ('{}'): instance {} has a transform that is not finite", i, m.name, k));
  }
  size_t expanded = 0;
  for (Mesh& m : scene.meshes) {
    if (m.instances.empty()) continue;
    const std::vector<Transform> instances = std::move(m.instances);
    m.instances.clear();
    const size_t nv = m.vertex_count();
    int32_t keys = 0;
    for (int32_t k : m.smoothing.vertex_key) keys = std::max(keys, k + 1);
    Mesh out = m;
    for (VertexStream& s : out.streams) s.data.clear();
    out.triangles.clear();
    out.polygon_sizes.clear();
    out.smoothing.face_group.clear();
    out.smoothing.face_angle.clear();
    out.smoothing.face_uv.clear();
    out.smoothing.corner_edge.clear();
    out.smoothing.vertex_key.clear();
    for (MorphTarget& t : out.morph_targets) t.positions.clear(), t.normals.clear(), t.tangents.clear();
    for (FaceChannel& f : out.face_channels) f.data.clear();
    for (size_t k = 0; k < instances.size(); ++k)
      append_copy(out, transformed_copy(m, instances[k]), k * nv, int32_t(k) * keys);
    m = std::move(out);
    ++expanded;
  }
  return expanded;
}

namespace {

// Removes the meshes `keep` refuses, renumbering what names meshes (attachments, morph weight
// tracks, Mesh::lod_of); `dropped` is called with each removed mesh and its index.
template <class Keep, class Dropped>
size_t remove_meshes(Scene& scene, Keep keep, Dropped dropped) {
  std::vector<int32_t> renumber(scene.meshes.size(), -1);
  std::vector<Mesh> kept;
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    Mesh& m = scene.meshes[i];
    if (keep(m)) {
      renumber[i] = int32_t(kept.size());
      kept.push_back(std::move(m));
      continue;
    }
    dropped(m, i);
  }
  const size_t removed = scene.meshes.size() - kept.size();
  if (!removed) {
    for (size_t i = 0; i < kept.size(); ++i) scene.meshes[i] = std::move(kept[i]);
    return 0;
  }
  scene.meshes = std::move(kept);
  for (Attachment& a : scene.attachments)
    if (a.mesh >= 0 && size_t(a.mesh) < renumber.size()) a.mesh = renumber[size_t(a.mesh)];
  for (Animation& a : scene.animations) {
    std::erase_if(a.morph_weights, [&](const MorphWeightTrack& t) {
      return t.mesh < 0 || size_t(t.mesh) >= renumber.size() || renumber[size_t(t.mesh)] < 0;
    });
    for (MorphWeightTrack& t : a.morph_weights) t.mesh = renumber[size_t(t.mesh)];
  }
  for (Mesh& m : scene.meshes)
    if (m.lod_of >= 0) m.lod_of = size_t(m.lod_of) < renumber.size() ? renumber[size_t(m.lod_of)] : -1;
  return removed;
}

}  // namespace

size_t drop_non_triangle_meshes(Scene& scene, std::string_view format, Diagnostics& diags) {
  return remove_meshes(
      scene, [](const Mesh& m) { return m.topology == Topology::Triangles; },
      [&](const Mesh& m, size_t i) {
        const bool lines = m.topology == Topology::Lines;
        diags.add(warning("", fmt::format("mesh {} ('{}'): {} {} not written: {} has no {}", i, m.name,
                                          m.triangles.size() / (lines ? 2 : 1), lines ? "line segments" : "points",
                                          format, lines ? "lines" : "points")));
      });
}

size_t drop_lod_meshes(Scene& scene, std::string_view format, Diagnostics& diags) {
  const size_t removed = remove_meshes(scene, [](const Mesh& m) { return m.lod == 0; }, [](const Mesh&, size_t) {});
  if (removed)
    diags.add(warning("", fmt::format("{} level-of-detail meshes (glTF MSFT_lod) not written: {} has no levels of "
                                      "detail (--lods writes each level to a file of its own)",
                                      removed, format)));
  return removed;
}

}  // namespace meshport::ops
