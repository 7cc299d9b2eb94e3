// One large mesh on several threads (issue 35): its IQE -> IQM conversion gives the same bytes
// for any thread count, and so do its tangents, whatever steps run in parts (groups by welded
// vertex, corners by vertex, vertex splitting); `meshport info`'s text needs no skinning.
#include <meshport/meshport.h>
#include <meshport/process.h>
#include <meshport/summary.h>

#include "core/io.h"
#include "core/math.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace meshport_test_onemesh_threads {

using namespace meshport;
namespace fs = std::filesystem;

namespace {

// The shapes of a grid of n x n cells that exercise the tangent steps.
struct GridShape {
  int n = 200;
  bool mirrored = true;      // the left third's u runs backwards: frames split along its edge
  bool group_with_any = false;  // a row of zero UV area: its triangles join a neighbour's group
  bool degenerate = false;   // a column collapsed onto the next: triangles with two corners at one position
  bool quads = false;        // every cell a quad (polygon_sizes), split along its shorter UV diagonal
};

struct GridVertex {
  Vec3 p, n;
  float u, v;
};

GridVertex grid_vertex(const GridShape& g, int x, int y) {
  auto height = [](float a, float b) { return 0.3f * std::sin(a * 0.17f) * std::cos(b * 0.13f); };
  float fx = float(x), fy = float(y);
  if (g.degenerate && x == g.n / 2) fx += 1;  // onto the next column
  const float hx = (height(fx + 0.01f, fy) - height(fx - 0.01f, fy)) / 0.02f;
  const float hy = (height(fx, fy + 0.01f) - height(fx, fy - 0.01f)) / 0.02f;
  float u = fx * 0.01f + 0.002f * std::sin(fy), v = 1 - fy * 0.01f;
  if (g.mirrored && x < g.n / 3) u = -u;
  if (g.group_with_any && y == g.n / 2) v = 1 - (g.n / 2 - 1) * 0.01f;
  return {{fx * 0.1f, fy * 0.1f, height(fx, fy)}, normalize(Vec3{-hx, -hy, 1}), u, v};
}

// Cell (x, y) as two triangles of vertex numbers, the fan (a b c) (a c d) of the quad a b c d.
std::array<uint32_t, 6> cell(int n, int x, int y) {
  const uint32_t a = uint32_t(y * (n + 1) + x), b = a + 1, d = a + uint32_t(n + 1), c = d + 1;
  return {a, b, c, a, c, d};
}

Mesh grid_mesh(const GridShape& g) {
  std::vector<float> p, nrm, uv;
  for (int y = 0; y <= g.n; ++y)
    for (int x = 0; x <= g.n; ++x) {
      const GridVertex v = grid_vertex(g, x, y);
      p.insert(p.end(), v.p.begin(), v.p.end());
      nrm.insert(nrm.end(), v.n.begin(), v.n.end());
      uv.insert(uv.end(), {v.u, v.v});
    }
  Mesh m;
  m.name = "grid";
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, p));
  m.streams.push_back(testutil::float_stream(Attribute::Texcoord, 2, uv));
  m.streams.push_back(testutil::float_stream(Attribute::Normal, 3, nrm));
  for (int y = 0; y < g.n; ++y)
    for (int x = 0; x < g.n; ++x) {
      const auto t = cell(g.n, x, y);
      m.triangles.insert(m.triangles.end(), t.begin(), t.end());
    }
  if (g.quads) m.polygon_sizes.assign(size_t(g.n) * g.n, 4);
  return m;
}

// The same grid as one skinned IQE mesh (normals given, no tangents) with a 30-frame animation.
std::string grid_iqe(const GridShape& g) {
  std::string s = "# Inter-Quake Export\njoint \"root\" -1\npq 0 0 0 0 0 0 1\njoint \"tip\" 0\npq 0 10 0 0 0 0 1\n";
  s += "mesh \"grid\"\nmaterial \"skin\"\n";
  auto num = [&](float f) { s += ' ' + std::to_string(f); };
  for (int y = 0; y <= g.n; ++y)
    for (int x = 0; x <= g.n; ++x) {
      const GridVertex v = grid_vertex(g, x, y);
      s += "vp", num(v.p[0]), num(v.p[1]), num(v.p[2]), s += "\nvt", num(v.u), num(v.v);
      s += "\nvn", num(v.n[0]), num(v.n[1]), num(v.n[2]);
      const float w = float(y) / float(g.n);
      s += "\nvb 0", num(1 - w), s += " 1", num(w), s += '\n';
    }
  for (int y = 0; y < g.n; ++y)
    for (int x = 0; x < g.n; ++x) {
      const auto t = cell(g.n, x, y);
      if (g.quads) {
        s += "fm " + std::to_string(t[0]) + ' ' + std::to_string(t[5]) + ' ' + std::to_string(t[2]) + ' ' +
             std::to_string(t[1]) + '\n';
        continue;
      }
      for (int k = 0; k < 6; k += 3)  // IQE winds clockwise
        s += "fm " + std::to_string(t[k]) + ' ' + std::to_string(t[k + 2]) + ' ' + std::to_string(t[k + 1]) + '\n';
    }
  s += "animation \"bend\"\nframerate 30\n";
  for (int f = 0; f < 30; ++f) {
    const float a = 0.02f * float(f), h = std::sin(a / 2), c = std::cos(a / 2);
    s += "frame\npq 0 0 0 0 0 0 1\npq 0 10 0";
    num(h), num(0), num(0), num(c);
    s += '\n';
  }
  return s;
}

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("meshport_onemesh_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(dir); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// `in` converted with every step on `threads` threads.
std::vector<uint8_t> convert_with(const std::string& in, const std::string& out, unsigned threads, Scene* scene) {
  ConvertOptions o;
  o.read.threads = o.process.threads = o.write.threads = threads;
  o.write.sync = false;
  Diagnostics d;
  Scene s = convert({in}, out, o, &d);
  EXPECT_TRUE(d.items.empty()) << d.items.front().to_string();
  if (scene) *scene = std::move(s);
  return io::read_file(out);
}

}  // namespace

// A 40,401-vertex, 80,000-triangle skinned mesh, above every threshold for threads (the IQE
// read in chunks, tangents in parts, the IQM adjacency on its own thread, bounds in parts).
TEST(OneMeshThreads, IqeToIqmGivesTheSameBytesForAnyThreadCount) {
  TempDir tmp;
  for (const GridShape& shape : {GridShape{}, GridShape{.group_with_any = true},
                                 GridShape{.degenerate = true, .quads = true}}) {
    SCOPED_TRACE("group with any " + std::to_string(shape.group_with_any) + ", quads " + std::to_string(shape.quads));
    const std::string text = grid_iqe(shape);
    ASSERT_GT(text.size(), size_t(4) << 20);  // read in chunks on threads
    const std::string in = (tmp.dir / "grid.iqe").string();
    std::ofstream(in, std::ios::binary) << text;
    Scene serial_scene;
    const std::vector<uint8_t> serial = convert_with(in, (tmp.dir / "one.iqm").string(), 1, &serial_scene);
    ASSERT_EQ(serial_scene.meshes.size(), 1u);
    const Mesh& m = serial_scene.meshes[0];
    ASSERT_NE(m.find(Attribute::Tangent), nullptr);
    // The mirrored third's edge splits its vertices: one copy per row (and two more where the
    // flattened row crosses it).
    EXPECT_EQ(m.vertex_count(), size_t(201 * 201 + 201 + (shape.group_with_any ? 2 : 0)));
    for (unsigned threads : {2u, 3u, 4u}) {
      SCOPED_TRACE(threads);
      const std::vector<uint8_t> parallel = convert_with(in, (tmp.dir / "n.iqm").string(), threads, nullptr);
      ASSERT_EQ(parallel.size(), serial.size());
      EXPECT_TRUE(parallel == serial);
    }
  }
}

// Tangents alone, with the steps' uncommon cases in one large mesh each: frames split along a
// mirror, group-with-any triangles (which keep the groups sequential), degenerate triangles and
// quads.
TEST(OneMeshThreads, TangentsAreTheSameForAnyThreadCount) {
  for (const GridShape& shape : {GridShape{}, GridShape{.group_with_any = true}, GridShape{.degenerate = true},
                                 GridShape{.degenerate = true, .quads = true}, GridShape{.mirrored = false}}) {
    SCOPED_TRACE(std::to_string(shape.mirrored) + std::to_string(shape.group_with_any) +
                 std::to_string(shape.degenerate) + std::to_string(shape.quads));
    Scene serial;
    serial.meshes.push_back(grid_mesh(shape));
    ASSERT_EQ(generate_tangents(serial, {}, nullptr, 1), 1u);
    EXPECT_EQ(serial.meshes[0].vertex_count(),
              size_t(201 * 201 + (shape.mirrored ? 201 : 0) + (shape.group_with_any ? 2 : 0)));
    for (unsigned threads : {2u, 3u, 4u}) {
      SCOPED_TRACE(threads);
      Scene s;
      s.meshes.push_back(grid_mesh(shape));
      ASSERT_EQ(generate_tangents(s, {}, nullptr, threads), 1u);
      EXPECT_EQ(s.meshes[0].triangles, serial.meshes[0].triangles);
      EXPECT_TRUE(s == serial);
    }
  }
}

// `meshport info`'s text shows no animation bounds, so it skins nothing (summarize's
// animation_bounds = false): the text is the same, and --json keeps the bounds.
TEST(OneMeshThreads, InfoTextNeedsNoAnimationBounds) {
  Diagnostics d;
  const std::string text = grid_iqe(GridShape{.n = 40});
  const Scene s = read_memory({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, Format::Iqe, "g.iqe", &d);
  const Summary full = summarize(s, Format::Iqe), lean = summarize(s, Format::Iqe, false);
  ASSERT_EQ(full.animations.size(), 1u);
  ASSERT_TRUE(full.animations[0].bounds.has_value());
  EXPECT_FALSE(lean.animations[0].bounds.has_value());
  EXPECT_EQ(to_text(lean), to_text(full));
  EXPECT_NE(to_json(lean).dump(), to_json(full).dump());
}

}  // namespace meshport_test_onemesh_threads
