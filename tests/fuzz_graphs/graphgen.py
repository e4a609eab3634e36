"""Random, valid, exporter-like ONNX graphs (python3-onnx's onnx.helper + numpy).

generate(seed) -> Case: a ModelProto plus what the driver needs to run it (input values per dim
setting, the rank of every value for the opset-17 checker view, the dtype/shape of every value
for the reducer).

The generator is correct by construction: it tracks the dtype and the shape of every value as it
builds (symbolic dims as polynomials over the input's dim names, so `2*batch` or `batch*seq`
stay exact), and only emits a node whose inputs satisfy the operator's rules for every value of
the symbolic dims (>= 1). It also tracks a rough magnitude of every float value, so that chains
of products stay far from overflow, and whether a value is "exact" (made from inputs and
constants by data movement only), so that comparisons, ArgMax and Cast to float16 only see
values that a correct simplification leaves bit-identical (no false alarms from rounding).

The op mix: real compute (Conv, ConvTranspose, pools, MatMul, Gemm, broadcasting arithmetic,
activations, Softmax, LayerNormalization and its exporter decomposition, reductions, ArgMax,
BatchNormalization, Pad, Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Concat, Split, Slice
with negative and clamped bounds and steps, Gather, Expand, Tile, Where, Cast, Range,
ConstantOfShape, comparisons, Dropout, Resize, a custom-domain op) and exporter plumbing
(Shape->Gather->Unsqueeze->Concat->Reshape, Constant nodes, identity elements, double
Transposes, no-op Cast/Reshape/Expand/Pad/Slice, duplicated subexpressions, dead branches, If with
constant and computed conditions, Loop, graph outputs that are intermediates or copies of
inputs), over opsets 11-21, with symbolic input dims in a share of the cases.

Two graph-wide features (issue 30, what a third-party fuzzer made that this one did not), each
drawn for ~15% of the graphs (Gen.splats, Gen.customs), where their generators then weigh more:
hand-written padding, i.e. values concatenated with splats of one value (stored, ConstantOfShape
of a constant or computed shape, Expand/Tile of a constant), nested up to three levels, reused
and made graph outputs, on float values and on int32/int64/uint8/float16/bool islands
(splat_concat; ~20% of the graphs in all); and custom-domain ops, com.microsoft contrib ops or ops
of a made-up domain that ONNX Runtime runs through a twin (custom_block, MADE_UP, runnable_twin;
~15%). meta["notes"] names the features a case has (splat_*, custom_*, F1-F6).
"""
import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F64, F16, I64, I32, BOOL = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.INT64,
                                 TensorProto.INT32, TensorProto.BOOL)
U8 = TensorProto.UINT8
NP = {F32: np.float32, F64: np.float64, F16: np.float16, I64: np.int64, I32: np.int32, BOOL: np.bool_, U8: np.uint8}
INT64_MAX = 2 ** 63 - 1
IR_FOR_OPSET = {11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9, 20: 9, 21: 10}


# ---------------------------------------------------------------------------------------------
# Symbolic dims: an int, or a polynomial over dim names with int coefficients (class P).
class P:
    __slots__ = ("terms",)

    def __init__(self, terms):
        self.terms = terms  # tuple of (monomial: tuple of sorted names, coefficient), sorted

    def __eq__(self, o):
        return isinstance(o, P) and self.terms == o.terms

    def __hash__(self):
        return hash(self.terms)

    def __repr__(self):
        return "+".join(("*".join(m) if c == 1 else "*".join((str(c),) + m)) if m else str(c) for m, c in self.terms)


def _norm(d):
    d = {m: c for m, c in d.items() if c}
    if not d:
        return 0
    if list(d) == [()]:
        return d[()]
    return P(tuple(sorted(d.items())))


def _terms(a):
    return dict(a.terms) if isinstance(a, P) else ({(): a} if a else {})


def dadd(a, b):
    t = _terms(a)
    for m, c in _terms(b).items():
        t[m] = t.get(m, 0) + c
    return _norm(t)


def dmul(a, b):
    t = {}
    for m1, c1 in _terms(a).items():
        for m2, c2 in _terms(b).items():
            m = tuple(sorted(m1 + m2))
            t[m] = t.get(m, 0) + c1 * c2
    return _norm(t)


def ddiv(a, k):
    """a / k when every coefficient is divisible, else None."""
    t = _terms(a)
    if any(c % k for c in t.values()):
        return None
    return _norm({m: c // k for m, c in t.items()})


def dprod(ds):
    r = 1
    for d in ds:
        r = dmul(r, d)
    return r


def deval(d, env):
    if isinstance(d, int):
        return d
    return sum(c * math.prod(env[s] for s in m) for m, c in d.terms)


def sym(name):
    return P(((((name,)), 1),))


def static(d):
    return isinstance(d, int)


def dim_json(d):
    return d if isinstance(d, int) else [[list(m), c] for m, c in d.terms]


def dim_from_json(j):
    return j if isinstance(j, int) else _norm({tuple(m): c for m, c in j})


def declared_dim(d):
    if isinstance(d, int):
        return d
    if len(d.terms) == 1 and d.terms[0][1] == 1 and len(d.terms[0][0]) == 1:
        return d.terms[0][0][0]
    return None  # unknown


def bcast(a, b):
    """Broadcast shape of a and b, or None if they do not broadcast for every dim value."""
    r = max(len(a), len(b))
    a = [1] * (r - len(a)) + list(a)
    b = [1] * (r - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x == y:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        else:
            return None
    return out


# ---------------------------------------------------------------------------------------------
class V:
    """A value being built: name, dtype, shape (dims), constant value if known, magnitude bound
    (floats), exactness, positivity."""
    __slots__ = ("name", "dtype", "shape", "const", "mag", "exact", "pos", "uses", "scope", "irange", "nosub")

    def __init__(self, name, dtype, shape, const=None, mag=1.0, exact=False, pos=False, scope=None, irange=None):
        self.name, self.dtype, self.shape, self.const = name, dtype, list(shape), const
        self.mag, self.exact, self.pos, self.uses, self.scope, self.irange = mag, exact, pos, 0, scope, irange
        # Made by a Cast round trip (Cast(Cast(x))): ONNX Runtime (1.30) drops such a pair even
        # with optimizations off, and then misses the value where a subgraph reads it
        # ("Missing Input"). Never read one from inside a subgraph.
        self.nosub = False

    @property
    def rank(self):
        return len(self.shape)

    def static(self):
        return all(static(d) for d in self.shape)


class Graph:
    """One graph under construction (the main graph or an If/Loop body)."""

    def __init__(self, gen, parent=None, name="main_graph"):
        self.gen, self.parent, self.name = gen, parent, name
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.pool = []  # values visible and usable here (own values; parents' are reached through .visible())
        self.specs = []  # (op, input names, attrs, domain, out metas) for duplication
        self.depth = 0 if parent is None else parent.depth + 1

    def visible(self):
        """Values usable here: own ones, and outer ones except Cast round trips (V.nosub)."""
        g, vals = self, []
        while g is not None:
            vals.extend(v for v in g.pool if g is self or not v.nosub)
            g = g.parent
        return vals


class Gen:
    def __init__(self, seed, opset=None, dynamic=None, max_nodes=None):
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        r = self.rng
        self.opset = opset if opset is not None else int(r.choice([11, 12, 13, 13, 14, 15, 16, 17, 17, 18, 19, 20, 21]))
        self.dynamic = dynamic if dynamic is not None else bool(r.random() < 0.45)
        self.target_nodes = max_nodes if max_nodes is not None else int(r.integers(8, 40))
        self.counter = 0
        self.block = 0
        self.syms = []
        self.main = Graph(self)
        self.values = {}  # name -> V (every value of every graph)
        self.input_ranges = {}
        self.notes = set()  # features used, for the report (e.g. 'F1')
        self.uses_custom = False
        self.domains = {}  # non-default domains used -> opset version
        self.extra_outputs = []  # values that must be graph outputs (see splat_concat)
        self.declare = []  # values that get a value_info (custom ops' outputs)
        # Graph-wide features (issue 30), drawn once so that a share of the graphs has each:
        # hand-written padding, Concats of splats (fuse_concat_splat's pattern) in ~15-20% of the
        # graphs, several of them and nested; custom-domain ops (com.microsoft or a made-up
        # domain), which make onnxtrim skip its check, in ~15%.
        self.splats = self.chance(0.15)
        self.customs = self.chance(0.15)

    # ----- helpers ------------------------------------------------------------------------
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def uid(self):
        self.counter += 1
        return self.counter

    def vname(self, op):
        k = self.uid()
        if self.chance(0.15):
            return f"{op.lower()}_{k}"
        return f"/block{self.block}/{op}_{k}_output_0"

    def register(self, g, v, usable=True):
        v.scope = g
        self.values[v.name] = v
        if usable:
            g.pool.append(v)
        return v

    def const(self, g, arr, hint="const", as_node=None, usable=False, exact=True):
        """An initializer or a Constant node holding arr."""
        arr = np.asarray(arr)
        dt = {np.dtype(np.float32): F32, np.dtype(np.float64): F64, np.dtype(np.int64): I64,
              np.dtype(np.int32): I32, np.dtype(np.bool_): BOOL, np.dtype(np.float16): F16,
              np.dtype(np.uint8): U8}[arr.dtype]
        if as_node is None:
            as_node = self.chance(0.3)
        k = self.uid()
        if as_node:
            name = f"/block{self.block}/Constant_{k}_output_0"
            attr_choice = self.rng.random()
            if arr.ndim == 0 and dt == F32 and self.opset >= 12 and attr_choice < 0.2:
                node = helper.make_node("Constant", [], [name], name=f"/block{self.block}/Constant_{k}", value_float=float(arr))
            elif arr.ndim == 1 and arr.size and dt == I64 and self.opset >= 12 and attr_choice < 0.3:
                node = helper.make_node("Constant", [], [name], name=f"/block{self.block}/Constant_{k}",
                                        value_ints=[int(x) for x in arr])
            else:
                node = helper.make_node("Constant", [], [name], name=f"/block{self.block}/Constant_{k}",
                                        value=numpy_helper.from_array(arr, name=""))
            g.nodes.append(node)
        else:
            name = self.pick([f"onnx::{hint}_{k}", f"model.layer{self.block}.{hint.lower()}_{k}", f"{hint}_{k}"])
            g.inits.append(numpy_helper.from_array(arr, name=name))
        mag = float(np.max(np.abs(arr))) if arr.size and dt in (F32, F64, F16) else 1.0
        v = V(name, dt, list(arr.shape), const=arr, mag=max(mag, 1e-3), exact=exact,
              pos=bool(arr.size and dt in (F32, F64) and np.all(arr > 0)))
        return self.register(g, v, usable)

    def ints(self, g, vals, hint="shape", as_node=None):
        return self.const(g, np.array(vals, dtype=np.int64), hint, as_node)

    def node(self, g, op, inputs, outs, domain=None, name=None, **attrs):
        """Emit a node. inputs: V or '' (absent optional); outs: list of V metadata (name filled)."""
        k = self.uid()
        in_names = []
        for v in inputs:
            if v is None or v == "":
                in_names.append("")
            else:
                v.uses += 1
                in_names.append(v.name)
        for o in outs:
            if o.name is None:
                o.name = self.vname(op)
        nd = helper.make_node(op, in_names, [o.name for o in outs], name=name or f"/block{self.block}/{op}_{k}",
                              domain=domain, **attrs)
        g.nodes.append(nd)
        g.specs.append((op, in_names, attrs, domain, outs))
        for o in outs:
            if o.name:
                self.register(g, o)
        return outs

    def out(self, dtype, shape, mag=1.0, exact=False, pos=False, irange=None):
        return V(None, dtype, shape, mag=mag, exact=exact, pos=pos, irange=irange)

    def rand_w(self, shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def floats(self, g, rank_min=0, rank_max=8, pred=None, recent=True):
        """A float value visible in g, preferring recent ones."""
        cands = [v for v in g.visible() if v.dtype == F32 and rank_min <= v.rank <= rank_max and v.const is None
                 and (pred is None or pred(v)) and not (v.nosub and v.scope is not g)]
        if not cands:
            return None
        if recent and self.chance(0.65):
            cands = cands[-4:]
        return self.pick(cands)

    # shape-tensor plumbing, the way exporters write it ------------------------------------
    def shape_of(self, g, x, start=None, end=None):
        attrs = {}
        dims = x.shape
        if (start is not None or end is not None) and self.opset >= 15 and self.chance(0.5):
            if start is not None:
                attrs["start"] = start
            if end is not None:
                attrs["end"] = end
            s = start or 0
            e = x.rank if end is None else end
            s, e = (s + x.rank if s < 0 else s), (e + x.rank if e < 0 else e)
            dims = x.shape[s:e]
            (v,) = self.node(g, "Shape", [x], [self.out(I64, [len(dims)], exact=True)], **attrs)
            v.const = None
            v.irange = ("shape", list(dims))
            return v
        (v,) = self.node(g, "Shape", [x], [self.out(I64, [x.rank], exact=True)])
        v.irange = ("shape", list(x.shape))
        if start is not None or end is not None:
            s = start or 0
            e = x.rank if end is None else end
            v = self.slice1d(g, v, s, e)
        return v

    def slice1d(self, g, v, s, e):
        dims = v.irange[1]
        r = len(dims)
        ss, ee = (s + r if s < 0 else s), (e + r if e < 0 else e)
        sub = dims[ss:ee]
        (o,) = self.node(g, "Slice", [v, self.ints(g, [s]), self.ints(g, [e if e != r else INT64_MAX]), self.ints(g, [0])],
                         [self.out(I64, [len(sub)], exact=True)])
        o.irange = ("shape", sub)
        return o

    def dim_of(self, g, x, axis, scalar=False):
        """Shape(x)[axis] as a 1-D [1] (or scalar) int64 tensor, exporter style."""
        shp = self.shape_of(g, x)
        if scalar or self.chance(0.6):
            idx = self.const(g, np.array(axis if self.chance(0.7) else axis - x.rank, dtype=np.int64), "Gather")
            (d,) = self.node(g, "Gather", [shp, idx], [self.out(I64, [], exact=True)], axis=0)
            d.irange = ("dim", x.shape[axis])
            if scalar:
                return d
            return self.unsqueeze(g, d, [0], tag=("shape", [x.shape[axis]]))
        return self.slice1d(g, shp, axis, axis + 1)

    def unsqueeze(self, g, x, axes, tag=None):
        r = x.rank + len(axes)
        norm = sorted(a + r if a < 0 else a for a in axes)
        shape = list(x.shape)
        for a in norm:
            shape.insert(a, 1)
        if self.opset >= 13:
            (o,) = self.node(g, "Unsqueeze", [x, self.ints(g, axes, "Unsqueeze")], [self.out(x.dtype, shape)])
        else:
            (o,) = self.node(g, "Unsqueeze", [x], [self.out(x.dtype, shape)], axes=list(axes))
        self.inherit(o, x)
        if tag is not None:
            o.irange = tag
        return o

    def inherit(self, o, x, exact=None):
        o.mag, o.pos = x.mag, x.pos
        o.exact = x.exact if exact is None else exact
        o.irange = x.irange

    def shape_tensor(self, g, x, target):
        """An int64 shape tensor for Reshape/Expand to `target` (dims of x or static), written as
        exporters do: dims read from Shape(x) concatenated with constants, or a constant with
        0/-1 when that is exact."""
        pieces = []
        src = {}
        for i, d in enumerate(x.shape):
            src.setdefault(d, i)
        if all(static(d) for d in target):
            return self.ints(g, target, "Reshape")
        for d in target:
            if static(d):
                pieces.append(("c", d))
            elif d in src:
                pieces.append(("x", src[d]))
            else:
                return None
        parts = []
        run = []
        for kind, val in pieces:
            if kind == "c":
                run.append(val)
            else:
                if run:
                    parts.append(self.ints(g, run, "Concat"))
                    run = []
                parts.append(self.dim_of(g, x, val))
        if run:
            parts.append(self.ints(g, run, "Concat"))
        if len(parts) == 1:
            return parts[0]
        (o,) = self.node(g, "Concat", parts, [self.out(I64, [len(target)], exact=True)], axis=0)
        return o


# ---------------------------------------------------------------------------------------------
# Op generators. Each takes (gen, graph) and returns True when it emitted something.

def unary(gen, g):
    x = gen.floats(g)
    if x is None:
        return False
    ops = ["Relu", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "HardSigmoid", "Abs", "Neg", "Erf", "Softsign", "Selu",
           "Clip", "Softplus", "Sqrt", "Exp", "Log", "Reciprocal", "Sin", "Cos", "PRelu", "Identity"]
    if gen.opset >= 12:
        ops.append("Celu")
    if gen.opset >= 14:
        ops.append("HardSwish")
    op = gen.pick(ops)
    attrs = {}
    inputs = [x]
    mag, pos, exact = x.mag, False, False
    if op in ("Sigmoid", "HardSigmoid"):
        mag, pos = 1.0, op == "Sigmoid"
    elif op in ("Tanh", "Erf", "Softsign", "Sin", "Cos"):
        mag = 1.0
    elif op in ("Relu", "Abs"):
        exact = x.exact
        pos = op == "Abs" and x.pos
    elif op == "Neg":
        exact = x.exact
    elif op == "Identity":
        exact, pos = x.exact, x.pos
    elif op == "LeakyRelu":
        attrs["alpha"] = float(gen.pick([0.01, 0.2, 0.5]))
    elif op == "Elu":
        attrs["alpha"] = float(gen.pick([1.0, 0.5]))
    elif op == "Selu":
        mag = x.mag * 1.76
    elif op == "Celu":
        attrs["alpha"] = float(gen.pick([1.0, 2.0]))
    elif op == "Softplus":
        mag, pos = x.mag + 1, True
    elif op == "Clip":
        lo, hi = sorted(gen.rng.uniform(-2, 2, 2).astype(np.float32))
        inputs = [x, gen.const(g, np.array(lo, np.float32), "Clip"),
                  gen.const(g, np.array(hi, np.float32), "Clip") if gen.chance(0.8) else ""]
        if gen.chance(0.2):
            inputs[1] = ""
        mag = max(abs(lo), abs(hi), 1e-3) if inputs[2] != "" else x.mag
    elif op == "PRelu":
        slope_shape = gen.pick([[1], [x.shape[-1]] if x.rank and static(x.shape[-1]) else [1]])
        if x.rank >= 3 and static(x.shape[1]) and gen.chance(0.5):
            slope_shape = [x.shape[1]] + [1] * (x.rank - 2)
        if x.rank == 0:
            slope_shape = []  # the slope broadcasts to x one way only: no [1] for a scalar
        inputs = [x, gen.const(g, gen.rng.uniform(0, 0.5, slope_shape).astype(np.float32), "PRelu")]
    elif op in ("Sqrt", "Log", "Reciprocal"):
        # Positive argument, bounded away from zero where it matters: f(|x| + 1) or f(sigmoid).
        if not x.pos or op != "Sqrt":
            (a,) = gen.node(g, "Abs", [x], [gen.out(F32, x.shape, mag=x.mag, exact=x.exact)])
            (x,) = gen.node(g, "Add", [a, gen.const(g, np.array(1.0, np.float32), "Add")],
                            [gen.out(F32, x.shape, mag=x.mag + 1, pos=True)])
        inputs = [x]
        mag = {"Sqrt": math.sqrt(x.mag), "Log": math.log(x.mag + 1) + 1, "Reciprocal": 1.0}[op]
        pos = op != "Log"
    elif op == "Exp":
        if x.mag > 4:
            (x,) = gen.node(g, "Tanh", [x], [gen.out(F32, x.shape)])
        inputs = [x]
        mag, pos = math.exp(x.mag), True
    gen.node(g, op, inputs, [gen.out(F32, x.shape, mag=mag, exact=exact, pos=pos)], **attrs)
    return True


def broadcast_shape_for(gen, x):
    """A shape that broadcasts with x's without growing it."""
    r = x.rank
    choice = gen.rng.random()
    if choice < 0.2 or r == 0:
        return []
    if choice < 0.35:
        return [1]
    k = int(gen.rng.integers(1, r + 1))
    sub = x.shape[r - k:]
    return [d if static(d) and gen.chance(0.7) else 1 for d in sub]


def binary(gen, g):
    x = gen.floats(g)
    if x is None:
        return False
    op = gen.pick(["Add", "Add", "Sub", "Mul", "Mul", "Div", "Max", "Min", "Pow", "Sum", "Mean"])
    y = None
    if gen.chance(0.5) and op not in ("Pow",):
        # another computed value that broadcasts with x without growing it beyond a join
        cands = [v for v in g.visible() if v.dtype == F32 and v is not x and v.const is None
                 and bcast(x.shape, v.shape) is not None and len(bcast(x.shape, v.shape)) <= 5]
        if cands:
            y = gen.pick(cands[-6:])
    if op == "Div":
        if y is None or gen.chance(0.5):
            c = gen.rng.uniform(0.5, 2.0, broadcast_shape_for(gen, x)) * gen.rng.choice([-1, 1])
            y = gen.const(g, c.astype(np.float32), "Div")
        else:
            (a,) = gen.node(g, "Abs", [y], [gen.out(F32, y.shape, mag=y.mag)])
            (y,) = gen.node(g, "Add", [a, gen.const(g, np.array(1.0, np.float32), "Add")],
                            [gen.out(F32, y.shape, mag=y.mag + 1, pos=True)])
            y.mag = 1.0  # as a divisor: |1/y| <= 1
    elif op == "Pow":
        e = float(gen.pick([2.0, 2.0, 3.0, 0.5, 1.0]))
        if e == 0.5 and not x.pos:
            (x,) = gen.node(g, "Abs", [x], [gen.out(F32, x.shape, mag=x.mag, exact=x.exact)])
        if e >= 2 and x.mag > 8:
            (x,) = gen.node(g, "Tanh", [x], [gen.out(F32, x.shape)])
        y = gen.const(g, np.array(e, np.float32) if gen.chance(0.7) else np.full([1], e, np.float32), "Pow")
        shape = bcast(x.shape, y.shape)
        gen.node(g, op, [x, y], [gen.out(F32, shape, mag=x.mag ** e + 1e-3, pos=e == 2.0 or x.pos)])
        return True
    elif y is None:
        y = gen.const(g, (gen.rng.standard_normal(broadcast_shape_for(gen, x)) * gen.pick([0.1, 1.0, 2.0])).astype(np.float32), op)
    shape = bcast(x.shape, y.shape)
    if shape is None:
        return False
    inputs = [x, y] if gen.chance(0.7) else [y, x]
    if op in ("Sum", "Mean") and gen.chance(0.4):
        z = gen.const(g, gen.rng.standard_normal(broadcast_shape_for(gen, x)).astype(np.float32), op)
        inputs.append(z)
        shape = bcast(shape, z.shape)
    mag = {"Add": x.mag + y.mag, "Sub": x.mag + y.mag, "Mul": x.mag * y.mag, "Div": x.mag * 2 / max(y.mag, 0.5) if y.const is not None else x.mag * 2,
           "Max": max(x.mag, y.mag), "Min": max(x.mag, y.mag), "Sum": sum(v.mag for v in inputs),
           "Mean": max(v.mag for v in inputs)}[op]
    if op == "Div" and y.const is not None:
        mag = x.mag * 2
    exact = op in ("Max", "Min") and x.exact and y.exact
    gen.node(g, op, inputs, [gen.out(F32, shape, mag=mag, exact=exact, pos=op == "Mul" and x.pos and y.pos)])
    return True


def matmul(gen, g):
    x = gen.floats(g, 1, 4, lambda v: static(v.shape[-1]) and v.shape[-1] <= 64)
    if x is None:
        return False
    k = x.shape[-1]
    if x.rank >= 3 and gen.chance(0.3) and static(x.shape[-2]) is not None:
        # attention-like: x @ x^T over the last two axes, scaled
        perm = list(range(x.rank))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        (t,) = gen.node(g, "Transpose", [x], [gen.out(F32, [x.shape[p] for p in perm], mag=x.mag, exact=x.exact)], perm=perm)
        shape = x.shape[:-1] + [x.shape[-2]]
        (s,) = gen.node(g, "MatMul", [x, t], [gen.out(F32, shape, mag=x.mag * x.mag * k)])
        c = gen.const(g, np.array(1.0 / math.sqrt(k) / max(x.mag, 1.0), np.float32), "Div")
        gen.node(g, "Mul", [s, c], [gen.out(F32, shape, mag=x.mag * math.sqrt(k) / max(x.mag, 1.0) + 1)])
        return True
    m = int(gen.rng.integers(1, 17))
    wshape = [k, m]
    if gen.chance(0.15) and x.rank >= 3 and static(x.shape[-3]):
        wshape = [x.shape[-3], k, m]  # batched weight broadcast over the leading axis
    w = gen.const(g, gen.rand_w(wshape, 1.0 / math.sqrt(k)), "MatMul")
    shape = x.shape[:-1] + [m]
    if len(wshape) == 3:
        shape = bcast(x.shape[:-2], wshape[:-2]) + [x.shape[-2], m]
    if x.rank == 1:
        shape = [m]
    gen.node(g, "MatMul", [x, w], [gen.out(F32, shape, mag=x.mag * 2)])
    return True


def gemm(gen, g):
    x = gen.floats(g, 2, 2, lambda v: static(v.shape[1]) or static(v.shape[0]))
    if x is None:
        return False
    trans_a = static(x.shape[0]) and (not static(x.shape[1]) or gen.chance(0.3))
    m_dim, k = (x.shape[1], x.shape[0]) if trans_a else (x.shape[0], x.shape[1])
    if not static(k) or k > 64:
        return False
    n = int(gen.rng.integers(1, 17))
    trans_b = gen.chance(0.5)
    b = gen.const(g, gen.rand_w([n, k] if trans_b else [k, n], 1.0 / math.sqrt(k)), "Gemm")
    inputs = [x, b]
    cshape = gen.pick([None, [n], [1, n], [], [m_dim, n] if static(m_dim) else [n], [m_dim, 1] if static(m_dim) else [1]])
    if cshape is not None:
        inputs.append(gen.const(g, gen.rand_w(cshape, 0.5), "Gemm"))
    attrs = {}
    if trans_a:
        attrs["transA"] = 1
    if trans_b:
        attrs["transB"] = 1
    if gen.chance(0.3):
        attrs["alpha"] = float(gen.pick([0.5, 2.0, 1.0]))
    if gen.chance(0.3) and cshape is not None:
        attrs["beta"] = float(gen.pick([0.5, 2.0, 1.0]))
    gen.node(g, "Gemm", inputs, [gen.out(F32, [m_dim, n], mag=x.mag * 4 + 2)], **attrs)
    return True


def conv(gen, g, transpose=None):
    x = gen.floats(g, 3, 4, lambda v: v.static() or all(static(d) for d in v.shape[1:]))
    if x is None or not static(x.shape[1]) or x.shape[1] > 32:
        return False
    c = x.shape[1]
    spatial = x.shape[2:]
    transpose = gen.chance(0.15) if transpose is None else transpose
    groups = [d for d in (1, 2, 3, 4, c) if c % d == 0]
    grp = int(gen.pick(groups)) if gen.chance(0.3) else 1
    m = grp * int(gen.rng.integers(1, 5))
    ks = [int(gen.rng.integers(1, min(3, s) + 1)) for s in spatial]
    strides = [int(gen.pick([1, 1, 2])) for _ in spatial]
    dil = [int(gen.pick([1, 1, 2])) if not transpose else 1 for _ in spatial]
    pads = [int(gen.rng.integers(0, k)) for k in ks] * 2 if gen.chance(0.6) else [0] * (2 * len(ks))
    out = []
    for i, s in enumerate(spatial):
        ek = (ks[i] - 1) * dil[i] + 1
        if transpose:
            o = (s - 1) * strides[i] + ek - pads[i] - pads[i + len(ks)]
        else:
            o = (s + pads[i] + pads[i + len(ks)] - ek) // strides[i] + 1
        if o < 1 or (not transpose and s + pads[i] + pads[i + len(ks)] < ek):
            return False
        out.append(o)
    fan_in = (c // grp) * math.prod(ks)
    attrs = {"kernel_shape": ks}
    if any(p for p in pads):
        attrs["pads"] = pads
    if strides != [1] * len(ks) or gen.chance(0.3):
        attrs["strides"] = strides
    if dil != [1] * len(ks):
        attrs["dilations"] = dil
    if grp != 1:
        attrs["group"] = grp
    if transpose:
        w = gen.const(g, gen.rand_w([c, m // grp] + ks, 1.0 / math.sqrt(fan_in)), "ConvTranspose")
        m_out = m
    else:
        w = gen.const(g, gen.rand_w([m, c // grp] + ks, 1.0 / math.sqrt(fan_in)), "Conv")
        m_out = m
    inputs = [x, w]
    if gen.chance(0.6):
        inputs.append(gen.const(g, gen.rand_w([m_out], 0.3), "bias"))
    gen.node(g, "ConvTranspose" if transpose else "Conv", inputs, [gen.out(F32, [x.shape[0], m_out] + out, mag=x.mag * 3 + 1)],
             **attrs)
    return True


def pool(gen, g):
    x = gen.floats(g, 3, 4, lambda v: all(static(d) for d in v.shape[1:]))
    if x is None:
        return False
    op = gen.pick(["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"])
    spatial = x.shape[2:]
    if op.startswith("Global"):
        gen.node(g, op, [x], [gen.out(F32, x.shape[:2] + [1] * len(spatial), mag=x.mag, exact=op == "GlobalMaxPool" and x.exact)])
        return True
    ks = [int(gen.rng.integers(1, min(3, s) + 1)) for s in spatial]
    strides = [int(gen.pick([1, 2])) for _ in spatial]
    pads = [int(gen.rng.integers(0, k)) for k in ks] * 2 if gen.chance(0.5) else [0] * (2 * len(ks))
    out = []
    for i, s in enumerate(spatial):
        o = (s + pads[i] + pads[i + len(ks)] - ks[i]) // strides[i] + 1
        if o < 1:
            return False
        out.append(o)
    attrs = {"kernel_shape": ks, "strides": strides}
    if any(pads):
        attrs["pads"] = pads
    if op == "AveragePool" and any(pads) and gen.chance(0.5):
        attrs["count_include_pad"] = 1
    gen.node(g, op, [x], [gen.out(F32, x.shape[:2] + out, mag=x.mag, exact=op == "MaxPool" and x.exact)], **attrs)
    return True


def softmax(gen, g):
    x = gen.floats(g, 1, 5)
    if x is None:
        return False
    op = gen.pick(["Softmax", "Softmax", "LogSoftmax"])
    axis = int(gen.rng.integers(-x.rank, x.rank))
    attrs = {}
    if gen.opset >= 13 or gen.chance(0.5):
        if axis != (-1 if gen.opset >= 13 else 1) or gen.chance(0.5):
            attrs["axis"] = axis
    else:
        attrs["axis"] = axis
    mag = 1.0 if op == "Softmax" else x.mag * 2 + math.log(max(2, 10))
    gen.node(g, op, [x], [gen.out(F32, x.shape, mag=mag, pos=op == "Softmax")], **attrs)
    return True


def layernorm(gen, g):
    x = gen.floats(g, 1, 4, lambda v: static(v.shape[-1]))
    if x is None:
        return False
    d = x.shape[-1]
    scale = gen.const(g, (1 + 0.2 * gen.rng.standard_normal([d])).astype(np.float32), "weight")
    bias = gen.const(g, (0.2 * gen.rng.standard_normal([d])).astype(np.float32), "bias")
    # (not BERT's 1e-12: a row of equal values, which Expand and Max make, then leaves rounding
    # noise over sqrt(eps), and ONNX Runtime and onnxtrim sum in different orders)
    eps = float(gen.pick([1e-5, 1e-6]))
    mag = 1.3 * math.sqrt(d) + 1
    # A residual-like bias that varies along the normalized axes first: normalizing rows of
    # (nearly) equal values, which Max with a constant or Expand make, amplifies rounding noise
    # to O(1), and two correct runtimes then disagree.
    jit = gen.rng.uniform(0.5, 1.5, x.shape[-2:] if x.rank >= 2 and static(x.shape[-2]) else [d]).astype(np.float32)
    jit *= np.where(np.arange(jit.size).reshape(jit.shape) % 2 == 0, 1, -1).astype(np.float32)
    (x,) = gen.node(g, "Add", [x, gen.const(g, jit, "bias")], [gen.out(F32, x.shape, mag=x.mag + 1.5)])
    if gen.opset >= 17 and gen.chance(0.6):
        axis = -1
        if x.rank >= 2 and static(x.shape[-2]) and gen.chance(0.2):
            axis = -2
            scale = gen.const(g, (1 + 0.2 * gen.rng.standard_normal(x.shape[-2:])).astype(np.float32), "weight")
            bias = ""
        attrs = {"epsilon": eps}
        if axis != -1 or gen.chance(0.5):
            attrs["axis"] = axis
        gen.node(g, "LayerNormalization", [x, scale, bias] if bias != "" else [x, scale], [gen.out(F32, x.shape, mag=mag)],
                 **attrs)
        return True
    # The decomposition that exporters of older opsets write.
    red = reduce_node(gen, g, "ReduceMean", x, [-1], True)
    (c,) = gen.node(g, "Sub", [x, red], [gen.out(F32, x.shape, mag=2 * x.mag)])
    two = gen.const(g, np.array(2.0, np.float32), "Pow")
    (sq,) = gen.node(g, "Pow", [c, two], [gen.out(F32, x.shape, mag=4 * x.mag * x.mag, pos=True)])
    var = reduce_node(gen, g, "ReduceMean", sq, [-1], True)
    (ve,) = gen.node(g, "Add", [var, gen.const(g, np.array(eps, np.float32), "Add")], [gen.out(F32, var.shape, pos=True)])
    (sd,) = gen.node(g, "Sqrt", [ve], [gen.out(F32, var.shape, pos=True)])
    (n,) = gen.node(g, "Div", [c, sd], [gen.out(F32, x.shape, mag=math.sqrt(d))])
    (s,) = gen.node(g, "Mul", [n, scale], [gen.out(F32, x.shape, mag=mag)])
    gen.node(g, "Add", [s, bias], [gen.out(F32, x.shape, mag=mag)])
    return True


REDUCE_AXES_INPUT_FROM = {"ReduceSum": 13}


def reduce_node(gen, g, op, x, axes, keepdims, noop=None, axes_const=True):
    """Emit a Reduce* in the form of the graph's opset: axes as attribute or as input."""
    rank = x.rank
    if axes is None:
        norm = [] if noop else list(range(rank))
    else:
        norm = sorted({a + rank if a < 0 else a for a in axes})
    if keepdims:
        shape = [1 if i in norm else d for i, d in enumerate(x.shape)]
    else:
        shape = [d for i, d in enumerate(x.shape) if i not in norm]
    count = dprod([x.shape[i] for i in norm]) if norm else 1
    cnt = deval(count, {s: 4 for s in gen.syms}) if not static(count) else count
    attrs = {}
    if not keepdims:
        attrs["keepdims"] = 0
    elif gen.chance(0.2):
        attrs["keepdims"] = 1
    inputs = [x]
    axes_input = gen.opset >= REDUCE_AXES_INPUT_FROM.get(op, 18)
    if axes is not None:
        if axes_input:
            inputs.append(gen.ints(g, axes, op))
        else:
            attrs["axes"] = list(axes)
    if noop is not None and axes_input:
        attrs["noop_with_empty_axes"] = int(noop)
    elif noop:
        raise AssertionError("noop_with_empty_axes needs axes as input")
    mag = {"ReduceSum": x.mag * cnt, "ReduceMean": x.mag, "ReduceMax": x.mag, "ReduceMin": x.mag,
           "ReduceProd": math.exp(min(60.0, cnt * math.log(max(x.mag, 1e-3)))), "ReduceL1": x.mag * cnt, "ReduceL2": x.mag * math.sqrt(cnt),
           "ReduceSumSquare": x.mag * x.mag * cnt, "ReduceLogSumExp": x.mag + math.log(cnt + 1),
           "ReduceLogSum": math.log(x.mag * cnt + 1) + 3}[op]
    if noop and axes is None:
        mag = {"ReduceSumSquare": x.mag * x.mag, "ReduceLogSum": math.log(x.mag + 1) + 3}.get(op, x.mag)
    exact = op in ("ReduceMax", "ReduceMin") and x.exact
    (o,) = gen.node(g, op, inputs, [gen.out(F32, shape, mag=mag, exact=exact,
                                            pos=op in ("ReduceL1", "ReduceL2", "ReduceSumSquare") or (x.pos and op != "ReduceLogSum"))],
                    **attrs)
    return o


def reduce(gen, g):
    x = gen.floats(g, 1, 5)
    if x is None:
        return False
    ops = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
           "ReduceSumSquare", "ReduceLogSumExp", "ReduceLogSum"]
    op = gen.pick(ops)
    if op == "ReduceLogSum" and not x.pos:
        (a,) = gen.node(g, "Abs", [x], [gen.out(F32, x.shape, mag=x.mag)])
        (x,) = gen.node(g, "Add", [a, gen.const(g, np.array(0.5, np.float32), "Add")],
                        [gen.out(F32, x.shape, mag=x.mag + 0.5, pos=True)])
    if op in ("ReduceLogSumExp", "ReduceSumSquare") and x.mag > 10:
        (x,) = gen.node(g, "Tanh", [x], [gen.out(F32, x.shape)])
    axes_input = gen.opset >= REDUCE_AXES_INPUT_FROM.get(op, 18)
    noop = None
    if axes_input and gen.chance(0.2):
        # no axes: all of them, or (noop_with_empty_axes=1) none: the op's element-wise step only
        axes = None
        noop = gen.chance(0.6)
        if noop:
            gen.notes.add("F1" if op in ("ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum") else "noop_axes")
    elif gen.chance(0.15):
        axes = None
    else:
        k = int(gen.rng.integers(1, x.rank + 1))
        axes = sorted(gen.rng.choice(x.rank, size=k, replace=False).tolist())
        axes = [a - x.rank if gen.chance(0.3) else a for a in axes]
        gen.rng.shuffle(axes)
    if op == "ReduceProd":
        norm = range(x.rank) if axes is None else axes
        cnt = 1
        for a in norm:
            d = x.shape[a]
            cnt *= d if static(d) else 6
        if cnt * math.log(max(x.mag, 1e-3)) > math.log(1e4):
            (x,) = gen.node(g, "Tanh", [x], [gen.out(F32, x.shape)])
            if cnt > 40:
                return False
    keep = gen.chance(0.5)
    if not keep and axes is None and noop:
        keep = True
    reduce_node(gen, g, op, x, axes, keep, noop=noop)
    return True


def argmax(gen, g):
    x = gen.floats(g, 1, 4, lambda v: v.exact)
    if x is None:
        return False
    axis = int(gen.rng.integers(-x.rank, x.rank))
    keep = gen.chance(0.5)
    shape = [1 if i == axis % x.rank else d for i, d in enumerate(x.shape)] if keep else \
        [d for i, d in enumerate(x.shape) if i != axis % x.rank]
    attrs = {"axis": axis, "keepdims": int(keep)}
    if gen.opset >= 12 and gen.chance(0.3):
        attrs["select_last_index"] = 1
    (a,) = gen.node(g, gen.pick(["ArgMax", "ArgMin"]), [x], [gen.out(I64, shape, exact=True)], **attrs)
    gen.node(g, "Cast", [a], [gen.out(F32, shape, mag=30, exact=True)], to=F32)
    return True


def batchnorm(gen, g):
    x = gen.floats(g, 2, 5, lambda v: static(v.shape[1]))
    if x is None:
        return False
    c = x.shape[1]
    scale = gen.const(g, (1 + 0.3 * gen.rng.standard_normal([c])).astype(np.float32), "weight")
    bias = gen.const(g, (0.3 * gen.rng.standard_normal([c])).astype(np.float32), "bias")
    mean = gen.const(g, (0.3 * gen.rng.standard_normal([c])).astype(np.float32), "running_mean")
    var = gen.const(g, gen.rng.uniform(0.5, 2.0, [c]).astype(np.float32), "running_var")
    attrs = {}
    if gen.chance(0.3):
        attrs["epsilon"] = float(gen.pick([1e-5, 1e-3]))
    if gen.opset >= 14 and gen.chance(0.08):
        # training mode: three outputs, the statistics unused (F2)
        attrs["training_mode"] = 1
        if gen.chance(0.5):
            attrs["momentum"] = 0.9
        gen.notes.add("F2")
        y, rm, rv = gen.node(g, "BatchNormalization", [x, scale, bias, mean, var],
                             [gen.out(F32, x.shape, mag=x.mag * 3 + 3), gen.out(F32, [c]), gen.out(F32, [c])], **attrs)
        g.pool.remove(rm)
        g.pool.remove(rv)
        return True
    if gen.opset >= 14 and gen.chance(0.2):
        attrs["training_mode"] = 0
    gen.node(g, "BatchNormalization", [x, scale, bias, mean, var], [gen.out(F32, x.shape, mag=x.mag * 3 + 1)], **attrs)
    return True


def pad(gen, g):
    x = gen.floats(g, 1, 5)
    if x is None:
        return False
    r = x.rank
    modes = ["constant", "constant", "reflect", "edge"]
    if gen.opset >= 19:
        modes.append("wrap")
    mode = gen.pick(modes)
    use_axes = gen.opset >= 18 and gen.chance(0.3)
    axes = sorted(gen.rng.choice(r, size=int(gen.rng.integers(1, r + 1)), replace=False).tolist()) if use_axes else list(range(r))
    begins, ends = [], []
    for a in axes:
        d = x.shape[a]
        lo, hi = 0, 2
        if mode in ("reflect", "wrap") and not static(d):
            lo, hi = 0, 0
        elif mode == "reflect":
            hi = min(2, d - 1)
        elif mode == "wrap":
            hi = min(2, d)
        b = int(gen.rng.integers(lo, hi + 1)) if hi > lo else lo
        e = int(gen.rng.integers(lo, hi + 1)) if hi > lo else lo
        # negative pads crop (constant mode, or wrap: F6)
        if static(d) and d >= 3 and gen.chance(0.2) and mode in ("constant", "wrap", "edge", "reflect"):
            if gen.chance(0.5):
                b = -1
            else:
                e = -1
            if mode == "wrap":
                gen.notes.add("F6")
        if mode == "reflect" and static(d) and (b < 0 or e < 0):
            # cropping and reflecting need the cropped axis to stay longer than the reflection
            if d + min(b, 0) + min(e, 0) - 1 < max(b, e, 0):
                b, e = max(b, 0), max(e, 0)
        begins.append(b)
        ends.append(e)
    shape = list(x.shape)
    for a, b, e in zip(axes, begins, ends):
        shape[a] = dadd(shape[a], b + e)
        if static(shape[a]) and shape[a] < 1:
            return False
    inputs = [x, gen.ints(g, begins + ends, "Pad")]
    if mode == "constant" and gen.chance(0.5):
        inputs.append(gen.const(g, np.array(gen.pick([0.0, 0.5, -1.0]), np.float32), "Pad"))
    if use_axes:
        if len(inputs) == 2:
            inputs.append("")
        ax = [a - r if gen.chance(0.3) else a for a in axes]
        inputs.append(gen.ints(g, ax, "Pad"))
    attrs = {} if mode == "constant" and gen.chance(0.5) else {"mode": mode}
    cval = inputs[2].const if len(inputs) > 2 and inputs[2] != "" else 0
    gen.node(g, "Pad", inputs, [gen.out(F32, shape, mag=max(x.mag, abs(float(cval))), exact=x.exact)], **attrs)
    return True


def transpose(gen, g):
    x = gen.floats(g, 2, 6)
    if x is None:
        return False
    perm = gen.rng.permutation(x.rank).tolist()
    attrs = {"perm": perm}
    if perm == list(range(x.rank))[::-1] and gen.chance(0.5):
        attrs = {}
    (t,) = gen.node(g, "Transpose", [x], [gen.out(F32, [x.shape[p] for p in perm], exact=x.exact)], **attrs)
    gen.inherit(t, x)
    if gen.chance(0.35):
        # a second Transpose: back to the original order (an identity pair) or elsewhere
        perm2 = np.argsort(perm).tolist() if gen.chance(0.6) else gen.rng.permutation(x.rank).tolist()
        (t2,) = gen.node(g, "Transpose", [t], [gen.out(F32, [t.shape[p] for p in perm2])], perm=perm2)
        gen.inherit(t2, x)
    return True


def factor_split(gen, d):
    """Split a static dim into two factors (a, d/a), a > 1 where possible."""
    divs = [a for a in range(2, d) if d % a == 0]
    if not divs:
        return None
    a = int(gen.pick(divs))
    return [a, d // a]


def reshape(gen, g):
    x = gen.floats(g, 1, 5)
    if x is None:
        return False
    choice = gen.rng.random()
    shape = list(x.shape)
    # Candidate target: merge two neighbouring axes, split a static axis, or flatten a tail.
    if choice < 0.3 and x.rank >= 2:
        i = int(gen.rng.integers(0, x.rank - 1))
        target = shape[:i] + [dmul(shape[i], shape[i + 1])] + shape[i + 2:]
    elif choice < 0.6:
        idx = [i for i, d in enumerate(shape) if static(d) and factor_split(gen, d)]
        if not idx:
            return no_op_reshape(gen, g, x)
        i = int(gen.pick(idx))
        target = shape[:i] + factor_split(gen, shape[i]) + shape[i + 1:]
    elif choice < 0.8 and x.rank >= 2:
        i = int(gen.rng.integers(1, x.rank))
        target = shape[:i] + [dprod(shape[i:])]
    else:
        return no_op_reshape(gen, g, x)
    if len(target) > 6:
        return False
    # Spell the target: a static constant, exporter plumbing (Shape->Gather->Unsqueeze->Concat),
    # or a constant with 0 (copy) and -1 (infer) entries.
    spec = None
    style = gen.rng.random()
    if all(static(d) for d in target) and style < 0.5:
        vals = list(target)
        if gen.chance(0.4):
            vals[int(gen.rng.integers(len(vals)))] = -1
        spec = gen.ints(g, vals, "Reshape")
    elif style < 0.8:
        vals = []
        minus = False
        ok = True
        for i, d in enumerate(target):
            if i < x.rank and d == x.shape[i] and (not static(d) or gen.chance(0.4)):
                vals.append(0)
            elif static(d):
                vals.append(d)
            elif not minus:
                vals.append(-1)
                minus = True
            else:
                ok = False
        if ok:
            spec = gen.ints(g, vals, "Reshape")
    if spec is None:
        # exporter plumbing: known dims read from Shape(x), the rest -1 or constants
        parts, minus = [], False
        src = {d: i for i, d in reversed(list(enumerate(x.shape)))}
        for d in target:
            if not static(d) and d in src:
                parts.append(("x", src[d]))
            elif static(d) and gen.chance(0.8):
                parts.append(("c", d))
            elif not minus:
                parts.append(("c", -1))
                minus = True
            else:
                return False
        tensors, run = [], []
        for kind, val in parts:
            if kind == "c":
                run.append(val)
            else:
                if run:
                    tensors.append(gen.ints(g, run, "Concat"))
                    run = []
                tensors.append(gen.dim_of(g, x, val))
        if run:
            tensors.append(gen.ints(g, run, "Concat"))
        if len(tensors) == 1:
            spec = tensors[0]
        else:
            (spec,) = gen.node(g, "Concat", tensors, [gen.out(I64, [len(target)], exact=True)], axis=0)
    (o,) = gen.node(g, "Reshape", [x, spec], [gen.out(F32, target)])
    gen.inherit(o, x)
    return True


def no_op_reshape(gen, g, x):
    style = gen.rng.random()
    if style < 0.5:
        spec = gen.shape_of(g, x)
    elif x.static():
        spec = gen.ints(g, list(x.shape), "Reshape")
    else:
        spec = gen.ints(g, [0] * x.rank, "Reshape")
    (o,) = gen.node(g, "Reshape", [x, spec], [gen.out(F32, x.shape)])
    gen.inherit(o, x)
    return True


def flatten(gen, g):
    x = gen.floats(g, 1, 5)
    if x is None:
        return False
    axis = int(gen.rng.integers(-x.rank, x.rank + 1))
    a = axis + x.rank if axis < 0 else axis
    (o,) = gen.node(g, "Flatten", [x], [gen.out(F32, [dprod(x.shape[:a]), dprod(x.shape[a:])])],
                    **({} if axis == 1 and gen.chance(0.5) else {"axis": axis}))
    gen.inherit(o, x)
    return True


def squeeze_unsqueeze(gen, g):
    x = gen.floats(g, 0, 5)
    if x is None:
        return False
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    if ones and gen.chance(0.5):
        k = int(gen.rng.integers(1, len(ones) + 1))
        axes = sorted(gen.rng.choice(ones, size=k, replace=False).tolist())
        shape = [d for i, d in enumerate(x.shape) if i not in axes]
        no_axes = x.static() and len(axes) == len(ones) and gen.chance(0.3)
        axes_spec = [a - x.rank if gen.chance(0.3) else a for a in axes]
        if no_axes:
            (o,) = gen.node(g, "Squeeze", [x], [gen.out(F32, shape)])
        elif gen.opset >= 13:
            (o,) = gen.node(g, "Squeeze", [x, gen.ints(g, axes_spec, "Squeeze")], [gen.out(F32, shape)])
        else:
            (o,) = gen.node(g, "Squeeze", [x], [gen.out(F32, shape)], axes=axes_spec)
        gen.inherit(o, x)
        return True
    if x.rank >= 5:
        return False
    k = int(gen.rng.integers(1, min(2, 6 - x.rank) + 1))
    r = x.rank + k
    axes = sorted(gen.rng.choice(r, size=k, replace=False).tolist())
    axes = [a - r if gen.chance(0.3) else a for a in axes]
    o = gen.unsqueeze(g, x, axes)
    if gen.chance(0.3):
        # and straight back (a pair that cancels)
        norm = sorted(a + r if a < 0 else a for a in axes)
        if gen.opset >= 13:
            (o2,) = gen.node(g, "Squeeze", [o, gen.ints(g, norm, "Squeeze")], [gen.out(F32, x.shape)])
        else:
            (o2,) = gen.node(g, "Squeeze", [o], [gen.out(F32, x.shape)], axes=norm)
        gen.inherit(o2, x)
    return True


def concat(gen, g):
    x = gen.floats(g, 1, 5)
    if x is None:
        return False
    axis = int(gen.rng.integers(0, x.rank))
    same = [v for v in g.visible() if v.dtype == F32 and v.rank == x.rank and v.const is None
            and all(v.shape[i] == x.shape[i] for i in range(x.rank) if i != axis)]
    parts = [x]
    for _ in range(int(gen.rng.integers(1, 3))):
        parts.append(gen.pick(same[-5:]))
    if all(static(d) for i, d in enumerate(x.shape) if i != axis) and gen.chance(0.3):
        cshape = list(x.shape)
        cshape[axis] = int(gen.rng.integers(1, 3))
        parts.insert(int(gen.rng.integers(len(parts) + 1)), gen.const(g, gen.rand_w(cshape, 0.5), "Concat"))
    shape = list(x.shape)
    total = 0
    for p in parts:
        total = dadd(total, p.shape[axis])
    shape[axis] = total
    spec = axis - x.rank if gen.chance(0.3) else axis
    (o,) = gen.node(g, "Concat", parts, [gen.out(F32, shape, mag=max(p.mag for p in parts),
                                                 exact=all(p.exact for p in parts))], axis=spec)
    return True


def split(gen, g):
    x = gen.floats(g, 1, 5, lambda v: any(static(d) and d >= 2 for d in v.shape))
    if x is None:
        return False
    axes = [i for i, d in enumerate(x.shape) if static(d) and d >= 2]
    axis = int(gen.pick(axes))
    d = x.shape[axis]
    n = int(gen.rng.integers(2, min(d, 4) + 1))
    inputs = [x]
    attrs = {"axis": axis - x.rank if gen.chance(0.3) else axis}
    if attrs["axis"] == 0 and gen.chance(0.5):
        del attrs["axis"]
    style = gen.rng.random()
    if gen.opset >= 18 and style < 0.3:
        attrs["num_outputs"] = n
        q = -(-d // n)
        sizes = [q] * (d // q) + ([d - q * (d // q)] if d % q else [])
        if len(sizes) != n:
            return False
    elif style < 0.5 and d % n == 0 and gen.opset < 18:
        sizes = [d // n] * n  # no split sizes: equal parts (opset 18 wants num_outputs then)
    else:
        cuts = sorted(gen.rng.choice(range(1, d), size=n - 1, replace=False).tolist())
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [d])]
        if gen.opset >= 13:
            inputs.append(gen.ints(g, sizes, "Split"))
        else:
            attrs["split"] = sizes
    outs = []
    for s in sizes:
        shape = list(x.shape)
        shape[axis] = s
        outs.append(gen.out(F32, shape, mag=x.mag, exact=x.exact))
    res = gen.node(g, "Split", inputs, outs, **attrs)
    for o in res:
        o.pos = x.pos
    if gen.chance(0.3) and len(res) >= 2:
        # and back together (Concat of every piece in order)
        (c,) = gen.node(g, "Concat", res, [gen.out(F32, x.shape, mag=x.mag, exact=x.exact)], axis=axis)
    return True


def slice_len(d, s, e, st):
    """Elements that ONNX Slice keeps of an axis of length d (the spec's clamping rules)."""
    s = s + d if s < 0 else s
    e = e + d if e < 0 else e
    if st > 0:
        s, e = min(max(s, 0), d), min(max(e, 0), d)
    else:
        s, e = min(max(s, 0), d - 1), min(max(e, -1), d - 1)
    return max(0, -(-(e - s) // st))


def slice_(gen, g):
    x = gen.floats(g, 1, 5)
    if x is None:
        return False
    k = int(gen.rng.integers(1, x.rank + 1))
    axes = gen.rng.choice(x.rank, size=k, replace=False).tolist()
    starts, ends, steps, shape = [], [], [], list(x.shape)
    big = [INT64_MAX, 2 ** 31 - 1, 1000, -(2 ** 63), -1000]
    for a in axes:
        d = x.shape[a]
        if not static(d):
            # only what is exact for every length: the whole axis, forward or reversed
            if gen.chance(0.5):
                s, e, st = 0, gen.pick([INT64_MAX, 2 ** 31 - 1]), 1
            else:
                s, e, st = -1, gen.pick([-(2 ** 63), -INT64_MAX, -1000000]), -1
            starts.append(s)
            ends.append(e)
            steps.append(st)
            continue
        for _ in range(20):
            st = int(gen.pick([1, 1, 1, 2, -1, -2, 3]))
            s = int(gen.rng.integers(-d - 2, d + 2))
            e = int(gen.rng.integers(-d - 2, d + 2))
            if gen.chance(0.2):
                e = int(gen.pick(big)) if st > 0 else int(gen.pick([-(2 ** 63), -1000, -d - 1]))
            if gen.chance(0.1):
                s = int(gen.pick([-1000, 1000]))
            n = slice_len(d, s, e, st)
            if n >= 1:
                break
        else:
            return False
        shape[a] = n
        starts.append(s)
        ends.append(e)
        steps.append(st)
    inputs = [x, gen.ints(g, starts, "Slice"), gen.ints(g, ends, "Slice")]
    use_axes = gen.chance(0.7) or axes != list(range(k))
    with_steps = any(st != 1 for st in steps) or gen.chance(0.3)
    if use_axes or with_steps:
        inputs.append(gen.ints(g, [a - x.rank if gen.chance(0.3) else a for a in axes], "Slice") if use_axes else
                      gen.ints(g, list(range(k)), "Slice"))
    if with_steps:
        inputs.append(gen.ints(g, steps, "Slice"))
    (o,) = gen.node(g, "Slice", inputs, [gen.out(F32, shape)])
    gen.inherit(o, x)
    if gen.chance(0.25):
        # a second Slice of the first (consecutive slices)
        b = [i for i, dd in enumerate(shape) if static(dd) and dd >= 2]
        if b:
            a = int(gen.pick(b))
            dd = shape[a]
            s = int(gen.rng.integers(0, dd))
            e = int(gen.rng.integers(s + 1, dd + 1))
            sh2 = list(shape)
            sh2[a] = e - s
            (o2,) = gen.node(g, "Slice", [o, gen.ints(g, [s], "Slice"), gen.ints(g, [e], "Slice"), gen.ints(g, [a], "Slice")],
                             [gen.out(F32, sh2)])
            gen.inherit(o2, x)
    return True


def slices_concat(gen, g):
    """Slices that cover an axis in order, concatenated back (or almost)."""
    x = gen.floats(g, 1, 5, lambda v: any(static(d) and d >= 2 for d in v.shape))
    if x is None:
        return False
    axes = [i for i, d in enumerate(x.shape) if static(d) and d >= 2]
    a = int(gen.pick(axes))
    d = x.shape[a]
    cut = int(gen.rng.integers(1, d))
    pieces = []
    bounds = [(0, cut), (cut, gen.pick([d, INT64_MAX, -1 if gen.chance(0.2) else d]))]
    for s, e in bounds:
        n = slice_len(d, s, e if e != INT64_MAX else d, 1)
        if n == 0:  # (cut, -1) with cut = d - 1: an empty piece, which the ops after it do not expect
            e = d
            n = slice_len(d, s, e, 1)
        sh = list(x.shape)
        sh[a] = n
        (p,) = gen.node(g, "Slice", [x, gen.ints(g, [s], "Slice"), gen.ints(g, [e], "Slice"),
                                     gen.ints(g, [a if gen.chance(0.7) else a - x.rank], "Slice")], [gen.out(F32, sh)])
        gen.inherit(p, x)
        pieces.append(p)
    if gen.chance(0.2):
        pieces.reverse()
    sh = list(x.shape)
    sh[a] = sum(p.shape[a] for p in pieces)
    (c,) = gen.node(g, "Concat", pieces, [gen.out(F32, sh)], axis=a)
    gen.inherit(c, x)
    return True


def gather(gen, g):
    x = gen.floats(g, 1, 4)
    if x is None:
        return False
    axis = int(gen.rng.integers(0, x.rank))
    d = x.shape[axis]
    if static(d):
        kind = gen.rng.random()
        if kind < 0.3:
            idx = np.array(int(gen.rng.integers(-d, d)), np.int64)
        elif kind < 0.8:
            idx = gen.rng.integers(-d, d, int(gen.rng.integers(1, 5))).astype(np.int64)
        else:
            idx = gen.rng.integers(-d, d, [2, 2]).astype(np.int64)
    else:
        idx = np.array(gen.pick([0, -1]), np.int64) if gen.chance(0.5) else np.array([0, -1, 0], np.int64)
    ind = gen.const(g, idx, "Gather")
    shape = x.shape[:axis] + list(idx.shape) + x.shape[axis + 1:]
    if len(shape) > 6:
        return False
    (o,) = gen.node(g, "Gather", [x, ind], [gen.out(F32, shape)],
                    **({"axis": axis - x.rank if gen.chance(0.3) else axis} if axis or gen.chance(0.5) else {}))
    gen.inherit(o, x)
    return True


def expand(gen, g):
    x = gen.floats(g, 0, 4)
    if x is None:
        return False
    style = gen.rng.random()
    if style < 0.25:
        # no-op Expand: to its own shape, or to ones
        spec = gen.shape_of(g, x) if gen.chance(0.5) else gen.ints(g, [1] * int(gen.rng.integers(0, x.rank + 1)), "Expand")
        (o,) = gen.node(g, "Expand", [x, spec], [gen.out(F32, x.shape)])
        gen.inherit(o, x)
        return True
    if style < 0.5:
        # to another value's shape (broadcast): Expand(x, Shape(y))
        cands = [v for v in g.visible() if v.const is None and v.dtype == F32 and bcast(x.shape, v.shape) == list(v.shape)
                 and v is not x and v.rank <= 5]
        if cands:
            y = gen.pick(cands[-5:])
            (o,) = gen.node(g, "Expand", [x, gen.shape_of(g, y)], [gen.out(F32, y.shape)])
            gen.inherit(o, x)
            return True
    # grow ones into static sizes and maybe prepend an axis
    target = [int(gen.rng.integers(2, 4)) if d == 1 and gen.chance(0.6) else (1 if static(d) and gen.chance(0.2) else d)
              for d in x.shape]
    if gen.chance(0.3) and x.rank < 4:
        target = [int(gen.rng.integers(1, 3))] + target
    spec_vals = [1 if (i >= len(target) - x.rank and target[i] == x.shape[i - len(target) + x.rank]) and gen.chance(0.5)
                 else target[i] for i in range(len(target))]
    if any(not static(v) for v in spec_vals):
        spec = gen.shape_tensor(g, x, [d if static(d) else d for d in spec_vals])
        if spec is None:
            return False
    else:
        spec = gen.ints(g, spec_vals, "Expand")
    out = bcast(x.shape, spec_vals)
    if out is None or len(out) > 6:
        return False
    (o,) = gen.node(g, "Expand", [x, spec], [gen.out(F32, out)])
    gen.inherit(o, x)
    return True


def tile(gen, g):
    x = gen.floats(g, 1, 4)
    if x is None:
        return False
    reps = [int(gen.pick([1, 1, 2, 3])) for _ in range(x.rank)]
    shape = [dmul(d, r) for d, r in zip(x.shape, reps)]
    (o,) = gen.node(g, "Tile", [x, gen.ints(g, reps, "Tile")], [gen.out(F32, shape)])
    gen.inherit(o, x)
    return True


def compare(gen, g):
    """A comparison of an exact value (bit-identical after any correct simplification) -> bool."""
    x = gen.floats(g, 0, 5, lambda v: v.exact)
    if x is None:
        return None
    ops = ["Greater", "Less", "Equal"]
    if gen.opset >= 12:
        ops += ["GreaterOrEqual", "LessOrEqual"]
    op = gen.pick(ops)
    if op == "Equal":
        th = gen.const(g, np.array(0.0, np.float32), "Equal")
    else:
        th = gen.const(g, gen.rng.uniform(-0.5, 0.5, broadcast_shape_for(gen, x)).astype(np.float32), op)
    (b,) = gen.node(g, op, [x, th], [gen.out(BOOL, bcast(x.shape, th.shape), exact=True)])
    if gen.chance(0.3):
        (b,) = gen.node(g, "Not", [b], [gen.out(BOOL, b.shape, exact=True)])
    return b


def where(gen, g):
    b = compare(gen, g)
    if b is None:
        return False
    x = gen.floats(g, 0, 5, lambda v: bcast(v.shape, b.shape) is not None)
    if x is None:
        return False
    y_src = gen.rng.random()
    if y_src < 0.5:
        y = gen.const(g, np.array(gen.pick([0.0, -1e4, 1.0]), np.float32), "Where")
    else:
        y = gen.floats(g, 0, 5, lambda v: bcast(v.shape, bcast(x.shape, b.shape)) is not None) or x
    shape = bcast(bcast(b.shape, x.shape), y.shape)
    if shape is None or len(shape) > 6:
        return False
    (o,) = gen.node(g, "Where", [b, x, y], [gen.out(F32, shape, mag=max(x.mag, y.mag), exact=x.exact and y.exact)])
    return True


def bool_to_float(gen, g):
    b = compare(gen, g)
    if b is None:
        return False
    if gen.chance(0.3):
        c = compare(gen, g)
        if c is not None and bcast(b.shape, c.shape) is not None:
            (b,) = gen.node(g, gen.pick(["And", "Or", "Xor"]), [b, c], [gen.out(BOOL, bcast(b.shape, c.shape), exact=True)])
    gen.node(g, "Cast", [b], [gen.out(F32, b.shape, exact=True, pos=False)], to=F32)
    return True


def cast(gen, g):
    x = gen.floats(g, 0, 5)
    if x is None:
        return False
    style = gen.rng.random()
    if style < 0.3:
        (o,) = gen.node(g, "Cast", [x], [gen.out(F32, x.shape)], to=F32)  # no-op
        gen.inherit(o, x)
    elif style < 0.7 or not x.exact:
        # through double and back (exact both ways for floats)
        (d,) = gen.node(g, "Cast", [x], [gen.out(F64, x.shape)], to=F64)
        if gen.chance(0.5):
            c = gen.const(g, np.array(gen.pick([0.0, 1.0]), np.float64), "Add")
            (d,) = gen.node(g, gen.pick(["Add", "Mul"]) if c.const == 1.0 else "Add", [d, c], [gen.out(F64, x.shape)])
        (o,) = gen.node(g, "Cast", [d], [gen.out(F32, x.shape)], to=F32)
        gen.inherit(o, x, exact=False)
        o.nosub = True
    else:
        # through float16 (rounds: only on exact values) or through int64 of a 0/1 mask
        (h,) = gen.node(g, "Cast", [x], [gen.out(F16, x.shape)], to=F16)
        (o,) = gen.node(g, "Cast", [h], [gen.out(F32, x.shape)], to=F32)
        gen.inherit(o, x, exact=True)
        o.nosub = True
    return True


def range_(gen, g):
    """Positions: Range(0, Shape(x)[axis], 1) -> Cast -> broadcast onto x (exporter style), or a
    constant Range with a negative step."""
    x = gen.floats(g, 1, 4)
    if x is None:
        return False
    axis = int(gen.rng.integers(0, x.rank))
    if gen.chance(0.7):
        n = gen.dim_of(g, x, axis, scalar=True)
        start = gen.const(g, np.array(0, np.int64), "Range")
        step = gen.const(g, np.array(1, np.int64), "Range")
        (r,) = gen.node(g, "Range", [start, n, step], [gen.out(I64, [x.shape[axis]], exact=True)])
        (f,) = gen.node(g, "Cast", [r], [gen.out(F32, [x.shape[axis]], exact=True)], to=F32)
        scale = gen.const(g, np.array(0.1, np.float32), "Mul")
        (f,) = gen.node(g, "Mul", [f, scale], [gen.out(F32, f.shape)])
    else:
        d = x.shape[axis]
        if not static(d):
            return False
        start = float(gen.rng.integers(-3, 3))
        delta = float(gen.pick([0.5, -0.5, 0.25, -1.0]))
        limit = start + delta * d - delta / 2  # exactly d elements
        cs = [gen.const(g, np.array(v, np.float32), "Range") for v in (start, limit, delta)]
        (f,) = gen.node(g, "Range", cs, [gen.out(F32, [d])])
    # to x's rank with the values along `axis`
    tail = x.rank - 1 - axis
    if tail:
        f = gen.unsqueeze(g, f, list(range(1, tail + 1)))
    shape = bcast(x.shape, f.shape)
    gen.node(g, "Add", [x, f], [gen.out(F32, shape, mag=x.mag + 3)])
    return True


def constant_of_shape(gen, g):
    x = gen.floats(g, 0, 5)
    if x is None:
        return False
    val = float(gen.pick([0.0, 1.0, 0.5, -2.0]))
    attrs = {} if val == 0.0 and gen.chance(0.5) else {"value": numpy_helper.from_array(np.array([val], np.float32), "")}
    spec = gen.shape_of(g, x) if gen.chance(0.7) or not x.static() else gen.ints(g, list(x.shape), "ConstantOfShape")
    (c,) = gen.node(g, "ConstantOfShape", [spec], [gen.out(F32, x.shape, mag=abs(val) + 1e-3, exact=True)], **attrs)
    gen.node(g, gen.pick(["Add", "Mul", "Sub"]), [x, c], [gen.out(F32, x.shape, mag=x.mag * 2 + 2)])
    return True


def dropout(gen, g):
    x = gen.floats(g, 0, 5)
    if x is None:
        return False
    want_mask = gen.chance(0.3)
    outs = [gen.out(F32, x.shape)]
    if want_mask:
        outs.append(gen.out(BOOL, x.shape, exact=True))
    if gen.opset >= 12:
        inputs = [x]
        if gen.chance(0.6):
            inputs.append(gen.const(g, np.array(gen.pick([0.1, 0.5]), np.float32), "Dropout"))
            if gen.chance(0.5):
                inputs.append(gen.const(g, np.array(False), "Dropout"))
        res = gen.node(g, "Dropout", inputs, outs)
    else:
        res = gen.node(g, "Dropout", [x], outs, **({"ratio": 0.1} if gen.chance(0.5) else {}))
    gen.inherit(res[0], x)
    if want_mask:
        g.pool.remove(res[1])
        # Read the mask from opset 12 on only: Dropout-10 leaves an inference mask unspecified;
        # the reference implementation gives ones, ONNX Runtime zeros.
        if gen.opset >= 12 and gen.chance(0.5):
            (m,) = gen.node(g, "Cast", [res[1]], [gen.out(F32, x.shape, exact=True)], to=F32)
            gen.node(g, "Mul", [res[0], m], [gen.out(F32, x.shape, mag=x.mag, exact=x.exact)])
    return True


def resize(gen, g):
    x = gen.floats(g, 4, 4, lambda v: static(v.shape[2]) and static(v.shape[3]))
    if x is None:
        return False
    h, w = x.shape[2], x.shape[3]
    mode = gen.pick(["nearest", "nearest", "linear"])
    ctm = gen.pick(["asymmetric", "half_pixel", "align_corners", "pytorch_half_pixel"])
    attrs = {"mode": mode}
    if ctm != "half_pixel" or gen.chance(0.5):
        attrs["coordinate_transformation_mode"] = ctm
    if mode == "nearest":
        attrs["nearest_mode"] = gen.pick(["floor", "round_prefer_floor", "round_prefer_ceil", "ceil"])
    if ctm == "align_corners":
        gen.notes.add("F4")
    use_sizes = gen.chance(0.3)
    roi = gen.const(g, np.zeros([0], np.float32), "roi") if gen.opset < 13 or gen.chance(0.3) else ""
    if use_sizes:
        oh, ow = int(gen.rng.integers(1, 2 * h + 1)), int(gen.rng.integers(1, 2 * w + 1))
        inputs = [x, roi, "", gen.ints(g, list(x.shape[:2]) if x.static() else [1, 1], "sizes")]
        if not x.static():
            return False
        inputs[3] = gen.ints(g, list(x.shape[:2]) + [oh, ow], "sizes")
        if gen.opset < 13:
            inputs[2] = gen.const(g, np.zeros([0], np.float32), "scales")
    else:
        sh, sw = float(gen.pick([0.5, 1.5, 2.0, 1.0, 3.0])), float(gen.pick([0.5, 2.0, 1.0, 1.5]))
        oh, ow = int(math.floor(h * sh)), int(math.floor(w * sw))
        if oh < 1 or ow < 1:
            return False
        inputs = [x, roi, gen.const(g, np.array([1, 1, sh, sw], np.float32), "scales")]
    if gen.opset < 13 and inputs[1] == "":
        inputs[1] = gen.const(g, np.zeros([0], np.float32), "roi")
    (o,) = gen.node(g, "Resize", inputs, [gen.out(F32, x.shape[:2] + [oh, ow], mag=x.mag, exact=mode == "nearest" and x.exact)],
                    **attrs)
    return True


def custom_op(gen, g):
    """com.microsoft Gelu (ONNX Runtime's contrib op) feeding a Reshape (F5)."""
    x = gen.floats(g, 1, 4)
    if x is None:
        return False
    gen.uses_custom = True
    gen.notes.add("F5")
    (y,) = gen.node(g, "Gelu", [x], [gen.out(F32, x.shape, mag=x.mag)], domain="com.microsoft")
    if x.static() and x.rank >= 1:
        (o,) = gen.node(g, "Reshape", [y, gen.ints(g, [-1], "Reshape")], [gen.out(F32, [dprod(x.shape)], mag=x.mag)])
    return True


# ----- Concats of splats and custom domains (issue 30) ---------------------------------------
# What a third-party random-graph fuzzer wrote and this generator did not: hand-written padding
# (a value concatenated with tensors of one repeated value: stored, ConstantOfShape of a constant
# or computed shape, Expand or Tile of a constant), nested and reused, on float and on integer,
# float16 and bool "islands"; and ops of custom domains, which make onnxtrim skip its check.

ISLAND_TYPES = [I32, I64, U8, F16, BOOL]


def to_island(gen, g, x, dt):
    """An exact float value carried into element type dt the way quantizing code writes it:
    Clip(Floor|Round|Ceil(x * 4)) -> Cast for integers, Cast for float16, a comparison for bool.
    Only on exact values, so that every correct simplification gives the same integers."""
    if dt == BOOL:
        th = gen.const(g, np.array(gen.pick([0.0, -0.25, 0.25]), np.float32), "Greater")
        (b,) = gen.node(g, gen.pick(["Greater", "Less"]), [x, th], [gen.out(BOOL, x.shape, exact=True)])
        return b
    if dt == F16:
        (h,) = gen.node(g, "Cast", [x], [gen.out(F16, x.shape, mag=x.mag, exact=True)], to=F16)
        return h
    (m,) = gen.node(g, "Mul", [x, gen.const(g, np.array(4.0, np.float32), "Mul")],
                    [gen.out(F32, x.shape, mag=x.mag * 4, exact=True)])
    (r,) = gen.node(g, gen.pick(["Floor", "Round", "Ceil"]), [m], [gen.out(F32, x.shape, mag=x.mag * 4 + 1, exact=True)])
    lo = 0.0 if dt == U8 else -8.0
    (c,) = gen.node(g, "Clip", [r, gen.const(g, np.array(lo, np.float32), "Clip"), gen.const(g, np.array(8.0, np.float32), "Clip")],
                    [gen.out(F32, x.shape, mag=8.0, exact=True)])
    (q,) = gen.node(g, "Cast", [c], [gen.out(dt, x.shape, mag=8.0, exact=True)], to=dt)
    return q


def from_island(gen, g, v):
    """Back to float: Cast (then maybe a Mul by a power of two), or Where for bool."""
    if v.dtype == BOOL and gen.chance(0.5):
        a, b = gen.pick([(1.0, -1.0), (0.0, 1.0), (2.0, 0.5)])
        (o,) = gen.node(g, "Where", [v, gen.const(g, np.array(a, np.float32), "Where"), gen.const(g, np.array(b, np.float32), "Where")],
                        [gen.out(F32, v.shape, mag=2.0, exact=True)])
        return o
    (o,) = gen.node(g, "Cast", [v], [gen.out(F32, v.shape, mag=max(v.mag, 1.0), exact=True)], to=F32)
    if v.dtype != F16 and v.dtype != BOOL and gen.chance(0.5):
        (o,) = gen.node(g, "Mul", [o, gen.const(g, np.array(0.125, np.float32), "Mul")], [gen.out(F32, v.shape, mag=1.0, exact=True)])
    return o


def splat_values(dt):
    if dt == BOOL:
        return [True, False]
    if dt in (F32, F64, F16):
        return [0.0, 1.0, -1.0, 0.5]
    return [0, 1, 2]


def make_splat(gen, g, like, axis, k, val, dt):
    """A tensor of like's shape with k along axis, every element val, in one of the forms
    fuse_concat_splat recognises: stored (initializer or Constant node), ConstantOfShape of a
    constant or a computed shape (Shape -> Gather -> Concat), Expand or Tile of a constant."""
    target = list(like.shape)
    target[axis] = k
    npdt = NP[dt]
    st = all(static(d) for d in target)
    forms = ["cos", "cos", "expand", "tile"] + (["stored", "stored", "stored"] if st else [])
    form = gen.pick(forms)
    mag = max(abs(float(val)), 1e-3)
    if form == "stored":
        # (no uint8 Constant node: python3-onnx 1.12's printable_graph cannot print one)
        s = gen.const(g, np.full(target, val, npdt), "Concat", as_node=gen.chance(0.5) and dt != U8)
        gen.notes.add("splat_stored")
        return s
    spec = gen.shape_tensor(g, like, target)
    if spec is None:
        return None
    if form == "cos":
        attrs = {}
        if not (dt == F32 and val == 0.0 and gen.chance(0.5)):
            attrs["value"] = numpy_helper.from_array(np.array([val], npdt), "")
        (s,) = gen.node(g, "ConstantOfShape", [spec], [gen.out(dt, target, mag=mag, exact=True)], **attrs)
        gen.notes.add("splat_cos_computed" if spec.const is None else "splat_cos")
    elif form == "expand":
        c = gen.const(g, np.full(gen.pick([[], [1], [1] * len(target)]), val, npdt), "Expand", as_node=None if dt != U8 else False)
        (s,) = gen.node(g, "Expand", [c, spec], [gen.out(dt, target, mag=mag, exact=True)])
        gen.notes.add("splat_expand")
    else:
        c = gen.const(g, np.full([1] * len(target), val, npdt), "Tile", as_node=None if dt != U8 else False)
        (s,) = gen.node(g, "Tile", [c, spec], [gen.out(dt, target, mag=mag, exact=True)])
        gen.notes.add("splat_tile")
    g.pool.remove(s)  # not a float value for the other generators to read
    return s


def splat_concat(gen, g, x=None):
    """x concatenated with splats of one value along an axis (one or two of them, before or
    after), and maybe the result again (up to three levels, along the same axis or another:
    Concat(s, Concat(x, s)) and the like); an inner result may be read again or be a graph
    output. In 30% of the cases x is an integer, float16 or bool island of an exact value, and
    the result is brought back to float."""
    island = False
    if x is None and gen.chance(0.3):
        src = gen.floats(g, 1, 4, lambda v: v.exact)
        if src is not None:
            x = to_island(gen, g, src, gen.pick(ISLAND_TYPES))
            island = True
            gen.notes.add("splat_island")
    if x is None:
        x = gen.floats(g, 1, 5)
    if x is None or x.rank < 1:
        return False
    dt = x.dtype
    levels = 1
    while levels < 3 and gen.chance(0.45):
        levels += 1
    if levels > 1:
        gen.notes.add("splat_nested")
    cur, axis = x, None
    for lev in range(levels):
        if axis is None or gen.chance(0.5):
            axis = int(gen.rng.integers(0, cur.rank))
        vals = splat_values(dt)
        val = gen.pick(vals)
        pieces = [cur]
        for _ in range(1 if gen.chance(0.65) else 2):
            v = val if gen.chance(0.9) else gen.pick(vals)  # now and then unequal splats (refused)
            s = make_splat(gen, g, cur, axis, int(gen.rng.integers(1, 4)), v, dt)
            if s is None:
                break
            if gen.chance(0.5):
                pieces.insert(0, s)
            else:
                pieces.append(s)
            if gen.chance(0.1):
                pieces.insert(0 if pieces[0] is not s else len(pieces), s)  # the same splat on both sides
        if len(pieces) == 1:
            break
        shape = list(cur.shape)
        shape[axis] = 0
        for p in pieces:
            shape[axis] = dadd(shape[axis], p.shape[axis])
        spec = axis - cur.rank if gen.chance(0.3) else axis
        (o,) = gen.node(g, "Concat", pieces, [gen.out(dt, shape, mag=max(p.mag for p in pieces),
                                                      exact=all(p.exact for p in pieces))], axis=spec)
        if dt != F32:
            g.pool.remove(o)
        if lev < levels - 1 and gen.chance(0.3):
            # the inner Concat is read again: by a graph output, or by another node
            if gen.chance(0.4):
                gen.extra_outputs.append(o)
            elif dt == F32:
                gen.node(g, gen.pick(["Relu", "Neg", "Sigmoid"]), [o], [gen.out(F32, o.shape, mag=o.mag)])
            else:
                from_island(gen, g, o)
            gen.notes.add("splat_reused")
        cur = o
    if cur is x:
        return False
    if gen.chance(0.2):
        gen.extra_outputs.append(cur)
        gen.notes.add("splat_output")
    if island:
        from_island(gen, g, cur)
    elif gen.chance(0.5):
        # and a consumer, so that the Pad it becomes sits inside the graph
        gen.node(g, gen.pick(["Relu", "Tanh", "Abs"]), [cur], [gen.out(F32, cur.shape, mag=cur.mag, exact=False)])
    gen.notes.add("splat_concat")
    return True


MS_DOMAIN = "com.microsoft"
MADE_UP_DOMAIN = "ai.onnxtrim.test"


def custom_block(gen, g):
    """An op of a custom domain on a float value: com.microsoft contrib ops ONNX Runtime runs
    (Gelu, FastGelu, QuickGelu, BiasGelu, FusedMatMul), or an op of a made-up domain whose
    meaning is given by MADE_UP (the harness runs a twin with the op spelled in standard ops).
    Its output's type is declared (a value_info) half of the time; then maybe a splat Concat or a
    Reshape to Shape(x) on it."""
    x = gen.floats(g, 1, 4)
    if x is None:
        return False
    if gen.chance(0.3):
        op = gen.pick(sorted(MADE_UP))
        attrs = {"alpha": float(gen.pick([0.5, 2.0, -1.0]))} if op == "ScaleBy" else {}
        mag = x.mag * 2 if op == "ScaleBy" else x.mag
        (y,) = gen.node(g, op, [x], [gen.out(F32, x.shape, mag=mag)], domain=MADE_UP_DOMAIN, **attrs)
        gen.domains[MADE_UP_DOMAIN] = 1
        gen.notes.add("custom_madeup")
    else:
        ops = ["Gelu", "Gelu", "FastGelu", "QuickGelu"]
        if static(x.shape[-1]):
            ops.append("BiasGelu")
            if x.rank >= 2 and x.shape[-1] <= 64:
                ops += ["FusedMatMul", "FusedMatMul"]
        op = gen.pick(ops)
        attrs, inputs, shape, mag = {}, [x], list(x.shape), x.mag + 1
        if op == "QuickGelu" and gen.chance(0.5):
            attrs["alpha"] = float(gen.pick([1.702, 1.0]))
        elif op == "BiasGelu" or (op == "FastGelu" and static(x.shape[-1]) and gen.chance(0.5)):
            inputs.append(gen.const(g, gen.rand_w([x.shape[-1]], 0.3), "bias"))
        elif op == "FusedMatMul":
            k, n = x.shape[-1], int(gen.rng.integers(1, 9))
            tb = gen.chance(0.5)
            inputs.append(gen.const(g, gen.rand_w([n, k] if tb else [k, n], 1.0 / math.sqrt(k)), "weight"))
            if tb:
                attrs["transB"] = 1
            alpha = float(gen.pick([1.0, 0.5, 2.0]))
            if alpha != 1.0 or gen.chance(0.3):
                attrs["alpha"] = alpha
            shape = x.shape[:-1] + [n]
            mag = x.mag * 2 * alpha
        (y,) = gen.node(g, op, inputs, [gen.out(F32, shape, mag=mag)], domain=MS_DOMAIN, **attrs)
        gen.domains[MS_DOMAIN] = 1
        gen.uses_custom = True
        gen.notes.add("custom_ms")
    if gen.chance(0.5):
        gen.declare.append(y)
    k = gen.rng.random()
    if k < 0.3:
        splat_concat(gen, g, y)
    elif k < 0.45 and y.shape == x.shape:
        (o,) = gen.node(g, "Reshape", [y, gen.shape_of(g, x)], [gen.out(F32, x.shape, mag=y.mag)])
    return True


def _swish(nd, fresh):
    s = fresh("sigmoid")
    return [helper.make_node("Sigmoid", [nd.input[0]], [s]), helper.make_node("Mul", [nd.input[0], s], [nd.output[0]])]


def _scale(nd, fresh):
    alpha = 1.0
    for a in nd.attribute:
        if a.name == "alpha":
            alpha = a.f
    c = fresh("alpha")
    return [helper.make_node("Constant", [], [c], value=numpy_helper.from_array(np.array(alpha, np.float32), "")),
            helper.make_node("Mul", [nd.input[0], c], [nd.output[0]])]


def _passthrough(nd, fresh):
    return [helper.make_node("Identity", [nd.input[0]], [nd.output[0]])]


# The ops of the made-up domain and their meaning in standard ops (node, fresh name maker -> nodes).
MADE_UP = {"SwishLike": _swish, "ScaleBy": _scale, "Passthrough": _passthrough}


def uses_made_up(model):
    def walk(g):
        for nd in g.node:
            if nd.domain == MADE_UP_DOMAIN:
                return True
            for a in nd.attribute:
                if a.type == onnx.AttributeProto.GRAPH and walk(a.g):
                    return True
                if a.type == onnx.AttributeProto.GRAPHS and any(walk(s) for s in a.graphs):
                    return True
        return False
    return walk(model.graph)


def runnable_twin(model):
    """The model with each op of the made-up domain replaced by its meaning (MADE_UP), for ONNX
    Runtime, which cannot load such an op. An op it does not know stays (and ONNX Runtime then
    refuses the twin)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    k = [0]

    def fresh(hint):
        k[0] += 1
        return f"__twin_{hint}_{k[0]}"

    def walk(g):
        new = []
        changed = False
        for nd in g.node:
            for a in nd.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g)
                elif a.type == onnx.AttributeProto.GRAPHS:
                    for s in a.graphs:
                        walk(s)
            if nd.domain == MADE_UP_DOMAIN and nd.op_type in MADE_UP and len(nd.input) >= 1 and len(nd.output) == 1:
                new.extend(MADE_UP[nd.op_type](nd, fresh))
                changed = True
            else:
                new.append(nd)
        if changed:
            del g.node[:]
            g.node.extend(new)

    walk(m.graph)
    if not uses_made_up(m):
        keep = [o for o in m.opset_import if o.domain != MADE_UP_DOMAIN]
        del m.opset_import[:]
        m.opset_import.extend(keep)
    return m


# ----- plumbing ------------------------------------------------------------------------------

def identity_element(gen, g):
    x = gen.floats(g)
    if x is None:
        return False
    op, val = gen.pick([("Add", 0.0), ("Sub", 0.0), ("Mul", 1.0), ("Div", 1.0), ("Pow", 1.0)])
    shape_c = [] if gen.chance(0.5) or x.rank == 0 else [1] * int(gen.rng.integers(1, x.rank + 1))
    c = gen.const(g, np.full(shape_c, val, np.float32), op)
    inputs = [x, c] if op in ("Sub", "Div", "Pow") or gen.chance(0.5) else [c, x]
    (o,) = gen.node(g, op, inputs, [gen.out(F32, bcast(x.shape, shape_c))])
    gen.inherit(o, x)
    return True


def duplicate(gen, g):
    """Re-emit an earlier node of this graph with the same inputs and attributes."""
    specs = [s for s in g.specs if s[0] not in ("If", "Loop", "Constant") and all(o.name for o in s[4])]
    if not specs:
        return False
    op, in_names, attrs, domain, outs = gen.pick(specs[-8:])
    new = []
    for o in outs:
        n = V(None, o.dtype, o.shape, mag=o.mag, exact=o.exact, pos=o.pos, irange=o.irange)
        new.append(n)
    k = gen.uid()
    for o in new:
        o.name = gen.vname(op)
    nd = helper.make_node(op, in_names, [o.name for o in new], name=f"/block{gen.block}/{op}_{k}", domain=domain, **attrs)
    for nm in in_names:
        if nm and nm in gen.values:
            gen.values[nm].uses += 1
    g.nodes.append(nd)
    for o in new:
        gen.register(g, o, usable=o.dtype == F32)
    # and use both copies together, so CSE has something to merge
    a, b = outs[0], new[0]
    if a.dtype == F32 and a in g.visible():
        gen.node(g, gen.pick(["Add", "Sub", "Mul"]), [a, b], [gen.out(F32, a.shape, mag=a.mag * max(a.mag, 2))])
    return True


def plumbing_shape_reshape(gen, g):
    """x -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), i)) ..., -1)): merges the tail, the way
    torch.flatten(x, 1) or x.view(x.size(0), -1) export."""
    x = gen.floats(g, 2, 5)
    if x is None:
        return False
    keep = int(gen.rng.integers(1, x.rank))
    parts = [gen.dim_of(g, x, i) for i in range(keep)]
    parts.append(gen.ints(g, [-1], "Concat"))
    (spec,) = gen.node(g, "Concat", parts, [gen.out(I64, [keep + 1], exact=True)], axis=0)
    (o,) = gen.node(g, "Reshape", [x, spec], [gen.out(F32, x.shape[:keep] + [dprod(x.shape[keep:])])])
    gen.inherit(o, x)
    return True


def if_node(gen, g, const_cond=None, fusion=False):
    """If with a constant or a computed condition; both branches compute a value of the same
    dtype and shape from outer values (and maybe a Conv/Gemm product of the outer graph, whose
    only consumer is then inside the branch: F3)."""
    if g.depth >= 2:
        return False
    if fusion:
        before = len(g.pool)
        if not (conv(gen, g, transpose=False) if gen.chance(0.5) else gemm(gen, g)):
            return False
        prod = g.pool[-1]
        gen.notes.add("F3")
    x = prod if fusion else gen.floats(g, pred=lambda v: not v.nosub)
    if x is None:
        return False
    const_cond = gen.chance(0.5) if const_cond is None else const_cond
    if const_cond:
        cond = gen.const(g, np.array(gen.chance(0.5)), "cond", as_node=gen.chance(0.7))
    else:
        # computed from an exact value (ReduceMax of data movement), so that rounding never
        # flips the branch taken: a sum of centred values is ~0 and its sign is noise
        y = gen.floats(g, pred=lambda v: v.exact)
        if y is None:
            return False
        red = reduce_node(gen, g, "ReduceMax", y, None, False)
        th = float(gen.rng.uniform(-0.5, 0.9))
        (cond,) = gen.node(g, "Greater", [red, gen.const(g, np.array(th, np.float32), "Greater")], [gen.out(BOOL, [], exact=True)])
    branches = []
    outs_meta = None
    gen.block += 1
    for bname in ("then_branch", "else_branch"):
        sub = Graph(gen, parent=g, name=f"{bname}_{gen.uid()}")
        if fusion and bname == "then_branch":
            op = gen.pick(["Add", "Mul", "BatchNormalization"])
            c = x.shape[1]
            if op == "BatchNormalization":
                vals = [gen.const(sub, (1 + 0.3 * gen.rng.standard_normal([c])).astype(np.float32), "w"),
                        gen.const(sub, (0.3 * gen.rng.standard_normal([c])).astype(np.float32), "b"),
                        gen.const(sub, (0.3 * gen.rng.standard_normal([c])).astype(np.float32), "m"),
                        gen.const(sub, gen.rng.uniform(0.5, 2.0, [c]).astype(np.float32), "v")]
                (r,) = gen.node(sub, op, [x] + vals, [gen.out(F32, x.shape, mag=x.mag * 3 + 1)])
            else:
                cs = [c] + [1] * (x.rank - 2) if gen.chance(0.7) else []
                (r,) = gen.node(sub, op, [x, gen.const(sub, gen.rand_w(cs, 0.5), op)], [gen.out(F32, x.shape, mag=x.mag * 2)])
        else:
            steps = int(gen.rng.integers(1, 4))
            start = len(sub.pool)
            for _ in range(steps):
                fn = gen.pick([unary, binary, unary, identity_element, transpose_back])
                fn(gen, sub, x) if fn is transpose_back else fn(gen, sub)
            own = [v for v in sub.pool[start:] if v.dtype == F32 and v.shape == x.shape]
            if own:
                r = own[-1]
            else:
                (r,) = gen.node(sub, "Relu", [x], [gen.out(F32, x.shape, mag=x.mag)])
        if outs_meta is None:
            outs_meta = (r.dtype, r.shape, r.mag)
        out_name = r.name
        if r.scope is not sub or gen.chance(0.2):
            (r,) = gen.node(sub, "Identity", [r], [gen.out(r.dtype, r.shape, mag=r.mag)])
            out_name = r.name
        sub.outputs.append(helper.make_tensor_value_info(out_name, r.dtype, [declared_dim(d) for d in r.shape]))
        branches.append(sub)
    gen.block += 1
    dtype, shape, mag = outs_meta
    then_g, else_g = [helper.make_graph(b.nodes, b.name, [], b.outputs, b.inits) for b in branches]
    gen.node(g, "If", [cond], [gen.out(dtype, shape, mag=mag * 3 + 1)], then_branch=then_g, else_branch=else_g)
    return True


def transpose_back(gen, g, x):
    if x.rank < 2:
        return False
    perm = gen.rng.permutation(x.rank).tolist()
    (t,) = gen.node(g, "Transpose", [x], [gen.out(F32, [x.shape[p] for p in perm])], perm=perm)
    inv = np.argsort(perm).tolist()
    (t2,) = gen.node(g, "Transpose", [t], [gen.out(F32, x.shape)], perm=inv)
    gen.inherit(t2, x)
    return True


def loop_node(gen, g):
    """Loop with a constant trip count carrying one value: v' = tanh(v * c + outer)."""
    if g.depth >= 1:
        return False
    x = gen.floats(g, 1, 4, lambda v: not v.nosub)
    if x is None:
        return False
    trip = gen.const(g, np.array(int(gen.rng.integers(0 if gen.chance(0.2) else 1, 4)), np.int64), "trip")
    cond = gen.const(g, np.array(True), "cond")
    gen.block += 1
    body = Graph(gen, parent=g, name=f"loop_body_{gen.uid()}")
    it = V(f"iter_{gen.uid()}", I64, [])
    cin = V(f"cond_in_{gen.uid()}", BOOL, [])
    vin = V(f"carried_{gen.uid()}", F32, x.shape, mag=1.0)
    for v in (it, cin, vin):
        gen.register(body, v, usable=False)
    c = gen.const(body, gen.rand_w(broadcast_shape_for(gen, x), 0.5), "Mul")
    (m,) = gen.node(body, "Mul", [vin, c], [gen.out(F32, x.shape)])
    (a,) = gen.node(body, "Add", [m, x], [gen.out(F32, x.shape)])
    (t,) = gen.node(body, "Tanh", [a], [gen.out(F32, x.shape)])
    (co,) = gen.node(body, "Identity", [cin], [gen.out(BOOL, [])])
    body.pool = []
    gen.block += 1
    dims = [declared_dim(d) for d in x.shape]
    bg = helper.make_graph(body.nodes, body.name,
                           [helper.make_tensor_value_info(it.name, I64, []), helper.make_tensor_value_info(cin.name, BOOL, []),
                            helper.make_tensor_value_info(vin.name, F32, dims)],
                           [helper.make_tensor_value_info(co.name, BOOL, []), helper.make_tensor_value_info(t.name, F32, dims)],
                           body.inits)
    (init,) = gen.node(g, "Tanh", [x], [gen.out(F32, x.shape)])
    gen.node(g, "Loop", [trip, cond, init], [gen.out(F32, x.shape, mag=1.0)], body=bg)
    return True


# ----- exporter blocks (the patterns the fusions are written for) ------------------------------

def per_channel(gen, g, x, op):
    """Add/Mul of x (N, C, ...) by a constant along axis 1 (or a scalar)."""
    c = x.shape[1]
    shape = gen.pick([[c] + [1] * (x.rank - 2), [c] + [1] * (x.rank - 2), [1, c] + [1] * (x.rank - 2), []])
    vals = gen.rand_w(shape, 0.5) if op == "Add" else (1 + 0.3 * gen.rng.standard_normal(shape)).astype(np.float32)
    k = gen.const(g, vals, op)
    (o,) = gen.node(g, op, [x, k] if gen.chance(0.7) else [k, x], [gen.out(F32, x.shape, mag=x.mag * 2 + 0.5)])
    return o


def conv_block(gen, g):
    """[Pad] -> Conv -> [BatchNormalization | Add | Mul per channel] -> [Relu] -> [pool]."""
    x = gen.floats(g, 3, 4, lambda v: all(static(d) for d in v.shape[1:]) and v.shape[1] <= 32)
    if x is None:
        return False
    if gen.chance(0.3):
        r = x.rank
        pads = [0, 0] + [int(gen.rng.integers(0, 3)) for _ in range(r - 2)]
        pads = pads + [0, 0] + [int(gen.rng.integers(0, 3)) for _ in range(r - 2)]
        shape = [dadd(d, pads[i] + pads[i + r]) for i, d in enumerate(x.shape)]
        inputs = [x, gen.ints(g, pads, "Pad")]
        if gen.chance(0.5):
            inputs.append(gen.const(g, np.array(0.0, np.float32), "Pad"))
        (x,) = gen.node(g, "Pad", inputs, [gen.out(F32, shape, mag=x.mag, exact=x.exact)],
                        **({"mode": "constant"} if gen.chance(0.3) else {}))
    n = len(g.pool)
    if not conv(gen, g, transpose=gen.chance(0.1)):
        return False
    y = g.pool[-1]
    k = gen.rng.random()
    if k < 0.5:
        c = y.shape[1]
        vals = [gen.const(g, (1 + 0.3 * gen.rng.standard_normal([c])).astype(np.float32), "weight"),
                gen.const(g, (0.3 * gen.rng.standard_normal([c])).astype(np.float32), "bias"),
                gen.const(g, (0.3 * gen.rng.standard_normal([c])).astype(np.float32), "running_mean"),
                gen.const(g, gen.rng.uniform(0.5, 2.0, [c]).astype(np.float32), "running_var")]
        (y,) = gen.node(g, "BatchNormalization", [y] + vals, [gen.out(F32, y.shape, mag=y.mag * 3 + 1)])
    elif k < 0.75:
        y = per_channel(gen, g, y, gen.pick(["Add", "Mul"]))
    if gen.chance(0.6):
        (y,) = gen.node(g, gen.pick(["Relu", "Relu", "LeakyRelu", "Sigmoid"]), [y], [gen.out(F32, y.shape, mag=y.mag)])
    if gen.chance(0.25):
        pool(gen, g)
    return True


def linear_block(gen, g):
    """MatMul by a weight + bias (-> Gemm), Gemm + Add/Mul, Transpose -> Gemm, MatMul/Gemm ->
    BatchNormalization: what nn.Linear and its neighbours export to."""
    x = gen.floats(g, 2, 3, lambda v: static(v.shape[-1]) and v.shape[-1] <= 64)
    if x is None:
        return False
    k = x.shape[-1]
    n = int(gen.rng.integers(1, 17))
    style = gen.rng.random()
    if style < 0.4:
        w = gen.const(g, gen.rand_w([k, n], 1.0 / math.sqrt(k)), "weight")
        (y,) = gen.node(g, "MatMul", [x, w], [gen.out(F32, x.shape[:-1] + [n], mag=x.mag * 2)])
        bshape = gen.pick([[n], [n], [1, n], [], [1]])
        b = gen.const(g, gen.rand_w(bshape, 0.3), "bias")
        (y,) = gen.node(g, "Add", [y, b] if gen.chance(0.7) else [b, y], [gen.out(F32, y.shape, mag=y.mag + 1)])
    elif style < 0.8 and x.rank == 2:
        a = x
        attrs = {}
        if static(x.shape[0]) and gen.chance(0.3):
            (a,) = gen.node(g, "Transpose", [x], [gen.out(F32, [x.shape[1], x.shape[0]], mag=x.mag)], perm=[1, 0])
            attrs["transA"] = 1
        trans_b = gen.chance(0.5)
        wv = gen.rand_w([n, k] if trans_b else [k, n], 1.0 / math.sqrt(k))
        w = gen.const(g, wv, "weight")
        if trans_b:
            attrs["transB"] = 1
        if gen.chance(0.3):
            # the weight arrives transposed by a node (fuse_transpose_gemm)
            w = gen.const(g, np.ascontiguousarray(wv.T), "weight")
            (w,) = gen.node(g, "Transpose", [w], [gen.out(F32, list(wv.shape))], perm=[1, 0])
        inputs = [a, w]
        if gen.chance(0.5):
            inputs.append(gen.const(g, gen.rand_w([n], 0.3), "bias"))
        (y,) = gen.node(g, "Gemm", inputs, [gen.out(F32, [x.shape[0], n], mag=x.mag * 2 + 1)], **attrs)
        after = gen.rng.random()
        if after < 0.35:
            c = gen.const(g, gen.rand_w(gen.pick([[n], [1, n], []]), 0.5), "Add")
            (y,) = gen.node(g, "Add", [y, c], [gen.out(F32, y.shape, mag=y.mag + 1)])
        elif after < 0.6:
            c = gen.const(g, (1 + 0.3 * gen.rng.standard_normal(gen.pick([[n], [1, n], []]))).astype(np.float32), "Mul")
            (y,) = gen.node(g, "Mul", [y, c], [gen.out(F32, y.shape, mag=y.mag * 2)])
        elif after < 0.8:
            vals = [gen.const(g, (1 + 0.3 * gen.rng.standard_normal([n])).astype(np.float32), "weight"),
                    gen.const(g, (0.3 * gen.rng.standard_normal([n])).astype(np.float32), "bias"),
                    gen.const(g, (0.3 * gen.rng.standard_normal([n])).astype(np.float32), "running_mean"),
                    gen.const(g, gen.rng.uniform(0.5, 2.0, [n]).astype(np.float32), "running_var")]
            (y,) = gen.node(g, "BatchNormalization", [y] + vals, [gen.out(F32, y.shape, mag=y.mag * 3 + 1)])
    else:
        return matmul(gen, g)
    if gen.chance(0.5):
        gen.node(g, gen.pick(["Relu", "Tanh", "Sigmoid"]), [y], [gen.out(F32, y.shape, mag=y.mag)])
    return True


# ---------------------------------------------------------------------------------------------
COMPUTE = [(conv_block, 5), (linear_block, 5), (unary, 10), (binary, 12), (matmul, 5), (gemm, 3), (conv, 5), (pool, 2), (softmax, 3), (layernorm, 2),
           (reduce, 5), (argmax, 1), (batchnorm, 3), (pad, 4), (transpose, 4), (reshape, 5), (flatten, 2),
           (squeeze_unsqueeze, 3), (concat, 3), (split, 2), (slice_, 4), (slices_concat, 1), (gather, 3), (expand, 2),
           (tile, 1), (where, 2), (bool_to_float, 1), (cast, 2), (range_, 1), (constant_of_shape, 1), (dropout, 2),
           (resize, 1), (identity_element, 3), (duplicate, 3), (plumbing_shape_reshape, 2), (if_node, 1.5),
           (lambda gen, g: if_node(gen, g, fusion=True), 0.7), (loop_node, 0.5), (custom_op, 0.15),
           (splat_concat, 0.2), (custom_block, 0)]
# In the graphs drawn for them (Gen.splats, Gen.customs) these weigh more, and each appears at least once.
SPLAT_WEIGHT, CUSTOM_WEIGHT = 6.0, 3.0


def make_inputs(gen):
    r = gen.rng
    g = gen.main
    names = ["batch", "seq", "height", "N", "S", "width"]
    kind = r.choice(["image", "sequence", "matrix", "tokens", "mixed"], p=[0.3, 0.25, 0.15, 0.15, 0.15])
    dyn = gen.dynamic

    def d_or_sym(val, symname):
        if dyn and (symname in ("batch", "N") or gen.chance(0.4)):
            if symname not in gen.syms:
                gen.syms.append(symname)
            return sym(symname)
        return val

    inputs = []

    def add_input(name, dtype, shape, irange=None):
        v = V(name, dtype, shape, mag=1.0, exact=True, irange=irange)
        gen.register(g, v, usable=dtype == F32)
        g.inputs.append(v)
        if irange is not None:
            gen.input_ranges[name] = irange
        inputs.append(v)
        return v

    b = d_or_sym(int(r.integers(1, 4)), "batch")
    if kind in ("image", "mixed"):
        c, h, w = int(r.integers(1, 7)), int(r.integers(3, 9)), int(r.integers(3, 9))
        add_input(gen.pick(["input", "pixel_values", "x", "images"]), F32, [b, c, h, w])
    if kind in ("sequence", "mixed"):
        s = d_or_sym(int(r.integers(2, 7)), "seq")
        add_input(gen.pick(["hidden_states", "x", "input.1", "features"]) + ("_s" if inputs else ""), F32,
                  [b, s, int(r.integers(2, 17))])
    if kind == "matrix":
        add_input(gen.pick(["input", "x", "onnx::Gemm_0"]), F32, [b, int(r.integers(2, 17))])
    if kind == "tokens":
        s = d_or_sym(int(r.integers(2, 7)), "seq")
        vocab, dmodel = int(r.integers(5, 30)), int(r.integers(2, 17))
        ids = add_input("input_ids", I64, [b, s], irange=[0, vocab])
        table = gen.const(g, gen.rand_w([vocab, dmodel], 1.0), "embeddings", as_node=False)
        (e,) = gen.node(g, "Gather", [table, ids], [gen.out(F32, [b, s, dmodel])])
        if gen.chance(0.5):
            mask = add_input("attention_mask", I64, [b, s], irange=[0, 2])
            (mf,) = gen.node(g, "Cast", [mask], [gen.out(F32, [b, s], exact=True)], to=F32)
            m3 = gen.unsqueeze(g, mf, [-1])
            gen.node(g, "Mul", [e, m3], [gen.out(F32, [b, s, dmodel])])
    if gen.chance(0.2):
        add_input(gen.pick(["bias_in", "y", "scale"]), F32, [1] if gen.chance(0.5) else [int(r.integers(1, 5))])
    return inputs


class Case:
    """A generated model and what the driver needs to run it."""

    def __init__(self, model, meta):
        self.model, self.meta = model, meta


def generate(seed, opset=None, dynamic=None, max_nodes=None):
    gen = Gen(seed, opset, dynamic, max_nodes)
    g = gen.main
    inputs = make_inputs(gen)
    fns, weights = zip(*COMPUTE)
    weights = list(weights)
    if gen.splats:
        weights[fns.index(splat_concat)] = SPLAT_WEIGHT
    if gen.customs:
        weights[fns.index(custom_block)] = CUSTOM_WEIGHT
    p = np.array(weights, dtype=np.float64)
    p /= p.sum()
    tries = 0

    def squash():
        # keep magnitudes in range: squash whatever grew large
        last = [v for v in g.pool[-3:] if v.dtype == F32 and v.mag > 200 and v.const is None]
        for v in last:
            (t,) = gen.node(g, gen.pick(["Tanh", "Sigmoid", "Softsign"]), [v], [gen.out(F32, v.shape, mag=1.0)])

    while len(g.nodes) < gen.target_nodes and tries < gen.target_nodes * 6:
        tries += 1
        if gen.chance(0.12):
            gen.block += 1
        fn = fns[int(gen.rng.choice(len(fns), p=p))]
        fn(gen, g)
        squash()
    for flag, note, fn in ((gen.splats, "splat_concat", splat_concat), (gen.customs, "custom_", custom_block)):
        for _ in range(3):
            if not flag or any(n.startswith(note) for n in gen.notes):
                break
            fn(gen, g)
            squash()
    # outputs: some leaves (values nobody reads), maybe an intermediate, maybe a copy of an input
    floats = [v for v in g.pool if v.dtype == F32 and v.const is None and v not in g.inputs]
    leaves = [v for v in floats if v.uses == 0]
    outs = []
    if leaves:
        outs.append(leaves[-1])
        others = leaves[:-1]
        gen.rng.shuffle(others)
        outs += others[:int(gen.rng.integers(0, 3))]  # the rest stay dead branches
    if not outs and floats:
        outs.append(floats[-1])
    if not outs:
        x = inputs[0] if inputs[0].dtype == F32 else None
        if x is None:
            return generate(seed + 1_000_000, opset, dynamic, max_nodes)
        (o,) = gen.node(g, "Relu", [x], [gen.out(F32, x.shape)])
        outs.append(o)
    inner = [v for v in floats if v.uses > 0 and v not in outs]
    if inner and gen.chance(0.3):
        outs.append(gen.pick(inner))
    outs += [v for v in gen.extra_outputs if v not in outs]
    if gen.chance(0.15):
        x = gen.pick(inputs)
        if gen.chance(0.5):
            (o,) = gen.node(g, "Identity", [x], [gen.out(x.dtype, x.shape)])
            outs.append(o)
        elif x not in outs:
            outs.append(x)  # a graph input that is also a graph output
    # rename some leaf outputs the way exporters name them
    names = ["output", "logits", "last_hidden_state", "out", "y", "pred"]
    rename = {}
    for i, v in enumerate(outs):
        if v in g.inputs or v.scope is not g or v.uses:
            continue
        if gen.chance(0.5) and v.name not in rename:
            new = names[i % len(names)] + ("" if i < len(names) else f"_{i}")
            if new in gen.values:
                continue
            rename[v.name] = new
    for nd in g.nodes:
        nd.input[:] = [rename.get(n, n) for n in nd.input]
        nd.output[:] = [rename.get(n, n) for n in nd.output]
    for old, new in rename.items():
        v = gen.values.pop(old)
        v.name = new
        gen.values[new] = v
    seen = set()
    uniq = []
    for v in outs:
        if v.name not in seen:
            uniq.append(v)
            seen.add(v.name)
    outs = uniq
    graph_inputs = [helper.make_tensor_value_info(v.name, v.dtype, [declared_dim(d) for d in v.shape]) for v in g.inputs]
    graph_outputs = [helper.make_tensor_value_info(v.name, v.dtype, [declared_dim(d) for d in v.shape]) for v in outs]
    value_info = []
    if gen.chance(0.3):
        for v in g.pool:
            if v.scope is g and v.const is None and v not in g.inputs and v not in outs and gen.chance(0.5):
                value_info.append(helper.make_tensor_value_info(v.name, v.dtype, [declared_dim(d) for d in v.shape]))
    declared = {vi.name for vi in value_info} | {v.name for v in outs}
    for v in gen.declare:
        if v.name in declared:
            continue
        declared.add(v.name)
        value_info.append(helper.make_tensor_value_info(v.name, v.dtype, [declared_dim(d) for d in v.shape]))
    graph = helper.make_graph(g.nodes, gen.pick(["main_graph", "torch_jit", "tf2onnx"]), graph_inputs, graph_outputs,
                              g.inits, value_info=value_info)
    opsets = [helper.make_opsetid("", gen.opset)]
    if gen.uses_custom:
        gen.domains[MS_DOMAIN] = 1
    for dom, ver in sorted(gen.domains.items()):
        opsets.append(helper.make_opsetid(dom, ver))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="graphgen", producer_version="1")
    model.ir_version = IR_FOR_OPSET[gen.opset]
    # dim settings: two for dynamic cases, different values for every symbol
    settings = []
    if gen.syms:
        a = {s: int(gen.rng.integers(1, 5)) for s in gen.syms}
        b = {s: int(v % 4 + 2) if v != 1 else 3 for s, v in a.items()}
        settings = [a, b]
    else:
        settings = [{}]
    meta = {
        "seed": seed, "opset": gen.opset, "dynamic": bool(gen.syms), "syms": gen.syms, "settings": settings,
        "inputs": {v.name: {"dtype": int(v.dtype), "dims": [dim_json(d) for d in v.shape], "range": gen.input_ranges.get(v.name)}
                   for v in g.inputs},
        "values": {v.name: {"dtype": int(v.dtype), "dims": [dim_json(d) for d in v.shape], "exact": bool(v.exact), "positive": bool(v.pos)}
                   for v in gen.values.values() if v.scope is g},
        "notes": sorted(gen.notes), "custom": bool(gen.domains),
    }
    return Case(model, meta)


def make_input_values(meta, setting, seed):
    """Random inputs for one dim setting (floats uniform in [-1, 1), ints in their range)."""
    rng = np.random.default_rng(seed)
    vals = {}
    for name, info in meta["inputs"].items():
        shape = [deval(dim_from_json(d), setting) for d in info["dims"]]
        dt = NP[info["dtype"]]
        if info.get("range"):
            lo, hi = info["range"]
            vals[name] = rng.integers(lo, hi, shape).astype(dt)
        elif info.get("positive"):  # a value the reducer cut out that was positive (a divisor...)
            vals[name] = rng.uniform(0.5, 1.5, shape).astype(dt)
        elif dt == np.bool_:
            vals[name] = rng.random(shape) < 0.5
        elif np.issubdtype(dt, np.integer):
            vals[name] = rng.integers(0, 4, shape).astype(dt)
        else:
            vals[name] = rng.uniform(-1, 1, shape).astype(dt)
    return vals
