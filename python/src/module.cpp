// meshport as a Python extension module (meshport._meshport; python/meshport/__init__.py adds
// the pure-Python layer). docs/python.md.
#include "bindings.h"

PYBIND11_MODULE(_meshport, m) {
  m.doc() = "meshport: read, write and convert 3D game model formats (the C++ library's bindings)";
  m.attr("__version__") = MESHPORT_VERSION;
  mpy::bind_errors(m);
  mpy::bind_scene(m);
  mpy::bind_api(m);
}
