// glTF writer: EXT_meshopt_compression (WriteOptions::compress, convert --compress).
//
// Every view of elements (vertex attributes, indices, morph target deltas, inverse bind
// matrices, animation times and values) is compressed with meshoptimizer's codecs without
// filters, so decoding gives back the very bytes: vertex and animation data in ATTRIBUTES mode
// (their strides are multiples of 4 up to 256: floats, and joints of 4 ubytes or ushorts),
// triangle indices in INDICES mode. Not TRIANGLES: its codec may rotate a triangle's corners
// ((a, b, c) decodes as (b, c, a)), the same triangle but not the same Scene. Images stay as
// they are. The compressed bytes are the BIN chunk (or the .bin); the views refer to a fallback buffer without data (buffers[1],
// extensions.EXT_meshopt_compression.fallback), so the extension is required: the specification
// says a fallback buffer without data makes it so, and an uncompressed copy would undo the
// compression (gltfpack -c writes the same).
#include "formats/gltf/gltf_write.h"

#include <meshoptimizer.h>

namespace meshport::gltf::write_impl {

namespace {

constexpr const char* kExt = "EXT_meshopt_compression";

}  // namespace

std::optional<json> Buffer::compressed_view(const void* data, size_t bytes, int target, size_t stride) {
  if (bytes == 0 || bytes % stride) return std::nullopt;
  const size_t count = bytes / stride;
  const bool indices = target == kElementArrayBuffer && (stride == 2 || stride == 4);
  if (!indices && (stride % 4 || stride > 256)) return std::nullopt;
  std::vector<uint8_t> out;
  if (indices) {
    std::vector<uint32_t> idx(count);
    uint32_t top = 0;
    for (size_t i = 0; i < count; ++i) {
      if (stride == 2) {
        uint16_t v;
        std::memcpy(&v, static_cast<const uint8_t*>(data) + i * 2, 2);
        idx[i] = v;
      } else {
        std::memcpy(&idx[i], static_cast<const uint8_t*>(data) + i * 4, 4);
      }
      top = std::max(top, idx[i]);
    }
    out.resize(meshopt_encodeIndexSequenceBound(count, size_t(top) + 1));
    out.resize(meshopt_encodeIndexSequence(out.data(), out.size(), idx.data(), count));
  } else {
    meshopt_encodeVertexVersion(0);
    out.resize(meshopt_encodeVertexBufferBound(count, stride));
    out.resize(meshopt_encodeVertexBuffer(out.data(), out.size(), data, count, stride));
  }
  if (out.empty()) return std::nullopt;
  while (bin.size() % 4) bin.push_back(0);
  json ext = {{"buffer", 0},
              {"byteOffset", bin.size()},
              {"byteLength", out.size()},
              {"byteStride", stride},
              {"count", count},
              {"mode", indices ? "INDICES" : "ATTRIBUTES"}};
  bin.insert(bin.end(), out.begin(), out.end());
  fallback = (fallback + 3) / 4 * 4;
  json v = {{"buffer", 1}, {"byteOffset", fallback}, {"byteLength", bytes}, {"extensions", {{kExt, std::move(ext)}}}};
  if (target) v["target"] = target;
  fallback += bytes;
  return v;
}

void emit_buffers(Writer& w, json buffer0) {
  json buffers = json::array({std::move(buffer0)});
  if (w.buf.fallback) {
    buffers.push_back({{"byteLength", w.buf.fallback}, {"extensions", {{kExt, {{"fallback", true}}}}}});
    list_extension(w.root, "extensionsUsed", kExt);
    list_extension(w.root, "extensionsRequired", kExt);
  }
  w.root["buffers"] = std::move(buffers);
}

}  // namespace meshport::gltf::write_impl
