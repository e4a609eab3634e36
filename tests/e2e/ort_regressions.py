#!/usr/bin/env python3
"""Minimized regressions of issue 12's defects, against ONNX Runtime (onnxruntime-node, driven
by tests/e2e/ort/run.js). Each case is a small model written with onnx.helper:

  - wrong values (F1 reductions over the empty axis set, folded; F4 Resize align_corners;
    F6 Pad wrap with negative pads): our evaluator on the original must match ONNX Runtime;
  - invalid models (F2 BatchNormalization in training mode losing its statistics, F3 fusions
    of a Gemm/Conv outside an If with their only reader inside): `onnxtrim IN OUT --passes
    infer_shapes,PASS` (and the default pipeline) must give a model ONNX Runtime loads, whose
    outputs match ONNX Runtime's on the original.

usage: ort_regressions.py ONNXTRIM
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "ort", "run.js")
binary = sys.argv[1]
failures = []
passed = 0

NP = {TensorProto.FLOAT: np.float32, TensorProto.BOOL: np.bool_, TensorProto.INT64: np.int64}
ORT_NAME = {np.float32: "float32", np.bool_: "bool", np.int64: "int64"}


def sh(*args):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{os.path.basename(args[0])} {' '.join(args[1:3])}: exit {r.returncode}: {r.stderr.strip()[:400]}")
    return r.stdout


def model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                          [numpy_helper.from_array(np.asarray(a), k) for k, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def run_ort(path, feeds, out_dir):
    in_dir = out_dir + "_in"
    os.makedirs(in_dir, exist_ok=True)
    for name, a in feeds.items():
        with open(os.path.join(in_dir, name + ".json"), "w") as f:
            json.dump({"dtype": ORT_NAME[a.dtype.type], "dims": list(a.shape)}, f)
        with open(os.path.join(in_dir, name + ".bin"), "wb") as f:
            f.write(np.ascontiguousarray(a).tobytes())
    sh("node", RUNNER, path, in_dir, out_dir)
    outs = []
    for o in onnx.load(path).graph.output:
        meta = json.load(open(os.path.join(out_dir, o.name + ".json")))
        outs.append(np.frombuffer(open(os.path.join(out_dir, o.name + ".bin"), "rb").read(),
                                  dtype=meta["dtype"]).reshape(meta["dims"]))
    return outs


def run_ours(path, feeds, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    cmd = [binary, "run", path, "--output-dir", out_dir]
    for name, a in feeds.items():
        p = os.path.join(out_dir, "in_" + name + ".pb")
        with open(p, "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
        cmd += ["--input", f"{name}={p}"]
    sh(*cmd)
    return [numpy_helper.to_array(onnx.load_tensor(os.path.join(out_dir, f"output_{k}.pb")))
            for k in range(len(onnx.load(path).graph.output))]


def same(label, got, want):
    global passed
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or not np.allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True):
            failures.append(f"{label}: output {i}: {g.ravel()[:12]} != {w.ravel()[:12]}")
            return
    passed += 1


def check(name, m, feeds, passes=None):
    """Our evaluator vs ONNX Runtime on the original; then the simplified model (with --passes
    when given, and by the default pipeline) loaded and run in ONNX Runtime."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            orig = os.path.join(tmp, "orig.onnx")
            onnx.save(m, orig)
            want = run_ort(orig, feeds, os.path.join(tmp, "ort"))
            same(f"{name}: evaluator vs ORT", run_ours(orig, feeds, os.path.join(tmp, "ours")), want)
            for k, extra in enumerate(([["--passes", passes]] if passes else []) + [[]]):
                out = os.path.join(tmp, f"simplified{k}.onnx")
                sh(binary, orig, out, "--quiet", *extra)
                label = f"{name}: simplified ({' '.join(extra) or 'default pipeline'}) in ORT"
                same(label, run_ort(out, feeds, os.path.join(tmp, f"ort_s{k}")), want)
        except Exception as e:  # a model ORT refuses, or a failed run, is a failure
            failures.append(f"{name}: {e}")


F = TensorProto.FLOAT
rng = np.random.default_rng(0)

# F1: reductions over the empty set of axes keep their element-wise step, also when folded.
for op, vals in [("ReduceL1", [-1.5, 2, 0.5, -3]), ("ReduceL2", [-1.5, 2, 0.5, -3]),
                 ("ReduceSumSquare", [-1.5, 2, 0.5, -3]), ("ReduceLogSum", [1, 4, 0.5, 8]),
                 ("ReduceLogSumExp", [-1.5, 2, 0.5, -3])]:
    m = model([helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.array(vals, np.float32))),
               helper.make_node(op, ["c"], ["r"], noop_with_empty_axes=1),
               helper.make_node(op, ["x"], ["rx"], noop_with_empty_axes=1),
               helper.make_node("Add", ["rx", "r"], ["y"])],
              [("x", F, [4])], [("y", F, [4])], opset=18)
    check(f"F1 {op}", m, {"x": np.array([0.25, 3, -2, 1], np.float32) if op != "ReduceLogSum"
                          else np.array([0.25, 3, 2, 1], np.float32)})

# F2: BatchNormalization in training mode keeps running_mean/running_var (spec: 3 outputs).
stats = [("s", np.array([1, 2], np.float32)), ("b", np.array([0.5, -1], np.float32)),
         ("mu", np.array([0.1, 0], np.float32)), ("var", np.array([1, 2], np.float32))]
m = model([helper.make_node("BatchNormalization", ["x", "s", "b", "mu", "var"], ["t", "rm", "rv"], training_mode=1),
           helper.make_node("Relu", ["t"], ["y"])],
          [("x", F, [3, 2])], [("y", F, [3, 2])], stats, opset=15)
check("F2 BatchNormalization training_mode=1", m, {"x": rng.standard_normal((3, 2)).astype(np.float32)},
      "infer_shapes,eliminate_dead_nodes")

# F3: a Gemm/Conv of the main graph whose only reader, the op folded in, is inside an If branch.
w2 = rng.standard_normal((3, 2)).astype(np.float32)
c2 = np.array([1.5, -2], np.float32)
wc = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
for name, producer, inner, shape, extra_inits in [
        ("fuse_gemm_bias", helper.make_node("Gemm", ["x", "w"], ["p"]), [helper.make_node("Add", ["p", "c"], ["a"])],
         [4, 2], [("w", w2), ("c", c2)]),
        ("fuse_gemm_mul", helper.make_node("Gemm", ["x", "w"], ["p"]), [helper.make_node("Mul", ["p", "c"], ["a"])],
         [4, 2], [("w", w2), ("c", c2)]),
        ("fuse_matmul_bn", helper.make_node("Gemm", ["x", "w"], ["p"]),
         [helper.make_node("BatchNormalization", ["p", "s", "b", "mu", "var"], ["a"])], [4, 2], [("w", w2)] + stats),
        ("fuse_conv_bn", helper.make_node("Conv", ["x", "w"], ["p"], pads=[1, 1, 1, 1]),
         [helper.make_node("BatchNormalization", ["p", "s", "b", "mu", "var"], ["a"])], [1, 2, 5, 5], [("w", wc)] + stats),
        ("fuse_conv_add", helper.make_node("Conv", ["x", "w"], ["p"], pads=[1, 1, 1, 1]),
         [helper.make_node("Add", ["p", "c"], ["a"])], [1, 2, 5, 5], [("w", wc), ("c", c2.reshape(2, 1, 1))]),
        ("fuse_conv_mul", helper.make_node("Conv", ["x", "w"], ["p"], pads=[1, 1, 1, 1]),
         [helper.make_node("Mul", ["c", "p"], ["a"])], [1, 2, 5, 5], [("w", wc), ("c", c2.reshape(2, 1, 1))])]:
    then_g = helper.make_graph(inner + [helper.make_node("Relu", ["a"], ["o1"])], "then", [],
                               [helper.make_tensor_value_info("o1", F, shape)])
    else_g = helper.make_graph([helper.make_node("Neg", ["z"], ["o2"])], "else", [],
                               [helper.make_tensor_value_info("o2", F, shape)])
    x_shape = [4, 3] if shape == [4, 2] else [1, 3, 5, 5]
    m = model([producer, helper.make_node("If", ["k"], ["y"], then_branch=then_g, else_branch=else_g)],
              [("k", TensorProto.BOOL, []), ("x", F, x_shape), ("z", F, shape)], [("y", F, shape)], extra_inits)
    feeds = {"k": np.array(True), "x": rng.standard_normal(x_shape).astype(np.float32),
             "z": rng.standard_normal(shape).astype(np.float32)}
    check(f"F3 {name}", m, feeds, "infer_shapes," + name)

# F4: Resize align_corners divides by the integer output length minus one.
xr = np.arange(12, dtype=np.float32).reshape(3, 4)
for mode, scales in [("nearest", [1.5, 2.0]), ("linear", [1.5, 0.6]), ("cubic", [0.7, 1.3])]:
    attrs = {"mode": mode, "coordinate_transformation_mode": "align_corners"}
    if mode == "nearest":
        attrs["nearest_mode"] = "floor"
    out_shape = [int(np.floor(d * s)) for d, s in zip(xr.shape, scales)]
    m = model([helper.make_node("Resize", ["x", "", "sc"], ["y"], **attrs)], [("x", F, [3, 4])], [("y", F, out_shape)],
              [("sc", np.array(scales, np.float32))], opset=19)
    check(f"F4 Resize {mode} align_corners {scales}", m, {"x": xr})

# F6: Pad wrap (and reflect, edge) with a negative pad: the axis is cropped first.
for mode, pads in [("wrap", [-1, 0, 2, 1]), ("wrap", [2, -1, -1, 0]), ("reflect", [1, -1, 0, 1]), ("edge", [-1, 2, 1, -2])]:
    out_shape = [5 + pads[0] + pads[2], 4 + pads[1] + pads[3]]
    m = model([helper.make_node("Pad", ["x", "p"], ["y"], mode=mode)], [("x", F, [5, 4])], [("y", F, out_shape)],
              [("p", np.array(pads, np.int64))], opset=19)
    check(f"F6 Pad {mode} {pads}", m, {"x": np.arange(20, dtype=np.float32).reshape(5, 4)})

# Issue 30: graphs of a third-party random-graph fuzzer (tests/models/regressions/concat_splat_*)
# where a Pad made by fuse_concat_splat read an erased value (nested Concats of splats), and
# those our own campaign through the sanitized CLI reduced (duplicate_constants_freed_origin: a
# file descriptor cache read a freed mapping's origin): with and without
# the check, onnxtrim must exit 0 and write a model that onnx.checker accepts, that ONNX Runtime
# loads and that computes what the original does in ONNX Runtime.
sys.path.insert(0, HERE)
from ort_util import run_ort as run_ort_named  # noqa: E402  (output names with '/')

# Issue 29: random_noise_scaled.onnx (made by make_random_noise.py beside it) has two unseeded
# RandomNormalLike scaled by its `scales` input: the check (on random scales) must pass and write;
# ONNX Runtime draws its own noise, so there it runs with the noise scaled to 0.
PINNED = {"random_noise_scaled.onnx": {"scales": np.array([0, 1, 0], np.float32)}}

REGRESSIONS = os.path.join(os.path.dirname(HERE), "models", "regressions")
for fname in sorted(f for f in os.listdir(REGRESSIONS) if f.endswith(".onnx")):
    path = os.path.join(REGRESSIONS, fname)
    orig = onnx.load(path)
    feeds = {}
    for i in orig.graph.input:
        # A named or unnamed free dim gets 4 (a size every regression model runs at; 0 would make
        # empty tensors that some of them cannot take).
        shape = [d.dim_value if d.HasField("dim_value") else 4 for d in i.type.tensor_type.shape.dim]
        if i.name in PINNED.get(fname, {}):
            feeds[i.name] = PINNED[fname][i.name]
        elif i.type.tensor_type.elem_type == TensorProto.INT64:  # indices: small, in range of any table
            feeds[i.name] = rng.integers(0, 3, shape).astype(np.int64)
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
    want = run_ort_named(path, feeds)
    for extra in ([], ["--no-verify"]):
        label = f"{fname} {' '.join(extra) or 'checked'}"
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.onnx")
            r = subprocess.run([binary, path, out, "--quiet", *extra], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{label}: exit {r.returncode}: {r.stderr.strip()[:300]}")
                continue
            try:
                written = onnx.load(out)
                # python3-onnx checks the opsets it knows (Debian's 1.12: up to 17); ONNX Runtime
                # loads every one.
                if max(o.version for o in written.opset_import if o.domain in ("", "ai.onnx")) <= \
                        onnx.defs.onnx_opset_version():
                    onnx.checker.check_model(written)
                got = run_ort_named(out, feeds)
            except Exception as e:  # noqa: BLE001  (the checker's or ONNX Runtime's refusal)
                failures.append(f"{label}: {str(e)[:300]}")
                continue
            same(f"{label} in ORT", [got[o.name] for o in orig.graph.output], [want[o.name] for o in orig.graph.output])

# The check ran on random_noise_scaled.onnx (not skipped), drew both noises alike and passed.
with tempfile.TemporaryDirectory() as tmp:
    rep_path = os.path.join(tmp, "report.json")
    r = subprocess.run([binary, os.path.join(REGRESSIONS, "random_noise_scaled.onnx"), os.path.join(tmp, "out.onnx"),
                        "--quiet", "--json", rep_path], capture_output=True, text=True)
    v = json.load(open(rep_path))["verification"] if r.returncode == 0 else {}
    if not (v.get("ran") and v.get("ok") and len(v.get("random", {}).get("drawn_alike", [])) == 2):
        failures.append(f"random_noise_scaled.onnx: the check did not run and pass with both noises drawn alike: "
                        f"exit {r.returncode} {r.stderr.strip()[:200]} {v}")
    else:
        passed += 1

for f in failures:
    print("FAIL:", f)
print(f"ort_regressions: {passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
