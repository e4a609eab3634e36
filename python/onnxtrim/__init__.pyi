from os import PathLike
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy
import onnx

__version__: str

ModelLike = Union[onnx.ModelProto, bytes, str, PathLike]
# A user rewrite (docs/rewrite-rules.md): the changed model, True/None (changed in place) or False.
Rewriter = Callable[[onnx.ModelProto], Union[onnx.ModelProto, bool, None]]
Rewriters = Union[Rewriter, Sequence[Union[Rewriter, Tuple[str, Rewriter]]], Mapping[str, Rewriter], None]
RewriteRules = Union[str, PathLike, onnx.ModelProto,
                     Sequence[Union[str, PathLike, Tuple[onnx.FunctionProto, onnx.FunctionProto]]], None]

class Error(Exception):
    exit_code: int
    message: str
    report: Optional[Report]
    def __init__(self, message: str, report: Optional[Report] = ...) -> None: ...

class VerificationFailed(Error): ...
class UsageError(Error, ValueError): ...
class FileError(Error, OSError): ...
class ParseError(Error): ...
class InvalidModel(Error): ...
class Unsupported(Error): ...
class InternalError(Error): ...

class Report:
    before: Dict[str, Any]
    after: Dict[str, Any]
    stages: List[Dict[str, Any]]
    passes: List[Dict[str, Any]]
    rounds: int
    converged: bool
    warnings: List[str]
    verification: Dict[str, Any]
    conversion: Optional[Dict[str, Any]]
    opset: Optional[Dict[str, Any]]
    def __init__(self, report_json: str, text: str = ...) -> None: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

class VerifyResult:
    ok: bool
    samples: int
    rtol: float
    atol: float
    dims: Dict[str, int]
    outputs: List[Dict[str, Any]]
    why: str
    def __bool__(self) -> bool: ...

def option_table() -> List[Dict[str, Any]]: ...
def simplify(model: ModelLike, *, input_shapes: Optional[Mapping[str, Sequence[int]]] = ...,
             dims: Optional[Mapping[str, int]] = ..., passes: Optional[Sequence[str]] = ...,
             skip: Optional[Sequence[str]] = ..., constant_folding: bool = ..., size_threshold: Optional[int] = ...,
             target: Optional[str] = ..., verify: Optional[bool] = ..., max_rounds: Optional[int] = ...,
             dtype: Optional[str] = ..., keep_io_types: Optional[bool] = ...,
             inputs: Optional[Sequence[str]] = ..., outputs: Optional[Sequence[str]] = ...,
             add_outputs: Union[str, Sequence[str], None] = ..., rename: Optional[Mapping[str, str]] = ...,
             batch: Union[int, str, None] = ..., rewriters: Rewriters = ..., rewrite_rules: RewriteRules = ...,
             **options: Any) -> Tuple[onnx.ModelProto, Report]: ...
def simplify_file(src: Union[str, PathLike], dst: Union[str, PathLike], *,
                  inputs: Optional[Sequence[str]] = ..., outputs: Optional[Sequence[str]] = ...,
                  add_outputs: Union[str, Sequence[str], None] = ..., rename: Optional[Mapping[str, str]] = ...,
                  batch: Union[int, str, None] = ..., rewriters: Rewriters = ...,
                  rewrite_rules: RewriteRules = ..., **kwargs: Any) -> Report: ...
def run(model: ModelLike, feeds: Mapping[str, numpy.ndarray], *, fast: bool = ...) -> Dict[str, numpy.ndarray]: ...
def verify(a: ModelLike, b: ModelLike, *, samples: int = ..., seed: int = ..., rtol: Optional[float] = ...,
           atol: Optional[float] = ..., dims: Optional[Mapping[str, int]] = ...,
           input_shapes: Optional[Mapping[str, Sequence[int]]] = ...) -> VerifyResult: ...
def infer_shapes(model: ModelLike, *, dims: Optional[Mapping[str, int]] = ...,
                 input_shapes: Optional[Mapping[str, Sequence[int]]] = ...) -> onnx.ModelProto: ...
def inspect(model: ModelLike) -> Dict[str, Any]: ...
