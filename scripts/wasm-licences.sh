# Sourced by scripts/pack-npm.sh and scripts/build-web.sh: the licences of what the WebAssembly
# build compiles in, Debian's copyright file of each package (the header-only ones, the two source
# packages built with emcc, and Emscripten, whose libc (musl), libc++, libc++abi and JavaScript
# runtime are in the .wasm and .js files).
copy_wasm_licences() {  # WASM_BUILD_DIR DEST_DIR
  local build=$1 dest=$2
  mkdir -p "$dest"
  licence() {  # NAME FILE
    [ -f "$2" ] || { echo "error: licence file $2 is missing" >&2; exit 1; }
    cp "$2" "$dest/$1.txt"
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
}
