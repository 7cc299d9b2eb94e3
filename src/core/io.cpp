#include "core/io.h"

#include "core/os.h"
#include "core/utf8_path.h"

#include <meshport/diagnostics.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace meshport::io {

namespace {

// Everything from `fd` until its end (a regular file is sized first); `name` names it in errors.
std::vector<uint8_t> read_all(int fd, const std::string& name, const os::FileStatus& st) {
  std::vector<uint8_t> data;
  if (st.regular) data.reserve(static_cast<size_t>(st.size));
  uint8_t buf[1 << 16];
  for (;;) {
    const long long n = os::read(fd, buf, sizeof buf);
    if (n < 0) fail(name, std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    data.insert(data.end(), buf, buf + n);
  }
  return data;
}

// Opens `path` for reading and fills `st`; a folder or a file that cannot be opened is an error.
int open_for_reading(const std::string& path, os::FileStatus& st) {
  int error = 0;
  const int fd = os::open_read(path, error);
  if (fd < 0) fail(path, std::string("cannot open: ") + std::strerror(error));
  if (!os::status(fd, st) || st.directory) {
    const int e = st.directory ? EISDIR : errno;
    os::close(fd);
    fail(path, std::string("cannot read: ") + std::strerror(e));
  }
  return fd;
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
  os::FileStatus st;
  const int fd = open_for_reading(path, st);
  try {
    std::vector<uint8_t> data = read_all(fd, path, st);
    os::close(fd);
    return data;
  } catch (...) {
    os::close(fd);
    throw;
  }
}

FileBytes::FileBytes(FileBytes&& o) noexcept
    : data_(std::move(o.data_)), map_(std::exchange(o.map_, nullptr)), size_(std::exchange(o.size_, 0)) {}

FileBytes& FileBytes::operator=(FileBytes&& o) noexcept {
  if (this != &o) {
    if (map_) os::unmap(map_, size_);
    data_ = std::move(o.data_);
    map_ = std::exchange(o.map_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

FileBytes::~FileBytes() {
  if (map_) os::unmap(map_, size_);
}

FileBytes read_file_bytes(const std::string& path, size_t map_bytes) {
  os::FileStatus st;
  const int fd = open_for_reading(path, st);
  FileBytes f;
  if (st.regular && st.size > 0 && st.size >= map_bytes && st.size <= SIZE_MAX) {
    if (const uint8_t* p = os::map_read(fd, size_t(st.size))) {
      os::close(fd);
      f.map_ = p;
      f.size_ = size_t(st.size);
      return f;
    }  // else read it
  }
  try {
    f.data_ = read_all(fd, path, st);
    os::close(fd);
    return f;
  } catch (...) {
    os::close(fd);
    throw;
  }
}

std::vector<uint8_t> read_stdin() {
  os::FileStatus st;
  if (!os::status(os::standard_input(), st)) fail("<stdin>", std::string("cannot read: ") + std::strerror(errno));
  return read_all(os::standard_input(), "<stdin>", st);
}

void write_stdout(std::span<const uint8_t> data) {
  size_t done = 0;
  while (done < data.size()) {
    const long long n = os::write(os::standard_output(), data.data() + done, data.size() - done);
    if (n < 0) fail("<stdout>", std::string("cannot write output: ") + std::strerror(errno));
    done += size_t(n);
  }
}

namespace {

// The folder of `path` and its file name.
std::pair<std::string, std::string> folder_and_name(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path dest = utf8_path(path);
  fs::path dir = dest.parent_path();
  return {dir.empty() ? std::string(".") : path_utf8(dir), path_utf8(dest.filename())};
}

// A new temporary file beside `path`; returns its descriptor and its name (empty while it has
// none: os::create_temporary; close_temporary() names it once it is complete).
std::pair<int, std::string> create_temporary(const std::string& path) {
  const auto [dir, base] = folder_and_name(path);
  std::string name;
  const int fd = os::create_temporary(dir, base, name);
  if (fd < 0) fail(path, std::string("cannot create output: ") + std::strerror(errno));
  return {fd, name};
}

[[noreturn]] void abandon(int fd, const std::string& temporary, const std::string& path, int e) {
  os::close(fd);
  if (!temporary.empty()) os::remove_file(temporary);
  fail(path, std::string("cannot write output: ") + std::strerror(e));
}

// Makes the filled temporary readable, flushes it to the disk with `sync` (so that a crash after
// the rename cannot leave an empty file where the old one was), names it if it has no name yet,
// and closes it; returns its name.
std::string close_temporary(int fd, std::string temporary, const std::string& path, bool sync) {
  os::make_readable(fd);
  if (sync) {
    const int e = os::flush(fd);
    if (e != 0 && e != EINVAL && e != EROFS) abandon(fd, temporary, path, e);
  }
  if (temporary.empty()) {
    const auto [dir, base] = folder_and_name(path);
    temporary = os::name_temporary(fd, dir, base);
    if (temporary.empty()) abandon(fd, temporary, path, errno);
  }
  if (os::close(fd) != 0) {
    int e = errno;
    os::remove_file(temporary);
    fail(path, std::string("cannot write output: ") + std::strerror(e));
  }
  return temporary;
}

// A temporary file beside `path`, filled with `data` and closed; returns its name.
std::string write_temporary(const std::string& path, std::span<const uint8_t> data, bool sync) {
  auto [fd, name] = create_temporary(path);
  size_t done = 0;
  while (done < data.size()) {
    const long long n = os::write(fd, data.data() + done, data.size() - done);
    if (n < 0) abandon(fd, name, path, errno);
    done += static_cast<size_t>(n);
  }
  return close_temporary(fd, name, path, sync);
}

// Mapped outputs at least this large are unmapped on a thread while they are flushed.
constexpr size_t kUnmapOnThread = size_t(16) << 20;

}  // namespace

std::shared_ptr<MappedFile> MappedFile::create(const std::string& path, size_t size) {
  if (size == 0) return nullptr;
  auto [fd, name] = create_temporary(path);
  std::shared_ptr<MappedFile> f(new MappedFile);
  f->path_ = path;
  f->temporary_ = std::move(name);
  f->fd_ = fd;
  // Blocks on the disk first: a full disk (or a file-size limit) fails here, cleanly. A file
  // system that cannot allocate ahead gets the usual write (a full disk would stop the process
  // while it encodes into the mapping).
  const int e = os::allocate(fd, size);
  if (e == ENOTSUP) return nullptr;
  if (e != 0) abandon(std::exchange(f->fd_, -1), f->temporary_, path, e);
  uint8_t* p = os::map_write(fd, size);
  if (!p) return nullptr;
  f->map_ = p;
  f->size_ = size;
  return f;
}

MappedFile::~MappedFile() {
  if (map_) os::unmap(map_, size_);
  if (fd_ >= 0) {
    os::close(fd_);
    if (!temporary_.empty()) os::remove_file(temporary_);
  }
}

std::string MappedFile::finish(bool sync) {
  // Unmapping a large output takes milliseconds (8 ms for a 104 MB IQM) and the flush waits for
  // the disk: with `sync`, a thread unmaps while this one flushes (the file's pages are marked
  // dirty as they are written, so the flush does not need the mapping gone first). The same
  // thread drops the cached pages of the file this one will replace, which the rename would
  // otherwise free itself (10 ms of a 104 MB IQM's rename: its page cache, not its blocks).
  std::thread unmapper;
  if (map_ && sync && size_ >= kUnmapOnThread) {
    try {
      unmapper = std::thread([p = map_, n = size_, old = path_] {
        os::unmap(p, n);
        os::forget_cached(old);
      });
      map_ = nullptr;
    } catch (const std::system_error&) {  // no thread: unmapped here
    }
  }
  if (map_) os::unmap(std::exchange(map_, nullptr), size_);
  try {
    std::string name = close_temporary(std::exchange(fd_, -1), temporary_, path_, sync);
    if (unmapper.joinable()) unmapper.join();
    return name;
  } catch (...) {
    if (unmapper.joinable()) unmapper.join();
    throw;
  }
}

void write_file_atomic(const std::string& path, std::span<const uint8_t> data, bool sync) {
  std::string tmp = write_temporary(path, data, sync);
  if (const int e = os::replace(tmp, path); e != 0) {
    os::remove_file(tmp);
    fail(path, std::string("cannot write output: ") + std::strerror(e));
  }
}

std::vector<std::string> write_files_atomic(const std::string& main_path, const std::vector<OutputFile>& files,
                                            bool sync) {
  namespace fs = std::filesystem;
  fs::path dir = utf8_path(main_path).parent_path();
  std::vector<std::pair<std::string, std::string>> done;  // temporary, destination
  std::vector<fs::path> created;  // folders made for side files, removed again on failure
  auto undo = [&](size_t count) {
    for (size_t k = 0; k < count; ++k) os::remove_file(done[k].first);
    std::error_code ec;
    for (size_t k = created.size(); k-- > 0;) fs::remove(created[k], ec);  // only when empty
  };
  try {
    for (const OutputFile& f : files) {
      fs::path rel = utf8_path(f.name);
      if (rel.is_absolute())
        fail(main_path, "side file '" + f.name + "' is not relative to the output's folder");
      for (const auto& part : rel)
        if (part == "..") fail(main_path, "side file '" + f.name + "' leaves the output's folder");
      std::string dest = f.name.empty() ? main_path : path_utf8(dir / rel);
      // Side files in subfolders (a ModeDef .state's props/box.prop): make the folders.
      fs::path parent = utf8_path(dest).parent_path();
      std::vector<fs::path> missing;
      for (fs::path p = parent; !p.empty() && !fs::exists(p); p = p.parent_path()) missing.push_back(p);
      for (size_t k = missing.size(); k-- > 0;) {
        std::error_code ec;
        if (!fs::create_directory(missing[k], ec) && ec)
          fail(dest, "cannot create folder '" + path_utf8(missing[k]) + "': " + ec.message());
        created.push_back(missing[k]);
      }
      done.emplace_back(f.mapped ? f.mapped->finish(sync) : write_temporary(dest, f.bytes, sync), dest);
    }
  } catch (...) {
    undo(done.size());
    throw;
  }
  // Side files first, the main file last: a reader never sees a main file without its parts.
  std::vector<bool> replaced(done.size());  // the destination was there before the rename
  for (size_t i = done.size(); i-- > 0;) {
    auto& [tmp, dest] = done[i];
    os::FileStatus before;
    replaced[i] = os::status(dest, before, false);
    if (const int e = os::replace(tmp, dest); e != 0) {
      // The side files renamed already that were not there before go too (a texture the write
      // replaced, perhaps the very file the model was read with, stays); then the temporaries
      // left and the folders made for them.
      for (size_t k = i + 1; k < done.size(); ++k)
        if (!replaced[k]) os::remove_file(done[k].second);
      undo(i + 1);
      fail(dest, std::string("cannot write output: ") + std::strerror(e));
    }
  }
  std::vector<std::string> added;
  for (size_t i = 1; i < done.size(); ++i)
    if (!replaced[i]) added.push_back(std::move(done[i].second));
  return added;
}

}  // namespace meshport::io
