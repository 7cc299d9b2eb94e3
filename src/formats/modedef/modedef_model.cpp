// ModeDef .model: parse / print, the render mesh as Scene meshes, Scene -> .model
// (docs/modedef.md, ".model").
//
// Parsing reads the values in the specification's order. Index families (face V N T, group
// FSTART FEND MAT, tetrahedron nodes, carton tetrahedra) are read raw with their positions, and
// resolved once the family is complete: the base is detected from the data, then every index is
// checked in file order, so an error names the first offending token.
#include "formats/modedef/modedef.h"
#include "formats/modedef/modedef_token.h"
#include "core/utf8_path.h"

#include <meshport/modal.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace meshport::modedef {
namespace {

// A ModeDef material's specular strength (the Blinn-Phong exponent n) as glTF roughness r:
// Beckmann alpha^2 = 2 / (n + 2) and glTF alpha = r^2, so r = (2 / (n + 2))^(1/4). A material with
// a black specular colour has no highlight: roughness 1. docs/modedef.md.
float roughness_of(const ModeDefMaterial& m) {
  if (m.specular[0] <= 0 && m.specular[1] <= 0 && m.specular[2] <= 0) return 1.0f;
  if (!(m.specular_strength > 0)) return 1.0f;
  return float(std::pow(2.0 / (double(m.specular_strength) + 2.0), 0.25));
}

// The inverse, for a Scene material whose roughness is not what its kept ModeDef material gives:
// n = 2 / r^4 - 2 (clamped to OpenGL's 0..128), with a white specular colour when it was black.
void set_roughness(ModeDefMaterial& m, float roughness) {
  if (!std::isfinite(roughness)) return;
  const double r = std::clamp(double(roughness), 0.0, 1.0);
  m.specular_strength = r >= 1.0 ? 0.0f : float(std::min(128.0, 2.0 / (r * r * r * r) - 2.0));
  if (m.specular_strength > 0 && m.specular[0] <= 0 && m.specular[1] <= 0 && m.specular[2] <= 0)
    m.specular = {1, 1, 1, m.specular[3]};
}

// Decision: the morph targets made from one model's modes hold at most this many values (modes x
// Scene vertices x 3), so that a small hostile file (many modes of one node, many carton
// vertices) cannot make the Scene huge. 64M floats is 256 MB.
constexpr uint64_t kMaxMorphValues = uint64_t(1) << 24;
// Decision: and at most this many morph targets (modes x meshes), each of which costs a name and
// a vector beyond its values: 2^18 targets are about 30 MB.
constexpr uint64_t kMaxMorphTargets = uint64_t(1) << 18;

struct Loc {
  uint32_t line = 1, column = 1;
};

Loc loc_of(const Token& t) { return {t.line, t.column}; }

const char* base_note(int32_t base) { return base == 1 ? ", counting from 1" : ""; }

// "1 vertex", "3 vertices".
std::string counted(uint64_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

class ModelParser {
 public:
  ModelParser(std::string_view text, const std::string& name, Diagnostics& diags) : r_(text, name), diags_(diags) {}

  ModeDefModel parse() {
    read_modes();
    read_mesh();
    read_tets();
    read_carton();
    r_.expect_end("the last value of the model");
    return std::move(m_);
  }

 private:
  TokenReader r_;
  Diagnostics& diags_;
  ModeDefModel m_;

  [[noreturn]] void fail(Loc l, std::string message) const {
    Token t;
    t.line = l.line;
    t.column = l.column;
    r_.fail_at(t, std::move(message));
  }
  void warn(Loc l, std::string message) {
    Token t;
    t.line = l.line;
    t.column = l.column;
    diags_.add(r_.warning_at(t, std::move(message)));
  }
  Loc here() { return loc_of(r_.peek()); }
  int32_t read_int(std::string_view what, Loc& at) {
    at = here();
    return r_.read_int(what);
  }

  // Fails at `at` when `tokens` values cannot fit in the rest of the file (the check
  // TokenReader::read_count makes for one count, for a product of counts).
  void check_fits(Loc at, uint64_t tokens, const std::string& what) {
    const uint64_t most = r_.remaining() / 2 + 1;
    if (tokens > most) fail(at, fmt::format("{} are more than the rest of the file can hold", what));
  }

  void read_modes() {
    const Loc at_ev = here();
    const uint32_t nev = r_.read_count("the eigenvalue count", 1);
    const Loc at_len = here();
    const uint32_t len = r_.read_count("the eigenvector length", 1);
    if (len % 3 != 0) fail(at_len, fmt::format("LEN {} is not a multiple of 3 (LEN = 3 x nodes)", len));
    check_fits(at_ev, uint64_t(nev) * (uint64_t(len) + 1) + len,
               fmt::format("{} with eigenvectors of length {}", counted(nev, "eigenvalue", "eigenvalues"), len));
    m_.eigenvalues.resize(nev);
    for (uint32_t k = 0; k < nev; ++k) m_.eigenvalues[k] = r_.read_float(fmt::format("eigenvalue {}", k));
    m_.eigenvectors.resize(size_t(nev) * len);
    for (uint32_t k = 0; k < nev; ++k) {
      const std::string what = fmt::format("eigenvector {}", k);
      float* out = m_.eigenvectors.data() + size_t(k) * len;
      for (uint32_t i = 0; i < len; ++i) out[i] = r_.read_float(what);
    }
    m_.rest.resize(len);
    for (uint32_t i = 0; i < len; ++i) m_.rest[i] = r_.read_float("the rest positions");
  }

  uint32_t nv_ = 0, nn_ = 0, nt_ = 0, nf_ = 0, nm_ = 0, ng_ = 0;

  void read_mesh() {
    const Loc at_nv = here();
    nv_ = r_.read_count("the vertex count", 3);
    nn_ = r_.read_count("the normal count", 3);
    nt_ = r_.read_count("the texcoord count", 2);
    nf_ = r_.read_count("the face count", 9);
    const Loc at_nm = here();
    nm_ = r_.read_count("the material count", 17);
    const Loc at_ng = here();
    ng_ = r_.read_count("the group count", 3);
    if (nm_ > kMaxMaterials)
      fail(at_nm,
           fmt::format("the material count {} is more than meshport reads from one file ({})", nm_, kMaxMaterials));
    if (ng_ >= kMaxMeshes)
      fail(at_ng, fmt::format("the group count {} is more than meshport reads from one file ({} meshes, one per group "
                              "and one for the faces in none)",
                              ng_, kMaxMeshes));
    check_fits(at_nv,
               3 * uint64_t(nv_) + 3 * uint64_t(nn_) + 2 * uint64_t(nt_) + 9 * uint64_t(nf_) + 17 * uint64_t(nm_) +
                   3 * uint64_t(ng_),
               fmt::format("{}, {}, {}, {}, {} and {}", counted(nv_, "vertex", "vertices"),
                           counted(nn_, "normal", "normals"), counted(nt_, "texcoord", "texcoords"),
                           counted(nf_, "face", "faces"), counted(nm_, "material", "materials"),
                           counted(ng_, "group", "groups")));
    m_.vertices.resize(nv_);
    for (uint32_t i = 0; i < nv_; ++i) {
      const std::string what = fmt::format("vertex {}", i);
      for (float& v : m_.vertices[i]) v = r_.read_float(what);
    }
    m_.normals.resize(nn_);
    for (uint32_t i = 0; i < nn_; ++i) {
      const std::string what = fmt::format("normal {}", i);
      for (float& v : m_.normals[i]) v = r_.read_float(what);
    }
    m_.texcoords.resize(nt_);
    for (uint32_t i = 0; i < nt_; ++i) {
      const std::string what = fmt::format("texcoord {}", i);
      for (float& v : m_.texcoords[i]) v = r_.read_float(what);
    }
    read_faces();
    m_.materials.resize(nm_);
    for (uint32_t i = 0; i < nm_; ++i) {
      const std::string what = fmt::format("material {}", i);
      ModeDefMaterial& mat = m_.materials[i];
      for (auto* c : {&mat.ambient, &mat.diffuse, &mat.specular, &mat.emissive})
        for (float& v : *c) v = r_.read_float(what);
      mat.specular_strength = r_.read_float(what);
    }
    read_groups();
  }

  // ---- Faces: V N T per corner ----
  void read_faces() {
    m_.faces.resize(nf_);
    std::vector<std::array<Loc, 9>> at(nf_);
    for (uint32_t f = 0; f < nf_; ++f) {
      const std::string what = fmt::format("face {}", f);
      ModeDefFace& face = m_.faces[f];
      for (int c = 0; c < 3; ++c) {
        face.vertex[c] = read_int(what, at[f][3 * c]);
        face.normal[c] = read_int(what, at[f][3 * c + 1]);
        face.texcoord[c] = read_int(what, at[f][3 * c + 2]);
      }
    }
    // Base: 0 when some checked index is 0, 1 when none is and some equals its count.
    bool zero = false, count = false;
    for (const ModeDefFace& face : m_.faces)
      for (int c = 0; c < 3; ++c) {
        zero = zero || face.vertex[c] == 0 || (nn_ > 0 && face.normal[c] == 0) || (nt_ > 0 && face.texcoord[c] == 0);
        count = count || uint32_t(face.vertex[c]) == nv_ || (nn_ > 0 && uint32_t(face.normal[c]) == nn_) ||
                (nt_ > 0 && uint32_t(face.texcoord[c]) == nt_);
      }
    const int32_t base = zero ? 0 : count ? 1 : 0;
    if (nf_ > 0 && !zero && !count)
      warn(at[0][0],
           "cannot tell whether face indices count from 0 or 1 (no index is 0 and none equals its count): read as "
           "0-based");
    m_.indexing.face_base = base;
    auto check = [&](int32_t& index, uint32_t n, Loc l, uint32_t f, const char* kind, const char* plural) {
      const int64_t v = int64_t(index) - base;
      if (v < 0 || v >= int64_t(n))
        fail(l, fmt::format("face {}: {} index {} is out of range ({}{})", f, kind, index, counted(n, kind, plural),
                            base_note(base)));
      index = int32_t(v);
    };
    for (uint32_t f = 0; f < nf_; ++f) {
      ModeDefFace& face = m_.faces[f];
      for (int c = 0; c < 3; ++c) {
        check(face.vertex[c], nv_, at[f][3 * c], f, "vertex", "vertices");
        if (nn_ > 0) check(face.normal[c], nn_, at[f][3 * c + 1], f, "normal", "normals");
        if (nt_ > 0) check(face.texcoord[c], nt_, at[f][3 * c + 2], f, "texcoord", "texcoords");
      }
    }
  }

  // ---- Groups: FSTART FEND MAT ----
  void read_groups() {
    struct Raw {
      int32_t start = 0, end = 0, mat = 0;
      Loc at_start, at_end, at_mat;
    };
    std::vector<Raw> raw(ng_);
    for (uint32_t g = 0; g < ng_; ++g) {
      const std::string what = fmt::format("group {}", g);
      raw[g].start = read_int(what, raw[g].at_start);
      raw[g].end = read_int(what, raw[g].at_end);
      raw[g].mat = read_int(what, raw[g].at_mat);
    }
    if (ng_ == 0) return;
    size_t lowest = 0;
    for (size_t g = 1; g < raw.size(); ++g)
      if (raw[g].start < raw[lowest].start) lowest = g;
    const int32_t min_start = raw[lowest].start;
    const int32_t base = min_start == 1 ? 1 : 0;
    if (min_start > 1)
      warn(raw[lowest].at_start,
           fmt::format("cannot tell whether group indices count from 0 or 1 (the smallest FSTART is {}): read as 0-based",
                       min_start));
    m_.indexing.group_base = base;

    // FEND: exclusive when some group ends at #F, or starts where the previous one (by FSTART)
    // ends; inclusive otherwise.
    std::vector<size_t> order(raw.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return raw[a].start != raw[b].start ? raw[a].start < raw[b].start : raw[a].end < raw[b].end;
    });
    bool exclusive = false;
    for (const Raw& g : raw) exclusive = exclusive || int64_t(g.end) - base == int64_t(nf_);
    for (size_t i = 1; i < order.size(); ++i) exclusive = exclusive || raw[order[i]].start == raw[order[i - 1]].end;
    m_.indexing.group_end_inclusive = !exclusive;
    const char* fend = exclusive ? "exclusive" : "inclusive";

    m_.groups.resize(ng_);
    for (uint32_t g = 0; g < ng_; ++g) {
      const Raw& x = raw[g];
      const int64_t first = int64_t(x.start) - base;
      const int64_t last = int64_t(x.end) - base - (exclusive ? 1 : 0);
      if (first < 0 || first >= int64_t(nf_))
        fail(x.at_start,
             fmt::format("group {}: FSTART {} is out of range ({}{})", g, x.start, counted(nf_, "face", "faces"), base_note(base)));
      if (x.end < x.start)
        fail(x.at_end, fmt::format("group {}: face range is reversed (FSTART {}, FEND {})", g, x.start, x.end));
      if (last < first)
        fail(x.at_end, fmt::format("group {}: face range is empty (FSTART {}, FEND {}, FEND exclusive)", g, x.start, x.end));
      if (last >= int64_t(nf_))
        fail(x.at_end, fmt::format("group {}: FEND {} is out of range ({}{}, FEND {})", g, x.end,
                                   counted(nf_, "face", "faces"), base_note(base), fend));
      const int64_t mat = int64_t(x.mat) - base;
      if (mat < 0 || mat >= int64_t(nm_))
        fail(x.at_mat,
             fmt::format("group {}: material index {} is out of range ({}{})", g, x.mat, counted(nm_, "material", "materials"), base_note(base)));
      m_.groups[g] = {int32_t(first), int32_t(last), int32_t(mat)};
    }
    // Overlaps, in FSTART order: a group must start after every earlier one's last face.
    size_t reach = order[0];
    for (size_t i = 1; i < order.size(); ++i) {
      const size_t g = order[i];
      if (m_.groups[g].first <= m_.groups[reach].last)
        fail(raw[g].at_start, fmt::format("group {} (FSTART {}, FEND {}) overlaps group {} (FSTART {}, FEND {})", g,
                                          raw[g].start, raw[g].end, reach, raw[reach].start, raw[reach].end));
      if (m_.groups[g].last > m_.groups[reach].last) reach = g;
    }
  }

  // ---- Tetrahedra ----
  void read_tets() {
    const uint32_t n = r_.read_count("the tetrahedron count", 4);
    m_.tets.resize(n);
    std::vector<std::array<Loc, 4>> at(n);
    for (uint32_t t = 0; t < n; ++t) {
      const std::string what = fmt::format("tetrahedron {}", t);
      for (int c = 0; c < 4; ++c) m_.tets[t][c] = read_int(what, at[t][c]);
    }
    const uint64_t nodes = m_.node_count();
    bool zero = false, count = false;
    for (const auto& tet : m_.tets)
      for (int32_t i : tet) {
        zero = zero || i == 0;
        count = count || (i > 0 && uint64_t(i) == nodes);
      }
    const int32_t base = zero ? 0 : count ? 1 : 0;
    if (n > 0 && !zero && !count)
      warn(at[0][0],
           "cannot tell whether tetrahedron node indices count from 0 or 1 (no index is 0 and none equals the node "
           "count): read as 0-based");
    m_.indexing.tet_base = base;
    for (uint32_t t = 0; t < n; ++t)
      for (int c = 0; c < 4; ++c) {
        const int64_t v = int64_t(m_.tets[t][c]) - base;
        if (v < 0 || uint64_t(v) >= nodes)
          fail(at[t][c], fmt::format("tetrahedron {}: node index {} is out of range ({}{})", t, m_.tets[t][c],
                                     counted(nodes, "node", "nodes"), base_note(base)));
        m_.tets[t][c] = int32_t(v);
      }
  }

  // ---- Carton ----
  void read_carton() {
    const Loc at_flag = here();
    m_.carton = r_.read_flag("the carton flag") != 0;
    if (!m_.carton) {
      if (!m_.eigenvalues.empty() && nv_ != m_.node_count())
        fail(at_flag, fmt::format("no carton: {} render vertices but the modes have {} nodes", nv_, m_.node_count()));
      return;
    }
    const Loc at_count = here();
    const uint32_t n = r_.read_count("the carton vertex count", 5);
    if (n != nv_) fail(at_count, fmt::format("carton has {} vertices, the mesh has {}", n, nv_));
    m_.carton_vertices.resize(n);
    std::vector<std::array<Loc, 2>> at(n);  // TET, first barycentric coordinate
    for (uint32_t k = 0; k < n; ++k) {
      const std::string what = fmt::format("carton vertex {}", k);
      ModeDefCartonVertex& cv = m_.carton_vertices[k];
      cv.tet = read_int(what, at[k][0]);
      at[k][1] = here();
      for (float& b : cv.bary) b = r_.read_float(what);
    }
    const uint64_t ntet = m_.tets.size();
    bool zero = false, count = false;
    for (const auto& cv : m_.carton_vertices) {
      zero = zero || cv.tet == 0;
      count = count || (cv.tet > 0 && uint64_t(cv.tet) == ntet);
    }
    const int32_t base = zero ? 0 : count ? 1 : 0;
    if (n > 0 && !zero && !count)
      warn(at[0][0],
           "cannot tell whether carton tetrahedron indices count from 0 or 1 (no index is 0 and none equals the "
           "tetrahedron count): read as 0-based");
    m_.indexing.carton_base = base;
    for (uint32_t k = 0; k < n; ++k) {
      ModeDefCartonVertex& cv = m_.carton_vertices[k];
      const int64_t v = int64_t(cv.tet) - base;
      if (v < 0 || uint64_t(v) >= ntet)
        fail(at[k][0], fmt::format("carton vertex {}: tetrahedron index {} is out of range ({}{})", k, cv.tet,
                                   counted(ntet, "tetrahedron", "tetrahedra"), base_note(base)));
      cv.tet = int32_t(v);
      const double sum = double(cv.bary[0]) + double(cv.bary[1]) + double(cv.bary[2]) + double(cv.bary[3]);
      if (!(std::fabs(sum - 1.0) <= 1e-3))
        fail(at[k][1],
             fmt::format("carton vertex {}: barycentric coordinates sum to {:.6g} (must be 1 within 1e-3)", k, sum));
    }
  }
};

// An error about a model as a whole, at the place that brought it in.
[[noreturn]] void fail_at_place(const ErrorPlace& place, const std::string& stem, const std::string& message) {
  if (place.line > 0) fail_at_line(place.file, place.line, place.column, place.prefix + message);
  fail(place.file.empty() ? stem : place.file, place.prefix + message);
}

// ---- Printing ---------------------------------------------------------------------------------

// The indexing print_model writes: the kept one where a reader would detect it again from the
// values written, else the default (0-based, FEND inclusive), which a reader always reads back
// to the same values.
ModeDefIndexing printable_indexing(const ModeDefModel& m) {
  ModeDefIndexing ix = m.indexing;
  const size_t nv = m.vertices.size(), nn = m.normals.size(), nt = m.texcoords.size();
  if (ix.face_base != 0) {
    bool at_count = false;  // 1-based is detected when some index + 1 equals its count
    for (const ModeDefFace& f : m.faces)
      for (int c = 0; c < 3; ++c)
        at_count = at_count || size_t(f.vertex[c]) + 1 == nv || (nn > 0 && size_t(f.normal[c]) + 1 == nn) ||
                   (nt > 0 && size_t(f.texcoord[c]) + 1 == nt);
    ix.face_base = ix.face_base == 1 && at_count ? 1 : 0;
  }
  if (ix.group_base != 0) {
    bool at_zero = false;
    for (const ModeDefGroup& g : m.groups) at_zero = at_zero || g.first == 0;
    ix.group_base = ix.group_base == 1 && at_zero ? 1 : 0;
  }
  if (!ix.group_end_inclusive) {
    // Exclusive is detected when some group ends at #F or two groups touch.
    std::vector<ModeDefGroup> gs = m.groups;
    std::sort(gs.begin(), gs.end(), [](const ModeDefGroup& a, const ModeDefGroup& b) { return a.first < b.first; });
    bool seen = false;
    for (size_t i = 0; i < gs.size(); ++i)
      seen = seen || size_t(gs[i].last) + 1 == m.faces.size() || (i > 0 && gs[i].first == gs[i - 1].last + 1);
    ix.group_end_inclusive = !seen;
  }
  if (ix.tet_base != 0) {
    bool at_count = false;
    for (const auto& t : m.tets)
      for (int32_t i : t) at_count = at_count || size_t(i) + 1 == m.node_count();
    ix.tet_base = ix.tet_base == 1 && at_count ? 1 : 0;
  }
  if (ix.carton_base != 0) {
    bool at_count = false;
    for (const auto& cv : m.carton_vertices) at_count = at_count || size_t(cv.tet) + 1 == m.tets.size();
    ix.carton_base = ix.carton_base == 1 && at_count ? 1 : 0;
  }
  return ix;
}

void put_floats(std::string& out, const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ' ';
    out += format_float(v[i]);
  }
  out += '\n';
}

// ---- Into the Scene ---------------------------------------------------------------------------

// The displacement of render vertex r in mode k for unit amplitude, added to out[0..2]. Computed
// per Scene vertex: a table for every render vertex and mode could be far larger than the file
// (many carton vertices that no face uses, times many modes).
void add_displacement(const ModeDefModel& m, size_t k, size_t r, float* out) {
  const size_t len = m.rest.size();
  const float* phi = m.eigenvectors.data() + k * len;
  if (m.carton) {
    if (r >= m.carton_vertices.size()) return;
    const ModeDefCartonVertex& cv = m.carton_vertices[r];
    if (cv.tet < 0 || size_t(cv.tet) >= m.tets.size()) return;
    for (int c = 0; c < 4; ++c) {
      const int32_t node = m.tets[size_t(cv.tet)][c];
      if (node < 0 || size_t(node) * 3 + 2 >= len) continue;
      for (int a = 0; a < 3; ++a) out[a] += cv.bary[c] * phi[size_t(node) * 3 + a];
    }
  } else if (r * 3 + 2 < len) {
    for (int a = 0; a < 3; ++a) out[a] += phi[r * 3 + a];
  }
}

struct CornerKey {
  int32_t v, n, t;
  bool operator==(const CornerKey&) const = default;
};
struct CornerHash {
  size_t operator()(const CornerKey& k) const {
    uint64_t h = uint64_t(uint32_t(k.v)) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t(uint32_t(k.n)) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2));
    h ^= (uint64_t(uint32_t(k.t)) + 0x85EBCA77C2B2AE63ull + (h << 6) + (h >> 2));
    return size_t(h);
  }
};

// The parts a model's faces form: one per group in file order, then the faces in no group (or
// every face when there are no groups). Each part lists its faces; group -1 is the rest.
struct Part {
  int32_t group = -1;
  std::vector<uint32_t> faces;
};
std::vector<Part> model_parts(const ModeDefModel& m) {
  std::vector<Part> parts;
  std::vector<uint8_t> grouped(m.faces.size(), 0);
  for (size_t g = 0; g < m.groups.size(); ++g) {
    Part p;
    p.group = int32_t(g);
    const ModeDefGroup& gr = m.groups[g];
    for (int64_t f = gr.first; f <= gr.last; ++f)
      if (f >= 0 && size_t(f) < m.faces.size()) {
        p.faces.push_back(uint32_t(f));
        grouped[size_t(f)] = 1;
      }
    parts.push_back(std::move(p));
  }
  Part rest;
  for (size_t f = 0; f < m.faces.size(); ++f)
    if (!grouped[f]) rest.faces.push_back(uint32_t(f));
  if (!rest.faces.empty()) parts.push_back(std::move(rest));
  return parts;
}

VertexStream make_stream(Attribute a, uint32_t components, size_t reserve) {
  VertexStream s;
  s.attribute = a;
  s.format = ComponentType::Float;
  s.source_size = components;
  s.components = components;
  s.data.reserve(reserve * components);
  return s;
}

// ---- Writing: a model derived from the Scene's meshes -------------------------------------------

bool parse_mode_frequency(const std::string& name, float& hz) {
  // "mode<k> <f> Hz"
  std::string_view s = name;
  if (s.substr(0, 4) != "mode") return false;
  s.remove_prefix(4);
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || digits >= s.size() || s[digits] != ' ') return false;
  s.remove_prefix(digits + 1);
  if (s.size() < 4 || s.substr(s.size() - 3) != " Hz") return false;
  s.remove_suffix(3);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double f = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), f);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(f) || f < 0) return false;
  hz = float(f);
  return true;
}

uint32_t float_bits(float v) {
  if (v == 0) v = 0;  // -0 welds with 0
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

struct BitsHash {
  size_t operator()(const std::vector<uint32_t>& k) const {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t x : k) h = (h ^ x) * 0x100000001b3ull;
    return size_t(h);
  }
};

// Welds values by their bits: the index of `key`, added when new.
class Welder {
 public:
  int32_t index(const std::vector<uint32_t>& key, bool& added) {
    auto [it, inserted] = map_.try_emplace(key, int32_t(map_.size()));
    added = inserted;
    return it->second;
  }

 private:
  std::unordered_map<std::vector<uint32_t>, int32_t, BitsHash> map_;
};

ModeDefModel derive_model(const Scene& scene, Diagnostics& diags) {
  // A .state's planes are scene geometry, not part of a model: only its objects' meshes are used.
  const ModeDefData& md = value_or_empty(scene.modedef);
  std::vector<uint8_t> skip(scene.meshes.size(), scene.modedef && md.kind == ModeDefData::Kind::State ? 1 : 0);
  for (const ModeDefMeshSource& src : md.mesh_sources)
    if (src.mesh >= 0 && size_t(src.mesh) < skip.size()) skip[size_t(src.mesh)] = 0;
  std::vector<size_t> used;
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    const Mesh& mesh = scene.meshes[i];
    if (mesh.triangles.empty() || skip[i]) continue;
    const VertexStream* pos = mesh.find(Attribute::Position);
    if (!pos || pos->components < 3)
      fail("", fmt::format("ModeDef .model: mesh '{}' has triangles but no positions", mesh.name));
    const size_t nv = pos->vertex_count();
    for (uint32_t t : mesh.triangles)
      if (t >= nv)
        fail("", fmt::format("ModeDef .model: mesh '{}' has a triangle index {} past its {} vertices", mesh.name, t, nv));
    for (const MorphTarget& mt : mesh.morph_targets)
      if (mt.positions.size() != nv * 3)
        fail("", fmt::format("ModeDef .model: morph target '{}' of mesh '{}' has {} values, not 3 per vertex ({})",
                             mt.name, mesh.name, mt.positions.size(), nv * 3));
    used.push_back(i);
  }
  ModeDefModel m;
  if (used.empty()) return m;
  const size_t modes = scene.meshes[used[0]].morph_targets.size();
  for (size_t i : used)
    if (scene.meshes[i].morph_targets.size() != modes)
      fail("", fmt::format("ModeDef .model: mesh '{}' has {} morph targets and mesh '{}' has {}: every mesh must have "
                           "one per mode",
                           scene.meshes[i].name, scene.meshes[i].morph_targets.size(), scene.meshes[used[0]].name, modes));
  // Normals and texcoords are indexed over the whole model: kept only when every mesh has them.
  bool normals = true, texcoords = true;
  for (size_t i : used) {
    const VertexStream* n = scene.meshes[i].find(Attribute::Normal);
    const VertexStream* t = scene.meshes[i].find(Attribute::Texcoord);
    const size_t nv = scene.meshes[i].vertex_count();
    normals = normals && n && n->components >= 3 && n->vertex_count() == nv;
    texcoords = texcoords && t && t->components >= 2 && t->vertex_count() == nv;
  }
  for (auto [has, attr, what] : {std::tuple{normals, Attribute::Normal, "normals"},
                                 std::tuple{texcoords, Attribute::Texcoord, "texture coordinates"}}) {
    if (has) continue;
    bool some = false;
    for (size_t i : used) some = some || scene.meshes[i].find(attr) != nullptr;
    if (some)
      diags.add(warning("", fmt::format("ModeDef .model: not every mesh has {}: the model is written without them", what)));
  }

  Welder vweld, nweld, tweld;
  std::vector<std::vector<float>> evec(modes);
  std::vector<uint32_t> key;
  bool added = false;
  for (size_t i : used) {
    const Mesh& mesh = scene.meshes[i];
    const VertexStream& pos = *mesh.find(Attribute::Position);
    const VertexStream* nrm = normals ? mesh.find(Attribute::Normal) : nullptr;
    const VertexStream* tex = texcoords ? mesh.find(Attribute::Texcoord) : nullptr;
    const size_t nv = pos.vertex_count();
    // Scene vertex -> model indices.
    std::vector<int32_t> vi(nv), ni(nv, 0), ti(nv, 0);
    for (size_t v = 0; v < nv; ++v) {
      // A render vertex is its position and its displacement in every mode (the modes of
      // vertices at one place may differ, at a seam between meshes).
      key.clear();
      for (uint32_t c = 0; c < 3; ++c) key.push_back(float_bits(pos.get(v, c)));
      for (const MorphTarget& mt : mesh.morph_targets)
        for (size_t c = 0; c < 3; ++c) key.push_back(float_bits(mt.positions[v * 3 + c]));
      vi[v] = vweld.index(key, added);
      if (added) {
        m.vertices.push_back({pos.get(v, 0), pos.get(v, 1), pos.get(v, 2)});
        for (size_t k = 0; k < modes; ++k)
          for (size_t c = 0; c < 3; ++c) evec[k].push_back(mesh.morph_targets[k].positions[v * 3 + c]);
      }
      if (nrm) {
        key.assign({float_bits(nrm->get(v, 0)), float_bits(nrm->get(v, 1)), float_bits(nrm->get(v, 2))});
        ni[v] = nweld.index(key, added);
        if (added) m.normals.push_back({nrm->get(v, 0), nrm->get(v, 1), nrm->get(v, 2)});
      }
      if (tex) {
        const float u = tex->get(v, 0), fv = 1.0f - tex->get(v, 1);
        key.assign({float_bits(u), float_bits(fv)});
        ti[v] = tweld.index(key, added);
        if (added) m.texcoords.push_back({u, fv});
      }
    }
    if (m.vertices.size() > size_t(std::numeric_limits<int32_t>::max()) / 3)
      fail("", "ModeDef .model: too many vertices for 32-bit indices");
    ModeDefGroup group;
    group.first = int32_t(m.faces.size());
    for (size_t t = 0; t + 2 < mesh.triangles.size(); t += 3) {
      ModeDefFace f;
      for (int c = 0; c < 3; ++c) {
        const uint32_t v = mesh.triangles[t + size_t(c)];
        f.vertex[c] = vi[v];
        f.normal[c] = ni[v];
        f.texcoord[c] = ti[v];
      }
      m.faces.push_back(f);
    }
    group.last = int32_t(m.faces.size()) - 1;
    group.material = int32_t(m.materials.size());
    m.groups.push_back(group);
    // The material: the kept one of the group the mesh came from (its ambient, specular,
    // emissive, strength), with the Scene's base colour as diffuse.
    ModeDefMaterial mat;
    for (const ModeDefMeshSource& src : md.mesh_sources) {
      if (src.mesh != int32_t(i) || src.model < 0 || size_t(src.model) >= md.models.size()) continue;
      const ModeDefModel& kept = md.models[size_t(src.model)].model;
      if (src.group >= 0 && size_t(src.group) < kept.groups.size()) {
        const int32_t km = kept.groups[size_t(src.group)].material;
        if (km >= 0 && size_t(km) < kept.materials.size()) mat = kept.materials[size_t(km)];
      }
      break;
    }
    if (mesh.material >= 0 && size_t(mesh.material) < scene.materials.size()) {
      const Material& sm = scene.materials[size_t(mesh.material)];
      mat.diffuse = sm.base_color;
      for (size_t c = 0; c < 3; ++c) mat.emissive[c] = sm.emissive[c];
      if (roughness_of(mat) != sm.roughness) set_roughness(mat, sm.roughness);
    }
    m.materials.push_back(mat);
  }
  m.rest.reserve(m.vertices.size() * 3);
  for (const auto& v : m.vertices) m.rest.insert(m.rest.end(), v.begin(), v.end());
  const std::vector<MorphTarget>& targets = scene.meshes[used[0]].morph_targets;
  for (size_t k = 0; k < modes; ++k) {
    float hz = 0;
    const double omega = parse_mode_frequency(targets[k].name, hz) ? 2.0 * 3.14159265358979323846 * double(hz) : 0.0;
    const double lambda = omega * omega;
    if (!(lambda <= double(std::numeric_limits<float>::max())))
      fail("", fmt::format("ModeDef .model: the frequency of morph target '{}' is too large", targets[k].name));
    m.eigenvalues.push_back(float(lambda));
    m.eigenvectors.insert(m.eigenvectors.end(), evec[k].begin(), evec[k].end());
  }
  return m;
}

// Where a state object's copy of a model vertex is: the copies are placed at the object's rest
// pose, its joint's rest transform (p -> T + R (S p)). Identity for a lone model.
std::array<float, 3> placed(const Transform& t, const std::array<float, 3>& p) {
  const float x = t.rotation[0], y = t.rotation[1], z = t.rotation[2], w = t.rotation[3];
  const float v[3] = {p[0] * t.scale[0], p[1] * t.scale[1], p[2] * t.scale[2]};
  // v + 2 w (q x v) + 2 q x (q x v)
  const float c1[3] = {y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]};
  const float c2[3] = {y * c1[2] - z * c1[1], z * c1[0] - x * c1[2], x * c1[1] - y * c1[0]};
  std::array<float, 3> out{};
  for (int a = 0; a < 3; ++a) out[size_t(a)] = t.translation[size_t(a)] + v[a] + 2 * (w * c1[a] + c2[a]);
  return out;
}

// Whether the Scene meshes made from `scene.modedef->models[0]` still have its triangles at the
// same corner positions (within 1e-5, relative to 1 or the value), and no other mesh (planes of a
// .state aside) was added.
bool kept_model_matches(const Scene& scene) {
  if (!scene.modedef || scene.modedef->models.size() != 1) return false;
  const ModeDefData& md = *scene.modedef;
  const ModeDefModel& m = md.models[0].model;
  const std::vector<Part> parts = model_parts(m);
  std::vector<uint8_t> from_model(scene.meshes.size(), 0);
  std::vector<uint8_t> part_seen(parts.size(), 0);
  for (const ModeDefMeshSource& src : md.mesh_sources) {
    if (src.model != 0) continue;
    if (src.mesh < 0 || size_t(src.mesh) >= scene.meshes.size()) return false;
    // The part this mesh was made from.
    size_t p = 0;
    while (p < parts.size() && parts[p].group != src.group) ++p;
    if (p == parts.size()) return false;
    part_seen[p] = 1;
    from_model[size_t(src.mesh)] = 1;
    Transform pose;  // identity
    if (src.object >= 0) {
      if (size_t(src.object) >= md.object_joint.size()) return false;
      const int32_t j = md.object_joint[size_t(src.object)];
      if (j < 0 || size_t(j) >= scene.joints.size()) return false;
      pose = scene.joints[size_t(j)].rest;
    }
    const Mesh& mesh = scene.meshes[size_t(src.mesh)];
    const VertexStream* pos = mesh.find(Attribute::Position);
    const std::vector<uint32_t>& faces = parts[p].faces;
    if (mesh.triangles.size() != faces.size() * 3) return false;
    if (faces.empty()) continue;
    if (!pos || pos->components < 3) return false;
    const size_t nv = pos->vertex_count();
    for (size_t t = 0; t < faces.size(); ++t)
      for (int c = 0; c < 3; ++c) {
        const uint32_t v = mesh.triangles[t * 3 + size_t(c)];
        if (v >= nv) return false;
        const std::array<float, 3> want = placed(pose, m.vertices[size_t(m.faces[faces[t]].vertex[c])]);
        for (uint32_t a = 0; a < 3; ++a) {
          const float have = pos->get(v, a);
          if (!(std::fabs(have - want[a]) <= 1e-5f * std::max(1.0f, std::fabs(want[a])))) return false;
        }
      }
  }
  for (uint8_t seen : part_seen)
    if (!seen) return false;
  // A .state's planes are not from the model; in any other Scene a mesh from elsewhere must be
  // written too.
  for (size_t i = 0; i < scene.meshes.size(); ++i)
    if (!from_model[i] && md.kind != ModeDefData::Kind::State) return false;
  return true;
}

}  // namespace

ModeDefModel model_from_meshes(const Scene& scene, Diagnostics& diags) { return derive_model(scene, diags); }

ModeDefModel parse_model(std::string_view text, const std::string& name, Diagnostics& diags) {
  return ModelParser(text, name, diags).parse();
}

std::string print_model(const ModeDefModel& m) {
  const ModeDefIndexing ix = printable_indexing(m);
  std::string out;
  auto section = [&out]() {
    if (!out.empty()) out += '\n';
  };
  const size_t len = m.rest.size(), nev = m.eigenvalues.size();
  out += fmt::format("{} {}\n", nev, len);
  if (nev > 0) {
    section();
    for (float e : m.eigenvalues) out += format_float(e) + '\n';
    section();
    for (size_t k = 0; k < nev; ++k)
      if (len > 0 && (k + 1) * len <= m.eigenvectors.size()) put_floats(out, m.eigenvectors.data() + k * len, len);
  }
  if (len > 0) {
    section();
    for (size_t i = 0; i + 2 < len; i += 3) put_floats(out, m.rest.data() + i, 3);
  }
  section();
  const size_t nn = m.normals.size(), nt = m.texcoords.size();
  out += fmt::format("{} {} {} {} {} {}\n", m.vertices.size(), nn, nt, m.faces.size(), m.materials.size(),
                     m.groups.size());
  if (!m.vertices.empty()) section();
  for (const auto& v : m.vertices) put_floats(out, v.data(), 3);
  if (nn > 0) section();
  for (const auto& n : m.normals) put_floats(out, n.data(), 3);
  if (nt > 0) section();
  for (const auto& t : m.texcoords) put_floats(out, t.data(), 2);
  if (!m.faces.empty()) section();
  const int32_t fb = ix.face_base;
  for (const ModeDefFace& f : m.faces) {
    // Normal and texcoord indices of a model without normals / texcoords are kept as written.
    for (int c = 0; c < 3; ++c)
      out += fmt::format("{}{} {} {}", c ? " " : "", int64_t(f.vertex[c]) + fb,
                         nn > 0 ? int64_t(f.normal[c]) + fb : int64_t(f.normal[c]),
                         nt > 0 ? int64_t(f.texcoord[c]) + fb : int64_t(f.texcoord[c]));
    out += '\n';
  }
  if (!m.materials.empty()) section();
  for (const ModeDefMaterial& mat : m.materials) {
    std::array<float, 17> v{};
    for (int c = 0; c < 4; ++c) {
      v[size_t(c)] = mat.ambient[size_t(c)];
      v[size_t(4 + c)] = mat.diffuse[size_t(c)];
      v[size_t(8 + c)] = mat.specular[size_t(c)];
      v[size_t(12 + c)] = mat.emissive[size_t(c)];
    }
    v[16] = mat.specular_strength;
    put_floats(out, v.data(), v.size());
  }
  if (!m.groups.empty()) section();
  const int32_t gb = ix.group_base;
  for (const ModeDefGroup& g : m.groups)
    out += fmt::format("{} {} {}\n", int64_t(g.first) + gb, int64_t(g.last) + gb + (ix.group_end_inclusive ? 0 : 1),
                       int64_t(g.material) + gb);
  section();
  out += fmt::format("{}\n", m.tets.size());
  for (const auto& t : m.tets)
    out += fmt::format("{} {} {} {}\n", int64_t(t[0]) + ix.tet_base, int64_t(t[1]) + ix.tet_base,
                       int64_t(t[2]) + ix.tet_base, int64_t(t[3]) + ix.tet_base);
  section();
  out += m.carton ? "1\n" : "0\n";
  if (m.carton) {
    out += fmt::format("{}\n", m.carton_vertices.size());
    for (const ModeDefCartonVertex& cv : m.carton_vertices) {
      out += fmt::format("{} ", int64_t(cv.tet) + ix.carton_base);
      put_floats(out, cv.bary.data(), 4);
    }
  }
  return out;
}

void append_model_meshes(Scene& scene, int32_t model, int32_t object, const std::string& stem, Diagnostics&,
                         const ErrorPlace& place) {
  if (!scene.modedef || model < 0 || size_t(model) >= scene.modedef->models.size())
    fail(stem, fmt::format("ModeDef: no model {} in the scene", model));
  // Appending meshes, materials and mesh sources does not move the kept models.
  const ModeDefModel& m = scene.modedef->models[size_t(model)].model;
  const size_t nev = m.mode_count();
  if (nev > 0 && !m.carton && m.vertices.size() != m.node_count())
    fail(stem, fmt::format("ModeDef: no carton: {} render vertices but the modes have {} nodes", m.vertices.size(),
                           m.node_count()));
  // The model may have been built by code rather than parsed: indices are checked again.
  for (size_t f = 0; f < m.faces.size(); ++f)
    for (int c = 0; c < 3; ++c) {
      const ModeDefFace& face = m.faces[f];
      if (face.vertex[c] < 0 || size_t(face.vertex[c]) >= m.vertices.size() ||
          (!m.normals.empty() && (face.normal[c] < 0 || size_t(face.normal[c]) >= m.normals.size())) ||
          (!m.texcoords.empty() && (face.texcoord[c] < 0 || size_t(face.texcoord[c]) >= m.texcoords.size())))
        fail(stem, fmt::format("ModeDef: face {} of the model has an index out of range", f));
    }
  for (const ModeDefGroup& g : m.groups)
    if (g.material < 0 || size_t(g.material) >= m.materials.size())
      fail(stem, fmt::format("ModeDef: a group of the model has material {} ({} materials)", g.material,
                             m.materials.size()));
  const std::vector<Part> parts = model_parts(m);

  // Materials, once per model: a model whose meshes are already in the Scene (another object's
  // copy) reuses its materials, found through one of its grouped meshes. The search starts at the
  // latest copy, so that a .state with many objects of one model stays linear.
  int32_t material_base = -1;
  bool seen_before = false;
  for (auto it = scene.modedef->mesh_sources.rbegin(); it != scene.modedef->mesh_sources.rend(); ++it) {
    const ModeDefMeshSource& src = *it;
    if (src.model != model) continue;
    seen_before = true;
    if (m.groups.empty()) break;  // no materials are used
    if (src.group < 0 || size_t(src.group) >= m.groups.size() || src.mesh < 0 ||
        size_t(src.mesh) >= scene.meshes.size())
      continue;
    const int64_t b = int64_t(scene.meshes[size_t(src.mesh)].material) - m.groups[size_t(src.group)].material;
    if (b >= 0 && size_t(b) + m.materials.size() <= scene.materials.size()) {
      material_base = int32_t(b);
      break;
    }
  }
  if (material_base < 0 && !(seen_before && m.groups.empty())) {
    material_base = int32_t(scene.materials.size());
    for (size_t k = 0; k < m.materials.size(); ++k) {
      Material mat;
      mat.name = fmt::format("material{}", k);
      mat.name_made_up = true;
      mat.base_color = m.materials[k].diffuse;
      mat.emissive = {m.materials[k].emissive[0], m.materials[k].emissive[1], m.materials[k].emissive[2]};
      mat.roughness = roughness_of(m.materials[k]);
      scene.materials.push_back(std::move(mat));
    }
  }

  // Scene vertex count per part, to bound the morph targets before making them.
  uint64_t morph_values = 0;
  std::vector<std::vector<CornerKey>> part_keys(parts.size());
  std::vector<std::vector<uint32_t>> part_tris(parts.size());
  const bool has_n = !m.normals.empty(), has_t = !m.texcoords.empty();
  for (size_t p = 0; p < parts.size(); ++p) {
    std::unordered_map<CornerKey, uint32_t, CornerHash> index;
    index.reserve(parts[p].faces.size() * 3);
    part_tris[p].reserve(parts[p].faces.size() * 3);
    for (uint32_t f : parts[p].faces) {
      const ModeDefFace& face = m.faces[f];
      for (int c = 0; c < 3; ++c) {
        const CornerKey k{face.vertex[c], has_n ? face.normal[c] : -1, has_t ? face.texcoord[c] : -1};
        auto [it, added] = index.try_emplace(k, uint32_t(part_keys[p].size()));
        if (added) part_keys[p].push_back(k);
        part_tris[p].push_back(it->second);
      }
    }
    morph_values += uint64_t(part_keys[p].size()) * 3 * nev;
  }
  if (scene.meshes.size() + parts.size() > kMaxMeshes)
    fail_at_place(place, stem,
                  fmt::format("the model's {} meshes would make more than {} meshes: more than meshport reads from one "
                              "file",
                              parts.size(), kMaxMeshes));
  if (nev * parts.size() > kMaxMorphTargets)
    fail_at_place(place, stem,
                  fmt::format("the model's {} modes on its {} meshes would make {} morph targets (more than {})", nev,
                              parts.size(), nev * parts.size(), kMaxMorphTargets));
  if (morph_values > kMaxMorphValues)
    fail_at_place(place, stem,
                  fmt::format("the model's {} modes would need {} morph target values for its {} Scene vertices "
                              "(more than {})",
                              nev, morph_values, morph_values / 3 / nev, kMaxMorphValues));

  for (size_t p = 0; p < parts.size(); ++p) {
    const std::vector<CornerKey>& keys = part_keys[p];
    Mesh mesh;
    mesh.name = parts[p].group >= 0 ? fmt::format("{}.group{}", stem, parts[p].group)
                : m.groups.empty()  ? stem
                                    : stem + ".ungrouped";
    mesh.material = parts[p].group >= 0 ? material_base + m.groups[size_t(parts[p].group)].material : -1;
    VertexStream pos = make_stream(Attribute::Position, 3, keys.size());
    VertexStream nrm = make_stream(Attribute::Normal, 3, has_n ? keys.size() : 0);
    VertexStream tex = make_stream(Attribute::Texcoord, 2, has_t ? keys.size() : 0);
    ModeDefMeshSource src;
    src.mesh = int32_t(scene.meshes.size());
    src.model = model;
    src.object = object;
    src.group = parts[p].group;
    src.vertex.reserve(keys.size());
    src.normal.reserve(keys.size());
    for (const CornerKey& k : keys) {
      const auto& v = m.vertices[size_t(k.v)];
      pos.data.insert(pos.data.end(), v.begin(), v.end());
      if (has_n) {
        const auto& n = m.normals[size_t(k.n)];
        nrm.data.insert(nrm.data.end(), n.begin(), n.end());
      }
      if (has_t) {
        const auto& t = m.texcoords[size_t(k.t)];
        tex.data.push_back(t[0]);
        tex.data.push_back(1.0f - t[1]);
      }
      src.vertex.push_back(uint32_t(k.v));
      src.normal.push_back(has_n ? k.n : -1);
    }
    mesh.streams.push_back(std::move(pos));
    if (has_n) mesh.streams.push_back(std::move(nrm));
    if (has_t) mesh.streams.push_back(std::move(tex));
    mesh.triangles = std::move(part_tris[p]);
    for (size_t k = 0; k < nev; ++k) {
      MorphTarget mt;
      mt.name = fmt::format("mode{} {:.6g} Hz", k, mode_frequency(m.eigenvalues[k]));
      mt.positions.assign(keys.size() * 3, 0.0f);
      for (size_t v = 0; v < keys.size(); ++v) add_displacement(m, k, size_t(keys[v].v), &mt.positions[v * 3]);
      mesh.morph_targets.push_back(std::move(mt));
    }
    scene.meshes.push_back(std::move(mesh));
    scene.modedef->mesh_sources.push_back(std::move(src));
  }
}

Scene read_model(std::string_view text, const std::string& name, Diagnostics& diags) {
  Scene scene;
  scene.modedef.emplace().kind = ModeDefData::Kind::Model;
  ModeDefModelFile file;
  file.file = path_utf8(utf8_path(name).filename());  // its own name, as .prop and .path keep theirs
  file.model = parse_model(text, name, diags);
  scene.modedef->models.push_back(std::move(file));
  // A model too large for the Scene is reported at its first token, the eigenvalue count.
  TokenReader first(text, name);
  const Token& t = first.peek();
  append_model_meshes(scene, 0, -1, path_utf8(utf8_path(name).stem()), diags,
                      ErrorPlace{name, t.line, t.column, ""});
  for (Mesh& m : scene.meshes) m.name_made_up = true;  // named after the file
  return scene;
}

std::vector<OutputFile> write_model(const Scene& scene, Diagnostics& diags) {
  std::string text;
  if (kept_model_matches(scene)) {
    text = print_model(scene.modedef->models[0].model);
  } else {
    const ModeDefModel m = derive_model(scene, diags);
    size_t kept_modes = 0;
    for (const ModeDefModelFile& f : value_or_empty(scene.modedef).models) kept_modes += f.model.mode_count();
    if (kept_modes > 0)
      diags.add(warning("", fmt::format("ModeDef .model: the meshes no longer match the kept model: writing one made "
                                        "from them, whose {} modes come from their morph targets (the kept {} modes, "
                                        "tetrahedra and carton are dropped)",
                                        m.mode_count(), kept_modes)));
    else if (!value_or_empty(scene.modedef).models.empty())  // a kept model without modes is replaced too
      diags.add(warning("", "ModeDef .model: the meshes no longer match the kept model: writing one made from them "
                            "(the kept tetrahedra, carton, groups and index bases are dropped)"));
    text = print_model(m);
  }
  std::vector<OutputFile> out(1);
  out[0].bytes.assign(text.begin(), text.end());
  return out;
}

}  // namespace meshport::modedef
