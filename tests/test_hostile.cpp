// Files the fuzzers found problems with (tests/hostile/README.md): each must read or fail with a
// meshport::Error, and whatever reads must write and read again.
#include <meshport/meshport.h>

#include "test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

namespace meshport_test_hostile {

namespace fs = std::filesystem;
using namespace meshport;

namespace {

const fs::path kHostile = fs::path(MESHPORT_TEST_DATA).parent_path() / "hostile";

}  // namespace

TEST(HostileFuzz, RegressionFilesReadWriteRead) {
  size_t files = 0;
  for (const auto& dir : fs::directory_iterator(kHostile / "fuzz")) {
    if (dir.path().filename() == "image") continue;  // images, not models: tests/test_image.cpp replays them
    // Compressed data a fuzz target wraps in a GLB itself (fuzz_gltf_compressed.cpp): replayed by
    // the fuzz regression run; GltfCompression.DracoBadOrCorruptDataIsAClearError pins the fix.
    if (dir.path().filename() == "gltf_draco" || dir.path().filename() == "gltf_meshopt") continue;
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      SCOPED_TRACE(entry.path().string());
      ++files;
      const std::string path = entry.path().string();
      const auto format = format_from_path(path);
      ASSERT_TRUE(format.has_value());
      const std::string text = testutil::slurp(entry.path());
      const std::vector<uint8_t> bytes(text.begin(), text.end());
      Scene first;
      try {
        first = read_memory(bytes, *format, path);
      } catch (const Error&) {
        continue;  // a clean error is a right answer
      }
      std::vector<uint8_t> written;
      Diagnostics write_diags;
      try {
        written = write_memory(first, *format, {}, &write_diags);
      } catch (const Error&) {
        continue;  // the writer refused, with a message
      }
      Scene second;
      ASSERT_NO_THROW(second = read_memory(written, *format, "rewritten"));
      // The formats the round-trip fuzz targets hold to identical bytes on a rewrite.
      const Format lossless[] = {Format::Iqe,    Format::Iqm,          Format::Pie,         Format::QmshTmp,
                                 Format::Qmsh,   Format::ModeDefModel, Format::ModeDefPath};
      if (std::find(std::begin(lossless), std::end(lossless), *format) != std::end(lossless)) {
        EXPECT_EQ(second.meshes.size(), first.meshes.size());
        EXPECT_EQ(write_memory(second, *format), written);
      } else {
        // glTF and OBJ leave out, with a warning, meshes without positions or triangles.
        const size_t kept = size_t(std::count_if(first.meshes.begin(), first.meshes.end(), [](const Mesh& m) {
          return m.find(Attribute::Position) && m.vertex_count() > 0 && !m.triangles.empty();
        }));
        EXPECT_EQ(second.meshes.size(), kept);
        if (kept < first.meshes.size()) {
          EXPECT_GT(write_diags.warning_count(), 0u);
        }
      }
    }
  }
  EXPECT_GE(files, 1u);
}

// The IQM the adjacency step failed on: a mesh with no triangles beside one with triangles.
TEST(HostileFuzz, IqmMeshWithoutTrianglesGetsAdjacency) {
  const std::string text = testutil::slurp(kHostile / "fuzz/iqm/adjacency-empty-mesh.iqm");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Iqm, "adjacency-empty-mesh.iqm");
  std::vector<uint8_t> out = write_memory(s, Format::Iqm);
  Scene back = read_memory(out, Format::Iqm, "back.iqm");
  EXPECT_EQ(write_memory(back, Format::Iqm), out);
}

// Float blend weights that already fit (no more influences than the file holds) are written as
// read: renormalising them on every write moved them by an ulp each time.
TEST(HostileFuzz, IqmFloatWeightsAreWrittenAsRead) {
  const std::string text = testutil::slurp(kHostile / "fuzz/iqm/float-weights-renormalised-each-write.iqm");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Iqm, "float-weights.iqm");
  Scene back = read_memory(write_memory(s, Format::Iqm), Format::Iqm, "back.iqm");
  ASSERT_EQ(back.meshes.size(), s.meshes.size());
  size_t checked = 0;
  for (size_t m = 0; m < s.meshes.size(); ++m) {
    const VertexStream* a = s.meshes[m].find(Attribute::BlendWeights);
    const VertexStream* b = back.meshes[m].find(Attribute::BlendWeights);
    ASSERT_EQ(a == nullptr, b == nullptr);
    if (!a) continue;
    EXPECT_EQ(a->format, ComponentType::Float);
    EXPECT_EQ(b->data, a->data);  // bit for bit, weights summing to 1.0000054 included
    checked += a->data.size();
  }
  EXPECT_GT(checked, 0u);
}

// A glTF mesh with no whole triangle is left out of the glTF written, with a warning; the others
// are kept.
TEST(HostileFuzz, GltfMeshWithoutTrianglesIsLeftOut) {
  const std::string text = testutil::slurp(kHostile / "fuzz/gltf/mesh-without-triangles-left-out.gltf");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Gltf, "in.gltf");
  ASSERT_EQ(s.meshes.size(), 4u);
  EXPECT_EQ(s.meshes[0].name, "box.0/tri");
  EXPECT_EQ(s.meshes[0].vertex_count(), 3u);
  EXPECT_TRUE(s.meshes[0].triangles.empty());
  Diagnostics d;
  Scene back = read_memory(write_memory(s, Format::Gltf, {}, &d), Format::Gltf, "back.gltf");
  ASSERT_EQ(back.meshes.size(), 3u);
  EXPECT_EQ(back.meshes[0].name, "box.1/tri");
  bool warned = false;
  for (const Diagnostic& x : d.items)
    warned = warned || x.message == "mesh 0 ('box.0/tri') has 3 vertices and 0 triangles: not written";
  EXPECT_TRUE(warned);
}

// Integer blend weights sum exactly to the format's maximum: negative ones (a signed BYTE array
// holds -128) count as 0. Before, a vertex of weights 116, 114, 105, -128 / 127 was written as
// 0, 70, 64, 0 (summing to 134), which the next write renormalised to 0, 66, 61, 0.
TEST(HostileFuzz, IqmNegativeByteWeightsCountAsZero) {
  const std::string text = testutil::slurp(kHostile / "fuzz/iqm/negative-byte-weights-unstable-rewrite.iqm");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Iqm, "negative-weights.iqm");
  const VertexStream* in = s.meshes.at(0).find(Attribute::BlendWeights);
  ASSERT_NE(in, nullptr);
  ASSERT_EQ(in->format, ComponentType::Byte);
  EXPECT_EQ(in->get(0, 3), -1.0f);  // -128 reads as -1
  const std::vector<uint8_t> out = write_memory(s, Format::Iqm);
  Scene back = read_memory(out, Format::Iqm, "back.iqm");
  const VertexStream* w = back.meshes.at(0).find(Attribute::BlendWeights);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->components, 4u);
  // 116, 114, 105 over their sum 335, times 127, rounded: 44, 43, 40.
  EXPECT_EQ(w->get(0, 0) * 127, 44.0f);
  EXPECT_EQ(w->get(0, 1) * 127, 43.0f);
  EXPECT_EQ(w->get(0, 2) * 127, 40.0f);
  EXPECT_EQ(w->get(0, 3), 0.0f);
  for (const Mesh& m : back.meshes) {
    const VertexStream* b = m.find(Attribute::BlendWeights);
    ASSERT_NE(b, nullptr);
    for (size_t v = 0; v < m.vertex_count(); ++v) {
      float sum = 0;
      for (uint32_t c = 0; c < 4; ++c) {
        EXPECT_GE(b->get(v, c), 0.0f);
        sum += b->get(v, c) * 127;
      }
      EXPECT_TRUE(sum == 0.0f || sum == 127.0f) << m.name << " vertex " << v << ": " << sum;
    }
  }
  EXPECT_EQ(write_memory(back, Format::Iqm), out);
}

// A PIE 2 texture animation frame 0.25 wide rounded to 0, which reading refuses; it is now
// written as one step (1), and the move is in the rounding warning.
TEST(HostileFuzz, PieTwoFrameSizeKeepsOneStep) {
  const std::string text = testutil::slurp(kHostile / "fuzz/pie/anim-frame-size-rounds-to-zero.pie");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Pie, "frame-size.pie");
  ASSERT_EQ(s.pie->version, 2);
  ASSERT_EQ(s.pie->levels.size(), 2u);
  // The "pie.texanim" face channel: frames, rate, width bits, height bits.
  const FaceChannel* anim = s.meshes.at(size_t(s.pie->levels[1].mesh)).find_channel("pie.texanim");
  ASSERT_TRUE(anim && anim->data.size() == 4u);
  EXPECT_EQ(std::bit_cast<float>(anim->data[2]), 0.25f / 256);
  Diagnostics d;
  const std::vector<uint8_t> out = write_memory(s, Format::Pie, {}, &d);
  const std::string written(out.begin(), out.end());
  EXPECT_NE(written.find("\t4200 3 0 1 2 4 50 1 1 "), std::string::npos) << written;
  bool warned = false;
  for (const Diagnostic& x : d.items) warned = warned || x.message.find("frame sizes move by up to") != std::string::npos;
  EXPECT_TRUE(warned);
  Scene back = read_memory(out, Format::Pie, "back.pie");
  const FaceChannel* back_anim = back.meshes.at(size_t(back.pie->levels[1].mesh)).find_channel("pie.texanim");
  ASSERT_TRUE(back_anim && back_anim->data.size() == 4u);
  EXPECT_EQ(std::bit_cast<float>(back_anim->data[2]), 1.0f / 256);
  EXPECT_EQ(write_memory(back, Format::Pie), out);
}

// A Scene whose PIE data holds a texture animation that PIE cannot read (possible through glTF
// extras) is refused by the writer with a message, not written.
TEST(HostileFuzz, PieWriterRefusesImpossibleTextureAnimation) {
  const std::string text = testutil::slurp(kHostile / "fuzz/pie/anim-frame-size-rounds-to-zero.pie");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Pie, "frame-size.pie");
  FaceChannel* anim = s.meshes.at(size_t(s.pie->levels.at(1).mesh)).find_channel("pie.texanim");
  ASSERT_TRUE(anim && anim->data.size() == 4u);
  anim->data[3] = 0;  // frame height 0
  try {
    write_memory(s, Format::Pie);
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("texture animation of 4 frames at rate 50, frame size 0.0009765625 x 0: frames "
                                         "and rate must be at least 1 and the size positive"),
              std::string::npos)
        << e.what();
  }
}

// 124,416 frames of two still joints in a 434-byte IQM: reading it back once needed the frames'
// dequantised values as well as the poses, which the smaller file written could not justify.
// Frames are now dequantised one at a time.
TEST(HostileFuzz, IqmStillAnimationReadsBack) {
  const std::string text = testutil::slurp(kHostile / "fuzz/iqm/still-animation-reread-over-budget.iqm");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Iqm, "still.iqm");
  ASSERT_EQ(s.animations.size(), 1u);
  EXPECT_EQ(s.animations[0].frame_count(), 124416u);
  EXPECT_EQ(s.animations[0].channels, 2u);
  const std::vector<uint8_t> out = write_memory(s, Format::Iqm);
  Scene back = read_memory(out, Format::Iqm, "back.iqm");
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].frame_count(), 124416u);
  EXPECT_EQ(back.animations[0].poses[2 * 124415], s.animations[0].poses[0]);  // joint 0's rest (joint 1's holds a NaN)
  EXPECT_EQ(write_memory(back, Format::Iqm), out);
}

// A still animation needing more memory than the IQM written can justify to a reader (12 bytes
// per file byte plus 16 MB) is refused by the writer; a slightly shorter one is written and
// reads back whole.
TEST(HostileFuzz, IqmWriterRefusesStillAnimationItCouldNotRead) {
  const size_t fits = (size_t(16) << 20) / sizeof(Transform) - 4096;  // 415,334 frames: 15.8 MB
  Scene ok = testutil::still_animation(fits);
  Scene back = read_memory(write_memory(ok, Format::Iqm), Format::Iqm, "back.iqm");
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].frame_count(), fits);
  Scene big = testutil::still_animation(size_t(18) << 20 >> 5);  // 589,824 frames: 22.5 MB
  try {
    write_memory(big, Format::Iqm);
    FAIL() << "written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the animations hold 589824 poses, mostly still, which a "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("-byte IQM cannot justify when read: animation 0 would need more memory"),
              std::string::npos)
        << e.what();
  }
}

// An IQM without joints or poses whose animation claims 1,627,389,952 frames: they hold no pose
// (an animation's poses are per joint), so the reader no longer walks them one by one (a fuzzer
// timeout). The file's third animation names a missing string; without it the file reads.
TEST(HostileFuzz, IqmFramesWithoutPosesAreNotWalked) {
  const std::string text = testutil::slurp(kHostile / "fuzz/iqm/timeout-frames-without-poses.iqm");
  std::vector<uint8_t> bytes(text.begin(), text.end());
  EXPECT_THROW(read_memory(bytes, Format::Iqm, "frames.iqm"), Error);
  ASSERT_GE(bytes.size(), 88u);
  bytes[84] = 2;  // num_anims: 3 -> 2
  Diagnostics d;
  Scene s = read_memory(bytes, Format::Iqm, "frames.iqm", &d);
  ASSERT_EQ(s.animations.size(), 2u);
  for (const Animation& a : s.animations) {
    EXPECT_EQ(a.channels, 0u);
    EXPECT_EQ(a.frame_count(), 0u);
  }
  EXPECT_GT(d.warning_count(), 0u);  // animation 1's framerate is NaN
}

// 32-bit integer (INT) weights cannot be made to sum exactly to 2147483647 through the Scene's
// floats: forcing it moved them on every rewrite. A vertex that fits keeps them as read.
TEST(HostileFuzz, IqmInt32WeightsAreWrittenAsRead) {
  const std::string text = testutil::slurp(kHostile / "fuzz/iqm/int32-weights-unstable-rewrite.iqm");
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  Scene s = read_memory(bytes, Format::Iqm, "int-weights.iqm");
  const VertexStream* in = s.meshes.at(0).find(Attribute::BlendWeights);
  ASSERT_NE(in, nullptr);
  ASSERT_EQ(in->format, ComponentType::Int);
  const std::vector<uint8_t> out = write_memory(s, Format::Iqm);
  Scene back = read_memory(out, Format::Iqm, "back.iqm");
  const VertexStream* w = back.meshes.at(0).find(Attribute::BlendWeights);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->format, ComponentType::Int);
  EXPECT_EQ(w->data, in->data);
  EXPECT_EQ(write_memory(back, Format::Iqm), out);
}

}  // namespace meshport_test_hostile
