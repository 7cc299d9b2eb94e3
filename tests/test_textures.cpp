// Finding textures (textures.h, docs/textures.md, "Finding textures"): every rule on folders the tests build,
// the reasons when nothing is found, the sidecar parsers, `info` listing them, the CLI's
// --textures, and the PIE reader / writer filling and using the map slots.
#include <meshport/meshport.h>
#include <meshport/summary.h>
#include <meshport/textures.h>

#include "ops/materials/textures.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace meshport_test_textures {

using namespace meshport;
using testutil::TempDir;
namespace fs = std::filesystem;

namespace {

// A tiny file (content does not matter for finding).
void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << "12345678";
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// One triangle mesh per name, all using material 0.
Scene scene_with(Material m, std::vector<std::string> meshes = {"body"}) {
  Scene s;
  s.materials.push_back(std::move(m));
  for (const std::string& n : meshes) {
    Mesh mesh;
    mesh.name = n;
    mesh.material = 0;
    s.meshes.push_back(mesh);
  }
  return s;
}

TextureSearch search_for(const fs::path& model, std::vector<std::string> dirs = {}) {
  TextureSearch s;
  s.model_path = model.string();
  s.dirs = std::move(dirs);
  return s;
}

const TextureLookup& only(const std::vector<TextureLookup>& l) {
  EXPECT_EQ(l.size(), 1u);
  return l.at(0);
}

const std::string kPie = "PIE 3\nTYPE 10200\nTEXTURE 0 page-7-barbarians-arizona.png 0 0\n"
                         "NORMALMAP 0 page-7_normal.png\nLEVELS 1\nLEVEL 1\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\n"
                         "POLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n";

}  // namespace

// ---- Folders and names ------------------------------------------------------------------------

TEST(Textures, ModelFolderFirst) {
  TempDir t;
  touch(t.path / "skin.png");
  auto l = find_textures(scene_with(testutil::material("m", "skin.png")), search_for(t.path / "m.iqe"));
  const TextureLookup& x = only(l);
  EXPECT_TRUE(x.found());
  EXPECT_EQ(x.material, 0);
  EXPECT_EQ(x.slot, "base colour");
  EXPECT_EQ(x.source, "material");
  EXPECT_EQ(x.rule, "model folder");
  EXPECT_EQ(x.file, (t.path / "skin.png").generic_string());
  EXPECT_EQ(x.relative, "skin.png");
  EXPECT_EQ(x.reason, "");
}

TEST(Textures, RelativePathWithBackslashesThenFileNameOnly) {
  TempDir t;
  touch(t.path / "textures" / "body.tga");
  auto a = find_textures(scene_with(testutil::material("m", "textures\\body.tga")), search_for(t.path / "m.iqe"));
  EXPECT_EQ(only(a).rule, "model folder");
  EXPECT_EQ(only(a).relative, "textures/body.tga");
  // An absolute reference is never opened as such: its file name is looked for.
  touch(t.path / "body.tga");
  auto b = find_textures(scene_with(testutil::material("m", "C:\\art\\body.tga")), search_for(t.path / "m.iqe"));
  EXPECT_EQ(only(b).rule, "model folder, file name only");
  EXPECT_EQ(only(b).relative, "body.tga");
  auto c = find_textures(scene_with(testutil::material("m", "/home/artist/body.tga")), search_for(t.path / "m.iqe"));
  EXPECT_EQ(only(c).relative, "body.tga");
}

TEST(Textures, SearchFoldersInOrderAfterTheModelFolder) {
  TempDir t;
  touch(t.path / "one" / "x.png");
  touch(t.path / "two" / "x.png");
  touch(t.path / "two" / "y.png");
  Scene s = scene_with(testutil::material("a", "x.png"));
  s.materials.push_back(testutil::material("b", "y.png"));
  auto l = find_textures(s, search_for(t.path / "model" / "m.iqe", {t / "one", t / "two"}));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].rule, "texture folder 1");
  EXPECT_EQ(l[0].relative, "../one/x.png");
  EXPECT_EQ(l[1].rule, "texture folder 2");
  EXPECT_EQ(l[1].relative, "../two/y.png");
  // The model's own folder wins over both.
  touch(t.path / "model" / "x.png");
  l = find_textures(s, search_for(t.path / "model" / "m.iqe", {t / "one", t / "two"}));
  EXPECT_EQ(l[0].rule, "model folder");
}

TEST(Textures, CaseInsensitiveNames) {
  TempDir t;
  touch(t.path / "Tex" / "skin.png");
  auto l = find_textures(scene_with(testutil::material("m", "tex/SKIN.PNG")), search_for(t.path / "m.iqe"));
  EXPECT_EQ(only(l).rule, "model folder, case differs");
  EXPECT_EQ(only(l).relative, "Tex/skin.png");
}

TEST(Textures, StemTriesImageExtensionsInOrder) {
  TempDir t;
  touch(t.path / "body.tga");
  touch(t.path / "body.dds");
  // A reference whose file is not there tries its stem with the other extensions.
  auto a = find_textures(scene_with(testutil::material("m", "body.png")), search_for(t.path / "m.iqe"));
  EXPECT_EQ(only(a).rule, "model folder, extension .tga");
  EXPECT_EQ(only(a).relative, "body.tga");
  // A material name (IQM/IQE/QMSH) without a texture slot: a stem.
  auto b = find_textures(scene_with(testutil::material("body")), search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(b).source, "material name");
  EXPECT_EQ(only(b).reference, "body");
  EXPECT_EQ(only(b).rule, "model folder, extension .tga");
  // .png comes first.
  touch(t.path / "body.png");
  auto c = find_textures(scene_with(testutil::material("body")), search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(c).relative, "body.png");
  // A name that is a path without extension.
  touch(t.path / "skins" / "arm.jpg");
  auto d = find_textures(scene_with(testutil::material("skins/arm")), search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(d).rule, "model folder, extension .jpg");
  EXPECT_EQ(only(d).relative, "skins/arm.jpg");
}

TEST(Textures, EmbeddedImagesAreInTheScene) {
  TempDir t;
  Scene s = scene_with(testutil::material("m", "image0.png"));
  Image img;
  img.path = "image0.png";
  img.mime_type = "image/png";
  s.images.push_back(img);
  auto l = find_textures(s, search_for(t.path / "m.glb"));
  EXPECT_EQ(only(l).image, 0);
  EXPECT_EQ(only(l).rule, "embedded");
  EXPECT_TRUE(only(l).found());
  EXPECT_EQ(only(l).file, "");
}

TEST(Textures, NotFoundSaysWhereItLooked) {
  TempDir t;
  fs::create_directories(t.path / "dir");
  Material m = testutil::material("m", "skin.png");
  m.normal_texture = "skin_n.png";
  auto l = find_textures(scene_with(m), search_for(t.path / "m.iqe", {t / "dir"}));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_FALSE(l[0].found());
  EXPECT_EQ(l[0].reason,
            "no such file in the model folder, texture folder 1 (also tried by file name, other extensions and any "
            "case)");
  EXPECT_EQ(l[1].slot, "normal");
  EXPECT_EQ(l[1].reference, "skin_n.png");
  // Without a model and folders there is nothing to search.
  auto n = find_textures(scene_with(m), TextureSearch{});
  EXPECT_EQ(n[0].reason, "no folder to search");
  // Materials without any reference and without a name give nothing.
  EXPECT_TRUE(find_textures(scene_with(Material{}), search_for(t.path / "m.iqe")).empty());
}

// ---- Warzone 2100 data trees ------------------------------------------------------------------

TEST(Textures, WarzoneTexpagesAboveComponents) {
  TempDir t;
  const fs::path model = t.path / "data" / "base" / "components" / "bodies" / "x.pie";
  write_text(model, kPie);
  touch(t.path / "data" / "base" / "texpages" / "page-7-barbarians-arizona.png");
  touch(t.path / "data" / "base" / "texpages" / "page-7_normal.png");
  touch(t.path / "data" / "base" / "texpages" / "page-7_tcmask.png");
  Scene s = read(model.string());
  auto l = find_textures(s, search_for(model));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].slot, "base colour");
  EXPECT_EQ(l[0].rule, "Warzone 2100 texpages");
  EXPECT_EQ(l[0].relative, "../../texpages/page-7-barbarians-arizona.png");
  EXPECT_EQ(l[1].slot, "normal");
  EXPECT_EQ(l[1].relative, "../../texpages/page-7_normal.png");
  // TYPE 10200 names the team colour mask the engine derives.
  EXPECT_EQ(l[2].slot, "team colour");
  EXPECT_EQ(l[2].reference, "page-7_tcmask.png");
  EXPECT_EQ(l[2].relative, "../../texpages/page-7_tcmask.png");
}

TEST(Textures, WarzoneMpTreeFallsBackToBase) {
  TempDir t;
  const fs::path model = t.path / "data" / "mp" / "structs" / "x.pie";
  write_text(model, kPie);
  touch(t.path / "data" / "base" / "texpages" / "page-7-barbarians-arizona.png");
  auto l = find_textures(read(model.string()), search_for(model));
  EXPECT_EQ(l.at(0).rule, "Warzone 2100 texpages");
  EXPECT_EQ(l.at(0).relative, "../../base/texpages/page-7-barbarians-arizona.png");
  // The mp tree's own texpages come first.
  touch(t.path / "data" / "mp" / "texpages" / "page-7-barbarians-arizona.png");
  l = find_textures(read(model.string()), search_for(model));
  EXPECT_EQ(l.at(0).relative, "../texpages/page-7-barbarians-arizona.png");
}

TEST(Textures, NoLayoutOutsideADataTree) {
  TempDir t;
  const fs::path model = t.path / "models" / "x.pie";
  write_text(model, kPie);
  touch(t.path / "texpages" / "page-7-barbarians-arizona.png");
  auto l = find_textures(read(model.string()), search_for(model));
  EXPECT_FALSE(l.at(0).found());
}

// ---- Sidecars ---------------------------------------------------------------------------------

TEST(Textures, ParseIqmCfg) {
  auto e = ops::parse_iqm_cfg("// skins\n"
                              "iqmskin body \"<dds>skins/body.png\" masks.png // trailing\n"
                              "iqmskin \"head\" skins/head.png; iqmbumpmap * \"skins/all n.png\"\n"
                              "iqmload other.iqm\n"
                              "iqmskin body ignored.png\n"
                              "iqmload \"M.IQM\"\n"
                              "iqmbumpmap head head_n.png\n",
                              "m.iqm");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].mesh, "body");
  EXPECT_EQ(e[0].path, "skins/body.png");
  EXPECT_EQ(e[0].slot, "base colour");
  EXPECT_EQ(e[0].line, 2u);
  EXPECT_EQ(e[1].mesh, "head");
  EXPECT_EQ(e[1].line, 3u);
  EXPECT_EQ(e[2].mesh, "*");
  EXPECT_EQ(e[2].slot, "normal");
  EXPECT_EQ(e[2].path, "skins/all n.png");
  EXPECT_EQ(e[3].path, "head_n.png");
  EXPECT_EQ(e[3].line, 7u);
}

TEST(Textures, ParseSkin) {
  auto e = ops::parse_skin("body,models/m/body.tga\r\n"
                           "tag_weapon,\n"
                           "  head , models/m/head.tga // comment\n"
                           "replace \"visor\" \"models/m/visor.tga\"\n"
                           "empty,\n"
                           "no comma\n");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].mesh, "body");
  EXPECT_EQ(e[0].path, "models/m/body.tga");
  EXPECT_EQ(e[1].mesh, "head");
  EXPECT_EQ(e[1].path, "models/m/head.tga");
  EXPECT_EQ(e[1].line, 3u);
  EXPECT_EQ(e[2].mesh, "visor");
  EXPECT_EQ(e[2].path, "models/m/visor.tga");
}

TEST(Textures, IqmCfgNamesSkinsAndBumpMapsPerMesh) {
  TempDir t;
  write_text(t.path / "iqm.cfg",
             "iqmload m.iqm\niqmskin body skins/body.png masks.png\niqmbumpmap * \"skins/body_n.png\"\n");
  touch(t.path / "skins" / "body.png");
  touch(t.path / "skins" / "body_n.png");
  Scene s = scene_with(testutil::material("mat", "mat.tga"), {"body"});
  auto l = find_textures(s, search_for(t.path / "m.iqm"));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].slot, "base colour");
  EXPECT_EQ(l[0].source, "iqm.cfg:2");
  EXPECT_EQ(l[0].reference, "skins/body.png");
  EXPECT_EQ(l[0].relative, "skins/body.png");
  EXPECT_EQ(l[1].slot, "normal");
  EXPECT_EQ(l[1].source, "iqm.cfg:3");
  EXPECT_EQ(l[1].relative, "skins/body_n.png");
  // Not for an IQE model (Tesseract reads iqm.cfg for .iqm files).
  auto e = find_textures(s, search_for(t.path / "m.iqe"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].source, "material");
}

TEST(Textures, SidecarConflictsAndFallBackToTheMaterial) {
  TempDir t;
  write_text(t.path / "iqm.cfg", "iqmskin body a.png\niqmskin head b.png\n");
  touch(t.path / "a.png");
  Scene s = scene_with(testutil::material("mat", "mat.tga"), {"body", "head"});
  auto l = find_textures(s, search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(l).reference, "a.png");
  EXPECT_EQ(only(l).note,
            "iqm.cfg names different textures for the meshes of this material: \"body\" a.png, \"head\" b.png; the "
            "first is used");
  // The sidecar's file missing: the material's own reference is tried next.
  write_text(t.path / "iqm.cfg", "iqmskin * missing.png\n");
  touch(t.path / "mat.tga");
  l = find_textures(s, search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(l).source, "material");
  EXPECT_EQ(only(l).relative, "mat.tga");
  // Neither: both reasons.
  fs::remove(t.path / "mat.tga");
  l = find_textures(s, search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(l).reason,
            "iqm.cfg:1 \"missing.png\": no such file in the model folder (also tried by file name, other extensions "
            "and any case); material \"mat.tga\": no such file in the model folder (also tried by file name, other "
            "extensions and any case)");
}

TEST(Textures, Quake3SkinFilesBesideTheModel) {
  TempDir t;
  write_text(t.path / "m_default.skin", "tag_head,\nBODY,models/players/m/body.tga\n");
  touch(t.path / "body.tga");
  Scene s = scene_with(testutil::material("mat"), {"body"});
  auto l = find_textures(s, search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(l).source, "m_default.skin:2");
  EXPECT_EQ(only(l).rule, "model folder, file name only");
  EXPECT_EQ(only(l).relative, "body.tga");
  // <stem>.skin comes before <stem>_default.skin.
  write_text(t.path / "m.skin", "body,other.tga\n");
  touch(t.path / "other.tga");
  l = find_textures(s, search_for(t.path / "m.iqm"));
  EXPECT_EQ(only(l).source, "m.skin:1");
  EXPECT_EQ(only(l).relative, "other.tga");
}

// ---- Options ----------------------------------------------------------------------------------

TEST(Textures, SearchFromWriteOptions) {
  WriteOptions o;
  o.texture_dir = "in";
  o.texture_dirs = {"a", "b"};
  TextureSearch s = texture_search(o);
  EXPECT_EQ(s.model_path, "");
  EXPECT_EQ(s.dirs, (std::vector<std::string>{"in", "a", "b"}));
  o.texture_model = "in/m.pie";
  s = texture_search(o);
  EXPECT_EQ(s.model_path, "in/m.pie");
  EXPECT_EQ(s.dirs, (std::vector<std::string>{"a", "b"}));
}

// ---- info and the CLI ---------------------------------------------------------------------------

TEST(Textures, InfoListsEveryMaterialsTextures) {
  TempDir t;
  const fs::path model = t.path / "data" / "base" / "structs" / "x.pie";
  write_text(model, kPie);
  touch(t.path / "data" / "base" / "texpages" / "page-7-barbarians-arizona.png");
  touch(t.path / "extra" / "PAGE-7_normal.png");
  testutil::CliRun r = testutil::run_cli("info " + model.string() + " --textures " + (t / "extra"));
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string section =
      "  textures:\n"
      "    \"page-7-barbarians-arizona\" base colour \"page-7-barbarians-arizona.png\": Warzone 2100 texpages: "
      "../texpages/page-7-barbarians-arizona.png\n"
      "    \"page-7-barbarians-arizona\" normal \"page-7_normal.png\": texture folder 1, case differs: "
      "../../../extra/PAGE-7_normal.png\n"
      "    \"page-7-barbarians-arizona\" team colour \"page-7_tcmask.png\": not found: no such file in the model "
      "folder, texture folder 1, Warzone 2100 texpages (also tried by file name, other extensions and any case)\n";
  EXPECT_NE(r.out.find(section), std::string::npos) << r.out;
  // The rest of the report is unchanged.
  Summary s = summarize(read(model.string()), Format::Pie);
  s.file = model.string();
  EXPECT_EQ(r.out.substr(0, to_text(s).size()), to_text(s));
  // JSON: the path relative to the model's folder, never absolute.
  testutil::CliRun j = testutil::run_cli("info --json " + model.string() + " --textures " + (t / "extra"));
  ASSERT_EQ(j.status, 0) << j.out;
  auto js = nlohmann::json::parse(j.out);
  ASSERT_EQ(js["textures"].size(), 3u);
  EXPECT_EQ(js["textures"][0]["file"], "../texpages/page-7-barbarians-arizona.png");
  EXPECT_EQ(js["textures"][0]["rule"], "Warzone 2100 texpages");
  EXPECT_EQ(js["textures"][2]["found"], false);
  EXPECT_EQ(j.out.find(t.path.string()), std::string::npos) << j.out;
}

TEST(Textures, InfoSaysWhenAMaterialHasNoTextures) {
  Summary s;
  s.format = Format::Obj;
  s.materials = {"plain"};
  s.textures = std::vector<TextureLookup>{};
  EXPECT_EQ(to_text(s).substr(to_text(s).find("  textures:")), "  textures:\n    \"plain\": no textures\n");
}

TEST(Textures, CliConvertSearchesTexturesFolders) {
  TempDir t;
  write_text(t.path / "in" / "m.iqe",
             "# Inter-Quake Export\nmesh body\nmaterial skin\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n"
             "fm 0 1 2\n");
  touch(t.path / "art" / "skin.tga");
  testutil::CliRun r =
      testutil::run_cli("convert -q " + (t / "in/m.iqe") + " -o " + (t / "out/m.obj") + " --textures " + (t / "art"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(testutil::slurp(t.path / "out" / "m.mtl").find("map_Kd ../art/skin.tga\n"), std::string::npos)
      << testutil::slurp(t.path / "out" / "m.mtl");
  // Without --textures nothing is found and the name stays as it was.
  r = testutil::run_cli("convert -q " + (t / "in/m.iqe") + " -o " + (t / "out/n.obj"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(testutil::slurp(t.path / "out" / "n.mtl").find("map_Kd"), std::string::npos);
}

// ---- PIE map slots ------------------------------------------------------------------------------

TEST(TexturesPie, ReaderFillsMapSlotsGlobalAndPerLevel) {
  const std::string text = "PIE 4\nTYPE 200\nTEXTURE 0 page-1.png\nTCMASK 0 page-1_tcmask.png\n"
                           "NORMALMAP 0 page-1_nm.png\nSPECULARMAP 0 page-1_sm.png\nLEVELS 2\n"
                           "LEVEL 1\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n"
                           "LEVEL 2\nNORMALMAP 0 page-1_nm2.png\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\n"
                           "POLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n";
  Scene s = read_memory({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, Format::Pie, "m.pie");
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "page-1");
  EXPECT_EQ(s.materials[0].base_color_texture, "page-1.png");
  EXPECT_EQ(s.materials[0].team_colour_texture, "page-1_tcmask.png");
  EXPECT_EQ(s.materials[0].normal_texture, "page-1_nm.png");
  EXPECT_EQ(s.materials[0].specular_texture, "page-1_sm.png");
  // Level 2 overrides its normal map: its own material, the rest from the global lines.
  EXPECT_EQ(s.materials[1].name, "page-1_level2");
  EXPECT_EQ(s.materials[1].normal_texture, "page-1_nm2.png");
  EXPECT_EQ(s.materials[1].team_colour_texture, "page-1_tcmask.png");
  EXPECT_EQ(s.meshes[0].material, 0);
  EXPECT_EQ(s.meshes[1].material, 1);
  // PIE -> PIE is unchanged.
  auto back = write_memory(s, Format::Pie);
  EXPECT_EQ(std::string(back.begin(), back.end()), text);
}

TEST(TexturesPie, WriterDerivesMapLinesFromTheSlots) {
  Scene s;
  Material m = testutil::material("body", "textures/page-3-body.png");
  m.normal_texture = "page-3_nm.png";
  m.team_colour_texture = "page-3_tcmask.png";
  m.specular_texture = "spec.tga";  // not a PIE page: left out with a warning
  s.materials.push_back(m);
  Mesh mesh;
  mesh.name = "body";
  mesh.material = 0;
  mesh.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  mesh.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}));
  mesh.triangles = {0, 1, 2};
  s.meshes.push_back(mesh);
  Diagnostics d;
  auto bytes = write_memory(s, Format::Pie, {}, &d);
  const std::string text(bytes.begin(), bytes.end());
  EXPECT_EQ(text.substr(0, text.find("LEVELS")),
            "PIE 4\nTYPE 200\nTEXTURE 0 page-3-body.png\nTCMASK 0 page-3_tcmask.png\nNORMALMAP 0 page-3_nm.png\n");
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_NE(d.items[0].message.find("specular map \"spec.tga\" is not a PIE page name"), std::string::npos)
      << d.items[0].message;
  // Read back: the slots again.
  Scene back = read_memory(bytes, Format::Pie, "m.pie");
  EXPECT_EQ(back.materials.at(0).normal_texture, "page-3_nm.png");
  EXPECT_EQ(back.materials.at(0).team_colour_texture, "page-3_tcmask.png");
  // PIE 3: the mask the engine derives is said by TYPE 10200 instead of a TCMASK line.
  WriteOptions o;
  o.pie_version = 3;
  auto b3 = write_memory(s, Format::Pie, o);
  const std::string t3(b3.begin(), b3.end());
  EXPECT_EQ(t3.substr(0, t3.find("LEVELS")), "PIE 3\nTYPE 10200\nTEXTURE 0 page-3-body.png\nNORMALMAP 0 page-3_nm.png\n");
  EXPECT_EQ(read_memory(b3, Format::Pie, "m.pie").materials.at(0).team_colour_texture, "page-3_tcmask.png");
}

TEST(TexturesPie, EditedMapsReplaceTheKeptLines) {
  const std::string text = "PIE 4\nTYPE 200\nTEXTURE 0 page-1.png\nTEXTURE 1 page-1-urban.png\n"
                           "NORMALMAP 0 page-1_nm.png\nLEVELS 1\n"
                           "LEVEL 1\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n";
  Scene s = read_memory({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, Format::Pie, "m.pie");
  // A slot emptied on the way (a format without normal maps) keeps the kept lines.
  Scene emptied = s;
  emptied.materials[0].normal_texture.clear();
  auto e = write_memory(emptied, Format::Pie);
  EXPECT_EQ(std::string(e.begin(), e.end()), text);
  // A new normal map replaces the kept map lines; TEXTURE lines stay.
  s.materials[0].normal_texture = "page-1_new.png";
  Diagnostics d;
  auto b = write_memory(s, Format::Pie, {}, &d);
  const std::string t(b.begin(), b.end());
  EXPECT_EQ(t.substr(0, t.find("LEVELS")),
            "PIE 4\nTYPE 200\nTEXTURE 0 page-1.png\nTEXTURE 1 page-1-urban.png\nNORMALMAP 0 page-1_new.png\n");
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].message,
            "mesh \"m_level1\": its material names the NORMALMAP page \"page-1_new.png\", which the kept PIE texture "
            "lines do not: TCMASK, NORMALMAP and SPECULARMAP written from the materials");
}

}  // namespace meshport_test_textures
