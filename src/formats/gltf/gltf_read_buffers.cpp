// glTF reader: buffers (GLB BIN chunk, base64 data URIs, files beside the model), buffer views and
// accessors (sparse ones too), each range-checked and read within the memory budget.
#include "formats/gltf/gltf_read.h"

#include "ops/mesh/components.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>

namespace meshport::gltf::read_impl {

// ---------------------------------------------------------------------------------------------
// URIs

namespace {

bool has_scheme(std::string_view u) {
  // RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" before any '/', '?' or '#'. A
  // single letter followed by ':' is taken as a scheme too (a drive letter is absolute anyway).
  for (size_t i = 0; i < u.size(); ++i) {
    char c = u[i];
    if (c == ':') return i > 0;
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) return false;
  }
  return false;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_decode(std::string_view u) {
  std::string out;
  out.reserve(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    if (u[i] == '%' && i + 2 < u.size()) {
      int h = hex_value(u[i + 1]), l = hex_value(u[i + 2]);
      if (h >= 0 && l >= 0) {
        out += char(h * 16 + l);
        i += 2;
        continue;
      }
    }
    out += u[i];
  }
  return out;
}

namespace {

std::optional<ComponentType> component_type(uint64_t gl) {
  switch (gl) {
    case 5120: return ComponentType::Byte;
    case 5121: return ComponentType::UByte;
    case 5122: return ComponentType::Short;
    case 5123: return ComponentType::UShort;
    case 5125: return ComponentType::UInt;
    case 5126: return ComponentType::Float;
    default: return std::nullopt;
  }
}

uint32_t read_uint(ComponentType t, const uint8_t* p) {
  switch (t) {
    case ComponentType::UByte: return p[0];
    case ComponentType::UShort: return uint32_t(p[0]) | uint32_t(p[1]) << 8;
    default: return le32(p);
  }
}

void decode_element(const Accessor& a, const uint8_t* src, float* dst) {
  if (a.columns == 1) {
    ops::decode(a.type, a.normalized, src, a.comps, dst);
    return;
  }
  for (uint32_t c = 0; c < a.columns; ++c)
    ops::decode(a.type, a.normalized, src + size_t(c) * a.column_stride, a.rows, dst + size_t(c) * a.rows);
}

// Reads an accessor as `width` values of T per element: the base data (or zeros), then the
// sparse substitutions. `decode(src, dst)` decodes one element.
template <class T, class Decode>
std::vector<T> read(Reader& rd, const Accessor& a, Decode&& decode, uint32_t width) {
  // Without a bufferView the elements are zeros the input does not hold.
  const u128 bytes = u128(a.count) * width * sizeof(T);
  const std::string what = fmt::format("{} elements of {}", a.count, a.type_name);
  if (a.base)
    rd.spend(bytes, a.path, what);
  else
    rd.spend_proportional(bytes, a.path, what + " (no bufferView: zeros)");
  std::vector<T> out(size_t(a.count) * width, T(0));
  if (a.base)
    for (size_t i = 0; i < a.count; ++i) decode(a.base + i * a.stride, out.data() + i * width);
  if (a.sparse) {
    const size_t isz = ops::component_size(a.sparse->index_type);
    for (size_t k = 0; k < a.sparse->count; ++k) {
      uint32_t target = read_uint(a.sparse->index_type, a.sparse->indices + k * isz);
      if (target >= a.count)
        rd.error(a.path + ".sparse.indices",
                 fmt::format("index {} (entry {}) is not below the accessor's count ({})", target, k, a.count));
      decode(a.sparse->values + k * a.element_size, out.data() + size_t(target) * width);
    }
  }
  return out;
}

}  // namespace

// ---- Buffers, views, accessors ---------------------------------------------------------------

std::span<const uint8_t> buffer(Reader& rd, uint32_t i) {
  BufferSlot& slot = rd.buffers[i];
  if (slot.loaded) return slot.bytes;
  const std::string path = fmt::format("buffers[{}]", i);
  const json& b = rd.element("buffers", i);
  uint64_t len = rd.get_uint(b, "byteLength", path, std::nullopt);
  const json* uri = field(b, "uri");
  if (!uri) {
    if (meshopt_fallback(b) && (i != 0 || !rd.glb))
      rd.error(path, "is a meshopt fallback buffer (it has no data): only compressed buffer views may refer to it");
    if (i != 0 || !rd.glb)
      rd.error(path, "has no uri (only buffer 0 of a .glb may omit it, to refer to the BIN chunk)");
    if (!rd.has_bin) rd.error(path, "refers to the GLB BIN chunk, but the file has none");
    if (len > rd.bin.size())
      rd.error(path + ".byteLength", fmt::format("{} bytes, but the BIN chunk has {}", len, rd.bin.size()));
    slot.bytes = rd.bin.first(len);
  } else {
    if (!uri->is_string()) rd.error(path + ".uri", fmt::format("{} is not a string", describe(*uri)));
    const std::string& u = uri->get_ref<const std::string&>();
    if (u.compare(0, 5, "data:") == 0) {
      size_t comma = u.find(',');
      std::string_view header = std::string_view(u).substr(5, comma == std::string::npos ? 0 : comma - 5);
      if (comma == std::string::npos || header.size() < 7 || header.substr(header.size() - 7) != ";base64")
        rd.error(path + ".uri", "only base64 data URIs are read");
      rd.spend(u128(u.size() - comma) / 4 * 3 + 3, path + ".uri", "the decoded data");
      size_t bad = base64_decode(std::string_view(u).substr(comma + 1), slot.owned);
      if (bad != std::string_view::npos)
        rd.error(path + ".uri", fmt::format("invalid base64 data at character {} of the data", bad));
    } else {
      if (has_scheme(u) || u.empty() || u[0] == '/' || u[0] == '\\')
        rd.error(path + ".uri",
                 fmt::format("'{}' is not a relative path: only data URIs and files beside the model are "
                             "read",
                             text::clip(u)));
      std::string rel = percent_decode(u);
      try {
        slot.owned = rd.load(rel);
      } catch (const Error& e) {
        rd.error(path + ".uri", fmt::format("cannot load '{}': {}", text::clip(rel), e.diagnostic().message));
      }
      rd.add_input(slot.owned.size());
    }
    if (slot.owned.size() < len)
      rd.error(path + ".byteLength", fmt::format("{} bytes, but its data has {}", len, slot.owned.size()));
    slot.bytes = std::span<const uint8_t>(slot.owned.data(), len);
  }
  slot.loaded = true;
  return slot.bytes;
}

const View& view(Reader& rd, uint32_t i) {
  if (rd.views[i]) return *rd.views[i];
  const std::string path = fmt::format("bufferViews[{}]", i);
  const json& v = rd.element("bufferViews", i);
  uint32_t b = rd.get_index(v, "buffer", path, "buffers");
  uint64_t off = rd.get_uint(v, "byteOffset", path, 0);
  uint64_t len = rd.get_uint(v, "byteLength", path, std::nullopt);
  uint64_t stride = rd.get_uint(v, "byteStride", path, 0);
  if (field(v, "byteStride") && (stride < 4 || stride > 252 || stride % 4))
    rd.error(path + ".byteStride", fmt::format("{} is not a multiple of 4 from 4 to 252", stride));
  if (auto d = meshopt_view(rd, v, path, len, stride)) return *(rd.views[i] = std::move(*d));
  std::span<const uint8_t> bytes = buffer(rd, b);
  if (u128(off) + len > bytes.size())
    rd.error(path, fmt::format("byteOffset {} + byteLength {} = {} is past the end of buffers[{}] ({} bytes)", off, len,
                               text::u128_string(u128(off) + len), b, bytes.size()));
  rd.views[i] = View{bytes.subspan(off, len), uint32_t(stride)};
  return *rd.views[i];
}

const Accessor& accessor(Reader& rd, uint32_t i) {
  if (auto d = rd.draco_accessors.find(i); d != rd.draco_accessors.end()) return d->second;
  if (rd.accessors[i]) return *rd.accessors[i];
  auto a = std::make_unique<Accessor>();
  a->index = i;
  a->path = fmt::format("accessors[{}]", i);
  const std::string& path = a->path;
  const json& o = rd.element("accessors", i);
  uint64_t ct = rd.get_uint(o, "componentType", path, std::nullopt);
  auto type = component_type(ct);
  if (!type) rd.error(path + ".componentType", fmt::format("{} is not a glTF component type", ct));
  a->gl_component = uint32_t(ct);
  a->type = *type;
  a->normalized = rd.get_bool(o, "normalized", path, false);
  if (a->normalized && (a->type == ComponentType::Float || a->type == ComponentType::UInt))
    rd.error(path + ".normalized", fmt::format("{} components cannot be normalized", ops::component_name(a->type)));
  a->type_name = rd.get_string(o, "type", path, true);
  static const std::pair<const char*, uint32_t> types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
                                                           {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
  auto t = std::find_if(std::begin(types), std::end(types), [&](auto& x) { return a->type_name == x.first; });
  if (t == std::end(types))
    rd.error(path + ".type", fmt::format("'{}' is not an accessor type", text::clip(a->type_name)));
  a->comps = t->second;
  const uint32_t cs = uint32_t(ops::component_size(a->type));
  if (a->type_name.compare(0, 3, "MAT") == 0) {
    a->rows = a->columns = uint32_t(a->type_name[3] - '0');
    a->column_stride = (a->rows * cs + 3) / 4 * 4;  // columns start on 4-byte boundaries
    a->element_size = a->columns * a->column_stride;
  } else {
    a->element_size = a->comps * cs;
  }
  a->count = rd.get_uint(o, "count", path, std::nullopt);
  if (a->count == 0) rd.error(path + ".count", "is 0 (at least 1 element is required)");
  uint64_t offset = rd.get_uint(o, "byteOffset", path, 0);
  if (auto bv = rd.opt_index(o, "bufferView", path, "bufferViews")) {
    const View& v = view(rd, *bv);
    a->stride = v.stride ? v.stride : a->element_size;
    if (a->stride < a->element_size)
      rd.error(fmt::format("bufferViews[{}].byteStride", *bv),
               fmt::format("{} is less than the {} bytes of an element of {} ({} {})", a->stride, a->element_size, path,
                           a->type_name, ops::component_name(a->type)));
    u128 need = u128(offset) + u128(a->stride) * (a->count - 1) + a->element_size;
    if (need > v.bytes.size())
      rd.error(path + ".count",
               fmt::format("{} elements do not fit bufferViews[{}] ({} bytes): from byteOffset {} with "
                           "stride {} they need {} bytes",
                           a->count, *bv, v.bytes.size(), offset, a->stride, text::u128_string(need)));
    a->base = v.bytes.data() + offset;
  } else if (offset) {
    rd.error(path + ".byteOffset", "is set but the accessor has no bufferView");
  }
  if (const json* sp = field(o, "sparse")) {
    const std::string sparse_path = path + ".sparse";
    Accessor::Sparse s;
    s.count = rd.get_uint(*sp, "count", sparse_path, std::nullopt);
    if (s.count == 0 || s.count > a->count)
      rd.error(sparse_path + ".count",
               fmt::format("{} is not between 1 and the accessor's count ({})", s.count, a->count));
    const json* idx = field(*sp, "indices");
    const json* val = field(*sp, "values");
    if (!idx || !idx->is_object()) rd.error(sparse_path, "has no 'indices' object");
    if (!val || !val->is_object()) rd.error(sparse_path, "has no 'values' object");
    const std::string ip = sparse_path + ".indices", vp = sparse_path + ".values";
    uint64_t ict = rd.get_uint(*idx, "componentType", ip, std::nullopt);
    if (ict != 5121 && ict != 5123 && ict != 5125)
      rd.error(ip + ".componentType", fmt::format("{} is not an unsigned integer type (5121, 5123 or 5125)", ict));
    s.index_type = *component_type(ict);
    uint32_t ibv = rd.get_index(*idx, "bufferView", ip, "bufferViews");
    uint64_t ioff = rd.get_uint(*idx, "byteOffset", ip, 0);
    const View& iv = view(rd, ibv);
    u128 ineed = u128(ioff) + u128(s.count) * ops::component_size(s.index_type);
    if (ineed > iv.bytes.size())
      rd.error(ip, fmt::format("{} indices from byteOffset {} need {} bytes, but bufferViews[{}] has {}", s.count, ioff,
                               text::u128_string(ineed), ibv, iv.bytes.size()));
    uint32_t vbv = rd.get_index(*val, "bufferView", vp, "bufferViews");
    uint64_t voff = rd.get_uint(*val, "byteOffset", vp, 0);
    const View& vv = view(rd, vbv);
    u128 vneed = u128(voff) + u128(s.count) * a->element_size;
    if (vneed > vv.bytes.size())
      rd.error(vp, fmt::format("{} values from byteOffset {} need {} bytes, but bufferViews[{}] has {}", s.count, voff,
                               text::u128_string(vneed), vbv, vv.bytes.size()));
    s.indices = iv.bytes.data() + ioff;
    s.values = vv.bytes.data() + voff;
    a->sparse = s;
  }
  rd.accessors[i] = std::move(a);
  return *rd.accessors[i];
}

std::vector<float> floats(Reader& rd, const Accessor& a) {
  std::vector<float> v = read<float>(
      rd, a, [&](const uint8_t* src, float* dst) { decode_element(a, src, dst); }, a.comps);
  if (a.type == ComponentType::Float) {
    const size_t bad = size_t(std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); }));
    if (bad) rd.warn(fmt::format("{}: {} values are NaN or infinite, which glTF does not allow", a.path, bad));
  }
  return v;
}

const std::vector<float>& shared_floats(Reader& rd, const Accessor& a) {
  auto it = rd.shared_floats.find(a.index);
  if (it == rd.shared_floats.end()) it = rd.shared_floats.emplace(a.index, floats(rd, a)).first;
  return it->second;
}

std::vector<uint32_t> indices(Reader& rd, const Accessor& a, const std::string& use) {
  if (a.comps != 1 || a.columns != 1 || a.normalized ||
      !(a.type == ComponentType::UByte || a.type == ComponentType::UShort || a.type == ComponentType::UInt))
    rd.error(use, fmt::format("{} is {}{} {}, not SCALAR unsigned byte, short or int", a.path,
                              a.normalized ? "normalized " : "", a.type_name, ops::component_name(a.type)));
  return read<uint32_t>(
      rd, a, [&](const uint8_t* src, uint32_t* dst) { *dst = read_uint(a.type, src); }, 1);
}

}  // namespace meshport::gltf::read_impl

namespace meshport::gltf {


}  // namespace meshport::gltf
