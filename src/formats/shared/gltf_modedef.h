// Scene::modedef (ModeDefData, the ModeDef files a Scene was read from) as glTF extras, so that
// .model / .prop / .state / .path -> glTF -> the same format loses nothing (docs/modedef.md,
// docs/gltf-obj.md). The data sits where Blender's glTF importer keeps extras as custom
// properties (and its exporter writes them back): the files in scenes[0].extras, each mesh's
// ModeDefMeshSource in its glTF mesh's extras. Blender drops the document-level and primitive
// extras, so nothing ModeDef needs is there.
//
// ===== Schema =====
// Every key is always written; a reader takes the default of the C++ field for an absent key.
// Arrays of records are flat (a model's vertices are [x0, y0, z0, x1, ...]) so that they stay
// plain number arrays, which Blender stores compactly.
//   float:  a JSON number that reads back (as a double, then rounded to float) to the float bit
//           for bit: its shortest decimal form when that does, else its exact value; "NaN",
//           "Infinity" or "-Infinity" when it is not finite. Readers accept integers.
//   int:    a JSON integer (readers also accept a number with an integral value)
//   bool:   true / false (readers also accept 0 and 1, as Blender writes booleans back)
//   string: a JSON string, or {"base64": the bytes} when they are not valid UTF-8
//
//   scenes[0].extras.meshport.modedef = {
//     "version": 1,
//     "kind": "model" | "prop" | "state" | "path",   ModeDefData::kind
//     "models": [model], "props": [prop], "paths": [path], "state": state,
//     "object_prop": [int], "object_path": [int],     one per state object (ModeDefData)
//     "object_joint": [int]}                          Scene joints (= glTF nodes 0..J-1)
//   model = {"file": string,
//            "eigenvalues": [float], "eigenvectors": [float] (mode k: entries k*LEN .. k*LEN+LEN-1),
//            "rest": [float] (LEN = 3 x nodes),
//            "vertices": [float] (3 each), "normals": [float] (3 each), "texcoords": [float] (2 each,
//            as in the file: v up),
//            "faces": [int] (9 each: V N T of corner 0, 1, 2; 0-based),
//            "materials": [float] (17 each: ambient, diffuse, specular, emissive RGBA, strength),
//            "groups": [int] (3 each: first face, last face (inclusive), material; 0-based),
//            "tets": [int] (4 each, 0-based nodes), "carton": bool,
//            "carton_tets": [int], "carton_bary": [float] (4 each): one per render vertex,
//            "indexing": {"face_base": int, "group_base": int, "group_end_inclusive": bool,
//                         "tet_base": int, "carton_base": int}}
//   prop = {"file": string, "model": int (index into models, -1 none), "model_file": string,
//           "rigid_body": int, "deform": int, "mass": float, "center_of_mass": [float x3],
//           "inertia": [float x9], "unused1", "lame", "damping1", "damping2", "scale", "unused2",
//           "kp", "kv", "kb": float}
//   path = {"file": string, "translation": [float] (4 each: time x y z),
//           "rotation": [float] (4 each: time rx ry rz)}
//   state = {"fps": int, "use_penalty": int, "gravity": [float x3], "friction": float,
//            "max_penetration", "cluster_factor", "cluster_radius": float,
//            "objects": [{"name": string, "animated": bool, "position": [float x3],
//                         "rotation": [float x4] (w x y z), "velocity": [float x3],
//                         "angular_velocity": [float x3], "birth": float, "death": float,
//                         "path_file": string}],
//            "planes": [float] (6 each: normal, point),
//            "constraints": [{"body1": int, "body2": int, "point": [float x3]}]}
//   meshes[g].extras.meshport.modedef = {       the ModeDefMeshSource of the Scene mesh written
//     "source": int,                            as glTF mesh g: its index in mesh_sources
//     "model": int, "object": int, "group": int,
//     "vertex": [int], "normal": [int]}         per glTF vertex (= Scene vertex)
//
// The reader checks what the ModeDef parsers check (index ranges, counts, group overlaps, carton
// barycentric sums, constraint bodies, ...) and what the rest of meshport relies on (one
// vertex / normal entry per vertex of the mesh read, object_* one per state object, joint and
// model indices in range). Malformed scene data is ignored as a whole with a warning; a malformed
// mesh entry drops that mesh's source only, with a warning.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace meshport::gltf {

// scenes[0].extras.meshport.modedef: everything but the mesh sources.
nlohmann::json modedef_to_json(const ModeDefData& md);

// Per Scene mesh (`meshes` of them): the JSON of its mesh source for the glTF mesh's
// extras.meshport.modedef, null when it has none (the first source naming a mesh wins).
std::vector<nlohmann::json> modedef_mesh_json(const ModeDefData& md, size_t meshes);

// The inverse. Throws meshport::Error (no file name) whose message starts with the JSON path
// (`path` and below) of a malformed value. `joints`: the Scene's joint count.
ModeDefData modedef_from_json(const nlohmann::json& j, const std::string& path, size_t joints);
ModeDefMeshSource modedef_mesh_from_json(const nlohmann::json& j, const std::string& path, const ModeDefData& md,
                                         int32_t scene_mesh, size_t vertices, int32_t& source);

// What the glTF reader calls once the Scene is read: restores scene.modedef from `doc` (the
// glTF JSON: its default scene's extras and every mesh's), mapping glTF meshes to Scene meshes
// through `scene_mesh` (per glTF mesh, -1 for none), and records its content_fingerprint().
// Malformed data is ignored with a warning (naming `file`).
void restore_modedef(Scene& scene, const nlohmann::json& doc, const std::vector<int32_t>& scene_mesh,
                     const std::string& file, Diagnostics& diags);

}  // namespace meshport::gltf
