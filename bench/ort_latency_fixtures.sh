#!/bin/sh
# The latency table of bench/README.md (issue 31): llama_tiny and gpt_kv_tiny at prefill (seq
# 128, empty cache) and decode (seq 1 over a 1,024-token cache), ONNX Runtime, one thread, one
# core: the original at levels disabled and all, onnxtrim's output (build/onnxtrim) at all and
# disabled, and the same models written by hand with the opset-23 standard ops
# (bench/standard_ops_probe.py) at level all: what the fusions of issue 31 aim at.
#
#   sh bench/ort_latency_fixtures.sh [OUT_DIR] [SECONDS]     (default /tmp/ort_latency, 20 s a table)
#
# About 4 x (SECONDS + 10) s of one core. CPU=N picks the core (default 1).
set -e
cd "$(dirname "$0")/.."
out=${1:-/tmp/ort_latency}
secs=${2:-20}
cpu=${CPU:-1}
py=/usr/bin/python3
mkdir -p "$out"
for f in llama_tiny gpt_kv_tiny; do
  build/onnxtrim "tests/models/$f.onnx" "$out/${f}_onnxtrim.onnx" > "$out/${f}_onnxtrim.log"
done
$py bench/standard_ops_probe.py --llama --gpt --no-probes --out-dir "$out" > "$out/standard_ops.log"
for f in llama_tiny gpt_kv_tiny; do
  if [ $f = llama_tiny ]; then std="std23=$out/llama_tiny_std23_3d.onnx"; else std="std23=$out/gpt_kv_tiny_std23.onnx"; fi
  for mode in prefill decode; do
    if [ $mode = prefill ]; then dims=batch=1,seq=128,past_seq=0; else dims=batch=1,seq=1,past_seq=1024; fi
    $py bench/ort_latency.py "tests/models/$f.onnx" "onnxtrim=$out/${f}_onnxtrim.onnx" "$std" \
      --dims $dims --int input_ids=0:128 --int position_ids=0:1024 --cpu "$cpu" --seconds "$secs" \
      --json "$out/${f}_$mode.json" --title "$f $mode ($dims)"
    echo
  done
done
