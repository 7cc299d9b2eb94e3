#!/usr/bin/env bash
# Builds the meshport executable of the Linux release (`make dist`, `make blender-addon`): one
# statically linked, stripped file that runs on any Linux x86-64 (kernel 3.2 or later), whatever
# its libraries: glibc, libstdc++ and libgcc are linked in (a dynamically linked glibc 2.36 would
# have kept Ubuntu 22.04 and older systems out: libstdc++'s std::random_device calls arc4random).
#   - fmt and meshoptimizer: built as static libraries from Debian's source packages (Debian
#     ships only their .so)
#   - Draco: Debian's libdraco.a
#   - CLI11, nlohmann-json, Eigen, Spectra, stb: header-only already
#   - cpp-httplib (`meshport view`): the header-only httplib.h of Debian's source package, as for
#     Windows (Debian's libcpp-httplib is a shared library linked to OpenSSL, zlib and brotli);
#     three.js from web/node_modules (`make web-deps`)
# glibc is LGPL-2.1-or-later: its licence is in the release (scripts/dist.py); relinking with
# another glibc is this script on meshport's public source.
#   scripts/build-linux-dist.sh [BUILD_DIR]     (default: build-dist)
# Ends by checking that the executable needs no shared library.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-dist}")
jobs=${JOBS:-$(nproc)}
src=$build/deps-src
prefix=$build/deps
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

"$root/scripts/install-deps.sh" --cli
. "$root/scripts/debian-source.sh"

# fmt and meshoptimizer as static, position-independent libraries, built from Debian's source
# packages (the versions of Debian's headers, which meshport keeps compiling with).
build_static() {  # PACKAGE FOLDER LIBRARY CMAKE_OPTIONS...
  local package=$1 name=$2 lib=$3 log=$src/$2.log; shift 3
  [ -f "$prefix/lib/$lib" ] && return 0
  fetch_source "$package" "$name"
  echo "building $name (static) from Debian's source (log: $log)"
  if ! { cmake -S "$src/$name" -B "$src/$name-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
           -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF "$@" &&
         cmake --build "$src/$name-build" -j "$jobs" && cmake --install "$src/$name-build"; } > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "error: building $name failed (log: $log)" >&2
    exit 1
  fi
}
build_static fmtlib fmt libfmt.a -DFMT_DOC=OFF -DFMT_TEST=OFF
build_static meshoptimizer meshoptimizer libmeshoptimizer.a -DMESHOPT_BUILD_SHARED_LIBS=OFF

# CMake package files that find_package() finds before Debian's: the static libraries with
# Debian's headers in /usr/include, so that meshport compiles with the same commands as in a
# normal build (ccache reuses its objects). fmt keeps Debian's FMT_SHARED define, which on Linux
# only marks fmt's functions visible.
package() {  # NAME CONFIG_FILE_NAME VERSION_FILE_NAME VERSION TARGET LIBRARY [DEFINES]
  local dir=$prefix/lib/cmake/$1
  mkdir -p "$dir"
  cat > "$dir/$2" <<CFG
# Written by scripts/build-linux-dist.sh for the Linux release build.
if(NOT TARGET $5)
  add_library($5 STATIC IMPORTED)
  set_target_properties($5 PROPERTIES IMPORTED_LOCATION $6 INTERFACE_INCLUDE_DIRECTORIES /usr/include)
  ${7:+set_target_properties($5 PROPERTIES INTERFACE_COMPILE_DEFINITIONS $7)}
endif()
CFG
  package_version "$dir" "$3" "$4"
}
draco_a=/usr/lib/$multiarch/libdraco.a
[ -f "$draco_a" ] || { echo "error: $draco_a is missing (Debian's libdraco-dev ships it)" >&2; exit 1; }
version() { dpkg-query -W -f='${Version}' "$1" | sed 's/[+~-].*//'; }
package fmt fmtConfig.cmake fmtConfigVersion.cmake "$(version libfmt-dev)" fmt::fmt "$prefix/lib/libfmt.a" FMT_SHARED
package meshoptimizer meshoptimizerConfig.cmake meshoptimizerConfigVersion.cmake "$(version libmeshoptimizer-dev)" \
  meshoptimizer::meshoptimizer "$prefix/lib/libmeshoptimizer.a"
stage_httplib "$prefix" "Linux release"
package draco draco-config.cmake draco-config-version.cmake "$(version libdraco-dev)" draco::draco "$draco_a"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_EXE_LINKER_FLAGS="-static -s" \
  -DMESHPORT_TESTS=OFF -DMESHPORT_BENCH=OFF -DMESHPORT_PYTHON=OFF -DMESHPORT_VIEWER=ON ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs" --target meshport_cli meshport_docs

# No shared library may be needed.
needed=$(objdump -p "$build/meshport" | awk '$1 == "NEEDED" { print $2 }' | tr '\n' ' ')
if [ -n "$needed" ] || objdump -p "$build/meshport" | grep -q INTERP; then
  echo "error: $build/meshport is not statically linked (needs: ${needed:-a dynamic loader})" >&2
  exit 1
fi
echo "Linux release executable: $build/meshport"
