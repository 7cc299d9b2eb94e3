// Sampling ModeDef .path keys (docs/modedef.md ".state / Into the Scene"): shared by the .state
// reader's animation and `meshport simulate`'s path-driven objects.
#pragma once

#include <meshport/source/modedef.h>

#include <array>
#include <vector>

namespace meshport::ops {

// The value of `keys` (not empty, times not decreasing) at time t: linear between keys, held
// before the first and after the last.
std::array<float, 3> sample_path_keys(const std::vector<ModeDefPathKey>& keys, double t);

}  // namespace meshport::ops
