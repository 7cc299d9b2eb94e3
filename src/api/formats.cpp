// The format table: names, extensions and what each format holds (include/meshport/formats.h).
#include <meshport/formats.h>

#include "core/text.h"

namespace meshport {

namespace {

// glTF holds everything a Scene can; it embeds its images (or writes them itself).
constexpr FormatCapabilities kGltf{.compression = true,
                                   .skeletal_animation = true,
                                   .uneven_keys = true,
                                   .step_interpolation = true,
                                   .morph_animation = true,
                                   .texture_transforms = true,
                                   .gpu_instances = true,
                                   .lines_and_points = true,
                                   .lods = true,
                                   .gltf_material_data = true,
                                   .emissive_texture = true,
                                   .vertex_colours = true,
                                   .vertex_colour_alpha = true,
                                   .uv_sets = kAnyNumber,
                                   .joints_per_vertex = kAnyNumber,  // JOINTS_n/WEIGHTS_n sets of 4
                                   .index_bits = 32,
                                   .morph_targets = true,
                                   .custom_vertex_arrays = true};

// IQE: evenly spaced frames that players blend; a texture is named by its material; any vertex
// array (texture coordinate sets past the first are custom arrays, at most 10 of them in all).
constexpr FormatCapabilities kIqe{.skeletal_animation = true,
                                  .texture_files = true,
                                  .textures_by_material_name = true,
                                  .vertex_colours = true,
                                  .vertex_colour_alpha = true,
                                  .uv_sets = kAnyNumber,
                                  .joints_per_vertex = kAnyNumber,
                                  .custom_vertex_arrays = true};

// IQM as IQE, in 32-bit indices and 4 influences per vertex (ubyte weights unless read otherwise).
constexpr FormatCapabilities kIqm{.skeletal_animation = true,
                                  .texture_files = true,
                                  .textures_by_material_name = true,
                                  .vertex_colours = true,
                                  .vertex_colour_alpha = true,
                                  .uv_sets = kAnyNumber,
                                  .joints_per_vertex = 4,
                                  .index_bits = 32,
                                  .custom_vertex_arrays = true};

constexpr FormatCapabilities kObj{.emissive_texture = true,
                                  .texture_files = true,
                                  .every_material = true,
                                  .vertex_colours = true,  // "v x y z r g b"
                                  .uv_sets = 1};

// PIE: frames held as they are with INTERPOLATE 0; pages, normal, specular and TCMASK files. A
// level follows one joint (a mesh skinned to several is written in its rest pose); Warzone 2100
// draws a level with 16-bit indices (the writer refuses more than 8,192 polygons).
constexpr FormatCapabilities kPie{.skeletal_animation = true,
                                  .step_interpolation = true,
                                  .texture_files = true,
                                  .normal_texture = true,
                                  .specular_texture = true,
                                  .team_colour_texture = true,
                                  .pie_pages = true,
                                  .uv_sets = 1,
                                  .joints_per_vertex = 1,
                                  .index_bits = 16};

// QMSH TMP 10: Blender's vertex groups hold any number of influences.
constexpr FormatCapabilities kQmshTmp{.skeletal_animation = true,
                                      .uneven_keys = true,
                                      .texture_files = true,
                                      .textures_by_material_name = true,
                                      .uv_sets = 1,
                                      .joints_per_vertex = kAnyNumber};

// TFQMSH10 keys have times, which the engine interpolates linearly; 2 influences per vertex (a
// weight and its complement), 16-bit vertex counts (more vertices: an error).
constexpr FormatCapabilities kQmsh{.skeletal_animation = true,
                                   .uneven_keys = true,
                                   .texture_files = true,
                                   .textures_by_material_name = true,
                                   .uv_sets = 1,
                                   .joints_per_vertex = 2,
                                   .index_bits = 16};

// ModeDef: meshes and vibration modes (.model, .prop; the modes are morph targets), no skeleton;
// a .state writes its objects' models and moves them along paths by their keys; a .path holds
// keys only, no mesh.
constexpr FormatCapabilities kModeDefMesh{.uv_sets = 1, .index_bits = 32, .morph_targets = true};
constexpr FormatCapabilities kModeDefState{.skeletal_animation = true,
                                           .uneven_keys = true,
                                           .uv_sets = 1,
                                           .joints_per_vertex = 1,  // an object follows its path whole
                                           .index_bits = 32,
                                           .morph_targets = true};
constexpr FormatCapabilities kModeDefPath{.skeletal_animation = true, .uneven_keys = true, .index_bits = 0};

}  // namespace

const std::vector<FormatInfo>& formats() {
  static const std::vector<FormatInfo> table = {
      {Format::Iqe, "iqe", "Inter-Quake Export (text)", {".iqe"}, true, true, "IQE", kIqe},
      {Format::Iqm, "iqm", "Inter-Quake Model (binary; v2 written, v1 and v2 read)", {".iqm", ".vvm"}, true, true,
       "IQM", kIqm},
      {Format::Gltf, "gltf", "glTF 2.0 (JSON with .bin or data URIs)", {".gltf"}, true, true, "glTF", kGltf},
      {Format::Glb, "glb", "glTF 2.0 binary", {".glb"}, true, true, "glTF", kGltf},
      {Format::Obj, "obj", "Wavefront OBJ with MTL materials", {".obj"}, true, true, "OBJ", kObj},
      {Format::Pie, "pie", "Warzone 2100 PIE 2, 3 and 4 (text)", {".pie"}, true, true, "PIE", kPie},
      {Format::QmshTmp, "qmsh-tmp", "QMSH TMP 10, The Final Quest's Blender export (text)", {".qmsh.tmp"}, true, true,
       "QMSH.tmp", kQmshTmp},
      {Format::Qmsh, "qmsh", "TFQMSH10, The Final Quest engine mesh (binary)", {".qmsh"}, true, true, "QMSH", kQmsh},
      {Format::ModeDefModel, "modedef-model", "ModeDef model: render mesh, tetrahedra, vibration modes (text)",
       {".model"}, true, true, "ModeDef mesh", kModeDefMesh},
      {Format::ModeDefProp, "modedef-prop", "ModeDef material properties, with their model (text)", {".prop"}, true,
       true, "ModeDef mesh", kModeDefMesh},
      {Format::ModeDefState, "modedef-state", "ModeDef scene: objects, planes, constraints, with their files (text)",
       {".state"}, true, true, "ModeDef state", kModeDefState},
      {Format::ModeDefPath, "modedef-path", "ModeDef animation path: translation and Euler keys (text)", {".path"},
       true, true, "ModeDef path", kModeDefPath},
  };
  return table;
}

const FormatInfo& format_info(Format f) {
  for (const auto& i : formats())
    if (i.format == f) return i;
  return formats().front();
}

std::optional<Format> format_from_name(std::string_view name) {
  std::string n = text::lower(name);
  if (!n.empty() && n.front() == '.') n.erase(0, 1);
  for (const auto& i : formats()) {
    if (i.name == n) return i.format;
    for (auto ext : i.extensions)
      if (ext.substr(1) == n) return i.format;
  }
  return std::nullopt;
}

std::optional<Format> format_from_path(std::string_view path) {
  std::string p = text::lower(path);
  for (const auto& i : formats())
    for (auto ext : i.extensions)
      if (p.size() > ext.size() && p.compare(p.size() - ext.size(), ext.size(), ext) == 0) return i.format;
  return std::nullopt;
}

namespace {
Capability count(std::string_view name, std::string_view meaning, uint32_t n) {
  return {name, meaning, n > 0, true, n};
}
}  // namespace

std::vector<Capability> capability_list(const FormatCapabilities& h) {
  return {
      {"compression", "Compression (--compress)", h.compression},
      {"skeletal_animation", "Skeletal animation", h.skeletal_animation},
      {"uneven_keys", "Unevenly spaced keys", h.uneven_keys},
      {"step_interpolation", "STEP interpolation", h.step_interpolation},
      {"morph_animation", "Morph weight animation", h.morph_animation},
      {"texture_transforms", "Texture transforms", h.texture_transforms},
      {"gpu_instances", "GPU instances", h.gpu_instances},
      {"lines_and_points", "Lines and points", h.lines_and_points},
      {"lods", "Levels of detail", h.lods},
      {"gltf_material_data", "Metallic-roughness, occlusion, KHR_materials_*", h.gltf_material_data},
      {"emissive_texture", "Emissive texture", h.emissive_texture},
      {"texture_files", "Images written beside it as texture files it names", h.texture_files},
      {"normal_texture", "Normal map file", h.normal_texture},
      {"specular_texture", "Specular map file", h.specular_texture},
      {"team_colour_texture", "Team colour mask file", h.team_colour_texture},
      {"textures_by_material_name", "Texture named by its material", h.textures_by_material_name},
      {"every_material", "Materials no mesh uses", h.every_material},
      {"pie_pages", "PIE page names (page-NN-name.png)", h.pie_pages},
      {"vertex_colours", "Vertex colours", h.vertex_colours},
      {"vertex_colour_alpha", "Vertex colours' alpha", h.vertex_colour_alpha},
      count("uv_sets", "Texture coordinate sets", h.uv_sets),
      count("joints_per_vertex", "Joint influences per vertex", h.joints_per_vertex),
      count("index_bits", "Vertex index bits", h.index_bits),
      {"morph_targets", "Morph targets (static)", h.morph_targets},
      {"custom_vertex_arrays", "Custom vertex arrays", h.custom_vertex_arrays},
  };
}

std::string capability_text(const Capability& c) {
  if (!c.is_count) return c.value ? "yes" : "no";
  if (c.count == kAnyNumber) return "any";
  return c.count ? std::to_string(c.count) : "no";
}

}  // namespace meshport
