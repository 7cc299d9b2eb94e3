// Images carried in the Scene (Scene::images, e.g. read from a GLB) written as files beside an
// output whose format references texture files (IQM, IQE, PIE, OBJ, QMSH), named as that format
// expects, with the materials rewritten to reference them (docs/textures.md, "glTF input and
// extraction"). meshport.cpp write() makes them side files of the write (all or nothing).
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>
#include <meshport/textures.h>

#include "core/files.h"

#include <string>
#include <vector>

namespace meshport::ops {

// What a format writes of a material, and how it names texture files.
struct ImageFileRules {
  bool base = true;  // the slots the format writes
  bool normal = false;
  bool specular = false;
  bool team_colour = false;
  bool emissive = false;  // the emissive texture (OBJ map_Ke)
  // The format names a material's texture by the material's name (IQM, IQE, QMSH): a material
  // whose base colour is an image written beside the output gets that file's name as its name,
  // unless its name already is that name or its stem.
  bool name_references = false;
  bool every_material = false;  // the format writes every material (OBJ), not only those meshes use
  // PIE: pages are named "page-NN-name.png" and must be PNG: other names get a new page name
  // (NN from 100, one per material; a team colour mask "page-NN_tcmask.png"), JPEGs become PNG.
  bool pie_pages = false;
};

// How many of Scene::images the written materials reference (what a write without a folder
// leaves out).
size_t referenced_images(const Scene& scene, const ImageFileRules& rules);

// The referenced images as side files (names relative to the output's folder: a file name, never
// a folder, unique in any case and different from `reserved`, the output's own file names), and
// `scene` rewritten so that its materials and those images name the files written. Warnings say
// which references changed and which images could not be written.
std::vector<OutputFile> image_files(Scene& scene, const ImageFileRules& rules, const std::vector<std::string>& reserved,
                                    Diagnostics& diags);

// Texture files on disk loaded into Scene::images, for a format that needs them in its own form
// (PIE: PNG pages). Every slot the rules write of a material a mesh uses, whose reference
// `usable` refuses as it is (PIE: not a PNG page name), and that find_textures() finds as a file
// (by the reference, or by the material's name when the slot is empty) becomes one of
// Scene::images: PNG and JPEG as they are, other decodable formats as PNG. The slot then
// references it (the image's path: the file's name, unique in the Scene). Files that cannot be
// read or decoded are warnings. Returns how many slots were loaded.
size_t load_texture_files(Scene& scene, const ImageFileRules& rules, const TextureSearch& search,
                          bool (*usable)(std::string_view reference), Diagnostics& diags);

// A name PIE writes as a texture page: [A-Za-z0-9._-] ending in ".png".
bool is_pie_texture_file(std::string_view name);

// "page-12-name.png", "page-7.png", "page-7_tcmask.png": a PIE page name ([A-Za-z0-9._-], .png)
// that starts with "page-NN".
bool is_pie_page_name(std::string_view name);

}  // namespace meshport::ops
