// meshport: ModeDef data the canonical Scene cannot hold (docs/modedef.md), kept as Scene::modedef.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace meshport {

// ---- ModeDef (modal deformation, Hauser 2003) ------------------------------------------------
// ../shared/specs/modedef.txt; docs/modedef.md says how each file maps onto the Scene. The files
// are kept here as parsed, so that .model -> .model and .state -> .state (with the files it
// references) are lossless. Indices are stored 0-based; the base each index family had in the
// file is kept so the writer reproduces it.

struct ModeDefFace {
  std::array<int32_t, 3> vertex{0, 0, 0};
  std::array<int32_t, 3> normal{0, 0, 0};    // meaningful only when the model has normals
  std::array<int32_t, 3> texcoord{0, 0, 0};  // meaningful only when the model has texcoords
  bool operator==(const ModeDefFace&) const = default;
};

struct ModeDefMaterial {
  std::array<float, 4> ambient{0, 0, 0, 1};
  std::array<float, 4> diffuse{1, 1, 1, 1};
  std::array<float, 4> specular{0, 0, 0, 1};
  std::array<float, 4> emissive{0, 0, 0, 1};
  float specular_strength = 0;
  bool operator==(const ModeDefMaterial&) const = default;
};

// A material group: faces first..last (0-based, inclusive) use `material` (0-based).
struct ModeDefGroup {
  int32_t first = 0, last = 0, material = 0;
  bool operator==(const ModeDefGroup&) const = default;
};

struct ModeDefCartonVertex {
  int32_t tet = 0;                   // 0-based tetrahedron
  std::array<float, 4> bary{1, 0, 0, 0};  // weights of the tetrahedron's 4 nodes
  bool operator==(const ModeDefCartonVertex&) const = default;
};

// The index base (0 or 1) each family of indices had in the file, and how FEND was written.
struct ModeDefIndexing {
  int32_t face_base = 0;     // V/N/T indices of faces
  int32_t group_base = 0;    // FSTART, FEND and MAT
  bool group_end_inclusive = true;
  int32_t tet_base = 0;      // tetrahedron node indices
  int32_t carton_base = 0;   // carton tetrahedron indices
  bool operator==(const ModeDefIndexing&) const = default;
};

// A .model file. Nodes (the simulation's vertices) are rest.size() / 3; eigenvector k's entries
// for node i are eigenvectors[k * rest.size() + 3 * i + 0..2].
struct ModeDefModel {
  std::vector<float> eigenvalues;   // #EV, lambda = omega^2 (frequency sqrt(lambda) / 2 pi)
  std::vector<float> eigenvectors;  // #EV * LEN
  std::vector<float> rest;          // LEN = 3 * nodes
  std::vector<std::array<float, 3>> vertices;  // render mesh
  std::vector<std::array<float, 3>> normals;
  std::vector<std::array<float, 2>> texcoords;
  std::vector<ModeDefFace> faces;
  std::vector<ModeDefMaterial> materials;
  std::vector<ModeDefGroup> groups;
  std::vector<std::array<int32_t, 4>> tets;  // 0-based node indices
  bool carton = false;
  std::vector<ModeDefCartonVertex> carton_vertices;  // one per render vertex when carton
  ModeDefIndexing indexing;

  size_t node_count() const { return rest.size() / 3; }
  size_t mode_count() const { return eigenvalues.size(); }
  bool operator==(const ModeDefModel&) const = default;
};

// A .prop file (material properties of one object).
struct ModeDefProp {
  std::string model_file;  // MODELFILE as written
  int32_t rigid_body = 1, deform = 1;  // RB, DEFORM as written (non-zero: true)
  float mass = 1;
  std::array<float, 3> center_of_mass{0, 0, 0};
  std::array<float, 9> inertia{1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major
  float unused1 = 0, lame = 1, damping1 = 0, damping2 = 0;
  float scale = 1, unused2 = 0;
  float kp = 0, kv = 0, kb = 0;
  bool operator==(const ModeDefProp&) const = default;
};

struct ModeDefPathKey {
  float time = 0;
  std::array<float, 3> value{0, 0, 0};  // position, or Euler angles (radians, docs/modedef.md)
  bool operator==(const ModeDefPathKey&) const = default;
};

// A .path file.
struct ModeDefPath {
  std::vector<ModeDefPathKey> translation;
  std::vector<ModeDefPathKey> rotation;
  bool operator==(const ModeDefPath&) const = default;
};

struct ModeDefObject {
  std::string name;  // NAME as written: the object's .prop file
  bool animated = false;  // the `a` flag
  std::array<float, 3> position{0, 0, 0};
  std::array<float, 4> rotation{1, 0, 0, 0};  // quaternion as in the file: w x y z
  std::array<float, 3> velocity{0, 0, 0};
  std::array<float, 3> angular_velocity{0, 0, 0};
  float birth = -1, death = -1;  // < 0: always alive
  std::string path_file;  // ANIMPATH as written (animated objects)
  bool operator==(const ModeDefObject&) const = default;
};

struct ModeDefPlane {
  std::array<float, 3> normal{0, 1, 0};
  std::array<float, 3> point{0, 0, 0};
  bool operator==(const ModeDefPlane&) const = default;
};

struct ModeDefConstraint {
  int32_t body1 = -1, body2 = 0;  // object indices as written (body1 -1: a static joint)
  std::array<float, 3> point{0, 0, 0};
  bool operator==(const ModeDefConstraint&) const = default;
};

// A .state file (a scene).
struct ModeDefState {
  int32_t fps = 30;
  int32_t use_penalty = 0;
  std::array<float, 3> gravity{0, -9.8f, 0};
  float friction = 0;
  float max_penetration = 0, cluster_factor = 0, cluster_radius = 0;
  std::vector<ModeDefObject> objects;
  std::vector<ModeDefPlane> planes;
  std::vector<ModeDefConstraint> constraints;
  bool operator==(const ModeDefState&) const = default;
};

// Files kept with the Scene. `file` is the path as referenced (relative to the .state's folder,
// or the .prop's folder for models), or the file's own name for the file that was read.
struct ModeDefModelFile {
  std::string file;
  ModeDefModel model;
  bool operator==(const ModeDefModelFile&) const = default;
};
struct ModeDefPropFile {
  std::string file;
  ModeDefProp prop;
  int32_t model = -1;  // index into ModeDefData::models
  bool operator==(const ModeDefPropFile&) const = default;
};
struct ModeDefPathFile {
  std::string file;
  ModeDefPath path;
  bool operator==(const ModeDefPathFile&) const = default;
};

// Which Scene mesh came from which model: Scene vertex v of `mesh` is render vertex vertex[v]
// of the model, with file normal normal[v] (-1 when the model has no normals).
struct ModeDefMeshSource {
  int32_t mesh = -1;
  int32_t model = -1;   // index into ModeDefData::models
  int32_t object = -1;  // index into ModeDefState::objects, -1 for a lone .model / .prop
  int32_t group = -1;   // material group, -1 for faces in no group
  std::vector<uint32_t> vertex;
  std::vector<int32_t> normal;
  bool operator==(const ModeDefMeshSource&) const = default;
};

struct ModeDefData {
  enum class Kind : uint8_t { Model, Prop, State, Path };
  Kind kind = Kind::Model;  // which file the Scene was read from
  uint64_t fingerprint = 0;  // content_fingerprint() of the Scene the reader made (scene.h)
  std::vector<ModeDefModelFile> models;
  std::vector<ModeDefPropFile> props;
  std::vector<ModeDefPathFile> paths;
  ModeDefState state;  // kind == State
  std::vector<int32_t> object_prop;   // per state object: index into props
  std::vector<int32_t> object_path;   // per state object: index into paths, -1 for none
  std::vector<int32_t> object_joint;  // per state object: its Scene joint
  std::vector<ModeDefMeshSource> mesh_sources;
  bool operator==(const ModeDefData&) const = default;
};

}  // namespace meshport
