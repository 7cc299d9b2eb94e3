// The string a format that keys materials by name (IQM, IQE) writes for each Scene material.
// Such a format merges two materials of the same string into one when read back, so every
// material gets a distinct, stable string (docs/processing.md, "Material names"):
// - its name;
// - an unnamed material: its base colour texture (the IQM/IQE convention: the material string
//   is the texture), else "material<i>" (i: its index in Scene::materials);
// - a string an earlier material already has gets "_<k>" (k = 2, 3, ...; before the file
//   extension of a texture name, "skin_2.png"), except that unnamed materials with the same
//   texture keep it: the format holds nothing else that tells them apart.
#pragma once

#include <meshport/scene.h>

#include <string>
#include <vector>

namespace meshport::ops {

// One string per Scene material; `renamed` counts the materials whose string is not their name
// (or texture) because an earlier material had it.
std::vector<std::string> material_keys(const Scene& scene, size_t* renamed = nullptr);

}  // namespace meshport::ops
