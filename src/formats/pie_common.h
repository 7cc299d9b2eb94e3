// What the PIE reader and writer share: axis conversion and the ANIMOBJECT frame transform
// (docs/pie.md, "Into the Scene").
#pragma once

#include "ops/euler.h"

#include <meshport/scene.h>

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

// Per-triangle and per-vertex PIE data on a level's mesh (include/meshport/source/pie.h).
inline constexpr std::string_view kFlagsChannel = "pie.flags";      // 1 word: polygon flags
inline constexpr std::string_view kTexAnimChannel = "pie.texanim";  // frames, rate, width, height bits
inline constexpr std::string_view kPointStream = "pie.point";       // per vertex: its POINTS index
// Decision: a level may have at most this many points, so that every point index is exact in the
// float of the "pie.point" stream (2^24).
inline constexpr size_t kMaxPoints = size_t(1) << 24;

// The face channels of a level's polygons, one entry per Scene triangle: "pie.flags" always,
// "pie.texanim" when any polygon has texture animation values.
inline std::vector<FaceChannel> polygon_channels(const std::vector<PiePolygon>& polygons) {
  FaceChannel flags{std::string(kFlagsChannel), 1, {}};
  FaceChannel anim{std::string(kTexAnimChannel), 4, {}};
  flags.data.reserve(polygons.size());
  bool animated = false;
  for (const PiePolygon& p : polygons) {
    flags.data.push_back(p.flags);
    anim.data.insert(anim.data.end(), {p.anim_frames, p.anim_rate, std::bit_cast<uint32_t>(p.anim_width),
                                       std::bit_cast<uint32_t>(p.anim_height)});
    animated = animated || p.anim_frames || p.anim_rate || anim.data.end()[-2] || anim.data.end()[-1];
  }
  std::vector<FaceChannel> out{std::move(flags)};
  if (animated) out.push_back(std::move(anim));
  return out;
}

// The polygons of a mesh's triangles from its face channels: empty when it has no "pie.flags"
// channel of one word per triangle; animation values 0 without a fitting "pie.texanim".
inline std::vector<PiePolygon> mesh_polygons(const Mesh& m) {
  const size_t count = m.triangles.size() / 3;
  const FaceChannel* flags = m.find_channel(kFlagsChannel);
  const FaceChannel* anim = m.find_channel(kTexAnimChannel);
  if (!flags || flags->components != 1 || flags->data.size() != count) return {};
  if (anim && (anim->components != 4 || anim->data.size() != count * 4)) anim = nullptr;
  std::vector<PiePolygon> out(count);
  for (size_t t = 0; t < count; ++t) {
    out[t].flags = flags->data[t];
    if (!anim) continue;
    const uint32_t* a = &anim->data[t * 4];
    out[t].anim_frames = a[0];
    out[t].anim_rate = a[1];
    out[t].anim_width = std::bit_cast<float>(a[2]);
    out[t].anim_height = std::bit_cast<float>(a[3]);
  }
  return out;
}

// The "pie.point" stream of a mesh: one point index per vertex, or null.
inline const VertexStream* point_stream(const Mesh& m) {
  for (const VertexStream& s : m.streams)
    if (s.attribute == Attribute::Custom && s.name == kPointStream && s.components == 1) return &s;
  return nullptr;
}

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
