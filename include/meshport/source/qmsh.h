// meshport: QMSH data the canonical Scene cannot hold (docs/qmsh.md), kept as Scene::qmsh_tmp and Scene::qmsh.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace meshport {

// ---- QMSH (The Final Quest engine) data the rest of the Scene cannot hold --------------------
// docs/qmsh.md. `.qmsh.tmp` (QMSH TMP 10, the Blender exporter's text) is kept whole, as parsed,
// so that .qmsh.tmp -> .qmsh.tmp is lossless; the Scene's meshes, joints and animations are what
// the specification's processing makes of it. Vectors are as in the file (Blender axes, Z up).

struct QmshTmpFace {
  uint32_t count = 3;                       // 3 or 4 corners
  uint32_t material = 0;                    // 0..15, may be past the material list
  uint32_t smooth = 0;                      // Is_smooth as written (ignored by the processing)
  std::array<uint32_t, 4> vertex{0, 0, 0, 0};
  std::array<std::array<float, 2>, 4> uv{};  // per corner, as in the file (v up)
  bool operator==(const QmshTmpFace&) const = default;
};

struct QmshTmpVertexGroup {
  std::string name;
  std::vector<uint32_t> vertices;
  std::vector<float> weights;  // one per vertex entry
  bool operator==(const QmshTmpVertexGroup&) const = default;
};

struct QmshTmpMesh {
  std::string name;
  std::array<float, 3> position{0, 0, 0};
  std::array<float, 3> orientation{0, 0, 0};  // Euler radians, X applied first
  std::array<float, 3> size{1, 1, 1};
  std::string parent_armature, parent_bone;
  float auto_smooth_angle = 30;  // degrees
  std::vector<std::string> materials;
  std::vector<std::array<float, 3>> vertices;
  std::vector<QmshTmpFace> faces;
  std::vector<QmshTmpVertexGroup> vertex_groups;
  bool operator==(const QmshTmpMesh&) const = default;
};

struct QmshTmpBone {
  std::string name, parent;  // parent "" for a top-level bone
  std::array<float, 3> head_bone{0, 0, 0}, head_armature{0, 0, 0};
  float head_radius = 0;
  std::array<float, 3> tail_bone{0, 0, 0}, tail_armature{0, 0, 0};
  float tail_radius = 0;
  float roll_bone = 0, roll_armature = 0;
  float length = 0, weight = 0;
  std::array<float, 9> matrix_bone{1, 0, 0, 0, 1, 0, 0, 0, 1};  // rows as in the file
  std::array<float, 16> matrix_armature{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};  // rows as in the file
  bool operator==(const QmshTmpBone&) const = default;
};

struct QmshTmpArmature {
  std::string name;
  std::array<float, 3> position{0, 0, 0};
  std::array<float, 3> orientation{0, 0, 0};
  std::array<float, 3> size{1, 1, 1};
  int32_t vertex_groups = 1, envelopes = 0;  // the two flags as written
  std::vector<QmshTmpBone> bones;
  bool operator==(const QmshTmpArmature&) const = default;
};

struct QmshTmpCurve {
  enum class Interpolation : uint8_t { Const, Linear, Bezier };
  enum class Extend : uint8_t { Const, Extrap, Cyclic, CyclicExtrap };
  std::string name;  // LocX LocY LocZ QuatW QuatX QuatY QuatZ SizeX SizeY SizeZ, or others (kept)
  Interpolation interpolation = Interpolation::Linear;
  Extend extend = Extend::Const;
  std::vector<std::array<float, 2>> points;  // (frame, value)
  bool operator==(const QmshTmpCurve&) const = default;
};

struct QmshTmpChannel {
  std::string name;  // bone name
  std::vector<QmshTmpCurve> curves;
  bool operator==(const QmshTmpChannel&) const = default;
};

struct QmshTmpAction {
  std::string name;
  std::vector<QmshTmpChannel> channels;
  bool operator==(const QmshTmpAction&) const = default;
};

struct QmshTmpData {
  uint64_t fingerprint = 0;  // content_fingerprint() of the Scene the reader made (scene.h)
  std::vector<QmshTmpMesh> meshes;
  bool has_armature = false;
  QmshTmpArmature armature;
  uint32_t armature_index = 0;  // position of the armature among the objects (0 = first)
  std::vector<QmshTmpAction> actions;
  std::vector<int32_t> fps;     // every `fps = N` in params, in order (the last one counts)
  bool operator==(const QmshTmpData&) const = default;
};

// Binary TFQMSH10 values that the Scene's meshes, joints and animations do not reproduce bit for
// bit, kept so that TFQMSH10 -> TFQMSH10 is byte-identical (docs/qmsh.md says when each is used).
struct QmshBinaryData {
  uint64_t fingerprint = 0;  // content_fingerprint() of the Scene the reader made (scene.h)
  uint8_t flags = 0;     // 1 tangents, 2 skinning
  float radius = 0;
  std::array<float, 6> box{0, 0, 0, 0, 0, 0};  // min xyz, max xyz (engine axes)
  std::vector<std::array<float, 12>> bone_matrices;  // per bone, as in the file
  std::vector<float> binormals;       // 3 per vertex of the whole file, engine axes (flag 1)
  std::vector<uint32_t> bone_indices;  // packed u32 per vertex as in the file (flag 2)
  std::vector<float> animation_lengths;  // per animation, seconds
  // Every animation's keys as in the file: per animation, key and bone, the 8 floats
  // (translation xyz, quaternion xyzw, scale) relative to the bone's rest (engine axes).
  std::vector<float> keys;
  bool operator==(const QmshBinaryData&) const = default;
};

}  // namespace meshport
