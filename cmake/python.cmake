# The Python module (python/, docs/python.md): meshport._meshport, a pybind11 extension linking the
# static library, and the pure-Python package beside it, assembled in ${CMAKE_BINARY_DIR}/python
# (PYTHONPATH for the tests, tests/python).
include(${CMAKE_CURRENT_LIST_DIR}/python_find.cmake)
if(NOT Python_Development.Module_FOUND OR NOT pybind11_FOUND)
  message(FATAL_ERROR "MESHPORT_PYTHON needs Python's headers and pybind11 2.10+ (Debian: python3-dev pybind11-dev; "
                      "scripts/install-deps.sh installs them)")
endif()

file(GLOB MESHPORT_PYTHON_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/src/*.cpp)
# NO_EXTRAS: no link-time optimisation (the static library is not compiled for it: it only slowed
# the link and brought out GCC 12's false -Wstringop-overflow) and no stripping.
pybind11_add_module(meshport_python MODULE NO_EXTRAS ${MESHPORT_PYTHON_SOURCES})
set(MESHPORT_PYTHON_DIR ${CMAKE_BINARY_DIR}/python CACHE INTERNAL "")
set_target_properties(meshport_python PROPERTIES OUTPUT_NAME _meshport
                      LIBRARY_OUTPUT_DIRECTORY ${MESHPORT_PYTHON_DIR}/meshport)
target_compile_definitions(meshport_python PRIVATE MESHPORT_VERSION="${PROJECT_VERSION}")
target_link_libraries(meshport_python PRIVATE meshport)
# The library's symbols stay inside the module (PyInit__meshport and template instances aside): no clash with
# another extension linking another libmeshport, and a smaller dynamic symbol table.
target_link_options(meshport_python PRIVATE -Wl,--exclude-libs,ALL)

# The package's pure-Python files, copied beside the extension whenever they change.
file(GLOB MESHPORT_PYTHON_FILES LIST_DIRECTORIES false CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/meshport/*.py
     ${PROJECT_SOURCE_DIR}/python/meshport/*.pyi ${PROJECT_SOURCE_DIR}/python/meshport/py.typed)
set(copied "")
foreach(file ${MESHPORT_PYTHON_FILES})
  get_filename_component(name ${file} NAME)
  add_custom_command(OUTPUT ${MESHPORT_PYTHON_DIR}/meshport/${name}
                     COMMAND ${CMAKE_COMMAND} -E copy ${file} ${MESHPORT_PYTHON_DIR}/meshport/${name}
                     DEPENDS ${file} VERBATIM)
  list(APPEND copied ${MESHPORT_PYTHON_DIR}/meshport/${name})
endforeach()
add_custom_target(meshport_python_files ALL DEPENDS ${copied})
add_dependencies(meshport_python meshport_python_files)
