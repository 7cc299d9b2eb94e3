// The options `convert` and `batch` share (conversion_options.h).
#include "conversion_options.h"

#include "memory_option.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace meshport::cli {

namespace {

// "X,Y,Z" as three finite floats.
std::array<float, 3> parse_triple(const std::string& text, const char* option) {
  std::array<float, 3> v{};
  const char* p = text.data();
  const char* end = p + text.size();
  for (int i = 0; i < 3; ++i) {
    auto r = std::from_chars(p, end, v[i]);
    bool last = i == 2;
    if (r.ec != std::errc() || !std::isfinite(v[i]) || (last ? r.ptr != end : (r.ptr == end || *r.ptr != ',')))
      throw CLI::ValidationError(option, "expects three numbers X,Y,Z, got '" + text + "'");
    p = r.ptr + 1;
  }
  return v;
}

void add_clip_options(CLI::App* cmd, ConversionArgs& a) {
  const char* g = "Animation clips (after attaching; docs/animations.md)";
  cmd->add_option("--anim", a.anims, "Keep only these clips, in this order (repeatable)")
      ->delimiter(',')
      ->type_name("NAME,...")
      ->allow_extra_args(false)
      ->group(g);
  cmd->add_option("--rename-anim", a.rename_anims, "Write clip OLD as NEW (repeatable; other options name OLD)")
      ->type_name("OLD=NEW")
      ->allow_extra_args(false)
      ->group(g);
  cmd->add_option("--clip", a.clips,
                  "Cut frames START..END (from 0, both included; END empty: the last) of clip SRC as a new clip NAME "
                  "(repeatable)")
      ->type_name("NAME=SRC:START:END[@FPS][,loop]")
      ->allow_extra_args(false)
      ->group(g);
  cmd->add_option("--fps", a.fps, "Play clip NAME at FPS frames per second (repeatable)")
      ->type_name("NAME=FPS")
      ->allow_extra_args(false)
      ->group(g);
  cmd->add_option("--loop", a.loop, "Mark clip NAME as looping (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false)
      ->group(g);
  cmd->add_option("--no-loop", a.no_loop, "Mark clip NAME as not looping (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false)
      ->group(g);
  cmd->add_flag("--allow-empty", a.allow_empty, "Write an output with no mesh and no animation instead of failing")
      ->group(g);
}

ClipOptions clip_options(const ConversionArgs& a) {
  ClipOptions c;
  const char* option = "--clip";
  try {
    for (const std::string& s : a.clips) c.cuts.push_back(parse_clip_cut(s));
    option = "--rename-anim";
    for (const std::string& s : a.rename_anims) c.renames.push_back(parse_clip_rename(s));
    option = "--fps";
    for (const std::string& s : a.fps) c.fps.push_back(parse_clip_fps(s));
  } catch (const Error& e) {
    throw CLI::ValidationError(option, e.diagnostic().message);
  }
  c.keep = a.anims;
  for (const std::string& s : a.loop) c.loop.emplace_back(s, true);
  for (const std::string& s : a.no_loop) c.loop.emplace_back(s, false);
  return c;
}

}  // namespace

std::optional<Format> parse_format(const std::string& name, const char* option) {
  if (name.empty()) return std::nullopt;
  auto f = format_from_name(name);
  if (!f) throw CLI::ValidationError(option, "unknown format '" + name + "' (see `meshport formats`)");
  return f;
}

void add_conversion_options(CLI::App* cmd, ConversionArgs& a, const std::string& from_help, const std::string& to_help) {
  cmd->add_option("--from", a.from, from_help);
  cmd->add_option("--scene", a.scene,
                      "glTF: read scene N of the (first) input (default: the file's default scene; info lists them)")
      ->type_name("N");
  cmd->add_option("--to", a.to, to_help);
  cmd->add_flag("--force-format", a.force_format,
                "Write --to's format even where the output's extension names another (else an error)");
  add_max_memory_option(cmd, a.max_memory);
  cmd->add_flag("--no-adjacency", a.no_adjacency, "IQM: do not write triangle adjacency");
  cmd->add_flag("--no-bounds", a.no_bounds, "IQM: do not write per-frame bounds");
  cmd->add_option("--textures", a.textures,
                      "Search DIR for textures after the input's folder (repeatable, in order; "
                      "docs/textures.md, Finding textures)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--texture", a.texture_files,
                  "Give material MATERIAL (without MATERIAL=: every material) the base colour texture FILE, over "
                  "what the texture finder would find (repeatable; docs/textures.md, Assigning textures)")
      ->type_name("[MATERIAL=]FILE")
      ->allow_extra_args(false);
  cmd->add_flag("--external-textures", a.external_textures,
                    "glTF: write a .glb's images as files beside it instead of embedding them; in a batch, each "
                    "texture page once into the output tree for every .glb and .gltf (docs/batch.md)");
  cmd->add_flag("--compress", a.compress,
                    "glTF: compress vertex, index and animation data losslessly (EXT_meshopt_compression)");
  cmd->add_option("--team-colour", a.team_colour,
                      "glTF: bake this team colour into texture pages with a team colour mask (PIE TCMASK)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Range(0, 255))
      ->type_name("R,G,B");
  cmd->add_option("--pie-version", a.pie_version, "PIE: write version 2, 3 or 4 (default: the source's, else 4)")
      ->check(CLI::IsMember({2, 3, 4}));
  const char* g = "Processing (in this order)";
  cmd->add_flag("--expand-instances", a.process.expand_instances,
                    "Write glTF GPU instances (EXT_mesh_gpu_instancing) as copies, also to glTF (Blender 3.4 shows "
                    "only one otherwise)")
      ->group(g);
  cmd->add_flag("--flip-winding", a.process.flip_winding, "Reverse every triangle (assets authored inside out)")
      ->group(g);
  cmd->add_flag("--flip-v", a.process.flip_v, "Flip texture coordinates vertically (v' = 1 - v)")->group(g);
  cmd->add_option("--scale", a.process.transform.scale, "Scale uniformly by S (meshes, skeleton, animations)")
      ->group(g);
  cmd->add_option("--rotate", a.rotate, "Rotate by X,Y,Z degrees (about X, then Y, then Z; --rotate=-90,0,0)")
      ->type_name("X,Y,Z")
      ->group(g);
  cmd->add_option("--translate", a.translate, "Translate by X,Y,Z (Scene axes: Y up, metres)")
      ->type_name("X,Y,Z")
      ->group(g);
  cmd->add_flag("--weld", a.process.weld, "Weld identical vertices and drop unused ones")->group(g);
  cmd->add_option("--simplify", a.process.simplify.ratio,
                      "Simplify every mesh to RATIO of its triangles (meshoptimizer; keeps borders and UV seams)")
      ->type_name("RATIO")
      ->check(CLI::Range(0.0f, 1.0f))
      ->group(g);
  cmd->add_option("--simplify-to", a.process.simplify.max_triangles,
                      "Simplify every mesh with more than N triangles to at most N (PIE levels: 8192)")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->group(g);
  cmd->add_option("--lods", a.lods.ratios,
                  "Also write levels of detail at these ratios of the full mesh's triangles, as NAME_lod1.EXT, ... "
                  "beside the output (the output is LOD 0)")
      ->delimiter(',')
      ->type_name("R1,R2,...")
      ->check(CLI::Range(0.0f, 1.0f))
      ->group(g);
  cmd->add_option("--resample", a.resample,
                  "Sample every animation at FPS frames per second (glTF curves exactly at the frames), or 'off': "
                  "never resample (uneven keys are an error for formats of evenly spaced frames); prints the "
                  "largest error introduced")
      ->type_name("FPS|off")
      ->group(g);
  cmd->add_option("--curve-tolerance", a.curve_tolerance,
                  "glTF CUBICSPLINE curves are sampled at a rate that keeps them within T of the model's size in "
                  "translation, T in scale and DEGREES in rotation (default 1e-4,0.01); prints the rate and the "
                  "largest error")
      ->type_name("T[,DEGREES]")
      ->group(g);
  cmd->add_flag("--msft-lod", a.lods.msft_lod,
                "glTF: write the --lods levels into the output itself, with the MSFT_lod extension")
      ->group(g);
  auto* normals_flag = cmd->add_flag("--normals", a.add_normals,
                    "Generate normals for meshes without them even when writing the input's own format (the "
                    "default for other formats)")
      ->group(g);
  cmd->add_flag("--no-normals", a.no_normals, "Do not generate normals for meshes without them")
      ->group(g)
      ->excludes(normals_flag);
  cmd->add_flag("--recompute-normals", a.process.normal.recompute, "Replace existing normals too")->group(g);
  cmd->add_option("--smooth-angle", a.smooth_angle,
                      "One auto-smooth angle in degrees for every face, replacing the file's smoothing rules "
                      "(0 faceted, 180 smooth)")
      ->check(CLI::Range(0.0f, 180.0f))
      ->group(g);
  auto* tangents_flag = cmd->add_flag("--tangents", a.add_tangents,
                    "Generate tangents for meshes with normals and texture coordinates but none, even when writing "
                    "the input's own format (the default for other formats)")
      ->group(g);
  cmd->add_flag("--no-tangents", a.no_tangents, "Do not generate tangents for meshes without them")
      ->group(g)
      ->excludes(tangents_flag);
  cmd->add_flag("--recompute-tangents", a.process.tangent.recompute, "Replace existing tangents too")->group(g);
  cmd->add_flag("--optimize", a.process.optimize, "Optimise vertex cache and fetch order (meshoptimizer)")->group(g);
  cmd->add_flag("--modes-animation", a.process.modes_animation,
                    "Add an animation 'modes' playing each morph target (ModeDef vibration mode) in turn")
      ->group(g);
  add_clip_options(cmd, a);
}

ConvertOptions conversion_options(const ConversionArgs& a) {
  ConvertOptions o;
  o.read.format = parse_format(a.from, "--from");
  o.read.scene = a.scene;
  o.read.max_memory = parse_max_memory(a.max_memory);
  o.write.format = parse_format(a.to, "--to");
  o.write.force_format = a.force_format;
  o.process = a.process;
  o.clips = clip_options(a);
  o.allow_empty = a.allow_empty;
  o.lods = a.lods;
  if (a.resample == "off") {
    o.read.resample.off = o.write.resample.off = true;
  } else if (!a.resample.empty()) {
    float fps = 0;
    const char* end = a.resample.data() + a.resample.size();
    auto r = std::from_chars(a.resample.data(), end, fps);
    if (r.ec != std::errc() || r.ptr != end || !(fps > 0) || fps > 1000)
      throw CLI::ValidationError("--resample", "expects frames per second (above 0, at most 1000) or 'off', got '" +
                                                   a.resample + "'");
    o.read.resample.fps = o.write.resample.fps = fps;
  }
  if (!a.curve_tolerance.empty()) {
    const std::string& t = a.curve_tolerance;
    const size_t comma = t.find(',');
    auto number = [&](std::string_view v, double& out) {
      auto r = std::from_chars(v.data(), v.data() + v.size(), out);
      return r.ec == std::errc() && r.ptr == v.data() + v.size() && out > 0 && std::isfinite(out);
    };
    double tol = 0, deg = o.read.resample.degrees;
    const std::string_view first = std::string_view(t).substr(0, comma);
    if (!number(first, tol) || (comma != std::string::npos && !number(std::string_view(t).substr(comma + 1), deg)))
      throw CLI::ValidationError("--curve-tolerance",
                                 "expects T[,DEGREES], numbers above 0 (a fraction of the model's size, and degrees), "
                                 "got '" + t + "'");
    o.read.resample.tolerance = o.write.resample.tolerance = tol;
    o.read.resample.degrees = o.write.resample.degrees = deg;
  }
  if (o.lods.msft_lod && o.lods.ratios.empty())
    throw CLI::ValidationError("--msft-lod", "needs the levels: give --lods R1,R2,...");
  for (float r : o.lods.ratios)
    if (!(r > 0.0f)) throw CLI::ValidationError("--lods", fmt::format("{}: a ratio must be in (0, 1]", r));
  if (a.no_normals) o.process.normals = Generate::Off;
  else if (a.add_normals) o.process.normals = Generate::Missing;
  if (a.no_tangents) o.process.tangents = Generate::Off;
  else if (a.add_tangents) o.process.tangents = Generate::Missing;
  if (a.smooth_angle >= 0) o.process.normal.angle = a.smooth_angle;
  if (!a.rotate.empty()) o.process.transform.rotate_degrees = parse_triple(a.rotate, "--rotate");
  if (!a.translate.empty()) o.process.transform.translate = parse_triple(a.translate, "--translate");
  o.write.adjacency = !a.no_adjacency;
  o.write.bounds = !a.no_bounds;
  o.write.pie_version = a.pie_version;
  o.write.texture_dirs = a.textures;
  for (const std::string& t : a.texture_files) {
    const size_t eq = t.find('=');
    TextureAssignment assignment;
    if (eq != std::string::npos) assignment.material = t.substr(0, eq);
    assignment.file = eq == std::string::npos ? t : t.substr(eq + 1);
    if (assignment.file.empty())
      throw CLI::ValidationError("--texture", fmt::format("expects [MATERIAL=]FILE, got '{}'", t));
    o.write.texture_assignments.push_back(std::move(assignment));
  }
  o.write.external_textures = a.external_textures;
  o.write.compress = a.compress;
  if (!a.team_colour.empty()) {
    if (a.team_colour.size() != 3)
      throw CLI::ValidationError("--team-colour", fmt::format("expects three numbers R,G,B (0 to 255), got {}",
                                                              a.team_colour.size()));
    o.write.team_colour =
        std::array<uint8_t, 3>{uint8_t(a.team_colour[0]), uint8_t(a.team_colour[1]), uint8_t(a.team_colour[2])};
  }
  return o;
}

}  // namespace meshport::cli
