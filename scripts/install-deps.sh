#!/usr/bin/env bash
# Installs the Debian packages meshport needs, when some are missing. Run as root (CI, a fresh
# Debian machine); without root it only lists what is missing.
#   scripts/install-deps.sh         everything: the library and CLI, tests, benchmarks, sanitizers
#   scripts/install-deps.sh --cli   only what building the library and the CLI needs (make demo)
set -euo pipefail
cli_only=false
case "${1:-}" in
  --cli) cli_only=true ;;
  "") ;;
  *) echo "usage: $0 [--cli]" >&2; exit 2 ;;
esac
# The library and the CLI.
packages=(cmake make g++ libfmt-dev libcli11-dev nlohmann-json3-dev libmeshoptimizer-dev libdraco-dev libstb-dev)
# Tests (pkg-config and groff check the installed pkg-config file and man page), benchmarks,
# Blender checks, sanitizers and fuzzing.
if ! $cli_only; then
  packages+=(pkg-config groff-base libgtest-dev libgmock-dev libbenchmark-dev blender python3-numpy clang-14
             libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js and npm run the glTF validator (tests); a machine may have them from elsewhere than Debian.
if ! $cli_only; then
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages (run as root to install): ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
