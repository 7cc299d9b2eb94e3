// Reading the viewer's model (model.h).
#include "view/model.h"
#include "core/utf8_path.h"

#include <meshport/summary.h>

#include <algorithm>
#include <filesystem>

namespace meshport::view {

Model load_model(const LoadOptions& options, Diagnostics* diags) {
  if (options.files.empty()) fail("view", "no model file given");
  ReadOptions ro;
  ro.format = options.from;
  ro.max_memory = options.max_memory;
  Model model;
  Format format = Format::Glb;
  if (options.files.size() == 1) {
    const std::string& file = options.files[0];
    model.scene = read(file, ro, diags);
    const std::optional<Format> f = options.from ? options.from : format_from_path(file);
    if (f) format = *f;
    model.title = path_utf8(utf8_path(file).filename());
  } else {
    std::vector<Part> parts;
    for (const std::string& file : options.files) parts.push_back({file, read(file, ro, diags)});
    model.scene = assemble(std::move(parts), options.assemble, diags);
    model.title = path_utf8(utf8_path(options.files[0]).stem()) + " (assembled from " +
                  std::to_string(options.files.size()) + " parts)";
  }
  Summary summary = summarize(model.scene, format);
  summary.file = options.files.size() == 1 ? options.files[0] : model.title;
  TextureSearch search;
  search.model_path = options.files[0];
  search.dirs = options.texture_dirs;
  summary.textures = find_textures(model.scene, search);
  model.summary = to_json(summary);

  ProcessOptions po;  // what convert to .glb runs: normals and tangents where missing
  process(model.scene, po, diags);
  const std::string dir = path_utf8(utf8_path(options.files[0]).parent_path());
  model.write.texture_dir = dir.empty() ? "." : dir;
  model.write.texture_model = options.files[0];
  model.write.texture_dirs = options.texture_dirs;
  return model;
}

bool has_team_colour(const Model& model) {
  return std::any_of(model.scene.materials.begin(), model.scene.materials.end(),
                     [](const Material& m) { return !m.team_colour_texture.empty(); });
}

std::string model_glb(const Model& model, std::optional<std::array<uint8_t, 3>> team_colour, Diagnostics* diags) {
  WriteOptions w = model.write;
  w.format = Format::Glb;
  w.team_colour = team_colour;
  // The writer's warnings name no file (it writes to memory): they are about the model shown.
  const size_t before = diags ? diags->items.size() : 0;
  const std::vector<uint8_t> bytes = write_memory(model.scene, Format::Glb, w, diags);
  if (diags)
    for (size_t i = before; i < diags->items.size(); ++i)
      if (diags->items[i].file.empty()) diags->items[i].file = model.title;
  return std::string(bytes.begin(), bytes.end());
}

nlohmann::json page_info(const Model& model) {
  return {{"title", model.title}, {"team_colour", has_team_colour(model)}, {"summary", model.summary}};
}

}  // namespace meshport::view
