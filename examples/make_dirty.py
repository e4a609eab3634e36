#!/usr/bin/env python3
"""Writes examples/dirty.onnx: a small model with the plumbing exporters leave behind
(Identity, Dropout, Constant nodes, a Shape->Gather->Unsqueeze->Concat->Reshape chain, a no-op
Cast, x*1, Conv followed by BatchNormalization), with a dynamic batch dimension."""
import os

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(0)
N = "batch"
x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [N, 3, 8, 8])
y = helper.make_tensor_value_info("logits", TensorProto.FLOAT, [N, 10])

inits = [
    numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv.weight"),
    numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "conv.bias"),
    numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(np.float32), "bn.scale"),
    numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "bn.bias"),
    numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "bn.mean"),
    numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(np.float32), "bn.var"),
    numpy_helper.from_array(rng.standard_normal((256, 10)).astype(np.float32), "fc.weight"),
    numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "fc.bias"),
]
nodes = [
    helper.make_node("Identity", ["input"], ["x0"], name="identity_in"),
    helper.make_node("Conv", ["x0", "conv.weight", "conv.bias"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["bn"], name="bn"),
    helper.make_node("Relu", ["bn"], ["r"], name="relu"),
    helper.make_node("Dropout", ["r"], ["d"], name="dropout"),
    helper.make_node("Cast", ["d"], ["d_cast"], name="noop_cast", to=TensorProto.FLOAT),
    helper.make_node("Constant", [], ["one"], name="const_one", value=numpy_helper.from_array(np.array(1.0, np.float32))),
    helper.make_node("Mul", ["d_cast", "one"], ["m"], name="times_one"),
    # Shape chain: flatten to [batch, 256] the way exporters spell it.
    helper.make_node("Shape", ["m"], ["s"], name="shape"),
    helper.make_node("Constant", [], ["zero"], name="const_zero", value=numpy_helper.from_array(np.array(0, np.int64))),
    helper.make_node("Gather", ["s", "zero"], ["b"], name="gather_batch", axis=0),
    helper.make_node("Unsqueeze", ["b", "axes0"], ["b1"], name="unsqueeze_batch"),
    helper.make_node("Constant", [], ["axes0"], name="const_axes", value=numpy_helper.from_array(np.array([0], np.int64))),
    helper.make_node("Constant", [], ["minus_one"], name="const_m1", value=numpy_helper.from_array(np.array([256], np.int64))),
    helper.make_node("Concat", ["b1", "minus_one"], ["shape2"], name="concat_shape", axis=0),
    helper.make_node("Reshape", ["m", "shape2"], ["flat"], name="reshape"),
    helper.make_node("MatMul", ["flat", "fc.weight"], ["mm"], name="fc_matmul"),
    helper.make_node("Add", ["mm", "fc.bias"], ["fc"], name="fc_add"),
    helper.make_node("Identity", ["fc"], ["logits"], name="identity_out"),
]
# Constant nodes must come before their users.
order = ["identity_in", "conv", "bn", "relu", "dropout", "noop_cast", "const_one", "times_one", "shape", "const_zero",
         "gather_batch", "const_axes", "unsqueeze_batch", "const_m1", "concat_shape", "reshape", "fc_matmul", "fc_add",
         "identity_out"]
nodes.sort(key=lambda n: order.index(n.name))
graph = helper.make_graph(nodes, "dirty", [x], [y], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnxtrim-examples")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dirty.onnx"))
