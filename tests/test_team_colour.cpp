// ops/team_colour: Warzone 2100's grain merge of a team colour into a texture page.
#include "ops/materials/team_colour.h"

#include <gtest/gtest.h>

namespace meshport_test_team_colour {

using namespace meshport;

namespace {

image::Pixels pixels(uint32_t w, uint32_t h, std::vector<uint8_t> rgba) {
  image::Pixels p;
  p.width = w;
  p.height = h;
  p.rgba = std::move(rgba);
  return p;
}

}  // namespace

TEST(TeamColour, GrainMergeByMaskAlpha) {
  // Three texels: no mask, full mask, half mask (alpha 128).
  image::Pixels page = pixels(3, 1, {100, 100, 100, 255, 100, 100, 100, 200, 250, 10, 128, 7});
  const image::Pixels mask = pixels(3, 1, {9, 9, 9, 0, 0, 0, 0, 255, 0, 0, 0, 128});
  ASSERT_EQ(ops::apply_team_colour(page, mask, {255, 0, 128}), "");
  // Full mask: 100 + (255 - 127.5) = 227.5 -> 228; 100 - 127.5 -> 0 (clamped at -27.5); 100 + 0.5.
  // Half mask: 250 + 127.5 * 128/255 = 314 -> 255; 10 - 64 -> 0; 128 + 0.25 -> 128.
  EXPECT_EQ(page.rgba, (std::vector<uint8_t>{100, 100, 100, 255, 228, 0, 101, 200, 255, 0, 128, 7}));
}

TEST(TeamColour, MaskOfAnotherSizeIsSampledAtTheNearestTexel) {
  image::Pixels page = pixels(4, 2, std::vector<uint8_t>(4 * 2 * 4, 0));
  // A 2x1 mask: left half masked, right half not.
  const image::Pixels mask = pixels(2, 1, {0, 0, 0, 255, 0, 0, 0, 0});
  ASSERT_EQ(ops::apply_team_colour(page, mask, {255, 255, 255}), "");
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 4; ++x) EXPECT_EQ(page.rgba[(y * 4 + x) * 4], x < 2 ? 128 : 0) << x << "," << y;
}

TEST(TeamColour, EmptyImagesAreRefused) {
  image::Pixels page = pixels(1, 1, {1, 2, 3, 4});
  EXPECT_EQ(ops::apply_team_colour(page, image::Pixels{}, {1, 2, 3}), "the team colour mask has no pixels");
  image::Pixels empty;
  EXPECT_EQ(ops::apply_team_colour(empty, page, {1, 2, 3}), "the texture page has no pixels");
}

TEST(TeamColour, ParsesThreeBytes) {
  std::array<uint8_t, 3> c{};
  ASSERT_TRUE(ops::parse_team_colour("0,128,255", c));
  EXPECT_EQ(c, (std::array<uint8_t, 3>{0, 128, 255}));
  for (const char* bad : {"", "1,2", "1,2,3,4", "1,2,256", "a,b,c", "1, 2,3", "-1,2,3", "1,2,3 "})
    EXPECT_FALSE(ops::parse_team_colour(bad, c)) << bad;
}

}  // namespace meshport_test_team_colour
