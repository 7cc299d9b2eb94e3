#include "ops/mesh/triangulate.h"

namespace meshport::ops {

bool append_polygon(Mesh& m, std::span<const uint32_t> corners) {
  const size_t n = corners.size();
  if (n < 3) return false;
  // Polygons come into use with the first face that is not a triangle: every earlier face was a
  // triangle of its own.
  if (n > 3 && m.polygon_sizes.empty()) {
    m.polygon_sizes.assign(m.triangles.size() / 3, 3);
    m.polygon_sizes.push_back(uint32_t(n));
  } else if (!m.polygon_sizes.empty()) {
    m.polygon_sizes.push_back(uint32_t(n));
  }
  for (size_t i = 1; i + 1 < n; ++i) {
    m.triangles.push_back(corners[0]);
    m.triangles.push_back(corners[i]);
    m.triangles.push_back(corners[i + 1]);
  }
  return true;
}

bool polygons_fit(const Mesh& m) {
  if (m.polygon_sizes.empty()) return true;
  size_t tris = 0;
  for (uint32_t n : m.polygon_sizes) {
    if (n < 3) return false;
    tris += n - 2;
  }
  return tris * 3 == m.triangles.size();
}

size_t face_first_triangle(const Mesh& m, size_t face) {
  if (m.polygon_sizes.empty()) return face;
  size_t t = 0;
  for (size_t f = 0; f < face; ++f) t += m.polygon_sizes[f] - 2;
  return t;
}

std::vector<uint32_t> polygon_corners(const Mesh& m, const Face& f) {
  const uint32_t* tri = &m.triangles[f.first_triangle * 3];
  std::vector<uint32_t> out{tri[0], tri[1]};
  out.reserve(f.size);
  for (uint32_t i = 0; i + 2 < f.size; ++i) out.push_back(tri[i * 3 + 2]);
  return out;
}

std::vector<uint32_t> polygon_corners(const Mesh& m, size_t face) {
  Face f;
  f.index = face;
  f.first_triangle = face_first_triangle(m, face);
  f.size = m.polygon_sizes.empty() ? 3 : m.polygon_sizes[face];
  return polygon_corners(m, f);
}

namespace {

// Repeats each face's value for each of its triangles; drops a wrong-length array.
template <class T>
void expand_per_face(const Mesh& m, std::vector<T>& values) {
  if (values.empty()) return;
  if (values.size() != m.polygon_sizes.size()) {
    values.clear();
    return;
  }
  std::vector<T> out;
  out.reserve(m.triangles.size() / 3);
  for (size_t f = 0; f < values.size(); ++f) out.insert(out.end(), m.polygon_sizes[f] - 2, values[f]);
  values = std::move(out);
}

// Face corner k's flag is for the edge qk -> qk+1. Fan triangle i (q0, qi, qi+1), i = 1..n-2,
// has the edges q0 -> qi (a polygon edge only for i == 1), qi -> qi+1 (always a polygon edge)
// and qi+1 -> q0 (a polygon edge only for i == n-2); the inner diagonals are smooth.
void expand_corner_edges(const Mesh& m, std::vector<uint8_t>& flags) {
  if (flags.empty()) return;
  size_t corners = 0;
  for (uint32_t n : m.polygon_sizes) corners += n;
  if (flags.size() != corners) {
    flags.clear();
    return;
  }
  std::vector<uint8_t> out;
  out.reserve(m.triangles.size());
  for_each_face(m, [&](const Face& f) {
    const uint8_t* e = &flags[f.first_corner];
    const uint32_t n = f.size;
    for (uint32_t i = 1; i + 1 < n; ++i) {
      out.push_back(i == 1 ? e[0] : 1);
      out.push_back(e[i]);
      out.push_back(i == n - 2 ? e[n - 1] : 1);
    }
  });
  flags = std::move(out);
}

}  // namespace

void clear_polygons(Mesh& m) {
  if (m.polygon_sizes.empty()) return;
  SmoothingRules& s = m.smoothing;
  if (polygons_fit(m)) {
    expand_per_face(m, s.face_group);
    expand_per_face(m, s.face_angle);
    expand_per_face(m, s.face_uv);
    expand_corner_edges(m, s.corner_edge);
  } else {
    // Decision: faces that do not cover the triangles cannot be mapped onto them.
    s.face_group.clear();
    s.face_angle.clear();
    s.face_uv.clear();
    s.corner_edge.clear();
  }
  m.polygon_sizes.clear();
}

}  // namespace meshport::ops
