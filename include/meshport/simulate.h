// Simulating a ModeDef scene (`meshport simulate`, issue 21; Hauser, Shen and O'Brien 2003):
// rigid bodies under gravity with penalty contacts against the scene's planes and Coulomb
// friction, modal deformation as damped oscillators driven by the contact forces, joint
// constraints as stiff springs, birth and death times, and path-driven objects. Equations and
// every choice the formats leave open: docs/modedef.md "Simulating scenes". Implementation:
// src/ops/simulate*.cpp.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshport {

// At most this many object poses (frames x objects), as a .state's own animation.
constexpr double kMaxSimulatedPoses = double(1u << 21);
// At most this many substeps per output frame (the stiffest spring decides the count).
constexpr uint32_t kMaxSubstepsPerFrame = 1u << 16;
// At most this many mode amplitudes kept in the result (frames x objects x modes).
constexpr double kMaxSimulatedModeValues = double(1u << 25);
// At most this much work: substeps in all x the contact points and modes they update
// (sum over objects of points x (modes + 1)); about 2 minutes at the benchmark's rate.
constexpr double kMaxSimulationWork = double(uint64_t(1) << 35);

struct SimulateOptions {
  // Simulated time in seconds (>= 0); empty: the scene's latest path key, birth or death time,
  // else 5 s.
  std::optional<double> seconds;
  double fps = 0;         // > 0: output frames per second instead of the .state's FPS (30 when FPS <= 0)
  uint32_t substeps = 0;  // > 0: substeps per frame instead of the automatic count
  // Initial mode amplitudes q_k and velocities q'_k per object (object i, mode k); missing
  // values are 0. The .state has no modal state: for experiments and tests.
  std::vector<std::vector<double>> initial_modes, initial_mode_velocities;
};

// One object at one output frame. Positions in the Scene's units, world frame.
struct SimulatedObject {
  bool alive = false;                         // between TBIRTH and TDEATH
  std::array<double, 3> position{0, 0, 0};   // the object's origin (POS: its joint's translation)
  std::array<double, 4> rotation{0, 0, 0, 1};  // x y z w
  std::array<double, 3> center_of_mass{0, 0, 0};
  std::array<double, 3> velocity{0, 0, 0};          // of the centre of mass
  std::array<double, 3> angular_velocity{0, 0, 0};  // world frame, rad/s
  std::vector<double> modes;                  // q_k, one per mode of the object's model
  uint32_t contacts = 0;                      // contact points during the frame's last substep
  double max_penetration = 0;                 // deepest since the previous frame
  double kinetic = 0;    // 1/2 m v^2 + 1/2 w . I w
  double potential = 0;  // -m g . x_com + the contact springs' 1/2 KP d^2
  double modal = 0;      // sum_k 1/2 q'_k^2 + 1/2 omega_k^2 q_k^2
};

struct SimulationResult {
  double fps = 30, seconds = 0;
  double substep = 0;                 // seconds per substep (before rollbacks halve it)
  uint32_t substeps_per_frame = 0;
  uint64_t rollbacks = 0;             // substeps redone in halves because MAXPEN was passed
  double max_penetration = 0;         // over all objects and substeps
  size_t frame_count = 0, object_count = 0;
  std::vector<SimulatedObject> states;  // frame-major: states[frame * object_count + object]
  const SimulatedObject& at(size_t frame, size_t object) const { return states[frame * object_count + object]; }
};

// Simulates a Scene read from a .state (Scene::modedef of kind State). Throws meshport::Error
// (messages name no file) for a Scene that is not a .state, one without objects, a negative or
// non-finite time, more than kMaxSimulatedPoses poses, kMaxSimulatedModeValues mode amplitudes,
// kMaxSubstepsPerFrame substeps per frame or kMaxSimulationWork work,
// a moving object whose MASS or INERTIA is not positive; warnings (USEPENALTY 0, a moving object with no
// contact stiffness reaching a plane, once, with the time) go to diags.
SimulationResult simulate(const Scene& scene, const SimulateOptions& options = {}, Diagnostics* diags = nullptr);

// Replaces the Scene's animations by the simulated one (named after the .state's stem, else
// "simulation"): one pose per object joint per frame (scale = SCALE while alive, 0 outside) and
// one morph weight track per mesh with morph targets (weight k = q_k of the mesh's object).
void apply_simulation(Scene& scene, const SimulationResult& result, const std::string& name = "simulation");

// The trace as JSON: {"fps", "seconds", "substep", "substeps_per_frame", "rollbacks", "objects":
// [names], "frames": [{"time", "objects": [{"alive", "position", "rotation", "center_of_mass",
// "velocity", "angular_velocity", "modes", "contacts", "max_penetration", "energy": {"kinetic",
// "potential", "modal"}}]}]}.
std::string simulation_trace_json(const Scene& scene, const SimulationResult& result);

}  // namespace meshport
