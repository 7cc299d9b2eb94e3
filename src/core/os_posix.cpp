// The operating system on Linux and other POSIX systems (os.h).
#if !defined(_WIN32)
#include "core/os.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace meshport::os {

namespace {

void fill(const struct stat& st, FileStatus& out) {
  out.regular = S_ISREG(st.st_mode);
  out.directory = S_ISDIR(st.st_mode);
  out.size = out.regular ? uint64_t(st.st_size) : 0;
  out.device = uint64_t(st.st_dev);
  out.inode = uint64_t(st.st_ino);
#if defined(__APPLE__)
  out.mtime_ns = int64_t(st.st_mtimespec.tv_sec) * 1000000000 + st.st_mtimespec.tv_nsec;
#else
  out.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
#endif
}

}  // namespace

int open_read(const std::string& path, int& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  error = fd < 0 ? errno : 0;
  return fd;
}

bool status(int fd, FileStatus& out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  fill(st, out);
  return true;
}

bool status(const std::string& path, FileStatus& out, bool follow) {
  struct stat st {};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return false;
  fill(st, out);
  return true;
}

long long read(int fd, void* buffer, size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd, buffer, size);
    if (n >= 0 || errno != EINTR) return n;
  }
}

long long write(int fd, const void* data, size_t size) {
  for (;;) {
    const ssize_t n = ::write(fd, data, size);
    if (n >= 0 || errno != EINTR) return n;
  }
}

int close(int fd) { return ::close(fd); }
int standard_input() { return STDIN_FILENO; }
int standard_output() { return STDOUT_FILENO; }

const uint8_t* map_read(int fd, size_t size) {
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<const uint8_t*>(p);
}

uint8_t* map_write(int fd, size_t size) {
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

void unmap(const void* address, size_t size) { ::munmap(const_cast<void*>(address), size); }

void discard_pages(const void* begin, const void* end) {
  const long page = ::sysconf(_SC_PAGESIZE);
  if (page <= 0) return;
  const uintptr_t p = uintptr_t(page);
  const uintptr_t first = (uintptr_t(begin) + p - 1) / p * p, last = uintptr_t(end) / p * p;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

int allocate(int fd, uint64_t size) {
#if defined(__linux__)
  int r = 0;
  do r = ::fallocate(fd, 0, 0, off_t(size));
  while (r != 0 && errno == EINTR);
  if (r == 0) return 0;
  return errno == EOPNOTSUPP || errno == ENOSYS ? ENOTSUP : errno;
#else
  (void)fd, (void)size;
  return ENOTSUP;
#endif
}

int create_temporary(const std::string& folder, const std::string& base, std::string& name) {
  name.clear();
#if defined(O_TMPFILE)
  if (::access("/proc/self/fd", F_OK) == 0) {
    const int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
  }
#endif
  std::string tmpl = folder + "/." + base + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd >= 0) name = tmpl;
  return fd;
}

std::string name_temporary(int fd, const std::string& folder, const std::string& base) {
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ (process_id() << 32) ^
                  uint64_t(fd);
  for (int attempt = 0; attempt < 100; ++attempt) {
    seed = (seed ^ (seed >> 31)) * 0x9E3779B97F4A7C15ull + uint64_t(attempt);
    std::string name = folder + "/." + base + ".tmp-";
    for (int k = 0; k < 6; ++k) name += kDigits[(seed >> (k * 6)) % 62];
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) return name;
    if (errno != EEXIST) return std::string();
  }
  return std::string();
}

void make_readable(int fd) { ::fchmod(fd, 0644); }

int flush(int fd) { return ::fsync(fd) == 0 ? 0 : errno; }

int replace(const std::string& from, const std::string& to) {
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

int remove_file(const std::string& path) { return ::unlink(path.c_str()) == 0 ? 0 : errno; }

void forget_cached(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void flush_file_system(const std::string& folder) {
#if defined(__linux__)
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::syncfs(fd);
  ::close(fd);
#else
  (void)folder;
  ::sync();
#endif
}

uint64_t process_id() { return uint64_t(::getpid()); }

std::string create_temporary_folder(const std::string& prefix) {
  std::string name = prefix + "XXXXXX";
  return ::mkdtemp(name.data()) ? name : std::string();
}

bool superuser() { return ::geteuid() == 0; }

namespace {

// The child's side of start_piped() (`argv` has no null at its end yet): killed when meshport
// dies (Linux), the stream on descriptors 3 and 4.
[[noreturn]] void exec_child(std::vector<char*>& argv, int stream) {
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  ::setpgid(0, 0);
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  ::dup2(stream, 3);
  ::dup2(stream, 4);
  ::fcntl(3, F_SETFD, 0);  // dup2 onto itself (the stream may be 3 or 4) keeps close-on-exec
  ::fcntl(4, F_SETFD, 0);
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  ::_exit(127);
}

}  // namespace

bool can_start_piped() { return true; }

int start_piped(const std::vector<std::string>& argv, PipedChild& out) {
  out = PipedChild();
  if (argv.empty()) return EINVAL;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return errno;
  std::vector<std::string> copy = argv;  // prepared before fork(): the child only calls the system
  std::vector<char*> cargv;
  for (std::string& a : copy) cargv.push_back(a.data());
  cargv.reserve(cargv.size() + 1);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    return e;
  }
  if (pid == 0) exec_child(cargv, sv[1]);
  ::close(sv[1]);
  out.id = pid;
  out.stream = sv[0];
  return 0;
}

long long send(int stream, const void* data, size_t size) {
  for (;;) {
    const ssize_t n = ::send(stream, data, size, MSG_NOSIGNAL);
    if (n >= 0 || errno != EINTR) return n;
  }
}

void shutdown(int stream) { ::shutdown(stream, SHUT_RDWR); }

void end_child(PipedChild& child, double seconds) {
  if (child.id <= 0) return;
  const pid_t pid = pid_t(child.id);
  child.id = -1;
  int status = 0;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(seconds));
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int open_browser(const std::string& url) {
#if defined(__APPLE__)
  std::string opener = "open";
#else
  std::string opener = "xdg-open";
#endif
  std::string address = url;
  char* argv[] = {opener.data(), address.data(), nullptr};
  // posix_spawnp reports a program not found (ENOENT); its output goes to the null device, in a
  // process group of its own, not tied to meshport (the browser stays when the server stops).
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  for (int fd = 0; fd < 3; ++fd) posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int error = ::posix_spawnp(&pid, argv[0], &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) return error;
  // Reaped when it exits (xdg-open returns once the browser is asked), without waiting here.
  std::thread([pid] {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }).detach();
  return 0;
}

}  // namespace meshport::os
#endif
