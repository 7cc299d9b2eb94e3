// PieData <-> JSON for glTF's extras.meshport.pie; the schema is in gltf_pie.h.
#include "formats/shared/gltf_pie.h"

#include "formats/shared/base64.h"
#include "formats/shared/gltf_json.h"

#include <meshport/source/pie_mesh.h>

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string_view>

namespace meshport::gltf {

namespace {

using json = nlohmann::json;
using json_util::array;
using json_util::bad;
using json_util::field;
using json_util::get;
using json_util::int32;
using json_util::integer;
using json_util::jstring;
using json_util::object;
using json_util::sub;
using json_util::to_bool;
using json_util::to_float_narrow;
using json_util::to_string;

constexpr const char* kPieKinds[] = {"texture", "tcmask", "normalmap", "specularmap"};

// ---- Writing ---------------------------------------------------------------------------------

json pie_jfloat(float f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  return static_cast<double>(f);  // the float's exact value
}

json jstrings(const std::vector<std::string>& v) {
  json r = json::array();
  for (const std::string& s : v) r.push_back(jstring(s));
  return r;
}

template <size_t N>
json jfloats(const std::array<float, N>& a) {
  json r = json::array();
  for (float f : a) r.push_back(pie_jfloat(f));
  return r;
}

json jtexture(const PieTexture& t) {
  return {{"kind", kPieKinds[int(t.kind) & 3]}, {"tileset", t.tileset}, {"file", jstring(t.file)},
          {"has_size", t.has_size},          {"width", t.width},     {"height", t.height}};
}

json jsettings(const PieSettings& s) {
  json textures = json::array();
  for (const PieTexture& t : s.textures) textures.push_back(jtexture(t));
  return {{"has_type", s.has_type},
          {"type", s.type <= uint32_t(INT32_MAX) ? json(s.type) : json(int32_t(s.type))},
          {"has_interpolate", s.has_interpolate},
          {"interpolate", s.interpolate},
          {"textures", std::move(textures)}};
}

json janimobject(const PieAnimObject& a) {
  json frames = json::array();
  for (const PieAnimFrame& f : a.frames)
    frames.push_back(
        {{"frame", f.frame}, {"position", f.position}, {"rotation", f.rotation}, {"scale", jfloats(f.scale)}});
  return {{"time", a.time}, {"cycles", a.cycles}, {"frames", std::move(frames)}};
}

json jpoints(const std::vector<std::array<float, 3>>& points) {
  json r = json::array();
  for (const auto& p : points) r.push_back(jfloats(p));
  return r;
}

json jlevel(const PieLevel& l, const std::vector<int32_t>& gltf_mesh) {
  const bool known = l.mesh >= 0 && size_t(l.mesh) < gltf_mesh.size();
  return {{"mesh", known ? gltf_mesh[size_t(l.mesh)] : -1},
          {"joint", l.joint},
          {"comment", jstring(l.comment)},
          {"overrides", jsettings(l.overrides)},
          {"materials", jstrings(l.materials)},
          {"shaders", jstrings(l.shaders)},
          {"points", jpoints(l.points)},
          {"normals", l.normals},
          {"has_animobject", l.has_animobject},
          {"animobject", janimobject(l.animobject)},
          {"has_shadow_points", l.has_shadow_points},
          {"shadow_points", jpoints(l.shadow_points)},
          {"has_shadow_polygons", l.has_shadow_polygons},
          {"shadow_polygons", l.shadow_polygons}};
}

// ---- Reading ---------------------------------------------------------------------------------

uint32_t uint32(const json& v, const std::string& path) {
  return uint32_t(integer(v, path, 0, std::numeric_limits<uint32_t>::max()));
}
// A bit set (TYPE, polygon flags): also -2^31..-1 for the uint32 of the same bits, since Blender
// keeps only 32-bit signed integers and the writer gives words from 2^31 up that way.
uint32_t word(const json& v, const std::string& path) {
  return uint32_t(integer(v, path, std::numeric_limits<int32_t>::min(), std::numeric_limits<uint32_t>::max()));
}

template <class T, class Convert>
std::vector<T> to_vector(const json& v, const std::string& path, Convert&& convert) {
  array(v, path);
  std::vector<T> r;
  r.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) r.push_back(convert(v[i], sub(path, i)));
  return r;
}

template <class T, size_t N, class Convert>
std::array<T, N> to_array(const json& v, const std::string& path, Convert&& convert) {
  array(v, path, N);
  std::array<T, N> r{};
  for (size_t i = 0; i < N; ++i) r[i] = convert(v[i], sub(path, i));
  return r;
}

std::array<float, 3> to_point(const json& v, const std::string& path) {
  return to_array<float, 3>(v, path, to_float_narrow);
}
std::array<int32_t, 3> to_int3(const json& v, const std::string& path) { return to_array<int32_t, 3>(v, path, int32); }
std::array<uint32_t, 3> to_uint3(const json& v, const std::string& path) {
  return to_array<uint32_t, 3>(v, path, uint32);
}

PieTexture to_texture(const json& v, const std::string& path) {
  object(v, path);
  PieTexture t;
  std::string kind = kPieKinds[0];
  get(v, "kind", path, kind, to_string);
  size_t k = 0;
  while (k < 4 && kind != kPieKinds[k]) ++k;
  if (k == 4) bad(sub(path, "kind"), fmt::format("'{}' is not a texture kind", kind));
  t.kind = PieTexture::Kind(k);
  get(v, "tileset", path, t.tileset, int32);
  get(v, "file", path, t.file, to_string);
  get(v, "has_size", path, t.has_size, to_bool);
  get(v, "width", path, t.width, int32);
  get(v, "height", path, t.height, int32);
  return t;
}

PieSettings to_settings(const json& v, const std::string& path) {
  object(v, path);
  PieSettings s;
  get(v, "has_type", path, s.has_type, to_bool);
  get(v, "type", path, s.type, word);
  get(v, "has_interpolate", path, s.has_interpolate, to_bool);
  get(v, "interpolate", path, s.interpolate, int32);
  if (const json* t = field(v, "textures")) s.textures = to_vector<PieTexture>(*t, sub(path, "textures"), to_texture);
  return s;
}

PieEvent to_event(const json& v, const std::string& path) {
  object(v, path);
  PieEvent e;
  get(v, "type", path, e.type, int32);
  get(v, "file", path, e.file, to_string);
  return e;
}

PiePolygon to_polygon(const json& v, const std::string& path) {
  array(v, path);
  if (v.size() != 1 && v.size() != 5) bad(path, fmt::format("has {} entries, not 1 or 5", v.size()));
  PiePolygon p;
  p.flags = word(v[0], sub(path, 0));
  if (v.size() == 1) return p;
  p.anim_frames = uint32(v[1], sub(path, 1));
  p.anim_rate = uint32(v[2], sub(path, 2));
  p.anim_width = to_float_narrow(v[3], sub(path, 3));
  p.anim_height = to_float_narrow(v[4], sub(path, 4));
  return p;
}

PieAnimFrame to_frame(const json& v, const std::string& path) {
  object(v, path);
  PieAnimFrame f;
  get(v, "frame", path, f.frame, int32);
  get(v, "position", path, f.position, to_int3);
  get(v, "rotation", path, f.rotation, to_int3);
  get(v, "scale", path, f.scale, to_point);
  return f;
}

PieAnimObject to_animobject(const json& v, const std::string& path) {
  object(v, path);
  PieAnimObject a;
  get(v, "time", path, a.time, int32);
  get(v, "cycles", path, a.cycles, int32);
  if (const json* f = field(v, "frames")) a.frames = to_vector<PieAnimFrame>(*f, sub(path, "frames"), to_frame);
  return a;
}

// An index that must be -1 or below `count`.
int32_t index_or_none(const json& v, const std::string& path, size_t count, const char* what) {
  const int32_t i = int32(v, path);
  if (i < -1 || (i >= 0 && size_t(i) >= count))
    bad(path, fmt::format("{} {} does not exist (there are {})", what, i, count));
  return i;
}

PieLevel to_level(const json& v, const std::string& path, const std::vector<int32_t>& scene_mesh, size_t joints,
                  PieLegacyLevel& legacy) {
  object(v, path);
  PieLevel l;
  if (const json* m = field(v, "mesh")) {
    const int32_t g = index_or_none(*m, sub(path, "mesh"), scene_mesh.size(), "glTF mesh");
    l.mesh = g < 0 ? -1 : scene_mesh[size_t(g)];
  }
  if (const json* j = field(v, "joint")) l.joint = index_or_none(*j, sub(path, "joint"), joints, "joint");
  get(v, "comment", path, l.comment, to_string);
  get(v, "overrides", path, l.overrides, to_settings);
  auto strings = [](const json& x, const std::string& p) { return to_vector<std::string>(x, p, to_string); };
  auto points = [](const json& x, const std::string& p) { return to_vector<std::array<float, 3>>(x, p, to_point); };
  get(v, "materials", path, l.materials, strings);
  get(v, "shaders", path, l.shaders, strings);
  get(v, "points", path, l.points, points);
  get(v, "vertex_point", path, legacy.vertex_point,
      [](const json& x, const std::string& p) { return to_vector<uint32_t>(x, p, uint32); });
  get(v, "normals", path, l.normals, to_bool);
  get(v, "polygons", path, legacy.polygons,
      [](const json& x, const std::string& p) { return to_vector<PiePolygon>(x, p, to_polygon); });
  get(v, "has_animobject", path, l.has_animobject, to_bool);
  get(v, "animobject", path, l.animobject, to_animobject);
  get(v, "has_shadow_points", path, l.has_shadow_points, to_bool);
  get(v, "shadow_points", path, l.shadow_points, points);
  get(v, "has_shadow_polygons", path, l.has_shadow_polygons, to_bool);
  get(v, "shadow_polygons", path, l.shadow_polygons,
      [](const json& x, const std::string& p) { return to_vector<std::array<uint32_t, 3>>(x, p, to_uint3); });
  return l;
}

}  // namespace

json pie_to_json(const PieData& pie, const std::vector<int32_t>& gltf_mesh) {
  json events = json::array();
  for (const PieEvent& e : pie.events) events.push_back({{"type", e.type}, {"file", jstring(e.file)}});
  json levels = json::array();
  for (const PieLevel& l : pie.levels) levels.push_back(jlevel(l, gltf_mesh));
  return {{"version", pie.version},
          {"global", jsettings(pie.global)},
          {"events", std::move(events)},
          {"levels", std::move(levels)}};
}

PieData pie_from_json(const json& j, const std::string& path, const std::vector<int32_t>& scene_mesh, size_t joints,
                      std::vector<PieLegacyLevel>* legacy) {
  object(j, path);
  PieData pie;
  get(j, "version", path, pie.version, int32);
  get(j, "global", path, pie.global, to_settings);
  if (const json* e = field(j, "events")) pie.events = to_vector<PieEvent>(*e, sub(path, "events"), to_event);
  if (const json* l = field(j, "levels")) {
    const std::string lp = sub(path, "levels");
    array(*l, lp);
    std::vector<PieLegacyLevel> old(l->size());
    for (size_t i = 0; i < l->size(); ++i)
      pie.levels.push_back(to_level((*l)[i], sub(lp, i), scene_mesh, joints, old[i]));
    if (legacy) *legacy = std::move(old);
  }
  return pie;
}

void apply_pie_legacy(const PieData& pie, const std::vector<PieLegacyLevel>& legacy, std::vector<Mesh>& meshes) {
  for (size_t i = 0; i < pie.levels.size() && i < legacy.size(); ++i) {
    const int32_t mi = pie.levels[i].mesh;
    if (mi < 0 || size_t(mi) >= meshes.size()) continue;
    Mesh& m = meshes[size_t(mi)];
    const PieLegacyLevel& old = legacy[i];
    if (!old.polygons.empty() && old.polygons.size() == m.triangles.size() / 3 && !m.find_channel(pie::kFlagsChannel))
      for (FaceChannel& c : pie::polygon_channels(old.polygons)) m.face_channels.push_back(std::move(c));
    if (!old.vertex_point.empty() && old.vertex_point.size() == m.vertex_count() && !pie::point_stream(m)) {
      VertexStream s;
      s.attribute = Attribute::Custom;
      s.name = std::string(pie::kPointStream);
      s.components = 1;
      for (uint32_t p : old.vertex_point) s.data.push_back(float(p));
      m.streams.push_back(std::move(s));
    }
  }
}

}  // namespace meshport::gltf
