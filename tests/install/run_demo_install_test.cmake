# CTest InstallDemoTree (tests/CMakeLists.txt): `cmake --install` of a build folder made the way
# `make demo` makes build-demo, right after its build (issue 34: it failed with
# libmeshport.so.0.1.0 not built while the demo built the CLI alone). The configure and build
# commands are the Makefile's own, read with `make -n demo` and run into a scratch folder, so a
# change of the demo's flags or targets is what is tested. Compiling is replaced by copies of this
# build's objects (reuse_objects.sh, a compiler launcher): the test costs the precompiled header
# and the links, not a library build.
# Arguments: BUILD_DIR SOURCE_DIR WORK CXX VIEWER VERSION SOVERSION LIBDIR MANDIR DATADIR DOCDIR
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/installed_files.cmake)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${SOURCE_DIR})
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "failed (${status}): ${shown}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# Not the flags and variables of a `make test` this runs under: the commands are the Makefile's alone.
unset(ENV{MAKEFLAGS})
unset(ENV{MFLAGS})
unset(ENV{MAKELEVEL})

set(demo ${WORK}/build-demo)
set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(CONFIGURE OUTPUT ${WORK}/launcher.sh @ONLY
     CONTENT "#!/bin/sh\nexec '${SOURCE_DIR}/tests/install/reuse_objects.sh' '${BUILD_DIR}' '${demo}' \"$@\"\n")
file(CHMOD ${WORK}/launcher.sh PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

# The Makefile's commands for the demo's folder (make -n runs none of them: not the package
# installation, not the example), with this build's compiler and viewer setting and the launcher.
run(make -n --no-print-directory demo DEMO_BUILD=${demo} JOBS=2
    "CMAKE_ARGS=-DCMAKE_CXX_COMPILER=${CXX} -DMESHPORT_VIEWER=${VIEWER} -DCMAKE_CXX_COMPILER_LAUNCHER=${WORK}/launcher.sh")
string(REPLACE "\\\n" " " recipe "${out}")
string(REGEX REPLACE "([][+.*?()^$|\\])" "\\\\\\1" demo_re "${demo}")
string(REGEX MATCHALL "[^\n]*cmake -S \\. -B ${demo_re} [^\n]*" configure "${recipe}")
string(REGEX MATCHALL "[^\n]*cmake --build ${demo_re}[^\n]*" build "${recipe}")
list(LENGTH configure configures)
if(NOT configures EQUAL 1 OR NOT build)
  message(FATAL_ERROR "`make -n demo` gave no single `cmake -S . -B ${demo}` and `cmake --build ${demo}`:\n${out}")
endif()
foreach(command IN LISTS configure build)
  message(STATUS "${command}")
  run(sh -c "${command}")
endforeach()

# Right after the demo's build: the install works and puts every file where it belongs.
run(${CMAKE_COMMAND} --install ${demo} --prefix ${prefix})
expect_installed(${prefix})
run(${prefix}/bin/meshport --version)
if(NOT out MATCHES "meshport ${VERSION}")
  message(FATAL_ERROR "${prefix}/bin/meshport --version: ${out}")
endif()
file(REMOVE_RECURSE ${WORK})
