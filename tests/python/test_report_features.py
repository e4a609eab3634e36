"""The report features of issue 28 from Python, by the option table's names: inline_functions,
graph_diff, profile, node_reduction_plot; and the Report attributes that carry them."""
import os
import xml.etree.ElementTree as ET

import onnx
from onnx import TensorProto, helper

import onnxtrim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIRTY = os.path.join(ROOT, "examples", "dirty.onnx")


def test_graph_diff_profile_and_plot(tmp_path):
    plot = str(tmp_path / "rounds.svg")
    _, rep = onnxtrim.simplify(onnx.load(DIRTY), graph_diff=True, profile=True, node_reduction_plot=plot)
    d = rep.graph_diff
    assert d["nodes_kept"] + len(d["nodes_removed"]) == rep.before["top_level_nodes"]
    assert d["nodes_kept"] + len(d["nodes_added"]) == rep.after["top_level_nodes"]
    assert d["inputs"] == [] and d["outputs"] == []
    assert [p["stage"] for p in rep.profile] == ["simplify", "check"]
    assert rep.round_stats[0] == {"round": 0, "nodes": rep.before["nodes"],
                                  "initializer_bytes": rep.before["initializer_bytes"]}
    assert rep.round_stats[-1]["nodes"] == rep.after["nodes"]
    points = [pl.get("points").split() for pl in ET.parse(plot).getroot().iter("{http://www.w3.org/2000/svg}polyline")]
    assert [len(p) for p in points] == [len(rep.round_stats)] * 2


def test_inline_functions():
    f = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                             [helper.make_opsetid("", 17)])
    g = helper.make_graph([helper.make_node("Twice", ["x"], ["y"], domain="local")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[f])
    m.ir_version = 8
    out, rep = onnxtrim.simplify(m, inline_functions=True)
    assert len(out.functions) == 0
    assert [n.op_type for n in out.graph.node] == ["Add"]
    assert out.graph.output[0].name == "y"
    assert rep.inlined_functions == {"calls": 1, "inlined": ["local:Twice"], "removed": ["local:Twice"],
                                     "opsets_added": []}
    assert rep.verification["ok"]
