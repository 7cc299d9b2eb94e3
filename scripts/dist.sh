#!/usr/bin/env bash
# `make dist`: builds the release executables and packs the release artefacts into OUT (default
# dist/): the Linux tarball, the Windows zip, the npm tarball, the Python wheel, the Blender add-on
# zip, SHA256SUMS (scripts/dist.py). Shows the add-on zip's contents and the time each step took when done.
#   scripts/dist.sh [OUT]
# Environment: JOBS (parallel jobs), LINUX_BUILD (build-dist), WIN_BUILD (build-win),
#   DIST_PREBUILT=1: use the executables, man page and completion already in LINUX_BUILD and
#     WIN_BUILD instead of building them (fails naming what is missing),
#   PYTHON_BUILD: the CMake build folder of the Python wheel (build-python; python/setup.py),
#   PYTHON_WHEEL: a wheel already built, packed instead of building one,
#   MAKE_NPM: the command that builds the npm tarball (default: make -s -C <repo>; `$MAKE_NPM npm`
#     must print `npm package: <path>` as its last line),
#   WINDOWS_STRIP: the strip program for meshport.exe (empty: packed as built),
#   DIST_DOC_ROOT: where the licences are read (/usr/share/doc: <package>/copyright).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/dist}")
linux_build=$(realpath -m "${LINUX_BUILD:-$root/build-dist}")
win_build=$(realpath -m "${WIN_BUILD:-$root/build-win}")
make_npm=${MAKE_NPM:-make -s -C $root}
windows_strip=${WINDOWS_STRIP-x86_64-w64-mingw32-strip}
export JOBS=${JOBS:-$(nproc)}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
version=$(sed -n 's/^project(meshport VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || { echo "dist: error: no project version in CMakeLists.txt" >&2; exit 1; }

times=()
step() {  # NAME COMMAND...: runs it, keeps its wall time
  local name=$1 start=$SECONDS; shift
  echo "== $name"
  "$@"
  times+=("$name: $((SECONDS - start)) s")
}

if [ "${DIST_PREBUILT:-}" != 1 ]; then
  step "Linux executable ($linux_build)" "$root/scripts/build-linux-dist.sh" "$linux_build"
  step "Windows executable ($win_build)" "$root/scripts/build-windows.sh" "$win_build"
fi

# The npm tarball (`make npm`): a Makefile without that target is an error, never a silent gap.
npm_tarball=""
build_npm() {
  if ! $make_npm -n npm >/dev/null 2>&1; then
    echo "dist: error: the npm tarball was not built: '$make_npm npm' has no such target" >&2
    return 1
  fi
  local log
  log=$(mktemp)
  if ! $make_npm npm 2>&1 | tee "$log"; then
    rm -f "$log"
    echo "dist: error: the npm tarball was not built: '$make_npm npm' failed" >&2
    return 1
  fi
  npm_tarball=$(tail -1 "$log" | sed -n 's/^npm package: //p')
  rm -f "$log"
  if [ -z "$npm_tarball" ]; then
    echo "dist: error: the npm tarball was not built: '$make_npm npm' did not end with 'npm package: <path>'" >&2
    return 1
  fi
  npm_tarball=$(cd "$root" && realpath -m "$npm_tarball")
}
step "npm tarball" build_npm

# The Python wheel (docs/python.md) for Debian's Python, built offline by python/setup.py through
# CMake (PYTHON_BUILD, kept between runs) with python3-build and python3-setuptools.
wheel_dir=$(mktemp -d)
trap 'rm -rf "$wheel_dir"' EXIT
build_wheel() {
  rm -rf "$root/python/build" "$root"/python/*.egg-info
  MESHPORT_BUILD_DIR=$(realpath -m "${PYTHON_BUILD:-$root/build-python}") CMAKE_BUILD_PARALLEL_LEVEL=$JOBS \
    /usr/bin/python3 -m build --no-isolation --wheel --outdir "$wheel_dir" "$root/python"
  rm -rf "$root/python/build" "$root"/python/*.egg-info
}
if [ -n "${PYTHON_WHEEL:-}" ]; then
  wheel=$(realpath -m "$PYTHON_WHEEL")
else
  step "Python wheel" build_wheel
  wheel=$(ls "$wheel_dir"/meshport-"$version"-*.whl)
fi

# The Windows executable without its debug sections (13.4 MB -> 9.7 MB; the Linux one is linked
# stripped already).
windows_exe=$win_build/meshport.exe
[ -f "$windows_exe" ] || { echo "dist: error: the Windows executable $windows_exe is missing (make windows)" >&2; exit 1; }
if [ -n "$windows_strip" ]; then
  staging=$(mktemp -d)
  trap 'rm -rf "$staging" "$wheel_dir"' EXIT
  $windows_strip -o "$staging/meshport.exe" "$windows_exe"
  windows_exe=$staging/meshport.exe
fi

step "packing into $out" python3 "$root/scripts/dist.py" all --out "$out" --version "$version" \
  --linux "$linux_build/meshport" --man "$linux_build/docs/meshport.1" \
  --completion "$linux_build/docs/meshport.bash" --windows "$windows_exe" --npm "$npm_tarball" --wheel "$wheel" \
  --doc-root "${DIST_DOC_ROOT:-/usr/share/doc}"
(cd "$out" && sha256sum --quiet -c SHA256SUMS)

echo "== the Blender add-on (meshport_io-$version.zip):"
python3 "$root/scripts/dist.py" list "$out/meshport_io-$version.zip"
echo "== time taken"
printf '%s\n' "${times[@]}"
