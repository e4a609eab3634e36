#!/usr/bin/env python3
"""Issue 29, second bullet of "What it must show": on fixtures exported here with the shapes of
graph that third parties ship (tests/models/make_fixtures.py), `onnxtrim IN OUT` with no flags
runs the check, passes it and writes.

  - vits_noise_tiny.onnx (Piper's VITS voices): two RandomNormalLike without a seed, scaled by
    the `scales` input. The report must say both were drawn alike in the two models. ONNX
    Runtime draws its own noise, so there the original and the output run with the noise scaled
    to 0 (scales = [0, 1, 0]) and must agree.
  - stft_lstm_tiny.onnx (Silero VAD): an If on the input's length, an STFT (Conv1d basis) and an
    LSTM in each branch; it runs from 96 samples on. The check must find sizes by itself
    (verification.sizes). ONNX Runtime runs the original and the output on both branches.

usage: exported_fixtures.py ONNXTRIM
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ort_util import run_ort  # noqa: E402

MODELS = os.path.join(os.path.dirname(HERE), "models")
binary = sys.argv[1]
failures = []
passed = 0
rng = np.random.default_rng(0)


def close(label, got, want):
    global passed
    for name, w in want.items():
        g = got.get(name)
        if g is None or g.shape != w.shape or not np.allclose(g, w, rtol=1e-4, atol=1e-5):
            failures.append(f"{label}: output {name}: {None if g is None else g.ravel()[:8]} != {w.ravel()[:8]}")
            return
    passed += 1


def simplify(fname, tmp):
    """onnxtrim IN OUT with no flags but the JSON report; returns (output path, verification) or
    (None, None) after recording the failure."""
    global passed
    out, rep = os.path.join(tmp, "out.onnx"), os.path.join(tmp, "report.json")
    r = subprocess.run([binary, os.path.join(MODELS, fname), out, "--json", rep], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        failures.append(f"{fname}: onnxtrim IN OUT: exit {r.returncode}: {r.stderr.strip()[-400:]}")
        return None, None
    v = json.load(open(rep)).get("verification", {})
    if not (v.get("ran") and v.get("ok")) or v.get("skipped"):
        failures.append(f"{fname}: the check did not run and pass: {v}")
        return None, None
    if not all(o.get("comparable", True) for o in v.get("outputs", [])):
        failures.append(f"{fname}: an output was not compared: {v.get('outputs')}")
        return None, None
    passed += 1
    return out, v


with tempfile.TemporaryDirectory() as tmp:
    out, v = simplify("vits_noise_tiny.onnx", tmp)
    if v is not None:
        random = v.get("random", {})
        if len(random.get("drawn_alike", [])) != 2 or random.get("unmatched"):
            failures.append(f"vits_noise_tiny.onnx: the two noises were not reported drawn alike: {random}")
        else:
            passed += 1
        for length in (8, 37):
            feeds = {"x": rng.standard_normal((1, 16, length)).astype(np.float32),
                     "scales": np.array([0, 1, 0], np.float32)}
            try:
                close(f"vits_noise_tiny.onnx length={length} in ORT",
                      run_ort(out, feeds), run_ort(os.path.join(MODELS, "vits_noise_tiny.onnx"), feeds))
            except Exception as e:  # noqa: BLE001  (ONNX Runtime's refusal)
                failures.append(f"vits_noise_tiny.onnx length={length}: {str(e)[:300]}")

with tempfile.TemporaryDirectory() as tmp:
    out, v = simplify("stft_lstm_tiny.onnx", tmp)
    if v is not None:
        if not v.get("sizes"):
            failures.append(f"stft_lstm_tiny.onnx: the report gives no sizes: {v}")
        else:
            passed += 1
        # 300 samples: the 8 kHz branch; 512 and 1000: the 16 kHz one.
        for batch, samples in ((1, 300), (1, 512), (2, 1000)):
            feeds = {"input": rng.standard_normal((batch, samples)).astype(np.float32),
                     "state": rng.standard_normal((2, batch, 32)).astype(np.float32)}
            try:
                close(f"stft_lstm_tiny.onnx {batch}x{samples} in ORT",
                      run_ort(out, feeds), run_ort(os.path.join(MODELS, "stft_lstm_tiny.onnx"), feeds))
            except Exception as e:  # noqa: BLE001
                failures.append(f"stft_lstm_tiny.onnx {batch}x{samples}: {str(e)[:300]}")

for f in failures:
    print("FAIL:", f)
print(f"exported_fixtures: {passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
