// The WebAssembly API module's one entry point (cmake/wasm.cmake, npm/api.mjs): runs one meshport
// command, as the CLI would, over Emscripten's in-memory file system. The JavaScript writes the
// input files there, calls meshport_api_run with the command line, then reads the outputs and
// the two files standard output and error were sent to. Only the WebAssembly build compiles this.
#include <cstdio>

#include <emscripten/emscripten.h>

int meshport_cli_main(int argc, char** argv);  // wasm/cli_entry.cpp

// Runs `meshport ARGV...` (argv[0] is "meshport"); standard output goes to STDOUT_PATH and
// standard error to STDERR_PATH (both truncated first). Returns the CLI's exit status.
extern "C" EMSCRIPTEN_KEEPALIVE int meshport_api_run(int argc, char** argv, const char* stdout_path,
                                                     const char* stderr_path) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (!std::freopen(stdout_path, "w", stdout) || !std::freopen(stderr_path, "w", stderr)) return 70;
  const int status = meshport_cli_main(argc, argv);
  std::fflush(stdout);
  std::fflush(stderr);
  return status;
}
