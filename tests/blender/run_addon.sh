#!/usr/bin/env bash
# CTest driver of the Blender add-on test: packs the add-on as `make blender-addon` does, then
# runs addon.py in one headless Blender with its own user scripts folder (the add-on is installed
# there, not in the user's).
# Usage: run_addon.sh MESHPORT REPO CORPUS
set -uo pipefail
meshport=$1 repo=$2 corpus=$3
if ! command -v blender >/dev/null; then
  echo "blender is not installed (make test installs it: apt-get install blender python3-numpy)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meshport_addon.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
make -s -C "$repo" blender-addon BUILD="$tmp" >/dev/null || exit 1
mkdir -p "$tmp/scripts" "$tmp/config" "$tmp/work"
MESHPORT_EXE=$meshport BLENDER_USER_SCRIPTS="$tmp/scripts" BLENDER_USER_CONFIG="$tmp/config" \
  blender -b --factory-startup --python-exit-code 1 --python "$(dirname "$0")/addon.py" -- \
  "$tmp/meshport_io.zip" "$repo" "$tmp/work" "$corpus" >"$tmp/log" 2>&1
status=$?
grep -E "addon round trip|addon test|mismatch|Traceback|Error|meshport:" "$tmp/log" || tail -30 "$tmp/log"
[ $status -eq 0 ] || tail -30 "$tmp/log"
exit $status
