// meshport diff (include/meshport/diff.h, docs/diff.md).
#include <meshport/diff.h>
#include <meshport/meshport.h>

#include "core/math.h"
#include "ops/animation/skinning.h"
#include "ops/mesh/bounds.h"
#include "summary/diff_members.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace meshport {

namespace {

// ---- Reporting --------------------------------------------------------------------------------

struct Pairings;

// A Scene with the normals its meshes imply where they have none (generate_normals: by the
// meshes' smoothing rules, as convert would make them; flat for a PIE level without NORMALS),
// made when first needed.
struct Implied {
  const Scene* source = nullptr;
  std::optional<Scene> scene;
  bool tried = false;
  const Scene* get() {
    if (!tried) {
      tried = true;
      try {
        Scene s = *source;
        generate_normals(s);
        scene = std::move(s);
      } catch (const std::exception&) {  // an inconsistent mesh: no normals are implied
      }
    }
    return scene ? &*scene : nullptr;
  }
};

struct Ctx {
  const struct Pairings* pairs = nullptr;
  Implied* implied_a = nullptr;
  Implied* implied_b = nullptr;
  float size = 0;     // the larger bounding-box diagonal
  float pos_tol = 0;  // positions and translations
  float tol = 0;      // everything else
  std::vector<Difference>* out = nullptr;
  std::vector<Difference>* notes = nullptr;  // may be null
  void add(std::string path, std::string a, std::string b, std::string message = {}) const {
    out->push_back({std::move(path), std::move(a), std::move(b), std::move(message)});
  }
  void note(std::string path, std::string a, std::string b, std::string message = {}) const {
    if (notes) notes->push_back({std::move(path), std::move(a), std::move(b), std::move(message)});
  }
};

constexpr const char* kMissing = "missing";
constexpr const char* kPresent = "present";

std::string num(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, float(v) + 0.0f);  // -0 prints as 0
  return std::string(buf, r.ptr);
}

template <size_t N>
std::string vec(const std::array<float, N>& v) {
  std::string s = "(";
  for (size_t i = 0; i < N; ++i) s += (i ? " " : "") + num(v[i]);
  return s + ")";
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// "meshes[body]", or "meshes[#3]" for an unnamed item.
std::string item(const char* list, const std::string& name, size_t index) {
  return fmt::format("{}[{}]", list, name.empty() ? fmt::format("#{}", index) : name);
}

bool near_value(float x, float y, float tol) {
  return x == y || std::fabs(x - y) <= tol || (std::isnan(x) && std::isnan(y));
}

template <size_t N>
bool near_value(const std::array<float, N>& x, const std::array<float, N>& y, float tol) {
  for (size_t i = 0; i < N; ++i)
    if (!near_value(x[i], y[i], tol)) return false;
  return true;
}

bool near_point(Vec3 x, Vec3 y, float tol) { return near_value(x, y, 0.0f) || length(x - y) <= tol; }

// Quaternions q and -q are the same rotation.
bool near_rotation(Quat x, Quat y, float tol) {
  x = quat_normalize(x);
  y = quat_normalize(y);
  return near_value(x, y, tol) || near_value(x, Quat{-y[0], -y[1], -y[2], -y[3]}, tol);
}

// ---- Pairing items by name --------------------------------------------------------------------

struct Pairing {
  std::vector<std::pair<size_t, size_t>> pairs;
  std::vector<size_t> only_a, only_b;
};

// The k-th item named n in `a` pairs with the k-th item named n in `b`. With `skip_empty`,
// unnamed items are left unpaired.
Pairing pair_by_name(const std::vector<std::string>& a, const std::vector<std::string>& b, bool skip_empty = false) {
  std::map<std::string, std::vector<size_t>> in_b;
  for (size_t i = b.size(); i-- > 0;)
    if (!(skip_empty && b[i].empty())) in_b[b[i]].push_back(i);  // reversed: take from the back
  Pairing p;
  std::vector<bool> used(b.size(), false);
  for (size_t i = 0; i < a.size(); ++i) {
    auto it = in_b.find(a[i]);
    if ((skip_empty && a[i].empty()) || it == in_b.end() || it->second.empty()) {
      p.only_a.push_back(i);
      continue;
    }
    p.pairs.push_back({i, it->second.back()});
    used[it->second.back()] = true;
    it->second.pop_back();
  }
  for (size_t i = 0; i < b.size(); ++i)
    if (!used[i]) p.only_b.push_back(i);
  return p;
}

template <class T>
std::vector<std::string> names(const std::vector<T>& items) {
  std::vector<std::string> n;
  for (const T& x : items) n.push_back(x.name);
  return n;
}

void report_unpaired(const Ctx& c, const char* list, const Pairing& p, const std::vector<std::string>& a,
                     const std::vector<std::string>& b) {
  for (size_t i : p.only_a) c.add(item(list, a[i], i), kPresent, kMissing);
  for (size_t i : p.only_b) c.add(item(list, b[i], i), kMissing, kPresent);
}

// Names a reader made up (Mesh::name_made_up: from the file's name, a number) name nothing
// the file holds: such items pair as unnamed ones do.
template <class T>
std::vector<std::string> pairing_names(const std::vector<T>& items) {
  std::vector<std::string> n;
  for (const T& x : items) n.push_back(x.name_made_up ? std::string() : x.name);
  return n;
}

template <class T>
std::vector<bool> made_up(const std::vector<T>& items) {
  std::vector<bool> m;
  for (const T& x : items) m.push_back(x.name_made_up);
  return m;
}

// Items left over whose flag is set pair in order: with each other first, then with the other
// side's remaining items.
void pair_in_order(Pairing& p, const std::vector<bool>& fa, const std::vector<bool>& fb) {
  std::vector<size_t> ea, eb, ra, rb;
  for (size_t i : p.only_a) (fa[i] ? ea : ra).push_back(i);
  for (size_t j : p.only_b) (fb[j] ? eb : rb).push_back(j);
  auto zip = [&](std::vector<size_t>& x, std::vector<size_t>& y, bool a_first) {
    const size_t n = std::min(x.size(), y.size());
    for (size_t k = 0; k < n; ++k) p.pairs.push_back(a_first ? std::pair{x[k], y[k]} : std::pair{y[k], x[k]});
    x.erase(x.begin(), x.begin() + std::ptrdiff_t(n));
    y.erase(y.begin(), y.begin() + std::ptrdiff_t(n));
  };
  zip(ea, eb, true);
  zip(ea, rb, true);
  zip(eb, ra, false);
  p.only_a = ra;
  p.only_a.insert(p.only_a.end(), ea.begin(), ea.end());
  p.only_b = rb;
  p.only_b.insert(p.only_b.end(), eb.begin(), eb.end());
  std::sort(p.only_a.begin(), p.only_a.end());
  std::sort(p.only_b.begin(), p.only_b.end());
  std::sort(p.pairs.begin(), p.pairs.end());
}

// Items pair by name; unnamed items and items with made-up names pair in order.
template <class T>
Pairing pair_items(const std::vector<T>& a, const std::vector<T>& b) {
  const std::vector<std::string> na = pairing_names(a), nb = pairing_names(b);
  Pairing p = pair_by_name(na, nb, true);
  std::vector<bool> fa, fb;
  for (const std::string& n : na) fa.push_back(n.empty());
  for (const std::string& n : nb) fb.push_back(n.empty());
  pair_in_order(p, fa, fb);
  return p;
}

// For each item of A, the item of B it pairs with (-1: none).
std::vector<int32_t> b_of_a(const Pairing& p, size_t na) {
  std::vector<int32_t> m(na, -1);
  for (auto [i, j] : p.pairs) m[i] = int32_t(j);
  return m;
}

// Whether reference x (an index into A's list, -1 for none) and y (into B's) name paired items.
bool same_ref(const std::vector<int32_t>& map, size_t nb, int32_t x, int32_t y) {
  const bool hx = x >= 0 && size_t(x) < map.size(), hy = y >= 0 && size_t(y) < nb;
  return hx ? hy && map[size_t(x)] == y : !hy;
}

// The pairings of the Scenes' lists that items refer to by index.
struct Pairings {
  std::vector<int32_t> meshes, materials, joints;
};

// ---- Mesh geometry ----------------------------------------------------------------------------

struct DiffCorner {
  Vec3 p{0, 0, 0};
  std::array<float, 2> uv{0, 0};
  Vec3 n{0, 0, 0};  // unit length (or zero)
  uint32_t vertex = 0;
};

// A mesh as items of `k` corners: its triangles (k = 3), or its vertices (k = 1) when it has
// no triangles. Triangles with an index out of range are left out.
struct Geometry {
  const Mesh* mesh = nullptr;
  bool uv = false, normal = false;
  uint32_t k = 3;
  std::vector<DiffCorner> corners;
  size_t items() const { return corners.size() / k; }
};

DiffCorner corner_of(const VertexStream* pos, const VertexStream* uv, const VertexStream* nrm, uint32_t v) {
  DiffCorner c;
  c.vertex = v;
  c.p = {pos->get(v, 0), pos->get(v, 1), pos->get(v, 2)};
  if (uv) c.uv = {uv->get(v, 0), uv->get(v, 1)};
  if (nrm) c.n = normalize(Vec3{nrm->get(v, 0), nrm->get(v, 1), nrm->get(v, 2)});
  return c;
}

Geometry geometry(const Mesh& m) {
  Geometry g;
  g.mesh = &m;
  const VertexStream* pos = m.find(Attribute::Position);
  const size_t n = pos ? pos->vertex_count() : 0;
  auto covering = [&](Attribute a) {
    const VertexStream* s = m.find(a);
    return s && s->vertex_count() == n ? s : nullptr;
  };
  const VertexStream* uv = covering(Attribute::Texcoord);
  const VertexStream* nrm = covering(Attribute::Normal);
  g.uv = uv != nullptr;
  g.normal = nrm != nullptr;
  if (n == 0) return g;
  if (m.triangles.empty()) {
    g.k = 1;
    for (uint32_t v = 0; v < n; ++v) g.corners.push_back(corner_of(pos, uv, nrm, v));
    return g;
  }
  // Lines and points (Mesh::topology): items of 2 and 1 corners.
  const uint32_t k = topology_size(m.topology);
  g.k = k;
  for (size_t t = 0; t + k <= m.triangles.size(); t += k) {
    const uint32_t* i = &m.triangles[t];
    if (std::any_of(i, i + k, [&](uint32_t v) { return v >= n; })) continue;
    for (uint32_t c = 0; c < k; ++c) g.corners.push_back(corner_of(pos, uv, nrm, i[c]));
  }
  return g;
}

struct Tolerances {
  float pos = 0, other = 0;
  float cell = 0;  // grid cell of the centroid hash: at least twice pos
  bool uv = true, normal = true;  // compare them (both meshes have them)
};

bool corners_near(const DiffCorner& x, const DiffCorner& y, const Tolerances& t) {
  return near_point(x.p, y.p, t.pos) && (!t.uv || near_value(x.uv, y.uv, t.other)) &&
         (!t.normal || near_value(x.n, y.n, t.other));
}

// Which item of b each item of a matches (-1: none), and the rotation r such that corner c of
// the a item is corner (c + r) % k of the b item. Items are matched greedily, each b item once,
// through a hash of their centroids on a grid of cells at least as large as the tolerance.
struct Match {
  std::vector<int64_t> b_of_a;
  std::vector<uint8_t> rotation;
  std::vector<bool> b_used;
  size_t matched = 0;
};

using Cell = std::array<int64_t, 3>;
struct CellHash {
  size_t operator()(const Cell& c) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : c) h = (h ^ uint64_t(v)) * 1099511628211ull;
    return size_t(h);
  }
};

Vec3 centroid(const Geometry& g, size_t i) {
  Vec3 s{0, 0, 0};
  for (uint32_t c = 0; c < g.k; ++c) s = s + g.corners[i * g.k + c].p;
  return s * (1.0f / float(g.k));
}

Cell cell_of(Vec3 p, double size) {
  Cell c{};
  for (int i = 0; i < 3; ++i) {
    double v = std::isfinite(p[i]) ? std::floor(double(p[i]) / size) : 0.0;
    c[i] = int64_t(std::clamp(v, -4e18, 4e18));
  }
  return c;
}

bool items_match(const Geometry& a, size_t i, const Geometry& b, size_t j, uint32_t r, const Tolerances& t) {
  for (uint32_t c = 0; c < a.k; ++c)
    if (!corners_near(a.corners[i * a.k + c], b.corners[j * b.k + (c + r) % b.k], t)) return false;
  return true;
}

using Grid = std::unordered_map<Cell, std::vector<uint32_t>, CellHash>;

// The largest distance between corresponding corners of item i of a and item j of b (rotation r).
float item_distance(const Geometry& a, size_t i, const Geometry& b, size_t j, uint32_t r) {
  float d = 0;
  for (uint32_t c = 0; c < a.k; ++c) {
    const float e = length(a.corners[i * a.k + c].p - b.corners[j * b.k + (c + r) % b.k].p);
    d = std::max(d, std::isnan(e) ? 0.0f : e);
  }
  return d;
}

// Records the unused item of b near item i of a that matches it (the closest one, so that
// near-duplicate items do not take each other's partners); false when none does.
bool find_match(const Geometry& a, size_t i, const Geometry& b, const Grid& grid, double cell, const Tolerances& t,
                Match& m) {
  const Cell c = cell_of(centroid(a, i), cell);
  int64_t best = -1;
  uint32_t best_r = 0;
  float best_d = INFINITY;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz) {
        auto it = grid.find({c[0] + dx, c[1] + dy, c[2] + dz});
        if (it == grid.end()) continue;
        for (uint32_t j : it->second)
          for (uint32_t r = 0; r < a.k && !m.b_used[j]; ++r) {
            if (!items_match(a, i, b, j, r, t)) continue;
            const float d = item_distance(a, i, b, j, r);
            if (best < 0 || d < best_d) best = j, best_r = r, best_d = d;
            if (d == 0) goto found;  // none is closer
          }
      }
found:
  if (best < 0) return false;
  m.b_of_a[i] = best;
  m.rotation[i] = uint8_t(best_r);
  m.b_used[size_t(best)] = true;
  ++m.matched;
  return true;
}

// Items are matched in two passes: equal items first (equality is transitive, so a model
// matches itself completely however many near-duplicates it holds), then the rest within the
// tolerances, each to its closest unused partner.
Match match_items(const Geometry& a, const Geometry& b, const Tolerances& t) {
  Match m;
  m.b_of_a.assign(a.items(), -1);
  m.rotation.assign(a.items(), 0);
  m.b_used.assign(b.items(), false);
  if (a.k != b.k) return m;
  // Centroids of matching items are within t.pos of each other (plus rounding).
  const double cell = std::max(double(t.cell), 1e-30);
  Grid grid;
  for (size_t j = 0; j < b.items(); ++j) grid[cell_of(centroid(b, j), cell)].push_back(uint32_t(j));
  Tolerances exact = t;
  exact.pos = exact.other = 0;
  for (size_t i = 0; i < a.items(); ++i) find_match(a, i, b, grid, cell, exact, m);
  for (size_t i = 0; i < a.items(); ++i)
    if (m.b_of_a[i] < 0) find_match(a, i, b, grid, cell, t, m);
  return m;
}

Tolerances tolerances(const Ctx& c, const Geometry& a, const Geometry& b) {
  // Cells no smaller than a millionth of the model keep a zero tolerance from making every
  // coordinate its own (clamped) cell.
  return {c.pos_tol, c.tol, std::max(2 * c.pos_tol, 1e-6f * c.size), a.uv && b.uv, a.normal && b.normal};
}

// Pairs of corresponding vertices (a vertex, b vertex) through matched items, without repeats.
std::vector<std::pair<uint32_t, uint32_t>> vertex_pairs(const Geometry& a, const Geometry& b, const Match& m) {
  std::vector<std::pair<uint32_t, uint32_t>> v;
  for (size_t i = 0; i < m.b_of_a.size(); ++i) {
    if (m.b_of_a[i] < 0) continue;
    const size_t j = size_t(m.b_of_a[i]);
    for (uint32_t c = 0; c < a.k; ++c)
      v.push_back({a.corners[i * a.k + c].vertex, b.corners[j * b.k + (c + m.rotation[i]) % b.k].vertex});
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// ---- Meshes -----------------------------------------------------------------------------------

struct MeshPair {
  size_t a = 0, b = 0;
  Geometry ga, gb;
  Match match;
  std::vector<std::pair<uint32_t, uint32_t>> vertices;
  std::string path;  // "meshes[body]"
};

// Unpaired meshes pair by geometry when most of their items match.
void pair_by_geometry(const Ctx& c, const Scene& a, const Scene& b, Pairing& p) {
  if (p.only_a.empty() || p.only_b.empty() || p.only_a.size() * p.only_b.size() > 4096) return;
  std::vector<Geometry> gbs;
  for (size_t j : p.only_b) gbs.push_back(geometry(b.meshes[j]));
  std::vector<size_t> rest_a;
  for (size_t i : p.only_a) {
    const Geometry ga = geometry(a.meshes[i]);
    // The mesh that matches the largest share of the larger mesh's items (not merely the most
    // items: a mesh containing this one's triangles and more is a worse partner than its equal).
    size_t best = 0, best_matched = 0;
    double best_share = 0;
    for (size_t k = 0; k < p.only_b.size(); ++k) {
      const Geometry& gb = gbs[k];
      const size_t most = std::max(ga.items(), gb.items());
      const size_t matched = match_items(ga, gb, tolerances(c, ga, gb)).matched;
      const double share = most > 0 ? double(matched) / double(most) : 0.0;
      if (matched * 2 > most && share > best_share) best = k, best_matched = matched, best_share = share;
    }
    if (best_matched == 0) {
      rest_a.push_back(i);
      continue;
    }
    p.pairs.push_back({i, p.only_b[best]});
    p.only_b.erase(p.only_b.begin() + std::ptrdiff_t(best));
    gbs.erase(gbs.begin() + std::ptrdiff_t(best));
  }
  p.only_a = rest_a;
}

std::string material_name(const Scene& s, const Mesh& m) {
  return m.material >= 0 && size_t(m.material) < s.materials.size() ? s.materials[size_t(m.material)].name : "";
}

// The name of mesh `i`, "" when there is none such.
std::string mesh_name_of(const Scene& s, int32_t i) {
  return i >= 0 && size_t(i) < s.meshes.size() ? s.meshes[size_t(i)].name : "";
}

std::string corners_text(const Geometry& g, size_t i) {
  std::string s;
  for (uint32_t c = 0; c < g.k; ++c) s += (c ? " " : "") + vec(g.corners[i * g.k + c].p);
  return s;
}

std::string unmatched_text(const Geometry& g, const std::vector<bool>& matched, const char* side, const char* other) {
  size_t n = 0, first = 0;
  for (size_t i = 0; i < matched.size(); ++i)
    if (!matched[i] && n++ == 0) first = i;
  if (n == 0) return {};
  return fmt::format("{} of {}'s have no match in {} (first at {})", n, side, other, corners_text(g, first));
}

void compare_items(const Ctx& c, const MeshPair& mp) {
  const size_t na = mp.ga.items(), nb = mp.gb.items();
  if (mp.match.matched == na && mp.match.matched == nb) return;
  const char* what = mp.ga.k == 3 && mp.gb.k == 3 ? "triangles" : mp.ga.k == 1 && mp.gb.k == 1 ? "points" : "items";
  std::vector<bool> a_matched(na);
  for (size_t i = 0; i < na; ++i) a_matched[i] = mp.match.b_of_a[i] >= 0;
  std::string ma = unmatched_text(mp.ga, a_matched, "A", "B"), mb = unmatched_text(mp.gb, mp.match.b_used, "B", "A");
  std::string message = ma.empty() ? mb : mb.empty() ? ma : ma + "; " + mb;
  c.add(mp.path + "." + what, fmt::format("{} {}", na, what), fmt::format("{} {}", nb, what), message);
}

void compare_presence(const Ctx& c, const std::string& path, bool a, bool b) {
  if (a != b) c.add(path, a ? kPresent : kMissing, b ? kPresent : kMissing);
}

// Morph targets, paired by name: displaced positions of corresponding vertices.
void compare_morphs(const Ctx& c, const MeshPair& mp) {
  const Mesh& a = *mp.ga.mesh;
  const Mesh& b = *mp.gb.mesh;
  Pairing p = pair_by_name(names(a.morph_targets), names(b.morph_targets));
  report_unpaired(c, (mp.path + ".morph_targets").c_str(), p, names(a.morph_targets), names(b.morph_targets));
  for (auto [i, j] : p.pairs) {
    const MorphTarget& ta = a.morph_targets[i];
    const MorphTarget& tb = b.morph_targets[j];
    for (auto [va, vb] : mp.vertices) {
      if (size_t(va) * 3 + 2 >= ta.positions.size() || size_t(vb) * 3 + 2 >= tb.positions.size()) continue;
      const Vec3 da{ta.positions[va * 3], ta.positions[va * 3 + 1], ta.positions[va * 3 + 2]};
      const Vec3 db{tb.positions[vb * 3], tb.positions[vb * 3 + 1], tb.positions[vb * 3 + 2]};
      if (near_point(da, db, c.pos_tol)) continue;
      const VertexStream* pos = a.find(Attribute::Position);
      const Vec3 at{pos->get(va, 0), pos->get(va, 1), pos->get(va, 2)};
      c.add(item((mp.path + ".morph_targets").c_str(), ta.name, i) + ".positions", vec(da), vec(db),
            fmt::format("displacement of the vertex at {}", vec(at)));
      break;
    }
  }
}

// Face channels, paired by name: the values of matched triangles.
void compare_face_channels(const Ctx& c, const MeshPair& mp) {
  const Mesh& a = *mp.ga.mesh;
  const Mesh& b = *mp.gb.mesh;
  const std::string list = mp.path + ".face_channels";
  Pairing p = pair_by_name(names(a.face_channels), names(b.face_channels));
  report_unpaired(c, list.c_str(), p, names(a.face_channels), names(b.face_channels));
  if (mp.ga.k != 3 || mp.ga.items() != a.triangles.size() / 3 || mp.gb.items() != b.triangles.size() / 3) return;
  for (auto [i, j] : p.pairs) {
    const FaceChannel& fa = a.face_channels[i];
    const FaceChannel& fb = b.face_channels[j];
    const std::string path = item(list.c_str(), fa.name, i);
    if (fa.components != fb.components) {
      c.add(path + ".components", std::to_string(fa.components), std::to_string(fb.components));
      continue;
    }
    size_t differing = 0, first = 0;
    for (size_t t = 0; t < mp.match.b_of_a.size(); ++t) {
      const int64_t u = mp.match.b_of_a[t];
      if (u < 0 || (t + 1) * fa.components > fa.data.size() || size_t(u + 1) * fb.components > fb.data.size()) continue;
      if (!std::equal(fa.data.begin() + std::ptrdiff_t(t * fa.components),
                      fa.data.begin() + std::ptrdiff_t((t + 1) * fa.components),
                      fb.data.begin() + std::ptrdiff_t(size_t(u) * fb.components)) &&
          differing++ == 0)
        first = t;
    }
    if (differing)
      c.add(path, fmt::format("{:#x}", fa.data[first * fa.components]),
            fmt::format("{:#x}", fb.data[size_t(mp.match.b_of_a[first]) * fb.components]),
            fmt::format("{} matched triangles differ (first at {})", differing, corners_text(mp.ga, first)));
  }
}

void compare_transform(const Ctx& c, const std::string& path, const Transform& x, const Transform& y);

// Normals on one side only: the other side's mesh is compared with the normals it implies
// (Implied). When they agree it is a note (derived data only), else a difference saying how
// many triangles' normals differ.
void compare_normals(const Ctx& c, const MeshPair& mp) {
  if (mp.ga.normal == mp.gb.normal) return;
  const bool a_lacks = !mp.ga.normal;
  const Scene* implied = (a_lacks ? c.implied_a : c.implied_b)->get();
  const std::string path = mp.path + ".normals";
  const char* va = a_lacks ? kMissing : kPresent;
  const char* vb = a_lacks ? kPresent : kMissing;
  const Geometry gi = implied ? geometry(implied->meshes[a_lacks ? mp.a : mp.b]) : Geometry{};
  if (!gi.normal) {
    c.add(path, va, vb);
    return;
  }
  const Geometry& other = a_lacks ? mp.gb : mp.ga;
  const Match m = match_items(gi, other, tolerances(c, gi, other));
  const char* side = a_lacks ? "A" : "B";
  if (m.matched == gi.items() && m.matched == other.items()) {
    c.note(path, va, vb, fmt::format("the normals {} implies (generated by its smoothing rules, as convert makes them) agree", side));
    return;
  }
  // Triangles that match by position but not with the implied normals.
  Tolerances no_normals = tolerances(c, gi, other);
  no_normals.normal = false;
  const size_t by_position = match_items(gi, other, no_normals).matched;
  c.add(path, va, vb,
        fmt::format("the normals {} implies differ at {} of {} triangles", side,
                    by_position > m.matched ? by_position - m.matched : 0, gi.items()));
}

void compare_mesh(const Ctx& c, const Scene& a, const Scene& b, MeshPair& mp) {
  const Mesh& ma = a.meshes[mp.a];
  const Mesh& mb = b.meshes[mp.b];
  if (ma.name != mb.name && !ma.name_made_up && !mb.name_made_up)
    c.add(mp.path + ".name", quoted(ma.name), quoted(mb.name), "paired by geometry");
  if (!same_ref(c.pairs->materials, b.materials.size(), ma.material, mb.material))
    c.add(mp.path + ".material", quoted(material_name(a, ma)), quoted(material_name(b, mb)));
  compare_presence(c, mp.path + ".texcoords", mp.ga.uv, mp.gb.uv);
  compare_normals(c, mp);
  compare_items(c, mp);
  compare_morphs(c, mp);
  compare_face_channels(c, mp);
  static const char* topology[] = {"triangles", "lines", "points"};
  if (ma.topology != mb.topology)
    c.add(mp.path + ".topology", topology[int(ma.topology)], topology[int(mb.topology)]);
  if (ma.lod != mb.lod) c.add(mp.path + ".lod", fmt::format("{}", ma.lod), fmt::format("{}", mb.lod));
  if (!same_ref(c.pairs->meshes, b.meshes.size(), ma.lod ? ma.lod_of : -1, mb.lod ? mb.lod_of : -1)) {
    const std::string of_a = ma.lod ? mesh_name_of(a, ma.lod_of) : "", of_b = mb.lod ? mesh_name_of(b, mb.lod_of) : "";
    c.add(mp.path + ".lod_of", quoted(of_a), quoted(of_b));
  }
  if (ma.instances.size() != mb.instances.size())
    c.add(mp.path + ".instances", fmt::format("{}", ma.instances.size()), fmt::format("{}", mb.instances.size()));
  else
    for (size_t k = 0; k < ma.instances.size(); ++k)
      compare_transform(c, fmt::format("{}.instances[{}]", mp.path, k), ma.instances[k], mb.instances[k]);
}

// Meshes pair by name, then by geometry, then (those with made-up names) in order.
Pairing pair_meshes(const Ctx& c, const Scene& a, const Scene& b) {
  Pairing p = pair_by_name(pairing_names(a.meshes), pairing_names(b.meshes), true);
  pair_by_geometry(c, a, b, p);
  pair_in_order(p, made_up(a.meshes), made_up(b.meshes));
  return p;
}

std::vector<MeshPair> compare_meshes(const Ctx& c, const Scene& a, const Scene& b, const Pairing& p) {
  report_unpaired(c, "meshes", p, names(a.meshes), names(b.meshes));
  std::vector<MeshPair> out;
  for (auto [i, j] : p.pairs) {
    MeshPair mp;
    mp.a = i;
    mp.b = j;
    mp.path = item("meshes", a.meshes[i].name, i);
    mp.ga = geometry(a.meshes[i]);
    mp.gb = geometry(b.meshes[j]);
    mp.match = match_items(mp.ga, mp.gb, tolerances(c, mp.ga, mp.gb));
    mp.vertices = vertex_pairs(mp.ga, mp.gb, mp.match);
    compare_mesh(c, a, b, mp);
    out.push_back(std::move(mp));
  }
  return out;
}

// ---- Materials, skeleton, attachments ---------------------------------------------------------

void compare_materials(const Ctx& c, const Scene& a, const Scene& b, const Pairing& p) {
  report_unpaired(c, "materials", p, names(a.materials), names(b.materials));
  for (auto [i, j] : p.pairs) {
    const Material& x = a.materials[i];
    const Material& y = b.materials[j];
    const std::string path = item("materials", x.name, i);
    if (!near_value(x.base_color, y.base_color, c.tol)) c.add(path + ".base_color", vec(x.base_color), vec(y.base_color));
    auto text = [&](const char* field, const std::string& u, const std::string& v) {
      if (u != v) c.add(path + "." + field, quoted(u), quoted(v));
    };
    text("base_color_texture", x.base_color_texture, y.base_color_texture);
    text("normal_texture", x.normal_texture, y.normal_texture);
    text("specular_texture", x.specular_texture, y.specular_texture);
    text("team_colour_texture", x.team_colour_texture, y.team_colour_texture);
    // Each slot's texture coordinate set and transform, as one vector: set, offset, rotation,
    // scale, set override.
    auto mapping = [&](const char* field, uint32_t xs, const TextureTransform& xt, uint32_t ys,
                       const TextureTransform& yt) {
      auto v = [](uint32_t s, const TextureTransform& t) {
        return std::array<float, 7>{float(s), t.offset[0], t.offset[1], t.rotation, t.scale[0], t.scale[1],
                                    float(t.texcoord)};
      };
      if (xs != ys || xt.texcoord != yt.texcoord || !near_value(v(xs, xt), v(ys, yt), c.tol))
        c.add(path + "." + field, vec(v(xs, xt)), vec(v(ys, yt)));
    };
    mapping("base_color_uv", x.base_color_texcoord, x.base_color_transform, y.base_color_texcoord,
            y.base_color_transform);
    mapping("normal_uv", x.normal_texcoord, x.normal_transform, y.normal_texcoord, y.normal_transform);
    mapping("specular_uv", x.specular_texcoord, x.specular_transform, y.specular_texcoord, y.specular_transform);
    if (!near_value(x.emissive, y.emissive, c.tol)) c.add(path + ".emissive", vec(x.emissive), vec(y.emissive));
    // Alpha: the mode, the cut-off of a Mask material, the blend of a Blend one.
    auto alpha = [](const Material& m) {
      if (m.alpha_mode == AlphaMode::Mask) return fmt::format("MASK {}", m.alpha_cutoff);
      if (m.alpha_mode == AlphaMode::Blend) return fmt::format("BLEND {}", blend_op_name(m.blend));
      return std::string(alpha_mode_name(m.alpha_mode));
    };
    if (alpha(x) != alpha(y)) c.add(path + ".alpha", alpha(x), alpha(y));
    if (!near_value(std::array<float, 2>{x.metallic, x.roughness}, std::array<float, 2>{y.metallic, y.roughness}, c.tol))
      c.add(path + ".metallic_roughness", vec(std::array<float, 2>{x.metallic, x.roughness}),
            vec(std::array<float, 2>{y.metallic, y.roughness}));
  }
}

std::string joint_name(const Scene& s, int32_t j) {
  return j >= 0 && size_t(j) < s.joints.size() ? quoted(s.joints[size_t(j)].name) : std::string("none");
}
std::string mesh_name(const Scene& s, int32_t m) {
  return m >= 0 && size_t(m) < s.meshes.size() ? quoted(s.meshes[size_t(m)].name) : std::string("none");
}

void compare_transform(const Ctx& c, const std::string& path, const Transform& x, const Transform& y) {
  if (!near_point(x.translation, y.translation, c.pos_tol))
    c.add(path + ".translation", vec(x.translation), vec(y.translation));
  if (!near_rotation(x.rotation, y.rotation, c.tol)) c.add(path + ".rotation", vec(x.rotation), vec(y.rotation));
  if (!near_value(x.scale, y.scale, c.tol)) c.add(path + ".scale", vec(x.scale), vec(y.scale));
}

void compare_joints(const Ctx& c, const Scene& a, const Scene& b, const Pairing& p) {
  report_unpaired(c, "joints", p, names(a.joints), names(b.joints));
  for (auto [i, j] : p.pairs) {
    const std::string path = item("joints", a.joints[i].name, i);
    if (!same_ref(c.pairs->joints, b.joints.size(), a.joints[i].parent, b.joints[j].parent))
      c.add(path + ".parent", joint_name(a, a.joints[i].parent), joint_name(b, b.joints[j].parent));
    compare_transform(c, path + ".rest", a.joints[i].rest, b.joints[j].rest);
  }
}

void compare_attachments(const Ctx& c, const Scene& a, const Scene& b) {
  Pairing p = pair_items(a.attachments, b.attachments);
  report_unpaired(c, "attachments", p, names(a.attachments), names(b.attachments));
  for (auto [i, j] : p.pairs) {
    const Attachment& x = a.attachments[i];
    const Attachment& y = b.attachments[j];
    const std::string path = item("attachments", x.name, i);
    if (!same_ref(c.pairs->joints, b.joints.size(), x.joint, y.joint))
      c.add(path + ".joint", joint_name(a, x.joint), joint_name(b, y.joint));
    if (!same_ref(c.pairs->meshes, b.meshes.size(), x.mesh, y.mesh))
      c.add(path + ".mesh", mesh_name(a, x.mesh), mesh_name(b, y.mesh));
    compare_transform(c, path + ".transform", x.transform, y.transform);
  }
}

// ---- Animations -------------------------------------------------------------------------------

const char* interpolation_name(Interpolation i) { return i == Interpolation::Step ? "step" : "linear"; }

// Largest deviation of one mesh over the frames of one animation.
struct Deviation {
  size_t frames = 0;  // frames with a vertex beyond the tolerance
  size_t first_frame = 0;
  Vec3 first_a{}, first_b{};
  float worst = 0;
};

void compare_frame(const Ctx& c, const MeshPair& mp, const std::vector<Mat3x4>& ka, const std::vector<Mat3x4>& kb,
                   size_t frame, Deviation& d) {
  const ops::SkinStreams sa = ops::skin_streams(*mp.ga.mesh), sb = ops::skin_streams(*mp.gb.mesh);
  if (!sa.pos || !sb.pos) return;
  bool differs = false;
  for (auto [va, vb] : mp.vertices) {
    const Vec3 pa = ops::skin_position(sa, va, ka), pb = ops::skin_position(sb, vb, kb);
    if (near_point(pa, pb, c.pos_tol)) continue;
    const float dist = std::isfinite(length(pa - pb)) ? length(pa - pb) : INFINITY;
    if (!differs && d.frames == 0) d.first_frame = frame, d.first_a = pa, d.first_b = pb;
    differs = true;
    d.worst = std::max(d.worst, dist);
  }
  d.frames += differs;
}

// Joint world positions by joint name, for scenes without meshes to skin (animation-only files).
void compare_joint_positions(const Ctx& c, const Scene& a, const Scene& b, const Animation& x, const Animation& y,
                             const std::string& path) {
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0; i < c.pairs->joints.size(); ++i)
    if (c.pairs->joints[i] >= 0) pairs.push_back({i, size_t(c.pairs->joints[i])});
  const size_t frames = std::min(x.frame_count(), y.frame_count());
  std::vector<bool> reported(pairs.size(), false);
  for (size_t f = 0; f < frames; ++f) {
    const std::vector<Mat3x4> wa = ops::joint_world_matrices(a.joints, x.poses.data() + f * x.channels, x.channels);
    const std::vector<Mat3x4> wb = ops::joint_world_matrices(b.joints, y.poses.data() + f * y.channels, y.channels);
    for (size_t k = 0; k < pairs.size(); ++k) {
      const auto [i, j] = pairs[k];
      const Vec3 pa{wa[i][9], wa[i][10], wa[i][11]}, pb{wb[j][9], wb[j][10], wb[j][11]};
      if (reported[k] || near_point(pa, pb, c.pos_tol)) continue;
      reported[k] = true;
      c.add(item((path + ".joints").c_str(), a.joints[i].name, i) + ".position", vec(pa), vec(pb),
            fmt::format("first at frame {}", f));
    }
  }
}

void compare_skinned(const Ctx& c, const Scene& a, const Scene& b, const Animation& x, const Animation& y,
                     const std::string& path, const std::vector<MeshPair>& meshes) {
  const size_t frames = std::min(x.frame_count(), y.frame_count());
  const std::vector<Mat3x4> ra = ops::inverse_rest_matrices(a.joints), rb = ops::inverse_rest_matrices(b.joints);
  std::vector<Deviation> dev(meshes.size());
  for (size_t f = 0; f < frames; ++f) {
    const std::vector<Mat3x4> ka = ops::frame_skinning_matrices(a, ra, x, f), kb = ops::frame_skinning_matrices(b, rb, y, f);
    for (size_t m = 0; m < meshes.size(); ++m) compare_frame(c, meshes[m], ka, kb, f, dev[m]);
  }
  for (size_t m = 0; m < meshes.size(); ++m) {
    const Deviation& d = dev[m];
    if (d.frames == 0) continue;
    c.add(path + "." + meshes[m].path + ".positions", vec(d.first_a), vec(d.first_b),
          fmt::format("{} of {} frames differ, by up to {}; first at frame {}", d.frames, frames, num(d.worst),
                      d.first_frame));
  }
}

void compare_animation(const Ctx& c, const Scene& a, const Scene& b, const Animation& x, const Animation& y,
                       const std::string& path, const std::vector<MeshPair>& meshes) {
  if (x.frame_count() != y.frame_count())
    c.add(path + ".frames", std::to_string(x.frame_count()), std::to_string(y.frame_count()));
  if (!near_value(x.framerate, y.framerate, c.tol * std::max(std::fabs(x.framerate), std::fabs(y.framerate))))
    c.add(path + ".framerate", num(x.framerate), num(y.framerate));
  if (x.loop != y.loop) c.add(path + ".loop", x.loop ? "true" : "false", y.loop ? "true" : "false");
  if (x.interpolation != y.interpolation)
    c.add(path + ".interpolation", interpolation_name(x.interpolation), interpolation_name(y.interpolation));
  if (meshes.empty())
    compare_joint_positions(c, a, b, x, y, path);
  else
    compare_skinned(c, a, b, x, y, path, meshes);
}

void compare_animations(const Ctx& c, const Scene& a, const Scene& b, const std::vector<MeshPair>& meshes) {
  Pairing p = pair_items(a.animations, b.animations);
  report_unpaired(c, "animations", p, names(a.animations), names(b.animations));
  for (auto [i, j] : p.pairs)
    compare_animation(c, a, b, a.animations[i], b.animations[j], item("animations", a.animations[i].name, i), meshes);
}

// ---- Format side data -------------------------------------------------------------------------

template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {};
template <class T>
struct IsFloatArray : std::false_type {};
template <size_t N>
struct IsFloatArray<std::array<float, N>> : std::true_type {};

using diff_members::HasMembers;
using diff_members::members;

// Calls f(name, field of x, field of y) for each field of two structs (diff_members.h) in order
// until f returns true.
template <class T, class F>
bool any_member(const T& x, const T& y, F&& f) {
  const auto mx = members(x), my = members(y);
  return std::apply(
      [&](const auto&... ex) {
        return std::apply([&](const auto&... ey) { return (f(ex.name, ex.value, ey.value) || ...); }, my);
      },
      mx);
}

// A field's value as text: numbers, strings and float tuples as such, lists by their size, other
// structures as "differs" (diff names the field of a struct that differs instead, see field()).
template <class T>
std::string describe(const T& v) {
  if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
  else if constexpr (std::is_enum_v<T>) return std::to_string(int64_t(v));
  else if constexpr (std::is_integral_v<T>) return std::to_string(int64_t(v));
  else if constexpr (std::is_floating_point_v<T>) return num(v);
  else if constexpr (std::is_same_v<T, std::string>) return quoted(v);
  else if constexpr (IsFloatArray<T>::value) return vec(v);
  else if constexpr (IsVector<T>::value) return fmt::format("{} items", v.size());
  else return "differs";
}

// Floats (alone, in tuples and in lists) agree within the tolerance relative to their size (at
// least 1); everything else must be equal.
bool close(float x, float y, float tol) { return near_value(x, y, tol * std::max({1.0f, std::fabs(x), std::fabs(y)})); }

template <class T>
bool agree(const T& a, const T& b, float tol) {
  if constexpr (std::is_floating_point_v<T>) {
    return close(a, b, tol);
  } else if constexpr (IsFloatArray<T>::value) {
    for (size_t i = 0; i < a.size(); ++i)
      if (!close(a[i], b[i], tol)) return false;
    return true;
  } else if constexpr (HasMembers<T>) {
    return !any_member(a, b, [&](const char*, const auto& x, const auto& y) { return !agree(x, y, tol); });
  } else if constexpr (IsVector<T>::value) {
    using E = typename T::value_type;
    if constexpr (std::is_floating_point_v<E> || IsFloatArray<E>::value || HasMembers<E>) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!agree(a[i], b[i], tol)) return false;
      return true;
    } else {
      return a == b;
    }
  } else {
    return a == b;
  }
}

// One difference for a field that differs, at its first differing part: a list of equal length
// names its first differing entry, a struct (diff_members.h) its first differing field, down to
// a value ("pie.levels[0].points: 12 items vs 13 items").
template <class T>
void field(const Ctx& c, const std::string& path, const T& a, const T& b) {
  if (agree(a, b, c.tol)) return;
  if constexpr (IsVector<T>::value) {
    if (a.size() == b.size()) {
      size_t i = 0;
      while (agree(a[i], b[i], c.tol)) ++i;
      field(c, fmt::format("{}[{}]", path, i), a[i], b[i]);
      return;
    }
  } else if constexpr (HasMembers<T>) {
    const bool found = any_member(a, b, [&](const char* name, const auto& x, const auto& y) {
      if (agree(x, y, c.tol)) return false;
      field(c, path + "." + name, x, y);
      return true;
    });
    if (found) return;
  }
  c.add(path, describe(a), describe(b));
}

void fields(const Ctx& c, const std::string& p, const PieData& a, const PieData& b) {
  field(c, p + ".version", a.version, b.version);
  field(c, p + ".global", a.global, b.global);
  field(c, p + ".events", a.events, b.events);
  field(c, p + ".levels", a.levels, b.levels);
}
void fields(const Ctx& c, const std::string& p, const IqmData& a, const IqmData& b) {
  field(c, p + ".extensions", a.extensions, b.extensions);
  field(c, p + ".pose_parents", a.pose_parents, b.pose_parents);
}
void fields(const Ctx& c, const std::string& p, const QmshBinaryData& a, const QmshBinaryData& b) {
  field(c, p + ".flags", a.flags, b.flags);
  field(c, p + ".radius", a.radius, b.radius);
  field(c, p + ".box", a.box, b.box);
  field(c, p + ".bone_matrices", a.bone_matrices, b.bone_matrices);
  field(c, p + ".binormals", a.binormals, b.binormals);
  field(c, p + ".bone_indices", a.bone_indices, b.bone_indices);
  field(c, p + ".animation_lengths", a.animation_lengths, b.animation_lengths);
  field(c, p + ".keys", a.keys, b.keys);
}
void fields(const Ctx& c, const std::string& p, const QmshTmpData& a, const QmshTmpData& b) {
  field(c, p + ".meshes", a.meshes, b.meshes);
  field(c, p + ".has_armature", a.has_armature, b.has_armature);
  field(c, p + ".armature", a.armature, b.armature);
  field(c, p + ".armature_index", a.armature_index, b.armature_index);
  field(c, p + ".actions", a.actions, b.actions);
  field(c, p + ".fps", a.fps, b.fps);
}
void fields(const Ctx& c, const std::string& p, const ModeDefData& a, const ModeDefData& b) {
  field(c, p + ".kind", a.kind, b.kind);
  // A .model's own file name is not its content (a copy under another name is the same model).
  if (a.kind == ModeDefData::Kind::Model && b.kind == a.kind && !a.models.empty() && !b.models.empty() &&
      a.models[0].file != b.models[0].file) {
    std::vector<ModeDefModelFile> x = a.models, y = b.models;
    x[0].file = y[0].file;
    field(c, p + ".models", x, y);
  } else {
    field(c, p + ".models", a.models, b.models);
  }
  field(c, p + ".props", a.props, b.props);
  field(c, p + ".paths", a.paths, b.paths);
  field(c, p + ".state", a.state, b.state);
  field(c, p + ".object_prop", a.object_prop, b.object_prop);
  field(c, p + ".object_path", a.object_path, b.object_path);
  field(c, p + ".object_joint", a.object_joint, b.object_joint);
  field(c, p + ".mesh_sources", a.mesh_sources, b.mesh_sources);
}

// Side data present on one side only differs unless it is empty (holds nothing a reader would
// not make anyway). The reader's fingerprint is bookkeeping, not content, and is not compared.
template <class T>
void side_data(const Ctx& c, const char* name, const std::optional<T>& a, const std::optional<T>& b) {
  if (!a && !b) return;
  if (!a || !b) {
    T x = a ? *a : *b;
    if constexpr (requires { x.fingerprint; }) x.fingerprint = 0;
    if (!(x == T{})) c.add(name, a ? kPresent : kMissing, b ? kPresent : kMissing);
    return;
  }
  fields(c, name, *a, *b);
}

}  // namespace

std::vector<Difference> diff(const Scene& a, const Scene& b, const DiffOptions& options,
                             std::vector<Difference>* notes) {
  std::vector<Difference> out;
  Implied implied_a, implied_b;
  implied_a.source = &a;
  implied_b.source = &b;
  const Bounds ba = ops::rest_bounds(a), bb = ops::rest_bounds(b);
  auto diagonal = [](const Bounds& x) {
    return x.empty ? 0.0f : length(Vec3{x.max[0] - x.min[0], x.max[1] - x.min[1], x.max[2] - x.min[2]});
  };
  const float size = std::max(diagonal(ba), diagonal(bb));
  Ctx c;
  c.tol = options.tolerance >= 0 ? options.tolerance : 0.0f;
  c.size = std::isfinite(size) ? size : 0.0f;
  c.pos_tol = c.size > 0 ? c.tol * c.size : c.tol;
  c.out = &out;
  c.notes = notes;
  c.implied_a = &implied_a;
  c.implied_b = &implied_b;

  const Pairing mesh_pairs = pair_meshes(c, a, b), material_pairs = pair_items(a.materials, b.materials),
                joint_pairs = pair_items(a.joints, b.joints);
  Pairings pairs{b_of_a(mesh_pairs, a.meshes.size()), b_of_a(material_pairs, a.materials.size()),
                 b_of_a(joint_pairs, a.joints.size())};
  c.pairs = &pairs;
  std::vector<MeshPair> meshes = compare_meshes(c, a, b, mesh_pairs);
  compare_materials(c, a, b, material_pairs);
  compare_joints(c, a, b, joint_pairs);
  compare_animations(c, a, b, meshes);
  compare_attachments(c, a, b);
  if (a.comment != b.comment)
    c.add("comment", fmt::format("{} bytes", a.comment.size()), fmt::format("{} bytes", b.comment.size()));
  side_data(c, "pie", a.pie, b.pie);
  side_data(c, "iqm", a.iqm, b.iqm);
  side_data(c, "qmsh", a.qmsh, b.qmsh);
  side_data(c, "qmsh_tmp", a.qmsh_tmp, b.qmsh_tmp);
  side_data(c, "modedef", a.modedef, b.modedef);
  return out;
}

std::string to_string(const Difference& d) {
  std::string s = d.path + ":";
  if (!d.a.empty() || !d.b.empty()) s += " " + d.a + " vs " + d.b;
  if (!d.message.empty()) s += (d.a.empty() && d.b.empty() ? " " : " (") + d.message + (d.a.empty() && d.b.empty() ? "" : ")");
  return s;
}

}  // namespace meshport
