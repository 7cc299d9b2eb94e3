// glTF writer: the skeleton's nodes (or an animation-only file's pose nodes, meshport_static),
// the skin, skinning influences and attachment nodes.
#include "formats/gltf/gltf_write.h"

#include <algorithm>
#include <cmath>

namespace meshport::gltf::write_impl {


// A quaternion normalised in double; the identity when it has no length or is not finite. One of
// unit length within float rounding (|length^2 - 1| <= 1e-6) is kept bit for bit, so that a
// reader gets the Scene's values back exactly.
Quat unit_quat(Quat q) {
  const double l2 = double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3];
  const double l = std::sqrt(l2);
  if (!(l > 0) || !std::isfinite(l)) return {0, 0, 0, 1};
  if (unit_within_rounding(l2)) return q;
  Quat r;
  for (int c = 0; c < 4; ++c) r[c] = std::clamp(float(q[c] / l), -1.0f, 1.0f);
  return r;
}

namespace {

// The float sum of weights as the validator adds them: component-major across the sets of 4.
float validator_sum(const double* w, uint32_t n) {
  float sum = 0;
  for (uint32_t c = 0; c < 4; ++c)
    for (uint32_t e = c; e < n; e += 4) sum += float(w[e]);
  return sum;
}

// When moving the largest weight did not make the float sum 1 (rounding skipped over it): the
// last weight added, w, becomes 1 - s, s the sum of those before it, which is exact for s in
// [0.5, 1], so that the sum is 1 and a reader writing the weights again keeps them (a sum off by
// a float step was renormalised on the next rewrite).
void exact_last_weight(float* ow, uint32_t sets) {
  // The slots in the order the validator adds them.
  std::vector<size_t> order;
  for (size_t c = 0; c < 4; ++c)
    for (size_t set = 0; set < sets; ++set) order.push_back(set * 4 + c);
  size_t last = order.size();
  for (size_t i = 0; i < order.size(); ++i)
    if (ow[order[i]] != 0) last = i;
  if (last == order.size()) return;
  float before = 0;
  for (size_t i = 0; i < last; ++i) before += ow[order[i]];
  if (before >= 0.5f && before <= 1.0f) ow[order[last]] = 1.0f - before;
}

}  // namespace

// A node's translation / rotation / scale, each omitted when it is the identity.
void put_trs(json& n, const Transform& t) {
  if (t.translation != std::array<float, 3>{0, 0, 0}) n["translation"] = num_array(t.translation);
  if (t.rotation != std::array<float, 4>{0, 0, 0, 1}) n["rotation"] = num_array(unit_quat(t.rotation));
  if (t.scale != std::array<float, 3>{1, 1, 1}) n["scale"] = num_array(t.scale);
}

bool finite(const Transform& t) {
  auto ok = [](auto& a) { return std::all_of(a.begin(), a.end(), [](float f) { return std::isfinite(f); }); };
  return ok(t.translation) && ok(t.rotation) && ok(t.scale);
}

// ---- Skinning influences -------------------------------------------------------------------

// Influences and influences(): gltf_write.h.
Influences influences(const Mesh& m, size_t num_joints, uint32_t static_joint) {
  const VertexStream& bi = *m.find(Attribute::BlendIndices);
  const VertexStream& bw = *m.find(Attribute::BlendWeights);
  const size_t nv = m.vertex_count();
  const uint32_t k = std::max(1u, std::min(bi.components, bw.components));
  Influences r;
  // Pass 1: each vertex's merged list in a flat k-wide slot array.
  std::vector<uint32_t> fj(nv * k);
  std::vector<double> fw(nv * k);
  std::vector<uint32_t> count(nv);
  size_t widest = 1;
  for (size_t v = 0; v < nv; ++v) {
    uint32_t* lj = fj.data() + v * k;
    double* lw = fw.data() + v * k;
    uint32_t n = 0;
    for (uint32_t c = 0; c < std::min(bi.components, bw.components); ++c) {
      const float j = bi.data[v * bi.components + c];
      const float wt = bw.data[v * bw.components + c];
      if (wt == 0) continue;
      if (!(wt > 0) || !std::isfinite(wt) || !(j >= 0) || j >= float(num_joints) || j != std::floor(j)) {
        ++r.dropped;
        continue;
      }
      const auto ji = static_cast<uint32_t>(j);
      uint32_t e = 0;
      while (e < n && lj[e] != ji) ++e;
      if (e < n) {
        lw[e] += wt;
      } else {
        lj[n] = ji;
        lw[n++] = wt;
      }
    }
    double sum = 0;
    for (uint32_t e = 0; e < n; ++e) sum += lw[e];
    if (n == 0 || !(sum > 0)) {
      lj[0] = static_joint;
      lw[0] = 1.0;
      count[v] = 1;
      ++r.unweighted;
      continue;
    }
    if (std::fabs(sum - 1.0) > 1e-3) ++r.renormalised;
    // Weights whose float sum, added as the validator adds them, is 1 already are kept bit for
    // bit (rewriting meshport's output gives the same bytes); others are divided by their sum.
    if (validator_sum(lw, n) != 1.0f)
      for (uint32_t e = 0; e < n; ++e) lw[e] /= sum;
    count[v] = n;
    widest = std::max<size_t>(widest, n);
  }
  // Pass 2: slot s of a vertex is set s / 4, component s % 4; unused slots joint 0, weight 0.
  r.sets = uint32_t((widest + 3) / 4);
  const size_t slots = size_t(r.sets) * 4;
  r.joints.assign(nv * slots, 0);
  r.weights.assign(nv * slots, 0.0f);
  for (size_t v = 0; v < nv; ++v) {
    uint32_t* oj = r.joints.data() + v * slots;
    float* ow = r.weights.data() + v * slots;
    size_t largest = 0;
    for (size_t e = 0; e < count[v]; ++e) {
      oj[e] = fj[v * k + e];
      ow[e] = float(fw[v * k + e]);
      if (ow[e] > ow[largest]) largest = e;
    }
    // Make the float sum, accumulated as the validator does (component-major across sets), 1.
    float sum = 0;
    for (int pass = 0; pass < 4; ++pass) {
      sum = 0;
      for (size_t c = 0; c < 4; ++c)
        for (size_t set = 0; set < r.sets; ++set) sum += ow[set * 4 + c];
      if (sum == 1.0f) break;
      ow[largest] = std::max(0.0f, ow[largest] + (1.0f - sum));
    }
    if (sum != 1.0f) exact_last_weight(ow, r.sets);
  }
  return r;
}

// ---- Skeleton ------------------------------------------------------------------------------

void plan_skeleton(Writer& w) {
  const Scene& s = w.scene;
  if (!s.joints.empty()) {
    w.joint_nodes = s.joints.size();
    for (const Joint& j : s.joints) {
      w.parents.push_back(j.parent);
      w.rests.push_back(j.rest);
    }
    return;
  }
  uint32_t channels = 0;
  for (const Animation& a : s.animations)
    if (a.frame_count()) channels = std::max(channels, a.channels);
  if (!channels) return;
  w.animation_only = true;
  w.joint_nodes = channels;
  w.parents.assign(channels, -1);
  w.rests.assign(channels, Transform{});
  if (value_or_empty(s.iqm).pose_parents.size() == channels) {
    for (uint32_t p = 0; p < channels; ++p)
      if (value_or_empty(s.iqm).pose_parents[p] >= -1 && value_or_empty(s.iqm).pose_parents[p] < int32_t(p)) w.parents[p] = value_or_empty(s.iqm).pose_parents[p];
  }
  wwarn(w.diags, fmt::format("the Scene has no skeleton: the animations' {} channels animate nodes named \"pose N\" "
                             "with identity rest transforms",
                             channels));
}

void emit_skeleton(Writer& w, bool skinned, bool any_unweighted) {
  const Scene& s = w.scene;
  size_t bad = 0;
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    json n = json::object();
    n["name"] = w.animation_only ? fmt::format("pose {}", j) : w.text(s.joints[j].name);
    Transform t = w.rests[j];
    if (!finite(t)) {
      ++bad;
      t = Transform{};
      w.rests[j] = t;
    }
    put_trs(n, t);
    w.nodes.push_back(std::move(n));
  }
  if (bad) wwarn(w.diags, fmt::format("{} joints have rest transforms that are not finite: written as the identity", bad));
  size_t roots = 0;
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    if (w.parents[j] >= 0)
      w.nodes[size_t(w.parents[j])]["children"].push_back(j);
    else
      ++roots;
  }
  // A skin's joints need a common root: meshport_static when there are several roots, or
  // when unweighted vertices are bound to it.
  if (skinned && (roots > 1 || any_unweighted)) {
    w.static_node = w.nodes.size();
    w.static_is_joint = any_unweighted;
    json n = {{"name", kStaticName}, {"children", json::array()}, {"extras", {{"meshport", {{"static", true}}}}}};
    for (size_t j = 0; j < w.joint_nodes; ++j)
      if (w.parents[j] < 0) n["children"].push_back(j);
    w.nodes.push_back(std::move(n));
    w.scene_nodes.push_back(*w.static_node);
  } else {
    for (size_t j = 0; j < w.joint_nodes; ++j)
      if (w.parents[j] < 0) w.scene_nodes.push_back(j);
  }
}

// The matrix a reader composes for the node written for rest `t`: from the rotation as written
// (unit_quat), used as it is, as readers use a rotation of unit length within float rounding
// (meshport's keeps it; three.js composes it as given). Normalising it again here made the inverse
// bind matrices differ from the inverse of the rests a reader sees by up to 1e-6 per level of the
// skeleton, so that meshport's reader re-bound the meshes of its own output (Monster: positions
// moved 1e-5 on every rewrite).
D34 written_matrix(const Transform& t) {
  const Quat q = unit_quat(t.rotation);
  return ops::d_from_unit_trs(t, {q[0], q[1], q[2], q[3]});
}

json emit_skin(Writer& w) {
  std::vector<D34> world(w.joint_nodes);
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    const D34 local = written_matrix(w.rests[j]);
    world[j] = w.parents[j] >= 0 ? d_mul(world[size_t(w.parents[j])], local) : local;
  }
  json joints = json::array();
  std::vector<float> ibm;
  auto push = [&](const D34& inv) {
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 3; ++r) ibm.push_back(float(inv[c * 3 + r]));
      ibm.push_back(c == 3 ? 1.0f : 0.0f);
    }
  };
  for (size_t j = 0; j < w.joint_nodes; ++j) {
    joints.push_back(j);
    push(d_inverse(world[j]));
  }
  if (w.static_is_joint) {
    joints.push_back(*w.static_node);
    push(d_identity());
  }
  json skin = {{"joints", joints}, {"inverseBindMatrices", w.buf.floats(ibm, 16, 0, false, "MAT4")}};
  if (w.static_node) {
    skin["skeleton"] = *w.static_node;
  } else {
    for (size_t j = 0; j < w.joint_nodes; ++j)
      if (w.parents[j] < 0) skin["skeleton"] = j;  // the only root
  }
  return skin;
}

// ---- Attachments ---------------------------------------------------------------------------

// The node of attachment `a`: a child of its joint's node, else of its mesh's node, else a root.
void emit_attachment(Writer& w, size_t ai, size_t& bad, size_t& lost_meshes) {
  const Attachment& a = w.scene.attachments[ai];
  json n = json::object();
  if (!a.name.empty()) n["name"] = w.text(a.name);
  if (finite(a.transform))
    put_trs(n, a.transform);
  else
    ++bad;
  const int32_t mesh = a.mesh >= 0 ? w.gltf_mesh[size_t(a.mesh)] : -1;
  if (a.mesh >= 0 && mesh < 0) ++lost_meshes;
  json mp = {{"attachment", true}};
  if (mesh >= 0) mp["mesh"] = mesh;
  n["extras"] = {{"meshport", std::move(mp)}};
  const size_t index = w.nodes.size();
  w.nodes.push_back(std::move(n));
  if (a.joint >= 0)
    w.nodes[size_t(a.joint)]["children"].push_back(index);
  else if (mesh >= 0)
    w.nodes[size_t(w.mesh_node[size_t(a.mesh)])]["children"].push_back(index);
  else
    w.scene_nodes.push_back(index);
}

void emit_attachments(Writer& w) {
  size_t bad = 0, lost_meshes = 0;
  for (size_t i = 0; i < w.scene.attachments.size(); ++i) emit_attachment(w, i, bad, lost_meshes);
  if (bad)
    wwarn(w.diags, fmt::format("{} attachments have transforms that are not finite: written as the identity", bad));
  if (lost_meshes)
    wwarn(w.diags, fmt::format("{} attachments belong to meshes that are not written: written without a mesh",
                               lost_meshes));
}

}  // namespace meshport::gltf::write_impl
