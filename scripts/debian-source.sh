# shellcheck shell=bash disable=SC2154  # $src is the sourcing script's
# Sourced by scripts/build-windows.sh and scripts/build-linux-dist.sh: fetch_source PACKAGE FOLDER
# unpacks Debian's source package PACKAGE (Debian's patches applied) into $src/FOLDER, once.
# deb-src lines for the binary packages' mirrors are added when apt has none (as root).
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

