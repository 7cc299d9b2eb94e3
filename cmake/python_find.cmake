# Finds the Python the module is built for and pybind11 (cmake/python.cmake). Debian's Python
# (/usr/bin/python3, where numpy is) is the default, not the first python3 on PATH (a pyenv one,
# say): configure with -DPython_EXECUTABLE=... for another.
if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the meshport module is built for")
endif()
set(PYBIND11_FINDPYTHON ON)
find_package(Python 3.9 QUIET COMPONENTS Interpreter Development.Module)
find_package(pybind11 2.10 CONFIG QUIET)
