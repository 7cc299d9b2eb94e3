# `meshport view`, `assemble` and `thumbnail` (MESHPORT_VIEWER): the meshport_view library
# (src/view/: route table, server over cpp-httplib, unit assembly) and the page of web/, embedded
# into the binary by embed_files.cmake.
set(MESHPORT_WEB_DIR ${PROJECT_SOURCE_DIR}/web)
set(MESHPORT_THREE_DIR ${MESHPORT_WEB_DIR}/node_modules/three)
if(NOT EXISTS ${MESHPORT_THREE_DIR}/build/three.module.min.js)
  message(FATAL_ERROR "web/node_modules/three is missing: run `make web-deps` (npm ci --prefix web) first, "
                      "or configure with -DMESHPORT_VIEWER=OFF to build meshport without `view`")
endif()
# cpp-httplib: the Windows and the static Linux release builds use the header-only httplib.h of
# Debian's source package, staged with a package file (httplib::httplib, scripts/debian-source.sh's
# stage_httplib); the normal build Debian's libcpp-httplib-dev, a compiled library whose pkg-config
# file gives the defines it was built with.
find_package(httplib CONFIG QUIET)
if(TARGET httplib::httplib)
  set(MESHPORT_HTTPLIB httplib::httplib)
elseif(CMAKE_CROSSCOMPILING)
  message(FATAL_ERROR "cpp-httplib for ${CMAKE_SYSTEM_NAME} is missing: scripts/build-windows.sh stages it "
                      "(stage_httplib), or configure with -DMESHPORT_VIEWER=OFF")
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
  set(MESHPORT_HTTPLIB PkgConfig::HTTPLIB)
endif()

set(MESHPORT_WEB_ENTRIES
    "/|html|${MESHPORT_WEB_DIR}/index.html"
    "/serve.js|js|${MESHPORT_WEB_DIR}/serve.js"
    "/viewer.js|js|${MESHPORT_WEB_DIR}/viewer.js"
    "/viewer.css|css|${MESHPORT_WEB_DIR}/viewer.css")
# three.js's files, as web/three-files.txt lists them (the web app copies the same list).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${MESHPORT_WEB_DIR}/three-files.txt)
file(STRINGS ${MESHPORT_WEB_DIR}/three-files.txt three_files REGEX "^/")
foreach(line IN LISTS three_files)
  string(REPLACE "|" ";" parts "${line}")
  list(GET parts 0 route)
  list(GET parts 1 source)
  if(route MATCHES "\\.js$")
    set(kind js)
  else()
    set(kind text)
  endif()
  list(APPEND MESHPORT_WEB_ENTRIES "${route}|${kind}|${MESHPORT_THREE_DIR}/${source}")
endforeach()
set(files "")
foreach(entry IN LISTS MESHPORT_WEB_ENTRIES)
  string(REGEX REPLACE "^.*\\|" "" file "${entry}")
  list(APPEND files ${file})
endforeach()
set(embedded ${CMAKE_BINARY_DIR}/generated/view_embedded.cpp)
string(JOIN "," entries_arg ${MESHPORT_WEB_ENTRIES})
add_custom_command(OUTPUT ${embedded}
                   COMMAND ${CMAKE_COMMAND} -DOUTPUT=${embedded} "-DENTRIES=${entries_arg}"
                           -P ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
                   DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
                   COMMENT "Embedding the viewer's page and three.js modules"
                   VERBATIM)

# The model's part (meshport_view_model, the top CMakeLists.txt) is a library of its own.
file(GLOB MESHPORT_VIEW_SOURCES CONFIGURE_DEPENDS src/view/*.cpp)
list(REMOVE_ITEM MESHPORT_VIEW_SOURCES ${MESHPORT_VIEW_MODEL_SOURCES})
set_source_files_properties(${embedded} PROPERTIES OBJECT_DEPENDS "${files}")
add_library(meshport_view STATIC ${MESHPORT_VIEW_SOURCES} ${embedded})
target_include_directories(meshport_view PUBLIC src)
target_link_libraries(meshport_view PUBLIC meshport_view_model PRIVATE ${MESHPORT_HTTPLIB} Threads::Threads)
# The version thumbnail stamps carry (src/view/thumbnails.cpp, as src/batch/stamp.cpp does).
set_source_files_properties(src/view/thumbnails.cpp PROPERTIES COMPILE_DEFINITIONS MESHPORT_VERSION="${PROJECT_VERSION}")
