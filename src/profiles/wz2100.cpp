// The "wz2100" profile: what Warzone 2100 4.x enforces when it loads a PIE model
// (docs/profiles.md). Levels are the PIE levels of a Scene read from PIE (Scene::pie), else the
// meshes the PIE writer would make levels of (every triangle mesh with triangles, in order).
#include "profiles/profile_report.h"

#include "core/text.h"
#include "ops/animation/skinning.h"

#include <meshport/source/pie_mesh.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <set>

namespace meshport::profiles_detail {

namespace {

constexpr size_t kMaxPolygons = 8192;  // Warzone 2100 4.4+: POLYGONS above it is fatal
constexpr size_t kDocPoints = 768;     // doc/PIE.md's POINTS limit (not checked by the 4.x loader)
constexpr uint32_t kTextured = 0x200;
constexpr uint32_t kTexAnim = 0x4000;

}  // namespace

ProfileInfo wz2100_profile() {
  ProfileInfo p;
  p.name = "wz2100";
  p.description = "Warzone 2100 4.x: what its PIE loader and renderer accept";
  p.rules = {
      {"wz2100.polygons-per-level", Severity::Error, "at most 8192 polygons (triangles) per level",
       "Warzone 2100 4.4+ imdload.cpp: the loader refuses POLYGONS above 8192 (levels are drawn with 16-bit "
       "indices); the 512 of the PIE 2/3 specification (doc/PIE.md) is obsolete"},
      {"wz2100.points-per-level", Severity::Warning, "at most 768 points per level",
       "Warzone 2100 doc/PIE.md (POINTS: \"must be less than or equal to 768\"); older engines drew through "
       "a 768-entry buffer (pie_MAX_VERTICES); the 4.4+ loader reads any count"},
      {"wz2100.texture-name", Severity::Error,
       "texture pages end in .png (case-sensitive) and use only the characters A-Z a-z 0-9 . _ -",
       "Warzone 2100 doc/PIE.md (TEXTURE: \"must only contain the characters [a-zA-Z0-9._\\-]\"); imdload.cpp "
       "refuses a page that is not .png (\"Only png textures supported\")"},
      {"wz2100.texture-page-prefix", Severity::Warning, "a TEXTURE page is named page-NN-...",
       "Warzone 2100 doc/PIE.md (TEXTURE: \"should start with page-NN- for correct handling of dynamic texture "
       "replacement\": the tileset replacement of WRF files)"},
      {"wz2100.map-name", Severity::Warning,
       "team colour, normal and specular maps are .png pages (A-Z a-z 0-9 . _ -)",
       "imdload.cpp refuses NORMALMAP / SPECULARMAP pages that are not .png; meshport's PIE writer leaves such "
       "a map out (docs/pie.md)"},
      {"wz2100.no-texture", Severity::Warning, "the model has a TEXTURE page",
       "Warzone 2100 doc/PIE.md (TEXTURE: \"In theory you could leave out this line, but in practice that makes "
       "your models useless\")"},
      {"wz2100.polygon-flags", Severity::Error, "every polygon has flag 0x200 (textured)",
       "Warzone 2100 doc/PIE.md (\"Each entry in POLYGONS must have this flag\"); imdload.cpp refuses 0x4000 "
       "without 0x200"},
      {"wz2100.texanim-frame-size", Severity::Error,
       "texture-animated polygons have a positive, finite frame width and height",
       "imdload.cpp _imd_load_polys: asserts width > 0 and height > 0 and divides by the width (frames per "
       "line = 1 / width)"},
      {"wz2100.texanim-frames", Severity::Warning,
       "texture-animated polygons have at least 2 frames and a rate of at least 1 ms",
       "imdload.cpp _imd_load_polys: asserts frames > 1 and rate > 0"},
      {"wz2100.texanim-uniform", Severity::Warning,
       "the texture-animated polygons of a level share one frame count and rate",
       "imdload.cpp _imd_load_polys: asserts \"varying number of frames / animation intervals within one PIE "
       "level\" and uses the first polygon's values for the whole level"},
      {"wz2100.normals-per-polygon", Severity::Warning,
       "NORMALS give 3 normals for every polygon (count = POLYGONS)",
       "Warzone 2100 doc/PIE.md and imdload.cpp: a NORMALS count different from POLYGONS discards the whole block "
       "(the level is shaded flat)"},
      {"wz2100.normalmap-needs-normals", Severity::Warning, "a level with a normal map has NORMALS",
       "Warzone 2100 doc/PIE.md (NORMALS): without NORMALS the engine generates no tangents and reads the "
       "NORMALMAP as an object-space map"},
      {"wz2100.connector-integer", Severity::Warning, "connector coordinates are whole numbers",
       "imdload.cpp _imd_load_connectors: reads each coordinate as an integer (%d) and skips a fractional "
       "part"},
      {"wz2100.connector-rotation", Severity::Warning, "connectors are points (no rotation or scale)",
       "the PIE 2/3 specification, Warzone 2100 doc/PIE.md (CONNECTORS: x y z per line); meshport's PIE writer leaves rotation and scale out"},
      {"wz2100.skinning", Severity::Warning, "an animated level moves rigidly, bound to one joint",
       "the PIE 2/3 specification, Warzone 2100 doc/PIE.md (ANIMOBJECT: one transform per level and frame); meshport's PIE writer keeps a mesh "
       "skinned to several joints in its rest pose"},
      {"wz2100.triangles-only", Severity::Warning, "levels are triangles (no line or point meshes)",
       "the PIE 2/3 specification, Warzone 2100 doc/PIE.md (polygons: \"Only triangles are supported\"); meshport's PIE writer leaves line and point "
       "meshes out"},
      {"wz2100.empty-level", Severity::Warning, "every level has polygons",
       "Warzone 2100 4.x imdload.cpp: an empty level (POINTS 0 or POLYGONS 0) loads with a warning and draws nothing"},
  };
  return p;
}

namespace {

// One PIE level as the writer would make it.
struct Level {
  size_t number = 0;           // 1-based
  const Mesh* mesh = nullptr;  // null for an empty level
  int32_t mesh_index = -1;
  const PieLevel* pie = nullptr;
};

bool is_level_mesh(const Mesh& m) { return m.topology == Topology::Triangles && !m.triangles.empty(); }

std::vector<Level> levels_of(const Scene& scene) {
  std::vector<Level> out;
  std::vector<bool> named(scene.meshes.size(), false);
  if (scene.pie) {
    for (const PieLevel& pl : scene.pie->levels) {
      Level l;
      l.number = out.size() + 1;
      l.pie = &pl;
      if (pl.mesh >= 0 && size_t(pl.mesh) < scene.meshes.size()) {
        named[size_t(pl.mesh)] = true;
        if (is_level_mesh(scene.meshes[size_t(pl.mesh)])) {
          l.mesh = &scene.meshes[size_t(pl.mesh)];
          l.mesh_index = pl.mesh;
        }
      }
      out.push_back(l);
    }
  }
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    if (named[i] || !is_level_mesh(scene.meshes[i])) continue;
    Level l;
    l.number = out.size() + 1;
    l.mesh = &scene.meshes[i];
    l.mesh_index = int32_t(i);
    out.push_back(l);
  }
  return out;
}

std::string_view file_name(std::string_view path) {
  size_t cut = path.find_last_of("/\\");
  return cut == std::string_view::npos ? path : path.substr(cut + 1);
}

bool page_chars_ok(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

bool valid_page(std::string_view name) {
  return name.size() > 4 && name.ends_with(".png") && page_chars_ok(name);
}

// "page-" digits "-"
bool has_page_prefix(std::string_view name) {
  if (!name.starts_with("page-")) return false;
  size_t i = 5;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
  return i > 5 && i < name.size() && name[i] == '-';
}

const char* kind_name(PieTexture::Kind k) {
  switch (k) {
    case PieTexture::Kind::Texture: return "TEXTURE";
    case PieTexture::Kind::TcMask: return "TCMASK";
    case PieTexture::Kind::NormalMap: return "NORMALMAP";
    case PieTexture::Kind::SpecularMap: return "SPECULARMAP";
  }
  return "TEXTURE";
}

std::string num(float v) { return fmt::format("{}", v); }

const Material* material_of(const Scene& scene, const Mesh& m) {
  return m.material >= 0 && size_t(m.material) < scene.materials.size() ? &scene.materials[size_t(m.material)]
                                                                          : nullptr;
}

// ---- Textures ----------------------------------------------------------------------------------

void check_pie_textures(const PieData& pie, const Report& report) {
  bool any_texture = false;
  auto check = [&](const PieTexture& t, std::string_view scope) {
    if (t.kind == PieTexture::Kind::Texture) any_texture = true;
    if (!valid_page(t.file))
      report("wz2100.texture-name", fmt::format("{}{} {}: not a .png page of the characters A-Z a-z 0-9 . _ -; the "
                                                "engine refuses it",
                                                scope, kind_name(t.kind), text::quoted(t.file)));
    else if (t.kind == PieTexture::Kind::Texture && !has_page_prefix(t.file))
      report("wz2100.texture-page-prefix",
             fmt::format("{}TEXTURE {} does not start with page-NN-: the tileset replacement cannot swap it",
                         scope, text::quoted(t.file)));
  };
  for (const PieTexture& t : pie.global.textures) check(t, "");
  for (size_t i = 0; i < pie.levels.size(); ++i)
    for (const PieTexture& t : pie.levels[i].overrides.textures) check(t, fmt::format("level {}: ", i + 1));
  if (!any_texture) report("wz2100.no-texture", "the model has no TEXTURE page: it draws untextured");
}

// A Scene not read from PIE: the writer takes TEXTURE from the base colour texture of the level
// meshes' materials and the maps from their other slots (file names without folders).
void check_material_textures(const Scene& scene, const std::vector<Level>& levels, const Report& report) {
  std::set<int32_t> used;
  for (const Level& l : levels)
    if (l.mesh && material_of(scene, *l.mesh)) used.insert(l.mesh->material);
  bool any_texture = false;
  for (int32_t mi : used) {
    const Material& m = scene.materials[size_t(mi)];
    if (!m.base_color_texture.empty()) {
      any_texture = true;
      std::string_view page = file_name(m.base_color_texture);
      if (!valid_page(page))
        report("wz2100.texture-name",
               fmt::format("material {}: base colour texture {} is not a .png page of the characters A-Z a-z 0-9 . _ "
                           "-; the engine refuses it",
                           text::quoted(m.name), text::quoted(page)));
      else if (!has_page_prefix(page))
        report("wz2100.texture-page-prefix",
               fmt::format("material {}: texture page {} does not start with page-NN-: the tileset replacement "
                           "cannot swap it",
                           text::quoted(m.name), text::quoted(page)));
    }
    const std::pair<const char*, const std::string*> maps[] = {
        {"team colour", &m.team_colour_texture}, {"normal", &m.normal_texture}, {"specular", &m.specular_texture}};
    for (const auto& [what, path] : maps)
      if (!path->empty() && !valid_page(file_name(*path)))
        report("wz2100.map-name", fmt::format("material {}: {} map {} is not a .png page; it is left out",
                                              text::quoted(m.name), what, text::quoted(file_name(*path))));
  }
  if (!any_texture) report("wz2100.no-texture", "no level has a base colour texture: the model draws untextured");
}

// ---- Per level ---------------------------------------------------------------------------------

size_t distinct_positions(const Mesh& m) {
  const VertexStream* pos = m.find(Attribute::Position);
  if (!pos) return 0;
  std::vector<std::array<float, 3>> points;
  points.reserve(pos->vertex_count());
  for (size_t v = 0; v < pos->vertex_count(); ++v) points.push_back({pos->get(v, 0), pos->get(v, 1), pos->get(v, 2)});
  std::sort(points.begin(), points.end());
  return size_t(std::unique(points.begin(), points.end()) - points.begin());
}

void check_counts(const Level& l, const Report& report) {
  if (!l.mesh) {
    report("wz2100.empty-level", fmt::format("level {} has no polygons: it draws nothing", l.number));
    return;
  }
  const size_t polygons = l.mesh->triangles.size() / 3;
  if (polygons > kMaxPolygons)
    report("wz2100.polygons-per-level", fmt::format("level {} has {} polygons; the engine refuses more than {}",
                                                    l.number, polygons, kMaxPolygons));
  const size_t points = l.pie && l.pie->mesh == l.mesh_index ? l.pie->points.size() : distinct_positions(*l.mesh);
  if (points > kDocPoints)
    report("wz2100.points-per-level", fmt::format("level {} has {} points; doc/PIE.md allows at most {}", l.number,
                                                  points, kDocPoints));
}

void check_polygons(const Level& l, const Report& report) {
  if (!l.mesh) return;
  const std::vector<PiePolygon> polys = pie::mesh_polygons(*l.mesh);
  size_t untextured = 0, bad_size = 0, bad_frames = 0;
  std::optional<std::pair<uint32_t, uint32_t>> first;  // frames, rate of the first animated polygon
  size_t varying = 0;
  for (const PiePolygon& p : polys) {
    if (!(p.flags & kTextured)) ++untextured;
    if (!(p.flags & kTexAnim)) continue;
    if (!(std::isfinite(p.anim_width) && std::isfinite(p.anim_height) && p.anim_width > 0 && p.anim_height > 0))
      ++bad_size;
    if (p.anim_frames < 2 || p.anim_rate < 1) ++bad_frames;
    if (!first) first = std::pair{p.anim_frames, p.anim_rate};
    else if (first->first != p.anim_frames || first->second != p.anim_rate) ++varying;
  }
  if (untextured)
    report("wz2100.polygon-flags", fmt::format("level {}: {} of {} polygons lack flag 0x200 (textured)", l.number,
                                               untextured, polys.size()));
  if (bad_size)
    report("wz2100.texanim-frame-size",
           fmt::format("level {}: {} texture-animated polygons have a frame width or height that is not positive; "
                       "the engine divides by it",
                       l.number, bad_size));
  if (bad_frames)
    report("wz2100.texanim-frames",
           fmt::format("level {}: {} texture-animated polygons have fewer than 2 frames or a rate below 1", l.number,
                       bad_frames));
  if (varying)
    report("wz2100.texanim-uniform",
           fmt::format("level {}: {} texture-animated polygons differ from the first one's {} frames at {} ms; the "
                       "engine uses the first one's for the whole level",
                       l.number, varying, first->first, first->second));
}

bool has_normal_map(const PieData& pie, const PieLevel& pl) {
  auto has = [](const PieSettings& s) {
    return std::any_of(s.textures.begin(), s.textures.end(),
                       [](const PieTexture& t) { return t.kind == PieTexture::Kind::NormalMap; });
  };
  return has(pl.overrides) || has(pie.global);
}

void check_normals(const Scene& scene, const Level& l, const Report& report) {
  if (!l.mesh) return;
  const VertexStream* normals = l.mesh->find(Attribute::Normal);
  if (normals && normals->vertex_count() != l.mesh->vertex_count())
    report("wz2100.normals-per-polygon",
           fmt::format("level {}: normals cover {} of {} vertices, so NORMALS cannot give 3 per polygon; the engine "
                       "discards them",
                       l.number, normals->vertex_count(), l.mesh->vertex_count()));
  const bool from_pie = l.pie && l.pie->mesh == l.mesh_index;
  if (from_pie && l.pie->normals && !normals)
    report("wz2100.normals-per-polygon",
           fmt::format("level {} had NORMALS but its mesh has no normals: they are lost", l.number));
  bool normal_map = false, with_normals = false;
  if (from_pie && scene.pie) {
    normal_map = has_normal_map(*scene.pie, *l.pie);
    with_normals = l.pie->normals;
  } else {
    const Material* m = material_of(scene, *l.mesh);
    normal_map = m && !m->normal_texture.empty();
    with_normals = normals != nullptr;
  }
  if (normal_map && !with_normals)
    report("wz2100.normalmap-needs-normals",
           fmt::format("level {} has a normal map but no NORMALS: the engine reads it as an object-space map",
                       l.number));
}

// A mesh that moves rigidly with one joint (the only animation an ANIMOBJECT level has).
bool rigid(const Mesh& m) {
  const VertexStream* idx = m.find(Attribute::BlendIndices);
  const VertexStream* wgt = m.find(Attribute::BlendWeights);
  if (!idx || !wgt) return true;
  std::optional<float> joint;
  for (size_t v = 0; v < wgt->vertex_count(); ++v) {
    float total = 0;
    for (uint32_t c = 0; c < wgt->components; ++c) {
      const float w = wgt->get(v, c);
      if (w == 0) continue;
      total += w;
      const float j = idx->get(v, c, -1);
      if (joint && *joint != j) return false;
      joint = j;
    }
    if (std::fabs(total - 1) > 1e-4f) return false;
  }
  return true;
}

void check_skinning(const Scene& scene, const Level& l, const Report& report) {
  if (!l.mesh || scene.animations.empty() || rigid(*l.mesh)) return;
  report("wz2100.skinning", fmt::format("level {} is skinned to several joints (or partly weighted): a PIE level "
                                        "moves rigidly, so it is kept in its rest pose",
                                        l.number));
}

// ---- Connectors --------------------------------------------------------------------------------

void check_connectors(const Scene& scene, const Report& report) {
  if (scene.attachments.empty()) return;
  const std::vector<Mat3x4> rest = ops::joint_world_matrices(scene.joints, nullptr, 0);
  for (const Attachment& a : scene.attachments) {
    Vec3 p = a.transform.translation;
    if (a.joint >= 0 && size_t(a.joint) < rest.size()) p = mat_apply(rest[size_t(a.joint)], p);
    const std::array<float, 3> c{p[0], -p[2], p[1]};  // Scene -> connector space (Z up)
    const bool whole = std::all_of(c.begin(), c.end(), [](float v) { return std::isfinite(v) && v == std::trunc(v); });
    if (!whole)
      report("wz2100.connector-integer",
             fmt::format("connector {} at ({}, {}, {}): the engine reads whole numbers and drops the fraction",
                         text::quoted(a.name), num(c[0]), num(c[1]), num(c[2])));
    if (a.transform.rotation != Transform().rotation || a.transform.scale != Transform().scale)
      report("wz2100.connector-rotation",
             fmt::format("connector {} has a rotation or scale: a PIE connector is a point, they are lost",
                         text::quoted(a.name)));
  }
}

}  // namespace

void check_wz2100(const Scene& scene, const Report& report) {
  const std::vector<Level> levels = levels_of(scene);
  for (size_t i = 0; i < scene.meshes.size(); ++i)
    if (scene.meshes[i].topology != Topology::Triangles)
      report("wz2100.triangles-only", fmt::format("mesh {} is made of {}: PIE levels are triangles, it is left out",
                                                  text::quoted(scene.meshes[i].name),
                                                  scene.meshes[i].topology == Topology::Lines ? "lines" : "points"));
  if (levels.empty()) report("wz2100.empty-level", "the model has no triangles: it is one empty level");
  for (const Level& l : levels) {
    check_counts(l, report);
    check_polygons(l, report);
    check_normals(scene, l, report);
    check_skinning(scene, l, report);
  }
  if (scene.pie) check_pie_textures(*scene.pie, report);
  else check_material_textures(scene, levels, report);
  check_connectors(scene, report);
}

}  // namespace meshport::profiles_detail
