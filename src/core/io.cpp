#include "core/io.h"

#include <meshport/diagnostics.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace meshport::io {

namespace {

// Everything from `fd` until its end (a regular file is sized first); `name` names it in errors.
std::vector<uint8_t> read_all(int fd, const std::string& name, const struct stat& st) {
  std::vector<uint8_t> data;
  if (S_ISREG(st.st_mode)) data.reserve(static_cast<size_t>(st.st_size));
  uint8_t buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(name, std::string("cannot read: ") + std::strerror(errno));
    }
    if (n == 0) break;
    data.insert(data.end(), buf, buf + n);
  }
  return data;
}

}  // namespace

namespace {

// Opens `path` for reading and fills `st`; a folder or a file that cannot be opened is an error.
int open_for_reading(const std::string& path, struct stat& st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    const int e = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    fail(path, std::string("cannot read: ") + std::strerror(e));
  }
  return fd;
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
  struct stat st {};
  const int fd = open_for_reading(path, st);
  try {
    std::vector<uint8_t> data = read_all(fd, path, st);
    ::close(fd);
    return data;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

FileBytes::FileBytes(FileBytes&& o) noexcept
    : data_(std::move(o.data_)), map_(std::exchange(o.map_, nullptr)), size_(std::exchange(o.size_, 0)) {}

FileBytes& FileBytes::operator=(FileBytes&& o) noexcept {
  if (this != &o) {
    if (map_) ::munmap(const_cast<uint8_t*>(map_), size_);
    data_ = std::move(o.data_);
    map_ = std::exchange(o.map_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

FileBytes::~FileBytes() {
  if (map_) ::munmap(const_cast<uint8_t*>(map_), size_);
}

FileBytes read_file_bytes(const std::string& path, size_t map_bytes) {
  struct stat st {};
  const int fd = open_for_reading(path, st);
  FileBytes f;
  if (S_ISREG(st.st_mode) && st.st_size > 0 && size_t(st.st_size) >= map_bytes) {
    void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::close(fd);
      f.map_ = static_cast<const uint8_t*>(p);
      f.size_ = size_t(st.st_size);
      return f;
    }  // else read it
  }
  try {
    f.data_ = read_all(fd, path, st);
    ::close(fd);
    return f;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

std::vector<uint8_t> read_stdin() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) fail("<stdin>", std::string("cannot read: ") + std::strerror(errno));
  return read_all(STDIN_FILENO, "<stdin>", st);
}

void write_stdout(std::span<const uint8_t> data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(STDOUT_FILENO, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("<stdout>", std::string("cannot write output: ") + std::strerror(errno));
    }
    done += size_t(n);
  }
}

namespace {

// The folder of `path` and its file name.
std::pair<std::string, std::string> folder_and_name(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path dest(path);
  fs::path dir = dest.parent_path();
  return {dir.empty() ? std::string(".") : dir.string(), dest.filename().string()};
}

// A new temporary file beside `path`; returns its descriptor and its name. Where the file system
// allows (O_TMPFILE, and /proc to link it by), the file has no name while it is written, so a
// process that dies meanwhile (a second Ctrl-C, a kill) leaves nothing behind; the name is then
// empty and name_temporary() gives it one once it is complete. Elsewhere it is created hidden
// under its name, `.NAME.tmp-XXXXXX`.
std::pair<int, std::string> create_temporary(const std::string& path) {
  const auto [dir, base] = folder_and_name(path);
  if (::access("/proc/self/fd", F_OK) == 0) {
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return {fd, std::string()};
  }
  std::string tmpl = dir;
  tmpl.append("/.").append(base).append(".tmp-XXXXXX");
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) fail(path, std::string("cannot create output: ") + std::strerror(errno));
  return {fd, std::string(name.data())};
}

// Links the unnamed temporary `fd` into the folder of `path` as `.NAME.tmp-XXXXXX` (a new name:
// tried again when taken); returns the name, or an empty one with errno set.
std::string name_temporary(int fd, const std::string& path) {
  const auto [dir, base] = folder_and_name(path);
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                  (uint64_t(::getpid()) << 32) ^ uint64_t(fd);
  for (int attempt = 0; attempt < 100; ++attempt) {
    seed = (seed ^ (seed >> 31)) * 0x9E3779B97F4A7C15ull + uint64_t(attempt);
    std::string name = dir + "/." + base + ".tmp-";
    for (int k = 0; k < 6; ++k) name += kDigits[(seed >> (k * 6)) % 62];
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) return name;
    if (errno != EEXIST) return std::string();
  }
  return std::string();
}

[[noreturn]] void abandon(int fd, const std::string& temporary, const std::string& path, int e) {
  ::close(fd);
  if (!temporary.empty()) ::unlink(temporary.c_str());
  fail(path, std::string("cannot write output: ") + std::strerror(e));
}

// Makes the filled temporary readable, flushes it to the disk with `sync` (so that a crash after
// the rename cannot leave an empty file where the old one was), names it if it has no name yet,
// and closes it; returns its name.
std::string close_temporary(int fd, std::string temporary, const std::string& path, bool sync) {
  ::fchmod(fd, 0644);
  if (sync && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) abandon(fd, temporary, path, errno);
  if (temporary.empty()) {
    temporary = name_temporary(fd, path);
    if (temporary.empty()) abandon(fd, temporary, path, errno);
  }
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(temporary.c_str());
    fail(path, std::string("cannot write output: ") + std::strerror(e));
  }
  return temporary;
}

// A temporary file beside `path`, filled with `data` and closed; returns its name.
std::string write_temporary(const std::string& path, std::span<const uint8_t> data, bool sync) {
  auto [fd, name] = create_temporary(path);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon(fd, name, path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return close_temporary(fd, name, path, sync);
}

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
  int r = 0;
  do r = ::fallocate(fd, 0, 0, off_t(size));
  while (r != 0 && errno == EINTR);
  if (r != 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) return nullptr;
  if (r != 0) abandon(std::exchange(f->fd_, -1), f->temporary_, path, errno);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return nullptr;
  f->map_ = static_cast<uint8_t*>(p);
  f->size_ = size;
  return f;
}

MappedFile::~MappedFile() {
  if (map_) ::munmap(map_, size_);
  if (fd_ >= 0) {
    ::close(fd_);
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
  }
}

std::string MappedFile::finish(bool sync) {
  if (map_) ::munmap(std::exchange(map_, nullptr), size_);
  return close_temporary(std::exchange(fd_, -1), temporary_, path_, sync);
}

void write_file_atomic(const std::string& path, std::span<const uint8_t> data, bool sync) {
  std::string tmp = write_temporary(path, data, sync);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    fail(path, std::string("cannot write output: ") + std::strerror(e));
  }
}

std::vector<std::string> write_files_atomic(const std::string& main_path, const std::vector<OutputFile>& files,
                                            bool sync) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(main_path).parent_path();
  std::vector<std::pair<std::string, std::string>> done;  // temporary, destination
  std::vector<fs::path> created;  // folders made for side files, removed again on failure
  auto undo = [&](size_t count) {
    for (size_t k = 0; k < count; ++k) ::unlink(done[k].first.c_str());
    std::error_code ec;
    for (size_t k = created.size(); k-- > 0;) fs::remove(created[k], ec);  // only when empty
  };
  try {
    for (const OutputFile& f : files) {
      fs::path rel(f.name);
      if (rel.is_absolute())
        fail(main_path, "side file '" + f.name + "' is not relative to the output's folder");
      for (const auto& part : rel)
        if (part == "..") fail(main_path, "side file '" + f.name + "' leaves the output's folder");
      std::string dest = f.name.empty() ? main_path : (dir / rel).string();
      // Side files in subfolders (a ModeDef .state's props/box.prop): make the folders.
      fs::path parent = fs::path(dest).parent_path();
      std::vector<fs::path> missing;
      for (fs::path p = parent; !p.empty() && !fs::exists(p); p = p.parent_path()) missing.push_back(p);
      for (size_t k = missing.size(); k-- > 0;) {
        std::error_code ec;
        if (!fs::create_directory(missing[k], ec) && ec)
          fail(dest, "cannot create folder '" + missing[k].string() + "': " + ec.message());
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
    struct stat before;
    replaced[i] = ::lstat(dest.c_str(), &before) == 0;
    if (::rename(tmp.c_str(), dest.c_str()) != 0) {
      int e = errno;
      // The side files renamed already that were not there before go too (a texture the write
      // replaced, perhaps the very file the model was read with, stays); then the temporaries
      // left and the folders made for them.
      for (size_t k = i + 1; k < done.size(); ++k)
        if (!replaced[k]) ::unlink(done[k].second.c_str());
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
