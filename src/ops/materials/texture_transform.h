// Baking texture coordinate transforms (glTF KHR_texture_transform and textureInfo.texCoord,
// Material::*_transform / *_texcoord) into the meshes' texture coordinates, for the formats that
// cannot hold them: every format but glTF, which has one texture coordinate set per vertex,
// sampled as is by every texture of the material.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <vector>

namespace meshport::ops {

// Whether any material maps a texture slot other than as is: a transform that is not the
// identity, or a texture coordinate set other than 0.
bool has_texture_transforms(const Scene& scene);

// For every material whose base colour slot is mapped other than as is: the texture coordinates
// of every mesh using it become uv' = offset + R * (scale * uv) (scene.h, TextureTransform) of
// the set that slot uses, as the mesh's Texcoord stream (declared Float when it was an integer
// format: the values may leave its range). When that set is not 0, a Texcoord stream the mesh
// had is kept as the custom stream "texcoord0" (warning). A mesh without that set is left as it
// is (warning). Then every slot of the material is mapped as is (set 0, identity); a normal or
// specular texture that was mapped differently from the base colour one gets a warning: only the
// base colour's mapping is baked. The team colour mask is sampled like the base colour.
void bake_texture_transforms(Scene& scene, Diagnostics& diags);
// The same for the materials i with only[i] true (the others are left as they are).
void bake_texture_transforms(Scene& scene, const std::vector<bool>& only, Diagnostics& diags);
// Whether material `m`'s base colour slot is mapped other than as is.
bool base_color_mapped(const Material& m);

}  // namespace meshport::ops
