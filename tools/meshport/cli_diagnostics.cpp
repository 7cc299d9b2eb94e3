// How the CLI prints diagnostics (cli_diagnostics.h).
#include "cli_diagnostics.h"

#include <fmt/format.h>

#include <cstdio>

namespace meshport::cli {

void print_diagnostics(const Diagnostics& d) {
  for (const auto& item : d.items) fmt::print(stderr, "{}\n", item.to_string());
  if (d.dropped) fmt::print(stderr, "note: {} more diagnostics not shown\n", d.dropped);
}

}  // namespace meshport::cli
