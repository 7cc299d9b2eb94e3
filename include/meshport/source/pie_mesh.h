// meshport: the PIE data a level keeps on its mesh (docs/pie.md): per-polygon values as face
// channels, each vertex's POINTS index as a format stream. Names and conversions shared by the PIE
// reader and writer and the glTF extras mapping.
#pragma once

#include <meshport/scene.h>

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshport {

// ---- PIE data on the meshes --------------------------------------------------------------------
// A level's per-polygon values are face channels of its mesh and each vertex's POINTS index a
// format stream (scene.h), so every step that reorders or remaps keeps them in place.
namespace pie {

// Their names.
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

}  // namespace pie

}  // namespace meshport
