#!/usr/bin/env python3
"""Peak memory of onnxsim's larger-than-2GB test (tests/peers: test_model_larger_than_2gb) through
onnxtrim's onnxsim drop-in: torch 1.13 exports x + (w1 + ... + w5) over five 500 MB parameters
(do_constant_folding=False, external data), onnx loads it as the test does, and
onnxsim.simplify runs with its default check. Prints the process's resident memory before the
call, its peak during the call (VmHWM, reset through /proc/self/clear_refs just before), and the
whole process's peak. Run with the package built:

    PYTHONPATH=build/python ONNXTRIM_CLI=build/onnxtrim /usr/bin/python3 bench/python_2gb_peak.py
"""
import os
import sys
import tempfile

import onnx
import torch

from onnxtrim.compat import onnxsim


def vm(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1


class SimpleModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        n = 125 * 1024 * 1024
        self.w1, self.w2, self.w3, self.w4, self.w5 = (torch.nn.Parameter(torch.ones(n)) for _ in range(5))

    def forward(self, x):
        return x + (self.w1 + self.w2 + self.w3 + self.w4 + self.w5)


def main():
    gb = 1 << 30
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        net = SimpleModel()
        torch.onnx.export(net, torch.randn(125 * 1024 * 1024), path, do_constant_folding=False)
        del net
        model = onnx.load(path)
        before = vm("VmRSS")
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            reset = True
        except OSError:
            reset = False
        sim, ok = onnxsim.simplify(model)
        during = vm("VmHWM")
        print(f"nodes: {len(model.graph.node)} -> {len(sim.graph.node)} ({[n.op_type for n in sim.graph.node]}), check ok: {ok}")
        print(f"resident before onnxsim.simplify: {before / gb:.2f} GB (the loaded model and torch)")
        if reset:
            print(f"peak during onnxsim.simplify: {during / gb:.2f} GB ({(during - before) / gb:+.2f} GB over before)")
        print(f"whole process peak: {vm('VmHWM') / gb:.2f} GB" + ("" if not reset else " (since the reset)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
