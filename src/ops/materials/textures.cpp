// Finding a model's textures on disk (include/meshport/textures.h, docs/textures.md, "Finding textures").
#include "ops/materials/textures.h"
#include "core/utf8_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

namespace meshport {
namespace fs = std::filesystem;

std::string extension_slot(size_t k) { return fmt::format("extension texture {}", k); }

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
      out.push_back({w[1], "base colour", strip_texture_commands(w[2]), c.line, ""});
    } else if (applies && w[0] == "iqmbumpmap" && w.size() >= 3) {
      out.push_back({w[1], "normal", strip_texture_commands(w[2]), c.line, ""});
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
    out.push_back({mesh, "base colour", path, line, ""});
  });
  return out;
}

std::vector<uint8_t> read_texture_file(const std::string& file, std::string& error) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(utf8_path(file), ec);
  if (ec) {
    error = "cannot read it: " + ec.message();
    return {};
  }
  if (size > kMaxTextureFileBytes) {
    error = fmt::format("it has {} bytes, more than the {} MiB a texture may have", size, kMaxTextureFileBytes >> 20);
    return {};
  }
  std::ifstream f(utf8_path(file), std::ios::binary);
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

std::string generic(const fs::path& p) { return generic_utf8(p); }

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
    fs::directory_iterator d(utf8_path(key), ec);
    if (!ec) {
      l.emplace();
      for (; d != fs::directory_iterator() && l->entries.size() < kMaxListing; d.increment(ec)) {
        if (ec) break;
        std::error_code ec2;
        l->entries.push_back({path_utf8(d->path().filename()), d->is_directory(ec2)});
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

// ---- iqm.cfg with exec and iqmdir ------------------------------------------------------------

bool inside_tree(std::string_view p) {
  if (p.empty() || absolute_reference(p)) return false;
  for (const std::string& part : split_path(p))
    if (part == "..") return false;
  return true;
}

// `rel` inside `dir`, each component the exact entry or else one that differs in case only.
std::optional<fs::path> find_in(const fs::path& dir, std::string_view rel, bool want_dir) {
  fs::path cur = dir;
  const std::vector<std::string> parts = split_path(rel);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == ".") continue;
    std::error_code ec;
    fs::path next = cur / utf8_path(parts[i]);
    if (!fs::exists(next, ec)) {
      std::optional<fs::path> any;
      size_t seen = 0;
      for (fs::directory_iterator d(cur.empty() ? fs::path(".") : cur, ec); !ec && d != fs::directory_iterator() && seen < kMaxListing;
           d.increment(ec), ++seen)
        if (iequal(path_utf8(d->path().filename()), parts[i])) {
          any = cur / d->path().filename();
          break;
        }
      if (!any) return std::nullopt;
      next = *any;
    }
    cur = next;
  }
  std::error_code ec;
  if (parts.empty() || fs::is_directory(cur, ec) != want_dir) return std::nullopt;
  return cur;
}

std::optional<std::string> read_sidecar(const fs::path& p) {
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

// Runs the commands of a model's iqm.cfg and the files it execs (ops::read_iqm_config).
class CfgReader {
 public:
  explicit CfgReader(const std::string& model_path)
      : model_dir_(utf8_path(model_path).parent_path()), model_file_(path_utf8(utf8_path(model_path).filename())) {
    dir_ = model_dir_;
  }

  ops::IqmConfig read() {
    if (auto cfg = find_in(model_dir_, "iqm.cfg", false))
      if (auto text = read_sidecar(*cfg)) run(*text, "", 0);
    return std::move(out_);
  }

 private:
  fs::path model_dir_;
  std::string model_file_;
  fs::path dir_;  // the folder paths are relative to (the engine's model dir, set by iqmdir)
  bool dir_moved_ = false;
  bool applies_ = true;
  int files_ = 1;
  ops::IqmConfig out_;

  fs::path base() const { return model_dir_.empty() ? fs::path(".") : model_dir_; }

  std::string relative_to_model(const fs::path& p) const {
    std::error_code ec;
    const fs::path a = fs::absolute(p, ec).lexically_normal(), b = fs::absolute(base(), ec).lexically_normal();
    const fs::path r = a.lexically_relative(b);
    return generic(r.empty() ? p : r);
  }

  // `path` as the engine opens it (relative to the model dir), relative to the model's folder.
  std::string in_dir(const std::string& path) const {
    if (!dir_moved_) return path;
    return relative_to_model(dir_ / utf8_path(path).relative_path());
  }

  // `rel` inside the game's data tree: the nearest folder above the model's that holds it.
  std::optional<fs::path> in_data_tree(std::string_view rel, bool want_dir) const {
    fs::path up = base();
    for (int level = 0; level < ops::kMaxDataRootLevels; ++level) {
      up /= "..";
      if (auto f = find_in(up, rel, want_dir)) return f;
    }
    return std::nullopt;
  }

  void note(const std::string& where, std::string what) { out_.notes.push_back(where + ": " + std::move(what)); }

  void run(std::string_view text, const std::string& label, int depth) {
    const std::string file = label.empty() ? "iqm.cfg" : label;
    for (const ops::CfgCommand& c : ops::iqm_cfg_commands(text)) {
      const std::vector<std::string>& w = c.words;
      const std::string where = fmt::format("{}:{}", file, c.line);
      if (w[0] == "iqmload" && w.size() >= 2) {
        applies_ = iequal(file_name_of(w[1]), model_file_);
        continue;
      }
      if (!applies_ || w.size() < 2) continue;
      if ((w[0] == "iqmskin" || w[0] == "iqmbumpmap") && w.size() >= 3) {
        std::string path = strip_texture_commands(w[2]);
        if (!path.empty())
          out_.skins.push_back({w[1], w[0] == "iqmskin" ? "base colour" : "normal", in_dir(path), c.line, label});
      } else if (w[0] == "iqmanim" && w.size() >= 3) {
        ops::IqmAnimEntry a;
        for (std::string& n : split_names(w[1])) a.names.push_back(std::move(n));
        a.file = in_dir(w[2]);
        if (w.size() >= 4) {
          char* end = nullptr;
          const float fps = std::strtof(w[3].c_str(), &end);
          if (end != w[3].c_str() && std::isfinite(fps) && fps > 0) a.fps = fps;
        }
        a.source = where;
        if (!a.names.empty()) out_.anims.push_back(std::move(a));
      } else if (w[0] == "iqmdir") {
        if (!inside_tree(w[1])) {
          note(where, fmt::format("iqmdir \"{}\" not followed: outside the game's data tree", w[1]));
        } else if (auto d = in_data_tree(w[1], true)) {
          dir_ = *d;
          dir_moved_ = true;
        } else {
          note(where, fmt::format("iqmdir \"{}\" not found in a folder above the model's", w[1]));
        }
      } else if (w[0] == "exec") {
        exec(w[1], where, depth);
      }
    }
  }

  void exec(const std::string& name, const std::string& where, int depth) {
    if (!inside_tree(name)) return note(where, fmt::format("exec \"{}\" not followed: outside the game's data tree", name));
    if (depth + 1 > ops::kMaxExecDepth)
      return note(where, fmt::format("exec \"{}\" not followed: more than {} nested", name, ops::kMaxExecDepth));
    if (files_ >= ops::kMaxExecFiles)
      return note(where, fmt::format("exec \"{}\" not followed: more than {} files", name, ops::kMaxExecFiles));
    const std::optional<fs::path> f = in_data_tree(name, false);
    if (!f) return note(where, fmt::format("exec \"{}\" not found in a folder above the model's", name));
    const std::optional<std::string> text = read_sidecar(*f);
    if (!text) return note(where, fmt::format("exec \"{}\" cannot be read (or has more than 1 MiB)", name));
    ++files_;
    run(*text, relative_to_model(*f), depth + 1);
  }

  static std::vector<std::string> split_names(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
      if (i == s.size() || s[i] == '|') {
        std::string n(trim(std::string_view(s).substr(start, i - start)));
        if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
        start = i + 1;
      }
    return out;
  }
};

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
      model_dir_ = utf8_path(search.model_path).parent_path();
      folders_.push_back({model_dir_, "model folder"});
    }
    for (size_t i = 0; i < search.dirs.size(); ++i)
      if (!search.dirs[i].empty()) folders_.push_back({utf8_path(search.dirs[i]), fmt::format("texture folder {}", i + 1)});
    if (!search.model_path.empty()) {
      warzone_layout();
      sidecars();
    }
  }

  std::vector<TextureLookup> run() {
    std::vector<TextureLookup> out;
    for (size_t m = 0; m < scene_.materials.size(); ++m) {
      const Material& mat = scene_.materials[m];
      std::vector<std::pair<std::string, const std::string*>> slots = {
          {"base colour", &mat.base_color_texture},
          {"normal", &mat.normal_texture},
          {"specular", &mat.specular_texture},
          {"team colour", &mat.team_colour_texture},
          {"metallic roughness", &mat.metallic_roughness_texture.texture},
          {"occlusion", &mat.occlusion_texture.texture},
          {"emissive", &mat.emissive_texture.texture}};
      for (size_t k = 0; k < mat.extension_textures.size(); ++k)
        slots.emplace_back(extension_slot(k), &mat.extension_textures[k]);
      for (const auto& [slot_name, ref] : slots) {
        const char* slot = slot_name.c_str();
        std::vector<TextureLookup> candidates;
        std::string note;
        const bool base_slot = std::string_view(slot) == "base colour";
        if (const TextureAssignment* a = base_slot ? assignment_for(mat.name) : nullptr) {
          out.push_back(assigned(int32_t(m), *a));
          continue;
        }
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

  // The last assignment for a material called `name` (or for every material).
  const TextureAssignment* assignment_for(const std::string& name) const {
    const TextureAssignment* found = nullptr;
    for (const TextureAssignment& a : search_.assigned)
      if (a.material.empty() || a.material == name) found = &a;
    return found;
  }

  TextureLookup assigned(int32_t material, const TextureAssignment& a) {
    TextureLookup l = candidate(material, "base colour", a.file, "--texture");
    std::error_code ec;
    if (fs::is_regular_file(utf8_path(a.file), ec)) {
      l.file = generic(utf8_path(a.file).lexically_normal());
      l.relative = relative_to_model(utf8_path(a.file));
      l.rule = "--texture";
    } else {
      l.reason = "no such file";
      l.searched_folders = {"."};
      l.tried_names = {a.file};
    }
    return l;
  }

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
    return dir / utf8_path(e->name);
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
      if (!p.empty()) names.push_back(path_utf8(p));
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
  void sidecars() {
    const fs::path model = utf8_path(search_.model_path);
    const std::string file = path_utf8(model.filename());
    const std::string stem = path_utf8(model.stem());
    bool differs = false;
    if (iequal(path_utf8(model.extension()), ".iqm")) iqm_cfg_ = CfgReader(search_.model_path).read().skins;
    for (const std::string& name : {stem + ".skin", stem + "_default.skin", file + "_0.skin"}) {
      const Entry* e = listing_.find(model_dir_, name, differs);
      if (!e || e->dir) continue;
      if (auto text = read_sidecar(model_dir_ / utf8_path(e->name))) {
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
      return candidate(material, slot, first->path,
                       fmt::format("{}:{}", first->file.empty() ? src.file : first->file, first->line));
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
      cur /= utf8_path(e->name);
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
    for (const Folder& f : folders_) l.searched_folders.push_back(f.path.empty() ? "." : generic(f.path));
    for (const auto& [parts, suffix] : tries) {
      std::string name;
      for (size_t i = 0; i < parts.size(); ++i) name += (i ? "/" : "") + parts[i];
      if (std::find(l.tried_names.begin(), l.tried_names.end(), name) == l.tried_names.end())
        l.tried_names.push_back(std::move(name));
    }
    if (folders_.empty())
      l.reason = "no folder to search";
    else
      l.reason = fmt::format("no such file in the {} (also tried by file name, other extensions and any case)",
                             where);
  }
};

}  // namespace

namespace ops {

IqmConfig read_iqm_config(const std::string& model_path) { return CfgReader(model_path).read(); }

std::vector<IqmAnimEntry> iqm_animations_for(const std::string& model_path, const std::string& animation_file) {
  std::vector<IqmAnimEntry> out;
  if (model_path.empty() || !iequal(path_utf8(utf8_path(model_path).extension()), ".iqm")) return out;
  const fs::path dir = utf8_path(model_path).parent_path();
  for (IqmAnimEntry& a : read_iqm_config(model_path).anims) {
    std::error_code ec;
    if (fs::equivalent(dir.empty() ? utf8_path(a.file) : dir / utf8_path(a.file), utf8_path(animation_file), ec) && !ec)
      out.push_back(std::move(a));
  }
  return out;
}

void name_animations_from_iqm_cfg(Scene& animations, const std::string& model_path, const std::string& animation_file,
                                  Diagnostics* diags) {
  if (animations.animations.empty()) return;
  const std::vector<IqmAnimEntry> entries = iqm_animations_for(model_path, animation_file);
  if (entries.empty()) return;
  std::vector<std::string> names;
  float fps = 0;
  std::string fps_source;
  for (const IqmAnimEntry& e : entries) {
    for (const std::string& n : e.names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    if (fps == 0 && e.fps > 0) fps = e.fps, fps_source = e.source;
  }
  Animation& a = animations.animations.front();
  std::string name;
  for (size_t i = 0; i < names.size(); ++i) name += (i ? "|" : "") + names[i];
  std::string what = fmt::format("clip '{}' named '{}'", a.name, name);
  a.name = name;
  if (fps > 0 && a.times.empty() && a.framerate != fps) {
    what += fmt::format(", {} frames per second (was {})", fps, a.framerate);
    a.framerate = fps;
  } else if (fps > 0 && !a.times.empty()) {
    what += fmt::format(" (its keys are timed: the {} frames per second of {} are not applied)", fps, fps_source);
  }
  if (diags) diags->add(note(animation_file, fmt::format("{} by {}", what, entries.front().source)));
}

}  // namespace ops

std::vector<TextureLookup> find_textures(const Scene& scene, const TextureSearch& search) {
  return Finder(scene, search).run();
}

TextureSearch texture_search(const WriteOptions& options) {
  TextureSearch s;
  s.assigned = options.texture_assignments;
  s.model_path = options.texture_model;
  if (s.model_path.empty() && !options.texture_dir.empty()) s.dirs.push_back(options.texture_dir);
  s.dirs.insert(s.dirs.end(), options.texture_dirs.begin(), options.texture_dirs.end());
  return s;
}

void check_texture_assignments(const Scene& scene, const std::vector<TextureAssignment>& assigned,
                               const std::string& file) {
  if (assigned.empty()) return;
  if (scene.materials.empty()) fail(file, "--texture: the model has no material to give a texture");
  for (const TextureAssignment& a : assigned) {
    if (!a.material.empty() &&
        std::none_of(scene.materials.begin(), scene.materials.end(), [&](const Material& m) { return m.name == a.material; })) {
      std::string names;
      for (size_t i = 0; i < scene.materials.size(); ++i) names += fmt::format("{}'{}'", i ? ", " : "", scene.materials[i].name);
      fail(file, fmt::format("--texture {}={}: the model has no material '{}' (its materials: {})", a.material, a.file,
                             a.material, names));
    }
    std::error_code ec;
    if (!fs::is_regular_file(utf8_path(a.file), ec))
      fail(file, fmt::format("--texture {}{}: no such file '{}'", a.material.empty() ? "" : a.material + "=", a.file, a.file));
  }
}

std::string textures_not_found_message(const Scene& scene, int32_t material, const std::vector<TextureLookup>& lookups,
                                       bool names_are_references) {
  if (material < 0 || size_t(material) >= scene.materials.size()) return {};
  std::string parts;
  for (const TextureLookup& l : lookups) {
    if (l.material != material || l.found()) continue;
    if (l.source == "material name" && !names_are_references) continue;
    const std::string from = l.source == "material" ? std::string() : fmt::format(" (from {})", l.source);
    parts += fmt::format("{}{} texture '{}'{} not found: {}", parts.empty() ? "" : "; ", l.slot, l.reference, from,
                         l.reason);
    if (l.searched_folders.empty() || l.source == "--texture") continue;
    std::string names, folders;
    const size_t shown = std::min<size_t>(l.tried_names.size(), 12);
    for (size_t i = 0; i < shown; ++i) names += (i ? ", " : "") + l.tried_names[i];
    if (shown < l.tried_names.size()) names += fmt::format(" and {} more", l.tried_names.size() - shown);
    for (size_t i = 0; i < l.searched_folders.size(); ++i) folders += (i ? ", " : "") + l.searched_folders[i];
    parts += fmt::format(" (looked for as {} in {})", names, folders);
  }
  if (parts.empty()) return {};
  const std::string& name = scene.materials[size_t(material)].name;
  return fmt::format("material '{}': {}; the output has no texture there (--textures DIR adds a folder to search, "
                     "--texture {}=FILE assigns a file)",
                     name, parts, name);
}

bool material_names_are_textures(const std::string& model_path) {
  const std::optional<Format> f = format_from_path(model_path);
  return f && (*f == Format::Iqm || *f == Format::Iqe || *f == Format::Qmsh || *f == Format::QmshTmp);
}

}  // namespace meshport
