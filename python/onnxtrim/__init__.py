"""onnxtrim: simplify ONNX models — smaller, checked against the original, runtime-ready.

    import onnxtrim
    model, report = onnxtrim.simplify("model.onnx", dims={"batch": 1})
    print(report)

A thin layer over the C++ library: every keyword maps onto an option of the command line
(``onnxtrim --help``); errors raise subclasses of :class:`Error` that mirror its exit codes.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _onnxtrim

__version__ = _onnxtrim.version()

__all__ = [
    "simplify", "simplify_file", "run", "verify", "infer_shapes", "inspect", "option_table",
    "Report", "VerifyResult", "Error", "UsageError", "FileError", "ParseError", "InvalidModel",
    "Unsupported", "VerificationFailed", "InternalError", "__version__",
]


class Error(Exception):
    """An onnxtrim failure; ``exit_code`` is the CLI's exit code for it."""

    exit_code = 70

    def __init__(self, message: str, report: Optional["Report"] = None):
        super().__init__(message)
        self.message = message
        self.report = report


class VerificationFailed(Error):
    """The result computes other outputs than the original (exit code 1); see ``.report``."""
    exit_code = 1


class UsageError(Error, ValueError):
    """A bad option or argument (exit code 2)."""
    exit_code = 2


class FileError(Error, OSError):
    """A file missing, unreadable or unwritable (exit code 3)."""
    exit_code = 3


class ParseError(Error):
    """Not an ONNX model: corrupt or truncated protobuf (exit code 4)."""
    exit_code = 4


class InvalidModel(Error):
    """An invalid model: undefined value, cycle, bad external data ... (exit code 5)."""
    exit_code = 5


class Unsupported(Error):
    """An operator the evaluator lacks, a custom domain (exit code 6)."""
    exit_code = 6


class InternalError(Error):
    """A bug in onnxtrim (exit code 70): please report it."""
    exit_code = 70


_BY_CODE = {c.exit_code: c for c in (VerificationFailed, UsageError, FileError, ParseError, InvalidModel,
                                     Unsupported, InternalError)}


def _call(fn, *args):
    try:
        return fn(*args)
    except _onnxtrim.NativeError as e:
        code, message, report_json = e.args
        report = Report(report_json) if report_json else None
        raise _BY_CODE.get(code, InternalError)(message, report) from None


class Report:
    """What a run did: statistics before and after, passes, stages, warnings and the check."""

    def __init__(self, report_json: str, text: str = ""):
        self._json = report_json
        self._text = text
        d = json.loads(report_json)
        self.before: Dict[str, Any] = d["before"]
        self.after: Dict[str, Any] = d["after"]
        self.stages: List[Dict[str, Any]] = d["stages"]
        self.passes: List[Dict[str, Any]] = d["passes"]
        self.rounds: int = d["rounds"]
        self.converged: bool = d["converged"]
        self.warnings: List[str] = d["warnings"]
        self.verification: Dict[str, Any] = d["verification"]
        # dtype=: what the conversion did (converted nodes, Casts, nodes kept in float32 and why)
        self.conversion: Optional[Dict[str, Any]] = d.get("conversion")
        # opset=N: the opset conversion (from, to, nodes converted / rewritten / expanded, notes)
        self.opset: Optional[Dict[str, Any]] = d.get("opset")
        # the passes' size per round: [{round, nodes, initializer_bytes}], round 0 before the first
        self.round_stats: List[Dict[str, Any]] = d.get("round_stats", [])
        # graph_diff=True, profile=True, inline_functions=True (None when not asked for)
        self.graph_diff: Optional[Dict[str, Any]] = d.get("graph_diff")
        self.profile: Optional[List[Dict[str, Any]]] = d.get("profile")
        self.inlined_functions: Optional[Dict[str, Any]] = d.get("inlined_functions")

    def to_json(self) -> str:
        return self._json

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self._json)

    def __str__(self) -> str:
        return self._text or self._json

    def __repr__(self) -> str:
        return (f"Report(nodes {self.before['nodes']} -> {self.after['nodes']}, "
                f"check {'ok' if self.verification.get('ok') else 'FAILED'}"
                f"{' (skipped)' if self.verification.get('skipped') else ''})")


class VerifyResult:
    """Per-output max absolute and relative difference, and ``ok``."""

    def __init__(self, d: Dict[str, Any]):
        self.ok: bool = d["ok"]
        self.samples: int = d["samples"]
        self.rtol: float = d["rtol"]
        self.atol: float = d["atol"]
        self.dims: Dict[str, int] = d["dims"]
        self.outputs: List[Dict[str, Any]] = d["outputs"]
        self.why: str = d["why"]

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return f"VerifyResult(ok={self.ok}, outputs={self.outputs})"


def option_table() -> List[Dict[str, Any]]:
    """The options (name, metavar, help, group) that the CLI, the C API and this package share."""
    return _onnxtrim.option_table()


# ---- arguments -> (option name, value) pairs of the shared table

def _quote(name: Any) -> str:
    """A value name as the option table takes it whatever it holds (spaces, commas, ':', '='):
    in double quotes, with \\ and \" for a backslash and a quote (docs/options.md)."""
    return '"' + str(name).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _shape_arg(name: str, shape: Sequence[int]) -> str:
    return _quote(name) + ":" + ",".join(str(int(d)) for d in shape)


def _settings(*, input_shapes=None, dims=None, passes=None, skip=None, constant_folding=True,
              size_threshold=None, target=None, verify=None, max_rounds=None, samples=None, seed=None,
              rtol=None, atol=None, dtype=None, keep_io_types=None, inputs=None, outputs=None, add_outputs=None, rename=None, batch=None,
              **extra) -> List[Tuple[str, str]]:
    s: List[Tuple[str, str]] = []
    if dtype is not None:
        s.append(("dtype", str(dtype)))
    if keep_io_types is not None:
        s.append(("keep-io-types", "true" if keep_io_types else "false"))
    # surgery: names are the original model's; rename acts last. One option per name, quoted,
    # so that a name holding a space, a comma or a ':' reaches the table whole.
    for opt, names in (("inputs", inputs), ("outputs", outputs), ("add-outputs", add_outputs)):
        if names is None:
            continue
        if opt == "add-outputs" and names == "all":
            s.append((opt, "all"))
            continue
        if isinstance(names, str):
            names = [names]
        for n in names:
            s.append((opt, _quote(n)))
    for old, new in (rename or {}).items():
        s.append(("rename", f"{_quote(old)}={_quote(new)}"))
    if batch is not None:
        s.append(("batch", str(batch)))
    for k, v in (input_shapes or {}).items():
        s.append(("input-shape", _shape_arg(k, v)))
    for k, v in (dims or {}).items():
        s.append(("dim", f"{_quote(k)}={int(v)}"))
    if passes is not None:
        s.append(("passes", ",".join(passes)))
    if skip:
        s.append(("skip", ",".join(skip)))
    if not constant_folding:
        s.append(("no-constant-folding", ""))
    if size_threshold is not None:
        s.append(("size-threshold", str(size_threshold)))
    if target is not None:
        s.append(("target", str(target)))
    if verify is True:
        s.append(("verify", ""))
    elif verify is False:
        s.append(("no-verify", ""))
    if max_rounds is not None:
        s.append(("max-rounds", str(int(max_rounds))))
    if samples is not None:
        s.append(("samples", str(int(samples))))
    if seed is not None:
        s.append(("seed", str(int(seed))))
    if rtol is not None:
        s.append(("rtol", repr(float(rtol))))
    if atol is not None:
        s.append(("atol", repr(float(atol))))
    for k, v in extra.items():  # any other option of the table, by its CLI name
        name = k.replace("_", "-")
        if v is True:
            s.append((name, ""))
        elif v is False or v is None:
            continue
        elif isinstance(v, (list, tuple)):
            for x in v:
                s.append((name, str(x)))
        else:
            s.append((name, str(v)))
    _call(_onnxtrim.check_options, s)
    return s


def _source(model) -> Tuple[Any, str]:
    """A model argument -> (bytes or path, folder of its external data)."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), ""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        return path, os.path.dirname(os.path.abspath(path))
    if hasattr(model, "SerializeToString"):
        return model.SerializeToString(), ""
    raise TypeError(f"model must be an onnx.ModelProto, bytes or a path, not {type(model).__name__}")


def _to_proto(data: bytes):
    import onnx
    return onnx.load_from_string(data)


# ---- user rewrite rules (docs/rewrite-rules.md)

def _rewriter_call(fn):
    """A Python rewriter as the native layer calls it: serialized model in, serialized model out,
    or None when it changed nothing."""
    def call(data: bytes):
        import onnx
        m = onnx.ModelProto()
        m.ParseFromString(data)
        r = fn(m)
        if r is False:
            return None
        if r is None or r is True:  # changed in place (or not: the bytes tell)
            r = m
        if isinstance(r, (bytes, bytearray)):
            return bytes(r)
        if hasattr(r, "SerializeToString"):
            return r.SerializeToString()
        raise TypeError("a rewriter returns an onnx.ModelProto, True or None (changed in place) or False "
                        f"(nothing changed), not {type(r).__name__}")
    return call


def _rewriters(rewriters) -> List[Tuple[str, Any]]:
    """rewriters= (a callable, a list of callables or of (name, callable), or {name: callable})
    -> [(name, native callback)]."""
    if rewriters is None:
        return []
    if callable(rewriters):
        rewriters = [rewriters]
    items = list(rewriters.items()) if isinstance(rewriters, Mapping) else list(rewriters)
    out = []
    for i, item in enumerate(items):
        if isinstance(item, tuple):
            name, fn = item
        else:
            fn = item
            name = getattr(fn, "__name__", "")
            if not name or name.startswith("<"):
                name = f"rewriter_{i}"
        if not callable(fn):
            raise UsageError(f"rewriters: {name!r} is not callable")
        out.append((str(name), _rewriter_call(fn)))
    return out


def _rules_model(pairs):
    """(pattern, replacement) FunctionProto pairs -> a ModelProto whose functions are NAME and
    NAME_replacement (the rules file convention)."""
    import onnx
    m = onnx.ModelProto()
    m.ir_version = 8
    m.graph.name = "rewrite_rules"
    opsets: Dict[str, int] = {}
    names = set()
    for i, pair in enumerate(pairs):
        try:
            pattern, replacement = pair
        except (TypeError, ValueError):
            raise UsageError("rewrite_rules: each rule is a (pattern, replacement) pair of onnx.FunctionProto") from None
        if not isinstance(pattern, onnx.FunctionProto) or not isinstance(replacement, onnx.FunctionProto):
            raise UsageError("rewrite_rules: each rule is a (pattern, replacement) pair of onnx.FunctionProto")
        name = pattern.name or f"rule_{i}"
        while name in names:
            name = f"{name}_{i}"
        names.add(name)
        for f, n in ((pattern, name), (replacement, name + "_replacement")):
            c = m.functions.add()
            c.CopyFrom(f)
            c.name = n
            if not c.domain:
                c.domain = "rewrite.rules"
            for oi in f.opset_import:
                opsets[oi.domain] = max(opsets.get(oi.domain, 0), oi.version)
    for d, v in opsets.items():
        oi = m.opset_import.add()
        oi.domain = d
        oi.version = v
    return m


class _UserRules:
    """rewrite_rules= as --rewrite-rules settings (pairs written to a temporary .onnx file, removed
    on exit)."""

    def __init__(self, rewrite_rules):
        self.settings: List[Tuple[str, str]] = []
        self._tmp: List[str] = []
        if rewrite_rules is None:
            return
        import tempfile
        items = [rewrite_rules] if isinstance(rewrite_rules, (str, os.PathLike)) or hasattr(
            rewrite_rules, "functions") else list(rewrite_rules)
        pairs = []
        for item in items:
            if isinstance(item, (str, os.PathLike)):
                self.settings.append(("rewrite-rules", os.fspath(item)))
            elif hasattr(item, "functions"):  # a ModelProto of NAME / NAME_replacement functions
                self.settings.append(("rewrite-rules", self._write(item.SerializeToString())))
            else:
                pairs.append(item)
        if pairs:
            self.settings.append(("rewrite-rules", self._write(_rules_model(pairs).SerializeToString())))

    def _write(self, data: bytes) -> str:
        import tempfile
        fd, path = tempfile.mkstemp(suffix=".onnx", prefix="onnxtrim_rules_")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        self._tmp.append(path)
        return path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for p in self._tmp:
            try:
                os.remove(p)
            except OSError:
                pass


def simplify(model, *, input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
             dims: Optional[Mapping[str, int]] = None, passes: Optional[Sequence[str]] = None,
             skip: Optional[Sequence[str]] = None, constant_folding: bool = True,
             size_threshold: Optional[int] = None, target: Optional[str] = None, verify: Optional[bool] = None,
             max_rounds: Optional[int] = None, dtype: Optional[str] = None,
             keep_io_types: Optional[bool] = None, inputs: Optional[Sequence[str]] = None,
             outputs: Optional[Sequence[str]] = None, add_outputs=None, rename: Optional[Mapping[str, str]] = None,
             batch=None, rewriters=None, rewrite_rules=None, **options):
    """Simplify ``model`` (an onnx.ModelProto, bytes or a path) and check the result against it.

    Surgery, before the passes (names are the original's): ``outputs=["a"]`` / ``inputs=["x"]`` cut
    the graph there; ``add_outputs="all"`` or ``["v"]`` marks values as extra outputs;
    ``rename={"old": "new"}`` renames graph inputs/outputs; ``batch=4`` fixes the leading dim of
    the inputs, ``batch="dynamic"`` frees a batch the export fixed.

    Returns ``(onnx.ModelProto, Report)``. ``verify``: None checks unless the check cannot run or
    costs too much (the report says why), True always checks, False never. Other keywords are
    the CLI's options by name (``samples=3``, ``seed=1``, ``keep_constant_nodes=True``).
    ``dtype="fp16"`` / ``"bf16"`` / ``"fp32"`` converts the float computation (``keep_io_types``,
    on by default, keeps the inputs' and outputs' types); ``report.conversion`` says which nodes
    stayed in float32 and why, and the check compares by relative L2 error per output.
    ``opset=13`` converts the default ONNX domain to that opset (up or down) before the passes;
    ``report.opset`` says what changed.
    Raises :class:`VerificationFailed` when the result differs, other :class:`Error` subclasses
    on bad input. Past 2 GB use :func:`simplify_file`.

    Your own rewrites (docs/rewrite-rules.md), run in every round after the built-in passes as the
    passes ``user:NAME``: ``rewriters=fn`` (or a list, or ``{name: fn}``), ``fn(onnx.ModelProto)``
    returning the changed model, True/None when it changed the model in place, False when it
    changed nothing; ``rewrite_rules=`` a rules file, or ``[(pattern, replacement)]`` pairs of
    ``onnx.FunctionProto`` (the pattern's inputs are wildcards). The check compares the result
    with the original as always.
    """
    s = _settings(input_shapes=input_shapes, dims=dims, passes=passes, skip=skip,
                  constant_folding=constant_folding, size_threshold=size_threshold, target=target,
                  verify=verify, max_rounds=max_rounds, dtype=dtype,
                  keep_io_types=keep_io_types, inputs=inputs, outputs=outputs, add_outputs=add_outputs,
                  rename=rename, batch=batch, **options)
    src, base = _source(model)
    callbacks = _rewriters(rewriters)
    with _UserRules(rewrite_rules) as rules:
        data, rep_json, text = _call(_onnxtrim.simplify, src, base, s + rules.settings, callbacks)
    del src  # the serialized input goes before the result is parsed: one extra copy at a time
    return _to_proto(data), Report(rep_json, text)


def simplify_file(src: Union[str, os.PathLike], dst: Union[str, os.PathLike], *, rewriters=None,
                  rewrite_rules=None, **kwargs) -> Report:
    """Like :func:`simplify` from file to file: external data in and out, models past 2 GB.
    Takes the same keywords, plus the saving options (``external_data="always"``, ...)."""
    s = _settings(**kwargs)
    callbacks = _rewriters(rewriters)
    with _UserRules(rewrite_rules) as rules:
        rep_json, text = _call(_onnxtrim.simplify_file, os.fspath(src), os.fspath(dst), s + rules.settings, callbacks)
    return Report(rep_json, text)


def run(model, feeds: Mapping[str, Any], *, fast: bool = False) -> Dict[str, Any]:
    """Run ``model`` with the reference evaluator: ``{input name: numpy array}`` in, outputs out.
    Contiguous arrays are read in place (not copied)."""
    src, base = _source(model)
    return _call(_onnxtrim.run, src, base, dict(feeds), bool(fast))


def verify(a, b, *, samples: int = 3, seed: int = 0, rtol: Optional[float] = None, atol: Optional[float] = None,
           dims: Optional[Mapping[str, int]] = None,
           input_shapes: Optional[Mapping[str, Sequence[int]]] = None) -> VerifyResult:
    """Run ``a`` and ``b`` on the same random inputs and compare every output."""
    s = _settings(samples=samples, seed=seed, rtol=rtol, atol=atol, dims=dims, input_shapes=input_shapes)
    sa, ba = _source(a)
    sb, bb = _source(b)
    return VerifyResult(_call(_onnxtrim.verify, sa, ba, sb, bb, s))


def infer_shapes(model, *, dims: Optional[Mapping[str, int]] = None,
                 input_shapes: Optional[Mapping[str, Sequence[int]]] = None):
    """Return the model with every inferred type and shape written as value_info (symbolic dims
    as dim_param expressions such as ``batch`` or ``2*seq``)."""
    s = _settings(dims=dims, input_shapes=input_shapes)
    src, base = _source(model)
    return _to_proto(_call(_onnxtrim.infer_shapes, src, base, s))


def inspect(model) -> Dict[str, Any]:
    """Inputs and outputs with their types, opsets, the op histogram and sizes."""
    src, base = _source(model)
    return json.loads(_call(_onnxtrim.inspect, src, base))
