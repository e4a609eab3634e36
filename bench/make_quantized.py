#!/usr/bin/env python3
"""Writes bench/models/dq_convnet.onnx (not committed): a dynamically quantized convolution net
as onnxruntime's quantize_dynamic makes them (each layer DynamicQuantizeLinear on the float
activations, ConvInteger with uint8 weights and their zero point, Cast to float, Mul by
x_scale * w_scale, Add the float bias, Relu), on a 1x3x512x512 input: six 3x3 layers of
16-64 channels (one with stride 2), about 9.7 GMAC, then a global pool and a MatMulInteger
classifier. Random weights from a fixed seed; python3-onnx and numpy only.

usage: make_quantized.py [OUT.onnx]"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS = [(3, 16, 1), (16, 32, 1), (32, 32, 1), (32, 64, 2), (64, 64, 1), (64, 64, 1)]  # (in, out, stride)
SIZE = 512
CLASSES = 10


def quantized_weights(rng, shape):
    """uint8 weights, their scale and zero point (asymmetric, per tensor, as quantize_dynamic)."""
    w = rng.standard_normal(shape).astype(np.float32) * np.float32(np.sqrt(2.0 / np.prod(shape[1:])))
    lo, hi = min(0.0, float(w.min())), max(0.0, float(w.max()))
    scale = np.float32((hi - lo) / 255.0)
    zp = np.uint8(round(-lo / float(scale)))
    q = np.clip(np.round(w / scale) + zp, 0, 255).astype(np.uint8)
    return q, scale, zp


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "models", "dq_convnet.onnx")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "input"
    for i, (cin, cout, stride) in enumerate(LAYERS):
        q, scale, zp = quantized_weights(rng, (cout, cin, 3, 3))
        bias = (rng.standard_normal((1, cout, 1, 1)) * 0.1).astype(np.float32)
        p = f"l{i}_"
        inits += [numpy_helper.from_array(q, p + "w"), numpy_helper.from_array(np.array(zp, np.uint8), p + "wzp"),
                  numpy_helper.from_array(np.array(scale, np.float32), p + "ws"), numpy_helper.from_array(bias, p + "b")]
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [x], [p + "xq", p + "xs", p + "xzp"]),
            helper.make_node("ConvInteger", [p + "xq", p + "w", p + "xzp", p + "wzp"], [p + "acc"],
                             pads=[1, 1, 1, 1], strides=[stride, stride]),
            helper.make_node("Cast", [p + "acc"], [p + "accf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "xs", p + "ws"], [p + "s"]),
            helper.make_node("Mul", [p + "accf", p + "s"], [p + "y"]),
            helper.make_node("Add", [p + "y", p + "b"], [p + "yb"]),
            helper.make_node("Relu", [p + "yb"], [p + "out"]),
        ]
        x = p + "out"
    q, scale, zp = quantized_weights(rng, (LAYERS[-1][1], CLASSES))
    inits += [numpy_helper.from_array(q, "fc_w"), numpy_helper.from_array(np.array(zp, np.uint8), "fc_wzp"),
              numpy_helper.from_array(np.array(scale, np.float32), "fc_ws")]
    nodes += [
        helper.make_node("GlobalAveragePool", [x], ["pool"]),
        helper.make_node("Flatten", ["pool"], ["feat"]),
        helper.make_node("DynamicQuantizeLinear", ["feat"], ["fq", "fs", "fzp"]),
        helper.make_node("MatMulInteger", ["fq", "fc_w", "fzp", "fc_wzp"], ["facc"]),
        helper.make_node("Cast", ["facc"], ["faccf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["fs", "fc_ws"], ["fscale"]),
        helper.make_node("Mul", ["faccf", "fscale"], ["logits"]),
    ]
    graph = helper.make_graph(nodes, "dq_convnet",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, CLASSES])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="onnxtrim-bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, out)
    macs = 0
    size = SIZE
    for cin, cout, stride in LAYERS:
        size //= stride
        macs += size * size * cout * cin * 9
    print(f"wrote {out} ({macs / 1e9:.1f} GMAC)")


if __name__ == "__main__":
    main()
