#!/usr/bin/env bash
# A campaign of the graph fuzzer (tests/fuzz_graphs/): N random exporter-like graphs (default
# 200), each simplified (default pipeline, --target coreml, dims fixed) and compared with the
# original in ONNX Runtime and in onnxtrim's evaluator. Each failure is reduced to a minimal model
# and saved, with the case and a description, under build-fuzz-graphs/<start seed>/; known defects
# (tests/fuzz_graphs/known.py) are recognised and listed apart.
#   scripts/fuzz_graphs.sh 500            500 cases from a seed taken from the clock
#   START=1000 scripts/fuzz_graphs.sh 50  seeds 1000..1049 (reproducible)
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${1:-200}"
START="${START:-$(( $(date +%s) % 1000000 * 1000 ))}"
if [ ! -x build/onnxtrim ]; then
  bash scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build -j"${JOBS:-2}" --target onnxtrim_cli >/dev/null
OUT="build-fuzz-graphs/$START"
mkdir -p "$OUT"
echo "fuzz_graphs: seeds $START..$((START + COUNT - 1)), failures saved to $OUT"
/usr/bin/python3 tests/fuzz_graphs/fuzz_graphs.py build/onnxtrim --start "$START" --count "$COUNT" \
  --out "$OUT" --jobs "${JOBS:-2}" --reduce-budget "${REDUCE_BUDGET:-180}"
