# CTest InstallTree (tests/CMakeLists.txt): `cmake --install` of this build into a temporary
# prefix, then what a user of the installed files does:
#   - the CLI runs and prints the project's version; the man page, bash completion, licence,
#     headers, CMake package and pkg-config file are where they belong; the SONAME carries the version;
#   - examples/embed builds with find_package(meshport) against the shared library and, with
#     MESHPORT_STATIC=ON, against the static one (no libmeshport.so needed), and converts the example;
#   - the same program compiles and runs with only `pkg-config --cflags --libs meshport`.
# Arguments: BUILD_DIR SOURCE_DIR WORK CXX VERSION SOVERSION LIBDIR MANDIR DATADIR DOCDIR
cmake_minimum_required(VERSION 3.25)

function(run)
  cmake_parse_arguments(R "" "OUTPUT;WORKING_DIRECTORY" "COMMAND" ${ARGN})
  execute_process(COMMAND ${R_COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK})
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " shown "${R_COMMAND}")
    message(FATAL_ERROR "failed (${status}): ${shown}\n${out}\n${err}")
  endif()
  if(R_OUTPUT)
    set(${R_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

function(expect_contains text what)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected \"${what}\" in:\n${text}")
  endif()
endfunction()

set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
run(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# What is installed, and where.
include(${CMAKE_CURRENT_LIST_DIR}/installed_files.cmake)
expect_installed(${prefix})
file(GLOB private_headers ${prefix}/include/meshport/*.cpp ${prefix}/include/*.h)
if(private_headers)
  message(FATAL_ERROR "installed besides the public headers: ${private_headers}")
endif()
file(READ ${prefix}/${MANDIR}/man1/meshport.1 man)
expect_contains("${man}" ".TH MESHPORT 1 \"\" \"meshport ${VERSION}\"")
file(READ ${prefix}/${DATADIR}/bash-completion/completions/meshport completion)
expect_contains("${completion}" "complete -o filenames -o bashdefault -F _meshport meshport")
file(READ ${prefix}/${DOCDIR}/LICENSE license)
expect_contains("${license}" "Copyright (c) 2026 the meshport authors")

run(COMMAND ${prefix}/bin/meshport --version OUTPUT version_out)
expect_contains("${version_out}" "meshport ${VERSION}")
run(COMMAND readelf -d ${prefix}/${LIBDIR}/libmeshport.so OUTPUT dynamic)
expect_contains("${dynamic}" "Library soname: [libmeshport.so.${SOVERSION}]")

# examples/embed through find_package: the shared library, then the static one.
set(model ${SOURCE_DIR}/examples/tentacle.iqe)
foreach(kind shared static)
  set(static_flag OFF)
  if(kind STREQUAL "static")
    set(static_flag ON)
  endif()
  run(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embed -B ${WORK}/embed-${kind}
              -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix}
              -DMESHPORT_STATIC=${static_flag})
  run(COMMAND ${CMAKE_COMMAND} --build ${WORK}/embed-${kind})
  run(COMMAND ${WORK}/embed-${kind}/embed ${model} ${WORK}/${kind}.glb OUTPUT out)
  expect_contains("${out}" "iqe")
  expect_contains("${out}" "wrote ${WORK}/${kind}.glb (glb)")
  file(READ ${WORK}/${kind}.glb magic LIMIT 4 HEX)
  if(NOT magic STREQUAL "676c5446")  # "glTF"
    message(FATAL_ERROR "${WORK}/${kind}.glb is not a GLB file")
  endif()
  run(COMMAND readelf -d ${WORK}/embed-${kind}/embed OUTPUT needed)
  string(FIND "${needed}" "libmeshport.so" at)
  if(kind STREQUAL "shared" AND at EQUAL -1)
    message(FATAL_ERROR "the shared build of embed does not load libmeshport.so:\n${needed}")
  elseif(kind STREQUAL "static" AND NOT at EQUAL -1)
    message(FATAL_ERROR "the static build of embed loads libmeshport.so:\n${needed}")
  endif()
endforeach()
# The summary is the library's: the same text as `meshport info` prints.
run(COMMAND ${prefix}/bin/meshport info ${model} OUTPUT info_out)
expect_contains("${out}" "${info_out}")

# The same program with pkg-config's flags only.
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run(COMMAND pkg-config --modversion meshport OUTPUT pc_version)
string(STRIP "${pc_version}" pc_version)
if(NOT pc_version STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config --modversion meshport: ${pc_version}, expected ${VERSION}")
endif()
run(COMMAND pkg-config --cflags --libs meshport OUTPUT pc_flags)
string(STRIP "${pc_flags}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
expect_contains("${pc_flags}" "-I${prefix}/include")
run(COMMAND ${CXX} -std=c++20 ${SOURCE_DIR}/examples/embed/main.cpp ${pc_flags} -Wl,-rpath,${prefix}/${LIBDIR}
            -o ${WORK}/embed-pkgconfig)
run(COMMAND ${WORK}/embed-pkgconfig ${model} ${WORK}/pkgconfig.iqm OUTPUT out)
expect_contains("${out}" "wrote ${WORK}/pkgconfig.iqm (iqm)")
file(REMOVE_RECURSE ${WORK})
