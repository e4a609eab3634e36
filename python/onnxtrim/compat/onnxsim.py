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
             mutable_initializer: bool = False, **kwargs) -> Tuple[object, bool]:
    """onnxsim.simplify: returns ``(simplified onnx.ModelProto, check_ok)``.

    check_n -> samples of the check (0: onnxtrim's default check, which never fails the call
    here: a difference gives check_ok False, as in onnxsim); perform_optimization=False ->
    shape inference and folding only; skip_fuse_bn -> skip fuse_conv_bn, fuse_matmul_bn;
    overwrite_input_shapes -> the inputs are declared with these shapes;
    test_input_shapes -> shapes of the check's random inputs; skipped_optimizers -> onnxtrim
    pass names to skip; skip_constant_folding -> no folding; skip_shape_inference -> shapes are
    not written; tensor_size_threshold ("1.5MB") -> size threshold of folding;
    dynamic_input_shape and include_subgraph are what onnxtrim always does.
    """
    if "input_shapes" in kwargs:  # onnxsim's deprecated spelling
        overwrite_input_shapes = kwargs.pop("input_shapes")
    if kwargs:
        raise TypeError(f"simplify() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if input_data is not None:
        _refuse("input_data", "pin inputs with the CLI's --input NAME=FILE.pb, or run onnxtrim.verify")
    if custom_lib is not None:
        _refuse("custom_lib", "custom-domain operators are kept as they are; the check skips such models")
    if unused_output is not None:
        _refuse("unused_output", "graph outputs are never removed")
    if mutable_initializer:
        _refuse("mutable_initializer", "initializers that are also graph inputs are never folded")
    opts: Dict[str, object] = {}
    settings: List[Tuple[str, str]] = []
    if overwrite_input_shapes:
        for name, shape in overwrite_input_shapes.items():
            dims = ",".join(str(int(d)) for d in shape)
            settings.append(("overwrite_input_shape", f"{name}:{dims}" if name else dims))
    if test_input_shapes:
        for name, shape in test_input_shapes.items():
            settings.append(("model_check_inputs", f"{name}:" + ",".join(str(int(d)) for d in shape)))
    if not perform_optimization:
        opts["skip_optimization"] = True
    if skip_fuse_bn:
        opts["skip_fuse_bn"] = True
    skip = list(skipped_optimizers or [])
    if skip_constant_folding:
        opts["constant_folding"] = False
    if skip_shape_inference:
        opts["skip_shape_inference"] = True
    if tensor_size_threshold is not None:
        opts["size_threshold"] = str(tensor_size_threshold).replace(" ", "")
    if check_n:
        opts["samples"] = int(check_n)
    for k, v in settings:
        opts.setdefault(k, []).append(v)  # type: ignore[union-attr]
    try:
        out, _ = onnxtrim.simplify(model, skip=skip or None, **opts)  # type: ignore[arg-type]
    except onnxtrim.VerificationFailed as e:
        # onnxsim returns the model with check_ok False rather than raising.
        return _rerun_unchecked(model, skip, opts), False
    return out, True


def _rerun_unchecked(model, skip, opts):
    opts = dict(opts)
    opts.pop("samples", None)
    out, _ = onnxtrim.simplify(model, skip=skip or None, verify=False, **opts)
    return out
