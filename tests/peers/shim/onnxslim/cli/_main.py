"""OnnxSlim's command entry, main(): sys.argv[1:] given to onnxtrim's CLI, which takes OnnxSlim's
flags (docs/cli.md, "onnxsim's and OnnxSlim's flags"); returns its exit code."""
import sys

from onnxtrim import _cli
from onnxtrim.compat.onnxslim import slim  # noqa: F401


def main():
    return _cli.main(sys.argv[1:])
