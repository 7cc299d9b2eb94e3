#!/bin/sh
# CTest wrapper of the script tests that read ../shared/corpus (tests/CMakeLists.txt,
# meshport_corpus_test): runs the test's command when the corpus folder exists; without it prints
# the reason and exits 77, the tests' SKIP_RETURN_CODE, so CTest reports the test as skipped
# ("***Skipped", counted in "N tests skipped") instead of failing on a missing file.
# Usage: needs_corpus.sh CORPUS_DIR COMMAND [ARGS...]
corpus=$1
shift
if [ ! -d "$corpus" ]; then
  echo "skipped: needs ../shared/corpus (the sample models beside the repository), not found at $corpus"
  exit 77
fi
exec "$@"
