// The "iqm-engines" profile: what engines loading IQM models really enforce (docs/profiles.md).
// The checks look at the Scene's joints, blend streams and animations, whichever format it came
// from: they are what an IQM conversion of it would carry.
#include "profiles/profile_report.h"

#include "core/text.h"

#include <fmt/format.h>

#include <cmath>

namespace meshport::profiles_detail {

namespace {

constexpr size_t kByteJoints = 256;  // blend indices stored as unsigned bytes
constexpr size_t kIoq3Joints = 128;  // ioquake3's IQM_MAX_JOINTS
constexpr uint32_t kInfluences = 4;  // blend arrays of 4 ubytes

}  // namespace

ProfileInfo iqm_engines_profile() {
  ProfileInfo p;
  p.name = "iqm-engines";
  p.description = "engines loading IQM (reference demo, ioquake3 family, DarkPlaces, FTE, Tesseract): their limits";
  p.rules = {
      {"iqm-engines.joints", Severity::Error, "at most 256 joints",
       "specs/iqm.txt (blendindexes: ubyte, 4, the format for portable models); the reference demo "
       "(lsalzman/iqm demo/gpu-demo.cpp loadiqmmeshes) refuses blend indices other than ubyte x 4, as do most "
       "engine loaders; specs/iqm-notes.md: the reference compiler wraps indices above 255"},
      {"iqm-engines.joints-ioq3", Severity::Warning, "at most 128 joints for ioquake3-based engines",
       "ioquake3 code/renderergl1/tr_model_iqm.c R_LoadIQM: \"has more than %d joints\" with IQM_MAX_JOINTS "
       "128 (code/renderercommon/iqm.h), the model is refused; kept by its forks (ET: Legacy, Q2PRO, ...)"},
      {"iqm-engines.influences", Severity::Warning, "at most 4 joint influences per vertex",
       "specs/iqm.txt (blendindexes / blendweights: ubyte, 4); specs/iqm-notes.md: the reference compiler keeps "
       "the 4 largest weights and renormalises"},
      {"iqm-engines.mesh-joints", Severity::Error, "every blend index names a joint of the model",
       "specs/iqm.txt (blend indices index the joints); the reference demo indexes its bone matrices with them "
       "unchecked (gpu-demo.cpp: bonemats[int(vbones.x)])"},
      {"iqm-engines.unweighted-vertex", Severity::Warning, "every vertex of a skinned mesh has weight",
       "specs/iqm-notes.md: a vertex with no weights lands at the origin (skinning sums weighted joint "
       "matrices)"},
      {"iqm-engines.animation-channels", Severity::Error, "an animation poses every joint of the model",
       "lsalzman/iqm demo/gpu-demo.cpp loadiqmanims: refuses animations whose pose count differs from the joint "
       "count; engines apply pose i to joint i"},
      {"iqm-engines.animation-only-joints", Severity::Warning, "an animation-only file carries its joints",
       "specs/iqm-notes.md: animation files are matched to a skeleton by joint name where the file has joints, "
       "else by index only (the reference compiler checks neither names nor count)"},
      {"iqm-engines.joint-order", Severity::Error, "a joint's parent comes before it",
       "specs/iqm.txt (parent < 0 for a root); the reference demo computes world matrices in one pass, using the "
       "parent's as already computed (gpu-demo.cpp loadiqmmeshes, animateiqm)"},
      {"iqm-engines.triangles-only", Severity::Warning, "meshes are triangles (no line or point meshes)",
       "specs/iqm.txt (iqmtriangle: 3 vertex indices); meshport's IQM writer leaves line and point meshes out"},
  };
  return p;
}

namespace {

void check_joints(const Scene& scene, const Report& report) {
  const size_t n = scene.joints.size();
  if (n > kByteJoints)
    report("iqm-engines.joints", fmt::format("the model has {} joints; blend indices stored as bytes reach only {}",
                                             n, kByteJoints));
  if (n > kIoq3Joints)
    report("iqm-engines.joints-ioq3",
           fmt::format("the model has {} joints; ioquake3-based engines refuse more than {}", n, kIoq3Joints));
  for (size_t j = 0; j < n; ++j) {
    const int32_t parent = scene.joints[j].parent;
    if (parent >= 0 && size_t(parent) >= j)
      report("iqm-engines.joint-order", fmt::format("joint {} {} has parent {}, which does not come before it", j,
                                                    text::quoted(scene.joints[j].name), parent));
  }
}

void check_mesh(const Scene& scene, size_t mi, const Report& report) {
  const Mesh& m = scene.meshes[mi];
  if (m.topology != Topology::Triangles) {
    report("iqm-engines.triangles-only",
           fmt::format("mesh {} is made of {}: IQM meshes are triangles, it is left out", text::quoted(m.name),
                       m.topology == Topology::Lines ? "lines" : "points"));
    return;
  }
  const VertexStream* idx = m.find(Attribute::BlendIndices);
  const VertexStream* wgt = m.find(Attribute::BlendWeights);
  if (!idx || !wgt) return;
  const size_t count = std::min(idx->vertex_count(), wgt->vertex_count());
  size_t over = 0, bad_index = 0, unweighted = 0;
  uint32_t most = 0;
  float first_bad = 0;
  for (size_t v = 0; v < count; ++v) {
    uint32_t influences = 0;
    float total = 0;
    for (uint32_t c = 0; c < wgt->components; ++c) {
      const float w = wgt->get(v, c);
      if (w == 0) continue;
      ++influences;
      total += w;
      const float j = idx->get(v, c, -1);
      if (!(j >= 0 && j < float(scene.joints.size()))) {
        if (!bad_index) first_bad = j;
        ++bad_index;
      }
    }
    if (influences > kInfluences) ++over;
    most = std::max(most, influences);
    if (!(std::fabs(total) > 0)) ++unweighted;
  }
  if (over)
    report("iqm-engines.influences",
           fmt::format("mesh {}: {} vertices have more than {} influences (up to {}); only the {} largest are kept",
                       text::quoted(m.name), over, kInfluences, most, kInfluences));
  if (bad_index)
    report("iqm-engines.mesh-joints",
           fmt::format("mesh {}: {} weighted influences name no joint (the first names {}; the model has {} joints)",
                       text::quoted(m.name), bad_index, first_bad, scene.joints.size()));
  if (unweighted)
    report("iqm-engines.unweighted-vertex",
           fmt::format("mesh {}: {} of {} vertices have no weight: they collapse to the origin when skinned",
                       text::quoted(m.name), unweighted, count));
}

void check_animations(const Scene& scene, const Report& report) {
  if (scene.animations.empty()) return;
  if (scene.joints.empty()) {
    if (scene.meshes.empty())
      report("iqm-engines.animation-only-joints",
             "the animation-only file has no joints: an engine can match its poses to a skeleton only by index");
    return;
  }
  for (const Animation& a : scene.animations)
    if (a.channels != scene.joints.size())
      report("iqm-engines.animation-channels",
             fmt::format("animation {} poses {} joints; the model has {}", text::quoted(a.name), a.channels,
                         scene.joints.size()));
}

}  // namespace

void check_iqm_engines(const Scene& scene, const Report& report) {
  check_joints(scene, report);
  for (size_t i = 0; i < scene.meshes.size(); ++i) check_mesh(scene, i, report);
  check_animations(scene, report);
}

}  // namespace meshport::profiles_detail
