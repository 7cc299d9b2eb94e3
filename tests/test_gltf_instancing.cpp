// Issue 18: EXT_mesh_gpu_instancing (Mesh::instances, ops/mesh/instances.h), vertex arrays shared by
// many primitives within the memory guard, and points and lines (Mesh::topology). The glTF files
// are built here: JSON with the binary data in a base64 data URI, or a .glb.
#include "core/math.h"
#include "ops/mesh/instances.h"
#include "test_util.h"

#include <meshport/diff.h>
#include <meshport/meshport.h>
#include <meshport/process.h>
#include <meshport/summary.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace meshport_test_gltf_instancing {

using namespace meshport;
using json = nlohmann::json;

namespace {

struct Builder {
  json doc;
  std::vector<uint8_t> bin;

  Builder() { doc["asset"] = {{"version", "2.0"}}; }

  template <class T>
  size_t add(const std::vector<T>& v, int ct, const std::string& type, bool normalized = false) {
    while (bin.size() % 4) bin.push_back(0);
    const size_t off = bin.size();
    bin.resize(off + v.size() * sizeof(T));
    std::memcpy(bin.data() + off, v.data(), v.size() * sizeof(T));
    doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", off}, {"byteLength", v.size() * sizeof(T)}});
    const size_t comps = type == "SCALAR" ? 1 : size_t(type[3] - '0');
    json a = {{"bufferView", doc["bufferViews"].size() - 1}, {"componentType", ct}, {"type", type},
              {"count", v.size() / comps}};
    if (normalized) a["normalized"] = true;
    if (type == "VEC3" && ct == 5126) {  // POSITION needs min and max; harmless elsewhere
      std::vector<float> lo(3, 1e30f), hi(3, -1e30f);
      for (size_t i = 0; i < v.size(); ++i) {
        lo[i % 3] = std::min(lo[i % 3], float(v[i]));
        hi[i % 3] = std::max(hi[i % 3], float(v[i]));
      }
      a["min"] = lo, a["max"] = hi;
    }
    doc["accessors"].push_back(a);
    return doc["accessors"].size() - 1;
  }
  size_t floats(const std::vector<float>& v, const std::string& type) { return add(v, 5126, type); }
  size_t ushorts(const std::vector<uint16_t>& v) { return add(v, 5123, "SCALAR"); }
  size_t mesh(json prims, const std::string& name) {
    doc["meshes"].push_back({{"primitives", prims}, {"name", name}});
    return doc["meshes"].size() - 1;
  }
  size_t node(json n) {
    doc["nodes"].push_back(std::move(n));
    doc["scenes"] = json::array({{{"nodes", json::array()}}});
    for (size_t i = 0; i < doc["nodes"].size(); ++i) doc["scenes"][0]["nodes"].push_back(i);
    doc["scene"] = 0;
    return doc["nodes"].size() - 1;
  }
  std::vector<uint8_t> gltf() const {
    json d = doc;
    if (!bin.empty())
      d["buffers"] = json::array(
          {{{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + testutil::base64(bin)}}});
    const std::string t = d.dump();
    return {t.begin(), t.end()};
  }
};

Scene read_gltf(const std::vector<uint8_t>& b, Diagnostics* d = nullptr) {
  return read_memory(b, Format::Gltf, "test.gltf", d);
}

std::string error_of(const std::vector<uint8_t>& b) {
  try {
    read_gltf(b);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string joined(const Diagnostics& d) {
  std::string s;
  for (const auto& x : d.items) s += x.message + "\n";
  return s;
}

// A unit cube, 0..1, 8 vertices, 12 triangles.
const std::vector<float> kCube = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
const std::vector<uint16_t> kCubeIdx = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                        2, 3, 7, 2, 7, 6, 1, 2, 6, 1, 6, 5, 0, 4, 7, 0, 7, 3};

// Instance i of the 125: at (2 * (i % 5), 2 * (i / 5 % 5), 2 * (i / 25)), every other one turned
// 180 degrees about Z, scale 1 + (i % 3).
Vec3 instance_translation(size_t i) { return {2.0f * float(i % 5), 2.0f * float(i / 5 % 5), 2.0f * float(i / 25)}; }
bool instance_turned(size_t i) { return i % 2 == 1; }
float instance_scale(size_t i) { return 1.0f + float(i % 3); }
// Where vertex v of instance i lands (exact: the rotations are 0 and 180 degrees).
Vec3 expected(size_t i, size_t v) {
  const float s = instance_scale(i);
  Vec3 p{kCube[v * 3] * s, kCube[v * 3 + 1] * s, kCube[v * 3 + 2] * s};
  if (instance_turned(i)) p = {-p[0], -p[1], p[2]};
  const Vec3 t = instance_translation(i);
  return {p[0] + t[0], p[1] + t[1], p[2] + t[2]};
}

// The cube instanced 125 times; rotations as floats or as normalized shorts.
Builder instanced_cube(bool short_rotations) {
  Builder b;
  size_t pos = b.floats(kCube, "VEC3");
  size_t idx = b.ushorts(kCubeIdx);
  b.mesh(json::array({{{"attributes", {{"POSITION", pos}}}, {"indices", idx}}}), "cube");
  std::vector<float> t, s, rf;
  std::vector<int16_t> rs;
  for (size_t i = 0; i < 125; ++i) {
    const Vec3 x = instance_translation(i);
    t.insert(t.end(), x.begin(), x.end());
    s.insert(s.end(), 3, instance_scale(i));
    const bool turned = instance_turned(i);
    for (float q : {0.0f, 0.0f, turned ? 1.0f : 0.0f, turned ? 0.0f : 1.0f}) {
      rf.push_back(q);
      rs.push_back(int16_t(q * 32767));
    }
  }
  json attrs = {{"TRANSLATION", b.floats(t, "VEC3")}, {"SCALE", b.floats(s, "VEC3")}};
  attrs["ROTATION"] = short_rotations ? b.add(rs, 5122, "VEC4", true) : b.floats(rf, "VEC4");
  b.node({{"mesh", 0}, {"name", "grid"}, {"extensions", {{"EXT_mesh_gpu_instancing", {{"attributes", attrs}}}}}});
  b.doc["extensionsUsed"] = json::array({"EXT_mesh_gpu_instancing"});
  return b;
}

Vec3 position(const Mesh& m, size_t v) {
  const VertexStream* p = m.find(Attribute::Position);
  return {p->get(v, 0), p->get(v, 1), p->get(v, 2)};
}

// The expanded cube (one mesh, 125 copies of 8 vertices in instance order): exact positions.
void expect_expanded(const Mesh& m, float tol) {
  ASSERT_EQ(m.vertex_count(), 125u * 8);
  ASSERT_EQ(m.triangles.size(), 125u * 36);
  EXPECT_TRUE(m.instances.empty());
  for (size_t i : {size_t(0), size_t(1), size_t(2), size_t(57), size_t(124)})
    for (size_t v = 0; v < 8; ++v) {
      const Vec3 got = position(m, i * 8 + v), want = expected(i, v);
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[c], want[c], tol) << "instance " << i << " vertex " << v;
    }
}

}  // namespace

// ---- EXT_mesh_gpu_instancing ------------------------------------------------------------------

TEST(GltfInstancing, ReadKeepsTheInstancesExactly) {
  for (bool shorts : {false, true}) {
    Scene s = read_gltf(instanced_cube(shorts).gltf());
    ASSERT_EQ(s.meshes.size(), 1u);
    const Mesh& m = s.meshes[0];
    EXPECT_EQ(m.vertex_count(), 8u);  // the mesh once, its vertices as in the file
    ASSERT_EQ(m.instances.size(), 125u);
    for (size_t i : {size_t(0), size_t(1), size_t(2), size_t(57), size_t(124)}) {
      const Transform& t = m.instances[i];
      EXPECT_EQ(t.translation, instance_translation(i)) << i;
      EXPECT_EQ(t.scale, (Vec3{instance_scale(i), instance_scale(i), instance_scale(i)})) << i;
      EXPECT_EQ(t.rotation, (Quat{0, 0, instance_turned(i) ? 1.0f : 0.0f, instance_turned(i) ? 0.0f : 1.0f})) << i;
    }
    // The bounds are those of every copy.
    Vec3 lo{1e9f, 1e9f, 1e9f}, hi{-1e9f, -1e9f, -1e9f};
    for (size_t i = 0; i < 125; ++i)
      for (size_t v = 0; v < 8; ++v)
        for (int c = 0; c < 3; ++c) {
          lo[c] = std::min(lo[c], expected(i, v)[c]);
          hi[c] = std::max(hi[c], expected(i, v)[c]);
        }
    Bounds b = scene_bounds(s);
    EXPECT_EQ(b.min, lo);
    EXPECT_EQ(b.max, hi);
    EXPECT_EQ(lo[0], -3.0f);  // instance 5: at x = 0, turned, scale 3
  }
}

TEST(GltfInstancing, NodeTransformComposesAfterTheInstance) {
  Builder b = instanced_cube(false);
  b.doc["nodes"][0]["translation"] = {100, 0, 0};
  b.doc["nodes"][0]["scale"] = {2, 2, 2};
  Scene s = read_gltf(b.gltf());
  ASSERT_EQ(s.meshes[0].instances.size(), 125u);
  // World = Node * Instance * p: instance 1 (x 2, turned, scale 2) -> translation 100 + 2 * 2.
  const Transform& t = s.meshes[0].instances[1];
  EXPECT_FLOAT_EQ(t.translation[0], 104.0f);
  EXPECT_FLOAT_EQ(t.scale[0], 4.0f);
  Scene e = s;
  ops::expand_instances(e);
  Scene plain = read_gltf(instanced_cube(false).gltf());
  ops::expand_instances(plain);
  expect_expanded(plain.meshes[0], 0.0f);
  const Vec3 p = position(e.meshes[0], 8 + 6);  // instance 1, vertex (1, 1, 1)
  EXPECT_NEAR(p[0], 100 + 2 * (2 - 2), 1e-4);
  EXPECT_NEAR(p[1], 2 * (0 - 2), 1e-4);
  EXPECT_NEAR(p[2], 2 * 2, 1e-4);
}

TEST(GltfInstancing, GlbToGlbKeepsTheInstancing) {
  Scene s = read_gltf(instanced_cube(true).gltf());
  testutil::TempDir dir;
  write(s, dir / "out.glb");
  Diagnostics d;
  Scene back = read(dir / "out.glb", {}, &d);
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_EQ(back.meshes[0].vertex_count(), 8u);
  EXPECT_EQ(back.meshes[0].instances, s.meshes[0].instances);
  EXPECT_TRUE(diff(s, back).empty());
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({dir / "out.glb"}, out)) << out;
  const std::vector<uint8_t> glb = write_memory(back, Format::Glb);
  const std::string text(glb.begin(), glb.end());
  EXPECT_NE(text.find("\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\"]"), std::string::npos);
  EXPECT_EQ(text.find("extensionsRequired"), std::string::npos);
  // A changed instance is a difference.
  back.meshes[0].instances[3].translation[0] += 1;
  EXPECT_FALSE(diff(s, back).empty());
}

TEST(GltfInstancing, OtherFormatsGetTheCopiesMerged) {
  Scene s = read_gltf(instanced_cube(false).gltf());
  for (Format f : {Format::Iqm, Format::Iqe, Format::Pie, Format::Obj}) {
    SCOPED_TRACE(format_info(f).name);
    Diagnostics d;
    const std::vector<uint8_t> bytes = write_memory(s, f, {}, &d);
    EXPECT_NE(joined(d).find("GPU instances of 1 meshes written as copies merged"), std::string::npos) << joined(d);
    Scene back = read_memory(bytes, f, "x." + std::string(format_info(f).name));
    ASSERT_EQ(back.meshes.size(), 1u);
    // Writers may share equal vertices or reorder them: every expected corner must be there.
    {
      const Mesh& m = back.meshes[0];
      EXPECT_EQ(m.triangles.size(), 125u * 36);
      for (size_t i : {size_t(1), size_t(57), size_t(124)})
        for (size_t v = 0; v < 8; ++v) {
          const Vec3 want = expected(i, v);
          bool found = false;
          for (size_t k = 0; k < m.vertex_count() && !found; ++k) {
            const Vec3 p = position(m, k);
            found = std::fabs(p[0] - want[0]) < 1e-3 && std::fabs(p[1] - want[1]) < 1e-3 &&
                    std::fabs(p[2] - want[2]) < 1e-3;
          }
          EXPECT_TRUE(found) << "instance " << i << " vertex " << v;
        }
    }
  }
}

TEST(GltfInstancing, ExpandFlipsMirroredCopiesAndKeepsMorphTargets) {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.triangles = {0, 1, 2};
  MorphTarget t;
  t.positions = {1, 0, 0, 1, 0, 0, 1, 0, 0};
  m.morph_targets.push_back(t);
  m.instances = {testutil::trs({10, 0, 0}), testutil::trs({0, 0, 0}, {0, 0, 0, 1}, {-1, 1, 1})};
  s.meshes.push_back(m);
  EXPECT_EQ(ops::expand_instances(s), 1u);
  const Mesh& e = s.meshes[0];
  EXPECT_EQ(e.find(Attribute::Position)->data,
            (std::vector<float>{10, 0, 0, 11, 0, 0, 10, 1, 0, 0, 0, 0, -1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(e.triangles, (std::vector<uint32_t>{0, 1, 2, 3, 5, 4}));  // the mirrored copy flipped
  EXPECT_EQ(e.find(Attribute::Normal)->data, (std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  ASSERT_EQ(e.morph_targets.size(), 1u);
  EXPECT_EQ(e.morph_targets[0].positions,
            (std::vector<float>{1, 0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0}));
  // A transform that is not finite fails before changing anything.
  Scene nan = s;
  nan.meshes[0].instances = {testutil::trs({NAN, 0, 0})};
  EXPECT_THROW(ops::expand_instances(nan), Error);
  EXPECT_EQ(nan.meshes[0].instances.size(), 1u);
}

// Morph target tangent displacements follow their copies like positions do.
TEST(GltfInstancing, ExpandKeepsMorphTargetTangentsPerCopy) {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  MorphTarget t;
  t.positions = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  t.tangents = {1, 0, 0, 1, 0, 0, 0, 1, 0};
  m.morph_targets.push_back(t);
  m.instances = {testutil::trs({0, 0, 0}), testutil::trs({0, 0, 0}, {0, 0, 0, 1}, {2, 3, 1})};
  s.meshes.push_back(m);
  ASSERT_EQ(ops::expand_instances(s), 1u);
  EXPECT_EQ(s.meshes[0].morph_targets[0].tangents,
            (std::vector<float>{1, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 2, 0, 0, 0, 3, 0}));
}

TEST(GltfInstancing, TransformMovesTheInstancesNotTheVertices) {
  Scene s = read_gltf(instanced_cube(false).gltf());
  const std::vector<float> before = s.meshes[0].find(Attribute::Position)->data;
  TransformOptions o;
  o.scale = 2;
  o.translate = {0, 0, 5};
  transform_scene(s, o);
  EXPECT_EQ(s.meshes[0].find(Attribute::Position)->data, before);
  const Transform& t = s.meshes[0].instances[1];  // x 2, scale 2 -> x 4 + 0, z 0 * 2 + 5, scale 4
  EXPECT_EQ(t.translation, (Vec3{4, 0, 5}));
  EXPECT_EQ(t.scale, (Vec3{4, 4, 4}));
}

TEST(GltfInstancing, HostileInstanceCountsFailCleanly) {
  // 20 million instances from accessors without a buffer view (zeros): refused by the guard.
  Builder b = instanced_cube(false);
  for (size_t k : {2u, 3u, 4u}) {
    b.doc["accessors"][k].erase("bufferView");
    b.doc["accessors"][k].erase("min");
    b.doc["accessors"][k].erase("max");
    b.doc["accessors"][k]["count"] = 20000000;
  }
  std::string e = error_of(b.gltf());
  EXPECT_NE(e.find("nodes[0].extensions.EXT_mesh_gpu_instancing"), std::string::npos) << e;
  EXPECT_NE(e.find("bytes remain of the"), std::string::npos) << e;
  // A count the instances array fits, but whose copies would not.
  Builder c;
  std::vector<float> big(60000 * 3, 1.0f);
  c.mesh(json::array({{{"attributes", {{"POSITION", c.floats(big, "VEC3")}}}}}), "big");
  c.doc["accessors"].push_back({{"componentType", 5126}, {"type", "VEC3"}, {"count", 100000}});
  c.node({{"mesh", 0}, {"extensions", {{"EXT_mesh_gpu_instancing", {{"attributes", {{"TRANSLATION", 1}}}}}}}});
  e = error_of(c.gltf());
  EXPECT_NE(e.find("100000 GPU instances of the mesh would need"), std::string::npos) << e;
  // Mismatched counts and wrong types are errors naming the attribute.
  Builder d = instanced_cube(false);
  d.doc["accessors"][3]["count"] = 124;
  EXPECT_NE(error_of(d.gltf()).find("all must have the same count"), std::string::npos);
  Builder w = instanced_cube(false);
  w.doc["accessors"][2]["componentType"] = 5122;
  w.doc["accessors"][2]["normalized"] = true;
  EXPECT_NE(error_of(w.gltf()).find("EXT_mesh_gpu_instancing.attributes.TRANSLATION"), std::string::npos);
}

// ---- A vertex array shared by many primitives ----------------------------------------------------

// 102 meshes (as MetalRoughSpheresNoTextures) each drawing its own slice of one large POSITION
// accessor through its own indices: each is charged for its own vertices, so the file is read.
TEST(GltfInstancing, ManyMeshesSharingOneAccessorAreRead) {
  constexpr size_t kMeshes = 102, kSlice = 402;
  Builder b;
  std::vector<float> pos;
  for (size_t v = 0; v < kMeshes * kSlice; ++v)
    for (float x : {float(v), float(v % 7), float(v / kSlice)}) pos.push_back(x);
  const size_t pa = b.floats(pos, "VEC3");
  for (size_t m = 0; m < kMeshes; ++m) {
    std::vector<uint16_t> idx;
    for (size_t k = 0; k < kSlice; ++k) idx.push_back(uint16_t(k));
    // The slice through a byte offset: indices into the whole accessor need 32 bits.
    std::vector<uint32_t> wide;
    for (uint16_t k : idx) wide.push_back(uint32_t(m * kSlice + k));
    const size_t ia = b.add(wide, 5125, "SCALAR");
    b.mesh(json::array({{{"attributes", {{"POSITION", pa}}}, {"indices", ia}}}), fmt::format("sphere{}", m));
    b.node({{"mesh", m}});
  }
  Diagnostics d;
  Scene s = read_gltf(b.gltf(), &d);
  ASSERT_EQ(s.meshes.size(), kMeshes);
  for (size_t m : {size_t(0), size_t(50), kMeshes - 1}) {
    ASSERT_EQ(s.meshes[m].vertex_count(), kSlice);
    EXPECT_EQ(position(s.meshes[m], 5), (Vec3{float(m * kSlice + 5), float((m * kSlice + 5) % 7), float(m)}));
    EXPECT_EQ(s.meshes[m].triangles[4], 4u);
  }
  // Hostile: 3000 nodes instancing one big mesh are still refused, with the budget quoted.
  Builder h;
  std::vector<float> big(200000 * 3, 1.0f);
  h.mesh(json::array({{{"attributes", {{"POSITION", h.floats(big, "VEC3")}}}}}), "big");
  json nodes = json::array();
  for (int i = 0; i < 3000; ++i) nodes.push_back({{"mesh", 0}});
  h.doc["nodes"] = nodes;
  const std::string e = error_of(h.gltf());
  EXPECT_NE(e.find("an instance of the mesh would need 3199992 bytes of memory, but only"), std::string::npos) << e;
  EXPECT_NE(e.find("bytes remain of the"), std::string::npos) << e;
}

// ---- Points and lines ---------------------------------------------------------------------------

namespace {

Builder points_and_lines() {
  Builder b;
  const size_t tri = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
  b.mesh(json::array({{{"attributes", {{"POSITION", tri}}}}}), "face");
  const size_t wire = b.floats({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, "VEC3");
  b.mesh(json::array({{{"attributes", {{"POSITION", wire}}}, {"indices", b.ushorts({0, 1, 2, 3})}, {"mode", 2}}}),
         "wire");
  const size_t dots = b.floats({5, 5, 5, 6, 6, 6}, "VEC3");
  b.mesh(json::array({{{"attributes", {{"POSITION", dots}}}, {"mode", 0}}}), "dots");
  for (size_t m = 0; m < 3; ++m) b.node({{"mesh", m}});
  return b;
}

}  // namespace

TEST(GltfInstancing, PointsAndLinesThroughGlbAreKept) {
  Scene s = read_gltf(points_and_lines().gltf());
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[1].topology, Topology::Lines);
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 1, 1, 2, 2, 3, 3, 0}));  // the loop's segments
  EXPECT_EQ(s.meshes[2].topology, Topology::Points);
  EXPECT_EQ(s.meshes[2].triangles, (std::vector<uint32_t>{0, 1}));
  // The default processing leaves them alone (no normals for lines and points).
  process(s, {});
  EXPECT_EQ(s.meshes[1].find(Attribute::Normal), nullptr);
  EXPECT_EQ(s.meshes[2].find(Attribute::Normal), nullptr);
  EXPECT_NE(s.meshes[0].find(Attribute::Normal), nullptr);
  weld_vertices(s);
  optimize_meshes(s);
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 1, 1, 2, 2, 3, 3, 0}));
  testutil::TempDir dir;
  write(s, dir / "pl.glb");
  Scene back = read(dir / "pl.glb");
  ASSERT_EQ(back.meshes.size(), 3u);
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(back.meshes[m].topology, s.meshes[m].topology);
    EXPECT_EQ(back.meshes[m].triangles, s.meshes[m].triangles);
    EXPECT_EQ(back.meshes[m].find(Attribute::Position)->data, s.meshes[m].find(Attribute::Position)->data);
  }
  EXPECT_TRUE(diff(s, back).empty());
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({dir / "pl.glb"}, out)) << out;
  const std::string text = to_text(summarize(back, Format::Glb));
  EXPECT_NE(text.find("line meshes: 1  point meshes: 1"), std::string::npos) << text;
  EXPECT_NE(text.find("4 line segments"), std::string::npos) << text;
}

TEST(GltfInstancing, PointsAndLinesAreSkippedByOtherFormats) {
  Scene s = read_gltf(points_and_lines().gltf());
  for (Format f : {Format::Iqm, Format::Iqe, Format::Pie, Format::Obj}) {
    SCOPED_TRACE(format_info(f).name);
    Diagnostics d;
    const std::vector<uint8_t> bytes = write_memory(s, f, {}, &d);
    const std::string w = joined(d);
    EXPECT_NE(w.find(fmt::format("mesh 1 ('wire'): 4 line segments not written: {} has no lines", format_info(f).name)),
              std::string::npos)
        << w;
    EXPECT_NE(w.find(fmt::format("mesh 2 ('dots'): 2 points not written: {} has no points", format_info(f).name)),
              std::string::npos)
        << w;
    Scene back = read_memory(bytes, f, "x." + std::string(format_info(f).name));
    ASSERT_EQ(back.meshes.size(), 1u);
    EXPECT_EQ(back.meshes[0].triangles.size(), 3u);
    EXPECT_EQ(back.meshes[0].topology, Topology::Triangles);
  }
}

// --expand-instances writes the copies to glTF too (Blender 3.4 does not read the extension).
TEST(GltfInstancing, ExpandInstancesFlagWritesCopiesToGltf) {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  m.instances = {testutil::trs({0, 0, 0}), testutil::trs({5, 0, 0}), testutil::trs({0, 0, 5}, {0, 0, 0, 1}, {2, 2, 2})};
  s.meshes.push_back(m);
  ProcessOptions o;
  o.expand_instances = true;
  o.normals = o.tangents = Generate::Off;
  process(s, o);
  const Scene back = read_memory(write_memory(s, Format::Glb), Format::Glb, "t.glb");
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_TRUE(back.meshes[0].instances.empty());
  EXPECT_EQ(back.meshes[0].vertex_count(), 9u);
  EXPECT_EQ(back.meshes[0].triangles.size(), 9u);
  const VertexStream& p = *back.meshes[0].find(Attribute::Position);
  EXPECT_EQ(p.get(4, 0), 6.0f);  // copy 1, vertex 1: (1, 0, 0) + (5, 0, 0)
  EXPECT_EQ(p.get(8, 1), 2.0f);  // copy 2, vertex 2: (0, 1, 0) * 2 + (0, 0, 5)
  EXPECT_EQ(p.get(8, 2), 5.0f);
}

}  // namespace meshport_test_gltf_instancing
