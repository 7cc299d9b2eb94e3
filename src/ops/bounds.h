// Bounds: boxes and spheres of meshes at rest and, with skinning, per animation frame.
#pragma once

#include <meshport/meshport.h>

namespace meshport::ops {

// Axis-aligned box over every mesh's rest positions (Scene convention).
Bounds rest_bounds(const Scene& scene);

}  // namespace meshport::ops
