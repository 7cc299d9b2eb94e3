// GPU instances (Mesh::instances, read from glTF's EXT_mesh_gpu_instancing) for formats without
// instancing, and meshes whose topology a format cannot hold (Mesh::topology).
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <string_view>

namespace meshport::ops {

// Replaces every instanced mesh by one mesh holding a copy of its vertices and triangles per
// instance, each transformed by its instance (positions; normals by the inverse transpose and
// tangents by the matrix, renormalised; morph target position, normal and tangent displacements
// alike; a mirroring instance's
// copy gets its winding flipped and its tangent handedness negated), the copies merged in
// instance order so that the mesh keeps its index (attachments, morph weight tracks and format
// data naming it stay right) and its name, material and morph targets. Polygons, smoothing rules
// (vs keys renumbered per copy) and face channels are repeated per copy. Returns the number of
// meshes expanded. Throws meshport::Error, changing nothing, when a mesh's copies would exceed
// 2^32 - 1 vertices or an instance transform is not finite.
size_t expand_instances(Scene& scene);

// Removes the Lines and Points meshes (Mesh::topology) a format cannot hold, with a warning
// naming each ("<format> has no lines or points"); attachments and morph weight tracks that name
// a later mesh are renumbered, those naming a removed mesh lose it (-1 / the track). Returns the
// number removed.
size_t drop_non_triangle_meshes(Scene& scene, std::string_view format, Diagnostics& diags);

// Removes the level-of-detail meshes (Mesh::lod > 0) a format without levels of detail cannot
// hold, with one warning; renumbered as above. Returns the number removed.
size_t drop_lod_meshes(Scene& scene, std::string_view format, Diagnostics& diags);

}  // namespace meshport::ops
