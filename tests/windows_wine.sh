#!/usr/bin/env bash
# The Windows build (meshport.exe, scripts/build-windows.sh) under Wine, against the Linux build:
# the repo's test models of every format, converted to every format, give the same files byte for
# byte (side files too), so do normals generated from faces and the modes solve, and the error
# paths (a missing file, a bad file, an output folder that cannot be written, a usage error) the
# same messages and exit codes; `assemble` writes the same unit, and `meshport view` under Wine
# serves, over HTTP from Linux, the same page and model bytes as the Linux build's, refuses a
# wrong Host alike and stops by itself once the heartbeats stop.
#   tests/windows_wine.sh LINUX_MESHPORT MESHPORT_EXE SOURCE_DIR
# Exit 77 (CTest: skipped, with the reason) when Wine or the .exe is missing.
set -uo pipefail
linux=$1 exe=$2 src=$3
command -v wine >/dev/null || { echo "skipped: wine is not installed (scripts/install-deps.sh --windows)"; exit 77; }
[ -f "$exe" ] || { echo "skipped: $exe is not built (scripts/build-windows.sh)"; exit 77; }

work=$(mktemp -d /tmp/meshport-wine.XXXXXX)
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
servers=()  # the `meshport view` runs started in the background (killed at the end in any case)
cleanup() {
  local pid
  for pid in "${servers[@]}"; do kill -9 "$pid" 2>/dev/null; done
  wineserver -k >/dev/null 2>&1; rm -rf "$work"
}
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
# "OUT/sortie é ✓/" as IQM and glTF, and `info --json` of it.
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
# Non-ASCII names on every path-taking feature (std::filesystem through src/core/utf8_path.h):
# models in "in/modèles/" whose textures, material libraries and side files have such names too,
# each converted to .glb (the texture embedded), to .glb with --external-textures, and described
# by `info` and `info --json`; a PIE's page found by the Warzone layout (texpages/ above structs/;
# PIE texture names are ASCII by the format) and through --textures; --texture; --lods; an OBJ's
# .mtl naming the texture relative to the output; a ModeDef .state written with its .prop, .model
# and .path files; `modes` writing a .model and its .prop; `simulate --trace`; `gendocs -o`;
# `batch` over the folder to .glb, to .gltf with --external-textures (each page once, mirrored)
# and to .iqe (textures copied, mirrored), and over an ASCII folder holding them. Every run must succeed, find every texture on
# Linux, and give Linux's files, messages and standard output.
u="in/modèles" m="in/modèles/ĉapo"
mkdir -p "$u/structs" "$u/texpages" "$m/tëksturo" "$m/prôps" "in/tëkstures ✓"
sed 's/page-17-droid-weapons\.png/page-17.png/' "$src/tests/data/cli/turret.pie" > "$u/structs/ĉapo.pie"
cp "$src/examples/tentacle_skin0.png" "$u/texpages/page-17.png"
sed 's/page-17-droid-weapons\.png/fors.png/' "$src/tests/data/cli/turret.pie" > "in/fôra ĉ.pie"
cp "$src/examples/tentacle_skin0.png" "in/tëkstures ✓/fors.png"
printf 'mtllib matériaux.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl lîgno\nf 1/1 2/2 3/3 4/4\n' > "$m/ŝipo.obj"
printf 'newmtl lîgno\nKd 1 1 1\nmap_Kd tëksturo/lîgno ĉ.tga\n' > "$m/matériaux.mtl"
cp "$src/examples/tentacle_skin1.tga" "$m/tëksturo/lîgno ĉ.tga"
"$linux" convert "$m/ŝipo.obj" -o "$u/glTF ĉ/ŝipo.gltf" -q  # its image "lîgno ĉ.png" beside it
state=$src/tests/data/modedef/state
cp "$state/tri.model" "$m/trï.model"
sed 's/^tri\.obj$/trï.obj/' "$state/box.prop" > "$m/bôx.prop"
cp "$state/fly.path" "$m/flŷ.path"
sed 's|^\.\./tri\.model$|../trï.model|' "$state/props/ball.prop" > "$m/prôps/bâll.prop"
sed 's|box\.prop|bôx.prop|; s|fly\.path|flŷ.path|; s|props/ball\.prop|prôps/bâll.prop|' "$state/scene.state" > "$m/scène.state"
{ sed -n 1,5p "$state/scene.state"; printf '1\nprôps/bâll.prop\n -1 0 0\n 1 0 0 0\n 0 0 0\n 0 0 0\n -1 -1\n'
  printf '2\n0 1 0   0 -1 0\n0 0 2   0 0 -5\n0\n'; } > "$m/ûnu.state"  # one object that simulate can run
unicode_runs=0
run_unicode() {  # NAME ARGS... (OUT as in run_both; "OUT/élan ✓/" exists beforehand)
  local name="non-ASCII: $1"; shift
  rm -rf out-linux out-win && mkdir -p "out-linux/élan ✓" "out-win/élan ✓"
  "$linux" "${@//OUT/out-linux}" > linux.out 2> linux.err; echo $? > linux.rc
  wine meshport.exe "${@//OUT/out-win}" > win.out 2> win.err; echo $? > win.rc
  # A batch's summary ends with its time.
  sed -i 's/ in [0-9.]* s\( ([0-9.]* files\/s)\)\?\r\?$//' linux.err win.err
  check "$name"
  if ! cmp -s <(sed 's|out-linux|OUT|g' linux.out) <(sed 's|out-win|OUT|g; s|\r$||' win.out); then
    echo "FAIL $name: standard output differs"; diff <(sed 's|out-linux|OUT|g' linux.out) <(sed 's|out-win|OUT|g; s|\r$||' win.out) | head -10
    failures=$((failures + 1))
  fi
  if [ "$(cat linux.rc)" != 0 ] || [ "$(cat win.rc)" != 0 ] || grep -qi "not found\|no such" linux.err linux.out; then
    echo "FAIL $name: exit $(cat linux.rc) on Linux, $(cat win.rc) on Windows: $(head -2 linux.err)"
    failures=$((failures + 1))
  fi
  unicode_runs=$((unicode_runs + 1))
}
for input in "$u/structs/ĉapo.pie" "$m/ŝipo.obj" "$u/glTF ĉ/ŝipo.gltf" "$m/scène.state" "$m/bôx.prop" "$m/trï.model"; do
  base=$(basename "$input"); base=${base%.*}
  run_unicode "$input -> .glb" convert "$input" -o "OUT/élan ✓/$base.glb"
  run_unicode "$input -> .glb --external-textures" convert "$input" -o "OUT/élan ✓/$base.glb" --external-textures
  run_unicode "info $input" info "$input"
  run_unicode "info --json $input" info --json "$input"
done
run_unicode "--textures" convert "in/fôra ĉ.pie" --textures "in/tëkstures ✓" -o "OUT/élan ✓/fôra.glb"
run_unicode "--texture" convert "$m/ŝipo.obj" --texture "in/tëkstures ✓/fors.png" -o "OUT/élan ✓/asignita ✓.glb"
run_unicode "--lods" convert "$u/structs/ĉapo.pie" -o "OUT/élan ✓/ĉapo ✓.gltf" --lods 0.5
run_unicode ".obj with its .mtl" convert "$m/ŝipo.obj" -o "OUT/élan ✓/ŝipo ✓.obj"
run_unicode ".state with its side files" convert "$m/scène.state" -o "OUT/élan ✓/scène ✓.state"
cp "$src/tests/data/qmsh/cube.qmsh.tmp" "in/kûbo ĉ.qmsh.tmp"
run_unicode "modes -> .model with its .prop" modes "in/kûbo ĉ.qmsh.tmp" -o "OUT/élan ✓/kûbo.model" --resolution 2 \
  --count 2 --elements linear
run_unicode "simulate --trace" simulate "$m/ûnu.state" -o "OUT/élan ✓/simulita ✓.glb" --seconds 0.2 \
  --trace "OUT/élan ✓/spuro ✓.json"
run_unicode "gendocs -o" gendocs man -o "OUT/élan ✓/meshport ✓.1"
run_unicode "batch -> .glb" batch "$u" -o "OUT/spegulo ✓" --to glb -j 1 --progress none
run_unicode "batch -> .gltf --external-textures" batch "$u" -o "OUT/spegulo ✓" --to gltf --external-textures -j 1 --progress none
run_unicode "batch -> .iqe" batch "$u" -o "OUT/spegulo ✓" --to iqe -j 1 --progress none
# The same below an ASCII folder (the names the folder walk finds are non-ASCII, not the input).
mkdir -p in/plain && cp -r "$u" "in/fôra ĉ.pie" in/plain/
run_unicode "batch of an ASCII folder -> .gltf --external-textures" batch in/plain -o OUT/plain --to gltf \
  --external-textures --textures "in/tëkstures ✓" -j 1 --progress none
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

# assemble: a unit of three parts (the turret as body, propulsion and weapon) written as .glb and .pie.
for to in glb pie; do
  run_both "assemble -> .$to" assemble in/turret.pie in/turret.pie in/turret.pie -o "OUT/unit.$to"
  [ -s "out-win/unit.$to" ] || { echo "FAIL assemble -> .$to: nothing written"; failures=$((failures + 1)); }
done

# view: each build serves the model on 127.0.0.1 (a free port: the address it prints); the page,
# its scripts and the model are fetched from Linux with curl and compared byte for byte. Every run
# has a time limit of its own (--timeout, and `timeout` around it), and is killed at the end.
start_view() {  # NAME COMMAND... : starts it; sets $port ("" when no address came within 60 s)
  local name=$1; shift
  timeout -k 5 150 "$@" --idle 2 --timeout 120 > "$name.out" 2> "$name.err" &
  servers+=($!)
  port=""
  for _ in $(seq 600); do
    port=$(sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/\r\{0,1\}$|\1|p' "$name.out" | head -1)
    [ -n "$port" ] && return 0
    kill -0 "${servers[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "FAIL view ($name): no address printed; messages: $(head -3 "$name.err")"; failures=$((failures + 1))
}
fetch() {  # PORT PATH FILE [CURL_OPTIONS...]: the HTTP status on stdout
  local port=$1 path=$2 file=$3; shift 3
  curl -sS --max-time 20 -o "$file" -w '%{http_code}' "$@" "http://127.0.0.1:$port$path" 2>>curl.err || echo 000
}
stop_view() {  # NAME: waits (up to 30 s) for the run to stop by itself, idle after the last heartbeat
  local name=$1 pid=${servers[-1]}
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "FAIL view ($name): still running 30 s after the last heartbeat"; failures=$((failures + 1))
    kill -9 "$pid" 2>/dev/null
  fi
  wait "$pid"; local rc=$?
  if [ "$rc" != 0 ] || ! grep -q 'meshport view: stopped (idle)' "$name.err"; then
    echo "FAIL view ($name): exit $rc, messages: $(head -3 "$name.err")"; failures=$((failures + 1))
  fi
}
paths=(/ /viewer.js /three/three.module.js /three/addons/loaders/GLTFLoader.js /info.json /model.glb /serve.js /viewer.css)
views=0 served=0
view_both() {  # NAME MODEL...: the two builds serve MODEL...; the same status and bytes for every path
  local name=$1 f k status_l status_w; shift
  mkdir -p "served-$name"
  start_view "linux-$name" "$linux" view -q "$@"; local port_l=$port
  start_view "win-$name" wine meshport.exe view -q "$@"; local port_w=$port
  if [ -z "$port_l" ] || [ -z "$port_w" ]; then return; fi
  for k in "${!paths[@]}"; do
    f="served-$name/$k"
    status_l=$(fetch "$port_l" "${paths[$k]}" "$f.linux")
    status_w=$(fetch "$port_w" "${paths[$k]}" "$f.win")
    if [ "$status_l" != 200 ] || [ "$status_w" != 200 ] || ! cmp -s "$f.linux" "$f.win" || [ ! -s "$f.win" ]; then
      echo "FAIL view $name ${paths[$k]}: HTTP $status_l on Linux, $status_w on Windows; $(wc -c < "$f.linux") and" \
           "$(wc -c < "$f.win") bytes"; failures=$((failures + 1))
    else
      served=$((served + $(wc -c < "$f.win")))
    fi
  done
  [ "$(head -c 4 "served-$name/5.win")" = glTF ] || { echo "FAIL view $name: /model.glb is no .glb"; failures=$((failures + 1)); }
  # A request naming another host is refused (421) by both, then the heartbeat: 2 s later both stop.
  for port in "$port_l" "$port_w"; do
    status_l=$(fetch "$port" /model.glb /dev/null -H "Host: example.com")
    [ "$status_l" = 421 ] || { echo "FAIL view $name: wrong Host answered $status_l, not 421"; failures=$((failures + 1)); }
    status_l=$(fetch "$port" /heartbeat /dev/null)
    [ "$status_l" = 204 ] || { echo "FAIL view $name: /heartbeat answered $status_l, not 204"; failures=$((failures + 1)); }
  done
  stop_view "win-$name"
  unset 'servers[-1]'
  stop_view "linux-$name"
  unset 'servers[-1]'
  views=$((views + 1))
}
if "$linux" view --help >/dev/null 2>&1; then
  view_both tentacle in/tentacle.iqe
  view_both unit in/turret.pie in/turret.pie in/turret.pie
  echo "view: $views models served by both builds, ${#paths[@]} paths each, $served bytes the same"
  [ "$views" -eq 2 ] || { echo "FAIL view: $views of 2 models served"; failures=$((failures + 1)); }
else
  echo "view: not compared: $linux was built without the viewer (MESHPORT_VIEWER=OFF)"
fi
# view --open: ShellExecuteW gives the address to Wine's winebrowser, which runs the host's xdg-open
# (here a stand-in in PATH that writes down what it was given).
mkdir -p fakebin
printf '#!/bin/sh\nprintf "%%s" "$1" > "%s/opened"\n' "$work" > fakebin/xdg-open && chmod +x fakebin/xdg-open
PATH="$work/fakebin:$PATH" timeout -k 5 60 wine meshport.exe view -q in/turret.pie --open --timeout 5 > open.out 2> open.err
for _ in $(seq 100); do [ -s opened ] && break; sleep 0.1; done
url=$(sed -n '1s/\r$//p' open.out)
if [ -z "$url" ] || [ "$(cat opened 2>/dev/null)" != "$url" ]; then
  echo "FAIL view --open: printed '$url', the browser was given '$(cat opened 2>/dev/null)'"; failures=$((failures + 1))
else
  echo "view --open: the browser was given $url"
fi

# thumbnail: refused on Windows (it cannot start Chromium there yet), before writing anything.
mkdir -p out-win/thumbs
timeout -k 5 60 wine meshport.exe thumbnail in/turret.pie -o out-win/thumbs > thumb.out 2> thumb.err; rc=$?
if [ "$rc" != 1 ] || ! grep -q 'cannot start Chromium on this system yet' thumb.err || [ -n "$(ls -A out-win/thumbs)" ]; then
  echo "FAIL thumbnail: exit $rc, messages: $(head -2 thumb.err), written: $(ls -A out-win/thumbs)"; failures=$((failures + 1))
fi

echo "$conversions conversions ($converted written by both, $files files), $unicode_runs runs with non-ASCII paths, generated normals, modes and $errors error paths compared, $failures differences"
# Most conversions succeed (a few targets refuse a model: a .model of a skinned mesh, say).
[ "$converted" -ge 70 ] || { echo "FAIL only $converted of $conversions conversions were written"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ]
