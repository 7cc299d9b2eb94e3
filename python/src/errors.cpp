// Diagnostics as Python warnings and meshport::Error as meshport.Error (docs/python.md).
#include "bindings.h"

#include <new>

namespace mpy {
namespace {

py::handle warning_type, note_type, error_type;

const char* severity_name(meshport::Severity s) {
  return s == meshport::Severity::Error ? "error" : s == meshport::Severity::Warning ? "warning" : "note";
}

// A meshport.Error instance carrying the diagnostic's parts as attributes.
py::object make_error(const meshport::Diagnostic& d) {
  py::object e = py::reinterpret_borrow<py::object>(error_type)(d.to_string());
  e.attr("file") = d.file;
  e.attr("line") = d.line;
  e.attr("column") = d.column;
  e.attr("offset") = d.offset;
  e.attr("message") = d.message;
  e.attr("severity") = severity_name(d.severity);
  return e;
}

}  // namespace

void warn(const meshport::Diagnostics& d) {
  for (const meshport::Diagnostic& x : d.items) {
    PyObject* category = (x.severity == meshport::Severity::Note ? note_type : warning_type).ptr();
    if (PyErr_WarnEx(category, x.to_string().c_str(), 1) < 0) throw py::error_already_set();
  }
  if (d.dropped) {
    const std::string text = "note: " + std::to_string(d.dropped) + " more diagnostics not shown";
    if (PyErr_WarnEx(note_type.ptr(), text.c_str(), 1) < 0) throw py::error_already_set();
  }
}

void bind_errors(py::module_& m) {
  warning_type = PyErr_NewExceptionWithDoc("meshport.MeshportWarning",
                                           "A warning of meshport's: what the output lost or changed, "
                                           "with where (file:line:col).",
                                           PyExc_UserWarning, nullptr);
  note_type = PyErr_NewExceptionWithDoc("meshport.MeshportNote",
                                        "Information that needs no action (a duplicate clip dropped).",
                                        PyExc_UserWarning, nullptr);
  error_type = PyErr_NewExceptionWithDoc("meshport.Error",
                                         "A fatal problem reading, writing or converting: str() is "
                                         "'file:line:col: error: message'; attributes file, line, column "
                                         "(1-based, 0 when not a text position), offset (binary files, -1 "
                                         "when none), message, severity.",
                                         PyExc_Exception, nullptr);
  if (!warning_type || !note_type || !error_type) throw py::error_already_set();
  m.attr("MeshportWarning") = warning_type;
  m.attr("MeshportNote") = note_type;
  m.attr("Error") = error_type;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const meshport::Error& e) {
      py::object err = make_error(e.diagnostic());
      PyErr_SetObject(error_type.ptr(), err.ptr());
    }
  });
}

}  // namespace mpy
