// embed: reads a model with the meshport library, prints its summary (what `meshport info`
// prints: counts, bounds, where its textures are) and converts it.
//   embed model.iqe out.glb
#include <meshport/meshport.h>
#include <meshport/summary.h>
#include <meshport/textures.h>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s INPUT OUTPUT (formats by extension)\n", argv[0]);
    return 2;
  }
  const std::string input = argv[1], output = argv[2];
  try {
    meshport::Diagnostics diagnostics;
    const meshport::Scene scene = meshport::read(input, {}, &diagnostics);
    const std::optional<meshport::Format> format = meshport::format_from_path(input);
    meshport::Summary summary = meshport::summarize(scene, *format);
    summary.file = input;
    meshport::TextureSearch search;
    search.model_path = input;
    summary.textures = meshport::find_textures(scene, search);
    std::printf("%s", meshport::to_text(summary).c_str());

    meshport::write(scene, output, {}, &diagnostics);
    for (const meshport::Diagnostic& d : diagnostics.items) std::fprintf(stderr, "%s\n", d.to_string().c_str());
    std::printf("wrote %s (%s)\n", output.c_str(),
                std::string(meshport::format_info(*meshport::format_from_path(output)).name).c_str());
  } catch (const std::exception& e) {  // meshport::Error carries file:line:col
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
