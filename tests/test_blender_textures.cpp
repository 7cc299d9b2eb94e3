// Converted models look right where users look (issue 17): a Warzone 2100-like tree made here
// converts to a .glb whose textures Blender 3.4's importer shows, pixel for pixel
// (tests/blender/textures.py, headless), and the Blender round trip brings the pages back to PIE.
// Blender is a test dependency: without it these tests fail.
#include <meshport/meshport.h>

#include "image/image.h"
#include "image_samples.h"
#include "test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_blender_textures {

using namespace meshport;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kBlender = std::string(MESHPORT_TEST_DATA) + "/../blender/";

std::string run(const std::string& cmd) {
  std::string log;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return log;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  ::pclose(p);
  return log;
}

// What Blender's materials take from image textures (tests/blender/textures.py).
json blender_textures(const std::string& glb) {
  const std::string log =
      run("blender -b --factory-startup --python-exit-code 1 --python '" + kBlender + "textures.py' -- '" + glb + "'");
  const size_t at = log.find("meshport-textures:");
  if (at == std::string::npos) {
    ADD_FAILURE() << "Blender printed no textures:\n" << log;
    return json::object();
  }
  const size_t end = log.find('\n', at);
  return json::parse(log.substr(at + 18, end == std::string::npos ? std::string::npos : end - at - 18));
}

void write_file(const fs::path& p, const std::vector<uint8_t>& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Blender keeps rows bottom to top; `p` is top to bottom. Every RGB value equal, alpha 255.
void expect_same_pixels(const json& got, const image::Pixels& p, const std::string& what) {
  ASSERT_TRUE(got.is_object()) << what;
  ASSERT_EQ(got["width"], p.width) << what;
  ASSERT_EQ(got["height"], p.height) << what;
  const std::vector<int> px = got["pixels"].get<std::vector<int>>();
  ASSERT_EQ(px.size(), size_t(p.width) * p.height * 4) << what;
  for (uint32_t y = 0; y < p.height; ++y)
    for (uint32_t x = 0; x < p.width; ++x) {
      const uint8_t* want = image_samples::at(p, x, p.height - 1 - y);
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(px[(size_t(y) * p.width + x) * 4 + size_t(c)], want[c]) << what << " pixel " << x << "," << y;
    }
}

const char* kPie =
    "PIE 4\nTYPE 200\nTEXTURE 0 page-7-test.png\nNORMALMAP 0 page-7-test_nm.png\nLEVELS 1\nLEVEL 1\n"
    "POINTS 4\n\t0 0 0\n\t10 0 0\n\t10 10 0\n\t0 10 0\n"
    "POLYGONS 2\n\t200 3 0 1 2 0 0 1 0 1 1\n\t200 3 0 2 3 0 0 1 1 0 1\n";

}  // namespace

TEST(BlenderTextures, WarzoneTreeShowsItsPagesInBlender) {
  testutil::TempDir d;
  const image::Pixels page = image_samples::picture(4, 3, false);
  image::Pixels normal = image_samples::picture(2, 2, false);
  for (size_t i = 0; i < normal.rgba.size(); i += 4) normal.rgba[i + 2] = 255;  // mostly +Z
  write_file(d.path / "data/texpages/page-7-test.png", image::encode_png(page));
  // The normal map is a TGA: converted to PNG on the way into the .glb.
  write_file(d.path / "data/texpages/page-7-test_nm.tga", image_samples::tga(normal, 24, false));
  write_file(d.path / "data/components/bodies/body.pie", std::vector<uint8_t>(kPie, kPie + std::strlen(kPie)));

  Diagnostics diags;
  const std::string glb = d / "body.glb";
  convert({(d.path / "data/components/bodies/body.pie").string()}, glb, {}, &diags);
  for (const auto& item : diags.items) EXPECT_EQ(item.message.find("not"), std::string::npos) << item.message;

  const json mats = blender_textures(glb);
  ASSERT_TRUE(mats.contains("page-7-test")) << mats.dump();
  expect_same_pixels(mats["page-7-test"]["Base Color"], page, "base colour");
  expect_same_pixels(mats["page-7-test"]["Normal"], normal, "normal map");
}

// .glb -> Blender import and glTF export -> PIE: the page comes back as the PIE names it,
// beside the output, with the same pixels.
TEST(BlenderTextures, PagesComeBackToPieThroughBlender) {
  testutil::TempDir d;
  const image::Pixels page = image_samples::picture(4, 3, false);
  write_file(d.path / "data/texpages/page-7-test.png", image::encode_png(page));
  write_file(d.path / "data/texpages/page-7-test_nm.png", image::encode_png(image_samples::picture(2, 2, false)));
  write_file(d.path / "data/components/bodies/body.pie", std::vector<uint8_t>(kPie, kPie + std::strlen(kPie)));
  const std::string glb = d / "body.glb", back = d / "back.glb";
  convert({(d.path / "data/components/bodies/body.pie").string()}, glb);
  const std::string log = run("blender -b --factory-startup --python-exit-code 1 --python '" + kBlender +
                              "roundtrip.py' -- --fps 24 '" + glb + "' '" + back + "'");
  ASSERT_TRUE(fs::exists(back)) << log;
  fs::create_directories(d.path / "out");
  const std::string pie = d / "out/body.pie";
  convert({back}, pie);
  const std::string text = testutil::slurp(pie);
  EXPECT_NE(text.find("TEXTURE 0 page-7-test.png"), std::string::npos) << text;
  EXPECT_NE(text.find("NORMALMAP 0 page-7-test_nm.png"), std::string::npos) << text;
  ASSERT_TRUE(fs::exists(d.path / "out/page-7-test.png"));
  const std::string png = testutil::slurp(d.path / "out/page-7-test.png");
  const image::DecodedImage got =
      image::decode_image({reinterpret_cast<const uint8_t*>(png.data()), png.size()}, "page-7-test.png", {});
  ASSERT_EQ(got.error, "");
  EXPECT_EQ(got.pixels.width, page.width);
  EXPECT_EQ(got.pixels.height, page.height);
  EXPECT_EQ(got.pixels.rgba, page.rgba);
  EXPECT_TRUE(fs::exists(d.path / "out/page-7-test_nm.png"));
}

}  // namespace meshport_test_blender_textures
