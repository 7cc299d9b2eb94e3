// PIE <-> glTF across the whole Warzone 2100 corpus: every model goes to .glb and back to PIE
// with the same levels, triangles and connectors; with meshport's extras the PIE data comes back
// whole, and without them (a glTF from another tool) the geometry and connectors still do.
#include "test_util.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace meshport_test_pie_gltf {

using namespace meshport;
using testutil::corpus;

namespace {

std::vector<std::string> corpus_pies() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(corpus("pie")))
    if (e.is_regular_file() && e.path().extension() == ".pie") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

struct LevelShape {
  size_t triangles = 0;
  std::vector<std::array<float, 3>> connectors;  // Scene axes, in order
  bool operator==(const LevelShape&) const = default;
};

// Per PIE level of a Scene read from PIE: its triangle count and its connectors.
std::vector<LevelShape> shape(const Scene& s) {
  std::vector<LevelShape> out;
  for (const auto& l : s.pie->levels) {
    LevelShape ls;
    if (l.mesh >= 0) ls.triangles = s.meshes[size_t(l.mesh)].triangles.size() / 3;
    for (const auto& a : s.attachments)
      if ((l.mesh >= 0 && a.mesh == l.mesh) || (l.joint >= 0 && a.joint == l.joint))
        ls.connectors.push_back(a.transform.translation);
    out.push_back(ls);
  }
  return out;
}

}  // namespace

TEST(PieGltf, EveryCorpusModelGoesToGlbAndBack) {
  REQUIRE_CORPUS();
  auto files = corpus_pies();
  ASSERT_EQ(files.size(), 42u);
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    Diagnostics d;
    Scene a = read(path, {}, &d);
    std::vector<uint8_t> glb = write_memory(a, Format::Glb, {}, &d);
    Scene b = read_memory(glb, Format::Glb, "mem.glb", &d);
    EXPECT_EQ(b.pie, a.pie);
    // The names made up after the file are real names in the glb.
    EXPECT_EQ(b.attachments, testutil::without_made_up(a).attachments);
    std::vector<uint8_t> pie = write_memory(b, Format::Pie, {}, &d);
    Scene c = read_memory(pie, Format::Pie, path, &d);
    EXPECT_EQ(c.pie, a.pie);
    EXPECT_EQ(shape(c), shape(a));
    EXPECT_EQ(c.attachments, a.attachments);
  }
}

TEST(PieGltf, ConvertThroughGlbKeepsLevelsTrianglesAndConnectors) {
  REQUIRE_CORPUS();
  testutil::TempDir tmp;
  for (const auto& path : corpus_pies()) {
    SCOPED_TRACE(path);
    Diagnostics d;
    Scene a = read(path, {}, &d);
    // The default processing generates normals and tangents on the way to glTF.
    convert({path}, tmp / "m.glb", {}, &d);
    convert({tmp / "m.glb"}, tmp / "m.pie", {}, &d);
    Scene c = read(tmp / "m.pie", {}, &d);
    EXPECT_EQ(c.pie->version, a.pie->version);
    EXPECT_EQ(c.pie->global, a.pie->global);
    EXPECT_EQ(c.pie->events, a.pie->events);
    EXPECT_EQ(shape(c), shape(a));
    ASSERT_EQ(c.pie->levels.size(), a.pie->levels.size());
    for (size_t i = 0; i < a.pie->levels.size(); ++i) {
      EXPECT_EQ(c.pie->levels[i].points, a.pie->levels[i].points) << "level " << i + 1;
      if (a.pie->levels[i].mesh >= 0) {
        EXPECT_EQ(c.meshes.at(size_t(c.pie->levels[i].mesh)).face_channels,
                  a.meshes.at(size_t(a.pie->levels[i].mesh)).face_channels)
            << "level " << i + 1;
      }
      EXPECT_EQ(c.pie->levels[i].animobject, a.pie->levels[i].animobject) << "level " << i + 1;
    }
  }
}

// A glTF without meshport's extras (what Blender or another tool would give back): each mesh is
// a level, connectors come from the attachment nodes, triangles are kept.
TEST(PieGltf, GltfWithoutPieExtrasStillGivesLevelsAndConnectors) {
  REQUIRE_CORPUS();
  size_t models = 0, connectors = 0;
  for (const auto& path : corpus_pies()) {
    SCOPED_TRACE(path);
    Diagnostics d;
    Scene a = read(path, {}, &d);
    std::vector<uint8_t> bytes = write_memory(a, Format::Gltf, {}, &d);
    auto json = nlohmann::json::parse(bytes.begin(), bytes.end());
    json["scenes"][0]["extras"]["meshport"].erase("pie");
    if (json.contains("nodes"))
      for (auto& n : json["nodes"])
        if (n.contains("extras")) n.erase("extras");  // attachments become plain empty nodes
    std::string text = json.dump();
    Scene b = read_memory(bytes_of(text), Format::Gltf, "mem.gltf", &d);
    EXPECT_FALSE(b.pie.has_value());
    std::vector<uint8_t> pie = write_memory(b, Format::Pie, {}, &d);
    Scene c = read_memory(pie, Format::Pie, path, &d);
    EXPECT_EQ(c.pie->version, 4);
    // Levels: the non-empty levels of the source, in order, with their triangles.
    std::vector<size_t> src, out;
    for (const auto& l : a.pie->levels)
      if (l.mesh >= 0) src.push_back(a.meshes[size_t(l.mesh)].triangles.size() / 3);
    for (const auto& m : c.meshes) out.push_back(m.triangles.size() / 3);
    EXPECT_EQ(out, src);
    // Connectors: the same positions, in order (a plain empty node loses only its extras).
    std::vector<std::array<float, 3>> ca, cc;
    for (const auto& x : a.attachments) ca.push_back(x.transform.translation);
    for (const auto& x : c.attachments) cc.push_back(x.transform.translation);
    ASSERT_EQ(cc.size(), ca.size());
    for (size_t i = 0; i < ca.size(); ++i)
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(cc[i][k], ca[i][k], 1e-4f);
    ++models;
    connectors += ca.size();
  }
  EXPECT_EQ(models, 42u);
  EXPECT_GT(connectors, 30u);
}

namespace {

// Signed volume of a mesh: positive when its counter-clockwise faces point outward.
double signed_volume(const Mesh& m) {
  const VertexStream* p = m.find(Attribute::Position);
  double v = 0;
  for (size_t t = 0; t + 2 < m.triangles.size(); t += 3) {
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; ++k) {
      a[k] = p->get(m.triangles[t], uint32_t(k));
      b[k] = p->get(m.triangles[t + 1], uint32_t(k));
      c[k] = p->get(m.triangles[t + 2], uint32_t(k));
    }
    v += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return v / 6;
}

}  // namespace

// The closed box blbrbcr1 faces outward in the Scene (and so in glTF and Blender), and arrow.pie,
// which is inside out in the game data, stays inside out: mirror plus winding reversal.
TEST(PieGltf, ClosedModelsFaceOutward) {
  REQUIRE_CORPUS();
  Diagnostics d;
  Scene box = read(corpus("pie/wz2100-4.5.5/base/structs/blbrbcr1.pie"), {}, &d);
  ASSERT_EQ(box.meshes.size(), 1u);
  EXPECT_GT(signed_volume(box.meshes[0]), 1000.0);
  Scene glb = read_memory(write_memory(box, Format::Glb, {}, &d), Format::Glb, "box.glb", &d);
  EXPECT_GT(signed_volume(glb.meshes[0]), 1000.0);
  Scene arrow = read(corpus("pie/wz2100-4.5.5/base/misc/arrow.pie"), {}, &d);
  EXPECT_LT(signed_volume(arrow.meshes[0]), 0.0);
}

}  // namespace meshport_test_pie_gltf
