"""Custom-op schemas from Python: the option table's custom-op-schema as custom_op_schema=
(one file or a list); the rule holds for that call only."""
import json

import onnx
import pytest
from onnx import TensorProto, helper

import onnxtrim


def _model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 1])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Foo", ["x", "z"], ["y"], domain="com.acme"),
                           helper.make_node("Relu", ["y"], ["out"])], "g", [x, z], [out])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.acme", 1)])
    m.ir_version = 8
    return m


def _dims(model, name):
    for vi in list(model.graph.value_info) + list(model.graph.output):
        if vi.name == name and vi.type.tensor_type.HasField("shape"):
            return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]
    return None


def test_custom_op_schema_for_one_call(tmp_path):
    schema = tmp_path / "acme.json"
    schema.write_text(json.dumps([{"domain": "com.acme", "op": "Foo",
                                   "outputs": [{"type": "same_as_input:0", "shape": ["input:0:dim:0", 5, 2]}]}]))
    m, _ = onnxtrim.simplify(_model(), custom_op_schema=str(schema))
    assert _dims(m, "y") == ["N", 5, 2]
    assert _dims(m, "out") == ["N", 5, 2]
    m2, _ = onnxtrim.simplify(_model(), custom_op_schema=[str(schema)])
    assert _dims(m2, "out") == ["N", 5, 2]
    m3, _ = onnxtrim.simplify(_model())  # the next call, without it: nothing known
    assert _dims(m3, "y") is None


def test_bad_custom_op_schema_names_file_and_entry(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"domain": "com.acme", "op": "Foo", "outputs": [{"type": "float", "shape": [-1]}]}]))
    with pytest.raises(onnxtrim.UsageError) as e:
        onnxtrim.simplify(_model(), custom_op_schema=str(bad))
    assert "bad.json" in str(e.value) and "entry 0 (com.acme::Foo)" in str(e.value)


def _function_file(tmp_path, domain="com.acme"):
    """com.acme::Foo(x, z) = 2 * Relu(x + z), as a .onnx model of functions."""
    fm = helper.make_model(helper.make_graph([], "functions", [], []), opset_imports=[helper.make_opsetid("", 17)])
    fm.functions.append(helper.make_function(
        domain, "Foo", ["x", "z"], ["y"],
        [helper.make_node("Add", ["x", "z"], ["s"]), helper.make_node("Relu", ["s"], ["r"]),
         helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])),
         helper.make_node("Mul", ["r", "two"], ["y"])],
        [helper.make_opsetid("", 17)]))
    path = tmp_path / "foo.onnx"
    onnx.save(fm, path)
    return str(path)


def test_custom_op_as_a_function(tmp_path):
    import numpy as np
    from onnx import numpy_helper
    m = _model()
    # A second call, on constants: folded by running the body.
    m.graph.initializer.extend([numpy_helper.from_array(np.array([1.0, -3.0], np.float32), "a"),
                                numpy_helper.from_array(np.array([0.5, 2.5], np.float32), "b")])
    m.graph.node.append(helper.make_node("Foo", ["a", "b"], ["c"], domain="com.acme", name="foo_const"))
    m.graph.output.append(helper.make_tensor_value_info("c", TensorProto.FLOAT, None))
    out, rep = onnxtrim.simplify(m, custom_op_schema=_function_file(tmp_path))
    assert _dims(out, "y") == ["N", 3, 8] and _dims(out, "out") == ["N", 3, 8]
    assert rep.verification["ran"] and rep.verification["ok"], rep.verification
    assert [n.op_type for n in out.graph.node] == ["Foo", "Relu"]
    inits = {t.name: numpy_helper.to_array(t).tolist() for t in out.graph.initializer}
    assert inits["c"] == [3.0, 0.0]
    assert not out.functions
    # Without it: the check cannot run the op.
    _, rep2 = onnxtrim.simplify(m)
    assert not rep2.verification["ran"] and "no kernel for operator Foo" in rep2.verification["skipped"]
    with pytest.raises(onnxtrim.UsageError, match="ONNX's own"):
        onnxtrim.simplify(m, custom_op_schema=_function_file(tmp_path, domain=""))
