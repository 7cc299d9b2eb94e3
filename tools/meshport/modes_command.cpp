// `meshport modes MESH -o OUT.model` (docs/modedef.md "Computing modes").
#include "modes_command.h"

#include "cli_diagnostics.h"
#include "conversion_options.h"
#include "memory_option.h"
#include "../../src/core/utf8_path.h"

#include <meshport/meshport.h>
#include <meshport/modal.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace meshport::cli {

CLI::App* add_modes_command(CLI::App& app, ModesArgs& args) {
  auto* cmd = app.add_subcommand("modes", "Compute the vibration modes of a closed mesh as a ModeDef model and .prop");
  cmd->footer(
      "Embeds the mesh in a carton of tetrahedra (a grid of --resolution cells along the longest axis, each split\n"
      "into 6), solves K phi = lambda M phi with quadratic (10-node) elements (--elements linear: 4-node) and\n"
      "consistent mass, drops the 6 rigid modes and keeps the lowest --count, mass-normalised. -o X.model writes\n"
      "X.model and X.prop (mass, centre of mass and inertia of the tetrahedra, contact stiffness and damping from\n"
      "the mass and size) beside it; -o X.glb keeps both in the glTF (docs/modedef.md). Example:\n"
      "  meshport modes bunny.obj --youngs 2e6 --poisson 0.4 --density 1100 --count 20 -o bunny.model");
  cmd->add_option("input", args.input, "A closed mesh in any format meshport reads")->required();
  cmd->add_option("-o,--output", args.output, "Output: X.model (with X.prop beside it), X.prop, or any format")
      ->required();
  cmd->add_option("--youngs", args.options.youngs, "Young's modulus E in Pa (default 1e6)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--poisson", args.options.poisson, "Poisson's ratio, in (-1, 0.5) (default 0.3)")
      ->check(CLI::Range(-0.999, 0.499));
  cmd->add_option("--density", args.density,
                  "Density in kg/m^3 (default: the --prop's MASS / carton volume, else 1000)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--prop", args.prop,
                  "A .prop whose RB, DEFORM, LAME, A1, A2, SCALE, KP, KV, KB (and MASS, unless --density) the "
                  "output keeps (default: the input, when it is a .prop)");
  cmd->add_option("--count", args.options.count, "Non-rigid modes to keep (default 20)")->check(CLI::Range(1, 1000));
  cmd->add_option("--resolution", args.options.resolution,
                  "Carton cells along the mesh's longest axis (default 20)")
      ->check(CLI::Range(1, 512));
  cmd->add_option("--elements", args.elements,
                  "Finite elements: quadratic (10-node tetrahedra, accurate in bending) or linear (4-node, too stiff "
                  "in bending until the carton is fine) (default quadratic)")
      ->check(CLI::IsMember({"quadratic", "linear"}));
  cmd->add_option("--from", args.from, "Input format (default: by extension)");
  add_max_memory_option(cmd, args.max_memory);
  cmd->add_flag("-q,--quiet", args.quiet, "Print neither warnings nor the summary");
  return cmd;
}

int run_modes(const ModesArgs& args) {
  namespace fs = std::filesystem;
  ReadOptions ro;
  ro.format = parse_format(args.from, "--from");
  ro.max_memory = parse_max_memory(args.max_memory);
  const fs::path out = utf8_path(args.output);
  const std::string ext = path_utf8(out.extension());
  if (args.output == "-") fail("", "modes: -o - is not supported (a .model comes with its .prop): name a file");
  ModesOptions o = args.options;
  o.stem = path_utf8(out.stem());
  if (args.density) o.density = *args.density;
  o.elements = args.elements == "linear" ? ModeElements::Linear : ModeElements::Quadratic;
  Diagnostics d;
  auto print_diags = [&]() {
    if (!args.quiet) print_diagnostics(d);
  };
  try {
    const Scene in = read(args.input, ro, &d);
    // The .prop the object's other properties come from: --prop, else the input when it is one.
    if (!args.prop.empty()) {
      const Scene p = read(args.prop, ReadOptions{}, &d);
      if (!p.modedef || p.modedef->kind != ModeDefData::Kind::Prop || p.modedef->props.empty())
        fail(args.prop, "modes: --prop needs a ModeDef .prop file");
      o.prop = p.modedef->props[0].prop;
    } else if (in.modedef && in.modedef->kind == ModeDefData::Kind::Prop && !in.modedef->props.empty()) {
      o.prop = in.modedef->props[0].prop;
    }
    o.density_from_prop = o.prop && !args.density;
    ModesReport r;
    const Scene s = about_file(args.input, d, [&] { return compute_modes(in, o, &d, &r); });
    // X.model: written with its .prop (which names it); X.prop: the same pair; else as asked.
    std::string target = args.output;
    if (ext == ".model" || ext == ".MODEL") target = path_utf8(fs::path(out).replace_extension(".prop"));
    write(s, target, WriteOptions{}, &d);
    if (!args.quiet) {
      const ModeDefModel& m = s.modedef->models[0].model;
      fmt::print("{}: {} nodes, {} tetrahedra ({} of {} x {} x {} cells, {} elements), {} rigid modes dropped, {} modes "
                 "{:.6g} Hz .. {:.6g} Hz, mass {:.6g}, volume {:.6g}, density {:.6g}, contact KP {:.6g} KV {:.6g} "
                 "KB {:.6g}\n",
                 args.output, r.nodes, r.tets, r.kept_cells, r.cells[0], r.cells[1], r.cells[2],
                 o.elements == ModeElements::Linear ? "linear" : "quadratic", r.rigid_modes,
                 m.mode_count(), m.mode_count() ? mode_frequency(m.eigenvalues.front()) : 0.0f,
                 m.mode_count() ? mode_frequency(m.eigenvalues.back()) : 0.0f, r.mass, r.volume, r.density,
                 s.modedef->props[0].prop.kp, s.modedef->props[0].prop.kv, s.modedef->props[0].prop.kb);
    }
  } catch (...) {
    print_diags();
    throw;
  }
  print_diags();
  return 0;
}

}  // namespace meshport::cli
