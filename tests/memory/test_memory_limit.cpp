// Peak memory on hostile input (issue 8): any input under 10 MB is read, processed and written
// as GLB (what `meshport convert` does) within 256 MB. Each case runs in a child process whose
// address space is capped with setrlimit(RLIMIT_AS); the parent also checks the child's peak
// resident set. Only in builds without sanitizers (their shadow memory needs terabytes of
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
constexpr size_t kMemoryLimit = 256 * kMB;

// Exit codes of the child.
enum : int { kRead = 0, kRefused = 1, kOutOfMemory = 2, kOther = 3 };

struct Outcome {
  int code = -1;     // exit code, or -signal
  long peak_kb = 0;  // ru_maxrss of the child
};

// Runs `job` in a child limited to kMemoryLimit of address space.
Outcome run_limited(const std::function<int()>& job) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    rlimit lim{kMemoryLimit, kMemoryLimit};
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

// Reads `main` (beside its side files in the same folder), converts it to GLB with the default
// processing, and checks the peak. `expect_read`: whether the input is one the reader must accept
// (a large valid file) rather than one it may refuse.
void check(const fs::path& main, bool expect_read) {
  ASSERT_LT(fs::file_size(main), kInputLimit);
  const fs::path out = main.parent_path() / "out.glb";
  const Outcome o = run_limited([&] {
    meshport::convert({main.string()}, out.string());
    return kRead;
  });
  SCOPED_TRACE(main.filename().string());
  EXPECT_NE(o.code, kOutOfMemory) << "ran out of its 256 MB";
  if (expect_read)
    EXPECT_EQ(o.code, kRead);
  else
    EXPECT_TRUE(o.code == kRead || o.code == kRefused) << "exit " << o.code;
  EXPECT_LT(size_t(o.peak_kb) * 1024, kMemoryLimit) << "peak " << o.peak_kb / 1024 << " MB";
  std::printf("[ memory ] %s (%zu bytes): %s (exit %d), peak %ld MB\n", main.filename().string().c_str(),
              size_t(fs::file_size(main)), o.code == kRead ? "read" : o.code == kRefused ? "refused" : "FAILED", o.code,
              o.peak_kb / 1024);
}

// Repeats `unit` until the text would reach `bytes`.
std::string fill(std::string head, const std::string& unit, size_t bytes) {
  head.reserve(bytes + unit.size());
  while (head.size() + unit.size() < bytes) head += unit;
  return head;
}

const size_t kNearLimit = kInputLimit - kMB;  // 9 MB

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
  Mesh m;
  m.name = "tri";
  VertexStream p;
  p.attribute = Attribute::Position;
  p.format = ComponentType::Float;
  p.components = p.source_size = 3;
  p.data = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  m.streams.push_back(p);
  m.triangles = {0, 1, 2};
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
  Scene s;
  Mesh m;
  m.name = "grid";
  VertexStream p;
  p.attribute = Attribute::Position;
  p.format = ComponentType::Float;
  p.components = p.source_size = 3;
  const int side = 64;
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) p.data.insert(p.data.end(), {float(x), float(y), 0});
  m.streams.push_back(p);
  for (int y = 0; y + 1 < side; ++y)
    for (int x = 0; x + 1 < side; ++x) {
      const uint32_t a = uint32_t(y * side + x), b = a + 1, c = a + side, d = c + 1;
      m.triangles.insert(m.triangles.end(), {a, b, d, a, d, c});
    }
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
