// Peak memory on hostile input (issue 8). Any input under 10 MB is read (parsed into a Scene and
// summarised, what `meshport info` does) within 256 MB, and converted to GLB with the default
// processing (what `meshport convert` does) within 512 MB: a conversion holds the Scene, its
// processed copy's new streams and the output together, and a reader may legitimately build a
// Scene several times its input (meshes sharing vertex ranges). Each case runs in a child process
// whose address space is capped with setrlimit(RLIMIT_AS); the parent also checks the child's
// peak resident set. Only in builds without sanitizers (their shadow memory needs terabytes of
// address space), so this is its own executable (tests/CMakeLists.txt).
#include <meshport/meshport.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace meshport;

namespace {

constexpr size_t kMB = size_t(1) << 20;
constexpr size_t kInputLimit = 10 * kMB;
constexpr size_t kReadLimit = 256 * kMB;
constexpr size_t kConvertLimit = 512 * kMB;

// Exit codes of the child.
enum : int { kRead = 0, kRefused = 1, kOutOfMemory = 2, kOther = 3 };

struct Outcome {
  int code = -1;     // exit code, or -signal
  long peak_kb = 0;  // ru_maxrss of the child
};

// Runs `job` in a child limited to `limit` bytes of address space.
Outcome run_limited(size_t limit, const std::function<int()>& job) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    rlimit lim{limit, limit};
    ::setrlimit(RLIMIT_AS, &lim);
    int code = kOther;
    try {
      code = job();
    } catch (const Error&) {
      code = kRefused;
    } catch (const std::bad_alloc&) {
      code = kOutOfMemory;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      code = kOther;
    } catch (...) {
      code = kOther;
    }
    std::_Exit(code);
  }
  Outcome o;
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid) return o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  o.peak_kb = usage.ru_maxrss;
  return o;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("meshport-memory-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void save(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

const char* name_of(int code) {
  return code == kRead ? "read" : code == kRefused ? "refused" : code == kOutOfMemory ? "OUT OF MEMORY" : "FAILED";
}

// Reads `main` (beside its side files in the same folder) under kReadLimit, then converts it to
// GLB with the default processing under kConvertLimit, and checks both peaks. `expect_read`: the
// input is one the reader must accept (a large valid file) rather than one it may refuse.
void check(const fs::path& main, bool expect_read) {
  ASSERT_LT(fs::file_size(main), kInputLimit);
  SCOPED_TRACE(main.filename().string());
  const Outcome r = run_limited(kReadLimit, [&] {
    const Scene s = meshport::read(main.string());
    return scene_bounds(s).empty && !s.meshes.empty() ? kOther : kRead;
  });
  const fs::path out = main.parent_path() / "out.glb";
  const Outcome c = run_limited(kConvertLimit, [&] {
    meshport::convert({main.string()}, out.string());
    return kRead;
  });
  std::printf("[ memory ] %s (%zu bytes): read: %s, peak %ld MB; convert to GLB: %s, peak %ld MB\n",
              main.filename().string().c_str(), size_t(fs::file_size(main)), name_of(r.code), r.peak_kb / 1024,
              name_of(c.code), c.peak_kb / 1024);
  for (const Outcome& o : {r, c}) {
    EXPECT_NE(o.code, kOutOfMemory) << "ran out of memory";
    if (expect_read)
      EXPECT_EQ(o.code, kRead);
    else
      EXPECT_TRUE(o.code == kRead || o.code == kRefused) << "exit " << o.code;
  }
  EXPECT_LT(size_t(r.peak_kb) * 1024, kReadLimit) << "read peak " << r.peak_kb / 1024 << " MB";
  EXPECT_LT(size_t(c.peak_kb) * 1024, kConvertLimit) << "convert peak " << c.peak_kb / 1024 << " MB";
}

// Repeats `unit` until the text would reach `bytes`.
std::string fill(std::string head, const std::string& unit, size_t bytes) {
  head.reserve(bytes + unit.size());
  while (head.size() + unit.size() < bytes) head += unit;
  return head;
}

const size_t kNearLimit = kInputLimit - kMB;  // 9 MB

// A mesh of positions only.
Mesh positions_mesh(std::string name, std::vector<float> positions, std::vector<uint32_t> triangles) {
  Mesh m;
  m.name = std::move(name);
  VertexStream p;
  p.attribute = Attribute::Position;
  p.format = ComponentType::Float;
  p.components = p.source_size = 3;
  p.data = std::move(positions);
  m.streams.push_back(std::move(p));
  m.triangles = std::move(triangles);
  return m;
}


std::string iqe_grid(size_t side) {
  std::string t = "# Inter-Quake Export\nmesh grid\nmaterial stone\n";
  for (size_t y = 0; y < side; ++y)
    for (size_t x = 0; x < side; ++x) t += "vp " + std::to_string(x) + " " + std::to_string(y) + " 0\nvt 0.5 0.5\n";
  for (size_t y = 0; y + 1 < side; ++y)
    for (size_t x = 0; x + 1 < side; ++x) {
      const size_t a = y * side + x, b = a + 1, c = a + side, d = c + 1;
      t += "fm " + std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(d) + "\nfm " +
           std::to_string(a) + " " + std::to_string(d) + " " + std::to_string(c) + "\n";
    }
  return t;
}

}  // namespace

// A large valid IQE (a grid of over 100,000 vertices): must be read and converted within the limit.
TEST(MemoryLimit, LargeValidIqe) {
  TempDir t;
  size_t side = 200;
  std::string text = iqe_grid(side);
  while (text.size() < 6 * kMB) text = iqe_grid(side += 40);
  save(t.path / "grid.iqe", text);
  check(t.path / "grid.iqe", true);
}

// IQE: a mesh per 7 bytes.
TEST(MemoryLimit, IqeManyEmptyMeshes) {
  TempDir t;
  save(t.path / "meshes.iqe", fill("# Inter-Quake Export\n", "mesh a\n", kNearLimit));
  check(t.path / "meshes.iqe", false);
}

// IQE: a mesh per triangle, each with its own material.
TEST(MemoryLimit, IqeManyTinyMeshes) {
  TempDir t;
  save(t.path / "tiny.iqe",
       fill("# Inter-Quake Export\n", "mesh a\nmaterial m\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n", kNearLimit));
  check(t.path / "tiny.iqe", false);
}

// IQE: 1,000 joints and a million empty frames, each of which a reader could fill with 1,000
// rest poses.
TEST(MemoryLimit, IqeEmptyFramesOfManyJoints) {
  TempDir t;
  std::string head = "# Inter-Quake Export\n";
  for (int j = 0; j < 1000; ++j) head += "joint j" + std::to_string(j) + " " + std::to_string(j - 1) + "\n";
  head += "animation a\n";
  save(t.path / "frames.iqe", fill(head, "frame\n", kNearLimit));
  check(t.path / "frames.iqe", false);
}

// OBJ: an object per face over three shared vertices.
TEST(MemoryLimit, ObjManyObjects) {
  TempDir t;
  save(t.path / "objects.obj", fill("v 0 0 0\nv 1 0 0\nv 0 1 0\n", "o a\nf 1 2 3\n", kNearLimit));
  check(t.path / "objects.obj", false);
}

// OBJ: a material switch per face.
TEST(MemoryLimit, ObjManyMaterials) {
  TempDir t;
  std::string text = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  for (size_t i = 0; text.size() < kNearLimit; ++i) text += "usemtl m" + std::to_string(i) + "\nf 1 2 3\n";
  save(t.path / "materials.obj", text);
  check(t.path / "materials.obj", false);
}

// OBJ: faces of many corners, each a fan of triangles.
TEST(MemoryLimit, ObjLongPolygons) {
  TempDir t;
  std::string text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf";
  while (text.size() < kNearLimit) text += " 1 2 3";
  save(t.path / "polygon.obj", text + "\n");
  check(t.path / "polygon.obj", false);
}

// PIE: as many levels as fit, each a triangle.
TEST(MemoryLimit, PieManyLevels) {
  TempDir t;
  const std::string level = "POINTS 3\n\t0 0 0\n\t1 0 0\n\t0 1 0\nPOLYGONS 1\n\t200 3 0 1 2 0 0 1 0 0 1\n";
  std::string body;
  size_t levels = 0;
  while (body.size() < kNearLimit) body += "LEVEL " + std::to_string(++levels) + "\n" + level;
  save(t.path / "levels.pie",
       "PIE 3\nTYPE 10200\nTEXTURE 0 page-1.png 0 0\nLEVELS " + std::to_string(levels) + "\n" + body);
  check(t.path / "levels.pie", false);
}

// glTF: one accessor of 200,000 positions shared by 4,000 meshes (each would copy it).
TEST(MemoryLimit, GltfSharedAccessorAmplification) {
  TempDir t;
  const size_t vertices = 200000;
  std::string bin(vertices * 12, '\0');
  save(t.path / "big.bin", bin);
  std::string json = R"({"asset":{"version":"2.0"},"buffers":[{"uri":"big.bin","byteLength":)" +
                     std::to_string(bin.size()) + R"(}],"bufferViews":[{"buffer":0,"byteLength":)" +
                     std::to_string(bin.size()) +
                     R"(}],"accessors":[{"bufferView":0,"componentType":5126,"count":)" + std::to_string(vertices) +
                     R"(,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}],"meshes":[)";
  const int meshes = 4000;
  for (int m = 0; m < meshes; ++m) json += std::string(m ? "," : "") + R"({"primitives":[{"attributes":{"POSITION":0}}]})";
  json += R"(],"nodes":[)";
  for (int m = 0; m < meshes; ++m) json += std::string(m ? "," : "") + R"({"mesh":)" + std::to_string(m) + "}";
  json += R"(],"scenes":[{"nodes":[)";
  for (int m = 0; m < meshes; ++m) json += std::string(m ? "," : "") + std::to_string(m);
  json += "]}]}";
  save(t.path / "shared.gltf", json);
  check(t.path / "shared.gltf", false);
}

// .model: one node and as many modes as fit (each a morph target of the render mesh).
TEST(MemoryLimit, ModelManyModes) {
  TempDir t;
  // Written through meshport from a Scene with one triangle and 200,000 morph targets.
  Scene s;
  Mesh m = positions_mesh("tri", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 1, 2});
  const int modes = 200000;
  for (int k = 0; k < modes; ++k) {
    MorphTarget mt;
    mt.name = "mode" + std::to_string(k) + " 1 Hz";
    mt.positions = {0, 0.1f, 0, 0, 0, 0, 0, 0, 0};
    m.morph_targets.push_back(std::move(mt));
  }
  s.meshes.push_back(std::move(m));
  const std::vector<uint8_t> bytes = write_memory(s, Format::ModeDefModel);
  ASSERT_LT(bytes.size(), kInputLimit);
  save(t.path / "modes.model", std::string(bytes.begin(), bytes.end()));
  check(t.path / "modes.model", false);
}

// .state: 5,000 objects each placing the same 4,000-vertex model (each a copy of its meshes).
TEST(MemoryLimit, StateManyCopiesOfOneModel) {
  TempDir t;
  const int side = 64;
  std::vector<float> grid;
  std::vector<uint32_t> triangles;
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) grid.insert(grid.end(), {float(x), float(y), 0});
  for (int y = 0; y + 1 < side; ++y)
    for (int x = 0; x + 1 < side; ++x) {
      const uint32_t a = uint32_t(y * side + x), b = a + 1, c = a + side, d = c + 1;
      triangles.insert(triangles.end(), {a, b, d, a, d, c});
    }
  Scene s;
  Mesh m = positions_mesh("grid", std::move(grid), std::move(triangles));
  s.meshes.push_back(std::move(m));
  const std::vector<uint8_t> model = write_memory(s, Format::ModeDefModel);
  save(t.path / "grid.model", std::string(model.begin(), model.end()));
  // MODELFILE; RB DEFORM; MASS; COM; INERTIA; X LAME A1 A2; SCALE X; KP KV KB (docs/modedef.md).
  save(t.path / "grid.prop", "grid.model\n1 0\n1\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n0 1 0 0\n1 0\n0 0 0\n");
  std::string state = "30\n0\n0 -9.8 0\n0.3\n0.01 0.5 0.2\n5000\n";
  for (int i = 0; i < 5000; ++i) state += "grid.prop\n0 0 0\n1 0 0 0\n0 0 0\n0 0 0\n-1 -1\n";
  state += "0\n0\n";
  save(t.path / "copies.state", state);
  check(t.path / "copies.state", false);
}

namespace {

uint32_t get_u32(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
void set_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

Mesh point_cloud(size_t vertices) {
  std::vector<float> positions(vertices * 3);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = float(i % 1000);
  return positions_mesh("cloud", std::move(positions), {0, 1, 2});
}

}  // namespace

// IQM: 40 mesh records over the same 700,000 vertices (each becomes a Scene mesh of its own).
TEST(MemoryLimit, IqmMeshesSharingOneVertexRange) {
  TempDir t;
  Scene s;
  s.meshes.push_back(point_cloud(700000));
  WriteOptions o;
  o.adjacency = false;
  std::vector<uint8_t> b = write_memory(s, Format::Iqm, o);
  const uint32_t ofs_meshes = get_u32(b, 40);
  const std::vector<uint8_t> record(b.begin() + ofs_meshes, b.begin() + ofs_meshes + 24);
  const size_t at = b.size();
  for (int k = 0; k < 40; ++k) b.insert(b.end(), record.begin(), record.end());
  set_u32(b, 20, uint32_t(b.size()));  // filesize
  set_u32(b, 36, 40);                  // num_meshes
  set_u32(b, 40, uint32_t(at));        // ofs_meshes
  save(t.path / "shared.iqm", std::string(b.begin(), b.end()));
  check(t.path / "shared.iqm", false);
}

// A GLB of one accessor of `vertices` positions used by `meshes` meshes (each node's).
std::vector<uint8_t> shared_glb(size_t vertices, int meshes) {
  std::string json = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":)" + std::to_string(vertices * 12) +
                     R"(}],"bufferViews":[{"buffer":0,"byteLength":)" + std::to_string(vertices * 12) +
                     R"(}],"accessors":[{"bufferView":0,"componentType":5126,"count":)" + std::to_string(vertices) +
                     R"(,"type":"VEC3","min":[0,0,0],"max":[999,999,999]}],"meshes":[)";
  for (int m = 0; m < meshes; ++m) json += std::string(m ? "," : "") + R"({"primitives":[{"attributes":{"POSITION":0}}]})";
  json += R"(],"nodes":[)";
  for (int m = 0; m < meshes; ++m) json += std::string(m ? "," : "") + R"({"mesh":)" + std::to_string(m) + "}";
  json += R"(],"scenes":[{"nodes":[)";
  for (int m = 0; m < meshes; ++m) json += std::string(m ? "," : "") + std::to_string(m);
  json += "]}]}";
  while (json.size() % 4) json += ' ';
  std::vector<uint8_t> bin(vertices * 12);
  for (size_t i = 0; i < vertices * 3; ++i) {
    const float v = float(i % 1000);
    std::memcpy(bin.data() + i * 4, &v, 4);
  }
  std::vector<uint8_t> b(12);
  const auto put = [&b](uint32_t v) {
    const size_t at = b.size();
    b.resize(at + 4);
    set_u32(b, at, v);
  };
  put(uint32_t(json.size()));
  put(0x4E4F534A);
  b.insert(b.end(), json.begin(), json.end());
  put(uint32_t(bin.size()));
  put(0x004E4942);
  b.insert(b.end(), bin.begin(), bin.end());
  set_u32(b, 0, 0x46546C67);
  set_u32(b, 4, 2);
  set_u32(b, 8, uint32_t(b.size()));
  return b;
}

// GLB: one accessor of 800,000 positions (9.6 MB) used by 60 meshes.
TEST(MemoryLimit, GlbSharedAccessorAmplification) {
  TempDir t;
  const std::vector<uint8_t> b = shared_glb(800000, 60);
  save(t.path / "shared.glb", std::string(b.begin(), b.end()));
  check(t.path / "shared.glb", false);
}

// The same file needs about 800 MB, within the reader's 1 GiB default: under the 256 MB limit
// it runs out of memory, and the error names the file and the part being read (issue 33), not a
// bare "out of memory".
TEST(MemoryLimit, OutOfMemoryNamesTheFileAndThePart) {
  TempDir t;
  const std::vector<uint8_t> b = shared_glb(800000, 60);
  const fs::path file = t.path / "shared.glb";
  save(file, std::string(b.begin(), b.end()));
  constexpr int kNamed = 4;
  const Outcome r = run_limited(kReadLimit, [&]() -> int {
    try {
      meshport::read(file.string());
    } catch (const Error& e) {
      const std::string m = e.what();
      const bool named = m.rfind(file.string() + ": error: out of memory while reading meshes[", 0) == 0 &&
                         m.find("].primitives[0] (--max-memory lowers what a read may use)") != std::string::npos;
      if (!named) std::fprintf(stderr, "child: %s\n", m.c_str());
      return named ? kNamed : kRefused;
    }
    return kRead;
  });
  EXPECT_EQ(r.code, kNamed);
}

// glTF: 9 MB of empty JSON objects, which a JSON tree stores at many times their size.
TEST(MemoryLimit, GltfJsonOfEmptyObjects) {
  TempDir t;
  std::string json = R"({"asset":{"version":"2.0"},"extras":[{})";
  while (json.size() < kNearLimit) json += ",{}";
  save(t.path / "objects.gltf", json + "]}");
  check(t.path / "objects.gltf", false);
}

// GLB: one 2 MB image (a PNG header, a large ancillary chunk, IEND) that 4,000 materials each
// restore under another name (extras.meshport): every name would be a copy of the image (8 GB);
// the reader's budget stops the copies with warnings.
TEST(MemoryLimit, GlbImageCopiedUnderManyNames) {
  TempDir t;
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                              0,    0,   0,   1,   0,    0,    0,    1,    8, 6, 0, 0,  0,  0, 0, 0, 0};
  const size_t big = 2 * kMB;
  const size_t at = png.size();
  png.resize(at + 8 + big + 4);
  png[at] = uint8_t(big >> 24), png[at + 1] = uint8_t(big >> 16), png[at + 2] = uint8_t(big >> 8),
  png[at + 3] = uint8_t(big);
  std::memcpy(png.data() + at + 4, "zzZz", 4);
  png.insert(png.end(), {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82});
  const size_t tri_at = (png.size() + 3) / 4 * 4;
  std::string json = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":)" + std::to_string(tri_at + 36) +
                     R"(}],"bufferViews":[{"buffer":0,"byteLength":)" + std::to_string(png.size()) +
                     R"(},{"buffer":0,"byteOffset":)" + std::to_string(tri_at) +
                     R"(,"byteLength":36}],"accessors":[{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3",)" +
                     R"("min":[0,0,0],"max":[1,1,0]}],"images":[{"bufferView":0,"mimeType":"image/png"}],)" +
                     R"("textures":[{"source":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0},"material":0}]}],)" +
                     R"("nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"materials":[)";
  for (int m = 0; m < 4000; ++m)
    json += std::string(m ? "," : "") + R"({"pbrMetallicRoughness":{"baseColorTexture":{"index":0}},)" +
            R"("extras":{"meshport":{"base_color_texture":"t)" + std::to_string(m) + R"(.png"}}})";
  json += "]}";
  while (json.size() % 4) json += ' ';
  std::vector<uint8_t> bin = png;
  const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  bin.resize(tri_at + 36);
  std::memcpy(bin.data() + tri_at, tri, 36);
  std::vector<uint8_t> b(12);
  const auto put = [&b](uint32_t v) {
    const size_t at = b.size();
    b.resize(at + 4);
    set_u32(b, at, v);
  };
  put(uint32_t(json.size()));
  put(0x4E4F534A);
  b.insert(b.end(), json.begin(), json.end());
  put(uint32_t(bin.size()));
  put(0x004E4942);
  b.insert(b.end(), bin.begin(), bin.end());
  set_u32(b, 0, 0x46546C67);
  set_u32(b, 4, 2);
  set_u32(b, 8, uint32_t(b.size()));
  save(t.path / "images.glb", std::string(b.begin(), b.end()));
  check(t.path / "images.glb", true);
}
