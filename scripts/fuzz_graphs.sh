#!/usr/bin/env bash
# A campaign of the graph fuzzer (tests/fuzz_graphs/): N random exporter-like graphs (default
# 200), each simplified (default pipeline with and without the check, --target coreml, dims
# fixed) and compared with the original in ONNX Runtime and in onnxtrim's evaluator. Each failure
# is reduced to a minimal model and saved, with the case and a description, in the campaign's
# folder; known defects (tests/fuzz_graphs/known.py) are recognised and listed apart.
#   scripts/fuzz_graphs.sh 500            500 cases from a seed taken from the clock
#   START=1000 scripts/fuzz_graphs.sh 50  seeds 1000..1049 (reproducible)
#   START=1000000 OUT=build-fuzz-graphs/long scripts/fuzz_graphs.sh 10000
#                                         a long campaign: the seeds run in pieces of PIECE
#                                         (default 500), each in OUT/piece-<first seed>/ with its
#                                         log and summary.json; run the same command again and
#                                         the pieces that finished are skipped (a stopped piece
#                                         is redone whole)
# At the end tests/fuzz_graphs/summarize.py merges the pieces into OUT/summary.json (cases,
# nodes, failures by kind, known defects, features, seconds, failed seeds) and prints the totals;
# the last line reads `fuzz_graphs campaign: N passed, N failed`. It can be run alone at any time:
#   python3 tests/fuzz_graphs/summarize.py OUT --start S --count N
# Settings (environment): START, OUT (default build-fuzz-graphs/<START>), PIECE, JOBS (parallel
# cases, default 2), REDUCE_BUDGET (seconds per failure, default 180), BUILD=0 (use the CLI
# already built), ONNXTRIM (the CLI, default build/onnxtrim).
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${1:-200}"
START="${START:-$(( $(date +%s) % 1000000 * 1000 ))}"
PIECE="${PIECE:-500}"
JOBS="${JOBS:-2}"
ONNXTRIM="${ONNXTRIM:-build/onnxtrim}"
OUT="${OUT:-build-fuzz-graphs/$START}"
if [ "${BUILD:-1}" != 0 ]; then
  if [ ! -x build/onnxtrim ]; then
    bash scripts/setup.sh
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  cmake --build build -j"$JOBS" --target onnxtrim_cli >/dev/null
fi
[ -x "$ONNXTRIM" ] || { echo "fuzz_graphs: no CLI at $ONNXTRIM" >&2; exit 2; }
mkdir -p "$OUT"
END=$((START + COUNT))
echo "fuzz_graphs: seeds $START..$((END - 1)) in pieces of $PIECE, $JOBS jobs, results in $OUT"
t0=$(date +%s)
for ((s = START; s < END; s += PIECE)); do
  n=$(( END - s < PIECE ? END - s : PIECE ))
  dir="$OUT/piece-$s"
  if [ -f "$dir/summary.json" ]; then
    echo "fuzz_graphs: piece $s..$((s + n - 1)) done before, skipped"
    continue
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  # exit 1 (a failure not in known.py) does not stop the campaign; the summary counts it
  rc=0
  /usr/bin/python3 tests/fuzz_graphs/fuzz_graphs.py "$ONNXTRIM" --start "$s" --count "$n" --out "$dir" --jobs "$JOBS" \
    --reduce-budget "${REDUCE_BUDGET:-180}" > "$dir/log.txt" 2>&1 || rc=$?
  grep -v '^fuzz_graphs: default pipeline' "$dir/log.txt" | tail -n 30 | grep -E '^seed |^fuzz_graphs: [0-9]+ cases|passed' || true
  if [ "$rc" -gt 1 ] || [ ! -f "$dir/summary.json" ]; then
    echo "fuzz_graphs: piece $s stopped (exit $rc); see $dir/log.txt" >&2
    tail -n 5 "$dir/log.txt" >&2
    exit $(( rc > 1 ? rc : 3 ))
  fi
  echo "fuzz_graphs: $(( s + n - START )) of $COUNT seeds, $(( $(date +%s) - t0 )) s"
done
echo "fuzz_graphs: wall time of this run $(( $(date +%s) - t0 )) s"
/usr/bin/python3 tests/fuzz_graphs/summarize.py "$OUT" --start "$START" --count "$COUNT"
