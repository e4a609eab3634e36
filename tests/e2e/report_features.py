#!/usr/bin/env python3
"""The CLI's report features of issue 28, end to end: --inline-functions (a model with local
functions, nested and with an attribute reference: the written model has none left, the check
passes, the report says what was inlined; a recursive function is refused and nothing written);
--graph-diff (its counts add up to the report's node counts); --profile (every stage, a peak
per stage on Linux); --node-reduction-plot (an SVG with one point per round, parsed as XML).

usage: report_features.py ONNXTRIM"""
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

binary = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp()
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def functions_model(recursive=False):
    # y = local.Outer<k=2.0>(x); Outer(p) = local.Inner(p) * k + p; Inner(a) = Relu(a)
    inner_body = [helper.make_node("Relu", ["a"], ["b"])] if not recursive else \
        [helper.make_node("Outer", ["a"], ["b"], domain="local")]
    inner = helper.make_function("local", "Inner", ["a"], ["b"], inner_body,
                                 [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    kconst = helper.make_node("Constant", [], ["kc"])
    ref = onnx.AttributeProto()
    ref.name = "value_float"
    ref.ref_attr_name = "k"
    ref.type = onnx.AttributeProto.FLOAT
    kconst.attribute.append(ref)
    outer = helper.make_function(
        "local", "Outer", ["p"], ["q"],
        [helper.make_node("Inner", ["p"], ["i"], domain="local"), kconst,
         helper.make_node("Mul", ["i", "kc"], ["m"]), helper.make_node("Add", ["m", "p"], ["q"])],
        [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)], attributes=["k"])
    g = helper.make_graph(
        [helper.make_node("Outer", ["x"], ["t"], domain="local", k=2.0), helper.make_node("Neg", ["t"], ["y"])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[inner, outer])
    m.ir_version = 8
    return m


def run(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


src = os.path.join(tmp, "functions.onnx")
onnx.save(functions_model(), src)
out = os.path.join(tmp, "inlined.onnx")
r = run(src, out, "--inline-functions", "--json", "-", "--quiet")
check(r.returncode == 0, f"--inline-functions exits 0 ({r.returncode}: {r.stderr.strip()})")
if r.returncode == 0:
    rep = json.loads(r.stdout)
    got = onnx.load(out)
    check(len(got.functions) == 0, f"no function left in the written model ({len(got.functions)})")
    ops = sorted(n.op_type for n in got.graph.node)
    check("Outer" not in ops and "Inner" not in ops, f"no call left: {ops}")
    check("Relu" in ops, f"Inner's Relu is in the main graph: {ops}")
    inl = rep.get("inlined_functions", {})
    check(inl.get("calls") == 2, f"report: 2 calls inlined (Outer and the nested Inner): {inl}")
    check(sorted(inl.get("removed", [])) == ["local:Inner", "local:Outer"], f"report: both functions removed: {inl}")
    check(rep["verification"]["ran"] and rep["verification"]["ok"], "the check ran and passed")
    onnx.checker.check_model(got)
    check(True, "python3-onnx's checker accepts the written model")
    # ONNX Runtime runs the original (its calls) and the inlined model alike.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import numpy as np
    from ort_util import run_ort
    x = np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32)
    want = run_ort(src, {"x": x})["y"]
    got_y = run_ort(out, {"x": x})["y"]
    check(np.array_equal(want, got_y), f"ONNX Runtime: inlined == original ({np.abs(want - got_y).max()})")
    check(np.allclose(want, -(np.maximum(x, 0) * 2 + x)), "ONNX Runtime: y = -(Relu(x) * 2 + x)")
    t = run(src, os.path.join(tmp, "inlined2.onnx"), "--inline-functions")
    check("functions inlined: 2 calls of local:Inner, local:Outer; 2 removed from the model" in t.stdout,
          "text report names the inlined functions")

rec = os.path.join(tmp, "recursive.onnx")
onnx.save(functions_model(recursive=True), rec)
bad_out = os.path.join(tmp, "recursive_out.onnx")
r = run(rec, bad_out, "--inline-functions", "--quiet")
check(r.returncode != 0 and "calls itself" in r.stderr, f"a recursive function is refused ({r.returncode}: {r.stderr.strip()})")
check(not os.path.exists(bad_out), "nothing written for the refused model")

# --graph-diff on examples/dirty.onnx: the counts add up to the main graph's before and after.
DIRTY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples", "dirty.onnx")
r = run(DIRTY, os.path.join(tmp, "dirty_out.onnx"), "--graph-diff", "--json", "-", "--quiet")
check(r.returncode == 0, f"--graph-diff exits 0 ({r.stderr.strip()})")
if r.returncode == 0:
    rep = json.loads(r.stdout)
    d = rep["graph_diff"]
    kept, removed, added = d["nodes_kept"], len(d["nodes_removed"]), len(d["nodes_added"])
    check(kept + removed == rep["before"]["top_level_nodes"],
          f"kept {kept} + removed {removed} = nodes before {rep['before']['top_level_nodes']}")
    check(kept + added == rep["after"]["top_level_nodes"],
          f"kept {kept} + added {added} = nodes after {rep['after']['top_level_nodes']}")
    check(removed > 0 and d["inputs"] == [] and d["outputs"] == [], f"nodes removed, interface unchanged: {d['inputs']} {d['outputs']}")
    hist = {c["op"]: (c["before"], c["after"]) for c in d["op_counts"]}
    check(hist and all(rep["before"]["op_histogram"].get(op, 0) == b and rep["after"]["op_histogram"].get(op, 0) == a
                       for op, (b, a) in hist.items()), f"op counts agree with the report's histograms: {hist}")
    t = run(DIRTY, os.path.join(tmp, "dirty_out2.onnx"), "--graph-diff")
    check(f"graph diff (main graph): {kept} nodes kept, {removed} removed, {added} added" in t.stdout,
          "text report has the graph diff line")

def peak_reset_works():
    """Whether this kernel brings VmHWM down to VmRSS when 5 is written to clear_refs (some
    sandboxes accept the write and keep the old peak; onnxtrim then reports 'not measured')."""
    def vm():
        with open("/proc/self/status") as f:
            d = dict(l.split(":", 1) for l in f if l.startswith(("VmHWM", "VmRSS")))
        return int(d["VmHWM"].split()[0]), int(d["VmRSS"].split()[0])
    try:
        b = bytearray(32 << 20)
        for i in range(0, len(b), 4096):
            b[i] = 1
        del b
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        hwm, rss = vm()
        return hwm < rss + 16 * 1024
    except OSError:
        return False


# --profile and --node-reduction-plot on examples/dirty.onnx.
plot = os.path.join(tmp, "rounds.svg")
r = run(DIRTY, os.path.join(tmp, "dirty_out3.onnx"), "--profile", "--node-reduction-plot", plot, "--json", "-", "--quiet")
check(r.returncode == 0, f"--profile --node-reduction-plot exit 0 ({r.stderr.strip()})")
if r.returncode == 0:
    rep = json.loads(r.stdout)
    stages = [p["stage"] for p in rep["profile"]]
    check(stages[0] == "load" and stages[-1] == "save" and "simplify" in stages and "check" in stages,
          f"profile stages: {stages}")
    peaks = [p["peak_bytes"] for p in rep["profile"]]
    linux = peak_reset_works()
    check(all(isinstance(b, int) and b > 0 for b in peaks) if linux else all(b is None for b in peaks),
          f"peak memory per stage: {peaks}")
    rs = rep["round_stats"]
    check(len(rs) == rep["rounds"] + 1 and rs[0]["round"] == 0, f"round_stats: one per round and round 0 ({len(rs)})")
    check(rs[0]["nodes"] == rep["before"]["nodes"] and rs[-1]["nodes"] == rep["after"]["nodes"],
          f"round_stats from {rs[0]['nodes']} to {rs[-1]['nodes']} nodes = before/after")
    import xml.etree.ElementTree as ET
    root = ET.parse(plot).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    lines = {pl.get("id"): pl.get("points").split() for pl in root.iter(ns + "polyline")}
    check(len(lines.get("nodes", [])) == len(rs) and len(lines.get("initializer_bytes", [])) == len(rs),
          f"the SVG has one point per round on both lines ({ {k: len(v) for k, v in lines.items()} })")
    texts = [t.text for t in root.iter(ns + "text")]
    check("round (0: before the passes)" in texts and "nodes" in texts, "the SVG has axis labels")
    check("href" not in open(plot).read(), "the SVG refers to no external asset")
    t = run(DIRTY, os.path.join(tmp, "dirty_out4.onnx"), "--profile")
    check("profile:" in t.stdout and "pass (slowest first)" in t.stdout, "text report has the profile")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
