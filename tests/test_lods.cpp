// Levels of detail (issue 22): make_lods (src/ops/mesh/lods.cpp), the simplifier's error, convert
// --lods (files NAME_lodN.EXT) and --msft-lod (glTF MSFT_lod, validator-clean, read back).
#include "test_util.h"

#include <meshport/diff.h>
#include <meshport/meshport.h>
#include <meshport/process.h>
#include <meshport/summary.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <set>
#include <tuple>

namespace meshport_test_lods {

using namespace meshport;

namespace {

// A UV sphere of `stacks` x `slices` quads (closed: the poles are single vertices), radius 1, with
// normals and texture coordinates; the seam at u = 0 / 1 is a column of duplicated vertices.
Mesh sphere(int stacks, int slices) {
  Mesh m;
  m.name = "sphere";
  std::vector<float> pos, nrm, uv;
  const float pi = std::numbers::pi_v<float>;
  for (int j = 0; j <= stacks; ++j)
    for (int i = 0; i <= slices; ++i) {
      const float v = float(j) / float(stacks), u = float(i) / float(slices);
      const float th = v * pi, ph = u * 2 * pi;
      // Bumps so that the simplifier has a shape to keep.
      const float r = 1.0f + 0.02f * std::sin(7 * ph) * std::sin(5 * th);
      const float p[3] = {r * std::sin(th) * std::cos(ph), r * std::cos(th), r * std::sin(th) * std::sin(ph)};
      pos.insert(pos.end(), p, p + 3);
      nrm.insert(nrm.end(), {p[0] / r, p[1] / r, p[2] / r});
      uv.insert(uv.end(), {u, v});
    }
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, nrm));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, uv));
  const uint32_t row = uint32_t(slices + 1);
  for (int j = 0; j < stacks; ++j)
    for (int i = 0; i < slices; ++i) {
      const uint32_t a = uint32_t(j) * row + uint32_t(i), b = a + 1, c = a + row, d = c + 1;
      if (j > 0) m.triangles.insert(m.triangles.end(), {a, b, c});
      if (j < stacks - 1) m.triangles.insert(m.triangles.end(), {b, d, c});
    }
  return m;
}

// An n x n grid in the XZ plane, bumpy; UVs u = x except on the right half (x >= 0.5), whose
// vertices have u = x + 10: the column x = 0.5 is a UV seam of duplicated vertices. Skin weights
// and a morph target are functions of the position (so a kept vertex can be checked against its
// own), and a face channel says the half (1 left, 2 right).
Mesh seam_grid(int n) {
  Mesh m;
  m.name = "grid";
  std::vector<float> pos, uv, bi, bw, morph;
  std::vector<uint32_t> left(size_t((n + 1) * (n + 1))), right(left.size());
  auto add = [&](float x, float z, float u) {
    const float y = 0.02f * std::sin(x * 9.0f) * std::cos(z * 7.0f);
    pos.insert(pos.end(), {x, y, z});
    uv.insert(uv.end(), {u, z});
    bi.insert(bi.end(), {0, 1});
    bw.insert(bw.end(), {x, 1 - x});
    morph.insert(morph.end(), {0, x * z, 0});
    return uint32_t(pos.size() / 3 - 1);
  };
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const float x = float(i) / float(n), z = float(j) / float(n);
      const size_t k = size_t(j * (n + 1) + i);
      if (2 * i <= n) left[k] = add(x, z, x);
      if (2 * i >= n) right[k] = add(x, z, x + 10);
    }
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, uv));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 2, bi));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 2, bw));
  MorphTarget t;
  t.name = "lift";
  t.positions = morph;
  m.morph_targets.push_back(t);
  FaceChannel ch;
  ch.name = "pie.flags";
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool l = 2 * i < n;
      const std::vector<uint32_t>& side = l ? left : right;
      const size_t a = size_t(j * (n + 1) + i), b = a + 1, c = a + size_t(n + 1), d = c + 1;
      m.triangles.insert(m.triangles.end(), {side[a], side[c], side[b], side[b], side[c], side[d]});
      const uint32_t flag = l ? 1 : 2;
      ch.data.insert(ch.data.end(), {flag, flag});
    }
  m.face_channels.push_back(ch);
  return m;
}

Scene scene_of(Mesh m) {
  Scene s;
  s.meshes.push_back(std::move(m));
  return s;
}

Scene skinned_scene(int n) {
  Scene s = scene_of(seam_grid(n));
  Joint a, b;
  a.name = "root";
  b.name = "tip";
  b.parent = 0;
  s.joints = {a, b};
  return s;
}

ProcessOptions no_generation() {
  ProcessOptions p;
  p.normals = p.tangents = Generate::Off;
  return p;
}

size_t triangles(const Scene& s) {
  size_t n = 0;
  for (const Mesh& m : s.meshes) n += m.triangles.size() / 3;
  return n;
}

// Two base meshes, then level 1 of each, then level 2 of each.
void expect_two_meshes_at_two_levels(const Scene& s) {
  const uint32_t lods[] = {0, 0, 1, 1, 2, 2};
  const int32_t of[] = {-1, -1, 0, 1, 0, 1};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(s.meshes[i].lod, lods[i]) << i;
    EXPECT_EQ(s.meshes[i].lod_of, of[i]) << i;
  }
}

}  // namespace

TEST(Lods, TriangleCountsWithinFivePercentAndErrorGrows) {
  const Scene full = scene_of(sphere(100, 200));  // 39600 triangles
  const size_t n = triangles(full);
  const std::vector<float> ratios = {0.5f, 0.25f, 0.1f};
  Diagnostics d;
  const std::vector<LodLevel> levels = make_lods(full, ratios, no_generation(), &d);
  ASSERT_EQ(levels.size(), 3u);
  float last = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    const double want = double(ratios[i]) * double(n);
    EXPECT_EQ(levels[i].ratio, ratios[i]);
    EXPECT_EQ(levels[i].triangles, triangles(levels[i].scene));
    EXPECT_NEAR(double(levels[i].triangles), want, 0.05 * want) << "level " << i + 1;
    EXPECT_GT(levels[i].error, 0.0f);
    EXPECT_GE(levels[i].error, last) << "level " << i + 1;
    // The error is in model units: below the bumps' height (0.02) on a unit sphere at half the
    // triangles, and never more than the sphere's size.
    EXPECT_LT(levels[i].error, 1.0f);
    last = levels[i].error;
  }
  EXPECT_LT(levels[0].error, 0.02f);
  // The full Scene is untouched.
  EXPECT_EQ(triangles(full), n);
}

TEST(Lods, ThreadCountsGiveTheSameLevels) {
  const Scene full = scene_of(sphere(40, 80));
  ProcessOptions one = no_generation(), many = no_generation();
  one.threads = 1;
  many.threads = 3;
  const std::vector<LodLevel> a = make_lods(full, {0.5f, 0.3f, 0.2f}, one);
  const std::vector<LodLevel> b = make_lods(full, {0.5f, 0.3f, 0.2f}, many);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].scene, b[i].scene);
    EXPECT_EQ(a[i].error, b[i].error);
  }
}

TEST(Lods, SimplifyReportsItsError) {
  Scene s = scene_of(sphere(30, 60));
  SimplifyOptions o;
  o.ratio = 0.25f;
  std::vector<SimplifyResult> results;
  Diagnostics d;
  EXPECT_EQ(simplify_meshes(s, o, &d, &results), 1u);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].mesh, 0u);
  EXPECT_EQ(results[0].triangles_before, 3480u);  // 60 slices x (2 x 30 - 2)
  EXPECT_EQ(results[0].triangles_after, s.meshes[0].triangles.size() / 3);
  EXPECT_GT(results[0].error, 0.0f);
  ASSERT_FALSE(d.items.empty());
  EXPECT_NE(d.items.back().message.find("(error "), std::string::npos) << d.items.back().message;
}

// Kept vertices keep their own attributes: every vertex of a level is a vertex of the full mesh
// (position, UV, skin weights, morph displacement all together), UV seam vertices stay apart
// (no triangle joins the two sides of the seam, and the seam column keeps a vertex on each side),
// skin weights stay valid and face channels stay on their half.
TEST(Lods, KeepUvSeamsSkinWeightsMorphTargetsAndFaceChannels) {
  const Scene full = skinned_scene(60);  // 7200 triangles
  const Mesh& fm = full.meshes[0];
  using Key = std::tuple<float, float, float, float, float, float, float, float>;
  auto key = [](const Mesh& m, size_t v) {
    const VertexStream& p = *m.find(Attribute::Position);
    const VertexStream& t = *m.find(Attribute::Texcoord);
    const VertexStream& w = *m.find(Attribute::BlendWeights);
    return Key{p.get(v, 0), p.get(v, 1), p.get(v, 2), t.get(v, 0), t.get(v, 1), w.get(v, 0), w.get(v, 1),
               m.morph_targets[0].positions[v * 3 + 1]};
  };
  std::set<Key> originals;
  for (size_t v = 0; v < fm.vertex_count(); ++v) originals.insert(key(fm, v));
  const std::vector<LodLevel> levels = make_lods(full, {0.5f, 0.2f}, no_generation());
  for (const LodLevel& level : levels) {
    ASSERT_EQ(level.scene.meshes.size(), 1u);
    const Mesh& m = level.scene.meshes[0];
    const size_t vc = m.vertex_count(), tris = m.triangles.size() / 3;
    EXPECT_LT(tris, fm.triangles.size() / 3);
    for (const VertexStream& st : m.streams) ASSERT_EQ(st.vertex_count(), vc);
    ASSERT_EQ(m.morph_targets.size(), 1u);
    ASSERT_EQ(m.morph_targets[0].positions.size(), vc * 3);
    const VertexStream& bi = *m.find(Attribute::BlendIndices);
    const VertexStream& bw = *m.find(Attribute::BlendWeights);
    for (size_t v = 0; v < vc; ++v) {
      EXPECT_TRUE(originals.count(key(m, v))) << "vertex " << v << " is not a vertex of the full mesh";
      EXPECT_EQ(bi.get(v, 0), 0.0f);
      EXPECT_EQ(bi.get(v, 1), 1.0f);
      EXPECT_NEAR(bw.get(v, 0) + bw.get(v, 1), 1.0f, 1e-6f);
    }
    // The seam: no triangle mixes u < 5 (left) and u >= 5 (right) vertices.
    const VertexStream& uv = *m.find(Attribute::Texcoord);
    const VertexStream& pos = *m.find(Attribute::Position);
    for (size_t t = 0; t < tris; ++t) {
      const bool right = uv.get(m.triangles[t * 3], 0) >= 5;
      for (int k = 1; k < 3; ++k) EXPECT_EQ(uv.get(m.triangles[t * 3 + size_t(k)], 0) >= 5, right) << "triangle " << t;
    }
    // The seam column keeps the same positions on both sides.
    std::multiset<std::pair<float, float>> seam_left, seam_right;
    for (size_t v = 0; v < vc; ++v)
      if (pos.get(v, 0) == 0.5f) (uv.get(v, 0) >= 5 ? seam_right : seam_left).insert({pos.get(v, 1), pos.get(v, 2)});
    EXPECT_GE(seam_left.size(), 2u);
    EXPECT_EQ(seam_left, seam_right);
    // Face channels: one per triangle, the half's flag.
    ASSERT_EQ(m.face_channels.size(), 1u);
    ASSERT_EQ(m.face_channels[0].face_count(), tris);
    for (size_t t = 0; t < tris; ++t)
      EXPECT_EQ(m.face_channels[0].data[t], uv.get(m.triangles[t * 3], 0) >= 5 ? 2u : 1u) << "triangle " << t;
  }
}

TEST(Lods, LevelsRunTheStepsAfterSimplification) {
  Scene full = scene_of(sphere(20, 40));
  std::erase_if(full.meshes[0].streams, [](const VertexStream& s) { return s.attribute == Attribute::Normal; });
  ProcessOptions after;  // normals where missing
  after.tangents = Generate::Off;
  after.weld = true;  // ignored: a step before simplification
  const std::vector<LodLevel> levels = make_lods(full, {0.5f}, after);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_NE(levels[0].scene.meshes[0].find(Attribute::Normal), nullptr);
  EXPECT_EQ(full.meshes[0].find(Attribute::Normal), nullptr);
}

TEST(Lods, BadRatiosAreErrors) {
  const Scene full = scene_of(sphere(4, 8));
  for (float r : {0.0f, -0.5f, 1.5f, std::nanf("")}) {
    try {
      (void)make_lods(full, {r}, no_generation());
      FAIL() << r;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("every ratio must be in (0, 1]"), std::string::npos) << e.what();
    }
  }
}

TEST(Lods, AddLodMeshesAppendsLevelsOfEachMesh) {
  Scene s = scene_of(sphere(20, 40));
  s.meshes.push_back(sphere(4, 4));  // 24 triangles
  const std::vector<LodLevel> levels = make_lods(s, {0.5f, 0.25f}, no_generation());
  add_lod_meshes(s, levels);
  // Both meshes have two levels (4 x 4 reduces too): base meshes first, then level 1's, level 2's.
  ASSERT_EQ(s.meshes.size(), 6u);
  expect_two_meshes_at_two_levels(s);
  EXPECT_LT(s.meshes[4].triangles.size(), s.meshes[2].triangles.size());
}

// A level keeps its mesh's morph targets and gets a copy of the mesh's morph weight tracks, so it
// moves as the mesh does; the glTF with MSFT_lod passes the validator and reads back the same.
TEST(Lods, LevelsGetTheirMeshsMorphWeightTracks) {
  testutil::TempDir t;
  Scene s = skinned_scene(40);
  s.meshes.push_back(sphere(4, 4));  // no morph targets: no track
  Animation a;
  a.name = "lift";
  a.channels = 2;
  a.poses.assign(4, Transform{});
  a.framerate = 2;
  MorphWeightTrack track;
  track.mesh = 0;
  track.times = {0, 0.5f};
  track.weights = {0, 1};
  a.morph_weights.push_back(track);
  s.animations.push_back(a);
  add_lod_meshes(s, make_lods(s, {0.5f, 0.25f}, no_generation()));
  ASSERT_EQ(s.meshes.size(), 6u);
  expect_two_meshes_at_two_levels(s);
  const std::vector<MorphWeightTrack>& tracks = s.animations[0].morph_weights;
  ASSERT_EQ(tracks.size(), 3u);
  EXPECT_EQ(tracks[0], track);
  for (size_t k : {1u, 2u}) {
    EXPECT_EQ(tracks[k].mesh, int32_t(2 * k));  // the grid's levels 1 and 2 (meshes 2 and 4)
    EXPECT_EQ(tracks[k].times, track.times);
    EXPECT_EQ(tracks[k].weights, track.weights);
    EXPECT_EQ(s.meshes[size_t(tracks[k].mesh)].morph_targets.size(), 1u);
  }
  write(s, t / "lod.glb");
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({t / "lod.glb"}, out)) << out;
  const Scene back = read(t / "lod.glb");
  ASSERT_EQ(back.animations.size(), 1u);
  ASSERT_EQ(back.animations[0].morph_weights.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(back.animations[0].morph_weights[k].mesh, tracks[k].mesh) << k;
    EXPECT_EQ(back.animations[0].morph_weights[k].weights, track.weights) << k;
  }
}

// `meshport info` marks the levels (text and JSON), and `diff` tells a level from another.
TEST(Lods, InfoAndDiffMarkTheLevels) {
  Scene s = scene_of(sphere(20, 40));
  s.meshes[0].name = "ball";
  s.meshes.push_back(sphere(4, 4));
  s.meshes[1].name = "pebble";
  add_lod_meshes(s, make_lods(s, {0.5f, 0.25f}, no_generation()));
  ASSERT_EQ(s.meshes.size(), 6u);
  const Summary sum = summarize(s, Format::Glb);
  const uint32_t lods[] = {0, 0, 1, 1, 2, 2};
  const char* of[] = {"", "", "ball", "pebble", "ball", "pebble"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(sum.meshes[i].lod, lods[i]) << i;
    EXPECT_EQ(sum.meshes[i].lod_of, of[i]) << i;
  }
  const std::string text = to_text(sum);
  EXPECT_NE(text.find("triangles [position normal texcoord], level of detail 2 of \"pebble\"\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("level of detail 0"), std::string::npos) << text;
  const nlohmann::json j = to_json(sum);
  EXPECT_EQ(j["meshes"][3]["lod"], 1);
  EXPECT_EQ(j["meshes"][3]["lod_of"], "pebble");
  EXPECT_FALSE(j["meshes"][0].contains("lod"));

  Scene other = s;
  other.meshes[4].lod = 1;     // ball's second level marked as its first
  other.meshes[5].lod_of = 0;  // pebble's second level marked as ball's
  const std::vector<Difference> d = diff(s, other);
  std::vector<std::string> got;
  for (const Difference& x : d) got.push_back(to_string(x));
  EXPECT_NE(std::find(got.begin(), got.end(), "meshes[" + s.meshes[4].name + "].lod: 2 vs 1"), got.end())
      << testing::PrintToString(got);
  EXPECT_NE(std::find(got.begin(), got.end(), "meshes[" + s.meshes[5].name + "].lod_of: \"pebble\" vs \"ball\""),
            got.end())
      << testing::PrintToString(got);
  EXPECT_EQ(got.size(), 2u) << testing::PrintToString(got);
  EXPECT_TRUE(diff(s, s).empty());
}

// ---- convert --lods ------------------------------------------------------------------------

TEST(Lods, ConvertWritesNamedLevelFilesAndPrintsThem) {
  testutil::TempDir t;
  write(skinned_scene(40), t / "in.glb");
  auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5,0.25", t / "in.glb", t / "out.iqm"));
  ASSERT_EQ(r.status, 0) << r.out;
  const Scene lod0 = read(t / "out.iqm"), lod1 = read(t / "out_lod1.iqm"), lod2 = read(t / "out_lod2.iqm");
  EXPECT_FALSE(std::filesystem::exists(t / "out_lod3.iqm"));
  const size_t n = 3200;
  EXPECT_EQ(triangles(lod0), n);
  EXPECT_NEAR(double(triangles(lod1)), 0.5 * n, 0.05 * 0.5 * n);
  EXPECT_NEAR(double(triangles(lod2)), 0.25 * n, 0.05 * 0.25 * n);
  EXPECT_EQ(lod1.joints.size(), 2u);
  EXPECT_NE(r.out.find("note: LOD 0: 3200 triangles of 3200, error 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fmt::format("note: LOD 1 (ratio 0.5): {} triangles, error ", triangles(lod1))),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("-> " + t / "out_lod2.iqm"), std::string::npos) << r.out;

  // With --simplify, LOD 0 is simplified too; levels are still ratios of the full mesh. A
  // two-part extension keeps its parts together; .gltf levels get their own .bin.
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --simplify 0.8 --lods 0.4", t / "in.glb", t / "s.gltf"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NEAR(double(triangles(read(t / "s.gltf"))), 0.8 * n, 0.05 * 0.8 * n);
  EXPECT_NEAR(double(triangles(read(t / "s_lod1.gltf"))), 0.4 * n, 0.05 * 0.4 * n);
  EXPECT_TRUE(std::filesystem::exists(t / "s_lod1.bin"));
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5", t / "in.glb", t / "q.qmsh.tmp"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(t / "q_lod1.qmsh.tmp")) << r.out;
}

TEST(Lods, ConvertRefusesWhatCannotHoldTheLevels) {
  testutil::TempDir t;
  write(scene_of(sphere(8, 16)), t / "in.glb");
  auto r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5 --msft-lod", t / "in.glb", t / "o.iqm"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--msft-lod puts the levels of detail in a glTF file; iqm has none"), std::string::npos)
      << r.out;
  r = testutil::run_cli(fmt::format("convert '{}' -o - --to iqm --lods 0.5", t / "in.glb"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("standard output has no folder"), std::string::npos) << r.out;
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --msft-lod", t / "in.glb", t / "o.glb"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("needs the levels"), std::string::npos) << r.out;
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5,0", t / "in.glb", t / "o.glb"));
  EXPECT_NE(r.status, 0) << r.out;
  // A level that cannot be written (a folder has its name): nothing of the conversion is left.
  std::filesystem::create_directories(t / "o_lod2.glb");
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5,0.25", t / "in.glb", t / "o.glb"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("o_lod2.glb"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t / "o.glb"));
  EXPECT_FALSE(std::filesystem::exists(t / "o_lod1.glb"));
  EXPECT_TRUE(std::filesystem::is_directory(t / "o_lod2.glb"));
  // The same for .gltf: the side files (.bin) of the output and of the levels written go too.
  std::filesystem::create_directories(t / "g_lod2.gltf");
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5,0.25", t / "in.glb", t / "g.gltf"));
  EXPECT_EQ(r.status, 1) << r.out;
  for (const char* gone : {"g.gltf", "g.bin", "g_lod1.gltf", "g_lod1.bin", "g_lod2.bin"})
    EXPECT_FALSE(std::filesystem::exists(t / gone)) << gone;
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5", t / "in.glb", t / "g.gltf"));
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* kept : {"g.gltf", "g.bin", "g_lod1.gltf", "g_lod1.bin"})
    EXPECT_TRUE(std::filesystem::exists(t / kept)) << kept;
  // A side file that was there before the conversion (replaced by it) is not removed.
  std::filesystem::create_directories(t / "h_lod1.gltf");
  std::filesystem::copy_file(t / "g.bin", t / "h.bin");
  r = testutil::run_cli(fmt::format("convert '{}' -o '{}' --lods 0.5", t / "in.glb", t / "h.gltf"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t / "h.gltf"));
  EXPECT_TRUE(std::filesystem::exists(t / "h.bin"));
}

TEST(Lods, MsftLodGlbIsValidAndReadsBack) {
  testutil::TempDir t;
  Scene in = skinned_scene(30);
  in.meshes.push_back(sphere(16, 32));
  in.meshes[1].name = "ball";
  write(in, t / "in.glb");
  auto r = testutil::run_cli(
      fmt::format("convert '{}' -o '{}' --lods 0.5,0.25 --msft-lod", t / "in.glb", t / "lod.glb"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t / "lod_lod1.glb"));
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({t / "lod.glb"}, out)) << out;
  const std::string json = testutil::slurp(t / "lod.glb");
  EXPECT_NE(json.find("\"MSFT_lod\":{\"ids\":["), std::string::npos);
  EXPECT_NE(json.find("\"extensionsUsed\":["), std::string::npos);

  const Scene s = read(t / "lod.glb");
  ASSERT_EQ(s.meshes.size(), 6u);
  expect_two_meshes_at_two_levels(s);
  EXPECT_EQ(s.meshes[0].triangles.size(), in.meshes[0].triangles.size());
  EXPECT_NEAR(double(s.meshes[2].triangles.size()), 0.5 * double(in.meshes[0].triangles.size()),
              0.05 * 0.5 * double(in.meshes[0].triangles.size()));
  EXPECT_EQ(s.meshes[3].name, "ball");
  EXPECT_NE(s.meshes[2].find(Attribute::BlendWeights), nullptr);  // the levels stay skinned

  // glTF again: the levels stay levels (a round trip); another format leaves them out.
  write(s, t / "again.glb");
  EXPECT_EQ(read(t / "again.glb"), s);
  Diagnostics d;
  write(s, t / "base.iqm", {}, &d);
  EXPECT_EQ(read(t / "base.iqm").meshes.size(), 2u);
  bool warned = false;
  for (const Diagnostic& x : d.items)
    warned = warned || x.message.find("4 level-of-detail meshes (glTF MSFT_lod) not written: iqm") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace meshport_test_lods
