// ModeDefData <-> JSON for glTF extras; the schema is in gltf_modedef.h.
#include "formats/shared/gltf_modedef.h"

#include "formats/shared/base64.h"
#include "formats/shared/gltf_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
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
using json_util::nearest_float;
using json_util::object;
using json_util::sub;
using json_util::to_bool;
using json_util::to_float_nearest;
using json_util::to_string;

constexpr const char* kKinds[] = {"model", "prop", "state", "path"};
constexpr int64_t kVersion = 1;

// ---- Writing ---------------------------------------------------------------------------------

// The float's shortest decimal form as a double when that reads back to the float bit for bit
// (it almost always does: half the text of its exact value), else its exact value.
json jfloat(float f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  double d = 0;
  const auto p = std::from_chars(buf, r.ptr, d);
  if (p.ec == std::errc() && std::bit_cast<uint32_t>(nearest_float(d)) == std::bit_cast<uint32_t>(f)) return d;
  return double(f);
}

template <class Range>
json jfloats(const Range& r) {
  json a = json::array();
  for (float f : r) a.push_back(jfloat(f));
  return a;
}

// Flat: the N floats of each record in turn.
template <size_t N>
json jflat(const std::vector<std::array<float, N>>& v) {
  json a = json::array();
  for (const auto& x : v)
    for (float f : x) a.push_back(jfloat(f));
  return a;
}

json jmodel(const ModeDefModelFile& file) {
  const ModeDefModel& m = file.model;
  json faces = json::array(), materials = json::array(), groups = json::array(), tets = json::array();
  json carton_tets = json::array(), carton_bary = json::array();
  for (const ModeDefFace& f : m.faces)
    for (size_t c = 0; c < 3; ++c) {
      faces.push_back(f.vertex[c]);
      faces.push_back(f.normal[c]);
      faces.push_back(f.texcoord[c]);
    }
  for (const ModeDefMaterial& mat : m.materials) {
    for (const auto* c : {&mat.ambient, &mat.diffuse, &mat.specular, &mat.emissive})
      for (float f : *c) materials.push_back(jfloat(f));
    materials.push_back(jfloat(mat.specular_strength));
  }
  for (const ModeDefGroup& g : m.groups) {
    groups.push_back(g.first);
    groups.push_back(g.last);
    groups.push_back(g.material);
  }
  for (const auto& t : m.tets)
    for (int32_t n : t) tets.push_back(n);
  for (const ModeDefCartonVertex& cv : m.carton_vertices) {
    carton_tets.push_back(cv.tet);
    for (float b : cv.bary) carton_bary.push_back(jfloat(b));
  }
  const ModeDefIndexing& ix = m.indexing;
  return {{"file", jstring(file.file)},
          {"eigenvalues", jfloats(m.eigenvalues)},
          {"eigenvectors", jfloats(m.eigenvectors)},
          {"rest", jfloats(m.rest)},
          {"vertices", jflat(m.vertices)},
          {"normals", jflat(m.normals)},
          {"texcoords", jflat(m.texcoords)},
          {"faces", std::move(faces)},
          {"materials", std::move(materials)},
          {"groups", std::move(groups)},
          {"tets", std::move(tets)},
          {"carton", m.carton},
          {"carton_tets", std::move(carton_tets)},
          {"carton_bary", std::move(carton_bary)},
          {"indexing",
           {{"face_base", ix.face_base},
            {"group_base", ix.group_base},
            {"group_end_inclusive", ix.group_end_inclusive},
            {"tet_base", ix.tet_base},
            {"carton_base", ix.carton_base}}}};
}

json jprop(const ModeDefPropFile& file) {
  const ModeDefProp& p = file.prop;
  return {{"file", jstring(file.file)},     {"model", file.model},       {"model_file", jstring(p.model_file)},
          {"rigid_body", p.rigid_body},     {"deform", p.deform},        {"mass", jfloat(p.mass)},
          {"center_of_mass", jfloats(p.center_of_mass)},                 {"inertia", jfloats(p.inertia)},
          {"unused1", jfloat(p.unused1)},   {"lame", jfloat(p.lame)},    {"damping1", jfloat(p.damping1)},
          {"damping2", jfloat(p.damping2)}, {"scale", jfloat(p.scale)},  {"unused2", jfloat(p.unused2)},
          {"kp", jfloat(p.kp)},             {"kv", jfloat(p.kv)},        {"kb", jfloat(p.kb)}};
}

json jkeys(const std::vector<ModeDefPathKey>& keys) {
  json a = json::array();
  for (const ModeDefPathKey& k : keys) {
    a.push_back(jfloat(k.time));
    for (float f : k.value) a.push_back(jfloat(f));
  }
  return a;
}

json jstate(const ModeDefState& s) {
  json objects = json::array(), planes = json::array(), constraints = json::array();
  for (const ModeDefObject& o : s.objects)
    objects.push_back({{"name", jstring(o.name)},
                       {"animated", o.animated},
                       {"position", jfloats(o.position)},
                       {"rotation", jfloats(o.rotation)},
                       {"velocity", jfloats(o.velocity)},
                       {"angular_velocity", jfloats(o.angular_velocity)},
                       {"birth", jfloat(o.birth)},
                       {"death", jfloat(o.death)},
                       {"path_file", jstring(o.path_file)}});
  for (const ModeDefPlane& p : s.planes) {
    for (float f : p.normal) planes.push_back(jfloat(f));
    for (float f : p.point) planes.push_back(jfloat(f));
  }
  for (const ModeDefConstraint& c : s.constraints)
    constraints.push_back({{"body1", c.body1}, {"body2", c.body2}, {"point", jfloats(c.point)}});
  return {{"fps", s.fps},
          {"use_penalty", s.use_penalty},
          {"gravity", jfloats(s.gravity)},
          {"friction", jfloat(s.friction)},
          {"max_penetration", jfloat(s.max_penetration)},
          {"cluster_factor", jfloat(s.cluster_factor)},
          {"cluster_radius", jfloat(s.cluster_radius)},
          {"objects", std::move(objects)},
          {"planes", std::move(planes)},
          {"constraints", std::move(constraints)}};
}

// ---- Reading ---------------------------------------------------------------------------------

template <size_t N>
std::array<float, N> to_floats(const json& v, const std::string& path) {
  array(v, path);
  if (v.size() != N) bad(path, fmt::format("has {} entries, not {}", v.size(), N));
  std::array<float, N> r{};
  for (size_t i = 0; i < N; ++i) r[i] = to_float_nearest(v[i], sub(path, i));
  return r;
}

std::vector<float> float_list(const json& o, const char* key, const std::string& path) {
  std::vector<float> r;
  const json* v = field(o, key);
  if (!v) return r;
  const std::string p = sub(path, key);
  array(*v, p);
  r.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) r.push_back(to_float_nearest((*v)[i], sub(p, i)));
  return r;
}

std::vector<int32_t> int_list(const json& o, const char* key, const std::string& path) {
  std::vector<int32_t> r;
  const json* v = field(o, key);
  if (!v) return r;
  const std::string p = sub(path, key);
  array(*v, p);
  r.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) r.push_back(int32((*v)[i], sub(p, i)));
  return r;
}

// A flat list of records of `n` values: the record count, or an error.
template <class T>
size_t records(const std::vector<T>& flat, size_t n, const std::string& path, const char* what) {
  if (flat.size() % n) bad(path, fmt::format("has {} values, not {} per {}", flat.size(), n, what));
  return flat.size() / n;
}

template <size_t N>
std::vector<std::array<float, N>> float_records(const json& o, const char* key, const std::string& path,
                                                const char* what) {
  const std::vector<float> flat = float_list(o, key, path);
  std::vector<std::array<float, N>> r(records(flat, N, sub(path, key), what));
  for (size_t i = 0; i < r.size(); ++i) std::copy_n(flat.begin() + long(i * N), N, r[i].begin());
  return r;
}

// An index that must be in 0..count-1 (or -1 when `none`).
void check_index(int64_t i, size_t count, const std::string& path, const char* what, bool none = false) {
  if ((none && i == -1) || (i >= 0 && uint64_t(i) < count)) return;
  bad(path, fmt::format("{} {} does not exist (there are {})", what, i, count));
}

int32_t base(const json& o, const char* key, const std::string& path) {
  int32_t b = 0;
  get(o, key, path, b, [](const json& v, const std::string& p) { return int32_t(integer(v, p, 0, 1)); });
  return b;
}

ModeDefModelFile to_model(const json& v, const std::string& path) {
  object(v, path);
  ModeDefModelFile file;
  ModeDefModel& m = file.model;
  get(v, "file", path, file.file, to_string);
  m.eigenvalues = float_list(v, "eigenvalues", path);
  m.eigenvectors = float_list(v, "eigenvectors", path);
  m.rest = float_list(v, "rest", path);
  const size_t len = m.rest.size();
  if (len % 3) bad(sub(path, "rest"), fmt::format("has {} values, not 3 per node", len));
  if (m.eigenvectors.size() != m.eigenvalues.size() * len)
    bad(sub(path, "eigenvectors"), fmt::format("has {} values, not {} modes x {}", m.eigenvectors.size(),
                                               m.eigenvalues.size(), len));
  m.vertices = float_records<3>(v, "vertices", path, "vertex");
  m.normals = float_records<3>(v, "normals", path, "normal");
  m.texcoords = float_records<2>(v, "texcoords", path, "texcoord");

  const std::string fp = sub(path, "faces");
  const std::vector<int32_t> faces = int_list(v, "faces", path);
  m.faces.resize(records(faces, 9, fp, "face"));
  for (size_t f = 0; f < m.faces.size(); ++f)
    for (size_t c = 0; c < 3; ++c) {
      ModeDefFace& face = m.faces[f];
      const size_t at = f * 9 + c * 3;
      face.vertex[c] = faces[at];
      face.normal[c] = faces[at + 1];
      face.texcoord[c] = faces[at + 2];
      check_index(face.vertex[c], m.vertices.size(), sub(fp, at), "vertex");
      // Normal and texcoord indices of a model without normals / texcoords are kept as written.
      if (!m.normals.empty()) check_index(face.normal[c], m.normals.size(), sub(fp, at + 1), "normal");
      if (!m.texcoords.empty()) check_index(face.texcoord[c], m.texcoords.size(), sub(fp, at + 2), "texcoord");
    }

  const std::vector<float> materials = float_list(v, "materials", path);
  m.materials.resize(records(materials, 17, sub(path, "materials"), "material"));
  for (size_t i = 0; i < m.materials.size(); ++i) {
    const float* x = materials.data() + i * 17;
    ModeDefMaterial& mat = m.materials[i];
    for (auto* c : {&mat.ambient, &mat.diffuse, &mat.specular, &mat.emissive}) {
      std::copy_n(x, 4, c->begin());
      x += 4;
    }
    mat.specular_strength = *x;
  }

  const std::string gp = sub(path, "groups");
  const std::vector<int32_t> groups = int_list(v, "groups", path);
  m.groups.resize(records(groups, 3, gp, "group"));
  for (size_t g = 0; g < m.groups.size(); ++g) {
    ModeDefGroup& grp = m.groups[g];
    grp = {groups[g * 3], groups[g * 3 + 1], groups[g * 3 + 2]};
    check_index(grp.first, m.faces.size(), sub(gp, g * 3), "face");
    check_index(grp.last, m.faces.size(), sub(gp, g * 3 + 1), "face");
    if (grp.last < grp.first) bad(sub(gp, g * 3 + 1), fmt::format("group {} ends before it starts", g));
    check_index(grp.material, m.materials.size(), sub(gp, g * 3 + 2), "material");
  }
  // No face in two groups.
  std::vector<size_t> order(m.groups.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m.groups[a].first < m.groups[b].first; });
  for (size_t i = 1; i < order.size(); ++i)
    if (m.groups[order[i]].first <= m.groups[order[i - 1]].last)
      bad(gp, fmt::format("group {} overlaps group {}", order[i], order[i - 1]));

  const std::string tp = sub(path, "tets");
  const std::vector<int32_t> tets = int_list(v, "tets", path);
  m.tets.resize(records(tets, 4, tp, "tetrahedron"));
  for (size_t t = 0; t < tets.size(); ++t) {
    check_index(tets[t], m.node_count(), sub(tp, t), "node");
    m.tets[t / 4][t % 4] = tets[t];
  }

  get(v, "carton", path, m.carton, to_bool);
  const std::string cp = sub(path, "carton_tets");
  const std::vector<int32_t> carton_tets = int_list(v, "carton_tets", path);
  const std::vector<std::array<float, 4>> bary = float_records<4>(v, "carton_bary", path, "carton vertex");
  if (carton_tets.size() != bary.size())
    bad(cp, fmt::format("has {} entries, but carton_bary has {} carton vertices", carton_tets.size(), bary.size()));
  if (m.carton && carton_tets.size() != m.vertices.size())
    bad(cp, fmt::format("has {} carton vertices, the mesh has {} vertices", carton_tets.size(), m.vertices.size()));
  if (!m.carton && !carton_tets.empty()) bad(cp, "holds carton vertices of a model without a carton");
  if (!m.carton && !m.eigenvalues.empty() && m.vertices.size() != m.node_count())
    bad(sub(path, "carton"), fmt::format("no carton: {} render vertices but the modes have {} nodes",
                                         m.vertices.size(), m.node_count()));
  m.carton_vertices.resize(carton_tets.size());
  for (size_t k = 0; k < carton_tets.size(); ++k) {
    check_index(carton_tets[k], m.tets.size(), sub(cp, k), "tetrahedron");
    m.carton_vertices[k] = {carton_tets[k], bary[k]};
    const double sum = double(bary[k][0]) + double(bary[k][1]) + double(bary[k][2]) + double(bary[k][3]);
    if (!(std::fabs(sum - 1.0) <= 1e-3))
      bad(sub(sub(path, "carton_bary"), k * 4),
          fmt::format("carton vertex {}: barycentric coordinates sum to {:.6g} (must be 1 within 1e-3)", k, sum));
  }

  if (const json* ix = field(v, "indexing")) {
    const std::string ip = sub(path, "indexing");
    object(*ix, ip);
    m.indexing.face_base = base(*ix, "face_base", ip);
    m.indexing.group_base = base(*ix, "group_base", ip);
    get(*ix, "group_end_inclusive", ip, m.indexing.group_end_inclusive, to_bool);
    m.indexing.tet_base = base(*ix, "tet_base", ip);
    m.indexing.carton_base = base(*ix, "carton_base", ip);
  }
  return file;
}

ModeDefPropFile to_prop(const json& v, const std::string& path, size_t models) {
  object(v, path);
  ModeDefPropFile file;
  ModeDefProp& p = file.prop;
  get(v, "file", path, file.file, to_string);
  get(v, "model", path, file.model, int32);
  check_index(file.model, models, sub(path, "model"), "model", true);
  get(v, "model_file", path, p.model_file, to_string);
  get(v, "rigid_body", path, p.rigid_body, int32);
  get(v, "deform", path, p.deform, int32);
  get(v, "mass", path, p.mass, to_float_nearest);
  get(v, "center_of_mass", path, p.center_of_mass, to_floats<3>);
  get(v, "inertia", path, p.inertia, to_floats<9>);
  get(v, "unused1", path, p.unused1, to_float_nearest);
  get(v, "lame", path, p.lame, to_float_nearest);
  get(v, "damping1", path, p.damping1, to_float_nearest);
  get(v, "damping2", path, p.damping2, to_float_nearest);
  get(v, "scale", path, p.scale, to_float_nearest);
  get(v, "unused2", path, p.unused2, to_float_nearest);
  get(v, "kp", path, p.kp, to_float_nearest);
  get(v, "kv", path, p.kv, to_float_nearest);
  get(v, "kb", path, p.kb, to_float_nearest);
  return file;
}

std::vector<ModeDefPathKey> to_keys(const json& o, const char* key, const std::string& path) {
  const std::vector<std::array<float, 4>> flat = float_records<4>(o, key, path, "key");
  std::vector<ModeDefPathKey> keys(flat.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    keys[i] = {flat[i][0], {flat[i][1], flat[i][2], flat[i][3]}};
    // As the .path parser: key times must not decrease.
    if (i > 0 && !(keys[i].time >= keys[i - 1].time))
      bad(sub(sub(path, key), i * 4), fmt::format("key {} goes back in time", i));
  }
  return keys;
}

ModeDefPathFile to_path(const json& v, const std::string& path) {
  object(v, path);
  ModeDefPathFile file;
  get(v, "file", path, file.file, to_string);
  file.path.translation = to_keys(v, "translation", path);
  file.path.rotation = to_keys(v, "rotation", path);
  return file;
}

ModeDefObject to_object(const json& v, const std::string& path) {
  object(v, path);
  ModeDefObject o;
  get(v, "name", path, o.name, to_string);
  get(v, "animated", path, o.animated, to_bool);
  get(v, "position", path, o.position, to_floats<3>);
  get(v, "rotation", path, o.rotation, to_floats<4>);
  get(v, "velocity", path, o.velocity, to_floats<3>);
  get(v, "angular_velocity", path, o.angular_velocity, to_floats<3>);
  get(v, "birth", path, o.birth, to_float_nearest);
  get(v, "death", path, o.death, to_float_nearest);
  get(v, "path_file", path, o.path_file, to_string);
  // As the .state parser: the rotation must be a quaternion that can be normalised.
  if (o.rotation == std::array<float, 4>{0, 0, 0, 0}) bad(sub(path, "rotation"), "is a zero quaternion");
  return o;
}

ModeDefState to_state(const json& v, const std::string& path) {
  object(v, path);
  ModeDefState s;
  get(v, "fps", path, s.fps, int32);
  get(v, "use_penalty", path, s.use_penalty, int32);
  get(v, "gravity", path, s.gravity, to_floats<3>);
  get(v, "friction", path, s.friction, to_float_nearest);
  get(v, "max_penetration", path, s.max_penetration, to_float_nearest);
  get(v, "cluster_factor", path, s.cluster_factor, to_float_nearest);
  get(v, "cluster_radius", path, s.cluster_radius, to_float_nearest);
  if (const json* objects = field(v, "objects")) {
    const std::string op = sub(path, "objects");
    array(*objects, op);
    for (size_t i = 0; i < objects->size(); ++i) s.objects.push_back(to_object((*objects)[i], sub(op, i)));
  }
  const std::vector<std::array<float, 6>> planes = float_records<6>(v, "planes", path, "plane");
  for (size_t i = 0; i < planes.size(); ++i) {
    ModeDefPlane p;
    std::copy_n(planes[i].begin(), 3, p.normal.begin());
    std::copy_n(planes[i].begin() + 3, 3, p.point.begin());
    if (p.normal == std::array<float, 3>{0, 0, 0}) bad(sub(sub(path, "planes"), i * 6), "a plane normal is 0 0 0");
    s.planes.push_back(p);
  }
  if (const json* cons = field(v, "constraints")) {
    const std::string cp = sub(path, "constraints");
    array(*cons, cp);
    for (size_t i = 0; i < cons->size(); ++i) {
      const std::string p = sub(cp, i);
      const json& c = object((*cons)[i], p);
      ModeDefConstraint k;
      get(c, "body1", p, k.body1, int32);
      get(c, "body2", p, k.body2, int32);
      get(c, "point", p, k.point, to_floats<3>);
      check_index(k.body1, s.objects.size(), sub(p, "body1"), "object", true);
      check_index(k.body2, s.objects.size(), sub(p, "body2"), "object");
      s.constraints.push_back(k);
    }
  }
  return s;
}

// One entry per state object, each -1 (when `none`) or below `count`.
std::vector<int32_t> per_object(const json& o, const char* key, const std::string& path, size_t objects,
                                size_t count, const char* what, bool none) {
  std::vector<int32_t> r = int_list(o, key, path);
  if (r.size() != objects)
    bad(sub(path, key), fmt::format("has {} entries, but the state has {} objects", r.size(), objects));
  for (size_t i = 0; i < r.size(); ++i) check_index(r[i], count, sub(sub(path, key), i), what, none);
  return r;
}

}  // namespace

json modedef_to_json(const ModeDefData& md) {
  json models = json::array(), props = json::array(), paths = json::array();
  for (const ModeDefModelFile& m : md.models) models.push_back(jmodel(m));
  for (const ModeDefPropFile& p : md.props) props.push_back(jprop(p));
  for (const ModeDefPathFile& p : md.paths)
    paths.push_back({{"file", jstring(p.file)}, {"translation", jkeys(p.path.translation)},
                     {"rotation", jkeys(p.path.rotation)}});
  return {{"version", kVersion},
          {"kind", kKinds[size_t(md.kind) & 3]},
          {"models", std::move(models)},
          {"props", std::move(props)},
          {"paths", std::move(paths)},
          {"state", jstate(md.state)},
          {"object_prop", md.object_prop},
          {"object_path", md.object_path},
          {"object_joint", md.object_joint}};
}

std::vector<json> modedef_mesh_json(const ModeDefData& md, size_t meshes) {
  std::vector<json> r(meshes);
  for (size_t k = 0; k < md.mesh_sources.size(); ++k) {
    const ModeDefMeshSource& s = md.mesh_sources[k];
    if (s.mesh < 0 || size_t(s.mesh) >= meshes || !r[size_t(s.mesh)].is_null()) continue;
    r[size_t(s.mesh)] = {{"source", k},          {"model", s.model},   {"object", s.object},
                         {"group", s.group},     {"vertex", s.vertex}, {"normal", s.normal}};
  }
  return r;
}

ModeDefData modedef_from_json(const json& j, const std::string& path, size_t joints) {
  object(j, path);
  int64_t version = kVersion;
  get(j, "version", path, version,
      [](const json& v, const std::string& p) { return integer(v, p, 0, std::numeric_limits<int32_t>::max()); });
  if (version != kVersion)
    bad(sub(path, "version"), fmt::format("{} is not a known version of the ModeDef extras ({})", version, kVersion));
  ModeDefData md;
  std::string kind = kKinds[0];
  get(j, "kind", path, kind, to_string);
  size_t k = 0;
  while (k < 4 && kind != kKinds[k]) ++k;
  if (k == 4) bad(sub(path, "kind"), fmt::format("'{}' is not a ModeDef file kind", kind.substr(0, 64)));
  md.kind = ModeDefData::Kind(k);
  auto list = [&](const char* key, auto&& convert) {
    using T = decltype(convert(j, path));
    std::vector<T> r;
    if (const json* v = field(j, key)) {
      const std::string p = sub(path, key);
      array(*v, p);
      for (size_t i = 0; i < v->size(); ++i) r.push_back(convert((*v)[i], sub(p, i)));
    }
    return r;
  };
  md.models = list("models", to_model);
  md.props = list("props", [&](const json& v, const std::string& p) { return to_prop(v, p, md.models.size()); });
  md.paths = list("paths", to_path);
  get(j, "state", path, md.state, to_state);
  const size_t n = md.state.objects.size();
  md.object_prop = per_object(j, "object_prop", path, n, md.props.size(), ".prop", true);
  md.object_path = per_object(j, "object_path", path, n, md.paths.size(), "path", true);
  md.object_joint = per_object(j, "object_joint", path, n, joints, "joint", true);
  return md;
}

ModeDefMeshSource modedef_mesh_from_json(const json& j, const std::string& path, const ModeDefData& md,
                                         int32_t scene_mesh, size_t vertices, int32_t& source) {
  object(j, path);
  ModeDefMeshSource s;
  s.mesh = scene_mesh;
  source = -1;
  get(j, "source", path, source, int32);
  if (source < 0) bad(sub(path, "source"), fmt::format("{} is not a mesh source index", source));
  get(j, "model", path, s.model, int32);
  check_index(s.model, md.models.size(), sub(path, "model"), "model");
  const ModeDefModel& m = md.models[size_t(s.model)].model;
  get(j, "object", path, s.object, int32);
  check_index(s.object, md.state.objects.size(), sub(path, "object"), "object", true);
  get(j, "group", path, s.group, int32);
  check_index(s.group, m.groups.size(), sub(path, "group"), "group", true);
  const std::vector<int32_t> vertex = int_list(j, "vertex", path);
  if (vertex.size() != vertices)
    bad(sub(path, "vertex"), fmt::format("has {} entries, but the mesh read has {} vertices", vertex.size(), vertices));
  s.vertex.resize(vertex.size());
  for (size_t v = 0; v < vertex.size(); ++v) {
    check_index(vertex[v], m.vertices.size(), sub(sub(path, "vertex"), v), "render vertex");
    s.vertex[v] = uint32_t(vertex[v]);
  }
  s.normal = int_list(j, "normal", path);
  if (!s.normal.empty() && s.normal.size() != vertices)
    bad(sub(path, "normal"), fmt::format("has {} entries, but the mesh read has {} vertices", s.normal.size(), vertices));
  for (size_t v = 0; v < s.normal.size(); ++v)
    check_index(s.normal[v], m.normals.size(), sub(sub(path, "normal"), v), "normal", true);
  return s;
}

void restore_modedef(Scene& scene, const json& doc, const std::vector<int32_t>& scene_mesh, const std::string& file,
                     Diagnostics& diags) {
  auto warn = [&](const std::string& msg) { diags.add(warning(file, msg)); };
  auto meshport_extras = [](const json& o) -> const json* {
    const json* e = field(o, "extras");
    return e ? field(*e, "meshport") : nullptr;
  };
  // The scene read: `scene` when valid (the reader checked it), else the first.
  size_t si = 0;
  if (const json* sc = field(doc, "scene"); sc && sc->is_number_unsigned()) si = sc->get<size_t>();
  const json* scenes = field(doc, "scenes");
  const json* mp = scenes && scenes->is_array() && si < scenes->size() ? meshport_extras((*scenes)[si]) : nullptr;
  const json* data = mp ? field(*mp, "modedef") : nullptr;
  const json* meshes = field(doc, "meshes");
  if (!data) return;
  const std::string path = fmt::format("scenes[{}].extras.meshport.modedef", si);
  ModeDefData md;
  try {
    md = modedef_from_json(*data, path, scene.joints.size());
  } catch (const Error& e) {
    warn(fmt::format("{}; the ModeDef data is ignored", e.diagnostic().message));
    return;
  }
  // Each glTF mesh's source, in the order of ModeDefData::mesh_sources.
  std::vector<std::pair<int32_t, ModeDefMeshSource>> sources;
  std::vector<size_t> source_mesh;  // per entry of `sources`: its glTF mesh
  const size_t count = meshes && meshes->is_array() ? std::min(meshes->size(), scene_mesh.size()) : 0;
  for (size_t g = 0; g < count; ++g) {
    const json* x = meshport_extras((*meshes)[g]);
    const json* src = x ? field(*x, "modedef") : nullptr;
    if (!src) continue;
    const std::string sp = fmt::format("meshes[{}].extras.meshport.modedef", g);
    const int32_t sm = scene_mesh[g];
    if (sm < 0 || size_t(sm) >= scene.meshes.size()) {
      warn(fmt::format("{}: the mesh is not in the scene read; its ModeDef source is ignored", sp));
      continue;
    }
    try {
      int32_t k = -1;
      ModeDefMeshSource s = modedef_mesh_from_json(*src, sp, md, sm, scene.meshes[size_t(sm)].vertex_count(), k);
      sources.emplace_back(k, std::move(s));
      source_mesh.push_back(g);
    } catch (const Error& e) {
      warn(fmt::format("{}; the mesh's ModeDef source is ignored (a .model written from this Scene is rebuilt from "
                       "its meshes)",
                       e.diagnostic().message));
    }
  }
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sources[a].first < sources[b].first; });
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && sources[order[i]].first == sources[order[i - 1]].first) {
      warn(fmt::format("meshes[{}].extras.meshport.modedef.source: meshes[{}] has source {} already; the mesh's "
                       "ModeDef source is ignored",
                       source_mesh[order[i]], source_mesh[order[i - 1]], sources[order[i]].first));
      continue;
    }
    md.mesh_sources.push_back(std::move(sources[order[i]].second));
  }
  scene.modedef = std::move(md);
  scene.modedef->fingerprint = content_fingerprint(scene);
}

}  // namespace meshport::gltf
