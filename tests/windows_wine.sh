#!/usr/bin/env bash
# The Windows build (meshport.exe, scripts/build-windows.sh) under Wine, against the Linux build:
# the repo's test models of every format, converted to every format, give the same files byte for
# byte (side files too), so do normals generated from faces and the modes solve, and the error
# paths (a missing file, a bad file, an output folder that cannot be written, a usage error) the
# same messages and exit codes.
#   tests/windows_wine.sh LINUX_MESHPORT MESHPORT_EXE SOURCE_DIR
# Exit 77 (CTest: skipped, with the reason) when Wine or the .exe is missing.
set -uo pipefail
linux=$1 exe=$2 src=$3
command -v wine >/dev/null || { echo "skipped: wine is not installed (scripts/install-deps.sh --windows)"; exit 77; }
[ -f "$exe" ] || { echo "skipped: $exe is not built (scripts/build-windows.sh)"; exit 77; }

work=$(mktemp -d /tmp/meshport-wine.XXXXXX)
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() { wineserver -k >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
cp "$exe" "$work/meshport.exe"
wineboot -i >/dev/null 2>&1
wineserver -p >/dev/null 2>&1  # one server for every run below

# The inputs: one or more test models of each format, and (converted by the Linux build) the
# formats the repo keeps no test file of.
mkdir -p "$work/in/textures"
cp "$src/examples/tentacle.iqe" "$src/examples/tentacle_skin0.png" "$src/examples/tentacle_skin1.tga" "$work/in/"
cp "$src/tests/data/cli/turret.pie" "$src/tests/data/cli/walk.iqe" "$src/tests/data/iqe/all-commands.iqe" "$work/in/"
cp "$src/tests/data/obj/scene.obj" "$src/tests/data/obj/scene.mtl" "$work/in/"
cp "$src/tests/data/qmsh/cube.qmsh.tmp" "$src/tests/data/modedef/full.model" "$work/in/"
cd "$work" || exit 1
"$linux" convert in/tentacle.iqe -o in/tentacle_bin.iqm -q
"$linux" convert in/turret.pie -o in/turret_bin.glb -q
"$linux" convert in/cube.qmsh.tmp -o in/cube_bin.qmsh -q

failures=0
check() {  # NAME: compares the two runs' exit codes, messages and output folders
  local name=$1
  if [ "$(cat linux.rc)" != "$(cat win.rc)" ]; then
    echo "FAIL $name: exit $(cat linux.rc) on Linux, $(cat win.rc) on Windows"; failures=$((failures + 1))
  fi
  # Messages name the output folder of their own run; Wine's console ends lines with CR LF.
  sed 's|out-linux|OUT|g' linux.err > a.err
  sed 's|out-win|OUT|g; s|\r$||' win.err > b.err
  if ! cmp -s a.err b.err; then
    echo "FAIL $name: messages differ"; diff a.err b.err | head -10; failures=$((failures + 1))
  fi
  if ! diff -r out-linux out-win >/dev/null; then
    echo "FAIL $name: outputs differ"; diff -rq out-linux out-win | head -10; failures=$((failures + 1))
  fi
}
run_both() {  # NAME ARGS... (OUT in ARGS is the run's output folder)
  local name=$1; shift
  rm -rf out-linux out-win && mkdir out-linux out-win
  "$linux" "${@//OUT/out-linux}" > linux.out 2> linux.err; echo $? > linux.rc
  wine meshport.exe "${@//OUT/out-win}" > win.out 2> win.err; echo $? > win.rc
  check "$name"
}

conversions=0 converted=0 files=0
for input in in/tentacle.iqe in/tentacle_bin.iqm in/turret.pie in/turret_bin.glb in/walk.iqe in/all-commands.iqe \
             in/scene.obj in/cube.qmsh.tmp in/cube_bin.qmsh in/full.model; do
  for to in glb gltf iqe iqm obj pie qmsh.tmp qmsh model; do
    base=$(basename "$input"); base=${base%%.*}
    run_both "$input -> .$to" convert "$input" -o "OUT/$base.$to"
    conversions=$((conversions + 1))
    [ "$(cat win.rc)" = 0 ] && converted=$((converted + 1))
    files=$((files + $(find out-win -type f | wc -l)))
  done
done
# Normals generated from the faces (a grid of 60 x 60 quads without normals: each corner weighed
# by its angle, src/core/angle.h, not the C library's atan2f) and the modes solve (Eigen kept
# scalar in src/physics/fem.cpp): the same bytes too.
awk 'BEGIN { n = 60; print "# Inter-Quake Export"; print "mesh grid"
  for (y = 0; y <= n; y++) for (x = 0; x <= n; x++) printf "vp %.9g %.9g %.9g\n", x / n, y / n, sin(x * 0.37 + y * 0.11) * 0.05
  for (y = 0; y < n; y++) for (x = 0; x < n; x++) { a = y * (n + 1) + x; c = a + n + 1; print "fm", a, a + 1, c + 1; print "fm", a, c + 1, c } }' > in/flat.iqe
run_both "generated normals" convert in/flat.iqe -o OUT/flat.glb
run_both "modes" modes in/cube.qmsh.tmp -o OUT/modes.model --count 4 --resolution 6 -q
[ -s out-win/modes.model ] || { echo "FAIL modes: no output"; failures=$((failures + 1)); }
# Non-ASCII folder and file names on the command line (meshport.exe's manifest makes argv UTF-8,
# which src/core/os_windows.cpp opens as UTF-16): a model in "in/modèle ✓/" written to
# "OUT/sortie é ✓/" as IQM and glTF, and `info --json` of it. (Texture lookup goes through
# std::filesystem, whose narrow paths are not UTF-8 on Windows: docs/install.md, "Platforms".)
mkdir -p "in/modèle ✓"
cp in/walk.iqe "in/modèle ✓/tête.iqe"
for to in iqm gltf; do
  rm -rf out-linux out-win && mkdir -p "out-linux/sortie é ✓" "out-win/sortie é ✓"
  "$linux" convert "in/modèle ✓/tête.iqe" -o "out-linux/sortie é ✓/marche ✓.$to" > linux.out 2> linux.err; echo $? > linux.rc
  wine meshport.exe convert "in/modèle ✓/tête.iqe" -o "out-win/sortie é ✓/marche ✓.$to" > win.out 2> win.err; echo $? > win.rc
  check "non-ASCII paths -> .$to"
  if [ "$(cat win.rc)" != 0 ] || [ ! -s "out-win/sortie é ✓/marche ✓.$to" ] || [ -s win.err ]; then
    echo "FAIL non-ASCII paths -> .$to: exit $(cat win.rc), messages: $(head -3 win.err)"; failures=$((failures + 1))
  fi
done
"$linux" info --json "in/modèle ✓/tête.iqe" > linux.out 2> linux.err
wine meshport.exe info --json "in/modèle ✓/tête.iqe" > win.out 2> win.err
if ! cmp -s linux.out <(sed 's/\r$//' win.out) || [ ! -s linux.out ]; then
  echo "FAIL non-ASCII paths: info --json differs"; failures=$((failures + 1))
fi
run_both "info --json" info --json in/turret.pie
cmp -s linux.out <(sed 's/\r$//' win.out) || { echo "FAIL info --json: output differs"; failures=$((failures + 1)); }
run_both "missing file" convert in/missing.pie -o OUT/x.glb
run_both "bad file" convert in/scene.mtl --from obj -o OUT/x.glb
printf 'PIE 3\nTYPE 10200\nLEVELS 1\nLEVEL 1\nPOINTS 9999\n' > in/bad.pie
run_both "truncated file" convert in/bad.pie -o OUT/x.glb
run_both "unknown command" frobnicate
run_both "mismatched extension" convert in/turret.pie -o OUT/x.glb --to iqm
mkdir -p ro && chmod 555 ro
rm -rf out-linux out-win && mkdir out-linux out-win
"$linux" convert in/turret.pie -o ro/x.glb > linux.out 2> linux.err; echo $? > linux.rc
wine meshport.exe convert in/turret.pie -o ro/x.glb > win.out 2> win.err; echo $? > win.rc
errors=6
if [ "$(id -u)" -ne 0 ]; then check "unwritable output folder"; errors=7; fi  # root writes anywhere, on both

echo "$conversions conversions ($converted written by both, $files files), generated normals, modes and $errors error paths compared, $failures differences"
# Most conversions succeed (a few targets refuse a model: a .model of a skinned mesh, say).
[ "$converted" -ge 70 ] || { echo "FAIL only $converted of $conversions conversions were written"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ]
