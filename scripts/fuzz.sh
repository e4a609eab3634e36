#!/usr/bin/env bash
# Builds the fuzzers with clang (libFuzzer + AddressSanitizer + UBSan, which also reports
# leaks) in build-fuzz/, once for both, and runs one of them for the given number of seconds
# (default 20), starting from the bundled and backend-test models. Any crash, leak, hang,
# sanitizer report or internal error fails; the input that caused it is saved in build-fuzz/.
#   scripts/fuzz.sh 20 load         the loader alone (fuzz/load_fuzzer.cc)
#   scripts/fuzz.sh 20 pipeline     load -> simplify -> save -> load (fuzz/pipeline_fuzzer.cc)
#   scripts/fuzz.sh 3600 pipeline   a longer campaign
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-20}"
TARGET="${2:-load}"
case "$TARGET" in
  load | pipeline) ;;
  *) echo "fuzz.sh: unknown target '$TARGET' (load or pipeline)" >&2; exit 2 ;;
esac
mkdir -p build-fuzz
(
  # One build for both fuzzers, even when two runs start together.
  flock 9
  if [ ! -f build-fuzz/CMakeCache.txt ]; then
    # -O1 with line tables only: the usual fuzzing trade (fast enough to run, quick to build,
    # stack traces with lines). No -DNDEBUG: the IR's internal assertions are bugs found too.
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DONNXTRIM_FUZZ=ON \
      -DONNXTRIM_SANITIZE=ON -DONNXTRIM_BUILD_TESTS=OFF -DONNXTRIM_BUILD_BENCH=OFF >/dev/null
  fi
  cmake --build build-fuzz -j"${JOBS:-2}" --target load_fuzzer pipeline_fuzzer >/dev/null
) 9>build-fuzz/.build-lock

corpus=build-fuzz/corpus
[ "$TARGET" = pipeline ] && corpus=build-fuzz/corpus-pipeline
mkdir -p "$corpus"
if [ -z "$(ls -A "$corpus")" ]; then
  cp examples/*.onnx "$corpus"/ 2>/dev/null || true
  data="${ONNXTRIM_TEST_DATA:-../shared/onnx-tests}"
  if [ -d "$data" ]; then
    i=0
    for f in "$data"/node/test_{add,if,loop,scan,constant,reshape,split,sequence_insert,optional,cast}*/model.onnx \
             "$data"/node/test_{range,expand,tile,slice,gather,concat,shape,squeeze,unsqueeze,transpose,where,pad}*/model.onnx \
             "$data"/simple/*/model.onnx; do
      [ -f "$f" ] || continue
      cp "$f" "$corpus/seed_$i.onnx"; i=$((i + 1))
    done
  fi
fi
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
build-fuzz/${TARGET}_fuzzer -max_total_time="$SECONDS_TO_RUN" -timeout=25 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -dict=fuzz/onnx.dict -artifact_prefix=build-fuzz/"$TARGET"- "$corpus" 2>&1 | tail -n 12
