// Hostile inputs for the text formats IQE, OBJ and PIE (tests/hostile/README.md): the case files
// of tests/hostile/{iqe,obj,pie}/, and what is too big to keep as a file: 1 MB lines, every
// truncation of a valid file, floods of warnings, a deep joint hierarchy, the count limits.
#include "hostile_cases.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace meshport_test_hostile_text_a {

using namespace meshport;

namespace {

constexpr size_t kMegabyte = size_t(1) << 20;
// No message may quote a huge token whole.
constexpr size_t kMaxMessage = 400;

// What reading `text` gave, as hostile::outcome() writes it: "error\t<message>" or "ok" and
// "\twarning\t<message>" per warning. Every message is checked to be short.
std::string outcome(const std::string& text, Format format, const std::string& name, Diagnostics* out = nullptr) {
  Diagnostics local;
  Diagnostics& d = out ? *out : local;
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  try {
    (void)read_memory(bytes, format, name, &d);
  } catch (const Error& e) {
    EXPECT_LE(std::string(e.what()).size(), kMaxMessage);
    return std::string("error\t") + e.what();
  }
  std::string result = "ok";
  for (const Diagnostic& w : d.items) {
    EXPECT_LE(w.to_string().size(), kMaxMessage);
    result += "\twarning\t" + w.to_string();
  }
  return result;
}

// Reads every prefix of `text` (every byte count from 0 to its size): each either reads or throws
// meshport::Error. Returns the outcome per length, for a few exact checks.
std::vector<std::string> every_truncation(const std::string& text, Format format, const std::string& name) {
  std::vector<std::string> results;
  for (size_t n = 0; n <= text.size(); ++n) {
    SCOPED_TRACE(name + " cut to " + std::to_string(n) + " bytes");
    try {
      results.push_back(outcome(text.substr(0, n), format, name));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a meshport::Error: " << e.what();
      results.push_back("");
    }
  }
  return results;
}

std::string repo_file(const std::string& rel) {
  return testutil::slurp(std::filesystem::path(MESHPORT_TEST_DATA).parent_path().parent_path() / rel);
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

const std::string kIqeHeader = "# Inter-Quake Export\n";
const std::string kIqeTriangle = "mesh \"tri\"\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n";
const std::string kObjTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
const std::string kPieHead = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 0 0\nLEVELS 1\nLEVEL 1\n";
const std::string kPieTriangle = "POINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n";

}  // namespace

// ---- The case files ----------------------------------------------------------------------------

TEST(HostileSuite, Iqe) { EXPECT_GE(hostile::run_cases("iqe"), 53u); }
TEST(HostileSuite, Obj) { EXPECT_GE(hostile::run_cases("obj"), 34u); }
TEST(HostileSuite, Pie) { EXPECT_GE(hostile::run_cases("pie"), 52u); }

// ---- IQE ---------------------------------------------------------------------------------------

TEST(HostileIqe, MegabyteLines) {
  const std::string big(kMegabyte, 'x');
  EXPECT_EQ(outcome(kIqeHeader + "# " + big + "\n" + kIqeTriangle, Format::Iqe, "t.iqe"), "ok");
  // A number of a million digits: beyond float range, quoted cut short.
  EXPECT_EQ(outcome(kIqeHeader + "mesh m\nvp 1" + std::string(kMegabyte, '0') + " 0 0\nvp\nvp\n", Format::Iqe, "t.iqe"),
            "ok\twarning\tt.iqe:3:4: warning: number \"1" + std::string(39, '0') +
                "...\" is beyond float range: stored as infinity");
  EXPECT_EQ(outcome(kIqeHeader + "mesh m\nvp 1" + big + "\n", Format::Iqe, "t.iqe"),
            "error\tt.iqe:3:4: error: malformed number \"1" + std::string(39, 'x') + "...\"");
  // A million-byte mesh name in an error, an unknown command of a million bytes.
  EXPECT_EQ(outcome(kIqeHeader + "mesh \"" + big + "\"\nvp 0 0 0\nvt 0 0\nvp 1 0 0\n", Format::Iqe, "t.iqe"),
            "error\tt.iqe:2:1: error: mesh \"" + std::string(40, 'x') +
                "...\": vertex arrays have different lengths (vp 2, vt 1); each must have one entry per vertex");
  EXPECT_EQ(outcome(kIqeHeader + big + "\n" + kIqeTriangle, Format::Iqe, "t.iqe"),
            "ok\twarning\tt.iqe:2:1: warning: unknown command \"" + std::string(40, 'x') +
                "...\" ignored (commands are case-sensitive)");
}

TEST(HostileIqe, EveryTruncation) {
  const std::string text = repo_file("tests/data/cli/skinned.iqe");
  const std::vector<std::string> r = every_truncation(text, Format::Iqe, "t.iqe");
  EXPECT_EQ(r[0], "error\tt.iqe:1:1: error: not an IQE file: the first line must be \"# Inter-Quake Export\"");
  EXPECT_EQ(r[text.find('\n') + 1], "ok");  // the header alone
  // Inside the base poses: the second joint has none.
  EXPECT_EQ(r[text.find("pq 0 0 1")],
            "ok\twarning\tt.iqe:5:1: warning: 2 joints but 1 base poses: missing ones are the identity");
  // In the middle of the vertex arrays.
  EXPECT_EQ(r[text.find("vt 1 1")], "error\tt.iqe:8:1: error: mesh \"hinge\": vertex arrays have different lengths "
                                    "(vp 2, vt 1, vn 1, vb 1); each must have one entry per vertex");
  // In the middle of a face.
  EXPECT_EQ(r[text.find("fm 0 3 2 1") + 5], "error\tt.iqe:34:1: error: a face needs at least 3 vertex indices, got 1");
  // Inside the second frame: its second pose is missing.
  EXPECT_EQ(r[text.rfind("pq 0 0 1")],
            "ok\twarning\tt.iqe:43:1: warning: animation \"bend\": frame 1 has 1 poses for 2 joints: the others keep "
            "their base pose");
  EXPECT_EQ(r[text.size()], "ok");
}

TEST(HostileIqe, WarningsAreBounded) {
  Diagnostics d;
  EXPECT_EQ(outcome(kIqeHeader + repeat("frame\n", 5000), Format::Iqe, "t.iqe", &d).substr(0, 2), "ok");
  EXPECT_EQ(d.items.size(), d.limit);
  EXPECT_EQ(d.dropped, 5000 - d.limit);
  EXPECT_EQ(d.items.back().to_string(), "t.iqe:201:1: warning: frame before any animation command ignored");
}

// Joints name earlier joints as parents, so there are no cycles; a chain as deep as the joint
// limit reads and writes without recursion, one more joint is a located error.
TEST(HostileIqe, DeepJointHierarchy) {
  std::string text = kIqeHeader + "joint j0 -1\n";
  for (size_t i = 1; i < kMaxJoints; ++i) text += "joint j" + std::to_string(i) + " " + std::to_string(i - 1) + "\n";
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Diagnostics d;
  Scene s = read_memory(bytes, Format::Iqe, "t.iqe", &d);
  ASSERT_EQ(s.joints.size(), kMaxJoints);
  EXPECT_EQ(s.joints.back().parent, int32_t(kMaxJoints - 2));
  EXPECT_NO_THROW((void)write_memory(s, Format::Iqe));
  try {
    (void)write_memory(s, Format::Iqm);
  } catch (const Error&) {
    // a clean refusal is a right answer
  }
  EXPECT_EQ(outcome(text + "joint over 0\n", Format::Iqe, "t.iqe"),
            "error\tt.iqe:65538:1: error: joint 65537: more than meshport reads from one file (65536)");
  EXPECT_EQ(outcome(kIqeHeader + "joint a 1\njoint b 0\n", Format::Iqe, "t.iqe"),
            "error\tt.iqe:2:9: error: joint \"a\": parent 1 must be an earlier joint (this is joint 0)");
}

TEST(HostileIqe, CountLimits) {
  EXPECT_EQ(outcome(kIqeHeader + repeat("mesh\n", kMaxMeshes + 1), Format::Iqe, "t.iqe"),
            "error\tt.iqe:65538:1: error: mesh 65537: more than meshport reads from one file (65536)");
  // The vertices before the first mesh command are a mesh too.
  EXPECT_EQ(outcome(kIqeHeader + "vp\n" + repeat("mesh\n", kMaxMeshes), Format::Iqe, "t.iqe"),
            "error\tt.iqe:65538:1: error: mesh 65537: more than meshport reads from one file (65536)");
  EXPECT_EQ(outcome(kIqeHeader + repeat("animation\n", kMaxAnimations + 1), Format::Iqe, "t.iqe"),
            "error\tt.iqe:65538:1: error: animation 65537: more than meshport reads from one file (65536)");
  // Vertex arrays, one per attribute and mesh: at most 2^18 in the file.
  EXPECT_EQ(outcome(kIqeHeader + repeat("mesh\nvp\nvt\nvn\nvc\nvx\n", 52429), Format::Iqe, "t.iqe"),
            "error\tt.iqe:314575:1: error: vertex array 262145: more than meshport reads from one file (262144)");
  // An animation-only frame of more poses than joints can be.
  EXPECT_EQ(outcome(kIqeHeader + "animation a\n" + repeat("pq\n", kMaxJoints + 1), Format::Iqe, "t.iqe"),
            "error\tt.iqe:65539:1: error: animation \"a\": a frame with more than 65536 poses (one per joint): more "
            "joints than meshport reads from one file");
  // Short frames are filled in with base poses, up to 2^20 poses in the file.
  std::string joints;
  for (int i = 0; i < 2000; ++i) joints += "joint j" + std::to_string(i) + "\n";
  EXPECT_EQ(outcome(kIqeHeader + joints + "animation a\n" + repeat("frame\npq\n", 600), Format::Iqe, "t.iqe"),
            "error\tt.iqe:3051:1: error: animation \"a\": frame 524 has 1 poses for 2000 joints: more than 1048576 "
            "poses of the file's animations would be base poses filled in (give every frame one pose per joint)");
  // Blend arrays padded to the longest vb line, bounded by the size of the file.
  std::string pairs;
  for (int i = 0; i < 32; ++i) pairs += " " + std::to_string(i) + " 1";
  EXPECT_EQ(outcome(kIqeHeader + "mesh m\nvb" + pairs + "\n" + repeat("vb\n", 20000), Format::Iqe, "t.iqe"),
            "error\tt.iqe:16857:1: error: blend arrays too large: every vertex of a mesh holds as many pairs as its "
            "longest vb line (32 here), and the file's would need more than 1078666 values");
}

// ---- OBJ ---------------------------------------------------------------------------------------

TEST(HostileObj, MegabyteLines) {
  const std::string big(kMegabyte, 'x');
  EXPECT_EQ(outcome("# " + big + "\n" + kObjTriangle, Format::Obj, "t.obj"), "ok");
  EXPECT_EQ(outcome("v 1" + std::string(kMegabyte, '0') + " 0 0\n" + kObjTriangle, Format::Obj, "t.obj"),
            "ok\twarning\tt.obj:1:3: warning: number \"1" + std::string(39, '0') +
                "...\" is beyond float range: stored as infinity");
  EXPECT_EQ(outcome("v 1" + big + " 0 0\n", Format::Obj, "t.obj"),
            "error\tt.obj:1:3: error: malformed number \"1" + std::string(39, 'x') + "...\"");
  EXPECT_EQ(outcome(kObjTriangle + "f 1 2 " + std::string(kMegabyte, '9') + "\n", Format::Obj, "t.obj"),
            "error\tt.obj:5:7: error: position index " + std::string(24, '9') + "... out of range: 3 defined so far");
  // Names of a million bytes: a material, an object named in a warning, an unknown statement.
  EXPECT_EQ(outcome("usemtl " + big + "\n" + kObjTriangle, Format::Obj, "t.obj"), "ok");
  EXPECT_EQ(outcome("o " + big + "\nvt 0 0\n" + kObjTriangle.substr(0, 24) + "f 1/1 2 3\n", Format::Obj, "t.obj"),
            "ok\twarning\tt.obj:6:7: warning: face corners in different forms (v, v/vt, v//vn, v/vt/vn): missing "
            "values are filled in\twarning\tt.obj:6:7: warning: mesh \"" + std::string(40, 'x') +
                "...\": corners without texture coordinates get (0, 0)");
  EXPECT_EQ(outcome(big + "\n" + kObjTriangle, Format::Obj, "t.obj"),
            "ok\twarning\tt.obj:1:1: warning: unknown statement \"" + std::string(40, 'x') + "...\" ignored");
}

TEST(HostileObj, EveryTruncation) {
  const std::string text = repo_file("tests/data/obj/scene.obj");
  const std::vector<std::string> r = every_truncation(text, Format::Obj, "t.obj");
  EXPECT_EQ(r[0], "ok\twarning\tt.obj: warning: no faces: the file holds no polygonal mesh");
  // In the middle of a vertex.
  EXPECT_EQ(r[text.find("v 1 0 -1") + 5], "error\tt.obj:6:6: error: \"v\" needs x y z: 2 values given");
  // In the middle of a face corner, and after the first corner of a face.
  EXPECT_EQ(r[text.find("f 1/1/1") + 6],
            "error\tt.obj:26:3: error: malformed face corner \"1/1/\": v, v/vt, v//vn or v/vt/vn expected");
  EXPECT_EQ(r[text.find("f 1/1/1") + 8], "error\tt.obj:26:1: error: face with 1 corner: at least 3 are needed");
  // Every library is read from memory here: a warning each.
  EXPECT_EQ(r[text.size()].substr(0, 2), "ok");
}

TEST(HostileObj, WarningsAreBounded) {
  Diagnostics d;
  EXPECT_EQ(outcome(repeat("mtllib\n", 5000) + kObjTriangle, Format::Obj, "t.obj", &d).substr(0, 2), "ok");
  EXPECT_EQ(d.items.size(), d.limit);
  EXPECT_EQ(d.dropped, 5000 - d.limit);
  EXPECT_EQ(d.items.back().to_string(), "t.obj:200:1: warning: mtllib without a file name ignored");
}

TEST(HostileObj, CountLimits) {
  EXPECT_EQ(outcome("v 0 0 0\n" + repeat("g\nf 1 1 1\n", kMaxMeshes + 1), Format::Obj, "t.obj"),
            "error\tt.obj:131075:1: error: mesh 65537: more than meshport reads from one file (65536)");
  std::string materials;
  for (size_t i = 0; i <= kMaxMaterials; ++i) materials += "usemtl m" + std::to_string(i) + "\n";
  EXPECT_EQ(outcome(materials, Format::Obj, "t.obj"),
            "error\tt.obj:65537:8: error: material \"m65536\": more than meshport reads from one file (65536)");
}

TEST(HostileObj, LineBreaks) {
  // CR alone (classic Mac OS) ends lines when the file has no LF.
  std::string cr = kObjTriangle;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  EXPECT_EQ(outcome(cr, Format::Obj, "t.obj"), "ok");
  EXPECT_EQ(outcome("v 0 0 0\rv 1 0\r", Format::Obj, "t.obj"),
            "error\tt.obj:2:6: error: \"v\" needs x y z: 2 values given");
}

// ---- PIE ---------------------------------------------------------------------------------------

TEST(HostilePie, MegabyteLines) {
  const std::string big(kMegabyte, 'x');
  EXPECT_EQ(outcome("# " + big + "\n" + kPieHead + kPieTriangle, Format::Pie, "t.pie"), "ok");
  EXPECT_EQ(outcome(kPieHead + "POINTS 3\n\t1" + std::string(kMegabyte, '0') + " 0 0\n" + kPieTriangle.substr(9),
                    Format::Pie, "t.pie"),
            "error\tt.pie:7:2: error: expected a point coordinate, found \"1" + std::string(39, '0') + "...\"");
  // A million-byte texture name is a name; one with a bad character is quoted cut short.
  const std::string name = "page-" + std::string(kMegabyte, 'a');
  EXPECT_EQ(outcome("PIE 3\nTYPE 200\nTEXTURE 0 " + name + ".png 0 0\nLEVELS 1\nLEVEL 1\n" + kPieTriangle, Format::Pie,
                    "t.pie"),
            "ok");
  EXPECT_EQ(outcome("PIE 3\nTYPE 200\nTEXTURE 0 " + name + "!.png 0 0\nLEVELS 1\nLEVEL 1\n" + kPieTriangle,
                    Format::Pie, "t.pie"),
            "error\tt.pie:3:11: error: texture name \"page-" + std::string(35, 'a') +
                "...\" contains \"!\": only A-Z a-z 0-9 . _ - are allowed");
  EXPECT_EQ(outcome(kPieHead + big + "\n", Format::Pie, "t.pie"),
            "error\tt.pie:6:1: error: unknown or misplaced directive \"" + std::string(40, 'x') + "...\" in level 1");
}

TEST(HostilePie, EveryTruncation) {
  const std::string text = repo_file("tests/data/cli/turret.pie");
  const std::vector<std::string> r = every_truncation(text, Format::Pie, "t.pie");
  EXPECT_EQ(r[0], "error\tt.pie:1:1: error: not a PIE file: the first line must be \"PIE 2\", \"PIE 3\" or \"PIE 4\"");
  EXPECT_EQ(r[text.find("TYPE")], "error\tt.pie:2:1: error: end of file before LEVELS");
  EXPECT_EQ(r[text.find("LEVEL 1")], "error\tt.pie:6:1: error: end of file: LEVEL 1 missing (LEVELS 2)");
  EXPECT_EQ(r[text.find("\t10 0 10")], "error\tt.pie:7:1: error: end of file inside POINTS: 4 lines announced, 2 left");
  EXPECT_EQ(r[text.find("\t200 3 0 2 3")],
            "error\tt.pie:12:1: error: end of file inside POLYGONS: 2 lines announced, 1 left");
  EXPECT_EQ(r[text.find("LEVEL 2")], "error\tt.pie:17:1: error: end of file: LEVEL 2 missing (LEVELS 2)");
  EXPECT_EQ(r[text.find("\t2 0 0 0")],
            "error\tt.pie:24:1: error: end of file inside ANIMOBJECT: 3 lines announced, 2 left");
  EXPECT_EQ(r[text.size()], "ok");
  (void)every_truncation(repo_file("tests/data/pie/feat-pie4.pie"), Format::Pie, "t.pie");
  (void)every_truncation(repo_file("tests/data/pie/feat-shadow.pie"), Format::Pie, "t.pie");
}

TEST(HostilePie, WarningsAreBounded) {
  Diagnostics d;
  const std::string text = kPieHead + repeat("MATERIALS 1 1 1 1 1 1 1 1 1 20\n", 5000) + kPieTriangle;
  EXPECT_EQ(outcome(text, Format::Pie, "t.pie", &d).substr(0, 2), "ok");
  EXPECT_EQ(d.items.size(), d.limit);
  EXPECT_EQ(d.dropped, 5000 - d.limit);
  EXPECT_EQ(d.items.back().to_string(), "t.pie:205:1: warning: MATERIALS is ignored by the engine (kept)");
}

TEST(HostilePie, CountLimits) {
  EXPECT_EQ(outcome("PIE 3\nTYPE 200\nLEVELS 65537\n", Format::Pie, "t.pie"),
            "error\tt.pie:3:8: error: LEVELS 65537: more than meshport reads from one file (65536)");
  // Every animated level is a joint of every animation: 1025 levels with their own ANIMOBJECT
  // would make 1025 animations of 1025 poses a frame.
  auto animated = [](size_t levels) {
    std::string t = "PIE 3\nTYPE 200\nTEXTURE 0 page-1.png 0 0\nLEVELS " + std::to_string(levels) + "\n";
    for (size_t k = 1; k <= levels; ++k)
      t += "LEVEL " + std::to_string(k) + "\n" + kPieTriangle + "ANIMOBJECT " + std::to_string(k) +
           " 0 1\n\t0 0 0 0 0 0 0 1 1 1\n";
    return t;
  };
  EXPECT_EQ(outcome(animated(1024), Format::Pie, "t.pie"), "ok");
  EXPECT_EQ(outcome(animated(1025), Format::Pie, "t.pie"),
            "error\tt.pie:9219:1: error: ANIMOBJECT: the model's animations would need more than 1048576 poses "
            "(animated levels x frames)");
  EXPECT_EQ(outcome(kPieHead + kPieTriangle + "CONNECTORS 65537\n" + repeat("\t0 0 0\n", 65537), Format::Pie, "t.pie"),
            "error\tt.pie:12:12: error: CONNECTORS 65537: more than 65536 connectors in the model");
}

}  // namespace meshport_test_hostile_text_a
