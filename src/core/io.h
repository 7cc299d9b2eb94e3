// File input and atomic file output.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/files.h"

namespace meshport::io {

// Reads a whole file; throws meshport::Error ("file: error: cannot open: ...") on failure.
std::vector<uint8_t> read_file(const std::string& path);
// A whole file, for reading: a regular file of at least `map_bytes` is mapped into memory (no
// copy, no zero-filled buffer, the pages shared with the system's file cache), a smaller one or
// any other kind is read (read_file()). Errors as read_file(). A mapped file must not shrink
// while it is read (the system would stop the process).
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  FileBytes(FileBytes&& o) noexcept;
  FileBytes& operator=(FileBytes&& o) noexcept;
  ~FileBytes();
  std::span<const uint8_t> bytes() const { return map_ ? std::span<const uint8_t>(map_, size_) : data_; }
  bool mapped() const { return map_ != nullptr; }

 private:
  friend FileBytes read_file_bytes(const std::string& path, size_t map_bytes);
  std::vector<uint8_t> data_;
  const uint8_t* map_ = nullptr;
  size_t size_ = 0;
};
FileBytes read_file_bytes(const std::string& path, size_t map_bytes = size_t(4) << 20);

// Standard input until its end, and standard output (errors name "<stdin>" / "<stdout>").
std::vector<uint8_t> read_stdin();
void write_stdout(std::span<const uint8_t> data);

// Writes `data` to a temporary file in the destination's folder, flushes it, then renames it over
// `path`. On any failure the temporary file is removed, an existing `path` is left untouched,
// and meshport::Error is thrown. The temporary has no name while it is written where the file
// system allows (O_TMPFILE; Linux's ext4, XFS, Btrfs, tmpfs), so a process killed meanwhile leaves
// nothing; it is linked in as `.NAME.tmp-XXXXXX` once complete, just before the rename.
// With `sync`, the data is flushed to the disk (fsync) before the rename, so that not even a
// crash of the machine can leave an empty file in place of the old one.
void write_file_atomic(const std::string& path, std::span<const uint8_t> data, bool sync = true);

// An output file written in place, for a writer that knows the file's size before it encodes
// (IQM): a temporary file beside `path` with its `size` bytes allocated on the disk first (so a
// full disk is an error here, not a fault while encoding) and mapped into memory, zero-filled.
// It saves a zero-filled buffer and its copy through write() (issue 19: 104 MB for a 1M-vertex
// IQM). finish() unmaps, flushes and closes it and returns its name, to be renamed into place;
// destroyed before that, the temporary is removed. Errors as write_file_atomic().
class MappedFile {
 public:
  // Null when the file system cannot allocate or map the file ahead: write it the usual way.
  static std::shared_ptr<MappedFile> create(const std::string& path, size_t size);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  std::span<uint8_t> bytes() const { return {map_, size_}; }
  std::string finish(bool sync);

 private:
  MappedFile() = default;
  std::string path_, temporary_;
  int fd_ = -1;
  uint8_t* map_ = nullptr;
  size_t size_ = 0;
};

// Writes several files (the main one at `main_path`, side files named relative to its folder)
// each to a temporary file first (or takes the one a file's `mapped` holds), then renames them
// all into place, the main file last; on failure no temporary is left and no destination is
// touched, except when a rename fails (the
// main file's name is a folder, say): then the side files renamed before it are removed, so
// that nothing of the write is left, except those that replaced a file already there. Folders
// that side file names use are created (and removed again, when still empty, on failure); a
// side file name that is absolute or climbs out of the main file's folder with `..` is an error.
// Returns the side files it added (those whose name was not taken before).
std::vector<std::string> write_files_atomic(const std::string& main_path, const std::vector<OutputFile>& files,
                                            bool sync = true);

}  // namespace meshport::io
