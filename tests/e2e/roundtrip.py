#!/usr/bin/env python3
"""Lossless round trip: `onnxtrim IN OUT --no-passes` must give a model that python3-onnx finds
equal to IN, and that passes onnx.checker wherever IN does. Runs over every model of the
ONNX backend test data (node, light, simple, pytorch-*).

usage: roundtrip.py ONNXTRIM [DATA_DIR | --data DIR | --default-data DIR]  (see test_data.py)"""
import os
import subprocess
import sys
import tempfile

import onnx
import onnx.checker

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_data  # noqa: E402

args = sys.argv[1:]
root = test_data.take(args)
binary = args[0]
if len(args) > 1:  # roundtrip.py ONNXTRIM DATA_DIR
    root = args[1]
test_data.require(root)
models = []
for dirpath, _, files in os.walk(root):
    for f in files:
        if f.endswith(".onnx"):
            models.append(os.path.join(dirpath, f))
models.sort()
test_data.require_cases(len(models), "roundtrip", root)
passed = failed = 0
failures = []
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.onnx")
    for path in models:
        r = subprocess.run([binary, path, out, "--no-passes", "--quiet"], capture_output=True, text=True)
        if r.returncode != 0:
            failed += 1
            failures.append(f"{path}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        a = onnx.load(path)
        b = onnx.load(out)
        if a != b and a.SerializeToString() != b.SerializeToString():  # NaN != NaN
            failed += 1
            failures.append(f"{path}: round trip changed the model")
            continue
        try:
            onnx.checker.check_model(a)
            in_ok = True
        except Exception:
            in_ok = False
        if in_ok:
            try:
                onnx.checker.check_model(b)
            except Exception as e:
                failed += 1
                failures.append(f"{path}: checker fails on the output only: {e}")
                continue
        passed += 1
for f in failures[:50]:
    print(f)
print(f"roundtrip: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
