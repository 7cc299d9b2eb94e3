// What `meshport info` reports (include/meshport/summary.h): summarize() numbers, to_json() keys
// and values, to_text() lines, for a model of each format; and the format list's one table.
#include <meshport/meshport.h>
#include <meshport/summary.h>

#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace meshport_test_summary {

using namespace meshport;
using nlohmann::json;

namespace {

std::string data(const std::string& rel) { return std::string(MESHPORT_TEST_DATA) + "/" + rel; }

Summary summary_of(const std::string& path) {
  Summary s = summarize(read(path), *format_from_path(path));
  s.file = "FILE";
  return s;
}

}  // namespace

// ---- PIE -----------------------------------------------------------------------------------------

TEST(Summary, PieNumbers) {
  const Summary s = summary_of(data("cli/turret.pie"));
  EXPECT_EQ(s.format, Format::Pie);
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].name, "turret_level1");
  EXPECT_EQ(s.meshes[0].material, "page-17-droid-weapons");
  EXPECT_EQ(s.meshes[0].vertices, 4u);
  EXPECT_EQ(s.meshes[0].triangles, 2u);
  EXPECT_EQ(s.meshes[0].attributes, (std::vector<std::string>{"position", "texcoord", "pie.point"}));
  EXPECT_EQ(s.vertices, 7u);
  EXPECT_EQ(s.triangles, 3u);
  EXPECT_EQ(s.joints, 1u);
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].name, "turret");
  EXPECT_EQ(s.animations[0].frames, 3u);
  EXPECT_EQ(s.animations[0].framerate, 10.0f);
  EXPECT_TRUE(s.animations[0].loop);
  EXPECT_EQ(s.animations[0].interpolation, Interpolation::Linear);
  ASSERT_TRUE(s.animations[0].bounds);
  EXPECT_EQ(s.animations[0].bounds->min, (std::array<float, 3>{-10, 0, -20}));
  EXPECT_FALSE(s.bounds.empty);
  EXPECT_EQ(s.bounds.max, (std::array<float, 3>{10, 12, 10}));
  ASSERT_EQ(s.attachments.size(), 1u);
  EXPECT_EQ(s.attachments[0].mesh, std::optional<std::string>("turret_level1"));
  EXPECT_FALSE(s.attachments[0].joint);
  ASSERT_TRUE(s.pie);
  EXPECT_EQ(s.pie->version, 3);
  EXPECT_EQ(s.pie->type, 0x200u);
  EXPECT_FALSE(s.pie->interpolate);
  ASSERT_EQ(s.pie->textures.size(), 1u);
  EXPECT_EQ(s.pie->textures[0].directive, "TEXTURE");
  EXPECT_EQ(s.pie->textures[0].file, "page-17-droid-weapons.png");
  ASSERT_EQ(s.pie->events.size(), 1u);
  EXPECT_EQ(s.pie->events[0].type, 2);
  ASSERT_EQ(s.pie->levels.size(), 2u);
  EXPECT_EQ(s.pie->levels[0].points, 4u);
  EXPECT_EQ(s.pie->levels[0].polygons, 2u);
  EXPECT_EQ(s.pie->levels[0].connectors, 1u);
  EXPECT_EQ(s.pie->levels[0].texture_animated_polygons, 0u);
  EXPECT_EQ(s.pie->levels[1].texture_animated_polygons, 1u);
  ASSERT_TRUE(s.pie->levels[1].animobject);
  EXPECT_EQ(s.pie->levels[1].animobject->time_ms, 100);
  EXPECT_EQ(s.pie->levels[1].animobject->frames, 3u);
  EXPECT_FALSE(s.qmsh || s.qmsh_tmp || s.modedef);
}

TEST(Summary, PieText) {
  EXPECT_EQ(to_text(summary_of(data("cli/turret.pie"))),
            "FILE: pie (Warzone 2100 PIE 2, 3 and 4 (text))\n"
            "  meshes: 2  vertices: 7  triangles: 3\n"
            "    \"turret_level1\" material \"page-17-droid-weapons\": 4 vertices, 2 triangles [position texcoord "
            "pie.point]\n"
            "    \"turret_level2\" material \"page-17-droid-weapons\": 3 vertices, 1 triangles [position texcoord "
            "pie.point blendindexes blendweights]\n"
            "  joints: 1\n"
            "  animations: 1\n"
            "    \"turret\": 3 frames at 10 fps, looping\n"
            "  bounds: min (-10 0 -20) max (10 12 10)\n"
            "  attachments: 1\n"
            "    \"turret_level1_connector1\" on \"turret_level1\" at (0 12 -0)\n"
            "  PIE 3: TYPE 200\n"
            "    TEXTURE tileset 0: page-17-droid-weapons.png\n"
            "    EVENT 2: turret_fire.pie\n"
            "    level 1: 4 points, 2 polygons, 1 connectors\n"
            "    level 2: 3 points, 1 polygons, 0 connectors\n"
            "      texture animation on 1 polygons\n"
            "      ANIMOBJECT: 3 frames, 100 ms per frame, looping\n");
}

TEST(Summary, PieJson) {
  const json j = to_json(summary_of(data("cli/turret.pie")));
  EXPECT_EQ(j.dump(),
            R"({"animations":[{"bounds":{"max":[10.0,12.0,10.0],"min":[-10.0,0.0,-20.0],"radius":23.409399},)"
            R"("framerate":10.0,"frames":3,"interpolation":"linear","loop":true,"name":"turret"}],)"
            R"("attachments":[{"mesh":"turret_level1","name":"turret_level1_connector1","translation":[0.0,12.0,0.0]}],)"
            R"("bounds":{"max":[10.0,12.0,10.0],"min":[-10.0,0.0,-20.0]},"comment_bytes":0,"extensions":[],)"
            R"("format":"pie","joints":1,"materials":["page-17-droid-weapons"],)"
            R"("meshes":[{"attributes":["position","texcoord","pie.point"],"material":"page-17-droid-weapons",)"
            R"("morph_targets":0,"name":"turret_level1","triangles":2,"vertices":4},)"
            R"({"attributes":["position","texcoord","pie.point","blendindexes","blendweights"],)"
            R"("material":"page-17-droid-weapons","morph_targets":0,"name":"turret_level2","triangles":1,"vertices":3}],)"
            R"("pie":{"events":[{"file":"turret_fire.pie","type":2}],"levels":[{"connectors":1,"mesh":"turret_level1",)"
            R"("normals":false,"points":4,"polygons":2},{"animobject":{"cycles":0,"frames":3,"time_ms":100},)"
            R"("connectors":0,"mesh":"turret_level2","normals":false,"points":3,"polygons":1,)"
            R"("texture_animated_polygons":1}],"textures":[{"directive":"TEXTURE","file":"page-17-droid-weapons.png",)"
            R"("tileset":0}],"type":"200","version":3},"triangles":3,"vertices":7})");
}

// Texture animation is counted from the mesh's "pie.flags" face channel, so it follows the
// triangles when they are reordered; a level's overrides, comment, INTERPOLATE and shadow show.
TEST(Summary, PieCountsFromFaceChannelsAndOverrides) {
  Scene s = read(data("cli/turret.pie"));
  Mesh& level2 = s.meshes[1];
  FaceChannel* flags = level2.find_channel("pie.flags");
  ASSERT_NE(flags, nullptr);
  ASSERT_EQ(flags->data, (std::vector<uint32_t>{0x4200}));
  flags->data = {0x200};  // no longer animated
  Mesh& level1 = s.meshes[0];
  level1.find_channel("pie.flags")->data = {0x4200, 0x4200};
  PieLevel& l = s.pie->levels[0];
  l.comment = "base";
  l.overrides.has_type = true;
  l.overrides.type = 0x10200;
  l.overrides.textures.push_back({PieTexture::Kind::NormalMap, 1, "n.png"});
  l.has_shadow_points = true;
  l.shadow_points.resize(5);
  l.shadow_polygons.resize(2);
  s.pie->global.has_interpolate = true;
  s.pie->global.interpolate = 0;
  s.animations[0].interpolation = Interpolation::Step;
  Summary sum = summarize(s, Format::Pie);
  EXPECT_EQ(sum.pie->levels[0].texture_animated_polygons, 2u);
  EXPECT_EQ(sum.pie->levels[1].texture_animated_polygons, 0u);
  const std::string text = to_text(sum);
  EXPECT_NE(text.find("  PIE 3: TYPE 200, INTERPOLATE 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    level 1 (base): 4 points, 2 polygons, 1 connectors\n"
                      "      TYPE 10200\n"
                      "      NORMALMAP tileset 1: n.png\n"
                      "      texture animation on 2 polygons\n"
                      "      shadow mesh: 5 points, 2 polygons\n"
                      "    level 2: 3 points, 1 polygons, 0 connectors\n"
                      "      ANIMOBJECT"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"turret\": 3 frames at 10 fps, looping, step interpolation\n"), std::string::npos) << text;
  const json j = to_json(sum);
  EXPECT_EQ(j["pie"]["interpolate"], 0);
  EXPECT_EQ(j["animations"][0]["interpolation"], "step");
  EXPECT_EQ(j["pie"]["levels"][0].dump(),
            R"({"comment":"base","connectors":1,"mesh":"turret_level1","normals":false,"points":4,"polygons":2,)"
            R"("shadow":{"points":5,"polygons":2},"texture_animated_polygons":2,)"
            R"("textures":[{"directive":"NORMALMAP","file":"n.png","tileset":1}],"type":"10200"})");
  EXPECT_FALSE(j["pie"]["levels"][1].contains("texture_animated_polygons"));
}

// ---- IQE with an animation -----------------------------------------------------------------------

TEST(Summary, IqeWithAnimation) {
  const Summary s = summary_of(data("cli/skinned.iqe"));
  EXPECT_EQ(s.format, Format::Iqe);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].attributes,
            (std::vector<std::string>{"position", "texcoord", "normal", "blendindexes", "blendweights"}));
  EXPECT_EQ(s.joints, 2u);
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].frames, 2u);
  EXPECT_EQ(s.animations[0].framerate, 12.0f);
  ASSERT_TRUE(s.animations[0].bounds);
  EXPECT_FLOAT_EQ(s.animations[0].bounds->max[2], 0.70710678f);
  EXPECT_EQ(to_text(s),
            "FILE: iqe (Inter-Quake Export (text))\n"
            "  meshes: 1  vertices: 6  triangles: 4\n"
            "    \"hinge\" material \"hinge.png\": 6 vertices, 4 triangles [position texcoord normal blendindexes "
            "blendweights]\n"
            "  joints: 2\n"
            "  animations: 1\n"
            "    \"bend\": 2 frames at 12 fps, looping\n"
            "  bounds: min (-0.5 0 -0) max (0.5 2 -0)\n");
  EXPECT_EQ(to_json(s).dump(),
            R"({"animations":[{"bounds":{"max":[0.5,2.0,0.7071068],"min":[-0.5,0.0,0.0],"radius":2.0615528},)"
            R"("framerate":12.0,"frames":2,"interpolation":"linear","loop":true,"name":"bend"}],"attachments":[],)"
            R"("bounds":{"max":[0.5,2.0,0.0],"min":[-0.5,0.0,0.0]},"comment_bytes":0,"extensions":[],"format":"iqe",)"
            R"("joints":2,"materials":["hinge.png"],"meshes":[{"attributes":["position","texcoord","normal",)"
            R"("blendindexes","blendweights"],"material":"hinge.png","morph_targets":0,"name":"hinge","triangles":4,)"
            R"("vertices":6}],"triangles":4,"vertices":6})");
}

// ---- QMSH TMP 10 ---------------------------------------------------------------------------------

TEST(Summary, QmshTmp) {
  const Summary s = summary_of(data("qmsh/skinned.qmsh.tmp"));
  EXPECT_EQ(s.format, Format::QmshTmp);
  ASSERT_TRUE(s.qmsh_tmp);
  ASSERT_EQ(s.qmsh_tmp->objects.size(), 1u);
  EXPECT_EQ(s.qmsh_tmp->objects[0].mesh, "Column");
  EXPECT_EQ(s.qmsh_tmp->objects[0].vertices, 16u);
  EXPECT_EQ(s.qmsh_tmp->objects[0].faces, 15u);
  EXPECT_EQ(s.qmsh_tmp->objects[0].materials, (std::vector<std::string>{"Skin"}));
  EXPECT_EQ(s.qmsh_tmp->objects[0].auto_smooth_angle, 30.0f);
  ASSERT_TRUE(s.qmsh_tmp->armature);
  EXPECT_EQ(s.qmsh_tmp->armature->name, "Armature");
  EXPECT_EQ(s.qmsh_tmp->armature->bones, 3u);
  ASSERT_EQ(s.qmsh_tmp->actions.size(), 1u);
  EXPECT_EQ(s.qmsh_tmp->actions[0].channels, 2u);
  EXPECT_EQ(s.qmsh_tmp->actions[0].curves, 14u);
  EXPECT_EQ(s.qmsh_tmp->fps, 25);
  EXPECT_EQ(s.animations[0].frames, 21u);
  EXPECT_FALSE(s.animations[0].loop);
  EXPECT_EQ(to_text(s),
            "FILE: qmsh-tmp (QMSH TMP 10, The Final Quest's Blender export (text))\n"
            "  meshes: 1  vertices: 40  triangles: 28\n"
            "    \"Column\" material \"Skin\": 40 vertices, 28 triangles [position texcoord blendindexes blendweights "
            "normal tangent]\n"
            "  joints: 3\n"
            "  animations: 1\n"
            "    \"Walk\": 21 frames at 25 fps\n"
            "  bounds: min (-0.25 0 -0.25) max (0.25 3 0.25)\n"
            "  QMSH TMP 10: 1 mesh objects, armature \"Armature\" with 3 bones, 1 actions, 25 fps\n"
            "    object \"Column\": 16 vertices, 15 faces, 1 materials, auto-smooth 30°\n");
  const json j = to_json(s);
  EXPECT_EQ(j["qmsh_tmp"].dump(),
            R"({"actions":[{"channels":2,"curves":14,"name":"Walk"}],"armature":{"bones":3,"name":"Armature"},)"
            R"("fps":25,"objects":[{"auto_smooth_angle":30.0,"faces":15,"materials":["Skin"],"mesh":"Column",)"
            R"("vertices":16}]})");
  EXPECT_EQ(j["animations"][0]["bounds"].dump(),
            R"({"max":[0.972523,3.217883,1.7856591],"min":[-0.25,0.0,-0.25],"radius":3.449697})");
  EXPECT_FALSE(j.contains("qmsh"));
}

// ---- ModeDef ---------------------------------------------------------------------------------------

TEST(Summary, ModeDefModel) {
  const std::string path = data("modedef/full.model");
  const Summary s = summary_of(path);
  EXPECT_EQ(s.format, Format::ModeDefModel);
  ASSERT_TRUE(s.modedef);
  EXPECT_EQ(s.modedef->kind, ModeDefData::Kind::Model);
  ASSERT_EQ(s.modedef->models.size(), 1u);
  const ModeDefModelSummary& m = s.modedef->models[0];
  ASSERT_EQ(m.modes.size(), 2u);
  EXPECT_EQ(m.modes[1].eigenvalue, 400.0f);
  EXPECT_FLOAT_EQ(m.modes[1].frequency_hz, 3.1830988f);
  EXPECT_EQ(m.nodes, 4u);
  EXPECT_EQ(m.tetrahedra, 1u);
  EXPECT_TRUE(m.carton);
  EXPECT_TRUE(m.indexing.group_end_inclusive);
  EXPECT_FALSE(s.modedef->state);
  EXPECT_EQ(s.meshes[2].material, "");
  EXPECT_EQ(s.meshes[2].morph_targets, 2u);
  EXPECT_EQ(to_text(s),
            "FILE: modedef-model (ModeDef model: render mesh, tetrahedra, vibration modes (text))\n"
            "  meshes: 3  vertices: 9  triangles: 3\n"
            "    \"full.group0\" material \"material1\": 3 vertices, 1 triangles [position normal texcoord], 2 morph "
            "targets\n"
            "    \"full.group1\" material \"material0\": 3 vertices, 1 triangles [position normal texcoord], 2 morph "
            "targets\n"
            "    \"full.ungrouped\" material \"\": 3 vertices, 1 triangles [position normal texcoord], 2 morph targets\n"
            "  joints: 0\n"
            "  animations: 0\n"
            "  bounds: min (0 0 0) max (0.5 0.5 0)\n"
            "  ModeDef model:\n"
            "    model \"full.model\": 2 modes, 4 nodes, 1 tetrahedra, carton; render mesh 4 vertices, 2 normals, "
            "3 texcoords, 3 faces, 2 materials, 2 groups\n"
            "      index base: faces 0, groups 0 (FEND inclusive), tetrahedra 0, carton 0\n"
            "      mode 0: eigenvalue 100, 1.5915494 Hz\n"
            "      mode 1: eigenvalue 400, 3.1830988 Hz\n");
  EXPECT_EQ(to_json(s)["modedef"].dump(),
            R"({"kind":"model","models":[{"carton":true,"faces":3,"fend_inclusive":true,"file":"full.model",)"
                R"("groups":2,"index_base":{"carton":0,"faces":0,"groups":0,"tetrahedra":0},"materials":2,)"
                R"("modes":[{"eigenvalue":100.0,"frequency_hz":1.5915494},{"eigenvalue":400.0,"frequency_hz":3.1830988}],)"
                R"("nodes":4,"normals":2,"tetrahedra":1,"texcoords":3,"vertices":4}],"paths":[],"props":[]})");
}

TEST(Summary, ModeDefState) {
  const Summary s = summary_of(data("modedef/state/scene.state"));
  ASSERT_TRUE(s.modedef && s.modedef->state);
  const ModeDefStateSummary& st = *s.modedef->state;
  EXPECT_EQ(st.fps, 30);
  EXPECT_TRUE(st.use_penalty);
  EXPECT_EQ(st.gravity, (std::array<float, 3>{0, -9.8f, 0}));
  ASSERT_EQ(st.objects.size(), 3u);
  EXPECT_EQ(st.objects[1].prop, "./box.prop");
  EXPECT_EQ(st.objects[1].birth, 0.5f);
  EXPECT_EQ(st.planes, 2u);
  EXPECT_EQ(st.constraints, 2u);
  ASSERT_EQ(s.modedef->props.size(), 2u);
  EXPECT_EQ(s.modedef->props[0].mass, 2.5f);
  EXPECT_FALSE(s.modedef->props[0].deform);
  const std::string text = to_text(s);
  EXPECT_NE(text.find("  attachments: 2\n    \"constraint0\" at (1 2 3)\n    \"constraint1\" at (4 5 6)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  ModeDef state:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    prop \"box.prop\": model \"tri.obj\", mass 2.5, scale 2, rigid body\n"
                      "    prop \"props/ball.prop\": model \"../tri.model\", mass 1, scale 1, rigid body\n"
                      "    path \"fly.path\": 2 translation keys, 2 rotation keys\n"
                      "    state: 30 fps, gravity (0 -9.8 0), friction 0.3, 3 objects, 2 planes, 2 constraints\n"),
            std::string::npos)
      << text;
  const json j = to_json(s)["modedef"];
  EXPECT_EQ(j["kind"], "state");
  EXPECT_EQ(j["state"].dump(),
            R"({"constraints":2,"fps":30,"friction":0.3,"gravity":[0.0,-9.8,0.0],"objects":[)"
            R"({"birth":-1.0,"death":-1.0,"path":"fly.path","prop":"box.prop"},)"
            R"({"birth":0.5,"death":0.8,"path":"","prop":"./box.prop"},)"
            R"({"birth":-1.0,"death":-1.0,"path":"","prop":"props/ball.prop"}],"planes":2,"use_penalty":true})");
  EXPECT_EQ(j["paths"].dump(), R"([{"file":"fly.path","rotation_keys":2,"translation_keys":2}])");
}

// More than 16 modes: the text lists 16 and counts the rest; JSON has them all.
TEST(Summary, ModeDefManyModes) {
  ModeDefData md;
  md.models.push_back({"many.model", {}});
  for (int k = 0; k < 20; ++k) md.models[0].model.eigenvalues.push_back(float(k));
  Scene scene;
  scene.modedef = md;
  const Summary s = summarize(scene, Format::ModeDefModel);
  const std::string text = to_text(s);
  EXPECT_NE(text.find("      mode 15: eigenvalue 15, "), std::string::npos) << text;
  EXPECT_EQ(text.find("      mode 16:"), std::string::npos) << text;
  EXPECT_NE(text.find("      ... 4 more modes\n"), std::string::npos) << text;
  EXPECT_EQ(to_json(s)["modedef"]["models"][0]["modes"].size(), 20u);
  EXPECT_EQ(to_json(s)["modedef"]["models"][0]["modes"][0].dump(), R"({"eigenvalue":0.0,"frequency_hz":0.0})");
}

// ---- Scenes built in code: the parts no test file has --------------------------------------------

namespace {

Scene built() {
  Scene s;
  Material mat;
  mat.name = "m0";
  s.materials.push_back(mat);
  Mesh m;
  m.name = "tri";
  m.material = 5;  // past the list: no name, no crash
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  VertexStream custom = testutil::float_stream(Attribute::Custom, 1, {1, 2, 3});
  custom.name = "heat";
  m.streams.push_back(custom);
  m.triangles = {0, 1, 2};
  MorphTarget up;
  up.name = "up";
  up.positions.assign(9, 0.0f);
  m.morph_targets.push_back(up);
  s.meshes.push_back(m);
  s.joints.push_back({"root", -1, {}});
  Animation a;
  a.name = "keys";
  a.channels = 1;
  a.poses.resize(3);
  a.times = {0, 0.25f, 1.5f};
  a.interpolation = Interpolation::Step;
  a.morph_weights.push_back({0, {0, 1}, {0, 1}});
  a.morph_weights.push_back({0, {0, 1, 2, 3}, {0, 0, 0, 0}});
  s.animations.push_back(a);
  s.attachments.push_back({"socket", 0, 0, {}});
  s.attachments.back().transform.translation = {1.5f, -0.0f, 2};
  s.attachments.push_back({"loose", -1, 7, {}});  // joint out of range: neither mesh nor joint
  s.comment = "hello";
  s.iqm = IqmData{};
  IqmExtension ext;
  ext.name = "FTE_EVENT";
  ext.data.resize(12);
  s.iqm->extensions.push_back(ext);
  QmshBinaryData q;
  q.flags = 3;
  q.radius = 2.5f;
  q.animation_lengths = {1.25f, 0.1f};
  s.qmsh = q;
  return s;
}

}  // namespace

TEST(Summary, BuiltSceneNumbers) {
  const Summary s = summarize(built(), Format::Iqm);
  EXPECT_EQ(s.meshes[0].material, "");
  EXPECT_EQ(s.meshes[0].attributes, (std::vector<std::string>{"position", "heat"}));
  EXPECT_EQ(s.meshes[0].morph_targets, 1u);
  const AnimationSummary& a = s.animations[0];
  EXPECT_EQ(a.frames, 3u);
  EXPECT_EQ(a.interpolation, Interpolation::Step);
  EXPECT_EQ(a.morph_weight_tracks, 2u);
  EXPECT_EQ(a.morph_weight_keys, 4u);
  EXPECT_EQ(a.times, (std::vector<float>{0, 0.25f, 1.5f}));
  ASSERT_TRUE(a.bounds);
  EXPECT_EQ(a.bounds->max, (std::array<float, 3>{1, 1, 0}));
  EXPECT_EQ(s.comment_bytes, 5u);
  ASSERT_EQ(s.extensions.size(), 1u);
  EXPECT_EQ(s.extensions[0].name, "FTE_EVENT");
  EXPECT_EQ(s.extensions[0].bytes, 12u);
  EXPECT_EQ(s.attachments[0].mesh, std::optional<std::string>("tri"));
  EXPECT_EQ(s.attachments[0].joint, std::optional<std::string>("root"));
  EXPECT_FALSE(s.attachments[1].mesh || s.attachments[1].joint);
  ASSERT_TRUE(s.qmsh);
  EXPECT_TRUE(s.qmsh->tangents && s.qmsh->skinning);
}

TEST(Summary, BuiltSceneText) {
  Summary s = summarize(built(), Format::Iqm);
  EXPECT_EQ(to_text(s),
            "iqm (Inter-Quake Model (binary; v2 written, v1 and v2 read))\n"
            "  meshes: 1  vertices: 3  triangles: 1\n"
            "    \"tri\" material \"\": 3 vertices, 1 triangles [position heat], 1 morph targets\n"
            "  joints: 1\n"
            "  animations: 1\n"
            "    \"keys\": 3 frames at key times 0..1.5 s, step interpolation, 2 morph weight tracks\n"
            "  bounds: min (0 0 0) max (1 1 0)\n"
            "  comment: 5 bytes\n"
            "  extension \"FTE_EVENT\": 12 bytes\n"
            "  attachments: 2\n"
            "    \"socket\" on joint \"root\" at (1.5 -0 2)\n"
            "    \"loose\" at (0 0 0)\n"
            "  TFQMSH10: tangents, skinning, bounding radius 2.5\n");
  s.file = "x.iqm";
  EXPECT_EQ(to_text(s).substr(0, 11), "x.iqm: iqm ");
}

TEST(Summary, BuiltSceneJson) {
  EXPECT_EQ(to_json(summarize(built(), Format::Iqm)).dump(),
            R"({"animations":[{"bounds":{"max":[1.0,1.0,0.0],"min":[0.0,0.0,0.0],"radius":1.0},"framerate":0.0,)"
            R"("frames":3,"interpolation":"step","loop":false,"morph_weight_keys":4,"morph_weight_tracks":2,)"
            R"("name":"keys","times":[0.0,0.25,1.5]}],"attachments":[{"joint":"root","mesh":"tri","name":"socket",)"
            R"("translation":[1.5,0.0,2.0]},{"name":"loose","translation":[0.0,0.0,0.0]}],)"
            R"("bounds":{"max":[1.0,1.0,0.0],"min":[0.0,0.0,0.0]},"comment_bytes":5,)"
            R"("extensions":[{"bytes":12,"name":"FTE_EVENT"}],"format":"iqm","joints":1,"materials":["m0"],)"
            R"("meshes":[{"attributes":["position","heat"],"material":"","morph_targets":1,"name":"tri",)"
            R"("triangles":1,"vertices":3}],"qmsh":{"animation_lengths":[1.25,0.1],"radius":2.5,"skinning":true,)"
            R"("tangents":true},"triangles":1,"vertices":3})");
}

// An empty Scene: zeros, no bounds line, no animation bounds, every list present in JSON.
TEST(Summary, EmptyScene) {
  Scene scene;
  Animation a;
  a.name = "none";
  scene.animations.push_back(a);
  const Summary s = summarize(scene, Format::Obj);
  EXPECT_TRUE(s.bounds.empty);
  EXPECT_FALSE(s.animations[0].bounds);
  EXPECT_EQ(to_text(s),
            "obj (Wavefront OBJ with MTL materials)\n"
            "  meshes: 0  vertices: 0  triangles: 0\n"
            "  joints: 0\n"
            "  animations: 1\n"
            "    \"none\": 0 frames at 0 fps\n");
  EXPECT_EQ(to_json(s).dump(),
            R"({"animations":[{"framerate":0.0,"frames":0,"interpolation":"linear","loop":false,"name":"none"}],)"
            R"("attachments":[],"bounds":{"max":[0.0,0.0,0.0],"min":[0.0,0.0,0.0]},"comment_bytes":0,)"
            R"("extensions":[],"format":"obj","joints":0,"materials":[],"meshes":[],"triangles":0,"vertices":0})");
}

// ---- the CLI prints exactly the library's report --------------------------------------------------

TEST(Summary, CliInfoIsTheLibraryReport) {
  const std::string path = data("cli/turret.pie");
  const Scene scene = read(path);
  Summary s = summarize(scene, Format::Pie);
  s.file = path;
  // `info` adds where the textures are (none of them is beside the model).
  TextureSearch search;
  search.model_path = path;
  s.textures = find_textures(scene, search);
  ASSERT_EQ(s.textures->size(), 1u);
  EXPECT_FALSE(s.textures->at(0).found());
  testutil::CliRun text = testutil::run_cli("info " + path);
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_EQ(text.out, to_text(s));
  testutil::CliRun js = testutil::run_cli("info --json " + path);
  ASSERT_EQ(js.status, 0) << js.out;
  EXPECT_EQ(js.out, to_json(s).dump(2) + "\n");
}

// ---- the format list lives in one table (meshport::formats()) ------------------------------------

TEST(Summary, FormatListsComeFromTheTable) {
  const std::string names = format_names(false);
  EXPECT_EQ(names.substr(0, 15), "iqe, iqm, gltf,");
  const std::string table = formats_text();
  std::istringstream lines(table);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "format        read  write extensions description");
  for (const auto& f : formats()) {
    EXPECT_NE(names.find(std::string(f.name)), std::string::npos) << f.name;
    EXPECT_NE(format_names(true).find(std::string(f.name)), std::string::npos) << f.name;
    ASSERT_TRUE(std::getline(lines, line)) << f.name;
    EXPECT_EQ(line.substr(0, f.name.size()), f.name);
    EXPECT_NE(line.find(std::string(f.description)), std::string::npos) << line;
  }
  EXPECT_FALSE(std::getline(lines, line)) << "a line for no format: " << line;
  testutil::CliRun cli = testutil::run_cli("formats");
  EXPECT_EQ(cli.out, table);
  testutil::CliRun help = testutil::run_cli("convert --help");
  EXPECT_NE(help.out.find("qmsh-tmp"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("modedef-path"), std::string::npos) << help.out;
}

// The README's Formats table names every extension of the table (and is the one place by hand).
TEST(Summary, ReadmeNamesEveryFormatExtension) {
  std::ifstream in(std::string(MESHPORT_TEST_DATA) + "/../../README.md");
  ASSERT_TRUE(in);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string readme = buf.str();
  const size_t start = readme.find("## Formats"), end = readme.find("\n## ", start + 1);
  ASSERT_NE(start, std::string::npos);
  const std::string section = readme.substr(start, end - start);
  for (const auto& f : formats())
    for (auto e : f.extensions)
      EXPECT_NE(section.find("`" + std::string(e) + "`"), std::string::npos) << e;
}

}  // namespace meshport_test_summary
