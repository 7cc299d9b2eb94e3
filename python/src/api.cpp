// The module's functions (docs/python.md, "Functions"): each parses its arguments, releases the
// GIL around the library call, and turns diagnostics into warnings; the work is the library's.
#include "bindings.h"

#include <meshport/batch.h>
#include <meshport/diff.h>
#include <meshport/meshport.h>
#include <meshport/modal.h>
#include <meshport/modes.h>
#include <meshport/profiles.h>
#include <meshport/simulate.h>
#include <meshport/summary.h>
#include <meshport/textures.h>
#include <meshport/validate.h>

#include <pybind11/functional.h>

#include <exception>
#include <atomic>
#include <optional>
#include <span>

namespace mpy {
namespace mp = meshport;

namespace {

std::optional<mp::Format> format_arg(const std::optional<std::string>& name, bool writable = false) {
  if (!name) return std::nullopt;
  const std::optional<mp::Format> f = mp::format_from_name(*name);
  if (!f || (writable && !mp::format_info(*f).can_write))
    throw py::value_error("unknown format '" + *name + "' (" + (writable ? "writable" : "known") +
                          ": " + mp::format_names(writable) + ")");
  return f;
}

// JSON text of the library as Python objects (the same values `--json` prints).
py::object from_json(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

bool is_bytes_like(const py::handle& h) {
  return py::isinstance<py::bytes>(h) || py::isinstance<py::bytearray>(h) || py::isinstance<py::memoryview>(h);
}

std::vector<uint8_t> bytes_of(const py::handle& h) {
  py::buffer_info b = py::reinterpret_borrow<py::buffer>(h).request();
  const auto* p = static_cast<const uint8_t*>(b.ptr);
  return std::vector<uint8_t>(p, p + b.size * b.itemsize);
}

std::string path_of(const py::handle& h) {
  return py::str(py::module_::import("os").attr("fspath")(h)).cast<std::string>();
}

// Runs `f` with the GIL released, then warns about what `d` collected (also when `f` threw).
template <class F>
auto released(mp::Diagnostics& d, F&& f) -> decltype(f()) {
  std::exception_ptr error;
  std::optional<std::conditional_t<std::is_void_v<decltype(f())>, int, decltype(f())>> result;
  {
    py::gil_scoped_release unlock;
    try {
      if constexpr (std::is_void_v<decltype(f())>) {
        f();
        result = 0;
      } else {
        result.emplace(f());
      }
    } catch (...) {
      error = std::current_exception();
    }
  }
  warn(d);
  if (error) std::rethrow_exception(error);
  if constexpr (!std::is_void_v<decltype(f())>) return std::move(*result);
}

struct ReadArgs {
  std::optional<std::string> format;
  std::optional<uint32_t> scene;
  uint64_t max_memory = 0;
  std::string name;
};

mp::ReadOptions read_options(const ReadArgs& a) {
  mp::ReadOptions o;
  o.format = format_arg(a.format);
  o.scene = a.scene;
  o.max_memory = a.max_memory;
  return o;
}

// A path or bytes read into a Scene (diagnostics into `d`); `file` is set to the name used.
mp::Scene read_source(const py::handle& source, const ReadArgs& a, mp::Diagnostics& d, std::string& file,
                      std::vector<mp::SceneEntry>* scenes = nullptr) {
  mp::ReadOptions o = read_options(a);
  o.scenes = scenes;
  if (is_bytes_like(source)) {
    if (!o.format) throw py::value_error("reading bytes needs format= (" + mp::format_names(false) + ")");
    file = a.name.empty() ? "<bytes>" : a.name;
    // bytes are immutable: read in place (the caller holds `source`); a bytearray or memoryview
    // could change under the reader while the GIL is released, so it is copied first.
    if (py::isinstance<py::bytes>(source)) {
      char* p = nullptr;
      Py_ssize_t n = 0;
      if (PyBytes_AsStringAndSize(source.ptr(), &p, &n) < 0) throw py::error_already_set();
      const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(p), size_t(n));
      return released(d, [&] { return mp::read_memory(data, *o.format, file, o, &d); });
    }
    std::vector<uint8_t> data = bytes_of(source);
    return released(d, [&] { return mp::read_memory(data, *o.format, file, o, &d); });
  }
  file = path_of(source);
  return released(d, [&] { return mp::read(file, o, &d); });
}

// A Scene argument, or a path / bytes read into one.
struct SceneArg {
  const mp::Scene* scene = nullptr;
  mp::Scene owned;
  std::string file;
};
void scene_arg(const py::handle& source, const ReadArgs& a, mp::Diagnostics& d, SceneArg& out) {
  if (py::isinstance<mp::Scene>(source)) {
    out.owned = source.cast<const mp::Scene&>();  // a copy: Python may change the Scene meanwhile
    out.scene = &out.owned;
    out.file = a.name;
    return;
  }
  out.owned = read_source(source, a, d, out.file);
  out.scene = &out.owned;
}

mp::Scene read_py(const py::object& source, const std::optional<std::string>& format, std::optional<uint32_t> scene,
                  uint64_t max_memory, const std::string& name) {
  mp::Diagnostics d;
  std::string file;
  return read_source(source, ReadArgs{format, scene, max_memory, name}, d, file);
}

mp::WriteOptions write_options(const std::optional<std::string>& format, int pie_version, bool compress,
                               bool external_textures, const std::vector<std::string>& texture_dirs,
                               const std::string& texture_model = "") {
  mp::WriteOptions o;
  // As convert() does for its first input: the model's folder and its sidecar files are searched.
  if (!texture_model.empty()) {
    o.texture_model = texture_model;
    const std::string dir = py::str(py::module_::import("os.path").attr("dirname")(texture_model)).cast<std::string>();
    o.texture_dir = dir.empty() ? "." : dir;
  }
  o.format = format_arg(format, true);
  o.force_format = bool(format);
  o.pie_version = pie_version;
  o.compress = compress;
  o.external_textures = external_textures;
  o.texture_dirs = texture_dirs;
  return o;
}

py::object write_py(const mp::Scene& source, const py::object& path, const std::optional<std::string>& format,
                    int pie_version, bool compress, bool external_textures, const std::vector<std::string>& texture_dirs,
                    const py::object& texture_model) {
  mp::WriteOptions o = write_options(format, pie_version, compress, external_textures, texture_dirs,
                                     texture_model.is_none() ? std::string() : path_of(texture_model));
  mp::Diagnostics d;
  // The library works on a copy, the GIL released: another Python thread may change (grow,
  // reassign) the Scene meanwhile, which must not free memory under the writer.
  const mp::Scene scene = source;
  if (path.is_none()) {
    if (!o.format) throw py::value_error("write() without a path needs format= (" + mp::format_names(true) + ")");
    std::vector<uint8_t> bytes = released(d, [&] { return mp::write_memory(scene, *o.format, o, &d); });
    return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  const std::string file = path_of(path);
  released(d, [&] { mp::write(scene, file, o, &d); });
  return py::none();
}

mp::Generate generate_arg(const std::string& v, const char* what) {
  if (v == "default") return mp::Generate::Default;
  if (v == "missing") return mp::Generate::Missing;
  if (v == "off") return mp::Generate::Off;
  throw py::value_error(std::string(what) + ": expected \"default\", \"missing\" or \"off\"");
}

mp::Scene convert_py(const py::object& inputs, const py::object& output, const std::optional<std::string>& from,
                      const std::optional<std::string>& to, const std::string& normals, const std::string& tangents,
                      int pie_version, bool compress, bool external_textures, const std::vector<std::string>& texture_dirs,
                      const std::vector<float>& lods, bool allow_empty, uint64_t max_memory) {
  std::vector<std::string> in;
  if (py::isinstance<py::str>(inputs) || py::hasattr(inputs, "__fspath__")) in.push_back(path_of(inputs));
  else
    for (const py::handle h : inputs) in.push_back(path_of(h));
  mp::ConvertOptions o;
  o.read.format = format_arg(from);
  o.read.max_memory = max_memory;
  o.write = write_options(to, pie_version, compress, external_textures, texture_dirs);
  o.process.normals = generate_arg(normals, "normals");
  o.process.tangents = generate_arg(tangents, "tangents");
  o.lods.ratios = lods;
  o.allow_empty = allow_empty;
  const std::string out = path_of(output);
  mp::Diagnostics d;
  return released(d, [&] { return mp::convert(in, out, o, &d); });
}

// A finished item as the report's "items" hold it (docs/batch.md, "Report").
py::object item_dict(mp::BatchTask task, const mp::BatchItem& item) { return from_json(mp::report_item_json(task, item)); }

py::object batch_py(const std::vector<std::string>& inputs, const std::optional<std::string>& output_dir,
                    const std::optional<std::string>& to, const std::string& task, const std::optional<std::string>& from,
                    unsigned jobs, bool force, bool strict, const std::vector<std::string>& profiles,
                    bool copy_textures, bool fail_fast, const std::optional<std::string>& shard,
                    const std::optional<py::function>& progress) {
  mp::BatchOptions o;
  if (task == "convert") o.task = mp::BatchTask::Convert;
  else if (task == "validate") o.task = mp::BatchTask::Validate;
  else throw py::value_error("task: expected \"convert\" or \"validate\"");
  o.inputs = inputs;
  o.output_dir = output_dir.value_or("");
  o.to = format_arg(to, true);
  o.from = format_arg(from);
  o.jobs = jobs;
  o.force = force;
  o.strict = strict;
  o.profiles = profiles;
  o.copy_textures = copy_textures;
  o.fail_fast = fail_fast;
  if (shard) o.shard = mp::parse_shard(*shard);
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  // The callback runs on the batch's threads (one at a time): it takes the GIL, and an exception
  // it raises stops the batch (no item started after it) and is raised by batch() at the end.
  std::exception_ptr callback_error;
  if (progress) {
    o.progress = [&, task = o.task](const mp::BatchProgress& p) {
      if (cancel) return;
      py::gil_scoped_acquire lock;
      try {
        py::dict e;
        e["total"] = p.total;
        e["finished"] = p.finished;
        e["failed"] = p.failed;
        e["warned"] = p.warned;
        e["skipped"] = p.skipped;
        e["seconds"] = p.seconds;
        e["current"] = p.current;
        e["item"] = p.item ? py::object(item_dict(task, *p.item)) : py::none();
        (*progress)(e);
      } catch (py::error_already_set&) {
        callback_error = std::current_exception();
        cancel = true;
      }
    };
  }
  mp::Diagnostics none;
  mp::BatchResult r = released(none, [&] { return mp::batch(o); });
  o.progress = nullptr;
  if (callback_error) std::rethrow_exception(callback_error);
  if (!r.error.empty()) throw mp::Error(mp::Diagnostic{mp::Severity::Error, "", 0, 0, -1, r.error});
  return from_json(mp::report_json(r));
}

struct Validation {
  bool valid = true;
  std::vector<mp::Diagnostic> diagnostics;
  size_t dropped = 0;
};

Validation validate_py(const py::object& source, const std::vector<std::string>& profiles, bool strict,
                       const std::optional<std::string>& format, const std::string& name) {
  std::vector<const mp::ProfileInfo*> checks;
  for (const std::string& p : profiles) {
    const mp::ProfileInfo* info = mp::find_profile(p);
    if (!info) {
      std::string known;
      for (const mp::ProfileInfo& x : mp::profiles()) known += (known.empty() ? "" : ", ") + std::string(x.name);
      throw py::value_error("unknown profile '" + p + "' (known: " + known + ")");
    }
    checks.push_back(info);
  }
  mp::Diagnostics d;
  if (py::isinstance<mp::Scene>(source)) {
    const mp::Scene s = source.cast<const mp::Scene&>();  // a copy: Python may change the Scene meanwhile
    py::gil_scoped_release unlock;
    mp::validate_scene(s, name, d);
    for (const mp::ProfileInfo* p : checks) mp::check_profile(*p, s, name, d);
  } else {
    const bool bytes = is_bytes_like(source);
    const std::string file = bytes ? (name.empty() ? "<bytes>" : name) : path_of(source);
    mp::ReadOptions o;
    o.format = format_arg(format);
    if (bytes && !o.format) throw py::value_error("validating bytes needs format= (" + mp::format_names(false) + ")");
    std::vector<uint8_t> data = bytes ? bytes_of(source) : std::vector<uint8_t>{};
    py::gil_scoped_release unlock;
    try {
      const mp::Scene s = bytes ? mp::read_memory(data, *o.format, file, o, &d) : mp::read(file, o, &d);
      mp::validate_scene(s, file, d);
      for (const mp::ProfileInfo* p : checks) mp::check_profile(*p, s, file, d);
    } catch (const mp::Error& e) {
      d.add(e.diagnostic());
    } catch (const std::bad_alloc&) {
      d.add(mp::Diagnostic{mp::Severity::Error, file, 0, 0, -1, "out of memory"});
    }
  }
  Validation v;
  v.valid = !d.has_errors() && !(strict && (d.warning_count() > 0 || d.dropped > 0));
  v.diagnostics = std::move(d.items);
  v.dropped = d.dropped;
  return v;
}

std::vector<mp::Difference> diff_py(const py::object& a, const py::object& b, float tolerance,
                                    const std::optional<std::string>& format_a,
                                    const std::optional<std::string>& format_b) {
  mp::Diagnostics d;
  SceneArg sa, sb;
  scene_arg(a, ReadArgs{format_a, std::nullopt, 0, ""}, d, sa);
  scene_arg(b, ReadArgs{format_b, std::nullopt, 0, ""}, d, sb);
  mp::DiffOptions o;
  o.tolerance = tolerance;
  return released(d, [&] { return mp::diff(*sa.scene, *sb.scene, o); });
}

py::object info_py(const py::object& source, const std::optional<std::string>& format, std::optional<uint32_t> scene,
                   const std::vector<std::string>& textures, uint64_t max_memory, const std::string& name) {
  mp::Diagnostics d;
  std::vector<mp::SceneEntry> scenes;
  SceneArg s;
  const bool path = !py::isinstance<mp::Scene>(source) && !is_bytes_like(source);
  if (py::isinstance<mp::Scene>(source)) {
    if (!format) throw py::value_error("info(Scene) needs format= (the format it is summarised as)");
    s.owned = source.cast<const mp::Scene&>();  // a copy: Python may change the Scene meanwhile
    s.scene = &s.owned;
    s.file = name;
  } else {
    s.owned = read_source(source, ReadArgs{format, scene, max_memory, name}, d, s.file, &scenes);
    s.scene = &s.owned;
  }
  const mp::Format f = format ? *format_arg(format) : *mp::format_from_path(s.file);
  // As `meshport info --json` (tools/meshport/main.cpp): animation bounds, the scenes of a glTF,
  // where the textures are found.
  std::string text = released(d, [&] {
    mp::Summary summary = mp::summarize(*s.scene, f, true);
    summary.scenes = std::move(scenes);
    summary.file = s.file;
    mp::TextureSearch search;
    if (path) search.model_path = s.file;
    search.dirs = textures;
    summary.textures = mp::find_textures(*s.scene, search);
    return mp::to_json(summary).dump(2);
  });
  return from_json(text);
}

mp::Scene modes_py(const py::object& source, double youngs, double poisson, std::optional<double> density,
                   uint32_t count, uint32_t resolution, const std::string& elements, const std::string& stem,
                   const py::object& prop, const std::optional<std::string>& format, py::object report) {
  if (elements != "quadratic" && elements != "linear")
    throw py::value_error("elements: expected \"quadratic\" or \"linear\"");
  mp::Diagnostics d;
  SceneArg in;
  scene_arg(source, ReadArgs{format, std::nullopt, 0, ""}, d, in);
  mp::ModesOptions o;
  o.youngs = youngs;
  o.poisson = poisson;
  if (density) o.density = *density;
  o.count = count;
  o.resolution = resolution;
  o.elements = elements == "linear" ? mp::ModeElements::Linear : mp::ModeElements::Quadratic;
  o.stem = stem;
  // The .prop the object's other properties come from (`meshport modes --prop`), else the input's.
  auto prop_of = [](const mp::Scene& s) -> std::optional<mp::ModeDefProp> {
    if (s.modedef && s.modedef->kind == mp::ModeDefData::Kind::Prop && !s.modedef->props.empty())
      return s.modedef->props[0].prop;
    return std::nullopt;
  };
  if (!prop.is_none()) {
    SceneArg p;
    scene_arg(prop, ReadArgs{}, d, p);
    o.prop = prop_of(*p.scene);
    if (!o.prop) throw py::value_error("prop: needs a ModeDef .prop (a Scene read from one, or its path)");
  } else {
    o.prop = prop_of(*in.scene);
  }
  o.density_from_prop = o.prop && !density;
  mp::ModesReport r;
  mp::Scene out = released(d, [&] { return mp::compute_modes(*in.scene, o, &d, &r); });
  if (py::isinstance<py::dict>(report)) {
    py::dict rd = report.cast<py::dict>();
    rd["nodes"] = r.nodes;
    rd["tets"] = r.tets;
    rd["kept_cells"] = r.kept_cells;
    rd["cells"] = py::make_tuple(r.cells[0], r.cells[1], r.cells[2]);
    rd["open_edges"] = r.open_edges;
    rd["rigid_modes"] = r.rigid_modes;
    rd["parts"] = r.parts;
    rd["mass"] = r.mass;
    rd["volume"] = r.volume;
    rd["density"] = r.density;
  }
  return out;
}

py::tuple simulate_py(const py::object& source, std::optional<double> seconds, double fps, uint32_t substeps,
                      const std::optional<std::string>& name, const std::optional<std::string>& format) {
  mp::Diagnostics d;
  SceneArg in;
  scene_arg(source, ReadArgs{format, std::nullopt, 0, ""}, d, in);
  mp::SimulateOptions o;
  o.seconds = seconds;
  o.fps = fps;
  o.substeps = substeps;
  std::string animation = name.value_or("");
  if (animation.empty()) {
    animation = "simulation";
    if (!in.file.empty() && !py::isinstance<mp::Scene>(source) && !is_bytes_like(source))
      animation = py::str(py::module_::import("pathlib").attr("Path")(in.file).attr("stem")).cast<std::string>();
  }
  std::string trace;
  mp::Scene out = released(d, [&] {
    mp::Scene s = *in.scene;
    const mp::SimulationResult r = mp::simulate(s, o, &d);
    mp::apply_simulation(s, r, animation);
    trace = mp::simulation_trace_json(s, r);
    return s;
  });
  return py::make_tuple(py::cast(std::move(out)), from_json(trace));
}

}  // namespace

void bind_api(py::module_& m) {
  py::class_<mp::Diagnostic>(m, "Diagnostic", "A located diagnostic (validate())")
      .def_property_readonly("severity",
                             [](const mp::Diagnostic& x) {
                               return x.severity == mp::Severity::Error     ? "error"
                                      : x.severity == mp::Severity::Warning ? "warning"
                                                                            : "note";
                             })
      .def_readonly("file", &mp::Diagnostic::file)
      .def_readonly("line", &mp::Diagnostic::line)
      .def_readonly("column", &mp::Diagnostic::column)
      .def_readonly("offset", &mp::Diagnostic::offset)
      .def_readonly("message", &mp::Diagnostic::message)
      .def("__str__", &mp::Diagnostic::to_string)
      .def("__repr__", [](const mp::Diagnostic& x) { return "<meshport.Diagnostic " + x.to_string() + ">"; });
  py::class_<Validation>(m, "Validation", "What validate() found")
      .def_readonly("valid", &Validation::valid)
      .def_readonly("diagnostics", &Validation::diagnostics)
      .def_readonly("dropped", &Validation::dropped)
      .def("__bool__", [](const Validation& v) { return v.valid; });
  py::class_<mp::Difference>(m, "Difference", "One difference found by diff()")
      .def_readonly("path", &mp::Difference::path)
      .def_readonly("a", &mp::Difference::a)
      .def_readonly("b", &mp::Difference::b)
      .def_readonly("message", &mp::Difference::message)
      .def("__str__", [](const mp::Difference& x) { return mp::to_string(x); })
      .def("__repr__", [](const mp::Difference& x) { return "<meshport.Difference " + mp::to_string(x) + ">"; });

  m.def("read", &read_py, py::arg("source"), py::arg("format") = py::none(), py::kw_only(),
        py::arg("scene") = py::none(), py::arg("max_memory") = 0, py::arg("name") = "",
        "Reads a model file (a path) or its bytes (format= needed) into a Scene.");
  m.def("write", &write_py, py::arg("scene"), py::arg("path") = py::none(), py::kw_only(),
        py::arg("format") = py::none(), py::arg("pie_version") = 0, py::arg("compress") = false,
        py::arg("external_textures") = false, py::arg("texture_dirs") = std::vector<std::string>{},
        py::arg("texture_model") = py::none(),
        "Writes the Scene to a path (None returned), or returns the main file's bytes when no path is given.");
  m.def("convert", &convert_py, py::arg("inputs"), py::arg("output"), py::kw_only(), py::arg("from_format") = py::none(),
        py::arg("to") = py::none(), py::arg("normals") = "default", py::arg("tangents") = "default",
        py::arg("pie_version") = 0, py::arg("compress") = false, py::arg("external_textures") = false,
        py::arg("texture_dirs") = std::vector<std::string>{}, py::arg("lods") = std::vector<float>{},
        py::arg("allow_empty") = false, py::arg("max_memory") = 0,
        "`meshport convert INPUTS -o OUTPUT`: returns the Scene written.");
  m.def("batch", &batch_py, py::arg("inputs"), py::arg("output_dir") = py::none(), py::kw_only(), py::arg("to") = py::none(),
        py::arg("task") = "convert", py::arg("from_format") = py::none(), py::arg("jobs") = 0, py::arg("force") = false,
        py::arg("strict") = false, py::arg("profiles") = std::vector<std::string>{}, py::arg("copy_textures") = true,
        py::arg("fail_fast") = false, py::arg("shard") = py::none(), py::arg("progress") = py::none(),
        "`meshport batch` / `validate` over files, folders and globs on threads: returns the report "
        "(docs/batch.md, \"Report\") as a dict; progress(event) is called as items start and finish.");
  m.def("validate", &validate_py, py::arg("source"), py::kw_only(), py::arg("profiles") = std::vector<std::string>{},
        py::arg("strict") = false, py::arg("format") = py::none(), py::arg("name") = "",
        "Validates a path, bytes or Scene (engine profiles by name): returns a Validation.");
  m.def("diff", &diff_py, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("tolerance") = 1e-4f,
        py::arg("format_a") = py::none(), py::arg("format_b") = py::none(),
        "The differences between two models (Scenes or paths), as `meshport diff` finds them.");
  m.def("info", &info_py, py::arg("source"), py::kw_only(), py::arg("format") = py::none(), py::arg("scene") = py::none(),
        py::arg("textures") = std::vector<std::string>{}, py::arg("max_memory") = 0, py::arg("name") = "",
        "The dict `meshport info --json` prints, for a path, bytes or a Scene (format= needed for the last two).");
  m.def("modes", &modes_py, py::arg("source"), py::kw_only(), py::arg("youngs") = 1e6, py::arg("poisson") = 0.3,
        py::arg("density") = py::none(), py::arg("count") = 20, py::arg("resolution") = 20,
        py::arg("elements") = "quadratic", py::arg("stem") = "model", py::arg("prop") = py::none(),
        py::arg("format") = py::none(), py::arg("report") = py::none(),
        "`meshport modes`: the vibration modes of a closed mesh as a ModeDef Scene (write it as .prop/.model/glTF).");
  m.def("simulate", &simulate_py, py::arg("source"), py::kw_only(), py::arg("seconds") = py::none(),
        py::arg("fps") = 0.0, py::arg("substeps") = 0, py::arg("name") = py::none(), py::arg("format") = py::none(),
        "`meshport simulate`: returns (the Scene with the simulated animation, the trace dict).");
  m.def("deform", [](mp::Scene& s, const std::vector<float>& amplitudes, size_t model) { mp::deform_scene(s, amplitudes, model); },
        py::arg("scene"), py::arg("amplitudes"), py::arg("model") = 0,
        "Moves, in place, the meshes of a ModeDef model by the given mode amplitudes.");
  m.def("formats", [] { return from_json(mp::formats_json().dump()); }, "`meshport formats --json`");
  m.def("profiles", [] {
    py::list out;
    for (const mp::ProfileInfo& p : mp::profiles()) {
      py::list rules;
      for (const mp::ProfileRule& r : p.rules) {
        py::dict rd;
        rd["id"] = std::string(r.id);
        rd["severity"] = r.severity == mp::Severity::Error ? "error" : "warning";
        rd["text"] = std::string(r.text);
        rd["source"] = std::string(r.source);
        rules.append(rd);
      }
      py::dict pd;
      pd["name"] = std::string(p.name);
      pd["description"] = std::string(p.description);
      pd["rules"] = rules;
      out.append(pd);
    }
    return out;
  }, "The engine validation profiles (docs/profiles.md) with their rules");
}

}  // namespace mpy
