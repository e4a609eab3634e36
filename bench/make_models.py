#!/usr/bin/env python3
"""Exports the benchmark models with Debian's python3-torch / python3-torchvision: random
weights (never downloaded), torch's own constant folding off so the graphs are as dirty as the
exports users start from. Writes bench/models/{resnet50,swin_t}.onnx (not committed)."""
import os
import sys

import torch
import torchvision

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def export(name, model, shape, opset):
    path = os.path.join(OUT, name + ".onnx")
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    model.eval()
    x = torch.randn(*shape)
    torch.onnx.export(model, x, path, opset_version=opset, do_constant_folding=False,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
    print(f"wrote {path} ({os.path.getsize(path) / 1e6:.0f} MB)")


def main():
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[1:] or ["resnet50", "swin_t"]
    if "resnet50" in which:
        export("resnet50", torchvision.models.resnet50(weights=None), (1, 3, 224, 224), 17)
    if "swin_t" in which:
        export("swin_t", torchvision.models.swin_t(weights=None), (1, 3, 224, 224), 17)


if __name__ == "__main__":
    main()
