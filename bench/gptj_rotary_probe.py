#!/usr/bin/python3
"""What fusing GPT-J's rotary into RotaryEmbedding-23 gains in ONNX Runtime (issue 31, item 4),
measured before fuse_rotary_embedding_bshd was written: gptj_tiny's rotary, rewritten by hand on
onnxtrim's `--opset 23` output without that pass (GPT-J rotates q and k in the [B, S, H, D]
layout before the heads' Transpose, with sin and cos split from one gathered table and
repeat_interleave'd after the lookup). The pass writes the same form.

    build/onnxtrim tests/models/gptj_tiny.onnx /tmp/gptj23.onnx --opset 23 --skip fuse_rotary_embedding_bshd
    /usr/bin/python3 bench/gptj_rotary_probe.py /tmp/gptj23.onnx /tmp/gptj23_rope.onnx
    /usr/bin/python3 bench/ort_latency.py tests/models/gptj_tiny.onnx fused=/tmp/gptj23.onnx \\
        rope=/tmp/gptj23_rope.onnx --dims batch=1,seq=1,past_seq=300 --int input_ids=0:100 \\
        --int position_ids=0:300 --threads both --rounds 40 --runs 100 --levels all

Each Transpose(Concat(x[.., :R] * cos + rotate_every_two(x[.., :R]) * sin, x[.., R:]), [0, 2, 1, 3])
becomes RotaryEmbedding(Transpose(x, [0, 2, 1, 3]), table[:, R/2:], table[:, :R/2], position_ids;
interleaved 1, rotary_embedding_dim R), where table is the [max_pos, R] sin-then-cos constant
the model gathers by position_ids (R = 8 in gptj_tiny). Nothing here proves the pattern: it is a
probe for this fixture only; ort_latency.py checks the outputs equal the original's before timing.
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

src, dst = sys.argv[1], sys.argv[2]
m = onnx.load(src)
g = m.graph
inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
by_out = {o: n for n in g.node for o in n.output}
lookup = [n for n in g.node if n.op_type == "Gather" and "position_ids" in n.input]
if len(lookup) != 1 or lookup[0].input[0] not in inits:
    sys.exit("gptj_rotary_probe: no single Gather of a constant table by position_ids")
table = inits[lookup[0].input[0]]  # [max_pos, R]: sin, then cos
half = table.shape[1] // 2
g.initializer.extend([numpy_helper.from_array(np.ascontiguousarray(table[:, half:]), "rope_cos"),
                      numpy_helper.from_array(np.ascontiguousarray(table[:, :half]), "rope_sin")])
nodes, done = [], 0
for n in g.node:
    cat = by_out.get(n.input[0]) if n.op_type == "Transpose" else None
    add = by_out.get(cat.input[0]) if cat is not None and cat.op_type == "Concat" else None
    if add is not None and add.op_type == "Add":
        x = by_out[by_out[add.input[0]].input[0]].input[0]  # Add <- Mul(Slice(x, :R), cos)
        t = helper.make_node("Transpose", [x], [n.output[0] + "_bnsh"], perm=[0, 2, 1, 3])
        nodes += [t, helper.make_node("RotaryEmbedding", [t.output[0], "rope_cos", "rope_sin", "position_ids"],
                                      [n.output[0]], interleaved=1, rotary_embedding_dim=2 * half)]
        done += 1
        continue
    nodes.append(n)
del g.node[:]
g.node.extend(nodes)
while True:  # what nothing reads any more
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    live = [n for n in g.node if any(o in used for o in n.output)]
    if len(live) == len(g.node):
        break
    del g.node[:]
    g.node.extend(live)
used = {i for n in g.node for i in n.input}
live_inits = [t for t in g.initializer if t.name in used]
del g.initializer[:]
g.initializer.extend(live_inits)
del g.value_info[:]
onnx.save(m, dst)
print(f"gptj_rotary_probe: {done} rotaries rewritten, {len(g.node)} nodes")
