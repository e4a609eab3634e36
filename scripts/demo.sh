#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and simplify the bundled dirty model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
mkdir -p build/demo
echo "== onnxtrim examples/dirty.onnx build/demo/dirty.simplified.onnx"
build/onnxtrim examples/dirty.onnx build/demo/dirty.simplified.onnx "$@"
