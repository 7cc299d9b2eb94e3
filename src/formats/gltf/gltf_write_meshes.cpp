// glTF writer: one glTF mesh (one triangle primitive: attributes, indices, morph targets) and its
// node per written Scene mesh.
#include "formats/gltf/gltf_write.h"

#include "formats/shared/gltf_modedef.h"
#include "formats/shared/gltf_pie_polygons.h"
#include <meshport/source/pie_mesh.h>
#include "ops/mesh/components.h"
#include "ops/mesh/mesh_parts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace meshport::gltf::write_impl {

namespace {

// glTF application-specific attribute name: "_" + upper case, other characters '_'.
std::string custom_attribute(const VertexStream& s) {
  std::string base = !s.name.empty()             ? s.name
                     : s.custom_slot >= 0 ? fmt::format("custom{}", s.custom_slot)
                                          : std::string("custom");
  std::string r = "_";
  for (char ch : base) {
    const auto c = static_cast<unsigned char>(ch);
    r += std::isalnum(c) && c < 0x80 ? char(std::toupper(c)) : '_';
  }
  return r;
}

// Interleaves slot data (vertex-major, sets * 4 per vertex) into set `set`'s VEC4 array.
template <class T>
std::vector<T> set_values(const std::vector<T>& all, size_t nv, uint32_t sets, uint32_t set) {
  std::vector<T> r(nv * 4);
  for (size_t v = 0; v < nv; ++v)
    for (uint32_t c = 0; c < 4; ++c) r[v * 4 + c] = all[(v * sets + set) * 4 + c];
  return r;
}

// ---- Meshes --------------------------------------------------------------------------------

// A stream's values as `n` floats per vertex (missing components `fill`, except a 4th of 1 for
// colours), non-finite values replaced by 0 (counted).
std::vector<float> stream_floats(const VertexStream& s, uint32_t n, size_t& non_finite) {
  const size_t nv = s.vertex_count();
  std::vector<float> r(nv * n);
  for (size_t v = 0; v < nv; ++v)
    for (uint32_t c = 0; c < n; ++c) {
      float x = s.get(v, c, (c == 3 && (s.attribute == Attribute::Color || s.attribute == Attribute::Tangent)) ? 1.0f : 0.0f);
      if (!std::isfinite(x)) {
        x = 0;
        ++non_finite;
      }
      r[v * n + c] = x;
    }
  return r;
}

// EXT_mesh_gpu_instancing on the mesh's node (identity transform, so the Scene's instance
// transforms are the node's instance transforms): TRANSLATION always, ROTATION and SCALE when
// some instance has them. In extensionsUsed only: a viewer without the extension draws the mesh
// once, which is still a view of the model.
void emit_instances(Writer& w, json& node, const Mesh& m, const std::string& label, bool skinned) {
  if (skinned) {
    wwarn(w.diags, fmt::format("{}: {} GPU instances not written: glTF's instancing of a skinned mesh is not defined",
                               label, m.instances.size()));
    return;
  }
  std::vector<float> t, r, s;
  bool rotated = false, scaled = false;
  for (const Transform& x : m.instances) {
    t.insert(t.end(), x.translation.begin(), x.translation.end());
    r.insert(r.end(), x.rotation.begin(), x.rotation.end());
    s.insert(s.end(), x.scale.begin(), x.scale.end());
    rotated = rotated || x.rotation != Transform{}.rotation;
    scaled = scaled || x.scale != Transform{}.scale;
  }
  json attrs = {{"TRANSLATION", w.buf.floats(t, 3, 0, false)}};
  if (rotated) attrs["ROTATION"] = w.buf.floats(r, 4, 0, false);
  if (scaled) attrs["SCALE"] = w.buf.floats(s, 3, 0, false);
  node["extensions"]["EXT_mesh_gpu_instancing"] = {{"attributes", std::move(attrs)}};
  list_extension(w.root, "extensionsUsed", "EXT_mesh_gpu_instancing");
}

// The glTF material of polygon `p` of a level whose material is `base`: the base itself for the
// plain polygon, else a copy for that polygon (gltf_pie_polygons.h), asked for once.
int32_t polygon_material(Writer& w, int32_t base, const PiePolygon& p) {
  if (w.polygon_base.empty()) w.polygon_base.assign(w.scene.materials.size(), false);
  if (is_plain(p)) {
    w.polygon_base[size_t(base)] = true;
    return base;
  }
  auto [it, fresh] = w.polygon_material_index.emplace(std::make_pair(base, polygon_key(p)), w.polygon_materials.size());
  if (fresh) w.polygon_materials.emplace_back(base, p);
  return int32_t(w.scene.materials.size() + it->second);
}

// The mesh's primitives: `prim`, or for a PIE level (a "pie.flags" channel on a mesh with a
// material) one per distinct polygon with its polygon material, sharing prim's vertex arrays, each
// with its triangles and their smoothing rules (gltf_pie_polygons.h).
json primitives_of(Writer& w, const Mesh& m, json prim) {
  std::optional<PolygonGroups> g;
  if (m.material >= 0 && size_t(m.material) < w.scene.materials.size() && m.topology == Topology::Triangles &&
      m.polygon_sizes.empty())
    g = polygon_groups(m);
  if (!g) return json::array({std::move(prim)});
  if (g->polygons.size() == 1) {
    prim["material"] = polygon_material(w, m.material, g->polygons[0]);
    return json::array({std::move(prim)});
  }
  json out = json::array();
  const bool wide = m.vertex_count() > 65535;
  for (size_t k = 0; k < g->polygons.size(); ++k) {
    json p = prim;
    std::vector<uint32_t> indices;
    indices.reserve(g->triangles[k].size() * 3);
    for (uint32_t t : g->triangles[k]) indices.insert(indices.end(), &m.triangles[size_t(t) * 3], &m.triangles[size_t(t) * 3 + 3]);
    p["indices"] = w.buf.integers(indices, 1, wide ? kUInt : kUShort, kElementArrayBuffer);
    p["material"] = polygon_material(w, m.material, g->polygons[k]);
    if (!m.smoothing.empty()) {
      // The per-vertex keys once, with the first primitive (the reader joins onto its vertices).
      SmoothingRules r = ops::pick_smoothing(m.smoothing, m.triangles.size() / 3, g->triangles[k]);
      if (k == 0) r.vertex_key = m.smoothing.vertex_key;
      p["extras"]["meshport"]["smoothing"] = smoothing_json(r);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::optional<Scene> with_repeated_faces_apart(const Scene& s) {
  std::optional<Scene> r;
  for (size_t i = 0; i < s.meshes.size(); ++i) {
    // PIE levels only: their "pie.point" stream keeps each copy on its point. Other formats'
    // data keyed by vertex (ModeDef's vertex sources) would no longer fit.
    if (!pie::point_stream(s.meshes[i])) continue;
    const std::vector<uint32_t> faces = ops::repeated_faces(s.meshes[i]);
    if (faces.empty()) continue;
    if (!r) r = s;
    ops::separate_faces(r->meshes[i], faces);
  }
  return r;
}

void add_polygon_materials(Writer& w, json& materials) {
  for (size_t i = 0; i < w.polygon_base.size() && i < materials.size(); ++i)
    if (w.polygon_base[i]) add_polygon_extras(materials[i]["extras"]["meshport"], w.scene.materials[i].name, PiePolygon{});
  std::map<std::pair<int32_t, uint32_t>, size_t> named;  // copies so far per level material and flags
  for (size_t k = 0; k < w.polygon_materials.size(); ++k) {
    const auto& [base, polygon] = w.polygon_materials[k];
    const size_t before = named[{base, polygon.flags}]++;
    json mat = materials[size_t(base)];
    const std::string& name = w.scene.materials[size_t(base)].name;
    mat["name"] = w.text(polygon_material_name(name, polygon, before));
    add_polygon_extras(mat["extras"]["meshport"], name, polygon);
    mat["extras"]["meshport"]["name"] = mat["name"];
    materials.push_back(std::move(mat));
  }
}

std::vector<int> texcoord_sets(const Mesh& m) {
  std::vector<int> r(m.streams.size(), -1);
  int n = 0;
  for (size_t i = 0; i < m.streams.size(); ++i)
    if (m.streams[i].attribute == Attribute::Texcoord) r[i] = n++;
  for (bool found = true; found;) {
    found = false;
    const std::string name = fmt::format("texcoord{}", n);
    for (size_t i = 0; i < m.streams.size() && !found; ++i) {
      const VertexStream& s = m.streams[i];
      if (r[i] < 0 && s.attribute == Attribute::Custom && s.components == 2 && s.name == name) r[i] = n++, found = true;
    }
  }
  return r;
}

// `inf_in`: the mesh's influences when it is skinned.
void emit_mesh(Writer& w, size_t mi, const Influences* inf_in) {
  const Scene& s = w.scene;
  const Mesh& m = s.meshes[mi];
  const size_t nv = m.vertex_count();
  const std::string label = fmt::format("mesh {} ('{}')", mi, m.name);
  json attributes = json::object();
  json streams = json::array();
  size_t non_finite = 0;
  uint32_t colors = 0;
  const std::vector<int> uv_sets = texcoord_sets(m);
  bool has_position = false, has_normal = false, has_tangent = false, has_blend = false;
  uint32_t blend_sets = 0;
  std::set<std::string> customs;
  const bool skinned = inf_in != nullptr;  // skinnable(w, m)
  if (!skinned && (m.find(Attribute::BlendIndices) || m.find(Attribute::BlendWeights)))
    wwarn(w.diags, fmt::format("{}: blend indices and weights not written: {}", label,
                               w.joint_nodes == 0 || w.animation_only ? "the Scene has no skeleton"
                                                                      : "the mesh lacks one of the two"));
  auto ignored = [&](const VertexStream& st) {
    wwarn(w.diags, fmt::format("{}: a second {} stream is not written", label, attribute_name(st.attribute)));
  };
  for (const VertexStream& st : m.streams) {
    switch (st.attribute) {
      case Attribute::Position: {
        if (has_position) {
          ignored(st);
          break;
        }
        has_position = true;
        attributes["POSITION"] = w.buf.floats(stream_floats(st, 3, non_finite), 3, kArrayBuffer, true);
        streams.push_back(stream_entry(w, st, "POSITION"));
        break;
      }
      case Attribute::Normal: {
        if (has_normal) {
          ignored(st);
          break;
        }
        has_normal = true;
        std::vector<float> n = stream_floats(st, 3, non_finite);
        size_t zero = 0;
        for (size_t v = 0; v < nv; ++v) {
          Vec3 x{n[v * 3], n[v * 3 + 1], n[v * 3 + 2]};
          const double l2 = double(x[0]) * x[0] + double(x[1]) * x[1] + double(x[2]) * x[2];
          if (!(l2 > 0)) {
            ++zero;
            x = {0, 1, 0};
          } else if (!unit_within_rounding(l2)) {
            const double l = std::sqrt(l2);
            for (int c = 0; c < 3; ++c) x[c] = float(x[c] / l);
          }
          std::copy(x.begin(), x.end(), n.begin() + long(v * 3));
        }
        if (zero) wwarn(w.diags, fmt::format("{}: {} zero-length normals written as (0, 1, 0)", label, zero));
        attributes["NORMAL"] = w.buf.floats(n, 3, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, "NORMAL"));
        break;
      }
      case Attribute::Tangent: {
        if (has_tangent) {
          ignored(st);
          break;
        }
        has_tangent = true;
        std::vector<float> t = stream_floats(st, 4, non_finite);
        size_t zero = 0, sign = 0;
        for (size_t v = 0; v < nv; ++v) {
          float* x = t.data() + v * 4;
          const double l2 = double(x[0]) * x[0] + double(x[1]) * x[1] + double(x[2]) * x[2];
          if (!(l2 > 0)) {
            ++zero;
            x[0] = 1, x[1] = 0, x[2] = 0;
          } else if (!unit_within_rounding(l2)) {
            const double l = std::sqrt(l2);
            for (int c = 0; c < 3; ++c) x[c] = float(x[c] / l);
          }
          if (x[3] != 1.0f && x[3] != -1.0f) {
            ++sign;
            x[3] = x[3] < 0 ? -1.0f : 1.0f;
          }
        }
        if (zero) wwarn(w.diags, fmt::format("{}: {} zero-length tangents written as (1, 0, 0)", label, zero));
        if (sign) wwarn(w.diags, fmt::format("{}: {} tangent handedness values that are not +-1 written as their sign",
                                             label, sign));
        attributes["TANGENT"] = w.buf.floats(t, 4, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, "TANGENT"));
        break;
      }
      case Attribute::Texcoord: {
        const std::string name = fmt::format("TEXCOORD_{}", uv_sets[size_t(&st - m.streams.data())]);
        if (st.components > 2)
          wwarn(w.diags, fmt::format("{}: texture coordinates have {} components; glTF keeps 2", label, st.components));
        attributes[name] = w.buf.floats(stream_floats(st, 2, non_finite), 2, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, name));
        break;
      }
      case Attribute::Color: {
        const std::string name = fmt::format("COLOR_{}", colors++);
        const uint32_t n = st.components >= 4 ? 4 : 3;
        if (st.components > 4)
          wwarn(w.diags, fmt::format("{}: colours have {} components; glTF keeps 4", label, st.components));
        std::vector<float> c = stream_floats(st, n, non_finite);
        size_t clamped = 0;
        for (float& x : c)
          if (x < 0 || x > 1) {
            x = std::clamp(x, 0.0f, 1.0f);
            ++clamped;
          }
        if (clamped) wwarn(w.diags, fmt::format("{}: {} colour values outside 0..1 clamped", label, clamped));
        attributes[name] = w.buf.floats(c, n, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, name));
        break;
      }
      case Attribute::Custom: {
        if (is_format_stream(st)) break;  // in the mesh extras (format_streams_json)
        if (const int set = uv_sets[size_t(&st - m.streams.data())]; set >= 0) {  // "texcoord<n>": TEXCOORD_n
          const std::string name = fmt::format("TEXCOORD_{}", set);
          attributes[name] = w.buf.floats(stream_floats(st, 2, non_finite), 2, kArrayBuffer, false);
          streams.push_back(stream_entry(w, st, name));
          break;
        }
        std::string name = custom_attribute(st);
        if (customs.count(name)) {
          size_t k = 2;
          while (customs.count(fmt::format("{}_{}", name, k))) ++k;
          name = fmt::format("{}_{}", name, k);
        }
        customs.insert(name);
        const uint32_t n = std::clamp(st.components, 1u, 4u);
        if (st.components > 4)
          wwarn(w.diags, fmt::format("{}: custom array '{}' has {} components; glTF keeps 4", label, st.name,
                                     st.components));
        attributes[name] = w.buf.floats(stream_floats(st, n, non_finite), n, kArrayBuffer, false);
        streams.push_back(stream_entry(w, st, name));
        break;
      }
      case Attribute::BlendIndices:
      case Attribute::BlendWeights: {
        if (!skinned) break;
        if (m.find(st.attribute) != &st) {
          ignored(st);
          break;
        }
        if (!has_blend) {  // both streams are written at the first of them
          has_blend = true;
          const Influences& inf = *inf_in;
          if (inf.dropped)
            wwarn(w.diags, fmt::format("{}: {} influences on joints outside the skeleton ({} joints) or with negative "
                                       "or non-finite weights not written",
                                       label, inf.dropped, w.joint_nodes));
          if (inf.renormalised)
            wwarn(w.diags, fmt::format("{}: the weights of {} vertices did not sum to 1 and were renormalised", label,
                                       inf.renormalised));
          const size_t skin_joints = w.joint_nodes + (w.static_is_joint ? 1 : 0);
          if (skin_joints > 65536)
            wfail(fmt::format("{} joints are more than glTF joint indices can hold", skin_joints));
          const int jtype = skin_joints <= 256 ? kUByte : kUShort;
          blend_sets = inf.sets;
          for (uint32_t set = 0; set < inf.sets; ++set) {
            attributes[fmt::format("JOINTS_{}", set)] =
                w.buf.integers(set_values(inf.joints, nv, inf.sets, set), 4, jtype, kArrayBuffer);
            attributes[fmt::format("WEIGHTS_{}", set)] =
                w.buf.floats(set_values(inf.weights, nv, inf.sets, set), 4, kArrayBuffer, false);
          }
        }
        json e = stream_entry(w, st, st.attribute == Attribute::BlendIndices ? "JOINTS_0" : "WEIGHTS_0");
        e["sets"] = blend_sets;
        streams.push_back(std::move(e));
        break;
      }
    }
  }

  // Lines and points (Mesh::topology) are LINES and POINTS primitives of their indices.
  const int mode = m.topology == Topology::Lines ? 1 : m.topology == Topology::Points ? 0 : 4;
  json prim = {{"attributes", attributes}, {"mode", mode}};
  {
    const bool wide = nv > 65535;  // 65535 is the primitive restart value of UNSIGNED_SHORT
    prim["indices"] = w.buf.integers(m.triangles, 1, wide ? kUInt : kUShort, kElementArrayBuffer);
  }
  if (m.material >= 0) prim["material"] = m.material;
  // KHR_materials_variants: mappings to materials and variants the Scene has (others: warning).
  if (!m.material_variants.empty()) {
    json mappings = json::array();
    const size_t nvar = w.scene.material_variants.size();
    for (const Mesh::VariantMapping& v : m.material_variants) {
      const bool ok = v.material >= 0 && size_t(v.material) < w.scene.materials.size() && !v.variants.empty() &&
                      std::all_of(v.variants.begin(), v.variants.end(), [&](uint32_t x) { return x < nvar; });
      if (!ok) {
        wwarn(w.diags, fmt::format("{}: a material variant mapping names a material or variant the model does not "
                                   "have: not written",
                                   label));
        continue;
      }
      mappings.push_back({{"material", v.material}, {"variants", v.variants}});
    }
    if (!mappings.empty()) prim["extensions"]["KHR_materials_variants"] = {{"mappings", std::move(mappings)}};
  }

  json mesh = json::object();
  if (!m.name.empty()) mesh["name"] = w.text(m.name);
  if (!m.morph_targets.empty()) {
    json targets = json::array();
    json names = json::array();
    size_t dropped_normals = 0, dropped_tangents = 0;
    for (const MorphTarget& t : m.morph_targets) {
      json tj = json::object();
      auto sanitize = [&](const std::vector<float>& in) {
        std::vector<float> r(nv * 3, 0.0f);
        for (size_t i = 0; i < in.size(); ++i) {
          r[i] = in[i];
          if (!std::isfinite(r[i])) {
            r[i] = 0;
            ++non_finite;
          }
        }
        return r;
      };
      const bool normals = !t.normals.empty() && has_normal, tangents = !t.tangents.empty() && has_tangent;
      if (!t.positions.empty() || (!normals && !tangents))
        tj["POSITION"] = w.buf.floats(sanitize(t.positions), 3, kArrayBuffer, true);
      if (normals) tj["NORMAL"] = w.buf.floats(sanitize(t.normals), 3, kArrayBuffer, false);
      if (tangents) tj["TANGENT"] = w.buf.floats(sanitize(t.tangents), 3, kArrayBuffer, false);
      dropped_normals += !t.normals.empty() && !has_normal;
      dropped_tangents += !t.tangents.empty() && !has_tangent;
      targets.push_back(std::move(tj));
      names.push_back(w.text(t.name));
    }
    if (dropped_normals)
      wwarn(w.diags, fmt::format("{}: normal displacements of {} morph targets not written: the mesh has no normals",
                                 label, dropped_normals));
    if (dropped_tangents)
      wwarn(w.diags, fmt::format("{}: tangent displacements of {} morph targets not written: the mesh has no tangents",
                                 label, dropped_tangents));
    prim["targets"] = std::move(targets);
    if (!m.morph_weights.empty()) {
      json weights = json::array();
      for (size_t k = 0; k < m.morph_targets.size(); ++k) {
        const float x = k < m.morph_weights.size() ? m.morph_weights[k] : 0.0f;
        weights.push_back(std::isfinite(x) ? num(x) : json(0.0));
      }
      if (m.morph_weights.size() != m.morph_targets.size())
        wwarn(w.diags, fmt::format("{}: {} morph weights for {} targets; written as {}", label, m.morph_weights.size(),
                                   m.morph_targets.size(), m.morph_targets.size()));
      mesh["weights"] = std::move(weights);
    }
    // Blender's importer cannot import a shape key named "" (it looks the key up by the name
    // Blender gave it): no names when none has one, else the unnamed ones get "target<k>".
    size_t unnamed = 0;
    for (json& n : names) unnamed += n.get_ref<const std::string&>().empty();
    if (unnamed && unnamed < names.size()) {
      for (size_t k = 0; k < names.size(); ++k)
        if (names[k].get_ref<const std::string&>().empty()) names[k] = fmt::format("target{}", k);
      wwarn(w.diags, fmt::format("{}: {} of its {} morph targets have no name; written as 'target<index>' (Blender "
                                 "cannot import a shape key without a name)",
                                 label, unnamed, names.size()));
    }
    if (unnamed < names.size()) mesh["extras"] = {{"targetNames", std::move(names)}};
  }
  if (json fd = format_data_json(m); !fd.is_null()) mesh["extras"]["meshport"] = std::move(fd);
  if (non_finite) wwarn(w.diags, fmt::format("{}: {} values that are not finite written as 0", label, non_finite));
  if (mi < w.morph_ranges.size() && w.morph_ranges[mi])
    mesh["extras"]["meshport"]["morph_ranges"] = morph_ranges_json(*w.morph_ranges[mi]);
  if (mi < w.modedef_mesh.size() && !w.modedef_mesh[mi].is_null())
    mesh["extras"]["meshport"]["modedef"] = std::move(w.modedef_mesh[mi]);
  json extras = {{"streams", std::move(streams)}};
  if (!m.polygon_sizes.empty()) extras["polygon_sizes"] = m.polygon_sizes;
  if (!m.smoothing.empty()) extras["smoothing"] = smoothing_json(m.smoothing);
  prim["extras"] = {{"meshport", std::move(extras)}};
  mesh["primitives"] = primitives_of(w, m, std::move(prim));
  Buffer::append(w.meshes, mesh);
  const size_t index = w.mesh_count++;
  w.mesh_names.push_back(m.name.empty() ? std::string() : w.text(m.name));

  json node = json::object();
  if (!m.name.empty()) node["name"] = w.text(m.name);
  node["mesh"] = index;
  if (skinned) node["skin"] = 0;
  w.scene_nodes.insert(w.scene_nodes.begin() + long(index), w.nodes.size());
  w.gltf_mesh[mi] = int32_t(index);
  w.mesh_node[mi] = int32_t(w.nodes.size());
  if (!m.instances.empty()) emit_instances(w, node, m, label, skinned);
  w.nodes.push_back(std::move(node));
}

}  // namespace meshport::gltf::write_impl
