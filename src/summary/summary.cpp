// `meshport info`: the Scene's numbers (summarize), as JSON and as text. The format sections are
// in summary_pie.cpp, summary_qmsh.cpp and summary_modedef.cpp.
#include <meshport/summary.h>

#include "summary/summary_parts.h"

#include <meshport/process.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <iterator>

namespace meshport {

namespace summary_parts {

double shortest(float v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v + 0.0f);  // -0 prints as 0
  return std::strtod(std::string(buf, r.ptr).c_str(), nullptr);
}

nlohmann::json shortest3(const std::array<float, 3>& v) {
  return nlohmann::json::array({shortest(v[0]), shortest(v[1]), shortest(v[2])});
}

}  // namespace summary_parts

using namespace summary_parts;
using nlohmann::json;

namespace {

// ---- summarize -------------------------------------------------------------------------------

std::string material_name(const Scene& s, int32_t material) {
  return material >= 0 && size_t(material) < s.materials.size() ? s.materials[size_t(material)].name : std::string();
}

std::optional<std::string> summary_mesh_name(const Scene& s, int32_t mesh) {
  if (mesh < 0 || size_t(mesh) >= s.meshes.size()) return std::nullopt;
  return s.meshes[size_t(mesh)].name;
}

std::optional<std::string> summary_joint_name(const Scene& s, int32_t joint) {
  if (joint < 0 || size_t(joint) >= s.joints.size()) return std::nullopt;
  return s.joints[size_t(joint)].name;
}

MeshSummary summarize_mesh(const Scene& s, const Mesh& m) {
  MeshSummary r;
  r.name = m.name;
  r.material = material_name(s, m.material);
  r.vertices = m.vertex_count();
  r.triangles = m.topology == Topology::Triangles ? m.triangles.size() / 3 : 0;
  if (m.topology == Topology::Lines) r.lines = m.triangles.size() / 2;
  if (m.topology == Topology::Points) r.points = m.triangles.size();
  r.instances = m.instances.size();
  r.lod = m.lod;
  if (m.lod) r.lod_of = summary_mesh_name(s, m.lod_of).value_or("");
  for (const auto& st : m.streams)
    r.attributes.push_back(st.attribute == Attribute::Custom ? st.name : std::string(attribute_name(st.attribute)));
  r.morph_targets = m.morph_targets.size();
  return r;
}

// The union of frames [first, first + count) of frame_bounds().
AnimationBoundsSummary union_of(const std::vector<FrameBounds>& frames, size_t first, size_t count) {
  FrameBounds u = frames[first];
  for (size_t f = first; f < first + count; ++f)
    for (int c = 0; c < 3; ++c) {
      u.min[c] = std::min(u.min[c], frames[f].min[c]);
      u.max[c] = std::max(u.max[c], frames[f].max[c]);
      u.radius = std::max(u.radius, frames[f].radius);
    }
  return {u.min, u.max, u.radius};
}

AnimationSummary summarize_animation(const Animation& a) {
  AnimationSummary r;
  r.name = a.name;
  r.frames = a.frame_count();
  r.framerate = a.framerate;
  r.loop = a.loop;
  r.interpolation = a.interpolation;
  r.morph_weight_tracks = a.morph_weights.size();
  for (const auto& t : a.morph_weights) r.morph_weight_keys = std::max(r.morph_weight_keys, t.times.size());
  if (a.channels == 0) r.frames = r.morph_weight_keys;  // morph weights only: their keys are the frames
  r.times = a.times;
  return r;
}

// Each animation, with its skinned bounds over all its frames when `bounds` is set.
std::vector<AnimationSummary> summarize_animations(const Scene& s, bool bounds) {
  std::vector<AnimationSummary> out;
  const std::vector<FrameBounds> frames = s.animations.empty() || !bounds ? std::vector<FrameBounds>() : frame_bounds(s);
  size_t next = 0;
  for (const auto& a : s.animations) {
    AnimationSummary r = summarize_animation(a);
    const size_t poses = a.frame_count();  // frame_bounds has one entry per pose frame
    if (poses > 0 && next + poses <= frames.size() && !s.meshes.empty()) r.bounds = union_of(frames, next, poses);
    next += poses;
    out.push_back(std::move(r));
  }
  return out;
}

AttachmentSummary summarize_attachment(const Scene& s, const Attachment& a) {
  return {a.name, a.transform.translation, summary_mesh_name(s, a.mesh), summary_joint_name(s, a.joint)};
}

// ---- JSON ------------------------------------------------------------------------------------

const char* interpolation_word(Interpolation i) { return i == Interpolation::Step ? "step" : "linear"; }

json mesh_json(const MeshSummary& m) {
  json j = {{"name", m.name},           {"material", m.material},   {"vertices", m.vertices},
            {"triangles", m.triangles}, {"attributes", m.attributes}, {"morph_targets", m.morph_targets}};
  if (m.lines) j["lines"] = m.lines;
  if (m.points) j["points"] = m.points;
  if (m.instances) j["instances"] = m.instances;
  if (m.lod) {
    j["lod"] = m.lod;
    j["lod_of"] = m.lod_of;
  }
  return j;
}

json animation_json(const AnimationSummary& a) {
  json j = {{"name", a.name},
            {"frames", a.frames},
            {"framerate", shortest(a.framerate)},
            {"loop", a.loop},
            {"interpolation", interpolation_word(a.interpolation)}};
  if (a.morph_weight_tracks) {
    j["morph_weight_tracks"] = a.morph_weight_tracks;
    j["morph_weight_keys"] = a.morph_weight_keys;
  }
  if (!a.times.empty()) {
    j["times"] = json::array();
    for (float t : a.times) j["times"].push_back(shortest(t));
  }
  if (a.bounds)
    j["bounds"] = {{"min", shortest3(a.bounds->min)}, {"max", shortest3(a.bounds->max)}, {"radius", shortest(a.bounds->radius)}};
  return j;
}

json attachment_json(const AttachmentSummary& a) {
  json j = {{"name", a.name}, {"translation", shortest3(a.translation)}};
  if (a.mesh) j["mesh"] = *a.mesh;
  if (a.joint) j["joint"] = *a.joint;
  return j;
}

// ---- text ------------------------------------------------------------------------------------

void meshes_text(const Summary& s, std::string& out) {
  put(out, "  meshes: {}  vertices: {}  triangles: {}\n", s.meshes.size(), s.vertices, s.triangles);
  const auto lines = std::count_if(s.meshes.begin(), s.meshes.end(), [](const MeshSummary& m) { return m.lines > 0; });
  const auto points = std::count_if(s.meshes.begin(), s.meshes.end(), [](const MeshSummary& m) { return m.points > 0; });
  if (lines || points) put(out, "  line meshes: {}  point meshes: {}\n", lines, points);
  for (const auto& m : s.meshes) {
    std::string attrs;
    for (const auto& a : m.attributes) attrs += (attrs.empty() ? "" : " ") + a;
    const std::string elements = m.lines    ? fmt::format("{} line segments", m.lines)
                                 : m.points ? fmt::format("{} points", m.points)
                                            : fmt::format("{} triangles", m.triangles);
    put(out, "    \"{}\" material \"{}\": {} vertices, {} [{}]{}{}{}\n", m.name, m.material, m.vertices, elements, attrs,
        m.morph_targets ? fmt::format(", {} morph targets", m.morph_targets) : std::string(),
        m.instances ? fmt::format(", {} GPU instances", m.instances) : std::string(),
        m.lod ? fmt::format(", level of detail {} of \"{}\"", m.lod, m.lod_of) : std::string());
  }
}

void animations_text(const Summary& s, std::string& out) {
  put(out, "  animations: {}\n", s.animations.size());
  for (const auto& a : s.animations)
    put(out, "    \"{}\": {} frames at {}{}{}{}\n", a.name, a.frames,
        a.times.empty() ? fmt::format("{} fps", a.framerate)
                        : fmt::format("key times {}..{} s", a.times.front(), a.times.back()),
        a.loop ? ", looping" : "", a.interpolation == Interpolation::Step ? ", step interpolation" : "",
        a.morph_weight_tracks ? fmt::format(", {} morph weight tracks", a.morph_weight_tracks) : std::string());
}

void attachments_text(const Summary& s, std::string& out) {
  if (!s.attachments.empty()) put(out, "  attachments: {}\n", s.attachments.size());
  for (const auto& a : s.attachments) {
    std::string on = a.joint ? fmt::format(" on joint \"{}\"", *a.joint)
                     : a.mesh ? fmt::format(" on \"{}\"", *a.mesh)
                              : std::string();
    const auto& t = a.translation;
    put(out, "    \"{}\"{} at ({} {} {})\n", a.name, on, t[0], t[1], t[2]);
  }
}

}  // namespace

Summary summarize(const Scene& scene, Format format, bool animation_bounds) {
  Summary r;
  r.format = format;
  for (const auto& m : scene.meshes) {
    r.meshes.push_back(summarize_mesh(scene, m));
    r.vertices += r.meshes.back().vertices;
    r.triangles += r.meshes.back().triangles;
  }
  r.joints = scene.joints.size();
  r.animations = summarize_animations(scene, animation_bounds);
  r.bounds = scene_bounds(scene);
  for (const auto& m : scene.materials) r.materials.push_back(m.name);
  r.comment_bytes = scene.comment.size();
  for (const auto& e : value_or_empty(scene.iqm).extensions) r.extensions.push_back({e.name, e.data.size()});
  for (const auto& a : scene.attachments) r.attachments.push_back(summarize_attachment(scene, a));
  if (scene.pie) r.pie = summarize_pie(scene);
  if (scene.qmsh) r.qmsh = summarize_qmsh(*scene.qmsh);
  if (scene.qmsh_tmp) r.qmsh_tmp = summarize_qmsh_tmp(*scene.qmsh_tmp);
  if (scene.modedef) r.modedef = summarize_modedef(*scene.modedef);
  return r;
}

json to_json(const Summary& s) {
  json j;
  j["format"] = std::string(format_info(s.format).name);
  j["meshes"] = json::array();
  for (const auto& m : s.meshes) j["meshes"].push_back(mesh_json(m));
  j["vertices"] = s.vertices;
  j["triangles"] = s.triangles;
  j["joints"] = s.joints;
  j["animations"] = json::array();
  for (const auto& a : s.animations) j["animations"].push_back(animation_json(a));
  j["bounds"] = {{"min", shortest3(s.bounds.min)}, {"max", shortest3(s.bounds.max)}};
  j["materials"] = s.materials;
  j["comment_bytes"] = s.comment_bytes;
  j["extensions"] = json::array();
  for (const auto& e : s.extensions) j["extensions"].push_back({{"name", e.name}, {"bytes", e.bytes}});
  j["attachments"] = json::array();
  for (const auto& a : s.attachments) j["attachments"].push_back(attachment_json(a));
  if (s.pie) j["pie"] = pie_json(*s.pie);
  if (s.qmsh) j["qmsh"] = qmsh_json(*s.qmsh);
  if (s.qmsh_tmp) j["qmsh_tmp"] = qmsh_tmp_json(*s.qmsh_tmp);
  if (s.modedef) j["modedef"] = modedef_json(*s.modedef);
  if (s.textures) j["textures"] = textures_json(s);
  if (s.scenes.size() > 1) {
    j["scenes"] = json::array();
    for (const SceneEntry& e : s.scenes)
      j["scenes"].push_back(
          {{"name", e.name}, {"root_nodes", e.root_nodes}, {"default", e.is_default}, {"read", e.read}});
  }
  return j;
}

std::string to_text(const Summary& s) {
  std::string out;
  const FormatInfo& f = format_info(s.format);
  if (!s.file.empty()) put(out, "{}: ", s.file);
  put(out, "{} ({})\n", f.name, f.description);
  meshes_text(s, out);
  put(out, "  joints: {}\n", s.joints);
  animations_text(s, out);
  const Bounds& b = s.bounds;
  if (!b.empty)
    put(out, "  bounds: min ({} {} {}) max ({} {} {})\n", b.min[0], b.min[1], b.min[2], b.max[0], b.max[1], b.max[2]);
  if (s.comment_bytes) put(out, "  comment: {} bytes\n", s.comment_bytes);
  for (const auto& e : s.extensions) put(out, "  extension \"{}\": {} bytes\n", e.name, e.bytes);
  attachments_text(s, out);
  if (s.pie) pie_text(*s.pie, out);
  if (s.qmsh) qmsh_text(*s.qmsh, out);
  if (s.qmsh_tmp) qmsh_tmp_text(*s.qmsh_tmp, out);
  if (s.modedef) modedef_text(*s.modedef, out);
  if (s.textures) textures_text(s, out);
  if (s.scenes.size() > 1) {
    put(out, "  scenes: {} (--scene N reads another)\n", s.scenes.size());
    for (size_t i = 0; i < s.scenes.size(); ++i) {
      const SceneEntry& e = s.scenes[i];
      put(out, "    {}: \"{}\", {} root nodes{}{}\n", i, e.name, e.root_nodes, e.is_default ? ", default" : "",
          e.read ? ", read" : "");
    }
  }
  return out;
}

std::string format_names(bool writable) {
  std::string out;
  for (const auto& f : formats())
    if (writable ? f.can_write : f.can_read) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

std::string formats_text() {
  // Columns as wide as their longest entry, so every row aligns.
  auto extensions = [](const FormatInfo& f) {
    std::string exts;
    for (auto e : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(e);
    return exts;
  };
  size_t name_width = 6, ext_width = 10;
  for (const auto& f : formats()) {
    name_width = std::max(name_width, f.name.size());
    ext_width = std::max(ext_width, extensions(f).size());
  }
  std::string out;
  put(out, "{:<{}} {:<5} {:<5} {:<{}} {}\n", "format", name_width, "read", "write", "extensions", ext_width,
      "description");
  for (const auto& f : formats())
    put(out, "{:<{}} {:<5} {:<5} {:<{}} {}\n", f.name, name_width, f.can_read ? "yes" : "no",
        f.can_write ? "yes" : "no", extensions(f), ext_width, f.description);
  return out;
}

}  // namespace meshport
