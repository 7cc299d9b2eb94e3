// fit_to_format: a Scene made to fit what its target format holds (formats.h FormatCapabilities).
// Every step reads one capability; each conversion or loss is a warning naming it.
#include "api/fit.h"

#include "ops/materials/material_loss.h"
#include "ops/materials/texture_transform.h"
#include "ops/mesh/instances.h"
#include "ops/mesh/vertex_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace meshport {

namespace {

std::string_view name_of(Format format) { return format_info(format).name; }

// Formats without uneven keys get animations with key times resampled
// (30 fps unless the animation has a framerate).
bool has_key_times(const Scene& s) {
  for (const auto& a : s.animations)
    if (!a.times.empty()) return true;
  return false;
}

// `fps` > 0 (--resample FPS): every animation with frames not already at fps is sampled at fps.
bool needs_resample(const Scene& s, float fps) {
  if (!(fps > 0)) return false;
  return std::any_of(s.animations.begin(), s.animations.end(), [&](const Animation& a) {
    return a.frame_count() > 0 && (!a.times.empty() || a.framerate != fps);
  });
}

std::string error_text(const ResampleError& e) {
  return fmt::format("largest error {:.4g} in translation, {:.4g} degrees in rotation, {:.4g} in scale", e.translation,
                     e.degrees, e.scale);
}

// --resample FPS: the animation sampled at fps (a note).
void resample_at(Animation& a, float fps, Diagnostics& d) {
  Animation timed = a;
  if (timed.times.empty()) {  // evenly spaced frames at another rate: their times
    const double rate = a.framerate > 0 ? double(a.framerate) : 30.0;
    for (size_t f = 0; f < a.frame_count(); ++f) timed.times.push_back(float(double(f) / rate));
  }
  a = resample_animation(timed, fps);
  d.add(note("", fmt::format("animation '{}' resampled at {} fps (--resample): {}", a.name, fps,
                             error_text(resample_error(timed, a)))));
}

// Key times made evenly spaced frames at the animation's rate (a warning).
void make_even(Animation& a, Format format, Diagnostics& d) {
  float rate = a.framerate > 0 ? a.framerate : 30.0f;
  if (a.interpolation == Interpolation::Step && a.channels > 0 && a.times.front() > 0 &&
      a.poses.size() >= a.channels) {
    // STEP keys read from glTF keep their times; a player shows the first key from time 0, so
    // the frames do too (frame f at f / rate holds the last key at or before it).
    a.times.insert(a.times.begin(), 0.0f);
    const std::vector<Transform> first(a.poses.begin(), a.poses.begin() + ptrdiff_t(a.channels));
    a.poses.insert(a.poses.begin(), first.begin(), first.end());
  }
  const Animation source = a;
  a = resample_animation(a, rate);
  d.add(warning("", fmt::format("animation '{}' has unevenly spaced keys; {} frames are evenly spaced: "
                                "resampled at {} fps ({})",
                                a.name, name_of(format), rate, error_text(resample_error(source, a)))));
}

void make_frames(Scene& s, Format format, float fps, Diagnostics& d) {
  for (auto& a : s.animations) {
    if (fps > 0 && a.frame_count() > 0 && (!a.times.empty() || a.framerate != fps))
      resample_at(a, fps, d);
    else if (!a.times.empty())
      make_even(a, format, d);
  }
}

// --resample off: uneven keys the format would resample are an error.
void refuse_uneven_keys(const Scene& s, Format format) {
  for (const Animation& a : s.animations)
    if (!a.times.empty())
      fail("", fmt::format("animation '{}' has unevenly spaced keys, and {} holds evenly spaced frames only "
                           "(--resample off); --resample FPS samples them, glTF and QMSH keep them",
                           a.name, name_of(format)));
}

void warn_morph_tracks(const Scene& s, Format format, Diagnostics& d) {
  size_t tracks = 0;
  for (const auto& a : s.animations) tracks += a.morph_weights.size();
  if (tracks)
    d.add(warning("", fmt::format("{} morph weight tracks of animations are not written: {} has no morph target "
                                  "animation",
                                  tracks, name_of(format))));
}

void warn_materials(const Scene& s, Format format, Diagnostics& d) {
  std::string name(name_of(format));  // "OBJ", as the messages name formats
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  ops::warn_material_data_not_kept(s, name, ops::MaterialKeeps{.emissive_texture = format_info(format).holds.emissive_texture},
                                   d);
}

void drop_animations(Scene& s, Format format, Diagnostics& d) {
  d.add(warning("", fmt::format("{} animations are not written: {} has no skeletal animation", s.animations.size(),
                                name_of(format))));
  s.animations.clear();
}

void warn_step(const Scene& s, Format format, Diagnostics& d) {
  for (const Animation& a : s.animations)
    if (a.interpolation == Interpolation::Step && a.frame_count() > 1)
      d.add(warning("", fmt::format("animation '{}': {} has no step interpolation: its {} frames hold the STEP "
                                    "poses exactly, but players blend between them instead of holding each until "
                                    "the next",
                                    a.name, name_of(format), a.frame_count())));
}

// Meshes the format cannot hold as they are: instances, lines and points, levels of detail.
bool has_mesh_to_fit(const Scene& s, const FormatCapabilities& h) {
  return std::any_of(s.meshes.begin(), s.meshes.end(), [&](const Mesh& m) {
    return (!m.instances.empty() && !h.gpu_instances) || (m.topology != Topology::Triangles && !h.lines_and_points) ||
           (m.lod != 0 && !h.lods);
  });
}

void fit_meshes(Scene& s, Format format, Diagnostics& d) {
  const FormatCapabilities& h = format_info(format).holds;
  if (!h.gpu_instances)
    if (const size_t instanced = ops::expand_instances(s))
      d.add(warning("", fmt::format("the GPU instances of {} meshes written as copies merged into each mesh: {} has "
                                    "no instancing",
                                    instanced, name_of(format))));
  if (!h.lines_and_points) ops::drop_non_triangle_meshes(s, name_of(format), d);
  if (!h.lods) ops::drop_lod_meshes(s, name_of(format), d);
}

ops::VertexKeeps vertex_keeps(const FormatCapabilities& h) {
  return {.colours = h.vertex_colours,
          .colour_alpha = h.vertex_colour_alpha,
          .uv_sets = h.uv_sets,
          .joints_per_vertex = h.joints_per_vertex,
          .morph_targets = h.morph_targets,
          .custom_arrays = h.custom_vertex_arrays};
}

// The Scene, copied once when the first step changes it.
struct Fitting {
  const Scene& input;
  std::optional<Scene> copy;
  Scene& edit() {
    if (!copy) copy = input;
    return *copy;
  }
  const Scene& now() const { return copy ? *copy : input; }
};

}  // namespace

std::optional<Scene> fitted(const Scene& scene, Format format, const WriteOptions& options, Diagnostics& d) {
  const FormatCapabilities& h = format_info(format).holds;
  if (options.compress && !h.compression)
    fail("", fmt::format("compression (--compress) is for glTF output (.gltf, .glb) only, not {}", name_of(format)));
  if (!h.morph_animation) warn_morph_tracks(scene, format, d);
  if (!h.gltf_material_data) warn_materials(scene, format, d);
  Fitting f{scene, std::nullopt};
  if (!h.skeletal_animation && !scene.animations.empty()) drop_animations(f.edit(), format, d);
  const bool resample_all = needs_resample(f.now(), options.resample.fps);
  if (resample_all || (!h.uneven_keys && has_key_times(f.now()))) {
    if (!resample_all && options.resample.off) refuse_uneven_keys(f.now(), format);
    make_frames(f.edit(), format, options.resample.fps, d);
  }
  if (!h.step_interpolation) warn_step(f.now(), format, d);
  if (!h.texture_transforms && ops::has_texture_transforms(f.now())) ops::bake_texture_transforms(f.edit(), d);
  if (has_mesh_to_fit(f.now(), h)) fit_meshes(f.edit(), format, d);
  // Vertex data; the index width is the writers' own (QMSH and PIE refuse what theirs cannot count).
  if (!ops::vertex_data_fits(f.now(), vertex_keeps(h))) ops::fit_vertex_data(f.edit(), vertex_keeps(h), name_of(format), d);
  return std::move(f.copy);
}

Scene fit_to_format(const Scene& scene, Format format, const WriteOptions& options, Diagnostics& diags) {
  std::optional<Scene> s = fitted(scene, format, options, diags);
  return s ? std::move(*s) : scene;
}

std::optional<ops::ImageFileRules> image_rules(const FormatCapabilities& h) {
  if (!h.texture_files) return std::nullopt;
  ops::ImageFileRules r;
  r.normal = h.normal_texture;
  r.specular = h.specular_texture;
  r.team_colour = h.team_colour_texture;
  r.emissive = h.emissive_texture;
  r.name_references = h.textures_by_material_name;
  r.every_material = h.every_material;
  r.pie_pages = h.pie_pages;
  return r;
}

}  // namespace meshport
