#!/usr/bin/env python3
"""Exports the benchmark models with Debian's python3-torch / python3-torchvision: random
weights (never downloaded), torch's own constant folding off so the graphs are as dirty as the
exports users start from. Writes bench/models/*.onnx (none of it is committed):
  resnet50, swin_t            dynamic batch, opset 17
  resnet50_bn                 ResNet-50 with BatchNormalization kept, opset 13
  swin_t_static               static batch 1, opset 17
  vit3, vit3_static           torchvision VisionTransformer at vit_b_16's size (patch 16,
                              hidden 768, 12 heads, MLP 3072) with 3 encoder layers, opset 17,
                              dynamic / static batch
  gpt (only when named)       bench/models/gpt/gpt.onnx: a GPT-style decoder at LLM scale
                              (d_model 4096, 16 heads, 6 layers, vocab 32,000, tied embeddings;
                              5.4 GB of fp32 weights written by the exporter as external-data
                              files; dynamic batch and sequence)
Pass names to export only those (default: all but gpt)."""
import os
import sys

import torch

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


class Block(torch.nn.Module):
    """Pre-norm decoder block: causal multi-head self-attention and a 4x GELU MLP."""

    def __init__(self, d, heads, max_pos):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, d)
        self.v = torch.nn.Linear(d, d)
        self.o = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(max_pos, max_pos, dtype=torch.bool)), persistent=False)

    def forward(self, x):
        b, t, d = x.shape
        h = self.ln1(x)
        split = lambda y: y.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(self.q(h)), split(self.k(h)), split(self.v(h))
        att = (q @ k.transpose(-1, -2)) * (1.0 / (d // self.heads) ** 0.5)
        att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


class GPT(torch.nn.Module):
    def __init__(self, vocab=32000, d=4096, heads=16, layers=6, max_pos=1024):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(max_pos, d)
        self.blocks = torch.nn.ModuleList(Block(d, heads, max_pos) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(d)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(t, device=ids.device))
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x) @ self.tok.weight.t()  # tied input/output embedding


def export_gpt():
    folder = os.path.join(OUT, "gpt")
    path = os.path.join(folder, "gpt.onnx")
    if os.path.exists(path):
        return
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    with torch.no_grad():
        model = GPT().eval()
        ids = torch.randint(0, 32000, (1, 8))
        # Past 2 GB the exporter writes every weight to its own file beside the model.
        torch.onnx.export(model, ids, path, opset_version=17, do_constant_folding=False,
                          input_names=["input_ids"], output_names=["logits"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    print(f"wrote {path} ({size / 1e9:.1f} GB in {len(os.listdir(folder))} files)")


def main():
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[1:] or ["resnet50", "swin_t", "resnet50_bn", "swin_t_static", "vit3", "vit3_static"]
    if "gpt" in which:
        export_gpt()
    if any(w != "gpt" for w in which):
        import torchvision  # only the torchvision models need it
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
