// `meshport view`, `assemble` and `thumbnail` (view_commands.h, docs/viewer.md).
#include "view_commands.h"

#include "../cli_diagnostics.h"
#include "../conversion_options.h"
#include "../memory_option.h"

#include <meshport/meshport.h>

#include "view/model.h"
#include "view/server.h"
#include "view/site.h"
#include "view/thumbnail.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

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

int run_view(const ViewerArgs& args) {
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
  fmt::print("http://127.0.0.1:{}/\n", port);
  std::fflush(stdout);
  server.run();
  fmt::print(stderr, "meshport view: stopped ({})\n", server.stop_reason());
  return 0;
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

// Runs chromium headless on `url`, writing a screenshot to `png`; false when it failed or took
// longer than a minute (then it is killed).
bool screenshot(const std::string& chromium, const std::string& url, const std::string& png, unsigned size,
                const std::string& profile) {
  std::vector<std::string> argv = {chromium,
                                   "--headless=new",
                                   "--use-angle=swiftshader",
                                   "--enable-unsafe-swiftshader",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--no-first-run",
                                   "--hide-scrollbars",
                                   "--default-background-color=00000000",  // a transparent PNG
                                   "--user-data-dir=" + profile,
                                   fmt::format("--window-size={0},{0}", std::max(size, view::kMinWindow)),
                                   "--virtual-time-budget=20000",
                                   "--screenshot=" + png,
                                   url};
  if (geteuid() == 0) argv.insert(argv.begin() + 1, "--no-sandbox");  // Chromium refuses root otherwise
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0) return false;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int run_thumbnail(const ViewerArgs& args) {
  std::vector<std::vector<std::string>> jobs;
  if (args.thumbnail_assemble) jobs.push_back(args.thumbnail_files);
  else
    for (const std::string& f : args.thumbnail_files) jobs.push_back({f});
  std::filesystem::create_directories(args.out_dir);
  const std::string chromium = !args.chromium.empty()                ? args.chromium
                               : std::getenv("MESHPORT_CHROMIUM") ? std::getenv("MESHPORT_CHROMIUM")
                                                                    : "chromium";
  // Chromium's profile, in a fresh temporary folder removed at the end.
  std::string profile = (std::filesystem::temp_directory_path() / "meshport-thumbnail-XXXXXX").string();
  if (!mkdtemp(profile.data())) fail(profile, "cannot create a temporary folder for chromium's profile");
  int failures = 0;
  for (const auto& files : jobs) {
    const std::string png = (std::filesystem::path(args.out_dir) /
                             (std::filesystem::path(files[0]).stem().string() + ".png"))
                                .string();
    Diagnostics d;
    try {
      const view::Model model = view::load_model(load_options(args, files), &d);
      const view::Site site = view::make_site(model, &d);
      view::Server server(site);
      view::ServeOptions so;
      so.timeout_seconds = 90;  // the screenshot is killed after 60 s
      const uint16_t port = server.bind(so);
      std::thread serving([&server] { server.run(); });
      std::filesystem::remove(png);
      const std::string shot = png + ".screenshot.png";
      const bool ok = screenshot(chromium, fmt::format("http://127.0.0.1:{}/?thumbnail={}", port, args.size), shot,
                                 args.size, profile);
      server.stop();
      serving.join();
      std::error_code ec;
      if (!ok || std::filesystem::file_size(shot, ec) == 0 || ec) {
        std::filesystem::remove(shot, ec);
        fail(png, fmt::format("chromium ({}) did not write the thumbnail; is Debian's chromium installed? "
                              "(--chromium PATH or MESHPORT_CHROMIUM name another)",
                              chromium));
      }
      std::vector<uint8_t> bytes;
      {
        std::ifstream in(shot, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      std::filesystem::remove(shot, ec);
      const std::vector<uint8_t> cropped = view::crop_thumbnail(bytes, args.size, png);
      std::ofstream out(png, std::ios::binary);
      out.write(reinterpret_cast<const char*>(cropped.data()), std::streamsize(cropped.size()));
      if (!out.flush()) fail(png, "cannot write the thumbnail");
      if (!args.quiet) print_diagnostics(d);
      fmt::print("{}\n", png);
    } catch (const Error& e) {
      if (!args.quiet) print_diagnostics(d);
      fmt::print(stderr, "{}\n", e.what());
      ++failures;
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(profile, ec);
  return failures ? 1 : 0;
}

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

  args.thumbnail = app.add_subcommand("thumbnail", "Write PNG previews through the viewer page in headless Chromium");
  args.thumbnail->add_option("files", args.thumbnail_files, "Models (or one unit's parts with --assemble)")->required();
  args.thumbnail->add_option("-o,--output-dir", args.out_dir, "Folder for the PNGs (named after each model)")->required();
  args.thumbnail->add_option("--size", args.size, "Width and height in pixels (default 256)")->check(CLI::Range(16, 4096));
  args.thumbnail->add_flag("--assemble", args.thumbnail_assemble, "The files are one unit's parts: one PNG");
  args.thumbnail->add_option("--chromium", args.chromium, "Chromium to run (default: $MESHPORT_CHROMIUM, else chromium)");
  common(args.thumbnail);
}

bool run_viewer_commands(const ViewerArgs& args, int& exit_code) {
  if (args.view && *args.view) exit_code = run_view(args);
  else if (args.assemble && *args.assemble) exit_code = run_assemble(args);
  else if (args.thumbnail && *args.thumbnail) exit_code = run_thumbnail(args);
  else return false;
  return true;
}

}  // namespace meshport::cli
