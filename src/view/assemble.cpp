// Warzone 2100 units from parts (assemble.h, docs/viewer.md "Assembling units").
#include "view/assemble.h"

#include "core/math.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace meshport::view {

namespace {

// Model-space position of an attachment (its joint's rest pose applied when it follows one).
Vec3 attachment_position(const Scene& s, const Attachment& a) {
  Vec3 p = a.transform.translation;
  for (int32_t j = a.joint; j >= 0 && size_t(j) < s.joints.size(); j = s.joints[size_t(j)].parent) {
    const Transform& t = s.joints[size_t(j)].rest;
    p = mat_apply(mat_from_trs(t.translation, t.rotation, t.scale), p);
  }
  return p;
}

// Moves a whole part by d: its vertices (or instances), root joints with their animated poses,
// and attachments in model space. Skinning stays right: rest and animated root transforms move
// together with the bound vertices.
void translate_part(Scene& s, Vec3 d) {
  if (d == Vec3{0, 0, 0}) return;
  for (Mesh& m : s.meshes) {
    if (!m.instances.empty()) {
      for (Transform& t : m.instances) t.translation = t.translation + d;
      continue;
    }
    if (VertexStream* p = m.find(Attribute::Position); p && p->components >= 3)
      for (size_t i = 0; i + p->components <= p->data.size(); i += p->components)
        for (size_t c = 0; c < 3; ++c) p->data[i + c] += d[c];
  }
  for (Joint& j : s.joints)
    if (j.parent < 0) j.rest.translation = j.rest.translation + d;
  for (Animation& a : s.animations) {
    if (a.channels != s.joints.size()) continue;
    for (size_t i = 0; i < a.poses.size(); ++i)
      if (s.joints[i % a.channels].parent < 0) a.poses[i].translation = a.poses[i].translation + d;
  }
  for (Attachment& a : s.attachments)
    if (a.joint < 0) a.transform.translation = a.transform.translation + d;
}

}  // namespace

Scene assemble(std::vector<Part> parts, const AssembleOptions& options, Diagnostics* diags) {
  if (parts.size() < 2) fail(parts.empty() ? "assemble" : parts[0].file, "assemble needs a body and a propulsion");
  const Part& body = parts[0];
  const size_t weapons = parts.size() - 2;
  const size_t first = options.vtol ? 1 : 0;  // index of the first weapon connector
  if (weapons && body.scene.attachments.size() < first + weapons)
    fail(body.file, fmt::format("the body has {} connectors, but {} weapon{} need{} connector{} {}..{}{}",
                                body.scene.attachments.size(), weapons, weapons == 1 ? "" : "s",
                                weapons == 1 ? "s" : "", weapons == 1 && first == 0 ? "" : "s", first + 1,
                                first + weapons, options.vtol ? " (VTOL weapons start at connector 2)" : ""));
  for (size_t i = 0; i < weapons; ++i) {
    const Vec3 at = attachment_position(body.scene, body.scene.attachments[first + i]);
    translate_part(parts[2 + i].scene, at);
  }

  Scene out;
  struct Range {
    size_t joint_offset, joints;
  };
  std::vector<std::pair<Animation, Range>> animations;
  // Names stay unique (the same file given twice, or two parts with equal level names): a repeated
  // name gets the part's number, "<name>_part<k>" (k from 1, the body's).
  std::set<std::string> mesh_names, joint_names, attachment_names;
  auto unique = [](std::set<std::string>& used, std::string& name, size_t part) {
    if (!used.insert(name).second) {
      name += "_part" + std::to_string(part + 1);
      used.insert(name);
    }
  };
  for (size_t p = 0; p < parts.size(); ++p) {
    Part& part = parts[p];
    Scene& s = part.scene;
    const size_t mesh_offset = out.meshes.size(), joint_offset = out.joints.size();
    std::vector<int32_t> material_index(s.materials.size());
    for (size_t i = 0; i < s.materials.size(); ++i) {
      auto same = std::find(out.materials.begin(), out.materials.end(), s.materials[i]);
      material_index[i] = int32_t(same - out.materials.begin());
      if (same == out.materials.end()) out.materials.push_back(s.materials[i]);
    }
    for (Image& im : s.images)
      if (std::none_of(out.images.begin(), out.images.end(), [&](const Image& o) { return o.path == im.path; }))
        out.images.push_back(std::move(im));
    const uint32_t variant_offset = uint32_t(out.material_variants.size());
    out.material_variants.insert(out.material_variants.end(), s.material_variants.begin(), s.material_variants.end());
    for (Mesh& m : s.meshes) {
      if (m.material >= 0 && size_t(m.material) < material_index.size()) m.material = material_index[size_t(m.material)];
      for (Mesh::VariantMapping& v : m.material_variants) {
        if (v.material >= 0 && size_t(v.material) < material_index.size()) v.material = material_index[size_t(v.material)];
        for (uint32_t& x : v.variants) x += variant_offset;
      }
      if (VertexStream* b = m.find(Attribute::BlendIndices))
        for (float& v : b->data) v += float(joint_offset);
      unique(mesh_names, m.name, p);
      out.meshes.push_back(std::move(m));
    }
    for (Joint& j : s.joints) {
      if (j.parent >= 0) j.parent += int32_t(joint_offset);
      unique(joint_names, j.name, p);
      out.joints.push_back(std::move(j));
    }
    for (Attachment& a : s.attachments) {
      if (a.mesh >= 0) a.mesh += int32_t(mesh_offset);
      if (a.joint >= 0) a.joint += int32_t(joint_offset);
      unique(attachment_names, a.name, p);
      out.attachments.push_back(std::move(a));
    }
    const size_t joints = out.joints.size() - joint_offset;
    for (Animation& a : s.animations) {
      if (a.channels != joints && a.channels != 0) {
        if (diags)
          diags->add(warning(part.file, fmt::format("animation \"{}\" has {} channels for {} joints: left out", a.name,
                                                    a.channels, joints)));
        continue;
      }
      for (MorphWeightTrack& t : a.morph_weights) t.mesh += int32_t(mesh_offset);
      animations.emplace_back(std::move(a), Range{joint_offset, joints});
    }
  }
  // Every animation drives all joints: the other parts' joints hold their rest pose.
  const size_t total = out.joints.size();
  for (auto& [a, range] : animations) {
    if (a.channels == 0) {  // morph weights only
      out.animations.push_back(std::move(a));
      continue;
    }
    const size_t frames = a.frame_count();
    std::vector<Transform> poses;
    poses.reserve(frames * total);
    for (size_t f = 0; f < frames; ++f)
      for (size_t j = 0; j < total; ++j)
        poses.push_back(j >= range.joint_offset && j < range.joint_offset + range.joints
                            ? a.poses[f * a.channels + (j - range.joint_offset)]
                            : out.joints[j].rest);
    a.channels = uint32_t(total);
    a.poses = std::move(poses);
    out.animations.push_back(std::move(a));
  }
  return out;
}

}  // namespace meshport::view
