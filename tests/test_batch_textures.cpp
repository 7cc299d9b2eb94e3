// Texture pages shared by a batch's models (src/ops/materials/texture_cache.h, docs/batch.md,
// "Texture pages"): read once per run, outputs identical to converting each model alone,
// eviction, pages changed on disk, and --external-textures writing each page once.
#include <meshport/batch.h>

#include "glb_json.h"
#include "image/image.h"
#include "ops/materials/texture_cache.h"
#include "test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace meshport_test_batch_textures {

namespace fs = std::filesystem;
using namespace meshport;
using testutil::TempDir;

namespace {

const fs::path kData = fs::path(MESHPORT_TEST_DATA);

std::vector<uint8_t> bytes_of(const fs::path& p) {
  const std::string s = testutil::slurp(p);
  return {s.begin(), s.end()};
}

void place(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

// A Warzone 2100-shaped tree: three pages in base/texpages (a PNG, a TGA the writer converts, a
// JPEG), six models in base/components using them in turn (page i % 3), and two models in
// mp/components using the first two (the game mounts base/ under mp/).
constexpr int kBaseModels = 6, kMpModels = 2;
const char* const kPages[] = {"page-1-a", "page-2-b", "page-3-c"};

void make_tree(const fs::path& root) {
  place(kData / "images/rgba.png", root / "base/texpages/page-1-a.png");
  place(kData / "images/rgb24.tga", root / "base/texpages/page-2-b.tga");
  place(kData / "images/rgb.jpg", root / "base/texpages/page-3-c.jpg");
  std::string pie = testutil::slurp(kData / "cli/turret.pie");
  const std::string page = "page-17-droid-weapons.png";
  auto model = [&](const fs::path& to, int k) {
    std::string s = pie;
    s.replace(s.find(page), page.size(), std::string(kPages[k]) + ".png");
    fs::create_directories(to.parent_path());
    std::ofstream(to, std::ios::binary) << s;
  };
  for (int i = 0; i < kBaseModels; ++i) model(root / fmt::format("base/components/m{}.pie", i), i % 3);
  for (int i = 0; i < kMpModels; ++i) model(root / fmt::format("mp/components/n{}.pie", i), i % 2);
}

BatchOptions glb_batch(const fs::path& in, const fs::path& out) {
  BatchOptions o;
  o.inputs = {in.string()};
  o.output_dir = out.string();
  o.to = Format::Glb;
  o.jobs = 2;
  o.force = true;
  return o;
}

// Every .glb of the batch equals `meshport convert` of its model alone.
void expect_same_as_convert(const BatchResult& r, const fs::path& scratch) {
  ASSERT_EQ(r.items.size(), size_t(kBaseModels + kMpModels));
  for (const BatchItem& item : r.items) {
    ASSERT_EQ(item.status, BatchStatus::Done) << item.input;
    const fs::path alone = scratch / (fs::path(item.relative).stem().string() + ".glb");
    ConvertOptions o;
    o.write.sync = false;
    convert({item.input}, alone.string(), o, nullptr);
    EXPECT_EQ(bytes_of(item.output), bytes_of(alone)) << item.relative;
  }
}

TEST(BatchTextures, OutputsEqualConvertAndEachPageIsReadOnce) {
  TempDir t;
  make_tree(t.path / "in");
  const BatchResult r = batch(glb_batch(t.path / "in", t.path / "out"));
  EXPECT_EQ(r.texture_reads, 3u);  // three pages, eight models
  EXPECT_EQ(r.texture_hits, uint64_t(kBaseModels + kMpModels - 3));
  EXPECT_EQ(r.texture_conversions, 1u);  // the TGA, once
  EXPECT_EQ(r.texture_evictions, 0u);
  EXPECT_EQ(r.texture_pages_written, 0u);
  fs::create_directories(t.path / "alone");
  expect_same_as_convert(r, t.path / "alone");
}

TEST(BatchTextures, EvictionUnderASmallLimitKeepsOutputsIdentical) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = glb_batch(t.path / "in", t.path / "out");
  o.jobs = 1;          // one model at a time: each read evicts the page read before
  o.texture_memory = 1;
  const BatchResult r = batch(o);
  EXPECT_EQ(r.texture_reads, uint64_t(kBaseModels + kMpModels));
  EXPECT_EQ(r.texture_hits, 0u);
  EXPECT_EQ(r.texture_evictions, uint64_t(kBaseModels + kMpModels - 1));
  fs::create_directories(t.path / "alone");
  expect_same_as_convert(r, t.path / "alone");
}

TEST(BatchTextures, APageChangedOnDiskIsReadAgain) {
  TempDir t;
  const fs::path page = t.path / "page.png";
  place(kData / "images/rgba.png", page);
  TextureCache cache(uint64_t(1) << 30);
  const auto first = cache.get(page.string());
  EXPECT_EQ(cache.get(page.string()).get(), first.get());
  const std::vector<uint8_t> jpeg = bytes_of(kData / "images/rgb.jpg");
  place(kData / "images/rgb.jpg", page);
  fs::last_write_time(page, fs::last_write_time(page) + std::chrono::seconds(10));
  const auto second = cache.get(page.string());
  EXPECT_EQ(cache.stats().reads, 2u);
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(std::vector<uint8_t>(second->bytes().begin(), second->bytes().end()), jpeg);
  EXPECT_EQ(second->mime, "image/jpeg");
  EXPECT_NE(second.get(), first.get());
}

TEST(BatchTextures, AMissingPageIsAnErrorOfThePageNotACrash) {
  TempDir t;
  TextureCache cache(1 << 20);
  const auto missing = cache.get((t.path / "none.png").string());
  EXPECT_EQ(missing->read_error, "cannot read it: No such file or directory");
  EXPECT_EQ(cache.stats().reads, 0u);
}

// The image URI of a .glb, resolved against its folder.
fs::path image_file(const fs::path& glb) {
  const nlohmann::json j = testutil::glb_json(bytes_of(glb));
  EXPECT_EQ(j["images"].size(), 1u) << glb;
  return (glb.parent_path() / j["images"][0]["uri"].get<std::string>()).lexically_normal();
}

TEST(BatchTextures, ExternalTexturesAreWrittenOnceInTheMirroredTree) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = glb_batch(t.path / "in", t.path / "out");
  o.convert.write.external_textures = true;
  const BatchResult r = batch(o);
  EXPECT_EQ(r.texture_pages_written, 3u);
  EXPECT_EQ(r.texture_reads, 3u);
  const fs::path pages = t.path / "out/base/texpages";
  EXPECT_EQ(bytes_of(pages / "page-1-a.png"), bytes_of(t.path / "in/base/texpages/page-1-a.png"));
  EXPECT_EQ(bytes_of(pages / "page-3-c.jpg"), bytes_of(t.path / "in/base/texpages/page-3-c.jpg"));
  const std::vector<uint8_t> tga = bytes_of(t.path / "in/base/texpages/page-2-b.tga");
  EXPECT_EQ(bytes_of(pages / "page-2-b.png"), image::to_gltf_image(tga, "page-2-b.tga", image::ImageLimits{}).bytes);
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(t.path / "out"))
    files += e.is_regular_file() && e.path().extension() != ".glb" && e.path().filename() != ".meshport-batch";
  EXPECT_EQ(files, 3u);  // the three pages, nothing beside the models
  for (const BatchItem& item : r.items) {
    ASSERT_EQ(item.status, BatchStatus::Done) << item.input;
    const nlohmann::json j = testutil::glb_json(bytes_of(item.output));
    const std::string uri = j["images"][0]["uri"];
    const bool mp = item.relative.rfind("mp/", 0) == 0;
    EXPECT_EQ(uri.rfind(mp ? "../../base/texpages/page-" : "../texpages/page-", 0), 0u) << uri;
    EXPECT_TRUE(fs::exists(image_file(item.output))) << uri;
  }
  EXPECT_EQ(image_file(t.path / "out/base/components/m1.glb"), (pages / "page-2-b.png").lexically_normal());
  EXPECT_EQ(image_file(t.path / "out/mp/components/n0.glb"), (pages / "page-1-a.png").lexically_normal());
  std::string report;
  EXPECT_TRUE(testutil::validate_gltf({(t.path / "out/base/components/m0.glb").string(),
                                       (t.path / "out/base/components/m1.glb").string(),
                                       (t.path / "out/mp/components/n1.glb").string()},
                                      report))
      << report;
}

TEST(BatchTextures, ExternalPagesOutsideTheInputRootGoToTextures) {
  TempDir t;
  make_tree(t.path / "in");
  BatchOptions o = glb_batch(t.path / "in/mp", t.path / "out");  // base/texpages lies outside
  o.convert.write.external_textures = true;
  const BatchResult r = batch(o);
  EXPECT_EQ(r.texture_pages_written, 2u);
  ASSERT_EQ(r.items.size(), size_t(kMpModels));
  EXPECT_EQ(image_file(t.path / "out/components/n0.glb"), (t.path / "out/textures/page-1-a.png").lexically_normal());
  EXPECT_EQ(image_file(t.path / "out/components/n1.glb"), (t.path / "out/textures/page-2-b.png").lexically_normal());
  EXPECT_EQ(bytes_of(t.path / "out/textures/page-1-a.png"), bytes_of(t.path / "in/base/texpages/page-1-a.png"));
}

// .gltf outputs: with --external-textures each page once in the output tree, as for .glb;
// without it, the images beside every .gltf (each folder stands alone, as convert writes it).
TEST(BatchTextures, GltfOutputsShareThePagesWithExternalTextures) {
  TempDir t;
  make_tree(t.path / "in");
  for (const bool external : {true, false}) {
    const fs::path out = t.path / (external ? "shared" : "beside");
    BatchOptions o = glb_batch(t.path / "in", out);
    o.to = Format::Gltf;
    o.convert.write.external_textures = external;
    const BatchResult r = batch(o);
    EXPECT_EQ(r.texture_pages_written, external ? 3u : 0u);
    EXPECT_EQ(r.texture_reads, 3u);
    size_t images = 0;
    for (const auto& e : fs::recursive_directory_iterator(out)) {
      const std::string ext = e.path().extension().string();
      images += e.is_regular_file() && (ext == ".png" || ext == ".jpg");
    }
    EXPECT_EQ(images, external ? 3u : 3u + 2u) << out;  // beside: the pages each folder's models use
    ASSERT_EQ(r.items.size(), size_t(kBaseModels + kMpModels));
    for (const BatchItem& item : r.items) {
      ASSERT_EQ(item.status, BatchStatus::Done) << item.input;
      const nlohmann::json j = nlohmann::json::parse(testutil::slurp(item.output));
      ASSERT_EQ(j["images"].size(), 1u) << item.output;
      const std::string uri = j["images"][0]["uri"];
      const bool mp = item.relative.rfind("mp/", 0) == 0;
      if (external)
        EXPECT_EQ(uri.rfind(mp ? "../../base/texpages/page-" : "../texpages/page-", 0), 0u) << uri;
      else
        EXPECT_EQ(uri.find('/'), std::string::npos) << uri;
      EXPECT_TRUE(fs::exists(fs::path(item.output).parent_path() / uri)) << uri;
    }
  }
  EXPECT_EQ(bytes_of(t.path / "shared/base/texpages/page-1-a.png"), bytes_of(t.path / "in/base/texpages/page-1-a.png"));
}

}  // namespace

}  // namespace meshport_test_batch_textures
