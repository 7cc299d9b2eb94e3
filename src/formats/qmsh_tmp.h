// QMSH TMP 10: The Final Quest's Blender export intermediate (text;
// ../shared/specs/qmsh-tmp.en.txt and qmsh-notes.md). Mapping and choices: docs/qmsh.md.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <string>
#include <string_view>

namespace meshport::qmsh_tmp {

// The file as written, without any processing; errors as file:row:col. Throws meshport::Error.
QmshTmpData parse(std::string_view text, const std::string& name, Diagnostics& diags);

// The Scene the specification's processing makes of a parsed file (material split, object
// transforms, quad triangulation, auto-smooth normals, tangents, skinning, bones, actions sampled
// at the scene's fps); `data` is kept in Scene::qmsh_tmp.
Scene build_scene(QmshTmpData data, const std::string& name, Diagnostics& diags);

// parse + build_scene.
Scene read(std::string_view text, const std::string& name, Diagnostics& diags);

// The text of `data`, in the grammar parse() reads: parse(print(d)) == d.
std::string print(const QmshTmpData& data);

// Scene::qmsh_tmp printed when present; otherwise what the Scene holds, turned into the grammar
// (scene_to_tmp).
std::string write(const Scene& scene, Diagnostics& diags);

// A QmshTmpData describing a Scene that did not come from .qmsh.tmp: meshes as objects,
// materials, vertex groups from skinning, the skeleton as an armature, animations as LINEAR
// curves at the animation's framerate.
QmshTmpData scene_to_tmp(const Scene& scene, Diagnostics& diags);

}  // namespace meshport::qmsh_tmp
