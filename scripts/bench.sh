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
echo "== real exports (bench/make_models.py: torchvision resnet50 and swin_t, random weights)"
# Only the benchmarks need torchvision (Debian's; no weights are downloaded).
if ! /usr/bin/python3 -c "import torchvision" 2>/dev/null; then
  ${SUDO:-$( [ "$(id -u)" -eq 0 ] || echo sudo )} apt-get install -y -qq --no-install-recommends python3-torchvision >/dev/null
fi
/usr/bin/python3 bench/make_models.py 2>/dev/null | grep -v "^$" || true
echo "== the default check's cost (whole runs, with and without --no-verify)"
/usr/bin/python3 bench/check_cost.py build/onnxtrim bench/models/resnet50.onnx bench/models/resnet50_bn.onnx \
  bench/models/swin_t.onnx
python3 - <<'PY'
import json, subprocess
def run(cmd):
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
p = run(["build/bench/model_bench", "pipeline", "bench/models/swin_t.onnx"])
print(f"swin_t: {p['nodes_before']} -> {p['nodes_after']} nodes in {p['rounds']} rounds; "
      f"load {p['load_s']:.2f} s, pipeline {p['pipeline_s']:.2f} s, save {p['save_s']:.2f} s")
ours, fast, theirs = [], [], []
for _ in range(3):  # interleaved: the machine is shared and noisy
    ours.append(run(["build/bench/model_bench", "eval", "bench/models/resnet50.onnx", "5"])["median_ms"])
    fast.append(run(["build/bench/model_bench", "eval-fast", "bench/models/resnet50.onnx", "5"])["median_ms"])
    theirs.append(run(["node", "bench/ort_time.js", "bench/models/resnet50.onnx", "5"])["median_ms"])
o, f, t = sorted(ours)[1], sorted(fast)[1], sorted(theirs)[1]
print(f"resnet50 (batch 1): ONNX Runtime {t:.0f} ms; evaluator {o:.0f} ms ({o / t:.1f}x), "
      f"with --fast {f:.0f} ms ({f / t:.1f}x)")
PY
echo "== dynamically quantized conv net (bench/make_quantized.py: DynamicQuantizeLinear + ConvInteger, 1x3x512x512)"
/usr/bin/python3 bench/make_quantized.py >/dev/null
python3 - <<'PY'
import json, subprocess
def run(cmd):
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
ours, theirs = [], []
for _ in range(3):  # interleaved
    ours.append(run(["build/bench/model_bench", "eval", "bench/models/dq_convnet.onnx", "3"])["median_ms"])
    theirs.append(run(["node", "bench/ort_time.js", "bench/models/dq_convnet.onnx", "3"])["median_ms"])
o, t = sorted(ours)[1], sorted(theirs)[1]
print(f"dq_convnet (9.8 GMAC): ONNX Runtime {t:.0f} ms; evaluator {o:.0f} ms ({o / t:.1f}x)")
PY
