// glTF reader: primitives compressed with KHR_draco_mesh_compression, decoded with the Draco
// library. The extension's bufferView holds a Draco mesh; its `attributes` map glTF attribute
// names to Draco attribute unique ids. Each such accessor (and the indices accessor) gets the
// decoded values in its own componentType (Draco dequantizes; integer data decoded for a float
// accessor is converted, normalized as Draco declares it), tightly packed, while the primitive is
// read: accessor() returns these, so the rest of the reader treats them as any other accessor.
// The accessors keep their count, type, componentType and normalized; a count that is not the
// Draco mesh's point count (triangle corners for the indices) is an error. A point cloud or
// corrupt data is an error.
//
// Memory: libdraco sizes its buffers from the counts in the stream's own header before it reads
// what they count, so those counts are read here first (draco_counts: the Draco bitstream
// specification's header, metadata and connectivity header, versions 1.0 to 2.2) and checked:
// the triangles and points must be what the accessors say, and at most kDracoPerByte per byte of
// the Draco data (plus kDracoSlack): no real encoder comes near (Edgebreaker's connectivity
// alone takes 1 to 2 bits per triangle, the positions more), so a damaged 1 KB stream cannot
// claim 60 million triangles. What the decoder will then allocate (draco_memory) is checked
// against the budget, as is the accessors' copy.
#include "formats/gltf/gltf_read.h"

#include "ops/mesh/components.h"

#include <draco/compression/decode.h>

#include <cstring>
#include <variant>

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

// At most this many triangles, and points, per byte of Draco data (plus kDracoSlack): 1/4 bit each.
constexpr uint64_t kDracoPerByte = 32;
constexpr uint64_t kDracoSlack = 4096;
// At most this many attribute connectivity sets (Edgebreaker): an encoder writes one per
// attribute other than the positions, and a glTF primitive has far fewer.
constexpr uint32_t kDracoMaxAttributeData = 16;
// Metadata nested deeper than this is refused (libdraco decodes it recursively).
constexpr int kDracoMaxMetadataDepth = 32;

// The counts of a Draco mesh header (the Draco bitstream specification).
struct DracoCounts {
  uint8_t major = 0, minor = 0;
  uint8_t type = 0;         // 0 point cloud, 1 triangle mesh
  uint8_t method = 0;       // 0 sequential, 1 Edgebreaker
  uint64_t faces = 0;
  uint64_t points = 0;      // sequential: num_points; Edgebreaker: encoded vertices + split symbols (+ new vertices)
  uint32_t attribute_data = 0;  // Edgebreaker: attribute connectivity sets
};

// Reads the header bytes in order; any read past the end, or a varint of more than 32 bits, is
// an error (std::nullopt from read()).
class DracoHeader {
 public:
  explicit DracoHeader(std::span<const uint8_t> b) : b_(b) {}

  // The counts, or the reason they cannot be read.
  std::variant<DracoCounts, std::string> read() {
    DracoCounts c;
    if (b_.size() < 5 || std::memcmp(b_.data(), "DRACO", 5) != 0) return std::string("is not Draco data");
    pos_ = 5;
    uint16_t flags = 0;
    if (!u8(c.major) || !u8(c.minor) || !u8(c.type) || !u8(c.method) || !u16(flags))
      return std::string("the Draco header is truncated");
    if (c.type != 1)
      return std::string(c.type == 0 ? "is a Draco point cloud, not a triangle mesh" : "is not a Draco triangle mesh");
    if (c.major < 1 || c.major > 2 || (c.major == 2 && c.minor > 2))
      return fmt::format("Draco version {}.{} is not read (1.0 to 2.2)", c.major, c.minor);
    const uint32_t version = uint32_t(c.major) << 8 | c.minor;
    if (version >= 0x0103 && (flags & 0x8000) && !metadata())
      return fmt::format("the Draco metadata is corrupt (at byte {})", pos_);
    // A count: 32 bits before version 2.0, a varint after.
    auto count = [&](uint64_t& v) {
      uint32_t x = 0;
      if (version < 0x0200 ? !u32(x) : !varint(x)) return false;
      v = x;
      return true;
    };
    if (c.method == 1) {
      uint8_t traversal = 0;
      uint64_t new_vertices = 0, vertices = 0, symbols = 0, splits = 0;
      uint8_t attribute_data = 0;
      if (!u8(traversal) || (version < 0x0202 && !count(new_vertices)) || !count(vertices) || !count(c.faces) ||
          !u8(attribute_data) || !count(symbols) || !count(splits))
        return std::string("the Draco connectivity header is truncated");
      c.points = new_vertices + vertices + splits;
      c.attribute_data = attribute_data;
      if (symbols > c.faces)
        return fmt::format("the Draco data is corrupt: {} Edgebreaker symbols for {} triangles", symbols, c.faces);
    } else if (c.method == 0) {
      uint32_t f = 0, p = 0;
      if (version < 0x0202 ? !(u32(f) && u32(p)) : !(varint(f) && varint(p)))
        return std::string("the Draco connectivity header is truncated");
      c.faces = f, c.points = p;
    } else {
      return fmt::format("Draco encoding method {} is not sequential (0) or Edgebreaker (1)", c.method);
    }
    return c;
  }

 private:
  bool u8(uint8_t& v) {
    if (pos_ >= b_.size()) return false;
    v = b_[pos_++];
    return true;
  }
  bool u16(uint16_t& v) {
    if (b_.size() - pos_ < 2) return false;
    v = uint16_t(b_[pos_] | b_[pos_ + 1] << 8);
    pos_ += 2;
    return true;
  }
  bool u32(uint32_t& v) {
    if (b_.size() - pos_ < 4) return false;
    v = le32(b_.data() + pos_);
    pos_ += 4;
    return true;
  }
  bool varint(uint32_t& v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      uint8_t byte = 0;
      if (!u8(byte)) return false;
      x |= uint64_t(byte & 0x7F) << shift;
      if (!(byte & 0x80)) {
        if (x > UINT32_MAX) return false;
        v = uint32_t(x);
        return true;
      }
    }
    return false;
  }
  bool skip(uint64_t n) {
    if (n > b_.size() - pos_) return false;
    pos_ += size_t(n);
    return true;
  }
  bool name() {
    uint8_t n = 0;
    return u8(n) && skip(n);
  }
  // Geometry metadata: per attribute (id, metadata), then the geometry's own. Every entry's
  // value must be in the data (libdraco allocates its size first).
  bool metadata() {
    uint32_t atts = 0, id = 0;
    if (!varint(atts)) return false;
    for (uint32_t i = 0; i < atts; ++i)
      if (!varint(id) || !one_metadata()) return false;
    return one_metadata();
  }
  // Entries (name, size, value), then named sub-metadata: a loop over an explicit stack.
  bool one_metadata() {
    std::vector<uint32_t> subs_left;  // per open level: sub-metadata still to read
    for (;;) {
      uint32_t entries = 0, subs = 0, size = 0;
      if (!varint(entries)) return false;
      for (uint32_t e = 0; e < entries; ++e)
        if (!name() || !varint(size) || size == 0 || !skip(size)) return false;
      if (!varint(subs)) return false;
      subs_left.push_back(subs);
      while (!subs_left.empty() && subs_left.back() == 0) subs_left.pop_back();
      if (subs_left.empty()) return true;
      if (int(subs_left.size()) > kDracoMaxMetadataDepth) return false;
      --subs_left.back();
      if (!name()) return false;
    }
  }

  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

// What libdraco allocates to decode a mesh of these counts, at most (its corner table, the
// attribute connectivity sets, the points' attribute values in portable and final form), and
// what the accessors' copy adds (`element_bytes`: the elements of the attributes read, per point).
u128 draco_memory(const DracoCounts& c, uint64_t element_bytes) {
  return u128(c.faces) * (96 + 48 * u128(c.attribute_data)) + u128(c.points) * (48 + 4 * u128(element_bytes));
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

  // The header's counts, before libdraco allocates from them.
  const View& view_bytes = view(rd, bv);
  const std::string vp = fmt::format("{} (bufferViews[{}])", ep, bv);
  draco::DecoderBuffer in;
  in.Init(reinterpret_cast<const char*>(view_bytes.bytes.data()), view_bytes.bytes.size());
  auto type = draco::Decoder::GetEncodedGeometryType(&in);
  if (!type.ok()) rd.error(vp, fmt::format("is not Draco data: {}", type.status().error_msg_string()));
  if (type.value() != draco::TRIANGULAR_MESH)
    rd.error(vp, type.value() == draco::POINT_CLOUD ? "is a Draco point cloud, not a triangle mesh"
                                                    : "is not a Draco triangle mesh");
  auto header = DracoHeader(view_bytes.bytes).read();
  if (auto* why = std::get_if<std::string>(&header)) rd.error(vp, *why);
  const DracoCounts& counts = std::get<DracoCounts>(header);
  const uint64_t size = view_bytes.bytes.size();
  const u128 most = u128(size) * kDracoPerByte + kDracoSlack;
  const char* method = counts.method == 1 ? "Edgebreaker" : "sequential";
  for (auto [n, what] : {std::pair{counts.faces, "triangles"}, std::pair{counts.points, "points"}})
    if (n > most)
      rd.error(vp, fmt::format("the Draco data is corrupt: its {} header claims {} {}, more than its {} bytes can "
                               "encode (at most {} per byte, plus {})",
                               method, n, what, size, kDracoPerByte, kDracoSlack));
  if (counts.attribute_data > kDracoMaxAttributeData)
    rd.error(vp, fmt::format("the Draco data is corrupt: its header claims {} attribute connectivity sets (at most {})",
                             counts.attribute_data, kDracoMaxAttributeData));
  if (ind && u128(accessor(rd, *ind).count) != u128(counts.faces) * 3)
    rd.error(path + ".indices", fmt::format("{} has {} elements, but the Draco mesh has {} triangles ({} indices)",
                                            accessor(rd, *ind).path, accessor(rd, *ind).count, counts.faces,
                                            text::u128_string(u128(counts.faces) * 3)));
  uint64_t element_bytes = 0;
  for (const Target& t : targets) element_bytes += accessor(rd, t.accessor).element_size;
  // The decoder's buffers and the accessors' copy, freed when the primitive is read.
  rd.check_temporary(draco_memory(counts, element_bytes) + need, ep,
                     fmt::format("decoding the Draco mesh ({} triangles, {} points)", counts.faces, counts.points));

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
