#!/usr/bin/env bash
# Installs the Debian packages meshport needs, when some are missing. Run as root (CI, a fresh
# Debian machine); without root it only lists what is missing.
set -euo pipefail
packages=(cmake make g++ pkg-config libfmt-dev libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev
          libbenchmark-dev libmeshoptimizer-dev libdraco-dev libstb-dev libcpp-httplib-dev chromium blender python3-numpy clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js and npm run the glTF validator; a machine may have them from elsewhere than Debian.
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
