#!/usr/bin/env bash
# The web app (issue 37, docs/web-app.md): static files only, deployable to any static host.
#   scripts/build-web.sh [WASM_BUILD_DIR [OUT_DIR]]   (defaults: build-wasm, build-web)
# WASM_BUILD_DIR is a WebAssembly build (scripts/build-wasm.sh, make wasm); web/node_modules holds
# three.js (make web-deps). OUT_DIR is made afresh:
#   index.html, app.js, ... (web/app/)    the page and its Web Worker
#   viewer.js, viewer.css (web/)           the viewer `meshport view` serves, the same files
#   three/                                 three.js's module and the addons the viewer imports
#   meshport/api.mjs, meshport/dist/       the JavaScript API (npm/api.mjs) and its .wasm module
#   vendor/fflate.js                       fflate (MIT), the zips of conversions and batches
#   sw.js                                  the service worker (web/app/sw.js) with the list of these
#                                          files and a cache name from their contents (offline use)
#   LICENSE, third-party-licenses/         meshport's licence, three.js's, fflate's and the .wasm's
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-wasm}")
out=$(realpath -m "${2:-$root/build-web}")
three=$root/web/node_modules/three
for f in meshport_api.mjs meshport_api.wasm; do
  [ -f "$build/$f" ] || { echo "error: $build/$f is missing: run scripts/build-wasm.sh $build (make wasm)" >&2; exit 1; }
done
fflate=$root/web/node_modules/fflate
[ -f "$three/build/three.module.min.js" ] || { echo "error: $three is missing: run make web-deps" >&2; exit 1; }
[ -f "$fflate/esm/browser.js" ] || { echo "error: $fflate is missing: run make web-deps" >&2; exit 1; }
[ -d "$root/web/app" ] || { echo "error: $root/web/app is missing" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/meshport/dist" "$out/vendor"
cp -R "$root/web/app/." "$out/"
for f in viewer.js viewer.css; do
  [ -f "$root/web/$f" ] && cp "$root/web/$f" "$out/"
done
# three.js's files at the routes `meshport view` serves them (web/three-files.txt).
while IFS='|' read -r route source; do
  case $route in /*) ;; *) continue ;; esac
  mkdir -p "$(dirname "$out$route")"
  cp "$three/$source" "$out$route"
done < "$root/web/three-files.txt"
cp "$root/npm/api.mjs" "$out/meshport/api.mjs"
cp "$build/meshport_api.mjs" "$build/meshport_api.wasm" "$out/meshport/dist/"
cp "$fflate/esm/browser.js" "$out/vendor/fflate.js"
cp "$root/LICENSE" "$out/LICENSE"
mkdir -p "$out/third-party-licenses"
cp "$three/LICENSE" "$out/third-party-licenses/three.txt"
cp "$fflate/LICENSE" "$out/third-party-licenses/fflate.txt"
# shellcheck source=scripts/wasm-licences.sh
. "$root/scripts/wasm-licences.sh"
copy_wasm_licences "$build" "$out/third-party-licenses"
# The service worker caches every file of the site on the first visit; its cache is named after
# their contents, so a new build replaces the old cache (docs/web-app.md, Offline).
if [ -f "$out/sw.js" ]; then
  files=$(cd "$out" && find . -type f ! -name sw.js | sed 's|^\./||' | LC_ALL=C sort)
  version=$(cd "$out" && printf '%s\n' "$files" | while read -r f; do sha256sum "$f"; done | sha256sum | cut -c1-16)
  list=$(printf '%s\n' "$files" | sed 's/.*/  "&",/')
  list="[
  \"./\",
$list
]"
  python3 - "$out/sw.js" "$version" "$list" <<'PY'
import sys
path, version, files = sys.argv[1:]
text = open(path, encoding='utf-8').read()
for key, value in (('"@VERSION@"', '"%s"' % version), ('"@FILES@"', files)):
    if key not in text:
        sys.exit('error: %s has no %s' % (path, key))
    text = text.replace(key, value)
open(path, 'w', encoding='utf-8').write(text)
PY
fi
echo "web app: $out ($(du -sh "$out" | cut -f1); serve it with any static server, e.g. python3 -m http.server -d $out)"
