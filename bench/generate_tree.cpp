// A Warzone 2100-shaped tree of PIE models (generate_tree.h).
#include "generate_tree.h"

#include "image/image.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace fs = std::filesystem;

namespace meshport::bench {

namespace {

// Where the shipped models are, with roughly their share of the 1,046 files.
struct Folder {
  const char* path;
  int weight;
};
constexpr Folder kFolders[] = {
    {"base/components/bodies", 8},  {"base/components/weapons", 14}, {"base/components/prop", 6},
    {"base/structs", 30},           {"base/features", 18},           {"base/effects", 10},
    {"base/misc", 4},               {"mp/components/bodies", 3},     {"mp/components/weapons", 5},
    {"mp/structs", 2},
};

std::string page_name(int i) { return fmt::format("page-{}-generated.png", i + 1); }

// A page of `side` pixels: a gradient; above 256, noise in the low bit of red (every pixel) and
// of green (one pixel in 16), which gives the files the game's size per pixel or a little more:
// 0.79 bytes per pixel at 1024 x 1024 and 2048 x 2048, where the PNG pages of warzone2100-data
// 4.3 have 0.76 (1024, 47 pages) and 0.64 (2048, 2 pages). (Noise in both low bits of every
// pixel, before, gave 1.15: the embedded batch wrote 1.87 GB where the game's tree writes 0.53.)
std::vector<uint8_t> page_png(uint32_t side, int variant) {
  image::Pixels p;
  p.width = p.height = side;
  p.rgba.resize(size_t(side) * side * 4);
  std::mt19937 noise(uint32_t(variant) + 1);
  const bool noisy = side > 256;
  for (uint32_t y = 0; y < side; ++y)
    for (uint32_t x = 0; x < side; ++x) {
      uint8_t* px = &p.rgba[(size_t(y) * side + x) * 4];
      const uint32_t n = noisy ? noise() : 0;
      const uint32_t green = (n >> 8) % 16 == 0 ? (n >> 1) & 1 : 0;
      px[0] = uint8_t((x * 256 / side) ^ (n & 1)), px[1] = uint8_t((y * 256 / side) ^ green);
      px[2] = uint8_t(variant * 20), px[3] = 255;
    }
  return image::encode_png(p);
}

// The pages; large ones are copies of a few encoded variants (encoding is slow), distinct files.
uint64_t write_pages(const fs::path& dir, const TreeParams& params) {
  fs::create_directories(dir);
  std::map<std::pair<uint32_t, int>, std::vector<uint8_t>> encoded;
  uint64_t bytes = 0;
  for (int i = 0; i < params.pages; ++i) {
    const bool large = params.large_every > 0 && i % params.large_every == params.large_every - 1;
    const uint32_t side = large ? 2048 : uint32_t(params.page_side);
    const int variant = side > 256 ? i % 4 : i;
    auto [it, added] = encoded.try_emplace({side, variant});
    if (added) it->second = page_png(side, variant);
    std::ofstream(dir / page_name(i), std::ios::binary)
        .write(reinterpret_cast<const char*>(it->second.data()), std::streamsize(it->second.size()));
    bytes += it->second.size();
  }
  return bytes;
}

// One model: `polygons` triangles over about 2/3 as many points, in 1 to 3 levels.
std::string pie_model(std::mt19937_64& rng, int polygons, const TreeParams& params) {
  std::uniform_real_distribution<double> unit(0, 1);
  const int version = unit(rng) < 0.6 ? 2 : 3;
  const int levels = unit(rng) < 0.9 ? 1 : 2 + int(unit(rng) * 2);
  std::string s = fmt::format("PIE {}\nTYPE {}\nTEXTURE 0 {} 256 256\nLEVELS {}\n", version, unit(rng) < 0.2 ? "10200" : "200",
                              page_name(int(unit(rng) * params.pages)), levels);
  for (int level = 1; level <= levels; ++level) {
    const int polys = std::max(1, polygons / levels);
    const int points = std::max(3, polys * 2 / 3);
    s += fmt::format("LEVEL {}\nPOINTS {}\n", level, points);
    for (int i = 0; i < points; ++i)
      s += fmt::format("\t{} {} {}\n", int(unit(rng) * 256 - 128), int(unit(rng) * 128), int(unit(rng) * 256 - 128));
    s += fmt::format("POLYGONS {}\n", polys);
    for (int i = 0; i < polys; ++i) {
      const int a = int(unit(rng) * points), b = (a + 1) % points, c = (a + 2) % points;
      s += fmt::format("\t200 3 {} {} {}", a, b, c);
      for (int k = 0; k < 6; ++k)
        s += version == 2 ? fmt::format(" {}", int(unit(rng) * 256)) : fmt::format(" {:.4f}", unit(rng));
      s += "\n";
    }
    if (unit(rng) < 0.3) s += "CONNECTORS 1\n\t0 0 12\n";
  }
  return s;
}

}  // namespace

TreeStats write_pie_tree(const std::string& root, const TreeParams& params) {
  std::mt19937_64 rng(params.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  int total_weight = 0;
  for (const Folder& f : kFolders) total_weight += f.weight;
  TreeStats stats;
  stats.pages = params.pages;
  stats.page_bytes = write_pages(fs::path(root) / "base/texpages", params);
  for (int i = 0; i < params.files; ++i) {
    double pick = unit(rng) * total_weight;
    const Folder* folder = &kFolders[0];
    for (const Folder& f : kFolders)
      if ((pick -= f.weight) < 0) {
        folder = &f;
        break;
      }
    // Log-uniform from 4 to 800 triangles: median about 57, like the shipped models.
    const int polygons = int(std::exp(std::log(4.0) + unit(rng) * (std::log(800.0) - std::log(4.0))));
    const std::string text = pie_model(rng, polygons, params);
    const fs::path p = fs::path(root) / folder->path / fmt::format("model{:04}.pie", i);
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    ++stats.files;
    stats.bytes += text.size();
  }
  return stats;
}

}  // namespace meshport::bench
