#!/usr/bin/env python3
"""Writes raft_rank6_dynamic.onnx beside this file (issue 29): the correlation block of
torchvision's RAFT (models/optical_flow/raft.py, CorrBlock) exported with dynamic batch, height
and width. The correlation volume goes through rank 6 - a Reshape to (b, h, w, 1, h, w), a Div
by sqrt(channels), a Reshape back to (b*h*w, 1, h, w) whose target reads the rank-6 value's
Shape - then the pyramid's avg_pool2d. `--target coreml` must leave no value of rank > 5
(tests/rewrites/coreml_test.cc, e2e.ort with +target=coreml). torch.tensor(num_channels) is made
float here: torch 1.13 exports the int64 form as Sqrt of an int64, which no runtime takes.
The .onnx file is committed; run this only to regenerate it:
/usr/bin/python3 tests/models/regressions/make_raft_rank6.py
"""
import os

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class CorrBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image1, image2):
        fmap1, fmap2 = self.encoder(image1), self.encoder(image2)
        # RAFT's CorrBlock._compute_corr_volume
        batch_size, num_channels, h, w = fmap1.shape
        fmap1 = fmap1.view(batch_size, num_channels, h * w)
        fmap2 = fmap2.view(batch_size, num_channels, h * w)
        corr = torch.matmul(fmap1.transpose(1, 2), fmap2)
        corr = corr.view(batch_size, h, w, 1, h, w)
        corr = corr / torch.sqrt(torch.tensor(num_channels, dtype=torch.float32))
        # CorrBlock.build_pyramid
        batch_size, h, w, num_channels, _, _ = corr.shape
        corr = corr.reshape(batch_size * h * w, num_channels, h, w)
        return corr, F.avg_pool2d(corr, kernel_size=2, stride=2)


torch.manual_seed(0)
model = CorrBlock().eval()
x = torch.randn(1, 3, 6, 8)
dims = {0: "batch", 2: "height", 3: "width"}
path = os.path.join(HERE, "raft_rank6_dynamic.onnx")
torch.onnx.export(model, (x, x), path, input_names=["image1", "image2"], output_names=["corr", "pyramid1"],
                  dynamic_axes={"image1": dims, "image2": dims, "corr": {0: "bhw", 2: "height", 3: "width"},
                                "pyramid1": {0: "bhw"}},
                  opset_version=16)
print("wrote", path, os.path.getsize(path), "bytes")
