#!/usr/bin/env bash
# Installs the Debian packages meshport needs, when some are missing. Run as root (CI, a fresh
# Debian machine); without root it only lists what is missing.
#   scripts/install-deps.sh         everything: the library and CLI, tests, benchmarks, sanitizers
#   scripts/install-deps.sh --cli   only what building the library and the CLI needs (make demo)
#   scripts/install-deps.sh --windows  the library's packages, MinGW-w64 and Wine (the Windows
#                                   build, scripts/build-windows.sh, and its tests)
#   scripts/install-deps.sh --wasm  the library's packages and Emscripten (the WebAssembly build
#                                   and npm package, scripts/build-wasm.sh)
set -euo pipefail
cli_only=false
windows=false
wasm=false
case "${1:-}" in
  --cli) cli_only=true ;;
  --windows) cli_only=true; windows=true ;;
  --wasm) cli_only=true; wasm=true ;;
  "") ;;
  *) echo "usage: $0 [--cli|--windows|--wasm]" >&2; exit 2 ;;
esac
# The library and the CLI (Ninja builds the folders the Makefile configures; with `meshport view`: cpp-httplib, found through pkg-config; `meshport
# modes`: Eigen and Spectra, header-only).
packages=(cmake make ninja-build g++ pkg-config libfmt-dev libcli11-dev nlohmann-json3-dev libmeshoptimizer-dev libdraco-dev libstb-dev
          libcpp-httplib-dev libeigen3-dev libspectra-dev)
# Tests (groff checks the man page; Chromium runs the viewer's browser test and `meshport
# thumbnail`; Slurm and MUNGE run docs/batch.md's job array on a one-node cluster the test starts
# itself, tests/slurm), benchmarks, Blender checks, sanitizers and fuzzing (Clang, linked by lld:
# GNU ld takes seven times longer over the sanitized binaries). The Python module (python/,
# docs/python.md): pybind11, numpy, pytest for its tests, python3-build and -setuptools for its wheel,
# venv and pip for its offline install test (tests/python/test_install.py).
if ! $cli_only; then
  packages+=(groff-base libgtest-dev libgmock-dev libbenchmark-dev chromium blender python3-numpy clang-14
             libclang-rt-14-dev lld-14 slurm-wlm munge python3-dev pybind11-dev python3-pytest python3-build
             python3-setuptools python3-wheel python3-venv python3-pip)
fi
# The Windows build: MinGW-w64's C++ compiler with POSIX threads (std::thread), dpkg-source for
# Debian's source packages, Wine to run the tests of meshport.exe (curl fetches what its `view`
# serves).
if $windows || ! $cli_only; then
  packages+=(g++-mingw-w64-x86-64-posix dpkg-dev wine64 wine curl)
fi
# The WebAssembly build: Debian's Emscripten (3.1.6, clang-14), dpkg-source for Debian's source
# packages; its tests run the build with Node.js.
if $wasm || ! $cli_only; then
  packages+=(emscripten dpkg-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm fetches three.js for the viewer page (make web-deps, also for the CLI); Node.js runs the
# glTF validator and the browser test. A machine may have them from elsewhere than Debian.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages (run as root to install): ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
