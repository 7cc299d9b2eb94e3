// PIE polygons as glTF materials (gltf_pie_polygons.h).
#include "formats/shared/gltf_pie_polygons.h"

#include "formats/shared/gltf_json.h"

#include <meshport/source/pie_mesh.h>

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <map>

namespace meshport::gltf {

using json = nlohmann::json;

namespace {

// A uint32 as Blender can keep it: from 2^31 up, the int32 of the same bits.
json word(uint32_t v) { return v <= 0x7FFFFFFFu ? json(v) : json(int32_t(v)); }

uint32_t read_word(const json& v, const std::string& path) {
  return uint32_t(json_util::integer(v, path, INT32_MIN, UINT32_MAX) & 0xFFFFFFFFu);
}

}  // namespace

bool is_plain(const PiePolygon& p) { return p == PiePolygon{}; }

std::array<uint32_t, 5> polygon_key(const PiePolygon& p) {
  return {p.flags, p.anim_frames, p.anim_rate, std::bit_cast<uint32_t>(p.anim_width), std::bit_cast<uint32_t>(p.anim_height)};
}

std::optional<PolygonGroups> polygon_groups(const Mesh& m) {
  const std::vector<PiePolygon> polygons = pie::mesh_polygons(m);
  if (polygons.empty()) return std::nullopt;
  PolygonGroups g;
  std::map<std::array<uint32_t, 5>, size_t> group;  // by polygon_key
  for (size_t t = 0; t < polygons.size(); ++t) {
    auto [it, fresh] = group.emplace(polygon_key(polygons[t]), g.polygons.size());
    if (fresh) {
      g.polygons.push_back(polygons[t]);
      g.triangles.emplace_back();
    }
    g.triangles[it->second].push_back(uint32_t(t));
  }
  return g;
}

void add_polygon_extras(json& extras, const std::string& base, const PiePolygon& p) {
  extras["pie_base"] = json_util::jstring(base);
  json poly = {{"flags", word(p.flags)}};
  if (!is_plain(p)) {
    poly["frames"] = word(p.anim_frames);
    poly["rate"] = word(p.anim_rate);
    poly["width"] = std::isfinite(p.anim_width) ? json(double(p.anim_width)) : json(0.0);
    poly["height"] = std::isfinite(p.anim_height) ? json(double(p.anim_height)) : json(0.0);
  }
  extras["pie_polygon"] = std::move(poly);
}

std::string polygon_material_name(const std::string& base, const PiePolygon& p, size_t same_flags_before) {
  std::string name = fmt::format("{} pie {:x}", base, p.flags);
  if (same_flags_before) name += fmt::format(" #{}", same_flags_before + 1);
  return name;
}

std::optional<PolygonMaterial> polygon_material_of(const json& mp, const std::string& path) {
  const json* poly = json_util::field(mp, "pie_polygon");
  if (!poly) return std::nullopt;
  const std::string pp = json_util::sub(path, "pie_polygon");
  json_util::object(*poly, pp);
  PolygonMaterial r;
  const json* base = json_util::field(mp, "pie_base");
  if (!base) json_util::bad(path, "has pie_polygon but no pie_base");
  r.base = json_util::to_string(*base, json_util::sub(path, "pie_base"));
  json_util::get(*poly, "flags", pp, r.polygon.flags, read_word);
  json_util::get(*poly, "frames", pp, r.polygon.anim_frames, read_word);
  json_util::get(*poly, "rate", pp, r.polygon.anim_rate, read_word);
  json_util::get(*poly, "width", pp, r.polygon.anim_width, json_util::to_float_narrow);
  json_util::get(*poly, "height", pp, r.polygon.anim_height, json_util::to_float_narrow);
  return r;
}

}  // namespace meshport::gltf
