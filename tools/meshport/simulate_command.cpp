// `meshport simulate SCENE.state -o OUT.glb` (docs/modedef.md "Simulating scenes").
#include "simulate_command.h"

#include "cli_diagnostics.h"
#include "conversion_options.h"
#include "memory_option.h"
#include "../../src/core/utf8_path.h"
#include "text_output.h"

#include <meshport/meshport.h>
#include <meshport/process.h>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace meshport::cli {

CLI::App* add_simulate_command(CLI::App& app, SimulateArgs& args) {
  auto* cmd = app.add_subcommand("simulate", "Simulate a ModeDef scene (.state): rigid bodies, contacts, modes");
  cmd->footer(
      "Rigid bodies fall under the .state's gravity onto its planes (penalty springs KP KV KB of each .prop,\n"
      "friction KF), deform by their modes (damped oscillators driven by the contact forces), hang from joint\n"
      "constraints, appear between their birth and death times and follow their .path when flagged `a`. The output\n"
      "is the .state's Scene with the simulated animation: one pose per object per frame and the mode amplitudes as\n"
      "morph target weights (docs/modedef.md \"Simulating scenes\"). Example:\n"
      "  meshport simulate scene.state --seconds 4 -o scene.glb --trace scene.json");
  cmd->add_option("input", args.input, "A ModeDef .state (or a glTF written from one)")->required();
  cmd->add_option("-o,--output", args.output, "Output file, any format that keeps animation (.glb, .gltf, ...)")
      ->required();
  cmd->add_option("--seconds", args.seconds,
                  "Simulated time (default: the latest path key, birth or death time, else 5 s)");
  cmd->add_option("--fps", args.fps, "Output frames per second (default: the .state's FPS, 30 when it is <= 0)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--substeps", args.substeps, "Substeps per frame (default: from the stiffest spring)")
      ->check(CLI::Range(1u, kMaxSubstepsPerFrame));
  cmd->add_option("--trace", args.trace, "Also write per frame and object the state, contacts and energies (JSON)");
  cmd->add_option("--from", args.from, "Input format (default: by extension)");
  add_max_memory_option(cmd, args.max_memory);
  cmd->add_flag("-q,--quiet", args.quiet, "Print neither warnings nor the summary");
  return cmd;
}

int run_simulate(const SimulateArgs& args) {
  namespace fs = std::filesystem;
  ReadOptions ro;
  ro.format = parse_format(args.from, "--from");
  ro.max_memory = parse_max_memory(args.max_memory);
  Diagnostics d;
  auto print_diags = [&]() {
    if (!args.quiet) print_diagnostics(d);
  };
  try {
    Scene s = read(args.input, ro, &d);
    SimulateOptions o;
    o.seconds = args.seconds;
    o.fps = args.fps;
    o.substeps = args.substeps;
    const SimulationResult r = about_file(args.input, d, [&] { return simulate(s, o, &d); });
    const std::string name = args.input == "-" ? std::string("simulation") : path_utf8(utf8_path(args.input).stem());
    apply_simulation(s, r, name);
    std::string trace;
    if (!args.trace.empty()) trace = simulation_trace_json(s, r);
    // As convert does when the format changes: normals for meshes without them (a .model's render
    // mesh may have none; viewers and Blender then shade it flat or fail).
    const std::optional<Format> to = format_from_path(args.output);
    const bool modedef = to && (*to == Format::ModeDefModel || *to == Format::ModeDefProp ||
                                *to == Format::ModeDefState || *to == Format::ModeDefPath);
    if (!modedef) {
      ProcessOptions p;
      p.normals = Generate::Missing;
      p.tangents = Generate::Off;
      process(s, p, &d);
    }
    // The trace goes to a temporary file first and takes its name once the model is written, so
    // that a failure of either leaves neither (and an older model is not removed).
    const std::string trace_tmp = args.trace.empty() ? std::string() : args.trace + ".simulate-tmp";
    if (!trace_tmp.empty()) write_text(trace_tmp, trace);
    std::error_code ec;
    try {
      write(s, args.output, WriteOptions{}, &d);
    } catch (...) {
      if (!trace_tmp.empty()) fs::remove(utf8_path(trace_tmp), ec);
      throw;
    }
    if (!trace_tmp.empty()) {
      fs::rename(utf8_path(trace_tmp), utf8_path(args.trace), ec);
      if (ec) {
        fs::remove(utf8_path(trace_tmp), ec);
        fail(args.trace, "cannot write it (the model was written)");
      }
    }
    if (!args.quiet)
      fmt::print("{}: {} frames at {:.6g} fps ({:.6g} s), {} {}, {} substeps per frame ({:.3g} s), {} "
                 "rollbacks, deepest penetration {:.6g}\n",
                 args.output, r.frame_count, r.fps, r.seconds, r.object_count, r.object_count == 1 ? "object" : "objects",
                 r.substeps_per_frame, r.substep, r.rollbacks, r.max_penetration);
  } catch (...) {
    print_diags();
    throw;
  }
  print_diags();
  return 0;
}

}  // namespace meshport::cli
