// PIE reader (pie.h). How a PIE file becomes a Scene, and which problems are errors or warnings,
// is docs/pie.md; the format is ../shared/specs/pie.md with the engine's behaviour in pie-notes.md.
//
// One pass over the text, line by line: blank and comment-only lines are skipped, every block
// (POINTS, POLYGONS, ...) is checked against the number of lines left before anything is
// reserved. The file is parsed into PieData plus the per-level corners and connectors; the Scene
// (meshes, materials, joints, attachments, animations) is built from them at the end.
#include "formats/pie/pie.h"

#include <meshport/options.h>

#include "core/text.h"
#include "formats/pie/pie_common.h"
#include "formats/pie/pie_textures.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace meshport::pie {
namespace {

// Decision: the animations of one model hold at most this many poses (animated levels x frames
// per group), so that a small hostile file cannot make the Scene huge. Shipped models need ~100.
constexpr size_t kMaxPoses = size_t(1) << 20;
// Decision: the connectors of one model (Scene attachments) number at most this many; shipped
// models have a few.
constexpr size_t kMaxConnectors = size_t(1) << 16;

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kUInt32Max = std::numeric_limits<uint32_t>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

// A text position for diagnostics, 1-based.
struct Loc {
  uint32_t line = 0, col = 0;
};

// One line with something on it: [begin, end) is its text before any `#` comment, [begin,
// full_end) the whole line without its line break.
struct Line {
  const char* begin = nullptr;
  const char* end = nullptr;
  const char* full_end = nullptr;
  uint32_t number = 0;
};

bool blank(const Line& l) {
  return std::all_of(l.begin, l.end, is_space);
}

std::string_view trimmed(const char* b, const char* e) {
  while (b < e && is_space(*b)) ++b;
  while (e > b && is_space(e[-1])) --e;
  return {b, size_t(e - b)};
}

// The file's lines with blank and comment-only ones skipped. `\r\n`, `\n` and `\r` each end a
// line (for line numbers); the total is counted up front so that block counts can be checked.
class LineSource {
 public:
  explicit LineSource(std::string_view text) : text_(text) {
    size_t pos = 0;
    uint32_t number = 0;
    Line l;
    while (raw(pos, number, l))
      if (!blank(l)) ++total_;
    // End of file: after the last line, or at the start of the line after a final line break.
    if (text.empty()) {
      eof_ = {1, 1};
    } else if (text.back() == '\n' || text.back() == '\r') {
      eof_ = {number + 1, 1};
    } else {
      eof_ = {number, uint32_t(l.full_end - l.begin) + 1};
    }
  }

  bool next(Line& out) {
    while (raw(pos_, number_, out)) {
      if (!blank(out)) {
        ++used_;
        return true;
      }
    }
    return false;
  }
  size_t remaining() const { return total_ - used_; }
  Loc eof() const { return eof_; }

 private:
  std::string_view text_;
  size_t pos_ = 0, total_ = 0, used_ = 0;
  uint32_t number_ = 0;
  Loc eof_;

  bool raw(size_t& pos, uint32_t& number, Line& l) const {
    if (pos >= text_.size()) return false;
    const char* b = text_.data() + pos;
    const char* stop = text_.data() + text_.size();
    const char* e = b;
    while (e < stop && *e != '\n' && *e != '\r') ++e;
    const void* hash = std::memchr(b, '#', size_t(e - b));
    l.begin = b;
    l.end = hash ? static_cast<const char*>(hash) : e;
    l.full_end = e;
    l.number = ++number;
    pos = size_t(e - text_.data());
    if (e < stop) pos += (*e == '\r' && e + 1 < stop && e[1] == '\n') ? 2 : 1;
    return true;
  }
};

// A token for a message: quoted, at most 40 bytes, control and non-ASCII bytes escaped.
std::string pie_read_quoted(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < 40; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += char(c);
  }
  if (s.size() > 40) out += "...";
  return out + "\"";
}

bool parse_int(std::string_view t, int64_t& v, int base = 10) {
  const char* b = t.data();
  const char* e = b + t.size();
  if (b < e && *b == '+' && base == 10) ++b;
  if (b == e || *b == '+' || (*b == '-' && base != 10)) return false;
  auto r = std::from_chars(b, e, v, base);
  return r.ec == std::errc() && r.ptr == e;
}

// Decimal float: finite, no hexadecimal, an optional leading '+'.
bool parse_float(std::string_view t, float& v) {
  const char* b = t.data();
  const char* e = b + t.size();
  if (b < e && *b == '+') ++b;
  if (b == e || *b == '+' || (*b == '-' && b != t.data())) return false;
  const char* q = b;
  if (!text::fast_decimal(q, e, v)) {
    auto r = std::from_chars(b, e, v, std::chars_format::general);
    if (r.ec != std::errc()) return false;
    q = r.ptr;
  }
  return q == e && std::isfinite(v);
}

bool texture_kind(std::string_view d, PieTexture::Kind& kind) {
  using K = PieTexture::Kind;
  if (d == "TEXTURE") kind = K::Texture;
  else if (d == "TCMASK") kind = K::TcMask;
  else if (d == "NORMALMAP") kind = K::NormalMap;
  else if (d == "SPECULARMAP") kind = K::SpecularMap;
  else return false;
  return true;
}

bool known_directive(std::string_view d) {
  static constexpr std::string_view kAll[] = {
      "PIE",       "TYPE",    "INTERPOLATE", "TEXTURE", "TCMASK",   "NORMALMAP",  "SPECULARMAP",
      "EVENT",     "LEVELS",  "LEVEL",       "MATERIALS", "SHADERS", "POINTS",    "NORMALS",
      "POLYGONS",  "CONNECTORS", "ANIMOBJECT", "SHADOWPOINTS", "SHADOWPOLYGONS"};
  return std::find(std::begin(kAll), std::end(kAll), d) != std::end(kAll);
}

bool name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

// What the Scene is built from, per level, besides its PieLevel.
struct LevelWork {
  std::vector<PiePolygon> polygons;              // file order: the mesh's face channels
  std::vector<uint32_t> corner_point;            // 3 per polygon, file order
  std::vector<std::array<float, 2>> corner_uv;   // Scene texture units
  std::vector<std::array<float, 9>> normals;     // NORMALS lines as in the file
  std::vector<std::array<float, 3>> connectors;  // as in the file (Z up)
  bool has_connectors = false;
  Loc anim_at, shadow_points_at;
};

// A Scene vertex: its point and the bits of its texture coordinate and normal (-0 as +0).
using VertexKey = std::array<uint32_t, 6>;
struct KeyHash {
  size_t operator()(const VertexKey& k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint32_t v : k) h = (h ^ v) * 0x100000001B3ull;
    return size_t(h ^ (h >> 29));
  }
};
uint32_t key_bits(float f) {
  f += 0.0f;  // -0 -> +0
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

VertexStream float_stream(Attribute a, uint32_t components) {
  VertexStream s;
  s.attribute = a;
  s.format = ComponentType::Float;
  s.source_size = 0;
  s.components = components;
  return s;
}

// An ANIMOBJECT group: levels with the same time, cycles and frame count share an animation.
struct AnimGroup {
  int32_t time = 0, cycles = 0;
  size_t frames = 0;
  bool step = false;  // INTERPOLATE 0 (or less) in effect for the levels: frames are held
  std::vector<size_t> levels;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& file, Diagnostics& diags)
      : lines_(text), file_(file), diags_(diags), model_(model_name(file)) {}

  Scene read() {
    header();
    globals();
    for (size_t k = 1; k <= level_count_; ++k) level(k);
    if (peek()) unexpected_after_last();
    return finish();
  }

 private:
  LineSource lines_;
  const std::string& file_;
  Diagnostics& diags_;
  std::string model_;
  PieData pie_;
  std::vector<LevelWork> work_;  // parallel to pie_.levels
  size_t level_count_ = 0;
  size_t connectors_ = 0;  // in the levels read so far
  float uv_scale_ = 1.0f;

  Line cur_;
  const char* p_ = nullptr;    // scan position in cur_
  const char* tok_ = nullptr;  // start of the last token
  bool pending_ = false;       // cur_ is a directive line not yet handled
  bool stop_ = false;          // the rest of the file is ignored
  std::string_view dir_;       // the directive of cur_
  Loc dir_at_;

  // ---- Diagnostics ---------------------------------------------------------------------------
  Loc at(const char* q) const { return {cur_.number, uint32_t(q - cur_.begin) + 1}; }
  Loc at_tok() const { return at(tok_); }
  [[noreturn]] void error(Loc l, std::string msg) const { fail_at_line(file_, l.line, l.col, std::move(msg)); }
  void warn(Loc l, std::string msg) { diags_.add(warning_at_line(file_, l.line, l.col, std::move(msg))); }
  // What the engine accepts although the format's specification says otherwise: a note, which
  // `validate --strict` does not count (strict means the engine would refuse or misdraw it).
  void note(Loc l, std::string msg) {
    Diagnostic d = warning_at_line(file_, l.line, l.col, std::move(msg));
    d.severity = Severity::Note;
    diags_.add(std::move(d));
  }

  // ---- Tokens --------------------------------------------------------------------------------
  std::string_view word() {
    while (p_ < cur_.end && is_space(*p_)) ++p_;
    tok_ = p_;
    while (p_ < cur_.end && !is_space(*p_)) ++p_;
    return {tok_, size_t(p_ - tok_)};
  }
  [[noreturn]] void expected(const char* what, std::string_view tok) const {
    error(at_tok(), fmt::format("expected {}, found {}", what, tok.empty() ? "the end of the line" : pie_read_quoted(tok)));
  }
  int64_t integer(const char* what, int64_t lo, int64_t hi) {
    std::string_view t = word();
    int64_t v = 0;
    if (!parse_int(t, v) || v < lo || v > hi) expected(what, t);
    return v;
  }
  int32_t int32(const char* what) { return int32_t(integer(what, kInt32Min, kInt32Max)); }
  size_t count(const char* what) { return size_t(integer(what, 0, kInt64Max)); }
  uint32_t hex(const char* what) {
    std::string_view t = word();
    int64_t v = 0;
    if (!parse_int(t, v, 16) || v < 0 || v > kUInt32Max) expected(what, t);
    return uint32_t(v);
  }
  float real(const char* what) {
    std::string_view t = word();
    float v = 0;
    if (!parse_float(t, v)) expected(what, t);
    return v;
  }

  // ---- Lines ---------------------------------------------------------------------------------
  // Loads the next directive line (unless one is pending); false at the end of the file.
  bool peek() {
    if (stop_) return false;
    if (!pending_) {
      if (!lines_.next(cur_)) return false;
      p_ = cur_.begin;
      dir_ = word();
      dir_at_ = at_tok();
      pending_ = true;
    }
    return true;
  }
  void consume() { pending_ = false; }
  // The next line of a block whose length need_lines() checked.
  void block_line() {
    if (!lines_.next(cur_)) error(lines_.eof(), "end of file inside a block");
    p_ = cur_.begin;
  }
  void need_lines(size_t n, Loc directive, std::string_view name) const {
    if (n > lines_.remaining())
      error(directive, fmt::format("end of file inside {}: {} lines announced, {} left", name, n, lines_.remaining()));
  }
  static size_t reserve_size(size_t n) { return std::min<size_t>(n, 65536); }

  // ---- Header and global settings ------------------------------------------------------------
  void header() {
    static const char* kNotPie = "not a PIE file: the first line must be \"PIE 2\", \"PIE 3\" or \"PIE 4\"";
    if (!peek()) error(lines_.eof(), kNotPie);
    consume();
    if (dir_ != "PIE") error(dir_at_, kNotPie);
    std::string_view v = word();
    int64_t n = 0;
    if (v.empty()) error(at_tok(), "PIE version missing: 2, 3 or 4 expected");
    if (!parse_int(v, n) || n < 2 || n > 4)
      error(at_tok(), fmt::format("unsupported PIE version {}: 2, 3 or 4 expected", pie_read_quoted(v)));
    pie_.version = int32_t(n);
    uv_scale_ = n == 2 ? 1.0f / 256.0f : 1.0f;
  }

  void globals() {
    while (peek() && dir_ != "LEVELS") {
      consume();
      if (setting(pie_.global)) continue;
      if (dir_ == "EVENT") {
        event();
        continue;
      }
      if (dir_ == "LEVEL") error(dir_at_, "LEVELS missing before LEVEL");
      if (dir_ == "PIE") error(dir_at_, "PIE given twice");
      error(dir_at_, fmt::format("unknown or misplaced directive {} before LEVELS", pie_read_quoted(dir_)));
    }
    if (!pending_) error(lines_.eof(), "end of file before LEVELS");
    consume();
    if (!pie_.global.has_type) error(dir_at_, "TYPE missing before LEVELS");
    level_count_ = count("the number of levels");
    // Decision: a model without levels is refused (the engine has nothing to draw).
    if (level_count_ == 0) error(at_tok(), "LEVELS 0: at least 1 level expected");
    if (level_count_ > kMaxMeshes)
      error(at_tok(), fmt::format("LEVELS {}: more than meshport reads from one file ({})", level_count_, kMaxMeshes));
  }

  // TYPE, INTERPOLATE and the texture lines, globally or as a level's overrides.
  bool setting(PieSettings& s) {
    if (dir_ == "TYPE") {
      if (s.has_type) error(dir_at_, "TYPE given twice");
      s.type = hex("the TYPE flags (hexadecimal)");
      s.has_type = true;
      return true;
    }
    if (dir_ == "INTERPOLATE") {
      if (s.has_interpolate) error(dir_at_, "INTERPOLATE given twice");
      s.interpolate = int32("the INTERPOLATE value");
      s.has_interpolate = true;
      return true;
    }
    PieTexture::Kind kind;
    if (!texture_kind(dir_, kind)) return false;
    texture_line(s, kind);
    return true;
  }

  void texture_line(PieSettings& s, PieTexture::Kind kind) {
    PieTexture t;
    t.kind = kind;
    int64_t tileset = integer("a tileset (0, 1 or 2)", kInt32Min, kInt32Max);
    if (tileset < 0 || tileset > 2) error(at_tok(), fmt::format("tileset {} out of range: 0, 1 or 2 expected", tileset));
    t.tileset = int32_t(tileset);
    std::string_view name = word();
    if (name.empty()) expected("a texture file name", name);
    check_texture_name(name);
    t.file = std::string(name);
    if (kind == PieTexture::Kind::Texture) optional_size(t);
    for (const PieTexture& o : s.textures)
      if (o.kind == kind && o.tileset == t.tileset) {
        // Decision: a second line for the same tileset is kept but the first one is used.
        warn(dir_at_, fmt::format("{} for tileset {} given twice: the first one is used", dir_, tileset));
        break;
      }
    s.textures.push_back(std::move(t));
  }

  void check_texture_name(std::string_view name) const {
    for (char c : name)
      if (!name_char(c))
        error(at_tok(), fmt::format("texture name {} contains {}: only A-Z a-z 0-9 . _ - are allowed", pie_read_quoted(name),
                                    pie_read_quoted(std::string_view(&c, 1))));
    if (name.size() < 4 || name.substr(name.size() - 4) != ".png")
      error(at_tok(), fmt::format("texture name {} does not end in \".png\"", pie_read_quoted(name)));
  }

  // TEXTURE's optional (ignored) width and height: kept when both are integers.
  void optional_size(PieTexture& t) {
    const char* save = p_;
    int64_t w = 0, h = 0;
    if (parse_int(word(), w) && parse_int(word(), h) && w >= kInt32Min && w <= kInt32Max && h >= kInt32Min &&
        h <= kInt32Max) {
      t.has_size = true;
      t.width = int32_t(w);
      t.height = int32_t(h);
    }
    p_ = save;
  }

  void event() {
    PieEvent e;
    int64_t type = integer("an EVENT type (1, 2 or 3)", kInt32Min, kInt32Max);
    if (type < 1 || type > 3) error(at_tok(), fmt::format("EVENT type {}: 1, 2 or 3 expected", type));
    e.type = int32_t(type);
    std::string_view f = word();
    if (f.empty()) expected("the EVENT's model file name", f);
    e.file = std::string(f);
    pie_.events.push_back(std::move(e));
  }

  // ---- Levels --------------------------------------------------------------------------------
  void level(size_t k) {
    if (!peek()) error(lines_.eof(), fmt::format("end of file: LEVEL {} missing (LEVELS {})", k, level_count_));
    if (dir_ == "LEVELS") error(dir_at_, "LEVELS given twice");
    if (dir_ != "LEVEL")
      error(dir_at_, fmt::format("unknown or misplaced directive {}: LEVEL {} expected", pie_read_quoted(dir_), k));
    consume();
    int64_t n = integer("the level number", kInt32Min, kInt64Max);
    if (n != int64_t(k)) error(at_tok(), fmt::format("LEVEL {} out of sequence: LEVEL {} expected", n, k));
    PieLevel& L = pie_.levels.emplace_back();
    LevelWork& w = work_.emplace_back();
    if (cur_.end < cur_.full_end) L.comment = std::string(trimmed(cur_.end + 1, cur_.full_end));
    before_points(L, k);
    points_block(L.points, "POINTS", "the number of points", "a point coordinate");
    Loc points_at = count_at_;
    if (L.points.size() > kMaxPoints)
      error(points_at, fmt::format("POINTS {}: more than {} points in a level", L.points.size(), kMaxPoints));
    if (L.points.size() > kOldMaxPoints)
      note(points_at, fmt::format("POINTS {}: more than {}, the limit of the PIE 2/3 specification (Warzone 2100's "
                                  "doc/PIE.md); Warzone 2100 4.x reads any count",
                                  L.points.size(), kOldMaxPoints));
    Loc normals_at;
    bool has_normals = peek() && dir_ == "NORMALS";
    if (has_normals) {
      consume();
      normals_block(w);
      normals_at = count_at_;
    }
    if (!peek()) error(lines_.eof(), fmt::format("end of file: POLYGONS missing in level {}", k));
    if (dir_ == "POINTS" || (has_normals && dir_ == "NORMALS"))
      error(dir_at_, fmt::format("{} given twice in level {}", dir_, k));
    if (dir_ != "POLYGONS") missing_directive("POLYGONS", k);
    consume();
    polygons_block(L, w);
    L.normals = has_normals && w.normals.size() == w.polygons.size();
    if (has_normals && !L.normals) {
      warn(normals_at, fmt::format("NORMALS {} differs from POLYGONS {}: the normals are discarded", w.normals.size(),
                                   w.polygons.size()));
      w.normals.clear();
    }
    if (L.points.empty() || w.polygons.empty())
      warn(L.points.empty() ? points_at : count_at_,
           fmt::format("level {} is empty ({} 0): it gets no mesh", k, L.points.empty() ? "POINTS" : "POLYGONS"));
    after_polygons(L, w, k);
    if (L.has_shadow_points && !L.has_shadow_polygons)
      warn(w.shadow_points_at, "SHADOWPOINTS without SHADOWPOLYGONS: the engine ignores them");
  }

  // The level's overrides, MATERIALS and SHADERS; stops at POINTS.
  void before_points(PieLevel& L, size_t k) {
    while (peek() && dir_ != "POINTS") {
      consume();
      if (setting(L.overrides)) continue;
      bool materials = dir_ == "MATERIALS";
      if (!materials && dir_ != "SHADERS") missing_directive("POINTS", k);
      std::string text(trimmed(p_, cur_.end));
      (materials ? L.materials : L.shaders).push_back(std::move(text));
      warn(dir_at_, fmt::format("{} is ignored by the engine (kept)", dir_));
    }
    if (!pending_) error(lines_.eof(), fmt::format("end of file: POINTS missing in level {}", k));
    consume();
  }

  [[noreturn]] void missing_directive(const char* name, size_t k) const {
    if (known_directive(dir_))
      error(dir_at_, fmt::format("{} missing in level {} before {}", name, k, dir_));
    error(dir_at_, fmt::format("unknown or misplaced directive {} in level {}", pie_read_quoted(dir_), k));
  }

  Loc count_at_;  // the count of the last block directive read

  // Reads the count of a block directive (the current line) and checks the lines are there.
  size_t block_count(const char* what, std::string_view name) {
    Loc directive = dir_at_;
    size_t n = count(what);
    count_at_ = at_tok();
    need_lines(n, directive, name);
    if (name == "CONNECTORS" && n > kMaxConnectors - connectors_)
      error(count_at_, fmt::format("CONNECTORS {}: more than {} connectors in the model", n, kMaxConnectors));
    return n;
  }

  void points_block(std::vector<std::array<float, 3>>& out, std::string_view name, const char* count_what,
                    const char* what) {
    size_t n = block_count(count_what, name);
    out.reserve(reserve_size(n));
    for (size_t i = 0; i < n; ++i) {
      block_line();
      std::array<float, 3> p;
      for (float& c : p) c = real(what);
      out.push_back(p);
    }
  }

  void normals_block(LevelWork& w) {
    size_t n = block_count("the number of normal lines", "NORMALS");
    w.normals.reserve(reserve_size(n));
    for (size_t i = 0; i < n; ++i) {
      block_line();
      std::array<float, 9> v;
      for (float& c : v) c = real("a normal component");
      w.normals.push_back(v);
    }
  }

  void polygons_block(PieLevel& L, LevelWork& w) {
    Loc directive = dir_at_;
    size_t n = count("the number of polygons");
    count_at_ = at_tok();
    if (n > kMaxPolygons)
      error(count_at_, fmt::format("POLYGONS {}: more than {} polygons in a level", n, kMaxPolygons));
    if (n > kOldMaxPolygons)
      note(count_at_, fmt::format("POLYGONS {}: more than {}, the limit of the PIE 2/3 specification (Warzone 2100's "
                                  "doc/PIE.md); Warzone 2100 4.4+ accepts up to 8192",
                                  n, kOldMaxPolygons));
    need_lines(n, directive, "POLYGONS");
    w.polygons.reserve(n);
    w.corner_point.reserve(n * 3);
    w.corner_uv.reserve(n * 3);
    for (size_t i = 0; i < n; ++i) {
      block_line();
      polygon_line(L, w);
    }
  }

  // Three point indices, each checked against `points`.
  std::array<uint32_t, 3> triangle(size_t points, const char* index_name, const char* points_name) {
    int64_t corners = integer("the polygon's number of points", std::numeric_limits<int64_t>::min(), kInt64Max);
    if (corners != 3)
      error(at_tok(), fmt::format("polygon with {} points: only triangles (3 points) are supported", corners));
    std::array<uint32_t, 3> idx;
    for (uint32_t& i : idx) {
      int64_t v = integer(index_name, std::numeric_limits<int64_t>::min(), kInt64Max);
      if (v < 0 || uint64_t(v) >= points)
        error(at_tok(), fmt::format("{} {} out of range: {} {}", index_name, v, points_name, points));
      i = uint32_t(v);
    }
    return idx;
  }

  void polygon_line(PieLevel& L, LevelWork& w) {
    PiePolygon poly;
    poly.flags = hex("the polygon flags (hexadecimal)");
    if ((poly.flags & kTexAnim) && !(poly.flags & kTextured))
      error(at_tok(), fmt::format("polygon flags {:x}: flag 4000 (texture animation) needs flag 200 (textured)",
                                  poly.flags));
    if (!(poly.flags & kTextured))
      error(at_tok(), fmt::format("polygon flags {:x}: every polygon needs flag 200 (textured)", poly.flags));
    std::array<uint32_t, 3> idx = triangle(L.points.size(), "point index", "POINTS");
    if (poly.flags & kTexAnim) texture_animation(poly);
    for (uint32_t i : idx) {
      float u = real("a texture coordinate");
      float v = real("a texture coordinate");
      w.corner_point.push_back(i);
      w.corner_uv.push_back({u * uv_scale_, v * uv_scale_});
    }
    w.polygons.push_back(poly);
  }

  void texture_animation(PiePolygon& poly) {
    int64_t frames = integer("the number of texture animation frames", kInt32Min, kUInt32Max);
    if (frames < 1) error(at_tok(), fmt::format("texture animation with {} frames: at least 1 expected", frames));
    int64_t rate = integer("the texture animation rate", kInt32Min, kUInt32Max);
    if (rate < 1) error(at_tok(), fmt::format("texture animation rate {}: at least 1 expected", rate));
    float width = real("the texture animation frame width");
    if (!(width > 0)) error(at_tok(), fmt::format("texture animation frame width {} is not positive", width));
    float height = real("the texture animation frame height");
    if (!(height > 0)) error(at_tok(), fmt::format("texture animation frame height {} is not positive", height));
    poly.anim_frames = uint32_t(frames);
    poly.anim_rate = uint32_t(rate);
    poly.anim_width = width * uv_scale_;
    poly.anim_height = height * uv_scale_;
  }

  // CONNECTORS, ANIMOBJECT, SHADOWPOINTS and SHADOWPOLYGONS in any order, each at most once.
  void after_polygons(PieLevel& L, LevelWork& w, size_t k) {
    bool last = k == level_count_;
    while (peek()) {
      if (dir_ == "LEVEL" && !last) return;
      if (dir_ == "CONNECTORS" && !w.has_connectors) {
        consume();
        w.has_connectors = true;
        points_block(w.connectors, "CONNECTORS", "the number of connectors", "a connector coordinate");
        connectors_ += w.connectors.size();
      } else if (dir_ == "ANIMOBJECT" && !L.has_animobject) {
        consume();
        animobject(L, w);
      } else if (dir_ == "SHADOWPOINTS" && !L.has_shadow_points) {
        consume();
        shadow_points(L, w);
      } else if (dir_ == "SHADOWPOLYGONS" && !L.has_shadow_polygons) {
        consume();
        shadow_polygons(L);
      } else if (!last) {
        bool twice = dir_ == "POINTS" || dir_ == "POLYGONS" || dir_ == "CONNECTORS" ||
                     dir_ == "ANIMOBJECT" || dir_ == "SHADOWPOINTS" || dir_ == "SHADOWPOLYGONS";
        if (twice) error(dir_at_, fmt::format("{} given twice in level {}", dir_, k));
        error(dir_at_, fmt::format("unknown or misplaced directive {} in level {}", pie_read_quoted(dir_), k));
      } else {
        return;  // read() warns
      }
    }
  }

  void unexpected_after_last() {
    warn(dir_at_, fmt::format("unknown or misplaced directive {} after the last level: it and the rest of the file "
                              "are ignored",
                              pie_read_quoted(dir_)));
    stop_ = true;
  }

  void animobject(PieLevel& L, LevelWork& w) {
    Loc directive = dir_at_;
    w.anim_at = directive;
    PieAnimObject& a = L.animobject;
    a.time = int32("the ANIMOBJECT time (milliseconds per frame)");
    if (a.time < 1) error(at_tok(), fmt::format("ANIMOBJECT time {}: at least 1 millisecond per frame expected", a.time));
    a.cycles = int32("the ANIMOBJECT cycles");
    int32_t frames = int32("the ANIMOBJECT frame count");
    if (frames < 1) error(at_tok(), fmt::format("ANIMOBJECT with {} frames: at least 1 expected", frames));
    need_lines(size_t(frames), directive, "ANIMOBJECT");
    L.has_animobject = true;
    a.frames.reserve(reserve_size(size_t(frames)));
    for (int32_t i = 0; i < frames; ++i) {
      block_line();
      a.frames.push_back(anim_frame(i));
    }
  }

  PieAnimFrame anim_frame(int32_t expected_number) {
    PieAnimFrame f;
    f.frame = int32("an ANIMOBJECT frame number");
    if (f.frame != expected_number)
      warn(at_tok(), fmt::format("ANIMOBJECT frame {} out of sequence: frame {} expected", f.frame, expected_number));
    for (int32_t& v : f.position) v = int32("an ANIMOBJECT position (integer thousandths)");
    for (int32_t& v : f.rotation) v = int32("an ANIMOBJECT rotation (integer thousandths of a degree)");
    for (float& v : f.scale) v = real("an ANIMOBJECT scale");
    return f;
  }

  void shadow_points(PieLevel& L, LevelWork& w) {
    w.shadow_points_at = dir_at_;
    points_block(L.shadow_points, "SHADOWPOINTS", "the number of shadow points", "a shadow point coordinate");
    if (L.shadow_points.empty()) error(count_at_, "SHADOWPOINTS 0: at least 1 point expected");
    L.has_shadow_points = true;
  }

  void shadow_polygons(PieLevel& L) {
    if (!L.has_shadow_points) error(dir_at_, "SHADOWPOLYGONS before SHADOWPOINTS");
    size_t n = block_count("the number of shadow polygons", "SHADOWPOLYGONS");
    if (n == 0) error(count_at_, "SHADOWPOLYGONS 0: at least 1 polygon expected");
    L.shadow_polygons.reserve(reserve_size(n));
    for (size_t i = 0; i < n; ++i) {
      block_line();
      uint32_t flags = hex("the shadow polygon flags (hexadecimal)");
      if (flags != 0) error(at_tok(), fmt::format("shadow polygon flags {:x}: must be 0", flags));
      L.shadow_polygons.push_back(triangle(L.shadow_points.size(), "shadow point index", "SHADOWPOINTS"));
    }
    L.has_shadow_polygons = true;
  }

  // ---- The Scene -----------------------------------------------------------------------------
  Scene finish() {
    Scene s;
    add_materials(s);
    for (size_t i = 0; i < pie_.levels.size(); ++i)
      if (!pie_.levels[i].points.empty() && !work_[i].polygons.empty()) {
        pie_.levels[i].mesh = int32_t(s.meshes.size());
        s.meshes.push_back(make_mesh(i, s));
      }
    add_joints(s);
    add_attachments(s);
    add_animations(s);
    s.pie = std::move(pie_);
    return s;
  }

  // One material per distinct TEXTURE page, global lines first, then each level's, file order;
  // its normal, specular and team colour slots are the NORMALMAP, SPECULARMAP and TCMASK pages in
  // effect in that scope for the page's tileset (pie_textures.h).
  void add_materials(Scene& s) {
    auto add = [&](const PieSettings& set, int32_t level) {
      for (const PieTexture& t : set.textures) {
        if (t.kind != PieTexture::Kind::Texture) continue;
        bool known = std::any_of(s.materials.begin(), s.materials.end(),
                                 [&](const Material& m) { return m.base_color_texture == t.file; });
        if (known) continue;
        s.materials.push_back(material(pages_in_effect(pie_, level, &t), type_in_effect(pie_, level), ""));
      }
    };
    add(pie_.global, -1);
    for (size_t i = 0; i < pie_.levels.size(); ++i) add(pie_.levels[i].overrides, int32_t(i));
  }

  static Material material(const PageSet& p, uint32_t type, const std::string& suffix) {
    Material m;
    set_alpha(m, type);
    m.name = p.base.substr(0, p.base.size() - 4) + suffix;  // without ".png"
    m.base_color_texture = p.base;
    m.team_colour_texture = p.tcmask;
    m.normal_texture = p.normal;
    m.specular_texture = p.specular;
    return m;
  }

  // The material with the level's pages in effect (pages_in_effect); a level whose maps differ
  // from those of its page's material gets its own, named "<page>_level<n>".
  int32_t material_of(size_t level, Scene& s) const {
    PageSet p = pages_in_effect(pie_, int32_t(level), nullptr);
    if (p.base.empty()) return -1;
    Material alpha;
    const uint32_t type = type_in_effect(pie_, int32_t(level));
    set_alpha(alpha, type);
    for (size_t m = 0; m < s.materials.size(); ++m)
      if (pages_of(s.materials[m]) == p && same_alpha(s.materials[m], alpha)) return int32_t(m);
    s.materials.push_back(material(p, type, fmt::format("_level{}", level + 1)));
    return int32_t(s.materials.size() - 1);
  }

  Mesh make_mesh(size_t i, Scene& s) {
    PieLevel& L = pie_.levels[i];
    const LevelWork& w = work_[i];
    Mesh m;
    m.name = level_mesh_name(model_, i);
    m.name_made_up = true;  // from the file name
    m.material = material_of(i, s);
    VertexStream pos = float_stream(Attribute::Position, 3);
    VertexStream uv = float_stream(Attribute::Texcoord, 2);
    VertexStream nrm = float_stream(Attribute::Normal, 3);
    VertexStream point = float_stream(Attribute::Custom, 1);
    point.name = std::string(kPointStream);
    std::unordered_map<VertexKey, uint32_t, KeyHash> ids;
    ids.reserve(w.corner_point.size());
    std::array<uint32_t, 3> tri{};
    for (size_t c = 0; c < w.corner_point.size(); ++c) {
      uint32_t point_index = w.corner_point[c];
      std::array<float, 2> t = w.corner_uv[c];
      std::array<float, 3> n{0, 0, 0};
      if (L.normals) {
        const float* v = w.normals[c / 3].data() + (c % 3) * 3;
        n = point_to_scene({v[0], v[1], v[2]});
      }
      VertexKey key{point_index, key_bits(t[0]), key_bits(t[1]), key_bits(n[0]), key_bits(n[1]), key_bits(n[2])};
      auto [it, inserted] = ids.try_emplace(key, uint32_t(point.data.size()));
      if (inserted) {
        point.data.push_back(float(point_index));
        std::array<float, 3> p = point_to_scene(L.points[point_index]);
        pos.data.insert(pos.data.end(), p.begin(), p.end());
        uv.data.insert(uv.data.end(), t.begin(), t.end());
        if (L.normals) nrm.data.insert(nrm.data.end(), n.begin(), n.end());
      }
      tri[c % 3] = it->second;
      if (c % 3 == 2) m.triangles.insert(m.triangles.end(), {tri[0], tri[2], tri[1]});  // reversed winding
    }
    m.streams.push_back(std::move(pos));
    m.streams.push_back(std::move(uv));
    if (L.normals) m.streams.push_back(std::move(nrm));
    m.streams.push_back(std::move(point));
    m.face_channels = polygon_channels(w.polygons);
    // Without NORMALS the engine shades each polygon flat with its own normal: generated
    // normals follow it (an auto-smooth angle of 0 for every triangle).
    if (!L.normals) m.smoothing.face_angle.assign(w.polygons.size(), 0.0f);
    return m;
  }

  // A root joint (identity rest) per level with ANIMOBJECT; its mesh is bound to it entirely.
  void add_joints(Scene& s) {
    for (size_t i = 0; i < pie_.levels.size(); ++i) {
      PieLevel& L = pie_.levels[i];
      if (!L.has_animobject) continue;
      L.joint = int32_t(s.joints.size());
      Joint j;
      j.name = level_mesh_name(model_, i);
      j.name_made_up = true;
      s.joints.push_back(std::move(j));
      if (L.mesh < 0) continue;
      Mesh& m = s.meshes[size_t(L.mesh)];
      VertexStream bi = float_stream(Attribute::BlendIndices, 1);
      VertexStream bw = float_stream(Attribute::BlendWeights, 1);
      bi.data.assign(m.vertex_count(), float(L.joint));
      bw.data.assign(m.vertex_count(), 1.0f);
      m.streams.push_back(std::move(bi));
      m.streams.push_back(std::move(bw));
    }
  }

  void add_attachments(Scene& s) {
    for (size_t i = 0; i < pie_.levels.size(); ++i) {
      const PieLevel& L = pie_.levels[i];
      const std::vector<std::array<float, 3>>& cs = work_[i].connectors;
      for (size_t k = 0; k < cs.size(); ++k) {
        Attachment a;
        a.name = fmt::format("{}_connector{}", level_mesh_name(model_, i), k + 1);
        a.name_made_up = true;
        a.mesh = L.mesh;
        a.joint = L.joint;
        a.transform.translation = connector_to_scene(cs[k]);
        s.attachments.push_back(std::move(a));
      }
    }
  }

  // INTERPOLATE in effect for a level (its own, else the global one; on by default): > 0 is on.
  bool interpolates(const PieLevel& L) const {
    if (L.overrides.has_interpolate) return L.overrides.interpolate > 0;
    return !pie_.global.has_interpolate || pie_.global.interpolate > 0;
  }

  std::vector<AnimGroup> anim_groups() const {
    std::vector<AnimGroup> groups;
    for (size_t i = 0; i < pie_.levels.size(); ++i) {
      const PieLevel& L = pie_.levels[i];
      if (!L.has_animobject) continue;
      const PieAnimObject& a = L.animobject;
      const bool step = !interpolates(L);
      auto same = [&](const AnimGroup& g) {
        return g.time == a.time && g.cycles == a.cycles && g.frames == a.frames.size() && g.step == step;
      };
      auto it = std::find_if(groups.begin(), groups.end(), same);
      if (it == groups.end())
        it = groups.insert(groups.end(), AnimGroup{a.time, a.cycles, a.frames.size(), step, {}});
      it->levels.push_back(i);
    }
    return groups;
  }

  // Levels whose ANIMOBJECT has the same time, cycles and frame count, and the same INTERPOLATE
  // in effect, share an animation (Step when INTERPOLATE is 0);
  // joints outside the group keep their (identity) rest pose in it.
  void add_animations(Scene& s) {
    std::vector<AnimGroup> groups = anim_groups();
    size_t channels = s.joints.size(), total = 0;
    for (const AnimGroup& g : groups) {
      if (g.frames > (kMaxPoses - total) / channels)
        error(work_[g.levels.front()].anim_at,
              fmt::format("ANIMOBJECT: the model's animations would need more than {} poses (animated levels x frames)",
                          kMaxPoses));
      total += g.frames * channels;
    }
    for (const AnimGroup& g : groups) {
      Animation a;
      a.name = groups.size() == 1 ? model_ : level_mesh_name(model_, g.levels.front());
      a.name_made_up = true;
      a.framerate = float(1000.0 / g.time);
      a.loop = g.cycles == 0;
      a.interpolation = g.step ? Interpolation::Step : Interpolation::Linear;
      a.channels = uint32_t(channels);
      a.poses.assign(g.frames * channels, Transform{});
      for (size_t i : g.levels) {
        const PieLevel& L = pie_.levels[i];
        for (size_t f = 0; f < g.frames; ++f)
          a.poses[f * channels + size_t(L.joint)] = frame_to_scene(L.animobject.frames[f]);
      }
      s.animations.push_back(std::move(a));
    }
  }
};

}  // namespace

Scene read(std::string_view text, const std::string& name, Diagnostics& diags) {
  return Reader(text, name, diags).read();
}

}  // namespace meshport::pie
