// The format table: every format meshport knows, and what each one holds (its capabilities).
// One table (src/api/formats.cpp) decides what `formats` lists, what `fit_to_format` does to a
// Scene before a writer sees it, which texture files are written beside a model, and the
// "What each format holds" table of docs/formats.md (tests/test_capabilities.cpp keeps them equal).
#pragma once

#include <meshport/options.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshport {

// A count without a limit (FormatCapabilities::uv_sets, joints_per_vertex, index_bits): "any".
inline constexpr uint32_t kAnyNumber = std::numeric_limits<uint32_t>::max();

// What a format's writer keeps of a Scene. `false` means the writer cannot hold it:
// fit_to_format converts it (resampling, baking, expanding) or drops it with a warning.
struct FormatCapabilities {
  bool compression = false;         // --compress: EXT_meshopt_compression (false: refused, an error)
  bool skeletal_animation = false;  // animations of joints (false: dropped, warning)
  bool uneven_keys = false;         // key times as they are (false: resampled to evenly spaced frames)
  bool step_interpolation = false;  // players hold STEP keys (false: a warning that players blend them)
  bool morph_animation = false;     // animations' morph weight tracks (false: dropped, warning)
  bool texture_transforms = false;  // KHR_texture_transform (false: the base colour's baked into the UVs)
  bool gpu_instances = false;       // Mesh::instances (false: expanded into copies, warning)
  bool lines_and_points = false;    // Lines and Points meshes (false: dropped, warning)
  bool lods = false;                // level-of-detail meshes, Mesh::lod > 0 (false: dropped, warning)
  bool gltf_material_data = false;  // metallic-roughness and occlusion textures, KHR_materials_*, extras,
                                    // double-sided, variants (false: dropped, warning per material)
  bool emissive_texture = false;    // the emissive texture (OBJ map_Ke; false: dropped with the above)
  // Texture files: what the writer references of a material's textures, so that images a Scene
  // carries (read from a GLB) are written beside the output as files it names.
  bool texture_files = false;       // names texture files, written beside it from Scene::images by these
                                    // rules (false: glTF places its images itself; ModeDef has none)
  bool normal_texture = false;      // writes the normal map's file (PIE)
  bool specular_texture = false;    // writes the specular map's file (PIE)
  bool team_colour_texture = false; // writes the team colour mask's file (PIE TCMASK)
  bool textures_by_material_name = false;  // names a texture by its material's name (IQE, IQM, QMSH)
  bool every_material = false;      // writes every material, not only those meshes use (OBJ)
  bool pie_pages = false;           // textures are PNG pages named "page-NN-name.png" (PIE)
  // Vertex data: what the writer keeps of each mesh's vertices (fit_to_format drops or reduces the
  // rest, with a warning naming the mesh and what went). Counts are kAnyNumber when unlimited.
  bool vertex_colours = false;       // Attribute::Color (false: dropped)
  bool vertex_colour_alpha = false;  // the colours' alpha (false: dropped where it is not 1)
  uint32_t uv_sets = 0;              // texture coordinate sets: Texcoord and custom "texcoord<n>"
                                     // (set n kept for n < uv_sets; the others dropped)
  uint32_t joints_per_vertex = 0;    // joint influences per vertex (more: the largest kept,
                                     // renormalised; 0: skin weights dropped)
  uint32_t index_bits = kAnyNumber;  // width of the vertex indices of the file or its engine; the
                                     // writer refuses more (QMSH: 65,535 vertices, PIE: 8,192
                                     // polygons a level), nothing is split; 0: no mesh (.path)
  bool morph_targets = false;        // Mesh::morph_targets, static ones (false: dropped)
  bool custom_vertex_arrays = false; // Attribute::Custom arrays other than "texcoord<n>" and the
                                     // formats' own (false: dropped)
};

struct FormatInfo {
  Format format;
  std::string_view name;         // "iqe"
  std::string_view description;  // "Inter-Quake Export (text)"
  std::vector<std::string_view> extensions;  // lower case, with the dot: ".iqe"
  bool can_read;
  bool can_write;
  std::string_view family;  // "glTF": formats of one family hold the same (a column of docs/formats.md)
  FormatCapabilities holds;
};

const std::vector<FormatInfo>& formats();
const FormatInfo& format_info(Format f);
std::optional<Format> format_from_name(std::string_view name);  // "iqm", case-insensitive
std::optional<Format> format_from_path(std::string_view path);  // by extension

// One capability by name, for listing them all (formats --json, docs/formats.md): in the order of
// FormatCapabilities, with `meaning` the text of the table's row. A count (`is_count`) has its
// value in `count` (kAnyNumber: any), and `value` is count > 0.
struct Capability {
  std::string_view name;     // "lines_and_points"
  std::string_view meaning;  // "Lines and points meshes"
  bool value;
  bool is_count = false;
  uint32_t count = 0;
};
// "yes" / "no" for a flag; a count as a number, "any" for kAnyNumber, "no" for 0.
std::string capability_text(const Capability& c);
std::vector<Capability> capability_list(const FormatCapabilities& holds);

}  // namespace meshport
