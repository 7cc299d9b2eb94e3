// convert()'s levels of detail (ConvertOptions::lods, docs/processing.md "Levels of detail").
#pragma once

#include <meshport/meshport.h>

#include <string>
#include <vector>

namespace meshport {

// Runs `p` on `scene` (LOD 0: simplified only when p.simplify asks) and makes the levels from
// the Scene as it was before simplification (make_lods). With lods.msft_lod the levels' meshes
// are added to `scene` (add_lod_meshes) and nothing is returned; otherwise the levels, for
// write_lod_files. A note per level gives its triangles and error. Throws when the output cannot
// take the levels (standard output; MSFT_lod for another format than glTF).
std::vector<LodLevel> process_with_lods(Scene& scene, const ProcessOptions& p, const LodOptions& lods,
                                        const std::string& output, const WriteOptions& w, Diagnostics* diags);

// Diagnostics from item `from` on that name no file (processing steps' notes, "mesh 'x'
// simplified ...") name `file`: the one they concern (issue 32: they printed ": note: ...").
void name_file(Diagnostics* diags, size_t from, const std::string& file);

// "dir/NAME.EXT" -> "dir/NAME_lodN.EXT" (EXT: the format's extension the path ends with, so
// "a.qmsh.tmp" -> "a_lod1.qmsh.tmp"; else the last one).
std::string lod_path(const std::string& output, Format format, size_t level);

// write(), adding to `written` (when given) the paths of the files it wrote: the main one and
// the side files that were not there before.
void write_listing_files(const Scene& scene, const std::string& path, const WriteOptions& options, Diagnostics* diags,
                         std::vector<std::string>* written);

// Writes level i to lod_path(output, format, i + 1), adding its files to `written` (those of the
// conversion so far). All or nothing: when a level cannot be written, every file in `written`
// is removed (the output, the levels before it, and their new side files) and the error thrown.
void write_lod_files(const std::vector<LodLevel>& levels, const std::string& output, const WriteOptions& w,
                     Diagnostics* diags, std::vector<std::string>& written);

}  // namespace meshport
