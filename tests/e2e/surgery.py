#!/usr/bin/env python3
"""Graph surgery (issue 17) against ONNX Runtime (tests/e2e/ort_util.py) and our evaluator:

  - cutting tests/models/cut_if_function.onnx (a model-local function called twice feeding an
    If whose branches read main-graph values, one a graph input) at the function's output and
    at the If's inputs: ONNX Runtime on the cut model equals our evaluator's values of the
    ORIGINAL model at those points; the errors (unknown name, a graph input not kept);
  - --add-outputs all: ONNX Runtime equals the evaluator on every output;
  - --rename of a graph input that an If branch reads;
  - --batch 4 on a dynamic model;
  - --batch dynamic on a static torchvision ResNet-18 (batch 1, random weights) and a static
    ShuffleNetV2 (its channel shuffle's Reshapes bake the batch in and are rewritten), run in ONNX
    Runtime at batch 3 and compared with the evaluator on the original, sample by sample;
  - --batch dynamic refused on a node that bakes the batch in, naming it; and a node that mixes
    the samples (Softmax over axis 0) caught by the check's stacked samples.

usage: surgery.py ONNXTRIM
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ort_util import run_ort  # noqa: E402

binary = sys.argv[1]
FIXTURE = os.path.join(HERE, "..", "models", "cut_if_function.onnx")
failures = []
passed = 0
tmp = tempfile.mkdtemp(prefix="surgery_")


def cli(*args, expect=0):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode != expect:
        raise RuntimeError(f"onnxtrim {' '.join(args)}: exit {r.returncode} (expected {expect}): "
                           f"{r.stderr.strip()[:500]}")
    return r


def evaluate(path, feeds):
    """Our evaluator: {output name: array}."""
    out_dir = tempfile.mkdtemp(dir=tmp)
    cmd = ["run", path, "--output-dir", out_dir]
    for name, a in feeds.items():
        p = os.path.join(out_dir, "in_" + name + ".pb")
        with open(p, "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
        cmd += ["--input", f"{name}={p}"]
    cli(*cmd)
    names = [o.name for o in onnx.load(path, load_external_data=False).graph.output]
    return {n: numpy_helper.to_array(onnx.load_tensor(os.path.join(out_dir, f"output_{k}.pb")))
            for k, n in enumerate(names)}


def with_outputs(path, names):
    """The original with these values as outputs too (unsimplified: --no-passes keeps it as is)."""
    out = os.path.join(tmp, "ref_" + "_".join(names)[:40] + ".onnx")
    cli(path, out, "--no-passes", "--add-outputs", ",".join(names), "--no-verify", "--quiet")
    return out


def close(label, got, want, rtol=1e-4, atol=1e-5):
    global passed
    if got.dtype == np.bool_ and want.shape == () and got.shape == (1,):
        got = got.reshape(())  # onnxruntime-node hands a bool scalar back as shape [1]
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
        diff = np.max(np.abs(got - want)) if got.shape == want.shape else f"shapes {got.shape} {want.shape}"
        failures.append(f"{label}: differs ({diff})")
    else:
        passed += 1


def case(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        failures.append(f"{fn.__name__}: {e}")
    return fn


rng = np.random.default_rng(0)
image = rng.uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32)
bias = rng.uniform(-1, 1, (2, 4, 8, 8)).astype(np.float32)
feeds = {"image": image, "bias": bias, "threshold": np.array(0.0, np.float32)}


@case
def cut_at_the_if_inputs():
    # f2 (the second function call's output) and the graph inputs the If reads: ORT on the cut
    # model, fed the original's f2, equals the original's logits.
    ref = evaluate(with_outputs(FIXTURE, ["f2"]), feeds)
    out = os.path.join(tmp, "cut_if.onnx")
    r = cli(FIXTURE, out, "--inputs", "f2,bias,threshold", "--outputs", "logits", "--json", "-")
    m = onnx.load(out)
    assert [i.name for i in m.graph.input] == ["f2", "bias", "threshold"], [i.name for i in m.graph.input]
    ops = {n.op_type for n in m.graph.node}
    assert "ScaleShift" not in ops and "Conv" not in ops and "If" in ops, ops
    assert '"compared"' in r.stdout, r.stdout[-400:]
    for thr in (0.0, 1e9):  # both branches
        f = {"f2": ref["f2"], "bias": bias, "threshold": np.array(thr, np.float32)}
        want = evaluate(with_outputs(FIXTURE, ["f2"]), {**feeds, "threshold": np.array(thr, np.float32)})["logits"]
        close(f"cut at the If's inputs (threshold {thr}): ORT", run_ort(out, f)["logits"], want)
        close(f"cut at the If's inputs (threshold {thr}): evaluator", evaluate(out, f)["logits"], want)


@case
def cut_at_the_function_output():
    out = os.path.join(tmp, "cut_f1.onnx")
    cli(FIXTURE, out, "--outputs", "f1,gate", "--quiet")
    m = onnx.load(out)
    assert [o.name for o in m.graph.output] == ["f1", "gate"]
    assert [i.name for i in m.graph.input] == ["image"], [i.name for i in m.graph.input]
    ref = evaluate(with_outputs(FIXTURE, ["f1"]), feeds)
    got = run_ort(out, {"image": image})
    close("cut at the function output f1", got["f1"], ref["f1"])
    close("cut at the function output: gate", got["gate"], ref["gate"])


@case
def cut_errors():
    global passed
    r = cli(FIXTURE, os.path.join(tmp, "x.onnx"), "--outputs", "ghost", expect=2)
    assert "ghost" in r.stderr, r.stderr
    r = cli(FIXTURE, os.path.join(tmp, "x.onnx"), "--outputs", "o2", expect=2)
    assert "inside a subgraph of node 'pick (If)'" in r.stderr, r.stderr
    r = cli(FIXTURE, os.path.join(tmp, "x.onnx"), "--inputs", "f2,bias", "--outputs", "logits", expect=2)
    assert "output 'logits' still depends on graph input 'threshold'" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(tmp, "x.onnx"))
    passed += 1


@case
def add_outputs_all():
    for path, f in ((FIXTURE, feeds),
                    (os.path.join(HERE, "..", "models", "resnet_small.onnx"),
                     {"image": rng.uniform(-1, 1, (2, 3, 32, 32)).astype(np.float32)})):
        out = os.path.join(tmp, "all_" + os.path.basename(path))
        cli(path, out, "--add-outputs", "all", "--quiet")
        m = onnx.load(out)
        src = onnx.load(path)
        assert len(m.graph.output) >= len(src.graph.node), (len(m.graph.output), len(src.graph.node))
        ours, theirs = evaluate(out, f), run_ort(out, f)
        for name, want in ours.items():
            close(f"--add-outputs all {os.path.basename(path)}: {name}", theirs[name], want, rtol=1e-4, atol=1e-4)
        # the simplified values at the original's outputs are the original's
        orig = evaluate(path, f)
        for name, want in orig.items():
            close(f"--add-outputs all {os.path.basename(path)} vs original: {name}", ours[name], want)


@case
def rename_reaches_the_if_branch():
    out = os.path.join(tmp, "renamed.onnx")
    cli(FIXTURE, out, "--rename", "bias=offset,logits=scores", "--quiet")
    m = onnx.load(out)
    assert [i.name for i in m.graph.input] == ["image", "offset", "threshold"]
    assert m.graph.output[0].name == "scores"
    body_inputs = [i for n in m.graph.node if n.op_type == "If" for a in n.attribute for bn in a.g.node for i in bn.input]
    assert "offset" in body_inputs and "bias" not in body_inputs, body_inputs
    f = {"image": image, "offset": bias, "threshold": np.array(1e9, np.float32)}  # the else branch reads it
    want = evaluate(FIXTURE, {**feeds, "threshold": np.array(1e9, np.float32)})["logits"]
    close("--rename: ORT", run_ort(out, f)["scores"], want)


@case
def batch_4():
    out = os.path.join(tmp, "batch4.onnx")
    cli(FIXTURE, out, "--batch", "4", "--quiet")
    m = onnx.load(out)
    dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [4, 3, 8, 8], dims
    im = rng.uniform(-1, 1, (4, 3, 8, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, (4, 4, 8, 8)).astype(np.float32)
    f = {"image": im, "bias": b, "threshold": np.array(0.0, np.float32)}
    want = evaluate(FIXTURE, f)
    got = run_ort(out, f)
    close("--batch 4: logits", got["logits"], want["logits"])
    close("--batch 4: gate", got["gate"], want["gate"])


def torchvision_static(name):
    import torch
    import torchvision
    torch.manual_seed(0)
    net = getattr(torchvision.models, name)(weights=None).eval()
    path = os.path.join(tmp, name + "_static.onnx")
    with torch.no_grad():
        torch.onnx.export(net, (torch.randn(1, 3, 64, 64),), path, input_names=["image"], output_names=["logits"],
                          opset_version=17, do_constant_folding=True)
    return path


def free_and_run_at_3(name):
    src = torchvision_static(name)
    out = os.path.join(tmp, name + "_dynamic.onnx")
    r = cli(src, out, "--batch", "dynamic")
    assert "stacked" in r.stdout, r.stdout[-600:]
    m = onnx.load(out)
    d0 = m.graph.input[0].type.tensor_type.shape.dim[0]
    assert d0.dim_param == "batch", d0
    assert m.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    x = rng.uniform(-1, 1, (3, 3, 64, 64)).astype(np.float32)
    got = run_ort(out, {"image": x})["logits"]
    assert got.shape[0] == 3, got.shape
    want = np.concatenate([evaluate(src, {"image": x[i:i + 1]})["logits"] for i in range(3)])
    close(f"--batch dynamic {name} at batch 3 (ORT vs evaluator on the original, per sample)", got, want,
          rtol=1e-3, atol=1e-4)
    return r


@case
def batch_dynamic_resnet18():
    free_and_run_at_3("resnet18")


@case
def batch_dynamic_shufflenet():
    r = free_and_run_at_3("shufflenet_v2_x0_5")
    assert "Reshape target shapes now copy the batch" in r.stdout, r.stdout[-600:]


@case
def batch_dynamic_refused():
    global passed
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="act"),
         helper.make_node("Reshape", ["r", "shape"], ["flat"], name="bake"),
         helper.make_node("Neg", ["flat"], ["y"], name="neg")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [12])],
        [numpy_helper.from_array(np.array([12], np.int64), "shape")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    src = os.path.join(tmp, "bakes.onnx")
    onnx.save(m, src)
    out = os.path.join(tmp, "bakes_out.onnx")
    r = cli(src, out, "--batch", "dynamic", expect=2)
    assert "node 'bake (Reshape)'" in r.stderr, r.stderr
    assert not os.path.exists(out)
    passed += 1


@case
def batch_dynamic_check_catches_mixed_samples():
    # Softmax over axis 0 passes the shape test (its output follows the batch) but mixes the
    # samples: the stacked check (two samples of the original against one batch of two) fails.
    global passed
    g = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], axis=0, name="mix")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    src = os.path.join(tmp, "mix.onnx")
    onnx.save(m, src)
    out = os.path.join(tmp, "mix_out.onnx")
    r = cli(src, out, "--batch", "dynamic", expect=1)
    assert "output 'y'" in r.stderr + r.stdout, r.stderr
    assert not os.path.exists(out)
    passed += 1


print(f"surgery: {passed} checks passed, {len(failures)} failed")
for f in failures:
    print("  FAIL", f)
sys.exit(1 if failures else 0)
