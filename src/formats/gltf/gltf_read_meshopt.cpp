// glTF reader: buffer views compressed with EXT_meshopt_compression or KHR_meshopt_compression
// (same JSON; KHR adds the COLOR filter and version 1 of the attribute codec), decoded with
// meshoptimizer on first use. The decoded bytes are the view's own layout (count * byteStride =
// its byteLength), so accessors read them as any other view. The view's own buffer may be a
// fallback buffer without data: it is never loaded. The decoded size is paid from the memory
// budget before anything is decoded; corrupt data is an error naming the view.
#include "formats/gltf/gltf_read.h"

#include <meshoptimizer.h>

namespace meshport::gltf::read_impl {

namespace {

constexpr const char* kNames[] = {"KHR_meshopt_compression", "EXT_meshopt_compression"};

}  // namespace

bool meshopt_fallback(const json& b) {
  const json* exts = field(b, "extensions");
  if (!exts) return false;
  for (const char* n : kNames)
    if (const json* e = field(*exts, n))
      if (const json* f = field(*e, "fallback"); f && f->is_boolean() && f->get<bool>()) return true;
  return false;
}

std::optional<View> meshopt_view(Reader& rd, const json& v, const std::string& path, uint64_t len, uint64_t stride) {
  const json* exts = field(v, "extensions");
  if (!exts) return std::nullopt;
  const char* name = nullptr;
  const json* e = nullptr;
  for (const char* n : kNames)
    if ((e = field(*exts, n))) {
      name = n;
      break;
    }
  if (!e) return std::nullopt;
  const bool khr = name == kNames[0];
  const std::string ep = fmt::format("{}.extensions.{}", path, name);
  if (!e->is_object()) rd.error(ep, fmt::format("is {}, not an object", e->type_name()));

  // The view's own buffer: only its byteLength matters (it may be a fallback without data).
  const uint32_t vb = rd.get_index(v, "buffer", path, "buffers");
  const uint64_t voff = rd.get_uint(v, "byteOffset", path, 0);
  const uint64_t vblen = rd.get_uint(rd.element("buffers", vb), "byteLength", fmt::format("buffers[{}]", vb), std::nullopt);
  if (u128(voff) + len > vblen)
    rd.error(path, fmt::format("byteOffset {} + byteLength {} is past the end of buffers[{}] ({} bytes)", voff, len, vb,
                               vblen));

  const uint32_t b = rd.get_index(*e, "buffer", ep, "buffers");
  const uint64_t off = rd.get_uint(*e, "byteOffset", ep, 0);
  const uint64_t clen = rd.get_uint(*e, "byteLength", ep, std::nullopt);
  const uint64_t cstride = rd.get_uint(*e, "byteStride", ep, std::nullopt);
  const uint64_t count = rd.get_uint(*e, "count", ep, std::nullopt);
  const std::string mode = rd.get_string(*e, "mode", ep, true);
  std::string filter = rd.get_string(*e, "filter", ep);
  if (filter.empty()) filter = "NONE";

  const bool attributes = mode == "ATTRIBUTES", triangles = mode == "TRIANGLES", indices = mode == "INDICES";
  if (!attributes && !triangles && !indices)
    rd.error(ep + ".mode", fmt::format("'{}' is not ATTRIBUTES, TRIANGLES or INDICES", text::clip(mode)));
  if (!attributes && filter != "NONE")
    rd.error(ep + ".filter", fmt::format("'{}' is only for ATTRIBUTES (the mode is {})", text::clip(filter), mode));
  if (attributes && (cstride < 4 || cstride > 256 || cstride % 4))
    rd.error(ep + ".byteStride", fmt::format("{} is not a multiple of 4 from 4 to 256 (ATTRIBUTES)", cstride));
  if (!attributes && cstride != 2 && cstride != 4)
    rd.error(ep + ".byteStride", fmt::format("{} is not 2 or 4 ({})", cstride, mode));
  if (triangles && count % 3) rd.error(ep + ".count", fmt::format("{} is not a multiple of 3 (TRIANGLES)", count));
  if (stride && stride != cstride)
    rd.error(ep + ".byteStride", fmt::format("{} is not the bufferView's byteStride ({})", cstride, stride));
  if (u128(count) * cstride != len)
    rd.error(ep, fmt::format("count {} * byteStride {} = {} bytes, but the bufferView's byteLength is {}", count,
                             cstride, text::u128_string(u128(count) * cstride), len));
  enum class Filter { None, Oct, Quat, Exp } f = Filter::None;
  if (filter == "OCTAHEDRAL") {
    f = Filter::Oct;
    if (cstride != 4 && cstride != 8) rd.error(ep + ".byteStride", fmt::format("{} is not 4 or 8 (OCTAHEDRAL)", cstride));
  } else if (filter == "QUATERNION") {
    f = Filter::Quat;
    if (cstride != 8) rd.error(ep + ".byteStride", fmt::format("{} is not 8 (QUATERNION)", cstride));
  } else if (filter == "EXPONENTIAL") {
    f = Filter::Exp;
    if (cstride % 4) rd.error(ep + ".byteStride", fmt::format("{} is not a multiple of 4 (EXPONENTIAL)", cstride));
  } else if (khr && filter == "COLOR") {
    rd.error(ep + ".filter", "COLOR cannot be decoded (meshoptimizer 0.18 has no decoder for it)");
  } else if (filter != "NONE") {
    rd.error(ep + ".filter",
             fmt::format("'{}' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL{}", text::clip(filter),
                         khr ? " (or COLOR)" : ""));
  }

  if (meshopt_fallback(rd.element("buffers", b)))
    rd.error(ep + ".buffer", fmt::format("buffers[{}] is a fallback buffer, which holds no compressed data", b));
  std::span<const uint8_t> bytes = buffer(rd, b);
  if (u128(off) + clen > bytes.size())
    rd.error(ep, fmt::format("byteOffset {} + byteLength {} is past the end of buffers[{}] ({} bytes)", off, clen, b,
                             bytes.size()));
  const std::span<const uint8_t> src = bytes.subspan(off, clen);

  // What the compressed bytes can decode to at most (meshoptimizer's codecs): the attribute codec
  // needs a 2-bit header per 16 bytes of a byte channel (64 bytes per byte), the triangle codec a
  // code byte per triangle (3 indices), the index codec a byte per index. A larger byteLength is
  // refused before the decoded view is allocated.
  const uint64_t ratio = attributes ? 64 : triangles ? 3 * cstride : cstride;
  if (u128(clen) * ratio < len)
    rd.error(ep, fmt::format("the compressed data is corrupt: its {} bytes cannot decode to the {} bytes of {} {}-byte "
                             "elements ({} decodes at most {} bytes per compressed byte)",
                             clen, len, count, cstride, mode, ratio));
  rd.spend(len, ep, "the decompressed data");
  std::vector<uint8_t> out(len);
  int rc = 0;
  const char* fn = "";
  if (attributes) {
    if (!src.empty() && (src[0] & 0xF0) == 0xA0 && (src[0] & 0x0F) != 0)
      rd.error(ep, fmt::format("the data is version {} of the attribute codec; meshoptimizer 0.18 decodes version 0 only",
                               src[0] & 0x0F));
    fn = "meshopt_decodeVertexBuffer";
    rc = meshopt_decodeVertexBuffer(out.data(), count, cstride, src.data(), src.size());
  } else if (triangles) {
    fn = "meshopt_decodeIndexBuffer";
    rc = meshopt_decodeIndexBuffer(out.data(), count, cstride, src.data(), src.size());
  } else {
    fn = "meshopt_decodeIndexSequence";
    rc = meshopt_decodeIndexSequence(out.data(), count, cstride, src.data(), src.size());
  }
  if (rc != 0)
    rd.error(ep, fmt::format("the compressed data is corrupt ({} bytes, {} {}-byte elements of {}: {} returned {})",
                             clen, count, cstride, mode, fn, rc));
  if (count) {
    if (f == Filter::Oct) meshopt_decodeFilterOct(out.data(), count, cstride);
    if (f == Filter::Quat) meshopt_decodeFilterQuat(out.data(), count, cstride);
    if (f == Filter::Exp) meshopt_decodeFilterExp(out.data(), count, cstride);
  }
  rd.decoded_views.push_back(std::move(out));
  return View{std::span<const uint8_t>(rd.decoded_views.back()), uint32_t(stride)};
}

}  // namespace meshport::gltf::read_impl
