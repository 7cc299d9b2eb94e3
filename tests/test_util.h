// Shared helpers for tests: corpus paths, an IQM header peek, tolerant Scene comparison.
#pragma once

#include <meshport/meshport.h>

#include <gtest/gtest.h>

#include "corpus.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace testutil {

inline std::string corpus(const std::string& rel) { return std::string(MESHPORT_CORPUS) + "/" + rel; }
// A float stream of `components` values per vertex, as a reader of float data would make it.
inline meshport::VertexStream float_stream(meshport::Attribute a, uint32_t components, std::vector<float> data) {
  meshport::VertexStream s;
  s.attribute = a;
  s.format = meshport::ComponentType::Float;
  s.source_size = components;
  s.components = components;
  s.data = std::move(data);
  return s;
}

// A transform from translation, rotation (x y z w) and scale.
// A material with a name, a colour map reference and a base colour factor (other slots empty).
inline meshport::Material material(std::string name, std::string texture = {},
                                   std::array<float, 4> color = {1, 1, 1, 1}) {
  meshport::Material m;
  m.name = std::move(name);
  m.base_color_texture = std::move(texture);
  m.base_color = color;
  return m;
}

// Base64 (RFC 4648, with padding), for building and reading data: URIs in glTF tests.
inline std::string base64(const std::vector<uint8_t>& b) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= b.size(); i += 3) {
    uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8 | b[i + 2];
    for (int k = 3; k >= 0; --k) out += abc[(v >> (6 * k)) & 63];
  }
  if (b.size() - i == 1) {
    uint32_t v = uint32_t(b[i]) << 16;
    out += abc[v >> 18], out += abc[(v >> 12) & 63], out += "==";
  } else if (b.size() - i == 2) {
    uint32_t v = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8;
    out += abc[v >> 18], out += abc[(v >> 12) & 63], out += abc[(v >> 6) & 63], out += '=';
  }
  return out;
}

// The bytes of base64 text; characters outside the alphabet (padding) are skipped.
inline std::vector<uint8_t> base64_decode(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::vector<uint8_t> r;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    const int v = val(c);
    if (v < 0) continue;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      r.push_back(uint8_t(acc >> bits));
    }
  }
  return r;
}

inline meshport::Transform trs(std::array<float, 3> t, std::array<float, 4> r = {0, 0, 0, 1},
                               std::array<float, 3> s = {1, 1, 1}) {
  meshport::Transform x;
  x.translation = t;
  x.rotation = r;
  x.scale = s;
  return x;
}

// One joint standing still for `frames` frames ("idle", 30 fps): IQM stores no frame data for it.
// The Scene with every name_made_up flag cleared: a reader marks the names it makes up (a PIE's
// levels after the file), and a name written out and read back is real; tests comparing Scenes
// across that step compare them without the flags.
inline meshport::Scene without_made_up(meshport::Scene s) {
  for (auto& x : s.meshes) x.name_made_up = false;
  for (auto& x : s.materials) x.name_made_up = false;
  for (auto& x : s.joints) x.name_made_up = false;
  for (auto& x : s.animations) x.name_made_up = false;
  for (auto& x : s.attachments) x.name_made_up = false;
  return s;
}

inline meshport::Scene still_animation(size_t frames) {
  meshport::Scene s;
  s.joints.push_back({"root", -1, {}});
  meshport::Animation a;
  a.name = "idle";
  a.framerate = 30;
  a.channels = 1;
  a.poses.assign(frames, meshport::Transform{});
  s.animations.push_back(std::move(a));
  return s;
}

// A fresh folder per test, removed afterwards.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("meshport-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& n) const { return (path / n).string(); }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The meshport CLI run with `args` (a shell command line): exit status, stdout and stderr.
struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr together
};
inline CliRun run_cli(const std::string& args) {
  std::string cmd = std::string(MESHPORT_CLI) + " " + args + " 2>&1";
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

// Runs the Khronos validator (tests/gltf_validate, installed by `npm ci`) over `files` with
// --max-warnings 0; returns whether it passed, and its output. A missing validator fails.
inline bool validate_gltf(const std::vector<std::string>& files, std::string& output) {
  namespace fs = std::filesystem;
  const fs::path here = fs::path(MESHPORT_TEST_DATA).parent_path() / "gltf_validate";
  if (!fs::exists(here / "node_modules" / "gltf-validator" / "package.json")) {
    output = "the Khronos glTF Validator is not installed: run `npm ci --prefix tests/gltf_validate`";
    return false;
  }
  std::string cmd = "node '" + (here / "validate.mjs").string() + "' --max-warnings 0";
  for (const std::string& f : files) cmd += " '" + f + "'";
  cmd += " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    output = "cannot run node";
    return false;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  return ::pclose(p) == 0;
}

// have_corpus() and REQUIRE_CORPUS(): corpus.h.

// The 31 uint32 fields after the 16-byte magic of an IQM header.
struct IqmHeader {
  uint32_t version, filesize, flags, num_text, ofs_text, num_meshes, ofs_meshes, num_vertexarrays, num_vertexes,
      ofs_vertexarrays, num_triangles, ofs_triangles, ofs_adjacency, num_joints, ofs_joints, num_poses, ofs_poses,
      num_anims, ofs_anims, num_frames, num_framechannels, ofs_frames, ofs_bounds, num_comment, ofs_comment,
      num_extensions, ofs_extensions;
};
inline IqmHeader iqm_header(const std::vector<uint8_t>& b) {
  IqmHeader h{};
  if (b.size() >= 16 + sizeof h) std::memcpy(&h, b.data() + 16, sizeof h);
  return h;
}
template <class T>
T peek(const std::vector<uint8_t>& b, size_t off) {
  T v{};
  if (off + sizeof v <= b.size()) std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

// Vertex influences as sorted (joint, weight) pairs with weight > 0, duplicates merged.
inline std::vector<std::pair<int, float>> influences(const meshport::Mesh& m, size_t v) {
  std::map<int, float> acc;
  const auto* bi = m.find(meshport::Attribute::BlendIndices);
  const auto* bw = m.find(meshport::Attribute::BlendWeights);
  if (!bi || !bw) return {};
  for (uint32_t c = 0; c < bw->components; ++c) {
    float w = bw->get(v, c);
    if (w > 0) acc[static_cast<int>(bi->get(v, c))] += w;
  }
  return {acc.begin(), acc.end()};
}

inline void expect_stream_near(const meshport::Mesh& a, const meshport::Mesh& b, meshport::Attribute attr,
                               float tol, const char* what) {
  const auto* sa = a.find(attr);
  const auto* sb = b.find(attr);
  ASSERT_EQ(sa == nullptr, sb == nullptr) << what;
  if (!sa) return;
  ASSERT_EQ(sa->vertex_count(), sb->vertex_count()) << what;
  uint32_t n = std::min(sa->components, sb->components);
  size_t bad = 0;
  for (size_t v = 0; v < sa->vertex_count(); ++v)
    for (uint32_t c = 0; c < n; ++c)
      if (!(std::fabs(sa->get(v, c) - sb->get(v, c)) <= tol) && bad++ < 5)
        ADD_FAILURE() << what << " vertex " << v << " component " << c << ": " << sa->get(v, c) << " vs "
                      << sb->get(v, c);
  EXPECT_EQ(bad, 0u) << what;
}

// Same meshes (names, materials, counts, triangles), values within `tol`, influences within
// `weight_tol`, skeleton equal within `tol`, animations within each channel's quantisation step.
inline void expect_scenes_close(const meshport::Scene& a, const meshport::Scene& b, float tol = 0.0f,
                                float weight_tol = 0.0f) {
  using namespace meshport;
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t i = 0; i < a.meshes.size(); ++i) {
    const Mesh& ma = a.meshes[i];
    const Mesh& mb = b.meshes[i];
    EXPECT_EQ(ma.name, mb.name);
    EXPECT_EQ(ma.material >= 0 ? a.materials[ma.material].name : "", mb.material >= 0 ? b.materials[mb.material].name : "");
    ASSERT_EQ(ma.vertex_count(), mb.vertex_count()) << ma.name;
    EXPECT_EQ(ma.triangles, mb.triangles) << ma.name;
    for (Attribute at : {Attribute::Position, Attribute::Texcoord, Attribute::Normal, Attribute::Tangent, Attribute::Color})
      expect_stream_near(ma, mb, at, tol, ma.name.c_str());
    size_t bad = 0;
    for (size_t v = 0; v < ma.vertex_count(); ++v) {
      auto ia = influences(ma, v), ib = influences(mb, v);
      bool same = ia.size() == ib.size();
      for (size_t k = 0; same && k < ia.size(); ++k)
        same = ia[k].first == ib[k].first && std::fabs(ia[k].second - ib[k].second) <= weight_tol;
      if (!same && bad++ < 5) ADD_FAILURE() << ma.name << " influences differ at vertex " << v;
    }
    EXPECT_EQ(bad, 0u);
  }
  ASSERT_EQ(a.joints.size(), b.joints.size());
  for (size_t j = 0; j < a.joints.size(); ++j) {
    EXPECT_EQ(a.joints[j].name, b.joints[j].name);
    EXPECT_EQ(a.joints[j].parent, b.joints[j].parent);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(a.joints[j].rest.translation[c], b.joints[j].rest.translation[c], tol);
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(a.joints[j].rest.rotation[c], b.joints[j].rest.rotation[c], tol);
  }
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t k = 0; k < a.animations.size(); ++k) {
    const Animation& x = a.animations[k];
    const Animation& y = b.animations[k];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.framerate, y.framerate);
    EXPECT_EQ(x.loop, y.loop);
    ASSERT_EQ(x.channels, y.channels);
    ASSERT_EQ(x.poses.size(), y.poses.size());
    // Per joint and channel: the IQM quantisation step is range / 65535 over all frames.
    for (uint32_t j = 0; j < x.channels; ++j) {
      auto value = [&](const Transform& t, int ch) {
        return ch < 3 ? t.translation[ch] : ch < 7 ? t.rotation[ch - 3] : t.scale[ch - 7];
      };
      for (int ch = 0; ch < 10; ++ch) {
        float lo = INFINITY, hi = -INFINITY;
        for (size_t f = 0; f < x.frame_count(); ++f) {
          float v = value(x.poses[f * x.channels + j], ch);
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        float step = (hi - lo) / 65535.0f;
        for (size_t f = 0; f < x.frame_count(); ++f) {
          float va = value(x.poses[f * x.channels + j], ch), vb = value(y.poses[f * y.channels + j], ch);
          if (!(std::fabs(va - vb) <= step * 0.5f + 1e-6f + std::fabs(va) * 1e-6f)) {
            ADD_FAILURE() << x.name << " frame " << f << " joint " << j << " channel " << ch << ": " << va << " vs "
                          << vb << " (step " << step << ")";
            return;
          }
        }
      }
    }
  }
}

}  // namespace testutil
