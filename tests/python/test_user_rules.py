"""User rewrite rules from Python (docs/rewrite-rules.md): a rewriter callback, function pairs,
the onnxsim drop-in's custom_rewriter / function_rewrite_rules, OnnxSlim's register_fusion_pattern,
and the CLI's --rewrite-rules; every result against ONNX Runtime on random inputs.

Run by CTest (python.api) with PYTHONPATH=build/python, ONNXTRIM_CLI=build/onnxtrim."""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxtrim
from onnxtrim.compat import onnxsim, onnxslim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from ort_util import run_ort  # noqa: E402

CLI = os.environ.get("ONNXTRIM_CLI", os.path.join(ROOT, "build", "onnxtrim"))
ALPHA = 1.0 / 6


def hard_swish_model(swap=False, extra_reader=False):
    """y = x * HardSigmoid(x) (HardSwish spelled out), then Relu: what an exporter writes."""
    h = helper.make_node("HardSigmoid", ["x"], ["h"], alpha=ALPHA, beta=0.5)
    mul = helper.make_node("Mul", ["h", "x"] if swap else ["x", "h"], ["m"])
    relu = helper.make_node("Relu", ["m"], ["y"])
    nodes = [h, mul, relu]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])]
    if extra_reader:
        nodes.append(helper.make_node("Neg", ["h"], ["z"]))
        outputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 16]))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])], outputs)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def ops(m):
    return [n.op_type for n in m.graph.node]


def same_as_ort(original, result, seed=0):
    """Both models in ONNX Runtime on the same random input: the same outputs."""
    import tempfile
    x = np.random.default_rng(seed).uniform(-5, 5, (2, 16)).astype(np.float32)
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "a.onnx"), os.path.join(d, "b.onnx")
        onnx.save(original, pa)
        onnx.save(result, pb)
        a = run_ort(pa, {"x": x})
        b = run_ort(pb, {"x": x})
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-6, atol=1e-6)


def fuse_hard_swish(model):
    """A hand-written rewriter: x * HardSigmoid(x) (alpha 1/6, beta 0.5) -> HardSwish(x)."""
    g = model.graph
    by_out = {o: n for n in g.node for o in n.output}
    for n in list(g.node):
        if n.op_type != "Mul":
            continue
        for a, b in ((0, 1), (1, 0)):
            h = by_out.get(n.input[b])
            if h is not None and h.op_type == "HardSigmoid" and h.input[0] == n.input[a]:
                readers = [m for m in g.node if h.output[0] in m.input]
                if len(readers) != 1 or h.output[0] in [o.name for o in g.output]:
                    continue
                i = list(g.node).index(n)
                g.node.remove(n)
                g.node.insert(i, helper.make_node("HardSwish", [n.input[a]], list(n.output)))
                g.node.remove(h)
                return model
    return False


def test_rewriter_callback_fuses_and_is_checked():
    m = hard_swish_model()
    out, rep = onnxtrim.simplify(m, rewriters=fuse_hard_swish)
    assert ops(out) == ["HardSwish", "Relu"]
    stats = {p["name"]: p for p in rep.passes}
    assert stats["user:fuse_hard_swish"]["changes"] > 0
    assert stats["user:fuse_hard_swish"]["runs"] >= 2  # the round that found nothing ends the fixed point
    assert rep.verification["ran"] and rep.verification["ok"]
    same_as_ort(m, out)


def test_rewriter_in_place_and_by_name():
    def in_place(model):
        return None if fuse_hard_swish(model) is not False else False
    out, rep = onnxtrim.simplify(hard_swish_model(swap=True), rewriters={"hs": in_place})
    assert ops(out) == ["HardSwish", "Relu"]
    assert any(p["name"] == "user:hs" for p in rep.passes)


def test_rewriter_error_names_the_rule():
    def broken(model):
        raise RuntimeError("cannot rewrite")
    with pytest.raises(onnxtrim.UsageError, match="rewrite rule 'broken' failed: .*cannot rewrite"):
        onnxtrim.simplify(hard_swish_model(), rewriters=[broken])
    with pytest.raises(onnxtrim.UsageError, match="returns an onnx.ModelProto"):
        onnxtrim.simplify(hard_swish_model(), rewriters=[lambda m: 42])


def test_wrong_rewriter_fails_the_check():
    def wrong(model):
        if model.graph.node[0].op_type == "Neg":
            return False
        model.graph.node.insert(0, helper.make_node("Neg", ["x"], ["xn"]))
        model.graph.node[1].input[0] = "xn"
        return model
    with pytest.raises(onnxtrim.VerificationFailed):
        onnxtrim.simplify(hard_swish_model(), rewriters=[wrong])


RULES_TEXT = """
<domain: "rules", opset_import: ["" : 17]>
hard_swish (x) => (y) {
  h = HardSigmoid <alpha = 0.16666667, beta = 0.5> (x)
  y = Mul(x, h)
}
<domain: "rules", opset_import: ["" : 17]>
hard_swish_replacement (x) => (y) {
  y = HardSwish(x)
}
"""


def function_pair():
    """The same rule as (pattern, replacement) FunctionProtos, built with onnx.helper."""
    pattern = helper.make_function(
        "rules", "hard_swish", ["x"], ["y"],
        [helper.make_node("HardSigmoid", ["x"], ["h"], alpha=ALPHA, beta=0.5),
         helper.make_node("Mul", ["x", "h"], ["y"])],
        [helper.make_opsetid("", 17)])
    replacement = helper.make_function("rules", "hard_swish_x", ["x"], ["y"],
                                       [helper.make_node("HardSwish", ["x"], ["y"])], [helper.make_opsetid("", 17)])
    return pattern, replacement


@pytest.mark.parametrize("swap", [False, True])
def test_function_pairs(swap):
    m = hard_swish_model(swap=swap)
    out, rep = onnxtrim.simplify(m, rewrite_rules=[function_pair()])
    assert ops(out) == ["HardSwish", "Relu"]
    assert any(p["name"] == "user:hard_swish" and p["changes"] > 0 for p in rep.passes)
    same_as_ort(m, out)


def test_function_pair_refused_when_inner_value_read_outside():
    m = hard_swish_model(extra_reader=True)
    out, _ = onnxtrim.simplify(m, rewrite_rules=[function_pair()])
    assert "HardSwish" not in ops(out)
    same_as_ort(m, out)


def test_rules_file_from_python_and_cli(tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES_TEXT)
    m = hard_swish_model()
    out, _ = onnxtrim.simplify(m, rewrite_rules=str(rules))
    assert ops(out) == ["HardSwish", "Relu"]
    src, dst, js = tmp_path / "m.onnx", tmp_path / "o.onnx", tmp_path / "r.json"
    onnx.save(m, src)
    subprocess.run([CLI, str(src), str(dst), "--rewrite-rules", str(rules), "--json", str(js), "--quiet"], check=True)
    result = onnx.load(dst)
    assert ops(result) == ["HardSwish", "Relu"]
    rep = json.loads(js.read_text())
    assert any(p["name"] == "user:hard_swish" and p["changes"] > 0 for p in rep["passes"])
    assert rep["verification"]["ran"] and rep["verification"]["ok"]
    same_as_ort(m, result)
    # The same rules as a .onnx model of functions.
    rules_model = tmp_path / "rules.onnx"
    rm = helper.make_model(helper.make_graph([], "rules", [], []), opset_imports=[helper.make_opsetid("", 17)])
    p, r = function_pair()
    r.name = "hard_swish_replacement"
    rm.functions.extend([p, r])
    onnx.save(rm, rules_model)
    subprocess.run([CLI, str(src), str(dst), "--rewrite-rules", str(rules_model), "--quiet"], check=True)
    assert ops(onnx.load(dst)) == ["HardSwish", "Relu"]
    # --explain names the rule and why it does not fire at a node.
    m2 = tmp_path / "m2.onnx"
    onnx.save(hard_swish_model(extra_reader=True), m2)
    r = subprocess.run([CLI, str(m2), str(dst), "--rewrite-rules", str(rules), "--explain", "m", "--json", "-",
                        "--quiet"], check=True, capture_output=True, text=True)
    lines = {x["rewrite"]: x["result"] for x in json.loads(r.stdout)["explain"]["rewrites"]}
    assert lines["user:hard_swish"] == "'h' (inside the match) is also read by #3 (Neg)" or \
        lines["user:hard_swish"].startswith("'h' (inside the match) is also read by"), lines
    # Bad rules: exit 2 naming the file; a missing file: exit 3; nothing written.
    bad = tmp_path / "bad.txt"
    bad.write_text('<domain: "r", opset_import: ["" : 17]> p (x) => (y) { y = Neg(x) }')
    fresh = tmp_path / "fresh.onnx"
    r = subprocess.run([CLI, str(src), str(fresh), "--rewrite-rules", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and "bad.txt" in r.stderr and "p_replacement" in r.stderr, r.stderr
    r = subprocess.run([CLI, str(src), str(fresh), "--rewrite-rules", str(tmp_path / "none.txt")],
                       capture_output=True, text=True)
    assert r.returncode == 3 and "none.txt" in r.stderr, r.stderr
    assert not fresh.exists()


def test_skip_one_user_rule_by_name(tmp_path):
    # Two user rules; --skip user:NAME leaves one out, the other still runs.
    m = hard_swish_model()
    noop = lambda model: False  # noqa: E731
    out, rep = onnxtrim.simplify(m, rewriters={"hs": fuse_hard_swish, "noop": noop}, skip=["user:hs"])
    names = [p["name"] for p in rep.passes]
    assert "user:hs" not in names and "user:noop" in names, names
    assert "HardSwish" not in ops(out)
    same_as_ort(m, out)
    with pytest.raises(onnxtrim.UsageError, match=r"unknown user rule 'user:nope' \(this run's user rules: user:hs, "
                                                  r"user:noop\)"):
        onnxtrim.simplify(m, rewriters={"hs": fuse_hard_swish, "noop": noop}, skip=["user:nope"])
    with pytest.raises(onnxtrim.UsageError, match="this run has no user rules"):
        onnxtrim.simplify(m, skip=["user:hs"])
    # From the CLI, with a rules file.
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES_TEXT)
    src, dst = tmp_path / "m.onnx", tmp_path / "o.onnx"
    onnx.save(m, src)
    r = subprocess.run([CLI, str(src), str(dst), "--rewrite-rules", str(rules), "--skip", "user:hard_swish",
                        "--json", "-", "--quiet"], check=True, capture_output=True, text=True)
    assert "user:hard_swish" not in [p["name"] for p in json.loads(r.stdout)["passes"]]
    assert "HardSwish" not in ops(onnx.load(dst))
    os.remove(dst)
    r = subprocess.run([CLI, str(src), str(dst), "--rewrite-rules", str(rules), "--skip", "user:hardswish"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "unknown user rule 'user:hardswish' (this run's user rules: user:hard_swish)" in r.stderr, \
        r.stderr
    assert not dst.exists()


def test_onnxsim_dropin_custom_rewriter_and_function_rules():
    m = hard_swish_model()
    out, ok = onnxsim.simplify(m, custom_rewriter=fuse_hard_swish)
    assert ok and ops(out) == ["HardSwish", "Relu"]
    same_as_ort(m, out)
    out, ok = onnxsim.simplify(m, function_rewrite_rules=[function_pair()])
    assert ok and ops(out) == ["HardSwish", "Relu"]
    with pytest.raises(TypeError, match="custom_rewriter"):
        onnxsim.simplify(m, custom_rewriter=42)


def test_onnxslim_register_fusion_pattern():
    from onnxtrim.compat.onnxslim_pattern import DEFAULT_FUSION_PATTERNS

    class HardSwishMatcher(onnxslim.PatternMatcher):
        def __init__(self, priority):
            pattern = onnxslim.Pattern("""
                input  input  0 2 hs_0 mul_0
                HardSigmoid hs_0 1 1 input mul_0
                Mul    mul_0  2 1 input hs_0 output
                output output 1 0 mul_0
                """)
            super().__init__(pattern, priority)

        @property
        def name(self):
            return "FusionHardSwish"

        def parameter_check(self):
            a = self.hs_0.attrs
            return abs(a.get("alpha", 0.2) - ALPHA) < 1e-7 and a.get("beta", 0.5) == 0.5

        def rewrite(self, opset=11):
            x = self.hs_0.inputs[0]
            y = self.mul_0.outputs[0]
            y.inputs.clear()  # OnnxSlim's idiom: detaching changes nothing here
            return {y.name: {"op": "HardSwish", "inputs": [x], "outputs": [y], "name": y.name, "domain": None}}

    onnxslim.register_fusion_pattern(HardSwishMatcher(1))
    try:
        m = hard_swish_model()
        out = onnxslim.slim(m)
        assert ops(out) == ["HardSwish", "Relu"]
        same_as_ort(m, out)
        # Skipped by name, like OnnxSlim's own patterns.
        out = onnxslim.slim(m, skip_fusion_patterns=["FusionHardSwish"])
        assert "HardSwish" not in ops(out)
        # The swapped Mul is not this pattern (OnnxSlim matches inputs in order).
        out = onnxslim.slim(hard_swish_model(swap=True))
        assert "HardSwish" not in ops(out)
    finally:
        DEFAULT_FUSION_PATTERNS.pop("FusionHardSwish", None)
    with pytest.raises(TypeError):
        onnxslim.register_fusion_pattern(object())


def attr_ref(name, ref, kind):
    """An attribute of a function's node that refers to the function's attribute `ref` (ONNX text's
    `name = @ref`)."""
    a = onnx.AttributeProto()
    a.name, a.ref_attr_name, a.type = name, ref, kind
    return a


def test_attribute_wildcard_passes_to_the_replacement():
    """Relu(Transpose<perm=@p>(x)) -> Transpose<perm=@p>(Relu(x)): the matched node's perm (or its
    absence) reaches the replacement."""
    t = helper.make_node("Transpose", ["x"], ["t"])
    t.attribute.append(attr_ref("perm", "p", onnx.AttributeProto.INTS))
    pattern = helper.make_function("rules", "relu_after_transpose", ["x"], ["y"],
                                   [t, helper.make_node("Relu", ["t"], ["y"])], [helper.make_opsetid("", 17)], ["p"])
    t2 = helper.make_node("Transpose", ["r"], ["y"])
    t2.attribute.append(attr_ref("perm", "p", onnx.AttributeProto.INTS))
    replacement = helper.make_function("rules", "r", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["r"]), t2],
                                       [helper.make_opsetid("", 17)], ["p"])
    for perm, shape in (([1, 0, 2], [3, 2, 4]), (None, [4, 3, 2])):
        kw = {} if perm is None else {"perm": perm}
        g = helper.make_graph([helper.make_node("Transpose", ["x"], ["t"], **kw), helper.make_node("Relu", ["t"], ["y"])],
                              "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        out, rep = onnxtrim.simplify(m, rewrite_rules=[(pattern, replacement)])
        assert ops(out) == ["Relu", "Transpose"], ops(out)
        got = {a.name: list(a.ints) for a in out.graph.node[1].attribute}
        assert got == ({} if perm is None else {"perm": perm})
        assert out.graph.output[0].name == "y"
        x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
        np.testing.assert_array_equal(onnxtrim.run(out, {"x": x})["y"], onnxtrim.run(m, {"x": x})["y"])


BERT = os.path.join(ROOT, "tests", "models", "bert_tiny.onnx")
ERF_GELU_RULES = os.path.join(ROOT, "examples", "rewrite_rules", "erf_gelu.txt")


def bert_feeds():
    rng = np.random.default_rng(3)
    return {"input_ids": rng.integers(0, 50, (2, 7)).astype(np.int64),
            "attention_mask": np.ones((2, 7), np.int64)}


def same_in_ort(path_a, path_b, feeds):
    a, b = run_ort(path_a, feeds), run_ort(path_b, feeds)
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-4, atol=1e-5)


class ErfGeluMatcher(onnxslim.PatternMatcher):
    """x * (erf(x / sqrt 2) + 1) * 0.5 -> com.microsoft.Gelu(x), in OnnxSlim's pattern text."""

    def __init__(self, priority):
        super().__init__(onnxslim.Pattern("""
            input  input  0 2 mul_0 div_0
            Div    div_0  2 1 input ? erf_0
            Erf    erf_0  1 1 div_0 add_0
            Add    add_0  2 1 erf_0 ? mul_0
            Mul    mul_0  2 1 input add_0 mul_1
            Mul    mul_1  2 1 mul_0 ? output
            output output 1 0 mul_1
            """), priority)

    @property
    def name(self):
        return "FusionErfGelu"

    def parameter_check(self):
        def const(node, i):
            v = node.inputs[i].values
            return None if v is None or v.size != 1 else float(v.reshape(-1)[0])
        return (const(self.div_0, 1) == np.float32(np.sqrt(2)) and const(self.add_0, 1) == 1.0
                and const(self.mul_1, 1) == 0.5)

    def rewrite(self, opset=11):
        x, y = self.div_0.inputs[0], self.mul_1.outputs[0]
        return {y.name: {"op": "Gelu", "inputs": [x], "outputs": [y], "name": y.name, "domain": "com.microsoft"}}


def test_a_python_rule_fuses_the_erf_gelu_of_a_fixture(tmp_path):
    """bert_tiny's two erf Gelus become com.microsoft.Gelu by a rule written in Python (OnnxSlim's
    matcher shape), and by the same rule as a function pair on the command line; ONNX Runtime
    gives the original's outputs. (The evaluator has no com.microsoft kernels: the check is skipped,
    saying so.)"""
    from onnxtrim.compat.onnxslim_pattern import fusion_rewriter
    out, rep = onnxtrim.simplify(BERT,
                                 rewriters=[("FusionErfGelu", fusion_rewriter("FusionErfGelu", [ErfGeluMatcher(1)]))])
    assert ops(out).count("Gelu") == 2 and "Erf" not in ops(out)
    assert not rep.verification["ran"]
    assert "the result of the user rewrite rules" in rep.verification["skipped"], rep.verification
    assert "com.microsoft" in rep.verification["skipped"], rep.verification
    assert any(p["name"] == "user:FusionErfGelu" and p["changes"] > 0 for p in rep.passes)
    py_out = tmp_path / "py.onnx"
    onnx.save(out, py_out)
    same_in_ort(BERT, str(py_out), bert_feeds())
    cli_out = tmp_path / "cli.onnx"
    subprocess.run([CLI, BERT, str(cli_out), "--rewrite-rules", ERF_GELU_RULES, "--quiet"], check=True)
    cm = onnx.load(cli_out)
    assert [n.op_type for n in cm.graph.node if n.domain == "com.microsoft"] == ["Gelu", "Gelu"]
    assert len(cm.graph.node) == len(out.graph.node)
    same_in_ort(BERT, str(cli_out), bert_feeds())
    # With the check on, the result's com.microsoft.Gelu cannot be evaluated: exit 6 naming it.
    r = subprocess.run([CLI, BERT, str(tmp_path / "x.onnx"), "--rewrite-rules", ERF_GELU_RULES, "--verify"],
                       capture_output=True, text=True)
    assert r.returncode == 6 and "com.microsoft" in r.stderr, r.stderr
