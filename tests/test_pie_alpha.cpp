// PIE alpha and blending (docs/pie.md "Alpha and blending") and the team colour mask embedded in
// the .glb (docs/gltf-obj.md): TYPE 0x2 / 0x4 and the engine's alpha test become the material's
// alphaMode, glTF -> PIE restores the TYPE, and the TCMASK page travels inside the .glb and is
// written back beside the PIE.
#include <meshport/diff.h>

#include "glb_json.h"
#include "test_util.h"

#include "image/image.h"
#include "image_samples.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace meshport_test_pie_alpha {

using namespace meshport;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

Scene read_pie(const std::string& text, Diagnostics* d = nullptr) {
  return read_memory(bytes_of(text), Format::Pie, "tree.pie", d);
}

// A one-level PIE 4 quad on `page` with the given TYPE, and optional extra header lines.
std::string quad(const std::string& type, const std::string& page = "page-7-barbarians-arizona.png",
                 const std::string& extra = "") {
  return "PIE 4\nTYPE " + type + "\nTEXTURE 0 " + page + " 256 256\n" + extra +
         "LEVELS 1\nLEVEL 1\nPOINTS 4\n\t0 0 0\n\t10 0 0\n\t10 10 0\n\t0 10 0\n"
         "POLYGONS 2\n\t200 3 0 1 2 0 1 1 1 1 0\n\t200 3 0 2 3 0 1 1 0 0 0\n";
}


std::string type_line(const std::vector<uint8_t>& pie) {
  const std::string s(pie.begin(), pie.end());
  const size_t at = s.find("TYPE ");
  return s.substr(at, s.find('\n', at) - at);
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const auto& x : d.items)
    if (x.message.find(part) != std::string::npos) return true;
  return false;
}

std::string all_messages(const Diagnostics& d) {
  std::string r;
  for (const auto& x : d.items) r += x.message + "\n";
  return r;
}


fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("meshport_pie_alpha_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void put_file(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> file_bytes(const fs::path& p) {
  const std::string s = testutil::slurp(p);
  return {s.begin(), s.end()};
}

}  // namespace

// ---- TYPE -> material alpha -------------------------------------------------------------------

TEST(PieAlpha, TypeFlagsGiveTheMaterialsAlpha) {
  const Scene plain = read_pie(quad("200"));
  ASSERT_EQ(plain.materials.size(), 1u);
  EXPECT_EQ(plain.materials[0].alpha_mode, AlphaMode::Mask);  // the engine's alpha test
  EXPECT_EQ(plain.materials[0].alpha_cutoff, 0.5f);
  EXPECT_EQ(plain.materials[0].blend, BlendOp::Over);

  const Scene additive = read_pie(quad("10202"));
  EXPECT_EQ(additive.materials[0].alpha_mode, AlphaMode::Blend);
  EXPECT_EQ(additive.materials[0].blend, BlendOp::Additive);

  // 0x4 wins over 0x2 (the engine: premultiplied turns additive off).
  for (const char* t : {"204", "206"}) {
    const Scene pre = read_pie(quad(t));
    EXPECT_EQ(pre.materials[0].alpha_mode, AlphaMode::Blend) << t;
    EXPECT_EQ(pre.materials[0].blend, BlendOp::Premultiplied) << t;
  }
  // 0x1 (no additive) alone changes nothing for a model.
  EXPECT_EQ(read_pie(quad("201")).materials[0], plain.materials[0]);
}

TEST(PieAlpha, ALevelWithItsOwnBlendingGetsItsOwnMaterial) {
  const std::string text =
      "PIE 4\nTYPE 200\nTEXTURE 0 page-7-barbarians-arizona.png 256 256\nLEVELS 2\n"
      "LEVEL 1\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t1 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 1 1\n"
      "LEVEL 2\nTYPE 202\nPOINTS 3\n\t0 0 0\n\t1 0 0\n\t1 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 1 1\n";
  const Scene s = read_pie(text);
  ASSERT_EQ(s.materials.size(), 2u);
  ASSERT_EQ(s.meshes.size(), 2u);
  const Material& one = s.materials[size_t(s.meshes[0].material)];
  const Material& two = s.materials[size_t(s.meshes[1].material)];
  EXPECT_EQ(one.alpha_mode, AlphaMode::Mask);
  EXPECT_EQ(two.alpha_mode, AlphaMode::Blend);
  EXPECT_EQ(two.blend, BlendOp::Additive);
  EXPECT_EQ(two.name, "page-7-barbarians-arizona_level2");
  EXPECT_EQ(two.base_color_texture, one.base_color_texture);
}

// ---- through glTF -----------------------------------------------------------------------------

TEST(PieAlpha, GlbSaysMaskOrBlendAndPieComesBackWithItsType) {
  for (const char* type : {"200", "202", "204", "10200"}) {
    SCOPED_TRACE(type);
    Diagnostics d;
    const Scene a = read_pie(quad(type), &d);
    const std::vector<uint8_t> glb = write_memory(a, Format::Glb, {}, &d);
    const json doc = testutil::glb_json(glb);
    const json& m = doc["materials"][0];
    const uint32_t t = uint32_t(std::stoul(type, nullptr, 16));
    if (t & 6) {
      EXPECT_EQ(m["alphaMode"], "BLEND");
      EXPECT_EQ(m["extras"]["meshport"]["blend"], t & 4 ? "premultiplied" : "additive");
    } else {
      EXPECT_EQ(m["alphaMode"], "MASK");
      EXPECT_FALSE(m.contains("alphaCutoff"));  // 0.5 is glTF's default
      EXPECT_FALSE(m["extras"]["meshport"].contains("blend"));
    }
    const Scene b = read_memory(glb, Format::Glb, "tree.glb", &d);
    EXPECT_EQ(b.materials[0].alpha_mode, a.materials[0].alpha_mode);
    EXPECT_EQ(b.materials[0].blend, a.materials[0].blend);
    EXPECT_EQ(b.materials[0].alpha_cutoff, 0.5f);
    EXPECT_EQ(type_line(write_memory(b, Format::Pie, {}, &d)), std::string("TYPE ") + type);

    // Without meshport's PIE data (a glTF from another tool, or edited): the TYPE comes from the
    // material alone.
    Scene c = b;
    c.pie.reset();
    for (Mesh& mesh : c.meshes) mesh.face_channels.clear();
    Diagnostics dc;
    EXPECT_EQ(type_line(write_memory(c, Format::Pie, {}, &dc)), std::string("TYPE ") + (t & 6 ? type : "200"));
    EXPECT_FALSE(has_warning(dc, "Warzone 2100 draws")) << all_messages(dc);
  }
}

TEST(PieAlpha, GltfAlphaIsReadAndWrittenForEveryFormatsMaterials) {
  Scene s;
  for (int i = 0; i < 3; ++i) {
    Mesh m;
    m.name = "tri" + std::to_string(i);
    m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
    m.triangles = {0, 1, 2};
    s.meshes.push_back(std::move(m));
  }
  s.materials = {testutil::material("cut"), testutil::material("glass"), testutil::material("plain")};
  s.materials[0].alpha_mode = AlphaMode::Mask;
  s.materials[0].alpha_cutoff = 0.25f;
  s.materials[1].alpha_mode = AlphaMode::Blend;
  for (size_t i = 0; i < 3; ++i) s.meshes[i].material = int32_t(i);
  Diagnostics d;
  const std::vector<uint8_t> glb = write_memory(s, Format::Glb, {}, &d);
  const json doc = testutil::glb_json(glb);
  EXPECT_EQ(doc["materials"][0]["alphaMode"], "MASK");
  EXPECT_EQ(doc["materials"][0]["alphaCutoff"], 0.25);
  EXPECT_EQ(doc["materials"][1]["alphaMode"], "BLEND");
  EXPECT_FALSE(doc["materials"][2].contains("alphaMode"));
  const Scene b = read_memory(glb, Format::Glb, "m.glb", &d);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b.materials[i].alpha_mode, s.materials[i].alpha_mode) << i;
    EXPECT_EQ(b.materials[i].alpha_cutoff, s.materials[i].alpha_cutoff) << i;
  }
}

TEST(PieAlpha, AlphaThePieTypeCannotSayIsAWarning) {
  Scene s = read_pie(quad("200"));
  s.pie.reset();
  for (Mesh& mesh : s.meshes) mesh.face_channels.clear();
  s.materials[0].alpha_mode = AlphaMode::Blend;  // straight alpha: no PIE TYPE draws it
  Diagnostics d;
  EXPECT_EQ(type_line(write_memory(s, Format::Pie, {}, &d)), "TYPE 200");
  EXPECT_TRUE(has_warning(d, "material \"page-7-barbarians-arizona\" is blended (over), but Warzone 2100 draws level 1 "
                             "of TYPE 200 cut out below alpha 0.5"))
      << all_messages(d);

  // A Scene from PIE keeps its TYPE; a material changed since (in Blender, say) is named.
  Scene p = read_pie(quad("200"));
  p.materials[0].alpha_mode = AlphaMode::Mask;
  p.materials[0].alpha_cutoff = 0.1f;
  Diagnostics dp;
  EXPECT_EQ(type_line(write_memory(p, Format::Pie, {}, &dp)), "TYPE 200");
  EXPECT_TRUE(has_warning(dp, "is cut out below alpha 0.1, but Warzone 2100 draws level 1 of TYPE 200 cut out below "
                              "alpha 0.5"))
      << all_messages(dp);
}

TEST(PieAlpha, DiffNamesAnAlphaChange) {
  const Scene a = read_pie(quad("200"));
  Scene b = a;
  b.materials[0].alpha_mode = AlphaMode::Blend;
  b.materials[0].blend = BlendOp::Additive;
  bool found = false;
  for (const Difference& x : diff(a, b))
    if (x.path.find(".alpha") != std::string::npos) {
      found = true;
      EXPECT_EQ(x.a, "MASK 0.5");
      EXPECT_EQ(x.b, "BLEND additive");
    }
  EXPECT_TRUE(found);
}

// ---- the team colour mask inside the .glb -----------------------------------------------------

struct TeamFiles {
  fs::path dir;
  std::vector<uint8_t> page, mask;
};

// A TYPE 10200 quad whose TCMASK page is found beside it.
TeamFiles team_model(const std::string& name) {
  TeamFiles t;
  t.dir = fresh_dir(name);
  image::Pixels page = image_samples::picture(4, 4, false);
  image::Pixels mask = image_samples::picture(4, 4, true);
  t.page = image::encode_png(page);
  t.mask = image::encode_png(mask);
  put_file(t.dir / "page-14-droid-hubs.png", t.page);
  put_file(t.dir / "page-14_tcmask.png", t.mask);
  std::ofstream(t.dir / "hub.pie") << quad("10200", "page-14-droid-hubs.png");
  return t;
}

// What convert gives the writer: the model it read, whose folder is searched.
WriteOptions model_options(const TeamFiles& t) {
  WriteOptions o;
  o.texture_model = (t.dir / "hub.pie").string();
  return o;
}

TEST(PieTeamColour, MaskIsEmbeddedInTheGlbAndWrittenBackBesideThePie) {
  const TeamFiles t = team_model("embed");
  Diagnostics d;
  const Scene a = read((t.dir / "hub.pie").string(), {}, &d);
  ASSERT_EQ(a.materials.size(), 1u);
  EXPECT_EQ(a.materials[0].team_colour_texture, "page-14_tcmask.png");
  write(a, (t.dir / "hub.glb").string(), model_options(t), &d);
  EXPECT_FALSE(has_warning(d, "team colour")) << all_messages(d);

  const std::vector<uint8_t> glb = file_bytes(t.dir / "hub.glb");
  const json doc = testutil::glb_json(glb);
  ASSERT_EQ(doc["images"].size(), 2u);
  const json& extras = doc["materials"][0]["extras"]["meshport"];
  ASSERT_TRUE(extras.contains("team_colour_image"));
  const size_t index = extras["team_colour_image"].get<size_t>();
  EXPECT_EQ(doc["images"][index]["name"], "page-14_tcmask");
  EXPECT_NE(doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"].get<size_t>(), index);
  std::string out;
  EXPECT_TRUE(testutil::validate_gltf({(t.dir / "hub.glb").string()}, out)) << out;

  // On its own (no page files beside it): the .glb reads with the mask as a Scene image, and a
  // PIE written from it in another folder gets the mask file beside it, byte for byte.
  const fs::path other = fresh_dir("embed_out");
  fs::copy_file(t.dir / "hub.glb", other / "hub.glb");
  Diagnostics d2;
  const Scene b = read((other / "hub.glb").string(), {}, &d2);
  EXPECT_EQ(b.materials[0].team_colour_texture, "page-14_tcmask.png");
  const auto img = std::find_if(b.images.begin(), b.images.end(),
                                [](const Image& i) { return i.path == "page-14_tcmask.png"; });
  ASSERT_NE(img, b.images.end());
  EXPECT_EQ(img->data, t.mask);
  write(b, (other / "back.pie").string(), {}, &d2);
  ASSERT_TRUE(fs::exists(other / "page-14_tcmask.png"));
  EXPECT_EQ(file_bytes(other / "page-14_tcmask.png"), t.mask);
  EXPECT_EQ(file_bytes(other / "page-14-droid-hubs.png"), t.page);
  const std::string pie = testutil::slurp(other / "back.pie");
  EXPECT_NE(pie.find("TYPE 10200"), std::string::npos) << pie;
  fs::remove_all(t.dir);
  fs::remove_all(other);
}

TEST(PieTeamColour, AMaskIndexAToolRenumberedIsFoundByName) {
  const TeamFiles t = team_model("renumbered");
  Diagnostics d;
  const Scene a = read((t.dir / "hub.pie").string(), {}, &d);
  std::vector<uint8_t> glb = write_memory(a, Format::Glb, model_options(t), &d);
  // Swap the two images (and the textures' sources), as a tool keeping only some might.
  json doc = testutil::glb_json(glb);
  std::swap(doc["images"][0], doc["images"][1]);
  for (json& tex : doc["textures"]) tex["source"] = 1 - tex["source"].get<int>();
  Scene b = read_memory(testutil::with_glb_json(glb, doc), Format::Glb, "hub.glb", &d);
  auto mask = std::find_if(b.images.begin(), b.images.end(),
                           [&](const Image& i) { return i.path == b.materials[0].team_colour_texture; });
  ASSERT_NE(mask, b.images.end());
  EXPECT_EQ(mask->data, t.mask);

  // No image of the mask's name: the material keeps the name, with a warning.
  doc["images"][1]["name"] = "something-else";
  doc["images"][0]["name"] = "something";
  Diagnostics d2;
  Scene c = read_memory(testutil::with_glb_json(glb, doc), Format::Glb, "hub.glb", &d2);
  EXPECT_EQ(c.materials[0].team_colour_texture, "page-14_tcmask.png");
  EXPECT_TRUE(has_warning(d2, "team_colour_image: 1 is not an image named 'page-14_tcmask.png'"))
      << all_messages(d2);
  fs::remove_all(t.dir);
}

TEST(PieTeamColour, AMaskNotFoundIsAWarningAtConvert) {
  const TeamFiles t = team_model("missing");
  fs::remove(t.dir / "page-14_tcmask.png");
  Diagnostics d;
  const Scene a = read((t.dir / "hub.pie").string(), {}, &d);
  write(a, (t.dir / "hub.glb").string(), model_options(t), &d);
  EXPECT_TRUE(has_warning(d, "team colour texture 'page-14_tcmask.png' not found"))
      << all_messages(d);
  EXPECT_EQ(testutil::glb_json(file_bytes(t.dir / "hub.glb"))["images"].size(), 1u);
  fs::remove_all(t.dir);
}

}  // namespace meshport_test_pie_alpha
