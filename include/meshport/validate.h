// Validation beyond reading: what a file holds that every writer would drop or refuse.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <string>

namespace meshport {

// Adds an error to `diags`, naming `file`, for what every writer would drop (meshport validate
// runs it after read()): per mesh, blend influences (weight other than 0) on joints the skeleton
// does not have, with the first vertex and index and how many vertices have them.
void validate_scene(const Scene& scene, const std::string& file, Diagnostics& diags);

}  // namespace meshport
