#!/usr/bin/env bash
# Configures and builds onnxtrim in build/ (two jobs: these machines have two cores). The
# library's sources compile in batches (ONNXTRIM_UNITY_BUILD): a from-scratch build takes
# minutes instead of most of an hour on two cores. Debug information is line tables only (-g1:
# backtraces and profiles keep their lines; a third less time per file than -g).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DONNXTRIM_UNITY_BUILD=ON >/dev/null
fi
cmake --build build -j"${JOBS:-2}"
