"""Known defects (issue 12), recognised on a reduced failing model so that a campaign records
them instead of reporting them again. Each entry: a pattern on the model and the failure kinds
it causes. Remove an entry once its fix has landed: the fixed-seed set then guards it."""
import onnx

REDUCE_ELEMENTWISE = {"ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum"}


def all_nodes(graph, depth=0):
    for nd in graph.node:
        yield nd, depth
        for a in nd.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from all_nodes(a.g, depth + 1)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for s in a.graphs:
                    yield from all_nodes(s, depth + 1)


def attr(nd, name, default=None):
    for a in nd.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def f1(model):
    # Reduce{L1,L2,SumSquare,LogSum} with noop_with_empty_axes=1 and no axes
    return any(nd.op_type in REDUCE_ELEMENTWISE and attr(nd, "noop_with_empty_axes", 0) == 1
               and (len(nd.input) < 2 or not nd.input[1]) for nd, _ in all_nodes(model.graph))


def f2(model):
    return any(nd.op_type == "BatchNormalization" and attr(nd, "training_mode", 0) == 1 for nd, _ in all_nodes(model.graph))


def f3(model):
    # a Conv/Gemm of the outer graph whose output is read inside an If/Loop body
    from reducer import subgraph_reads
    prods = {o for nd in model.graph.node if nd.op_type in ("Conv", "ConvTranspose", "Gemm", "MatMul") for o in nd.output}
    return any(subgraph_reads(nd) & prods for nd in model.graph.node if nd.op_type in ("If", "Loop", "Scan"))


def f4(model):
    return any(nd.op_type == "Resize" and attr(nd, "coordinate_transformation_mode", b"half_pixel") == b"align_corners"
               for nd, _ in all_nodes(model.graph))


def f5(model):
    return any(nd.domain not in ("", "ai.onnx") for nd, _ in all_nodes(model.graph))


def f6(model):
    init = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    for nd, _ in all_nodes(model.graph):
        if nd.op_type == "Pad" and attr(nd, "mode", b"constant") == b"wrap":
            p = init.get(nd.input[1]) if len(nd.input) > 1 else None
            if p is None:
                for c in model.graph.node:
                    if c.op_type == "Constant" and c.output[0] == nd.input[1]:
                        p = onnx.numpy_helper.to_array(attr(c, "value")) if attr(c, "value") is not None else None
            if p is None or (p < 0).any():
                return True
    return False


KNOWN = [
    # F1 (Reduce* noop_with_empty_axes), F2 (BatchNormalization training outputs), F3 (fusions
    # across If/Loop borders), F4 (Resize align_corners), F5 (element type 0 after a
    # custom-domain op) and F6 (Pad wrap with negative pads) are fixed: a failure with them fails
    # again. Their patterns (f1..f6 above) stay, to put an entry back while a regression is being
    # fixed, e.g. ("F5", "element type 0 after a custom-domain op", f5, {"ort_error", "checker"}).
    # F5 was checked on the ten generator seeds of 3000-3399 that make its Gelu -> Reshape
    # (3020, 3082, 3133, 3181, 3237, 3274, 3282, 3305, 3382, 3388): all pass with --strict-known.
]


def classify(model, failure):
    """The known defect this reduced failing model shows, or None."""
    for tag, what, pattern, kinds in KNOWN:
        if failure.kind in kinds and pattern(model):
            return tag, what
    return None
