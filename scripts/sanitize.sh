#!/usr/bin/env bash
# The sanitizer run of the test suite (ctest's sanitize.asan; run it alone as
# scripts/sanitize.sh): the CLI and the unit, op and rewrite tests built with AddressSanitizer
# and UndefinedBehaviorSanitizer in build-asan/ (Debug, so the IR's asserts are on, at -O0: the
# sanitizers' instrumentation at -O1 doubles the compile time, more than -O0 costs the runs; the
# library's and the tests' sources in batches), then
#   1. every gtest,
#   2. the models of tests/models/regressions through the sanitized CLI, with and without the
#      check: each must be simplified and written (exit 0),
#   3. a short generated-graph campaign (tests/fuzz_graphs) through the sanitized CLI.
# Any sanitizer report stops the process that made it and fails the run.
#   SEEDS=0:100 scripts/sanitize.sh    the campaign's seeds (default 0:60)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
# Configured every time (a no-op when nothing changed), so that a build-asan/ of other flags
# takes these.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
  -DONNXTRIM_SANITIZE=ON -DONNXTRIM_UNITY_BUILD=ON -DONNXTRIM_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$JOBS" --target onnxtrim_cli onnxtrim_tests >/dev/null

export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
CLI=build-asan/onnxtrim

# 1. Every gtest, in $JOBS shards side by side.
pids=()
for ((i = 0; i < JOBS; i++)); do
  GTEST_TOTAL_SHARDS=$JOBS GTEST_SHARD_INDEX=$i build-asan/tests/onnxtrim_tests --gtest_brief=1 \
    >"build-asan/gtest.$i.log" 2>&1 &
  pids+=($!)
done
fail=0
for ((i = 0; i < JOBS; i++)); do
  if ! wait "${pids[$i]}"; then
    fail=1
    echo "sanitize: gtest shard $i failed:"
    tail -n 60 "build-asan/gtest.$i.log"
  fi
done
((fail == 0)) || exit 1
echo "sanitize: gtests: $(grep -h '^\[  PASSED  \]' build-asan/gtest.*.log | tr '\n' ' ')"

# 2. The regression models.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in tests/models/regressions/*.onnx; do
  for flag in "" --no-verify; do
    if ! "$CLI" "$m" "$tmp/out.onnx" --quiet $flag 2>"$tmp/err"; then
      echo "sanitize: $CLI $m $flag failed:"
      head -c 4000 "$tmp/err"
      exit 1
    fi
  done
done
echo "sanitize: regression models passed"

# 3. Generated graphs through the sanitized CLI.
/usr/bin/python3 tests/fuzz_graphs/fuzz_graphs.py "$CLI" --seeds "${SEEDS:-0:60}" --jobs "$JOBS" --no-reduce
