#!/usr/bin/env bash
# The npm package "meshport" (npm/, docs/install.md "Node.js / npm") from a WebAssembly build
# (scripts/build-wasm.sh): npm/'s files, the four built files under dist/, meshport's LICENSE and
# the licences of everything compiled into the .wasm files, at the version of CMakeLists.txt's
# project(); packed with `npm pack` (no network: the package has no dependencies).
#   scripts/pack-npm.sh [BUILD_DIR [DEST_DIR]]   (defaults: build-wasm, BUILD_DIR)
# Prints the tarball's path as its last line: "npm package: DEST_DIR/meshport-VERSION.tgz".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-wasm}")
dest=$(realpath -m "${2:-$build}")
stage=$build/npm-package
for f in meshport.js meshport.wasm meshport_api.mjs meshport_api.wasm; do
  [ -f "$build/$f" ] || { echo "error: $build/$f is missing: run scripts/build-wasm.sh $build (make wasm)" >&2; exit 1; }
done
version=$(sed -n 's/^project(meshport VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || { echo "error: no version in $root/CMakeLists.txt's project()" >&2; exit 1; }

rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/dist" "$stage/third-party-licenses"
cp "$root/npm/api.mjs" "$root/npm/api.d.ts" "$root/npm/README.md" "$stage/"
cp "$root/npm/bin/meshport.cjs" "$stage/bin/"
chmod 755 "$stage/bin/meshport.cjs"
# The package is an ES module package ("type": "module"); Emscripten's CLI is CommonJS.
cp "$build/meshport.js" "$stage/dist/meshport-cli.cjs"
cp "$build/meshport.wasm" "$build/meshport_api.mjs" "$build/meshport_api.wasm" "$stage/dist/"
cp "$root/LICENSE" "$stage/LICENSE"
# The version, set in package.json's copy (JSON edited by Node, not by hand).
node -e '
const fs = require("fs");
const p = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
p.version = process.argv[2];
fs.writeFileSync(process.argv[3], JSON.stringify(p, null, 2) + "\n");' "$root/npm/package.json" "$version" "$stage/package.json"

# Licences of everything compiled into the .wasm and .js files (scripts/wasm-licences.sh).
# shellcheck source=scripts/wasm-licences.sh
. "$root/scripts/wasm-licences.sh"
copy_wasm_licences "$build" "$stage/third-party-licenses"

mkdir -p "$dest"
tarball=$(cd "$stage" && npm pack --silent --pack-destination "$dest" 2>/dev/null | tail -1)
[ -f "$dest/$tarball" ] || { echo "error: npm pack wrote no tarball in $dest" >&2; exit 1; }
echo "npm package: $dest/$tarball"
