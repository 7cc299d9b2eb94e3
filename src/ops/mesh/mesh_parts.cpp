// Picking, reordering and joining triangles with what describes them (mesh_parts.h).
#include "ops/mesh/mesh_parts.h"

#include "ops/mesh/face_channels.h"
#include "ops/mesh/remap.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace meshport::ops {

namespace {

// values[source[0]], values[source[1]], ..., `per` values per triangle; an array that fits no
// triangle count gives none (as select_face_channels drops a malformed channel).
template <class T>
std::vector<T> picked(const std::vector<T>& values, std::span<const uint32_t> source, size_t triangles, size_t per) {
  std::vector<T> out;
  if (values.size() != triangles * per) return out;
  out.reserve(source.size() * per);
  for (uint32_t t : source) out.insert(out.end(), values.begin() + ptrdiff_t(t * per), values.begin() + ptrdiff_t((t + 1) * per));
  return out;
}

// a's values then b's, either side given `fill` when it has none (both none: stays empty); an
// array of the wrong length on a side counts as none.
template <class T>
void join(std::vector<T>& a, const std::vector<T>& b, size_t a_count, size_t b_count, T fill) {
  const bool has_a = !a.empty() && a.size() == a_count, has_b = !b.empty() && b.size() == b_count;
  if (!has_a && !has_b) {
    a.clear();
    return;
  }
  if (!has_a) a.assign(a_count, fill);
  if (has_b)
    a.insert(a.end(), b.begin(), b.end());
  else
    a.insert(a.end(), b_count, fill);
}

}  // namespace

SmoothingRules pick_smoothing(const SmoothingRules& r, size_t triangles, std::span<const uint32_t> source) {
  SmoothingRules out;
  out.face_group = picked(r.face_group, source, triangles, 1);
  out.face_angle = picked(r.face_angle, source, triangles, 1);
  out.face_uv = picked(r.face_uv, source, triangles, 1);
  out.corner_edge = picked(r.corner_edge, source, triangles, 3);
  return out;
}

void select_triangles(Mesh& m, std::span<const uint32_t> source) {
  const size_t count = m.triangles.size() / 3;
  std::vector<uint32_t> tris;
  tris.reserve(source.size() * 3);
  for (uint32_t t : source) tris.insert(tris.end(), m.triangles.begin() + ptrdiff_t(t) * 3, m.triangles.begin() + ptrdiff_t(t) * 3 + 3);
  m.triangles = std::move(tris);
  std::vector<int32_t> keys = std::move(m.smoothing.vertex_key);
  m.smoothing = pick_smoothing(m.smoothing, count, source);
  m.smoothing.vertex_key = std::move(keys);
  select_face_channels(m, source);
  m.polygon_sizes.clear();
}

bool same_layout(const Mesh& a, const Mesh& b) {
  if (a.topology != b.topology || a.streams.size() != b.streams.size() || a.morph_targets.size() != b.morph_targets.size())
    return false;
  for (size_t i = 0; i < a.streams.size(); ++i) {
    const VertexStream &x = a.streams[i], &y = b.streams[i];
    if (x.attribute != y.attribute || x.name != y.name || x.custom_slot != y.custom_slot || x.components != y.components)
      return false;
  }
  for (size_t i = 0; i < a.morph_targets.size(); ++i) {
    const MorphTarget &x = a.morph_targets[i], &y = b.morph_targets[i];
    if (x.name != y.name || x.normals.empty() != y.normals.empty() || x.tangents.empty() != y.tangents.empty())
      return false;
  }
  return true;
}

void append_triangles(Mesh& a, const Mesh& b, uint32_t vertex_offset) {
  const size_t na = a.triangles.size() / 3, nb = b.triangles.size() / 3;
  SmoothingRules& s = a.smoothing;
  const SmoothingRules& t = b.smoothing;
  join(s.face_group, t.face_group, na, nb, int32_t(-1));
  join(s.face_angle, t.face_angle, na, nb, 180.0f);
  join(s.face_uv, t.face_uv, na, nb, uint8_t(0));
  join(s.corner_edge, t.corner_edge, na * 3, nb * 3, uint8_t(1));
  // Face channels by name: both sides' values, zeros where a side has none.
  std::vector<FaceChannel> channels;
  auto find = [](const Mesh& m, const std::string& name) -> const FaceChannel* {
    for (const FaceChannel& c : m.face_channels)
      if (c.name == name) return &c;
    return nullptr;
  };
  std::vector<std::string> names;
  for (const Mesh* m : {static_cast<const Mesh*>(&a), &b})
    for (const FaceChannel& c : m->face_channels)
      if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
  for (const std::string& name : names) {
    const FaceChannel *x = find(a, name), *y = find(b, name);
    const uint32_t k = x ? x->components : y->components;
    if ((x && (x->components != k || x->data.size() != na * k)) || (y && (y->components != k || y->data.size() != nb * k)))
      continue;
    FaceChannel c{name, k, {}};
    c.data.reserve((na + nb) * k);
    if (x)
      c.data = x->data;
    else
      c.data.assign(na * k, 0);
    if (y)
      c.data.insert(c.data.end(), y->data.begin(), y->data.end());
    else
      c.data.insert(c.data.end(), nb * k, 0);
    channels.push_back(std::move(c));
  }
  a.face_channels = std::move(channels);
  a.triangles.reserve(a.triangles.size() + b.triangles.size());
  for (uint32_t v : b.triangles) a.triangles.push_back(v + vertex_offset);
  a.polygon_sizes.clear();
}

void append_mesh(Mesh& a, const Mesh& b) {
  const size_t na = a.vertex_count(), nb = b.vertex_count();
  for (size_t i = 0; i < a.streams.size() && i < b.streams.size(); ++i)
    a.streams[i].data.insert(a.streams[i].data.end(), b.streams[i].data.begin(), b.streams[i].data.end());
  join(a.smoothing.vertex_key, b.smoothing.vertex_key, na, nb, int32_t(-1));
  for (size_t i = 0; i < a.morph_targets.size() && i < b.morph_targets.size(); ++i) {
    MorphTarget& x = a.morph_targets[i];
    const MorphTarget& y = b.morph_targets[i];
    join(x.positions, y.positions, na * 3, nb * 3, 0.0f);
    join(x.normals, y.normals, na * 3, nb * 3, 0.0f);
    join(x.tangents, y.tangents, na * 3, nb * 3, 0.0f);
  }
  append_triangles(a, b, uint32_t(na));
}

std::vector<uint32_t> repeated_faces(const Mesh& m) {
  if (m.topology != Topology::Triangles) return {};
  const size_t nt = m.triangles.size() / 3;
  // Each triangle's sorted corners and its index, sorted: a repeat follows its first.
  std::vector<std::array<uint32_t, 4>> keys(nt);
  for (size_t t = 0; t < nt; ++t) {
    std::array<uint32_t, 3> c = {m.triangles[t * 3], m.triangles[t * 3 + 1], m.triangles[t * 3 + 2]};
    std::sort(c.begin(), c.end());
    keys[t] = {c[0], c[1], c[2], uint32_t(t)};
  }
  std::sort(keys.begin(), keys.end());
  std::vector<uint32_t> r;
  for (size_t k = 0; k < nt; ++k) {
    const auto& x = keys[k];
    const bool repeats = x[0] == x[1] || x[1] == x[2];
    const bool again = k > 0 && keys[k - 1][0] == x[0] && keys[k - 1][1] == x[1] && keys[k - 1][2] == x[2];
    if (repeats || again) r.push_back(x[3]);
  }
  std::sort(r.begin(), r.end());
  return r;
}

void separate_faces(Mesh& m, std::span<const uint32_t> triangles) {
  if (triangles.empty()) return;
  std::vector<uint32_t> source(m.vertex_count());
  std::iota(source.begin(), source.end(), 0u);
  for (uint32_t t : triangles)
    for (size_t c = 0; c < 3; ++c) {
      source.push_back(m.triangles[size_t(t) * 3 + c]);
      m.triangles[size_t(t) * 3 + c] = uint32_t(source.size() - 1);
    }
  gather_vertices(m, source);
}

size_t separate_repeated_faces(Mesh& m) {
  const std::vector<uint32_t> r = repeated_faces(m);
  separate_faces(m, r);
  return r.size();
}

}  // namespace meshport::ops
