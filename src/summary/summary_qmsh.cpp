// `meshport info`: the TFQMSH10 (Scene::qmsh) and QMSH TMP 10 (Scene::qmsh_tmp) sections.
#include "summary/summary_parts.h"

namespace meshport::summary_parts {

using nlohmann::json;

QmshSummary summarize_qmsh(const QmshBinaryData& q) {
  return {(q.flags & 1) != 0, (q.flags & 2) != 0, q.radius, q.animation_lengths};
}

json qmsh_json(const QmshSummary& q) {
  json j = {{"tangents", q.tangents}, {"skinning", q.skinning}, {"radius", shortest(q.radius)}};
  j["animation_lengths"] = json::array();
  for (float l : q.animation_lengths) j["animation_lengths"].push_back(shortest(l));
  return j;
}

void qmsh_text(const QmshSummary& q, std::string& out) {
  put(out, "  TFQMSH10: {}{}bounding radius {}\n", q.tangents ? "tangents, " : "", q.skinning ? "skinning, " : "", q.radius);
}

QmshTmpSummary summarize_qmsh_tmp(const QmshTmpData& q) {
  QmshTmpSummary r;
  for (const auto& m : q.meshes)
    r.objects.push_back({m.name, m.vertices.size(), m.faces.size(), m.materials, m.auto_smooth_angle});
  if (q.has_armature) r.armature = QmshTmpArmatureSummary{q.armature.name, q.armature.bones.size()};
  for (const auto& a : q.actions) {
    size_t curves = 0;
    for (const auto& c : a.channels) curves += c.curves.size();
    r.actions.push_back({a.name, a.channels.size(), curves});
  }
  if (!q.fps.empty()) r.fps = q.fps.back();
  return r;
}

json qmsh_tmp_json(const QmshTmpSummary& q) {
  json j = {{"objects", json::array()}, {"actions", json::array()}};
  for (const auto& m : q.objects)
    j["objects"].push_back({{"mesh", m.mesh}, {"vertices", m.vertices}, {"faces", m.faces}, {"materials", m.materials},
                            {"auto_smooth_angle", shortest(m.auto_smooth_angle)}});
  if (q.armature) j["armature"] = {{"name", q.armature->name}, {"bones", q.armature->bones}};
  for (const auto& a : q.actions)
    j["actions"].push_back({{"name", a.name}, {"channels", a.channels}, {"curves", a.curves}});
  if (q.fps) j["fps"] = *q.fps;
  return j;
}

void qmsh_tmp_text(const QmshTmpSummary& q, std::string& out) {
  put(out, "  QMSH TMP 10: {} mesh objects{}, {} actions{}\n", q.objects.size(),
      q.armature ? fmt::format(", armature \"{}\" with {} bones", q.armature->name, q.armature->bones) : std::string(),
      q.actions.size(), q.fps ? fmt::format(", {} fps", *q.fps) : std::string());
  for (const auto& m : q.objects)
    put(out, "    object \"{}\": {} vertices, {} faces, {} materials, auto-smooth {}°\n", m.mesh, m.vertices, m.faces,
        m.materials.size(), m.auto_smooth_angle);
}

}  // namespace meshport::summary_parts
