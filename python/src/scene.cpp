// The Scene and its parts as Python objects (docs/python.md, "The Scene"): items of the Scene's
// lists are references into it, and its arrays numpy views of its memory (bindings.h).
#include "bindings.h"

#include <type_traits>

namespace mpy {
namespace mp = meshport;

namespace {

static_assert(sizeof(mp::Transform) == 10 * sizeof(float) && std::is_standard_layout_v<mp::Transform>,
              "Animation.poses is viewed as 10 floats per pose");

template <class T>
std::string repr_name(const char* type, const T& item) {
  return std::string("<meshport.") + type + " '" + item.name + "'>";
}

void bind_enums(py::module_& m) {
  py::enum_<mp::Attribute>(m, "Attribute", "What a VertexStream holds")
      .value("POSITION", mp::Attribute::Position)
      .value("TEXCOORD", mp::Attribute::Texcoord)
      .value("NORMAL", mp::Attribute::Normal)
      .value("TANGENT", mp::Attribute::Tangent)
      .value("BLEND_INDICES", mp::Attribute::BlendIndices)
      .value("BLEND_WEIGHTS", mp::Attribute::BlendWeights)
      .value("COLOR", mp::Attribute::Color)
      .value("CUSTOM", mp::Attribute::Custom);
  py::enum_<mp::ComponentType>(m, "ComponentType", "The component format a stream's source declared")
      .value("BYTE", mp::ComponentType::Byte)
      .value("UBYTE", mp::ComponentType::UByte)
      .value("SHORT", mp::ComponentType::Short)
      .value("USHORT", mp::ComponentType::UShort)
      .value("INT", mp::ComponentType::Int)
      .value("UINT", mp::ComponentType::UInt)
      .value("HALF", mp::ComponentType::Half)
      .value("FLOAT", mp::ComponentType::Float)
      .value("DOUBLE", mp::ComponentType::Double);
  py::enum_<mp::Topology>(m, "Topology")
      .value("TRIANGLES", mp::Topology::Triangles)
      .value("LINES", mp::Topology::Lines)
      .value("POINTS", mp::Topology::Points);
  py::enum_<mp::AlphaMode>(m, "AlphaMode")
      .value("OPAQUE", mp::AlphaMode::Opaque)
      .value("MASK", mp::AlphaMode::Mask)
      .value("BLEND", mp::AlphaMode::Blend);
  py::enum_<mp::BlendOp>(m, "BlendOp")
      .value("OVER", mp::BlendOp::Over)
      .value("ADDITIVE", mp::BlendOp::Additive)
      .value("PREMULTIPLIED", mp::BlendOp::Premultiplied);
  py::enum_<mp::Interpolation>(m, "Interpolation")
      .value("LINEAR", mp::Interpolation::Linear)
      .value("STEP", mp::Interpolation::Step);
}

void bind_transform(py::module_& m) {
  py::class_<mp::Transform> t(m, "Transform", "Translation, rotation (quaternion x y z w) and scale");
  t.def(py::init<>());
  array_property(t, "translation", &mp::Transform::translation, "(3,) float32 view");
  array_property(t, "rotation", &mp::Transform::rotation, "(4,) float32 view, x y z w");
  array_property(t, "scale", &mp::Transform::scale, "(3,) float32 view");
  t.def(py::self == py::self);
  t.def("__repr__", [](const mp::Transform& x) {
    return py::str("<meshport.Transform t={} r={} s={}>")
        .format(py::make_tuple(x.translation[0], x.translation[1], x.translation[2]),
                py::make_tuple(x.rotation[0], x.rotation[1], x.rotation[2], x.rotation[3]),
                py::make_tuple(x.scale[0], x.scale[1], x.scale[2]));
  });
}

void bind_mesh(py::module_& m) {
  py::class_<mp::VertexStream> s(m, "VertexStream", "One per-vertex attribute array");
  s.def(py::init<>())
      .def_readwrite("attribute", &mp::VertexStream::attribute)
      .def_readwrite("name", &mp::VertexStream::name)
      .def_readwrite("custom_slot", &mp::VertexStream::custom_slot)
      .def_readwrite("format", &mp::VertexStream::format)
      .def_readwrite("source_size", &mp::VertexStream::source_size)
      .def_readwrite("components", &mp::VertexStream::components)
      .def_property_readonly("vertex_count", &mp::VertexStream::vertex_count)
      .def_property(
          "data",
          [](py::object self) {
            mp::VertexStream& v = self.cast<mp::VertexStream&>();
            return vector_view(v.data, std::max<uint32_t>(v.components, 1), self);
          },
          [](py::object self, const input_array<float>& a) {
            mp::VertexStream& v = self.cast<mp::VertexStream&>();
            if (a.ndim() != 2) throw py::value_error("VertexStream.data: expected an (n, components) array");
            v.components = uint32_t(a.shape(1));
            assign(v.data, a, v.components, "VertexStream.data");
          },
          "(vertices, components) float32 view of the Scene's memory; assigning copies in and sets components")
      .def_property_readonly("is_format_stream", [](const mp::VertexStream& v) { return mp::is_format_stream(v); })
      .def("__repr__", [](const mp::VertexStream& v) {
        return "<meshport.VertexStream " + std::string(mp::attribute_name(v.attribute)) +
               (v.name.empty() ? "" : " '" + v.name + "'") + " " + std::to_string(v.vertex_count()) + "x" +
               std::to_string(v.components) + ">";
      });
  bind_list<mp::VertexStream>(m, "VertexStreamList");

  py::class_<mp::MorphTarget> mt(m, "MorphTarget");
  mt.def(py::init<>()).def_readwrite("name", &mp::MorphTarget::name);
  vector_property(mt, "positions", &mp::MorphTarget::positions, 3, "(vertices, 3) float32 view");
  vector_property(mt, "normals", &mp::MorphTarget::normals, 3, "(vertices, 3) float32 view, or empty");
  vector_property(mt, "tangents", &mp::MorphTarget::tangents, 3, "(vertices, 3) float32 view, or empty");
  bind_list<mp::MorphTarget>(m, "MorphTargetList");

  py::class_<mp::FaceChannel> fc(m, "FaceChannel", "Per-triangle data a format keeps (\"pie.flags\")");
  fc.def(py::init<>())
      .def_readwrite("name", &mp::FaceChannel::name)
      .def_readwrite("components", &mp::FaceChannel::components)
      .def_property(
          "data",
          [](py::object self) {
            mp::FaceChannel& c = self.cast<mp::FaceChannel&>();
            return vector_view(c.data, std::max<uint32_t>(c.components, 1), self);
          },
          [](py::object self, const input_array<uint32_t>& a) {
            mp::FaceChannel& c = self.cast<mp::FaceChannel&>();
            assign(c.data, a, c.components, "FaceChannel.data");
          },
          "(triangles, components) uint32 view");
  bind_list<mp::FaceChannel>(m, "FaceChannelList");

  py::class_<mp::Mesh> mesh(m, "Mesh");
  mesh.def(py::init<>())
      .def_readwrite("name", &mp::Mesh::name)
      .def_readwrite("material", &mp::Mesh::material, "index into Scene.materials, -1 for none")
      .def_readwrite("topology", &mp::Mesh::topology)
      .def_readwrite("lod", &mp::Mesh::lod)
      .def_readwrite("lod_of", &mp::Mesh::lod_of)
      .def_readwrite("name_made_up", &mp::Mesh::name_made_up)
      .def_property_readonly("vertex_count", &mp::Mesh::vertex_count)
      .def_property_readonly("face_count", &mp::Mesh::face_count)
      .def_property(
          "triangles",
          [](py::object self) {
            mp::Mesh& x = self.cast<mp::Mesh&>();
            return vector_view(x.triangles, mp::topology_size(x.topology), self);
          },
          [](py::object self, const input_array<uint32_t>& a) {
            mp::Mesh& x = self.cast<mp::Mesh&>();
            assign(x.triangles, a, mp::topology_size(x.topology), "Mesh.triangles");
            x.polygon_sizes.clear();
          },
          "(triangles, 3) uint32 view (2 per line, 1 per point); assigning copies in and clears polygon_sizes");
  vector_property(mesh, "polygon_sizes", &mp::Mesh::polygon_sizes, 0, "corner count per source polygon, or empty");
  vector_property(mesh, "morph_weights", &mp::Mesh::morph_weights, 0, "default weight per morph target");
  mesh.def(
          "stream",
          [](py::object self, mp::Attribute a) -> py::object {
            mp::VertexStream* s = self.cast<mp::Mesh&>().find(a);
            if (!s) return py::none();
            return py::cast(s, py::return_value_policy::reference_internal, self);
          },
          py::arg("attribute"), "The first stream of that attribute, or None")
      .def(
          "__getitem__",
          [](py::object self, const std::string& name) -> py::object {
            for (mp::VertexStream& s : self.cast<mp::Mesh&>().streams)
              if ((s.attribute != mp::Attribute::Custom && name == mp::attribute_name(s.attribute)) ||
                  (s.attribute == mp::Attribute::Custom && name == s.name))
                return vector_view(s.data, std::max<uint32_t>(s.components, 1), py::cast(&s, py::return_value_policy::reference_internal, self));
            throw py::key_error(name);
          },
          py::arg("attribute"), "The data view of the stream named so (\"position\", a custom stream's name)")
      .def("__repr__", [](const mp::Mesh& x) {
        return "<meshport.Mesh '" + x.name + "' " + std::to_string(x.vertex_count()) + " vertices, " +
               std::to_string(x.triangles.size() / mp::topology_size(x.topology)) + " triangles>";
      });
  member(mesh, "streams", &mp::Mesh::streams, "the vertex streams (references into the Scene)");
  member(mesh, "morph_targets", &mp::Mesh::morph_targets);
  member(mesh, "face_channels", &mp::Mesh::face_channels);
  bind_list<mp::Mesh>(m, "MeshList");
}

void bind_material(py::module_& m) {
  py::class_<mp::TextureTransform> tt(m, "TextureTransform");
  tt.def(py::init<>()).def_readwrite("rotation", &mp::TextureTransform::rotation)
      .def_readwrite("texcoord", &mp::TextureTransform::texcoord)
      .def_property_readonly("is_identity", &mp::TextureTransform::is_identity);
  array_property(tt, "offset", &mp::TextureTransform::offset, "(2,) float32 view");
  array_property(tt, "scale", &mp::TextureTransform::scale, "(2,) float32 view");
  py::class_<mp::TextureSlot>(m, "TextureSlot")
      .def(py::init<>())
      .def_readwrite("texture", &mp::TextureSlot::texture)
      .def_readwrite("texcoord", &mp::TextureSlot::texcoord)
      .def_readwrite("transform", &mp::TextureSlot::transform);

  py::class_<mp::Material> mat(m, "Material");
  mat.def(py::init<>())
      .def_readwrite("name", &mp::Material::name)
      .def_readwrite("base_color_texture", &mp::Material::base_color_texture)
      .def_readwrite("normal_texture", &mp::Material::normal_texture)
      .def_readwrite("specular_texture", &mp::Material::specular_texture)
      .def_readwrite("team_colour_texture", &mp::Material::team_colour_texture)
      .def_readwrite("metallic", &mp::Material::metallic)
      .def_readwrite("roughness", &mp::Material::roughness)
      .def_readwrite("base_color_texcoord", &mp::Material::base_color_texcoord)
      .def_readwrite("normal_texcoord", &mp::Material::normal_texcoord)
      .def_readwrite("specular_texcoord", &mp::Material::specular_texcoord)
      .def_readwrite("base_color_transform", &mp::Material::base_color_transform)
      .def_readwrite("normal_transform", &mp::Material::normal_transform)
      .def_readwrite("specular_transform", &mp::Material::specular_transform)
      .def_readwrite("alpha_mode", &mp::Material::alpha_mode)
      .def_readwrite("alpha_cutoff", &mp::Material::alpha_cutoff)
      .def_readwrite("blend", &mp::Material::blend)
      .def_readwrite("metallic_roughness_texture", &mp::Material::metallic_roughness_texture)
      .def_readwrite("occlusion_texture", &mp::Material::occlusion_texture)
      .def_readwrite("emissive_texture", &mp::Material::emissive_texture)
      .def_readwrite("normal_scale", &mp::Material::normal_scale)
      .def_readwrite("occlusion_strength", &mp::Material::occlusion_strength)
      .def_readwrite("double_sided", &mp::Material::double_sided)
      .def_readwrite("gltf_extensions", &mp::Material::gltf_extensions)
      .def_readwrite("extension_textures", &mp::Material::extension_textures)
      .def_readwrite("gltf_extras", &mp::Material::gltf_extras)
      .def_readwrite("name_made_up", &mp::Material::name_made_up)
      .def("__repr__", [](const mp::Material& x) { return repr_name("Material", x); });
  array_property(mat, "base_color", &mp::Material::base_color, "(4,) float32 view, linear RGBA");
  array_property(mat, "emissive", &mp::Material::emissive, "(3,) float32 view, linear RGB");
  bind_list<mp::Material>(m, "MaterialList");

  py::class_<mp::Image> img(m, "Image", "An image carried in the Scene (PNG or JPEG bytes)");
  img.def(py::init<>())
      .def_readwrite("path", &mp::Image::path)
      .def_readwrite("mime_type", &mp::Image::mime_type);
  vector_property(img, "data", &mp::Image::data, 0, "uint8 view of the stored bytes");
  bind_list<mp::Image>(m, "ImageList");
}

void bind_skeleton(py::module_& m) {
  py::class_<mp::Joint>(m, "Joint")
      .def(py::init<>())
      .def_readwrite("name", &mp::Joint::name)
      .def_readwrite("parent", &mp::Joint::parent, "index into Scene.joints, -1 for a root")
      .def_readwrite("rest", &mp::Joint::rest, "relative to the parent")
      .def_readwrite("name_made_up", &mp::Joint::name_made_up)
      .def("__repr__", [](const mp::Joint& x) { return repr_name("Joint", x); });
  bind_list<mp::Joint>(m, "JointList");

  py::class_<mp::MorphWeightTrack> mw(m, "MorphWeightTrack");
  mw.def(py::init<>()).def_readwrite("mesh", &mp::MorphWeightTrack::mesh);
  vector_property(mw, "times", &mp::MorphWeightTrack::times, 0, "key times in seconds");
  mw.def_property_readonly("weights", [](py::object self) {
    mp::MorphWeightTrack& t = self.cast<mp::MorphWeightTrack&>();
    const size_t keys = t.times.size();
    const size_t targets = keys ? t.weights.size() / keys : 0;
    return vector_view(t.weights, targets, self);
  }, "(keys, targets) float32 view");

  py::class_<mp::Animation> an(m, "Animation");
  an.def(py::init<>())
      .def_readwrite("name", &mp::Animation::name)
      .def_readwrite("framerate", &mp::Animation::framerate)
      .def_readwrite("loop", &mp::Animation::loop)
      .def_readwrite("channels", &mp::Animation::channels)
      .def_readwrite("morph_weights", &mp::Animation::morph_weights)
      .def_readwrite("interpolation", &mp::Animation::interpolation)
      .def_readwrite("name_made_up", &mp::Animation::name_made_up)
      .def_property_readonly("frame_count", &mp::Animation::frame_count)
      .def_property(
          "poses",
          [](py::object self) {
            mp::Animation& a = self.cast<mp::Animation&>();
            float* p = a.poses.empty() ? nullptr : a.poses[0].translation.data();
            return view(p, {py::ssize_t(a.frame_count()), py::ssize_t(a.channels), 10}, self);
          },
          [](py::object self, const input_array<float>& in) {
            mp::Animation& a = self.cast<mp::Animation&>();
            if (in.ndim() != 3 || in.shape(2) != 10)
              throw py::value_error("Animation.poses: expected a (frames, channels, 10) array");
            retire(a.poses);
            a.channels = uint32_t(in.shape(1));
            a.poses.resize(size_t(in.shape(0) * in.shape(1)));
            if (!a.poses.empty()) std::memcpy(a.poses[0].translation.data(), in.data(), size_t(in.size()) * sizeof(float));
          },
          "(frames, channels, 10) float32 view: translation [0:3], rotation x y z w [3:7], scale [7:10]")
      .def("__repr__", [](const mp::Animation& x) {
        return "<meshport.Animation '" + x.name + "' " + std::to_string(x.frame_count()) + " frames>";
      });
  vector_property(an, "times", &mp::Animation::times, 0, "key times in seconds, or empty (evenly spaced)");
  bind_list<mp::Animation>(m, "AnimationList");

  py::class_<mp::Attachment>(m, "Attachment")
      .def(py::init<>())
      .def_readwrite("name", &mp::Attachment::name)
      .def_readwrite("mesh", &mp::Attachment::mesh)
      .def_readwrite("joint", &mp::Attachment::joint)
      .def_readwrite("transform", &mp::Attachment::transform)
      .def_readwrite("name_made_up", &mp::Attachment::name_made_up)
      .def("__repr__", [](const mp::Attachment& x) { return repr_name("Attachment", x); });
  bind_list<mp::Attachment>(m, "AttachmentList");
}

// A format's side data: None when absent; the object is a reference into the Scene.
template <class T>
void optional_property(py::class_<mp::Scene>& cls, const char* name, std::optional<T> mp::Scene::*pm, const char* doc) {
  cls.def_property(
      name,
      [pm](py::object self) -> py::object {
        std::optional<T>& o = self.cast<mp::Scene&>().*pm;
        if (!o) return py::none();
        return py::cast(&*o, py::return_value_policy::reference_internal, self);
      },
      [pm, name](py::object self, std::optional<T> v) {
        mp::Scene& s = self.cast<mp::Scene&>();
        refuse_if_referenced(span_of(s.*pm), std::string("Scene.") + name, self);
        s.*pm = std::move(v);
      },
      doc);
}

void bind_scene_class(py::module_& m) {
  py::class_<mp::Scene> s(m, "Scene",
                          "The canonical Scene every format reads into (glTF conventions: +Y up, metres, "
                          "counter-clockwise). Lists hold references into it, arrays are numpy views of it.");
  s.def(py::init<>())
      .def_readwrite("comment", &mp::Scene::comment)
      .def_readwrite("material_variants", &mp::Scene::material_variants)
      .def("copy", [](const mp::Scene& x) { return mp::Scene(x); }, "A deep copy")
      .def("__copy__", [](const mp::Scene& x) { return mp::Scene(x); })
      .def("__deepcopy__", [](const mp::Scene& x, py::dict) { return mp::Scene(x); })
      .def(py::self == py::self)
      .def("__repr__", [](const mp::Scene& x) {
        return "<meshport.Scene " + std::to_string(x.meshes.size()) + " meshes, " +
               std::to_string(x.materials.size()) + " materials, " + std::to_string(x.joints.size()) + " joints, " +
               std::to_string(x.animations.size()) + " animations>";
      });
  member(s, "meshes", &mp::Scene::meshes);
  member(s, "materials", &mp::Scene::materials);
  member(s, "images", &mp::Scene::images);
  member(s, "joints", &mp::Scene::joints);
  member(s, "animations", &mp::Scene::animations);
  member(s, "attachments", &mp::Scene::attachments);
  optional_property(s, "iqm", &mp::Scene::iqm, "IQM side data (IqmData) or None");
  optional_property(s, "pie", &mp::Scene::pie, "PIE side data (PieData) or None");
  optional_property(s, "qmsh_tmp", &mp::Scene::qmsh_tmp, "QMSH.TMP side data (QmshTmpData) or None");
  optional_property(s, "qmsh", &mp::Scene::qmsh, "binary QMSH side data (QmshBinaryData) or None");
  optional_property(s, "modedef", &mp::Scene::modedef, "ModeDef side data (ModeDefData) or None");
}

}  // namespace

ViewBase::ViewBase(py::object o, const void* d) : owner(std::move(o)), data(d) {
  if (data) live_views().emplace(data, this);
}

ViewBase::~ViewBase() {
  if (!data) return;
  auto [lo, hi] = live_views().equal_range(data);
  for (auto it = lo; it != hi; ++it)
    if (it->second == this) {
      live_views().erase(it);
      break;
    }
}

std::unordered_multimap<const void*, ViewBase*>& live_views() {
  static auto* views = new std::unordered_multimap<const void*, ViewBase*>();  // never freed: used at exit
  return *views;
}

size_t references_into(span s, py::handle self) {
  if (s.first == s.second) return 0;
  size_t n = 0;
  for (const auto& [p, inst] : py::detail::get_internals().registered_instances)
    if (std::less_equal<>()(s.first, p) && std::less<>()(p, s.second) && reinterpret_cast<PyObject*>(inst) != self.ptr())
      ++n;
  return n;
}

void refuse_if_referenced(span s, const std::string& what, py::handle self) {
  if (size_t n = references_into(s, self))
    throw py::buffer_error(what + ": refused, " + std::to_string(n) +
                           " Python references into its items are alive (items, their members, views of their "
                           "arrays; docs/python.md, \"Views and lifetime\"): release them (del) first");
}

void bind_scene(py::module_& m) {
  py::class_<ViewBase>(m, "_ViewBase", "The base of a numpy view: holds the object it came from (docs/python.md)")
      .def_property_readonly("owner", [](const ViewBase& b) { return b.owner; });
  bind_enums(m);
  bind_transform(m);
  bind_mesh(m);
  bind_material(m);
  bind_skeleton(m);
  bind_format_data(m);
  bind_scene_class(m);
}

}  // namespace mpy
