// `meshport view`, `assemble` and `thumbnail` (view_commands.h, docs/viewer.md). Every build has
// `assemble` and `view --export`; serving the page and `thumbnail` need the viewer's server
// (MESHPORT_VIEW_SERVER: cpp-httplib and the embedded page, MESHPORT_VIEWER in CMake).
#include "view_commands.h"

#include "../cli_diagnostics.h"
#include "../conversion_options.h"
#include "../memory_option.h"
#include "../progress.h"
#include "../interrupt.h"
#include "../terminal.h"

#include <meshport/meshport.h>

#include "core/io.h"
#include "core/utf8_path.h"
#include "view/model.h"
#ifdef MESHPORT_VIEW_SERVER
#include "view/server.h"
#include "view/site.h"
#include "view/thumbnails.h"
#endif

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace meshport::cli {

namespace {

view::LoadOptions load_options(const ViewerArgs& args, const std::vector<std::string>& files) {
  view::LoadOptions o;
  o.files = files;
  o.from = parse_format(args.from, "--from");
  o.assemble.vtol = args.vtol;
  o.texture_dirs = args.textures;
  o.max_memory = parse_max_memory(args.max_memory);
  return o;
}

// view --export DIR: the files the page would be served, written into DIR (created).
int run_export(const ViewerArgs& args) {
  Diagnostics d;
  try {
    const view::Model model = view::load_model(load_options(args, args.view_files), &d);
    std::optional<std::array<uint8_t, 3>> colour;
    if (!args.team_colour.empty())
      colour = std::array<uint8_t, 3>{uint8_t(args.team_colour[0]), uint8_t(args.team_colour[1]),
                                      uint8_t(args.team_colour[2])};
    const std::string glb = view::model_glb(model, colour, &d);
    const std::string info = view::page_info(model).dump() + "\n";
    const std::filesystem::path dir = utf8_path(args.export_dir);
    std::filesystem::create_directories(dir);
    io::write_file_atomic(path_utf8(dir / "model.glb"), {reinterpret_cast<const uint8_t*>(glb.data()), glb.size()});
    io::write_file_atomic(path_utf8(dir / "info.json"), {reinterpret_cast<const uint8_t*>(info.data()), info.size()});
  } catch (...) {
    if (!args.quiet) print_diagnostics(d);
    throw;
  }
  if (!args.quiet) print_diagnostics(d);
  return 0;
}

int run_view(const ViewerArgs& args) {
  if (!args.export_dir.empty()) return run_export(args);
  if (!args.team_colour.empty())
    fail("view", "--team-colour goes with --export (the served page picks its team colour itself)");
#ifndef MESHPORT_VIEW_SERVER
  fail("view", "this meshport was built without the viewer's server (MESHPORT_VIEWER=OFF, or WebAssembly): "
               "--export DIR writes what the page would show");
#else
  Diagnostics d;
  const view::Model model = view::load_model(load_options(args, args.view_files), &d);
  const view::Site site = view::make_site(model, &d);
  if (!args.quiet) print_diagnostics(d);
  view::Server server(site);
  view::ServeOptions so;
  so.port = uint16_t(args.port);
  so.idle_seconds = args.idle;
  so.timeout_seconds = args.timeout;
  const uint16_t port = server.bind(so);
  const std::string url = fmt::format("http://127.0.0.1:{}/", port);
  fmt::print("{}\n", url);
  std::fflush(stdout);
  if (args.open) {
    const std::string why = view::open_in_browser(url);
    if (!why.empty()) fmt::print(stderr, "meshport view: warning: cannot open a browser ({}): open {} yourself\n", why, url);
  }
  server.run();
  fmt::print(stderr, "meshport view: stopped ({})\n", server.stop_reason());
  return 0;
#endif
}

int run_assemble(const ViewerArgs& args) {
  Diagnostics d;
  try {
    const view::Model model = view::load_model(load_options(args, args.assemble_files), &d);
    write(model.scene, args.output, model.write, &d);
  } catch (...) {
    if (!args.quiet) print_diagnostics(d);
    throw;
  }
  if (!args.quiet) print_diagnostics(d);
  return 0;
}

#ifdef MESHPORT_VIEW_SERVER
int run_thumbnail(const ViewerArgs& args) {
  view::ThumbnailOptions o;
  o.inputs = args.thumbnail_files;
  o.assemble = args.thumbnail_assemble;
  o.output_dir = args.out_dir;
  o.size = args.size;
  o.jobs = args.jobs;
  o.force = args.force;
  o.timeout = args.page_timeout;
  o.chromium = !args.chromium.empty()                ? args.chromium
               : std::getenv("MESHPORT_CHROMIUM") ? std::getenv("MESHPORT_CHROMIUM")
                                                    : "chromium";
  o.load = load_options(args, {});
  o.sheet = args.sheet;
  ProgressStyle style;
  style.terminal = args.progress == "bar" || (args.progress == "auto" && is_terminal(stderr));
  style.verbose = args.verbose;
  style.quiet = args.quiet;
  style.interval = args.progress == "none" ? 1e300 : 5;
  style.done_word = "drawn";
  ProgressPrinter printer(BatchTask::Convert, style, stderr);
  o.progress = [&](const BatchProgress& p) { printer(p); };
  BatchResult r;
  {
    InterruptScope interrupt("finishing the pictures being drawn");
    o.cancel = interrupt.flag();
    r = view::thumbnails(o);
  }
  printer.finish();
  const size_t n = r.items.size();
  const std::string sheet = args.sheet.empty() ? ""
                            : r.cancelled      ? "; no contact sheet (interrupted)"
                                               : "; contact sheet " + args.sheet;
  fmt::print(stderr, "{} model{}: {} drawn, {} warned, {} failed, {} skipped{} in {:.2f} s{}{}\n", n, n == 1 ? "" : "s",
             r.done, r.warned, r.failed, r.skipped, r.cancelled ? "" : " (up to date)", r.seconds, sheet,
             r.cancelled ? " (interrupted)" : "");
  return r.cancelled ? 130 : r.exit_code();
}
#endif

}  // namespace

void add_viewer_commands(CLI::App& app, ViewerArgs& args, const std::string& from_help) {
  const char* parts_help = "A model, or a Warzone 2100 unit's parts: BODY.pie PROPULSION.pie WEAPON.pie...";
  auto common = [&](CLI::App* c) {
    c->add_option("--from", args.from, from_help);
    c->add_flag("--vtol", args.vtol, "Assembling: weapons go to body connectors 2, 3, ... (VTOL)");
    c->add_option("--textures", args.textures, "Search DIR for textures after the model's folder (repeatable)")
        ->type_name("DIR")
        ->allow_extra_args(false);
    c->add_flag("-q,--quiet", args.quiet, "Do not print warnings");
    add_max_memory_option(c, args.max_memory);
  };
  args.view = app.add_subcommand("view", "Show a model in the browser: serves a page on 127.0.0.1 and prints its address");
  args.view->add_option("files", args.view_files, parts_help)->required();
  args.view->add_option("--port", args.port, "Port (default 0: a free one)")->check(CLI::Range(0, 65535));
  args.view->add_flag("--open", args.open, "Also open the address in the desktop's default browser");
  args.view
      ->add_option("--export", args.export_dir,
                   "Serve nothing: write the page's model.glb and info.json into DIR (what a static page shows)")
      ->type_name("DIR");
  args.view
      ->add_option("--team-colour", args.team_colour,
                   "With --export: bake this team colour R,G,B into pages with a team colour mask (as /model.glb?tc=)")
      ->delimiter(',')
      ->expected(3)
      ->check(CLI::Range(0, 255));
  args.view->add_option("--idle", args.idle, "Stop this many seconds after the page was closed (default 30)")
      ->check(CLI::PositiveNumber);
  args.view->add_option("--timeout", args.timeout, "Stop after this many seconds (default 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  args.view->footer("The page polls the server every 5 s; the server stops --idle seconds after the last poll\n"
                    "(the first page has 5 minutes to arrive), at --timeout, or on Ctrl-C (docs/viewer.md).");
  common(args.view);

  args.assemble = app.add_subcommand("assemble", "Assemble a Warzone 2100 unit from its parts at their connectors");
  args.assemble->add_option("parts", args.assemble_files, "BODY.pie PROPULSION.pie [WEAPON.pie...]")
      ->required()
      ->expected(2, -1);
  args.assemble->add_option("-o,--output", args.output, "Output file (.glb, or any format meshport writes)")->required();
  args.assemble->footer("The body and propulsion stay at the origin; weapon i goes to the body's connector i\n"
                        "(from 1; from 2 with --vtol), as the game places them (docs/viewer.md).");
  common(args.assemble);

#ifdef MESHPORT_VIEW_SERVER
  args.thumbnail = app.add_subcommand("thumbnail", "Write PNG previews through the viewer page in headless Chromium");
  CLI::App* t = args.thumbnail;
  t->add_option("inputs", args.thumbnail_files,
                "Models, folders (searched recursively), globs (*, ?, [..], **), as batch finds them "
                "(or one unit's parts with --assemble)")
      ->required();
  t->add_option("-o,--output-dir", args.out_dir, "Folder for the PNGs: DIR/<path below the input's root>.png")->required();
  t->add_option("--size", args.size, "Width and height in pixels (default 256)")->check(CLI::Range(16, 4096));
  t->add_flag("--assemble", args.thumbnail_assemble, "The files are one unit's parts: one PNG");
  t->add_option("-j,--jobs", args.jobs, "Pages drawing at once in the one Chromium (default 0: one per core)")
      ->check(CLI::Range(0, 64));
  t->add_flag("--force", args.force, "Draw every model, even when its PNG is up to date");
  t->add_option("--timeout", args.page_timeout, "Seconds a page has to draw its model (default 60)")
      ->check(CLI::PositiveNumber)
      ->type_name("S");
  t->add_option("--sheet", args.sheet, "Also write a contact sheet: every thumbnail in a grid, its name under it")
      ->type_name("FILE.png");
  t->add_option("--progress", args.progress, "Progress output: auto (a bar on a terminal, else lines), bar, lines, none")
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}));
  t->add_flag("-v,--verbose", args.verbose, "Print a line for every model");
  t->add_option("--chromium", args.chromium, "Chromium to run (default: $MESHPORT_CHROMIUM, else chromium)");
  t->footer("One headless Chromium draws every model (SwiftShader WebGL); a PNG newer than its model and than\n"
            "the folder's .meshport-thumbnail stamp is up to date and skipped. A model that fails is named and\n"
            "the others are still drawn; exit status 1 then. Ctrl-C finishes the pictures being drawn, starts no\n"
            "more, closes Chromium and removes its profile; exit status 130 (docs/viewer.md, \"Thumbnails\").");
  common(t);
#endif
}

bool run_viewer_commands(const ViewerArgs& args, int& exit_code) {
  if (args.view && *args.view) exit_code = run_view(args);
  else if (args.assemble && *args.assemble) exit_code = run_assemble(args);
#ifdef MESHPORT_VIEW_SERVER
  else if (args.thumbnail && *args.thumbnail) exit_code = run_thumbnail(args);
#endif
  else return false;
  return true;
}

}  // namespace meshport::cli
