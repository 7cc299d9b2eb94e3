// Headless Blender for the Blender tests: one process runs a script of tests/blender/ over many
// files (Blender's start-up is most of the time). Blender is a test dependency: without it the
// tests that use this fail.
#pragma once

#include <meshport/diff.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace testutil {

// `blender -b` running tests/blender/<script> with `args` (already quoted); its output appended to
// `log`. True when Blender exits 0 and every file of `outputs` exists.
inline bool run_blender(const std::string& script, const std::string& args, const std::vector<std::string>& outputs,
                        std::string& log) {
  const std::string cmd = "blender -b --factory-startup --python-exit-code 1 --python '" +
                          std::string(MESHPORT_TEST_DATA) + "/../blender/" + script + "' --" + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) log.append(buf, n);
  const bool ok = ::pclose(p) == 0;
  for (const std::string& o : outputs)
    if (!std::filesystem::exists(o)) return false;
  return ok;
}

// meshport::diff's differences as text, but for those Blender always makes: it writes normals for
// every mesh (`meshes[x].normals: missing vs present`) and drops materials no mesh uses
// (`materials[x]: present vs missing`; PIE keeps its texture pages in its own data).
inline std::string blender_differences(const meshport::Scene& a, const meshport::Scene& b, float tolerance) {
  meshport::DiffOptions o;
  o.tolerance = tolerance;
  std::string r;
  for (const meshport::Difference& d : meshport::diff(a, b, o)) {
    if (d.path.ends_with(".normals") && d.a == "missing" && d.b == "present") continue;
    if (d.path.starts_with("materials[") && d.path.ends_with("]") && d.a == "present" && d.b == "missing") continue;
    r += meshport::to_string(d) + "\n";
  }
  return r;
}

}  // namespace testutil
