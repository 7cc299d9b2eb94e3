// glTF reader: PIE polygon materials (gltf_pie_polygons.h). The primitives a level was split into
// by polygon are joined again into one mesh whose "pie.flags" / "pie.texanim" channels come from
// the materials, and the polygon materials give way to their level's material.
#include "formats/gltf/gltf_read.h"

#include "ops/mesh/face_channels.h"
#include "ops/mesh/mesh_parts.h"

#include <meshport/source/pie_mesh.h>

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace meshport::gltf::read_impl {

namespace {

// The polygon material of primitive `prim`, or null.
const PolygonMaterial* material_of(const Reader& rd, const json& prim) {
  const json* mat = field(prim, "material");
  const std::optional<uint64_t> i = mat ? as_uint(*mat) : std::nullopt;
  if (!i || *i >= rd.polygon_materials.size() || !rd.polygon_materials[*i]) return nullptr;
  return &*rd.polygon_materials[*i];
}

// Sets the mesh's polygon channels to `p` on every triangle.
void set_polygons(Mesh& m, const PiePolygon& p) {
  std::erase_if(m.face_channels, [](const FaceChannel& c) { return c.name.starts_with("pie."); });
  const std::vector<FaceChannel> channels = pie::polygon_channels(std::vector<PiePolygon>(m.triangles.size() / 3, p));
  m.face_channels.insert(m.face_channels.end(), channels.begin(), channels.end());
}

// Whether every triangle's kept polygon is `p`.
bool all_are(const Mesh& m, const PiePolygon& p) {
  const std::vector<PiePolygon> kept = pie::mesh_polygons(m);
  if (kept.empty() && !m.triangles.empty()) return false;
  return std::all_of(kept.begin(), kept.end(), [&](const PiePolygon& k) { return k == p; });
}

// The order that puts the joined triangles (primitive k's at [first[k], first[k + 1])) back in
// the order of `kept` (the mesh extras' polygons, one per triangle as first written): kept
// triangle t takes the next unused triangle of a primitive of its polygon. Empty when the counts
// do not agree.
std::vector<uint32_t> first_order(const std::vector<PiePolygon>& kept, const std::vector<PiePolygon>& polygon,
                                  const std::vector<uint32_t>& first) {
  if (kept.size() != first.back()) return {};
  // The primitives of each polygon, in order, and the one being taken from.
  struct Source {
    std::vector<size_t> prims;
    size_t at = 0;
  };
  std::map<std::array<uint32_t, 5>, Source> of;
  for (size_t k = 0; k < polygon.size(); ++k) of[polygon_key(polygon[k])].prims.push_back(k);
  std::vector<uint32_t> next(first.begin(), first.end() - 1), order;
  order.reserve(kept.size());
  for (const PiePolygon& p : kept) {
    auto it = of.find(polygon_key(p));
    if (it == of.end()) return {};
    Source& src = it->second;
    while (src.at < src.prims.size() && next[src.prims[src.at]] == first[src.prims[src.at] + 1]) ++src.at;
    if (src.at == src.prims.size()) return {};
    order.push_back(next[src.prims[src.at]]++);
  }
  return order;
}

}  // namespace

void read_polygon_materials(Reader& rd) {
  const json& mats = rd.top("materials");
  rd.polygon_materials.assign(mats.size(), std::nullopt);
  for (size_t i = 0; i < mats.size(); ++i) {
    const json* mp = meshport_extras(mats[i]);
    if (!mp) continue;
    const std::string path = fmt::format("materials[{}].extras.meshport", i);
    try {
      rd.polygon_materials[i] = polygon_material_of(*mp, path);
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; the material's PIE polygon is ignored", e.diagnostic().message));
    }
  }
}

bool polygon_mesh(const Reader& rd, const json& mesh) {
  const json* prims = field(mesh, "primitives");
  if (!prims || !prims->is_array() || prims->empty()) return false;
  const PolygonMaterial* first = nullptr;
  for (const json& prim : *prims) {
    const PolygonMaterial* p = material_of(rd, prim);
    if (!p || (first && p->base != first->base)) return false;
    first = p;
  }
  return true;
}

void join_polygon_primitives(Reader& rd, uint32_t m, const json& mesh) {
  std::vector<Primitive>& prims = rd.meshes[m];
  const json& jprims = mesh["primitives"];
  std::vector<PiePolygon> polygon;
  for (const json& prim : jprims) polygon.push_back(material_of(rd, prim)->polygon);
  const json* mp = meshport_extras(mesh);
  const std::string path = fmt::format("meshes[{}]", m);
  if (prims.size() == 1) {
    // The mesh extras' channels were restored when they fit; they must agree with the material.
    if (!all_are(prims[0].mesh, polygon[0])) set_polygons(prims[0].mesh, polygon[0]);
    return;
  }
  for (size_t k = 1; k < prims.size(); ++k)
    if (!ops::same_layout(prims[0].mesh, prims[k].mesh)) {
      rd.warn(fmt::format("{}: its primitives use the PIE polygon materials of '{}' but have different vertex "
                          "arrays: read as separate meshes",
                          path, text::clip(material_of(rd, jprims[0])->base)));
      return;
    }
  // Primitives of the same vertex arrays (meshport's own) were read whole: their triangles are
  // joined on the first's vertices; others (a tool's) append their vertices too.
  Mesh joined = std::move(prims[0].mesh);
  set_polygons(joined, polygon[0]);
  std::vector<uint32_t> first = {0, uint32_t(joined.triangles.size() / 3)};
  for (size_t k = 1; k < prims.size(); ++k) {
    Mesh& part = prims[k].mesh;
    set_polygons(part, polygon[k]);
    const json* a = field(jprims[0], "attributes");
    const json* b = field(jprims[k], "attributes");
    if (a && b && *a == *b && part.vertex_count() == joined.vertex_count())
      ops::append_triangles(joined, part, 0);
    else
      ops::append_mesh(joined, part);
    first.push_back(uint32_t(joined.triangles.size() / 3));
  }
  joined.name = rd.get_string(mesh, "name", path);
  // The mesh extras: the first order of the triangles, and the data that fits.
  if (mp) {
    Mesh kept = joined;
    kept.face_channels.clear();
    try {
      restore_format_data(rd, kept, *mp, path, true);
      const std::vector<uint32_t> order = first_order(pie::mesh_polygons(kept), polygon, first);
      if (!order.empty()) ops::select_triangles(joined, order);
      for (FaceChannel& c : kept.face_channels)
        if (!c.name.starts_with("pie.") && c.data.size() == joined.triangles.size() / 3 * c.components) {
          if (!order.empty()) {
            Mesh one;
            one.triangles.assign(joined.triangles.size(), 0);
            one.face_channels = {c};
            ops::select_face_channels(one, order);
            c = one.face_channels[0];
          }
          joined.face_channels.push_back(std::move(c));
        }
      for (VertexStream& s : kept.streams)
        if (is_format_stream(s) && s.vertex_count() == joined.vertex_count()) joined.streams.push_back(std::move(s));
    } catch (const Error& e) {
      rd.warn(fmt::format("{}; the mesh's format streams are ignored", e.diagnostic().message));
    }
  }
  Primitive one = std::move(prims[0]);
  one.mesh = std::move(joined);
  for (size_t k = 1; k < prims.size(); ++k) one.has_blend = one.has_blend && prims[k].has_blend;
  prims.assign(1, std::move(one));
}

void resolve_polygon_materials(Reader& rd) {
  std::vector<Material>& mats = rd.scene.materials;
  if (rd.polygon_materials.size() != mats.size()) return;
  // Each polygon material's level material: the first material named after its base that is not
  // another polygon's copy, else the first copy of that base, which becomes it (renamed).
  std::unordered_map<std::string, int32_t> by_name;
  for (size_t j = 0; j < mats.size(); ++j) {
    const std::optional<PolygonMaterial>& q = rd.polygon_materials[j];
    if (!q || is_plain(q->polygon)) by_name.emplace(mats[j].name, int32_t(j));
  }
  std::vector<int32_t> level(mats.size(), -1);
  for (size_t i = 0; i < mats.size(); ++i) {
    const std::optional<PolygonMaterial>& p = rd.polygon_materials[i];
    if (!p) continue;
    auto [it, fresh] = by_name.emplace(p->base, int32_t(i));
    if (fresh) mats[i].name = p->base;
    level[i] = it->second;
  }
  // The meshes use the level materials; the copies no mesh uses any more go.
  std::vector<bool> keep(mats.size(), true);
  for (size_t i = 0; i < mats.size(); ++i) keep[i] = level[i] < 0 || level[i] == int32_t(i);
  std::vector<int32_t> index(mats.size(), -1);
  std::vector<Material> kept;
  for (size_t i = 0; i < mats.size(); ++i)
    if (keep[i]) index[i] = int32_t(kept.size()), kept.push_back(std::move(mats[i]));
  for (Mesh& m : rd.scene.meshes) {
    if (m.material < 0 || size_t(m.material) >= level.size()) continue;
    const size_t i = size_t(m.material);
    m.material = index[level[i] >= 0 ? size_t(level[i]) : i];
  }
  mats = std::move(kept);
}

}  // namespace meshport::gltf::read_impl
