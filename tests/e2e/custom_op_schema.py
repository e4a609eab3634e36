"""--custom-op-schema FILE through the CLI: a custom op's output shapes written into the result
(value_info of the op's output and the graph output after it), none without the option, and a
bad schema file refused with exit 2 naming the file and the entry, nothing written."""
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

cli = sys.argv[1]
fails = 0
checks = 0


def check(cond, what):
    global fails, checks
    checks += 1
    if not cond:
        fails += 1
        print("FAIL:", what)


def shape_of(model, name):
    for vi in list(model.graph.value_info) + list(model.graph.output):
        if vi.name == name:
            t = vi.type.tensor_type
            if not t.HasField("shape"):
                return (t.elem_type, None)
            return (t.elem_type, [d.dim_param or d.dim_value for d in t.shape.dim])
    return None


with tempfile.TemporaryDirectory() as d:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 1])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
    k = helper.make_tensor_value_info("k", TensorProto.INT64, None)
    g = helper.make_graph([helper.make_node("Foo", ["x", "z"], ["y", "k"], domain="com.acme"),
                           helper.make_node("Relu", ["y"], ["out"])], "g", [x, z], [out, k])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.acme", 1)])
    m.ir_version = 8
    src = os.path.join(d, "m.onnx")
    onnx.save(m, src)
    schema = os.path.join(d, "acme.json")
    with open(schema, "w") as f:
        json.dump([{"domain": "com.acme", "op": "Foo", "since_version": 1,
                    "outputs": [{"type": "same_as_input:0", "shape": ["input:0:dim:0", 5, "input:1:dim:-1"]},
                                {"type": "int64", "shape": "broadcast"}]}], f)

    res = os.path.join(d, "r.onnx")
    p = subprocess.run([cli, src, res, "--custom-op-schema", schema], capture_output=True, text=True)
    check(p.returncode == 0, "run with the schema: exit %d %s" % (p.returncode, p.stderr))
    r = onnx.load(res)
    check(shape_of(r, "y") == (TensorProto.FLOAT, ["N", 5, 1]), "y: %r" % (shape_of(r, "y"),))
    check(shape_of(r, "out") == (TensorProto.FLOAT, ["N", 5, 1]), "out after Relu: %r" % (shape_of(r, "out"),))
    check(shape_of(r, "k") == (TensorProto.INT64, ["N", 3, 8]), "k (graph output): %r" % (shape_of(r, "k"),))

    res2 = os.path.join(d, "r2.onnx")
    p = subprocess.run([cli, src, res2], capture_output=True, text=True)
    check(p.returncode == 0, "run without the schema: exit %d %s" % (p.returncode, p.stderr))
    r2 = onnx.load(res2)
    s = shape_of(r2, "y")
    check(s is None or s[1] is None, "without the schema y's shape is unknown: %r" % (s,))

    bad = os.path.join(d, "bad.json")
    with open(bad, "w") as f:
        json.dump([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "floaty"}]}], f)
    res3 = os.path.join(d, "r3.onnx")
    p = subprocess.run([cli, src, res3, "--custom-op-schema", bad], capture_output=True, text=True)
    check(p.returncode == 2, "bad schema: exit %d" % p.returncode)
    check("bad.json" in p.stderr and "entry 0 (com.acme::Foo)" in p.stderr and "floaty" in p.stderr,
          "bad schema message: %s" % p.stderr)
    check(not os.path.exists(res3), "nothing written for a bad schema")

    p = subprocess.run([cli, src, res3, "--custom-op-schema", os.path.join(d, "missing.json")],
                       capture_output=True, text=True)
    check(p.returncode == 3 and "missing.json" in p.stderr, "missing schema file: exit %d %s" % (p.returncode, p.stderr))

print("%d checks, %d failed" % (checks, fails))
sys.exit(1 if fails else 0)
