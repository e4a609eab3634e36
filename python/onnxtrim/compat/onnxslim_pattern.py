"""OnnxSlim's fusion patterns on onnxtrim: ``Pattern``, ``PatternMatcher`` and
``register_fusion_pattern`` with OnnxSlim's call shapes (docs/rewrite-rules.md, "OnnxSlim").

A matcher registered here runs as a user rewrite of onnxtrim's fixed point (the pass
``user:NAME``, NAME its ``name``): in every round its pattern is matched on the model's main
graph, from the last node up, the way OnnxSlim matches it; at each match ``rewrite(opset)`` is
called with the matched nodes as attributes of the matcher (``self.div_0``) and what it returns,
``{key: {"op", "inputs", "outputs", "name", "attrs", "domain"}}``, is put in the graph: the new node
makes the given outputs (their old producers go), nodes nothing reads any more go. The result is
checked against the original like any run's.

The nodes and values a rewrite sees are small stand-ins for OnnxSlim's graph objects: a node has
``op``, ``name``, ``domain``, ``attrs``, ``inputs``, ``outputs``, ``feeds`` and ``users``; a value
``name``, ``inputs`` (its producer), ``outputs`` (its readers), ``shape``, ``dtype`` and, for a
constant, ``values`` (a numpy array). Changing their lists (``outputs.remove(...)``,
``inputs.clear()``) is allowed and changes nothing: what counts is what rewrite() returns. An input
of the new node may also be any object with ``name`` and ``values`` (an OnnxSlim ``Constant``): it
becomes an initializer. Other uses of OnnxSlim's graph API (graph edits inside rewrite(), a
``gs.Graph``) are not supported and fail the run naming the pattern.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, List, Optional

__all__ = ["Pattern", "PatternMatcher", "register_fusion_pattern", "get_fusion_patterns", "NodeDescriptor"]


class NodeDescriptor:
    """One line of a pattern: ``OpType name N_IN N_OUT in... out...``. N_IN may be ``2+`` (at
    least 2 inputs; the first ones are matched) or ``2*`` (each listed input matches any input)."""

    def __init__(self, spec: List[str]):
        if len(spec) < 4:
            raise ValueError(f"a pattern line needs at least 4 fields (OpType name inputs outputs): {' '.join(spec)}")
        self.op, self.name = spec[0], spec[1]
        self.input_num, self.input_mode = self._count(spec[2], spec)
        self.output_num, self.output_mode = self._count(spec[3], spec)
        self.coarse_input_num = self.input_mode is not None
        self.input_names = spec[4:4 + self.input_num]
        self.output_names = spec[4 + self.input_num:]
        if len(self.input_names) != self.input_num or len(self.output_names) != self.output_num:
            raise ValueError(f"pattern line '{' '.join(spec)}': the counts do not match the names")

    @staticmethod
    def _count(field: str, spec: List[str]):
        if field.isdigit():
            return int(field), None
        if len(field) > 1 and field[:-1].isdigit() and field[-1] in "+*":
            return int(field[:-1]), ("append" if field[-1] == "+" else "free-match")
        raise ValueError(f"pattern line '{' '.join(spec)}': '{field}' is not a count (N, N+ or N*)")

    def __repr__(self):
        return f"NodeDescriptor({self.op} {self.name} in={self.input_names} out={self.output_names})"


class Pattern:
    """OnnxSlim's pattern text: one node per line, edges by the names of neighbouring nodes,
    ``input`` / ``output`` pseudo-nodes for the pattern's ends, ``?`` for any input."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.nodes = [NodeDescriptor(line.split()) for line in pattern.split("\n") if line.strip()]

    def __repr__(self):
        return self.pattern


class PatternMatcher:
    """Base class of a fusion pattern: give ``pattern`` and ``priority``, a ``name`` property and
    ``rewrite(opset)``; ``parameter_check()`` may refuse a structural match."""

    min_opset: int = 1
    max_opset: Optional[int] = None

    def __init__(self, pattern: Pattern, priority):
        self.pattern = pattern
        self.priority = priority
        self.pattern_dict = {n.name: n for n in pattern.nodes}
        self.output_names = [n.name for n in pattern.nodes if n.op == "output"]
        if not self.output_names:
            raise ValueError("the pattern has no 'output' line")

    @property
    def name(self) -> str:
        return type(self).__name__

    def applies_to(self, opset: int) -> bool:
        return opset >= self.min_opset and (self.max_opset is None or opset <= self.max_opset)

    def get_match_point(self):
        return self.pattern_dict[self.pattern_dict[self.output_names[0]].input_names[0]]

    def parameter_check(self) -> bool:
        return True

    def rewrite(self, opset=11):
        raise NotImplementedError("rewrite method must be implemented")

    def match(self, node) -> bool:
        """Whether the pattern ends at `node` (a node of the stand-in graph); the matched nodes
        and inputs become attributes named as in the pattern."""
        for d in self.pattern.nodes:
            if d.op in ("input", "output") and d.name in self.__dict__:
                del self.__dict__[d.name]
        bound: Dict[str, Any] = {}
        if not _pattern_match(self, node, self.get_match_point(), bound):
            return False
        for k, v in bound.items():
            setattr(self, k, v)
        self.output = node.outputs
        return bool(self.parameter_check())


def _pattern_match(matcher: PatternMatcher, feed, desc: NodeDescriptor, bound: Dict[str, Any]) -> bool:
    if desc.op == "input":  # a wildcard, the same feed wherever it is named
        if desc.name in bound:
            return bound[desc.name] is feed
        bound[desc.name] = feed
        return True
    if not isinstance(feed, _Node) or feed.op != desc.op:
        return False
    if desc.name in bound and bound[desc.name] is not feed:
        return False
    bound[desc.name] = feed
    feeds = feed.feeds
    if (len(feeds) < desc.input_num) if desc.coarse_input_num else (len(feeds) != desc.input_num):
        return False
    wanted = [None if n == "?" else matcher.pattern_dict.get(n) for n in desc.input_names]
    for n, w in zip(desc.input_names, wanted):
        if n != "?" and w is None:
            raise ValueError(f"pattern of {matcher.name}: '{n}' names no line of the pattern")
    if desc.input_mode == "free-match":
        for w in wanted:
            if w is None:
                continue
            for f in feeds:
                trial = dict(bound)
                if _pattern_match(matcher, f, w, trial):
                    bound.update(trial)
                    break
            else:
                return False
        return True
    for f, w in zip(feeds, wanted):
        if w is not None and not _pattern_match(matcher, f, w, bound):
            return False
    return True


# ---- the registry

DEFAULT_FUSION_PATTERNS: "OrderedDict[str, list]" = OrderedDict()


def register_fusion_pattern(fusion_pattern=None, *, priority=None, min_opset=None, max_opset=None):
    """``register_fusion_pattern(MyMatcher(1))``, or as a class decorator
    ``@register_fusion_pattern(priority=1, max_opset=12)``; slim() then applies it."""
    if fusion_pattern is not None:
        if not isinstance(fusion_pattern, PatternMatcher) and not (
                hasattr(fusion_pattern, "match") and hasattr(fusion_pattern, "rewrite") and hasattr(fusion_pattern, "name")):
            raise TypeError("register_fusion_pattern() takes a PatternMatcher (an object with name, match and rewrite)")
        DEFAULT_FUSION_PATTERNS.setdefault(fusion_pattern.name, []).append(fusion_pattern)
        return fusion_pattern

    def decorator(cls):
        instance = cls(priority)
        if min_opset is not None:
            instance.min_opset = min_opset
        if max_opset is not None:
            instance.max_opset = max_opset
        DEFAULT_FUSION_PATTERNS.setdefault(instance.name, []).append(instance)
        return cls

    return decorator


def get_fusion_patterns(skip_fusion_patterns=None):
    patterns = OrderedDict((k, list(v)) for k, v in DEFAULT_FUSION_PATTERNS.items())
    for name in skip_fusion_patterns or []:
        patterns.pop(name, None)
    return patterns


# ---- the stand-in graph a matcher sees

class _Value:
    def __init__(self, name: str):
        self.name = name
        self.inputs: List[_Node] = []
        self.outputs: List[_Node] = []
        self.values = None
        self.shape = None
        self.dtype = None

    def __repr__(self):
        return f"Variable({self.name})"


class _Node:
    def __init__(self, proto, index: int):
        from onnx import helper
        self.proto = proto
        self.index = index
        self.op = proto.op_type
        self.name = proto.name
        self.domain = proto.domain
        self.attrs = {a.name: helper.get_attribute_value(a) for a in proto.attribute}
        self.inputs: List[_Value] = []
        self.outputs: List[_Value] = []

    @property
    def feeds(self):
        return [v.inputs[0] if v.inputs else v for v in self.inputs]

    @property
    def users(self):
        return [u for v in self.outputs for u in v.outputs]

    def __repr__(self):
        return f"Node({self.op} {self.name})"


def _stand_in(graph):
    """(nodes, values by name) of an onnx.GraphProto."""
    import numpy as np
    from onnx import numpy_helper
    values: Dict[str, _Value] = {}

    def value(name):
        if name not in values:
            values[name] = _Value(name)
        return values[name]

    for t in graph.initializer:
        v = value(t.name)
        v.values = numpy_helper.to_array(t)
        v.shape, v.dtype = list(v.values.shape), v.values.dtype
    for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
        v = value(vi.name)
        tt = vi.type.tensor_type
        if tt.HasField("shape") and v.shape is None:
            v.shape = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim]
    nodes = []
    for i, p in enumerate(graph.node):
        n = _Node(p, i)
        for name in p.input:
            v = value(name) if name else _Value("")
            n.inputs.append(v)
            if name:
                v.outputs.append(n)
        for name in p.output:
            v = value(name) if name else _Value("")
            n.outputs.append(v)
            v.inputs.append(n)
            if p.op_type == "Constant" and p.domain in ("", "ai.onnx"):
                for a in p.attribute:
                    if a.name == "value":
                        v.values = numpy_helper.to_array(a.t)
                        v.shape, v.dtype = list(v.values.shape), v.values.dtype
        nodes.append(n)
    del np
    return nodes, values


def _opset(model) -> int:
    for oi in model.opset_import:
        if oi.domain in ("", "ai.onnx"):
            return oi.version
    return 0


def _apply(model, layer: str, counter: List[int], spec: Dict[str, Any]) -> None:
    """Puts the node `spec` describes into model.graph in place of its outputs' producers."""
    from onnx import helper, numpy_helper
    g = model.graph
    known = {t.name for t in g.initializer} | {i.name for i in g.input}
    for n in g.node:
        known.update(n.output)

    def name_of(x, what):
        if isinstance(x, str):
            return x
        n = getattr(x, "name", None)
        if n is None:
            raise TypeError(f"fusion pattern {layer}: an entry of {what} has no name ({type(x).__name__})")
        if what == "inputs" and n and n not in known and getattr(x, "values", None) is not None:
            import numpy as np
            g.initializer.append(numpy_helper.from_array(np.asarray(x.values), n))
            known.add(n)
        return n

    inputs = [name_of(x, "inputs") for x in spec.get("inputs", [])]
    outputs = [name_of(x, "outputs") for x in spec.get("outputs", [])]
    if not outputs:
        raise ValueError(f"fusion pattern {layer}: rewrite() gave a node without outputs")
    op = spec.get("op") or layer
    name = spec.get("name") or f"{layer.lower()}_{counter[0]}"
    counter[0] += 1
    # OnnxSlim's replace_custom_layer puts a node of no given domain into ai.onnx.contrib.
    domain = spec["domain"] if "domain" in spec else "ai.onnx.contrib"
    domain = domain or ""
    attrs = dict(spec.get("attrs") or {})
    node = helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs)
    at = None
    keep = []
    for i, n in enumerate(g.node):
        if any(o in outputs for o in n.output):
            if at is None:
                at = len(keep)
            continue
        keep.append(n)
    if at is None:
        at = len(keep)
    keep.insert(at, node)
    _dead_node_free(g, keep)
    if domain not in ("", "ai.onnx") and all(oi.domain != domain for oi in model.opset_import):
        oi = model.opset_import.add()
        oi.domain, oi.version = domain, 1


def _dead_node_free(g, nodes) -> None:
    """g's nodes become `nodes` less those whose outputs nobody reads (repeatedly)."""
    outputs = {o.name for o in g.output}
    while True:
        read = set(outputs)
        for n in nodes:
            read.update(n.input)
            for a in n.attribute:  # subgraphs read outer values by name
                for sg in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                    for sn in sg.node:
                        read.update(sn.input)
        alive = [n for n in nodes if any(o in read for o in n.output if o)]
        if len(alive) == len(nodes):
            break
        nodes = alive
    del g.node[:]
    g.node.extend(nodes)


def fusion_rewriter(layer: str, matchers: List[PatternMatcher]):
    """The user rewrite (onnxtrim.simplify(rewriters=...)) applying the matchers registered under
    `layer` to the model's main graph until none matches (at most 10000 rewrites a round)."""
    counter = [0]

    def rewrite(model):
        opset = _opset(model)
        changed = False
        for _ in range(10000):
            nodes, _ = _stand_in(model.graph)
            spec = None
            for node in reversed(nodes):
                for m in matchers:
                    if m.applies_to(opset) and m.match(node):
                        spec = m.rewrite(opset=opset)
                        break
                if spec is not None:
                    break
            if not spec:
                break
            for entry in spec.values():
                _apply(model, layer, counter, entry)
            changed = True
        return model if changed else False

    rewrite.__name__ = layer
    return rewrite
