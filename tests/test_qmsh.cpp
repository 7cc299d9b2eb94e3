// Binary TFQMSH10 (The Final Quest engine): src/formats/qmsh/qmsh.cpp, docs/qmsh.md "Binary TFQMSH10".
// The 16 engine files of the corpus (MESHPORT_CORPUS/qmsh) are read, checked against counts and
// values measured independently, written back byte for byte, cut and corrupted; Scenes of other
// formats go through .qmsh and back; every sample goes to .glb and back (key times kept) and the
// .glb files pass the Khronos glTF Validator (run with node, as tests/test_gltf_attachments.cpp
// does: the test fails, not skips, when node or the validator is missing).
#include "formats/gltf/gltf.h"
#include "formats/qmsh/qmsh.h"

#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_qmsh {

using namespace meshport;
using testutil::corpus;
using testutil::float_stream;

namespace {

struct Sample {
  const char* name;
  uint8_t flags;
  uint32_t vertices, triangles, submeshes, bones, animations;
};

// Measured on the files (qmsh-notes.md layout).
const Sample kSamples[] = {
    {"Campfire", 0, 165, 80, 5, 0, 0},        {"Castle", 0, 4757, 2732, 1, 0, 0},
    {"Craft01", 1, 934, 535, 1, 0, 0},        {"Craft02", 1, 698, 368, 1, 0, 0},
    {"DxSdkDwarf", 0, 9326, 5164, 5, 0, 0},   {"DxSdkTiny", 3, 10002, 7222, 1, 14, 2},
    {"Exclamation", 0, 1200, 400, 2, 0, 0},   {"FppMonster", 3, 1600, 884, 1, 15, 2},
    {"Gem", 0, 36, 12, 1, 0, 0},              {"Ghost", 0, 370, 300, 1, 0, 0},
    {"Gun", 1, 611, 374, 1, 0, 0},            {"Pacman", 0, 149, 196, 1, 0, 0},
    {"Rock1", 1, 287, 189, 1, 0, 0},          {"Rock2", 1, 296, 165, 1, 0, 0},
    {"Swordsman", 2, 509, 269, 1, 5, 3},      {"Worm", 2, 757, 1024, 1, 2, 1},
};

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::string s = testutil::slurp(path);
  return {s.begin(), s.end()};
}

std::vector<uint8_t> sample_bytes(const std::string& name) { return bytes_of(corpus("qmsh/" + name + ".qmsh")); }

Scene read_sample(const std::string& name, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return qmsh::read(sample_bytes(name), name + ".qmsh", diags ? *diags : local);
}

template <class T>
T at(const std::vector<uint8_t>& b, size_t off) {
  T v{};
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

template <class T>
void patch(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

// The error a read throws (its offset is -1 when it names none); fails the test when it reads.
Diagnostic read_error(const std::vector<uint8_t>& b) {
  Diagnostics d;
  try {
    qmsh::read(b, "bad.qmsh", d);
  } catch (const Error& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "read succeeded";
  return {};
}

std::string write_error(const Scene& s) {
  Diagnostics d;
  try {
    qmsh::write(s, d);
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "(no error)";
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const Diagnostic& x : d.items)
    if (x.severity == Severity::Warning && x.message.find(part) != std::string::npos) return true;
  return false;
}

size_t total_vertices(const Scene& s) {
  size_t n = 0;
  for (const Mesh& m : s.meshes) n += m.vertex_count();
  return n;
}

size_t total_triangles(const Scene& s) {
  size_t n = 0;
  for (const Mesh& m : s.meshes) n += m.triangles.size() / 3;
  return n;
}

Mesh triangle_mesh(const std::string& name, size_t vertices) {
  Mesh m;
  m.name = name;
  std::vector<float> p(vertices * 3), n(vertices * 3), uv(vertices * 2);
  for (size_t v = 0; v < vertices; ++v) {
    p[v * 3] = float(v % 100), p[v * 3 + 1] = float(v / 100), p[v * 3 + 2] = 0.5f;
    n[v * 3 + 2] = 1;
  }
  m.streams.push_back(float_stream(Attribute::Position, 3, p));
  m.streams.push_back(float_stream(Attribute::Normal, 3, n));
  m.streams.push_back(float_stream(Attribute::Texcoord, 2, uv));
  for (uint32_t v = 0; v + 2 < vertices; v += 3) m.triangles.insert(m.triangles.end(), {v, v + 1, v + 2});
  return m;
}

// The same rotation: unit quaternions (a source's may be off by its quantisation) equal within
// `tol`, or one the negation of the other.
bool rotation_near(std::array<float, 4> a, std::array<float, 4> b, float tol) {
  for (auto* q : {&a, &b}) {
    const float l = std::sqrt((*q)[0] * (*q)[0] + (*q)[1] * (*q)[1] + (*q)[2] * (*q)[2] + (*q)[3] * (*q)[3]);
    for (float& c : *q) c /= l;
  }
  bool same = true, negated = true;
  for (int c = 0; c < 4; ++c) {
    same = same && std::fabs(a[c] - b[c]) <= tol;
    negated = negated && std::fabs(a[c] + b[c]) <= tol;
  }
  return same || negated;
}

void expect_poses_near(const Animation& a, const Animation& b, float tol) {
  ASSERT_EQ(a.channels, b.channels) << a.name;
  ASSERT_EQ(a.poses.size(), b.poses.size()) << a.name;
  size_t bad = 0;
  for (size_t i = 0; i < a.poses.size(); ++i) {
    const Transform& x = a.poses[i];
    const Transform& y = b.poses[i];
    bool ok = rotation_near(x.rotation, y.rotation, tol);
    for (int c = 0; c < 3; ++c)
      ok = ok && std::fabs(x.translation[c] - y.translation[c]) <= tol * std::max(1.0f, std::fabs(x.translation[c])) &&
           std::fabs(x.scale[c] - y.scale[c]) <= tol * std::max(1.0f, std::fabs(x.scale[c]));
    if (!ok && bad++ < 3) ADD_FAILURE() << a.name << " pose " << i << " differs";
  }
  EXPECT_EQ(bad, 0u) << a.name;
}

void expect_joints_near(const Scene& a, const Scene& b, float tol) {
  ASSERT_EQ(a.joints.size(), b.joints.size());
  for (size_t j = 0; j < a.joints.size(); ++j) {
    EXPECT_EQ(a.joints[j].name, b.joints[j].name);
    EXPECT_EQ(a.joints[j].parent, b.joints[j].parent);
    EXPECT_TRUE(rotation_near(a.joints[j].rest.rotation, b.joints[j].rest.rotation, tol)) << a.joints[j].name;
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(a.joints[j].rest.translation[c], b.joints[j].rest.translation[c], tol) << a.joints[j].name;
      EXPECT_NEAR(a.joints[j].rest.scale[c], b.joints[j].rest.scale[c], tol) << a.joints[j].name;
    }
  }
}

bool validate(const std::vector<std::string>& files, std::string& output) {
  return testutil::validate_gltf(files, output);
}

}  // namespace

// ---- The 16 engine files ---------------------------------------------------------------------

TEST(QmshSamples, CountsOfEveryFile) {
  REQUIRE_CORPUS();
  for (const Sample& x : kSamples) {
    SCOPED_TRACE(x.name);
    Diagnostics d;
    Scene s = read_sample(x.name, &d);
    EXPECT_EQ(d.items.size(), 0u) << (d.items.empty() ? "" : d.items[0].to_string());
    EXPECT_EQ(total_vertices(s), x.vertices);
    EXPECT_EQ(total_triangles(s), x.triangles);
    EXPECT_EQ(s.meshes.size(), x.submeshes);
    EXPECT_EQ(s.joints.size(), x.bones);
    EXPECT_EQ(s.animations.size(), x.animations);
    EXPECT_TRUE(s.qmsh.has_value());
    EXPECT_EQ(s.qmsh->flags, x.flags);
    for (const Mesh& m : s.meshes) {
      EXPECT_EQ(m.find(Attribute::Tangent) != nullptr, (x.flags & 1) != 0);
      EXPECT_EQ(m.find(Attribute::BlendIndices) != nullptr, (x.flags & 2) != 0);
    }
    EXPECT_EQ(s.qmsh->binormals.size(), (x.flags & 1) ? x.vertices * 3 : 0u);
    EXPECT_EQ(s.qmsh->bone_indices.size(), (x.flags & 2) ? x.vertices : 0u);
    EXPECT_EQ(s.qmsh->bone_matrices.size(), x.bones);
    EXPECT_EQ(s.qmsh->animation_lengths.size(), x.animations);
  }
}

TEST(QmshSamples, WriteReproducesEveryFileByteForByte) {
  REQUIRE_CORPUS();
  for (const Sample& x : kSamples) {
    SCOPED_TRACE(x.name);
    const std::vector<uint8_t> orig = sample_bytes(x.name);
    Diagnostics d;
    const Scene s = qmsh::read(orig, x.name, d);
    const std::vector<uint8_t> out = qmsh::write(s, d);
    EXPECT_EQ(d.items.size(), 0u) << (d.items.empty() ? "" : d.items[0].to_string());
    ASSERT_EQ(out.size(), orig.size());
    EXPECT_TRUE(out == orig);
  }
}

// Without the file's keys (QmshBinaryData::keys) they are computed from the Scene's poses:
// everything before them is exact, the keys within float rounding, and they read back to the
// same poses.
TEST(QmshSamples, AnimatedFilesWithoutRawKeys) {
  REQUIRE_CORPUS();
  for (const char* name : {"DxSdkTiny", "FppMonster", "Swordsman", "Worm"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> orig = sample_bytes(name);
    Diagnostics d;
    Scene s = qmsh::read(orig, name, d);
    EXPECT_FALSE(s.qmsh->keys.empty());
    s.qmsh->keys.clear();
    const std::vector<uint8_t> out = qmsh::write(s, d);
    ASSERT_EQ(out.size(), orig.size());
    const size_t keys_at = size_t(at<int32_t>(orig, 47 + 16));
    EXPECT_TRUE(std::equal(orig.begin(), orig.begin() + ptrdiff_t(keys_at), out.begin()));
    EXPECT_FALSE(out == orig);
    Scene back = qmsh::read(out, name, d);
    for (size_t a = 0; a < s.animations.size(); ++a) {
      EXPECT_EQ(back.animations[a].times, s.animations[a].times);
      expect_poses_near(s.animations[a], back.animations[a], 2e-6f);
    }
    EXPECT_TRUE(d.items.empty());
  }
}

TEST(QmshSamples, DecodedValues) {
  REQUIRE_CORPUS();
  // Gem: file vertex 1 is (-0.3, 0, 0.519615); the Scene mirrors z. UVs unchanged.
  Scene gem = read_sample("Gem");
  const VertexStream* p = gem.meshes[0].find(Attribute::Position);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->get(0, 0), 0.0f);
  EXPECT_EQ(p->get(0, 1), 1.0f);
  EXPECT_EQ(p->get(0, 2), 0.0f);
  EXPECT_TRUE(std::signbit(p->get(0, 2)));  // -0: written back as +0
  EXPECT_EQ(p->get(1, 0), -0.3f);
  EXPECT_EQ(p->get(1, 1), 0.0f);
  EXPECT_EQ(p->get(1, 2), -0.519614995f);
  const VertexStream* n = gem.meshes[0].find(Attribute::Normal);
  EXPECT_EQ(n->get(0, 2), -0.887356699f);
  const VertexStream* uv = gem.meshes[0].find(Attribute::Texcoord);
  EXPECT_EQ(uv->get(0, 0), 0.488258988f);
  EXPECT_EQ(uv->get(0, 1), 0.0120810270f);
  // File triangle (0 1 2) -> Scene (0 2 1).
  EXPECT_EQ(std::vector<uint32_t>(gem.meshes[0].triangles.begin(), gem.meshes[0].triangles.begin() + 6),
            (std::vector<uint32_t>{0, 2, 1, 22, 3, 30}));
  EXPECT_EQ(gem.meshes[0].name, "Circle");
  ASSERT_EQ(gem.materials.size(), 1u);
  EXPECT_EQ(gem.materials[0].name, "Gem");

  // Campfire: five submeshes of one material, vertices rebased.
  Scene fire = read_sample("Campfire");
  ASSERT_EQ(fire.meshes.size(), 5u);
  EXPECT_EQ(fire.materials.size(), 1u);
  EXPECT_EQ(fire.meshes[1].name, "Cylinder.003");
  EXPECT_EQ(fire.meshes[1].material, 0);
  EXPECT_EQ(fire.meshes[1].vertex_count(), 33u);

  // DxSdkTiny: parents, uneven key times, a one-key animation.
  Scene tiny = read_sample("DxSdkTiny");
  EXPECT_EQ(tiny.joints[1].name, "Leg2.L");
  EXPECT_EQ(tiny.joints[1].parent, 0);
  EXPECT_EQ(tiny.joints[3].name, "Main");
  EXPECT_EQ(tiny.joints[3].parent, -1);
  EXPECT_EQ(tiny.joints[4].parent, 3);
  EXPECT_NEAR(tiny.joints[1].rest.translation[2], -0.365f, 1e-4f);  // file +z, Scene -z
  const Animation& run = tiny.animations[0];
  EXPECT_EQ(run.name, "Run");
  EXPECT_EQ(run.frame_count(), 4u);
  EXPECT_EQ(run.channels, 14u);
  EXPECT_EQ(run.times, (std::vector<float>{0.0f, 0.399999976f, 0.405194819f, 0.810389638f}));
  EXPECT_EQ(run.framerate, 0.0f);  // uneven
  EXPECT_EQ(tiny.animations[1].name, "Stand");
  EXPECT_EQ(tiny.animations[1].times, (std::vector<float>{0.0f}));
  EXPECT_EQ(tiny.animations[1].framerate, 0.0f);
  EXPECT_EQ(tiny.qmsh->animation_lengths, (std::vector<float>{0.810389638f, 0.0f}));

  // Swordsman: the root bone is scaled 0.22222 and turned 90 degrees about x.
  Scene sw = read_sample("Swordsman");
  const Transform& main = sw.joints[0].rest;
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(main.scale[c], 0.22222f, 1e-6f);
  EXPECT_NEAR(main.rotation[0], std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(main.rotation[1], 0.0f, 1e-6f);
  EXPECT_NEAR(main.rotation[2], 0.0f, 1e-6f);
  EXPECT_NEAR(main.rotation[3], std::sqrt(0.5f), 1e-6f);
  EXPECT_EQ(main.translation, (std::array<float, 3>{0.0f, 0.44444001f, 0.0039804047f}));
  EXPECT_EQ(sw.joints[2].name, "Hand.L");
  EXPECT_EQ(sw.joints[2].parent, 0);
  EXPECT_EQ(sw.animations[0].name, "Die");
  EXPECT_EQ(sw.animations[0].framerate, 2.5f);  // keys 0 and 0.4: evenly spaced
  EXPECT_EQ(sw.animations[1].framerate, 0.0f);  // 0, 0.4, 0.6

  // Worm: the first key is the identity, so the pose is the rest; a vertex on one bone.
  Scene worm = read_sample("Worm");
  EXPECT_EQ(worm.animations[0].framerate, 2.5f);
  for (size_t j = 0; j < 2; ++j) {
    const Transform& pose = worm.animations[0].poses[j];
    const Transform& rest = worm.joints[j].rest;
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(pose.translation[c], rest.translation[c], 1e-6f);
    EXPECT_TRUE(rotation_near(pose.rotation, rest.rotation, 1e-6f));
  }
}

TEST(QmshSamples, BlendIndicesAndNoBone) {
  REQUIRE_CORPUS();
  // Raw words (bytes: first bone, second bone, 0, 0; 1-based, 0 none): index - 1 is the joint,
  // weights w and 1 - w; none is joint 0 with weight 0.
  for (const char* name : {"Swordsman", "FppMonster"}) {
    const std::vector<uint8_t> b = sample_bytes(name);
    Diagnostics d;
    Scene s = qmsh::read(b, name, d);
    const Mesh& m = s.meshes[0];
    const VertexStream* bi = m.find(Attribute::BlendIndices);
    const VertexStream* bw = m.find(Attribute::BlendWeights);
    ASSERT_TRUE(bi && bw);
    EXPECT_EQ(bi->components, 2u);
    size_t none = 0;
    const size_t stride = 12 + 8 + 12 + 8 + (s.qmsh->flags & 1 ? 24 : 0);
    for (size_t v = 0; v < m.vertex_count(); ++v) {
      const size_t rec = 67 + 1 + v * stride;
      const float w = at<float>(b, rec + 12);
      const uint8_t i0 = b[rec + 16], i1 = b[rec + 17];
      ASSERT_EQ(s.qmsh->bone_indices[v], at<uint32_t>(b, rec + 16));
      EXPECT_EQ(bi->get(v, 0), i0 ? float(i0 - 1) : 0.0f);
      EXPECT_EQ(bi->get(v, 1), i1 ? float(i1 - 1) : 0.0f);
      EXPECT_EQ(bw->get(v, 0), i0 ? w : 0.0f);
      EXPECT_EQ(bw->get(v, 1), i1 ? 1.0f - w : 0.0f);
      none += i0 == 0 && i1 == 0;
    }
    EXPECT_EQ(none, std::string(name) == "FppMonster" ? 114u : 0u) << name;
  }
}

TEST(QmshSamples, TangentHandednessFromTheBinormal) {
  REQUIRE_CORPUS();
  Scene s = read_sample("Rock1");
  const VertexStream* t = s.meshes[0].find(Attribute::Tangent);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->components, 4u);
  // In engine axes every Rock1 binormal points along +cross(n, t): the mirror makes them -1.
  for (size_t v = 0; v < s.meshes[0].vertex_count(); ++v) EXPECT_TRUE(t->get(v, 3) == 1.0f || t->get(v, 3) == -1.0f);
  size_t negative = 0;
  for (size_t v = 0; v < s.meshes[0].vertex_count(); ++v) negative += t->get(v, 3) < 0;
  EXPECT_GE(negative, 83u);
}

// ---- Hostile files -------------------------------------------------------------------------

TEST(QmshRead, EveryTruncationFailsWithAnOffset) {
  REQUIRE_CORPUS();
  const std::vector<uint8_t> full = sample_bytes("Swordsman");
  std::vector<size_t> cuts = {0, 1, 7, 8, 9, 18, 19, 46, 47, 66, 67, 68};
  for (int s = 0; s < 5; ++s) {
    const size_t ofs = size_t(at<int32_t>(full, 47 + 4 * s));
    for (size_t c : {ofs - 1, ofs, ofs + 1, ofs + 2}) cuts.push_back(c);
  }
  for (size_t c = 0; c < full.size(); c += 97) cuts.push_back(c);
  cuts.push_back(full.size() - 1);
  for (size_t c : cuts) {
    SCOPED_TRACE(c);
    std::vector<uint8_t> b(full.begin(), full.begin() + ptrdiff_t(c));
    const Diagnostic e = read_error(b);
    EXPECT_GE(e.offset, 0);
    EXPECT_LE(e.offset, int64_t(c));
    EXPECT_NE(e.to_string().find("bad.qmsh: offset "), std::string::npos);
  }
}

TEST(QmshRead, BadMagicAndFlags) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> b = sample_bytes("Gem");
  b[6] = '2';
  Diagnostic e = read_error(b);
  EXPECT_EQ(e.offset, 6);
  EXPECT_EQ(e.message, "unsupported version \"TFQMSH20\" (only TFQMSH10 is read)");
  b[0] = 'X';
  e = read_error(b);
  EXPECT_EQ(e.offset, 0);
  EXPECT_NE(e.message.find("not a TFQMSH10 file"), std::string::npos);
  b = sample_bytes("Gem");
  b[8] = 4;
  e = read_error(b);
  EXPECT_EQ(e.offset, 8);
  EXPECT_NE(e.message.find("unknown flags"), std::string::npos);
}

TEST(QmshRead, HugeCountsFailBeforeAllocating) {
  // A 100-byte file claiming 65535 vertices.
  std::vector<uint8_t> b(100, 0);
  std::memcpy(b.data(), "TFQMSH10", 8);
  patch<uint16_t>(b, 9, 65535);
  patch<int32_t>(b, 47, 67);
  patch<int32_t>(b, 51, 90);
  patch<int32_t>(b, 55, 95);
  Diagnostic e = read_error(b);
  EXPECT_EQ(e.offset, 9);
  EXPECT_NE(e.message.find("65535 vertices need at least 2097121 bytes from offset 67"), std::string::npos)
      << e.message;
  // The same for animations: 65535 of them need at least 7 bytes each.
  std::fill(b.begin() + 9, b.end(), 0);
  patch<uint16_t>(b, 17, 65535);
  patch<int32_t>(b, 47, 67);
  patch<int32_t>(b, 51, 68);
  patch<int32_t>(b, 55, 69);
  patch<int32_t>(b, 63, 70);
  e = read_error(b);
  EXPECT_EQ(e.offset, 17);
  // Keys: one animation claims 65535 keys of 5 bones.
  REQUIRE_CORPUS();
  std::vector<uint8_t> sw = sample_bytes("Swordsman");
  const size_t anims = size_t(at<int32_t>(sw, 63));
  const size_t keys_field = anims + 1 + 1 + sw[anims + 1] + 4;
  patch<uint16_t>(sw, keys_field, 65535);
  e = read_error(sw);
  EXPECT_EQ(e.offset, int64_t(keys_field + 2));
  EXPECT_NE(e.message.find("65535 keys of 5 bones"), std::string::npos) << e.message;
}

TEST(QmshRead, OverlappingSubmeshesCannotBlowUpTheScene) {
  // 1000 vertices, and 65535 submeshes that each cover all of them: 65 million Scene vertices
  // from a 687 KB file.
  const uint32_t nv = 1000, ns = 65535;
  const size_t vertices_at = 67, indices_at = vertices_at + 1 + nv * 32, subs_at = indices_at + 1;
  std::vector<uint8_t> b(subs_at + 1 + size_t(ns) * 10, 0);
  std::memcpy(b.data(), "TFQMSH10", 8);
  patch<uint16_t>(b, 9, uint16_t(nv));
  patch<uint16_t>(b, 13, uint16_t(ns));
  patch<int32_t>(b, 47, int32_t(vertices_at));
  patch<int32_t>(b, 51, int32_t(indices_at));
  patch<int32_t>(b, 55, int32_t(subs_at));
  for (size_t i = 0; i < ns; ++i) patch<uint16_t>(b, subs_at + 1 + i * 10 + 6, uint16_t(nv));
  Diagnostic e = read_error(b);
  EXPECT_EQ(e.offset, int64_t(subs_at));
  EXPECT_NE(e.message.find("65535000 vertices and 0 triangles in all"), std::string::npos) << e.message;
  // A few overlapping submeshes are fine: each gets its copy, with a warning.
  b.resize(subs_at + 1 + 3 * 10);
  patch<uint16_t>(b, 13, 3);
  Diagnostics d;
  Scene s = qmsh::read(b, "overlap", d);
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[2].vertex_count(), nv);
  EXPECT_TRUE(has_warning(d, "the submeshes do not cover the 1000 vertices and 0 triangles one after another"));
}

TEST(QmshRead, SectionOffsets) {
  REQUIRE_CORPUS();
  const std::vector<uint8_t> full = sample_bytes("Swordsman");
  std::vector<uint8_t> b = full;
  patch<int32_t>(b, 51, 20);  // into the header
  EXPECT_EQ(read_error(b).offset, 51);
  b = full;
  patch<int32_t>(b, 55, -5);
  EXPECT_EQ(read_error(b).offset, 55);
  b = full;
  patch<int32_t>(b, 59, int32_t(full.size()));  // past the end
  EXPECT_EQ(read_error(b).offset, 59);
  b = full;
  patch<int32_t>(b, 59, 0);  // bones counted but no section
  EXPECT_EQ(read_error(b).offset, 59);
  b = full;
  patch<int32_t>(b, 55, at<int32_t>(full, 51) - 1);  // submeshes overlap the indices
  Diagnostic e = read_error(b);
  EXPECT_GE(e.offset, 0);
}

TEST(QmshRead, EmptyFilesAndSectionMarkers) {
  // The writer's empty file: header and three empty sections; a file without them reads too.
  Diagnostics d;
  const std::vector<uint8_t> empty = qmsh::write(Scene{}, d);
  ASSERT_EQ(empty.size(), 70u);
  EXPECT_EQ(at<int32_t>(empty, 47), 67);
  EXPECT_EQ(at<int32_t>(empty, 59), 0);
  Scene s = qmsh::read(empty, "e", d);
  EXPECT_TRUE(s.meshes.empty());
  std::vector<uint8_t> bare(empty.begin(), empty.begin() + 67);
  for (int k = 0; k < 3; ++k) patch<int32_t>(bare, 47 + 4 * k, 0);
  s = qmsh::read(bare, "bare", d);
  EXPECT_TRUE(d.items.empty());
  REQUIRE_CORPUS();
  std::vector<uint8_t> b = sample_bytes("Gem");
  b[size_t(at<int32_t>(b, 51))] = 7;
  s = qmsh::read(b, "m", d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].offset, at<int32_t>(b, 51));
  EXPECT_NE(d.items[0].message.find("the index section starts with byte 7 instead of 0"), std::string::npos);
  EXPECT_TRUE(qmsh::write(s, d) == sample_bytes("Gem"));
}

TEST(QmshRead, BoneParentsAndIndices) {
  REQUIRE_CORPUS();
  const std::vector<uint8_t> full = sample_bytes("Swordsman");
  const size_t bones = size_t(at<int32_t>(full, 59)) + 1;
  auto bone_record = [&](size_t i) {
    size_t p = bones;
    for (size_t k = 0; k < i; ++k) p += 2 + 48 + 1 + full[p + 50];
    return p;
  };
  // Parent past the bone count.
  std::vector<uint8_t> b = full;
  patch<uint16_t>(b, bone_record(2), 6);
  Diagnostic e = read_error(b);
  EXPECT_EQ(e.offset, int64_t(bone_record(2)));
  EXPECT_NE(e.message.find("parent 6 is past the 5 bones"), std::string::npos) << e.message;
  // A cycle: 1 -> 2 -> 1.
  b = full;
  patch<uint16_t>(b, bone_record(0), 2);
  e = read_error(b);
  EXPECT_NE(e.message.find("cycle"), std::string::npos) << e.message;
  EXPECT_GE(e.offset, int64_t(bones));
  // Its own parent.
  b = full;
  patch<uint16_t>(b, bone_record(3), 4);
  e = read_error(b);
  EXPECT_EQ(e.offset, int64_t(bone_record(3)));
  // A parent after its child is read with the joints reordered, and written back in that order.
  b = full;
  patch<uint16_t>(b, bone_record(0), 5);  // Main under Leg.L (bone 5, a root now)
  patch<uint16_t>(b, bone_record(4), 0);
  Diagnostics d;
  Scene s = qmsh::read(b, "x", d);
  EXPECT_TRUE(has_warning(d, "reordered"));
  ASSERT_EQ(s.joints.size(), 5u);
  EXPECT_EQ(s.joints[0].name, "Leg.L");
  EXPECT_EQ(s.joints[1].name, "Main");
  EXPECT_EQ(s.joints[1].parent, 0);
  Scene again = qmsh::read(qmsh::write(s, d), "y", d);
  expect_joints_near(s, again, 0);
  testutil::expect_scenes_close(s, again, 0, 0);
  // A vertex naming bone 6 of 5.
  b = full;
  b[67 + 1 + 16] = 6;
  e = read_error(b);
  EXPECT_EQ(e.offset, 68);
  EXPECT_NE(e.message.find("bone index 6 is past the 5 bones"), std::string::npos) << e.message;
}

TEST(QmshRead, TriangleOutsideItsSubmeshIsAnError) {
  REQUIRE_CORPUS();
  std::vector<uint8_t> b = sample_bytes("Campfire");
  const size_t idx = size_t(at<int32_t>(b, 51)) + 1;
  patch<uint16_t>(b, idx + 2, 40);  // submesh 0 covers vertices 0 to 32
  Diagnostic e = read_error(b);
  EXPECT_EQ(e.offset, int64_t(idx + 2));
  EXPECT_NE(e.message.find("outside the submesh's vertices 0 to 32"), std::string::npos) << e.message;
}

// ---- Writing other Scenes --------------------------------------------------------------------

TEST(QmshWrite, SixteenBitLimits) {
  Scene s;
  s.meshes.push_back(triangle_mesh("big", 65536));
  EXPECT_NE(write_error(s).find("65536 vertices"), std::string::npos);
  s.meshes[0] = triangle_mesh("ok", 65535);
  EXPECT_EQ(write_error(s), "(no error)");
  Mesh many = triangle_mesh("tris", 3);
  many.triangles.clear();
  for (int t = 0; t < 65536; ++t) many.triangles.insert(many.triangles.end(), {0, 1, 2});
  s.meshes = {many};
  EXPECT_NE(write_error(s).find("65536 triangles"), std::string::npos);
  s.meshes = {triangle_mesh(std::string(256, 'n'), 3)};
  EXPECT_NE(write_error(s).find("256 bytes long"), std::string::npos);
  s.meshes = {triangle_mesh(std::string(255, 'n'), 3)};
  EXPECT_EQ(write_error(s), "(no error)");
  // Skinned meshes need at most 255 bones; unskinned skeletons up to 65535.
  s.meshes[0].streams.push_back(float_stream(Attribute::BlendIndices, 1, {0, 0, 0}));
  s.meshes[0].streams.push_back(float_stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  s.joints.resize(256);
  EXPECT_NE(write_error(s).find("256 joints"), std::string::npos);
  s.joints.resize(255);
  EXPECT_EQ(write_error(s), "(no error)");
  Scene bones;
  bones.joints.resize(65536);
  EXPECT_NE(write_error(bones).find("65536 joints"), std::string::npos);
  Scene anims;
  anims.animations.resize(65536);
  EXPECT_NE(write_error(anims).find("65536 animations"), std::string::npos);
  Scene keys;
  keys.joints.resize(1);
  Animation a;
  a.name = "long";
  a.framerate = 30;
  a.channels = 1;
  a.poses.resize(65536);
  keys.animations.push_back(a);
  EXPECT_NE(write_error(keys).find("65536 keys in animation 'long'"), std::string::npos);
  keys.animations[0].poses.resize(65535);
  EXPECT_EQ(write_error(keys), "(no error)");
}

TEST(QmshWrite, MoreThanTwoInfluencesKeepTheTwoLargest) {
  Scene s;
  s.joints.resize(4);
  for (size_t j = 0; j < 4; ++j) s.joints[j].name = fmt::format("j{}", j);
  Mesh m = triangle_mesh("m", 3);
  m.streams.push_back(float_stream(Attribute::BlendIndices, 4, {0, 1, 2, 3, 3, 2, 0, 0, 1, 1, 2, 0}));
  m.streams.push_back(float_stream(Attribute::BlendWeights, 4,
                                   {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.5f, 0, 0, 0.25f, 0.25f, 0.3f, 0.2f}));
  s.meshes.push_back(m);
  Diagnostics d;
  Scene back = qmsh::read(qmsh::write(s, d), "x", d);
  EXPECT_TRUE(has_warning(d, "2 vertices have more than 2 influences: the 2 largest are kept, renormalised"));
  const Mesh& r = back.meshes[0];
  // Vertex 0: joints 2 and 3 (0.3, 0.4) -> 3/7, 4/7, in their order.
  EXPECT_EQ(testutil::influences(r, 0).size(), 2u);
  EXPECT_EQ(r.find(Attribute::BlendIndices)->get(0, 0), 2.0f);
  EXPECT_EQ(r.find(Attribute::BlendIndices)->get(0, 1), 3.0f);
  EXPECT_NEAR(r.find(Attribute::BlendWeights)->get(0, 0), 3.0f / 7, 1e-6f);
  // Vertex 1: two influences, kept exactly.
  EXPECT_EQ(r.find(Attribute::BlendWeights)->get(1, 0), 0.5f);
  // Vertex 2: joint 1 twice (0.5 merged), joint 2 0.3; joint 0's 0.2 dropped.
  auto inf = testutil::influences(r, 2);
  ASSERT_EQ(inf.size(), 2u);
  EXPECT_EQ(inf[0].first, 1);
  EXPECT_NEAR(inf[0].second, 0.625f, 1e-6f);
  EXPECT_EQ(inf[1].first, 2);
}

TEST(QmshWrite, UnskinnedMeshesOfASkinnedSceneBindToNoBone) {
  Scene s;
  s.joints.resize(2);
  s.joints[1].parent = 0;
  s.joints[1].rest.translation = {0, 1, 0};
  Mesh skinned = triangle_mesh("skinned", 3);
  skinned.streams.push_back(float_stream(Attribute::BlendIndices, 1, {1, 1, 0}));
  skinned.streams.push_back(float_stream(Attribute::BlendWeights, 1, {1, 1, 1}));
  s.meshes = {triangle_mesh("static", 3), skinned};
  Diagnostics d;
  const std::vector<uint8_t> b = qmsh::write(s, d);
  EXPECT_EQ(b[8], 2);  // skinning, no tangents
  EXPECT_EQ(at<uint32_t>(b, 67 + 1 + 16), 0u);  // vertex 0: no bone
  EXPECT_EQ(at<float>(b, 67 + 1 + 12), 1.0f);
  EXPECT_EQ(at<uint32_t>(b, 67 + 1 + 3 * 40 + 16), 0x0202u);  // vertex 3: bone 2 twice
  Scene back = qmsh::read(b, "x", d);
  EXPECT_TRUE(testutil::influences(back.meshes[0], 0).empty());
  EXPECT_EQ(testutil::influences(back.meshes[1], 0), (std::vector<std::pair<int, float>>{{1, 1.0f}}));
}

TEST(QmshWrite, SkinnedIqeThroughQmsh) {
  Scene a = read(std::string(MESHPORT_TEST_DATA) + "/cli/skinned.iqe");
  Diagnostics d;
  const std::vector<uint8_t> b = qmsh::write(a, d);
  Scene r = qmsh::read(b, "skinned.qmsh", d);
  ASSERT_EQ(r.meshes.size(), a.meshes.size());
  for (size_t i = 0; i < a.meshes.size(); ++i) {
    EXPECT_EQ(r.meshes[i].name, a.meshes[i].name);
    EXPECT_EQ(r.meshes[i].triangles, a.meshes[i].triangles);
    for (Attribute at : {Attribute::Position, Attribute::Normal, Attribute::Texcoord})
      testutil::expect_stream_near(a.meshes[i], r.meshes[i], at, 0, "hinge");
    for (size_t v = 0; v < a.meshes[i].vertex_count(); ++v) {
      auto x = testutil::influences(a.meshes[i], v), y = testutil::influences(r.meshes[i], v);
      ASSERT_EQ(x.size(), y.size());
      for (size_t k = 0; k < x.size(); ++k) {
        EXPECT_EQ(x[k].first, y[k].first);
        EXPECT_NEAR(x[k].second, y[k].second, 1e-6f);
      }
    }
  }
  EXPECT_EQ(r.materials[0].name, "hinge.png");
  expect_joints_near(a, r, 1e-6f);
  ASSERT_EQ(r.animations.size(), 1u);
  EXPECT_EQ(r.animations[0].name, "bend");
  EXPECT_EQ(r.animations[0].framerate, 12.0f);
  EXPECT_EQ(r.animations[0].times, (std::vector<float>{0.0f, float(1.0 / 12)}));
  expect_poses_near(a.animations[0], r.animations[0], 1e-6f);
  // Written again from what was read: the same bytes.
  EXPECT_TRUE(qmsh::write(r, d) == b);
}

TEST(QmshWrite, MrfixitThroughQmsh) {
  REQUIRE_CORPUS();
  Scene a = read(corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  Diagnostics d;
  const std::vector<uint8_t> b = qmsh::write(a, d);
  EXPECT_EQ(b[8], a.meshes[0].find(Attribute::Tangent) ? 3 : 2);
  Scene r = qmsh::read(b, "mrfixit.qmsh", d);
  ASSERT_EQ(r.meshes.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Mesh& x = a.meshes[i];
    const Mesh& y = r.meshes[i];
    EXPECT_EQ(y.name, x.name);
    EXPECT_EQ(y.triangles, x.triangles);
    for (Attribute at : {Attribute::Position, Attribute::Normal, Attribute::Texcoord, Attribute::Tangent})
      testutil::expect_stream_near(x, y, at, 0, x.name.c_str());
    // Influences: the two largest of the source's, renormalised.
    for (size_t v = 0; v < x.vertex_count(); ++v) {
      auto src = testutil::influences(x, v), got = testutil::influences(y, v);
      ASSERT_LE(got.size(), 2u);
      ASSERT_FALSE(got.empty());
      float sum = 0;
      for (const auto& jw : got) {
        const auto j = jw.first;  // a plain variable: Clang 14 cannot capture structured bindings
        sum += jw.second;
        EXPECT_TRUE(std::any_of(src.begin(), src.end(), [&](auto p) { return p.first == j; }));
      }
      EXPECT_NEAR(sum, 1.0f, 1e-6f);
    }
  }
  expect_joints_near(a, r, 2e-6f);
  ASSERT_EQ(r.animations.size(), a.animations.size());
  for (size_t k = 0; k < a.animations.size(); ++k) {
    EXPECT_EQ(r.animations[k].name, a.animations[k].name);
    EXPECT_EQ(r.animations[k].framerate, a.animations[k].framerate);
    ASSERT_EQ(r.animations[k].times.size(), a.animations[k].frame_count());
    for (size_t f = 0; f < r.animations[k].times.size(); ++f)
      EXPECT_EQ(r.animations[k].times[f], float(double(f) / a.animations[k].framerate));
    expect_poses_near(a.animations[k], r.animations[k], 1e-5f);
  }
  EXPECT_TRUE(qmsh::write(r, d) == b);
}

TEST(QmshWrite, EditedValuesAreRecomputed) {
  REQUIRE_CORPUS();
  Scene s = read_sample("Swordsman");
  // A moved joint gets a new matrix; a moved vertex new bounds.
  s.joints[1].rest.translation[0] += 1;
  s.meshes[0].find(Attribute::Position)->data[0] = 5;
  Diagnostics d;
  const std::vector<uint8_t> b = qmsh::write(s, d);
  Scene r = qmsh::read(b, "x", d);
  expect_joints_near(s, r, 1e-6f);
  EXPECT_EQ(at<float>(b, 23 + 12), 5.0f);  // box max x
  EXPECT_NEAR(at<float>(b, 19), std::sqrt(5.0f * 5.0f + 0.9110024f * 0.9110024f + 0.18888247f * 0.18888247f), 1e-5f);
  // Joint 1's poses stay where they were in the Scene.
  for (size_t a = 0; a < s.animations.size(); ++a) expect_poses_near(s.animations[a], r.animations[a], 2e-6f);
  // Once the Scene was edited nothing kept from the file is used (issue 16: one validity rule
  // for kept data): the writer says so, and every binormal is computed from the Scene, so
  // Rock1's NaN binormals become numbers.
  Scene t = read_sample("Rock1");
  VertexStream* tan = t.meshes[0].find(Attribute::Tangent);
  tan->data[3] = -tan->data[3];
  Diagnostics td;
  const std::vector<uint8_t> tb = qmsh::write(t, td);
  ASSERT_EQ(td.items.size(), 1u);
  EXPECT_NE(td.items[0].message.find("the Scene changed since it was read"), std::string::npos);
  Scene tr = qmsh::read(tb, "y", d);
  EXPECT_EQ(tr.meshes[0].find(Attribute::Tangent)->data, tan->data);
  ASSERT_EQ(tr.qmsh->binormals.size(), t.qmsh->binormals.size());
  auto nans = [](const std::vector<float>& v) { return std::count_if(v.begin(), v.end(), [](float x) { return std::isnan(x); }); };
  EXPECT_GT(nans(t.qmsh->binormals), 0);
  EXPECT_EQ(nans(tr.qmsh->binormals), 0);
  // Unedited, the same Scene writes the file's bytes.
  EXPECT_TRUE(qmsh::write(read_sample("Rock1"), td) == sample_bytes("Rock1"));
}

// ---- glTF ------------------------------------------------------------------------------------

TEST(QmshGltf, EverySampleThroughGlbKeepsTimesSkeletonAndAnimations) {
  REQUIRE_CORPUS();
  for (const Sample& x : kSamples) {
    SCOPED_TRACE(x.name);
    Scene s = read_sample(x.name);
    Diagnostics d;
    const std::vector<uint8_t> glb = write_memory(s, Format::Glb, {}, &d);
    Scene r = read_memory(glb, Format::Glb, "x.glb", &d);
    ASSERT_EQ(r.meshes.size(), s.meshes.size());
    EXPECT_EQ(total_vertices(r), x.vertices);
    EXPECT_EQ(total_triangles(r), x.triangles);
    expect_joints_near(s, r, 1e-6f);
    ASSERT_EQ(r.animations.size(), s.animations.size());
    for (size_t a = 0; a < s.animations.size(); ++a) {
      EXPECT_EQ(r.animations[a].name, s.animations[a].name);
      EXPECT_EQ(r.animations[a].times, s.animations[a].times);
      EXPECT_EQ(r.animations[a].framerate, s.animations[a].framerate);
      expect_poses_near(s.animations[a], r.animations[a], 1e-6f);
    }
  }
}

TEST(QmshGltf, SamplesPassTheKhronosValidator) {
  REQUIRE_CORPUS();
  testutil::TempDir tmp;
  std::vector<std::string> files;
  for (const Sample& x : kSamples) {
    Diagnostics d;
    const std::string path = tmp / (std::string(x.name) + ".glb");
    const std::vector<uint8_t> glb = write_memory(read_sample(x.name), Format::Glb, {}, &d);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(glb.data()), std::streamsize(glb.size()));
    files.push_back(path);
  }
  std::string output;
  EXPECT_TRUE(validate(files, output)) << output;
}

}  // namespace meshport_test_qmsh
