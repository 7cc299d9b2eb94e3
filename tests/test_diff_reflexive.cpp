// Issue 33, "diff and rewrites": diff of a model with itself is "same" (every corpus and test file),
// names meshport made up (PIE levels named after the file) never decide the pairing, a PIE level
// without normals is the same as its glb with the normals it implies (a note, not a difference),
// side data differences name the field, and rewriting meshport's own glb gives the same bytes.
#include <meshport/diff.h>
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace meshport_test_diff_reflexive {

using namespace meshport;
namespace fs = std::filesystem;

namespace {

std::string text(const std::vector<Difference>& ds) {
  std::string s;
  for (const Difference& d : ds) s += to_string(d) + "\n";
  return s;
}

// Every file meshport reads by its extension under the corpus, the test data and the examples,
// sorted.
std::vector<fs::path> model_files() {
  std::vector<fs::path> out;
  for (const fs::path& root : {fs::path(MESHPORT_CORPUS), fs::path(MESHPORT_TEST_DATA),
                              fs::path(MESHPORT_TEST_DATA) / ".." / ".." / "examples"}) {
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file()) continue;
      const auto f = format_from_path(e.path().string());
      if (f && format_info(*f).can_read) out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The files that read without an error (the test data holds broken files on purpose), each read
// once.
struct Readable {
  std::vector<fs::path> paths;
  size_t corpus = 0;  // of them under MESHPORT_CORPUS
};
const Readable& readable() {
  static const Readable r = [] {
    Readable x;
    for (const fs::path& p : model_files()) {
      try {
        Diagnostics d;
        (void)read(p.string(), {}, &d);
        x.paths.push_back(p);
        x.corpus += p.string().rfind(MESHPORT_CORPUS, 0) == 0;
      } catch (const std::exception&) {
      }
    }
    return x;
  }();
  return r;
}

Mesh triangle_at(std::array<float, 3> c, const char* name) {
  Mesh m;
  m.name = name;
  m.streams.push_back(testutil::float_stream(
      Attribute::Position, 3, {c[0], c[1], c[2], c[0] + 0.001f, c[1], c[2], c[0], c[1] + 0.001f, c[2]}));
  m.triangles = {0, 1, 2};
  return m;
}

// Appends mesh `m`'s vertices and triangles to `to`.
void append(Mesh& to, const Mesh& m) {
  const uint32_t base = uint32_t(to.vertex_count());
  if (to.streams.empty()) to.streams.push_back(testutil::float_stream(Attribute::Position, 3, {}));
  const VertexStream* p = m.find(Attribute::Position);
  to.streams[0].data.insert(to.streams[0].data.end(), p->data.begin(), p->data.end());
  for (uint32_t i : m.triangles) to.triangles.push_back(base + i);
}

// A box of cube-corner points with NORMALS-less PIE levels, as text.
std::string pie_without_normals() {
  return "PIE 3\nTYPE 10200\nTEXTURE 0 page-1.png 256 256\nLEVELS 2\n"
         "LEVEL 1\nPOINTS 4\n0 0 0\n10 0 0\n10 10 0\n0 10 5\nPOLYGONS 2\n"
         "200 3 0 1 2 0 0 0 1 1 1\n200 3 0 2 3 0 0 1 1 0 1\n"
         "LEVEL 2\nPOINTS 4\n0 0 0\n0 0 10\n0 10 10\n5 10 0\nPOLYGONS 2\n"
         "200 3 0 1 2 0 0 0 1 1 1\n200 3 0 2 3 0 0 1 1 0 1\n";
}

Scene read_text(const std::string& s, Format f, const std::string& name) {
  Diagnostics d;
  return read_memory(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()), f, name, &d);
}

// The glb meshport writes for `s` (what convert writes: normals and tangents generated first for
// a Scene read from another format).
std::vector<uint8_t> glb_of(Scene s, bool generate) {
  Diagnostics d;
  if (generate) {
    ProcessOptions o;
    o.normals = Generate::Missing;
    o.tangents = Generate::Missing;
    process(s, o, &d);
  }
  return write_memory(s, Format::Glb, {}, &d);
}

Scene read_glb(const std::vector<uint8_t>& b) {
  Diagnostics d;
  return read_memory(b, Format::Glb, "pass.glb", &d);
}

}  // namespace

// ---- Reflexive ---------------------------------------------------------------------------------

// Three near-duplicate triangles X, Y, Z (X within the tolerance of Y, Y of Z, X not of Z) whose
// centroids sit across a cell boundary of the centroid grid: the first match that is near enough
// paired X with Y and Y with Z, leaving Z without a partner in a diff of the model with itself.
TEST(DiffReflexive, NearDuplicateTrianglesMatchThemselves) {
  Scene s;
  Mesh m;
  m.name = "chain";
  append(m, triangle_at({0, 0, 0}, ""));  // the bounding box: a diagonal of 100
  append(m, triangle_at({100, 0, -0.002f}, ""));
  append(m, triangle_at({1.005f, 0, 0}, ""));  // X: grid cell 50 (cells of 2 * 0.01)
  append(m, triangle_at({0.997f, 0, 0}, ""));  // Y: cell 49, 0.008 from X
  append(m, triangle_at({0.989f, 0, 0}, ""));  // Z: cell 49, 0.008 from Y, 0.016 from X
  s.meshes.push_back(m);
  const std::vector<Difference> d = diff(s, s);
  EXPECT_TRUE(d.empty()) << text(d);
  // Reordered triangles are the same set too.
  Scene r = s;
  std::rotate(r.meshes[0].triangles.begin(), r.meshes[0].triangles.begin() + 6, r.meshes[0].triangles.end());
  EXPECT_TRUE(diff(s, r).empty()) << text(diff(s, r));
  EXPECT_TRUE(diff(r, s).empty()) << text(diff(r, s));
}

// Two unnamed meshes: one equal to a mesh of the other model, one holding its triangles and as
// many more. Pairing by geometry takes the equal one, not the first that covers the triangles.
TEST(DiffReflexive, GeometryPairingPrefersTheEqualMesh) {
  Scene s;
  Mesh big, small;
  append(big, triangle_at({0, 0, 0}, ""));
  append(big, triangle_at({5, 0, 0}, ""));
  append(big, triangle_at({0, 5, 0}, ""));
  append(small, triangle_at({0, 0, 0}, ""));
  append(small, triangle_at({5, 0, 0}, ""));
  s.meshes = {big, small};
  Scene u;
  u.meshes = {small, big};
  const std::vector<Difference> d = diff(u, s);
  EXPECT_TRUE(d.empty()) << text(d);
}

// diff of every corpus file, test file and example with itself (read twice) is "same".
TEST(DiffReflexive, EveryCorpusAndTestFileIsSameAsItself) {
  REQUIRE_CORPUS();
  const Readable& r = readable();
  EXPECT_EQ(r.corpus, 94u);  // every model of the corpus but two broken IQE edge cases
  EXPECT_GE(r.paths.size(), 140u);
  size_t same = 0;
  for (const fs::path& p : r.paths) {
    Diagnostics d;
    const Scene a = read(p.string(), {}, &d), b = read(p.string(), {}, &d);
    const std::vector<Difference> found = diff(a, b);
    EXPECT_TRUE(found.empty()) << p << ":\n" << text(found);
    EXPECT_TRUE(diff(a, a).empty()) << p;
    same += found.empty();
  }
  EXPECT_EQ(same, r.paths.size());
}

// ---- Made-up names -----------------------------------------------------------------------------

// A byte-identical copy under another name: PIE levels, joints, connectors and clips are named
// after the file ("fireknee_level1"), and pair in order, not by those names.
TEST(DiffReflexive, CopyUnderAnotherNameIsSame) {
  REQUIRE_CORPUS();
  size_t pies = 0, made_up = 0;
  for (const fs::path& p : readable().paths) {
    const auto f = format_from_path(p.string());
    if (*f == Format::Gltf || *f == Format::Obj || *f == Format::ModeDefProp || *f == Format::ModeDefState ||
        *f == Format::ModeDefPath)
      continue;  // side files are found beside the file's name
    const std::string bytes = testutil::slurp(p);
    const Scene a = read_text(bytes, *f, p.string());
    const Scene b = read_text(bytes, *f, (p.parent_path() / ("renamed_copy" + p.extension().string())).string());
    const std::vector<Difference> found = diff(a, b);
    EXPECT_TRUE(found.empty()) << p << ":\n" << text(found);
    pies += *f == Format::Pie;
    for (const Mesh& m : a.meshes) made_up += m.name_made_up;
  }
  EXPECT_GE(pies, 42u);
  EXPECT_GE(made_up, 100u);
}

TEST(DiffReflexive, PieNamesAreMarkedMadeUp) {
  const Scene a = read_text(pie_without_normals(), Format::Pie, "dir/box.pie");
  ASSERT_EQ(a.meshes.size(), 2u);
  EXPECT_EQ(a.meshes[0].name, "box_level1");
  EXPECT_TRUE(a.meshes[0].name_made_up);
  EXPECT_TRUE(a.meshes[1].name_made_up);
  ASSERT_EQ(a.materials.size(), 1u);
  EXPECT_FALSE(a.materials[0].name_made_up);  // named after its texture page: content
  const Scene b = read_text(pie_without_normals(), Format::Pie, "crate.pie");
  EXPECT_EQ(b.meshes[0].name, "crate_level1");
  EXPECT_TRUE(diff(a, b).empty()) << text(diff(a, b));
  // Levels with real names still pair by them: a renamed real mesh is a difference.
  Scene c = a, e = a;
  for (Mesh& m : c.meshes) m.name_made_up = false;
  for (Mesh& m : e.meshes) m.name_made_up = false;
  e.meshes[0].name = "hull";
  const std::vector<Difference> d = diff(c, e);
  ASSERT_EQ(d.size(), 1u) << text(d);
  EXPECT_EQ(to_string(d[0]), "meshes[box_level1].name: \"box_level1\" vs \"hull\" (paired by geometry)");
}

// ---- Implied normals ---------------------------------------------------------------------------

// A PIE level without NORMALS is drawn flat; its glb holds those faceted normals. Each level's
// normals are a note, not a difference.
TEST(DiffReflexive, PieAgainstItsGlbNotesTheImpliedNormals) {
  const Scene pie = read_text(pie_without_normals(), Format::Pie, "box.pie");
  ASSERT_EQ(pie.meshes[0].find(Attribute::Normal), nullptr);
  const Scene glb = read_glb(glb_of(pie, true));
  ASSERT_NE(glb.meshes[0].find(Attribute::Normal), nullptr);
  std::vector<Difference> notes;
  const std::vector<Difference> found = diff(pie, glb, {}, &notes);
  EXPECT_TRUE(found.empty()) << text(found);
  ASSERT_EQ(notes.size(), 2u) << text(notes);
  EXPECT_EQ(to_string(notes[0]),
            "meshes[box_level1].normals: missing vs present (the normals A implies (generated by its smoothing rules, "
            "as convert makes them) agree)");
  // The other way round, B implies them.
  notes.clear();
  EXPECT_TRUE(diff(glb, pie, {}, &notes).empty());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1].path, "meshes[box_level2].normals");
  EXPECT_EQ(notes[1].a, "present");
  // Smooth normals are not what the level implies: a difference saying where.
  Scene smooth = pie;
  NormalOptions o;
  o.angle = 180.0f;
  generate_normals(smooth, o);
  const std::vector<Difference> d = diff(pie, smooth);
  ASSERT_EQ(d.size(), 2u) << text(d);
  EXPECT_EQ(to_string(d[0]), "meshes[box_level1].normals: missing vs present (the normals A implies differ at 2 of 2 triangles)");
}

// Every PIE of the corpus against its glb: no difference.
TEST(DiffReflexive, EveryCorpusPieSameAsItsGlb) {
  REQUIRE_CORPUS();
  size_t pies = 0, noted = 0;
  for (const fs::path& p : readable().paths) {
    if (p.extension() != ".pie" || p.string().rfind(MESHPORT_CORPUS, 0) != 0) continue;
    Diagnostics d;
    const Scene pie = read(p.string(), {}, &d);
    const Scene glb = read_glb(glb_of(pie, true));
    std::vector<Difference> notes;
    const std::vector<Difference> found = diff(pie, glb, {}, &notes);
    EXPECT_TRUE(found.empty()) << p << ":\n" << text(found);
    ++pies;
    noted += notes.size();
  }
  EXPECT_EQ(pies, 42u);
  EXPECT_GT(noted, 40u);
}

// ---- Side data messages ------------------------------------------------------------------------

TEST(DiffReflexive, SideDataNamesTheFieldThatDiffers) {
  Scene a = read_text(pie_without_normals(), Format::Pie, "box.pie");
  Scene b = a;
  b.pie->levels[0].points.push_back({1, 2, 3});
  std::vector<Difference> d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << text(d);
  EXPECT_EQ(to_string(d[0]), "pie.levels[0].points: 4 items vs 5 items");
  b = a;
  b.pie->levels[1].points[2][1] = 7;
  d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << text(d);
  EXPECT_EQ(to_string(d[0]), "pie.levels[1].points[2]: (0 10 10) vs (0 7 10)");
  b = a;
  b.pie->levels[0].overrides.has_type = true;
  b.pie->levels[0].overrides.type = 0x200;
  d = diff(a, b);
  ASSERT_EQ(d.size(), 1u) << text(d);
  EXPECT_EQ(to_string(d[0]), "pie.levels[0].overrides.has_type: false vs true");
}

// ---- Idempotent rewrites -----------------------------------------------------------------------

// Unit normals and tangents of every direction, and weights that sum to 1 in float: meshport's
// glb read and written again is the same bytes (renormalising moved some a float step per pass).
TEST(DiffReflexive, GlbRewriteKeepsUnitNormalsAndWeights) {
  std::mt19937 rng(33);
  std::uniform_real_distribution<float> u(-1, 1);
  Scene s;
  s.joints.push_back({"root", -1, {}});
  s.joints.push_back({"arm", 0, testutil::trs({0, 1, 0})});
  s.joints.push_back({"hand", 1, testutil::trs({0, 0.5f, 0.25f}, {0.1f, 0.2f, 0.3f, 0.9273618f})});
  Mesh m;
  m.name = "m";
  std::vector<float> pos, nrm, tan, bi, bw;
  for (int v = 0; v < 3000; ++v) {
    pos.insert(pos.end(), {u(rng), u(rng), u(rng)});
    std::array<float, 3> n{u(rng), u(rng), u(rng)};
    const float l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (float& x : n) x /= l;
    nrm.insert(nrm.end(), n.begin(), n.end());
    tan.insert(tan.end(), {n[1], -n[0], n[2], 1});
    const float w = std::fabs(u(rng)), x = std::fabs(u(rng)) * (1 - w);
    bi.insert(bi.end(), {0, 1, 2, 0});
    bw.insert(bw.end(), {w, x, 1 - w - x, 0});
  }
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, nrm));
  m.streams.push_back(testutil::float_stream(Attribute::Tangent, 4, tan));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 4, bi));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 4, bw));
  for (uint32_t t = 0; t + 2 < 3000; t += 3) m.triangles.insert(m.triangles.end(), {t, t + 1, t + 2});
  s.meshes.push_back(m);
  const std::vector<uint8_t> first = glb_of(s, false);
  const std::vector<uint8_t> second = glb_of(read_glb(first), false);
  const std::vector<uint8_t> third = glb_of(read_glb(second), false);
  EXPECT_TRUE(second == third);
  EXPECT_TRUE(first == second);
}

// Every corpus file and test file converted to glb, then glb to glb twice: the second and third
// outputs are the same bytes.
TEST(DiffReflexive, EveryFileRewritesToTheSameGlb) {
  REQUIRE_CORPUS();
  size_t files = 0, same = 0;
  for (const fs::path& p : readable().paths) {
    Diagnostics d;
    const auto f = format_from_path(p.string());
    std::vector<uint8_t> first;
    try {
      first = glb_of(read(p.string(), {}, &d), *f != Format::Glb && *f != Format::Gltf);
    } catch (const std::exception&) {  // nothing glTF can hold (an empty model)
      continue;
    }
    const std::vector<uint8_t> second = glb_of(read_glb(first), false);
    const std::vector<uint8_t> third = glb_of(read_glb(second), false);
    EXPECT_TRUE(second == third) << p;
    ++files;
    same += second == third;
  }
  EXPECT_GE(files, 130u);
  EXPECT_EQ(same, files);
}

}  // namespace meshport_test_diff_reflexive
