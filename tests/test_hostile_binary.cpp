// The hostile-input suite for the binary formats and glTF (issue 8; tests/hostile/README.md):
// the case files of tests/hostile/{iqm,qmsh,gltf,glb}, and what is too big to keep as a file:
// every truncation of a valid file, megabyte strings and lines, deep nesting, floods of warnings,
// deep skeletons and inputs whose ranges overlap to amplify what they would allocate.
#include <meshport/meshport.h>

#include "hostile_cases.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace meshport_test_hostile_binary {

using namespace meshport;

TEST(HostileSuite, Iqm) { EXPECT_GE(hostile::run_cases("iqm"), 60u); }
TEST(HostileSuite, Qmsh) { EXPECT_GE(hostile::run_cases("qmsh"), 40u); }
TEST(HostileSuite, Gltf) { EXPECT_GE(hostile::run_cases("gltf"), 38u); }
TEST(HostileSuite, Glb) { EXPECT_GE(hostile::run_cases("glb"), 31u); }

namespace {

using Bytes = std::vector<uint8_t>;

Bytes load(const std::string& rel) {
  const std::string t = testutil::slurp(hostile::root() / rel);
  return Bytes(t.begin(), t.end());
}

template <class T>
T get(const Bytes& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

template <class T>
void set(Bytes& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

template <class T>
void append(Bytes& b, T v) {
  const size_t at = b.size();
  b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}

// Reads `data` as `format`; the error's diagnostic when it fails, else nullopt.
std::optional<Diagnostic> read_error(const Bytes& data, Format format, const std::string& name,
                                     Diagnostics* diags = nullptr) {
  try {
    (void)read_memory(data, format, name, diags);
  } catch (const Error& e) {
    return e.diagnostic();
  }
  return std::nullopt;
}

// Every strict prefix of `full` fails with a meshport::Error (no crash, no other exception);
// returns the diagnostic of each cut.
std::vector<Diagnostic> every_truncation(const Bytes& full, Format format, const std::string& name,
                                         bool patch_glb_length = false) {
  std::vector<Diagnostic> out;
  for (size_t n = 0; n < full.size(); ++n) {
    Bytes cut(full.begin(), full.begin() + ptrdiff_t(n));
    if (patch_glb_length && n >= 12) set<uint32_t>(cut, 8, uint32_t(n));
    std::optional<Diagnostic> d;
    EXPECT_NO_THROW(d = read_error(cut, format, name)) << "cut at " << n;
    EXPECT_TRUE(d.has_value()) << name << " cut at " << n << " reads";
    out.push_back(d.value_or(Diagnostic{}));
  }
  return out;
}

// "count x elem bytes at offset O end at E, past the end of the file (N bytes)", as the IQM
// reader words a section that does not fit.
std::string iqm_past(const char* what, uint64_t count, uint64_t elem, uint64_t ofs, uint64_t n) {
  const std::string c = elem == 1 ? fmt::format("{} bytes", count) : fmt::format("{} x {} bytes", count, elem);
  return fmt::format("{}: {} at offset {} end at {}, past the end of the file ({} bytes)", what, c, ofs,
                     ofs + count * elem, n);
}

}  // namespace

// IQM: every truncation of iqm/valid.iqm fails, and at each section boundary with the message
// naming the section that no longer fits.
TEST(HostileTruncation, IqmEveryByte) {
  const Bytes full = load("iqm/valid.iqm");
  const std::vector<Diagnostic> d = every_truncation(full, Format::Iqm, "t.iqm");
  ASSERT_EQ(d.size(), full.size());
  auto field = [&](int i) { return get<uint32_t>(full, 16 + 4 * size_t(i)); };
  // header fields by index (version is 0)
  const uint32_t num_text = field(3), ofs_text = field(4), ofs_meshes = field(6), num_arrays = field(7),
                 ofs_arrays = field(9), num_tris = field(10), ofs_tris = field(11), ofs_adj = field(12),
                 num_joints = field(13), ofs_joints = field(14), num_poses = field(15), ofs_poses = field(16),
                 ofs_anims = field(18), num_frames = field(19), num_fc = field(20), ofs_frames = field(21),
                 ofs_bounds = field(22), num_comment = field(23), ofs_comment = field(24), ofs_ext = field(26);
  EXPECT_EQ(d[0].message, "not an IQM file: the magic is not \"INTERQUAKEMODEL\\0\"");
  for (size_t n : {size_t(1), size_t(15), size_t(16), size_t(123)}) {
    EXPECT_EQ(d[n].offset, 0);
    EXPECT_EQ(d[n].message, fmt::format("truncated header: the file has {} bytes, an IQM header needs 124", n));
  }
  struct Boundary {
    uint32_t at;
    int64_t offset;
    std::string message;
  };
  const Boundary boundaries[] = {
      {ofs_text, 28, iqm_past("num_text", num_text, 1, ofs_text, ofs_text)},
      {ofs_meshes, 36, iqm_past("num_meshes", 1, 24, ofs_meshes, ofs_meshes)},
      {ofs_arrays, 44, iqm_past("num_vertexarrays", num_arrays, 20, ofs_arrays, ofs_arrays)},
      {ofs_tris, 56, iqm_past("num_triangles", num_tris, 12, ofs_tris, ofs_tris)},
      {ofs_adj, 64, iqm_past("adjacency", num_tris, 12, ofs_adj, ofs_adj)},
      {ofs_joints, 68, iqm_past("num_joints", num_joints, 48, ofs_joints, ofs_joints)},
      {ofs_poses, 76, iqm_past("num_poses", num_poses, 88, ofs_poses, ofs_poses)},
      {ofs_anims, 84, iqm_past("num_anims", 1, 20, ofs_anims, ofs_anims)},
      {ofs_frames, 92,
       fmt::format("num_frames x num_framechannels: {} frames x {} channels x 2 bytes at offset {} end at {}, past the "
                   "end of the file ({} bytes)",
                   num_frames, num_fc, ofs_frames, ofs_frames + num_frames * num_fc * 2, ofs_frames)},
      {ofs_bounds, 104, iqm_past("bounds", num_frames, 32, ofs_bounds, ofs_bounds)},
      {ofs_comment, 108, iqm_past("num_comment", num_comment, 1, ofs_comment, ofs_comment)},
      {ofs_ext, 120,
       fmt::format("extension 0: its record at offset {} is past the end of the file ({} bytes)", ofs_ext, ofs_ext)},
  };
  for (const Boundary& b : boundaries) {
    SCOPED_TRACE(b.message);
    EXPECT_EQ(d[b.at].offset, b.offset);
    EXPECT_EQ(d[b.at].message, b.message);
  }
  // each vertex array's data: the sections after the arrays are checked first
  for (uint32_t i = 0; i < num_arrays; ++i) {
    const uint32_t at = get<uint32_t>(full, ofs_arrays + 20 * i + 16);
    EXPECT_EQ(d[at].offset, 60);
    EXPECT_EQ(d[at].message, fmt::format("ofs_triangles ({}) is past the end of the file ({} bytes)", ofs_tris, at));
  }
  // inside the extension's data, the last bytes of the file
  EXPECT_EQ(d[full.size() - 1].offset, ofs_ext);
  EXPECT_EQ(d[full.size() - 1].message,
            fmt::format("extension 0: 4 bytes at offset {} end at {}, past the end of the file ({} bytes)",
                        ofs_ext + 16, ofs_ext + 20, full.size() - 1));
}

// TFQMSH10: every truncation of qmsh/valid.qmsh fails; at each section's offset the section is
// past the end.
TEST(HostileTruncation, QmshEveryByte) {
  const Bytes full = load("qmsh/valid.qmsh");
  const std::vector<Diagnostic> d = every_truncation(full, Format::Qmsh, "t.qmsh");
  ASSERT_EQ(d.size(), full.size());
  EXPECT_EQ(d[0].message, "not a TFQMSH10 file: the magic is not \"TFQMSH10\"");
  for (size_t n : {size_t(1), size_t(8), size_t(66)})
    EXPECT_EQ(d[n].message, fmt::format("truncated header: the file has {} bytes, a TFQMSH10 header needs 67", n));
  const char* names[] = {"vertex", "index", "submesh", "bone", "animation"};
  for (int s = 0; s < 5; ++s) {
    const int32_t at = get<int32_t>(full, 47 + 4 * size_t(s));
    SCOPED_TRACE(names[s]);
    EXPECT_EQ(d[size_t(at)].offset, 47 + 4 * s);
    EXPECT_EQ(d[size_t(at)].message,
              fmt::format("the {} section offset {} is past the end of the file ({} bytes)", names[s], at, at));
  }
  // the last key's last value
  EXPECT_EQ(d[full.size() - 1].message.rfind("animation section: animation 0 ('bend') with 2 keys of 2 bones needs", 0),
            0u)
      << d[full.size() - 1].message;
}

// GLB: every truncation of glb/valid.glb fails, both as cut (the header's length then says it is
// truncated) and with the header's length set to the cut, which reaches each chunk's checks.
TEST(HostileTruncation, GlbEveryByte) {
  const Bytes full = load("glb/valid.glb");
  const uint32_t json_len = get<uint32_t>(full, 12);
  const size_t bin_header = 20 + json_len, bin_data = bin_header + 8;
  const std::vector<Diagnostic> cut = every_truncation(full, Format::Glb, "t.glb");
  for (size_t n = 0; n < 12; ++n) {
    EXPECT_EQ(cut[n].offset, int64_t(n));
    EXPECT_EQ(cut[n].message, fmt::format("truncated GLB header: the file has {} bytes, 12 needed", n));
  }
  for (size_t n = 12; n < full.size(); ++n) {
    EXPECT_EQ(cut[n].offset, 8);
    EXPECT_EQ(cut[n].message, fmt::format("the header's length is {} bytes but the file has {} (truncated?)",
                                          full.size(), n));
  }
  const std::vector<Diagnostic> patched = every_truncation(full, Format::Glb, "t.glb", true);
  for (size_t n : {size_t(12), size_t(16), size_t(19)}) {
    EXPECT_EQ(patched[n].offset, 12);
    EXPECT_EQ(patched[n].message, fmt::format("truncated GLB: {} bytes hold no JSON chunk header", n));
  }
  for (size_t n : {size_t(20), size_t(1000), bin_header - 1}) {
    EXPECT_EQ(patched[n].offset, 12);
    EXPECT_EQ(patched[n].message,
              fmt::format("the JSON chunk's {} bytes end at offset {}, past the end of the file ({} bytes)", json_len,
                          bin_header, n));
  }
  EXPECT_EQ(patched[bin_header].message, "buffers[0]: refers to the GLB BIN chunk, but the file has none");
  EXPECT_EQ(patched[bin_header + 4].offset, int64_t(bin_header));
  EXPECT_EQ(patched[bin_header + 4].message, "truncated chunk header: 4 bytes left, 8 needed");
  for (size_t n : {bin_data, bin_data + 300, full.size() - 1}) {
    EXPECT_EQ(patched[n].offset, int64_t(bin_header));
    EXPECT_EQ(patched[n].message,
              fmt::format("chunk of 600 bytes at offset {} ends at {}, past the end of the file ({} bytes)", bin_header,
                          full.size(), n));
  }
}

// .gltf: every truncation of the JSON (its buffer embedded, so it reads from memory) is a located
// JSON syntax error.
TEST(HostileTruncation, GltfEveryByte) {
  const Scene s = read(std::string(MESHPORT_TEST_DATA) + "/cli/skinned.iqe");
  const Bytes full = write_memory(s, Format::Gltf);
  ASSERT_NO_THROW(read_memory(full, Format::Gltf, "t.gltf"));
  const std::vector<Diagnostic> d = every_truncation(full, Format::Gltf, "t.gltf");
  for (size_t n = 0; n < d.size(); ++n) {
    EXPECT_EQ(d[n].line, 1u) << n;
    EXPECT_NE(d[n].message.find("syntax error"), std::string::npos) << n << ": " << d[n].message;
  }
  EXPECT_EQ(d[0].message,
            "syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal");
}

namespace {

// The hinge (tests/data/cli/skinned.iqe) as .gltf, its buffer a data URI, on one line.
std::string base_gltf() {
  const Bytes b = write_memory(read(std::string(MESHPORT_TEST_DATA) + "/cli/skinned.iqe"), Format::Gltf);
  return std::string(b.begin(), b.end());
}

// base_gltf() with `member` added to its top-level object.
Bytes gltf_with(const std::string& member) {
  std::string t = base_gltf();
  t.pop_back();  // '}'
  t += "," + member + "}";
  return Bytes(t.begin(), t.end());
}

}  // namespace

// A .gltf whose JSON is one line of more than a megabyte reads; a megabyte string quoted by a
// message is cut.
TEST(HostileGltf, MegabyteLineAndStrings) {
  // valid.gltf with asset.extras a megabyte array of numbers, on its one line
  std::string numbers = "\"extras\":{\"pad\":[";
  while (numbers.size() < (size_t(1) << 20)) numbers += "0.125,";
  numbers += "1]},";
  std::string line = base_gltf();
  line.replace(line.find("\"asset\":{"), 9, "\"asset\":{" + numbers);
  const std::string big(size_t(1) << 20, 'x');
  {
    std::string t = line;
    t.pop_back();
    t += ",\"asset\":{\"version\":\"2.0\",\"copyright\":\"" + big + "\"}}";
    // a duplicate "asset": an error, located past the megabyte
    Diagnostics diags;
    const std::optional<Diagnostic> e = read_error(Bytes(t.begin(), t.end()), Format::Gltf, "t.gltf", &diags);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->line, 1u);
    EXPECT_GT(e->column, 1u << 20);
    EXPECT_EQ(e->message, "the key \"asset\" appears twice in one object (glTF requires unique keys)");
  }
  {
    // the megabyte line alone: read
    ASSERT_GT(line.size(), size_t(1) << 20);
    ASSERT_EQ(line.find('\n'), std::string::npos);
    Diagnostics diags;
    Scene s;
    EXPECT_NO_THROW(s = read_memory(Bytes(line.begin(), line.end()), Format::Gltf, "line.gltf", &diags));
    EXPECT_EQ(s.meshes.size(), 1u);
    EXPECT_TRUE(diags.items.empty());
  }
  // a megabyte version string, key and URI: every message quoting one cuts it
  const std::string cut = fmt::format("{}... ({} bytes)", std::string(64, 'x'), big.size());
  std::string t = base_gltf();
  const std::string v = "\"version\":\"2.0\"";
  t.replace(t.find(v), v.size(), "\"version\":\"" + big + "\"");
  std::optional<Diagnostic> e = read_error(Bytes(t.begin(), t.end()), Format::Gltf, "t.gltf");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->message, fmt::format("asset.version: glTF '{}' is not read (only glTF 2.x)", cut));
  e = read_error(gltf_with("\"extensionsRequired\":[\"" + big + "\"],\"x\":\"" + big + "\""), Format::Gltf, "t.gltf");
  ASSERT_FALSE(e.has_value());
  Diagnostics diags;
  (void)read_error(gltf_with("\"extensionsRequired\":[\"" + big + "\"]"), Format::Gltf, "t.gltf", &diags);
  ASSERT_FALSE(diags.items.empty());
  EXPECT_EQ(diags.items[0].message,
            fmt::format("extensionsRequired[0]: {} is not supported; what it adds is ignored", cut));
  // an unterminated megabyte string: the parser's message quotes what it read; cut
  t = base_gltf();
  t.pop_back();
  t += ",\"x\":\"" + big;
  e = read_error(Bytes(t.begin(), t.end()), Format::Gltf, "t.gltf");
  ASSERT_TRUE(e.has_value());
  EXPECT_LT(e->message.size(), 300u) << e->message.size();
  EXPECT_NE(e->message.find("... ("), std::string::npos) << e->message;
  EXPECT_EQ(e->message.rfind("syntax error while parsing value - invalid string: missing closing quote", 0), 0u)
      << e->message.substr(0, 200);
}

// JSON nested 100,000 levels deep: a clear, located error, not a stack overflow.
TEST(HostileGltf, DeepNesting) {
  const std::string prefix = "{\"asset\":{\"version\":\"2.0\"},\"extras\":";
  for (const auto& [open, close] : {std::pair<std::string, std::string>{"[", "]"}, {"{\"a\":", "}"}}) {
    std::string t = prefix;
    for (int i = 0; i < 100000; ++i) t += open;
    t += "0";
    for (int i = 0; i < 100000; ++i) t += close;
    t += "}";
    const std::optional<Diagnostic> e = read_error(Bytes(t.begin(), t.end()), Format::Gltf, "t.gltf");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->message, "the JSON is nested more than 512 levels deep");
    EXPECT_EQ(e->line, 1u);
    // the 512th level (the top object is the first) opens at the 512th nested value
    EXPECT_EQ(e->column, prefix.size() + 511 * open.size() + 1);
  }
  // and in a GLB, by byte offset
  std::string t = prefix;
  for (int i = 0; i < 100000; ++i) t += "[";
  for (int i = 0; i < 100000; ++i) t += "]";
  t += "}";
  while (t.size() % 4) t += ' ';
  Bytes glb;
  append<uint32_t>(glb, 0x46546C67);
  append<uint32_t>(glb, 2);
  append<uint32_t>(glb, uint32_t(20 + t.size()));
  append<uint32_t>(glb, uint32_t(t.size()));
  append<uint32_t>(glb, 0x4E4F534A);
  glb.insert(glb.end(), t.begin(), t.end());
  const std::optional<Diagnostic> e = read_error(glb, Format::Glb, "t.glb");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->offset, int64_t(20 + prefix.size() + 511));
  EXPECT_EQ(e->message, fmt::format("JSON chunk, line 1 column {}: the JSON is nested more than 512 levels deep",
                                    prefix.size() + 512));
}

// A file that produces thousands of warnings keeps Diagnostics::limit of them and counts the rest.
TEST(HostileDiagnostics, ThousandsOfWarningsAreBounded) {
  std::string req = "\"extensionsRequired\":[";
  for (int i = 0; i < 5000; ++i) req += fmt::format("{}\"EXT_unknown_{}\"", i ? "," : "", i);
  req += "]";
  Diagnostics diags;
  EXPECT_FALSE(read_error(gltf_with(req), Format::Gltf, "t.gltf", &diags).has_value());
  EXPECT_EQ(diags.items.size(), diags.limit);
  EXPECT_EQ(diags.dropped, 5000u - diags.limit);

  // TFQMSH10: an animation of 5,000 keys whose times go back every other key
  Bytes q = load("qmsh/valid.qmsh");
  const int32_t anim = get<int32_t>(q, 47 + 16);
  q.resize(size_t(anim) + 1 + 5 + 4);  // marker, name "bend", length
  append<uint16_t>(q, 5000);
  for (int k = 0; k < 5000; ++k) {
    append<float>(q, float(k % 2));
    for (int b = 0; b < 2; ++b)
      for (float x : {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f}) append<float>(q, x);
  }
  Diagnostics qd;
  EXPECT_FALSE(read_error(q, Format::Qmsh, "t.qmsh", &qd).has_value());
  EXPECT_EQ(qd.items.size(), qd.limit);
  EXPECT_EQ(qd.items.size() + qd.dropped, 2499u);
}

namespace {

// An IQM of `n` joints, each the child of the one before, and no meshes.
Bytes iqm_joint_chain(uint32_t n) {
  Bytes b(124, 0);
  std::memcpy(b.data(), "INTERQUAKEMODEL", 16);
  set<uint32_t>(b, 16, 2);
  set<uint32_t>(b, 16 + 4 * 13, n);    // num_joints
  set<uint32_t>(b, 16 + 4 * 14, 124);  // ofs_joints
  for (uint32_t j = 0; j < n; ++j) {
    append<uint32_t>(b, 0);                 // name ""
    append<int32_t>(b, int32_t(j) - 1);     // parent
    for (float x : {0.0f, 0.0f, 0.1f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f}) append<float>(b, x);
  }
  set<uint32_t>(b, 20, uint32_t(b.size()));
  return b;
}

// A TFQMSH10 of `n` bones only, each the child of the one after it (`reversed`) or before it.
Bytes qmsh_bone_chain(uint16_t n, bool reversed) {
  Bytes b(67, 0);
  std::memcpy(b.data(), "TFQMSH10", 8);
  set<uint16_t>(b, 9 + 2 * 3, n);
  set<int32_t>(b, 47 + 4 * 3, 67);
  b.push_back(0);
  for (uint32_t k = 1; k <= n; ++k) {
    append<uint16_t>(b, uint16_t(reversed ? (k < n ? k + 1 : 0) : k - 1));
    for (float x : {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.1f, 0.0f}) append<float>(b, x);
    b.push_back(0);  // name ""
  }
  return b;
}

}  // namespace

// 60,000 joints in one chain: read (and written to GLB and read back) without a stack overflow.
TEST(HostileSkeleton, DeepJointChain) {
  const Scene s = read_memory(iqm_joint_chain(60000), Format::Iqm, "chain.iqm");
  ASSERT_EQ(s.joints.size(), 60000u);
  EXPECT_EQ(s.joints.back().parent, 59998);
  const Bytes glb = write_memory(s, Format::Glb);
  const Scene back = read_memory(glb, Format::Glb, "chain.glb");
  ASSERT_EQ(back.joints.size(), 60000u);
  EXPECT_EQ(back.joints.back().parent, 59998);
  EXPECT_EQ(write_memory(read_memory(write_memory(s, Format::Iqm), Format::Iqm, "again.iqm"), Format::Iqm),
            write_memory(s, Format::Iqm));

  for (bool reversed : {false, true}) {
    Diagnostics d;
    const Scene q = read_memory(qmsh_bone_chain(60000, reversed), Format::Qmsh, "chain.qmsh", &d);
    ASSERT_EQ(q.joints.size(), 60000u);
    EXPECT_EQ(q.joints.back().parent, 59998);
    EXPECT_EQ(d.items.size(), reversed ? 1u : 0u);
  }
  // a loop through all of them
  Bytes loop = qmsh_bone_chain(60000, true);
  set<uint16_t>(loop, 68 + size_t(59999) * 51, 1);  // the last bone's parent: the first
  const std::optional<Diagnostic> e = read_error(loop, Format::Qmsh, "loop.qmsh");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->offset, 68);
  EXPECT_EQ(e->message, "bone 1 (''): its parents form a cycle");
}

// Positions stored as bytes (a common importer crashes exporting them), an out-of-range face index
// and an unknown vertex format (the reference compiler crashes on both): read, or refused, then
// every format writes what was read.
TEST(HostileIqm, ReferenceToolCrashes) {
  const Scene s = read((hostile::root() / "iqm/byte-positions.iqm").string());
  const VertexStream* pos = s.meshes.at(0).find(Attribute::Position);
  ASSERT_NE(pos, nullptr);
  EXPECT_EQ(pos->format, ComponentType::UByte);
  for (Format f : {Format::Iqm, Format::Iqe, Format::Glb, Format::Gltf, Format::Obj, Format::Qmsh}) {
    SCOPED_TRACE(std::string(format_info(f).name));
    Bytes out;
    ASSERT_NO_THROW(out = write_memory(s, f));
    Scene back;
    ASSERT_NO_THROW(back = read_memory(out, f, "back"));
    EXPECT_EQ(back.meshes.size(), 1u);
  }
  for (const char* file : {"iqm/triangle-index-past-vertexes.iqm", "iqm/array-unknown-format.iqm"})
    EXPECT_THROW(read((hostile::root() / file).string()), Error) << file;
}

namespace {

// An IQM whose `meshes` meshes all cover the same `vertices` positions and `triangles`
// triangles: each is a Scene mesh of its own, so the Scene would be `meshes` times the file.
Bytes iqm_shared_range(uint32_t vertices, uint32_t triangles, uint32_t meshes) {
  Bytes b(124, 0);
  std::memcpy(b.data(), "INTERQUAKEMODEL", 16);
  set<uint32_t>(b, 16, 2);
  auto h = [&](int i, uint32_t v) { set<uint32_t>(b, 16 + 4 * size_t(i), v); };
  h(5, meshes);
  h(6, uint32_t(b.size()));
  for (uint32_t m = 0; m < meshes; ++m)
    for (uint32_t v : {0u, 0u, 0u, vertices, 0u, triangles}) append<uint32_t>(b, v);
  h(7, 1);
  h(8, vertices);
  h(9, uint32_t(b.size()));
  const uint32_t data = uint32_t(b.size()) + 20;
  for (uint32_t v : {0u, 0u, 7u, 3u, data}) append<uint32_t>(b, v);
  b.resize(b.size() + size_t(vertices) * 12);
  h(10, triangles);
  h(11, uint32_t(b.size()));
  for (uint32_t t = 0; t < triangles; ++t)
    for (uint32_t k = 0; k < 3; ++k) append<uint32_t>(b, (t + k) % vertices);
  h(1, uint32_t(b.size()));
  return b;
}

}  // namespace

// Inputs whose ranges overlap, so that a small file would make a huge Scene, are refused by the
// readers' memory budgets before they allocate it.
TEST(HostileAmplification, OverlappingRangesAreRefused) {
  {
    const Bytes b = iqm_shared_range(20000, 20000, 20000);
    const std::optional<Diagnostic> e = read_error(b, Format::Iqm, "shared.iqm");
    ASSERT_TRUE(e.has_value());
    const std::string tail =
        fmt::format(" would need more memory than a file of {} bytes can justify (overlapping ranges?)", b.size());
    EXPECT_EQ(e->message.rfind("mesh ", 0), 0u) << e->message;
    EXPECT_EQ(e->message.substr(e->message.size() - tail.size()), tail) << e->message;
  }
  {
    // TFQMSH10: 100 submeshes, each over all of 65,535 plain vertices (2 MB)
    Bytes q(67, 0);
    std::memcpy(q.data(), "TFQMSH10", 8);
    set<uint16_t>(q, 9, 65535);
    set<uint16_t>(q, 13, 100);
    set<int32_t>(q, 47, 67);
    q.resize(67 + 1 + size_t(65535) * 32);
    set<int32_t>(q, 55, int32_t(q.size()));
    q.push_back(0);
    for (int i = 0; i < 100; ++i)
      for (uint16_t v : {uint16_t(0), uint16_t(0), uint16_t(0), uint16_t(65535), uint16_t(0)}) append<uint16_t>(q, v);
    const std::optional<Diagnostic> e = read_error(q, Format::Qmsh, "shared.qmsh");
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->offset, 67 + 1 + 65535 * 32);
    EXPECT_EQ(e->message, fmt::format("the submeshes' ranges (6553500 vertices and 0 triangles in all) overlap so much "
                                      "that the Scene would need 629136000 bytes, more than a file of {} bytes can "
                                      "justify",
                                      q.size()));
  }
  {
    // glTF: one accessor of 20,000 positions used by 2,000 meshes
    std::string json = "\"accessors\":[{\"componentType\":5126,\"count\":20000,\"type\":\"VEC3\"}],\"meshes\":[";
    for (int m = 0; m < 2000; ++m)
      json += fmt::format("{}{{\"primitives\":[{{\"attributes\":{{\"POSITION\":0}}}}]}}", m ? "," : "");
    json += "]";
    std::string t = "{\"asset\":{\"version\":\"2.0\"}," + json + "}";
    const std::optional<Diagnostic> e = read_error(Bytes(t.begin(), t.end()), Format::Gltf, "shared.gltf");
    ASSERT_TRUE(e.has_value());
    EXPECT_NE(e->message.find("bytes remain of the"), std::string::npos) << e->message;
  }
}

}  // namespace meshport_test_hostile_binary
