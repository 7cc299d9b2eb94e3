// Wavefront OBJ reader and writer, with the MTL material library. References: the "Object Files
// (.obj)" and "Material Library File (.mtl)" appendices of Wavefront's Advanced Visualizer manual.
// Only polygonal geometry is converted; where the format is silent or loose, the choice made here
// is stated in a comment starting "Decision:".
//
// Conventions. OBJ is Y-up, counter-clockwise and unitless, like the Scene: positions, normals and
// face corners are used unchanged. Texture coordinates differ: OBJ's v axis points up from the
// bottom of the image, the Scene's (glTF's) down from the top, so
//     Scene (u, v) = OBJ (u, 1 - v)   and back   OBJ (u, v) = Scene (u, 1 - v).
// The reader reads v as a double and rounds 1 - v to float once; the writer writes the decimal
// with the fewest digits that the reader turns back into the same float. So Scene -> OBJ -> Scene
// keeps every v exactly (all but 0 < |v| < 2^-29, where 1 - v is not exact in double), and
// OBJ -> Scene -> OBJ gives back the file's own short numbers: v = 0, 0.25, 0.5, 1 <-> 1, 0.75,
// 0.5, 0.
//
// Not converted (each ignored with one warning per keyword): points and lines (p, l), curves and
// surfaces (vp, cstype, curv, surf, ...), and the display and rendering statements. MTL files
// give materials their names, base colour texture (map_Kd), emissive colour and texture (Ke,
// map_Ke) only; what else a material holds (glTF's other slots and extensions) is named in a
// warning (ops/materials/material_loss.h). The writer cannot express
// skeletons, animations, blend weights, morph targets, tangents (readers regenerate them) or
// IQE's other smoothing rules; all but tangents are warned about.
//
// Reading is one pass over the text with a line scanner that allocates nothing per line (lines
// continued with a trailing backslash are joined in one reused buffer); numbers go through the
// shared fast decimal path (text.h) and std::from_chars. Positions, texture coordinates and normals
// are collected for the whole file; each face corner names one of each (by 1-based or negative,
// relative index), and every distinct (v, vt, vn) triple of a mesh becomes one Scene vertex, in the
// order of first use. Faces become ops::append_polygon fans, polygon_sizes keeping polygons so
// that they are written back as polygons.
#include "formats/obj/obj.h"

#include <meshport/textures.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/text.h"
#include "core/utf8_path.h"
#include "ops/mesh/triangulate.h"

namespace meshport::obj {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A name or token for a message (text::quoted: cut after 40 bytes, unprintable bytes as \xNN).
std::string quote(std::string_view s) { return text::quoted(s); }

const char* plural(uint64_t n) { return n == 1 ? "" : "s"; }

// A double rounded to float; beyond float range it becomes an infinity of its sign (converting
// such a double directly would be undefined behaviour).
float to_float(double d) {
  if (std::fabs(d) <= double(std::numeric_limits<float>::max())) return float(d);
  if (std::isnan(d)) return std::numeric_limits<float>::quiet_NaN();
  return d < 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
}

// The texture coordinate v of the Scene for an OBJ v read as `file_v` (see the top of the file).
float scene_v(double file_v) { return to_float(1.0 - file_v); }

// ---------------------------------------------------------------------------------------------
// Logical lines: physical lines without their CR LF, joined where a line ends with a backslash.

class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {
    // Decision: a UTF-8 byte order mark is skipped silently (Windows tools write one); columns
    // on the first line are counted after it.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    // Decision: a file without any LF whose lines end with CR (classic Mac OS) is read with CR
    // as the line break.
    const void* lf = text_.empty() ? nullptr : std::memchr(text_.data(), '\n', text_.size());
    if (!lf && !text_.empty() && std::memchr(text_.data(), '\r', text_.size())) break_ = '\r';
  }

  // Moves to the next logical line; false at the end of the text.
  bool next() {
    if (pos_ >= text_.size()) return false;
    segments_.clear();
    const char *b, *e;
    physical(b, e);
    line_ = ++physical_line_;
    begin_ = b;
    end_ = e;
    if (!continues(b, e)) return true;
    // Decision: a backslash that is the last character of a line (before CR LF) joins the next
    // line to it, the backslash and line break counting as one space, unless the backslash is
    // inside a `#` comment. Several lines may be joined; at the end of the file it is dropped.
    joined_.assign(b, size_t(e - 1 - b));
    segments_.push_back({0, line_});
    while (pos_ < text_.size()) {
      joined_ += ' ';
      physical(b, e);
      segments_.push_back({joined_.size(), ++physical_line_});
      bool more = continues(b, e);
      joined_.append(b, size_t((more ? e - 1 : e) - b));
      if (!more) break;
    }
    begin_ = joined_.data();
    end_ = begin_ + joined_.size();
    return true;
  }

  const char* begin() const { return begin_; }
  const char* end() const { return end_; }

  // The physical line and 1-based column of a position in the current logical line.
  std::pair<uint32_t, uint32_t> where(const char* q) const {
    if (segments_.empty()) return {line_, uint32_t(q - begin_) + 1};
    size_t off = size_t(q - begin_);
    size_t k = segments_.size() - 1;
    while (k > 0 && segments_[k].offset > off) --k;
    return {segments_[k].line, uint32_t(off - segments_[k].offset) + 1};
  }

 private:
  struct Segment {
    size_t offset;  // where the physical line starts in joined_
    uint32_t line;
  };
  std::string_view text_;
  size_t pos_ = 0;
  char break_ = '\n';  // what ends a line
  uint32_t physical_line_ = 0;
  uint32_t line_ = 0;
  const char* begin_ = nullptr;
  const char* end_ = nullptr;
  std::string joined_;
  std::vector<Segment> segments_;

  void physical(const char*& b, const char*& e) {
    const char* base = text_.data();
    b = base + pos_;
    const char* nl = static_cast<const char*>(std::memchr(b, break_, text_.size() - pos_));
    e = nl ? nl : base + text_.size();
    pos_ = nl ? size_t(nl - base) + 1 : text_.size();
    if (e > b && e[-1] == '\r') --e;
  }

  // Ends with a backslash that is not inside a comment (a '#' starting a word).
  static bool continues(const char* b, const char* e) {
    if (e == b || e[-1] != '\\') return false;
    for (const char* q = b; q < e - 1; ++q)
      if (*q == '#' && (q == b || is_space(q[-1]))) return false;
    return true;
  }
};

// ---------------------------------------------------------------------------------------------
// Token scanning shared by the OBJ and MTL readers.

class Scanner {
 protected:
  Scanner(std::string_view text, std::string file, Diagnostics& diags)
      : lines_(text), file_(std::move(file)), diags_(diags) {}

  Lines lines_;
  std::string file_;
  Diagnostics& diags_;
  const char* p_ = nullptr;    // scan position in the current line
  const char* end_ = nullptr;  // end of the current line
  const char* tok_ = nullptr;  // start of the last number read
  bool warned_range_ = false;

  bool next_line() {
    if (!lines_.next()) return false;
    p_ = lines_.begin();
    end_ = lines_.end();
    return true;
  }

  [[noreturn]] void error(const char* at, std::string msg) const {
    auto [line, col] = lines_.where(at);
    fail_at_line(file_, line, col, std::move(msg));
  }
  void warn(const char* at, std::string msg) {
    auto [line, col] = lines_.where(at);
    diags_.add(warning_at_line(file_, line, col, std::move(msg)));
  }

  void skip_space() {
    while (p_ < end_ && is_space(*p_)) ++p_;
  }
  // True when a value follows; `#` starts a comment that runs to the end of the line.
  bool more() {
    skip_space();
    return p_ < end_ && *p_ != '#';
  }
  // The next white-space separated word (empty at the end of the line or at a comment).
  std::string_view word() {
    if (!more()) return {};
    const char* s = p_;
    while (p_ < end_ && !is_space(*p_)) ++p_;
    return {s, size_t(p_ - s)};
  }
  // Decision: names (o, g, usemtl, newmtl) and file names (mtllib, map_Kd) are the rest of the
  // line, trimmed, so they may contain spaces; a '#' that starts a word begins a comment, one
  // inside a word is part of the name.
  std::string_view rest() {
    skip_space();
    const char* s = p_;
    const char* e = s;
    for (const char* q = s; q < end_; ++q) {
      if (*q == '#' && (q == s || is_space(q[-1]))) break;
      if (!is_space(*q)) e = q + 1;
    }
    p_ = end_;
    return {s, size_t(e - s)};
  }
  std::string_view word_at(const char* q) const {
    const char* e = q;
    while (e < end_ && !is_space(*e)) ++e;
    return {q, size_t(e - q)};
  }
  [[noreturn]] void malformed(const char* at) const {
    error(at, fmt::format("malformed number {}", quote(word_at(at))));
  }

  bool number_end(const char* q) const { return q == end_ || is_space(*q) || *q == '#'; }
  // from_chars takes no leading '+'; strtod, which other OBJ tools use, does.
  const char* skip_plus(const char* q) const {
    if (q < end_ && *q == '+') {
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) malformed(q - 1);
    }
    return q;
  }

  // Decision: a value beyond float range becomes +-inf (with one warning per file), one too small
  // for a float 0 or a denormal, as strtof gives; past double's range the same, by the exponent.
  double out_of_range(const char* q, const char* e) {
    double d = 0;
    auto r = std::from_chars(q, e, d);
    if (r.ec != std::errc()) {
      std::string_view s(q, size_t(e - q));
      size_t x = s.find_first_of("eE");
      bool tiny = x != std::string_view::npos && x + 1 < s.size() && s[x + 1] == '-';
      d = tiny ? 0.0 : std::numeric_limits<double>::infinity();
      if (*q == '-') d = -d;
    }
    return d;
  }
  void note_infinity(float v) {
    if (std::isinf(v) && !warned_range_) {
      warned_range_ = true;
      warn(tok_, fmt::format("number {} is beyond float range: stored as infinity", quote(word_at(tok_))));
    }
  }

  bool next_float(float& out) {
    if (!more()) return false;
    tok_ = p_;
    const char* q = skip_plus(p_);
    if (!text::fast_decimal(q, end_, out)) {
      auto r = std::from_chars(q, end_, out);
      if (r.ec == std::errc::invalid_argument) malformed(tok_);
      if (r.ec == std::errc::result_out_of_range) {
        out = to_float(out_of_range(q, r.ptr));
        note_infinity(out);
      }
      q = r.ptr;
    }
    if (!number_end(q)) malformed(tok_);
    p_ = q;
    return true;
  }

  bool next_double(double& out) {
    if (!more()) return false;
    tok_ = p_;
    const char* q = skip_plus(p_);
    if (!text::fast_decimal(q, end_, out)) {
      auto r = std::from_chars(q, end_, out);
      if (r.ec == std::errc::invalid_argument) malformed(tok_);
      if (r.ec == std::errc::result_out_of_range) out = out_of_range(q, r.ptr);
      q = r.ptr;
    }
    if (!number_end(q)) malformed(tok_);
    p_ = q;
    return true;
  }
};

// ---------------------------------------------------------------------------------------------
// Materials, shared by the OBJ reader and the MTL files it loads.

struct MaterialTable {
  std::vector<Material> list;
  std::vector<uint8_t> defined;                          // by a newmtl
  std::vector<std::pair<uint32_t, uint32_t>> first_use;  // line, column of the first usemtl
  std::unordered_map<std::string, int32_t> index;

  // Whether `name` is new and there is no room for it (meshport.h's limit).
  bool full(std::string_view name) const {
    return list.size() >= kMaxMaterials && index.find(std::string(name)) == index.end();
  }

  int32_t find_or_add(std::string_view name) {
    auto it = index.find(std::string(name));
    if (it != index.end()) return it->second;
    int32_t i = int32_t(list.size());
    list.emplace_back().name = std::string(name);
    defined.push_back(0);
    first_use.push_back({0, 0});
    index.emplace(std::string(name), i);
    return i;
  }
};

// MTL: `newmtl name`, `map_Kd [options] file`, `map_Ke [options] file` (the emissive texture) and
// `Ke r g b` (the emissive colour) are read; everything else (other colours, other maps,
// illumination models) is ignored, as the Scene has no place for it. Decision: Kd is ignored too;
// the writer writes Kd 1 1 1 so that the texture shows unmodulated. Problems in a library are
// warnings: it only adds materials.
class MtlReader : Scanner {
 public:
  MtlReader(std::string_view text, std::string file, std::string dir, MaterialTable& table, Diagnostics& diags)
      : Scanner(text, std::move(file), diags), dir_(std::move(dir)), table_(table) {}

  void read() {
    while (next_line()) statement();
  }

 private:
  std::string dir_;  // the library's folder relative to the OBJ's ("" when beside it)
  MaterialTable& table_;
  int32_t current_ = -1;  // material being defined; -1 before the first newmtl, -2 in a repeated one
  bool warned_before_ = false, warned_option_ = false, warned_full_ = false;

  void statement() {
    std::string_view cmd = word();
    if (cmd.empty()) return;
    if (cmd == "newmtl") return newmtl(cmd.data());
    if (cmd == "map_Kd") return map_kd(cmd.data());
    if (cmd == "map_Ke") return map_kd(cmd.data(), true);
    if (cmd == "Ke") return ke(cmd.data());
  }

  // Ke r g b: the emissive colour. Decision: a malformed one is ignored with a warning.
  void ke(const char* at) {
    std::array<float, 3> c{0, 0, 0};
    try {
      for (float& v : c)
        if (!next_float(v)) {
          warn(at, "Ke without three numbers ignored");
          return;
        }
    } catch (const Error& e) {
      warn(at, fmt::format("Ke ignored: {}", e.diagnostic().message));
      return;
    }
    if (current_ >= 0) table_.list[size_t(current_)].emissive = c;
  }

  void newmtl(const char* at) {
    std::string_view name = rest();
    if (table_.full(name)) {
      if (!warned_full_) {
        warned_full_ = true;
        warn(at, fmt::format("material {}: more than meshport reads from one file ({}): this and later new "
                             "materials are ignored",
                             quote(name), kMaxMaterials));
      }
      current_ = -2;
      return;
    }
    int32_t i = table_.find_or_add(name);
    if (table_.defined[size_t(i)]) {
      // Decision: the first definition of a name wins.
      warn(at, fmt::format("material {} is defined again: this definition is ignored", quote(name)));
      current_ = -2;
      return;
    }
    table_.defined[size_t(i)] = 1;
    current_ = i;
  }

  // A word that is a number, as option arguments are.
  static bool is_number(std::string_view w) {
    if (!w.empty() && w[0] == '+') w.remove_prefix(1);
    double d;
    auto r = std::from_chars(w.data(), w.data() + w.size(), d);
    return r.ec == std::errc() && r.ptr == w.data() + w.size();
  }

  // Skips the options before the file name: -blendu/-blendv/-cc/-clamp on|off, -imfchan c,
  // -bm/-boost/-texres v, -mm base gain, -o/-s/-t u [v [w]]; an unknown option with the numbers
  // after it (with one warning).
  void skip_options() {
    for (;;) {
      skip_space();
      const char* save = p_;
      std::string_view opt = word();
      if (opt.size() < 2 || opt[0] != '-' || is_number(opt)) {
        p_ = save;
        return;
      }
      int fixed = -1, numbers = 0;
      if (opt == "-blendu" || opt == "-blendv" || opt == "-cc" || opt == "-clamp" || opt == "-imfchan" ||
          opt == "-bm" || opt == "-boost" || opt == "-texres")
        fixed = 1;
      else if (opt == "-mm")
        fixed = 2;
      else if (opt == "-o" || opt == "-s" || opt == "-t")
        numbers = 3;
      else {
        numbers = 3;
        if (!warned_option_) {
          warned_option_ = true;
          warn(opt.data(), fmt::format("unknown map option {} skipped", quote(opt)));
        }
      }
      for (int k = 0; k < fixed; ++k) word();
      for (int k = 0; k < numbers; ++k) {
        skip_space();
        const char* before = p_;
        std::string_view w = word();
        if (w.empty() || !is_number(w)) {
          p_ = before;
          break;
        }
      }
    }
  }

  // map_Kd / map_Ke (`emissive`): the base colour / emissive texture.
  void map_kd(const char* at, bool emissive = false) {
    const char* cmd = emissive ? "map_Ke" : "map_Kd";
    skip_options();
    std::string_view file = rest();
    if (file.empty()) {
      warn(at, fmt::format("{} without a file name ignored", cmd));
      return;
    }
    if (current_ == -2) return;  // the repeated definition was warned about
    if (current_ < 0) {
      if (!warned_before_) {
        warned_before_ = true;
        warn(at, fmt::format("{} before the first newmtl ignored", cmd));
      }
      return;
    }
    std::string path(file);
    // Decision: a texture path relative to a library in another folder is made relative to the
    // OBJ's folder, which is what texture paths in the Scene are relative to.
    if (!dir_.empty() && !utf8_path(path).is_absolute()) path = dir_ + "/" + path;
    Material& m = table_.list[size_t(current_)];
    (emissive ? m.emissive_texture.texture : m.base_color_texture) = std::move(path);  // the last one wins
  }
};

// ---------------------------------------------------------------------------------------------
// The (v, vt, vn) triples of the mesh being read, to its vertex numbers: open addressing with
// linear probing. Entries of earlier meshes are stale by generation, so starting a mesh is O(1).

class CornerMap {
 public:
  // The vertex of (p, t, n); `fresh` is stored and returned, with inserted = true, when new.
  uint32_t find_or_insert(uint32_t p, uint32_t t, uint32_t n, uint32_t fresh, bool& inserted) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    size_t i = hash(p, t, n) & mask_;
    for (;;) {
      Slot& s = slots_[i];
      if (s.gen != gen_) {
        s = Slot{p, t, n, fresh, gen_};
        ++count_;
        inserted = true;
        return fresh;
      }
      if (s.p == p && s.t == t && s.n == n) {
        inserted = false;
        return s.value;
      }
      i = (i + 1) & mask_;
    }
  }

  void reset() {
    count_ = 0;
    if (++gen_ == 0) {
      for (Slot& s : slots_) s.gen = 0;
      gen_ = 1;
    }
  }

 private:
  struct Slot {
    uint32_t p, t, n, value, gen;
  };
  std::vector<Slot> slots_;
  size_t count_ = 0, mask_ = 0;
  uint32_t gen_ = 1;

  static size_t hash(uint32_t p, uint32_t t, uint32_t n) {
    uint64_t h =
        uint64_t(p) * 0x9E3779B97F4A7C15ull ^ uint64_t(t) * 0xC2B2AE3D27D4EB4Full ^ uint64_t(n) * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return size_t(h);
  }

  void grow() {
    size_t cap = slots_.empty() ? 64 : slots_.size() * 2;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot{0, 0, 0, 0, 0});
    mask_ = cap - 1;
    for (const Slot& s : old) {
      if (s.gen != gen_) continue;
      size_t i = hash(s.p, s.t, s.n) & mask_;
      while (slots_[i].gen == gen_) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Reading.

// Statements that are valid OBJ but not polygonal geometry: ignored with one warning each.
bool is_unsupported(std::string_view c) {
  static constexpr std::string_view kNames[] = {
      "vp",       "l",    "p",          "cstype",    "deg",   "bmat",  "step",   "curv",   "curv2", "surf",
      "parm",     "trim", "hole",       "scrv",      "sp",    "end",   "con",    "mg",     "bevel", "c_interp",
      "d_interp", "lod",  "shadow_obj", "trace_obj", "ctech", "stech", "maplib", "usemap", "call",  "csh"};
  return std::find(std::begin(kNames), std::end(kNames), c) != std::end(kNames);
}

constexpr uint32_t kMaxCount = std::numeric_limits<uint32_t>::max() - 1;
constexpr size_t kMaxLibraries = 256;

class Reader : Scanner {
 public:
  Reader(std::string_view text, const std::string& name, const SideFileLoader& load, Diagnostics& diags)
      : Scanner(text, name, diags), load_(load) {}

  Scene read(std::string_view text) {
    // Decision: UTF-16 text (a byte order mark FF FE or FE FF) is an error, not lines of garbage.
    if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF")
      fail_at_line(file_, 1, 1, "UTF-16 text (byte order mark FF FE or FE FF): OBJ is read as ASCII or UTF-8");
    while (next_line()) statement();
    finish_mesh();
    Scene scene;
    scene.meshes = std::move(meshes_);
    if (libraries_loaded_)
      for (size_t i = 0; i < materials_.list.size(); ++i)
        if (!materials_.defined[i] && materials_.first_use[i].first)
          diags_.add(warning_at_line(
              file_, materials_.first_use[i].first, materials_.first_use[i].second,
              fmt::format("material {} is not defined in the material libraries", quote(materials_.list[i].name))));
    scene.materials = std::move(materials_.list);
    if (scene.meshes.empty()) diags_.add(warning(file_, "no faces: the file holds no polygonal mesh"));
    return scene;
  }

 private:
  const SideFileLoader& load_;

  // The whole file's vertex data, Scene convention.
  std::vector<float> pos_;        // 3 per `v`
  std::vector<float> col_;        // 3 per `v`, once some `v` has a colour (white before it)
  std::vector<uint8_t> has_col_;  // per `v`, once some `v` has a colour
  std::vector<float> tex_;        // 2 per `vt`
  std::vector<float> nrm_;        // 3 per `vn`
  uint32_t positions_ = 0, texcoords_ = 0, normals_ = 0;

  // Statement state.
  std::string name_;          // the last o / g name
  int32_t material_ = -1;     // the last usemtl
  bool split_ = false;        // an o / g came since the current mesh's last face
  int64_t smooth_ = -1;       // -1: no `s` yet; 0: s off; N: group N
  int32_t next_unique_ = -2;  // groups given to faces under `s off`

  // The mesh being read.
  struct Building {
    Mesh mesh;
    uint32_t vertices = 0;
    std::vector<float> pos, tex, nrm, col;  // tex / nrm / col only once some corner has them
    bool any_tex = false, any_nrm = false, any_col = false, any_group = false;
    std::pair<uint32_t, uint32_t> miss_tex{0, 0}, miss_nrm{0, 0};  // first corner without
  };
  Building b_;
  CornerMap corners_map_;
  std::vector<uint32_t> corners_;
  std::vector<Mesh> meshes_;

  MaterialTable materials_;
  std::unordered_set<std::string> libraries_;  // loaded (or attempted) ones, to load each once
  bool libraries_loaded_ = false;
  bool warned_libraries_ = false;

  // Warn-once flags.
  std::vector<std::string> warned_;
  bool warned_extra_v_ = false, warned_extra_vt_ = false, warned_extra_vn_ = false, warned_extra_s_ = false;
  bool warned_mixed_ = false;

  // ---- Statements ------------------------------------------------------------------------------
  void statement() {
    skip_space();
    if (p_ == end_ || *p_ == '#') return;
    const char* cmd = p_;
    while (p_ < end_ && !is_space(*p_)) ++p_;
    size_t n = size_t(p_ - cmd);
    if (n == 1) {
      switch (cmd[0]) {
        case 'v':
          return vertex(cmd);
        case 'f':
          return face(cmd);
        case 'o':
        case 'g':
          return group();
        case 's':
          return smoothing(cmd);
        default:
          break;
      }
    } else if (n == 2 && cmd[0] == 'v') {
      if (cmd[1] == 't') return texcoord();
      if (cmd[1] == 'n') return normal(cmd);
    }
    std::string_view c(cmd, n);
    if (c == "usemtl") return usemtl(cmd);
    if (c == "mtllib") return mtllib(cmd);
    if (c == "fo") return face(cmd);  // the old name of f
    ignored(cmd, c);
  }

  void ignored(const char* at, std::string_view c) {
    if (std::find(warned_.begin(), warned_.end(), c) != warned_.end()) return;
    if (warned_.size() >= 100) return;
    warned_.emplace_back(c);
    if (is_unsupported(c))
      warn(at, fmt::format("{} statements ignored: only polygonal faces are converted", quote(c)));
    else
      warn(at, fmt::format("unknown statement {} ignored", quote(c)));
  }

  void extra_values(bool& flag, const char* what) {
    if (!more()) return;
    if (!flag) {
      flag = true;
      warn(p_, fmt::format("values after {} ignored", what));
    }
  }

  // v x y z [w] [r g b]. Decision: w is ignored (rational curves only); 6 values are x y z r g b
  // and 7 x y z w r g b; with 5 or more than 7 the extra values are ignored, with one warning.
  // Positions without a colour in a file that has some get white (1, 1, 1).
  void vertex(const char* cmd) {
    float v[7];
    uint32_t n = 0;
    while (n < 7 && next_float(v[n])) ++n;
    if (n < 3) error(p_, fmt::format("\"v\" needs x y z: {} value{} given", n, plural(n)));
    if (n == 5) {
      n = 4;
      if (!warned_extra_v_) {
        warned_extra_v_ = true;
        warn(tok_, "values after v x y z [w] [r g b] ignored");
      }
    }
    extra_values(warned_extra_v_, "v x y z [w] [r g b]");
    if (positions_ == kMaxCount) error(cmd, "too many vertices");
    pos_.insert(pos_.end(), v, v + 3);
    bool colour = n >= 6;
    if (colour && col_.empty()) {
      col_.assign(size_t(positions_) * 3, 1.0f);
      has_col_.assign(positions_, 0);
    }
    if (colour) {
      const float* c = v + (n == 6 ? 3 : 4);
      col_.insert(col_.end(), c, c + 3);
      has_col_.push_back(1);
    } else if (!col_.empty()) {
      col_.insert(col_.end(), 3, 1.0f);
      has_col_.push_back(0);
    }
    ++positions_;
  }

  // vt u [v [w]]: v defaults to 0 and w is ignored (3D textures have no place in the Scene).
  void texcoord() {
    float u;
    double v = 0, w;
    if (!next_float(u)) error(p_, "\"vt\" needs at least u");
    next_double(v);
    next_double(w);
    extra_values(warned_extra_vt_, "vt u v w");
    if (texcoords_ == kMaxCount) error(p_, "too many texture coordinates");
    tex_.push_back(u);
    tex_.push_back(scene_v(v));
    ++texcoords_;
  }

  void normal(const char* cmd) {
    float v[3];
    uint32_t n = 0;
    while (n < 3 && next_float(v[n])) ++n;
    if (n < 3) error(p_, fmt::format("\"vn\" needs x y z: {} value{} given", n, plural(n)));
    extra_values(warned_extra_vn_, "vn x y z");
    if (normals_ == kMaxCount) error(cmd, "too many normals");
    nrm_.insert(nrm_.end(), v, v + 3);
    ++normals_;
  }

  // Decision: a new Scene mesh starts at every o or g that follows faces and at every usemtl that
  // changes the material of faces that follow; its name is the last o or g name (the whole rest
  // of the line, so `g a b` names a mesh "a b"), empty before the first. Meshes are never merged:
  // a name or material used again later starts another mesh. Statements without faces after
  // them make no mesh.
  void group() {
    name_ = std::string(rest());
    split_ = true;
  }

  // Decision: `usemtl` without a name selects no material (the writer uses it after a mesh
  // with one). Names not defined by a loaded library still become materials, without a texture.
  void usemtl(const char* cmd) {
    std::string_view name = rest();
    if (name.empty()) {
      material_ = -1;
      return;
    }
    if (materials_.full(name))
      error(name.data(), fmt::format("material {}: more than meshport reads from one file ({})", quote(name),
                                     kMaxMaterials));
    material_ = materials_.find_or_add(name);
    auto& use = materials_.first_use[size_t(material_)];
    if (!use.first) use = lines_.where(cmd);
  }

  // Decision: `mtllib a.mtl b.mtl` names several libraries when every word ends in .mtl;
  // otherwise the whole rest of the line is one file name (names with spaces). A library that
  // cannot be loaded is a warning. Each is loaded once.
  void mtllib(const char* cmd) {
    std::string_view all = rest();
    if (all.empty()) {
      warn(cmd, "mtllib without a file name ignored");
      return;
    }
    std::vector<std::string_view> names;
    bool split = true;
    for (size_t i = 0; i < all.size();) {
      while (i < all.size() && is_space(all[i])) ++i;
      size_t j = i;
      while (j < all.size() && !is_space(all[j])) ++j;
      if (j > i) {
        names.push_back(all.substr(i, j - i));
        split = split && text::ends_with_nocase(names.back(), ".mtl");
      }
      i = j;
    }
    if (!split) names.assign(1, all);
    for (std::string_view n : names) load_library(n);
  }

  void load_library(std::string_view rel) {
    std::string name(rel);
    if (libraries_.count(name)) return;
    // Decision: at most kMaxLibraries libraries are loaded, so that many names of one large
    // library cannot make the reader parse it again and again.
    if (libraries_.size() >= kMaxLibraries) {
      if (!warned_libraries_) {
        warned_libraries_ = true;
        warn(rel.data(), fmt::format("material library {} not loaded: more than {} libraries", quote(rel),
                                     kMaxLibraries));
      }
      return;
    }
    libraries_.insert(name);
    std::vector<uint8_t> bytes;
    try {
      bytes = load_(name);
    } catch (const Error& e) {
      warn(rel.data(), fmt::format("material library {} not loaded: {}", quote(rel), e.diagnostic().message));
      return;
    }
    libraries_loaded_ = true;
    namespace fs = std::filesystem;
    std::string dir = generic_utf8(utf8_path(name).parent_path());
    std::string file = generic_utf8(utf8_path(file_).parent_path() / utf8_path(name));
    MtlReader(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file, dir, materials_,
              diags_)
        .read();
  }

  // s N | s 0 | s off. Decision: faces before any `s` have no smoothing rules (generated normals
  // smooth them by the default rules); faces under `s N` (N >= 1) get SmoothingRules face_group N;
  // faces under `s 0` / `s off` each get a group of their own (negative numbers -2, -3, ..., unique
  // in the file), so that generated normals are faceted there. The state carries over o, g and
  // usemtl, as OBJ states do.
  void smoothing(const char* cmd) {
    std::string_view w = word();
    if (w.empty()) {
      warn(cmd, "\"s\" without a group number ignored");
      return;
    }
    if (w.size() == 3 && (w[0] | 0x20) == 'o' && (w[1] | 0x20) == 'f' && (w[2] | 0x20) == 'f') {
      smooth_ = 0;
    } else {
      uint64_t v = 0;
      size_t i = 0;
      for (; i < w.size() && is_digit(w[i]) && v <= uint64_t(std::numeric_limits<int32_t>::max()); ++i)
        v = v * 10 + uint64_t(w[i] - '0');
      if (i == 0 || (i < w.size() && !is_digit(w[i])))
        error(w.data(), fmt::format("malformed smoothing group {}: a number or \"off\" expected", quote(w)));
      if (i < w.size() || v > uint64_t(std::numeric_limits<int32_t>::max()))
        error(w.data(), fmt::format("smoothing group {} out of range", quote(w)));
      smooth_ = int64_t(v);
    }
    extra_values(warned_extra_s_, "s group");
  }

  // ---- Faces -----------------------------------------------------------------------------------
  // Reads an index: an optional '-' then digits. False when there is none.
  bool index(int64_t& out, bool& overflow) {
    const char* q = p_;
    bool neg = q < end_ && *q == '-';
    if (neg) ++q;
    if (q == end_ || !is_digit(*q)) return false;
    uint64_t v = 0;
    overflow = false;
    for (; q < end_ && is_digit(*q); ++q) {
      v = v * 10 + uint64_t(*q - '0');
      if (v > (uint64_t(1) << 40)) overflow = true, v = uint64_t(1) << 40;
    }
    out = neg ? -int64_t(v) : int64_t(v);
    p_ = q;
    return true;
  }

  [[noreturn]] void bad_corner(const char* at) const {
    error(at, fmt::format("malformed face corner {}: v, v/vt, v//vn or v/vt/vn expected", quote(word_at(at))));
  }

  // A 1-based or negative (relative) index to a 0-based one.
  uint32_t resolve(int64_t n, bool overflow, uint32_t count, const char* at, const char* what) {
    if (n == 0)
      error(at, fmt::format("{} index 0 is invalid: OBJ indices start at 1 (negative ones count back from the "
                            "last)",
                            what));
    if (!overflow) {
      if (n > 0 && n <= int64_t(count)) return uint32_t(n - 1);
      if (n < 0 && -n <= int64_t(count)) return uint32_t(int64_t(count) + n);
    }
    const char* e = at + (*at == '-');
    while (e < end_ && is_digit(*e)) ++e;
    std::string_view digits(at, size_t(e - at));
    error(at,
          fmt::format("{} index {} out of range: {} defined so far", what,
                      digits.size() > 24 ? fmt::format("{}...", digits.substr(0, 24)) : std::string(digits), count));
  }

  void face(const char* cmd) {
    corners_.clear();
    int format = -1;  // bit 0: vt, bit 1: vn
    bool started = false;
    while (more()) {
      const char* at = p_;
      int64_t vi = 0, ti = 0, ni = 0;
      bool ov = false, tov = false, nov = false, ht = false, hn = false;
      if (!index(vi, ov)) bad_corner(at);
      const char* tat = nullptr;
      const char* nat = nullptr;
      if (p_ < end_ && *p_ == '/') {
        ++p_;
        if (p_ < end_ && *p_ != '/') {
          tat = p_;
          if (!index(ti, tov)) bad_corner(at);
          ht = true;
        }
        if (p_ < end_ && *p_ == '/') {
          ++p_;
          nat = p_;
          if (!index(ni, nov)) bad_corner(at);
          hn = true;
        } else if (!ht) {
          bad_corner(at);
        }
      }
      if (!number_end(p_)) bad_corner(at);
      int f = (ht ? 1 : 0) | (hn ? 2 : 0);
      if (format < 0) {
        format = f;
      } else if (f != format && !warned_mixed_) {
        // Decision: a warning; corners without texture coordinates or normals get defaults.
        warned_mixed_ = true;
        warn(at, "face corners in different forms (v, v/vt, v//vn, v/vt/vn): missing values are filled in");
      }
      uint32_t p = resolve(vi, ov, positions_, at, "position");
      uint32_t t = ht ? resolve(ti, tov, texcoords_, tat, "texture coordinate") + 1 : 0;
      uint32_t n = hn ? resolve(ni, nov, normals_, nat, "normal") + 1 : 0;
      if (!started) {
        start_face(cmd);
        started = true;
      }
      corners_.push_back(vertex_of(p, t, n, at));
    }
    if (corners_.size() < 3)
      error(cmd, fmt::format("face with {} corner{}: at least 3 are needed", corners_.size(), plural(corners_.size())));
    ops::append_polygon(b_.mesh, corners_);
    int32_t group = -1;
    if (smooth_ > 0) {
      group = int32_t(smooth_);
    } else if (smooth_ == 0) {
      group = next_unique_;
      if (next_unique_ > std::numeric_limits<int32_t>::min()) --next_unique_;
    }
    b_.any_group = b_.any_group || group != -1;
    b_.mesh.smoothing.face_group.push_back(group);
  }

  // Before the first corner of a face: starts a new mesh when o / g / usemtl asked for one.
  void start_face(const char* cmd) {
    bool has_faces = !b_.mesh.triangles.empty();
    if (has_faces && (split_ || b_.mesh.material != material_)) finish_mesh();
    if (b_.mesh.triangles.empty() && meshes_.size() >= kMaxMeshes)
      error(cmd, fmt::format("mesh {}: more than meshport reads from one file ({})", kMaxMeshes + 1, kMaxMeshes));
    if (b_.mesh.triangles.empty()) {
      b_.mesh.name = name_;
      b_.mesh.material = material_;
    }
    split_ = false;
  }

  // The mesh vertex of a (position, texcoord + 1, normal + 1) triple; 0 means none.
  uint32_t vertex_of(uint32_t p, uint32_t t, uint32_t n, const char* at) {
    bool inserted;
    uint32_t v = corners_map_.find_or_insert(p, t, n, b_.vertices, inserted);
    if (!inserted) return v;
    if (b_.vertices == kMaxCount) error(at, "too many vertices in one mesh");
    ++b_.vertices;
    b_.pos.insert(b_.pos.end(), &pos_[size_t(p) * 3], &pos_[size_t(p) * 3] + 3);
    // Decision: a corner without vt in a mesh with texture coordinates gets OBJ (0, 0), Scene
    // (0, 1); one without vn gets the normal (0, 0, 0) (regenerate with --recompute-normals); a
    // position without a colour in a mesh with colours gets white. Each is warned once per mesh.
    if (t) {
      if (!b_.any_tex) {
        b_.any_tex = true;
        for (uint32_t k = 1; k < b_.vertices; ++k) b_.tex.insert(b_.tex.end(), {0.0f, 1.0f});
      }
      b_.tex.insert(b_.tex.end(), &tex_[size_t(t - 1) * 2], &tex_[size_t(t - 1) * 2] + 2);
    } else {
      if (!b_.miss_tex.first) b_.miss_tex = lines_.where(at);
      if (b_.any_tex) b_.tex.insert(b_.tex.end(), {0.0f, 1.0f});
    }
    if (n) {
      if (!b_.any_nrm) {
        b_.any_nrm = true;
        b_.nrm.assign(size_t(b_.vertices - 1) * 3, 0.0f);
      }
      b_.nrm.insert(b_.nrm.end(), &nrm_[size_t(n - 1) * 3], &nrm_[size_t(n - 1) * 3] + 3);
    } else {
      if (!b_.miss_nrm.first) b_.miss_nrm = lines_.where(at);
      if (b_.any_nrm) b_.nrm.insert(b_.nrm.end(), 3, 0.0f);
    }
    if (!col_.empty()) {
      if (has_col_[p] && !b_.any_col) {
        b_.any_col = true;
        b_.col.assign(size_t(b_.vertices - 1) * 3, 1.0f);
      }
      if (b_.any_col) b_.col.insert(b_.col.end(), &col_[size_t(p) * 3], &col_[size_t(p) * 3] + 3);
    }
    return v;
  }

  static VertexStream stream(Attribute a, uint32_t components, std::vector<float>&& data) {
    VertexStream s;
    s.attribute = a;
    s.format = ComponentType::Float;
    s.source_size = components;
    s.components = components;
    s.data = std::move(data);
    return s;
  }

  void finish_mesh() {
    Building b = std::move(b_);
    b_ = Building();
    corners_map_.reset();
    if (b.mesh.triangles.empty()) return;
    Mesh& m = b.mesh;
    std::string label = quote(m.name);
    if (b.any_tex && b.miss_tex.first)
      diags_.add(warning_at_line(file_, b.miss_tex.first, b.miss_tex.second,
                                 fmt::format("mesh {}: corners without texture coordinates get (0, 0)", label)));
    if (b.any_nrm && b.miss_nrm.first)
      diags_.add(warning_at_line(file_, b.miss_nrm.first, b.miss_nrm.second,
                                 fmt::format("mesh {}: corners without normals get (0, 0, 0)", label)));
    m.streams.push_back(stream(Attribute::Position, 3, std::move(b.pos)));
    if (b.any_tex) m.streams.push_back(stream(Attribute::Texcoord, 2, std::move(b.tex)));
    if (b.any_nrm) m.streams.push_back(stream(Attribute::Normal, 3, std::move(b.nrm)));
    if (b.any_col) m.streams.push_back(stream(Attribute::Color, 3, std::move(b.col)));
    if (!b.any_group) m.smoothing.face_group.clear();
    meshes_.push_back(std::move(m));
  }
};

// ---------------------------------------------------------------------------------------------
// Writing.

// Polygons are written back when polygon_sizes describes fans of the triangles.
bool fans_ok(const Mesh& m) {
  if (!ops::polygons_fit(m)) return false;
  bool ok = true;
  ops::for_each_face(m, [&](const ops::Face& f) {
    for (uint32_t i = 1; ok && i + 2 < f.size; ++i) {
      const uint32_t* prev = &m.triangles[(f.first_triangle + i - 1) * 3];
      const uint32_t* next = &m.triangles[(f.first_triangle + i) * 3];
      ok = next[0] == prev[0] && next[1] == prev[2];
    }
  });
  return ok;
}

class Writer {
 public:
  Writer(const Scene& scene, const WriteOptions& options, const std::string& mtl_name, const std::string& output_dir,
         Diagnostics& diags)
      : scene_(scene), options_(options), mtl_name_(mtl_name), output_dir_(output_dir), diags_(diags) {}

  std::vector<OutputFile> write() {
    dropped_warnings();
    out_.reserve(estimate());
    out_ += "# meshport\n";
    if (!scene_.comment.empty()) comment(scene_.comment);
    material_names();
    bool mtl = !mtl_name_.empty() && !scene_.materials.empty();
    if (mtl) {
      out_ += "mtllib ";
      out_ += mtl_name_;
      out_ += '\n';
    }
    plan();
    for (size_t i = 0; i < scene_.meshes.size(); ++i)
      if (plans_[i].written) mesh(scene_.meshes[i], plans_[i]);
    std::vector<OutputFile> files(1);
    files[0].bytes.assign(out_.begin(), out_.end());
    if (mtl) {
      std::string text = library();
      files.push_back(OutputFile{mtl_name_, std::vector<uint8_t>(text.begin(), text.end()), nullptr});
    }
    return files;
  }

 private:
  const Scene& scene_;
  const WriteOptions& options_;
  const std::string& mtl_name_;
  const std::string& output_dir_;
  std::optional<std::vector<TextureLookup>> lookups_;  // find_textures(), once
  Diagnostics& diags_;
  std::string out_;
  std::vector<std::string> mat_names_;
  uint64_t written_v_ = 0, written_vt_ = 0, written_vn_ = 0;
  int32_t material_ = -1;  // the reader's material state after what is written so far

  // Per mesh, decided before writing.
  struct Plan {
    bool written = false;
    bool polygons = false;  // write polygon_sizes' polygons (else triangles)
    bool groups = false;    // face_group is used (one entry per written face)
  };
  std::vector<Plan> plans_;

  // Smoothing groups, scene-wide (see plan()).
  bool any_groups_ = false;
  bool default_first_ = true;  // every face with the default key -1 comes before any other
  std::map<int32_t, uint64_t> key_uses_;
  std::set<int64_t> used_positive_;
  std::map<int32_t, int64_t> assigned_;
  int64_t next_free_ = 1;
  bool wrote_s_ = false;
  int64_t s_ = 0;  // last written: 0 off, N group

  size_t estimate() const {
    size_t n = 256 + scene_.comment.size();
    for (const Mesh& m : scene_.meshes) {
      for (const VertexStream& s : m.streams) n += s.vertex_count() * 8 + s.data.size() * 12;
      n += m.triangles.size() * 12 + 64;
    }
    return n;
  }

  // ---- Warnings about what OBJ cannot hold ------------------------------------------------------
  void dropped_warnings() {
    size_t joints = scene_.joints.size(), anims = scene_.animations.size();
    if (joints && anims)
      diags_.add(warning("", fmt::format("OBJ has no skeleton: {} joint{} and {} animation{} dropped", joints,
                                         plural(joints), anims, plural(anims))));
    else if (joints)
      diags_.add(warning("", fmt::format("OBJ has no skeleton: {} joint{} dropped", joints, plural(joints))));
    else if (anims)
      diags_.add(warning("", fmt::format("OBJ has no animations: {} animation{} dropped", anims, plural(anims))));
    size_t weighted = 0, morphs = 0, rules = 0;
    for (const Mesh& m : scene_.meshes) {
      if (m.find(Attribute::BlendIndices) || m.find(Attribute::BlendWeights)) ++weighted;
      morphs += m.morph_targets.size();
      const SmoothingRules& s = m.smoothing;
      if (!s.face_angle.empty() || !s.face_uv.empty() || !s.corner_edge.empty() || !s.vertex_key.empty()) ++rules;
    }
    if (weighted)
      diags_.add(warning("", fmt::format("OBJ has no blend weights: the weights of {} mesh{} dropped", weighted,
                                         weighted == 1 ? "" : "es")));
    if (morphs) diags_.add(warning("", fmt::format("OBJ has no morph targets: {} dropped", morphs)));
    if (rules)
      diags_.add(warning("", fmt::format("OBJ has only smoothing groups: smoothing angles, smoothuv, hard edges and "
                                         "vertex keys of {} mesh{} dropped",
                                         rules, rules == 1 ? "" : "es")));
    if (!value_or_empty(scene_.iqm).extensions.empty() || !value_or_empty(scene_.iqm).pose_parents.empty())
      diags_.add(warning("", "IQM extensions and pose parents cannot be written to OBJ: left out"));
  }

  void comment(std::string_view text) {
    size_t i = 0;
    while (i < text.size()) {
      size_t nl = text.find('\n', i);
      std::string_view line = text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      while (!line.empty() && line.back() == '\\') line.remove_suffix(1);  // would continue the line
      out_ += line.empty() ? "#" : "# ";
      out_ += line;
      out_ += '\n';
      if (nl == std::string_view::npos) break;
      i = nl + 1;
    }
  }

  // ---- Names -----------------------------------------------------------------------------------
  // What the reader reads back as the same name: no line breaks, no '#' starting a word, no
  // surrounding white space, no trailing backslash.
  std::string clean(std::string_view s, const char* what) {
    std::string r;
    r.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c == '\n' || c == '\r') c = ' ';
      if (c == '#' && (r.empty() || is_space(r.back()))) c = '_';
      r += c;
    }
    size_t b = 0, e = r.size();
    while (b < e && is_space(r[b])) ++b;
    while (e > b && is_space(r[e - 1])) --e;
    r = r.substr(b, e - b);
    if (!r.empty() && r.back() == '\\') r.back() = '/';
    if (r != s)
      diags_.add(
          warning("", fmt::format("{} {} cannot be written to OBJ as it is: written as {}", what, quote(s), quote(r))));
    return r;
  }

  // Material names: cleaned, non-empty and unique (the reader looks materials up by name).
  void material_names() {
    std::set<std::string> taken;
    for (size_t i = 0; i < scene_.materials.size(); ++i) {
      std::string n = clean(scene_.materials[i].name, "material name");
      if (n.empty()) n = fmt::format("material{}", i);
      if (taken.count(n)) {
        std::string base = n;
        for (size_t k = 2; taken.count(n); ++k) n = fmt::format("{}_{}", base, k);
        diags_.add(warning(
            "", fmt::format("material name {} is used twice: the second is written as {}", quote(base), quote(n))));
      }
      taken.insert(n);
      mat_names_.push_back(std::move(n));
    }
  }

  // ---- Smoothing groups ------------------------------------------------------------------------
  // OBJ smoothing groups are positive numbers (faces in the same one smooth together) and `s off`
  // (faces smooth with none). Scene keys are any int32 (IQE smoothgroup), -1 the default. Mapping:
  // a key >= 1 is written as itself; a key used by a single face as `s off` (which is what the
  // reader's unique negative groups come from); another key as the first positive number no
  // key uses. Faces with the default key -1 before any other key need no `s` at all.
  void plan() {
    plans_.resize(scene_.meshes.size());
    bool other_seen = false;
    for (size_t i = 0; i < scene_.meshes.size(); ++i) {
      const Mesh& m = scene_.meshes[i];
      Plan& p = plans_[i];
      check(m);
      bool positions = std::any_of(m.streams.begin(), m.streams.end(), [](const VertexStream& s) {
        return s.attribute == Attribute::Position && s.components > 0;
      });
      p.written = positions && !m.triangles.empty();
      if (!p.written) {
        diags_.add(warning("", fmt::format("mesh {} has {}: left out", quote(m.name),
                                           m.triangles.empty() ? "no faces" : "no positions")));
        continue;
      }
      p.polygons = !m.polygon_sizes.empty();
      if (p.polygons && !fans_ok(m)) {
        p.polygons = false;
        diags_.add(warning("", fmt::format("mesh {}: polygon_sizes do not describe fans of its triangles: written "
                                           "as triangles, without smoothing groups",
                                           quote(m.name))));
      }
      size_t faces = p.polygons ? m.polygon_sizes.size() : m.triangles.size() / 3;
      const auto& g = m.smoothing.face_group;
      if (!g.empty()) {
        if ((m.polygon_sizes.empty() || p.polygons) && g.size() == faces)
          p.groups = true;
        else if (m.polygon_sizes.empty() || p.polygons)
          diags_.add(warning("", fmt::format("mesh {}: face_group has the wrong length: left out", quote(m.name))));
      }
      if (p.groups) {
        any_groups_ = true;
        for (int32_t k : g) {
          ++key_uses_[k];
          if (k >= 1) used_positive_.insert(k);
          if (k == -1 && other_seen) default_first_ = false;
          if (k != -1) other_seen = true;
        }
      } else {
        key_uses_[-1] += faces;
        if (other_seen) default_first_ = false;
      }
    }
  }

  int64_t group_number(int32_t key) {
    if (key >= 1) return key;
    if (key_uses_[key] <= 1) return 0;
    auto it = assigned_.find(key);
    if (it != assigned_.end()) return it->second;
    while (used_positive_.count(next_free_)) ++next_free_;
    used_positive_.insert(next_free_);
    assigned_[key] = next_free_;
    return next_free_;
  }

  void face_group(int32_t key) {
    if (!any_groups_) return;
    if (key == -1 && default_first_ && !wrote_s_) return;
    int64_t s = group_number(key);
    if (wrote_s_ && s == s_) return;
    wrote_s_ = true;
    s_ = s;
    if (s == 0) {
      out_ += "s off\n";
    } else {
      out_ += "s ";
      integer(uint64_t(s));
      out_ += '\n';
    }
  }

  // ---- Numbers ---------------------------------------------------------------------------------
  void num(float f) {
    out_ += ' ';
    text::append_float(out_, f);
  }
  void integer(uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, size_t(r.ptr - buf));
  }
  // The OBJ v of a Scene v: the decimal with the fewest significant digits that the reader turns
  // back into v (scene_v(text) == v), found by a binary search over the precision of 1 - v,
  // which is exact in double (unless 0 < |v| < 2^-29) and so always reads back. Every OBJ text
  // that read as v qualifies, so a file's "0.000625" is written back as "0.000625", not as the
  // float nearest 1 - v ("0.0006250143").
  void texcoord_v(float v) {
    char buf[64];
    const double target = 1.0 - double(v);
    auto text = [&](int precision) {
      return std::to_chars(buf, buf + sizeof buf, target, std::chars_format::general, precision).ptr;
    };
    auto reads_back = [&](const char* e) {
      double back = 0;
      std::from_chars(buf, e, back);
      return scene_v(back) == v;
    };
    const char* e;
    if (!reads_back(text(17))) {
      e = std::to_chars(buf, buf + sizeof buf, target).ptr;  // NaN, or a v too small to flip exactly
    } else {
      int lo = 1, hi = 17;
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (reads_back(text(mid)))
          hi = mid;
        else
          lo = mid + 1;
      }
      e = text(lo);
    }
    if (e - buf == 2 && buf[0] == '-' && buf[1] == '0') e = buf + 1;  // "0", not "-0"
    out_ += ' ';
    out_.append(buf, size_t(e - buf));
  }

  // ---- Meshes ----------------------------------------------------------------------------------
  void check(const Mesh& m) {
    size_t count = m.vertex_count();
    for (const VertexStream& s : m.streams)
      if (s.components && s.vertex_count() != count)
        fail("", fmt::format("mesh {}: its vertex streams have different lengths", quote(m.name)));
    if (m.triangles.size() % 3) fail("", fmt::format("mesh {}: triangle list is not a multiple of 3", quote(m.name)));
    for (uint32_t i : m.triangles)
      if (i >= count) fail("", fmt::format("mesh {}: triangle index {} out of range", quote(m.name), i));
  }

  const VertexStream* pick(const Mesh& m, Attribute a, uint32_t min_components) {
    const VertexStream* found = nullptr;
    for (const VertexStream& s : m.streams) {
      if (s.attribute != a || s.components < min_components) continue;
      if (!found)
        found = &s;
      else
        diags_.add(warning(
            "", fmt::format("mesh {}: OBJ holds one stream of each kind: another {} stream dropped", quote(m.name),
                            a == Attribute::Texcoord ? "texture coordinate"
                            : a == Attribute::Normal ? "normal"
                                                     : "colour")));
    }
    return found;
  }

  void mesh(const Mesh& m, const Plan& plan) {
    const VertexStream* pos = pick(m, Attribute::Position, 1);
    const VertexStream* tex = pick(m, Attribute::Texcoord, 1);
    const VertexStream* nrm = pick(m, Attribute::Normal, 1);
    const VertexStream* col = pick(m, Attribute::Color, 1);
    for (const VertexStream& s : m.streams)
      if (s.attribute == Attribute::Custom && !is_format_stream(s)) {
        diags_.add(warning(
            "", fmt::format("mesh {}: OBJ has no custom vertex arrays: {} dropped", quote(m.name), quote(s.name))));
        break;
      }
    out_ += 'o';
    std::string name = clean(m.name, "mesh name");
    if (!name.empty()) {
      out_ += ' ';
      out_ += name;
    }
    out_ += '\n';
    int32_t mat = m.material;
    if (mat >= 0 && size_t(mat) >= scene_.materials.size()) {
      diags_.add(warning("", fmt::format("mesh {}: material index {} out of range: left out", quote(m.name), mat)));
      mat = -1;
    }
    if (mat != material_) {
      out_ += "usemtl";
      if (mat >= 0) {
        out_ += ' ';
        out_ += mat_names_[size_t(mat)];
      }
      out_ += '\n';
      material_ = mat;
    }
    size_t count = m.vertex_count();
    bool alpha_dropped = false;
    for (size_t v = 0; v < count; ++v) {
      out_ += 'v';
      for (uint32_t c = 0; c < 3; ++c) num(pos->get(v, c));
      if (col) {
        for (uint32_t c = 0; c < 3; ++c) num(col->get(v, c));
        alpha_dropped = alpha_dropped || col->get(v, 3, 1.0f) != 1.0f;
      }
      out_ += '\n';
    }
    if (alpha_dropped)
      diags_.add(warning("", fmt::format("mesh {}: OBJ colours have no alpha: dropped", quote(m.name))));
    if (tex)
      for (size_t v = 0; v < count; ++v) {
        out_ += "vt";
        num(tex->get(v, 0));
        texcoord_v(tex->get(v, 1));
        out_ += '\n';
      }
    if (nrm)
      for (size_t v = 0; v < count; ++v) {
        out_ += "vn";
        for (uint32_t c = 0; c < 3; ++c) num(nrm->get(v, c));
        out_ += '\n';
      }
    auto corner = [&](uint32_t i) {
      out_ += ' ';
      integer(written_v_ + i + 1);
      if (tex || nrm) out_ += '/';
      if (tex) integer(written_vt_ + i + 1);
      if (nrm) {
        out_ += '/';
        integer(written_vn_ + i + 1);
      }
    };
    const auto& groups = m.smoothing.face_group;
    auto key = [&](size_t f) { return plan.groups ? groups[f] : -1; };
    if (plan.polygons) {
      ops::for_each_face(m, [&](const ops::Face& f) {
        face_group(key(f.index));
        out_ += 'f';
        if (f.size == 3) {
          for (int k = 0; k < 3; ++k) corner(m.triangles[f.first_triangle * 3 + size_t(k)]);
        } else {
          for (uint32_t i : ops::polygon_corners(m, f)) corner(i);
        }
        out_ += '\n';
      });
    } else {
      for (size_t t = 0; t < m.triangles.size() / 3; ++t) {
        face_group(key(t));
        out_ += 'f';
        for (int k = 0; k < 3; ++k) corner(m.triangles[t * 3 + size_t(k)]);
        out_ += '\n';
      }
    }
    written_v_ += count;
    if (tex) written_vt_ += count;
    if (nrm) written_vn_ += count;
  }

  // ---- The material library --------------------------------------------------------------------
  // The colour map of material `i`: the file find_textures() finds for it (textures.h: the model's
  // folder, WriteOptions::texture_dirs, known layouts, sidecars), relative to the output folder;
  // else the reference as stored.
  std::string texture_path(size_t i, const char* slot = "base colour") {
    namespace fs = std::filesystem;
    const Material& mat = scene_.materials[i];
    const std::string& stored =
        std::string_view(slot) == "emissive" ? mat.emissive_texture.texture : mat.base_color_texture;
    if (output_dir_.empty()) return stored;
    if (!lookups_) {
      TextureSearch search = texture_search(options_);
      lookups_ = search.model_path.empty() && search.dirs.empty() ? std::vector<TextureLookup>{}
                                                                    : find_textures(scene_, search);
    }
    for (const TextureLookup& l : *lookups_) {
      if (l.material != int32_t(i) || l.slot != slot || l.file.empty()) continue;
      std::error_code ec;
      fs::path from = fs::absolute(utf8_path(output_dir_), ec).lexically_normal();
      if (ec) return stored;
      fs::path to = fs::absolute(utf8_path(l.file), ec).lexically_normal();
      if (ec) return stored;
      fs::path rel = to.lexically_relative(from);
      return rel.empty() ? stored : generic_utf8(rel);
    }
    return stored;
  }

  std::string library() {
    std::string t = "# meshport\n";
    for (size_t i = 0; i < scene_.materials.size(); ++i) {
      t += "\nnewmtl ";
      t += mat_names_[i];
      t += "\nKd 1 1 1\n";
      const Material& mat = scene_.materials[i];
      // The emissive colour (Ke) and map (map_Ke), which Blender and other tools read.
      if (mat.emissive != std::array<float, 3>{0, 0, 0} || !mat.emissive_texture.texture.empty()) {
        t += "Ke";
        for (float c : mat.emissive) {
          t += ' ';
          text::append_float(t, c);
        }
        t += '\n';
      }
      for (const char* slot : {"base colour", "emissive"}) {
        std::string tex = texture_path(i, slot);
        if (tex.empty()) continue;
        std::string path = clean(tex, "texture path");
        if (!path.empty() && path[0] == '-') path = "./" + path;  // not an option
        t += std::string_view(slot) == "emissive" ? "map_Ke " : "map_Kd ";
        t += path;
        t += '\n';
      }
    }
    return t;
  }
};

}  // namespace

Scene read(std::string_view text, const std::string& name, const SideFileLoader& load, Diagnostics& diags) {
  return Reader(text, name, load, diags).read(text);
}

std::vector<OutputFile> write(const Scene& scene, const WriteOptions& options, const std::string& mtl_name,
                              const std::string& output_dir, Diagnostics& diags) {
  return Writer(scene, options, mtl_name, output_dir, diags).write();
}

}  // namespace meshport::obj
