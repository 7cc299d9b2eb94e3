// meshport command-line tool: parses arguments and calls the library.
#include <meshport/diff.h>
#include <meshport/meshport.h>
#include <meshport/summary.h>
#include <meshport/validate.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace meshport;

void print_diagnostics(const Diagnostics& d) {
  for (const auto& item : d.items) fmt::print(stderr, "{}\n", item.to_string());
  if (d.dropped) fmt::print(stderr, "note: {} more diagnostics not shown\n", d.dropped);
}

std::optional<Format> parse_format(const std::string& name, const char* option) {
  if (name.empty()) return std::nullopt;
  auto f = format_from_name(name);
  if (!f) throw CLI::ValidationError(option, "unknown format '" + name + "' (see `meshport formats`)");
  return f;
}

// "X,Y,Z" as three finite floats.
std::array<float, 3> parse_triple(const std::string& text, const char* option) {
  std::array<float, 3> v{};
  const char* p = text.data();
  const char* end = p + text.size();
  for (int i = 0; i < 3; ++i) {
    auto r = std::from_chars(p, end, v[i]);
    bool last = i == 2;
    if (r.ec != std::errc() || !std::isfinite(v[i]) || (last ? r.ptr != end : (r.ptr == end || *r.ptr != ',')))
      throw CLI::ValidationError(option, "expects three numbers X,Y,Z, got '" + text + "'");
    p = r.ptr + 1;
  }
  return v;
}

// `meshport diff`: 0 same, 1 different, 2 when a file cannot be read.
int run_diff(const std::string& a, const std::string& b, const std::string& from_a, const std::string& from_b,
             const DiffOptions& options, bool as_json) {
  std::vector<Difference> found;
  ReadOptions ra, rb;
  ra.format = parse_format(from_a, "--from-a");
  rb.format = parse_format(from_b, "--from-b");
  try {
    const Scene sa = read(a, ra), sb = read(b, rb);
    found = diff(sa, sb, options);
  } catch (const std::exception& e) {  // meshport::Error, or out of memory
    fmt::print(stderr, "{}\n", e.what());
    if (as_json) fmt::print("{}\n", nlohmann::json{{"error", e.what()}}.dump());
    return 2;
  }
  if (as_json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Difference& d : found) list.push_back({{"path", d.path}, {"a", d.a}, {"b", d.b}, {"message", d.message}});
    fmt::print("{}\n", nlohmann::json{{"same", found.empty()}, {"count", found.size()}, {"differences", list}}.dump(2));
  } else {
    for (const Difference& d : found) fmt::print("{}\n", to_string(d));
    fmt::print("{}\n", found.empty()          ? std::string("same")
                       : found.size() == 1 ? std::string("1 difference")
                                           : fmt::format("{} differences", found.size()));
  }
  return found.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"meshport: read, write, validate and convert 3D game model formats"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "meshport 0.1.0");
  // Format names from the library's one table (meshport::formats()).
  const std::string from_help = "Input format: " + format_names(false) + " (default: by extension)";
  const std::string to_help = "Output format: " + format_names(true) + " (default: by extension)";

  // convert
  auto* convert = app.add_subcommand("convert", "Convert models; animations of later inputs attach to the first");
  std::vector<std::string> inputs;
  std::string output, from, to;
  bool quiet = false, no_adjacency = false, no_bounds = false;
  convert->add_option("inputs", inputs, "Input files: the first gives meshes and skeleton, all give animations "
                                         "(- reads standard input; give --from)")
      ->required();
  convert->add_option("-o,--output", output, "Output file (- writes standard output; give --to)")->required();
  std::optional<uint32_t> convert_scene;
  convert->add_option("--from", from, from_help);
  convert->add_option("--scene", convert_scene,
                      "glTF: read scene N of the first input (default: the file's default scene; info lists them)")
      ->type_name("N");
  convert->add_option("--to", to, to_help);
  convert->add_flag("--no-adjacency", no_adjacency, "IQM: do not write triangle adjacency");
  convert->add_flag("--no-bounds", no_bounds, "IQM: do not write per-frame bounds");
  convert->add_flag("-q,--quiet", quiet, "Do not print warnings");
  std::vector<std::string> convert_textures;
  convert->add_option("--textures", convert_textures,
                      "Search DIR for textures after the input's folder (repeatable, in order; "
                      "docs/textures.md, Finding textures)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  bool external_textures = false;
  convert->add_flag("--external-textures", external_textures,
                    "glTF: write a .glb's images as files beside it instead of embedding them");
  bool compress = false;
  convert->add_flag("--compress", compress,
                    "glTF: compress vertex, index and animation data losslessly (EXT_meshopt_compression)");
  std::vector<int> team_colour;
  convert->add_option("--team-colour", team_colour,
                      "glTF: bake this team colour into texture pages with a team colour mask (PIE TCMASK)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Range(0, 255))
      ->type_name("R,G,B");
  int pie_version = 0;
  convert->add_option("--pie-version", pie_version, "PIE: write version 2, 3 or 4 (default: the source's, else 4)")
      ->check(CLI::IsMember({2, 3, 4}));
  ProcessOptions proc;
  bool no_normals = false, no_tangents = false, add_normals = false, add_tangents = false;
  float smooth_angle = -1;
  std::string rotate, translate;
  auto* g = "Processing (in this order)";
  convert->add_flag("--expand-instances", proc.expand_instances,
                    "Write glTF GPU instances (EXT_mesh_gpu_instancing) as copies, also to glTF (Blender 3.4 shows "
                    "only one otherwise)")
      ->group(g);
  convert->add_flag("--flip-winding", proc.flip_winding, "Reverse every triangle (assets authored inside out)")
      ->group(g);
  convert->add_flag("--flip-v", proc.flip_v, "Flip texture coordinates vertically (v' = 1 - v)")->group(g);
  convert->add_option("--scale", proc.transform.scale, "Scale uniformly by S (meshes, skeleton, animations)")
      ->group(g);
  convert->add_option("--rotate", rotate, "Rotate by X,Y,Z degrees (about X, then Y, then Z; --rotate=-90,0,0)")
      ->type_name("X,Y,Z")
      ->group(g);
  convert->add_option("--translate", translate, "Translate by X,Y,Z (Scene axes: Y up, metres)")
      ->type_name("X,Y,Z")
      ->group(g);
  convert->add_flag("--weld", proc.weld, "Weld identical vertices and drop unused ones")->group(g);
  convert->add_option("--simplify", proc.simplify.ratio,
                      "Simplify every mesh to RATIO of its triangles (meshoptimizer; keeps borders and UV seams)")
      ->type_name("RATIO")
      ->check(CLI::Range(0.0f, 1.0f))
      ->group(g);
  convert->add_option("--simplify-to", proc.simplify.max_triangles,
                      "Simplify every mesh with more than N triangles to at most N (PIE levels: 8192)")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->group(g);
  auto* normals_flag = convert->add_flag("--normals", add_normals,
                    "Generate normals for meshes without them even when writing the input's own format (the "
                    "default for other formats)")
      ->group(g);
  convert->add_flag("--no-normals", no_normals, "Do not generate normals for meshes without them")
      ->group(g)
      ->excludes(normals_flag);
  convert->add_flag("--recompute-normals", proc.normal.recompute, "Replace existing normals too")->group(g);
  convert->add_option("--smooth-angle", smooth_angle,
                      "One auto-smooth angle in degrees for every face, replacing the file's smoothing rules "
                      "(0 faceted, 180 smooth)")
      ->check(CLI::Range(0.0f, 180.0f))
      ->group(g);
  auto* tangents_flag = convert->add_flag("--tangents", add_tangents,
                    "Generate tangents for meshes with normals and texture coordinates but none, even when writing "
                    "the input's own format (the default for other formats)")
      ->group(g);
  convert->add_flag("--no-tangents", no_tangents, "Do not generate tangents for meshes without them")
      ->group(g)
      ->excludes(tangents_flag);
  convert->add_flag("--recompute-tangents", proc.tangent.recompute, "Replace existing tangents too")->group(g);
  convert->add_flag("--optimize", proc.optimize, "Optimise vertex cache and fetch order (meshoptimizer)")->group(g);
  convert->add_flag("--modes-animation", proc.modes_animation,
                    "Add an animation 'modes' playing each morph target (ModeDef vibration mode) in turn")
      ->group(g);

  // deform
  auto* deform = app.add_subcommand("deform", "Deform a ModeDef model by its vibration modes and write the result");
  std::string deform_input, deform_output, deform_from, deform_to;
  std::vector<int> deform_modes;
  std::vector<float> deform_amplitude, deform_amplitudes;
  bool deform_quiet = false;
  deform->footer(
      "Node i moves by u_i = sum_k q_k phi_k[i]; render vertices follow through the carton (docs/modedef.md).\n"
      "Modes are numbered from 0 in file order. Example:\n"
      "  meshport deform bar.model --mode 0 --amplitude 0.5 --mode 2 --amplitude -0.1 -o bent.obj");
  deform->add_option("input", deform_input, "A ModeDef .model (or a .prop / .state naming one)")->required();
  deform->add_option("-o,--output", deform_output,
                     "Output file (any format meshport writes; - writes standard output, with --to)")
      ->required();
  deform->add_option("--mode", deform_modes, "Mode index K (from 0); each --mode takes the next --amplitude")
      ->type_name("K")
      ->allow_extra_args(false);
  deform->add_option("--amplitude", deform_amplitude, "Amplitude A of the preceding --mode")
      ->type_name("A")
      ->allow_extra_args(false);
  deform->add_option("--amplitudes", deform_amplitudes, "Amplitudes of modes 0, 1, ... in order (a0,a1,...)")
      ->delimiter(',')
      ->type_name("a0,a1,...");
  deform->add_option("--from", deform_from, from_help);
  deform->add_option("--to", deform_to, to_help);
  deform->add_flag("-q,--quiet", deform_quiet, "Do not print warnings");

  // info
  auto* info = app.add_subcommand("info", "Summarise a model");
  std::string info_path, info_from;
  std::optional<uint32_t> info_scene;
  bool info_as_json = false;
  info->add_option("file", info_path, "Model file (- reads standard input; give --from)")->required();
  info->add_option("--from", info_from, from_help);
  info->add_flag("--json", info_as_json, "Print one JSON object");
  info->add_option("--scene", info_scene, "glTF: summarise scene N (default: the file's default scene)")
      ->type_name("N");
  std::vector<std::string> info_textures;
  info->add_option("--textures", info_textures,
                   "Search DIR for textures after the model's folder (repeatable, in order)")
      ->type_name("DIR")
      ->allow_extra_args(false);

  // validate
  auto* validate = app.add_subcommand("validate", "Check files and print diagnostics (exit 1 on errors)");
  std::vector<std::string> validate_paths;
  std::string validate_from;
  bool strict = false;
  validate->add_option("files", validate_paths, "Model files")->required();
  validate->add_option("--from", validate_from, "Input format (default: by extension)");
  validate->add_flag("--strict", strict, "Count warnings as errors");

  // diff
  auto* diff_cmd = app.add_subcommand("diff", "Compare two models of any formats (exit 0 same, 1 different, 2 unreadable)");
  std::string diff_a, diff_b, diff_from_a, diff_from_b;
  DiffOptions diff_options;
  bool diff_json = false;
  diff_cmd->footer(
      "Meshes pair by name (else by geometry) and compare as sets of triangles whose corners carry position,\n"
      "texture coordinate and normal, never by vertex index. Materials, joints (parent, rest transform),\n"
      "animations (frames, framerate, loop, skinned vertex positions at every frame) and attachments pair by\n"
      "name; format data (pie, iqm, qmsh, qmsh_tmp, modedef) compares field by field. Prints one line per\n"
      "difference, then \"same\" or \"N differences\" (docs/diff.md). Example:\n"
      "  meshport diff tentacle.iqe tentacle.glb --tolerance 1e-3");
  diff_cmd->add_option("a", diff_a, "First model")->required();
  diff_cmd->add_option("b", diff_b, "Second model")->required();
  diff_cmd->add_option("--tolerance", diff_options.tolerance,
                       "Positions: this fraction of the models' bounding-box diagonal; texture coordinates, normals, "
                       "rotations, colours: this value (default 1e-4)")
      ->check(CLI::NonNegativeNumber);
  diff_cmd->add_option("--from-a", diff_from_a, "Format of the first model (default: by extension)");
  diff_cmd->add_option("--from-b", diff_from_b, "Format of the second model (default: by extension)");
  diff_cmd->add_flag("--json", diff_json,
                     "Print one JSON object: {\"same\", \"count\", \"differences\": [{\"path\", \"a\", \"b\", \"message\"}]}");

  // formats
  auto* list = app.add_subcommand("formats", "List the formats and what meshport can do with each");

  CLI11_PARSE(app, argc, argv);

  try {
    if (*convert) {
      ConvertOptions o;
      o.read.format = parse_format(from, "--from");
      o.read.scene = convert_scene;
      o.write.format = parse_format(to, "--to");
      o.process = proc;
      if (no_normals) o.process.normals = Generate::Off;
      else if (add_normals) o.process.normals = Generate::Missing;
      if (no_tangents) o.process.tangents = Generate::Off;
      else if (add_tangents) o.process.tangents = Generate::Missing;
      if (smooth_angle >= 0) o.process.normal.angle = smooth_angle;
      if (!rotate.empty()) o.process.transform.rotate_degrees = parse_triple(rotate, "--rotate");
      if (!translate.empty()) o.process.transform.translate = parse_triple(translate, "--translate");
      o.write.adjacency = !no_adjacency;
      o.write.bounds = !no_bounds;
      o.write.pie_version = pie_version;
      o.write.texture_dirs = convert_textures;
      o.write.external_textures = external_textures;
      o.write.compress = compress;
      if (!team_colour.empty()) {
        if (team_colour.size() != 3)
          throw CLI::ValidationError("--team-colour", fmt::format("expects three numbers R,G,B (0 to 255), got {}",
                                                                  team_colour.size()));
        o.write.team_colour = std::array<uint8_t, 3>{uint8_t(team_colour[0]), uint8_t(team_colour[1]),
                                                     uint8_t(team_colour[2])};
      }
      Diagnostics d;
      try {
        meshport::convert(inputs, output, o, &d);
      } catch (...) {
        if (!quiet) print_diagnostics(d);
        throw;
      }
      if (!quiet) print_diagnostics(d);
      return 0;
    }
    if (*deform) {
      if (deform_modes.size() != deform_amplitude.size())
        throw CLI::ValidationError("--mode", fmt::format("{} --mode options but {} --amplitude options: give one "
                                                         "amplitude per mode",
                                                         deform_modes.size(), deform_amplitude.size()));
      ReadOptions ro;
      ro.format = parse_format(deform_from, "--from");
      WriteOptions wo;
      wo.format = parse_format(deform_to, "--to");
      Diagnostics d;
      try {
        Scene s = read(deform_input, ro, &d);
        if (!s.modedef || s.modedef->models.empty())
          fail(deform_input, "no ModeDef model to deform (deform reads .model, .prop and .state files)");
        const size_t modes = s.modedef->models[0].model.mode_count();
        if (deform_amplitudes.size() > modes)
          fail(deform_input, fmt::format("--amplitudes gives {} amplitudes, but the model has {} modes",
                                         deform_amplitudes.size(), modes));
        std::vector<float> q(deform_amplitudes);
        for (size_t i = 0; i < deform_modes.size(); ++i) {
          const int k = deform_modes[i];
          if (k < 0 || size_t(k) >= modes)
            fail(deform_input, fmt::format("--mode {} is out of range: the model has {} modes, numbered from 0", k,
                                           modes));
          if (q.size() <= size_t(k)) q.resize(size_t(k) + 1, 0.0f);
          q[size_t(k)] += deform_amplitude[i];
        }
        deform_scene(s, q);
        write(s, deform_output, wo, &d);
      } catch (...) {
        if (!deform_quiet) print_diagnostics(d);
        throw;
      }
      if (!deform_quiet) print_diagnostics(d);
      return 0;
    }
    if (*info) {
      ReadOptions o;
      o.format = parse_format(info_from, "--from");
      o.scene = info_scene;
      std::vector<SceneEntry> scenes;
      o.scenes = &scenes;
      Diagnostics d;
      Scene s = read(info_path, o, &d);
      Summary summary = summarize(s, o.format ? *o.format : *format_from_path(info_path));
      summary.scenes = std::move(scenes);
      summary.file = info_path;
      TextureSearch search;
      if (info_path != "-") search.model_path = info_path;
      search.dirs = info_textures;
      summary.textures = find_textures(s, search);
      fmt::print("{}", info_as_json ? to_json(summary).dump(2) + "\n" : to_text(summary));
      print_diagnostics(d);
      return 0;
    }
    if (*validate) {
      ReadOptions o;
      o.format = parse_format(validate_from, "--from");
      int status = 0;
      for (const auto& path : validate_paths) {
        Diagnostics d;
        try {
          validate_scene(read(path, o, &d), path, d);
        } catch (const Error& e) {
          d.add(e.diagnostic());
        }
        print_diagnostics(d);
        bool bad = d.has_errors() || (strict && d.warning_count() > 0);
        fmt::print("{}: {} ({} errors, {} warnings)\n", path, bad ? "invalid" : "ok", d.items.size() - d.warning_count(),
                   d.warning_count());
        if (bad) status = 1;
      }
      return status;
    }
    if (*diff_cmd) return run_diff(diff_a, diff_b, diff_from_a, diff_from_b, diff_options, diff_json);
    if (*list) {
      fmt::print("{}", formats_text());
      return 0;
    }
  } catch (const Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
