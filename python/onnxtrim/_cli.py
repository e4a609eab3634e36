"""The command line inside the Python package (``python3 -m onnxtrim``): the C++ CLI itself."""
import sys
from typing import List

from . import _onnxtrim


def main(argv: List[str]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    return _onnxtrim.cli_main(["onnxtrim", *argv])


def console_main() -> None:
    sys.exit(main(sys.argv[1:]))
