// The tetrahedral carton of `meshport modes` (carton.h, docs/modedef.md "Computing modes").
#include "physics/carton.h"

#include <meshport/diagnostics.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace meshport {

namespace {

constexpr uint64_t kMaxCells = uint64_t(1) << 22;
// Cells kept for the finite elements: 6 tetrahedra each, and a sparse factor that grows faster
// than the cell count; 65,536 cells (393,216 tetrahedra) bound its memory to a few GB.
constexpr size_t kMaxKeptCells = size_t(1) << 16;
// Crossings of the inside-test lines with triangles (8 bytes each), per set of lines: a mesh
// of many overlapping large triangles at a high resolution cannot take more than 128 MB.
constexpr size_t kMaxCrossings = size_t(1) << 24;

// The 6 tetrahedra of a cell (Kuhn's split along the diagonal from corner 000 to 111): for the axis
// order (a, b, c), corners 000, e_a, e_a + e_b, 111; it holds the points with u_a >= u_b >= u_c. Every
// cell is split the same way, so the diagonals of shared faces agree.
constexpr int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
// Odd permutations give a negatively oriented corner order: their last two corners are swapped.
constexpr bool kOdd[6] = {false, true, true, false, false, true};

// Corner offsets (bit 0: x, bit 1: y, bit 2: z) of tetrahedron p of a cell, positively oriented.
std::array<int, 4> tet_corners(int p) {
  int c1 = 1 << kPerm[p][0];
  int c2 = c1 | (1 << kPerm[p][1]);
  std::array<int, 4> t{0, c1, c2, 7};
  if (kOdd[p]) std::swap(t[2], t[3]);
  return t;
}

// Crossings along x of the lines parallel to x at (y0 + j sy + dy, z0 + k sz + dz), j < nj, k < nk.
struct Lines {
  uint32_t nj = 0, nk = 0;
  double y0 = 0, z0 = 0, sy = 1, sz = 1;
  std::vector<std::vector<double>> xs;  // per line j + nj k, sorted
};

void cross_lines(Lines& lines, std::span<const std::array<float, 3>> v, std::span<const std::array<int32_t, 3>> tris) {
  lines.xs.assign(size_t(lines.nj) * lines.nk, {});
  size_t crossings = 0;
  for (const auto& t : tris) {
    const auto& a = v[size_t(t[0])];
    const auto& b = v[size_t(t[1])];
    const auto& c = v[size_t(t[2])];
    const double ymin = std::min({a[1], b[1], c[1]}), ymax = std::max({a[1], b[1], c[1]});
    const double zmin = std::min({a[2], b[2], c[2]}), zmax = std::max({a[2], b[2], c[2]});
    const double j0 = std::ceil((ymin - lines.y0) / lines.sy), j1 = std::floor((ymax - lines.y0) / lines.sy);
    const double k0 = std::ceil((zmin - lines.z0) / lines.sz), k1 = std::floor((zmax - lines.z0) / lines.sz);
    const double area = (double(b[1]) - a[1]) * (double(c[2]) - a[2]) - (double(c[1]) - a[1]) * (double(b[2]) - a[2]);
    if (area == 0) continue;  // edge-on to the lines: no crossing
    for (double kk = std::max(0.0, k0); kk <= std::min(double(lines.nk) - 1, k1); ++kk)
      for (double jj = std::max(0.0, j0); jj <= std::min(double(lines.nj) - 1, j1); ++jj) {
        const double y = lines.y0 + jj * lines.sy, z = lines.z0 + kk * lines.sz;
        // Barycentric coordinates of (y, z) in the triangle projected onto yz.
        const double wa = ((double(b[1]) - y) * (double(c[2]) - z) - (double(c[1]) - y) * (double(b[2]) - z)) / area;
        const double wb = ((double(c[1]) - y) * (double(a[2]) - z) - (double(a[1]) - y) * (double(c[2]) - z)) / area;
        const double wc = 1.0 - wa - wb;
        if (wa < 0 || wb < 0 || wc < 0) continue;
        if (++crossings > kMaxCrossings)
          fail("", fmt::format("modes: the mesh's triangles cross the carton's grid lines more than {} times (many "
                               "overlapping triangles?): lower --resolution or clean the mesh",
                               kMaxCrossings));
        lines.xs[size_t(jj) + size_t(lines.nj) * size_t(kk)].push_back(wa * a[0] + wb * b[0] + wc * c[0]);
      }
  }
  for (auto& x : lines.xs) std::sort(x.begin(), x.end());
}

// Inside when an odd number of crossings lie beyond x.
bool inside(const Lines& lines, uint32_t j, uint32_t k, double x) {
  const std::vector<double>& xs = lines.xs[size_t(j) + size_t(lines.nj) * k];
  const size_t beyond = size_t(xs.end() - std::upper_bound(xs.begin(), xs.end(), x));
  return beyond % 2 == 1;
}

}  // namespace

size_t open_edge_count(std::span<const std::array<int32_t, 3>> triangles) {
  std::unordered_map<uint64_t, uint32_t> uses;
  uses.reserve(triangles.size() * 3);
  for (const auto& t : triangles)
    for (int c = 0; c < 3; ++c) {
      const uint32_t a = uint32_t(t[size_t(c)]), b = uint32_t(t[size_t((c + 1) % 3)]);
      ++uses[(uint64_t(std::min(a, b)) << 32) | std::max(a, b)];
    }
  size_t open = 0;
  for (const auto& [edge, n] : uses) open += n != 2;
  return open;
}

Carton build_carton(std::span<const std::array<float, 3>> vertices, std::span<const std::array<int32_t, 3>> triangles,
                    uint32_t resolution, bool quadratic) {
  if (triangles.empty()) fail("", "modes: the mesh has no triangles");
  if (resolution == 0) fail("", "modes: --resolution must be at least 1");
  for (const auto& t : triangles)
    for (int32_t i : t)
      if (i < 0 || size_t(i) >= vertices.size()) fail("", "modes: a triangle index is out of range");
  std::array<double, 3> lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (const auto& t : triangles)
    for (int32_t i : t)
      for (int a = 0; a < 3; ++a) {
        const double x = vertices[size_t(i)][size_t(a)];
        if (!std::isfinite(x)) fail("", "modes: the mesh has a non-finite vertex position");
        lo[size_t(a)] = std::min(lo[size_t(a)], x);
        hi[size_t(a)] = std::max(hi[size_t(a)], x);
      }
  const double longest = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  Carton out;
  for (int a = 0; a < 3; ++a) {
    const double extent = hi[size_t(a)] - lo[size_t(a)];
    if (!(extent > 1e-9 * longest))
      fail("", fmt::format("modes: the mesh is flat (its bounding box has no extent along {}): it has no volume",
                           "xyz"[a]));
    const double n = std::max(1.0, std::round(extent / longest * resolution));
    out.cells[size_t(a)] = uint32_t(std::min(n, 1e6));
    out.cell_size[size_t(a)] = extent / out.cells[size_t(a)];
  }
  const uint32_t nx = out.cells[0], ny = out.cells[1], nz = out.cells[2];
  const uint64_t max_cells = quadratic ? kMaxCells / 8 : kMaxCells;
  if (uint64_t(nx) * ny * nz > max_cells)
    fail("", fmt::format("modes: --resolution {} makes a grid of {} x {} x {} cells (more than {}{}): lower it",
                         resolution, nx, ny, nz, max_cells, quadratic ? " with quadratic elements" : ""));
  const double sx = out.cell_size[0], sy = out.cell_size[1], sz = out.cell_size[2];
  // Lines through the corners and through the cell centres, moved off the grid planes by a small
  // irrational fraction of a cell so that they do not run along faces or through edges of meshes
  // aligned with the grid (a box).
  const double dy = 0.000123456789 * sy, dz = 0.000234567891 * sz;
  Lines corners, centres;
  corners.nj = ny + 1;
  corners.nk = nz + 1;
  corners.y0 = lo[1] + dy;
  corners.z0 = lo[2] + dz;
  corners.sy = sy;
  corners.sz = sz;
  centres.nj = ny;
  centres.nk = nz;
  centres.y0 = lo[1] + 0.5 * sy + dy;
  centres.z0 = lo[2] + 0.5 * sz + dz;
  centres.sy = sy;
  centres.sz = sz;
  cross_lines(corners, vertices, triangles);
  cross_lines(centres, vertices, triangles);

  const size_t cells = size_t(nx) * ny * nz;
  auto cell_index = [&](uint32_t i, uint32_t j, uint32_t k) { return size_t(i) + size_t(nx) * (j + size_t(ny) * k); };
  std::vector<uint8_t> keep(cells, 0);
  // Corners inside, once each.
  const size_t px = nx + 1, py = ny + 1, pz = nz + 1;
  std::vector<uint8_t> corner_in(px * py * pz, 0);
  for (uint32_t k = 0; k < pz; ++k)
    for (uint32_t j = 0; j < py; ++j)
      for (uint32_t i = 0; i < px; ++i)
        corner_in[i + px * (j + py * k)] = inside(corners, j, k, lo[0] + i * sx) ? 1 : 0;
  for (uint32_t k = 0; k < nz; ++k)
    for (uint32_t j = 0; j < ny; ++j)
      for (uint32_t i = 0; i < nx; ++i) {
        bool in = inside(centres, j, k, lo[0] + (i + 0.5) * sx);
        for (int c = 0; c < 8 && !in; ++c)
          in = corner_in[(i + (c & 1)) + px * ((j + ((c >> 1) & 1)) + py * (k + ((c >> 2) & 1)))] != 0;
        keep[cell_index(i, j, k)] = in ? 1 : 0;
      }
  // Every cell holding a render vertex is kept.
  auto vertex_cell_of = [&](size_t v, uint32_t sub, std::array<double, 3>* local) {
    uint32_t idx[3];
    for (int a = 0; a < 3; ++a) {
      const double x = vertices[v][size_t(a)];
      if (!std::isfinite(x)) fail("", fmt::format("modes: render vertex {} is not finite", v));
      const double u = (x - lo[size_t(a)]) / out.cell_size[size_t(a)] * sub;
      const double cell = std::clamp(std::floor(u), 0.0, double(out.cells[size_t(a)] * sub - 1));
      idx[a] = uint32_t(cell);
      if (local) (*local)[size_t(a)] = std::clamp(u - cell, 0.0, 1.0);
    }
    return size_t(idx[0]) + size_t(nx * sub) * (idx[1] + size_t(ny * sub) * idx[2]);
  };
  for (size_t v = 0; v < vertices.size(); ++v) keep[vertex_cell_of(v, 1, nullptr)] = 1;
  const size_t kept = size_t(std::count(keep.begin(), keep.end(), uint8_t(1)));
  // A quadratic carton has the nodes of a linear one of half cells: the same bound on their count.
  const size_t max_kept = quadratic ? kMaxKeptCells / 8 : kMaxKeptCells;
  if (kept > max_kept)
    fail("", fmt::format("modes: --resolution {} keeps {} cells of the carton (more than {}{}; its factorisation would "
                         "need too much memory): lower it",
                         resolution, kept, max_kept, quadratic ? " with quadratic elements" : ""));
  out.kept_cells = kept;

  // The grid the nodes and 4-node tetrahedra are made on: the cells, or their half cells (kept
  // when their cell is).
  const uint32_t sub = quadratic ? 2 : 1;
  const uint32_t gx = nx * sub, gy = ny * sub, gz = nz * sub;
  const double hx = sx / sub, hy = sy / sub, hz = sz / sub;
  const size_t qx = gx + 1, qy = gy + 1, qz = gz + 1;
  auto grid_cell = [&](uint32_t i, uint32_t j, uint32_t k) { return size_t(i) + size_t(gx) * (j + size_t(gy) * k); };
  auto grid_kept = [&](uint32_t i, uint32_t j, uint32_t k) { return keep[cell_index(i / sub, j / sub, k / sub)] != 0; };
  // Nodes: the corners of kept (half) cells, numbered in grid order; tetrahedra: 6 per kept (half) cell.
  std::vector<int32_t> node_of(qx * qy * qz, -1);
  for (uint32_t k = 0; k < gz; ++k)
    for (uint32_t j = 0; j < gy; ++j)
      for (uint32_t i = 0; i < gx; ++i)
        if (grid_kept(i, j, k))
          for (int c = 0; c < 8; ++c) node_of[(i + (c & 1)) + qx * ((j + ((c >> 1) & 1)) + qy * (k + ((c >> 2) & 1)))] = 0;
  for (size_t k = 0; k < qz; ++k)
    for (size_t j = 0; j < qy; ++j)
      for (size_t i = 0; i < qx; ++i) {
        int32_t& n = node_of[i + qx * (j + qy * k)];
        if (n < 0) continue;
        n = int32_t(out.mesh.nodes.size());
        out.mesh.nodes.push_back({lo[0] + double(i) * hx, lo[1] + double(j) * hy, lo[2] + double(k) * hz});
      }
  auto node_at = [&](size_t i, size_t j, size_t k) { return node_of[i + qx * (j + qy * k)]; };
  std::vector<int32_t> first_tet(size_t(gx) * gy * gz, -1);
  for (uint32_t k = 0; k < gz; ++k)
    for (uint32_t j = 0; j < gy; ++j)
      for (uint32_t i = 0; i < gx; ++i) {
        if (!grid_kept(i, j, k)) continue;
        first_tet[grid_cell(i, j, k)] = int32_t(out.mesh.tets.size());
        for (int p = 0; p < 6; ++p) {
          const std::array<int, 4> c = tet_corners(p);
          std::array<int32_t, 4> t{};
          for (int q = 0; q < 4; ++q)
            t[size_t(q)] = node_at(i + (c[size_t(q)] & 1), j + ((c[size_t(q)] >> 1) & 1), k + ((c[size_t(q)] >> 2) & 1));
          out.mesh.tets.push_back(t);
        }
      }
  // The 10-node tetrahedra: the 6 of each kept cell, their edge midpoints on the half-cell grid.
  // Kuhn's split of the half cells refines it: each is the union of 8 half-cell tetrahedra.
  if (quadratic)
    for (uint32_t k = 0; k < nz; ++k)
      for (uint32_t j = 0; j < ny; ++j)
        for (uint32_t i = 0; i < nx; ++i) {
          if (!keep[cell_index(i, j, k)]) continue;
          for (int p = 0; p < 6; ++p) {
            const std::array<int, 4> c = tet_corners(p);
            std::array<size_t, 3> g[4];
            for (int q = 0; q < 4; ++q)
              g[q] = {2 * (i + size_t(c[size_t(q)] & 1)), 2 * (j + size_t((c[size_t(q)] >> 1) & 1)),
                      2 * (k + size_t((c[size_t(q)] >> 2) & 1))};
            std::array<int32_t, 10> t{};
            for (int q = 0; q < 4; ++q) t[size_t(q)] = node_at(g[q][0], g[q][1], g[q][2]);
            constexpr int kEdges[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};
            for (int e = 0; e < 6; ++e) {
              const auto& a = g[kEdges[e][0]];
              const auto& b = g[kEdges[e][1]];
              t[size_t(4 + e)] = node_at((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2);
            }
            out.mesh.quadratic.push_back(t);
          }
        }
  // Connected parts: union-find over the nodes of each tetrahedron.
  std::vector<int32_t> parent(out.mesh.nodes.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = int32_t(i);
  auto root = [&parent](int32_t x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  };
  for (const auto& t : out.mesh.tets)
    for (int q = 1; q < 4; ++q) parent[size_t(root(t[size_t(q)]))] = root(t[0]);
  for (size_t i = 0; i < parent.size(); ++i) out.parts += root(int32_t(i)) == int32_t(i);
  // Embedding: the tetrahedron of the cell whose ordering u_a >= u_b >= u_c the point satisfies;
  // its barycentric coordinates are 1 - u_a, u_a - u_b, u_b - u_c, u_c (in tet_corners' order).
  out.embedding.resize(vertices.size());
  for (size_t v = 0; v < vertices.size(); ++v) {
    std::array<double, 3> u{};
    const size_t cell = vertex_cell_of(v, sub, &u);
    int p = 0;
    for (; p < 6; ++p)
      if (u[size_t(kPerm[p][0])] >= u[size_t(kPerm[p][1])] && u[size_t(kPerm[p][1])] >= u[size_t(kPerm[p][2])]) break;
    const double ua = u[size_t(kPerm[p][0])], ub = u[size_t(kPerm[p][1])], uc = u[size_t(kPerm[p][2])];
    std::array<float, 4> b{float(1 - ua), float(ua - ub), float(ub - uc), float(uc)};
    if (kOdd[p]) std::swap(b[2], b[3]);
    out.embedding[v].tet = first_tet[cell] + p;
    out.embedding[v].bary = b;
  }
  return out;
}

}  // namespace meshport
