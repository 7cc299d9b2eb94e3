// glTF reader: primitives compressed with KHR_draco_mesh_compression, decoded with the Draco
// library. The extension's bufferView holds a Draco mesh; its `attributes` map glTF attribute
// names to Draco attribute unique ids. Each such accessor (and the indices accessor) gets the
// decoded values in its own componentType (Draco dequantizes; integer data decoded for a float
// accessor is converted, normalized as Draco declares it), tightly packed, while the primitive is
// read: accessor() returns these, so the rest of the reader treats them as any other accessor.
// The accessors keep their count, type, componentType and normalized; a count that is not the
// Draco mesh's point count (triangle corners for the indices) is an error. Their memory is paid
// from the budget before decoding; a point cloud or corrupt data is an error.
#include "formats/gltf_read.h"

#include "ops/components.h"

#include <draco/compression/decode.h>

namespace meshport::gltf::read_impl {

namespace {

std::optional<ComponentType> component_of(draco::DataType t) {
  switch (t) {
    case draco::DT_INT8: return ComponentType::Byte;
    case draco::DT_UINT8: return ComponentType::UByte;
    case draco::DT_INT16: return ComponentType::Short;
    case draco::DT_UINT16: return ComponentType::UShort;
    case draco::DT_UINT32: return ComponentType::UInt;
    case draco::DT_FLOAT32: return ComponentType::Float;
    default: return std::nullopt;
  }
}

const char* draco_type_name(draco::DataType t) {
  static const char* names[] = {"invalid", "int8",   "uint8",   "int16",   "uint16", "int32",
                                "uint32",  "int64",  "uint64",  "float32", "float64", "bool"};
  return size_t(t) < std::size(names) ? names[size_t(t)] : "unknown";
}

// The values of Draco attribute `att` for every point, as accessor `a` stores them.
std::vector<uint8_t> attribute_bytes(Reader& rd, const draco::Mesh& mesh, const draco::PointAttribute& att,
                                     const Accessor& a, const std::string& kp) {
  const uint32_t np = mesh.num_points();
  if (att.num_components() != a.comps || a.columns != 1)
    rd.error(kp, fmt::format("the Draco attribute has {} components, but {} is {}", int(att.num_components()), a.path,
                             a.type_name));
  // Draco's bool, 64-bit and invalid types are no glTF component type; its conversion of bool
  // values would even read bytes other than 0 and 1 as bools (undefined behaviour): refused.
  const draco::DataType t = att.data_type();
  if (t == draco::DT_BOOL || t == draco::DT_INVALID || t == draco::DT_INT64 || t == draco::DT_UINT64 ||
      t == draco::DT_FLOAT64 || t >= draco::DT_TYPES_COUNT)
    rd.error(kp, fmt::format("the Draco attribute holds {} values, which no glTF accessor holds", draco_type_name(t)));
  const auto dt = component_of(t);
  const bool same = dt && *dt == a.type;
  if (!same && a.type != ComponentType::Float)
    rd.error(kp, fmt::format("the Draco attribute holds {} values, but {} is {}", draco_type_name(att.data_type()),
                             a.path, ops::component_name(a.type)));
  if (att.is_mapping_identity() ? att.size() < np : att.indices_map_size() < np)
    rd.error(kp, "the Draco data is corrupt: the attribute has fewer values than the mesh has points");
  const size_t csize = ops::component_size(a.type);
  const size_t esize = size_t(a.comps) * csize;
  std::vector<uint8_t> out(size_t(np) * esize);
  const draco::DataBuffer* buf = att.buffer();
  for (uint32_t p = 0; p < np; ++p) {
    const draco::AttributeValueIndex avi = att.mapped_index(draco::PointIndex(p));
    const size_t src_size = size_t(a.comps) * draco::DataTypeLength(att.data_type());
    const int64_t pos = att.byte_offset() + att.byte_stride() * int64_t(avi.value());
    if (avi.value() >= att.size() || !buf || pos < 0 || uint64_t(pos) + src_size > buf->data_size())
      rd.error(kp, fmt::format("the Draco data is corrupt: point {} has no value", p));
    if (same) {
      std::memcpy(out.data() + p * esize, buf->data() + pos, esize);
    } else {
      float v[4] = {0, 0, 0, 0};
      if (!att.ConvertValue<float>(avi, int8_t(a.comps), v))
        rd.error(kp, fmt::format("the Draco value of point {} cannot be converted to float", p));
      std::memcpy(out.data() + p * esize, v, esize);
    }
  }
  return out;
}

}  // namespace

DracoScope::DracoScope(Reader& r, const json& prim, const std::string& path) : rd(r) {
  const json* exts = field(prim, "extensions");
  const json* e = exts ? field(*exts, "KHR_draco_mesh_compression") : nullptr;
  if (!e) return;
  const std::string ep = path + ".extensions.KHR_draco_mesh_compression";
  if (!e->is_object()) rd.error(ep, fmt::format("is {}, not an object", e->type_name()));
  const uint32_t bv = rd.get_index(*e, "bufferView", ep, "bufferViews");
  const json* ids = field(*e, "attributes");
  if (!ids || !ids->is_object()) rd.error(ep, "has no 'attributes' object");
  const json& attrs = *field(prim, "attributes");  // read_primitive checked it is an object

  // The accessors the Draco data replaces, and their memory, before decoding.
  struct Target {
    std::string key, kp;
    uint32_t accessor = 0, id = 0;
  };
  std::vector<Target> targets;
  u128 need = 0;
  for (auto& [key, val] : ids->items()) {
    const std::string kp = fmt::format("{}.attributes.{}", ep, text::clip(key));
    const auto id = as_uint(val);
    if (!id || *id > UINT32_MAX) rd.error(kp, fmt::format("{} is not a Draco attribute id", describe(val)));
    const json* ai = field(attrs, key.c_str());
    if (!ai)
      rd.error(kp, fmt::format("the primitive has no attribute {}", text::clip(key)));
    const auto idx = as_uint(*ai);
    if (!idx) rd.error(fmt::format("{}.attributes.{}", path, text::clip(key)), fmt::format("{} is not an accessor index", describe(*ai)));
    const Accessor& a = accessor(rd, rd.check_index(*idx, kp, "accessors"));
    need += u128(a.count) * a.element_size;
    targets.push_back({key, kp, uint32_t(*idx), uint32_t(*id)});
  }
  std::optional<uint32_t> ind = rd.opt_index(prim, "indices", path, "accessors");
  if (ind) need += u128(accessor(rd, *ind).count) * accessor(rd, *ind).element_size;
  rd.spend(need * 3, ep, "the decoded Draco mesh");  // the Draco mesh and the accessors' copy

  const View& view_bytes = view(rd, bv);
  const std::string vp = fmt::format("{} (bufferViews[{}])", ep, bv);
  draco::DecoderBuffer in;
  in.Init(reinterpret_cast<const char*>(view_bytes.bytes.data()), view_bytes.bytes.size());
  auto type = draco::Decoder::GetEncodedGeometryType(&in);
  if (!type.ok()) rd.error(vp, fmt::format("is not Draco data: {}", type.status().error_msg_string()));
  if (type.value() != draco::TRIANGULAR_MESH)
    rd.error(vp, type.value() == draco::POINT_CLOUD ? "is a Draco point cloud, not a triangle mesh"
                                                    : "is not a Draco triangle mesh");
  draco::Decoder decoder;
  auto decoded = decoder.DecodeMeshFromBuffer(&in);
  if (!decoded.ok() || !decoded.value())
    rd.error(vp, fmt::format("the Draco data is corrupt: {}", decoded.status().error_msg_string()));
  const draco::Mesh& mesh = *decoded.value();
  const uint32_t np = mesh.num_points();

  for (const Target& t : targets) {
    const draco::PointAttribute* att = mesh.GetAttributeByUniqueId(t.id);
    if (!att) rd.error(t.kp, fmt::format("the Draco mesh has no attribute with id {}", t.id));
    Accessor a = accessor(rd, t.accessor);
    if (a.count != np)
      rd.error(t.kp, fmt::format("{} has {} elements, but the Draco mesh has {} points", a.path, a.count, np));
    data.push_back(attribute_bytes(rd, mesh, *att, a, t.kp));
    a.base = data.back().data();
    a.stride = a.element_size;
    rd.draco_accessors[t.accessor] = std::move(a);
  }

  const uint64_t corners = uint64_t(mesh.num_faces()) * 3;
  if (ind) {
    Accessor a = accessor(rd, *ind);
    const std::string ip = path + ".indices";
    if (a.count != corners)
      rd.error(ip, fmt::format("{} has {} elements, but the Draco mesh has {} triangles ({} indices)", a.path, a.count,
                               mesh.num_faces(), corners));
    if (a.comps != 1 || a.columns != 1 ||
        !(a.type == ComponentType::UByte || a.type == ComponentType::UShort || a.type == ComponentType::UInt))
      rd.error(ip, fmt::format("{} is {} {}, not SCALAR unsigned byte, short or int", a.path, a.type_name,
                               ops::component_name(a.type)));
    const size_t size = ops::component_size(a.type);
    const uint64_t limit = size == 4 ? UINT32_MAX : (uint64_t(1) << (8 * size)) - 1;
    std::vector<uint8_t> out(size_t(corners) * size);
    for (uint32_t f = 0; f < mesh.num_faces(); ++f)
      for (int k = 0; k < 3; ++k) {
        const uint32_t v = mesh.face(draco::FaceIndex(f))[k].value();
        if (v > limit)
          rd.error(ip, fmt::format("Draco index {} does not fit {}'s {}", v, a.path, ops::component_name(a.type)));
        std::memcpy(out.data() + (size_t(f) * 3 + size_t(k)) * size, &v, size);  // little-endian
      }
    data.push_back(std::move(out));
    a.base = data.back().data();
    a.stride = a.element_size;
    rd.draco_accessors[*ind] = std::move(a);
  } else {
    // No indices accessor: the vertices are in triangle order, which the Draco faces must be.
    for (uint32_t f = 0; f < mesh.num_faces(); ++f)
      for (uint32_t k = 0; k < 3; ++k)
        if (mesh.face(draco::FaceIndex(f))[k].value() != f * 3 + k)
          rd.error(ep, "the primitive has no indices, but the Draco mesh's triangles are not its points in order");
  }
}

}  // namespace meshport::gltf::read_impl
