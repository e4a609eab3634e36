#!/usr/bin/env python3
"""End-to-end check against ONNX Runtime (onnxruntime-node, driven by tests/e2e/ort/run.js).

For each model and sample (seeded random inputs that onnxtrim makes):
  1. our evaluator's outputs match ONNX Runtime's on the original model (rtol 1e-4; float16
     outputs: 4 units of their precision, scaled as the check scales them);
  2. `onnxtrim IN OUT` (the default pipeline) gives a model with no more nodes, whose outputs
     in ONNX Runtime and in our evaluator match ONNX Runtime's on the original.
A model with an operator our evaluator lacks (a custom domain: exit 6 of `onnxtrim run`) gets
seeded numpy inputs instead, and only ONNX Runtime's runs of the two models are compared.

With `+option=value` after the model (e.g. `swin_stage.onnx@batch=2+target=coreml`), the
simplification runs with `--option value`. For `target=coreml`, no value of the simplified
model may have rank above 5 (checked with python3-onnx's shape inference).

With `--light`, the models are the light/*.onnx model-zoo models of the ONNX test data (found
as tests/e2e/test_data.py says: --data DIR, ONNXTRIM_TEST_DATA, --default-data DIR). Missing
data, or no model at all, fails.

usage: ort_compare.py ONNXTRIM [--light [--data DIR | --default-data DIR]] [MODEL[@dim=v,dim=v][+option=value...] ...]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import mapping, numpy_helper  # noqa: F401 (mapping: dtypes of numpy inputs)

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "ort", "run.js")
RTOL, ATOL = 1e-4, 1e-5

sys.path.insert(0, HERE)
import test_data  # noqa: E402

args = sys.argv[1:]
data_root = test_data.take(args)
light = "--light" in args
args = [a for a in args if a != "--light"]
binary = args[0]
specs = args[1:]
if light:
    light_dir = os.path.join(test_data.require(data_root, "light"), "light")
    specs += sorted(os.path.join(light_dir, f) for f in os.listdir(light_dir) if f.endswith(".onnx"))
    test_data.require_cases(len(specs), "ort_compare --light", light_dir)
elif not specs:
    test_data.require_cases(0, "ort_compare", "(no model given)")
passed = failed = 0
failures = []


def sh(*args, stderr=None):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[:500]}")
    if stderr is not None:
        stderr.append(r.stderr)
    return r.stdout


# ONNX Runtime's memory planner takes values whose dims have one name for values of one size;
# when they are not, it warns (or fails, when the buffer is too small). A simplified model must
# never make it warn where the original did not (issue 16: onnxtrim writes only proved names).
BUFFER_WARNING = "Shape mismatch attempting to re-use buffer"


def ort_dtype(a):
    return {np.float32: "float32", np.float64: "float64", np.int64: "int64", np.int32: "int32", np.bool_: "bool",
            np.uint8: "uint8", np.int8: "int8", np.float16: "float16"}[a.dtype.type]


def np_dtype(name):
    return {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "bool": np.bool_,
            "uint8": np.uint8, "int8": np.int8, "float16": np.float16}[name]


def run_ort(model, inputs, out_dir, warnings=None):
    in_dir = out_dir + "_in"
    os.makedirs(in_dir, exist_ok=True)
    for name, a in inputs.items():
        with open(os.path.join(in_dir, name.replace("/", "%2F") + ".json"), "w") as f:
            json.dump({"dtype": ort_dtype(a), "dims": list(a.shape)}, f)
        with open(os.path.join(in_dir, name.replace("/", "%2F") + ".bin"), "wb") as f:
            f.write(np.ascontiguousarray(a).tobytes())
    err = []
    sh("node", RUNNER, model, in_dir, out_dir, stderr=err)
    if warnings is not None:
        warnings.extend(line for line in err[0].splitlines() if BUFFER_WARNING in line)
    outs = []
    for o in onnx.load(model, load_external_data=False).graph.output:
        base = os.path.join(out_dir, o.name.replace("/", "%2F"))
        meta = json.load(open(base + ".json"))
        outs.append(np.frombuffer(open(base + ".bin", "rb").read(), dtype=np_dtype(meta["dtype"])).reshape(meta["dims"]))
    return outs


def run_ours(model, args, out_dir, pins=None):
    cmd = [binary, "run", model, "--output-dir", out_dir, "--save-inputs", *args]
    for name, path in (pins or {}).items():
        cmd += ["--input", f"{name}={path}"]
    sh(*cmd)
    outs = []
    for k in range(len(onnx.load(model, load_external_data=False).graph.output)):
        outs.append(numpy_helper.to_array(onnx.load_tensor(os.path.join(out_dir, f"output_{k}.pb"))))
    return outs


def numpy_inputs(model, dims, seed):
    """Seeded inputs from the declared types (floats in [-1, 1), small non-negative ints)."""
    rng = np.random.RandomState(seed)
    m = onnx.load(model, load_external_data=False)
    init_names = {i.name for i in m.graph.initializer}
    out = {}
    for i in m.graph.input:
        if i.name in init_names:
            continue
        tt = i.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dims[d.dim_param] for d in tt.shape.dim]
        dt = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type]
        a = rng.uniform(-1, 1, shape) if np.issubdtype(dt, np.floating) else rng.randint(0, 4, shape)
        out[i.name] = a.astype(dt)
    return out


def close(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False, f"shape/dtype {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    if a.dtype == np.float16:
        # Four units of float16's precision (2^-10) of the element or of the output's RMS, as
        # onnxtrim's check allows (src/eval/compare.h): the evaluator and ONNX Runtime round
        # float16 steps differently (one unit apart on the original already).
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        scale = np.maximum(np.abs(b64), np.sqrt(np.mean(b64 * b64)) if b64.size else 0.0)
        ok = bool(np.all((np.abs(a64 - b64) <= ATOL + 4.0 / 1024 * scale) | (np.isnan(a64) & np.isnan(b64))))
        return ok, "" if ok else f"max abs diff {np.nanmax(np.abs(a64 - b64)):.3g} (float16)"
    if a.dtype.kind in "fc":
        ok = np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
        return ok, "" if ok else f"max abs diff {np.nanmax(np.abs(a.astype(np.float64) - b)):.3g}"
    ok = np.array_equal(a, b)
    return ok, "" if ok else "values differ"


def check(label, got, want):
    global passed, failed
    for i, (g, w) in enumerate(zip(got, want)):
        ok, why = close(g, w)
        if not ok:
            failed += 1
            failures.append(f"{label}: output {i}: {why}")
            return
    passed += 1


def max_rank(path):
    m = onnx.shape_inference.infer_shapes(onnx.load(path, load_external_data=False))
    ranks = {}
    for vi in list(m.graph.value_info) + list(m.graph.output):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
            ranks[vi.name] = len(vi.type.tensor_type.shape.dim)
    return max(ranks.items(), key=lambda kv: kv[1], default=("", 0))


for spec in specs:
    spec, *opts = spec.split("+")
    opt_args = []
    for o in opts:
        k, _, v = o.partition("=")
        opt_args += [f"--{k}"] + ([v] if v else [])
    model, _, dims = spec.partition("@")
    dim_args = []
    for d in filter(None, dims.split(",")):
        dim_args += ["--dim", d]
    name = os.path.basename(model)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            simplified = os.path.join(tmp, "simplified.onnx")
            sh(binary, model, simplified, "--quiet", *opt_args)
            if "--target" in opt_args and opt_args[opt_args.index("--target") + 1] == "coreml":
                name_r, r = max_rank(simplified)
                if r > 5:
                    failed += 1
                    failures.append(f"{name}: --target coreml left '{name_r}' at rank {r}")
            n_before = len(onnx.load(model, load_external_data=False).graph.node)
            n_after = len(onnx.load(simplified, load_external_data=False).graph.node)
            if n_after > n_before:
                failed += 1
                failures.append(f"{name}: simplifying grew the graph ({n_before} -> {n_after} nodes)")
            orig_warnings, simpl_warnings = [], []

            def check_buffers(label):
                global failed
                if simpl_warnings and not orig_warnings:
                    failed += 1
                    failures.append(f"{label}: ONNX Runtime re-uses buffers of unequal sizes in the simplified model "
                                    f"(dims named alike): {simpl_warnings[0].strip()[-160:]}")
                del simpl_warnings[:], orig_warnings[:]

            for seed in (0, 1):
                d = os.path.join(tmp, f"s{seed}")
                try:
                    ours = run_ours(model, dim_args + ["--seed", str(seed)], d + "_ours")
                except RuntimeError as e:
                    if ": exit 6:" not in str(e):
                        raise
                    ours = None  # an operator the evaluator lacks: ONNX Runtime alone is the judge
                if ours is None:
                    dims = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in filter(None, spec.partition("@")[2].split(",")))
                    inputs = numpy_inputs(model, dims, seed)
                    ort_orig = run_ort(model, inputs, d + "_ort", orig_warnings)
                    ort_simpl = run_ort(simplified, inputs, d + "_ort_s", simpl_warnings)
                    check(f"{name} seed {seed}: simplified in ORT vs original in ORT", ort_simpl, ort_orig)
                    check_buffers(f"{name} seed {seed}")
                    continue
                m = onnx.load(model, load_external_data=False)
                init_names = {i.name for i in m.graph.initializer}
                input_names = [i.name for i in m.graph.input if i.name not in init_names]
                pins = {n: os.path.join(d + "_ours", f"input_{k}.pb") for k, n in enumerate(input_names)}
                inputs = {n: numpy_helper.to_array(onnx.load_tensor(p)) for n, p in pins.items()}
                ort_orig = run_ort(model, inputs, d + "_ort", orig_warnings)
                check(f"{name} seed {seed}: evaluator vs ORT", ours, ort_orig)
                ort_simpl = run_ort(simplified, inputs, d + "_ort_s", simpl_warnings)
                check(f"{name} seed {seed}: simplified in ORT vs original in ORT", ort_simpl, ort_orig)
                check_buffers(f"{name} seed {seed}")
                ours_simpl = run_ours(simplified, [], d + "_ours_s", pins)
                check(f"{name} seed {seed}: simplified in evaluator vs original in ORT", ours_simpl, ort_orig)
        except Exception as e:  # a failure to run is a failure
            failed += 1
            failures.append(f"{name}: {e}")

for f in failures:
    print("FAIL:", f)
print(f"ort_compare: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
