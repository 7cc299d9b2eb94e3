// Animations that animate only morph weights (no frames of joint poses: Animation::channels 0,
// MorphWeightTrack only), for the writers of formats that cannot hold morph weights (IQM, IQE):
// such a clip is left out with a warning naming it, rather than written as an empty animation.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <optional>

namespace meshport::ops {

// Whether `a` animates morph weights only.
bool morph_weights_only(const Animation& a);

// `scene`, or when it has clips of morph weights only a copy in `storage` without them (one
// warning per clip left out, naming it and `format`).
const Scene& without_morph_only_clips(const Scene& scene, std::optional<Scene>& storage, const char* format,
                                      Diagnostics& diags);

}  // namespace meshport::ops
