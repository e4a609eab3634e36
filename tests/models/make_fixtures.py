#!/usr/bin/env python3
"""Re-exports the real-model fixtures of the test suite with Debian's python3-torch (random
weights, fixed seed; nothing is downloaded). The .onnx files are committed; run this only to
regenerate them:  /usr/bin/python3 tests/models/make_fixtures.py

- resnet_small.onnx: a small ResNet (conv/BN/ReLU blocks with residual adds), exported
  without constant folding, so BatchNormalization nodes stay in the graph.
- bert_tiny.onnx: a BERT-like encoder with dynamic batch and sequence: token + position
  embeddings (position ids from arange), attention with the usual view/transpose reshapes,
  an attention mask input, LayerNorm, GELU.
- gpt2_tiny.onnx: a GPT-2-like decoder with a causal mask built from the sequence length.
- swin_stage.onnx: a reduced torchvision SwinTransformer (the library's own classes: patch
  embedding, two stages of a shifted-window block pair with patch merging between them,
  embed_dim 16, window 4, 32x32 input, dynamic batch). Its window partition and reverse are
  Reshape -> Transpose -> Reshape through rank 6, which `--target coreml` must legalize.
- fusions_tiny.onnx: written with onnx.helper (random weights, dynamic batch): a chain where
  every fusion of the default pipeline has something to do - zero Pads before Conv, MaxPool
  (after Relu) and AveragePool (count_include_pad=0), Transpose into Gemm, Gemm and MatMul
  followed by BatchNormalization, constant Add/Mul after Gemm, Slice of a Slice, and a Concat
  of Slices that cover their input. ONNX Runtime is the judge of the fused model.
- vit_tiny.onnx / vit_tiny_static.onnx: torchvision's VisionTransformer with 3 encoder layers
  at a small size (32x32 image, patch 8, hidden 32, 4 heads, MLP 64), opset 17, without
  torch's folding; the first with a dynamic batch (`x.expand(B, -1, -1)` of the class token
  and every attention reshape read the batch size), the second static.
- swin_static_tiny.onnx: the reduced Swin Transformer of swin_stage.onnx exported with a
  static batch: its shifted-window attention masks (ConstantOfShape -> ScatterND ... -> Where)
  are whole constant computations.
- channel_pad_tiny.onnx: written with onnx.helper as tf2onnx writes channel padding:
  Concat(x, ConstantOfShape([batch, 4, 8, 8])) along the channels, the batch read from x.
- if_nest_tiny.onnx: written with onnx.helper after Silero VAD: an If on the sample rate whose
  branches nest Ifs on the rank and Size of the input (outer-scope values) and hold Constant
  nodes.
- repeat_interleave_tiny.onnx: `x.repeat_interleave(4, dim=-1)` over 100 frames at opset 11
  (WaveRNN's upsampling): torch writes the constant repeats as Expand(4, [100]) -> Split into
  100 -> per-frame Concat/Equal/Where -> Expand.
- unsorted_tiny.onnx: written with onnx.helper (random weights, dynamic batch) with its nodes
  in reverse topological order, as some exports ship them (ONNX Runtime runs them): shape
  plumbing into a Reshape, a MatMul, Constant nodes listed after their consumers, and an If on
  a data-dependent condition whose branches read outer values produced later in the list.

- keypoint_rcnn.onnx: torchvision's Keypoint R-CNN (the library's classes: transform, FPN,
  RPN, RoI heads, keypoint heads) on torchvision's ResNet-18 structure with narrow channels
  (8/16/32/64, FPN 16) and small heads, so that the file stays small; random weights, opset 11,
  dynamic image height and width. torch writes its squeeze(1) of per-level RoIs as
  If(dim == 1, Squeeze, Identity) whose branch outputs share one dim name although their sizes
  differ: ONNX Runtime must still run the simplified model (issue 16).
- squeeze_ifs.onnx: the smallest form of that: two NonZero lengths through
  If(dim == 1, Squeeze, Identity), every branch output declaring dim `n`.
- custom_gelu.onnx: com.microsoft.Gelu -> Concat -> Relu: element types behind a custom-domain
  op are unknown, and no value_info with element type 0 may be written for them.
- cut_if_function.onnx: graph surgery's fixture (issue 17): a model-local function (called
  twice) feeding an If whose branches read main-graph values from the outer scope (one of them a
  graph input), with a Conv before and a MatMul after; dynamic batch. Cutting at the function's
  output or at the If's inputs must keep the captured values.

- wavernn_tiny.onnx: torchaudio's WaveRNN (Debian's python3-torchaudio 0.13: MelResNet,
  UpsampleNetwork, two GRUs, the FC head) at a small size: upsample_scales [4, 4], hop 16,
  16 classes, 2 res blocks, n_rnn = n_fc = 32, kernel 5, n_freq = n_hidden = n_output = 16;
  random weights, opset 17, dynamic batch, samples and frames (samples = 16 * (frames - 4)).
  torchaudio's Stretch2d is `x.repeat_interleave(f, -2).repeat_interleave(t, -1)`, and torch
  1.13 cannot export that so that it runs (issue 16): with negative dims it writes an Unsqueeze
  axis out of range; with positive dims, repeat_interleave over a dim of known size bakes that
  size into Expand(repeats, [size]) -> Split, and its final Reshape copies the dims after the
  repeated one with 0 from a tensor that has one more axis there, so the time axis (dynamic) is
  lost and the model runs at no size. Stretch2d.forward is replaced, for this export only, by
  an equivalent that runs at any size (checked against torchaudio's own forward below):
  - the time axis: unsqueeze after it, expand by the scale, flatten the two axes;
  - the frequency axis: transposed to the last axis, repeat_interleave with constant repeats
    over it, transposed back. Where torch knows n_freq (the resnet stretch and the first
    upsampling stretch) it writes the constant-repeats cone of issue 16, item 4:
    Expand(repeats, [16]) -> Split (16 outputs) -> per element Concat/Equal/Where -> Expand ->
    Reshape -> Concat; after the first upsampling Conv2d it does not know it and writes
    SplitToSequence -> Loop -> ConcatFromSequence instead.
  onnxtrim must leave at most as many nodes as ONNX Runtime's basic level (e2e.ort_basic).

Pass fixture names (e.g. swin_stage) to re-export only those.
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class ResNetSmall(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layers = nn.Sequential(Block(8, 8, 1), Block(8, 16, 2), Block(16, 32, 2))
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.layers(self.stem(x))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


class Attention(nn.Module):
    def __init__(self, d, heads, causal):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.causal = causal

    def forward(self, x, mask=None):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.view(b, s, self.h, d // self.h).transpose(1, 2)
        k = k.view(b, s, self.h, d // self.h).transpose(1, 2)
        v = v.view(b, s, self.h, d // self.h).transpose(1, 2)
        att = q @ k.transpose(-2, -1) / math.sqrt(d // self.h)
        if self.causal:
            causal = torch.tril(torch.ones(s, s, dtype=torch.bool, device=x.device))
            att = att.masked_fill(~causal, float("-inf"))
        if mask is not None:
            att = att + (1.0 - mask[:, None, None, :].to(att.dtype)) * -10000.0
        y = (att.softmax(-1) @ v).transpose(1, 2).contiguous().view(b, s, d)
        return self.out(y)


class Layer(nn.Module):
    def __init__(self, d, heads, causal):
        super().__init__()
        self.att = Attention(d, heads, causal)
        self.n1 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n2 = nn.LayerNorm(d)

    def forward(self, x, mask=None):
        x = self.n1(x + self.att(x, mask))
        return self.n2(x + self.ff(x))


class Encoder(nn.Module):
    def __init__(self, vocab=100, d=32, heads=4, layers=2, max_pos=64, causal=False):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.layers = nn.ModuleList([Layer(d, heads, causal) for _ in range(layers)])
        self.causal = causal

    def forward(self, ids, mask=None):
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for layer in self.layers:
            x = layer(x, mask)
        return x


def export(model, args, name, input_names, output_names, dynamic_axes, fold, opset=17, no_grad=True):
    model.eval()
    path = os.path.join(HERE, name)
    # PRESERVE keeps the exporter from fusing BatchNormalization into Conv on its own (the model
    # is in eval mode, so BN is exported in inference form).
    # (no_grad=False for models whose no-grad fast paths do not export, e.g. nn.MultiheadAttention)
    with torch.no_grad() if no_grad else torch.enable_grad():
        torch.onnx.export(model, args, path, opset_version=opset, input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic_axes, do_constant_folding=fold,
                          training=torch.onnx.TrainingMode.PRESERVE)
    print("wrote", path, os.path.getsize(path), "bytes")


def swin_stage():
    from torchvision.models.swin_transformer import SwinTransformer

    torch.manual_seed(0)
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                        stochastic_depth_prob=0.0, num_classes=10)
    # torchvision initialises Linear weights with std 0.02 and the position bias near zero:
    # larger random values make every part of the graph visible in the outputs.
    for mod in m.modules():
        if isinstance(mod, nn.Linear):
            mod.reset_parameters()
        if hasattr(mod, "relative_position_bias_table"):
            nn.init.normal_(mod.relative_position_bias_table, std=0.5)
    export(m, (torch.randn(1, 3, 32, 32),), "swin_stage.onnx", ["image"], ["logits"],
           {"image": {0: "batch"}, "logits": {0: "batch"}}, fold=True)


def fusions_tiny():
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.RandomState(0)
    inits = []

    def const(name, a):
        inits.append(numpy_helper.from_array(np.asarray(a), name))
        return name

    def f32(name, *shape, lo=-1.0, hi=1.0):
        return const(name, rng.uniform(lo, hi, shape).astype(np.float32))

    def i64(name, *v):
        return const(name, np.array(v, dtype=np.int64))

    N = helper.make_node
    big = 9223372036854775807
    nodes = [
        N("Pad", ["x", i64("p1", 0, 0, 1, 2, 0, 0, 2, 1)], ["xp"]),
        N("Conv", ["xp", f32("w1", 4, 3, 3, 3), f32("b1", 4)], ["c1"], pads=[1, 0, 0, 1]),
        N("Relu", ["c1"], ["r1"]),
        N("Pad", ["r1", i64("p2", 0, 0, 1, 1, 0, 0, 1, 1)], ["rp"]),
        N("MaxPool", ["rp"], ["m1"], kernel_shape=[3, 3], strides=[2, 2]),
        N("Pad", ["m1", i64("p3", 0, 0, 1, 1, 0, 0, 1, 1), const("zero", np.array(0, dtype=np.float32))], ["mp"]),
        N("AveragePool", ["mp"], ["a1"], kernel_shape=[3, 3], strides=[2, 2]),
        N("Flatten", ["a1"], ["f"]),
        N("Transpose", ["f"], ["ft"], perm=[1, 0]),
        N("Gemm", ["ft", f32("w2", 36, 8)], ["g1"], transA=1, alpha=0.5),
        N("BatchNormalization", ["g1", f32("s", 8, lo=0.5, hi=1.5), f32("bb", 8), f32("mu", 8), f32("var", 8, lo=0.5, hi=1.5)], ["bn"]),
        N("Add", ["bn", f32("c8", 8)], ["ad"]),
        N("Mul", [f32("k8", 1, 8), "ad"], ["mk"]),
        N("Mul", ["mk", const("half", np.array(0.5, dtype=np.float32))], ["mh"]),
        N("Slice", ["mh", i64("s_1", 1), i64("e_7", 7), i64("ax1", 1)], ["sl1"]),
        N("Slice", ["sl1", i64("s_2", 1), i64("e_4", 4), i64("ax1b", 1)], ["y1"]),
        N("Slice", ["mh", i64("s_0", 0), i64("e_3", 3), i64("ax1c", 1)], ["h1"]),
        N("Slice", ["mh", i64("s_3", 3), i64("e_big", big), i64("ax1d", -1)], ["h2"]),
        N("Concat", ["h1", "h2"], ["cat"], axis=1),
        N("Relu", ["cat"], ["y2"]),
        N("MatMul", ["f", f32("w3", 36, 5)], ["mm"]),
        N("BatchNormalization", ["mm", f32("s5", 5, lo=0.5, hi=1.5), f32("bb5", 5), f32("mu5", 5), f32("var5", 5, lo=0.5, hi=1.5)], ["y3"]),
    ]
    graph = helper.make_graph(
        nodes, "fusions_tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, ["batch", 3]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, ["batch", 8]),
         helper.make_tensor_value_info("y3", TensorProto.FLOAT, ["batch", 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8,
                              producer_name="make_fixtures.py")
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(HERE, "fusions_tiny.onnx")
    onnx.save(model, path)
    print("wrote", path, os.path.getsize(path), "bytes")


def keypoint_rcnn():
    from torchvision.models.detection import KeypointRCNN
    from torchvision.models.detection.backbone_utils import BackboneWithFPN
    from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
    from torchvision.models.detection.keypoint_rcnn import KeypointRCNNHeads, KeypointRCNNPredictor
    from torchvision.models.resnet import BasicBlock, ResNet
    from torchvision.ops.misc import FrozenBatchNorm2d

    torch.manual_seed(0)
    widths, fpn = (8, 16, 32, 64), 16
    # ResNet-18's structure (BasicBlock, [2, 2, 2, 2]) with its stem and four stages narrowed.
    body = ResNet(BasicBlock, [2, 2, 2, 2], norm_layer=FrozenBatchNorm2d)
    body.inplanes = widths[0]
    body.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
    body.bn1 = FrozenBatchNorm2d(widths[0])
    for i, w in enumerate(widths):
        setattr(body, f"layer{i + 1}", body._make_layer(BasicBlock, w, 2, stride=1 if i == 0 else 2))
    body.fc = nn.Identity()
    with torch.no_grad():
        for mod in body.modules():
            if isinstance(mod, FrozenBatchNorm2d):
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.2, 0.2)
                mod.running_mean.uniform_(-0.2, 0.2)
                mod.running_var.uniform_(0.5, 1.5)
    backbone = BackboneWithFPN(body, {"layer1": "0", "layer2": "1", "layer3": "2", "layer4": "3"}, list(widths), fpn)
    model = KeypointRCNN(backbone, min_size=64, max_size=96, rpn_pre_nms_top_n_test=60, rpn_post_nms_top_n_test=30,
                         box_head=TwoMLPHead(fpn * 7 * 7, 32), box_predictor=FastRCNNPredictor(32, 2),
                         box_score_thresh=0.0, box_detections_per_img=8,
                         keypoint_head=KeypointRCNNHeads(fpn, (16,) * 4), keypoint_predictor=KeypointRCNNPredictor(16, 5))
    model.eval()
    path = os.path.join(HERE, "keypoint_rcnn.onnx")
    with torch.no_grad():
        torch.onnx.export(model, ([torch.rand(3, 64, 80)],), path, opset_version=11, input_names=["image"],
                          output_names=["boxes", "labels", "scores", "keypoints", "keypoints_scores"],
                          dynamic_axes={"image": {1: "height", 2: "width"}}, do_constant_folding=True)
    print("wrote", path, os.path.getsize(path), "bytes")


def squeeze_ifs():
    import onnx
    from onnx import TensorProto, helper

    N = helper.make_node

    def branch(name, src, k, squeeze):
        if squeeze:
            nodes = [N("Constant", [], [f"ax{k}"], value=helper.make_tensor("v", TensorProto.INT64, [1], [1])),
                     N("Squeeze", [src, f"ax{k}"], [f"o{k}"])]
            out = helper.make_tensor_value_info(f"o{k}", TensorProto.INT64, ["n"])
        else:
            nodes = [N("Identity", [src], [f"e{k}"])]
            out = helper.make_tensor_value_info(f"e{k}", TensorProto.INT64, ["n", 1])
        return helper.make_graph(nodes, name, [], [out])

    nodes = [N("Constant", [], ["one"], value=helper.make_tensor("v", TensorProto.INT64, [], [1]))]
    for k in (1, 2):
        nodes += [
            N("NonZero", [f"x{k}"], [f"nz{k}"]),
            N("Transpose", [f"nz{k}"], [f"t{k}"], perm=[1, 0]),
            N("Shape", [f"t{k}"], [f"sh{k}"]),
            N("Gather", [f"sh{k}", "one"], [f"d{k}"], axis=0),
            N("Equal", [f"d{k}", "one"], [f"c{k}"]),
            N("If", [f"c{k}"], [f"s{k}"], then_branch=branch(f"then{k}", f"t{k}", k, True),
              else_branch=branch(f"else{k}", f"t{k}", k, False)),
            N("Cast", [f"s{k}"], [f"f{k}"], to=TensorProto.FLOAT),
            N("ReduceSum", [f"f{k}"], [f"r{k}"], keepdims=0),
        ]
    graph = helper.make_graph(
        nodes, "squeeze_ifs",
        [helper.make_tensor_value_info("x1", TensorProto.FLOAT, ["a"]),
         helper.make_tensor_value_info("x2", TensorProto.FLOAT, ["b"])],
        [helper.make_tensor_value_info("r1", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("r2", TensorProto.FLOAT, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8,
                              producer_name="make_fixtures.py")
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(HERE, "squeeze_ifs.onnx")
    onnx.save(model, path)
    print("wrote", path, os.path.getsize(path), "bytes")


def vit_tiny():
    from torchvision.models.vision_transformer import VisionTransformer

    for name, dynamic in (("vit_tiny.onnx", True), ("vit_tiny_static.onnx", False)):
        torch.manual_seed(0)
        m = VisionTransformer(image_size=32, patch_size=8, num_layers=3, num_heads=4, hidden_dim=32, mlp_dim=64,
                              num_classes=10)
        # The class token and the classifier start at zero in torchvision: random values make them count.
        nn.init.normal_(m.class_token, std=0.5)
        nn.init.normal_(m.heads.head.weight, std=0.5)
        export(m, (torch.randn(1, 3, 32, 32),), name, ["image"], ["logits"],
               {"image": {0: "batch"}, "logits": {0: "batch"}} if dynamic else None, fold=False, no_grad=False)


def swin_static_tiny():
    from torchvision.models.swin_transformer import SwinTransformer

    torch.manual_seed(0)
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                        stochastic_depth_prob=0.0, num_classes=10)
    for mod in m.modules():
        if isinstance(mod, nn.Linear):
            mod.reset_parameters()
        if hasattr(mod, "relative_position_bias_table"):
            nn.init.normal_(mod.relative_position_bias_table, std=0.5)
    export(m, (torch.randn(1, 3, 32, 32),), "swin_static_tiny.onnx", ["image"], ["logits"], None, fold=False)


def save_helper_model(name, nodes, inputs, outputs, inits, opset):
    import onnx
    from onnx import helper

    graph = helper.make_graph(nodes, name.replace(".onnx", ""), inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8,
                              producer_name="make_fixtures.py")
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(HERE, name)
    onnx.save(model, path)
    print("wrote", path, os.path.getsize(path), "bytes")


def custom_gelu():
    import onnx
    from onnx import TensorProto, helper

    N = helper.make_node
    nodes = [N("Gelu", ["x"], ["g"], domain="com.microsoft"),
             N("Concat", ["g", "x"], ["c"], axis=0),
             N("Relu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "custom_gelu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)],
                              ir_version=8, producer_name="make_fixtures.py")
    path = os.path.join(HERE, "custom_gelu.onnx")
    onnx.save(model, path)
    print("wrote", path, os.path.getsize(path), "bytes")


def channel_pad_tiny():
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.RandomState(1)
    N = helper.make_node
    w = numpy_helper.from_array(rng.uniform(-1, 1, (8, 8, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.uniform(-1, 1, (8,)).astype(np.float32), "b")
    tail = numpy_helper.from_array(np.array([4, 8, 8], dtype=np.int64), "tail")
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [1], [0.0])
    nodes = [
        N("Relu", ["x"], ["r"]),
        N("Shape", ["r"], ["shape"]),
        N("Slice", ["shape", "s0", "s1"], ["batch"]),
        N("Concat", ["batch", "tail"], ["pad_shape"], axis=0),
        N("ConstantOfShape", ["pad_shape"], ["zeros"], value=zero),
        N("Concat", ["r", "zeros"], ["padded"], axis=1),
        N("Conv", ["padded", "w", "b"], ["y"], pads=[1, 1, 1, 1]),
    ]
    inits = [w, b, tail, numpy_helper.from_array(np.array([0], dtype=np.int64), "s0"),
             numpy_helper.from_array(np.array([1], dtype=np.int64), "s1")]
    save_helper_model("channel_pad_tiny.onnx", nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8, 8, 8])], inits, 13)


def if_nest_tiny():
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.RandomState(2)
    N = helper.make_node

    def const(name, a):
        return N("Constant", [], [name], value=numpy_helper.from_array(np.asarray(a), name + "_t"))

    def rank_if(tag, x, out):
        """out = x when x has rank 2, else Unsqueeze(x, 0): decided by the rank of x (Size of
        Shape(x)), an outer-scope value."""
        then_g = helper.make_graph([N("Identity", [x], [tag + "_same"])], tag + "_then", [],
                                   [helper.make_tensor_value_info(tag + "_same", TensorProto.FLOAT, None)])
        else_g = helper.make_graph([const(tag + "_ax", np.array([0], dtype=np.int64)),
                                    N("Unsqueeze", [x, tag + "_ax"], [tag + "_unsq"])], tag + "_else", [],
                                   [helper.make_tensor_value_info(tag + "_unsq", TensorProto.FLOAT, None)])
        return [N("Shape", [x], [tag + "_shape"]), N("Size", [tag + "_shape"], [tag + "_rank"]),
                const(tag + "_two", np.array(2, dtype=np.int64)),
                N("Equal", [tag + "_rank", tag + "_two"], [tag + "_is2"]),
                N("If", [tag + "_is2"], [out], then_branch=then_g, else_branch=else_g)]

    def branch(tag, scale):
        nodes = rank_if(tag + "_r", "x", tag + "_x2")
        # A Size decision: the Size of x is never negative.
        nodes += [N("Size", ["x"], [tag + "_n"]), const(tag + "_z", np.array(0, dtype=np.int64)),
                  N("Less", [tag + "_n", tag + "_z"], [tag + "_neg"])]
        neg_then = helper.make_graph([N("Neg", [tag + "_x2"], [tag + "_flip"])], tag + "_neg_then", [],
                                     [helper.make_tensor_value_info(tag + "_flip", TensorProto.FLOAT, None)])
        neg_else = helper.make_graph([N("Identity", [tag + "_x2"], [tag + "_keep"])], tag + "_neg_else", [],
                                     [helper.make_tensor_value_info(tag + "_keep", TensorProto.FLOAT, None)])
        nodes += [N("If", [tag + "_neg"], [tag + "_x3"], then_branch=neg_then, else_branch=neg_else),
                  const(tag + "_w", rng.uniform(-1, 1, (16, 8)).astype(np.float32)),
                  const(tag + "_s", np.array(scale, dtype=np.float32)),
                  N("MatMul", [tag + "_x3", tag + "_w"], [tag + "_mm"]),
                  N("Mul", [tag + "_mm", tag + "_s"], [tag + "_y"])]
        return helper.make_graph(nodes, tag, [], [helper.make_tensor_value_info(tag + "_y", TensorProto.FLOAT, None)])

    nodes = [N("Equal", ["sr", "sr16k"], ["is16k"]),
             N("If", ["is16k"], ["y"], then_branch=branch("b16k", 1.0), else_branch=branch("b8k", 2.0))]
    inits = [numpy_helper.from_array(np.array(16000, dtype=np.int64), "sr16k")]
    save_helper_model("if_nest_tiny.onnx", nodes,
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16]),
                       helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])], inits, 17)


def repeat_interleave_tiny():
    class Upsample(nn.Module):
        def forward(self, x):
            return x.repeat_interleave(4, dim=-1)

    export(Upsample(), (torch.randn(1, 3, 100),), "repeat_interleave_tiny.onnx", ["frames"], ["samples"],
           {"frames": {0: "batch"}, "samples": {0: "batch"}}, fold=False, opset=11)


def cut_if_function():
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    N = helper.make_node
    rng = np.random.default_rng(0)
    # local.ScaleShift(X, S) = X * S + X
    fn = helper.make_function("local", "ScaleShift", ["X", "S"], ["Y"],
                              [N("Mul", ["X", "S"], ["XS"]), N("Add", ["XS", "X"], ["Y"])],
                              [helper.make_opsetid("", 17)])
    then_g = helper.make_graph([N("Mul", ["f2", "f2"], ["o1"])], "then",
                               [], [helper.make_tensor_value_info("o1", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([N("Sub", ["f2", "bias"], ["o2"])], "else",
                               [], [helper.make_tensor_value_info("o2", TensorProto.FLOAT, None)])
    inits = [numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal((4, 1, 1)).astype(np.float32), "scale"),
             numpy_helper.from_array(rng.standard_normal((4, 5)).astype(np.float32), "proj"),
             numpy_helper.from_array(np.array([0, 1, 2, 3], np.int64), "keep")]
    nodes = [
        N("Conv", ["image", "w"], ["conv"], pads=[1, 1, 1, 1], name="conv"),
        N("ScaleShift", ["conv", "scale"], ["f1"], domain="local", name="ss1"),
        N("Relu", ["f1"], ["r1"], name="relu"),
        N("ScaleShift", ["r1", "scale"], ["f2"], domain="local", name="ss2"),
        N("ReduceMean", ["f2"], ["mean"], keepdims=0, name="mean"),
        N("Greater", ["mean", "threshold"], ["cond"], name="cmp"),
        N("If", ["cond"], ["picked"], then_branch=then_g, else_branch=else_g, name="pick"),
        N("GlobalAveragePool", ["picked"], ["pooled"], name="gap"),
        N("Flatten", ["pooled"], ["flat"], axis=1, name="flat"),
        N("MatMul", ["flat", "proj"], ["logits"], name="head"),
        N("Gather", ["conv", "keep"], ["kept"], axis=1, name="gather"),
        N("Sigmoid", ["kept"], ["gate"], name="gate"),
    ]
    graph = helper.make_graph(
        nodes, "cut_if_function",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 8, 8]),
         helper.make_tensor_value_info("bias", TensorProto.FLOAT, ["batch", 4, 8, 8]),
         helper.make_tensor_value_info("threshold", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 5]),
         helper.make_tensor_value_info("gate", TensorProto.FLOAT, ["batch", 4, 8, 8])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                              ir_version=8, producer_name="make_fixtures.py", functions=[fn])
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(HERE, "cut_if_function.onnx")
    onnx.save(model, path)


def unsorted_tiny():
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.RandomState(1)
    N = helper.make_node
    w = numpy_helper.from_array(rng.uniform(-1, 1, (6, 5)).astype(np.float32), "w")

    def branch(name, op):
        out = helper.make_tensor_value_info(name + "_o", TensorProto.FLOAT, None)
        return helper.make_graph([N(op, ["proj", "half"], [name + "_o"])], name, [], [out])

    in_order = [
        N("Shape", ["x"], ["shp"]),
        N("Constant", [], ["i0"], value=numpy_helper.from_array(np.array([0], dtype=np.int64))),
        N("Gather", ["shp", "i0"], ["b"], axis=0),
        N("Constant", [], ["rest"], value=numpy_helper.from_array(np.array([4, 6], dtype=np.int64))),
        N("Concat", ["b", "rest"], ["newshape"], axis=0),
        N("Relu", ["x"], ["r"]),
        N("Reshape", ["r", "newshape"], ["rr"]),
        N("MatMul", ["rr", "w"], ["proj"]),
        N("Constant", [], ["half"], value=numpy_helper.from_array(np.array(0.5, dtype=np.float32))),
        N("ReduceSum", ["x"], ["total"], keepdims=0),
        N("Constant", [], ["zero"], value=numpy_helper.from_array(np.array(0.0, dtype=np.float32))),
        N("Greater", ["total", "zero"], ["flag"]),
        N("If", ["flag"], ["t"], then_branch=branch("then", "Mul"), else_branch=branch("else", "Sub")),
        N("Add", ["t", "proj"], ["y"]),
    ]
    graph = helper.make_graph(
        list(reversed(in_order)), "unsorted_tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 5])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7,
                              producer_name="make_fixtures.py")
    path = os.path.join(HERE, "unsorted_tiny.onnx")
    onnx.save(model, path)  # not checked: onnx.checker refuses the order on purpose
    print("wrote", path, os.path.getsize(path), "bytes")


def wavernn_tiny():
    from torchaudio.models.wavernn import Stretch2d, WaveRNN

    def stretch(x, scale, dim):
        """x with each element along the positive axis `dim` repeated `scale` times in place."""
        sizes = [-1] * (x.dim() + 1)
        sizes[dim + 1] = scale
        return x.unsqueeze(dim + 1).expand(sizes).flatten(dim, dim + 1)

    def forward(self, x):
        f = x.dim() - 2  # the frequency axis; the time axis is f + 1, the last
        x = x.transpose(f, f + 1).repeat_interleave(self.freq_scale, f + 1).transpose(f, f + 1)
        return stretch(x, self.time_scale, f + 1)

    torch.manual_seed(0)
    m = WaveRNN(upsample_scales=[4, 4], n_classes=16, hop_length=16, n_res_block=2, n_rnn=32, n_fc=32,
                kernel_size=5, n_freq=16, n_hidden=16, n_output=16).eval()
    with torch.no_grad():
        for mod in m.modules():  # non-trivial BatchNorm statistics
            if isinstance(mod, nn.BatchNorm1d):
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 1.5)
    original = Stretch2d.forward
    try:
        with torch.no_grad():  # the replacement computes what torchaudio's forward does
            for batch, frames in ((1, 10), (3, 13)):
                wav, spec = torch.randn(batch, 1, 16 * (frames - 4)), torch.randn(batch, 1, 16, frames)
                Stretch2d.forward = original
                want = m(wav, spec)
                Stretch2d.forward = forward
                assert torch.equal(m(wav, spec), want)
        frames = 10
        export(m, (torch.randn(1, 1, 16 * (frames - 4)), torch.randn(1, 1, 16, frames)), "wavernn_tiny.onnx",
               ["waveform", "specgram"], ["logits"],
               {"waveform": {0: "batch", 2: "samples"}, "specgram": {0: "batch", 3: "frames"},
                "logits": {0: "batch", 2: "samples"}}, fold=True)
    finally:
        Stretch2d.forward = original


FIXTURES = {"swin_stage": lambda: swin_stage(), "fusions_tiny": lambda: fusions_tiny(),
            "keypoint_rcnn": keypoint_rcnn, "squeeze_ifs": squeeze_ifs, "custom_gelu": custom_gelu, "vit_tiny": vit_tiny,
            "swin_static_tiny": swin_static_tiny, "channel_pad_tiny": channel_pad_tiny, "if_nest_tiny": if_nest_tiny,
            "repeat_interleave_tiny": repeat_interleave_tiny, "cut_if_function": cut_if_function,
            "unsorted_tiny": unsorted_tiny, "wavernn_tiny": wavernn_tiny}


def main():
    only = set(sys.argv[1:])
    if only:
        for name in only:
            FIXTURES[name]()
        return
    r = ResNetSmall()
    for m in r.modules():  # non-trivial BN statistics, so that fusing them is visible
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    export(r, (torch.randn(1, 3, 32, 32),), "resnet_small.onnx", ["image"], ["logits"],
           {"image": {0: "batch"}, "logits": {0: "batch"}}, fold=False)

    ids = torch.randint(0, 100, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    export(Encoder(), (ids, mask), "bert_tiny.onnx", ["input_ids", "attention_mask"], ["hidden"],
           {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
            "hidden": {0: "batch", 1: "seq"}}, fold=True)

    export(Encoder(causal=True), (ids,), "gpt2_tiny.onnx", ["input_ids"], ["hidden"],
           {"input_ids": {0: "batch", 1: "seq"}, "hidden": {0: "batch", 1: "seq"}}, fold=True)

    for make in FIXTURES.values():
        make()


if __name__ == "__main__":
    main()
