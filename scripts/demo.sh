#!/usr/bin/env bash
# Quick start 1: install what building needs, build only the CLI (Release, no debug info), and
# simplify the bundled dirty model with the check on; prints the before/after report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --build
if [ ! -f build-release/CMakeCache.txt ]; then
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DONNXTRIM_BUILD_TESTS=OFF \
    -DONNXTRIM_BUILD_BENCH=OFF -DONNXTRIM_BUILD_PYTHON=OFF -DONNXTRIM_UNITY_BUILD=ON >/dev/null
fi
cmake --build build-release -j"${JOBS:-2}" --target onnxtrim_cli >/dev/null
mkdir -p build-release/demo
echo "== onnxtrim examples/dirty.onnx build-release/demo/dirty.simplified.onnx"
build-release/onnxtrim examples/dirty.onnx build-release/demo/dirty.simplified.onnx "$@"
