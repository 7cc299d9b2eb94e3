// Generator of large skinned, animated IQE models for the benchmarks and the demo model. It writes
// IQE text directly (not through the IQE writer): a tapered tube standing along +Z (IQE is Z up,
// clockwise front faces), split along its length into meshes, skinned to a chain of joints.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace meshport::bench {

struct GenParams {
  uint64_t vertices = 200000;  // approximate total; each mesh is a grid of rings x (segments + 1)
  int joints = 64;             // a chain along the tube; 0 for no skeleton
  int frames = 30;             // per animation
  int animations = 2;          // "wave" (looping) and then "curl"; at most 2
  int meshes = 4;              // consecutive sections of the tube, each with its own material
  int segments = 0;            // quads around the tube; 0 chooses about sqrt(vertices) / 4
  int precision = 6;           // significant digits of the printed values
  bool tangents = true;        // vx lines (false: a reader or converter generates them)
  double framerate = 30;
  double length = 4, radius = 0.35, taper = 0.8;  // tip radius = radius * (1 - taper)
  uint64_t seed = 1;
  std::string name = "tube";  // prefix of mesh and material names
};

struct GenStats {
  uint64_t vertices = 0, triangles = 0, bytes = 0;
};

// The whole file as one string.
std::string generate_iqe(const GenParams& params, GenStats* stats = nullptr);

// Streams the file to `out` in chunks of about 1 MB; returns false on a write error.
bool write_iqe(const GenParams& params, std::FILE* out, GenStats* stats = nullptr);

}  // namespace meshport::bench
