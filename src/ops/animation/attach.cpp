// Attaching animations from one Scene to another's skeleton (docs/animations.md): joints are
// matched by name when both skeletons name every joint, else by index when the skeletons agree
// in joint count and hierarchy. Where the matched skeletons differ in rest pose or hierarchy the
// poses are retargeted (clips.h retarget_poses). A clip whose name is taken is dropped when its
// data is the same, else renamed NAME.2, NAME.3, ...
#include <meshport/clips.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unordered_map>

namespace meshport {

namespace {

bool all_named(const std::vector<Joint>& joints) {
  if (joints.empty()) return false;
  for (const Joint& j : joints)
    if (j.name.empty()) return false;
  return true;
}

bool near(float a, float b, float tol = 0) {
  return std::abs(a - b) <= tol + 1e-6f * std::max(1.0f, std::abs(a));
}

bool near(const Transform& a, const Transform& b) {
  for (size_t i = 0; i < 3; ++i)
    if (!near(a.translation[i], b.translation[i]) || !near(a.scale[i], b.scale[i])) return false;
  bool same = true, opposite = true;  // q and -q are the same rotation
  for (size_t i = 0; i < 4; ++i) {
    same = same && near(a.rotation[i], b.rotation[i]);
    opposite = opposite && near(a.rotation[i], -b.rotation[i]);
  }
  return same || opposite;
}

// The 10 numbers of a pose: translation, rotation, scale.
std::array<float, 10> values(const Transform& t) {
  return {t.translation[0], t.translation[1], t.translation[2], t.rotation[0], t.rotation[1],
          t.rotation[2],    t.rotation[3],    t.scale[0],       t.scale[1],    t.scale[2]};
}

// Same clip data: timing, interpolation, morph weight tracks, and poses equal up to one 16-bit
// step of each channel's range over both clips (what an IQM stores: the same clip written by two
// compiler runs, or read and written again, differs by that much).
bool same_clip(const Animation& a, const Animation& b) {
  if (a.framerate != b.framerate || a.loop != b.loop || a.interpolation != b.interpolation || a.channels != b.channels ||
      a.poses.size() != b.poses.size() || a.times != b.times || a.morph_weights != b.morph_weights)
    return false;
  const size_t n = a.channels, frames = a.frame_count();
  for (size_t c = 0; c < n; ++c) {
    std::array<float, 10> lo, hi;
    lo.fill(INFINITY), hi.fill(-INFINITY);
    for (const Animation* x : {&a, &b})
      for (size_t f = 0; f < frames; ++f) {
        const std::array<float, 10> v = values(x->poses[f * n + c]);
        for (size_t k = 0; k < 10; ++k) lo[k] = std::min(lo[k], v[k]), hi[k] = std::max(hi[k], v[k]);
      }
    for (size_t f = 0; f < frames; ++f) {
      const std::array<float, 10> va = values(a.poses[f * n + c]), vb = values(b.poses[f * n + c]);
      bool same = true, opposite = true;
      for (size_t k = 0; k < 10; ++k) {
        const float tol = (hi[k] - lo[k]) / 65535.0f;
        const bool rot = k >= 3 && k < 7;
        same = same && near(va[k], vb[k], tol);
        opposite = opposite && (rot ? near(va[k], -vb[k], tol) : near(va[k], vb[k], tol));
      }
      if (!same && !opposite) return false;
    }
  }
  return true;
}

std::string joint_label(const std::vector<Joint>& joints, size_t j) {
  return j < joints.size() && !joints[j].name.empty() ? fmt::format("{} ('{}')", j, joints[j].name)
                                                      : fmt::format("{}", j);
}

// map[target joint] = source channel, by index; fails naming the first joint that differs.
std::vector<int64_t> map_by_index(const Scene& target, const Scene& source, const std::string& source_name) {
  const size_t nt = target.joints.size();
  const bool has_joints = !source.joints.empty();
  std::vector<int32_t> parents;
  if (has_joints)
    for (const Joint& j : source.joints) parents.push_back(j.parent);
  else
    parents = value_or_empty(source.iqm).pose_parents;
  const std::string why = has_joints ? "its joints are not all named" : "it has no joints, only poses";
  const size_t ns = has_joints ? source.joints.size() : source.animations.front().channels;
  if (!has_joints)
    for (const Animation& a : source.animations)
      if (a.channels != ns && a.channels != 0)
        fail(source_name, fmt::format("cannot attach animations: '{}' has {} poses per frame but '{}' has {}", a.name,
                                      a.channels, source.animations.front().name, ns));
  if (ns != nt)
    fail(source_name, fmt::format("cannot attach animations by joint index ({}): it has {} {} but the skeleton has {} "
                                  "joints",
                                  why, ns, has_joints ? "joints" : "poses per frame", nt));
  for (size_t j = 0; j < nt && j < parents.size(); ++j)
    if (parents[j] != target.joints[j].parent)
      fail(source_name, fmt::format("cannot attach animations by joint index ({}): joint {} has parent {} here but {} "
                                    "in the skeleton; the first joint that differs",
                                    why, joint_label(target.joints, j),
                                    parents[j] < 0 ? std::string("none") : joint_label(source.joints, size_t(parents[j])),
                                    target.joints[j].parent < 0
                                        ? std::string("none")
                                        : joint_label(target.joints, size_t(target.joints[j].parent))));
  std::vector<int64_t> map(nt);
  for (size_t j = 0; j < nt; ++j) map[j] = int64_t(j);
  return map;
}

// map[target joint] = source joint of the same name, or -1 (warned).
std::vector<int64_t> map_by_name(const Scene& target, const Scene& source, const std::string& source_name,
                                 Diagnostics* diags) {
  const size_t nt = target.joints.size();
  std::unordered_map<std::string, size_t> by_name;
  for (size_t j = 0; j < source.joints.size(); ++j) by_name.emplace(source.joints[j].name, j);
  std::vector<int64_t> map(nt, -1);
  size_t matched = 0;
  std::string missing;
  for (size_t j = 0; j < nt; ++j) {
    auto it = by_name.find(target.joints[j].name);
    if (it == by_name.end()) {
      missing += (missing.empty() ? "'" : ", '") + target.joints[j].name + "'";
      continue;
    }
    map[j] = int64_t(it->second);
    ++matched;
  }
  if (matched == 0)
    fail(source_name, fmt::format("cannot attach animations: none of its {} joints is named like one of the "
                                  "skeleton's {} joints",
                                  source.joints.size(), nt));
  if (diags && !missing.empty())
    diags->add(warning(source_name, fmt::format("joints not animated here keep their rest pose: {}", missing)));
  if (diags && source.joints.size() > matched)
    diags->add(warning(source_name, fmt::format("{} of its joints are not in the skeleton and are dropped",
                                                source.joints.size() - matched)));
  return map;
}

// Whether poses must be retargeted: some matched joint has another rest transform or another
// parent (a joint at another index only needs its channel moved).
bool needs_retarget(const Scene& target, const Scene& source, const std::vector<int64_t>& map) {
  if (source.joints.empty()) return false;  // poses only: nothing to compare with
  for (size_t t = 0; t < map.size(); ++t) {
    if (map[t] < 0) continue;
    const Joint& s = source.joints[size_t(map[t])];
    const Joint& j = target.joints[t];
    if (!near(s.rest, j.rest)) return true;
    const std::string sp = s.parent >= 0 ? source.joints[size_t(s.parent)].name : std::string();
    const std::string tp = j.parent >= 0 ? target.joints[size_t(j.parent)].name : std::string();
    if (sp != tp) return true;
  }
  return false;
}

}  // namespace

void attach_animations(Scene& target, const Scene& source, const std::string& source_name, Diagnostics* diags) {
  auto warn = [&](std::string msg) {
    if (diags) diags->add(warning(source_name, std::move(msg)));
  };
  if (source.animations.empty()) {
    warn("no animations to attach");
    return;
  }
  if (target.joints.empty()) fail(source_name, "cannot attach animations: the first input has no skeleton");
  const size_t nt = target.joints.size();

  const bool by_name = all_named(target.joints) && all_named(source.joints);
  const std::vector<int64_t> map =
      by_name ? map_by_name(target, source, source_name, diags) : map_by_index(target, source, source_name);
  const bool retarget = needs_retarget(target, source, map);
  if (retarget)
    warn("its skeleton differs from the first input's in rest pose or hierarchy: poses are retargeted so that "
         "skinned positions match (docs/animations.md)");

  for (const auto& a : source.animations) {
    if (!source.joints.empty() && a.channels != source.joints.size())
      fail(source_name, fmt::format("animation '{}' has {} poses per frame but its file has {} joints", a.name,
                                    a.channels, source.joints.size()));
    Animation out;
    out.name = a.name;
    out.framerate = a.framerate;
    out.loop = a.loop;
    out.times = a.times;
    out.interpolation = a.interpolation;
    out.channels = static_cast<uint32_t>(nt);
    const size_t frames = a.frame_count();
    if (retarget) {
      out.poses = retarget_poses(source.joints, target.joints, map, a.poses);
    } else {
      out.poses.resize(frames * nt);
      for (size_t f = 0; f < frames; ++f)
        for (size_t j = 0; j < nt; ++j)
          out.poses[f * nt + j] = map[j] >= 0 ? a.poses[f * a.channels + size_t(map[j])] : target.joints[j].rest;
    }
    // Morph weight tracks follow their mesh by name, when the target has a mesh of that name with
    // as many morph targets.
    for (const MorphWeightTrack& t : a.morph_weights) {
      const std::string mesh_name =
          t.mesh >= 0 && size_t(t.mesh) < source.meshes.size() ? source.meshes[size_t(t.mesh)].name : std::string();
      const size_t targets = mesh_name.empty() ? 0 : source.meshes[size_t(t.mesh)].morph_targets.size();
      int32_t found = -1;
      for (size_t m = 0; m < target.meshes.size() && found < 0; ++m)
        if (!mesh_name.empty() && target.meshes[m].name == mesh_name && target.meshes[m].morph_targets.size() == targets)
          found = int32_t(m);
      if (found < 0) {
        warn(fmt::format("animation '{}': morph weights of mesh '{}' dropped: no mesh of that name with {} morph "
                         "targets in the first input",
                         a.name, mesh_name, targets));
        continue;
      }
      MorphWeightTrack copy = t;
      copy.mesh = found;
      out.morph_weights.push_back(std::move(copy));
    }
    // A name already taken: the same clip again is dropped, another one renamed.
    auto taken = [&](const std::string& name) -> const Animation* {
      for (const Animation& e : target.animations)
        if (e.name == name) return &e;
      return nullptr;
    };
    if (const Animation* e = taken(out.name)) {
      if (same_clip(*e, out)) {
        if (diags)
          diags->add(note(source_name, fmt::format("animation '{}' is already attached with the same data: dropped",
                                                   out.name)));
        continue;
      }
      std::string name;
      for (size_t k = 2; name.empty() || taken(name); ++k) name = fmt::format("{}.{}", out.name, k);
      warn(fmt::format("animation '{}' differs from the one already attached under that name: renamed '{}'", out.name,
                       name));
      out.name = name;
    }
    target.animations.push_back(std::move(out));
  }
}

}  // namespace meshport
