// generate_tangents: MikkTSpace-equivalent frames, glTF handedness, vertex splitting.
#include <meshport/process.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <numbers>
#include <tuple>
#include <vector>

#include "core/math.h"

namespace meshport_test_ops_tangents {

using namespace meshport;

namespace {

using Vec4 = std::array<float, 4>;

Mesh make_mesh(const std::vector<Vec3>& pos, const std::vector<Vec3>& nrm, const std::vector<std::array<float, 2>>& uv,
               std::vector<uint32_t> tris) {
  Mesh m;
  m.name = "m";
  std::vector<float> p, n, t;
  for (auto& v : pos) p.insert(p.end(), v.begin(), v.end());
  for (auto& v : nrm) n.insert(n.end(), v.begin(), v.end());
  for (auto& v : uv) t.insert(t.end(), v.begin(), v.end());
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, p));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, t));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, n));
  m.triangles = std::move(tris);
  return m;
}

Vec3 get3(const Mesh& m, Attribute a, size_t v) {
  const VertexStream* s = m.find(a);
  return {s->get(v, 0), s->get(v, 1), s->get(v, 2)};
}
std::array<float, 2> get_uv(const Mesh& m, size_t v) {
  const VertexStream* s = m.find(Attribute::Texcoord);
  return {s->get(v, 0), s->get(v, 1)};
}
Vec4 tangent(const Mesh& m, size_t v) {
  const VertexStream* s = m.find(Attribute::Tangent);
  return {s->get(v, 0), s->get(v, 1), s->get(v, 2), s->get(v, 3)};
}
Vec3 xyz(Vec4 t) { return {t[0], t[1], t[2]}; }

Scene one(Mesh m) {
  Scene s;
  s.meshes.push_back(std::move(m));
  return s;
}

// Every vertex: tangent unit length and perpendicular to the normal within 1e-5, w exactly +-1.
void expect_valid_frames(const Mesh& m) {
  const VertexStream* t = m.find(Attribute::Tangent);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->format, ComponentType::Float);
  EXPECT_EQ(t->source_size, 4u);
  EXPECT_EQ(t->components, 4u);
  ASSERT_EQ(t->vertex_count(), m.vertex_count());
  int bad = 0;
  for (size_t v = 0; v < m.vertex_count(); ++v) {
    Vec4 f = tangent(m, v);
    Vec3 n = normalize(get3(m, Attribute::Normal, v));
    bool ok = std::fabs(length(xyz(f)) - 1) <= 1e-5f && std::fabs(dot(xyz(f), n)) <= 1e-5f &&
              (f[3] == 1.0f || f[3] == -1.0f);
    if (!ok && bad++ < 5)
      ADD_FAILURE() << "vertex " << v << ": tangent " << f[0] << " " << f[1] << " " << f[2] << " " << f[3];
  }
  EXPECT_EQ(bad, 0);
}

// For every corner of a triangle with a UV mapping: sign(dot(cross(n, t), B)) == w, where B is
// the direction in which the image's "up" (decreasing glTF v) grows across the triangle.
void expect_handedness(const Mesh& m) {
  int bad = 0, checked = 0;
  for (size_t t = 0; t < m.triangles.size() / 3; ++t) {
    const uint32_t* c = &m.triangles[3 * t];
    Vec3 p0 = get3(m, Attribute::Position, c[0]);
    Vec3 e1 = get3(m, Attribute::Position, c[1]) - p0, e2 = get3(m, Attribute::Position, c[2]) - p0;
    auto t0 = get_uv(m, c[0]), t1 = get_uv(m, c[1]), t2 = get_uv(m, c[2]);
    float du1 = t1[0] - t0[0], dv1 = t1[1] - t0[1], du2 = t2[0] - t0[0], dv2 = t2[1] - t0[1];
    float det = du1 * dv2 - du2 * dv1;
    if (std::fabs(det) < 1e-12f) continue;
    Vec3 dpdv = (e2 * du1 - e1 * du2) * (1.0f / det);
    Vec3 b = dpdv * -1.0f;
    for (int i = 0; i < 3; ++i) {
      Vec4 f = tangent(m, c[i]);
      Vec3 n = get3(m, Attribute::Normal, c[i]);
      float s = dot(cross(n, xyz(f)), b);
      ++checked;
      if ((s > 0 ? 1.0f : -1.0f) != f[3] && bad++ < 5)
        ADD_FAILURE() << "triangle " << t << " corner " << i << ": w " << f[3] << " but dot " << s;
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(checked, 0);
}

// ---- Models ----------------------------------------------------------------------------------

// A cube, each face its own 4 vertices and UV square. Face k: centre n, u axis a, image-up axis
// b; corner (s, t) = n + s a + t b at u = (s + 1) / 2, v = (1 - t) / 2. Faces whose a x b is -n
// show their image mirrored.
struct CubeFace {
  Vec3 n, a, b;
};
const CubeFace kCube[6] = {
    {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},    // front
    {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},  // back
    {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}},   // right
    {{-1, 0, 0}, {0, 0, -1}, {0, 1, 0}},  // left: mirrored
    {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},   // top
    {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}},  // bottom: mirrored
};

Mesh cube(bool quads) {
  std::vector<Vec3> pos, nrm;
  std::vector<std::array<float, 2>> uv;
  std::vector<uint32_t> tris;
  for (const CubeFace& f : kCube) {
    const bool mirrored = dot(cross(f.a, f.b), f.n) < 0;
    // Counter-clockwise around n.
    std::array<std::array<float, 2>, 4> st = {{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}};
    if (mirrored) st = {{{-1, -1}, {-1, 1}, {1, 1}, {1, -1}}};
    uint32_t base = uint32_t(pos.size());
    for (auto [s, t] : st) {
      pos.push_back(f.n + f.a * s + f.b * t);
      nrm.push_back(f.n);
      uv.push_back({(s + 1) / 2, (1 - t) / 2});
    }
    for (uint32_t k : {0u, 1u, 2u, 0u, 2u, 3u}) tris.push_back(base + k);
  }
  Mesh m = make_mesh(pos, nrm, uv, tris);
  if (quads) m.polygon_sizes.assign(6, 4);
  return m;
}

// A UV sphere: `rings` bands from the north pole (v = 0, image top) to the south pole, `segs`
// segments around with u = phi / 2pi; a seam column (u = 0 and u = 1) and one pole vertex per
// segment at the segment's middle u.
Mesh uv_sphere(int rings, int segs) {
  std::vector<Vec3> pos, nrm;
  std::vector<std::array<float, 2>> uv;
  std::vector<uint32_t> tris;
  const double pi = std::numbers::pi;
  auto point = [&](double theta, double phi) {
    return Vec3{float(std::sin(theta) * std::cos(phi)), float(std::cos(theta)), float(-std::sin(theta) * std::sin(phi))};
  };
  auto add = [&](Vec3 p, float u, float v) {
    pos.push_back(p);
    nrm.push_back(normalize(p));
    uv.push_back({u, v});
    return uint32_t(pos.size() - 1);
  };
  std::vector<uint32_t> north(segs), south(segs);
  for (int s = 0; s < segs; ++s) north[s] = add({0, 1, 0}, (s + 0.5f) / segs, 0);
  std::vector<std::vector<uint32_t>> ring(rings + 1, std::vector<uint32_t>(segs + 1));
  for (int r = 1; r < rings; ++r)
    for (int s = 0; s <= segs; ++s)
      ring[r][s] = add(point(pi * r / rings, 2 * pi * s / segs), float(s) / segs, float(r) / rings);
  for (int s = 0; s < segs; ++s) south[s] = add({0, -1, 0}, (s + 0.5f) / segs, 1);
  for (int s = 0; s < segs; ++s) {
    tris.insert(tris.end(), {north[s], ring[1][s], ring[1][s + 1]});
    for (int r = 1; r + 1 < rings; ++r) {
      uint32_t a = ring[r][s], b = ring[r + 1][s], c = ring[r + 1][s + 1], d = ring[r][s + 1];
      tris.insert(tris.end(), {a, b, c, a, c, d});
    }
    tris.insert(tris.end(), {ring[rings - 1][s], south[s], ring[rings - 1][s + 1]});
  }
  return make_mesh(pos, nrm, uv, tris);
}

// A flat strip of quads in the z = 0 plane facing +z, columns x = 0..cols, rows y = 0..1, with
// v = 1 - y. u = x / 2 up to the middle column, then mirrored back: u = (cols - x) / 2.
Mesh mirrored_strip(int cols) {
  std::vector<Vec3> pos, nrm;
  std::vector<std::array<float, 2>> uv;
  std::vector<uint32_t> tris;
  for (int y = 0; y <= 1; ++y)
    for (int x = 0; x <= cols; ++x) {
      pos.push_back({float(x), float(y), 0});
      nrm.push_back({0, 0, 1});
      float u = x <= cols / 2 ? x / 2.0f : (cols - x) / 2.0f;
      uv.push_back({u, 1.0f - y});
    }
  const uint32_t w = uint32_t(cols + 1);
  for (uint32_t x = 0; x < uint32_t(cols); ++x) {
    uint32_t a = x, b = x + 1, c = w + x + 1, d = w + x;
    tris.insert(tris.end(), {a, b, c, a, c, d});
  }
  Mesh m = make_mesh(pos, nrm, uv, tris);
  m.polygon_sizes.assign(cols, 4);
  return m;
}

void flip_v_in(Mesh& m) {
  VertexStream* t = m.find(Attribute::Texcoord);
  for (size_t v = 0; v < t->vertex_count(); ++v) t->data[v * t->components + 1] = 1.0f - t->data[v * t->components + 1];
}

// ---- A plain reference: MikkTSpace's steps with naive searches -------------------------------
// Triangles only, no degenerate triangles; the same rules, written as directly as possible, to
// check the fast paths (hash welding, bucketed edge pairing, iterative group growth).
std::vector<Vec4> reference_corner_frames(const Mesh& m) {
  const size_t tris = m.triangles.size() / 3;
  auto key = [&](uint32_t v) {
    Vec3 p = get3(m, Attribute::Position, v), n = get3(m, Attribute::Normal, v);
    auto t = get_uv(m, v);
    return std::make_tuple(p[0], p[1], p[2], n[0], n[1], n[2], t[0], t[1]);
  };
  std::map<decltype(key(0)), uint32_t> first;
  std::vector<uint32_t> wv(m.triangles.size());
  for (size_t c = 0; c < wv.size(); ++c) wv[c] = first.try_emplace(key(m.triangles[c]), m.triangles[c]).first->second;
  std::vector<Vec3> ft(tris, Vec3{0, 0, 0});
  std::vector<bool> orient(tris), any(tris, true);
  for (size_t t = 0; t < tris; ++t) {
    const uint32_t* c = &m.triangles[3 * t];
    Vec3 d1 = get3(m, Attribute::Position, c[1]) - get3(m, Attribute::Position, c[0]);
    Vec3 d2 = get3(m, Attribute::Position, c[2]) - get3(m, Attribute::Position, c[0]);
    auto t0 = get_uv(m, c[0]), t1 = get_uv(m, c[1]), t2 = get_uv(m, c[2]);
    float s1 = t1[0] - t0[0], s2 = t2[0] - t0[0], r1 = -(t1[1] - t0[1]), r2 = -(t2[1] - t0[1]);
    float area = s1 * r2 - r1 * s2;
    orient[t] = area > 0;
    Vec3 os = d1 * r2 - d2 * r1, ot = d2 * s1 - d1 * s2;
    if (std::fabs(area) > 1e-30f && length(os) > 0 && length(ot) > 0) {
      any[t] = false;
      ft[t] = normalize(os) * (area > 0 ? 1.0f : -1.0f);
    }
  }
  // Each edge, in triangle order, pairs with the first later unpaired edge running back.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<size_t>> by_edge;
  auto edge = [&](size_t c) { return std::make_pair(wv[c], wv[3 * (c / 3) + (c % 3 + 1) % 3]); };
  for (size_t c = 0; c < 3 * tris; ++c) by_edge[edge(c)].push_back(c);
  std::vector<int64_t> nb(3 * tris, -1);
  for (size_t a = 0; a < 3 * tris; ++a) {
    if (nb[a] >= 0) continue;
    auto it = by_edge.find({edge(a).second, edge(a).first});
    if (it == by_edge.end()) continue;
    for (size_t b : it->second)
      if (b / 3 > a / 3 && nb[b] < 0) {
        nb[a] = int64_t(b / 3);
        nb[b] = int64_t(a / 3);
        break;
      }
  }
  std::vector<int64_t> group(3 * tris, -1);
  std::vector<uint32_t> grep;
  std::vector<bool> gorient;
  std::function<void(int64_t, int64_t)> assign = [&](int64_t t, int64_t g) {
    if (t < 0) return;
    int i = 0;
    while (i < 3 && wv[3 * t + i] != grep[g]) ++i;
    if (i == 3 || group[3 * t + i] >= 0) return;
    if (any[t] && group[3 * t] < 0 && group[3 * t + 1] < 0 && group[3 * t + 2] < 0) orient[t] = gorient[g];
    if (orient[t] != gorient[g]) return;
    group[3 * t + i] = g;
    assign(nb[3 * t + i], g);
    assign(nb[3 * t + (i + 2) % 3], g);
  };
  for (size_t t = 0; t < tris; ++t)
    for (int i = 0; i < 3; ++i)
      if (!any[t] && group[3 * t + i] < 0) {
        int64_t g = int64_t(grep.size());
        grep.push_back(wv[3 * t + i]);
        gorient.push_back(orient[t]);
        group[3 * t + i] = g;
        assign(nb[3 * t + i], g);
        assign(nb[3 * t + (i + 2) % 3], g);
      }
  std::vector<Vec3> sum(grep.size(), Vec3{0, 0, 0});
  auto proj = [](Vec3 n, Vec3 v) { return normalize(v - n * dot(n, v)); };
  for (size_t t = 0; t < tris; ++t) {
    if (any[t]) continue;
    for (int i = 0; i < 3; ++i) {
      if (group[3 * t + i] < 0) continue;
      uint32_t c = m.triangles[3 * t + i];
      Vec3 n = normalize(get3(m, Attribute::Normal, c)), p = get3(m, Attribute::Position, c);
      Vec3 a = proj(n, get3(m, Attribute::Position, m.triangles[3 * t + (i + 1) % 3]) - p);
      Vec3 b = proj(n, get3(m, Attribute::Position, m.triangles[3 * t + (i + 2) % 3]) - p);
      float angle = std::acos(std::fmax(-1.0f, std::fmin(1.0f, dot(a, b))));
      sum[group[3 * t + i]] = sum[group[3 * t + i]] + proj(n, ft[t]) * angle;
    }
  }
  std::vector<Vec4> out(3 * tris);
  for (size_t c = 0; c < 3 * tris; ++c) {
    Vec3 t{1, 0, 0};
    float w = -1;
    if (group[c] >= 0) {
      t = normalize(sum[group[c]]);
      w = gorient[group[c]] ? 1.0f : -1.0f;
    }
    Vec3 n = normalize(get3(m, Attribute::Normal, m.triangles[c]));
    t = proj(n, t);
    out[c] = {t[0], t[1], t[2], w};
  }
  return out;
}

// A bumpy grid with a twisted mapping: left columns mirrored, a band of zero-area UVs (group
// with any), and hard UV seams that share positions.
Mesh awkward_grid(int n) {
  std::vector<Vec3> pos, nrm;
  std::vector<std::array<float, 2>> uv;
  std::vector<uint32_t> tris;
  auto height = [](float x, float y) { return 0.3f * std::sin(x * 1.7f) * std::cos(y * 1.3f); };
  auto vertex = [&](int x, int y, int island) {
    float fx = float(x), fy = float(y);
    Vec3 p{fx, fy, height(fx, fy)};
    float hx = (height(fx + 0.01f, fy) - height(fx - 0.01f, fy)) / 0.02f;
    float hy = (height(fx, fy + 0.01f) - height(fx, fy - 0.01f)) / 0.02f;
    float u = fx * 0.1f + 0.02f * std::sin(fy), v = 1 - fy * 0.1f;
    if (x < n / 3) u = -u;                   // mirrored columns
    if (y == n / 2) v = 1 - (n / 2 - 1) * 0.1f;  // flattens the UVs of the row below: group with any
    if (island) u += 5;                      // a second island on the right half
    pos.push_back(p);
    nrm.push_back(normalize(Vec3{-hx, -hy, 1}));
    uv.push_back({u, v});
    return uint32_t(pos.size() - 1);
  };
  std::map<std::tuple<int, int, int>, uint32_t> ids;
  auto id = [&](int x, int y, int island) {
    auto [it, made] = ids.try_emplace({x, y, island}, 0);
    if (made) it->second = vertex(x, y, island);
    return it->second;
  };
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      int island = x >= 2 * n / 3 ? 1 : 0;
      uint32_t a = id(x, y, island), b = id(x + 1, y, island), c = id(x + 1, y + 1, island), d = id(x, y + 1, island);
      if ((x + y) % 2) tris.insert(tris.end(), {a, b, c, a, c, d});
      else tris.insert(tris.end(), {a, b, d, b, c, d});
    }
  return make_mesh(pos, nrm, uv, tris);
}

}  // namespace

// ---- Tests -----------------------------------------------------------------------------------

TEST(OpsTangents, CubeFacesExactlyAlongU) {
  for (bool quads : {false, true}) {
    Scene s = one(cube(quads));
    EXPECT_EQ(generate_tangents(s), 1u);
    const Mesh& m = s.meshes[0];
    ASSERT_EQ(m.vertex_count(), 24u) << "no vertex needs splitting";
    for (size_t f = 0; f < 6; ++f) {
      const bool mirrored = dot(cross(kCube[f].a, kCube[f].b), kCube[f].n) < 0;
      for (size_t k = 0; k < 4; ++k) {
        Vec4 t = tangent(m, 4 * f + k);
        EXPECT_EQ(xyz(t), kCube[f].a) << "face " << f << " corner " << k << (quads ? " (quads)" : "");
        EXPECT_EQ(t[3], mirrored ? -1.0f : 1.0f) << "face " << f;
      }
    }
    expect_valid_frames(m);
    expect_handedness(m);
  }
}

TEST(OpsTangents, UvSphereAroundTheEquator) {
  Scene s = one(uv_sphere(16, 32));
  const size_t vertices = s.meshes[0].vertex_count();
  EXPECT_EQ(generate_tangents(s), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.vertex_count(), vertices) << "a sphere without mirroring splits nothing";
  expect_valid_frames(m);
  expect_handedness(m);
  float worst = 1;
  for (size_t v = 0; v < m.vertex_count(); ++v) {
    Vec4 t = tangent(m, v);
    EXPECT_EQ(t[3], 1.0f) << v;
    Vec3 p = get3(m, Attribute::Position, v);
    if (std::fabs(p[1]) > 0.999f) continue;  // the poles have no "around"
    float phi = std::atan2(-p[2], p[0]);
    Vec3 around{-std::sin(phi), 0, -std::cos(phi)};  // d position / d u
    worst = std::min(worst, dot(xyz(t), around));
  }
  EXPECT_GT(worst, 0.99f);  // the seam columns see one side only: cos(pi / 32) = 0.995
}

TEST(OpsTangents, SphereMatchesAnalyticTangentAwayFromSeam) {
  Scene s = one(uv_sphere(24, 48));
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  for (size_t v = 0; v < m.vertex_count(); ++v) {
    Vec3 p = get3(m, Attribute::Position, v);
    float u = get_uv(m, v)[0];
    if (std::fabs(p[1]) > 0.999f || u == 0.0f || u == 1.0f) continue;
    float phi = std::atan2(-p[2], p[0]);
    Vec3 around{-std::sin(phi), 0, -std::cos(phi)};
    EXPECT_GT(dot(xyz(tangent(m, v)), around), 0.9999f) << v;
  }
}

TEST(OpsTangents, MirroredUvsSplitTheSeam) {
  Scene s = one(mirrored_strip(4));
  ASSERT_EQ(s.meshes[0].vertex_count(), 10u);
  EXPECT_EQ(generate_tangents(s), 1u);
  const Mesh& m = s.meshes[0];
  // The two seam vertices (x = 2) each get a second copy: one frame per side.
  ASSERT_EQ(m.vertex_count(), 12u);
  EXPECT_EQ(m.polygon_sizes, std::vector<uint32_t>(4, 4));
  for (size_t c = 0; c < m.triangles.size(); ++c) {
    const size_t quad = c / 6;
    Vec4 t = tangent(m, m.triangles[c]);
    if (quad < 2)
      EXPECT_EQ(t, (Vec4{1, 0, 0, 1})) << "corner " << c;
    else
      EXPECT_EQ(t, (Vec4{-1, 0, 0, -1})) << "corner " << c;
  }
  for (uint32_t seam : {2u, 7u}) {
    EXPECT_EQ(tangent(m, seam), (Vec4{1, 0, 0, 1})) << "the first corner's frame stays with the vertex";
  }
  for (uint32_t copy : {10u, 11u}) {
    EXPECT_EQ(tangent(m, copy), (Vec4{-1, 0, 0, -1}));
    uint32_t orig = copy == 10u ? 2u : 7u;
    EXPECT_EQ(get3(m, Attribute::Position, copy), get3(m, Attribute::Position, orig));
    EXPECT_EQ(get_uv(m, copy), get_uv(m, orig));
  }
  expect_valid_frames(m);
  expect_handedness(m);
}

TEST(OpsTangents, FlippedVNegatesHandedness) {
  for (Mesh base : {uv_sphere(12, 20), mirrored_strip(6), cube(true), awkward_grid(9)}) {
    Scene a = one(base), b = one(base);
    flip_v_in(b.meshes[0]);
    generate_tangents(a);
    generate_tangents(b);
    const Mesh& ma = a.meshes[0];
    const Mesh& mb = b.meshes[0];
    ASSERT_EQ(ma.triangles.size(), mb.triangles.size());
    size_t defaults = 0;
    for (size_t c = 0; c < ma.triangles.size(); ++c) {
      Vec4 ta = tangent(ma, ma.triangles[c]), tb = tangent(mb, mb.triangles[c]);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(ta[k], tb[k], 1e-5f) << "corner " << c;
      // Corners no group reaches keep MikkTSpace's fixed default frame (w = -1) either way.
      if (ta[3] == tb[3]) {
        EXPECT_EQ(ta[3], -1.0f) << "corner " << c;
        ++defaults;
        continue;
      }
      EXPECT_EQ(ta[3], -tb[3]) << "corner " << c;
    }
    EXPECT_LE(defaults, ma.triangles.size() / 50);
    expect_handedness(ma);
    expect_handedness(mb);
  }
}

TEST(OpsTangents, ZeroUvAreaTriangleTakesItsNeighboursFrame) {
  // A unit quad (v0 v1 v2 v3) plus a triangle (v1 v4 v2) sharing its right edge whose UVs lie on
  // one line: it "groups with any", so its corners at v1 and v2 take the quad's frame; v4 has no
  // group and keeps MikkTSpace's default, the x axis with w = -1.
  std::vector<Vec3> pos = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {2, 0.5f, 0}};
  std::vector<Vec3> nrm(5, Vec3{0, 0, 1});
  std::vector<std::array<float, 2>> uv = {{0, 1}, {1, 1}, {1, 0}, {0, 0}, {1, 0.5f}};
  Scene s = one(make_mesh(pos, nrm, uv, {0, 1, 2, 0, 2, 3, 1, 4, 2}));
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.vertex_count(), 5u);
  for (uint32_t v : {0u, 1u, 2u, 3u}) EXPECT_EQ(tangent(m, v), (Vec4{1, 0, 0, 1})) << v;
  EXPECT_EQ(tangent(m, 4), (Vec4{1, 0, 0, -1}));
  expect_valid_frames(m);
}

TEST(OpsTangents, IsolatedZeroUvAreaTriangleGetsPerpendicularDefault) {
  // Normal tilted about y: the default x axis is projected into the tangent plane.
  const float c = std::cos(0.5f), sn = std::sin(0.5f);
  Vec3 n{sn, 0, c};
  std::vector<Vec3> pos = {{0, 0, 0}, {c, 0, -sn}, {0, 1, 0}};
  Scene s = one(make_mesh(pos, {n, n, n}, {{0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}}, {0, 1, 2}));
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  for (uint32_t v = 0; v < 3; ++v) {
    Vec4 t = tangent(m, v);
    EXPECT_NEAR(t[0], c, 1e-6f);
    EXPECT_NEAR(t[1], 0, 1e-6f);
    EXPECT_NEAR(t[2], -sn, 1e-6f);
    EXPECT_EQ(t[3], -1.0f);
  }
  expect_valid_frames(m);
}

TEST(OpsTangents, DegenerateTriangleCopiesAGoodCornerOfItsWeldedVertex) {
  // The quad of the test above plus a triangle (v1 v2 v5) with v5 at v2's position: degenerate.
  // v5 has v2's position, normal and UV (it differs only in colour), so it welds with v2 and
  // copies v2's frame; v1 and v2 keep theirs.
  std::vector<Vec3> pos = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}};
  std::vector<Vec3> nrm(5, Vec3{0, 0, 1});
  std::vector<std::array<float, 2>> uv = {{0, 1}, {1, 1}, {1, 0}, {0, 0}, {1, 0}};
  Mesh mesh = make_mesh(pos, nrm, uv, {0, 1, 2, 0, 2, 3, 1, 2, 4});
  mesh.streams.push_back(testutil::float_stream(Attribute::Color, 1, {0, 0, 0, 0, 1}));
  // Shear the UVs so the tangent is not an axis.
  VertexStream* t = mesh.find(Attribute::Texcoord);
  for (size_t v = 0; v < 5; ++v) t->data[2 * v] += 0.25f * t->data[2 * v + 1];
  Scene s = one(mesh);
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.vertex_count(), 5u);
  EXPECT_EQ(tangent(m, 4), tangent(m, 2));
  EXPECT_EQ(tangent(m, 4)[3], 1.0f);
  expect_valid_frames(m);
}

TEST(OpsTangents, DegenerateTriangleWithoutGoodCornerGetsDefault) {
  std::vector<Vec3> pos = {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}};
  Scene s = one(make_mesh(pos, std::vector<Vec3>(3, Vec3{0, 0, 1}), {{0, 0}, {1, 0}, {0, 1}}, {0, 1, 2}));
  generate_tangents(s);
  for (uint32_t v = 0; v < 3; ++v) EXPECT_EQ(tangent(s.meshes[0], v), (Vec4{1, 0, 0, -1}));
}

TEST(OpsTangents, QuadSplitsAlongShorterUvDiagonal) {
  // A non-planar quad with a non-affine mapping: the diagonal matters. p1-p3 is the shorter UV
  // diagonal, so the quad must give what triangles (0 1 3) (1 2 3) give, not the fan (0 1 2) (0 2 3).
  std::vector<Vec3> pos = {{0, 0, 0}, {1, 0, 0.3f}, {1.2f, 1, 0}, {0, 1, 0.2f}};
  std::vector<Vec3> nrm = {normalize(Vec3{0.1f, 0, 1}), normalize(Vec3{-0.2f, 0.1f, 1}), normalize(Vec3{0, -0.1f, 1}),
                           normalize(Vec3{0.1f, 0.2f, 1})};
  std::vector<std::array<float, 2>> uv_13 = {{0, 1}, {0.8f, 0.9f}, {1, 0}, {0.3f, 0.2f}};
  std::vector<std::array<float, 2>> uv_02 = {{0.2f, 0.8f}, {1, 1}, {0.8f, 0.2f}, {0, 0}};
  for (bool short13 : {true, false}) {
    const auto& uv = short13 ? uv_13 : uv_02;
    Mesh quad = make_mesh(pos, nrm, uv, {0, 1, 2, 0, 2, 3});
    quad.polygon_sizes = {4};
    Mesh tris = make_mesh(pos, nrm, uv, short13 ? std::vector<uint32_t>{0, 1, 3, 1, 2, 3} : std::vector<uint32_t>{0, 1, 2, 0, 2, 3});
    Mesh other = make_mesh(pos, nrm, uv, short13 ? std::vector<uint32_t>{0, 1, 2, 0, 2, 3} : std::vector<uint32_t>{0, 1, 3, 1, 2, 3});
    Scene a = one(quad), b = one(tris), c = one(other);
    generate_tangents(a);
    generate_tangents(b);
    generate_tangents(c);
    ASSERT_EQ(a.meshes[0].vertex_count(), 4u);
    ASSERT_EQ(b.meshes[0].vertex_count(), 4u);
    float differs = 0;
    for (uint32_t v = 0; v < 4; ++v) {
      EXPECT_EQ(tangent(a.meshes[0], v), tangent(b.meshes[0], v)) << v << (short13 ? " 1-3" : " 0-2");
      differs = std::max(differs, length(xyz(tangent(a.meshes[0], v)) - xyz(tangent(c.meshes[0], v))));
    }
    EXPECT_GT(differs, 1e-3f) << "the test quad must be sensitive to the diagonal";
  }
}

void expect_matches_reference(const Mesh& base) {
  std::vector<Vec4> want = reference_corner_frames(base);
  Scene s = one(base);
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.triangles.size(), base.triangles.size());
  int mirrored = 0, any_split = 0, bad = 0;
  for (size_t c = 0; c < m.triangles.size(); ++c) {
    Vec4 got = tangent(m, m.triangles[c]);
    bool ok = got[3] == want[c][3];
    for (int k = 0; k < 3; ++k) ok = ok && std::fabs(got[k] - want[c][k]) <= 1e-5f;
    if (!ok && bad++ < 5)
      ADD_FAILURE() << "corner " << c << ": " << got[0] << " " << got[1] << " " << got[2] << " " << got[3] << " want "
                    << want[c][0] << " " << want[c][1] << " " << want[c][2] << " " << want[c][3];
    mirrored += got[3] < 0;
    any_split += m.triangles[c] != base.triangles[c];
    // Split vertices are copies of the original.
    if (get3(m, Attribute::Position, m.triangles[c]) != get3(base, Attribute::Position, base.triangles[c]) ||
        get_uv(m, m.triangles[c]) != get_uv(base, base.triangles[c]))
      ++bad;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(mirrored, 0);
  EXPECT_GT(any_split, 0);
  expect_valid_frames(m);
}

TEST(OpsTangents, MatchesReferenceOnAwkwardGrid) { expect_matches_reference(awkward_grid(12)); }

// Large enough (72k triangles, 36k vertices) for every step to run as two threaded halves.
TEST(OpsTangents, MatchesReferenceOnLargeAwkwardGrid) { expect_matches_reference(awkward_grid(190)); }

TEST(OpsTangents, EmptyMeshes) {
  Scene s;
  s.meshes = {make_mesh({}, {}, {}, {}), make_mesh({{0, 0, 0}, {1, 0, 0}}, {{0, 0, 1}, {1, 0, 0}}, {{0, 0}, {1, 0}}, {})};
  EXPECT_EQ(generate_tangents(s), 2u);
  EXPECT_EQ(s.meshes[0].find(Attribute::Tangent)->data.size(), 0u);
  EXPECT_EQ(tangent(s.meshes[1], 0), (Vec4{1, 0, 0, 1}));
  EXPECT_EQ(tangent(s.meshes[1], 1), (Vec4{0, 1, 0, 1}));
}

TEST(OpsTangents, ExistingTangentsKeptUnlessRecompute) {
  Mesh base = mirrored_strip(4);
  base.streams.insert(base.streams.begin() + 1,
                      testutil::float_stream(Attribute::Tangent, 4, std::vector<float>(40, 0.5f)));
  Scene s = one(base);
  EXPECT_EQ(generate_tangents(s), 0u);
  EXPECT_EQ(s.meshes[0], base);

  EXPECT_EQ(generate_tangents(s, TangentOptions{.recompute = true}), 1u);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.streams.size(), 4u);
  EXPECT_EQ(m.streams[1].attribute, Attribute::Tangent) << "the new stream takes the old one's place";
  Scene fresh = one(mirrored_strip(4));
  generate_tangents(fresh);
  EXPECT_EQ(m.find(Attribute::Tangent)->data, fresh.meshes[0].find(Attribute::Tangent)->data);
  EXPECT_EQ(m.triangles, fresh.meshes[0].triangles);
}

TEST(OpsTangents, MeshesWithoutTexcoordsOrNormalsSkipped) {
  Mesh no_uv = mirrored_strip(2);
  std::erase_if(no_uv.streams, [](const VertexStream& st) { return st.attribute == Attribute::Texcoord; });
  Mesh no_normal = mirrored_strip(2);
  std::erase_if(no_normal.streams, [](const VertexStream& st) { return st.attribute == Attribute::Normal; });
  Scene s;
  s.meshes = {no_uv, no_normal, mirrored_strip(2)};
  Diagnostics d;
  EXPECT_EQ(generate_tangents(s, {}, &d), 1u);
  EXPECT_EQ(s.meshes[0], no_uv);
  EXPECT_EQ(s.meshes[1], no_normal);
  EXPECT_NE(s.meshes[2].find(Attribute::Tangent), nullptr);
  EXPECT_TRUE(d.items.empty()) << "silent unless recompute was asked";

  EXPECT_EQ(generate_tangents(s, TangentOptions{.recompute = true}, &d), 1u);
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_NE(d.items[0].message.find("texture coordinates"), std::string::npos) << d.items[0].message;
  EXPECT_NE(d.items[1].message.find("normals"), std::string::npos) << d.items[1].message;
  EXPECT_EQ(d.items[0].severity, Severity::Warning);
}

TEST(OpsTangents, SplitVerticesKeepEveryOtherAttribute) {
  Mesh base = mirrored_strip(4);
  const size_t n = base.vertex_count();
  std::vector<float> color, joints, weights, custom;
  for (size_t v = 0; v < n; ++v) {
    color.insert(color.end(), {v * 0.1f, 0.5f, 1 - v * 0.05f, 1});
    joints.insert(joints.end(), {float(v % 3), float(v % 5)});
    weights.insert(weights.end(), {0.75f, 0.25f});
    custom.push_back(float(v) * 7);
  }
  base.streams.push_back(testutil::float_stream(Attribute::Color, 4, color));
  base.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 2, joints));
  base.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 2, weights));
  VertexStream cs = testutil::float_stream(Attribute::Custom, 1, custom);
  cs.name = "heat";
  cs.custom_slot = 3;
  base.streams.push_back(cs);
  for (size_t v = 0; v < n; ++v) base.smoothing.vertex_key.push_back(int32_t(100 + v));
  base.smoothing.face_group.assign(4, 2);
  Scene s = one(base);
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.vertex_count(), n + 2);
  ASSERT_EQ(m.smoothing.vertex_key.size(), n + 2);
  EXPECT_EQ(m.smoothing.face_group, base.smoothing.face_group);
  EXPECT_EQ(m.polygon_sizes, base.polygon_sizes);
  ASSERT_EQ(m.streams.size(), base.streams.size() + 1);
  for (size_t k = 0; k < base.streams.size(); ++k) {
    const VertexStream& a = base.streams[k];
    const VertexStream& b = m.streams[k];
    EXPECT_EQ(a.attribute, b.attribute);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.custom_slot, b.custom_slot);
    ASSERT_EQ(b.vertex_count(), n + 2);
    // Every corner sees the same values as before.
    for (size_t c = 0; c < m.triangles.size(); ++c)
      for (uint32_t i = 0; i < a.components; ++i)
        EXPECT_EQ(b.get(m.triangles[c], i), a.get(base.triangles[c], i)) << "stream " << k << " corner " << c;
  }
  for (size_t c = 0; c < m.triangles.size(); ++c)
    EXPECT_EQ(m.smoothing.vertex_key[m.triangles[c]], base.smoothing.vertex_key[base.triangles[c]]);
  // Original vertices keep their index.
  for (size_t v = 0; v < n; ++v) EXPECT_EQ(m.streams[3].get(v, 0), base.streams[3].get(v, 0));
}

TEST(OpsTangents, SameFrameSharesOneVertex) {
  // Seam vertex 2 (bottom, x = 2) has one corner on the left quad and two on the right one; seam
  // vertex 7 (top) two on the left and one on the right. The two right corners of vertex 2 share
  // one copy; each left side keeps the original.
  Scene s = one(mirrored_strip(4));
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.vertex_count(), 12u);
  std::map<uint32_t, int> uses;
  for (uint32_t v : m.triangles) ++uses[v];
  EXPECT_EQ(uses[2], 1);
  EXPECT_EQ(uses[10], 2);
  EXPECT_EQ(uses[7], 2);
  EXPECT_EQ(uses[11], 1);
}

TEST(OpsTangents, UnusedVerticesGetAPerpendicularFrame) {
  Mesh mesh = mirrored_strip(2);
  VertexStream* p = mesh.find(Attribute::Position);
  VertexStream* n = mesh.find(Attribute::Normal);
  VertexStream* t = mesh.find(Attribute::Texcoord);
  p->data.insert(p->data.end(), {5, 5, 5});
  n->data.insert(n->data.end(), {1, 0, 0});
  t->data.insert(t->data.end(), {0, 0});
  const size_t unused = mesh.vertex_count() - 1;
  Scene s = one(mesh);
  generate_tangents(s);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(tangent(m, unused), (Vec4{0, 1, 0, 1}));
  expect_valid_frames(m);
}

TEST(OpsTangents, HostileInputFinishes) {
  // A fan of 30000 triangles around one vertex, the same triangle repeated 30000 times, NaN and
  // infinite UVs, and zero normals: everything ends with finite unit tangents and w = +-1.
  std::vector<Vec3> pos, nrm;
  std::vector<std::array<float, 2>> uv;
  std::vector<uint32_t> tris;
  pos.push_back({0, 0, 0});
  nrm.push_back({0, 0, 1});
  uv.push_back({0.5f, 0.5f});
  const int fan = 30000;
  for (int k = 0; k <= fan; ++k) {
    float a = float(k) * 0.001f;
    pos.push_back({std::cos(a), std::sin(a), 0});
    nrm.push_back(k % 7 == 0 ? Vec3{0, 0, 0} : Vec3{0, 0, 1});
    float u = k % 11 == 0 ? NAN : k % 13 == 0 ? INFINITY : std::cos(a);
    uv.push_back({u, std::sin(a)});
    if (k > 0) tris.insert(tris.end(), {0, uint32_t(k), uint32_t(k + 1)});
  }
  for (int k = 0; k < fan; ++k) tris.insert(tris.end(), {1, 2, 3});
  Scene s = one(make_mesh(pos, nrm, uv, tris));
  EXPECT_EQ(generate_tangents(s), 1u);
  const Mesh& m = s.meshes[0];
  for (size_t v = 0; v < m.vertex_count(); ++v) {
    Vec4 t = tangent(m, v);
    ASSERT_TRUE(std::isfinite(t[0]) && std::isfinite(t[1]) && std::isfinite(t[2])) << v;
    ASSERT_NEAR(length(xyz(t)), 1.0f, 1e-5f) << v;
    ASSERT_TRUE(t[3] == 1.0f || t[3] == -1.0f) << v;
  }
  // Deterministic: the same input gives the same output.
  Scene again = one(make_mesh(pos, nrm, uv, tris));
  generate_tangents(again);
  EXPECT_EQ(again.meshes[0].triangles, m.triangles);
  EXPECT_EQ(again.meshes[0].find(Attribute::Tangent)->data.size(), m.find(Attribute::Tangent)->data.size());
}

TEST(OpsTangents, MalformedMeshThrowsAndLeavesSceneUntouched) {
  Scene s;
  s.meshes = {mirrored_strip(2), mirrored_strip(2)};
  s.meshes[1].triangles.push_back(0);
  Scene before = s;
  EXPECT_THROW(generate_tangents(s), Error);
  EXPECT_EQ(s, before);
}

// Any thread count gives the tangents of one thread: several meshes of even size (on threads of
// their own), one large mesh with small ones (each on every thread, in parts), and threads = 1.
TEST(OpsTangents, ThreadCountsGiveTheSameTangents) {
  Scene even, uneven;
  for (int i = 0; i < 4; ++i) even.meshes.push_back(awkward_grid(100 + 7 * i));
  uneven.meshes.push_back(awkward_grid(190));
  uneven.meshes.push_back(uv_sphere(12, 20));
  uneven.meshes.push_back(mirrored_strip(6));
  for (const Scene& base : {even, uneven}) {
    Scene serial = base;
    ASSERT_EQ(generate_tangents(serial, {}, nullptr, 1), base.meshes.size());
    for (unsigned threads : {0u, 2u, 3u, 4u}) {
      SCOPED_TRACE(threads);
      Scene s = base;
      EXPECT_EQ(generate_tangents(s, {}, nullptr, threads), base.meshes.size());
      EXPECT_TRUE(s == serial);
    }
  }
}

// A triangle soup of a curved grid (every corner its own vertex, each grid point repeated up to
// six times): large enough that the weld runs in parts on threads, which must find for every
// copy the first of its equals. Welded back, the grid is one smooth surface, so all copies of a
// grid point share one group and get the same tangent, for any thread count.
TEST(OpsTangents, WeldInPartsJoinsEveryCopyOfAVertex) {
  const int n = 150;  // 150 x 150 points, 44,402 triangles, 133,206 soup vertices
  std::vector<Vec3> pos, nrm;
  std::vector<std::array<float, 2>> uv;
  std::vector<uint32_t> tris;
  std::vector<uint32_t> point;  // soup vertex -> grid point
  auto add = [&](int i, int j) {
    const float x = float(i) / n, y = float(j) / n;
    pos.push_back({x, y, 0.1f * std::sin(6 * x)});
    nrm.push_back({-0.6f * std::cos(6 * x), 0, 1});
    uv.push_back({x + 0.05f * std::sin(9 * y), y});
    point.push_back(uint32_t(i * n + j));
    tris.push_back(uint32_t(pos.size() - 1));
  };
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      add(i, j), add(i + 1, j), add(i + 1, j + 1);
      add(i, j), add(i + 1, j + 1), add(i, j + 1);
    }
  const Scene base = one(make_mesh(pos, nrm, uv, tris));
  Scene serial = base;
  ASSERT_EQ(generate_tangents(serial, {}, nullptr, 1), 1u);
  const Mesh& m = serial.meshes[0];
  ASSERT_EQ(m.vertex_count(), pos.size());  // no vertex split
  std::vector<int64_t> first(size_t(n) * n, -1);
  size_t shared = 0;
  for (size_t v = 0; v < pos.size(); ++v) {
    int64_t& f = first[point[v]];
    if (f < 0) {
      f = int64_t(v);
      continue;
    }
    ASSERT_EQ(tangent(m, v), tangent(m, size_t(f))) << "soup vertex " << v << ", grid point " << point[v];
    ++shared;
  }
  EXPECT_EQ(shared, pos.size() - size_t(n) * n);
  for (unsigned threads : {2u, 3u, 4u, 8u}) {
    SCOPED_TRACE(threads);
    Scene s = base;
    EXPECT_EQ(generate_tangents(s, {}, nullptr, threads), 1u);
    EXPECT_TRUE(s == serial);
  }
}

}  // namespace meshport_test_ops_tangents
