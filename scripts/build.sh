#!/usr/bin/env bash
# Configures and builds onnxtrim in build/ (two jobs: these machines have two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build -j"${JOBS:-2}"
