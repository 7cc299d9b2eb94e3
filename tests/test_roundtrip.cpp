// Cross-format checks between IQE and IQM, on the real model and the edge cases, including every
// mistake of the reference compiler listed in ../shared/specs/iqm-notes.md.
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>

namespace meshport_test_roundtrip {

using namespace meshport;
using testutil::corpus;

namespace {

Scene via(const Scene& s, Format f, Diagnostics* d = nullptr) {
  std::vector<uint8_t> bytes = write_memory(s, f, {}, d);
  return read_memory(bytes, f, "memory", d);
}

size_t total_triangles(const Scene& s) {
  size_t n = 0;
  for (const auto& m : s.meshes) n += m.triangles.size() / 3;
  return n;
}

}  // namespace

TEST(RoundTrip, MrfixitIqmToIqeToIqm) {
  REQUIRE_CORPUS();
  Scene a = read(corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  Scene b = via(a, Format::Iqe);
  // IQE holds shortest round-trip floats: IQM -> IQE loses nothing.
  testutil::expect_scenes_close(a, b, 0.0f, 0.0f);
  Scene c = via(b, Format::Iqm);
  testutil::expect_scenes_close(a, c, 0.0f, 0.0f);
  ASSERT_EQ(c.meshes.size(), 2u);
  EXPECT_EQ(c.joints.size(), 75u);
  ASSERT_EQ(c.animations.size(), 1u);
  EXPECT_EQ(c.animations[0].frame_count(), 101u);
}

TEST(RoundTrip, MrfixitIqeToIqmToIqe) {
  REQUIRE_CORPUS();
  Scene a = read(corpus("iqm/derived/mrfixit.iqe"));
  Scene b = via(a, Format::Iqm);
  // Float arrays are exact; ubyte weights within one step; poses within half a step.
  testutil::expect_scenes_close(a, b, 0.0f, 1.0f / 255.0f);
  Scene c = via(b, Format::Iqe);
  testutil::expect_scenes_close(b, c, 0.0f, 0.0f);
  EXPECT_EQ(total_triangles(c), 2988u);
}

TEST(RoundTrip, IqeAndIqmOfMrfixitAgree) {
  REQUIRE_CORPUS();
  // The IQE was dumped from the IQM with %.8g: the two agree to that precision, and the
  // weights the IQM stores as ubyte agree to within one step.
  Scene e = read(corpus("iqm/derived/mrfixit.iqe"));
  Scene m = read(corpus("iqm/lsalzman-iqm/mrfixit.iqm"));
  testutil::expect_scenes_close(e, m, 2e-6f, 1.0f / 255.0f);
}

TEST(RoundTrip, ExplicitTangentsStayWithTheirVertices) {
  // The reference compiler scrambles explicit `vx` tangents when it reorders vertices.
  REQUIRE_CORPUS();
  Scene e = read(corpus("iqm/derived/mrfixit.iqe"));
  Scene m = via(e, Format::Iqm);
  for (size_t i = 0; i < e.meshes.size(); ++i)
    EXPECT_EQ(e.meshes[i].find(Attribute::Tangent)->data, m.meshes[i].find(Attribute::Tangent)->data);
}

TEST(RoundTrip, MrfixitAdjacencyIsPositionBased) {
  REQUIRE_CORPUS();
  Scene e = read(corpus("iqm/derived/mrfixit.iqe"));
  std::vector<uint8_t> bytes = write_memory(e, Format::Iqm);
  auto h = testutil::iqm_header(bytes);
  ASSERT_NE(h.ofs_adjacency, 0u);
  size_t links = 0;
  for (size_t i = 0; i < size_t(h.num_triangles) * 3; ++i)
    links += testutil::peek<uint32_t>(bytes, h.ofs_adjacency + i * 4) != 0xFFFFFFFFu;
  EXPECT_EQ(links, 8946u);  // the reference compiler links 2,222
}

TEST(RoundTrip, QuadAdjacencyAcrossTheDiagonal) {
  REQUIRE_CORPUS();
  for (const char* f : {"quadA.iqe", "quadB.iqe"}) {
    std::vector<uint8_t> bytes = write_memory(read(corpus(std::string("iqm/edge-cases/") + f)), Format::Iqm);
    auto h = testutil::iqm_header(bytes);
    ASSERT_EQ(h.num_triangles, 2u) << f;
    std::vector<uint32_t> adj;
    for (int i = 0; i < 6; ++i) adj.push_back(testutil::peek<uint32_t>(bytes, h.ofs_adjacency + i * 4));
    EXPECT_EQ(std::count(adj.begin(), adj.begin() + 3, 1u), 1) << f;
    EXPECT_EQ(std::count(adj.begin() + 3, adj.end(), 0u), 1) << f;
    EXPECT_EQ(std::count(adj.begin(), adj.end(), 0xFFFFFFFFu), 4) << f;
  }
}

TEST(RoundTrip, RepeatedMeshBlockKeepsItsTriangles) {
  REQUIRE_CORPUS();
  Scene s = via(read(corpus("iqm/edge-cases/dupmesh.iqe")), Format::Iqm);
  ASSERT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[2].name, "A");
  EXPECT_EQ(total_triangles(s), 3u);
  // the third block sits at file z = 2, i.e. Scene y = 2
  EXPECT_EQ(s.meshes[2].find(Attribute::Position)->get(0, 1), 2.0f);
}

TEST(RoundTrip, LongLinesAreNotTruncated) {
  REQUIRE_CORPUS();
  Scene s = via(read(corpus("iqm/edge-cases/longpoly.iqe")), Format::Iqm);
  EXPECT_EQ(total_triangles(s), 198u);  // the reference compiler writes 153
}

TEST(RoundTrip, FileWithoutFacesMakesTriangles) {
  REQUIRE_CORPUS();
  Scene s = via(read(corpus("iqm/edge-cases/noface.iqe")), Format::Iqm);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
  EXPECT_EQ(total_triangles(s), 1u);
}

TEST(RoundTrip, OutOfRangeFaceIndexIsAnError) {
  REQUIRE_CORPUS();
  try {
    read(corpus("iqm/edge-cases/oor.iqe"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().line, 6u);
    EXPECT_EQ(e.diagnostic().column, 8u);
  }
}

TEST(RoundTrip, UnknownVertexFormatIsIgnoredNotACrash) {
  REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = read(corpus("iqm/edge-cases/badfmt.iqe"), {}, &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].line, 2u);
  Scene m = via(s, Format::Iqm);
  EXPECT_EQ(m.meshes[0].find(Attribute::Position)->format, ComponentType::Float);
}

TEST(RoundTrip, BoneIndexAbove255WidensInsteadOfWrapping) {
  REQUIRE_CORPUS();
  Diagnostics d;
  Scene s = read(corpus("iqm/edge-cases/bone.iqe"), {}, &d);
  std::vector<uint8_t> bytes = write_memory(s, Format::Iqm, {}, &d);
  Scene m = read_memory(bytes, Format::Iqm, "bone.iqm");
  const VertexStream* bi = m.meshes[0].find(Attribute::BlendIndices);
  ASSERT_NE(bi, nullptr);
  EXPECT_EQ(bi->format, ComponentType::UShort);
  EXPECT_EQ(bi->get(0, 0), 300.0f);  // the reference compiler stores 44
  // Joint 0 is listed five times with 0.1: merged, it weighs 0.5 like joint 300, instead of the
  // reference compiler's 159,32,32,32 which drops two of its five parts.
  const VertexStream* bw = m.meshes[0].find(Attribute::BlendWeights);
  EXPECT_EQ(bi->get(0, 1), 0.0f);
  EXPECT_EQ(bw->get(0, 0) * 255.0f, 127.0f);
  EXPECT_EQ(bw->get(0, 1) * 255.0f, 128.0f);
  EXPECT_EQ(bw->get(0, 2), 0.0f);
  bool warned = false;
  for (const auto& item : d.items) warned |= item.message.find("300") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(RoundTrip, UnweightedVertexStaysPutInFrameBounds) {
  REQUIRE_CORPUS();
  Scene s = read(corpus("iqm/edge-cases/unweighted.iqe"));
  std::vector<uint8_t> bytes = write_memory(s, Format::Iqm);
  auto h = testutil::iqm_header(bytes);
  ASSERT_EQ(h.num_frames, 2u);
  ASSERT_NE(h.ofs_bounds, 0u);
  auto bound = [&](int frame, int k) { return testutil::peek<float>(bytes, h.ofs_bounds + frame * 32 + k * 4); };
  // frame 0: the triangle at z = 5; frame 1: the weighted corners move up by 1, the unweighted one stays.
  EXPECT_EQ(bound(0, 0), 0.0f);
  EXPECT_EQ(bound(0, 2), 5.0f);
  EXPECT_EQ(bound(0, 4), 1.0f);
  EXPECT_EQ(bound(0, 5), 5.0f);
  EXPECT_EQ(bound(1, 2), 5.0f);  // min z: the unweighted vertex, not the origin
  EXPECT_EQ(bound(1, 4), 1.0f);  // max y: 1 (the reference compiler gets 0)
  EXPECT_EQ(bound(1, 5), 6.0f);
}

TEST(RoundTrip, CustomArraysAndColour) {
  REQUIRE_CORPUS();
  Scene s = via(read(corpus("iqm/edge-cases/custom.iqe")), Format::Iqm);
  const Mesh& m = s.meshes[0];
  const VertexStream* custom = nullptr;
  for (const auto& st : m.streams)
    if (st.attribute == Attribute::Custom) {
      EXPECT_EQ(custom, nullptr) << "undeclared v0 must not be written";
      custom = &st;
    }
  ASSERT_NE(custom, nullptr);
  EXPECT_EQ(custom->name, "lightmap uv");
  EXPECT_EQ(custom->format, ComponentType::UShort);
  EXPECT_EQ(custom->source_size, 2u);
  EXPECT_EQ(custom->get(0, 0), 32768.0f / 65535.0f);
  const VertexStream* colour = m.find(Attribute::Color);
  ASSERT_NE(colour, nullptr);
  EXPECT_EQ(colour->source_size, 3u);
  EXPECT_EQ(colour->get(1, 1), 1.0f);
}

TEST(RoundTrip, DeclaredFormatsAreHonoured) {
  REQUIRE_CORPUS();
  Scene s = via(read(corpus("iqm/edge-cases/fmt.iqe")), Format::Iqm);
  const Mesh& m = s.meshes[0];
  const VertexStream* p = m.find(Attribute::Position);
  EXPECT_EQ(p->format, ComponentType::UByte);
  // file (0, 0.5, 0) -> Scene (0, 0, -0.5): normalised ubyte cannot hold a negative value, so the
  // file value round-trips: 0.5 -> 128 -> 128/255.
  EXPECT_EQ(p->get(2, 2), -128.0f / 255.0f);
  const VertexStream* t = m.find(Attribute::Texcoord);
  EXPECT_EQ(t->format, ComponentType::Half);
  EXPECT_EQ(t->get(1, 1), 2.0f * 5.9604645e-8f);  // nearest half to 1e-7, not truncated
  EXPECT_TRUE(std::isnan(t->get(2, 1)));
}

TEST(RoundTrip, CommentSectionIsCopiedVerbatim) {
  REQUIRE_CORPUS();
  Scene s = read(corpus("iqm/edge-cases/names.iqe"));
  std::vector<uint8_t> bytes = write_memory(s, Format::Iqm);
  auto h = testutil::iqm_header(bytes);
  ASSERT_EQ(h.num_comment % 4, 0u);
  std::string stored(reinterpret_cast<const char*>(bytes.data() + h.ofs_comment), s.comment.size());
  EXPECT_EQ(stored, s.comment);
  EXPECT_EQ(bytes[h.ofs_comment + s.comment.size()], 0);
  EXPECT_EQ(read_memory(bytes, Format::Iqm, "names.iqm").comment, s.comment);
}

TEST(RoundTrip, AnimationOfAnotherSkeletonIsRefused) {
  // The reference compiler attaches anim3's 3-joint animation to m1's 1-joint skeleton by index.
  REQUIRE_CORPUS();
  EXPECT_THROW(convert({corpus("iqm/edge-cases/m1.iqe"), corpus("iqm/edge-cases/anim3.iqe")},
                       (std::filesystem::temp_directory_path() / "meshport-anim3.iqm").string()),
               Error);
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::temp_directory_path() / "meshport-anim3.iqm"));
}

TEST(RoundTrip, AbsoluteIndicesAreFileLocal) {
  // m2 uses `fa 0 1 2`: its own first vertices, whatever is read before it.
  REQUIRE_CORPUS();
  Scene m2 = read(corpus("iqm/edge-cases/m2.iqe"));
  ASSERT_EQ(m2.meshes.size(), 1u);
  EXPECT_EQ(m2.meshes[0].find(Attribute::Position)->get(0, 1), 5.0f);
}

TEST(RoundTrip, EveryCorpusFileReads) {
  REQUIRE_CORPUS();
  const std::vector<std::string> bad = {"oor.iqe", "uneven.iqe"};
  size_t read_ok = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(corpus("iqm"))) {
    auto ext = e.path().extension().string();
    if (ext != ".iqe" && ext != ".iqm") continue;
    std::string name = e.path().filename().string();
    bool expect_error = std::find(bad.begin(), bad.end(), name) != bad.end();
    try {
      Scene s = read(e.path().string());
      EXPECT_FALSE(expect_error) << name;
      Scene back = via(s, Format::Iqm);
      EXPECT_EQ(back.meshes.size(), s.meshes.size()) << name;
      ++read_ok;
    } catch (const Error& err) {
      EXPECT_TRUE(expect_error) << err.what();
    }
  }
  EXPECT_GE(read_ok, 30u);
}

}  // namespace meshport_test_roundtrip
