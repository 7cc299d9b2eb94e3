// `meshport thumbnail` over trees, the parts that need no browser (docs/viewer.md "Thumbnails"):
// the contact sheet, the page-only site (`?pool`), the outputs named by batch's planning, the
// up-to-date rule (no browser started when nothing is to draw) and the error when Chromium does
// not start. Drawing itself is tested in a browser: tests/viewer/thumbnail_tree_test.mjs.
#include "test_util.h"

#include "batch/plan.h"
#include "view/sheet.h"
#include "view/site.h"
#include "view/thumbnails.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace meshport_test_view_thumbnails {

using namespace meshport;
using namespace meshport::view;
using testutil::TempDir;
namespace fs = std::filesystem;

namespace {

std::array<uint8_t, 4> at(const image::Pixels& p, uint32_t x, uint32_t y) {
  const uint8_t* q = &p.rgba[(size_t(y) * p.width + x) * 4];
  return {q[0], q[1], q[2], q[3]};
}

image::Pixels filled(uint32_t size, std::array<uint8_t, 4> c) {
  image::Pixels p;
  p.width = p.height = size;
  for (uint32_t i = 0; i < size * size; ++i) p.rgba.insert(p.rgba.end(), c.begin(), c.end());
  return p;
}

constexpr std::array<uint8_t, 4> kBackground{0x20, 0x21, 0x24, 0xff};
constexpr std::array<uint8_t, 4> kText{0xe8, 0xea, 0xed, 0xff};
constexpr std::array<uint8_t, 4> kCross{0xd9, 0x30, 0x25, 0xff};

size_t count(const image::Pixels& p, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, std::array<uint8_t, 4> c) {
  size_t n = 0;
  for (uint32_t y = y0; y < y0 + h; ++y)
    for (uint32_t x = x0; x < x0 + w; ++x) n += at(p, x, y) == c;
  return n;
}

void touch(const std::string& path, fs::file_time_type t) {
  std::error_code ec;
  fs::last_write_time(path, t, ec);
  ASSERT_FALSE(ec) << path;
}

}  // namespace

TEST(ViewThumbnailSheet, GridOfPicturesWithNamesUnder) {
  // Three entries: 2 columns x 2 rows of 32 x (32 + 16) cells.
  std::vector<SheetEntry> entries(3);
  entries[0] = {"a.pie", filled(32, {255, 0, 0, 255})};
  entries[1] = {"b.iqm", filled(32, {0, 0, 255, 0})};  // transparent: the background shows
  entries[2] = {"failed.glb", {}};
  const image::Pixels s = contact_sheet(entries, 32);
  ASSERT_EQ(s.width, 64u);
  ASSERT_EQ(s.height, 2u * (32 + kSheetLabel));
  EXPECT_EQ(at(s, 0, 0), (std::array<uint8_t, 4>{255, 0, 0, 255}));
  EXPECT_EQ(at(s, 31, 31), (std::array<uint8_t, 4>{255, 0, 0, 255}));
  EXPECT_EQ(at(s, 32, 0), kBackground);
  EXPECT_EQ(count(s, 32, 0, 32, 32, kBackground), 32u * 32);
  // The failed model's cell: a red cross on its diagonals.
  EXPECT_EQ(at(s, 0, 48), kCross);
  EXPECT_EQ(at(s, 10, 58), kCross);
  EXPECT_EQ(at(s, 31, 48), kCross);
  // The fourth cell is empty: background only.
  EXPECT_EQ(count(s, 32, 48, 32, 48, kBackground), 32u * 48);
  // Every name is written under its picture, in the label band only.
  for (uint32_t cell = 0; cell < 3; ++cell) {
    const uint32_t x0 = cell % 2 * 32, y0 = cell / 2 * 48;
    EXPECT_GT(count(s, x0, y0 + 32, 32, 16, kText), 10u) << cell;
    EXPECT_EQ(count(s, x0, y0, 32, 32, kText), 0u) << cell;
  }
  // The text is stb_easy_font's: "a.pie" as it draws it, the same pixels as draw_text.
  image::Pixels label = filled(32, kBackground);
  const uint8_t text[4] = {kText[0], kText[1], kText[2], kText[3]};
  const int w = text_width("a.pie");
  draw_text(label, "a.pie", std::max(2, (32 - w) / 2), 4, text);
  for (uint32_t y = 0; y < 16; ++y)
    for (uint32_t x = 0; x < 32; ++x) EXPECT_EQ(at(s, x, 32 + y), at(label, x, y)) << x << "," << y;
}

TEST(ViewThumbnailSheet, LongNamesAreShortenedFromTheLeft) {
  std::vector<SheetEntry> entries(1);
  entries[0] = {"some/deep/folder/with/a/long/path/model.pie", filled(64, {0, 0, 0, 0})};
  const image::Pixels s = contact_sheet(entries, 64);
  image::Pixels expect = filled(64, kBackground);
  const uint8_t text[4] = {kText[0], kText[1], kText[2], kText[3]};
  // What fits in 60 pixels, "..." first.
  std::string fit = "some/deep/folder/with/a/long/path/model.pie";
  while (text_width("..." + fit) > 60) fit.erase(0, 1);
  ASSERT_LT(fit.size(), 20u);
  EXPECT_EQ(fit.substr(fit.size() - 9), "model.pie");
  draw_text(expect, "..." + fit, std::max(2, (64 - text_width("..." + fit)) / 2), 4, text);
  for (uint32_t y = 0; y < 16; ++y)
    for (uint32_t x = 0; x < 64; ++x) EXPECT_EQ(at(s, x, 64 + y), at(expect, x, y)) << x << "," << y;
}

TEST(ViewThumbnailSite, PageOnlySiteAndPoolParameter) {
  const Site site = make_page_site();
  EXPECT_EQ(site.routes.count("/"), 1u);
  EXPECT_EQ(site.routes.count("/viewer.js"), 1u);
  EXPECT_EQ(site.routes.count("/model.glb"), 0u);
  EXPECT_EQ(site.routes.count("/info.json"), 0u);
  Request r;
  r.method = "GET";
  r.path = r.target = "/";
  r.hosts = {"127.0.0.1:8000"};
  r.query = {{"thumbnail", "96"}, {"pool", ""}};
  EXPECT_EQ(respond(site, r, 8000).status, 200);
  r.query = {{"thumbnail", "96"}, {"pools", ""}};
  EXPECT_EQ(respond(site, r, 8000).status, 400);
  r.path = r.target = "/viewer.js";
  r.query = {{"pool", ""}};
  EXPECT_EQ(respond(site, r, 8000).status, 400);
  r.path = r.target = "/model.glb";
  r.query = {};
  EXPECT_EQ(respond(site, r, 8000).status, 404);
}

TEST(ViewThumbnailPlan, OutputsMirrorTheTreeAsPng) {
  TempDir dir;
  fs::create_directories(dir.path / "tree/units");
  fs::copy_file(fs::path(MESHPORT_TEST_DATA) / "cli/turret.pie", dir.path / "tree/units/turret.pie");
  fs::copy_file(fs::path(MESHPORT_TEST_DATA) / "cli/skinned.iqe", dir.path / "tree/skinned.iqe");
  fs::copy_file(fs::path(MESHPORT_TEST_DATA) / "qmsh/cube.qmsh.tmp", dir.path / "tree/cube.qmsh.tmp");
  BatchOptions b;
  b.inputs = {dir / "tree"};
  b.output_dir = dir / "out";
  b.to = Format::Glb;
  const auto items = batch_detail::plan(b, 1, ".png");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].relative, "cube.qmsh.tmp");
  EXPECT_EQ(items[0].output, (dir.path / "out/cube.png").generic_string());
  EXPECT_EQ(items[1].output, (dir.path / "out/skinned.png").generic_string());
  EXPECT_EQ(items[2].output, (dir.path / "out/units/turret.png").generic_string());
}

TEST(ViewThumbnailRun, UpToDateNeedsNoBrowserAndAMissingChromiumIsNamed) {
  TempDir dir;
  fs::create_directories(dir.path / "tree");
  fs::copy_file(fs::path(MESHPORT_TEST_DATA) / "cli/turret.pie", dir.path / "tree/turret.pie");
  ThumbnailOptions o;
  o.inputs = {dir / "tree"};
  o.output_dir = dir / "out";
  o.size = 64;
  o.chromium = dir / "no-such-chromium";
  // Something to draw and no Chromium: the run cannot start, and says why.
  try {
    thumbnails(o);
    FAIL() << "no error without chromium";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-chromium: error: chromium did not start"), std::string::npos)
        << e.what();
  }
  // The stamp was written; a PNG newer than the model and the stamp is up to date: skipped, and
  // no browser is started.
  EXPECT_EQ(testutil::slurp(dir.path / "out/.meshport-thumbnail"), thumbnail_fingerprint(o));
  std::ofstream(dir / "out/turret.png") << "png";
  const auto now = fs::file_time_type::clock::now();
  touch(dir / "tree/turret.pie", now - std::chrono::hours(2));
  touch(dir / "out/.meshport-thumbnail", now - std::chrono::hours(1));
  touch(dir / "out/turret.png", now);
  const BatchResult r = thumbnails(o);
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].status, BatchStatus::Skipped);
  EXPECT_EQ(r.items[0].note, "up to date");
  EXPECT_EQ(r.skipped, 1u);
  EXPECT_EQ(r.exit_code(), 0);
  // --force, a newer model, or another size: to draw again (and no Chromium: the error).
  o.force = true;
  EXPECT_THROW(thumbnails(o), Error);
  o.force = false;
  touch(dir / "tree/turret.pie", now + std::chrono::hours(1));
  EXPECT_THROW(thumbnails(o), Error);
  touch(dir / "tree/turret.pie", now - std::chrono::hours(2));
  EXPECT_EQ(thumbnails(o).skipped, 1u);
  o.size = 128;
  EXPECT_THROW(thumbnails(o), Error);
  EXPECT_NE(testutil::slurp(dir.path / "out/.meshport-thumbnail").find("thumbnail size 128\n"), std::string::npos);
}

}  // namespace meshport_test_view_thumbnails
