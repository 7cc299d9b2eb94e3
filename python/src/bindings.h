// The Python module's shared declarations (docs/python.md): the vectors of the Scene bound as
// Python sequences whose items are references into the Scene (not copies), the numpy views of
// the Scene's arrays, and how diagnostics and errors reach Python.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl_bind.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

// Bound as sequences of references (stl_bind.h), in every translation unit alike.
PYBIND11_MAKE_OPAQUE(std::vector<meshport::Mesh>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::VertexStream>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::MorphTarget>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::FaceChannel>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::Material>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::Image>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::Joint>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::Animation>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::Attachment>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::PieLevel>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::PieEvent>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::PieTexture>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::QmshTmpMesh>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::ModeDefModelFile>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::ModeDefPropFile>)

namespace mpy {
namespace py = pybind11;

// A numpy array over `data` (no copy) of the given shape, C order, kept alive by `base` (the
// Python object owning the memory: it keeps its Scene alive in turn). Writable.
template <class T>
py::array view(T* data, std::vector<py::ssize_t> shape, py::handle base) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t step = sizeof(T);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i];
  }
  // An empty vector may have no storage: numpy needs a pointer all the same.
  static T none{};
  return py::array(py::dtype::of<T>(), std::move(shape), std::move(strides), data ? data : &none, base);
}

// A vector as (size / cols, cols) rows, or flat when cols is 0.
template <class T>
py::array vector_view(std::vector<T>& v, size_t cols, py::handle base) {
  if (cols == 0) return view(v.data(), {py::ssize_t(v.size())}, base);
  return view(v.data(), {py::ssize_t(v.size() / cols), py::ssize_t(cols)}, base);
}

template <class T, size_t N>
py::array rows_view(std::vector<std::array<T, N>>& v, py::handle base) {
  static_assert(sizeof(std::array<T, N>) == N * sizeof(T));
  return view(v.empty() ? nullptr : v[0].data(), {py::ssize_t(v.size()), py::ssize_t(N)}, base);
}

template <class T, size_t N>
py::array array_view(std::array<T, N>& a, py::handle base) {
  return view(a.data(), {py::ssize_t(N)}, base);
}

template <class T>
using input_array = py::array_t<T, py::array::c_style | py::array::forcecast>;

// Replaces `v` by the values of `a` (a copy; views of the old data no longer see `v`): `cols`
// values per row (0: any shape, flattened).
template <class T>
void assign(std::vector<T>& v, const input_array<T>& a, size_t cols, const char* what) {
  if (cols && (a.size() % py::ssize_t(cols) != 0 || (a.ndim() == 2 && a.shape(1) != py::ssize_t(cols))))
    throw py::value_error(std::string(what) + ": expected rows of " + std::to_string(cols) + " values");
  v.assign(a.data(), a.data() + a.size());
}

template <class T, size_t N>
void assign_rows(std::vector<std::array<T, N>>& v, const input_array<T>& a, const char* what) {
  if (a.size() % py::ssize_t(N) != 0 || (a.ndim() == 2 && a.shape(1) != py::ssize_t(N)))
    throw py::value_error(std::string(what) + ": expected rows of " + std::to_string(N) + " values");
  v.resize(size_t(a.size()) / N);
  if (!v.empty()) std::memcpy(v[0].data(), a.data(), size_t(a.size()) * sizeof(T));
}

template <class T, size_t N>
void assign_fixed(std::array<T, N>& out, const input_array<T>& a, const char* what) {
  if (a.size() != py::ssize_t(N)) throw py::value_error(std::string(what) + ": expected " + std::to_string(N) + " values");
  std::memcpy(out.data(), a.data(), N * sizeof(T));
}

// Property helpers: numpy views of members, replaced (copied in) by assignment.
template <class C, class T>
void vector_property(py::class_<C>& cls, const char* name, std::vector<T> C::*pm, size_t cols, const char* doc) {
  cls.def_property(
      name, [pm, cols](py::object self) { return vector_view(self.cast<C&>().*pm, cols, self); },
      [pm, cols, name](C& c, const input_array<T>& a) { assign(c.*pm, a, cols, name); }, doc);
}

template <class C, class T, size_t N>
void rows_property(py::class_<C>& cls, const char* name, std::vector<std::array<T, N>> C::*pm, const char* doc) {
  cls.def_property(
      name, [pm](py::object self) { return rows_view(self.cast<C&>().*pm, self); },
      [pm, name](C& c, const input_array<T>& a) { assign_rows(c.*pm, a, name); }, doc);
}

template <class C, class T, size_t N>
void array_property(py::class_<C>& cls, const char* name, std::array<T, N> C::*pm, const char* doc) {
  cls.def_property(
      name, [pm](py::object self) { return array_view(self.cast<C&>().*pm, self); },
      [pm, name](C& c, const input_array<T>& a) { assign_fixed(c.*pm, a, name); }, doc);
}

// Each diagnostic as a Python warning (meshport.MeshportWarning; notes as meshport.MeshportNote),
// its text "file:line:col: warning: message". Errors in `d` (validation) are warnings too here.
void warn(const meshport::Diagnostics& d);

void bind_errors(py::module_& m);
void bind_scene(py::module_& m);
void bind_format_data(py::module_& m);
void bind_api(py::module_& m);

}  // namespace mpy
