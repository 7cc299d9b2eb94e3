// Finding a model's textures on disk (include/meshport/textures.h, docs/textures.md, "Finding textures").
#include "ops/textures.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

namespace meshport {
namespace fs = std::filesystem;

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return lower(x) == lower(y);
         });
}

bool istarts(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequal(s.substr(0, prefix.size()), prefix);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The text of a line before a `//` comment outside double quotes.
std::string_view strip_comment(std::string_view line) {
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') quoted = !quoted;
    if (!quoted && line[i] == '/' && i + 1 < line.size() && line[i + 1] == '/') return line.substr(0, i);
  }
  return line;
}

// Words of a command: white-space separated, "double quoted" words may hold spaces.
std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    if (i >= s.size()) break;
    std::string w;
    if (s[i] == '"') {
      ++i;
      while (i < s.size() && s[i] != '"') w += s[i++];
      ++i;
    } else {
      while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') w += s[i++];
    }
    out.push_back(std::move(w));
  }
  return out;
}

// Calls f(line_number, text) for each line of `text`, comments removed.
template <class F>
void each_line(std::string_view text, F f) {
  size_t line = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view l = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    f(++line, strip_comment(l));
  }
}

std::string file_name_of(std::string_view path) {
  size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// "<dds><mad:0.5>skin.png" -> "skin.png"
std::string strip_texture_commands(std::string s) {
  while (!s.empty() && s[0] == '<') {
    size_t end = s.find('>');
    if (end == std::string::npos) break;
    s.erase(0, end + 1);
  }
  return s;
}

}  // namespace

namespace ops {

std::vector<CfgCommand> iqm_cfg_commands(std::string_view text) {
  std::vector<CfgCommand> out;
  each_line(text, [&](size_t line, std::string_view l) {
    // Commands separated by ';' outside quotes.
    bool quoted = false;
    size_t start = 0;
    for (size_t i = 0; i <= l.size(); ++i) {
      if (i < l.size() && l[i] == '"') quoted = !quoted;
      if (i < l.size() && (quoted || l[i] != ';')) continue;
      std::vector<std::string> w = words(l.substr(start, i - start));
      start = i + 1;
      if (!w.empty()) out.push_back({line, std::move(w)});
    }
  });
  return out;
}

std::vector<SkinEntry> parse_iqm_cfg(std::string_view text, std::string_view model_file) {
  std::vector<SkinEntry> out;
  bool applies = true;
  for (const CfgCommand& c : iqm_cfg_commands(text)) {
    const std::vector<std::string>& w = c.words;
    if (w[0] == "iqmload" && w.size() >= 2) {
      applies = iequal(file_name_of(w[1]), model_file);
    } else if (applies && w[0] == "iqmskin" && w.size() >= 3) {
      out.push_back({w[1], "base colour", strip_texture_commands(w[2]), c.line});
    } else if (applies && w[0] == "iqmbumpmap" && w.size() >= 3) {
      out.push_back({w[1], "normal", strip_texture_commands(w[2]), c.line});
    }
  }
  for (size_t i = out.size(); i-- > 0;)
    if (out[i].path.empty()) out.erase(out.begin() + std::ptrdiff_t(i));
  return out;
}

std::vector<SkinEntry> parse_skin(std::string_view text) {
  std::vector<SkinEntry> out;
  each_line(text, [&](size_t line, std::string_view l) {
    l = trim(l);
    if (l.empty()) return;
    std::string mesh, path;
    if (istarts(l, "replace ") || istarts(l, "replace\t")) {
      std::vector<std::string> w = words(l);
      if (w.size() < 3) return;
      mesh = w[1], path = w[2];
    } else {
      size_t comma = l.find(',');
      if (comma == std::string_view::npos) return;
      mesh = std::string(trim(l.substr(0, comma)));
      path = std::string(trim(l.substr(comma + 1)));
      if (path.size() >= 2 && path.front() == '"' && path.back() == '"') path = path.substr(1, path.size() - 2);
    }
    if (mesh.empty() || path.empty() || istarts(mesh, "tag_")) return;
    out.push_back({mesh, "base colour", path, line});
  });
  return out;
}

std::vector<uint8_t> read_texture_file(const std::string& file, std::string& error) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec) {
    error = "cannot read it: " + ec.message();
    return {};
  }
  if (size > kMaxTextureFileBytes) {
    error = fmt::format("it has {} bytes, more than the {} MiB a texture may have", size, kMaxTextureFileBytes >> 20);
    return {};
  }
  std::ifstream f(file, std::ios::binary);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (!f || !f.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size))) {
    error = "cannot read it";
    return {};
  }
  return bytes;
}

}  // namespace ops

namespace {

using ops::SkinEntry;

constexpr size_t kMaxListing = 1 << 16;           // entries kept of one folder
constexpr uintmax_t kMaxSidecarBytes = 1 << 20;  // a larger iqm.cfg / .skin is not read
constexpr int kMaxLayoutLevels = 4;              // folders above the model the layouts look at

std::string lowered(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = lower(c);
  return r;
}

std::string generic(const fs::path& p) { return p.generic_string(); }

struct Entry {
  std::string name;
  bool dir = false;
};

struct Listing {
  std::vector<Entry> entries;                 // sorted by name
  std::map<std::string, size_t> by_lower;     // lower-case name -> first entry with it
};

// Directory listings, each folder read at most once per find_textures() call.
class Folders {
 public:
  const Listing* list(const fs::path& dir) {
    std::string key = generic(dir.empty() ? fs::path(".") : dir);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second ? &*it->second : nullptr;
    std::optional<Listing> l;
    std::error_code ec;
    fs::directory_iterator d(key, ec);
    if (!ec) {
      l.emplace();
      for (; d != fs::directory_iterator() && l->entries.size() < kMaxListing; d.increment(ec)) {
        if (ec) break;
        std::error_code ec2;
        l->entries.push_back({d->path().filename().string(), d->is_directory(ec2)});
      }
      std::sort(l->entries.begin(), l->entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
      for (size_t i = 0; i < l->entries.size(); ++i) l->by_lower.emplace(lowered(l->entries[i].name), i);
    }
    auto [pos, inserted] = cache_.emplace(key, std::move(l));
    return pos->second ? &*pos->second : nullptr;
  }

  // `name` in `dir`: the exact entry, else the first (by name) that matches ignoring case.
  const Entry* find(const fs::path& dir, std::string_view name, bool& case_differs) {
    const Listing* l = list(dir);
    if (!l) return nullptr;
    auto exact = std::lower_bound(l->entries.begin(), l->entries.end(), name,
                                  [](const Entry& e, std::string_view n) { return e.name < n; });
    if (exact != l->entries.end() && exact->name == name) return &*exact;
    auto any = l->by_lower.find(lowered(name));
    if (any == l->by_lower.end()) return nullptr;
    case_differs = true;
    return &l->entries[any->second];
  }

 private:
  std::map<std::string, std::optional<Listing>> cache_;
};

std::vector<std::string> split_path(std::string_view p) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : p) {
    if (c == '/' || c == '\\') {
      if (!cur.empty()) parts.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(std::move(cur));
  return parts;
}

bool absolute_reference(std::string_view r) {
  return (!r.empty() && (r[0] == '/' || r[0] == '\\')) || (r.size() >= 2 && r[1] == ':');
}

bool image_extension(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  std::string ext = lowered(name.substr(dot));
  return std::any_of(std::begin(kTextureExtensions), std::end(kTextureExtensions),
                     [&](std::string_view e) { return e == ext; });
}

struct Folder {
  fs::path path;
  std::string label;
};

struct Hit {
  std::string file;
  std::string rule;
};

class Finder {
 public:
  Finder(const Scene& scene, const TextureSearch& search) : scene_(scene), search_(search) {
    if (!search.model_path.empty()) {
      model_dir_ = fs::path(search.model_path).parent_path();
      folders_.push_back({model_dir_, "model folder"});
    }
    for (size_t i = 0; i < search.dirs.size(); ++i)
      if (!search.dirs[i].empty()) folders_.push_back({fs::path(search.dirs[i]), fmt::format("texture folder {}", i + 1)});
    if (!search.model_path.empty()) {
      warzone_layout();
      sidecars();
    }
  }

  std::vector<TextureLookup> run() {
    std::vector<TextureLookup> out;
    for (size_t m = 0; m < scene_.materials.size(); ++m) {
      const Material& mat = scene_.materials[m];
      const std::pair<const char*, const std::string*> slots[] = {{"base colour", &mat.base_color_texture},
                                                                    {"normal", &mat.normal_texture},
                                                                    {"specular", &mat.specular_texture},
                                                                    {"team colour", &mat.team_colour_texture}};
      for (const auto& [slot, ref] : slots) {
        std::vector<TextureLookup> candidates;
        std::string note;
        if (auto side = sidecar_for(int32_t(m), slot, note)) candidates.push_back(*side);
        if (!ref->empty()) candidates.push_back(candidate(int32_t(m), slot, *ref, "material"));
        bool base = std::string_view(slot) == "base colour";
        if (base && ref->empty() && !mat.name.empty())
          candidates.push_back(candidate(int32_t(m), slot, mat.name, "material name"));
        if (candidates.empty()) continue;
        std::vector<std::string> reasons;
        std::optional<TextureLookup> chosen;
        for (TextureLookup& c : candidates) {
          resolve(c);
          if (c.found()) {
            chosen = std::move(c);
            break;
          }
          reasons.push_back(candidates.size() > 1 ? fmt::format("{} \"{}\": {}", c.source, c.reference, c.reason)
                                                  : c.reason);
        }
        if (!chosen) {
          chosen = std::move(candidates.front());
          chosen->reason.clear();
          for (size_t i = 0; i < reasons.size(); ++i) chosen->reason += (i ? "; " : "") + reasons[i];
        }
        chosen->note = note;
        out.push_back(std::move(*chosen));
      }
    }
    return out;
  }

 private:
  const Scene& scene_;
  const TextureSearch& search_;
  fs::path model_dir_;
  std::vector<Folder> folders_;
  Folders listing_;
  std::vector<SkinEntry> iqm_cfg_, skin_;
  std::string skin_name_;

  static TextureLookup candidate(int32_t material, const char* slot, std::string ref, std::string source) {
    TextureLookup l;
    l.material = material;
    l.slot = slot;
    l.reference = std::move(ref);
    l.source = std::move(source);
    return l;
  }

  // ---- Layouts -------------------------------------------------------------------------------
  void add_folder(const fs::path& p, const std::string& label) {
    for (const Folder& f : folders_)
      if (generic(f.path.lexically_normal()) == generic(p.lexically_normal())) return;
    folders_.push_back({p, label});
  }

  // `sub` (any case) inside `dir` when it is a folder.
  std::optional<fs::path> subfolder(const fs::path& dir, std::string_view sub) {
    bool differs = false;
    const Entry* e = listing_.find(dir, sub, differs);
    if (!e || !e->dir) return std::nullopt;
    return dir / e->name;
  }

  // Warzone 2100: the model sits in components/, structs/, features/, effects/ or misc/ (or a
  // folder inside one, up to kMaxLayoutLevels deep) of a data tree whose texpages/ holds the
  // pages; an mp/ or mod tree also gets base/texpages beside it, as the game mounts base under
  // them. A texpages/ folder beside the model counts too.
  void warzone_layout() {
    static constexpr std::string_view kData[] = {"components", "structs", "features", "effects", "misc"};
    const std::string label = "Warzone 2100 texpages";
    if (auto t = subfolder(model_dir_, "texpages")) add_folder(*t, label);
    std::error_code ec;
    fs::path abs = fs::absolute(model_dir_.empty() ? fs::path(".") : model_dir_, ec).lexically_normal();
    if (ec) return;
    std::vector<std::string> names;  // the model folder's path, root first
    for (const fs::path& p : abs.relative_path())
      if (!p.empty()) names.push_back(p.string());
    fs::path up = model_dir_;  // the relative spelling of the ancestor looked at
    for (size_t level = 0; level < size_t(kMaxLayoutLevels) && level < names.size(); ++level) {
      const std::string& name = names[names.size() - 1 - level];
      fs::path root = up / "..";
      if (std::any_of(std::begin(kData), std::end(kData), [&](std::string_view d) { return iequal(d, name); })) {
        if (auto t = subfolder(root, "texpages")) add_folder(*t, label);
        bool in_base = level + 2 <= names.size() && iequal(names[names.size() - 2 - level], "base");
        if (!in_base)
          if (auto t = subfolder(root / ".." / "base", "texpages")) add_folder(*t, label);
        return;
      }
      up = root;
    }
  }

  // ---- Sidecars ------------------------------------------------------------------------------
  std::optional<std::string> read_small(const fs::path& p) {
    std::error_code ec;
    uintmax_t size = fs::file_size(p, ec);
    if (ec || size > kMaxSidecarBytes) return std::nullopt;
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(size_t(size), '\0');
    in.read(text.data(), std::streamsize(size));
    text.resize(size_t(in.gcount()));
    return text;
  }

  void sidecars() {
    const fs::path model(search_.model_path);
    const std::string file = model.filename().string();
    const std::string stem = model.stem().string();
    bool differs = false;
    if (iequal(model.extension().string(), ".iqm")) {
      if (const Entry* e = listing_.find(model_dir_, "iqm.cfg", differs); e && !e->dir)
        if (auto text = read_small(model_dir_ / e->name)) iqm_cfg_ = ops::parse_iqm_cfg(*text, file);
    }
    for (const std::string& name : {stem + ".skin", stem + "_default.skin", file + "_0.skin"}) {
      const Entry* e = listing_.find(model_dir_, name, differs);
      if (!e || e->dir) continue;
      if (auto text = read_small(model_dir_ / e->name)) {
        skin_ = ops::parse_skin(*text);
        skin_name_ = e->name;
      }
      break;
    }
  }

  // The texture the sidecars name for the meshes using `material` in `slot` (iqm.cfg first, then
  // .skin); a conflict between meshes goes to `note`.
  std::optional<TextureLookup> sidecar_for(int32_t material, const char* slot, std::string& note) {
    struct Source {
      const std::vector<SkinEntry>* entries;
      std::string file;
      bool any_case;
    };
    const Source sources[] = {{&iqm_cfg_, "iqm.cfg", false}, {&skin_, skin_name_, true}};
    for (const Source& src : sources) {
      std::vector<std::pair<std::string, const SkinEntry*>> per_mesh;  // mesh name, its entry
      for (const Mesh& mesh : scene_.meshes) {
        if (mesh.material != material) continue;
        const SkinEntry* last = nullptr;
        for (const SkinEntry& e : *src.entries)
          if (e.slot == slot &&
              (e.mesh == "*" || (src.any_case ? iequal(e.mesh, mesh.name) : e.mesh == mesh.name)))
            last = &e;
        if (last) per_mesh.emplace_back(mesh.name, last);
      }
      if (per_mesh.empty()) continue;
      const SkinEntry* first = per_mesh.front().second;
      bool conflict = std::any_of(per_mesh.begin(), per_mesh.end(),
                                  [&](const auto& p) { return p.second->path != first->path; });
      if (conflict) {
        note = fmt::format("{} names different textures for the meshes of this material:", src.file);
        for (size_t i = 0; i < per_mesh.size(); ++i)
          note += fmt::format("{} \"{}\" {}", i ? "," : "", per_mesh[i].first, per_mesh[i].second->path);
        note += "; the first is used";
      }
      return candidate(material, slot, first->path, fmt::format("{}:{}", src.file, first->line));
    }
    return std::nullopt;
  }

  // ---- Resolving -----------------------------------------------------------------------------
  // `parts` (a relative path) inside `dir`, any case; the file, or nothing.
  std::optional<fs::path> locate(const fs::path& dir, const std::vector<std::string>& parts, bool& differs) {
    fs::path cur = dir;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& p = parts[i];
      if (p == ".") continue;
      if (p == "..") {
        cur /= "..";
        continue;
      }
      const Entry* e = listing_.find(cur, p, differs);
      if (!e || e->dir != (i + 1 < parts.size())) return std::nullopt;
      cur /= e->name;
    }
    return cur;
  }

  // The names tried in one folder, in order, with the rule suffix each gives.
  static std::vector<std::pair<std::vector<std::string>, std::string>> forms(std::string_view ref) {
    std::vector<std::pair<std::vector<std::string>, std::string>> out;
    std::vector<std::string> parts = split_path(ref);
    if (parts.empty()) return out;
    std::vector<std::string> name_only{parts.back()};
    const bool absolute = absolute_reference(ref);
    auto with_extensions = [&](std::vector<std::string> p, const std::string& suffix) {
      std::string stem = p.back();
      if (image_extension(stem)) stem = stem.substr(0, stem.rfind('.'));
      for (std::string_view e : kTextureExtensions) {
        p.back() = stem + std::string(e);
        if (iequal(p.back(), parts.back())) continue;
        out.emplace_back(p, suffix + ", extension " + std::string(e));
      }
    };
    if (!absolute && parts.size() > 1) {
      out.emplace_back(parts, "");
      with_extensions(parts, "");
    }
    out.emplace_back(name_only, parts.size() > 1 ? ", file name only" : "");
    with_extensions(name_only, parts.size() > 1 ? ", file name only" : "");
    return out;
  }

  std::string relative_to_model(const fs::path& file) {
    std::error_code ec;
    fs::path a = fs::absolute(file, ec).lexically_normal();
    fs::path b = fs::absolute(model_dir_.empty() ? fs::path(".") : model_dir_, ec).lexically_normal();
    fs::path r = a.lexically_relative(b);
    return generic(r.empty() ? file.filename() : r);
  }

  void resolve(TextureLookup& l) {
    for (size_t i = 0; i < scene_.images.size(); ++i)
      if (!l.reference.empty() && scene_.images[i].path == l.reference) {
        l.image = int32_t(i);
        l.rule = "embedded";
        return;
      }
    const auto tries = forms(l.reference);
    for (const Folder& f : folders_)
      for (const auto& [parts, suffix] : tries) {
        bool differs = false;
        if (auto hit = locate(f.path, parts, differs)) {
          l.file = generic(hit->lexically_normal());
          l.relative = relative_to_model(*hit);
          l.rule = f.label + suffix + (differs ? ", case differs" : "");
          return;
        }
      }
    std::string where;
    for (size_t i = 0; i < folders_.size(); ++i) where += (i ? ", " : "") + folders_[i].label;
    if (folders_.empty())
      l.reason = "no folder to search";
    else
      l.reason = fmt::format("no such file in the {} (also tried by file name, other extensions and any case)",
                             where);
  }
};

}  // namespace

std::vector<TextureLookup> find_textures(const Scene& scene, const TextureSearch& search) {
  return Finder(scene, search).run();
}

TextureSearch texture_search(const WriteOptions& options) {
  TextureSearch s;
  s.model_path = options.texture_model;
  if (s.model_path.empty() && !options.texture_dir.empty()) s.dirs.push_back(options.texture_dir);
  s.dirs.insert(s.dirs.end(), options.texture_dirs.begin(), options.texture_dirs.end());
  return s;
}

}  // namespace meshport
