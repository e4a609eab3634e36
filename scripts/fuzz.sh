#!/usr/bin/env bash
# Builds the loader fuzzer with clang (libFuzzer + AddressSanitizer + UBSan, which also
# reports leaks) in build-fuzz/ and runs it for the given number of seconds (default 20),
# starting from the bundled and backend-test models. Any crash, leak or sanitizer report fails.
#   scripts/fuzz.sh 20        short run (part of the test suite)
#   scripts/fuzz.sh 3600      a longer campaign
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-20}"
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DONNXTRIM_FUZZ=ON \
    -DONNXTRIM_SANITIZE=ON -DONNXTRIM_BUILD_TESTS=OFF -DONNXTRIM_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-fuzz -j"${JOBS:-2}" --target load_fuzzer >/dev/null
corpus=build-fuzz/corpus
mkdir -p "$corpus"
if [ -z "$(ls -A "$corpus")" ]; then
  cp examples/*.onnx "$corpus"/ 2>/dev/null || true
  data="${ONNXTRIM_TEST_DATA:-../shared/onnx-tests}"
  if [ -d "$data" ]; then
    i=0
    for f in "$data"/node/test_{add,if,loop,scan,constant,reshape,split,sequence_insert,optional,cast}*/model.onnx \
             "$data"/simple/*/model.onnx; do
      [ -f "$f" ] || continue
      cp "$f" "$corpus/seed_$i.onnx"; i=$((i + 1))
    done
  fi
fi
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
build-fuzz/load_fuzzer -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=4096 -malloc_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$corpus" 2>&1 | tail -n 12
