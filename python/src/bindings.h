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

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <cstring>
#include <string>
#include <unordered_map>
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
PYBIND11_MAKE_OPAQUE(std::vector<meshport::QmshTmpFace>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::QmshTmpVertexGroup>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::QmshTmpBone>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::QmshTmpCurve>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::QmshTmpChannel>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::QmshTmpAction>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::ModeDefPathKey>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::ModeDefPathFile>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::ModeDefObject>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::ModeDefPlane>)
PYBIND11_MAKE_OPAQUE(std::vector<meshport::ModeDefConstraint>)

namespace mpy {
namespace py = pybind11;

// The base of every view: it holds the Python object the view came from (and so its Scene) and,
// once that array is replaced, the old memory (retire()). Registered by the address it views.
struct ViewBase {
  py::object owner;
  const void* data = nullptr;
  std::vector<py::object> keep;
  ViewBase(py::object o, const void* d);
  ~ViewBase();
  ViewBase(const ViewBase&) = delete;
  ViewBase& operator=(const ViewBase&) = delete;
};
std::unordered_multimap<const void*, ViewBase*>& live_views();

// A numpy array over `data` (no copy) of the given shape, C order, kept alive by a ViewBase of
// `base` (the Python object owning the memory: it keeps its Scene alive in turn). Writable.
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
  py::object holder = py::cast(new ViewBase(py::reinterpret_borrow<py::object>(base), data),
                               py::return_value_policy::take_ownership);
  return py::array(py::dtype::of<T>(), std::move(shape), std::move(strides), data ? data : &none, holder);
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

// An array about to be replaced: when views of it exist, its memory moves to a capsule each of
// them keeps, so they stay valid (with the old values, no longer aliasing the Scene) and the
// memory is freed with the last of them; else it is freed as usual.
template <class T>
void retire(std::vector<T>& v) {
  if (v.capacity() == 0) return;
  const auto range = live_views().equal_range(static_cast<const void*>(v.data()));
  if (range.first == range.second) return;
  auto* old = new std::vector<T>(std::move(v));
  v = std::vector<T>();
  py::capsule keep(old, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  for (auto it = range.first; it != range.second; ++it) it->second->keep.push_back(keep);
}

// Replaces `v` by the values of `a` (a copy into new memory; views of the old memory stay valid:
// retire()): `cols` values per row (0: any shape, flattened).
template <class T>
void assign(std::vector<T>& v, const input_array<T>& a, size_t cols, const char* what) {
  if (cols && (a.size() % py::ssize_t(cols) != 0 || (a.ndim() == 2 && a.shape(1) != py::ssize_t(cols))))
    throw py::value_error(std::string(what) + ": expected rows of " + std::to_string(cols) + " values");
  retire(v);
  v.assign(a.data(), a.data() + a.size());
}

template <class T, size_t N>
void assign_rows(std::vector<std::array<T, N>>& v, const input_array<T>& a, const char* what) {
  if (a.size() % py::ssize_t(N) != 0 || (a.ndim() == 2 && a.shape(1) != py::ssize_t(N)))
    throw py::value_error(std::string(what) + ": expected rows of " + std::to_string(N) + " values");
  retire(v);
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
      [pm, cols, name](py::object self, const input_array<T>& a) { assign(self.cast<C&>().*pm, a, cols, name); }, doc);
}

template <class C, class T, size_t N>
void rows_property(py::class_<C>& cls, const char* name, std::vector<std::array<T, N>> C::*pm, const char* doc) {
  cls.def_property(
      name, [pm](py::object self) { return rows_view(self.cast<C&>().*pm, self); },
      [pm, name](py::object self, const input_array<T>& a) { assign_rows(self.cast<C&>().*pm, a, name); }, doc);
}

template <class C, class T, size_t N>
void array_property(py::class_<C>& cls, const char* name, std::array<T, N> C::*pm, const char* doc) {
  cls.def_property(
      name, [pm](py::object self) { return array_view(self.cast<C&>().*pm, self); },
      [pm, name](C& c, const input_array<T>& a) { assign_fixed(c.*pm, a, name); }, doc);
}

// The memory a member holds that Python objects may refer into: a list's items, an object's own
// bytes (its inline members with it), an optional's value.
using span = std::pair<const void*, const void*>;
template <class T>
span span_of(const T& x) { return {&x, &x + 1}; }
template <class T>
span span_of(const std::vector<T>& v) { return {v.data(), v.data() + v.size()}; }
template <class T>
span span_of(const std::optional<T>& o) { return o ? span_of(*o) : span{nullptr, nullptr}; }

// The number of live Python objects (items, their members: any bound object, each keeping alive
// the ones it came from, and so every view of their arrays) referring into `s`, `self` aside.
size_t references_into(span s, py::handle self = py::handle());

// Refuses (BufferError) a change that would free or move memory under a live reference into `s`.
void refuse_if_referenced(span s, const std::string& what, py::handle self = py::handle());

// A member holding bound objects (a list, a struct): read as a reference, assigned by copy unless
// Python objects refer into its old value.
template <class C, class T>
void member(py::class_<C>& cls, const char* name, T C::*pm, const char* doc = "") {
  const std::string what = std::string(py::str(cls.attr("__name__"))) + "." + name;
  cls.def_property(
      name, [pm](C& c) -> T& { return c.*pm; },
      [pm, what](py::object self, const T& v) {
        C& c = self.cast<C&>();
        refuse_if_referenced(span_of(c.*pm), what, self);
        c.*pm = v;
      },
      doc);
}

// std::vector<T> as a Python list of references into it (stl_bind.h) whose length-changing and
// item-replacing methods refuse while its items are referenced (refuse_if_referenced).
template <class T>
py::class_<std::vector<T>> bind_list(py::module_& m, const char* name) {
  using V = std::vector<T>;
  auto cls = py::bind_vector<V>(m, name);
  for (const char* k : {"append", "extend", "insert", "pop", "clear", "remove", "__setitem__", "__delitem__", "__iter__"})
    if (py::hasattr(cls, k)) py::delattr(cls, k);
  // An iterator holding the list and an index, not C++ iterators (which the list's changes
  // would leave dangling): each step looks its item up again, and stops at the current end.
  struct Iterator {
    py::object list;
    size_t next = 0;
  };
  py::class_<Iterator>(cls, "Iterator")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](Iterator& it) -> py::object {
        V& v = it.list.template cast<V&>();
        if (it.next >= v.size()) throw py::stop_iteration();
        return py::cast(&v[it.next++], py::return_value_policy::reference_internal, it.list);
      });
  cls.def("__iter__", [](py::object self) { return Iterator{self, 0}; });
  const std::string list = name;
  auto all = [list](const V& v, const char* op) { refuse_if_referenced(span_of(v), list + "." + op); };
  auto index = [](const V& v, py::ssize_t i) {
    if (i < 0) i += py::ssize_t(v.size());
    if (i < 0 || size_t(i) >= v.size()) throw py::index_error();
    return size_t(i);
  };
  cls.def("append", [all](V& v, const T& x) { all(v, "append"); v.push_back(x); }, py::arg("x"), "Adds a copy of x at the end");
  cls.def("extend", [all](V& v, const py::iterable& it) {
        V add;
        for (py::handle h : it) add.push_back(h.cast<T>());
        all(v, "extend");
        v.insert(v.end(), add.begin(), add.end());
      }, py::arg("L"), "Adds copies of the items of L at the end");
  cls.def("insert", [all](V& v, py::ssize_t i, const T& x) {
        if (i < 0) i += py::ssize_t(v.size());
        if (i < 0 || size_t(i) > v.size()) throw py::index_error();
        all(v, "insert");
        v.insert(v.begin() + i, x);
      }, py::arg("i"), py::arg("x"), "Inserts a copy of x before index i");
  cls.def("pop", [all, index](V& v, py::ssize_t i) {
        size_t at = index(v, i);
        all(v, "pop");
        T t = std::move(v[at]);
        v.erase(v.begin() + py::ssize_t(at));
        return t;
      }, py::arg("i") = -1, "Removes and returns the item at index i (the last by default)");
  cls.def("clear", [all](V& v) { all(v, "clear"); v.clear(); }, "Removes every item");
  if constexpr (py::detail::is_comparable<V>::value) {
    cls.def("remove", [all](V& v, const T& x) {
          auto p = std::find(v.begin(), v.end(), x);
          if (p == v.end()) throw py::value_error();
          all(v, "remove");
          v.erase(p);
        }, py::arg("x"), "Removes the first item equal to x");
  }
  cls.def("__setitem__", [list, index](V& v, py::ssize_t i, const T& x) {
        size_t at = index(v, i);
        refuse_if_referenced(span_of(v[at]), list + "[" + std::to_string(at) + "] =");
        v[at] = x;
      });
  cls.def("__setitem__", [list](V& v, const py::slice& sl, const V& x) {
        size_t start = 0, stop = 0, step = 0, n = 0;
        if (!sl.compute(v.size(), &start, &stop, &step, &n)) throw py::error_already_set();
        if (n != x.size()) throw py::value_error("Left and right hand size of slice assignment have different sizes!");
        for (size_t k = 0; k < n; ++k) refuse_if_referenced(span_of(v[start + k * step]), list + "[...] =");
        for (size_t k = 0; k < n; ++k) v[start + k * step] = x[k];
      });
  cls.def("__delitem__", [all, index](V& v, py::ssize_t i) {
        size_t at = index(v, i);
        all(v, "__delitem__");
        v.erase(v.begin() + py::ssize_t(at));
      });
  cls.def("__delitem__", [all](V& v, const py::slice& sl) {
        size_t start = 0, stop = 0, step = 0, n = 0;
        if (!sl.compute(v.size(), &start, &stop, &step, &n)) throw py::error_already_set();
        all(v, "__delitem__");
        for (size_t k = 0; k < n; ++k) {  // as stl_bind.h does
          v.erase(v.begin() + py::ssize_t(start));
          start += step - 1;
        }
      });
  return cls;
}

// Each diagnostic as a Python warning (meshport.MeshportWarning; notes as meshport.MeshportNote),
// its text "file:line:col: warning: message". Errors in `d` (validation) are warnings too here.
void warn(const meshport::Diagnostics& d);

void bind_errors(py::module_& m);
void bind_scene(py::module_& m);
void bind_format_data(py::module_& m);
void bind_api(py::module_& m);

}  // namespace mpy
