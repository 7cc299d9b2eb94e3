# meshport: `make demo` and `make test` set up a fresh Debian machine (apt, as root), build, run.
BUILD      ?= build
DEMO_BUILD ?= build-demo
ASAN_BUILD ?= build-san
TSAN_BUILD ?= build-tsan
FUZZ_SECONDS ?= 60
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
# New build folders use Ninja (scripts/install-deps.sh installs it): a target's sources compile
# while the libraries it links are still being compiled, where Make's CMake files finish each
# library first and leave a core idle at its end. A folder configured before keeps its generator.
export CMAKE_GENERATOR ?= Ninja

.PHONY: all deps deps-cli deps-windows npm-deps web-deps build build-asan build-tsan test test-fast test-asan test-tsan demo bench fuzz fuzz-long clean blender-addon windows wasm npm web-app dist dist-linux

all: build

deps:
	@scripts/install-deps.sh

# Only what building the library and the CLI needs (make demo).
deps-cli:
	@scripts/install-deps.sh --cli

# The Khronos glTF Validator (npm), used by the GltfValidator test; gltfpack and glTF-Transform
# (npm), used by the GltfTools tests.
npm-deps:
	@if [ -f tests/gltf_validate/package-lock.json ] && [ ! -d tests/gltf_validate/node_modules/gltf-validator ]; then \
	  npm ci --prefix tests/gltf_validate --no-audit --no-fund; fi
	@if [ ! -f tests/gltf_tools/node_modules/gltfpack/cli.js ] || [ ! -f tests/gltf_tools/node_modules/@gltf-transform/cli/bin/cli.js ]; then \
	  npm ci --prefix tests/gltf_tools --no-audit --no-fund; fi

# three.js for the viewer page (embedded into the binary at build time), fflate for the web app's zips
# and playwright-core for the browser tests (web/package-lock.json pins them); configuring with
# MESHPORT_VIEWER (default ON) needs it.
web-deps:
	@if [ ! -f web/node_modules/three/build/three.module.min.js ] || [ ! -d web/node_modules/playwright-core ] || \
	    [ ! -f web/node_modules/fflate/esm/browser.js ]; then \
	  npm ci --prefix web --no-audit --no-fund; fi

$(BUILD)/CMakeCache.txt: | web-deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps web-deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The sanitized build is Clang's: AddressSanitizer + UBSan for the whole test suite, and the
# libFuzzer targets (fuzz/), whose short regression runs are part of its tests. -O1 with line
# tables only: stack traces keep file and line, and the build takes less of CI's time; so do lld,
# the precompiled headers (MESHPORT_PCH) and the library's sources compiled in batches
# (MESHPORT_UNITY, CMakeLists.txt).
CLANG_LLD = -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-14 -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-14
$(ASAN_BUILD)/CMakeCache.txt: | web-deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DMESHPORT_SANITIZE=ON \
	  -DMESHPORT_FUZZ=ON -DMESHPORT_BENCH=OFF -DMESHPORT_PCH=ON -DMESHPORT_UNITY=ON $(CLANG_LLD) $(CMAKE_ARGS)

build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# ThreadSanitizer (Clang) over the tests of the code that runs threads: the batch (library and
# command line), the parallel IQE reader, tangents and frame bounds on threads, the IQM writer's
# thread counts, the modes solve split over two threads (linear and quadratic elements).
# Compiled at -O1 with line tables only, with precompiled headers and in batches, to keep CI short. The normal
# (GCC) build compiles every library source without them, so a source missing an #include is
# still found.
TSAN_TESTS = test_batch.cpp;test_batch_cli.cpp;test_batch_textures.cpp;test_iqe_parallel.cpp;test_ops_tangents.cpp;test_onemesh_threads.cpp;test_ops_bounds.cpp;test_iqm.cpp;test_modes.cpp;test_modedef_defaults.cpp
$(TSAN_BUILD)/CMakeCache.txt: | web-deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DMESHPORT_TSAN=ON \
	  -DMESHPORT_BENCH=OFF -DMESHPORT_VIEWER=OFF -DMESHPORT_TEST_ONLY="$(TSAN_TESTS)" -DMESHPORT_PCH=ON -DMESHPORT_UNITY=ON \
	  $(CLANG_LLD) $(CMAKE_ARGS)

build-tsan: deps $(TSAN_BUILD)/CMakeCache.txt
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target meshport_tests meshport_cli

test-tsan: build-tsan
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -j $(JOBS) -R '^(Batch|BatchCli|BatchTextures|IqeParallel|OpsTangents|OpsBounds|OneMeshThreads)\.|ThreadCounts|^Modes\.TwoThread|^ModeDefDefaults\.QuadraticSolvesSplitOverTwoThreads'
	$(CORPUS_NOTE)

# The sample models of ../shared/corpus are beside the repository in CI, not in a plain clone:
# there the tests that read them are skipped, each printing why, and CTest lists them as Skipped.
CORPUS_NOTE = @[ -d ../shared/corpus ] || echo "note: ../shared/corpus is not beside this clone: the tests that read it were skipped"

# Every test, twice: a normal build (GCC) and an AddressSanitizer + UBSan build (Clang), which
# also runs every fuzz target over its seeds; then ThreadSanitizer over the threaded code. The
# Windows and WebAssembly builds come first: the GCC run compares the .exe, under Wine, and the
# WebAssembly CLI, API and npm package with its own CLI, and the web app (build-web/, from the
# WebAssembly build) in Chromium with it (tests/webapp).
test: windows wasm web-app test-fast test-asan test-tsan

test-fast: build npm-deps
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(CORPUS_NOTE)

test-asan: build-asan npm-deps
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)
	$(CORPUS_NOTE)

# The CLI and the library, in their own build folder: no tests, no benchmarks, no Python module, no Blender to
# install. Built at -O1 with precompiled common headers, which together take about a third less CPU
# time than Release's -O3 (`make build` gives that CLI), without -Werror (a user's compiler may warn
# where ours does not) and without GCC 12's false -Wstringop-overflow inside std::vector at -O1.
# It builds every target of that folder (the CLI, the static and the shared library, the man page
# and bash completion), so `cmake --install build-demo` works right after it; the shared library
# links the objects the CLI already needed and the docs are the CLI's output (under a second).
$(DEMO_BUILD)/CMakeCache.txt: | deps-cli web-deps
	cmake -S . -B $(DEMO_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG -Wno-stringop-overflow" \
	  -DMESHPORT_PCH=ON -DMESHPORT_WERROR=OFF -DMESHPORT_TESTS=OFF -DMESHPORT_BENCH=OFF -DMESHPORT_PYTHON=OFF $(CMAKE_ARGS)

demo: deps-cli web-deps $(DEMO_BUILD)/CMakeCache.txt
	cmake --build $(DEMO_BUILD) -j $(JOBS)
	@mkdir -p $(DEMO_BUILD)/demo
	$(DEMO_BUILD)/meshport convert examples/tentacle.iqe -o $(DEMO_BUILD)/demo/tentacle.iqm
	$(DEMO_BUILD)/meshport info --textures examples $(DEMO_BUILD)/demo/tentacle.iqm
	$(DEMO_BUILD)/meshport validate $(DEMO_BUILD)/demo/tentacle.iqm
	$(DEMO_BUILD)/meshport convert examples/tentacle.iqe -o $(DEMO_BUILD)/demo/tentacle.glb
	$(DEMO_BUILD)/meshport info $(DEMO_BUILD)/demo/tentacle.glb
# The picture: a PNG thumbnail where Chromium is installed (make test installs it), then, on a
# terminal, the model in the browser: `meshport view` prints the address to open and serves the
# page until it has been closed for 30 s (5 minutes when no page comes; Ctrl-C stops it at once).
# Not on a terminal (scripts, CI), the command is printed instead.
	@if command -v chromium >/dev/null; then \
	  $(DEMO_BUILD)/meshport thumbnail --size 480 -o $(DEMO_BUILD)/demo $(DEMO_BUILD)/demo/tentacle.glb && \
	  echo "picture of the textured model: $(DEMO_BUILD)/demo/tentacle.png"; fi
	@if [ -t 0 ] && [ -t 1 ]; then \
	  echo "textured model: $(DEMO_BUILD)/demo/tentacle.glb; open the address below to turn it and play its animation"; \
	  $(DEMO_BUILD)/meshport view $(DEMO_BUILD)/demo/tentacle.glb; \
	else echo "textured model: $(DEMO_BUILD)/demo/tentacle.glb; to see it in the browser: $(DEMO_BUILD)/meshport view $(DEMO_BUILD)/demo/tentacle.glb"; fi

# meshport.exe for Windows x86-64, cross-built with MinGW-w64 (statically linked: nothing beside it
# is needed), its dependencies built from Debian's source packages (scripts/build-windows.sh).
# `make test` runs it under Wine against the Linux build (tests/windows_wine.sh). With the viewer
# (`view`, `assemble`; three.js embedded: web-deps).
WIN_BUILD ?= build-win
# Its packages (npm among them) before web-deps, which needs npm: `make test` starts here on a fresh machine.
deps-windows:
	@scripts/install-deps.sh --windows

windows: deps-windows web-deps
	JOBS=$(JOBS) scripts/build-windows.sh $(WIN_BUILD)

# meshport for Node.js: the CLI and the JavaScript API compiled to WebAssembly with Debian's
# Emscripten (scripts/build-wasm.sh), and the npm package "meshport" made of them (npm/,
# scripts/pack-npm.sh; its last line names the tarball). `make test` runs the wasm build against
# the Linux one (tests/wasm, label wasm).
WASM_BUILD ?= build-wasm
wasm:
	JOBS=$(JOBS) scripts/build-wasm.sh $(WASM_BUILD)

npm: wasm
	@scripts/pack-npm.sh $(WASM_BUILD)

# The web app (web/app, docs/web-app.md): static files in $(WEB_APP_BUILD), from the WebAssembly build.
WEB_APP_BUILD ?= build-web
web-app: wasm web-deps
	scripts/build-web.sh $(WASM_BUILD) $(WEB_APP_BUILD)

# The Linux executable of the release: only glibc linked dynamically (scripts/build-linux-dist.sh).
DIST_BUILD ?= build-dist
dist-linux: deps-cli web-deps
	JOBS=$(JOBS) scripts/build-linux-dist.sh $(DIST_BUILD)

# The Blender add-on (blender/meshport_io) as a zip for Edit > Preferences > Add-ons > Install,
# carrying the Linux and the Windows executables (bin/linux-x86_64, bin/windows-x86_64) and their
# licences (scripts/dist.py addon).
blender-addon: dist-linux windows
	@mkdir -p $(BUILD)
	scripts/dist.py addon --out $(BUILD)/meshport_io.zip --linux $(DIST_BUILD)/meshport --windows $(WIN_BUILD)/meshport.exe

# The release artefacts in dist/: the Linux tarball, the Windows zip, the npm tarball (make npm),
# the Blender add-on zip, SHA256SUMS (scripts/dist.sh, docs/install.md).
DIST ?= dist
dist:
	JOBS=$(JOBS) LINUX_BUILD=$(DIST_BUILD) WIN_BUILD=$(WIN_BUILD) scripts/dist.sh $(DIST)

# Each fuzz target for FUZZ_SECONDS (default 60; fuzz-long: 1800), corpus kept in
# $(ASAN_BUILD)/fuzz-corpus, findings in $(ASAN_BUILD)/fuzz-findings. FUZZ_TARGETS=fuzz_iqe ... picks some.
fuzz: build-asan
	fuzz/run.sh long $(ASAN_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-long: FUZZ_SECONDS = 1800
fuzz-long: fuzz

bench: build
	$(BUILD)/bench/meshport_bench --benchmark_counters_tabular=true

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(DEMO_BUILD)
