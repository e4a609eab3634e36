#!/usr/bin/python3
"""Which forms of the standard transformer ops ONNX Runtime (onnxruntime-node 1.30, CPU) takes,
and whether each computes what the decomposition torch exports computes (issue 31).

    /usr/bin/python3 bench/standard_ops_probe.py            # the op probes: a table of cases
    /usr/bin/python3 bench/standard_ops_probe.py --llama --gpt --no-probes   # the fixtures rebuilt

Each case builds, with onnx.helper, one node of RMSNormalization-23, LayerNormalization-17,
Gelu-20, RotaryEmbedding-23 or Attention-23 in an opset-23 model (python3-onnx 1.12 knows no
opset-23 schema: no onnx.checker; ONNX Runtime is the judge) and the same computation written
with older ops as torch 1.13 exports it (HF's formulas: rotate_half, repeat_kv, the causal mask
of a KV cache), runs both in ONNX Runtime on the same random inputs and compares them. A case
says `match` (allclose, rtol 1e-4, atol 1e-5), `DIFFERS` (with the max |diff|, and which
alternative decomposition it matches instead when the case gives one), or `refused` (ONNX
Runtime's message). docs/standard_ops.md writes down what the table shows.

--llama rebuilds tests/models/llama_tiny.onnx (the same weights: make_fixtures.py's LlamaTiny
at seed 0) with RMSNormalization, RotaryEmbedding and Attention-23, once with 3D Q/K/V
([batch, seq, heads * 16]) and once with 4D ([batch, heads, seq, 16]), writes them to
--out-dir (default /tmp) and compares them with the fixture in ONNX Runtime at decode and
prefill dims; time them with bench/ort_latency.py. --gpt does the same for gpt_kv_tiny.onnx
with LayerNormalization, Gelu-20 (tanh) and Attention-23 (3D).
"""
import argparse
import math
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import ort_util  # noqa: E402



def run_ort(model_path, inputs):
    """ONNX Runtime (optimizations off), keeping the whole of its message when it fails."""
    return ort_util.run_ort(model_path, inputs, full_message=True)


N = helper.make_node
F32 = TensorProto.FLOAT
OPSET = 23
IR_VERSION = 10


def vi(name, elem=F32, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=OPSET):
    """A model of `nodes`: inputs/outputs are names (float unless given as (name, elem))."""
    ins = [vi(*i) if isinstance(i, tuple) else vi(i) for i in inputs]
    outs = [vi(*o) if isinstance(o, tuple) else vi(o) for o in outputs]
    g = helper.make_graph(nodes, "probe", ins, outs,
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in dict(inits).items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_VERSION,
                             producer_name="standard_ops_probe.py")


def run(m, feeds, tmp):
    path = os.path.join(tmp, "m.onnx")
    onnx.save(m, path)
    return run_ort(path, feeds)


def ort_message(text):
    """The part of ONNX Runtime's error that says what is wrong: its Status Message, or the
    load error, without colour codes, time stamps and source paths."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    m = (re.search(r"Status Message: (.*?)(?:\n|Error: |$)", text, re.S) or re.search(r"Error: (.*)", text, re.S)
         or re.search(r"(the process died .*)", text))
    msg = (m.group(1) if m else text).strip().replace("\n", " ")
    msg = re.sub(r"/onnxruntime_src/\S+ (\S+ )*?onnxruntime::\S+\([^)]*\)\S* ", "", msg)
    msg = re.sub(r"^const \[with .*?\] ", "", msg)  # the end of a C++ signature
    return msg[:400]


class Probe:
    def __init__(self, tmp):
        self.tmp = tmp
        self.rows = []

    def case(self, group, what, std, feeds, ref, alts=()):
        """std: the standard-op model; ref: the decomposed model or a numpy output list (in
        std's output order); alts: (label, numpy outputs) that a differing result is checked
        against."""
        try:
            got = run(std, feeds, self.tmp)
        except RuntimeError as e:
            self.rows.append((group, what, "refused", ort_message(str(e))))
            return None
        got = [got[o.name] for o in std.graph.output]
        if isinstance(ref, onnx.ModelProto):
            r = run(ref, feeds, self.tmp)
            want = [r[o.name] for o in ref.graph.output]
        else:
            want = ref
        diffs = [float(np.nanmax(np.abs(g.astype(np.float64) - w))) if g.size else 0.0 for g, w in zip(got, want)]
        shapes_ok = all(g.shape == np.shape(w) for g, w in zip(got, want))
        ok = shapes_ok and all(np.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True) for g, w in zip(got, want))
        if ok:
            self.rows.append((group, what, "match", f"max |diff| {max(diffs):.2g}"))
        else:
            note = (f"shapes {[g.shape for g in got]} vs {[np.shape(w) for w in want]}" if not shapes_ok
                    else f"max |diff| {max(diffs):.3g}")
            for label, alt in alts:
                if all(g.shape == np.shape(a) and np.allclose(g, a, rtol=1e-4, atol=1e-5, equal_nan=True)
                       for g, a in zip(got, alt)):
                    note += f"; matches {label}"
            self.rows.append((group, what, "DIFFERS", note))
        return got

    def print(self):
        w = max(len(r[1]) for r in self.rows)
        group = None
        for g, what, res, note in self.rows:
            if g != group:
                print(f"\n{g}")
                group = g
            print(f"  {what:<{w}}  {res:<8} {note}")


# ---- numpy references (HF / torch semantics) ----

def softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rope_tables(max_pos, dim, theta=10000.0):
    inv = 1.0 / (theta ** (np.arange(0, dim, 2, dtype=np.float32) / dim))
    freqs = np.outer(np.arange(max_pos, dtype=np.float32), inv).astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1)  # HF's cos_cached/sin_cached: [max_pos, dim]
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


def attention_ref(q, k, v, past_k=None, past_v=None, bias=None, scale=None):
    """q [B, Hq, S, D], k/v [B, Hkv, S, D]: HF's repeat_kv attention; bias added to the scores."""
    if past_k is not None:
        k = np.concatenate([past_k, k], axis=2)
        v = np.concatenate([past_v, v], axis=2)
    present = (k, v)
    rep = q.shape[1] // k.shape[1]
    k = np.repeat(k, rep, axis=1)  # [h0, h0, ..., h1, h1, ...]: what expand+reshape does
    v = np.repeat(v, rep, axis=1)
    s = (q @ np.swapaxes(k, -1, -2)) * (scale if scale is not None else 1.0 / math.sqrt(q.shape[-1]))
    if bias is not None:
        s = s + bias
    with np.errstate(invalid="ignore"):
        y = softmax(s) @ v
    return y.astype(np.float32), present[0], present[1]


def causal_bias(s, total, bottom_right=True, fill=-np.inf):
    """[s, total] additive mask; bottom-right: query i sees keys <= total - s + i (a KV cache);
    top-left: keys <= i."""
    off = total - s if bottom_right else 0
    rows = np.arange(s)[:, None] + off
    cols = np.arange(total)[None, :]
    return np.where(cols > rows, fill, 0.0).astype(np.float32)


def bhsd_to_bsh(x):
    b, h, s, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, h * d)


# ---- probes ----

def probe_norms(p, rng):
    x = rng.standard_normal((2, 5, 16)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 16).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, 16).astype(np.float32)
    eps = 1e-6
    decomposed = model([N("Pow", ["x", "two"], ["sq"]), N("ReduceMean", ["sq"], ["ms"], axes=[-1], keepdims=1),
                        N("Add", ["ms", "eps"], ["mse"]), N("Sqrt", ["mse"], ["rms"]), N("Div", ["one", "rms"], ["inv"]),
                        N("Mul", ["x", "inv"], ["xn"]), N("Mul", ["w", "xn"], ["y"])],
                       ["x"], ["y"], {"two": np.float32(2), "eps": np.float32(eps), "one": np.float32(1), "w": w},
                       opset=17)
    g = "RMSNormalization-23 vs Pow/ReduceMean/Add/Sqrt/Div(1,.)/Mul/Mul (HF LlamaRMSNorm)"
    p.case(g, "X [2,5,16], scale [16], axis -1, epsilon 1e-6",
           model([N("RMSNormalization", ["x", "w"], ["y"], axis=-1, epsilon=eps)], ["x"], ["y"], {"w": w}),
           {"x": x}, decomposed)
    p.case(g, "scale [1,1,16]",
           model([N("RMSNormalization", ["x", "w"], ["y"], axis=-1, epsilon=eps)], ["x"], ["y"], {"w": w.reshape(1, 1, 16)}),
           {"x": x}, decomposed)
    p.case(g, "epsilon left at its default (1e-5), not the model's 1e-6, on x of size ~1e-3",
           model([N("RMSNormalization", ["x", "w"], ["y"], axis=-1)], ["x"], ["y"], {"w": w}),
           {"x": x * 1e-3}, decomposed)
    w2 = rng.uniform(0.5, 1.5, (5, 16)).astype(np.float32)
    ms = np.mean(x.astype(np.float64) ** 2, axis=(1, 2), keepdims=True)
    p.case(g, "axis -2 (over the last two axes), scale [5,16]",
           model([N("RMSNormalization", ["x", "w"], ["y"], axis=-2, epsilon=eps)], ["x"], ["y"], {"w": w2}),
           {"x": x}, [(x / np.sqrt(ms + eps) * w2).astype(np.float32)])
    p.case(g, "stash_type 1 (float32) explicit",
           model([N("RMSNormalization", ["x", "w"], ["y"], axis=-1, epsilon=eps, stash_type=1)], ["x"], ["y"], {"w": w}),
           {"x": x}, decomposed)

    g = "LayerNormalization-17 vs ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add (torch at opset 13)"
    dec_ln = model([N("ReduceMean", ["x"], ["mu"], axes=[-1]), N("Sub", ["x", "mu"], ["d"]), N("Pow", ["d", "two"], ["d2"]),
                    N("ReduceMean", ["d2"], ["var"], axes=[-1]), N("Add", ["var", "eps"], ["ve"]), N("Sqrt", ["ve"], ["sd"]),
                    N("Div", ["d", "sd"], ["xn"]), N("Mul", ["xn", "w"], ["xw"]), N("Add", ["xw", "b"], ["y"])],
                   ["x"], ["y"], {"two": np.float32(2), "eps": np.float32(1e-5), "w": w, "b": b}, opset=13)
    p.case(g, "X [2,5,16], scale [16], bias [16], axis -1, epsilon 1e-5",
           model([N("LayerNormalization", ["x", "w", "b"], ["y"], axis=-1, epsilon=1e-5)], ["x"], ["y"], {"w": w, "b": b}),
           {"x": x}, dec_ln)

    g = "Gelu-20 vs torch's exports"
    xx = (rng.standard_normal((4, 64)) * 3).astype(np.float32)
    dec_tanh = model([N("Mul", ["x", "half"], ["xh"]), N("Pow", ["x", "three"], ["x3"]), N("Mul", ["x3", "c"], ["x3c"]),
                      N("Add", ["x", "x3c"], ["inner"]), N("Mul", ["inner", "k"], ["ik"]), N("Tanh", ["ik"], ["t"]),
                      N("Add", ["t", "one"], ["t1"]), N("Mul", ["xh", "t1"], ["y"])], ["x"], ["y"],
                     {"half": np.float32(0.5), "three": np.float32(3), "c": np.float32(0.044715),
                      "k": np.float32(math.sqrt(2 / math.pi)), "one": np.float32(1)}, opset=17)
    dec_erf = model([N("Div", ["x", "r2"], ["xd"]), N("Erf", ["xd"], ["e"]), N("Add", ["e", "one"], ["e1"]),
                     N("Mul", ["x", "e1"], ["xe"]), N("Mul", ["xe", "half"], ["y"])], ["x"], ["y"],
                    {"r2": np.float32(math.sqrt(2)), "one": np.float32(1), "half": np.float32(0.5)}, opset=17)
    p.case(g, "approximate 'tanh' vs 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3)))",
           model([N("Gelu", ["x"], ["y"], approximate="tanh")], ["x"], ["y"]), {"x": xx}, dec_tanh)
    p.case(g, "approximate 'none' vs x*0.5*(1+erf(x/sqrt2))",
           model([N("Gelu", ["x"], ["y"])], ["x"], ["y"]), {"x": xx}, dec_erf)


def probe_rope(p, rng):
    B, H, S, D, MAXP = 2, 4, 5, 16, 64
    cos, sin = rope_tables(MAXP, D)
    x = rng.standard_normal((B, H, S, D)).astype(np.float32)
    pos = rng.integers(0, MAXP, (B, S)).astype(np.int64)
    c, s_ = cos[pos][:, None], sin[pos][:, None]  # [B, 1, S, D]
    want = (x * c + rotate_half(x) * s_).astype(np.float32)
    half = {"cos": cos[:, :D // 2], "sin": sin[:, :D // 2]}
    ins = ["x", ("pos", TensorProto.INT64)]
    g = "RotaryEmbedding-23 vs HF rotate_half: x*cos[pos] + rotate_half(x)*sin[pos], tables cat(freqs, freqs)"
    p.case(g, "4D X [B,H,S,D] (BNSH), caches [max_pos, D/2] (first half of HF's), position_ids [B,S]",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"])], ins, ["y"], half),
           {"x": x, "pos": pos}, [want])
    xs = x.transpose(0, 2, 1, 3).copy()  # BSNH
    p.case(g, "4D X given as [B,S,H,D] (BSNH): read as BNSH?",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"])], ins, ["y"], half),
           {"x": xs, "pos": pos}, [want.transpose(0, 2, 1, 3)])
    p.case(g, "3D X [B,S,H*D] with num_heads=4",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], num_heads=H)], ins, ["y"], half),
           {"x": bhsd_to_bsh(x), "pos": pos}, [bhsd_to_bsh(want)])
    p.case(g, "3D X without num_heads",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"])], ins, ["y"], half),
           {"x": bhsd_to_bsh(x), "pos": pos}, [bhsd_to_bsh(want)])
    p.case(g, "caches of the full head dim [max_pos, D] (HF's tables unsliced)",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"])], ins, ["y"], {"cos": cos, "sin": sin}),
           {"x": x, "pos": pos}, [want])
    p.case(g, "no position_ids: caches already gathered, [B,S,D/2]",
           model([N("RotaryEmbedding", ["x", "cg", "sg"], ["y"])], ["x", "cg", "sg"], ["y"]),
           {"x": x, "cg": cos[pos][..., :D // 2].copy(), "sg": sin[pos][..., :D // 2].copy()}, [want])
    p.case(g, "position_ids int32",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"])], ["x", ("pos", TensorProto.INT32)], ["y"], half),
           {"x": x, "pos": pos.astype(np.int32)}, [want])
    # Partial rotation (GPT-NeoX/Phi: rotary_pct): rotate_half over the first R dims, the rest as is.
    R = 8
    cr, sr = rope_tables(MAXP, R)
    xr = x[..., :R]
    want_p = np.concatenate([xr * cr[pos][:, None] + rotate_half(xr) * sr[pos][:, None], x[..., R:]], -1)
    p.case(g, "rotary_embedding_dim 8 of 16 (partial), caches [max_pos, 4]",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], rotary_embedding_dim=R)], ins, ["y"],
                 {"cos": cr[:, :R // 2], "sin": sr[:, :R // 2]}),
           {"x": x, "pos": pos}, [want_p.astype(np.float32)])
    # Interleaved (GPT-J / Meta's complex form): pairs (x0, x1), (x2, x3), ...
    x1, x2 = x[..., 0::2], x[..., 1::2]
    ch, sh = cos[pos][:, None][..., :D // 2], sin[pos][:, None][..., :D // 2]
    want_i = np.stack([x1 * ch - x2 * sh, x1 * sh + x2 * ch], -1).reshape(x.shape).astype(np.float32)
    p.case(g, "interleaved 1 vs GPT-J rotate_every_two",
           model([N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], interleaved=1)], ins, ["y"], half),
           {"x": x, "pos": pos}, [want_i])


def probe_attention(p, rng):
    B, HQ, HKV, D = 2, 8, 2, 16
    g = "Attention-23 (GQA 8 query / 2 KV heads, head 16) vs HF: repeat_kv, QK^T/sqrt(D) + mask, Softmax, .V"
    ones = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731

    def qkv(S):
        return ones(B, HQ, S, D), ones(B, HKV, S, D), ones(B, HKV, S, D)

    att = lambda ins, outs, **a: model([N("Attention", ins, outs, **a)], [i for i in ins if i], outs)  # noqa: E731

    q, k, v = qkv(6)
    y, _, _ = attention_ref(q, k, v)
    p.case(g, "4D Q/K/V, no mask, no past (prefill, not causal)", att(["q", "k", "v"], ["y"]), {"q": q, "k": k, "v": v}, [y])
    yc, _, _ = attention_ref(q, k, v, bias=causal_bias(6, 6))
    p.case(g, "4D, is_causal 1, no past", att(["q", "k", "v"], ["y"], is_causal=1), {"q": q, "k": k, "v": v}, [yc])
    p.case(g, "4D, scale 0.25 given (= 1/sqrt(16), the default)", att(["q", "k", "v"], ["y"], scale=0.25),
           {"q": q, "k": k, "v": v}, [y])
    y3 = bhsd_to_bsh(y)
    p.case(g, "3D Q [B,S,8*16], K/V [B,S,2*16], q_num_heads 8, kv_num_heads 2",
           att(["q", "k", "v"], ["y"], q_num_heads=HQ, kv_num_heads=HKV),
           {"q": bhsd_to_bsh(q), "k": bhsd_to_bsh(k), "v": bhsd_to_bsh(v)}, [y3])
    p.case(g, "3D without q_num_heads/kv_num_heads", att(["q", "k", "v"], ["y"]),
           {"q": bhsd_to_bsh(q), "k": bhsd_to_bsh(k), "v": bhsd_to_bsh(v)}, [y3])

    # Decode: one query over a cache.
    P = 40
    q, k, v = qkv(1)
    pk, pv = ones(B, HKV, P, D), ones(B, HKV, P, D)
    y, prk, prv = attention_ref(q, k, v, pk, pv)
    feeds = {"q": q, "k": k, "v": v, "pk": pk, "pv": pv}
    p.case(g, "decode: 4D, past_key/past_value [B,2,40,16] -> Y, present_key, present_value [B,2,41,16]",
           att(["q", "k", "v", "", "pk", "pv"], ["y", "prk", "prv"]), feeds, [y, prk, prv])
    p.case(g, "decode: 4D, is_causal 1 (one query sees the whole cache?)",
           att(["q", "k", "v", "", "pk", "pv"], ["y", "prk", "prv"], is_causal=1), feeds, [y, prk, prv])
    p.case(g, "decode: 3D Q/K/V with 4D past/present",
           att(["q", "k", "v", "", "pk", "pv"], ["y", "prk", "prv"], q_num_heads=HQ, kv_num_heads=HKV),
           {"q": bhsd_to_bsh(q), "k": bhsd_to_bsh(k), "v": bhsd_to_bsh(v), "pk": pk, "pv": pv},
           [bhsd_to_bsh(y), prk, prv])
    p.case(g, "past given, present outputs not asked for",
           att(["q", "k", "v", "", "pk", "pv"], ["y"]), feeds, [y])

    # Prefill continuing a cache (S > 1 and P > 0): which causal alignment?
    S, P = 4, 6
    q, k, v = qkv(S)
    pk, pv = ones(B, HKV, P, D), ones(B, HKV, P, D)
    feeds = {"q": q, "k": k, "v": v, "pk": pk, "pv": pv}
    br = attention_ref(q, k, v, pk, pv, bias=causal_bias(S, P + S, True))
    tl = attention_ref(q, k, v, pk, pv, bias=causal_bias(S, P + S, False))
    p.case(g, "S 4 over past 6, is_causal 1 vs bottom-right causal (query i sees keys <= past + i)",
           att(["q", "k", "v", "", "pk", "pv"], ["y", "prk", "prv"], is_causal=1), feeds, list(br),
           alts=[("top-left causal (keys <= i)", list(tl))])
    m2 = causal_bias(S, P + S, True, fill=np.finfo(np.float32).min)
    for shape, label in (((S, P + S), "2D [S, P+S]"), ((1, 1, S, P + S), "4D [1,1,S,P+S]"),
                         ((B, 1, S, P + S), "4D [B,1,S,P+S]")):
        mm = np.broadcast_to(m2, shape).copy()
        p.case(g, f"S 4 over past 6, additive float mask {label} (float32 min where masked, llama_tiny's)",
               att(["q", "k", "v", "m", "pk", "pv"], ["y", "prk", "prv"]), dict(feeds, m=mm), list(br))
    keep = causal_bias(S, P + S, True) == 0  # True: takes part
    att_b = lambda ins, outs, **a: model([N("Attention", ins, outs, **a)],  # noqa: E731
                                         [(i, TensorProto.BOOL) if i == "m" else i for i in ins if i], outs)
    p.case(g, "S 4 over past 6, boolean mask [S, P+S], True = attend (gpt_kv_tiny's is True = masked: Not it)",
           att_b(["q", "k", "v", "m", "pk", "pv"], ["y", "prk", "prv"]),
           dict(feeds, m=keep), list(br))
    pad = np.zeros((B, 1, 1, P + S), np.float32)
    pad[0, ..., :2] = np.finfo(np.float32).min  # batch 0: its first two cache entries are padding
    p.case(g, "S 4 over past 6, padding mask [B,1,1,P+S] (1 on the query axis: HF's 4D padding mask)",
           att(["q", "k", "v", "m", "pk", "pv"], ["y", "prk", "prv"]), dict(feeds, m=pad),
           list(attention_ref(q, k, v, pk, pv, bias=pad)))
    padS = np.broadcast_to(pad, (B, 1, S, P + S)).copy()
    p.case(g, "S 4 over past 6, is_causal 1 and a padding mask [B,1,S,P+S]: both apply?",
           att(["q", "k", "v", "m", "pk", "pv"], ["y", "prk", "prv"], is_causal=1), dict(feeds, m=padS),
           list(attention_ref(q, k, v, pk, pv, bias=causal_bias(S, P + S, True) + pad)),
           alts=[("the padding mask alone (is_causal ignored)", list(attention_ref(q, k, v, pk, pv, bias=pad))),
                 ("causal alone (the mask ignored)", list(br))])
    mm = m2[:, :P]
    p.case(g, "mask shorter than past + S ([S, P]): padded with -inf per the spec?",
           att(["q", "k", "v", "m", "pk", "pv"], ["y", "prk", "prv"]), dict(feeds, m=mm.copy()),
           list(attention_ref(q, k, v, pk, pv, bias=np.concatenate([mm, np.full((S, S), -np.inf, np.float32)], 1))))

    # Empty past (the first step of a generate loop that always feeds the cache).
    S = 5
    q, k, v = qkv(S)
    pk, pv = np.zeros((B, HKV, 0, D), np.float32), np.zeros((B, HKV, 0, D), np.float32)
    feeds = {"q": q, "k": k, "v": v, "pk": pk, "pv": pv}
    p.case(g, "S 5 over an empty past [B,2,0,16], is_causal 1",
           att(["q", "k", "v", "", "pk", "pv"], ["y", "prk", "prv"], is_causal=1), feeds,
           list(attention_ref(q, k, v, pk, pv, bias=causal_bias(S, S))))
    # A row with every key masked: -inf everywhere (gpt_kv_tiny's Where(mask, -inf)) gives NaN in
    # the decomposition; float32 min (llama_tiny's) gives the mean of V.
    q, k, v = qkv(3)
    m = np.zeros((3, 3), np.float32)
    m[1] = -np.inf
    p.case(g, "a fully masked row, additive -inf (decomposition: NaN in that row)",
           att(["q", "k", "v", "m"], ["y"]), {"q": q, "k": k, "v": v, "m": m}, [attention_ref(q, k, v, bias=m)[0]],
           alts=[("the decomposition with that row 0 instead of NaN",
                  [np.nan_to_num(attention_ref(q, k, v, bias=m)[0], nan=0.0)])])
    mf = np.zeros((3, 3), np.float32)
    mf[1] = np.finfo(np.float32).min
    p.case(g, "a fully masked row, additive float32 min (decomposition: the mean of V over the keys)",
           att(["q", "k", "v", "m"], ["y"]), {"q": q, "k": k, "v": v, "m": mf}, [attention_ref(q, k, v, bias=mf)[0]],
           alts=[("the decomposition with that row 0", [np.nan_to_num(attention_ref(q, k, v, bias=m)[0], nan=0.0)])])
    mb = np.ones((3, 3), bool)
    mb[1] = False
    p.case(g, "a fully masked row, boolean mask",
           att_b(["q", "k", "v", "m"], ["y"]), {"q": q, "k": k, "v": v, "m": mb}, [attention_ref(q, k, v, bias=m)[0]],
           alts=[("the decomposition with that row 0 instead of NaN",
                  [np.nan_to_num(attention_ref(q, k, v, bias=m)[0], nan=0.0)])])


# ---- llama_tiny rebuilt with the standard ops ----

def llama_standard(layout, out_path):
    """tests/models/llama_tiny.onnx's model (make_fixtures.LlamaTiny, seed 0) written with
    RMSNormalization, RotaryEmbedding and Attention-23; layout '3d' or '4d'."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
    import make_fixtures as mf

    torch.manual_seed(0)
    tm = mf.LlamaTiny().eval()
    sd = {k: v.detach().numpy() for k, v in tm.state_dict().items()}
    d, hq, hkv = 128, 8, 2
    hd = d // hq
    inits = {"embed": sd["embed_tokens.weight"], "cos": tm.cos_cached.numpy()[:, :hd // 2].copy(),
             "sin": tm.sin_cached.numpy()[:, :hd // 2].copy(), "lm_head": sd["lm_head.weight"].T.copy(),
             "norm": sd["norm.weight"]}
    nodes = [N("Gather", ["embed", "input_ids"], ["x0"])]
    if layout == "4d":
        inits["q_shape"] = np.array([0, 0, hq, hd], np.int64)
        inits["kv_shape"] = np.array([0, 0, hkv, hd], np.int64)
        inits["y_shape"] = np.array([0, 0, d], np.int64)
    x = "x0"
    outs = []
    for i in range(2):
        pre = f"l{i}."
        for n in ("q", "k", "v", "o"):
            inits[pre + n] = sd[f"layers.{i}.self_attn.{n}_proj.weight"].T.copy()
        for n in ("gate", "up", "down"):
            inits[pre + n] = sd[f"layers.{i}.{n}_proj.weight"].T.copy()
        inits[pre + "ln1"] = sd[f"layers.{i}.input_layernorm.weight"]
        inits[pre + "ln2"] = sd[f"layers.{i}.post_attention_layernorm.weight"]
        nodes += [N("RMSNormalization", [x, pre + "ln1"], [pre + "h"], axis=-1, epsilon=1e-6)]
        for n in ("q", "k", "v"):
            nodes.append(N("MatMul", [pre + "h", pre + n], [pre + n + "p"]))
        pk, pv, prk, prv = f"past_key_{i}", f"past_value_{i}", f"present_key_{i}", f"present_value_{i}"
        if layout == "3d":
            nodes += [N("RotaryEmbedding", [pre + "qp", "cos", "sin", "position_ids"], [pre + "qr"], num_heads=hq),
                      N("RotaryEmbedding", [pre + "kp", "cos", "sin", "position_ids"], [pre + "kr"], num_heads=hkv),
                      N("Attention", [pre + "qr", pre + "kr", pre + "vp", "", pk, pv], [pre + "y", prk, prv],
                        q_num_heads=hq, kv_num_heads=hkv, is_causal=1)]
            y = pre + "y"
        else:
            for n, shape in (("q", "q_shape"), ("k", "kv_shape"), ("v", "kv_shape")):
                nodes += [N("Reshape", [pre + n + "p", shape], [pre + n + "s"]),
                          N("Transpose", [pre + n + "s"], [pre + n + "t"], perm=[0, 2, 1, 3])]
            nodes += [N("RotaryEmbedding", [pre + "qt", "cos", "sin", "position_ids"], [pre + "qr"]),
                      N("RotaryEmbedding", [pre + "kt", "cos", "sin", "position_ids"], [pre + "kr"]),
                      N("Attention", [pre + "qr", pre + "kr", pre + "vt", "", pk, pv], [pre + "y4", prk, prv],
                        is_causal=1),
                      N("Transpose", [pre + "y4"], [pre + "yt"], perm=[0, 2, 1, 3]),
                      N("Reshape", [pre + "yt", "y_shape"], [pre + "y"])]
            y = pre + "y"
        nodes += [N("MatMul", [y, pre + "o"], [pre + "a"]), N("Add", [x, pre + "a"], [pre + "x1"]),
                  N("RMSNormalization", [pre + "x1", pre + "ln2"], [pre + "h2"], axis=-1, epsilon=1e-6),
                  N("MatMul", [pre + "h2", pre + "gate"], [pre + "g"]), N("Sigmoid", [pre + "g"], [pre + "gs"]),
                  N("Mul", [pre + "g", pre + "gs"], [pre + "silu"]), N("MatMul", [pre + "h2", pre + "up"], [pre + "u"]),
                  N("Mul", [pre + "silu", pre + "u"], [pre + "gu"]), N("MatMul", [pre + "gu", pre + "down"], [pre + "m"]),
                  N("Add", [pre + "x1", pre + "m"], [pre + "x2"])]
        x = pre + "x2"
        outs += [vi(prk, F32, ["batch", hkv, "total_seq", hd]), vi(prv, F32, ["batch", hkv, "total_seq", hd])]
    nodes += [N("RMSNormalization", [x, "norm"], ["xf"], axis=-1, epsilon=1e-6), N("MatMul", ["xf", "lm_head"], ["logits"])]
    ins = [vi("input_ids", TensorProto.INT64, ["batch", "seq"]), vi("position_ids", TensorProto.INT64, ["batch", "seq"])]
    for i in range(2):
        ins += [vi(f"past_key_{i}", F32, ["batch", hkv, "past_seq", hd]), vi(f"past_value_{i}", F32, ["batch", hkv, "past_seq", hd])]
    g = helper.make_graph(nodes, f"llama_tiny_std23_{layout}", ins, [vi("logits", F32, ["batch", "seq", 128])] + outs,
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION,
                          producer_name="standard_ops_probe.py")
    onnx.save(m, out_path)
    return out_path, len(nodes)


def gpt_standard(out_path):
    """tests/models/gpt_kv_tiny.onnx's model (make_fixtures.GptKvTiny, seed 0, random LayerNorm
    affine) written with LayerNormalization, Gelu-20 (tanh) and Attention-23 (3D Q/K/V,
    is_causal 1: the fixture's boolean mask is the bottom-right causal of a cache)."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
    import make_fixtures as mf

    torch.manual_seed(0)
    tm = mf.random_layer_norms(mf.GptKvTiny()).eval()
    sd = {k: v.detach().numpy() for k, v in tm.state_dict().items()}
    d, h = 64, 4
    hd = d // h
    inits = {"wte": sd["wte.weight"], "wpe": sd["wpe.weight"], "one": np.array(1, np.int64),
             "lnf_w": sd["ln_f.weight"], "lnf_b": sd["ln_f.bias"], "split": np.array([d, d, d], np.int64)}
    # Positions past .. past + seq - 1, as HF GPT-2 makes them.
    nodes = [N("Shape", ["past_key_0"], ["pshape"], start=2, end=3), N("Shape", ["input_ids"], ["ishape"], start=1, end=2),
             N("Squeeze", ["pshape"], ["past"]), N("Squeeze", ["ishape"], ["seq"]), N("Add", ["past", "seq"], ["total"]),
             N("Range", ["past", "total", "one"], ["pos"]), N("Gather", ["wte", "input_ids"], ["te"]),
             N("Gather", ["wpe", "pos"], ["pe"]), N("Add", ["te", "pe"], ["x0"])]
    x = "x0"
    outs = []
    for i in range(2):
        pre = f"h{i}."
        for n in ("ln_1", "ln_2"):
            inits[pre + n + "w"], inits[pre + n + "b"] = sd[f"h.{i}.{n}.weight"], sd[f"h.{i}.{n}.bias"]
        for n in ("c_attn", "c_proj", "c_fc", "mlp_proj"):
            inits[pre + n] = sd[f"h.{i}.{n}.weight"].T.copy()
            inits[pre + n + "_b"] = sd[f"h.{i}.{n}.bias"]
        pk, pv, prk, prv = f"past_key_{i}", f"past_value_{i}", f"present_key_{i}", f"present_value_{i}"
        nodes += [N("LayerNormalization", [x, pre + "ln_1w", pre + "ln_1b"], [pre + "h"], axis=-1, epsilon=1e-5),
                  N("MatMul", [pre + "h", pre + "c_attn"], [pre + "qkv0"]),
                  N("Add", [pre + "qkv0", pre + "c_attn_b"], [pre + "qkv"]),
                  N("Split", [pre + "qkv", "split"], [pre + "q", pre + "k", pre + "v"], axis=2),
                  N("Attention", [pre + "q", pre + "k", pre + "v", "", pk, pv], [pre + "y", prk, prv],
                    q_num_heads=h, kv_num_heads=h, is_causal=1),
                  N("MatMul", [pre + "y", pre + "c_proj"], [pre + "a0"]), N("Add", [pre + "a0", pre + "c_proj_b"], [pre + "a"]),
                  N("Add", [x, pre + "a"], [pre + "x1"]),
                  N("LayerNormalization", [pre + "x1", pre + "ln_2w", pre + "ln_2b"], [pre + "h2"], axis=-1, epsilon=1e-5),
                  N("MatMul", [pre + "h2", pre + "c_fc"], [pre + "f0"]), N("Add", [pre + "f0", pre + "c_fc_b"], [pre + "f"]),
                  N("Gelu", [pre + "f"], [pre + "g"], approximate="tanh"),
                  N("MatMul", [pre + "g", pre + "mlp_proj"], [pre + "m0"]),
                  N("Add", [pre + "m0", pre + "mlp_proj_b"], [pre + "m"]), N("Add", [pre + "x1", pre + "m"], [pre + "x2"])]
        x = pre + "x2"
        outs += [vi(prk, F32, ["batch", h, "total_seq", hd]), vi(prv, F32, ["batch", h, "total_seq", hd])]
    nodes.append(N("LayerNormalization", [x, "lnf_w", "lnf_b"], ["hidden"], axis=-1, epsilon=1e-5))
    ins = [vi("input_ids", TensorProto.INT64, ["batch", "seq"])]
    for i in range(2):
        ins += [vi(f"past_key_{i}", F32, ["batch", h, "past_seq", hd]), vi(f"past_value_{i}", F32, ["batch", h, "past_seq", hd])]
    g = helper.make_graph(nodes, "gpt_kv_tiny_std23", ins, [vi("hidden", F32, ["batch", "seq", d])] + outs,
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION,
                          producer_name="standard_ops_probe.py")
    onnx.save(m, out_path)
    return out_path, len(nodes)


def check_decoder(fixture, paths, rng, kv_heads, positions):
    for b, s, past in ((1, 1, 1024), (1, 128, 0), (2, 4, 9)):
        feeds = {"input_ids": rng.integers(0, 128, (b, s)).astype(np.int64)}
        if positions:
            feeds["position_ids"] = np.broadcast_to(np.arange(past, past + s), (b, s)).astype(np.int64).copy()
        for i in range(2):
            feeds[f"past_key_{i}"] = rng.standard_normal((b, kv_heads, past, 16)).astype(np.float32)
            feeds[f"past_value_{i}"] = rng.standard_normal((b, kv_heads, past, 16)).astype(np.float32)
        want = run_ort(fixture, feeds)
        for p in paths:
            got = run_ort(p, feeds)
            diff = max(float(np.abs(got[n] - want[n]).max()) for n in want)
            ok = all(np.allclose(got[n], want[n], rtol=1e-4, atol=1e-4) for n in want)
            print(f"  {os.path.basename(p)} batch={b} seq={s} past_seq={past}: "
                  f"{'equal' if ok else 'DIFFERS'} to {os.path.basename(fixture)} (max |diff| {diff:.2g})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llama", action="store_true")
    ap.add_argument("--gpt", action="store_true")
    ap.add_argument("--no-probes", action="store_true", help="only the rebuilt models")
    ap.add_argument("--out-dir", default="/tmp")
    args = ap.parse_args()
    import tempfile

    rng = np.random.default_rng(0)
    if not args.no_probes:
        with tempfile.TemporaryDirectory() as tmp:
            p = Probe(tmp)
            probe_norms(p, rng)
            probe_rope(p, rng)
            probe_attention(p, rng)
            p.print()
    if args.llama:
        print("\nllama_tiny rebuilt with RMSNormalization / RotaryEmbedding / Attention-23 (is_causal 1):")
        paths = []
        for layout in ("3d", "4d"):
            path, n = llama_standard(layout, os.path.join(args.out_dir, f"llama_tiny_std23_{layout}.onnx"))
            print(f"  wrote {path}: {n} nodes")
            paths.append(path)
        check_decoder(os.path.join(ROOT, "tests", "models", "llama_tiny.onnx"), paths, rng, 2, True)
    if args.gpt:
        print("\ngpt_kv_tiny rebuilt with LayerNormalization / Gelu-20 / Attention-23 (is_causal 1):")
        path, n = gpt_standard(os.path.join(args.out_dir, "gpt_kv_tiny_std23.onnx"))
        print(f"  wrote {path}: {n} nodes")
        check_decoder(os.path.join(ROOT, "tests", "models", "gpt_kv_tiny.onnx"), [path], rng, 4, False)


if __name__ == "__main__":
    main()
