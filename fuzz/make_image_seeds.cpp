// Writes the image fuzz seeds: small images of every format src/image reads, made in code
// (tests/image_samples.h). Their output is committed in tests/data/images (fuzz/run.sh copies it
// into the seeds of fuzz_image; tests/test_image.cpp checks each decodes). Regenerate with
//   build-san/fuzz/make_image_seeds tests/data/images
#include "image_samples.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace image_samples;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_image_seeds OUT_DIR\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  const Pixels p = picture(5, 3);
  Bytes palette(768);
  for (size_t i = 0; i < palette.size(); ++i) palette[i] = uint8_t(i * 7);
  Bytes dxt1 = {0x00, 0xF8, 0x1F, 0x00, 0xE4, 0x00, 0x55, 0xFF, 0x1F, 0x00, 0x00, 0xF8, 0xE4, 0, 0, 0};
  Bytes dxt3, dxt5;
  for (int i = 0; i < 2; ++i) {
    dxt3.insert(dxt3.end(), {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, 0x00, 0xF8, 0x1F, 0x00, 0xE4, 0x1B, 0x55, 0xFF});
    dxt5.insert(dxt5.end(), {uint8_t(i ? 0 : 255), uint8_t(i ? 255 : 0), 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA, 0x1F, 0x00,
                             0x00, 0xF8, 0xE4, 0x1B, 0x55, 0xFF});
  }
  const std::pair<const char*, Bytes> seeds[] = {
      {"rgba.png", png(p)},
      {"rgb.jpg", jpeg(picture(16, 16, false))},
      {"rgb24.tga", tga(p, 24, false)},
      {"rgba32-bottom-up.tga", tga(p, 32, false, false)},
      {"rgba32-rle.tga", tga(p, 32, true)},
      {"rgb24.bmp", bmp(p, 24)},
      {"rgba32.bmp", bmp(p, 32)},
      {"rgb.psd", psd(p, 3)},
      {"rgba.psd", psd(white_matte(p), 4)},
      {"red.gif", gif_red_pixel()},
      {"paletted.pcx", pcx8(5, 3, {1, 1, 1, 200, 201, 0, 0, 0, 0, 255, 3, 4, 5, 6, 7}, palette)},
      {"rgb.pcx", pcx_rgb(p, 3)},
      {"rgba.pcx", pcx_rgb(p, 4)},
      {"bgra.dds", dds_bgra(p)},
      {"rgb24.dds", dds_rgb24(p)},
      {"dxt1.dds", dds_blocks(5, 3, "DXT1", dxt1)},
      {"dxt3.dds", dds_blocks(5, 3, "DXT3", dxt3)},
      {"dxt5.dds", dds_blocks(5, 3, "DXT5", dxt5)},
  };
  for (const auto& [name, bytes] : seeds) {
    std::ofstream f(out / name, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  std::printf("%zu image seeds in %s\n", std::size(seeds), out.c_str());
  return 0;
}
