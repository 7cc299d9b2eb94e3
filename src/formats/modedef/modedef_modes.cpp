// `meshport modes`: a ModeDef model (+ .prop) computed from any closed mesh (include/meshport/modes.h,
// docs/modedef.md "Computing modes"): render mesh as writing a .model makes it, carton
// (physics/carton.h), finite elements and eigenmodes (physics/fem.h).
#include <meshport/modes.h>

#include "formats/modedef/modedef.h"
#include "physics/carton.h"
#include "physics/fem.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <filesystem>

namespace meshport {

namespace {

// Contact constants for a body of mass m and size l (its bounding-box diagonal) when no .prop
// gives them (docs/modedef.md "Computing modes", .prop): resting on 4 contact points the body sinks
// l / 5000 under g = 9.81 (its units taken as metres and seconds), so KP = 1250 m g / l; the
// contact is critically damped on 4 points both ways, KV = KB = sqrt(KP m), so a dropped body
// settles instead of bouncing.
std::array<double, 3> contact_defaults(double mass, double size) {
  constexpr double kG = 9.81, kSinkFraction = 1.0 / 5000;
  const double kp = mass * kG / (4 * kSinkFraction * size);
  const double kv = std::sqrt(kp * mass);
  return {kp, kv, kv};
}

double diagonal(std::span<const std::array<float, 3>> v) {
  std::array<double, 3> lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (const auto& p : v)
    for (int a = 0; a < 3; ++a) {
      lo[size_t(a)] = std::min(lo[size_t(a)], double(p[size_t(a)]));
      hi[size_t(a)] = std::max(hi[size_t(a)], double(p[size_t(a)]));
    }
  double d2 = 0;
  for (int a = 0; a < 3; ++a) d2 += (hi[size_t(a)] - lo[size_t(a)]) * (hi[size_t(a)] - lo[size_t(a)]);
  return std::sqrt(d2);
}

}  // namespace

Scene compute_modes(const Scene& input, const ModesOptions& options, Diagnostics* diags_in, ModesReport* report) {
  Diagnostics local;
  Diagnostics& diags = diags_in ? *diags_in : local;
  if (options.stem.empty() || options.stem.find_first_of(" \t\r\n") != std::string::npos)
    fail("", fmt::format("modes: the name '{}' cannot name a ModeDef file (empty or with whitespace)", options.stem));
  // The render mesh: every mesh welded as writing a .model does, without the morph targets.
  Scene meshes;
  meshes.meshes = input.meshes;
  meshes.materials = input.materials;
  meshes.modedef = input.modedef;  // a .state's planes stay out of the model
  for (Mesh& m : meshes.meshes) m.morph_targets.clear();
  ModeDefModel model = modedef::model_from_meshes(meshes, diags);
  meshes = Scene();
  if (model.faces.empty()) fail("", "modes: the input has no triangles");
  model.eigenvalues.clear();
  model.eigenvectors.clear();

  std::vector<std::array<int32_t, 3>> triangles;
  triangles.reserve(model.faces.size());
  for (const ModeDefFace& f : model.faces) triangles.push_back(f.vertex);
  const size_t open = open_edge_count(triangles);
  if (open > 0)
    diags.add(warning("", fmt::format("modes: the mesh is not closed ({} edges are not shared by exactly two "
                                      "triangles): its inside (ray parity) may be wrong, so the carton may miss or "
                                      "add cells; every cell holding a vertex is kept",
                                      open)));
  const Carton carton = build_carton(model.vertices, triangles, options.resolution, options.elements == ModeElements::Quadratic);
  double density = options.density;
  if (options.prop && options.density_from_prop) {
    const double volume = fem::mass_properties(carton.mesh, 1.0).volume;
    if (!(options.prop->mass > 0) || !std::isfinite(options.prop->mass) || !(volume > 0))
      fail("", fmt::format("modes: the .prop's MASS {} cannot give a density (it must be positive): give --density",
                           options.prop->mass));
    density = double(options.prop->mass) / volume;
  }
  const fem::MassProperties mp = fem::mass_properties(carton.mesh, density);
  fem::Material mat;
  mat.youngs = options.youngs;
  mat.poisson = options.poisson;
  mat.density = density;
  fem::ModesOptions fo;
  fo.count = options.count;
  // Each part adds 6 eigenvalues to find (and the Lanczos basis grows with them): a mesh of many
  // scattered pieces is refused rather than solved for hours.
  constexpr size_t kMaxParts = 16;
  if (carton.parts > kMaxParts)
    fail("", fmt::format("modes: the carton has {} separate parts (pieces of the mesh further apart than a cell), more "
                         "than {}: compute the modes of each piece on its own, or lower --resolution so that they "
                         "join",
                         carton.parts, kMaxParts));
  fo.rigid = 6 * carton.parts;
  if (carton.parts > 1)
    diags.add(warning("", fmt::format("modes: the carton has {} separate parts (the mesh has pieces further apart than a "
                                      "cell): each moves freely, with 6 rigid modes of its own",
                                      carton.parts)));
  const fem::Modes modes = fem::solve_modes(carton.mesh, mat, fo);
  if (modes.rigid_eigenvalues.size() != 6 * carton.parts)
    diags.add(warning("", fmt::format("modes: {} near-zero (rigid) modes found where {} free part{} {} {}; they are "
                                      "dropped",
                                      modes.rigid_eigenvalues.size(), carton.parts, carton.parts == 1 ? "" : "s",
                                      carton.parts == 1 ? "has" : "have", 6 * carton.parts)));
  if (modes.eigenvalues.size() < options.count)
    diags.add(warning("", fmt::format("modes: {} modes computed of the {} asked for (the rest were near-zero)",
                                      modes.eigenvalues.size(), options.count)));

  const size_t n = carton.mesh.nodes.size();
  model.rest.resize(3 * n);
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) model.rest[3 * i + size_t(a)] = float(carton.mesh.nodes[i][size_t(a)]);
  for (double l : modes.eigenvalues) model.eigenvalues.push_back(float(l));
  model.eigenvectors.assign(modes.vectors.begin(), modes.vectors.end());
  model.tets = carton.mesh.tets;
  model.carton = true;
  model.carton_vertices = carton.embedding;
  model.indexing = ModeDefIndexing{};

  ModeDefProp prop = options.prop.value_or(ModeDefProp{});
  prop.model_file = options.stem + ".model";
  prop.mass = float(mp.mass);
  for (int a = 0; a < 3; ++a) prop.center_of_mass[size_t(a)] = float(mp.center[size_t(a)]);
  for (int a = 0; a < 9; ++a) prop.inertia[size_t(a)] = float(mp.inertia[size_t(a)]);
  if (!options.prop) {
    const std::array<double, 3> k = contact_defaults(mp.mass, diagonal(model.vertices));
    prop.kp = float(k[0]);
    prop.kv = float(k[1]);
    prop.kb = float(k[2]);
  }

  Scene out;
  ModeDefData& md = out.modedef.emplace();
  md.kind = ModeDefData::Kind::Prop;
  ModeDefModelFile mf;
  mf.file = prop.model_file;
  mf.model = std::move(model);
  md.models.push_back(std::move(mf));
  ModeDefPropFile pf;
  pf.file = options.stem + ".prop";
  pf.prop = prop;
  pf.model = 0;
  md.props.push_back(std::move(pf));
  modedef::append_model_meshes(out, 0, -1, options.stem, diags);
  if (report) {
    report->nodes = n;
    report->tets = carton.mesh.tets.size();
    report->kept_cells = carton.kept_cells;
    for (int a = 0; a < 3; ++a) report->cells[a] = carton.cells[size_t(a)];
    report->open_edges = open;
    report->rigid_modes = modes.rigid_eigenvalues.size();
    report->parts = carton.parts;
    report->mass = mp.mass;
    report->density = density;
    report->volume = mp.volume;
  }
  return out;
}

}  // namespace meshport
