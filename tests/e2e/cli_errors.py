#!/usr/bin/env python3
"""Bad input through the CLI: one clear line naming the file (and node), the documented exit
code, no crash, no output or temporary file left behind, and the input untouched."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

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


def nested_if_bytes(depth):
    """A model whose If nodes nest `depth` levels deep (if_k's then-branch holds if_k+1, the
    innermost an Identity of x; else-branches are Neg(x)), written straight in the protobuf
    wire format in linear time (onnx.helper copies each level into the next)."""
    def varint(n):
        out = bytearray()
        while True:
            b, n = n & 0x7F, n >> 7
            out.append(b | 0x80 if n else b)
            if not n:
                return bytes(out)

    def ld(field, payload):
        return varint(field << 3 | 2) + varint(len(payload)) + payload

    def vint(field, n):
        return varint(field << 3) + varint(n)

    def value_info(name):  # float[1]
        return ld(1, name.encode()) + ld(2, ld(1, vint(1, 1) + ld(2, ld(1, vint(1, 1)))))

    def node(inputs, outputs, op, name):
        return (b"".join(ld(1, i.encode()) for i in inputs) + b"".join(ld(2, o.encode()) for o in outputs)
                + ld(3, name.encode()) + ld(4, op.encode()))

    inner = (ld(1, node(["x"], [f"o{depth}"], "Identity", f"id{depth}")) + ld(2, f"b{depth}".encode())
             + ld(12, value_info(f"o{depth}")))
    size = len(inner)
    heads, tails = [], []
    for k in range(depth - 1, -1, -1):
        els = ld(1, node(["x"], [f"e{k}"], "Neg", f"neg{k}")) + ld(2, f"e{k}".encode()) + ld(12, value_info(f"e{k}"))
        else_attr = ld(5, ld(1, b"else_branch") + vint(20, 5) + ld(6, els))
        then_head = ld(1, b"then_branch") + vint(20, 5) + varint(6 << 3 | 2) + varint(size)
        then_attr_head = varint(5 << 3 | 2) + varint(len(then_head) + size) + then_head
        fixed = node(["c"], [f"o{k}"], "If", f"if{k}")
        node_head = varint(1 << 3 | 2) + varint(len(fixed) + len(then_attr_head) + size + len(else_attr)) + fixed + then_attr_head
        if k == 0:
            cond = ld(1, b"c") + ld(2, ld(1, vint(1, 9) + ld(2, b"")))
            tail = else_attr + ld(2, b"main") + ld(11, cond) + ld(11, value_info("x")) + ld(12, value_info("o0"))
        else:
            tail = else_attr + ld(2, f"b{k}".encode()) + ld(12, value_info(f"o{k}"))
        heads.append(node_head)
        tails.append(tail)
        size += len(node_head) + len(tail)
    opset = ld(8, ld(1, b"") + vint(2, 17))
    return vint(1, 8) + opset + varint(7 << 3 | 2) + varint(size) + b"".join(reversed(heads)) + inner + b"".join(tails)


def simple_graph_model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.onnx")
    good = os.path.join(d, "good.onnx")
    onnx.save(good_model(), good)

    expect("missing file", run(os.path.join(d, "missing.onnx"), out), 3, "missing.onnx", "no such file", out_path=out, tmpdir=d)
    # The output's folder is checked before any work (a long run must not end in "cannot write").
    nofolder = os.path.join(d, "no_such_folder", "out.onnx")
    expect("output folder missing", run(good, nofolder), 3, "no_such_folder", "does not exist", out_path=nofolder, tmpdir=d)

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


    # ---- Hostile but well-formed models: a correct result or one clear error, never a crash,
    # a hang or an out-of-memory.
    import numpy as np
    from onnx import numpy_helper
    fx = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    fy = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)

    def i64(name, *v):
        return numpy_helper.from_array(np.array(v, dtype=np.int64).reshape(-1 if len(v) != 1 else ()), name)

    # A generator of 10^12 elements: simplifying keeps it (folding refuses at once); running or
    # verifying it is one error naming the node, with nothing written.
    huge = {
        "ConstantOfShape": ([helper.make_node("ConstantOfShape", ["shp"], ["big"], name="gen0")], [i64("shp", 1000000, 1000000)]),
        "Expand": ([helper.make_node("Expand", ["x", "shp"], ["big"], name="gen0")], [i64("shp", 1000000, 1000000)]),
        "Range": ([helper.make_node("Range", ["s", "l", "dl"], ["r"], name="gen0"),
                   helper.make_node("Cast", ["r"], ["big"], to=TensorProto.FLOAT)], [i64("s", 0), i64("l", 10**12), i64("dl", 1)]),
    }
    for op, (nodes, inits) in huge.items():
        m = simple_graph_model(nodes + [helper.make_node("Add", ["big", "x"], ["y"], name="add0")], [fx], [fy], inits)
        path = os.path.join(d, f"huge_{op}.onnx")
        onnx.save(m, path)
        t0 = time.time()
        r = run(path, out, "--quiet")
        expect(f"huge {op}: simplify", r, 0, tmpdir=d)
        if r.returncode == 0:
            checks += 1
            res = onnx.load(out)
            kept = [n.op_type for n in res.graph.node]
            if op not in kept or os.path.getsize(out) > 4096:
                failures.append(f"huge {op}: the generator was not kept as a node: {kept}, {os.path.getsize(out)} bytes")
            os.remove(out)
        expect(f"huge {op}: --verify", run(path, out, "--verify"), 6, f"huge_{op}.onnx", "gen0", "TB", out_path=out, tmpdir=d)
        expect(f"huge {op}: run", run("run", path), 6, "gen0", "TB")
        checks += 1
        if time.time() - t0 > 20:
            failures.append(f"huge {op}: took {time.time() - t0:.1f} s")
    # A declared input of 10^12 elements: no random values are made for it.
    m = simple_graph_model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
                           [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1000000, 1000000])], [fy])
    path = os.path.join(d, "huge_input.onnx")
    onnx.save(m, path)
    expect("huge input: run", run("run", path), 6, "input 'x'", "TB")
    expect("huge input: --verify", run(path, out, "--verify"), 6, "input 'x'", "TB", out_path=out, tmpdir=d)

    # 10,000 nested If levels: one error (exit 6), no stack overflow; 10 levels are fine and
    # come out valid for onnx.checker; 64 (the limit) still load, simplify and verify.
    deep = os.path.join(d, "deep.onnx")
    with open(deep, "wb") as f:
        f.write(nested_if_bytes(10000))
    for name, args in (("simplify", (deep, out)), ("inspect", ("inspect", deep)), ("run", ("run", deep))):
        expect(f"10000 nested Ifs: {name}", run(*args), 6, "deep.onnx", "nest more than 64 levels", out_path=out, tmpdir=d)
    for levels in (65, 100):
        with open(deep, "wb") as f:
            f.write(nested_if_bytes(levels))
        expect(f"{levels} nested Ifs", run(deep, out), 6, "deep.onnx", "nest more than 64 levels", out_path=out, tmpdir=d)
    for levels in (10, 64):
        with open(deep, "wb") as f:
            f.write(nested_if_bytes(levels))
        expect(f"{levels} nested Ifs: simplify", run(deep, out, "--quiet", "--verify"), 0, tmpdir=d)
        expect(f"{levels} nested Ifs: reload", run("verify", deep, out), 0)
        if levels == 10 and os.path.exists(out):
            checks += 1
            try:
                onnx.checker.check_model(onnx.load(out), full_check=True)
            except Exception as e:
                failures.append(f"10 nested Ifs: output fails onnx.checker: {e}")
        if os.path.exists(out):
            os.remove(out)  # the cases below that must fail check that they write nothing

    # External data whose offset or length points past the end of the file, or is not a number.
    m = good_model()
    m.graph.initializer.append(helper.make_tensor("w", TensorProto.FLOAT, [16], [1.0] * 16))
    m.graph.node.append(helper.make_node("Add", ["y", "w"], ["z"], name="add0"))
    m.graph.output[0].name = "z"
    m.graph.node[0].output[0] = "y"
    for what, offset, length, needle in (("offset past the end", "4096", "64", "too short"),
                                         ("offset and length past int64", "9223372036854775807", "9223372036854775807", "too short"),
                                         ("negative offset", "-8", "64", "'w'"),
                                         ("offset not a number", "12abc", "64", "offset"),
                                         ("length not a number", "0", "sixty-four", "length")):
        with open(os.path.join(d, "w.bin"), "wb") as f:
            f.write(b"\0" * 64)
        mm = onnx.ModelProto()
        mm.CopyFrom(m)
        t = mm.graph.initializer[0]
        del t.float_data[:]
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "w.bin"), ("offset", offset), ("length", length)):
            e = t.external_data.add()
            e.key, e.value = k, v
        path = os.path.join(d, "extoff.onnx")
        with open(path, "wb") as f:
            f.write(mm.SerializeToString())
        expect(f"external data: {what}", run(path, out), 5, "extoff.onnx", "'w'", needle, out_path=out, tmpdir=d)

    # Duplicate value names: every value has one definition (exit 5, naming node and value).
    xin = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    yout = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    w2 = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    N = helper.make_node
    dups = {
        "two nodes produce one name": [N("Relu", ["x"], ["a"], name="n1"), N("Neg", ["x"], ["a"], name="n2"), N("Add", ["a", "w"], ["y"], name="n3")],
        "node output named like a graph input": [N("Relu", ["x"], ["x"], name="n2"), N("Add", ["x", "w"], ["y"], name="n3")],
        "node output named like an initializer": [N("Relu", ["x"], ["w"], name="n2"), N("Add", ["x", "w"], ["y"], name="n3")],
        "one node produces a name twice": [N("Split", ["x"], ["a", "a"], name="n2", num_outputs=2), N("Concat", ["a", "w"], ["y"], name="n3", axis=0)],
        "two nodes of a branch produce one name": [
            N("If", ["c"], ["y"], name="n2",
              then_branch=helper.make_graph([N("Neg", ["x"], ["tb"], name="n3"), N("Abs", ["x"], ["tb"], name="n4")], "t", [],
                                            [helper.make_tensor_value_info("tb", TensorProto.FLOAT, [2])]),
              else_branch=helper.make_graph([N("Abs", ["x"], ["y2"], name="n5")], "e", [],
                                            [helper.make_tensor_value_info("y2", TensorProto.FLOAT, [2])]))],
    }
    for what, nodes in dups.items():
        ins = [xin] + ([helper.make_tensor_value_info("c", TensorProto.BOOL, [])] if "branch" in what else [])
        m = simple_graph_model(nodes, ins, [yout], [w2], opset=18)
        path = os.path.join(d, "dup.onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        expect(f"duplicate names: {what}", run(path, out), 5, "dup.onnx", "n2" if "branch" not in what else "n4",
               "defined more than once", out_path=out, tmpdir=d)

    # An export-like model listed in reverse order (tests/models/unsorted_tiny.onnx: shape
    # plumbing, Constant nodes after their consumers, an If reading values listed after it) is
    # sorted and simplified like its sorted twin: fewer nodes, valid for onnx.checker, checked.
    tiny = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "unsorted_tiny.onnx")
    r = run(tiny, out, "--quiet", "--verify")
    expect("unsorted_tiny: simplify", r, 0, tmpdir=d)
    if r.returncode == 0:
        checks += 1
        before, after = len(onnx.load(tiny).graph.node), len(onnx.load(out).graph.node)
        if after >= before:
            failures.append(f"unsorted_tiny: not simplified ({before} -> {after} nodes)")
        try:
            onnx.checker.check_model(onnx.load(out), full_check=True)
        except Exception as e:
            failures.append(f"unsorted_tiny: output fails onnx.checker: {e}")
        os.remove(out)

    # A branch whose attribute type is not GRAPH (found by fuzz.pipeline_short: a mutant of
    # squeeze_ifs.onnx whose else_branch lost its type field). Without the type field the type
    # comes from the payload (the output is valid and computes the same); a payload that
    # contradicts the type is an invalid model, never a graph that passes walk past unseen.
    def branchy(attr_type):
        then_g = helper.make_graph([N("Neg", ["x"], ["o1"], name="neg1")], "t1", [], [helper.make_tensor_value_info("o1", TensorProto.FLOAT, [2])])
        else_g = helper.make_graph([N("Abs", ["x"], ["o2"], name="abs1")], "t2", [], [helper.make_tensor_value_info("o2", TensorProto.FLOAT, [2])])
        nd = N("If", ["c"], ["y"], name="if0", then_branch=then_g, else_branch=else_g)
        for a in nd.attribute:
            if a.name == "else_branch":
                if attr_type is None:
                    a.ClearField("type")
                else:
                    a.type = attr_type
        return simple_graph_model([nd], [xin, helper.make_tensor_value_info("c", TensorProto.BOOL, [])], [yout])
    typeless = os.path.join(d, "typeless.onnx")
    with open(typeless, "wb") as f:
        f.write(branchy(None).SerializeToString())
    for extra in ((), ("--input", "c=1"), ("--input", "c=0")):
        r = run(typeless, out, "--quiet", *extra)
        expect("branch without a type field " + " ".join(extra), r, 0, tmpdir=d)
        if r.returncode == 0:
            checks += 1
            try:
                onnx.checker.check_model(onnx.load(out), full_check=True)
            except Exception as e:
                failures.append(f"branch without a type field: output fails onnx.checker: {e}")
            for c in ("0", "1"):
                expect(f"branch without a type field: same outputs (c={c})", run("verify", typeless, out, "--input", f"c={c}"), 0)
            os.remove(out)
    mistyped = os.path.join(d, "mistyped.onnx")
    with open(mistyped, "wb") as f:
        f.write(branchy(onnx.AttributeProto.FLOAT).SerializeToString())
    expect("branch typed FLOAT", run(mistyped, out), 5, "mistyped.onnx", "if0", "else_branch", "FLOAT", out_path=out, tmpdir=d)

    # Nodes out of topological order (ONNX Runtime runs such models; exports ship them):
    # sorted on load, the result is valid for onnx.checker and computes what the input does.
    nodes = [N("Add", ["t", "b2"], ["y"], name="last"),
             N("If", ["c"], ["t"], name="branch",
               then_branch=helper.make_graph([N("Mul", ["late", "x"], ["o1"])], "t1", [], [helper.make_tensor_value_info("o1", TensorProto.FLOAT, [2])]),
               else_branch=helper.make_graph([N("Sub", ["late", "x"], ["o2"])], "t2", [], [helper.make_tensor_value_info("o2", TensorProto.FLOAT, [2])])),
             N("Neg", ["b2"], ["late"], name="late"),
             N("Relu", ["x"], ["b1"], name="first"),
             N("Abs", ["b1"], ["b2"], name="second")]
    m = simple_graph_model(nodes, [xin, helper.make_tensor_value_info("c", TensorProto.BOOL, [])], [yout])
    unsorted = os.path.join(d, "unsorted.onnx")
    with open(unsorted, "wb") as f:
        f.write(m.SerializeToString())
    for args in ((), ("--no-passes",)):
        what = "unsorted nodes" + (" --no-passes" if args else "")
        r = run(unsorted, out, "--quiet", *args)
        expect(what, r, 0, tmpdir=d)
        if r.returncode == 0:
            checks += 1
            try:
                onnx.checker.check_model(onnx.load(out), full_check=True)
            except Exception as e:
                failures.append(f"{what}: output fails onnx.checker: {e}")
            for c in ("0", "1"):
                expect(f"{what}: same outputs (c={c})", run("verify", unsorted, out, "--input", f"c={c}"), 0)
            os.remove(out)

    # Usage errors.
    expect("no output", run(good), 2)
    expect("unknown option", run(good, out, "--frobnicate"), 2, "--frobnicate")

    # --external-location: OUT names that file, so it must be a relative path inside OUT's folder
    # (what the loader reads, here and in ONNX Runtime); anything else is exit 2 naming the
    # option, before anything is written.
    xw = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4096])
    yw = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4096])
    ww = helper.make_tensor("w", TensorProto.FLOAT, [4096], np.arange(4096, dtype=np.float32).tobytes(), raw=True)  # no splat
    weighted = os.path.join(d, "weighted.onnx")
    onnx.save(simple_graph_model([helper.make_node("Add", ["x", "w"], ["y"], name="add0")], [xw], [yw], [ww]), weighted)
    sub = os.path.join(d, "sub")
    os.makedirs(sub)
    subout = os.path.join(sub, "out.onnx")
    for loc in ["../x.data", "a/../../x.data", os.path.join(d, "abs.data"), "data/", "out.onnx"]:
        r = run(weighted, subout, "--external-data", "always", "--external-location", loc)
        expect(f"--external-location {loc}", r, 2, "--external-location", loc, out_path=subout, tmpdir=sub)
    checks += 1
    if os.listdir(sub) or os.path.exists(os.path.join(d, "x.data")) or os.path.exists(os.path.join(d, "abs.data")):
        failures.append(f"--external-location: refused locations left files: {os.listdir(sub)}")
    r = run(weighted, subout, "--external-data", "always", "--external-location", "weights/w.data")
    expect("--external-location in a missing folder", r, 3, "--external-location", "weights", out_path=subout, tmpdir=sub)
    r = run(weighted, subout, "--quiet", "--external-data", "always", "--external-location", "w.data")
    expect("--external-location w.data", r, 0, tmpdir=sub)
    if r.returncode == 0:
        expect("--external-location w.data: reload", run("verify", weighted, subout), 0)
        checks += 1
        locs = [kv.value for t in onnx.load(subout, load_external_data=False).graph.initializer
                for kv in t.external_data if kv.key == "location"]
        if locs != ["w.data"] or not os.path.exists(os.path.join(sub, "w.data")):
            failures.append(f"--external-location w.data: the model names {locs}")

    # --json FILE is checked before anything is written: a missing folder, a folder, the model
    # itself are exit 2 naming the option, and OUT is not written.
    for jpath in [os.path.join(d, "no_such_folder", "r.json"), sub, subout]:
        if os.path.exists(subout):
            os.remove(subout)
        r = run(weighted, subout, "--json", jpath)
        expect(f"--json {jpath}", r, 2, "--json", out_path=subout)

    # A failed check (a user rule that computes something else: Relu -> Neg) writes no model;
    # the reports asked for are written all the same, and the message names them and OUT.
    wrong_rules = os.path.join(d, "wrong_rules.txt")
    with open(wrong_rules, "w") as f:
        f.write('<domain: "r", opset_import: ["" : 17]>\nwrong (x) => (y) { y = Relu(x) }\n'
                '<domain: "r", opset_import: ["" : 17]>\nwrong_replacement (x) => (y) { y = Neg(x) }\n')
    rjson, rhtml, rplot = (os.path.join(d, "failed." + e) for e in ("json", "html", "svg"))
    if os.path.exists(out):
        os.remove(out)
    r = run(good, out, "--rewrite-rules", wrong_rules, "--json", rjson, "--report", rhtml,
            "--node-reduction-plot", rplot)
    expect("failed check with reports", r, 1, f"{out} was not written", f"the JSON report {rjson}",
           f"the HTML report {rhtml}", f"the node plot {rplot}", out_path=out, tmpdir=d)
    checks += 1
    if "nothing was written" in r.stderr or not all(os.path.exists(p) for p in (rjson, rhtml, rplot)):
        failures.append(f"failed check with reports: {r.stderr.strip()!r}, files {[os.path.exists(p) for p in (rjson, rhtml, rplot)]}")
    r = run(good, out, "--rewrite-rules", wrong_rules, "--json", "-")
    expect("failed check, JSON on stdout", r, 1, "; nothing was written", out_path=out, tmpdir=d)

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
