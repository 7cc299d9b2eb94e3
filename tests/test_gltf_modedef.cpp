// ModeDef data through glTF (src/formats/gltf_modedef.*, docs/modedef.md "ModeDef data in glTF"):
// .model / .prop / .state / .path -> .glb -> the same format gives the files the direct rewrite
// gives, the data sits in scenes[0] and mesh extras (which Blender keeps), floats round-trip bit
// for bit in their short form, what Blender writes back (0/1, integers for floats, no root or
// primitive extras) is accepted, malformed extras are ignored with a warning, and processing
// after the round trip still rebuilds the model from the meshes; headless Blender (import, export
// with custom properties) gives the same .model and .state files back.
#include <meshport/meshport.h>
#include <meshport/modes.h>
#include <meshport/simulate.h>

#include "blender_run.h"
#include "ops/animation/skinning.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace meshport_test_gltf_modedef {

using namespace meshport;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(MESHPORT_TEST_DATA) + "/modedef";

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

Scene from_bytes(const std::vector<uint8_t>& b, Format f, const std::string& name, Diagnostics* d = nullptr) {
  return read_memory({b.data(), b.size()}, f, name, d);
}

// The glTF JSON meshport writes for `s` (buffer embedded), and the Scene read back from JSON.
json gltf_json(const Scene& s) { return json::parse(text_of(write_memory(s, Format::Gltf))); }
Scene from_json(const json& j, Diagnostics* d = nullptr) { return from_bytes(bytes_of(j.dump()), Format::Gltf, "x.gltf", d); }

std::string model_text(const Scene& s, Diagnostics* d = nullptr) {
  return text_of(write_memory(s, Format::ModeDefModel, {}, d));
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const Diagnostic& x : d.items)
    if (x.to_string().find(part) != std::string::npos) return true;
  return false;
}
std::string all(const Diagnostics& d) {
  std::string r;
  for (const Diagnostic& x : d.items) r += x.to_string() + "\n";
  return r;
}

// Every file under `dir`, by relative path.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> r;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) r[fs::relative(e.path(), dir).generic_string()] = testutil::slurp(e.path());
  return r;
}

// ModeDefData equal, the fingerprint aside (each reader records its own Scene's).
void expect_same_data(ModeDefData a, ModeDefData b) {
  a.fingerprint = b.fingerprint = 0;
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.models, b.models);
  EXPECT_EQ(a.props, b.props);
  EXPECT_EQ(a.paths, b.paths);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.object_prop, b.object_prop);
  EXPECT_EQ(a.object_path, b.object_path);
  EXPECT_EQ(a.object_joint, b.object_joint);
  EXPECT_EQ(a.mesh_sources, b.mesh_sources);
  EXPECT_TRUE(a == b);
}

const char* kModels[] = {"full.model",           "bar.model",           "no-carton.model",
                         "one-based.model",      "ambiguous.model",     "fend-exclusive.model",
                         "fend-exclusive-1based.model", "fend-inclusive.model", "state/tri.model"};

}  // namespace

TEST(GltfModeDef, ModelThroughGlbGivesTheSameModel) {
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const Scene s = read(kData + "/" + name);
    ASSERT_TRUE(s.modedef);
    const std::string direct = model_text(s);
    Diagnostics wd;
    const std::vector<uint8_t> glb = write_memory(s, Format::Glb, {}, &wd);
    Diagnostics rd;
    const Scene g = from_bytes(glb, Format::Glb, "x.glb", &rd);
    EXPECT_TRUE(rd.items.empty()) << all(rd);
    ASSERT_TRUE(g.modedef);
    expect_same_data(*g.modedef, *s.modedef);
    EXPECT_EQ(g.modedef->fingerprint, content_fingerprint(g));
    Diagnostics md;
    EXPECT_EQ(model_text(g, &md), direct);
    EXPECT_TRUE(md.items.empty()) << all(md);
  }
}

TEST(GltfModeDef, FullModelKeepsTetrahedraCartonAndMaterials) {
  const Scene g = from_bytes(write_memory(read(kData + "/full.model"), Format::Glb), Format::Glb, "x.glb");
  ASSERT_TRUE(g.modedef);
  ASSERT_EQ(g.modedef->models.size(), 1u);
  const ModeDefModel& m = g.modedef->models[0].model;
  EXPECT_EQ(m.eigenvalues, (std::vector<float>{100, 400}));
  ASSERT_EQ(m.tets.size(), 1u);
  EXPECT_EQ(m.tets[0], (std::array<int32_t, 4>{0, 1, 2, 3}));
  EXPECT_TRUE(m.carton);
  ASSERT_EQ(m.carton_vertices.size(), 4u);
  EXPECT_EQ(m.carton_vertices[1].bary, (std::array<float, 4>{0.5f, 0.5f, 0, 0}));
  ASSERT_EQ(m.materials.size(), 2u);
  EXPECT_EQ(m.materials[0].specular_strength, 32.0f);
  EXPECT_EQ(m.materials[1].emissive, (std::array<float, 4>{0.1f, 0, 0, 1}));
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[1].material, 0);
  const std::string text = model_text(g);
  EXPECT_NE(text.find("0 1 2 3\n"), std::string::npos) << text;  // the tetrahedron
}

TEST(GltfModeDef, DataSitsInSceneAndMeshExtras) {
  const Scene s = read(kData + "/full.model");
  const json j = gltf_json(s);
  ASSERT_TRUE(j.contains("scenes"));
  const json& md = j["scenes"][0]["extras"]["meshport"]["modedef"];
  EXPECT_EQ(md["version"], 1);
  EXPECT_EQ(md["kind"], "model");
  ASSERT_EQ(md["models"].size(), 1u);
  EXPECT_EQ(md["models"][0]["tets"], json::array({0, 1, 2, 3}));
  EXPECT_EQ(md["models"][0]["carton"], true);
  EXPECT_FALSE(j.contains("extras"));  // every document-level key is in scenes[0]
  ASSERT_EQ(j["meshes"].size(), s.meshes.size());
  for (size_t g = 0; g < j["meshes"].size(); ++g) {
    const json& src = j["meshes"][g]["extras"]["meshport"]["modedef"];
    EXPECT_EQ(src["source"], g);
    EXPECT_EQ(src["model"], 0);
    EXPECT_EQ(src["vertex"].size(), s.meshes[g].vertex_count());
    EXPECT_FALSE(j["meshes"][g]["primitives"][0]["extras"]["meshport"].contains("modedef"));
  }
  // Morph target names stay beside the meshport object.
  EXPECT_TRUE(j["meshes"][0]["extras"].contains("targetNames"));
}

TEST(GltfModeDef, FloatsAreShortAndBitExact) {
  Scene s;
  ModeDefModelFile f;
  f.file = "tricky.model";
  const float tricky[] = {0.1f,
                          1.0f / 3.0f,
                          -0.0f,
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(),
                          16777217.0f,
                          1e-38f,
                          3.4028233e38f,
                          7.0064923e-45f,
                          0.3f,
                          2.5e-3f,
                          123456.789f,
                          std::nextafter(1.0f, 2.0f)};
  for (float x : tricky) f.model.eigenvalues.push_back(x);
  f.model.eigenvalues.push_back(std::numeric_limits<float>::infinity());
  f.model.eigenvalues.push_back(std::numeric_limits<float>::quiet_NaN());
  s.modedef.emplace().models.push_back(f);
  const json j = gltf_json(s);
  const json& ev = j["scenes"][0]["extras"]["meshport"]["modedef"]["models"][0]["eigenvalues"];
  EXPECT_EQ(ev[0].dump(), "0.1");
  EXPECT_EQ(ev[2].dump(), "-0.0");
  EXPECT_EQ(ev[11].dump(), "0.3");
  EXPECT_EQ(ev[15], "Infinity");
  EXPECT_EQ(ev[16], "NaN");
  const Scene g = from_json(j);
  ASSERT_TRUE(g.modedef);
  ASSERT_EQ(g.modedef->models.size(), 1u);
  const std::vector<float>& back = g.modedef->models[0].model.eigenvalues;
  ASSERT_EQ(back.size(), f.model.eigenvalues.size());
  for (size_t i = 0; i + 1 < back.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(back[i]), std::bit_cast<uint32_t>(f.model.eigenvalues[i])) << i;
  EXPECT_TRUE(std::isnan(back.back()));
}

TEST(GltfModeDef, PropThroughGlbGivesTheSameFiles) {
  for (const char* name : {"box.prop", "mirrored.prop", "props/ball.prop"}) {
    SCOPED_TRACE(name);
    testutil::TempDir dir;
    fs::create_directories(dir.path / "a");
    fs::create_directories(dir.path / "b");
    const Scene s = read(kData + "/state/" + name);
    write(s, dir / "a/out.prop");
    write(s, dir / "x.glb");
    Diagnostics d;
    const Scene g = read(dir / "x.glb", {}, &d);
    EXPECT_TRUE(d.items.empty()) << all(d);
    ASSERT_TRUE(g.modedef);
    expect_same_data(*g.modedef, *s.modedef);
    write(g, dir / "b/out.prop");
    const auto a = files_under(dir.path / "a"), b = files_under(dir.path / "b");
    EXPECT_EQ(a.size(), 2u);
    EXPECT_EQ(a, b);
  }
}

TEST(GltfModeDef, StateThroughGlbGivesTheSameFiles) {
  testutil::TempDir dir;
  fs::create_directories(dir.path / "a");
  fs::create_directories(dir.path / "b");
  const Scene s = read(kData + "/state/scene.state");
  write(s, dir / "a/scene.state");
  write(s, dir / "x.glb");
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({dir / "x.glb"}, out)) << out;
  Diagnostics d;
  const Scene g = read(dir / "x.glb", {}, &d);
  EXPECT_TRUE(d.items.empty()) << all(d);
  ASSERT_TRUE(g.modedef);
  expect_same_data(*g.modedef, *s.modedef);
  write(g, dir / "b/scene.state");
  const auto a = files_under(dir.path / "a"), b = files_under(dir.path / "b");
  EXPECT_EQ(a.size(), 5u);  // the .state, 2 .prop, the .model they share, the .path
  EXPECT_EQ(a, b);
}

TEST(GltfModeDef, PathThroughGlbGivesTheSamePath) {
  const Scene s = read(kData + "/state/fly.path");
  const Scene g = from_bytes(write_memory(s, Format::Glb), Format::Glb, "x.glb");
  ASSERT_TRUE(g.modedef);
  expect_same_data(*g.modedef, *s.modedef);
  EXPECT_EQ(text_of(write_memory(g, Format::ModeDefPath)), text_of(write_memory(s, Format::ModeDefPath)));
}

TEST(GltfModeDef, GlbOfModelsValidates) {
  testutil::TempDir dir;
  std::vector<std::string> files;
  for (const char* name : {"full.model", "bar.model", "one-based.model"}) {
    files.push_back(dir / (fs::path(name).stem().string() + ".glb"));
    write(read(kData + "/" + name), files.back());
  }
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf(files, out)) << out;
}

TEST(GltfModeDef, ModelWithoutMeshesStillKeepsItsData) {
  Scene s;
  ModeDefModelFile f;
  f.file = "empty.model";
  f.model.eigenvalues = {4};
  f.model.rest = {1, 2, 3};
  f.model.eigenvectors = {0, 1, 0};
  f.model.vertices = {{1, 2, 3}};  // no carton: the render vertices are the nodes; no faces
  s.modedef.emplace().models.push_back(f);
  const json j = gltf_json(s);
  ASSERT_TRUE(j.contains("scenes"));
  EXPECT_FALSE(j["scenes"][0].contains("nodes"));
  Diagnostics d;
  const Scene g = from_json(j, &d);
  ASSERT_TRUE(g.modedef) << all(d);
  EXPECT_EQ(g.modedef->models, s.modedef->models);
}

// What Blender's importer and exporter do to the extras: the root and primitive extras are gone,
// booleans come back as 0 / 1, whole floats as integers.
TEST(GltfModeDef, AcceptsWhatBlenderWritesBack) {
  for (const char* name : {"full.model", "one-based.model", "fend-exclusive.model"}) {
    SCOPED_TRACE(name);
    const Scene s = read(kData + "/" + name);
    json j = gltf_json(s);
    j.erase("extras");
    for (json& m : j["meshes"]) m["primitives"][0].erase("extras");
    json& md = j["scenes"][0]["extras"]["meshport"]["modedef"];
    json& m = md["models"][0];
    m["carton"] = m["carton"].get<bool>() ? 1 : 0;
    m["indexing"]["group_end_inclusive"] = m["indexing"]["group_end_inclusive"].get<bool>() ? 1 : 0;
    for (json* list : {&m["eigenvalues"], &m["rest"], &m["vertices"], &m["materials"]})
      for (json& x : *list)
        if (x.is_number_float() && x.get<double>() == std::floor(x.get<double>())) x = int64_t(x.get<double>());
    for (json& x : m["faces"]) x = double(x.get<int64_t>());  // and integers as floats
    Diagnostics d;
    const Scene g = from_json(j, &d);
    ASSERT_TRUE(g.modedef) << all(d);
    EXPECT_FALSE(has_warning(d, "modedef")) << all(d);
    expect_same_data(*g.modedef, *s.modedef);
    EXPECT_EQ(model_text(g), model_text(s));
  }
}

TEST(GltfModeDef, StateWithoutRootExtrasKeepsItsFiles) {
  const Scene s = read(kData + "/state/scene.state");
  json j = gltf_json(s);
  j.erase("extras");
  for (json& m : j["meshes"]) m["primitives"][0].erase("extras");
  for (json& o : j["scenes"][0]["extras"]["meshport"]["modedef"]["state"]["objects"]) o["animated"] = o["animated"].get<bool>() ? 1 : 0;
  Diagnostics d;
  const Scene g = from_json(j, &d);
  ASSERT_TRUE(g.modedef) << all(d);
  expect_same_data(*g.modedef, *s.modedef);
  const std::vector<uint8_t> a = write_memory(s, Format::ModeDefState), b = write_memory(g, Format::ModeDefState);
  EXPECT_EQ(text_of(a), text_of(b));
}

// Processing after the round trip changes the meshes: the .model is rebuilt from them, as from a
// .model read directly.
TEST(GltfModeDef, ProcessedMeshesRebuildTheModelWithAWarning) {
  const Scene s = read(kData + "/full.model");
  Scene g = from_bytes(write_memory(s, Format::Glb), Format::Glb, "x.glb");
  Scene direct = s;
  TransformOptions o;
  o.scale = 2;
  transform_scene(g, o);
  transform_scene(direct, o);
  Diagnostics d;
  const std::string text = model_text(g, &d);
  EXPECT_TRUE(has_warning(d, "the meshes no longer match the kept model")) << all(d);
  EXPECT_EQ(text, model_text(direct));
  EXPECT_NE(text, model_text(s));
  // The positions are the scaled ones; the rebuilt model has no tetrahedra and no carton.
  const Scene back = from_bytes(bytes_of(text), Format::ModeDefModel, "back.model");
  ASSERT_TRUE(back.modedef);
  EXPECT_TRUE(back.modedef->models[0].model.tets.empty());
  EXPECT_FALSE(back.modedef->models[0].model.carton);
  EXPECT_EQ(back.modedef->models[0].model.vertices[1], (std::array<float, 3>{1, 0, 0}));
}

// ---- Malformed extras: ignored with a warning naming the value, the meshes still read --------

namespace {

struct Broken {
  const char* what;
  void (*edit)(json& md, json& meshes);
  const char* message;
};

json& model0(json& md) { return md["models"][0]; }

const Broken kBroken[] = {
    {"not an object", [](json& md, json&) { md = json::array(); }, "modedef: is array, not an object"},
    {"version", [](json& md, json&) { md["version"] = 2; }, "modedef.version: 2 is not a known version"},
    {"kind", [](json& md, json&) { md["kind"] = "obj"; }, "modedef.kind: 'obj' is not a ModeDef file kind"},
    {"string eigenvalue", [](json& md, json&) { model0(md)["eigenvalues"][0] = "x"; },
     "models[0].eigenvalues[0]: \"x\" is not a number"},
    {"eigenvector count", [](json& md, json&) { model0(md)["eigenvectors"].erase(0); },
     "models[0].eigenvectors: has 23 values, not 2 modes x 12"},
    {"rest count", [](json& md, json&) { model0(md)["rest"].push_back(0); }, "models[0].rest: has 13 values"},
    {"face vertex", [](json& md, json&) { model0(md)["faces"][3] = 4; },
     "models[0].faces[3]: vertex 4 does not exist (there are 4)"},
    {"face normal", [](json& md, json&) { model0(md)["faces"][1] = -1; },
     "models[0].faces[1]: normal -1 does not exist (there are 2)"},
    {"face not integral", [](json& md, json&) { model0(md)["faces"][0] = 0.5; },
     "models[0].faces[0]: 0.5 is not an integer"},
    {"face count", [](json& md, json&) { model0(md)["faces"].push_back(0); }, "has 28 values, not 9 per face"},
    {"group range", [](json& md, json&) { model0(md)["groups"][1] = 3; },
     "models[0].groups[1]: face 3 does not exist (there are 3)"},
    {"group reversed", [](json& md, json&) { model0(md)["groups"] = json::array({1, 0, 0}); },
     "models[0].groups[1]: group 0 ends before it starts"},
    {"group overlap", [](json& md, json&) { model0(md)["groups"] = json::array({0, 1, 0, 1, 2, 1}); },
     "models[0].groups: group 1 overlaps group 0"},
    {"group material", [](json& md, json&) { model0(md)["groups"][2] = 2; },
     "models[0].groups[2]: material 2 does not exist (there are 2)"},
    {"tet node", [](json& md, json&) { model0(md)["tets"][2] = 4; },
     "models[0].tets[2]: node 4 does not exist (there are 4)"},
    {"carton count", [](json& md, json&) {
       model0(md)["carton_tets"].erase(0);
       for (int i = 0; i < 4; ++i) model0(md)["carton_bary"].erase(0);
     },
     "models[0].carton_tets: has 3 carton vertices, the mesh has 4 vertices"},
    {"carton tet", [](json& md, json&) { model0(md)["carton_tets"][2] = 1; },
     "models[0].carton_tets[2]: tetrahedron 1 does not exist (there are 1)"},
    {"carton sum", [](json& md, json&) { model0(md)["carton_bary"][5] = 0.7; },
     "models[0].carton_bary[4]: carton vertex 1: barycentric coordinates sum to 1.2"},
    {"carton flag", [](json& md, json&) { model0(md)["carton"] = 2; }, "models[0].carton: 2 is not a boolean"},
    {"no carton but modes", [](json& md, json&) {
       model0(md)["carton"] = false;
       model0(md)["carton_tets"] = json::array();
       model0(md)["carton_bary"] = json::array();
       model0(md)["rest"] = json::array({0, 0, 0, 1, 0, 0, 0, 1, 0});
       model0(md)["eigenvectors"] = json::array({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
       model0(md)["tets"] = json::array();
     },
     "models[0].carton: no carton: 4 render vertices but the modes have 3 nodes"},
    {"index base", [](json& md, json&) { model0(md)["indexing"]["tet_base"] = 2; },
     "indexing.tet_base: 2 is not an integer in 0..1"},
    {"file name", [](json& md, json&) { model0(md)["file"] = 7; }, "models[0].file: is not a string"},
    {"object_prop", [](json& md, json&) { md["object_prop"] = json::array({0}); },
     "modedef.object_prop: has 1 entries, but the state has 0 objects"},
    {"models type", [](json& md, json&) { md["models"] = json::object(); }, "modedef.models: is object, not an array"},
};

// Broken per-mesh entries: the mesh source is dropped, the rest kept.
const Broken kBrokenMesh[] = {
    {"vertex count", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["vertex"].erase(0); },
     "meshes[0].extras.meshport.modedef.vertex: has 2 entries, but the mesh read has 3 vertices"},
    {"vertex index", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["vertex"][1] = 9; },
     "meshes[0].extras.meshport.modedef.vertex[1]: render vertex 9 does not exist (there are 4)"},
    {"normal index", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["normal"][0] = 2; },
     "meshes[0].extras.meshport.modedef.normal[0]: normal 2 does not exist (there are 2)"},
    {"model", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["model"] = 1; },
     "meshes[0].extras.meshport.modedef.model: model 1 does not exist (there are 1)"},
    {"group", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["group"] = 5; },
     "meshes[0].extras.meshport.modedef.group: group 5 does not exist (there are 2)"},
    {"object", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["object"] = 0; },
     "meshes[0].extras.meshport.modedef.object: object 0 does not exist (there are 0)"},
    {"source", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["source"] = -3; },
     "meshes[0].extras.meshport.modedef.source: -3 is not a mesh source index"},
    {"duplicate source", [](json&, json& meshes) { meshes[1]["extras"]["meshport"]["modedef"]["source"] = 0; },
     "meshes[1].extras.meshport.modedef.source: meshes[0] has source 0 already"},
    {"huge source", [](json&, json& meshes) { meshes[0]["extras"]["meshport"]["modedef"]["source"] = 2147483647; },
     ""},
};

}  // namespace

TEST(GltfModeDef, MalformedSceneDataIsIgnoredWithAWarning) {
  const Scene s = read(kData + "/full.model");
  const json good = gltf_json(s);
  for (const Broken& b : kBroken) {
    SCOPED_TRACE(b.what);
    json j = good;
    b.edit(j["scenes"][0]["extras"]["meshport"]["modedef"], j["meshes"]);
    Diagnostics d;
    const Scene g = from_json(j, &d);
    EXPECT_FALSE(g.modedef);
    EXPECT_TRUE(has_warning(d, b.message)) << all(d);
    EXPECT_TRUE(has_warning(d, "the ModeDef data is ignored")) << all(d);
    EXPECT_EQ(g.meshes.size(), s.meshes.size());
  }
}

TEST(GltfModeDef, MalformedMeshSourceIsDroppedWithAWarning) {
  const Scene s = read(kData + "/full.model");
  ASSERT_EQ(s.meshes.size(), 3u);
  const json good = gltf_json(s);
  for (const Broken& b : kBrokenMesh) {
    SCOPED_TRACE(b.what);
    json j = good;
    b.edit(j["scenes"][0]["extras"]["meshport"]["modedef"], j["meshes"]);
    Diagnostics d;
    const Scene g = from_json(j, &d);
    ASSERT_TRUE(g.modedef) << all(d);
    EXPECT_EQ(g.modedef->models, s.modedef->models);
    if (!*b.message) {  // a large but valid source index only orders the sources
      EXPECT_TRUE(d.items.empty()) << all(d);
      ASSERT_EQ(g.modedef->mesh_sources.size(), 3u);
      EXPECT_EQ(g.modedef->mesh_sources[2], s.modedef->mesh_sources[0]);
      continue;
    }
    EXPECT_TRUE(has_warning(d, b.message)) << all(d);
    EXPECT_TRUE(has_warning(d, "the mesh's ModeDef source is ignored")) << all(d);
    EXPECT_EQ(g.modedef->mesh_sources.size(), 2u);
    // Without the mesh's source the kept model no longer describes the Scene: rebuilt, warned.
    Diagnostics w;
    model_text(g, &w);
    EXPECT_TRUE(has_warning(w, "the meshes no longer match the kept model")) << all(w);
  }
}

TEST(GltfModeDef, StateConstraintsAndJointsAreChecked) {
  const Scene s = read(kData + "/state/scene.state");
  const json good = gltf_json(s);
  const std::pair<void (*)(json&), const char*> cases[] = {
      {[](json& md) { md["state"]["constraints"][0]["body2"] = 3; },
       "state.constraints[0].body2: object 3 does not exist (there are 3)"},
      {[](json& md) { md["state"]["constraints"][0]["body1"] = -2; },
       "state.constraints[0].body1: object -2 does not exist"},
      {[](json& md) { md["state"]["objects"][1]["rotation"] = json::array({0, 0, 0, 0}); },
       "state.objects[1].rotation: is a zero quaternion"},
      {[](json& md) { md["state"]["planes"][0] = 0; md["state"]["planes"][1] = 0; },
       "state.planes[0]: a plane normal is 0 0 0"},
      {[](json& md) { md["object_joint"][2] = 3; }, "object_joint[2]: joint 3 does not exist (there are 3)"},
      {[](json& md) { md["object_path"][0] = 1; }, "object_path[0]: path 1 does not exist (there are 1)"},
      {[](json& md) { md["props"][0]["model"] = 2; }, "props[0].model: model 2 does not exist"},
      {[](json& md) { md["paths"][0]["translation"][4] = -1; }, "paths[0].translation[4]: key 1 goes back in time"},
      {[](json& md) { md["props"][0]["inertia"].erase(0); }, "props[0].inertia: has 8 entries, not 9"},
  };
  for (const auto& [edit, message] : cases) {
    SCOPED_TRACE(message);
    json j = good;
    edit(j["scenes"][0]["extras"]["meshport"]["modedef"]);
    Diagnostics d;
    const Scene g = from_json(j, &d);
    EXPECT_FALSE(g.modedef);
    EXPECT_TRUE(has_warning(d, message)) << all(d);
    EXPECT_EQ(g.joints.size(), s.joints.size());
  }
}

// Blender merges fend-exclusive.model's face 2 into face 0 (same corners): the kept model no longer
// matches and is rebuilt, with a warning even though it has no modes.
TEST(GltfModeDef, ModelWithoutModesRebuiltWithAWarning) {
  Scene s = read(kData + "/fend-exclusive.model");
  ASSERT_EQ(s.modedef->models[0].model.mode_count(), 0u);
  Scene g = from_bytes(write_memory(s, Format::Glb), Format::Glb, "x.glb");
  Diagnostics quiet;
  EXPECT_EQ(model_text(g, &quiet), model_text(s));
  EXPECT_TRUE(quiet.items.empty()) << all(quiet);
  g.meshes[1].triangles.resize(3);  // the second group's second face gone
  Diagnostics d;
  const std::string text = model_text(g, &d);
  EXPECT_NE(text, model_text(s));
  EXPECT_TRUE(has_warning(d, "the meshes no longer match the kept model")) << all(d);
  EXPECT_TRUE(has_warning(d, "tetrahedra, carton, groups and index bases are dropped")) << all(d);
}

// ---- Blender: import, export with custom properties, back to ModeDef --------------------------

namespace {

// `in` through headless Blender (a test dependency, as for tests/blender): glTF import, then
// glTF export with custom properties (extras) on. Returns Blender's output on failure.
bool through_blender(const std::string& in, const std::string& out, const testutil::TempDir& dir, std::string& log) {
  const std::string script = dir / "roundtrip.py";
  {
    std::ofstream f(script);
    f << "import sys, bpy, numpy\n"
         "numpy.bool = bool  # Blender 3.4's glTF importer uses numpy.bool, removed from newer numpy\n"
         "src, dst = sys.argv[sys.argv.index('--') + 1:]\n"
         "bpy.ops.wm.read_factory_settings(use_empty=True)\n"
         "bpy.ops.import_scene.gltf(filepath=src)\n"
         "bpy.ops.export_scene.gltf(filepath=dst, export_format='GLB', export_extras=True)\n";
  }
  const std::string cmd = "blender -b --factory-startup --python-exit-code 1 --python '" + script + "' -- '" + in +
                          "' '" + out + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  return ::pclose(p) == 0 && fs::exists(out);
}

}  // namespace

TEST(GltfModeDef, BlenderRoundTripKeepsModelAndState) {
  testutil::TempDir dir;
  std::string log;
  for (const char* name : {"full.model", "bar.model"}) {
    SCOPED_TRACE(name);
    const Scene s = read(kData + "/" + name);
    write(s, dir / "in.glb");
    ASSERT_TRUE(through_blender(dir / "in.glb", dir / "out.glb", dir, log)) << log;
    Diagnostics d;
    const Scene g = read(dir / "out.glb", {}, &d);
    ASSERT_TRUE(g.modedef) << all(d);
    EXPECT_EQ(g.modedef->models, s.modedef->models);
    Diagnostics w;
    EXPECT_EQ(model_text(g, &w), model_text(s));
    EXPECT_TRUE(w.items.empty()) << all(w);
  }
  fs::create_directories(dir.path / "a");
  fs::create_directories(dir.path / "b");
  const Scene s = read(kData + "/state/scene.state");
  write(s, dir / "a/scene.state");
  write(s, dir / "in.glb");
  ASSERT_TRUE(through_blender(dir / "in.glb", dir / "out.glb", dir, log)) << log;
  const Scene g = read(dir / "out.glb");
  ASSERT_TRUE(g.modedef);
  // Blender orders the meshes its own way: each source names the mesh of the same name.
  ASSERT_EQ(g.modedef->mesh_sources.size(), s.modedef->mesh_sources.size());
  ModeDefData moved = *g.modedef;
  for (size_t k = 0; k < moved.mesh_sources.size(); ++k) {
    ModeDefMeshSource& m = moved.mesh_sources[k];
    const int32_t want = s.modedef->mesh_sources[k].mesh;
    EXPECT_EQ(g.meshes[size_t(m.mesh)].name, s.meshes[size_t(want)].name) << k;
    m.mesh = want;
  }
  expect_same_data(moved, *s.modedef);
  write(g, dir / "b/scene.state");
  EXPECT_EQ(files_under(dir.path / "a"), files_under(dir.path / "b"));
}

// Every value of the ModeDef extras (scene and mesh) replaced in turn by hostile ones: the file
// is still read (warnings only), and the ModeDef writers given what was accepted fail cleanly at
// worst.
namespace {

// A JSON pointer naming only the first two elements of the arrays on its way: every field of
// every kind of record, without every further element's copy of the same fields (4,113 cases
// became 1,791; the test took 95 s under AddressSanitizer).
bool first_two_of_each_array(const std::string& pointer) {
  size_t at = 0;
  while (at < pointer.size()) {
    const size_t next = std::min(pointer.find('/', at + 1), pointer.size());
    const std::string part = pointer.substr(at + 1, next - at - 1);
    if (!part.empty() && part.find_first_not_of("0123456789") == std::string::npos && part.size() < 10 &&
        std::stoul(part) >= 2)
      return false;
    at = next;
  }
  return true;
}

}  // namespace

TEST(GltfModeDef, HostileValuesNeverBreakReadingOrWriting) {
  const json hostile[] = {json(-1), json(2147483648LL), json(1e300), json(0.5), json("x"),
                          json::array(), json::object(), json(nullptr), json(true)};
  for (const char* name : {"full.model", "state/scene.state"}) {
    SCOPED_TRACE(name);
    const json good = gltf_json(read(kData + "/" + name));
    const json flat = good.flatten();
    size_t cases = 0;
    for (const auto& [pointer, value] : flat.items()) {
      if (pointer.find("/modedef") == std::string::npos || !first_two_of_each_array(pointer)) continue;
      for (const json& h : hostile) {
        json j = good;
        j[json::json_pointer(pointer)] = h;
        ++cases;
        Diagnostics d;
        Scene g;
        try {
          g = from_json(j, &d);
        } catch (const Error& e) {
          ADD_FAILURE() << pointer << " = " << h.dump() << ": " << e.what();
          continue;
        }
        if (!g.modedef) continue;
        for (Format f : {Format::ModeDefModel, Format::ModeDefPath, Format::ModeDefState}) {
          try {
            write_memory(g, f);
          } catch (const Error&) {
          }
        }
      }
    }
    EXPECT_GT(cases, 500u);
  }
}

// The modes of a .model played in Blender as the trace says (issue: Blender's shape-key sliders
// clamped a mode weight of -20.4 to 0): mode weights from -20.4 to 15 on both meshes of bar.model,
// Blender's evaluated vertices at every key within 1e-3 of the model's size of rest + sum w d, and
// Blender's export back gives the same weights and model.
TEST(GltfModeDef, BlenderPlaysModeWeightsAsTheTraceSays) {
  testutil::TempDir dir;
  Scene s = read(kData + "/bar.model");
  ASSERT_EQ(s.meshes.size(), 2u);
  const size_t modes = s.meshes[0].morph_targets.size();
  ASSERT_EQ(modes, 3u);
  const std::vector<float> times = {0, 1 / 30.0f, 2 / 30.0f, 3 / 30.0f, 4 / 30.0f, 5 / 30.0f};
  const std::vector<float> trace = {0,   0,    0,     -20.4f, 2,     -0.5f, 15,   -6, 0.25f,
                                    3,   0.5f, -12.5f, -0.5f,  0.75f, 4,     0.2f, 0,  -1};
  Animation a;
  a.name = "modes";
  a.framerate = 30;
  for (int32_t m = 0; m < 2; ++m) a.morph_weights.push_back({m, times, trace});
  s.animations.push_back(a);
  write(s, dir / "in.glb");

  std::string times_arg;
  for (float t : times) times_arg += (times_arg.empty() ? "" : ",") + fmt::format("{}", t);
  std::string log;
  ASSERT_TRUE(testutil::run_blender("morph_positions.py",
                                    fmt::format(" '{}' '{}' --fps 30 --times {} --export '{}'", dir / "in.glb",
                                                dir / "seen.json", times_arg, dir / "out.glb"),
                                    {dir / "seen.json", dir / "out.glb"}, log))
      << log;
  std::ifstream f(dir / "seen.json");
  const json seen = json::parse(f);
  const Bounds b = scene_bounds(s);
  const double size = std::hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);
  for (const Mesh& m : s.meshes) {
    SCOPED_TRACE(m.name);
    ASSERT_TRUE(seen.contains(m.name)) << seen.dump();
    const json& frames = seen[m.name];
    ASSERT_EQ(frames.size(), times.size());
    const std::vector<float>& base = m.find(Attribute::Position)->data;
    for (size_t key = 0; key < times.size(); ++key) {
      ASSERT_EQ(frames[key].size(), base.size()) << "Blender's vertices differ in number";
      double worst = 0;
      for (size_t i = 0; i < base.size(); ++i) {
        double want = base[i];
        for (size_t k = 0; k < modes; ++k) want += double(trace[key * modes + k]) * m.morph_targets[k].positions[i];
        worst = std::max(worst, std::fabs(frames[key][i].get<double>() - want));
      }
      EXPECT_LT(worst, 1e-3 * size) << "key " << key;
    }
  }
  // Back from Blender: the same trace and model.
  Diagnostics d;
  const Scene g = read(dir / "out.glb", {}, &d);
  EXPECT_EQ(testutil::blender_differences(s, g, 1e-4f), "");
  ASSERT_EQ(g.animations.size(), 1u);
  for (const MorphWeightTrack& t : g.animations[0].morph_weights) {
    ASSERT_EQ(t.weights.size(), trace.size());
    for (size_t i = 0; i < trace.size(); ++i) EXPECT_NEAR(t.weights[i], trace[i], 1e-4) << i;
  }
  EXPECT_EQ(model_text(g), model_text(s));
}

// The scene: a 1 x 0.1 x 0.1 bar (modes computed, 10 kg) dropped onto a floor and
// simulated; in Blender (which clamped its negative mode weights to 0) it sank 14 cm under the
// floor. Blender's vertices at every 6th frame are within 1e-3 of the bar's size of the trace
// (joint pose, skinning and sum q_k d_k), so the bar rests on the floor as simulated.
TEST(GltfModeDef, BlenderShowsASimulatedBarOnTheFloor) {
  testutil::TempDir dir;
  {
    std::ofstream f(dir / "bar.obj");
    f << "v -0.5 -0.05 -0.05\nv 0.5 -0.05 -0.05\nv 0.5 0.05 -0.05\nv -0.5 0.05 -0.05\n"
         "v -0.5 -0.05 0.05\nv 0.5 -0.05 0.05\nv 0.5 0.05 0.05\nv -0.5 0.05 0.05\n"
         "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n";
  }
  ModesOptions mo;
  mo.stem = "bar";
  mo.resolution = 10;
  mo.count = 8;
  write(compute_modes(read(dir / "bar.obj"), mo), dir / "bar.prop");
  {
    std::ofstream f(dir / "drop.state");
    f << "30\n1\n0 -9.8 0\n0.5\n0.01 0.5 0.2\n1\nbar.prop\n  0 0.3 0\n  0.99875 0 0 0.04998\n  0 0 0\n"
         "  0 0 0\n  -1 -1\n1\n0 1 0   0 0 0\n0\n";
  }
  Scene s = read(dir / "drop.state");
  SimulateOptions so;
  so.seconds = 2;
  apply_simulation(s, simulate(s, so), "drop");
  write(s, dir / "sim.glb");
  const Animation& a = s.animations.at(0);
  std::vector<size_t> frames;
  std::string times_arg;
  for (size_t f = 0; f < a.frame_count(); f += 6) {
    frames.push_back(f);
    times_arg += (times_arg.empty() ? "" : ",") + fmt::format("{}", double(f) / a.framerate);
  }
  std::string log;
  ASSERT_TRUE(testutil::run_blender("morph_positions.py",
                                    fmt::format(" '{}' '{}' --fps 30 --times {}", dir / "sim.glb", dir / "seen.json",
                                                times_arg),
                                    {dir / "seen.json"}, log))
      << log;
  std::ifstream f(dir / "seen.json");
  const json seen = json::parse(f);
  const std::vector<Mat3x4> inverse_rest = ops::inverse_rest_matrices(s.joints);
  bool negative_weights = false;
  for (size_t mi = 0; mi < s.meshes.size(); ++mi) {
    const Mesh& m = s.meshes[mi];
    if (m.morph_targets.empty()) continue;  // the floor
    SCOPED_TRACE(m.name);
    ASSERT_TRUE(seen.contains(m.name)) << seen.dump();
    const MorphWeightTrack* track = nullptr;
    for (const MorphWeightTrack& t : a.morph_weights)
      if (t.mesh == int32_t(mi)) track = &t;
    ASSERT_TRUE(track);
    ASSERT_EQ(track->times.size(), a.frame_count());
    const size_t n = m.morph_targets.size();
    for (size_t i = 0; i < frames.size(); ++i) {
      const size_t fr = frames[i];
      Mesh posed = m;
      std::vector<float>& p = posed.find(Attribute::Position)->data;
      for (size_t k = 0; k < n; ++k) {
        const float w = track->weights[fr * n + k];
        negative_weights = negative_weights || w < 0;
        for (size_t j = 0; j < p.size(); ++j) p[j] += w * m.morph_targets[k].positions[j];
      }
      const std::vector<Mat3x4> mats = ops::frame_skinning_matrices(s, inverse_rest, a, fr);
      const ops::SkinStreams ss = ops::skin_streams(posed);
      const json& got = seen[m.name][i];
      ASSERT_EQ(got.size(), p.size());
      double worst = 0, lowest = 1e9;
      for (size_t v = 0; v < p.size() / 3; ++v) {
        const Vec3 want = ops::skin_position(ss, v, mats);
        for (size_t c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(got[v * 3 + c].get<double>() - want[c]));
        lowest = std::min(lowest, got[v * 3 + 1].get<double>());
      }
      EXPECT_LT(worst, 1e-3) << "frame " << fr;  // the bar is 1.01 long
      EXPECT_GT(lowest, -0.002) << "frame " << fr << ": under the floor";
    }
  }
  EXPECT_TRUE(negative_weights);
}

}  // namespace meshport_test_gltf_modedef
