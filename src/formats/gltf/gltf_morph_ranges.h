// Morph target weights outside [0, 1] in a form every player shows as they are.
//
// glTF allows any weight, but Blender's importer keeps a shape key's slider range at [0, 1]
// unless the FIRST key of its animation lies outside (io_scene_gltf2 3.4 widens the range from
// `coords[1:2]`, one value), and clamps every other value to it: a ModeDef mode amplitude of
// -20.4 plays as 0. So the writer encodes a target whose default weight or animated weights
// leave [0, 1] as up to two glTF targets of weights in [0, 1]:
//   "+" target: displacements d * s, weights max(w, 0) / s
//   "-" target: displacements -d * s, weights max(-w, 0) / s   (only when some w < 0)
// s = the smallest power of two >= max |w| (1 when every |w| <= 1), so every product and
// quotient is exact, and linear (or step) interpolation of the two weights still gives
// s * (p - n) = w between keys. Targets whose weights stay in [0, 1] are written as they are.
//
// Mesh extras record the encoding, so meshport's reader merges the pairs back bit for bit
// (Blender keeps mesh extras as custom properties and writes them back):
//   meshes[g].extras.meshport.morph_ranges = {"source": [int], "scale": [float]}
//   one entry per glTF target: the Scene target it encodes and its signed scale (+s, -s, or 1).
// Scene target i = its first glTF target's displacements / scale; its weight at any key =
// sum over its glTF targets j of scale_j * weight_j.
#pragma once

#include <meshport/scene.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshport::gltf {

// How one mesh's Scene targets map to its glTF targets.
struct MorphRanges {
  std::vector<int32_t> source;  // per glTF target: the Scene target it encodes
  std::vector<float> scale;     // per glTF target: +s, -s (the "-" target) or 1
  bool operator==(const MorphRanges&) const = default;
};

// The Scene to write with every out-of-range target encoded, and per Scene mesh its encoding
// (nullopt: written as it is). Returns nullopt when nothing needs encoding. `warn` names a
// target left as it is because its scaled displacements would overflow.
std::optional<Scene> with_morph_ranges(const Scene& scene, std::vector<std::optional<MorphRanges>>& ranges,
                                       std::vector<std::string>& warnings);

nlohmann::json morph_ranges_json(const MorphRanges& r);

// The encoding read from extras for a mesh of `targets` glTF targets; throws meshport::Error
// (no file name) whose message says what is malformed.
MorphRanges morph_ranges_from_json(const nlohmann::json& j, size_t targets);

// The Scene targets merged back into `mesh` (read with the glTF targets), its default weights
// and every track of `tracks` (whose weights have one value per glTF target).
void merge_morph_ranges(Mesh& mesh, const MorphRanges& r, const std::vector<MorphWeightTrack*>& tracks);

}  // namespace meshport::gltf
