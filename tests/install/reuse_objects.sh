#!/bin/sh
# Compiler launcher of CTest's InstallDemoTree (run_demo_install_test.cmake): that test builds a
# folder the way `make demo` does, and this launcher makes it cheap. An object file the tested
# build already compiled from the same source (same path below its build folder) is copied
# instead of compiled again (the demo's -O1 objects link like the -O3 ones); anything else (the
# precompiled header, a source the tested build has no object of) is compiled.
# Usage (CMAKE_CXX_COMPILER_LAUNCHER): reuse_objects.sh FROM_BUILD TO_BUILD COMPILER ARGS...
from=$1 to=$2
shift 2
out= depfile= prev=
for arg in "$@"; do
  case $prev in
    -o) out=$arg ;;
    -MF) depfile=$arg ;;
  esac
  prev=$arg
done
case $out in
  /*) abs=$out ;;
  *) abs=$PWD/$out ;;
esac
rel=${abs#"$to"/}
case $rel in
  /*|*.gch|*.pch) ;;
  *.o)
    if [ -f "$from/$rel" ]; then
      cp "$from/$rel" "$out" || exit 1
      if [ -n "$depfile" ]; then
        if [ -f "$from/$rel.d" ]; then cp "$from/$rel.d" "$depfile"; else printf '%s:\n' "$rel" >"$depfile"; fi
      fi
      exit 0
    fi ;;
esac
exec "$@"
