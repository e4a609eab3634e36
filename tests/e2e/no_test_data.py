#!/usr/bin/env python3
"""Tests that cannot pass empty: every suite that reads the ONNX test data is run with
ONNXTRIM_TEST_DATA pointing at a folder that does not exist, then at an empty one. Each run
must fail; without the folder, with one line naming where it looked; with an empty folder,
saying that it ran no case.

usage: no_test_data.py ONNXTRIM ONNXTRIM_CONFORMANCE ONNXTRIM_TESTS
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
cli, conformance, gtests = sys.argv[1:4]
py = sys.executable
manifest = os.path.join(TESTS, "conformance", "manifest.txt")
infer_manifest = os.path.join(TESTS, "conformance", "infer_manifest.txt")
onnx_manifest = os.path.join(TESTS, "conformance", "onnx_infer_manifest.txt")
# --default-data (what CTest passes) names a real folder: the environment must win over it.
real = os.path.join(TESTS, "models")

suites = {
    "conformance.backend": ([conformance, "--manifest", manifest], True),
    "conformance.inference": ([conformance, "--infer", "--manifest", infer_manifest], True),
    "e2e.roundtrip": ([py, os.path.join(HERE, "roundtrip.py"), cli, "--default-data", real], True),
    "e2e.ort_light": ([py, os.path.join(HERE, "ort_compare.py"), cli, "--light", "--default-data", real], True),
    "e2e.infer_vs_onnx": ([py, os.path.join(HERE, "infer_vs_onnx.py"), cli, onnx_manifest, "--default-data", real], True),
    # gtest prints its own report around the failure: the line must be in it.
    "LightModels (gtest)": ([gtests, "--gtest_filter=LightModels.*"], False),
}

failures = []


def check(name, cmd, one_line, data, want):
    env = dict(os.environ, ONNXTRIM_TEST_DATA=data)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    out = (r.stdout + r.stderr).strip()
    lines = [l for l in out.splitlines() if l.strip()]
    if r.returncode == 0:
        failures.append(f"{name} with {data}: passed (exit 0): {out[-300:]}")
    elif want not in out:
        failures.append(f"{name} with {data}: no line saying '{want}': {out[-300:]}")
    elif one_line and len(lines) != 1:
        failures.append(f"{name} with {data}: {len(lines)} lines instead of one: {out[-300:]}")


with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "no-such-onnx-tests")
    empty = os.path.join(tmp, "empty-onnx-tests")
    for sub in ("node", "light"):
        os.makedirs(os.path.join(empty, sub))
    for name, (cmd, one_line) in suites.items():
        check(name, cmd, one_line, missing, "ONNX test data not found: looked in '" + missing)
        # gtest's LightModels counts the nine models it expects; the others say they ran nothing.
        check(name, cmd, one_line, empty, "ran no test case" if one_line else "light models found in")

for f in failures:
    print("FAIL:", f)
print(f"no_test_data: {2 * len(suites) - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
