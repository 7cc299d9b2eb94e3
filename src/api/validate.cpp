// meshport validate's checks beyond reading (validate.h).
#include <meshport/validate.h>

#include <fmt/format.h>

#include <cmath>

namespace meshport {

// Influences (weight other than 0) on a joint the skeleton does not have: every writer drops
// them with a warning, so `validate` reports them as errors, one per mesh (its first vertex, and
// how many more).
void validate_scene(const Scene& s, const std::string& file, Diagnostics& diags) {
  const double joints = double(s.joints.size());
  for (size_t i = 0; i < s.meshes.size(); ++i) {
    const Mesh& m = s.meshes[i];
    const VertexStream* bi = m.find(Attribute::BlendIndices);
    const VertexStream* bw = m.find(Attribute::BlendWeights);
    if (!bi) continue;
    size_t bad = 0, first_vertex = 0;
    float first_index = 0;
    for (size_t v = 0; v < bi->vertex_count(); ++v) {
      bool hit = false;
      for (uint32_t c = 0; c < bi->components && !hit; ++c) {
        const float j = bi->get(v, c);
        if (bw && bw->vertex_count() == bi->vertex_count() && bw->get(v, c) == 0) continue;
        if (j >= 0 && j < joints && j == std::floor(j)) continue;
        hit = true;
        if (!bad) first_vertex = v, first_index = j;
      }
      bad += hit;
    }
    if (!bad) continue;
    Diagnostic d;
    d.file = file;
    d.message = fmt::format(
        "mesh {} ('{}'): vertex {} has blend index {}, outside the skeleton of {} joints{}; writers drop such "
        "influences",
        i, m.name, first_vertex, first_index, s.joints.size(),
        bad > 1 ? fmt::format(" ({} vertices in all)", bad) : std::string());
    diags.add(std::move(d));
  }
}

}  // namespace meshport
