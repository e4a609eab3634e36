"""python3 -m onnxtrim IN OUT [options]: the command line, with the same options and exit codes."""
import sys

from . import _cli

sys.exit(_cli.main(sys.argv[1:]))
