// The operating system on Windows (os.h), as MinGW-w64 builds it: the C runtime's descriptors for
// reading and writing, the Win32 API for identity, mapping, replacing and flushing. UTF-8 paths
// become UTF-16 here; Win32 errors become errno values, so messages read as on Linux.
#if defined(_WIN32)
#include "core/os.h"

#include <cerrno>
#include <chrono>
#include <cstdio>

#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#include <windows.h>
#include <shellapi.h>

namespace meshport::os {

namespace {

std::wstring wide(const std::string& utf8) {
  if (utf8.empty()) return std::wstring();
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), nullptr, 0);
  std::wstring out(size_t(n > 0 ? n : 0), L'\0');
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), out.data(), n);
  return out;
}

// The errno value of the last Win32 error, set as errno too.
int last_error() {
  int e = EIO;
  switch (GetLastError()) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
      e = ENOENT;
      break;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
      e = EACCES;
      break;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      e = EEXIST;
      break;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
      e = ENOSPC;
      break;
    case ERROR_WRITE_PROTECT:
      e = EROFS;
      break;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
      e = ENOMEM;
      break;
    case ERROR_DIRECTORY:
      e = ENOTDIR;
      break;
    default:
      break;
  }
  errno = e;
  return e;
}

HANDLE handle_of(int fd) { return reinterpret_cast<HANDLE>(_get_osfhandle(fd)); }

bool fill(HANDLE h, FileStatus& out) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) {
    // Standard input and output (a pipe, a console) have no such information.
    const DWORD type = GetFileType(h);
    if (type == FILE_TYPE_UNKNOWN) return last_error(), false;
    out = FileStatus();
    return true;
  }
  out.directory = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
  out.regular = !out.directory && GetFileType(h) == FILE_TYPE_DISK;
  out.size = out.regular ? (uint64_t(info.nFileSizeHigh) << 32 | info.nFileSizeLow) : 0;
  out.device = info.dwVolumeSerialNumber;
  out.inode = uint64_t(info.nFileIndexHigh) << 32 | info.nFileIndexLow;
  const int64_t ticks = int64_t(uint64_t(info.ftLastWriteTime.dwHighDateTime) << 32 | info.ftLastWriteTime.dwLowDateTime);
  out.mtime_ns = (ticks - 116444736000000000LL) * 100;  // 100 ns since 1601 -> ns since 1970
  return true;
}

}  // namespace

int open_read(const std::string& path, int& error) {
  const int fd = _wopen(wide(path).c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT);
  error = fd < 0 ? errno : 0;
  return fd;
}

bool status(int fd, FileStatus& out) {
  const HANDLE h = handle_of(fd);
  if (h == INVALID_HANDLE_VALUE) return errno = EBADF, false;
  return fill(h, out);
}

bool status(const std::string& path, FileStatus& out, bool follow) {
  const DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT);
  const HANDLE h = CreateFileW(wide(path).c_str(), FILE_READ_ATTRIBUTES,
                               FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING, flags,
                               nullptr);
  if (h == INVALID_HANDLE_VALUE) return last_error(), false;
  const bool ok = fill(h, out);
  CloseHandle(h);
  return ok;
}

long long read(int fd, void* buffer, size_t size) {
  const unsigned chunk = size > (1u << 30) ? (1u << 30) : unsigned(size);
  return _read(fd, buffer, chunk);
}

long long write(int fd, const void* data, size_t size) {
  const unsigned chunk = size > (1u << 30) ? (1u << 30) : unsigned(size);
  return _write(fd, data, chunk);
}

int close(int fd) { return _close(fd); }

int standard_input() {
  _setmode(0, _O_BINARY);
  return 0;
}

int standard_output() {
  std::fflush(stdout);
  _setmode(1, _O_BINARY);
  return 1;
}

const uint8_t* map_read(int fd, size_t size) {
  const HANDLE mapping = CreateFileMappingW(handle_of(fd), nullptr, PAGE_READONLY, 0, 0, nullptr);
  if (!mapping) return nullptr;
  void* p = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, size);
  CloseHandle(mapping);  // the view keeps the mapping
  return static_cast<const uint8_t*>(p);
}

uint8_t* map_write(int, size_t) { return nullptr; }  // allocate() never succeeds: written the usual way

void unmap(const void* address, size_t) { UnmapViewOfFile(address); }

void discard_pages(const void*, const void*) {}

int allocate(int, uint64_t) { return ENOTSUP; }

int create_temporary(const std::string& folder, const std::string& base, std::string& name) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";  // one case: Windows ignores it
  uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ (process_id() << 32);
  for (int attempt = 0; attempt < 100; ++attempt) {
    seed = (seed ^ (seed >> 31)) * 0x9E3779B97F4A7C15ull + uint64_t(attempt);
    name = folder + "/." + base + ".tmp-";
    for (int k = 0; k < 6; ++k) name += kDigits[(seed >> (k * 6)) % 36];
    const int fd = _wopen(wide(name).c_str(), _O_CREAT | _O_EXCL | _O_RDWR | _O_BINARY | _O_NOINHERIT,
                          _S_IREAD | _S_IWRITE);
    if (fd >= 0) return fd;
    if (errno != EEXIST) break;
  }
  name.clear();
  return -1;
}

std::string name_temporary(int, const std::string&, const std::string&) { return (errno = EINVAL, std::string()); }

void make_readable(int) {}

int flush(int fd) { return _commit(fd) == 0 ? 0 : errno; }

int replace(const std::string& from, const std::string& to) {
  if (MoveFileExW(wide(from).c_str(), wide(to).c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_COPY_ALLOWED)) return 0;
  return last_error();
}

void forget_cached(const std::string&) {}

int remove_file(const std::string& path) { return DeleteFileW(wide(path).c_str()) ? 0 : last_error(); }

void flush_file_system(const std::string&) {}  // each file was written whole; Windows has no syncfs

uint64_t process_id() { return GetCurrentProcessId(); }

std::string create_temporary_folder(const std::string& prefix) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ (process_id() << 32);
  for (int attempt = 0; attempt < 100; ++attempt) {
    seed = (seed ^ (seed >> 31)) * 0x9E3779B97F4A7C15ull + uint64_t(attempt);
    std::string name = prefix;
    for (int k = 0; k < 6; ++k) name += kDigits[(seed >> (k * 6)) % 36];
    if (CreateDirectoryW(wide(name).c_str(), nullptr)) return name;  // in the user's own temporary folder
    if (last_error() != EEXIST) break;
  }
  return std::string();
}

bool superuser() { return false; }  // Chromium's --no-sandbox is for root on Linux only

// Chromium on Windows takes its DevTools pipe as inherited handles passed in the C runtime's
// descriptor table (STARTUPINFO's lpReserved2): untested under Wine, so not done yet.
bool can_start_piped() { return false; }

int start_piped(const std::vector<std::string>&, PipedChild& out) {
  out = PipedChild();
  return ENOSYS;
}

long long send(int, const void*, size_t) { return (errno = EBADF, -1); }

void shutdown(int) {}

void end_child(PipedChild& child, double) { child.id = -1; }

int open_browser(const std::string& url) {
  // The default browser through the shell's association of http:// addresses.
  const HINSTANCE r = ShellExecuteW(nullptr, L"open", wide(url).c_str(), nullptr, nullptr, SW_SHOWNORMAL);
  return reinterpret_cast<intptr_t>(r) > 32 ? 0 : ENOENT;
}

}  // namespace meshport::os
#endif
