# shellcheck shell=bash disable=SC2154  # $src is the sourcing script's
# Sourced by scripts/build-windows.sh, scripts/build-wasm.sh and scripts/build-linux-dist.sh.
# fetch_source PACKAGE FOLDER unpacks Debian's source package PACKAGE (Debian's patches applied)
# into $src/FOLDER, once; deb-src lines for the binary packages' mirrors are added when apt has none
# (as root).
# Build folders these scripts configure use Ninja, as the Makefile's do (it keeps both cores busy
# to the end of a build); a folder configured before keeps its generator.
export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}

fetch_source() {  # PACKAGE FOLDER
  [ -d "$src/$2" ] && return 0
  mkdir -p "$src"
  if ! (cd "$src" && apt-get source --download-only -qq "$1" >/dev/null 2>&1); then
    if [ "$(id -u)" -eq 0 ] && ! ls /etc/apt/sources.list.d/meshport-deb-src.* >/dev/null 2>&1; then
      # The same mirrors and suites as the binary packages, for source packages.
      if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed -n 's/^Types: deb$/Types: deb-src/p; /^URIs:\|^Suites:\|^Components:\|^Signed-By:/p; /^$/p' \
          /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/meshport-deb-src.sources
      else
        sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > /etc/apt/sources.list.d/meshport-deb-src.list
      fi
      apt-get update -qq
    fi
    (cd "$src" && apt-get source --download-only -qq "$1" >/dev/null)
  fi
  (cd "$src" && dpkg-source --no-check -x -q "$(ls "$1"_*.dsc | head -1)" "$2" >/dev/null)
}


# package_version DIR FILE VERSION: DIR/FILE, the CMake version file find_package() reads beside a
# package file (any version asked for up to VERSION is compatible).
package_version() {
  cat > "$1/$2" <<CFG
set(PACKAGE_VERSION $3)
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
CFG
}

# stage_debian_headers PREFIX WHAT: Debian's header-only dependencies (fmt, used header-only, CLI11,
# nlohmann-json, Eigen, Spectra, stb) copied into PREFIX/include, each found by find_package()
# through a small package file in PREFIX/lib/cmake naming the target meshport uses; WHAT names the
# build in those files' comment. Copied with their dates (cp -a) and only when they differ, so that
# a second run leaves every object up to date.
stage_debian_headers() {
  local prefix=$1 what=$2 h
  mkdir -p "$prefix/include"
  for h in fmt CLI nlohmann eigen3 Spectra stb; do
    [ -d "/usr/include/$h" ] || { echo "missing /usr/include/$h (scripts/install-deps.sh installs it)" >&2; exit 1; }
    if ! diff -rq "/usr/include/$h" "$prefix/include/$h" >/dev/null 2>&1; then
      rm -rf "${prefix:?}/include/$h" && cp -a "/usr/include/$h" "$prefix/include/$h"
    fi
  done
  header_package() {  # NAME TARGET INCLUDE_SUBDIR DEBIAN_PACKAGE VERSION_CUT [DEFINE]
    local dir=$prefix/lib/cmake/$1
    mkdir -p "$dir"
    cat > "$dir/$1Config.cmake" <<CFG
# Debian's $1 headers, copied by scripts/$(basename "$0") for the $what build.
if(NOT TARGET $2)
  add_library($2 INTERFACE IMPORTED)
  set_target_properties($2 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$prefix/include$3")
  ${6:+set_target_properties($2 PROPERTIES INTERFACE_COMPILE_DEFINITIONS $6)}
endif()
CFG
    package_version "$dir" "$1ConfigVersion.cmake" "$(dpkg-query -W -f='${Version}' "$4" | cut -d"$5" -f1)"
  }
  header_package fmt fmt::fmt "" libfmt-dev + FMT_HEADER_ONLY=1
  header_package CLI11 CLI11::CLI11 "" libcli11-dev +
  header_package nlohmann_json nlohmann_json::nlohmann_json "" nlohmann-json3-dev -
  header_package Eigen3 Eigen3::Eigen /eigen3 libeigen3-dev -
}

# stage_httplib PREFIX WHAT: cpp-httplib for `meshport view` as a header-only library, the httplib.h
# of Debian's source package (Debian's patches applied; Debian's libcpp-httplib-dev is a compiled
# library tied to OpenSSL, zlib and brotli), copied to PREFIX/include with a package file
# (httplib::httplib; on Windows it links Winsock, ws2_32). Plain HTTP on 127.0.0.1 only: no
# OpenSSL, zlib or brotli.
stage_httplib() {
  local prefix=$1 what=$2 dir=$1/lib/cmake/httplib
  fetch_source cpp-httplib cpp-httplib
  mkdir -p "$prefix/include" "$dir"
  cmp -s "$src/cpp-httplib/httplib.h" "$prefix/include/httplib.h" || cp -a "$src/cpp-httplib/httplib.h" "$prefix/include/"
  cat > "$dir/httplibConfig.cmake" <<CFG
# The header-only httplib.h of Debian's cpp-httplib source package, copied by scripts/$(basename "$0")
# for the $what build.
if(NOT TARGET httplib::httplib)
  add_library(httplib::httplib INTERFACE IMPORTED)
  set_target_properties(httplib::httplib PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$prefix/include")
  if(WIN32)
    set_target_properties(httplib::httplib PROPERTIES INTERFACE_LINK_LIBRARIES ws2_32)
  endif()
endif()
CFG
  local dsc; dsc=$(ls "$src"/cpp-httplib_*.dsc 2>/dev/null | head -1)
  dsc=${dsc##*/cpp-httplib_}
  package_version "$dir" httplibConfigVersion.cmake "${dsc%%[+~-]*}"
}
