#!/usr/bin/env python3
"""The CLI's report features of issue 28, end to end: --inline-functions (a model with local
functions, nested and with an attribute reference: the written model has none left, the check
passes, the report says what was inlined; a recursive function is refused with exit 2 or 3 and
nothing written).

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
    t = run(src, os.path.join(tmp, "inlined2.onnx"), "--inline-functions")
    check("functions inlined: 2 calls of local:Inner, local:Outer; 2 removed from the model" in t.stdout,
          "text report names the inlined functions")

rec = os.path.join(tmp, "recursive.onnx")
onnx.save(functions_model(recursive=True), rec)
bad_out = os.path.join(tmp, "recursive_out.onnx")
r = run(rec, bad_out, "--inline-functions", "--quiet")
check(r.returncode != 0 and "calls itself" in r.stderr, f"a recursive function is refused ({r.returncode}: {r.stderr.strip()})")
check(not os.path.exists(bad_out), "nothing written for the refused model")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
