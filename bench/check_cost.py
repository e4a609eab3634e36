#!/usr/bin/env python3
"""The cost of the default check: `onnxtrim IN OUT` against `onnxtrim IN OUT --no-verify`, whole
processes, interleaved runs (the machines are shared and noisy), median of N each.

usage: check_cost.py ONNXTRIM MODEL... [--runs N]"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
runs = 5
if "--runs" in args:
    i = args.index("--runs")
    runs = int(args[i + 1])
    del args[i:i + 2]
binary, models = args[0], args[1:]
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.onnx")
    for model in models:
        times = {"check": [], "no-verify": []}
        for _ in range(runs):
            for mode, extra in (("check", []), ("no-verify", ["--no-verify"])):
                t = time.perf_counter()
                subprocess.run([binary, model, out, "--quiet", *extra], check=True)
                times[mode].append(time.perf_counter() - t)
        a, b = statistics.median(times["check"]), statistics.median(times["no-verify"])
        print(f"{os.path.basename(model)}: with the check {a:.2f} s, --no-verify {b:.2f} s: {a / b:.2f}x")
