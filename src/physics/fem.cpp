// Linear tetrahedral finite elements: mass properties and the lowest modes of a free body
// (fem.h; the equations are in docs/modedef.md "Computing modes"). The one file that includes
// Eigen (Debian libeigen3-dev, MPL-2.0) and Spectra (libspectra-dev, MPL-2.0), both header-only
// and used unmodified.
// Eigen's loops stay scalar here, on every target: vectorised with SSE2 on x86-64 (Linux,
// Windows) but not in WebAssembly (no SIMD in Eigen 3.4 there), they would add in another order
// and the modes would differ in their last bits between the builds (docs/modedef.md "Computing
// modes" gives the cost). Defined before any Eigen header; this file alone includes Eigen.
#define EIGEN_DONT_VECTORIZE 1
#include "physics/fem.h"

#include <meshport/diagnostics.h>

#include <Eigen/LU>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>
#include <system_error>
#include <thread>
#include <utility>

namespace meshport::fem {

namespace {

using Vec3 = std::array<double, 3>;

Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

// Signed volume of tetrahedron t: det[p1 - p0, p2 - p0, p3 - p0] / 6.
double signed_volume(const TetMesh& m, const std::array<int32_t, 4>& t) {
  const Vec3 a = sub(m.nodes[size_t(t[1])], m.nodes[size_t(t[0])]);
  const Vec3 b = sub(m.nodes[size_t(t[2])], m.nodes[size_t(t[0])]);
  const Vec3 c = sub(m.nodes[size_t(t[3])], m.nodes[size_t(t[0])]);
  return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) /
         6.0;
}

void check_mesh(const TetMesh& m) {
  if (m.tets.empty()) fail("", "modes: the carton has no tetrahedra");
  for (size_t e = 0; e < m.tets.size(); ++e)
    for (int32_t n : m.tets[e])
      if (n < 0 || size_t(n) >= m.nodes.size())
        fail("", fmt::format("modes: tetrahedron {} has node {} out of range ({} nodes)", e, n, m.nodes.size()));
  for (size_t e = 0; e < m.quadratic.size(); ++e)
    for (int32_t n : m.quadratic[e])
      if (n < 0 || size_t(n) >= m.nodes.size())
        fail("", fmt::format("modes: quadratic tetrahedron {} has node {} out of range ({} nodes)", e, n,
                             m.nodes.size()));
}

// Nodes that may lie on a separating plane: every node, or with 10-node tetrahedra their corners
// only (a plane through edge midpoints would cut elements, coupling the halves).
std::vector<uint8_t> corner_nodes(const TetMesh& m) {
  std::vector<uint8_t> corner(m.nodes.size(), m.quadratic.empty() ? 1 : 0);
  for (const auto& t : m.quadratic)
    for (int q = 0; q < 4; ++q) corner[size_t(t[size_t(q)])] = 1;
  return corner;
}

// Splits `ids` at the median coordinate (among the corner nodes) of their longest axis: nodes on
// that plane are the separator. False when one side would be empty (nothing to split).
bool split_nodes(const TetMesh& m, const std::vector<uint8_t>& corner, const std::vector<int32_t>& ids,
                 std::vector<int32_t>& left, std::vector<int32_t>& right, std::vector<int32_t>& sep) {
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int32_t i : ids)
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], m.nodes[size_t(i)][size_t(a)]);
      hi[a] = std::max(hi[a], m.nodes[size_t(i)][size_t(a)]);
    }
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
  std::vector<double> c;
  c.reserve(ids.size());
  for (int32_t i : ids)
    if (corner[size_t(i)]) c.push_back(m.nodes[size_t(i)][size_t(axis)]);
  if (c.empty()) return false;
  std::nth_element(c.begin(), c.begin() + std::ptrdiff_t(c.size() / 2), c.end());
  const double mid = c[c.size() / 2], eps = 1e-9 * (hi[axis] - lo[axis]);
  for (int32_t i : ids) {
    const double x = m.nodes[size_t(i)][size_t(axis)];
    (x < mid - eps ? left : x > mid + eps ? right : sep).push_back(i);
  }
  return !left.empty() && !right.empty();
}

// Fill-reducing order of the nodes: nested dissection by coordinate planes. The node set is split
// by split_nodes; the separator is ordered after both halves. On the carton's grid a plane of nodes
// separates the halves exactly (no tetrahedron spans it); on any other mesh the order is still
// valid, only less sparse.
void dissect(const TetMesh& m, const std::vector<uint8_t>& corner, std::vector<int32_t>& ids,
             std::vector<int32_t>& order) {
  std::vector<int32_t> left, right, sep;
  if (ids.size() <= 48 || !split_nodes(m, corner, ids, left, right, sep)) {
    order.insert(order.end(), ids.begin(), ids.end());
    return;
  }
  ids = {};
  dissect(m, corner, left, order);
  dissect(m, corner, right, order);
  order.insert(order.end(), sep.begin(), sep.end());
}

// The node order of dissect, and the sizes of the two halves of its first split (0 when the
// nodes were not split): rows [0, first) and [first, first + second) of the factor are then
// independent when no tetrahedron joins the halves.
struct NodeOrder {
  std::vector<int32_t> order;
  size_t first = 0, second = 0;
};
NodeOrder dissection_order(const TetMesh& m) {
  NodeOrder o;
  std::vector<int32_t> ids(m.nodes.size()), left, right, sep;
  std::iota(ids.begin(), ids.end(), 0);
  o.order.reserve(ids.size());
  const std::vector<uint8_t> corner = corner_nodes(m);
  if (ids.size() <= 48 || !split_nodes(m, corner, ids, left, right, sep)) {
    o.order = std::move(ids);
    return o;
  }
  dissect(m, corner, left, o.order);
  o.first = o.order.size();
  dissect(m, corner, right, o.order);
  o.second = o.order.size() - o.first;
  o.order.insert(o.order.end(), sep.begin(), sep.end());
  return o;
}

using SparseMatrix = Eigen::SparseMatrix<double>;

// The Cholesky factor L of a matrix ordered [half 1, half 2, separator] whose halves do not
// couple, in blocks: L = [L11 0 0; 0 L22 0; Ls1 Ls2 Lss]. Solving L L^T x = b then runs the two
// halves on two threads: y1 = L11^-1 b1 and y2 = L22^-1 b2 together, ys = Lss^-1 (bs - Ls1 y1 -
// Ls2 y2), xs = Lss^-T ys, then x1 = L11^-T (y1 - Ls1^T xs) and x2 likewise together.
class SplitFactor {
 public:
  // False (and nothing kept) when L couples the halves: the caller solves in one piece.
  bool set(const SparseMatrix& l, Eigen::Index n1, Eigen::Index n2) {
    const Eigen::Index n = l.rows(), ns = n - n1 - n2;
    for (Eigen::Index c = 0; c < n1; ++c)
      for (SparseMatrix::InnerIterator it(l, c); it; ++it)
        if (it.row() >= n1 && it.row() < n1 + n2) return false;
    l11_ = l.block(0, 0, n1, n1);
    l22_ = l.block(n1, n1, n2, n2);
    ls1_ = l.block(n1 + n2, 0, ns, n1);
    ls2_ = l.block(n1 + n2, n1, ns, n2);
    lss_ = l.block(n1 + n2, n1 + n2, ns, ns);
    n1_ = n1;
    n2_ = n2;
    return true;
  }
  void solve_in_place(Eigen::VectorXd& x) const {
    const Eigen::Index ns = x.size() - n1_ - n2_;
    Eigen::VectorXd y1 = x.head(n1_), y2 = x.segment(n1_, n2_);
    both([&] { l11_.triangularView<Eigen::Lower>().solveInPlace(y1); },
         [&] { l22_.triangularView<Eigen::Lower>().solveInPlace(y2); });
    Eigen::VectorXd s = x.tail(ns) - ls1_ * y1 - ls2_ * y2;
    lss_.triangularView<Eigen::Lower>().solveInPlace(s);
    lss_.transpose().triangularView<Eigen::Upper>().solveInPlace(s);
    both(
        [&] {
          y1 -= ls1_.transpose() * s;
          l11_.transpose().triangularView<Eigen::Upper>().solveInPlace(y1);
        },
        [&] {
          y2 -= ls2_.transpose() * s;
          l22_.transpose().triangularView<Eigen::Upper>().solveInPlace(y2);
        });
    x.head(n1_) = y1;
    x.segment(n1_, n2_) = y2;
    x.tail(ns) = s;
  }

 private:
  // Runs a on a thread and b on this one; an exception of either (bad_alloc) is rethrown here
  // after both have ended, never left to terminate the process. Where no thread can be started
  // (the WebAssembly build), a runs on this thread too, before b: the halves are independent, so
  // the result is the same.
  template <class A, class B>
  static void both(A&& a, B&& b) {
    std::exception_ptr error_a, error_b;
    auto run_a = [&] {
      try {
        a();
      } catch (...) {
        error_a = std::current_exception();
      }
    };
    std::thread t;
    try {
      t = std::thread(run_a);
    } catch (const std::system_error&) {
      run_a();
    }
    try {
      b();
    } catch (...) {
      error_b = std::current_exception();
    }
    if (t.joinable()) t.join();
    if (error_a) std::rethrow_exception(error_a);
    if (error_b) std::rethrow_exception(error_b);
  }
  SparseMatrix l11_, l22_, ls1_, ls2_, lss_;
  Eigen::Index n1_ = 0, n2_ = 0;
};

// Shift-invert operator y = (K - sigma M)^-1 x with a sparse Cholesky factorisation of the matrix
// permuted by `perm` (nested dissection): K - sigma M is symmetric positive definite for sigma < 0
// (K semi-definite, M definite). With the sizes of the dissection's two halves (in rows), the
// solves run on two threads (SplitFactor).
class ShiftInvertCholesky {
 public:
  using Scalar = double;
  using Permutation = Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int>;
  ShiftInvertCholesky(const SparseMatrix& k, const SparseMatrix& m, Permutation perm, Eigen::Index half1,
                      Eigen::Index half2)
      : k_(k), m_(m), perm_(std::move(perm)), half1_(half1), half2_(half2) {}
  Eigen::Index rows() const { return k_.rows(); }
  Eigen::Index cols() const { return k_.cols(); }
  bool split() const { return split_; }
  void set_shift(double sigma) {
    const SparseMatrix a = k_ - sigma * m_;
    SparseMatrix b;
    b = a.selfadjointView<Eigen::Lower>().twistedBy(perm_);
    solver_.compute(b);
    if (solver_.info() != Eigen::Success)
      fail("", "modes: the stiffness matrix could not be factorised (K - sigma M is not positive definite)");
    split_ = false;
    if (half1_ > 0 && half2_ > 0) {
      const SparseMatrix l = solver_.matrixL();
      split_ = split_factor_.set(l, half1_, half2_);
    }
  }
  void perform_op(const double* x, double* y) const {
    Eigen::Map<const Eigen::VectorXd> in(x, k_.rows());
    Eigen::Map<Eigen::VectorXd> out(y, k_.rows());
    Eigen::VectorXd t = perm_ * in;
    if (split_)
      split_factor_.solve_in_place(t);
    else
      t = solver_.solve(t);
    out = perm_.transpose() * t;
  }

 private:
  const SparseMatrix& k_;
  const SparseMatrix& m_;
  Permutation perm_;
  Eigen::Index half1_ = 0, half2_ = 0;
  Eigen::SimplicialLLT<SparseMatrix, Eigen::Lower, Eigen::NaturalOrdering<int>> solver_;
  SplitFactor split_factor_;
  bool split_ = false;
};

using Triplets = std::vector<Eigen::Triplet<double>>;

// Gradients of the barycentric coordinates of the tetrahedron with corners c (rows of the inverse
// of [p1-p0, p2-p0, p3-p0] as columns) and its volume; an error when it has none.
double corner_gradients(const TetMesh& mesh, const std::array<int32_t, 4>& c, size_t index, double g[4][3]) {
  const double vol = signed_volume(mesh, c);
  if (!(std::fabs(vol) > 0)) fail("", fmt::format("modes: tetrahedron {} of the carton has no volume", index));
  Eigen::Matrix3d j;
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 3; ++a)
      j(a, k) = mesh.nodes[size_t(c[size_t(k + 1)])][size_t(a)] - mesh.nodes[size_t(c[0])][size_t(a)];
  const Eigen::Matrix3d inv = j.inverse();
  for (int a = 0; a < 3; ++a) {
    g[0][a] = 0;
    for (int i = 1; i < 4; ++i) {
      g[i][a] = inv(i - 1, a);
      g[0][a] -= g[i][a];
    }
  }
  return std::fabs(vol);
}

// Strain-displacement rows of node i with gradient (gx, gy, gz) in columns 3i..3i+2 of B.
template <class B>
void strain_rows(B& bm, int i, double gx, double gy, double gz) {
  bm(0, 3 * i) = gx;
  bm(1, 3 * i + 1) = gy;
  bm(2, 3 * i + 2) = gz;
  bm(3, 3 * i) = gy;
  bm(3, 3 * i + 1) = gx;
  bm(4, 3 * i + 1) = gz;
  bm(4, 3 * i + 2) = gy;
  bm(5, 3 * i) = gz;
  bm(5, 3 * i + 2) = gx;
}

// Adds an element's stiffness ke (3 nn x 3 nn) and its mass (ref(i, j) rho V per component) to the
// lower triangles.
template <int N, class Ke>
void scatter(const std::array<int32_t, size_t(N)>& nodes, const Ke& ke, const double* mass, Triplets& kt,
             Triplets& mt) {
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k) {
      const int ri = 3 * nodes[size_t(i)], ck = 3 * nodes[size_t(k)];
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b)
          if (ri + a >= ck + b) kt.emplace_back(ri + a, ck + b, ke(3 * i + a, 3 * k + b));
        if (ri >= ck) mt.emplace_back(ri + a, ck + a, mass[i * N + k]);
      }
    }
}

// Constant-strain tetrahedra: K_e = V B^T D B; consistent mass M_ij = rho V / 20 (1 + delta_ij).
void assemble_linear(const TetMesh& mesh, const Eigen::Matrix<double, 6, 6>& dm, double rho, Triplets& kt,
                     Triplets& mt) {
  kt.reserve(mesh.tets.size() * 144 / 2 + 16);
  mt.reserve(mesh.tets.size() * 48 / 2 + 16);
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    double g[4][3];
    const double vol = corner_gradients(mesh, mesh.tets[t], t, g);
    Eigen::Matrix<double, 6, 12> bm = Eigen::Matrix<double, 6, 12>::Zero();
    for (int i = 0; i < 4; ++i) strain_rows(bm, i, g[i][0], g[i][1], g[i][2]);
    const Eigen::Matrix<double, 12, 12> ke = vol * bm.transpose() * dm * bm;
    double mass[16];
    for (int i = 0; i < 16; ++i) mass[i] = rho * vol / 20.0 * (i % 5 == 0 ? 2.0 : 1.0);
    scatter<4>(mesh.tets[t], ke, mass, kt, mt);
  }
}

constexpr int kEdges[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};

// (1 / V) * integral of N_i N_j over a straight 10-node tetrahedron (N_i = L_i (2 L_i - 1) at the
// corners, 4 L_a L_b at the edge midpoints), exact from
// integral of L0^a L1^b L2^c L3^d dV = 6 V a! b! c! d! / (a + b + c + d + 3)!.
const std::array<double, 100>& quadratic_mass() {
  static const std::array<double, 100> ref = [] {
    using Term = std::pair<std::array<int, 4>, double>;
    std::vector<Term> n[10];
    for (int i = 0; i < 4; ++i) {
      std::array<int, 4> two{}, one{};
      two[size_t(i)] = 2;
      one[size_t(i)] = 1;
      n[i] = {{two, 2.0}, {one, -1.0}};
    }
    for (int e = 0; e < 6; ++e) {
      std::array<int, 4> x{};
      x[size_t(kEdges[e][0])] = 1;
      x[size_t(kEdges[e][1])] = 1;
      n[4 + e] = {{x, 4.0}};
    }
    auto fact = [](int k) {
      double f = 1;
      for (int i = 2; i <= k; ++i) f *= i;
      return f;
    };
    std::array<double, 100> r{};
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 10; ++j)
        for (const Term& a : n[i])
          for (const Term& b : n[j]) {
            double v = 6 * a.second * b.second;
            int sum = 0;
            for (int k = 0; k < 4; ++k) {
              v *= fact(a.first[size_t(k)] + b.first[size_t(k)]);
              sum += a.first[size_t(k)] + b.first[size_t(k)];
            }
            r[size_t(10 * i + j)] += v / fact(sum + 3);
          }
    return r;
  }();
  return ref;
}

// 10-node tetrahedra: K_e = integral of B^T D B, exact with the 4-point rule of degree 2 (B is
// linear); consistent mass rho V quadratic_mass().
void assemble_quadratic(const TetMesh& mesh, const Eigen::Matrix<double, 6, 6>& dm, double rho, Triplets& kt,
                        Triplets& mt) {
  kt.reserve(mesh.quadratic.size() * 900 / 2 + 16);
  mt.reserve(mesh.quadratic.size() * 300 / 2 + 16);
  const std::array<double, 100>& ref = quadratic_mass();
  constexpr double qa = 0.5854101966249685, qb = 0.1381966011250105;
  for (size_t t = 0; t < mesh.quadratic.size(); ++t) {
    const auto& q10 = mesh.quadratic[t];
    double g[4][3];
    const double vol = corner_gradients(mesh, {q10[0], q10[1], q10[2], q10[3]}, t, g);
    Eigen::Matrix<double, 30, 30> ke = Eigen::Matrix<double, 30, 30>::Zero();
    for (int p = 0; p < 4; ++p) {
      double l[4] = {qb, qb, qb, qb};
      l[p] = qa;
      Eigen::Matrix<double, 6, 30> bm = Eigen::Matrix<double, 6, 30>::Zero();
      for (int i = 0; i < 4; ++i)
        strain_rows(bm, i, (4 * l[i] - 1) * g[i][0], (4 * l[i] - 1) * g[i][1], (4 * l[i] - 1) * g[i][2]);
      for (int e = 0; e < 6; ++e) {
        const int a = kEdges[e][0], b = kEdges[e][1];
        double gr[3];
        for (int c = 0; c < 3; ++c) gr[c] = 4 * (l[a] * g[b][c] + l[b] * g[a][c]);
        strain_rows(bm, 4 + e, gr[0], gr[1], gr[2]);
      }
      ke.noalias() += (vol / 4) * bm.transpose() * dm * bm;
    }
    double mass[100];
    for (int i = 0; i < 100; ++i) mass[i] = rho * vol * ref[size_t(i)];
    scatter<10>(q10, ke, mass, kt, mt);
  }
}

}  // namespace

MassProperties mass_properties(const TetMesh& mesh, double density) {
  check_mesh(mesh);
  MassProperties p;
  // First moments, then second moments about the origin, summed over tetrahedra. For a tetrahedron
  // of volume V with corners p0..p3: integral of x dV = V * mean(p), and
  // integral of x_a x_b dV = V / 20 * (sum_i p_ia p_ib + (sum_i p_ia)(sum_i p_ib)).
  // The origin is moved to the first node first, so large coordinates lose no precision.
  const Vec3 o = mesh.nodes.empty() ? Vec3{0, 0, 0} : mesh.nodes[0];
  double vol = 0;
  Vec3 first{0, 0, 0};
  double second[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (const auto& t : mesh.tets) {
    const double v = signed_volume(mesh, t);
    Vec3 q[4];
    for (int i = 0; i < 4; ++i) q[i] = sub(mesh.nodes[size_t(t[size_t(i)])], o);
    Vec3 s{0, 0, 0};
    for (int i = 0; i < 4; ++i)
      for (int a = 0; a < 3; ++a) s[size_t(a)] += q[i][size_t(a)];
    vol += v;
    for (int a = 0; a < 3; ++a) first[size_t(a)] += v * s[size_t(a)] / 4.0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double pp = 0;
        for (int i = 0; i < 4; ++i) pp += q[i][size_t(a)] * q[i][size_t(b)];
        second[a][b] += v / 20.0 * (pp + s[size_t(a)] * s[size_t(b)]);
      }
  }
  p.volume = vol;
  p.mass = density * vol;
  if (vol == 0) return p;
  Vec3 c{first[0] / vol, first[1] / vol, first[2] / vol};
  // Second moments about the centre: S_c = S_o - V c c^T; inertia I = rho (tr(S_c) 1 - S_c).
  double sc[3][3];
  // Computed for a <= b and mirrored, so the tensor is exactly symmetric (vol c_a c_b and vol c_b c_a
  // can round differently, and near-zero products of inertia then differ by their whole size).
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) sc[a][b] = sc[b][a] = second[a][b] - vol * c[size_t(a)] * c[size_t(b)];
  const double tr = sc[0][0] + sc[1][1] + sc[2][2];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) p.inertia[size_t(3 * a + b)] = density * ((a == b ? tr : 0.0) - sc[a][b]);
  for (int a = 0; a < 3; ++a) p.center[size_t(a)] = c[size_t(a)] + o[size_t(a)];
  return p;
}

Modes solve_modes(const TetMesh& mesh, const Material& mat, const ModesOptions& options) {
  check_mesh(mesh);
  if (!(mat.youngs > 0) || !std::isfinite(mat.youngs))
    fail("", fmt::format("modes: Young's modulus must be positive (got {})", mat.youngs));
  if (!(mat.poisson > -1 && mat.poisson < 0.5))
    fail("", fmt::format("modes: Poisson's ratio must be in (-1, 0.5) (got {})", mat.poisson));
  if (!(mat.density > 0) || !std::isfinite(mat.density))
    fail("", fmt::format("modes: the density must be positive (got {})", mat.density));
  const size_t n = mesh.nodes.size(), dofs = 3 * n;
  const size_t nev = options.count + options.rigid;
  if (options.count == 0) fail("", "modes: --count must be at least 1");
  if (nev + 1 >= dofs)
    fail("", fmt::format("modes: {} modes (+ {} rigid) need more than the carton's {} degrees of freedom: raise "
                         "--resolution or lower --count",
                         options.count, options.rigid, dofs));

  // Isotropic elasticity D (Voigt order xx yy zz xy yz zx, engineering shear strains).
  const double e = mat.youngs, nu = mat.poisson;
  const double lambda = e * nu / ((1 + nu) * (1 - 2 * nu)), mu = e / (2 * (1 + nu));
  double d[6][6] = {};
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) d[a][b] = lambda;
    d[a][a] = lambda + 2 * mu;
    d[3 + a][3 + a] = mu;
  }

  Eigen::Matrix<double, 6, 6> dm;
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b) dm(a, b) = d[a][b];
  std::vector<Eigen::Triplet<double>> kt, mt;
  if (mesh.quadratic.empty())
    assemble_linear(mesh, dm, mat.density, kt, mt);
  else
    assemble_quadratic(mesh, dm, mat.density, kt, mt);
  // Lower triangles only (the solver and the products read the lower part).
  const Eigen::Index nd = Eigen::Index(dofs);
  Eigen::SparseMatrix<double> k(nd, nd), m(nd, nd);
  k.setFromTriplets(kt.begin(), kt.end());
  m.setFromTriplets(mt.begin(), mt.end());
  kt = {};
  mt = {};

  Modes out;
  for (Eigen::Index i = 0; i < Eigen::Index(dofs); ++i) {
    const double mi = m.coeff(i, i);
    if (mi <= 0) fail("", fmt::format("modes: node {} belongs to no tetrahedron", i / 3));
    out.lambda_max = std::max(out.lambda_max, k.coeff(i, i) / mi);
  }
  // Full symmetric matrices for the shift-invert factorisation (k - sigma m built from both).
  const Eigen::SparseMatrix<double> kf = k.selfadjointView<Eigen::Lower>();
  const Eigen::SparseMatrix<double> mf = m.selfadjointView<Eigen::Lower>();

  ShiftInvertCholesky::Permutation perm(nd);
  const NodeOrder order = dissection_order(mesh);
  for (size_t r = 0; r < n; ++r)
    for (int a = 0; a < 3; ++a) perm.indices()[3 * order.order[r] + a] = int(3 * r + size_t(a));
  const bool two = options.threads >= 2;
  ShiftInvertCholesky op(kf, mf, std::move(perm), two ? Eigen::Index(3 * order.first) : 0,
                         two ? Eigen::Index(3 * order.second) : 0);
  Spectra::SparseSymMatProd<double> bop(mf);
  const double sigma = -1e-6 * out.lambda_max;
  const Eigen::Index ncv = Eigen::Index(std::min(dofs, std::max(2 * nev + 1, nev + 24)));
  Spectra::SymGEigsShiftSolver<ShiftInvertCholesky, Spectra::SparseSymMatProd<double>, Spectra::GEigsMode::ShiftInvert>
      solver(op, bop, Eigen::Index(nev), ncv, sigma);
  solver.init();
  solver.compute(Spectra::SortRule::LargestMagn, 1000, 1e-10, Spectra::SortRule::SmallestAlge);
  if (solver.info() != Spectra::CompInfo::Successful)
    fail("", fmt::format("modes: the eigensolver did not converge ({} of {} eigenvalues)", solver.num_iterations(),
                         nev));
  out.split_solves = op.split();
  const Eigen::VectorXd values = solver.eigenvalues();
  const Eigen::MatrixXd vectors = solver.eigenvectors();
  const double tol = options.rigid_tolerance * out.lambda_max;
  std::vector<Eigen::Index> kept;
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (std::fabs(values(i)) <= tol)
      out.rigid_eigenvalues.push_back(values(i));
    else if (kept.size() < options.count)
      kept.push_back(i);
  }
  out.vectors.resize(kept.size() * dofs);
  for (size_t j = 0; j < kept.size(); ++j) {
    Eigen::VectorXd v = vectors.col(kept[j]);
    // Spectra returns B-normalised vectors; normalise again in double to be exact, and make the
    // largest component positive so the sign is reproducible: the first one within 1e-6 of the
    // largest magnitude, since a symmetric body has mirror components that tie up to rounding.
    const double norm = std::sqrt(v.dot(mf * v));
    const double largest = v.cwiseAbs().maxCoeff();
    Eigen::Index big = 0;
    while (std::fabs(v(big)) < (1 - 1e-6) * largest) ++big;
    v *= (v(big) < 0 ? -1.0 : 1.0) / norm;
    out.eigenvalues.push_back(values(kept[j]));
    std::copy(v.data(), v.data() + dofs, out.vectors.begin() + std::ptrdiff_t(j * dofs));
  }
  return out;
}

}  // namespace meshport::fem
