#!/usr/bin/env bash
# CTest driver of the Blender add-on test: packs the add-on as `make blender-addon` does (with
# MESHPORT inside), then runs addon.py in one headless Blender with its own user scripts folder
# (the add-on is installed there, not in the user's), without meshport on PATH or MESHPORT_EXE.
# Usage: run_addon.sh MESHPORT REPO CORPUS
set -uo pipefail
meshport=$1 repo=$2 corpus=$3
if ! command -v blender >/dev/null; then
  echo "blender is not installed (make test installs it: apt-get install blender python3-numpy)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meshport_addon.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The zip as `make blender-addon` packs it (scripts/dist.py addon), carrying MESHPORT as its Linux
# executable, a stand-in for the Windows one and for the licence files.
mkdir -p "$tmp/scripts" "$tmp/config" "$tmp/work" "$tmp/win" "$tmp/doc" "$tmp/path"
printf 'MZ stand-in\n' > "$tmp/win/meshport.exe"
for p in $(python3 "$repo/scripts/dist.py" packages addon); do
  mkdir -p "$tmp/doc/$p" && echo "copyright of $p" > "$tmp/doc/$p/copyright"
done
python3 "$repo/scripts/dist.py" addon --out "$tmp/meshport_io.zip" --linux "$meshport" --windows "$tmp/win/meshport.exe" \
  --doc-root "$tmp/doc" >/dev/null || exit 1
# Blender finds meshport only in the add-on: no MESHPORT_EXE, and PATH is a folder holding only
# Blender.
ln -s "$(command -v blender)" "$tmp/path/blender"
env -u MESHPORT_EXE PATH="$tmp/path" BLENDER_USER_SCRIPTS="$tmp/scripts" BLENDER_USER_CONFIG="$tmp/config" \
  blender -b --factory-startup --python-exit-code 1 --python "$(dirname "$0")/addon.py" -- \
  "$tmp/meshport_io.zip" "$repo" "$tmp/work" "$corpus" "$meshport" >"$tmp/log" 2>&1
status=$?
grep -E "addon round trip|addon test|mismatch|Traceback|Error|meshport:" "$tmp/log" || tail -30 "$tmp/log"
[ $status -eq 0 ] || tail -30 "$tmp/log"
exit $status
