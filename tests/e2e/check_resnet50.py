#!/usr/bin/env python3
"""The check on a deep network (issue 12): a torchvision ResNet-50 exported with its
BatchNormalization nodes kept (bench/make_models.py resnet50_bn: random weights and running
statistics, opset 13) simplifies with the check on and is written, although fusing fifty
BatchNormalizations into the convolutions moves some logits by more than a per-element rtol of
1e-4; and `onnxtrim verify` of the model against a copy whose weights are perturbed by 1% fails.

usage: check_resnet50.py ONNXTRIM WORKDIR"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

binary, work = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(work, exist_ok=True)
model = os.path.join(work, "resnet50_bn.onnx")
if not os.path.exists(model):
    subprocess.run(["/usr/bin/python3", os.path.join(here, "..", "..", "bench", "make_models.py"), "resnet50_bn"],
                   check=True, env=dict(os.environ, ONNXTRIM_MODELS_DIR=work), capture_output=True)
passed = failed = 0


def result(name, ok, detail=""):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""))
    passed += ok
    failed += not ok


# 1. Simplified with the check on (the default), and written.
out = os.path.join(work, "resnet50_bn.simplified.onnx")
r = subprocess.run([binary, model, out, "--quiet", "--json", "-"], capture_output=True, text=True)
rep = json.loads(r.stdout) if r.returncode == 0 else {}
v = rep.get("verification", {})
bn = rep.get("after", {}).get("op_histogram", {}).get("BatchNormalization", 0) if rep else -1
result("resnet50_bn simplifies with the check on", r.returncode == 0 and v.get("ran") and v.get("ok")
       and os.path.exists(out) and bn == 0, r.stderr.strip()[:300] or json.dumps(v)[:300])
if v.get("outputs"):
    o = v["outputs"][0]
    print(f"     logits: max abs diff {o['max_abs']:.3g}, max rel diff {o['max_rel']:.3g} (of the output's scale "
          f"{o['scale']:.3g})")

# 2. Weights perturbed by 1%: verify fails.
m = onnx.load(model)
rng = np.random.default_rng(0)
for t in m.graph.initializer:
    w = numpy_helper.to_array(t)
    if w.dtype == np.float32 and w.size > 1000:
        t.CopyFrom(numpy_helper.from_array((w * (1 + 0.01 * rng.standard_normal(w.shape))).astype(np.float32), t.name))
perturbed = os.path.join(work, "resnet50_bn.perturbed.onnx")
onnx.save(m, perturbed)
r = subprocess.run([binary, "verify", model, perturbed, "--samples", "1"], capture_output=True, text=True)
result("verify fails on weights perturbed by 1%", r.returncode == 1 and "DIFFERS" in r.stdout, r.stdout.strip()[-300:])
r = subprocess.run([binary, "verify", model, out, "--samples", "1"], capture_output=True, text=True)
result("verify passes on the simplified model", r.returncode == 0, r.stdout.strip()[-300:])
print(f"check_resnet50: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
