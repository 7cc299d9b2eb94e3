#!/usr/bin/env bash
# CTest driver of the Blender edit round trip from the command line, as a user runs it:
#   meshport convert INPUT -o in.glb; Blender: import, export with custom properties
#   (roundtrip.py); meshport convert out.glb -o back/NAME; meshport diff INPUT back/NAME.
# Usage: run_roundtrip.sh MESHPORT INPUT FPS TOLERANCE   (FPS: Blender's scene frame rate)
set -uo pipefail
meshport=$1 input=$2 fps=$3 tolerance=$4
if ! command -v blender >/dev/null; then
  echo "blender is not installed (make test installs it: apt-get install blender python3-numpy)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meshport_blender.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$input")  # the same file name: PIE names levels after it
mkdir "$tmp/back"
"$meshport" convert "$input" -o "$tmp/in.glb" 2>/dev/null || exit 1
blender -b --factory-startup --python-exit-code 1 --python "$(dirname "$0")/roundtrip.py" -- \
  --fps "$fps" "$tmp/in.glb" "$tmp/out.glb" >"$tmp/log" 2>&1 || { tail -20 "$tmp/log"; exit 1; }
"$meshport" convert "$tmp/out.glb" -o "$tmp/back/$name" || exit 1
"$meshport" diff "$input" "$tmp/back/$name" --tolerance "$tolerance"
