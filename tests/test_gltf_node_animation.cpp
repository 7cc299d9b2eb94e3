// glTF node animation (issue 18): the nodes that animations move become joints, the static
// meshes under them are bound to them rigidly, and the motion survives glb, IQM, IQE and PIE.
// Also: morph target tangent displacements through glTF and the vertex steps, and IQM / IQE
// leaving out clips of morph weights only.
#include <meshport/diff.h>
#include <meshport/meshport.h>
#include <meshport/process.h>

#include "core/math.h"
#include "ops/animation/skinning.h"
#include "ops/mesh/remap.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_gltf_node_animation {

using namespace meshport;
using json = nlohmann::json;

namespace {

using D3 = std::array<double, 3>;
using D4 = std::array<double, 4>;  // quaternion x, y, z, w

// ---- The node-animated box -------------------------------------------------------------------
//
// nodes[0] "carrier" (translation 1 0 0), children 1 and 2, its translation animated by a STEP
//   sampler: keys at 0, 0.5, 1 s of (1 0 0), (1 2 0), (1 2 3).
// nodes[1] "lid": mesh "lid" (a unit box), translation 0 1 0, its rotation animated about Y by a
//   CUBICSPLINE sampler: keys at 0, 0.25, 1 s of 0, 45 and 90 degrees, with tangents.
// nodes[2] "base": mesh "base" (a box of half size 0.25), translation 0 0 1, not animated.
// nodes[3] "ground": mesh "ground", translation 0 -1 0, a root, not animated.
// The keys lie on a 0.25 s grid: 4 fps, frames at 0, 0.25, 0.5, 0.75, 1 s.

const double kS45 = std::sin(M_PI / 8), kC45 = std::cos(M_PI / 8), kS90 = std::sqrt(0.5);
const D3 kCarrier[3] = {{1, 0, 0}, {1, 2, 0}, {1, 2, 3}};
const double kCarrierTimes[3] = {0, 0.5, 1};
const double kLidTimes[3] = {0, 0.25, 1};
// Per key: in tangent, value, out tangent.
const D4 kLidKeys[3][3] = {
    {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0.5, 0, 0}},
    {{0, 0.25, 0, -0.125}, {0, kS45, 0, kC45}, {0, 0.375, 0, -0.125}},
    {{0, 0.25, 0, -0.25}, {0, kS90, 0, kS90}, {0, 0, 0, 0}},
};

std::vector<float> box(float h) {
  std::vector<float> p;
  for (int i = 0; i < 8; ++i) p.insert(p.end(), {i & 1 ? h : -h, i & 2 ? h : -h, i & 4 ? h : -h});
  return p;
}
const std::vector<uint16_t> kBoxTriangles = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                             2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};

struct Doc {
  json doc;
  std::vector<uint8_t> bin;
  Doc() { doc["asset"] = {{"version", "2.0"}}; }
  size_t view(const void* p, size_t n) {
    while (bin.size() % 4) bin.push_back(0);
    const size_t off = bin.size();
    bin.resize(off + n);
    std::memcpy(bin.data() + off, p, n);
    doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", off}, {"byteLength", n}});
    return doc["bufferViews"].size() - 1;
  }
  size_t floats(const std::vector<float>& v, const std::string& type, size_t per, bool bounds = false) {
    json a = {{"bufferView", view(v.data(), v.size() * 4)}, {"componentType", 5126}, {"type", type},
              {"count", v.size() / per}};
    if (bounds) {  // POSITION and animation inputs need min / max
      std::vector<float> lo(per, INFINITY), hi(per, -INFINITY);
      for (size_t i = 0; i < v.size(); ++i) lo[i % per] = std::min(lo[i % per], v[i]), hi[i % per] = std::max(hi[i % per], v[i]);
      a["min"] = lo, a["max"] = hi;
    }
    doc["accessors"].push_back(a);
    return doc["accessors"].size() - 1;
  }
  size_t indices(const std::vector<uint16_t>& v) {
    doc["accessors"].push_back(
        {{"bufferView", view(v.data(), v.size() * 2)}, {"componentType", 5123}, {"type", "SCALAR"}, {"count", v.size()}});
    return doc["accessors"].size() - 1;
  }
  size_t mesh(const std::string& name, float half) {
    const size_t pos = floats(box(half), "VEC3", 3, true);
    const size_t idx = indices(kBoxTriangles);
    doc["meshes"].push_back({{"name", name}, {"primitives", {{{"attributes", {{"POSITION", pos}}}, {"indices", idx}}}}});
    return doc["meshes"].size() - 1;
  }
  std::string gltf() const {
    json d = doc;
    d["buffers"] = json::array({{{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," +
                                                                        testutil::base64(bin)}}});
    return d.dump();
  }
};

Doc box_doc() {
  Doc d;
  d.mesh("lid", 0.5f);
  d.mesh("base", 0.25f);
  d.mesh("ground", 2);
  d.doc["nodes"] = json::array({
      {{"name", "carrier"}, {"translation", {1, 0, 0}}, {"children", {1, 2}}},
      {{"name", "lid"}, {"mesh", 0}, {"translation", {0, 1, 0}}},
      {{"name", "base"}, {"mesh", 1}, {"translation", {0, 0, 1}}},
      {{"name", "ground"}, {"mesh", 2}, {"translation", {0, -1, 0}}},
  });
  d.doc["scenes"] = json::array({{{"nodes", {0, 3}}}});
  d.doc["scene"] = 0;
  std::vector<float> ct, cv, lt, lv;
  for (int k = 0; k < 3; ++k) {
    ct.push_back(float(kCarrierTimes[k]));
    lt.push_back(float(kLidTimes[k]));
    for (double x : kCarrier[k]) cv.push_back(float(x));
    for (const D4& q : kLidKeys[k])
      for (double x : q) lv.push_back(float(x));
  }
  const size_t s0in = d.floats(ct, "SCALAR", 1, true), s0out = d.floats(cv, "VEC3", 3);
  const size_t s1in = d.floats(lt, "SCALAR", 1, true), s1out = d.floats(lv, "VEC4", 4);
  d.doc["animations"] = json::array({{
      {"name", "move"},
      {"samplers",
       {{{"input", s0in}, {"output", s0out}, {"interpolation", "STEP"}},
        {{"input", s1in}, {"output", s1out}, {"interpolation", "CUBICSPLINE"}}}},
      {"channels",
       {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}},
        {{"sampler", 1}, {"target", {{"node", 1}, {"path", "rotation"}}}}}},
  }});
  return d;
}

// Read at the keys' 4 fps (--resample 4), the frames the tests below check the motion at. By
// default the CUBICSPLINE lid would be sampled finer, within the curve bound (test_curves_bound.cpp).
Scene read_gltf(const std::string& text, Diagnostics* d = nullptr) {
  testutil::TempDir dir;
  const std::string path = dir / "box.gltf";
  std::ofstream(path) << text;
  ReadOptions o;
  o.resample.fps = 4;
  return read(path, o, d);
}

// ---- What glTF says the nodes do, computed here in double ------------------------------------

D3 carrier_at(double t) {  // STEP: the last key at or before t
  int k = 0;
  while (k + 1 < 3 && kCarrierTimes[k + 1] <= t + 1e-9) ++k;
  return kCarrier[k];
}

D4 lid_at(double t) {  // cubic Hermite spline between keys, normalised
  int k = 0;
  while (k + 1 < 2 && kLidTimes[k + 1] <= t + 1e-9) ++k;
  const double dt = kLidTimes[k + 1] - kLidTimes[k], u = std::min(1.0, (t - kLidTimes[k]) / dt);
  const double u2 = u * u, u3 = u2 * u;
  const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
  D4 q{};
  for (int i = 0; i < 4; ++i)
    q[i] = h00 * kLidKeys[k][1][i] + h10 * dt * kLidKeys[k][2][i] + h01 * kLidKeys[k + 1][1][i] +
           h11 * dt * kLidKeys[k + 1][0][i];
  const double l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& x : q) x /= l;
  return q;
}

D3 rotate(const D4& q, const D3& v) {
  const D3 u{q[0], q[1], q[2]};
  const double s = q[3];
  auto dot = [](const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  auto cross = [](const D3& a, const D3& b) {
    return D3{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  const D3 c = cross(u, v);
  D3 r;
  for (int i = 0; i < 3; ++i) r[i] = 2 * dot(u, v) * u[i] + (s * s - dot(u, u)) * v[i] + 2 * s * c[i];
  return r;
}

// Where the glTF puts a vertex of mesh `name` at time t, given its model-space rest position.
D3 expected(const std::string& name, double t, const std::array<float, 3>& rest) {
  const D3 c0 = carrier_at(0), c = carrier_at(t);
  if (name == "ground") return {rest[0], rest[1], rest[2]};
  if (name == "base") return {rest[0] - c0[0] + c[0], rest[1] - c0[1] + c[1], rest[2] - c0[2] + c[2]};
  // lid: rest = c0 + (0 1 0) + R(q0) p with q0 the identity.
  const D3 p{rest[0] - c0[0], rest[1] - c0[1] - 1, rest[2] - c0[2]};
  const D3 r = rotate(lid_at(t), p);
  return {c[0] + r[0], c[1] + 1 + r[1], c[2] + r[2]};
}

// Every vertex of the meshes named lid, base and ground (or, for PIE, meshes 0, 1, 2 in that
// order) skinned at every frame of animation 0 (or the frames listed) equals where the glTF puts it.
void expect_motion(const Scene& s, double tol, bool by_order = false, std::vector<size_t> frames = {0, 1, 2, 3, 4}) {
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  ASSERT_EQ(a.frame_count(), 5u);
  EXPECT_EQ(a.framerate, 4.0f);
  const std::vector<Mat3x4> inverse_rest = ops::inverse_rest_matrices(s.joints);
  const char* names[3] = {"lid", "base", "ground"};
  for (size_t f : frames) {
    const std::vector<Mat3x4> mats = ops::frame_skinning_matrices(s, inverse_rest, a, f);
    for (size_t i = 0; i < s.meshes.size(); ++i) {
      const Mesh& m = s.meshes[i];
      const std::string name = by_order ? (i < 3 ? names[i] : "") : m.name;
      if (name != "lid" && name != "base" && name != "ground") continue;
      const ops::SkinStreams ss = ops::skin_streams(m);
      // ground moves with no joint (IQM binds it to no joint with weight 0).
      EXPECT_EQ(testutil::influences(m, 0).empty(), name == "ground") << name;
      for (size_t v = 0; v < m.vertex_count(); ++v) {
        const std::array<float, 3> rest{ss.pos->get(v, 0), ss.pos->get(v, 1), ss.pos->get(v, 2)};
        const Vec3 got = ops::skin_position(ss, v, mats);
        const D3 want = expected(name, double(f) / 4, rest);
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[c], want[c], tol) << name << " frame " << f << " vertex " << v;
      }
    }
  }
}

bool has_warning(const Diagnostics& d, const std::string& text) {
  for (const auto& x : d.items)
    if (x.message.find(text) != std::string::npos) return true;
  return false;
}

std::string diffs(const Scene& a, const Scene& b) {
  std::string out;
  for (const Difference& d : diff(a, b)) out += to_string(d) + "\n";
  return out;
}

}  // namespace

TEST(GltfNodeAnimation, AnimatedNodesBecomeJointsAndMeshesFollowThem) {
  Diagnostics d;
  const Scene s = read_gltf(box_doc().gltf(), &d);
  EXPECT_FALSE(has_warning(d, "animates no joint"));
  EXPECT_FALSE(has_warning(d, "are ignored"));
  ASSERT_EQ(s.joints.size(), 2u);
  EXPECT_EQ(s.joints[0].name, "carrier");
  EXPECT_EQ(s.joints[0].parent, -1);
  EXPECT_EQ(s.joints[0].rest.translation, (std::array<float, 3>{1, 0, 0}));
  EXPECT_EQ(s.joints[1].name, "lid");
  EXPECT_EQ(s.joints[1].parent, 0);
  EXPECT_EQ(s.joints[1].rest.translation, (std::array<float, 3>{0, 1, 0}));
  // Meshes: baked to model space at rest; lid and base bound to their joints, ground static.
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[0].name, "lid");
  EXPECT_EQ(s.meshes[1].name, "base");
  EXPECT_EQ(s.meshes[2].name, "ground");
  const VertexStream* p = s.meshes[0].find(Attribute::Position);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->get(0, 0), 0.5f);  // (-0.5 -0.5 -0.5) + (1 1 0)
  EXPECT_EQ(p->get(0, 1), 0.5f);
  EXPECT_EQ(p->get(0, 2), -0.5f);
  for (size_t m = 0; m < 2; ++m) {
    const VertexStream* bi = s.meshes[m].find(Attribute::BlendIndices);
    const VertexStream* bw = s.meshes[m].find(Attribute::BlendWeights);
    ASSERT_TRUE(bi && bw) << m;
    EXPECT_EQ(bi->components, 1u);
    EXPECT_EQ(bi->data, std::vector<float>(8, m == 0 ? 1.0f : 0.0f));
    EXPECT_EQ(bw->data, std::vector<float>(8, 1.0f));
  }
  EXPECT_FALSE(s.meshes[2].find(Attribute::BlendIndices));
  // The animation: 5 frames at 4 fps of both joints.
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "move");
  EXPECT_EQ(a.channels, 2u);
  ASSERT_EQ(a.frame_count(), 5u);
  EXPECT_EQ(a.framerate, 4.0f);
  EXPECT_EQ(a.interpolation, Interpolation::Linear);  // one channel is not STEP
  for (size_t f = 0; f < 5; ++f) {
    const Transform& c = a.poses[f * 2];
    const Transform& l = a.poses[f * 2 + 1];
    const D3 want = carrier_at(double(f) / 4);
    EXPECT_EQ(c.translation, (std::array<float, 3>{float(want[0]), float(want[1]), float(want[2])})) << f;
    EXPECT_EQ(c.rotation, (std::array<float, 4>{0, 0, 0, 1})) << f;
    EXPECT_EQ(l.translation, (std::array<float, 3>{0, 1, 0})) << f;
    const D4 q = lid_at(double(f) / 4);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(l.rotation[i], q[i], 2e-7) << f;
  }
  // On a key the value is the key's, bit for bit.
  EXPECT_EQ(a.poses[1 * 2 + 1].rotation, (std::array<float, 4>{0, float(kS45), 0, float(kC45)}));
  EXPECT_EQ(a.poses[4 * 2 + 1].rotation, (std::array<float, 4>{0, float(kS90), 0, float(kS90)}));
  expect_motion(s, 2e-6);
}

TEST(GltfNodeAnimation, GlbRoundTripIsStableAndValidates) {
  const Scene s = read_gltf(box_doc().gltf());
  testutil::TempDir dir;
  Diagnostics wd;
  write(s, dir / "box.glb", {}, &wd);
  EXPECT_TRUE(wd.items.empty()) << wd.items[0].to_string();
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({dir / "box.glb"}, out)) << out;
  Diagnostics rd;
  const Scene r = read(dir / "box.glb", {}, &rd);
  EXPECT_TRUE(rd.items.empty()) << rd.items[0].to_string();
  EXPECT_EQ(diffs(s, r), "");
  ASSERT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints, s.joints);
  EXPECT_EQ(r.animations, s.animations);
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(testutil::influences(r.meshes[m], 0), testutil::influences(s.meshes[m], 0)) << m;
    EXPECT_EQ(r.meshes[m].find(Attribute::Position)->data, s.meshes[m].find(Attribute::Position)->data) << m;
  }
  expect_motion(r, 2e-6);
  // glb -> glb -> glb: the same bytes the second time.
  const std::vector<uint8_t> b1 = write_memory(r, Format::Glb);
  const Scene r2 = read_memory(b1, Format::Glb, "again.glb");
  EXPECT_EQ(write_memory(r2, Format::Glb), b1);
  EXPECT_EQ(diffs(r, r2), "");
}

TEST(GltfNodeAnimation, IqmAndIqeKeepTheRigidJoints) {
  const Scene s = read_gltf(box_doc().gltf());
  for (Format f : {Format::Iqm, Format::Iqe}) {
    SCOPED_TRACE(format_info(f).name);
    const Scene r = read_memory(write_memory(s, f), f, f == Format::Iqm ? "box.iqm" : "box.iqe");
    ASSERT_EQ(r.joints.size(), 2u);
    EXPECT_EQ(r.joints[0].name, "carrier");
    EXPECT_EQ(r.joints[1].name, "lid");
    EXPECT_EQ(r.joints[1].parent, 0);
    EXPECT_EQ(diffs(s, r), "");
    expect_motion(r, 1e-5);
  }
}

TEST(GltfNodeAnimation, PieWritesAnAnimObjectPerAnimatedLevel) {
  const Scene s = read_gltf(box_doc().gltf());
  const std::vector<uint8_t> bytes = write_memory(s, Format::Pie);
  const std::string text(bytes.begin(), bytes.end());
  // Levels lid and base move (250 ms per frame, played once, 5 frames); ground does not.
  size_t count = 0;
  for (size_t at = text.find("ANIMOBJECT"); at != std::string::npos; at = text.find("ANIMOBJECT", at + 1)) {
    EXPECT_EQ(text.compare(at, 21, "ANIMOBJECT 250 1 5\n\t0"), 0) << text.substr(at, 40);
    ++count;
  }
  EXPECT_EQ(count, 2u) << text;
  const size_t level3 = text.find("LEVEL 3");
  ASSERT_NE(level3, std::string::npos);
  EXPECT_EQ(text.find("ANIMOBJECT", level3), std::string::npos);
  // Read back: a root joint per animated level, and the same motion within PIE's precision: a
  // frame's translation (here the lid's turn about its pivot, not a whole number) is rounded to
  // thousandths, its angles to thousandths of degrees.
  const Scene r = read_memory(bytes, Format::Pie, "box.pie");
  ASSERT_EQ(r.meshes.size(), 3u);
  ASSERT_EQ(r.joints.size(), 2u);
  expect_motion(r, 1e-3, true);
  // PIE -> glb -> PIE keeps it.
  const Scene g = read_memory(write_memory(r, Format::Glb), Format::Glb, "box.glb");
  EXPECT_EQ(diffs(r, g), "");
  const std::vector<uint8_t> again = write_memory(g, Format::Pie), first = write_memory(r, Format::Pie);
  EXPECT_EQ(std::string(again.begin(), again.end()), std::string(first.begin(), first.end()));
}

TEST(GltfNodeAnimation, PieRefusesAnAnimatedLevelOverThePolygonLimit) {
  Scene s = read_gltf(box_doc().gltf());
  Mesh& lid = s.meshes[0];
  const std::vector<uint32_t> one = lid.triangles;
  while (lid.triangles.size() / 3 <= 8192) lid.triangles.insert(lid.triangles.end(), one.begin(), one.end());
  try {
    write_memory(s, Format::Pie);
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostic().message.find("a PIE level holds at most 8192 polygons"), std::string::npos)
        << e.diagnostic().message;
  }
  // At the limit it is written, with its ANIMOBJECT.
  lid.triangles.resize(8192 * 3);
  const std::vector<uint8_t> b = write_memory(s, Format::Pie);
  const std::string text(b.begin(), b.end());
  EXPECT_NE(text.find("POLYGONS 8192"), std::string::npos);
  EXPECT_NE(text.find("ANIMOBJECT 250 1 5"), std::string::npos);
}

TEST(GltfNodeAnimation, StaticMeshUnderASkinJointFollowsIt) {
  // A skinned mesh's joint with a static mesh (a sword) as a child node: bound to that joint.
  Doc d = box_doc();
  d.doc["skins"] = json::array({{{"joints", {0}}}});
  Diagnostics diags;
  const Scene s = read_gltf(d.gltf(), &diags);
  ASSERT_EQ(s.joints.size(), 2u);
  EXPECT_EQ(s.joints[0].name, "carrier");  // the skin's joint first
  expect_motion(s, 2e-6);
}

TEST(GltfNodeAnimation, AnimatedCameraIsLeftOutWithAWarning) {
  Doc d = box_doc();
  d.doc["cameras"] = json::array({{{"type", "perspective"}, {"perspective", {{"yfov", 1}, {"znear", 0.1}}}}});
  d.doc["nodes"].push_back({{"name", "eye"}, {"camera", 0}});
  d.doc["scenes"][0]["nodes"].push_back(4);
  d.doc["animations"][0]["channels"].push_back({{"sampler", 0}, {"target", {{"node", 4}, {"path", "translation"}}}});
  Diagnostics diags;
  const Scene s = read_gltf(d.gltf(), &diags);
  EXPECT_EQ(s.joints.size(), 2u);
  EXPECT_TRUE(has_warning(diags, "1 animated nodes hold only a camera or a light")) << diags.items.size();
  expect_motion(s, 2e-6);
}

TEST(GltfNodeAnimation, AnimatedEmptyBecomesAJointNotAnAttachment) {
  Doc d = box_doc();
  d.doc["nodes"].push_back({{"name", "hinge"}, {"translation", {0, 0, 5}}});
  d.doc["nodes"][3]["children"] = {4};
  d.doc["animations"][0]["channels"].push_back({{"sampler", 0}, {"target", {{"node", 4}, {"path", "translation"}}}});
  const Scene s = read_gltf(d.gltf());
  ASSERT_EQ(s.joints.size(), 3u);
  EXPECT_EQ(s.joints[2].name, "hinge");
  EXPECT_EQ(s.joints[2].parent, -1);
  EXPECT_EQ(s.joints[2].rest.translation, (std::array<float, 3>{0, -1, 5}));  // its world transform
  EXPECT_TRUE(s.attachments.empty());
  // Its channel is local to "ground": frame 4 puts it at (0 -1 0) + (1 2 3).
  EXPECT_EQ(s.animations[0].poses[4 * 3 + 2].translation, (std::array<float, 3>{1, 1, 3}));
}

// ---- Morph target tangents -------------------------------------------------------------------

namespace {

Scene tangent_morph_scene() {
  Scene s;
  Mesh m;
  m.name = "leaf";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  m.streams.push_back(testutil::float_stream(Attribute::Tangent, 4, {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}));
  m.triangles = {0, 1, 2, 2, 1, 3};
  MorphTarget t;
  t.name = "curl";
  t.positions = {0, 0, 0.5f, 0, 0, 0.25f, 0, 0, 0.125f, 0, 0, 1};
  t.normals = {0, 0.25f, 0, 0, 0.5f, 0, 0, 0, 0, 0, 0.125f, 0};
  t.tangents = {0, 0, 0.25f, 0, 0, -0.5f, 0.0625f, 0, 0, 0, 0, 0.375f};
  m.morph_targets.push_back(t);
  m.morph_weights = {0.5f};
  s.meshes.push_back(std::move(m));
  return s;
}

}  // namespace

TEST(GltfNodeAnimation, MorphTargetTangentsRoundTripThroughGlb) {
  const Scene s = tangent_morph_scene();
  testutil::TempDir dir;
  Diagnostics wd;
  write(s, dir / "leaf.glb", {}, &wd);
  EXPECT_TRUE(wd.items.empty()) << wd.items[0].to_string();
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({dir / "leaf.glb"}, out)) << out;
  Diagnostics rd;
  const Scene r = read(dir / "leaf.glb", {}, &rd);
  EXPECT_TRUE(rd.items.empty()) << rd.items[0].to_string();
  ASSERT_EQ(r.meshes.size(), 1u);
  EXPECT_EQ(r.meshes[0].morph_targets, s.meshes[0].morph_targets);
  // The JSON holds a TANGENT target.
  const std::vector<uint8_t> g = write_memory(s, Format::Gltf);
  const json j = json::parse(g.begin(), g.end());
  EXPECT_TRUE(j["meshes"][0]["primitives"][0]["targets"][0].contains("TANGENT"));
  // Without base tangents the displacements are left out, with a warning.
  Scene bare = s;
  std::erase_if(bare.meshes[0].streams, [](const VertexStream& x) { return x.attribute == Attribute::Tangent; });
  Diagnostics bd;
  const Scene rb = read_memory(write_memory(bare, Format::Glb, {}, &bd), Format::Glb, "bare.glb");
  EXPECT_TRUE(has_warning(bd, "tangent displacements of 1 morph targets not written"));
  EXPECT_TRUE(rb.meshes[0].morph_targets[0].tangents.empty());
}

TEST(GltfNodeAnimation, MorphTargetTangentsFollowVertexStepsAndTransforms) {
  const Scene before = tangent_morph_scene();
  // Vertices gathered (split, reordered): the displacements follow their vertices.
  Scene s = before;
  Mesh& m = s.meshes[0];
  const std::vector<uint32_t> order = {3, 0, 0, 2, 1};
  ops::gather_vertices(m, order);
  ASSERT_EQ(m.morph_targets[0].tangents.size(), 15u);
  for (size_t v = 0; v < order.size(); ++v)
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(m.morph_targets[0].tangents[v * 3 + c], before.meshes[0].morph_targets[0].tangents[order[v] * 3 + c]);
  // Weld: vertices 1 and 2 are the same vertex again.
  m.triangles = {0, 1, 3, 2, 4, 3};
  EXPECT_EQ(weld_vertices(s), 1u);
  EXPECT_EQ(s.meshes[0].morph_targets[0].tangents.size(), 12u);
  // Transform: rotated, never scaled or translated.
  s = before;
  TransformOptions o;
  o.scale = 2;
  o.rotate_degrees = {0, 90, 0};
  o.translate = {5, 6, 7};
  transform_scene(s, o);
  const std::vector<float>& t0 = before.meshes[0].morph_targets[0].tangents;
  const std::vector<float>& t = s.meshes[0].morph_targets[0].tangents;
  for (size_t v = 0; v < 4; ++v) {
    EXPECT_EQ(t[v * 3], t0[v * 3 + 2]) << v;  // (x, y, z) -> (z, y, -x)
    EXPECT_EQ(t[v * 3 + 1], t0[v * 3 + 1]) << v;
    EXPECT_EQ(t[v * 3 + 2], -t0[v * 3]) << v;
  }
  // A glTF node's rotation is baked into them like into the base tangents: 90 degrees about Y.
  std::vector<uint8_t> glb = write_memory(before, Format::Glb);
  const uint32_t json_size = uint32_t(glb[12]) | uint32_t(glb[13]) << 8 | uint32_t(glb[14]) << 16 | uint32_t(glb[15]) << 24;
  json j = json::parse(glb.begin() + 20, glb.begin() + 20 + json_size);
  const float r2 = std::sqrt(0.5f);
  j["nodes"][0]["rotation"] = {0, r2, 0, r2};
  std::string text = j.dump();
  while (text.size() % 4) text += ' ';
  std::vector<uint8_t> out(glb.begin(), glb.begin() + 20);
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), glb.begin() + 20 + json_size, glb.end());
  const uint32_t total = uint32_t(out.size()), js = uint32_t(text.size());
  for (int k = 0; k < 4; ++k) out[8 + k] = uint8_t(total >> (8 * k)), out[12 + k] = uint8_t(js >> (8 * k));
  const Scene r = read_memory(out, Format::Glb, "leaf.glb");
  const std::vector<float>& rt = r.meshes[0].morph_targets[0].tangents;
  ASSERT_EQ(rt.size(), 12u);
  for (size_t v = 0; v < 4; ++v) {
    EXPECT_NEAR(rt[v * 3], t0[v * 3 + 2], 1e-6) << v;
    EXPECT_NEAR(rt[v * 3 + 1], t0[v * 3 + 1], 1e-6) << v;
    EXPECT_NEAR(rt[v * 3 + 2], -t0[v * 3], 1e-6) << v;
  }
}

// ---- IQM / IQE: clips of morph weights only ----------------------------------------------------

TEST(GltfNodeAnimation, IqmAndIqeLeaveOutClipsOfMorphWeightsOnly) {
  Scene s = tangent_morph_scene();
  s.meshes[0].streams.push_back(testutil::float_stream(Attribute::BlendIndices, 1, {0, 0, 0, 0}));
  s.meshes[0].streams.push_back(testutil::float_stream(Attribute::BlendWeights, 1, {1, 1, 1, 1}));
  s.joints.push_back({"root", -1, {}});
  Animation walk;
  walk.name = "walk";
  walk.framerate = 10;
  walk.channels = 1;
  walk.poses.resize(2);
  walk.poses[1].translation = {0, 1, 0};
  Animation blink;
  blink.name = "blink";
  blink.framerate = 10;
  MorphWeightTrack t;
  t.mesh = 0;
  t.times = {0, 1};
  t.weights = {0, 1};
  blink.morph_weights.push_back(t);
  s.animations = {blink, walk};
  for (Format f : {Format::Iqm, Format::Iqe}) {
    SCOPED_TRACE(format_info(f).name);
    Diagnostics d;
    const std::vector<uint8_t> b = write_memory(s, f, {}, &d);
    EXPECT_TRUE(has_warning(d, fmt::format("animation 'blink' animates only morph weights, which {} cannot hold: "
                                           "left out",
                                           f == Format::Iqm ? "IQM" : "IQE")));
    const Scene r = read_memory(b, f, f == Format::Iqm ? "x.iqm" : "x.iqe");
    ASSERT_EQ(r.animations.size(), 1u);
    EXPECT_EQ(r.animations[0].name, "walk");
    EXPECT_EQ(r.animations[0].frame_count(), 2u);
  }
}

// ---- Blender ----------------------------------------------------------------------------------

// Blender (tests/blender/roundtrip.py: import, export with custom properties) keeps the motion of
// meshport's .glb of the node-animated box (a skin of rigidly bound meshes), and of the source
// file itself (node animation in, node animation out). Blender is a test dependency.
TEST(GltfNodeAnimation, BlenderKeepsTheMotion) {
  const Scene s = read_gltf(box_doc().gltf());
  testutil::TempDir dir;
  write(s, dir / "box.glb");
  {
    std::ofstream f(dir / "source.gltf", std::ios::binary);
    f << box_doc().gltf();
  }
  const std::string script = std::string(MESHPORT_TEST_DATA) + "/../blender/roundtrip.py";
  const testutil::CliRun run = [&] {
    testutil::CliRun r;
    const std::string cmd = "blender -b --factory-startup --python-exit-code 1 --python '" + script +
                            "' -- --fps 4 '" + (dir / "box.glb") + "' '" + (dir / "box_b.glb") + "' '" +
                            (dir / "source.gltf") + "' '" + (dir / "source_b.glb") + "' 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    r.status = ::pclose(p);
    return r;
  }();
  ASSERT_EQ(run.status, 0) << run.out;
  // meshport's file: the same Scene (Blender adds normals).
  const Scene back = read(dir / "box_b.glb");
  std::string differences;
  for (const Difference& d : diff(s, back))
    if (!(d.path.ends_with(".normals") && d.a == "missing" && d.b == "present")) differences += to_string(d) + "\n";
  EXPECT_EQ(differences, "");
  expect_motion(back, 1e-4);
  // The source: Blender writes node animation again, which reads as the same motion where every
  // channel is on a key (frames 0, 1 and 4). Between keys Blender evaluates the CUBICSPLINE
  // rotation as its own Bezier curve, so frames 2 and 3 differ by Blender's import, not by ours.
  const Scene src = read(dir / "source_b.glb");
  ASSERT_EQ(src.joints.size(), 2u);
  EXPECT_EQ(src.joints[0].name, "carrier");
  EXPECT_EQ(src.joints[1].name, "lid");
  expect_motion(src, 1e-4, false, {0, 1, 4});
}

}  // namespace meshport_test_gltf_node_animation
