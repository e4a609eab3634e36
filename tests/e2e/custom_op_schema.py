"""--custom-op-schema FILE through the CLI: a custom op's output shapes written into the result
(value_info of the op's output and the graph output after it), none without the option, and a
bad schema file refused with exit 2 naming the file and the entry, nothing written. Then the
ONNX-function form (text and .onnx): shapes from the body, the check run, a call folded."""
import json
import os
import subprocess
import sys
import tempfile

import onnx
import onnx.numpy_helper
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

# The ONNX-function form: the op's body (ONNX text holding functions, or a .onnx model's
# functions) gives its semantics. Shape inference infers the body, the check runs it, and a call
# on constants is folded by running it: exact values, without ONNX Runtime.
FOO_TEXT = """
<domain: "com.acme", opset_import: ["" : 17]>
Foo (x, z) => (y) {
  s = Add(x, z)
  r = Relu(s)
  two = Constant <value = float {2.0}> ()
  y = Mul(r, two)
}
"""

with tempfile.TemporaryDirectory() as d:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 1])
    x2 = helper.make_tensor_value_info("x2", TensorProto.FLOAT, [2])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
    o2 = helper.make_tensor_value_info("o2", TensorProto.FLOAT, None)
    a = helper.make_tensor("a", TensorProto.FLOAT, [2], [1.0, -3.0])
    b = helper.make_tensor("b", TensorProto.FLOAT, [2], [0.5, 2.5])
    g = helper.make_graph([helper.make_node("Foo", ["x", "z"], ["y"], domain="com.acme", name="foo_x"),
                           helper.make_node("Relu", ["y"], ["out"]),
                           helper.make_node("Foo", ["a", "b"], ["c"], domain="com.acme", name="foo_const"),
                           helper.make_node("Add", ["c", "x2"], ["o2"])], "g", [x, z, x2], [out, o2], [a, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.acme", 1)])
    m.ir_version = 8
    src = os.path.join(d, "m.onnx")
    onnx.save(m, src)
    text_file = os.path.join(d, "foo.txt")
    with open(text_file, "w") as f:
        f.write(FOO_TEXT)
    fm = helper.make_model(helper.make_graph([], "functions", [], []), opset_imports=[helper.make_opsetid("", 17)])
    fm.functions.append(helper.make_function(
        "com.acme", "Foo", ["x", "z"], ["y"],
        [helper.make_node("Add", ["x", "z"], ["s"]), helper.make_node("Relu", ["s"], ["r"]),
         helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])),
         helper.make_node("Mul", ["r", "two"], ["y"])],
        [helper.make_opsetid("", 17)]))
    onnx_file = os.path.join(d, "foo.onnx")
    onnx.save(fm, onnx_file)

    for schema in (text_file, onnx_file):
        res = os.path.join(d, "f.onnx")
        p = subprocess.run([cli, src, res, "--custom-op-schema", schema, "--json", "-", "-q"], capture_output=True,
                           text=True)
        check(p.returncode == 0, "function %s: exit %d %s" % (schema, p.returncode, p.stderr))
        if p.returncode != 0:
            continue
        rep = json.loads(p.stdout)
        v = rep["verification"]
        check(v["ran"] and v["ok"] and [o["name"] for o in v["outputs"]] == ["out", "o2"] and
              all(o.get("comparable", True) for o in v["outputs"]),
              "function %s: the check compares both outputs: %r" % (schema, v))
        r = onnx.load(res)
        check(shape_of(r, "y") == (TensorProto.FLOAT, ["N", 3, 8]), "function: y inferred from the body: %r"
              % (shape_of(r, "y"),))
        check(shape_of(r, "out") == (TensorProto.FLOAT, ["N", 3, 8]), "function: out: %r" % (shape_of(r, "out"),))
        check([n.name for n in r.graph.node if n.op_type == "Foo"] == ["foo_x"],
              "function: the call on constants is folded, the other kept: %r" % [n.name for n in r.graph.node])
        inits = {t.name: list(onnx.numpy_helper.to_array(t).ravel()) for t in r.graph.initializer}
        check(inits.get("c") == [3.0, 0.0], "function: Foo(a, b) = 2 * Relu(a + b) = [3, 0]: %r" % (inits,))
        check(not r.functions, "function: the result gains no function: %r" % [f.name for f in r.functions])

    # Without it the check cannot run the op, and says so.
    p = subprocess.run([cli, src, os.path.join(d, "n.onnx"), "--json", "-", "-q"], capture_output=True, text=True)
    check(p.returncode == 0 and not json.loads(p.stdout)["verification"]["ran"] and
          "no kernel for operator Foo" in json.loads(p.stdout)["verification"]["skipped"],
          "no function: the check is skipped: %s %s" % (p.stdout[-300:], p.stderr))

    # A function of ONNX's own domain describes no custom op: exit 2 naming the file.
    own = os.path.join(d, "own.txt")
    with open(own, "w") as f:
        f.write(FOO_TEXT.replace('"com.acme"', '"ai.onnx"'))
    p = subprocess.run([cli, src, os.path.join(d, "o.onnx"), "--custom-op-schema", own], capture_output=True, text=True)
    check(p.returncode == 2 and "own.txt" in p.stderr and "ONNX's own" in p.stderr, "own domain: %d %s"
          % (p.returncode, p.stderr))
    check(not os.path.exists(os.path.join(d, "o.onnx")), "own domain: nothing written")

print("%d checks, %d failed" % (checks, fails))
sys.exit(1 if fails else 0)
