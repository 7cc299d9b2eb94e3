// QMSH TMP 10 tokenizer, parser and printer (src/formats/qmsh/qmsh_token.h, qmsh_tmp.h): tokens,
// every grammar element with exact values (tests/data/qmsh), every error with its exact message
// and row:col, parse(print(d)) == d for the files and for random data, hostile input.
#include <meshport/meshport.h>

#include "formats/qmsh/qmsh_tmp.h"
#include "formats/qmsh/qmsh_token.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace meshport_test_qmsh_tmp_parse {

using namespace meshport;
using meshport::qmsh_tmp::Token;
using meshport::qmsh_tmp::TokenKind;
using meshport::qmsh_tmp::Tokenizer;
using Interp = QmshTmpCurve::Interpolation;
using Extend = QmshTmpCurve::Extend;

namespace {

std::string data_dir() { return std::string(MESHPORT_TEST_DATA) + "/qmsh"; }
std::string fixture_text(const std::string& name) { return testutil::slurp(data_dir() + "/" + name); }

QmshTmpData parse_text(std::string_view text, const std::string& name = "t.qmsh.tmp") {
  Diagnostics d;
  return qmsh_tmp::parse(text, name, d);
}

QmshTmpData parse_fixture(const std::string& name) {
  std::string text = fixture_text(name);
  EXPECT_FALSE(text.empty()) << name;
  return parse_text(text, name);
}

std::string error_of_text(std::string_view text, const std::string& name = "t.qmsh.tmp") {
  Diagnostics d;
  try {
    qmsh_tmp::parse(text, name, d);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// All tokens of `text` as "kind:text" (strings as S:value), or the error message.
std::string tokens(std::string_view text) {
  Tokenizer tk(text, "t");
  Token t;
  std::string out;
  try {
    for (;;) {
      tk.next(t);
      if (t.kind == TokenKind::End) break;
      if (!out.empty()) out += ' ';
      const char* kind = t.kind == TokenKind::Symbol       ? "Y"
                         : t.kind == TokenKind::Identifier ? "I"
                         : t.kind == TokenKind::Integer    ? "N"
                         : t.kind == TokenKind::Float      ? "F"
                                                           : "S";
      out += kind;
      out += ':';
      out += t.kind == TokenKind::String ? t.value : t.text;
    }
  } catch (const Error& e) {
    return e.what();
  }
  return out;
}

// Positions "row:col" of all tokens.
std::string positions(std::string_view text) {
  Tokenizer tk(text, "t");
  Token t;
  std::string out;
  for (;;) {
    tk.next(t);
    if (!out.empty()) out += ' ';
    out += std::to_string(t.row) + ":" + std::to_string(t.column);
    if (t.kind == TokenKind::End) break;
  }
  return out;
}

std::string string_value(std::string_view text) {
  Tokenizer tk(text, "t");
  Token t;
  tk.next(t);
  EXPECT_EQ(t.kind, TokenKind::String) << text;
  return t.value;
}

std::vector<std::string> valid_fixtures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(data_dir())) {
    std::string n = e.path().filename().string();
    if (n.size() > 9 && n.ends_with(".qmsh.tmp") && !n.starts_with("err-")) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> error_fixtures() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(data_dir())) {
    std::string n = e.path().filename().string();
    if (n.ends_with(".qmsh.tmp") && n.starts_with("err-")) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace


namespace {

using V3 = std::array<float, 3>;
using V2 = std::array<float, 2>;

QmshTmpFace make_face(uint32_t material, uint32_t smooth, std::vector<std::pair<uint32_t, V2>> corners) {
  QmshTmpFace f;
  f.count = uint32_t(corners.size());
  f.material = material;
  f.smooth = smooth;
  for (size_t i = 0; i < corners.size(); ++i) {
    f.vertex[i] = corners[i].first;
    f.uv[i] = corners[i].second;
  }
  return f;
}

const QmshTmpCurve* find_curve(const QmshTmpChannel& c, const std::string& name) {
  for (const QmshTmpCurve& k : c.curves)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace

// ---- tokenizer ----------------------------------------------------------------------------------

TEST(QmshTmpParseTokenizer, EachEscape) {
  EXPECT_EQ(string_value(R"("\\")"), "\\");
  EXPECT_EQ(string_value(R"("\?")"), "?");
  EXPECT_EQ(string_value(R"("\"")"), "\"");
  EXPECT_EQ(string_value(R"("\'")"), "'");
  EXPECT_EQ(string_value(R"("\0")"), std::string(1, '\0'));
  EXPECT_EQ(string_value(R"("\r")"), "\r");
  EXPECT_EQ(string_value(R"("\n")"), "\n");
  EXPECT_EQ(string_value(R"("\t")"), "\t");
  EXPECT_EQ(string_value(R"("\v")"), "\v");
  EXPECT_EQ(string_value(R"("\b")"), "\b");
  EXPECT_EQ(string_value(R"("\f")"), "\f");
  EXPECT_EQ(string_value(R"("\a")"), "\a");
  EXPECT_EQ(string_value(R"("\x41\x7a\xFF\x00\x0d")"), std::string("Az\xFF\0\r", 5));
  EXPECT_EQ(string_value(R"("\01")"), std::string("\0" "1", 2));  // \0 takes no further digits
  EXPECT_EQ(string_value("\"\""), "");
  // Raw bytes other than line ends are kept as they are (the file is "ANSI").
  EXPECT_EQ(string_value("\"caf\xE9 \t/* x */ // y\""), "caf\xE9 \t/* x */ // y");
}

TEST(QmshTmpParseTokenizer, StringErrors) {
  EXPECT_EQ(tokens("\"abc"), "t:1:1: error: unterminated string: end of file before '\"'");
  EXPECT_EQ(tokens("\"a\\"), "t:1:1: error: unterminated string: end of file before '\"'");
  EXPECT_EQ(tokens("x \"ab\ncd\""), "t:1:6: error: line end inside a string");
  EXPECT_EQ(tokens("\"ab\rcd\""), "t:1:4: error: line end inside a string");
  EXPECT_EQ(tokens(R"(a "b\q")"), "t:1:5: error: unknown escape '\\' followed by 'q'");
  EXPECT_EQ(tokens("\"\\\x01\""), "t:1:2: error: unknown escape '\\' followed by byte 0x01");
  EXPECT_EQ(tokens(R"("a\x4g")"), "t:1:3: error: escape '\\x' must be followed by two hexadecimal digits");
  EXPECT_EQ(tokens(R"("a\x")"), "t:1:3: error: escape '\\x' must be followed by two hexadecimal digits");
  EXPECT_EQ(tokens("\n  \"a\\x4"), "t:2:5: error: escape '\\x' must be followed by two hexadecimal digits");
}

TEST(QmshTmpParseTokenizer, Comments) {
  EXPECT_EQ(tokens("a // b c\nd"), "I:a I:d");
  EXPECT_EQ(tokens("a // b c"), "I:a");
  EXPECT_EQ(tokens("a /* b \n c */ d"), "I:a I:d");
  EXPECT_EQ(tokens("a/**/b"), "I:a I:b");
  EXPECT_EQ(tokens("a /*/ b */ c"), "I:a I:c");
  EXPECT_EQ(tokens("a /* b **/ c"), "I:a I:c");
  EXPECT_EQ(tokens("a /* /* b */ c */"), "I:a I:c Y:* Y:/");  // not nested
  EXPECT_EQ(tokens("a / b"), "I:a Y:/ I:b");
  EXPECT_EQ(tokens("\"// not /* a comment\""), "S:// not /* a comment");
  EXPECT_EQ(tokens("a /* b *"), "t:1:3: error: unterminated comment: '/*' without '*/'");
  EXPECT_EQ(tokens("x\n  /* \n\n"), "t:2:3: error: unterminated comment: '/*' without '*/'");
  EXPECT_EQ(positions("/* 1\n2 */ a // b\nc"), "2:6 3:1 3:2");
}

TEST(QmshTmpParseTokenizer, Continuation) {
  EXPECT_EQ(tokens("a \\\n b"), "I:a I:b");
  EXPECT_EQ(tokens("a \\\r\n b"), "I:a I:b");
  EXPECT_EQ(tokens("a\\\nb"), "I:ab");  // a splice joins lines anywhere, as in CommonLib
  EXPECT_EQ(tokens("1\\\n2"), "N:12");
  EXPECT_EQ(tokens("1.\\\r\n5"), "F:1.5");
  EXPECT_EQ(tokens("\"ab\\\ncd\""), "S:abcd");
  // The second backslash of "\\" and the line end form a splice first (CommonLib's character
  // layer), so the escape is "\c".
  EXPECT_EQ(tokens("\"ab\\\\\ncd\""), "t:1:4: error: unknown escape '\\' followed by 'c'");
  EXPECT_EQ(tokens("a // comment \\\n still comment\nb"), "I:a I:b");
  EXPECT_EQ(tokens("/\\\n/ comment\nx"), "I:x");
  EXPECT_EQ(tokens("a \\ b"), "I:a Y:\\ I:b");  // a backslash elsewhere is a symbol
  EXPECT_EQ(tokens("a\\"), "I:a Y:\\");
  EXPECT_EQ(positions("a\\\nb c\\\n\\\nd"), "1:1 2:3 4:2");
}

TEST(QmshTmpParseTokenizer, Whitespace) {
  EXPECT_EQ(tokens("a\tb\vc\rd\ne\r\nf  g"), "I:a I:b I:c I:d I:e I:f I:g");
  EXPECT_EQ(positions("a\r\nb\rc\nd\n\n  e"), "1:1 2:1 3:1 4:1 6:3 6:4");
  EXPECT_EQ(tokens(""), "");
  EXPECT_EQ(tokens(" \t\v\r\n"), "");
  EXPECT_EQ(tokens("a\fb"), "t:1:2: error: unexpected character byte 0x0C");
  EXPECT_EQ(tokens("a\xE9"), "t:1:2: error: unexpected character byte 0xE9");
  EXPECT_EQ(tokens(std::string_view("a\0b", 3)), "t:1:2: error: unexpected character byte 0x00");
  EXPECT_EQ(tokens("\n'A'"), "t:2:1: error: unexpected character '''");
}

TEST(QmshTmpParseTokenizer, SymbolsAndIdentifiers) {
  EXPECT_EQ(tokens("`~!@#$%^&*()=[]{};:,.<>?\\|/"),
            "Y:` Y:~ Y:! Y:@ Y:# Y:$ Y:% Y:^ Y:& Y:* Y:( Y:) Y:= Y:[ Y:] Y:{ Y:} Y:; Y:: Y:, Y:. Y:< Y:> Y:? Y:\\ "
            "Y:| Y:/");
  EXPECT_EQ(tokens("{a,b;}"), "Y:{ I:a Y:, I:b Y:; Y:}");
  EXPECT_EQ(tokens("_a1 B_2 mesh Mesh CYCLIC_EXTRAP"), "I:_a1 I:B_2 I:mesh I:Mesh I:CYCLIC_EXTRAP");
  EXPECT_EQ(tokens("a.b"), "I:a Y:. I:b");
}

TEST(QmshTmpParseTokenizer, Numbers) {
  EXPECT_EQ(tokens("0 12 -3 +4 -0 1.5 -0.25 +2. 1e5 1E-5 2.5e+3 4294967296"),
            "N:0 N:12 N:-3 N:+4 N:-0 F:1.5 F:-0.25 F:+2. F:1e5 F:1E-5 F:2.5e+3 N:4294967296");
  EXPECT_EQ(tokens("1,2,-3;4"), "N:1 Y:, N:2 Y:, N:-3 Y:; N:4");
  EXPECT_EQ(tokens("1e5,-2.5e-1 3}"), "F:1e5 Y:, F:-2.5e-1 N:3 Y:}");
  EXPECT_EQ(tokens(".5"), "Y:. N:5");  // a number starts with a digit or a sign
  EXPECT_EQ(tokens("1.2.3"), "t:1:1: error: invalid number '1.2.3'");
  EXPECT_EQ(tokens("x -"), "t:1:3: error: '-' must be followed by a digit");
  EXPECT_EQ(tokens("x - 1"), "t:1:3: error: '-' must be followed by a digit");
  EXPECT_EQ(tokens("+ 1"), "t:1:1: error: '+' must be followed by a digit");
  EXPECT_EQ(tokens("-.5"), "t:1:1: error: '-' must be followed by a digit");
  EXPECT_EQ(tokens("--1"), "t:1:1: error: '-' must be followed by a digit");
  EXPECT_EQ(tokens("1e"), "t:1:1: error: invalid number '1e'");
  EXPECT_EQ(tokens("1e+"), "t:1:1: error: invalid number '1e+'");
  EXPECT_EQ(tokens("\n 5abc"), "t:2:2: error: invalid number '5abc'");
  EXPECT_EQ(tokens("0x10"), "t:1:1: error: invalid number '0x10'");
  EXPECT_EQ(tokens("1-2"), "t:1:1: error: invalid number '1-2'");  // one lexeme, as in CommonLib
  EXPECT_EQ(tokens("1d5"), "t:1:1: error: invalid number '1d5'");
  EXPECT_EQ(tokens("1.5f"), "t:1:1: error: invalid number '1.5f'");
  EXPECT_EQ(tokens(std::string(100, '1') + ".2.3"),
            "t:1:1: error: invalid number '" + std::string(32, '1') + "...'");
}

TEST(QmshTmpParseTokenizer, NumberValues) {
  float f = 7;
  ASSERT_TRUE(qmsh_tmp::lexeme_float("+2.5", f));
  EXPECT_EQ(f, 2.5f);
  ASSERT_TRUE(qmsh_tmp::lexeme_float("0.1", f));
  EXPECT_EQ(f, 0.1f);
  ASSERT_TRUE(qmsh_tmp::lexeme_float("-7", f));
  EXPECT_EQ(f, -7.0f);
  ASSERT_TRUE(qmsh_tmp::lexeme_float("3.4028235e38", f));
  EXPECT_EQ(f, std::numeric_limits<float>::max());
  ASSERT_TRUE(qmsh_tmp::lexeme_float("1e-45", f));
  EXPECT_EQ(f, std::numeric_limits<float>::denorm_min());
  ASSERT_TRUE(qmsh_tmp::lexeme_float("1e-50", f));  // below the float range: zero
  EXPECT_EQ(f, 0.0f);
  EXPECT_FALSE(std::signbit(f));
  ASSERT_TRUE(qmsh_tmp::lexeme_float("-0.00001e-99999999999999999999", f));
  EXPECT_EQ(f, 0.0f);
  EXPECT_TRUE(std::signbit(f));
  ASSERT_TRUE(qmsh_tmp::lexeme_float("100000000000000000000000000000000000000000e-10", f));
  EXPECT_EQ(f, 1e31f);
  EXPECT_FALSE(qmsh_tmp::lexeme_float("1e39", f));
  EXPECT_FALSE(qmsh_tmp::lexeme_float("-3.5e38", f));
  EXPECT_FALSE(qmsh_tmp::lexeme_float("0.001e99999999999999", f));

  auto v = qmsh_tmp::lexeme_integer("-2147483648");
  EXPECT_TRUE(v.negative);
  EXPECT_EQ(v.magnitude, 2147483648u);
  v = qmsh_tmp::lexeme_integer("+42");
  EXPECT_FALSE(v.negative);
  EXPECT_EQ(v.magnitude, 42u);
  v = qmsh_tmp::lexeme_integer("99999999999999999999999");
  EXPECT_EQ(v.magnitude, std::numeric_limits<uint64_t>::max());
}

TEST(QmshTmpParseTokenizer, Quote) {
  std::string in("a\\b\"c\0d\r\n\t\v\b\f\a\x01\x1f\x7f\xE9?'/*", 22);
  std::string out;
  qmsh_tmp::append_quoted(out, in);
  EXPECT_EQ(out, "\"a\\\\b\\\"c\\0d\\r\\n\\t\\v\\b\\f\\a\\x01\\x1F\\x7F\xE9?'/*\"");
  EXPECT_EQ(string_value(out), in);
  for (int c = 0; c < 256; ++c) {
    std::string one(1, char(c)), q;
    qmsh_tmp::append_quoted(q, one);
    EXPECT_EQ(string_value(q), one) << c;
  }
}

TEST(QmshTmpParseTokenizer, Positions) {
  EXPECT_EQ(positions("QMSH TMP 10\nobjects {\n\tmesh \"a b\" {"), "1:1 1:6 1:10 2:1 2:9 3:2 3:7 3:13 3:14");
}

// ---- files: every grammar element ----------------------------------------------------------------

TEST(QmshTmpParseFiles, Minimal) {
  QmshTmpData want;
  EXPECT_EQ(parse_fixture("minimal.qmsh.tmp"), want);
  EXPECT_EQ(parse_text("QMSH TMP 10 objects{}actions{}params{}"), want);
}

TEST(QmshTmpParseFiles, Cube) {
  QmshTmpData d = parse_fixture("cube.qmsh.tmp");
    EXPECT_FALSE(d.has_armature);
  EXPECT_EQ(d.armature_index, 0u);
  EXPECT_EQ(d.armature, QmshTmpArmature{});
  ASSERT_EQ(d.meshes.size(), 1u);
  const QmshTmpMesh& m = d.meshes[0];
  EXPECT_EQ(m.name, "Cube");
  EXPECT_EQ(m.position, (V3{1, 2, 0.5f}));
  EXPECT_EQ(m.orientation, (V3{0, 0, 0.7853982f}));
  EXPECT_EQ(m.size, (V3{2, 2, 1}));
  EXPECT_EQ(m.parent_armature, "");
  EXPECT_EQ(m.parent_bone, "");
  EXPECT_EQ(m.auto_smooth_angle, 30.0f);
  EXPECT_EQ(m.materials, (std::vector<std::string>{"Red", "Blue"}));
  EXPECT_EQ(m.vertices, (std::vector<V3>{{1, 1, -1}, {1, -1, -1}, {-1, -1, -1}, {-1, 1, -1},
                                          {1, 1, 1}, {1, -1, 1}, {-1, -1, 1}, {-1, 1, 1}}));
  std::vector<QmshTmpFace> faces = {
      make_face(1, 0, {{0, {1, 1}}, {1, {1, 0}}, {2, {0, 0}}, {3, {0, 1}}}),
      make_face(1, 1, {{4, {1, 1}}, {7, {0, 1}}, {6, {0, 0}}, {5, {1, 0}}}),
      make_face(0, 0, {{0, {1, 0}}, {4, {1, 1}}, {5, {0, 1}}, {1, {0, 0}}}),
      make_face(0, 0, {{1, {1, 0}}, {5, {1, 1}}, {6, {0, 1}}, {2, {0, 0}}}),
      make_face(0, 0, {{2, {1, 0}}, {6, {1, 1}}, {7, {0, 1}}, {3, {0, 0}}}),
      make_face(0, 0, {{4, {0, 1}}, {0, {0, 0}}, {3, {1, 0}}}),
      make_face(0, 0, {{4, {0, 1}}, {3, {1, 0}}, {7, {1, 1}}}),
  };
  EXPECT_EQ(m.faces, faces);
  EXPECT_EQ(m.faces[5].vertex[3], 0u);  // unused corner of a triangle stays zero
  EXPECT_EQ(m.faces[5].uv[3], (V2{0, 0}));
  EXPECT_TRUE(m.vertex_groups.empty());
  EXPECT_TRUE(d.actions.empty());
  EXPECT_EQ(d.fps, std::vector<int32_t>{25});
}

TEST(QmshTmpParseFiles, SkinnedMesh) {
  QmshTmpData d = parse_fixture("skinned.qmsh.tmp");
  ASSERT_EQ(d.meshes.size(), 1u);
  const QmshTmpMesh& m = d.meshes[0];
  EXPECT_EQ(m.name, "Column");
  EXPECT_EQ(m.parent_armature, "Armature");
  EXPECT_EQ(m.parent_bone, "");
  EXPECT_EQ(m.materials, std::vector<std::string>{"Skin"});
  ASSERT_EQ(m.vertices.size(), 16u);
  EXPECT_EQ(m.vertices[0], (V3{0.25f, -0.25f, 0}));
  EXPECT_EQ(m.vertices[14], (V3{-0.25f, 0.25f, 3}));
  ASSERT_EQ(m.faces.size(), 15u);
  EXPECT_EQ(m.faces[0], make_face(0, 1, {{0, {0, 0}}, {1, {0.25f, 0}}, {5, {0.25f, 0.33333334f}}, {4, {0, 0.33333334f}}}));
  EXPECT_EQ(m.faces[14], make_face(0, 1, {{12, {0.75f, 0.25f}}, {14, {0.25f, 0.75f}}, {15, {0.25f, 0.25f}}}));
  ASSERT_EQ(m.vertex_groups.size(), 3u);
  EXPECT_EQ(m.vertex_groups[0].name, "Root");
  EXPECT_EQ(m.vertex_groups[0].vertices, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.vertex_groups[0].weights, (std::vector<float>{1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(m.vertex_groups[1].name, "Mid");
  EXPECT_EQ(m.vertex_groups[1].vertices, (std::vector<uint32_t>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(m.vertex_groups[2].name, "Tip");
  EXPECT_EQ(m.vertex_groups[2].weights, (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f, 1, 1, 1, 1}));
  // Every vertex's weights sum to 1.
  std::vector<float> sum(16, 0);
  for (const auto& g : m.vertex_groups)
    for (size_t i = 0; i < g.vertices.size(); ++i) sum[g.vertices[i]] += g.weights[i];
  for (float s : sum) EXPECT_EQ(s, 1.0f);
}

TEST(QmshTmpParseFiles, SkinnedArmature) {
  QmshTmpData d = parse_fixture("skinned.qmsh.tmp");
  ASSERT_TRUE(d.has_armature);
  EXPECT_EQ(d.armature_index, 1u);
  const QmshTmpArmature& a = d.armature;
  EXPECT_EQ(a.name, "Armature");
  EXPECT_EQ(a.position, (V3{0, 0, 0}));
  EXPECT_EQ(a.size, (V3{1, 1, 1}));
  EXPECT_EQ(a.vertex_groups, 1);
  EXPECT_EQ(a.envelopes, 0);
  ASSERT_EQ(a.bones.size(), 3u);
  const float s = 0.70710677f;
  QmshTmpBone tip;
  tip.name = "Tip";
  tip.parent = "Mid";
  tip.head_bone = {0, 0, 0};
  tip.head_armature = {0, 0, 2};
  tip.head_radius = 0.1f;
  tip.tail_bone = {0, 1, -1};
  tip.tail_armature = {0, 1, 3};
  tip.tail_radius = 0.05f;
  tip.length = 1.4142135f;
  tip.weight = 1;
  tip.matrix_bone = {1, 0, 0, 0, s, -s, 0, s, s};
  tip.matrix_armature = {1, 0, 0, 0, 0, s, s, 0, 0, -s, s, 0, 0, 0, 2, 1};
  EXPECT_EQ(a.bones[2], tip);
  EXPECT_EQ(a.bones[0].name, "Root");
  EXPECT_EQ(a.bones[0].parent, "");
  EXPECT_EQ(a.bones[1].parent, "Root");
  EXPECT_EQ(a.bones[1].matrix_armature, (std::array<float, 16>{1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 1, 1}));

  // Consistency of the hand-written skeleton: rows X, Y, Z orthonormal, Y along head -> tail,
  // the 4th row the head, length |tail - head|; a child's matrix is its bone-space rotation
  // times its parent's, placed at the parent's tail.
  for (size_t b = 0; b < a.bones.size(); ++b) {
    const QmshTmpBone& bone = a.bones[b];
    const auto& M = bone.matrix_armature;
    V3 dir{bone.tail_armature[0] - bone.head_armature[0], bone.tail_armature[1] - bone.head_armature[1],
           bone.tail_armature[2] - bone.head_armature[2]};
    float len = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    EXPECT_NEAR(len, bone.length, 1e-6f) << bone.name;
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(M[4 + c], dir[c] / len, 1e-6f) << bone.name;
      EXPECT_NEAR(M[12 + c], bone.head_armature[c], 1e-6f) << bone.name;
      EXPECT_EQ(M[4 * c + 3], 0.0f);
    }
    EXPECT_EQ(M[15], 1.0f);
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < 3; ++q) {
        float dot = M[4 * r] * M[4 * q] + M[4 * r + 1] * M[4 * q + 1] + M[4 * r + 2] * M[4 * q + 2];
        EXPECT_NEAR(dot, r == q ? 1.0f : 0.0f, 1e-6f) << bone.name;
      }
    // Right-handed: X x Y = Z.
    EXPECT_NEAR(M[1] * M[6] - M[2] * M[5], M[8], 1e-6f);
    EXPECT_NEAR(M[2] * M[4] - M[0] * M[6], M[9], 1e-6f);
    EXPECT_NEAR(M[0] * M[5] - M[1] * M[4], M[10], 1e-6f);
    if (b == 0) continue;
    const QmshTmpBone& parent = a.bones[b - 1];
    ASSERT_EQ(bone.parent, parent.name);
    const auto& P = parent.matrix_armature;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        float v = 0;
        for (int k = 0; k < 3; ++k) v += bone.matrix_bone[3 * r + k] * P[4 * k + c];
        EXPECT_NEAR(v, M[4 * r + c], 1e-6f) << bone.name << " " << r << c;
      }
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(bone.head_armature[c], parent.tail_armature[c], 1e-6f);
  }
}

TEST(QmshTmpParseFiles, SkinnedAction) {
  QmshTmpData d = parse_fixture("skinned.qmsh.tmp");
  EXPECT_EQ(d.fps, std::vector<int32_t>{25});
  ASSERT_EQ(d.actions.size(), 1u);
  const QmshTmpAction& act = d.actions[0];
  EXPECT_EQ(act.name, "Walk");
  ASSERT_EQ(act.channels.size(), 2u);
  EXPECT_EQ(act.channels[0].name, "Root");
  EXPECT_EQ(act.channels[1].name, "Mid");
  for (const QmshTmpChannel& c : act.channels) {
    ASSERT_EQ(c.curves.size(), 7u);
    std::vector<std::string> names;
    for (const QmshTmpCurve& k : c.curves) {
      names.push_back(k.name);
      EXPECT_EQ(k.interpolation, c.name == "Root" ? Interp::Linear : Interp::Bezier);
      EXPECT_EQ(k.extend, Extend::Const);
      ASSERT_EQ(k.points.size(), 3u);
      EXPECT_EQ(k.points[0][0], 5.0f);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"LocX", "LocY", "LocZ", "QuatW", "QuatX", "QuatY", "QuatZ"}));
  }
  const QmshTmpCurve* w = find_curve(act.channels[0], "QuatW");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->points, (std::vector<V2>{{5, 1}, {15, 0.9659258f}, {25, 1}}));
  const QmshTmpCurve* z = find_curve(act.channels[1], "QuatZ");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->points, (std::vector<V2>{{5, 0}, {10, -0.17364818f}, {25, 0}}));
  // Unit quaternions at every key.
  for (const QmshTmpChannel& c : act.channels)
    for (size_t k = 0; k < 3; ++k) {
      float n = 0;
      for (const char* q : {"QuatW", "QuatX", "QuatY", "QuatZ"}) n += std::pow(find_curve(c, q)->points[k][1], 2.0f);
      EXPECT_NEAR(n, 1.0f, 1e-6f) << c.name << " key " << k;
    }
}

TEST(QmshTmpParseFiles, ObjectOrder) {
  QmshTmpData d = parse_fixture("objects-order.qmsh.tmp");
  ASSERT_EQ(d.meshes.size(), 2u);
  ASSERT_TRUE(d.has_armature);
  EXPECT_EQ(d.armature_index, 1u);
  EXPECT_EQ(d.armature.name, "Arm");
  EXPECT_EQ(d.armature.vertex_groups, 0);
  EXPECT_EQ(d.armature.envelopes, 1);
  EXPECT_TRUE(d.armature.bones.empty());
  const QmshTmpMesh& a = d.meshes[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.parent_armature, "Arm");
  EXPECT_EQ(a.parent_bone, "Bone");
  EXPECT_EQ(a.auto_smooth_angle, 45.0f);
  EXPECT_TRUE(a.materials.empty() && a.vertices.empty() && a.faces.empty() && a.vertex_groups.empty());
  const QmshTmpMesh& b = d.meshes[1];
  EXPECT_EQ(b.name, "B");
  EXPECT_EQ(b.position, (V3{-1, -2, -3}));
  EXPECT_EQ(b.orientation, (V3{0.5f, -0.25f, 3.1415927f}));
  EXPECT_EQ(b.size, (V3{0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(b.auto_smooth_angle, 80.0f);
  EXPECT_EQ(b.materials, std::vector<std::string>{""});
  EXPECT_EQ(b.faces, std::vector<QmshTmpFace>{make_face(0, 0, {{0, {0, 0}}, {1, {1, 0}}, {2, {0, 1}}})});
  ASSERT_EQ(b.vertex_groups.size(), 1u);
  EXPECT_EQ(b.vertex_groups[0], (QmshTmpVertexGroup{"Empty", {}, {}}));
  EXPECT_EQ(d.fps, std::vector<int32_t>{30});

  QmshTmpData first = parse_fixture("armature-first.qmsh.tmp");
  ASSERT_TRUE(first.has_armature);
  EXPECT_EQ(first.armature_index, 0u);
  ASSERT_EQ(first.meshes.size(), 1u);
  EXPECT_EQ(first.meshes[0].parent_bone, "Solo");
  EXPECT_EQ(first.armature.position, (V3{1, 2, 3}));
  EXPECT_EQ(first.armature.orientation, (V3{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(first.armature.size, (V3{2, 2, 2}));
  ASSERT_EQ(first.armature.bones.size(), 1u);
  QmshTmpBone solo;
  solo.name = "Solo";
  solo.tail_bone = solo.tail_armature = {0, 1, 0};
  solo.head_radius = 0.25f;
  solo.tail_radius = 0.125f;
  solo.length = solo.weight = 1;
  EXPECT_EQ(first.armature.bones[0], solo);

  QmshTmpData last = parse_fixture("armature-last.qmsh.tmp");
  ASSERT_EQ(last.meshes.size(), 2u);
  EXPECT_EQ(last.meshes[1].name, "M2");
  EXPECT_TRUE(last.has_armature);
  EXPECT_EQ(last.armature_index, 2u);
  EXPECT_TRUE(last.fps.empty());
}

TEST(QmshTmpParseFiles, Materials) {
  QmshTmpData d = parse_fixture("materials16.qmsh.tmp");
  ASSERT_EQ(d.meshes.size(), 1u);
  const QmshTmpMesh& m = d.meshes[0];
  ASSERT_EQ(m.materials.size(), 16u);
  EXPECT_EQ(m.materials[0], "Mat00");
  EXPECT_EQ(m.materials[15], "Mat15");
  EXPECT_EQ(m.faces[0], make_face(0, 0, {{0, {0, 0}}, {1, {1, 0}}, {2, {1, 1}}}));
  EXPECT_EQ(m.faces[1], make_face(15, 1, {{0, {0, 0}}, {1, {1, 0}}, {2, {1, 1}}, {3, {0, 1}}}));

  QmshTmpData past = parse_fixture("material-past-list.qmsh.tmp");
  const QmshTmpMesh& p = past.meshes.at(0);
  EXPECT_EQ(p.materials, std::vector<std::string>{"Only"});
  ASSERT_EQ(p.faces.size(), 3u);
  EXPECT_EQ(p.faces[0].material, 0u);
  EXPECT_EQ(p.faces[1].material, 7u);  // past the list: valid, kept
  EXPECT_EQ(p.faces[2], make_face(15, 1, {{2, {0, 1}}, {1, {1, 0}}, {0, {0, 0}}}));
}

TEST(QmshTmpParseFiles, BoneFields) {
  QmshTmpData d = parse_fixture("bone-fields.qmsh.tmp");
  EXPECT_TRUE(d.meshes.empty());
  ASSERT_TRUE(d.has_armature);
  EXPECT_EQ(d.armature_index, 0u);
  const QmshTmpArmature& a = d.armature;
  EXPECT_EQ(a.name, "Rig");
  EXPECT_EQ(a.position, (V3{1.5f, -2.5f, 3.5f}));
  EXPECT_EQ(a.orientation, (V3{0.1f, -0.2f, 0.3f}));
  EXPECT_EQ(a.size, (V3{1, 2, 4}));
  EXPECT_EQ(a.vertex_groups, 1);
  EXPECT_EQ(a.envelopes, 1);
  ASSERT_EQ(a.bones.size(), 2u);
  QmshTmpBone p;
  p.name = "Parent";
  p.parent = "";
  p.head_bone = {1, 2, 3};
  p.head_armature = {4, 5, 6};
  p.head_radius = 0.7f;
  p.tail_bone = {7, 8, 9};
  p.tail_armature = {10, 11, 12};
  p.tail_radius = 0.8f;
  p.roll_bone = 0.25f;
  p.roll_armature = -0.5f;
  p.length = 2.5f;
  p.weight = 0.75f;
  p.matrix_bone = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  p.matrix_armature = {11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34, 41, 42, 43, 44};
  EXPECT_EQ(a.bones[0], p);
  QmshTmpBone c;
  c.name = "Child";
  c.parent = "Parent";
  c.head_bone = {-1, -2, -3};
  c.head_armature = {-4, -5, -6};
  c.head_radius = 1e-3f;
  c.tail_bone = {-7, -8, -9};
  c.tail_armature = {-10, -11, -12};
  c.tail_radius = 200;
  c.roll_bone = -0.125f;
  c.roll_armature = 3.25f;
  c.length = 12.5f;
  c.weight = 0;
  c.matrix_bone = {-1, -2, -3, -4, -5, -6, -7, -8, -9};
  c.matrix_armature = {-11, -12, -13, -14, -21, -22, -23, -24, -31, -32, -33, -34, -41, -42, -43, -44};
  EXPECT_EQ(a.bones[1], c);
}

TEST(QmshTmpParseFiles, Curves) {
  QmshTmpData d = parse_fixture("curves.qmsh.tmp");
  EXPECT_EQ(d.fps, (std::vector<int32_t>{24, 30}));  // every fps, in order
  ASSERT_EQ(d.actions.size(), 2u);
  EXPECT_EQ(d.actions[1].name, "Nothing");
  EXPECT_TRUE(d.actions[1].channels.empty());
  const QmshTmpAction& all = d.actions[0];
  EXPECT_EQ(all.name, "All");
  ASSERT_EQ(all.channels.size(), 2u);
  EXPECT_EQ(all.channels[1].name, "NoCurves");
  EXPECT_TRUE(all.channels[1].curves.empty());
  const QmshTmpChannel& c = all.channels[0];
  EXPECT_EQ(c.name, "Bone");
  ASSERT_EQ(c.curves.size(), 13u);
  const Interp interps[] = {Interp::Const, Interp::Linear, Interp::Bezier};
  const Extend extends[] = {Extend::Const, Extend::Extrap, Extend::Cyclic, Extend::CyclicExtrap};
  const char* interp_names[] = {"CONST", "LINEAR", "BEZIER"};
  const char* extend_names[] = {"CONST", "EXTRAP", "CYCLIC", "CYCLIC_EXTRAP"};
  for (int i = 0; i < 12; ++i) {
    const QmshTmpCurve& k = c.curves[size_t(i)];
    EXPECT_EQ(k.name, std::string(interp_names[i / 4]) + "_" + extend_names[i % 4]);
    EXPECT_EQ(k.interpolation, interps[i / 4]);
    EXPECT_EQ(k.extend, extends[i % 4]);
    EXPECT_EQ(k.points, (std::vector<V2>{{1, float(i)}, {2.5f, -float(i) - 0.5f}, {10, float(2 * i)}}));
  }
  EXPECT_EQ(c.curves[12], (QmshTmpCurve{"Empty", Interp::Linear, Extend::Const, {}}));
}

TEST(QmshTmpParseFiles, Tokens) {
  // CRLF line ends, a lone CR, VT, comments, splices inside a number, a keyword and a string,
  // every escape, '+' signs, exponents, integers where floats are expected, no blanks at all.
  QmshTmpData d = parse_fixture("tokens.qmsh.tmp");
  ASSERT_EQ(d.meshes.size(), 1u);
  const QmshTmpMesh& m = d.meshes[0];
  EXPECT_EQ(m.name, std::string("Es\\cape\"d\tA?'\0\r\n\a\b\f\v", 20));
  EXPECT_EQ(m.position, (V3{1, -25, 0.3f}));
  EXPECT_EQ(m.orientation, (V3{1, 2.5f, 100}));
  EXPECT_EQ(m.size, (V3{15, 2, 3}));
  EXPECT_EQ(m.parent_armature, "Armature");
  EXPECT_EQ(m.parent_bone, "B\xE9one\xE9");
  EXPECT_EQ(m.auto_smooth_angle, 30.0f);
  EXPECT_EQ(m.materials, std::vector<std::string>{"M"});
  EXPECT_EQ(m.vertices, (std::vector<V3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}));
  EXPECT_EQ(m.faces, std::vector<QmshTmpFace>{make_face(0, 0, {{0, {0, 0}}, {1, {1, 0}}, {2, {0, 1}}})});
  ASSERT_EQ(m.vertex_groups.size(), 1u);
  EXPECT_EQ(m.vertex_groups[0], (QmshTmpVertexGroup{"G", {0, 2}, {1, 0.25f}}));
  EXPECT_FALSE(d.has_armature);
  EXPECT_TRUE(d.actions.empty());
  EXPECT_EQ(d.fps, (std::vector<int32_t>{25, -1}));
}

TEST(QmshTmpParseFiles, Limits) {
  auto with_face = [](const std::string& face) {
    return "QMSH TMP 10 objects { mesh \"m\" { 0,0,0 0,0,0 1,1,1 \"\" \"\" 30 materials 0 { } vertices 3 { 0,0,0 "
           "1,0,0 0,1,0 } faces 1 { " +
           face + " } vertex_groups { } } } actions { } params { fps = -2147483648 fps = 2147483647 }";
  };
  QmshTmpData d = parse_text(with_face("3 15 4294967295 2 0,0 1 0,0 0 0,0"));
  EXPECT_EQ(d.meshes[0].faces[0].smooth, 4294967295u);  // kept as written
  EXPECT_EQ(d.meshes[0].faces[0].material, 15u);
  EXPECT_EQ(d.fps, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ(parse_text(with_face("+3 +0 -0 +2 0,0 1 0,0 0 0,0")).meshes[0].faces[0].count, 3u);
  EXPECT_EQ(error_of_text(with_face("3 0 4294967296 2 0,0 1 0,0 0 0,0")),
            "t.qmsh.tmp:1:124: error: smooth flag 4294967296 out of range (0..4294967295)");
  EXPECT_EQ(error_of_text(with_face("3 0 0 2 0,0 1 0,0 00 0,0")),
            "t.qmsh.tmp:1:138: error: vertex index 00 has a leading zero (octal in CommonLib): not read");
  EXPECT_EQ(error_of_text("QMSH TMP 010"), "t.qmsh.tmp:1:10: error: version 010 has a leading zero (octal in CommonLib): not read");
}

// ---- errors: one file each, exact message and row:col ---------------------------------------------

namespace {

struct ErrorCase {
  const char* file;
  const char* message;  // after "file:"
};

const ErrorCase kErrorCases[] = {
    {"err-bad-number.qmsh.tmp", "13:4: error: invalid number '1.2.3'"},
    {"err-empty.qmsh.tmp", "1:1: error: expected the header 'QMSH TMP 10', found end of file"},
    {"err-eof.qmsh.tmp", "20:3: error: expected a vertex group name (a string) or '}', found end of file"},
    {"err-extend.qmsh.tmp",
     "7:18: error: unknown extend mode 'REPEAT': CONST, EXTRAP, CYCLIC or CYCLIC_EXTRAP expected"},
    {"err-face-2-vertices.qmsh.tmp", "17:4: error: a face has 3 or 4 vertices, not 2"},
    {"err-face-5-vertices.qmsh.tmp", "17:4: error: a face has 3 or 4 vertices, not 5"},
    {"err-faces-extra.qmsh.tmp", "18:4: error: more faces than the 1 declared"},
    {"err-float-count.qmsh.tmp", "11:12: error: expected an integer (vertex count), found number 3.0"},
    {"err-float-range.qmsh.tmp", "13:4: error: number 1e39 is beyond the float range"},
    {"err-fps-float.qmsh.tmp", "7:8: error: expected an integer (fps), found number 25.5"},
    {"err-fps-range.qmsh.tmp", "7:8: error: fps 2147483648 out of range (-2147483648..2147483647)"},
    {"err-group-index.qmsh.tmp", "20:14: error: vertex index 7 out of range: the mesh has 3 vertices"},
    {"err-header.qmsh.tmp", "1:6: error: expected 'TMP' (the header is 'QMSH TMP 10'), found 'TXT'"},
    {"err-hex-escape.qmsh.tmp", "3:9: error: escape '\\x' must be followed by two hexadecimal digits"},
    {"err-interpolation.qmsh.tmp", "7:11: error: unknown interpolation 'SPLINE': CONST, LINEAR or BEZIER expected"},
    {"err-keyword-case.qmsh.tmp", "9:3: error: expected 'materials', found 'Materials'"},
    {"err-leading-zero.qmsh.tmp",
     "17:6: error: material index 010 has a leading zero (octal in CommonLib): not read"},
    {"err-material-index.qmsh.tmp", "17:6: error: material index 16 out of range (0..15)"},
    {"err-materials-17.qmsh.tmp", "9:13: error: at most 16 materials, not 17"},
    {"err-materials-extra.qmsh.tmp", "11:4: error: more materials than the 1 declared"},
    {"err-materials-missing.qmsh.tmp", "12:3: error: materials declared: 3, found: 2"},
    {"err-matrix-semicolon.qmsh.tmp", "20:4: error: expected ';', found number 0"},
    {"err-missing-comma.qmsh.tmp", "13:6: error: expected ',', found number 0"},
    {"err-negative-index.qmsh.tmp", "17:16: error: vertex index -1 out of range (0..4294967295)"},
    {"err-object-kind.qmsh.tmp", "3:2: error: expected 'mesh', 'armature' or '}', found 'lamp'"},
    {"err-params-unknown.qmsh.tmp", "8:2: error: expected 'fps' or '}', found 'speed'"},
    {"err-second-armature.qmsh.tmp", "28:2: error: a second armature: at most one armature is allowed"},
    {"err-sign-alone.qmsh.tmp", "13:6: error: '-' must be followed by a digit"},
    {"err-string-eof.qmsh.tmp", "3:7: error: unterminated string: end of file before '\"'"},
    {"err-trailing.qmsh.tmp", "9:1: error: expected end of file, found 'objects'"},
    {"err-unexpected-char.qmsh.tmp", "3:7: error: unexpected character '''"},
    {"err-unknown-escape.qmsh.tmp", "3:9: error: unknown escape '\\' followed by 'q'"},
    {"err-unterminated-comment.qmsh.tmp", "9:1: error: unterminated comment: '/*' without '*/'"},
    {"err-unterminated-string.qmsh.tmp", "3:14: error: line end inside a string"},
    {"err-version-float.qmsh.tmp", "1:10: error: unsupported QMSH TMP version 10.0: only version 10 is read"},
    {"err-version.qmsh.tmp", "1:10: error: unsupported QMSH TMP version 11: only version 10 is read"},
    {"err-vertex-index.qmsh.tmp", "17:16: error: vertex index 3 out of range: the mesh has 3 vertices"},
    {"err-vertices-huge.qmsh.tmp", "14:3: error: vertices declared: 4000000000, found: 2"},
    {"err-vertices-missing.qmsh.tmp", "15:3: error: vertices declared: 4, found: 3"},
};

}  // namespace

TEST(QmshTmpParseErrors, EachFile) {
  std::vector<std::string> listed;
  for (const ErrorCase& c : kErrorCases) {
    listed.push_back(c.file);
    EXPECT_EQ(error_of_text(fixture_text(c.file), c.file), std::string(c.file) + ":" + c.message);
  }
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, error_fixtures());  // every err-* file has its case
}

TEST(QmshTmpParseErrors, DiagnosticLocation) {
  Diagnostics diags;
  try {
    qmsh_tmp::parse("QMSH TMP 10\nobjects {\n\tlamp", "x.qmsh.tmp", diags);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().severity, Severity::Error);
    EXPECT_EQ(e.diagnostic().file, "x.qmsh.tmp");
    EXPECT_EQ(e.diagnostic().line, 3u);
    EXPECT_EQ(e.diagnostic().column, 2u);
  }
  EXPECT_TRUE(diags.items.empty());
}

TEST(QmshTmpParseErrors, Grammar) {
  const std::string head = "QMSH TMP 10 objects { } actions { ";
  EXPECT_EQ(error_of_text("QMSH TMP"), "t.qmsh.tmp:1:9: error: expected the version number (the header is 'QMSH TMP 10'), found end of file");
  EXPECT_EQ(error_of_text("QMSH TMP -10"), "t.qmsh.tmp:1:10: error: unsupported QMSH TMP version -10: only version 10 is read");
  EXPECT_EQ(error_of_text("qmsh TMP 10"), "t.qmsh.tmp:1:1: error: expected the header 'QMSH TMP 10', found 'qmsh'");
  EXPECT_EQ(error_of_text("QMSH TMP 10 objects { } params { }"),
            "t.qmsh.tmp:1:25: error: expected 'actions', found 'params'");
  EXPECT_EQ(error_of_text(head + "} params { fps 25 }"), "t.qmsh.tmp:1:50: error: expected '=', found number 25");
  EXPECT_EQ(error_of_text(head + "Walk { } } params { }"),
            "t.qmsh.tmp:1:35: error: expected an action name (a string) or '}', found 'Walk'");
  EXPECT_EQ(error_of_text(head + "\"W\" { Bone { } } } params { }"),
            "t.qmsh.tmp:1:41: error: expected a channel name (a string) or '}', found 'Bone'");
  EXPECT_EQ(error_of_text(head + "\"W\" { \"B\" { LocX } } } params { }"),
            "t.qmsh.tmp:1:47: error: expected a curve name (a string) or '}', found 'LocX'");
  EXPECT_EQ(error_of_text(head + "\"W\" { \"B\" { \"LocX\" 1 CONST { } } } } params { }"),
            "t.qmsh.tmp:1:54: error: expected an interpolation (CONST, LINEAR or BEZIER), found number 1");
  EXPECT_EQ(error_of_text(head + "\"W\" { \"B\" { \"LocX\" LINEAR \"CONST\" { } } } } params { }"),
            "t.qmsh.tmp:1:61: error: expected an extend mode (CONST, EXTRAP, CYCLIC or CYCLIC_EXTRAP), found string \"CONST\"");
  EXPECT_EQ(error_of_text(head + "\"W\" { \"B\" { \"LocX\" linear CONST { } } } } params { }"),
            "t.qmsh.tmp:1:54: error: unknown interpolation 'linear': CONST, LINEAR or BEZIER expected");
  EXPECT_EQ(error_of_text(head + "\"W\" { \"B\" { \"LocX\" LINEAR CONST { 1,2 3 } } } } params { }"),
            "t.qmsh.tmp:1:75: error: expected ',', found '}'");
  EXPECT_EQ(error_of_text(head + "\"W\" { \"B\" { \"LocX\" LINEAR CONST { 1;2 } } } } params { }"),
            "t.qmsh.tmp:1:70: error: expected ',', found ';'");
  EXPECT_EQ(error_of_text("QMSH TMP 10 objects { armature \"A\" { 0,0,0 0,0,0 1,1,1 1 0 bone \"B\" { } } }"),
            "t.qmsh.tmp:1:71: error: expected a string, found '}'");
  EXPECT_EQ(error_of_text("QMSH TMP 10 objects { armature \"A\" { 0,0,0 0,0,0 1,1,1 1 0 mesh } }"),
            "t.qmsh.tmp:1:60: error: expected 'bone' or '}', found 'mesh'");
  EXPECT_EQ(error_of_text("QMSH TMP 10 objects { armature \"A\" { 0,0,0 0,0,0 1,1,1 1.0 0 } }"),
            "t.qmsh.tmp:1:56: error: expected an integer (vertex groups flag), found number 1.0");
}

// ---- printer and round trips -----------------------------------------------------------------------

namespace {

QmshTmpData small_data() {
  QmshTmpData d;
  QmshTmpMesh m;
  m.name = "Tri \"1\"";
  m.position = {1, -2.5f, 0.1f};
  m.parent_armature = "Arm";
  m.materials = {"Mat"};
  m.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.faces = {make_face(0, 1, {{0, {0, 0}}, {1, {1, 0}}, {2, {0, 1}}})};
  m.vertex_groups = {{"Bone", {0, 1}, {1, 0.5f}}};
  d.meshes = {m};
  d.has_armature = true;
  d.armature_index = 1;
  d.armature.name = "Arm";
  QmshTmpBone b;
  b.name = "Bone";
  b.tail_bone = b.tail_armature = {0, 1, 0};
  b.head_radius = b.tail_radius = 0.1f;
  b.length = b.weight = 1;
  d.armature.bones = {b};
  d.actions = {{"Act", {{"Bone", {{"LocX", Interp::Bezier, Extend::CyclicExtrap, {{1, 0}, {2, 1e-7f}}},
                                  {"QuatW", Interp::Linear, Extend::Const, {}}}}}}};
  d.fps = {25};
  return d;
}

const char* kSmallText =
    "QMSH TMP 10\n"
    "objects {\n"
    "\tmesh \"Tri \\\"1\\\"\" {\n"
    "\t\t1,-2.5,0.1\n"
    "\t\t0,0,0\n"
    "\t\t1,1,1\n"
    "\t\t\"Arm\" \"\"\n"
    "\t\t30\n"
    "\t\tmaterials 1 {\n"
    "\t\t\t\"Mat\"\n"
    "\t\t}\n"
    "\t\tvertices 3 {\n"
    "\t\t\t0,0,0\n"
    "\t\t\t1,0,0\n"
    "\t\t\t0,1,0\n"
    "\t\t}\n"
    "\t\tfaces 1 {\n"
    "\t\t\t3 0 1 0 0,0 1 1,0 2 0,1\n"
    "\t\t}\n"
    "\t\tvertex_groups {\n"
    "\t\t\t\"Bone\" { 0 1 1 0.5 }\n"
    "\t\t}\n"
    "\t}\n"
    "\tarmature \"Arm\" {\n"
    "\t\t0,0,0\n"
    "\t\t0,0,0\n"
    "\t\t1,1,1\n"
    "\t\t1 0\n"
    "\t\tbone \"Bone\" {\n"
    "\t\t\t\"\"\n"
    "\t\t\thead 0,0,0 0,0,0 0.1\n"
    "\t\t\ttail 0,1,0 0,1,0 0.1\n"
    "\t\t\t0 0\n"
    "\t\t\t1 1\n"
    "\t\t\t1, 0, 0;\n"
    "\t\t\t0, 1, 0;\n"
    "\t\t\t0, 0, 1;\n"
    "\t\t\t1, 0, 0, 0;\n"
    "\t\t\t0, 1, 0, 0;\n"
    "\t\t\t0, 0, 1, 0;\n"
    "\t\t\t0, 0, 0, 1;\n"
    "\t\t}\n"
    "\t}\n"
    "}\n"
    "actions {\n"
    "\t\"Act\" {\n"
    "\t\t\"Bone\" {\n"
    "\t\t\t\"LocX\" BEZIER CYCLIC_EXTRAP { 1,0 2,1e-07 }\n"
    "\t\t\t\"QuatW\" LINEAR CONST { }\n"
    "\t\t}\n"
    "\t}\n"
    "}\n"
    "params {\n"
    "\tfps = 25\n"
    "}\n";

// Random valid QmshTmpData: any bytes in strings, floats from all finite bit patterns, every
// enumerator, 0..16 materials, armature anywhere.
class RandomData {
 public:
  explicit RandomData(uint32_t seed) : rng_(seed) {}

  QmshTmpData data() {
    QmshTmpData d;
    for (uint32_t i = below(4); i > 0; --i) d.meshes.push_back(mesh());
    d.has_armature = below(3) != 0;
    if (d.has_armature) {
      d.armature_index = below(uint32_t(d.meshes.size()) + 1);
      d.armature = armature();
    }
    for (uint32_t i = below(3); i > 0; --i) d.actions.push_back(action());
    for (uint32_t i = below(3); i > 0; --i) d.fps.push_back(int32_t(rng_()));
    return d;
  }

 private:
  uint32_t below(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

  float number() {
    switch (below(4)) {
      case 0:
        return float(int(below(21)) - 10);
      case 1:
        return std::uniform_real_distribution<float>(-1000, 1000)(rng_);
      case 2: {
        uint32_t bits = uint32_t(rng_());
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return std::isfinite(f) ? f : 0.0f;
      }
      default:
        return float(below(2001)) / 8.0f - 125.0f;
    }
  }
  template <size_t N>
  std::array<float, N> vec() {
    std::array<float, N> v{};
    for (float& x : v) x = number();
    return v;
  }
  std::string text() {
    std::string s(below(9), ' ');
    for (char& c : s) c = below(2) ? char(below(256)) : char('a' + below(26));
    return s;
  }

  QmshTmpMesh mesh() {
    QmshTmpMesh m;
    m.name = text();
    m.position = vec<3>();
    m.orientation = vec<3>();
    m.size = vec<3>();
    m.parent_armature = text();
    m.parent_bone = text();
    m.auto_smooth_angle = number();
    for (uint32_t i = below(17); i > 0; --i) m.materials.push_back(text());
    for (uint32_t i = below(6); i > 0; --i) m.vertices.push_back(vec<3>());
    uint32_t n = uint32_t(m.vertices.size());
    for (uint32_t i = n ? below(6) : 0; i > 0; --i) {
      QmshTmpFace f;
      f.count = 3 + below(2);
      f.material = below(16);
      f.smooth = below(3) ? below(2) : uint32_t(rng_());
      for (uint32_t c = 0; c < f.count; ++c) {
        f.vertex[c] = below(n);
        f.uv[c] = vec<2>();
      }
      m.faces.push_back(f);
    }
    for (uint32_t i = below(3); i > 0; --i) {
      QmshTmpVertexGroup g;
      g.name = text();
      for (uint32_t k = n ? below(5) : 0; k > 0; --k) {
        g.vertices.push_back(below(n));
        g.weights.push_back(number());
      }
      m.vertex_groups.push_back(g);
    }
    return m;
  }

  QmshTmpArmature armature() {
    QmshTmpArmature a;
    a.name = text();
    a.position = vec<3>();
    a.orientation = vec<3>();
    a.size = vec<3>();
    a.vertex_groups = int32_t(rng_());
    a.envelopes = int32_t(below(2));
    for (uint32_t i = below(4); i > 0; --i) {
      QmshTmpBone b;
      b.name = text();
      b.parent = text();
      b.head_bone = vec<3>();
      b.head_armature = vec<3>();
      b.head_radius = number();
      b.tail_bone = vec<3>();
      b.tail_armature = vec<3>();
      b.tail_radius = number();
      b.roll_bone = number();
      b.roll_armature = number();
      b.length = number();
      b.weight = number();
      b.matrix_bone = vec<9>();
      b.matrix_armature = vec<16>();
      a.bones.push_back(b);
    }
    return a;
  }

  QmshTmpAction action() {
    QmshTmpAction a;
    a.name = text();
    for (uint32_t i = below(3); i > 0; --i) {
      QmshTmpChannel c;
      c.name = text();
      for (uint32_t k = below(4); k > 0; --k) {
        QmshTmpCurve curve;
        curve.name = text();
        curve.interpolation = Interp(below(3));
        curve.extend = Extend(below(4));
        for (uint32_t p = below(5); p > 0; --p) curve.points.push_back(vec<2>());
        c.curves.push_back(curve);
      }
      a.channels.push_back(c);
    }
    return a;
  }

  std::mt19937 rng_;
};

}  // namespace

TEST(QmshTmpParsePrint, ExactText) {
  EXPECT_EQ(qmsh_tmp::print(small_data()), kSmallText);
  EXPECT_EQ(parse_text(kSmallText), small_data());
}

TEST(QmshTmpParsePrint, EmptyBlocks) {
  QmshTmpData d;
  d.meshes.resize(1);
  d.meshes[0].vertex_groups.resize(1);
  EXPECT_EQ(qmsh_tmp::print(d),
            "QMSH TMP 10\nobjects {\n\tmesh \"\" {\n\t\t0,0,0\n\t\t0,0,0\n\t\t1,1,1\n\t\t\"\" \"\"\n\t\t30\n"
            "\t\tmaterials 0 {\n\t\t}\n\t\tvertices 0 {\n\t\t}\n\t\tfaces 0 {\n\t\t}\n\t\tvertex_groups {\n"
            "\t\t\t\"\" { }\n\t\t}\n\t}\n}\nactions {\n}\nparams {\n}\n");
  EXPECT_EQ(parse_text(qmsh_tmp::print(d)), d);
}

TEST(QmshTmpParsePrint, RoundTripFiles) {
  std::vector<std::string> files = valid_fixtures();
  EXPECT_EQ(files.size(), 11u);
  for (const std::string& f : files) {
    QmshTmpData d = parse_fixture(f);
    std::string text = qmsh_tmp::print(d);
    EXPECT_EQ(parse_text(text, f), d) << f;
    EXPECT_EQ(qmsh_tmp::print(parse_text(text, f)), text) << f;  // canonical: a fixed point
  }
}

TEST(QmshTmpParsePrint, RoundTripRandom) {
  RandomData gen(20240611);
  for (int i = 0; i < 300; ++i) {
    QmshTmpData d = gen.data();
    std::string text = qmsh_tmp::print(d);
    QmshTmpData back;
    ASSERT_NO_THROW(back = parse_text(text)) << i << "\n" << text;
    ASSERT_EQ(back, d) << i << "\n" << text;
    EXPECT_EQ(qmsh_tmp::print(back), text) << i;  // deterministic
  }
}

TEST(QmshTmpParsePrint, ShortestFloats) {
  QmshTmpData d;
  QmshTmpCurve c{"c", Interp::Const, Extend::Const, {}};
  for (float f : {0.1f, 1.0f / 3.0f, -0.0f, 1e-45f, 3.4028235e38f, -1.17549435e-38f, 16777216.0f, 123456.79f})
    c.points.push_back({f, -f});
  d.actions = {{"a", {{"b", {c}}}}};
  std::string text = qmsh_tmp::print(d);
  EXPECT_NE(text.find("{ 0.1,-0.1 0.33333334,-0.33333334 0,0 1e-45,-1e-45 3.4028235e+38,-3.4028235e+38 "
                      "-1.1754944e-38,1.1754944e-38 16777216,-16777216 123456.79,-123456.79 }"),
            std::string::npos)
      << text;
  EXPECT_EQ(parse_text(text), d);
}

// ---- hostile input ----------------------------------------------------------------------------------

TEST(QmshTmpParseHostile, HugeCountsReserveNothing) {
  const std::string mesh_head = "QMSH TMP 10 objects { mesh \"m\" { 0,0,0 0,0,0 1,1,1 \"\" \"\" 30 materials 0 { } ";
  EXPECT_EQ(error_of_text(mesh_head + "vertices 4294967295 {"),
            "t.qmsh.tmp:1:98: error: expected a number, found end of file");
  EXPECT_EQ(error_of_text(mesh_head + "vertices 1 { 0,0,0 } faces 4294967295 { 3 0 0 0 0,0 0 0,0 0 0,0 }"),
            "t.qmsh.tmp:1:141: error: faces declared: 4294967295, found: 1");
  EXPECT_EQ(error_of_text("QMSH TMP 10 objects { mesh \"m\" { 0,0,0 0,0,0 1,1,1 \"\" \"\" 30 materials 4294967295 {"),
            "t.qmsh.tmp:1:71: error: at most 16 materials, not 4294967295");
}

TEST(QmshTmpParseHostile, DeepNestingAndLongTokens) {
  EXPECT_EQ(error_of_text("QMSH TMP 10 objects {" + std::string(200000, '{')),
            "t.qmsh.tmp:1:22: error: expected 'mesh', 'armature' or '}', found '{'");
  std::string big(1 << 20, 'x');
  std::string msg = error_of_text("QMSH TMP 10 objects { \"" + big + "\" }");
  EXPECT_EQ(msg, "t.qmsh.tmp:1:23: error: expected 'mesh', 'armature' or '}', found string \"" + std::string(32, 'x') +
                     "\"...");
  msg = error_of_text("QMSH TMP " + std::string(1 << 20, '9'));
  EXPECT_EQ(msg, "t.qmsh.tmp:1:10: error: unsupported QMSH TMP version " + std::string(32, '9') +
                     "...: only version 10 is read");
  msg = error_of_text("QMSH TMP 10 objects { " + std::string(1 << 20, 'm') + " }");
  EXPECT_LT(msg.size(), 200u);
  std::string splices;
  for (int i = 0; i < 100000; ++i) splices += "\\\n";
  EXPECT_EQ(error_of_text(splices + "QMSH TMP 11"), "t.qmsh.tmp:100001:10: error: unsupported QMSH TMP version 11: only version 10 is read");
}

TEST(QmshTmpParseHostile, Mutations) {
  // Random edits of the valid files: parsing either throws meshport::Error or yields data that
  // prints and parses back to itself; nothing else (no crash, hang or other exception).
  std::mt19937 rng(7);
  const char interesting[] = {'{', '}', ',', ';', '"', '\\', '\n', '\r', '/', '*', '-', '+', '.', '0', '9', 'e',
                              'x', ' ', '\t', '\0', '\xFF', '=', '\''};
  size_t parsed = 0, failed = 0;
  for (const std::string& f : valid_fixtures()) {
    const std::string original = fixture_text(f);
    for (int i = 0; i < 150; ++i) {
      std::string t = original;
      for (int edits = 1 + int(rng() % 3); edits > 0 && !t.empty(); --edits) {
        size_t at = rng() % t.size();
        switch (rng() % 4) {
          case 0:
            t[at] = interesting[rng() % sizeof interesting];
            break;
          case 1:
            t.erase(at, 1 + rng() % 8);
            break;
          case 2:
            t.insert(at, t.substr(rng() % t.size(), 1 + rng() % 16));
            break;
          default:
            t.resize(at);
        }
      }
      try {
        QmshTmpData d = parse_text(t, f);
        ++parsed;
        EXPECT_EQ(parse_text(qmsh_tmp::print(d)), d) << f << " mutation " << i;
      } catch (const Error&) {
        ++failed;
      } catch (const std::exception& e) {
        ADD_FAILURE() << f << " mutation " << i << ": " << e.what();
      }
    }
  }
  EXPECT_GT(parsed, 0u);
  EXPECT_GT(failed, 0u);
}

}  // namespace meshport_test_qmsh_tmp_parse
