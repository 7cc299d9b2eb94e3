// IQM (Inter-Quake Model, binary; v2 read and written, v1 read): ../shared/specs/iqm.txt.
#pragma once

#include <meshport/diagnostics.h>
#include <meshport/options.h>
#include <meshport/scene.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace meshport::iqm {

// Parses an IQM file. `name` is used in diagnostics (file: offset N). Throws meshport::Error.
// A large mesh's vertex arrays are decoded on 2 threads when `threads` > 1; the result is the
// same for any count.
Scene read(std::span<const uint8_t> data, const std::string& name, Diagnostics& diags, unsigned threads = 1);

// Writes IQM v2.
std::vector<uint8_t> write(const Scene& scene, const WriteOptions& options, Diagnostics& diags);
// The same, encoded into the memory `buffer(size)` gives: `size` zero bytes, the file's size,
// known once the file is laid out (a mapped output file: io::MappedFile).
using Buffer = std::function<std::span<uint8_t>(size_t size)>;
void write(const Scene& scene, const WriteOptions& options, Diagnostics& diags, const Buffer& buffer);

}  // namespace meshport::iqm
