// A mesh's vertex data fitted to what a format keeps (formats.h FormatCapabilities: vertex
// colours and their alpha, texture coordinate sets, joint influences per vertex, static morph
// targets, custom vertex arrays): what it cannot hold dropped or reduced, with warnings.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/scene.h>

#include <cstdint>
#include <string_view>

namespace meshport::ops {

// What a format keeps of a mesh's vertices; a count of UINT32_MAX has no limit.
struct VertexKeeps {
  bool colours = true;
  bool colour_alpha = true;
  uint32_t uv_sets = UINT32_MAX;
  uint32_t joints_per_vertex = UINT32_MAX;
  bool morph_targets = true;
  bool custom_arrays = true;
};

// The texture coordinate set a stream holds: 0 for the Texcoord stream, n for a Custom stream of
// 2 components named "texcoord<n>" (n > 0, scene.h TextureTransform), -1 for any other stream.
int uv_set_of(const VertexStream& s);

// The n of a vertex's `k` influences (joint indices `idx`, weights `wgt`) it keeps, in their order,
// into `oi`/`ow` (n entries; those past the kept ones 0): when more than n weights are not 0
// (`reduced`), the weights of a joint listed twice are merged first (it gets their sum, which skins
// identically), then the n largest are kept (ties: the earlier). Returns the kept weights' sum
// (in their order, as float), for the caller's renormalising. The IQM writer and
// fit_vertex_data share it.
float largest_influences(const float* idx, const float* wgt, uint32_t k, uint32_t n, float* oi, float* ow,
                         bool& reduced);

// Whether fit_vertex_data would change `scene`.
bool vertex_data_fits(const Scene& scene, const VertexKeeps& keeps);

// Fits every mesh to `keeps`, one warning per kind of loss naming the meshes and how much each
// lost (the first 8; "<format> has ..."):
// colours dropped, or their alpha where it is not 1; texture coordinate sets from uv_sets on
// dropped; morph targets dropped (the morph weight tracks naming the mesh keep their times, their
// weights go with the targets); custom arrays dropped (a format's own streams, is_format_stream,
// stay); influences reduced as IQM's writer always did: a vertex with more than n weights that
// are not 0 first merges the weights of a joint listed twice, then keeps its n largest (ties: the
// earlier) in their order, divided by their sum (a pair: the first w0 / (w0 + w1) in double, the
// second 1 minus it in float, as QMSH's writer encodes a pair, so that its output stays the same);
// the blend streams keep n components, a vertex that fits keeping its values.
// joints_per_vertex 0 drops the blend streams.
void fit_vertex_data(Scene& scene, const VertexKeeps& keeps, std::string_view format, Diagnostics& diags);

}  // namespace meshport::ops
