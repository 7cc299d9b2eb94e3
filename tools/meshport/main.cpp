// meshport command-line tool: parses arguments and calls the library.
#include <meshport/diff.h>
#include <meshport/meshport.h>
#include <meshport/validate.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace meshport;

void print_diagnostics(const Diagnostics& d) {
  for (const auto& item : d.items) fmt::print(stderr, "{}\n", item.to_string());
  if (d.dropped) fmt::print(stderr, "note: {} more diagnostics not shown\n", d.dropped);
}

std::optional<Format> parse_format(const std::string& name, const char* option) {
  if (name.empty()) return std::nullopt;
  auto f = format_from_name(name);
  if (!f) throw CLI::ValidationError(option, "unknown format '" + name + "' (see `meshport formats`)");
  return f;
}

// "X,Y,Z" as three finite floats.
std::array<float, 3> parse_triple(const std::string& text, const char* option) {
  std::array<float, 3> v{};
  const char* p = text.data();
  const char* end = p + text.size();
  for (int i = 0; i < 3; ++i) {
    auto r = std::from_chars(p, end, v[i]);
    bool last = i == 2;
    if (r.ec != std::errc() || !std::isfinite(v[i]) || (last ? r.ptr != end : (r.ptr == end || *r.ptr != ',')))
      throw CLI::ValidationError(option, "expects three numbers X,Y,Z, got '" + text + "'");
    p = r.ptr + 1;
  }
  return v;
}

struct Counts {
  size_t vertices = 0, triangles = 0;
};

Counts count(const Scene& s) {
  Counts c;
  for (const auto& m : s.meshes) {
    c.vertices += m.vertex_count();
    c.triangles += m.triangles.size() / 3;
  }
  return c;
}

// A float as the double with the same shortest decimal form, so JSON shows 1.5 rather than the
// float's exact binary expansion.
double shortest(float v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v + 0.0f);  // -0 prints as 0
  return std::strtod(std::string(buf, r.ptr).c_str(), nullptr);
}

const char* pie_texture_kind(PieTexture::Kind k) {
  switch (k) {
    case PieTexture::Kind::Texture: return "TEXTURE";
    case PieTexture::Kind::TcMask: return "TCMASK";
    case PieTexture::Kind::NormalMap: return "NORMALMAP";
    case PieTexture::Kind::SpecularMap: return "SPECULARMAP";
  }
  return "?";
}

size_t level_connectors(const Scene& s, const PieLevel& l) {
  size_t n = 0;
  for (const auto& a : s.attachments)
    if ((l.mesh >= 0 && a.mesh == l.mesh) || (l.joint >= 0 && a.joint == l.joint)) ++n;
  return n;
}

// A PIE level's polygons (its mesh's triangles) and how many are texture-animated (flag 4000 in
// the mesh's "pie.flags" face channel).
std::pair<size_t, size_t> pie_polygons(const Scene& s, const PieLevel& l) {
  if (l.mesh < 0 || size_t(l.mesh) >= s.meshes.size()) return {0, 0};
  const Mesh& m = s.meshes[size_t(l.mesh)];
  size_t texanim = 0;
  if (const FaceChannel* flags = m.find_channel("pie.flags"))
    for (uint32_t f : flags->data) texanim += (f & 0x4000) ? 1 : 0;
  return {m.triangles.size() / 3, texanim};
}

nlohmann::json pie_json(const Scene& s) {
  using nlohmann::json;
  const PieData& p = *s.pie;
  json j = {{"version", p.version}, {"type", fmt::format("{:x}", p.global.type)}};
  if (p.global.has_interpolate) j["interpolate"] = p.global.interpolate;
  auto textures = [](const PieSettings& st) {
    json t = json::array();
    for (const auto& x : st.textures)
      t.push_back({{"directive", pie_texture_kind(x.kind)}, {"tileset", x.tileset}, {"file", x.file}});
    return t;
  };
  j["textures"] = textures(p.global);
  j["events"] = json::array();
  for (const auto& e : p.events) j["events"].push_back({{"type", e.type}, {"file", e.file}});
  j["levels"] = json::array();
  for (const auto& l : p.levels) {
    const auto [polygons, texanim] = pie_polygons(s, l);
    json lv = {{"mesh", l.mesh >= 0 && size_t(l.mesh) < s.meshes.size() ? s.meshes[size_t(l.mesh)].name : ""},
               {"points", l.points.size()},
               {"polygons", polygons},
               {"normals", l.normals},
               {"connectors", level_connectors(s, l)}};
    if (!l.comment.empty()) lv["comment"] = l.comment;
    if (l.overrides.has_type) lv["type"] = fmt::format("{:x}", l.overrides.type);
    if (!l.overrides.textures.empty()) lv["textures"] = textures(l.overrides);
    if (texanim) lv["texture_animated_polygons"] = texanim;
    if (l.has_animobject)
      lv["animobject"] = {{"time_ms", l.animobject.time}, {"cycles", l.animobject.cycles},
                          {"frames", l.animobject.frames.size()}};
    if (l.has_shadow_points) lv["shadow"] = {{"points", l.shadow_points.size()}, {"polygons", l.shadow_polygons.size()}};
    j["levels"].push_back(lv);
  }
  return j;
}

void print_pie(const Scene& s) {
  const PieData& p = *s.pie;
  fmt::print("  PIE {}: TYPE {:x}{}\n", p.version, p.global.type,
             p.global.has_interpolate ? fmt::format(", INTERPOLATE {}", p.global.interpolate) : std::string());
  for (const auto& t : p.global.textures)
    fmt::print("    {} tileset {}: {}\n", pie_texture_kind(t.kind), t.tileset, t.file);
  for (const auto& e : p.events) fmt::print("    EVENT {}: {}\n", e.type, e.file);
  for (size_t i = 0; i < p.levels.size(); ++i) {
    const PieLevel& l = p.levels[i];
    const auto [polygons, texanim] = pie_polygons(s, l);
    fmt::print("    level {}{}: {} points, {} polygons{}, {} connectors\n", i + 1,
               l.comment.empty() ? std::string() : fmt::format(" ({})", l.comment), l.points.size(), polygons,
               l.normals ? " with normals" : "", level_connectors(s, l));
    if (l.overrides.has_type) fmt::print("      TYPE {:x}\n", l.overrides.type);
    for (const auto& t : l.overrides.textures)
      fmt::print("      {} tileset {}: {}\n", pie_texture_kind(t.kind), t.tileset, t.file);
    if (texanim) fmt::print("      texture animation on {} polygons\n", texanim);
    if (l.has_animobject)
      fmt::print("      ANIMOBJECT: {} frames, {} ms per frame, {}\n", l.animobject.frames.size(), l.animobject.time,
                 l.animobject.cycles == 0 ? std::string("looping") : fmt::format("{} cycles", l.animobject.cycles));
    if (l.has_shadow_points)
      fmt::print("      shadow mesh: {} points, {} polygons\n", l.shadow_points.size(), l.shadow_polygons.size());
  }
}

nlohmann::json qmsh_json(const Scene& s) {
  using nlohmann::json;
  const QmshBinaryData& q = *s.qmsh;
  json j = {{"tangents", (q.flags & 1) != 0}, {"skinning", (q.flags & 2) != 0}, {"radius", shortest(q.radius)}};
  j["animation_lengths"] = json::array();
  for (float l : q.animation_lengths) j["animation_lengths"].push_back(shortest(l));
  return j;
}

nlohmann::json qmsh_tmp_json(const Scene& s) {
  using nlohmann::json;
  const QmshTmpData& q = *s.qmsh_tmp;
  json j = {{"objects", json::array()}, {"actions", json::array()}};
  for (const auto& m : q.meshes)
    j["objects"].push_back({{"mesh", m.name}, {"vertices", m.vertices.size()}, {"faces", m.faces.size()},
                            {"materials", m.materials}, {"auto_smooth_angle", shortest(m.auto_smooth_angle)}});
  if (q.has_armature) j["armature"] = {{"name", q.armature.name}, {"bones", q.armature.bones.size()}};
  for (const auto& a : q.actions) {
    size_t curves = 0;
    for (const auto& c : a.channels) curves += c.curves.size();
    j["actions"].push_back({{"name", a.name}, {"channels", a.channels.size()}, {"curves", curves}});
  }
  if (!q.fps.empty()) j["fps"] = q.fps.back();
  return j;
}

void print_qmsh(const Scene& s) {
  if (s.qmsh) {
    const QmshBinaryData& q = *s.qmsh;
    fmt::print("  TFQMSH10: {}{}bounding radius {}\n", (q.flags & 1) ? "tangents, " : "", (q.flags & 2) ? "skinning, " : "",
               q.radius);
  }
  if (s.qmsh_tmp) {
    const QmshTmpData& q = *s.qmsh_tmp;
    fmt::print("  QMSH TMP 10: {} mesh objects{}, {} actions{}\n", q.meshes.size(),
               q.has_armature ? fmt::format(", armature \"{}\" with {} bones", q.armature.name, q.armature.bones.size())
                              : std::string(),
               q.actions.size(), q.fps.empty() ? std::string() : fmt::format(", {} fps", q.fps.back()));
    for (const auto& m : q.meshes)
      fmt::print("    object \"{}\": {} vertices, {} faces, {} materials, auto-smooth {}°\n", m.name, m.vertices.size(),
                 m.faces.size(), m.materials.size(), m.auto_smooth_angle);
  }
}

const char* modedef_kind(ModeDefData::Kind k) {
  switch (k) {
    case ModeDefData::Kind::Model: return "model";
    case ModeDefData::Kind::Prop: return "prop";
    case ModeDefData::Kind::State: return "state";
    case ModeDefData::Kind::Path: return "path";
  }
  return "none";
}

nlohmann::json modedef_json(const Scene& s) {
  using nlohmann::json;
  const ModeDefData& md = *s.modedef;
  json j = {{"kind", modedef_kind(md.kind)}, {"models", json::array()}};
  for (const auto& f : md.models) {
    const ModeDefModel& m = f.model;
    json modes = json::array();
    for (size_t k = 0; k < m.eigenvalues.size(); ++k)
      modes.push_back({{"eigenvalue", shortest(m.eigenvalues[k])}, {"frequency_hz", shortest(mode_frequency(m.eigenvalues[k]))}});
    j["models"].push_back({{"file", f.file},
                           {"modes", modes},
                           {"nodes", m.node_count()},
                           {"vertices", m.vertices.size()},
                           {"normals", m.normals.size()},
                           {"texcoords", m.texcoords.size()},
                           {"faces", m.faces.size()},
                           {"materials", m.materials.size()},
                           {"groups", m.groups.size()},
                           {"tetrahedra", m.tets.size()},
                           {"carton", m.carton},
                           {"index_base",
                            {{"faces", m.indexing.face_base},
                             {"groups", m.indexing.group_base},
                             {"tetrahedra", m.indexing.tet_base},
                             {"carton", m.indexing.carton_base}}},
                           {"fend_inclusive", m.indexing.group_end_inclusive}});
  }
  j["props"] = json::array();
  for (const auto& p : md.props)
    j["props"].push_back({{"file", p.file}, {"model_file", p.prop.model_file}, {"mass", shortest(p.prop.mass)},
                          {"scale", shortest(p.prop.scale)}, {"rigid_body", p.prop.rigid_body != 0},
                          {"deform", p.prop.deform != 0}});
  j["paths"] = json::array();
  for (const auto& p : md.paths)
    j["paths"].push_back({{"file", p.file}, {"translation_keys", p.path.translation.size()},
                          {"rotation_keys", p.path.rotation.size()}});
  if (md.kind == ModeDefData::Kind::State) {
    const ModeDefState& st = md.state;
    json objects = json::array();
    for (const auto& o : st.objects)
      objects.push_back({{"prop", o.name}, {"path", o.path_file}, {"birth", shortest(o.birth)}, {"death", shortest(o.death)}});
    j["state"] = {{"fps", st.fps},
                  {"use_penalty", st.use_penalty != 0},
                  {"gravity", {shortest(st.gravity[0]), shortest(st.gravity[1]), shortest(st.gravity[2])}},
                  {"friction", shortest(st.friction)},
                  {"objects", objects},
                  {"planes", st.planes.size()},
                  {"constraints", st.constraints.size()}};
  }
  return j;
}

void print_modedef(const Scene& s) {
  if (!s.modedef) return;
  const ModeDefData& md = *s.modedef;
  fmt::print("  ModeDef {}:\n", modedef_kind(md.kind));
  for (const auto& f : md.models) {
    const ModeDefModel& m = f.model;
    fmt::print("    model \"{}\": {} modes, {} nodes, {} tetrahedra{}; render mesh {} vertices, {} normals, {} texcoords, "
               "{} faces, {} materials, {} groups\n",
               f.file, m.mode_count(), m.node_count(), m.tets.size(), m.carton ? ", carton" : "", m.vertices.size(),
               m.normals.size(), m.texcoords.size(), m.faces.size(), m.materials.size(), m.groups.size());
    fmt::print("      index base: faces {}, groups {} (FEND {}), tetrahedra {}, carton {}\n", m.indexing.face_base,
               m.indexing.group_base, m.indexing.group_end_inclusive ? "inclusive" : "exclusive", m.indexing.tet_base,
               m.indexing.carton_base);
    for (size_t k = 0; k < m.eigenvalues.size() && k < 16; ++k)
      fmt::print("      mode {}: eigenvalue {}, {} Hz\n", k, m.eigenvalues[k], mode_frequency(m.eigenvalues[k]));
    if (m.eigenvalues.size() > 16) fmt::print("      ... {} more modes\n", m.eigenvalues.size() - 16);
  }
  for (const auto& p : md.props)
    fmt::print("    prop \"{}\": model \"{}\", mass {}, scale {}{}{}\n", p.file, p.prop.model_file, p.prop.mass,
               p.prop.scale, p.prop.rigid_body ? ", rigid body" : "", p.prop.deform ? ", deforming" : "");
  for (const auto& p : md.paths)
    fmt::print("    path \"{}\": {} translation keys, {} rotation keys\n", p.file, p.path.translation.size(),
               p.path.rotation.size());
  if (md.kind == ModeDefData::Kind::State) {
    const ModeDefState& st = md.state;
    fmt::print("    state: {} fps, gravity ({} {} {}), friction {}, {} objects, {} planes, {} constraints\n", st.fps,
               st.gravity[0], st.gravity[1], st.gravity[2], st.friction, st.objects.size(), st.planes.size(),
               st.constraints.size());
  }
}

nlohmann::json info_json(const Scene& s, Format f) {
  using nlohmann::json;
  json j;
  j["format"] = std::string(format_info(f).name);
  Counts c = count(s);
  json meshes = json::array();
  for (const auto& m : s.meshes) {
    json streams = json::array();
    for (const auto& st : m.streams)
      streams.push_back(st.attribute == Attribute::Custom ? st.name : std::string(attribute_name(st.attribute)));
    meshes.push_back({{"name", m.name},
                      {"material", m.material >= 0 ? s.materials[m.material].name : std::string()},
                      {"vertices", m.vertex_count()},
                      {"triangles", m.triangles.size() / 3},
                      {"attributes", streams},
                      {"morph_targets", m.morph_targets.size()}});
  }
  j["meshes"] = meshes;
  j["vertices"] = c.vertices;
  j["triangles"] = c.triangles;
  j["joints"] = s.joints.size();
  auto vec = [](const std::array<float, 3>& v) {
    return nlohmann::json::array({shortest(v[0]), shortest(v[1]), shortest(v[2])});
  };
  // Each animation's skinned bounds over all its frames.
  std::vector<FrameBounds> frames = frame_bounds(s);
  size_t next = 0;
  json anims = json::array();
  for (const auto& a : s.animations) {
    json entry = {{"name", a.name}, {"frames", a.frame_count()}, {"framerate", shortest(a.framerate)}, {"loop", a.loop}};
    if (!a.morph_weights.empty()) {
      size_t keys = 0;
      for (const auto& t : a.morph_weights) keys = std::max(keys, t.times.size());
      entry["morph_weight_tracks"] = a.morph_weights.size();
      entry["morph_weight_keys"] = keys;
    }
    if (!a.times.empty()) {
      entry["times"] = json::array();
      for (float t : a.times) entry["times"].push_back(shortest(t));
    }
    if (a.frame_count() > 0 && next + a.frame_count() <= frames.size() && !s.meshes.empty()) {
      FrameBounds u = frames[next];
      for (size_t f = next; f < next + a.frame_count(); ++f)
        for (int c = 0; c < 3; ++c) {
          u.min[c] = std::min(u.min[c], frames[f].min[c]);
          u.max[c] = std::max(u.max[c], frames[f].max[c]);
          u.radius = std::max(u.radius, frames[f].radius);
        }
      entry["bounds"] = {{"min", vec(u.min)}, {"max", vec(u.max)}, {"radius", shortest(u.radius)}};
    }
    next += a.frame_count();
    anims.push_back(entry);
  }
  j["animations"] = anims;
  Bounds b = scene_bounds(s);
  j["bounds"] = {{"min", vec(b.min)}, {"max", vec(b.max)}};
  j["materials"] = json::array();
  for (const auto& m : s.materials) j["materials"].push_back(m.name);
  j["comment_bytes"] = s.comment.size();
  j["extensions"] = json::array();
  for (const auto& e : value_or_empty(s.iqm).extensions) j["extensions"].push_back({{"name", e.name}, {"bytes", e.data.size()}});
  j["attachments"] = json::array();
  for (const auto& a : s.attachments) {
    json e = {{"name", a.name}, {"translation", vec(a.transform.translation)}};
    if (a.mesh >= 0 && size_t(a.mesh) < s.meshes.size()) e["mesh"] = s.meshes[size_t(a.mesh)].name;
    if (a.joint >= 0 && size_t(a.joint) < s.joints.size()) e["joint"] = s.joints[size_t(a.joint)].name;
    j["attachments"].push_back(e);
  }
  if (s.pie) j["pie"] = pie_json(s);
  if (s.qmsh) j["qmsh"] = qmsh_json(s);
  if (s.qmsh_tmp) j["qmsh_tmp"] = qmsh_tmp_json(s);
  if (s.modedef) j["modedef"] = modedef_json(s);
  return j;
}

void print_info(const Scene& s, Format f, const std::string& path) {
  Counts c = count(s);
  fmt::print("{}: {} ({})\n", path, format_info(f).name, format_info(f).description);
  fmt::print("  meshes: {}  vertices: {}  triangles: {}\n", s.meshes.size(), c.vertices, c.triangles);
  for (const auto& m : s.meshes) {
    std::string attrs;
    for (const auto& st : m.streams) {
      if (!attrs.empty()) attrs += ' ';
      attrs += st.attribute == Attribute::Custom ? st.name : attribute_name(st.attribute);
    }
    fmt::print("    \"{}\" material \"{}\": {} vertices, {} triangles [{}]{}\n", m.name,
               m.material >= 0 ? s.materials[m.material].name : "", m.vertex_count(), m.triangles.size() / 3, attrs,
               m.morph_targets.empty() ? std::string() : fmt::format(", {} morph targets", m.morph_targets.size()));
  }
  fmt::print("  joints: {}\n", s.joints.size());
  fmt::print("  animations: {}\n", s.animations.size());
  for (const auto& a : s.animations)
    fmt::print("    \"{}\": {} frames at {}{}{}\n", a.name, a.frame_count(),
               a.times.empty() ? fmt::format("{} fps", a.framerate)
                               : fmt::format("key times {}..{} s", a.times.front(), a.times.back()),
               a.loop ? ", looping" : "",
               a.morph_weights.empty() ? std::string() : fmt::format(", {} morph weight tracks", a.morph_weights.size()));
  Bounds b = scene_bounds(s);
  if (!b.empty)
    fmt::print("  bounds: min ({} {} {}) max ({} {} {})\n", b.min[0], b.min[1], b.min[2], b.max[0], b.max[1], b.max[2]);
  if (!s.comment.empty()) fmt::print("  comment: {} bytes\n", s.comment.size());
  for (const auto& e : value_or_empty(s.iqm).extensions) fmt::print("  extension \"{}\": {} bytes\n", e.name, e.data.size());
  if (!s.attachments.empty()) fmt::print("  attachments: {}\n", s.attachments.size());
  for (const auto& a : s.attachments) {
    std::string on;
    if (a.joint >= 0 && size_t(a.joint) < s.joints.size()) on = fmt::format(" on joint \"{}\"", s.joints[size_t(a.joint)].name);
    else if (a.mesh >= 0 && size_t(a.mesh) < s.meshes.size()) on = fmt::format(" on \"{}\"", s.meshes[size_t(a.mesh)].name);
    const auto& t = a.transform.translation;
    fmt::print("    \"{}\"{} at ({} {} {})\n", a.name, on, t[0], t[1], t[2]);
  }
  if (s.pie) print_pie(s);
  print_qmsh(s);
  print_modedef(s);
}

// `meshport diff`: 0 same, 1 different, 2 when a file cannot be read.
int run_diff(const std::string& a, const std::string& b, const std::string& from_a, const std::string& from_b,
             const DiffOptions& options, bool as_json) {
  std::vector<Difference> found;
  ReadOptions ra, rb;
  ra.format = parse_format(from_a, "--from-a");
  rb.format = parse_format(from_b, "--from-b");
  try {
    const Scene sa = read(a, ra), sb = read(b, rb);
    found = diff(sa, sb, options);
  } catch (const std::exception& e) {  // meshport::Error, or out of memory
    fmt::print(stderr, "{}\n", e.what());
    if (as_json) fmt::print("{}\n", nlohmann::json{{"error", e.what()}}.dump());
    return 2;
  }
  if (as_json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Difference& d : found) list.push_back({{"path", d.path}, {"a", d.a}, {"b", d.b}, {"message", d.message}});
    fmt::print("{}\n", nlohmann::json{{"same", found.empty()}, {"count", found.size()}, {"differences", list}}.dump(2));
  } else {
    for (const Difference& d : found) fmt::print("{}\n", to_string(d));
    fmt::print("{}\n", found.empty()          ? std::string("same")
                       : found.size() == 1 ? std::string("1 difference")
                                           : fmt::format("{} differences", found.size()));
  }
  return found.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"meshport: read, write, validate and convert 3D game model formats"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "meshport 0.1.0");

  // convert
  auto* convert = app.add_subcommand("convert", "Convert models; animations of later inputs attach to the first");
  std::vector<std::string> inputs;
  std::string output, from, to;
  bool quiet = false, no_adjacency = false, no_bounds = false;
  convert->add_option("inputs", inputs, "Input files: the first gives meshes and skeleton, all give animations "
                                         "(- reads standard input; give --from)")
      ->required();
  convert->add_option("-o,--output", output, "Output file (- writes standard output; give --to)")->required();
  convert->add_option("--from", from, "Input format (default: by extension)");
  convert->add_option("--to", to, "Output format (default: by extension)");
  convert->add_flag("--no-adjacency", no_adjacency, "IQM: do not write triangle adjacency");
  convert->add_flag("--no-bounds", no_bounds, "IQM: do not write per-frame bounds");
  convert->add_flag("-q,--quiet", quiet, "Do not print warnings");
  int pie_version = 0;
  convert->add_option("--pie-version", pie_version, "PIE: write version 2, 3 or 4 (default: the source's, else 4)")
      ->check(CLI::IsMember({2, 3, 4}));
  ProcessOptions proc;
  bool no_normals = false, no_tangents = false, add_normals = false, add_tangents = false;
  float smooth_angle = -1;
  std::string rotate, translate;
  auto* g = "Processing (in this order)";
  convert->add_flag("--flip-winding", proc.flip_winding, "Reverse every triangle (assets authored inside out)")
      ->group(g);
  convert->add_flag("--flip-v", proc.flip_v, "Flip texture coordinates vertically (v' = 1 - v)")->group(g);
  convert->add_option("--scale", proc.transform.scale, "Scale uniformly by S (meshes, skeleton, animations)")
      ->group(g);
  convert->add_option("--rotate", rotate, "Rotate by X,Y,Z degrees (about X, then Y, then Z; --rotate=-90,0,0)")
      ->type_name("X,Y,Z")
      ->group(g);
  convert->add_option("--translate", translate, "Translate by X,Y,Z (Scene axes: Y up, metres)")
      ->type_name("X,Y,Z")
      ->group(g);
  convert->add_flag("--weld", proc.weld, "Weld identical vertices and drop unused ones")->group(g);
  auto* normals_flag = convert->add_flag("--normals", add_normals,
                    "Generate normals for meshes without them even when writing the input's own format (the "
                    "default for other formats)")
      ->group(g);
  convert->add_flag("--no-normals", no_normals, "Do not generate normals for meshes without them")
      ->group(g)
      ->excludes(normals_flag);
  convert->add_flag("--recompute-normals", proc.normal.recompute, "Replace existing normals too")->group(g);
  convert->add_option("--smooth-angle", smooth_angle,
                      "One auto-smooth angle in degrees for every face, replacing the file's smoothing rules "
                      "(0 faceted, 180 smooth)")
      ->check(CLI::Range(0.0f, 180.0f))
      ->group(g);
  auto* tangents_flag = convert->add_flag("--tangents", add_tangents,
                    "Generate tangents for meshes with normals and texture coordinates but none, even when writing "
                    "the input's own format (the default for other formats)")
      ->group(g);
  convert->add_flag("--no-tangents", no_tangents, "Do not generate tangents for meshes without them")
      ->group(g)
      ->excludes(tangents_flag);
  convert->add_flag("--recompute-tangents", proc.tangent.recompute, "Replace existing tangents too")->group(g);
  convert->add_flag("--optimize", proc.optimize, "Optimise vertex cache and fetch order (meshoptimizer)")->group(g);
  convert->add_flag("--modes-animation", proc.modes_animation,
                    "Add an animation 'modes' playing each morph target (ModeDef vibration mode) in turn")
      ->group(g);

  // deform
  auto* deform = app.add_subcommand("deform", "Deform a ModeDef model by its vibration modes and write the result");
  std::string deform_input, deform_output, deform_from, deform_to;
  std::vector<int> deform_modes;
  std::vector<float> deform_amplitude, deform_amplitudes;
  bool deform_quiet = false;
  deform->footer(
      "Node i moves by u_i = sum_k q_k phi_k[i]; render vertices follow through the carton (docs/modedef.md).\n"
      "Modes are numbered from 0 in file order. Example:\n"
      "  meshport deform bar.model --mode 0 --amplitude 0.5 --mode 2 --amplitude -0.1 -o bent.obj");
  deform->add_option("input", deform_input, "A ModeDef .model (or a .prop / .state naming one)")->required();
  deform->add_option("-o,--output", deform_output,
                     "Output file (any format meshport writes; - writes standard output, with --to)")
      ->required();
  deform->add_option("--mode", deform_modes, "Mode index K (from 0); each --mode takes the next --amplitude")
      ->type_name("K")
      ->allow_extra_args(false);
  deform->add_option("--amplitude", deform_amplitude, "Amplitude A of the preceding --mode")
      ->type_name("A")
      ->allow_extra_args(false);
  deform->add_option("--amplitudes", deform_amplitudes, "Amplitudes of modes 0, 1, ... in order (a0,a1,...)")
      ->delimiter(',')
      ->type_name("a0,a1,...");
  deform->add_option("--from", deform_from, "Input format (default: by extension)");
  deform->add_option("--to", deform_to, "Output format (default: by extension)");
  deform->add_flag("-q,--quiet", deform_quiet, "Do not print warnings");

  // info
  auto* info = app.add_subcommand("info", "Summarise a model");
  std::string info_path, info_from;
  bool info_as_json = false;
  info->add_option("file", info_path, "Model file (- reads standard input; give --from)")->required();
  info->add_option("--from", info_from, "Input format (default: by extension)");
  info->add_flag("--json", info_as_json, "Print one JSON object");

  // validate
  auto* validate = app.add_subcommand("validate", "Check files and print diagnostics (exit 1 on errors)");
  std::vector<std::string> validate_paths;
  std::string validate_from;
  bool strict = false;
  validate->add_option("files", validate_paths, "Model files")->required();
  validate->add_option("--from", validate_from, "Input format (default: by extension)");
  validate->add_flag("--strict", strict, "Count warnings as errors");

  // diff
  auto* diff_cmd = app.add_subcommand("diff", "Compare two models of any formats (exit 0 same, 1 different, 2 unreadable)");
  std::string diff_a, diff_b, diff_from_a, diff_from_b;
  DiffOptions diff_options;
  bool diff_json = false;
  diff_cmd->footer(
      "Meshes pair by name (else by geometry) and compare as sets of triangles whose corners carry position,\n"
      "texture coordinate and normal, never by vertex index. Materials, joints (parent, rest transform),\n"
      "animations (frames, framerate, loop, skinned vertex positions at every frame) and attachments pair by\n"
      "name; format data (pie, iqm, qmsh, qmsh_tmp, modedef) compares field by field. Prints one line per\n"
      "difference, then \"same\" or \"N differences\" (docs/diff.md). Example:\n"
      "  meshport diff tentacle.iqe tentacle.glb --tolerance 1e-3");
  diff_cmd->add_option("a", diff_a, "First model")->required();
  diff_cmd->add_option("b", diff_b, "Second model")->required();
  diff_cmd->add_option("--tolerance", diff_options.tolerance,
                       "Positions: this fraction of the models' bounding-box diagonal; texture coordinates, normals, "
                       "rotations, colours: this value (default 1e-4)")
      ->check(CLI::NonNegativeNumber);
  diff_cmd->add_option("--from-a", diff_from_a, "Format of the first model (default: by extension)");
  diff_cmd->add_option("--from-b", diff_from_b, "Format of the second model (default: by extension)");
  diff_cmd->add_flag("--json", diff_json,
                     "Print one JSON object: {\"same\", \"count\", \"differences\": [{\"path\", \"a\", \"b\", \"message\"}]}");

  // formats
  auto* list = app.add_subcommand("formats", "List the formats and what meshport can do with each");

  CLI11_PARSE(app, argc, argv);

  try {
    if (*convert) {
      ConvertOptions o;
      o.read.format = parse_format(from, "--from");
      o.write.format = parse_format(to, "--to");
      o.process = proc;
      if (no_normals) o.process.normals = Generate::Off;
      else if (add_normals) o.process.normals = Generate::Missing;
      if (no_tangents) o.process.tangents = Generate::Off;
      else if (add_tangents) o.process.tangents = Generate::Missing;
      if (smooth_angle >= 0) o.process.normal.angle = smooth_angle;
      if (!rotate.empty()) o.process.transform.rotate_degrees = parse_triple(rotate, "--rotate");
      if (!translate.empty()) o.process.transform.translate = parse_triple(translate, "--translate");
      o.write.adjacency = !no_adjacency;
      o.write.bounds = !no_bounds;
      o.write.pie_version = pie_version;
      Diagnostics d;
      try {
        meshport::convert(inputs, output, o, &d);
      } catch (...) {
        if (!quiet) print_diagnostics(d);
        throw;
      }
      if (!quiet) print_diagnostics(d);
      return 0;
    }
    if (*deform) {
      if (deform_modes.size() != deform_amplitude.size())
        throw CLI::ValidationError("--mode", fmt::format("{} --mode options but {} --amplitude options: give one "
                                                         "amplitude per mode",
                                                         deform_modes.size(), deform_amplitude.size()));
      ReadOptions ro;
      ro.format = parse_format(deform_from, "--from");
      WriteOptions wo;
      wo.format = parse_format(deform_to, "--to");
      Diagnostics d;
      try {
        Scene s = read(deform_input, ro, &d);
        if (!s.modedef || s.modedef->models.empty())
          fail(deform_input, "no ModeDef model to deform (deform reads .model, .prop and .state files)");
        const size_t modes = s.modedef->models[0].model.mode_count();
        if (deform_amplitudes.size() > modes)
          fail(deform_input, fmt::format("--amplitudes gives {} amplitudes, but the model has {} modes",
                                         deform_amplitudes.size(), modes));
        std::vector<float> q(deform_amplitudes);
        for (size_t i = 0; i < deform_modes.size(); ++i) {
          const int k = deform_modes[i];
          if (k < 0 || size_t(k) >= modes)
            fail(deform_input, fmt::format("--mode {} is out of range: the model has {} modes, numbered from 0", k,
                                           modes));
          if (q.size() <= size_t(k)) q.resize(size_t(k) + 1, 0.0f);
          q[size_t(k)] += deform_amplitude[i];
        }
        deform_scene(s, q);
        write(s, deform_output, wo, &d);
      } catch (...) {
        if (!deform_quiet) print_diagnostics(d);
        throw;
      }
      if (!deform_quiet) print_diagnostics(d);
      return 0;
    }
    if (*info) {
      ReadOptions o;
      o.format = parse_format(info_from, "--from");
      Diagnostics d;
      Scene s = read(info_path, o, &d);
      Format f = o.format ? *o.format : *format_from_path(info_path);
      if (info_as_json)
        fmt::print("{}\n", info_json(s, f).dump(2));
      else
        print_info(s, f, info_path);
      print_diagnostics(d);
      return 0;
    }
    if (*validate) {
      ReadOptions o;
      o.format = parse_format(validate_from, "--from");
      int status = 0;
      for (const auto& path : validate_paths) {
        Diagnostics d;
        try {
          validate_scene(read(path, o, &d), path, d);
        } catch (const Error& e) {
          d.add(e.diagnostic());
        }
        print_diagnostics(d);
        bool bad = d.has_errors() || (strict && d.warning_count() > 0);
        fmt::print("{}: {} ({} errors, {} warnings)\n", path, bad ? "invalid" : "ok", d.items.size() - d.warning_count(),
                   d.warning_count());
        if (bad) status = 1;
      }
      return status;
    }
    if (*diff_cmd) return run_diff(diff_a, diff_b, diff_from_a, diff_from_b, diff_options, diff_json);
    if (*list) {
      fmt::print("{:<8} {:<6} {:<6} {:<12} {}\n", "format", "read", "write", "extensions", "description");
      for (const auto& f : formats()) {
        std::string exts;
        for (auto e : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(e);
        fmt::print("{:<8} {:<6} {:<6} {:<12} {}\n", f.name, f.can_read ? "yes" : "no", f.can_write ? "yes" : "no", exts,
                   f.description);
      }
      return 0;
    }
  } catch (const Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
