// src/image: detection, decoding (stb formats and the hand-written PCX and DDS decoders) with
// exact pixels, PNG encoding, the glTF conversion, the memory limit and hostile input.
#include "image/image.h"
#include "image_samples.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace meshport_test_image {

using namespace meshport::image;
using namespace image_samples;

namespace {

const ImageLimits kLimits;

Pixels decode_ok(const Bytes& b, std::string_view name = "") {
  DecodedImage d = decode_image(b, name, kLimits);
  EXPECT_EQ(d.error, "");
  return d.pixels;
}

std::string decode_error(const Bytes& b, std::string_view name = "") {
  DecodedImage d = decode_image(b, name, kLimits);
  EXPECT_TRUE(d.pixels.rgba.empty());
  return d.error;
}

std::vector<uint8_t> px(const Pixels& p, uint32_t x, uint32_t y) { return {at(p, x, y), at(p, x, y) + 4}; }

Pixels opaque(Pixels p) {
  for (size_t i = 3; i < p.rgba.size(); i += 4) p.rgba[i] = 255;
  return p;
}

}  // namespace

TEST(ImageDetect, MagicsAndTgaHint) {
  const Pixels p = picture(3, 2);
  EXPECT_EQ(detect_image(png(p), ""), ImageFormat::Png);
  EXPECT_EQ(detect_image(jpeg(p), ""), ImageFormat::Jpeg);
  EXPECT_EQ(detect_image(bmp(p, 24), ""), ImageFormat::Bmp);
  EXPECT_EQ(detect_image(psd(p, 3), ""), ImageFormat::Psd);
  EXPECT_EQ(detect_image(gif_red_pixel(), ""), ImageFormat::Gif);
  EXPECT_EQ(detect_image(pcx_rgb(p, 3), ""), ImageFormat::Pcx);
  EXPECT_EQ(detect_image(dds_bgra(p), ""), ImageFormat::Dds);
  // TGA: a sane header without a name, or any bytes named .tga.
  EXPECT_EQ(detect_image(tga(p, 24, false), ""), ImageFormat::Tga);
  const Bytes junk = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  EXPECT_EQ(detect_image(junk, ""), ImageFormat::Unknown);
  EXPECT_EQ(detect_image(junk, "skins/Body.TGA"), ImageFormat::Tga);
  // The magic wins over the name.
  EXPECT_EQ(detect_image(png(p), "looks_like.tga"), ImageFormat::Png);
  EXPECT_EQ(format_name(ImageFormat::Dds), "DDS");
}

TEST(ImageDecode, PngEncodeDecodeIsExact) {
  const Pixels p = picture(5, 3);
  const Bytes b = encode_png(p);
  ASSERT_GT(b.size(), 8u);
  const Pixels d = decode_ok(b);
  EXPECT_EQ(d.width, 5u);
  EXPECT_EQ(d.height, 3u);
  EXPECT_EQ(d.rgba, p.rgba);
  EXPECT_TRUE(encode_png(Pixels{2, 2, std::vector<uint8_t>(15)}).empty());  // wrong size
  EXPECT_TRUE(encode_png(Pixels{}).empty());
}

TEST(ImageDecode, TgaUncompressedAndRle) {
  const Pixels p = picture(5, 3);
  EXPECT_EQ(decode_ok(tga(p, 32, false)).rgba, p.rgba);
  EXPECT_EQ(decode_ok(tga(p, 32, true)).rgba, p.rgba);
  EXPECT_EQ(decode_ok(tga(p, 32, false, /*top_down=*/false)).rgba, p.rgba);
  EXPECT_EQ(decode_ok(tga(p, 24, false)).rgba, opaque(p).rgba);
  // RLE with real runs: a 130 x 2 picture of one colour per row (run packets cross 128).
  Pixels runs{130, 2, {}};
  for (uint32_t i = 0; i < 260; ++i) runs.rgba.insert(runs.rgba.end(), {uint8_t(i < 130 ? 9 : 200), 7, 5, 255});
  const Bytes rle = tga(runs, 24, true);
  EXPECT_LT(rle.size(), 18u + 6 * 4);  // 4 run packets of 4 bytes
  EXPECT_EQ(decode_ok(rle).rgba, runs.rgba);
}

TEST(ImageDecode, Bmp24And32) {
  const Pixels p = picture(5, 3);  // 5 pixels: 24-bit rows are padded to 16 bytes
  EXPECT_EQ(decode_ok(bmp(p, 24)).rgba, opaque(p).rgba);
  EXPECT_EQ(decode_ok(bmp(p, 32)).rgba, p.rgba);
}

TEST(ImageDecode, PsdAndGif) {
  const Pixels p = picture(4, 3);
  EXPECT_EQ(decode_ok(psd(p, 3)).rgba, opaque(p).rgba);
  EXPECT_EQ(decode_ok(psd(opaque(p), 4)).rgba, opaque(p).rgba);
  // With alpha, Photoshop's merged colours lie over white: stored c' = c a + 255 (1 - a).
  const Pixels over_white = white_matte(p);
  EXPECT_NE(over_white.rgba, p.rgba);
  const Pixels unmatted = decode_ok(psd(over_white, 4));
  for (size_t i = 0; i < p.rgba.size(); ++i) EXPECT_NEAR(unmatted.rgba[i], p.rgba[i], 2) << i;
  Pixels matted{2, 1, {255, 128, 191, 128, 10, 20, 30, 0}};
  const Pixels m = decode_ok(psd(matted, 4));
  EXPECT_EQ(px(m, 0, 0), (std::vector<uint8_t>{255, 1, 127, 128}));  // stb's float arithmetic
  EXPECT_EQ(px(m, 1, 0), (std::vector<uint8_t>{10, 20, 30, 0}));  // alpha 0: kept as stored
  // A colour below its matte (stb would convert an out-of-range float) is refused.
  EXPECT_EQ(decode_error(psd(Pixels{1, 1, {0, 200, 200, 128}}, 4)),
            "PSD pixel (0, 0) has a colour below its white matte (alpha 128)");
  const Pixels g = decode_ok(gif_red_pixel());
  EXPECT_EQ(g.width, 1u);
  EXPECT_EQ(px(g, 0, 0), (std::vector<uint8_t>{255, 0, 0, 255}));
}

TEST(ImageDecode, JpegIsClose) {
  Pixels p{8, 8, {}};
  for (int i = 0; i < 64; ++i) p.rgba.insert(p.rgba.end(), {200, 100, 50, 255});
  const Pixels d = decode_ok(jpeg(p));
  ASSERT_EQ(d.rgba.size(), p.rgba.size());
  for (size_t i = 0; i < d.rgba.size(); ++i) EXPECT_NEAR(d.rgba[i], p.rgba[i], 3) << i;
}

TEST(ImageDecode, Pcx8Paletted) {
  Bytes palette(768);
  for (int i = 0; i < 256; ++i) palette[i * 3] = uint8_t(i), palette[i * 3 + 1] = uint8_t(255 - i), palette[i * 3 + 2] = 7;
  // 3 x 2, odd width (lines padded to 4 bytes), a run and a byte >= 0xC0 that needs a count.
  const Bytes indices = {5, 5, 5, 0xC1, 0, 0xFF};
  const Bytes b = pcx8(3, 2, indices, palette);
  const Pixels d = decode_ok(b);
  ASSERT_EQ(d.width, 3u);
  ASSERT_EQ(d.height, 2u);
  EXPECT_EQ(px(d, 0, 0), (std::vector<uint8_t>{5, 250, 7, 255}));
  EXPECT_EQ(px(d, 2, 0), (std::vector<uint8_t>{5, 250, 7, 255}));
  EXPECT_EQ(px(d, 0, 1), (std::vector<uint8_t>{0xC1, 255 - 0xC1, 7, 255}));
  EXPECT_EQ(px(d, 1, 1), (std::vector<uint8_t>{0, 255, 7, 255}));
  EXPECT_EQ(px(d, 2, 1), (std::vector<uint8_t>{255, 0, 7, 255}));
}

TEST(ImageDecode, PcxRgbAndRgba) {
  const Pixels p = picture(5, 3);
  EXPECT_EQ(decode_ok(pcx_rgb(p, 3)).rgba, opaque(p).rgba);
  EXPECT_EQ(decode_ok(pcx_rgb(p, 4)).rgba, p.rgba);
}

TEST(ImageDecode, PcxRunAcrossLines) {
  // 2 x 2, 1 plane, lines of 2 bytes: one run of 4 bytes of index 3 covers both lines.
  Bytes palette(768, 0);
  palette[9] = 10, palette[10] = 20, palette[11] = 30;
  Bytes b = pcx_header(2, 2, 1, 2);
  b.insert(b.end(), {0xC4, 3, 12});
  b.insert(b.end(), palette.begin(), palette.end());
  const Pixels d = decode_ok(b);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(px(d, i % 2, i / 2), (std::vector<uint8_t>{10, 20, 30, 255}));
}

TEST(ImageDecode, DdsUncompressed) {
  const Pixels p = picture(5, 3);
  EXPECT_EQ(decode_ok(dds_bgra(p)).rgba, p.rgba);
  EXPECT_EQ(decode_ok(dds_rgb24(p)).rgba, opaque(p).rgba);
  // 16-bit R5G6B5: masks scale each channel to 0..255.
  Bytes b = dds_header(2, 1, 0x40, "", 16, 0xF800, 0x07E0, 0x001F, 0);
  put16(b, 0xF800);  // red
  put16(b, (16 << 11) | (32 << 5) | 8);
  const Pixels d = decode_ok(b);
  EXPECT_EQ(px(d, 0, 0), (std::vector<uint8_t>{255, 0, 0, 255}));
  EXPECT_EQ(px(d, 1, 0), (std::vector<uint8_t>{132, 130, 66, 255}));  // 16/31, 32/63, 8/31 of 255, rounded
}

TEST(ImageDecode, DdsDxt1FourAndThreeColour) {
  // Red (F800) and blue (001F) end points; rows: indices 0 1 2 3, all 0, all 1, all 3.
  const Bytes four = {0x00, 0xF8, 0x1F, 0x00, 0xE4, 0x00, 0x55, 0xFF};
  const Pixels d = decode_ok(dds_blocks(4, 4, "DXT1", four));
  EXPECT_EQ(px(d, 0, 0), (std::vector<uint8_t>{255, 0, 0, 255}));
  EXPECT_EQ(px(d, 1, 0), (std::vector<uint8_t>{0, 0, 255, 255}));
  EXPECT_EQ(px(d, 2, 0), (std::vector<uint8_t>{170, 0, 85, 255}));
  EXPECT_EQ(px(d, 3, 0), (std::vector<uint8_t>{85, 0, 170, 255}));
  EXPECT_EQ(px(d, 2, 1), (std::vector<uint8_t>{255, 0, 0, 255}));
  EXPECT_EQ(px(d, 3, 2), (std::vector<uint8_t>{0, 0, 255, 255}));
  EXPECT_EQ(px(d, 0, 3), (std::vector<uint8_t>{85, 0, 170, 255}));
  // c0 <= c1: three colours and transparent black.
  const Bytes three = {0x1F, 0x00, 0x00, 0xF8, 0xE4, 0, 0, 0};
  const Pixels t = decode_ok(dds_blocks(4, 4, "DXT1", three));
  EXPECT_EQ(px(t, 2, 0), (std::vector<uint8_t>{127, 0, 127, 255}));
  EXPECT_EQ(px(t, 3, 0), (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(ImageDecode, DdsDxt1PartialBlocks) {
  // 5 x 3: 2 x 1 blocks; the second block's first column is the image's last.
  Bytes blocks = {0x00, 0xF8, 0x1F, 0x00, 0, 0, 0, 0};       // all red
  blocks.insert(blocks.end(), {0x00, 0xF8, 0x1F, 0x00, 0x55, 0x55, 0x55, 0x55});  // all blue
  const Pixels d = decode_ok(dds_blocks(5, 3, "DXT1", blocks));
  ASSERT_EQ(d.rgba.size(), 5u * 3 * 4);
  EXPECT_EQ(px(d, 3, 2), (std::vector<uint8_t>{255, 0, 0, 255}));
  EXPECT_EQ(px(d, 4, 0), (std::vector<uint8_t>{0, 0, 255, 255}));
  EXPECT_EQ(px(d, 4, 2), (std::vector<uint8_t>{0, 0, 255, 255}));
}

TEST(ImageDecode, DdsDxt3Alpha) {
  Bytes block;
  for (int k = 0; k < 8; ++k) block.push_back(uint8_t((2 * k) | (2 * k + 1) << 4));  // pixel i: alpha i
  block.insert(block.end(), {0x00, 0xF8, 0x1F, 0x00, 0, 0, 0, 0});
  const Pixels d = decode_ok(dds_blocks(4, 4, "DXT3", block));
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(px(d, i % 4, i / 4), (std::vector<uint8_t>{255, 0, 0, uint8_t(i * 17)})) << i;
}

TEST(ImageDecode, DdsDxt5AlphaBothModes) {
  auto block = [](uint8_t a0, uint8_t a1) {
    Bytes b = {a0, a1};
    uint64_t bits = 0;
    for (uint64_t i = 0; i < 16; ++i) bits |= (i % 8) << (3 * i);  // pixel i: index i % 8
    for (int i = 0; i < 6; ++i) b.push_back(uint8_t(bits >> (8 * i)));
    // Colour: blue then red (c0 < c1), still four colours in DXT5; all pixels index 3.
    b.insert(b.end(), {0x1F, 0x00, 0x00, 0xF8, 0xFF, 0xFF, 0xFF, 0xFF});
    return b;
  };
  const uint8_t eight[8] = {255, 0, 218, 182, 145, 109, 72, 36};
  const Pixels d = decode_ok(dds_blocks(4, 4, "DXT5", block(255, 0)));
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(px(d, i % 4, i / 4), (std::vector<uint8_t>{170, 0, 85, eight[i % 8]})) << i;
  const uint8_t six[8] = {0, 255, 51, 102, 153, 204, 0, 255};
  const Pixels s = decode_ok(dds_blocks(4, 4, "DXT5", block(0, 255)));
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(at(s, i % 4, i / 4)[3], six[i % 8]) << i;
}

TEST(ImageDecode, DdsUnsupportedFormatsAreNamed) {
  EXPECT_EQ(decode_error(dds_blocks(4, 4, "BC7U", Bytes(16))), "cannot be converted: DDS FourCC 'BC7U' is not supported");
  EXPECT_EQ(decode_error(dds_blocks(4, 4, "DX10", Bytes(64))), "cannot be converted: DDS FourCC 'DX10' is not supported");
  Bytes numeric = dds_blocks(1, 1, "", Bytes(8));
  numeric[84] = 113;  // D3DFMT_A16B16G16R16F
  EXPECT_EQ(decode_error(numeric), "cannot be converted: DDS FourCC 113 (a Direct3D format number) is not supported");
  EXPECT_EQ(to_gltf_image(dds_blocks(4, 4, "ATI2", Bytes(16)), "n.dds", kLimits).error,
            "cannot be converted: DDS FourCC 'ATI2' is not supported");
}

TEST(ImageGltf, PngAndJpegPassThroughByteForByte) {
  const Bytes p = png(picture(4, 4));
  const ConvertedImage a = to_gltf_image(p, "skin.png", kLimits);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.bytes, p);
  EXPECT_EQ(a.mime_type, "image/png");
  EXPECT_FALSE(a.converted);
  const Bytes j = jpeg(picture(4, 4));
  const ConvertedImage b = to_gltf_image(j, "skin.tga", kLimits);  // the content decides
  EXPECT_EQ(b.error, "");
  EXPECT_EQ(b.bytes, j);
  EXPECT_EQ(b.mime_type, "image/jpeg");
  EXPECT_FALSE(b.converted);
  // Pass-through does not decode, so the pixel limit does not apply.
  ImageLimits tiny;
  tiny.max_pixels = 4;
  EXPECT_EQ(to_gltf_image(p, "skin.png", tiny).bytes, p);
}

TEST(ImageGltf, EveryOtherFormatBecomesPngWithTheSamePixels) {
  const Pixels p = picture(5, 3);
  const std::vector<std::pair<std::string, Bytes>> inputs = {
      {"a.tga", tga(p, 32, true)}, {"a.bmp", bmp(p, 32)}, {"a.psd", psd(opaque(p), 4)},
      {"a.pcx", pcx_rgb(p, 4)},    {"a.dds", dds_bgra(p)}};
  for (const auto& [name, bytes] : inputs) {
    const ConvertedImage c = to_gltf_image(bytes, name, kLimits);
    ASSERT_EQ(c.error, "") << name;
    EXPECT_TRUE(c.converted) << name;
    EXPECT_EQ(c.mime_type, "image/png") << name;
    EXPECT_EQ(detect_image(c.bytes, ""), ImageFormat::Png) << name;
    const Pixels back = decode_ok(c.bytes);
    EXPECT_EQ(back.width, 5u) << name;
    EXPECT_EQ(back.rgba, name == "a.psd" ? opaque(p).rgba : p.rgba) << name;
  }
}

TEST(ImageHostile, TruncatedAtEveryOffsetFailsCleanly) {
  const Pixels p = picture(5, 3);
  Bytes palette(768, 1);
  const std::vector<std::pair<std::string, Bytes>> inputs = {
      {"a.tga", tga(p, 32, false)}, {"b.tga", tga(p, 24, true)}, {"a.bmp", bmp(p, 24)},
      {"a.psd", psd(p, 3)},         {"a.pcx", pcx_rgb(p, 3)},     {"b.pcx", pcx8(5, 3, Bytes(15, 2), palette)},
      {"a.dds", dds_bgra(p)},       {"b.dds", dds_blocks(5, 3, "DXT5", Bytes(32, 0))},
      {"a.png", png(p)},            {"a.gif", gif_red_pixel()}};
  for (const auto& [name, bytes] : inputs) {
    ASSERT_EQ(decode_image(bytes, name, kLimits).error, "") << name;
    // A GIF's first image is complete without the trailer (its last byte).
    const size_t complete = name == "a.gif" ? bytes.size() - 1 : bytes.size();
    for (size_t cut = 0; cut < complete; ++cut) {
      const Bytes part(bytes.begin(), bytes.begin() + long(cut));
      const DecodedImage d = decode_image(part, name, kLimits);
      EXPECT_NE(d.error, "") << name << " cut at " << cut;
      EXPECT_TRUE(d.pixels.rgba.empty()) << name << " cut at " << cut;
      EXPECT_NE(to_gltf_image(part, name, kLimits).error, "") << name << " cut at " << cut;
    }
  }
}

TEST(ImageHostile, TruncationMessages) {
  const Pixels p = picture(5, 3);
  const Bytes t = tga(p, 32, false);
  EXPECT_EQ(decode_error(Bytes(t.begin(), t.begin() + 12), "x.tga"), "TGA header truncated at byte 12 (it needs 18 bytes)");
  EXPECT_EQ(decode_error(Bytes(t.begin(), t.end() - 1), "x.tga"),
            "TGA pixel data truncated: 5 x 3 needs at least 60 bytes from byte 18, the file ends at byte 77");
  const Bytes d = dds_blocks(4, 4, "DXT1", Bytes(8));
  EXPECT_EQ(decode_error(Bytes(d.begin(), d.begin() + 100)), "DDS header truncated at byte 100 (it needs 128 bytes)");
  EXPECT_EQ(decode_error(Bytes(d.begin(), d.end() - 3)),
            "DDS pixel data truncated: 4 x 4 needs at least 8 bytes from byte 128, the file ends at byte 133");
  const Bytes j = jpeg(p);
  EXPECT_EQ(to_gltf_image(Bytes(j.begin(), j.begin() + 4), "x.jpg", kLimits).error,
            "JPEG header truncated at byte 4 (it needs 6 bytes)");
  EXPECT_EQ(to_gltf_image(Bytes(), "x.png", kLimits).error, "the file is empty");
}

TEST(ImageHostile, WrongMagic) {
  const std::string text = "hello, world: not an image";
  const Bytes b(text.begin(), text.end());
  EXPECT_EQ(to_gltf_image(b, "skin.png", kLimits).error,
            "not a PNG, JPEG, TGA, BMP, PSD, GIF, PCX or DDS image (it starts with 68 65 6c 6c 6f 2c 20 77)");
  Bytes webp;
  put(webp, "RIFF");
  put32(webp, 4);
  put(webp, "WEBPVP8 ");
  EXPECT_EQ(decode_error(webp, "a.webp"),
            "a WebP image: not supported (meshport converts PNG, JPEG, TGA, BMP, PSD, GIF, PCX and DDS)");
  // A TGA name on other bytes: the header check explains.
  EXPECT_EQ(decode_error(Bytes(18, 7), "x.tga"),
            "TGA image type 7 with colour map type 7 is not supported (or this is not a TGA file)");
  Bytes bm;
  put(bm, "BM");
  bm.resize(18, 0);
  bm[14] = 99;
  EXPECT_EQ(decode_error(bm), "BMP info header of 99 bytes is not supported");
}

TEST(ImageHostile, HugeDimensionsRefusedBeforeDecoding) {
  // A PNG header claiming 65535 x 65535 (16 GiB as RGBA) followed by a little data.
  Bytes png_head = png(picture(1, 1));
  auto set_be32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) png_head[at + size_t(i)] = uint8_t(v >> (24 - 8 * i));
  };
  set_be32(16, 65535);
  set_be32(20, 65535);
  EXPECT_EQ(decode_error(png_head), "65535 x 65535: a side exceeds the limit of 32768 pixels");
  set_be32(16, 20000);
  set_be32(20, 20000);
  EXPECT_EQ(decode_error(png_head), "400000000 pixels (20000 x 20000) exceed the limit of 67108864 pixels");
  EXPECT_EQ(to_gltf_image(png_head, "x.png", kLimits).error, "");  // passed through, not decoded
  set_be32(16, 70000);
  EXPECT_EQ(to_gltf_image(png_head, "x.png", kLimits).error, "70000 x 20000: a side exceeds the limit of 65536 pixels");
  // A TGA header of 65535 x 65535 with its (uncompressed) data "present": the limit refuses it.
  ImageLimits small;
  small.max_pixels = 15;
  EXPECT_EQ(decode_image(tga(picture(4, 4), 24, false), "", small).error,
            "16 pixels (4 x 4) exceed the limit of 15 pixels");
  Bytes big = tga(picture(1, 1), 24, true);
  big[12] = big[13] = big[14] = big[15] = 0xFF;
  EXPECT_EQ(decode_error(big), "TGA pixel data truncated: 65535 x 65535 needs at least 134213636 bytes from byte 18, "
                               "the file ends at byte 22");
  // A side over 65536 is refused whatever the limits say.
  ImageLimits loose;
  loose.max_dimension = UINT32_MAX;
  loose.max_pixels = UINT64_MAX;
  EXPECT_EQ(check_limits(65537, 1, loose), "65537 x 1: a side exceeds the limit of 65536 pixels");
  EXPECT_EQ(check_limits(65536, 1, loose), "");
}

TEST(ImageHostile, ZeroSizeAndBadFields) {
  Bytes t = tga(picture(2, 2), 24, false);
  t[12] = t[13] = 0;  // width 0
  EXPECT_EQ(decode_error(t, "x.tga"), "the image has no pixels (0 x 2)");
  Bytes pcx = pcx_rgb(picture(2, 2), 3);
  pcx[8] = 0;
  pcx[4] = 1;  // xmax 0 < xmin 1
  EXPECT_EQ(decode_error(pcx), "PCX window (1, 0) - (0, 1) is empty");
  Bytes b = bmp(picture(2, 2), 24);
  b[22] = b[23] = b[24] = 0;
  b[25] = 0x80;  // height INT32_MIN
  EXPECT_EQ(decode_error(b), "BMP height -2147483648 is invalid");
  const Bytes p = png(Pixels{1, 1, {1, 2, 3, 4}});
  Bytes zero = p;
  zero[16] = zero[17] = zero[18] = zero[19] = 0;
  EXPECT_EQ(to_gltf_image(zero, "x.png", kLimits).error, "the image has no pixels (0 x 1)");
  Bytes pcx_bits = pcx_rgb(picture(2, 2), 3);
  pcx_bits[3] = 4;
  EXPECT_EQ(decode_error(pcx_bits), "PCX with 4 bits per pixel in 3 planes is not supported (8 bits in 1, 3 or 4 planes are)");
}

TEST(ImageNames, ExtensionsAndFileNames) {
  EXPECT_EQ(image_file_extension("image/png"), ".png");
  EXPECT_EQ(image_file_extension("image/jpeg"), ".jpg");
  EXPECT_EQ(image_file_extension("image/webp"), "");
  EXPECT_EQ(image_file_name("textures/Skin.TGA", "image/png"), "Skin.png");
  EXPECT_EQ(image_file_name("C:\\art\\page-7-body.dds", "image/png"), "page-7-body.png");
  EXPECT_EQ(image_file_name("photo.jpeg", "image/jpeg"), "photo.jpeg");  // kept as given (issue 33)
  EXPECT_EQ(image_file_name("photo.jpeg", "image/png"), "photo.png");
  EXPECT_EQ(image_file_name("metal.v2", "image/png"), "metal.v2.png");
  EXPECT_EQ(image_file_name("dir/", "image/png"), "image.png");
  EXPECT_EQ(image_file_name("", "image/jpeg"), "image.jpg");
}

// The fuzz seeds committed in tests/data/images (made by fuzz/make_image_seeds.cpp) decode.
TEST(ImageSeeds, CommittedSeedsDecode) {
  const std::filesystem::path dir = std::filesystem::path(MESHPORT_TEST_DATA) / "images";
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const Bytes b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const DecodedImage d = decode_image(b, entry.path().filename().string(), kLimits);
    EXPECT_EQ(d.error, "") << entry.path();
    EXPECT_EQ(d.pixels.rgba.size(), size_t(d.pixels.width) * d.pixels.height * 4) << entry.path();
    ++count;
  }
  EXPECT_GE(count, 15u);
}

// The fuzz findings in tests/hostile/fuzz/image are refused with a message.
TEST(ImageHostile, FuzzRegressionFiles) {
  const std::filesystem::path dir = std::filesystem::path(MESHPORT_TEST_DATA).parent_path() / "hostile" / "fuzz" / "image";
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const Bytes b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string name = entry.path().filename().string();
    EXPECT_NE(decode_image(b, name, kLimits).error, "") << name;
    EXPECT_NE(to_gltf_image(b, name, kLimits).error, "") << name;
    if (name == "jpeg-huffman-counts-over-256.jpg") {
      EXPECT_EQ(decode_image(b, name, kLimits).error, "JPEG Huffman table at byte 221 has 525 codes (256 at most)");
    }
    ++count;
  }
  EXPECT_GE(count, 1u);
}

}  // namespace meshport_test_image
