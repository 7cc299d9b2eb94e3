// Issue 32, item 4: the simplifier's notes name the file they concern and, for a level of detail,
// the level. Before, `convert --simplify 0.5 --lods 0.5` printed ": note: mesh 'Icosphere'
// simplified ..." twice: no file name, and LOD 0's and LOD 1's notes the same text.
#include "test_util.h"

#include <meshport/meshport.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>

namespace meshport_test_lod_notes {

using namespace meshport;

namespace {

// A bumpy grid of n x n quads named "grid" (something for the simplifier to keep).
Scene grid(int n) {
  Mesh m;
  m.name = "grid";
  std::vector<float> pos;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i)
      pos.insert(pos.end(), {float(i) / float(n), 0.05f * std::sin(float(i) * 0.7f) * std::sin(float(j) * 0.9f),
                             float(j) / float(n)});
  m.streams.push_back(testutil::float_stream(Attribute::Position, 3, pos));
  const uint32_t row = uint32_t(n + 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const uint32_t a = uint32_t(j) * row + uint32_t(i), b = a + 1, c = a + row, d = c + 1;
      m.triangles.insert(m.triangles.end(), {a, c, b, b, c, d});
    }
  Scene s;
  s.meshes.push_back(m);
  return s;
}

std::vector<const Diagnostic*> simplified(const Diagnostics& d) {
  std::vector<const Diagnostic*> r;
  for (const Diagnostic& x : d.items)
    if (x.message.find("simplified from") != std::string::npos) r.push_back(&x);
  return r;
}

}  // namespace

TEST(LodNotes, NameTheFileAndTheLevel) {
  testutil::TempDir dir;
  write(grid(40), dir / "grid.iqm");
  ConvertOptions o;
  o.process.simplify.ratio = 0.5f;
  o.lods.ratios = {0.5f, 0.25f};
  const std::string out = (dir / "out.glb");
  Diagnostics d;
  convert({(dir / "grid.iqm")}, out, o, &d);
  const std::vector<const Diagnostic*> notes = simplified(d);
  ASSERT_EQ(notes.size(), 3u);
  std::set<std::string> seen;
  for (const Diagnostic* x : notes) {
    EXPECT_EQ(x->severity, Severity::Note);
    EXPECT_TRUE(seen.insert(x->to_string()).second) << "printed twice: " << x->to_string();
  }
  // Level order: LOD 1 and 2 first (made from the full mesh), then LOD 0 (the output).
  EXPECT_EQ(notes[0]->file, (dir / "out_lod1.glb"));
  EXPECT_TRUE(notes[0]->message.starts_with("LOD 1: mesh 'grid' simplified from 3200 to ")) << notes[0]->message;
  EXPECT_EQ(notes[1]->file, (dir / "out_lod2.glb"));
  EXPECT_TRUE(notes[1]->message.starts_with("LOD 2: mesh 'grid' simplified from 3200 to ")) << notes[1]->message;
  EXPECT_EQ(notes[2]->file, out);
  EXPECT_TRUE(notes[2]->message.starts_with("mesh 'grid' simplified from 3200 to ")) << notes[2]->message;
}

// With --msft-lod the levels are in the output itself: the output's name, "LOD n: " says which.
TEST(LodNotes, MsftLodNamesTheOutput) {
  testutil::TempDir dir;
  write(grid(40), dir / "grid.iqm");
  ConvertOptions o;
  o.lods.ratios = {0.5f};
  o.lods.msft_lod = true;
  const std::string out = (dir / "out.glb");
  Diagnostics d;
  convert({(dir / "grid.iqm")}, out, o, &d);
  const std::vector<const Diagnostic*> notes = simplified(d);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0]->file, out);
  EXPECT_TRUE(notes[0]->message.starts_with("LOD 1: mesh 'grid' simplified from 3200 to ")) << notes[0]->message;
}

// Plain --simplify: the output's name.
TEST(LodNotes, SimplifyNamesTheOutput) {
  testutil::TempDir dir;
  write(grid(40), dir / "grid.iqm");
  ConvertOptions o;
  o.process.simplify.ratio = 0.5f;
  const std::string out = (dir / "out.obj");
  Diagnostics d;
  convert({(dir / "grid.iqm")}, out, o, &d);
  const std::vector<const Diagnostic*> notes = simplified(d);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0]->file, out);
}

}  // namespace meshport_test_lod_notes
