#!/usr/bin/env python3
"""Exports the benchmark models with Debian's python3-torch / python3-torchvision: random
weights (never downloaded), torch's own constant folding off so the graphs are as dirty as the
exports users start from. Writes bench/models/*.onnx (not committed):
  resnet50, swin_t            dynamic batch, opset 17
  swin_t_static               static batch 1, opset 17
  vit3, vit3_static           torchvision VisionTransformer at vit_b_16's size (patch 16,
                              hidden 768, 12 heads, MLP 3072) with 3 encoder layers, opset 17,
                              dynamic / static batch
Pass names to export only those."""
import os
import sys

import torch
import torchvision

OUT = os.environ.get("ONNXTRIM_MODELS_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def export(name, model, shape, opset, dynamic=True, **kwargs):
    path = os.path.join(OUT, name + ".onnx")
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    model.eval()
    x = torch.randn(*shape)
    torch.onnx.export(model, x, path, opset_version=opset, do_constant_folding=False,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}} if dynamic else None, **kwargs)
    print(f"wrote {path} ({os.path.getsize(path) / 1e6:.0f} MB)")


def main():
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[1:] or ["resnet50", "swin_t", "resnet50_bn", "swin_t_static", "vit3", "vit3_static"]
    if "resnet50" in which:
        export("resnet50", torchvision.models.resnet50(weights=None), (1, 3, 224, 224), 17)
    if "resnet50_bn" in which:
        # BatchNormalization kept as nodes (an eval() model exported with TrainingMode.PRESERVE),
        # with random running statistics so that fusing them into the convolutions is not a
        # no-op: the check must pass this (issue 12's false alarm) and fail a 1% weight change.
        torch.manual_seed(0)
        m = torchvision.models.resnet50(weights=None)
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
                mod.weight.data.uniform_(0.5, 1.5)
                mod.bias.data.uniform_(-0.1, 0.1)
        export("resnet50_bn", m, (1, 3, 224, 224), 13, training=torch.onnx.TrainingMode.PRESERVE)
    if "swin_t" in which:
        export("swin_t", torchvision.models.swin_t(weights=None), (1, 3, 224, 224), 17)
    if "swin_t_static" in which:
        export("swin_t_static", torchvision.models.swin_t(weights=None), (1, 3, 224, 224), 17, dynamic=False)
    for name in ("vit3", "vit3_static"):
        if name in which:
            torch.manual_seed(0)
            vit = torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=3, num_heads=12,
                                                       hidden_dim=768, mlp_dim=3072)
            export(name, vit, (1, 3, 224, 224), 17, dynamic=name == "vit3")


if __name__ == "__main__":
    main()
