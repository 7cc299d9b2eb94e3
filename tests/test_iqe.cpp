// IQE reader and writer: every command of ../shared/specs/iqe.txt, every error path with its
// exact location, the corpus edge cases (as iqe.txt expects, not as the reference compiler
// does), and read -> write -> read round trips.
#include <meshport/meshport.h>

#include "core/io.h"
#include "core/math.h"
#include "corpus.h"
#include "formats/iqe/iqe.h"

#include <gtest/gtest.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace meshport_test_iqe {

using namespace meshport;

namespace {

const std::string kHeader = "# Inter-Quake Export\n";

Scene parse_text(const std::string& text, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return iqe::read(text, "t.iqe", diags ? *diags : local);
}

// Parses a body after the standard header (so the body's first line is line 2).
Scene parse(const std::string& body, Diagnostics* diags = nullptr) { return parse_text(kHeader + body, diags); }

// The located error message of a file that must fail.
std::string error_of_text(const std::string& text) {
  Diagnostics d;
  try {
    iqe::read(text, "t.iqe", d);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}
std::string error_of(const std::string& body) { return error_of_text(kHeader + body); }

std::string messages(const Diagnostics& d) {
  std::string all;
  for (const auto& i : d.items) all += i.to_string() + "\n";
  return all;
}

bool has_warning(const Diagnostics& d, const std::string& text) {
  for (const auto& i : d.items)
    if (i.severity == Severity::Warning && i.to_string().find(text) != std::string::npos) return true;
  return false;
}

std::vector<float> values(const Mesh& m, Attribute a) {
  const VertexStream* s = m.find(a);
  return s ? s->data : std::vector<float>{};
}

const VertexStream* custom_stream(const Mesh& m) {
  for (const auto& s : m.streams)
    if (s.attribute == Attribute::Custom) return &s;
  return nullptr;
}

std::string iqe_text(const Scene& s, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return iqe::write(s, diags ? *diags : local);
}

Scene reread(const Scene& s, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return iqe::read(iqe_text(s, diags), "written.iqe", diags ? *diags : local);
}

std::string corpus_dir() { return std::string(MESHPORT_CORPUS) + "/iqm"; }
#define IQE_REQUIRE_CORPUS() REQUIRE_CORPUS()  // corpus.h

std::string file_text(const std::string& path) {
  std::vector<uint8_t> bytes = io::read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

Scene edge(const std::string& name, Diagnostics* diags = nullptr) {
  Diagnostics local;
  std::string path = corpus_dir() + "/edge-cases/" + name;
  return iqe::read(file_text(path), name, diags ? *diags : local);
}

std::string edge_error(const std::string& name) {
  return error_of_text(file_text(corpus_dir() + "/edge-cases/" + name));
}

// NaN != NaN, so Scenes holding NaN are compared after replacing every NaN by a marker (both
// sides must have NaN at the same places).
void replace_nan(Scene& s) {
  for (auto& m : s.meshes)
    for (auto& st : m.streams)
      for (float& v : st.data)
        if (std::isnan(v)) v = -12345.0f;
}

// Issue 16: blend arrays are declared with integer formats only, so a float, half or double
// blend weight stream comes back as the default ubyte (the values are the text's either way).
void integer_blend_weights(Scene& s) {
  for (auto& m : s.meshes)
    for (auto& st : m.streams)
      if (st.attribute == Attribute::BlendWeights && st.format >= ComponentType::Half) st.format = ComponentType::UByte;
}

void expect_round_trip(const Scene& a, const std::string& what) {
  Diagnostics d;
  Scene b = reread(a, &d);
  Scene x = a, y = b;
  for (Animation& an : x.animations) an.name_made_up = false;  // "animationN" made up, written: real
  replace_nan(x);
  replace_nan(y);
  integer_blend_weights(x);
  EXPECT_TRUE(x == y) << what << ": read(write(scene)) differs\n" << iqe_text(a);
  EXPECT_EQ(d.warning_count(), 0u) << what << "\n" << messages(d);
  // And the text is stable: writing the re-read Scene gives the same file.
  EXPECT_EQ(iqe_text(b), iqe_text(a)) << what;
}

}  // namespace

// ---- Header --------------------------------------------------------------------------------------

TEST(IqeHeader, StandardHeaderHasNoDiagnostics) {
  Diagnostics d;
  Scene s = parse_text("# Inter-Quake Export\n", &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  EXPECT_TRUE(s.meshes.empty());
  EXPECT_TRUE(s == Scene{});
}

TEST(IqeHeader, TextAfterExportIsIgnored) {
  Diagnostics d;
  parse_text("# Inter-Quake Export, version 2\r\nvp 0 0 0\r\nvp 1 0 0\r\nvp 0 1 0\r\n", &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  parse_text("# Inter-Quake Export", &d);  // no line end at all
  EXPECT_TRUE(d.items.empty()) << messages(d);
}

TEST(IqeHeader, LeadingWhitespaceIsAWarning) {
  Diagnostics d;
  parse_text(" \t# Inter-Quake Export\n", &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:1:1: warning: white space before the header \"# Inter-Quake Export\"");
}

TEST(IqeHeader, MissingSpaceAfterHashIsAWarning) {
  Diagnostics d;
  parse_text("#Inter-Quake Export\n", &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(),
            "t.iqe:1:1: warning: the header should be \"# Inter-Quake Export\" with one space after '#'");
  d = {};
  parse_text("#   Inter-Quake Export\n", &d);
  EXPECT_EQ(d.items.size(), 1u);
}

TEST(IqeHeader, ByteOrderMarkIsAWarning) {
  Diagnostics d;
  parse_text("\xEF\xBB\xBF# Inter-Quake Export\n", &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].message, "UTF-8 byte order mark before the header ignored");
}

TEST(IqeHeader, AnythingElseIsNotAnIqeFile) {
  const std::string expected = "t.iqe:1:1: error: not an IQE file: the first line must be \"# Inter-Quake Export\"";
  EXPECT_EQ(error_of_text(""), expected);
  EXPECT_EQ(error_of_text("hello\n"), expected);
  EXPECT_EQ(error_of_text("# Inter-Quake\nExport\n"), expected);
  EXPECT_EQ(error_of_text("\n# Inter-Quake Export\n"), expected);
  EXPECT_EQ(error_of_text("# inter-quake export\n"), expected);
  EXPECT_EQ(error_of_text(std::string("INTERQUAKEMODEL\0", 16)), expected);
}

// ---- Vertex attributes ---------------------------------------------------------------------------

TEST(IqeRead, PositionIsConvertedFromZUp) {
  Scene s = parse("mesh m\nvp 1 2 3\nvp 4 5 6\nvp 7 8 9\n");
  ASSERT_EQ(s.meshes.size(), 1u);
  const VertexStream* p = s.meshes[0].find(Attribute::Position);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->format, ComponentType::Float);
  EXPECT_EQ(p->source_size, 3u);
  EXPECT_EQ(p->components, 3u);
  EXPECT_EQ(p->data, (std::vector<float>{1, 3, -2, 4, 6, -5, 7, 9, -8}));
}

TEST(IqeRead, PositionDefaultsAndW) {
  // iqe.txt: unspecified X Y Z are 0; W is ignored unless the array is declared with 4 components.
  Scene s = parse("mesh m\nvp 1\nvp 1 2 3 4\nvp\n");
  EXPECT_EQ(values(s.meshes[0], Attribute::Position), (std::vector<float>{1, 0, 0, 1, 3, -2, 0, 0, 0}));
  s = parse("vertexarray position float 4\nmesh m\nvp 1 2 3 4\nvp 1 2 3\nvp\n");
  const VertexStream* p = s.meshes[0].find(Attribute::Position);
  EXPECT_EQ(p->components, 4u);
  EXPECT_EQ(p->source_size, 4u);
  EXPECT_EQ(p->data, (std::vector<float>{1, 3, -2, 4, 1, 3, -2, 1, 0, 0, 0, 1}));
}

TEST(IqeRead, PositionDeclaredWithFewerComponentsKeepsThree) {
  Scene s = parse("vertexarray position double 2\nmesh m\nvp 1 2 3\nvp\nvp\n");
  const VertexStream* p = s.meshes[0].find(Attribute::Position);
  EXPECT_EQ(p->format, ComponentType::Double);
  EXPECT_EQ(p->source_size, 2u);
  EXPECT_EQ(p->components, 3u);
  EXPECT_EQ(p->get(0, 1), 3.0f);
}

TEST(IqeRead, TexcoordsAreNotConverted) {
  Scene s = parse("mesh m\nvp\nvt 0.25 0.75\nvp\nvt 1\nvp\nvt 0.5 0.5 9\n");
  const VertexStream* t = s.meshes[0].find(Attribute::Texcoord);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->components, 2u);
  EXPECT_EQ(t->source_size, 2u);
  EXPECT_EQ(t->data, (std::vector<float>{0.25f, 0.75f, 1, 0, 0.5f, 0.5f}));
  s = parse("vertexarray texcoord float 3\nmesh m\nvt 1 2 3\nvt 4 5\nvt\n");
  EXPECT_EQ(s.meshes[0].find(Attribute::Texcoord)->components, 3u);
  EXPECT_EQ(values(s.meshes[0], Attribute::Texcoord), (std::vector<float>{1, 2, 3, 4, 5, 0, 0, 0, 0}));
}

TEST(IqeRead, Normals) {
  Scene s = parse("mesh m\nvn 0 0 1\nvn 0 1 0\nvn 1 0 0\n");
  EXPECT_EQ(values(s.meshes[0], Attribute::Normal), (std::vector<float>{0, 1, 0, 0, 0, -1, 1, 0, 0}));
  EXPECT_EQ(s.meshes[0].find(Attribute::Normal)->components, 3u);
  // A mesh without vn has no normal stream: normals are never generated.
  s = parse("mesh m\nvp\nvp\nvp\n");
  EXPECT_EQ(s.meshes[0].find(Attribute::Normal), nullptr);
}

TEST(IqeRead, TangentWithSign) {
  Scene s = parse("mesh m\nvx 1 2 3 -0.5\nvx 1 2 3 0.25\nvx 1 2 3 0\nvx 1 2 3\nvx 1 2 3 -0\nvx 1 2 3 nan\n");
  const VertexStream* t = s.meshes[0].find(Attribute::Tangent);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->components, 4u);
  EXPECT_EQ(t->source_size, 4u);
  EXPECT_EQ(t->data,
            (std::vector<float>{1, 3, -2, -1, 1, 3, -2, 1, 1, 3, -2, 1, 1, 3, -2, 1, 1, 3, -2, 1, 1, 3, -2, 1}));
}

TEST(IqeRead, TangentWithBitangentUsesTheNormalEvenWhenItComesLater) {
  // file: normal +Z, tangent +X; cross(normal, tangent) = +Y.
  Scene s = parse(
      "mesh m\n"
      "vx 1 0 0 0 1 0\nvn 0 0 1\n"   // bitangent +Y: +1
      "vx 1 0 0 0 -1 0\nvn 0 0 1\n"  // bitangent -Y: -1
      "vx 1 0 0 0 -2\nvn 0 0 1\n");  // 5 values: the bitangent form, C = 0
  EXPECT_EQ(values(s.meshes[0], Attribute::Tangent), (std::vector<float>{1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, -1}));
  // Without normals the sign is +1.
  s = parse("mesh m\nvx 1 0 0 0 -1 0\nvx 0 1 0 1 0 0\nvx 0 0 1 0 0 -1\n");
  const VertexStream* t = s.meshes[0].find(Attribute::Tangent);
  for (size_t v = 0; v < 3; ++v) EXPECT_EQ(t->get(v, 3), 1.0f) << v;
}

TEST(IqeRead, BlendPairsArePaddedToTheLargestCount) {
  Diagnostics d;
  Scene s = parse("mesh m\nvp\nvb 3 0.5 1 0.5\nvp\nvb 2 1\nvp\nvb\n", &d);
  const VertexStream* bi = s.meshes[0].find(Attribute::BlendIndices);
  const VertexStream* bw = s.meshes[0].find(Attribute::BlendWeights);
  ASSERT_NE(bi, nullptr);
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bi->components, 2u);
  EXPECT_EQ(bw->components, 2u);
  EXPECT_EQ(bi->format, ComponentType::UByte);
  EXPECT_EQ(bw->format, ComponentType::UByte);
  EXPECT_EQ(bi->source_size, 4u);
  EXPECT_EQ(bi->data, (std::vector<float>{3, 1, 2, 0, 0, 0}));
  EXPECT_EQ(bw->data, (std::vector<float>{0.5f, 0.5f, 1, 0, 0, 0}));
  EXPECT_TRUE(d.items.empty()) << messages(d);
}

TEST(IqeRead, BlendWithOnlyEmptyLinesHasOneZeroPair) {
  Scene s = parse("mesh m\nvb\nvb\nvb\n");
  EXPECT_EQ(s.meshes[0].find(Attribute::BlendIndices)->components, 1u);
  EXPECT_EQ(values(s.meshes[0], Attribute::BlendIndices), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(values(s.meshes[0], Attribute::BlendWeights), (std::vector<float>{0, 0, 0}));
}

TEST(IqeRead, BlendManyPairsAndOddCounts) {
  Diagnostics d;
  Scene s = parse("mesh m\nvb 0 0.1 1 0.1 2 0.1 3 0.1 4 0.1 5 0.1 6 0.1 7 0.1 8 0.2\nvb 1\nvb\n", &d);
  const VertexStream* bi = s.meshes[0].find(Attribute::BlendIndices);
  EXPECT_EQ(bi->components, 9u);
  EXPECT_EQ(bi->get(0, 8), 8.0f);
  EXPECT_EQ(s.meshes[0].find(Attribute::BlendWeights)->get(0, 8), 0.2f);
  // Index without weight: weight 0, warned; issue 16: a pair of weight 0 is no influence, so
  // the vertex has none (padding (0, 0)).
  EXPECT_EQ(bi->get(1, 0), 0.0f);
  EXPECT_EQ(s.meshes[0].find(Attribute::BlendWeights)->get(1, 0), 0.0f);
  EXPECT_TRUE(has_warning(d, "t.iqe:4:4: warning: blend index without a weight: weight 0 used")) << messages(d);
}

TEST(IqeRead, BlendPairsBeyondTheLimitKeepTheLargestWeights) {
  std::string line = "vb";
  for (int i = 0; i < 40; ++i) line += " " + std::to_string(i) + " " + std::to_string(i < 20 ? 0.01 : 0.02);
  Diagnostics d;
  Scene s = parse("mesh m\n" + line + "\n", &d);
  const VertexStream* bi = s.meshes[0].find(Attribute::BlendIndices);
  ASSERT_EQ(bi->components, 32u);
  // The 20 pairs of weight 0.02 and the first 12 of weight 0.01 are kept, in file order.
  EXPECT_EQ(bi->get(0, 0), 0.0f);
  EXPECT_EQ(bi->get(0, 11), 11.0f);
  EXPECT_EQ(bi->get(0, 12), 20.0f);
  EXPECT_EQ(bi->get(0, 31), 39.0f);
  EXPECT_TRUE(has_warning(d, "t.iqe:3:1: warning: vertex has 40 blend pairs: the 32 largest weights are kept"));
}

TEST(IqeRead, BlendIndexMustBeANonNegativeInteger) {
  EXPECT_EQ(error_of("mesh m\nvb 1.5 1\n"), "t.iqe:3:4: error: blend index \"1.5\" must be a non-negative integer");
  EXPECT_EQ(error_of("mesh m\nvb 0 0.5 -1 0.5\n"),
            "t.iqe:3:10: error: blend index \"-1\" must be a non-negative integer");
  EXPECT_EQ(error_of("mesh m\nvb nan 1\n"), "t.iqe:3:4: error: blend index \"nan\" must be a non-negative integer");
}

TEST(IqeRead, ColourDefaultsToThreeComponents) {
  // iqe.txt: colour arrays default to 3 components (A ignored).
  Scene s = parse("mesh m\nvc 1 0.5 0\nvc 1 0 0 0.5\nvc\n");
  const VertexStream* c = s.meshes[0].find(Attribute::Color);
  EXPECT_EQ(c->components, 3u);
  EXPECT_EQ(c->source_size, 3u);
  EXPECT_EQ(c->format, ComponentType::UByte);
  EXPECT_EQ(c->data, (std::vector<float>{1, 0.5f, 0, 1, 0, 0, 0, 0, 0}));
  s = parse("vertexarray color float 4\nmesh m\nvc 1 0 0 0.5\nvc 1\n");
  c = s.meshes[0].find(Attribute::Color);
  EXPECT_EQ(c->components, 4u);
  EXPECT_EQ(c->format, ComponentType::Float);
  EXPECT_EQ(c->data, (std::vector<float>{1, 0, 0, 0.5f, 1, 0, 0, 1}));  // A defaults to 1
}

TEST(IqeRead, CustomArraysNeedADeclaration) {
  Diagnostics d;
  Scene s = parse("vertexarray custom7 short 3 \"wind dir\"\nmesh m\nv7 1 2 3\nv0 9\nv7 4\nv0 9\nv7\nv9 1\n", &d);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.streams.size(), 1u);
  const VertexStream* c = custom_stream(m);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name, "wind dir");
  EXPECT_EQ(c->custom_slot, 7);
  EXPECT_EQ(c->format, ComponentType::Short);
  EXPECT_EQ(c->source_size, 3u);
  EXPECT_EQ(c->components, 3u);
  EXPECT_EQ(c->data, (std::vector<float>{1, 2, 3, 4, 0, 0, 0, 0, 0}));  // not converted
  ASSERT_EQ(d.items.size(), 2u) << messages(d);                         // once per slot
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:5:1: warning: v0 ignored: custom0 has no vertexarray declaration");
  EXPECT_EQ(d.items[1].to_string(), "t.iqe:9:1: warning: v9 ignored: custom9 has no vertexarray declaration");
}

TEST(IqeRead, CustomArrayNameDefaultsToItsType) {
  Scene s = parse("vertexarray custom5 float 1\nmesh m\nv5 0.5\n");
  EXPECT_EQ(custom_stream(s.meshes[0])->name, "custom5");
  EXPECT_EQ(custom_stream(s.meshes[0])->components, 1u);
  s = parse("vertexarray custom0 ubyte 4 unquoted\nmesh m\nv0 1 2\n");
  EXPECT_EQ(custom_stream(s.meshes[0])->name, "unquoted");
  EXPECT_EQ(custom_stream(s.meshes[0])->data, (std::vector<float>{1, 2, 0, 0}));
}

TEST(IqeRead, VertexarrayEveryComponentType) {
  const char* names[] = {"byte", "ubyte", "short", "ushort", "int", "uint", "half", "float", "double"};
  for (int i = 0; i < 9; ++i) {
    Scene s = parse(std::string("vertexarray normal ") + names[i] + " 3\nmesh m\nvn 0 0 1\n");
    EXPECT_EQ(s.meshes[0].find(Attribute::Normal)->format, ComponentType(i)) << names[i];
  }
}

TEST(IqeRead, VertexarrayEveryTypeAndSize) {
  Scene s = parse(
      "vertexarray position half 3\nvertexarray texcoord ushort 1\nvertexarray normal byte 4\n"
      "vertexarray tangent short 3\nvertexarray blendindexes int 2\nvertexarray blendweights float 2\n"
      "vertexarray color ubyte 2\nvertexarray custom1 uint 4 \"c1\"\n"
      "mesh m\nvp 1 2 3\nvt 1 2\nvn 1 2 3 4\nvx 1 2 3 -1\nvb 5 1\nvc 1 2 3\nv1 1 2 3 4\n");
  const Mesh& m = s.meshes[0];
  auto check = [&](Attribute a, ComponentType f, uint32_t size, uint32_t comps, std::vector<float> data) {
    const VertexStream* st = a == Attribute::Custom ? custom_stream(m) : m.find(a);
    ASSERT_NE(st, nullptr) << int(a);
    EXPECT_EQ(st->format, f) << int(a);
    EXPECT_EQ(st->source_size, size) << int(a);
    EXPECT_EQ(st->components, comps) << int(a);
    EXPECT_EQ(st->data, data) << int(a);
  };
  check(Attribute::Position, ComponentType::Half, 3, 3, {1, 3, -2});
  check(Attribute::Texcoord, ComponentType::UShort, 1, 1, {1});
  check(Attribute::Normal, ComponentType::Byte, 4, 4, {1, 3, -2, 4});
  check(Attribute::Tangent, ComponentType::Short, 3, 4, {1, 3, -2, -1});
  check(Attribute::BlendIndices, ComponentType::Int, 2, 1, {5});
  check(Attribute::BlendWeights, ComponentType::Float, 2, 1, {1});
  check(Attribute::Color, ComponentType::UByte, 2, 2, {1, 2});
  check(Attribute::Custom, ComponentType::UInt, 4, 4, {1, 2, 3, 4});
  // Streams come in a fixed order.
  std::vector<Attribute> order;
  for (const auto& st : m.streams) order.push_back(st.attribute);
  EXPECT_EQ(order, (std::vector<Attribute>{Attribute::Position, Attribute::Texcoord, Attribute::Normal,
                                           Attribute::Tangent, Attribute::BlendIndices, Attribute::BlendWeights,
                                           Attribute::Color, Attribute::Custom}));
}

TEST(IqeRead, VertexarrayWithUnknownValuesIsIgnored) {
  Diagnostics d;
  Scene s = parse(
      "vertexarray colour ubyte 3\n"
      "vertexarray position bogus 3\n"
      "vertexarray position float 0\n"
      "vertexarray position float 5\n"
      "vertexarray position float x\n"
      "vertexarray position float\n"
      "vertexarray position\n"
      "vertexarray\n"
      "mesh m\nvp 1 2 3 4\nvp\nvp\n",
      &d);
  const VertexStream* p = s.meshes[0].find(Attribute::Position);
  EXPECT_EQ(p->format, ComponentType::Float);
  EXPECT_EQ(p->components, 3u);
  ASSERT_EQ(d.items.size(), 8u) << messages(d);
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:2:13: warning: unknown vertexarray type \"colour\": line ignored");
  EXPECT_EQ(d.items[1].to_string(), "t.iqe:3:22: warning: unknown vertexarray component type \"bogus\": line ignored");
  EXPECT_EQ(d.items[2].to_string(), "t.iqe:4:28: warning: vertexarray size must be 1 to 4, got \"0\": line ignored");
  EXPECT_EQ(d.items[3].message, "vertexarray size must be 1 to 4, got \"5\": line ignored");
  EXPECT_EQ(d.items[4].message, "vertexarray size must be 1 to 4, got \"x\": line ignored");
  EXPECT_EQ(d.items[5].message, "vertexarray size must be 1 to 4, got \"\": line ignored");
  EXPECT_EQ(d.items[6].message, "unknown vertexarray component type \"\": line ignored");
  EXPECT_EQ(d.items[7].message, "unknown vertexarray type \"\": line ignored");
}

TEST(IqeRead, VertexarrayAppliesToTheArraysStartedAfterIt) {
  Diagnostics d;
  Scene s = parse(
      "mesh a\nvt 1 2\nvt 3 4\nvt 5 6\n"
      "vertexarray texcoord half 3\n"
      "mesh b\nvt 1 2 3\nvt 4 5 6\nvt 7 8 9\n",
      &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  EXPECT_EQ(s.meshes[0].find(Attribute::Texcoord)->components, 2u);
  EXPECT_EQ(s.meshes[0].find(Attribute::Texcoord)->format, ComponentType::Float);
  EXPECT_EQ(s.meshes[1].find(Attribute::Texcoord)->components, 3u);
  EXPECT_EQ(s.meshes[1].find(Attribute::Texcoord)->format, ComponentType::Half);
  // Within a mesh that has started such data, the mesh keeps its layout, with a warning.
  s = parse(
      "mesh a\nvt 1 2\nvn\nvertexarray texcoord float 3\nvt 3 4 5\nvn\nvt\nvn\nvertexarray normal float 4\n"
      "vertexarray color float 4\n",
      &d);
  EXPECT_EQ(values(s.meshes[0], Attribute::Texcoord), (std::vector<float>{1, 2, 3, 4, 0, 0}));
  ASSERT_EQ(d.items.size(), 2u) << messages(d);  // the texcoord declaration is not warned twice
  EXPECT_EQ(
      d.items[0].to_string(),
      "t.iqe:6:1: warning: vertexarray texcoord came after this mesh's first vt: it applies from the next mesh on");
  // A declaration after data of its type that no data follows (colour: none before, so silent).
  EXPECT_EQ(d.items[1].to_string(),
            "t.iqe:10:1: warning: vertexarray normal has no vertex data after it (a declaration applies to the data "
            "that follows)");
}

TEST(IqeRead, VertexSmoothingIndex) {
  Scene s = parse("mesh m\nvp\nvs 4\nvp\nvs -2\nvp\nvs 4\nfm 0 1 2\n");
  EXPECT_EQ(s.meshes[0].smoothing.vertex_key, (std::vector<int32_t>{4, -2, 4}));
}

// ---- Meshes and materials ------------------------------------------------------------------------

TEST(IqeRead, MeshesOwnTheVerticesAfterTheirCommand) {
  Scene s = parse("mesh a\nvp 1 0 0\nvp 2 0 0\nvp 3 0 0\nfm 0 1 2\nmesh b\nvp 4 0 0\nvp 5 0 0\nvp 6 0 0\nfm 0 1 2\n");
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].name, "a");
  EXPECT_EQ(s.meshes[1].name, "b");
  EXPECT_EQ(s.meshes[1].find(Attribute::Position)->get(0, 0), 4.0f);
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(s.meshes[0].material, -1);
}

TEST(IqeRead, EmptyNamesAndEmptyMeshes) {
  Scene s = parse("mesh\nmesh \"\"\nmesh  # a comment\n");
  ASSERT_EQ(s.meshes.size(), 3u);
  for (const auto& m : s.meshes) {
    EXPECT_EQ(m.name, "");
    EXPECT_EQ(m.vertex_count(), 0u);
    EXPECT_TRUE(m.streams.empty());
  }
}

TEST(IqeRead, ImplicitMeshBeforeTheFirstMeshCommand) {
  Scene s = parse("vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\nmesh named\nvp\nvp\nvp\nfm 0 1 2\n");
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].name, "");
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
  // Faces alone (using later vertices) also make the implicit mesh.
  s = parse("fa 0 1 2\nmesh named\nvp 1\nvp 2\nvp 3\nfm 0 1 2\n");
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(values(s.meshes[0], Attribute::Position), (std::vector<float>{1, 0, 0, 2, 0, 0, 3, 0, 0}));
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);  // copied from "named"
  // With nothing in it, it is dropped (with its material).
  s = parse("material lost\nvertexarray position float 3\nmesh m\nvp\n");
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].name, "m");
  EXPECT_TRUE(s.materials.empty());
}

TEST(IqeRead, MaterialsAreFoundOrAddedByName) {
  Scene s = parse(
      "mesh a\nmaterial \"Skin.PNG\"\nmesh b\nmaterial plain\nmesh c\nmaterial Skin.PNG\nmesh d\nmesh e\nmaterial\n"
      "mesh f\nmaterial x.jpeg\nmaterial y.dds\nmesh g\nmaterial z.Tga\nmesh h\nmaterial w.bmp\nmesh i\nmaterial "
      "v.jpg\n");
  ASSERT_EQ(s.meshes.size(), 9u);
  std::vector<int32_t> idx;
  for (const auto& m : s.meshes) idx.push_back(m.material);
  EXPECT_EQ(idx, (std::vector<int32_t>{0, 1, 0, -1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(s.materials.size(), 7u);
  EXPECT_EQ(s.materials[0].name, "Skin.PNG");
  EXPECT_EQ(s.materials[0].base_color_texture, "Skin.PNG");
  EXPECT_EQ(s.materials[1].name, "plain");
  EXPECT_EQ(s.materials[1].base_color_texture, "");
  EXPECT_EQ(s.materials[2].name, "");       // `material` without a name: the empty name
  EXPECT_EQ(s.materials[3].name, "y.dds");  // the last material command of a mesh wins
  for (size_t i = 3; i < 7; ++i) EXPECT_EQ(s.materials[i].base_color_texture, s.materials[i].name);
}

// ---- Faces -------------------------------------------------------------------------------------------

TEST(IqeFaces, TriangleWindingIsReversed) {
  Scene s = parse("mesh m\nvp\nvp\nvp\nfm 0 1 2\nfm 2 0 1\n");
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1, 2, 1, 0}));
  EXPECT_TRUE(s.meshes[0].polygon_sizes.empty());
}

TEST(IqeFaces, PolygonsAreReversedFans) {
  Scene s = parse("mesh m\nvp\nvp\nvp\nvp\nvp\nfm 0 1 2\nfm 0 1 2 3 4\n");
  // file (0 1 2 3 4) -> Scene polygon (0 4 3 2 1) -> fan (0 4 3) (0 3 2) (0 2 1)
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1, 0, 4, 3, 0, 3, 2, 0, 2, 1}));
  EXPECT_EQ(s.meshes[0].polygon_sizes, (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(s.meshes[0].face_count(), 2u);
}

TEST(IqeFaces, NegativeIndicesCountBackFromTheLastVertex) {
  Scene s = parse("mesh a\nvp\nvp\nvp\nmesh b\nvp\nvp\nvp\nvp\nfm -1 -2 -3\nfa -4 -3 -2\nfm 0 -1 1\n");
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{3, 1, 2, 0, 2, 1, 0, 1, 3}));
}

TEST(IqeFaces, FaIsFileGlobalAndFmIsMeshRelative) {
  Scene s = parse("mesh a\nvp 1\nvp 2\nvp 3\nmesh b\nvp 4\nvp 5\nvp 6\nfm 0 1 2\nfa 3 4 5\n");
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 2, 1, 0, 2, 1}));
  EXPECT_EQ(s.meshes[1].vertex_count(), 3u);
}

TEST(IqeFaces, VerticesOfAnotherMeshAreCopiedIn) {
  Diagnostics d;
  Scene s = parse(
      "mesh a\nvp 1\nvn 0 0 1\nvp 2\nvn 0 0 1\nvp 3\nvn 0 0 1\nmesh b\nvp 4\nvn 1 0 0\nvp 5\nvn 1 0 0\n"
      "vp 6\nvn 1 0 0\nfa 0 1 5\nfa 5 0 1\n",
      &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  const Mesh& b = s.meshes[1];
  // file (0 1 5) -> Scene (0 5 1); 0 and 1 are a's, appended to b as 3 and 4.
  EXPECT_EQ(b.triangles, (std::vector<uint32_t>{3, 2, 4, 2, 4, 3}));
  EXPECT_EQ(values(b, Attribute::Position), (std::vector<float>{4, 0, 0, 5, 0, 0, 6, 0, 0, 1, 0, 0, 2, 0, 0}));
  EXPECT_EQ(b.find(Attribute::Normal)->get(3, 1), 1.0f);
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
}

TEST(IqeFaces, UnevenBlendArrayIsAnError) {
  EXPECT_EQ(error_of("mesh a\nvp 1\nvb 2 1 3 0.5\nvp 2\nvp 3\nvb\nmesh b\n"),
            "t.iqe:2:1: error: mesh \"a\": vertex arrays have different lengths (vp 3, vb 2); each must have one "
            "entry per vertex");
}

TEST(IqeFaces, CopiedVerticesTakeTheMeshsArrays) {
  Diagnostics d;
  Scene s = parse("mesh a\nvp 1\nvb 2 1 3 0.5\nvp 2\nvb 1 1\nvp 3\nvb\nmesh b\nvp 4\nvt 0.5 0.5\nfa 0 3 1\n", &d);
  EXPECT_TRUE(has_warning(d,
                          "t.iqe:9:1: warning: mesh \"b\": its faces use vertices of other meshes that have other "
                          "vertex arrays; missing values are defaulted"))
      << messages(d);
  const Mesh& b = s.meshes[1];
  ASSERT_EQ(b.streams.size(), 2u);  // b's own arrays: vp and vt
  EXPECT_EQ(values(b, Attribute::Texcoord), (std::vector<float>{0.5f, 0.5f, 0, 0, 0, 0}));
  EXPECT_EQ(values(b, Attribute::Position), (std::vector<float>{4, 0, 0, 1, 0, 0, 2, 0, 0}));
  // A mesh with no vertices of its own takes the arrays of the meshes it uses.
  d = {};
  s = parse("mesh a\nvb 2 1 3 0.5\nvp 1\nvp 2\nvb 1 1\nvp 3\nvb\nmesh b\nfa 0 2 1\n", &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  const Mesh& c = s.meshes[1];
  ASSERT_EQ(c.streams.size(), 3u);
  EXPECT_EQ(c.streams[0].attribute, Attribute::Position);  // usual order, though vb came first in a
  EXPECT_EQ(c.vertex_count(), 3u);
  EXPECT_EQ(c.triangles, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(c.find(Attribute::BlendIndices)->components, 2u);
  EXPECT_EQ(values(c, Attribute::BlendIndices), (std::vector<float>{2, 3, 1, 0, 0, 0}));
}

TEST(IqeFaces, FacesMayComeBeforeTheirVertices) {
  Scene s = parse("mesh m\nfm 0 1 2\nvp 1\nvp 2\nvp 3\n");
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1}));
}

TEST(IqeFaces, IndexOutOfRangeIsAnError) {
  EXPECT_EQ(error_of("mesh m\nvp\nvp\nvp\nfa 0 1 100000\n"),
            "t.iqe:6:8: error: face index 100000 out of range: the file has 3 vertices");
  EXPECT_EQ(error_of("mesh a\nvp\nmesh b\nvp\nvp\nfm 0 1 2\n"),
            "t.iqe:7:8: error: face index 2 out of range: fm counts from this mesh's first vertex, and there are 2");
  EXPECT_EQ(error_of("mesh m\nvp\nvp\nvp\nfm 0 1 -4\n"),
            "t.iqe:6:8: error: face index -4 out of range: only 3 vertices are defined before this line");
  EXPECT_EQ(error_of("mesh m\nvp\nvp\nvp\nfa 0 1 4294967295\n"),
            "t.iqe:6:8: error: face index 4294967295 out of range");
  EXPECT_EQ(error_of("mesh m\nvp\nvp\nvp\nfa 0 1 99999999999999999999\n"),
            "t.iqe:6:8: error: number out of range \"99999999999999999999\"");
  // The first bad index is reported, at its line, even when later lines are fine.
  EXPECT_EQ(error_of("mesh m\nfm 0 1 3\nfm 0 1 9\nvp\nvp\nvp\n"),
            "t.iqe:3:8: error: face index 3 out of range: fm counts from this mesh's first vertex, and there are 3");
}

TEST(IqeFaces, AFaceNeedsThreeIndices) {
  EXPECT_EQ(error_of("mesh m\nvp\nvp\nvp\nfm 0 1\n"),
            "t.iqe:6:1: error: a face needs at least 3 vertex indices, got 2");
  EXPECT_EQ(error_of("  fa # nothing\n"), "t.iqe:2:3: error: a face needs at least 3 vertex indices, got 0");
}

TEST(IqeFaces, IndicesMustBeIntegers) {
  EXPECT_EQ(error_of("mesh m\nvp\nvp\nvp\nfm 0 1.0 2\n"), "t.iqe:6:6: error: malformed number \"1.0\"");
  EXPECT_EQ(error_of("mesh m\nvp\nvp\nvp\nfm 0 1 2x\n"), "t.iqe:6:8: error: malformed number \"2x\"");
}

TEST(IqeFaces, WithoutAnyFaceEveryThreeVerticesAreATriangle) {
  Diagnostics d;
  Scene s = parse("mesh a\nvp\nvp\nvp\nvp\nvp\nvp\nvp\nmesh b\nvp\nvp\nvp\n", &d);
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1, 3, 5, 4}));
  EXPECT_EQ(s.meshes[0].vertex_count(), 7u);
  EXPECT_EQ(s.meshes[1].triangles, (std::vector<uint32_t>{0, 2, 1}));
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(),
            "t.iqe:2:1: warning: mesh \"a\": the last 1 vertices do not make a triangle (the file has no faces, so "
            "every 3 vertices are one)");
  // One face anywhere switches the rule off for every mesh.
  s = parse("mesh a\nvp\nvp\nvp\nmesh b\nvp\nvp\nvp\nfm 0 1 2\n");
  EXPECT_TRUE(s.meshes[0].triangles.empty());
  EXPECT_EQ(s.meshes[1].triangles.size(), 3u);
}

// ---- Smoothing -----------------------------------------------------------------------------------

TEST(IqeSmoothing, UnusedCommandsLeaveTheRulesEmpty) {
  Scene s = parse("mesh m\nvp\nvp\nvp\nfm 0 1 2\n");
  EXPECT_TRUE(s.meshes[0].smoothing.empty());
  s = parse("smoothangle 40\nmesh m\nvp\nvp\nvp\nfm 0 1 2\n");
  EXPECT_EQ(s.meshes[0].smoothing.face_angle, (std::vector<float>{40}));
  EXPECT_TRUE(s.meshes[0].smoothing.face_group.empty());
  EXPECT_TRUE(s.meshes[0].smoothing.face_uv.empty());
  EXPECT_TRUE(s.meshes[0].smoothing.corner_edge.empty());
  EXPECT_TRUE(s.meshes[0].smoothing.vertex_key.empty());
}

TEST(IqeSmoothing, StateAppliesToTheFollowingFacesAcrossMeshes) {
  Scene s = parse(
      "mesh a\nvp\nvp\nvp\nfm 0 1 2\nsmoothgroup 7\nsmoothuv 1\nfm 0 1 2\nsmoothangle 30.5\nsmoothuv -1\nfm 0 1 2\n"
      "mesh b\nvp\nvp\nvp\nfm 0 1 2\nsmoothgroup\nsmoothuv\nfm 0 1 2\n");
  const SmoothingRules& a = s.meshes[0].smoothing;
  EXPECT_EQ(a.face_group, (std::vector<int32_t>{-1, 7, 7}));
  EXPECT_EQ(a.face_angle, (std::vector<float>{180, 180, 30.5f}));
  EXPECT_EQ(a.face_uv, (std::vector<uint8_t>{0, 1, 0}));
  const SmoothingRules& b = s.meshes[1].smoothing;
  EXPECT_EQ(b.face_group, (std::vector<int32_t>{7, 7}));  // smoothgroup without a value: ignored
  EXPECT_EQ(b.face_angle, (std::vector<float>{30.5f, 30.5f}));
  EXPECT_EQ(b.face_uv, (std::vector<uint8_t>{0, 1}));  // smoothuv without a value enables it
}

TEST(IqeSmoothing, WithoutFacesTheStateAtTheMeshEndApplies) {
  Scene s = parse("mesh a\nvp\nsmoothgroup 2\nvp\nvp\nvp\nvp\nvp\n");
  EXPECT_EQ(s.meshes[0].smoothing.face_group, (std::vector<int32_t>{2, 2}));
}

TEST(IqeSmoothing, EdgeFlagsFollowTheSceneWinding) {
  Diagnostics d;
  Scene s = parse("mesh m\nvp\nvp\nvp\nvp\nfm 0 1 2 3\nfs 0 0 1 1\nfm 0 1 2\nfs 1 0 0\nfm 1 2 3\n", &d);
  // file polygon (0 1 2 3), flags for edges 0>1 1>2 2>3 3>0 = (0 0 1 1). Scene polygon (0 3 2 1):
  // corner 0 leaves along 0>3 (file edge 3>0: 1), corner 3 along 3>2 (2>3: 1), then 0, 0.
  EXPECT_EQ(s.meshes[0].smoothing.corner_edge, (std::vector<uint8_t>{1, 1, 0, 0, 0, 0, 1, 1, 1, 1}));
  ASSERT_EQ(d.items.size(), 1u) << messages(d);
  EXPECT_EQ(
      d.items[0].to_string(),
      "t.iqe:2:1: warning: mesh \"m\" has 2 fs commands for 3 faces: missing flags are 1, extra commands ignored");
}

TEST(IqeSmoothing, EdgeFlagCountMismatchIsAWarning) {
  Diagnostics d;
  Scene s = parse("mesh m\nvp\nvp\nvp\nfm 0 1 2\nfs 0 7\n", &d);
  EXPECT_EQ(s.meshes[0].smoothing.corner_edge, (std::vector<uint8_t>{1, 1, 0}));
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(),
            "t.iqe:7:1: warning: fs has 2 flags for a face of 3 corners: missing flags are 1, extra ones ignored");
}

TEST(IqeSmoothing, VertexKeysAreAnArrayLikeTheOthers) {
  EXPECT_EQ(error_of("mesh m\nvp\nvs 1\nvp\nvp\nfm 0 1 2\n"),
            "t.iqe:2:1: error: mesh \"m\": vertex arrays have different lengths (vp 3, vs 1); each must have one "
            "entry per vertex");
}

// ---- Poses, joints, animations ---------------------------------------------------------------------

TEST(IqePoses, PqRestoresAMissingNegativeW) {
  Scene s = parse("joint a\npq 1 2 3 0.5 0 0\njoint b 0\npq 1 2 3 0 0.6 0.8\n");
  ASSERT_EQ(s.joints.size(), 2u);
  const Transform& t = s.joints[0].rest;
  EXPECT_EQ(t.translation, (std::array<float, 3>{1, 3, -2}));
  EXPECT_EQ(t.rotation, (std::array<float, 4>{0.5f, 0, 0, -std::sqrt(0.75f)}));
  EXPECT_EQ(t.scale, (std::array<float, 3>{1, 1, 1}));
  EXPECT_EQ(s.joints[1].rest.rotation, (std::array<float, 4>{0, 0.8f, -0.6f, -0.0f}));
  // Given values are kept as they are (not normalised, sign not changed).
  s = parse("joint a\npq 0 0 0 0 0 0 2\n");
  EXPECT_EQ(s.joints[0].rest.rotation, (std::array<float, 4>{0, 0, 0, 2}));
  // |xyz| > 1: w = -sqrt(max(0, ...)) = 0.
  s = parse("joint a\npq 0 0 0 1 1 0\n");
  EXPECT_EQ(s.joints[0].rest.rotation[3], 0.0f);
}

TEST(IqePoses, PqScaleIsPermutedLikeTheAxes) {
  Scene s = parse("joint a\npq 0 0 0 0 0 0 1 2 3 4\njoint b\npq 0 0 0 0 0 0 1 5\n");
  EXPECT_EQ(s.joints[0].rest.scale, (std::array<float, 3>{2, 4, 3}));
  EXPECT_EQ(s.joints[1].rest.scale, (std::array<float, 3>{5, 1, 1}));
}

TEST(IqePoses, PmExtractsScaleAndItsSign) {
  // Rotation of 90 degrees about file Z (rows A B C of the column-vector matrix), times scale.
  // R = [0 -1 0; 1 0 0; 0 0 1]; R * diag(2, 3, 4) = [0 -3 0; 2 0 0; 0 0 4].
  Scene s = parse(
      "joint a\npm 1 2 3  0 -3 0  2 0 0  0 0 4\njoint b\npm 0 0 0  0 3 0  -2 0 0  0 0 -4\n"
      "joint c\npm 0 0 0  0 -3 0  2 0 0  0 0 4  1 1 2\n");
  const float h = std::sqrt(0.5f);
  auto near = [](std::array<float, 4> a, std::array<float, 4> b) {
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(a[i], b[i], 1e-6f) << i;
  };
  // file q = (0, 0, sin 45, cos 45), given w <= 0 -> (0, 0, -h, -h); Scene (x, z, -y, w).
  near(s.joints[0].rest.rotation, {0, -h, 0, -h});
  EXPECT_EQ(s.joints[0].rest.translation, (std::array<float, 3>{1, 3, -2}));
  EXPECT_EQ(s.joints[0].rest.scale, (std::array<float, 3>{2, 4, 3}));
  // Negative determinant: every scale is negative, the rotation is the same.
  // R * diag(-2, -3, -4) = [0 3 0; -2 0 0; 0 0 -4].
  near(s.joints[1].rest.rotation, {0, -h, 0, -h});
  EXPECT_EQ(s.joints[1].rest.scale, (std::array<float, 3>{-2, -4, -3}));
  // The optional Sx Sy Sz multiply the matrix's scale.
  EXPECT_EQ(s.joints[2].rest.scale, (std::array<float, 3>{2, 8, 3}));
}

TEST(IqePoses, PmMatrixReproducesTheTransform) {
  // A general rotation and scale: the pose rebuilt from (T, q, S) equals the file's matrix.
  Quat q = quat_normalize({0.2f, -0.4f, 0.3f, 0.8f});
  Vec3 sc{1.5f, 0.5f, 2.0f};
  Mat3x4 m = mat_from_trs({0, 0, 0}, q, sc);  // column-major
  std::string line = "joint a\npm 0 0 0";
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      char buf[32];
      snprintf(buf, sizeof buf, " %.9g", m[c * 3 + r]);
      line += buf;
    }
  Scene s = parse(line + "\n");
  Transform t = s.joints[0].rest;
  Transform z{
      {0, 0, 0}, {t.rotation[0], -t.rotation[2], t.rotation[1], t.rotation[3]}, {t.scale[0], t.scale[2], t.scale[1]}};
  Mat3x4 back = mat_from_trs(z.translation, z.rotation, z.scale);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(back[i], m[i], 1e-5f) << i;
  EXPECT_LE(t.rotation[3], 0.0f);
}

TEST(IqePoses, PaRotatesAboutXThenYThenZ) {
  Scene s = parse("joint a\npa 1 2 3 0.3 -0.5 0.7 1 2 3\njoint b\npa 0 0 0 1.5707963267948966\n");
  Quat qx{std::sin(0.15f), 0, 0, std::cos(0.15f)};
  Quat qy{0, std::sin(-0.25f), 0, std::cos(-0.25f)};
  Quat qz{0, 0, std::sin(0.35f), std::cos(0.35f)};
  Quat want = quat_mul(qz, quat_mul(qy, qx));  // X first, then Y, then Z
  if (want[3] > 0) want = {-want[0], -want[1], -want[2], -want[3]};
  Quat got = s.joints[0].rest.rotation;
  Quat file{got[0], -got[2], got[1], got[3]};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(file[i], want[i], 1e-6f) << i;
  // Applied to a vector: Rz(Ry(Rx v)).
  Vec3 v{0.3f, -1.2f, 0.9f};
  Vec3 a = quat_rotate(file, v);
  Vec3 b = quat_rotate(qz, quat_rotate(qy, quat_rotate(qx, v)));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], 1e-5f);
  EXPECT_EQ(s.joints[0].rest.translation, (std::array<float, 3>{1, 3, -2}));
  EXPECT_EQ(s.joints[0].rest.scale, (std::array<float, 3>{1, 3, 2}));
  const float h = std::sqrt(0.5f);
  Quat bx = s.joints[1].rest.rotation;
  EXPECT_NEAR(bx[0], -h, 1e-6f);
  EXPECT_NEAR(bx[3], -h, 1e-6f);
}

TEST(IqeSkeleton, JointsAndParents) {
  Scene s = parse("joint a -1\njoint \"b c\" 0\njoint d 1\njoint e\njoint f -7\njoint g +3\n");
  ASSERT_EQ(s.joints.size(), 6u);
  std::vector<int32_t> parents;
  for (const auto& j : s.joints) parents.push_back(j.parent);
  EXPECT_EQ(parents, (std::vector<int32_t>{-1, 0, 1, -1, -1, 3}));
  EXPECT_EQ(s.joints[1].name, "b c");
  EXPECT_EQ(s.joints[1].rest, Transform{});  // no base poses: identity
}

TEST(IqeSkeleton, ParentMustBeAnEarlierJoint) {
  EXPECT_EQ(error_of("joint a 0\n"),
            "t.iqe:2:9: error: joint \"a\": parent 0 must be an earlier joint (this is joint 0)");
  EXPECT_EQ(error_of("joint a\njoint \"b\"   5\n"),
            "t.iqe:3:13: error: joint \"b\": parent 5 must be an earlier joint (this is joint 1)");
  EXPECT_EQ(error_of("joint a\njoint b x\n"), "t.iqe:3:9: error: malformed number \"x\"");
}

TEST(IqeSkeleton, BasePoseCountMismatchIsAWarning) {
  Diagnostics d;
  Scene s = parse("joint a\njoint b 0\npq 1 0 0 0 0 0 1\n", &d);
  EXPECT_EQ(s.joints[0].rest.translation, (std::array<float, 3>{1, 0, 0}));
  EXPECT_EQ(s.joints[1].rest, Transform{});
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:3:1: warning: 2 joints but 1 base poses: missing ones are the identity");
  d = {};
  s = parse("joint a\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\n", &d);
  EXPECT_EQ(d.items.size(), 1u);
  EXPECT_EQ(s.joints.size(), 1u);
}

TEST(IqeAnimation, FramesFramerateLoop) {
  Scene s = parse(
      "joint a\njoint b 0\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\n"
      "animation \"walk cycle\"\nframerate 12.5\nloop\nframe\npq 1 0 0 0 0 0 1\npq 2 0 0 0 0 0 1\n"
      "frame 1\npq 3 0 0 0 0 0 1\npm 4 0 0 1 0 0 0 1 0 0 0 1\n");
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "walk cycle");
  EXPECT_EQ(a.framerate, 12.5f);
  EXPECT_TRUE(a.loop);
  EXPECT_EQ(a.channels, 2u);
  EXPECT_EQ(a.frame_count(), 2u);
  ASSERT_EQ(a.poses.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.poses[size_t(i)].translation[0], float(i + 1));
  EXPECT_EQ(a.poses[3].rotation, (std::array<float, 4>{0, 0, 0, -1}));  // computed: w <= 0
}

TEST(IqeAnimation, PosesBeforeTheFirstFrameStartIt) {
  Scene s = parse("joint a\nanimation\npq 1 0 0 0 0 0 1\nframe\npq 2 0 0 0 0 0 1\n");
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].frame_count(), 2u);
  EXPECT_EQ(s.animations[0].framerate, 0.0f);
  EXPECT_FALSE(s.animations[0].loop);
}

TEST(IqeAnimation, UnnamedAnimationsGetUnusedNames) {
  Scene s = parse("animation\nanimation animation1\nanimation \"\"\nanimation x\n");
  ASSERT_EQ(s.animations.size(), 4u);
  EXPECT_EQ(s.animations[0].name, "animation2");
  EXPECT_EQ(s.animations[1].name, "animation1");
  EXPECT_EQ(s.animations[2].name, "animation3");
  EXPECT_EQ(s.animations[3].name, "x");
  EXPECT_EQ(s.animations[0].channels, 0u);
}

TEST(IqeAnimation, MorePosesThanJointsIsAnError) {
  EXPECT_EQ(error_of("joint a\njoint b 0\nanimation w\nframe\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\n"
                     "frame\npq 0 0 0 0 0 0 1\npq\npq\nframe\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\n"),
            "t.iqe:8:1: error: animation \"w\": frame 1 has 3 poses, expected 2 (one per joint)");
  EXPECT_EQ(error_of("joint a\nanimation w\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\n"),
            "t.iqe:4:1: error: animation \"w\": frame 0 has 2 poses, expected 1 (one per joint)");
}

TEST(IqeAnimation, FewerPosesThanJointsKeepTheBasePoses) {
  Diagnostics d;
  Scene s = parse("joint a\njoint b 0\njoint c 1\npq 1\npq 2\nanimation w\nframe\npq 5\nframe\npq 6\npq 7\n", &d);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.channels, 3u);
  ASSERT_EQ(a.frame_count(), 2u);
  std::vector<float> x;
  for (const auto& t : a.poses) x.push_back(t.translation[0]);
  EXPECT_EQ(x, (std::vector<float>{5, 2, 0, 6, 7, 0}));  // joint c has no base pose: identity
  EXPECT_TRUE(has_warning(d,
                          "t.iqe:8:1: warning: animation \"w\": frame 0 has 1 poses for 3 joints: the others keep "
                          "their base pose"))
      << messages(d);
}

TEST(IqeAnimation, WithoutJointsTheFirstFrameSetsTheChannels) {
  Scene s = parse("animation w\nframe\npq\npq\nframe\npq\npq\n");
  EXPECT_EQ(s.animations[0].channels, 2u);
  EXPECT_EQ(s.animations[0].frame_count(), 2u);
  EXPECT_TRUE(s.joints.empty());
  EXPECT_EQ(error_of("animation w\nframe\npq\npq\nframe\npq\n"),
            "t.iqe:6:1: error: animation \"w\": frame 1 has 1 poses, expected 2 (as many as the first frame)");
}

TEST(IqeAnimation, EmptyFramesAreDroppedWithAWarning) {
  Diagnostics d;
  Scene s = parse("joint a\npq\nanimation w\nframe\nframe\npq\nframe\n", &d);
  EXPECT_EQ(s.animations[0].frame_count(), 1u);
  ASSERT_EQ(d.items.size(), 1u) << messages(d);
  EXPECT_EQ(d.items[0].message, "animation \"w\": frames without poses ignored");
}

TEST(IqeAnimation, CommandsBeforeAnyAnimationAreWarnings) {
  Diagnostics d;
  Scene s = parse("frame\nloop\nframerate 3\njoint a\npq\n", &d);
  EXPECT_TRUE(s.animations.empty());
  ASSERT_EQ(d.items.size(), 3u) << messages(d);
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:2:1: warning: frame before any animation command ignored");
  EXPECT_EQ(d.items[1].to_string(), "t.iqe:3:1: warning: loop before any animation command ignored");
  EXPECT_EQ(d.items[2].to_string(), "t.iqe:4:1: warning: framerate before any animation command ignored");
}

TEST(IqeAnimation, BadFramerateIsZero) {
  Diagnostics d;
  Scene s = parse("animation a\nframerate -5\nanimation b\nframerate\n", &d);
  EXPECT_EQ(s.animations[0].framerate, 0.0f);
  ASSERT_EQ(d.items.size(), 2u) << messages(d);
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:3:11: warning: framerate must be a finite number >= 0: 0 used");
  EXPECT_EQ(d.items[1].to_string(), "t.iqe:5:1: warning: framerate without a value ignored");
}

// ---- Syntax ----------------------------------------------------------------------------------------

TEST(IqeSyntax, CrlfTabsBlankLinesAndComments) {
  Diagnostics d;
  Scene s = parse_text(
      "# Inter-Quake Export\r\n\r\n# comment line\r\n\t mesh\t\"m\"  \r\n\tvp 1\t2 3 # trailing\r\n   \r\n"
      "vp 4 5 6#no space\r\nvp +7 -8 .5e1\r\n\tfm 0 1 2 # done\r\n",
      &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].name, "m");
  EXPECT_EQ(values(s.meshes[0], Attribute::Position), (std::vector<float>{1, 3, -2, 4, 6, -5, 7, 5, 8}));
}

TEST(IqeSyntax, SpecialNumbers) {
  Diagnostics d;
  Scene s = parse("mesh m\nvt nan inf\nvt -inf 1e-40\nvt 1e50 -1e-50\n", &d);
  const VertexStream* t = s.meshes[0].find(Attribute::Texcoord);
  EXPECT_TRUE(std::isnan(t->get(0, 0)));
  EXPECT_EQ(t->get(0, 1), INFINITY);
  EXPECT_EQ(t->get(1, 0), -INFINITY);
  EXPECT_EQ(t->get(1, 1), 1e-40f);
  EXPECT_EQ(t->get(2, 0), INFINITY);
  EXPECT_EQ(t->get(2, 1), 0.0f);
  EXPECT_TRUE(std::signbit(t->get(2, 1)));
  ASSERT_EQ(d.items.size(), 1u) << messages(d);
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:5:4: warning: number \"1e50\" is beyond float range: stored as infinity");
}

TEST(IqeSyntax, NumbersAreCorrectlyRounded) {
  // The reader's fast path for plain decimals must give exactly std::from_chars's float.
  std::vector<std::string> numbers = {"16777217",
                                      "16777219",
                                      "33554435",
                                      "0.1",
                                      "-0.70710677",
                                      "1.0024396e-06",
                                      "3.4028235e38",
                                      "3.4028236e38",
                                      "1.17549435e-38",
                                      "1.1754942e-38",
                                      "9007199254740993",
                                      "123456789012345",
                                      "1234567890123456",
                                      "1e22",
                                      "1e23",
                                      "1e-22",
                                      "0.000000000000000000001",
                                      "4.999999999999999e-1",
                                      "-0",
                                      "0.0e5",
                                      "7.",
                                      ".5",
                                      "00000000000000000000012",
                                      "0.50196078",
                                      "1E3",
                                      "2e+2"};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    std::string t = rng() % 2 ? "-" : "";
    for (int d = int(rng() % 9); d > 0; --d) t += char('0' + rng() % 10);
    if (rng() % 3) {
      t += '.';
      for (int d = int(rng() % 14); d > 0; --d) t += char('0' + rng() % 10);
    }
    if (rng() % 3 == 0) t += "e" + std::to_string(int(rng() % 61) - 30);
    numbers.push_back(t);
    // The shortest text of a random float, as writers produce.
    uint32_t bits = uint32_t(rng());
    float f;
    std::memcpy(&f, &bits, sizeof f);
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, f);
    numbers.emplace_back(buf, r.ptr);
  }
  std::string body = "mesh m\n";
  std::vector<std::string> used;
  std::vector<float> want;
  for (const auto& n : numbers) {
    float f;
    auto r = std::from_chars(n.data(), n.data() + n.size(), f);
    if (r.ec != std::errc() || r.ptr != n.data() + n.size() || std::isnan(f)) continue;
    body += "vt " + n + "\n";
    used.push_back(n);
    want.push_back(f);
  }
  Scene s = parse(body);
  const VertexStream* t = s.meshes[0].find(Attribute::Texcoord);
  ASSERT_EQ(t->vertex_count(), want.size());
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    float got = t->get(i, 0);
    if (std::memcmp(&got, &want[i], sizeof got) != 0 && bad++ < 10)
      ADD_FAILURE() << used[i] << ": read " << got << ", from_chars " << want[i];
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(want.size(), 150000u);
}

TEST(IqeSyntax, MalformedNumbersAreErrorsAtTheirColumn) {
  EXPECT_EQ(error_of("mesh m\nvp 1 x 3\n"), "t.iqe:3:6: error: malformed number \"x\"");
  EXPECT_EQ(error_of("mesh m\nvp 1 2 3,5\n"), "t.iqe:3:8: error: malformed number \"3,5\"");
  EXPECT_EQ(error_of("mesh m\n\tvt 0x10\n"), "t.iqe:3:5: error: malformed number \"0x10\"");
  EXPECT_EQ(error_of("mesh m\nvn +-1\n"), "t.iqe:3:4: error: malformed number \"+-1\"");
  EXPECT_EQ(error_of("mesh m\nvn -\n"), "t.iqe:3:4: error: malformed number \"-\"");
  EXPECT_EQ(error_of("joint a\npq 0 0 0 0 0 0 1 1 1 one\n"), "t.iqe:3:22: error: malformed number \"one\"");
  EXPECT_EQ(error_of("smoothgroup 3000000000\n"), "t.iqe:2:13: error: number out of range \"3000000000\"");
}

TEST(IqeSyntax, ExtraValuesAreIgnored) {
  Diagnostics d;
  Scene s = parse("mesh m\nvp 1 2 3 4 5 6 x\nvn 0 0 1 9 9\nvp\nvn\nvp\nvn\nfm 0 1 2\n", &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  EXPECT_EQ(s.meshes[0].find(Attribute::Position)->get(0, 0), 1.0f);
}

TEST(IqeSyntax, QuotedNamesEndAtTheNextQuote) {
  Diagnostics d;
  Scene s = parse("mesh \"my mesh \\\"x\\\" y\"\nmaterial \"open\n", &d);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].name, "my mesh \\");
  EXPECT_EQ(s.materials[0].name, "open");
  ASSERT_EQ(d.items.size(), 2u) << messages(d);
  EXPECT_EQ(d.items[0].to_string(), "t.iqe:2:17: warning: text after the name ignored: \"x\\\" y\"\"");
  EXPECT_EQ(d.items[1].to_string(), "t.iqe:3:10: warning: quoted name is not closed: it runs to the end of the line");
  // Unquoted names end at white space; a quoted one may hold '#'.
  s = parse("joint a#b\njoint \"# c\"\n");
  EXPECT_EQ(s.joints[0].name, "a#b");
  EXPECT_EQ(s.joints[1].name, "# c");
}

TEST(IqeSyntax, UnknownCommandsAreWarnedOnce) {
  Diagnostics d;
  Scene s = parse("MESH a\nvp\nMESH b\nVP 1\nv 1 2 3\nvp\nvp\n", &d);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
  ASSERT_EQ(d.items.size(), 3u) << messages(d);
  EXPECT_EQ(d.items[0].to_string(),
            "t.iqe:2:1: warning: unknown command \"MESH\" ignored (commands are case-sensitive)");
  EXPECT_EQ(d.items[1].to_string(), "t.iqe:5:1: warning: unknown command \"VP\" ignored (commands are case-sensitive)");
  EXPECT_EQ(d.items[2].to_string(), "t.iqe:6:1: warning: unknown command \"v\" ignored (commands are case-sensitive)");
}

TEST(IqeSyntax, LinesOfAnyLength) {
  std::string body = "mesh m\n";
  for (int i = 0; i < 5000; ++i) body += "vp " + std::to_string(i) + " 0.000000000000000000000000000000001 0\n";
  body += "fm";
  for (int i = 0; i < 5000; ++i) body += " " + std::to_string(i);
  body += "\n";
  Scene s = parse(body);
  EXPECT_EQ(s.meshes[0].polygon_sizes, (std::vector<uint32_t>{5000}));
  EXPECT_EQ(s.meshes[0].triangles.size(), 3u * 4998);
}

TEST(IqeSyntax, CommentSectionIsVerbatim) {
  Scene s = parse("mesh m\ncomment # ignored\nfirst\r\n\n  vp 1 2 3\n\"x\"");
  EXPECT_EQ(s.comment, "first\r\n\n  vp 1 2 3\n\"x\"");
  EXPECT_EQ(s.meshes[0].vertex_count(), 0u);  // commands in the comment are not read
  EXPECT_EQ(parse("comment").comment, "");
  EXPECT_EQ(parse("comment\n").comment, "");
  EXPECT_EQ(parse("comment\r\n\r\n").comment, "\r\n");
}

TEST(IqeSyntax, ArbitraryInputNeverCrashes) {
  // Random lines built from IQE words, numbers and junk: every outcome is a Scene or an Error.
  const std::vector<std::string> words = {
      "vp",          "vt",          "vn",        "vx",      "vb",       "vc",
      "v0",          "v3",          "vs",        "fa",      "fm",       "fs",
      "pq",          "pm",          "pa",        "mesh",    "material", "joint",
      "animation",   "frame",       "framerate", "loop",    "smoothuv", "smoothgroup",
      "smoothangle", "vertexarray", "custom0",   "custom3", "position", "blendindexes",
      "texcoord",    "color",       "ubyte",     "half",    "float",    "0",
      "1",           "2",           "-1",        "-3",      "7",        "100",
      "0.5",         "-0.5",        "nan",       "1e39",    "\"",       "\"a b\"",
      "#",           "x",           "\t",        "\r"};
  std::mt19937 rng(12345);
  size_t ok = 0, errors = 0;
  for (int file = 0; file < 3000; ++file) {
    std::string text = kHeader;
    int lines = 1 + int(rng() % 12);
    for (int l = 0; l < lines; ++l) {
      int n = int(rng() % 8);
      for (int w = 0; w < n; ++w) text += words[rng() % words.size()] + (rng() % 5 ? " " : "");
      text += rng() % 7 ? "\n" : "\r\n";
    }
    try {
      Diagnostics d;
      Scene s = iqe::read(text, "fuzz.iqe", d);
      ++ok;
      Diagnostics wd;
      std::string out = iqe::write(s, wd);
      Diagnostics rd;
      iqe::read(out, "fuzz-out.iqe", rd);
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(ok, 100u);
  EXPECT_GT(errors, 100u);
}

TEST(IqeErrors, UnevenArraysPointAtTheMesh) {
  EXPECT_EQ(error_of("vertexarray custom1 float 2\nmesh one\nvp\nvp\nmesh two\nvp\nvt\nvn\nvx\nvb\nvc\nv1\nvp\n"),
            "t.iqe:6:1: error: mesh \"two\": vertex arrays have different lengths (vp 2, vt 1, vn 1, vx 1, vb 1, vc 1, "
            "v1 1); each must have one entry per vertex");
  EXPECT_EQ(error_of("\n\nvp\nvt\nvp\n"),
            "t.iqe:4:1: error: the vertices before the first mesh command: vertex arrays have different lengths (vp 2, "
            "vt 1); each must have one entry per vertex");
}

// ---- Corpus edge cases (../shared/corpus/iqm/edge-cases/README.txt) ------------------------------

TEST(IqeCorpus, QuadsHaveTwoTriangles) {
  IQE_REQUIRE_CORPUS();
  for (const char* name : {"quadA.iqe", "quadB.iqe"}) {
    Diagnostics d;
    Scene s = edge(name, &d);
    EXPECT_TRUE(d.items.empty()) << messages(d);
    ASSERT_EQ(s.meshes.size(), 1u);
    EXPECT_EQ(s.meshes[0].vertex_count(), 4u);
    EXPECT_EQ(values(s.meshes[0], Attribute::Normal), (std::vector<float>{0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0}));
  }
  EXPECT_EQ(edge("quadA.iqe").meshes[0].triangles, (std::vector<uint32_t>{0, 3, 1, 1, 3, 2}));
  EXPECT_EQ(edge("quadB.iqe").meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1, 0, 3, 2}));
}

TEST(IqeCorpus, RepeatedMeshNameStaysSeparate) {
  IQE_REQUIRE_CORPUS();
  Scene s = edge("dupmesh.iqe");
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[0].name, "A");
  EXPECT_EQ(s.meshes[1].name, "B");
  EXPECT_EQ(s.meshes[2].name, "A");
  EXPECT_EQ(s.meshes[0].material, s.meshes[2].material);
  EXPECT_EQ(s.materials.size(), 2u);
  for (const auto& m : s.meshes) EXPECT_EQ(m.triangles, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(s.meshes[2].find(Attribute::Position)->get(0, 1), 2.0f);  // file z = 2
}

TEST(IqeCorpus, SmoothingAnglesAreKept) {
  IQE_REQUIRE_CORPUS();
  EXPECT_TRUE(edge("smoothdef.iqe").meshes[0].smoothing.face_angle.empty());
  EXPECT_EQ(edge("smooth.iqe").meshes[0].smoothing.face_angle, (std::vector<float>{180, 180}));
  EXPECT_EQ(edge("smooth30.iqe").meshes[0].smoothing.face_angle, (std::vector<float>{30, 30}));
  EXPECT_EQ(edge("smooth170.iqe").meshes[0].smoothing.face_angle, (std::vector<float>{170, 170}));
  for (const char* name : {"smoothdef.iqe", "smooth.iqe", "smooth30.iqe", "smooth170.iqe"}) {
    Scene s = edge(name);
    EXPECT_EQ(s.meshes[0].vertex_count(), 6u) << name;
    EXPECT_EQ(s.meshes[0].find(Attribute::Normal), nullptr) << name;  // nothing generated
  }
}

TEST(IqeCorpus, LongPolygon) {
  IQE_REQUIRE_CORPUS();
  Scene s = edge("longpoly.iqe");
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].polygon_sizes, (std::vector<uint32_t>{200}));
  EXPECT_EQ(s.meshes[0].triangles.size(), 198u * 3);
}

TEST(IqeCorpus, OutOfRangeIndex) {
  IQE_REQUIRE_CORPUS();
  EXPECT_EQ(edge_error("oor.iqe"), "t.iqe:6:8: error: face index 100000 out of range: the file has 3 vertices");
}

TEST(IqeCorpus, BoneIndexAbove255AndSixWeights) {
  IQE_REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = edge("bone.iqe", &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.find(Attribute::BlendIndices)->components, 6u);
  EXPECT_EQ(values(m, Attribute::BlendIndices),
            (std::vector<float>{300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(values(m, Attribute::BlendWeights),
            (std::vector<float>{0.5f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}));
}

TEST(IqeCorpus, UnknownComponentTypeIsIgnored) {
  IQE_REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = edge("badfmt.iqe", &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(),
            "badfmt.iqe:2:22: warning: unknown vertexarray component type \"bogus\": line ignored");
  const VertexStream* p = s.meshes[0].find(Attribute::Position);
  EXPECT_EQ(p->format, ComponentType::Float);
  EXPECT_EQ(p->data, (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 0, -1}));
}

TEST(IqeCorpus, DeclaredFormatsAreKeptAndValuesAsGiven) {
  IQE_REQUIRE_CORPUS();
  Scene s = edge("fmt.iqe");
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.find(Attribute::Position)->format, ComponentType::UByte);
  EXPECT_EQ(m.find(Attribute::Position)->get(2, 2), -0.5f);  // file y 0.5 -> Scene -z, not quantised
  const VertexStream* t = m.find(Attribute::Texcoord);
  EXPECT_EQ(t->format, ComponentType::Half);
  EXPECT_EQ(t->get(0, 1), 70000.0f);
  EXPECT_EQ(t->get(1, 1), 1e-7f);
  EXPECT_TRUE(std::isnan(t->get(2, 1)));
}

TEST(IqeCorpus, NamesCrlfAndComment) {
  IQE_REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = edge("names.iqe", &d);
  ASSERT_EQ(s.meshes.size(), 1u);  // `MESH upper` is not a mesh command
  EXPECT_EQ(s.meshes[0].name, "my mesh \\");
  ASSERT_EQ(s.materials.size(), 1u);
  EXPECT_EQ(s.materials[0].name, "mat one");
  EXPECT_EQ(s.meshes[0].vertex_count(), 6u);  // the vertices after MESH still belong to it
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1, 0, 2, 1}));
  EXPECT_EQ(s.comment, "hello world\r\nline2\r\n");  // byte-exact, CR LF included
  EXPECT_TRUE(has_warning(d, "names.iqe:1:1: warning: white space before the header")) << messages(d);
  EXPECT_TRUE(has_warning(d, "names.iqe:3:17: warning: text after the name ignored")) << messages(d);
  EXPECT_TRUE(has_warning(d, "names.iqe:9:1: warning: unknown command \"MESH\"")) << messages(d);
  EXPECT_EQ(d.items.size(), 3u) << messages(d);
}

TEST(IqeCorpus, HeaderWithoutSpace) {
  IQE_REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = edge("hdr2.iqe", &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].line, 1u);
  EXPECT_EQ(s.meshes.size(), 1u);
}

TEST(IqeCorpus, NoFaces) {
  IQE_REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = edge("noface.iqe", &d);
  EXPECT_TRUE(d.items.empty()) << messages(d);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].name, "");
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1}));
}

TEST(IqeCorpus, AbsoluteIndicesAreFileLocal) {
  IQE_REQUIRE_CORPUS();
  Scene m1 = edge("m1.iqe");
  Scene m2 = edge("m2.iqe");
  ASSERT_EQ(m2.meshes.size(), 1u);
  EXPECT_EQ(m2.meshes[0].vertex_count(), 3u);
  EXPECT_EQ(m2.meshes[0].triangles, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(m2.meshes[0].find(Attribute::Position)->get(0, 1), 5.0f);
  EXPECT_EQ(m1.joints.size(), 1u);
  EXPECT_EQ(m1.joints[0].rest.rotation, (std::array<float, 4>{0, 0, 0, -1}));
}

TEST(IqeCorpus, ThreeJointAnimation) {
  IQE_REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = edge("anim3.iqe", &d);
  ASSERT_EQ(s.joints.size(), 3u);
  EXPECT_EQ(s.joints[2].parent, 1);
  EXPECT_EQ(s.joints[2].rest.translation, (std::array<float, 3>{0, 1, 0}));
  ASSERT_EQ(s.animations.size(), 1u);
  const Animation& a = s.animations[0];
  EXPECT_EQ(a.name, "walk");
  EXPECT_EQ(a.framerate, 10.0f);
  EXPECT_EQ(a.channels, 3u);
  ASSERT_EQ(a.frame_count(), 2u);
  // Its frames give one pose each (for joint x); y and z keep their base poses.
  EXPECT_EQ(a.poses[0].rotation, (std::array<float, 4>{0, 0, 0, 1}));
  EXPECT_EQ(a.poses[1], s.joints[1].rest);
  EXPECT_EQ(a.poses[3].translation, (std::array<float, 3>{1, 0, 0}));
  EXPECT_EQ(a.poses[3].rotation, (std::array<float, 4>{0.5f, 0, 0, -std::sqrt(0.75f)}));
  EXPECT_EQ(a.poses[5], s.joints[2].rest);
  EXPECT_EQ(d.warning_count(), 1u) << messages(d);
}

TEST(IqeCorpus, UnweightedVertex) {
  IQE_REQUIRE_CORPUS();
  Scene s = edge("unweighted.iqe");
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(values(m, Attribute::BlendIndices), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(values(m, Attribute::BlendWeights), (std::vector<float>{1, 1, 0}));
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].frame_count(), 2u);
  EXPECT_EQ(s.animations[0].poses[1].translation, (std::array<float, 3>{0, 1, 0}));
}

TEST(IqeCorpus, CustomArraysAndColour) {
  IQE_REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = edge("custom.iqe", &d);
  const Mesh& m = s.meshes[0];
  ASSERT_EQ(m.streams.size(), 3u);  // position, colour, custom3
  const VertexStream* c = custom_stream(m);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name, "lightmap uv");
  EXPECT_EQ(c->custom_slot, 3);
  EXPECT_EQ(c->format, ComponentType::UShort);
  EXPECT_EQ(c->source_size, 2u);
  EXPECT_EQ(c->data, (std::vector<float>{0.5f, 0.25f, 1, 1, 0, 0}));
  const VertexStream* col = m.find(Attribute::Color);
  EXPECT_EQ(col->components, 3u);
  EXPECT_EQ(col->data, (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(), "custom.iqe:5:1: warning: v0 ignored: custom0 has no vertexarray declaration");
}

TEST(IqeCorpus, UnevenArrays) {
  IQE_REQUIRE_CORPUS();
  EXPECT_EQ(edge_error("uneven.iqe"),
            "t.iqe:2:1: error: mesh \"m\": vertex arrays have different lengths (vp 3, vt 1); each must have one entry "
            "per vertex");
}

TEST(IqeCorpus, Mrfixit) {
  IQE_REQUIRE_CORPUS();
  std::string text = file_text(corpus_dir() + "/derived/mrfixit.iqe");
  Diagnostics d;
  auto t0 = std::chrono::steady_clock::now();
  Scene s = iqe::read(text, "mrfixit.iqe", d);
  auto t1 = std::chrono::steady_clock::now();
  std::string out = iqe::write(s, d);
  auto t2 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("mrfixit.iqe (%zu bytes): read %.2f ms, write %.2f ms\n", text.size(), ms(t0, t1), ms(t1, t2));
  EXPECT_TRUE(d.items.empty()) << messages(d);
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].name, "Body");
  EXPECT_EQ(s.meshes[1].name, "Head");
  EXPECT_EQ(s.meshes[0].vertex_count(), 1476u);
  EXPECT_EQ(s.meshes[1].vertex_count(), 385u);
  EXPECT_EQ(s.meshes[0].triangles.size(), 2386u * 3);
  EXPECT_EQ(s.meshes[1].triangles.size(), 602u * 3);
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].base_color_texture, "Body.tga");
  EXPECT_EQ(s.joints.size(), 75u);
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].name, "idle");
  EXPECT_EQ(s.animations[0].frame_count(), 101u);
  EXPECT_EQ(s.animations[0].framerate, 24.0f);
  EXPECT_FALSE(s.animations[0].loop);
  for (const auto& m : s.meshes) {
    EXPECT_EQ(m.streams.size(), 6u);
    EXPECT_TRUE(m.smoothing.empty());
    EXPECT_TRUE(m.polygon_sizes.empty());
  }
  // First vertex: file "vp -0.178719 -0.85719001 4.3136139", "vx ... 1", "vb 6 0.50196078 5 0.49803922".
  const Mesh& body = s.meshes[0];
  EXPECT_EQ(body.find(Attribute::Position)->get(0, 1), 4.3136139f);
  EXPECT_EQ(body.find(Attribute::Position)->get(0, 2), 0.85719001f);
  EXPECT_EQ(body.find(Attribute::Tangent)->get(0, 3), 1.0f);
  EXPECT_EQ(body.find(Attribute::BlendIndices)->get(0, 1), 5.0f);
  EXPECT_EQ(body.find(Attribute::BlendWeights)->get(0, 0), 0.50196078f);
  EXPECT_EQ(s.meshes[1].find(Attribute::Tangent)->get(0, 3), -1.0f);
  // Round trip.
  Diagnostics rd;
  Scene back = iqe::read(out, "written.iqe", rd);
  EXPECT_TRUE(rd.items.empty()) << messages(rd);
  EXPECT_TRUE(back == s);
}

TEST(IqeRoundTrip, EveryEdgeCaseThatReads) {
  IQE_REQUIRE_CORPUS();
  size_t tried = 0;
  for (const auto& e : std::filesystem::directory_iterator(corpus_dir() + "/edge-cases")) {
    if (e.path().extension() != ".iqe") continue;
    std::string name = e.path().filename().string();
    Scene s;
    try {
      s = edge(name);
    } catch (const Error&) {
      EXPECT_TRUE(name == "oor.iqe" || name == "uneven.iqe") << name;
      continue;
    }
    expect_round_trip(s, name);
    ++tried;
  }
  EXPECT_EQ(tried, 19u);  // 21 files, 2 of them errors
}

TEST(IqeRoundTrip, EveryCommand) {
  Diagnostics d;
  std::string text = file_text(std::string(MESHPORT_TEST_DATA) + "/iqe/all-commands.iqe");
  Scene s = iqe::read(text, "all-commands.iqe", d);
  ASSERT_EQ(d.items.size(), 1u) << messages(d);
  EXPECT_EQ(d.items[0].to_string(),
            "all-commands.iqe:63:1: warning: mesh \"second\": its faces use vertices of other meshes that have other "
            "vertex arrays; missing values are defaulted");
  ASSERT_EQ(s.meshes.size(), 2u);
  const Mesh& body = s.meshes[0];
  EXPECT_EQ(body.polygon_sizes, (std::vector<uint32_t>{4, 3}));
  EXPECT_EQ(body.triangles, (std::vector<uint32_t>{0, 3, 2, 0, 2, 1, 0, 1, 2}));
  EXPECT_EQ(body.smoothing.face_uv, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(body.smoothing.face_group, (std::vector<int32_t>{3, 3}));
  EXPECT_EQ(body.smoothing.face_angle, (std::vector<float>{45, 45}));
  EXPECT_EQ(body.smoothing.corner_edge, (std::vector<uint8_t>{1, 1, 0, 1, 1, 1, 0}));
  EXPECT_EQ(body.smoothing.vertex_key, (std::vector<int32_t>{0, 1, 2, 2}));
  // vertex 1: n = +Z, t = +X, b = +Y: cross(n, t) = +Y, so +1; vertex 2: "vx 1 0 0 -1".
  EXPECT_EQ(body.find(Attribute::Tangent)->get(1, 3), 1.0f);
  EXPECT_EQ(body.find(Attribute::Tangent)->get(2, 3), -1.0f);
  EXPECT_EQ(s.meshes[1].find(Attribute::Texcoord), nullptr);
  EXPECT_EQ(s.meshes[1].find(Attribute::Normal)->get(3, 1), 1.0f);  // copied from body: file +Z
  EXPECT_EQ(body.find(Attribute::BlendIndices)->components, 2u);  // "vb 1 0.25 2 0.75 0 0": (0, 0) is no influence
  EXPECT_EQ(body.find(Attribute::BlendIndices)->format, ComponentType::UShort);
  EXPECT_EQ(custom_stream(body)->name, "wind");
  const Mesh& second = s.meshes[1];
  EXPECT_EQ(second.vertex_count(), 5u);  // 3 own + 2 copied from "body"
  EXPECT_EQ(second.smoothing.face_uv, (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(second.smoothing.face_group, (std::vector<int32_t>{-1, -1}));
  EXPECT_TRUE(second.smoothing.vertex_key.empty());
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[1].base_color_texture, "body.PNG");
  ASSERT_EQ(s.joints.size(), 3u);
  EXPECT_EQ(s.joints[2].name, "third one");
  ASSERT_EQ(s.animations.size(), 2u);
  EXPECT_EQ(s.animations[0].frame_count(), 2u);
  EXPECT_TRUE(s.animations[0].loop);
  EXPECT_EQ(s.animations[1].name, "animation2");
  EXPECT_EQ(s.animations[1].frame_count(), 1u);
  EXPECT_EQ(s.comment, "Free text, kept verbatim:\n  \"quotes\", # hashes, and a last line without a newline.");
  expect_round_trip(s, "all-commands.iqe");
}

// ---- Writer ----------------------------------------------------------------------------------------

TEST(IqeWrite, EmptyScene) { EXPECT_EQ(iqe_text(Scene{}), "# Inter-Quake Export\n"); }

TEST(IqeWrite, ExactText) {
  Scene s = parse(
      "joint \"root\" -1\npq 1 2 3 0 0 0 1\njoint arm 0\npq 0 0 0 0 0 0 -1 2 2 2\n"
      "vertexarray texcoord half 2\n"
      "mesh body\nmaterial skin\nvp 0.1 0 1e-07\nvt 0.5 0.25\nvp 1 0 0\nvt 0 0\nvp 0 1 0\nvt 1 1\nvp 1 1 0\nvt 0 1\n"
      "fm 0 1 2 3\nfm 0 2 1\n"
      "animation \"idle\"\nframerate 24\nloop\nframe\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\ncomment\nabc");
  EXPECT_EQ(iqe_text(s),
            "# Inter-Quake Export\n"
            "joint \"root\" -1\npq 1 2 3 0 0 0 1\n"
            "joint \"arm\" 0\npq 0 0 0 0 0 0 -1 2 2 2\n"
            "mesh \"body\"\n"
            "vertexarray texcoord half 2\n"
            "material \"skin\"\n"
            "vp 0.1 0 1e-07\nvt 0.5 0.25\nvp 1 0 0\nvt 0 0\nvp 0 1 0\nvt 1 1\nvp 1 1 0\nvt 0 1\n"
            "fm 0 1 2 3\nfm 0 2 1\n"
            "animation \"idle\"\nframerate 24\nloop\nframe\npq 0 0 0 0 0 0 1\npq 0 0 0 0 0 0 1\n"
            "comment\nabc");
}

TEST(IqeWrite, CustomStreamsGetASlotAndADeclaration) {
  Scene s;
  Mesh m;
  m.name = "m";
  VertexStream p{Attribute::Position, "", -1, ComponentType::Float, 0, 3, {0, 0, 0}};
  VertexStream a{Attribute::Custom, "wind", -1, ComponentType::Float, 0, 2, {1, 2}};
  VertexStream b{Attribute::Custom, "heat", 0, ComponentType::UByte, 1, 1, {0.5f}};
  m.streams = {p, a, b};
  s.meshes.push_back(m);
  std::string text = iqe_text(s);
  EXPECT_NE(text.find("vertexarray custom0 ubyte 1 \"heat\"\nvertexarray custom1 float 2 \"wind\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("vp 0 0 0\nv0 0.5\nv1 1 2\n"), std::string::npos) << text;
  Scene back = parse_text(text);
  ASSERT_EQ(back.meshes[0].streams.size(), 3u);
  EXPECT_EQ(back.meshes[0].streams[1].name, "heat");
  EXPECT_EQ(back.meshes[0].streams[2].custom_slot, 1);
}

TEST(IqeWrite, QuotesInNamesBecomeApostrophes) {
  Scene s;
  Joint j;
  j.name = "say \"hi\"\nnow";
  s.joints.push_back(j);
  Diagnostics d;
  std::string text = iqe_text(s, &d);
  EXPECT_NE(text.find("joint \"say 'hi' now\" -1\n"), std::string::npos) << text;
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].severity, Severity::Warning);
}

TEST(IqeWrite, AxesAndWindingAreConvertedBack) {
  Scene s;
  Mesh m;
  m.streams.push_back({Attribute::Position, "", -1, ComponentType::Float, 3, 3, {1, 3, -2, 0, 0, 0, 0, 1, 0}});
  m.streams.push_back({Attribute::Tangent, "", -1, ComponentType::Float, 4, 4, {0, 1, 0, -1, 0, 1, 0, 1, 0, 0, 1, 1}});
  m.triangles = {0, 2, 1};
  s.meshes.push_back(m);
  s.joints.push_back({"j", -1, {{1, 3, -2}, {0.1f, 0.3f, -0.2f, 0.9f}, {2, 4, 3}}});
  std::string text = iqe_text(s);
  EXPECT_NE(text.find("pq 1 2 3 0.1 0.2 0.3 0.9 2 3 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("vp 1 2 3\nvx 0 0 1 -1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fm 0 1 2\n"), std::string::npos) << text;
}

// Issue 16: only real influences are written (no padding pairs); pairs of weight 0 are no
// influence when read, so the count is that of the widest vertex's influences.
TEST(IqeWrite, BlendPairsAreOnlyRealInfluences) {
  Scene s = parse("mesh m\nvb\nvb 1 1\nvb 2 0.5 0 0\nvb 3 0 0 0\n");
  EXPECT_EQ(s.meshes[0].find(Attribute::BlendIndices)->components, 1u);
  std::string text = iqe_text(s);
  EXPECT_NE(text.find("vb\nvb 1 1\nvb 2 0.5\nvb\n"), std::string::npos) << text;
  EXPECT_TRUE(parse_text(text) == s);
}

TEST(IqeWrite, SmoothingIsWrittenOnlyWhereUsed) {
  Scene s = parse("mesh m\nvp\nvp\nvp\nfm 0 1 2\n");
  EXPECT_EQ(iqe_text(s).find("smooth"), std::string::npos);
  s = parse("smoothangle 180\nmesh m\nvp\nvp\nvp\nfm 0 1 2\nfm 0 1 2\n");
  std::string text = iqe_text(s);
  EXPECT_NE(text.find("smoothangle 180\nfm 0 1 2\nfm 0 1 2\n"), std::string::npos) << text;
  EXPECT_TRUE(parse_text(text) == s);
}

TEST(IqeWrite, InvalidScenesAreErrorsNotCrashes) {
  Scene s;
  Mesh m;
  m.name = "bad";
  m.streams.push_back({Attribute::Position, "", -1, ComponentType::Float, 3, 3, {0, 0, 0}});
  m.triangles = {0, 0, 1};
  s.meshes.push_back(m);
  Diagnostics d;
  try {
    iqe::write(s, d);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, "mesh \"bad\": triangle index 1 out of range");
  }
  // polygon_sizes that do not describe fans are written as triangles, with a warning.
  s.meshes[0].streams[0].data = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  s.meshes[0].triangles = {0, 1, 2, 1, 3, 2};
  s.meshes[0].polygon_sizes = {4};
  std::string text = iqe::write(s, d);
  EXPECT_NE(text.find("fm 0 2 1\nfm 1 2 3\n"), std::string::npos) << text;
  EXPECT_EQ(d.warning_count(), 1u);
}

TEST(IqeWrite, IqmOnlyDataIsAWarning) {
  Scene s;
  s.iqm.emplace().extensions.push_back({"ext", {1, 2, 3}});
  Diagnostics d;
  iqe::write(s, d);
  EXPECT_EQ(d.warning_count(), 1u);
}

}  // namespace meshport_test_iqe
