// The hostile-input suite's runner (tests/hostile/README.md): every file listed in a format
// folder's cases.tsv is read and must give exactly the result written beside it.
#pragma once

#include <meshport/meshport.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace hostile {

// tests/hostile
std::filesystem::path root();

// `text` with every occurrence of root() + "/" removed, so messages name "iqm/x.iqm".
std::string relative(std::string text);

// Checks every case of tests/hostile/<folder>/cases.tsv, and that every file at the top of the
// folder is a case (side files live in subfolders). Returns the number of cases.
size_t run_cases(const std::string& folder);

// What reading `path` gave: "error\t<message>" or "ok" followed by "\twarning\t<message>" per
// warning, messages relative to root().
std::string outcome(const std::filesystem::path& path);

}  // namespace hostile
