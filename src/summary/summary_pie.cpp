// `meshport info`: the PIE section (Scene::pie, and the levels' meshes and connectors).
#include "summary/summary_parts.h"

#include <algorithm>

namespace meshport::summary_parts {

using nlohmann::json;

namespace {

const char* texture_directive(PieTexture::Kind k) {
  switch (k) {
    case PieTexture::Kind::Texture: return "TEXTURE";
    case PieTexture::Kind::TcMask: return "TCMASK";
    case PieTexture::Kind::NormalMap: return "NORMALMAP";
    case PieTexture::Kind::SpecularMap: return "SPECULARMAP";
  }
  return "?";
}

std::vector<PieTextureSummary> textures(const PieSettings& st) {
  std::vector<PieTextureSummary> out;
  for (const auto& t : st.textures) out.push_back({texture_directive(t.kind), t.tileset, t.file});
  return out;
}

size_t level_connectors(const Scene& s, const PieLevel& l) {
  size_t n = 0;
  for (const auto& a : s.attachments)
    if ((l.mesh >= 0 && a.mesh == l.mesh) || (l.joint >= 0 && a.joint == l.joint)) ++n;
  return n;
}

PieLevelSummary summarize_level(const Scene& s, const PieLevel& l) {
  PieLevelSummary r;
  if (l.mesh >= 0 && size_t(l.mesh) < s.meshes.size()) {
    const Mesh& m = s.meshes[size_t(l.mesh)];
    r.mesh = m.name;
    r.polygons = m.triangles.size() / 3;
    // Texture-animated polygons: flag 0x4000 in the mesh's "pie.flags" face channel.
    if (const FaceChannel* flags = m.find_channel("pie.flags"))
      for (size_t i = 0; i < flags->data.size(); i += std::max<size_t>(flags->components, 1))
        r.texture_animated_polygons += (flags->data[i] & 0x4000) ? 1 : 0;
  }
  r.comment = l.comment;
  r.points = l.points.size();
  r.normals = l.normals;
  r.connectors = level_connectors(s, l);
  if (l.overrides.has_type) r.type = l.overrides.type;
  r.textures = textures(l.overrides);
  if (l.has_animobject) r.animobject = PieAnimObjectSummary{l.animobject.time, l.animobject.cycles, l.animobject.frames.size()};
  if (l.has_shadow_points) r.shadow = PieShadowSummary{l.shadow_points.size(), l.shadow_polygons.size()};
  return r;
}

json textures_json(const std::vector<PieTextureSummary>& list) {
  json t = json::array();
  for (const auto& x : list) t.push_back({{"directive", x.directive}, {"tileset", x.tileset}, {"file", x.file}});
  return t;
}

json level_json(const PieLevelSummary& l) {
  json j = {{"mesh", l.mesh}, {"points", l.points}, {"polygons", l.polygons}, {"normals", l.normals},
            {"connectors", l.connectors}};
  if (!l.comment.empty()) j["comment"] = l.comment;
  if (l.type) j["type"] = fmt::format("{:x}", *l.type);
  if (!l.textures.empty()) j["textures"] = textures_json(l.textures);
  if (l.texture_animated_polygons) j["texture_animated_polygons"] = l.texture_animated_polygons;
  if (l.animobject)
    j["animobject"] = {{"time_ms", l.animobject->time_ms}, {"cycles", l.animobject->cycles}, {"frames", l.animobject->frames}};
  if (l.shadow) j["shadow"] = {{"points", l.shadow->points}, {"polygons", l.shadow->polygons}};
  return j;
}

void textures_text(const std::vector<PieTextureSummary>& list, const char* indent, std::string& out) {
  for (const auto& t : list) put(out, "{}{} tileset {}: {}\n", indent, t.directive, t.tileset, t.file);
}

void level_text(const PieLevelSummary& l, size_t number, std::string& out) {
  put(out, "    level {}{}: {} points, {} polygons{}, {} connectors\n", number,
      l.comment.empty() ? std::string() : fmt::format(" ({})", l.comment), l.points, l.polygons,
      l.normals ? " with normals" : "", l.connectors);
  if (l.type) put(out, "      TYPE {:x}\n", *l.type);
  textures_text(l.textures, "      ", out);
  if (l.texture_animated_polygons) put(out, "      texture animation on {} polygons\n", l.texture_animated_polygons);
  if (l.animobject)
    put(out, "      ANIMOBJECT: {} frames, {} ms per frame, {}\n", l.animobject->frames, l.animobject->time_ms,
        l.animobject->cycles == 0 ? std::string("looping") : fmt::format("{} cycles", l.animobject->cycles));
  if (l.shadow) put(out, "      shadow mesh: {} points, {} polygons\n", l.shadow->points, l.shadow->polygons);
}

}  // namespace

PieSummary summarize_pie(const Scene& scene) {
  const PieData& p = value_or_empty(scene.pie);
  PieSummary r;
  r.version = p.version;
  r.type = p.global.type;
  if (p.global.has_interpolate) r.interpolate = p.global.interpolate;
  r.textures = textures(p.global);
  for (const auto& e : p.events) r.events.push_back({e.type, e.file});
  for (const auto& l : p.levels) r.levels.push_back(summarize_level(scene, l));
  return r;
}

json pie_json(const PieSummary& p) {
  json j = {{"version", p.version}, {"type", fmt::format("{:x}", p.type)}};
  if (p.interpolate) j["interpolate"] = *p.interpolate;
  j["textures"] = textures_json(p.textures);
  j["events"] = json::array();
  for (const auto& e : p.events) j["events"].push_back({{"type", e.type}, {"file", e.file}});
  j["levels"] = json::array();
  for (const auto& l : p.levels) j["levels"].push_back(level_json(l));
  return j;
}

void pie_text(const PieSummary& p, std::string& out) {
  put(out, "  PIE {}: TYPE {:x}{}\n", p.version, p.type,
      p.interpolate ? fmt::format(", INTERPOLATE {}", *p.interpolate) : std::string());
  textures_text(p.textures, "    ", out);
  for (const auto& e : p.events) put(out, "    EVENT {}: {}\n", e.type, e.file);
  for (size_t i = 0; i < p.levels.size(); ++i) level_text(p.levels[i], i + 1, out);
}

}  // namespace meshport::summary_parts
