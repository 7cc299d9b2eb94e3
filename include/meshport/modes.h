// Vibration modes of a closed mesh (`meshport modes`, issue 21): a tetrahedral carton around the
// mesh, linear finite elements, the lowest non-rigid modes of K phi = lambda M phi, and the
// result as a ModeDef model (+ .prop) in a Scene. Equations and choices: docs/modedef.md
// "Computing modes". Implementation: src/formats/modedef/modedef_modes.cpp, src/physics/carton.cpp,
// src/physics/fem.cpp.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <cstdint>
#include <optional>
#include <string>

namespace meshport {

// The finite elements: 10-node (quadratic) tetrahedra, accurate in bending (the default), or
// 4-node (linear, constant-strain) ones, which are too stiff in bending until the carton is fine.
enum class ModeElements { Quadratic, Linear };

struct ModesOptions {
  double youngs = 1e6;     // Young's modulus E (Pa)
  double poisson = 0.3;    // Poisson's ratio, in (-1, 0.5)
  double density = 1000;   // kg / m^3
  uint32_t count = 20;     // non-rigid modes kept
  uint32_t resolution = 20;  // carton cells along the bounding box's longest axis
  ModeElements elements = ModeElements::Quadratic;
  std::string stem = "model";  // names the meshes (`<stem>.group<k>`) and the .prop's MODELFILE (`<stem>.model`)
  // A .prop to take the object's other properties from (`--prop`, or the input when it is a .prop):
  // RB, DEFORM, the unused values, LAME, A1, A2, SCALE, KP, KV and KB are copied into the output
  // .prop, and, when `density_from_prop`, its MASS sets the density (MASS / carton volume), so the
  // object keeps its mass. MODELFILE, MASS, COM and INERTIA are always computed.
  std::optional<ModeDefProp> prop;
  bool density_from_prop = false;
};

// What compute_modes found, for reports and tests.
struct ModesReport {
  size_t nodes = 0, tets = 0, kept_cells = 0;
  uint32_t cells[3] = {0, 0, 0};
  size_t open_edges = 0;   // edges of the render mesh not shared by exactly 2 triangles
  size_t rigid_modes = 0;  // near-zero modes detected and dropped (6 for one connected body)
  size_t parts = 0;        // connected parts of the carton
  double mass = 0, volume = 0;
  double density = 0;  // the density used (options.density, or the .prop's MASS / volume)
};

// The modes of the meshes of `input` (all of them, welded into one render mesh as writing a
// .model does; their morph targets are ignored). The result is a Scene of kind Prop: the model
// (modes, rest positions, render mesh, tetrahedra, carton) and a .prop with the carton's mass,
// centre of mass and inertia tensor, with the model's meshes (morph target per mode), so writing
// it as .model, .prop or glTF keeps everything. Throws meshport::Error for input without
// triangles, a flat mesh, a material out of range or a solver failure; an open mesh is a warning.
Scene compute_modes(const Scene& input, const ModesOptions& options, Diagnostics* diags = nullptr,
                    ModesReport* report = nullptr);

}  // namespace meshport
