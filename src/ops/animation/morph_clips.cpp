#include "ops/animation/morph_clips.h"

#include <fmt/format.h>

#include <algorithm>

namespace meshport::ops {

bool morph_weights_only(const Animation& a) { return a.frame_count() == 0 && !a.morph_weights.empty(); }

const Scene& without_morph_only_clips(const Scene& scene, std::optional<Scene>& storage, const char* format,
                                      Diagnostics& diags) {
  if (std::none_of(scene.animations.begin(), scene.animations.end(), morph_weights_only)) return scene;
  storage = scene;
  std::vector<Animation> kept;
  for (Animation& a : storage->animations) {
    if (!morph_weights_only(a)) {
      kept.push_back(std::move(a));
      continue;
    }
    diags.add(warning("", fmt::format("animation '{}' animates only morph weights, which {} cannot hold: left out",
                                      a.name, format)));
  }
  storage->animations = std::move(kept);
  return *storage;
}

}  // namespace meshport::ops
