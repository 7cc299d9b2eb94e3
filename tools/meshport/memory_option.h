// --max-memory, on every command that reads a model: the most memory a read may build the model
// into (ReadOptions::max_memory; docs/limits.md, "Memory budget").
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace meshport::cli {

// Adds --max-memory SIZE to `cmd`, stored as typed in `value`.
void add_max_memory_option(CLI::App* cmd, std::string& value);
// SIZE in bytes: a whole number, optionally followed by K, M, G or T (powers of 1024; "KiB", "MB",
// ... likewise); "" gives 0 (the default). Throws CLI::ValidationError otherwise.
uint64_t parse_max_memory(const std::string& value);

}  // namespace meshport::cli
