// glTF writer: levels of detail (Mesh::lod, lod_of) as MSFT_lod.
//
// The node of each level-0 mesh with levels lists their nodes in extensions.MSFT_lod.ids, highest
// detail first (level 1, 2, ...): a viewer with the extension shows one of them in its place.
// The level nodes are left out of the scene's nodes (they are reached through ids only, as the
// extension's readers expect), and "MSFT_lod" goes to extensionsUsed, not extensionsRequired: a
// viewer without it shows level 0. Decision: no extras.MSFT_screencoverage (which screen size
// suits which level depends on the game, not on the mesh). A level mesh whose lod_of is not a
// written level-0 mesh is written as an ordinary mesh node, with a warning.
#include "formats/gltf/gltf_write.h"

#include <algorithm>

namespace meshport::gltf::write_impl {

void emit_lods(Writer& w) {
  const std::vector<Mesh>& meshes = w.scene.meshes;
  std::vector<std::vector<std::pair<uint32_t, int32_t>>> levels(meshes.size());  // per base: (lod, node)
  size_t orphans = 0;
  for (size_t i = 0; i < meshes.size(); ++i) {
    const Mesh& m = meshes[i];
    if (m.lod == 0 || w.mesh_node[i] < 0) continue;
    const int32_t base = m.lod_of;
    if (base < 0 || size_t(base) >= meshes.size() || meshes[size_t(base)].lod != 0 || w.mesh_node[size_t(base)] < 0) {
      ++orphans;
      continue;
    }
    levels[size_t(base)].emplace_back(m.lod, w.mesh_node[i]);
    std::erase(w.scene_nodes, size_t(w.mesh_node[i]));
  }
  if (orphans)
    wwarn(w.diags, fmt::format("{} level-of-detail meshes whose level-0 mesh is not written are written as meshes of "
                               "their own",
                               orphans));
  bool any = false;
  for (size_t b = 0; b < meshes.size(); ++b) {
    if (levels[b].empty()) continue;
    std::stable_sort(levels[b].begin(), levels[b].end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    json ids = json::array();
    for (const auto& level : levels[b]) ids.push_back(level.second);
    w.nodes[size_t(w.mesh_node[b])]["extensions"]["MSFT_lod"] = {{"ids", std::move(ids)}};
    any = true;
  }
  if (any) list_extension(w.root, "extensionsUsed", "MSFT_lod");
}

}  // namespace meshport::gltf::write_impl
