// Geometry processing shared by every format: normals, tangents, welding, optimisation,
// transforms. Each step is a free function over a Scene; the CLI exposes each as a flag of
// `convert`. Implementations live one per file in src/ops/.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <array>
#include <optional>

namespace meshport {

// ---- Normals (src/ops/normals.cpp) ---------------------------------------------------------
// Triangle corners that share a position (across meshes, as iqe.txt says) are smoothed together
// only when they pass every test in force for both faces: equal `smoothgroup` keys, the angle
// between the face normals within the faces' `smoothangle`, equal texture coordinates when
// `smoothuv` is on, equal `vs` keys where the mesh has them, and an `fs` flag of 1 on the shared
// edge. Face normals are weighted by the corner angle. Afterwards vertices split where their
// corners' normals differ and weld where every attribute agrees.
struct NormalOptions {
  bool recompute = false;      // also replace normals a mesh already has
  std::optional<float> angle;  // degrees: one auto-smooth angle for every face, replacing the
                               // meshes' smoothing rules (0 faceted, 180 smooth everything)
};
// Returns the number of meshes given normals.
size_t generate_normals(Scene& scene, const NormalOptions& options = {}, Diagnostics* diags = nullptr);

// ---- Tangents (src/ops/tangents.cpp) -------------------------------------------------------
// MikkTSpace-equivalent tangent frames (xyz + handedness w) for meshes with normals and texture
// coordinates and no tangents (or every such mesh with recompute). Vertices whose corners need
// different tangent frames are split. Explicit tangents are never touched otherwise.
struct TangentOptions {
  bool recompute = false;
};
size_t generate_tangents(Scene& scene, const TangentOptions& options = {}, Diagnostics* diags = nullptr);

// ---- Welding (src/ops/weld.cpp) ------------------------------------------------------------
// Merges vertices of a mesh whose every attribute is bit-identical and drops vertices no
// triangle uses. Keeps the first occurrence's position in the order. Returns vertices removed.
size_t weld_vertices(Scene& scene);
size_t remove_unused_vertices(Scene& scene);

// ---- Optimisation (src/ops/optimize.cpp, meshoptimizer) -------------------------------------
// Vertex cache then vertex fetch optimisation of every mesh. Reorders triangles and vertices,
// so it clears source polygons and per-face smoothing rules.
void optimize_meshes(Scene& scene);

// ---- Transforms (src/ops/transform.cpp) ----------------------------------------------------
// A similarity transform p' = translate + R(rotate) * (scale * p), applied consistently to
// meshes (positions; normals and tangents rotated), the skeleton and every animation frame, so
// that skinned results transform the same way.
struct TransformOptions {
  float scale = 1.0f;                          // uniform, > 0
  std::array<float, 3> rotate_degrees{0, 0, 0};  // about X, then Y, then Z (q = qz * qy * qx)
  std::array<float, 3> translate{0, 0, 0};
};
void transform_scene(Scene& scene, const TransformOptions& options);
void flip_v(Scene& scene);         // v' = 1 - v; tangent handedness negated
void flip_winding(Scene& scene);   // reverses every triangle and polygon; normals kept

}  // namespace meshport
