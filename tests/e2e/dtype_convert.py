#!/usr/bin/env python3
"""--dtype on real exports (issue 17): a torchvision ResNet-50 (bench/make_models.py resnet50,
random weights) and the transformer fixtures (tests/models/bert_tiny.onnx, gpt2_tiny.onnx).

For each model:
- fp16: converted with the check on (relative L2 error per output <= 1e-2, measured by our
  evaluator and printed); the float16 model then runs in ONNX Runtime beside the float32
  original on the same random inputs, and each output's relative L2 error must be <= 1e-2;
- bf16: converted with the check on (<= 5e-2, in our evaluator: ONNX Runtime's CPU provider has
  few bfloat16 kernels);
- converting the fp16 result again changes nothing; converting it back with --dtype fp32 leaves
  no float16 value and passes the check.

usage: dtype_convert.py ONNXTRIM WORKDIR [MODEL ...]"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from ort_util import run_ort  # noqa: E402

binary, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
models_dir = os.path.join(here, "..", "models")
passed = failed = 0


def result(name, ok, detail=""):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""), flush=True)
    passed += bool(ok)
    failed += not ok


def convert(src, dst, *flags):
    r = subprocess.run([binary, src, dst, "--quiet", "--json", "-", "--verify", *flags], capture_output=True, text=True)
    rep = json.loads(r.stdout) if r.returncode in (0, 1) and r.stdout.strip() else {}
    return r, rep


def rel_l2(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    den = np.linalg.norm(b)
    return float(np.linalg.norm(a - b) / den) if den > 0 else float(np.linalg.norm(a - b))


def feeds_for(path, dims):
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    rng = np.random.default_rng(0)
    feeds = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        shape = []
        for k, d in enumerate(t.shape.dim):
            shape.append(d.dim_value if d.HasField("dim_value") else dims.get(d.dim_param, 1 if k == 0 else 8))
        if t.elem_type == onnx.TensorProto.FLOAT:
            feeds[i.name] = rng.uniform(-1, 1, shape).astype(np.float32)
        elif t.elem_type == onnx.TensorProto.INT64:
            feeds[i.name] = rng.integers(0, 8, shape).astype(np.int64)
        elif t.elem_type == onnx.TensorProto.BOOL:
            feeds[i.name] = np.ones(shape, dtype=bool)
        else:
            raise RuntimeError(f"{path}: input {i.name} of element type {t.elem_type}")
    return feeds


def float16_values(path):
    m = onnx.load(path, load_external_data=False)
    n = sum(1 for t in m.graph.initializer if t.data_type == onnx.TensorProto.FLOAT16)
    n += sum(1 for v in list(m.graph.value_info) + list(m.graph.output) + list(m.graph.input)
             if v.type.tensor_type.elem_type == onnx.TensorProto.FLOAT16)
    return n


def check_model(name, path, dims):
    base = os.path.join(work, name)
    # fp16, checked by our evaluator ...
    fp16 = base + ".fp16.onnx"
    r, rep = convert(path, fp16, "--dtype", "fp16")
    v = rep.get("verification", {})
    conv = rep.get("conversion", {})
    result(f"{name}: --dtype fp16 passes the check", r.returncode == 0 and v.get("ok") and v.get("ran"),
           r.stderr.strip()[:400] or json.dumps(v)[:400])
    for o in v.get("outputs", []):
        print(f"     fp16 check (evaluator): {o['name']}: relative L2 error {o['rel_l2']:.3g} (<= {v.get('l2_tol')})")
    if conv:
        print(f"     {conv['converted_nodes']} nodes converted, {conv['casts_added']} Casts, "
              f"{len(conv['kept_fp32'])} kept in float32" +
              "".join(f"\n       kept {k['node']}: {k['reason']}" for k in conv["kept_fp32"][:8]))
    if r.returncode != 0:
        return
    # ... and by ONNX Runtime against the float32 original.
    feeds = feeds_for(path, dims)
    try:
        want = run_ort(path, feeds)
        got = run_ort(fp16, feeds)
        errs = {k: rel_l2(got[k], want[k]) for k in want if np.issubdtype(want[k].dtype, np.floating)}
        for k, e in errs.items():
            print(f"     fp16 in ONNX Runtime: {k}: relative L2 error {e:.3g} against float32")
        result(f"{name}: fp16 runs in ONNX Runtime within 1e-2", errs and all(e <= 1e-2 for e in errs.values()),
               json.dumps(errs))
    except RuntimeError as e:
        result(f"{name}: fp16 runs in ONNX Runtime within 1e-2", False, str(e)[:400])
    # Idempotence.
    again = base + ".fp16.again.onnx"
    r2, rep2 = convert(fp16, again, "--dtype", "fp16")
    c2 = rep2.get("conversion", {})
    same = r2.returncode == 0 and c2.get("converted_nodes") == 0 and c2.get("casts_added") == 0 and \
        c2.get("initializers_converted") == 0 and rep2["after"]["op_histogram"] == rep["after"]["op_histogram"]
    result(f"{name}: converting the fp16 model again changes nothing", same, r2.stderr.strip()[:300] or json.dumps(c2)[:300])
    # Back to float32.
    back = base + ".fp32.onnx"
    r3, rep3 = convert(fp16, back, "--dtype", "fp32")
    v3 = rep3.get("verification", {})
    result(f"{name}: --dtype fp32 converts back (check ok, no float16 left)",
           r3.returncode == 0 and v3.get("ok") and float16_values(back) == 0,
           r3.stderr.strip()[:300] or json.dumps(v3)[:300])
    # bf16, checked by our evaluator.
    bf16 = base + ".bf16.onnx"
    r4, rep4 = convert(path, bf16, "--dtype", "bf16")
    v4 = rep4.get("verification", {})
    result(f"{name}: --dtype bf16 passes the check", r4.returncode == 0 and v4.get("ok") and v4.get("ran"),
           r4.stderr.strip()[:400] or json.dumps(v4)[:400])
    for o in v4.get("outputs", []):
        print(f"     bf16 check (evaluator): {o['name']}: relative L2 error {o['rel_l2']:.3g} (<= {v4.get('l2_tol')})")
    c4 = rep4.get("conversion", {})
    if c4:
        print(f"     bf16: {c4['converted_nodes']} nodes converted, {len(c4['kept_fp32'])} kept in float32")


models = sys.argv[3:] or ["resnet50", "bert_tiny", "gpt2_tiny"]
for name in models:
    if name == "resnet50":
        path = os.path.join(work, "resnet50.onnx")
        if not os.path.exists(path):
            subprocess.run(["/usr/bin/python3", os.path.join(here, "..", "..", "bench", "make_models.py"), "resnet50"],
                           check=True, env=dict(os.environ, ONNXTRIM_MODELS_DIR=work), capture_output=True)
        check_model(name, path, {})
    else:
        check_model(name, os.path.join(models_dir, name + ".onnx"), {})
print(f"dtype_convert: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
