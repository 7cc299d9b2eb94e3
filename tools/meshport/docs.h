// The man page and the bash completion, generated from the CLI11 App itself (the hidden
// `meshport gendocs man|bash`), so that neither can drift from the options the CLI parses.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace meshport::cli {

struct DocsArgs {
  std::string kind;    // "man" or "bash"
  std::string output;  // a file; empty: standard output
};

// Adds the hidden `gendocs` command (no help line, no man page entry, no completion).
CLI::App* add_docs_command(CLI::App& app, DocsArgs& args);
// Writes what `args` asks for about `app` (all its commands, as added by then); exit code.
int run_docs(const CLI::App& app, const DocsArgs& args, std::string_view version);

// meshport.1 in roff (man(7) macros).
std::string man_page(const CLI::App& app, std::string_view version);
// A bash completion script defining `_meshport` and registering it for `meshport`.
std::string bash_completion(const CLI::App& app);

}  // namespace meshport::cli
