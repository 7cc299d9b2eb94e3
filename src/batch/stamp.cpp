// The options stamp of a batch conversion (stamp.h).
#include "batch/stamp.h"

#include "core/io.h"
#include "core/utf8_path.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace meshport::batch_detail {

namespace {

const char* name_of(Generate g) {
  switch (g) {
    case Generate::Default: return "default";
    case Generate::Missing: return "missing";
    case Generate::Off: return "off";
  }
  return "?";
}

std::string format_name(const std::optional<Format>& f) {
  return f ? std::string(format_info(*f).name) : std::string("by-extension");
}

}  // namespace

std::string fingerprint(const BatchOptions& o) {
  const ProcessOptions& p = o.convert.process;
  const WriteOptions& w = o.convert.write;
  std::string s = fmt::format("meshport {}\nfrom {}\nto {}\nscene {}\n", MESHPORT_VERSION, format_name(o.from),
                              format_name(o.to), o.convert.read.scene ? int64_t(*o.convert.read.scene) : -1);
  const ClipOptions& c = o.convert.clips;
  s += fmt::format("anim {}\nallow-empty {}\n", fmt::join(c.keep, ","), o.convert.allow_empty);
  for (const auto& [from, to] : c.renames) s += fmt::format("rename-anim {}={}\n", from, to);
  for (const auto& [name, fps] : c.fps) s += fmt::format("fps {}={}\n", name, fps);
  for (const auto& [name, loop] : c.loop) s += fmt::format("loop {}={}\n", name, loop);
  for (const ClipCut& k : c.cuts)
    s += fmt::format("clip {}={}:{}:{}@{},{}\n", k.name, k.source, k.start, k.end ? int64_t(*k.end) : -1,
                     k.fps ? *k.fps : 0.0f, k.loop);
  s += fmt::format("expand-instances {}\nflip-winding {}\nflip-v {}\n", p.expand_instances, p.flip_winding, p.flip_v);
  s += fmt::format("scale {}\nrotate {}\ntranslate {}\n", p.transform.scale, fmt::join(p.transform.rotate_degrees, ","),
                   fmt::join(p.transform.translate, ","));
  s += fmt::format("weld {}\nsimplify {} {}\n", p.weld, p.simplify.ratio, p.simplify.max_triangles);
  s += fmt::format("normals {} recompute {} angle {}\n", name_of(p.normals), p.normal.recompute,
                   p.normal.angle ? *p.normal.angle : -1.0f);
  s += fmt::format("tangents {} recompute {}\noptimize {}\nmodes-animation {}\n", name_of(p.tangents),
                   p.tangent.recompute, p.optimize, p.modes_animation);
  s += fmt::format("textures {}\nexternal-textures {}\ncompress {}\n", fmt::join(w.texture_dirs, "|"),
                   w.external_textures, w.compress);
  s += w.team_colour ? fmt::format("team-colour {}\n", fmt::join(*w.team_colour, ",")) : "team-colour none\n";
  s += fmt::format("adjacency {}\nbounds {}\npie-version {}\ncopy-textures {}\n", w.adjacency, w.bounds, w.pie_version,
                   o.copy_textures);
  s += fmt::format("lods {}\nmsft-lod {}\n", fmt::join(o.convert.lods.ratios, ","), o.convert.lods.msft_lod);
  const ResampleOptions& rr = o.convert.read.resample;
  s += fmt::format("resample read {} {} write {} {}\n", rr.fps, rr.off, w.resample.fps, w.resample.off);
  s += fmt::format("curve tolerance {} {}\n", rr.tolerance, rr.degrees);
  return s;
}

Stamp update_stamp(const BatchOptions& options) {
  return update_stamp(options.output_dir, ".meshport-batch", fingerprint(options));
}

Stamp update_stamp(const std::string& dir, const std::string& name, const std::string& want) {
  std::error_code ec;
  fs::create_directories(utf8_path(dir), ec);
  if (ec) fail(dir, "cannot create the output folder: " + ec.message());
  const std::string path = path_utf8(utf8_path(dir) / utf8_path(name));
  std::ifstream f(utf8_path(path), std::ios::binary);
  std::stringstream have;
  if (f) have << f.rdbuf();
  f.close();
  Stamp stamp;
  stamp.changed = have.str() != want;
  if (stamp.changed) io::write_file_atomic(path, std::span(reinterpret_cast<const uint8_t*>(want.data()), want.size()));
  stamp.time = fs::last_write_time(utf8_path(path), ec);
  if (ec) fail(path, "cannot read the stamp's time: " + ec.message());
  return stamp;
}

}  // namespace meshport::batch_detail
