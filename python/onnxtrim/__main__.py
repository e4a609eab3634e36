"""python3 -m onnxtrim IN OUT [options]: the command line, with the same options and exit codes."""
from . import _cli

_cli.console_main()
