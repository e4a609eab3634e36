"""Delta-debugging reducer: the smallest model that still shows a failure.

Moves, each kept only while the same kind of failure (same check, same variant) persists and the
reduced original stays valid (onnx.checker and ONNX Runtime accept it):
  - drop graph outputs, or make an earlier value the only output;
  - cut a chunk of nodes (ddmin: halves, quarters, ... single nodes): every value the chunk made
    that the rest still reads becomes a graph input of the value's tracked dtype and shape (float
    and bool values only: integer values are shapes and indices, random ones would be invalid);
  - bypass a node whose first input has the dtype and shape of its output;
then dead nodes, unused initializers and unused inputs are removed.
"""
import copy
import hashlib
import time

import onnx
from onnx import helper

import graphgen

F32, BOOL = onnx.TensorProto.FLOAT, onnx.TensorProto.BOOL


def subgraph_reads(node):
    """Names read by the subgraphs of node (outer-scope references included)."""
    names = set()

    def walk(g, local):
        local = set(local) | {i.name for i in g.input} | {t.name for t in g.initializer}
        for nd in g.node:
            for i in nd.input:
                if i and i not in local:
                    names.add(i)
            for a in nd.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g, local)
                elif a.type == onnx.AttributeProto.GRAPHS:
                    for s in a.graphs:
                        walk(s, local)
            local |= set(nd.output)
        for o in g.output:
            if o.name not in local:
                names.add(o.name)

    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            walk(a.g, set())
        elif a.type == onnx.AttributeProto.GRAPHS:
            for s in a.graphs:
                walk(s, set())
    return names


def reads(node):
    return [i for i in node.input if i] + sorted(subgraph_reads(node))


def dce(model, meta):
    g = model.graph
    needed = {o.name for o in g.output}
    keep = []
    for nd in reversed(list(g.node)):
        if any(o in needed for o in nd.output if o):
            keep.append(nd)
            needed |= set(reads(nd))
    keep.reverse()
    del g.node[:]
    g.node.extend(keep)
    inits = [t for t in g.initializer if t.name in needed]
    del g.initializer[:]
    g.initializer.extend(inits)
    ins = [i for i in g.input if i.name in needed]
    del g.input[:]
    g.input.extend(ins)
    vis = [v for v in g.value_info if v.name in needed]
    del g.value_info[:]
    g.value_info.extend(vis)
    names = {i.name for i in g.input}
    meta["inputs"] = {k: v for k, v in meta["inputs"].items() if k in names}


def value_type(meta, name):
    info = meta["values"].get(name)
    if info is None:
        return None
    return info["dtype"], [graphgen.dim_from_json(d) for d in info["dims"]]


def cut(model, meta, idx):
    """Remove nodes idx; what the rest reads of them becomes graph inputs. None if impossible."""
    m = copy.deepcopy(model)
    mt = copy.deepcopy(meta)
    g = m.graph
    removed = [g.node[i] for i in idx]
    made = {o for nd in removed for o in nd.output if o}
    rest = [nd for i, nd in enumerate(g.node) if i not in idx]
    wanted = set()
    for nd in rest:
        wanted |= set(reads(nd)) & made
    wanted |= {o.name for o in g.output} & made
    for name in sorted(wanted):
        t = value_type(mt, name)
        if t is None or t[0] not in (F32, BOOL):
            return None
        dtype, dims = t
        g.input.append(helper.make_tensor_value_info(name, dtype, [graphgen.declared_dim(d) for d in dims]))
        mt["inputs"][name] = {"dtype": dtype, "dims": [graphgen.dim_json(d) for d in dims], "range": None,
                              "positive": bool(mt["values"][name].get("positive"))}
    del g.node[:]
    g.node.extend(rest)
    dce(m, mt)
    if not g.node:
        return None
    return m, mt


# Ops whose removal cannot turn a well-conditioned computation into an ill-conditioned one
# (bypassing Sqrt(var + eps) would leave a division by a mean that may be ~0).
BYPASSABLE = {"Identity", "Relu", "LeakyRelu", "Neg", "Abs", "Tanh", "Sigmoid", "Dropout", "Cast", "Erf", "Softsign",
              "HardSigmoid", "Elu", "Selu", "Celu", "HardSwish", "Clip", "Sin", "Cos", "PRelu", "Transpose", "Reshape",
              "Expand", "Tile", "Pad", "Slice", "Softmax", "LogSoftmax", "BatchNormalization", "LayerNormalization",
              "Conv", "ConvTranspose", "MatMul", "Gemm", "Squeeze", "Unsqueeze", "Flatten", "If", "Loop", "Where",
              "MaxPool", "AveragePool", "Resize", "Gather", "Concat", "Split"}


def bypass(model, meta, i):
    m = copy.deepcopy(model)
    mt = copy.deepcopy(meta)
    g = m.graph
    nd = g.node[i]
    if nd.op_type not in BYPASSABLE or len([o for o in nd.output if o]) != 1 or not nd.input or not nd.input[0]:
        return None
    src, dst = nd.input[0], nd.output[0]
    ts, td = value_type(mt, src), value_type(mt, dst)
    if ts is None or td is None or ts != td:
        return None
    if dst in {o.name for o in g.output}:
        return None
    for other in g.node:
        other.input[:] = [src if x == dst else x for x in other.input]
        if subgraph_reads(other) & {dst}:
            return None
    del g.node[i]
    dce(m, mt)
    return m, mt


def output_at(model, meta, i):
    """The output of node i becomes the only graph output: what comes after it goes."""
    m = copy.deepcopy(model)
    mt = copy.deepcopy(meta)
    g = m.graph
    name = g.node[i].output[0] if g.node[i].output else ""
    t = value_type(mt, name)
    if not name or t is None or t[0] not in (F32, BOOL) or {o.name for o in g.output} == {name}:
        return None
    del g.output[:]
    g.output.append(helper.make_tensor_value_info(name, t[0], [graphgen.declared_dim(d) for d in t[1]]))
    dce(m, mt)
    return m, mt


def drop_output(model, meta, k):
    if len(model.graph.output) <= 1:
        return None
    m = copy.deepcopy(model)
    mt = copy.deepcopy(meta)
    del m.graph.output[k]
    dce(m, mt)
    return m, mt


class Reducer:
    def __init__(self, predicate, budget_s=120, max_tests=400):
        """predicate(model, meta) -> bool: the failure still shows."""
        self.predicate = predicate
        self.budget_s = budget_s
        self.max_tests = max_tests
        self.cache = {}
        self.tests = 0

    def test(self, cand):
        if cand is None:
            return False
        m, mt = cand
        key = hashlib.sha1(m.SerializeToString()).hexdigest()
        if key in self.cache:
            return self.cache[key]
        if self.out_of_budget():
            return False
        self.tests += 1
        r = bool(self.predicate(m, mt))
        self.cache[key] = r
        return r

    def out_of_budget(self):
        return time.time() - self.start > self.budget_s or self.tests >= self.max_tests

    def reduce(self, model, meta):
        self.start = time.time()
        cur = (model, meta)
        changed = True
        while changed and not self.out_of_budget():
            changed = False
            k = 0
            while k < len(cur[0].graph.output):
                cand = drop_output(cur[0], cur[1], k)
                if self.test(cand):
                    cur, changed = cand, True
                else:
                    k += 1
            n = len(cur[0].graph.node)
            chunk = max(1, n // 2)
            while chunk >= 1 and not self.out_of_budget():
                i = 0
                progressed = False
                while i < len(cur[0].graph.node) and not self.out_of_budget():
                    idx = set(range(i, min(i + chunk, len(cur[0].graph.node))))
                    cand = cut(cur[0], cur[1], idx)
                    if self.test(cand):
                        cur, changed, progressed = cand, True, True
                    else:
                        i += chunk
                if chunk == 1 and not progressed:
                    break
                chunk = chunk // 2 if chunk > 1 else (1 if progressed else 0)
            for i in range(len(cur[0].graph.node)):
                if self.out_of_budget():
                    break
                cand = output_at(cur[0], cur[1], i)
                if self.test(cand):
                    cur, changed = cand, True
                    break
            i = 0
            while i < len(cur[0].graph.node) and not self.out_of_budget():
                cand = bypass(cur[0], cur[1], i)
                if self.test(cand):
                    cur, changed = cand, True
                else:
                    i += 1
        return cur
