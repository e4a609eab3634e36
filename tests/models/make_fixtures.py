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

Transformer blocks for the fusions to standard ops of issue 31 (bench/ort_latency.py times them;
docs/standard_ops.md says how ONNX Runtime takes the opset-23 ops). Plain torch modules written
here after Hugging Face's Llama and GPT-2 (no transformers package), random weights, exported
by torch 1.13's TorchScript exporter with constant folding (weights pre-transposed into MatMul
initializers). torch stays the judge: the cached step equals a full pass before export.
- llama_tiny.onnx (opset 17): a Llama-style decoder, 2 layers, hidden 128, 8 query heads and 2 KV
  heads of dim 16 (GQA), SiLU MLP 256, vocab 128, rotary tables of 2048 positions. Inputs
  input_ids, position_ids [batch, seq] (int64), past_key_i/past_value_i [batch, 2, past_seq, 16];
  outputs logits [batch, seq, 128], present_key_i/present_value_i [batch, 2, total_seq, 16]
  (past_seq 0 runs). Its blocks, as exported:
  - RMSNorm (HF LlamaRMSNorm, eps 1e-6, with its float32 casts): Cast(to float) -> Pow(x, 2) ->
    ReduceMean(axes [-1], keepdims 1) -> Add(eps) -> Sqrt -> Div(1.0, .) -> Mul(x, .) ->
    Cast(to float) -> Mul(weight [128], .) (the weight first). The residual Add reads the first
    Cast's output. 5 of them (2 per layer, the final norm).
  - Rotary embedding (HF rotate_half, non-interleaved, whole head dim): cos/sin tables
    [2048, 16] = cat(freqs, freqs) as initializers, Gather(table, position_ids) -> Unsqueeze(1)
    once for all layers; per q and k: Mul(x, cos) + Mul(Concat(Neg(Slice(x, D/2, end)),
    Slice(x, 0, D/2), axis -1), sin), the half size from Shape -> Gather(3) -> Div(2) -> Cast ->
    Cast -> Unsqueeze, on x in [batch, heads, seq, 16] (after the head split).
  - Attention: q/k/v MatMul -> Reshape [b, s, heads, 16] (from Shape/Gather/Unsqueeze/Concat) ->
    Transpose(0, 2, 1, 3); the KV cache Concat(past, k after RoPE | v, axis 2) is the graph
    output present_*; repeat_kv: Unsqueeze(2) -> Expand to [b, 2, 4, t, 16] (the shape through
    torch's -1 handling ConstantOfShape/Mul(-1)/Equal/Where) -> Reshape [b, 8, t, 16];
    MatMul(q, Transpose(k, 0, 1, 3, 2)) -> Div(4.0 = sqrt(16)) -> Add(mask) -> Softmax(-1) ->
    Cast -> Cast (softmax's float32 dtype) -> MatMul(., v) -> Transpose(0, 2, 1, 3) -> Reshape
    [b, s, 128] -> o_proj MatMul.
  - Causal mask, additive, built once from the lengths: rows Range(0, seq) + past, cols
    Range(0, past + seq), Where(Cast(cols > rows, bool), float32 min, ConstantOfShape zeros
    [seq, past + seq]) -> Unsqueeze(0) -> Unsqueeze(1): [1, 1, seq, past + seq], query i seeing
    keys 0 .. past + i (the bottom-right-aligned causal of a cache).
  - SwiGLU MLP: Mul(Mul(g, Sigmoid(g)), up) -> down, g and up two MatMuls of the same input.
- rope_interleaved_tiny.onnx (opset 17): llama_tiny (same sizes, inputs and outputs) whose rotary
  is GPT-J/CodeGen's: rotate_every_two (torch's x[..., ::2], x[..., 1::2], stack((-x2, x1), -1)
  .flatten(-2): Slices of step 2 -> Neg -> Unsqueeze(-1) x2 -> Concat(-1) -> Reshape) on the first
  rotary_dim 8 of each head of 16, the rest passed through (Slices and a Concat), with tables
  [2048, 8] = repeat_interleave(freqs, 2) gathered by position ids (Cohere's layout; GPT-J
  itself repeats after the lookup and rotates before the head transpose, which is not fused).
- fp16_norms_tiny.onnx (opset 17, float16, built with onnx.helper): x [batch, seq, 64] float16
  through two blocks of HF's float16 LlamaRMSNorm (Cast(to float) -> Pow(2) -> ReduceMean(axes
  [-1]) -> Add(1e-6) -> Sqrt -> Div(1.0, .) -> Mul(x32, .) -> Cast(to float16) -> Mul(weight
  float16)), a float16 MatMul and residual Add, a MatMul and a residual Add; output y [batch,
  seq, 64] float16. (CLIP/Whisper's float16 LayerNorm, Cast(to float) -> LayerNorm in float32
  with a float32 affine -> Cast(to float16), is not in it: ONNX Runtime 1.30's own LayerNormFusion
  fails to load that graph at level basic and above, mixing float16 and float in one
  LayerNormalization.)
- gpt_kv_tiny.onnx (opset 17): a GPT-2-like decoder, 2 blocks, hidden 64, 4 heads of dim 16,
  MLP 256, vocab 128, 1280 learned positions (Range(past, past + seq)). Inputs input_ids, past_*
  [batch, 4, past_seq, 16]; outputs hidden [batch, seq, 64], present_* [batch, 4, total_seq, 16].
  - LayerNorm: the exporter writes LayerNormalization (axis -1, eps 1e-5) at opset 17; random
    affine.
  - tanh-GELU (HF NewGELUActivation, written out): Mul(x, 0.5), Pow(x, 3.0) -> Mul(0.044715) ->
    Add(x, .) -> Mul(0.7978845834732056 = sqrt(2/pi)) -> Tanh -> Add(1.0) -> Mul(x*0.5, .).
  - Attention: one c_attn MatMul + Add(bias) -> Split([64, 64, 64], axis 2) -> Reshape/Transpose
    per q, k, v; Concat(past, ., axis -2) = present_*; MatMul(q, Transpose(present_k, 0, 1, 3, 2))
    -> Div(4.0) -> Where(mask, -inf, .) (a boolean mask: True where masked, the same
    bottom-right causal as llama_tiny's, Range/Greater/Unsqueeze x2, Cast to bool per block) ->
    Softmax(-1) -> MatMul(., present_v) -> Transpose -> Reshape -> c_proj.
- gpt2_hf_tiny.onnx (opset 17): gpt_kv_tiny's sizes (2 blocks, hidden 64, 4 heads of dim 16, vocab
  128, same inputs and outputs) with HF GPT2Attention's own causal mask: a registered buffer
  bias = tril(ones(320, 320, bool)).view(1, 1, 320, 320) per block, sliced as bias[:, :, T - S :
  T, :T] (T read from the cache: Shape(present_value) -> Slice -> Sub; two Slices of axes 2 and
  3), then Where(mask, scores, finfo(float32).min) (torch.where with a full([]) mask value); the
  scores divided by full([], sqrt(16)). 320 learned positions: past + seq <= 320.
- gptj_tiny.onnx (opset 17): a GPT-J-like decoder written after HF's GPTJ modules: 2 blocks,
  hidden 64, 4 heads of dim 16, vocab 128, 320 positions; inputs input_ids, position_ids,
  past_*; outputs hidden, present_*. One LayerNorm feeds attention and MLP in parallel (x +
  attn(ln(x)) + mlp(ln(x))); q/k/v projections without bias; the interleaved rotary on the
  first 8 of 16 dims before the head transpose (sincos table [320, 8] gathered by position ids,
  split into sin and cos, repeat_interleave'd, rotate_every_two); the same sliced causal buffer
  as gpt2_hf_tiny, then Where(mask, q.k^T, finfo.min) and the division by sqrt(16) after it
  (GPT-J's order); tanh-GELU MLP. GPT-J's no-op casts are kept as torch writes them: the
  present key as key.to(dtype) (a Cast whose output is the graph output present_key_i), and
  q.to(float32), k.to(float32) before q.k^T.
- bert_tiny_op13.onnx / vit_tiny_op13.onnx: bert_tiny and vit_tiny (above, opset 17, where the
  exporter writes LayerNormalization) exported at opset 13, where LayerNorm is decomposed:
  ReduceMean(axes [-1]) -> Sub -> Pow(2) -> ReduceMean(axes [-1]) -> Add(eps 1e-5 | 1e-6 in ViT)
  -> Sqrt -> Div(Sub, .) -> Mul(weight) -> Add(bias); random LayerNorm affine. GELU is the erf
  form in all four: Div(x, 1.4142135) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5). bert's
  attention: Split of one qkv MatMul, Div by sqrt(8) after QK^T, an additive padding mask
  (1 - mask) * -10000 from the int64 attention_mask (seq <= 64: learned positions); ViT's is
  torch's nn.MultiheadAttention: sequence-first Transpose, in-projection, heads folded into the
  batch (rank-3 [b * 4, 17, 8] MatMuls), q divided by sqrt(8) before Q.K^T, no mask.

Graphs of the third-party files of issue 29 (Piper's VITS voices, Silero VAD), rebuilt small here
with random weights; `onnxtrim IN OUT` with no flags must run the check, pass it and write
(e2e.exported_fixtures).
- vits_noise_tiny.onnx (opset 17): a VITS-like decoder. Inputs x [batch, 16, length] (the text
  encoder's output) and scales [3] (Piper's [noise_scale, length_scale, noise_w]); a duration
  head whose log-durations get `randn_like * noise_w`, the prior's m + randn_like(m) *
  exp(logs) * noise_scale, one coupling step of the flow (split, WaveNet-like gate, add, swap),
  then two ConvTranspose1d upsamplings (x4 each) with LeakyReLU and a residual Conv1d, Tanh.
  torch writes randn_like as RandomNormalLike without a seed (two of them), live through the
  scales input. Outputs audio [batch, 1, samples], durations [batch, 1, length].
- stft_lstm_tiny.onnx (opset 17): a Silero-VAD-like detector, scripted (torch.jit.script) so
  that `if x.shape[-1] >= 512` becomes an If on the input's length: each branch is an STFT done
  as Silero does it (a right reflection pad of hop / 2, a Conv1d with a fixed Hann-windowed DFT
  basis of 33 bins: frames of 256 with hop 128 for a 16 kHz chunk, of 128 with hop 64 for an
  8 kHz one), the magnitude, a Conv1d encoder (one stride 2), an LSTM whose state is an input
  ([2, batch, 32]: h and c), a Conv1d head, Sigmoid and the mean over frames. Inputs input
  [batch, samples], state; outputs output [batch, 1], stateN. It runs from 96 samples on (the
  8 kHz frame), so the check's first sizes (8, 64) fail and it finds 512 by itself.

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


# --- issue 31: transformer blocks that standard ONNX ops (LayerNormalization-17, Gelu-20,
# RMSNormalization-23, RotaryEmbedding-23, Attention-23) can replace. Plain torch, no
# transformers package; the layouts and formulas follow Hugging Face's Llama and GPT-2.

class RMSNorm(nn.Module):
    """HF LlamaRMSNorm: w * (x * rsqrt(mean(x^2, -1) + eps)), with its float32 casts."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d).uniform_(0.5, 1.5))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    """HF repeat_kv: (B, kv, T, D) -> (B, kv * n_rep, T, D) by expand + reshape."""
    b, kv, t, d = x.shape
    x = x[:, :, None, :, :].expand(b, kv, n_rep, t, d)
    return x.reshape(b, kv * n_rep, t, d)


class LlamaAttention(nn.Module):
    def __init__(self, d, heads, kv_heads):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o_proj = nn.Linear(heads * self.hd, d, bias=False)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        present = (k, v)
        k = repeat_kv(k, self.h // self.kv)
        v = repeat_kv(v, self.h // self.kv)
        att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        att = att + mask
        att = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, s, self.h * self.hd)
        return self.o_proj(y), present


class LlamaLayer(nn.Module):
    def __init__(self, d, heads, kv_heads, ffn):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = LlamaAttention(d, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(d)
        self.gate_proj = nn.Linear(d, ffn, bias=False)
        self.up_proj = nn.Linear(d, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, d, bias=False)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        a, present = self.self_attn(self.input_layernorm(x), cos, sin, mask, past_k, past_v)
        x = x + a
        h = self.post_attention_layernorm(x)
        x = x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))
        return x, present


class LlamaTiny(nn.Module):
    def __init__(self, vocab=128, d=128, heads=8, kv_heads=2, ffn=256, layers=2, max_pos=2048, theta=10000.0):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([LlamaLayer(d, heads, kv_heads, ffn) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        hd = d // heads
        inv_freq = 1.0 / (theta ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(max_pos).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)  # (max_pos, head_dim): HF's cos_cached/sin_cached
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, input_ids, position_ids, *past):
        s = input_ids.shape[1]
        p = past[0].shape[2]
        x = self.embed_tokens(input_ids)
        cos = self.cos_cached[position_ids].unsqueeze(1)  # (B, 1, S, head_dim)
        sin = self.sin_cached[position_ids].unsqueeze(1)
        # Causal over the cache: query i (at position p + i) sees keys 0 .. p + i.
        rows = torch.arange(s, device=x.device) + p
        cols = torch.arange(p + s, device=x.device)
        mask = torch.zeros(s, p + s, dtype=x.dtype, device=x.device)
        mask = mask.masked_fill(cols[None, :] > rows[:, None], torch.finfo(x.dtype).min)[None, None, :, :]
        presents = []
        for i, layer in enumerate(self.layers):
            x, present = layer(x, cos, sin, mask, past[2 * i], past[2 * i + 1])
            presents += present
        return (self.lm_head(self.norm(x)), *presents)


def rotate_every_two(x):
    """GPT-J/CodeGen's rotate_every_two (Cohere's rotate_half): pairs (2i, 2i + 1) -> (-x[2i + 1], x[2i])."""
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


class RopeInterleavedAttention(LlamaAttention):
    """LlamaAttention whose rotary is GPT-J's: rotate_every_two on the first rotary_dim features
    of each head (the rest passed through), with tables repeat_interleave'd before the lookup."""

    def __init__(self, d, heads, kv_heads, rotary_dim):
        super().__init__(d, heads, kv_heads)
        self.rd = rotary_dim

    def rope(self, x, cos, sin):
        r, p = x[..., : self.rd], x[..., self.rd:]
        return torch.cat(((r * cos) + (rotate_every_two(r) * sin), p), dim=-1)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        present = (k, v)
        k = repeat_kv(k, self.h // self.kv)
        v = repeat_kv(v, self.h // self.kv)
        att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        att = F.softmax(att + mask, dim=-1, dtype=torch.float32).to(q.dtype)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, s, self.h * self.hd)
        return self.o_proj(y), present


class RopeInterleavedTiny(LlamaTiny):
    """llama_tiny with GPT-J's partial interleaved rotary (rotary_dim 8 of head dim 16)."""

    def __init__(self, rotary_dim=8, max_pos=2048, theta=10000.0, **kw):
        super().__init__(max_pos=max_pos, theta=theta, **kw)
        for layer in self.layers:
            old = layer.self_attn
            layer.self_attn = RopeInterleavedAttention(old.h * old.hd, old.h, old.kv, rotary_dim)
        inv_freq = 1.0 / (theta ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
        freqs = torch.outer(torch.arange(max_pos).float(), inv_freq)
        emb = torch.repeat_interleave(freqs, 2, dim=-1)  # (max_pos, rotary_dim): (f0, f0, f1, f1, ..)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)


def new_gelu(x):
    """HF NewGELUActivation (GPT-2's gelu_new): the tanh approximation, written out."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GptKvBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)

    def forward(self, x, mask, past_k, past_v):
        b, s, d = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q = q.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)
        k = k.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)
        v = v.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)
        k = torch.cat((past_k, k), dim=-2)
        v = torch.cat((past_v, v), dim=-2)
        att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        att = att.masked_fill(mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = torch.matmul(att, v).permute(0, 2, 1, 3).contiguous().view(b, s, d)
        x = x + self.c_proj(y)
        x = x + self.mlp_proj(new_gelu(self.c_fc(self.ln_2(x))))
        return x, (k, v)


class GptKvTiny(nn.Module):
    def __init__(self, vocab=128, d=64, heads=4, layers=2, max_pos=1280):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_pos, d)
        self.h = nn.ModuleList([GptKvBlock(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)

    def forward(self, input_ids, *past):
        s = input_ids.shape[1]
        p = past[0].shape[2]
        pos = torch.arange(p, p + s, device=input_ids.device).unsqueeze(0)  # HF GPT-2's position_ids
        x = self.wte(input_ids) + self.wpe(pos)
        rows = torch.arange(s, device=x.device) + p
        cols = torch.arange(p + s, device=x.device)
        mask = (cols[None, :] > rows[:, None])[None, None, :, :]  # True where masked
        presents = []
        for i, block in enumerate(self.h):
            x, present = block(x, mask, past[2 * i], past[2 * i + 1])
            presents += present
        return (self.ln_f(x), *presents)


def export_decoder(model, name, ids_names, head_out, layers, kv_heads, head_dim, check):
    """Exports a decoder whose inputs are ids_names then past_key_i/past_value_i per layer, with
    dynamic batch, seq and past_seq, and checks it in ONNX Runtime-free ways: torch's own
    outputs at past 0 and at a cached step equal a longer run without cache (check(model))."""
    torch.manual_seed(0)
    past = []
    names = list(ids_names)
    outs = [head_out]
    axes = {n: {0: "batch", 1: "seq"} for n in ids_names}
    axes[head_out] = {0: "batch", 1: "seq"}
    for i in range(layers):
        for kind in ("key", "value"):
            past.append(torch.randn(2, kv_heads, 3, head_dim))
            names.append(f"past_{kind}_{i}")
            outs.append(f"present_{kind}_{i}")
            axes[names[-1]] = {0: "batch", 2: "past_seq"}
            axes[outs[-1]] = {0: "batch", 2: "total_seq"}
    ids = torch.randint(0, 100, (2, 5))
    args = (ids,) + ((torch.arange(3, 8).expand(2, 5),) if len(ids_names) == 2 else ()) + tuple(past)
    check(model.eval())
    export(model, args, name, names, outs, axes, fold=True)


def _check_cache(model, with_positions):
    """Decoding with a KV cache gives what one pass over the whole sequence gives."""
    with torch.no_grad():
        ids = torch.randint(0, 100, (1, 7))
        layers = len(model.layers) if hasattr(model, "layers") else len(model.h)
        kv, hd = ((model.layers[0].self_attn.kv, model.layers[0].self_attn.hd) if hasattr(model, "layers")
                  else (model.h[0].h, model.h[0].hd))
        empty = [torch.zeros(1, kv, 0, hd) for _ in range(2 * layers)]
        pos = lambda a, b: (torch.arange(a, b)[None],) if with_positions else ()
        full = model(ids, *pos(0, 7), *empty)
        first = model(ids[:, :4], *pos(0, 4), *empty)
        step = model(ids[:, 4:], *pos(4, 7), *first[1:])
        assert torch.allclose(step[0], full[0][:, 4:], atol=1e-5), (step[0] - full[0][:, 4:]).abs().max()
        for a, b in zip(step[1:], full[1:]):
            assert torch.allclose(a, b, atol=1e-5)


def llama_tiny():
    torch.manual_seed(0)
    m = LlamaTiny()
    export_decoder(m, "llama_tiny.onnx", ["input_ids", "position_ids"], "logits", 2, 2, 16,
                   lambda mod: _check_cache(mod, True))


def rope_interleaved_tiny():
    torch.manual_seed(0)
    m = RopeInterleavedTiny()
    export_decoder(m, "rope_interleaved_tiny.onnx", ["input_ids", "position_ids"], "logits", 2, 2, 16,
                   lambda mod: _check_cache(mod, True))


def fp16_norms_tiny():
    """Built with onnx.helper so that the Casts are exactly as HF writes them (torch 1.13 cannot
    export float16 on CPU): two blocks of x [batch, seq, 64] float16 -> RMSNorm -> MatMul ->
    residual Add -> LayerNorm -> MatMul -> residual Add, the last one's output y (float16)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    N = helper.make_node
    nodes, inits = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(np.asarray(a), name))
        return name

    F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
    two, one = const("two", np.float32(2.0)), const("one", np.float32(1.0))
    for b in range(2):
        p = f"b{b}_"
        x = "x" if b == 0 else "h0"
        # HF LlamaRMSNorm in float16: x.to(float32); x * rsqrt(mean(x^2) + eps); w * x.to(float16).
        nodes += [N("Cast", [x], [p + "xf"], to=F32),
                  N("Pow", [p + "xf", two], [p + "sq"]),
                  N("ReduceMean", [p + "sq"], [p + "ms"], axes=[-1], keepdims=1),
                  N("Add", [p + "ms", const(p + "eps", np.float32(1e-6))], [p + "a"]),
                  N("Sqrt", [p + "a"], [p + "s"]),
                  N("Div", [one, p + "s"], [p + "r"]),
                  N("Mul", [p + "xf", p + "r"], [p + "n"]),
                  N("Cast", [p + "n"], [p + "n16"], to=F16),
                  N("Mul", [const(p + "rms_w", rng.uniform(0.5, 1.5, 64).astype(np.float16)), p + "n16"], [p + "rms"]),
                  N("MatMul", [p + "rms", const(p + "w1", (rng.standard_normal((64, 64)) / 8).astype(np.float16))],
                    [p + "m1"]),
                  N("Add", [x, p + "m1"], [p + "h"])]
        nodes += [N("MatMul", [p + "h", const(p + "w2", (rng.standard_normal((64, 64)) / 8).astype(np.float16))],
                    [p + "m2"]),
                  N("Add", [p + "h", p + "m2"], ["h0" if b == 0 else "y"])]
    save_helper_model("fp16_norms_tiny.onnx", nodes, [helper.make_tensor_value_info("x", F16, ["batch", "seq", 64])],
                      [helper.make_tensor_value_info("y", F16, ["batch", "seq", 64])], inits, 17)


def gpt_kv_tiny():
    torch.manual_seed(0)
    m = random_layer_norms(GptKvTiny())
    export_decoder(m, "gpt_kv_tiny.onnx", ["input_ids"], "hidden", 2, 4, 16,
                   lambda mod: _check_cache(mod, False))


class Gpt2HfBlock(GptKvBlock):
    """GptKvBlock with HF GPT2Attention's causal mask: its own lower-triangular buffer, sliced to
    the query rows T - S .. T and the keys 0 .. T, and torch.where with finfo.min."""

    def __init__(self, d, heads, max_pos):
        super().__init__(d, heads)
        self.register_buffer("bias", torch.tril(torch.ones((max_pos, max_pos), dtype=torch.bool))
                             .view(1, 1, max_pos, max_pos), persistent=False)

    def forward(self, x, past_k, past_v):
        b, s, d = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q = q.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)
        k = k.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)
        v = v.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)
        k = torch.cat((past_k, k), dim=-2)
        v = torch.cat((past_v, v), dim=-2)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype, device=w.device)
        ql, kl = q.size(-2), k.size(-2)
        causal_mask = self.bias[:, :, kl - ql: kl, :kl]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype, device=w.device)
        w = F.softmax(torch.where(causal_mask, w, mask_value), dim=-1)
        y = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous().view(b, s, d)
        x = x + self.c_proj(y)
        x = x + self.mlp_proj(new_gelu(self.c_fc(self.ln_2(x))))
        return x, (k, v)


class Gpt2HfTiny(GptKvTiny):
    def __init__(self, max_pos=320, **kw):
        super().__init__(max_pos=max_pos, **kw)
        d, heads = self.wte.embedding_dim, self.h[0].h
        self.h = nn.ModuleList([Gpt2HfBlock(d, heads, max_pos) for _ in self.h])

    def forward(self, input_ids, *past):
        s = input_ids.shape[1]
        p = past[0].shape[2]
        pos = torch.arange(p, p + s, device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        presents = []
        for i, block in enumerate(self.h):
            x, present = block(x, past[2 * i], past[2 * i + 1])
            presents += present
        return (self.ln_f(x), *presents)


def gpt2_hf_tiny():
    torch.manual_seed(0)
    m = random_layer_norms(Gpt2HfTiny())
    export_decoder(m, "gpt2_hf_tiny.onnx", ["input_ids"], "hidden", 2, 4, 16,
                   lambda mod: _check_cache(mod, False))


class GptjBlock(nn.Module):
    def __init__(self, d, heads, rotary_dim, max_pos):
        super().__init__()
        self.h, self.hd, self.rd = heads, d // heads, rotary_dim
        self.ln_1 = nn.LayerNorm(d)
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.out_proj = nn.Linear(d, d, bias=False)
        self.fc_in = nn.Linear(d, 4 * d)
        self.fc_out = nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones((max_pos, max_pos), dtype=torch.bool))
                             .view(1, 1, max_pos, max_pos), persistent=False)
        self.scale_attn = torch.sqrt(torch.tensor(self.hd, dtype=torch.float32))

    def rope(self, x, sin, cos):
        sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3)
        cos = torch.repeat_interleave(cos[:, :, None, :], 2, 3)
        r, p = x[:, :, :, : self.rd], x[:, :, :, self.rd:]
        return torch.cat([(r * cos) + (rotate_every_two(r) * sin), p], dim=-1)

    def forward(self, x, sincos, past_k, past_v):
        b, s, d = x.shape
        h = self.ln_1(x)
        q = self.q_proj(h).view(b, s, self.h, self.hd)
        k = self.k_proj(h).view(b, s, self.h, self.hd)
        v = self.v_proj(h).view(b, s, self.h, self.hd).permute(0, 2, 1, 3)
        sin, cos = torch.split(sincos, self.rd // 2, dim=-1)
        q = self.rope(q, sin, cos).permute(0, 2, 1, 3)
        k = self.rope(k, sin, cos).permute(0, 2, 1, 3)
        k = torch.cat((past_k, k), dim=-2)
        v = torch.cat((past_v, v), dim=-2)
        present = (k.to(x.dtype), v)
        ql, kl = q.size(-2), k.size(-2)
        causal_mask = self.bias[:, :, kl - ql: kl, :kl]
        # GPT-J's casts, no-ops in a float32 model: torch writes each as a Cast, the present key's
        # feeding the graph output present_key_i (onnxtrim removes them).
        q, k = q.to(torch.float32), k.to(torch.float32)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = torch.where(causal_mask, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        w = F.softmax(w / self.scale_attn, dim=-1).to(v.dtype)
        y = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous().view(b, s, d)
        return x + self.out_proj(y) + self.fc_out(new_gelu(self.fc_in(h))), present


class GptjTiny(nn.Module):
    def __init__(self, vocab=128, d=64, heads=4, layers=2, rotary_dim=8, max_pos=320):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.h = nn.ModuleList([GptjBlock(d, heads, rotary_dim, max_pos) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, rotary_dim, 2, dtype=torch.float) / rotary_dim))
        freqs = torch.einsum("i , j -> i j", torch.arange(max_pos, dtype=torch.float), inv_freq)
        self.register_buffer("embed_positions", torch.cat((torch.sin(freqs), torch.cos(freqs)), dim=1),
                             persistent=False)

    def forward(self, input_ids, position_ids, *past):
        x = self.wte(input_ids)
        sincos = self.embed_positions[position_ids]  # (B, S, rotary_dim): sin then cos
        presents = []
        for i, block in enumerate(self.h):
            x, present = block(x, sincos, past[2 * i], past[2 * i + 1])
            presents += present
        return (self.ln_f(x), *presents)


def gptj_tiny():
    torch.manual_seed(0)
    m = random_layer_norms(GptjTiny())
    export_decoder(m, "gptj_tiny.onnx", ["input_ids", "position_ids"], "hidden", 2, 4, 16,
                   lambda mod: _check_cache(mod, True))


def random_layer_norms(model):
    """torch starts LayerNorm at weight 1, bias 0: random values make a scale or bias taken
    from the wrong input (or dropped) visible in the outputs."""
    with torch.no_grad():
        for mod in model.modules():
            if isinstance(mod, nn.LayerNorm):
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.5, 0.5)
    return model


def bert_tiny_op13():
    torch.manual_seed(0)
    ids = torch.randint(0, 100, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    export(random_layer_norms(Encoder()), (ids, mask), "bert_tiny_op13.onnx", ["input_ids", "attention_mask"], ["hidden"],
           {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
            "hidden": {0: "batch", 1: "seq"}}, fold=True, opset=13)


def vit_tiny_op13():
    from torchvision.models.vision_transformer import VisionTransformer

    torch.manual_seed(0)
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=3, num_heads=4, hidden_dim=32, mlp_dim=64,
                          num_classes=10)
    nn.init.normal_(m.class_token, std=0.5)
    nn.init.normal_(m.heads.head.weight, std=0.5)
    random_layer_norms(m)
    export(m, (torch.randn(1, 3, 32, 32),), "vit_tiny_op13.onnx", ["image"], ["logits"],
           {"image": {0: "batch"}, "logits": {0: "batch"}}, fold=False, no_grad=False, opset=13)


# --- issue 29: the graphs of Piper's VITS voices and Silero VAD, small.

class VitsFlow(nn.Module):
    """A VITS coupling step (ResidualCouplingLayer, mean only): x1 += f(x0), then the halves swap."""

    def __init__(self, c):
        super().__init__()
        self.pre = nn.Conv1d(c // 2, 16, 1)
        self.enc = nn.Conv1d(16, 16, 5, padding=2)
        self.post = nn.Conv1d(16, c // 2, 1)

    def forward(self, x):
        x0, x1 = torch.split(x, x.shape[1] // 2, 1)
        h = self.pre(x0)
        h = torch.tanh(self.enc(h)) * torch.sigmoid(self.enc(h))
        return torch.cat([x1 + self.post(h), x0], 1)


class VitsNoiseTiny(nn.Module):
    def __init__(self, cin=16, c=8):
        super().__init__()
        self.proj = nn.Conv1d(cin, 2 * c, 1)  # the prior's m and logs
        self.dp = nn.Sequential(nn.Conv1d(cin, 16, 3, padding=1), nn.ReLU(), nn.Conv1d(16, 1, 1))
        self.flow = VitsFlow(c)
        self.pre = nn.Conv1d(c, 32, 7, padding=3)
        self.up1 = nn.ConvTranspose1d(32, 16, 8, 4, padding=2)
        self.res = nn.Conv1d(16, 16, 3, padding=1)
        self.up2 = nn.ConvTranspose1d(16, 8, 8, 4, padding=2)
        self.post = nn.Conv1d(8, 1, 7, padding=3)

    def forward(self, x, scales):
        noise_scale, length_scale, noise_w = scales[0], scales[1], scales[2]
        logw = self.dp(x)
        logw = logw + torch.randn_like(logw) * noise_w
        durations = torch.ceil(torch.exp(logw) * length_scale)
        stats = self.proj(x)
        m, logs = torch.split(stats, stats.shape[1] // 2, 1)
        z = self.flow(m + torch.randn_like(m) * torch.exp(logs) * noise_scale)
        h = self.up1(F.leaky_relu(self.pre(z), 0.1))
        h = h + self.res(F.leaky_relu(h, 0.1))
        h = self.up2(F.leaky_relu(h, 0.1))
        return torch.tanh(self.post(F.leaky_relu(h))), durations


def vits_noise_tiny():
    torch.manual_seed(0)
    m = VitsNoiseTiny()
    export(m, (torch.randn(1, 16, 20), torch.tensor([0.667, 1.0, 0.8])), "vits_noise_tiny.onnx", ["x", "scales"],
           ["audio", "durations"], {"x": {0: "batch", 2: "length"}, "audio": {0: "batch", 2: "samples"},
                                    "durations": {0: "batch", 2: "length"}}, fold=True)


def stft_basis(n_fft, bins):
    """Silero's forward basis: the real and imaginary rows of a Hann-windowed DFT, [2 * bins, 1, n_fft]."""
    n = torch.arange(n_fft, dtype=torch.float64)
    k = torch.arange(bins, dtype=torch.float64)[:, None]
    window = torch.hann_window(n_fft, periodic=True, dtype=torch.float64)
    ang = 2 * math.pi * k * n / n_fft
    return torch.cat([torch.cos(ang) * window, -torch.sin(ang) * window]).float().unsqueeze(1)


class StftLstmTiny(nn.Module):
    def __init__(self, bins=33, hidden=32):
        super().__init__()
        self.bins = bins
        self.register_buffer("basis16", stft_basis(256, bins))  # 16 kHz: frames of 256, hop 128
        self.register_buffer("basis8", stft_basis(128, bins))  # 8 kHz: frames of 128, hop 64
        self.encoder = nn.Sequential(nn.Conv1d(bins, hidden, 3, padding=1), nn.ReLU(),
                                     nn.Conv1d(hidden, hidden, 3, stride=2, padding=1), nn.ReLU())
        self.lstm = nn.LSTM(hidden, hidden)
        self.head = nn.Conv1d(hidden, 1, 1)

    def stft(self, x, basis, hop: int):
        x = F.pad(x.unsqueeze(1), (0, hop // 2), mode="reflect")
        spec = F.conv1d(x, basis, stride=hop)
        re, im = spec[:, :self.bins], spec[:, self.bins:]
        return torch.sqrt(re * re + im * im)

    def decode(self, mag, state):
        feats = self.encoder(mag)
        out, hc = self.lstm(feats.permute(2, 0, 1), (state[0:1], state[1:2]))
        prob = torch.sigmoid(self.head(F.relu(out.permute(1, 2, 0)))).mean(-1)
        return prob, torch.cat([hc[0], hc[1]], 0)

    def forward(self, x, state):
        if x.shape[-1] >= 512:  # a 16 kHz chunk
            prob, new_state = self.decode(self.stft(x, self.basis16, 128), state)
        else:  # an 8 kHz chunk
            prob, new_state = self.decode(self.stft(x, self.basis8, 64), state)
        return prob, new_state


def stft_lstm_tiny():
    torch.manual_seed(0)
    m = StftLstmTiny().eval()
    s = torch.jit.script(m)
    with torch.no_grad():  # the scripted module computes what the module does, on both branches
        for samples in (96, 300, 512, 700):
            x, state = torch.randn(2, samples), torch.randn(2, 2, 32)
            assert all(torch.allclose(a, b) for a, b in zip(s(x, state), m(x, state)))
    export(s, (torch.randn(1, 512), torch.zeros(2, 1, 32)), "stft_lstm_tiny.onnx", ["input", "state"],
           ["output", "stateN"], {"input": {0: "batch", 1: "samples"}, "state": {1: "batch"}, "output": {0: "batch"},
                                  "stateN": {1: "batch"}}, fold=True)


FIXTURES = {"swin_stage": lambda: swin_stage(), "fusions_tiny": lambda: fusions_tiny(),
            "keypoint_rcnn": keypoint_rcnn, "squeeze_ifs": squeeze_ifs, "custom_gelu": custom_gelu, "vit_tiny": vit_tiny,
            "swin_static_tiny": swin_static_tiny, "channel_pad_tiny": channel_pad_tiny, "if_nest_tiny": if_nest_tiny,
            "repeat_interleave_tiny": repeat_interleave_tiny, "cut_if_function": cut_if_function,
            "unsorted_tiny": unsorted_tiny, "wavernn_tiny": wavernn_tiny, "llama_tiny": llama_tiny,
            "rope_interleaved_tiny": rope_interleaved_tiny, "fp16_norms_tiny": fp16_norms_tiny,
            "gpt_kv_tiny": gpt_kv_tiny, "gpt2_hf_tiny": gpt2_hf_tiny, "gptj_tiny": gptj_tiny, "bert_tiny_op13": bert_tiny_op13, "vit_tiny_op13": vit_tiny_op13,
            "vits_noise_tiny": vits_noise_tiny, "stft_lstm_tiny": stft_lstm_tiny}


class GnResBlock(nn.Module):
    """A diffusion UNet's ResBlock: GroupNorm -> SiLU -> Conv3x3 -> GroupNorm -> SiLU -> Conv3x3, plus
    the input (a 1x1 Conv where the channels change)."""

    def __init__(self, cin, cout, groups):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(groups, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.norm2, self.conv2 = nn.GroupNorm(groups, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return self.skip(x) + h


def groupnorm_unet_tiny():
    """groupnorm_unet_tiny.onnx (opset 17, dynamic batch): two UNet ResBlocks (32 -> 32 -> 64
    channels, 8 groups, 16x16 image) and a final GroupNorm + SiLU, as torch 1.13 exports
    nn.GroupNorm: Reshape(x, [0, G, -1]) -> InstanceNormalization(ones[G], zeros[G], eps 1e-5) ->
    Reshape(., Shape(x)) -> Mul(weight [C, 1, 1]) -> Add(bias [C, 1, 1]); SiLU as x * Sigmoid(x).
    The GroupNorm weights and biases are random (torch starts them at ones and zeros, which the
    simplifier would remove). --target tensorrt/openvino --opset 24 fuses them into
    GroupNormalization-21 and Swish-24; the default target leaves them (ONNX Runtime has no kernel
    for either: docs/performance.md)."""
    torch.manual_seed(0)
    m = nn.Sequential(GnResBlock(32, 32, 8), GnResBlock(32, 64, 8), nn.GroupNorm(8, 64), nn.SiLU())
    for mod in m.modules():
        if isinstance(mod, nn.GroupNorm):
            nn.init.uniform_(mod.weight, 0.5, 1.5)
            nn.init.uniform_(mod.bias, -0.5, 0.5)
    export(m, (torch.randn(1, 32, 16, 16),), "groupnorm_unet_tiny.onnx", ["x"], ["y"],
           {"x": {0: "batch"}, "y": {0: "batch"}}, fold=True)


FIXTURES["groupnorm_unet_tiny"] = groupnorm_unet_tiny


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
