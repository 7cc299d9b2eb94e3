// The simulated animation in the Scene and the JSON trace of `meshport simulate` (simulate.h).
#include <meshport/simulate.h>

#include <nlohmann/json.hpp>

#include <cmath>

namespace meshport {

void apply_simulation(Scene& scene, const SimulationResult& result, const std::string& name) {
  if (!scene.modedef || scene.modedef->kind != ModeDefData::Kind::State ||
      scene.modedef->object_joint.size() != result.object_count)
    fail("", "simulate: the simulation does not belong to this scene (its objects differ)");
  const ModeDefData& md = *scene.modedef;
  const size_t n = result.object_count;
  Animation anim;
  anim.name = name;
  anim.framerate = float(result.fps);
  anim.channels = uint32_t(scene.joints.size());
  anim.poses.resize(result.frame_count * anim.channels);
  for (size_t f = 0; f < result.frame_count; ++f) {
    for (size_t j = 0; j < scene.joints.size(); ++j) anim.poses[f * anim.channels + j] = scene.joints[j].rest;
    for (size_t i = 0; i < n; ++i) {
      const int32_t joint = md.object_joint[i];
      if (joint < 0 || size_t(joint) >= scene.joints.size()) continue;
      const SimulatedObject& o = result.at(f, i);
      Transform& pose = anim.poses[f * anim.channels + size_t(joint)];
      for (size_t c = 0; c < 3; ++c) pose.translation[c] = float(o.position[c]);
      for (size_t c = 0; c < 4; ++c) pose.rotation[c] = float(o.rotation[c]);
      const float s = o.alive ? md.props[size_t(md.object_prop[i])].prop.scale : 0.0f;
      pose.scale = {s, s, s};
    }
  }
  // Morph target k of an object's mesh is mode k's displacement for unit amplitude: weight = q_k.
  for (const ModeDefMeshSource& src : md.mesh_sources) {
    if (src.object < 0 || size_t(src.object) >= n || src.mesh < 0 || size_t(src.mesh) >= scene.meshes.size()) continue;
    const size_t targets = scene.meshes[size_t(src.mesh)].morph_targets.size();
    if (targets == 0) continue;
    MorphWeightTrack track;
    track.mesh = src.mesh;
    track.times.resize(result.frame_count);
    track.weights.assign(result.frame_count * targets, 0.0f);
    for (size_t f = 0; f < result.frame_count; ++f) {
      track.times[f] = float(double(f) / result.fps);
      const std::vector<double>& q = result.at(f, size_t(src.object)).modes;
      for (size_t k = 0; k < targets && k < q.size(); ++k) track.weights[f * targets + k] = float(q[k]);
    }
    anim.morph_weights.push_back(std::move(track));
  }
  scene.animations.clear();
  scene.animations.push_back(std::move(anim));
}

namespace {

nlohmann::json array_of(const auto& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(x);
  return a;
}

}  // namespace

std::string simulation_trace_json(const Scene& scene, const SimulationResult& result) {
  nlohmann::json j;
  j["fps"] = result.fps;
  j["seconds"] = result.seconds;
  j["substep"] = result.substep;
  j["substeps_per_frame"] = result.substeps_per_frame;
  j["rollbacks"] = result.rollbacks;
  j["max_penetration"] = result.max_penetration;
  nlohmann::json names = nlohmann::json::array();
  for (size_t i = 0; i < result.object_count; ++i) {
    std::string name;
    if (scene.modedef && i < scene.modedef->object_joint.size()) {
      const int32_t joint = scene.modedef->object_joint[i];
      if (joint >= 0 && size_t(joint) < scene.joints.size()) name = scene.joints[size_t(joint)].name;
    }
    names.push_back(name);
  }
  j["objects"] = std::move(names);
  nlohmann::json frames = nlohmann::json::array();
  for (size_t f = 0; f < result.frame_count; ++f) {
    nlohmann::json fr;
    fr["time"] = double(f) / result.fps;
    nlohmann::json objects = nlohmann::json::array();
    for (size_t i = 0; i < result.object_count; ++i) {
      const SimulatedObject& o = result.at(f, i);
      nlohmann::json x;
      x["alive"] = o.alive;
      x["position"] = array_of(o.position);
      x["rotation"] = array_of(o.rotation);
      x["center_of_mass"] = array_of(o.center_of_mass);
      x["velocity"] = array_of(o.velocity);
      x["angular_velocity"] = array_of(o.angular_velocity);
      x["modes"] = array_of(o.modes);
      x["contacts"] = o.contacts;
      x["max_penetration"] = o.max_penetration;
      x["energy"] = {{"kinetic", o.kinetic}, {"potential", o.potential}, {"modal", o.modal}};
      objects.push_back(std::move(x));
    }
    fr["objects"] = std::move(objects);
    frames.push_back(std::move(fr));
  }
  j["frames"] = std::move(frames);
  return j.dump(1) + "\n";
}

}  // namespace meshport
