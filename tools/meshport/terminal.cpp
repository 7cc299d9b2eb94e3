// The terminal (terminal.h).
#include "terminal.h"

#if defined(_WIN32)
#include <io.h>
#include <windows.h>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

namespace meshport::cli {

#if defined(_WIN32)

bool is_terminal(std::FILE* f) { return _isatty(_fileno(f)) != 0; }

size_t terminal_width(std::FILE* f) {
  CONSOLE_SCREEN_BUFFER_INFO info;
  const HANDLE h = reinterpret_cast<HANDLE>(_get_osfhandle(_fileno(f)));
  if (GetConsoleScreenBufferInfo(h, &info)) {
    const int columns = info.srWindow.Right - info.srWindow.Left + 1;
    if (columns >= 20) return size_t(columns);
  }
  return 80;
}

void write_stderr_now(const char* text, size_t size) { [[maybe_unused]] int n = _write(2, text, unsigned(size)); }

#else

bool is_terminal(std::FILE* f) { return isatty(fileno(f)) == 1; }

size_t terminal_width(std::FILE* f) {
  winsize w{};
  if (ioctl(fileno(f), TIOCGWINSZ, &w) == 0 && w.ws_col >= 20) return w.ws_col;
  return 80;
}

void write_stderr_now(const char* text, size_t size) { [[maybe_unused]] auto n = ::write(2, text, size); }

#endif

}  // namespace meshport::cli
