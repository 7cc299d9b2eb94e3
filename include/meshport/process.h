// Geometry processing shared by every format: normals, tangents, welding, optimisation,
// transforms. Each step is a free function over a Scene; the CLI exposes each as a flag of
// `convert`. Implementations live one per file in src/ops/.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <array>
#include <optional>
#include <vector>

namespace meshport {

// ---- Normals (src/ops/mesh/normals.cpp) ---------------------------------------------------------
// Triangle corners that share a position (across meshes, as iqe.txt says) are smoothed together
// only when they pass every test in force for both faces: equal `smoothgroup` keys, the angle
// between the face normals within the faces' `smoothangle`, equal texture coordinates when
// `smoothuv` is on, and no hard `fs` edge between them (they must be connected around the
// position through smooth shared edges). In meshes with `vs` keys, corners are grouped by equal
// key instead of equal position. Contributions are face normal x corner angle. Afterwards
// vertices split where their corners' normals differ and weld where every attribute (and the vs
// key) agrees; unused vertices get (0, 1, 0). Throws meshport::Error for an inconsistent mesh,
// changing nothing. Details: docs/processing.md.
struct NormalOptions {
  bool recompute = false;      // also replace normals a mesh already has
  std::optional<float> angle;  // degrees: one auto-smooth angle for every face, replacing the
                               // meshes' smoothing rules (0 faceted, 180 smooth everything)
};
// Returns the number of meshes given normals.
size_t generate_normals(Scene& scene, const NormalOptions& options = {}, Diagnostics* diags = nullptr);

// ---- Tangents (src/ops/mesh/tangents.cpp) -------------------------------------------------------
// MikkTSpace-equivalent tangent frames (xyz + handedness w) for meshes with normals and texture
// coordinates and no tangents (or every such mesh with recompute). Vertices whose corners need
// different tangent frames are split. Explicit tangents are never touched otherwise. `threads`
// as ProcessOptions::threads (0: every core); the result is the same for any count.
struct TangentOptions {
  bool recompute = false;
};
size_t generate_tangents(Scene& scene, const TangentOptions& options = {}, Diagnostics* diags = nullptr,
                         unsigned threads = 0);

// ---- Welding (src/ops/mesh/weld.cpp) ------------------------------------------------------------
// Merges vertices of a mesh whose every attribute (and vs key) is bit-identical, then drops
// vertices no triangle uses (a mesh without triangles loses them all). Keeps first-occurrence
// order. Returns vertices removed. Throws meshport::Error for an inconsistent mesh.
size_t weld_vertices(Scene& scene);
size_t remove_unused_vertices(Scene& scene);

// ---- Optimisation (src/ops/mesh/optimize.cpp, meshoptimizer) -------------------------------------
// Vertex cache then vertex fetch optimisation of every mesh with triangles. Reorders triangles
// and vertices: source polygons are cleared (their smoothing rules become per-triangle ones,
// which move with their triangles) and unused vertices are dropped. Throws meshport::Error,
// before changing anything, when a mesh is inconsistent (an index out of range, a short stream).
void optimize_meshes(Scene& scene);

// ---- Transforms (src/ops/mesh/transform.cpp) ----------------------------------------------------
// A similarity transform p' = translate + R(rotate) * (scale * p), applied consistently to
// meshes (positions; normals and tangents rotated), the skeleton and every animation frame, so
// that skinned results transform the same way. Throws meshport::Error for a scale that is not
// positive and finite, or non-finite angles or offsets; the identity changes nothing.
struct TransformOptions {
  float scale = 1.0f;                          // uniform, > 0
  std::array<float, 3> rotate_degrees{0, 0, 0};  // about X, then Y, then Z (q = qz * qy * qx)
  std::array<float, 3> translate{0, 0, 0};
};
void transform_scene(Scene& scene, const TransformOptions& options);
// v' = 1 - v on every texture-coordinate stream; tangent handedness negated in the meshes whose
// coordinates were flipped (mirroring texture space flips the bitangent). Custom arrays untouched.
void flip_v(Scene& scene);
// Reverses every triangle (a, b, c) -> (a, c, b) and every polygon (its fan and its fs flags);
// normals are kept: for assets authored with the wrong winding.
void flip_winding(Scene& scene);

// ---- Simplification (src/ops/mesh/simplify.cpp) --------------------------------------------------
// Fewer triangles per mesh with meshoptimizer's simplifier (edge collapses that keep the
// vertices' attributes and the mesh's borders and UV seams). A mesh is reduced to
// ceil(ratio * its triangles) and, when max_triangles > 0, to at most max_triangles; a mesh the
// topology-preserving simplifier cannot bring down to max_triangles is reduced further by the
// sloppy one (a warning), so the limit always holds. New triangles take their per-triangle data
// (face channels, smoothing rules) from the original triangle sharing most of their corners;
// polygons become triangles; unused vertices are dropped (every stream follows). Meshes already
// within the target are left as they are. Returns how many meshes changed.
// Each simplified mesh's result goes to `results` when given: its geometric error is
// meshoptimizer's result error (relative to the mesh's extent) times meshopt_simplifyScale, in
// model units: how far the simplified surface may lie from the original one.
struct SimplifyOptions {
  float ratio = 1.0f;        // (0, 1]
  size_t max_triangles = 0;  // 0: no limit
};
struct SimplifyResult {
  size_t mesh = 0;  // index into Scene::meshes
  size_t triangles_before = 0, triangles_after = 0;
  float error = 0;  // model units
};
size_t simplify_meshes(Scene& scene, const SimplifyOptions& options, Diagnostics* diags = nullptr,
                       std::vector<SimplifyResult>* results = nullptr);


// ---- Bounds (src/ops/mesh/bounds.cpp) -----------------------------------------------------------
// Rest-pose box: scene_bounds() in meshport.h. Per animation frame, with skinning:
struct FrameBounds {
  std::array<float, 3> min{0, 0, 0};
  std::array<float, 3> max{0, 0, 0};
  float radius = 0;             // max |p|: the sphere around the origin holding every vertex
  float horizontal_radius = 0;  // max sqrt(x^2 + z^2): the circle in the horizontal X-Z plane,
                                // which is the X-Y plane of Z-up formats (IQM's xyradius)
};
// One entry per frame of every animation, in order (animation 0's frames, then 1's, ...), of
// every mesh skinned by linear blending; a vertex without weights stays at its rest position.
std::vector<FrameBounds> frame_bounds(const Scene& scene);

// ---- Animation timing --------------------------------------------------------------------------
// An animation with unevenly spaced keys (Animation::times) as evenly spaced frames at
// `framerate` (> 0) from its first key to its last: translation and scale interpolate linearly,
// rotation spherically, between the keys around each frame time; the last frame is the last key
// when the duration is a whole number of frames, else the frame after it holds the last key.
// An animation without `times` is returned as it is.
Animation resample_animation(const Animation& a, float framerate);
// What `convert --resample FPS|off` asks (docs/processing.md "Resampling"): fps > 0 samples every
// animation at fps (glTF curves, LINEAR / STEP / CUBICSPLINE, by the reader exactly at the frame
// times; other sources' frames or keys by resample_animation); off never resamples (a glTF's
// uneven keys are kept as Animation::times, and writing a format of evenly spaced frames is an
// error naming the animation). Neither: as before (uneven keys at their framerate, else 30 fps).
// Without fps, glTF CUBICSPLINE curves are sampled at a multiple of the keys' rate (or, with off,
// their key intervals cut into equal parts) chosen so that blending between the frames stays
// within `tolerance` of the model's size (the diagonal of its rest-pose box) in translation,
// `tolerance` in scale and `degrees` in rotation (convert --curve-tolerance; docs/animations.md
// "Curves within a bound").
struct ResampleOptions {
  float fps = 0;
  bool off = false;
  double tolerance = 1e-4;
  double degrees = 0.01;
};
// The largest difference resampling introduced, per kind of channel: translation in the
// channel's units (distance), rotation in degrees (angle between the quaternions), scale as the
// largest component difference. Measured at every source key time and midway between
// consecutive resampled frames, the source evaluated by its own interpolation, the resampled
// animation by its frames (blended, or held when Interpolation::Step).
struct ResampleError {
  double translation = 0;
  double degrees = 0;
  double scale = 0;
};
// `source`'s frames are at `times` when it has them, else at f / framerate (30 when 0).
ResampleError resample_error(const Animation& source, const Animation& resampled);

// ---- The whole pipeline, in this order (what `meshport convert` runs) -----------------------
// Whether normals / tangents are generated for meshes that lack them.
enum class Generate : uint8_t {
  Default,  // where missing; but convert() generates none when it writes the input's own format
  Missing,  // where missing, always
  Off,
};
struct ProcessOptions {
  // First: every GPU instance (Mesh::instances) as a copy merged into its mesh, also for glTF
  // (for viewers without EXT_mesh_gpu_instancing, such as Blender 3.4); the other formats always
  // get them expanded.
  bool expand_instances = false;
  bool flip_winding = false;
  bool flip_v = false;
  TransformOptions transform;  // identity unless set
  bool weld = false;
  SimplifyOptions simplify;  // after weld; off unless ratio < 1 or max_triangles > 0
  Generate normals = Generate::Default;  // where missing (or everywhere with normal.recompute)
  NormalOptions normal;
  Generate tangents = Generate::Default;  // where missing, for meshes with normals and texcoords
  TangentOptions tangent;
  bool optimize = false;
  // Last: an animation playing every morph target in turn (add_modes_animation, modal.h).
  bool modes_animation = false;
  // Threads the steps may use on large meshes (tangents): 0 uses every core, 1 runs on the
  // calling thread (a batch converting many files at once sets 1 per file). The result is the
  // same for any count.
  unsigned threads = 0;
};
void process(Scene& scene, const ProcessOptions& options, Diagnostics* diags = nullptr);

// ---- Levels of detail (src/ops/mesh/lods.cpp) ---------------------------------------------------
// One Scene per ratio: a copy of `scene` with every mesh simplified from the full mesh (never
// from the level before) to ceil(ratio * its triangles), then the steps of `after` that follow
// simplification (normals, tangents, optimize, modes animation; its other steps and its
// simplify are ignored). Levels run on threads of their own (after.threads: 0 every core, 1 the
// calling thread); the result is the same for any count. `error`: the largest SimplifyResult
// error of the level's meshes (model units), 0 when no mesh changed.
struct LodLevel {
  float ratio = 1.0f;
  Scene scene;
  size_t triangles = 0;  // of every Triangles mesh of the level
  float error = 0;
};
// Diagnostics of level n (simplification notes, the steps after) start with "LOD n: " and, when
// `files` has an entry per level and they name no file, name that level's file.
std::vector<LodLevel> make_lods(const Scene& scene, const std::vector<float>& ratios, const ProcessOptions& after,
                                Diagnostics* diags = nullptr, const std::vector<std::string>& files = {});
// What `convert --lods R1,R2,... [--msft-lod]` makes (docs/processing.md).
struct LodOptions {
  std::vector<float> ratios;  // one level each, in (0, 1]; empty: no levels
  bool msft_lod = false;      // glTF: every level in the output itself (MSFT_lod), not NAME_lodN.EXT
};
// The levels' meshes appended to `scene` as meshes with Mesh::lod = level number (1, 2, ...) and
// lod_of = their level-0 mesh, for meshes whose level has fewer triangles than the mesh itself.
// A level with morph targets gets a copy of each of its mesh's morph weight tracks.
void add_lod_meshes(Scene& scene, const std::vector<LodLevel>& levels);

}  // namespace meshport
