"""`import onnxruntime` for the peers' tests: the real ONNX Runtime (npm onnxruntime-node, as the
project's other tests use it), run by one persistent `node tests/e2e/ort/run.js --serve` process
through the fuzz harness's client (tests/fuzz_graphs/harness.py, OrtServer).

What the tests use: InferenceSession(path or bytes or ModelProto, sess_options=None,
providers=None).run(output_names or None, feeds) -> list of arrays; get_inputs() / get_outputs()
(name, shape with dim_param strings or None, type "tensor(float)"); SessionOptions and
GraphOptimizationLevel (accepted; run.js runs with graph optimizations off, so the model is run
as written); get_available_providers(); __version__ (onnxruntime-node's)."""
import atexit
import json
import os
import sys
import tempfile

import numpy as np
import onnx

_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(_ROOT, "tests", "fuzz_graphs"))
from harness import OrtServer  # noqa: E402

sys.path.pop(0)

with open(os.path.join(_ROOT, "tests", "e2e", "ort", "node_modules", "onnxruntime-node", "package.json")) as _f:
    __version__ = json.load(_f)["version"]

_server = OrtServer()
_work = tempfile.TemporaryDirectory(prefix="peers-ort-")
atexit.register(_server.close)
atexit.register(_work.cleanup)
_count = [0]


class GraphOptimizationLevel:
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode:
    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class SessionOptions:
    def __init__(self):
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.log_severity_level = 2
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self.optimized_model_filepath = ""


class NodeArg:
    def __init__(self, value_info):
        self.name = value_info.name
        tt = value_info.type.tensor_type
        self.shape = [d.dim_param if d.HasField("dim_param") else d.dim_value if d.HasField("dim_value") else None
                      for d in tt.shape.dim]
        self.type = f"tensor({_TYPE_NAMES.get(tt.elem_type, 'unknown')})"

    def __repr__(self):
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"


_TYPE_NAMES = {onnx.TensorProto.FLOAT: "float", onnx.TensorProto.DOUBLE: "double", onnx.TensorProto.FLOAT16: "float16",
               onnx.TensorProto.INT64: "int64", onnx.TensorProto.INT32: "int32", onnx.TensorProto.INT8: "int8",
               onnx.TensorProto.UINT8: "uint8", onnx.TensorProto.INT16: "int16", onnx.TensorProto.UINT16: "uint16",
               onnx.TensorProto.BOOL: "bool", onnx.TensorProto.STRING: "string", onnx.TensorProto.BFLOAT16: "bfloat16"}


def get_available_providers():
    return ["CPUExecutionProvider"]


def get_device():
    return "CPU"


class InferenceSession:
    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        _count[0] += 1
        self._dir = os.path.join(_work.name, f"s{_count[0]}")
        os.makedirs(self._dir)
        if isinstance(path_or_bytes, onnx.ModelProto):
            path_or_bytes = path_or_bytes.SerializeToString()
        if isinstance(path_or_bytes, (bytes, bytearray)):
            self._path = os.path.join(self._dir, "model.onnx")
            with open(self._path, "wb") as f:
                f.write(path_or_bytes)
        else:
            self._path = os.path.abspath(os.fspath(path_or_bytes))
        graph = onnx.load(self._path, load_external_data=False).graph
        inits = {t.name for t in graph.initializer}
        self._inputs = [NodeArg(v) for v in graph.input if v.name not in inits]
        self._outputs = [NodeArg(v) for v in graph.output]
        self._providers = list(providers or ["CPUExecutionProvider"])
        self._runs = 0

    def get_inputs(self):
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    def get_providers(self):
        return list(self._providers)

    def run(self, output_names, input_feed, run_options=None):
        feeds = {k: np.asarray(v) for k, v in input_feed.items()}
        self._runs += 1
        outs, err = _server.run(self._path, feeds, os.path.join(self._dir, f"r{self._runs}"))
        if err is not None:
            raise RuntimeError(f"[ONNXRuntimeError] {err}")
        by_name = {o.name: a for o, a in zip(self._outputs, outs)}
        names = [o.name for o in self._outputs] if not output_names else list(output_names)
        return [by_name[n] for n in names]


def set_default_logger_severity(level):
    """Accepted: run.js prints ONNX Runtime's warnings on stderr, which the tests do not read."""
