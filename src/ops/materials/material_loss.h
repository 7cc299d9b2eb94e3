// The glTF-only material data (scene.h Material: metallic-roughness, occlusion and emissive
// textures, double-sided, KHR_materials_* extensions, extras; Scene::material_variants) a writer
// of another format cannot keep: one warning per material naming what is lost.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <string>
#include <string_view>
#include <vector>

namespace meshport::ops {

// What of the glTF-only data a format keeps besides nothing.
struct MaterialKeeps {
  bool emissive_texture = false;  // OBJ: map_Ke
};

// "material 'X': occlusion texture, clearcoat, sheen not kept by OBJ" for every material a mesh
// uses that holds such data; "material variants 'a', 'b' not kept by OBJ" when the Scene has them.
void warn_material_data_not_kept(const Scene& scene, std::string_view format, const MaterialKeeps& keeps,
                                 Diagnostics& diags);

// The names warn_material_data_not_kept gives material `m`'s glTF-only data ("clearcoat",
// "occlusion texture", ...), in that order.
std::vector<std::string> gltf_only_material_data(const Material& m, const MaterialKeeps& keeps);

}  // namespace meshport::ops
