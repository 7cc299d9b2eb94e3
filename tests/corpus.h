// The sample files of ../shared/corpus (MESHPORT_CORPUS: the folder beside the repository, as in CI
// and the project's workspace). A plain clone has no ../shared: every test that reads the corpus
// starts with REQUIRE_CORPUS(), which skips it with the reason when the folder is absent. gtest
// prints "[  SKIPPED ]" with that reason, and gtest_discover_tests gives each test the matching
// SKIP_REGULAR_EXPRESSION, so CTest counts it as skipped ("***Skipped", "N tests skipped"), not
// as passed. Where the corpus is present the macro does nothing: the test runs as before.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>

namespace testutil {
inline bool have_corpus() { return std::filesystem::is_directory(MESHPORT_CORPUS); }
}  // namespace testutil

#define REQUIRE_CORPUS()     \
  if (!testutil::have_corpus()) \
  GTEST_SKIP() << "needs ../shared/corpus (the sample models beside the repository), not found at " << MESHPORT_CORPUS
