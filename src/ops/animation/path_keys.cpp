// Sampling ModeDef .path keys (path_keys.h).
#include "ops/animation/path_keys.h"

#include <algorithm>

namespace meshport::ops {

std::array<float, 3> sample_path_keys(const std::vector<ModeDefPathKey>& keys, double t) {
  if (t <= double(keys.front().time)) return keys.front().value;
  // The last key at or before t.
  auto it = std::upper_bound(keys.begin(), keys.end(), t,
                             [](double v, const ModeDefPathKey& k) { return v < double(k.time); });
  const size_t i = size_t(it - keys.begin()) - 1;
  if (i + 1 >= keys.size()) return keys.back().value;
  const ModeDefPathKey& a = keys[i];
  const ModeDefPathKey& b = keys[i + 1];
  const double u = (t - double(a.time)) / (double(b.time) - double(a.time));
  std::array<float, 3> v;
  for (size_t c = 0; c < 3; ++c) v[c] = float(double(a.value[c]) + (double(b.value[c]) - double(a.value[c])) * u);
  return v;
}

}  // namespace meshport::ops
