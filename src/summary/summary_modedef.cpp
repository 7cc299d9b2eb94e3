// `meshport info`: the ModeDef section (Scene::modedef: models, props, paths, state).
#include "summary/summary_parts.h"

#include <meshport/modal.h>

namespace meshport::summary_parts {

using nlohmann::json;

namespace {

// Modes listed one per line in the text; the rest are counted.
constexpr size_t kTextModes = 16;

const char* kind_name(ModeDefData::Kind k) {
  switch (k) {
    case ModeDefData::Kind::Model: return "model";
    case ModeDefData::Kind::Prop: return "prop";
    case ModeDefData::Kind::State: return "state";
    case ModeDefData::Kind::Path: return "path";
  }
  return "none";
}

ModeDefModelSummary summarize_model(const ModeDefModelFile& f) {
  const ModeDefModel& m = f.model;
  ModeDefModelSummary r;
  r.file = f.file;
  for (float e : m.eigenvalues) r.modes.push_back({e, mode_frequency(e)});
  r.nodes = m.node_count();
  r.vertices = m.vertices.size();
  r.normals = m.normals.size();
  r.texcoords = m.texcoords.size();
  r.faces = m.faces.size();
  r.materials = m.materials.size();
  r.groups = m.groups.size();
  r.tetrahedra = m.tets.size();
  r.carton = m.carton;
  r.indexing = m.indexing;
  return r;
}

ModeDefStateSummary summarize_state(const ModeDefState& st) {
  ModeDefStateSummary r;
  r.fps = st.fps;
  r.use_penalty = st.use_penalty != 0;
  r.gravity = st.gravity;
  r.friction = st.friction;
  for (const auto& o : st.objects) r.objects.push_back({o.name, o.path_file, o.birth, o.death});
  r.planes = st.planes.size();
  r.constraints = st.constraints.size();
  return r;
}

json model_json(const ModeDefModelSummary& m) {
  json modes = json::array();
  for (const auto& k : m.modes)
    modes.push_back({{"eigenvalue", shortest(k.eigenvalue)}, {"frequency_hz", shortest(k.frequency_hz)}});
  return {{"file", m.file},
          {"modes", modes},
          {"nodes", m.nodes},
          {"vertices", m.vertices},
          {"normals", m.normals},
          {"texcoords", m.texcoords},
          {"faces", m.faces},
          {"materials", m.materials},
          {"groups", m.groups},
          {"tetrahedra", m.tetrahedra},
          {"carton", m.carton},
          {"index_base",
           {{"faces", m.indexing.face_base},
            {"groups", m.indexing.group_base},
            {"tetrahedra", m.indexing.tet_base},
            {"carton", m.indexing.carton_base}}},
          {"fend_inclusive", m.indexing.group_end_inclusive}};
}

json state_json(const ModeDefStateSummary& st) {
  json objects = json::array();
  for (const auto& o : st.objects)
    objects.push_back({{"prop", o.prop}, {"path", o.path}, {"birth", shortest(o.birth)}, {"death", shortest(o.death)}});
  return {{"fps", st.fps},
          {"use_penalty", st.use_penalty},
          {"gravity", shortest3(st.gravity)},
          {"friction", shortest(st.friction)},
          {"objects", objects},
          {"planes", st.planes},
          {"constraints", st.constraints}};
}

void model_text(const ModeDefModelSummary& m, std::string& out) {
  put(out,
      "    model \"{}\": {} modes, {} nodes, {} tetrahedra{}; render mesh {} vertices, {} normals, {} texcoords, "
      "{} faces, {} materials, {} groups\n",
      m.file, m.modes.size(), m.nodes, m.tetrahedra, m.carton ? ", carton" : "", m.vertices, m.normals, m.texcoords,
      m.faces, m.materials, m.groups);
  put(out, "      index base: faces {}, groups {} (FEND {}), tetrahedra {}, carton {}\n", m.indexing.face_base,
      m.indexing.group_base, m.indexing.group_end_inclusive ? "inclusive" : "exclusive", m.indexing.tet_base,
      m.indexing.carton_base);
  for (size_t k = 0; k < m.modes.size() && k < kTextModes; ++k)
    put(out, "      mode {}: eigenvalue {}, {} Hz\n", k, m.modes[k].eigenvalue, m.modes[k].frequency_hz);
  if (m.modes.size() > kTextModes) put(out, "      ... {} more modes\n", m.modes.size() - kTextModes);
}

}  // namespace

ModeDefSummary summarize_modedef(const ModeDefData& md) {
  ModeDefSummary r;
  r.kind = md.kind;
  for (const auto& f : md.models) r.models.push_back(summarize_model(f));
  for (const auto& p : md.props)
    r.props.push_back({p.file, p.prop.model_file, p.prop.mass, p.prop.scale, p.prop.rigid_body != 0, p.prop.deform != 0});
  for (const auto& p : md.paths) r.paths.push_back({p.file, p.path.translation.size(), p.path.rotation.size()});
  if (md.kind == ModeDefData::Kind::State) r.state = summarize_state(md.state);
  return r;
}

json modedef_json(const ModeDefSummary& md) {
  json j = {{"kind", kind_name(md.kind)}, {"models", json::array()}, {"props", json::array()}, {"paths", json::array()}};
  for (const auto& m : md.models) j["models"].push_back(model_json(m));
  for (const auto& p : md.props)
    j["props"].push_back({{"file", p.file}, {"model_file", p.model_file}, {"mass", shortest(p.mass)},
                          {"scale", shortest(p.scale)}, {"rigid_body", p.rigid_body}, {"deform", p.deform}});
  for (const auto& p : md.paths)
    j["paths"].push_back({{"file", p.file}, {"translation_keys", p.translation_keys}, {"rotation_keys", p.rotation_keys}});
  if (md.state) j["state"] = state_json(*md.state);
  return j;
}

void modedef_text(const ModeDefSummary& md, std::string& out) {
  put(out, "  ModeDef {}:\n", kind_name(md.kind));
  for (const auto& m : md.models) model_text(m, out);
  for (const auto& p : md.props)
    put(out, "    prop \"{}\": model \"{}\", mass {}, scale {}{}{}\n", p.file, p.model_file, p.mass, p.scale,
        p.rigid_body ? ", rigid body" : "", p.deform ? ", deforming" : "");
  for (const auto& p : md.paths)
    put(out, "    path \"{}\": {} translation keys, {} rotation keys\n", p.file, p.translation_keys, p.rotation_keys);
  if (md.state) {
    const ModeDefStateSummary& st = *md.state;
    put(out, "    state: {} fps, gravity ({} {} {}), friction {}, {} objects, {} planes, {} constraints\n", st.fps,
        st.gravity[0], st.gravity[1], st.gravity[2], st.friction, st.objects.size(), st.planes, st.constraints);
  }
}

}  // namespace meshport::summary_parts
