// One libFuzzer target per reader and per read -> write -> read round trip, all from this file:
// fuzz/CMakeLists.txt compiles it once per target with
//   MESHPORT_FUZZ_FORMAT    a meshport::Format enumerator (Iqe, Iqm, ..., ModeDefPath)
//   MESHPORT_FUZZ_ROUNDTRIP 0: read only; 1: read, write the same format, read again
//
// Reading: any input must either give a Scene or throw meshport::Error; anything else (a crash,
// another exception, a sanitizer report, a hang, a huge allocation) is a finding.
// Round trip: when the first read succeeds and the writer accepts the Scene, the second read
// must succeed with as many meshes as the writer kept (glTF and OBJ leave out, with a warning,
// meshes without positions or triangles), and for formats meshport writes losslessly, writing the
// second Scene must give the very bytes the first write gave.
//
// ModeDef .prop and .state name other files: their targets read the input with a loader that
// serves the repository's small fixture files for any name (by extension), so the Scene
// building behind the parsers is reached too.
#include <meshport/meshport.h>

#include "formats/modedef/modedef.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#ifndef MESHPORT_FUZZ_FORMAT
#error "MESHPORT_FUZZ_FORMAT must name a meshport::Format enumerator"
#endif
#ifndef MESHPORT_FUZZ_ROUNDTRIP
#define MESHPORT_FUZZ_ROUNDTRIP 0
#endif

namespace {

using namespace meshport;

constexpr Format kFormat = Format::MESHPORT_FUZZ_FORMAT;

// The files a fuzzed .prop or .state may name: small valid ones.
const char* const kModel =
    "1 9\n39.478416\n0 0 1 0 0 1 0 0 1\n0 0 0 1 0 0 0 1 0\n"
    "3 1 3 1 1 1\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n0 0\n1 0\n0 1\n0 0 0 1 0 1 2 0 2\n"
    "0.1 0.1 0.1 1 0.8 0.2 0.2 1 0.5 0.5 0.5 1 0 0 0 1 10\n0 0 0\n0\n0\n";
const char* const kProp = "tri.model\n1 1\n2\n0 0 0\n1 0 0 0 1 0 0 0 1\n0 1 0.1 0.1\n1 0\n100 1 1\n";
const char* const kPath = "2 2\n0 0 0 0\n1 1 2 3\n0 0 0 0\n1 0 0 1.5\n";

[[maybe_unused]] std::vector<uint8_t> serve(const std::string& name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
  };
  const char* text = ends(".prop") ? kProp : ends(".path") ? kPath : ends(".model") ? kModel : nullptr;
  if (!text) fail(name, "not found");
  return std::vector<uint8_t>(text, text + std::char_traits<char>::length(text));
}

Scene read_input(std::span<const uint8_t> data, Diagnostics& d) {
  const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  if constexpr (kFormat == Format::ModeDefProp) return modedef::read_prop(text, "fuzz.prop", serve, d);
  if constexpr (kFormat == Format::ModeDefState) return modedef::read_state(text, "fuzz.state", serve, d);
  return read_memory(data, kFormat, "fuzz", &d);
}

// Formats whose write of a Scene they read gives back an equal Scene.
[[maybe_unused]] constexpr bool lossless() {
  return kFormat == Format::Iqe || kFormat == Format::Iqm || kFormat == Format::Pie || kFormat == Format::QmshTmp ||
         kFormat == Format::Qmsh || kFormat == Format::ModeDefModel || kFormat == Format::ModeDefPath;
}

// How many meshes the writer keeps: lossless formats keep all; glTF and OBJ leave out (with a
// warning) meshes that have no positions or no triangles, as neither format can hold one.
[[maybe_unused]] size_t kept_meshes(const Scene& s) {
  if (lossless()) return s.meshes.size();
  size_t n = 0;
  for (const Mesh& m : s.meshes) n += m.find(Attribute::Position) && m.vertex_count() > 0 && !m.triangles.empty();
  return n;
}

[[noreturn, maybe_unused]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "meshport fuzz finding: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  Scene first;
  try {
    Diagnostics d;
    first = read_input({bytes, size}, d);
  } catch (const Error&) {
    return 0;  // a clean, located error: what bad input must get
  }
  if constexpr (MESHPORT_FUZZ_ROUNDTRIP) {
    std::vector<uint8_t> written;
    Diagnostics write_diags;
    try {
      written = write_memory(first, kFormat, {}, &write_diags);
    } catch (const Error&) {
      return 0;  // the writer refused the Scene, with a message
    }
    Scene second;
    try {
      Diagnostics d;
      second = read_input(written, d);
    } catch (const Error& e) {
      finding("meshport cannot read what it wrote", e.what());
    }
    if (second.meshes.size() != kept_meshes(first)) finding("the round trip changed the mesh count", "");
    if (kept_meshes(first) < first.meshes.size() && write_diags.warning_count() == 0)
      finding("the writer left meshes out without a warning", "");
    if (lossless()) {
      // Scene == cannot compare NaN (real TFQMSH10 files hold some), so the check is on bytes:
      // writing what was read back must give the same file again.
      std::vector<uint8_t> again;
      try {
        Diagnostics d;
        again = write_memory(second, kFormat, {}, &d);
      } catch (const Error& e) {
        finding("meshport cannot write again what it read back", e.what());
      }
      if (again != written) finding("the round trip is not stable: the second write differs from the first", "");
    }
  }
  return 0;
}
