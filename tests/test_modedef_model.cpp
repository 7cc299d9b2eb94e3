// ModeDef .model (docs/modedef.md): the parsed values of hand-written fixtures
// (tests/data/modedef), index base and FEND detection, every error at its token, truncated and
// hostile input, parse -> print -> parse identity (fixtures and random models), the Scene mapping,
// and the writer (kept model, model derived from any Scene).
#include <meshport/meshport.h>

#include "formats/modedef/modedef.h"
#include "formats/modedef/modedef_token.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace meshport_test_modedef_model {

using namespace meshport;

namespace {

std::string fixture_path(const std::string& name) { return std::string(MESHPORT_TEST_DATA) + "/modedef/" + name; }

std::string fixture_text(const std::string& name) {
  std::string text = testutil::slurp(fixture_path(name));
  EXPECT_FALSE(text.empty()) << name;
  return text;
}

ModeDefModel parse(const std::string& text, const std::string& name = "x.model", Diagnostics* diags = nullptr) {
  Diagnostics local;
  return modedef::parse_model(text, name, diags ? *diags : local);
}

ModeDefModel parse_fixture(const std::string& name, Diagnostics* diags = nullptr) {
  return parse(fixture_text(name), name, diags);
}

std::string error_of_text(const std::string& text, const std::string& name = "x.model") {
  Diagnostics d;
  try {
    modedef::parse_model(text, name, d);
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().to_string(), std::string(e.what()));
    return e.what();
  }
  return "no error";
}

std::vector<std::string> messages(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const Diagnostic& i : d.items) out.push_back(i.to_string());
  return out;
}

const std::vector<std::string> kValidFixtures = {"full.model",           "one-based.model",
                                                 "fend-exclusive.model", "fend-exclusive-1based.model",
                                                 "fend-inclusive.model", "ambiguous.model",
                                                 "no-carton.model"};

std::vector<float> stream_of(const Mesh& m, Attribute a) {
  const VertexStream* s = m.find(a);
  return s ? s->data : std::vector<float>{};
}

// ---- Parsed values -------------------------------------------------------------------------------

TEST(ModeDefModelParse, EveryFieldOfTheFullFixture) {
  Diagnostics d;
  const ModeDefModel m = parse_fixture("full.model", &d);
  EXPECT_TRUE(d.items.empty()) << messages(d).front();
  EXPECT_EQ(m.eigenvalues, (std::vector<float>{100, 400}));
  EXPECT_EQ(m.eigenvectors, (std::vector<float>{0, 0, 0, 0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f,  //
                                                0, 1, 0, 0, -1, 0, 1, 0, 0, 0, 0, -1}));
  EXPECT_EQ(m.rest, (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(m.node_count(), 4u);
  EXPECT_EQ(m.mode_count(), 2u);
  using V3 = std::array<float, 3>;
  using V2 = std::array<float, 2>;
  EXPECT_EQ(m.vertices, (std::vector<V3>{{0, 0, 0}, {0.5f, 0, 0}, {0.5f, 0.5f, 0}, {0, 0.5f, 0}}));
  EXPECT_EQ(m.normals, (std::vector<V3>{{0, 0, 1}, {0, 0, -1}}));
  EXPECT_EQ(m.texcoords, (std::vector<V2>{{0, 0}, {1, 0}, {0.25f, 0.75f}}));
  ASSERT_EQ(m.faces.size(), 3u);
  EXPECT_EQ(m.faces[0].vertex, (std::array<int32_t, 3>{0, 1, 2}));
  EXPECT_EQ(m.faces[0].normal, (std::array<int32_t, 3>{0, 0, 0}));
  EXPECT_EQ(m.faces[0].texcoord, (std::array<int32_t, 3>{0, 1, 2}));
  EXPECT_EQ(m.faces[1].vertex, (std::array<int32_t, 3>{0, 2, 3}));
  EXPECT_EQ(m.faces[1].normal, (std::array<int32_t, 3>{0, 0, 1}));
  EXPECT_EQ(m.faces[1].texcoord, (std::array<int32_t, 3>{0, 2, 1}));
  EXPECT_EQ(m.faces[2].vertex, (std::array<int32_t, 3>{0, 3, 1}));
  EXPECT_EQ(m.faces[2].normal, (std::array<int32_t, 3>{1, 1, 1}));
  EXPECT_EQ(m.faces[2].texcoord, (std::array<int32_t, 3>{0, 1, 2}));
  ASSERT_EQ(m.materials.size(), 2u);
  EXPECT_EQ(m.materials[0].ambient, (std::array<float, 4>{0.1f, 0.1f, 0.1f, 1}));
  EXPECT_EQ(m.materials[0].diffuse, (std::array<float, 4>{0.8f, 0.2f, 0.2f, 1}));
  EXPECT_EQ(m.materials[0].specular, (std::array<float, 4>{0.5f, 0.5f, 0.5f, 1}));
  EXPECT_EQ(m.materials[0].emissive, (std::array<float, 4>{0, 0, 0, 1}));
  EXPECT_EQ(m.materials[0].specular_strength, 32.0f);
  EXPECT_EQ(m.materials[1].ambient, (std::array<float, 4>{0.2f, 0.2f, 0.2f, 1}));
  EXPECT_EQ(m.materials[1].diffuse, (std::array<float, 4>{0.2f, 0.8f, 0.2f, 0.5f}));
  EXPECT_EQ(m.materials[1].specular, (std::array<float, 4>{1, 1, 1, 1}));
  EXPECT_EQ(m.materials[1].emissive, (std::array<float, 4>{0.1f, 0, 0, 1}));
  EXPECT_EQ(m.materials[1].specular_strength, 8.0f);
  EXPECT_EQ(m.groups, (std::vector<ModeDefGroup>{{0, 0, 1}, {1, 1, 0}}));
  EXPECT_EQ(m.tets, (std::vector<std::array<int32_t, 4>>{{0, 1, 2, 3}}));
  EXPECT_TRUE(m.carton);
  EXPECT_EQ(m.carton_vertices, (std::vector<ModeDefCartonVertex>{{0, {1, 0, 0, 0}},
                                                                 {0, {0.5f, 0.5f, 0, 0}},
                                                                 {0, {0, 0.5f, 0.5f, 0}},
                                                                 {0, {0.5f, 0, 0.5f, 0}}}));
  EXPECT_EQ(m.indexing, (ModeDefIndexing{0, 0, true, 0, 0}));
}

TEST(ModeDefModelParse, OneBasedFamiliesReadAsTheZeroBasedModel) {
  Diagnostics d;
  const ModeDefModel one = parse_fixture("one-based.model", &d);
  EXPECT_TRUE(d.items.empty());
  EXPECT_EQ(one.indexing, (ModeDefIndexing{1, 1, true, 1, 1}));
  ModeDefModel zero = parse_fixture("full.model");
  zero.indexing = one.indexing;
  EXPECT_EQ(one, zero);
  // Written back 1-based.
  EXPECT_NE(modedef::print_model(one).find("\n1 1 1 2 1 2 3 1 3\n"), std::string::npos);
}

// One family at a time: a 0-based and a 1-based variant of a minimal file.
std::string tiny_model(const std::string& faces, const std::string& groups, const std::string& tets,
                       const std::string& carton, int ngroups = 1, int ntets = 1) {
  return "1 12\n7\n0 0 0 1 0 0 0 1 0 0 0 1\n0 0 0 1 0 0 0 1 0 0 0 1\n4 0 0 2 2 " + std::to_string(ngroups) +
         "\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n" + faces + "\n0 0 0 1 1 1 1 1 0 0 0 1 0 0 0 1 0\n" +
         "0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 1 0\n" + groups + "\n" + std::to_string(ntets) + "\n" + tets + "\n" + carton +
         "\n";
}
const char* kCarton0 = "1 4  0 1 0 0 0  0 0 1 0 0  0 0 0 1 0  0 0 0 0 1";

TEST(ModeDefModelParse, IndexBasePerFamily) {
  struct Case {
    std::string text;
    ModeDefIndexing indexing;
  };
  const std::vector<Case> cases = {
      // Faces: some index 0 -> 0-based; none 0 and one equal to #V (4) -> 1-based.
      {tiny_model("0 0 0 1 0 0 2 0 0  1 0 0 2 0 0 3 0 0", "0 1 1", "0 1 2 3", kCarton0), {0, 0, true, 0, 0}},
      {tiny_model("1 5 5 2 5 5 3 5 5  2 5 5 3 5 5 4 5 5", "0 1 1", "0 1 2 3", kCarton0), {1, 0, true, 0, 0}},
      // Groups: smallest FSTART 1 -> 1-based (material 2 is then material 1).
      {tiny_model("0 0 0 1 0 0 2 0 0  1 0 0 2 0 0 3 0 0", "1 2 2", "0 1 2 3", kCarton0), {0, 1, true, 0, 0}},
      // Tetrahedra: node 4 = node count -> 1-based.
      {tiny_model("0 0 0 1 0 0 2 0 0  1 0 0 2 0 0 3 0 0", "0 1 1", "1 2 3 4", kCarton0), {0, 0, true, 1, 0}},
      // Carton: tetrahedron 1 = #TET -> 1-based.
      {tiny_model("0 0 0 1 0 0 2 0 0  1 0 0 2 0 0 3 0 0", "0 1 1", "0 1 2 3",
                  "1 4  1 1 0 0 0  1 0 1 0 0  1 0 0 1 0  1 0 0 0 1"),
       {0, 0, true, 0, 1}},
  };
  for (const Case& c : cases) {
    Diagnostics d;
    const ModeDefModel m = parse(c.text, "x.model", &d);
    EXPECT_TRUE(d.items.empty()) << c.text;
    EXPECT_EQ(m.indexing, c.indexing) << c.text;
    // Whatever the base, the indices are stored 0-based.
    EXPECT_EQ(m.faces[1].vertex, (std::array<int32_t, 3>{1, 2, 3})) << c.text;
    EXPECT_EQ(m.groups, (std::vector<ModeDefGroup>{{0, 1, 1}})) << c.text;
    EXPECT_EQ(m.tets[0], (std::array<int32_t, 4>{0, 1, 2, 3})) << c.text;
    EXPECT_EQ(m.carton_vertices[3].tet, 0) << c.text;
    EXPECT_EQ(parse(modedef::print_model(m)), m) << c.text;
  }
}

TEST(ModeDefModelParse, FaceBaseIgnoresNormalsAndTexcoordsOfAModelWithout) {
  // #N = #T = 0: their indices (0 here) neither make the faces 0-based nor are checked.
  const std::string text = "0 0\n3 0 0 1 0 0\n0 0 0 1 0 0 0 1 0\n1 0 -4 2 0 -4 3 0 -4\n0\n0\n";
  const ModeDefModel m = parse(text);
  EXPECT_EQ(m.indexing.face_base, 1);
  EXPECT_EQ(m.faces[0].vertex, (std::array<int32_t, 3>{0, 1, 2}));
  EXPECT_EQ(m.faces[0].normal, (std::array<int32_t, 3>{0, 0, 0}));       // kept as written
  EXPECT_EQ(m.faces[0].texcoord, (std::array<int32_t, 3>{-4, -4, -4}));  // kept as written
  EXPECT_EQ(modedef::print_model(m).find("1 0 -4 2 0 -4 3 0 -4\n") != std::string::npos, true);
}

TEST(ModeDefModelParse, AmbiguousBasesWarnPerFamily) {
  Diagnostics d;
  const ModeDefModel m = parse_fixture("ambiguous.model", &d);
  EXPECT_EQ(messages(d),
            (std::vector<std::string>{
                "ambiguous.model:10:1: warning: cannot tell whether face indices count from 0 or 1 (no index is 0 and "
                "none equals its count): read as 0-based",
                "ambiguous.model:14:1: warning: cannot tell whether group indices count from 0 or 1 (the smallest "
                "FSTART is 2): read as 0-based",
                "ambiguous.model:16:1: warning: cannot tell whether tetrahedron node indices count from 0 or 1 (no "
                "index is 0 and none equals the node count): read as 0-based",
                "ambiguous.model:20:1: warning: cannot tell whether carton tetrahedron indices count from 0 or 1 (no "
                "index is 0 and none equals the tetrahedron count): read as 0-based"}));
  EXPECT_EQ(m.indexing, (ModeDefIndexing{0, 0, true, 0, 0}));
  EXPECT_EQ(m.faces[0].vertex, (std::array<int32_t, 3>{1, 2, 3}));
  EXPECT_EQ(m.faces[0].normal, (std::array<int32_t, 3>{-1, -1, -1}));
  EXPECT_EQ(m.groups, (std::vector<ModeDefGroup>{{2, 2, 0}}));
  EXPECT_EQ(m.tets, (std::vector<std::array<int32_t, 4>>{{1, 2, 3, 4}, {4, 3, 2, 1}}));
  ASSERT_EQ(m.carton_vertices.size(), 4u);
  EXPECT_EQ(m.carton_vertices[0].tet, 1);
  EXPECT_TRUE(m.carton);  // `true`
  EXPECT_EQ(m.carton_vertices[3].bary, (std::array<float, 4>{0, 0, 0.5f, 0.5f}));
}

TEST(ModeDefModelParse, EmptyFamiliesDoNotWarn) {
  Diagnostics d;
  const ModeDefModel m = parse("0 0\n0 0 0 0 0 0\n0\n0\n", "x.model", &d);
  EXPECT_TRUE(d.items.empty());
  EXPECT_EQ(m, ModeDefModel{});
}

TEST(ModeDefModelParse, FendExclusiveAndInclusive) {
  const ModeDefModel excl = parse_fixture("fend-exclusive.model");
  EXPECT_FALSE(excl.indexing.group_end_inclusive);
  EXPECT_EQ(excl.indexing.group_base, 0);
  EXPECT_EQ(excl.groups, (std::vector<ModeDefGroup>{{0, 0, 0}, {1, 2, 0}}));

  const ModeDefModel excl1 = parse_fixture("fend-exclusive-1based.model");
  EXPECT_FALSE(excl1.indexing.group_end_inclusive);
  EXPECT_EQ(excl1.indexing.group_base, 1);
  EXPECT_EQ(excl1.groups, (std::vector<ModeDefGroup>{{1, 2, 0}, {0, 0, 0}}));

  const ModeDefModel incl = parse_fixture("fend-inclusive.model");
  EXPECT_TRUE(incl.indexing.group_end_inclusive);
  EXPECT_EQ(incl.groups, (std::vector<ModeDefGroup>{{0, 0, 0}, {1, 2, 0}}));

  // Exclusive from touching groups alone (neither ends at #F = 3).
  const std::string touching = "0 0\n3 0 0 3 1 2\n0 0 0 1 0 0 0 1 0\n0 1 2 0 0 0 0 0 0\n0 1 2 0 0 0 0 0 0\n"
                               "0 1 2 0 0 0 0 0 0\n0 0 0 1 1 1 1 1 0 0 0 1 0 0 0 1 0\n1 2 0\n0 1 0\n0\n0\n";
  const ModeDefModel t = parse(touching);
  EXPECT_FALSE(t.indexing.group_end_inclusive);
  EXPECT_EQ(t.groups, (std::vector<ModeDefGroup>{{1, 1, 0}, {0, 0, 0}}));

  // The writer writes FEND as read.
  EXPECT_NE(modedef::print_model(excl).find("\n0 1 0\n1 3 0\n"), std::string::npos);
  EXPECT_NE(modedef::print_model(excl1).find("\n2 4 1\n1 2 1\n"), std::string::npos);
  EXPECT_NE(modedef::print_model(incl).find("\n0 0 0\n1 2 0\n"), std::string::npos);
}

TEST(ModeDefModelParse, CommentsAndLineBreaksCarryNoMeaning) {
  const std::string split = "0 0 // no modes\n3\n0 0 1\n0 0\n# the vertices\n0 0\n0 1 0 0 0 1 0 0 0 0 1 0 0 2 0 0\r\n0\r0";
  const ModeDefModel m = parse(split);
  EXPECT_EQ(m.vertices.size(), 3u);
  EXPECT_EQ(m.faces[0].vertex, (std::array<int32_t, 3>{0, 1, 2}));
  EXPECT_FALSE(m.carton);
}

// ---- Errors ----------------------------------------------------------------------------------------

TEST(ModeDefModelErrors, EveryErrorFixtureAtItsToken) {
  struct Case {
    const char* file;
    const char* message;
  };
  const Case cases[] = {
      {"err-len.model", "err-len.model:2:3: error: LEN 10 is not a multiple of 3 (LEN = 3 x nodes)"},
      {"err-face-vertex.model", "err-face-vertex.model:9:13: error: face 1: vertex index 5 is out of range (4 vertices)"},
      {"err-face-normal.model", "err-face-normal.model:9:15: error: face 0: normal index 2 is out of range (2 normals)"},
      {"err-face-texcoord.model",
       "err-face-texcoord.model:9:17: error: face 0: texcoord index 2 is out of range (2 texcoords)"},
      {"err-tet-node.model", "err-tet-node.model:11:5: error: tetrahedron 3: node index 17 is out of range (12 nodes)"},
      {"err-group-start.model", "err-group-start.model:12:1: error: group 1: FSTART 3 is out of range (3 faces)"},
      {"err-group-end.model",
       "err-group-end.model:11:3: error: group 0: FEND 5 is out of range (3 faces, FEND inclusive)"},
      {"err-group-reversed.model",
       "err-group-reversed.model:12:3: error: group 1: face range is reversed (FSTART 2, FEND 1)"},
      {"err-group-empty.model",
       "err-group-empty.model:12:3: error: group 1: face range is empty (FSTART 1, FEND 1, FEND exclusive)"},
      {"err-group-overlap.model",
       "err-group-overlap.model:12:1: error: group 1 (FSTART 1, FEND 1) overlaps group 0 (FSTART 0, FEND 2)"},
      {"err-group-material.model",
       "err-group-material.model:9:5: error: group 0: material index 1 is out of range (1 material)"},
      {"err-carton-count.model", "err-carton-count.model:16:1: error: carton has 7 vertices, the mesh has 8"},
      {"err-carton-tet.model",
       "err-carton-tet.model:12:1: error: carton vertex 1: tetrahedron index 1 is out of range (1 tetrahedron)"},
      {"err-carton-bary.model",
       "err-carton-bary.model:14:3: error: carton vertex 2: barycentric coordinates sum to 0.9 (must be 1 within "
       "1e-3)"},
      {"err-no-carton.model",
       "err-no-carton.model:16:1: error: no carton: 8 render vertices but the modes have 12 nodes"},
      {"err-trailing.model", "err-trailing.model:5:1: error: unexpected 'extra' after the last value of the model"},
      {"err-number.model", "err-number.model:3:3: error: expected vertex 0 (a number), found 'nan'"},
      {"err-integer.model", "err-integer.model:6:13: error: expected face 0 (an integer), found '2.5'"},
      {"err-huge-count.model",
       "err-huge-count.model:2:1: error: the vertex count 2000000000 is more than the rest of the file can hold"},
      {"err-huge-modes.model",
       "err-huge-modes.model:1:1: error: the eigenvalue count 100000 is more than the rest of the file can hold"},
      {"err-negative-count.model", "err-negative-count.model:3:1: error: the tetrahedron count -1 is negative"},
      {"err-eof.model", "err-eof.model:8:1: error: unexpected end of file: expected the carton flag"},
  };
  for (const Case& c : cases) EXPECT_EQ(error_of_text(fixture_text(c.file), c.file), c.message);
}

TEST(ModeDefModelErrors, OneBasedRangeMessagesSaySo) {
  // 1-based faces (index 4 = #V) with an index past it.
  EXPECT_EQ(error_of_text("0 0\n4 0 0 1 0 0\n0 0 0 1 0 0 0 1 0 0 0 1\n4 0 0 5 0 0 1 0 0\n0\n0\n"),
            "x.model:4:7: error: face 0: vertex index 5 is out of range (4 vertices, counting from 1)");
  // 1-based tetrahedra.
  EXPECT_EQ(error_of_text("0 12\n0 0 0 1 0 0 0 1 0 0 0 1\n0 0 0 0 0 0\n2\n1 2 3 4\n1 2 5 4\n0\n"),
            "x.model:6:5: error: tetrahedron 1: node index 5 is out of range (4 nodes, counting from 1)");
  // The bad token itself.
  EXPECT_EQ(error_of_text("0 x"), "x.model:1:3: error: expected the eigenvector length (an integer), found 'x'");
  EXPECT_EQ(error_of_text("0 0\n0 0 0 0 0 0\n0\n2\n"),
            "x.model:5:1: error: unexpected end of file: expected the carton vertex count");
  EXPECT_EQ(error_of_text("1 3\n1e39 0 0 0 0 0 0"), "x.model:2:1: error: eigenvalue 0: '1e39' is beyond the float range");
  EXPECT_EQ(error_of_text("+-1 3"), "x.model:1:1: error: expected the eigenvalue count (an integer), found '+-1'");
  EXPECT_EQ(error_of_text(""), "x.model:1:1: error: unexpected end of file: expected the eigenvalue count");
}

TEST(ModeDefModelErrors, TruncationAtEveryByteFailsCleanly) {
  for (const std::string name : {"full.model", "one-based.model", "ambiguous.model", "no-carton.model"}) {
    const std::string text = fixture_text(name);
    // Where the last value starts: any prefix up to there lacks a value.
    size_t last = text.size();
    while (last > 0 && std::isspace(static_cast<unsigned char>(text[last - 1]))) --last;
    while (last > 0 && !std::isspace(static_cast<unsigned char>(text[last - 1]))) --last;
    size_t failures = 0;
    for (size_t n = 0; n <= last; ++n) {
      const std::string prefix = text.substr(0, n);
      Diagnostics d;
      try {
        modedef::parse_model(prefix, name, d);
        ADD_FAILURE() << name << " cut at byte " << n << " was accepted";
      } catch (const Error& e) {
        ++failures;
        EXPECT_GT(e.diagnostic().line, 0u);
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " cut at byte " << n << ": " << e.what();
      }
    }
    EXPECT_EQ(failures, last + 1) << name;
    // Cut at a token boundary, the error is the end of the file.
    EXPECT_NE(error_of_text(text.substr(0, last), name).find("unexpected end of file"), std::string::npos);
  }
}

TEST(ModeDefModelErrors, HugeCountsFailBeforeAllocating) {
  const std::string pad(2000, ' ');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2147483647 0\n" + pad, "the eigenvalue count 2147483647 is more than the rest of the file can hold"},
      {"0 2147483646\n", "the eigenvector length 2147483646 is more than the rest of the file can hold"},
      {"0 0\n0 0 0 0 0 2147483647\n", "the group count 2147483647 is more than the rest of the file can hold"},
      {"0 0\n0 0 0 0 0 0\n2147483647\n", "the tetrahedron count 2147483647 is more than the rest of the file can hold"},
      {"0 0\n0 0 0 2147483647 0 0\n", "the face count 2147483647 is more than the rest of the file can hold"},
      {"0 0\n0 0 0 0 0 0\n0\n1\n2147483647", "the carton vertex count 2147483647 is more than the rest of the file can hold"},
      {"0 2147483648\n", "the eigenvector length: '2147483648' is beyond the 32-bit integer range"},
  };
  for (const auto& [text, message] : cases) EXPECT_NE(error_of_text(text).find(message), std::string::npos) << text;
  // The mesh counts together more than the file holds, though each alone fits.
  std::string mesh = "0 0\n50 50 50 50 50 50\n";
  for (int i = 0; i < 900; ++i) mesh += "0 ";
  EXPECT_EQ(error_of_text(mesh),
            "x.model:2:1: error: 50 vertices, 50 normals, 50 texcoords, 50 faces, 50 materials and 50 groups are "
            "more than the rest of the file can hold");
  // Modes x length more than the file holds, though each count alone fits.
  std::string many = "3000 3000\n";
  for (int i = 0; i < 5000; ++i) many += "0 ";
  EXPECT_EQ(error_of_text(many),
            "x.model:1:1: error: 3000 eigenvalues with eigenvectors of length 3000 are more than the rest of the file "
            "can hold");
}

TEST(ModeDefModelErrors, RandomGarbageNeverCrashes) {
  std::mt19937 rng(7);
  const std::string full = fixture_text("full.model");
  const char alphabet[] = "0123456789 -.e\n#/x+";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = full;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
        case 1: text.erase(at, 1 + rng() % 5); break;
        default: text.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]); break;
      }
      if (text.empty()) text = "0";
    }
    Diagnostics d;
    try {
      const ModeDefModel m = modedef::parse_model(text, "g.model", d);
      // Whatever parses makes a Scene and prints back to itself.
      Scene s = modedef::read_model(text, "g.model", d);
      EXPECT_EQ(s.modedef->models[0].model, m);
      EXPECT_EQ(parse(modedef::print_model(m)), m);
    } catch (const Error&) {
    }
  }
}

// ---- parse -> print -> parse ------------------------------------------------------------------------

TEST(ModeDefModelRoundTrip, EveryValidFixture) {
  for (const std::string& name : kValidFixtures) {
    const ModeDefModel m = parse_fixture(name);
    const std::string printed = modedef::print_model(m);
    EXPECT_EQ(parse(printed), m) << name;
    EXPECT_EQ(modedef::print_model(parse(printed)), printed) << name;
  }
}

TEST(ModeDefModelRoundTrip, CanonicalLayout) {
  const std::string text = modedef::print_model(parse_fixture("fend-inclusive.model"));
  EXPECT_EQ(text,
            "0 0\n\n3 0 0 3 1 2\n\n0 0 0\n1 0 0\n0 1 0\n\n0 0 0 1 0 0 2 0 0\n0 0 0 2 0 0 1 0 0\n1 0 0 0 0 0 2 0 0\n\n"
            "0 0 0 1 1 1 1 1 0 0 0 1 0 0 0 1 0\n\n0 0 0\n1 2 0\n\n0\n\n0\n");
}

// A random valid model whose kept bases and FEND convention are the ones a reader detects.
ModeDefModel random_model(std::mt19937& rng) {
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  auto value = [&]() -> float {
    switch (pick(6)) {
      case 0: return 0.0f;
      case 1: return float(int(pick(21)) - 10);
      case 2: return std::ldexp(float(int32_t(rng() % 2000001) - 1000000), int(pick(60)) - 40);
      case 3: {
        uint32_t bits = rng();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return std::isfinite(f) ? f : 1.5f;
      }
      default: return std::uniform_real_distribution<float>(-100, 100)(rng);
    }
  };
  ModeDefModel m;
  const uint32_t nodes = 1 + pick(5), nev = pick(4);
  m.rest.resize(nodes * 3);
  for (float& v : m.rest) v = value();
  for (uint32_t k = 0; k < nev; ++k) m.eigenvalues.push_back(value());
  m.eigenvectors.resize(size_t(nev) * nodes * 3);
  for (float& v : m.eigenvectors) v = value();
  m.carton = pick(2) == 1;
  const uint32_t nv = !m.carton && nev > 0 ? nodes : pick(7);
  for (uint32_t i = 0; i < nv; ++i) m.vertices.push_back({value(), value(), value()});
  const uint32_t nn = pick(4), nt = pick(4), nf = nv > 0 ? pick(7) : 0;
  for (uint32_t i = 0; i < nn; ++i) m.normals.push_back({value(), value(), value()});
  for (uint32_t i = 0; i < nt; ++i) m.texcoords.push_back({value(), value()});
  auto index = [&](uint32_t count) { return count > 0 ? int32_t(pick(count)) : int32_t(pick(9)) - 4; };
  for (uint32_t f = 0; f < nf; ++f) {
    ModeDefFace face;
    for (int c = 0; c < 3; ++c) {
      face.vertex[c] = index(nv);
      face.normal[c] = index(nn);
      face.texcoord[c] = index(nt);
    }
    m.faces.push_back(face);
  }
  m.indexing.face_base = int32_t(pick(2));
  if (m.indexing.face_base == 1 && nf > 0) m.faces[0].vertex[0] = int32_t(nv) - 1;  // detectable
  const uint32_t nm = pick(4);
  for (uint32_t i = 0; i < nm; ++i) {
    ModeDefMaterial mat;
    for (auto* c : {&mat.ambient, &mat.diffuse, &mat.specular, &mat.emissive})
      for (float& v : *c) v = value();
    mat.specular_strength = value();
    m.materials.push_back(mat);
  }
  if (nm > 0 && nf > 0) {
    // Runs of faces, face 0 always grouped (so the smallest FSTART is 0); some runs in no group.
    std::vector<ModeDefGroup> groups;
    for (uint32_t f = 0; f < nf;) {
      const uint32_t n = 1 + pick(nf - f);
      if (f == 0 || pick(3) > 0) groups.push_back({int32_t(f), int32_t(f + n - 1), int32_t(pick(nm))});
      f += n;
    }
    m.indexing.group_end_inclusive = pick(2) == 1;
    if (!m.indexing.group_end_inclusive && groups.back().last != int32_t(nf) - 1)
      groups.push_back({groups.back().last + 1, int32_t(nf) - 1, 0});  // ends at #F: detectable
    std::shuffle(groups.begin(), groups.end(), rng);
    m.groups = groups;
    m.indexing.group_base = int32_t(pick(2));
  }
  const uint32_t ntet = pick(4) + (m.carton && nv > 0 ? 1 : 0);
  for (uint32_t t = 0; t < ntet; ++t)
    m.tets.push_back({int32_t(pick(nodes)), int32_t(pick(nodes)), int32_t(pick(nodes)), int32_t(pick(nodes))});
  m.indexing.tet_base = int32_t(pick(2));
  if (m.indexing.tet_base == 1 && ntet > 0) m.tets[0][0] = int32_t(nodes) - 1;
  if (m.carton) {
    for (uint32_t i = 0; i < nv; ++i) {
      ModeDefCartonVertex cv;
      cv.tet = int32_t(pick(ntet));
      const float a = float(pick(101)) / 100, b = float(pick(101)) / 100 * (1 - a), c = float(pick(11)) / 10 * (1 - a - b);
      cv.bary = {a, b, c, 1 - a - b - c};
      m.carton_vertices.push_back(cv);
    }
    m.indexing.carton_base = int32_t(pick(2));
    if (m.indexing.carton_base == 1 && nv > 0) m.carton_vertices[0].tet = int32_t(ntet) - 1;
  }
  // Bases a reader cannot see in the data are read as 0: a model only keeps what it can show.
  if (nf == 0) m.indexing.face_base = 0;
  if (m.groups.empty()) m.indexing = {m.indexing.face_base, 0, true, m.indexing.tet_base, m.indexing.carton_base};
  if (ntet == 0) m.indexing.tet_base = 0;
  if (!m.carton || nv == 0) m.indexing.carton_base = 0;
  return m;
}

TEST(ModeDefModelRoundTrip, RandomModels) {
  std::mt19937 rng(2003);
  for (int iter = 0; iter < 500; ++iter) {
    const ModeDefModel m = random_model(rng);
    const std::string text = modedef::print_model(m);
    ModeDefModel back;
    try {
      back = parse(text);
    } catch (const Error& e) {
      ADD_FAILURE() << "model " << iter << ": " << e.what() << "\n" << text;
      continue;
    }
    EXPECT_EQ(back, m) << "model " << iter << "\n" << text;
    EXPECT_EQ(modedef::print_model(back), text) << "model " << iter;
  }
}

TEST(ModeDefModelRoundTrip, UndetectableConventionsFallBackToTheDefault) {
  // A model built in memory claiming 1-based faces and exclusive FEND that its data cannot show:
  // the printer writes 0-based, inclusive, so the geometry reads back the same.
  ModeDefModel m = parse_fixture("fend-inclusive.model");
  m.vertices.push_back({5, 5, 5});  // unused: no face index + 1 equals #V
  m.indexing.face_base = 1;
  m.groups = {{0, 0, 0}};
  m.indexing.group_end_inclusive = false;
  const ModeDefModel back = parse(modedef::print_model(m));
  EXPECT_EQ(back.faces, m.faces);
  EXPECT_EQ(back.vertices, m.vertices);
  EXPECT_EQ(back.groups, m.groups);
  EXPECT_EQ(back.indexing, (ModeDefIndexing{0, 0, true, 0, 0}));
}

// ---- Into the Scene --------------------------------------------------------------------------------

TEST(ModeDefModelScene, FullFixture) {
  Diagnostics d;
  const Scene s = modedef::read_model(fixture_text("full.model"), "dir/full.model", d);
  EXPECT_TRUE(d.items.empty());
  EXPECT_EQ(s.modedef->kind, ModeDefData::Kind::Model);
  ASSERT_EQ(s.modedef->models.size(), 1u);
  EXPECT_EQ(s.modedef->models[0].file, "full.model");
  EXPECT_EQ(s.modedef->models[0].model, parse_fixture("full.model"));

  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].name, "material0");
  EXPECT_EQ(s.materials[0].base_color, (std::array<float, 4>{0.8f, 0.2f, 0.2f, 1}));
  EXPECT_EQ(s.materials[1].name, "material1");
  EXPECT_EQ(s.materials[1].base_color, (std::array<float, 4>{0.2f, 0.8f, 0.2f, 0.5f}));

  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[0].name, "full.group0");
  EXPECT_EQ(s.meshes[1].name, "full.group1");
  EXPECT_EQ(s.meshes[2].name, "full.ungrouped");
  EXPECT_EQ(s.meshes[0].material, 1);
  EXPECT_EQ(s.meshes[1].material, 0);
  EXPECT_EQ(s.meshes[2].material, -1);

  // group0: face 0 = (0 0 0) (1 0 1) (2 0 2).
  const Mesh& g0 = s.meshes[0];
  EXPECT_EQ(g0.vertex_count(), 3u);
  EXPECT_EQ(g0.triangles, (std::vector<uint32_t>{0, 1, 2}));
  ASSERT_EQ(g0.streams.size(), 3u);
  EXPECT_EQ(g0.streams[0], testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 0.5f, 0, 0, 0.5f, 0.5f, 0}));
  EXPECT_EQ(g0.streams[1], testutil::float_stream(Attribute::Normal, 3, {0, 0, 1, 0, 0, 1, 0, 0, 1}));
  // v flipped: file (0 0) (1 0) (0.25 0.75) -> (0 1) (1 1) (0.25 0.25).
  EXPECT_EQ(g0.streams[2], testutil::float_stream(Attribute::Texcoord, 2, {0, 1, 1, 1, 0.25f, 0.25f}));

  // ungrouped: face 2 = (0 1 0) (3 1 1) (1 1 2): vertex 0 with normal 1 is a new Scene vertex.
  const Mesh& u = s.meshes[2];
  EXPECT_EQ(u.vertex_count(), 3u);
  EXPECT_EQ(stream_of(u, Attribute::Normal), (std::vector<float>{0, 0, -1, 0, 0, -1, 0, 0, -1}));
  EXPECT_EQ(stream_of(u, Attribute::Position), (std::vector<float>{0, 0, 0, 0, 0.5f, 0, 0.5f, 0, 0}));

  // Morph targets: the carton blend of the tetrahedron's node entries.
  ASSERT_EQ(g0.morph_targets.size(), 2u);
  EXPECT_EQ(g0.morph_targets[0].name, "mode0 1.59155 Hz");
  EXPECT_EQ(g0.morph_targets[1].name, "mode1 3.1831 Hz");
  // Mode 0 nodes: (0 0 0) (0.5 0 0) (0 0.5 0) (0 0 0.5). Vertex 1 = 0.5 n0 + 0.5 n1, vertex 2 = 0.5 n1 + 0.5 n2.
  EXPECT_EQ(g0.morph_targets[0].positions, (std::vector<float>{0, 0, 0, 0.25f, 0, 0, 0.25f, 0.25f, 0}));
  // Mode 1 nodes: (0 1 0) (0 -1 0) (1 0 0) (0 0 -1).
  EXPECT_EQ(g0.morph_targets[1].positions, (std::vector<float>{0, 1, 0, 0, 0, 0, 0.5f, -0.5f, 0}));
  EXPECT_TRUE(g0.morph_targets[1].normals.empty());
  // ungrouped vertex 1 is render vertex 3 = 0.5 n0 + 0.5 n2.
  EXPECT_EQ(u.morph_targets[1].positions, (std::vector<float>{0, 1, 0, 0.5f, 0.5f, 0, 0, 0, 0}));

  ASSERT_EQ(s.modedef->mesh_sources.size(), 3u);
  const ModeDefMeshSource& src = s.modedef->mesh_sources[2];
  EXPECT_EQ(src.mesh, 2);
  EXPECT_EQ(src.model, 0);
  EXPECT_EQ(src.object, -1);
  EXPECT_EQ(src.group, -1);
  EXPECT_EQ(src.vertex, (std::vector<uint32_t>{0, 3, 1}));
  EXPECT_EQ(src.normal, (std::vector<int32_t>{1, 1, 1}));
  EXPECT_EQ(s.modedef->mesh_sources[0].group, 0);
  EXPECT_EQ(s.modedef->mesh_sources[1].group, 1);
  EXPECT_EQ(s.modedef->mesh_sources[1].vertex, (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(s.modedef->mesh_sources[1].normal, (std::vector<int32_t>{0, 0, 1}));
}

TEST(ModeDefModelScene, NoCartonNoGroupsOneMeshNamedAfterTheFile) {
  Diagnostics d;
  const Scene s = modedef::read_model(fixture_text("no-carton.model"), "no-carton.model", d);
  ASSERT_EQ(s.meshes.size(), 1u);
  const Mesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "no-carton");
  EXPECT_EQ(m.material, -1);
  EXPECT_TRUE(s.materials.empty());
  ASSERT_EQ(m.streams.size(), 1u);  // no normals, no texcoords
  EXPECT_EQ(m.streams[0], testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  ASSERT_EQ(m.morph_targets.size(), 1u);
  EXPECT_EQ(m.morph_targets[0].name, "mode0 1 Hz");  // lambda = (2 pi)^2
  EXPECT_EQ(m.morph_targets[0].positions, (std::vector<float>{1, 0, 0, 0, 2, 0, 0, 0, 3}));
  EXPECT_EQ(s.modedef->mesh_sources[0].normal, (std::vector<int32_t>{-1, -1, -1}));
  EXPECT_EQ(s.modedef->mesh_sources[0].group, -1);
}

TEST(ModeDefModelScene, SharedCornersAreOneVertex) {
  // Two faces sharing an edge with the same V N T: 4 Scene vertices, not 6.
  const std::string text = "0 0\n4 1 0 2 0 0\n0 0 0 1 0 0 1 1 0 0 1 0\n0 0 1\n0 0 0 1 0 0 2 0 0\n0 0 0 2 0 0 3 0 0\n0\n0\n";
  Diagnostics d;
  const Scene s = modedef::read_model(text, "quad.model", d);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 4u);
  EXPECT_EQ(s.meshes[0].triangles, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_TRUE(s.meshes[0].morph_targets.empty());
}

TEST(ModeDefModelScene, AppendingAModelTwiceReusesItsMaterials) {
  Diagnostics d;
  Scene s = modedef::read_model(fixture_text("full.model"), "full.model", d);
  modedef::append_model_meshes(s, 0, 1, "copy", d);
  EXPECT_EQ(s.materials.size(), 2u);
  ASSERT_EQ(s.meshes.size(), 6u);
  EXPECT_EQ(s.meshes[3].name, "copy.group0");
  EXPECT_EQ(s.meshes[3].material, 1);
  EXPECT_EQ(s.modedef->mesh_sources[3].object, 1);
  EXPECT_EQ(s.meshes[3].streams, s.meshes[0].streams);
  EXPECT_THROW(modedef::append_model_meshes(s, 1, -1, "none", d), Error);
}

// ---- Writing ------------------------------------------------------------------------------------------

std::string written(const Scene& s, Diagnostics& d) {
  const std::vector<OutputFile> out = modedef::write_model(s, d);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "");
  return std::string(out[0].bytes.begin(), out[0].bytes.end());
}

TEST(ModeDefModelWrite, FilesRoundTripThroughTheApi) {
  testutil::TempDir dir;
  for (const std::string& name : kValidFixtures) {
    const Scene s = read(fixture_path(name));
    EXPECT_EQ(s.modedef->models[0].model, parse_fixture(name)) << name;
    Diagnostics d;
    write(s, dir / "y.model", {}, &d);
    EXPECT_TRUE(d.items.empty()) << name;
    const Scene back = read(dir / "y.model");
    ASSERT_EQ(back.modedef->models.size(), 1u);
    EXPECT_EQ(back.modedef->models[0].model, s.modedef->models[0].model) << name;
    ASSERT_EQ(back.meshes.size(), s.meshes.size()) << name;
    for (size_t i = 0; i < s.meshes.size(); ++i) {  // the same but for the names (the stem is "y")
      Mesh a = s.meshes[i], b = back.meshes[i];
      a.name = b.name = "";
      EXPECT_EQ(a, b) << name << " mesh " << i;
    }
  }
}

TEST(ModeDefModelWrite, KeptModelSurvivesAddedStreamsAndRenumbering) {
  Diagnostics d;
  Scene s = modedef::read_model(fixture_text("full.model"), "full.model", d);
  // Reverse the vertices of mesh 0 and add a stream: the corner positions stay the same.
  Mesh& m = s.meshes[0];
  for (VertexStream& st : m.streams) {
    std::vector<float> rev;
    for (size_t v = st.vertex_count(); v-- > 0;)
      rev.insert(rev.end(), st.data.begin() + std::ptrdiff_t(v * st.components), st.data.begin() + std::ptrdiff_t((v + 1) * st.components));
    st.data = rev;
  }
  for (uint32_t& t : m.triangles) t = 2 - t;
  m.streams.push_back(testutil::float_stream(Attribute::Tangent, 4, std::vector<float>(12, 1)));
  EXPECT_EQ(written(s, d), modedef::print_model(s.modedef->models[0].model));
  EXPECT_TRUE(d.items.empty());
}

TEST(ModeDefModelWrite, StateCopiesAtTheirObjectsPoseKeepTheModel) {
  // A .state's copy of the model is placed at its object's pose: its joint's rest transform.
  Diagnostics d;
  Scene s = modedef::read_model(fixture_text("full.model"), "full.model", d);
  s.modedef->kind = ModeDefData::Kind::State;
  Joint j;
  j.name = "full";
  j.rest.translation = {1, 2, 3};
  j.rest.rotation = {0, 0, float(std::sqrt(0.5)), float(std::sqrt(0.5))};  // 90 degrees about Z
  j.rest.scale = {2, 2, 2};
  s.joints.push_back(j);
  s.modedef->object_joint = {0};
  for (ModeDefMeshSource& src : s.modedef->mesh_sources) src.object = 0;
  for (Mesh& m : s.meshes) {
    std::vector<float>& p = m.streams[0].data;
    for (size_t v = 0; v < p.size(); v += 3) {
      const float x = p[v], y = p[v + 1], z = p[v + 2];
      p[v] = 1 - 2 * y;
      p[v + 1] = 2 + 2 * x;
      p[v + 2] = 3 + 2 * z;
    }
  }
  // A plane of the state is not from the model.
  Mesh plane;
  plane.name = "plane0";
  plane.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 0, 1}));
  plane.triangles = {0, 1, 2};
  s.meshes.push_back(plane);
  EXPECT_EQ(written(s, d), modedef::print_model(s.modedef->models[0].model));
  EXPECT_TRUE(d.items.empty());
  // Moved away from the pose: written from the meshes.
  s.joints[0].rest.translation = {0, 0, 0};
  EXPECT_NE(written(s, d), modedef::print_model(s.modedef->models[0].model));
  EXPECT_EQ(d.items.size(), 1u);
}

TEST(ModeDefModelWrite, ChangedMeshesAreWrittenFromTheScene) {
  Diagnostics d;
  Scene s = modedef::read_model(fixture_text("full.model"), "full.model", d);
  s.meshes[1].streams[0].data[3] = 9;  // group1's vertex 1 moved
  const ModeDefModel m = parse(written(s, d));
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].severity, Severity::Warning);
  EXPECT_NE(d.items[0].message.find("no longer match"), std::string::npos) << d.items[0].message;
  // One group and material per mesh; the kept materials' other colours carried over.
  EXPECT_EQ(m.groups, (std::vector<ModeDefGroup>{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}));
  ASSERT_EQ(m.materials.size(), 3u);
  EXPECT_EQ(m.materials[0], parse_fixture("full.model").materials[1]);
  EXPECT_EQ(m.materials[2], ModeDefMaterial{});
  EXPECT_EQ(m.faces.size(), 3u);
  EXPECT_EQ(m.vertices[size_t(m.faces[1].vertex[1])], (std::array<float, 3>{9, 0.5f, 0}));
  EXPECT_FALSE(m.carton);
  EXPECT_TRUE(m.tets.empty());
  EXPECT_EQ(m.node_count(), m.vertices.size());
  ASSERT_EQ(m.mode_count(), 2u);
  EXPECT_NEAR(m.eigenvalues[0], 100.0f, 100.0f * 1e-3f);
  EXPECT_NEAR(m.eigenvalues[1], 400.0f, 400.0f * 1e-3f);
  // Render vertex = position + displacement in every mode: group1's moved vertex is its own.
  const Scene back = modedef::read_model(modedef::print_model(m), "back.model", d);
  ASSERT_EQ(back.meshes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.meshes[i].triangles, s.meshes[i].triangles);
    EXPECT_EQ(stream_of(back.meshes[i], Attribute::Position), stream_of(s.meshes[i], Attribute::Position));
    EXPECT_EQ(stream_of(back.meshes[i], Attribute::Normal), stream_of(s.meshes[i], Attribute::Normal));
    EXPECT_EQ(stream_of(back.meshes[i], Attribute::Texcoord), stream_of(s.meshes[i], Attribute::Texcoord));
    for (size_t k = 0; k < 2; ++k)
      EXPECT_EQ(back.meshes[i].morph_targets[k].positions, s.meshes[i].morph_targets[k].positions);
  }
}

TEST(ModeDefModelWrite, DerivedFromAPlainScene) {
  Scene s;
  Mesh m;
  m.name = "quad";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 1, 1, 0, 1}));
  m.triangles = {0, 1, 2, 0, 2, 3};
  MorphTarget t;
  t.name = "mode0 2 Hz";
  t.positions = {0, 0, 1, 0, 0, 0, 0, 0, -1, 0, 0, 0};
  m.morph_targets.push_back(t);
  s.meshes.push_back(m);
  Material mat;
  mat.base_color = {0.5f, 0.25f, 1, 1};
  s.materials.push_back(mat);
  s.meshes[0].material = 0;

  testutil::TempDir dir;
  Diagnostics d;
  write(s, dir / "quad.model", {}, &d);
  EXPECT_TRUE(d.items.empty());
  const Scene back = read(dir / "quad.model");
  const ModeDefModel& model = back.modedef->models[0].model;
  ASSERT_EQ(model.mode_count(), 1u);
  const float expected = float(std::pow(4 * M_PI, 2));
  EXPECT_NEAR(model.eigenvalues[0], expected, expected * 1e-3f);
  EXPECT_EQ(model.vertices.size(), 4u);
  EXPECT_EQ(model.rest, (std::vector<float>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(model.eigenvectors, t.positions);
  EXPECT_EQ(model.texcoords, (std::vector<std::array<float, 2>>{{0, 1}, {1, 1}, {1, 0}, {0, 0}}));
  EXPECT_TRUE(model.normals.empty());
  EXPECT_EQ(model.materials[0].diffuse, mat.base_color);
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_EQ(back.meshes[0].name, "quad.group0");
  EXPECT_EQ(back.meshes[0].triangles, m.triangles);
  EXPECT_EQ(stream_of(back.meshes[0], Attribute::Texcoord), stream_of(m, Attribute::Texcoord));
  EXPECT_EQ(back.meshes[0].morph_targets[0].positions, t.positions);
  EXPECT_EQ(back.meshes[0].morph_targets[0].name, "mode0 2 Hz");
}

TEST(ModeDefModelWrite, UnnamedTargetsAreRigidModes) {
  Scene s;
  Mesh m;
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  m.morph_targets.push_back({"smile", {1, 1, 1, 1, 1, 1, 1, 1, 1}, {}, {}});
  s.meshes.push_back(m);
  Diagnostics d;
  const ModeDefModel model = parse(written(s, d));
  EXPECT_EQ(model.eigenvalues, (std::vector<float>{0}));
  EXPECT_EQ(model.groups, (std::vector<ModeDefGroup>{{0, 0, 0}}));
  EXPECT_EQ(model.materials, (std::vector<ModeDefMaterial>{ModeDefMaterial{}}));
}

TEST(ModeDefModelWrite, MeshesItCannotWrite) {
  Scene s;
  Mesh a;
  a.name = "a";
  a.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  a.triangles = {0, 1, 2};
  Mesh b = a;
  b.name = "b";
  b.morph_targets.push_back({"mode0 1 Hz", std::vector<float>(9, 0), {}, {}});
  s.meshes = {a, b};
  Diagnostics d;
  try {
    modedef::write_model(s, d);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("every mesh must have one per mode"), std::string::npos) << e.what();
  }
  Scene bad;
  Mesh c = a;
  c.triangles = {0, 1, 7};
  bad.meshes = {c};
  EXPECT_THROW(modedef::write_model(bad, d), Error);
}

}  // namespace

// Issue 17: a ModeDef material's emissive colour and specular strength map to the Scene's PBR
// emissive and roughness (docs/modedef.md), a rewrite keeps the file, and an edited roughness
// sets the strength back (n = 2 / r^4 - 2) with a white specular colour where it was black.
TEST(ModeDefModelWrite, MaterialsMapToPbrAndBack) {
  std::string text = tiny_model("0 0 0 1 0 0 2 0 0  1 0 0 2 0 0 3 0 0", "0 1 1", "0 1 2 3", kCarton0);
  // Material 0: specular (1 1 1), strength 30, emissive (0.5 0.25 0); material 1: black specular.
  const std::string m0 = "0 0 0 1 1 1 1 1 0 0 0 1 0 0 0 1 0";
  ASSERT_NE(text.find(m0), std::string::npos);
  text.replace(text.find(m0), m0.size(), "0 0 0 1 0.8 0.6 0.4 1 1 1 1 1 0.5 0.25 0 1 30");
  Diagnostics d;
  Scene s = read_memory({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, Format::ModeDefModel,
                        "m.model", &d);
  ASSERT_EQ(s.materials.size(), 2u);
  EXPECT_EQ(s.materials[0].base_color, (std::array<float, 4>{0.8f, 0.6f, 0.4f, 1}));
  EXPECT_EQ(s.materials[0].emissive, (std::array<float, 3>{0.5f, 0.25f, 0}));
  EXPECT_FLOAT_EQ(s.materials[0].roughness, float(std::pow(2.0 / 32.0, 0.25)));  // 0.5
  EXPECT_EQ(s.materials[0].metallic, 0.0f);
  EXPECT_EQ(s.materials[1].roughness, 1.0f);  // black specular: no highlight
  EXPECT_EQ(s.materials[1].emissive, (std::array<float, 3>{0, 0, 0}));
  const std::string first = written(s, d);
  EXPECT_NE(first.find("0 0 0 1 0.8 0.6 0.4 1 1 1 1 1 0.5 0.25 0 1 30\n"), std::string::npos) << first;
  // A Scene without the kept model (as from another format) writes the materials its meshes use
  // (here material 1, of the one group): roughness 0.25 gives n = 2 / 0.25^4 - 2 = 510, at most
  // 128, and a white specular colour where it was black; the emissive colour is the Scene's.
  s.modedef.reset();
  s.materials[1].roughness = 0.25f;
  s.materials[1].emissive = {0, 1, 0};
  const std::string rebuilt = written(s, d);
  EXPECT_NE(rebuilt.find("\n0 0 0 1 0 0 0 1 1 1 1 1 0 1 0 1 128\n"), std::string::npos) << rebuilt;
  s.materials[1].roughness = float(std::pow(2.0 / 32.0, 0.25));
  const std::string rebuilt30 = written(s, d);
  EXPECT_NE(rebuilt30.find("\n0 0 0 1 0 0 0 1 1 1 1 1 0 1 0 1 30\n"), std::string::npos) << rebuilt30;
}

}  // namespace meshport_test_modedef_model
