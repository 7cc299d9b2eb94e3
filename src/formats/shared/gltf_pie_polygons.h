// PIE polygon flags and texture animation as glTF materials (docs/pie.md, "Through Blender").
//
// A level's polygon data lives on its mesh as face channels ("pie.flags", "pie.texanim"), kept in
// the glTF mesh's extras one tuple per triangle. Blender keeps mesh extras but not their pairing
// with triangles: it drops degenerate faces, and an edit deletes or adds some. What it keeps per
// face whatever it does is the material. So the glTF writer gives each distinct polygon of a
// level its own material, a "polygon material", and the triangles of each their own primitive:
//   - the level's material itself stands for the plain polygon (flags 0x200, no animation);
//   - every other polygon gets a copy of that material named "<material> pie <flags>" (" #2",
//     " #3" ... when the same flags come with other animation values);
//   - each such material's extras.meshport hold "pie_base" (the level's material name) and
//     "pie_polygon": {"flags": uint, "frames": uint, "rate": uint, "width": float,
//     "height": float} (PiePolygon; width and height as floats, the others as int32 when they
//     would not fit: Blender keeps 32-bit signed integers only);
//   - the level's material gets "pie_base" (its own name) and "pie_polygon" {"flags": 512}.
// The primitives share the vertex arrays, so meshport's own reader joins them back into the same
// mesh, its triangles in their first order (restored from the mesh extras' channels). A file
// whose primitives have arrays of their own (Blender's) is joined by appending them, each
// triangle's polygon from its material, in the order of the primitives.
#pragma once

#include <meshport/scene.h>
#include <meshport/source/pie.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshport::gltf {

// The triangles of a mesh by polygon. Groups in order of first use; each group's triangles
// ascending.
struct PolygonGroups {
  std::vector<PiePolygon> polygons;
  std::vector<std::vector<uint32_t>> triangles;
};

// The groups of a mesh whose "pie.flags" channel fits its triangles; nullopt for other meshes.
std::optional<PolygonGroups> polygon_groups(const Mesh& m);

bool is_plain(const PiePolygon& p);
// Its values as words (the floats' bit patterns), for ordering and lookups.
std::array<uint32_t, 5> polygon_key(const PiePolygon& p);

// The extras.meshport entries of a polygon material (added to `extras`) and its name.
void add_polygon_extras(nlohmann::json& extras, const std::string& base, const PiePolygon& p);
std::string polygon_material_name(const std::string& base, const PiePolygon& p, size_t same_flags_before);

// The polygon a material's extras.meshport name, nullopt when it is not a polygon material.
// Throws meshport::Error (path and message) when "pie_polygon" or "pie_base" is malformed.
struct PolygonMaterial {
  std::string base;
  PiePolygon polygon;
};
std::optional<PolygonMaterial> polygon_material_of(const nlohmann::json& meshport_extras, const std::string& path);

}  // namespace meshport::gltf
