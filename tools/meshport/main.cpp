// meshport command-line tool: parses arguments and calls the library.
#include <meshport/batch.h>
#include <meshport/diff.h>
#include <meshport/meshport.h>
#include <meshport/summary.h>
#include <meshport/validate.h>

#include "batch_commands.h"
#include "cli_diagnostics.h"
#include "conversion_options.h"
#include "memory_option.h"
#include "viewer/view_commands.h"
#include "anims_command.h"
#include "docs.h"
#include "huge_pages.h"
#include "modes_command.h"
#include "simulate_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace meshport;
using cli::parse_format;
using cli::print_diagnostics;

// `meshport diff`: 0 same, 1 different, 2 when a file cannot be read.
int run_diff(const std::string& a, const std::string& b, const std::string& from_a, const std::string& from_b,
             const std::string& max_memory, const DiffOptions& options, bool as_json) {
  std::vector<Difference> found, notes;
  ReadOptions ra, rb;
  ra.format = parse_format(from_a, "--from-a");
  rb.format = parse_format(from_b, "--from-b");
  ra.max_memory = rb.max_memory = cli::parse_max_memory(max_memory);
  try {
    const Scene sa = read(a, ra), sb = read(b, rb);
    found = diff(sa, sb, options, &notes);
  } catch (const std::exception& e) {  // meshport::Error, or out of memory
    fmt::print(stderr, "{}\n", e.what());
    if (as_json) fmt::print("{}\n", nlohmann::json{{"error", e.what()}}.dump());
    return 2;
  }
  if (as_json) {
    auto listed = [](const std::vector<Difference>& ds) {
      nlohmann::json list = nlohmann::json::array();
      for (const Difference& d : ds) list.push_back({{"path", d.path}, {"a", d.a}, {"b", d.b}, {"message", d.message}});
      return list;
    };
    fmt::print("{}\n", nlohmann::json{{"same", found.empty()},
                                      {"count", found.size()},
                                      {"differences", listed(found)},
                                      {"notes", listed(notes)}}
                           .dump(2));
  } else {
    for (const Difference& d : notes) fmt::print("note: {}\n", to_string(d));
    for (const Difference& d : found) fmt::print("{}\n", to_string(d));
    fmt::print("{}\n", found.empty()          ? std::string("same")
                       : found.size() == 1 ? std::string("1 difference")
                                           : fmt::format("{} differences", found.size()));
  }
  return found.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Blocks of 1 MB and more are mapped and unmapped on their own, so the memory of one step's
  // large arrays goes back to the system when the step ends instead of staying in glibc's heaps
  // (which grow the threshold otherwise): 388 -> 259 MB peak converting a 1M-vertex IQE.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  // Huge pages for large blocks only when asked for (huge_pages.cpp says why).
  const char* huge = std::getenv("MESHPORT_HUGE_PAGES");
  meshport::cli::use_huge_pages(huge && std::string_view(huge) == "1");
  // Named, so usage lines say "meshport", not the path the binary was started by.
  CLI::App app{"meshport: read, write, validate and convert 3D game model formats", "meshport"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "meshport " MESHPORT_VERSION);
  // Format names from the library's one table (meshport::formats()).
  const std::string from_help = "Input format: " + format_names(false) + " (default: by extension)";
  const std::string to_help = "Output format: " + format_names(true) + " (default: by extension)";

  // convert
  auto* convert = app.add_subcommand("convert", "Convert models; animations of later inputs attach to the first");
  std::vector<std::string> inputs;
  std::string output;
  bool quiet = false;
  convert->add_option("inputs", inputs, "Input files: the first gives meshes and skeleton, all give animations "
                                         "(- reads standard input; give --from)")
      ->required();
  convert->add_option("-o,--output", output, "Output file (- writes standard output; give --to)")->required();
  convert->add_flag("-q,--quiet", quiet, "Do not print warnings");
  cli::ConversionArgs conversion;
  cli::add_conversion_options(convert, conversion, from_help, to_help);

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
  std::string deform_max_memory;
  cli::add_max_memory_option(deform, deform_max_memory);
  deform->add_option("--to", deform_to, to_help);
  deform->add_flag("-q,--quiet", deform_quiet, "Do not print warnings");

  // modes (modes_command.cpp)
  cli::ModesArgs modes_args;
  auto* modes_cmd = cli::add_modes_command(app, modes_args);
  cli::SimulateArgs simulate_args;
  auto* simulate_cmd = cli::add_simulate_command(app, simulate_args);

  // anims (anims_command.cpp)
  cli::AnimsArgs anims_args;
  auto* anims_cmd = cli::add_anims_command(app, anims_args);

  // info
  auto* info = app.add_subcommand("info", "Summarise a model");
  std::string info_path, info_from;
  std::optional<uint32_t> info_scene;
  bool info_as_json = false;
  info->add_option("file", info_path, "Model file (- reads standard input; give --from)")->required();
  info->add_option("--from", info_from, from_help);
  std::string info_max_memory;
  cli::add_max_memory_option(info, info_max_memory);
  info->add_flag("--json", info_as_json, "Print one JSON object");
  info->add_option("--scene", info_scene, "glTF: summarise scene N (default: the file's default scene)")
      ->type_name("N");
  std::vector<std::string> info_textures;
  info->add_option("--textures", info_textures,
                   "Search DIR for textures after the model's folder (repeatable, in order)")
      ->type_name("DIR")
      ->allow_extra_args(false);

  // batch, validate, merge-reports
  cli::BatchArgs batch_args, validate_args;
  auto* batch_cmd = cli::add_batch_command(app, batch_args, from_help, to_help);
  auto* validate = cli::add_validate_command(app, validate_args);
  cli::MergeArgs merge_args;
  auto* merge_cmd = cli::add_merge_command(app, merge_args);

  // diff
  auto* diff_cmd = app.add_subcommand("diff", "Compare two models of any formats (exit 0 same, 1 different, 2 unreadable)");
  std::string diff_a, diff_b, diff_from_a, diff_from_b;
  DiffOptions diff_options;
  bool diff_json = false;
  diff_cmd->footer(
      "Meshes pair by name (else by geometry) and compare as sets of triangles whose corners carry position,\n"
      "texture coordinate and normal, never by vertex index. Materials, joints (parent, rest transform),\n"
      "animations (frames, framerate, loop, skinned vertex positions at every frame) and attachments pair by\n"
      "name (names meshport made up, from the file name, pair in order); format data (pie, iqm, qmsh, qmsh_tmp,\n"
      "modedef) compares field by field. Prints a \"note:\" line per difference in derived data only (normals\n"
      "one side lacks and implies), one line per difference, then \"same\" or \"N differences\"\n"
      "(docs/diff.md). Example:\n"
      "  meshport diff tentacle.iqe tentacle.glb --tolerance 1e-3");
  diff_cmd->add_option("a", diff_a, "First model")->required();
  diff_cmd->add_option("b", diff_b, "Second model")->required();
  diff_cmd->add_option("--tolerance", diff_options.tolerance,
                       "Positions: this fraction of the models' bounding-box diagonal; texture coordinates, normals, "
                       "rotations, colours: this value (default 1e-4)")
      ->check(CLI::NonNegativeNumber);
  diff_cmd->add_option("--from-a", diff_from_a, "Format of the first model (default: by extension)");
  diff_cmd->add_option("--from-b", diff_from_b, "Format of the second model (default: by extension)");
  std::string diff_max_memory;
  cli::add_max_memory_option(diff_cmd, diff_max_memory);
  diff_cmd->add_flag("--json", diff_json,
                     "Print one JSON object: {\"same\", \"count\", \"differences\": [{\"path\", \"a\", \"b\", \"message\"}], "
                     "\"notes\": [the same]}");

  // formats
  auto* list = app.add_subcommand("formats", "List the formats and what meshport can do with each");
  bool formats_json_out = false;
  list->add_flag("--json", formats_json_out,
                 "Print a JSON array: per format its name, description, extensions, can_read, can_write, family "
                 "and \"holds\", what it holds by capability (docs/formats.md, \"What each format holds\")");

  cli::ViewerArgs viewer_args;  // view, assemble, thumbnail
  cli::add_viewer_commands(app, viewer_args, from_help);
  // gendocs (hidden): the man page and bash completion, from every command added above
  cli::DocsArgs docs_args;
  auto* docs_cmd = cli::add_docs_command(app, docs_args);

  // Exit status everywhere: 0 success, 1 failure, 2 usage error (CLI11's own codes are 100+).
  auto usage_exit = [&app](const CLI::Error& e) {
    const int code = app.exit(e);  // prints the message (help and version to stdout)
    return code == 0 ? 0 : 2;
  };
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->check_name(argv[1]);
    if (!known) {
      fmt::print(stderr, "meshport: unknown command '{}'; see meshport --help\n", argv[1]);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(e);
  }

  try {
    if (*convert) {
      const ConvertOptions o = cli::conversion_options(conversion);
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
      ro.max_memory = cli::parse_max_memory(deform_max_memory);
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
    if (*modes_cmd) return cli::run_modes(modes_args);
    if (*simulate_cmd) return cli::run_simulate(simulate_args);
    if (*anims_cmd) return cli::run_anims(anims_args);
    if (*info) {
      ReadOptions o;
      o.format = parse_format(info_from, "--from");
      o.scene = info_scene;
      o.max_memory = cli::parse_max_memory(info_max_memory);
      std::vector<SceneEntry> scenes;
      o.scenes = &scenes;
      Diagnostics d;
      Scene s = read(info_path, o, &d);
      // The text shows no animation bounds: they are skinned only for --json.
      Summary summary = summarize(s, o.format ? *o.format : *format_from_path(info_path), info_as_json);
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
    if (*batch_cmd) return cli::run_batch(batch_args, BatchTask::Convert);
    if (*validate) return cli::run_batch(validate_args, BatchTask::Validate);
    if (*merge_cmd) return cli::run_merge(merge_args);
    if (*diff_cmd)
      return run_diff(diff_a, diff_b, diff_from_a, diff_from_b, diff_max_memory, diff_options, diff_json);
    if (int code = 0; cli::run_viewer_commands(viewer_args, code)) return code;
    if (*docs_cmd) return cli::run_docs(app, docs_args, MESHPORT_VERSION);
    if (*list) {
      fmt::print("{}", formats_json_out ? formats_json().dump(2) + "\n" : formats_text());
      return 0;
    }
  } catch (const Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  } catch (const CLI::Error& e) {
    return usage_exit(e);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "error: out of memory (--max-memory lowers what a read may use)\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
