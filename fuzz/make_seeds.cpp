// Seed corpora for the fuzz targets, made from the repository's own test files: every input is
// copied into the folder of its format and, once read, written in every format meshport writes
// as one file (glTF with its buffer embedded), so binary formats get seeds too.
//
//   make_seeds OUT_DIR FILE...   ->   OUT_DIR/<target name>/<n>-<stem><ext>
#include <meshport/meshport.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace meshport;

namespace {

struct Target {
  const char* dir;
  Format format;
  const char* ext;
  bool written;  // also a seed written from every input
};

const Target kTargets[] = {
    {"iqe", Format::Iqe, ".iqe", true},          {"iqm", Format::Iqm, ".iqm", true},
    {"gltf", Format::Gltf, ".gltf", true},       {"glb", Format::Glb, ".glb", true},
    {"obj", Format::Obj, ".obj", true},          {"pie", Format::Pie, ".pie", true},
    {"qmsh_tmp", Format::QmshTmp, ".qmsh.tmp", true}, {"qmsh", Format::Qmsh, ".qmsh", true},
    {"model", Format::ModeDefModel, ".model", true},  {"prop", Format::ModeDefProp, ".prop", false},
    {"state", Format::ModeDefState, ".state", false}, {"path", Format::ModeDefPath, ".path", true},
};

void save(const fs::path& file, const std::vector<uint8_t>& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_seeds OUT_DIR FILE...\n");
    return 2;
  }
  const fs::path out = argv[1];
  for (const Target& t : kTargets) fs::create_directories(out / t.dir);
  size_t made = 0;
  for (int i = 2; i < argc; ++i) {
    const fs::path in = argv[i];
    const std::string tag = std::to_string(i - 1) + "-" + in.stem().string();
    const auto format = format_from_path(in.string());
    if (!format) continue;
    for (const Target& t : kTargets)
      if (t.format == *format) {
        fs::copy_file(in, out / t.dir / (tag + t.ext), fs::copy_options::overwrite_existing);
        ++made;
      }
    Scene scene;
    try {
      Diagnostics d;
      scene = read(in.string(), {}, &d);
    } catch (const std::exception&) {
      continue;  // error fixtures are seeds of their own format only
    }
    for (const Target& t : kTargets) {
      if (!t.written || t.format == *format) continue;
      try {
        Diagnostics d;
        save(out / t.dir / (tag + "-w" + t.ext), write_memory(scene, t.format, {}, &d));
        ++made;
      } catch (const std::exception&) {
        // the format cannot hold this scene
      }
    }
  }
  std::printf("%zu seeds in %s\n", made, out.c_str());
  return 0;
}
