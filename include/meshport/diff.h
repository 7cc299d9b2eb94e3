// meshport diff: compares two Scenes as a user means "the same model" (docs/diff.md).
//
// Meshes are matched by name (else by geometry) and compared as sets of triangles whose corners
// carry position, texture coordinate and normal, never by vertex index: exporters split and
// reorder vertices. Materials, joints, animations and attachments are matched by name;
// animations are compared by their skinned world-space vertex positions at every frame. Format
// side data (Scene::pie, iqm, qmsh, qmsh_tmp, modedef) is compared field by field.
#pragma once

#include <meshport/scene.h>

#include <string>
#include <vector>

namespace meshport {

struct DiffOptions {
  // Positions (and translations) agree when within tolerance * the larger of the two models'
  // rest bounding-box diagonals (an absolute tolerance when both models are empty or points).
  // Texture coordinates, unit normals, rotations (quaternion components), scales, colours and
  // framerates (relative) agree when within tolerance itself.
  float tolerance = 1e-4f;
};

// One difference. `path` names what differs ("meshes[body].triangles", "pie.version",
// "animations[walk].frames"); `a` and `b` are the values in the first and second Scene as text
// ("2" and "4"; "missing" when one side has no such item); `message` explains when the values
// alone do not.
struct Difference {
  std::string path;
  std::string a, b;
  std::string message;
  bool operator==(const Difference&) const = default;
};

// Every difference between `a` and `b`, in a stable order (meshes, materials, skeleton,
// animations, attachments, comment, format side data). Empty when they are the same model.
// What differs only in data derived from the rest (a mesh without normals against one holding
// the normals it implies) is no difference: it goes to `notes` when given, in the same form.
std::vector<Difference> diff(const Scene& a, const Scene& b, const DiffOptions& options = {},
                             std::vector<Difference>* notes = nullptr);

// "path: a vs b (message)", as `meshport diff` prints it.
std::string to_string(const Difference& d);

}  // namespace meshport
