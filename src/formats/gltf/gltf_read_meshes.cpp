// glTF reader: meshes and their primitives (attributes, indices, strips and fans, morph targets),
// and their instancing by the nodes of the scene read (baked to world space or skinned).
#include "formats/gltf/gltf_read.h"

#include "ops/mesh/components.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace meshport::gltf::read_impl {

// Scene components: positions and normals at least 3, tangents 4.
uint32_t scene_components(Attribute a, uint32_t size) {
  if (a == Attribute::Position || a == Attribute::Normal) return std::max(size, 3u);
  if (a == Attribute::Tangent) return 4;
  return size;
}

namespace {

// What morph target normal displacements are transformed by: the normal matrix scaled to
// determinant +-1, so that under a rotation with uniform scale (KHR_mesh_quantization's
// dequantization, on the node or in the inverse bind matrices) they turn as the renormalised
// normals do, without the normal matrix's 1 / scale.
Mat3x4 delta_normal_matrix(const Mat3x4& nm) {
  const double d = std::abs(double(det3(nm)));
  if (!(d > 0) || !std::isfinite(d)) return nm;
  const float k = float(1.0 / std::cbrt(d));
  Mat3x4 r = nm;
  for (int e = 0; e < 9; ++e) r[e] *= k;
  return r;
}

}  // namespace

// ---- Meshes ----------------------------------------------------------------------------------

Primitive read_primitive(Reader& rd, uint32_t m, uint32_t p, const json& mesh, const json& prim, bool compact) {
  Primitive out;
  out.path = fmt::format("meshes[{}].primitives[{}]", m, p);
  const std::string& path = out.path;
  rd.part = path;
  Mesh& mm = out.mesh;
  const json& prims = mesh["primitives"];
  std::string base = rd.get_string(mesh, "name", fmt::format("meshes[{}]", m));
  mm.name = prims.size() > 1 ? fmt::format("{}.{}", base, p) : base;
  uint64_t mode = rd.get_uint(prim, "mode", path, 4);
  static const char* modes[] = {"points",    "lines",          "line loop",   "line strip",
                                "triangles", "triangle strip", "triangle fan"};
  if (mode > 6) rd.error(path + ".mode", fmt::format("{} is not a primitive mode", mode));
  const json* attrs = field(prim, "attributes");
  if (!attrs || !attrs->is_object()) rd.error(path, "has no 'attributes' object");
  const std::string ap = path + ".attributes";
  if (!field(*attrs, "POSITION")) rd.error(ap, "has no POSITION");
  DracoScope draco(rd, prim, path);  // KHR_draco_mesh_compression: the accessors' data, decoded
  const Accessor& pos = accessor_at(rd, *attrs, "POSITION", ap);
  const uint64_t nv = pos.count;
  mm.material = -1;
  if (auto mat = rd.opt_index(prim, "material", path, "materials")) mm.material = int32_t(*mat);
  read_variant_mappings(rd, prim, path, mm);

  // Indices, read first: a primitive sharing its vertex arrays with others (`compact`) decodes
  // only the vertices its indices use (`keep`, in order of first use, or the accessor's order
  // when it uses them all; its indices renumbered to them), from
  // arrays decoded once for all of them (shared_floats), so that the memory and time each such
  // primitive costs are those of its own vertices.
  std::vector<uint32_t> list;
  const bool indexed = field(prim, "indices") != nullptr;
  if (indexed) {
    const Accessor& a = accessor_at(rd, prim, "indices", path);
    list = indices(rd, a, path + ".indices");
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i] >= nv)
        rd.error(path + ".indices",
                 fmt::format("index {} (element {} of {}) is not below the vertex count ({})", list[i], i, a.path, nv));
  } else {
    if (pos.base)
      rd.spend(u128(nv) * 4, path, "vertex list");
    else  // zeros (no bufferView): a count the input does not hold
      rd.spend_proportional(u128(nv) * 4, path, "vertex list");
    list.resize(nv);
    for (size_t i = 0; i < nv; ++i) list[i] = uint32_t(i);
  }
  const bool picking = compact && indexed;
  std::vector<uint32_t> keep;
  if (picking) {
    // keep and the hash map: freed when the primitive is read (the Scene holds what they pick).
    rd.check_temporary(u128(list.size()) * 48, path, "finding the vertices used");
    std::unordered_map<uint32_t, uint32_t> to;
    to.reserve(list.size());
    for (uint32_t& i : list) {
      auto [it, added] = to.emplace(i, uint32_t(keep.size()));
      if (added) keep.push_back(i);
      i = it->second;
    }
    // Every vertex used: the accessor's order stays (as for an unshared array).
    if (keep.size() == nv) {
      for (uint32_t& i : list) i = keep[i];
      for (size_t i = 0; i < keep.size(); ++i) keep[i] = uint32_t(i);
    }
  }
  const size_t nk = picking ? keep.size() : size_t(nv);       // the vertices the Scene mesh gets
  auto row = [&](size_t i) { return picking ? size_t(keep[i]) : i; };  // their accessor elements

  struct Set {
    uint32_t joints = 0, weights = 0;
    bool has_joints = false, has_weights = false;
  };
  std::map<uint32_t, Set> blend;
  using Keyed = std::pair<std::string, VertexStream>;  // glTF attribute name, stream
  std::vector<Keyed> standard, customs;
  auto parse_set = [](const std::string& key, const char* prefix) -> std::optional<uint32_t> {
    size_t n = std::strlen(prefix);
    if (key.compare(0, n, prefix) != 0 || key.size() == n || key.size() > n + 6) return std::nullopt;
    uint32_t v = 0;
    for (size_t i = n; i < key.size(); ++i) {
      if (key[i] < '0' || key[i] > '9') return std::nullopt;
      v = v * 10 + uint32_t(key[i] - '0');
    }
    return v;
  };
  auto decode_stream = [&](const Accessor& a, Attribute attr, const std::string& name, const std::string& kp) {
    if (a.columns != 1) rd.error(kp, fmt::format("{} is {}: matrices are not vertex attributes", a.path, a.type_name));
    VertexStream s;
    s.attribute = attr;
    s.name = name;
    // Integer data that is not normalised holds plain numbers; the Scene reads integer formats as
    // normalised (except blend indices), so such data is declared as float. So are integer
    // positions (KHR_mesh_quantization): the node's (dequantization) transform is baked into them,
    // which takes them out of a normalised format's range.
    s.format = (ops::is_integer(a.type) && ((!a.normalized && attr != Attribute::BlendIndices) ||
                                            attr == Attribute::Position))
                   ? ComponentType::Float
                   : a.type;
    s.source_size = a.comps;
    s.components = scene_components(attr, a.comps);
    std::vector<float> own;
    const std::vector<float>& v = picking ? shared_floats(rd, a) : (own = floats(rd, a));
    if (!picking && s.components == a.comps) {
      s.data = std::move(own);
    } else {
      rd.spend(u128(nk) * s.components * 4, kp, picking ? "the vertices the primitive uses" : "widening");
      s.data.assign(nk * s.components, 0.0f);
      for (size_t i = 0; i < nk; ++i) {
        for (uint32_t c = 0; c < a.comps; ++c) s.data[i * s.components + c] = v[row(i) * a.comps + c];
        if (attr == Attribute::Tangent && a.comps < 4) s.data[i * s.components + 3] = 1.0f;
      }
    }
    return s;
  };

  for (auto& [key, val] : attrs->items()) {
    const std::string kp = fmt::format("{}.{}", ap, text::clip(key));
    auto idx = as_uint(val);
    if (!idx) rd.error(kp, fmt::format("{} is not an accessor index", describe(val)));
    const Accessor& a = accessor(rd, rd.check_index(*idx, kp, "accessors"));
    if (a.count != nv) rd.error(kp, fmt::format("{} has {} elements but POSITION has {}", a.path, a.count, nv));
    if (auto n = parse_set(key, "JOINTS_")) {
      blend[*n].joints = uint32_t(*idx), blend[*n].has_joints = true;
    } else if (auto w = parse_set(key, "WEIGHTS_")) {
      blend[*w].weights = uint32_t(*idx), blend[*w].has_weights = true;
    } else if (key == "POSITION") {
      standard.emplace_back(key, decode_stream(a, Attribute::Position, "", kp));
    } else if (key == "NORMAL") {
      standard.emplace_back(key, decode_stream(a, Attribute::Normal, "", kp));
    } else if (key == "TANGENT") {
      standard.emplace_back(key, decode_stream(a, Attribute::Tangent, "", kp));
    } else if (key == "TEXCOORD_0") {
      standard.emplace_back(key, decode_stream(a, Attribute::Texcoord, "", kp));
    } else if (key == "COLOR_0") {
      standard.emplace_back(key, decode_stream(a, Attribute::Color, "", kp));
    } else if (auto t = parse_set(key, "TEXCOORD_")) {
      customs.emplace_back(key, decode_stream(a, Attribute::Custom, fmt::format("texcoord{}", *t), kp));
    } else if (auto c = parse_set(key, "COLOR_")) {
      customs.emplace_back(key, decode_stream(a, Attribute::Custom, fmt::format("color{}", *c), kp));
    } else {
      if (key.empty() || key[0] != '_')
        rd.warn(
            fmt::format("{}: '{}' is not a glTF attribute semantic (application-specific ones start with '_'); read "
                        "as a custom array",
                        kp, text::clip(key)));
      customs.emplace_back(key, decode_stream(a, Attribute::Custom, key[0] == '_' ? key.substr(1) : key, kp));
    }
  }
  // Joint and weight sets, merged into one pair of streams of 4 * sets components.
  std::vector<std::pair<const Accessor*, const Accessor*>> sets;
  for (auto& [n, s] : blend) {
    if (s.has_joints != s.has_weights) {
      rd.warn(fmt::format("{}: {}_{} has no matching {}_{}; it is ignored", ap, s.has_joints ? "JOINTS" : "WEIGHTS", n,
                          s.has_joints ? "WEIGHTS" : "JOINTS", n));
      continue;
    }
    sets.emplace_back(&accessor(rd, s.joints), &accessor(rd, s.weights));
  }
  if (!sets.empty()) {
    out.has_blend = true;
    out.joints_path = fmt::format("{}.JOINTS_{}", ap, blend.begin()->first);
    const uint32_t width = uint32_t(sets.size()) * 4;
    rd.spend(u128(nk) * width * 8, ap, "joints and weights");
    VertexStream bi, bw;
    bi.attribute = Attribute::BlendIndices;
    bw.attribute = Attribute::BlendWeights;
    bi.components = bi.source_size = bw.components = bw.source_size = width;
    bi.data.assign(nk * width, 0.0f);
    bw.data.assign(nk * width, 0.0f);
    bi.format = bw.format = ComponentType::UByte;
    for (size_t k = 0; k < sets.size(); ++k) {
      const Accessor* ja = sets[k].first;
      const Accessor* wa = sets[k].second;
      for (const Accessor* a : {ja, wa})
        if (a->columns != 1 || a->comps > 4)
          rd.error(ap, fmt::format("{} is {}, not a vector of up to 4 values", a->path, a->type_name));
      if (ja->normalized || ja->type == ComponentType::Float || ja->type == ComponentType::Byte ||
          ja->type == ComponentType::Short)
        rd.error(ap, fmt::format("{} (joints) is {}{}, not unsigned byte or short", ja->path,
                                 ja->normalized ? "normalized " : "", ops::component_name(ja->type)));
      if (ops::component_size(ja->type) > ops::component_size(bi.format)) bi.format = ja->type;
      // Weights: normalised integers keep their type (the widest when sets differ), else float.
      const ComponentType wf = wa->normalized ? wa->type : ComponentType::Float;
      if (k == 0 || wf == ComponentType::Float || bw.format == ComponentType::Float)
        bw.format = k == 0 ? wf : ComponentType::Float;
      else if (ops::component_size(wf) > ops::component_size(bw.format))
        bw.format = wf;
      std::vector<float> jo, wo;
      const std::vector<float>& j = picking ? shared_floats(rd, *ja) : (jo = floats(rd, *ja));
      const std::vector<float>& w = picking ? shared_floats(rd, *wa) : (wo = floats(rd, *wa));
      for (size_t i = 0; i < nk; ++i)
        for (uint32_t c = 0; c < ja->comps; ++c) {
          bi.data[i * width + k * 4 + c] = j[row(i) * ja->comps + c];
          if (c < wa->comps) bw.data[i * width + k * 4 + c] = w[row(i) * wa->comps + c];
        }
    }
    standard.emplace_back("JOINTS_0", std::move(bi));
    standard.emplace_back("WEIGHTS_0", std::move(bw));
  }
  std::stable_sort(standard.begin(), standard.end(),
                   [](const Keyed& a, const Keyed& b) { return a.second.attribute < b.second.attribute; });
  std::stable_sort(customs.begin(), customs.end(),
                   [](const Keyed& a, const Keyed& b) { return a.second.name < b.second.name; });
  std::vector<std::string> keys;
  for (auto* list : {&standard, &customs})
    for (Keyed& k : *list) {
      keys.push_back(k.first);
      mm.streams.push_back(std::move(k.second));
    }

  // Points, line segments (loops and strips as their segments) or triangles.
  if (mode == 0) {
    mm.topology = Topology::Points;
    mm.triangles = std::move(list);
  } else if (mode < 4) {
    mm.topology = Topology::Lines;
    if (mode == 1) {
      if (list.size() % 2)
        rd.warn(fmt::format("{}: {} indices are not whole line segments; the last is ignored", path, list.size()));
      list.resize(list.size() / 2 * 2);
      mm.triangles = std::move(list);
    } else {
      const size_t n = list.size() < 2 ? 0 : mode == 2 ? list.size() : list.size() - 1;
      rd.spend(u128(n) * 8, path, fmt::format("the segments of the {}", modes[mode]));
      mm.triangles.reserve(n * 2);
      for (size_t i = 0; i < n; ++i) mm.triangles.insert(mm.triangles.end(), {list[i], list[(i + 1) % list.size()]});
    }
  } else if (mode == 4) {
    if (list.size() % 3)
      rd.warn(fmt::format("{}: {} indices are not whole triangles; the last {} are ignored", path, list.size(),
                          list.size() % 3));
    list.resize(list.size() / 3 * 3);
    mm.triangles = std::move(list);
  } else {
    const size_t n = list.size() >= 3 ? list.size() - 2 : 0;
    rd.spend(u128(n) * 12, path, "triangles");
    mm.triangles.reserve(n * 3);
    for (size_t i = 0; i < n; ++i) {
      uint32_t a, b, c;
      if (mode == 5)
        a = list[i], b = list[i + 1 + i % 2], c = list[i + 2 - i % 2];
      else
        a = list[0], b = list[i + 1], c = list[i + 2];
      if (a == b || b == c || a == c) continue;  // degenerate: joins strips, draws nothing
      mm.triangles.insert(mm.triangles.end(), {a, b, c});
    }
  }

  // Morph targets.
  const json& targets = rd.get_array(prim, "targets", path);
  const json* extras = field(mesh, "extras");
  const json* names = extras ? field(*extras, "targetNames") : nullptr;
  for (size_t t = 0; t < targets.size(); ++t) {
    const std::string tp = fmt::format("{}.targets[{}]", path, t);
    const json& tgt = rd.object_at(targets, t, tp);
    MorphTarget mt;
    if (names && names->is_array() && t < names->size() && (*names)[t].is_string())
      mt.name = (*names)[t].get<std::string>();
    auto delta = [&](const char* key) {
      const Accessor& a = accessor_at(rd, tgt, key, tp);
      if (a.count != nv || a.columns != 1)
        rd.error(fmt::format("{}.{}", tp, key), fmt::format("{} has {} elements of {}; the target needs {} of VEC3",
                                                            a.path, a.count, a.type_name, nv));
      std::vector<float> own;
      const std::vector<float>& v = picking ? shared_floats(rd, a) : (own = floats(rd, a));
      if (picking) rd.spend(u128(nk) * 12, fmt::format("{}.{}", tp, key), "the vertices the primitive uses");
      std::vector<float> d(nk * 3, 0.0f);
      for (size_t i = 0; i < nk; ++i)
        for (uint32_t c = 0; c < std::min(a.comps, 3u); ++c) d[i * 3 + c] = v[row(i) * a.comps + c];
      return d;
    };
    if (field(tgt, "POSITION"))
      mt.positions = delta("POSITION");
    else
      mt.positions.assign(nk * 3, 0.0f);
    if (field(tgt, "NORMAL")) mt.normals = delta("NORMAL");
    if (field(tgt, "TANGENT")) mt.tangents = delta("TANGENT");
    mm.morph_targets.push_back(std::move(mt));
  }
  if (!targets.empty())
    if (const json* w = field(mesh, "weights")) {
      if (!w->is_array() || w->size() != targets.size() ||
          !std::all_of(w->begin(), w->end(), [](const json& x) { return x.is_number(); }))
        rd.warn(fmt::format("meshes[{}].weights: not {} numbers, one per morph target; ignored", m, targets.size()));
      else
        for (const json& x : *w) mm.morph_weights.push_back(narrow(x.get<double>()));
    }

  // What the writer kept in extras: stream declarations, polygons, smoothing rules.
  if (const json* mp = meshport_extras(prim)) {
    Mesh restored = mm;
    try {
      restore_primitive(rd, restored, keys, *mp, path);
      mm = std::move(restored);
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; the meshport extras of the primitive are ignored", e.diagnostic().message));
    }
  }

  // The mesh's face channels and format streams (mesh extras): they describe its only primitive.
  if (const json* mp = meshport_extras(mesh); mp && prims.size() == 1) {
    Mesh restored = mm;
    try {
      restore_format_data(rd, restored, *mp, fmt::format("meshes[{}]", m), polygon_mesh(rd, mesh));
      mm = std::move(restored);
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; the mesh's face channels and format streams are ignored", e.diagnostic().message));
    }
  }

  out.has_blend = mm.find(Attribute::BlendIndices) && mm.find(Attribute::BlendWeights);
  if (out.has_blend && out.joints_path.empty()) out.joints_path = ap;

  return out;
}

// rebind_vertices: gltf_read.h.
void rebind_vertices(Mesh& m, const std::vector<Mat3x4>& rebind, const std::vector<int32_t>* joints) {
  VertexStream* bi = m.find(Attribute::BlendIndices);
  VertexStream* bw = m.find(Attribute::BlendWeights);
  VertexStream* pos = m.find(Attribute::Position);
  if (!bi || !bw || !pos) return;
  VertexStream* nor = m.find(Attribute::Normal);
  VertexStream* tan = m.find(Attribute::Tangent);
  const size_t nv = m.vertex_count();
  const uint32_t k = std::min(bi->components, bw->components);
  for (size_t v = 0; v < nv; ++v) {
    Mat3x4 b{};
    float total = 0;
    for (uint32_t c = 0; c < k; ++c) {
      float w = bw->data[v * bw->components + c];
      float j = bi->data[v * bi->components + c];
      if (!(w != 0) || !(j >= 0 && j < float(rebind.size())) || (joints && (*joints)[size_t(j)] < 0)) continue;
      const Mat3x4& r = rebind[size_t(j)];
      for (int e = 0; e < 12; ++e) b[e] += w * r[e];
      total += w;
    }
    if (total == 0) continue;
    float* p = &pos->data[v * pos->components];
    Vec3 q = mat_apply(b, {p[0], p[1], p[2]});
    p[0] = q[0], p[1] = q[1], p[2] = q[2];
    const Mat3x4 nm = normal_matrix(b);
    const Mat3x4 dnm = delta_normal_matrix(nm);
    if (nor) {
      float* x = &nor->data[v * nor->components];
      Vec3 r = normalize(mat_apply_linear(nm, {x[0], x[1], x[2]}));
      x[0] = r[0], x[1] = r[1], x[2] = r[2];
    }
    if (tan) {
      float* x = &tan->data[v * tan->components];
      Vec3 r = normalize(mat_apply_linear(b, {x[0], x[1], x[2]}));
      x[0] = r[0], x[1] = r[1], x[2] = r[2];
      if (det3(b) < 0 && tan->components >= 4) x[3] = -x[3];
    }
    for (MorphTarget& t : m.morph_targets) {
      float* d = &t.positions[v * 3];
      Vec3 r = mat_apply_linear(b, {d[0], d[1], d[2]});
      d[0] = r[0], d[1] = r[1], d[2] = r[2];
      if (!t.normals.empty()) {
        float* e = &t.normals[v * 3];
        Vec3 s = mat_apply_linear(dnm, {e[0], e[1], e[2]});
        e[0] = s[0], e[1] = s[1], e[2] = s[2];
      }
      if (!t.tangents.empty()) {
        float* e = &t.tangents[v * 3];
        Vec3 s = mat_apply_linear(b, {e[0], e[1], e[2]});
        e[0] = s[0], e[1] = s[1], e[2] = s[2];
      }
    }
  }
}

void read_meshes(Reader& rd) {
  const json& meshes = rd.top("meshes");
  // POSITION accessors used by more than one primitive: those primitives keep only their vertices.
  std::unordered_map<uint64_t, uint32_t> position_users;
  for (size_t m = 0; m < meshes.size(); ++m) {
    const std::string path = fmt::format("meshes[{}]", m);
    const json& mesh = rd.object_at(meshes, m, path);
    const json& prims = rd.get_array(mesh, "primitives", path);
    if (prims.empty()) rd.error(path + ".primitives", "is missing or empty");
    for (size_t p = 0; p < prims.size(); ++p) {
      const json* attrs = field(prims[p], "attributes");
      const json* pos = attrs ? field(*attrs, "POSITION") : nullptr;
      if (pos)
        if (auto i = as_uint(*pos)) ++position_users[*i];
    }
  }
  rd.meshes.resize(meshes.size());
  for (size_t m = 0; m < meshes.size(); ++m) {
    const json& mesh = meshes[m];
    const json& prims = mesh["primitives"];
    // A PIE level split by polygon (gltf_pie_polygons.h) whose primitives share their vertex arrays
    // only among themselves: each is read whole, so that they join on the same vertices.
    const bool polygons = polygon_mesh(rd, mesh);
    bool whole = polygons;
    for (size_t p = 1; p < prims.size() && whole; ++p) whole = prims[p].is_object() && prims[0].is_object() &&
                                                               field(prims[p], "attributes") &&
                                                               field(prims[0], "attributes") &&
                                                               *field(prims[p], "attributes") == *field(prims[0], "attributes");
    for (size_t p = 0; p < prims.size(); ++p) {
      const std::string pp = fmt::format("meshes[{}].primitives[{}]", m, p);
      const json& prim = rd.object_at(prims, p, pp);
      const json* attrs = field(prim, "attributes");
      const json* pos = attrs ? field(*attrs, "POSITION") : nullptr;
      auto pi = pos ? as_uint(*pos) : std::nullopt;
      bool shared = pi && position_users[*pi] > (whole ? prims.size() : 1);
      rd.meshes[m].push_back(read_primitive(rd, uint32_t(m), uint32_t(p), mesh, prim, shared));
    }
    if (polygons) join_polygon_primitives(rd, uint32_t(m), mesh);
  }
}

void instance_meshes(Reader& rd) {
  std::vector<bool> used(rd.meshes.size());
  size_t unskinned_blend = 0, skinless = 0;
  // A Scene mesh made from a primitive; with GPU instances, also the copies a writer without
  // instancing expands them to (ops: expand_instances).
  auto mesh_bytes = [](const Mesh& m) {
    u128 bytes = u128(m.triangles.size()) * 4;
    for (const VertexStream& s : m.streams) bytes += u128(s.data.size()) * 4;
    for (const MorphTarget& t : m.morph_targets) bytes += u128(t.positions.size() + t.normals.size() + t.tangents.size()) * 4;
    return bytes;
  };
  auto charge = [&](const Mesh& m, const std::string& path, size_t instances = 0) {
    rd.spend(mesh_bytes(m) * (instances ? instances : 1), path,
             instances ? fmt::format("{} GPU instances of the mesh", instances) : std::string("an instance of the mesh"));
  };
  // The copies of the nodes' instances, counted before any is made: many nodes instancing a large
  // mesh fail at the node that passes the budget without building the copies before it.
  {
    u128 planned = 0;
    for (size_t n = 0; n < rd.nodes.size(); ++n) {
      const Node& node = rd.nodes[n];
      if (!node.mesh || !node.active) continue;
      for (const Primitive& prim : rd.meshes[*node.mesh]) {
        const u128 bytes = mesh_bytes(prim.mesh);
        rd.check_temporary(bytes, fmt::format("nodes[{}]", n), "an instance of the mesh", planned);
        planned += bytes;
      }
    }
  }
  auto drop_blend = [](Mesh& m) {
    std::erase_if(m.streams, [](const VertexStream& s) {
      return s.attribute == Attribute::BlendIndices || s.attribute == Attribute::BlendWeights;
    });
  };
  rd.mesh_scene.assign(rd.meshes.size(), -1);
  for (size_t n = 0; n < rd.nodes.size(); ++n) {
    Node& node = rd.nodes[n];
    if (!node.mesh) continue;
    used[*node.mesh] = true;
    if (!node.active) continue;
    const std::string np = fmt::format("nodes[{}]", n);
    rd.part = fmt::format("{} (its instance of meshes[{}])", np, *node.mesh);
    const std::vector<Transform> instances = read_instances(rd, uint32_t(n));
    node.scene_mesh = int32_t(rd.scene.meshes.size());
    if (rd.mesh_scene[*node.mesh] < 0) rd.mesh_scene[*node.mesh] = node.scene_mesh;
    for (const Primitive& prim : rd.meshes[*node.mesh]) {
      charge(prim.mesh, np, instances.size());
      Mesh m = prim.mesh;
      const Skin* skin = node.skin && prim.has_blend ? &rd.skins[*node.skin] : nullptr;
      if (skin) {
        VertexStream* bi = m.find(Attribute::BlendIndices);
        VertexStream* bw = m.find(Attribute::BlendWeights);
        const uint32_t k = bi->components;
        if (!skin->rebind.empty()) rebind_vertices(m, skin->rebind, &skin->joints);
        // Skin-local joint indices -> Scene joints.
        for (size_t i = 0; i < bi->data.size(); ++i) {
          float j = bi->data[i];
          if (j >= 0 && j < float(skin->joints.size()) && j == std::floor(j)) {
            int32_t target = skin->joints[size_t(j)];
            bi->data[i] = float(std::max(target, 0));
            if (target < 0) bw->data[i] = 0;  // meshport_static: no influence
          } else if (bw->data[i] != 0) {
            rd.error(prim.joints_path, fmt::format("vertex {} names joint {}, but skins[{}] has {} joints (instanced "
                                                   "by {})",
                                                   i / k, j, *node.skin, skin->joints.size(), np));
          } else {
            bi->data[i] = 0;  // unweighted: any valid index
          }
        }
      } else {
        if (prim.has_blend) {
          drop_blend(m);
          ++unskinned_blend;
        } else if (node.skin) {
          ++skinless;
        }
        m.instances = instances;  // their transforms include the node's: its vertices stay as they are
        if (instances.empty() && node.world != mat_identity()) {
          const Mat3x4& w = node.world;
          const Mat3x4 nm = normal_matrix(w);
          const bool mirror = det3(w) < 0;
          for (VertexStream& s : m.streams) {
            const size_t nv = s.vertex_count();
            if (s.attribute == Attribute::Position) {
              for (size_t v = 0; v < nv; ++v) {
                float* p = &s.data[v * s.components];
                Vec3 q = mat_apply(w, {p[0], p[1], p[2]});
                p[0] = q[0], p[1] = q[1], p[2] = q[2];
              }
            } else if (s.attribute == Attribute::Normal || s.attribute == Attribute::Tangent) {
              const bool normal = s.attribute == Attribute::Normal;
              for (size_t v = 0; v < nv; ++v) {
                float* p = &s.data[v * s.components];
                Vec3 q = normalize(mat_apply_linear(normal ? nm : w, {p[0], p[1], p[2]}));
                p[0] = q[0], p[1] = q[1], p[2] = q[2];
                if (!normal && mirror) p[3] = -p[3];
              }
            }
          }
          const Mat3x4 dnm = delta_normal_matrix(nm);
          for (MorphTarget& t : m.morph_targets) {
            mat_apply_linear_all(w, t.positions);
            mat_apply_linear_all(dnm, t.normals);
            mat_apply_linear_all(w, t.tangents);
          }
          if (mirror) {
            Scene tmp;
            tmp.meshes.push_back(std::move(m));
            flip_winding(tmp);
            m = std::move(tmp.meshes.front());
          }
        }
        bind_to_joint(rd, uint32_t(n), m);  // under an (animated) joint: moves with it
      }
      rd.scene.meshes.push_back(std::move(m));
    }
  }
  // MSFT_lod level nodes (read_lod_nodes): primitive p of level node L is the level of primitive
  // p of its base node (of the base's first when the base has fewer).
  for (const auto& [n, level] : rd.lod_levels) {
    const Node& node = rd.nodes[n];
    const Node& base = rd.nodes[level.second];
    if (node.scene_mesh < 0 || base.scene_mesh < 0) continue;
    const size_t prims = rd.meshes[*node.mesh].size(), base_prims = rd.meshes[*base.mesh].size();
    for (size_t p = 0; p < prims; ++p) {
      Mesh& m = rd.scene.meshes[size_t(node.scene_mesh) + p];
      m.lod = level.first;
      m.lod_of = base.scene_mesh + int32_t(p < base_prims ? p : 0);
    }
  }
  size_t unused = 0;
  for (size_t m = 0; m < rd.meshes.size(); ++m) {
    if (used[m]) continue;
    ++unused;
    rd.mesh_scene[m] = int32_t(rd.scene.meshes.size());
    for (const Primitive& prim : rd.meshes[m]) {
      charge(prim.mesh, fmt::format("meshes[{}]", m));
      Mesh mesh = prim.mesh;
      if (prim.has_blend) drop_blend(mesh), ++unskinned_blend;
      rd.scene.meshes.push_back(std::move(mesh));
    }
  }
  if (unused) rd.warn(fmt::format("{} meshes are used by no node; they are read untransformed", unused));
  if (unskinned_blend)
    rd.warn(fmt::format("{} primitives have joints and weights but no skin to interpret them; they are dropped",
                        unskinned_blend));
  if (skinless)
    rd.warn(fmt::format("{} skinned nodes' primitives have no joints and weights; they are read as static meshes",
                        skinless));
}

}  // namespace meshport::gltf::read_impl
