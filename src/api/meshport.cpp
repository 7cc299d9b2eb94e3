// Format registry and the read / write / convert entry points.
#include <meshport/meshport.h>
#include <meshport/textures.h>

#include "api/convert_lods.h"
#include "api/fit.h"
#include "core/io.h"
#include "core/text.h"
#include "core/utf8_path.h"
#include "formats/gltf/gltf.h"
#include "formats/iqe/iqe.h"
#include "formats/iqm/iqm.h"
#include "formats/modedef/modedef.h"
#include "formats/obj/obj.h"
#include "formats/pie/pie.h"
#include "formats/qmsh/qmsh.h"
#include "formats/qmsh/qmsh_tmp.h"
#include "ops/materials/image_files.h"
#include "ops/materials/textures.h"
#include "ops/mesh/bounds.h"

#include <fmt/format.h>

#include <filesystem>
#include <new>
#include <thread>

#include <algorithm>
#include <string_view>

namespace meshport {

static Format resolve(const std::optional<Format>& given, const std::string& path) {
  if (given) return *given;
  if (auto f = format_from_path(path)) return *f;
  std::error_code ec;
  if (std::filesystem::is_directory(utf8_path(path), ec)) fail(path, "is a directory, not a model file (batch converts folders)");
  fail(path, "unknown format: cannot tell it from the file name; give it with --from/--to");
}

// The output's format: --to, unless the file's extension names another format (writing IQM bytes
// into a .glb would only mislead), which is an error unless forced.
static Format resolve_output(const WriteOptions& options, const std::string& path) {
  const Format f = resolve(options.format, path);
  const std::optional<Format> named = format_from_path(path);
  if (named && *named != f && !options.force_format)
    fail(path, fmt::format("the file name says {} but the format asked for is {}: name the file {} or give "
                           "--force-format",
                           format_info(*named).name, format_info(f).name, format_info(f).extensions.front()));
  return f;
}

namespace {

// Output files at least this large that a writer can encode in place are (io::MappedFile).
constexpr size_t kMapOutputBytes = size_t(1) << 20;

SideFileLoader no_side_files(const std::string& name) {
  return [name](const std::string& rel) -> std::vector<uint8_t> {
    fail(name, "cannot load '" + rel + "': side files are only found when reading from a file");
  };
}

SideFileLoader side_files_beside(const std::string& path) {
  std::filesystem::path dir = utf8_path(path).parent_path();
  return [dir](const std::string& rel) { return io::read_file(path_utf8(dir / utf8_path(rel))); };
}

// ReadOptions::threads, 0 resolved to the cores there are.
unsigned thread_count(unsigned threads) {
  if (threads) return threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores ? cores : 1;
}

// `mapped`: data is a read-only mapping of a file (io::FileBytes), whose pages a reader may drop
// once read (they come back from the file if touched again).
Scene read_format(std::span<const uint8_t> data, Format format, const std::string& name, const SideFileLoader& load,
                  Diagnostics& d, const ReadOptions& options, bool mapped) {
  if (options.scene && *options.scene != 0 && format != Format::Gltf && format != Format::Glb)
    fail(name, fmt::format("--scene {}: {} files have one scene (0)", *options.scene, format_info(format).name));
  switch (format) {
    case Format::Iqe: {
      iqe::ReadThreads threads;
      threads.threads = thread_count(options.threads);
      threads.drop_read_pages = mapped;
      return iqe::read(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, d, threads);
    }
    case Format::Iqm:
      return iqm::read(data, name, d, thread_count(options.threads));
    case Format::Gltf:
    case Format::Glb:
      return gltf::read(data, name, load, d, options);
    case Format::Obj:
      return obj::read(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, load, d);
    case Format::Pie:
      return pie::read(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, d);
    case Format::QmshTmp:
      return qmsh_tmp::read(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, d);
    case Format::Qmsh:
      return qmsh::read(data, name, d);
    case Format::ModeDefModel:
      return modedef::read_model(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, d);
    case Format::ModeDefProp:
      return modedef::read_prop(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, load, d);
    case Format::ModeDefState:
      return modedef::read_state(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, load, d);
    case Format::ModeDefPath:
      return modedef::read_path(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), name, d);
  }
  fail(name, "format cannot be read");
}

// Every reader bounds what it allocates by what its input holds; these limits bound what the
// rest of the pipeline multiplies per item (a glTF writes several JSON objects per mesh, material,
// joint and animation), so that any input under 10 MB converts within 256 MB (issue 8).
void check_limits(const Scene& s, const std::string& name) {
  const auto check = [&](size_t count, size_t limit, const char* what) {
    if (count > limit)
      fail(name, fmt::format("{} {}: more than meshport reads from one file ({})", count, what, limit));
  };
  check(s.meshes.size(), kMaxMeshes, "meshes");
  check(s.materials.size(), kMaxMaterials, "materials");
  check(s.joints.size(), kMaxJoints, "joints");
  check(s.animations.size(), kMaxAnimations, "animations");
}

Scene read_with(std::span<const uint8_t> data, Format format, const std::string& name, const SideFileLoader& load,
                Diagnostics& d, const ReadOptions& options = {}, bool mapped = false) {
  try {
    Scene s = read_format(data, format, name, load, d, options, mapped);
    check_limits(s, name);
    return s;
  } catch (const std::bad_alloc&) {  // past what the reader's bounds foresaw (the glTF reader names the part)
    fail(name, "out of memory while reading it");
  }
}

std::vector<OutputFile> write_format(const Scene& scene, Format format, const WriteOptions& options,
                                     const std::string& path, Diagnostics& d);

// The files a writer produces for `path` ("" when writing to memory: the main file only), with
// the Scene's images the written materials reference as side files.
std::vector<OutputFile> write_with(const Scene& input, Format format, const WriteOptions& options,
                                   const std::string& path, Diagnostics& d) {
  // PIE needs its pages as PNG files named [A-Za-z0-9._-]: texture files the materials name
  // otherwise (a .tga, a file without extension, a material name) are loaded to be written so.
  const FormatCapabilities& holds = format_info(format).holds;
  std::optional<Scene> loaded;
  if (holds.pie_pages && !path.empty()) {
    Scene s = input;
    if (ops::load_texture_files(s, *image_rules(holds), texture_search(options), ops::is_pie_texture_file, d))
      loaded = std::move(s);
  }
  const Scene& scene_in = loaded ? *loaded : input;
  const std::optional<ops::ImageFileRules> rules = scene_in.images.empty() ? std::nullopt : image_rules(holds);
  const size_t count = rules ? ops::referenced_images(scene_in, *rules) : 0;
  if (count == 0) return write_format(scene_in, format, options, path, d);
  if (path.empty()) {
    d.add(warning("", fmt::format("{} images of the Scene were not written: writing without a folder (to memory or "
                                  "standard output), there is nowhere to put them",
                                  count)));
    return write_format(scene_in, format, options, path, d);
  }
  Scene scene = scene_in;
  std::vector<OutputFile> images =
      ops::image_files(scene, *rules, {path_utf8(utf8_path(path).filename())}, d);
  std::vector<OutputFile> out = write_format(scene, format, options, path, d);
  for (OutputFile& f : images) {
    const bool clash = std::any_of(out.begin(), out.end(), [&](const OutputFile& o) { return o.name == f.name; });
    if (clash) fail(path, fmt::format("the image '{}' has the name of another file this write makes", f.name));
    out.push_back(std::move(f));
  }
  return out;
}

// The files a writer produces for `path` ("" when writing to memory: the main file only).
std::vector<OutputFile> write_format(const Scene& input, Format format, const WriteOptions& options,
                                   const std::string& path, Diagnostics& d) {
  const std::optional<Scene> fit = fitted(input, format, options, d);
  const Scene& scene = fit ? *fit : input;
  std::string dir = path.empty() ? std::string() : path_utf8(utf8_path(path).parent_path());
  std::string stem = path.empty() ? std::string() : path_utf8(utf8_path(path).stem());
  switch (format) {
    case Format::Iqe: {
      std::string text = iqe::write(scene, d);
      std::vector<OutputFile> out(1);
      out[0].bytes.assign(text.begin(), text.end());
      return out;
    }
    case Format::Iqm: {
      // A file of 1 MiB or more is encoded straight into its temporary file (io::MappedFile).
      std::vector<OutputFile> out(1);
      iqm::write(scene, options, d, [&](size_t size) {
        if (!path.empty() && size >= kMapOutputBytes) out[0].mapped = io::MappedFile::create(path, size);
        if (out[0].mapped) return out[0].mapped->bytes();
        out[0].bytes.assign(size, 0);
        return std::span<uint8_t>(out[0].bytes);
      });
      return out;
    }
    case Format::Gltf:
      return gltf::write(scene, options, false, stem.empty() ? "" : stem + ".bin", path.empty() ? "" : dir.empty() ? "." : dir, d);
    case Format::Glb:
      return gltf::write(scene, options, true, "", path.empty() ? "" : dir.empty() ? "." : dir, d);
    case Format::Obj:
      return obj::write(scene, options, stem.empty() ? "" : stem + ".mtl", path.empty() ? "" : dir.empty() ? "." : dir, d);
    case Format::Pie: {
      std::string text = pie::write(scene, options, d);
      std::vector<OutputFile> out(1);
      out[0].bytes.assign(text.begin(), text.end());
      return out;
    }
    case Format::QmshTmp: {
      std::string text = qmsh_tmp::write(scene, d);
      std::vector<OutputFile> out(1);
      out[0].bytes.assign(text.begin(), text.end());
      return out;
    }
    case Format::Qmsh: {
      std::vector<OutputFile> out(1);
      out[0].bytes = qmsh::write(scene, d);
      return out;
    }
    case Format::ModeDefModel:
      return modedef::write_model(scene, d);
    case Format::ModeDefProp:
      return modedef::write_prop(scene, stem, d);
    case Format::ModeDefState:
      return modedef::write_state(scene, d);
    case Format::ModeDefPath:
      return modedef::write_path(scene, d);
  }
  fail(path, "format cannot be written");
}

}  // namespace

Scene read_memory(std::span<const uint8_t> data, Format format, const std::string& name, Diagnostics* diags) {
  Diagnostics local;
  return read_with(data, format, name, no_side_files(name), diags ? *diags : local);
}

Scene read_memory(std::span<const uint8_t> data, Format format, const std::string& name, const ReadOptions& options,
                  Diagnostics* diags) {
  Diagnostics local;
  return read_with(data, format, name, no_side_files(name), diags ? *diags : local, options);
}

// "-" is standard input (its format must be given; diagnostics name it "<stdin>").
Scene read(const std::string& path, const ReadOptions& options, Diagnostics* diags) {
  if (path == "-") {
    if (!options.format) fail("<stdin>", "reading standard input needs its format (--from)");
    std::vector<uint8_t> data = io::read_stdin();
    Diagnostics local;
    return read_with(data, *options.format, "<stdin>", no_side_files("<stdin>"), diags ? *diags : local, options);
  }
  Format f = resolve(options.format, path);
  if (!format_info(f).can_read) fail(path, std::string(format_info(f).name) + " cannot be read");
  const io::FileBytes data = io::read_file_bytes(path);
  Diagnostics local;
  return read_with(data.bytes(), f, path, side_files_beside(path), diags ? *diags : local, options, data.mapped());
}

std::vector<uint8_t> write_memory(const Scene& scene, Format format, const WriteOptions& options, Diagnostics* diags) {
  Diagnostics local;
  std::vector<OutputFile> files = write_with(scene, format, options, "", diags ? *diags : local);
  return std::move(files.front().bytes);
}

void write(const Scene& scene, const std::string& path, const WriteOptions& options, Diagnostics* diags) {
  write_listing_files(scene, path, options, diags, nullptr);
}

// "-" is standard output, written as write_memory() would (its format must be given; formats
// that need side files, a ModeDef .prop or .state, are an error there).
void write_listing_files(const Scene& scene, const std::string& path, const WriteOptions& options, Diagnostics* diags,
                         std::vector<std::string>* written) {
  if (path == "-") {
    if (!options.format) fail("<stdout>", "writing standard output needs its format (--to)");
    Diagnostics local;
    Diagnostics& d = diags ? *diags : local;
    const size_t first_new = d.items.size();
    std::vector<OutputFile> files;
    try {
      files = write_with(scene, *options.format, options, "", d);
    } catch (const Error& e) {
      Diagnostic diag = e.diagnostic();
      if (diag.file.empty()) diag.file = "<stdout>";
      throw Error(diag);
    }
    for (size_t i = first_new; i < d.items.size(); ++i)
      if (d.items[i].file.empty()) d.items[i].file = "<stdout>";
    if (files.size() != 1)
      fail("<stdout>", fmt::format("{} writes {} files; standard output holds one", format_info(*options.format).name,
                                   files.size()));
    io::write_stdout(files.front().bytes);
    return;
  }
  Format f = resolve_output(options, path);
  if (!format_info(f).can_write) fail(path, std::string(format_info(f).name) + " cannot be written");
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  size_t first_new = d.items.size();
  auto name_file = [&] {
    for (size_t i = first_new; i < d.items.size(); ++i)
      if (d.items[i].file.empty()) d.items[i].file = path;
  };
  std::vector<OutputFile> files;
  try {
    files = write_with(scene, f, options, path, d);
    name_file();
  } catch (const Error& e) {
    name_file();
    Diagnostic diag = e.diagnostic();
    if (diag.file.empty()) diag.file = path;
    throw Error(diag);
  }
  // The files `written` lists: the main one, and the side files that were not there before (a
  // texture the write replaces, perhaps the one the model was read with, is not the write's own).
  std::vector<std::string> added;
  if (files.size() == 1 && !files.front().mapped)
    io::write_file_atomic(path, files.front().bytes, options.sync);
  else
    added = io::write_files_atomic(path, files, options.sync);
  if (written) {
    written->push_back(path);
    written->insert(written->end(), added.begin(), added.end());
  }
}

static bool same_format_family(Format a, Format b) {
  auto family = [](Format f) {
    switch (f) {
      case Format::Glb: return Format::Gltf;
      case Format::ModeDefProp:
      case Format::ModeDefState:
      case Format::ModeDefPath: return Format::ModeDefModel;
      default: return f;
    }
  };
  return family(a) == family(b);
}

// Default generation of normals and tangents is for other formats: writing the input's own
// format adds nothing its file lacked, unless a flag asks for it (issue 16).
static ProcessOptions effective_process(const ProcessOptions& given, const std::vector<std::string>& inputs,
                                        const std::string& output, const ConvertOptions& options) {
  ProcessOptions p = given;
  const std::optional<Format> in = options.read.format ? options.read.format : format_from_path(inputs[0]);
  const std::optional<Format> out = options.write.format ? options.write.format : format_from_path(output);
  if (!in || !out || !same_format_family(*in, *out)) return p;
  if (p.normals == Generate::Default)
    p.normals = p.normal.recompute || p.normal.angle ? Generate::Missing : Generate::Off;
  if (p.tangents == Generate::Default) p.tangents = p.tangent.recompute ? Generate::Missing : Generate::Off;
  return p;
}

Scene convert(const std::vector<std::string>& inputs, const std::string& output, const ConvertOptions& options,
              Diagnostics* diags) {
  if (inputs.empty()) fail(output, "no input files");
  Scene scene = read(inputs[0], options.read, diags);
  ReadOptions animation_inputs = options.read;  // --scene picks the first input's scene only
  animation_inputs.scene.reset();
  animation_inputs.scenes = nullptr;
  check_texture_assignments(scene, options.write.texture_assignments, inputs[0]);
  for (size_t i = 1; i < inputs.size(); ++i) {
    Scene extra = read(inputs[i], animation_inputs, diags);
    if (inputs[0] != "-") ops::name_animations_from_iqm_cfg(extra, inputs[0], inputs[i], diags);
    attach_animations(scene, extra, inputs[i], diags);
  }
  // Out of memory after reading (the readers name their part): which step, for the message.
  const char* stage = "";
  try {
    stage = "editing its clips";
    edit_clips(scene, options.clips, inputs[0], diags);
    stage = "processing it";
    const ProcessOptions p = effective_process(options.process, inputs, output, options);
    std::vector<LodLevel> levels;
    if (options.lods.ratios.empty()) {
      const size_t first = diags ? diags->items.size() : 0;
      process(scene, p, diags);
      name_file(diags, first, output == "-" ? "<stdout>" : output);
    } else
      levels = process_with_lods(scene, p, options.lods, output, options.write, diags);
    if (!options.allow_empty && !has_content(scene))
      fail(output, fmt::format("nothing to write: {} holds no mesh and no animation{} (--allow-empty writes "
                               "it anyway)",
                               inputs.size() == 1 ? inputs[0] : "the input", scene.joints.empty() ? "" : ", only joints"));
    stage = "writing it";
    WriteOptions w = options.write;
    if (w.texture_dir.empty()) {
      std::string dir = path_utf8(utf8_path(inputs[0]).parent_path());
      w.texture_dir = dir.empty() ? "." : dir;
    }
    if (w.texture_model.empty() && inputs[0] != "-") w.texture_model = inputs[0];
    std::vector<std::string> written;  // the output and its side files (a .gltf's .bin, textures)
    write_listing_files(scene, output, w, diags, &written);
    w.warn_textures_not_found = false;  // the output warned already; its levels use the same materials
    write_lod_files(levels, output, w, diags, written);
  } catch (const std::bad_alloc&) {
    fail(inputs[0], fmt::format("out of memory while {} (converting to {})", stage, output));
  }
  return scene;
}

Bounds scene_bounds(const Scene& scene) { return ops::rest_bounds(scene); }

}  // namespace meshport
