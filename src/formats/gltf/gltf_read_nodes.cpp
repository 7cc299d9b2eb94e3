// glTF reader: nodes (transforms, the graph checked and walked iteratively), skins and the
// Scene skeleton, attachments; and the small transform math the reader shares.
#include "formats/gltf/gltf_read.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace meshport::gltf::read_impl {

// ---------------------------------------------------------------------------------------------
// Small math

float det3(const Mat3x4& m) {
  return dot(cross(Vec3{m[0], m[1], m[2]}, Vec3{m[3], m[4], m[5]}), Vec3{m[6], m[7], m[8]});
}

// Inverse transpose of the 3x3 part (translation 0): transforms normals.
Mat3x4 normal_matrix(const Mat3x4& m) {
  Mat3x4 a = m;
  a[9] = a[10] = a[11] = 0;
  Mat3x4 inv = mat_inverse(a);
  Mat3x4 t{};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) t[c * 3 + r] = inv[r * 3 + c];
  return t;
}

// A glTF 4x4 column-major matrix as an affine matrix (the bottom row is ignored).
Mat3x4 affine_from_mat4(const float* m) {
  return {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10], m[12], m[13], m[14]};
}

namespace {

// Quaternion of the rotation matrix with columns x, y, z.
Quat quat_from_basis(const std::array<double, 3>& x, const std::array<double, 3>& y, const std::array<double, 3>& z) {
  const double m00 = x[0], m10 = x[1], m20 = x[2], m01 = y[0], m11 = y[1], m21 = y[2], m02 = z[0], m12 = z[1],
               m22 = z[2];
  const double tr = m00 + m11 + m22;
  double q[4];
  if (tr > 0) {
    double s = std::sqrt(tr + 1.0) * 2;
    q[3] = 0.25 * s, q[0] = (m21 - m12) / s, q[1] = (m02 - m20) / s, q[2] = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    double s = std::sqrt(1.0 + m00 - m11 - m22) * 2;
    q[3] = (m21 - m12) / s, q[0] = 0.25 * s, q[1] = (m01 + m10) / s, q[2] = (m02 + m20) / s;
  } else if (m11 > m22) {
    double s = std::sqrt(1.0 + m11 - m00 - m22) * 2;
    q[3] = (m02 - m20) / s, q[0] = (m01 + m10) / s, q[1] = 0.25 * s, q[2] = (m12 + m21) / s;
  } else {
    double s = std::sqrt(1.0 + m22 - m00 - m11) * 2;
    q[3] = (m10 - m01) / s, q[0] = (m02 + m20) / s, q[1] = (m12 + m21) / s, q[2] = 0.25 * s;
  }
  double l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(l > 0)) return {0, 0, 0, 1};
  return {float(q[0] / l), float(q[1] / l), float(q[2] / l), float(q[3] / l)};
}

}  // namespace

// Translation, rotation and scale of an affine matrix. A mirroring matrix gets a negative x
// scale. `exact` is false when the matrix has shear (or a zero scale): the rotation is then the
// Gram-Schmidt orthonormalisation of its basis, a best effort.
Transform decompose(const Mat3x4& m, bool& exact) {
  using D3 = std::array<double, 3>;
  auto ddot = [](const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  auto dcross = [](const D3& a, const D3& b) {
    return D3{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  auto dnorm = [&](D3 a) {
    double l = std::sqrt(ddot(a, a));
    return l > 0 ? D3{a[0] / l, a[1] / l, a[2] / l} : a;
  };
  D3 c[3];
  for (int i = 0; i < 3; ++i) c[i] = {m[i * 3], m[i * 3 + 1], m[i * 3 + 2]};
  double s[3];
  for (int i = 0; i < 3; ++i) s[i] = std::sqrt(ddot(c[i], c[i]));
  if (ddot(dcross(c[0], c[1]), c[2]) < 0) s[0] = -s[0];
  Transform t;
  t.translation = {m[9], m[10], m[11]};
  t.scale = {float(s[0]), float(s[1]), float(s[2])};
  exact = s[0] != 0 && s[1] != 0 && s[2] != 0;
  if (!exact) {
    t.rotation = {0, 0, 0, 1};
    return t;
  }
  D3 r[3];
  for (int i = 0; i < 3; ++i) r[i] = {c[i][0] / s[i], c[i][1] / s[i], c[i][2] / s[i]};
  const double tol = 1e-4;
  if (std::fabs(ddot(r[0], r[1])) > tol || std::fabs(ddot(r[0], r[2])) > tol || std::fabs(ddot(r[1], r[2])) > tol) {
    exact = false;
    r[0] = dnorm(r[0]);
    double d = ddot(r[0], r[1]);
    r[1] = dnorm(D3{r[1][0] - r[0][0] * d, r[1][1] - r[0][1] * d, r[1][2] - r[0][2] * d});
    r[2] = dcross(r[0], r[1]);
  }
  t.rotation = quat_from_basis(r[0], r[1], r[2]);
  return t;
}

// Unit quaternion: values within float rounding of unit length are kept bit for bit.
Quat unit(Quat q) {
  float l2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (std::fabs(l2 - 1.0f) <= 1e-5f) return q;
  return quat_normalize(q);
}

// Whether two affine matrices agree within float rounding of what composing a node hierarchy
// gives: each column within 1e-5 of the larger of its two lengths (at least 1). Relative to the
// column, not to each value: a translation component near 0 of a joint far from the origin
// carries the rounding of the whole column (a writer's inverse bind matrices, computed in
// double, then differ from the float inverse in such a component by more than 1e-5 of itself,
// and re-binding would move the vertices a little on every rewrite).
static bool same_within_rounding(const Mat3x4& a, const Mat3x4& b) {
  for (int c = 0; c < 4; ++c) {
    double la = 0, lb = 0, d = 0;
    for (int r = 0; r < 3; ++r) {
      const double x = a[c * 3 + r], y = b[c * 3 + r];
      la += x * x, lb += y * y, d += (x - y) * (x - y);
    }
    if (!(std::sqrt(d) <= 1e-5 * std::max({1.0, std::sqrt(la), std::sqrt(lb)}))) return false;
  }
  return true;
}

// ---- Nodes -----------------------------------------------------------------------------------

void read_nodes(Reader& rd) {
  const json& arr = rd.top("nodes");
  const size_t n = arr.size();
  rd.spend(u128(n) * sizeof(Node), "nodes", fmt::format("{} nodes", n));
  rd.nodes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string path = fmt::format("nodes[{}]", i);
    const json& o = rd.object_at(arr, i, path);
    Node& node = rd.nodes[i];
    node.name = rd.get_string(o, "name", path);
    node.mesh = rd.opt_index(o, "mesh", path, "meshes");
    node.skin = rd.opt_index(o, "skin", path, "skins");
    node.camera = field(o, "camera") != nullptr;
    const json* ext = field(o, "extensions");
    node.light = ext && field(*ext, "KHR_lights_punctual");
    if (const json* lod = ext ? field(*ext, "MSFT_lod") : nullptr) {
      const std::string lp = path + ".extensions.MSFT_lod";
      if (!lod->is_object()) rd.error(lp, fmt::format("is {}, not an object", lod->type_name()));
      const json& ids = rd.get_array(*lod, "ids", lp);
      for (size_t k = 0; k < ids.size(); ++k) {
        const std::string ip = fmt::format("{}.ids[{}]", lp, k);
        auto id = as_uint(ids[k]);
        if (!id) rd.error(ip, fmt::format("{} is not a node index", describe(ids[k])));
        rd.lod_ids[uint32_t(i)].push_back(rd.check_index(*id, ip, "nodes"));
      }
    }
    read_node_extras(rd, node, o, path);
    const json& ch = rd.get_array(o, "children", path);
    for (size_t k = 0; k < ch.size(); ++k) {
      const std::string cp = fmt::format("{}.children[{}]", path, k);
      auto c = as_uint(ch[k]);
      if (!c) rd.error(cp, fmt::format("{} is not a node index", describe(ch[k])));
      uint32_t child = rd.check_index(*c, cp, "nodes");
      if (child == i) rd.error(cp, fmt::format("node {} lists itself as a child (a cycle)", i));
      if (rd.nodes[child].parent >= 0)
        rd.error(cp, fmt::format("node {} already has a parent, nodes[{}] (a node may have only one)", child,
                                 rd.nodes[child].parent));
      rd.nodes[child].parent = int32_t(i);
      node.children.push_back(child);
    }
    float m[16];
    if (rd.get_floats(o, "matrix", path, m, 16)) {
      node.has_matrix = true;
      node.local = affine_from_mat4(m);
      if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1)
        rd.warn(fmt::format("{}.matrix: the bottom row is not (0, 0, 0, 1); the projective part is ignored", path));
      if (field(o, "translation") || field(o, "rotation") || field(o, "scale"))
        rd.warn(fmt::format("{}: has both a matrix and translation/rotation/scale; the matrix is used", path));
      node.trs = decompose(node.local, node.trs_exact);
    } else {
      rd.get_floats(o, "translation", path, node.trs.translation.data(), 3);
      if (rd.get_floats(o, "rotation", path, node.trs.rotation.data(), 4)) node.trs.rotation = unit(node.trs.rotation);
      rd.get_floats(o, "scale", path, node.trs.scale.data(), 3);
      node.local = mat_from_trs(node.trs.translation, node.trs.rotation, node.trs.scale);
    }
  }
  // Parents before children; a node never reached from a root is on (or under) a cycle.
  rd.topo.reserve(n);
  std::vector<uint32_t> stack;
  for (size_t i = 0; i < n; ++i)
    if (rd.nodes[i].parent < 0) stack.push_back(uint32_t(i));
  while (!stack.empty()) {
    uint32_t x = stack.back();
    stack.pop_back();
    rd.topo.push_back(x);
    for (auto it = rd.nodes[x].children.rbegin(); it != rd.nodes[x].children.rend(); ++it) stack.push_back(*it);
  }
  if (rd.topo.size() < n) {
    std::vector<bool> seen(n);
    for (uint32_t x : rd.topo) seen[x] = true;
    size_t first = 0;
    while (seen[first]) ++first;
    uint32_t x = uint32_t(first);
    for (size_t k = 0; k < n; ++k) x = uint32_t(rd.nodes[x].parent);  // now on the cycle
    rd.error(fmt::format("nodes[{}].children", rd.nodes[x].parent),
             fmt::format("the node hierarchy has a cycle: node {} is its own ancestor", x));
  }
  for (uint32_t x : rd.topo) {
    Node& node = rd.nodes[x];
    node.world = node.parent >= 0 ? mat_mul(rd.nodes[node.parent].world, node.local) : node.local;
  }
  // The active scene: `scene`, else scenes[0]; every node when the file has no scenes.
  const json& scenes = rd.top("scenes");
  if (scenes.empty()) {
    for (Node& node : rd.nodes) node.active = true;
    return;
  }
  uint32_t s = 0;
  if (const json* sc = field(rd.doc, "scene")) {
    auto v = as_uint(*sc);
    if (!v) rd.error("scene", fmt::format("{} is not a scene index", describe(*sc)));
    s = rd.check_index(*v, "scene", "scenes");
  }
  const uint32_t file_default = s;
  auto scene_path = [](size_t k) { return fmt::format("scenes[{}]", k); };
  if (rd.scene_choice) {
    if (*rd.scene_choice >= scenes.size())
      fail(rd.name, fmt::format("--scene {}: the file has {} scene{} (0..{})", *rd.scene_choice, scenes.size(),
                                scenes.size() == 1 ? "" : "s", scenes.size() - 1));
    s = *rd.scene_choice;
  } else if (scenes.size() > 1) {
    rd.warn(fmt::format("note: the file has {} scenes; scenes[{}] ('{}') is read (--scene N reads another; meshport "
                        "info lists them)",
                        scenes.size(), s,
                        text::clip(rd.get_string(rd.object_at(scenes, s, scene_path(s)), "name", scene_path(s)))));
  }
  if (rd.scene_list) {
    rd.scene_list->clear();
    for (size_t k = 0; k < scenes.size(); ++k) {
      const std::string kp = scene_path(k);
      const json& so = rd.object_at(scenes, k, kp);
      rd.scene_list->push_back({rd.get_string(so, "name", kp), rd.get_array(so, "nodes", kp).size(),
                                k == file_default, k == s});
    }
  }
  const std::string sp = scene_path(s);
  const json& roots = rd.get_array(rd.object_at(scenes, s, sp), "nodes", sp);
  for (size_t k = 0; k < roots.size(); ++k) {
    const std::string rp = fmt::format("{}.nodes[{}]", sp, k);
    auto r = as_uint(roots[k]);
    if (!r) rd.error(rp, fmt::format("{} is not a node index", describe(roots[k])));
    stack.push_back(rd.check_index(*r, rp, "nodes"));
  }
  while (!stack.empty()) {
    uint32_t x = stack.back();
    stack.pop_back();
    if (rd.nodes[x].active) continue;
    rd.nodes[x].active = true;
    for (uint32_t c : rd.nodes[x].children) stack.push_back(c);
  }
  read_lod_nodes(rd);
  size_t ignored = 0;
  for (const Node& node : rd.nodes) ignored += !node.active && node.mesh;
  if (ignored)
    rd.warn(fmt::format("{} nodes with a mesh are not in {}, the scene read; they are ignored", ignored, sp));
}

// MSFT_lod: the level nodes an active node lists are read too, as levels of its meshes
// (instance_meshes sets Mesh::lod and lod_of), placed where it is (its parent's world matrix
// times their own). A level node that is in the scene itself, is listed twice, lists levels of
// its own or has no mesh is left as it is (warning).
void read_lod_nodes(Reader& rd) {
  size_t skipped = 0;
  for (const auto& [n, ids] : rd.lod_ids) {
    const Node& base = rd.nodes[n];
    if (!base.active || rd.lod_levels.count(n)) continue;
    for (size_t k = 0; k < ids.size(); ++k) {
      Node& level = rd.nodes[ids[k]];
      if (level.active || rd.lod_levels.count(ids[k]) || rd.lod_ids.count(ids[k]) || !level.mesh || level.parent >= 0) {
        ++skipped;
        continue;
      }
      level.active = true;
      rd.lod_levels[ids[k]] = {uint32_t(k + 1), n};
      if (base.parent >= 0) level.world = mat_mul(rd.nodes[size_t(base.parent)].world, level.local);
    }
  }
  if (skipped)
    rd.warn(fmt::format("{} MSFT_lod level nodes are in the scene already, listed twice, without a mesh or with a "
                        "parent; they are read as they are",
                        skipped));
}

// A node's extras.meshport: whether the writer made it an attachment, and of which mesh.
// Malformed: a warning, and the node is read as any other.
void read_node_extras(Reader& rd, Node& node, const json& o, const std::string& path) {
  const json* mp = meshport_extras(o);
  if (!mp) return;
  const std::string xp = path + ".extras.meshport";
  try {
    if (!mp->is_object()) rd.error(xp, "is not an object");
    node.attachment = rd.get_flag(*mp, "attachment", xp, false);
    node.is_static = rd.get_flag(*mp, "static", xp, false);
    node.attachment_mesh = rd.opt_index(*mp, "mesh", xp, "meshes");
    // The writer's glTF mesh index, where another tool moved that mesh.
    if (node.attachment_mesh && *node.attachment_mesh < rd.mp.written_mesh.size()) {
      const int32_t now = rd.mp.written_mesh[*node.attachment_mesh];
      if (now < 0)
        node.attachment_mesh.reset();
      else
        node.attachment_mesh = uint32_t(now);
    }
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; ignored", e.diagnostic().message));
    node.attachment = node.is_static = false;
    node.attachment_mesh.reset();
  }
}

// ---- Skins -----------------------------------------------------------------------------------

void read_skeleton(Reader& rd) {
  const json& skins = rd.top("skins");
  const size_t nn = rd.nodes.size();
  std::vector<uint32_t> order;  // joint nodes, first seen first
  std::vector<bool> is_joint(nn);
  std::vector<std::vector<uint32_t>> skin_nodes(skins.size());
  for (size_t s = 0; s < skins.size(); ++s) {
    const std::string path = fmt::format("skins[{}]", s);
    const json& o = rd.object_at(skins, s, path);
    const json& joints = rd.get_array(o, "joints", path);
    if (joints.empty()) rd.error(path + ".joints", "is missing or empty");
    rd.opt_index(o, "skeleton", path, "nodes");
    for (size_t k = 0; k < joints.size(); ++k) {
      const std::string jp = fmt::format("{}.joints[{}]", path, k);
      auto j = as_uint(joints[k]);
      if (!j) rd.error(jp, fmt::format("{} is not a node index", describe(joints[k])));
      uint32_t node = rd.check_index(*j, jp, "nodes");
      skin_nodes[s].push_back(node);
    }
  }
  // A meshport file names its joints: nodes 0 .. joint_nodes - 1, in Scene order. Its skins use
  // only those (and meshport_static); a file edited since, where they do not, is read as any other.
  // The writer's meshport_static, also where another tool (Blender) kept only its node extras.
  if (!rd.mp.static_node)
    for (uint32_t n = 0; n < nn; ++n)
      if (rd.nodes[n].is_static) {
        rd.mp.static_node = n;
        break;
      }
  if (rd.mp.mapped) {
    const bool fits = std::all_of(skin_nodes.begin(), skin_nodes.end(), [&](const std::vector<uint32_t>& list) {
      return std::all_of(list.begin(), list.end(), [&](uint32_t n) {
        return (!rd.mp.animation_only && rd.mp.pose_of[n] >= 0) || (rd.mp.static_node && n == *rd.mp.static_node);
      });
    });
    if (!fits) {
      rd.warn(rd.mp.path +
              ": the skins use nodes that are not the joint nodes it names; the joints are read from the skins");
      rd.mp.mapped = false, rd.mp.animation_only = false;
      rd.mp.nodes.clear();
      rd.mp.pose_of.assign(nn, -1);
    }
  }
  if (rd.mp.mapped && !rd.mp.animation_only) {
    for (uint32_t n : rd.mp.nodes) is_joint[n] = true, order.push_back(n);
  } else if (!rd.mp.mapped) {
    for (const auto& list : skin_nodes)
      for (uint32_t n : list)
        if (!is_joint[n] && !(rd.mp.static_node && n == *rd.mp.static_node)) is_joint[n] = true, order.push_back(n);
  }
  // Node animation: the nodes of the scene read that a translation / rotation / scale channel
  // moves become joints too (after the skins' joints, in node order), and the static meshes under
  // them are bound to them rigidly (bind_to_joint). A file whose extras map the joints has no
  // others. A leaf holding only a camera or a light is left out: the Scene has neither.
  if (!rd.mp.mapped) {
    const std::vector<bool> moved = animated_nodes(rd);
    size_t left_out = 0;
    for (uint32_t n = 0; n < nn; ++n) {
      const Node& node = rd.nodes[n];
      if (!moved[n] || is_joint[n] || !node.active || (rd.mp.static_node && n == *rd.mp.static_node)) continue;
      if ((node.camera || node.light) && !node.mesh && node.children.empty()) {
        ++left_out;
        continue;
      }
      is_joint[n] = true, order.push_back(n);
    }
    if (left_out)
      rd.warn(fmt::format("{} animated nodes hold only a camera or a light, which the Scene cannot hold; their "
                          "animation channels are not read",
                          left_out));
  }
  // Non-joint nodes between a joint and a joint ancestor become joints.
  std::vector<int32_t> joint_above(nn, -1);  // nearest joint ancestor
  for (uint32_t x : rd.topo) {
    int32_t p = rd.nodes[x].parent;
    joint_above[x] = p < 0 ? -1 : is_joint[p] ? p : joint_above[p];
  }
  const size_t skin_joint_count = order.size();
  size_t bridged = 0;
  for (size_t k = 0; k < skin_joint_count; ++k) {
    uint32_t j = order[k];
    if (joint_above[j] < 0) continue;
    for (int32_t p = rd.nodes[j].parent; p >= 0 && !is_joint[p]; p = rd.nodes[p].parent) {
      is_joint[p] = true;
      order.push_back(uint32_t(p));
      ++bridged;
    }
  }
  if (bridged)
    rd.warn(
        fmt::format("{} nodes that are not joints lie between joints; they are read as joints so the skeleton stays "
                    "connected",
                    bridged));
  // Parents before children, otherwise in the order first seen.
  rd.spend(u128(order.size()) * sizeof(Joint), "skins", fmt::format("{} joints", order.size()));
  std::vector<uint32_t> chain;
  for (uint32_t j : order) {
    for (int32_t x = int32_t(j); x >= 0 && is_joint[x] && rd.nodes[x].joint < 0; x = rd.nodes[x].parent)
      chain.push_back(uint32_t(x));
    while (!chain.empty()) {
      uint32_t x = chain.back();
      chain.pop_back();
      Node& node = rd.nodes[x];
      node.joint = int32_t(rd.scene.joints.size());
      Joint joint;
      joint.name = node.name.empty() && !rd.mp.mapped ? fmt::format("node{}", x) : node.name;
      const int32_t p = node.parent;
      joint.parent = p >= 0 && is_joint[p] ? rd.nodes[p].joint : -1;
      bool exact = node.trs_exact;
      if (p < 0 || is_joint[p] || rd.nodes[p].world == mat_identity())
        joint.rest = node.trs;
      else
        joint.rest = decompose(node.world, exact);
      if (!exact)
        rd.warn(
            fmt::format("nodes[{}] (joint '{}'): its transform has shear or a zero scale, which a joint's translation, "
                        "rotation and scale cannot express; decomposed approximately",
                        x, text::clip(joint.name)));
      rd.scene.joints.push_back(std::move(joint));
    }
  }
  // Per skin: the Scene joints, and the re-binding matrices when the bind pose is not the rest pose.
  rd.skins.resize(skins.size());
  for (size_t s = 0; s < skins.size(); ++s) {
    const std::string path = fmt::format("skins[{}]", s);
    const json& o = skins[s];
    Skin& skin = rd.skins[s];
    for (uint32_t node : skin_nodes[s]) skin.joints.push_back(rd.nodes[node].joint);  // -1: meshport_static
    if (!field(o, "inverseBindMatrices")) {
      // Identity inverse bind matrices: the rest pose is the bind pose only if every joint's
      // rest world matrix is the identity.
      bool all_identity = std::all_of(skin_nodes[s].begin(), skin_nodes[s].end(),
                                      [&](uint32_t n) { return rd.nodes[n].world == mat_identity(); });
      if (!all_identity)
        for (uint32_t n : skin_nodes[s]) skin.rebind.push_back(rd.nodes[n].world);
    } else {
      const Accessor& a = accessor_at(rd, o, "inverseBindMatrices", path);
      const std::string ap = path + ".inverseBindMatrices";
      if (a.type_name != "MAT4") rd.error(ap, fmt::format("{} is {}, not MAT4", a.path, a.type_name));
      if (a.count < skin_nodes[s].size())
        rd.error(ap, fmt::format("{} has {} matrices for {} joints", a.path, a.count, skin_nodes[s].size()));
      std::vector<float> m = floats(rd, a);
      bool differs = false;
      std::vector<Mat3x4> fix;
      for (size_t k = 0; k < skin_nodes[s].size(); ++k) {
        if (skin.joints[k] < 0) {
          fix.push_back(mat_identity());
          continue;
        }
        const Mat3x4 ibm = affine_from_mat4(&m[k * 16]);
        const Mat3x4& world = rd.nodes[skin_nodes[s][k]].world;
        const Mat3x4 inv = mat_inverse(world);
        differs = differs || !same_within_rounding(ibm, inv);
        fix.push_back(mat_mul(world, ibm));
      }
      if (differs) skin.rebind = std::move(fix);
    }
    if (!skin.rebind.empty())
      rd.warn(
          fmt::format("note: {}: the inverse bind matrices are not the inverse of the joints' rest transforms; its "
                      "meshes are re-bound so that their rest pose is the bind pose",
                      path));
  }
}

namespace {

// `n` itself when it is a joint, else its nearest joint ancestor; -1 when there is none.
int32_t nearest_joint_node(const Reader& rd, uint32_t n) {
  int32_t x = int32_t(n);
  while (x >= 0 && rd.nodes[size_t(x)].joint < 0) x = rd.nodes[size_t(x)].parent;
  return x;
}

}  // namespace

// ---- Attachments -----------------------------------------------------------------------------

// The writer's attachment nodes, and every other empty leaf (no mesh, skin, camera, light or
// children, not a joint): what Blender exports for an empty. Never meshport_static or the
// "pose N" nodes of an animation-only file.
bool is_attachment(const Reader& rd, uint32_t n) {
  const Node& node = rd.nodes[n];
  if (!node.active || node.joint >= 0 || (rd.mp.static_node && *rd.mp.static_node == n)) return false;
  if (rd.mp.animation_only && rd.mp.pose_of[n] >= 0) return false;
  if (node.attachment) return true;
  return !node.mesh && !node.skin && !node.camera && !node.light && node.children.empty();
}

Attachment attachment(Reader& rd, uint32_t n) {
  const Node& node = rd.nodes[n];
  Attachment a;
  a.name = node.name;
  // The nearest joint ancestor, if any.
  const int32_t above = node.parent < 0 ? -1 : nearest_joint_node(rd, uint32_t(node.parent));
  bool exact = node.trs_exact;
  if (above >= 0) {
    a.joint = rd.nodes[above].joint;
    a.transform =
        above == node.parent ? node.trs : decompose(mat_mul(mat_inverse(rd.nodes[above].world), node.world), exact);
  } else {
    const bool at_origin = node.parent < 0 || rd.nodes[node.parent].world == mat_identity();
    a.transform = at_origin ? node.trs : decompose(node.world, exact);
  }
  if (!exact)
    rd.warn(
        fmt::format("nodes[{}] (attachment '{}'): its transform has shear or a zero scale; decomposed approximately", n,
                    text::clip(a.name)));
  if (node.attachment) {
    if (node.attachment_mesh) a.mesh = rd.mesh_scene[*node.attachment_mesh];
    return a;
  }
  for (int32_t p = node.parent; p >= 0 && a.mesh < 0; p = rd.nodes[p].parent) a.mesh = rd.nodes[p].scene_mesh;
  return a;
}

void bind_to_joint(Reader& rd, uint32_t n, Mesh& m) {
  const int32_t x = nearest_joint_node(rd, n);
  if (x < 0 || !m.find(Attribute::Position)) return;
  const size_t nv = m.vertex_count();
  rd.spend(u128(nv) * 8, fmt::format("nodes[{}]", n), "binding the mesh to its joint");
  VertexStream bi, bw;
  bi.attribute = Attribute::BlendIndices, bw.attribute = Attribute::BlendWeights;
  bi.components = bw.components = 1;
  bi.data.assign(nv, float(rd.nodes[size_t(x)].joint));
  bw.data.assign(nv, 1.0f);
  m.streams.push_back(std::move(bi));
  m.streams.push_back(std::move(bw));
}

void read_attachments(Reader& rd) {
  std::vector<uint32_t> found;
  for (uint32_t n = 0; n < rd.nodes.size(); ++n)
    if (is_attachment(rd, n)) found.push_back(n);
  rd.spend(u128(found.size()) * sizeof(Attachment), "nodes", fmt::format("{} attachments", found.size()));
  for (uint32_t n : found) rd.scene.attachments.push_back(attachment(rd, n));
}

}  // namespace meshport::gltf::read_impl
