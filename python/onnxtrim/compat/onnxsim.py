"""onnxsim's Python API on onnxtrim: ``simplify(model, check_n=0, ...) -> (model, check_ok)``."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import onnxtrim

__all__ = ["simplify"]


def _refuse(name: str, instead: str):
    raise TypeError(f"simplify(): '{name}' is not supported by onnxtrim: {instead}")


def simplify(model, check_n: int = 0, perform_optimization: bool = True, skip_fuse_bn: bool = False,
             overwrite_input_shapes: Optional[Dict[Optional[str], Sequence[int]]] = None,
             test_input_shapes: Optional[Dict[Optional[str], Sequence[int]]] = None,
             skipped_optimizers: Optional[Sequence[str]] = None, skip_constant_folding: bool = False,
             skip_shape_inference: bool = False, input_data: Optional[Dict[str, object]] = None,
             dynamic_input_shape: bool = False, custom_lib: Optional[str] = None, include_subgraph: bool = False,
             unused_output: Optional[Sequence[str]] = None, tensor_size_threshold: Optional[str] = None,
             mutable_initializer: bool = False, custom_rewriter=None, function_rewrite_rules=None,
             **kwargs) -> Tuple[object, bool]:
    """onnxsim.simplify: returns ``(simplified onnx.ModelProto, check_ok)``.

    Each parameter is the CLI's onnxsim flag of the same name (one option table):
    check_n -> --check-n (the check forced on with that many samples; 0: onnxtrim's default
    check); either way a difference gives check_ok False, as in onnxsim, not an exception;
    perform_optimization=False -> --skip-optimization (shape inference and folding only);
    skip_fuse_bn -> --skip-fuse-bn; overwrite_input_shapes ({name or None: shape}) ->
    --overwrite-input-shape; test_input_shapes -> --test-input-shape (the check's inputs only);
    skipped_optimizers (onnxoptimizer names such as "fuse_bn_into_conv") -> --skip-optimization
    NAME ...; skip_constant_folding -> --skip-constant-folding; skip_shape_inference ->
    --skip-shape-inference; tensor_size_threshold ("1.5MB") -> --no-large-tensor;
    unused_output (graph output names) -> --unused-output: those outputs removed, with what only
    they need (an unknown name is a UsageError, as onnxsim's RuntimeError); dynamic_input_shape
    and include_subgraph are what onnxtrim always does. input_data, custom_lib and
    mutable_initializer=True raise a TypeError naming them.
    User rewrite rules (docs/rewrite-rules.md), run in every round of the fixed point:
    custom_rewriter (fn(onnx.ModelProto) -> the changed model, None after changing it in place,
    False when it changed nothing) -> onnxtrim.simplify(rewriters=...), the pass
    user:custom_rewriter; function_rewrite_rules ([(pattern, replacement)] onnx.FunctionProto
    pairs) -> rewrite_rules=..., matched by onnxtrim's rewrite engine. Both may be given.
    """
    if "input_shapes" in kwargs:  # onnxsim's deprecated spelling
        overwrite_input_shapes = kwargs.pop("input_shapes")
    if kwargs:
        raise TypeError(f"simplify() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if input_data is not None:
        _refuse("input_data", "pin inputs with the CLI's --input NAME=FILE.pb, or run onnxtrim.verify")
    if custom_lib is not None:
        _refuse("custom_lib", "custom-domain operators are kept as they are; the check skips such models")
    if mutable_initializer:
        _refuse("mutable_initializer", "initializers that are also graph inputs are never folded")
    opts: Dict[str, object] = {}
    settings: List[Tuple[str, str]] = []
    for option, shapes in (("overwrite_input_shape", overwrite_input_shapes), ("test_input_shape", test_input_shapes)):
        for name, shape in (shapes or {}).items():
            dims = ",".join(str(int(d)) for d in shape)
            # the name quoted: whole whatever it holds (TensorFlow's "input_1:0", spaces, commas)
            settings.append((option, f"{onnxtrim._quote(name)}:{dims}" if name is not None else dims))
    if not perform_optimization:
        opts["skip_optimization"] = True
    elif skipped_optimizers:
        opts["skip_optimization"] = " ".join(skipped_optimizers)
    if skip_fuse_bn:
        opts["skip_fuse_bn"] = True
    if skip_constant_folding:
        opts["skip_constant_folding"] = True
    if skip_shape_inference:
        opts["skip_shape_inference"] = True
    if tensor_size_threshold is not None:
        opts["no_large_tensor"] = str(tensor_size_threshold).replace(" ", "")
    if check_n:
        opts["check_n"] = int(check_n)
    if unused_output:
        names = [unused_output] if isinstance(unused_output, str) else list(unused_output)
        # one occurrence per name, quoted: whole whatever it holds
        settings.extend(("unused_output", onnxtrim._quote(n)) for n in names)
    for k, v in settings:
        opts.setdefault(k, []).append(v)  # type: ignore[union-attr]
    if custom_rewriter is not None:
        if not callable(custom_rewriter):
            raise TypeError("simplify(): custom_rewriter must be callable")
        opts["rewriters"] = [("custom_rewriter", custom_rewriter)]
    if function_rewrite_rules:
        opts["rewrite_rules"] = list(function_rewrite_rules)
    try:
        out, _ = onnxtrim.simplify(model, **opts)  # type: ignore[arg-type]
    except onnxtrim.VerificationFailed:
        # onnxsim returns the model with check_ok False rather than raising.
        return _rerun_unchecked(model, opts), False
    return out, True


def _rerun_unchecked(model, opts):
    opts = dict(opts)
    opts.pop("check_n", None)
    opts.pop("test_input_shape", None)
    out, _ = onnxtrim.simplify(model, verify=False, **opts)
    return out
