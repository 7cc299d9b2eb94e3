// Modal deformation (Hauser, Shen and O'Brien 2003; ModeDef .model files, docs/modedef.md).
// A model's node i moves by u_i = sum_k q_k phi_k[i] for mode amplitudes q_k. With carton data a
// render vertex moves by the barycentric blend of its tetrahedron's node displacements; without,
// render vertex i is node i. Implementation: src/physics/modal.cpp.
#pragma once

#include <meshport/scene.h>

#include <array>
#include <span>
#include <vector>

namespace meshport {

// Frequency in Hz of a mode with eigenvalue lambda = omega^2: sqrt(lambda) / 2 pi (0 for
// lambda <= 0, the rigid modes).
float mode_frequency(float eigenvalue);

// Node displacements (3 per node) for amplitudes q (q.size() <= mode count; missing ones are 0).
// Throws meshport::Error for more amplitudes than modes or non-finite ones.
std::vector<float> modal_displacements(const ModeDefModel& model, std::span<const float> amplitudes);

// Render-vertex displacements (3 per render vertex) for the given node displacements: carton
// blend, or the node itself. Throws meshport::Error when the model cannot say (no carton and a
// vertex count different from the node count, with modes present).
std::vector<float> render_displacements(const ModeDefModel& model, std::span<const float> node_displacements);

struct ModalDeformation {
  std::vector<std::array<float, 3>> nodes;     // rest + u, one per node
  std::vector<std::array<float, 3>> vertices;  // render vertices moved, one per render vertex
  // Recomputed normals: one per model normal, the area-weighted sum of the deformed faces' normals
  // over the face corners that use it (so the file's smoothing is kept); one per render vertex
  // when the model has no normals.
  std::vector<std::array<float, 3>> normals;
};
ModalDeformation deform_model(const ModeDefModel& model, std::span<const float> amplitudes);

// Deforms, in place, every Scene mesh made from scene.modedef.models[model] (their
// ModeDefMeshSource): positions moved, normals replaced by deform_model's. Throws
// meshport::Error when the Scene has no such model or its meshes no longer match their sources.
void deform_scene(Scene& scene, std::span<const float> amplitudes, size_t model = 0);

// An animation that plays each morph target of the scene's meshes in turn as a damped
// oscillation, so any glTF viewer shows the modes: target k is driven during
// [k * seconds_per_mode, (k + 1) * seconds_per_mode) by a * sin(2 pi cycles t / T) * exp(-decay t / T)
// (t from the slot's start, T = seconds_per_mode), every other weight 0, sampled at fps. The
// amplitude a makes the largest vertex displacement of the target `amplitude_fraction` of the
// scene's bounding-box diagonal. Targets of different meshes with the same index play together.
// Adds nothing when no mesh has morph targets; returns the number of slots.
struct ModesAnimationOptions {
  float seconds_per_mode = 2.0f;
  float cycles = 3.0f;
  float decay = 4.0f;
  float fps = 30.0f;
  float amplitude_fraction = 0.1f;
};
size_t add_modes_animation(Scene& scene, const ModesAnimationOptions& options = {});

}  // namespace meshport
