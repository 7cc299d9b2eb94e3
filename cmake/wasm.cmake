# The WebAssembly build (Emscripten, scripts/build-wasm.sh; included from the top CMakeLists.txt
# after `meshport_cli`): the library compiled once and linked into two programs.
#   meshport.js + meshport.wasm          the CLI for Node.js, with the real file system (NODERAWFS)
#   meshport_api.mjs + meshport_api.wasm  an ES module (wasm/api.cpp) running the same commands over
#                                         an in-memory file system, for npm/api.mjs (Node.js, browsers)
# The floating-point std::to_chars / std::from_chars that Emscripten's libc++ lacks, with the results
# of libstdc++'s (wasm/compat/libcxx.h declares them in every source).
target_sources(meshport PRIVATE ${PROJECT_SOURCE_DIR}/wasm/compat/charconv.cpp)

# The CLI's sources other than main.cpp are one object library both link.
file(GLOB MESHPORT_CLI_PARTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tools/meshport/*.cpp)
list(FILTER MESHPORT_CLI_PARTS EXCLUDE REGEX "/main\\.cpp$")
# `assemble` and `view --export` (no server here: the web app, web/app, shows what --export writes).
list(APPEND MESHPORT_CLI_PARTS ${PROJECT_SOURCE_DIR}/tools/meshport/viewer/view_commands.cpp)
add_library(meshport_cli_parts OBJECT ${MESHPORT_CLI_PARTS})
target_link_libraries(meshport_cli_parts PUBLIC meshport meshport_view_model CLI11::CLI11 nlohmann_json::nlohmann_json)
if(MESHPORT_UNITY)
  set_target_properties(meshport_cli_parts PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${MESHPORT_UNITY_BATCH})
endif()
set_property(TARGET meshport_cli PROPERTY SOURCES ${PROJECT_SOURCE_DIR}/tools/meshport/main.cpp)
target_link_libraries(meshport_cli PRIVATE meshport_cli_parts)

# Both: memory grows as a conversion needs it (up to wasm32's 2 GB here; --max-memory and the
# readers' own limits still apply); C++ exceptions as WebAssembly exceptions (Node.js 17+ and
# current browsers), as compiled (-fwasm-exceptions in CMAKE_CXX_FLAGS); no threads; a 5 MB stack
# (Emscripten 3.1.6's default).
# Linked at -O1 whatever the compile's level: the post-link optimiser (wasm-opt) that -O2 and -Os
# run took 85 s of CPU per program for 15% less size and no measurable speed (0.74 s at -O1, 0.85 s
# at -O2 converting an 80 000-triangle IQE); the objects are compiled at -O2 all the same.
set(MESHPORT_WASM_LINK -O1 -fwasm-exceptions -sALLOW_MEMORY_GROWTH=1)

# The CLI: Node.js only, files through Node's fs (any OS), the exit status passed to the process;
# the .wasm compiled synchronously (Node 18+'s global fetch cannot load a file path).
target_link_options(meshport_cli PRIVATE ${MESHPORT_WASM_LINK} -sENVIRONMENT=node -sNODERAWFS=1
                    -sEXIT_RUNTIME=1 -sWASM_ASYNC_COMPILATION=0)

# The API module: main.cpp compiled again as a function (wasm/cli_entry.cpp) that wasm/api.cpp
# calls once per request, with standard output and error going to files the JavaScript reads.
add_executable(meshport_api ${PROJECT_SOURCE_DIR}/wasm/api.cpp ${PROJECT_SOURCE_DIR}/wasm/cli_entry.cpp)
target_include_directories(meshport_api PRIVATE ${PROJECT_SOURCE_DIR}/tools/meshport)
target_compile_definitions(meshport_api PRIVATE MESHPORT_VERSION="${PROJECT_VERSION}")
target_link_libraries(meshport_api PRIVATE meshport_cli_parts)
set_target_properties(meshport_api PROPERTIES SUFFIX ".mjs" RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# Built for browsers and workers: Emscripten 3.1.6's ES module for Node.js uses require and
# __dirname, which an ES module lacks; npm/api.mjs hands it the .wasm's bytes in Node.js instead
# (wasmBinary), so it needs nothing of Node's there.
target_link_options(meshport_api PRIVATE ${MESHPORT_WASM_LINK} -sENVIRONMENT=web,worker -sMODULARIZE=1
                    -sEXPORT_ES6=1 -sEXPORT_NAME=createMeshportModule -sFORCE_FILESYSTEM=1
                    -sEXPORTED_FUNCTIONS=_meshport_api_run,_malloc,_free
                    -sEXPORTED_RUNTIME_METHODS=FS,stringToUTF8,lengthBytesUTF8,setValue)
