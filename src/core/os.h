// The operating system, behind one small interface: files and their descriptors, mapping,
// temporary files and atomic replacement, flushing, pages; for the viewer (src/view) a child
// process joined by a stream and the start of the desktop's browser. Linux (and other POSIX systems) in
// os_posix.cpp, Windows in os_windows.cpp (MinGW-w64); no other library source includes a system
// header (tests/test_architecture.cpp checks it). Paths are UTF-8 everywhere; on Windows they
// become UTF-16 here. Errors are errno values, so that messages read the same on every system
// (std::strerror).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace meshport::os {

// What a descriptor or a path is.
struct FileStatus {
  bool regular = false;
  bool directory = false;
  uint64_t size = 0;
  uint64_t device = 0, inode = 0;  // the file's identity (Windows: volume serial, file index)
  int64_t mtime_ns = 0;            // last modification, nanoseconds since 1970
};

// A descriptor opened for reading (binary), or -1 with `error` set.
int open_read(const std::string& path, int& error);
// The status of an open descriptor / of a path (not following a last symbolic link with
// `follow` false); false with errno set when it cannot be had.
bool status(int fd, FileStatus& out);
bool status(const std::string& path, FileStatus& out, bool follow = true);
// As read(2) and write(2): bytes moved, 0 at the end, -1 with errno (EINTR retried inside).
long long read(int fd, void* buffer, size_t size);
long long write(int fd, const void* data, size_t size);
int close(int fd);
int standard_input();   // in binary mode
int standard_output();  // in binary mode

// The whole file of `fd` (`size` bytes) mapped read-only, or null when it cannot be mapped (then
// read it). The mapping outlives the descriptor; unmap() with the same size.
const uint8_t* map_read(int fd, size_t size);
// `size` bytes of `fd`, allocated by allocate() first, mapped for writing; null when it cannot be.
uint8_t* map_write(int fd, size_t size);
void unmap(const void* address, size_t size);
// Tells the system a part of a read-only mapping will not be read again (its pages may go).
void discard_pages(const void* begin, const void* end);

// Allocates `size` bytes on the disk for `fd`: 0, ENOTSUP when the file system cannot allocate
// ahead (write the file the usual way), or another errno (a full disk).
int allocate(int fd, uint64_t size);

// A new temporary file in `folder` for the file named `base` there. `name` is empty when the file
// has no name while it is written (Linux's O_TMPFILE: a process killed meanwhile leaves nothing);
// name_temporary() names it once complete. Otherwise it is `.BASE.tmp-XXXXXX`. -1 with errno.
int create_temporary(const std::string& folder, const std::string& base, std::string& name);
// Gives the unnamed temporary `fd` the name `.BASE.tmp-XXXXXX` in `folder`; empty with errno.
std::string name_temporary(int fd, const std::string& folder, const std::string& base);
// Makes a finished temporary readable by all (POSIX 0644; nothing to do on Windows).
void make_readable(int fd);
// Flushes the file's data to the disk: 0 or errno (EINVAL / EROFS where it cannot be flushed).
int flush(int fd);
// Renames `from` over `to`, replacing a file there: 0 or errno.
int replace(const std::string& from, const std::string& to);
// Asks the system to drop the cached pages of the regular file at `path` (not followed if it is a
// symbolic link), if there is one: a file about to be replaced is then freed faster by replace().
// Best effort; nothing where it cannot be done.
void forget_cached(const std::string& path);
// Removes a file (not a folder): 0 or errno.
int remove_file(const std::string& path);
// Flushes the file system holding `folder` to the disk, once for many files (best effort).
void flush_file_system(const std::string& folder);

// The process' id, for names no other process makes.
uint64_t process_id();

// A new folder `prefix`XXXXXX (`prefix` a path), readable by this user only: its name, or empty
// with errno set.
std::string create_temporary_folder(const std::string& prefix);
// Whether this process runs as the superuser (POSIX: root; never on Windows).
bool superuser();

// A child process started by start_piped(), and our end of the stream joined to it.
struct PipedChild {
  int64_t id = -1;   // the process (POSIX: its pid); -1: none
  int stream = -1;   // our end: read() reads what the child writes; send() writes to it
};
// Starts `argv` (argv[0] looked for in PATH) with standard input, output and error on the null
// device, in a process group of its own (Ctrl-C on the terminal reaches meshport alone) and, on
// Linux, killed when meshport dies; its descriptors 3 (it reads) and 4 (it writes) are both the
// other end of one socket (Chromium's --remote-debugging-pipe). 0, or an errno value: ENOSYS on
// Windows, where it is not implemented yet.
int start_piped(const std::vector<std::string>& argv, PipedChild& out);
// Whether start_piped() works on this system (false on Windows, for now).
bool can_start_piped();
// As write() on the stream, but a child gone is -1 with EPIPE, never a signal.
long long send(int stream, const void* data, size_t size);
// Ends both directions of the stream: a read() blocked on it in another thread returns 0.
void shutdown(int stream);
// Waits up to `seconds` for the child to exit; kills it when it has not (and waits for that).
// Leaves `child.id` -1; closes nothing.
void end_child(PipedChild& child, double seconds);

// Opens `url` in the desktop's default browser without waiting for it (Linux: xdg-open; Windows:
// ShellExecuteW): 0, or an errno value when it could not be started.
int open_browser(const std::string& url);

}  // namespace meshport::os
