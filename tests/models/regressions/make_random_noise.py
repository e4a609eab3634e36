#!/usr/bin/env python3
"""Writes random_noise_scaled.onnx beside this file (issue 29): the noise of a VITS voice (Piper)
in a dozen nodes. Two unseeded RandomNormalLike (the duration predictor's and the prior's noise,
named as torch names them), each scaled by an element of the `scales` input (noise_scale,
length_scale, noise_w), among nodes the simplification removes (Identity, a Cast to the same
type, Mul by 1). The check must pass and the result be written; with the noise scaled to 0
(tests/e2e/ort_regressions.py pins `scales` to [0, 1, 0]) ONNX Runtime computes the same on the
original and the result. The .onnx file is committed; run this only to regenerate it:
/usr/bin/python3 tests/models/regressions/make_random_noise.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def const(name, value):
    return helper.make_node("Constant", [], [name], name="/" + name,
                            value=numpy_helper.from_array(np.asarray(value), name + "_value"))


nodes = [
    const("idx0", np.array(0, np.int64)),
    const("idx2", np.array(2, np.int64)),
    const("half", np.array(0.5, np.float32)),
    const("one", np.array(1.0, np.float32)),
    helper.make_node("Gather", ["scales", "idx0"], ["noise_scale"], name="/Gather", axis=0),
    helper.make_node("Gather", ["scales", "idx2"], ["noise_w"], name="/Gather_1", axis=0),
    # Duration predictor: z = randn_like(x) * noise_w
    helper.make_node("RandomNormalLike", ["x"], ["dp_noise"], name="/dp/RandomNormalLike", dtype=F),
    helper.make_node("Mul", ["dp_noise", "noise_w"], ["dp_z"], name="/dp/Mul"),
    helper.make_node("Add", ["x", "dp_z"], ["h"], name="/dp/Add"),
    # Prior: z_p = m_p + randn_like(m_p) * exp(logs_p) * noise_scale
    helper.make_node("Identity", ["h"], ["m_p"], name="/Identity"),
    helper.make_node("Mul", ["x", "half"], ["logs_p"], name="/Mul"),
    helper.make_node("Exp", ["logs_p"], ["std_p"], name="/Exp"),
    helper.make_node("RandomNormalLike", ["m_p"], ["noise"], name="/RandomNormalLike", dtype=F),
    helper.make_node("Mul", ["noise", "std_p"], ["scaled"], name="/Mul_1"),
    helper.make_node("Mul", ["scaled", "noise_scale"], ["scaled_ns"], name="/Mul_2"),
    helper.make_node("Mul", ["scaled_ns", "one"], ["scaled_1"], name="/Mul_3"),
    helper.make_node("Add", ["m_p", "scaled_1"], ["z_p"], name="/Add"),
    helper.make_node("Cast", ["z_p"], ["z_f"], name="/Cast", to=F),
    helper.make_node("Tanh", ["z_f"], ["audio"], name="/Tanh"),
]
graph = helper.make_graph(nodes, "random_noise_scaled",
                          [helper.make_tensor_value_info("x", F, [1, 4, 8]),
                           helper.make_tensor_value_info("scales", F, [3])],
                          [helper.make_tensor_value_info("audio", F, [1, 4, 8])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], ir_version=8,
                          producer_name="make_random_noise.py")
onnx.checker.check_model(model, full_check=True)
path = os.path.join(HERE, "random_noise_scaled.onnx")
onnx.save(model, path)
print("wrote", path, os.path.getsize(path), "bytes")
