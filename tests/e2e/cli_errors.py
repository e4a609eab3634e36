#!/usr/bin/env python3
"""Bad input through the CLI: one clear line naming the file (and node), the documented exit
code, no crash, no output or temporary file left behind, and the input untouched."""
import os
import shutil
import subprocess
import sys
import tempfile

import onnx
from onnx import helper, TensorProto

binary = sys.argv[1]
failures = []
checks = 0


def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def expect(name, r, code, *needles, out_path=None, tmpdir=None):
    global checks
    checks += 1
    err = r.stderr.strip()
    if r.returncode != code:
        failures.append(f"{name}: exit {r.returncode}, expected {code}; stderr: {err}")
        return
    if code != 0:
        if len(err.splitlines()) != 1:
            failures.append(f"{name}: expected one line on stderr, got: {err!r}")
        for n in needles:
            if n not in err:
                failures.append(f"{name}: stderr lacks {n!r}: {err}")
    if out_path and code != 0 and os.path.exists(out_path):
        failures.append(f"{name}: output file left behind")
    if tmpdir:
        leftovers = [f for f in os.listdir(tmpdir) if ".tmp-" in f]
        if leftovers:
            failures.append(f"{name}: temporary files left: {leftovers}")


def good_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    n = helper.make_node("Relu", ["x"], ["y"], name="relu0")
    return helper.make_model(helper.make_graph([n], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.onnx")
    good = os.path.join(d, "good.onnx")
    onnx.save(good_model(), good)

    expect("missing file", run(os.path.join(d, "missing.onnx"), out), 3, "missing.onnx", "no such file", out_path=out, tmpdir=d)

    text = os.path.join(d, "notes.onnx")
    with open(text, "w") as f:
        f.write("definitely not a protobuf\n" * 10)
    expect("not onnx", run(text, out), 4, "notes.onnx", "not a valid ONNX model", out_path=out, tmpdir=d)

    data = open(good, "rb").read()
    trunc = os.path.join(d, "truncated.onnx")
    with open(trunc, "wb") as f:
        f.write(data[: len(data) // 2])
    expect("truncated", run(trunc, out), 4, "truncated.onnx", out_path=out, tmpdir=d)

    empty = os.path.join(d, "empty.onnx")
    open(empty, "wb").close()
    expect("empty", run(empty, out), 4, "empty.onnx", "no graph", out_path=out, tmpdir=d)

    m = good_model()
    m.graph.node[0].input[0] = "ghost"
    undef = os.path.join(d, "undefined.onnx")
    onnx.save(m, undef)
    expect("undefined value", run(undef, out), 5, "undefined.onnx", "relu0", "'ghost'", out_path=out, tmpdir=d)

    m = good_model()
    m.graph.node.insert(0, helper.make_node("Neg", ["y"], ["z"], name="neg0"))
    m.graph.node[1].input[0] = "z"
    cyc = os.path.join(d, "cycle.onnx")
    onnx.save(m, cyc)
    expect("cycle", run(cyc, out), 5, "cycle.onnx", "cycle", out_path=out, tmpdir=d)

    # External data: missing and short.
    m = good_model()
    w = helper.make_tensor("w", TensorProto.FLOAT, [4096], b"\x00\x00\x80\x3f" * 4096, raw=True)
    m.graph.initializer.append(w)
    ext = os.path.join(d, "ext.onnx")
    onnx.save(m, ext, save_as_external_data=True, all_tensors_to_one_file=True, location="ext.bin", size_threshold=0)
    os.truncate(os.path.join(d, "ext.bin"), 100)
    expect("short external data", run(ext, out), 5, "ext.onnx", "'w'", "too short", out_path=out, tmpdir=d)
    os.remove(os.path.join(d, "ext.bin"))
    expect("missing external data", run(ext, out), 5, "ext.onnx", "ext.bin", out_path=out, tmpdir=d)

    # Nodes the spec forbids (issue 16: defects of real exports) stop the run before anything is
    # simplified, whether or not the check runs: exit 5, one line naming the file, the node and the problem.
    def invalid_model(name, nodes, inputs, outputs, inits=(), opset=16):
        m = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs, list(inits)),
                              opset_imports=[helper.make_opsetid("", opset)])
        path = os.path.join(d, name)
        onnx.save(m, path)
        return path

    vi = helper.make_tensor_value_info
    sqrt = invalid_model("sqrt_int64.onnx", [helper.make_node("Sqrt", ["x"], ["y"], name="sqrt0")],
                         [vi("x", TensorProto.INT64, [4])], [vi("y", TensorProto.INT64, [4])])
    for extra in ([], ["--no-verify"], ["--verify"]):
        expect("Sqrt of int64 " + " ".join(extra), run(sqrt, out, *extra), 5, "sqrt_int64.onnx", "sqrt0", "int64",
               out_path=out, tmpdir=d)
    unsq = invalid_model("unsqueeze_axis.onnx", [helper.make_node("Unsqueeze", ["x", "ax"], ["y"], name="unsq0")],
                         [vi("x", TensorProto.FLOAT, [4])], [vi("y", TensorProto.FLOAT, None)],
                         [helper.make_tensor("ax", TensorProto.INT64, [1], [3])])
    expect("Unsqueeze axis out of range", run(unsq, out), 5, "unsqueeze_axis.onnx", "unsq0", "[3]", out_path=out, tmpdir=d)
    split = invalid_model("split_sizes.onnx", [helper.make_node("Split", ["x", "sp"], ["a", "b"], name="split0")],
                          [vi("x", TensorProto.FLOAT, [5])], [vi("a", TensorProto.FLOAT, None), vi("b", TensorProto.FLOAT, None)],
                          [helper.make_tensor("sp", TensorProto.INT64, [2], [2, 2])])
    expect("Split sizes", run(split, out, "--no-verify"), 5, "split_sizes.onnx", "split0", "add up", out_path=out, tmpdir=d)

    # Unwritable output: a folder that does not exist, and a read-only folder.
    expect("unwritable", run(good, os.path.join(d, "nodir", "o.onnx")), 3, "o.onnx", tmpdir=d)
    ro = os.path.join(d, "ro")
    os.mkdir(ro)
    os.chmod(ro, 0o500)
    if os.geteuid() != 0:  # root writes anywhere
        expect("read-only dir", run(good, os.path.join(ro, "o.onnx")), 3, "o.onnx", tmpdir=ro)
    os.chmod(ro, 0o700)
    expect("output is a directory", run(good, ro), 3, "ro", tmpdir=d)

    # Usage errors.
    expect("no output", run(good), 2)
    expect("unknown option", run(good, out, "--frobnicate"), 2, "--frobnicate")

    # The input is never touched; saving over the input replaces it only when complete.
    before = open(good, "rb").read()
    r = run(good, out, "--quiet")
    expect("good", r, 0)
    if open(good, "rb").read() != before:
        failures.append("input was modified")
    inplace = os.path.join(d, "inplace.onnx")
    shutil.copy(good, inplace)
    expect("in place", run(inplace, inplace, "--quiet"), 0, tmpdir=d)
    if onnx.load(inplace) != onnx.load(good):
        failures.append("in-place save changed the model")

    # --help documents the exit codes; --version answers.
    h = run("--help")
    checks += 1
    if h.returncode != 0 or "exit codes" not in h.stdout:
        failures.append("--help lacks exit codes")
    checks += 1
    if run("--version").returncode != 0:
        failures.append("--version failed")

for f in failures:
    print("FAIL:", f)
print(f"cli_errors: {checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
