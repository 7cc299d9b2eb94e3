// ModeDef .prop, .state and .path: parse / print, .state scenes, their writers (modedef.h).
// docs/modedef.md (".prop", ".state", ".path") is the contract; choices it leaves open are marked
// "Decision:" here and listed there.
//
// Reading a .state: the file is parsed with the location of every token that names another file
// or a time, then each .prop, .model and .path is loaded once (keyed by its normalised path
// relative to the .state's folder), and the Scene is built from the kept data: joints, mesh copies
// placed at their objects' rest poses, plane quads, constraint attachments, the animation.
#include "core/math.h"
#include "core/text.h"
#include "core/utf8_path.h"
#include "formats/modedef/modedef.h"
#include "formats/modedef/modedef_token.h"
#include "ops/animation/euler_zyx.h"
#include "ops/animation/path_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <numbers>
#include <utility>

namespace meshport::modedef {
namespace {

namespace fs = std::filesystem;

// Decision: an animation holds at most this many poses (frames x objects, 40 bytes each), so that
// a small file with a huge key time cannot make the Scene huge.
constexpr double kMaxPoses = double(1u << 21);
// Decision: the objects' mesh copies hold at most this many values (floats and indices, 4 bytes
// each), counting what each mesh, stream and morph target costs beyond its values (mesh_values).
constexpr double kMaxMeshValues = double(1u << 24);
constexpr int32_t kDefaultFps = 30;
constexpr double kMaxRadiusWork = double(1u << 26);
constexpr size_t kMaxNameBytes = 4096;  // PATH_MAX on Linux
// Decision: constraints become attachments (a glTF node each), bounded like joints.
constexpr size_t kMaxConstraints = kMaxJoints;
constexpr float kMinPlaneHalfSide = 10;

constexpr const char* kAxes[3] = {"x", "y", "z"};
constexpr const char* kQuat[4] = {"w", "x", "y", "z"};

struct SceneLoc {
  uint32_t line = 0, column = 0;
};
SceneLoc scene_loc_of(const Token& t) { return {t.line, t.column}; }

[[noreturn]] void fail_loc(const std::string& file, SceneLoc l, std::string message) {
  fail_at_line(file, l.line, l.column, std::move(message));
}

struct PropLocs {
  SceneLoc model_file, scale;
};
struct ObjectLocs {
  SceneLoc name, birth, death, path;
};
struct StateLocs {
  std::vector<ObjectLocs> objects;
  SceneLoc planes;  // the plane count
};
struct PathLocs {
  SceneLoc last_translation, last_rotation;  // the time tokens of the last keys
};

void read3(TokenReader& r, std::array<float, 3>& v, const std::string& what) {
  for (size_t i = 0; i < 3; ++i) v[i] = r.read_float(fmt::format("{} {}", what, kAxes[i]));
}

std::string extension_of(const std::string& file) { return text::lower(path_utf8(utf8_path(file).extension())); }

// A path relative to the main file's folder, normalised so that a file named twice ("box.prop",
// "./box.prop") is one file.
std::string normal_path(const fs::path& p) {
  std::string s = generic_utf8(p.lexically_normal());
  return s.empty() ? std::string(".") : s;
}
std::string normal_path(const std::string& p) { return normal_path(utf8_path(p)); }

std::string stem_of(const std::string& file) { return path_utf8(utf8_path(file).stem()); }

// A file name: one token that is text (binary garbage is not looked for on disk).
std::string read_name(TokenReader& r, const std::string& what) {
  const Token t = r.peek();
  std::string name = r.read_string(what);
  if (name.size() > kMaxNameBytes)
    r.fail_at(t, fmt::format("{} '{}' is too long for a file name ({} bytes)", what, shown(name), name.size()));
  if (!is_text(name))
    r.fail_at(t, fmt::format("{} '{}' is not a file name: it holds control bytes or bytes that are not UTF-8", what,
                             shown(name)));
  return name;
}

// ---- Parsers ------------------------------------------------------------------------------

ModeDefProp parse_prop_at(std::string_view text, const std::string& name, PropLocs* locs) {
  TokenReader r(text, name);
  ModeDefProp p;
  PropLocs l;
  l.model_file = scene_loc_of(r.peek());
  p.model_file = read_name(r, "the model file name MODELFILE");
  p.rigid_body = r.read_flag("the rigid-body flag RB");
  p.deform = r.read_flag("the deformation flag DEFORM");
  p.mass = r.read_float("the mass MASS");
  read3(r, p.center_of_mass, "the centre of mass COM");
  for (size_t i = 0; i < 9; ++i)
    p.inertia[i] = r.read_float(fmt::format("the inertia tensor INERTIA row {} column {}", i / 3 + 1, i % 3 + 1));
  p.unused1 = r.read_float("the unused value X before LAME");
  p.lame = r.read_float("the Lame scale LAME");
  p.damping1 = r.read_float("the damping parameter A1");
  p.damping2 = r.read_float("the damping parameter A2");
  l.scale = scene_loc_of(r.peek());
  p.scale = r.read_float("the object scale SCALE");
  p.unused2 = r.read_float("the unused value X after SCALE");
  p.kp = r.read_float("the penalty stiffness KP");
  p.kv = r.read_float("the inward penalty damping KV");
  p.kb = r.read_float("the outward penalty damping KB");
  r.expect_end("the last value of the .prop (KB)");
  if (locs) *locs = l;
  return p;
}

ModeDefState parse_state_at(std::string_view text, const std::string& name, StateLocs* locs) {
  TokenReader r(text, name);
  ModeDefState s;
  StateLocs l;
  s.fps = r.read_int("the frame rate FPS");
  s.use_penalty = r.read_flag("the penalty flag USEPENALTY");
  read3(r, s.gravity, "the gravity GRAV");
  s.friction = r.read_float("the friction coefficient KF");
  s.max_penetration = r.read_float("the maximum penetration MAXPEN");
  s.cluster_factor = r.read_float("the cluster factor CLUSFAC");
  s.cluster_radius = r.read_float("the cluster radius CLUSRAD");

  // NAME, POS 3, ROT 4, VEL 3, AVEL 3, TBIRTH, TDEATH: 16 tokens at least.
  const Token at_objects = r.peek();
  const uint32_t objects = r.read_count("the object count #OBJ", 16);
  if (objects > kMaxJoints)
    r.fail_at(at_objects, fmt::format("the object count #OBJ {} is more than meshport reads from one file ({} objects, "
                                      "one joint each)",
                                      objects, kMaxJoints));
  s.objects.resize(objects);
  l.objects.resize(objects);
  for (uint32_t i = 0; i < objects; ++i) {
    ModeDefObject& o = s.objects[i];
    ObjectLocs& ol = l.objects[i];
    ol.name = scene_loc_of(r.peek());
    o.name = read_name(r, fmt::format("the name of object {} (its .prop file)", i));
    if (r.peek().text == "a") {
      r.next("the flag a");
      o.animated = true;
    }
    read3(r, o.position, fmt::format("the position POS of object {}", i));
    const Token rot = r.peek();
    double norm2 = 0;
    for (size_t c = 0; c < 4; ++c) {
      o.rotation[c] = r.read_float(fmt::format("the rotation ROT of object {}, quaternion {}", i, kQuat[c]));
      norm2 += double(o.rotation[c]) * double(o.rotation[c]);
    }
    if (norm2 == 0) r.fail_at(rot, fmt::format("the rotation ROT of object {} is the zero quaternion", i));
    read3(r, o.velocity, fmt::format("the velocity VEL of object {}", i));
    read3(r, o.angular_velocity, fmt::format("the angular velocity AVEL of object {}", i));
    ol.birth = scene_loc_of(r.peek());
    o.birth = r.read_float(fmt::format("the birth time TBIRTH of object {}", i));
    ol.death = scene_loc_of(r.peek());
    o.death = r.read_float(fmt::format("the death time TDEATH of object {}", i));
    if (o.animated) {
      ol.path = scene_loc_of(r.peek());
      o.path_file = read_name(r, fmt::format("the animation path ANIMPATH of object {}", i));
    }
  }

  l.planes = scene_loc_of(r.peek());
  const uint32_t planes = r.read_count("the plane count #PLANES", 6);
  s.planes.resize(planes);
  for (uint32_t k = 0; k < planes; ++k) {
    ModeDefPlane& p = s.planes[k];
    const Token n = r.peek();
    read3(r, p.normal, fmt::format("the normal N of plane {}", k));
    // Decision: a plane needs a direction (docs/modedef.md).
    if (p.normal[0] == 0 && p.normal[1] == 0 && p.normal[2] == 0)
      r.fail_at(n, fmt::format("the normal N of plane {} is zero", k));
    read3(r, p.point, fmt::format("the point P of plane {}", k));
  }

  const Token at_constraints = r.peek();
  const uint32_t constraints = r.read_count("the constraint count #CONS", 5);
  if (constraints > kMaxConstraints)
    r.fail_at(at_constraints, fmt::format("the constraint count #CONS {} is more than meshport reads from one file ({} "
                                          "constraints, one attachment each)",
                                          constraints, kMaxConstraints));
  s.constraints.resize(constraints);
  const int64_t count = int64_t(objects);
  for (uint32_t k = 0; k < constraints; ++k) {
    ModeDefConstraint& c = s.constraints[k];
    const Token b1 = r.peek();
    c.body1 = r.read_int(fmt::format("the first body B1 of constraint {}", k));
    if (c.body1 < -1 || c.body1 >= count)
      r.fail_at(b1, fmt::format("the first body B1 {} of constraint {} is neither -1 (static) nor an object index "
                                "(the .state has {} {})",
                                c.body1, k, count, count == 1 ? "object" : "objects"));
    const Token b2 = r.peek();
    c.body2 = r.read_int(fmt::format("the second body B2 of constraint {}", k));
    if (c.body2 < 0 || c.body2 >= count)
      r.fail_at(b2, fmt::format("the second body B2 {} of constraint {} is not an object index (the .state has {} {})",
                                c.body2, k, count, count == 1 ? "object" : "objects"));
    read3(r, c.point, fmt::format("the point P of constraint {}", k));
  }
  r.expect_end("the last value of the .state");
  if (locs) *locs = std::move(l);
  return s;
}

void read_keys(TokenReader& r, std::vector<ModeDefPathKey>& keys, uint32_t n, const char* kind, const char* value,
               SceneLoc& last) {
  keys.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    const Token t = r.peek();
    keys[k].time = r.read_float(fmt::format("the time of {} key {}", kind, k));
    if (k > 0 && keys[k].time < keys[k - 1].time)
      r.fail_at(t, fmt::format("the time {} of {} key {} is before the previous key's {}: key times must not "
                               "decrease",
                               format_float(keys[k].time), kind, k, format_float(keys[k - 1].time)));
    last = scene_loc_of(t);
    read3(r, keys[k].value, fmt::format("the {} of {} key {}", value, kind, k));
  }
}

ModeDefPath parse_path_at(std::string_view text, const std::string& name, PathLocs* locs) {
  TokenReader r(text, name);
  ModeDefPath p;
  PathLocs l;
  const uint32_t nt = r.read_count("the translation key count #T", 4);
  const Token rt = r.peek();
  const uint32_t nr = r.read_count("the rotation key count #R", 4);
  if (uint64_t(nt) + nr > r.remaining() / 8 + 1) {
    // Each count alone fits; both together must too (4 tokens of 2 bytes per key).
    r.fail_at(rt, fmt::format("{} translation and {} rotation keys are more than the rest of the file can hold", nt, nr));
  }
  read_keys(r, p.translation, nt, "translation", "position", l.last_translation);
  read_keys(r, p.rotation, nr, "rotation", "Euler angles", l.last_rotation);
  r.expect_end("the last key of the .path");
  if (locs) *locs = l;
  return p;
}

// ---- Printers -----------------------------------------------------------------------------

void put(std::string& out, float v) { out += format_float(v); }
void put3(std::string& out, const std::array<float, 3>& v) {
  for (size_t i = 0; i < 3; ++i) {
    if (i) out += ' ';
    put(out, v[i]);
  }
  out += '\n';
}

// ---- Interpolation ------------------------------------------------------------------------

// Frames 0..ceil(duration * fps): the count, failing at `where` past kMaxPoses.
size_t frame_count(double duration, double fps, size_t channels, const std::string& file, SceneLoc where) {
  const double last = std::ceil(std::max(0.0, duration) * fps - 1e-6);
  const double frames = std::max(0.0, last) + 1;
  if (frames * double(std::max<size_t>(channels, 1)) > kMaxPoses)
    fail_loc(file, where,
             fmt::format("the animation would be {} s long: at {} fps, more than {} poses for {} {}",
                         format_float(float(duration)), fps, kMaxPoses, channels, channels == 1 ? "object" : "objects"));
  return size_t(frames);
}

// The Scene rotation (x y z w) of a .state quaternion (w x y z), normalised.
Quat scene_rotation(const std::array<float, 4>& wxyz) {
  double n = 0;
  for (float c : wxyz) n += double(c) * double(c);
  n = std::sqrt(n);
  if (n == 0) return {0, 0, 0, 1};
  return {float(wxyz[1] / n), float(wxyz[2] / n), float(wxyz[3] / n), float(wxyz[0] / n)};
}

// ---- Loading the files a .state names -----------------------------------------------------

struct Loader {
  const std::string& main_name;  // the file that was read (.state or .prop)
  fs::path main_dir;
  const SideFileLoader& load;
  Diagnostics& diags;
  ModeDefData& md;
  std::map<std::string, int32_t> props, models, paths;  // normalised path -> index

  std::string display(const std::string& rel) const { return generic_utf8(main_dir / utf8_path(rel)); }

  // The MODELFILE of a .prop as the .model it means (relative to the .prop's folder).
  static std::string resolve_model(const std::string& file, const std::string& prop_name, SceneLoc where) {
    const std::string ext = extension_of(file);
    if (ext == ".prop" || ext == ".state")
      fail_loc(prop_name, where,
               fmt::format("MODELFILE '{}' names a {} file, not a model (a .prop cannot include itself or a scene)",
                           shown(file), ext));
    const fs::path p = utf8_path(file);
    const std::string leaf = path_utf8(p.filename());
    if (leaf.empty() || leaf == "." || leaf == "..")
      fail_loc(prop_name, where, fmt::format("MODELFILE '{}' does not name a file", shown(file)));
    if (ext == ".model") return file;
    return generic_utf8(utf8_path(file).replace_extension(".model"));
  }

  // Loads and parses the model `rel` (relative to the main file's folder) once; errors at `where`
  // in `referrer`.
  int32_t model(const std::string& rel, const std::string& as_referenced, const std::string& referrer, SceneLoc where) {
    const std::string key = normal_path(rel);
    if (auto it = models.find(key); it != models.end()) return it->second;
    std::vector<uint8_t> bytes;
    try {
      bytes = load(key);
    } catch (const Error& e) {
      fail_loc(referrer, where, fmt::format("cannot load the model '{}': {}", shown(as_referenced), e.what()));
    }
    ModeDefModelFile f;
    f.file = as_referenced;
    try {
      f.model = parse_model(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                            display(key), diags);
    } catch (const Error& e) {
      fail_loc(referrer, where, fmt::format("in the model '{}': {}", shown(as_referenced), e.what()));
    }
    md.models.push_back(std::move(f));
    const int32_t index = int32_t(md.models.size() - 1);
    models.emplace(key, index);
    return index;
  }

  // The prop in `text` (named `name`, at `rel` relative to the main file's folder) and its model.
  ModeDefPropFile prop_file(std::string_view text, const std::string& name, const std::string& rel,
                            const std::string& as_referenced, PropLocs& pl) {
    ModeDefPropFile f;
    f.file = as_referenced;
    f.prop = parse_prop_at(text, name, &pl);
    const std::string resolved = resolve_model(f.prop.model_file, name, pl.model_file);
    f.model = model(path_utf8(utf8_path(rel).parent_path() / utf8_path(resolved)), resolved, name, pl.model_file);
    return f;
  }

  int32_t prop(const std::string& rel, SceneLoc where) {
    const std::string key = normal_path(rel);
    if (auto it = props.find(key); it != props.end()) return it->second;
    std::vector<uint8_t> bytes;
    try {
      bytes = load(key);
    } catch (const Error& e) {
      fail_loc(main_name, where, fmt::format("cannot load the .prop '{}': {}", shown(rel), e.what()));
    }
    ModeDefPropFile f;
    PropLocs pl;
    try {
      f = prop_file(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), display(key), key,
                    rel, pl);
    } catch (const Error& e) {
      fail_loc(main_name, where, fmt::format("in the .prop '{}': {}", shown(rel), e.what()));
    }
    if (!(f.prop.scale > 0))
      diags.add(warning_at_line(display(key), pl.scale.line, pl.scale.column,
                                fmt::format("SCALE {} is not positive: the object's meshes are degenerate or mirrored",
                                            format_float(f.prop.scale))));
    md.props.push_back(std::move(f));
    const int32_t index = int32_t(md.props.size() - 1);
    props.emplace(key, index);
    return index;
  }

  int32_t path(const std::string& rel, SceneLoc where, PathLocs& locs, std::vector<PathLocs>& all) {
    const std::string key = normal_path(rel);
    if (auto it = paths.find(key); it != paths.end()) {
      locs = all[size_t(it->second)];
      return it->second;
    }
    std::vector<uint8_t> bytes;
    try {
      bytes = load(key);
    } catch (const Error& e) {
      fail_loc(main_name, where, fmt::format("cannot load the .path '{}': {}", shown(rel), e.what()));
    }
    ModeDefPathFile f;
    f.file = rel;
    try {
      f.path = parse_path_at(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                             display(key), &locs);
    } catch (const Error& e) {
      fail_loc(main_name, where, fmt::format("in the .path '{}': {}", shown(rel), e.what()));
    }
    md.paths.push_back(std::move(f));
    all.push_back(locs);
    const int32_t index = int32_t(md.paths.size() - 1);
    paths.emplace(key, index);
    return index;
  }
};

// ---- Building the Scene -------------------------------------------------------------------

// Places meshes [first, end) at a rest pose: positions p -> t + R (s p), normals and tangents
// rotated (flipped when s < 0), morph displacements rotated and scaled.
void place_meshes(Scene& scene, size_t first, const Transform& rest) {
  const Mat3x4 m = mat_from_trs(rest.translation, rest.rotation, rest.scale);
  const Quat q = quat_normalize(rest.rotation);
  const float s = rest.scale[0];
  const float flip = s < 0 ? -1.0f : 1.0f;
  for (size_t i = first; i < scene.meshes.size(); ++i) {
    Mesh& mesh = scene.meshes[i];
    for (VertexStream& st : mesh.streams) {
      if (st.components < 3) continue;
      const bool position = st.attribute == Attribute::Position;
      if (!position && st.attribute != Attribute::Normal && st.attribute != Attribute::Tangent) continue;
      for (size_t v = 0; v < st.vertex_count(); ++v) {
        float* d = &st.data[v * st.components];
        const Vec3 p{d[0], d[1], d[2]};
        const Vec3 r = position ? mat_apply(m, p) : quat_rotate(q, p) * flip;
        d[0] = r[0], d[1] = r[1], d[2] = r[2];
      }
    }
    for (MorphTarget& t : mesh.morph_targets) {
      for (size_t v = 0; v + 2 < t.positions.size(); v += 3) {
        const Vec3 r = quat_rotate(q, {t.positions[v], t.positions[v + 1], t.positions[v + 2]}) * s;
        t.positions[v] = r[0], t.positions[v + 1] = r[1], t.positions[v + 2] = r[2];
      }
      for (size_t v = 0; v + 2 < t.normals.size(); v += 3) {
        const Vec3 r = quat_rotate(q, {t.normals[v], t.normals[v + 1], t.normals[v + 2]}) * flip;
        t.normals[v] = r[0], t.normals[v + 1] = r[1], t.normals[v + 2] = r[2];
      }
    }
  }
}

// The values a mesh copy holds, with the blend streams it is about to get, and its overhead in
// values: 4 KB per mesh (name, source, streams, and what processing and writing add per mesh),
// 256 bytes per morph target (name, vectors).
double mesh_values(const Mesh& m) {
  double v = 1024 + double(m.triangles.size()) + 2 * double(m.vertex_count());
  for (const VertexStream& s : m.streams) v += double(s.data.size());
  for (const MorphTarget& t : m.morph_targets) v += 64 + double(t.positions.size() + t.normals.size());
  return v;
}

void bind_rigidly(Mesh& mesh, int32_t joint) {
  const size_t n = mesh.vertex_count();
  for (Attribute a : {Attribute::BlendIndices, Attribute::BlendWeights}) {
    std::erase_if(mesh.streams, [a](const VertexStream& s) { return s.attribute == a; });
    VertexStream s;
    s.attribute = a;
    s.format = ComponentType::Float;
    s.source_size = 0;
    s.components = 1;
    s.data.assign(n, a == Attribute::BlendIndices ? float(joint) : 1.0f);
    mesh.streams.push_back(std::move(s));
  }
}

Mesh plane_mesh(const ModeDefPlane& plane, size_t index, float half) {
  const Vec3 n = normalize(plane.normal);
  // Decision: the square's sides follow u = normalize(helper x n), v = n x u, with helper = +X
  // unless the normal is within ~25 degrees of X (then +Y); corners go -u-v, +u-v, +u+v, -u+v,
  // counter-clockwise seen from the normal's side.
  const Vec3 helper = std::fabs(n[0]) > 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0};
  const Vec3 u = normalize(cross(helper, n));
  const Vec3 v = cross(n, u);
  Mesh m;
  m.name = fmt::format("plane{}", index);
  VertexStream pos;
  pos.attribute = Attribute::Position;
  pos.components = 3;
  VertexStream nor;
  nor.attribute = Attribute::Normal;
  nor.components = 3;
  const float su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
  for (int c = 0; c < 4; ++c) {
    const Vec3 p = plane.point + u * (su[c] * half) + v * (sv[c] * half);
    pos.data.insert(pos.data.end(), p.begin(), p.end());
    nor.data.insert(nor.data.end(), n.begin(), n.end());
  }
  m.streams.push_back(std::move(pos));
  m.streams.push_back(std::move(nor));
  m.triangles = {0, 1, 2, 0, 2, 3};
  return m;
}

// The largest distance from `c` to a vertex of meshes [0, end).
float radius_about(const Scene& scene, size_t end, Vec3 c) {
  double r = 0;
  for (size_t i = 0; i < end; ++i) {
    const VertexStream* p = scene.meshes[i].find(Attribute::Position);
    if (!p || p->components < 3) continue;
    for (size_t v = 0; v < p->vertex_count(); ++v) {
      const Vec3 d = Vec3{p->get(v, 0), p->get(v, 1), p->get(v, 2)} - c;
      r = std::max(r, std::sqrt(double(d[0]) * d[0] + double(d[1]) * d[1] + double(d[2]) * d[2]));
    }
  }
  return float(std::min(r, double(std::numeric_limits<float>::max()) / 8));
}

// The vertices of meshes [0, end) and their bounding box.
struct Extent {
  size_t vertices = 0;
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};
};
Extent extent_of(const Scene& scene, size_t end) {
  Extent e;
  for (size_t i = 0; i < end; ++i) {
    const VertexStream* p = scene.meshes[i].find(Attribute::Position);
    if (!p || p->components < 3) continue;
    for (size_t v = 0; v < p->vertex_count(); ++v)
      for (uint32_t a = 0; a < 3; ++a) {
        const float x = p->get(v, a);
        e.lo[a] = e.vertices == 0 && v == 0 ? x : std::min(e.lo[a], x);
        e.hi[a] = e.vertices == 0 && v == 0 ? x : std::max(e.hi[a], x);
      }
    e.vertices += p->vertex_count();
  }
  return e;
}

// The largest distance from `c` to a corner of the box: at least the distance to any vertex.
float radius_to_box(const Extent& e, Vec3 c) {
  double r = 0;
  for (int k = 0; k < 8; ++k) {
    double d2 = 0;
    for (int a = 0; a < 3; ++a) {
      const double d = double(k >> a & 1 ? e.hi[size_t(a)] : e.lo[size_t(a)]) - c[size_t(a)];
      d2 += d * d;
    }
    r = std::max(r, std::sqrt(d2));
  }
  return float(std::min(r, double(std::numeric_limits<float>::max()) / 8));
}

// ---- Writing ------------------------------------------------------------------------------

// Names the writers can put in a file: one token that is not a comment.
void check_name(const std::string& file, const char* what) {
  bool ok = !file.empty() && file[0] != '#' && file.rfind("//", 0) != 0;
  for (char c : file)
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f') ok = false;
  if (!ok) fail("", fmt::format("{} '{}' cannot be written: a ModeDef file name must be one token without "
                                "whitespace, not starting with '#' or '//'", what, shown(file)));
}

OutputFile text_file(std::string name, const std::string& text) {
  OutputFile f;
  f.name = std::move(name);
  f.bytes.assign(text.begin(), text.end());
  return f;
}

// Side file names of one written file set, relative to the main output's folder.
class SideFiles {
 public:
  explicit SideFiles(Diagnostics& d) : diags_(d) {}

  // Where the file referenced as `ref` from a file in `folder` goes, and the reference to write.
  // `id` identifies the content ("prop 2"): the same content at the same place is written once.
  // Returns whether the file still has to be written.
  bool place(const std::string& folder, std::string& ref, const std::string& id, const char* what,
             std::string& out_name) {
    fs::path target = utf8_path(folder) / utf8_path(ref);
    std::string name = generic_utf8(target.lexically_normal());
    const fs::path normal = utf8_path(name);
    const bool leaves = utf8_path(ref).is_absolute() || normal.is_absolute() || name.empty() || name == "." ||
                        (normal.begin() != normal.end() && *normal.begin() == "..");
    if (leaves) {
      const std::string leaf = path_utf8(utf8_path(ref).filename());
      if (leaf.empty() || leaf == "." || leaf == "..")
        fail("", fmt::format("the {} '{}' does not name a file", what, shown(ref)));
      const std::string flat = normal_path(utf8_path(folder) / utf8_path(leaf));
      diags_.add(warning("", fmt::format("the {} '{}' is outside the output's folder: written as '{}' instead",
                                         what, ref, flat)));
      ref = leaf;
      name = flat;
    }
    // A name taken by other content: the next free "<stem>-<n><ext>".
    if (auto it = taken_.find(name); it != taken_.end() && it->second != id) {
      const fs::path p = utf8_path(name);
      std::string candidate;
      for (int n = 2;; ++n) {
        candidate = generic_utf8(p.parent_path() /
                                 utf8_path(fmt::format("{}-{}{}", path_utf8(p.stem()), n, path_utf8(p.extension()))));
        auto c = taken_.find(candidate);
        if (c == taken_.end() || c->second == id) break;
      }
      const std::string leaf = path_utf8(utf8_path(candidate).filename());
      const std::string new_ref = generic_utf8(utf8_path(ref).parent_path() / utf8_path(leaf));
      diags_.add(warning("", fmt::format("the {} '{}' would overwrite another file: written as '{}' instead", what,
                                         ref, candidate)));
      ref = new_ref;
      name = candidate;
    }
    out_name = name;
    return taken_.emplace(name, id).second;
  }

 private:
  Diagnostics& diags_;
  std::map<std::string, std::string> taken_;
};

std::vector<uint8_t> model_bytes(const Scene& scene, Diagnostics& diags) {
  std::vector<OutputFile> files = write_model(scene, diags);
  return files.empty() ? std::vector<uint8_t>{} : std::move(files.front().bytes);
}

}  // namespace

// ---- Public parse / print -------------------------------------------------------------------

ModeDefProp parse_prop(std::string_view text, const std::string& name, Diagnostics&) {
  return parse_prop_at(text, name, nullptr);
}

std::string print_prop(const ModeDefProp& p) {
  std::string out = p.model_file + "\n";
  out += fmt::format("{} {}\n", p.rigid_body, p.deform);
  put(out, p.mass);
  out += '\n';
  put3(out, p.center_of_mass);
  for (size_t r = 0; r < 3; ++r) put3(out, {p.inertia[r * 3], p.inertia[r * 3 + 1], p.inertia[r * 3 + 2]});
  for (float v : {p.unused1, p.lame, p.damping1}) {
    put(out, v);
    out += ' ';
  }
  put(out, p.damping2);
  out += '\n';
  put(out, p.scale);
  out += ' ';
  put(out, p.unused2);
  out += '\n';
  put3(out, {p.kp, p.kv, p.kb});
  return out;
}

ModeDefState parse_state(std::string_view text, const std::string& name, Diagnostics&) {
  return parse_state_at(text, name, nullptr);
}

std::string print_state(const ModeDefState& s) {
  std::string out = fmt::format("{}\n{}\n", s.fps, s.use_penalty);
  put3(out, s.gravity);
  put(out, s.friction);
  out += '\n';
  put3(out, {s.max_penetration, s.cluster_factor, s.cluster_radius});
  out += fmt::format("{}\n", s.objects.size());
  for (const ModeDefObject& o : s.objects) {
    out += o.name;
    out += o.animated ? " a\n" : "\n";
    put3(out, o.position);
    for (size_t c = 0; c < 4; ++c) {
      if (c) out += ' ';
      put(out, o.rotation[c]);
    }
    out += '\n';
    put3(out, o.velocity);
    put3(out, o.angular_velocity);
    put(out, o.birth);
    out += ' ';
    put(out, o.death);
    out += '\n';
    if (o.animated) out += o.path_file + "\n";
  }
  out += fmt::format("{}\n", s.planes.size());
  for (const ModeDefPlane& p : s.planes) {
    put3(out, p.normal);
    put3(out, p.point);
  }
  out += fmt::format("{}\n", s.constraints.size());
  for (const ModeDefConstraint& c : s.constraints) {
    out += fmt::format("{} {}\n", c.body1, c.body2);
    put3(out, c.point);
  }
  return out;
}

ModeDefPath parse_path(std::string_view text, const std::string& name, Diagnostics&) {
  return parse_path_at(text, name, nullptr);
}

std::string print_path(const ModeDefPath& p) {
  std::string out = fmt::format("{} {}\n", p.translation.size(), p.rotation.size());
  for (const auto* keys : {&p.translation, &p.rotation})
    for (const ModeDefPathKey& k : *keys) {
      put(out, k.time);
      out += "  ";
      put3(out, k.value);
    }
  return out;
}

// ---- Readers --------------------------------------------------------------------------------

Scene read_prop(std::string_view text, const std::string& name, const SideFileLoader& load, Diagnostics& diags) {
  Scene scene;
  ModeDefData& md = scene.modedef.emplace();
  md.kind = ModeDefData::Kind::Prop;
  Loader loader{name, utf8_path(name).parent_path(), load, diags, md, {}, {}, {}};
  PropLocs pl;
  // The .prop itself is the main file: its model is relative to the main file's folder.
  ModeDefPropFile f = loader.prop_file(text, name, "", path_utf8(utf8_path(name).filename()), pl);
  md.props.push_back(std::move(f));
  append_model_meshes(scene, md.props[0].model, -1, stem_of(md.models[size_t(md.props[0].model)].file), diags,
                      ErrorPlace{name, pl.model_file.line, pl.model_file.column, ""});
  return scene;
}

Scene read_state(std::string_view text, const std::string& name, const SideFileLoader& load, Diagnostics& diags) {
  StateLocs sl;
  ModeDefState state = parse_state_at(text, name, &sl);
  Scene scene;
  ModeDefData& md = scene.modedef.emplace();
  md.kind = ModeDefData::Kind::State;
  const fs::path own = utf8_path(name);
  const std::string own_leaf = path_utf8(own.filename());
  const std::string own_full = normal_path(own);
  Loader loader{name, own.parent_path(), load, diags, md, {}, {}, {}};

  const size_t n = state.objects.size();
  md.object_prop.assign(n, -1);
  md.object_path.assign(n, -1);
  std::vector<PathLocs> path_locs;  // per loaded path
  std::vector<PathLocs> object_path_locs(n);
  for (size_t i = 0; i < n; ++i) {
    const ModeDefObject& o = state.objects[i];
    const ObjectLocs& ol = sl.objects[i];
    const std::string key = normal_path(o.name);
    if (key == own_leaf || normal_path(own.parent_path() / utf8_path(o.name)) == own_full)
      fail_loc(name, ol.name, fmt::format("object {} '{}' is this .state file itself", i, shown(o.name)));
    if (extension_of(o.name) == ".state")
      fail_loc(name, ol.name, fmt::format("object {} '{}' is a .state file, not a .prop", i, shown(o.name)));
    md.object_prop[i] = loader.prop(o.name, ol.name);
    if (o.animated) {
      if (normal_path(o.path_file) == own_leaf || normal_path(own.parent_path() / utf8_path(o.path_file)) == own_full)
        fail_loc(name, ol.path, fmt::format("the path of object {} '{}' is this .state file itself", i,
                                            shown(o.path_file)));
      if (extension_of(o.path_file) == ".state")
        fail_loc(name, ol.path,
                 fmt::format("the path of object {} '{}' is a .state file, not a .path", i, shown(o.path_file)));
      md.object_path[i] = loader.path(o.path_file, ol.path, object_path_locs[i], path_locs);
    }
  }

  // Joints: named after the .prop's stem, ".<object index>" appended when the stem is shared.
  std::map<std::string, int> stem_uses;
  for (size_t i = 0; i < n; ++i) ++stem_uses[stem_of(md.props[size_t(md.object_prop[i])].file)];
  md.object_joint.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const ModeDefObject& o = state.objects[i];
    const ModeDefProp& p = md.props[size_t(md.object_prop[i])].prop;
    Joint j;
    const std::string stem = stem_of(md.props[size_t(md.object_prop[i])].file);
    j.name = stem_uses[stem] > 1 ? fmt::format("{}.{}", stem, i) : stem;
    j.rest.translation = o.position;
    j.rest.rotation = scene_rotation(o.rotation);
    j.rest.scale = {p.scale, p.scale, p.scale};
    md.object_joint[i] = int32_t(scene.joints.size());
    scene.joints.push_back(std::move(j));
  }

  // Each object's copy of its model's meshes, placed at its rest pose and bound to its joint.
  // The copies are bounded: many objects sharing a large model cannot make the Scene huge.
  std::vector<double> model_values(md.models.size(), -1);
  double total_values = 0;
  for (size_t i = 0; i < n; ++i) {
    const int32_t model = md.props[size_t(md.object_prop[i])].model;
    const size_t first = scene.meshes.size();
    if (model_values[size_t(model)] >= 0 && total_values + model_values[size_t(model)] > kMaxMeshValues)
      fail_loc(name, sl.objects[i].name,
               fmt::format("object {}: the objects' mesh copies would hold more than {} values", i, kMaxMeshValues));
    const SceneLoc at = sl.objects[i].name;
    append_model_meshes(scene, model, int32_t(i), stem_of(md.models[size_t(model)].file), diags,
                        ErrorPlace{name, at.line, at.column, fmt::format("object {}: ", i)});
    double added = 0;
    for (size_t m = first; m < scene.meshes.size(); ++m) added += mesh_values(scene.meshes[m]);
    model_values[size_t(model)] = added;
    total_values += added;
    const Joint& joint = scene.joints[size_t(md.object_joint[i])];
    place_meshes(scene, first, joint.rest);
    for (size_t m = first; m < scene.meshes.size(); ++m) {
      scene.meshes[m].name = joint.name + "/" + scene.meshes[m].name;
      bind_rigidly(scene.meshes[m], md.object_joint[i]);
    }
  }

  // Planes: squares of half side max(10, 2 R), R the largest distance from the plane's point to
  // an object vertex at rest.
  const size_t object_meshes = scene.meshes.size();
  if (object_meshes + state.planes.size() > kMaxMeshes)
    fail_loc(name, sl.planes,
             fmt::format("{} planes after {} object {} would make more than {} meshes: more than meshport reads "
                         "from one file",
                         state.planes.size(), object_meshes, object_meshes == 1 ? "mesh" : "meshes", kMaxMeshes));
  // Decision: past kMaxRadiusWork (plane, vertex) pairs, R is measured to the corners of the
  // objects' bounding box instead (never less than the exact R), so that many planes over large
  // models cannot take hours.
  const Extent extent = state.planes.empty() ? Extent{} : extent_of(scene, object_meshes);
  const bool exact = double(extent.vertices) * double(state.planes.size()) <= kMaxRadiusWork;
  for (size_t k = 0; k < state.planes.size(); ++k) {
    const ModeDefPlane& p = state.planes[k];
    const float r = extent.vertices == 0 ? 0.0f
                    : exact             ? radius_about(scene, object_meshes, p.point)
                                        : radius_to_box(extent, p.point);
    const float half = std::max(kMinPlaneHalfSide, 2 * r);
    scene.meshes.push_back(plane_mesh(p, k, half));
  }

  for (size_t k = 0; k < state.constraints.size(); ++k) {
    Attachment a;
    a.name = fmt::format("constraint{}", k);
    a.transform.translation = state.constraints[k].point;
    scene.attachments.push_back(std::move(a));
  }

  // The animation: paths and birth / death times.
  bool animated = false;
  double duration = 0;
  std::string where_file = name;
  SceneLoc where;
  auto later = [&](double t, const std::string& file, SceneLoc l) {
    if (t > duration || !animated) {
      if (t > duration) duration = t;
      where_file = file;
      where = l;
    }
    animated = true;
  };
  for (size_t i = 0; i < n; ++i) {
    const ModeDefObject& o = state.objects[i];
    if (o.birth >= 0) later(o.birth, name, sl.objects[i].birth);
    if (o.death >= 0) later(o.death, name, sl.objects[i].death);
    if (md.object_path[i] >= 0) {
      const ModeDefPathFile& pf = md.paths[size_t(md.object_path[i])];
      const std::string file = loader.display(normal_path(pf.file));
      animated = true;
      if (!pf.path.translation.empty())
        later(pf.path.translation.back().time, file, object_path_locs[i].last_translation);
      if (!pf.path.rotation.empty()) later(pf.path.rotation.back().time, file, object_path_locs[i].last_rotation);
    }
  }
  if (animated) {
    const int32_t fps = state.fps > 0 ? state.fps : kDefaultFps;
    const size_t frames = frame_count(duration, double(fps), n, where_file, where);
    Animation anim;
    anim.name = stem_of(name);
    anim.framerate = float(fps);
    anim.channels = uint32_t(n);
    anim.poses.resize(frames * n);
    for (size_t f = 0; f < frames; ++f) {
      const double t = double(f) / double(fps);
      for (size_t i = 0; i < n; ++i) {
        const ModeDefObject& o = state.objects[i];
        Transform pose = scene.joints[size_t(md.object_joint[i])].rest;
        if (md.object_path[i] >= 0) {
          const ModeDefPath& path = md.paths[size_t(md.object_path[i])].path;
          if (!path.translation.empty()) pose.translation = ops::sample_path_keys(path.translation, t);
          if (!path.rotation.empty())
            pose.rotation = ops::quat_from_euler_zyx(ops::sample_path_keys(path.rotation, t));
        }
        // Shown from TBIRTH to TDEATH inclusive (within a microsecond); a negative time is no limit.
        const bool born = o.birth < 0 || t >= double(o.birth) - 1e-6;
        const bool alive = o.death < 0 || t <= double(o.death) + 1e-6;
        if (!born || !alive) pose.scale = {0, 0, 0};
        anim.poses[f * n + i] = pose;
      }
    }
    scene.animations.push_back(std::move(anim));
  }
  md.state = std::move(state);
  return scene;
}

Scene read_path(std::string_view text, const std::string& name, Diagnostics&) {
  PathLocs locs;
  Scene scene;
  ModeDefData& md = scene.modedef.emplace();
  md.kind = ModeDefData::Kind::Path;
  ModeDefPathFile f;
  f.file = path_utf8(utf8_path(name).filename());
  f.path = parse_path_at(text, name, &locs);
  Joint j;
  j.name = "path";
  scene.joints.push_back(j);

  double duration = 0;
  SceneLoc where;
  if (!f.path.translation.empty() && f.path.translation.back().time > duration) {
    duration = f.path.translation.back().time;
    where = locs.last_translation;
  }
  if (!f.path.rotation.empty() && f.path.rotation.back().time > duration) {
    duration = f.path.rotation.back().time;
    where = locs.last_rotation;
  }
  const size_t frames = frame_count(duration, kDefaultFps, 1, name, where);
  Animation anim;
  anim.name = stem_of(name);
  anim.framerate = float(kDefaultFps);
  anim.channels = 1;
  anim.poses.resize(frames);
  for (size_t fr = 0; fr < frames; ++fr) {
    const double t = double(fr) / kDefaultFps;
    Transform& pose = anim.poses[fr];
    if (!f.path.translation.empty()) pose.translation = ops::sample_path_keys(f.path.translation, t);
    if (!f.path.rotation.empty())
      pose.rotation = ops::quat_from_euler_zyx(ops::sample_path_keys(f.path.rotation, t));
  }
  scene.animations.push_back(std::move(anim));
  md.paths.push_back(std::move(f));
  return scene;
}

// ---- Writers --------------------------------------------------------------------------------

std::vector<OutputFile> write_prop(const Scene& scene, const std::string& stem, Diagnostics& diags) {
  const ModeDefData& md = value_or_empty(scene.modedef);
  ModeDefProp prop;
  std::string model_ref;
  if (md.kind == ModeDefData::Kind::Prop && !md.props.empty()) {
    prop = md.props[0].prop;
    check_name(prop.model_file, "MODELFILE");
    const std::string ext = extension_of(prop.model_file);
    if (ext == ".prop" || ext == ".state")
      fail("", fmt::format("MODELFILE '{}' names a {} file, not a model", shown(prop.model_file), ext));
    model_ref = ext == ".model" ? prop.model_file
                                : generic_utf8(utf8_path(prop.model_file).replace_extension(".model"));
  } else {
    prop.model_file = (stem.empty() ? std::string("model") : stem) + ".model";
    check_name(prop.model_file, "MODELFILE");
    model_ref = prop.model_file;
  }
  SideFiles sides(diags);
  std::string name;
  const std::string before = model_ref;
  sides.place("", model_ref, "model", "model", name);
  if (model_ref != before) prop.model_file = model_ref;  // flattened: name the .model itself
  std::vector<OutputFile> out;
  out.push_back(text_file("", print_prop(prop)));
  OutputFile m;
  m.name = name;
  m.bytes = model_bytes(scene, diags);
  out.push_back(std::move(m));
  return out;
}

std::vector<OutputFile> write_state(const Scene& scene, Diagnostics& diags) {
  const ModeDefData& md = value_or_empty(scene.modedef);
  if (md.kind != ModeDefData::Kind::State)
    fail("", "ModeDef .state: only a Scene read from a .state can be written as one (this Scene has no kept "
             ".state; write its meshes as .model or .prop instead)");
  ModeDefState state = md.state;
  const size_t n = state.objects.size();
  if (md.object_prop.size() != n || md.object_path.size() != n)
    fail("", "ModeDef .state: the kept data is inconsistent (one .prop and path index per object expected)");
  for (size_t i = 0; i < n; ++i) {
    if (md.object_prop[i] < 0 || size_t(md.object_prop[i]) >= md.props.size() ||
        md.props[size_t(md.object_prop[i])].model < 0 ||
        size_t(md.props[size_t(md.object_prop[i])].model) >= md.models.size())
      fail("", fmt::format("ModeDef .state: the kept data is inconsistent (object {} has no .prop or model)", i));
    if (state.objects[i].animated &&
        (md.object_path[i] < 0 || size_t(md.object_path[i]) >= md.paths.size()))
      fail("", fmt::format("ModeDef .state: the kept data is inconsistent (object {} has no path)", i));
  }
  // As the reader checks them: the kept data may have been edited (the Python module binds it).
  for (size_t k = 0; k < state.constraints.size(); ++k) {
    const ModeDefConstraint& c = state.constraints[k];
    if (c.body1 < -1 || c.body1 >= int64_t(n) || c.body2 < 0 || c.body2 >= int64_t(n))
      fail("", fmt::format("ModeDef .state: constraint {} joins bodies {} and {}, not -1 (static, the first only) or "
                           "object indices (the .state has {} {})",
                           k, c.body1, c.body2, n, n == 1 ? "object" : "objects"));
  }

  std::vector<OutputFile> out(1);
  SideFiles sides(diags);
  // Each kept .prop (with its model) as referenced by the objects; a .prop named in two ways is
  // one file, written where its first reference puts it.
  std::vector<std::string> prop_ref(md.props.size());  // the reference written for each .prop
  for (size_t i = 0; i < n; ++i) {
    ModeDefObject& o = state.objects[i];
    const size_t pi = size_t(md.object_prop[i]);
    check_name(o.name, "the .prop");
    if (!prop_ref[pi].empty()) {
      // Written already: keep a reference that reaches the same place, else use the first one.
      if (normal_path(o.name) != normal_path(prop_ref[pi])) o.name = prop_ref[pi];
      continue;
    }
    std::string ref = o.name, name;
    sides.place("", ref, fmt::format("prop {}", pi), "prop", name);
    o.name = ref;
    prop_ref[pi] = ref;
    ModeDefProp prop = md.props[pi].prop;
    check_name(prop.model_file, "MODELFILE");
    const size_t mi = size_t(md.props[pi].model);
    const std::string ext = extension_of(prop.model_file);
    std::string model_ref = ext == ".model" ? prop.model_file
                                            : generic_utf8(utf8_path(prop.model_file).replace_extension(".model"));
    const std::string before = model_ref;
    std::string model_name;
    const bool new_model = sides.place(generic_utf8(utf8_path(name).parent_path()), model_ref,
                                       fmt::format("model {}", mi), "model", model_name);
    if (model_ref != before) prop.model_file = model_ref;
    out.push_back(text_file(name, print_prop(prop)));
    if (new_model) out.push_back(text_file(model_name, print_model(md.models[mi].model)));
  }
  std::vector<std::string> path_ref(md.paths.size());
  for (size_t i = 0; i < n; ++i) {
    ModeDefObject& o = state.objects[i];
    if (!o.animated) continue;
    const size_t pi = size_t(md.object_path[i]);
    check_name(o.path_file, "the .path");
    if (!path_ref[pi].empty()) {
      if (normal_path(o.path_file) != normal_path(path_ref[pi])) o.path_file = path_ref[pi];
      continue;
    }
    std::string ref = o.path_file, name;
    sides.place("", ref, fmt::format("path {}", pi), "path", name);
    o.path_file = ref;
    path_ref[pi] = ref;
    out.push_back(text_file(name, print_path(md.paths[pi].path)));
  }
  const std::string text = print_state(state);
  out[0].bytes.assign(text.begin(), text.end());
  return out;
}

std::vector<OutputFile> write_path(const Scene& scene, Diagnostics&) {
  const ModeDefData& md = value_or_empty(scene.modedef);
  std::vector<OutputFile> out;
  if (md.kind == ModeDefData::Kind::Path && !md.paths.empty()) {
    out.push_back(text_file("", print_path(md.paths[0].path)));
    return out;
  }
  if (scene.animations.empty() || scene.animations[0].channels == 0 || scene.animations[0].frame_count() == 0)
    fail("", "ModeDef .path: the Scene has no animated joint to write (a .path is joint 0 of animation 0)");
  const Animation& a = scene.animations[0];
  const double rate = a.framerate > 0 ? double(a.framerate) : double(kDefaultFps);
  ModeDefPath path;
  const size_t frames = a.frame_count();
  path.translation.resize(frames);
  path.rotation.resize(frames);
  for (size_t f = 0; f < frames; ++f) {
    const Transform& pose = a.poses[f * a.channels];
    const float t = a.times.size() == frames ? a.times[f] : float(double(f) / rate);
    path.translation[f] = {t, pose.translation};
    Vec3 e = ops::euler_zyx_from_quat(pose.rotation);
    if (f > 0) {
      // Unwrapped: each angle within pi of the previous key's, so that interpolating between
      // keys takes the short way.
      const Vec3& prev = path.rotation[f - 1].value;
      for (size_t c = 0; c < 3; ++c) {
        const double turns = std::round((double(prev[c]) - double(e[c])) / (2 * std::numbers::pi));
        e[c] = float(double(e[c]) + turns * 2 * std::numbers::pi);
      }
    }
    path.rotation[f] = {t, e};
  }
  out.push_back(text_file("", print_path(path)));
  return out;
}

}  // namespace meshport::modedef
