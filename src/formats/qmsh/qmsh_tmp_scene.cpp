// QMSH TMP 10: the specification's processing into a Scene, and a Scene back into the grammar
// (qmsh_tmp.h). Every choice is listed in docs/qmsh.md ("Into the Scene", "Back to .qmsh.tmp").
//
// Spaces. Everything in the file is Blender's (Z up). Matrices are composed there, in the
// column-vector convention of core/math.h (p' = M p); Blender 2.4x prints a matrix row by row as
// its row-vector form, so the file's row i is our column i: rows 1..3 are the basis vectors (a
// bone's X, Y = head -> tail, Z) and row 4 the translation (a bone's head). Results go to the
// Scene with axes::zup_to_scene, which conjugates transforms by the axis rotation.
#include "formats/qmsh/qmsh_tmp.h"

#include "core/math.h"
#include "ops/animation/curves.h"
#include "ops/mesh/axes.h"
#include "ops/mesh/triangulate.h"

#include <meshport/options.h>
#include <meshport/process.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace meshport::qmsh_tmp {
namespace {

constexpr int32_t kDefaultFps = 25;
constexpr int32_t kMaxGridFps = 240;  // the highest `fps =` the writer picks to put keys on whole frames
// Decision: frames x joints sampled over all actions together (40 bytes per pose), so that a small
// file cannot make a huge Scene; meshes and actions are bounded by meshport's limits (kMaxMeshes).
constexpr double kMaxPoses = double(1u << 20);
constexpr float kDefaultBoneLength = 0.1f;      // scene_to_tmp: a bone with nothing to reach
constexpr const char* kArmatureName = "Armature";

// The ten pose-bone curves, in the order scene_to_tmp writes them.
constexpr std::array<const char*, 10> kCurveNames = {"LocX",  "LocY",  "LocZ",  "QuatW", "QuatX",
                                                     "QuatY", "QuatZ", "SizeX", "SizeY", "SizeZ"};
constexpr std::array<float, 10> kCurveRest = {0, 0, 0, 1, 0, 0, 0, 1, 1, 1};

// A name for a message: quoted, `\` and `"` escaped, control bytes as \xHH, at most 60 bytes.
std::string q(const std::string& name) {
  std::string out = "\"";
  for (size_t i = 0; i < name.size() && i < 60; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c == '\\' || c == '"') out += '\\';
    if (c < 0x20 || c == 0x7F) out += fmt::format("\\x{:02X}", unsigned(c));
    else out += char(c);
  }
  return out + (name.size() > 60 ? "...\"" : "\"");
}

int curve_slot(const std::string& name) {
  for (size_t i = 0; i < kCurveNames.size(); ++i)
    if (name == kCurveNames[i]) return int(i);
  return -1;
}

// ---- Matrices ---------------------------------------------------------------------------------

// cos and sin of an angle in radians; values within 1e-7 of 0 snap to 0 (and the other to +-1),
// so that the float nearest to 90 degrees rotates exactly.
std::pair<float, float> cos_sin(float radians) {
  double c = std::cos(double(radians)), s = std::sin(double(radians));
  if (std::fabs(c) < 1e-7) c = 0, s = s > 0 ? 1 : -1;
  if (std::fabs(s) < 1e-7) s = 0, c = c > 0 ? 1 : -1;
  return {float(c), float(s)};
}

// Blender's object matrix T(position) . Rz . Ry . Rx . S(size): Euler radians, X applied first.
Mat3x4 object_matrix(const std::array<float, 3>& position, const std::array<float, 3>& euler,
                     const std::array<float, 3>& size) {
  auto [cx, sx] = cos_sin(euler[0]);
  auto [cy, sy] = cos_sin(euler[1]);
  auto [cz, sz] = cos_sin(euler[2]);
  const Mat3x4 rx{1, 0, 0, 0, cx, sx, 0, -sx, cx, 0, 0, 0};
  const Mat3x4 ry{cy, 0, -sy, 0, 1, 0, sy, 0, cy, 0, 0, 0};
  const Mat3x4 rz{cz, sz, 0, -sz, cz, 0, 0, 0, 1, 0, 0, 0};
  Mat3x4 m = mat_mul(rz, mat_mul(ry, rx));
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m[c * 3 + r] *= size[c];
  for (int r = 0; r < 3; ++r) m[9 + r] = position[r];
  return m;
}

Vec3 column(const Mat3x4& m, int c) { return {m[c * 3], m[c * 3 + 1], m[c * 3 + 2]}; }

float determinant(const Mat3x4& m) { return dot(column(m, 0), cross(column(m, 1), column(m, 2))); }

// Rotation matrix with columns x, y, z (orthonormal) -> unit quaternion with w >= 0.
Quat quat_from_basis(Vec3 x, Vec3 y, Vec3 z) {
  const double m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2];
  const double m02 = z[0], m12 = z[1], m22 = z[2];
  const double trace = m00 + m11 + m22;
  double q[4];  // x y z w
  if (trace > 0) {
    const double s = std::sqrt(trace + 1) * 2;
    q[0] = (m21 - m12) / s, q[1] = (m02 - m20) / s, q[2] = (m10 - m01) / s, q[3] = s / 4;
  } else if (m00 > m11 && m00 > m22) {
    const double s = std::sqrt(1 + m00 - m11 - m22) * 2;
    q[0] = s / 4, q[1] = (m01 + m10) / s, q[2] = (m02 + m20) / s, q[3] = (m21 - m12) / s;
  } else if (m11 > m22) {
    const double s = std::sqrt(1 + m11 - m00 - m22) * 2;
    q[0] = (m01 + m10) / s, q[1] = s / 4, q[2] = (m12 + m21) / s, q[3] = (m02 - m20) / s;
  } else {
    const double s = std::sqrt(1 + m22 - m00 - m11) * 2;
    q[0] = (m02 + m20) / s, q[1] = (m12 + m21) / s, q[2] = s / 4, q[3] = (m10 - m01) / s;
  }
  const double sign = q[3] < 0 ? -1 : 1;
  return quat_normalize({float(q[0] * sign), float(q[1] * sign), float(q[2] * sign), float(q[3] * sign)});
}

// Translation, rotation and scale of an affine matrix (a negative determinant negates the X
// scale; shear is removed by Gram-Schmidt, X first).
Transform decompose(const Mat3x4& m) {
  Transform t;
  t.translation = {m[9], m[10], m[11]};
  Vec3 x = column(m, 0), y = column(m, 1), z = column(m, 2);
  t.scale = {length(x), length(y), length(z)};
  if (determinant(m) < 0) t.scale[0] = -t.scale[0];
  if (t.scale[0] == 0 || t.scale[1] == 0 || t.scale[2] == 0) return t;
  x = x * (1.0f / t.scale[0]);
  y = normalize(y - x * dot(x, y));
  z = cross(x, y);
  t.rotation = quat_from_basis(x, y, z);
  return t;
}

Mat3x4 trs_matrix(const Transform& t) { return mat_from_trs(t.translation, t.rotation, t.scale); }

bool uniform_scale(Vec3 s) {
  const float tol = 1e-6f * std::fabs(s[0]);
  return s[0] != 0 && std::fabs(s[1] - s[0]) <= tol && std::fabs(s[2] - s[0]) <= tol;
}

Quat quat_conjugate(Quat q) { return {-q[0], -q[1], -q[2], q[3]}; }

// The file's 4x4 (rows = basis vectors, then translation) as an affine matrix; the 4th column
// (0 0 0 1 in Blender's output) is not read.
Mat3x4 from_file_matrix(const std::array<float, 16>& a) {
  Mat3x4 m{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) m[c * 3 + r] = a[c * 4 + r];
  return m;
}
std::array<float, 16> to_file_matrix(const Mat3x4& m) {
  std::array<float, 16> a{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) a[c * 4 + r] = m[c * 3 + r];
  a[15] = 1;
  return a;
}

// ---- Context -----------------------------------------------------------------------------------

struct Ctx {
  const std::string& file;
  Diagnostics& diags;
  const SourceMap* where = nullptr;  // positions from parse(), when the data came from a file

  // The position of entry i of one of `where`'s lists (row 0 when unknown).
  template <class Pick>
  Where at(Pick pick, size_t i) const {
    if (!where) return {};
    const std::vector<Where>& list = pick(*where);
    return i < list.size() ? list[i] : Where{};
  }
  void warn(std::string message, Where w = {}) const {
    diags.add(w.row ? warning_at_line(file, w.row, w.column, std::move(message)) : warning(file, std::move(message)));
  }
  [[noreturn]] void error(std::string message, Where w = {}) const {
    if (w.row) fail_at_line(file, w.row, w.column, std::move(message));
    fail(file, std::move(message));
  }
};

const std::vector<Where>& bone_names_at(const SourceMap& m) { return m.bones; }
const std::vector<Where>& bone_parents_at(const SourceMap& m) { return m.bone_parents; }
const std::vector<Where>& meshes_at(const SourceMap& m) { return m.meshes; }
const std::vector<Where>& parent_bones_at(const SourceMap& m) { return m.parent_bones; }
const std::vector<Where>& actions_at(const SourceMap& m) { return m.actions; }
const std::vector<Where>& fps_at(const SourceMap& m) { return m.fps; }
// Entry `outer` of a list of lists.
auto nested(std::vector<std::vector<Where>> SourceMap::*list, size_t outer) {
  return [list, outer](const SourceMap& m) -> const std::vector<Where>& {
    static const std::vector<Where> none;
    return outer < (m.*list).size() ? (m.*list)[outer] : none;
  };
}

// ---- Skeleton ----------------------------------------------------------------------------------

struct Skeleton {
  std::vector<Joint> joints;
  std::vector<Transform> rest;  // parent-relative, Blender axes (what poses are composed on)
  std::vector<Mat3x4> rest_matrix;
  std::unordered_map<std::string, int32_t> index;

  int32_t find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
  }
};

// The cycle that `chain` (bones, each the child of the next) closes by naming `k` (on the chain)
// as the parent of its last bone: "B" -> "A" -> "B", child to parent, at most 8 names shown.
std::string cycle_text(const QmshTmpArmature& arm, const std::vector<size_t>& chain, size_t k) {
  const size_t first = size_t(std::find(chain.begin(), chain.end(), k) - chain.begin());
  std::string out = q(arm.bones[chain.back()].name);
  const size_t length = chain.size() - first;
  for (size_t n = 0; n < length; ++n) {
    if (n == 7 && length > 8) {
      fmt::format_to(std::back_inserter(out), " -> ... ({} bones)", length);
      break;
    }
    out += " -> " + q(arm.bones[chain[first + n]].name);
  }
  return out;
}

// File order with every parent moved before its children; errors on unknown parents and cycles.
std::vector<size_t> bone_order(const QmshTmpArmature& arm, const Ctx& ctx) {
  std::unordered_map<std::string, size_t> by_name;
  for (size_t i = 0; i < arm.bones.size(); ++i)
    if (!by_name.emplace(arm.bones[i].name, i).second)
      ctx.error(fmt::format("armature {}: two bones named {}", q(arm.name), q(arm.bones[i].name)),
                ctx.at(bone_names_at, i));
  std::vector<uint8_t> state(arm.bones.size(), 0);  // 0 new, 1 on the current chain, 2 placed
  std::vector<size_t> order, chain;
  for (size_t i = 0; i < arm.bones.size(); ++i) {
    chain.clear();
    for (size_t k = i; state[k] != 2;) {
      if (state[k] == 1)
        ctx.error(fmt::format("armature {}: bone {}: its parents form a cycle ({})", q(arm.name),
                              q(arm.bones[chain.back()].name), cycle_text(arm, chain, k)),
                  ctx.at(bone_parents_at, chain.back()));
      state[k] = 1;
      chain.push_back(k);
      const std::string& parent = arm.bones[k].parent;
      if (parent.empty()) break;
      auto it = by_name.find(parent);
      if (it == by_name.end())
        ctx.error(fmt::format("armature {}: bone {}: parent bone {} does not exist", q(arm.name),
                              q(arm.bones[k].name), q(parent)),
                  ctx.at(bone_parents_at, k));
      k = it->second;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      state[*it] = 2;
      order.push_back(*it);
    }
  }
  return order;
}

Skeleton build_skeleton(const QmshTmpData& data, const Ctx& ctx) {
  Skeleton sk;
  if (!data.has_armature) return sk;
  const QmshTmpArmature& arm = data.armature;
  if (arm.envelopes != 0)
    ctx.warn(fmt::format("armature {}: envelopes are not used; only vertex groups (and parent bones) skin",
                         q(arm.name)),
             ctx.where ? ctx.where->armature : Where{});
  const std::vector<size_t> order = bone_order(arm, ctx);
  const Mat3x4 object = object_matrix(arm.position, arm.orientation, arm.size);
  std::vector<Mat3x4> world;
  for (size_t i : order) {
    const QmshTmpBone& bone = arm.bones[i];
    Joint j;
    j.name = bone.name;
    j.parent = bone.parent.empty() ? -1 : sk.find(bone.parent);
    world.push_back(mat_mul(object, from_file_matrix(bone.matrix_armature)));
    const Mat3x4 local = j.parent < 0 ? world.back() : mat_mul(mat_inverse(world[size_t(j.parent)]), world.back());
    sk.rest_matrix.push_back(local);
    sk.rest.push_back(decompose(local));
    // Blender's bone matrices are rotations; printed with 8 digits their axes are 1 only within
    // rounding (0.70710677 gives 0.99999994).
    for (float& c : sk.rest.back().scale)
      if (std::fabs(c - 1.0f) <= 1e-6f) c = 1.0f;
    j.rest = axes::zup_to_scene(sk.rest.back());
    sk.index.emplace(j.name, int32_t(sk.joints.size()));
    sk.joints.push_back(std::move(j));
  }
  return sk;
}

// ---- Meshes ------------------------------------------------------------------------------------

using Influences = std::vector<std::pair<int32_t, float>>;  // (joint, weight), weights sum to 1

void check_object(const QmshTmpMesh& obj, const Ctx& ctx) {
  const size_t nv = obj.vertices.size();
  for (size_t f = 0; f < obj.faces.size(); ++f) {
    const QmshTmpFace& face = obj.faces[f];
    if (face.count < 3 || face.count > 4)
      ctx.error(fmt::format("object {}: face {} has {} corners (3 or 4)", q(obj.name), f, face.count));
    for (uint32_t c = 0; c < face.count; ++c)
      if (face.vertex[c] >= nv)
        ctx.error(fmt::format("object {}: face {}: vertex index {} out of range ({} vertices)", q(obj.name), f,
                              face.vertex[c], nv));
  }
  for (const QmshTmpVertexGroup& g : obj.vertex_groups) {
    if (g.vertices.size() != g.weights.size())
      ctx.error(fmt::format("object {}: vertex group {}: {} vertex indices but {} weights", q(obj.name), q(g.name),
                            g.vertices.size(), g.weights.size()));
    for (uint32_t v : g.vertices)
      if (v >= nv)
        ctx.error(fmt::format("object {}: vertex group {}: vertex index {} out of range ({} vertices)",
                              q(obj.name), q(g.name), v, nv));
  }
}

// Per file vertex: its influences, or an empty vector for a mesh that is not skinned.
std::vector<Influences> skin(const QmshTmpMesh& obj, size_t index, const Skeleton& sk, const Ctx& ctx) {
  const size_t nv = obj.vertices.size();
  if (!obj.parent_bone.empty()) {
    const int32_t j = sk.find(obj.parent_bone);
    if (j < 0)
      ctx.error(fmt::format("object {}: parent bone {} does not exist", q(obj.name), q(obj.parent_bone)),
                ctx.at(parent_bones_at, index));
    return std::vector<Influences>(nv, Influences{{j, 1.0f}});
  }
  std::vector<Influences> out(nv);
  bool any = false;
  for (size_t gi = 0; gi < obj.vertex_groups.size(); ++gi) {
    const QmshTmpVertexGroup& g = obj.vertex_groups[gi];
    const Where at = ctx.at(nested(&SourceMap::vertex_groups, index), gi);
    const int32_t j = sk.find(g.name);
    if (j < 0) {
      ctx.warn(fmt::format("object {}: vertex group {} names no bone: ignored", q(obj.name), q(g.name)), at);
      continue;
    }
    any = true;
    size_t bad = 0;
    for (size_t k = 0; k < g.vertices.size(); ++k) {
      const float w = g.weights[k];
      if (!std::isfinite(w)) ++bad;
      if (!(w > 0) || !std::isfinite(w)) continue;
      Influences& in = out[g.vertices[k]];
      auto it = std::find_if(in.begin(), in.end(), [&](const auto& p) { return p.first == j; });
      if (it == in.end()) in.emplace_back(j, w);
      else it->second += w;
    }
    if (bad)
      ctx.warn(fmt::format("object {}: vertex group {}: {} weights not finite: ignored", q(obj.name), q(g.name), bad),
               at);
  }
  if (!any) return {};
  for (Influences& in : out) {
    double sum = 0;
    for (const auto& p : in) sum += p.second;
    if (!(sum > 0) || !std::isfinite(sum)) {
      in.clear();
      continue;
    }
    for (auto& p : in) p.second = float(p.second / sum);
    std::stable_sort(in.begin(), in.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  }
  return out;
}

// The Scene's materials by name (a map, so that many objects with many materials stay fast).
using MaterialIndex = std::unordered_map<std::string, int32_t>;

int32_t scene_material(Scene& scene, MaterialIndex& index, const std::string& name) {
  if (name.empty()) return -1;
  auto [it, added] = index.try_emplace(name, int32_t(scene.materials.size()));
  if (added) {
    Material m;
    m.name = name;
    scene.materials.push_back(std::move(m));
  }
  return it->second;
}

uint32_t float_key(float f) {
  f += 0.0f;  // -0 -> +0
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

VertexStream new_stream(Attribute a, ComponentType format, uint32_t components) {
  VertexStream s;
  s.attribute = a;
  s.format = format;
  s.components = components;
  return s;
}

// What one split mesh is made of.
struct ObjectInput {
  const QmshTmpMesh& obj;
  std::vector<Vec3> positions;  // transformed, Scene axes
  bool uvs = false;             // some corner has a texture coordinate other than (0, 0)
  bool mirror = false;          // the object matrix has a negative determinant
  std::vector<Influences> skin;
};

void add_blend_streams(Mesh& m, const std::vector<uint32_t>& source, const std::vector<Influences>& skin,
                       size_t joint_count) {
  size_t width = 1;
  for (uint32_t v : source) width = std::max(width, skin[v].size());
  const ComponentType index_format = joint_count > 256 ? ComponentType::UShort : ComponentType::UByte;
  VertexStream bi = new_stream(Attribute::BlendIndices, index_format, uint32_t(width));
  VertexStream bw = new_stream(Attribute::BlendWeights, ComponentType::Float, uint32_t(width));
  bi.data.assign(source.size() * width, 0.0f);
  bw.data.assign(source.size() * width, 0.0f);
  for (size_t v = 0; v < source.size(); ++v) {
    const Influences& in = skin[source[v]];
    for (size_t k = 0; k < in.size(); ++k) {
      bi.data[v * width + k] = float(in[k].first);
      bw.data[v * width + k] = in[k].second;
    }
  }
  m.streams.push_back(std::move(bi));
  m.streams.push_back(std::move(bw));
}

// The faces `faces` of the object as one Scene mesh: corners de-indexed by (vertex, uv).
Mesh split_mesh(const ObjectInput& in, const std::vector<size_t>& faces, size_t joint_count) {
  struct KeyHash {
    size_t operator()(const std::array<uint32_t, 3>& k) const {
      return (size_t(k[0]) * 0x9E3779B97F4A7C15ull) ^ (size_t(k[1]) * 0xC2B2AE3D27D4EB4Full) ^ size_t(k[2]);
    }
  };
  std::unordered_map<std::array<uint32_t, 3>, uint32_t, KeyHash> ids;
  std::vector<uint32_t> source;  // file vertex per mesh vertex
  std::vector<std::array<float, 2>> uv;
  Mesh m;
  for (size_t f : faces) {
    const QmshTmpFace& face = in.obj.faces[f];
    std::array<uint32_t, 4> corners{};
    for (uint32_t c = 0; c < face.count; ++c) {
      const uint32_t k = in.mirror ? (face.count - c) % face.count : c;
      const std::array<uint32_t, 3> key{face.vertex[k], float_key(face.uv[k][0]), float_key(face.uv[k][1])};
      auto [it, added] = ids.emplace(key, uint32_t(source.size()));
      if (added) {
        source.push_back(face.vertex[k]);
        uv.push_back(face.uv[k]);
      }
      corners[c] = it->second;
    }
    ops::append_polygon(m, std::span<const uint32_t>(corners.data(), face.count));
  }
  VertexStream pos = new_stream(Attribute::Position, ComponentType::Float, 3);
  pos.source_size = 3;
  for (uint32_t v : source) pos.data.insert(pos.data.end(), in.positions[v].begin(), in.positions[v].end());
  m.streams.push_back(std::move(pos));
  if (in.uvs) {
    VertexStream tc = new_stream(Attribute::Texcoord, ComponentType::Float, 2);
    tc.source_size = 2;
    for (const auto& t : uv) {
      tc.data.push_back(t[0]);
      tc.data.push_back(1.0f - t[1]);
    }
    m.streams.push_back(std::move(tc));
  }
  if (!in.skin.empty()) add_blend_streams(m, source, in.skin, joint_count);
  m.smoothing.face_angle.assign(m.face_count(), in.obj.auto_smooth_angle);
  return m;
}

std::vector<Mesh> build_object(const QmshTmpMesh& obj, size_t index, const Skeleton& sk, Scene& scene,
                               MaterialIndex& materials, const Ctx& ctx) {
  check_object(obj, ctx);
  if (obj.faces.empty()) {
    ctx.warn(fmt::format("object {} has no faces: skipped", q(obj.name)), ctx.at(meshes_at, index));
    return {};
  }
  ObjectInput in{obj, {}, false, false, {}};
  const Mat3x4 m = object_matrix(obj.position, obj.orientation, obj.size);
  in.mirror = determinant(m) < 0;
  for (const auto& v : obj.vertices) in.positions.push_back(axes::zup_to_scene(mat_apply(m, v)));
  for (const QmshTmpFace& f : obj.faces)
    for (uint32_t c = 0; c < f.count; ++c) in.uvs = in.uvs || f.uv[c][0] != 0 || f.uv[c][1] != 0;
  in.skin = skin(obj, index, sk, ctx);

  // Faces by material name, in the order of the first material index that has the name.
  std::map<uint32_t, std::vector<size_t>> by_index;
  for (size_t f = 0; f < obj.faces.size(); ++f) by_index[obj.faces[f].material].push_back(f);
  std::vector<std::pair<std::string, std::vector<size_t>>> groups;
  for (auto& [index, faces] : by_index) {
    const std::string name = index < obj.materials.size() ? obj.materials[index] : std::string();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == name; });
    if (it == groups.end()) groups.emplace_back(name, std::move(faces));
    else it->second.insert(it->second.end(), faces.begin(), faces.end());
  }
  Scene work;  // normals smooth across this object's meshes only
  for (auto& [material, faces] : groups) {
    std::sort(faces.begin(), faces.end());
    Mesh mesh = split_mesh(in, faces, sk.joints.size());
    mesh.name = groups.size() == 1 ? obj.name : obj.name + "." + material;
    mesh.material = scene_material(scene, materials, material);
    work.meshes.push_back(std::move(mesh));
  }
  generate_normals(work, {}, &ctx.diags);
  if (in.uvs) generate_tangents(work, {}, &ctx.diags);
  return std::move(work.meshes);
}

// ---- Animations --------------------------------------------------------------------------------

// A bone's pose: rest . T(loc) . R(quat) . S(size), Blender axes.
Transform compose_pose(const Transform& rest, const Mat3x4& rest_matrix, Vec3 loc, Quat q, Vec3 size) {
  if (!uniform_scale(rest.scale)) return decompose(mat_mul(rest_matrix, mat_from_trs(loc, q, size)));
  Transform t;
  t.translation = rest.translation + quat_rotate(rest.rotation, loc * rest.scale[0]);
  t.rotation = quat_normalize(quat_mul(rest.rotation, quat_normalize(q)));
  t.scale = {rest.scale[0] * size[0], rest.scale[1] * size[1], rest.scale[2] * size[2]};
  return t;
}

struct Track {
  std::array<int32_t, 10> curve;  // index into ActionCurves::curves per slot, -1 for none
};

struct ActionCurves {
  std::vector<ops::Curve> curves;
  std::vector<Track> tracks;  // per joint
  double first = 0, last = 0;
  bool keyed = false;
};

ActionCurves collect_curves(const QmshTmpAction& action, size_t index, const Skeleton& sk, const Ctx& ctx) {
  ActionCurves ac;
  Track none;
  none.curve.fill(-1);
  ac.tracks.assign(sk.joints.size(), none);
  size_t curve_index = 0;  // in file order over the action's channels
  for (size_t ci = 0; ci < action.channels.size(); ++ci) {
    const QmshTmpChannel& ch = action.channels[ci];
    const size_t first_curve = curve_index;
    curve_index += ch.curves.size();
    const int32_t j = sk.find(ch.name);
    if (j < 0) {
      ctx.warn(fmt::format("action {}: channel {} names no bone: ignored", q(action.name), q(ch.name)),
               ctx.at(nested(&SourceMap::channels, index), ci));
      continue;
    }
    for (size_t k = 0; k < ch.curves.size(); ++k) {
      const QmshTmpCurve& c = ch.curves[k];
      const Where at = ctx.at(nested(&SourceMap::curves, index), first_curve + k);
      const int slot = curve_slot(c.name);
      if (slot < 0) {
        ctx.warn(fmt::format("action {}: channel {}: curve {} is not a bone curve: ignored", q(action.name),
                             q(ch.name), q(c.name)),
                 at);
        continue;
      }
      int32_t& target = ac.tracks[size_t(j)].curve[size_t(slot)];
      if (target >= 0) {
        ctx.warn(fmt::format("action {}: channel {}: second curve {}: ignored", q(action.name), q(ch.name),
                             q(c.name)),
                 at);
        continue;
      }
      size_t dropped = 0;
      ops::Curve curve = ops::prepare_curve(c, &dropped);
      if (dropped)
        ctx.warn(fmt::format("action {}: channel {}: curve {}: {} points not finite: ignored", q(action.name),
                             q(ch.name), q(c.name), dropped),
                 at);
      if (!curve.keys.empty()) {
        ac.first = ac.keyed ? std::min(ac.first, curve.keys.front().x) : curve.keys.front().x;
        ac.last = ac.keyed ? std::max(ac.last, curve.keys.back().x) : curve.keys.back().x;
        ac.keyed = true;
      }
      target = int32_t(ac.curves.size());
      ac.curves.push_back(std::move(curve));
    }
  }
  return ac;
}

// `poses` counts the poses of the actions built so far: all actions together hold at most
// kMaxPoses, so that many short actions cannot add up to a huge Scene either.
Animation build_animation(const QmshTmpAction& action, size_t index, const Skeleton& sk, int32_t fps, double& poses,
                          const Ctx& ctx) {
  const ActionCurves ac = collect_curves(action, index, sk, ctx);
  const Where at = ctx.at(actions_at, index);
  Animation a;
  a.name = action.name;
  a.framerate = float(fps);
  a.loop = false;
  a.channels = uint32_t(sk.joints.size());
  if (a.channels == 0) return a;
  if (!ac.keyed) ctx.warn(fmt::format("action {} has no keys: one frame of the rest pose", q(action.name)), at);
  const double span = ac.last - ac.first;
  const double frames = std::ceil(span - 1e-6) + 1;
  const std::string bones = fmt::format("{} {}", a.channels, a.channels == 1 ? "bone" : "bones");
  if (!(frames * double(a.channels) <= kMaxPoses))
    ctx.error(fmt::format("action {}: frames {} to {} for {}: more than {} poses", q(action.name), ac.first, ac.last,
                          bones, kMaxPoses),
              at);
  if (!(frames * double(a.channels) <= kMaxPoses - poses))
    ctx.error(fmt::format("action {}: frames {} to {} for {}: the actions together would hold more than {} poses",
                          q(action.name), ac.first, ac.last, bones, kMaxPoses),
              at);
  poses += std::max(frames, 1.0) * double(a.channels);
  const size_t n = size_t(std::max(frames, 1.0));
  a.poses.reserve(n * a.channels);
  for (size_t f = 0; f < n; ++f) {
    const double x = ac.first + double(f);
    for (size_t j = 0; j < a.channels; ++j) {
      std::array<float, 10> v = kCurveRest;
      for (size_t s = 0; s < 10; ++s)
        if (int32_t c = ac.tracks[j].curve[s]; c >= 0) v[s] = float(ops::evaluate(ac.curves[size_t(c)], x));
      const Transform pose = compose_pose(sk.rest[j], sk.rest_matrix[j], {v[0], v[1], v[2]},
                                          {v[4], v[5], v[6], v[3]}, {v[7], v[8], v[9]});
      a.poses.push_back(axes::zup_to_scene(pose));
    }
  }
  return a;
}

int32_t scene_fps(const QmshTmpData& data, const Ctx& ctx) {
  if (data.fps.empty()) return kDefaultFps;
  if (data.fps.back() > 0) return data.fps.back();
  ctx.warn(fmt::format("params: fps = {} is not positive: {} used", data.fps.back(), kDefaultFps),
           ctx.at(fps_at, data.fps.size() - 1));
  return kDefaultFps;
}

// ---- Scene -> QmshTmpData ----------------------------------------------------------------------

// Joint names made unique and non-empty (vertex groups and channels are found by name).
std::vector<std::string> bone_names(const std::vector<Joint>& joints, const Ctx& ctx) {
  std::vector<std::string> names;
  std::unordered_set<std::string> taken;
  for (size_t i = 0; i < joints.size(); ++i) {
    const std::string base = joints[i].name.empty() ? fmt::format("joint{}", i) : joints[i].name;
    std::string name = base;
    for (int k = 1; taken.count(name); ++k) name = fmt::format("{}.{:03}", base, k);
    if (name != joints[i].name)
      ctx.warn(fmt::format("joint {} ({}) written as bone {}: bone names must be unique and non-empty", i,
                           q(joints[i].name), q(name)));
    taken.insert(name);
    names.push_back(std::move(name));
  }
  return names;
}

// World (armature space) rest matrices of the joints, Blender axes.
std::vector<Mat3x4> world_rest(const std::vector<Joint>& joints, const Ctx& ctx) {
  std::vector<Mat3x4> world;
  for (size_t i = 0; i < joints.size(); ++i) {
    const Joint& j = joints[i];
    if (j.parent >= int32_t(i))
      ctx.error(fmt::format("joint {}: parent {} does not precede it", q(j.name), j.parent));
    const Mat3x4 local = trs_matrix(axes::scene_to_zup(j.rest));
    world.push_back(j.parent < 0 ? local : mat_mul(world[size_t(j.parent)], local));
  }
  return world;
}

// Bone lengths: the distance to the first child whose head is elsewhere, else the parent's length,
// else kDefaultBoneLength.
std::vector<float> bone_lengths(const std::vector<Joint>& joints, const std::vector<Mat3x4>& world) {
  std::vector<float> len(joints.size(), 0.0f);
  for (size_t i = 0; i < joints.size(); ++i) {
    const int32_t p = joints[i].parent;
    if (p < 0 || len[size_t(p)] > 0) continue;
    len[size_t(p)] = length(column(world[i], 3) - column(world[size_t(p)], 3));
  }
  for (size_t i = 0; i < joints.size(); ++i) {
    if (len[i] > 1e-6f && std::isfinite(len[i])) continue;
    const int32_t p = joints[i].parent;
    len[i] = p >= 0 ? len[size_t(p)] : kDefaultBoneLength;
  }
  return len;
}

QmshTmpArmature armature_from(const Scene& scene, const std::vector<std::string>& names, const Ctx& ctx) {
  QmshTmpArmature arm;
  arm.name = kArmatureName;
  arm.vertex_groups = 1;
  arm.envelopes = 0;
  const std::vector<Mat3x4> world = world_rest(scene.joints, ctx);
  const std::vector<float> len = bone_lengths(scene.joints, world);
  std::vector<Vec3> tails;
  for (size_t i = 0; i < scene.joints.size(); ++i) {
    const Joint& j = scene.joints[i];
    QmshTmpBone b;
    b.name = names[i];
    b.parent = j.parent < 0 ? "" : names[size_t(j.parent)];
    const Vec3 head = column(world[i], 3);
    const Vec3 tail = head + normalize(column(world[i], 1)) * len[i];
    tails.push_back(tail);
    b.head_armature = head;
    b.tail_armature = tail;
    if (j.parent < 0) {
      b.head_bone = head, b.tail_bone = tail;
    } else {
      const Mat3x4 inv = mat_inverse(world[size_t(j.parent)]);
      const Vec3 origin = mat_apply(inv, tails[size_t(j.parent)]);
      b.head_bone = mat_apply(inv, head) - origin;
      b.tail_bone = mat_apply(inv, tail) - origin;
    }
    b.length = len[i];
    b.weight = 1;
    const Mat3x4 local = trs_matrix(axes::scene_to_zup(j.rest));
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) b.matrix_bone[size_t(c * 3 + r)] = local[size_t(c * 3 + r)];
    b.matrix_armature = to_file_matrix(world[i]);
    arm.bones.push_back(std::move(b));
  }
  return arm;
}

float uniform_angle(const Mesh& m) {
  const auto& a = m.smoothing.face_angle;
  if (a.empty() || a.size() != m.face_count()) return 180.0f;
  for (float v : a)
    if (!(v == a[0])) return 180.0f;
  return a[0];
}

std::vector<QmshTmpVertexGroup> groups_from(const Mesh& m, const std::vector<std::string>& names, const Ctx& ctx) {
  const VertexStream* bi = m.find(Attribute::BlendIndices);
  const VertexStream* bw = m.find(Attribute::BlendWeights);
  if (!bi || !bw) return {};
  std::map<int32_t, QmshTmpVertexGroup> by_joint;
  size_t bad = 0;
  const size_t nv = std::min(bi->vertex_count(), bw->vertex_count());
  for (size_t v = 0; v < nv; ++v) {
    std::map<int32_t, float> acc;
    for (uint32_t c = 0; c < std::min(bi->components, bw->components); ++c) {
      const float w = bw->get(v, c);
      if (!(w > 0)) continue;
      const float index = bi->get(v, c);
      if (!(index >= 0 && index < float(names.size()))) {
        ++bad;
        continue;
      }
      acc[int32_t(index)] += w;
    }
    for (const auto& [j, w] : acc) {
      QmshTmpVertexGroup& g = by_joint[j];
      g.vertices.push_back(uint32_t(v));
      g.weights.push_back(w);
    }
  }
  if (bad) ctx.warn(fmt::format("mesh {}: {} influences name no joint: not written", q(m.name), bad));
  std::vector<QmshTmpVertexGroup> out;
  for (auto& [j, g] : by_joint) {
    g.name = names[size_t(j)];
    out.push_back(std::move(g));
  }
  return out;
}

QmshTmpFace face_from(const VertexStream* tc, std::span<const uint32_t> corners) {
  QmshTmpFace f;
  f.count = uint32_t(corners.size());
  f.smooth = 1;
  for (size_t c = 0; c < corners.size(); ++c) {
    f.vertex[c] = corners[c];
    if (tc) f.uv[c] = {tc->get(corners[c], 0), 1.0f - tc->get(corners[c], 1)};
  }
  return f;
}

void faces_from(const Mesh& m, QmshTmpMesh& obj, const Ctx& ctx) {
  const VertexStream* tc = m.find(Attribute::Texcoord);
  const size_t nv = m.vertex_count();
  for (uint32_t i : m.triangles)
    if (i >= nv) ctx.error(fmt::format("mesh {}: triangle index {} out of range ({} vertices)", q(m.name), i, nv));
  if (m.triangles.size() % 3) ctx.error(fmt::format("mesh {}: triangle list is not a multiple of 3", q(m.name)));
  Mesh tri;  // polygons that do not fit are written as triangles
  const Mesh& src = ops::polygons_fit(m) ? m : tri;
  if (&src == &tri) tri.triangles = m.triangles;
  ops::for_each_face(src, [&](const ops::Face& f) {
    const std::vector<uint32_t> corners = ops::polygon_corners(src, f);
    if (corners.size() <= 4) {
      obj.faces.push_back(face_from(tc, corners));
      return;
    }
    for (size_t k = 1; k + 1 < corners.size(); ++k) {
      const std::array<uint32_t, 3> t{corners[0], corners[k], corners[k + 1]};
      obj.faces.push_back(face_from(tc, t));
    }
  });
}

QmshTmpMesh object_from(const Scene& scene, const Mesh& m, const std::vector<std::string>& names, const Ctx& ctx) {
  QmshTmpMesh obj;
  obj.name = m.name;
  obj.auto_smooth_angle = uniform_angle(m);
  if (m.material >= 0 && size_t(m.material) < scene.materials.size())
    obj.materials.push_back(scene.materials[size_t(m.material)].name);
  const VertexStream* pos = m.find(Attribute::Position);
  for (size_t v = 0; v < pos->vertex_count(); ++v)
    obj.vertices.push_back(axes::scene_to_zup(Vec3{pos->get(v, 0), pos->get(v, 1), pos->get(v, 2)}));
  faces_from(m, obj, ctx);
  if (!names.empty()) obj.vertex_groups = groups_from(m, names, ctx);
  if (!obj.vertex_groups.empty()) obj.parent_armature = kArmatureName;
  return obj;
}

// P = rest^-1 . pose in bone space (Blender axes), as loc, quat (x y z w), size.
Transform bone_space_pose(const Transform& rest, const Transform& pose) {
  if (!uniform_scale(rest.scale)) return decompose(mat_mul(mat_inverse(trs_matrix(rest)), trs_matrix(pose)));
  const Quat inv = quat_conjugate(quat_normalize(rest.rotation));
  Transform p;
  p.translation = quat_rotate(inv, pose.translation - rest.translation) * (1.0f / rest.scale[0]);
  p.rotation = quat_normalize(quat_mul(inv, pose.rotation));
  p.scale = {pose.scale[0] / rest.scale[0], pose.scale[1] / rest.scale[1], pose.scale[2] / rest.scale[2]};
  return p;
}

double frame_of(const Animation& a, size_t f, int32_t fps) {
  if (a.times.size() == a.frame_count()) return double(a.times[f]) * fps;
  if (a.framerate > 0) return double(f) * fps / double(a.framerate);
  return double(f);
}

// Keys of `scene`'s animations not within 1e-3 of a whole frame at `fps` (stops at `enough`).
size_t keys_off_grid(const Scene& scene, int32_t fps, size_t enough) {
  size_t off = 0;
  for (const Animation& a : scene.animations)
    for (size_t f = 0; f < a.frame_count() && off < enough; ++f) {
      const double x = frame_of(a, f, fps);
      if (!(std::fabs(x - std::round(x)) <= 1e-3)) ++off;
    }
  return off;
}

// The file's `fps =`: the first animation's framerate rounded (25 without one) when every key
// lands on a whole frame at it (the reader samples the curves at whole frames), else the lowest
// rate up to 240 at which they all do (Swordsman.qmsh's keys 0, 0.2, 0.6, 0.8 s and its "Die" at
// 2.5 fps: 5); else the first, with a warning counting the keys moved.
int32_t file_fps(const Scene& scene, const Ctx& ctx) {
  int32_t first = kDefaultFps;
  if (!scene.animations.empty() && scene.animations[0].framerate > 0 && std::isfinite(scene.animations[0].framerate))
    first = int32_t(std::clamp(std::lround(scene.animations[0].framerate), 1L, 32767L));
  if (keys_off_grid(scene, first, 1) == 0) return first;
  for (int32_t fps = 1; fps <= kMaxGridFps; ++fps)
    if (keys_off_grid(scene, fps, 1) == 0) return fps;
  ctx.warn(fmt::format("{} animation keys fall between whole frames at {} fps (and at every rate up to {}): the "
                       "reader samples the curves at whole frames",
                       keys_off_grid(scene, first, SIZE_MAX), first, kMaxGridFps));
  return first;
}

QmshTmpAction action_from(const Scene& scene, const Animation& a, const std::vector<std::string>& names, int32_t fps) {
  QmshTmpAction act;
  act.name = a.name;
  const size_t n = a.frame_count();
  for (size_t j = 0; j < scene.joints.size(); ++j) {
    const Transform rest = axes::scene_to_zup(scene.joints[j].rest);
    QmshTmpChannel ch;
    ch.name = names[j];
    for (const char* name : kCurveNames) {
      QmshTmpCurve c;
      c.name = name;
      c.interpolation = QmshTmpCurve::Interpolation::Linear;
      c.extend = QmshTmpCurve::Extend::Const;
      ch.curves.push_back(std::move(c));
    }
    Quat previous{0, 0, 0, 1};
    for (size_t f = 0; f < n; ++f) {
      Transform p = bone_space_pose(rest, axes::scene_to_zup(a.poses[f * a.channels + j]));
      if (p.rotation[0] * previous[0] + p.rotation[1] * previous[1] + p.rotation[2] * previous[2] +
              p.rotation[3] * previous[3] < 0)
        for (float& c : p.rotation) c = -c;
      previous = p.rotation;
      const std::array<float, 10> v = {p.translation[0], p.translation[1], p.translation[2], p.rotation[3],
                                       p.rotation[0],    p.rotation[1],    p.rotation[2],    p.scale[0],
                                       p.scale[1],       p.scale[2]};
      const float x = float(frame_of(a, f, fps));
      for (size_t s = 0; s < 10; ++s) ch.curves[s].points.push_back({x, v[s]});
    }
    act.channels.push_back(std::move(ch));
  }
  return act;
}

}  // namespace

Scene build_scene(QmshTmpData data, const std::string& name, Diagnostics& diags, const SourceMap* where) {
  const Ctx ctx{name, diags, where};
  Scene scene;
  const Skeleton sk = build_skeleton(data, ctx);
  scene.joints = sk.joints;
  MaterialIndex materials;
  for (size_t i = 0; i < data.meshes.size(); ++i) {
    const QmshTmpMesh& obj = data.meshes[i];
    if (!obj.parent_armature.empty() && (!data.has_armature || obj.parent_armature != data.armature.name))
      ctx.warn(fmt::format("object {}: parent armature {} is not the file's armature", q(obj.name),
                           q(obj.parent_armature)),
               ctx.at(meshes_at, i));
    std::vector<Mesh> meshes = build_object(obj, i, sk, scene, materials, ctx);
    if (scene.meshes.size() + meshes.size() > kMaxMeshes)
      ctx.error(fmt::format("object {}: more than {} meshes (one per object and material): more than meshport "
                            "reads from one file",
                            q(obj.name), kMaxMeshes),
                ctx.at(meshes_at, i));
    for (Mesh& m : meshes) scene.meshes.push_back(std::move(m));
  }
  if (!data.actions.empty() && sk.joints.empty())
    ctx.warn(fmt::format("{} actions but no bones: the actions are kept in the data only", data.actions.size()),
             ctx.at(actions_at, 0));
  if (!sk.joints.empty()) {
    const int32_t fps = scene_fps(data, ctx);
    double poses = 0;
    if (data.actions.size() > kMaxAnimations)
      ctx.error(fmt::format("more than {} actions: more than meshport reads from one file", kMaxAnimations),
                ctx.at(actions_at, kMaxAnimations));
    for (size_t i = 0; i < data.actions.size(); ++i)
      scene.animations.push_back(build_animation(data.actions[i], i, sk, fps, poses, ctx));
  }
  scene.qmsh_tmp = std::move(data);
  scene.qmsh_tmp->fingerprint = content_fingerprint(scene);
  return scene;
}

Scene read(std::string_view text, const std::string& name, Diagnostics& diags) {
  SourceMap where;
  QmshTmpData data = parse(text, name, diags, &where);
  return build_scene(std::move(data), name, diags, &where);
}

QmshTmpData scene_to_tmp(const Scene& scene, Diagnostics& diags) {
  const std::string file;
  const Ctx ctx{file, diags, nullptr};
  QmshTmpData d;
  const std::vector<std::string> names = bone_names(scene.joints, ctx);
  if (!scene.joints.empty()) {
    d.has_armature = true;
    d.armature = armature_from(scene, names, ctx);
    d.armature_index = 0;
  }
  for (const Mesh& m : scene.meshes) {
    if (!m.find(Attribute::Position)) {
      ctx.warn(fmt::format("mesh {} has no positions: not written", q(m.name)));
      continue;
    }
    d.meshes.push_back(object_from(scene, m, names, ctx));
  }
  const int32_t fps = file_fps(scene, ctx);
  d.fps.push_back(fps);
  for (const Animation& a : scene.animations) {
    if (scene.joints.empty() || a.channels != scene.joints.size() || a.poses.size() != a.frame_count() * a.channels) {
      ctx.warn(fmt::format("animation {}: {} channels for {} joints: not written", q(a.name), a.channels,
                           scene.joints.size()));
      continue;
    }
    d.actions.push_back(action_from(scene, a, names, fps));
  }
  return d;
}

std::string write(const Scene& scene, Diagnostics& diags) {
  // The kept text is written only while the Scene is what the reader made of it (issue 16).
  if (scene.qmsh_tmp && scene.qmsh_tmp->fingerprint == content_fingerprint(scene)) {
    // The kept text may have been edited since (the Python module binds it): faces and vertex
    // groups are checked as the reader checks them, so that no unreadable file is written.
    const std::string kept = "the kept .qmsh.tmp data";
    const Ctx ctx{kept, diags};
    for (const QmshTmpMesh& obj : scene.qmsh_tmp->meshes) check_object(obj, ctx);
    return print(*scene.qmsh_tmp);
  }
  if (scene.qmsh_tmp)
    diags.add(warning("", "the Scene changed since it was read (processing or editing): the .qmsh.tmp is written "
                          "from the Scene, not from the kept text (objects per material, actions sampled per "
                          "frame, Blender 2.4x curves and unknown curve names not kept)"));
  return print(scene_to_tmp(scene, diags));
}

}  // namespace meshport::qmsh_tmp
