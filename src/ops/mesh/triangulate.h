// Polygons stored as triangle fans (Mesh::polygon_sizes), shared by the readers and the ops.
//
// A face of n corners q0..qn-1 (Scene winding, counter-clockwise) is stored as the n-2 fan
// triangles (q0 q1 q2) (q0 q2 q3) .. (q0 qn-2 qn-1), consecutive in Mesh::triangles. Its corners
// are recovered as q0 = first triangle's [0], q1 = first triangle's [1], then each fan triangle's
// [2]. When polygon_sizes is empty every triangle is its own face.
//
// Per-corner data (SmoothingRules::corner_edge) is stored face after face, n entries per face,
// entry k for corner qk (the edge qk -> qk+1, wrapping).
#pragma once

#include <meshport/scene.h>

#include <cstdint>
#include <span>
#include <vector>

namespace meshport::ops {

// Appends the convex polygon `corners` (Scene order) as fan triangles (p0, pi, pi+1). For n > 3
// it records the face in polygon_sizes, first back-filling 3 for every triangle already in the
// mesh when polygon_sizes was empty; for n == 3 it records 3 only when polygon_sizes is already
// in use. Returns false, appending nothing, when n < 3. Smoothing rules are not touched: the
// caller appends its per-face and per-corner values itself.
bool append_polygon(Mesh& m, std::span<const uint32_t> corners);

// True when polygon_sizes is empty, or every entry is >= 3 and together they cover exactly the
// mesh's triangles (sum of n - 2 == triangles / 3). It does not check that each group really is
// a fan; polygon_corners of a group that is not one returns the fan's corners regardless.
bool polygons_fit(const Mesh& m);

// One face: where its triangles and its per-corner entries start, and its corner count.
struct Face {
  size_t index = 0;           // face number
  size_t first_triangle = 0;  // index into triangles / 3
  size_t first_corner = 0;    // index into per-corner arrays (corner_edge)
  uint32_t size = 3;          // corners; the face has size - 2 triangles
};

// Calls fn(const Face&) for every face in order. Requires polygons_fit(m).
template <class Fn>
void for_each_face(const Mesh& m, Fn&& fn) {
  Face f;
  const size_t faces = m.face_count();
  for (f.index = 0; f.index < faces; ++f.index) {
    f.size = m.polygon_sizes.empty() ? 3 : m.polygon_sizes[f.index];
    fn(static_cast<const Face&>(f));
    f.first_triangle += f.size - 2;
    f.first_corner += f.size;
  }
}

// The first triangle of face `face`: O(1) without polygons, O(face) with them (use
// for_each_face to walk every face). Requires polygons_fit(m) and face < m.face_count().
size_t face_first_triangle(const Mesh& m, size_t face);

// The corners q0..qn-1 of a face, recovered from its fan.
std::vector<uint32_t> polygon_corners(const Mesh& m, const Face& f);
std::vector<uint32_t> polygon_corners(const Mesh& m, size_t face);  // O(face), see above

// Turns every face into its own triangles: per-face smoothing values (face_group, face_angle,
// face_uv) are repeated for each of the face's triangles, corner_edge gets 3 entries per
// triangle (a polygon edge keeps its flag; an inner fan diagonal is smooth, 1), then
// polygon_sizes is cleared. A rule array whose length does not match the faces (or corners) is
// dropped, and so is every per-face and per-corner rule when polygons_fit(m) is false, as they
// cannot be assigned to triangles. vertex_key is per vertex and kept. No-op without polygons.
void clear_polygons(Mesh& m);

}  // namespace meshport::ops
