#!/usr/bin/env bash
# Builds and runs the benchmarks (not part of the test suite). Figures are ratios measured in
# one run: these machines are shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
echo "== load+save vs plain protobuf, peak memory vs file size"
build/bench/io_bench
echo "== default pipeline, shape inference and folding on synthetic graphs"
build/bench/pass_bench
