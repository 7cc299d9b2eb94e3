#!/usr/bin/env bash
# CTest driver: converts a model with meshport to .glb and checks Blender's import of it.
# Usage: run_import_check.sh MESHPORT INPUT [counts for import_check.py...]
set -uo pipefail
meshport=$1 input=$2
shift 2
if ! command -v blender >/dev/null; then
  echo "blender is not installed (make test installs it: apt-get install blender python3-numpy)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meshport_blender.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$meshport" convert "$input" -o "$tmp/model.glb" || exit 1
blender -b --factory-startup --python-exit-code 1 \
  --python "$(dirname "$0")/import_check.py" -- "$tmp/model.glb" "$@" >"$tmp/log" 2>&1
status=$?
grep -E "blender saw|mismatch|Traceback|Error" "$tmp/log" || tail -20 "$tmp/log"
exit $status
