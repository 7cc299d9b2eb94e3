// One mesh of simplify_meshes (process.h), for steps that simplify meshes on threads of their own
// (make_lods, src/ops/mesh/lods.cpp).
#pragma once

#include <meshport/process.h>

#include <vector>

namespace meshport::ops {

// Simplifies scene.meshes[mi] as simplify_meshes does (its note to `diags`, its result appended to
// `results`); true when it changed. The ratio is not checked, nor the mesh (ops::check_mesh):
// the caller does both first.
bool simplify_one(Scene& scene, size_t mi, const SimplifyOptions& options, Diagnostics* diags,
                  std::vector<SimplifyResult>* results);

}  // namespace meshport::ops
