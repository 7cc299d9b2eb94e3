// IQM reader (v1, v2) and writer (v2): src/formats/iqm/iqm.cpp. Test files are built in memory by
// a small byte writer; the corpus (MESHPORT_CORPUS) supplies mrfixit and the reference
// compiler's outputs.
#include "formats/iqm/iqm.h"

#include "ops/mesh/adjacency.h"
#include "ops/mesh/axes.h"
#include "ops/mesh/components.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

namespace meshport_test_iqm {

using namespace meshport;
using testutil::corpus;

namespace {

// ---------------------------------------------------------------------------------------------
// Byte writer and a small IQM file description

struct Bytes {
  std::vector<uint8_t> b;
  size_t size() const { return b.size(); }
  template <class T>
  size_t put(T v) {
    size_t at = b.size();
    b.resize(at + sizeof v);
    std::memcpy(b.data() + at, &v, sizeof v);
    return at;
  }
  size_t raw(const void* p, size_t n) {
    size_t at = b.size();
    b.resize(at + n);
    if (n) std::memcpy(b.data() + at, p, n);
    return at;
  }
  void align(size_t a) {
    while (b.size() % a) b.push_back(0);
  }
  template <class T>
  void patch(size_t off, T v) {
    std::memcpy(b.data() + off, &v, sizeof v);
  }
};

template <class T>
std::vector<uint8_t> raw(std::initializer_list<T> v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), std::data(v), out.size());
  return out;
}

struct Text {
  std::string bytes{std::string(1, '\0')};
  uint32_t add(const std::string& s) {
    uint32_t at = uint32_t(bytes.size());
    bytes += s;
    bytes += '\0';
    return at;
  }
};

struct Spec {
  uint32_t version = 2;
  std::string text;
  std::vector<std::array<uint32_t, 6>> meshes;  // name material first_vertex num_vertexes first_triangle num_triangles
  struct Arr {
    uint32_t type, format, size;
    std::vector<uint8_t> data;
  };
  std::vector<Arr> arrays;
  uint32_t num_vertexes = 0;
  std::vector<uint32_t> triangles;
  bool adjacency = false;
  std::vector<std::vector<uint8_t>> joints, poses, anims;
  uint32_t num_frames = 0, num_framechannels = 0;
  std::vector<uint16_t> frames;
  bool bounds = false;
  std::string comment;
  struct Ext {
    uint32_t name;
    std::vector<uint8_t> data;
  };
  std::vector<Ext> extensions;
  size_t misalign = 0;  // extra bytes before every section: 0 gives a 4-aligned layout
};

struct Built {
  std::vector<uint8_t> bytes;
  testutil::IqmHeader h;
  std::vector<size_t> array_records, array_data, ext_records, ext_data;
  std::vector<std::pair<std::string, size_t>> sections;  // name and start, in file order
};

// Header field offsets.
constexpr int64_t kVersion = 16, kFilesize = 20, kNumText = 28, kNumMeshes = 36, kOfsMeshes = 40, kNumVertexarrays = 44,
                  kNumVertexes = 48, kNumTriangles = 56, kOfsAdjacency = 64, kNumJoints = 68, kNumPoses = 76,
                  kNumAnims = 84, kNumFrames = 92, kNumFramechannels = 96, kOfsBounds = 104, kNumComment = 108,
                  kNumExtensions = 116, kOfsExtensions = 120;

Built build(const Spec& s) {
  Built out;
  Bytes w;
  w.raw("INTERQUAKEMODEL", 16);
  w.b.resize(124);
  std::array<uint32_t, 27> h{};
  auto section = [&](const char* name, size_t align = 4) {
    w.align(align);
    for (size_t i = 0; i < s.misalign; ++i) w.b.push_back(0xEE);
    out.sections.emplace_back(name, w.size());
    return uint32_t(w.size());
  };
  h[0] = s.version;
  h[3] = uint32_t(s.text.size());
  if (!s.text.empty()) h[4] = section("text"), w.raw(s.text.data(), s.text.size());
  h[5] = uint32_t(s.meshes.size());
  if (!s.meshes.empty()) h[6] = section("meshes");
  for (auto& m : s.meshes) w.raw(m.data(), 24);
  h[7] = uint32_t(s.arrays.size());
  h[8] = s.num_vertexes;
  if (!s.arrays.empty()) h[9] = section("vertexarrays");
  for (auto& a : s.arrays) {
    out.array_records.push_back(w.size());
    uint32_t rec[5] = {a.type, 0, a.format, a.size, 0};
    w.raw(rec, 20);
  }
  for (size_t i = 0; i < s.arrays.size(); ++i) {
    uint32_t at = section(fmt::format("vertex data {}", i).c_str());
    out.array_data.push_back(at);
    w.patch<uint32_t>(out.array_records[i] + 16, at);
    w.raw(s.arrays[i].data.data(), s.arrays[i].data.size());
  }
  h[10] = uint32_t(s.triangles.size() / 3);
  if (!s.triangles.empty()) h[11] = section("triangles"), w.raw(s.triangles.data(), s.triangles.size() * 4);
  if (s.adjacency && !s.triangles.empty()) {
    h[12] = section("adjacency");
    for (size_t i = 0; i < s.triangles.size(); ++i) w.put<uint32_t>(0xFFFFFFFFu);
  }
  h[13] = uint32_t(s.joints.size());
  if (!s.joints.empty()) h[14] = section("joints");
  for (auto& j : s.joints) w.raw(j.data(), j.size());
  h[15] = uint32_t(s.poses.size());
  if (!s.poses.empty()) h[16] = section("poses");
  for (auto& p : s.poses) w.raw(p.data(), p.size());
  h[17] = uint32_t(s.anims.size());
  if (!s.anims.empty()) h[18] = section("anims");
  for (auto& a : s.anims) w.raw(a.data(), a.size());
  h[19] = s.num_frames;
  h[20] = s.num_framechannels;
  if (!s.frames.empty()) h[21] = section("frames"), w.raw(s.frames.data(), s.frames.size() * 2);
  if (s.bounds && s.num_frames) {
    h[22] = section("bounds");
    for (uint32_t f = 0; f < s.num_frames * 8; ++f) w.put<float>(0.0f);
  }
  h[23] = uint32_t(s.comment.size());
  if (!s.comment.empty()) h[24] = section("comment"), w.raw(s.comment.data(), s.comment.size());
  h[25] = uint32_t(s.extensions.size());
  for (size_t e = 0; e < s.extensions.size(); ++e) {
    out.ext_records.push_back(section(fmt::format("extension {}", e).c_str()));
    uint32_t rec[4] = {s.extensions[e].name, uint32_t(s.extensions[e].data.size()), 0, 0};
    w.raw(rec, 16);
    uint32_t data = s.extensions[e].data.empty() ? 0 : section(fmt::format("extension data {}", e).c_str());
    out.ext_data.push_back(data);
    w.patch<uint32_t>(out.ext_records[e] + 8, data);
    w.raw(s.extensions[e].data.data(), s.extensions[e].data.size());
    if (e) w.patch<uint32_t>(out.ext_records[e - 1] + 12, uint32_t(out.ext_records[e]));
  }
  if (!s.extensions.empty()) h[26] = uint32_t(out.ext_records[0]);
  w.align(4);
  h[1] = uint32_t(w.size());
  std::memcpy(w.b.data() + 16, h.data(), sizeof h);
  out.bytes = std::move(w.b);
  out.h = testutil::iqm_header(out.bytes);
  return out;
}

std::vector<uint8_t> joint2(uint32_t name, int32_t parent, std::array<float, 10> c) {
  Bytes b;
  b.put(name);
  b.put(parent);
  b.raw(c.data(), 40);
  return b.b;
}
std::vector<uint8_t> joint1(uint32_t name, int32_t parent, std::array<float, 9> c) {
  Bytes b;
  b.put(name);
  b.put(parent);
  b.raw(c.data(), 36);
  return b.b;
}
template <size_t N>
std::vector<uint8_t> pose(int32_t parent, uint32_t mask, std::array<float, N> offset, std::array<float, N> scale) {
  Bytes b;
  b.put(parent);
  b.put(mask);
  b.raw(offset.data(), N * 4);
  b.raw(scale.data(), N * 4);
  return b.b;
}
std::vector<uint8_t> anim(uint32_t name, uint32_t first, uint32_t count, float fps, uint32_t flags) {
  Bytes b;
  b.put(name);
  b.put(first);
  b.put(count);
  b.put(fps);
  b.put(flags);
  return b.b;
}

constexpr std::array<float, 10> kIdentity{0, 0, 0, 0, 0, 0, 1, 1, 1, 1};

// A small skinned, animated quad with every section present:
// text, 1 mesh, 4 arrays (position float3, texcoord float2, blendindexes ubyte4, blendweights
// ubyte4), 2 triangles, adjacency, 2 joints, 2 poses, 1 animation of 3 frames (pose 0 animates
// Tx), bounds, a comment and 2 extensions.
struct Small {
  Text text;
  uint32_t m, mat, root, child, run, ext1, ext2;
  Spec spec;
  Small() {
    m = text.add("quad");
    mat = text.add("skin.TGA");
    root = text.add("root");
    child = text.add("child");
    run = text.add("run");
    ext1 = text.add("EXT_one");
    ext2 = text.add("EXT_two");
    spec.text = text.bytes;
    spec.meshes.push_back({m, mat, 0, 4, 0, 2});
    spec.num_vertexes = 4;
    spec.arrays.push_back({0, 7, 3, raw<float>({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0})});
    spec.arrays.push_back({1, 7, 2, raw<float>({0, 0, 1, 0, 1, 1, 0, 1})});
    spec.arrays.push_back({4, 1, 4, raw<uint8_t>({0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0})});
    spec.arrays.push_back({5, 1, 4, raw<uint8_t>({255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 128, 127, 0, 0})});
    spec.triangles = {0, 1, 2, 0, 2, 3};
    spec.adjacency = true;
    spec.joints.push_back(joint2(root, -1, kIdentity));
    spec.joints.push_back(joint2(child, 0, {1, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
    spec.poses.push_back(pose<10>(-1, 0x1, kIdentity, {0.5f / 65535, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    spec.poses.push_back(pose<10>(0, 0x0, {1, 0, 0, 0, 0, 0, 1, 1, 1, 1}, {}));
    spec.anims.push_back(anim(run, 0, 3, 30, 1));
    spec.num_frames = 3;
    spec.num_framechannels = 1;
    spec.frames = {0, 65535, 32768};
    spec.bounds = true;
    spec.comment = std::string("made by hand\0\0\0\0", 16);
    spec.extensions.push_back({ext1, {1, 2, 3, 0, 5}});
    spec.extensions.push_back({ext2, {0xAA, 0xBB, 0xCC, 0xDD}});
  }
};

Scene read_bytes(const std::vector<uint8_t>& b, Diagnostics* d = nullptr) {
  Diagnostics local;
  return iqm::read(b, "t.iqm", d ? *d : local);
}

std::vector<uint8_t> write_scene(const Scene& s, Diagnostics* d = nullptr, WriteOptions o = {}) {
  Diagnostics local;
  return iqm::write(s, o, d ? *d : local);
}

// Expects iqm::read to fail at `offset` with exactly `message`.
void expect_error(const std::vector<uint8_t>& b, int64_t offset, const std::string& message) {
  try {
    read_bytes(b);
    ADD_FAILURE() << "expected an error: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, message);
    EXPECT_EQ(e.diagnostic().offset, offset) << message;
    EXPECT_EQ(e.diagnostic().file, "t.iqm");
  }
}

bool has_warning(const Diagnostics& d, int64_t offset, const std::string& part) {
  for (const auto& i : d.items)
    if (i.severity == Severity::Warning && i.offset == offset && i.message.find(part) != std::string::npos) return true;
  return false;
}

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

size_t adjacency_links(const std::vector<uint8_t>& b) {
  auto h = testutil::iqm_header(b);
  if (!h.ofs_adjacency) return 0;
  size_t n = 0;
  for (size_t i = 0; i < size_t(h.num_triangles) * 3; ++i)
    n += testutil::peek<uint32_t>(b, h.ofs_adjacency + i * 4) != ops::kNoAdjacent;
  return n;
}

template <class T>
T field(const std::vector<uint8_t>& b, size_t off) {
  return testutil::peek<T>(b, off);
}

VertexStream stream(Attribute a, uint32_t components, std::vector<float> data, ComponentType f = ComponentType::Float,
                    uint32_t source_size = 0) {
  VertexStream s;
  s.attribute = a;
  s.components = components;
  s.data = std::move(data);
  s.format = f;
  s.source_size = source_size;
  return s;
}

Scene triangle_scene() {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.streams.push_back(stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  return s;
}

// A chain of `count` joints "j0", "j1", ..., each `step` above its parent along y.
std::vector<Joint> joint_chain(uint32_t count, float step) {
  std::vector<Joint> joints;
  for (uint32_t j = 0; j < count; ++j) {
    Transform t;
    t.translation = {0, j ? step : 0.0f, 0};
    joints.push_back({fmt::format("j{}", j), int32_t(j) - 1, t});
  }
  return joints;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Reading the real model

TEST(IqmRead, Mrfixit) {
  REQUIRE_CORPUS();
  const std::vector<uint8_t> b = slurp(corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  ASSERT_EQ(b.size(), 257808u);
  Diagnostics d;
  Scene s = iqm::read(b, "mrfixit.iqm", d);
  EXPECT_TRUE(d.items.empty()) << d.items[0].to_string();
  ASSERT_EQ(s.meshes.size(), 2u);
  const Mesh& body = s.meshes[0];
  const Mesh& head = s.meshes[1];
  EXPECT_EQ(body.name, "Body");
  EXPECT_EQ(head.name, "Head");
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[body.material].name, "Body.tga");
  EXPECT_EQ(s.materials[body.material].base_color_texture, "Body.tga");
  EXPECT_EQ(s.materials[head.material].name, "Head.tga");
  EXPECT_EQ(body.vertex_count(), 1476u);
  EXPECT_EQ(body.triangles.size(), 2386u * 3);
  EXPECT_EQ(head.vertex_count(), 385u);
  EXPECT_EQ(head.triangles.size(), 602u * 3);
  EXPECT_EQ(s.joints.size(), 75u);
  EXPECT_EQ(s.joints[0].name, "Root");
  EXPECT_EQ(s.joints[0].parent, -1);
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "idle");
  EXPECT_EQ(a.frame_count(), 101u);
  EXPECT_EQ(a.channels, 75u);
  EXPECT_EQ(a.framerate, 24.0f);
  EXPECT_FALSE(a.loop);
  EXPECT_TRUE(s.comment.empty());
  EXPECT_FALSE(s.iqm.has_value());  // no extensions, no pose parents

  struct Want {
    Attribute a;
    ComponentType f;
    uint32_t size, components;
  };
  const Want want[] = {
      {Attribute::Position, ComponentType::Float, 3, 3},     {Attribute::Texcoord, ComponentType::Float, 2, 2},
      {Attribute::Normal, ComponentType::Float, 3, 3},       {Attribute::Tangent, ComponentType::Float, 4, 4},
      {Attribute::BlendIndices, ComponentType::UByte, 4, 4}, {Attribute::BlendWeights, ComponentType::UByte, 4, 4}};
  for (const Mesh* m : {&body, &head}) {
    ASSERT_EQ(m->streams.size(), 6u);
    for (size_t i = 0; i < 6; ++i) {
      EXPECT_EQ(m->streams[i].attribute, want[i].a);
      EXPECT_EQ(m->streams[i].format, want[i].f);
      EXPECT_EQ(m->streams[i].source_size, want[i].size);
      EXPECT_EQ(m->streams[i].components, want[i].components);
    }
    // every vertex's ubyte weights sum to 255, i.e. decode to a sum of 1
    const VertexStream* w = m->find(Attribute::BlendWeights);
    for (size_t v = 0; v < m->vertex_count(); ++v) {
      float sum = w->get(v, 0) + w->get(v, 1) + w->get(v, 2) + w->get(v, 3);
      ASSERT_NEAR(sum, 1.0f, 1e-6f) << v;
      float bytes = 0;
      for (uint32_t c = 0; c < 4; ++c) bytes += std::round(w->get(v, c) * 255.0f);
      ASSERT_EQ(bytes, 255.0f) << v;
    }
  }

  // Values: the first Head vertex (global 1476) and the first Head triangle (global 2386), converted.
  auto h = testutil::iqm_header(b);
  const float* file_pos = nullptr;
  std::vector<float> pos(3);
  std::memcpy(pos.data(), b.data() + 1160 + 1476 * 12, 12);
  file_pos = pos.data();
  EXPECT_EQ(head.find(Attribute::Position)->get(0, 0), file_pos[0]);
  EXPECT_EQ(head.find(Attribute::Position)->get(0, 1), file_pos[2]);
  EXPECT_EQ(head.find(Attribute::Position)->get(0, 2), -file_pos[1]);
  uint32_t tri[3];
  std::memcpy(tri, b.data() + h.ofs_triangles + 2386 * 12, 12);
  EXPECT_EQ(head.triangles[0], tri[0] - 1476);
  EXPECT_EQ(head.triangles[1], tri[2] - 1476);
  EXPECT_EQ(head.triangles[2], tri[1] - 1476);
  // the first joint's rest rotation, converted (x, z, -y, w)
  float q[4];
  std::memcpy(q, b.data() + h.ofs_joints + 20, 16);
  EXPECT_EQ(s.joints[0].rest.rotation, (std::array<float, 4>{q[0], q[2], -q[1], q[3]}));
  // blend indices are integers, not normalised
  EXPECT_EQ(body.find(Attribute::BlendIndices)->get(0, 0), float(b[90488]));
}

TEST(IqmRead, EveryReferenceCompilerOutputReads) {
  REQUIRE_CORPUS();
  std::vector<std::string> files = {corpus("iqm/derived/mrfixit.roundtrip-by-upstream-compiler.iqm")};
  for (const auto& e : std::filesystem::directory_iterator(corpus("iqm/edge-cases/upstream-compiler-output")))
    files.push_back(e.path().string());
  EXPECT_EQ(files.size(), 14u);
  for (const auto& f : files) {
    Diagnostics d;
    Scene s;
    ASSERT_NO_THROW(s = iqm::read(slurp(f), f, d)) << f;
    EXPECT_FALSE(d.has_errors()) << f;
    // and what we read, we write and read back: streams bit for bit (fmt.iqm has NaN tangents)
    Diagnostics d2;
    Scene back = read_bytes(write_scene(s, &d2));
    ASSERT_EQ(back.meshes.size(), s.meshes.size()) << f;
    for (size_t m = 0; m < s.meshes.size(); ++m) {
      EXPECT_EQ(back.meshes[m].triangles, s.meshes[m].triangles) << f;
      ASSERT_EQ(back.meshes[m].streams.size(), s.meshes[m].streams.size()) << f;
      for (size_t k = 0; k < s.meshes[m].streams.size(); ++k) {
        const auto& x = s.meshes[m].streams[k].data;
        const auto& y = back.meshes[m].streams[k].data;
        ASSERT_EQ(x.size(), y.size()) << f;
        EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * 4), 0) << f << " stream " << k;
      }
    }
    Scene ms = s, mb = back;
    ms.meshes.clear();
    mb.meshes.clear();
    testutil::expect_scenes_close(ms, mb, 0.0f, 0.0f);
  }
}

TEST(IqmRead, ReferenceCompilerQuirks) {
  REQUIRE_CORPUS();
  const std::string dir = corpus("iqm/edge-cases/upstream-compiler-output/");
  {
    // 1 joint but 3 poses (a 3-joint animation attached by index): a warning, the extra poses dropped.
    Diagnostics d;
    Scene s = iqm::read(slurp(dir + "merged.iqm"), "merged.iqm", d);
    EXPECT_TRUE(has_warning(d, kNumPoses, "num_poses is 3 but num_joints is 1"));
    ASSERT_EQ(s.animations.size(), 1u);
    EXPECT_EQ(s.animations[0].channels, 1u);
    EXPECT_EQ(s.animations[0].frame_count(), 2u);
    EXPECT_TRUE(s.animations[0].loop);
    EXPECT_EQ(s.animations[0].framerate, 5.0f);
  }
  {
    // the comment section: text, NUL and padding; the padding is stripped
    Scene s = read_bytes(slurp(dir + "names.iqm"));
    EXPECT_EQ(s.comment, "hello world\r\nline2\r\n");
    EXPECT_EQ(s.meshes[0].name, "my mesh \\");
    EXPECT_EQ(s.materials[0].name, "mat one");
    EXPECT_EQ(s.materials[0].base_color_texture, "");  // not an image file name
  }
  {
    // custom arrays: names from text[type - 0x10], normalised ushort
    Scene s = read_bytes(slurp(dir + "custom.iqm"));
    const Mesh& m = s.meshes[0];
    ASSERT_EQ(m.streams.size(), 5u);
    EXPECT_EQ(m.streams[3].attribute, Attribute::Custom);
    EXPECT_EQ(m.streams[3].name, "custom0");
    EXPECT_EQ(m.streams[4].name, "lightmap uv");
    EXPECT_EQ(m.streams[4].format, ComponentType::UShort);
    EXPECT_EQ(m.streams[4].get(0, 0), 32768.0f / 65535.0f);
  }
  {
    // the compiler's wrapped bone index (300 -> 44) reads as what is stored
    Scene s = read_bytes(slurp(dir + "bone.iqm"));
    EXPECT_EQ(s.meshes[0].find(Attribute::BlendIndices)->get(0, 0), 44.0f);
    EXPECT_EQ(s.meshes[0].find(Attribute::BlendWeights)->get(0, 0), 159.0f / 255.0f);
  }
  {
    // ubyte positions are normalised, half texcoords decoded
    Scene s = read_bytes(slurp(dir + "fmt.iqm"));
    const VertexStream* p = s.meshes[0].find(Attribute::Position);
    EXPECT_EQ(p->format, ComponentType::UByte);
    EXPECT_EQ(p->get(1, 0), 1.0f);
    EXPECT_EQ(s.meshes[0].find(Attribute::Texcoord)->format, ComponentType::Half);
  }
}

// ---------------------------------------------------------------------------------------------
// Reading files built in memory

TEST(IqmRead, SmallFileWithEverySection) {
  Small sm;
  Built f = build(sm.spec);
  Diagnostics d;
  Scene s = read_bytes(f.bytes, &d);
  EXPECT_TRUE(d.items.empty());
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "quad");
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "skin.TGA");
  EXPECT_EQ(s.materials[0].base_color_texture, "skin.TGA");
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 2, 1, 0, 3, 2}));  // clockwise -> counter-clockwise
  EXPECT_EQ(m.find(Attribute::Position)->data, (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 0, -1, 0, 0, -1}));
  EXPECT_EQ(m.find(Attribute::Texcoord)->data, (std::vector<float>{0, 0, 1, 0, 1, 1, 0, 1}));
  EXPECT_EQ(m.find(Attribute::BlendIndices)->get(3, 1), 1.0f);
  EXPECT_EQ(m.find(Attribute::BlendWeights)->get(3, 0), 128.0f / 255.0f);
  ASSERT_EQ(s.joints.size(), 2u);
  EXPECT_EQ(s.joints[1].name, "child");
  EXPECT_EQ(s.joints[1].parent, 0);
  EXPECT_EQ(s.joints[1].rest.translation, (std::array<float, 3>{1, 0, 0}));
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "run");
  EXPECT_TRUE(a.loop);
  EXPECT_EQ(a.framerate, 30.0f);
  ASSERT_EQ(a.frame_count(), 3u);
  EXPECT_EQ(a.poses[0 * 2].translation[0], 0.0f);
  EXPECT_EQ(a.poses[1 * 2].translation[0], 65535 * (0.5f / 65535));
  EXPECT_EQ(a.poses[2 * 2].translation[0], 32768 * (0.5f / 65535));
  EXPECT_EQ(a.poses[1 * 2 + 1].translation, (std::array<float, 3>{1, 0, 0}));
  EXPECT_EQ(s.comment, "made by hand");
  ASSERT_EQ(s.iqm->extensions.size(), 2u);
  EXPECT_EQ(s.iqm->extensions[0].name, "EXT_one");
  EXPECT_EQ(s.iqm->extensions[0].data, (std::vector<uint8_t>{1, 2, 3, 0, 5}));
  EXPECT_EQ(s.iqm->extensions[1].data, (std::vector<uint8_t>{0xAA, 0xBB, 0xCC, 0xDD}));
}

TEST(IqmRead, NonAlignedOffsetsAreAccepted) {
  Small sm;
  Scene aligned = read_bytes(build(sm.spec).bytes);
  sm.spec.misalign = 1;
  Built f = build(sm.spec);
  ASSERT_EQ(f.h.ofs_text % 4, 1u);
  ASSERT_NE(f.h.ofs_triangles % 4, 0u);
  Diagnostics d;
  Scene s = read_bytes(f.bytes, &d);
  EXPECT_TRUE(d.items.empty());
  EXPECT_EQ(s, aligned);
}

TEST(IqmRead, NoesisStyleBlendArrays) {
  // blend indices as uint and int, weights as float; the weights are not normalised further
  for (uint32_t index_format : {4u, 5u}) {
    Small sm;
    sm.spec.arrays[2] = {4, index_format, 4, raw<uint32_t>({0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 300, 1, 0, 0})};
    sm.spec.arrays[3] = {5, 7, 4, raw<float>({0.75f, 0.25f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0})};
    Diagnostics d;
    Scene s = read_bytes(build(sm.spec).bytes, &d);
    const VertexStream* bi = s.meshes[0].find(Attribute::BlendIndices);
    const VertexStream* bw = s.meshes[0].find(Attribute::BlendWeights);
    EXPECT_EQ(bi->format, ComponentType(index_format));
    EXPECT_EQ(bi->get(0, 1), 1.0f);
    EXPECT_EQ(bi->get(3, 0), 300.0f);
    EXPECT_EQ(bw->format, ComponentType::Float);
    EXPECT_EQ(bw->get(0, 0), 0.75f);
    // index 300 is past the skeleton's 2 joints: one warning for the array
    EXPECT_TRUE(
        has_warning(d, int64_t(build(sm.spec).array_records[2]), "1 blend indices are not below num_joints (2)"));
    // written back in the same formats
    Scene back = read_bytes(write_scene(s));
    EXPECT_EQ(back.meshes[0].find(Attribute::BlendIndices)->format, ComponentType(index_format));
    EXPECT_EQ(back.meshes[0].find(Attribute::BlendWeights)->format, ComponentType::Float);
    EXPECT_EQ(back.meshes[0].find(Attribute::BlendWeights)->data, bw->data);
    EXPECT_EQ(back.meshes[0].find(Attribute::BlendIndices)->data, bi->data);
  }
}

TEST(IqmRead, EveryFormatAndSize) {
  // a custom array in each format and size, and a 2-component position widened to 3
  for (uint32_t format = 0; format <= 8; ++format)
    for (uint32_t size = 1; size <= 4; ++size) {
      Text t;
      uint32_t name = t.add("c");
      Spec sp;
      sp.text = t.bytes;
      sp.num_vertexes = 1;
      sp.meshes.push_back({0, 0, 0, 1, 0, 0});
      sp.arrays.push_back({0, 7, 2, raw<float>({2, 3})});
      std::vector<uint8_t> data(size * ops::component_size(ComponentType(format)), 0);
      data[ops::component_size(ComponentType(format)) - 1] = 0x3F;  // a non-zero first value
      sp.arrays.push_back({0x10 + name, format, size, data});
      Scene s = read_bytes(build(sp).bytes);
      const Mesh& m = s.meshes[0];
      EXPECT_EQ(m.find(Attribute::Position)->data, (std::vector<float>{2, 0, -3}));
      EXPECT_EQ(m.find(Attribute::Position)->source_size, 2u);
      const VertexStream& c = m.streams[1];
      EXPECT_EQ(c.name, "c");
      EXPECT_EQ(c.components, size);
      EXPECT_EQ(c.format, ComponentType(format));
      EXPECT_NE(c.get(0, 0), 0.0f);
    }
}

TEST(IqmRead, TangentWidenedWithPositiveHandedness) {
  Spec sp;
  sp.num_vertexes = 1;
  sp.meshes.push_back({0, 0, 0, 1, 0, 0});
  sp.arrays.push_back({3, 7, 3, raw<float>({1, 2, 3})});
  Scene s = read_bytes(build(sp).bytes);
  EXPECT_EQ(s.meshes[0].streams[0].data, (std::vector<float>{1, 3, -2, 1}));
}

TEST(IqmRead, Version1) {
  Text t;
  uint32_t root = t.add("root"), child = t.add("child"), go = t.add("go");
  Spec sp;
  sp.version = 1;
  sp.text = t.bytes;
  sp.joints.push_back(joint1(root, -1, {0, 0, 0, 0.6f, 0, 0, 1, 1, 1}));
  sp.joints.push_back(joint1(child, 0, {0, 0, 2, 0, 0, 0, 1, 2, 3}));
  // pose 0 animates Qy (channel 4); pose 1 the scale Sx (channel 6)
  sp.poses.push_back(pose<9>(-1, 1u << 4, {0, 0, 0, 0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 0.8f / 65535, 0, 0, 0, 0}));
  sp.poses.push_back(pose<9>(0, 1u << 6, {0, 0, 2, 0, 0, 0, 1, 2, 3}, {0, 0, 0, 0, 0, 0, 1.0f / 65535, 0, 0}));
  sp.num_frames = 2;
  sp.num_framechannels = 2;
  sp.frames = {0, 0, 65535, 65535};
  sp.anims.push_back(anim(go, 0, 2, 10, 0));
  Scene s = read_bytes(build(sp).bytes);
  ASSERT_EQ(s.joints.size(), 2u);
  // w = -sqrt(1 - 0.36) = -0.8; Z-up (x y z w) -> Scene (x, z, -y, w)
  EXPECT_EQ(s.joints[0].rest.rotation[0], 0.6f);
  EXPECT_FLOAT_EQ(s.joints[0].rest.rotation[3], -0.8f);
  EXPECT_EQ(s.joints[1].rest.rotation[3], -1.0f);  // identity as w = -1
  EXPECT_EQ(s.joints[1].rest.translation, (std::array<float, 3>{0, 2, 0}));
  EXPECT_EQ(s.joints[1].rest.scale, (std::array<float, 3>{1, 3, 2}));
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  ASSERT_EQ(a.frame_count(), 2u);
  // frame 1, pose 0: Qy = 0.8 -> w = -0.6; Scene rotation = (0, 0, -0.8, -0.6)
  EXPECT_FLOAT_EQ(a.poses[2].rotation[2], -0.8f);
  EXPECT_FLOAT_EQ(a.poses[2].rotation[3], -0.6f);
  EXPECT_EQ(a.poses[0].rotation[3], -1.0f);
  EXPECT_FLOAT_EQ(a.poses[3].scale[0], 2.0f);
  // written back as v2 with the same values
  Scene back = read_bytes(write_scene(s));
  testutil::expect_scenes_close(s, back, 0.0f, 0.0f);
}

TEST(IqmRead, AnimationOnlyFile) {
  Text t;
  uint32_t walk = t.add("walk");
  Spec sp;
  sp.text = t.bytes;
  sp.poses.push_back(pose<10>(-1, 0x1, kIdentity, {1.0f / 65535, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  sp.poses.push_back(pose<10>(0, 0x0, {0, 0, 1, 0, 0, 0, 1, 1, 1, 1}, {}));
  sp.poses.push_back(pose<10>(0, 0x0, {0, 0, 2, 0, 0, 0, 1, 1, 1, 1}, {}));
  sp.num_frames = 4;
  sp.num_framechannels = 1;
  sp.frames = {0, 100, 200, 65535};
  sp.anims.push_back(anim(walk, 0, 4, 24, 1));
  Diagnostics d;
  Scene s = read_bytes(build(sp).bytes, &d);
  EXPECT_TRUE(d.items.empty());
  EXPECT_TRUE(s.meshes.empty());
  EXPECT_TRUE(s.joints.empty());
  EXPECT_EQ(s.iqm->pose_parents, (std::vector<int32_t>{-1, 0, 0}));
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].channels, 3u);
  EXPECT_EQ(s.animations[0].frame_count(), 4u);
  EXPECT_FLOAT_EQ(s.animations[0].poses[3 * 3].translation[0], 1.0f);
  EXPECT_EQ(s.animations[0].poses[2].translation, (std::array<float, 3>{0, 2, 0}));

  std::vector<uint8_t> out = write_scene(s);
  auto h = testutil::iqm_header(out);
  EXPECT_EQ(h.num_joints, 0u);
  EXPECT_EQ(h.num_poses, 3u);
  EXPECT_EQ(h.num_meshes, 0u);
  EXPECT_EQ(h.ofs_bounds, 0u);  // no vertices: no bounds
  Scene back = read_bytes(out);
  EXPECT_EQ(back.iqm->pose_parents, s.iqm->pose_parents);
  testutil::expect_scenes_close(s, back, 0.0f, 0.0f);
}

TEST(IqmRead, MeshUsingAnotherMeshsVertices) {
  // "duplicate mesh entries": mesh 1 owns vertices 3..5 but its triangle uses 0 1 2 (mesh 0's).
  Text t;
  uint32_t a = t.add("A"), b = t.add("B");
  Spec sp;
  sp.text = t.bytes;
  sp.num_vertexes = 6;
  sp.arrays.push_back({0, 7, 3, raw<float>({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 5, 1, 0, 5, 0, 1, 5})});
  sp.meshes.push_back({a, 0, 0, 3, 0, 1});
  sp.meshes.push_back({b, 0, 3, 3, 1, 1});
  sp.triangles = {0, 1, 2, 0, 2, 1};
  Built f = build(sp);
  Diagnostics d;
  Scene s = read_bytes(f.bytes, &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].offset, int64_t(f.h.ofs_meshes + 24));
  EXPECT_EQ(d.items[0].message,
            "mesh 1 ('B'): its triangles use 3 vertices outside its own range [3, 6); they are copied into the mesh");
  const Mesh& m = s.meshes[1];
  EXPECT_EQ(m.vertex_count(), 6u);
  // file (0 2 1): copies numbered by first use 0 -> 3, 2 -> 4, 1 -> 5, then the winding flips
  EXPECT_EQ(m.triangles, (std::vector<uint32_t>{3, 5, 4}));
  EXPECT_EQ(m.find(Attribute::Position)->get(4, 1), 0.0f);
  EXPECT_EQ(m.find(Attribute::Position)->get(4, 2), -1.0f);  // copy of vertex 2 (0, 1, 0)
  EXPECT_EQ(m.find(Attribute::Position)->get(0, 1), 5.0f);   // its own first vertex
}

TEST(IqmRead, FileSizeMismatches) {
  Small sm;
  Built f = build(sm.spec);
  // trailing bytes after the data: a warning
  std::vector<uint8_t> longer = f.bytes;
  longer.resize(longer.size() + 8, 0);
  Diagnostics d;
  EXPECT_NO_THROW(read_bytes(longer, &d));
  EXPECT_TRUE(
      has_warning(d, kFilesize,
                  fmt::format("the header's filesize is {} but the file has {} bytes", f.bytes.size(), longer.size())));
  // filesize larger than the data, but every section fits: a warning
  std::vector<uint8_t> claims = f.bytes;
  std::memcpy(claims.data() + kFilesize, "\xff\xff\x00\x00", 4);
  Diagnostics d2;
  EXPECT_NO_THROW(read_bytes(claims, &d2));
  EXPECT_TRUE(has_warning(d2, kFilesize, "the header's filesize is 65535"));
}

// ---------------------------------------------------------------------------------------------
// Hostile input: every validation, with its message and offset

TEST(IqmHostile, MagicVersionAndHeader) {
  Small sm;
  std::vector<uint8_t> b = build(sm.spec).bytes;
  std::vector<uint8_t> x = b;
  x[3] = 'x';
  expect_error(x, 0, "not an IQM file: the magic is not \"INTERQUAKEMODEL\\0\"");
  x = b;
  x[15] = ' ';  // the magic's terminating NUL
  expect_error(x, 0, "not an IQM file: the magic is not \"INTERQUAKEMODEL\\0\"");
  expect_error({}, 0, "not an IQM file: the magic is not \"INTERQUAKEMODEL\\0\"");
  expect_error(std::vector<uint8_t>(b.begin(), b.begin() + 10), 0,
               "truncated header: the file has 10 bytes, an IQM header needs 124");
  expect_error(std::vector<uint8_t>(b.begin(), b.begin() + 123), 0,
               "truncated header: the file has 123 bytes, an IQM header needs 124");
  for (uint32_t v : {0u, 3u, 0xFFFFFFFFu}) {
    x = b;
    std::memcpy(x.data() + kVersion, &v, 4);
    expect_error(x, kVersion, fmt::format("unsupported IQM version {} (versions 1 and 2 are read)", v));
  }
}

TEST(IqmHostile, HugeCountsFailBeforeAllocating) {
  // A 124-byte file claiming 4 billion vertices.
  Bytes w;
  w.raw("INTERQUAKEMODEL", 16);
  w.put<uint32_t>(2);
  w.put<uint32_t>(124);
  w.b.resize(124);
  w.patch<uint32_t>(kNumVertexes, 4000000000u);
  {
    // Issue 16: shipped animation files count vertexes without arrays; the count is ignored.
    Diagnostics d;
    Scene s = iqm::read(w.b, "t.iqm", d);
    EXPECT_TRUE(s.meshes.empty());
    ASSERT_EQ(d.items.size(), 1u);
    EXPECT_EQ(d.items[0].offset, kNumVertexes);
    EXPECT_EQ(d.items[0].message, "num_vertexes is 4000000000 but the file has no vertex arrays: read as 0");
  }
  // ... with a vertex array record
  w.b.resize(144);
  w.patch<uint32_t>(kFilesize, 144);
  w.patch<uint32_t>(kNumVertexarrays, 1);
  w.patch<uint32_t>(52, 124);        // ofs_vertexarrays
  w.patch<uint32_t>(124 + 8, 7);     // float
  w.patch<uint32_t>(124 + 12, 3);    // x3
  w.patch<uint32_t>(124 + 16, 124);  // data offset
  expect_error(w.b, 124 + 16,
               "vertex array 0 (position, float x3): 4000000000 vertices need 48000000000 bytes at offset 124, "
               "past the end of the file (144 bytes)");
  // every other count
  struct Case {
    int64_t count_field;
    int64_t ofs_field;
    std::string message;
  };
  const std::vector<Case> cases = {
      {kNumText, 32,
       "num_text: 4294967295 bytes at offset 124 end at 4294967419, past the end of the file (144 bytes)"},
      {kNumMeshes, kOfsMeshes,
       "num_meshes: 4294967295 x 24 bytes at offset 124 end at 103079215204, past the end of the file (144 bytes)"},
      {kNumTriangles, 60,
       "num_triangles: 4294967295 x 12 bytes at offset 124 end at 51539607664, past the end of the file (144 bytes)"},
      {kNumJoints, 72,
       "num_joints: 4294967295 x 48 bytes at offset 124 end at 206158430284, past the end of the file (144 bytes)"},
      {kNumPoses, 80,
       "num_poses: 4294967295 x 88 bytes at offset 124 end at 377957122084, past the end of the file (144 bytes)"},
      {kNumAnims, 88,
       "num_anims: 4294967295 x 20 bytes at offset 124 end at 85899346024, past the end of the file (144 bytes)"},
      {kNumComment, 112,
       "num_comment: 4294967295 bytes at offset 124 end at 4294967419, past the end of the file (144 bytes)"},
  };
  for (const Case& c : cases) {
    Bytes v;
    v.raw("INTERQUAKEMODEL", 16);
    v.put<uint32_t>(2);
    v.put<uint32_t>(144);
    v.b.resize(144);
    v.patch<uint32_t>(size_t(c.count_field), 0xFFFFFFFFu);
    v.patch<uint32_t>(size_t(c.ofs_field), 124);
    expect_error(v.b, c.count_field, c.message);
  }
  // frames: 4 billion frames of 4 billion channels
  Bytes v;
  v.raw("INTERQUAKEMODEL", 16);
  v.put<uint32_t>(2);
  v.put<uint32_t>(124);
  v.b.resize(124);
  v.patch<uint32_t>(kNumFrames, 0xFFFFFFFFu);
  v.patch<uint32_t>(kNumFramechannels, 0xFFFFFFFFu);
  v.patch<uint32_t>(100, 124);
  expect_error(v.b, kNumFrames,
               "num_frames x num_framechannels: 4294967295 frames x 4294967295 channels x 2 bytes at offset 124 end at "
               "36893488130239234174, past the end of the file (124 bytes)");
  v.patch<uint32_t>(kNumFrames, 0);
  v.patch<uint32_t>(kNumExtensions, 100);
  expect_error(v.b, kNumExtensions, "num_extensions: 100 x 16 bytes cannot fit in the file (124 bytes)");
}

TEST(IqmHostile, FramesWithoutDataCannotExplode) {
  // 4 billion frames whose every channel is constant take no bytes in the file; the animation
  // covering them must not be allocated.
  Text t;
  Spec sp;
  sp.text = t.bytes;
  uint32_t name = t.add("a");
  sp.text = t.bytes;
  sp.poses.push_back(pose<10>(-1, 0, kIdentity, {}));
  sp.num_frames = 0xFFFFFFFFu;
  sp.anims.push_back(anim(name, 0, 0xFFFFFFFFu, 30, 0));
  Built f = build(sp);
  expect_error(f.bytes, f.h.ofs_anims,
               fmt::format("animation 0 would need more memory than a file of {} bytes can justify (overlapping "
                           "ranges?)",
                           f.bytes.size()));
}

TEST(IqmHostile, OffsetsIntoTheHeaderOrPastTheEnd) {
  Small sm;
  Built f = build(sm.spec);
  std::vector<uint8_t> x = f.bytes;
  std::memcpy(x.data() + kOfsMeshes, "\x10\0\0\0", 4);
  expect_error(x, kOfsMeshes, "ofs_meshes (16) points into the header");
  x = f.bytes;
  uint32_t past = uint32_t(x.size() + 1);
  std::memcpy(x.data() + kOfsMeshes, &past, 4);
  expect_error(x, kOfsMeshes, fmt::format("ofs_meshes ({}) is past the end of the file ({} bytes)", past, x.size()));
  x = f.bytes;
  std::memcpy(x.data() + kOfsAdjacency, &past, 4);
  expect_error(x, kOfsAdjacency,
               fmt::format("ofs_adjacency ({}) is past the end of the file ({} bytes)", past, x.size()));
  x = f.bytes;
  std::memcpy(x.data() + kOfsBounds, "\x04\0\0\0", 4);
  expect_error(x, kOfsBounds, "ofs_bounds (4) points into the header");
  x = f.bytes;
  std::memcpy(x.data() + f.array_records[1] + 16, "\x08\0\0\0", 4);
  expect_error(x, int64_t(f.array_records[1] + 16),
               "vertex array 1 (texcoord, float x2): data offset 8 points into the header");
}

TEST(IqmHostile, TruncatedAtEverySectionBoundary) {
  Small sm;
  Built f = build(sm.spec);
  const auto& h = f.h;
  const size_t arrays_end = f.array_data.back() + 16;  // the last array (ubyte x4, 4 vertices) ends here
  for (const auto& [name, start] : f.sections) {
    std::vector<uint8_t> x(f.bytes.begin(), f.bytes.begin() + start);
    const size_t n = x.size();
    auto past = [&](const char* what, uint64_t count, uint64_t elem, uint64_t ofs) {
      std::string c = elem == 1 ? fmt::format("{} bytes", count) : fmt::format("{} x {} bytes", count, elem);
      return fmt::format("{}: {} at offset {} end at {}, past the end of the file ({} bytes)", what, c, ofs,
                         ofs + count * elem, n);
    };
    SCOPED_TRACE(name);
    Diagnostics d;
    try {
      iqm::read(x, "t.iqm", d);
      ADD_FAILURE() << "truncated at " << name << " reads";
      continue;
    } catch (const Error& e) {
      const Diagnostic& g = e.diagnostic();
      EXPECT_TRUE(has_warning(d, kFilesize, "the header's filesize is"));
      if (name == "text") {
        EXPECT_EQ(g.offset, kNumText);
        EXPECT_EQ(g.message, past("num_text", h.num_text, 1, h.ofs_text));
      } else if (name == "meshes") {
        EXPECT_EQ(g.message, past("num_meshes", 1, 24, h.ofs_meshes));
      } else if (name == "vertexarrays") {
        EXPECT_EQ(g.message, past("num_vertexarrays", 4, 20, h.ofs_vertexarrays));
      } else if (name.rfind("vertex data", 0) == 0) {
        // the sections after the vertex data are checked before the arrays' data
        EXPECT_EQ(g.offset, 60);  // ofs_triangles
        EXPECT_EQ(g.message,
                  fmt::format("ofs_triangles ({}) is past the end of the file ({} bytes)", h.ofs_triangles, n));
      } else if (name == "triangles") {
        EXPECT_EQ(g.offset, kNumTriangles);
        EXPECT_EQ(g.message, past("num_triangles", 2, 12, h.ofs_triangles));
      } else if (name == "adjacency") {
        EXPECT_EQ(g.offset, kOfsAdjacency);
        EXPECT_EQ(g.message, past("adjacency", 2, 12, h.ofs_adjacency));
      } else if (name == "joints") {
        EXPECT_EQ(g.message, past("num_joints", 2, 48, h.ofs_joints));
      } else if (name == "poses") {
        EXPECT_EQ(g.message, past("num_poses", 2, 88, h.ofs_poses));
      } else if (name == "anims") {
        EXPECT_EQ(g.message, past("num_anims", 1, 20, h.ofs_anims));
      } else if (name == "frames") {
        EXPECT_EQ(g.offset, kNumFrames);
        EXPECT_EQ(g.message, fmt::format("num_frames x num_framechannels: 3 frames x 1 channels x 2 bytes at offset {} "
                                         "end at {}, past the end of the file ({} bytes)",
                                         h.ofs_frames, h.ofs_frames + 6, n));
      } else if (name == "bounds") {
        EXPECT_EQ(g.offset, kOfsBounds);
        EXPECT_EQ(g.message, past("bounds", 3, 32, h.ofs_bounds));
      } else if (name == "comment") {
        EXPECT_EQ(g.offset, kNumComment);
        EXPECT_EQ(g.message, past("num_comment", 16, 1, h.ofs_comment));
      } else if (name == "extension 0") {
        EXPECT_EQ(g.offset, kOfsExtensions);
        EXPECT_EQ(g.message, fmt::format("extension 0: its record at offset {} is past the end of the file ({} bytes)",
                                         f.ext_records[0], n));
      } else if (name == "extension data 0") {
        EXPECT_EQ(g.offset, int64_t(f.ext_records[0]));
        EXPECT_EQ(g.message, fmt::format("extension 0: 5 bytes at offset {} end at {}, past the end of the file ({} "
                                         "bytes)",
                                         f.ext_data[0], f.ext_data[0] + 5, n));
      } else if (name == "extension 1") {
        EXPECT_EQ(g.offset, int64_t(f.ext_records[0] + 12));
        EXPECT_EQ(g.message, fmt::format("extension 1: its record at offset {} is past the end of the file ({} bytes)",
                                         f.ext_records[1], n));
      } else if (name == "extension data 1") {
        EXPECT_EQ(g.offset, int64_t(f.ext_records[1]));
      } else {
        ADD_FAILURE() << "unexpected section " << name;
      }
    }
  }
  // inside the vertex data, with the later sections moved out of the way: the array's own error
  Spec sp = sm.spec;
  sp.triangles.clear();
  sp.meshes[0][5] = 0;
  sp.adjacency = false;
  sp.joints.clear();
  sp.poses.clear();
  sp.anims.clear();
  sp.num_frames = sp.num_framechannels = 0;
  sp.frames.clear();
  sp.comment.clear();
  sp.extensions.clear();
  Built g = build(sp);
  std::vector<uint8_t> x(g.bytes.begin(), g.bytes.begin() + g.array_data[3] + 10);
  expect_error(x, int64_t(g.array_records[3] + 16),
               fmt::format("vertex array 3 (blendweights, ubyte x4): 4 vertices need 16 bytes at offset {}, past the "
                           "end of the file ({} bytes)",
                           g.array_data[3], x.size()));
  (void)arrays_end;
}

TEST(IqmHostile, TextTable) {
  Small sm;
  Built f = build(sm.spec);
  // an index past the table
  std::vector<uint8_t> x = f.bytes;
  uint32_t bad = 999;
  std::memcpy(x.data() + f.h.ofs_meshes, &bad, 4);
  expect_error(x, f.h.ofs_meshes,
               fmt::format("mesh 0: name: text index 999 is out of range (num_text {})", f.h.num_text));
  x = f.bytes;
  std::memcpy(x.data() + f.h.ofs_meshes + 4, &f.h.num_text, 4);
  expect_error(x, f.h.ofs_meshes,
               fmt::format("mesh 0: material: text index {0} is out of range (num_text {0})", f.h.num_text));
  x = f.bytes;
  std::memcpy(x.data() + f.h.ofs_joints + 48, &bad, 4);
  expect_error(x, f.h.ofs_joints + 48,
               fmt::format("joint 1: text index 999 is out of range (num_text {})", f.h.num_text));
  x = f.bytes;
  std::memcpy(x.data() + f.h.ofs_anims, &bad, 4);
  expect_error(x, f.h.ofs_anims,
               fmt::format("animation 0: text index 999 is out of range (num_text {})", f.h.num_text));
  x = f.bytes;
  std::memcpy(x.data() + f.ext_records[1], &bad, 4);
  expect_error(x, int64_t(f.ext_records[1]),
               fmt::format("extension 1: text index 999 is out of range (num_text {})", f.h.num_text));
  // a custom array's name
  x = f.bytes;
  uint32_t type = 0x10 + 999;
  std::memcpy(x.data() + f.array_records[1], &type, 4);
  expect_error(
      x, int64_t(f.array_records[1]),
      fmt::format("vertex array 1: custom type name: text index 999 is out of range (num_text {})", f.h.num_text));
  // an unterminated table
  x = f.bytes;
  x[f.h.ofs_text + f.h.num_text - 1] = 'x';
  expect_error(x, f.h.ofs_text + f.h.num_text - 1, "the text table does not end with a NUL");
  // no table at all: index 0 is the empty name, anything else is out of range
  Spec sp;
  sp.meshes.push_back({0, 0, 0, 0, 0, 0});
  EXPECT_EQ(read_bytes(build(sp).bytes).meshes[0].name, "");
  sp.meshes[0][0] = 1;
  Built g = build(sp);
  expect_error(g.bytes, g.h.ofs_meshes, "mesh 0: name: text index 1 is out of range (num_text 0)");
}

TEST(IqmHostile, VertexArrays) {
  Small sm;
  Built f = build(sm.spec);
  const size_t r1 = f.array_records[1];
  std::vector<uint8_t> x = f.bytes;
  x[r1 + 8] = 9;
  expect_error(x, int64_t(r1 + 8),
               "vertex array 1: unknown format 9 (0 to 8: byte, ubyte, short, ushort, int, uint, half, float, double)");
  x = f.bytes;
  x[r1 + 12] = 5;
  expect_error(x, int64_t(r1 + 12), "vertex array 1: size 5 is not between 1 and 4");
  x = f.bytes;
  x[r1 + 12] = 0;
  expect_error(x, int64_t(r1 + 12), "vertex array 1: size 0 is not between 1 and 4");
  x = f.bytes;
  x[r1] = 9;
  expect_error(x, int64_t(r1), "vertex array 1: unknown type 9 (types 7 to 15 are reserved)");
  // a second texcoord array: ignored, with a warning
  x = f.bytes;
  x[f.array_records[2]] = 1;
  x[f.array_records[2] + 8] = 7;
  x[f.array_records[2] + 12] = 1;
  Diagnostics d;
  Scene s = read_bytes(x, &d);
  EXPECT_TRUE(has_warning(d, int64_t(f.array_records[2]),
                          "vertex array 2 (texcoord, float x1): a second array of this type is ignored"));
  EXPECT_EQ(s.meshes[0].streams.size(), 3u);
}

TEST(IqmHostile, MeshesAndTriangles) {
  Small sm;
  Built f = build(sm.spec);
  const size_t m = f.h.ofs_meshes;
  std::vector<uint8_t> x = f.bytes;
  x[m + 12] = 5;  // 5 vertices from 0, of 4
  expect_error(x, int64_t(m), "mesh 0: vertices 0 to 5 are past num_vertexes (4)");
  x = f.bytes;
  std::memcpy(x.data() + m + 8, "\xff\xff\xff\xff", 4);  // first_vertex 2^32-1: no 32-bit wrap
  expect_error(x, int64_t(m), "mesh 0: vertices 4294967295 to 4294967299 are past num_vertexes (4)");
  x = f.bytes;
  x[m + 20] = 3;
  expect_error(x, int64_t(m), "mesh 0: triangles 0 to 3 are past num_triangles (2)");
  x = f.bytes;
  x[f.h.ofs_triangles + 12 + 8] = 7;  // triangle 1, third index
  expect_error(x, f.h.ofs_triangles + 12, "triangle 1: vertex index 7 is out of range (num_vertexes 4)");
}

TEST(IqmHostile, SkeletonAndAnimation) {
  Small sm;
  Built f = build(sm.spec);
  std::vector<uint8_t> x = f.bytes;
  x[f.h.ofs_joints + 48 + 4] = 1;  // joint 1's parent: itself
  expect_error(x, f.h.ofs_joints + 48 + 4,
               "joint 1: parent 1 does not come before it (a parent must precede its children, so a joint cannot be "
               "its own ancestor)");
  x = f.bytes;
  x[f.h.ofs_joints + 4] = 1;  // joint 0's parent: a later joint
  x[f.h.ofs_joints + 5] = x[f.h.ofs_joints + 6] = x[f.h.ofs_joints + 7] = 0;
  expect_error(x, f.h.ofs_joints + 4,
               "joint 0: parent 1 does not come before it (a parent must precede its children, so a joint cannot be "
               "its own ancestor)");
  x = f.bytes;
  x[f.h.ofs_poses + 88] = 5;
  expect_error(x, f.h.ofs_poses + 88, "pose 1: parent 5 is past the last pose (2 in the file)");
  x = f.bytes;
  x[f.h.ofs_poses + 88 + 4] = 0x3;  // two more mask bits than num_framechannels says
  expect_error(x, kNumFramechannels, "num_framechannels is 1 but the poses' channel masks set 3 bits");
  x = f.bytes;
  x[f.h.ofs_anims + 8] = 4;  // 4 frames of 3
  expect_error(x, f.h.ofs_anims, "animation 0: frames 0 to 4 are past num_frames (3)");
  x = f.bytes;
  std::memcpy(x.data() + f.h.ofs_anims + 4, "\xff\xff\xff\xff", 4);
  expect_error(x, f.h.ofs_anims, "animation 0: frames 4294967295 to 4294967298 are past num_frames (3)");
  // channelmask bits above channel 9: a warning
  x = f.bytes;
  x[f.h.ofs_poses + 5] = 0x80;  // bit 15
  Diagnostics d;
  EXPECT_NO_THROW(read_bytes(x, &d));
  EXPECT_TRUE(has_warning(d, f.h.ofs_poses, "pose 0: channelmask 0x8001 has bits above channel 9; they are ignored"));
  // frames that no animation covers
  x = f.bytes;
  x[f.h.ofs_anims + 8] = 2;
  Diagnostics d2;
  EXPECT_NO_THROW(read_bytes(x, &d2));
  EXPECT_TRUE(has_warning(d2, kNumFrames, "1 of the 3 frames belong to no animation and are not read"));
}

TEST(IqmHostile, Extensions) {
  Small sm;
  Built f = build(sm.spec);
  const size_t e0 = f.ext_records[0], e1 = f.ext_records[1];
  // a loop: extension 1 links back to extension 0, and the header claims 3
  std::vector<uint8_t> x = f.bytes;
  x[kNumExtensions] = 3;
  std::memcpy(x.data() + e1 + 12, &e0, 4);
  expect_error(x, int64_t(e1 + 12), fmt::format("extension 2: the list loops back to offset {}", e0));
  // a self loop
  x = f.bytes;
  std::memcpy(x.data() + e0 + 12, &e0, 4);
  expect_error(x, int64_t(e0 + 12), fmt::format("extension 1: the list loops back to offset {}", e0));
  // a link into the header
  x = f.bytes;
  std::memcpy(x.data() + e0 + 12, "\x40\0\0\0", 4);
  expect_error(x, int64_t(e0 + 12), "extension 1: offset 64 points into the header");
  // data past the end
  x = f.bytes;
  std::memcpy(x.data() + e1 + 4, "\x00\x01\0\0", 4);
  expect_error(x, int64_t(e1),
               fmt::format("extension 1: 256 bytes at offset {} end at {}, past the end of the file ({} bytes)",
                           f.ext_data[1], f.ext_data[1] + 256, x.size()));
  // fewer extensions than num_extensions: a warning
  x = f.bytes;
  x[kNumExtensions] = 3;
  Diagnostics d;
  EXPECT_EQ(read_bytes(x, &d).iqm->extensions.size(), 2u);
  EXPECT_TRUE(has_warning(d, kNumExtensions, "the extension list ends after 2 of num_extensions (3) extensions"));
  // more: a warning
  x = f.bytes;
  x[kNumExtensions] = 1;
  Diagnostics d2;
  EXPECT_EQ(read_bytes(x, &d2).iqm->extensions.size(), 1u);
  EXPECT_TRUE(has_warning(d2, int64_t(e0 + 12), "the extension list goes on past num_extensions (1)"));
}

TEST(IqmHostile, EveryByteFlipAndEveryTruncationIsSafe) {
  // No crash, no sanitizer report: either a Scene or a meshport::Error.
  Small sm;
  const std::vector<uint8_t> b = build(sm.spec).bytes;
  size_t errors = 0;
  for (size_t i = 16; i < b.size(); ++i)
    for (uint8_t v : {uint8_t(0xFF), uint8_t(0x80), uint8_t(0x01)}) {
      std::vector<uint8_t> x = b;
      x[i] ^= v;
      try {
        read_bytes(x);
      } catch (const Error&) {
        ++errors;
      }
    }
  for (size_t n = 0; n < b.size(); ++n) {
    try {
      read_bytes(std::vector<uint8_t>(b.begin(), b.begin() + n));
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, b.size());
}

// ---------------------------------------------------------------------------------------------
// Writing

TEST(IqmWrite, MrfixitRoundTrip) {
  REQUIRE_CORPUS();
  Scene a = read(corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  Diagnostics d;
  auto start = std::chrono::steady_clock::now();
  std::vector<uint8_t> out = write_scene(a, &d);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("write_seconds", std::to_string(seconds));
  EXPECT_TRUE(d.items.empty()) << d.items[0].to_string();
  auto h = testutil::iqm_header(out);
  EXPECT_EQ(h.filesize, out.size());
  EXPECT_EQ(h.version, 2u);
  EXPECT_EQ(h.num_vertexes, 1861u);
  EXPECT_EQ(h.num_triangles, 2988u);
  EXPECT_EQ(h.num_joints, 75u);
  EXPECT_EQ(h.num_poses, 75u);
  EXPECT_EQ(h.num_frames, 101u);
  EXPECT_EQ(adjacency_links(out), 8946u);  // the reference compiler links 2,222
  Diagnostics d2;
  Scene b = iqm::read(out, "out.iqm", d2);
  EXPECT_TRUE(d2.items.empty());
  // float arrays exact, ubyte weights exact, poses within half a quantisation step
  testutil::expect_scenes_close(a, b, 0.0f, 0.0f);
  for (size_t m = 0; m < a.meshes.size(); ++m) EXPECT_EQ(a.meshes[m].streams, b.meshes[m].streams);
  EXPECT_EQ(a.materials, b.materials);
  EXPECT_EQ(a.joints, b.joints);
  // the per-frame bounds agree with the file's (every mrfixit vertex is weighted); the original
  // exporter computed them from its unquantised weights and poses, hence the 1 cm tolerance
  // (OpsBounds.MrfixitAgreesWithTheReferenceCompiler checks the skinning itself closely)
  const std::vector<uint8_t> orig = slurp(corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  auto ho = testutil::iqm_header(orig);
  for (uint32_t i = 0; i < 101 * 8; ++i)
    EXPECT_NEAR(field<float>(out, h.ofs_bounds + i * 4), field<float>(orig, ho.ofs_bounds + i * 4), 1e-2) << i;
  // and the vertex arrays are laid out as the original's: same formats and sizes
  for (uint32_t i = 0; i < 6; ++i)
    for (uint32_t k : {0u, 8u, 12u})
      EXPECT_EQ(field<uint32_t>(out, h.ofs_vertexarrays + i * 20 + k),
                field<uint32_t>(orig, ho.ofs_vertexarrays + i * 20 + k));
}

TEST(IqmWrite, LayoutRules) {
  Small sm;
  Scene s = read_bytes(build(sm.spec).bytes);
  // a double custom array: aligned to 8
  for (Mesh& m : s.meshes) {
    VertexStream c = stream(Attribute::Custom, 1, std::vector<float>(m.vertex_count(), 0.5f), ComponentType::Double, 1);
    c.name = "quad";  // shares its text with the mesh name
    m.streams.push_back(c);
  }
  std::vector<uint8_t> out = write_scene(s);
  auto h = testutil::iqm_header(out);
  EXPECT_EQ(out.size(), h.filesize);
  EXPECT_EQ(std::string(out.begin(), out.begin() + 16), std::string("INTERQUAKEMODEL\0", 16));
  const uint32_t ofs[] = {h.ofs_text,      h.ofs_meshes, h.ofs_vertexarrays, h.ofs_triangles,
                          h.ofs_adjacency, h.ofs_joints, h.ofs_poses,        h.ofs_anims,
                          h.ofs_frames,    h.ofs_bounds, h.ofs_comment,      h.ofs_extensions};
  for (uint32_t o : ofs) {
    EXPECT_NE(o, 0u);
    EXPECT_EQ(o % 4, 0u);
  }
  EXPECT_EQ(h.ofs_text, 124u);
  EXPECT_EQ(out[h.ofs_text], 0);  // the empty string first
  EXPECT_EQ(h.num_text % 4, 0u);
  // de-duplicated: "quad" once
  std::string text(out.begin() + h.ofs_text, out.begin() + h.ofs_text + h.num_text);
  EXPECT_EQ(text.find("quad"), text.rfind("quad"));
  // arrays in the required order, each aligned to max(component size, 4)
  ASSERT_EQ(h.num_vertexarrays, 5u);
  const uint32_t types[] = {0, 1, 4, 5, 0x10 + uint32_t(text.find("quad"))};
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(field<uint32_t>(out, h.ofs_vertexarrays + i * 20), types[i]);
    uint32_t format = field<uint32_t>(out, h.ofs_vertexarrays + i * 20 + 8);
    uint32_t align = std::max<uint32_t>(uint32_t(ops::component_size(ComponentType(format))), 4);
    EXPECT_EQ(field<uint32_t>(out, h.ofs_vertexarrays + i * 20 + 16) % align, 0u) << i;
  }
  EXPECT_EQ(field<uint32_t>(out, h.ofs_vertexarrays + 4 * 20 + 8), 8u);  // double
  // comment: NUL-terminated, padded, num_comment a multiple of 4
  EXPECT_EQ(h.num_comment, 16u);
  EXPECT_EQ(std::string(out.begin() + h.ofs_comment, out.begin() + h.ofs_comment + 13),
            std::string("made by hand\0", 13));
  // animation record
  EXPECT_EQ(field<uint32_t>(out, h.ofs_anims + 16), 1u);  // IQM_LOOP
  EXPECT_EQ(field<float>(out, h.ofs_anims + 12), 30.0f);
  // the read-back Scene is the same
  Scene back = read_bytes(out);
  testutil::expect_scenes_close(s, back, 0.0f, 0.0f);
  EXPECT_EQ(back.meshes[0].streams.back().data, s.meshes[0].streams.back().data);

  // empty sections have offset 0
  std::vector<uint8_t> bare = write_scene(triangle_scene());
  auto hb = testutil::iqm_header(bare);
  for (uint32_t o :
       {hb.ofs_joints, hb.ofs_poses, hb.ofs_anims, hb.ofs_frames, hb.ofs_bounds, hb.ofs_comment, hb.ofs_extensions})
    EXPECT_EQ(o, 0u);
  EXPECT_EQ(hb.num_triangles, 1u);
  WriteOptions no_adj;
  no_adj.adjacency = false;
  EXPECT_EQ(testutil::iqm_header(write_scene(triangle_scene(), nullptr, no_adj)).ofs_adjacency, 0u);
}

TEST(IqmWrite, WindingAndAxesAtTheBoundary) {
  std::vector<uint8_t> out = write_scene(triangle_scene());
  auto h = testutil::iqm_header(out);
  // Scene (0 1 2) -> file (0 2 1); Scene (0, 1, 0) -> file (0, 0, 1)
  EXPECT_EQ(field<uint32_t>(out, h.ofs_triangles + 4), 2u);
  uint32_t pos = field<uint32_t>(out, h.ofs_vertexarrays + 16);
  EXPECT_EQ(field<float>(out, pos + 2 * 12 + 8), 1.0f);
  EXPECT_EQ(field<float>(out, pos + 2 * 12 + 4), 0.0f);
}

TEST(IqmWrite, ExtensionsAndCommentRoundTripExactly) {
  Scene s = triangle_scene();
  s.comment = std::string("line 1\r\nline\0two\n", 17);  // an embedded NUL is kept
  s.iqm.emplace().extensions.push_back({"FTE_MESH", {1, 2, 3}});
  s.iqm->extensions.push_back({"EMPTY", {}});
  s.iqm->extensions.push_back({"FTE_MESH", {0, 0, 0, 0, 0, 0, 0, 9}});
  std::vector<uint8_t> out = write_scene(s);
  auto h = testutil::iqm_header(out);
  EXPECT_EQ(h.num_extensions, 3u);
  EXPECT_EQ(h.num_comment % 4, 0u);
  // the list: each record, then its data, 4-aligned; the empty one has ofs_data 0
  uint32_t e = h.ofs_extensions;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(e % 4, 0u);
    uint32_t data = field<uint32_t>(out, e + 8);
    EXPECT_EQ(data % 4, 0u);
    if (i == 1) {
      EXPECT_EQ(data, 0u);
    }
    e = field<uint32_t>(out, e + 12);
  }
  EXPECT_EQ(e, 0u);
  Scene back = read_bytes(out);
  EXPECT_EQ(back.comment, s.comment);
  EXPECT_EQ(back.iqm->extensions, s.iqm->extensions);
  // and again: the bytes are stable
  EXPECT_EQ(write_scene(back), out);
}

TEST(IqmWrite, BlendIndicesAbove255BecomeUshort) {
  Scene s = triangle_scene();
  s.joints.push_back({"j", -1, {}});
  Mesh& m = s.meshes[0];
  m.streams.push_back(stream(Attribute::BlendIndices, 1, {300, 0, 0}));
  m.streams.push_back(stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  Diagnostics d;
  std::vector<uint8_t> out = write_scene(s, &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].message,
            "blendindexes: the largest joint index is 300 (skeleton of 1 joints), more than ubyte holds; written as "
            "ushort");
  auto h = testutil::iqm_header(out);
  EXPECT_EQ(field<uint32_t>(out, h.ofs_vertexarrays + 20 + 8), 3u);  // ushort
  Scene back = read_bytes(out);
  EXPECT_EQ(back.meshes[0].find(Attribute::BlendIndices)->get(0, 0), 300.0f);  // not 44
  EXPECT_EQ(back.meshes[0].find(Attribute::BlendIndices)->format, ComponentType::UShort);
  // a skeleton of more than 256 joints widens too, even with small indices
  Scene big = triangle_scene();
  for (int j = 0; j < 257; ++j) big.joints.push_back({fmt::format("j{}", j), j - 1, {}});
  big.meshes[0].streams.push_back(stream(Attribute::BlendIndices, 1, {1, 2, 3}));
  big.meshes[0].streams.push_back(stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  Diagnostics d2;
  std::vector<uint8_t> out2 = write_scene(big, &d2);
  EXPECT_EQ(field<uint32_t>(out2, testutil::iqm_header(out2).ofs_vertexarrays + 20 + 8), 3u);
  EXPECT_EQ(d2.items.size(), 1u);
}

TEST(IqmWrite, FourLargestWeightsSumTo255) {
  Scene s = triangle_scene();
  Mesh& m = s.meshes[0];
  // vertex 0: bone.iqe's six influences; vertex 1: four equal quarters; vertex 2: unweighted
  m.streams.push_back(
      stream(Attribute::BlendIndices, 6, {7, 0, 1, 2, 3, 4, /**/ 1, 2, 3, 4, 0, 0, /**/ 0, 0, 0, 0, 0, 0}));
  m.streams.push_back(
      stream(Attribute::BlendWeights, 6,
             {0.5f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, /**/ 0.25f, 0.25f, 0.25f, 0.25f, 0, 0, /**/ 0, 0, 0, 0, 0, 0}));
  std::vector<uint8_t> out = write_scene(s);
  auto h = testutil::iqm_header(out);
  ASSERT_EQ(h.num_vertexarrays, 3u);
  const uint32_t bi = field<uint32_t>(out, h.ofs_vertexarrays + 20 + 16);
  const uint32_t bw = field<uint32_t>(out, h.ofs_vertexarrays + 40 + 16);
  EXPECT_EQ(field<uint32_t>(out, h.ofs_vertexarrays + 20 + 12), 4u);
  auto bytes = [&](uint32_t at) { return std::vector<int>(out.begin() + at, out.begin() + at + 4); };
  EXPECT_EQ(bytes(bi), (std::vector<int>{7, 0, 1, 2}));          // the 4 largest, ties kept in order
  EXPECT_EQ(bytes(bw), (std::vector<int>{159, 32, 32, 32}));     // 0.625 0.125 x3 renormalised; sum 255
  EXPECT_EQ(bytes(bw + 4), (std::vector<int>{63, 64, 64, 64}));  // 4 x 64 = 256: the remainder off the largest
  EXPECT_EQ(bytes(bw + 8), (std::vector<int>{0, 0, 0, 0}));      // unweighted stays unweighted
}

// The blend arrays are worked out and encoded in blocks of vertices: every vertex of two large
// meshes (the second starting past the first's vertices, both crossing block boundaries) gets its
// own indices, in its own place.
TEST(IqmWrite, BlendArraysOfLargeMeshesInBlocks) {
  Scene s;
  const uint32_t counts[2] = {40000, 23456};
  for (uint32_t k = 0; k < 2; ++k) {
    Mesh m;
    m.name = "m" + std::to_string(k);
    std::vector<float> pos, bi, bw;
    for (uint32_t v = 0; v < counts[k]; ++v) {
      pos.insert(pos.end(), {float(v), float(k), 0});
      // Six influences, the two largest first for odd vertices, last for even ones: the 4 largest
      // are kept, in their order. Joints a (10-209) and b (210-255) vary with the vertex.
      const float a = float(10 + (v + k) % 200), b = float(210 + (v / 200 + 3 * k) % 46);
      if (v % 2) {
        bi.insert(bi.end(), {a, b, 5, 6, 7, 8});
        bw.insert(bw.end(), {0.6f, 0.2f, 0.1f, 0.05f, 0.03f, 0.02f});
      } else {
        bi.insert(bi.end(), {7, 8, 5, 6, a, b});
        bw.insert(bw.end(), {0.02f, 0.03f, 0.1f, 0.05f, 0.6f, 0.2f});
      }
    }
    m.streams.push_back(stream(Attribute::Position, 3, pos));
    m.streams.push_back(stream(Attribute::BlendIndices, 6, bi));
    m.streams.push_back(stream(Attribute::BlendWeights, 6, bw));
    m.triangles = {0, 1, 2};
    s.meshes.push_back(m);
  }
  const std::vector<uint8_t> out = write_scene(s);
  auto h = testutil::iqm_header(out);
  ASSERT_EQ(h.num_vertexes, counts[0] + counts[1]);
  const uint32_t bi = field<uint32_t>(out, h.ofs_vertexarrays + 20 + 16);
  const uint32_t bw = field<uint32_t>(out, h.ofs_vertexarrays + 40 + 16);
  size_t wrong = 0;
  for (uint32_t k = 0, at = 0; k < 2; at += counts[k], ++k)
    for (uint32_t v = 0; v < counts[k]; ++v) {
      const uint8_t* i = out.data() + bi + 4 * size_t(at + v);
      const uint8_t* w = out.data() + bw + 4 * size_t(at + v);
      const int a = int(10 + (v + k) % 200), b = int(210 + (v / 200 + 3 * k) % 46);
      const std::vector<int> want_i = v % 2 ? std::vector<int>{a, b, 5, 6} : std::vector<int>{5, 6, a, b};
      // Weights 0.6, 0.2, 0.1, 0.05 renormalised: 161 54 27 13 whichever the order.
      const std::vector<int> want_w = v % 2 ? std::vector<int>{161, 54, 27, 13} : std::vector<int>{27, 13, 161, 54};
      if (std::vector<int>(i, i + 4) != want_i || std::vector<int>(w, w + 4) != want_w)
        if (++wrong < 5)
          ADD_FAILURE() << "mesh " << k << " vertex " << v << ": indices " << int(i[0]) << " " << int(i[1]) << " "
                        << int(i[2]) << " " << int(i[3]) << ", weights " << int(w[0]) << " " << int(w[1]) << " "
                        << int(w[2]) << " " << int(w[3]);
    }
  EXPECT_EQ(wrong, 0u);
}

TEST(IqmWrite, PerFrameBoundsKeepUnweightedVertices) {
  // unweighted.iqe, built as a Scene: the vertex without weights stays at z = 5.
  Scene s;
  s.joints.push_back({"r", -1, {}});
  Mesh m;
  m.streams.push_back(stream(Attribute::Position, 3, {0, 5, 0, 1, 5, 0, 0, 5, -1}));
  m.streams.push_back(stream(Attribute::BlendIndices, 4, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  m.streams.push_back(stream(Attribute::BlendWeights, 4, {1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
  m.triangles = {0, 2, 1};
  s.meshes.push_back(m);
  Animation a;
  a.name = "a";
  a.channels = 1;
  Transform up;
  up.translation = {0, 1, 0};
  a.poses = {Transform{}, up};
  s.animations.push_back(a);
  std::vector<uint8_t> out = write_scene(s);
  auto h = testutil::iqm_header(out);
  ASSERT_EQ(h.num_frames, 2u);
  auto bound = [&](int f, int k) { return field<float>(out, h.ofs_bounds + f * 32 + k * 4); };
  const float frame1[8] = {0, 0, 5, 1, 1, 6, 1, std::sqrt(37.0f)};  // min xyz, max xyz, xyradius, radius
  for (int k = 0; k < 8; ++k) EXPECT_FLOAT_EQ(bound(1, k), frame1[k]) << k;
  EXPECT_EQ(bound(0, 5), 5.0f);
  WriteOptions no_bounds;
  no_bounds.bounds = false;
  EXPECT_EQ(testutil::iqm_header(write_scene(s, nullptr, no_bounds)).ofs_bounds, 0u);
}

TEST(IqmWrite, MissingArraysAndFormats) {
  Scene s = triangle_scene();
  Mesh second = s.meshes[0];
  second.name = "second";
  s.meshes[0].streams.push_back(stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}, ComponentType::Half, 2));
  s.meshes[0].streams.push_back(stream(Attribute::Color, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}));  // no declared size
  s.meshes[0].streams.push_back(stream(Attribute::Texcoord, 2, {5, 5, 5, 5, 5, 5}));        // a second one
  s.meshes.push_back(second);
  Diagnostics d;
  Scene back = read_bytes(write_scene(s, &d));
  ASSERT_EQ(d.items.size(), 3u);
  EXPECT_EQ(d.items[0].message, "mesh 0 ('tri'): a second texcoord stream is ignored");
  EXPECT_EQ(d.items[1].message, "mesh 1 ('second') has no texcoord array; its vertices get zeros");
  EXPECT_EQ(d.items[2].message, "mesh 1 ('second') has no color array; its vertices get zeros");
  const VertexStream* t = back.meshes[0].find(Attribute::Texcoord);
  EXPECT_EQ(t->format, ComponentType::Half);
  EXPECT_EQ(t->source_size, 2u);
  const VertexStream* c = back.meshes[0].find(Attribute::Color);
  EXPECT_EQ(c->format, ComponentType::UByte);
  EXPECT_EQ(c->source_size, 3u);  // a colour keeps its component count
  EXPECT_EQ(c->get(1, 1), 1.0f);
  EXPECT_EQ(back.meshes[1].find(Attribute::Texcoord)->data, std::vector<float>(6, 0.0f));
}

TEST(IqmWrite, ClampAndNaNWarnings) {
  Scene s = triangle_scene();
  s.meshes[0].streams.push_back(
      stream(Attribute::Texcoord, 2, {70000, 0, std::nanf(""), 1e-7f, 0, 0}, ComponentType::Half, 2));
  s.meshes[0].streams.push_back(
      stream(Attribute::Color, 4, {2, 0, 0, 1, std::nanf(""), 0, 0, 1, 0, 0, 0, 1}, ComponentType::UByte, 4));
  Diagnostics d;
  Scene back = read_bytes(write_scene(s, &d));
  ASSERT_EQ(d.items.size(), 3u);
  EXPECT_EQ(d.items[0].message, "vertex array texcoord (half): 1 values out of range were clamped");
  EXPECT_EQ(d.items[1].message, "vertex array color (ubyte): 1 values out of range were clamped");
  EXPECT_EQ(d.items[2].message, "vertex array color (ubyte): 1 NaN values were written as 0");
  const VertexStream* t = back.meshes[0].find(Attribute::Texcoord);
  EXPECT_EQ(t->get(0, 0), 65504.0f);
  EXPECT_TRUE(std::isnan(t->get(1, 0)));
  EXPECT_EQ(t->get(1, 1), 0x1p-23f);
}

TEST(IqmWrite, InvalidScenesAreRefused) {
  auto expect_fail = [](const Scene& s, const std::string& message) {
    try {
      write_scene(s);
      ADD_FAILURE() << "expected: " << message;
    } catch (const Error& e) {
      EXPECT_EQ(e.diagnostic().message, message);
    }
  };
  Scene s = triangle_scene();
  s.meshes[0].triangles = {0, 1, 3};
  expect_fail(s, "mesh 0 ('tri'): triangle 0 uses vertex 3, but the mesh has 3 vertices");
  s = triangle_scene();
  s.meshes[0].streams.push_back(stream(Attribute::Normal, 3, {0, 0, 1}));
  expect_fail(s, "mesh 0 ('tri'): a stream holds 3 values of 3 components, but the mesh has 3 vertices");
  s = triangle_scene();
  s.joints.push_back({"a", 0, {}});
  expect_fail(s, "joint 0 ('a'): parent 0 is not a preceding joint");
  s = triangle_scene();
  s.meshes[0].material = 2;
  expect_fail(s, "mesh 0 ('tri'): material 2 does not exist");
  s = triangle_scene();
  s.joints.push_back({"a", -1, {}});
  Animation a;
  a.name = "x";
  a.channels = 2;
  a.poses.resize(2);
  s.animations.push_back(a);
  expect_fail(s, "animation 'x' has 2 poses per frame but the file has 1 poses");
}

// Frame bounds on several threads (40k vertices x 30 frames, above the threshold), with
// adjacency: the same file as on one thread.
TEST(IqmWrite, ThreadCountsWriteTheSameFile) {
  const uint32_t cols = 200, rows = 200, joints = 8;
  Scene s;
  s.joints = joint_chain(joints, 0.25f);
  Mesh m;
  std::vector<float> p, bi, bw;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      p.insert(p.end(), {float(c) * 0.01f, float(r) * 0.01f, float((r * 7 + c * 3) % 11) * 0.001f});
      const uint32_t j = r * joints / rows;
      bi.insert(bi.end(), {float(j), float(std::min(j + 1, joints - 1))});
      bw.insert(bw.end(), {0.6f, 0.4f});
    }
  m.streams.push_back(stream(Attribute::Position, 3, std::move(p)));
  m.streams.push_back(stream(Attribute::BlendIndices, 2, std::move(bi)));
  m.streams.push_back(stream(Attribute::BlendWeights, 2, std::move(bw)));
  for (uint32_t r = 0; r + 1 < rows; ++r)
    for (uint32_t c = 0; c + 1 < cols; ++c) {
      const uint32_t a = r * cols + c;
      m.triangles.insert(m.triangles.end(), {a, a + 1, a + cols + 1, a, a + cols + 1, a + cols});
    }
  s.meshes.push_back(std::move(m));
  Animation a;
  a.name = "wave";
  a.channels = joints;
  for (int f = 0; f < 30; ++f)
    for (uint32_t j = 0; j < joints; ++j) {
      Transform t = s.joints[j].rest;
      const float angle = 0.02f * float(f * int(j + 1));
      t.rotation = {std::sin(angle), 0, 0, std::cos(angle)};
      a.poses.push_back(t);
    }
  s.animations.push_back(std::move(a));
  WriteOptions one;
  one.threads = 1;
  const std::vector<uint8_t> serial = write_scene(s, nullptr, one);
  EXPECT_GT(adjacency_links(serial), 0u);
  for (unsigned threads : {0u, 2u, 3u}) {
    WriteOptions o;
    o.threads = threads;
    EXPECT_TRUE(write_scene(s, nullptr, o) == serial) << threads << " threads";
  }
}

TEST(IqmWrite, SyntheticMillionVertexModel) {
  // 1M vertices, 2M triangles, 64 joints, 2 x 30 frames: read and write times are recorded.
  // Unoptimised builds use a 300 x 300 grid.
#ifdef NDEBUG
  const uint32_t cols = 1000, rows = 1000, joints = 64;
#else
  const uint32_t cols = 300, rows = 300, joints = 64;
#endif
  Scene s;
  s.joints = joint_chain(joints, 0.1f);
  Mesh m;
  m.name = "grid";
  std::vector<float> p, n, uv, bi, bw;
  p.reserve(size_t(cols) * rows * 3);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      p.insert(p.end(), {float(c) * 0.01f, float(r) * 0.0064f, 0.0f});
      n.insert(n.end(), {0, 0, 1});
      uv.insert(uv.end(), {float(c) / cols, float(r) / rows});
      uint32_t j = r * joints / rows;
      bi.insert(bi.end(), {float(j), float(std::min(j + 1, joints - 1)), 0, 0});
      bw.insert(bw.end(), {0.75f, 0.25f, 0, 0});
    }
  m.streams.push_back(stream(Attribute::Position, 3, std::move(p)));
  m.streams.push_back(stream(Attribute::Texcoord, 2, std::move(uv)));
  m.streams.push_back(stream(Attribute::Normal, 3, std::move(n)));
  m.streams.push_back(stream(Attribute::BlendIndices, 4, std::move(bi)));
  m.streams.push_back(stream(Attribute::BlendWeights, 4, std::move(bw)));
  for (uint32_t r = 0; r + 1 < rows; ++r)
    for (uint32_t c = 0; c + 1 < cols; ++c) {
      uint32_t a = r * cols + c;
      m.triangles.insert(m.triangles.end(), {a, a + 1, a + cols + 1, a, a + cols + 1, a + cols});
    }
  s.meshes.push_back(std::move(m));
  for (int an = 0; an < 2; ++an) {
    Animation a;
    a.name = an ? "b" : "a";
    a.channels = joints;
    for (int f = 0; f < 30; ++f)
      for (uint32_t j = 0; j < joints; ++j) {
        Transform t = s.joints[j].rest;
        float angle = 0.01f * float(f) * (an ? -1.0f : 1.0f);
        t.rotation = {std::sin(angle), 0, 0, std::cos(angle)};
        a.poses.push_back(t);
      }
    s.animations.push_back(std::move(a));
  }
  auto t0 = std::chrono::steady_clock::now();
  std::vector<uint8_t> out = write_scene(s);
  auto t1 = std::chrono::steady_clock::now();
  Scene back = read_bytes(out);
  auto t2 = std::chrono::steady_clock::now();
  double w = std::chrono::duration<double>(t1 - t0).count(), r = std::chrono::duration<double>(t2 - t1).count();
  RecordProperty("write_seconds", std::to_string(w));
  RecordProperty("read_seconds", std::to_string(r));
  std::printf("%u vertices / %u triangles: write %.3f s, read %.3f s (%.0f MB)\n", cols * rows,
              2 * (cols - 1) * (rows - 1), w, r, double(out.size()) / 1e6);
  auto h = testutil::iqm_header(out);
  EXPECT_EQ(h.num_vertexes, cols * rows);
  EXPECT_EQ(h.num_triangles, 2 * (cols - 1) * (rows - 1));
  EXPECT_EQ(adjacency_links(out),
            size_t(2) * ((cols - 1) * (rows - 2) + (cols - 2) * (rows - 1) + (cols - 1) * (rows - 1)));
  EXPECT_EQ(back.meshes[0].find(Attribute::Position)->data, s.meshes[0].find(Attribute::Position)->data);
  EXPECT_EQ(back.meshes[0].triangles, s.meshes[0].triangles);
}

namespace {

// Two meshes of 70,000 vertices (above the threaded-read threshold), skinned, with texture
// coordinates, as IQM.
std::vector<uint8_t> two_large_meshes() {
  Scene s;
  s.joints = joint_chain(4, 0.5f);
  for (int k = 0; k < 2; ++k) {
    Mesh m;
    m.name = k ? "second" : "first";
    const uint32_t n = 70000;
    std::vector<float> p, uv, bi, bw;
    for (uint32_t v = 0; v < n; ++v) {
      p.insert(p.end(), {float(v % 300) * 0.01f, float(v / 300) * 0.01f, float(k) + float(v % 13) * 0.001f});
      uv.insert(uv.end(), {float(v % 300) / 300.0f, float(v / 300) / 240.0f});
      bi.insert(bi.end(), {float(v % 4), float((v + 1) % 4)});
      bw.insert(bw.end(), {0.75f, 0.25f});
    }
    for (uint32_t v = 0; v + 2 < n; ++v) m.triangles.insert(m.triangles.end(), {v, v + 1 + v % 2, v + 2 - v % 2});
    m.streams.push_back(stream(Attribute::Position, 3, std::move(p)));
    m.streams.push_back(stream(Attribute::Texcoord, 2, std::move(uv)));
    m.streams.push_back(stream(Attribute::BlendIndices, 2, std::move(bi)));
    m.streams.push_back(stream(Attribute::BlendWeights, 2, std::move(bw)));
    s.meshes.push_back(std::move(m));
  }
  return write_scene(s);
}

// Reads `file` with `threads`: the Scene and the diagnostics' text, or the error's.
std::pair<Scene, std::string> read_with_threads(const std::vector<uint8_t>& file, unsigned threads) {
  Diagnostics d;
  Scene s;
  std::string text;
  try {
    s = iqm::read(file, "two.iqm", d, threads);
  } catch (const Error& e) {
    text = std::string("error: ") + e.what() + "\n";
  }
  for (const Diagnostic& x : d.items) text += x.message + "\n";
  return {std::move(s), text};
}

}  // namespace

// A large mesh's arrays are decoded on 2 threads: the same Scene and diagnostics as on one, also
// when the file has values to warn about, triangles reaching into another mesh (which read the
// mesh on one thread after all) and an index out of range (an error).
TEST(IqmRead, ThreadCountsReadTheSameScene) {
  std::vector<uint8_t> file = two_large_meshes();
  const testutil::IqmHeader h = testutil::iqm_header(file);
  ASSERT_EQ(h.num_meshes, 2u);
  ASSERT_EQ(h.num_vertexes, 140000u);
  auto array_offset = [&](uint32_t type) {
    for (uint32_t a = 0; a < h.num_vertexarrays; ++a)
      if (testutil::peek<uint32_t>(file, h.ofs_vertexarrays + a * 20) == type)
        return testutil::peek<uint32_t>(file, h.ofs_vertexarrays + a * 20 + 16);
    return 0u;
  };
  auto expect_same = [&](const std::vector<uint8_t>& f, const char* what) {
    const auto [serial, serial_text] = read_with_threads(f, 1);
    for (unsigned threads : {2u, 3u}) {
      const auto [s, text] = read_with_threads(f, threads);
      EXPECT_TRUE(s == serial) << what << ", " << threads << " threads";
      EXPECT_EQ(text, serial_text) << what << ", " << threads << " threads";
    }
    return serial_text;
  };
  EXPECT_EQ(expect_same(file, "as written"), "");

  const float inf = std::numeric_limits<float>::infinity();  // (a NaN would make the Scenes unequal)
  std::memcpy(file.data() + array_offset(0) + 12 * 5, &inf, 4);  // vertex 5's x
  file[array_offset(4) + 4 * 70003 + 1] = 200;                    // a blend index past the joints
  EXPECT_EQ(expect_same(file, "values to warn about"),
            "vertex array 0 (position, float x3): 1 values are NaN or infinite\n"
            "vertex array 2 (blendindexes, ubyte x4): 1 blend indices are not below num_joints (4)\n");

  std::vector<uint8_t> reaching = file;
  const uint32_t second = h.ofs_triangles + 12 * 69998;  // the second mesh's first triangle
  const uint32_t zero = 0;
  std::memcpy(reaching.data() + second, &zero, 4);
  const std::string warned = expect_same(reaching, "triangles reaching into the first mesh");
  EXPECT_NE(warned.find("mesh 1 ('second'): its triangles use 1 vertices outside its own range [70000, 140000)"),
            std::string::npos)
      << warned;
  EXPECT_NE(warned.find("1 values are NaN or infinite"), std::string::npos) << warned;  // counted once

  const uint32_t past = 140000;
  std::memcpy(reaching.data() + second + 4, &past, 4);
  const std::string failed = expect_same(reaching, "an index out of range");
  EXPECT_NE(failed.find("error: two.iqm: offset "), std::string::npos) << failed;
  EXPECT_NE(failed.find("triangle 69998: vertex index 140000 is out of range (num_vertexes 140000)"),
            std::string::npos)
      << failed;
}

}  // namespace meshport_test_iqm
