// convert()'s levels of detail (convert_lods.h).
#include "api/convert_lods.h"
#include "core/utf8_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace meshport {

namespace {

Format output_format(const std::string& output, const WriteOptions& w) {
  if (w.format) return *w.format;
  if (auto f = format_from_path(output)) return *f;
  fail(output, "cannot tell the output format from its extension (give --to)");
}

void lod_note(Diagnostics* diags, const std::string& output, std::string message) {
  if (diags) diags->add(meshport::note(output == "-" ? "<stdout>" : output, std::move(message)));
}

}  // namespace

std::string lod_path(const std::string& output, Format format, size_t level) {
  std::string lower = output;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const std::string name = path_utf8(utf8_path(output).filename());
  size_t ext = std::string::npos;
  for (std::string_view e : format_info(format).extensions)
    if (lower.size() > e.size() && name.size() > e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0)
      ext = std::min(ext, output.size() - e.size());
  if (ext == std::string::npos) {
    const size_t dot = name.rfind('.');
    ext = dot == std::string::npos || dot == 0 ? output.size() : output.size() - (name.size() - dot);
  }
  return output.substr(0, ext) + fmt::format("_lod{}", level) + output.substr(ext);
}

// name_file: convert_lods.h.
void name_file(Diagnostics* diags, size_t from, const std::string& file) {
  if (!diags) return;
  for (size_t i = from; i < diags->items.size(); ++i)
    if (diags->items[i].file.empty()) diags->items[i].file = file;
}

std::vector<LodLevel> process_with_lods(Scene& scene, const ProcessOptions& p, const LodOptions& lods,
                                        const std::string& output, const WriteOptions& w, Diagnostics* diags) {
  const Format format = output == "-" && w.format ? *w.format : output_format(output, w);
  const bool gltf = format == Format::Gltf || format == Format::Glb;
  if (lods.msft_lod && !gltf)
    fail(output, fmt::format("--msft-lod puts the levels of detail in a glTF file; {} has none (without "
                             "--msft-lod, --lods writes NAME_lod1.EXT, ... beside the output)",
                             format_info(format).name));
  if (!lods.msft_lod && output == "-")
    fail("<stdout>", "--lods writes a file per level beside the output; standard output has no folder (for glTF, "
                     "--msft-lod puts them in the one file)");
  // The steps before simplification once, then LOD 0 and the levels from the same Scene.
  ProcessOptions before = p;
  before.simplify = SimplifyOptions{};
  before.normals = before.tangents = Generate::Off;
  before.optimize = before.modes_animation = false;
  const std::string shown = output == "-" ? "<stdout>" : output;
  const size_t first = diags ? diags->items.size() : 0;
  process(scene, before, diags);
  std::vector<std::string> files;  // the file each level's diagnostics concern
  for (size_t i = 0; i < lods.ratios.size(); ++i) files.push_back(lods.msft_lod ? shown : lod_path(output, format, i + 1));
  std::vector<LodLevel> levels = make_lods(scene, lods.ratios, p, diags, files);
  ProcessOptions lod0 = p;
  lod0.expand_instances = lod0.flip_winding = lod0.flip_v = lod0.weld = false;
  lod0.transform = TransformOptions{};
  size_t full = 0;
  for (const Mesh& m : scene.meshes)
    if (m.topology == Topology::Triangles) full += m.triangles.size() / 3;
  std::vector<SimplifyResult> results;
  if (lod0.simplify.ratio < 1.0f || lod0.simplify.max_triangles > 0) simplify_meshes(scene, lod0.simplify, diags, &results);
  lod0.simplify = SimplifyOptions{};
  process(scene, lod0, diags);
  name_file(diags, first, shown);  // the steps before and LOD 0's: the output's
  size_t tris = 0;
  float error = 0;
  for (const Mesh& m : scene.meshes)
    if (m.topology == Topology::Triangles) tris += m.triangles.size() / 3;
  for (const SimplifyResult& r : results) error = std::max(error, r.error);
  lod_note(diags, output, fmt::format("LOD 0: {} triangles of {}, error {:.4g}", tris, full, error));
  for (size_t i = 0; i < levels.size(); ++i)
    lod_note(diags, output, fmt::format("LOD {} (ratio {}): {} triangles, error {:.4g}{}", i + 1, levels[i].ratio,
                            levels[i].triangles, levels[i].error,
                            lods.msft_lod ? std::string() : " -> " + lod_path(output, format, i + 1)));
  if (lods.msft_lod) {
    add_lod_meshes(scene, levels);
    levels.clear();
  }
  return levels;
}

void write_lod_files(const std::vector<LodLevel>& levels, const std::string& output, const WriteOptions& w,
                     Diagnostics* diags, std::vector<std::string>& written) {
  if (levels.empty()) return;
  const Format format = output_format(output, w);
  try {
    for (size_t i = 0; i < levels.size(); ++i)
      write_listing_files(levels[i].scene, lod_path(output, format, i + 1), w, diags, &written);
  } catch (...) {
    std::error_code ec;
    for (const std::string& path : written) std::filesystem::remove(utf8_path(path), ec);
    throw;
  }
}

}  // namespace meshport
