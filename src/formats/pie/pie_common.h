// What the PIE reader and writer share: axis conversion and the ANIMOBJECT frame transform
// (docs/pie.md, "Into the Scene").
#pragma once

#include "ops/animation/euler.h"

#include <meshport/scene.h>
#include <meshport/source/pie_mesh.h>

#include <fmt/format.h>

#include <bit>
#include <string>
#include <string_view>
#include <vector>

namespace meshport::pie {

inline constexpr uint32_t kTextured = 0x200;
inline constexpr uint32_t kTexAnim = 0x4000;
inline constexpr size_t kMaxPolygons = 8192;  // per level: the engine's 16-bit index limit
inline constexpr size_t kOldMaxPoints = 768, kOldMaxPolygons = 512;  // pie.md's obsolete limits

// Points, normals: PIE (x, y, z), Y up  <->  Scene (x, y, -z). Exact both ways.
inline std::array<float, 3> point_to_scene(std::array<float, 3> p) { return {p[0], p[1], -p[2]}; }
inline std::array<float, 3> scene_to_point(std::array<float, 3> p) { return {p[0], p[1], -p[2]}; }
// Connectors: (x, y, z) with Z up, a Y/Z swap of point space  <->  Scene (x, z, -y).
inline std::array<float, 3> connector_to_scene(std::array<float, 3> c) { return {c[0], c[2], -c[1]}; }
inline std::array<float, 3> scene_to_connector(std::array<float, 3> s) { return {s[0], -s[2], s[1]}; }

// The Scene pose (translation, rotation, scale) of one ANIMOBJECT frame line; a frame with
// scale x == -1 (not drawn) gets scale 0.
inline Transform frame_to_scene(const PieAnimFrame& f) {
  // File order x z y: position[0] = x, [1] = z, [2] = y; the same for rotation.
  Transform t;
  t.translation = {float(f.position[0] / 1000.0), float(f.position[2] / 1000.0), float(-f.position[1] / 1000.0)};
  t.rotation = ops::quat_from_euler_xyz(
      {float(f.rotation[0] / 1000.0), float(f.rotation[2] / 1000.0), float(-f.rotation[1] / 1000.0)});
  if (f.scale[0] == -1.0f)
    t.scale = {0, 0, 0};
  else
    t.scale = f.scale;
  return t;
}

// "<stem>" of a path: no folder, no extension.
inline std::string model_name(std::string_view path) {
  size_t slash = path.find_last_of("/\\");
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  size_t dot = path.rfind('.');
  if (dot != std::string_view::npos && dot > 0) path = path.substr(0, dot);
  return std::string(path);
}

inline std::string level_mesh_name(const std::string& model, size_t level_index) {
  return fmt::format("{}_level{}", model, level_index + 1);
}

}  // namespace meshport::pie
