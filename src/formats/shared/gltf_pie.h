// Scene::pie (PieData, Warzone 2100 PIE-only data) as JSON, kept by the glTF writer in
// scenes[0].extras.meshport.pie (where Blender keeps it; older files: the root extras) so that
// PIE -> glTF -> PIE loses nothing, also through Blender (docs/pie.md, docs/gltf-obj.md).
//
// ===== Schema =====
// Every key is always written; a reader takes the default of the C++ field for an absent key.
// The per-triangle polygon flags and texture animation, and each vertex's point, are not here:
// they are the mesh's face channels and "pie.point" format stream, written with the glTF mesh
// (gltf_write_extras.cpp, mesh extras), so they stay with their mesh and triangles. Files of the older
// schema held them per level, "vertex_point": [uint] and "polygons": [[flags] or [flags,
// anim_frames, anim_rate, anim_width, anim_height]] one per triangle; a reader still takes them
// (apply_pie_legacy) for a mesh that has none of its own.
//   float:  the float's exact value as a JSON number; "NaN", "Infinity" or "-Infinity" when it
//           is not finite (JSON has no such numbers)
//   string: a JSON string, or {"base64": the bytes} when they are not valid UTF-8
//   bool:   true / false; readers also take 0 / 1 (Blender writes booleans back so)
//   int:    readers also take a float with an integral value
//   TYPE and polygon flags: a uint32, or from 2^31 up the int32 of the same bits (Blender keeps
//           32-bit signed integers only); readers take -2^31..2^32-1 modulo 2^32
//
//   pie = {"version": int,                       PieData::version (2, 3 or 4)
//          "global": settings,                   PieData::global
//          "events": [{"type": int, "file": string}],
//          "levels": [level]}
//   settings = {"has_type": bool, "type": uint,  PieSettings, every field
//               "has_interpolate": bool, "interpolate": int,
//               "textures": [texture]}
//   texture = {"kind": "texture" | "tcmask" | "normalmap" | "specularmap",
//              "tileset": int, "file": string, "has_size": bool, "width": int, "height": int}
//   level = {"mesh": int,          the glTF mesh (meshes[i]) holding the level's Scene mesh, -1
//                                  for none (an empty level, or a Scene mesh that was not written)
//            "joint": int,         PieLevel::joint: a Scene joint (= glTF node), or -1
//            "comment": string, "overrides": settings,
//            "materials": [string], "shaders": [string],
//            "points": [[float, float, float]], "normals": bool,
//            "has_animobject": bool,
//            "animobject": {"time": int, "cycles": int,
//                           "frames": [{"frame": int, "position": [int x3], "rotation": [int x3],
//                                       "scale": [float x3]}]},
//            "has_shadow_points": bool, "shadow_points": [[float, float, float]],
//            "has_shadow_polygons": bool, "shadow_polygons": [[uint, uint, uint]]}
#pragma once

#include <meshport/scene.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace meshport::gltf {

// `gltf_mesh[i]`: the glTF mesh written for Scene mesh i, -1 when it was not written. A level
// whose mesh is out of that range gets -1.
nlohmann::json pie_to_json(const PieData& pie, const std::vector<int32_t>& gltf_mesh);

// The inverse. `scene_mesh[g]`: the Scene mesh read from glTF mesh g (-1 when none); `joints`:
// the Scene's joint count. Throws meshport::Error (no file name) whose message starts with the
// JSON path (`path` and below) of a malformed value: wrong type, integer out of range, unknown
// texture kind, mesh or joint index out of range.
// `legacy` (may be null) receives, per level, the older schema's "polygons" and "vertex_point".
struct PieLegacyLevel {
  std::vector<PiePolygon> polygons;
  std::vector<uint32_t> vertex_point;
};
PieData pie_from_json(const nlohmann::json& j, const std::string& path, const std::vector<int32_t>& scene_mesh,
                      size_t joints, std::vector<PieLegacyLevel>* legacy = nullptr);

// The older schema's per-level data onto the levels' meshes, where it fits them (one polygon per
// triangle, one point per vertex) and the mesh has no channel or stream of its own.
void apply_pie_legacy(const PieData& pie, const std::vector<PieLegacyLevel>& legacy, std::vector<Mesh>& meshes);

}  // namespace meshport::gltf
