// QMSH TMP 10: The Final Quest's Blender export intermediate (text;
// ../shared/specs/qmsh-tmp.en.txt and qmsh-notes.md). Mapping and choices: docs/qmsh.md.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshport::qmsh_tmp {

// A row and column of the text (1-based; row 0 when unknown).
struct Where {
  uint32_t row = 0, column = 0;
};

// Where parse() found the names that build_scene's errors and warnings are about, so that they
// read file:row:col like the parser's. Indices follow QmshTmpData.
struct SourceMap {
  std::vector<Where> meshes;                      // each mesh's name
  std::vector<Where> parent_bones;                // each mesh's Parent_bone string
  std::vector<std::vector<Where>> vertex_groups;  // each mesh's vertex group names
  Where armature;                                 // the armature's name
  std::vector<Where> bones, bone_parents;         // each bone's name and its Parent string
  std::vector<Where> actions;                     // each action's name
  std::vector<std::vector<Where>> channels;       // each action's channel names
  std::vector<std::vector<Where>> curves;         // each action's curve names, in file order
  std::vector<Where> fps;                         // each fps value
};

// The file as written, without any processing; errors as file:row:col. Throws meshport::Error.
// `where`, when given, receives the positions of names.
QmshTmpData parse(std::string_view text, const std::string& name, Diagnostics& diags, SourceMap* where = nullptr);

// The Scene the specification's processing makes of a parsed file (material split, object
// transforms, quad triangulation, auto-smooth normals, tangents, skinning, bones, actions sampled
// at the scene's fps); `data` is kept in Scene::qmsh_tmp. With `where` (from parse), errors and
// warnings name the row and column of what they are about.
Scene build_scene(QmshTmpData data, const std::string& name, Diagnostics& diags, const SourceMap* where = nullptr);

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
