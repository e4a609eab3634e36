"""Drop-ins for onnxsim and OnnxSlim users: ``from onnxtrim.compat import onnxsim`` then
``onnxsim.simplify(model, ...)``; ``from onnxtrim.compat import onnxslim`` then
``onnxslim.slim(model, ...)``. Every documented parameter maps onto onnxtrim's options or is
refused with a TypeError that names it."""
from . import onnxsim, onnxslim  # noqa: F401
