#!/usr/bin/env bash
# Quick start 1: install what building needs, build only the CLI (Release, no debug info, the
# library's sources compiled in batches), and simplify the bundled dirty model with the check
# on; prints the before/after report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --build
configure() {
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DONNXTRIM_BUILD_TESTS=OFF \
    -DONNXTRIM_BUILD_BENCH=OFF -DONNXTRIM_BUILD_PYTHON=OFF -DONNXTRIM_UNITY_BUILD="$1" >/dev/null
}
[ -f build-release/CMakeCache.txt ] || configure ON
if ! cmake --build build-release -j"${JOBS:-2}" --target onnxtrim_cli >/dev/null 2>build-release.log; then
  # A batch that does not compile (two files' local helpers of one name): one file at a time.
  echo "demo: the batched build failed (see build-release.log); building file by file"
  configure OFF
  cmake --build build-release -j"${JOBS:-2}" --target onnxtrim_cli >/dev/null
fi
rm -f build-release.log
mkdir -p build-release/demo
echo "== onnxtrim examples/dirty.onnx build-release/demo/dirty.simplified.onnx"
build-release/onnxtrim examples/dirty.onnx build-release/demo/dirty.simplified.onnx "$@"
