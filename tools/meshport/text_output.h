// Text files the CLI writes beside models (reports, traces): whole or not at all.
#pragma once

#include <string>

namespace meshport::cli {

// Writes `text` to `path` through a temporary file renamed into place, so a failure leaves no
// partial file. Throws meshport::Error naming `path` when it cannot be written.
void write_text(const std::string& path, const std::string& text);

}  // namespace meshport::cli
