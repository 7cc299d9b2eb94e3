// glTF reader: EXT_mesh_gpu_instancing on a node (Mesh::instances).
//
// The extension gives per-instance TRANSLATION (VEC3 float), ROTATION (VEC4 float, or normalized
// byte / short) and SCALE (VEC3 float) accessors of one count; an instance's transform is
// T * R * S and the world transform of a vertex is NodeWorld * Instance * p (the instance first).
// The Scene mesh of an instanced node keeps the glTF mesh's own vertices (not baked by the node's
// world matrix) and each Scene instance is NodeWorld * Instance: exactly the file's instance TRS
// when the node's world matrix is the identity, else the product decomposed (a product with shear,
// a non-uniform node scale under a rotated instance, is decomposed best effort with a warning).
// Application-specific attributes ("_ID") are ignored with a warning; a skinned node's instancing
// (which the extension does not define) is ignored with a warning.
#include "formats/gltf/gltf_read.h"

#include "ops/mesh/components.h"

namespace meshport::gltf::read_impl {

std::vector<Transform> read_instances(Reader& rd, uint32_t n) {
  const json& o = rd.element("nodes", n);
  const json* ext = field(o, "extensions");
  const json* inst = ext && ext->is_object() ? field(*ext, "EXT_mesh_gpu_instancing") : nullptr;
  if (!inst) return {};
  const std::string path = fmt::format("nodes[{}].extensions.EXT_mesh_gpu_instancing", n);
  const Node& node = rd.nodes[n];
  if (!inst->is_object()) rd.error(path, fmt::format("is {}, not an object", inst->type_name()));
  if (node.skin) {
    rd.warn(fmt::format("{}: instancing of a skinned node is not defined by the extension; ignored (the mesh is read "
                        "once)",
                        path));
    return {};
  }
  const json* attrs = field(*inst, "attributes");
  if (!attrs || !attrs->is_object()) rd.error(path, "has no 'attributes' object");
  const std::string ap = path + ".attributes";
  const Accessor* acc[3] = {nullptr, nullptr, nullptr};  // TRANSLATION, ROTATION, SCALE
  static const char* names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
  for (auto& [key, val] : attrs->items()) {
    const std::string kp = fmt::format("{}.{}", ap, text::clip(key));
    int slot = -1;
    for (int k = 0; k < 3; ++k)
      if (key == names[k]) slot = k;
    if (slot < 0) {
      rd.warn(fmt::format("{}: instance attribute '{}' is not kept (only TRANSLATION, ROTATION and SCALE are)", kp,
                          text::clip(key)));
      continue;
    }
    auto idx = as_uint(val);
    if (!idx) rd.error(kp, fmt::format("{} is not an accessor index", describe(val)));
    const Accessor& a = accessor(rd, rd.check_index(*idx, kp, "accessors"));
    const bool rotation = slot == 1;
    const bool type_ok = a.comps == (rotation ? 4u : 3u) && a.columns == 1;
    const bool component_ok =
        a.type == ComponentType::Float ||
        (rotation && a.normalized && (a.type == ComponentType::Byte || a.type == ComponentType::Short));
    if (!type_ok || !component_ok)
      rd.error(kp, fmt::format("{} is {}{} {}, not {}", a.path, a.normalized ? "normalized " : "", a.type_name,
                               ops::component_name(a.type),
                               rotation ? "VEC4 float or normalized byte or short" : "VEC3 float"));
    acc[slot] = &a;
  }
  uint64_t count = 0;
  for (int k = 0; k < 3; ++k) {
    if (!acc[k]) continue;
    if (count && acc[k]->count != count)
      rd.error(ap, fmt::format("{} has {} elements but the other attributes have {} (all must have the same count)",
                               acc[k]->path, acc[k]->count, count));
    count = acc[k]->count;
  }
  if (!count) {
    rd.warn(fmt::format("{}: no TRANSLATION, ROTATION or SCALE; read as one instance", path));
    return {};
  }
  // Instances from accessors without a bufferView are zeros the input does not hold.
  bool held = true;
  for (const Accessor* a : acc) held = held && (!a || a->base);
  if (held)
    rd.spend(u128(count) * sizeof(Transform), path, fmt::format("{} instances", count));
  else
    rd.spend_proportional(u128(count) * sizeof(Transform), path, fmt::format("{} instances", count));
  std::vector<float> v[3];
  for (int k = 0; k < 3; ++k)
    if (acc[k]) v[k] = floats(rd, *acc[k]);
  std::vector<Transform> out(static_cast<size_t>(count));
  const bool identity = node.world == mat_identity();
  bool sheared = false;
  for (size_t i = 0; i < out.size(); ++i) {
    Transform& t = out[i];
    if (acc[0]) t.translation = {v[0][i * 3], v[0][i * 3 + 1], v[0][i * 3 + 2]};
    if (acc[1]) t.rotation = unit({v[1][i * 4], v[1][i * 4 + 1], v[1][i * 4 + 2], v[1][i * 4 + 3]});
    if (acc[2]) t.scale = {v[2][i * 3], v[2][i * 3 + 1], v[2][i * 3 + 2]};
    if (identity) continue;
    bool exact = true;
    t = decompose(mat_mul(node.world, mat_from_trs(t.translation, t.rotation, t.scale)), exact);
    sheared = sheared || !exact;
  }
  if (sheared)
    rd.warn(fmt::format("nodes[{}]: the node's world transform times some instance transforms has shear (a non-uniform "
                        "scale under a rotation), which an instance's translation, rotation and scale cannot hold; "
                        "decomposed best effort",
                        n));
  return out;
}

}  // namespace meshport::gltf::read_impl
