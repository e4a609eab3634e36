"""OnnxSlim's Python API on onnxtrim: ``slim(model, output_model=None, **kwargs)``."""
from __future__ import annotations

from typing import Dict, List, Optional

import onnxtrim

from .onnxslim_pattern import (NodeDescriptor, Pattern, PatternMatcher, fusion_rewriter,  # noqa: F401
                               get_fusion_patterns, register_fusion_pattern)

__all__ = ["slim", "Pattern", "PatternMatcher", "register_fusion_pattern"]

# OnnxSlim's skip_optimizations (the option table's --skip-optimizations maps them to passes)
_OPTIMIZATIONS = ("constant_folding", "graph_fusion", "dead_node_elimination", "subexpression_elimination",
                  "weight_tying")

# OnnxSlim's "NAME:DTYPE" retyping of a cut point (refused)
_DTYPES = {"fp16", "fp32", "int32", "int64", "bool", "bf16"}

_KNOWN = {"model_check", "input_shapes", "inputs", "outputs", "no_shape_infer", "skip_optimizations", "dtype",
          "skip_fusion_patterns", "size_threshold", "inspect", "dump_to_disk", "save_as_external_data",
          "model_check_inputs", "verbose", "no_constant_folding", "output_model"}


def slim(model, *args, **kwargs):
    """onnxslim.slim: with ``output_model`` the result is written there (None returned), else the
    slimmed onnx.ModelProto is returned; with ``model_check`` a result that differs gives None.

    model_check -> the check forced on; input_shapes ["x:1,3,224,224"] -> inputs declared with
    these shapes; model_check_inputs ["x:1,3,224,224" or "x:data.npy"] -> the check's inputs;
    no_shape_infer -> shapes not written; skip_optimizations -> passes skipped (constant_folding,
    graph_fusion, dead_node_elimination, subexpression_elimination, weight_tying);
    skip_fusion_patterns -> OnnxSlim pattern names or onnxtrim passes; size_threshold -> folding's
    threshold; save_as_external_data -> external data; verbose is accepted (OnnxSlim's debug log;
    the report's passes say what each did); inputs / outputs ["name", ...] -> the graph cut there
    (onnxtrim's inputs= / outputs=). dtype "fp16" / "fp32" (or "bf16") -> onnxtrim's --dtype with
    --no-keep-io-types: inputs and outputs take the new type too, as OnnxSlim's conversion does.
    A list of models is OnnxSlim's inspection: each model's summary printed (the CLI's
    --inspect), with dump_to_disk its nodes appended to STEM_model_info.csv, and None returned.
    With one model, inspect changes nothing (as in OnnxSlim's slim(): the model is slimmed);
    inspect with dump_to_disk also writes the CSV (--inspect --dump-to-disk).
    """
    if len(args) > 1:
        raise TypeError("slim() takes the model and at most one output_model positionally")
    output_model = args[0] if args else kwargs.pop("output_model", None)
    for k in kwargs:
        if k not in _KNOWN:
            raise TypeError(f"slim() got an unexpected keyword argument '{k}'")
    # dump_to_disk: with inspect, each model's nodes to STEM_model_info.csv (the CLI's
    # --inspect --dump-to-disk); without inspect it does nothing, as in OnnxSlim's slim().
    if isinstance(model, (list, tuple)):  # OnnxSlim's inspection of several models: printed, None returned
        for m in model:
            _inspect_cli(m, bool(kwargs.get("dump_to_disk")))
        return None
    if kwargs.get("inspect") and kwargs.get("dump_to_disk"):
        _inspect_cli(model, True)
    opts: Dict[str, object] = {}
    skip: List[str] = []
    if kwargs.get("model_check"):
        opts["model_check"] = True
    for k in ("input_shapes", "model_check_inputs"):  # ["x:1,3,224,224", ...] (or a dict, as OnnxSlim's type hints say)
        if kwargs.get(k):
            v = kwargs[k]
            if isinstance(v, dict):
                pairs = [(name, s if isinstance(s, str) else ",".join(str(int(d)) for d in s)) for name, s in v.items()]
            else:
                # OnnxSlim cuts "NAME:VALUE" at the last ':' ("input_1:0:1,3" is input_1:0's shape)
                pairs = [tuple(item.rsplit(":", 1)) if ":" in item else (None, item)
                         for item in ([v] if isinstance(v, str) else v)]
            # the table's OnnxSlim entries (--input-shapes, --model-check-inputs), not simplify()'s
            # input_shapes=: one occurrence per input, name and value quoted (kept whole)
            opts[k.replace("_", "-")] = [value if name is None else f"{onnxtrim._quote(name)}:{onnxtrim._quote(value)}"
                                         for name, value in pairs]
    for k in ("inputs", "outputs"):  # OnnxSlim's cut: ["name", ...] (a "name:dtype" retyping is refused)
        if kwargs.get(k):
            names = kwargs[k]
            names = [names] if isinstance(names, str) else [str(n) for n in names]
            for n in names:
                if n.rsplit(":", 1)[-1] in _DTYPES and ":" in n:
                    raise onnxtrim.UsageError(f"--{k}: '{n}': changing the type of a cut point is not supported "
                                              "(give the name alone)")
            opts[k] = names  # onnxtrim.simplify's inputs= / outputs=: names passed whole
    if kwargs.get("no_shape_infer"):
        opts["no_shape_infer"] = True
    if kwargs.get("no_constant_folding"):
        opts["constant_folding"] = False
    sk = kwargs.get("skip_optimizations") or []
    for o in [sk] if isinstance(sk, str) else sk:
        if o not in _OPTIMIZATIONS:
            raise TypeError(f"slim(): unknown optimization '{o}' in skip_optimizations "
                            f"(known: {', '.join(_OPTIMIZATIONS)})")
        opts.setdefault("skip_optimizations", []).append(o)  # type: ignore[union-attr]
    # Patterns registered with register_fusion_pattern run as user rewrites (user:NAME), unless
    # skipped by name or graph_fusion is skipped; the other names go to the option table.
    skipped = list(kwargs.get("skip_fusion_patterns") or [])
    registered = get_fusion_patterns(skipped)
    if registered and "graph_fusion" not in (opts.get("skip_optimizations") or []):
        opts["rewriters"] = [(name, fusion_rewriter(name, matchers)) for name, matchers in registered.items()]
    from .onnxslim_pattern import DEFAULT_FUSION_PATTERNS
    builtin_skipped = [p for p in skipped if p not in DEFAULT_FUSION_PATTERNS]
    if builtin_skipped:
        opts["skip_fusion_patterns"] = " ".join(builtin_skipped)
    if kwargs.get("dtype"):
        # OnnxSlim's "fp16" / "fp32" (and onnxtrim's "bf16"): OnnxSlim converts the inputs and
        # outputs too (onnxconverter_common's keep_io_types=False; fp32 undoes an fp16 model's)
        opts["dtype"] = str(kwargs["dtype"])
        opts["keep_io_types"] = False
    if kwargs.get("size_threshold") is not None:
        opts["size_threshold"] = int(kwargs["size_threshold"])
    try:
        if output_model is not None:
            if kwargs.get("save_as_external_data"):
                opts["save_as_external_data"] = True
            src = model if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__") else None
            if src is None or isinstance(src, bytes):
                out, _ = onnxtrim.simplify(model, skip=skip or None, **opts)  # type: ignore[arg-type]
                import onnx
                onnx.save(out, output_model, save_as_external_data=bool(kwargs.get("save_as_external_data")))
            else:
                onnxtrim.simplify_file(src, output_model, skip=skip or None, **opts)
            return None
        out, _ = onnxtrim.simplify(model, skip=skip or None, **opts)  # type: ignore[arg-type]
        return out
    except onnxtrim.VerificationFailed:
        if kwargs.get("model_check"):
            return None
        raise


def _inspect_cli(model, dump_to_disk: bool) -> None:
    """The CLI's --inspect of one model: its summary printed on stdout; with dump_to_disk
    (OnnxSlim's) its nodes appended to STEM_model_info.csv in the current folder (STEM: the
    file's, or "OnnxModel" for a ModelProto, as OnnxSlim names it)."""
    import os
    import tempfile

    from .. import _cli
    flags = ["--inspect"] + (["--dump-to-disk"] if dump_to_disk else [])
    if isinstance(model, (str, os.PathLike)):
        rc = _cli.main(flags + [os.fspath(model)])
    else:
        import onnx
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "OnnxModel.onnx")
            if isinstance(model, (bytes, bytearray)):
                with open(path, "wb") as f:
                    f.write(model)
            else:
                onnx.save(model, path)
            rc = _cli.main(flags + [path])
    if rc != 0:
        raise onnxtrim.Error(f"slim(): inspecting {model if isinstance(model, str) else 'the model'} failed (exit {rc})")
