// Textures where real games name them (issue 32): Red Eclipse's iqm.cfg reaching its skin and
// animations through `exec` and `iqmdir` (a data tree made here, cfg text written here after the
// layout of Red Eclipse 2's actors: player/male/iqm.cfg execs actors/player/player.cfg), the
// warning for a material whose texture is not found, and --texture for games that assign
// textures in code (raylib's guy.iqm and guytex.png).
#include <meshport/meshport.h>
#include <meshport/textures.h>

#include "image/image.h"
#include "image_samples.h"
#include "ops/materials/textures.h"
#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace meshport_test_textures_games {

using namespace meshport;
using testutil::TempDir;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// One textured triangle using material `material` ("": no material), with a one-joint skeleton.
Scene triangle(const std::string& material) {
  Scene s;
  s.joints.push_back({"root", -1, {}});
  Mesh m;
  m.name = "body";
  if (!material.empty()) {
    s.materials.push_back(testutil::material(material));
    m.material = 0;
  }
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  return s;
}

// The animation file: the same skeleton, one clip "Action" of 3 frames at 24 fps.
Scene action() {
  Scene s;
  s.joints.push_back({"root", -1, {}});
  Animation a;
  a.name = "Action";
  a.framerate = 24;
  a.channels = 1;
  for (int f = 0; f < 3; ++f) a.poses.push_back(testutil::trs({0, float(f), 0}));
  s.animations.push_back(std::move(a));
  return s;
}

const image::Pixels kSkin = image_samples::picture(2, 2);

// A Red Eclipse 2 data tree: data/actors/player/{player.cfg, diffuse.png, arm-deploy.iqm} and
// data/actors/player/male/{iqm.cfg, RE_Player_male.iqm}. Returns the model's path.
fs::path red_eclipse_tree(const fs::path& root) {
  const fs::path player = root / "data/actors/player";
  write_text(player / "male/iqm.cfg", "iqmload \"RE_Player_male.iqm\" player\nexec \"actors/player/player.cfg\"\n\n"
                                      "mdllod lod1 128\n");
  write_text(player / "player.cfg",
             "iqmdir \"actors/player\"\n"
             "\n"
             "iqmtag hand.R tag_weapon 0.1 -0.9 0.1 -90 0 -90\n"
             "iqmanim \"idle\" \"idle.iqm\" 10\n"
             "iqmanim \"switch\" \"arm-deploy.iqm\" 30\n"
             "iqmanim \"pistol|smg\" \"gun_pose1.iqm\" //\"gun_pose_default.iqm\"\n"
             "if (|| [strcmp (mdlname) \"actors/player/female/headless\"]) [\n"
             "    iqmskin * \"<dds>headless.png\" \"<dds>mask.png\" 0.25 0.0 1 0\n"
             "] [\n"
             "    iqmskin * \"<dds>diffuse.png\" \"<dds>mask.png\" 0.25 0.0 1 0\n"
             "]\n"
             "iqmbumpmap * \"<dds>norm.png\"\n");
  write_bytes(player / "diffuse.png", image::encode_png(kSkin));
  write(triangle("body"), (player / "male/RE_Player_male.iqm").string());
  write(action(), (player / "arm-deploy.iqm").string());
  return player / "male/RE_Player_male.iqm";
}

const TextureLookup* slot_of(const std::vector<TextureLookup>& l, const std::string& slot) {
  for (const TextureLookup& x : l)
    if (x.slot == slot) return &x;
  return nullptr;
}

std::string warnings_of(const Diagnostics& d) {
  std::string r;
  for (const Diagnostic& x : d.items)
    if (x.severity == Severity::Warning) r += x.message + "\n";
  return r;
}

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The embedded images of a .glb (its JSON chunk and buffer).
std::vector<std::vector<uint8_t>> glb_images(const fs::path& glb) {
  const std::vector<uint8_t> b = read_bytes(glb);
  uint32_t json_len = 0;
  std::memcpy(&json_len, b.data() + 12, 4);
  const nlohmann::json j = nlohmann::json::parse(b.begin() + 20, b.begin() + 20 + json_len);
  const size_t bin = 20 + json_len + 8;
  std::vector<std::vector<uint8_t>> out;
  for (const auto& img : j.value("images", nlohmann::json::array())) {
    const auto& v = j["bufferViews"][img["bufferView"].get<size_t>()];
    const size_t off = bin + v.value("byteOffset", size_t(0));
    out.emplace_back(b.begin() + std::ptrdiff_t(off), b.begin() + std::ptrdiff_t(off + v["byteLength"].get<size_t>()));
  }
  return out;
}

}  // namespace

// ---- Red Eclipse: exec, iqmdir, iqmanim -------------------------------------------------------

TEST(TexturesGames, RedEclipseSkinIsFoundThroughExecAndIqmdir) {
  TempDir t;
  const fs::path model = red_eclipse_tree(t.path);
  const Scene s = read(model.string());
  TextureSearch search;
  search.model_path = model.string();
  const std::vector<TextureLookup> l = find_textures(s, search);
  const TextureLookup* base = slot_of(l, "base colour");
  ASSERT_NE(base, nullptr);
  EXPECT_TRUE(base->found()) << base->reason;
  EXPECT_EQ(base->reference, "../diffuse.png");
  EXPECT_EQ(base->source, "../player.cfg:10");
  EXPECT_EQ(base->relative, "../diffuse.png");
  EXPECT_EQ(base->rule, "model folder");
  const TextureLookup* normal = slot_of(l, "normal");
  ASSERT_NE(normal, nullptr);
  EXPECT_FALSE(normal->found());
  EXPECT_EQ(normal->reference, "../norm.png");
  EXPECT_EQ(normal->source, "../player.cfg:12");

  const ops::IqmConfig cfg = ops::read_iqm_config(model.string());
  ASSERT_EQ(cfg.anims.size(), 3u);
  EXPECT_EQ(cfg.anims[1].names, std::vector<std::string>{"switch"});
  EXPECT_EQ(cfg.anims[1].file, "../arm-deploy.iqm");
  EXPECT_EQ(cfg.anims[1].fps, 30.0f);
  EXPECT_EQ(cfg.anims[1].source, "../player.cfg:5");
  EXPECT_EQ(cfg.anims[2].names, (std::vector<std::string>{"pistol", "smg"}));
  EXPECT_EQ(cfg.anims[2].fps, 0.0f);
  EXPECT_TRUE(cfg.notes.empty()) << cfg.notes.front();
}

TEST(TexturesGames, RedEclipseModelConvertsWithItsSkinEmbedded) {
  TempDir t;
  const fs::path model = red_eclipse_tree(t.path);
  Diagnostics d;
  convert({model.string()}, t / "out.glb", {}, &d);
  const auto images = glb_images(t.path / "out.glb");
  ASSERT_EQ(images.size(), 1u) << warnings_of(d);
  EXPECT_EQ(images[0], image::encode_png(kSkin));
}

TEST(TexturesGames, IqmCfgNamesAndRatesTheAttachedAnimations) {
  TempDir t;
  const fs::path model = red_eclipse_tree(t.path);
  Diagnostics d;
  convert({model.string(), (model.parent_path().parent_path() / "arm-deploy.iqm").string()}, t / "out.iqm", {}, &d);
  const Scene back = read(t / "out.iqm");
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].name, "switch");
  EXPECT_EQ(back.animations[0].framerate, 30.0f);
  EXPECT_EQ(back.animations[0].frame_count(), 3u);
  bool noted = false;
  for (const Diagnostic& x : d.items)
    noted |= x.severity == Severity::Note &&
             x.message == "clip 'Action' named 'switch', 30 frames per second (was 24) by ../player.cfg:5";
  EXPECT_TRUE(noted);
}

TEST(TexturesGames, ExecStaysInsideTheDataTreeAndIsBounded) {
  TempDir t;
  const fs::path male = t.path / "data/actors/player/male";
  write_text(t.path / "secret.cfg", "iqmskin * outside.png\n");
  write_text(t.path / "data/loop.cfg", "exec \"loop.cfg\"\n");
  write_text(male / "iqm.cfg",
             "exec \"../../../../secret.cfg\"\nexec \"/etc/x.cfg\"\nexec \"loop.cfg\"\nexec \"nowhere.cfg\"\n"
             "iqmdir \"../up\"\niqmskin * skin.png\n");
  const ops::IqmConfig cfg = ops::read_iqm_config((male / "m.iqm").string());
  ASSERT_EQ(cfg.skins.size(), 1u);
  EXPECT_EQ(cfg.skins[0].path, "skin.png");
  EXPECT_EQ(cfg.skins[0].line, 6u);
  ASSERT_EQ(cfg.notes.size(), 5u);
  EXPECT_EQ(cfg.notes[0], "iqm.cfg:1: exec \"../../../../secret.cfg\" not followed: outside the game's data tree");
  EXPECT_EQ(cfg.notes[1], "iqm.cfg:2: exec \"/etc/x.cfg\" not followed: outside the game's data tree");
  // loop.cfg execs itself: followed 3 more times, then the depth bound stops it.
  EXPECT_EQ(cfg.notes[2], "../../../loop.cfg:1: exec \"loop.cfg\" not followed: more than 4 nested");
  EXPECT_EQ(cfg.notes[3], "iqm.cfg:4: exec \"nowhere.cfg\" not found in a folder above the model's");
  EXPECT_EQ(cfg.notes[4], "iqm.cfg:5: iqmdir \"../up\" not followed: outside the game's data tree");
}

// ---- The warning for textures not found -------------------------------------------------------

TEST(TexturesGames, ConvertWarnsOncePerMaterialWhoseTextureIsNotFound) {
  TempDir t;
  write(triangle("body"), t / "guy.iqm");
  Diagnostics d;
  convert({t / "guy.iqm"}, t / "out.glb", {}, &d);
  const std::string w = warnings_of(d);
  EXPECT_EQ(count_of(w, "material 'body'"), 1u) << w;
  EXPECT_EQ(count_of(w, "material 'body': base colour texture 'body' (from material name) not found: no such file "
                        "in the model folder (also tried by file name, other extensions and any case) (looked for as "
                        "body, body.png, body.tga, body.jpg, body.jpeg, body.bmp, body.dds, body.pcx, body.psd in " +
                            t.path.generic_string() + "); the output has no texture there (--textures DIR adds a "
                                                      "folder to search, --texture body=FILE assigns a file)\n"),
            1u)
      << w;
}

TEST(TexturesGames, NoWarningWithoutAnyTextureReference) {
  TempDir t;
  // An OBJ material names no texture; its name is not a texture reference.
  write_text(t.path / "plain.obj", "mtllib plain.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl plain\nf 1 2 3\n");
  write_text(t.path / "plain.mtl", "newmtl plain\nKd 1 0 0\n");
  Diagnostics d;
  convert({t / "plain.obj"}, t / "out.glb", {}, &d);
  EXPECT_EQ(count_of(warnings_of(d), "not found"), 0u) << warnings_of(d);
  // An IQM whose mesh has no material.
  write(triangle(""), t / "bare.iqm");
  Diagnostics d2;
  convert({t / "bare.iqm"}, t / "out2.glb", {}, &d2);
  EXPECT_EQ(count_of(warnings_of(d2), "not found"), 0u) << warnings_of(d2);
}

TEST(TexturesGames, BatchWarnsAboutTheMissingTexture) {
  TempDir t;
  fs::create_directories(t.path / "in");
  write(triangle("body"), t / "in/guy.iqm");
  // The glTF writer warns (a batch to a format that names textures keeps the reference as the
  // model had it, and does not warn).
  for (const std::string to : {"glb", "gltf"}) {
    const testutil::CliRun r = testutil::run_cli("batch '" + t / "in" + "' -o '" + t / ("out-" + to) + "' --to " + to);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(count_of(r.out, "material 'body': base colour texture 'body' (from material name) not found"), 1u)
        << to << "\n" << r.out;
  }
}

// ---- --texture ------------------------------------------------------------------------------

TEST(TexturesGames, TextureOptionAssignsTheFileOverTheFinder) {
  TempDir t;
  write(triangle("guy"), t / "guy.iqm");
  const image::Pixels other = image_samples::picture(3, 1);
  write_bytes(t.path / "guy.png", image::encode_png(other));  // what the finder would take
  write_bytes(t.path / "tex/guytex.png", image::encode_png(kSkin));
  for (const std::string& arg : {std::string("--texture '") + t / "tex/guytex.png" + "'",
                                 std::string("--texture 'guy=") + t / "tex/guytex.png" + "'"}) {
    fs::remove(t.path / "out.glb");
    const testutil::CliRun r = testutil::run_cli("convert '" + t / "guy.iqm" + "' -o '" + t / "out.glb" + "' " + arg);
    ASSERT_EQ(r.status, 0) << r.out;
    const auto images = glb_images(t.path / "out.glb");
    ASSERT_EQ(images.size(), 1u) << arg;
    EXPECT_EQ(images[0], image::encode_png(kSkin)) << arg;
  }
}

TEST(TexturesGames, TextureOptionForAnUnknownMaterialIsAnError) {
  TempDir t;
  write(triangle("guy"), t / "guy.iqm");
  write_bytes(t.path / "guytex.png", image::encode_png(kSkin));
  testutil::CliRun r = testutil::run_cli("convert '" + t / "guy.iqm" + "' -o '" + t / "out.glb" + "' --texture 'body=" +
                                         t / "guytex.png" + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--texture body=" + t / "guytex.png" + ": the model has no material 'body' (its materials: 'guy')"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(t.path / "out.glb"));
  r = testutil::run_cli("convert '" + t / "guy.iqm" + "' -o '" + t / "out.glb" + "' --texture '" + t / "none.png" + "'");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--texture " + t / "none.png" + ": no such file"), std::string::npos) << r.out;
}

TEST(TexturesGames, AssignedTextureIsWhatInfoAndTheFinderReport) {
  TempDir t;
  write_bytes(t.path / "guytex.png", image::encode_png(kSkin));
  TextureSearch search;
  search.model_path = (t.path / "guy.iqm").string();
  search.assigned = {{"", (t.path / "guytex.png").string()}};
  const std::vector<TextureLookup> l = find_textures(triangle("guy"), search);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].source, "--texture");
  EXPECT_EQ(l[0].rule, "--texture");
  EXPECT_EQ(l[0].relative, "guytex.png");
}

// ---- TGA origin ---------------------------------------------------------------------------------

// mrfixit's Body.tga and Head.tga are uncompressed 24-bit TGAs with a bottom-left origin
// (descriptor 0x00). stb_image honours the origin bit and the PNG embedded is the picture top row
// first, as glTF samples it (v = 0 at the top, as IQM's texture coordinates are). A guard: this
// held before issue 32 too (the report was not reproduced; docs/textures.md, "TGA origin").
TEST(TexturesGames, BottomLeftTgaIsEmbeddedTopRowFirst) {
  TempDir t;
  const image::Pixels p = image_samples::picture(3, 2, /*alpha=*/false);
  write_bytes(t.path / "Body.tga", image_samples::tga(p, 24, /*rle=*/false, /*top_down=*/false));
  write_bytes(t.path / "Top.tga", image_samples::tga(p, 24, /*rle=*/false, /*top_down=*/true));
  for (const char* name : {"Body.tga", "Top.tga"}) {
    Scene s = triangle(name);
    s.materials[0].base_color_texture = name;
    write(s, t / "m.iqm");
    convert({t / "m.iqm"}, t / "out.glb");
    const auto images = glb_images(t.path / "out.glb");
    ASSERT_EQ(images.size(), 1u) << name;
    const image::DecodedImage d = image::decode_image(images[0], "", {});
    ASSERT_EQ(d.error, "") << name;
    EXPECT_EQ(d.pixels.rgba, p.rgba) << name;
  }
}

}  // namespace meshport_test_textures_games
