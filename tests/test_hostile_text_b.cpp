// The hostile-input suite (tests/hostile/README.md) for QMSH TMP 10 and the four ModeDef formats:
// the case folders, and what is too big to keep as a file: 1 MB lines, truncation at every byte,
// floods of warnings, a deep bone hierarchy.
#include <meshport/meshport.h>

#include "hostile_cases.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace meshport_test_hostile_text_b {

namespace fs = std::filesystem;
using namespace meshport;

namespace {

constexpr size_t kMiB = size_t(1) << 20;
// Messages quote tokens and names cut to a few dozen bytes: one quoting a 1 MB token stays short.
constexpr size_t kMaxMessage = 400;

const fs::path kData = fs::path(MESHPORT_TEST_DATA);

// What reading `text` as `format` gave: "error\t<message>", or "ok" and "\twarning\t<message>" per
// warning (hostile::outcome's form, for a file in memory named `name`).
std::string outcome_of(const std::string& text, Format format, const std::string& name) {
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Diagnostics diags;
  try {
    (void)read_memory(bytes, format, name, &diags);
  } catch (const Error& e) {
    return std::string("error\t") + e.what();
  }
  std::string out = "ok";
  for (const Diagnostic& d : diags.items) out += "\twarning\t" + d.to_string();
  return out;
}

// The same for a file written into `dir` (formats with side files read them from there).
std::string outcome_in(const fs::path& dir, const std::string& name, const std::string& text) {
  {
    std::ofstream f(dir / name, std::ios::binary);
    f << text;
  }
  Diagnostics diags;
  try {
    (void)read((dir / name).string(), {}, &diags);
  } catch (const Error& e) {
    std::string m = e.what();
    const std::string prefix = dir.string() + "/";
    for (size_t at = m.find(prefix); at != std::string::npos; at = m.find(prefix, at)) m.erase(at, prefix.size());
    return "error\t" + m;
  }
  std::string out = "ok";
  for (const Diagnostic& d : diags.items) out += "\twarning\t" + d.to_string();
  return out;
}

// Reads every prefix of `text` (each byte boundary): each must read or throw meshport::Error (a
// crash or another exception fails the test). Returns the outcome per prefix length.
template <class Read>
std::vector<std::string> every_truncation(const std::string& text, Read read) {
  std::vector<std::string> out(text.size());
  for (size_t n = 0; n < text.size(); ++n) {
    SCOPED_TRACE("prefix of " + std::to_string(n) + " bytes");
    try {
      out[n] = read(text.substr(0, n));
    } catch (const Error& e) {
      ADD_FAILURE() << "outcome_of let an Error through: " << e.what();
    }
    EXPECT_LE(out[n].size(), kMaxMessage) << out[n].substr(0, kMaxMessage);
  }
  return out;
}

// The prefix length that ends right after the first occurrence of `marker` in `text`.
size_t after(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  return at == std::string::npos ? 0 : at + marker.size();
}

void copy_tree(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// ---- QMSH TMP 10 ----------------------------------------------------------------------------

const std::string kQmshQuad = R"(QMSH TMP 10
objects {
	mesh "Quad" {
		0,0,0
		0,0,0
		1,1,1
		"" ""
		30
		materials 1 {
			"Skin"
		}
		vertices 4 {
			0,0,0
			1,0,0
			1,1,0
			0,1,0
		}
		faces 1 {
			4 0 1 0 0,0 1 1,0 2 1,1 3 0,1
		}
		vertex_groups {
		}
	}
}
actions {
}
params {
	fps = 25
}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string qmsh(const std::string& text) { return outcome_of(text, Format::QmshTmp, "big.qmsh.tmp"); }

// A bone of a chain: "b<i>", child of "b<i-1>" (or of `parent` when given).
std::string chain_bone(size_t i, const std::string& parent) {
  return "bone \"b" + std::to_string(i) + "\" { \"" + parent +
         "\" head 0,0,0 0,0,0 0 tail 0,1,0 0,1,0 0 0 0 1 1 1,0,0;0,1,0;0,0,1; 1,0,0,0;0,1,0,0;0,0,1,0;0,0,0,1; }\n";
}

std::string armature_file(const std::string& bones) {
  return "QMSH TMP 10\nobjects {\narmature \"Arm\" {\n0,0,0 0,0,0 1,1,1 1 0\n" + bones +
         "}\n}\nactions {\n}\nparams {\n}\n";
}

}  // namespace

TEST(HostileSuite, QmshTmp) { EXPECT_GE(hostile::run_cases("qmsh_tmp"), 50u); }

TEST(HostileText, QmshTmpMegabyteLines) {
  const std::string comment = "// " + std::string(kMiB, 'c') + "\n";
  EXPECT_EQ(qmsh(replaced(kQmshQuad, "objects {\n", "objects {\n" + comment)), "ok");
  // A 1 MB number: quoted cut to 32 bytes.
  EXPECT_EQ(qmsh(replaced(kQmshQuad, "1,1,0\n", "1," + std::string(kMiB, '7') + ",0\n")),
            "error\tbig.qmsh.tmp:15:6: error: number " + std::string(32, '7') + "... is beyond the float range");
  // A 1 MB identifier where an object is expected.
  EXPECT_EQ(qmsh(replaced(kQmshQuad, "\tmesh \"Quad\"", std::string(kMiB, 'm'))),
            "error\tbig.qmsh.tmp:3:1: error: expected 'mesh', 'armature' or '}', found '" + std::string(32, 'm') +
                "...'");
  // A 1 MB string names a bone that does not exist: the name is cut in the message.
  EXPECT_EQ(qmsh(replaced(replaced(kQmshQuad, "\"\" \"\"", "\"Arm\" \"" + std::string(kMiB, 'n') + "\""), "}\nactions",
                          "armature \"Arm\" { 0,0,0 0,0,0 1,1,1 1 0 }\n}\nactions")),
            "error\tbig.qmsh.tmp:7:9: error: object \"Quad\": parent bone \"" + std::string(60, 'n') +
                "...\" does not exist");
  // A 1 MB string as an object name: read (names are not limited), warnings cut it.
  EXPECT_EQ(qmsh(replaced(kQmshQuad, "\"Quad\"", "\"" + std::string(kMiB, 'q') + "\"")), "ok");
}

TEST(HostileText, QmshTmpEveryTruncation) {
  const std::string text = testutil::slurp(kData / "qmsh/skinned.qmsh.tmp");
  ASSERT_FALSE(text.empty());
  const std::vector<std::string> got = every_truncation(text, [](const std::string& t) {
    return outcome_of(t, Format::QmshTmp, "t.qmsh.tmp");
  });
  EXPECT_EQ(got[0], "error\tt.qmsh.tmp:1:1: error: expected the header 'QMSH TMP 10', found end of file");
  EXPECT_EQ(got[after(text, "QMSH TMP 10\n")],
            "error\tt.qmsh.tmp:2:1: error: expected 'objects', found end of file");
  EXPECT_EQ(got[after(text, "vertices 16 {\n")],
            "error\tt.qmsh.tmp:17:1: error: expected a number, found end of file");
  EXPECT_EQ(got[after(text, "bone \"Root\" {")],
            "error\tt.qmsh.tmp:62:16: error: expected a string, found end of file");
  EXPECT_EQ(got[after(text, "actions {\n")],
            "error\tt.qmsh.tmp:107:1: error: expected an action name (a string) or '}', found end of file");
}

TEST(HostileText, QmshTmpWarningFlood) {
  // 5000 objects without faces: one warning each, at most Diagnostics::limit kept.
  std::string objects;
  for (int i = 0; i < 5000; ++i)
    objects += "mesh \"o" + std::to_string(i) +
               "\" { 0,0,0 0,0,0 1,1,1 \"\" \"\" 30 materials 0 { } vertices 0 { } faces 0 { } vertex_groups { } }\n";
  const std::string text = "QMSH TMP 10\nobjects {\n" + objects + "}\nactions {\n}\nparams {\n}\n";
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Diagnostics diags;
  ASSERT_NO_THROW((void)read_memory(bytes, Format::QmshTmp, "flood.qmsh.tmp", &diags));
  EXPECT_EQ(diags.items.size(), diags.limit);
  EXPECT_EQ(diags.dropped, 5000 - diags.limit);
  EXPECT_EQ(diags.items[0].to_string(), "flood.qmsh.tmp:3:6: warning: object \"o0\" has no faces: skipped");
}

TEST(HostileText, QmshTmpDeepBoneChain) {
  // As many bones as meshport reads (kMaxJoints), each the child of the previous one, in file
  // order and reversed (children first): no recursion, no stack overflow.
  constexpr size_t kBones = kMaxJoints;
  std::string forward, backward;
  for (size_t i = 0; i < kBones; ++i) forward += chain_bone(i, i ? "b" + std::to_string(i - 1) : "");
  for (size_t i = kBones; i-- > 0;) backward += chain_bone(i, i ? "b" + std::to_string(i - 1) : "");
  for (const std::string* bones : {&forward, &backward}) {
    const std::string text = armature_file(*bones);
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    Scene s = read_memory(bytes, Format::QmshTmp, "deep.qmsh.tmp");
    ASSERT_EQ(s.joints.size(), kBones);
    for (size_t j = 1; j < kBones; ++j) ASSERT_EQ(s.joints[j].parent, int32_t(j - 1));
    EXPECT_EQ(s.joints.back().name, "b65535");
  }
  // The same chain closed into a loop (the first bone's parent is the last): the message names
  // the bone whose parent closes it and shows the start of the loop.
  const std::string loop = armature_file(chain_bone(0, "b65535") + forward.substr(forward.find('\n') + 1));
  EXPECT_EQ(qmsh(loop),
            "error\tbig.qmsh.tmp:6:13: error: armature \"Arm\": bone \"b1\": its parents form a cycle (\"b1\" -> "
            "\"b0\" -> \"b65535\" -> \"b65534\" -> \"b65533\" -> \"b65532\" -> \"b65531\" -> \"b65530\" -> ... "
            "(65536 bones))");
  // One bone more than meshport reads: an error at that bone.
  EXPECT_EQ(qmsh(armature_file(forward + chain_bone(kBones, "b65535"))),
            "error\tbig.qmsh.tmp:65541:1: error: more than 65536 bones: more than meshport reads from one file");
}

// ---- ModeDef ---------------------------------------------------------------------------------

namespace {

std::string model(const std::string& text) { return outcome_of(text, Format::ModeDefModel, "big.model"); }
std::string path(const std::string& text) { return outcome_of(text, Format::ModeDefPath, "big.path"); }

const std::string kTriModel = "1 9\n4\n0 0 1  0 0 1  0 0 1\n0 0 0  1 0 0  0 1 0\n3 0 0 1 0 0\n0 0 0\n1 0 0\n0 1 0\n"
                              "0 0 0  1 0 0  2 0 0\n0\n0\n";
const std::string kPath = "2 2\n0    0 0 0\n1    2 4 6\n0.5  0 0 0\n1    0 0 1.5\n";

}  // namespace

TEST(HostileSuite, Model) { EXPECT_GE(hostile::run_cases("model"), 40u); }
TEST(HostileSuite, Prop) { EXPECT_GE(hostile::run_cases("prop"), 15u); }
TEST(HostileSuite, State) { EXPECT_GE(hostile::run_cases("state"), 20u); }
TEST(HostileSuite, Path) { EXPECT_GE(hostile::run_cases("path"), 12u); }

TEST(HostileText, ModelMegabyteLines) {
  EXPECT_EQ(model("# " + std::string(kMiB, 'c') + "\n" + kTriModel), "ok");
  EXPECT_EQ(model("//" + std::string(kMiB, 'c') + "\r" + kTriModel), "ok");
  EXPECT_EQ(model(replaced(kTriModel, "0 0 0\n1 0 0\n", "0 0 0\n" + std::string(kMiB, '1') + " 0 0\n")),
            "error\tbig.model:7:1: error: vertex 1: '" + std::string(32, '1') + "...' is beyond the float range");
  EXPECT_EQ(model(replaced(kTriModel, "1 9\n", "1 " + std::string(kMiB, '9') + "\n")),
            "error\tbig.model:1:3: error: the eigenvector length: '" + std::string(32, '9') +
                "...' is beyond the 32-bit integer range");
  EXPECT_EQ(model(std::string(kMiB, 'x') + kTriModel),
            "error\tbig.model:1:1: error: expected the eigenvalue count (an integer), found '" + std::string(32, 'x') +
                "...'");
}

TEST(HostileText, ModelEveryTruncation) {
  const std::string text = testutil::slurp(kData / "modedef/full.model");
  ASSERT_FALSE(text.empty());
  const std::vector<std::string> got =
      every_truncation(text, [](const std::string& t) { return outcome_of(t, Format::ModeDefModel, "t.model"); });
  EXPECT_EQ(got[0], "error\tt.model:1:1: error: unexpected end of file: expected the eigenvalue count");
  EXPECT_EQ(got[after(text, "// carton\n1\n")],
            "error\tt.model:38:1: error: unexpected end of file: expected the carton vertex count");
  EXPECT_EQ(got[after(text, "// tetrahedra\n")],
            "error\tt.model:34:1: error: unexpected end of file: expected the tetrahedron count");
  EXPECT_EQ(got[text.size() - 1], "ok");  // only the final newline is missing
}

TEST(HostileText, PathMegabyteLinesAndTruncation) {
  EXPECT_EQ(path("# " + std::string(kMiB, 'c') + "\n" + kPath), "ok");
  EXPECT_EQ(path(replaced(kPath, "1    2 4 6", std::string(kMiB, '5') + " 2 4 6")),
            "error\tbig.path:3:1: error: the time of translation key 1: '" + std::string(32, '5') +
                "...' is beyond the float range");
  EXPECT_EQ(path(std::string(kMiB, '#') + "\n" + kPath), "ok");  // a comment of '#'s
  EXPECT_EQ(path(std::string(kMiB, '\xff') + "\n" + kPath),
            "error\tbig.path:1:1: error: expected the translation key count #T (an integer), found '" +
                [] {
                  std::string s;
                  for (int i = 0; i < 32; ++i) s += "\\xFF";
                  return s;
                }() + "...'");
  const std::string text = testutil::slurp(kData / "modedef/state/fly.path");
  const std::vector<std::string> got =
      every_truncation(text, [](const std::string& t) { return outcome_of(t, Format::ModeDefPath, "t.path"); });
  EXPECT_EQ(got[after(text, "2 2\n")],
            "error\tt.path:1:1: error: the translation key count #T 2 is more than the rest of the file can hold");
  EXPECT_EQ(got[text.size() - 1], "ok");
}

TEST(HostileText, PropAndStateMegabyteLines) {
  testutil::TempDir dir;
  copy_tree(kData / "modedef/state", dir.path);
  const std::string prop = testutil::slurp(kData / "modedef/state/box.prop");
  const std::string state = testutil::slurp(kData / "modedef/state/scene.state");
  EXPECT_EQ(outcome_in(dir.path, "c.prop", "# " + std::string(kMiB, 'c') + "\n" + prop), "ok");
  EXPECT_EQ(outcome_in(dir.path, "c.state", "# " + std::string(kMiB, 'c') + "\n" + state), "ok");
  // A 1 MB MODELFILE or object name: too long for a file name, cut in the message.
  EXPECT_EQ(outcome_in(dir.path, "n.prop", replaced(prop, "tri.obj", std::string(kMiB, 'm') + ".model")),
            "error\tn.prop:2:1: error: the model file name MODELFILE '" + std::string(32, 'm') +
                "...' is too long for a file name (1048582 bytes)");
  EXPECT_EQ(outcome_in(dir.path, "n.state", replaced(state, "props/ball.prop", std::string(kMiB, 'p'))),
            "error\tn.state:20:1: error: the name of object 2 (its .prop file) '" + std::string(32, 'p') +
                "...' is too long for a file name (1048576 bytes)");
  EXPECT_EQ(outcome_in(dir.path, "f.state", replaced(state, "30 ", std::string(kMiB, '3') + " ")),
            "error\tf.state:1:1: error: the frame rate FPS: '" + std::string(32, '3') +
                "...' is beyond the 32-bit integer range");
  EXPECT_EQ(outcome_in(dir.path, "m.prop", replaced(prop, "2.5\n", std::string(kMiB, '2') + "\n")),
            "error\tm.prop:4:1: error: the mass MASS: '" + std::string(32, '2') + "...' is beyond the float range");
}

TEST(HostileText, PropAndStateEveryTruncation) {
  testutil::TempDir dir;
  copy_tree(kData / "modedef/state", dir.path);
  const std::string prop = testutil::slurp(kData / "modedef/state/box.prop");
  const std::vector<std::string> props =
      every_truncation(prop, [&](const std::string& t) { return outcome_in(dir.path, "t.prop", t); });
  EXPECT_EQ(props[after(prop, "tri.obj\n")],
            "error\tt.prop:3:1: error: unexpected end of file: expected the rigid-body flag RB");
  EXPECT_EQ(props[prop.size() - 1], "ok");
  const std::string state = testutil::slurp(kData / "modedef/state/scene.state");
  const std::vector<std::string> states =
      every_truncation(state, [&](const std::string& t) { return outcome_in(dir.path, "t.state", t); });
  EXPECT_EQ(states[after(state, "CLUSRAD\n3\n")],
            "error\tt.state:6:1: error: the object count #OBJ 3 is more than the rest of the file can hold");
  EXPECT_EQ(states[after(state, "fly.path\n")],
            "error\tt.state:14:1: error: unexpected end of file: expected the name of object 1 (its .prop file)");
  EXPECT_EQ(states[state.size() - 1], "ok");
}

TEST(HostileText, StateWarningFlood) {
  // 1000 objects, each with its own .prop of SCALE 0: one warning per .prop, at most
  // Diagnostics::limit kept.
  testutil::TempDir dir;
  {
    std::ofstream(dir / "tri.model") << kTriModel;
  }
  const std::string prop = testutil::slurp(kData / "modedef/state/box.prop");
  std::string objects;
  constexpr int kObjects = 1000;
  for (int i = 0; i < kObjects; ++i) {
    const std::string name = "p" + std::to_string(i) + ".prop";
    std::ofstream(dir / name) << replaced(prop, "2 0.75", "0 0.75");
    objects += name + "  0 0 0  1 0 0 0  0 0 0  0 0 0  -1 -1\n";
  }
  std::ofstream(dir / "flood.state") << "30 1 0 -9.8 0 0.3 0.01 0.5 0.2\n" << kObjects << "\n" << objects << "0\n0\n";
  Diagnostics diags;
  ASSERT_NO_THROW((void)read(dir / "flood.state", {}, &diags));
  EXPECT_EQ(diags.items.size(), diags.limit);
  EXPECT_EQ(diags.dropped, kObjects - diags.limit);
  EXPECT_EQ(fs::path(diags.items[0].file).filename(), "p0.prop");
  EXPECT_EQ(diags.items[0].line, 10u);
  EXPECT_EQ(diags.items[0].message, "SCALE 0 is not positive: the object's meshes are degenerate or mirrored");
}

// ---- Per-file limits (include/meshport/meshport.h), reported at the token that passes them ----

TEST(HostileText, QmshTmpActionLimits) {
  const std::string head =
      "QMSH TMP 10\nobjects {\narmature \"Arm\" { 0,0,0 0,0,0 1,1,1 1 0\n" + chain_bone(0, "") + "}\n}\nactions {\n";
  // More actions than meshport reads.
  std::string actions;
  for (size_t i = 0; i <= kMaxAnimations; ++i) actions += "\"\" { }\n";
  EXPECT_EQ(qmsh(head + actions + "}\nparams {\n}\n"),
            "error\tbig.qmsh.tmp:65544:1: error: more than 65536 actions: more than meshport reads from one file");
  // Short actions that together sample too many poses (2^20): the 1049th of 1000 frames each.
  actions.clear();
  for (int i = 0; i < 1100; ++i)
    actions += "\"a" + std::to_string(i) + "\" { \"b0\" { \"LocX\" BEZIER CYCLIC { 0,0 999,1 } } }\n";
  EXPECT_EQ(qmsh(head + actions + "}\nparams {\n}\n"),
            "error\tbig.qmsh.tmp:1056:1: error: action \"a1048\": frames 0 to 999 for 1 bone: the actions together "
            "would hold more than 1048576 poses");
}

TEST(HostileText, ModelLimits) {
  // More materials, or groups, than meshport reads: at the count.
  std::string text = "0 0\n0 0 0 0 65537 0\n";
  for (size_t i = 0; i <= kMaxMaterials; ++i) text += "0 0 0 1 1 1 1 1 0 0 0 1 0 0 0 1 0\n";
  EXPECT_EQ(model(text + "0\n0\n"),
            "error\tbig.model:2:9: error: the material count 65537 is more than meshport reads from one file (65536)");
  text = "0 0\n0 0 0 0 0 65536\n";
  for (size_t i = 0; i < kMaxMeshes; ++i) text += "0 0 0\n";
  EXPECT_EQ(model(text + "0\n0\n"),
            "error\tbig.model:2:11: error: the group count 65536 is more than meshport reads from one file (65536 "
            "meshes, one per group and one for the faces in none)");
  // 2^18 + 1 modes of one node: too many morph targets, at the eigenvalue count.
  const size_t modes = (size_t(1) << 18) + 1;
  text = std::to_string(modes) + " 3\n";
  for (size_t k = 0; k < modes; ++k) text += "1\n";
  for (size_t k = 0; k < modes; ++k) text += "1 0 0\n";
  text += "0 0 0\n1 0 0 1 0 0\n0 0 0\n0 0 0 0 0 0 0 0 0\n0\n0\n";
  EXPECT_EQ(model(text), "error\tbig.model:1:1: error: the model's 262145 modes on its 1 meshes would make 262145 "
                         "morph targets (more than 262144)");
}

TEST(HostileText, StateLimits) {
  testutil::TempDir dir;
  copy_tree(kData / "modedef/state", dir.path);
  const std::string head = "30 1 0 -9.8 0 0.3 0.01 0.5 0.2\n";
  // More objects (joints) than meshport reads: at the object count.
  std::string objects;
  for (size_t i = 0; i <= kMaxJoints; ++i) objects += "box.prop 0 0 0 1 0 0 0 0 0 0 0 0 0 -1 -1\n";
  EXPECT_EQ(outcome_in(dir.path, "objects.state", head + "65537\n" + objects + "0\n0\n"),
            "error\tobjects.state:2:1: error: the object count #OBJ 65537 is more than meshport reads from one file "
            "(65536 objects, one joint each)");
  // More constraints (attachments) than meshport reads: at the constraint count.
  std::string constraints;
  for (size_t i = 0; i <= kMaxJoints; ++i) constraints += "-1 0 1 2 3\n";
  EXPECT_EQ(outcome_in(dir.path, "constraints.state", head + "0\n0\n65537\n" + constraints),
            "error\tconstraints.state:4:1: error: the constraint count #CONS 65537 is more than meshport reads from "
            "one file (65536 constraints, one attachment each)");
  // Planes that would pass the mesh limit, after one object's mesh: at the plane count.
  std::string planes;
  for (size_t i = 0; i < kMaxMeshes; ++i) planes += "0 1 0 0 0 0\n";
  EXPECT_EQ(outcome_in(dir.path, "planes.state",
                       head + "1\nbox.prop 0 0 0 1 0 0 0 0 0 0 0 0 0 -1 -1\n65536\n" + planes + "0\n"),
            "error\tplanes.state:4:1: error: 65536 planes after 1 object mesh would make more than 65536 meshes: more "
            "than meshport reads from one file");
}

}  // namespace meshport_test_hostile_text_b
