// The processing pipeline `meshport convert` runs between reading and writing.
#include <meshport/modal.h>
#include <meshport/process.h>

#include "ops/mesh/instances.h"

namespace meshport {

void process(Scene& scene, const ProcessOptions& o, Diagnostics* diags) {
  if (o.expand_instances) ops::expand_instances(scene);
  if (o.flip_winding) flip_winding(scene);
  if (o.flip_v) flip_v(scene);
  transform_scene(scene, o.transform);  // nothing to do (every bit kept) for the identity
  if (o.weld) weld_vertices(scene);
  if (o.simplify.ratio < 1.0f || o.simplify.max_triangles > 0) simplify_meshes(scene, o.simplify, diags);
  if (o.normals != Generate::Off) generate_normals(scene, o.normal, diags);
  if (o.tangents != Generate::Off) generate_tangents(scene, o.tangent, diags, o.threads);
  if (o.optimize) optimize_meshes(scene);
  if (o.modes_animation) add_modes_animation(scene);
}

}  // namespace meshport
