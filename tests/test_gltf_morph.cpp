// Morph targets through glTF (weights animation channels, baseColorFactor) and through the
// processing steps that renumber, weld and transform vertices.
#include <meshport/meshport.h>

#include "formats/modedef/modedef.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

namespace meshport_test_gltf_morph {

using namespace meshport;
using json = nlohmann::json;

namespace {

using V3 = std::array<float, 3>;

// A floor and a wall meeting at a right angle along z = -1 (vertices 2 and 3 are shared), with
// texture coordinates, no normals, and two morph targets whose displacements differ per vertex.
Scene fold_scene(bool with_normals = false) {
  Scene s;
  Mesh m;
  m.name = "fold";
  m.material = 0;
  const std::vector<float> p = {0, 0, 0, 1, 0, 0, 0, 0, -1, 1, 0, -1, 0, 1, -1, 1, 1, -1};
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, p));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1, 1, 1, 0, 2, 1, 2}));
  if (with_normals)
    m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1}));
  m.triangles = {0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4};
  for (int k = 0; k < 2; ++k) {
    MorphTarget t;
    t.name = fmt::format("shape {}", k);
    for (int v = 0; v < 6; ++v) {
      const float x = 0.125f * float(v + 1) * float(k + 1);
      t.positions.insert(t.positions.end(), {x, -x, 2 * x});
      t.normals.insert(t.normals.end(), {0.0625f * float(v), 0, -0.0625f * float(k)});
    }
    m.morph_targets.push_back(std::move(t));
  }
  m.morph_weights = {0.25f, 0};
  s.meshes.push_back(std::move(m));
  s.materials.push_back(testutil::material("paint", "", {0.5f, 0.25f, 1, 0.75f}));
  return s;
}

MorphWeightTrack track(int32_t mesh, std::vector<float> times, std::vector<float> weights) {
  MorphWeightTrack t;
  t.mesh = mesh;
  t.times = std::move(times);
  t.weights = std::move(weights);
  return t;
}

V3 at(const std::vector<float>& d, size_t v) { return {d[v * 3], d[v * 3 + 1], d[v * 3 + 2]}; }

bool has_warning(const Diagnostics& d, const std::string& text) {
  for (const auto& x : d.items)
    if (x.message.find(text) != std::string::npos) return true;
  return false;
}

json gltf_json(const Scene& s) {
  std::vector<uint8_t> b = write_memory(s, Format::Gltf);
  return json::parse(b.begin(), b.end());
}


}  // namespace

TEST(GltfMorph, WeightsAnimationValidatesAndRoundTrips) {
  Scene s = fold_scene(true);
  Animation a;
  a.name = "wobble";
  a.framerate = 24;
  a.morph_weights.push_back(track(0, {0, 0.5f, 1.25f}, {0, 1, 0.5f, 0.25f, 1, 0}));
  s.animations.push_back(a);
  testutil::TempDir dir;
  const std::string path = dir / "fold.glb";
  Diagnostics wd;
  write(s, path, {}, &wd);
  EXPECT_EQ(wd.items.size(), 0u) << wd.items[0].to_string();
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({path}, out)) << out;

  Diagnostics rd;
  const Scene r = read(path, {}, &rd);
  EXPECT_EQ(rd.items.size(), 0u) << rd.items[0].to_string();
  ASSERT_EQ(r.meshes.size(), 1u);
  EXPECT_EQ(r.meshes[0].morph_targets, s.meshes[0].morph_targets);
  EXPECT_EQ(r.meshes[0].morph_weights, s.meshes[0].morph_weights);
  ASSERT_EQ(r.animations.size(), 1u);
  EXPECT_EQ(r.animations[0], a);  // channels 0, no poses, the track as written
  ASSERT_EQ(r.materials.size(), 1u);
  EXPECT_EQ(r.materials[0].base_color, (std::array<float, 4>{0.5f, 0.25f, 1, 0.75f}));
}

TEST(GltfMorph, WeightsBesideJointChannels) {
  Scene s = fold_scene(true);
  s.joints.push_back({"root", -1, {}});
  Animation a;
  a.name = "both";
  a.framerate = 2;
  a.channels = 1;
  for (int f = 0; f < 3; ++f) {
    Transform t;
    t.translation = {float(f), 0, 0};
    a.poses.push_back(t);
  }
  // The same key times as the frames (one shared input accessor), and a track of its own.
  a.morph_weights.push_back(track(0, {0, 0.5f, 1}, {0, 0, 1, 0, 0, 1}));
  s.animations.push_back(a);
  Animation b;
  b.name = "rest with weights";
  b.framerate = 2;
  b.channels = 1;
  b.poses.assign(2, Transform{});
  b.morph_weights.push_back(track(0, {0.25f, 2}, {1, 1, 0, 0}));
  s.animations.push_back(b);
  testutil::TempDir dir;
  const std::string path = dir / "both.glb";
  write(s, path);
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({path}, out)) << out;
  const Scene r = read(path);
  ASSERT_EQ(r.animations.size(), 2u);
  EXPECT_EQ(r.animations[0], a);
  EXPECT_EQ(r.animations[1], b);

  const json j = gltf_json(s);
  const json& ch = j["animations"][0]["channels"];
  ASSERT_EQ(ch.size(), 2u);  // translation of the joint, weights of the mesh node
  EXPECT_EQ(ch[1]["target"]["path"], "weights");
  const json& smp = j["animations"][0]["samplers"];
  EXPECT_EQ(smp[0]["input"], smp[1]["input"]);
  EXPECT_EQ(smp[1]["interpolation"], "LINEAR");
  EXPECT_EQ(j["nodes"][size_t(ch[1]["target"]["node"])]["mesh"], 0);
}

TEST(GltfMorph, BaseColorFactorOnlyWhenNotWhite) {
  Scene s = fold_scene();
  s.materials.push_back(testutil::material("white", "", {1, 1, 1, 1}));
  const json j = gltf_json(s);
  EXPECT_EQ(j["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"], json::parse("[0.5, 0.25, 1.0, 0.75]"));
  EXPECT_FALSE(j["materials"][1]["pbrMetallicRoughness"].contains("baseColorFactor"));
  std::vector<uint8_t> b = write_memory(s, Format::Glb);
  const Scene r = read_memory(b, Format::Glb, "x.glb");
  EXPECT_EQ(r.materials[1].base_color, (std::array<float, 4>{1, 1, 1, 1}));
  EXPECT_EQ(r.materials[0].base_color, s.materials[0].base_color);
}

TEST(GltfMorph, TracksGltfCannotHoldAreSkippedWithWarnings) {
  Scene s = fold_scene();
  Mesh bare;
  bare.name = "bare";
  bare.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  bare.triangles = {0, 1, 2};
  s.meshes.push_back(bare);
  Animation a;
  a.name = "odd";
  a.morph_weights.push_back(track(1, {0, 1}, {}));          // a mesh without targets
  a.morph_weights.push_back(track(0, {0, 1}, {0, 0, 1, 1}));
  a.morph_weights.push_back(track(0, {0, 2}, {0, 0, 1, 1}));  // the same mesh again
  a.morph_weights.push_back(track(0, {}, {}));              // no keys
  s.animations.push_back(a);
  Animation none;
  none.name = "nothing";
  none.morph_weights.push_back(track(0, {-1, 1}, {0, 0, 1, 1}));  // before time 0
  s.animations.push_back(none);
  testutil::TempDir dir;
  const std::string path = dir / "odd.glb";
  Diagnostics d;
  write(s, path, {}, &d);
  EXPECT_TRUE(has_warning(d, "morph weight track 0 (mesh 1) not written: its mesh has no morph targets"));
  EXPECT_TRUE(has_warning(d, "track 2 (mesh 0) not written: another track"));
  EXPECT_TRUE(has_warning(d, "track 3 (mesh 0) not written: it has no keys"));
  EXPECT_TRUE(has_warning(d, "before time 0"));
  EXPECT_TRUE(has_warning(d, "animation 1 ('nothing') animates no joint: not written"));
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({path}, out)) << out;
  const Scene r = read(path);
  ASSERT_EQ(r.animations.size(), 1u);
  ASSERT_EQ(r.animations[0].morph_weights.size(), 1u);
  EXPECT_EQ(r.animations[0].morph_weights[0], a.morph_weights[1]);
}

TEST(GltfMorph, CheckSceneRejectsBadTracks) {
  const auto fails = [](MorphWeightTrack t, const std::string& text) {
    Scene s = fold_scene();
    Animation a;
    a.name = "bad";
    a.morph_weights.push_back(std::move(t));
    s.animations.push_back(a);
    try {
      write_memory(s, Format::Glb);
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  fails(track(1, {0}, {0, 0}), "names mesh 1, but the Scene has 1 meshes");
  fails(track(-1, {0}, {0, 0}), "names mesh -1");
  fails(track(0, {0, 1, 1}, std::vector<float>(6, 0)), "key times do not increase: key 2 at 1 follows 1");
  fails(track(0, {0, NAN}, std::vector<float>(4, 0)), "not a finite time");
  fails(track(0, {0, 1}, std::vector<float>(3, 0)), "has 3 weights, but 2 keys of mesh 0 ('fold') with 2 morph targets need 4");
  Scene s = fold_scene();
  s.meshes[0].morph_targets[1].normals.pop_back();
  EXPECT_THROW(write_memory(s, Format::Glb), Error);
}

TEST(GltfMorph, TargetsFollowNormalAndTangentSplits) {
  const Scene before = fold_scene();
  Scene s = before;
  ProcessOptions o;
  o.normal.angle = 0;  // faceted: the shared vertices 2 and 3 split
  process(s, o);
  const Mesh& m = s.meshes[0];
  ASSERT_GT(m.vertex_count(), 6u);
  ASSERT_TRUE(m.find(Attribute::Tangent));
  const VertexStream& p = *m.find(Attribute::Position);
  const VertexStream& p0 = *before.meshes[0].find(Attribute::Position);
  for (size_t v = 0; v < m.vertex_count(); ++v) {
    size_t src = 6;
    for (size_t u = 0; u < 6; ++u)
      if (p.get(v, 0) == p0.get(u, 0) && p.get(v, 1) == p0.get(u, 1) && p.get(v, 2) == p0.get(u, 2)) src = u;
    ASSERT_LT(src, 6u) << v;
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(at(m.morph_targets[k].positions, v), at(before.meshes[0].morph_targets[k].positions, src)) << v;
      EXPECT_EQ(at(m.morph_targets[k].normals, v), at(before.meshes[0].morph_targets[k].normals, src)) << v;
    }
  }
  // Still a consistent Scene: written, it validates.
  testutil::TempDir dir;
  write(s, dir / "split.glb");
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({dir / "split.glb"}, out)) << out;
  // Optimisation renumbers vertices: the targets follow.
  Scene opt = s;
  optimize_meshes(opt);
  ASSERT_EQ(opt.meshes[0].morph_targets[0].positions.size(), opt.meshes[0].vertex_count() * 3);
}

TEST(GltfMorph, WeldKeepsVerticesWhoseDisplacementsDiffer) {
  Scene s;
  Mesh m;
  // Vertices 0 and 2 are the same point with the same displacement; 1 and 3 the same point
  // with different displacements.
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 4, 2, 3, 4};
  MorphTarget t;
  t.positions = {0, 1, 0, 0, 2, 0, 0, 1, 0, 0, 3, 0, 0, 0, 0};
  m.morph_targets.push_back(t);
  s.meshes.push_back(m);
  EXPECT_EQ(weld_vertices(s), 1u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 4u);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 3, 0, 2, 3}));
  EXPECT_EQ(s.meshes[0].morph_targets[0].positions, (std::vector<float>{0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0}));
}

TEST(GltfMorph, TransformScalesAndRotatesDisplacements) {
  const Scene before = fold_scene(true);
  Scene s = before;
  TransformOptions o;
  o.scale = 2;
  transform_scene(s, o);
  for (size_t k = 0; k < 2; ++k) {
    const MorphTarget& t0 = before.meshes[0].morph_targets[k];
    const MorphTarget& t = s.meshes[0].morph_targets[k];
    for (size_t i = 0; i < t.positions.size(); ++i) EXPECT_EQ(t.positions[i], 2 * t0.positions[i]);
    EXPECT_EQ(t.normals, t0.normals);
  }
  // 90 degrees about Y takes (x, y, z) to (z, y, -x); a translation does not move displacements.
  s = before;
  o.scale = 2;
  o.rotate_degrees = {0, 90, 0};
  o.translate = {5, 6, 7};
  transform_scene(s, o);
  const MorphTarget& t0 = before.meshes[0].morph_targets[1];
  const MorphTarget& t = s.meshes[0].morph_targets[1];
  for (size_t v = 0; v < 6; ++v) {
    const V3 d = at(t0.positions, v), n = at(t0.normals, v);
    EXPECT_EQ(at(t.positions, v), (V3{2 * d[2], 2 * d[1], -2 * d[0]})) << v;
    EXPECT_EQ(at(t.normals, v), (V3{n[2], n[1], -n[0]})) << v;
  }
}

TEST(GltfMorph, BarModelWithModesAnimationValidates) {
  testutil::TempDir dir;
  const std::string path = dir / "bar.glb";
  ConvertOptions o;
  o.process.modes_animation = true;
  Diagnostics d;
  convert({std::string(MESHPORT_TEST_DATA) + "/modedef/bar.model"}, path, o, &d);
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({path}, out)) << out;
  const Scene r = read(path);
  ASSERT_EQ(r.animations.size(), 1u);
  const Animation& a = r.animations[0];
  EXPECT_EQ(a.name, "modes");
  EXPECT_EQ(a.channels, 0u);
  ASSERT_EQ(a.morph_weights.size(), r.meshes.size());
  for (const MorphWeightTrack& t : a.morph_weights) {
    EXPECT_EQ(t.times.size(), 181u);  // 3 modes x 2 s x 30 fps, and the last frame
    EXPECT_EQ(t.weights.size(), 181u * 3);
  }
  ASSERT_FALSE(r.meshes.empty());
  ASSERT_EQ(r.meshes[0].morph_targets.size(), 3u);
  EXPECT_EQ(r.meshes[0].morph_targets[0].name.rfind("mode0 ", 0), 0u) << r.meshes[0].morph_targets[0].name;
  ASSERT_EQ(r.materials.size(), 2u);
  EXPECT_EQ(r.materials[0].base_color, (std::array<float, 4>{0.8f, 0.2f, 0.2f, 1}));  // the diffuse colour
}

TEST(GltfMorph, ReaderTakesStepWeightsAsLinearWithAWarning) {
  Scene s = fold_scene(true);
  Animation a;
  a.name = "step";
  a.framerate = 2;
  a.morph_weights.push_back(track(0, {0, 0.5f}, {0, 1, 1, 0}));
  s.animations.push_back(a);
  json j = gltf_json(s);
  j["animations"][0]["samplers"][0]["interpolation"] = "STEP";
  const std::string text = j.dump();
  Diagnostics d;
  const Scene r = read_memory({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, Format::Gltf, "step.gltf", &d);
  EXPECT_TRUE(has_warning(d, "1 STEP morph weight channels are read as LINEAR")) << (d.items.empty() ? "" : d.items[0].to_string());
  ASSERT_EQ(r.animations.size(), 1u);
  EXPECT_EQ(r.animations[0].morph_weights, a.morph_weights);
  // Without the writer's extras the framerate comes from the keys' grid (0.5 s: 2 fps).
  j["animations"][0].erase("extras");
  const std::string plain = j.dump();
  const Scene p = read_memory({reinterpret_cast<const uint8_t*>(plain.data()), plain.size()}, Format::Gltf, "p.gltf");
  ASSERT_EQ(p.animations.size(), 1u);
  EXPECT_EQ(p.animations[0].framerate, 2.0f);
  EXPECT_EQ(p.animations[0].channels, 0u);
}

// ---- Weights outside [0, 1] (gltf_morph_ranges.h) ---------------------------------------------

namespace {

// fold_scene with a third target and weights of each kind: target 0 stays in [0, 1], target 1
// reaches -20.4 and 15 (a "+" and a "-" target scaled by 32), target 2 reaches 2.5 (one target
// scaled by 4).
Scene ranged_scene() {
  Scene s = fold_scene(true);
  MorphTarget t = s.meshes[0].morph_targets[0];
  t.name = "shape 2";
  for (float& x : t.positions) x *= -0.75f;
  s.meshes[0].morph_targets.push_back(t);
  s.meshes[0].morph_weights = {0.25f, -3, 0.5f};
  Animation a;
  a.name = "modes";
  a.framerate = 30;
  a.morph_weights.push_back(track(0, {0, 1 / 30.0f, 2 / 30.0f}, {0, -20.4f, 0.5f, 1, 0, 2.5f, 0.5f, 15, 0}));
  s.animations.push_back(a);
  return s;
}

Scene read_text(const std::string& text, Diagnostics* d = nullptr) {
  return read_memory({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, Format::Gltf, "m.gltf", d);
}

// The displacement of vertex v, axis c, at weights w (one per target).
double displaced(const Mesh& m, const std::vector<float>& w, size_t v, size_t c) {
  double x = 0;
  for (size_t k = 0; k < m.morph_targets.size(); ++k) x += double(w[k]) * m.morph_targets[k].positions[v * 3 + c];
  return x;
}

}  // namespace

// Blender clamps shape-key weights to [0, 1] (unless the first key lies outside): a target whose
// weights leave that range is written as a "+" and a "-" target of displacements scaled by a power
// of two, every weight in [0, 1], and meshport reads the original back bit for bit.
TEST(GltfMorph, WeightsOutsideZeroToOneAreWrittenInRange) {
  const Scene s = ranged_scene();
  Diagnostics wd;
  std::vector<uint8_t> bytes = write_memory(s, Format::Gltf, {}, &wd);
  EXPECT_TRUE(wd.items.empty()) << wd.items[0].to_string();
  json j = json::parse(bytes.begin(), bytes.end());
  const json& mesh = j["meshes"][0];
  EXPECT_EQ(mesh["extras"]["meshport"]["morph_ranges"],
            json({{"source", {0, 1, 1, 2}}, {"scale", {1.0, 32.0, -32.0, 4.0}}}));
  EXPECT_EQ(mesh["extras"]["targetNames"], json({"shape 0", "shape 1", "shape 1-neg", "shape 2"}));

  // What any other player sees: the file without meshport's extras.
  j["meshes"][0]["extras"].erase("meshport");
  Diagnostics pd;
  const Scene p = read_text(j.dump(), &pd);
  ASSERT_EQ(p.meshes[0].morph_targets.size(), 4u);
  const Mesh& src = s.meshes[0];
  const Mesh& got = p.meshes[0];
  for (size_t i = 0; i < src.morph_targets[1].positions.size(); ++i) {
    EXPECT_EQ(got.morph_targets[1].positions[i], 32 * src.morph_targets[1].positions[i]);
    EXPECT_EQ(got.morph_targets[2].positions[i], -32 * src.morph_targets[1].positions[i]);
    EXPECT_EQ(got.morph_targets[3].positions[i], 4 * src.morph_targets[2].positions[i]);
    EXPECT_EQ(got.morph_targets[0].positions[i], src.morph_targets[0].positions[i]);
  }
  EXPECT_EQ(got.morph_weights, (std::vector<float>{0.25f, 0, 3 / 32.0f, 0.125f}));
  ASSERT_EQ(p.animations.size(), 1u);
  const std::vector<float>& w = p.animations[0].morph_weights.at(0).weights;
  EXPECT_EQ(w, (std::vector<float>{0, 0, 20.4f / 32, 0.125f, 1, 0, 0, 2.5f / 4, 0.5f, 15.0f / 32, 0, 0}));
  for (float x : w) EXPECT_TRUE(x >= 0 && x <= 1) << x;
  // ... and the shape it plays at every key is the source's.
  const std::vector<float>& sw = s.animations[0].morph_weights[0].weights;
  for (size_t key = 0; key < 3; ++key)
    for (size_t v = 0; v < 6; ++v)
      for (size_t c = 0; c < 3; ++c)
        EXPECT_NEAR(displaced(got, {w.begin() + long(key) * 4, w.begin() + long(key) * 4 + 4}, v, c),
                    displaced(src, {sw.begin() + long(key) * 3, sw.begin() + long(key) * 3 + 3}, v, c), 1e-5)
            << key << " " << v << " " << c;

  // meshport merges the pairs back: the Scene as written, bit for bit.
  Diagnostics rd;
  const Scene r = read_memory(bytes, Format::Gltf, "m.gltf", &rd);
  EXPECT_TRUE(rd.items.empty()) << rd.items[0].to_string();
  EXPECT_EQ(r.meshes[0].morph_targets, src.morph_targets);
  EXPECT_EQ(r.meshes[0].morph_weights, src.morph_weights);
  ASSERT_EQ(r.animations.size(), 1u);
  EXPECT_EQ(r.animations[0].morph_weights, s.animations[0].morph_weights);
  // Weights all in [0, 1]: written as they are, without the extras.
  const json plain = gltf_json(fold_scene(true));
  EXPECT_FALSE(plain["meshes"][0]["extras"].contains("meshport")) << plain["meshes"][0]["extras"].dump();
}

// Malformed morph_ranges extras (a tool's edit, a hostile file): the targets are read as they are,
// with a warning naming the mesh and what is wrong.
TEST(GltfMorph, MalformedMorphRangesAreIgnoredWithAWarning) {
  const json good = gltf_json(ranged_scene());
  const json cases[] = {
      json::array(),
      {{"source", {0, 1, 1}}, {"scale", {1, 32, -32}}},
      {{"source", {0, 1, 1, 7}}, {"scale", {1, 32, -32, 4}}},
      {{"source", {0, 1, 1, 3}}, {"scale", {1, 32, -32, 4}}},
      {{"source", {0, 1, 1, 2}}, {"scale", {1, 32, 0, 4}}},
      {{"source", {0, 1, 1, 2}}, {"scale", {1, 32, "x", 4}}},
      {{"source", {0, 1, 1, -1}}, {"scale", {1, 32, -32, 4}}},
      {{"source", {0, 1.5, 1, 2}}, {"scale", {1, 32, -32, 4}}},
      {{"source", {0, 1, 1, 2}}, {"scale", {1, 32, -32, 1e39}}},
  };
  for (const json& c : cases) {
    SCOPED_TRACE(c.dump());
    json j = good;
    j["meshes"][0]["extras"]["meshport"]["morph_ranges"] = c;
    Diagnostics d;
    const Scene r = read_text(j.dump(), &d);
    EXPECT_TRUE(has_warning(d, "meshes[0].extras.meshport.morph_ranges: ")) << (d.items.empty() ? "" : d.items[0].to_string());
    EXPECT_TRUE(has_warning(d, "its 4 morph targets are read as they are"));
    ASSERT_EQ(r.meshes[0].morph_targets.size(), 4u);
    EXPECT_EQ(r.animations.at(0).morph_weights.at(0).weights.size(), 12u);
  }
}

// Blender cannot import a shape key named "": without any name no targetNames are written; mixed,
// the unnamed ones are named after their index, with a warning.
TEST(GltfMorph, UnnamedTargetsGetNamesBlenderCanImport) {
  Scene s = fold_scene(true);
  for (MorphTarget& t : s.meshes[0].morph_targets) t.name.clear();
  EXPECT_FALSE(gltf_json(s)["meshes"][0].contains("extras"));
  s.meshes[0].morph_targets[1].name = "smile";
  Diagnostics d;
  const std::vector<uint8_t> b = write_memory(s, Format::Gltf, {}, &d);
  const json j = json::parse(b.begin(), b.end());
  EXPECT_EQ(j["meshes"][0]["extras"]["targetNames"], json({"target0", "smile"}));
  EXPECT_TRUE(has_warning(d, "mesh 0 ('fold'): 1 of its 2 morph targets have no name; written as 'target<index>'"));
}

}  // namespace meshport_test_gltf_morph
