#!/usr/bin/env bash
# Quick start 2: install what is missing, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j"${JOBS:-2}" "$@"
