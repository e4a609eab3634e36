"""The command line inside the Python package (``python3 -m onnxtrim``): the C++ CLI itself."""
import sys
from typing import List

from . import _onnxtrim


def main(argv: List[str]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    return _onnxtrim.cli_main(["onnxtrim", *argv])


def console_main() -> None:
    try:
        rc = main(sys.argv[1:])
    except KeyboardInterrupt:
        # A Ctrl-C the run did not see (before or after it): exit as the C++ CLI would.
        sys.stderr.write("onnxtrim: error: interrupted\n")
        rc = 130
    sys.exit(rc)
