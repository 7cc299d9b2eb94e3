// glTF reader: mesh extras.meshport.morph_ranges (gltf_morph_ranges.h). The Scene meshes read
// from a glTF mesh whose targets encode weights outside [0, 1] get their own targets, default
// weights and weight tracks back; malformed extras leave the targets as read, with a warning.
#include "formats/gltf/gltf_morph_ranges.h"
#include "formats/gltf/gltf_read.h"

#include <set>

namespace meshport::gltf::read_impl {

namespace {

// The Scene meshes read from glTF mesh `g`: its primitives, per node that draws it (or once, when
// no node does).
std::set<size_t> scene_meshes_of(const Reader& rd, size_t g) {
  std::set<size_t> out;
  const size_t prims = rd.meshes[g].size();
  for (const Node& n : rd.nodes)
    if (n.mesh && *n.mesh == g && n.scene_mesh >= 0)
      for (size_t p = 0; p < prims; ++p) out.insert(size_t(n.scene_mesh) + p);
  if (out.empty() && g < rd.mesh_scene.size() && rd.mesh_scene[g] >= 0)
    for (size_t p = 0; p < prims; ++p) out.insert(size_t(rd.mesh_scene[g]) + p);
  std::erase_if(out, [&](size_t m) { return m >= rd.scene.meshes.size(); });
  return out;
}

}  // namespace

void restore_morph_ranges(Reader& rd) {
  const json& meshes = rd.top("meshes");
  for (size_t g = 0; g < meshes.size() && g < rd.meshes.size(); ++g) {
    const json* mp = meshes[g].is_object() ? meshport_extras(meshes[g]) : nullptr;
    const json* ranges = mp && mp->is_object() ? field(*mp, "morph_ranges") : nullptr;
    if (!ranges) continue;
    const std::set<size_t> scene_meshes = scene_meshes_of(rd, g);
    if (scene_meshes.empty()) continue;
    const size_t targets = rd.scene.meshes[*scene_meshes.begin()].morph_targets.size();
    MorphRanges r;
    try {
      r = morph_ranges_from_json(*ranges, targets);
      for (size_t m : scene_meshes)
        if (rd.scene.meshes[m].morph_targets.size() != targets)
          fail("", fmt::format("morph_ranges: the primitives have {} and {} morph targets", targets,
                               rd.scene.meshes[m].morph_targets.size()));
    } catch (const Error& e) {
      rd.warn(fmt::format("meshes[{}].extras.meshport.{}; its {} morph targets are read as they are, weights in "
                          "their encoded form",
                          g, e.diagnostic().message, targets));
      continue;
    }
    for (size_t m : scene_meshes) {
      std::vector<MorphWeightTrack*> tracks;
      for (Animation& a : rd.scene.animations)
        for (MorphWeightTrack& t : a.morph_weights)
          if (t.mesh == int32_t(m)) tracks.push_back(&t);
      merge_morph_ranges(rd.scene.meshes[m], r, tracks);
    }
  }
}

}  // namespace meshport::gltf::read_impl
