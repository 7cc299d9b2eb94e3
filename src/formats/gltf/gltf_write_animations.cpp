// glTF writer: animations (joint translation / rotation / scale channels, morph weight channels).
#include "formats/gltf/gltf_write.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace meshport::gltf::write_impl {

// ---- Animations ----------------------------------------------------------------------------

// The "weights" channels of animation ai: one per MorphWeightTrack, on the node of its mesh,
// LINEAR, input = the track's times (the joint channels' input when they are the same times),
// output = its weights. Tracks that glTF cannot hold are skipped with a warning.
void emit_morph_weights(Writer& w, size_t ai, const std::vector<float>& joint_times, std::optional<size_t>& joint_input,
                        json& samplers, json& chans) {
  const Animation& a = w.scene.animations[ai];
  std::vector<bool> animated(w.scene.meshes.size(), false);
  size_t non_finite = 0;
  for (size_t k = 0; k < a.morph_weights.size(); ++k) {
    const MorphWeightTrack& t = a.morph_weights[k];
    const Mesh& m = w.scene.meshes[size_t(t.mesh)];  // ops::check_scene checked the index
    const int32_t node = w.mesh_node[size_t(t.mesh)];
    const char* why = node < 0                  ? "its mesh is not written"
                      : m.morph_targets.empty() ? "its mesh has no morph targets"
                      : t.times.empty()         ? "it has no keys"
                      : t.times[0] < 0          ? "its first key is before time 0"
                      : animated[size_t(t.mesh)] ? "another track of the animation animates the same mesh"
                                                 : nullptr;
    if (why) {
      wwarn(w.diags, fmt::format("animation {} ('{}'): morph weight track {} (mesh {}) not written: {}", ai, a.name, k,
                                 t.mesh, why));
      continue;
    }
    animated[size_t(t.mesh)] = true;
    size_t input;
    if (joint_input && t.times == joint_times) {
      input = *joint_input;
    } else {
      input = w.buf.floats(t.times, 1, 0, true);
      if (!joint_input && t.times == joint_times) joint_input = input;
    }
    std::vector<float> values(t.weights);
    for (float& x : values)
      if (!std::isfinite(x)) x = 0, ++non_finite;
    samplers.push_back({{"input", input}, {"interpolation", "LINEAR"}, {"output", w.buf.floats(values, 1, 0, false)}});
    chans.push_back({{"sampler", samplers.size() - 1}, {"target", {{"node", node}, {"path", "weights"}}}});
  }
  if (non_finite)
    wwarn(w.diags, fmt::format("animation {} ('{}'): {} morph weights that are not finite written as 0", ai, a.name,
                               non_finite));
}

void emit_animations(Writer& w) {
  const Scene& s = w.scene;
  json animations = json::array();
  for (size_t ai = 0; ai < s.animations.size(); ++ai) {
    const Animation& a = s.animations[ai];
    const size_t frames = a.frame_count();
    if (!frames && a.morph_weights.empty()) {
      wwarn(w.diags, fmt::format("animation {} ('{}') has no frames: not written", ai, a.name));
      continue;
    }
    const size_t channels = frames ? std::min<size_t>(a.channels, w.joint_nodes) : 0;
    if (frames && a.channels > w.joint_nodes)
      wwarn(w.diags, fmt::format("animation {} ('{}'): {} channels for {} joints; the others are not written", ai,
                                 a.name, a.channels, w.joint_nodes));
    const bool rate_ok = a.framerate > 0 && std::isfinite(a.framerate);
    const float rate = rate_ok ? a.framerate : kDefaultKeyframeRate;
    bool own_times = frames && a.times.size() == frames && std::isfinite(a.times[0]) && a.times[0] >= 0;
    for (size_t f = 1; own_times && f < frames; ++f)
      own_times = std::isfinite(a.times[f]) && a.times[f] > a.times[f - 1];
    if (frames && !a.times.empty() && !own_times)
      wwarn(w.diags, fmt::format("animation {} ('{}'): its key times are not one per frame, finite and increasing; "
                                 "keys are written at frame / framerate",
                                 ai, a.name));
    std::vector<float> times(frames);
    for (size_t f = 0; f < frames; ++f) times[f] = own_times ? a.times[f] : float(double(f) / double(rate));
    std::optional<size_t> input;
    json samplers = json::array();
    json chans = json::array();
    size_t non_finite = 0;
    auto add = [&](size_t joint, const char* path, std::vector<float> values, uint32_t comps) {
      if (!input) input = w.buf.floats(times, 1, 0, true);
      const char* interpolation = a.interpolation == Interpolation::Step ? "STEP" : "LINEAR";
      samplers.push_back(
          {{"input", *input}, {"interpolation", interpolation}, {"output", w.buf.floats(values, comps, 0, false)}});
      chans.push_back({{"sampler", samplers.size() - 1}, {"target", {{"node", joint}, {"path", path}}}});
    };
    auto pose = [&](size_t f, size_t j) -> const Transform& { return a.poses[f * a.channels + j]; };
    auto clean = [&](float x, float fallback) {
      if (std::isfinite(x)) return x;
      ++non_finite;
      return fallback;
    };
    // Rotations normalised, and sign-continuous: q and -q are the same rotation, and keeping
    // consecutive keyframes in one hemisphere makes every interpolation take the short path.
    auto rotations = [&](size_t j) {
      std::vector<float> v;
      Quat prev{0, 0, 0, 1};
      for (size_t f = 0; f < frames; ++f) {
        Quat q = pose(f, j).rotation;
        for (int c = 0; c < 4; ++c) q[c] = clean(q[c], w.rests[j].rotation[c]);
        q = unit_quat(q);
        if (f > 0 && q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0)
          for (float& c : q) c = -c;
        prev = q;
        v.insert(v.end(), q.begin(), q.end());
      }
      add(j, "rotation", std::move(v), 4);
    };
    for (size_t j = 0; j < channels; ++j) {
      const Transform& rest = w.rests[j];
      bool same_t = true, same_r = true, same_s = true;
      for (size_t f = 0; f < frames; ++f) {
        same_t = same_t && pose(f, j).translation == rest.translation;
        same_r = same_r && pose(f, j).rotation == rest.rotation;
        same_s = same_s && pose(f, j).scale == rest.scale;
      }
      if (!same_t) {
        std::vector<float> v;
        for (size_t f = 0; f < frames; ++f)
          for (int c = 0; c < 3; ++c) v.push_back(clean(pose(f, j).translation[c], rest.translation[c]));
        add(j, "translation", std::move(v), 3);
      }
      if (!same_r) rotations(j);
      // A rest scale is written as a channel too: Blender's bones have no rest scale (its
      // importer keeps it in the pose) and its exporter resets the pose between actions, so an
      // action without the channel comes back unscaled (Swordsman.qmsh's root, 0.22222).
      // (Scales within 1e-5 of 1, float noise such as Swordsman's other bones' 0.9999998, do not.)
      const bool rest_scaled = std::any_of(rest.scale.begin(), rest.scale.end(),
                                           [](float x) { return !(std::fabs(x - 1.0f) <= 1e-5f); });
      if (!same_s || rest_scaled) {
        std::vector<float> v;
        for (size_t f = 0; f < frames; ++f)
          for (int c = 0; c < 3; ++c) v.push_back(clean(pose(f, j).scale[c], rest.scale[c]));
        add(j, "scale", std::move(v), 3);
      }
    }
    // An animation that holds the rest pose still needs a channel to be valid (and to keep its
    // length): joint 0's rotation.
    if (chans.empty() && channels > 0) rotations(0);
    emit_morph_weights(w, ai, times, input, samplers, chans);
    if (chans.empty()) {
      wwarn(w.diags, fmt::format("animation {} ('{}') animates no joint: not written", ai, a.name));
      continue;
    }
    if (non_finite)
      wwarn(w.diags, fmt::format("animation {} ('{}'): {} values that are not finite written as the rest value", ai,
                                 a.name, non_finite));
    json anim = json::object();
    if (!a.name.empty()) anim["name"] = w.text(a.name);
    anim["channels"] = std::move(chans);
    anim["samplers"] = std::move(samplers);
    json mp = {{"framerate", std::isfinite(a.framerate) ? num(a.framerate) : json(0.0)},
               {"keyframe_rate", num(rate)},
               {"loop", a.loop},
               {"channels", a.channels}};
    if (own_times) mp["times"] = true;
    anim["extras"] = {{"meshport", mp}};
    // Blender drops animation extras: the scene extras keep a copy, matched by name.
    mp["name"] = a.name.empty() ? std::string() : w.text(a.name);
    mp["frames"] = frames;
    mp["interpolation"] = a.interpolation == Interpolation::Step ? "step" : "linear";
    if (own_times) {
      json t = json::array();
      for (float x : times) t.push_back(num(x));
      mp["times"] = std::move(t);
    }
    w.animation_extras.push_back(std::move(mp));
    animations.push_back(std::move(anim));
  }
  if (!animations.empty()) w.root["animations"] = std::move(animations);
}

}  // namespace meshport::gltf::write_impl
