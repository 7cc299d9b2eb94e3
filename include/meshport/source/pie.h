// meshport: PIE (Warzone 2100) data the canonical Scene cannot hold (docs/pie.md), kept as Scene::pie.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace meshport {

// ---- PIE (Warzone 2100) data that the rest of the Scene cannot hold -------------------------
// docs/pie.md describes how a PIE file maps onto the Scene. Everything here is kept so that
// PIE -> Scene -> PIE is lossless; a PIE writer given a Scene without it (no Scene::pie)
// derives what it needs from the meshes, materials, attachments and animations.

// TEXTURE, TCMASK, NORMALMAP or SPECULARMAP.
struct PieTexture {
  enum class Kind : uint8_t { Texture, TcMask, NormalMap, SpecularMap };
  Kind kind = Kind::Texture;
  int32_t tileset = 0;     // 0 arizona, 1 urban, 2 rockies
  std::string file;        // "page-7-barbarians-arizona.png"
  bool has_size = false;   // TEXTURE only: the optional (ignored) width and height were given
  int32_t width = 0, height = 0;
  bool operator==(const PieTexture&) const = default;
};

// Global settings, or a PIE 4 level's overrides (what a level leaves unset falls back to them).
struct PieSettings {
  bool has_type = false;
  uint32_t type = 0;            // TYPE flags (written in hex)
  bool has_interpolate = false;
  int32_t interpolate = 1;      // INTERPOLATE value (> 0: on)
  std::vector<PieTexture> textures;  // in file order
  bool operator==(const PieSettings&) const = default;
};

struct PieEvent {
  int32_t type = 1;  // 1 active, 2 firing, 3 dying
  std::string file;
  bool operator==(const PieEvent&) const = default;
};

// One polygon's flags and texture animation. They live on the level's mesh, one value per Scene
// triangle, as the face channels "pie.flags" (1 word: the flags) and "pie.texanim" (4 words:
// frames, rate, and the bit patterns of the float frame width and height; only in meshes with
// a texture-animated polygon), so that every step reordering triangles carries them
// (docs/pie.md). This struct is what the PIE reader and writer decode them to.
struct PiePolygon {
  uint32_t flags = 0x200;        // 0x200 textured, 0x4000 texture animation
  uint32_t anim_frames = 0;      // texture animation block (flags & 0x4000)
  uint32_t anim_rate = 0;        // game ticks (ms) per frame
  float anim_width = 0, anim_height = 0;  // frame size in texture units (PIE 2 values / 256)
  bool operator==(const PiePolygon&) const = default;
};

// One ANIMOBJECT frame line, exactly as in the file: position and rotation in the file's
// x z y order, integers in thousandths (units, degrees); scale x y z.
struct PieAnimFrame {
  int32_t frame = 0;
  std::array<int32_t, 3> position{0, 0, 0};  // file order: x z y
  std::array<int32_t, 3> rotation{0, 0, 0};  // file order: x z y
  std::array<float, 3> scale{1, 1, 1};
  bool operator==(const PieAnimFrame&) const = default;
};

struct PieAnimObject {
  int32_t time = 0;    // milliseconds per frame (the engine shows frame (elapsed / time) % frames)
  int32_t cycles = 0;  // 0: loop forever
  std::vector<PieAnimFrame> frames;
  bool operator==(const PieAnimObject&) const = default;
};

struct PieLevel {
  int32_t mesh = -1;   // the Scene mesh holding this level, -1 when it has none (empty level)
  int32_t joint = -1;  // the joint animating it (levels with ANIMOBJECT), else -1
  std::string comment;  // text of a `#` comment on the LEVEL line ("muzzle flash"), trimmed
  PieSettings overrides;  // PIE 4 per-level TYPE / INTERPOLATE / TEXTURE ... lines
  std::vector<std::string> materials;  // MATERIALS lines, the text after the keyword
  std::vector<std::string> shaders;    // SHADERS lines, the text after the keyword
  // POINTS as in the file (x y z, Y up). The point each vertex came from is the mesh's format
  // stream "pie.point" (one float per vertex, the point index; scene.h is_format_stream), which
  // follows every vertex remap: the writer restores the point list (order, unused and duplicate
  // points) from it while the vertices still sit on their points.
  std::vector<std::array<float, 3>> points;
  bool normals = false;                 // the level had (valid) NORMALS
  bool has_animobject = false;
  PieAnimObject animobject;
  bool has_shadow_points = false;       // SHADOWPOINTS given (even without SHADOWPOLYGONS)
  std::vector<std::array<float, 3>> shadow_points;        // as in the file
  bool has_shadow_polygons = false;
  std::vector<std::array<uint32_t, 3>> shadow_polygons;   // point indices as in the file
  bool operator==(const PieLevel&) const = default;
};

struct PieData {
  int32_t version = 4;  // 2, 3 or 4
  PieSettings global;
  std::vector<PieEvent> events;
  std::vector<PieLevel> levels;
  bool operator==(const PieData&) const = default;
};

}  // namespace meshport
