// The tetrahedral carton of `meshport modes`: a regular grid of boxes over a closed mesh's
// bounding box, each split into 6 tetrahedra, keeping the cells that reach the mesh's interior,
// and the render vertices' barycentric embedding (docs/modedef.md "Computing modes").
#pragma once

#include <meshport/source/modedef.h>

#include "physics/fem.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace meshport {

struct Carton {
  // Linear: the corners of the kept cells and 6 tetrahedra per cell. Quadratic: each kept cell is
  // also split into 2 x 2 x 2 half cells: `mesh` holds their corners and 6 tetrahedra each (so the
  // nodes are every corner, edge midpoint, face centre and centre of a kept cell), and
  // `mesh.quadratic` the 10-node tetrahedra of the cells (each the union of 8 of `mesh.tets`).
  fem::TetMesh mesh;
  std::vector<ModeDefCartonVertex> embedding;  // one per render vertex
  std::array<uint32_t, 3> cells{0, 0, 0};      // grid cells along x, y, z (not half cells)
  std::array<double, 3> cell_size{0, 0, 0};
  size_t kept_cells = 0;
  size_t parts = 0;  // connected pieces of the carton (tetrahedra sharing a node)
};

// Edges of the triangles used by other than exactly two triangles (0 for a closed mesh).
size_t open_edge_count(std::span<const std::array<int32_t, 3>> triangles);

// `resolution` cells along the bounding box's longest axis; the other axes get round(extent / h)
// cells (at least 1), each axis's cells stretched to fit the box exactly. A cell is kept when its
// centre or one of its corners is inside the mesh (ray parity along +x) or it holds a render
// vertex. Throws meshport::Error for no triangles, a flat bounding box or a grid past 2^22 cells
// (half cells when quadratic). The embedding is in the tetrahedra of `mesh` (half cells when quadratic).
Carton build_carton(std::span<const std::array<float, 3>> vertices, std::span<const std::array<int32_t, 3>> triangles,
                    uint32_t resolution, bool quadratic = false);

}  // namespace meshport
