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

# Licences: Debian's copyright file of each package compiled in (the header-only ones, the two
# source packages built with emcc, and Emscripten, whose libc (musl), libc++, libc++abi and
# JavaScript runtime are in the .wasm and .js files).
licence() {  # NAME FILE
  [ -f "$2" ] || { echo "error: licence file $2 is missing" >&2; exit 1; }
  cp "$2" "$stage/third-party-licenses/$1.txt"
}
licence fmt /usr/share/doc/libfmt-dev/copyright
licence cli11 /usr/share/doc/libcli11-dev/copyright
licence nlohmann-json /usr/share/doc/nlohmann-json3-dev/copyright
licence eigen /usr/share/doc/libeigen3-dev/copyright
licence spectra /usr/share/doc/libspectra-dev/copyright
licence stb /usr/share/doc/libstb-dev/copyright
licence meshoptimizer "$build/deps-src/meshoptimizer/debian/copyright"
licence draco "$build/deps-src/draco/debian/copyright"
licence draco-LICENSE "$build/deps-src/draco/LICENSE"
licence emscripten /usr/share/doc/emscripten/copyright

mkdir -p "$dest"
tarball=$(cd "$stage" && npm pack --silent --pack-destination "$dest" 2>/dev/null | tail -1)
[ -f "$dest/$tarball" ] || { echo "error: npm pack wrote no tarball in $dest" >&2; exit 1; }
echo "npm package: $dest/$tarball"
