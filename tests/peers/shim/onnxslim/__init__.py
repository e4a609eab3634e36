"""`import onnxslim` for OnnxSlim's own tests: onnxtrim's drop-in (onnxtrim.compat.onnxslim).

The public names come from the drop-in. onnxslim.utils is the harness's (the few helpers the
tests use to look at a result: summarize_model, print_model_info_as_table,
is_onnxruntime_available); onnxslim.cli maps `onnxslim`'s command
onto onnxtrim's CLI. OnnxSlim's internals (onnxslim.core, .third_party, .argparser, .misc,
utils' other helpers) are placeholders (_peers_internal.py)."""
import _peers_internal
from onnxtrim.compat.onnxslim import *  # noqa: F401,F403
from onnxtrim.compat.onnxslim import Pattern, PatternMatcher, register_fusion_pattern, slim  # noqa: F401

_peers_internal.install(["onnxslim.core", "onnxslim.third_party", "onnxslim.argparser", "onnxslim.misc"])

__version__ = "0.0.0+onnxtrim"
