// meshport public API: read, write and convert 3D game model formats through one Scene.
#pragma once

#include <meshport/clips.h>
#include <meshport/diagnostics.h>
#include <meshport/formats.h>
#include <meshport/modal.h>
#include <meshport/options.h>
#include <meshport/process.h>
#include <meshport/scene.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace meshport {

// The format table (formats(), format_info(), what each format holds): formats.h.

// Reading. Fatal problems throw meshport::Error; warnings go to `diags` when given. Formats
// with side files (glTF .bin, OBJ .mtl) load them relative to the file's folder; from memory
// they cannot, and say so. Running out of memory is an Error too, naming the file (and, for glTF,
// the part being read).
Scene read(const std::string& path, const ReadOptions& options = {}, Diagnostics* diags = nullptr);
Scene read_memory(std::span<const uint8_t> data, Format format, const std::string& name,
                  Diagnostics* diags = nullptr);
// The same with options (their `format` is ignored: `format` is used).
Scene read_memory(std::span<const uint8_t> data, Format format, const std::string& name, const ReadOptions& options,
                  Diagnostics* diags = nullptr);

// Writing. Every file is written to a temporary file beside its destination and renamed into
// place only when all are complete, so a failure never leaves a partial or clobbered file.
// write() writes side files beside the main one (.gltf -> .bin, .obj -> .mtl); write_memory()
// returns the main file only (glTF embeds its buffer as a data URI, OBJ has no mtllib).
void write(const Scene& scene, const std::string& path, const WriteOptions& options = {},
           Diagnostics* diags = nullptr);
std::vector<uint8_t> write_memory(const Scene& scene, Format format, const WriteOptions& options = {},
                                  Diagnostics* diags = nullptr);

// The Scene as `format` can hold it, as write() and write_memory() prepare it: what the format
// does not hold (formats.h FormatCapabilities) converted (animations resampled to even frames,
// texture transforms baked, GPU instances expanded) or dropped with a warning in `diags`
// (docs/formats.md, "What each format holds"). Throws meshport::Error for what it refuses
// (--compress outside glTF, uneven keys with --resample off).
Scene fit_to_format(const Scene& scene, Format format, const WriteOptions& options, Diagnostics& diags);

// Conversion: meshes, materials and skeleton come from the first input; animations from every
// input, attached to the first input's skeleton by joint name (by index, with a count check,
// where names are missing).
// Between reading and writing, `process` runs (process.h): by default it generates normals and
// tangents where meshes lack them, except when the output is the input's own format (or family:
// .gltf/.glb, the ModeDef files), where a conversion without flags adds nothing.
// With lods.ratios, the levels of detail too (process.h make_lods; docs/processing.md): files
// NAME_lod1.EXT, ... beside the output, or with lods.msft_lod (glTF) in the output itself.
// After attaching, `clips` edits the animation clips (clips.h); an output that would hold no mesh
// and no animation is an error unless `allow_empty` (clips.h has_content).
struct ConvertOptions {
  ReadOptions read;
  ClipOptions clips;
  ProcessOptions process;
  WriteOptions write;
  LodOptions lods;
  bool allow_empty = false;
};
Scene convert(const std::vector<std::string>& inputs, const std::string& output,
              const ConvertOptions& options = {}, Diagnostics* diags = nullptr);

// Summary numbers used by `meshport info`.
Bounds scene_bounds(const Scene& scene);  // rest-pose positions, Scene convention

}  // namespace meshport
