// meshport_genmodel: writes a large skinned, animated IQE model (see generate.h).
#include "generate.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  meshport::bench::GenParams p;
  std::string output = "-";
  CLI::App app{"meshport_genmodel: generate a skinned, animated IQE tube model (deterministic per seed)"};
  app.add_option("--vertices", p.vertices, "Approximate vertex count (two triangles per vertex)")
      ->capture_default_str();
  app.add_option("--joints", p.joints, "Joints in the chain (0: no skeleton)")->capture_default_str();
  app.add_option("--frames", p.frames, "Frames per animation")->capture_default_str();
  app.add_option("--animations", p.animations, "0, 1 (\"wave\", looping) or 2 (+ \"curl\")")->capture_default_str();
  app.add_option("--framerate", p.framerate, "Frames per second")->capture_default_str();
  app.add_option("--meshes", p.meshes, "Meshes (sections of the tube, one material each)")->capture_default_str();
  app.add_option("--segments", p.segments, "Quads around the tube (0: about sqrt(vertices) / 4)")
      ->capture_default_str();
  app.add_option("--precision", p.precision, "Significant digits of printed values")->capture_default_str();
  app.add_flag("!--no-tangents", p.tangents, "Leave out the vx lines (tangents are then generated on conversion)");
  app.add_option("--length", p.length, "Tube length")->capture_default_str();
  app.add_option("--radius", p.radius, "Tube radius at the base")->capture_default_str();
  app.add_option("--taper", p.taper, "Tip radius = radius * (1 - taper)")->capture_default_str();
  app.add_option("--name", p.name, "Prefix of mesh, material and joint names")->capture_default_str();
  app.add_option("--seed", p.seed, "Random seed")->capture_default_str();
  app.add_option("-o,--output", output, "Output file, - for stdout")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto start = std::chrono::steady_clock::now();
  std::FILE* f = output == "-" ? stdout : std::fopen(output.c_str(), "wb");
  if (!f) {
    std::perror(output.c_str());
    return 1;
  }
  meshport::bench::GenStats st;
  bool ok = meshport::bench::write_iqe(p, f, &st);
  if (f != stdout) ok = std::fclose(f) == 0 && ok;
  else ok = std::fflush(f) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "%s: write error\n", output.c_str());
    return 1;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%s: %llu vertices, %llu triangles, %d joints, %llu bytes (%.1f MB) in %.2f s\n",
               output.c_str(), (unsigned long long)st.vertices, (unsigned long long)st.triangles, p.joints,
               (unsigned long long)st.bytes, st.bytes / 1e6, secs);
  return 0;
}
