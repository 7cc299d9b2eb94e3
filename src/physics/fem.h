// Linear finite elements on tetrahedra: mass properties and the lowest vibration modes of a free
// body (`meshport modes`, docs/modedef.md "Computing modes"). The only file that includes Eigen and
// Spectra is fem.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace meshport::fem {

struct TetMesh {
  std::vector<std::array<double, 3>> nodes;
  std::vector<std::array<int32_t, 4>> tets;  // 0-based node indices
  // When not empty, solve_modes uses these 10-node (quadratic) tetrahedra instead of `tets`: corners
  // 0..3, then the midpoints of the edges 01, 12, 02, 03, 13, 23 (straight-sided). `tets` must then
  // fill the same volume (mass_properties reads `tets`).
  std::vector<std::array<int32_t, 10>> quadratic;
};

struct Material {
  double youngs = 1e6;    // Young's modulus E (Pa)
  double poisson = 0.3;   // Poisson's ratio nu, in (-1, 0.5)
  double density = 1000;  // rho (kg / m^3)
};

// Mass, centre of mass and inertia tensor (about the centre of mass, row-major) of the
// tetrahedra with uniform density: exact for the tetrahedral volume.
struct MassProperties {
  double volume = 0, mass = 0;
  std::array<double, 3> center{0, 0, 0};
  std::array<double, 9> inertia{0, 0, 0, 0, 0, 0, 0, 0, 0};
};
MassProperties mass_properties(const TetMesh& mesh, double density);

// The generalized eigenproblem K phi = lambda M phi (constant-strain tetrahedra, or 10-node
// quadratic ones when mesh.quadratic is not empty; consistent mass)
// for the `count` lowest non-rigid modes. Rigid modes (|lambda| <= rigid_tolerance * lambda_max,
// lambda_max = max_i K_ii / M_ii, an upper bound of the spectrum's scale) are detected and dropped.
// Eigenvectors are mass-normalised (phi^T M phi = 1); vectors[k * 3n + 3i + a].
struct ModesOptions {
  size_t count = 20;
  size_t rigid = 6;  // rigid modes expected (6 per connected part): count + rigid eigenvalues are computed
  double rigid_tolerance = 1e-8;
  // 2: each shift-invert solve runs the two halves of the first nested-dissection split on two
  // threads when the factor lets it (a carton's grid does); 1: one thread.
  unsigned threads = 2;
};
struct Modes {
  std::vector<double> eigenvalues;  // ascending, lambda = omega^2
  std::vector<double> vectors;      // count * 3 * nodes
  std::vector<double> rigid_eigenvalues;  // the near-zero ones dropped
  double lambda_max = 0;                  // max_i K_ii / M_ii
  bool split_solves = false;              // the solves ran on two threads
};
// Throws meshport::Error for an empty mesh, a degenerate or inverted tetrahedron, a material out of
// range, or a solver that does not converge.
Modes solve_modes(const TetMesh& mesh, const Material& material, const ModesOptions& options);

}  // namespace meshport::fem
