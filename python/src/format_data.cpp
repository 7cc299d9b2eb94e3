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

}

void bind_qmsh_tmp(py::module_& m) {
  py::class_<mp::QmshTmpFace> face(m, "QmshTmpFace", "A face of a QMSH.TMP mesh: 3 or 4 corners");
  face.def(py::init<>())
      .def_readwrite("count", &mp::QmshTmpFace::count, "3 or 4 corners")
      .def_readwrite("material", &mp::QmshTmpFace::material)
      .def_readwrite("smooth", &mp::QmshTmpFace::smooth, "Is_smooth as written")
      .def_property(
          "uv",
          [](py::object self) { return view(self.cast<mp::QmshTmpFace&>().uv[0].data(), {4, 2}, self); },
          [](mp::QmshTmpFace& f, const input_array<float>& a) {
            if (a.size() != 8) throw py::value_error("QmshTmpFace.uv: expected 4 x 2 values");
            std::memcpy(f.uv[0].data(), a.data(), 8 * sizeof(float));
          },
          "(4, 2) float32 view: per corner, as in the file (v up)");
  array_property(face, "vertex", &mp::QmshTmpFace::vertex, "(4,) uint32 view: the corners' vertex indices");
  bind_list<mp::QmshTmpFace>(m, "QmshTmpFaceList");
  py::class_<mp::QmshTmpVertexGroup> group(m, "QmshTmpVertexGroup");
  group.def(py::init<>()).def_readwrite("name", &mp::QmshTmpVertexGroup::name);
  vector_property(group, "vertices", &mp::QmshTmpVertexGroup::vertices, 0, "uint32 view");
  vector_property(group, "weights", &mp::QmshTmpVertexGroup::weights, 0, "float32 view, one per vertex entry");
  bind_list<mp::QmshTmpVertexGroup>(m, "QmshTmpVertexGroupList");

  py::class_<mp::QmshTmpBone> bone(m, "QmshTmpBone");
  bone.def(py::init<>())
      .def_readwrite("name", &mp::QmshTmpBone::name)
      .def_readwrite("parent", &mp::QmshTmpBone::parent, "\"\" for a top-level bone")
      .def_readwrite("head_radius", &mp::QmshTmpBone::head_radius)
      .def_readwrite("tail_radius", &mp::QmshTmpBone::tail_radius)
      .def_readwrite("roll_bone", &mp::QmshTmpBone::roll_bone)
      .def_readwrite("roll_armature", &mp::QmshTmpBone::roll_armature)
      .def_readwrite("length", &mp::QmshTmpBone::length)
      .def_readwrite("weight", &mp::QmshTmpBone::weight)
      .def("__repr__", [](const mp::QmshTmpBone& b) { return "<meshport.QmshTmpBone '" + b.name + "'>"; });
  array_property(bone, "head_bone", &mp::QmshTmpBone::head_bone, "(3,) float32 view");
  array_property(bone, "head_armature", &mp::QmshTmpBone::head_armature, "(3,) float32 view");
  array_property(bone, "tail_bone", &mp::QmshTmpBone::tail_bone, "(3,) float32 view");
  array_property(bone, "tail_armature", &mp::QmshTmpBone::tail_armature, "(3,) float32 view");
  array_property(bone, "matrix_bone", &mp::QmshTmpBone::matrix_bone, "(9,) float32 view, rows as in the file");
  array_property(bone, "matrix_armature", &mp::QmshTmpBone::matrix_armature, "(16,) float32 view, rows as in the file");
  bind_list<mp::QmshTmpBone>(m, "QmshTmpBoneList");
  py::class_<mp::QmshTmpArmature> arm(m, "QmshTmpArmature");
  arm.def(py::init<>())
      .def_readwrite("name", &mp::QmshTmpArmature::name)
      .def_readwrite("vertex_groups", &mp::QmshTmpArmature::vertex_groups, "the flag as written")
      .def_readwrite("envelopes", &mp::QmshTmpArmature::envelopes, "the flag as written");
  array_property(arm, "position", &mp::QmshTmpArmature::position, "(3,) float32 view");
  array_property(arm, "orientation", &mp::QmshTmpArmature::orientation, "(3,) float32 view, Euler radians");
  array_property(arm, "size", &mp::QmshTmpArmature::size, "(3,) float32 view");
  member(arm, "bones", &mp::QmshTmpArmature::bones);

  py::class_<mp::QmshTmpCurve> curve(m, "QmshTmpCurve", "An IPO curve: (frame, value) points");
  py::enum_<mp::QmshTmpCurve::Interpolation>(curve, "Interpolation")
      .value("CONST", mp::QmshTmpCurve::Interpolation::Const)
      .value("LINEAR", mp::QmshTmpCurve::Interpolation::Linear)
      .value("BEZIER", mp::QmshTmpCurve::Interpolation::Bezier);
  py::enum_<mp::QmshTmpCurve::Extend>(curve, "Extend")
      .value("CONST", mp::QmshTmpCurve::Extend::Const)
      .value("EXTRAP", mp::QmshTmpCurve::Extend::Extrap)
      .value("CYCLIC", mp::QmshTmpCurve::Extend::Cyclic)
      .value("CYCLIC_EXTRAP", mp::QmshTmpCurve::Extend::CyclicExtrap);
  curve.def(py::init<>())
      .def_readwrite("name", &mp::QmshTmpCurve::name, "LocX ... QuatW ... SizeZ, or others (kept)")
      .def_readwrite("interpolation", &mp::QmshTmpCurve::interpolation)
      .def_readwrite("extend", &mp::QmshTmpCurve::extend);
  rows_property(curve, "points", &mp::QmshTmpCurve::points, "(points, 2) float32 view: frame, value");
  bind_list<mp::QmshTmpCurve>(m, "QmshTmpCurveList");
  py::class_<mp::QmshTmpChannel> channel(m, "QmshTmpChannel", "One bone's curves");
  channel.def(py::init<>()).def_readwrite("name", &mp::QmshTmpChannel::name, "the bone's name");
  member(channel, "curves", &mp::QmshTmpChannel::curves);
  bind_list<mp::QmshTmpChannel>(m, "QmshTmpChannelList");
  py::class_<mp::QmshTmpAction> action(m, "QmshTmpAction");
  action.def(py::init<>()).def_readwrite("name", &mp::QmshTmpAction::name);
  member(action, "channels", &mp::QmshTmpAction::channels);
  bind_list<mp::QmshTmpAction>(m, "QmshTmpActionList");

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
  member(tm, "faces", &mp::QmshTmpMesh::faces);
  member(tm, "vertex_groups", &mp::QmshTmpMesh::vertex_groups);
  bind_list<mp::QmshTmpMesh>(m, "QmshTmpMeshList");

  py::class_<mp::QmshTmpData> tmp(m, "QmshTmpData");
  member(tmp, "meshes", &mp::QmshTmpData::meshes);
  tmp.def(py::init<>())
      .def_readwrite("has_armature", &mp::QmshTmpData::has_armature)
      .def_readwrite("armature_index", &mp::QmshTmpData::armature_index)
      .def_readwrite("fps", &mp::QmshTmpData::fps, "every `fps = N` of params, in order (a list, copy)");
  member(tmp, "armature", &mp::QmshTmpData::armature, "the armature (when has_armature)");
  member(tmp, "actions", &mp::QmshTmpData::actions);
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
  py::class_<mp::ModeDefPathKey> key(m, "ModeDefPathKey");
  key.def(py::init<>()).def_readwrite("time", &mp::ModeDefPathKey::time);
  array_property(key, "value", &mp::ModeDefPathKey::value, "(3,) float32 view: a position, or Euler angles (radians)");
  bind_list<mp::ModeDefPathKey>(m, "ModeDefPathKeyList");
  py::class_<mp::ModeDefPath> path(m, "ModeDefPath", "A .path file: translation and rotation keys");
  path.def(py::init<>());
  member(path, "translation", &mp::ModeDefPath::translation);
  member(path, "rotation", &mp::ModeDefPath::rotation);
  py::class_<mp::ModeDefPathFile> path_file(m, "ModeDefPathFile");
  path_file.def(py::init<>()).def_readwrite("file", &mp::ModeDefPathFile::file);
  member(path_file, "path", &mp::ModeDefPathFile::path);
  bind_list<mp::ModeDefPathFile>(m, "ModeDefPathFileList");
  py::class_<mp::ModeDefObject> object(m, "ModeDefObject", "An object of a .state");
  object.def(py::init<>())
      .def_readwrite("name", &mp::ModeDefObject::name, "NAME as written: the object's .prop file")
      .def_readwrite("animated", &mp::ModeDefObject::animated, "the `a` flag")
      .def_readwrite("birth", &mp::ModeDefObject::birth, "< 0: always alive")
      .def_readwrite("death", &mp::ModeDefObject::death, "< 0: always alive")
      .def_readwrite("path_file", &mp::ModeDefObject::path_file, "ANIMPATH as written (animated objects)")
      .def("__repr__", [](const mp::ModeDefObject& o) { return "<meshport.ModeDefObject '" + o.name + "'>"; });
  array_property(object, "position", &mp::ModeDefObject::position, "(3,) float32 view");
  array_property(object, "rotation", &mp::ModeDefObject::rotation, "(4,) float32 view: quaternion w x y z as in the file");
  array_property(object, "velocity", &mp::ModeDefObject::velocity, "(3,) float32 view");
  array_property(object, "angular_velocity", &mp::ModeDefObject::angular_velocity, "(3,) float32 view");
  bind_list<mp::ModeDefObject>(m, "ModeDefObjectList");
  py::class_<mp::ModeDefPlane> plane(m, "ModeDefPlane");
  plane.def(py::init<>());
  array_property(plane, "normal", &mp::ModeDefPlane::normal, "(3,) float32 view");
  array_property(plane, "point", &mp::ModeDefPlane::point, "(3,) float32 view");
  bind_list<mp::ModeDefPlane>(m, "ModeDefPlaneList");
  py::class_<mp::ModeDefConstraint> constraint(m, "ModeDefConstraint");
  constraint.def(py::init<>())
      .def_readwrite("body1", &mp::ModeDefConstraint::body1, "object index as written, -1: a static joint")
      .def_readwrite("body2", &mp::ModeDefConstraint::body2, "object index as written");
  array_property(constraint, "point", &mp::ModeDefConstraint::point, "(3,) float32 view");
  bind_list<mp::ModeDefConstraint>(m, "ModeDefConstraintList");
  py::class_<mp::ModeDefState> state(m, "ModeDefState", "A .state file: settings, objects, planes, constraints");
  state.def(py::init<>())
      .def_readwrite("fps", &mp::ModeDefState::fps)
      .def_readwrite("use_penalty", &mp::ModeDefState::use_penalty)
      .def_readwrite("friction", &mp::ModeDefState::friction)
      .def_readwrite("max_penetration", &mp::ModeDefState::max_penetration)
      .def_readwrite("cluster_factor", &mp::ModeDefState::cluster_factor)
      .def_readwrite("cluster_radius", &mp::ModeDefState::cluster_radius)
      .def_property_readonly("object_count", [](const mp::ModeDefState& s) { return s.objects.size(); })
      .def_property_readonly("plane_count", [](const mp::ModeDefState& s) { return s.planes.size(); });
  member(state, "objects", &mp::ModeDefState::objects);
  member(state, "planes", &mp::ModeDefState::planes);
  member(state, "constraints", &mp::ModeDefState::constraints);
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
  member(data, "paths", &mp::ModeDefData::paths);
  vector_property(data, "object_prop", &mp::ModeDefData::object_prop, 0, "int32 view: per state object, index into props");
  vector_property(data, "object_path", &mp::ModeDefData::object_path, 0, "int32 view: per state object, index into paths, -1 for none");
  vector_property(data, "object_joint", &mp::ModeDefData::object_joint, 0, "int32 view: per state object, its Scene joint");
}

}  // namespace

void bind_format_data(py::module_& m) {
  bind_pie(m);
  bind_iqm_qmsh(m);
  bind_qmsh_tmp(m);
  bind_modedef(m);
}

}  // namespace mpy
