#!/usr/bin/env bash
# Times `meshport convert` of a large generated IQE model (1M vertices, 2M triangles) to IQM,
# 3 runs, and `meshport info` on the result. Builds nothing.
# Usage: bench/convert_large.sh [BUILD_DIR (default build)] [VERTICES (default 1000000)]
# Targets: under 1.5 s wall and under 400 MB peak RSS per conversion.
set -euo pipefail
build=${1:-build}
vertices=${2:-1000000}
for exe in "$build/meshport" "$build/bench/meshport_genmodel"; do
  [ -x "$exe" ] || { echo "missing $exe (build first: make build)" >&2; exit 1; }
done
if [ ! -x /usr/bin/time ]; then
  if [ "$(id -u)" -ne 0 ]; then echo "/usr/bin/time is missing: apt-get install time (as root)" >&2; exit 1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/meshport_large.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$build/bench/meshport_genmodel" --vertices "$vertices" --joints 64 --frames 30 -o "$tmp/model.iqe"

# Runs a command under /usr/bin/time -v; prints "label: wall W s, peak RSS R MB".
timed() {
  local label=$1; shift
  /usr/bin/time -v -o "$tmp/time.txt" "$@" >/dev/null
  awk -v label="$label" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
    /Maximum resident set size/ { rss = $NF / 1024 }
    END { printf "%s: wall %.2f s, peak RSS %.0f MB\n", label, wall, rss }' "$tmp/time.txt"
}

for run in 1 2 3; do
  timed "convert run $run" "$build/meshport" convert "$tmp/model.iqe" -o "$tmp/model.iqm"
done
timed "info (IQM read)" "$build/meshport" info "$tmp/model.iqm"
"$build/meshport" info "$tmp/model.iqm" | head -4
for f in model.iqe model.iqm; do
  printf '%s: %d bytes (%.1f MB)\n' "$f" "$(stat -c %s "$tmp/$f")" "$(stat -c %s "$tmp/$f" | awk '{print $1 / 1e6}')"
done
