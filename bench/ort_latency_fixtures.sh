#!/bin/sh
# The latency table of the README and bench/README.md (issue 31): every transformer fixture in
# ONNX Runtime, one thread, one core, interleaved in one process: the original at levels
# disabled and all; onnxtrim --opset 23 without the standard-op fusions ("nofuse") and with them
# ("fused"), each at levels all and disabled. llama_tiny, rope_interleaved_tiny (llama_tiny with
# GPT-J's partial interleaved rotary) and gpt_kv_tiny at prefill (seq 128,
# empty cache) and decode (seq 1 over a 1,024-token cache); bert (seq 64, its longest) and vit at
# opset 13 and 17.
#
#   sh bench/ort_latency_fixtures.sh [OUT_DIR] [SECONDS]     (default /tmp/ort_latency, 10 s a table)
#
# About 10 x (SECONDS + 10) s of one core. CPU=N picks the core (default 1; CPU=all: no pinning);
# THREADS=both also times ONNX Runtime's default thread count (with CPU=all). Each table's rows,
# and a JSON per table, go to OUT_DIR; the summary (fused@all's paired speedup over the original
# at level all, per case) is printed last.
set -e
cd "$(dirname "$0")/.."
out=${1:-/tmp/ort_latency}
secs=${2:-10}
cpu=${CPU:-1}
threads=${THREADS:-1}
pin="--cpu $cpu"
[ "$cpu" = all ] && pin=""
py=/usr/bin/python3
fusions=fuse_attention,fuse_rotary_embedding,fuse_rms_normalization,fuse_gelu,fuse_layer_normalization
mkdir -p "$out"
for f in llama_tiny rope_interleaved_tiny gpt_kv_tiny bert_tiny bert_tiny_op13 vit_tiny vit_tiny_op13; do
  build/onnxtrim "tests/models/$f.onnx" "$out/${f}_fused.onnx" --opset 23 > "$out/${f}_fused.log"
  build/onnxtrim "tests/models/$f.onnx" "$out/${f}_nofuse.onnx" --opset 23 --skip $fusions > "$out/${f}_nofuse.log"
done
run() {  # NAME MODEL DIMS
  $py bench/ort_latency.py "tests/models/$2.onnx" "nofuse=$out/$2_nofuse.onnx" "fused=$out/$2_fused.onnx" \
    --dims "$3" --int input_ids=0:100 --int position_ids=0:1024 $pin --threads "$threads" --seconds "$secs" \
    --levels all,disabled --json "$out/$1.json" --title "$1 ($3)"
  echo
}
run llama_prefill llama_tiny batch=1,seq=128,past_seq=0
run llama_decode llama_tiny batch=1,seq=1,past_seq=1024
run rope_il_prefill rope_interleaved_tiny batch=1,seq=128,past_seq=0
run rope_il_decode rope_interleaved_tiny batch=1,seq=1,past_seq=1024
run gpt_prefill gpt_kv_tiny batch=1,seq=128,past_seq=0
run gpt_decode gpt_kv_tiny batch=1,seq=1,past_seq=1024
run bert_op17 bert_tiny batch=1,seq=64
run bert_op13 bert_tiny_op13 batch=1,seq=64
run vit_op17 vit_tiny batch=1
run vit_op13 vit_tiny_op13 batch=1
$py - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
print(f"{'case':16} {'nodes':>13} {'nofuse@all':>11} {'fused@all':>10} {'fused@disabled':>15}")
for case in ["llama_prefill", "llama_decode", "rope_il_prefill", "rope_il_decode", "gpt_prefill", "gpt_decode", "bert_op17", "bert_op13", "vit_op17", "vit_op13"]:
    p = os.path.join(out, case + ".json")
    if not os.path.exists(p):
        continue
    rows = {r["name"].split("/")[0]: r for r in json.load(open(p))["variants"] if r["threads"] == 1}
    def paired(v):
        r = rows.get(v)
        return f"{r['paired_speedup']:.2f}x" if r else "-"
    nodes = f"{rows['original@all']['nodes']} -> {rows['fused@all']['nodes']}"
    print(f"{case:16} {nodes:>13} {paired('nofuse@all'):>11} {paired('fused@all'):>10} {paired('fused@disabled'):>15}")
EOF
