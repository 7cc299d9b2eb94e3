// glTF writer: what glTF cannot say, as extras.meshport (schema at the top of gltf_write.cpp): of
// primitives and meshes, and the document-level one in scenes[0].
#include "formats/gltf/gltf_write.h"

#include "formats/shared/gltf_modedef.h"
#include "formats/shared/gltf_pie.h"
#include "ops/mesh/components.h"

namespace meshport::gltf::write_impl {

json stream_entry(Writer& w, const VertexStream& s, const std::string& gltf_name) {
  json e = {{"attribute", attribute_name(s.attribute)},
            {"gltf", gltf_name},
            {"format", ops::component_name(s.format)},
            {"source_size", s.source_size},
            {"components", s.components}};
  if (s.attribute == Attribute::Custom) e["name"] = w.text(s.name);
  if (s.custom_slot >= 0) e["custom_slot"] = s.custom_slot;
  return e;
}

json smoothing_json(const SmoothingRules& r) {
  json o = json::object();
  if (!r.face_group.empty()) o["face_group"] = r.face_group;
  if (!r.face_angle.empty()) {
    json a = json::array();
    for (float f : r.face_angle) a.push_back(std::isfinite(f) ? num(f) : json(180.0));
    o["face_angle"] = std::move(a);
  }
  if (!r.face_uv.empty()) o["face_uv"] = r.face_uv;
  if (!r.corner_edge.empty()) o["corner_edge"] = r.corner_edge;
  if (!r.vertex_key.empty()) o["vertex_key"] = r.vertex_key;
  return o;
}

namespace {

// A uint32 as Blender can keep it: its custom properties hold 32-bit signed integers, and one
// value beyond makes it drop the whole extras object; words from 2^31 up are written as the
// int32 of the same bits (readers take -2^31..2^32-1 modulo 2^32).
json word(uint32_t v) { return v <= uint32_t(INT32_MAX) ? json(v) : json(int32_t(v)); }

}  // namespace

// Mesh extras.meshport of a mesh's face channels and format streams (schema at the top), or null.
json format_data_json(const Mesh& m) {
  json mp = json::object();
  if (!m.face_channels.empty()) {
    json channels = json::array();
    for (const FaceChannel& c : m.face_channels) {
      json data = json::array();
      for (uint32_t v : c.data) data.push_back(word(v));
      channels.push_back({{"name", c.name}, {"components", c.components}, {"data", std::move(data)}});
    }
    mp["face_channels"] = std::move(channels);
  }
  json streams = json::array();
  for (const VertexStream& st : m.streams) {
    if (!is_format_stream(st)) continue;
    json data = json::array();
    for (float f : st.data) data.push_back(std::isfinite(f) ? num(f) : json(0.0));
    streams.push_back({{"name", st.name}, {"components", st.components}, {"data", std::move(data)}});
  }
  if (!streams.empty()) mp["format_streams"] = std::move(streams);
  return mp.empty() ? json() : mp;
}

// scenes[0].extras.meshport: the document-level data (schema at the top).
json scene_extras(Writer& w) {
  const Scene& s = w.scene;
  json e = {{"version", 1}, {"joint_nodes", w.joint_nodes}};
  json names = json::array();
  for (size_t j = 0; j < w.joint_nodes; ++j)
    names.push_back(w.animation_only ? fmt::format("pose {}", j) : w.text(s.joints[j].name));
  e["joints"] = std::move(names);
  if (!w.animation_only && w.joint_nodes) {
    // The rests as written: a reader undoes a tool's re-orientation of the bones (Blender's).
    json rests = json::array();
    for (size_t j = 0; j < w.joint_nodes; ++j) {
      const Transform& r = w.rests[j];
      json x = json::array();
      for (float f : r.translation) x.push_back(num(f));
      for (float f : unit_quat(r.rotation)) x.push_back(num(f));
      for (float f : r.scale) x.push_back(num(f));
      rests.push_back(std::move(x));
    }
    e["joint_rests"] = std::move(rests);
  }
  if (w.static_node) e["static_node"] = *w.static_node;
  if (w.animation_only) e["animation_only"] = true;
  e["meshes"] = w.mesh_names;
  if (!w.animation_extras.empty()) e["animations"] = w.animation_extras;
  if (!s.comment.empty()) {
    if (valid_utf8(s.comment))
      e["comment"] = s.comment;
    else
      e["comment_base64"] = base64_encode(reinterpret_cast<const uint8_t*>(s.comment.data()), s.comment.size());
  }
  if (!value_or_empty(s.iqm).extensions.empty()) {
    json x = json::array();
    for (const IqmExtension& ext : value_or_empty(s.iqm).extensions)
      x.push_back({{"name", w.text(ext.name)}, {"data", base64_encode(ext.data.data(), ext.data.size())}});
    e["iqm_extensions"] = std::move(x);
  }
  if (!value_or_empty(s.iqm).pose_parents.empty()) e["iqm_pose_parents"] = value_or_empty(s.iqm).pose_parents;
  if (s.pie) e["pie"] = pie_to_json(*s.pie, w.gltf_mesh);
  if (s.modedef) e["modedef"] = modedef_to_json(*s.modedef);  // gltf_modedef.h
  return e;
}

}  // namespace meshport::gltf::write_impl
