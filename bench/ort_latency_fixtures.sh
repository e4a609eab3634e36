#!/bin/sh
# The latency tables of the README, bench/README.md and docs/performance.md (issue 31): every
# transformer fixture in ONNX Runtime, interleaved in one process: the original at levels
# disabled and all; onnxtrim --opset 23 without the standard-op fusions ("nofuse") and with them
# ("fused"), each at levels all and disabled. llama_tiny, rope_interleaved_tiny (llama_tiny with
# GPT-J's partial interleaved rotary) and gpt_kv_tiny at prefill (seq 128, empty cache) and
# decode (seq 1 over a 1,024-token cache); gptj_tiny (GPT-J's own rotary layout) at prefill 128
# and decode over 300 cached; bert (seq 64, its longest) and vit at opset 13 and 17;
# fp16_norms_tiny (HF's float16 RMSNorm, seq 128; with a third variant "trt": --target tensorrt
# --opset 23, which fuses it into float16 RMSNormalization, off by default). Then
# groupnorm_unet_tiny (GroupNorm +
# SiLU blocks, batch 2): onnxtrim's default output ("default": no GroupNormalization/Swish) and
# --target tensorrt --opset 24 ("trt": GroupNormalization-21 and Swish-24, which ONNX Runtime runs
# as function bodies).
#
#   sh bench/ort_latency_fixtures.sh [OUT_DIR] [SECONDS]     (default /tmp/ort_latency, 10 s a table)
#
# About 11 x (SECONDS + 10) s. CPU=N picks the core (default 1; CPU=all: no pinning);
# THREADS=both also times ONNX Runtime's default thread count (with CPU=all), THREADS=default
# only that. ONNXTRIM=PATH picks the CLI (default build/onnxtrim); CASES="llama_decode bert_op17"
# runs only those tables. Each table's rows, and a JSON per table, go to OUT_DIR; the summary
# (each variant's paired speedup over the original at level all, per case and thread setting)
# is printed last.
set -e
cd "$(dirname "$0")/.."
out=${1:-/tmp/ort_latency}
secs=${2:-10}
cpu=${CPU:-1}
threads=${THREADS:-1}
bin=${ONNXTRIM:-build/onnxtrim}
cases=${CASES:-"llama_prefill llama_decode rope_il_prefill rope_il_decode gpt_prefill gpt_decode gptj_prefill gptj_decode bert_op17 bert_op13 vit_op17 vit_op13 fp16_norms groupnorm"}
pin="--cpu $cpu"
[ "$cpu" = all ] && pin=""
py=/usr/bin/python3
fusions=fuse_attention,fuse_rotary_embedding,fuse_rotary_embedding_bshd,fuse_rms_normalization,fuse_gelu,fuse_layer_normalization
mkdir -p "$out"
for f in llama_tiny rope_interleaved_tiny gpt_kv_tiny gptj_tiny bert_tiny bert_tiny_op13 vit_tiny vit_tiny_op13 fp16_norms_tiny; do
  "$bin" "tests/models/$f.onnx" "$out/${f}_fused.onnx" --opset 23 > "$out/${f}_fused.log"
  "$bin" "tests/models/$f.onnx" "$out/${f}_nofuse.onnx" --opset 23 --skip $fusions > "$out/${f}_nofuse.log"
done
"$bin" tests/models/fp16_norms_tiny.onnx "$out/fp16_norms_tiny_trt.onnx" --target tensorrt --opset 23 > "$out/fp16_norms_tiny_trt.log"
"$bin" tests/models/groupnorm_unet_tiny.onnx "$out/groupnorm_default.onnx" > "$out/groupnorm_default.log"
"$bin" tests/models/groupnorm_unet_tiny.onnx "$out/groupnorm_trt.onnx" --target tensorrt --opset 24 > "$out/groupnorm_trt.log"
run() {  # NAME MODEL DIMS [ORT_LATENCY_ARGS...]; $extra: more variants (NAME=FILE)
  case " $cases " in *" $1 "*) ;; *) return 0 ;; esac
  name=$1 model=$2 dims=$3
  shift 3
  $py bench/ort_latency.py "tests/models/$model.onnx" "nofuse=$out/${model}_nofuse.onnx" "fused=$out/${model}_fused.onnx" $extra \
    --dims "$dims" --int input_ids=0:100 --int position_ids=0:1024 $pin --threads "$threads" --seconds "$secs" \
    --levels all,disabled --json "$out/$name.json" --title "$name ($dims)" "$@"
  echo
}
run llama_prefill llama_tiny batch=1,seq=128,past_seq=0
run llama_decode llama_tiny batch=1,seq=1,past_seq=1024
run rope_il_prefill rope_interleaved_tiny batch=1,seq=128,past_seq=0
run rope_il_decode rope_interleaved_tiny batch=1,seq=1,past_seq=1024
run gpt_prefill gpt_kv_tiny batch=1,seq=128,past_seq=0
run gpt_decode gpt_kv_tiny batch=1,seq=1,past_seq=1024
# gptj_tiny has 320 positions (its causal buffer and rotary table): decode over 300 cached.
run gptj_prefill gptj_tiny batch=1,seq=128,past_seq=0 --int position_ids=0:300
run gptj_decode gptj_tiny batch=1,seq=1,past_seq=300 --int position_ids=0:300
run bert_op17 bert_tiny batch=1,seq=64
run bert_op13 bert_tiny_op13 batch=1,seq=64
run vit_op17 vit_tiny batch=1
run vit_op13 vit_tiny_op13 batch=1
# float16 outputs: the fused RMSNormalization rounds once where the decomposition rounds at each
# step, a float16 unit (2^-10 relative) here and there, which the scale multiplies: 4 units
# relative, and an absolute 1e-2 near zero (onnxtrim's check scales by the output's RMS instead).
extra="trt=$out/fp16_norms_tiny_trt.onnx" run fp16_norms fp16_norms_tiny batch=1,seq=128 --rtol 4e-3 --atol 1e-2
case " $cases " in *" groupnorm "*)
  $py bench/ort_latency.py tests/models/groupnorm_unet_tiny.onnx "default=$out/groupnorm_default.onnx" \
    "trt=$out/groupnorm_trt.onnx" --dims batch=2 $pin --threads "$threads" --seconds "$secs" --levels all \
    --json "$out/groupnorm.json" --title "groupnorm (batch=2)"
  echo ;;
esac
$py - "$out" $cases <<'EOF'
import json, os, sys
out, cases = sys.argv[1], sys.argv[2:]
print(f"{'case':16} {'threads':>7} {'nodes':>13}  paired speedup over original@all (median over rounds)")
for case in cases:
    p = os.path.join(out, case + ".json")
    if not os.path.exists(p):
        continue
    res = json.load(open(p))
    for t in (1, 0):
        rows = {r["name"].split("/")[0]: r for r in res["variants"] if r["threads"] == t}
        if not rows:
            continue
        last = ([n for n in rows if n.startswith("trt@")][:1] or [n for n in rows if n.startswith("fused@")][:1]
                or list(rows)[-1:])
        nodes = f"{rows['original@all']['nodes']} -> {rows[last[0]]['nodes']}"
        cells = "  ".join(f"{n} {r['paired_speedup']:.2f}x" for n, r in rows.items() if n != "original@all")
        print(f"{case:16} {'1' if t == 1 else 'default':>7} {nodes:>13}  {cells}")
EOF
