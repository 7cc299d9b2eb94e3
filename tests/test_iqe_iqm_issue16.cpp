// Issue 16, IQE and IQM: vb lines hold only real influences; a file with skinned and unskinned
// meshes binds the unskinned ones rigidly (meshport_static) and fills attributes some meshes lack,
// so that every vertex carries the same commands, and reads back to the original Scene; blend
// arrays are never declared float; names ending in a backslash survive tokenisers with escapes;
// validate reports blend indices outside the skeleton; IQM with num_vertexes but no arrays reads;
// .vvm is IQM; non-finite pose values warn; mrfixit and animation-only files survive IQE <-> IQM.
#include <meshport/meshport.h>
#include <meshport/validate.h>

#include "formats/iqe/iqe.h"
#include "formats/iqm/iqm.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace meshport_test_iqe_iqm_issue16 {

using namespace meshport;
using testutil::float_stream;

namespace {

Scene read_iqe(const std::string& text, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return iqe::read(text, "t.iqe", diags ? *diags : local);
}

std::string write_iqe(const Scene& s, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return iqe::write(s, diags ? *diags : local);
}

std::vector<uint8_t> write_iqm(const Scene& s, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return iqm::write(s, WriteOptions{}, diags ? *diags : local);
}

Scene read_iqm(const std::vector<uint8_t>& b, Diagnostics* diags = nullptr) {
  Diagnostics local;
  return iqm::read(b, "t.iqm", diags ? *diags : local);
}

// Lines of `text` starting with `prefix` followed by a space or the end of the line.
size_t count_lines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0 && (line.size() == prefix.size() || line[prefix.size()] == ' ')) ++n;
  return n;
}

std::vector<std::string> lines_of(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> out;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0 && (line.size() == prefix.size() || line[prefix.size()] == ' '))
      out.push_back(line);
  return out;
}

bool has_warning(const Diagnostics& d, const std::string& part) {
  for (const Diagnostic& x : d.items)
    if (x.severity == Severity::Warning && x.message.find(part) != std::string::npos) return true;
  return false;
}

Joint joint(std::string name, int32_t parent, float tx = 0) {
  Joint j;
  j.name = std::move(name);
  j.parent = parent;
  j.rest.translation = {tx, 0, 0};
  return j;
}

// A triangle at height y; `idx`/`wt` (4 per vertex) make it skinned.
Mesh triangle(std::string name, float y, std::vector<float> idx = {}, std::vector<float> wt = {}) {
  Mesh m;
  m.name = std::move(name);
  m.streams.push_back(float_stream(Attribute::Position, 3, {0, y, 0, 1, y, 0, 0, y, 1}));
  if (!idx.empty()) {
    VertexStream bi = float_stream(Attribute::BlendIndices, 4, std::move(idx));
    VertexStream bw = float_stream(Attribute::BlendWeights, 4, std::move(wt));
    bi.format = bw.format = ComponentType::UByte;
    bi.source_size = bw.source_size = 4;
    m.streams.push_back(std::move(bi));
    m.streams.push_back(std::move(bw));
  }
  m.triangles = {0, 1, 2};
  return m;
}

// Two joints, one skinned mesh (vertex 2 unweighted), one static mesh, a 2-frame animation.
Scene mixed_scene() {
  Scene s;
  s.joints = {joint("root", -1), joint("arm", 0, 1)};
  s.meshes.push_back(triangle("body", 0, {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
                              {0.25f, 0.75f, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
  s.meshes.push_back(triangle("base", 2));
  Animation a;
  a.name = "wave";
  a.framerate = 10;
  a.channels = 2;
  for (int f = 0; f < 2; ++f) {
    Transform r = s.joints[0].rest, m = s.joints[1].rest;
    m.translation[1] = float(f);
    a.poses.push_back(r);
    a.poses.push_back(m);
  }
  s.animations.push_back(a);
  return s;
}

// Python's shlex (POSIX mode, as the Blender IQE importers use it) on one double-quoted token at
// the start of `s`: inside double quotes a backslash escapes `"` and `\`. nullopt when unclosed.
std::optional<std::string> shlex_quoted(std::string_view s) {
  if (s.empty() || s[0] != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '"') return out;
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\')) {
      out += s[++i];
      continue;
    }
    out += s[i];
  }
  return std::nullopt;
}

// The reference compiler's name parser: a quoted name ends at the next quote, no escapes.
std::string reference_quoted(std::string_view s) {
  size_t end = s.find('"', 1);
  return std::string(s.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
}

}  // namespace

// ---- 1. vb lines: only real influences ------------------------------------------------------

TEST(IqeIssue16, VbWritesOnlyRealInfluences) {
  Scene s;
  s.joints = {joint("a", -1), joint("b", 0, 1)};
  // v0: joint 1 only (3 padding pairs), v1: two influences, v2: none.
  s.meshes.push_back(triangle("m", 0, {1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 0, 0, 0}));
  Diagnostics d;
  const std::string text = write_iqe(s, &d);
  const std::vector<std::string> vb = lines_of(text, "vb");
  ASSERT_EQ(vb.size(), 3u) << text;
  EXPECT_EQ(vb[0], "vb 1 1");             // was "vb 1 1 1 0 1 0 1 0": importers then gave joint 1 weight 0
  EXPECT_EQ(vb[1], "vb 0 0.5 1 0.5");
  EXPECT_EQ(vb[2], "vb 2 1");             // was "vb 0 0 0 0 0 0 0 0": bound to meshport_static
  EXPECT_NE(text.find("joint \"meshport_static\" -1\npq 0 0 0 0 0 0 1\n"), std::string::npos) << text;
  // Read back: the same influences, the same skeleton; the unweighted vertex has none again.
  Scene r = read_iqe(text);
  ASSERT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints[0].name, "a");
  EXPECT_EQ(r.joints[1].name, "b");
  ASSERT_EQ(r.meshes.size(), 1u);
  using P = std::vector<std::pair<int, float>>;
  EXPECT_EQ(testutil::influences(r.meshes[0], 0), (P{{1, 1.0f}}));
  EXPECT_EQ(testutil::influences(r.meshes[0], 1), (P{{0, 0.5f}, {1, 0.5f}}));
  EXPECT_EQ(testutil::influences(r.meshes[0], 2), P{});
  // The mesh holds as many pairs as its widest vertex: 2; rewriting gives the same text.
  EXPECT_EQ(r.meshes[0].find(Attribute::BlendIndices)->components, 2u);
  EXPECT_EQ(write_iqe(r), text);
  EXPECT_EQ(read_iqe(write_iqe(r)), r);
}

TEST(IqeIssue16, ZeroWeightPairsAreNoInfluence) {
  // A file with padding pairs (what meshport wrote before): they are not influences.
  Scene r = read_iqe(
      "# Inter-Quake Export\njoint \"a\" -1\npq 0 0 0 0 0 0 1\njoint \"b\" 0\npq 0 0 0 0 0 0 1\n"
      "mesh \"m\"\nvp 0 0 0\nvb 1 1 1 0 1 0 1 0\nvp 1 0 0\nvb 0 0 0 0 0 0 0 0\nvp 0 1 0\nvb 0 0.5 1 0.5\nfm 0 1 2\n");
  const VertexStream* bi = r.meshes[0].find(Attribute::BlendIndices);
  const VertexStream* bw = r.meshes[0].find(Attribute::BlendWeights);
  ASSERT_TRUE(bi && bw);
  EXPECT_EQ(bi->components, 2u);
  EXPECT_EQ(bi->data, (std::vector<float>{1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(bw->data, (std::vector<float>{1, 0, 0, 0, 0.5f, 0.5f}));
}

// ---- 2. skinned and unskinned meshes in one file ---------------------------------------------

TEST(IqeIssue16, UnskinnedMeshesAreBoundToTheStaticJoint) {
  const Scene s = mixed_scene();
  const std::string text = write_iqe(s);
  // Every vertex of the file has a vb line (vertex arrays are file-global).
  EXPECT_EQ(count_lines(text, "vp"), 6u);
  EXPECT_EQ(count_lines(text, "vb"), 6u) << text;
  EXPECT_EQ(count_lines(text, "joint"), 3u);
  EXPECT_NE(text.find("joint \"meshport_static\" -1\n"), std::string::npos);
  EXPECT_NE(text.find("mesh \"base\"\n# meshport filled: vb\n"), std::string::npos) << text;
  // The static mesh's vertices and the skinned mesh's unweighted one: joint 2, weight 1.
  const std::vector<std::string> vb = lines_of(text, "vb");
  EXPECT_EQ(vb[2], "vb 2 1");
  for (size_t v = 3; v < 6; ++v) EXPECT_EQ(vb[v], "vb 2 1");
  // Every frame has a pose for it, the identity.
  EXPECT_EQ(count_lines(text, "pq"), 3u + 2u * 3u);
  // Blend arrays are never declared float.
  EXPECT_EQ(text.find("float"), std::string::npos) << text;

  // Read back: the original skeleton, animation and meshes.
  Scene r = read_iqe(text);
  ASSERT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints, s.joints);
  ASSERT_EQ(r.animations.size(), 1u);
  EXPECT_EQ(r.animations[0].channels, 2u);
  EXPECT_EQ(r.animations[0].poses, s.animations[0].poses);
  ASSERT_EQ(r.meshes.size(), 2u);
  EXPECT_EQ(r.meshes[1].find(Attribute::BlendIndices), nullptr);
  EXPECT_EQ(r.meshes[1].find(Attribute::BlendWeights), nullptr);
  EXPECT_EQ(r.meshes[1].streams.size(), 1u);
  EXPECT_EQ(r.meshes[1].find(Attribute::Position)->data, s.meshes[1].find(Attribute::Position)->data);
  using P = std::vector<std::pair<int, float>>;
  EXPECT_EQ(testutil::influences(r.meshes[0], 0), (P{{0, 0.25f}, {1, 0.75f}}));
  EXPECT_EQ(testutil::influences(r.meshes[0], 1), (P{{1, 1.0f}}));
  EXPECT_EQ(testutil::influences(r.meshes[0], 2), P{});
  // IQE -> IQE: the same file, the same Scene.
  EXPECT_EQ(write_iqe(r), text);
  EXPECT_EQ(read_iqe(write_iqe(r)), r);
}

TEST(IqeIssue16, IqmWithUnweightedVerticesThroughIqe) {
  // X -> IQE -> Scene with X = IQM: the unweighted vertex and the static mesh come back as such.
  const Scene s = mixed_scene();
  Scene from_iqm = read_iqm(write_iqm(s));
  Scene r = read_iqe(write_iqe(from_iqm));
  ASSERT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints[0].name, "root");
  EXPECT_EQ(r.joints[1].name, "arm");
  for (size_t v = 0; v < 3; ++v)
    EXPECT_EQ(testutil::influences(r.meshes[0], v), testutil::influences(from_iqm.meshes[0], v)) << v;
  EXPECT_TRUE(testutil::influences(r.meshes[0], 2).empty());
  for (size_t v = 0; v < 3; ++v) EXPECT_TRUE(testutil::influences(r.meshes[1], v).empty());
  EXPECT_EQ(r.animations[0].channels, 2u);
}

TEST(IqeIssue16, StaticJointLookalikeThatMovesIsAnOrdinaryJoint) {
  // A joint named meshport_static that an animation moves is the file's own: kept.
  Scene r = read_iqe(
      "# Inter-Quake Export\njoint \"a\" -1\npq 0 0 0 0 0 0 1\njoint \"meshport_static\" -1\npq 0 0 0 0 0 0 1\n"
      "mesh \"m\"\nvp 0 0 0\nvb 1 1\nvp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfm 0 1 2\n"
      "animation \"x\"\nframe\npq 0 0 0 0 0 0 1\npq 1 0 0 0 0 0 1\n");
  ASSERT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints[1].name, "meshport_static");
  EXPECT_EQ(testutil::influences(r.meshes[0], 0), (std::vector<std::pair<int, float>>{{1, 1.0f}}));
}

TEST(IqeIssue16, BlendArraysAreDeclaredAsIntegers) {
  // Float blend streams (from glTF or PIE) with 300 joints: ushort indices, ubyte weights.
  Scene s;
  for (int j = 0; j < 300; ++j) s.joints.push_back(joint("j" + std::to_string(j), j ? 0 : -1));
  s.meshes.push_back(triangle("m", 0, {299, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  for (VertexStream& st : s.meshes[0].streams)
    if (st.attribute != Attribute::Position) st.format = ComponentType::Float, st.source_size = 1;
  const std::string text = write_iqe(s);
  EXPECT_NE(text.find("vertexarray blendindexes ushort 4\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("vertexarray blendweights"), std::string::npos) << text;  // ubyte 4: the default
  EXPECT_EQ(text.find("float"), std::string::npos) << text;
  Diagnostics d;
  Scene r = read_iqe(text, &d);
  EXPECT_EQ(r.meshes[0].find(Attribute::BlendIndices)->get(0, 0), 299.0f);
  EXPECT_EQ(r.meshes[0].find(Attribute::BlendIndices)->format, ComponentType::UShort);
  EXPECT_EQ(d.warning_count(), 0u);

  // An IQE that declares them float (as meshport wrote before): rewritten as integers.
  Scene f = read_iqe(
      "# Inter-Quake Export\njoint \"a\" -1\npq 0 0 0 0 0 0 1\nvertexarray blendindexes float 4\n"
      "vertexarray blendweights float 4\nmesh \"m\"\nvp 0 0 0\nvb 0 1\nvp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfm 0 1 2\n");
  const std::string again = write_iqe(f);
  EXPECT_EQ(again.find("float"), std::string::npos) << again;
  EXPECT_EQ(testutil::influences(read_iqe(again).meshes[0], 1), testutil::influences(f.meshes[0], 1));
}

TEST(IqeIssue16, AttributesSomeMeshesLackAreFilledAndDroppedOnRead) {
  Scene s;
  Mesh a = triangle("full", 0);
  a.streams.push_back(float_stream(Attribute::Texcoord, 2, {0, 0, 1, 0, 0, 1}));
  a.streams.push_back(float_stream(Attribute::Normal, 3, {0, 1, 0, 0, 1, 0, 0, 1, 0}));
  a.streams.push_back(float_stream(Attribute::Color, 4, {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1}));
  VertexStream custom = float_stream(Attribute::Custom, 1, {5, 6, 7});
  custom.name = "wind";
  custom.custom_slot = 0;
  a.streams.push_back(custom);
  a.smoothing.vertex_key = {10, 11, 12};
  s.meshes.push_back(a);
  s.meshes.push_back(triangle("bare", 1));  // positions only
  const std::string text = write_iqe(s);
  for (const char* cmd : {"vp", "vt", "vn", "vc", "v0", "vs"}) EXPECT_EQ(count_lines(text, cmd), 6u) << cmd << "\n" << text;
  EXPECT_NE(text.find("mesh \"bare\"\n# meshport filled: vt vn vc v0 vs\n"), std::string::npos) << text;
  EXPECT_EQ(count_lines(text, "vb"), 0u);
  // The bare mesh's filled values: texcoords 0, its face normal, white, custom 0, its own vs index.
  const std::vector<std::string> vt = lines_of(text, "vt"), vn = lines_of(text, "vn"), vc = lines_of(text, "vc"),
                                 vs = lines_of(text, "vs");
  EXPECT_EQ(vt[3], "vt 0 0");
  EXPECT_EQ(vc[3], "vc 1 1 1 1");
  EXPECT_EQ(vs[3], "vs 3");
  // The bare triangle (0,1,0) (1,1,0) (0,1,1): cross(e1, e2) = (1,0,0) x (0,0,1) = (0,-1,0).
  const float n[3] = {0, -1, 0};
  Scene r = read_iqe(text);
  // The reader drops the filled arrays again: the Scene is the original.
  ASSERT_EQ(r.meshes.size(), 2u);
  EXPECT_EQ(r.meshes[1].streams.size(), 1u);
  EXPECT_TRUE(r.meshes[1].smoothing.vertex_key.empty());
  EXPECT_EQ(r.meshes[0].streams.size(), s.meshes[0].streams.size());
  EXPECT_EQ(r.meshes[0].smoothing.vertex_key, (std::vector<int32_t>{10, 11, 12}));
  EXPECT_EQ(write_iqe(r), text);
  // What another tool sees (the marker is a comment): the filled normal is the face normal.
  std::string plain = text;
  plain.replace(plain.find("# meshport filled: vt vn vc v0 vs\n"), 34, "");
  Scene other = read_iqe(plain);
  const VertexStream* on = other.meshes[1].find(Attribute::Normal);
  ASSERT_NE(on, nullptr);
  for (size_t v = 0; v < 3; ++v)
    for (uint32_t c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(on->get(v, c), n[c]) << vn[3 + v];
  EXPECT_EQ(other.meshes[1].find(Attribute::Color)->get(0, 3), 1.0f);
  EXPECT_EQ(other.meshes[1].find(Attribute::Custom)->name, "wind");
}

// ---- 3. names ending in a backslash -------------------------------------------------------

TEST(IqeIssue16, NameEndingInBackslashIsEscapedAndReadBack) {
  Scene s;
  s.joints = {joint("bone\\", -1)};
  Mesh m = triangle("name \\", 0);
  m.material = 0;
  s.meshes.push_back(m);
  s.materials.push_back(testutil::material("dir\\\\", "", {1, 1, 1, 1}));
  Animation a;
  a.name = "a\\b\\";
  a.channels = 1;
  a.poses = {Transform{}};
  s.animations.push_back(a);
  const std::string text = write_iqe(s);
  EXPECT_NE(text.find("mesh \"name \\\\\"\n"), std::string::npos) << text;  // was `mesh "name \"`
  EXPECT_NE(text.find("material \"dir\\\\\\\\\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("joint \"bone\\\\\" -1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("animation \"a\\b\\\\\"\n"), std::string::npos) << text;
  // A tokeniser with escapes (shlex) finds the closing quote and the name.
  for (const auto& [line, want] : std::vector<std::pair<std::string, std::string>>{
           {lines_of(text, "mesh")[0], "name \\"},
           {lines_of(text, "material")[0], "dir\\\\"},
           {lines_of(text, "joint")[0], "bone\\"},
           {lines_of(text, "animation")[0], "a\\b\\"}}) {
    std::string_view rest(line);
    rest.remove_prefix(rest.find(' ') + 1);
    EXPECT_EQ(shlex_quoted(rest), want) << line;
  }
  // What meshport wrote before is unreadable there.
  EXPECT_EQ(shlex_quoted("\"name \\\""), std::nullopt);
  // meshport reads every name back.
  Scene r = read_iqe(text);
  EXPECT_EQ(r.meshes[0].name, "name \\");
  EXPECT_EQ(r.materials[0].name, "dir\\\\");
  EXPECT_EQ(r.joints[0].name, "bone\\");
  EXPECT_EQ(r.animations[0].name, "a\\b\\");
  EXPECT_EQ(write_iqe(r), text);
  // Older files (an odd run, as the reference compiler reads them) keep their names.
  Scene old = read_iqe("# Inter-Quake Export\nmesh \"name \\\"\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n");
  EXPECT_EQ(old.meshes[0].name, "name \\");
  EXPECT_EQ(reference_quoted("\"name \\\""), "name \\");
}

// ---- 4. validate: blend indices outside the skeleton --------------------------------------

TEST(ValidateIssue16, BlendIndexOutsideSkeletonIsAnError) {
  Scene s;
  s.joints = {joint("a", -1)};
  s.meshes.push_back(triangle("m", 0, {0, 0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
  Diagnostics d;
  validate_scene(s, "f.iqe", d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].severity, Severity::Error);
  EXPECT_EQ(d.items[0].to_string(),
            "f.iqe: error: mesh 0 ('m'): vertex 1 has blend index 5, outside the skeleton of 1 joints (2 vertices in "
            "all); writers drop such influences");
  // Padding (weight 0) on any index is no influence: no error.
  Diagnostics ok;
  validate_scene(mixed_scene(), "g.iqe", ok);
  EXPECT_TRUE(ok.items.empty());

  testutil::TempDir dir;
  {
    std::ofstream f(dir / "bad.iqe");
    f << "# Inter-Quake Export\njoint \"a\" -1\npq 0 0 0 0 0 0 1\nmesh \"m\"\nvp 0 0 0\nvb 0 1\nvp 1 0 0\nvb 3 1\n"
         "vp 0 1 0\nvb 0 1\nfm 0 1 2\n";
    std::ofstream g(dir / "good.iqe");
    g << "# Inter-Quake Export\njoint \"a\" -1\npq 0 0 0 0 0 0 1\nmesh \"m\"\nvp 0 0 0\nvb 0 1\nvp 1 0 0\nvb 0 1\n"
         "vp 0 1 0\nvb 0 1\nfm 0 1 2\n";
  }
  auto bad = testutil::run_cli("validate '" + (dir / "bad.iqe") + "'");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("mesh 0 ('m'): vertex 1 has blend index 3, outside the skeleton of 1 joints"),
            std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("invalid (1 errors"), std::string::npos) << bad.out;
  auto good = testutil::run_cli("validate '" + (dir / "good.iqe") + "'");
  EXPECT_EQ(good.status, 0) << good.out;
}

// ---- 5. IQM: num_vertexes without vertex arrays -------------------------------------------

TEST(IqmIssue16, VertexCountWithoutArraysIsIgnoredWithAWarning) {
  Scene s;
  s.joints = {joint("root", -1), joint("arm", 0, 1)};
  Animation a;
  a.name = "idle";
  a.framerate = 24;
  a.channels = 2;
  a.poses = {s.joints[0].rest, s.joints[1].rest, s.joints[0].rest, s.joints[1].rest};
  a.poses[3].translation = {2, 0, 0};
  s.animations.push_back(a);
  std::vector<uint8_t> b = write_iqm(s);
  ASSERT_EQ(testutil::iqm_header(b).num_vertexarrays, 0u);
  const uint32_t count = 1476;
  std::memcpy(b.data() + 16 + 8 * 4, &count, 4);  // num_vertexes (offset 48)
  ASSERT_EQ(testutil::iqm_header(b).num_vertexes, count);
  Diagnostics d;
  Scene r = read_iqm(b, &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].to_string(),
            "t.iqm: offset 48: warning: num_vertexes is 1476 but the file has no vertex arrays: read as 0");
  EXPECT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints[1].name, "arm");
  ASSERT_EQ(r.animations.size(), 1u);
  EXPECT_EQ(r.animations[0].frame_count(), 2u);
  EXPECT_EQ(r.animations[0].poses[3].translation[0], 2.0f);
}

// ---- 6. .vvm is IQM ---------------------------------------------------------------------------

TEST(IqmIssue16, VvmExtensionIsIqm) {
  EXPECT_EQ(format_from_path("models/player.vvm"), Format::Iqm);
  EXPECT_EQ(format_from_path("PLAYER.VVM"), Format::Iqm);
  testutil::TempDir dir;
  Scene s = mixed_scene();
  write(s, dir / "m.vvm");
  const std::string bytes = testutil::slurp(dir / "m.vvm");
  EXPECT_EQ(bytes.substr(0, 16), std::string("INTERQUAKEMODEL\0", 16));
  Scene r = read(dir / "m.vvm");
  EXPECT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.meshes.size(), 2u);
  auto cli = testutil::run_cli("info '" + (dir / "m.vvm") + "'");
  EXPECT_EQ(cli.status, 0) << cli.out;
}

// ---- 7. IQM: non-finite pose values warn ------------------------------------------------

TEST(IqmIssue16, NonFiniteRestScaleInPoseChannelsWarns) {
  Scene s = mixed_scene();
  s.joints[1].rest.scale[0] = std::numeric_limits<float>::quiet_NaN();
  for (size_t f = 0; f < 2; ++f) s.animations[0].poses[f * 2 + 1].scale = s.joints[1].rest.scale;
  Diagnostics d;
  write_iqm(s, &d);
  EXPECT_TRUE(has_warning(d, "2 animation pose values are NaN or infinite (the first: animation 'wave', frame 0, "
                             "pose 1 ('arm'), scale x); IQM frames hold finite values only"))
      << (d.items.empty() ? "no diagnostics" : d.items[0].message);
  // An infinite translation in the second frame only: named as such.
  Scene t = mixed_scene();
  t.animations[0].poses[2].translation[2] = std::numeric_limits<float>::infinity();
  Diagnostics e;
  write_iqm(t, &e);
  // Scene z -> IQM -y: the channel named is translation y.
  EXPECT_TRUE(has_warning(e, "1 animation pose values are NaN or infinite (the first: animation 'wave', frame 1, "
                             "pose 0 ('root'), translation y)"));
  // Finite poses: no such warning.
  Diagnostics f;
  write_iqm(mixed_scene(), &f);
  EXPECT_FALSE(has_warning(f, "NaN or infinite"));
}

// ---- Skeletons through IQE <-> IQM --------------------------------------------------------

TEST(IqeIqmIssue16, MrfixitIqeToIqmToIqeKeepsEverything) {
  REQUIRE_CORPUS();
  const std::string src = testutil::slurp(testutil::corpus("iqm/derived/mrfixit.iqe"));
  ASSERT_FALSE(src.empty());
  Diagnostics d1, d2, d3;
  Scene a = read_iqe(src, &d1);
  Scene via = read_iqm(write_iqm(a, &d2));
  const std::string text = write_iqe(via, &d3);
  Scene b = read_iqe(text);
  EXPECT_EQ(text.find("meshport_static"), std::string::npos);  // every vertex is weighted
  EXPECT_EQ(text.find("# meshport filled"), std::string::npos);
  ASSERT_EQ(b.meshes.size(), 2u);
  EXPECT_EQ(b.meshes[0].name, "Body");
  EXPECT_EQ(b.meshes[1].name, "Head");
  EXPECT_EQ(b.meshes[0].vertex_count() + b.meshes[1].vertex_count(), 1861u);
  // Geometry exact, weights as the IQM's ubyte weights decode (within 1/255).
  testutil::expect_scenes_close(a, b, 0.0f, 0.5f / 255.0f);
  ASSERT_EQ(b.joints.size(), 75u);
  for (size_t j = 0; j < 75; ++j) {
    EXPECT_EQ(b.joints[j].name, a.joints[j].name);
    EXPECT_EQ(b.joints[j].parent, a.joints[j].parent);
    EXPECT_EQ(b.joints[j].rest, a.joints[j].rest);
  }
  ASSERT_EQ(b.animations.size(), 1u);
  EXPECT_EQ(b.animations[0].name, "idle");
  EXPECT_EQ(b.animations[0].framerate, 24.0f);
  EXPECT_EQ(b.animations[0].loop, a.animations[0].loop);
  EXPECT_EQ(b.animations[0].frame_count(), 101u);
  EXPECT_EQ(b.animations[0].channels, 75u);
  // Second round: IQE -> IQM -> IQE again is the same text (quantisation is idempotent).
  EXPECT_EQ(write_iqe(read_iqm(write_iqm(b))), text);
}

TEST(IqeIqmIssue16, AnimationOnlyIqmKeepsJointNamesThroughIqe) {
  Scene s;
  s.joints = {joint("hips", -1), joint("spine", 0, 1), joint("head", 1, 2)};
  Animation a;
  a.name = "nod";
  a.framerate = 30;
  a.loop = true;
  a.channels = 3;
  for (int f = 0; f < 3; ++f)
    for (const Joint& j : s.joints) {
      Transform t = j.rest;
      t.translation[1] = float(f) * 0.5f;
      a.poses.push_back(t);
    }
  s.animations.push_back(a);
  Scene from_iqm = read_iqm(write_iqm(s));
  ASSERT_TRUE(from_iqm.meshes.empty());
  const std::string text = write_iqe(from_iqm);
  EXPECT_EQ(text.find("meshport_static"), std::string::npos);
  Scene r = read_iqe(text);
  ASSERT_EQ(r.joints.size(), 3u);
  for (size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(r.joints[j].name, s.joints[j].name);
    EXPECT_EQ(r.joints[j].parent, s.joints[j].parent);
  }
  ASSERT_EQ(r.animations.size(), 1u);
  EXPECT_EQ(r.animations[0].name, "nod");
  EXPECT_TRUE(r.animations[0].loop);
  EXPECT_EQ(r.animations[0].poses, from_iqm.animations[0].poses);
  // And back to IQM: the same joint names.
  Scene again = read_iqm(write_iqm(r));
  ASSERT_EQ(again.joints.size(), 3u);
  EXPECT_EQ(again.joints[2].name, "head");
}

TEST(IqeIssue16, PieWithStaticAndAnimatedLevelsThroughIqe) {
  // The issue's case: a PIE whose first level is static and whose second is animated
  // (ANIMOBJECT): every IQE vertex has a vb line, and the Scene comes back with its joints and
  // its unskinned level.
  Diagnostics d;
  Scene pie = read(std::string(MESHPORT_TEST_DATA) + "/cli/turret.pie", {}, &d);
  ASSERT_EQ(pie.meshes.size(), 2u);
  ASSERT_EQ(pie.meshes[0].find(Attribute::BlendIndices), nullptr);
  ASSERT_NE(pie.meshes[1].find(Attribute::BlendIndices), nullptr);
  const std::string text = write_iqe(pie);
  EXPECT_EQ(count_lines(text, "vb"), count_lines(text, "vp")) << text;
  EXPECT_EQ(count_lines(text, "joint"), pie.joints.size() + 1);
  Scene r = read_iqe(text);
  ASSERT_EQ(r.joints.size(), pie.joints.size());
  for (size_t j = 0; j < r.joints.size(); ++j) EXPECT_EQ(r.joints[j].name, pie.joints[j].name);
  ASSERT_EQ(r.meshes.size(), 2u);
  EXPECT_EQ(r.meshes[0].find(Attribute::BlendIndices), nullptr);
  EXPECT_EQ(r.meshes[0].find(Attribute::BlendWeights), nullptr);
  for (size_t v = 0; v < r.meshes[1].vertex_count(); ++v)
    EXPECT_EQ(testutil::influences(r.meshes[1], v), testutil::influences(pie.meshes[1], v)) << v;
  ASSERT_EQ(r.animations.size(), pie.animations.size());
  for (size_t a = 0; a < r.animations.size(); ++a) {
    EXPECT_EQ(r.animations[a].channels, pie.animations[a].channels);
    EXPECT_EQ(r.animations[a].frame_count(), pie.animations[a].frame_count());
  }
}

// Fuzz finding (fuzz_iqe_roundtrip): a Scene whose own last joint looks like the writer's static
// joint keeps it through IQE, and a rewrite is stable.
TEST(IqeIssue16, SceneJointThatLooksStaticIsKept) {
  Scene s;
  s.joints.push_back({"root", -1, {}});
  s.joints.push_back({"meshport_static", -1, {}});
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  Diagnostics d;
  const std::vector<uint8_t> first = write_memory(s, Format::Iqe, {}, &d);
  const Scene back = read_memory(first, Format::Iqe, "a.iqe", &d);
  ASSERT_EQ(back.joints.size(), 2u);
  EXPECT_EQ(back.joints[1].name, "meshport_static");
  EXPECT_EQ(write_memory(back, Format::Iqe, {}, &d), first);
}

// Fuzz finding (fuzz_iqe_roundtrip): an influence on the index the static joint takes (one past
// the skeleton) is left out with a warning instead of being read back as unbound.
TEST(IqeIssue16, InfluenceOnTheStaticJointsIndexIsLeftOut) {
  Scene s;
  s.joints.push_back({"root", -1, {}});
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendIndices, 2, {0, 1, 0, 0, 0, 0}));
  m.streams.push_back(testutil::float_stream(Attribute::BlendWeights, 2, {0.5f, 0.5f, 1, 0, 0, 0}));
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);  // vertex 2 has no influence: the static joint (index 1) is written
  Diagnostics d;
  const std::vector<uint8_t> first = write_memory(s, Format::Iqe, {}, &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_NE(d.items[0].message.find("1 blend influences on joint 1"), std::string::npos) << d.items[0].message;
  const Scene back = read_memory(first, Format::Iqe, "a.iqe");
  EXPECT_EQ(back.joints.size(), 1u);
  EXPECT_EQ(testutil::influences(back.meshes[0], 0), (std::vector<std::pair<int, float>>{{0, 0.5f}}));
  EXPECT_EQ(write_memory(back, Format::Iqe), first);
}

// Fuzz finding (fuzz_iqe_roundtrip): a mesh whose vertices carry only a format stream (here a
// custom array the file named "obj.wind", a reserved name) got filled-in vp lines; reading those
// back dropped them and the vertex with them, so the second write differed. Such a mesh is now
// written without vertices, with a warning, and the reader warns about the reserved name.
TEST(IqeIssue16, MeshWithOnlyFormatStreamsIsWrittenWithoutVertices) {
  const std::string text =
      "# Inter-Quake Export\n"
      "vertexarray custom2 short 3 \"obj.wind\"\n"
      "mesh \"wind\"\n"
      "v2 1 2 3\n"
      "mesh \"tri\"\n"
      "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\n"
      "fm 0 1 2\n";
  Diagnostics rd;
  const Scene s = read_iqe(text, &rd);
  ASSERT_EQ(s.meshes.size(), 2u);
  EXPECT_EQ(s.meshes[0].vertex_count(), 1u);
  ASSERT_EQ(rd.items.size(), 1u);
  EXPECT_EQ(rd.items[0].message,
            "custom array name \"obj.wind\" is reserved for another format's data (scene.h is_format_stream): "
            "writers leave it out");
  Diagnostics wd;
  const std::vector<uint8_t> first = write_memory(s, Format::Iqe, {}, &wd);
  ASSERT_EQ(wd.items.size(), 1u);
  EXPECT_EQ(wd.items[0].message,
            "mesh \"wind\": its 1 vertices hold only data IQE does not (format streams, scene.h): written "
            "without vertices or faces");
  const Scene back = read_memory(first, Format::Iqe, "a.iqe");
  ASSERT_EQ(back.meshes.size(), 2u);
  EXPECT_EQ(back.meshes[0].vertex_count(), 0u);
  EXPECT_EQ(back.meshes[1].vertex_count(), 3u);
  EXPECT_EQ(back.meshes[1].triangles, s.meshes[1].triangles);
  EXPECT_EQ(write_memory(back, Format::Iqe), first);
}

// A custom array whose name is reserved for format data (scene.h is_format_stream) is read with
// a warning naming its record's offset; writers leave it out, so a rewrite has positions only.
TEST(IqmIssue16, ReservedCustomArrayNameWarns) {
  Scene s;
  Mesh m;
  m.name = "tri";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  VertexStream wind = testutil::float_stream(Attribute::Custom, 1, {1, 2, 3});
  wind.name = "wind";
  m.streams.push_back(wind);
  m.triangles = {0, 1, 2};
  s.meshes.push_back(m);
  std::vector<uint8_t> bytes = write_memory(s, Format::Iqm);
  const std::string text(bytes.begin(), bytes.end());
  const size_t at = text.find(std::string("wind\0", 5));
  ASSERT_NE(at, std::string::npos);
  std::memcpy(bytes.data() + at, "obj.", 4);
  Diagnostics d;
  const Scene back = read_memory(bytes, Format::Iqm, "a.iqm", &d);
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_NE(d.items[0].message.find("vertex array 1: custom name 'obj.' is reserved for another format's data"),
            std::string::npos)
      << d.items[0].message;
  ASSERT_EQ(back.meshes.size(), 1u);
  ASSERT_EQ(back.meshes[0].streams.size(), 2u);
  EXPECT_EQ(back.meshes[0].streams[1].name, "obj.");
  const Scene again = read_memory(write_memory(back, Format::Iqm), Format::Iqm, "b.iqm");
  ASSERT_EQ(again.meshes[0].streams.size(), 1u);
  EXPECT_EQ(again.meshes[0].streams[0].attribute, Attribute::Position);
}

// Fuzz finding (fuzz_iqe_roundtrip, after the fix above): the mesh written without vertices had
// vertex keys (`vs`), which made the writer give every other mesh filled-in `vs` lines; reading
// those back dropped them, so the second write differed. Only written vertices count now.
TEST(IqeIssue16, VertexKeysOfAMeshWrittenWithoutVerticesAreNotFilledElsewhere) {
  const std::string text =
      "# Inter-Quake Export\n"
      "vertexarray custom2 short 3 \"obj.wind\"\n"
      "mesh \"wind\"\n"
      "v2 1 2 3\nvs 7\n"
      "mesh \"tri\"\n"
      "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\n"
      "fm 0 1 2\n";
  const Scene s = read_iqe(text);
  ASSERT_EQ(s.meshes[0].smoothing.vertex_key, (std::vector<int32_t>{7}));
  const std::vector<uint8_t> first = write_memory(s, Format::Iqe);
  const std::string written(first.begin(), first.end());
  EXPECT_EQ(written.find("vs"), std::string::npos) << written;
  EXPECT_EQ(write_memory(read_memory(first, Format::Iqe, "a.iqe"), Format::Iqe), first);
}

// Fuzz finding (fuzz_iqe_roundtrip, after the two fixes above): when another mesh has vertex
// keys, the mesh written without vertices named `vs` in its filled marker only on the second
// write (its own keys counted as present on the first). It has no keys in the file either way.
TEST(IqeIssue16, MeshWrittenWithoutVerticesHasNoKeysBesideAKeyedMesh) {
  const std::string text =
      "# Inter-Quake Export\n"
      "vertexarray custom2 short 3 \"obj.wind\"\n"
      "mesh \"wind\"\n"
      "v2 1 2 3\nvs 7\n"
      "mesh \"tri\"\n"
      "vp 0 0 0\nvs 0\nvp 1 0 0\nvs 1\nvp 0 1 0\nvs 1\n"
      "fm 0 1 2\n";
  const Scene s = read_iqe(text);
  const std::vector<uint8_t> first = write_memory(s, Format::Iqe);
  const std::string written(first.begin(), first.end());
  EXPECT_NE(written.find("mesh \"wind\"\n# meshport filled: vp vs\n"), std::string::npos) << written;
  const Scene back = read_memory(first, Format::Iqe, "a.iqe");
  EXPECT_TRUE(back.meshes[0].smoothing.vertex_key.empty());
  EXPECT_EQ(back.meshes[1].smoothing.vertex_key, (std::vector<int32_t>{0, 1, 1}));
  EXPECT_EQ(write_memory(back, Format::Iqe), first);
}

}  // namespace meshport_test_iqe_iqm_issue16
