// IQM reader (v1 and v2) and writer (v2). Layout: ../shared/specs/iqm.txt; behaviour beyond it:
// ../shared/specs/iqm-notes.md.
//
// Reading validates every count and offset against the real size of the data before anything is
// allocated or read (64-bit arithmetic), and bounds what the Scene may grow to by a budget
// proportional to the file size, so hostile files fail fast. Errors name the byte offset of the
// offending header field or record.
#include "formats/iqm/iqm.h"

#include "core/math.h"
#include "core/text.h"
#include "ops/animation/morph_clips.h"
#include "ops/materials/material_names.h"
#include "ops/mesh/adjacency.h"
#include "ops/mesh/axes.h"
#include "ops/mesh/bounds.h"
#include "ops/mesh/check.h"
#include "ops/mesh/components.h"
#include "ops/mesh/quantize.h"
#include "ops/mesh/vertex_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>

namespace meshport::iqm {

namespace {

// ---------------------------------------------------------------------------------------------
// Layout

constexpr char kMagic[16] = "INTERQUAKEMODEL";  // 15 characters and the terminating NUL
constexpr uint32_t kHeaderSize = 124;
constexpr uint32_t kMeshSize = 24, kArraySize = 20, kTriangleSize = 12, kAnimSize = 20, kBoundsSize = 32,
                   kExtensionSize = 16;
constexpr uint32_t kJointSize[3] = {0, 44, 48};  // by version
constexpr uint32_t kPoseSize[3] = {0, 80, 88};
constexpr uint32_t kChannels[3] = {0, 9, 10};
constexpr uint32_t kCustom = 0x10;
constexpr uint32_t kLoop = 1;
// What the Scene may grow to: this many bytes per byte of input, and a fixed allowance. With
// the input itself, an input under 10 MB then stays well under the 256 MB the project allows.
constexpr uint64_t kBudgetFactor = 12;
constexpr uint64_t kBudgetSlack = uint64_t(16) << 20;

struct Header {
  uint32_t version, filesize, flags, num_text, ofs_text, num_meshes, ofs_meshes, num_vertexarrays, num_vertexes,
      ofs_vertexarrays, num_triangles, ofs_triangles, ofs_adjacency, num_joints, ofs_joints, num_poses, ofs_poses,
      num_anims, ofs_anims, num_frames, num_framechannels, ofs_frames, ofs_bounds, num_comment, ofs_comment,
      num_extensions, ofs_extensions;
};
static_assert(sizeof(Header) == kHeaderSize - 16);

// Byte offset of a header field in the file.
#define FIELD(f) (int64_t(offsetof(Header, f)) + 16)

using u128 = unsigned __int128;


const char* type_label(uint32_t type) {
  static const char* names[] = {"position", "texcoord", "normal", "tangent", "blendindexes", "blendweights", "color"};
  return type < 7 ? names[type] : "custom";
}

Attribute type_attribute(uint32_t type) { return type < 7 ? Attribute(type) : Attribute::Custom; }

uint32_t attribute_type(Attribute a) { return a == Attribute::Custom ? kCustom : uint32_t(a); }

bool normalized(Attribute a, ComponentType f) { return ops::is_integer(f) && a != Attribute::BlendIndices; }

// Components kept in the Scene: positions and normals at least 3, tangents 4.
uint32_t scene_components(Attribute a, uint32_t size) {
  if (a == Attribute::Position || a == Attribute::Normal) return std::max(size, 3u);
  if (a == Attribute::Tangent) return 4;
  return size;
}

bool is_spatial(Attribute a) { return a == Attribute::Position || a == Attribute::Normal || a == Attribute::Tangent; }

bool has_image_extension(const std::string& name) {
  static const char* exts[] = {".png", ".tga", ".jpg", ".jpeg", ".dds", ".bmp"};
  for (const char* e : exts) {
    size_t n = std::strlen(e);
    if (name.size() <= n) continue;
    bool match = true;
    for (size_t i = 0; i < n && match; ++i)
      match = char(std::tolower(static_cast<unsigned char>(name[name.size() - n + i]))) == e[i];
    if (match) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Reading

struct In {
  const uint8_t* p;
  uint64_t size;
  const std::string& name;
  Diagnostics& diags;
  uint64_t budget;  // bytes the Scene may still grow by

  [[noreturn]] void fail(int64_t off, std::string msg) const { fail_at_offset(name, off, std::move(msg)); }
  void warn(int64_t off, std::string msg) const { diags.add(warning_at_offset(name, off, std::move(msg))); }
  uint32_t u32(uint64_t off) const {
    uint32_t v;
    std::memcpy(&v, p + off, 4);
    return v;
  }
  int32_t i32(uint64_t off) const { return std::bit_cast<int32_t>(u32(off)); }
  float f32(uint64_t off) const { return std::bit_cast<float>(u32(off)); }
  // Charges `bytes` of Scene memory; fails when the file cannot justify that much.
  void spend(u128 bytes, int64_t off, std::string_view what) {
    if (bytes > budget)
      fail(off, fmt::format("{} would need more memory than a file of {} bytes can justify (overlapping ranges?)", what,
                            size));
    budget -= uint64_t(bytes);
  }
};

Header read_header(In& in) {
  const size_t have = std::min<uint64_t>(in.size, 16);
  if (have == 0 || std::memcmp(in.p, kMagic, have) != 0)
    in.fail(0, "not an IQM file: the magic is not \"INTERQUAKEMODEL\\0\"");
  if (in.size < kHeaderSize)
    in.fail(0, fmt::format("truncated header: the file has {} bytes, an IQM header needs {}", in.size, kHeaderSize));
  Header h;
  std::memcpy(&h, in.p + 16, sizeof h);
  if (h.version != 1 && h.version != 2)
    in.fail(FIELD(version), fmt::format("unsupported IQM version {} (versions 1 and 2 are read)", h.version));
  if (h.filesize != in.size)
    in.warn(FIELD(filesize), fmt::format("the header's filesize is {} but the file has {} bytes", h.filesize, in.size));
  return h;
}

// Checks that `count` records of `elem` bytes at `ofs` lie inside the file, after the header.
void check_extent(const In& in, uint64_t count, uint64_t elem, uint32_t ofs, int64_t count_field,
                  const char* count_name, int64_t ofs_field, const char* ofs_name) {
  if (count == 0 || elem == 0) return;
  if (ofs < kHeaderSize) in.fail(ofs_field, fmt::format("{} ({}) points into the header", ofs_name, ofs));
  if (ofs > in.size)
    in.fail(ofs_field, fmt::format("{} ({}) is past the end of the file ({} bytes)", ofs_name, ofs, in.size));
  u128 bytes = u128(count) * elem;
  if (bytes > in.size - ofs) {
    std::string what = elem == 1 ? fmt::format("{} bytes", count) : fmt::format("{} x {} bytes", count, elem);
    in.fail(count_field, fmt::format("{}: {} at offset {} end at {}, past the end of the file ({} bytes)", count_name,
                                     what, ofs, text::u128_string(bytes + ofs), in.size));
  }
}

// The frames: num_frames x num_framechannels 16-bit values (either count may be the wrong one).
void check_frames(const In& in, const Header& h) {
  const u128 bytes = u128(h.num_frames) * h.num_framechannels * 2;
  if (bytes == 0) return;
  if (h.ofs_frames < kHeaderSize)
    in.fail(FIELD(ofs_frames), fmt::format("ofs_frames ({}) points into the header", h.ofs_frames));
  if (h.ofs_frames > in.size)
    in.fail(FIELD(ofs_frames),
            fmt::format("ofs_frames ({}) is past the end of the file ({} bytes)", h.ofs_frames, in.size));
  if (bytes > in.size - h.ofs_frames)
    in.fail(FIELD(num_frames),
            fmt::format("num_frames x num_framechannels: {} frames x {} channels x 2 bytes at offset {} end at {}, "
                        "past the end of the file ({} bytes)",
                        h.num_frames, h.num_framechannels, h.ofs_frames, text::u128_string(bytes + h.ofs_frames),
                        in.size));
}

void check_sections(const In& in, const Header& h) {
  const uint32_t v = h.version;
  check_extent(in, h.num_text, 1, h.ofs_text, FIELD(num_text), "num_text", FIELD(ofs_text), "ofs_text");
  check_extent(in, h.num_meshes, kMeshSize, h.ofs_meshes, FIELD(num_meshes), "num_meshes", FIELD(ofs_meshes),
               "ofs_meshes");
  check_extent(in, h.num_vertexarrays, kArraySize, h.ofs_vertexarrays, FIELD(num_vertexarrays), "num_vertexarrays",
               FIELD(ofs_vertexarrays), "ofs_vertexarrays");
  check_extent(in, h.num_triangles, kTriangleSize, h.ofs_triangles, FIELD(num_triangles), "num_triangles",
               FIELD(ofs_triangles), "ofs_triangles");
  if (h.ofs_adjacency)
    check_extent(in, h.num_triangles, kTriangleSize, h.ofs_adjacency, FIELD(ofs_adjacency), "adjacency",
                 FIELD(ofs_adjacency), "ofs_adjacency");
  check_extent(in, h.num_joints, kJointSize[v], h.ofs_joints, FIELD(num_joints), "num_joints", FIELD(ofs_joints),
               "ofs_joints");
  check_extent(in, h.num_poses, kPoseSize[v], h.ofs_poses, FIELD(num_poses), "num_poses", FIELD(ofs_poses),
               "ofs_poses");
  check_extent(in, h.num_anims, kAnimSize, h.ofs_anims, FIELD(num_anims), "num_anims", FIELD(ofs_anims), "ofs_anims");
  check_frames(in, h);
  if (h.ofs_bounds)
    check_extent(in, h.num_frames, kBoundsSize, h.ofs_bounds, FIELD(ofs_bounds), "bounds", FIELD(ofs_bounds),
                 "ofs_bounds");
  check_extent(in, h.num_comment, 1, h.ofs_comment, FIELD(num_comment), "num_comment", FIELD(ofs_comment),
               "ofs_comment");
  if (u128(h.num_extensions) * kExtensionSize > in.size)
    in.fail(FIELD(num_extensions), fmt::format("num_extensions: {} x {} bytes cannot fit in the file ({} bytes)",
                                               h.num_extensions, kExtensionSize, in.size));
  if (h.num_text && in.p[uint64_t(h.ofs_text) + h.num_text - 1] != 0)
    in.fail(int64_t(h.ofs_text) + h.num_text - 1, "the text table does not end with a NUL");
}

// The string at text index `index`, named `what` (with the record at `ref`) in diagnostics.
std::string text(In& in, const Header& h, uint32_t index, int64_t ref, std::string_view what) {
  if (index == 0 && h.num_text == 0) return {};
  if (index >= h.num_text)
    in.fail(ref, fmt::format("{}: text index {} is out of range (num_text {})", what, index, h.num_text));
  const char* s = reinterpret_cast<const char*>(in.p) + h.ofs_text + index;
  size_t len = strnlen(s, h.num_text - index);  // the table ends with a NUL
  in.spend(len, ref, what);
  return std::string(s, len);
}

struct Array {
  uint32_t index;  // among the file's vertex arrays
  uint32_t type;
  Attribute attribute;
  std::string name;
  ComponentType format;
  uint32_t size;
  uint64_t offset;
  int64_t record;
  size_t blend_out_of_range = 0;  // blend indices not below num_joints
  size_t non_finite = 0;          // NaN or infinite values read
};

std::string array_label(const Array& a) {
  std::string l = a.attribute == Attribute::Custom ? fmt::format("custom '{}'", text::clip(a.name)) : type_label(a.type);
  return fmt::format("vertex array {} ({}, {} x{})", a.index, l, ops::component_name(a.format), a.size);
}

Array read_array(In& in, const Header& h, uint32_t i) {
  Array a;
  a.index = i;
  a.record = int64_t(h.ofs_vertexarrays) + int64_t(i) * kArraySize;
  a.type = in.u32(a.record);
  uint32_t format = in.u32(a.record + 8);
  a.size = in.u32(a.record + 12);
  a.offset = in.u32(a.record + 16);
  if (a.type >= 7 && a.type < kCustom)
    in.fail(a.record, fmt::format("vertex array {}: unknown type {} (types 7 to 15 are reserved)", i, a.type));
  if (format > uint32_t(ComponentType::Double))
    in.fail(a.record + 8, fmt::format("vertex array {}: unknown format {} (0 to 8: byte, ubyte, short, ushort, int, "
                                      "uint, half, float, double)",
                                      i, format));
  if (a.size < 1 || a.size > 4)
    in.fail(a.record + 12, fmt::format("vertex array {}: size {} is not between 1 and 4", i, a.size));
  a.format = ComponentType(format);
  a.attribute = type_attribute(a.type);
  if (a.attribute == Attribute::Custom) {
    a.name = text(in, h, a.type - kCustom, a.record, fmt::format("vertex array {}: custom type name", i));
    VertexStream probe;
    probe.attribute = Attribute::Custom;
    probe.name = a.name;
    if (is_format_stream(probe))
      in.warn(a.record, fmt::format("vertex array {}: custom name '{}' is reserved for another format's data "
                                    "(scene.h is_format_stream): writers leave it out",
                                    i, text::clip(a.name)));
  }
  if (h.num_vertexes == 0) return a;
  if (a.offset < kHeaderSize)
    in.fail(a.record + 16, fmt::format("{}: data offset {} points into the header", array_label(a), a.offset));
  u128 bytes = u128(h.num_vertexes) * a.size * ops::component_size(a.format);
  if (a.offset > in.size || bytes > in.size - a.offset)
    in.fail(a.record + 16,
            fmt::format("{}: {} vertices need {} bytes at offset {}, past the end of the file ({} bytes)",
                        array_label(a), h.num_vertexes, text::u128_string(bytes), a.offset, in.size));
  return a;
}

std::vector<Array> read_arrays(In& in, const Header& h) {
  std::vector<Array> out;
  for (uint32_t i = 0; i < h.num_vertexarrays; ++i) {
    Array a = read_array(in, h, i);
    bool dup = std::any_of(out.begin(), out.end(), [&](const Array& b) {
      return b.attribute == a.attribute && (a.attribute != Attribute::Custom || b.name == a.name);
    });
    if (dup) {
      in.warn(a.record, fmt::format("{}: a second array of this type is ignored", array_label(a)));
      continue;
    }
    out.push_back(std::move(a));
  }
  return out;
}

// Vertices a mesh reads: its own range, then copies of vertices its triangles take from outside it.
struct MeshVertices {
  uint32_t first = 0, count = 0;
  std::vector<uint32_t> extra;  // global indices, in order of first use
};

std::vector<uint32_t> read_triangles(In& in, const Header& h, uint32_t first, uint32_t count, MeshVertices& mv) {
  std::vector<uint32_t> tris(size_t(count) * 3);
  std::unordered_map<uint32_t, uint32_t> extra_map;
  const uint64_t lo = mv.first, hi = uint64_t(mv.first) + mv.count;
  for (uint32_t t = 0; t < count; ++t) {
    const uint64_t rec = uint64_t(h.ofs_triangles) + uint64_t(first + t) * kTriangleSize;
    uint32_t v[3];
    std::memcpy(v, in.p + rec, 12);
    for (uint32_t& x : v) {
      if (x >= h.num_vertexes)
        in.fail(int64_t(rec), fmt::format("triangle {}: vertex index {} is out of range (num_vertexes {})", first + t,
                                          x, h.num_vertexes));
      if (x >= lo && x < hi) {
        x -= mv.first;
        continue;
      }
      auto [it, added] = extra_map.try_emplace(x, mv.count + uint32_t(mv.extra.size()));
      if (added) mv.extra.push_back(x);
      x = it->second;
    }
    tris[size_t(t) * 3] = v[0];  // clockwise (a b c) -> counter-clockwise (a c b)
    tris[size_t(t) * 3 + 1] = v[2];
    tris[size_t(t) * 3 + 2] = v[1];
  }
  return tris;
}

void fill_defaults(VertexStream& s, uint32_t size) {
  if (s.components == size) return;
  const size_t n = s.vertex_count();
  for (size_t v = 0; v < n; ++v)
    for (uint32_t c = size; c < s.components; ++c)
      s.data[v * s.components + c] = (s.attribute == Attribute::Tangent && c == 3) ? 1.0f : 0.0f;
}

VertexStream read_stream(const In& in, Array& a, const MeshVertices& mv, uint32_t num_joints) {
  VertexStream s;
  s.attribute = a.attribute;
  s.name = a.name;
  s.format = a.format;
  s.source_size = a.size;
  s.components = scene_components(a.attribute, a.size);
  const size_t n = size_t(mv.count) + mv.extra.size();
  const size_t stride = size_t(a.size) * ops::component_size(a.format);
  const bool norm = normalized(a.attribute, a.format);
  s.data.resize(n * s.components);
  fill_defaults(s, a.size);
  ops::decode_strided(a.format, norm, in.p + a.offset + mv.first * stride, mv.count, a.size, s.data.data(),
                      s.components);
  for (size_t e = 0; e < mv.extra.size(); ++e)
    ops::decode_strided(a.format, norm, in.p + a.offset + mv.extra[e] * stride, 1, a.size,
                        s.data.data() + (mv.count + e) * s.components, s.components);
  if (is_spatial(a.attribute)) axes::stream_zup_to_scene(s);
  if (a.attribute == Attribute::BlendIndices && num_joints)
    for (float x : s.data) a.blend_out_of_range += !(x >= 0 && x < float(num_joints));
  if (!ops::is_integer(a.format))
    for (float x : s.data) a.non_finite += !std::isfinite(x);
  return s;
}

// Blend indices and weights get the same component count (the missing ones are 0).
void match_blend_widths(Mesh& m) {
  VertexStream* bi = m.find(Attribute::BlendIndices);
  VertexStream* bw = m.find(Attribute::BlendWeights);
  if (!bi || !bw || bi->components == bw->components) return;
  VertexStream* narrow = bi->components < bw->components ? bi : bw;
  const uint32_t wide = std::max(bi->components, bw->components);
  std::vector<float> data(narrow->vertex_count() * wide, 0.0f);
  for (size_t v = 0; v < narrow->vertex_count(); ++v)
    for (uint32_t c = 0; c < narrow->components; ++c) data[v * wide + c] = narrow->data[v * narrow->components + c];
  narrow->data = std::move(data);
  narrow->components = wide;
}

int32_t material_index(Scene& s, std::unordered_map<std::string, int32_t>& known, const std::string& name) {
  if (name.empty()) return -1;
  auto [it, added] = known.try_emplace(name, int32_t(s.materials.size()));
  if (added) {
    Material m;
    m.name = name;
    if (has_image_extension(name)) m.base_color_texture = name;
    s.materials.push_back(std::move(m));
  }
  return it->second;
}

// A mesh of at least this many vertices has its vertex arrays decoded on a second thread while
// its triangles are read, then by both threads: `meshport info` on the 104 MB IQM of a 1M-vertex
// model takes 0.12 s instead of 0.15-0.16 s on 2 cores (much of the reading is first touches of
// the new streams' pages, which the threads now share).
constexpr uint32_t kThreadedVertices = 1 << 16;

// Decodes the mesh's arrays on a thread of its own, taking them in turn from `next` (which the
// reader's thread takes from too once its triangles are read). Before any allocation the budget
// covers every array, so the thread never allocates what the file cannot justify; triangles that
// reach outside the mesh's range need more and make the mesh read on one thread after all.
class StreamJob {
 public:
  StreamJob(const In& in, std::vector<Array>& arrays, const MeshVertices& mv, uint32_t joints, unsigned threads,
            u128 bytes)
      : in_(in), arrays_(arrays), mv_{mv.first, mv.count, {}}, joints_(joints) {
    if (threads < 2 || mv.count < kThreadedVertices || arrays.size() < 2 || bytes > in.budget) return;
    counted_ = arrays;
    streams_.resize(arrays.size());
    try {
      thread_ = std::thread([this] { take(); });
    } catch (const std::system_error&) {  // no thread to be had: one thread then
    }
  }
  StreamJob(const StreamJob&) = delete;
  StreamJob& operator=(const StreamJob&) = delete;
  ~StreamJob() { stop(); }

  bool running() const { return thread_.joinable(); }
  // The streams, once this thread has helped decode the rest (valid while mv.extra is empty),
  // and the arrays' counts of values to warn about.
  std::vector<VertexStream> finish() {
    take();
    stop();
    if (failed_) std::rethrow_exception(failed_);
    arrays_ = std::move(counted_);
    return std::move(streams_);
  }
  // Triangles reached outside the mesh: what the thread decoded is dropped.
  void stop() {
    next_ = counted_.size();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void take() {
    try {
      for (size_t k; (k = next_.fetch_add(1)) < counted_.size();)
        streams_[k] = read_stream(in_, counted_[k], mv_, joints_);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failed_) failed_ = std::current_exception();
    }
  }

  const In& in_;
  std::vector<Array>& arrays_;
  std::vector<Array> counted_;  // the arrays with the counts read_stream adds, kept if finished
  const MeshVertices mv_;  // without the vertices outside the range, which the triangles add
  const uint32_t joints_;
  std::vector<VertexStream> streams_;
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::exception_ptr failed_;
  std::thread thread_;
};

void read_mesh(In& in, const Header& h, uint32_t i, std::vector<Array>& arrays, Scene& s,
               std::unordered_map<std::string, int32_t>& materials, unsigned threads) {
  const int64_t rec = int64_t(h.ofs_meshes) + int64_t(i) * kMeshSize;
  Mesh m;
  m.name = text(in, h, in.u32(rec), rec, fmt::format("mesh {}: name", i));
  std::string material = text(in, h, in.u32(rec + 4), rec, fmt::format("mesh {}: material", i));
  MeshVertices mv{in.u32(rec + 8), in.u32(rec + 12), {}};
  uint32_t first_tri = in.u32(rec + 16), num_tris = in.u32(rec + 20);
  if (uint64_t(mv.first) + mv.count > h.num_vertexes)
    in.fail(rec, fmt::format("mesh {}: vertices {} to {} are past num_vertexes ({})", i, mv.first,
                             uint64_t(mv.first) + mv.count, h.num_vertexes));
  if (uint64_t(first_tri) + num_tris > h.num_triangles)
    in.fail(rec, fmt::format("mesh {}: triangles {} to {} are past num_triangles ({})", i, first_tri,
                             uint64_t(first_tri) + num_tris, h.num_triangles));
  in.spend(u128(num_tris) * 12, rec, fmt::format("mesh {}", i));
  auto stream_bytes = [&](const Array& a) {
    return u128(uint64_t(mv.count) + mv.extra.size()) * scene_components(a.attribute, a.size) * 4;
  };
  u128 all_streams = 0;
  for (const Array& a : arrays) all_streams += stream_bytes(a);
  StreamJob job(in, arrays, mv, h.num_joints, threads, all_streams);
  m.triangles = read_triangles(in, h, first_tri, num_tris, mv);
  if (!mv.extra.empty()) {
    job.stop();
    in.warn(rec, fmt::format("mesh {} ('{}'): its triangles use {} vertices outside its own range [{}, {}); they "
                             "are copied into the mesh",
                             i, text::clip(m.name), mv.extra.size(), mv.first, uint64_t(mv.first) + mv.count));
  }
  if (job.running() && mv.extra.empty()) {
    m.streams = job.finish();
    for (const Array& a : arrays) in.spend(stream_bytes(a), rec, fmt::format("mesh {}", i));  // within the budget
  } else {
    for (Array& a : arrays) {
      in.spend(stream_bytes(a), rec, fmt::format("mesh {}", i));
      m.streams.push_back(read_stream(in, a, mv, h.num_joints));
    }
  }
  match_blend_widths(m);
  m.material = material_index(s, materials, material);
  s.meshes.push_back(std::move(m));
}

void read_meshes(In& in, const Header& h, std::vector<Array>& arrays, Scene& s, unsigned threads) {
  std::unordered_map<std::string, int32_t> materials;
  in.spend(u128(h.num_meshes) * sizeof(Mesh), FIELD(num_meshes), "num_meshes");
  s.meshes.reserve(h.num_meshes);
  for (uint32_t i = 0; i < h.num_meshes; ++i) read_mesh(in, h, i, arrays, s, materials, threads);
  for (const Array& a : arrays) {
    if (a.blend_out_of_range)
      in.warn(a.record, fmt::format("{}: {} blend indices are not below num_joints ({})", array_label(a),
                                    a.blend_out_of_range, h.num_joints));
    if (a.non_finite)
      in.warn(a.record + 16, fmt::format("{}: {} values are NaN or infinite", array_label(a), a.non_finite));
  }
  const Array* bi = nullptr;
  const Array* bw = nullptr;
  for (const Array& a : arrays) {
    if (a.attribute == Attribute::BlendIndices) bi = &a;
    if (a.attribute == Attribute::BlendWeights) bw = &a;
  }
  if (bi && bw && bi->size != bw->size)
    in.warn(bw->record, fmt::format("blendindexes has {} components but blendweights {}; the missing ones read as 0",
                                    bi->size, bw->size));
}

// Transform from IQM channels (v2: 10, v1: 9 without quaternion w), Z-up, to the Scene.
Transform transform_from(const float* c, uint32_t version) {
  Transform t;
  t.translation = {c[0], c[1], c[2]};
  if (version == 2) {
    t.rotation = {c[3], c[4], c[5], c[6]};
    t.scale = {c[7], c[8], c[9]};
  } else {
    float w = -std::sqrt(std::max(0.0f, 1.0f - c[3] * c[3] - c[4] * c[4] - c[5] * c[5]));
    t.rotation = {c[3], c[4], c[5], w};
    t.scale = {c[6], c[7], c[8]};
  }
  return axes::zup_to_scene(t);
}

// A joint's (or pose's) parent comes before it: that is how IQM rules out loops, and what
// loaders that compute world transforms in one pass rely on.
void check_parent(const In& in, int64_t field, const char* what, uint32_t index, int32_t parent, uint32_t count) {
  if (parent < 0 || uint32_t(parent) < index) return;
  if (uint32_t(parent) >= count)
    in.fail(field, fmt::format("{} {}: parent {} is past the last {} ({} in the file)", what, index, parent, what,
                               count));
  in.fail(field, fmt::format("{} {}: parent {} does not come before it (a parent must precede its children, so a {} "
                             "cannot be its own ancestor)",
                             what, index, parent, what));
}

void read_joints(In& in, const Header& h, Scene& s) {
  const uint32_t size = kJointSize[h.version], channels = kChannels[h.version];
  in.spend(u128(h.num_joints) * sizeof(Joint), FIELD(num_joints), "num_joints");
  s.joints.reserve(h.num_joints);
  size_t bad = 0;
  int64_t first_bad = 0;
  for (uint32_t j = 0; j < h.num_joints; ++j) {
    const int64_t rec = int64_t(h.ofs_joints) + int64_t(j) * size;
    Joint joint;
    joint.name = text(in, h, in.u32(rec), rec, fmt::format("joint {}", j));
    int32_t parent = in.i32(rec + 4);
    check_parent(in, rec + 4, "joint", j, parent, h.num_joints);
    joint.parent = parent < 0 ? -1 : parent;
    float c[10];
    for (uint32_t k = 0; k < channels; ++k) c[k] = in.f32(rec + 8 + 4 * k);
    if (!std::all_of(c, c + channels, [](float x) { return std::isfinite(x); }) && !bad++) first_bad = rec;
    joint.rest = transform_from(c, h.version);
    s.joints.push_back(std::move(joint));
  }
  if (bad)
    in.warn(first_bad, fmt::format("{} joints have NaN or infinite values in their rest transforms (the first at "
                                   "offset {})",
                                   bad, first_bad));
}

ops::QuantizedFrames read_poses(In& in, const Header& h, std::vector<int32_t>& parents) {
  const uint32_t size = kPoseSize[h.version], channels = kChannels[h.version];
  ops::QuantizedFrames q;
  q.poses = h.num_poses;
  q.channels = channels;
  q.frames = h.num_frames;
  q.masks.resize(h.num_poses);
  q.offsets.resize(size_t(h.num_poses) * channels);
  q.scales.resize(size_t(h.num_poses) * channels);
  parents.resize(h.num_poses);
  size_t bad = 0;
  int64_t first_bad = 0;
  for (uint32_t p = 0; p < h.num_poses; ++p) {
    const int64_t rec = int64_t(h.ofs_poses) + int64_t(p) * size;
    int32_t parent = in.i32(rec);
    check_parent(in, rec, "pose", p, parent, h.num_poses);
    parents[p] = parent < 0 ? -1 : parent;
    uint32_t mask = in.u32(rec + 4);
    if (mask >> channels)
      in.warn(rec, fmt::format("pose {}: channelmask 0x{:x} has bits above channel {}; they are ignored", p, mask,
                               channels - 1));
    q.masks[p] = mask & ((1u << channels) - 1);
    bool finite = true;
    for (uint32_t c = 0; c < channels; ++c) {
      q.offsets[size_t(p) * channels + c] = in.f32(rec + 8 + 4 * c);
      q.scales[size_t(p) * channels + c] = in.f32(rec + 8 + 4 * (channels + c));
      finite = finite && std::isfinite(q.offsets[size_t(p) * channels + c]) &&
               std::isfinite(q.scales[size_t(p) * channels + c]);
    }
    if (!finite && !bad++) first_bad = rec;
  }
  if (bad)
    in.warn(first_bad, fmt::format("{} poses have NaN or infinite channel offsets or scales (the first at offset {})",
                                   bad, first_bad));
  const size_t bits = q.stored_channels();
  if ((h.num_frames || h.num_framechannels) && bits != h.num_framechannels)
    in.fail(FIELD(num_framechannels),
            fmt::format("num_framechannels is {} but the poses' channel masks set {} bits", h.num_framechannels, bits));
  if (h.num_frames && bits) {
    q.data.resize(size_t(h.num_frames) * bits);
    std::memcpy(q.data.data(), in.p + h.ofs_frames, q.data.size() * 2);
  }
  return q;
}

void warn_uncovered_frames(In& in, const Header& h, std::vector<std::pair<uint32_t, uint32_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = 0, reach = 0;
  for (auto [first, end] : ranges) {
    uint64_t b = std::max<uint64_t>(first, reach);
    if (end > b) covered += end - b;
    reach = std::max<uint64_t>(reach, end);
  }
  if (covered < h.num_frames)
    in.warn(FIELD(num_frames), fmt::format("{} of the {} frames belong to no animation and are not read",
                                           h.num_frames - covered, h.num_frames));
}

Animation read_animation(In& in, const Header& h, uint32_t a, const ops::QuantizedFrames& q, const Scene& s,
                         uint32_t channels) {
  const int64_t rec = int64_t(h.ofs_anims) + int64_t(a) * kAnimSize;
  Animation anim;
  anim.name = text(in, h, in.u32(rec), rec, fmt::format("animation {}", a));
  uint32_t first = in.u32(rec + 4), count = in.u32(rec + 8);
  anim.framerate = in.f32(rec + 12);
  if (!std::isfinite(anim.framerate)) {
    in.warn(rec + 12, fmt::format("animation {}: framerate {} is not a finite number of frames per second; read as 0 "
                                  "(none given)",
                                  a, anim.framerate));
    anim.framerate = 0;
  }
  anim.loop = (in.u32(rec + 16) & kLoop) != 0;
  anim.channels = channels;
  if (uint64_t(first) + count > h.num_frames)
    in.fail(rec, fmt::format("animation {}: frames {} to {} are past num_frames ({})", a, first,
                             uint64_t(first) + count, h.num_frames));
  in.spend(u128(count) * channels * sizeof(Transform), rec, fmt::format("animation {}", a));
  if (!channels) return anim;  // no joints and no poses: frames without a pose to hold
  // Dequantised a chunk of frames at a time, and only the poses that become channels, so the
  // work and the buffer stay within what the poses were charged for.
  const size_t poses = std::min<size_t>(q.poses, channels);
  const size_t chunk = std::max<size_t>(1, 65536 / std::max<size_t>(1, poses * q.channels));
  std::vector<float> values(std::min<size_t>(count, chunk) * poses * q.channels);
  anim.poses.resize(size_t(count) * channels);
  for (size_t f0 = 0; f0 < count; f0 += chunk) {
    const size_t n = std::min<size_t>(chunk, count - f0);
    ops::dequantize_frames(q, first + f0, n, values.data(), poses);
    for (size_t f = 0; f < n; ++f)
      for (size_t j = 0; j < channels; ++j)
        anim.poses[(f0 + f) * channels + j] =
            j < poses ? transform_from(&values[(f * poses + j) * q.channels], h.version) : s.joints[j].rest;
  }
  return anim;
}

void read_animations(In& in, const Header& h, Scene& s) {
  std::vector<int32_t> parents;
  ops::QuantizedFrames q = read_poses(in, h, parents);
  if (h.num_joints && h.num_poses && h.num_poses != h.num_joints)
    in.warn(FIELD(num_poses), fmt::format("num_poses is {} but num_joints is {}: poses past the joints are dropped and "
                                          "joints without a pose keep their rest transform",
                                          h.num_poses, h.num_joints));
  const uint32_t channels = h.num_joints ? h.num_joints : h.num_poses;
  if (!h.num_joints && !parents.empty()) {
    if (!s.iqm) s.iqm.emplace();
    s.iqm->pose_parents = std::move(parents);
  }
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  in.spend(u128(h.num_anims) * sizeof(Animation), FIELD(num_anims), "num_anims");
  for (uint32_t a = 0; a < h.num_anims; ++a) {
    s.animations.push_back(read_animation(in, h, a, q, s, channels));
    uint32_t first = in.u32(uint64_t(h.ofs_anims) + uint64_t(a) * kAnimSize + 4);
    ranges.emplace_back(first, first + uint32_t(s.animations.back().frame_count()));
  }
  if (channels) warn_uncovered_frames(in, h, std::move(ranges));
}

void read_comment(In& in, const Header& h, Scene& s) {
  if (!h.num_comment) return;
  const char* c = reinterpret_cast<const char*>(in.p) + h.ofs_comment;
  size_t n = h.num_comment;
  while (n && c[n - 1] == 0) --n;  // the terminating NUL and the padding
  s.comment.assign(c, n);
}

void read_extensions(In& in, const Header& h, Scene& s) {
  if (!h.num_extensions) return;
  std::vector<bool> visited(h.num_extensions > 1 ? in.size : 0);
  uint64_t ofs = h.ofs_extensions;
  int64_t link = FIELD(ofs_extensions);
  for (uint32_t e = 0; e < h.num_extensions; ++e) {
    if (ofs == 0) {
      in.warn(FIELD(num_extensions),
              fmt::format("the extension list ends after {} of num_extensions ({}) extensions", e, h.num_extensions));
      return;
    }
    if (ofs < kHeaderSize) in.fail(link, fmt::format("extension {}: offset {} points into the header", e, ofs));
    if (ofs > in.size || in.size - ofs < kExtensionSize)
      in.fail(link, fmt::format("extension {}: its record at offset {} is past the end of the file ({} bytes)", e, ofs,
                                in.size));
    if (!visited.empty()) {
      if (visited[ofs]) in.fail(link, fmt::format("extension {}: the list loops back to offset {}", e, ofs));
      visited[ofs] = true;
    }
    const int64_t rec = int64_t(ofs);
    IqmExtension x;
    x.name = text(in, h, in.u32(ofs), rec, fmt::format("extension {}", e));
    uint32_t num_data = in.u32(ofs + 4), ofs_data = in.u32(ofs + 8);
    if (num_data) {
      if (ofs_data < kHeaderSize)
        in.fail(rec, fmt::format("extension {}: data offset {} points into the header", e, ofs_data));
      if (ofs_data > in.size || num_data > in.size - ofs_data)
        in.fail(rec, fmt::format("extension {}: {} bytes at offset {} end at {}, past the end of the file ({} bytes)",
                                 e, num_data, ofs_data, uint64_t(ofs_data) + num_data, in.size));
      in.spend(num_data, rec, fmt::format("extension {}", e));
      x.data.assign(in.p + ofs_data, in.p + ofs_data + num_data);
    }
    if (!s.iqm) s.iqm.emplace();
    s.iqm->extensions.push_back(std::move(x));
    link = rec + 12;
    ofs = in.u32(ofs + 12);
  }
  if (ofs != 0)
    in.warn(link,
            fmt::format("the extension list goes on past num_extensions ({}); the rest is ignored", h.num_extensions));
}

// ---------------------------------------------------------------------------------------------
// Writing

[[noreturn]] void wfail(std::string msg) { fail("", std::move(msg)); }
void wwarn(Diagnostics& d, std::string msg) { d.add(warning("", std::move(msg))); }

struct TextTable {
  std::string bytes{std::string(1, '\0')};
  std::unordered_map<std::string, uint32_t> index{{std::string(), 0u}};
  uint32_t add(const std::string& s) {
    auto [it, added] = index.try_emplace(s, uint32_t(bytes.size()));
    if (added) {
      bytes += s;
      bytes += '\0';
    }
    return it->second;
  }
  uint32_t at(const std::string& s) const { return index.at(s); }  // every string is added before layout
};

// One global vertex array: the union over the meshes of one attribute (customs by name).
struct Plan {
  Attribute attribute;
  std::string name;
  uint32_t type = 0;
  ComponentType format = ComponentType::Float;
  uint32_t size = 0;
  std::vector<const VertexStream*> streams;  // per mesh; nullptr where a mesh lacks the array
  uint64_t offset = 0;
  ops::EncodeStats stats;
};

std::string plan_label(const Plan& p) {
  return p.attribute == Attribute::Custom ? fmt::format("custom '{}'", p.name) : type_label(uint32_t(p.attribute));
}

ComponentType default_format(Attribute a) {
  bool ubyte = a == Attribute::BlendIndices || a == Attribute::BlendWeights || a == Attribute::Color;
  return ubyte ? ComponentType::UByte : ComponentType::Float;
}

uint32_t default_size(Attribute a, uint32_t components) {
  switch (a) {
    case Attribute::Position:
    case Attribute::Normal:
      return 3;
    case Attribute::Texcoord:
      return 2;
    case Attribute::Tangent:
    case Attribute::BlendIndices:
    case Attribute::BlendWeights:
      return 4;
    default:
      return std::clamp(components, 1u, 4u);
  }
}

std::string custom_name(const VertexStream& s) {
  if (!s.name.empty()) return s.name;
  return s.custom_slot >= 0 ? fmt::format("custom{}", s.custom_slot) : std::string("custom");
}

void declare(Plan& p, const VertexStream& s, bool first) {
  ComponentType f = s.source_size ? s.format : default_format(s.attribute);
  uint32_t n = s.source_size ? std::min(s.source_size, 4u) : default_size(s.attribute, s.components);
  if (first) p.format = f;
  p.size = std::max(p.size, n);
}

std::vector<Plan> plan_arrays(const Scene& scene, Diagnostics& d) {
  std::vector<Plan> plans;
  const size_t nm = scene.meshes.size();
  for (size_t m = 0; m < nm; ++m)
    for (const VertexStream& s : scene.meshes[m].streams) {
      if (is_format_stream(s)) continue;  // another format's data (scene.h)
      std::string name = s.attribute == Attribute::Custom ? custom_name(s) : std::string();
      auto it = std::find_if(plans.begin(), plans.end(),
                             [&](const Plan& p) { return p.attribute == s.attribute && p.name == name; });
      if (it == plans.end()) {
        Plan p;
        p.attribute = s.attribute;
        p.name = name;
        p.type = attribute_type(s.attribute);
        p.streams.resize(nm);
        plans.push_back(std::move(p));
        it = plans.end() - 1;
      }
      if (it->streams[m]) {
        wwarn(d,
              fmt::format("mesh {} ('{}'): a second {} stream is ignored", m, scene.meshes[m].name, plan_label(*it)));
        continue;
      }
      declare(*it, s, std::none_of(it->streams.begin(), it->streams.end(), [](auto* x) { return x != nullptr; }));
      it->streams[m] = &s;
    }
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Plan& a, const Plan& b) { return uint32_t(a.attribute) < uint32_t(b.attribute); });
  for (Plan& p : plans)
    for (size_t m = 0; m < nm; ++m)
      if (!p.streams[m] && scene.meshes[m].vertex_count())
        wwarn(d, fmt::format("mesh {} ('{}') has no {} array; its vertices get zeros", m, scene.meshes[m].name,
                             plan_label(p)));
  return plans;
}

Plan* find_plan(std::vector<Plan>& plans, Attribute a) {
  for (Plan& p : plans)
    if (p.attribute == a) return &p;
  return nullptr;
}

// The largest finite value above 0 (else 0): eight running maxima, so that the comparisons do
// not wait on each other (max over finite values does not depend on the order).
float largest_finite(const std::vector<float>& v) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  float top[8] = {};
  size_t i = 0;
  for (; i + 8 <= v.size(); i += 8)
    for (size_t k = 0; k < 8; ++k) top[k] = v[i + k] > top[k] && v[i + k] < inf ? v[i + k] : top[k];
  for (; i < v.size(); ++i) top[0] = v[i] > top[0] && v[i] < inf ? v[i] : top[0];
  float r = 0;
  for (const float t : top) r = t > r ? t : r;
  return r;
}

// Blend indices widen (ubyte -> ushort -> uint) when the skeleton or an index does not fit.
void widen_blend_indices(const Scene& scene, Plan& p, Diagnostics& d) {
  float top = 0;
  for (const VertexStream* s : p.streams)
    if (s) top = std::max(top, largest_finite(s->data));
  double need = std::max(double(top), double(scene.joints.size()) - 1);
  if (need <= ops::max_exact_integer(p.format)) return;
  ComponentType wide = need <= 65535 ? ComponentType::UShort : ComponentType::UInt;
  wwarn(d, fmt::format("blendindexes: the largest joint index is {:.0f} (skeleton of {} joints), more than {} "
                       "holds; written as {}",
                       top, scene.joints.size(), ops::component_name(p.format), ops::component_name(wide)));
  p.format = wide;
}

float default_value(Attribute a, uint32_t c) {
  return (c == 3 && (a == Attribute::Tangent || a == Attribute::Color)) ? 1.0f : 0.0f;
}

// Vertex values `i` of a position, normal or tangent stream with at least 3 of its `components`,
// as a file array of `size` >= 3 values (the fourth only when `size` is 4): Scene (x, y, z) ->
// Z-up (x, -z, y).
void zup_values(const float* i, uint32_t components, uint32_t size, Attribute a, float* o) {
  o[0] = i[0], o[1] = -i[2], o[2] = i[1];
  if (size == 4) o[3] = components > 3 ? i[3] : default_value(a, 3);
}

// The file values of one mesh's stream: `size` per vertex, Z-up, defaults where it has fewer.
void stream_values(const Plan& p, const VertexStream* s, size_t nv, std::vector<float>& out) {
  if (s && s->components == p.size && !is_spatial(p.attribute)) {
    out.assign(s->data.begin(), s->data.begin() + nv * p.size);
    return;
  }
  out.assign(nv * p.size, 0.0f);
  if (!s) return;
  if (is_spatial(p.attribute) && s->components >= 3 && p.size >= 3) {
    const float* d = s->data.data();
    for (size_t v = 0; v < nv; ++v)
      zup_values(d + v * s->components, s->components, p.size, p.attribute, out.data() + v * p.size);
    return;
  }
  for (size_t v = 0; v < nv; ++v) {
    float* o = out.data() + v * p.size;
    if (is_spatial(p.attribute)) {
      Vec3 z = axes::scene_to_zup(Vec3{s->get(v, 0), s->get(v, 1), s->get(v, 2)});
      for (uint32_t c = 0; c < p.size; ++c) o[c] = c < 3 ? z[c] : s->get(v, c, default_value(p.attribute, c));
    } else {
      for (uint32_t c = 0; c < p.size; ++c) o[c] = s->get(v, c, default_value(p.attribute, c));
    }
  }
}

// When a vertex has more than n influences, first merges the weights of repeated joint indices
// (a joint listed twice gets their sum, which skins identically), then keeps the n largest
// weights (ties: the earlier), in their original order, renormalised; 8- and 16-bit integer
// weights are made to sum exactly to the format's maximum, negative ones (a signed BYTE array can
// hold them) becoming 0 first. A vertex that fits keeps its float and 32-bit integer weights as
// they are (renormalising them again on every rewrite would drift by an ulp each time).
void blend_vertex(const float* idx, const float* in_wgt, uint32_t k, uint32_t n, ComponentType wformat, float* oi,
                  float* ow) {
  bool reduced = false;
  float sum = ops::largest_influences(idx, in_wgt, std::min(k, 64u), n, oi, ow, reduced);
  // 8- and 16-bit integer weights can sum exactly to their maximum through the Scene's floats;
  // 32-bit ones cannot (a float holds 24 bits), so they are kept and renormalised as floats are.
  const bool exact = ops::is_integer(wformat) && ops::component_size(wformat) <= 2;
  if (!reduced && !exact) return;  // fits: float (and 32-bit) weights are written as read
  if (exact) {  // integer weights cannot pull away from a joint: negatives become 0
    sum = 0;
    for (uint32_t c = 0; c < n; ++c) sum += ow[c] = ow[c] > 0 ? ow[c] : 0.0f;
  }
  if (!(sum > 0) || !std::isfinite(sum)) return;
  for (uint32_t c = 0; c < n; ++c) ow[c] /= sum;
  if (!exact) return;
  const double top = ops::integer_max(wformat);
  double q[4] = {0, 0, 0, 0}, total = 0;
  uint32_t largest = 0;
  for (uint32_t c = 0; c < n; ++c) {
    const double x = std::clamp(double(ow[c]) * top, 0.0, top);
    q[c] = double(int64_t(x + 0.5));  // round to nearest
    total += q[c];
    if (q[c] > q[largest]) largest = c;
  }
  q[largest] = std::clamp(q[largest] + (top - total), 0.0, top);  // the rounding remainder
  for (uint32_t c = 0; c < n; ++c) ow[c] = float(q[c] / top);
}

// The blend values of vertices [first, first + count), n per vertex.
void blend_values(const VertexStream* bi, const VertexStream* bw, size_t first, size_t count, uint32_t n,
                  ComponentType wformat, std::vector<float>& idx, std::vector<float>& wgt) {
  idx.assign(count * n, 0.0f);
  wgt.assign(count * n, 0.0f);
  const uint32_t k = std::min(bi->components, bw->components);
  for (size_t i = 0; i < count; ++i) {
    const size_t v = first + i;
    blend_vertex(bi->data.data() + v * bi->components, bw->data.data() + v * bw->components, k, n, wformat,
                 idx.data() + i * n, wgt.data() + i * n);
  }
}

struct Layout {
  uint64_t end = kHeaderSize;
  uint64_t place(uint64_t bytes, uint64_t align = 4) {
    if (!bytes) return 0;
    end = (end + align - 1) / align * align;
    uint64_t at = end;
    end += bytes;
    return at;
  }
};

struct Out {
  std::span<uint8_t> b;  // the whole file, zero-filled before encoding
  void u32(uint64_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
  void f32(uint64_t off, float v) { std::memcpy(b.data() + off, &v, 4); }
  void bytes(uint64_t off, const void* p, size_t n) {
    if (n) std::memcpy(b.data() + off, p, n);
  }
};

struct Writer {
  Writer(const Scene& s, const WriteOptions& o, Diagnostics& d) : scene(s), options(o), diags(d) {}
  const Scene& scene;
  const WriteOptions& options;
  Diagnostics& diags;
  TextTable text;
  std::vector<Plan> plans;
  std::vector<uint32_t> first_vertex;
  uint64_t num_vertexes = 0, num_triangles = 0;
  bool with_adjacency = false;
  ops::QuantizedFrames frames;
  std::vector<int32_t> pose_parents;
  std::vector<FrameBounds> bounds;
  std::string comment;
  std::vector<std::string> material_keys;  // per Scene material: its distinct string (ops/materials/material_names.h)
  Header h{};
  std::vector<uint64_t> ext_ofs;
  Out out;
};

uint32_t num_poses(const Scene& s) {
  if (s.animations.empty()) return 0;
  return s.joints.empty() ? s.animations[0].channels : uint32_t(s.joints.size());
}

// Frames hold quantised finite values only: a NaN or infinite channel value is stored as the
// channel's offset (the smallest finite value of the channel over all frames, 0 when it has
// none). Warned, naming the first (as vertex arrays and joint rests are).
void warn_non_finite_poses(Writer& w, const std::vector<float>& values, uint32_t np) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]) && !bad++) first = i;
  if (!bad) return;
  static constexpr const char* kChannel[] = {"translation x", "translation y", "translation z", "rotation x",
                                             "rotation y",    "rotation z",    "rotation w",    "scale x",
                                             "scale y",       "scale z"};
  const size_t per_frame = size_t(np) * 10, frame = first / per_frame, pose = first % per_frame / 10;
  size_t a = 0, f = frame;
  while (a < w.scene.animations.size() && f >= w.scene.animations[a].frame_count())
    f -= w.scene.animations[a++].frame_count();
  const std::string joint = pose < w.scene.joints.size() ? " ('" + w.scene.joints[pose].name + "')" : "";
  wwarn(w.diags, fmt::format("{} animation pose values are NaN or infinite (the first: animation '{}', frame {}, "
                             "pose {}{}, {}); IQM frames hold finite values only: each is written as its channel's "
                             "smallest finite value (0 when it has none)",
                             bad, a < w.scene.animations.size() ? w.scene.animations[a].name : "", f, pose, joint,
                             kChannel[first % 10]));
}

void prepare_animations(Writer& w) {
  const Scene& s = w.scene;
  const uint32_t np = num_poses(s);
  size_t total = 0;
  for (const Animation& a : s.animations) {
    if (a.channels != np)
      wfail(fmt::format("animation '{}' has {} poses per frame but the file has {} poses", a.name, a.channels, np));
    if (a.channels ? a.poses.size() % a.channels : a.poses.size())
      wfail(fmt::format("animation '{}': {} poses are not whole frames of {}", a.name, a.poses.size(), a.channels));
    total += a.frame_count();
  }
  if (total > 0xFFFFFFFFu) wfail(fmt::format("{} animation frames are more than IQM can count", total));
  std::vector<float> values;
  values.reserve(total * np * 10);
  for (const Animation& a : s.animations)
    for (const Transform& p : a.poses) {
      Transform z = axes::scene_to_zup(p);
      values.insert(values.end(), z.translation.begin(), z.translation.end());
      values.insert(values.end(), z.rotation.begin(), z.rotation.end());
      values.insert(values.end(), z.scale.begin(), z.scale.end());
    }
  warn_non_finite_poses(w, values, np);
  w.frames = ops::quantize_frames(values, np, 10, total);
  w.pose_parents.assign(np, -1);
  if (!s.joints.empty()) {
    for (uint32_t p = 0; p < np; ++p) w.pose_parents[p] = s.joints[p].parent;
  } else if (value_or_empty(s.iqm).pose_parents.size() == np) {
    w.pose_parents = value_or_empty(s.iqm).pose_parents;
  } else if (np) {
    wwarn(w.diags, fmt::format("the animations name no skeleton and no pose parents for their {} poses; every pose is "
                               "written as a root",
                               np));
  }
  // Placeholders: layout() places them; written_bounds() fills them once the arrays are encoded.
  if (w.options.bounds && total && w.num_vertexes) w.bounds.resize(total);
}

void prepare_triangles(Writer& w) {
  const Scene& s = w.scene;
  w.first_vertex.resize(s.meshes.size());
  for (size_t m = 0; m < s.meshes.size(); ++m) {
    w.first_vertex[m] = uint32_t(w.num_vertexes);
    w.num_vertexes += s.meshes[m].vertex_count();
    w.num_triangles += s.meshes[m].triangles.size() / 3;
    if (w.num_vertexes > 0xFFFFFFFFu || w.num_triangles > 0xFFFFFFFFu)
      wfail(fmt::format("more than 2^32 - 1 vertices or triangles: IQM cannot count them"));
  }
}

// Triangles [first, last) of the file (every mesh's in turn), straight into the output buffer (no
// copy of them is held).
void emit_triangles(Writer& w, uint64_t first, uint64_t last) {
  uint64_t at = 0;  // the file's number of the mesh's first triangle
  for (size_t m = 0; m < w.scene.meshes.size() && at < last; ++m) {
    const auto& t = w.scene.meshes[m].triangles;
    const uint64_t count = t.size() / 3;
    const uint64_t begin = std::max(first, at), end = std::min(last, at + count);
    const uint32_t base = w.first_vertex[m];
    uint8_t* dst = w.out.b.data() + w.h.ofs_triangles + begin * kTriangleSize;
    for (uint64_t i = 3 * (begin - at); i < 3 * (end - at); i += 3, dst += kTriangleSize) {
      const uint32_t v[3] = {base + t[i], base + t[i + 2], base + t[i + 1]};  // counter-clockwise -> clockwise
      std::memcpy(dst, v, sizeof v);
    }
    at += count;
  }
}

void prepare_text(Writer& w) {
  const Scene& s = w.scene;
  size_t renamed = 0;
  w.material_keys = ops::material_keys(s, &renamed);
  if (renamed)
    w.diags.add(warning("", fmt::format("{} materials have the name of an earlier one: written with a suffix _2, _3, "
                                        "... (IQM keys materials by name)",
                                        renamed)));
  for (const Mesh& m : s.meshes) {
    w.text.add(m.name);
    if (m.material >= 0) w.text.add(w.material_keys[size_t(m.material)]);
  }
  for (const Plan& p : w.plans)
    if (p.attribute == Attribute::Custom) w.text.add(p.name);
  for (const Joint& j : s.joints) w.text.add(j.name);
  for (const Animation& a : s.animations) w.text.add(a.name);
  for (const IqmExtension& e : value_or_empty(s.iqm).extensions) w.text.add(e.name);
  while (w.text.bytes.size() % 4) w.text.bytes += '\0';
  if (!s.comment.empty()) {
    w.comment = s.comment;
    w.comment += '\0';
    while (w.comment.size() % 4) w.comment += '\0';
  }
}

void check_u32(uint64_t v, const char* what) {
  if (v > 0xFFFFFFFFu)
    wfail(fmt::format("the file would need {} = {}, more than IQM's 32-bit fields can hold (4 GiB)", what, v));
}

void layout(Writer& w) {
  Header& h = w.h;
  Layout l;
  h.version = 2;
  h.num_text = uint32_t(w.text.bytes.size());
  h.ofs_text = uint32_t(l.place(h.num_text));
  h.num_meshes = uint32_t(w.scene.meshes.size());
  h.ofs_meshes = uint32_t(l.place(uint64_t(h.num_meshes) * kMeshSize));
  h.num_vertexarrays = uint32_t(w.plans.size());
  h.num_vertexes = uint32_t(w.num_vertexes);
  h.ofs_vertexarrays = uint32_t(l.place(uint64_t(h.num_vertexarrays) * kArraySize));
  for (Plan& p : w.plans) {
    const uint64_t cs = ops::component_size(p.format);
    p.offset = l.place(w.num_vertexes * p.size * cs, std::max<uint64_t>(cs, 4));
    check_u32(p.offset, "a vertex array offset");
  }
  h.num_triangles = uint32_t(w.num_triangles);
  h.ofs_triangles = uint32_t(l.place(w.num_triangles * kTriangleSize));
  h.ofs_adjacency = uint32_t(l.place(w.with_adjacency ? w.num_triangles * kTriangleSize : 0));
  h.num_joints = uint32_t(w.scene.joints.size());
  h.ofs_joints = uint32_t(l.place(uint64_t(h.num_joints) * kJointSize[2]));
  h.num_poses = uint32_t(w.frames.poses);
  h.ofs_poses = uint32_t(l.place(uint64_t(h.num_poses) * kPoseSize[2]));
  h.num_anims = uint32_t(w.scene.animations.size());
  h.ofs_anims = uint32_t(l.place(uint64_t(h.num_anims) * kAnimSize));
  h.num_frames = uint32_t(w.frames.frames);
  h.num_framechannels = uint32_t(w.frames.stored_channels());
  h.ofs_frames = uint32_t(l.place(w.frames.data.size() * 2));
  h.ofs_bounds = uint32_t(l.place(w.bounds.size() * kBoundsSize));
  h.num_comment = uint32_t(w.comment.size());
  h.ofs_comment = uint32_t(l.place(w.comment.size()));
  for (const IqmExtension& e : value_or_empty(w.scene.iqm).extensions) {
    w.ext_ofs.push_back(l.place(kExtensionSize));
    l.place(e.data.size());
    check_u32(e.data.size(), "an extension's size");
  }
  h.num_extensions = uint32_t(value_or_empty(w.scene.iqm).extensions.size());
  h.ofs_extensions = w.ext_ofs.empty() ? 0 : uint32_t(w.ext_ofs[0]);
  check_u32(l.end, "a file size");
  h.filesize = uint32_t(l.end);
}

// A float array straight from its stream into the output, where the stream has the array's
// components, or at least 3 of a position, normal or tangent of 3 or 4 (turned to Z-up): no copy
// of the stream in between. False when it takes the general way.
bool emit_floats_directly(const Plan& p, const VertexStream* s, size_t nv, uint8_t* dst) {
  if (p.format != ComponentType::Float || !s) return false;
  const float* in = s->data.data();
  if (!is_spatial(p.attribute)) {
    if (s->components != p.size) return false;
    if (nv) std::memcpy(dst, in, nv * p.size * 4);
    return true;
  }
  if (s->components < 3 || p.size < 3 || p.size > 4) return false;
  for (size_t v = 0; v < nv; ++v) {
    float o[4];
    zup_values(in + v * s->components, s->components, p.size, p.attribute, o);
    std::memcpy(dst + v * p.size * 4, o, p.size * 4);
  }
  return true;
}

// One mesh's blend indices and weights, in blocks of vertices: the values of a block are worked
// out (largest influences, weights that sum exactly) and encoded before the next, so the floats in
// between take a few hundred KB instead of 8 bytes per value of the whole mesh.
template <class Pick>
void emit_blend(Writer& w, Pick pick, Plan& pbi, Plan& pbw, size_t m, size_t nv) {
  constexpr size_t kBlock = 16384;
  std::vector<float> idx, wgt;
  for (size_t first = 0; first < nv; first += kBlock) {
    const size_t count = std::min(kBlock, nv - first);
    blend_values(pbi.streams[m], pbw.streams[m], first, count, pbi.size, pbw.format, idx, wgt);
    for (Plan* p : {&pbi, &pbw}) {
      if (!pick(*p)) continue;
      const uint64_t at = uint64_t(w.first_vertex[m]) + first;
      uint8_t* dst = w.out.b.data() + p->offset + at * p->size * ops::component_size(p->format);
      const std::vector<float>& values = p == &pbi ? idx : wgt;
      ops::encode(p->format, normalized(p->attribute, p->format), values.data(), count * p->size, dst, p->stats);
    }
  }
}

// Encodes the vertex arrays whose plan `pick` accepts into the output buffer.
template <class Pick>
void emit_arrays(Writer& w, Pick pick) {
  Plan* pbi = find_plan(w.plans, Attribute::BlendIndices);
  Plan* pbw = find_plan(w.plans, Attribute::BlendWeights);
  const bool blend = pbi && pbw && (pick(*pbi) || pick(*pbw));
  std::vector<float> tmp;
  for (size_t m = 0; m < w.scene.meshes.size(); ++m) {
    const size_t nv = w.scene.meshes[m].vertex_count();
    const bool paired = blend && pbi->streams[m] && pbw->streams[m];
    if (paired) emit_blend(w, pick, *pbi, *pbw, m, nv);
    for (Plan& p : w.plans) {
      if (!pick(p) || (paired && (&p == pbi || &p == pbw))) continue;
      uint8_t* dst = w.out.b.data() + p.offset + uint64_t(w.first_vertex[m]) * p.size * ops::component_size(p.format);
      if (emit_floats_directly(p, p.streams[m], nv, dst)) continue;
      stream_values(p, p.streams[m], nv, tmp);
      ops::encode(p.format, normalized(p.attribute, p.format), tmp.data(), nv * p.size, dst, p.stats);
    }
  }
}

// The triangles and positions, which the adjacency waits for: on a large model a thread writes
// the second half of the triangles while this one writes the first half and the positions (most
// of their time is the system mapping the output's fresh pages, which runs on both cores).
constexpr uint64_t kThreadedEmit = 1 << 16;

void emit_triangles_and_positions(Writer& w) {
  auto positions = [&] { emit_arrays(w, [](const Plan& p) { return p.attribute == Attribute::Position; }); };
  const uint64_t half = w.num_triangles / 2;
  std::thread helper;
  std::exception_ptr failed;
  if (w.options.threads != 1 && w.num_triangles >= kThreadedEmit) {
    try {
      helper = std::thread([&] {
        try {
          emit_triangles(w, half, w.num_triangles);
        } catch (...) {
          failed = std::current_exception();
        }
      });
    } catch (const std::system_error&) {  // no thread to be had: all here
    }
  }
  try {
    emit_triangles(w, 0, helper.joinable() ? half : w.num_triangles);
    positions();
  } catch (...) {
    if (helper.joinable()) helper.join();
    throw;
  }
  if (helper.joinable()) helper.join();
  if (failed) std::rethrow_exception(failed);
}

void warn_encoding(Writer& w) {
  for (const Plan& p : w.plans) {
    if (p.stats.clamped)
      wwarn(w.diags, fmt::format("vertex array {} ({}): {} values out of range were clamped", plan_label(p),
                                 ops::component_name(p.format), p.stats.clamped));
    if (p.stats.nan)
      wwarn(w.diags, fmt::format("vertex array {} ({}): {} NaN values were written as 0", plan_label(p),
                                 ops::component_name(p.format), p.stats.nan));
  }
}

// Written in place, from the triangles and positions in the output buffer (decoded when the
// positions are not 3 floats).
void compute_adjacency(Writer& w) {
  if (!w.with_adjacency) return;
  const Plan* pos = find_plan(w.plans, Attribute::Position);
  const uint8_t* out = w.out.b.data();
  std::span<const uint32_t> triangles(reinterpret_cast<const uint32_t*>(out + w.h.ofs_triangles), w.num_triangles * 3);
  std::span<uint32_t> adjacency(reinterpret_cast<uint32_t*>(w.out.b.data() + w.h.ofs_adjacency), w.num_triangles * 3);
  std::vector<float> xyz;
  std::span<const float> positions;
  if (pos->format == ComponentType::Float && pos->size == 3) {
    positions = {reinterpret_cast<const float*>(out + pos->offset), size_t(w.num_vertexes * 3)};
  } else {
    xyz.assign(w.num_vertexes * 3, 0.0f);  // what the file holds, decoded back
    ops::decode_strided(pos->format, normalized(pos->attribute, pos->format), out + pos->offset, w.num_vertexes,
                        std::min(pos->size, 3u), xyz.data(), 3);
    positions = xyz;
  }
  ops::triangle_adjacency(positions, triangles, adjacency);
}

// Bounds of what a loader will see: the quantised frames and the vertex arrays as encoded
// (positions, blend indices and weights, which encoding may clamp or renormalise), not the
// Scene's values. So a file read back writes the same bounds again (the round-trip fuzzer found
// bounds moving on every rewrite, from unquantised poses and from weights summing above 1).
void written_bounds(Writer& w, unsigned threads) {
  if (w.bounds.empty()) return;
  Scene posed;  // the skeleton and the frames as quantised; the vertices are passed as arrays
  posed.joints = w.scene.joints;
  posed.animations = w.scene.animations;
  const ops::QuantizedFrames& q = w.frames;
  std::vector<float> values(q.poses * q.channels);
  size_t frame = 0;
  for (Animation& a : posed.animations) {
    for (size_t f = 0; f < a.frame_count(); ++f, ++frame) {
      ops::dequantize_frames(q, frame, 1, values.data());
      for (size_t p = 0; p < q.poses; ++p) a.poses[f * a.channels + p] = transform_from(&values[p * q.channels], 2);
    }
  }
  const Plan* pos = find_plan(w.plans, Attribute::Position);
  const Plan* bi = find_plan(w.plans, Attribute::BlendIndices);
  const Plan* bw = find_plan(w.plans, Attribute::BlendWeights);
  if (!pos || pos->size < 3) {
    w.bounds = ops::skinned_frame_bounds(posed, {}, threads);
    return;
  }
  // Byte weights are read through the values they decode to, so the bounds use exactly what a
  // loader's decoding gives.
  float byte_weight[256];
  if (bw) {
    uint8_t all[256];
    for (int i = 0; i < 256; ++i) all[i] = uint8_t(i);
    ops::decode(ComponentType::UByte, normalized(bw->attribute, ComponentType::UByte), all, 256, byte_weight);
  }
  std::vector<std::vector<float>> decoded;  // arrays whose encoding is not read in place
  decoded.reserve(w.scene.meshes.size() * 3);
  auto array_of = [&](const Plan& p, size_t m) -> const uint8_t* {
    return w.out.b.data() + p.offset + uint64_t(w.first_vertex[m]) * p.size * ops::component_size(p.format);
  };
  auto decode = [&](const Plan& p, size_t m, size_t nv) -> const float* {
    std::vector<float>& v = decoded.emplace_back(nv * p.size);
    ops::decode(p.format, normalized(p.attribute, p.format), array_of(p, m), nv * p.size, v.data());
    return v.data();
  };
  std::vector<ops::SkinArrays> meshes;
  for (size_t m = 0; m < w.scene.meshes.size(); ++m) {
    const size_t nv = w.scene.meshes[m].vertex_count();
    if (!pos->streams[m] || !nv) continue;
    ops::SkinArrays a;
    a.count = nv;
    a.position_stride = pos->size;
    // Float positions are the Scene's own values (the Z-up axis swap is a negation, undone
    // exactly), unless encoding changed some (NaN written as 0).
    const VertexStream* ps = pos->streams[m];
    if (pos->format == ComponentType::Float && !pos->stats.nan && !pos->stats.clamped && ps->components == pos->size) {
      a.positions = ps->data.data();
    } else {
      VertexStream st;
      st.attribute = Attribute::Position;
      st.components = st.source_size = pos->size;
      st.data.resize(nv * pos->size);
      ops::decode(pos->format, normalized(pos->attribute, pos->format), array_of(*pos, m), nv * pos->size,
                  st.data.data());
      axes::stream_zup_to_scene(st);
      a.positions = decoded.emplace_back(std::move(st.data)).data();
    }
    if (bi && bw && bi->streams[m] && bw->streams[m]) {
      a.influences = std::min(bi->size, bw->size);
      a.index_stride = bi->size;
      a.weight_stride = bw->size;
      if (bi->format == ComponentType::UByte)
        a.index_bytes = array_of(*bi, m);
      else
        a.indices = decode(*bi, m, nv);
      if (bw->format == ComponentType::UByte) {
        a.weight_bytes = array_of(*bw, m);
        a.weight_values = byte_weight;
      } else {
        a.weights = decode(*bw, m, nv);
      }
    }
    meshes.push_back(a);
  }
  w.bounds = ops::skinned_frame_bounds(posed, meshes, threads);
}

// The adjacency needs only the positions and triangles in the output buffer, so it starts as
// soon as they are there: on a thread of its own while the other arrays are encoded and the
// frame bounds computed (which use WriteOptions::threads themselves), unless the writer may use
// one thread only or the model is small; the parts of the buffer each side writes are disjoint.
// On 2 cores this saves about 100 ms of 0.95 s converting a 1M-vertex model; it adds the
// adjacency's buckets (about 36 MB there) to the memory the encoding uses at the same time.
class AdjacencyJob {
 public:
  explicit AdjacencyJob(Writer& w) : w_(w) {
    if (!w.with_adjacency) return;
    if (w.options.threads != 1 && w.num_triangles >= kThreadedAdjacency) {
      try {
        thread_ = std::thread([this] {
          try {
            compute_adjacency(w_);
          } catch (...) {
            failed_ = std::current_exception();
          }
        });
        return;
      } catch (const std::system_error&) {  // no thread to be had: here and now
      }
    }
    compute_adjacency(w);
  }
  AdjacencyJob(const AdjacencyJob&) = delete;
  AdjacencyJob& operator=(const AdjacencyJob&) = delete;
  ~AdjacencyJob() {
    if (thread_.joinable()) thread_.join();  // also when the writer throws meanwhile
  }
  void finish() {
    if (thread_.joinable()) thread_.join();
    if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
  }

 private:
  static constexpr uint64_t kThreadedAdjacency = 1 << 16;
  Writer& w_;
  std::thread thread_;
  std::exception_ptr failed_;
};

void emit_skeleton(Writer& w) {
  const Header& h = w.h;
  for (size_t j = 0; j < w.scene.joints.size(); ++j) {
    const Joint& joint = w.scene.joints[j];
    const uint64_t r = h.ofs_joints + j * kJointSize[2];
    Transform z = axes::scene_to_zup(joint.rest);
    w.out.u32(r, w.text.at(joint.name));
    w.out.u32(r + 4, uint32_t(joint.parent));
    float c[10] = {z.translation[0], z.translation[1], z.translation[2], z.rotation[0], z.rotation[1],
                   z.rotation[2],    z.rotation[3],    z.scale[0],       z.scale[1],    z.scale[2]};
    w.out.bytes(r + 8, c, sizeof c);
  }
  for (size_t p = 0; p < w.frames.poses; ++p) {
    const uint64_t r = h.ofs_poses + p * kPoseSize[2];
    w.out.u32(r, uint32_t(w.pose_parents[p]));
    w.out.u32(r + 4, w.frames.masks[p]);
    w.out.bytes(r + 8, &w.frames.offsets[p * 10], 40);
    w.out.bytes(r + 48, &w.frames.scales[p * 10], 40);
  }
  w.out.bytes(h.ofs_frames, w.frames.data.data(), w.frames.data.size() * 2);
}

void emit_animations(Writer& w) {
  const Header& h = w.h;
  uint32_t first = 0;
  for (size_t a = 0; a < w.scene.animations.size(); ++a) {
    const Animation& anim = w.scene.animations[a];
    const uint64_t r = h.ofs_anims + a * kAnimSize;
    w.out.u32(r, w.text.at(anim.name));
    w.out.u32(r + 4, first);
    w.out.u32(r + 8, uint32_t(anim.frame_count()));
    w.out.f32(r + 12, anim.framerate);
    w.out.u32(r + 16, anim.loop ? kLoop : 0);
    first += uint32_t(anim.frame_count());
  }
  for (size_t f = 0; f < w.bounds.size(); ++f) {
    const FrameBounds& b = w.bounds[f];
    // Scene (x, y, z) -> Z-up (x, -z, y): the box's z range flips into y.
    float v[8] = {b.min[0], -b.max[2], b.min[1], b.max[0], -b.min[2], b.max[1], b.horizontal_radius, b.radius};
    w.out.bytes(h.ofs_bounds + f * kBoundsSize, v, sizeof v);
  }
}

void emit_rest(Writer& w) {
  const Header& h = w.h;
  std::memcpy(w.out.b.data(), kMagic, 16);
  std::memcpy(w.out.b.data() + 16, &h, sizeof h);
  w.out.bytes(h.ofs_text, w.text.bytes.data(), w.text.bytes.size());
  uint32_t first_triangle = 0;
  for (size_t m = 0; m < w.scene.meshes.size(); ++m) {
    const Mesh& mesh = w.scene.meshes[m];
    const uint32_t num_triangles = uint32_t(mesh.triangles.size() / 3);
    uint32_t v[6] = {
        w.text.at(mesh.name), mesh.material >= 0 ? w.text.at(w.material_keys[size_t(mesh.material)]) : 0,
        w.first_vertex[m],    uint32_t(mesh.vertex_count()),
        first_triangle,       num_triangles};
    w.out.bytes(h.ofs_meshes + m * kMeshSize, v, sizeof v);
    first_triangle += num_triangles;
  }
  for (size_t i = 0; i < w.plans.size(); ++i) {
    const Plan& p = w.plans[i];
    uint32_t type = p.attribute == Attribute::Custom ? kCustom + w.text.at(p.name) : p.type;
    uint32_t v[5] = {type, 0, uint32_t(p.format), p.size, uint32_t(p.offset)};
    w.out.bytes(h.ofs_vertexarrays + i * kArraySize, v, sizeof v);
  }
  w.out.bytes(h.ofs_comment, w.comment.data(), w.comment.size());
  const auto& ext = value_or_empty(w.scene.iqm).extensions;
  for (size_t e = 0; e < ext.size(); ++e) {
    const uint64_t r = w.ext_ofs[e];
    const uint64_t data = ext[e].data.empty() ? 0 : r + kExtensionSize;
    uint32_t v[4] = {w.text.at(ext[e].name), uint32_t(ext[e].data.size()), uint32_t(data),
                     e + 1 < ext.size() ? uint32_t(w.ext_ofs[e + 1]) : 0u};
    w.out.bytes(r, v, sizeof v);
    w.out.bytes(data, ext[e].data.data(), ext[e].data.size());
  }
}

// Frames whose poses never move take no bytes in IQM, so a long still animation can need more
// memory than the file written justifies to the reader (12 bytes per file byte, plus 16 MB).
// When the animations' poses outweigh their frame data that much, the file is read back, and
// the write fails rather than give a file meshport itself would refuse.
void refuse_unreadable_animations(const Scene& scene, const Header& h, std::span<const uint8_t> out) {
  u128 poses = 0;
  for (const Animation& a : scene.animations) poses += u128(a.frame_count()) * a.channels * sizeof(Transform);
  const u128 frame_bytes = u128(h.num_frames) * h.num_framechannels * 2;
  if (poses <= frame_bytes * kBudgetFactor) return;
  try {
    Diagnostics ignored;
    read(out, "the IQM written", ignored);
  } catch (const Error& e) {
    wfail(fmt::format("the animations hold {} poses, mostly still, which a {}-byte IQM cannot justify when read: {}",
                      uint64_t(poses / sizeof(Transform)), out.size(), e.diagnostic().message));
  }
}

}  // namespace

Scene read(std::span<const uint8_t> data, const std::string& name, Diagnostics& diags, unsigned threads) {
  In in{data.data(), data.size(), name, diags, uint64_t(data.size()) * kBudgetFactor + kBudgetSlack};
  Header h = read_header(in);
  // Decision: shipped animation files (no meshes) count vertexes without any vertex array; the
  // engines loading them ignore the count, and so does meshport, with a warning.
  if (h.num_vertexes && !h.num_vertexarrays) {
    in.warn(FIELD(num_vertexes), fmt::format("num_vertexes is {} but the file has no vertex arrays: read as 0",
                                             h.num_vertexes));
    h.num_vertexes = 0;
  }
  check_sections(in, h);
  Scene s;
  std::vector<Array> arrays = read_arrays(in, h);
  read_meshes(in, h, arrays, s, threads);
  read_joints(in, h, s);
  read_animations(in, h, s);
  read_comment(in, h, s);
  read_extensions(in, h, s);
  return s;
}

void write(const Scene& input, const WriteOptions& options, Diagnostics& diags, const Buffer& buffer) {
  ops::check_scene(input);
  std::optional<Scene> storage;
  const Scene& scene = ops::without_morph_only_clips(input, storage, "IQM", diags);
  Writer w(scene, options, diags);
  w.plans = plan_arrays(scene, diags);
  if (Plan* bi = find_plan(w.plans, Attribute::BlendIndices)) {
    widen_blend_indices(scene, *bi, diags);
    if (Plan* bw = find_plan(w.plans, Attribute::BlendWeights)) bi->size = bw->size = std::max(bi->size, bw->size);
  }
  prepare_triangles(w);
  prepare_animations(w);
  prepare_text(w);
  w.with_adjacency = options.adjacency && find_plan(w.plans, Attribute::Position) && w.num_triangles;
  layout(w);
  w.out.b = buffer(w.h.filesize);
  emit_triangles_and_positions(w);
  AdjacencyJob adjacency(w);  // from the positions as encoded
  emit_arrays(w, [](const Plan& p) { return p.attribute != Attribute::Position; });
  warn_encoding(w);
  written_bounds(w, w.options.threads);
  adjacency.finish();
  emit_skeleton(w);
  emit_animations(w);
  emit_rest(w);
  refuse_unreadable_animations(scene, w.h, w.out.b);
}

std::vector<uint8_t> write(const Scene& scene, const WriteOptions& options, Diagnostics& diags) {
  std::vector<uint8_t> out;
  write(scene, options, diags, [&](size_t size) {
    out.assign(size, 0);
    return std::span<uint8_t>(out);
  });
  return out;
}

}  // namespace meshport::iqm
