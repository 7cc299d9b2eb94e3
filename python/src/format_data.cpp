// The formats' side data (Scene.pie, .iqm, .qmsh, .qmsh_tmp, .modedef; include/meshport/source/)
// as Python objects: references into the Scene, arrays as numpy views (docs/python.md).
#include "bindings.h"

namespace mpy {
namespace mp = meshport;

namespace {

void bind_pie(py::module_& m) {
  py::class_<mp::PieTexture> tex(m, "PieTexture", "TEXTURE, TCMASK, NORMALMAP or SPECULARMAP");
  py::enum_<mp::PieTexture::Kind>(tex, "Kind")
      .value("TEXTURE", mp::PieTexture::Kind::Texture)
      .value("TCMASK", mp::PieTexture::Kind::TcMask)
      .value("NORMALMAP", mp::PieTexture::Kind::NormalMap)
      .value("SPECULARMAP", mp::PieTexture::Kind::SpecularMap);
  tex.def(py::init<>())
      .def_readwrite("kind", &mp::PieTexture::kind)
      .def_readwrite("tileset", &mp::PieTexture::tileset)
      .def_readwrite("file", &mp::PieTexture::file)
      .def_readwrite("has_size", &mp::PieTexture::has_size)
      .def_readwrite("width", &mp::PieTexture::width)
      .def_readwrite("height", &mp::PieTexture::height);
  bind_list<mp::PieTexture>(m, "PieTextureList");
  py::class_<mp::PieSettings> settings(m, "PieSettings");
  settings.def(py::init<>())
      .def_readwrite("has_type", &mp::PieSettings::has_type)
      .def_readwrite("type", &mp::PieSettings::type)
      .def_readwrite("has_interpolate", &mp::PieSettings::has_interpolate)
      .def_readwrite("interpolate", &mp::PieSettings::interpolate);
  member(settings, "textures", &mp::PieSettings::textures);
  py::class_<mp::PieEvent>(m, "PieEvent")
      .def(py::init<>())
      .def_readwrite("type", &mp::PieEvent::type, "1 active, 2 firing, 3 dying")
      .def_readwrite("file", &mp::PieEvent::file);
  bind_list<mp::PieEvent>(m, "PieEventList");
  py::class_<mp::PieAnimFrame>(m, "PieAnimFrame")
      .def(py::init<>())
      .def_readwrite("frame", &mp::PieAnimFrame::frame)
      .def_readwrite("position", &mp::PieAnimFrame::position)
      .def_readwrite("rotation", &mp::PieAnimFrame::rotation)
      .def_readwrite("scale", &mp::PieAnimFrame::scale);
  py::class_<mp::PieAnimObject>(m, "PieAnimObject")
      .def(py::init<>())
      .def_readwrite("time", &mp::PieAnimObject::time)
      .def_readwrite("cycles", &mp::PieAnimObject::cycles)
      .def_readwrite("frames", &mp::PieAnimObject::frames, "a list (copy) of PieAnimFrame");
  py::class_<mp::PieLevel> level(m, "PieLevel");
  level.def(py::init<>())
      .def_readwrite("mesh", &mp::PieLevel::mesh, "the Scene mesh holding this level, -1 for none")
      .def_readwrite("joint", &mp::PieLevel::joint)
      .def_readwrite("comment", &mp::PieLevel::comment)
      .def_readwrite("overrides", &mp::PieLevel::overrides)
      .def_readwrite("materials", &mp::PieLevel::materials)
      .def_readwrite("shaders", &mp::PieLevel::shaders)
      .def_readwrite("normals", &mp::PieLevel::normals)
      .def_readwrite("has_animobject", &mp::PieLevel::has_animobject)
      .def_readwrite("animobject", &mp::PieLevel::animobject)
      .def_readwrite("has_shadow_points", &mp::PieLevel::has_shadow_points)
      .def_readwrite("has_shadow_polygons", &mp::PieLevel::has_shadow_polygons)
      .def("__repr__", [](const mp::PieLevel& l) {
        return "<meshport.PieLevel mesh " + std::to_string(l.mesh) + ", " + std::to_string(l.points.size()) + " points>";
      });
  rows_property(level, "points", &mp::PieLevel::points, "(points, 3) float32 view, POINTS as in the file");
  rows_property(level, "shadow_points", &mp::PieLevel::shadow_points, "(n, 3) float32 view");
  rows_property(level, "shadow_polygons", &mp::PieLevel::shadow_polygons, "(n, 3) uint32 view");
  bind_list<mp::PieLevel>(m, "PieLevelList");
  py::class_<mp::PieData> pie(m, "PieData", "What a PIE file holds beyond the Scene (docs/pie.md)");
  pie.def(py::init<>()).def_readwrite("version", &mp::PieData::version);
  member(pie, "global_settings", &mp::PieData::global);
  member(pie, "events", &mp::PieData::events);
  member(pie, "levels", &mp::PieData::levels);
}

void bind_iqm_qmsh(py::module_& m) {
  py::class_<mp::IqmExtension> ext(m, "IqmExtension");
  ext.def(py::init<>()).def_readwrite("name", &mp::IqmExtension::name);
  vector_property(ext, "data", &mp::IqmExtension::data, 0, "uint8 view");
  py::class_<mp::IqmData> iqm(m, "IqmData");
  iqm.def(py::init<>()).def_readwrite("extensions", &mp::IqmData::extensions, "a list (copy) of IqmExtension");
  vector_property(iqm, "pose_parents", &mp::IqmData::pose_parents, 0, "int32 view");

  py::class_<mp::QmshBinaryData> q(m, "QmshBinaryData");
  q.def(py::init<>())
      .def_readwrite("flags", &mp::QmshBinaryData::flags)
      .def_readwrite("radius", &mp::QmshBinaryData::radius);
  array_property(q, "box", &mp::QmshBinaryData::box, "(6,) float32 view: min xyz, max xyz");
  rows_property(q, "bone_matrices", &mp::QmshBinaryData::bone_matrices, "(bones, 12) float32 view");
  vector_property(q, "binormals", &mp::QmshBinaryData::binormals, 3, "(vertices, 3) float32 view");
  vector_property(q, "bone_indices", &mp::QmshBinaryData::bone_indices, 0, "uint32 view");
  vector_property(q, "animation_lengths", &mp::QmshBinaryData::animation_lengths, 0, "float32 view");
  vector_property(q, "keys", &mp::QmshBinaryData::keys, 0, "float32 view");

  py::class_<mp::QmshTmpMesh> tm(m, "QmshTmpMesh");
  tm.def(py::init<>())
      .def_readwrite("name", &mp::QmshTmpMesh::name)
      .def_readwrite("parent_armature", &mp::QmshTmpMesh::parent_armature)
      .def_readwrite("parent_bone", &mp::QmshTmpMesh::parent_bone)
      .def_readwrite("auto_smooth_angle", &mp::QmshTmpMesh::auto_smooth_angle)
      .def_readwrite("materials", &mp::QmshTmpMesh::materials);
  array_property(tm, "position", &mp::QmshTmpMesh::position, "(3,) float32 view");
  array_property(tm, "orientation", &mp::QmshTmpMesh::orientation, "(3,) float32 view, Euler radians");
  array_property(tm, "size", &mp::QmshTmpMesh::size, "(3,) float32 view");
  rows_property(tm, "vertices", &mp::QmshTmpMesh::vertices, "(vertices, 3) float32 view");
  bind_list<mp::QmshTmpMesh>(m, "QmshTmpMeshList");
  py::class_<mp::QmshTmpData> tmp(m, "QmshTmpData");
  member(tmp, "meshes", &mp::QmshTmpData::meshes);
  tmp.def(py::init<>())
      .def_readwrite("has_armature", &mp::QmshTmpData::has_armature)
      .def_readwrite("armature_index", &mp::QmshTmpData::armature_index)
      .def_readwrite("fps", &mp::QmshTmpData::fps);
}

void bind_modedef(py::module_& m) {
  py::class_<mp::ModeDefModel> model(m, "ModeDefModel");
  model.def(py::init<>())
      .def_readwrite("carton", &mp::ModeDefModel::carton)
      .def_property_readonly("node_count", &mp::ModeDefModel::node_count)
      .def_property_readonly("mode_count", &mp::ModeDefModel::mode_count)
      .def_property_readonly("eigenvectors", [](py::object self) {
        mp::ModeDefModel& x = self.cast<mp::ModeDefModel&>();
        return vector_view(x.eigenvectors, x.rest.size(), self);
      }, "(modes, 3 * nodes) float32 view");
  vector_property(model, "eigenvalues", &mp::ModeDefModel::eigenvalues, 0, "float32 view, lambda = omega^2");
  vector_property(model, "rest", &mp::ModeDefModel::rest, 3, "(nodes, 3) float32 view");
  rows_property(model, "vertices", &mp::ModeDefModel::vertices, "(vertices, 3) float32 view of the render mesh");
  rows_property(model, "normals", &mp::ModeDefModel::normals, "(n, 3) float32 view");
  rows_property(model, "texcoords", &mp::ModeDefModel::texcoords, "(n, 2) float32 view");
  rows_property(model, "tets", &mp::ModeDefModel::tets, "(tets, 4) int32 view, 0-based node indices");
  py::class_<mp::ModeDefModelFile> model_file(m, "ModeDefModelFile");
  model_file.def(py::init<>()).def_readwrite("file", &mp::ModeDefModelFile::file);
  member(model_file, "model", &mp::ModeDefModelFile::model);
  bind_list<mp::ModeDefModelFile>(m, "ModeDefModelFileList");
  py::class_<mp::ModeDefProp> prop(m, "ModeDefProp");
  prop.def(py::init<>())
      .def_readwrite("model_file", &mp::ModeDefProp::model_file)
      .def_readwrite("rigid_body", &mp::ModeDefProp::rigid_body)
      .def_readwrite("deform", &mp::ModeDefProp::deform)
      .def_readwrite("mass", &mp::ModeDefProp::mass)
      .def_readwrite("lame", &mp::ModeDefProp::lame)
      .def_readwrite("damping1", &mp::ModeDefProp::damping1)
      .def_readwrite("damping2", &mp::ModeDefProp::damping2)
      .def_readwrite("scale", &mp::ModeDefProp::scale)
      .def_readwrite("kp", &mp::ModeDefProp::kp)
      .def_readwrite("kv", &mp::ModeDefProp::kv)
      .def_readwrite("kb", &mp::ModeDefProp::kb);
  array_property(prop, "center_of_mass", &mp::ModeDefProp::center_of_mass, "(3,) float32 view");
  array_property(prop, "inertia", &mp::ModeDefProp::inertia, "(9,) float32 view, row-major");
  py::class_<mp::ModeDefPropFile> prop_file(m, "ModeDefPropFile");
  prop_file.def(py::init<>())
      .def_readwrite("file", &mp::ModeDefPropFile::file)
      .def_readwrite("model", &mp::ModeDefPropFile::model);
  member(prop_file, "prop", &mp::ModeDefPropFile::prop);
  bind_list<mp::ModeDefPropFile>(m, "ModeDefPropFileList");
  py::class_<mp::ModeDefState> state(m, "ModeDefState", "A .state's settings (its objects: info())");
  state.def(py::init<>())
      .def_readwrite("fps", &mp::ModeDefState::fps)
      .def_readwrite("use_penalty", &mp::ModeDefState::use_penalty)
      .def_readwrite("friction", &mp::ModeDefState::friction)
      .def_readwrite("max_penetration", &mp::ModeDefState::max_penetration)
      .def_property_readonly("object_count", [](const mp::ModeDefState& s) { return s.objects.size(); })
      .def_property_readonly("plane_count", [](const mp::ModeDefState& s) { return s.planes.size(); });
  array_property(state, "gravity", &mp::ModeDefState::gravity, "(3,) float32 view");
  py::class_<mp::ModeDefData> data(m, "ModeDefData", "What ModeDef files hold beyond the Scene (docs/modedef.md)");
  data.def(py::init<>())
      .def_property_readonly("kind",
                             [](const mp::ModeDefData& d) {
                               switch (d.kind) {
                                 case mp::ModeDefData::Kind::Model: return "model";
                                 case mp::ModeDefData::Kind::Prop: return "prop";
                                 case mp::ModeDefData::Kind::State: return "state";
                                 default: return "path";
                               }
                             }, "\"model\", \"prop\", \"state\" or \"path\": the file it was read from");
  member(data, "models", &mp::ModeDefData::models);
  member(data, "props", &mp::ModeDefData::props);
  member(data, "state", &mp::ModeDefData::state);
}

}  // namespace

void bind_format_data(py::module_& m) {
  bind_pie(m);
  bind_iqm_qmsh(m);
  bind_modedef(m);
}

}  // namespace mpy
