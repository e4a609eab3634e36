"""onnxslim.cli: the drop-in's slim, and the `onnxslim` command as onnxtrim's CLI (_main.main)."""
from onnxtrim.compat.onnxslim import slim  # noqa: F401
