"""`import onnxsim` for onnxsim's own tests: onnxtrim's drop-in (onnxtrim.compat.onnxsim)."""
from onnxtrim.compat.onnxsim import *  # noqa: F401,F403
from onnxtrim.compat.onnxsim import simplify  # noqa: F401
