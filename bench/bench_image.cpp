// Textures (issue 17): a 1024 x 1024 TGA page converted to the PNG glTF embeds (decode + PNG
// encode), decoding alone, and a PNG passed through (header check only). MB/s of input bytes,
// items/s of pixels.
#include "image/image.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace meshport::bench {
namespace {

constexpr uint32_t kSide = 1024;

// An uncompressed 32-bit TGA, rows top to bottom, with a pattern PNG can compress somewhat.
std::vector<uint8_t> tga_page() {
  std::vector<uint8_t> b = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, uint8_t(kSide & 255), uint8_t(kSide >> 8),
                            uint8_t(kSide & 255), uint8_t(kSide >> 8), 32, 0x28};
  b.reserve(b.size() + size_t(kSide) * kSide * 4);
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x) {
      b.push_back(uint8_t(x ^ y));
      b.push_back(uint8_t((x * 3 + y) >> 2));
      b.push_back(uint8_t(y >> 2));
      b.push_back(255);
    }
  return b;
}

void report(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
  state.SetItemsProcessed(int64_t(state.iterations()) * kSide * kSide);
}

void BM_TgaToGltfPng(benchmark::State& state) {
  const std::vector<uint8_t> tga = tga_page();
  for (auto _ : state) {
    image::ConvertedImage out = image::to_gltf_image(tga, "page.tga", {});
    if (!out.error.empty()) return state.SkipWithError(out.error.c_str());
    benchmark::DoNotOptimize(out.bytes.data());
  }
  report(state, tga.size());
}
BENCHMARK(BM_TgaToGltfPng)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TgaDecode(benchmark::State& state) {
  const std::vector<uint8_t> tga = tga_page();
  for (auto _ : state) {
    image::DecodedImage out = image::decode_image(tga, "page.tga", {});
    if (!out.error.empty()) return state.SkipWithError(out.error.c_str());
    benchmark::DoNotOptimize(out.pixels.rgba.data());
  }
  report(state, tga.size());
}
BENCHMARK(BM_TgaDecode)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PngPassThrough(benchmark::State& state) {
  const image::DecodedImage page = image::decode_image(tga_page(), "page.tga", {});
  const std::vector<uint8_t> png = image::encode_png(page.pixels);
  for (auto _ : state) {
    image::ConvertedImage out = image::to_gltf_image(png, "page.png", {});
    if (!out.error.empty()) return state.SkipWithError(out.error.c_str());
    benchmark::DoNotOptimize(out.bytes.data());
  }
  report(state, png.size());
}
BENCHMARK(BM_PngPassThrough)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace meshport::bench
