// How the CLI's commands print diagnostics, and name the input in the messages of library steps
// that do not know it.
#pragma once

#include <meshport/diagnostics.h>

#include <string>
#include <type_traits>

namespace meshport::cli {

// Every diagnostic on standard error, then how many were left out.
void print_diagnostics(const Diagnostics& d);

// Runs `step`, a library call about `file` whose messages name no file (compute_modes,
// simulate): the diagnostics in `d` and an Error it throws get `file` where they name none.
template <class Step>
auto about_file(const std::string& file, Diagnostics& d, Step&& step) -> decltype(step()) {
  auto name = [&] {
    for (Diagnostic& item : d.items)
      if (item.file.empty()) item.file = file;
  };
  try {
    if constexpr (std::is_void_v<decltype(step())>) {
      step();
      name();
    } else {
      auto result = step();
      name();
      return result;
    }
  } catch (const Error& e) {
    name();
    Diagnostic located = e.diagnostic();
    if (located.file.empty()) located.file = file;
    throw Error(located);
  }
}

}  // namespace meshport::cli
