#!/usr/bin/env bash
# The WebAssembly build (scripts/build-wasm.sh, `make wasm`) against this build's CLI: one of
# tests/wasm/NAME.test.mjs under `node --test` (docs/testing.md, "WebAssembly and npm").
#   tests/wasm/run.sh NAME NATIVE_MESHPORT WASM_BUILD_DIR SOURCE_DIR
# Exit 77 (CTest: skipped, with the reason) when Node.js or the WebAssembly build is missing.
set -euo pipefail
name=$1 native=$2 wasm=$3 src=$4
command -v node >/dev/null || { echo "skipped: node is not installed (scripts/install-deps.sh)"; exit 77; }
for f in meshport.js meshport.wasm meshport_api.mjs meshport_api.wasm; do
  [ -f "$wasm/$f" ] || { echo "skipped: $wasm/$f is not built (make wasm, scripts/build-wasm.sh)"; exit 77; }
done
export MESHPORT_NATIVE=$native MESHPORT_WASM_DIR=$wasm MESHPORT_SOURCE=$src
exec node --test "$src/tests/wasm/$name.test.mjs"
