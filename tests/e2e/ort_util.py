"""ONNX Runtime (onnxruntime-node, tests/e2e/ort/run.js) from Python tests: numpy in, numpy out."""
import json
import os
import signal
import subprocess
import tempfile
from urllib.parse import quote

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "ort", "run.js")
_TYPES = {np.float32: "float32", np.float64: "float64", np.int64: "int64", np.int32: "int32", np.bool_: "bool",
          np.uint8: "uint8", np.int8: "int8", np.float16: "float16", np.int16: "int16", np.uint16: "uint16"}
_NP = {v: k for k, v in _TYPES.items()}


def _file_name(name):
    """What run.js names a value's files: JavaScript's encodeURIComponent of the name."""
    return quote(name, safe="!~*'()")


def run_ort(model_path, inputs, full_message=False):
    """Runs model_path in ONNX Runtime (optimizations off); returns {output name: array}. A failure
    raises RuntimeError: the signal when the process died, else ONNX Runtime's message (its first
    500 characters, or all of it with full_message)."""
    with tempfile.TemporaryDirectory() as tmp:
        in_dir, out_dir = os.path.join(tmp, "in"), os.path.join(tmp, "out")
        os.makedirs(in_dir)
        for name, a in inputs.items():
            a = np.ascontiguousarray(a)
            base = os.path.join(in_dir, _file_name(name))
            with open(base + ".json", "w") as f:
                json.dump({"dtype": _TYPES[a.dtype.type], "dims": list(a.shape)}, f)
            with open(base + ".bin", "wb") as f:
                f.write(a.tobytes())
        r = subprocess.run(["node", RUNNER, model_path, in_dir, out_dir], capture_output=True, text=True)
        if r.returncode < 0:
            raise RuntimeError(f"the process died of {signal.Signals(-r.returncode).name} (ONNX Runtime crashed)")
        if r.returncode != 0:
            raise RuntimeError(r.stderr if full_message else
                               f"ONNX Runtime failed on {model_path}: {r.stderr.strip()[:500]}")
        outs = {}
        for o in onnx.load(model_path, load_external_data=False).graph.output:
            base = os.path.join(out_dir, _file_name(o.name))
            meta = json.load(open(base + ".json"))
            outs[o.name] = np.frombuffer(open(base + ".bin", "rb").read(),
                                         dtype=_NP[meta["dtype"]]).reshape(meta["dims"])
        return outs
