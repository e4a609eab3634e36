#!/usr/bin/env bash
# Fuzzes the loader or the whole pipeline for the given number of seconds (default 20),
# starting from the bundled and backend-test models. Any crash, leak, hang, sanitizer report or
# internal error fails; the input that caused it is saved in build-fuzz/.
#   scripts/fuzz.sh 20 load         the loader alone (fuzz/load_fuzzer.cc)
#   scripts/fuzz.sh 20 pipeline     load -> simplify -> save -> load (fuzz/pipeline_fuzzer.cc)
#   scripts/fuzz.sh 3600 pipeline   a longer campaign
# The libFuzzer run's whole log is build-fuzz/<target>.log (the terminal gets its last lines).
# FUZZ_FLAGS adds libFuzzer flags, e.g. FUZZ_FLAGS="-fork=1 -ignore_crashes=1" for a campaign
# that goes on after a crash, saving each crashing input; JOBS sets the build's parallelism (2).
# Both build their fuzzer with clang (libFuzzer + AddressSanitizer + UBSan, which also reports
# leaks) in build-fuzz/, each only the fuzzer it runs: the loader's is the IR and the loader,
# the pipeline's is the whole library, compiled in batches.
#   scripts/fuzz.sh 10 pipeline BUILD/pipeline_fuzz_mutate
# runs the pipeline target through the mutation driver of an ordinary build instead
# (fuzz/mutate_main.cc: no clang build, no coverage feedback, no sanitizers); the test suite's
# fuzz.pipeline_short does this, and saves what it finds in that build's folder.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-20}"
TARGET="${2:-load}"
DRIVER="${3:-}"
case "$TARGET" in
  load | pipeline) ;;
  *) echo "fuzz.sh: unknown target '$TARGET' (load or pipeline)" >&2; exit 2 ;;
esac

# The seeds: the bundled example and a slice of the backend tests that exercises subgraphs,
# sequences, shape plumbing and the generators folding must bound.
seeds() {
  ls examples/*.onnx tests/models/{custom_gelu,fusions_tiny,squeeze_ifs,unsorted_tiny}.onnx 2>/dev/null || true
  # Inputs that once crashed the pipeline (minimized), replayed by every run.
  ls fuzz/regressions/*.onnx 2>/dev/null || true
  local data="${ONNXTRIM_TEST_DATA:-../shared/onnx-tests}"
  if [ ! -d "$data" ]; then
    echo "fuzz.sh: no ONNX test data in $data (set ONNXTRIM_TEST_DATA): seeding with the bundled models only" >&2
    return 0
  fi
  local f
  for f in "$data"/node/test_{add,if,loop,scan,constant,reshape,split,sequence_insert,optional,cast}*/model.onnx \
           "$data"/node/test_{range,expand,tile,slice,gather,concat,shape,squeeze,unsqueeze,transpose,where,pad}*/model.onnx \
           "$data"/simple/*/model.onnx; do
    [ -f "$f" ] && echo "$f"
  done
  return 0
}

if [ -n "$DRIVER" ]; then
  [ "$TARGET" = pipeline ] || { echo "fuzz.sh: the mutation driver runs the pipeline target only" >&2; exit 2; }
  mapfile -t files < <(seeds)
  exec "$DRIVER" -max_total_time="$SECONDS_TO_RUN" -timeout=25 -max_len=65536 -seed="${FUZZ_SEED:-1}" \
    -dict=fuzz/onnx.dict -artifact_prefix="$(dirname "$DRIVER")/pipeline-" "${files[@]}"
fi

mkdir -p build-fuzz
(
  # One build tree for both fuzzers, even when two runs start together.
  flock 9
  if [ ! -f build-fuzz/CMakeCache.txt ]; then
    # -O1 with line tables only: the usual fuzzing trade (fast enough to run, quick to build,
    # stack traces with lines). No -DNDEBUG: the IR's internal assertions are bugs found too.
    # The operators compile in batches (unity build): the pipeline fuzzer's build is the whole library.
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DONNXTRIM_FUZZ=ON -DONNXTRIM_UNITY_BUILD=ON \
      -DONNXTRIM_SANITIZE=ON -DONNXTRIM_BUILD_TESTS=OFF -DONNXTRIM_BUILD_BENCH=OFF >/dev/null
  fi
  cmake --build build-fuzz -j"${JOBS:-2}" --target "${TARGET}_fuzzer" >/dev/null
) 9>build-fuzz/.build-lock

corpus=build-fuzz/corpus
[ "$TARGET" = pipeline ] && corpus=build-fuzz/corpus-pipeline
mkdir -p "$corpus"
if [ -z "$(ls -A "$corpus")" ]; then
  i=0
  while read -r f; do
    cp "$f" "$corpus/seed_$i.onnx"; i=$((i + 1))
  done < <(seeds)
fi
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Limits: 10 s per input, 2 GB of memory in all and per allocation (the pipeline target bounds
# its own work far below both), inputs up to 64 KB (the largest seed is 12 KB).
# shellcheck disable=SC2086
build-fuzz/${TARGET}_fuzzer -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -dict=fuzz/onnx.dict -artifact_prefix=build-fuzz/"$TARGET"- ${FUZZ_FLAGS:-} \
  "$corpus" >build-fuzz/"$TARGET".log 2>&1 || status=$?
tail -n 12 build-fuzz/"$TARGET".log
exit "${status:-0}"
