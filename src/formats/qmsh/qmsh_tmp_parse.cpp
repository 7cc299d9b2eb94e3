// QMSH TMP 10: parser and printer (qmsh_tmp.h); the tokenizer is qmsh_token.h. The grammar is
// the one of ../shared/specs/qmsh-notes.md; where the specification is silent, the choice made
// here is stated in a comment starting "Decision:" and in docs/qmsh.md, "Tokenizer and grammar".
//
// The parser reads the file token by token with one token of lookahead, filling QmshTmpData
// exactly as written (no processing). The grammar has a fixed depth, so there is no recursion.
// Counted blocks reserve memory only for what the rest of the text could hold.
#include "formats/qmsh/qmsh_tmp.h"

#include "core/text.h"
#include "formats/qmsh/qmsh_token.h"

#include <meshport/options.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>

namespace meshport::qmsh_tmp {
namespace {

constexpr uint32_t kUInt32Max = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kMaxMaterials = 16;      // qmsh-tmp: "There are 0..16 materials"
constexpr uint32_t kMaxMaterialIndex = 15;  // qmsh-tmp: "unsigned integer 0..15"

// The shortest text of one entry of a counted block (with the blank that must follow it), so
// that a declared count reserves at most remaining / this many entries.
constexpr size_t kMinMaterialBytes = 2;  // ""
constexpr size_t kMinVertexBytes = 6;    // 0,0,0
constexpr size_t kMinFaceBytes = 24;     // 3 0 0 0 0,0 0 0,0 0 0,0

constexpr std::array<std::string_view, 3> kInterpolations = {"CONST", "LINEAR", "BEZIER"};
constexpr std::array<std::string_view, 4> kExtends = {"CONST", "EXTRAP", "CYCLIC", "CYCLIC_EXTRAP"};

struct Pos {
  uint32_t row = 0, column = 0;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : tokens_(text, file) { advance(); }

  QmshTmpData file(SourceMap* where) {
    QmshTmpData d;
    header();
    keyword("objects");
    symbol('{');
    while (!at_symbol('}')) object(d);
    advance();
    keyword("actions");
    symbol('{');
    while (!at_symbol('}')) d.actions.push_back(action());
    advance();
    params(d);
    if (cur_.kind != TokenKind::End) expected("end of file");
    if (where) *where = std::move(map_);
    return d;
  }

 private:
  // ---- tokens ----------------------------------------------------------------------------------

  void advance() { tokens_.next(cur_); }
  Pos here() const { return {cur_.row, cur_.column}; }
  // Records where the current token is.
  void note(std::vector<Where>& list) const { list.push_back({cur_.row, cur_.column}); }
  [[noreturn]] void fail_at(Pos p, std::string message) const { tokens_.fail_at(p.row, p.column, std::move(message)); }
  [[noreturn]] void fail_here(std::string message) const { fail_at(here(), std::move(message)); }
  [[noreturn]] void expected(std::string_view what) const {
    fail_here(fmt::format("expected {}, found {}", what, describe(cur_)));
  }

  bool at_symbol(char c) const { return cur_.kind == TokenKind::Symbol && cur_.text[0] == c; }
  bool at_word(std::string_view w) const { return cur_.kind == TokenKind::Identifier && cur_.text == w; }
  bool at_number() const { return cur_.kind == TokenKind::Integer || cur_.kind == TokenKind::Float; }

  void symbol(char c) {
    if (!at_symbol(c)) expected(fmt::format("'{}'", c));
    advance();
  }
  void keyword(std::string_view w) {
    if (!at_word(w)) expected(fmt::format("'{}'", w));
    advance();
  }

  std::string string() {
    if (cur_.kind != TokenKind::String) expected("a string");
    std::string s = std::move(cur_.value);
    advance();
    return s;
  }

  float number() {
    if (!at_number()) expected("a number");
    float v = 0;
    if (!lexeme_float(cur_.text, v)) fail_here(fmt::format("number {} is beyond the float range", shown(cur_.text)));
    advance();
    return v;
  }

  // Decision: CommonLib reads an integer with a leading zero as octal ("010" is 8); the exporter
  // never writes one, so rather than guess, such an integer is an error.
  void no_leading_zero(std::string_view what) const {
    size_t i = cur_.text[0] == '+' || cur_.text[0] == '-' ? 1 : 0;
    if (cur_.text.size() > i + 1 && cur_.text[i] == '0')
      fail_here(fmt::format("{} {} has a leading zero (octal in CommonLib): not read", what, shown(cur_.text)));
  }

  // An integer in [lo, hi]; `what` names it in messages ("material index").
  int64_t integer(std::string_view what, int64_t lo, int64_t hi) {
    if (cur_.kind != TokenKind::Integer) expected(fmt::format("an integer ({})", what));
    no_leading_zero(what);
    IntegerValue v = lexeme_integer(cur_.text);
    // Saturate far outside any range checked here, so that the signed value cannot overflow.
    int64_t magnitude = int64_t(std::min<uint64_t>(v.magnitude, uint64_t(1) << 40));
    int64_t value = v.negative ? -magnitude : magnitude;
    if (value < lo || value > hi) fail_here(fmt::format("{} {} out of range ({}..{})", what, shown(cur_.text), lo, hi));
    advance();
    return value;
  }
  uint32_t uint(std::string_view what, uint32_t max = kUInt32Max) { return uint32_t(integer(what, 0, max)); }
  int32_t int32(std::string_view what) {
    return int32_t(integer(what, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  }

  template <size_t N>
  std::array<float, N> vec() {
    std::array<float, N> v{};
    for (size_t i = 0; i < N; ++i) {
      if (i) symbol(',');
      v[i] = number();
    }
    return v;
  }

  // Rows of `columns` numbers separated by ',' and ended by ';'.
  template <size_t N>
  void matrix(std::array<float, N>& m, size_t columns) {
    for (size_t i = 0; i < N; ++i) {
      if (i % columns) symbol(',');
      m[i] = number();
      if (i % columns == columns - 1) symbol(';');
    }
  }

  // A vertex index of a mesh with `count` vertices.
  uint32_t vertex_index(size_t count) {
    Pos at = here();
    uint32_t v = uint("vertex index");
    if (v >= count) fail_at(at, fmt::format("vertex index {} out of range: the mesh has {} vertices", v, count));
    return v;
  }

  // Entries that the rest of the text can hold, at `min_bytes` each (an upper bound for reserve).
  size_t capacity_for(uint32_t declared, size_t min_bytes) const {
    return std::min<size_t>(declared, tokens_.remaining() / min_bytes + 1);
  }

  // `{ entry* }` with exactly `declared` entries.
  template <class Entry>
  void counted(uint32_t declared, std::string_view plural, Entry&& entry) {
    symbol('{');
    uint32_t found = 0;
    while (!at_symbol('}')) {
      if (found == declared) {
        if (cur_.kind == TokenKind::End) expected("'}'");
        fail_here(fmt::format("more {} than the {} declared", plural, declared));
      }
      entry();
      ++found;
    }
    if (found != declared) fail_here(fmt::format("{} declared: {}, found: {}", plural, declared, found));
    advance();
  }

  // ---- grammar ---------------------------------------------------------------------------------

  void header() {
    if (at_word("TFQMSH10"))
      fail_here("this is a binary TFQMSH10 mesh (.qmsh), not the text format 'QMSH TMP 10' (.qmsh.tmp)");
    if (!at_word("QMSH")) expected("the header 'QMSH TMP 10'");
    advance();
    if (!at_word("TMP")) expected("'TMP' (the header is 'QMSH TMP 10')");
    advance();
    if (!at_number()) expected("the version number (the header is 'QMSH TMP 10')");
    IntegerValue v = lexeme_integer(cur_.text);
    if (cur_.kind == TokenKind::Integer) no_leading_zero("version");
    if (cur_.kind != TokenKind::Integer || v.negative || v.magnitude != 10)
      fail_here(fmt::format("unsupported QMSH TMP version {}: only version 10 is read", shown(cur_.text)));
    advance();
  }

  void object(QmshTmpData& d) {
    if (at_word("mesh")) {
      advance();
      d.meshes.push_back(mesh());
    } else if (at_word("armature")) {
      if (d.has_armature) fail_here("a second armature: at most one armature is allowed");
      advance();
      map_.armature = {cur_.row, cur_.column};
      d.armature_index = uint32_t(d.meshes.size());
      d.armature = armature();
      d.has_armature = true;
    } else {
      expected("'mesh', 'armature' or '}'");
    }
  }

  QmshTmpMesh mesh() {
    QmshTmpMesh m;
    note(map_.meshes);
    m.name = string();
    symbol('{');
    m.position = vec<3>();
    m.orientation = vec<3>();
    m.size = vec<3>();
    m.parent_armature = string();
    note(map_.parent_bones);
    m.parent_bone = string();
    m.auto_smooth_angle = number();
    materials(m);
    vertices(m);
    faces(m);
    vertex_groups(m);
    symbol('}');
    return m;
  }

  void materials(QmshTmpMesh& m) {
    keyword("materials");
    Pos at = here();
    uint32_t n = uint("material count");
    if (n > kMaxMaterials) fail_at(at, fmt::format("at most {} materials, not {}", kMaxMaterials, n));
    m.materials.reserve(capacity_for(n, kMinMaterialBytes));
    counted(n, "materials", [&] { m.materials.push_back(string()); });
  }

  void vertices(QmshTmpMesh& m) {
    keyword("vertices");
    uint32_t n = uint("vertex count");
    m.vertices.reserve(capacity_for(n, kMinVertexBytes));
    counted(n, "vertices", [&] { m.vertices.push_back(vec<3>()); });
  }

  void faces(QmshTmpMesh& m) {
    keyword("faces");
    uint32_t n = uint("face count");
    m.faces.reserve(capacity_for(n, kMinFaceBytes));
    counted(n, "faces", [&] { m.faces.push_back(face(m.vertices.size())); });
  }

  QmshTmpFace face(size_t vertex_count) {
    QmshTmpFace f;
    Pos at = here();
    f.count = uint("face vertex count");
    if (f.count != 3 && f.count != 4) fail_at(at, fmt::format("a face has 3 or 4 vertices, not {}", f.count));
    f.material = uint("material index", kMaxMaterialIndex);
    // Decision: Is_smooth is kept as written (any unsigned value); the processing ignores it.
    f.smooth = uint("smooth flag");
    for (uint32_t i = 0; i < f.count; ++i) {
      f.vertex[i] = vertex_index(vertex_count);
      f.uv[i] = vec<2>();
    }
    return f;
  }

  void vertex_groups(QmshTmpMesh& m) {
    keyword("vertex_groups");
    symbol('{');
    std::vector<Where>& names = map_.vertex_groups.emplace_back();
    while (!at_symbol('}')) {
      if (cur_.kind != TokenKind::String) expected("a vertex group name (a string) or '}'");
      QmshTmpVertexGroup g;
      note(names);
      g.name = string();
      symbol('{');
      while (!at_symbol('}')) {
        g.vertices.push_back(vertex_index(m.vertices.size()));
        g.weights.push_back(number());
      }
      advance();
      m.vertex_groups.push_back(std::move(g));
    }
    advance();
  }

  QmshTmpArmature armature() {
    QmshTmpArmature a;
    a.name = string();
    symbol('{');
    a.position = vec<3>();
    a.orientation = vec<3>();
    a.size = vec<3>();
    // Decision: the two flags are kept as written (any int32), like the exporter's 0 / 1.
    a.vertex_groups = int32("vertex groups flag");
    a.envelopes = int32("envelopes flag");
    while (!at_symbol('}')) {
      if (!at_word("bone")) expected("'bone' or '}'");
      if (a.bones.size() == kMaxJoints)
        fail_here(fmt::format("more than {} bones: more than meshport reads from one file", kMaxJoints));
      advance();
      a.bones.push_back(bone());
    }
    advance();
    return a;
  }

  QmshTmpBone bone() {
    QmshTmpBone b;
    note(map_.bones);
    b.name = string();
    symbol('{');
    note(map_.bone_parents);
    b.parent = string();
    keyword("head");
    b.head_bone = vec<3>();
    b.head_armature = vec<3>();
    b.head_radius = number();
    keyword("tail");
    b.tail_bone = vec<3>();
    b.tail_armature = vec<3>();
    b.tail_radius = number();
    b.roll_bone = number();
    b.roll_armature = number();
    b.length = number();
    b.weight = number();
    matrix(b.matrix_bone, 3);
    matrix(b.matrix_armature, 4);
    symbol('}');
    return b;
  }

  QmshTmpAction action() {
    if (cur_.kind != TokenKind::String) expected("an action name (a string) or '}'");
    QmshTmpAction a;
    note(map_.actions);
    map_.channels.emplace_back();
    map_.curves.emplace_back();
    a.name = string();
    symbol('{');
    while (!at_symbol('}')) {
      if (cur_.kind != TokenKind::String) expected("a channel name (a string) or '}'");
      a.channels.push_back(channel());
    }
    advance();
    return a;
  }

  QmshTmpChannel channel() {
    QmshTmpChannel c;
    note(map_.channels.back());
    c.name = string();
    symbol('{');
    while (!at_symbol('}')) {
      if (cur_.kind != TokenKind::String) expected("a curve name (a string) or '}'");
      c.curves.push_back(curve());
    }
    advance();
    return c;
  }

  QmshTmpCurve curve() {
    QmshTmpCurve c;
    note(map_.curves.back());
    c.name = string();
    c.interpolation = QmshTmpCurve::Interpolation(choice(kInterpolations, "interpolation", "CONST, LINEAR or BEZIER"));
    c.extend = QmshTmpCurve::Extend(choice(kExtends, "extend mode", "CONST, EXTRAP, CYCLIC or CYCLIC_EXTRAP"));
    symbol('{');
    while (!at_symbol('}')) c.points.push_back(vec<2>());
    advance();
    return c;
  }

  // The index of the identifier among `names`.
  template <size_t N>
  uint8_t choice(const std::array<std::string_view, N>& names, std::string_view what, std::string_view list) {
    if (cur_.kind != TokenKind::Identifier) expected(fmt::format("an {} ({})", what, list));
    auto it = std::find(names.begin(), names.end(), cur_.text);
    if (it == names.end()) fail_here(fmt::format("unknown {} '{}': {} expected", what, shown(cur_.text), list));
    advance();
    return uint8_t(it - names.begin());
  }

  void params(QmshTmpData& d) {
    keyword("params");
    symbol('{');
    while (!at_symbol('}')) {
      if (!at_word("fps")) expected("'fps' or '}'");
      advance();
      symbol('=');
      note(map_.fps);
      d.fps.push_back(int32("fps"));
    }
    advance();
  }

  Tokenizer tokens_;
  Token cur_;
  SourceMap map_;
};

// ---- printer -------------------------------------------------------------------------------------

class Printer {
 public:
  std::string out;

  void file(const QmshTmpData& d) {
    out += "QMSH TMP 10\nobjects {\n";
    for (size_t i = 0; i < d.meshes.size(); ++i) {
      if (d.has_armature && d.armature_index == i) armature(d.armature);
      mesh(d.meshes[i]);
    }
    if (d.has_armature && d.armature_index >= d.meshes.size()) armature(d.armature);
    out += "}\nactions {\n";
    for (const QmshTmpAction& a : d.actions) action(a);
    out += "}\nparams {\n";
    for (int32_t f : d.fps) fmt::format_to(std::back_inserter(out), "\tfps = {}\n", f);
    out += "}\n";
  }

 private:
  void line(int depth) { out.append(size_t(depth), '\t'); }
  void number(float v) { text::append_float(out, v); }
  void string(std::string_view s) { append_quoted(out, s); }
  void uint(uint32_t v) { fmt::format_to(std::back_inserter(out), "{}", v); }

  template <size_t N>
  void vec(const std::array<float, N>& v) {
    for (size_t i = 0; i < N; ++i) {
      if (i) out += ',';
      number(v[i]);
    }
  }
  template <size_t N>
  void vec_line(int depth, const std::array<float, N>& v) {
    line(depth);
    vec(v);
    out += '\n';
  }
  template <size_t N>
  void matrix(int depth, const std::array<float, N>& m, size_t columns) {
    for (size_t i = 0; i < N; ++i) {
      if (i % columns == 0) line(depth);
      number(m[i]);
      out += i % columns == columns - 1 ? ";\n" : ", ";
    }
  }

  void mesh(const QmshTmpMesh& m) {
    out += "\tmesh ";
    string(m.name);
    out += " {\n";
    vec_line(2, m.position);
    vec_line(2, m.orientation);
    vec_line(2, m.size);
    line(2);
    string(m.parent_armature);
    out += ' ';
    string(m.parent_bone);
    out += "\n\t\t";
    number(m.auto_smooth_angle);
    fmt::format_to(std::back_inserter(out), "\n\t\tmaterials {} {{\n", m.materials.size());
    for (const std::string& s : m.materials) {
      line(3);
      string(s);
      out += '\n';
    }
    fmt::format_to(std::back_inserter(out), "\t\t}}\n\t\tvertices {} {{\n", m.vertices.size());
    for (const auto& v : m.vertices) vec_line(3, v);
    fmt::format_to(std::back_inserter(out), "\t\t}}\n\t\tfaces {} {{\n", m.faces.size());
    for (const QmshTmpFace& f : m.faces) face(f);
    out += "\t\t}\n\t\tvertex_groups {\n";
    for (const QmshTmpVertexGroup& g : m.vertex_groups) vertex_group(g);
    out += "\t\t}\n\t}\n";
  }

  void face(const QmshTmpFace& f) {
    fmt::format_to(std::back_inserter(out), "\t\t\t{} {} {}", f.count, f.material, f.smooth);
    for (size_t i = 0; i < std::min<size_t>(f.count, 4); ++i) {
      out += ' ';
      uint(f.vertex[i]);
      out += ' ';
      vec(f.uv[i]);
    }
    out += '\n';
  }

  void vertex_group(const QmshTmpVertexGroup& g) {
    line(3);
    string(g.name);
    out += " {";
    for (size_t i = 0; i < std::min(g.vertices.size(), g.weights.size()); ++i) {
      out += ' ';
      uint(g.vertices[i]);
      out += ' ';
      number(g.weights[i]);
    }
    out += " }\n";
  }

  void armature(const QmshTmpArmature& a) {
    out += "\tarmature ";
    string(a.name);
    out += " {\n";
    vec_line(2, a.position);
    vec_line(2, a.orientation);
    vec_line(2, a.size);
    fmt::format_to(std::back_inserter(out), "\t\t{} {}\n", a.vertex_groups, a.envelopes);
    for (const QmshTmpBone& b : a.bones) bone(b);
    out += "\t}\n";
  }

  void bone(const QmshTmpBone& b) {
    out += "\t\tbone ";
    string(b.name);
    out += " {\n\t\t\t";
    string(b.parent);
    out += "\n\t\t\thead ";
    end_point(b.head_bone, b.head_armature, b.head_radius);
    out += "\t\t\ttail ";
    end_point(b.tail_bone, b.tail_armature, b.tail_radius);
    pair(3, b.roll_bone, b.roll_armature);
    pair(3, b.length, b.weight);
    matrix(3, b.matrix_bone, 3);
    matrix(3, b.matrix_armature, 4);
    out += "\t\t}\n";
  }

  void end_point(const std::array<float, 3>& bone, const std::array<float, 3>& armature, float radius) {
    vec(bone);
    out += ' ';
    vec(armature);
    out += ' ';
    number(radius);
    out += '\n';
  }

  void pair(int depth, float a, float b) {
    line(depth);
    number(a);
    out += ' ';
    number(b);
    out += '\n';
  }

  void action(const QmshTmpAction& a) {
    out += '\t';
    string(a.name);
    out += " {\n";
    for (const QmshTmpChannel& c : a.channels) {
      out += "\t\t";
      string(c.name);
      out += " {\n";
      for (const QmshTmpCurve& k : c.curves) curve(k);
      out += "\t\t}\n";
    }
    out += "\t}\n";
  }

  void curve(const QmshTmpCurve& c) {
    out += "\t\t\t";
    string(c.name);
    out += ' ';
    out += kInterpolations[std::min<size_t>(size_t(c.interpolation), kInterpolations.size() - 1)];
    out += ' ';
    out += kExtends[std::min<size_t>(size_t(c.extend), kExtends.size() - 1)];
    out += " {";
    for (const auto& p : c.points) {
      out += ' ';
      vec(p);
    }
    out += " }\n";
  }
};

}  // namespace

QmshTmpData parse(std::string_view text, const std::string& name, Diagnostics&, SourceMap* where) {
  return Parser(text, name).file(where);
}

std::string print(const QmshTmpData& data) {
  Printer p;
  p.file(data);
  return std::move(p.out);
}

}  // namespace meshport::qmsh_tmp
