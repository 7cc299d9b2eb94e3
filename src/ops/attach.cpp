// Attaching animations from one Scene to another's skeleton, matched by joint name, or by index
// with a count check when the animation source has no named joints (animation-only IQM files).
#include <meshport/meshport.h>

#include <fmt/format.h>

#include <string>
#include <unordered_map>

namespace meshport {

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

  // map[target joint] = source channel, or -1 to hold the target's rest pose.
  std::vector<int64_t> map(nt, -1);
  if (source.joints.empty()) {
    for (const auto& a : source.animations)
      if (a.channels != nt)
        fail(source_name, fmt::format("cannot attach animation '{}': it has {} poses per frame but the skeleton has {} "
                                      "joints, and it names no joints to match by",
                                      a.name, a.channels, nt));
    const std::vector<int32_t>& parents = value_or_empty(source.iqm).pose_parents;
    for (size_t j = 0; j < nt && j < parents.size(); ++j)
      if (parents[j] != target.joints[j].parent)
        fail(source_name, fmt::format("cannot attach animations: pose {} has parent {} but joint '{}' has parent {}", j,
                                      parents[j], target.joints[j].name, target.joints[j].parent));
    for (size_t j = 0; j < nt; ++j) map[j] = static_cast<int64_t>(j);
  } else {
    std::unordered_map<std::string, size_t> by_name;
    for (size_t j = 0; j < source.joints.size(); ++j) by_name.emplace(source.joints[j].name, j);
    size_t matched = 0;
    std::string missing;
    for (size_t j = 0; j < nt; ++j) {
      auto it = by_name.find(target.joints[j].name);
      if (it == by_name.end()) {
        if (!missing.empty()) missing += ", ";
        missing += "'" + target.joints[j].name + "'";
        continue;
      }
      map[j] = static_cast<int64_t>(it->second);
      ++matched;
      int sp = source.joints[it->second].parent;
      int tp = target.joints[j].parent;
      std::string spn = sp >= 0 ? source.joints[sp].name : "";
      std::string tpn = tp >= 0 ? target.joints[tp].name : "";
      if (spn != tpn)
        warn(fmt::format("joint '{}' has parent '{}' here but '{}' in the skeleton", target.joints[j].name, spn, tpn));
    }
    if (matched == 0)
      fail(source_name, fmt::format("cannot attach animations: none of its {} joints is named like one of the "
                                    "skeleton's {} joints",
                                    source.joints.size(), nt));
    if (!missing.empty()) warn(fmt::format("joints not animated here keep their rest pose: {}", missing));
    if (source.joints.size() > matched)
      warn(fmt::format("{} of its joints are not in the skeleton and are dropped", source.joints.size() - matched));
  }

  for (const auto& a : source.animations) {
    if (!source.joints.empty() && a.channels != source.joints.size())
      fail(source_name, fmt::format("animation '{}' has {} poses per frame but its file has {} joints", a.name,
                                    a.channels, source.joints.size()));
    Animation out;
    out.name = a.name;
    out.framerate = a.framerate;
    out.loop = a.loop;
    out.times = a.times;
    out.channels = static_cast<uint32_t>(nt);
    size_t frames = a.frame_count();
    out.poses.resize(frames * nt);
    for (size_t f = 0; f < frames; ++f)
      for (size_t j = 0; j < nt; ++j)
        out.poses[f * nt + j] = map[j] >= 0 ? a.poses[f * a.channels + map[j]] : target.joints[j].rest;
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
    target.animations.push_back(std::move(out));
  }
}

}  // namespace meshport
