#!/usr/bin/env bash
# Cross-builds meshport.exe for Windows x86_64 with Debian's MinGW-w64, statically linked so that
# the .exe needs nothing beside it (docs/install.md, "Windows").
#   scripts/build-windows.sh [BUILD_DIR]     (default: build-win)
# The dependencies come from this Debian: the libraries that need compiling (meshoptimizer, Draco)
# are built for Windows from Debian's source packages (`apt-get source`, deb-src of the same
# mirror; added when missing, as root), the header-only ones (fmt, used header-only here, CLI11,
# nlohmann-json, Eigen, Spectra, stb) are Debian's own headers, copied into the build's prefix
# with a small CMake package file each, and cpp-httplib (`meshport view`) the header-only httplib.h
# of Debian's source package. Nothing of the host's /usr/include reaches the compiler. The viewer's
# page and three.js are embedded from web/node_modules (`make web-deps`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-win}")
jobs=${JOBS:-$(nproc)}
src=$build/deps-src
prefix=$build/deps
toolchain=$root/cmake/mingw-w64.cmake
cross=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DMESHPORT_WINDOWS_DEPS="$prefix" -DCMAKE_BUILD_TYPE=Release
       -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF)

"$root/scripts/install-deps.sh" --windows

# Debian's source packages of the compiled dependencies, with Debian's patches applied
# (fetch_source PACKAGE FOLDER, into $src).
. "$root/scripts/debian-source.sh"

# Configures, builds and installs one of them into the prefix; its output goes to a log, shown
# when a step fails.
build_dependency() {  # FOLDER CMAKE_OPTIONS...
  local name=$1 log=$src/$1.log; shift
  echo "building $name for Windows (log: $log)"
  if ! { cmake -S "$src/$name" -B "$src/$name-build" "${cross[@]}" "$@" && cmake --build "$src/$name-build" -j "$jobs" &&
         cmake --install "$src/$name-build"; } > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "error: building $name for Windows failed (log: $log)" >&2
    exit 1
  fi
}
if [ ! -f "$prefix/lib/libmeshoptimizer.a" ]; then
  fetch_source meshoptimizer meshoptimizer
  build_dependency meshoptimizer -DMESHOPT_BUILD_SHARED_LIBS=OFF
fi
if [ ! -f "$prefix/lib/libdraco.a" ]; then
  fetch_source draco draco
  build_dependency draco -DDRACO_TESTS=OFF -DDRACO_TRANSCODER_SUPPORTED=OFF
fi

# Header-only dependencies: Debian's headers, each with a CMake package file.
stage_debian_headers "$prefix" Windows
stage_httplib "$prefix" Windows

cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DMESHPORT_WINDOWS_DEPS="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DMESHPORT_TESTS=OFF -DMESHPORT_BENCH=OFF -DMESHPORT_VIEWER=ON -DMESHPORT_UNITY=ON \
  ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs" --target meshport_cli
echo "Windows executable: $build/meshport.exe"
