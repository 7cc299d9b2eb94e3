#!/usr/bin/env bash
# Builds meshport for WebAssembly with Debian's Emscripten (docs/install.md, "Node.js / npm"):
#   BUILD_DIR/meshport.js + meshport.wasm          the whole CLI for Node.js (real files: NODERAWFS)
#   BUILD_DIR/meshport_api.mjs + meshport_api.wasm  an ES module for the JavaScript API (npm/api.mjs)
#   scripts/build-wasm.sh [BUILD_DIR]     (default: build-wasm)
# The library is compiled once (a static library) and linked twice. The dependencies come from
# this Debian, as for the Windows build: meshoptimizer and Draco compiled with emcc from Debian's
# source packages (`apt-get source`, deb-src of the same mirror; added when missing, as root), the
# header-only ones (fmt, used header-only here, CLI11, nlohmann-json, Eigen, Spectra, stb) are
# Debian's own headers, copied into the build's prefix with a small CMake package file each.
# Threads are off in this build (no SharedArrayBuffer, no workers): the library runs its threaded
# steps on the calling thread (src/core/threads.h).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-wasm}")
jobs=${JOBS:-$(nproc)}
src=$build/deps-src
prefix=$build/deps
# Emscripten's optimisation level for everything compiled here (-O2: see docs/install.md for the
# CPU time and sizes of -O1, -Os and -O2).
opt=${WASM_OPT:--O2}

"$root/scripts/install-deps.sh" --wasm
# Debian's emcc finds its JavaScript dependencies (acorn) only through NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# Emscripten's cache (its libc, libc++ built on first use) in the build folder when the system's
# cannot be written (not root).
[ -w /usr/share/emscripten/cache ] || export EM_CACHE=$build/emcache

# Debian's source packages of the compiled dependencies (fetch_source), Debian's header-only
# libraries (stage_debian_headers).
# shellcheck source=scripts/debian-source.sh
. "$root/scripts/debian-source.sh"

# Configures, builds and (INSTALL=yes) installs one of them into the prefix (only its library
# target); its output goes to a log, shown when a step fails.
build_dependency() {  # FOLDER TARGET INSTALL CMAKE_OPTIONS...
  local name=$1 target=$2 install=$3 log=$src/$1.log; shift 3
  echo "building $name for WebAssembly (log: $log)"
  # (Draco's CMake files want $EMSCRIPTEN, the SDK's folder.)
  if ! { EMSCRIPTEN=/usr/share/emscripten emcmake cmake -S "$src/$name" -B "$src/$name-build" \
           -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-fwasm-exceptions -DCMAKE_CXX_FLAGS_RELEASE="$opt -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="$opt -DNDEBUG" \
           -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF "$@" &&
         cmake --build "$src/$name-build" -j "$jobs" --target "$target" &&
         { [ "$install" = no ] || cmake --install "$src/$name-build"; }; } > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "error: building $name for WebAssembly failed (log: $log)" >&2
    exit 1
  fi
}
if [ ! -f "$prefix/lib/libmeshoptimizer.a" ]; then
  fetch_source meshoptimizer meshoptimizer
  build_dependency meshoptimizer meshoptimizer yes -DMESHOPT_BUILD_SHARED_LIBS=OFF
fi
if [ ! -f "$prefix/lib/libdraco.a" ]; then
  fetch_source draco draco
  # The static library alone (Emscripten's draco_static): not Draco's own JavaScript decoder and
  # encoder, nor its command-line tools, which its install step wants; the library and its
  # CMake package file go into the prefix below.
  build_dependency draco draco_static no -DDRACO_JS_GLUE=OFF -DDRACO_TESTS=OFF -DDRACO_TRANSCODER_SUPPORTED=OFF
  mkdir -p "$prefix/lib/cmake/draco"
  cp "$src/draco-build/libdraco.a" "$prefix/lib/libdraco.a"
  cat > "$prefix/lib/cmake/draco/dracoConfig.cmake" <<CFG
# Debian's Draco source package compiled with emcc by scripts/build-wasm.sh.
if(NOT TARGET draco::draco)
  add_library(draco::draco STATIC IMPORTED)
  set_target_properties(draco::draco PROPERTIES IMPORTED_LOCATION "$prefix/lib/libdraco.a"
                        INTERFACE_INCLUDE_DIRECTORIES "$src/draco/src;$src/draco-build")
endif()
CFG
fi

# Header-only dependencies: Debian's headers, each with a CMake package file.
stage_debian_headers "$prefix" WebAssembly

# The packages are found in the prefix (added to Emscripten's find root); -fwasm-exceptions for
# meshport::Error and CLI11's parse errors; wasm/compat/libcxx.h gives Emscripten 3.1.6's libc++
# what it lacks (std::bit_cast, std::to_chars and std::from_chars of floating-point numbers).
# (The shared library of cmake/install.cmake is not built here; CMake's warning that Emscripten
# has none is left out of the log, -Wno-dev.)
if ! emcmake cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_ROOT_PATH="$prefix" \
       -DCMAKE_CXX_FLAGS="-fwasm-exceptions -include $root/wasm/compat/libcxx.h" \
       -DCMAKE_CXX_FLAGS_RELEASE="$opt -DNDEBUG" -DSTB_INCLUDE_DIR="$prefix/include" \
       -DSPECTRA_INCLUDE_DIR="$prefix/include" -DMESHPORT_TESTS=OFF -DMESHPORT_BENCH=OFF -DMESHPORT_VIEWER=OFF -DMESHPORT_UNITY=ON \
       -Wno-dev ${CMAKE_ARGS:-} > "$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "error: configuring meshport for WebAssembly failed" >&2
  exit 1
fi
cmake --build "$build" -j "$jobs" --target meshport_cli meshport_api
echo "WebAssembly CLI: $build/meshport.js"
echo "WebAssembly API module: $build/meshport_api.mjs"
