// Planning a batch (plan.h): finding the models under the inputs, attaching animation files,
// naming outputs. docs/batch.md, "Inputs" and "Animation files".
#include "batch/plan.h"
#include "core/text.h"
#include "core/utf8_path.h"

#include "ops/materials/textures.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace meshport::batch_detail {

namespace {

std::string generic(const fs::path& p) { return generic_utf8(p); }

// The matched extension of `name` for `f` ("model.qmsh.tmp" -> ".qmsh.tmp"), else its last one.
std::string_view format_extension(std::string_view name, Format f) {
  const std::string l = text::lower(name);
  for (std::string_view ext : format_info(f).extensions)
    if (l.size() > ext.size() && l.compare(l.size() - ext.size(), ext.size(), ext) == 0)
      return name.substr(name.size() - ext.size());
  const size_t slash = name.find_last_of('/'), dot = name.find_last_of('.');
  return dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash) ? std::string_view()
                                                                                         : name.substr(dot);
}

bool hidden(const fs::path& p) {
  const std::string n = path_utf8(p.filename());
  return n.size() > 1 && n[0] == '.' && n != "..";
}

// ModeDef .prop, .state and .path files name their .model; a folder search converts the .model.
bool modedef_side_file(Format f) {
  return f == Format::ModeDefProp || f == Format::ModeDefState || f == Format::ModeDefPath;
}

struct Collector {
  const BatchOptions& options;
  std::string output_canonical;  // skipped when searching folders
  std::vector<PlannedItem> items;
  std::set<std::string> seen;  // canonical paths

  void add(const std::string& root, const std::string& relative, std::optional<Format> format, bool from_search) {
    PlannedItem item;
    item.root = root;
    item.relative = relative;
    item.input = root.empty() || root == "." ? relative : generic(utf8_path(root) / utf8_path(relative));
    std::error_code ec;
    const std::string canonical = generic(fs::weakly_canonical(utf8_path(item.input), ec));
    if (!seen.insert(ec ? item.input : canonical).second) return;
    if (!format) {
      if (from_search) return;
      item.error = "unknown format: cannot tell it from the file name; give it with --from";
    } else {
      item.format = *format;
    }
    items.push_back(std::move(item));
  }

  std::optional<Format> format_of(const fs::path& p) const {
    return options.from ? options.from : format_from_path(path_utf8(p.filename()));
  }

  // Files below `root` (recursively when `recursive`) whose path relative to it passes `keep`.
  template <class Keep>
  void search(const fs::path& root, bool recursive, Keep keep) {
    std::error_code ec;
    const auto flags = fs::directory_options::skip_permission_denied;
    std::vector<std::pair<std::string, std::optional<Format>>> found;
    for (fs::recursive_directory_iterator it(root, flags, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      std::error_code e2;
      if (it->is_directory(e2)) {
        std::error_code e3;
        if (!recursive || hidden(p) || (!output_canonical.empty() && generic(fs::weakly_canonical(p, e3)) == output_canonical))
          it.disable_recursion_pending();
        continue;
      }
      if (hidden(p) || !it->is_regular_file(e2)) continue;
      const std::string rel = generic(p.lexically_relative(root));
      if (keep(rel, p)) found.emplace_back(rel, format_of(p));
    }
    std::sort(found.begin(), found.end());
    for (auto& [rel, f] : found) add(generic(root), rel, f, true);
  }

  void add_glob(const std::string& text) {
    // The fixed folders before the first component with a pattern are the root.
    fs::path root;
    std::string pattern;
    bool in_pattern = false;
    for (const fs::path& part : utf8_path(text)) {
      const std::string s = generic_utf8(part);
      if (!in_pattern && has_glob(s)) in_pattern = true;
      if (in_pattern) pattern += (pattern.empty() ? "" : "/") + s;
      else root /= part;
    }
    if (root.empty()) root = ".";
    const bool recursive = pattern.find('/') != std::string::npos || pattern.find("**") != std::string::npos;
    const size_t before = items.size();
    search(root, recursive, [&](const std::string& rel, const fs::path& p) {
      if (!glob_match(pattern, rel)) return false;
      return options.from || format_from_path(path_utf8(p.filename())).has_value();
    });
    if (items.size() == before) {
      PlannedItem item;
      item.relative = item.input = text;
      item.error = "no model file matches this pattern";
      items.push_back(std::move(item));
    }
  }

  void add_input(const std::string& text) {
    std::error_code ec;
    if (text == "-") {  // standard input: validate only, with --from
      PlannedItem item;
      item.relative = item.input = text;
      if (options.task == BatchTask::Convert) item.error = "standard input cannot be batch converted: use convert";
      else if (!options.from) item.error = "standard input: give its format with --from";
      else item.format = *options.from;
      items.push_back(std::move(item));
      return;
    }
    if (has_glob(text) && !fs::exists(utf8_path(text), ec)) return add_glob(text);
    if (fs::is_directory(utf8_path(text), ec)) {
      search(utf8_path(text), true, [&](const std::string&, const fs::path& p) {
        auto f = format_from_path(path_utf8(p.filename()));
        return f && !modedef_side_file(*f);
      });
      return;
    }
    const fs::path p = utf8_path(text);
    if (!fs::exists(p, ec)) {
      PlannedItem item;
      item.relative = item.input = text;
      item.error = "no such file or folder";
      items.push_back(std::move(item));
      return;
    }
    add(generic(p.parent_path()), generic(p.filename()), format_of(p), false);
  }
};

std::string stem_of(const PlannedItem& item) {
  std::string name = generic(utf8_path(item.relative).filename());
  return name.substr(0, name.size() - format_extension(name, item.format).size());
}

std::string folder_of(const PlannedItem& item) { return generic(utf8_path(item.input).parent_path()); }

bool is_iqm_family(const PlannedItem& item) {
  return item.error.empty() && (item.format == Format::Iqm || item.format == Format::Iqe);
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  std::string c = generic(fs::weakly_canonical(utf8_path(path), ec));
  return ec ? path : c;
}

void attach(std::vector<PlannedItem>& items, size_t mesh, size_t anim, std::vector<bool>& attached,
            const std::string& how) {
  items[mesh].animations.push_back(items[anim].input);
  if (items[mesh].note.empty()) items[mesh].note = how;
  attached[anim] = true;
}

// Tesseract / Red Eclipse iqm.cfg in a folder: `iqmanim NAME FILE[:anim] ...` after
// `iqmload MESH` attaches FILE to MESH (paths relative to the cfg's folder).
void attach_by_cfg(std::vector<PlannedItem>& items, const std::map<std::string, size_t>& by_path,
                   const std::string& folder, std::vector<bool>& attached) {
  const fs::path cfg = utf8_path(folder) / "iqm.cfg";
  std::error_code ec;
  if (!fs::is_regular_file(cfg, ec) || fs::file_size(cfg, ec) > (1u << 20)) return;
  std::ifstream f(cfg, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  std::optional<size_t> mesh;
  for (const ops::CfgCommand& c : ops::iqm_cfg_commands(text.str())) {
    if (c.words.size() < 2) continue;
    std::string file = c.words[0] == "iqmanim" && c.words.size() >= 3 ? c.words[2] : c.words[1];
    if (size_t colon = file.rfind(':'); colon != std::string::npos && colon > 1) file.resize(colon);
    auto it = by_path.find(canonical(generic(utf8_path(folder) / utf8_path(file))));
    if (c.words[0] == "iqmload") mesh = it == by_path.end() ? std::nullopt : std::optional<size_t>(it->second);
    else if (c.words[0] == "iqmanim" && mesh && it != by_path.end() && it->second != *mesh && !attached[it->second])
      attach(items, *mesh, it->second, attached, fmt::format("animations from {}:{}", generic(cfg), c.line));
  }
}

struct Kind {
  bool read = false;
  size_t meshes = 0, animations = 0;
};

// The mesh file an animation-only file belongs to: the one whose stem is the longest prefix of
// the animation's stem followed by '_', '-', '.' or ' ' ("tris.iqm" for "tris_run.iqm"); else
// the folder's only mesh file.
std::optional<size_t> mesh_for(const std::vector<PlannedItem>& items, const std::vector<size_t>& meshes, size_t anim,
                               std::string& how) {
  const std::string a = text::lower(stem_of(items[anim]));
  std::optional<size_t> best;
  size_t best_len = 0;
  for (size_t m : meshes) {
    const std::string s = text::lower(stem_of(items[m]));
    if (a.size() > s.size() && a.compare(0, s.size(), s) == 0 && std::string_view("_-. ").find(a[s.size()]) != std::string_view::npos &&
        s.size() >= best_len) {
      best = m;
      best_len = s.size();
    }
  }
  if (best) {
    how = "animation files named after the mesh";
    return best;
  }
  if (meshes.size() == 1) {
    how = "animation files beside the folder's only mesh file";
    return meshes[0];
  }
  return std::nullopt;
}

void attach_animation_files(std::vector<PlannedItem>& items, const BatchOptions& options, unsigned jobs) {
  std::map<std::string, size_t> by_path;
  std::map<std::string, std::vector<size_t>> folders;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!is_iqm_family(items[i])) continue;
    by_path[canonical(items[i].input)] = i;
    folders[folder_of(items[i])].push_back(i);
  }
  std::vector<bool> attached(items.size(), false);
  for (const auto& [folder, list] : folders) attach_by_cfg(items, by_path, folder, attached);

  // What the files of folders with several IQM/IQE files hold: read once each.
  std::vector<size_t> to_read;
  for (const auto& [folder, list] : folders)
    if (list.size() >= 2)
      for (size_t i : list)
        if (!attached[i] && items[i].animations.empty()) to_read.push_back(i);
  std::vector<Kind> kinds(items.size());
  parallel_for(to_read.size(), jobs, [&](size_t k) {
    const size_t i = to_read[k];
    try {
      ReadOptions ro;
      ro.format = options.from;
      ro.threads = 1;
      ro.max_memory = options.convert.read.max_memory;
      const Scene s = read(items[i].input, ro);
      kinds[i] = {true, s.meshes.size(), s.animations.size()};
    } catch (...) {  // the item fails again, with its error, when it runs
    }
  });
  for (const auto& [folder, list] : folders) {
    std::vector<size_t> meshes, anims;
    for (size_t i : list) {
      if (attached[i]) continue;
      if (!kinds[i].read || kinds[i].meshes > 0 || !items[i].animations.empty()) meshes.push_back(i);
      else if (kinds[i].animations > 0) anims.push_back(i);
    }
    for (size_t a : anims) {
      std::string how;
      if (auto m = mesh_for(items, meshes, a, how)) attach(items, *m, a, attached, how);
      else items[a].note = "animation-only file with no mesh file to attach it to (docs/batch.md): converted alone";
    }
  }
  std::vector<PlannedItem> kept;
  for (size_t i = 0; i < items.size(); ++i)
    if (!attached[i]) kept.push_back(std::move(items[i]));
  items = std::move(kept);
}

void name_outputs(std::vector<PlannedItem>& items, const BatchOptions& options, std::string_view extension) {
  const std::string_view ext = !extension.empty() ? extension : format_info(*options.to).extensions.front();
  std::map<std::string, size_t> owner;
  for (size_t i = 0; i < items.size(); ++i) {
    PlannedItem& item = items[i];
    if (!item.error.empty()) continue;
    std::string rel = item.relative;
    rel.resize(rel.size() - format_extension(rel, item.format).size());
    item.output = generic(utf8_path(options.output_dir) / utf8_path(rel + std::string(ext)));
    auto [it, fresh] = owner.emplace(canonical(item.output), i);
    if (!fresh)
      item.error = fmt::format("its output {} is also {}'s: rename one, or convert them in separate runs", item.output,
                               items[it->second].input);
  }
}

}  // namespace

std::vector<PlannedItem> plan(const BatchOptions& options, unsigned jobs, std::string_view extension) {
  Collector c{options, {}, {}, {}};
  if (options.task == BatchTask::Convert && !options.output_dir.empty()) {
    std::error_code ec;
    c.output_canonical = generic(fs::weakly_canonical(utf8_path(options.output_dir), ec));
  }
  for (const std::string& input : options.inputs) c.add_input(input);
  std::stable_sort(c.items.begin(), c.items.end(), [](const PlannedItem& a, const PlannedItem& b) {
    return std::tie(a.relative, a.root) < std::tie(b.relative, b.root);
  });
  if (options.task == BatchTask::Convert) {
    attach_animation_files(c.items, options, jobs);
    name_outputs(c.items, options, extension);
  }
  return std::move(c.items);
}

void record_progress(BatchProgress& p, const BatchItem* finished, const std::string& current, double seconds) {
  if (finished) {
    ++p.finished;
    p.failed += finished->status == BatchStatus::Failed;
    p.warned += finished->status == BatchStatus::Warned;
    p.skipped += finished->status == BatchStatus::Skipped;
  } else {
    p.current = current;
  }
  p.item = finished;
  p.seconds = seconds;
}

}  // namespace meshport::batch_detail
