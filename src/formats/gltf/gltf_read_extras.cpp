// glTF reader: the writer's extras.meshport (schema at the top of gltf_write.cpp): document-level
// data, joint and mesh mapping, restore_* of what glTF cannot express, and the joints' rests.
#include "formats/gltf/gltf_read.h"

#include "formats/shared/gltf_pie.h"
#include "ops/mesh/components.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace meshport::gltf::read_impl {

// ---- Extras ----------------------------------------------------------------------------------

// The document-level extras: scenes[scene].extras.meshport (where Blender keeps them), else the
// root extras.meshport of files written before (which Blender drops).
void read_root_extras(Reader& rd) {
  rd.mp.pose_of.assign(rd.top("nodes").size(), -1);
  const json* mp = meshport_extras(rd.doc);
  std::string path = "extras.meshport";
  if (!mp) {
    uint64_t si = 0;
    if (const json* sc = field(rd.doc, "scene"); sc && as_uint(*sc)) si = *as_uint(*sc);
    const json& scenes = rd.top("scenes");
    const json* x = si < scenes.size() ? meshport_extras(scenes[si]) : nullptr;
    if (!x || !field(*x, "version")) return;  // none, or ModeDef data only (files written before)
    mp = x;
    path = fmt::format("scenes[{}].extras.meshport", si);
  }
  try {
    if (!mp->is_object()) rd.error(path, "is not an object");
    uint64_t version = rd.get_uint(*mp, "version", path, 1);
    if (version != 1) {
      rd.warn(fmt::format("{}.version: {} is not a known version of the meshport extras (1); they are ignored", path,
                          version));
      return;
    }
    uint64_t j = rd.get_uint(*mp, "joint_nodes", path, 0);
    if (j > rd.top("nodes").size())
      rd.error(path + ".joint_nodes",
               fmt::format("{} joint nodes, but the file has {} nodes", j, rd.top("nodes").size()));
    rd.mp.animation_only = rd.get_flag(*mp, "animation_only", path, false);
    rd.mp.static_node = rd.opt_index(*mp, "static_node", path, "nodes");
    rd.mp.present = true;
    rd.mp.extras = mp;
    rd.mp.path = path;
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; the meshport extras are ignored", e.diagnostic().message));
    rd.mp = {};
    rd.mp.pose_of.assign(rd.top("nodes").size(), -1);
    return;
  }
  map_extras_nodes(rd, *mp, rd.get_uint(*mp, "joint_nodes", path, 0));
  map_extras_meshes(rd, *mp);
}

// The Scene's joints: nodes 0 .. count-1 as the writer wrote them, or, where another tool
// reordered the nodes (Blender), the nodes of the names the extras list (the one of that name
// that has no mesh, preferring skin joints). Unmatched: the joints are read from the skins.
void map_extras_nodes(Reader& rd, const json& mp, uint64_t count) {
  const json& nodes = rd.top("nodes");
  auto name_of = [&](size_t n) -> std::string {
    const json* v = nodes[n].is_object() ? field(nodes[n], "name") : nullptr;
    return v && v->is_string() ? v->get<std::string>() : std::string();
  };
  const json* names = field(mp, "joints");
  auto listed = [&](size_t k) -> const json* {
    return names && names->is_array() && k < names->size() && (*names)[k].is_string() ? &(*names)[k] : nullptr;
  };
  bool in_place = true;
  for (size_t k = 0; k < count && names; ++k) in_place = listed(k) && listed(k)->get<std::string>() == name_of(k);
  if (rd.mp.static_node && names && name_of(*rd.mp.static_node) != "meshport_static") rd.mp.static_node.reset();
  std::vector<uint32_t> found;
  if (in_place) {
    for (uint32_t n = 0; n < count; ++n) found.push_back(n);
  } else {
    rd.mp.static_node.reset();  // the node extras say which it is (read_skeleton)
    std::unordered_set<uint64_t> skin_joint;
    const json& skins = rd.top("skins");
    for (const json& s : skins)
      if (const json* js = s.is_object() ? field(s, "joints") : nullptr; js && js->is_array())
        for (const json& x : *js)
          if (auto u = as_uint(x)) skin_joint.insert(*u);
    std::unordered_map<std::string, std::vector<uint32_t>> by_name;
    for (uint32_t n = 0; n < nodes.size(); ++n)
      if (nodes[n].is_object() && !field(nodes[n], "mesh")) by_name[name_of(n)].push_back(n);
    std::unordered_set<uint32_t> taken;
    for (size_t k = 0; k < count; ++k) {
      const json* name = listed(k);
      auto it = name ? by_name.find(name->get<std::string>()) : by_name.end();
      std::vector<uint32_t> c;
      if (it != by_name.end()) {
        for (uint32_t n : it->second)
          if (skin_joint.count(n)) c.push_back(n);
        if (c.empty()) c = it->second;
      }
      if (c.size() != 1 || !taken.insert(c[0]).second) {
        rd.warn(fmt::format("{}.joints[{}]: no single node of that name; the joints are read from the skins",
                            rd.mp.path, k));
        rd.mp.animation_only = false;
        return;
      }
      found.push_back(c[0]);
    }
  }
  rd.mp.nodes = std::move(found);
  for (size_t k = 0; k < rd.mp.nodes.size(); ++k) rd.mp.pose_of[rd.mp.nodes[k]] = int32_t(k);
  rd.mp.mapped = true;
}

// The writer's glTF mesh indices (PIE levels, attachments) to the glTF meshes now: the same
// index while the names the extras list still match, else the one mesh of that name, else none.
void map_extras_meshes(Reader& rd, const json& mp) {
  const json* names = field(mp, "meshes");
  const json& meshes = rd.top("meshes");
  auto name_of = [&](size_t g) -> std::string {
    const json* v = meshes[g].is_object() ? field(meshes[g], "name") : nullptr;
    return v && v->is_string() ? v->get<std::string>() : std::string();
  };
  rd.mp.written_mesh.clear();
  if (!names || !names->is_array()) {  // files written before: the indices as they are
    for (size_t g = 0; g < meshes.size(); ++g) rd.mp.written_mesh.push_back(int32_t(g));
    return;
  }
  bool in_place = names->size() == meshes.size();
  for (size_t g = 0; g < names->size() && in_place; ++g)
    in_place = (*names)[g].is_string() && (*names)[g].get<std::string>() == name_of(g);
  std::unordered_map<std::string, int32_t> by_name;  // -2: several
  for (size_t g = 0; g < meshes.size(); ++g) {
    auto [it, fresh] = by_name.emplace(name_of(g), int32_t(g));
    if (!fresh) it->second = -2;
  }
  for (size_t g = 0; g < names->size(); ++g) {
    if (in_place) {
      rd.mp.written_mesh.push_back(int32_t(g));
      continue;
    }
    auto it = (*names)[g].is_string() ? by_name.find((*names)[g].get<std::string>()) : by_name.end();
    rd.mp.written_mesh.push_back(it == by_name.end() || it->second < 0 ? -1 : it->second);
  }
}

// The document-level copy of animation `ai`'s extras: the k-th entry named `name` for the k-th
// animation of that name, or null.
const json* kept_animation_extras(Reader& rd, uint32_t ai, const std::string& name) {
  if (!rd.mp.present) return nullptr;
  const json* list = field(*rd.mp.extras, "animations");
  if (!list || !list->is_array()) return nullptr;
  size_t before = 0;  // animations named `name` before this one
  const json& anims = rd.top("animations");
  for (uint32_t a = 0; a < ai; ++a) {
    const json* n = anims[a].is_object() ? field(anims[a], "name") : nullptr;
    before += n && n->is_string() && n->get<std::string>() == name;
  }
  for (const json& e : *list) {
    const json* n = e.is_object() ? field(e, "name") : nullptr;
    if (n && n->is_string() && n->get<std::string>() == name && before-- == 0) return &e;
  }
  return nullptr;
}

void restore_primitive(Reader& rd, Mesh& m, const std::vector<std::string>& keys, const json& mp,
                       const std::string& path) {
  const std::string xp = path + ".extras.meshport";
  if (!mp.is_object()) rd.error(xp, "is not an object");
  const size_t nv = m.vertex_count();
  if (const json* st = field(mp, "streams")) {
    if (!st->is_array()) rd.error(xp + ".streams", "is not an array");
    static const char* labels[] = {"position",     "texcoord",     "normal", "tangent",
                                   "blendindexes", "blendweights", "color",  "custom"};
    std::vector<VertexStream> out;
    std::vector<bool> taken(m.streams.size());
    for (size_t k = 0; k < st->size(); ++k) {
      const std::string ep = fmt::format("{}.streams[{}]", xp, k);
      const json& e = (*st)[k];
      if (!e.is_object()) rd.error(ep, "is not an object");
      const std::string g = rd.get_string(e, "gltf", ep, true);
      size_t i = 0;
      while (i < keys.size() && (taken[i] || keys[i] != g)) ++i;
      if (i == keys.size()) continue;  // not written (blend streams without a skeleton)
      VertexStream s = m.streams[i];
      taken[i] = true;
      const std::string label = rd.get_string(e, "attribute", ep, true);
      auto at = std::find(std::begin(labels), std::end(labels), label);
      if (at == std::end(labels))
        rd.error(ep + ".attribute", fmt::format("'{}' is not an attribute", text::clip(label)));
      s.attribute = Attribute(at - std::begin(labels));
      const std::string format = rd.get_string(e, "format", ep);
      if (!format.empty()) {
        int f = 0;
        while (f <= int(ComponentType::Double) && format != ops::component_name(ComponentType(f))) ++f;
        if (f > int(ComponentType::Double))
          rd.error(ep + ".format", fmt::format("'{}' is not a format", text::clip(format)));
        s.format = ComponentType(f);
      }
      uint64_t source_size = rd.get_uint(e, "source_size", ep, s.source_size);
      uint64_t components = rd.get_uint(e, "components", ep, s.components);
      if (source_size > 1024 || components < 1 || components > 1024)
        rd.error(ep, fmt::format("source_size {} / components {} are out of range", source_size, components));
      s.source_size = uint32_t(source_size);
      s.name = s.attribute == Attribute::Custom ? rd.get_string(e, "name", ep) : std::string();
      s.custom_slot = -1;
      if (const json* slot = field(e, "custom_slot")) {
        if (!slot->is_number_integer() || slot->get<int64_t>() < -1 || slot->get<int64_t>() > INT32_MAX)
          rd.error(ep + ".custom_slot", fmt::format("{} is not a slot number", describe(*slot)));
        s.custom_slot = int(slot->get<int64_t>());
      }
      // The Scene's component count: glTF may have held fewer (padded back with the defaults) or
      // more (padding, dropped). Blend streams only widen: their influences were merged.
      const bool blend = s.attribute == Attribute::BlendIndices || s.attribute == Attribute::BlendWeights;
      const uint32_t n = scene_components(s.attribute, uint32_t(components));
      if (n != s.components && (!blend || n > s.components)) {
        rd.spend(u128(nv) * n * 4, ep, "the stream");
        std::vector<float> d(nv * n);
        for (size_t v = 0; v < nv; ++v)
          for (uint32_t c = 0; c < n; ++c)
            d[v * n + c] = s.get(
                v, c, c == 3 && (s.attribute == Attribute::Tangent || s.attribute == Attribute::Color) ? 1.0f : 0.0f);
        s.data = std::move(d);
        s.components = n;
      }
      out.push_back(std::move(s));
    }
    for (size_t i = 0; i < m.streams.size(); ++i)
      if (!taken[i]) out.push_back(std::move(m.streams[i]));
    m.streams = std::move(out);
    // The declarations must leave a mesh the rest of the reader (and the Scene) can rely on.
    const VertexStream* pos = m.find(Attribute::Position);
    const VertexStream* bi = m.find(Attribute::BlendIndices);
    const VertexStream* bw = m.find(Attribute::BlendWeights);
    if (!pos || pos->vertex_count() != nv || (!bi != !bw) || (bi && bi->components != bw->components))
      rd.error(xp + ".streams", "the declared streams do not match the primitive's attributes");
  }
  const size_t tris = m.triangles.size() / 3;
  if (const json* ps = field(mp, "polygon_sizes")) {
    const std::string pp = xp + ".polygon_sizes";
    if (!ps->is_array()) rd.error(pp, "is not an array");
    std::vector<uint32_t> sizes;
    u128 covered = 0;
    for (size_t k = 0; k < ps->size(); ++k) {
      auto n = as_uint((*ps)[k]);
      if (!n || *n < 3 || *n > UINT32_MAX) rd.error(fmt::format("{}[{}]", pp, k), "is not a polygon size (3 or more)");
      sizes.push_back(uint32_t(*n));
      covered += *n - 2;
    }
    if (covered != tris)
      rd.error(pp, fmt::format("the polygons hold {} triangles, but the primitive has {}", text::u128_string(covered),
                               tris));
    m.polygon_sizes = std::move(sizes);
  }
  if (const json* sm = field(mp, "smoothing")) {
    const std::string sp = xp + ".smoothing";
    if (!sm->is_object()) rd.error(sp, "is not an object");
    const size_t faces = m.polygon_sizes.empty() ? tris : m.polygon_sizes.size();
    size_t corners = m.polygon_sizes.empty() ? tris * 3 : 0;
    for (uint32_t n : m.polygon_sizes) corners += n;
    auto numbers = [&](const char* key, size_t want, auto&& convert) {
      const json& a = rd.get_array(*sm, key, sp);
      if (a.empty()) return;
      const std::string kp = fmt::format("{}.{}", sp, key);
      if (a.size() != want) rd.error(kp, fmt::format("has {} entries, but {} are needed", a.size(), want));
      for (size_t k = 0; k < a.size(); ++k)
        if (!a[k].is_number()) rd.error(fmt::format("{}[{}]", kp, k), "is not a number");
      for (const json& x : a) convert(x);
    };
    SmoothingRules& r = m.smoothing;
    r = {};
    auto to_int = [](const json& x) {
      double d = x.get<double>();
      return int32_t(std::clamp(d, double(INT32_MIN), double(INT32_MAX)));
    };
    numbers("face_group", faces, [&](const json& x) { r.face_group.push_back(to_int(x)); });
    numbers("face_angle", faces, [&](const json& x) { r.face_angle.push_back(narrow(x.get<double>())); });
    numbers("face_uv", faces, [&](const json& x) { r.face_uv.push_back(x.get<double>() != 0); });
    numbers("corner_edge", corners, [&](const json& x) { r.corner_edge.push_back(x.get<double>() != 0); });
    numbers("vertex_key", nv, [&](const json& x) { r.vertex_key.push_back(to_int(x)); });
  }
}

// Mesh extras.meshport "face_channels" and "format_streams" (gltf_write.cpp): one tuple per
// triangle / vertex of the primitive, else the whole set is ignored with a warning.
void restore_format_data(Reader& rd, Mesh& m, const json& mp, const std::string& path, bool polygon_materials) {
  const std::string xp = path + ".extras.meshport";
  if (!mp.is_object()) rd.error(xp, "is not an object");
  const size_t tris = m.triangles.size() / 3, nv = m.vertex_count();
  // {"name", "components", "data"} with `count` tuples; each value checked by `value`.
  auto entries = [&](const char* key, size_t count, auto&& value) {
    const json& list = rd.get_array(mp, key, xp);
    for (size_t k = 0; k < list.size(); ++k) {
      const std::string ep = fmt::format("{}.{}[{}]", xp, key, k);
      const json& e = list[k];
      if (!e.is_object()) rd.error(ep, "is not an object");
      const std::string name = rd.get_string(e, "name", ep, true);
      const uint64_t components = rd.get_uint(e, "components", ep, std::nullopt);
      if (components < 1 || components > 64) rd.error(ep + ".components", fmt::format("{} is not 1..64", components));
      const json& data = rd.get_array(e, "data", ep);
      if (data.size() != count * components) {
        const bool face = std::string_view(key) == "face_channels";
        const std::string msg = fmt::format("{}.data: has {} values, {} {} of {}, but the primitive has {} {}", ep,
                                            data.size(), data.size() / components, face ? "triangles" : "vertices",
                                            components, count, face ? "triangles" : "vertices");
        // Each vertex's PIE point only helps the PIE writer tell duplicate points apart (it warns
        // where that matters); a level's polygons come from its polygon materials when the
        // channels do not fit (gltf_pie_polygons.h): neither is lost, so neither is a warning.
        const bool pie = name.starts_with("pie.");
        if (!face || (pie && polygon_materials)) {
          if (!pie) rd.warn(fmt::format("{}; the format stream is ignored", msg));
          continue;
        }
        rd.error(ep + ".data", msg.substr(ep.size() + 7));
      }
      rd.spend(u128(data.size()) * 4, ep, "the values");
      value(name, uint32_t(components), data, ep + ".data");
    }
  };
  std::vector<FaceChannel> channels;
  entries("face_channels", tris, [&](const std::string& name, uint32_t n, const json& data, const std::string& dp) {
    FaceChannel c{name, n, {}};
    c.data.reserve(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      // -2^31..-1: the uint32 of the same bits (Blender keeps 32-bit signed integers only).
      const json& x = data[i];
      const bool negative = x.is_number_integer() && !x.is_number_unsigned() && x.get<int64_t>() < 0 &&
                            x.get<int64_t>() >= INT32_MIN;
      auto u = negative ? std::optional<uint64_t>(uint32_t(int32_t(x.get<int64_t>()))) : as_uint(x);
      if (!u || *u > UINT32_MAX) rd.error(fmt::format("{}[{}]", dp, i), fmt::format("{} is not a uint32", describe(x)));
      c.data.push_back(uint32_t(*u));
    }
    channels.push_back(std::move(c));
  });
  std::vector<VertexStream> streams;
  entries("format_streams", nv, [&](const std::string& name, uint32_t n, const json& data, const std::string& dp) {
    VertexStream s;
    s.attribute = Attribute::Custom;
    s.name = name;
    s.components = n;
    if (!is_format_stream(s)) rd.error(dp, fmt::format("'{}' is not a format stream name", text::clip(name)));
    s.data.reserve(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      if (!data[i].is_number())
        rd.error(fmt::format("{}[{}]", dp, i), fmt::format("{} is not a number", describe(data[i])));
      s.data.push_back(narrow(data[i].get<double>()));
    }
    streams.push_back(std::move(s));
  });
  m.face_channels = std::move(channels);
  for (VertexStream& s : streams) m.streams.push_back(std::move(s));
}

void restore_extras(Reader& rd) {
  const json* mp = rd.mp.extras;
  if (!rd.mp.present || !mp) return;
  const std::string& path = rd.mp.path;
  try {
    std::string comment = rd.get_string(*mp, "comment", path);
    if (field(*mp, "comment_base64")) {
      std::vector<uint8_t> raw;
      if (base64_decode(rd.get_string(*mp, "comment_base64", path), raw) != std::string_view::npos)
        rd.error(path + ".comment_base64", "is not base64");
      comment.assign(raw.begin(), raw.end());
    }
    std::vector<IqmExtension> exts;
    const json& xs = rd.get_array(*mp, "iqm_extensions", path);
    for (size_t k = 0; k < xs.size(); ++k) {
      const std::string xp = fmt::format("{}.iqm_extensions[{}]", path, k);
      if (!xs[k].is_object()) rd.error(xp, "is not an object");
      IqmExtension x;
      x.name = rd.get_string(xs[k], "name", xp);
      if (base64_decode(rd.get_string(xs[k], "data", xp), x.data) != std::string_view::npos)
        rd.error(xp + ".data", "is not base64");
      exts.push_back(std::move(x));
    }
    std::vector<int32_t> parents;
    const json& pp = rd.get_array(*mp, "iqm_pose_parents", path);
    for (size_t k = 0; k < pp.size(); ++k) {
      if (!pp[k].is_number_integer() || pp[k].get<int64_t>() < -1 || pp[k].get<int64_t>() >= int64_t(k))
        rd.error(fmt::format("{}.iqm_pose_parents[{}]", path, k),
                 fmt::format("{} is not -1 or a preceding pose", describe(pp[k])));
      parents.push_back(int32_t(pp[k].get<int64_t>()));
    }
    rd.scene.comment = std::move(comment);
    if (!exts.empty() || !parents.empty()) {
      IqmData& iqm = rd.scene.iqm.emplace();
      iqm.extensions = std::move(exts);
      iqm.pose_parents = std::move(parents);
    }
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; ignored", e.diagnostic().message));
  }
  restore_pie(rd, *mp);
}

// extras.meshport.pie (gltf_pie.h): its levels name glTF meshes, mapped to the Scene's.
void restore_pie(Reader& rd, const json& mp) {
  const json* pie = field(mp, "pie");
  if (!pie) return;
  try {
    std::vector<PieLegacyLevel> legacy;
    // Its levels name the glTF meshes the writer wrote: their Scene meshes now.
    std::vector<int32_t> scene_mesh;
    for (int32_t g : rd.mp.written_mesh)
      scene_mesh.push_back(g < 0 || size_t(g) >= rd.mesh_scene.size() ? -1 : rd.mesh_scene[size_t(g)]);
    rd.scene.pie = pie_from_json(*pie, rd.mp.path + ".pie", scene_mesh, rd.scene.joints.size(), &legacy);
    apply_pie_legacy(*rd.scene.pie, legacy, rd.scene.meshes);
    // A level whose glTF mesh the file no longer has (a tool joined it into another, or removed
    // it) would be written empty as if it had always been: say so.
    const json* levels = field(*pie, "levels");
    for (size_t i = 0; levels && levels->is_array() && i < levels->size(); ++i) {
      const json* g = (*levels)[i].is_object() ? field((*levels)[i], "mesh") : nullptr;
      const std::optional<uint64_t> index = g ? as_uint(*g) : std::nullopt;
      if (!index || (*index < scene_mesh.size() && scene_mesh[*index] >= 0)) continue;
      const json* names = field(mp, "meshes");
      const json* name = names && names->is_array() && *index < names->size() ? &(*names)[*index] : nullptr;
      rd.warn(fmt::format("{}.pie.levels[{}]: its mesh{} is not in the file (a tool joined it into another mesh or "
                          "removed it): level {} has no polygons now",
                          rd.mp.path, i, name && name->is_string() ? fmt::format(" '{}'", text::clip(name->get<std::string>())) : "",
                          i + 1));
    }
  } catch (const Error& e) {
    rd.warn(fmt::format("{}; the PIE data is ignored", e.diagnostic().message));
    rd.scene.pie = {};
  }
}

// A tool that wrote the animations in another order (Blender: by name) is undone: the Scene's
// animations take the order of the extras' "animations" (by name, the k-th of a name its k-th
// entry) when every one of them has an entry.
void restore_animation_order(Reader& rd) {
  if (!rd.mp.present || rd.scene.animations.size() < 2) return;
  const json* list = field(*rd.mp.extras, "animations");
  if (!list || !list->is_array()) return;
  std::vector<std::string> kept;
  for (const json& e : *list) {
    const json* n = e.is_object() ? field(e, "name") : nullptr;
    kept.push_back(n && n->is_string() ? n->get<std::string>() : std::string());
  }
  std::vector<size_t> place;  // per Scene animation its entry
  std::vector<bool> used(kept.size());
  for (const Animation& a : rd.scene.animations) {
    size_t k = 0;
    while (k < kept.size() && (used[k] || kept[k] != a.name)) ++k;
    if (k == kept.size()) return;
    used[k] = true;
    place.push_back(k);
  }
  std::vector<size_t> order(place.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return place[x] < place[y]; });
  std::vector<Animation> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back(std::move(rd.scene.animations[i]));
  rd.scene.animations = std::move(sorted);
}

// A tool that re-oriented the bones (Blender's importer turns each bone's axes towards its child,
// and its exporter writes those axes back) changed every joint's rest by a rotation C_j of its own
// frame: world rest W'_j = W_j C_j. The extras' "joint_rests" give W_j back: rests, poses
// (P_j = P'_j C_j^-1) and joint-relative attachments (C_j T) are re-expressed in the writer's
// frames, which leaves every skinned position as it is. Nothing changes unless every C_j is a
// rotation (within 1e-4; a skeleton edited since keeps the file's rests); entries of C_j within
// 1e-5 of 0 or +-1 are snapped, as the tool's turns are quarter turns re-read from floats.
void rebase_joints(Reader& rd) {
  if (!rd.mp.present || !rd.mp.mapped || rd.mp.animation_only) return;
  const json* list = field(*rd.mp.extras, "joint_rests");
  const size_t nj = rd.scene.joints.size();
  if (!list || !list->is_array() || list->size() != nj || nj == 0) return;
  std::vector<Transform> kept(nj);
  for (size_t j = 0; j < nj; ++j) {
    const json& r = (*list)[j];
    if (!r.is_array() || r.size() != 10) return;
    float v[10];
    for (size_t k = 0; k < 10; ++k) {
      if (!r[k].is_number()) return;
      v[k] = narrow(r[k].get<double>());
      if (!std::isfinite(v[k])) return;
    }
    kept[j] = {{v[0], v[1], v[2]}, {v[3], v[4], v[5], v[6]}, {v[7], v[8], v[9]}};
  }
  auto world_of = [&](const std::vector<Transform>& local, std::vector<Mat3x4>& world) {
    world.resize(nj);
    for (size_t j = 0; j < nj; ++j) {
      const Mat3x4 m = mat_from_trs(local[j].translation, local[j].rotation, local[j].scale);
      const int32_t p = rd.scene.joints[j].parent;
      world[j] = p >= 0 ? mat_mul(world[size_t(p)], m) : m;
    }
  };
  // Without a skin the joints are plain nodes (Blender: empties), whose transform another tool
  // may write at its current frame of the animation: the rests are the writer's.
  if (rd.top("skins").empty()) {
    for (size_t j = 0; j < nj; ++j) rd.scene.joints[j].rest = kept[j];
    return;
  }
  std::vector<Transform> now(nj), unscaled = kept;
  for (size_t j = 0; j < nj; ++j) now[j] = rd.scene.joints[j].rest;
  for (Transform& t : unscaled) t.scale = {1, 1, 1};
  std::vector<Mat3x4> w_now, w_kept, w_unscaled;
  world_of(now, w_now);
  world_of(kept, w_kept);
  world_of(unscaled, w_unscaled);
  std::vector<Mat3x4> fix(nj), unfix(nj);  // C_j and C_j^-1
  // C_j = B_j^-1 W'_j for the frames B_j the tool started from: true when every C_j is a rotation.
  auto turns = [&](const std::vector<Mat3x4>& base) {
    for (size_t j = 0; j < nj; ++j) {
      Mat3x4 c = mat_mul(mat_inverse(base[j]), w_now[j]);
      float size = 1;
      for (int k = 9; k < 12; ++k) size = std::max(size, std::fabs(base[j][k]));
      for (int k = 9; k < 12; ++k) {
        if (!(std::fabs(c[k]) <= 1e-4f * size)) return false;  // (NaN too: a singular rest)
        c[k] = 0;
      }
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          float d = c[a * 3] * c[b * 3] + c[a * 3 + 1] * c[b * 3 + 1] + c[a * 3 + 2] * c[b * 3 + 2];
          if (!(std::fabs(d - (a == b ? 1.0f : 0.0f)) <= 1e-4f)) return false;
        }
      if (det3(c) < 0) return false;
      for (int k = 0; k < 9; ++k)
        for (float snap : {-1.0f, 0.0f, 1.0f})
          if (std::fabs(c[k] - snap) <= 1e-5f) c[k] = snap;
      fix[j] = c;
      unfix[j] = mat_inverse(c);
    }
    return true;
  };
  // Blender's bones have no rest scale: its importer makes the rests of the joints' translations
  // and rotations only (a child's offset not scaled by its parent's scale), binds the meshes to
  // them (a root scale of 0.222 makes the mesh 4.5 times larger) and poses the bones with the
  // scale. Against those rests the turns are rotations again: the meshes are bound back to the
  // kept rests (W_j U_j^-1 over each vertex's influences, U the rests without scale).
  bool scale_dropped = false;
  if (!turns(w_kept)) {
    if (unscaled == kept || !turns(w_unscaled)) return;
    scale_dropped = true;
  }
  bool same = !scale_dropped;
  for (size_t j = 0; j < nj && same; ++j) same = fix[j] == mat_identity();
  if (same) {  // the same frames within float rounding: the rests as written
    for (size_t j = 0; j < nj; ++j) rd.scene.joints[j].rest = kept[j];
    return;
  }
  if (scale_dropped) {
    std::vector<Mat3x4> rebind(nj);
    for (size_t j = 0; j < nj; ++j) rebind[j] = mat_mul(w_kept[j], mat_inverse(w_unscaled[j]));
    for (Mesh& m : rd.scene.meshes) rebind_vertices(m, rebind, nullptr);
  }
  // A scale within float rounding of a 6-digit decimal is that decimal (the tool's float noise:
  // 1.0000001 for 1).
  auto tidy = [](float x) {
    if (!(std::fabs(x) > 0) || !std::isfinite(x)) return x;
    const double e = std::pow(10.0, 5 - std::floor(std::log10(std::fabs(double(x)))));
    const float r = float(std::round(double(x) * e) / e);
    return std::fabs(r - x) <= 4 * std::numeric_limits<float>::epsilon() * std::fabs(x) ? r : x;
  };
  // A pose's translation, rotation or scale within float rounding (1e-6) of the rest's is the
  // rest's (the tool's float noise on what the writer wrote as the rest).
  auto snap_to_rest = [](Transform& p, const Transform& r) {
    auto close = [](float a, float b) { return std::fabs(a - b) <= 1e-6f * std::max(1.0f, std::fabs(b)); };
    bool q = true, nq = true, t = true, sc = true;
    for (int k = 0; k < 4; ++k) q = q && close(p.rotation[k], r.rotation[k]), nq = nq && close(-p.rotation[k], r.rotation[k]);
    for (int k = 0; k < 3; ++k) t = t && close(p.translation[k], r.translation[k]), sc = sc && close(p.scale[k], r.scale[k]);
    if (q || nq) p.rotation = r.rotation;
    if (t) p.translation = r.translation;
    if (sc) p.scale = r.scale;
  };
  auto local_of = [&](const std::vector<Mat3x4>& world, size_t j) {
    const int32_t p = rd.scene.joints[j].parent;
    bool exact;
    return decompose(p >= 0 ? mat_mul(mat_inverse(world[size_t(p)]), world[j]) : world[j], exact);
  };
  for (Animation& a : rd.scene.animations) {
    if (a.channels != nj) continue;
    for (size_t f = 0; f < a.frame_count(); ++f) {
      Transform* pose = &a.poses[f * nj];
      std::vector<Mat3x4> w;
      world_of(std::vector<Transform>(pose, pose + nj), w);
      for (size_t j = 0; j < nj; ++j) w[j] = mat_mul(w[j], unfix[j]);
      for (size_t j = 0; j < nj; ++j) {
        pose[j] = local_of(w, j);
        for (float& x : pose[j].scale) x = tidy(x);
        snap_to_rest(pose[j], kept[j]);
      }
    }
  }
  for (Attachment& at : rd.scene.attachments) {
    if (at.joint < 0 || size_t(at.joint) >= nj) continue;
    const Transform& t = at.transform;
    bool exact;
    Transform r = decompose(mat_mul(fix[size_t(at.joint)], mat_from_trs(t.translation, t.rotation, t.scale)), exact);
    // What is left of the tool's turn within float rounding: none.
    for (float& x : r.scale) x = tidy(x);
    const Quat& q = r.rotation;
    if (std::fabs(std::fabs(q[3]) - 1) <= 1e-6f && std::fabs(q[0]) + std::fabs(q[1]) + std::fabs(q[2]) <= 1e-6f)
      r.rotation = {0, 0, 0, 1};
    at.transform = r;
  }
  for (size_t j = 0; j < nj; ++j) rd.scene.joints[j].rest = kept[j];
}

}  // namespace meshport::gltf::read_impl
