"""The helpers OnnxSlim's tests use to look at a result, written for the harness over onnx (the
fields the tests read, with the meaning OnnxSlim's utils give them): summarize_model(model or
path) -> ModelInfo (tag, op_set, ir_version, model_size, op_type_counts, op_info, input_info,
output_info, input_maps, output_maps), print_model_info_as_table, is_onnxruntime_available.
utils' other names are OnnxSlim internals (placeholders, _peers_internal.py)."""
from collections import defaultdict
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

import _peers_internal


def _np_dtype(elem_type):
    try:
        if hasattr(helper, "tensor_dtype_to_np_dtype"):
            return helper.tensor_dtype_to_np_dtype(elem_type)
        from onnx import mapping  # onnx < 1.13
        return mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]
    except Exception:
        return None


class TensorInfo:
    def __init__(self, value_info):
        self.name = value_info.name
        tt = value_info.type.tensor_type
        self.dtype = _np_dtype(tt.elem_type)
        self.shape = None
        if tt.HasField("shape"):
            self.shape = tuple(d.dim_param if d.HasField("dim_param") else
                               d.dim_value if d.HasField("dim_value") else "?" for d in tt.shape.dim)


class OperatorInfo:
    def __init__(self, node, outputs=None):
        self.name = node.name
        self.op = node.op_type
        self.outputs = outputs


def _initializer_bytes(graph):
    total = 0
    for t in graph.initializer:
        if t.HasField("raw_data"):
            total += len(t.raw_data)
        else:
            dt = _np_dtype(t.data_type)
            total += int(np.prod(t.dims, dtype=np.int64)) * (dt.itemsize if dt is not None else 0)
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                total += _initializer_bytes(a.g)
    return total


class ModelInfo:
    def __init__(self, model, tag="OnnxSlim"):
        if isinstance(model, (str, Path)):
            tag = Path(model).name
            model = onnx.load(str(model))
        self.tag = tag
        self.op_set = str(next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), ""))
        self.ir_version = str(model.ir_version)
        self.model_size = _initializer_bytes(model.graph)
        self.op_type_counts = defaultdict(int)
        self.op_info = {}
        self.input_info = [TensorInfo(v) for v in model.graph.input]
        self.output_info = [TensorInfo(v) for v in model.graph.output]
        known = {v.name: v for v in model.graph.value_info}

        def walk(graph):
            for n in graph.node:
                self.op_type_counts[n.op_type] += 1
                self.op_info[n.name] = OperatorInfo(n, [TensorInfo(known[o]) for o in n.output if o in known])
                for a in n.attribute:
                    if a.type == onnx.AttributeProto.GRAPH:
                        walk(a.g)
                    for g in a.graphs:
                        walk(g)

        walk(model.graph)

    @property
    def input_maps(self):
        return {t.name: t for t in self.input_info}

    @property
    def output_maps(self):
        return {t.name: t for t in self.output_info}


def summarize_model(model, tag="OnnxModel"):
    if model is None:
        raise ValueError("summarize_model(None): slim() returned no model")
    return ModelInfo(model, tag)


def print_model_info_as_table(model_info_list, elapsed_time=None):
    infos = model_info_list if isinstance(model_info_list, (list, tuple)) else [model_info_list]
    for info in infos:
        print(f"{info.tag}: opset {info.op_set}, ir {info.ir_version}, {info.model_size} bytes of weights")
        for t in info.input_info:
            print(f"  input {t.name} {t.dtype} {t.shape}")
        for t in info.output_info:
            print(f"  output {t.name} {t.dtype} {t.shape}")
        for op, k in sorted(info.op_type_counts.items()):
            print(f"  {op}: {k}")
    if elapsed_time:
        print(f"elapsed {elapsed_time:.2f} s")


def is_onnxruntime_available():
    return True


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _peers_internal.Internal(f"onnxslim.utils.{name}")
