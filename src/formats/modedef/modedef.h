// ModeDef (modal deformation, Hauser 2003): .model, .prop, .state and .path, all text
// (../shared/specs/modedef.txt). docs/modedef.md gives the mapping onto the Scene and every
// choice made where the specification is silent.
//
//   modedef_model.cpp  .model parse / print, model -> Scene meshes, Scene -> .model
//   modedef_scene.cpp  .prop, .state, .path parse / print, .state scenes, their writers
//   modedef_token.*    the shared token layer
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/options.h>

#include "core/files.h"

#include <string>
#include <string_view>
#include <vector>

namespace meshport::modedef {

// ---- The four files, exactly as written (parse(print(x)) == x) ------------------------------
// Parsers throw meshport::Error at file:line:col for malformed or inconsistent data; warnings
// (an ambiguous index base, ...) go to `diags`. `name` is the file's path, used in messages.
ModeDefModel parse_model(std::string_view text, const std::string& name, Diagnostics& diags);
std::string print_model(const ModeDefModel& model);
ModeDefProp parse_prop(std::string_view text, const std::string& name, Diagnostics& diags);
std::string print_prop(const ModeDefProp& prop);
ModeDefState parse_state(std::string_view text, const std::string& name, Diagnostics& diags);
std::string print_state(const ModeDefState& state);
ModeDefPath parse_path(std::string_view text, const std::string& name, Diagnostics& diags);
std::string print_path(const ModeDefPath& path);

// ---- Scenes -------------------------------------------------------------------------------
// Appends the render mesh of `scene.modedef->models[model]` to `scene`: one mesh per material group
// (then one for faces in no group), corners de-indexed into vertices, one morph target per mode
// (render-vertex displacements of unit amplitude, named "mode<k> <f> Hz"), materials (appended
// once per model; base colour = diffuse), and a ModeDefMeshSource per mesh. `object` is the state
// object the copy is for (-1 for none); `stem` names the meshes.
// `place` is where an error about the model as a whole (its morph targets would be too large for
// the Scene) is reported: the token that brought the model in, and a prefix for the message.
struct ErrorPlace {
  std::string file;
  uint32_t line = 0, column = 0;  // 0: no location
  std::string prefix;             // "object 2: "
};
void append_model_meshes(Scene& scene, int32_t model, int32_t object, const std::string& stem,
                         Diagnostics& diags, const ErrorPlace& place = {});

// The .model writing makes of the Scene's meshes when it has no kept model that still matches them
// (docs/modedef.md "Writing .model"): welded render mesh, one group and material per mesh, one mode
// per morph target, no tetrahedra, no carton.
ModeDefModel model_from_meshes(const Scene& scene, Diagnostics& diags);

// A .model file as a Scene (kind Model).
Scene read_model(std::string_view text, const std::string& name, Diagnostics& diags);
// A .prop file and the model it names (loaded with `load`, relative to the .prop), kind Prop.
Scene read_prop(std::string_view text, const std::string& name, const SideFileLoader& load, Diagnostics& diags);
// A .state file with every .prop, .model and .path it references (loaded with `load`, relative to
// the .state's folder), kind State: one joint per object, planes as quads, paths as animation.
Scene read_state(std::string_view text, const std::string& name, const SideFileLoader& load, Diagnostics& diags);
// A .path file as a Scene with one joint animated by it (kind Path).
Scene read_path(std::string_view text, const std::string& name, Diagnostics& diags);

// Writers. The main file comes first (empty name); side files (.model beside a .prop; .prop,
// .model and .path beside a .state) follow with their paths relative to the main file's folder.
// `stem` is the output's file name without extension ("" when writing to memory).
std::vector<OutputFile> write_model(const Scene& scene, Diagnostics& diags);
std::vector<OutputFile> write_prop(const Scene& scene, const std::string& stem, Diagnostics& diags);
std::vector<OutputFile> write_state(const Scene& scene, Diagnostics& diags);
std::vector<OutputFile> write_path(const Scene& scene, Diagnostics& diags);

}  // namespace meshport::modedef
