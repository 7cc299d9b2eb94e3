// The terminal, for the CLI alone (terminal.cpp: POSIX and Windows): whether a stream is one, its
// width, and a message written from a signal handler.
#pragma once

#include <cstddef>
#include <cstdio>

namespace meshport::cli {

bool is_terminal(std::FILE* f);
// Columns of the terminal `f` writes to; 80 when it cannot be told (or is under 20).
size_t terminal_width(std::FILE* f);
// Writes `size` bytes to standard error without locking or allocating (safe in a signal handler).
void write_stderr_now(const char* text, size_t size);

}  // namespace meshport::cli
